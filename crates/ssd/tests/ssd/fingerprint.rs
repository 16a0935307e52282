//! Regression fingerprints of long runs: every request's arrival, start and completion
//! time, the full report (response statistics, cache, flash and FTL counters, timing,
//! series) and the FTL's per-block erase counts, folded into hashes. The values of the
//! FCFS model were recorded from its straightforward implementation; those of the
//! queued model (default depth 32) when it replaced it, and at depth 1 the queued model
//! still gives the FCFS model's completions without a cache, hash for hash. The
//! depth-32 values were re-recorded when the host link, the cache DRAM and the channels
//! stopped serving in issue order (a transfer ready sooner takes an earlier idle gap
//! instead of waiting behind one whose data is still on a busy unit): the same flash
//! work, counters equal without a cache and within 0.3% with one (the LRU times of the
//! lines follow the admissions, which move), p99 and maximum lower in every run (no
//! cache: p99 140.5 -> 124.8 ms). Depth 1 did not change: one request at a time has
//! nothing to overtake across requests. Speed work
//! on the device, the cache or the FTL must leave every one of them unchanged; the
//! readable counters beside each hash say where a difference starts.
//!
//! The workload mixes reads, writes and trims of 1-4 pages, half of them on a hot
//! region of four times the cache, on a 128 MiB samsung-k9 page-level FTL (GC runs
//! thousands of times), with gaps that now and then exceed the idle threshold (APU
//! flushes fire, sometimes several in one idle period).

use crate::common::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use wafer_ssd::{run, Apu, Assoc, CacheConfig, FtlFlash, Ssd, SsdConfig, VecReader};
use wafer_trace::{Op, Request};

const REQUESTS: usize = 150_000;
const LOGICAL_PAGES: u64 = (128 << 20) / PAGE;
const LINES: u32 = 1024;

