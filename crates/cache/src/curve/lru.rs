//! Exact LRU results at every cache size from one pass over the trace.
//!
//! LRU is a stack algorithm: the cache of `C` pages holds the pages among the top `C`
//! entries of one stack ([`super::stack`]), so one pass yields every size at once.
//! * A reference at depth `d` hits at every size `C >= d` (read and write apart).
//! * A page's dirty interval runs from the write that dirtied it to the reference
//!   that closes it: the next write, a trim, or the end of the trace (a virtual
//!   reference at the page's depth then). Its depth only grows between its own
//!   references, so at size `C` the page was pushed out (and written back, once: a
//!   later read brings it back clean) exactly when the largest depth `M` seen at the
//!   references of the interval, the closing one included, exceeds `C`. The interval
//!   adds one write-back at every size below `M` (a range update of a difference
//!   array), and at the end one dirty page at every size from `M` up.
//! * Warm-up: a write-back counts where the page was pushed out after the warm-up.
//!   For an interval open when the warm-up ends, the sizes below the largest depth it
//!   had reached by then were written back during the warm-up.
//! * Evictions follow from the balance of resident pages: misses + resident when
//!   measuring starts - resident at the end - resident pages trimmed. Every access of
//!   LRU evicts at most one page, so no two write-backs merge: `write_ios =
//!   page_writes`. The writes of flush-at-end merge when keys follow each other; a
//!   pair of neighbours merges at the sizes where both are dirty at the end.
//!
//! Write-miss fetch changes only the reads counted (LRU allocates on every miss).
//! The same accumulator serves sampled curves ([`super::shards`]): depths in the
//! sample are scaled to full-size distances and counts weighted by 1/rate.
//! Not produced: the block-utilization statistics (they depend on the order of the
//! write-back stream at each size).

use rustc_hash::FxHashMap;
use wafer_trace::Op;

use super::stack::{Entry, Stack};
use crate::engine::SimConfig;
use crate::error::SimError;
use crate::metrics::Metrics;
use crate::prepared::PreparedTrace;

/// How depths in the stack become full-size cache sizes, and the weight of a count.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scale {
    /// Sampling rate (1 = exact).
    pub rate: f64,
    /// Smallest size a count lands on: 1, or one past an exact head's depth (the
    /// sizes up to it are the head's, see [`super::head`]).
    pub floor: u64,
}

impl Scale {
    /// The full-size distance of sample depth `d`: `d` itself when exact, else
    /// `d / rate` rounded, as in the paper. (`1 + (d - 1) / rate` has the right mean
    /// but puts every immediate re-reference of the sample at distance 1, where
    /// unsampled pages in between are unseen; given `d`, the true distance is spread
    /// over about `1 / rate` values centred near `d / rate`.)
    #[inline]
    fn size(&self, d: u32) -> u64 {
        let s = if self.rate >= 1.0 {
            u64::from(d)
        } else {
            (f64::from(d) / self.rate).round() as u64
        };
        s.max(self.floor)
    }

    #[inline]
    fn weight(&self) -> f64 {
        1.0 / self.rate
    }
}

/// One per-size accumulator, indexed by cache size (index 0 unused). Dense for an
/// exact pass, which counts at every size; sparse for a sample, whose sizes are
/// multiples of about `1 / rate` (a dense array up to the footprint would cost a
/// sampled pass 8 bytes per page of the trace's footprint, per accumulator).
#[derive(Debug, Clone)]
enum Acc {
    /// Grows on demand; sizes beyond the last index read as 0.
    Dense(Vec<f64>),
    /// The sizes counted at.
    Sparse(FxHashMap<u64, f64>),
}

impl Acc {
    fn new(sparse: bool) -> Acc {
        if sparse {
            Acc::Sparse(FxHashMap::default())
        } else {
            Acc::Dense(Vec::new())
        }
    }

    /// Sizes counted at and their counts, in increasing order of size (a sparse
    /// accumulator's only).
    fn sorted(&self) -> Vec<(u64, f64)> {
        match self {
            Acc::Dense(v) => (0..v.len() as u64).zip(v.iter().copied()).collect(),
            Acc::Sparse(m) => {
                let mut e: Vec<(u64, f64)> = m.iter().map(|(&i, &w)| (i, w)).collect();
                e.sort_unstable_by_key(|e| e.0);
                e
            }
        }
    }

