//! Throughput of the FTL simulator on a 16 GiB device (issue 4 acceptance: page-level
//! greedy >= 15 M flash page writes/s, FAST >= 5 M host writes/s) plus the full-size
//! WAF check against `reference/ftl.md`'s table.
//!
//! Run: `cargo bench -p wafer-ftl --bench ftl` (add `-- quick` for the speed part only).

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::time::Instant;
use wafer_ftl::sweep::{self, Placement, SweepConfig};
use wafer_ftl::{CellType, Device, FastFtl, Ftl, FtlKind, Geometry, Latency, PageConfig, PageFtl};

const LAT: Latency = Latency {
    read_ns: 25_000,
    program_ns: 200_000,
    erase_ns: 1_500_000,
};

fn random_writes<F: Ftl>(f: &mut F, rng: &mut Pcg64Mcg, n: u64) {
    let lp = f.geometry().logical_pages;
    for _ in 0..n {
        f.write(rng.gen_range(0..lp), 1).expect("in range");
    }
}

fn fill<F: Ftl>(f: &mut F) {
    let g = *f.geometry();
    let np = u64::from(g.pages_per_block);
    let mut p = 0;
    while p < g.logical_pages {
        let n = np.min(g.logical_pages - p);
        f.write(p, n).expect("in range");
        p += n;
    }
}

fn page_speed(np: u32) {
    let geo = Geometry::with_op(16 << 30, 0.15, 4096, np).expect("geometry");
    let mut f = PageFtl::new(geo, LAT, CellType::Tlc, PageConfig::default()).expect("ftl");
    let mut rng = Pcg64Mcg::seed_from_u64(3);
    fill(&mut f);
    random_writes(&mut f, &mut rng, geo.logical_pages);
    f.reset_counters();
    let n = 2 * geo.logical_pages;
    let t = Instant::now();
    random_writes(&mut f, &mut rng, n);
    let s = t.elapsed().as_secs_f64();
    let m = f.metrics();
    let flash = m.counters.programs_host + m.counters.programs_gc;
    println!(
        "page-level greedy, 16 GiB, 15% OP, {np} pages/block, uniform random 4 KiB writes: \
         {:.2} M host writes/s, {:.2} M flash page writes/s (WAF {:.3}, {n} host writes in {s:.2} s)",
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
    let t = Instant::now();
    let mut done = 0;
    while done < n {
        let base = rng.gen_range(0..blocks) * 1024;
        let start = match placement {
            Placement::RandomStart => rng.gen_range(0..=1024 - k),
            _ => 0,
        };
        f.write(base + u64::from(start), u64::from(k)).expect("in range");
        done += u64::from(k);
    }
    let s = t.elapsed().as_secs_f64();
    let m = f.metrics();
    let flash = m.counters.programs_host + m.counters.programs_gc;
    println!(
        "FAST, 16 GiB, 4 MiB blocks, {label}: {:.2} M host writes/s, {:.2} M flash page writes/s \
         (WAF {:.3}, {} RW log blocks, {done} host writes in {s:.2} s)",
        done as f64 / s / 1e6,
        flash as f64 / s / 1e6,
        m.waf,
        f.rw_log_blocks()
    );
}

fn waf_table() {
    println!("\nfull-size WAF check: uniform random writes, 2^22 physical pages, greedy, 6 DW warm-up, 4 DW measured");
    for np in [64u32, 128] {
        for op in [0.07, 0.15, 0.28] {
            let phys_blocks = (1u32 << 22) / np;
            let usable = u64::from(phys_blocks - wafer_ftl::GC_RESERVE) * u64::from(np);
            let lp = (usable as f64 / (1.0 + op)).round() as u64;
            let geo = Geometry {
                page_size: 4096,
                pages_per_block: np,
                logical_pages: lp,
                physical_blocks: phys_blocks,
                channels: 1,
                ways: 1,
            };
            let mut f = PageFtl::new(geo, LAT, CellType::Tlc, PageConfig::default()).expect("ftl");
            let mut rng = Pcg64Mcg::seed_from_u64(7);
            fill(&mut f);
            random_writes(&mut f, &mut rng, 6 * lp);
            f.reset_counters();
            random_writes(&mut f, &mut rng, 4 * lp);
            println!("  OP {op:.2} Np {np:3}: WAF {:.3}", f.metrics().waf);
        }
    }
}

fn fig1() {
    println!("\npaper 000 Fig. 1 sweep (microsd-16g geometry, prefilled, 2 DW warm-up + 2 DW measured):");
    let dev = Device::from_profile("microsd-16g").expect("profile");
    let cfg = SweepConfig {
        ftls: vec![FtlKind::Fast, FtlKind::Page],
        ..SweepConfig::default()
    };
    let t = Instant::now();
    let rows = sweep::run(&dev, &cfg, |r| {
        println!(
            "  {:?} util {:.2} range {} GiB: WAF {:.3}",
            r.ftl,
            r.utilization,
            r.range_bytes >> 30,
            r.waf
        )
    })
    .expect("sweep");
    println!("{}({} points in {:.1} s)", sweep::to_csv(&rows), rows.len(), t.elapsed().as_secs_f64());
}

fn main() {
    let quick = std::env::args().any(|a| a == "quick");
    println!("mapping memory: page-level and FAST keep 4 bytes (one u32) per logical page");
    page_speed(256);
    page_speed(1024);
    fast_speed("aligned 25% runs (SW log, partial merges)", Placement::Aligned, 256, None);
    fast_speed("whole-block sequential overwrites (switch merges)", Placement::Aligned, 1024, None);
    fast_speed("random-start 25% runs, 16 RW log blocks", Placement::RandomStart, 256, Some(16));
    if !quick {
        waf_table();
        fig1();
    }
}
