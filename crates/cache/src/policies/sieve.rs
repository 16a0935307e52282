//! SIEVE: a FIFO queue with a visited bit and a hand that sifts from old to new.
//!
//! New pages enter at the head of the queue with the visited bit clear; a hit only
//! sets the bit (no move). To evict, the hand (starting at the tail, the oldest page)
//! walks towards the head, clearing set bits, and evicts the first page whose bit is
//! clear; it then rests on that page's newer neighbour. Reaching the head, it wraps to
//! the tail. Unlike CLOCK, a spared page keeps its place in the queue, so new pages
//! that are not reused leave quickly.
//!
//! Citation: Y. Zhang, J. Yang, Y. Yue, Y. Vigfusson, K. V. Rashmi, "SIEVE is Simpler
//! than LRU: an Efficient Turn-Key Eviction Algorithm for Web Caches", USENIX NSDI
//! 2024.
//!
//! Resolved details: a trim of the page under the hand moves the hand to that page's
//! newer neighbour (as an eviction would). Dirty victims are written back. Matches
//! libCacheSim's `Sieve` miss counts exactly (`tests/cache/parity.rs`).
//!
//! Per page: two `u32` links and one state byte. Amortised O(1) per access.

use crate::list::{IndexList, Links, NIL};
use crate::params::NoParams;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use crate::table::filled;
use wafer_trace::Op;

/// SIEVE.
#[derive(Debug)]
pub struct Sieve {
    cap: u32,
    links: Links,
    /// Head = newest, tail = oldest.
    queue: IndexList,
    /// Page under the hand, or `NIL` (start from the tail).
    hand: u32,
    /// Per page: bit 0 resident, bit 1 dirty, bit 2 visited.
    state: Vec<u8>,
}

const RESIDENT: u8 = 1;
const DIRTY: u8 = 2;
const VISITED: u8 = 4;

impl Policy for Sieve {
    type Params = NoParams;
    const NAME: &'static str = "sieve";
    const SUMMARY: &'static str =
        "FIFO with a visited bit; the hand sifts from old to new and keeps survivors in place";
    const CITATION: &'static str = "Y. Zhang, J. Yang, Y. Yue, Y. Vigfusson, K. V. Rashmi, SIEVE is Simpler than LRU: an Efficient Turn-Key Eviction Algorithm for Web Caches, USENIX NSDI 2024.";
    const FOLLOWS: &'static str = "libCacheSim Sieve: equal miss counts";

    fn new(capacity: u32, _: &NoParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        Ok(Sieve {
            cap: capacity.max(1),
            links: Links::new(ctx.universe_hint),
            queue: IndexList::new(),
            hand: NIL,
            state: filled(ctx.universe_hint as usize, 0),
        })
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let p = a.page;
        let dirty = if a.op == Op::Write { DIRTY } else { 0 };
        let st = &mut self.state[p as usize];
        if *st & RESIDENT != 0 {
            *st |= VISITED | dirty;
            return true;
        }
        *st = RESIDENT | dirty;
        if self.queue.len() == self.cap {
            self.evict(io);
        }
        self.queue.push_front(&mut self.links, p);
        false
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        self.links.reserve(pages);
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, 0);
        }
    }

    fn len(&self) -> u32 {
        self.queue.len()
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(
            self.queue
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
            if self.hand == page {
                self.hand = self.queue.prev(&self.links, page).unwrap_or(NIL);
            }
            self.state[page as usize] = 0;
            self.queue.remove(&mut self.links, page);
            true
        } else {
            false
        }
    }
}

impl Sieve {
    #[inline]
    fn evict<S: IoSink>(&mut self, io: &mut S) {
        let Some(tail) = self.queue.tail() else {
            return;
        };
        let mut o = if self.hand == NIL { tail } else { self.hand };
        while self.state[o as usize] & VISITED != 0 {
            self.state[o as usize] &= !VISITED;
            o = self.queue.prev(&self.links, o).unwrap_or(tail);
        }
        self.hand = self.queue.prev(&self.links, o).unwrap_or(NIL);
        self.queue.remove(&mut self.links, o);
        if std::mem::replace(&mut self.state[o as usize], 0) & DIRTY != 0 {
            io.write_back(o);
        } else {
            io.drop_clean(o);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{run, Ev};

    fn queue(s: &Sieve) -> Vec<u32> {
        s.queue.iter(&s.links).collect()
    }

    /// Hand-worked (C = 3), queue written newest first:
    /// * `R1 R2 R3` -> [3,2,1], hand null. `R1` hit: 1 visited.
    /// * `R4`: hand starts at the tail 1 (visited: clear it, step to 2); 2 is evicted,
    ///   hand rests on 3 -> [4,3,1].
    /// * `R2`: 3 is evicted, hand on 4 -> [2,4,1].
    /// * `R5`: 4 is evicted, hand on 2 -> [5,2,1]. `R1` hits: the survivor stayed.
    #[test]
    fn hand_worked_vector() {
        let o = run::<Sieve>(3, &NoParams, 4, "R1 R2 R3 R1 R4 R2 R5 R1");
        assert_eq!(o.evictions(), [2, 3, 4]);
        assert_eq!(
            o.hits,
            [false, false, false, true, false, false, false, true]
        );
        assert_eq!(queue(&o.policy), [5, 2, 1]);
        assert_eq!(o.policy.hand, 2);
    }

    /// The hand wraps from the head to the tail when every page was visited.
    #[test]
    fn hand_wraps_and_clears_all_bits() {
        let o = run::<Sieve>(2, &NoParams, 4, "W1 R2 R1 R2 R3");
        // 1 and 2 visited; the hand clears 1, then 2, wraps to 1 and evicts it.
        assert_eq!(o.events[4], [Ev::Wb(1)]);
        assert_eq!(queue(&o.policy), [3, 2]);
        assert_eq!(o.policy.hand, 2);
    }

    #[test]
    fn trim_under_the_hand_moves_it() {
        let mut o = run::<Sieve>(3, &NoParams, 4, "R1 R2 R3 R4");
        // 1 evicted, hand on 2.
        assert_eq!(o.policy.hand, 2);
        assert!(o.policy.invalidate(2));
        assert_eq!(o.policy.hand, 3);
        assert!(!o.policy.invalidate(2));
    }
}
