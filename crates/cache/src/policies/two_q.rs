//! 2Q, full version.
//!
//! T. Johnson and D. Shasha, "2Q: A Low Overhead High Performance Buffer Management
//! Replacement Algorithm", VLDB 1994, Section 2 ("full version").
//!
//! A first access puts a page on the FIFO A1in. A page evicted from A1in leaves its id
//! on the FIFO A1out (no data). A miss whose id is on A1out proves a second reference
//! and the page enters the LRU Am. Hits in A1in do not move the page (correlated
//! references); hits in Am move it to the MRU end.
//!
//! Resolved details:
//! * `Kin = max(1, floor(kin * C))`, `Kout = max(1, floor(kout * C))` with the paper's
//!   recommended `kin = 0.25`, `kout = 0.5`.
//! * An A1out hit removes the id from A1out *before* reclaiming, so the reclaim cannot
//!   push it off A1out.
//! * Reclaim takes A1in's tail when `|A1in| > Kin` (strict) or Am is empty, else Am's
//!   tail; pages evicted from Am are not remembered.
//! * libCacheSim's `TwoQ` has the same structure (its header comment says Am is ARC,
//!   its code makes Am an LRU) and the same miss counts (`tests/cache/parity_pip.rs`).
//!
//! Per page: two `u32` links (A1in, A1out and Am are disjoint) and one state byte.
//! O(1) per access.

use crate::list::{IndexList, Links};
use crate::policy::{parse_f64, Access, IoSink, ParamError, Policy, PolicyCtx};
use crate::table::filled;
use wafer_trace::Op;

crate::params! {
    /// Parameters of 2Q.
    pub struct TwoQParams {
        /// A1in's reclaim threshold as a share of the capacity.
        kin: f64 = 0.25,
            doc "A1in threshold as a share of the capacity, in (0, 1]; at least one page",
            parse |v| match parse_f64(v)? {
                v if v > 0.0 && v <= 1.0 => Ok(v),
                v => Err(format!("must be in (0, 1], found {v}")),
            };
        /// A1out's size (ids) as a share of the capacity.
        kout: f64 = 0.5,
            doc "A1out size (ghost ids) as a share of the capacity, > 0; at least one id",
            parse |v| match parse_f64(v)? {
                v if v > 0.0 => Ok(v),
                v => Err(format!("must be > 0, found {v}")),
            };
    }
}

const NONE: u8 = 0;
const A1IN: u8 = 1;
const A1OUT: u8 = 2;
const AM: u8 = 3;
const WHERE: u8 = 0b11;
const DIRTY: u8 = 0b100;

/// 2Q (full version).
#[derive(Debug)]
pub struct TwoQ {
    cap: u32,
    kin: u32,
    kout: u32,
    links: Links,
    a1in: IndexList,
    a1out: IndexList,
    am: IndexList,
    state: Vec<u8>,
}

impl TwoQ {
    fn drop_page<S: IoSink>(&mut self, v: u32, io: &mut S) {
        if self.state[v as usize] & DIRTY != 0 {
            io.write_back(v);
        } else {
            io.drop_clean(v);
        }
        self.state[v as usize] = NONE;
    }

    /// The paper's reclaimfor: free one frame when the cache is full.
    #[inline]
    fn reclaim<S: IoSink>(&mut self, io: &mut S) {
        if self.a1in.len() + self.am.len() < self.cap {
            return;
        }
        if self.a1in.len() > self.kin || self.am.is_empty() {
            let Some(y) = self.a1in.pop_back(&mut self.links) else {
                return;
            };
            self.drop_page(y, io);
            self.a1out.push_front(&mut self.links, y);
            self.state[y as usize] = A1OUT;
            if self.a1out.len() > self.kout {
                if let Some(g) = self.a1out.pop_back(&mut self.links) {
                    self.state[g as usize] = NONE;
                }
            }
        } else if let Some(y) = self.am.pop_back(&mut self.links) {
            self.drop_page(y, io);
        }
    }
}

