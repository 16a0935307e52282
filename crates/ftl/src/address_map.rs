//! How a trace's addresses are placed on a device's logical pages (`docs/ftl.md`,
//! "Address mapping").
//!
//! A trace may address more than the simulated device holds: a phone's trace spans the
//! whole flash partition, the simulated card is 16 GiB. The mapping is a run parameter,
//! chosen explicitly and reported with the count of requests it moved:
//!
//! * [`AddressMap::Refuse`]: pages stay where they are; a page beyond the logical
//!   capacity is an error ([`FtlError::OutOfRange`]).
//! * [`AddressMap::Compact`]: the units the trace touches are placed on the device in
//!   first-touch order: the k-th distinct unit becomes logical unit k, every page
//!   keeping its offset in the unit. The unit is what the FTL maps as one: the erase
//!   block for FAST and block-level mapping (a logical block's pages share its data and
//!   log blocks, so the trace's block structure is kept), the page for page-level
//!   mapping (which places every page where the write frontier is, so a logical block
//!   means nothing to it and a sparse trace needs no more space than its footprint).
//!   Sequentiality within a unit survives and no two trace pages share a device page. A
//!   trace that touches units 0, 1, 2, ... in that order is left as it is. Only whole
//!   units of the logical space are used; a trace touching more units than that is
//!   refused ([`FtlError::TooManyBlocks`]).
//! * [`AddressMap::Wrap`]: page `p` goes to `p mod logical_pages`. Lossy: distinct trace
//!   pages can share a device page, which adds overwrites the trace does not have.
//!
//! A request is cut where its pages stop being contiguous on the device: at the end of
//! the capacity (wrap), or at an erase-block boundary whose two blocks were placed apart
//! (compact; blocks first touched by one sequential request are placed side by side,
//! so that request stays whole).

use std::collections::VecDeque;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use wafer_trace::{Request, RequestReader, TraceMeta};

use crate::device::FtlKind;
use crate::error::FtlError;
use crate::geometry::Geometry;

/// How a trace's addresses are placed on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AddressMap {
    /// Pages as they are; beyond the capacity is an error.
    Refuse,
    /// The trace's erase blocks in first-touch order, offsets in a block kept.
    Compact,
    /// Pages modulo the logical capacity (folds distinct pages together).
    Wrap,
}

impl AddressMap {
    /// Every mapping's name, in the order the documentation lists them.
    pub const NAMES: [&'static str; 3] = ["refuse", "compact", "wrap"];

    /// The mapping called `name`.
    pub fn from_name(name: &str) -> Result<AddressMap, FtlError> {
        match name.trim() {
            "refuse" => Ok(AddressMap::Refuse),
            "compact" => Ok(AddressMap::Compact),
            "wrap" => Ok(AddressMap::Wrap),
            other => Err(FtlError::Config(format!(
                "unknown address map `{other}` (expected refuse, compact or wrap)"
            ))),
        }
    }

    /// The name [`AddressMap::from_name`] reads.
    pub fn name(self) -> &'static str {
        match self {
            AddressMap::Refuse => "refuse",
            AddressMap::Compact => "compact",
            AddressMap::Wrap => "wrap",
        }
    }
}

impl std::fmt::Display for AddressMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One mapping onto one device, with the placements made so far (compact).
///
/// Share one `Mapper` between traces that address the same logical space (a
/// preconditioning trace and the measured one), so a block keeps its place.
#[derive(Clone, Debug)]
pub struct Mapper {
    map: AddressMap,
    page_size: u64,
    logical_pages: u64,
    /// Pages of the unit compact places (module docs).
    pages_per_block: u64,
    /// log2 of `pages_per_block` when it is a power of two: a shift instead of a
    /// division on every request.
    shift: Option<u32>,
    /// Whole units of the logical space: what compact can place.
    held: u64,
    /// Trace unit -> device unit, numbered in first-touch order; numbers from `held`
    /// on are units seen after the device was full (counted for the error, never
    /// used).
    placed: FxHashMap<u64, u64>,
    /// The last placement looked up: consecutive requests mostly stay in one block.
    last: Option<(u64, u64)>,
}

