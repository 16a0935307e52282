//! Properties every registered policy must have, over random small traces
//! (`docs/cache.md`, "Engine semantics"). The registry is walked, so policies added
//! later are covered without touching this file.
//!
//! Each policy is driven directly (to watch every access) and through the engine (to
//! check the metrics against the direct run). Checked:
//! * resident pages never exceed the capacity;
//! * a read hit emits nothing; a first access is never a hit;
//! * only dirty pages are written back and only clean ones dropped or padded, so every
//!   dirtying is written back exactly once, and conservation holds:
//!   write accesses = write-backs + dirty at end + absorbed overwrites;
//! * the dirty pages the policy reports at the end are exactly those of the model;
//! * hits + misses = accesses, and the engine agrees with the direct run, on a
//!   prepared and on a streamed trace: same counts, and an after-cache trace whose
//!   write-backs and miss reads carry the keys of the pages the policy named;
//! * with capacity >= universe, only cold misses (non-block policies);
//! * OPT's hits >= every other demand-paging policy's hits (not a write buffer that
//!   bypasses reads, `Policy::BYPASSES_READS`).

use std::collections::HashSet;

use proptest::prelude::*;
use wafer_cache::after::{IoKind, VecSink};
use wafer_cache::registry::{with_policy, PolicyVisitor};
use wafer_cache::{
    run_policy, Access, Input, IoSink, Policy, PolicySpec, PreparedTrace, SimConfig, POLICIES,
};
use wafer_trace::{Granularity, Op, Request, RequestReader, TraceMeta};

/// Events of one access.
#[derive(Default)]
struct Events {
    wb: Vec<u32>,
    clean: Vec<u32>,
    pad_r: Vec<u64>,
    pad_w: Vec<u64>,
    any: usize,
}

impl IoSink for Events {
    fn key(&self, p: u32) -> u64 {
        u64::from(p)
    }
    fn write_back(&mut self, p: u32) {
        self.wb.push(p);
        self.any += 1;
    }
    fn drop_clean(&mut self, p: u32) {
        self.clean.push(p);
        self.any += 1;
    }
    fn pad_read(&mut self, p: u64) {
        self.pad_r.push(p);
        self.any += 1;
    }
    fn pad_write(&mut self, p: u64) {
        self.pad_w.push(p);
        self.any += 1;
    }
    fn begin_group(&mut self) {}
    fn end_group(&mut self) {}
}

/// What a direct run observed.
#[derive(Debug, Default)]
struct Observed {
    hits: u64,
    write_backs: u64,
    absorbed: u64,
    dirty_at_end: u64,
    /// Keys (= page numbers here) of the write-backs, in order.
    wb_keys: Vec<u64>,
    /// (access index, key) of the read misses, in order.
    read_misses: Vec<(u64, u64)>,
    /// `None` when the policy rejected the capacity.
    ran: bool,
}

struct Drive<'a> {
    trace: &'a [(Op, u32)],
    cap: u32,
    ppb: u32,
}

