//! Simulation speed of the timed SSD: 4 KiB random requests (70% writes) with
//! Poisson arrivals, samsung-k9 page-level FTL at 16 GiB, on-board cache on.
//!
//! `cargo bench -p wafer-ssd --bench ssd`

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::time::Instant;
use wafer_ssd::{Apu, Assoc, CacheConfig, FixedFlash, Flash, FtlFlash, Ssd, SsdConfig};
use wafer_trace::{Op, Request};

const N: usize = 4_000_000;

/// `N` single-page requests uniform over `span` bytes, gaps uniform on 0..1 ms.
fn workload(span: u64) -> Vec<Request> {
    let mut rng = Pcg64::seed_from_u64(7);
    let pages = span / 4096;
    let mut t = 0u64;
    (0..N)
        .map(|_| {
            t += rng.gen_range(0..1_000_000);
            Request {
                time_ns: t,
                offset: rng.gen_range(0..pages) * 4096,
                len: 4096,
                dev: 0,
                op: if rng.gen_bool(0.7) {
                    Op::Write
                } else {
                    Op::Read
                },
            }
        })
        .collect()
}

fn bench<F: Flash>(name: &str, reqs: &[Request], cfg: SsdConfig, flash: F) {
    let mut ssd = Ssd::new(cfg, flash).unwrap();
    let t0 = Instant::now();
    for r in reqs {
        ssd.submit(r, r.time_ns).unwrap();
    }
    let el = t0.elapsed().as_secs_f64();
    let rep = ssd.finish();
    println!(
        "{name:<44} {:>6.2} M req/s  ({} requests in {:.3} s; mean response {:.3} ms, {} on-demand, {} APU flushes)",
        reqs.len() as f64 / el / 1e6,
        reqs.len(),
        el,
        rep.response.all.mean_ns * 1e-6,
        rep.cache.as_ref().map_or(0, |c| c.stats.on_demand_flushes),
        rep.cache.as_ref().map_or(0, |c| c.stats.apu_flushes),
    );
}

fn main() {
    for span_gib in [16u64, 1] {
        println!("-- 4 KiB random requests over {span_gib} GiB");
        suite(&workload(span_gib << 30));
    }
}

fn suite(reqs: &[Request]) {
    let mut dev = wafer_ftl::Device::from_profile("samsung-k9").unwrap();
    dev.geometry = wafer_ftl::Geometry::with_op(16 << 30, 0.15, 4096, 64).unwrap();
    for (assoc, apu) in [
        (Assoc::Ways(1), Apu::Off),
        (Assoc::Ways(4), Apu::Lru),
        (Assoc::Ways(4), Apu::Lfu),
        (Assoc::Full, Apu::Lru),
    ] {
        let cfg = SsdConfig {
            cache: Some(CacheConfig {
                lines: 16384,
                assoc,
                apu,
            }),
            ..SsdConfig::default()
        };
        let name = format!("k9 FTL, 64 MiB {}-way, APU {apu:?}", assoc.label());
        bench(&name, reqs, cfg, FtlFlash::new(&dev).unwrap());
    }
    let cfg = SsdConfig {
        cache: Some(CacheConfig {
            lines: 16384,
            assoc: Assoc::Ways(4),
            apu: Apu::Lru,
        }),
        ..SsdConfig::default()
    };
    bench(
        "fixed flash, 64 MiB 4-way, APU Lru",
        reqs,
        cfg,
        FixedFlash::k9((16u64 << 30) / 4096),
    );
    bench(
        "k9 FTL, no cache",
        reqs,
        SsdConfig::default(),
        FtlFlash::new(&dev).unwrap(),
    );
}
