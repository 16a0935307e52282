//! Counters every FTL keeps and the report derived from them.
//!
//! WAF = flash page programs (host + GC/merge copies) / host page writes. The erase
//! distribution covers the measured window (erases since the last
//! [`crate::Ftl::reset_counters`]); `max_wear` is the lifetime maximum including aging.
//! Lifetime projection: with `E` erases per block per second (window mean, i.e. perfect
//! wear levelling, or window maximum, i.e. none), a block reaches its P/E limit after
//! `limit / E` seconds; the workload's duration is given by the caller (a trace's time
//! span), since an FTL has no clock of its own.

use serde::Serialize;

/// Raw event counts of one measurement window.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Host page reads.
    pub host_read_pages: u64,
    /// Host page writes.
    pub host_write_pages: u64,
    /// Host page trims.
    pub host_trim_pages: u64,
    /// Host reads of pages that hold no data (never written or trimmed); no flash read
    /// is issued for them.
    pub unwritten_reads: u64,
    /// Flash page reads serving host reads.
    pub flash_reads_host: u64,
    /// Flash page reads for GC / merge copies.
    pub flash_reads_gc: u64,
    /// Flash page programs of host data.
    pub programs_host: u64,
    /// Flash page programs of GC / merge copies.
    pub programs_gc: u64,
    /// Block erases.
    pub erases: u64,
    /// FAST switch merges.
    pub switch_merges: u64,
    /// FAST partial merges.
    pub partial_merges: u64,
    /// FAST full merges (one per logical block merged).
    pub full_merges: u64,
    /// Block-level read-modify-writes.
    pub read_modify_writes: u64,
    /// Garbage collections (page-level: victim blocks cleaned; FAST: RW log victims).
    pub gc_invocations: u64,
    /// Sum of all flash operation latencies, ns.
    pub busy_ns: u64,
}

/// Summary statistics of per-block erase counts.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EraseStats {
    /// Largest per-block erase count in the window.
    pub max: u64,
    /// Mean per-block erase count.
    pub mean: f64,
    /// Population standard deviation.
    pub stddev: f64,
    /// Width of each histogram bin (erase counts).
    pub bin_width: u64,
    /// Blocks per bin: bin `i` holds counts in `[i*bin_width, (i+1)*bin_width)`.
    pub histogram: Vec<u64>,
    /// Largest lifetime erase count of any block (aging included).
    pub max_wear: u64,
}

/// Lifetime projected from the P/E limit and the workload's write rate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Lifetime {
    /// P/E cycles a block endures.
    pub pe_limit: u64,
    /// Workload duration the window's counters cover, seconds.
    pub window_s: f64,
    /// Years until the mean block wears out (ideal wear levelling).
    pub years_mean: f64,
    /// Years until the most-erased block wears out (no wear levelling).
    pub years_max: f64,
    /// Host bytes writable before wear-out at this WAF (ideal wear levelling).
    pub host_bytes_writable: f64,
}

/// Everything an FTL reports.
#[derive(Clone, Debug, Serialize)]
pub struct Metrics {
    /// FTL kind (`page`, `fast`, `block`).
    pub ftl: String,
    /// The counters.
    #[serde(flatten)]
    pub counters: Counters,
    /// Flash programs / host page writes (0 when nothing was written, which JSON
    /// shows as null: there is no ratio, and 0 would read as a measurement).
    #[serde(serialize_with = "zero_as_null")]
    pub waf: f64,
    /// Per-block erase distribution.
    pub erase: EraseStats,
    /// Busy time per channel, ns.
    pub channel_busy_ns: Vec<u64>,
    /// Busy time of the busiest channel: the time estimate with channels in parallel.
    pub parallel_busy_ns: u64,
    /// P/E limit of the cells.
    pub pe_limit: u64,
    /// Filled by [`Metrics::project_lifetime`].
    pub lifetime: Option<Lifetime>,
}

/// A WAF of 0 (nothing written) as null.
fn zero_as_null<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if *v == 0.0 {
        s.serialize_none()
    } else {
        s.serialize_f64(*v)
    }
}

impl Metrics {
    /// Project the device lifetime assuming the window took `window_s` seconds of
    /// workload time. Ignored when `window_s` is not positive.
    pub fn project_lifetime(&mut self, window_s: f64, physical_bytes: u64) {
        if window_s <= 0.0 || !window_s.is_finite() {
            return;
        }
        let years = |per_block: f64| {
            if per_block <= 0.0 {
                f64::INFINITY
            } else {
                self.pe_limit as f64 / (per_block / window_s) / (365.25 * 86_400.0)
            }
        };
        let host_bytes_writable = if self.waf > 0.0 {
            self.pe_limit as f64 * physical_bytes as f64 / self.waf
        } else {
            f64::INFINITY
        };
        self.lifetime = Some(Lifetime {
            pe_limit: self.pe_limit,
            window_s,
            years_mean: years(self.erase.mean),
            years_max: years(self.erase.max as f64),
            host_bytes_writable,
        });
    }
}

/// Bins of the erase histogram.
const HIST_BINS: u64 = 16;

/// Erase statistics from lifetime counts and the counts at the window start.
pub(crate) fn erase_stats(now: &[u32], base: &[u32]) -> EraseStats {
    let n = now.len().max(1) as f64;
    let mut max = 0u64;
    let mut sum = 0f64;
    let mut sq = 0f64;
    let mut max_wear = 0u64;
    for (&a, &b) in now.iter().zip(base) {
        let d = u64::from(a - b);
        max = max.max(d);
        max_wear = max_wear.max(u64::from(a));
        sum += d as f64;
        sq += (d * d) as f64;
    }
    let mean = sum / n;
    let stddev = (sq / n - mean * mean).max(0.0).sqrt();
    let bin_width = (max + 1).div_ceil(HIST_BINS).max(1);
    let bins = (max / bin_width + 1) as usize;
    let mut histogram = vec![0u64; bins];
    for (&a, &b) in now.iter().zip(base) {
        histogram[(u64::from(a - b) / bin_width) as usize] += 1;
    }
    EraseStats {
        max,
        mean,
        stddev,
        bin_width,
        histogram,
        max_wear,
    }
}
