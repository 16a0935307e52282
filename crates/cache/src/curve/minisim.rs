//! Any policy at many sizes by scaled-down simulation (MINISIM: C. A. Waldspurger,
//! T. Saemundsson, I. Ahmad, N. Park, "Cache Modeling and Optimization using
//! Miniature Simulations", USENIX ATC 2017).
//!
//! The trace is sampled spatially as in [`super::shards`] (by page or by erase block;
//! with `max_keys`, the threshold is the one that keeps that many keys, applied to
//! the whole trace), and the sampled accesses, in order, become a trace of their own.
//! A cache of `C` pages is simulated on it at `round(C x rate)` pages, with the
//! warm-up counted in sampled accesses; each size is one independent run
//! ([`point`]), so a caller runs them on its own workers. Sizes whose scaled size
//! rounds to 0 are left out: no cache of 0 pages can stand for them.
//!
//! Scaling: the totals (accesses, reads, writes, trims) are counted over the whole
//! trace; misses, storage reads and writes, evictions and the other counts of the
//! sample are multiplied by 1 / rate, and hits are the totals minus the scaled
//! misses. With the erase block as the sampling unit, block-level policies see whole
//! blocks and the burst utilizations of the sample stand for the trace's (the burst
//! counts are the sample's, not scaled).

use wafer_trace::{key_dev, key_page};
use wafer_trace::{Op, Request};

use super::shards::{hash, rate_of, threshold, unit_key};
use super::{CurvePoint, Sampling};
use crate::after::NullSink;
use crate::engine::{Input, SimConfig};
use crate::error::SimError;
use crate::metrics::Metrics;
use crate::prepared::PreparedTrace;
use crate::registry::{run_policy, PolicySpec};

/// A sampled trace and what it stands for.
pub struct Sample {
    /// The sampled accesses (and trims), prepared.
    pub trace: PreparedTrace,
    /// The rate the threshold gives.
    pub rate: f64,
    /// Warm-up accesses that fall in the sample.
    pub warmup: u64,
    /// Exact totals of the whole trace: reads, writes, trims (measured) and warm-up
    /// accesses.
    totals: [u64; 4],
    footprint: u32,
}

/// Draw the sample of `t` (see the module docs).
pub fn sample(t: &PreparedTrace, cfg: &SimConfig, s: &Sampling) -> Result<Sample, SimError> {
    s.validate()?;
    if t.granularity() != cfg.granularity {
        return Err(SimError::Invalid(format!(
            "the prepared trace was expanded with {:?}, the curve asks for {:?}",
            t.granularity(),
            cfg.granularity
        )));
    }
    let ppb = cfg.pages_per_block.get();
    let hashes: Vec<u64> = t
        .keys()
        .iter()
        .map(|&k| hash(unit_key(k, s.unit, ppb), s.seed))
        .collect();
    let mut th = threshold(s.rate);
    if let Some(max) = s.max_keys {
        let mut units: Vec<u64> = hashes.iter().copied().filter(|&h| h <= th).collect();
        units.sort_unstable();
        units.dedup();
        if units.len() > max as usize {
            th = units[max as usize] - 1;
        }
    }
    let unit = t.granularity().unit();
    let (keys, times) = (t.keys(), t.times());
    let mut reqs = Vec::new();
    let mut totals = [0u64; 4];
    let (mut index, mut warmup) = (0u64, 0u64);
    for ((&p, &op), &ri) in t.pages().iter().zip(t.ops()).zip(t.request_index()) {
        let measured = index >= cfg.warmup;
        let sampled = hashes[p as usize] <= th;
        match op {
            Op::Trim => totals[2] += u64::from(measured),
            _ => {
                if !measured {
                    totals[3] += 1;
                    warmup += u64::from(sampled);
                } else if op == Op::Write {
                    totals[1] += 1;
                } else {
                    totals[0] += 1;
                }
                index += 1;
            }
        }
        if sampled {
            let key = keys[p as usize];
            reqs.push(Request {
                time_ns: times[ri as usize],
                offset: key_page(key) * unit,
                len: unit as u32,
                dev: key_dev(key),
                op,
            });
        }
    }
    Ok(Sample {
        trace: PreparedTrace::from_requests(t.granularity(), &reqs)?,
        rate: rate_of(th),
        warmup,
        totals,
        footprint: t.universe(),
    })
}

