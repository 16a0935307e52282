//! Write-back bursts and their block utilization (paper 000 = D. H. Kang, C. Min,
//! Y. I. Eom, "An Efficient Buffer Replacement Algorithm for NAND Flash Storage
//! Devices", IEEE MASCOTS 2014, Fig. 5; definitions in `wafer_cache::metrics`).
//!
//! Every registered policy is driven directly over random traces, its writes,
//! padding reads, eviction groups and miss reads recorded, and bursts rebuilt from
//! them with a set of pages per burst; the engine's statistics of both variants must
//! equal that model's. Checked besides: every burst's utilization lies in (0, 1],
//! the bursts per utilization range sum to the bursts, the pages per range to the
//! distinct pages in bursts, and distinct pages + rewrites = pages written.

use std::collections::{BTreeMap, HashSet};

use proptest::prelude::*;
use wafer_cache::after::NullSink;
use wafer_cache::metrics::{BurstStats, UTILIZATION_RANGES};
use wafer_cache::registry::{with_policy, PolicyVisitor};
use wafer_cache::{
    run_policy, Access, Input, IoSink, Policy, PolicySpec, PreparedTrace, SimConfig, POLICIES,
};
use wafer_trace::{Granularity, Op, Request};

/// What reaches storage, in the engine's order.
#[derive(Clone, Copy, Debug)]
enum Ev {
    /// A write-back or padding write of this page key.
    Write(u64),
    /// A padding read.
    PadRead,
    /// The read of a missed page.
    MissRead,
    Begin,
    End,
}

#[derive(Default)]
struct Recorder(Vec<Ev>);

impl IoSink for Recorder {
    fn key(&self, p: u32) -> u64 {
        u64::from(p)
    }
    fn write_back(&mut self, p: u32) {
        self.0.push(Ev::Write(u64::from(p)));
    }
    fn drop_clean(&mut self, _: u32) {}
    fn pad_read(&mut self, _: u64) {
        self.0.push(Ev::PadRead);
    }
    fn pad_write(&mut self, k: u64) {
        self.0.push(Ev::Write(k));
    }
    fn begin_group(&mut self) {
        self.0.push(Ev::Begin);
    }
    fn end_group(&mut self) {
        self.0.push(Ev::End);
    }
}

/// Runs a policy directly; `None` when it rejects the capacity.
struct Drive<'a> {
    trace: &'a [(Op, u32)],
    cfg: SimConfig,
}

impl PolicyVisitor for Drive<'_> {
    type Output = Option<Vec<Ev>>;

    fn visit<P: Policy>(self, params: P::Params) -> Self::Output {
        let ppb = self.cfg.pages_per_block;
        let universe = self.trace.iter().map(|a| a.1 + 1).max().unwrap_or(0);
        let mut p = P::new(
            self.cfg.capacity_pages,
            &params,
            &self.cfg.policy_ctx(universe),
        )
        .ok()?;
        p.reserve(universe, universe / ppb + 1);
        let mut next = vec![u64::MAX; self.trace.len()];
        let mut last = vec![u64::MAX; universe as usize];
        for (i, &(_, pg)) in self.trace.iter().enumerate().rev() {
            next[i] = last[pg as usize];
            last[pg as usize] = i as u64;
        }
        let mut rec = Recorder::default();
        for (i, &(op, page)) in self.trace.iter().enumerate() {
            let a = Access {
                page,
                block: page / ppb,
                key: if P::NEEDS_KEY {
                    u64::from(page)
                } else {
                    wafer_cache::policy::NO_KEY
                },
                op,
                index: i as u64,
                next_use: if P::NEEDS_NEXT_USE { next[i] } else { u64::MAX },
            };
            let hit = p.access(&a, &mut rec);
            if !hit && (op == Op::Read || self.cfg.write_miss_fetch) {
                rec.0.push(Ev::MissRead);
            }
        }
        Some(rec.0)
    }
}

/// The range of a burst of `n` distinct pages of `ppb`, counted up in tenths.
fn range_of(n: u32, ppb: u32) -> usize {
    (1..=UTILIZATION_RANGES)
        .find(|&k| u64::from(n) * UTILIZATION_RANGES as u64 <= k as u64 * u64::from(ppb))
        .expect("a burst writes at most the whole block")
        - 1
}

/// Bursts rebuilt from the events, one set of pages each: the write-stream variant
/// (`strict` false) or the strict one.
fn model(events: &[Ev], ppb: u32, strict: bool) -> BurstStats {
    let mut bursts: Vec<HashSet<u64>> = Vec::new();
    let (mut block, mut open, mut in_group) = (u64::MAX, false, false);
    let mut rewrites = 0;
    for &e in events {
        match e {
            Ev::Write(k) => {
                if !open || k / u64::from(ppb) != block {
                    bursts.push(HashSet::new());
                    block = k / u64::from(ppb);
                    open = true;
                }
                if !bursts.last_mut().unwrap().insert(k) {
                    rewrites += 1;
                }
            }
            Ev::Begin => (open, in_group) = (false, true),
            Ev::End => (open, in_group) = (false, false),
            Ev::MissRead => open &= !strict,
            // A padding read ends a strict run only outside a group.
            Ev::PadRead => open &= !strict || in_group,
        }
    }
    let mut s = BurstStats {
        rewrites,
        ..BurstStats::default()
    };
    let mut hist = BTreeMap::new();
    for b in &bursts {
        let n = b.len() as u32;
        *hist.entry(n).or_insert(0u64) += 1;
        s.bursts += 1;
        s.pages += u64::from(n);
        s.full += u64::from(n == ppb);
        s.bursts_by_utilization[range_of(n, ppb)] += 1;
        s.pages_by_utilization[range_of(n, ppb)] += u64::from(n);
    }
    s.histogram = hist.into_iter().collect();
    if s.bursts > 0 {
        s.mean_pages = s.pages as f64 / s.bursts as f64;
    }
    s.mean_utilization = s.mean_pages / f64::from(ppb);
    s
}