    /// Add `from` at every size (in increasing order of size; to a sparse
    /// accumulator when either is).
    fn add(&mut self, from: Acc) {
        if let (Acc::Dense(v), Acc::Sparse(_)) = (&*self, &from) {
            let dense = Acc::Dense(v.clone());
            *self = Acc::Sparse(FxHashMap::default());
            for (i, w) in dense.sorted() {
                if w != 0.0 {
                    bump(self, i, w);
                }
            }
        }
        match (self, from) {
            (Acc::Dense(to), Acc::Dense(from)) => {
                if from.len() > to.len() {
                    to.resize(from.len(), 0.0);
                }
                to.iter_mut().zip(from).for_each(|(t, f)| *t += f);
            }
            (to, from) => {
                for (i, w) in from.sorted() {
                    bump(to, i, w);
                }
            }
        }
    }

    fn scale(&mut self, by: f64) {
        match self {
            Acc::Dense(v) => v.iter_mut().for_each(|x| *x *= by),
            Acc::Sparse(m) => m.values_mut().for_each(|x| *x *= by),
        }
    }
}

/// Per-size accumulators ([`Acc`]).
#[derive(Debug, Clone)]
struct Arrays {
    /// Reads (writes) whose distance is exactly the index: hits from that size up.
    read_hit: Acc,
    write_hit: Acc,
    /// Difference array of write-backs.
    wb: Acc,
    /// Dirty pages at the end from that size up.
    dirty_end: Acc,
    /// Resident pages trimmed, resident when measuring starts, resident at the end,
    /// by depth.
    trimmed: Acc,
    res_start: Acc,
    res_end: Acc,
}

impl Arrays {
    fn new(sparse: bool) -> Arrays {
        Arrays {
            read_hit: Acc::new(sparse),
            write_hit: Acc::new(sparse),
            wb: Acc::new(sparse),
            dirty_end: Acc::new(sparse),
            trimmed: Acc::new(sparse),
            res_start: Acc::new(sparse),
            res_end: Acc::new(sparse),
        }
    }
}

#[inline]
fn bump(v: &mut Acc, i: u64, w: f64) {
    match v {
        Acc::Dense(v) => {
            let i = i as usize;
            if i >= v.len() {
                v.resize((i + 1).max(v.len() * 2).max(64), 0.0);
            }
            v[i] += w;
        }
        Acc::Sparse(m) => *m.entry(i).or_insert(0.0) += w,
    }
}

/// What an exact head ([`super::head`]) knows of a sampled page at a reference:
/// whether the page is within its depth (the reference's hit is exact there) and
/// whether its dirty interval has stayed within it (the interval's write-backs and
/// dirty-at-end are exact there). A pass without a head knows neither.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HeadView {
    pub resident: bool,
    pub dirty: bool,
}

/// Counts over every access of a sampled pass (not estimated).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Totals {
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    pub warmup: u64,
}

/// The accumulator of one pass (exact or on a sample).
#[derive(Debug)]
pub(crate) struct LruCore {
    pub(crate) stack: Stack,
    /// Per page: 0 when clean, else the largest depth in its open dirty interval.
    dmax: Vec<u32>,
    /// Per page: the smallest size whose write-back of the open interval counts.
    lo: Vec<u64>,
    pub(crate) started: bool,
    pub(crate) scale: Scale,
    a: Arrays,
    reads: f64,
    writes: f64,
    trims: f64,
    warmup_accesses: u64,
    /// Largest full-size distance seen.
    top: u64,
}

impl LruCore {
    /// An accumulator for page ids below `pages` (it grows on demand) at `rate`;
    /// a sampled one (`rate < 1`, or a fixed-size sample) counts sparsely.
    pub(crate) fn new(pages: u32, rate: f64) -> LruCore {
        LruCore::with(pages, rate, rate < 1.0)
    }

    pub(crate) fn with(pages: u32, rate: f64, sparse: bool) -> LruCore {
        LruCore {
            stack: Stack::new(pages),
            dmax: vec![0; pages as usize],
            lo: vec![1; pages as usize],
            started: false,
            scale: Scale { rate, floor: 1 },
            a: Arrays::new(sparse),
            reads: 0.0,
            writes: 0.0,
            trims: 0.0,
            warmup_accesses: 0,
            top: 0,
        }
    }

