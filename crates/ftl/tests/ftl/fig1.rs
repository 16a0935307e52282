//! Paper 000 (TS-CLOCK, Kang, Min, Eom, IEEE MASCOTS 2014) Fig. 1 trend at a test-sized
//! scale: 2 GiB device, 15% OP, 4 MiB blocks. WAF falls monotonically with block
//! utilization and is exactly 1 at 100%, for both FTLs and every I/O range, with
//! contiguous runs at a random start in the block. The paper's literal "random subset
//! of pages" placement is checked apart: for FAST it is not monotone (see docs/ftl.md).
//! The full 16 GiB sweep is in the benchmark.

use wafer_ftl::sweep::{run, Placement, SweepConfig};
use wafer_ftl::{Device, FtlKind, Geometry};

#[test]
fn waf_falls_with_block_utilization() {
    let mut dev = Device::from_profile("microsd-16g").unwrap();
    dev.geometry = Geometry::with_op(2 << 30, 0.15, 4096, 1024).unwrap();
    for placement in [Placement::RandomStart] {
        let cfg = SweepConfig {
            ftls: vec![FtlKind::Fast, FtlKind::Page],
            ranges: vec![256 << 20, 2 << 30],
            placement,
            warmup_dw: 1.0,
            measure_dw: 1.0,
            ..SweepConfig::default()
        };
        let rows = run(&dev, &cfg, |_| {}).unwrap();
        assert_eq!(rows.len(), 16);
        for chunk in rows.chunks(4) {
            let w: Vec<f64> = chunk.iter().map(|r| r.waf).collect();
            println!(
                "{:?} {:?} range {}: {w:?}",
                placement, chunk[0].ftl, chunk[0].range_bytes
            );
            assert!(w.windows(2).all(|p| p[0] > p[1]), "{w:?} not falling");
            assert!((w[3] - 1.0).abs() < 1e-12, "100% utilization WAF {}", w[3]);
            assert!(w[0] > 1.0);
        }
        // Smaller range, smaller WAF at 25% (more cold data left alone).
        for ftl in 0..2 {
            let (small, full) = (rows[ftl * 8].waf, rows[ftl * 8 + 4].waf);
            assert!(small < full, "{:?}: {small} !< {full}", rows[ftl * 8].ftl);
        }
    }
}

#[test]
fn subset_placement_page_level_falls_and_both_reach_one() {
    let mut dev = Device::from_profile("microsd-16g").unwrap();
    dev.geometry = Geometry::with_op(1 << 30, 0.15, 4096, 1024).unwrap();
    let cfg = SweepConfig {
        ranges: vec![1 << 30],
        placement: Placement::Subset,
        warmup_dw: 1.0,
        measure_dw: 1.0,
        ..SweepConfig::default()
    };
    let rows = run(&dev, &cfg, |_| {}).unwrap();
    let fast: Vec<f64> = rows[..4].iter().map(|r| r.waf).collect();
    let page: Vec<f64> = rows[4..].iter().map(|r| r.waf).collect();
    assert!(page.windows(2).all(|p| p[0] > p[1]), "{page:?}");
    assert!((page[3] - 1.0).abs() < 1e-12 && (fast[3] - 1.0).abs() < 1e-12);
    assert!(fast[..3].iter().all(|&w| w > 1.5), "{fast:?}");
}

#[test]
fn aligned_runs_on_fast_cost_one_partial_merge_each() {
    // docs/ftl.md ("`wafer ftl sweep`"): runs from offset 0 go to the SW log and are
    // closed by one partial merge each, so WAF = 1/x exactly, independent of the range.
    let mut dev = Device::from_profile("microsd-16g").unwrap();
    dev.geometry = Geometry::with_op(1 << 30, 0.15, 4096, 1024).unwrap();
    let cfg = SweepConfig {
        ftls: vec![FtlKind::Fast],
        ranges: vec![128 << 20, 1 << 30],
        placement: Placement::Aligned,
        warmup_dw: 0.5,
        measure_dw: 1.0,
        ..SweepConfig::default()
    };
    for r in run(&dev, &cfg, |_| {}).unwrap() {
        assert!((r.waf - 1.0 / r.utilization).abs() < 1e-9, "{r:?}");
    }
}
