//! Replaying trace requests on an FTL.
//!
//! A request covers pages `offset / page_size ..= (offset + len - 1) / page_size` of the
//! trace; zero-length requests touch nothing. The request's `dev` field is ignored:
//! all volumes of a multi-volume trace share the one simulated device. A [`Mapper`]
//! places the trace's pages on the device's (refuse, compact or wrap;
//! [`crate::address_map`]) and says which requests it moved.

use crate::address_map::Mapper;
use crate::error::FtlError;
use crate::ftl::Ftl;
use serde::Serialize;
use wafer_trace::{Op, Request, RequestReader, NO_TIME};

/// What a replay saw.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReplayStats {
    /// Requests applied.
    pub requests: u64,
    /// Requests the address map moved (wrapped or placed elsewhere).
    pub remapped_requests: u64,
    /// Earliest timestamp, ns (None if the trace has no times).
    pub first_ns: Option<u64>,
    /// Latest timestamp, ns.
    pub last_ns: Option<u64>,
}

impl ReplayStats {
    /// Time span of the replayed requests in seconds (0 without timestamps).
    pub fn span_s(&self) -> f64 {
        match (self.first_ns, self.last_ns) {
            (Some(a), Some(b)) if b > a => (b - a) as f64 * 1e-9,
            _ => 0.0,
        }
    }
}

#[inline]
fn op_range<F: Ftl>(ftl: &mut F, op: Op, lpn: u64, n: u64) -> Result<(), FtlError> {
    match op {
        Op::Read => ftl.read(lpn, n),
        Op::Write => ftl.write(lpn, n),
        Op::Trim => ftl.trim(lpn, n),
    }
}

/// Apply one request at the address `map` gives it.
#[inline]
pub fn apply<F: Ftl>(
    ftl: &mut F,
    req: &Request,
    map: &mut Mapper,
    stats: &mut ReplayStats,
) -> Result<(), FtlError> {
    let Some((first, last)) = req.page_range(map.page_size()) else {
        return Ok(());
    };
    stats.requests += 1;
    if req.time_ns != NO_TIME {
        stats.first_ns = Some(stats.first_ns.map_or(req.time_ns, |t| t.min(req.time_ns)));
        stats.last_ns = Some(stats.last_ns.map_or(req.time_ns, |t| t.max(req.time_ns)));
    }
    let moved = map.map(first, last, |_, p, n| op_range(ftl, req.op, p, n))?;
    stats.remapped_requests += u64::from(moved);
    Ok(())
}

/// Requests whose mapping entries are prefetched together ([`Ftl::prefetch`]).
const AHEAD: usize = 64;

/// Replay a whole trace through `map`; `progress` is called after each batch with the
/// requests done. When a compact map runs out of erase blocks, the rest of the trace
/// is read (nothing applied) so the error says how many blocks it needs.
pub fn replay<F: Ftl>(
    ftl: &mut F,
    reader: &mut dyn RequestReader,
    map: &mut Mapper,
    mut progress: impl FnMut(u64),
) -> Result<ReplayStats, FtlError> {
    let mut stats = ReplayStats::default();
    let mut batch = Vec::with_capacity(wafer_trace::reader::BATCH);
    let mut hints = Vec::with_capacity(AHEAD);
    let mut seen = 0u64;
    let ps = map.page_size();
    while reader.read_batch(&mut batch)? {
        for (c, chunk) in batch.chunks(AHEAD).enumerate() {
            hints.clear();
            hints.extend(
                chunk
                    .iter()
                    .filter_map(|r| r.page_range(ps))
                    .filter_map(|(a, _)| map.peek(a)),
            );
            ftl.prefetch(&hints);
            for (i, req) in chunk.iter().enumerate() {
                seen += 1;
                let Err(e) = apply(ftl, req, map, &mut stats) else {
                    continue;
                };
                let offset = req.offset;
                let e = match e {
                    FtlError::OutOfRange { .. } => e,
                    FtlError::TooManyBlocks { .. } => {
                        note(map, &batch[c * AHEAD + i..], ps);
                        let mut rest = Vec::new();
                        while reader.read_batch(&mut rest)? {
                            note(map, &rest, ps);
                        }
                        map.too_many_blocks()
                    }
                    other => return Err(other),
                };
                return Err(FtlError::Config(format!(
                    "{}: request {seen} (offset {offset} bytes): {e}",
                    reader.meta().path.display()
                )));
            }
        }
        progress(seen);
    }
    Ok(stats)
}

/// Count the erase blocks of `reqs` without applying them ([`Mapper::note`]).
fn note(map: &mut Mapper, reqs: &[Request], ps: u64) {
    for r in reqs {
        if let Some((a, b)) = r.page_range(ps) {
            map.note(a, b);
        }
    }
}