    /// Make room for page ids below `pages`.
    pub(crate) fn reserve(&mut self, pages: u32) {
        self.stack.reserve(pages);
        if pages as usize > self.dmax.len() {
            self.dmax.resize(pages as usize, 0);
            self.lo.resize(pages as usize, 1);
        }
    }

    #[inline]
    fn size(&mut self, d: u32) -> u64 {
        let s = self.scale.size(d);
        self.top = self.top.max(s);
        s
    }

    /// The warm-up ends: sizes below the depth an open interval has reached were
    /// written back during it; resident pages are counted (those an exact head
    /// holds, `head(p)`, are its to count).
    #[cold]
    pub(crate) fn start(&mut self, head: &dyn Fn(u32) -> HeadView) {
        self.started = true;
        let w = self.scale.weight();
        let mut starts = Vec::new();
        self.stack.walk(|e, d| {
            if let Entry::Page(p) = e {
                starts.push((p, d));
            }
        });
        for (p, d) in starts {
            let s = self.size(d);
            if !head(p).resident {
                bump(&mut self.a.res_start, s, w);
            }
            let m = self.dmax[p as usize];
            if m != 0 {
                self.lo[p as usize] = self.size(m.max(d));
            }
        }
    }

    /// Close the dirty interval of `p` whose largest depth is `m`; its write-backs
    /// count unless an exact head counted them (`exact`).
    #[inline]
    pub(crate) fn close(&mut self, p: u32, m: u32, exact: bool) {
        if self.started && !exact {
            let hi = self.size(m);
            let lo = self.lo[p as usize].max(self.scale.floor);
            if lo < hi {
                let w = self.scale.weight();
                bump(&mut self.a.wb, lo, w);
                bump(&mut self.a.wb, hi, -w);
            }
        }
        self.dmax[p as usize] = 0;
        self.lo[p as usize] = 1;
    }

    /// A read or write of page `p`; `measured` once the warm-up is over; `head`
    /// what an exact head knew of it just before. Returns its depth before.
    #[inline]
    pub(crate) fn access(
        &mut self,
        p: u32,
        write: bool,
        measured: bool,
        head: HeadView,
    ) -> Option<u32> {
        if measured && !self.started {
            self.start(&|_| HeadView::default());
        }
        let d = self.stack.access(p);
        let w = self.scale.weight();
        if measured {
            if write {
                self.writes += w;
            } else {
                self.reads += w;
            }
        } else {
            self.warmup_accesses += 1;
        }
        if let Some(d) = d {
            if measured && !head.resident {
                let s = self.size(d);
                let v = if write {
                    &mut self.a.write_hit
                } else {
                    &mut self.a.read_hit
                };
                bump(v, s, w);
            }
            let m = self.dmax[p as usize];
            if m != 0 {
                let m = m.max(d);
                if write {
                    self.close(p, m, head.dirty);
                } else {
                    self.dmax[p as usize] = m;
                }
            }
        }
        if write {
            // A fresh interval: the page is on top, dirty at every size.
            self.dmax[p as usize] = 1;
        }
        d
    }

    /// A trim of page `p` (`measured` as for the next access; `head` as for
    /// [`LruCore::access`]).
    pub(crate) fn trim(&mut self, p: u32, measured: bool, head: HeadView) {
        if measured && !self.started {
            self.start(&|_| HeadView::default());
        }
        let w = self.scale.weight();
        if measured {
            self.trims += w;
        }
        let Some(d) = self.stack.trim(p) else { return };
        if measured && !head.resident {
            let s = self.size(d);
            bump(&mut self.a.trimmed, s, w);
        }
        let m = self.dmax[p as usize];
        if m != 0 {
            // The dirty data is discarded where the page is still resident.
            self.close(p, m.max(d), head.dirty);
        }
    }

    /// Prefetch what [`LruCore::access`] of page `p` will read first, a few
    /// references ahead: its per-page state and slot number.
    #[inline]
    fn prefetch_page(&self, p: u32) {
        wafer_trace::prefetch::prefetch(&self.dmax, p as usize);
        wafer_trace::prefetch::prefetch(&self.lo, p as usize);
        self.stack.prefetch_page(p);
    }

    /// Whether `p` has an open dirty interval.
    #[inline]
    pub(crate) fn is_dirty(&self, p: u32) -> bool {
        self.dmax[p as usize] != 0
    }

