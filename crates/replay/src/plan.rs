//! From trace addresses to target addresses.
//!
//! A first pass over the trace ([`scan`]) finds what the replay will touch. Requests
//! are then mapped page-wise, following the page semantics of `docs/cache.md` ("Engine
//! semantics"): a request `(offset, len)` covers pages
//! `offset/ps ..= (offset+len-1)/ps` and is replayed as whole pages, so every I/O is
//! aligned for O_DIRECT and every written page can carry the pattern of
//! [`crate::pattern`].
//!
//! Devices of a multi-device trace are laid out one after the other in ascending device
//! number, each taking as many pages as its highest page + 1 ([`Layout`]). The *range*
//! the replay announces is `[0, span)` of that layout, or, with `--wrap` and a target
//! smaller than the span, `[0, target pages)`, page `p` going to `p mod target pages`.
//! Nothing is ever written outside the announced range (checked per I/O by the player).
//!
//! Addresses come from files, generators and library callers, so none is trusted: every
//! step from a byte offset to a page, an end or a layout position is checked arithmetic,
//! and a request whose whole pages would end beyond [`MAX_END`] is an
//! [`Error::Unaddressable`] naming the request, before anything is allocated or issued.

use crate::error::{Error, Result};
use rustc_hash::FxHashMap;
use serde::Serialize;
use wafer_trace::{Op, Request, RequestReader, NO_TIME};

/// I/Os are at most this many bytes; longer requests are split (each piece keeps the
/// order of the request).
pub const MAX_IO_BYTES: u64 = 4 << 20;

/// Largest end (exclusive) of anything the player addresses, trace addresses and the
/// devices laid end to end included: file offsets are signed 64-bit (`off_t`) and the
/// kernel refuses an I/O whose end does not fit in one. Keeping every address below it
/// also keeps every sum of an offset and a length inside `u64`.
pub const MAX_END: u64 = i64::MAX as u64;

/// The pages `first..=last` (of `ps` bytes) that request `r` covers, `None` for a
/// zero-length request; `Err` says why its pages cannot be addressed (the caller names
/// the request). Used instead of `Request::page_range`, whose sum can overflow.
pub fn pages_of(r: &Request, ps: u64) -> Result<Option<(u64, u64)>, String> {
    if r.len == 0 {
        return Ok(None);
    }
    if ps == 0 {
        return Err("page size 0".into());
    }
    let end = r.offset.checked_add(u64::from(r.len));
    let first = r.offset / ps;
    // end >= 1 because len > 0.
    let last = end.map(|e| (e - 1) / ps);
    let page_end = last.and_then(|l| l.checked_add(1)?.checked_mul(ps));
    let place = match (end, page_end) {
        (Some(_), Some(pe)) if pe <= MAX_END => {
            return Ok(Some((first, last.unwrap_or(first))));
        }
        (None, _) => "ends at or beyond byte 2^64".to_string(),
        (Some(e), None) => {
            format!(
                "ends at byte {e}, at or beyond byte 2^64 once rounded up to whole pages of \
                 {ps} B"
            )
        }
        (Some(e), Some(pe)) if e == pe => format!("ends at byte {e}"),
        (Some(e), Some(pe)) => {
            format!("ends at byte {e}, {pe} once rounded up to whole pages of {ps} B")
        }
    };
    Err(format!(
        "{} of {} bytes at offset {} (device {}) {place}; expected requests that end by \
         byte {MAX_END} (2^63 - 1, the largest file offset)",
        op_name(r.op),
        r.len,
        r.offset,
        r.dev
    ))
}

fn op_name(op: Op) -> &'static str {
    match op {
        Op::Read => "read",
        Op::Write => "write",
        Op::Trim => "trim",
    }
}

/// The error for request number `n` (1-based) of the trace at `trace` (may be empty
/// for requests that do not come from a file).
pub fn unaddressable(trace: &std::path::Path, n: u64, why: &str) -> Error {
    let at = if trace.as_os_str().is_empty() {
        String::new()
    } else {
        format!("{}: ", trace.display())
    };
    Error::Unaddressable(format!("{at}request {n}: {why}"))
}

