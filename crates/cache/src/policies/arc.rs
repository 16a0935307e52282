//! ARC: Adaptive Replacement Cache.
//!
//! N. Megiddo and D. S. Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache",
//! USENIX FAST 2003, Fig. 4.
//!
//! Two resident LRU lists (T1: seen once recently, T2: seen at least twice) and two
//! ghost LRU lists (B1, B2) of the ids recently evicted from each. A ghost hit moves
//! the real-valued target `p` for |T1| towards the list that would have hit, then
//! `replace` evicts from T1 (to B1) if |T1| exceeds the target, or from T2 (to B2).
//!
//! Resolved details:
//! * `p` is an `f64` in `[0, C]`, adapted by `max(1, |B2|/|B1|)` (resp. `|B1|/|B2|`)
//!   *before* `replace`, as in the paper. With these exact rules the miss counts equal
//!   libCacheSim's ARC at all seven sizes of the parity test
//!   (`tests/cache/parity_adaptive.rs`).
//! * Cold start and trims: `replace` runs only when the cache is full, so a cache
//!   left below capacity by [`Policy::invalidate`] refills before it evicts (the
//!   paper's cache is always full once warm, so this changes nothing without trims).
//! * A new page whose T1+B1 is already C pages with T1 = C is evicted from T1 without
//!   entering B1 (case IV.A of the paper).
//!
//! Per page: two `u32` links (shared by the four lists, so ghosts cost the same
//! per-page state as residents) and one state byte. O(1) per access, no allocation
//! after [`Policy::reserve`].

use crate::list::{IndexList, Links};
use crate::params::NoParams;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use crate::table::filled;
use wafer_trace::Op;

/// Where a page is: low 3 bits the list, bit 3 the dirty flag.
const NONE: u8 = 0;
const T1: u8 = 1;
const T2: u8 = 2;
const B1: u8 = 3;
const B2: u8 = 4;
const LIST: u8 = 0b0111;
const DIRTY: u8 = 0b1000;

/// Adaptive Replacement Cache.
#[derive(Debug)]
pub struct Arc {
    cap: u32,
    links: Links,
    t1: IndexList,
    t2: IndexList,
    b1: IndexList,
    b2: IndexList,
    /// Target size of T1.
    p: f64,
    state: Vec<u8>,
}

impl Arc {
    /// The current target size of T1 (the paper's `p`).
    pub fn target(&self) -> f64 {
        self.p
    }

    /// List `which` (T1, T2, B1 or B2) and the shared links.
    fn parts(&mut self, which: u8) -> (&mut IndexList, &mut Links) {
        let l = match which {
            T1 => &mut self.t1,
            T2 => &mut self.t2,
            B1 => &mut self.b1,
            _ => &mut self.b2,
        };
        (l, &mut self.links)
    }

    /// Evict the LRU page of `from` (T1 or T2); remember it at the MRU end of ghost
    /// list `to` if given.
    #[inline]
    fn demote<S: IoSink>(&mut self, from: u8, to: Option<u8>, io: &mut S) {
        let (list, links) = self.parts(from);
        let Some(v) = list.pop_back(links) else {
            return;
        };
        if self.state[v as usize] & DIRTY != 0 {
            io.write_back(v);
        } else {
            io.drop_clean(v);
        }
        self.state[v as usize] = to.unwrap_or(NONE);
        if let Some(to) = to {
            let (list, links) = self.parts(to);
            list.push_front(links, v);
        }
    }

    /// The paper's REPLACE(x, p); `in_b2` says whether the missed page is in B2.
    #[inline]
    fn replace<S: IoSink>(&mut self, in_b2: bool, io: &mut S) {
        if self.t1.len() + self.t2.len() < self.cap {
            return;
        }
        let t1 = self.t1.len() as f64;
        if !self.t1.is_empty() && ((in_b2 && t1 == self.p) || t1 > self.p) {
            self.demote(T1, Some(B1), io);
        } else if !self.t2.is_empty() {
            self.demote(T2, Some(B2), io);
        } else {
            self.demote(T1, Some(B1), io);
        }
    }

    #[inline]
    fn drop_ghost(&mut self, which: u8) {
        let (list, links) = self.parts(which);
        if let Some(g) = list.pop_back(links) {
            self.state[g as usize] = NONE;
        }
    }
}

impl Policy for Arc {
    type Params = NoParams;
    const NAME: &'static str = "arc";
    const SUMMARY: &'static str =
        "adaptive replacement cache: recency and frequency lists with ghost-driven target";
    const CITATION: &'static str = "N. Megiddo and D. S. Modha, \"ARC: A Self-Tuning, Low Overhead Replacement Cache\", USENIX FAST 2003.";
    const FOLLOWS: &'static str = "the paper's Fig. 4, libCacheSim ARC: equal miss counts";

