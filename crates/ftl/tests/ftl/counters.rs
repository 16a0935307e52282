//! The page-level FTL's counters on a fixed mixed workload (writes of 1-16 pages
//! skewed to a hot fifth of the space, reads, trims) for every victim policy, with and
//! without hot/cold separation, at a power-of-two and another block size. The figures
//! were recorded before the speed work on the page-level FTL (commit 2c9d7a8) and must
//! not move: a change to how the FTL finds its pages must leave every program, copy
//! and erase where it was.

use crate::common::LAT;
use rand::{Rng, SeedableRng};
use wafer_ftl::{CellType, Ftl, Geometry, PageConfig, PageFtl, Victim};

/// (host programs, GC copies, erases, GC victims, host flash reads, unwritten reads,
/// the per-block erase counts weighted by block number plus one: which blocks wore).
fn run(np: u32, victim: Victim, hot_cold: bool) -> (u64, u64, u64, u64, u64, u64, u64) {
    let lp = 96 * u64::from(np);
    let g = Geometry {
        page_size: 4096,
        pages_per_block: np,
        logical_pages: lp,
        physical_blocks: 112,
        channels: 1,
        ways: 1,
    };
    let mut f = PageFtl::new(g, LAT, CellType::Mlc, PageConfig { victim, hot_cold }).unwrap();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
    for _ in 0..60_000 {
        let hot = rng.gen_bool(0.8);
        let p = if hot {
            rng.gen_range(0..lp / 5)
        } else {
            rng.gen_range(0..lp)
        };
        let n = rng.gen_range(1..=16u64).min(lp - p);
        match rng.gen_range(0..20) {
            0 => f.trim(p, n).unwrap(),
            1..=4 => f.read(p, n).unwrap(),
            _ => f.write(p, n).unwrap(),
        }
    }
    f.check_invariants().unwrap();
    let c = f.counters();
    (
        c.programs_host,
        c.programs_gc,
        c.erases,
        c.gc_invocations,
        c.flash_reads_host,
        c.unwritten_reads,
        (1..)
            .zip(f.erase_counts())
            .map(|(b, &e)| b * u64::from(e))
            .sum(),
    )
}

#[test]
fn page_level_counters_are_unchanged() {
    use Victim::{CostBenefit, Fifo, Greedy};
    #[rustfmt::skip]
    let want = [
        (64, Greedy, false, (381105, 580806, 14920, 14920, 95647, 7595, 840203)),
        (64, Greedy, true, (381105, 581951, 14938, 14938, 95647, 7595, 830399)),
        (64, Fifo, false, (381105, 770151, 17879, 17879, 95647, 7595, 1000740)),
        (64, Fifo, true, (381105, 772575, 17917, 17917, 95647, 7595, 1002383)),
        (64, CostBenefit, false, (381105, 453389, 12929, 12929, 95647, 7595, 720514)),
        (64, CostBenefit, true, (381105, 444604, 12792, 12792, 95647, 7595, 715599)),
        (48, Greedy, false, (381578, 585778, 20044, 20044, 94436, 7301, 1116758)),
        (48, Greedy, true, (381578, 587898, 20088, 20088, 94436, 7301, 1110224)),
        (48, Fifo, false, (381578, 832565, 25185, 25185, 94436, 7301, 1409630)),
        (48, Fifo, true, (381578, 834478, 25225, 25225, 94436, 7301, 1411464)),
        (48, CostBenefit, false, (381578, 455405, 17328, 17328, 94436, 7301, 967386)),
        (48, CostBenefit, true, (381578, 449030, 17195, 17195, 94436, 7301, 962499)),
    ];
    for (np, victim, hot_cold, counters) in want {
        assert_eq!(
            run(np, victim, hot_cold),
            counters,
            "{np} pages/block, {victim:?}, hot/cold {hot_cold}"
        );
    }
}