impl Mapper {
    /// `map` onto a device of geometry `g` run by an FTL of kind `ftl` (which sets the
    /// unit compact places: module docs).
    pub fn new(map: AddressMap, g: &Geometry, ftl: FtlKind) -> Mapper {
        let ppb = match ftl {
            FtlKind::Page => 1,
            FtlKind::Fast | FtlKind::Block => u64::from(g.pages_per_block),
        };
        Mapper {
            map,
            page_size: u64::from(g.page_size),
            logical_pages: g.logical_pages,
            pages_per_block: ppb,
            shift: ppb.is_power_of_two().then(|| ppb.trailing_zeros()),
            held: g.logical_pages / ppb,
            placed: FxHashMap::default(),
            last: None,
        }
    }

    /// The mapping.
    pub fn kind(&self) -> AddressMap {
        self.map
    }

    /// Device page size in bytes.
    pub fn page_size(&self) -> u64 {
        self.page_size
    }

    /// What compact places, plural: `pages` on a page-level FTL, else `erase blocks`.
    pub fn unit_name(&self) -> &'static str {
        if self.pages_per_block == 1 {
            "pages"
        } else {
            "erase blocks"
        }
    }

    /// Distinct trace units seen (compact; 0 for the other mappings).
    pub fn blocks_seen(&self) -> u64 {
        self.placed.len() as u64
    }

    #[inline]
    fn block(&self, page: u64) -> u64 {
        match self.shift {
            Some(s) => page >> s,
            None => page / self.pages_per_block,
        }
    }

    /// The device block of trace block `b`, placing it if it is new.
    #[inline]
    fn place(&mut self, b: u64) -> Result<u64, FtlError> {
        if let Some((tb, db)) = self.last {
            if tb == b {
                return Ok(db);
            }
        }
        let next = self.placed.len() as u64;
        let d = *self.placed.entry(b).or_insert(next);
        if d >= self.held {
            return Err(self.too_many_blocks());
        }
        self.last = Some((b, d));
        Ok(d)
    }

    /// The error of a compact map that ran out of blocks, with the blocks seen so far
    /// (all of the trace's after [`Mapper::note`] has seen the rest).
    pub fn too_many_blocks(&self) -> FtlError {
        FtlError::TooManyBlocks {
            needed: self.blocks_seen(),
            held: self.held,
            unit: self.unit_name(),
            block_bytes: self.pages_per_block * self.page_size,
        }
    }

    /// Count the erase blocks of pages `first..=last` without placing or applying
    /// anything: after a compact map ran out of blocks, the rest of the trace is noted
    /// so the error says how many blocks the whole trace needs.
    pub fn note(&mut self, first: u64, last: u64) {
        if self.map != AddressMap::Compact {
            return;
        }
        for b in self.block(first)..=self.block(last) {
            let next = self.placed.len() as u64;
            self.placed.entry(b).or_insert(next);
        }
    }

    /// Where trace page `p` is on the device, if it is placed already; never places
    /// anything (prefetch hints are computed ahead of the requests, and placing there
    /// would change the first-touch order).
    #[inline]
    pub fn peek(&self, p: u64) -> Option<u64> {
        match self.map {
            AddressMap::Refuse => Some(p),
            AddressMap::Wrap => Some(p % self.logical_pages),
            AddressMap::Compact => {
                let b = self.block(p);
                let d = *self.placed.get(&b)?;
                (d < self.held).then(|| d * self.pages_per_block + (p - b * self.pages_per_block))
            }
        }
    }

    /// Map trace pages `first..=last`: `f(trace page, device page, pages)` for each
    /// piece contiguous on the device, in order. Returns whether any page moved. An
    /// error leaves `f` uncalled.
    #[inline]
    pub fn map(
        &mut self,
        first: u64,
        last: u64,
        mut f: impl FnMut(u64, u64, u64) -> Result<(), FtlError>,
    ) -> Result<bool, FtlError> {
        let lp = self.logical_pages;
        match self.map {
            AddressMap::Refuse => {
                if last >= lp {
                    return Err(FtlError::OutOfRange {
                        lpn: first.max(lp),
                        logical_pages: lp,
                    });
                }
                f(first, first, last - first + 1)?;
                Ok(false)
            }
            AddressMap::Wrap => {
                if last < lp {
                    f(first, first, last - first + 1)?;
                    return Ok(false);
                }
                let (mut t, mut p, mut left) = (first, first % lp, last - first + 1);
                while left > 0 {
                    let k = left.min(lp - p);
                    f(t, p, k)?;
                    t += k;
                    left -= k;
                    p = 0;
                }
                Ok(true)
            }
            AddressMap::Compact => self.compact(first, last, f),
        }
    }

    #[inline]
    fn compact(
        &mut self,
        first: u64,
        last: u64,
        mut f: impl FnMut(u64, u64, u64) -> Result<(), FtlError>,
    ) -> Result<bool, FtlError> {
        let ppb = self.pages_per_block;
        let (b0, b1) = (self.block(first), self.block(last));
        if b0 == b1 {
            let d = self.place(b0)?;
            let p = d * ppb + (first - b0 * ppb);
            f(first, p, last - first + 1)?;
            return Ok(d != b0);
        }
        // Every block is placed before anything is applied, so a refusal applies
        // nothing of the request.
        for b in b0..=b1 {
            self.place(b)?;
        }
        let mut moved = false;
        // The piece being built: (trace page, device page, pages).
        let mut run: Option<(u64, u64, u64)> = None;
        for b in b0..=b1 {
            let d = self.place(b)?;
            moved |= d != b;
            let lo = first.max(b * ppb);
            let n = last.min(b * ppb + ppb - 1) - lo + 1;
            let p = d * ppb + (lo - b * ppb);
            run = match run {
                Some((t, q, m)) if q + m == p => Some((t, q, m + n)),
                Some((t, q, m)) => {
                    f(t, q, m)?;
                    Some((lo, p, n))
                }
                None => Some((lo, p, n)),
            };
        }
        if let Some((t, q, m)) = run {
            f(t, q, m)?;
        }
        Ok(moved)
    }
}

