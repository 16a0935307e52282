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
    match req.page_range(map.page_size()) {
        Some(pages) => apply_pages(ftl, req, pages, map, stats),
        None => Ok(()),
    }
}

/// [`apply`] for a request of trace pages `first..=last`.
#[inline]
fn apply_pages<F: Ftl>(
    ftl: &mut F,
    req: &Request,
    (first, last): (u64, u64),
    map: &mut Mapper,
    stats: &mut ReplayStats,
) -> Result<(), FtlError> {
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

/// [`Request::page_range`] by a shift and a mask when the page size is a power of two
/// (every built-in device), computed once per request: the replay used to divide twice
/// per request for its prefetch hints and twice again to apply it, which with the rest
/// of `apply` was a tenth of a page-level replay's samples (BENCHMARKS.md, "FTL").
#[derive(Clone, Copy)]
struct PageRange {
    size: u64,
    /// `log2(size)`, or `None` for other sizes (divided as `Request::page_range` does).
    shift: Option<u32>,
}

impl PageRange {
    fn new(size: u64) -> PageRange {
        PageRange {
            size,
            shift: size.is_power_of_two().then(|| size.trailing_zeros()),
        }
    }

    #[inline]
    fn of(self, r: &Request) -> Option<(u64, u64)> {
        let Some(s) = self.shift else {
            return r.page_range(self.size);
        };
        if r.len == 0 {
            return None;
        }
        let first = r.offset >> s;
        Some((
            first,
            first + (((r.offset & (self.size - 1)) + u64::from(r.len) - 1) >> s),
        ))
    }
}

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
    let mut ranges = [None; AHEAD];
    let mut seen = 0u64;
    let ps = map.page_size();
    let pages = PageRange::new(ps);
    while reader.read_batch(&mut batch)? {
        for (c, chunk) in batch.chunks(AHEAD).enumerate() {
            hints.clear();
            for (req, range) in chunk.iter().zip(ranges.iter_mut()) {
                *range = pages.of(req);
                if let Some(p) = range.and_then(|(a, _)| map.peek(a)) {
                    hints.push(p);
                }
            }
            ftl.prefetch(&hints);
            for (i, (req, range)) in chunk.iter().zip(ranges.iter().copied()).enumerate() {
                seen += 1;
                let Some(range) = range else {
                    continue;
                };
                let Err(e) = apply_pages(ftl, req, range, map, &mut stats) else {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_range_by_shift_equals_division() {
        let offsets = [
            0,
            1,
            4095,
            4096,
            8191,
            1 << 40,
            (1 << 53) - 1,
            u64::MAX - 4096,
        ];
        let lens = [0, 1, 2, 511, 4096, 4097, 1 << 20, u32::MAX];
        for ps in [512, 4096, 1 << 20, 3000, 1] {
            let pages = PageRange::new(ps);
            assert_eq!(pages.shift.is_some(), ps != 3000);
            for &offset in &offsets {
                for &len in &lens {
                    if offset.checked_add(u64::from(len)).is_none() {
                        continue;
                    }
                    let r = Request {
                        offset,
                        len,
                        ..Request::default()
                    };
                    assert_eq!(pages.of(&r), r.page_range(ps), "{offset} {len} {ps}");
                }
            }
        }
    }
}
