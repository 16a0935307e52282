//! Test support: drive a policy directly with the access notation of the
//! hand-worked vectors (`R1 W2 ...`: read / write of page 1 / 2) and record what it
//! reports.
//!
//! This bypasses the engine (no densifying: the page number *is* the dense id and the
//! key), so unit vectors read exactly like their hand-worked derivations.

use crate::policy::{Access, IoSink, Policy, PolicyCtx};
use wafer_trace::Op;

/// One reported event, in the hand-worked vectors' vocabulary (`WB x`, `ev x`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ev {
    /// `WB x`: page x written back.
    Wb(u32),
    /// `ev x`: clean page x dropped.
    Ev(u32),
    /// Padding read of page (key) x.
    PadRd(u64),
    /// Padding write of page (key) x.
    PadWr(u64),
    /// Start of an eviction group.
    Begin,
    /// End of an eviction group.
    End,
}

/// An [`IoSink`] that records every event.
#[derive(Default, Debug)]
pub struct Recorder {
    /// Events in order.
    pub events: Vec<Ev>,
}

impl IoSink for Recorder {
    /// Page numbers are dense ids and keys here.
    fn key(&self, page: u32) -> u64 {
        u64::from(page)
    }
    fn write_back(&mut self, page: u32) {
        self.events.push(Ev::Wb(page));
    }
    fn drop_clean(&mut self, page: u32) {
        self.events.push(Ev::Ev(page));
    }
    fn pad_read(&mut self, key: u64) {
        self.events.push(Ev::PadRd(key));
    }
    fn pad_write(&mut self, key: u64) {
        self.events.push(Ev::PadWr(key));
    }
    fn begin_group(&mut self) {
        self.events.push(Ev::Begin);
    }
    fn end_group(&mut self) {
        self.events.push(Ev::End);
    }
}

/// Parse `"R1 W2 R3"` into (op, page) pairs.
pub fn parse(trace: &str) -> Vec<(Op, u32)> {
    trace
        .split_whitespace()
        .map(|t| {
            let (op, n) = t.split_at(1);
            let op = match op {
                "R" => Op::Read,
                "W" => Op::Write,
                _ => panic!("bad token {t}"),
            };
            (op, n.parse().expect("page number"))
        })
        .collect()
}

/// The outcome of driving a policy through a vector.
#[derive(Debug)]
pub struct Outcome<P> {
    /// The policy after the last access.
    pub policy: P,
    /// Hit (true) or miss per access.
    pub hits: Vec<bool>,
    /// Events reported, per access.
    pub events: Vec<Vec<Ev>>,
}

impl<P> Outcome<P> {
    /// Number of hits.
    pub fn hit_count(&self) -> usize {
        self.hits.iter().filter(|&&h| h).count()
    }

    /// Pages dropped (written back or clean), in order, ignoring group markers and
    /// padding.
    pub fn evictions(&self) -> Vec<u32> {
        self.events
            .iter()
            .flatten()
            .filter_map(|e| match *e {
                Ev::Wb(p) | Ev::Ev(p) => Some(p),
                _ => None,
            })
            .collect()
    }

    /// Pages written back, in order.
    pub fn write_backs(&self) -> Vec<u32> {
        self.events
            .iter()
            .flatten()
            .filter_map(|e| match *e {
                Ev::Wb(p) => Some(p),
                _ => None,
            })
            .collect()
    }
}

/// Run `trace` through a new `P` of `capacity` pages with `params`, pages per block
/// `ppb`. Page numbers are used as dense page ids and keys; block = page / ppb.
/// `next_use` is filled in for offline policies.
pub fn run<P: Policy>(capacity: u32, params: &P::Params, ppb: u32, trace: &str) -> Outcome<P> {
    let ctx = PolicyCtx {
        pages_per_block: std::num::NonZeroU32::new(ppb).unwrap(),
        ..PolicyCtx::default()
    };
    run_ctx(capacity, params, &ctx, trace)
}