impl Policy for TwoQ {
    type Params = TwoQParams;
    const NAME: &'static str = "2q";
    const ALIASES: &'static [&'static str] = &["two-q"];
    const SUMMARY: &'static str =
        "first-access FIFO, ghost FIFO of its evictions, and an LRU for re-referenced pages";
    const CITATION: &'static str = "T. Johnson and D. Shasha, \"2Q: A Low Overhead High Performance Buffer Management Replacement Algorithm\", VLDB 1994.";
    const FOLLOWS: &'static str = "the paper's full version, libCacheSim TwoQ: equal miss counts";

    fn new(capacity: u32, params: &TwoQParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let cap = capacity.max(1);
        let share = |r: f64| ((r * cap as f64).floor() as u32).max(1);
        Ok(TwoQ {
            cap,
            kin: share(params.kin),
            kout: share(params.kout),
            links: Links::new(ctx.universe_hint),
            a1in: IndexList::new(),
            a1out: IndexList::new(),
            am: IndexList::new(),
            state: filled(ctx.universe_hint as usize, NONE),
        })
    }

    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let x = a.page;
        let s = self.state[x as usize];
        let dirty = if a.op == Op::Write { DIRTY } else { 0 };
        match s & WHERE {
            AM => {
                self.am.move_to_front(&mut self.links, x);
                self.state[x as usize] = s | dirty;
                true
            }
            A1IN => {
                self.state[x as usize] = s | dirty;
                true
            }
            A1OUT => {
                self.a1out.remove(&mut self.links, x);
                self.state[x as usize] = NONE;
                self.reclaim(io);
                self.am.push_front(&mut self.links, x);
                self.state[x as usize] = AM | dirty;
                false
            }
            _ => {
                self.reclaim(io);
                self.a1in.push_front(&mut self.links, x);
                self.state[x as usize] = A1IN | dirty;
                false
            }
        }
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        self.links.reserve(pages);
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, NONE);
        }
    }

    fn len(&self) -> u32 {
        self.a1in.len() + self.am.len()
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        let dirty = |&p: &u32| self.state[p as usize] & DIRTY != 0;
        out.extend(self.a1in.iter(&self.links).filter(dirty));
        out.extend(self.am.iter(&self.links).filter(dirty));
    }

    fn invalidate(&mut self, page: u32) -> bool {
        let Some(&s) = self.state.get(page as usize) else {
            return false;
        };
        let resident = match s & WHERE {
            A1IN => {
                self.a1in.remove(&mut self.links, page);
                true
            }
            AM => {
                self.am.remove(&mut self.links, page);
                true
            }
            A1OUT => {
                self.a1out.remove(&mut self.links, page);
                false
            }
            _ => return false,
        };
        self.state[page as usize] = NONE;
        resident
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::run;

    /// Hand-worked vector after the paper's Section 2 (C = 4, Kin = 1, Kout = 2).
    #[test]
    fn spec_vector() {
        let p = TwoQParams {
            kin: 0.25,
            kout: 0.5,
        };
        let o = run::<TwoQ>(4, &p, 4, "R1 R2 R3 R1 R4 R5 R1");
        assert_eq!(o.evictions(), [1, 2]);
        assert_eq!(o.hit_count(), 1);
        let a1out: Vec<u32> = o.policy.a1out.iter(&o.policy.links).collect();
        assert_eq!(a1out, [2]);
        let am: Vec<u32> = o.policy.am.iter(&o.policy.links).collect();
        assert_eq!(am, [1]);
    }

    /// Pages evicted from Am are not remembered; dirty ones are written back.
    #[test]
    fn am_eviction_writes_back_and_forgets() {
        // C = 2, Kin = 1, Kout = 1. 1 reaches Am via A1out; at R4 A1in holds one page
        // (not > Kin), so the reclaim takes Am's LRU, 1, without remembering it.
        let o = run::<TwoQ>(2, &TwoQParams::default(), 4, "W1 R2 R3 W1 R4 R5");
        assert_eq!(o.evictions(), [1, 2, 1, 3]);
        assert_eq!(o.write_backs(), [1, 1]);
        assert_eq!(o.policy.state[1] & WHERE, NONE);
    }
}
