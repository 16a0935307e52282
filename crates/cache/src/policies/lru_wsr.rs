//! LRU-WSR: LRU that gives a dirty page one more trip through the list before it is
//! written back (write sequence reordering).
//!
//! One LRU list; every page carries a dirty flag and a `cold` flag that only matters
//! for dirty pages. A hit moves the page to the MRU end and, if the page is dirty after
//! the access, clears `cold`. A new page enters at the MRU end with `cold = 0`. To make
//! room, the policy looks at the LRU page: a clean page is evicted; a dirty page with
//! `cold = 1` is written back and evicted; a dirty page with `cold = 0` gets `cold =
//! 1`, moves to the MRU end, and the next LRU page is examined. Clean pages therefore
//! leave first unless a dirty page has gone a full trip round the list without a hit.
//!
//! Resolved ambiguity: a hit on a dirty page clears `cold` whether the hit is a read or
//! a write. That is the original paper's rule ("if it is a dirty page, LRU-WSR clears
//! the cold flag"), and paper 002's summary (H. Lee, H. Bahn, K. G. Shin, JCSE 8(3),
//! 2014, Sec. II, on its reference \[17\]) says the same. A write hit on a clean page
//! makes it dirty with `cold = 0`.
//!
//! Cost: O(1) per hit; a miss is amortised O(1), since every dirty page the victim
//! search sends back to the MRU end had its `cold` flag cleared by an earlier access
//! (the search ends after at most one pass over the dirty pages).
//! Memory: 9 bytes per page of the universe (two `u32` links, one state byte), nothing
//! per cached page beyond that.
//!
//! Citation: H. Jung, H. Shim, S. Park, S. Kang, J. Cha, "LRU-WSR: integration of LRU
//! and writes sequence reordering for flash memory", IEEE Transactions on Consumer
//! Electronics 54(3), 2008, pp. 1215-1223.

use crate::list::{IndexList, Links};
use crate::params::NoParams;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use crate::table::filled;
use wafer_trace::Op;

/// LRU with write sequence reordering.
#[derive(Debug)]
pub struct LruWsr {
    cap: u32,
    links: Links,
    /// Head = MRU, tail = LRU.
    list: IndexList,
    /// Per page: [`RESIDENT`], [`DIRTY`] and [`COLD`] bits.
    state: Vec<u8>,
}

const RESIDENT: u8 = 1;
const DIRTY: u8 = 2;
const COLD: u8 = 4;

impl LruWsr {
    /// Find the victim at the LRU end, giving hot dirty pages their second trip.
    #[inline]
    fn evict<S: IoSink>(&mut self, io: &mut S) {
        loop {
            let v = self.list.tail().expect("a full cache has a tail");
            let s = &mut self.state[v as usize];
            if *s & DIRTY != 0 && *s & COLD == 0 {
                *s |= COLD;
                self.list.move_to_front(&mut self.links, v);
                continue;
            }
            let was = std::mem::replace(s, 0);
            self.list.remove(&mut self.links, v);
            if was & DIRTY != 0 {
                io.write_back(v);
            } else {
                io.drop_clean(v);
            }
            return;
        }
    }
}

impl Policy for LruWsr {
    type Params = NoParams;
    const NAME: &'static str = "lru-wsr";
    const SUMMARY: &'static str =
        "LRU whose dirty pages get a second trip through the list (cold flag) before write-back";
    const CITATION: &'static str = "H. Jung, H. Shim, S. Park, S. Kang, J. Cha, \"LRU-WSR: integration of LRU and writes sequence reordering for flash memory\", IEEE Transactions on Consumer Electronics 54(3), 2008, pp. 1215-1223.";
    const FLASH_AWARE: bool = true;

