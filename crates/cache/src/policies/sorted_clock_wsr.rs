//! Sorted-Clock-WSR: Sorted-Clock that gives dirty pages a second chance, as LRU-WSR
//! does.
//!
//! Source: paper 003, the Sorted-Clock paper (see [`super::sorted_clock`]);
//! Sorted-Clock-WSR "borrows the idea of preferential treatment for dirty pages from
//! LRU-WSR, in addition to ordering writes" (LRU-WSR: H. Jung et al., IEEE Trans.
//! Consumer Electronics 54(3), 2008). Everything of [`super::sorted_clock`] holds
//! (key-order sweep with a wrapping hand kept as a key position, `insert_ref`,
//! `seq_no_ref`), plus a `cold` flag on dirty pages:
//! * `cold = 0` when a page becomes dirty and on any hit to a dirty page;
//! * in the sweep, after the reference-bit test, a dirty page with a clear bit and
//!   `cold = 0` gets `cold = 1` and is passed;
//! * the victim is the first page with a clear bit that is clean, or dirty and cold.
//!
//! Resolved ambiguity: the order of the two tests. The reference bit is tested first,
//! then `cold`, so a dirty page must go untouched for two sweeps before it is evicted —
//! LRU-WSR's intent.
//!
//! Parameters, representation, cost and memory: as Sorted-Clock.

use super::sorted_clock::{SortedClockParams, SortedCore};
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};

/// Sorted-Clock-WSR (paper 003).
#[derive(Debug)]
pub struct SortedClockWsr(SortedCore<true>);

impl Policy for SortedClockWsr {
    type Params = SortedClockParams;
    const NAME: &'static str = "sorted-clock-wsr";
    const SUMMARY: &'static str =
        "Sorted-Clock whose sweep passes a dirty page once more (cold flag, as LRU-WSR)";
    const CITATION: &'static str = "Sorted-Clock-WSR: write-ordering-aware page replacement for smartphone flash (the Sorted-Clock paper of wafer's paper set, docs/cache.md), after LRU-WSR (H. Jung, H. Shim, S. Park, S. Kang, J. Cha, \"LRU-WSR: integration of LRU and writes sequence reordering for flash memory\", IEEE Trans. Consumer Electronics 54(3), 2008).";
    const FLASH_AWARE: bool = true;

    fn new(capacity: u32, params: &SortedClockParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        Ok(SortedClockWsr(SortedCore::new(capacity, params, ctx)))
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        self.0.access(a, io)
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        self.0.reserve(pages);
    }

    fn len(&self) -> u32 {
        self.0.resident()
    }

    fn capacity(&self) -> u32 {
        self.0.capacity()
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        self.0.dirty_pages(out);
    }

    fn invalidate(&mut self, page: u32) -> bool {
        self.0.invalidate(page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::sorted_clock::tests::{model, random_trace};
    use crate::testutil::{parse, run, Ev};
    use rand::SeedableRng;

    /// Hand-worked vector (C = 3, insert_ref = 1): the dirty page 2 is passed once
    /// (cold), so ev5, ev8 come first and 2 is written back at R4.
    #[test]
    fn spec_vector() {
        let o = run::<SortedClockWsr>(3, &SortedClockParams::default(), 4, "W2 R5 R8 R1");
        assert_eq!(o.events[3], [Ev::Ev(5)]);
        assert_eq!(o.policy.0.hand(), 6);
        let o = run::<SortedClockWsr>(3, &SortedClockParams::default(), 4, "W2 R5 R8 R1 R3 R4");
        assert_eq!(o.events[4], [Ev::Ev(8)]);
        assert_eq!(o.events[5], [Ev::Wb(2)]);
        assert_eq!(o.evictions(), [5, 8, 2]);
        assert_eq!(o.policy.0.pages(), [1, 3, 4]);
    }

    /// A hit on a cold dirty page makes it warm again: the sweep passes it anew.
    #[test]
    fn hit_clears_cold() {
        // R1 evicts 5 and leaves 2 cold; W2 (a hit) warms it and sets its bit; R3
        // evicts 8 (ref 0).
        let p = SortedClockParams::default();
        let o = run::<SortedClockWsr>(3, &p, 4, "W2 R5 R8 R1 W2 R3");
        assert_eq!(o.events[5], [Ev::Ev(8)]);
        let o = run::<SortedClockWsr>(3, &p, 4, "W2 R5 R8 R1 W2 R3 R4 R6");
        // R4: wrap, 1 clear, 2 (ref) clear; 3 clear; 1 -> ev1. R6: 2 is dirty, ref 0,
        // warm -> cold, passed; 3 (ref 0) -> ev3. Had W2 left 2 cold, R6 would write
        // back 2.
        assert_eq!(o.events[6], [Ev::Ev(1)]);
        assert_eq!(o.events[7], [Ev::Ev(3)]);
    }

    /// The bucketed ring gives exactly the evictions of the literal pseudo-code.
    #[test]
    fn matches_the_pseudo_code() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        for cap in [1u32, 2, 5, 40, 300, 700] {
            let trace = random_trace(&mut rng, 6000, 1000);
            let o = run::<SortedClockWsr>(cap, &SortedClockParams::default(), 4, &trace);
            let got: Vec<(u32, bool)> = o
                .events
                .iter()
                .flatten()
                .map(|e| match *e {
                    Ev::Wb(p) => (p, true),
                    Ev::Ev(p) => (p, false),
                    _ => unreachable!(),
                })
                .collect();
            assert_eq!(got, model(cap as usize, true, &parse(&trace)), "cap {cap}");
        }
    }
}
