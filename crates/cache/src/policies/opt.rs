//! Belady's MIN (OPT): evict the resident page whose next use is farthest away.
//!
//! Offline: the engine computes every access's next use in one backward pass and hands
//! it over in [`Access::next_use`]. MIN minimises the number of misses of a
//! demand-fetch cache, so its hit ratio is an upper bound for every other policy at the
//! same size. It ignores dirtiness (dirty victims are written back as usual): it is
//! **not** a bound on writes or on I/O time (a write-back-aware optimum is NP-hard:
//! N. Beckmann, P. B. Gibbons, B. Haeupler, C. McGuffey, "Writeback-Aware Caching", SIAM
//! APOCS 2020).
//!
//! Resolved details:
//! * Ties (several pages never used again) go to the lowest page key (wafer's
//!   tie-break wherever an algorithm leaves one open).
//! * Priority queue: a binary max-heap of (next use, page) with lazy deletion; an entry
//!   is live while its page is resident and its next use is the page's current one.
//!   The heap is compacted when stale entries outnumber live ones, so it holds at
//!   most about 2C + 1 entries. O(log C) amortised per access.
//!
//! Matches libCacheSim's `Belady` miss counts exactly (`tests/cache/parity.rs`).
//!
//! Citation: L. A. Belady, "A study of replacement algorithms for a virtual-storage
//! computer", IBM Systems Journal 5(2):78-101, 1966.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::params::NoParams;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use crate::table::filled;
use wafer_trace::Op;

/// Heap entry: farthest next use first, then lowest key.
type Entry = (u64, Reverse<u64>, u32);

/// Belady's MIN.
#[derive(Debug)]
pub struct Opt {
    cap: u32,
    len: u32,
    heap: BinaryHeap<Entry>,
    /// Per page: next use of its current residency (valid while resident).
    next: Vec<u64>,
    /// Per page: bit 0 resident, bit 1 dirty.
    state: Vec<u8>,
}

const RESIDENT: u8 = 1;
const DIRTY: u8 = 2;

impl Policy for Opt {
    type Params = NoParams;
    const NAME: &'static str = "opt";
    const ALIASES: &'static [&'static str] = &["belady", "min"];
    const SUMMARY: &'static str =
        "Belady's offline optimum for hits: evict the page used farthest in the future";
    const CITATION: &'static str = "L. A. Belady, A study of replacement algorithms for a virtual-storage computer, IBM Systems Journal 5(2):78-101, 1966.";
    const FOLLOWS: &'static str = "Belady's MIN, libCacheSim Belady: equal miss counts";
    const NEEDS_NEXT_USE: bool = true;

    fn new(capacity: u32, _: &NoParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let cap = capacity.max(1);
        Ok(Opt {
            cap,
            len: 0,
            heap: BinaryHeap::with_capacity(2 * cap.min(1 << 24) as usize + 2),
            next: filled(ctx.universe_hint as usize, 0),
            state: filled(ctx.universe_hint as usize, 0),
        })
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let p = a.page as usize;
        let dirty = if a.op == Op::Write { DIRTY } else { 0 };
        let hit = self.state[p] & RESIDENT != 0;
        if hit {
            self.state[p] |= dirty;
        } else {
            if self.len == self.cap {
                self.evict(io);
            }
            self.state[p] = RESIDENT | dirty;
            self.len += 1;
        }
        self.next[p] = a.next_use;
        self.heap.push((a.next_use, Reverse(a.key), a.page));
        if self.heap.len() > 2 * self.len as usize + 1 {
            self.compact();
        }
        hit
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, 0);
            self.next.resize(pages as usize, 0);
        }
    }

    fn len(&self) -> u32 {
        self.len
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(
            self.state
                .iter()
                .enumerate()
                .filter(|&(_, &s)| s & (RESIDENT | DIRTY) == RESIDENT | DIRTY)
                .map(|(p, _)| p as u32),
        );
    }

    fn invalidate(&mut self, page: u32) -> bool {
        if self
            .state
            .get(page as usize)
            .is_some_and(|&s| s & RESIDENT != 0)
        {
            // Its heap entry goes stale and is skipped or compacted away.
            self.state[page as usize] = 0;
            self.len -= 1;
            true
        } else {
            false
        }
    }
}

impl Opt {
    #[inline]
    fn live(&self, e: &Entry) -> bool {
        let p = e.2 as usize;
        self.state[p] & RESIDENT != 0 && self.next[p] == e.0
    }

    fn evict<S: IoSink>(&mut self, io: &mut S) {
        while let Some(e) = self.heap.pop() {
            if !self.live(&e) {
                continue;
            }
            let v = e.2;
            let was = std::mem::replace(&mut self.state[v as usize], 0);
            self.len -= 1;
            if was & DIRTY != 0 {
                io.write_back(v);
            } else {
                io.drop_clean(v);
            }
            return;
        }
    }

    #[cold]
    fn compact(&mut self) {
        let mut v = std::mem::take(&mut self.heap).into_vec();
        v.retain(|e| self.live(e));
        self.heap = BinaryHeap::from(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::run;

    /// Hand-worked vector: the classic 7-fault result for 3 frames.
    #[test]
    fn spec_vector() {
        let o = run::<Opt>(3, &NoParams, 4, "R1 R2 R3 R4 R1 R2 R5 R1 R2 R3 R4 R5");
        assert_eq!(o.evictions(), [3, 4, 1, 2]);
        assert_eq!(o.hit_count(), 5);
    }

    #[test]
    fn dirty_victims_are_written_back_and_reported_at_end() {
        let o = run::<Opt>(2, &NoParams, 4, "W1 W2 R3 R2");
        // R3: 1 and 2 ... 1 never used again (∞), 2 at 3 -> evict 1.
        assert_eq!(o.write_backs(), [1]);
        let mut d = vec![];
        o.policy.dirty_pages(&mut d);
        assert_eq!(d, [2]);
    }

    #[test]
    fn heap_stays_bounded() {
        let trace: Vec<String> = (0..2000).map(|i| format!("R{}", i % 7)).collect();
        let o = run::<Opt>(3, &NoParams, 4, &trace.join(" "));
        assert!(o.policy.heap.len() <= 2 * 3 + 1);
    }
}