/// Counts of a [`MappedReader`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MappedCounts {
    /// Requests read from the trace.
    pub requests: u64,
    /// Requests the mapping moved.
    pub remapped_requests: u64,
    /// Requests served as several because their pages are not contiguous on the
    /// device.
    pub split_requests: u64,
}

/// A trace read through a [`Mapper`]: every request at its device address, cut into
/// several where its pages are not contiguous on the device, byte offsets within a
/// page kept. For consumers that take requests rather than page ranges (the timed SSD).
pub struct MappedReader<'a> {
    inner: &'a mut dyn RequestReader,
    map: Mapper,
    batch: Vec<Request>,
    pos: usize,
    pending: VecDeque<Request>,
    counts: MappedCounts,
}

impl<'a> MappedReader<'a> {
    /// `inner` mapped by `map`.
    pub fn new(inner: &'a mut dyn RequestReader, map: Mapper) -> MappedReader<'a> {
        MappedReader {
            inner,
            map,
            batch: Vec::new(),
            pos: 0,
            pending: VecDeque::new(),
            counts: MappedCounts::default(),
        }
    }

    /// What the mapping did so far.
    pub fn counts(&self) -> MappedCounts {
        self.counts
    }

    /// The mapper (for the blocks it placed).
    pub fn mapper(&self) -> &Mapper {
        &self.map
    }

    /// Map one request into `pending`.
    fn push(&mut self, req: &Request) -> Result<(), FtlError> {
        self.counts.requests += 1;
        let ps = self.map.page_size;
        let Some((first, last)) = req.page_range(ps) else {
            self.pending.push_back(*req);
            return Ok(());
        };
        let end = req.offset.saturating_add(u64::from(req.len));
        let mut pieces = 0u64;
        let pending = &mut self.pending;
        let moved = self.map.map(first, last, |t, d, n| {
            let lo = req.offset.max(t * ps);
            let hi = end.min((t + n) * ps);
            pending.push_back(Request {
                offset: d * ps + (lo - t * ps),
                len: (hi - lo) as u32,
                ..*req
            });
            pieces += 1;
            Ok(())
        })?;
        self.counts.remapped_requests += u64::from(moved);
        self.counts.split_requests += u64::from(pieces > 1);
        Ok(())
    }

    /// After a compact map ran out of blocks: note the rest of the trace, so the error
    /// counts every block it needs.
    fn note_rest(&mut self) -> wafer_trace::Result<()> {
        let ps = self.map.page_size;
        loop {
            for r in &self.batch[self.pos..] {
                if let Some((a, b)) = r.page_range(ps) {
                    self.map.note(a, b);
                }
            }
            self.pos = self.batch.len();
            if !self.inner.read_batch(&mut self.batch)? {
                return Ok(());
            }
            self.pos = 0;
        }
    }
}

impl RequestReader for MappedReader<'_> {
    fn read_batch(&mut self, out: &mut Vec<Request>) -> wafer_trace::Result<bool> {
        out.clear();
        loop {
            while out.len() < wafer_trace::reader::BATCH {
                match self.pending.pop_front() {
                    Some(r) => out.push(r),
                    None => break,
                }
            }
            if out.len() == wafer_trace::reader::BATCH {
                return Ok(true);
            }
            if self.pos >= self.batch.len() {
                self.pos = 0;
                if !self.inner.read_batch(&mut self.batch)? {
                    self.batch.clear();
                    return Ok(!out.is_empty());
                }
            }
            let req = self.batch[self.pos];
            self.pos += 1;
            if let Err(e) = self.push(&req) {
                let at = self.counts.requests;
                let e = match e {
                    FtlError::TooManyBlocks { .. } => {
                        if let Some((a, b)) = req.page_range(self.map.page_size) {
                            self.map.note(a, b);
                        }
                        self.note_rest()?;
                        self.map.too_many_blocks()
                    }
                    other => other,
                };
                return Err(wafer_trace::Error::Invalid(format!(
                    "{}: request {at} (offset {} bytes): {e}",
                    self.inner.meta().path.display(),
                    req.offset
                )));
            }
        }
    }

