//! Page-level FTL under uniform random single-page writes against the analytic models
//! of `docs/ftl.md` ("Analytic check"): greedy mean-field values (table) and FIFO's
//! Lambert-W formula `WA = 1/(1 - u)`, `u = -W0(-alpha e^-alpha)/alpha` (Hu et al.,
//! SYSTOR 2009; Desnoyers, SYSTOR 2012), within 1% at >= 2^20 physical pages after >= 4
//! device-writes of warm-up.

use crate::common::*;
use wafer_ftl::{CellType, Ftl, Geometry, PageConfig, PageFtl, Victim, GC_RESERVE};

const PHYS_PAGES: u32 = 1 << 20;

/// A device with exactly `alpha = (physical - reserve) / logical = 1 + op`.
fn device(op: f64, np: u32) -> (Geometry, f64) {
    let blocks = PHYS_PAGES / np;
    let usable = u64::from(blocks - GC_RESERVE) * u64::from(np);
    let lp = (usable as f64 / (1.0 + op)).round() as u64;
    let geo = Geometry {
        page_size: 4096,
        pages_per_block: np,
        logical_pages: lp,
        physical_blocks: blocks,
        channels: 1,
        ways: 1,
    };
    (geo, usable as f64 / lp as f64)
}

fn simulate(op: f64, np: u32, victim: Victim) -> (f64, f64) {
    let (geo, alpha) = device(op, np);
    let cfg = PageConfig {
        victim,
        hot_cold: false,
    };
    let mut f = PageFtl::new(geo, LAT, CellType::Tlc, cfg).unwrap();
    fill(&mut f);
    random_writes(&mut f, 11, 4 * geo.logical_pages);
    f.reset_counters();
    random_writes(&mut f, 12, geo.logical_pages);
    f.check_invariants().unwrap();
    (f.metrics().waf, alpha)
}

#[test]
fn analytic_models_reproduce_the_reference_table() {
    // The analytic table of docs/ftl.md ("Analytic check"), OP relative to user space.
    let rows = [
        (1.07, 7.817, 6.999, 7.386),
        (1.15, 4.016, 3.798, 3.904),
        (1.28, 2.481, 2.402, 2.441),
        (1.50, 1.716, 1.681, 1.698),
    ];
    for (a, fifo, g64, g128) in rows {
        assert!(
            (waf_fifo(a) - fifo).abs() < 0.002,
            "FIFO {a}: {}",
            waf_fifo(a)
        );
        assert!((waf_greedy_mf(a, 64.0) - g64).abs() < 0.002, "MF64 {a}");
        assert!((waf_greedy_mf(a, 128.0) - g128).abs() < 0.002, "MF128 {a}");
    }
    // Xiang & Kurkoski's check value.
    assert!((waf_fifo(1.3) - 2.364).abs() < 0.001);
}

fn check_greedy(op: f64, np: u32) {
    let (waf, alpha) = simulate(op, np, Victim::Greedy);
    let model = waf_greedy_mf(alpha, f64::from(np));
    let err = (waf - model).abs() / model;
    println!(
        "greedy OP {op} Np {np}: sim {waf:.4} model {model:.4} ({:.2}%)",
        err * 100.0
    );
    assert!(
        err < 0.01,
        "greedy OP {op} Np {np}: sim {waf} vs model {model}"
    );
}

#[test]
fn greedy_op07_np64() {
    check_greedy(0.07, 64);
}

#[test]
fn greedy_op07_np128() {
    check_greedy(0.07, 128);
}

#[test]
fn greedy_op15_np64() {
    check_greedy(0.15, 64);
}

#[test]
fn greedy_op15_np128() {
    check_greedy(0.15, 128);
}

#[test]
fn greedy_op28_np64() {
    check_greedy(0.28, 64);
}

#[test]
fn greedy_op28_np128() {
    check_greedy(0.28, 128);
}

#[test]
fn fifo_matches_lambert_w() {
    for op in [0.15, 0.28] {
        let (waf, alpha) = simulate(op, 64, Victim::Fifo);
        let model = waf_fifo(alpha);
        let err = (waf - model).abs() / model;
        println!(
            "FIFO OP {op}: sim {waf:.4} model {model:.4} ({:.2}%)",
            err * 100.0
        );
        assert!(err < 0.01, "FIFO OP {op}: sim {waf} vs Lambert-W {model}");
    }
}

#[test]
fn cost_benefit_and_hot_cold_clean_no_worse_than_fifo() {
    // Uniform writes carry no temperature: every policy sits between greedy's mean-field
    // value and FIFO's (the upper envelope), within noise.
    let op = 0.28;
    let np = 64;
    let (geo, alpha) = device(op, np);
    let hi = waf_fifo(alpha) * 1.01;
    let lo = waf_greedy_mf(alpha, f64::from(np)) * 0.99;
    for cfg in [
        PageConfig {
            victim: Victim::Greedy,
            hot_cold: true,
        },
        PageConfig {
            victim: Victim::CostBenefit,
            hot_cold: false,
        },
    ] {
        let small = Geometry {
            physical_blocks: 2048,
            logical_pages: (2046.0 * 64.0 / (1.0 + op)) as u64,
            ..geo
        };
        let mut f = PageFtl::new(small, LAT, CellType::Tlc, cfg).unwrap();
        fill(&mut f);
        random_writes(&mut f, 5, 4 * small.logical_pages);
        f.reset_counters();
        random_writes(&mut f, 6, 2 * small.logical_pages);
        f.check_invariants().unwrap();
        let waf = f.metrics().waf;
        assert!(waf > lo && waf < hi, "{cfg:?}: {waf} outside [{lo}, {hi}]");
    }
}
