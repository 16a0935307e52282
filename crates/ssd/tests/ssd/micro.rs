//! Paper 004's micro benchmarks (Huang et al., "Efficient Cache Design for Solid-State
//! Drives", ACM Computing Frontiers 2010, Table 5, with the details
//! `docs/generators.md` fixes) on the samsung-k9 device (Table 1 latencies, page-level
//! FTL) at the benchmarks' 16 GiB span: the qualitative findings of Sec. 4.3.1,
//! asserted as directions with a margin. Where a finding holds only under a condition
//! (the load), the test states the condition and `docs/ssd.md` explains it with the
//! full tables.

use crate::common::*;
use wafer_ssd::{
    run, Apu, Arrival, Assoc, CacheConfig, FtlFlash, Report, Ssd, SsdConfig, VecReader,
};
use wafer_trace::gen::{Arrival as GenArrival, Bytes, GenSpec};
use wafer_trace::Op;

fn device() -> wafer_ftl::Device {
    let mut dev = wafer_ftl::Device::from_profile("samsung-k9").unwrap();
    dev.geometry = wafer_ftl::Geometry::with_op(16 << 30, 0.15, 4096, 64).unwrap();
    dev
}

fn cache(mb: u32, ways: u32, apu: Apu) -> Option<CacheConfig> {
    Some(CacheConfig {
        lines: mb * 256,
        assoc: Assoc::Ways(ways),
        apu,
    })
}

/// Run micro benchmark `kind` with `requests` requests, mean gap `gap_ms`; returns
/// the report and the mean pages per request.
fn micro(kind: &str, requests: u64, gap_ms: f64, c: Option<CacheConfig>) -> (Report, f64) {
    let mut spec = GenSpec::default_for(kind).unwrap();
    let (GenSpec::ConstantWrite(p)
    | GenSpec::RandomWrite(p)
    | GenSpec::WriteBiased(p)
    | GenSpec::Thrash(p)) = &mut spec
    else {
        unreachable!("only paper 004's micro benchmarks are used here")
    };
    p.requests = requests;
    p.arrival = GenArrival::Poisson {
        mean_ns: gap_ms * 1e6,
    };
    if let (GenSpec::Thrash(p), Some(c)) = (&mut spec, &c) {
        p.cache = Some(Bytes(u64::from(c.lines) * 4096));
    }
    let cfg = SsdConfig {
        cache: c,
        ..SsdConfig::default()
    };
    let mut ssd = Ssd::new(cfg, FtlFlash::new(&device()).unwrap()).unwrap();
    let mut pages = 0u64;
    run(
        &mut ssd,
        spec.open().unwrap().as_mut(),
        Arrival::Trace,
        None,
        |_| {},
        |_, c| pages += c.pages,
    )
    .unwrap();
    (ssd.finish(), pages as f64 / requests as f64)
}

fn mean_ms(r: &Report) -> f64 {
    r.response.all.mean_ns * 1e-6
}

#[test]
fn constant_write_drops_to_the_cache_latency_with_any_cache() {
    // At 100 ms mean gaps the cache path is ~10% loaded (512 pages x 20 us per
    // request); at the default 10 ms it is saturated (docs/ssd.md).
    let (none, _) = micro("constant-write", 2000, 100.0, None);
    for c in [
        cache(8, 1, Apu::Off),
        cache(8, 4, Apu::Lru),
        cache(256, 2, Apu::Lfu),
    ] {
        let (r, pages) = micro("constant-write", 2000, 100.0, c);
        let cs = r.cache.as_ref().unwrap();
        assert_eq!(
            cs.stats.on_demand_flushes, 0,
            "no conflict misses: every request rewrites pages 0.."
        );
        let service_ms = pages * 0.020; // t_bus + t_cache per page
        assert!(
            mean_ms(&r) <= 1.25 * service_ms,
            "{c:?}: {} ms vs cache service {service_ms} ms",
            mean_ms(&r)
        );
        assert!(
            mean_ms(&none) >= 5.0 * mean_ms(&r),
            "no cache {} vs {}",
            mean_ms(&none),
            mean_ms(&r)
        );
    }
    // The direction holds at the default load too, saturated as it is.
    let (none, _) = micro("constant-write", 500, 10.0, None);
    let (c, _) = micro("constant-write", 500, 10.0, cache(8, 1, Apu::Off));
    assert!(mean_ms(&none) >= 5.0 * mean_ms(&c));
}