    /// `p` has left a stack cut at depth `depth - 1` ([`super::head`]): an open
    /// interval is written back at every size below `depth` and closed.
    #[inline]
    pub(crate) fn fall_off(&mut self, p: u32, depth: u32) {
        let m = self.dmax[p as usize];
        if m != 0 {
            self.close(p, m.max(depth), false);
        }
    }

    /// Take `p` out of the sample: it and its open interval are forgotten.
    pub(crate) fn remove(&mut self, p: u32) {
        self.stack.remove(p);
        if let Some(m) = self.dmax.get_mut(p as usize) {
            *m = 0;
            self.lo[p as usize] = 1;
        }
    }

    /// The end of the trace: open intervals close at the pages' depths; `key_of`
    /// gives a page's key (flush-at-end merging), `head` what an exact head holds.
    pub(crate) fn tally(
        mut self,
        key_of: impl Fn(u32) -> u64,
        head: &dyn Fn(u32) -> HeadView,
    ) -> Tally {
        if !self.started {
            self.start(head);
        }
        let w = self.scale.weight();
        let mut entries = Vec::new();
        self.stack.walk(|e, d| {
            if let Entry::Page(p) = e {
                entries.push((p, d));
            }
        });
        let mut dirty_keys = Vec::new();
        for (p, d) in entries {
            let h = head(p);
            let s = self.size(d);
            if !h.resident {
                bump(&mut self.a.res_end, s, w);
            }
            let m = self.dmax[p as usize];
            if m != 0 {
                let m = m.max(d);
                let hi = self.size(m);
                self.close(p, m, h.dirty);
                if !h.dirty {
                    bump(&mut self.a.dirty_end, hi, w);
                    dirty_keys.push((key_of(p), hi, w));
                }
            }
        }
        Tally {
            a: self.a,
            dirty_keys,
            reads: self.reads,
            writes: self.writes,
            trims: self.trims,
            warmup: self.warmup_accesses,
            top: self.top,
            rate: self.scale.rate,
        }
    }
}

/// What one pass counted, per size, before the sizes are summed up.
#[derive(Debug)]
pub(crate) struct Tally {
    a: Arrays,
    /// Pages dirty at the end: key, the smallest size they are dirty at, weight.
    dirty_keys: Vec<(u64, u64, f64)>,
    reads: f64,
    writes: f64,
    trims: f64,
    warmup: u64,
    top: u64,
    rate: f64,
}

impl Tally {
    /// Add the counts of a sample whose sizes lie above this exact head's; the
    /// totals stay the head's, which saw every access.
    pub(crate) fn add_sample(&mut self, s: Tally) {
        let add = |to: &mut Acc, from: Acc| to.add(from);
        add(&mut self.a.read_hit, s.a.read_hit);
        add(&mut self.a.write_hit, s.a.write_hit);
        add(&mut self.a.wb, s.a.wb);
        add(&mut self.a.dirty_end, s.a.dirty_end);
        self.dirty_keys.extend(s.dirty_keys);
        add(&mut self.a.trimmed, s.a.trimmed);
        add(&mut self.a.res_start, s.a.res_start);
        add(&mut self.a.res_end, s.a.res_end);
        self.top = self.top.max(s.top);
        self.rate = s.rate;
    }

    /// Totals counted over every access of a sampled pass replace the sample's
    /// estimates of them, and the difference goes to the hits at the smallest size
    /// (the SHARDS paper's SHARDS_adj, see [`super::shards`]): the sampled misses keep
    /// their weight `1 / rate`, so a hot page that happens to be in (or out of) the
    /// sample moves the hits at the smallest size, not the misses at every size.
    pub(crate) fn adjust(&mut self, t: Totals) {
        bump(&mut self.a.read_hit, 1, t.reads as f64 - self.reads);
        bump(&mut self.a.write_hit, 1, t.writes as f64 - self.writes);
        self.count(t);
    }

