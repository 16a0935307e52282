//! What one simulation run measured (`docs/cache.md`, "Metrics").
//!
//! Definitions (all counts are in pages unless named `_ios`):
//! * `accesses = hits + misses`, split by reads and writes; warm-up accesses are not
//!   counted. `hit_ratio = hits / accesses` (0 when there are no accesses).
//! * `page_reads`: storage reads of missed pages (read misses, plus write misses when
//!   fetch-on-write-miss is on). `pad_reads`: padding reads of block-level policies.
//! * `page_writes`: dirty pages written back during the run. `pad_writes`: clean or
//!   padded pages written as part of a block write. `writes_at_end`: dirty pages
//!   written by flush-at-end (0 without it). `dirty_at_end`: dirty pages resident when
//!   the trace ends, whether or not they were flushed.
//! * `write_ios`: write operations after merging, within the write-backs of one access
//!   (which includes one eviction group), each page whose key follows the previous
//!   written page's key into one I/O. Flush-at-end writes are merged the same way
//!   (ascending order, one flush) and counted in `write_ios_at_end`.
//! * `evictions`: pages the policy dropped (`write-backs + clean drops`); padding
//!   writes are not evictions.
//! * `io_time_ns = (page_reads + pad_reads) x t_r + (page_writes + pad_writes) x t_w`
//!   (the cost model of paper 002: H. Lee, H. Bahn, K. G. Shin, "Page Replacement
//!   for Write References in NAND Flash Based Virtual Memory Systems", JCSE 8(3),
//!   2014); flush-at-end writes are excluded, as from
//!   `page_writes`.
//! * Write-back block utilization (paper 000, TS-CLOCK: Kang, Min, Eom, IEEE MASCOTS
//!   2014, Fig. 5): see [`BurstStats`].

use std::num::NonZeroU32;

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

/// Number of utilization ranges of [`BurstStats`]: `(0, 10%]`, `(10, 20%]`, ...,
/// `(90, 100%]`. Ranges of equal width read directly as utilization whatever the
/// block size, so runs with different blocks compare; ten are as fine as a chart of
/// several policies per range stays legible. Closed at the top, so a whole block
/// lands in the last range and no burst (which writes at least one page) in none.
pub const UTILIZATION_RANGES: usize = 10;

/// The range of a burst of `pages` distinct pages out of `ppb`:
/// `i` with `pages / ppb` in `(i / 10, (i + 1) / 10]`, exact in integers.
fn utilization_range(pages: u32, ppb: NonZeroU32) -> usize {
    let tenths = (u64::from(pages) * UTILIZATION_RANGES as u64).div_ceil(u64::from(ppb.get()));
    (tenths.clamp(1, UTILIZATION_RANGES as u64) - 1) as usize
}

/// Block utilization of write bursts (paper 000 Fig. 5): how much of one erase block
/// each write burst fills.
///
/// A burst is an eviction group, or a maximal run of consecutive storage writes
/// (write-backs and padding writes) to the same block. In the default variant the run
/// is taken over the write stream only: reads and clean drops between two writes do not
/// end it (the FTL sees the writes in that order). In the strict variant any storage
/// read (of a missed page) ends the run. Group boundaries end a run in both. Writes
/// of flush-at-end are not counted.
///
/// A burst's utilization is the number of *distinct* pages of the block it writes
/// divided by `pages_per_block`, so it lies in `(0, 1]`: what the FTL has to merge
/// depends on which pages of the block are new, not on how often one was written.
/// A write of a page the burst has already written is counted in `rewrites`; it
/// neither ends the burst (the block is still the one being written) nor adds to its
/// size. Every counted write is thus either one of `pages` or one of `rewrites`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BurstStats {
    /// Number of bursts (write operations of Fig. 5).
    pub bursts: u64,
    /// Distinct pages written, summed over the bursts.
    pub pages: u64,
    /// Writes of a page already written in the same burst.
    pub rewrites: u64,
    /// Mean distinct pages per burst (0 with no bursts).
    pub mean_pages: f64,
    /// `mean_pages / pages_per_block`: the mean burst utilization, at most 1.
    pub mean_utilization: f64,
    /// Bursts that write every page of their block (utilization exactly 1): they
    /// leave no valid page behind in the block's old copy. Counted in the last range
    /// too.
    pub full: u64,
    /// Bursts per utilization range ([`UTILIZATION_RANGES`]); sums to `bursts`.
    pub bursts_by_utilization: [u64; UTILIZATION_RANGES],
    /// Distinct pages per utilization range (the page-weighted view); sums to `pages`.
    pub pages_by_utilization: [u64; UTILIZATION_RANGES],
    /// `[distinct pages in burst, number of bursts]`, ascending, non-zero rows only.
    pub histogram: Vec<(u32, u64)>,
}