/// What the first pass learned about the trace.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Scan {
    /// Requests read.
    pub requests: u64,
    /// Read requests.
    pub reads: u64,
    /// Write requests.
    pub writes: u64,
    /// Trim requests (not replayed: discarding needs an ioctl the player does not issue).
    pub trims: u64,
    /// Zero-length requests (not replayed: they touch no page).
    pub empty: u64,
    /// Pages the reads cover (with repeats).
    pub read_pages: u64,
    /// Pages the writes cover (with repeats).
    pub write_pages: u64,
    /// Whether any request has a timestamp.
    pub has_time: bool,
    /// Time of the first timestamped request, ns.
    pub first_time_ns: Option<u64>,
    /// Time of the last timestamped request, ns.
    pub last_time_ns: Option<u64>,
    /// Pages per device, `(dev, highest page + 1)`, ascending by device.
    pub devs: Vec<(u32, u64)>,
    /// Most pages one request covers.
    pub max_request_pages: u64,
    /// Longest wait `--timing trace` would make before a request, in trace time (ns):
    /// how far its timestamp lies beyond every earlier replayed one.
    pub max_gap_ns: u64,
    /// The request (1-based) after that wait; 0 when no request waits.
    pub max_gap_request: u64,
}

/// Read the whole trace once, calling `progress(requests so far)` now and then. A read
/// or write whose pages end beyond [`MAX_END`] is an [`Error::Unaddressable`] naming it
/// (trims are not replayed, so their addresses are not checked).
pub fn scan(
    reader: &mut dyn RequestReader,
    page_size: u32,
    progress: &mut dyn FnMut(u64),
) -> Result<Scan> {
    let ps = u64::from(page_size);
    let mut s = Scan::default();
    let mut spans: FxHashMap<u32, u64> = FxHashMap::default();
    // The player's schedule (crate::player): a replayed request without a timestamp
    // keeps the last one; the first replayed request is time 0.
    let mut last_t = 0u64;
    let mut origin: Option<u64> = None;
    let mut latest_due = 0u64;
    let mut batch = Vec::new();
    while reader.read_batch(&mut batch)? {
        for r in &batch {
            s.requests += 1;
            if r.time_ns != NO_TIME {
                s.has_time = true;
                s.first_time_ns.get_or_insert(r.time_ns);
                s.last_time_ns = Some(r.time_ns);
            }
            if r.len == 0 {
                s.empty += 1;
                continue;
            }
            if r.op == Op::Trim {
                s.trims += 1;
                continue;
            }
            let (first, last) = match pages_of(r, ps) {
                Ok(Some(p)) => p,
                Ok(None) => continue,
                Err(why) => return Err(unaddressable(&reader.meta().path, s.requests, &why)),
            };
            // last < MAX_END / ps, so neither this nor `last + 1` overflows.
            let pages = last - first + 1;
            if r.op == Op::Write {
                s.writes += 1;
                s.write_pages = s.write_pages.saturating_add(pages);
            } else {
                s.reads += 1;
                s.read_pages = s.read_pages.saturating_add(pages);
            }
            s.max_request_pages = s.max_request_pages.max(pages);
            if r.time_ns != NO_TIME {
                last_t = r.time_ns;
            }
            let due = last_t.saturating_sub(*origin.get_or_insert(last_t));
            let gap = due.saturating_sub(latest_due);
            if gap > s.max_gap_ns {
                s.max_gap_ns = gap;
                s.max_gap_request = s.requests;
            }
            latest_due = latest_due.max(due);
            let e = spans.entry(r.dev).or_insert(0);
            *e = (*e).max(last + 1);
        }
        progress(s.requests);
    }
    s.devs = spans.into_iter().collect();
    s.devs.sort_unstable();
    Ok(s)
}

/// Where one device of the trace sits in the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DevSlot {
    /// Device number in the trace.
    pub dev: u32,
    /// First byte of its pages in the target (before wrapping).
    pub base: u64,
    /// Bytes it takes.
    pub bytes: u64,
}

/// The devices of a trace laid out one after the other.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Layout {
    /// Page size in bytes.
    pub page_size: u32,
    /// One slot per device, ascending.
    pub devs: Vec<DevSlot>,
    /// Total pages of the layout.
    pub span_pages: u64,
}

