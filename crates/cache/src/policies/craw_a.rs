//! CRAW-A: CRAW whose first area holds every referenced page (paper 002 Sec. VI-A).
//!
//! Source: H. Lee, H. Bahn, K. G. Shin, "Page Replacement for Write References in NAND
//! Flash Based Virtual Memory Systems", JCSE 8(3), 2014, Section VI-A. Everything of
//! [`super::craw`] holds, with these changes:
//! * the read area R becomes T, the *total reference area*, and the read bit becomes
//!   a reference bit set by reads **and** writes (the write bit keeps its meaning);
//! * a write fault enters W (W1, or W2 after a W-ghost hit) **and** T, with the
//!   reference bit clear ("if a page is written, it is included into both the total
//!   reference area and the write area").
//!
//! Resolved ambiguity: Fig. 16 of the paper is not in our copy, so whether a write
//! fault on a page in T' adapts the sizes is unknown. Default: it does not (the stale
//! T' entry is removed silently); `write_fault_adapts_t = true` makes it count as a
//! T'-hit like a read fault there.
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `c` | `t_w / t_r` of the run (8) | write/read cost ratio, > 0 |
//! | `clean_on_w_unlink` | false | write a dirty page back when it leaves W but stays in T |
//! | `write_fault_adapts_t` | false | a write fault on a T' page adapts the sizes |
//!
//! Series: as CRAW (`S_R` is S_T, `R` is |T|). Memory and cost as CRAW.

pub use super::craw_core::CrawAParams;
use super::craw_core::{CrawCore, SERIES};
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};

/// CRAW-A (paper 002 Sec. VI-A).
#[derive(Debug)]
pub struct CrawA(CrawCore);

impl Policy for CrawA {
    type Params = CrawAParams;
    const NAME: &'static str = "craw-a";
    const SUMMARY: &'static str =
        "CRAW with a total reference area (reads and writes) in place of the read area";
    const CITATION: &'static str = "H. Lee, H. Bahn, K. G. Shin, \"Page Replacement for Write References in NAND Flash Based Virtual Memory Systems\", Journal of Computing Science and Engineering 8(3), 2014, Section VI-A.";
    const FLASH_AWARE: bool = true;

    fn new(capacity: u32, params: &CrawAParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let mut c = CrawCore::new(
            capacity,
            params,
            ctx.write_read_cost_ratio,
            true,
            Self::NAME,
        )?;
        c.reserve(ctx.universe_hint);
        Ok(CrawA(c))
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
    use crate::policies::craw_core::CrawParams;
    use crate::testutil::{run_ctx, Ev};

    fn params(adapt: bool) -> CrawAParams {
        CrawAParams {
            c: Some(2.0),
            write_fault_adapts_t: adapt,
            ..CrawAParams::default()
        }
    }

    fn ctx() -> PolicyCtx {
        PolicyCtx {
            pages_per_block: std::num::NonZeroU32::new(4).unwrap(),
            write_read_cost_ratio: 8.0,
            universe_hint: 0,
        }
    }

    /// A write fault enters both T and W1 (one frame), with a clear reference bit.
    #[test]
    fn write_fault_enters_t_and_w1() {
        let o = run_ctx::<CrawA>(4, &params(false), &ctx(), "R1 W2");
        assert_eq!(o.policy.0.areas(), [vec![1, 2], vec![2], vec![]]);
        assert_eq!(o.policy.len(), 2);
        assert!(!o.policy.0.ref_bit(2));
    }

    /// A write hit sets the reference bit, so the T scan spares the page. S = 2,
    /// c = 2 (S_T = 1, S_W1 = S_W2 = 0.5): `W1 R2 W1 R3`. At R3, T = [1, 2] has ratio
    /// 2, equal to W1's 1/0.5, and ties go to T: 1 has its reference bit (set by the
    /// write hit) and survives, 2 leaves T and memory -> ev2. CRAW on the same trace
    /// reclaims from W1 (R's ratio is 1/1): 1 moves to W2 on its write bit, W1 empties,
    /// W2 is chosen and 1 leaves -> WB1.
    #[test]
    fn write_hit_sets_reference_bit() {
        let o = run_ctx::<CrawA>(2, &params(false), &ctx(), "W1 R2 W1 R3");
        assert_eq!(o.events[3], [Ev::Ev(2)]);
        assert_eq!(o.policy.0.areas(), [vec![1, 3], vec![1], vec![]]);
        let craw = run_ctx::<super::super::craw::Craw>(
            2,
            &CrawParams {
                c: Some(2.0),
                ..CrawParams::default()
            },
            &ctx(),
            "W1 R2 W1 R3",
        );
        assert_eq!(craw.events[3], [Ev::Wb(1)]);
    }

    /// `write_fault_adapts_t` changes the size trajectory on a mixed trace (write
    /// faults on T' pages happen), and the default never raises S_T on a trace of
    /// writes only after its reads stop.
    #[test]
    fn write_fault_adaptation_option() {
        let mut x = 12345u32;
        let mut t = String::new();
        for _ in 0..3000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let page = (x >> 8) % 24;
            let op = if (x >> 20) % 3 == 0 { 'W' } else { 'R' };
            t.push_str(&format!("{op}{page} "));
        }
        let trajectory = |adapt: bool| {
            let mut p = CrawA::new(6, &params(adapt), &ctx()).unwrap();
            p.reserve(24, 6);
            let mut rec = crate::testutil::Recorder::default();
            let mut all = vec![];
            for (i, (op, page)) in crate::testutil::parse(&t).into_iter().enumerate() {
                let a = Access {
                    page,
                    block: page / 4,
                    key: u64::from(page),
                    op,
                    index: i as u64,
                    next_use: u64::MAX,
                };
                p.access(&a, &mut rec);
                p.sample(&mut all);
            }
            all
        };
        let off = trajectory(false);
        let on = trajectory(true);
        assert_ne!(off, on, "the option must change the sizes");
    }
}