    fn meta(&self) -> &TraceMeta {
        self.inner.meta()
    }

    fn skipped(&self) -> u64 {
        self.inner.skipped()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 16 logical pages in blocks of 4 (4 blocks), 4 KiB pages.
    fn geometry() -> Geometry {
        let mut g = Geometry::with_op(16 * 4096, 0.25, 4096, 4).unwrap();
        g.channels = 1;
        g
    }

    /// The pieces of `first..=last`: (trace page, device page, pages).
    fn pieces(m: &mut Mapper, first: u64, last: u64) -> Result<Vec<(u64, u64, u64)>, FtlError> {
        let mut v = Vec::new();
        m.map(first, last, |t, d, n| {
            v.push((t, d, n));
            Ok(())
        })?;
        Ok(v)
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for n in AddressMap::NAMES {
            assert_eq!(AddressMap::from_name(n).unwrap().name(), n);
        }
        let e = AddressMap::from_name("fold").unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown address map `fold` (expected refuse, compact or wrap)"
        );
        assert_eq!(
            serde_json::to_string(&AddressMap::Compact).unwrap(),
            "\"compact\""
        );
    }

    #[test]
    fn compact_places_blocks_in_first_touch_order_keeping_offsets() {
        let mut m = Mapper::new(AddressMap::Compact, &geometry(), FtlKind::Fast);
        // Trace block 100 (pages 400..404) first, then block 7, then block 100 again.
        assert_eq!(pieces(&mut m, 402, 403).unwrap(), vec![(402, 2, 2)]);
        assert_eq!(pieces(&mut m, 29, 29).unwrap(), vec![(29, 5, 1)]);
        assert_eq!(pieces(&mut m, 400, 400).unwrap(), vec![(400, 0, 1)]);
        assert_eq!(m.blocks_seen(), 2);
        assert_eq!(m.peek(401), Some(1));
        assert_eq!(m.peek(28), Some(4));
        assert_eq!(
            m.peek(8),
            None,
            "block 2 is not placed, and peek does not place it"
        );
        assert_eq!(m.blocks_seen(), 2);
    }