#[test]
fn apu_cuts_response_time_of_random_writes_at_small_caches() {
    for kind in ["random-write", "write-biased"] {
        let (none, _) = micro(kind, 10_000, 10.0, None);
        for ways in [1, 2, 4] {
            let (wb, _) = micro(kind, 10_000, 10.0, cache(8, ways, Apu::Off));
            // Write-back alone buys almost nothing at small caches: nearly every write
            // miss still programs a page, now a victim's (paper: slightly worse; the
            // FCFS model reproduced that by holding the host link during each flush).
            assert!(
                mean_ms(&wb) >= 0.95 * mean_ms(&none),
                "{kind} {ways}-way: wb {} none {}",
                mean_ms(&wb),
                mean_ms(&none)
            );
            for apu in [Apu::Lru, Apu::Lfu] {
                // Spec load (10 ms): APU keeps up with only part of the write rate
                // (one page per 2.2 ms of idleness vs ~13 pages per request): a cut
                // of about a quarter.
                let (a, _) = micro(kind, 10_000, 10.0, cache(8, ways, apu));
                assert!(
                    mean_ms(&a) <= 0.85 * mean_ms(&wb),
                    "{kind} {ways}-way {apu:?}: {} vs wb {}",
                    mean_ms(&a),
                    mean_ms(&wb)
                );
                // Light load (100 ms): the idle time flushes more than is written and
                // APU gives the paper's order of magnitude.
                let (wb100, _) = micro(kind, 5_000, 100.0, cache(8, ways, Apu::Off));
                let (a100, _) = micro(kind, 5_000, 100.0, cache(8, ways, apu));
                assert!(
                    mean_ms(&a100) * 5.0 <= mean_ms(&wb100),
                    "{kind} {ways}-way {apu:?} at 100 ms: {} vs {}",
                    mean_ms(&a100),
                    mean_ms(&wb100)
                );
            }
        }
    }
}

#[test]
fn associativity_cuts_response_time_under_thrashing() {
    // 1 s mean gaps: the benchmark's ~2 MiB requests load the device lightly.
    for apu in [Apu::Off, Apu::Lru] {
        let (dm, _) = micro("thrash", 2000, 1000.0, cache(8, 1, apu));
        let (w2, _) = micro("thrash", 2000, 1000.0, cache(8, 2, apu));
        let (w4, _) = micro("thrash", 2000, 1000.0, cache(8, 4, apu));
        let margin = if apu == Apu::Off { 0.95 } else { 0.8 };
        assert!(
            mean_ms(&w2) <= margin * mean_ms(&dm),
            "{apu:?}: 2-way {} vs direct {}",
            mean_ms(&w2),
            mean_ms(&dm)
        );
        assert!(
            mean_ms(&w4) <= mean_ms(&w2) * 1.02,
            "{apu:?}: 4-way {} vs 2-way {}",
            mean_ms(&w4),
            mean_ms(&w2)
        );
    }
}

#[test]
fn fixed_pair_thrash_shows_the_set_conflict_mechanism() {
    // The generator redraws the region offset every round, so once the cache is full
    // of dirty lines every write miss flushes whatever the associativity. With one
    // fixed pair of twin regions written alternately, direct-mapped flushes on every
    // write and 2-way on none after the first round (write-back, no APU).
    let lines = 256; // 1 MiB
    let reqs: Vec<_> = (0..200u64)
        .map(|i| pages(i * 100 * MS, Op::Write, 17 + (i % 2) * lines, 64))
        .collect();
    let mut resp = vec![];
    for ways in [1, 2] {
        let cfg = SsdConfig {
            cache: cache(1, ways, Apu::Off),
            ..SsdConfig::default()
        };
        let mut ssd = Ssd::new(cfg, FtlFlash::new(&device()).unwrap()).unwrap();
        run(
            &mut ssd,
            &mut VecReader::new(reqs.clone()),
            Arrival::Trace,
            None,
            |_| {},
            |_, _| {},
        )
        .unwrap();
        let r = ssd.finish();
        let od = r.cache.as_ref().unwrap().stats.on_demand_flushes;
        assert_eq!(od, if ways == 1 { 199 * 64 } else { 0 });
        resp.push(mean_ms(&r));
    }
    // 64 programs of 200 us on the one unit (the transfers overlap them) vs 64 x 20 us
    // through the cache: 10x.
    assert!(resp[0] >= 7.0 * resp[1], "{resp:?}");
}
