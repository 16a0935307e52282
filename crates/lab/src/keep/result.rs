//! [`CellResult`]: what one run measured, and its flat row — the one result row of
//! every front end (`wafer sim`'s table, JSON and CSV, `results.csv`, `.json` and
//! `.parquet`, the Python API), with the same column names everywhere.

use serde::{Deserialize, Serialize};
use wafer_cache::Metrics;

use crate::spec::RunSpec;

/// What the FTL behind the cache measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FtlSummary {
    /// FTL kind.
    pub kind: String,
    /// Host page writes reaching the device.
    pub host_write_pages: u64,
    /// Host page reads.
    pub host_read_pages: u64,
    /// Flash programs of host data.
    pub programs_host: u64,
    /// Flash programs of GC / merge copies.
    pub programs_gc: u64,
    /// Flash reads for copies.
    pub flash_reads_gc: u64,
    /// Block erases.
    pub erases: u64,
    /// FAST switch merges.
    pub switch_merges: u64,
    /// FAST partial merges.
    pub partial_merges: u64,
    /// FAST full merges.
    pub full_merges: u64,
    /// Garbage collections.
    pub gc_invocations: u64,
    /// Write amplification.
    pub waf: f64,
    /// Largest per-block erase count.
    pub erase_max: u64,
    /// Mean per-block erase count.
    pub erase_mean: f64,
    /// Standard deviation of per-block erase counts.
    pub erase_stddev: f64,
    /// Sum of flash operation latencies, ns: the device time without the host link
    /// or waiting (the second column beside `elapsed_ns`).
    pub busy_ns: u64,
    /// Elapsed time of the after-cache replay on the timed device, ns: one request
    /// outstanding at a time, host link, GC and merges on the critical path
    /// (`docs/experiments.md`, "Elapsed time").
    pub elapsed_ns: u64,
    /// Storage operations whose address the run's address map changed (wrapped, or
    /// placed elsewhere by compact).
    pub remapped_ops: u64,
    /// FAST's RW log blocks (None for other FTLs): a parameter every FAST result
    /// must show, since it decides the merge cost of random writes.
    pub rw_log_blocks: Option<u64>,
    /// Erases before flush-at-end began: the lifetime view without the end flush
    /// (equal to `erases` when nothing was flushed).
    pub erases_before_flush: u64,
    /// Host page writes before flush-at-end began.
    pub host_write_pages_before_flush: u64,
    /// Device busy time before flush-at-end began, ns.
    pub busy_ns_before_flush: u64,
    /// Elapsed time of the replay before flush-at-end began, ns.
    pub elapsed_ns_before_flush: u64,
    /// Passes of the cell's own stream that preconditioned the device before the
    /// measured one (`measure = "steady"`; 0 as captured).
    #[serde(default)]
    pub passes: u64,
    /// Whether those passes settled (`crate::steady`); None as captured.
    #[serde(default)]
    pub settled: Option<bool>,
}

impl FtlSummary {
    /// From an FTL report and the replay's elapsed time at the end, and the ones taken
    /// when flush-at-end began.
    pub fn from_metrics(
        m: &wafer_ftl::Metrics,
        elapsed_ns: u64,
        before_flush: Option<&(wafer_ftl::Metrics, u64)>,
        remapped_ops: u64,
        rw_log_blocks: Option<u64>,
    ) -> FtlSummary {
        let c = &m.counters;
        let b = before_flush.map_or(c, |(b, _)| &b.counters);
        let elapsed_before = before_flush.map_or(elapsed_ns, |(_, t)| *t);
        FtlSummary {
            kind: m.ftl.clone(),
            host_write_pages: c.host_write_pages,
            host_read_pages: c.host_read_pages,
            programs_host: c.programs_host,
            programs_gc: c.programs_gc,
            flash_reads_gc: c.flash_reads_gc,
            erases: c.erases,
            switch_merges: c.switch_merges,
            partial_merges: c.partial_merges,
            full_merges: c.full_merges,
            gc_invocations: c.gc_invocations,
            waf: m.waf,
            erase_max: m.erase.max,
            erase_mean: m.erase.mean,
            erase_stddev: m.erase.stddev,
            busy_ns: c.busy_ns,
            elapsed_ns,
            remapped_ops,
            rw_log_blocks,
            erases_before_flush: b.erases,
            host_write_pages_before_flush: b.host_write_pages,
            busy_ns_before_flush: b.busy_ns,
            elapsed_ns_before_flush: elapsed_before,
            passes: 0,
            settled: None,
        }
    }
}