    fn new(capacity: u32, _: &NoParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        Ok(Arc {
            cap: capacity.max(1),
            links: Links::new(ctx.universe_hint),
            t1: IndexList::new(),
            t2: IndexList::new(),
            b1: IndexList::new(),
            b2: IndexList::new(),
            p: 0.0,
            state: filled(ctx.universe_hint as usize, NONE),
        })
    }

    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let x = a.page;
        let s = self.state[x as usize];
        let dirty = if a.op == Op::Write { DIRTY } else { 0 };
        let c = self.cap as f64;
        match s & LIST {
            T1 => {
                self.t1.remove(&mut self.links, x);
                self.t2.push_front(&mut self.links, x);
                self.state[x as usize] = T2 | (s & DIRTY) | dirty;
                return true;
            }
            T2 => {
                self.t2.move_to_front(&mut self.links, x);
                self.state[x as usize] = s | dirty;
                return true;
            }
            B1 => {
                let (b1, b2) = (self.b1.len() as f64, self.b2.len() as f64);
                let delta = if b1 >= b2 { 1.0 } else { b2 / b1 };
                self.p = (self.p + delta).min(c);
                self.b1.remove(&mut self.links, x);
                self.state[x as usize] = NONE;
                self.replace(false, io);
            }
            B2 => {
                let (b1, b2) = (self.b1.len() as f64, self.b2.len() as f64);
                let delta = if b2 >= b1 { 1.0 } else { b1 / b2 };
                self.p = (self.p - delta).max(0.0);
                self.b2.remove(&mut self.links, x);
                self.state[x as usize] = NONE;
                self.replace(true, io);
            }
            _ => {
                let l1 = self.t1.len() + self.b1.len();
                let total = l1 + self.t2.len() + self.b2.len();
                if l1 >= self.cap {
                    if self.t1.len() < self.cap {
                        self.drop_ghost(B1);
                        self.replace(false, io);
                    } else {
                        self.demote(T1, None, io);
                    }
                } else if total >= self.cap {
                    if total >= 2 * self.cap {
                        self.drop_ghost(B2);
                    }
                    self.replace(false, io);
                }
                self.t1.push_front(&mut self.links, x);
                self.state[x as usize] = T1 | dirty;
                return false;
            }
        }
        self.t2.push_front(&mut self.links, x);
        self.state[x as usize] = T2 | dirty;
        false
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        self.links.reserve(pages);
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, NONE);
        }
    }

    fn len(&self) -> u32 {
        self.t1.len() + self.t2.len()
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        let dirty = |&p: &u32| self.state[p as usize] & DIRTY != 0;
        out.extend(self.t1.iter(&self.links).filter(dirty));
        out.extend(self.t2.iter(&self.links).filter(dirty));
    }

    fn invalidate(&mut self, page: u32) -> bool {
        let Some(&s) = self.state.get(page as usize) else {
            return false;
        };
        let which = s & LIST;
        if which == NONE {
            return false;
        }
        let (list, links) = self.parts(which);
        list.remove(links, page);
        self.state[page as usize] = NONE;
        which == T1 || which == T2
    }

    fn series_names(&self) -> &'static [&'static str] {
        &["p"]
    }

    fn sample(&self, out: &mut Vec<f64>) {
        out.push(self.p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::run;

    /// Hand-worked vector after Fig. 4 (C = 2).
    #[test]
    fn spec_vector() {
        let o = run::<Arc>(2, &NoParams, 4, "R1 R2 R1 R3 R2 R1");
        assert_eq!(o.evictions(), [2, 1, 3]);
        assert_eq!(o.hit_count(), 1);
        assert_eq!(o.policy.target(), 0.0);
    }

    /// A B1 ghost hit raises p; the refetched page lands in T2 and the evicted page
    /// is written back when dirty.
    #[test]
    fn ghost_hit_adapts_and_writes_back() {
        let o = run::<Arc>(2, &NoParams, 4, "W1 R2 R1 R3 R2");
        assert_eq!(o.write_backs(), [1]);
        assert_eq!(o.evictions(), [2, 1]);
        assert_eq!(o.policy.target(), 1.0);
        let mut d = vec![];
        o.policy.dirty_pages(&mut d);
        assert!(d.is_empty());
    }

    /// Scan resistance: a page used twice survives a long one-time scan.
    #[test]
    fn frequent_page_survives_scan() {
        let o = run::<Arc>(3, &NoParams, 4, "R1 R1 R2 R3 R4 R5 R6 R7 R1");
        assert!(o.hits[8]);
    }
}