/// FNV-1a over 64-bit words.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn word(&mut self, w: u64) {
        for b in w.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn bytes(&mut self, s: &[u8]) {
        for &b in s {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

fn workload(seed: u64) -> Vec<Request> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let hot = u64::from(LINES) * 4;
    let mut t = 0u64;
    (0..REQUESTS)
        .map(|_| {
            t += if rng.gen_bool(0.03) {
                rng.gen_range(2 * MS..9 * MS)
            } else {
                rng.gen_range(0..600 * US)
            };
            let n = if rng.gen_bool(0.8) {
                1
            } else {
                rng.gen_range(2..=4)
            };
            let lpn = if rng.gen_bool(0.5) {
                rng.gen_range(0..hot)
            } else {
                rng.gen_range(0..LOGICAL_PAGES - n)
            };
            let op = match rng.gen_range(0..100) {
                0..=59 => Op::Write,
                60..=97 => Op::Read,
                _ => Op::Trim,
            };
            pages(t, op, lpn, n)
        })
        .collect()
}

/// What one run is checked against.
#[derive(Debug, PartialEq, Eq)]
struct Print {
    completions: u64,
    report: u64,
    erase_counts: u64,
    erases: u64,
    gc_copies: u64,
    on_demand: u64,
    apu: u64,
    p99_ns: u64,
    max_ns: u64,
}

fn fingerprint(
    cache: Option<CacheConfig>,
    units: (u32, u32),
    hot_cold: bool,
    queue_depth: u32,
) -> Print {
    let mut dev = wafer_ftl::Device::from_profile("samsung-k9").unwrap();
    dev.geometry = wafer_ftl::Geometry::with_op(LOGICAL_PAGES * PAGE, 0.15, 4096, 64).unwrap();
    (dev.geometry.channels, dev.geometry.ways) = units;
    dev.page.hot_cold = hot_cold;
    let cfg = SsdConfig {
        cache,
        queue_depth,
        ..SsdConfig::default()
    };
    let mut ssd = Ssd::new(cfg, FtlFlash::new(&dev).unwrap()).unwrap();
    let mut h = Fnv::new();
    let n = run(
        &mut ssd,
        &mut VecReader::new(workload(11)),
        wafer_ssd::Arrival::Trace,
        None,
        |_| {},
        |_, c| {
            h.word(c.arrival_ns);
            h.word(c.start_ns);
            h.word(c.done_ns);
            h.word(c.pages);
        },
    )
    .unwrap();
    assert_eq!(n, REQUESTS as u64);
    let mut e = Fnv::new();
    for &c in wafer_ftl::Ftl::erase_counts(ssd.flash().ftl()) {
        e.word(u64::from(c));
    }
    let r = ssd.finish();
    let mut j = Fnv::new();
    j.bytes(serde_json::to_string(&r).unwrap().as_bytes());
    let ftl = r.flash.ftl.as_ref().unwrap();
    let stats = r
        .cache
        .as_ref()
        .map(|c| c.stats.clone())
        .unwrap_or_default();
    Print {
        completions: h.0,
        report: j.0,
        erase_counts: e.0,
        erases: ftl.erases,
        gc_copies: ftl.programs_gc,
        on_demand: stats.on_demand_flushes,
        apu: stats.apu_flushes,
        p99_ns: r.response.all.p99_ns,
        max_ns: r.response.all.max_ns,
    }
}

fn cache(assoc: Assoc, apu: Apu) -> Option<CacheConfig> {
    Some(CacheConfig {
        lines: LINES,
        assoc,
        apu,
    })
}

fn check(got: Print, want: Print) {
    assert!(got.erases > 0 && got.gc_copies > 0, "GC must run: {got:?}");
    assert_eq!(got, want);
}

#[test]
fn no_cache() {
    check(
        fingerprint(None, (1, 1), false, 32),
        Print {
            completions: 18302063123139992407,
            report: 414123709421175492,
            erase_counts: 4754365858677385348,
            erases: 2327,
            gc_copies: 60827,
            on_demand: 0,
            apu: 0,
            p99_ns: 124780543,
            max_ns: 182840655,
        },
    );
}

/// At depth 1 the device is the FCFS single server: every completion as recorded
/// from it (the report hash differs only in the arrivals counted as finding the
/// queue full, which depend on the depth).
#[test]
fn no_cache_at_depth_one_is_the_fcfs_server() {
    check(
        fingerprint(None, (1, 1), false, 1),
        Print {
            completions: 4770503932986806906,
            report: 15181946741978708686,
            erase_counts: 4754365858677385348,
            erases: 2327,
            gc_copies: 60827,
            on_demand: 0,
            apu: 0,
            p99_ns: 159383551,
            max_ns: 218670655,
        },
    );
}

#[test]
fn direct_mapped_write_back() {
    check(
        fingerprint(cache(Assoc::Ways(1), Apu::Off), (1, 1), false, 32),
        Print {
            completions: 13851043513629010070,
            report: 16661605366638337942,
            erase_counts: 6210026448015020037,
            erases: 1972,
            gc_copies: 50024,
            on_demand: 113685,
            apu: 0,
            p99_ns: 26869759,
            max_ns: 57570734,
        },
    );
}

#[test]
fn two_way_apu_lru_four_units() {
    check(
        fingerprint(cache(Assoc::Ways(2), Apu::Lru), (2, 2), false, 32),
        Print {
            completions: 16605922475440307132,
            report: 709601207211659625,
            erase_counts: 3667251475392577411,
            erases: 1984,
            gc_copies: 50389,
            on_demand: 106913,
            apu: 7171,
            p99_ns: 15859711,
            max_ns: 27884627,
        },
    );
}

#[test]
fn four_way_apu_lfu() {
    check(
        fingerprint(cache(Assoc::Ways(4), Apu::Lfu), (1, 1), false, 32),
        Print {
            completions: 5678925658773060452,
            report: 3864113962467811745,
            erase_counts: 8618502481713123235,
            erases: 1984,
            gc_copies: 50661,
            on_demand: 107677,
            apu: 6132,
            p99_ns: 26214399,
            max_ns: 51578180,
        },
    );
}

#[test]
fn fully_associative_apu_lru() {
    check(
        fingerprint(cache(Assoc::Full, Apu::Lru), (1, 1), false, 32),
        Print {
            completions: 10918332765854858741,
            report: 6115000540424612881,
            erase_counts: 4702590151630623008,
            erases: 1971,
            gc_copies: 49967,
            on_demand: 107541,
            apu: 6125,
            p99_ns: 27262975,
            max_ns: 57991348,
        },
    );
}

#[test]
fn fully_associative_apu_lfu_hot_cold_two_channels() {
    check(
        fingerprint(cache(Assoc::Full, Apu::Lfu), (2, 1), true, 32),
        Print {
            completions: 13953648276212882490,
            report: 14294329127457656066,
            erase_counts: 14866509254191061155,
            erases: 1942,
            gc_copies: 48101,
            on_demand: 106620,
            apu: 7045,
            p99_ns: 16056319,
            max_ns: 28384789,
        },
    );
}

/// [`Ssd::prefetch`] is a hint: a device told about the wrong requests (other pages,
/// other ops, pages beyond the capacity, empty and huge requests) before every request
/// serves them exactly like one told nothing.
#[test]
fn prefetch_hints_change_nothing() {
    let mut dev = wafer_ftl::Device::from_profile("samsung-k9").unwrap();
    dev.geometry = wafer_ftl::Geometry::with_op(LOGICAL_PAGES * PAGE, 0.15, 4096, 64).unwrap();
    let reqs: Vec<Request> = workload(5).into_iter().take(30_000).collect();
    let mut rng = Pcg64::seed_from_u64(9);
    for cache in [
        None,
        cache(Assoc::Ways(2), Apu::Lru),
        cache(Assoc::Full, Apu::Lfu),
    ] {
        let cfg = SsdConfig {
            cache,
            ..SsdConfig::default()
        };
        let mut plain = Ssd::new(cfg, FtlFlash::new(&dev).unwrap()).unwrap();
        let mut hinted = Ssd::new(cfg, FtlFlash::new(&dev).unwrap()).unwrap();
        for r in &reqs {
            let junk: Vec<Request> = (0..3)
                .map(|_| Request {
                    time_ns: 0,
                    offset: match rng.gen_range(0..4) {
                        0 => rng.gen_range(0..LOGICAL_PAGES * 2) * PAGE,
                        1 => u64::MAX - 5,
                        _ => rng.gen_range(0..LOGICAL_PAGES) * PAGE,
                    },
                    len: [0, 4096, 1 << 20, u32::MAX][rng.gen_range(0..4)],
                    dev: 0,
                    op: [Op::Read, Op::Write, Op::Trim][rng.gen_range(0..3)],
                })
                .chain(std::iter::once(*r))
                .collect();
            hinted.prefetch(&junk);
            let a = plain.submit(r, r.time_ns).unwrap();
            let b = hinted.submit(r, r.time_ns).unwrap();
            assert_eq!(a, b);
        }
        let (a, b) = (plain.finish(), hinted.finish());
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
    }
}