    #[test]
    fn compact_splits_a_request_only_where_its_blocks_lie_apart() {
        let mut m = Mapper::new(AddressMap::Compact, &geometry(), FtlKind::Fast);
        // Blocks 10 and 11 first touched together: placed side by side, one piece.
        assert_eq!(pieces(&mut m, 42, 45).unwrap(), vec![(42, 2, 4)]);
        // Block 20, then a request over blocks 19 and 20: 19 is new (device block 3),
        // 20 is device block 2, so the request is cut at the boundary.
        pieces(&mut m, 80, 80).unwrap();
        assert_eq!(
            pieces(&mut m, 78, 81).unwrap(),
            vec![(78, 14, 2), (80, 8, 2)]
        );
    }

    #[test]
    fn compact_is_the_identity_for_a_trace_in_first_touch_order_from_block_0() {
        let mut m = Mapper::new(AddressMap::Compact, &geometry(), FtlKind::Fast);
        for (a, b) in [(0, 2), (3, 6), (1, 1), (8, 15), (4, 4)] {
            assert_eq!(pieces(&mut m, a, b).unwrap(), vec![(a, a, b - a + 1)]);
        }
        let mut moved = false;
        m.map(9, 12, |_, _, _| Ok(())).map(|x| moved |= x).unwrap();
        assert!(!moved);
    }

    #[test]
    fn compact_refuses_more_blocks_than_the_device_holds_and_counts_them_all() {
        let mut m = Mapper::new(AddressMap::Compact, &geometry(), FtlKind::Fast);
        for b in [5u64, 9, 13, 17] {
            pieces(&mut m, b * 4, b * 4).unwrap();
        }
        let mut called = false;
        let e = m
            .map(84, 88, |_, _, _| {
                called = true;
                Ok(())
            })
            .unwrap_err();
        assert!(!called, "a refused request applies nothing");
        assert_eq!(
            e.to_string(),
            "the trace touches 5 erase blocks of 16 KiB but the device's logical space \
             holds 4 (address map compact: a device of 80 KiB would hold them, or wrap \
             folds pages modulo the capacity, with --map or address_map)"
        );
        // The rest of the trace noted: the request's second block and one more.
        m.note(84, 88);
        m.note(0, 3);
        assert!(m
            .too_many_blocks()
            .to_string()
            .starts_with("the trace touches 7 erase blocks of 16 KiB but"));
    }

    #[test]
    fn compact_on_a_page_level_ftl_places_pages_so_a_sparse_trace_fits() {
        // One page in each of 16 trace blocks: 16 erase blocks, which FAST's 4 cannot
        // hold, but 16 pages, which page-level mapping can.
        let mut fast = Mapper::new(AddressMap::Compact, &geometry(), FtlKind::Fast);
        let mut page = Mapper::new(AddressMap::Compact, &geometry(), FtlKind::Page);
        for (i, b) in (0..16u64).map(|i| (i, 7 + 3 * i)).collect::<Vec<_>>() {
            assert_eq!(
                pieces(&mut page, b * 4 + 1, b * 4 + 1).unwrap(),
                vec![(b * 4 + 1, i, 1)]
            );
        }
        assert!((0..16u64).any(|i| pieces(&mut fast, (7 + 3 * i) * 4, (7 + 3 * i) * 4).is_err()));
        // A request over new pages stays whole; over placed and new ones it is cut.
        let mut page = Mapper::new(AddressMap::Compact, &geometry(), FtlKind::Page);
        assert_eq!(pieces(&mut page, 40, 43).unwrap(), vec![(40, 0, 4)]);
        assert_eq!(pieces(&mut page, 20, 20).unwrap(), vec![(20, 4, 1)]);
        assert_eq!(
            pieces(&mut page, 43, 44).unwrap(),
            vec![(43, 3, 1), (44, 5, 1)]
        );
        let e = pieces(&mut page, 0, 15).unwrap_err().to_string();
        assert!(
            e.starts_with("the trace touches 17 pages of 4 KiB but"),
            "{e}"
        );
    }