/// Write-back bursts of both variants.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BlockUtilization {
    /// Runs over the write stream only (the paper's Fig. 5 view).
    pub write_stream: BurstStats,
    /// Runs that any storage read ends.
    pub strict: BurstStats,
}

/// A time series a policy exposes (CRAW's area sizes), sampled every N accesses.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Column names.
    pub names: Vec<String>,
    /// Access index of each sample (measured accesses, after warm-up).
    pub at: Vec<u64>,
    /// One row per sample, one value per name.
    pub values: Vec<Vec<f64>>,
}

/// The metrics record of one run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Cache capacity in pages (`capacity_pages` in every output).
    #[serde(rename = "capacity_pages", alias = "capacity")]
    pub capacity: u32,
    /// Pages per erase block used for block numbers.
    pub pages_per_block: u32,
    /// Distinct pages in the trace (its footprint), trimmed-only pages included
    /// (`footprint_pages` in every output).
    #[serde(rename = "footprint_pages", alias = "universe")]
    pub universe: u64,
    /// Accesses of the warm-up prefix (not counted below).
    pub warmup_accesses: u64,
    /// Measured page accesses.
    pub accesses: u64,
    /// Hits.
    pub hits: u64,
    /// Misses.
    pub misses: u64,
    /// Read accesses.
    pub reads: u64,
    /// Read hits.
    pub read_hits: u64,
    /// Read misses.
    pub read_misses: u64,
    /// Write accesses.
    pub writes: u64,
    /// Write hits.
    pub write_hits: u64,
    /// Write misses.
    pub write_misses: u64,
    /// `hits / accesses`.
    pub hit_ratio: f64,
    /// `read_hits / reads`.
    pub read_hit_ratio: f64,
    /// `write_hits / writes`.
    pub write_hit_ratio: f64,
    /// Storage page reads of missed pages.
    pub page_reads: u64,
    /// Storage page writes (write-backs of dirty pages).
    pub page_writes: u64,
    /// Padding reads (block-level policies).
    pub pad_reads: u64,
    /// Padding writes (block-level policies).
    pub pad_writes: u64,
    /// Storage write operations after merging consecutive pages.
    pub write_ios: u64,
    /// Pages dropped by the policy (written back or clean).
    pub evictions: u64,
    /// Eviction groups reported.
    pub groups: u64,
    /// Dirty pages resident at the end.
    pub dirty_at_end: u64,
    /// Pages written by flush-at-end.
    pub writes_at_end: u64,
    /// Write operations of flush-at-end after merging.
    pub write_ios_at_end: u64,
    /// Trimmed pages (passed through).
    pub trims: u64,
    /// Trimmed pages that were resident (dropped without I/O).
    pub trimmed_resident: u64,
    /// Storage time under the read/write cost model, in ns.
    pub io_time_ns: u64,
    /// Write-back block utilization (paper 000, Fig. 5).
    pub block_utilization: BlockUtilization,
    /// The policy's own series, if sampling was asked for and the policy has one.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub series: Option<Series>,
}

impl Metrics {
    /// Fill the ratios from the counts.
    pub(crate) fn finish_ratios(&mut self) {
        fn ratio(a: u64, b: u64) -> f64 {
            if b == 0 {
                0.0
            } else {
                a as f64 / b as f64
            }
        }
        self.hit_ratio = ratio(self.hits, self.accesses);
        self.read_hit_ratio = ratio(self.read_hits, self.reads);
        self.write_hit_ratio = ratio(self.write_hits, self.writes);
    }
}