    /// The sample's estimates of the totals give way to the totals counted over
    /// every access, and its hits and write-backs scale with them: for fixed-size
    /// SHARDS, whose rate changes during the pass, the sample's hit ratio is kept
    /// rather than [`Tally::adjust`]ed (on the test's skewed trace the adjustment
    /// put a 3-point offset on the whole curve, the ratio under 1 point).
    pub(crate) fn rescale(&mut self, t: Totals) {
        let f = |truth: u64, est: f64| if est > 0.0 { truth as f64 / est } else { 1.0 };
        let (fr, fw) = (f(t.reads, self.reads), f(t.writes, self.writes));
        let scale = |v: &mut Acc, by: f64| v.scale(by);
        scale(&mut self.a.read_hit, fr);
        scale(&mut self.a.write_hit, fw);
        scale(&mut self.a.wb, fw);
        self.count(t);
    }

    /// Take the totals counted over every access (an exact head saw them all).
    pub(crate) fn count(&mut self, t: Totals) {
        self.reads = t.reads as f64;
        self.writes = t.writes as f64;
        self.trims = t.trims as f64;
        self.warmup = t.warmup;
    }

    /// The curve: prefix sums up to `footprint` (or the largest size seen).
    pub(crate) fn curve(mut self, footprint: u64, cfg: &SimConfig) -> LruCurve {
        // Flush-at-end write I/Os: a page dirty at the end is one write from the
        // size it is dirty at up, merged with its key's predecessor where both are.
        let mut ios_end = Acc::new(matches!(self.a.read_hit, Acc::Sparse(_)));
        self.dirty_keys.sort_unstable_by_key(|&(k, _, _)| k);
        let mut prev: Option<(u64, u64)> = None;
        for &(k, m, w) in &self.dirty_keys {
            bump(&mut ios_end, m, w);
            if let Some((pk, pm)) = prev {
                if pk.wrapping_add(1) == k {
                    bump(&mut ios_end, m.max(pm), -w);
                }
            }
            prev = Some((k, m));
        }
        let top = self.top.max(footprint).max(1);
        let n = top as usize + 2;
        let a = &self.a;
        let accs = [
            &a.read_hit,
            &a.write_hit,
            &a.wb,
            &a.dirty_end,
            &ios_end,
            &a.trimmed,
            &a.res_start,
            &a.res_end,
        ];
        // The sizes the prefix sums are kept at: every size below `n`, or for a
        // sample the sizes it counted at (the sums are constant in between).
        let at: Option<Vec<u64>> = match a.read_hit {
            Acc::Dense(_) => None,
            Acc::Sparse(_) => {
                let mut at: Vec<u64> = vec![0];
                for acc in accs {
                    if let Acc::Sparse(m) = acc {
                        at.extend(m.keys().copied().filter(|&i| i < n as u64));
                    }
                }
                at.sort_unstable();
                at.dedup();
                Some(at)
            }
        };
        // Prefix sums: hits and dirty pages up to a size, write-backs at a size.
        let cum = |v: &Acc| -> Vec<f64> {
            let mut acc = 0.0;
            match (v, &at) {
                (Acc::Dense(v), _) => (0..n)
                    .map(|i| {
                        acc += v.get(i).copied().unwrap_or(0.0);
                        acc
                    })
                    .collect(),
                (sparse, Some(at)) => {
                    let e = sparse.sorted();
                    let mut j = 0;
                    at.iter()
                        .map(|&size| {
                            while j < e.len() && e[j].0 <= size {
                                acc += e[j].1;
                                j += 1;
                            }
                            acc
                        })
                        .collect()
                }
                (Acc::Sparse(_), None) => unreachable!("sizes are listed for a sparse pass"),
            }
        };
        LruCurve {
            read_hits: cum(&self.a.read_hit),
            write_hits: cum(&self.a.write_hit),
            page_writes: cum(&self.a.wb),
            dirty_at_end: cum(&self.a.dirty_end),
            write_ios_at_end: cum(&ios_end),
            trimmed: cum(&self.a.trimmed),
            res_start: cum(&self.a.res_start),
            res_end: cum(&self.a.res_end),
            reads: self.reads,
            writes: self.writes,
            trims: self.trims,
            warmup_accesses: self.warmup,
            footprint: footprint.max(1),
            rate: self.rate,
            cfg: *cfg,
            at,
        }
    }
}