    #[test]
    fn wrap_folds_modulo_the_capacity_as_before() {
        let mut m = Mapper::new(AddressMap::Wrap, &geometry(), FtlKind::Fast);
        assert_eq!(pieces(&mut m, 3, 5).unwrap(), vec![(3, 3, 3)]);
        // 14..=33 is 20 pages: to the end, once round, and 2 more.
        assert_eq!(
            pieces(&mut m, 14, 33).unwrap(),
            vec![(14, 14, 2), (16, 0, 16), (32, 0, 2)]
        );
        assert_eq!(pieces(&mut m, 37, 37).unwrap(), vec![(37, 5, 1)]);
        assert_eq!(m.peek(37), Some(5));
    }

    #[test]
    fn refuse_names_the_first_page_beyond_the_capacity() {
        let mut m = Mapper::new(AddressMap::Refuse, &geometry(), FtlKind::Fast);
        assert_eq!(pieces(&mut m, 0, 15).unwrap(), vec![(0, 0, 16)]);
        match pieces(&mut m, 10, 20).unwrap_err() {
            FtlError::OutOfRange { lpn, logical_pages } => {
                assert_eq!((lpn, logical_pages), (16, 16))
            }
            e => panic!("{e}"),
        }
    }

    /// A trace in memory, served in one batch.
    struct Mem(Vec<Request>, TraceMeta);

    impl RequestReader for Mem {
        fn read_batch(&mut self, out: &mut Vec<Request>) -> wafer_trace::Result<bool> {
            *out = std::mem::take(&mut self.0);
            Ok(!out.is_empty())
        }
        fn meta(&self) -> &TraceMeta {
            &self.1
        }
    }

    #[test]
    fn the_reader_moves_bytes_and_cuts_requests_apart() {
        use wafer_trace::Op;
        let req = |offset: u64, len: u32| Request {
            time_ns: 7,
            offset,
            len,
            dev: 0,
            op: Op::Write,
        };
        // Block 5 (bytes 81920..98304), then a request from block 4 into block 5.
        let reqs = vec![req(81920 + 100, 10), req(81920 - 4096 + 5, 8192), req(0, 0)];
        let mut inner = Mem(reqs, TraceMeta::default());
        let mut r = MappedReader::new(
            &mut inner,
            Mapper::new(AddressMap::Compact, &geometry(), FtlKind::Fast),
        );
        let mut out = Vec::new();
        assert!(r.read_batch(&mut out).unwrap());
        let got: Vec<(u64, u32)> = out.iter().map(|q| (q.offset, q.len)).collect();
        // Block 5 -> device block 0, block 4 -> device block 1: the request's first
        // 4091 bytes at the end of device block 1, the rest at the start of block 0.
        assert_eq!(
            got,
            vec![(100, 10), (16384 + 12288 + 5, 4091), (0, 4101), (0, 0)]
        );
        assert!(out.iter().all(|q| q.time_ns == 7 && q.op == Op::Write));
        assert!(!r.read_batch(&mut out).unwrap());
        assert_eq!(
            r.counts(),
            MappedCounts {
                requests: 3,
                remapped_requests: 2,
                split_requests: 1
            }
        );
    }
}