impl PolicyVisitor for Drive<'_> {
    type Output = Result<Observed, String>;

    fn visit<P: Policy>(self, params: P::Params) -> Self::Output {
        let universe = self.trace.iter().map(|a| a.1 + 1).max().unwrap_or(0);
        let ctx = SimConfig {
            capacity_pages: self.cap,
            pages_per_block: std::num::NonZeroU32::new(self.ppb).unwrap(),
            ..SimConfig::default()
        }
        .policy_ctx(universe);
        let Ok(mut p) = P::new(self.cap, &params, &ctx) else {
            return Ok(Observed::default());
        };
        p.reserve(universe, universe / self.ppb + 1);
        let mut next = vec![u64::MAX; self.trace.len()];
        let mut last = vec![u64::MAX; universe as usize];
        for (i, &(_, pg)) in self.trace.iter().enumerate().rev() {
            next[i] = last[pg as usize];
            last[pg as usize] = i as u64;
        }
        let mut dirty = vec![false; universe as usize];
        let mut seen = vec![false; universe as usize];
        let mut o = Observed {
            ran: true,
            ..Observed::default()
        };
        for (i, &(op, page)) in self.trace.iter().enumerate() {
            let a = Access {
                page,
                block: page / self.ppb,
                key: if P::NEEDS_KEY {
                    u64::from(page)
                } else {
                    wafer_cache::policy::NO_KEY
                },
                op,
                index: i as u64,
                next_use: if P::NEEDS_NEXT_USE { next[i] } else { u64::MAX },
            };
            let was_dirty = dirty[page as usize];
            let mut ev = Events::default();
            let hit = p.access(&a, &mut ev);
            let at = format!("{} access {i} ({op:?} {page})", P::NAME);
            if p.len() > p.capacity() {
                return Err(format!(
                    "{at}: {} resident > capacity {}",
                    p.len(),
                    p.capacity()
                ));
            }
            if hit && !seen[page as usize] {
                return Err(format!("{at}: hit on a first access"));
            }
            if was_dirty && !hit {
                return Err(format!("{at}: a dirty page was dropped without write-back"));
            }
            if hit && op == Op::Read && ev.any > 0 {
                return Err(format!("{at}: a read hit emitted I/O"));
            }
            for &w in &ev.wb {
                if !dirty[w as usize] {
                    return Err(format!("{at}: write-back of clean page {w}"));
                }
                dirty[w as usize] = false;
                o.write_backs += 1;
                o.wb_keys.push(u64::from(w));
            }
            if !hit && op == Op::Read {
                o.read_misses.push((i as u64, u64::from(page)));
            }
            // Keys equal page numbers here; a padded key may lie beyond the universe.
            let clean = ev.clean.iter().map(|&c| u64::from(c));
            for c in clean.chain(ev.pad_w.iter().copied()) {
                if dirty.get(c as usize).copied().unwrap_or(false) {
                    return Err(format!("{at}: dirty page {c} dropped or padded as clean"));
                }
            }
            seen[page as usize] = true;
            o.hits += u64::from(hit);
            if op == Op::Write {
                if was_dirty {
                    o.absorbed += 1;
                }
                dirty[page as usize] = true;
            }
        }
        let mut d = Vec::new();
        p.dirty_pages(&mut d);
        let got: HashSet<u32> = d.iter().copied().collect();
        let want: HashSet<u32> = (0..universe).filter(|&x| dirty[x as usize]).collect();
        if got.len() != d.len() || got != want {
            return Err(format!("{}: dirty at end {d:?}, model {want:?}", P::NAME));
        }
        o.dirty_at_end = d.len() as u64;
        Ok(o)
    }
}

fn trace_strategy() -> impl Strategy<Value = Vec<(Op, u32)>> {
    prop::collection::vec(
        (prop::bool::weighted(0.4), 0u32..40)
            .prop_map(|(w, p)| (if w { Op::Write } else { Op::Read }, p)),
        1..250,
    )
}

/// Requests in memory, served in batches of 1, 2, ..., 7, 1, ... requests, so that a
/// streamed run crosses many batch boundaries (pages first seen, reserved and
/// prefetched in one batch and used in the next).
struct MemReader {
    reqs: Vec<Request>,
    pos: usize,
    meta: TraceMeta,
}

impl RequestReader for MemReader {
    fn read_batch(&mut self, out: &mut Vec<Request>) -> wafer_trace::Result<bool> {
        out.clear();
        let n = 1 + (self.pos * 5 + 3) % 7;
        let end = (self.pos + n).min(self.reqs.len());
        out.extend_from_slice(&self.reqs[self.pos..end]);
        self.pos = end;
        Ok(!out.is_empty())
    }

    fn meta(&self) -> &TraceMeta {
        &self.meta
    }
}

