//! CRAW: clock with separate read and write areas, adapted by the write/read cost ratio.
//!
//! Source: H. Lee, H. Bahn, K. G. Shin, "Page Replacement for Write References in NAND
//! Flash Based Virtual Memory Systems" (CRAW), Journal of Computing Science and
//! Engineering 8(3), 2014 (paper 002, Sections IV-V, Figs. 6-8), with the resolutions
//! below.
//! The machine is [`CrawCore`]; this file is the policy and its documentation.
//!
//! Memory of S frames is split into three CLOCK areas: R (read pages), W1 (written once
//! while resident) and W2 (written again). One page may be linked into R and into one
//! of W1/W2 while using one frame; it leaves memory only when it is in no area. Each
//! area has a FIFO ghost list (R', W1', W2') and a desired size (S_R, S_W1, S_W2);
//! reclaim works on the area most over its desired size. A write-ghost hit grows its
//! area by one frame at R's expense; every c-th read-ghost hit grows R by one frame at
//! the W areas' expense (half each), so a read miss weighs 1/c of a write miss.
//!
//! Resolved ambiguities (wafer's reading of paper 002 Sec. IV):
//! * A `dirty` flag separate from the write bit (the write bit is a recency mark the
//!   W scan clears); a page is written back iff dirty when it leaves memory.
//! * ratio(X) = |X| / S_X; an empty area is never chosen; S_X = 0 with |X| > 0 is
//!   +inf; ties go R, then W1, then W2 (the pseudo-code's if-chain).
//! * "Pages in R' have been accessed c times" = every c-th read fault that hits R'
//!   (compared with `>=`, so a fractional c works); the counter restarts after each
//!   increase of S_R. The sizes are clamped to [0, S] and never renormalised.
//! * A page linked into an area by a scan (R -> W1, W -> R) loses any stale ghost entry
//!   of that area without adaptation; only faults adapt. A read fault never touches
//!   the W ghosts, a write fault never touches R'.
//! * W1 can empty during its own scan (write-bit pages move to W2): the call returns
//!   and the area is selected again (the paper's loop would not end).
//! * Areas are clocks ("tail" = just behind the hand); ghosts are FIFO ("MRU" =
//!   newest). The W ghosts are trimmed alternately, starting with W1'.
//! * Every fault fetches the page in paper 002's VM model: run with the engine's
//!   `write_miss_fetch = true` to reproduce it (the policy itself emits no reads).
//! * A write fault is not linked into R and a read fault not into W; cross-linking
//!   happens only through bits found by scans (Sec. IV-B).
//! * Beyond the paper: a trim removes the page from every area and ghost list.
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `c` | `t_w / t_r` of the run (8 for 25 µs / 200 µs) | write/read cost ratio, > 0 |
//! | `clean_on_w_unlink` | false | write a dirty page back when it leaves W but stays in R |
//!
//! Series (paper 002 Fig. 15): `S_R`, `S_W1`, `S_W2`, `R`, `W1`, `W2`.
//! Memory: 33 bytes per page of the universe (see [`CrawCore`]); amortised O(1) per
//! access.

use super::craw_core::{CrawCore, CrawParams, SERIES};
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};

/// CRAW (paper 002).
#[derive(Debug)]
pub struct Craw(CrawCore);

impl Policy for Craw {
    type Params = CrawParams;
    const NAME: &'static str = "craw";
    const SUMMARY: &'static str =
        "clock read area + write areas (once / many), sizes adapted by ghost hits weighted by the write/read cost ratio";
    const CITATION: &'static str = "H. Lee, H. Bahn, K. G. Shin, \"Page Replacement for Write References in NAND Flash Based Virtual Memory Systems\", Journal of Computing Science and Engineering 8(3), 2014.";
    const FLASH_AWARE: bool = true;

    fn new(capacity: u32, params: &CrawParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let mut c = CrawCore::new(
            capacity,
            &params.into(),
            ctx.write_read_cost_ratio,
            false,
            Self::NAME,
        )?;
        c.reserve(ctx.universe_hint);
        Ok(Craw(c))
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        self.0.access(a.page, a.op, io)
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

    fn series_names(&self) -> &'static [&'static str] {
        SERIES
    }