/// LRU results at every cache size (see the module docs).
#[derive(Clone, Debug)]
pub struct LruCurve {
    /// The sizes the sums below are kept at, increasing from 0 (a sample's); None
    /// when kept at every size.
    at: Option<Vec<u64>>,
    read_hits: Vec<f64>,
    write_hits: Vec<f64>,
    page_writes: Vec<f64>,
    dirty_at_end: Vec<f64>,
    write_ios_at_end: Vec<f64>,
    trimmed: Vec<f64>,
    res_start: Vec<f64>,
    res_end: Vec<f64>,
    reads: f64,
    writes: f64,
    trims: f64,
    warmup_accesses: u64,
    footprint: u64,
    rate: f64,
    cfg: SimConfig,
}

impl LruCurve {
    /// The footprint (distinct pages; estimated from a sample).
    pub fn footprint(&self) -> u64 {
        self.footprint
    }

    /// The sampling rate at the end (1 when exact).
    pub fn rate(&self) -> f64 {
        self.rate
    }

    /// The metrics of a run at `cache_pages` (block-utilization statistics left
    /// empty), as [`crate::simulate`] reports them.
    pub fn metrics(&self, cache_pages: u32) -> Metrics {
        let c = match &self.at {
            None => (cache_pages.max(1) as usize).min(self.read_hits.len() - 1),
            // The last size kept at or below this one (0 is kept).
            Some(at) => at.partition_point(|&s| s <= u64::from(cache_pages.max(1))) - 1,
        };
        let r = |x: f64| x.round().max(0.0) as u64;
        let reads = r(self.reads);
        let writes = r(self.writes);
        let read_hits = r(self.read_hits[c]).min(reads);
        let write_hits = r(self.write_hits[c]).min(writes);
        let (read_misses, write_misses) = (reads - read_hits, writes - write_hits);
        let misses = read_misses + write_misses;
        let page_reads = read_misses
            + if self.cfg.write_miss_fetch {
                write_misses
            } else {
                0
            };
        let page_writes = r(self.page_writes[c]);
        let dirty_at_end = r(self.dirty_at_end[c]);
        let trimmed_resident = r(self.trimmed[c]);
        let evictions = misses as f64 + self.res_start[c] - self.res_end[c] - self.trimmed[c];
        let flush = self.cfg.flush_at_end;
        let mut m = Metrics {
            capacity: cache_pages,
            pages_per_block: self.cfg.pages_per_block.get(),
            universe: self.footprint,
            warmup_accesses: self.warmup_accesses,
            accesses: reads + writes,
            hits: read_hits + write_hits,
            misses,
            reads,
            read_hits,
            read_misses,
            writes,
            write_hits,
            write_misses,
            page_reads,
            page_writes,
            write_ios: page_writes,
            evictions: r(evictions),
            dirty_at_end,
            writes_at_end: if flush { dirty_at_end } else { 0 },
            write_ios_at_end: if flush {
                r(self.write_ios_at_end[c])
            } else {
                0
            },
            trims: r(self.trims),
            trimmed_resident,
            io_time_ns: self.cfg.cost.io_time_ns(page_reads, page_writes),
            // LRU evicts one page at a time and pads nothing: no groups, no pads.
            groups: 0,
            pad_reads: 0,
            pad_writes: 0,
            // The stack pass does not follow write-backs block by block (`wafer sim`
            // does), nor sample a policy series.
            block_utilization: Default::default(),
            series: None,
            // Filled from the counts below.
            hit_ratio: 0.0,
            read_hit_ratio: 0.0,
            write_hit_ratio: 0.0,
        };
        m.finish_ratios();
        m
    }
}

/// References ahead whose page state [`exact`] prefetches (their tree nodes at half
/// the distance).
const PREFETCH_AHEAD: usize = 16;