/// The stored result of one cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    /// Cell id.
    pub id: String,
    /// The run.
    pub params: RunSpec,
    /// Cache capacity in pages the size resolved to.
    pub capacity_pages: u32,
    /// Distinct pages of the trace.
    pub footprint_pages: u64,
    /// Wall-clock time of the cell, seconds (not part of the identity).
    pub elapsed_s: f64,
    /// Cache metrics.
    pub cache: Metrics,
    /// Device metrics, if a device was behind the cache.
    pub ftl: Option<FtlSummary>,
    /// A deterministic sample of the after-cache writes: `(access index, page)`.
    pub write_pattern: Vec<(u64, u64)>,
}

impl CellResult {
    /// Estimated storage time, seconds: the device's busy time when there is a
    /// device, else the cache's read/write cost model.
    pub fn io_time_s(&self) -> f64 {
        match &self.ftl {
            Some(f) => f.busy_ns as f64 * 1e-9,
            None => self.cache.io_time_ns as f64 * 1e-9,
        }
    }

    /// Pages written to storage (write-backs + padding writes).
    pub fn write_backs(&self) -> u64 {
        self.cache.page_writes + self.cache.pad_writes
    }

    /// One flat row: every parameter, every scalar metric, version and checksum.
    /// `timing` adds the wall-clock column (left out when comparing runs).
    /// A ratio with nothing under it (a hit ratio without accesses, the WAF of a run
    /// that wrote nothing) is null (empty in CSV): 0 would read as a measurement.
    pub fn row(&self, timing: bool) -> Vec<(String, serde_json::Value)> {
        let mut row = self.columns(timing);
        let zero = |row: &[(String, serde_json::Value)], k: &str| {
            row.iter().any(|(n, v)| n == k && v.as_u64() == Some(0))
        };
        for (ratio, under) in RATIOS {
            if zero(&row, under) {
                if let Some((_, v)) = row.iter_mut().find(|(n, _)| n == ratio) {
                    *v = serde_json::Value::Null;
                }
            }
        }
        row
    }

    /// A row with every column holding a value of its type (the device columns of a
    /// default device, no null ratios), which fixes the Parquet column types.
    pub fn template_row(&self) -> Vec<(String, serde_json::Value)> {
        let mut t = self.clone();
        // Optional columns get a value of their type (a FAST count for the log blocks).
        let f = t.ftl.get_or_insert_with(Default::default);
        f.rw_log_blocks.get_or_insert(0);
        t.columns(true)
    }

    fn columns(&self, timing: bool) -> Vec<(String, serde_json::Value)> {
        use serde_json::Value;
        let mut row: Vec<(String, Value)> = Vec::new();
        let p = &self.params;
        let mut put = |k: &str, v: Value| row.push((k.to_string(), v));
        put("cell_id", self.id.clone().into());
        put("trace", p.trace.clone().into());
        put("trace_checksum", p.trace_checksum.clone().into());
        put("format", p.format.clone().into());
        put("access", serde_json::to_value(p.access).unwrap_or_default());
        put("policy", p.policy.clone().into());
        put("cache", p.cache.clone().into());
        put("capacity_pages", self.capacity_pages.into());
        put("footprint_pages", self.footprint_pages.into());
        put("page_size", p.page_size.get().into());
        put("pages_per_block", p.pages_per_block.get().into());
        put("device", p.device.clone().into());
        put(
            "address_map",
            p.address_map.map(|m| m.name().to_string()).into(),
        );
        put(
            "aging_volume_bytes",
            p.aging.as_ref().map_or(0, |a| a.volume_bytes).into(),
        );
        put(
            "aging_fill",
            p.aging.as_ref().is_some_and(|a| a.fill).into(),
        );
        // The replicate: empty without aging.
        put("aging_seed", p.aging.as_ref().map(|a| a.seed).into());
        put("measure", p.measure.name().into());
        put("warmup", p.warmup.into());
        put("write_miss_fetch", p.write_miss_fetch.into());
        put("flush_at_end", p.flush_at_end.into());
        put("t_read_ns", p.cost.t_read_ns.into());
        put("t_write_ns", p.cost.t_write_ns.into());
        put("wafer_version", p.version.clone().into());
        if let Ok(Value::Object(m)) = serde_json::to_value(&self.cache) {
            for (k, v) in m {
                // `pages_per_block` is a parameter already.
                if v.is_number() && !row.iter().any(|(n, _)| *n == k) {
                    row.push((k, v));
                }
            }
        }
        let bu = &self.cache.block_utilization.write_stream;
        row.push(("wb_bursts".into(), bu.bursts.into()));
        row.push(("wb_rewrites".into(), bu.rewrites.into()));
        row.push(("wb_full_bursts".into(), bu.full.into()));
        row.push(("wb_mean_pages".into(), bu.mean_pages.into()));
        row.push(("wb_mean_utilization".into(), bu.mean_utilization.into()));
        let f = self.ftl.clone().unwrap_or_default();
        if let Ok(Value::Object(m)) = serde_json::to_value(&f) {
            for (k, v) in m {
                let v = if self.ftl.is_none() { Value::Null } else { v };
                row.push((format!("ftl_{k}"), v));
            }
        }
        row.push(("io_time_s".into(), self.io_time_s().into()));
        if timing {
            row.push(("elapsed_s".into(), self.elapsed_s.into()));
        }
        row
    }
}

