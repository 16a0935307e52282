//! Replaying trace requests on an FTL.
//!
//! A request covers pages `offset / page_size ..= (offset + len - 1) / page_size` of the
//! device; zero-length requests touch nothing. The request's `dev` field is ignored:
//! all volumes of a multi-volume trace share the one simulated device. Pages beyond the
//! logical capacity are refused ([`crate::FtlError::OutOfRange`]) unless `wrap` maps
//! every page to `page mod logical_pages` (a wrapped range is split where it crosses
//! the end of the device).

use crate::error::FtlError;
use crate::ftl::Ftl;
use serde::Serialize;
use wafer_trace::{Op, Request, RequestReader, NO_TIME};

/// How addresses map onto the device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReplayOptions {
    /// Map logical pages modulo the capacity instead of refusing them.
    pub wrap: bool,
}

/// What a replay saw.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ReplayStats {
    /// Requests applied.
    pub requests: u64,
    /// Requests with at least one page beyond the capacity (wrapped).
    pub wrapped_requests: u64,
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

/// Apply one request.
pub fn apply<F: Ftl>(
    ftl: &mut F,
    req: &Request,
    opts: ReplayOptions,
    stats: &mut ReplayStats,
) -> Result<(), FtlError> {
    let g = ftl.geometry();
    let (lp, ps) = (g.logical_pages, u64::from(g.page_size));
    let Some((first, last)) = req.page_range(ps) else {
        return Ok(());
    };
    stats.requests += 1;
    if req.time_ns != NO_TIME {
        stats.first_ns = Some(stats.first_ns.map_or(req.time_ns, |t| t.min(req.time_ns)));
        stats.last_ns = Some(stats.last_ns.map_or(req.time_ns, |t| t.max(req.time_ns)));
    }
    let n = last - first + 1;
    if last < lp {
        return op_range(ftl, req.op, first, n);
    }
    if !opts.wrap {
        return Err(FtlError::OutOfRange {
            lpn: first.max(lp),
            logical_pages: lp,
        });
    }
    stats.wrapped_requests += 1;
    let (mut p, mut left) = (first % lp, n);
    while left > 0 {
        let k = left.min(lp - p);
        op_range(ftl, req.op, p, k)?;
        left -= k;
        p = 0;
    }
    Ok(())
}

/// Requests whose mapping entries are prefetched together ([`Ftl::prefetch`]).
const AHEAD: usize = 64;

/// Replay a whole trace; `progress` is called after each batch with the requests done.
pub fn replay<F: Ftl>(
    ftl: &mut F,
    reader: &mut dyn RequestReader,
    opts: ReplayOptions,
    mut progress: impl FnMut(u64),
) -> Result<ReplayStats, FtlError> {
    let mut stats = ReplayStats::default();
    let mut batch = Vec::with_capacity(wafer_trace::reader::BATCH);
    let mut hints = Vec::with_capacity(AHEAD);
    let mut seen = 0u64;
    let (lp, ps) = {
        let g = ftl.geometry();
        (g.logical_pages, u64::from(g.page_size))
    };
    while reader.read_batch(&mut batch)? {
        for chunk in batch.chunks(AHEAD) {
            hints.clear();
            hints.extend(chunk.iter().filter_map(|r| r.page_range(ps)).map(|(a, _)| {
                if opts.wrap {
                    a % lp
                } else {
                    a
                }
            }));
            ftl.prefetch(&hints);
            for req in chunk {
                seen += 1;
                apply(ftl, req, opts, &mut stats).map_err(|e| match e {
                    FtlError::OutOfRange { .. } => FtlError::Config(format!(
                        "{}: request {seen} (offset {} bytes): {e}",
                        reader.meta().path.display(),
                        req.offset
                    )),
                    other => other,
                })?;
            }
        }
        progress(seen);
    }
    Ok(stats)
}