/// The engine's metrics and after-cache trace, from a prepared trace (`stream`
/// false) or a streamed one.
fn engine_run(
    spec: &PolicySpec,
    trace: &[(Op, u32)],
    cap: u32,
    ppb: u32,
    stream: bool,
) -> (wafer_cache::Metrics, VecSink) {
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
    let cfg = SimConfig {
        granularity: Granularity::default(),
        capacity_pages: cap,
        pages_per_block: std::num::NonZeroU32::new(ppb).unwrap(),
        ..SimConfig::default()
    };
    let mut sink = VecSink::default();
    let m = if stream {
        let mut r = MemReader {
            reqs,
            pos: 0,
            meta: TraceMeta::default(),
        };
        run_policy(spec, Input::Stream(&mut r), &cfg, &mut sink, &mut |_| {})
    } else {
        let t = PreparedTrace::from_requests(cfg.granularity, &reqs).unwrap();
        run_policy(spec, Input::Prepared(&t), &cfg, &mut sink, &mut |_| {})
    };
    (m.unwrap(), sink)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn every_policy_keeps_the_invariants(
        trace in trace_strategy(),
        cap in 1u32..24,
        ppb in prop::sample::select(vec![1u32, 2, 4, 8]),
    ) {
        let universe: HashSet<u32> = trace.iter().map(|a| a.1).collect();
        let writes = trace.iter().filter(|a| a.0 == Op::Write).count() as u64;
        let mut opt_hits = None;
        let mut others = Vec::new();
        for info in POLICIES {
            let spec = PolicySpec::parse(info.name).unwrap();
            let o = with_policy(&spec, Drive { trace: &trace, cap, ppb }).unwrap();
            let o = match o {
                Ok(o) => o,
                Err(e) => return Err(TestCaseError::fail(e)),
            };
            if !o.ran {
                continue;
            }
            prop_assert_eq!(
                writes,
                o.write_backs + o.dirty_at_end + o.absorbed,
                "{}: conservation", info.name
            );
            if cap as usize >= universe.len() && !info.block_aware {
                prop_assert_eq!(
                    trace.len() as u64 - o.hits,
                    universe.len() as u64,
                    "{}: more than cold misses with capacity >= universe", info.name
                );
            }
            // The engine, with the page numbers densified, agrees with the direct run,
            // and its after-cache trace names the original keys.
            for stream in [false, true] {
                let (m, sink) = engine_run(&spec, &trace, cap, ppb, stream);
                let how = if stream { "streamed" } else { "prepared" };
                prop_assert_eq!(m.hits + m.misses, m.accesses);
                prop_assert_eq!(m.accesses, trace.len() as u64);
                prop_assert_eq!(m.hits, o.hits, "{} {}: engine hits", info.name, how);
                prop_assert_eq!(m.page_writes, o.write_backs, "{} {}: engine write-backs", info.name, how);
                prop_assert_eq!(m.dirty_at_end, o.dirty_at_end, "{} {}: engine dirty at end", info.name, how);
                let wb: Vec<u64> = sink.ops.iter().filter(|x| x.kind == IoKind::WriteBack).map(|x| x.key).collect();
                prop_assert_eq!(&wb, &o.wb_keys, "{} {}: write-back keys", info.name, how);
                let rm: Vec<(u64, u64)> = sink.ops.iter().filter(|x| x.kind == IoKind::Miss).map(|x| (x.access, x.key)).collect();
                prop_assert_eq!(&rm, &o.read_misses, "{} {}: miss reads", info.name, how);
                // A sink that takes the time gets each miss at its request's time
                // (request i is at i ns, one page each), prepared or streamed.
                prop_assert!(
                    sink.ops.iter().filter(|x| x.kind == IoKind::Miss).all(|x| x.time_ns == x.access),
                    "{} {}: miss times", info.name, how
                );
            }
            if info.offline {
                opt_hits = Some(o.hits);
            } else if !info.bypasses_reads {
                // A write buffer that bypasses reads is no demand-paging cache, so
                // MIN does not bound its hits (`Policy::BYPASSES_READS`).
                others.push((info.name, o.hits));
            }
        }
        let opt = opt_hits.expect("opt is registered");
        for (name, h) in others {
            prop_assert!(opt >= h, "opt {} hits < {} {} hits", opt, name, h);
        }
    }
}
