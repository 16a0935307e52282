//! CAR: Clock with Adaptive Replacement.
//!
//! S. Bansal and D. S. Modha, "CAR: Clock with Adaptive Replacement", USENIX FAST
//! 2004, Fig. 2 (also a baseline of paper 002: H. Lee, H. Bahn, K. G. Shin, "Page
//! Replacement for Write References in NAND Flash Based Virtual Memory Systems",
//! JCSE 8(3), 2014).
//!
//! ARC's structure with its two resident LRU lists replaced by clocks: T1 (pages seen
//! once recently) and T2 (seen at least twice) carry reference bits, and a hit only
//! sets the bit. B1 and B2 are LRU ghost lists of ids evicted from T1 and T2. The
//! replacement sweeps T1 while it holds at least `max(1, p)` pages, moving referenced
//! pages to T2's tail, else sweeps T2, recycling referenced pages to its tail.
//!
//! Resolved details:
//! * Clocks are modelled as deques: the head is under the hand, and "append" pushes at
//!   the tail, behind the hand.
//! * `p` is real-valued and adapted *after* `replace`, with the ghost list sizes as
//!   they are then and before x leaves its ghost list (the paper's Fig. 2 order; ARC
//!   adapts before). The ratio `|B2|/|B1|` is a real division.
//! * New pages, and pages readmitted from a ghost list, get reference bit 0 (the
//!   paper's convention).
//! * The directory trim (drop B1's or B2's LRU) runs only for a page in neither ghost
//!   list, and only when the cache was full, as in Fig. 2.
//!
//! Per page: two `u32` links (the four lists are disjoint) and one state byte. O(1)
//! amortised per access: every step of a sweep clears a bit that a hit set.

use crate::list::{IndexList, Links};
use crate::params::NoParams;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use crate::table::filled;
use wafer_trace::Op;

const NONE: u8 = 0;
const T1: u8 = 1;
const T2: u8 = 2;
const B1: u8 = 3;
const B2: u8 = 4;
const LIST: u8 = 0b0111;
const REF: u8 = 0b1000;
const DIRTY: u8 = 0b1_0000;

/// Clock with Adaptive Replacement.
#[derive(Debug)]
pub struct Car {
    cap: u32,
    links: Links,
    t1: IndexList,
    t2: IndexList,
    b1: IndexList,
    b2: IndexList,
    p: f64,
    state: Vec<u8>,
}

impl Car {
    /// The current target size of T1 (the paper's `p`).
    pub fn target(&self) -> f64 {
        self.p
    }

    fn evict_to<S: IoSink>(&mut self, v: u32, ghost: u8, io: &mut S) {
        if self.state[v as usize] & DIRTY != 0 {
            io.write_back(v);
        } else {
            io.drop_clean(v);
        }
        self.state[v as usize] = ghost;
        if ghost == B1 {
            self.b1.push_front(&mut self.links, v);
        } else {
            self.b2.push_front(&mut self.links, v);
        }
    }

    /// The paper's replace(): sweep the clocks until one page is evicted.
    fn replace<S: IoSink>(&mut self, io: &mut S) {
        loop {
            let from_t1 = self.t1.len() as f64 >= self.p.max(1.0) || self.t2.is_empty();
            let h = if from_t1 {
                self.t1.pop_front(&mut self.links)
            } else {
                self.t2.pop_front(&mut self.links)
            };
            let Some(h) = h else {
                return;
            };
            let s = self.state[h as usize];
            if s & REF == 0 {
                self.evict_to(h, if from_t1 { B1 } else { B2 }, io);
                return;
            }
            self.state[h as usize] = (s & DIRTY) | T2;
            self.t2.push_back(&mut self.links, h);
        }
    }

    fn drop_lru(&mut self, ghost: u8) {
        let g = if ghost == B1 {
            self.b1.pop_back(&mut self.links)
        } else {
            self.b2.pop_back(&mut self.links)
        };
        if let Some(g) = g {
            self.state[g as usize] = NONE;
        }
    }
}

impl Policy for Car {
    type Params = NoParams;
    const NAME: &'static str = "car";
    const SUMMARY: &'static str =
        "clock with adaptive replacement: ARC's adaptation over two clocks";
    const CITATION: &'static str =
        "S. Bansal and D. S. Modha, \"CAR: Clock with Adaptive Replacement\", USENIX FAST 2004.";
    const FOLLOWS: &'static str =
        "the paper's Fig. 2; libCacheSim CAR (integer p) differs by under 0.1%";

    fn new(capacity: u32, _: &NoParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        Ok(Car {
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
        let dirty = if a.op == Op::Write { DIRTY } else { 0 };
        let s = self.state[x as usize];
        let which = s & LIST;
        if which == T1 || which == T2 {
            self.state[x as usize] = s | REF | dirty;
            return true;
        }
        let ghost = which == B1 || which == B2;
        if self.t1.len() + self.t2.len() >= self.cap {
            self.replace(io);
            if !ghost {
                if self.t1.len() + self.b1.len() >= self.cap {
                    self.drop_lru(B1);
                } else if self.t1.len() + self.t2.len() + self.b1.len() + self.b2.len()
                    >= 2 * self.cap
                {
                    self.drop_lru(B2);
                }
            }
        }
        let c = self.cap as f64;
        let (b1, b2) = (self.b1.len() as f64, self.b2.len() as f64);
        match which {
            B1 => {
                self.p = (self.p + (b2 / b1).max(1.0)).min(c);
                self.b1.remove(&mut self.links, x);
                self.t2.push_back(&mut self.links, x);
                self.state[x as usize] = T2 | dirty;
            }
            B2 => {
                self.p = (self.p - (b1 / b2).max(1.0)).max(0.0);
                self.b2.remove(&mut self.links, x);
                self.t2.push_back(&mut self.links, x);
                self.state[x as usize] = T2 | dirty;
            }
            _ => {
                self.t1.push_back(&mut self.links, x);
                self.state[x as usize] = T1 | dirty;
            }
        }
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
        let list = match s & LIST {
            T1 => &mut self.t1,
            T2 => &mut self.t2,
            B1 => &mut self.b1,
            B2 => &mut self.b2,
            _ => return false,
        };
        list.remove(&mut self.links, page);
        self.state[page as usize] = NONE;
        s & LIST == T1 || s & LIST == T2
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

    /// Hand-worked vector after Fig. 2 (C = 2); ARC evicts 2, 1, 3 on the same trace.
    #[test]
    fn spec_vector() {
        let o = run::<Car>(2, &NoParams, 4, "R1 R2 R1 R3 R2 R1");
        assert_eq!(o.evictions(), [2, 3]);
        assert_eq!(o.hit_count(), 2);
        assert_eq!(o.policy.target(), 1.0);
        let t2: Vec<u32> = o.policy.t2.iter(&o.policy.links).collect();
        assert_eq!(t2, [1, 2]);
    }

    /// A dirty victim is written back; a referenced page survives one sweep.
    #[test]
    fn dirty_victim_and_second_chance() {
        let o = run::<Car>(2, &NoParams, 4, "W1 W2 R2 R3");
        assert_eq!(o.write_backs(), [1]);
        let mut d = vec![];
        o.policy.dirty_pages(&mut d);
        assert_eq!(d, [2]);
    }
}