impl Layout {
    /// Lay out the devices found by [`scan`]. Devices that each fit may still not fit
    /// end to end: a layout that would end beyond [`MAX_END`] is an
    /// [`Error::Unaddressable`] naming the first device that does not fit.
    pub fn new(scan: &Scan, page_size: u32) -> Result<Layout> {
        let ps = u64::from(page_size);
        if ps == 0 {
            return Err(Error::Invalid("page size 0".into()));
        }
        let max_pages = MAX_END / ps;
        let mut base: u64 = 0;
        let mut devs = Vec::with_capacity(scan.devs.len());
        for &(dev, pages) in &scan.devs {
            let end = base.checked_add(pages).filter(|&e| e <= max_pages);
            let Some(end) = end else {
                return Err(Error::Unaddressable(format!(
                    "device {dev} ({pages} pages of {ps} B) laid after the {} devices \
                     before it, from byte {}, ends beyond byte {MAX_END} (2^63 - 1, the \
                     largest file offset); expected the devices of a trace to span at \
                     most that together",
                    devs.len(),
                    base * ps
                )));
            };
            // base, pages <= end <= MAX_END / ps: the products fit.
            devs.push(DevSlot {
                dev,
                base: base * ps,
                bytes: pages * ps,
            });
            base = end;
        }
        Ok(Layout {
            page_size,
            devs,
            span_pages: base,
        })
    }

    /// Bytes the layout spans (saturating: a layout of [`Layout::new`] spans at most
    /// [`MAX_END`]; [`Mapper::new`] refuses one built otherwise that spans more).
    pub fn span_bytes(&self) -> u64 {
        self.span_pages.saturating_mul(u64::from(self.page_size))
    }

    fn base_page(&self, dev: u32) -> Option<u64> {
        let ps = u64::from(self.page_size);
        if let [only] = self.devs.as_slice() {
            return (only.dev == dev).then_some(only.base / ps);
        }
        self.devs
            .binary_search_by_key(&dev, |s| s.dev)
            .ok()
            .map(|i| self.devs[i].base / ps)
    }
}

/// One I/O in target bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Io {
    /// First byte (page aligned).
    pub offset: u64,
    /// Bytes (whole pages).
    pub len: u64,
    /// Write (else read).
    pub write: bool,
}

/// Maps trace requests to I/Os inside the announced range.
#[derive(Clone, Debug)]
pub struct Mapper {
    layout: Layout,
    ps: u64,
    range_pages: u64,
    max_io_pages: u64,
    wrap: bool,
}

impl Mapper {
    /// A mapper onto a target of `target_bytes`; `wrap` maps pages beyond the target
    /// modulo its page count (the caller has refused a too-small target without it).
    /// The layout's fields are public, so its span is checked again here: one that
    /// ends beyond [`MAX_END`] is an [`Error::Unaddressable`].
    pub fn new(layout: Layout, target_bytes: u64, wrap: bool) -> Result<Mapper> {
        let ps = u64::from(layout.page_size);
        if ps == 0 {
            return Err(Error::Invalid("page size 0".into()));
        }
        if layout.span_pages > MAX_END / ps {
            return Err(Error::Unaddressable(format!(
                "a layout of {} pages of {ps} B ends beyond byte {MAX_END} (2^63 - 1, the \
                 largest file offset)",
                layout.span_pages
            )));
        }
        let target_pages = target_bytes / ps;
        let range_pages = if wrap {
            layout.span_pages.min(target_pages)
        } else {
            layout.span_pages
        };
        Ok(Mapper {
            ps,
            range_pages,
            max_io_pages: (MAX_IO_BYTES / ps).max(1),
            layout,
            wrap,
        })
    }