/// Pages of a block up to which [`PageSet`] keeps a bitset (8 KiB): 256 MiB blocks
/// of 4 KiB pages, 32 MiB blocks of 512 B pages. Blocks are rarely larger, but the
/// block size is the user's choice (up to 2^32 - 1 pages), so pages beyond it go to
/// a hash set rather than to a bitset of up to 512 MiB.
const BITSET_PAGES: u32 = 1 << 16;

/// A set of pages of one block: a bitset, with the range of words in use (clearing
/// touches only those), and a hash set for pages beyond [`BITSET_PAGES`].
#[derive(Clone, Debug)]
struct PageSet {
    bits: Vec<u64>,
    /// Words `lo..=hi` may hold set bits; `lo > hi` when none does.
    lo: usize,
    hi: usize,
    far: FxHashSet<u32>,
}

impl PageSet {
    fn new(ppb: NonZeroU32) -> PageSet {
        PageSet {
            bits: vec![0; ppb.get().min(BITSET_PAGES).div_ceil(64) as usize],
            lo: usize::MAX,
            hi: 0,
            far: FxHashSet::default(),
        }
    }

    /// Add page `offset` of the block; false if it was there.
    #[inline]
    fn insert(&mut self, offset: u32) -> bool {
        let i = (offset / 64) as usize;
        match self.bits.get_mut(i) {
            Some(w) => {
                let m = 1u64 << (offset % 64);
                let new = *w & m == 0;
                *w |= m;
                self.lo = self.lo.min(i);
                self.hi = self.hi.max(i);
                new
            }
            None => self.far.insert(offset),
        }
    }

    fn clear(&mut self) {
        if self.lo <= self.hi {
            self.bits[self.lo..=self.hi].fill(0);
        }
        (self.lo, self.hi) = (usize::MAX, 0);
        if !self.far.is_empty() {
            self.far.clear();
        }
    }
}

/// State of the open burst of a [`BurstTracker`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Open {
    /// No burst is open.
    None,
    /// Its pages are the pages `first..next` of the block.
    Run,
    /// Its pages are in the page set.
    Set,
}

/// Builds a [`BurstStats`] from a stream of write events (block, page within it).
///
/// Bursts of page-level policies are mostly one page, or pages in a row (a request's
/// pages, evicted together in page order; a block-level policy's block in page
/// order), so while a burst's pages form one run they are kept as just that: the
/// page after it extends it (one compare), a page inside it is a rewrite. Only a
/// page apart from the run moves the burst into the page set.
#[derive(Clone, Debug)]
pub(crate) struct BurstTracker {
    ppb: NonZeroU32,
    open: Open,
    block: u64,
    first: u32,
    next: u32,
    /// Distinct pages, in state [`Open::Set`].
    count: u32,
    pages: PageSet,
    rewrites: u64,
    /// Bursts by distinct pages.
    hist: Vec<u64>,
}

impl BurstTracker {
    /// A tracker for blocks of `ppb` pages.
    pub(crate) fn new(ppb: NonZeroU32) -> BurstTracker {
        BurstTracker {
            ppb,
            open: Open::None,
            block: 0,
            first: 0,
            next: 0,
            count: 0,
            pages: PageSet::new(ppb),
            rewrites: 0,
            hist: Vec::new(),
        }
    }

    /// A write of page `offset` (`< ppb`) of `block`.
    #[inline(always)]
    pub(crate) fn write(&mut self, block: u64, offset: u32) {
        debug_assert!(
            offset < self.ppb.get(),
            "page {offset} of a {}-page block",
            self.ppb
        );
        if block != self.block {
            self.record();
            self.start(block, offset);
            return;
        }
        match self.open {
            Open::Run => {
                if offset == self.next {
                    self.next += 1;
                } else if offset.wrapping_sub(self.first) < self.next - self.first {
                    self.rewrites += 1;
                } else {
                    self.off_run(offset);
                }
            }
            Open::Set => {
                if self.pages.insert(offset) {
                    self.count += 1;
                } else {
                    self.rewrites += 1;
                }
            }
            Open::None => self.start(block, offset),
        }
    }

