//! Simulation speed of the timed SSD: 4 KiB random requests (70% writes) with
//! uniform gaps, samsung-k9 page-level FTL at 16 GiB, on-board cache on.
//!
//! Requests go through [`wafer_ssd::run`], the driver `wafer ssd` uses (prefetch
//! hints included). Each line gives two rates: requests per second of wall time, and per second of
//! CPU time the benchmark thread actually ran (`/proc/thread-self/schedstat`, Linux;
//! the wall figure elsewhere). On a shared machine the second says what the
//! simulation costs; both are lower bounds for an idle machine.
//!
//! `cargo bench -p wafer-ssd --bench ssd`; `WAFER_BENCH_REQUESTS` (default 4000000)
//! sets the run length, `WAFER_BENCH_SPANS` the spans in GiB (default `16,1`),
//! `WAFER_BENCH_ONLY` a substring the configurations must contain, and
//! `WAFER_BENCH_IDLE_PCT` the percentage of gaps lengthened by 2-6 ms, idle periods in
//! which the APU flushes (default 0: the device is never idle for the 2 ms threshold).

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::time::Instant;
use wafer_ssd::{
    run, Apu, Arrival, Assoc, CacheConfig, FixedFlash, Flash, FtlFlash, Ssd, SsdConfig, VecReader,
};
use wafer_trace::{Op, Request};

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Nanoseconds this thread has run on a CPU, if the kernel tells.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// `n` single-page requests uniform over `span` bytes, gaps uniform on 0..1 ms.
fn workload(n: usize, span: u64, idle_pct: u64) -> Vec<Request> {
    let mut rng = Pcg64::seed_from_u64(7);
    let pages = span / 4096;
    let mut t = 0u64;
    (0..n)
        .map(|_| {
            t += rng.gen_range(0..1_000_000);
            if idle_pct > 0 && rng.gen_range(0..100) < idle_pct {
                t += rng.gen_range(2_000_000..6_000_000);
            }
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

/// Whether `WAFER_BENCH_ONLY` selects the configuration `name`.
fn selected(name: &str) -> bool {
    std::env::var("WAFER_BENCH_ONLY").map_or(true, |o| name.contains(&o))
}

/// Simulate `reqs` on a device over the flash `make` builds (built only when selected).
fn bench<F: Flash>(name: &str, reqs: &[Request], cfg: SsdConfig, make: impl FnOnce() -> F) {
    if !selected(name) {
        return;
    }
    let mut ssd = Ssd::new(cfg, make()).unwrap();
    let mut reader = VecReader::new(reqs.to_vec());
    let c0 = thread_cpu_ns();
    let t0 = Instant::now();
    run(
        &mut ssd,
        &mut reader,
        Arrival::Trace,
        None,
        |_| {},
        |_, _| {},
    )
    .unwrap();
    let el = t0.elapsed().as_secs_f64();
    let cpu = match (c0, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9,
        _ => el,
    };
    let rep = ssd.finish();
    println!(
        "{name:<40} {:>6.2} M req/s wall {:>6.2} cpu  ({} requests in {:.3} s; mean response {:.3} ms, {} on-demand, {} APU flushes)",
        reqs.len() as f64 / el / 1e6,
        reqs.len() as f64 / cpu / 1e6,
        reqs.len(),
        el,
        rep.response.all.mean_ns * 1e-6,
        rep.cache.as_ref().map_or(0, |c| c.stats.on_demand_flushes),
        rep.cache.as_ref().map_or(0, |c| c.stats.apu_flushes),
    );
}

fn main() {
    let n = env_u64("WAFER_BENCH_REQUESTS", 4_000_000) as usize;
    let idle = env_u64("WAFER_BENCH_IDLE_PCT", 0);
    let spans: Vec<u64> = std::env::var("WAFER_BENCH_SPANS")
        .ok()
        .map(|v| v.split(',').filter_map(|g| g.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![16, 1]);
    for span_gib in spans {
        println!("-- 4 KiB random requests over {span_gib} GiB");
        suite(&workload(n, span_gib << 30, idle));
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
        bench(&name, reqs, cfg, || FtlFlash::new(&dev).unwrap());
    }
    let cfg = SsdConfig {
        cache: Some(CacheConfig {
            lines: 16384,
            assoc: Assoc::Ways(4),
            apu: Apu::Lru,
        }),
        ..SsdConfig::default()
    };
    bench("fixed flash, 64 MiB 4-way, APU Lru", reqs, cfg, || {
        FixedFlash::k9((16u64 << 30) / 4096)
    });
    // The device after paper 000's aging (TS-CLOCK, Kang, Min, Eom, IEEE MASCOTS 2014,
    // Sec. IV-E: full, then 16 GiB of mixed overwrites):
    // every write now has its share of GC copies and erases.
    bench("k9 FTL aged, 64 MiB 4-way, APU Lru", reqs, cfg, || {
        let mut aged = dev.build_ftl().unwrap();
        wafer_ftl::aging::age(&mut aged, &wafer_ftl::aging::Aging::default()).unwrap();
        FtlFlash::from_ftl(aged, dev.latency.read_ns)
    });
    bench("k9 FTL, no cache", reqs, SsdConfig::default(), || {
        FtlFlash::new(&dev).unwrap()
    });
}