/// [`run`] with a full [`PolicyCtx`].
pub fn run_ctx<P: Policy>(
    capacity: u32,
    params: &P::Params,
    ctx: &PolicyCtx,
    trace: &str,
) -> Outcome<P> {
    let accesses = parse(trace);
    let mut policy = P::new(capacity, params, ctx).expect("valid params");
    let max_page = accesses.iter().map(|a| a.1).max().unwrap_or(0);
    let ppb = ctx.pages_per_block.get();
    policy.reserve(max_page + 1, max_page / ppb + 1);
    let mut next_use = vec![u64::MAX; accesses.len()];
    let mut last = std::collections::HashMap::new();
    for (i, &(_, p)) in accesses.iter().enumerate().rev() {
        if let Some(&n) = last.get(&p) {
            next_use[i] = n;
        }
        last.insert(p, i as u64);
    }
    let mut hits = Vec::new();
    let mut events = Vec::new();
    for (i, &(op, page)) in accesses.iter().enumerate() {
        let mut rec = Recorder::default();
        let a = Access {
            page,
            block: page / ppb,
            key: if P::NEEDS_KEY {
                u64::from(page)
            } else {
                crate::policy::NO_KEY
            },
            op,
            index: i as u64,
            next_use: if P::NEEDS_NEXT_USE {
                next_use[i]
            } else {
                u64::MAX
            },
        };
        hits.push(policy.access(&a, &mut rec));
        assert!(
            policy.len() <= policy.capacity(),
            "over capacity after access {i}"
        );
        events.push(rec.events);
    }
    Outcome {
        policy,
        hits,
        events,
    }
}

/// Requests of one 4 KiB page each from `"R1 W2 ..."`, request `i` at time `i` µs.
pub fn requests(trace: &str) -> Vec<wafer_trace::Request> {
    parse(trace)
        .into_iter()
        .enumerate()
        .map(|(i, (op, page))| wafer_trace::Request {
            time_ns: i as u64 * 1000,
            offset: u64::from(page) * 4096,
            len: 4096,
            dev: 0,
            op,
        })
        .collect()
}

/// A [`wafer_trace::RequestReader`] over requests in memory, in batches of `batch`.
pub struct VecReader {
    reqs: Vec<wafer_trace::Request>,
    pos: usize,
    batch: usize,
    meta: wafer_trace::TraceMeta,
}

impl VecReader {
    /// A reader returning `reqs` in batches of `batch` (at least 1).
    pub fn new(reqs: Vec<wafer_trace::Request>, batch: usize) -> Self {
        VecReader {
            reqs,
            pos: 0,
            batch: batch.max(1),
            meta: wafer_trace::TraceMeta::default(),
        }
    }
}

impl wafer_trace::RequestReader for VecReader {
    fn read_batch(&mut self, out: &mut Vec<wafer_trace::Request>) -> wafer_trace::Result<bool> {
        out.clear();
        let end = (self.pos + self.batch).min(self.reqs.len());
        out.extend_from_slice(&self.reqs[self.pos..end]);
        self.pos = end;
        Ok(!out.is_empty())
    }

    fn meta(&self) -> &wafer_trace::TraceMeta {
        &self.meta
    }
}

/// A long skewed op sequence for differential tests: `(kind, page)` with kind 0-2 an
/// access (the caller maps kinds to reads and writes) and 3 a trim with probability
/// `trim_p`; 70 % of the pages come from a hot set `0..hot`, the rest from a scan
/// cycling over `1000..=scan_end`. Deterministic in `seed`.
#[cfg(test)]
pub fn skewed_ops(seed: u64, len: usize, trim_p: f64, hot: u32, scan_end: u32) -> Vec<(u8, u32)> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut scan = 1000u32;
    (0..len)
        .map(|_| {
            let kind = if rng.gen_bool(trim_p) {
                3
            } else {
                rng.gen_range(0..3u8)
            };
            let page = if rng.gen_bool(0.7) {
                rng.gen_range(0..hot)
            } else {
                scan = if scan >= scan_end { 1000 } else { scan + 1 };
                scan
            };
            (kind, page)
        })
        .collect()
}