/// Ratio columns and the count under each: the ratio is null when the count is 0.
const RATIOS: [(&str, &str); 6] = [
    ("hit_ratio", "accesses"),
    ("read_hit_ratio", "reads"),
    ("write_hit_ratio", "writes"),
    ("wb_mean_pages", "wb_bursts"),
    ("wb_mean_utilization", "wb_bursts"),
    ("ftl_waf", "ftl_host_write_pages"),
];

/// Keeps an evenly spaced, deterministic sample of at most `cap` points of a stream
/// of unknown length: every `stride`-th point; when full, every second kept point is
/// dropped and the stride doubles.
#[derive(Clone, Debug)]
pub struct Decimator {
    cap: usize,
    stride: u64,
    seen: u64,
    /// Points kept.
    pub points: Vec<(u64, u64)>,
}

impl Decimator {
    /// A sampler keeping at most `cap` (at least 2) points.
    pub fn new(cap: usize) -> Decimator {
        Decimator {
            cap: cap.max(2),
            stride: 1,
            seen: 0,
            points: Vec::with_capacity(cap.max(2)),
        }
    }

    /// Offer one point.
    #[inline]
    pub fn push(&mut self, p: (u64, u64)) {
        if self.seen % self.stride == 0 {
            if self.points.len() == self.cap {
                let mut i = 0;
                self.points.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.stride *= 2;
                if self.seen % self.stride == 0 {
                    self.points.push(p);
                }
            } else {
                self.points.push(p);
            }
        }
        self.seen += 1;
    }
}

/// Facts about one trace of the experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceInfo {
    /// Label.
    pub label: String,
    /// Path, or `gen: <spec>` for a generated trace.
    pub path: String,
    /// xxh3-64 of the file (or of the generator spec and version), hex.
    pub checksum: String,
    /// Requests.
    pub requests: u64,
    /// Page accesses.
    pub accesses: u64,
    /// Distinct pages.
    pub footprint_pages: u64,
    /// A sample of the before-cache writes: `(access index, page)`.
    pub write_pattern: Vec<(u64, u64)>,
}

/// What a grid run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Runs in the grid.
    pub total: usize,
    /// Runs found in the store.
    pub reused: usize,
    /// Runs computed by this run.
    pub computed: usize,
    /// Whether the run was stopped before computing every cell.
    pub interrupted: bool,
    /// Cells that could not be computed, with their reasons.
    pub failed: Vec<Failure>,
    /// Results present, in grid order.
    pub results: Vec<CellResult>,
    /// The traces (those whose facts are known).
    pub traces: Vec<TraceInfo>,
    /// Wall-clock time of the run, seconds.
    pub elapsed_s: f64,
    /// Worker threads used.
    pub jobs: usize,
}

/// A cell that could not be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The cell's label.
    pub cell: String,
    /// Why, one line.
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimator_keeps_every_stride_th_point() {
        let mut d = Decimator::new(4);
        for i in 0..10 {
            d.push((i, i));
        }
        // [0,1,2,3]; at 4: halve to [0,2], stride 2, keep 4 and 6; at 8: halve to
        // [0,4], stride 4, keep 8.
        assert_eq!(d.points, vec![(0, 0), (4, 4), (8, 8)]);
        assert!(d.points.windows(2).all(|w| w[1].0 - w[0].0 == 4));
    }
}
