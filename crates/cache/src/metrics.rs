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

use serde::{Deserialize, Serialize};

/// Distribution of the number of pages each write burst carries to one erase block.
///
/// A burst is an eviction group, or a maximal run of consecutive storage writes
/// (write-backs and padding writes) to the same block. In the default variant the run
/// is taken over the write stream only: reads and clean drops between two writes do not
/// end it (the FTL sees the writes in that order). In the strict variant any storage
/// read (of a missed page) ends the run. Group boundaries end a run in both. Writes
/// of flush-at-end are not counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BurstStats {
    /// Number of bursts.
    pub bursts: u64,
    /// Pages written in bursts.
    pub pages: u64,
    /// Mean pages per burst (0 with no bursts).
    pub mean_pages: f64,
    /// `mean_pages / pages_per_block`.
    pub mean_utilization: f64,
    /// `[pages in burst, number of bursts]`, ascending, non-zero rows only.
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
    /// Cache capacity in pages.
    pub capacity: u32,
    /// Pages per erase block used for block numbers.
    pub pages_per_block: u32,
    /// Distinct pages in the trace (its footprint), trimmed-only pages included.
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

/// Builds a [`BurstStats`] from a stream of (block, write) events.
#[derive(Clone, Debug)]
pub(crate) struct BurstTracker {
    block: u64,
    count: u32,
    hist: Vec<u64>,
}

impl Default for BurstTracker {
    fn default() -> Self {
        BurstTracker {
            block: u64::MAX,
            count: 0,
            hist: Vec::new(),
        }
    }
}

impl BurstTracker {
    /// A write of one page to `block`.
    #[inline]
    pub(crate) fn write(&mut self, block: u64) {
        if self.count > 0 && block == self.block {
            self.count += 1;
        } else {
            self.end();
            self.block = block;
            self.count = 1;
        }
    }

    /// End the current run, if any.
    #[inline]
    pub(crate) fn end(&mut self) {
        if self.count > 0 {
            let c = self.count as usize;
            if c >= self.hist.len() {
                self.hist.resize(c + 1, 0);
            }
            self.hist[c] += 1;
            self.count = 0;
        }
    }

    /// Close the last run and summarise.
    pub(crate) fn stats(mut self, pages_per_block: u32) -> BurstStats {
        self.end();
        let histogram: Vec<(u32, u64)> = self
            .hist
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(c, &n)| (c as u32, n))
            .collect();
        let bursts: u64 = histogram.iter().map(|&(_, n)| n).sum();
        let pages: u64 = histogram.iter().map(|&(c, n)| u64::from(c) * n).sum();
        let mean_pages = if bursts == 0 {
            0.0
        } else {
            pages as f64 / bursts as f64
        };
        BurstStats {
            bursts,
            pages,
            mean_pages,
            mean_utilization: mean_pages / f64::from(pages_per_block.max(1)),
            histogram,
        }
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

    #[test]
    fn bursts_follow_block_runs() {
        let mut t = BurstTracker::default();
        for b in [1, 1, 1, 2, 1, 1] {
            t.write(b);
        }
        let s = t.stats(4);
        assert_eq!(s.histogram, vec![(1, 1), (2, 1), (3, 1)]);
        assert_eq!(s.bursts, 3);
        assert_eq!(s.pages, 6);
        assert_eq!(s.mean_pages, 2.0);
        assert_eq!(s.mean_utilization, 0.5);
    }

    #[test]
    fn an_explicit_end_splits_a_run() {
        let mut t = BurstTracker::default();
        t.write(7);
        t.end();
        t.end();
        t.write(7);
        assert_eq!(t.stats(1).histogram, vec![(1, 2)]);
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