    fn sample(&self, out: &mut Vec<f64>) {
        self.0.sample(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{run_ctx, Ev};

    fn ctx() -> PolicyCtx {
        PolicyCtx {
            pages_per_block: std::num::NonZeroU32::new(4).unwrap(),
            write_read_cost_ratio: 8.0,
            universe_hint: 0,
        }
    }

    fn c(c: f64) -> CrawParams {
        CrawParams {
            c: Some(c),
            ..CrawParams::default()
        }
    }

    /// Hand-worked vector CRAW-1 (after Sec. IV and Fig. 9): reclaim choice by ratio,
    /// W1' hit promotes to W2 and moves a frame from R to W1, every c-th R' hit moves a
    /// frame back.
    #[test]
    fn craw_1() {
        let o = run_ctx::<Craw>(4, &c(2.0), &ctx(), "R1 R2 W3 W4 R5 W3 R3 R6 R1 R2");
        assert_eq!(
            o.hits,
            [false, false, false, false, false, false, true, false, false, false]
        );
        let ev: Vec<Vec<Ev>> = o.events[4..].to_vec();
        assert_eq!(
            ev,
            [
                vec![Ev::Wb(3)],
                vec![Ev::Ev(1)],
                vec![],
                vec![Ev::Ev(2)],
                vec![Ev::Ev(5)],
                vec![Ev::Ev(6)],
            ]
        );
        let core = &o.policy.0;
        assert_eq!(core.areas(), [vec![1, 2], vec![4], vec![3]]);
        assert_eq!(core.ghosts()[0], [6, 5]);
        assert_eq!(core.sizes(), (2.0, 1.5, 0.5));
        assert!(core.ref_bit(3));
        let mut d = vec![];
        o.policy.dirty_pages(&mut d);
        d.sort_unstable();
        assert_eq!(d, [3, 4]);
    }

    /// Hand-worked vector CRAW-2: a page shared by R and W1 takes two reclaim calls to
    /// leave; a desired size of 0 makes its area's ratio infinite.
    #[test]
    fn craw_2() {
        let o = run_ctx::<Craw>(2, &c(2.0), &ctx(), "R1 W1 R2 R3 W1 R4");
        assert_eq!(o.hits, [false, true, false, false, false, false]);
        assert_eq!(o.events[3], [Ev::Wb(1)]);
        assert_eq!(o.events[4], [Ev::Ev(2)]);
        assert_eq!(o.events[5], [Ev::Ev(3)]);
        let core = &o.policy.0;
        assert_eq!(core.areas(), [vec![4], vec![], vec![1]]);
        assert_eq!(core.ghosts()[0], [3]);
        assert_eq!(core.sizes(), (0.0, 1.5, 0.5));
    }

    /// The default c comes from the run's cost model: S_R = S/8, S_W1 = S_W2 = 7S/16.
    #[test]
    fn default_sizes_from_cost_ratio() {
        let p = Craw::new(16, &CrawParams::default(), &ctx()).unwrap();
        let mut s = vec![];
        p.sample(&mut s);
        assert_eq!(s, [2.0, 7.0, 7.0, 0.0, 0.0, 0.0]);
        assert_eq!(p.series_names().len(), s.len());
        let bad = CrawParams {
            c: Some(0.0),
            ..CrawParams::default()
        };
        assert!(Craw::new(16, &bad, &ctx()).is_err());
    }

    /// `clean_on_w_unlink`: the dirty page shared by R and W1 is written when it leaves
    /// W1 (CRAW-2's second R3 call) and then dropped clean; by default it is written
    /// only when it leaves memory.
    #[test]
    fn clean_on_w_unlink_option() {
        // R1 W1 R2 R3: 1 is linked R -> W1, leaves R (R'), then leaves W1 and memory.
        // Make 1 stay in R instead: read it again before the W1 reclaim.
        let t = "R1 R2 W1 W3 R4";
        let dflt = run_ctx::<Craw>(3, &c(2.0), &ctx(), t);
        let opt = run_ctx::<Craw>(
            3,
            &CrawParams {
                clean_on_w_unlink: true,
                ..c(2.0)
            },
            &ctx(),
            t,
        );
        // Both evict the same pages; with the option a dirty page may be written
        // while it stays resident, never twice and never a clean page.
        assert_eq!(dflt.hits, opt.hits);
        let wb = |o: &crate::testutil::Outcome<Craw>| o.write_backs().len();
        let mut d1 = vec![];
        dflt.policy.dirty_pages(&mut d1);
        let mut d2 = vec![];
        opt.policy.dirty_pages(&mut d2);
        assert_eq!(wb(&dflt) + d1.len(), wb(&opt) + d2.len());
    }
}
