//! What a replay reports: where it wrote, with what data, how long it took, and the
//! service-time distribution of reads and writes apart (the figures the workload player
//! of paper 003, the Sorted-Clock paper, reports: elapsed time and read/write
//! throughput).

use crate::histogram::{Histogram, LatencySummary};
use crate::plan::{DevSlot, Scan};
use crate::player::Timing;
use crate::target::TargetKind;
use serde::Serialize;
use std::path::PathBuf;

/// The whole report (`--json` prints it as is).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// `threads` (the built-in pool) or `fio`.
    pub engine: String,
    /// The trace replayed.
    pub trace: PathBuf,
    /// What the first pass over the trace found.
    pub scan: Scan,
    /// The storage written to.
    pub target: TargetReport,
    /// The addresses the replay may touch.
    pub range: RangeReport,
    /// The data every written page carries (`None` with fio, which writes its own).
    pub pattern: Option<PatternReport>,
    /// I/Os in flight at most.
    pub queue_depth: u32,
    /// When requests were issued.
    pub timing: Timing,
    /// Requests replayed (reads and writes; trims and zero-length requests are not).
    pub requests: u64,
    /// Seconds from the first I/O to the last completion, plus the final sync.
    pub elapsed_s: f64,
    /// Seconds of the final `fdatasync` (included in `elapsed_s`).
    pub sync_s: f64,
    /// Reads.
    pub read: OpReport,
    /// Writes.
    pub write: OpReport,
    /// Reads and writes together.
    pub total: OpReport,
    /// Largest delay behind the trace's timestamps, ms (`--timing trace` only).
    pub max_lag_ms: Option<f64>,
    /// The read-back (`--verify`).
    pub verify: Option<VerifyReport>,
    /// Things the user should know (O_DIRECT refused, trims skipped, ...).
    pub warnings: Vec<String>,
}

/// The target.
#[derive(Clone, Debug, Serialize)]
pub struct TargetReport {
    /// Path.
    pub path: PathBuf,
    /// File or block device.
    pub kind: TargetKind,
    /// Size in bytes.
    pub bytes: u64,
    /// Whether the player created the file.
    pub created: bool,
    /// Bytes `[from, to)` the player preallocated, if any.
    pub preallocated: Option<(u64, u64)>,
    /// How it preallocates.
    pub preallocation: &'static str,
    /// Whether O_DIRECT was in effect.
    pub direct_io: bool,
}

/// The announced range.
#[derive(Clone, Debug, Serialize)]
pub struct RangeReport {
    /// First byte (always 0).
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    /// Page size: requests are replayed as the whole pages they touch.
    pub page_size: u32,
    /// Whether addresses beyond the target were mapped modulo its size.
    pub wrap: bool,
    /// Requests with a wrapped page.
    pub wrapped_requests: u64,
    /// Bytes of the trace's layout before wrapping.
    pub span_bytes: u64,
    /// Where each device of the trace starts.
    pub layout: Vec<DevSlot>,
}

/// The data pattern.
#[derive(Clone, Debug, Serialize)]
pub struct PatternReport {
    /// Its name.
    pub name: &'static str,
    /// The seed (word 1 of every page).
    pub seed: u64,
    /// Page size.
    pub page_size: u32,
    /// Word by word.
    pub description: &'static str,
}

/// Counts and service times of one kind of I/O.
#[derive(Clone, Debug, Default, Serialize)]
pub struct OpReport {
    /// I/Os completed.
    pub ios: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Bytes / 10^6 / elapsed seconds of the whole replay.
    pub mb_per_s: f64,
    /// I/Os / elapsed seconds of the whole replay.
    pub iops: f64,
    /// Service time per I/O.
    pub latency: LatencySummary,
}

impl OpReport {
    /// From a histogram of service times and the bytes moved, over `elapsed_s`.
    pub fn new(h: &Histogram, bytes: u64, elapsed_s: f64) -> OpReport {
        OpReport::from_summary(LatencySummary::of(h), bytes, elapsed_s)
    }

    /// From a ready summary.
    pub fn from_summary(latency: LatencySummary, bytes: u64, elapsed_s: f64) -> OpReport {
        let rate = |x: f64| if elapsed_s > 0.0 { x / elapsed_s } else { 0.0 };
        OpReport {
            ios: latency.count,
            bytes,
            mb_per_s: rate(bytes as f64 / 1e6),
            iops: rate(latency.count as f64),
            latency,
        }
    }
}

/// The read-back.
#[derive(Clone, Debug, Serialize)]
pub struct VerifyReport {
    /// Distinct pages read back; each carried the pattern of its last write.
    pub pages: u64,
    /// Seconds it took.
    pub seconds: f64,
}
