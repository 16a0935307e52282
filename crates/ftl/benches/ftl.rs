//! Throughput of the FTL simulator on a 16 GiB device (page-level
//! greedy >= 15 M flash page writes/s, FAST >= 5 M host writes/s) plus the full-size
//! WAF check against the analytic table of `docs/ftl.md` ("Analytic check"). Paper
//! 000's (TS-CLOCK, Kang, Min, Eom, IEEE MASCOTS 2014) Fig. 1 at full size is
//! `wafer ftl sweep` (docs/ftl.md).
//!
//! Run: `cargo bench -p wafer-ftl --bench ftl` (add `-- quick` for the speed part only).

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::time::Instant;
use wafer_ftl::sweep::Placement;
use wafer_ftl::{CellType, FastFtl, Ftl, Geometry, PageConfig, PageFtl, Victim};

#[path = "../tests/ftl/common.rs"]
mod common;

use common::{fill, LAT};

/// Wall-clock and on-CPU time of this thread. The development machine is shared, so
/// wall time includes time the scheduler gave to other processes; the CPU time (Linux
/// `/proc/thread-self/schedstat`, wall time elsewhere) is what "one core" delivers.
struct Clock {
    wall: Instant,
    cpu: Option<f64>,
}

fn thread_cpu_s() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns * 1e-9)
}

impl Clock {
    fn start() -> Clock {
        Clock {
            wall: Instant::now(),
            cpu: thread_cpu_s(),
        }
    }

    /// (CPU seconds, wall seconds).
    fn stop(&self) -> (f64, f64) {
        let wall = self.wall.elapsed().as_secs_f64();
        let cpu = match (self.cpu, thread_cpu_s()) {
            (Some(a), Some(b)) => b - a,
            _ => wall,
        };
        (cpu, wall)
    }
}

/// `n` uniform random single-page writes; with `hint`, issued in batches of 64 after a
/// [`Ftl::prefetch`] of the batch, as `wafer_ftl::replay` does.
fn random_writes<F: Ftl>(f: &mut F, rng: &mut Pcg64Mcg, n: u64, hint: bool) {
    let lp = f.geometry().logical_pages;
    let mut batch = [0u64; 64];
    let mut done = 0;
    while done < n {
        let k = (n - done).min(64) as usize;
        for p in &mut batch[..k] {
            *p = rng.gen_range(0..lp);
        }
        if hint {
            f.prefetch(&batch[..k]);
        }
        for &p in &batch[..k] {
            f.write(p, 1).expect("in range");
        }
        done += k as u64;
    }
}

fn page_speed(np: u32, hint: bool) {
    let geo = Geometry::with_op(16 << 30, 0.15, 4096, np).expect("geometry");
    let mut f = PageFtl::new(geo, LAT, CellType::Tlc, PageConfig::default()).expect("ftl");
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    fill(&mut f);
    random_writes(&mut f, &mut rng, geo.logical_pages, hint);
    f.reset_counters();
    let n = 2 * geo.logical_pages;
    let t = Clock::start();
    random_writes(&mut f, &mut rng, n, hint);
    let (s, wall) = t.stop();
    let m = f.metrics();
    let flash = m.counters.programs_host + m.counters.programs_gc;
    println!(
        "page-level greedy, 16 GiB, 15% OP, {np} pages/block, uniform random 4 KiB writes{}: \
         {:.2} M host writes/s, {:.2} M flash page writes/s (WAF {:.3}, {n} host writes in {s:.2} s CPU, {wall:.2} s wall)",
        if hint { " (prefetch hints)" } else { "" },
        n as f64 / s / 1e6,
        flash as f64 / s / 1e6,
        m.waf
    );
}