/// Policy `spec` at `c` full-size pages on sample `s` under `cfg` (its capacity is
/// replaced, its warm-up counted in sampled accesses); `progress` gets sampled
/// accesses done so far. `None` when the size is too small for the rate.
pub fn point(
    s: &Sample,
    spec: &PolicySpec,
    c: u32,
    cfg: &SimConfig,
    progress: &mut dyn FnMut(u64),
) -> Result<Option<CurvePoint>, SimError> {
    let scaled = (f64::from(c) * s.rate).round() as u32;
    if scaled == 0 {
        return Ok(None);
    }
    let cfg = SimConfig {
        capacity_pages: scaled,
        warmup: s.warmup,
        series_every: 0,
        ..*cfg
    };
    let m = run_policy(
        spec,
        Input::Prepared(&s.trace),
        &cfg,
        &mut NullSink,
        progress,
    )?;
    Ok(Some(CurvePoint {
        cache_pages: c,
        metrics: scale(&m, s, c, cfg.cost),
    }))
}

/// The metrics of the sample at its scaled size as the trace's at `c` pages.
fn scale(m: &Metrics, s: &Sample, c: u32, cost: crate::engine::CostModel) -> Metrics {
    let w = 1.0 / s.rate;
    let x = |v: u64| (v as f64 * w).round() as u64;
    let [reads, writes, trims, warmup] = s.totals;
    let read_misses = x(m.read_misses).min(reads);
    let write_misses = x(m.write_misses).min(writes);
    let page_reads = x(m.page_reads);
    let page_writes = x(m.page_writes);
    let (pad_reads, pad_writes) = (x(m.pad_reads), x(m.pad_writes));
    let mut out = Metrics {
        capacity: c,
        pages_per_block: m.pages_per_block,
        universe: u64::from(s.footprint),
        warmup_accesses: warmup,
        accesses: reads + writes,
        hits: reads + writes - read_misses - write_misses,
        misses: read_misses + write_misses,
        reads,
        read_hits: reads - read_misses,
        read_misses,
        writes,
        write_hits: writes - write_misses,
        write_misses,
        page_reads,
        page_writes,
        pad_reads,
        pad_writes,
        write_ios: x(m.write_ios),
        evictions: x(m.evictions),
        groups: x(m.groups),
        dirty_at_end: x(m.dirty_at_end),
        writes_at_end: x(m.writes_at_end),
        write_ios_at_end: x(m.write_ios_at_end),
        trims,
        trimmed_resident: x(m.trimmed_resident),
        io_time_ns: cost.io_time_ns(page_reads + pad_reads, page_writes + pad_writes),
        block_utilization: m.block_utilization.clone(),
        // A scaled run's series would be the sample's, not the trace's.
        series: None,
        // Filled from the scaled counts below.
        hit_ratio: 0.0,
        read_hit_ratio: 0.0,
        write_hit_ratio: 0.0,
    };
    out.finish_ratios();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::lru::exact;
    use crate::curve::SampleUnit;
    use crate::registry::POLICIES;
    use wafer_trace::Request;

    fn trace(n: u64) -> Vec<Request> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(9);
        (0..n)
            .map(|i| {
                let u: f64 = rng.gen();
                Request {
                    time_ns: i,
                    offset: (3000.0 * u * u) as u64 * 4096,
                    len: 4096 * rng.gen_range(1..3),
                    dev: 0,
                    op: match rng.gen_range(0..10) {
                        0..=5 => Op::Read,
                        6..=8 => Op::Write,
                        _ => Op::Trim,
                    },
                }
            })
            .collect()
    }

    /// The points of `spec` at `sizes`, those the rate leaves in.
    fn run(s: &Sample, spec: &PolicySpec, sizes: &[u32], cfg: &SimConfig) -> Vec<CurvePoint> {
        sizes
            .iter()
            .filter_map(|&c| point(s, spec, c, cfg, &mut |_| {}).unwrap())
            .collect()
    }

    /// At rate 1 the sample is the trace: every policy's points are its own runs,
    /// and LRU's equal the exact curve.
    #[test]
    fn rate_one_is_the_engine() {
        let cfg = SimConfig {
            warmup: 300,
            flush_at_end: true,
            pages_per_block: std::num::NonZeroU32::new(8).unwrap(),
            ..SimConfig::default()
        };
        let t = PreparedTrace::from_requests(cfg.granularity, &trace(5_000)).unwrap();
        let s = Sampling {
            rate: 1.0,
            ..Sampling::default()
        };
        let smp = sample(&t, &cfg, &s).unwrap();
        let sizes = [1, 7, 100, 1000, t.universe()];
        for info in POLICIES {
            let spec = PolicySpec::parse(info.name).unwrap();
            let pts = run(&smp, &spec, &sizes, &cfg);
            for p in &pts {
                let c = SimConfig {
                    capacity_pages: p.cache_pages,
                    ..cfg
                };
                let m =
                    run_policy(&spec, Input::Prepared(&t), &c, &mut NullSink, &mut |_| {}).unwrap();
                assert_eq!(p.metrics, m, "{} at {}", info.name, p.cache_pages);
            }
        }
        let ex = exact(&t, &cfg, &mut |_| {}).unwrap();
        let pts = run(&smp, &PolicySpec::parse("lru").unwrap(), &sizes, &cfg);
        for p in pts {
            let mut m = p.metrics;
            m.block_utilization = Default::default();
            assert_eq!(m, ex.metrics(p.cache_pages));
        }
    }

    /// The same seed draws the same sample; block sampling keeps whole blocks; small
    /// sizes are left out.
    #[test]
    fn deterministic_and_block_whole() {
        let cfg = SimConfig {
            pages_per_block: std::num::NonZeroU32::new(8).unwrap(),
            ..SimConfig::default()
        };
        let t = PreparedTrace::from_requests(cfg.granularity, &trace(20_000)).unwrap();
        let s = Sampling {
            rate: 0.25,
            unit: SampleUnit::Block,
            seed: 3,
            max_keys: None,
            exact_head: 0,
        };
        let a = sample(&t, &cfg, &s).unwrap();
        let b = sample(&t, &cfg, &s).unwrap();
        assert_eq!(a.trace.pages(), b.trace.pages());
        let spec = PolicySpec::parse("bplru").unwrap();
        let pa = run(&a, &spec, &[1, 2, 64, 512], &cfg);
        let pb = run(&b, &spec, &[1, 2, 64, 512], &cfg);
        assert_eq!(pa, pb);
        assert_eq!(
            pa.iter().map(|p| p.cache_pages).collect::<Vec<_>>(),
            [2, 64, 512]
        );
        let mut blocks: Vec<u64> = a.trace.keys().iter().map(|k| k / 8).collect();
        blocks.sort_unstable();
        blocks.dedup();
        let full: usize = t
            .keys()
            .iter()
            .filter(|&&k| blocks.binary_search(&(k / 8)).is_ok())
            .count();
        assert_eq!(
            full,
            a.trace.universe() as usize,
            "sampled blocks are whole"
        );
        let fixed = sample(
            &t,
            &cfg,
            &Sampling {
                max_keys: Some(10),
                ..s
            },
        )
        .unwrap();
        let mut nb: Vec<u64> = fixed.trace.keys().iter().map(|k| k / 8).collect();
        nb.sort_unstable();
        nb.dedup();
        assert_eq!(nb.len(), 10);
    }
}
