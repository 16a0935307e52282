//! From trace addresses to target addresses.
//!
//! A first pass over the trace ([`scan`]) finds what the replay will touch. Requests
//! are then mapped page-wise, following the page semantics of `DESIGN.md`: a request
//! `(offset, len)` covers pages `offset/ps ..= (offset+len-1)/ps` and is replayed as
//! whole pages, so every I/O is aligned for O_DIRECT and every written page can carry
//! the pattern of [`crate::pattern`].
//!
//! Devices of a multi-device trace are laid out one after the other in ascending device
//! number, each taking as many pages as its highest page + 1 ([`Layout`]). The *range*
//! the replay announces is `[0, span)` of that layout, or, with `--wrap` and a target
//! smaller than the span, `[0, target pages)`, page `p` going to `p mod target pages`.
//! Nothing is ever written outside the announced range (checked per I/O by the player).

use crate::error::Result;
use rustc_hash::FxHashMap;
use serde::Serialize;
use wafer_trace::{Op, Request, RequestReader, NO_TIME};

/// I/Os are at most this many bytes; longer requests are split (each piece keeps the
/// order of the request).
pub const MAX_IO_BYTES: u64 = 4 << 20;

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
}

/// Read the whole trace once, calling `progress(requests so far)` now and then.
pub fn scan(
    reader: &mut dyn RequestReader,
    page_size: u32,
    progress: &mut dyn FnMut(u64),
) -> Result<Scan> {
    let ps = u64::from(page_size);
    let mut s = Scan::default();
    let mut spans: FxHashMap<u32, u64> = FxHashMap::default();
    let mut batch = Vec::new();
    while reader.read_batch(&mut batch)? {
        for r in &batch {
            s.requests += 1;
            if r.time_ns != NO_TIME {
                s.has_time = true;
                s.first_time_ns.get_or_insert(r.time_ns);
                s.last_time_ns = Some(r.time_ns);
            }
            let Some((first, last)) = r.page_range(ps) else {
                s.empty += 1;
                continue;
            };
            let pages = last - first + 1;
            match r.op {
                Op::Read => {
                    s.reads += 1;
                    s.read_pages += pages;
                }
                Op::Write => {
                    s.writes += 1;
                    s.write_pages += pages;
                }
                Op::Trim => {
                    s.trims += 1;
                    continue;
                }
            }
            s.max_request_pages = s.max_request_pages.max(pages);
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
    /// Lay out the devices found by [`scan`].
    pub fn new(scan: &Scan, page_size: u32) -> Layout {
        let ps = u64::from(page_size);
        let mut base = 0;
        let devs = scan
            .devs
            .iter()
            .map(|&(dev, pages)| {
                let slot = DevSlot {
                    dev,
                    base: base * ps,
                    bytes: pages * ps,
                };
                base += pages;
                slot
            })
            .collect();
        Layout {
            page_size,
            devs,
            span_pages: base,
        }
    }

    /// Bytes the layout spans.
    pub fn span_bytes(&self) -> u64 {
        self.span_pages * u64::from(self.page_size)
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
}

impl Mapper {
    /// A mapper onto a target of `target_bytes`; `wrap` maps pages beyond the target
    /// modulo its page count (the caller has refused a too-small target without it).
    pub fn new(layout: Layout, target_bytes: u64, wrap: bool) -> Mapper {
        let ps = u64::from(layout.page_size);
        let target_pages = target_bytes / ps;
        let range_pages = if wrap {
            layout.span_pages.min(target_pages)
        } else {
            layout.span_pages
        };
        Mapper {
            ps,
            range_pages,
            max_io_pages: (MAX_IO_BYTES / ps).max(1),
            layout,
        }
    }

    /// The announced range is `[0, range_bytes)`.
    pub fn range_bytes(&self) -> u64 {
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
    /// Returns whether any page was wrapped.
    pub fn map(&self, r: &Request, out: &mut Vec<Io>) -> bool {
        let write = match r.op {
            Op::Read => false,
            Op::Write => true,
            Op::Trim => return false,
        };
        let Some((first, last)) = r.page_range(self.ps) else {
            return false;
        };
        let Some(base) = self.layout.base_page(r.dev) else {
            return false; // a device the scan never saw: impossible for the same trace
        };
        let mut page = base + first;
        let mut left = last - first + 1;
        let mut wrapped = false;
        while left > 0 {
            let mut p = page;
            if p >= self.range_pages {
                p %= self.range_pages;
                wrapped = true;
            }
            let n = left.min(self.range_pages - p).min(self.max_io_pages);
            out.push(Io {
                offset: p * self.ps,
                len: n * self.ps,
                write,
            });
            page += n;
            left -= n;
        }
        wrapped
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
        let l = Layout::new(&s, 4096);
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
        let m = Mapper::new(Layout::new(&s, 4096), 1 << 30, false);
        let mut out = vec![];
        assert!(!m.map(&req(0, 4095, 2, Op::Write), &mut out));
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
        let m = Mapper::new(Layout::new(&s, 4096), 10 * 4096 + 100, true);
        assert_eq!(m.range_bytes(), 10 * 4096);
        let mut out = vec![];
        assert!(m.map(&req(0, 23 * 4096, 4 * 4096, Op::Write), &mut out));
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
        assert!(m.map(&req(0, 8 * 4096, 5 * 4096, Op::Read), &mut out));
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
        let m = Mapper::new(Layout::new(&s, 4096), 1 << 30, false);
        let mut out = vec![];
        m.map(&req(0, 0, 10 << 20, Op::Write), &mut out);
        let lens: Vec<u64> = out.iter().map(|i| i.len).collect();
        assert_eq!(lens, vec![4 << 20, 4 << 20, 2 << 20]);
        assert_eq!(out[2].offset, 8 << 20);
    }
}