fn prepared(trace: &[(Op, u32)]) -> PreparedTrace {
    let reqs: Vec<Request> = trace
        .iter()
        .enumerate()
        .map(|(i, &(op, p))| Request {
            time_ns: i as u64,
            offset: u64::from(p) * 4096,
            len: 4096,
            dev: 0,
            op,
        })
        .collect();
    PreparedTrace::from_requests(Granularity::default(), &reqs).unwrap()
}

fn trace_strategy() -> impl Strategy<Value = Vec<(Op, u32)>> {
    prop::collection::vec(
        (prop::bool::weighted(0.6), 0u32..48)
            .prop_map(|(w, p)| (if w { Op::Write } else { Op::Read }, p)),
        1..300,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn bursts_of_every_policy_match_the_model(
        trace in trace_strategy(),
        cap in 1u32..24,
        ppb in prop::sample::select(vec![1u32, 2, 3, 4, 8, 16]),
        fetch in any::<bool>(),
    ) {
        let cfg = SimConfig {
            capacity_pages: cap,
            pages_per_block: std::num::NonZeroU32::new(ppb).unwrap(),
            write_miss_fetch: fetch,
            ..SimConfig::default()
        };
        let t = prepared(&trace);
        for info in POLICIES {
            let spec = PolicySpec::parse(info.name).unwrap();
            let Some(events) = with_policy(&spec, Drive { trace: &trace, cfg }).unwrap() else {
                continue;
            };
            let m = run_policy(&spec, Input::Prepared(&t), &cfg, &mut NullSink, &mut |_| {}).unwrap();
            let bu = &m.block_utilization;
            for (s, strict) in [(&bu.write_stream, false), (&bu.strict, true)] {
                let name = format!("{} strict={strict}", info.name);
                prop_assert!(
                    s.histogram.iter().all(|&(n, _)| n >= 1 && n <= ppb),
                    "{}: utilization outside (0, 1]: {:?}", name, s.histogram
                );
                prop_assert!(s.mean_utilization <= 1.0, "{}", name);
                prop_assert_eq!(s.bursts_by_utilization.iter().sum::<u64>(), s.bursts, "{}", &name);
                prop_assert_eq!(s.pages_by_utilization.iter().sum::<u64>(), s.pages, "{}", &name);
                prop_assert_eq!(s.pages + s.rewrites, m.page_writes + m.pad_writes, "{}", &name);
                prop_assert_eq!(s, &model(&events, ppb, strict), "{}", &name);
            }
            // A strict burst lies within one write-stream burst.
            prop_assert!(bu.strict.bursts >= bu.write_stream.bursts, "{}", info.name);
        }
    }
}

/// A worked example: 3,000 writes cycling over pages 0, 1, 2 (one block of 1024
/// pages) through a 2-page LRU cache. From the third write on each write misses and
/// evicts the least recently used page, which is dirty: 2,998 write-backs, all to
/// block 0, with no read or group between them, so one burst in both variants. It
/// writes 3 distinct pages, so its utilization is 3 / 1024 = 0.0029296875 (range
/// (0, 10%]), and the other 2,995 writes are rewrites. Counting page writes instead
/// gave 2,998 / 1024 = 2.93.
#[test]
fn cycling_writes_fill_three_pages_of_the_block() {
    let trace: Vec<(Op, u32)> = (0..3000).map(|i| (Op::Write, i % 3)).collect();
    let cfg = SimConfig {
        capacity_pages: 2,
        pages_per_block: std::num::NonZeroU32::new(1024).unwrap(),
        ..SimConfig::default()
    };
    let spec = PolicySpec::parse("lru").unwrap();
    let m = run_policy(
        &spec,
        Input::Prepared(&prepared(&trace)),
        &cfg,
        &mut NullSink,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!((m.page_writes, m.dirty_at_end), (2998, 2));
    for s in [
        &m.block_utilization.write_stream,
        &m.block_utilization.strict,
    ] {
        assert_eq!((s.bursts, s.pages, s.rewrites, s.full), (1, 3, 2995, 0));
        assert_eq!(s.histogram, [(3, 1)]);
        assert_eq!(s.mean_pages, 3.0);
        assert_eq!(s.mean_utilization, 3.0 / 1024.0);
        assert_eq!(s.bursts_by_utilization, [1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(s.pages_by_utilization, [3, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    }
}