    /// The announced range is `[0, range_bytes)`.
    pub fn range_bytes(&self) -> u64 {
        // range_pages <= span_pages <= MAX_END / ps (checked in `new`).
        self.range_pages * self.ps
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Largest I/O in bytes.
    pub fn max_io_bytes(&self) -> u64 {
        self.max_io_pages * self.ps
    }

    /// Append the I/Os of `r` to `out` (none for trims and zero-length requests).
    /// Returns whether any page was wrapped. `Err` says why the request cannot be
    /// mapped (the caller names the request): its pages end beyond [`MAX_END`], or, the
    /// trace having changed since the scan, they lie beyond the announced range without
    /// `wrap` or on a device the layout does not hold. Nothing is appended then.
    pub fn map(&self, r: &Request, out: &mut Vec<Io>) -> Result<bool, String> {
        let write = match r.op {
            Op::Read => false,
            Op::Write => true,
            Op::Trim => return Ok(false),
        };
        let Some((first, last)) = pages_of(r, self.ps)? else {
            return Ok(false);
        };
        let Some(base) = self.layout.base_page(r.dev) else {
            return Err(format!(
                "{} of {} bytes at offset {} is on device {}, which the layout does not \
                 hold (the trace changed since it was scanned?)",
                op_name(r.op),
                r.len,
                r.offset,
                r.dev
            ));
        };
        let beyond = || {
            format!(
                "{} of {} bytes at offset {} (device {}) lies beyond the announced range of \
                 {} pages of {} B (the trace changed since it was scanned?)",
                op_name(r.op),
                r.len,
                r.offset,
                r.dev,
                self.range_pages,
                self.ps
            )
        };
        // The last page in the layout; it must exist, and without `wrap` be in range.
        let last_page = base.checked_add(last).ok_or_else(beyond)?;
        if self.range_pages == 0 || (!self.wrap && last_page >= self.range_pages) {
            return Err(beyond());
        }
        let mut page = base + first; // <= last_page
        let mut left = last - first + 1;
        let mut wrapped = false;
        while left > 0 {
            let mut p = page;
            if p >= self.range_pages {
                p %= self.range_pages;
                wrapped = true;
            }
            // p < range_pages, so n >= 1 and p + n <= range_pages: the products
            // below stay within range_bytes.
            let n = left.min(self.range_pages - p).min(self.max_io_pages);
            out.push(Io {
                offset: p * self.ps,
                len: n * self.ps,
                write,
            });
            page += n; // <= last_page + 1
            left -= n;
        }
        Ok(wrapped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(dev: u32, offset: u64, len: u32, op: Op) -> Request {
        Request {
            time_ns: NO_TIME,
            offset,
            len,
            dev,
            op,
        }
    }

    struct VecReader(Vec<Request>, bool, wafer_trace::TraceMeta);
    impl RequestReader for VecReader {
        fn read_batch(&mut self, out: &mut Vec<Request>) -> wafer_trace::Result<bool> {
            out.clear();
            if self.1 {
                return Ok(false);
            }
            self.1 = true;
            out.extend_from_slice(&self.0);
            Ok(true)
        }
        fn meta(&self) -> &wafer_trace::TraceMeta {
            &self.2
        }
    }

    fn scan_of(v: Vec<Request>) -> Scan {
        let mut r = VecReader(v, false, Default::default());
        scan(&mut r, 4096, &mut |_| {}).unwrap()
    }

    /// The longest wait `--timing trace` would make: a corrupt far-future timestamp
    /// is found, with its request, however the timestamps before it run; trims and
    /// empty requests are not replayed, so they set no schedule.
    #[test]
    fn scan_finds_the_longest_wait_of_the_schedule() {
        let at = |t: u64, op: Op, len: u32| Request {
            time_ns: t,
            ..req(0, 0, len, op)
        };
        let s = scan_of(vec![
            at(1_000, Op::Read, 4096),
            at(u64::MAX / 2, Op::Trim, 4096),
            at(3_000, Op::Write, 4096),
            at(2_000, Op::Read, 4096), // back in time: no wait
            at(1 << 60, Op::Write, 4096),
            at(5_000, Op::Read, 0),
            at((1 << 60) + 7, Op::Read, 4096),
        ]);
        assert_eq!((s.max_gap_ns, s.max_gap_request), ((1 << 60) - 3_000, 5));
        let s = scan_of(vec![at(10, Op::Read, 4096), at(10, Op::Read, 4096)]);
        assert_eq!((s.max_gap_ns, s.max_gap_request), (0, 0));
    }

    #[test]
    fn scan_counts_and_spans_devices() {
        let s = scan_of(vec![
            req(0, 512, 4096, Op::Write), // pages 0..=1
            req(3, 40960, 100, Op::Read), // page 10 of dev 3
            req(0, 8192, 0, Op::Read),
            req(0, 1 << 30, 4096, Op::Trim),
        ]);
        assert_eq!(
            (s.requests, s.reads, s.writes, s.trims, s.empty),
            (4, 1, 1, 1, 1)
        );
        assert_eq!(s.devs, vec![(0, 2), (3, 11)]);
        assert_eq!(s.max_request_pages, 2);
        let l = Layout::new(&s, 4096).unwrap();
        assert_eq!(l.span_pages, 13);
        assert_eq!(
            l.devs[1],
            DevSlot {
                dev: 3,
                base: 8192,
                bytes: 11 * 4096
            }
        );
    }

    #[test]
    fn unaligned_requests_become_whole_pages() {
        let s = scan_of(vec![req(0, 0, 4096 * 100, Op::Read)]);
        let m = Mapper::new(Layout::new(&s, 4096).unwrap(), 1 << 30, false).unwrap();
        let mut out = vec![];
        assert!(!m.map(&req(0, 4095, 2, Op::Write), &mut out).unwrap());
        assert_eq!(
            out,
            vec![Io {
                offset: 0,
                len: 8192,
                write: true
            }]
        );
        assert_eq!(m.range_bytes(), 100 * 4096);
    }

    #[test]
    fn wrap_maps_modulo_target_pages_and_splits_at_the_end() {
        let s = scan_of(vec![
            req(0, 0, 4096, Op::Read),
            req(0, 99 * 4096, 4096, Op::Read),
        ]);
        // 100 pages of trace onto a 10-page (plus a partial page) target.
        let m = Mapper::new(Layout::new(&s, 4096).unwrap(), 10 * 4096 + 100, true).unwrap();
        assert_eq!(m.range_bytes(), 10 * 4096);
        let mut out = vec![];
        assert!(m
            .map(&req(0, 23 * 4096, 4 * 4096, Op::Write), &mut out)
            .unwrap());
        assert_eq!(
            out,
            vec![Io {
                offset: 3 * 4096,
                len: 4 * 4096,
                write: true
            }]
        );
        out.clear();
        // pages 8..=12 -> 8, 9 then 0, 1, 2
        assert!(m
            .map(&req(0, 8 * 4096, 5 * 4096, Op::Read), &mut out)
            .unwrap());
        assert_eq!(
            out,
            vec![
                Io {
                    offset: 8 * 4096,
                    len: 2 * 4096,
                    write: false
                },
                Io {
                    offset: 0,
                    len: 3 * 4096,
                    write: false
                }
            ]
        );
    }

    #[test]
    fn long_requests_are_split_into_max_io_pieces() {
        let s = scan_of(vec![req(0, 0, 10 << 20, Op::Write)]);
        let m = Mapper::new(Layout::new(&s, 4096).unwrap(), 1 << 30, false).unwrap();
        let mut out = vec![];
        m.map(&req(0, 0, 10 << 20, Op::Write), &mut out).unwrap();
        let lens: Vec<u64> = out.iter().map(|i| i.len).collect();
        assert_eq!(lens, vec![4 << 20, 4 << 20, 2 << 20]);
        assert_eq!(out[2].offset, 8 << 20);
    }

    fn scan_err(v: Vec<Request>, path: &str) -> String {
        let meta = wafer_trace::TraceMeta {
            path: path.into(),
            ..Default::default()
        };
        let mut r = VecReader(v, false, meta);
        scan(&mut r, 4096, &mut |_| {}).unwrap_err().to_string()
    }

    /// The two inputs of the attack: a page at 2^64 - 4096 (whose end is 2^64) and a
    /// write at 2^64 - 1 both end beyond 2^64; before, the first wrapped to a span of 0
    /// bytes and a pwrite at 2^64 - 4096, the second to billions of I/Os.
    #[test]
    fn requests_ending_beyond_2_64_are_refused_naming_them() {
        let expect = |n: u64, off: u64, op: &str| {
            format!(
                "t.wtr: request {n}: {op} of 4096 bytes at offset {off} (device 0) ends at \
                 or beyond byte 2^64; expected requests that end by byte 9223372036854775807 (2^63 \
                 - 1, the largest file offset)"
            )
        };
        let ok = req(0, 0, 4096, Op::Read);
        assert_eq!(
            scan_err(vec![ok, req(0, u64::MAX, 4096, Op::Write)], "t.wtr"),
            expect(2, u64::MAX, "write")
        );
        let near = u64::MAX - 4095;
        assert_eq!(
            scan_err(vec![req(0, near, 4096, Op::Read)], "t.wtr"),
            expect(1, near, "read")
        );
        // Without a file (generators, library callers) the request is still named.
        assert!(scan_err(vec![req(0, near, 4096, Op::Read)], "")
            .starts_with("request 1: read of 4096 bytes"));
    }

    /// Ends that fit in 64 bits but not in a file offset, alone or once rounded up to
    /// whole pages, are refused too; the largest page-aligned end is accepted.
    #[test]
    fn ends_beyond_the_largest_file_offset_are_refused() {
        let e = scan_err(vec![req(3, MAX_END + 1, 4096, Op::Write)], "t.csv");
        assert_eq!(
            e,
            "t.csv: request 1: write of 4096 bytes at offset 9223372036854775808 (device 3) \
             ends at byte 9223372036854779904; expected requests that end by byte \
             9223372036854775807 (2^63 - 1, the largest file offset)"
        );
        let e = scan_err(vec![req(0, MAX_END - 100, 50, Op::Write)], "t.csv");
        assert!(
            e.contains(
                "ends at byte 9223372036854775757, 9223372036854775808 once rounded up to \
                 whole pages of 4096 B;"
            ),
            "{e}"
        );
        let top = (MAX_END / 4096 - 1) * 4096;
        let s = scan_of(vec![req(0, top, 4096, Op::Write)]);
        assert_eq!(s.devs, vec![(0, MAX_END / 4096)]);
        // Trims and empty requests are not replayed, so their addresses do not matter.
        let s = scan_of(vec![
            req(0, u64::MAX, 4096, Op::Trim),
            req(0, u64::MAX, 0, Op::Write),
        ]);
        assert_eq!((s.trims, s.empty, s.devs.len()), (1, 1, 0));
    }

    /// Devices that fit one by one may not fit end to end.
    #[test]
    fn layouts_beyond_the_largest_file_offset_are_refused() {
        let s = Scan {
            devs: vec![(0, 1 << 50), (7, 1 << 51)],
            ..Scan::default()
        };
        let e = Layout::new(&s, 4096).unwrap_err().to_string();
        assert_eq!(
            e,
            "device 7 (2251799813685248 pages of 4096 B) laid after the 1 devices before \
             it, from byte 4611686018427387904, ends beyond byte 9223372036854775807 (2^63 \
             - 1, the largest file offset); expected the devices of a trace to span at most \
             that together"
        );
        let l = Layout {
            page_size: 4096,
            devs: vec![DevSlot {
                dev: 0,
                base: 0,
                bytes: 0,
            }],
            span_pages: 1 << 52,
        };
        assert_eq!(
            l.span_bytes(),
            u64::MAX,
            "saturates instead of wrapping to 0"
        );
        assert!(Mapper::new(l, 1 << 20, true).is_err());
    }

    /// A mapper fed requests it did not scan (a changed trace, a library caller) errs
    /// instead of wrapping silently or computing past 2^64, and appends nothing.
    #[test]
    fn unscanned_requests_are_errors_not_wrapped_offsets() {
        let s = scan_of(vec![req(0, 0, 256 * 4096, Op::Read)]);
        for wrap in [false, true] {
            let m = Mapper::new(Layout::new(&s, 4096).unwrap(), 1 << 20, wrap).unwrap();
            let mut out = vec![];
            for r in [
                req(0, u64::MAX - 4095, 4096, Op::Write),
                req(0, u64::MAX, 4096, Op::Write),
                req(1, 0, 4096, Op::Write),
            ] {
                assert!(m.map(&r, &mut out).is_err(), "{r:?}");
            }
            let beyond = m.map(&req(0, 300 * 4096, 4096, Op::Write), &mut out);
            assert_eq!(beyond.is_err(), !wrap);
            assert!(
                out.iter().all(|io| io.offset + io.len <= 1 << 20),
                "{out:?}"
            );
        }
    }

    proptest::proptest! {
        /// Whatever the request and the target, an I/O is page aligned and inside the
        /// announced range, or the request is an error.
        #[test]
        fn mapped_ios_stay_in_range(
            offset in proptest::prop_oneof![
                proptest::prelude::any::<u64>(),
                (u64::MAX - (1 << 24))..=u64::MAX,
                (MAX_END - (1 << 24))..=MAX_END,
            ],
            len in proptest::prop_oneof![0u32..(1 << 22), proptest::strategy::Just(u32::MAX)],
            span in 1u64..(1 << 40),
            target in proptest::prop_oneof![0u64..(1 << 14), (1u64 << 20)..(1 << 30)],
        ) {
            let s = Scan { devs: vec![(0, span)], ..Scan::default() };
            let layout = Layout::new(&s, 4096).unwrap();
            if let Ok(m) = Mapper::new(layout, target, true) {
                let mut out = vec![];
                if m.map(&req(0, offset, len, Op::Write), &mut out).is_ok() {
                    for io in &out {
                        proptest::prop_assert_eq!(io.offset % 4096, 0);
                        proptest::prop_assert!(io.len > 0 && io.len <= MAX_IO_BYTES);
                        proptest::prop_assert!(io.offset + io.len <= m.range_bytes());
                    }
                }
            }
        }
    }
}