    fn new(capacity: u32, _: &NoParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        Ok(LruWsr {
            cap: capacity.max(1),
            links: Links::new(ctx.universe_hint),
            list: IndexList::new(),
            state: filled(ctx.universe_hint as usize, 0),
        })
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let p = a.page;
        let write = if a.op == Op::Write { DIRTY } else { 0 };
        let s = self.state[p as usize];
        if s & RESIDENT != 0 {
            let ns = s | write;
            // A dirty page after the access is hot again (the resolved ambiguity above).
            self.state[p as usize] = if ns & DIRTY != 0 { ns & !COLD } else { ns };
            self.list.move_to_front(&mut self.links, p);
            return true;
        }
        if self.list.len() == self.cap {
            self.evict(io);
        }
        self.state[p as usize] = RESIDENT | write;
        self.list.push_front(&mut self.links, p);
        false
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        self.links.reserve(pages);
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, 0);
        }
    }

    fn len(&self) -> u32 {
        self.list.len()
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(
            self.list
                .iter(&self.links)
                .filter(|&p| self.state[p as usize] & DIRTY != 0),
        );
    }

    fn invalidate(&mut self, page: u32) -> bool {
        if self
            .state
            .get(page as usize)
            .is_some_and(|&s| s & RESIDENT != 0)
        {
            self.state[page as usize] = 0;
            self.list.remove(&mut self.links, page);
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{run, Ev};

    /// The list from MRU to LRU as (page, dirty, cold).
    fn list(p: &LruWsr) -> Vec<(u32, bool, bool)> {
        p.list
            .iter(&p.links)
            .map(|x| {
                let s = p.state[x as usize];
                (x, s & DIRTY != 0, s & COLD != 0)
            })
            .collect()
    }

    /// Hand-worked vector 1 (C = 3): the hot dirty page 1 survives one eviction (it
    /// turns cold and goes to MRU), then is written back when it reaches the LRU end
    /// again.
    #[test]
    fn spec_vector_1() {
        let o = run::<LruWsr>(3, &NoParams, 4, "W1 R2 R3 R4 R5 R6");
        assert_eq!(o.events[3], [Ev::Ev(2)]);
        let o4 = run::<LruWsr>(3, &NoParams, 4, "W1 R2 R3 R4");
        // LRU -> MRU: 3, 1c, 4 (listed here MRU first).
        assert_eq!(
            list(&o4.policy),
            [(4, false, false), (1, true, true), (3, false, false)]
        );
        assert_eq!(o.events[4], [Ev::Ev(3)]);
        assert_eq!(o.events[5], [Ev::Wb(1)]);
        assert_eq!(o.hit_count(), 0);
    }

    /// Hand-worked vector 2 (C = 3): a write hit makes the cold dirty page hot again,
    /// so it gets another second chance when it reaches the LRU end.
    #[test]
    fn spec_vector_2() {
        let o = run::<LruWsr>(3, &NoParams, 4, "W1 R2 R3 R4 W1 R5 R6 R7");
        assert!(o.hits[4]);
        assert_eq!(o.evictions(), [2, 3, 4, 5]);
        assert!(o.write_backs().is_empty());
        // After R7: 1 went cold and to MRU before 7 was inserted; LRU -> MRU: 6, 1c, 7.
        assert_eq!(
            list(&o.policy),
            [(7, false, false), (1, true, true), (6, false, false)]
        );
    }

    /// A read hit on a cold dirty page also clears `cold` (the module's resolved
    /// ambiguity).
    #[test]
    fn read_hit_on_dirty_page_clears_cold() {
        // After R4: 3, 1c, 4. R1 hits 1 (dirty, cold) -> hot. R5 evicts 3, R6 evicts 4,
        // R7 finds 1 hot again: cold, MRU; evicts 5.
        let o = run::<LruWsr>(3, &NoParams, 4, "W1 R2 R3 R4 R1 R5 R6 R7");
        assert_eq!(o.evictions(), [2, 3, 4, 5]);
        // Without the clearing, R7 would have written back 1.
        assert!(o.write_backs().is_empty());
    }

    /// A read hit on a clean page leaves it clean; LRU-WSR then equals LRU.
    #[test]
    fn all_clean_is_lru() {
        use crate::params::NoParams;
        use crate::policies::lru::Lru;
        let t = "R1 R2 R3 R1 R4 R2 R5 R1 R6 R3 R3 R7 R1";
        let a = run::<LruWsr>(3, &NoParams, 4, t);
        let b = run::<Lru>(3, &NoParams, 4, t);
        assert_eq!(a.hits, b.hits);
        assert_eq!(a.events, b.events);
    }

    /// Only dirty pages everywhere: every page goes round once more, then leaves in
    /// LRU order; the search terminates.
    #[test]
    fn all_dirty_terminates() {
        let o = run::<LruWsr>(2, &NoParams, 4, "W1 W2 W3 W4");
        // W3: 1 -> cold, MRU; 2 -> cold, MRU; 1 cold -> WB1.
        assert_eq!(o.events[2], [Ev::Wb(1)]);
        // W4: LRU is 2 (cold) -> WB2.
        assert_eq!(o.events[3], [Ev::Wb(2)]);
    }
}