    /// Open a burst with page `offset` of `block`.
    #[inline(always)]
    fn start(&mut self, block: u64, offset: u32) {
        (self.open, self.block, self.first, self.next) = (Open::Run, block, offset, offset + 1);
    }

    /// A page of the run's block outside the run: the one before it extends it, any
    /// other moves the burst into the page set.
    fn off_run(&mut self, offset: u32) {
        if offset + 1 == self.first {
            self.first = offset;
            return;
        }
        for p in self.first..self.next {
            self.pages.insert(p);
        }
        self.pages.insert(offset);
        self.count = self.next - self.first + 1;
        self.open = Open::Set;
    }

    /// Count the open burst, if any, leaving it open.
    #[inline(always)]
    fn record(&mut self) {
        let n = match self.open {
            Open::None => return,
            Open::Run => self.next - self.first,
            Open::Set => {
                self.pages.clear();
                self.count
            }
        } as usize;
        match self.hist.get_mut(n) {
            Some(h) => *h += 1,
            None => self.first_of_size(n),
        }
    }

    /// End the open burst, if any.
    #[inline(always)]
    pub(crate) fn end(&mut self) {
        self.record();
        self.open = Open::None;
    }

    #[cold]
    fn first_of_size(&mut self, n: usize) {
        self.hist.resize(n + 1, 0);
        self.hist[n] = 1;
    }

    /// Close the last burst and summarise.
    pub(crate) fn stats(mut self) -> BurstStats {
        self.end();
        let ppb = self.ppb;
        let mut s = BurstStats {
            rewrites: self.rewrites,
            ..BurstStats::default()
        };
        for (n, &count) in self.hist.iter().enumerate().filter(|&(_, &c)| c > 0) {
            let n = n as u32;
            let r = utilization_range(n, ppb);
            s.bursts += count;
            s.pages += u64::from(n) * count;
            s.bursts_by_utilization[r] += count;
            s.pages_by_utilization[r] += u64::from(n) * count;
            if n == ppb.get() {
                s.full += count;
            }
            s.histogram.push((n, count));
        }
        if s.bursts > 0 {
            s.mean_pages = s.pages as f64 / s.bursts as f64;
        }
        s.mean_utilization = s.mean_pages / f64::from(ppb.get());
        s
    }
}

/// Counts write I/Os after merging consecutive keys within one scope (one access).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MergeTracker {
    scope: u64,
    key: u64,
    pub(crate) ios: u64,
}

impl Default for MergeTracker {
    fn default() -> Self {
        MergeTracker {
            scope: u64::MAX,
            key: u64::MAX,
            ios: 0,
        }
    }
}