fn fast_speed(label: &str, placement: Placement, k: u32, n_rw: Option<u32>) {
    let geo = Geometry::with_op(16 << 30, 0.15, 4096, 1024).expect("geometry");
    let mut f = FastFtl::new(geo, LAT, CellType::Mlc, n_rw).expect("ftl");
    fill(&mut f);
    f.reset_counters();
    let mut rng = Pcg64Mcg::seed_from_u64(5);
    let blocks = geo.logical_blocks();
    let n = geo.logical_pages;
    let t = Clock::start();
    let mut done = 0;
    while done < n {
        let base = rng.gen_range(0..blocks) * 1024;
        let start = match placement {
            Placement::RandomStart => rng.gen_range(0..=1024 - k),
            _ => 0,
        };
        f.write(base + u64::from(start), u64::from(k))
            .expect("in range");
        done += u64::from(k);
    }
    let (s, wall) = t.stop();
    let m = f.metrics();
    let flash = m.counters.programs_host + m.counters.programs_gc;
    println!(
        "FAST, 16 GiB, 4 MiB blocks, {label}: {:.2} M host writes/s, {:.2} M flash page writes/s \
         (WAF {:.3}, {} RW log blocks, {done} host writes in {s:.2} s CPU, {wall:.2} s wall)",
        done as f64 / s / 1e6,
        flash as f64 / s / 1e6,
        m.waf,
        f.rw_log_blocks()
    );
}

fn waf_table() {
    println!(
        "\nfull-size WAF check: uniform random writes, 2^22 physical pages, fill + 6 DW warm-up, \
         4 DW measured (docs/ftl.md)"
    );
    println!("| victim | OP | Np | alpha | simulated | analytic | error |");
    println!("|---|---|---|---|---|---|---|");
    let runs = [
        (Victim::Greedy, 64u32, [0.07, 0.15, 0.28]),
        (Victim::Greedy, 128, [0.07, 0.15, 0.28]),
        (Victim::Fifo, 64, [0.07, 0.15, 0.28]),
    ];
    for (victim, np, ops) in runs {
        for op in ops {
            let phys_blocks = (1u32 << 22) / np;
            let usable = u64::from(phys_blocks - wafer_ftl::GC_RESERVE) * u64::from(np);
            let lp = (usable as f64 / (1.0 + op)).round() as u64;
            let alpha = usable as f64 / lp as f64;
            let geo = Geometry {
                page_size: 4096,
                pages_per_block: np,
                logical_pages: lp,
                physical_blocks: phys_blocks,
                channels: 1,
                ways: 1,
            };
            let cfg = PageConfig {
                victim,
                hot_cold: false,
            };
            let mut f = PageFtl::new(geo, LAT, CellType::Tlc, cfg).expect("ftl");
            let mut rng = Pcg64Mcg::seed_from_u64(7);
            fill(&mut f);
            random_writes(&mut f, &mut rng, 6 * lp, true);
            f.reset_counters();
            random_writes(&mut f, &mut rng, 4 * lp, true);
            let waf = f.metrics().waf;
            let model = match victim {
                Victim::Fifo => common::waf_fifo(alpha),
                _ => common::waf_greedy_mf(alpha, f64::from(np)),
            };
            println!(
                "| {victim:?} | {op:.2} | {np} | {alpha:.4} | {waf:.3} | {model:.3} | {:+.2}% |",
                (waf - model) / model * 100.0
            );
        }
    }
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    println!(
        "mapping table: {} bytes per logical page (page-level l2p; FAST adds {:.4} for its block map at 1024 pages/block)",
        PageFtl::MAP_BYTES_PER_LOGICAL_PAGE,
        4.0 / 1024.0
    );
    page_speed(256, false);
    page_speed(256, true);
    page_speed(1024, true);
    fast_speed(
        "aligned 25% runs (SW log, partial merges)",
        Placement::Aligned,
        256,
        None,
    );
    fast_speed(
        "whole-block sequential overwrites (switch merges)",
        Placement::Aligned,
        1024,
        None,
    );
    fast_speed(
        "random-start 25% runs, 16 RW log blocks",
        Placement::RandomStart,
        256,
        Some(16),
    );
    if !quick {
        waf_table();
    }
}