/// Exact LRU results at every size of trace `t` under `cfg` (its capacity is
/// ignored); `progress` gets the number of accesses done now and then.
pub fn exact(
    t: &PreparedTrace,
    cfg: &SimConfig,
    progress: &mut dyn FnMut(u64),
) -> Result<LruCurve, SimError> {
    if t.granularity() != cfg.granularity {
        return Err(SimError::Invalid(format!(
            "the prepared trace was expanded with {:?}, the curve asks for {:?}",
            t.granularity(),
            cfg.granularity
        )));
    }
    let mut core = LruCore::new(t.universe(), 1.0);
    let mut index = 0u64;
    let pages = t.pages();
    for (i, (&page, &op)) in pages.iter().zip(t.ops()).enumerate() {
        // The references to come are known: their random loads (per-page state, slot,
        // then the slot's tree node) are issued ahead, in two stages, so that their
        // cache misses overlap instead of stalling one reference at a time.
        if let Some(&q) = pages.get(i + PREFETCH_AHEAD) {
            core.prefetch_page(q);
        }
        if let Some(&q) = pages.get(i + PREFETCH_AHEAD / 2) {
            core.stack.prefetch_slot(q);
        }
        let measured = index >= cfg.warmup;
        if op == Op::Trim {
            core.trim(page, measured, HeadView::default());
            continue;
        }
        core.access(page, op == Op::Write, measured, HeadView::default());
        index += 1;
        if index % (1 << 16) == 0 {
            progress(index);
        }
    }
    progress(index);
    let keys = t.keys();
    Ok(core
        .tally(|p| keys[p as usize], &|_| HeadView::default())
        .curve(u64::from(t.universe()), cfg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::after::NullSink;
    use crate::engine::{simulate, Input};
    use crate::params::NoParams;
    use crate::policies::lru::Lru;
    use crate::testutil::requests;
    use wafer_trace::Request;

    fn engine(t: &PreparedTrace, cfg: &SimConfig, c: u32) -> Metrics {
        let cfg = SimConfig {
            capacity_pages: c,
            ..*cfg
        };
        let mut m = simulate::<Lru, _>(
            &NoParams,
            Input::Prepared(t),
            &cfg,
            &mut NullSink,
            &mut |_| {},
        )
        .unwrap();
        m.block_utilization = Default::default();
        m
    }

    /// Hand-worked: `W1 R2 R3 R4 W2 R1`. Depths: R4 -, W2 at 3, R1 at 4 (the end
    /// depths: 1 is 1, 2 is 2). Page 1's interval (W1 .. end) reaches depth 4 at R1:
    /// written back below 4, dirty at the end from 4 up. Page 2's (W2 .. end) ends at
    /// depth 2: written back at size 1 only.
    #[test]
    fn hand_worked_vector() {
        let cfg = SimConfig::default();
        let t =
            PreparedTrace::from_requests(cfg.granularity, &requests("W1 R2 R3 R4 W2 R1")).unwrap();
        let curve = exact(&t, &cfg, &mut |_| {}).unwrap();
        let row = |c| {
            let m = curve.metrics(c);
            (
                m.read_hits,
                m.write_hits,
                m.page_reads,
                m.page_writes,
                m.dirty_at_end,
            )
        };
        assert_eq!(row(1), (0, 0, 4, 2, 0));
        assert_eq!(row(2), (0, 0, 4, 1, 1));
        assert_eq!(row(3), (0, 1, 4, 1, 1));
        assert_eq!(row(4), (1, 1, 3, 0, 2));
        assert_eq!(curve.footprint(), 4);
        for c in 1..=5 {
            assert_eq!(curve.metrics(c), engine(&t, &cfg, c), "size {c}");
        }
    }

    /// Random traces with multi-page requests, two devices, trims, warm-up,
    /// write-miss fetch and flush-at-end: every size equals the engine's run.
    #[test]
    fn equals_the_engine_at_every_size() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(18);
        for round in 0..24 {
            let n = rng.gen_range(50..400);
            let span = rng.gen_range(4..80u64);
            let reqs: Vec<Request> = (0..n)
                .map(|i| Request {
                    time_ns: i,
                    offset: rng.gen_range(0..span) * 4096 + rng.gen_range(0..2) * 100,
                    len: rng.gen_range(1..4) * 4096,
                    dev: rng.gen_range(0..2),
                    op: match rng.gen_range(0..10) {
                        0..=4 => Op::Read,
                        5..=8 => Op::Write,
                        _ => Op::Trim,
                    },
                })
                .collect();
            let cfg = SimConfig {
                warmup: if round % 3 == 0 {
                    rng.gen_range(0..n)
                } else {
                    0
                },
                write_miss_fetch: round % 2 == 1,
                flush_at_end: round % 4 < 2,
                ..SimConfig::default()
            };
            let t = PreparedTrace::from_requests(cfg.granularity, &reqs).unwrap();
            let curve = exact(&t, &cfg, &mut |_| {}).unwrap();
            for c in 1..=t.universe() + 1 {
                assert_eq!(
                    curve.metrics(c),
                    engine(&t, &cfg, c),
                    "round {round}, size {c}"
                );
            }
        }
    }
}