impl MergeTracker {
    /// A page write of `key` caused within `scope`.
    #[inline]
    pub(crate) fn write(&mut self, scope: u64, key: u64) {
        if !(scope == self.scope && self.key != u64::MAX && key == self.key + 1) {
            self.ios += 1;
        }
        self.scope = scope;
        self.key = key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nz(n: u32) -> NonZeroU32 {
        NonZeroU32::new(n).unwrap()
    }

    #[test]
    fn bursts_follow_block_runs() {
        let mut t = BurstTracker::new(nz(4));
        for (b, o) in [(1, 0), (1, 1), (1, 2), (2, 0), (1, 3), (1, 0)] {
            t.write(b, o);
        }
        let s = t.stats();
        assert_eq!(s.histogram, vec![(1, 1), (2, 1), (3, 1)]);
        assert_eq!((s.bursts, s.pages, s.rewrites, s.full), (3, 6, 0, 0));
        assert_eq!(s.mean_pages, 2.0);
        assert_eq!(s.mean_utilization, 0.5);
        // 1/4, 2/4 and 3/4 of the block: ranges (20,30], (40,50], (70,80].
        assert_eq!(s.bursts_by_utilization, [0, 0, 1, 0, 1, 0, 0, 1, 0, 0]);
        assert_eq!(s.pages_by_utilization, [0, 0, 1, 0, 2, 0, 0, 3, 0, 0]);
    }

    /// Writing a page again within a burst is a rewrite, not a larger burst.
    #[test]
    fn rewrites_do_not_grow_a_burst() {
        let mut t = BurstTracker::new(nz(4));
        for o in [2, 3, 2, 2, 3, 0, 1] {
            t.write(9, o);
        }
        let s = t.stats();
        assert_eq!(s.histogram, vec![(4, 1)]);
        assert_eq!((s.bursts, s.pages, s.rewrites, s.full), (1, 4, 3, 1));
        assert_eq!(s.mean_utilization, 1.0);
        assert_eq!(s.bursts_by_utilization[9], 1);
    }

    #[test]
    fn an_explicit_end_splits_a_run() {
        let mut t = BurstTracker::new(nz(1));
        t.write(7, 0);
        t.end();
        t.end();
        t.write(7, 0);
        let s = t.stats();
        assert_eq!(s.histogram, vec![(1, 2)]);
        assert_eq!((s.rewrites, s.full), (0, 2));
    }

    /// Range edges are exact: 1 of 10 pages is (0, 10%], 11 of 100 is (10, 20%].
    #[test]
    fn utilization_ranges_are_closed_above() {
        assert_eq!(utilization_range(1, nz(10)), 0);
        assert_eq!(utilization_range(2, nz(10)), 1);
        assert_eq!(utilization_range(10, nz(100)), 0);
        assert_eq!(utilization_range(11, nz(100)), 1);
        assert_eq!(utilization_range(1, nz(6144)), 0);
        assert_eq!(utilization_range(6144, nz(6144)), 9);
        assert_eq!(utilization_range(1, nz(1)), 9);
        assert_eq!(utilization_range(u32::MAX, nz(u32::MAX)), 9);
    }

    proptest::proptest! {
        /// The tracker against a set-per-burst model, with blocks small and large
        /// enough to use the bitset and the hash set of pages beyond it.
        #[test]
        fn tracker_matches_a_set_model(
            ppb in proptest::sample::select(vec![1u32, 3, 64, 100, BITSET_PAGES + 100]),
            events in proptest::collection::vec((0u64..3, 0u32..u32::MAX, proptest::bool::weighted(0.1)), 0..300),
        ) {
            let mut t = BurstTracker::new(nz(ppb));
            let mut model: Vec<std::collections::HashSet<u32>> = vec![Default::default()];
            let (mut cur, mut rewrites) = (None, 0u64);
            for &(block, x, end) in &events {
                if end {
                    t.end();
                    model.push(Default::default());
                    continue;
                }
                // Pages cluster near both ends of the block, so they repeat.
                let offset = if x % 2 == 0 { x % ppb.min(8) } else { ppb - 1 - x % ppb.min(8) };
                if cur != Some(block) {
                    model.push(Default::default());
                    cur = Some(block);
                }
                if !model.last_mut().unwrap().insert(offset) {
                    rewrites += 1;
                }
                t.write(block, offset);
            }
            let mut hist = std::collections::BTreeMap::new();
            for s in model.iter().filter(|s| !s.is_empty()) {
                *hist.entry(s.len() as u32).or_insert(0u64) += 1;
            }
            let s = t.stats();
            proptest::prop_assert_eq!(s.histogram, hist.into_iter().collect::<Vec<_>>());
            proptest::prop_assert_eq!(s.rewrites, rewrites);
            proptest::prop_assert_eq!(s.bursts_by_utilization.iter().sum::<u64>(), s.bursts);
            proptest::prop_assert_eq!(s.pages_by_utilization.iter().sum::<u64>(), s.pages);
        }
    }

    #[test]
    fn merging_needs_same_scope_and_next_key() {
        let mut m = MergeTracker::default();
        for (scope, key) in [(0, 5), (0, 6), (0, 7), (0, 9), (1, 10), (1, 11), (2, 11)] {
            m.write(scope, key);
        }
        // {5,6,7} {9} {10,11} {11}
        assert_eq!(m.ios, 4);
    }
}
