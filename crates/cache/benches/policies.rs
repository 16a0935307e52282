//! Throughput of every registered policy on a synthetic Zipf trace.
//!
//! Trace: Zipf(0.99) over 1,000,000 pages (ranks scattered over the page space),
//! 30% writes, 10,000,000 single-page accesses, written once to a temporary `.wtr`
//! file (wafer's trace format) and read back through `wafer_trace::open` as `wafer
//! sim` reads it, prepared once; cache = 5% of the universe, 4 MiB blocks. Each policy runs once over the prepared trace with the
//! after-cache trace discarded; the figure is page accesses per second of the run
//! (trace preparation excluded). Override with `WAFER_BENCH_ACCESSES`,
//! `WAFER_BENCH_PAGES`, `WAFER_BENCH_CACHE_PCT` and `WAFER_BENCH_POLICIES` (comma list);
//! `WAFER_BENCH_REPEAT=n` runs each policy n times and keeps the run with the best CPU
//! rate (on a shared machine the slower runs measure the neighbours).
//!
//! Two rates are printed: per wall-clock second, and per second the thread actually
//! ran on a CPU (`/proc/thread-self/schedstat`, Linux; the wall figure elsewhere). On
//! a shared machine the second is the one that says what the policy costs; both are
//! lower bounds for an idle machine (other jobs still pollute the caches).
//!
//! A last line runs LRU streaming from the `.wtr` file (decoding, expansion and
//! densifying included).
//!
//! Run: `cargo bench -p wafer-cache --bench policies`.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Zipf};
use rand_pcg::Pcg64Mcg;
use wafer_cache::after::NullSink;
use wafer_cache::{run_policy, Input, Metrics, PolicySpec, PreparedTrace, SimConfig, POLICIES};
use wafer_trace::reader::BATCH;
use wafer_trace::{Granularity, Op, OutFormat, ReadOptions, Request, TraceWriter, WriteInfo};

/// Write `reqs` as a `.wtr` file, in the batches every trace writer takes.
fn write_wtr(path: &std::path::Path, reqs: &[Request]) {
    let info = WriteInfo {
        origin: "policies benchmark: zipf(0.99)".into(),
        page_size: 4096,
        has_time: true,
        has_op: true,
    };
    let mut w = TraceWriter::create(path, OutFormat::Wtr, &info).expect("creates .wtr");
    for chunk in reqs.chunks(BATCH) {
        w.write_all(chunk).expect("writes .wtr");
    }
    w.finish().expect("finishes .wtr");
}

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

/// Wall seconds and CPU seconds (wall if unknown) of `f`.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let c0 = thread_cpu_ns();
    let t = Instant::now();
    let out = f();
    let wall = t.elapsed().as_secs_f64();
    let cpu = match (c0, thread_cpu_ns()) {
        (Some(a), Some(b)) if b > a => (b - a) as f64 / 1e9,
        _ => wall,
    };
    (out, wall, cpu)
}

/// The run with the best CPU rate of `repeat` runs of `f`: its metrics, wall and CPU
/// seconds.
fn best_of(
    repeat: u64,
    mut f: impl FnMut() -> Result<Metrics, wafer_cache::SimError>,
) -> (Metrics, f64, f64) {
    (0..repeat)
        .map(|_| timed(|| f().expect("runs")))
        .min_by(|a, b| a.2.total_cmp(&b.2))
        .expect("at least one run")
}

fn report(name: &str, (m, wall, cpu): (Metrics, f64, f64)) {
    println!(
        "{:<20} {:>10.4} {:>12.1} {:>12.1} {:>10.2}",
        name,
        m.hit_ratio,
        m.accesses as f64 / wall / 1e6,
        m.accesses as f64 / cpu / 1e6,
        wall
    );
}

fn main() {
    let accesses = env_u64("WAFER_BENCH_ACCESSES", 10_000_000);
    let pages = env_u64("WAFER_BENCH_PAGES", 1_000_000);
    let pct = env_u64("WAFER_BENCH_CACHE_PCT", 5);
    let repeat = env_u64("WAFER_BENCH_REPEAT", 1).max(1);
    let only: Option<Vec<String>> = std::env::var("WAFER_BENCH_POLICIES")
        .ok()
        .map(|s| s.split(',').map(|p| p.trim().to_string()).collect());

    let t0 = Instant::now();
    let mut rng = Pcg64Mcg::seed_from_u64(42);
    let zipf = Zipf::new(pages, 0.99).expect("valid Zipf parameters");
    // 999_983 is prime, so rank -> page is a bijection on 0..pages when pages is not a
    // multiple of it.
    let reqs: Vec<Request> = (0..accesses)
        .map(|i| {
            let rank = zipf.sample(&mut rng) as u64 - 1;
            let page = rank * 999_983 % pages;
            Request {
                time_ns: i,
                offset: page * 4096,
                len: 4096,
                dev: 0,
                op: if rng.gen_bool(0.3) {
                    Op::Write
                } else {
                    Op::Read
                },
            }
        })
        .collect();
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("zipf.wtr");
    write_wtr(&path, &reqs);
    drop(reqs);
    let mut r = wafer_trace::open(&path, &ReadOptions::default()).expect("reads back");
    let trace = PreparedTrace::read(Granularity::default(), r.as_mut(), &mut |_| {}).expect("fits");
    let cap = (trace.universe() as u64 * pct / 100).max(1) as u32;
    println!(
        "zipf(0.99): {} accesses, {} distinct pages, cache {} pages ({pct}%), written as .wtr, read back and prepared in {:.2} s",
        trace.accesses(),
        trace.universe(),
        cap,
        t0.elapsed().as_secs_f64()
    );
    let cfg = SimConfig {
        capacity_pages: cap,
        pages_per_block: std::num::NonZeroU32::new(1024).unwrap(),
        ..SimConfig::default()
    };
    println!(
        "{:<20} {:>10} {:>12} {:>12} {:>10}",
        "policy", "hit ratio", "M acc/s", "M acc/s cpu", "seconds"
    );
    for info in POLICIES {
        if let Some(o) = &only {
            if !o.iter().any(|n| n == info.name) {
                continue;
            }
        }
        let spec = PolicySpec::parse(info.name).expect("registered");
        let best = best_of(repeat, || {
            run_policy(
                &spec,
                Input::Prepared(&trace),
                &cfg,
                &mut NullSink,
                &mut |_| {},
            )
        });
        report(info.name, best);
    }
    // The streaming path: expand and densify on the fly, arrays grown by doubling.
    let spec = PolicySpec::parse("lru").expect("registered");
    let best = best_of(repeat, || {
        let mut r = wafer_trace::open(&path, &ReadOptions::default()).expect("reads back");
        run_policy(
            &spec,
            Input::Stream(r.as_mut()),
            &cfg,
            &mut NullSink,
            &mut |_| {},
        )
    });
    report("lru (streamed .wtr)", best);
}
