//! The `apu` preset (paper 004: M. Huang, O. Serres, V. K. Narayana, T. El-Ghazawi,
//! G. Newby, "Efficient Cache Design for Solid-State Drives", ACM Computing Frontiers
//! 2010, an SSD on-board cache with automatic periodic update):
//! the four micro benchmarks of Table 5 and the real-life applications of Sec. 4.3.2
//! (an IOzone-like generator, the bundled PostMark capture) on the timed SSD
//! (wafer-ssd) x on-board cache size x associativity x APU policy, plus the
//! idle-threshold sweep of Fig. 11 (Figs. 6-8, 10-11).
//!
//! Its cells are timed device runs, not cache x FTL runs: [`ApuStudy`] is a
//! [`Study`] of its own, run by the one runner ([`crate::study::run`]) with the same
//! guarantees (each cell stored atomically as `<out>/cells/<id>.json` the moment it
//! finishes, a rerun computes only the missing cells). Tables (`results.csv`,
//! `.parquet`, `.json`), figures (SVG + PNG) and `report.html` are written atomically
//! from the stored cells ([`execute`]).
//!
//! Resolved details:
//! * Device: samsung-k9 timing at 16 GiB with a page-level FTL, erased (as docs/ssd.md's
//!   tables); t_cache = t_bus = 10 us; each cell runs its requests of the generator
//!   with Poisson arrivals of mean `gap_ms`.
//! * Replicates and views: every cell runs under each workload seed (the arrival
//!   gaps and the generators' random choices) and in each view, as captured and in
//!   steady state ([`ApuCell::run_with`]); claims are judged per replicate and view and
//!   over the replicates by the rule of [`crate::claims`] (docs/experiments.md).
//! * Length: a cache that a run never fills measures only its cold start, so a cell
//!   with a cache runs enough requests to write [`FILL`] times its lines on average
//!   ([`ApuStudy::requests_for`]), and never fewer than `requests`. Constant-write
//!   cannot fill any cache of the sweep: Table 5 starts all its requests at sector 0
//!   and they stay below 4 MiB.
//! * Load: paper 004 does not state its arrival rate; wafer chose 10 ms mean
//!   gaps, where the constant-write and thrash benchmarks (~2 MB requests) saturate the
//!   modelled device and the means measure the backlog (docs/ssd.md). The preset
//!   therefore runs the grid at three loads, the default 10 ms, 100 ms and 1 s (where
//!   no benchmark's no-cache baseline saturates the device), and reports each, rather
//!   than picking the one where a finding shows.
//! * Thrash sizes its twin regions to the cache under test (Table 5); without a cache
//!   it uses the generator's default.
//! * IOzone: the `iozone` generator (docs/generators.md) at its defaults, a 64 MiB
//!   file in 64 KiB records through all nine tests, with `writes_only` (the paper
//!   "intentionally converted all accesses in the IOzone benchmark into write
//!   requests"): [`IOZONE_REQUESTS`] requests a cell whatever the cache, 2.25 times the
//!   lines of the largest cache in page writes.
//! * PostMark: the paper ran a block trace of PostMark under DiskSim (83% reads, 17%
//!   writes); wafer replays its bundled page-cache-level capture `traces/postmark.wtr`
//!   (traces/README.md), every request in capture order, with the study's Poisson
//!   arrivals in place of the capture's times. The capture gives each of its 4377
//!   files its own 4 MiB slot, a 17 GiB range for a 158 MiB footprint: its pages are
//!   placed on the device in first-touch order (`compact`, docs/ftl.md "Address
//!   mapping"), as a file system on a fresh device allocates them; left in their slots,
//!   every file's first page would fall in the same few cache sets. A request whose
//!   pages that placement puts apart is served as one request per piece.
//! * Idle-threshold sweep: Fig. 11's setting, APU-LRU, 16 MB, 2-way, for IOzone and
//!   PostMark. (An earlier form swept random-write at 8 MB, a stand-in from before
//!   wafer ran the paper's applications; Fig. 11 does not measure it, so it is gone.)

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use wafer_ftl::address_map::MappedReader;
use wafer_ftl::{AddressMap, Ftl, Mapper};
use wafer_ssd::{Apu, Arrival, Assoc, CacheConfig, FtlFlash, Ssd, SsdConfig, VecReader};
use wafer_trace::gen::{Arrival as GenArrival, Bytes, GenSpec, IozoneParams, MicroKind};
use wafer_trace::{Op, Request, RequestReader};

use crate::board::Board;
use crate::claims::{Claim, Form, Measured, Metric, Over, Replicate, Verdict};
use crate::error::LabError;
use crate::parquet_file::Row;
use crate::plot::{Chart, Kind, Series};
use crate::report::VerdictRow;
use crate::spec::{Measure, VERSION};
use crate::steady;
use crate::store::{write_atomic, Store};
use crate::study::{Observer, RunOptions, Study};
use crate::study_def::PaperSetup;

/// Paper 004's micro benchmarks (Table 5), as generator kinds.
pub const KINDS: [&str; 4] = ["constant-write", "random-write", "write-biased", "thrash"];

/// Paper 004's real-life applications (Sec. 4.3.2): the `iozone` generator and the
/// bundled PostMark capture.
pub const APPS: [&str; 2] = ["iozone", "postmark"];

/// The bundled PostMark capture (traces/README.md), found as presets find theirs.
pub const POSTMARK_TRACE: &str = "postmark.wtr";

/// Requests in [`POSTMARK_TRACE`] (`wafer trace info`; crates/cli/tests/cli/capture.rs
/// asserts it): a postmark cell runs all of them, and refuses a trace of another length.
pub const POSTMARK_REQUESTS: u64 = 107_100;

/// Requests of an iozone cell: its nine tests over 1024 records each.
pub const IOZONE_REQUESTS: u64 = 9 * 1024;

/// The IOzone-like workload of the study: the generator's defaults (64 MiB file, 64 KiB
/// records, every test), every request a write, seed 1.
pub fn iozone_params() -> IozoneParams {
    IozoneParams {
        writes_only: true,
        seed: 1,
        ..IozoneParams::default()
    }
}

/// Page writes per cache line a cell with a cache runs for, on average: with writes
/// spread at random, twice the lines leaves about 1 - e^-2 = 86% of a direct-mapped
/// cache's lines used and most sets replacing, so the means measure a full cache.
pub const FILL: u64 = 2;

/// Cache line (= flash page) size of the timed SSD, bytes.
const LINE: u64 = 4096;

/// Table 5 benchmark of a kind name.
fn micro_kind(kind: &str) -> Option<MicroKind> {
    [
        MicroKind::ConstantWrite,
        MicroKind::RandomWrite,
        MicroKind::WriteBiased,
        MicroKind::Thrash,
    ]
    .into_iter()
    .find(|k| k.name() == kind)
}

/// Mean pages a request of `kind` writes: its write ratio times the mean page count
/// of its sizes (uniform on 1..max-1 sectors, starts page aligned; module
/// `wafer_trace::gen::paper004`).
fn mean_pages_written(kind: &str) -> Option<f64> {
    let k = micro_kind(kind)?;
    let max = u64::from(k.default_max_blocks());
    let sectors_per_page = LINE / 512;
    let pages: u64 = (1..max).map(|s| s.div_ceil(sectors_per_page)).sum();
    Some(k.default_write_ratio() * pages as f64 / (max - 1) as f64)
}

/// The study's design.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApuStudy {
    /// Workloads: generator kinds ([`KINDS`], `iozone`) and `postmark`.
    pub kinds: Vec<String>,
    /// On-board cache sizes, MiB.
    pub sizes_mb: Vec<u64>,
    /// Associativities.
    pub ways: Vec<u32>,
    /// APU policies (`off`, `lru`, `lfu`).
    pub apus: Vec<String>,
    /// Mean Poisson arrival gaps, ms (one grid per load).
    pub gaps_ms: Vec<f64>,
    /// Idle thresholds of the sweep, ms (each of `sweep_kinds`, `sweep_mb`, 2 ways,
    /// APU-LRU).
    pub thresholds_ms: Vec<f64>,
    /// Workloads of the idle-threshold sweep.
    pub sweep_kinds: Vec<String>,
    /// Cache size of the sweep, MiB.
    pub sweep_mb: u64,
    /// Requests per cell at least (`--requests`); cells with a cache may run more
    /// ([`ApuStudy::requests_for`]).
    pub requests: u64,
    /// Logical capacity of the device, GiB.
    pub device_gib: u64,
    /// Independent replicates: every cell runs under workload seeds 1 to
    /// `replicates` ([`ApuCell::seed`]); each claim is judged on each and printed as
    /// the median with its range.
    pub replicates: u32,
    /// Views of every cell: as captured (the workload once, on the erased device)
    /// and in steady state (the workload pass after pass until the device settles,
    /// then one pass measured; [`crate::steady`]).
    pub measures: Vec<Measure>,
    /// The paper's setup as the study file states it (`[paper]`), for the setup
    /// table.
    pub paper: Option<PaperSetup>,
}

impl ApuStudy {
    /// Paper 004's design: the micro benchmarks, IOzone and PostMark at 8-256 MB x
    /// 1/2/4 ways x off/LRU/LFU; Fig. 11's sweep (IOzone and PostMark, 16 MB 2-way
    /// APU-LRU) over thresholds 0.5-16 ms; at least 2,000 requests per micro benchmark
    /// cell, more where a cache needs them to fill ([`ApuStudy::requests_for`]).
    pub fn paper() -> ApuStudy {
        ApuStudy {
            kinds: KINDS.iter().chain(&APPS).map(|s| s.to_string()).collect(),
            sizes_mb: vec![8, 16, 32, 64, 128, 256],
            ways: vec![1, 2, 4],
            apus: vec!["off".into(), "lru".into(), "lfu".into()],
            gaps_ms: vec![10.0, 100.0, 1000.0],
            thresholds_ms: vec![0.5, 1.0, 2.0, 4.0, 8.0, 16.0],
            sweep_kinds: APPS.iter().map(|s| s.to_string()).collect(),
            sweep_mb: 16,
            requests: 2_000,
            device_gib: 16,
            replicates: 5,
            measures: vec![Measure::AsCaptured, Measure::Steady],
            paper: None,
        }
    }

    /// The study a file's `[board]` section describes, with `replicates` workload seeds
    /// and views `measures`; with `quick`, its smallest and largest cache only (as a
    /// grid study's quick form). Errors name the key: `(key, what is wrong)`.
    pub fn of(
        board: &Board,
        replicates: u32,
        measures: Vec<Measure>,
        quick: bool,
    ) -> Result<ApuStudy, (String, String)> {
        let mib = |key: String, s: &str| -> Result<u64, (String, String)> {
            match wafer_trace::units::parse_size(s) {
                Ok(b) if b > 0 && b % (1 << 20) == 0 => Ok(b >> 20),
                Ok(_) => Err((key, format!("`{s}` is not a whole number of MiB"))),
                Err(e) => Err((key, e.to_string())),
            }
        };
        let ms = |key: String, s: &str| -> Result<f64, (String, String)> {
            match wafer_trace::units::parse_duration(s) {
                Ok(ns) if ns > 0.0 => Ok(ns / 1e6),
                Ok(_) => Err((key, format!("`{s}` must be more than 0"))),
                Err(e) => Err((key, e)),
            }
        };
        let known = |key: String, w: &str| -> Result<String, (String, String)> {
            if KINDS.contains(&w) || APPS.contains(&w) {
                Ok(w.to_string())
            } else {
                Err((
                    key,
                    format!(
                        "unknown workload `{w}`; expected one of {}",
                        KINDS
                            .iter()
                            .chain(&APPS)
                            .copied()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ))
            }
        };
        let mut sizes_mb = Vec::new();
        for (i, s) in board.sizes.iter().enumerate() {
            sizes_mb.push(mib(format!("board.sizes[{i}]"), s)?);
        }
        if quick && sizes_mb.len() > 2 {
            sizes_mb = vec![sizes_mb[0], sizes_mb[sizes_mb.len() - 1]];
        }
        let mut kinds = Vec::new();
        for (i, w) in board.workloads.iter().enumerate() {
            kinds.push(known(format!("board.workloads[{i}]"), w)?);
        }
        for (i, &w) in board.ways.iter().enumerate() {
            if w == 0 {
                return Err((format!("board.ways[{i}]"), "must be at least 1".into()));
            }
        }
        for (i, a) in board.apu.iter().enumerate() {
            Apu::from_name(a).map_err(|e| (format!("board.apu[{i}]"), e.to_string()))?;
        }
        let mut gaps_ms = Vec::new();
        for (i, g) in board.gaps.iter().enumerate() {
            gaps_ms.push(ms(format!("board.gaps[{i}]"), g)?);
        }
        let device_gib = match wafer_trace::units::parse_size(&board.capacity) {
            Ok(b) if b > 0 && b % (1 << 30) == 0 => b >> 30,
            Ok(_) => {
                return Err((
                    "board.capacity".into(),
                    format!("`{}` is not a whole number of GiB", board.capacity),
                ))
            }
            Err(e) => return Err(("board.capacity".into(), e.to_string())),
        };
        for (key, empty) in [
            ("board.workloads", board.workloads.is_empty()),
            ("board.sizes", board.sizes.is_empty()),
            ("board.ways", board.ways.is_empty()),
            ("board.apu", board.apu.is_empty()),
            ("board.gaps", board.gaps.is_empty()),
        ] {
            if empty {
                return Err((key.into(), "needs at least one entry".into()));
            }
        }
        if board.requests == 0 {
            return Err(("board.requests".into(), "must be at least 1".into()));
        }
        if replicates == 0 {
            return Err(("replicates".into(), "must be at least 1".into()));
        }
        let (mut sweep_kinds, mut sweep_mb, mut thresholds_ms) = (Vec::new(), 16, Vec::new());
        if let Some(sw) = &board.sweep {
            for (i, w) in sw.workloads.iter().enumerate() {
                sweep_kinds.push(known(format!("board.sweep.workloads[{i}]"), w)?);
            }
            sweep_mb = mib("board.sweep.size".into(), &sw.size)?;
            for (i, t) in sw.thresholds.iter().enumerate() {
                thresholds_ms.push(ms(format!("board.sweep.thresholds[{i}]"), t)?);
            }
        }
        Ok(ApuStudy {
            kinds,
            sizes_mb,
            ways: board.ways.clone(),
            apus: board.apu.clone(),
            gaps_ms,
            thresholds_ms,
            sweep_kinds,
            sweep_mb,
            requests: board.requests,
            device_gib,
            replicates,
            measures,
            paper: None,
        })
    }

    /// The workload seeds of the replicates: 1 (the seed of the single-replicate
    /// study, whose stored cells keep their ids) to `replicates`.
    pub fn seeds(&self) -> Vec<u64> {
        (1..=u64::from(self.replicates)).collect()
    }

    /// The quick check: paper 004's design at its smallest and largest cache only (the
    /// sweep keeps Fig. 11's 16 MB), 3 replicates.
    pub fn quick() -> ApuStudy {
        ApuStudy {
            sizes_mb: vec![8, 256],
            replicates: 3,
            ..ApuStudy::paper()
        }
    }

    /// Requests of a `kind` cell with a `cache_mb` MiB cache (0 = none): for a micro
    /// benchmark, enough to write [`FILL`] times the cache's lines on average, at least
    /// `requests`; for iozone and postmark, the whole workload ([`IOZONE_REQUESTS`],
    /// [`POSTMARK_REQUESTS`]).
    pub fn requests_for(&self, kind: &str, cache_mb: u64) -> u64 {
        let lines = (cache_mb << 20) / LINE;
        match kind {
            "iozone" => return IOZONE_REQUESTS,
            "postmark" => return POSTMARK_REQUESTS,
            _ => {}
        }
        match mean_pages_written(kind) {
            Some(per) if cache_mb > 0 => ((FILL * lines) as f64 / per)
                .ceil()
                .max(self.requests as f64) as u64,
            _ => self.requests,
        }
    }

    /// The setup table next to the paper's (the study file's `[paper]`), as
    /// text lines (aspect: the paper | wafer), in the form of the grid presets'
    /// tables. The PostMark row reads the bundled capture (a fraction of a second) for
    /// its counts.
    pub fn setup_lines(&self) -> Vec<String> {
        let mut out = vec!["setup (aspect: the paper | wafer):".to_string()];
        for [a, p, w] in self.setup_rows() {
            out.push(format!("  {a}: {p} | {w}"));
        }
        out
    }

    /// The rows of [`ApuStudy::setup_lines`]: `(aspect, the paper, wafer)`.
    pub fn setup_rows(&self) -> Vec<[String; 3]> {
        let paper = self.paper.as_ref();
        let stated = |f: fn(&PaperSetup) -> &str| paper.map_or("not stated", f);
        let list = |v: Vec<String>| v.join(", ");
        let micro: Vec<String> = self
            .kinds
            .iter()
            .filter(|k| micro_kind(k).is_some())
            .cloned()
            .collect();
        let mut workload = Vec::new();
        if !micro.is_empty() {
            workload.push(format!(
                "generators of the four micro benchmarks: {}",
                list(micro)
            ));
        }
        if self.kinds.iter().any(|k| k == "iozone") {
            let p = iozone_params();
            workload.push(format!(
                "iozone: wafer's IOzone-like generator, a {} file in {} records through all nine tests, every request a write ({IOZONE_REQUESTS} requests)",
                p.file_size, p.record
            ));
        }
        if self.kinds.iter().any(|k| k == "postmark") {
            workload.push(match PostmarkTrace::load(self.device_gib) {
                Ok(t) => t.describe(),
                Err(e) => format!("postmark: {e}"),
            });
        }
        let rows = [
            (
                "workload",
                stated(|p| &p.workload),
                workload.join("; "),
            ),
            (
                "cache sizes",
                stated(|p| &p.sizes),
                format!(
                    "{} MB x {} ways x APU {}",
                    list(self.sizes_mb.iter().map(u64::to_string).collect()),
                    list(self.ways.iter().map(u32::to_string).collect()),
                    list(self.apus.clone())
                ),
            ),
            (
                "device",
                stated(|p| &p.device),
                format!(
                    "wafer's timed SSD: samsung-k9 timing, page-level FTL, {} GiB, erased; cache DRAM and host link 10 us a page",
                    self.device_gib
                ),
            ),
            (
                "arrivals",
                stated(|p| &p.arrivals),
                format!(
                    "Poisson, mean gaps {} ms, each reported; PostMark's captured times are replaced by them",
                    list(self.gaps_ms.iter().map(f64::to_string).collect())
                ),
            ),
            (
                "replicates",
                "one run per setting",
                format!(
                    "{} workload seeds (1 to {}: the arrival gaps and the generators' random choices); each claim's figure is the median over them with its range",
                    self.replicates, self.replicates
                ),
            ),
            (
                "measure",
                stated(|p| &p.aging),
                list(self.measures.iter().map(|m| match m {
                    Measure::AsCaptured => "as captured (the workload once, on the erased device)".to_string(),
                    Measure::Steady => format!(
                        "steady state (the workload pass after pass until each pass's erases and busy time settle, SNIA PTS rule over {} passes, at most {}; then one pass measured)",
                        steady::WINDOW,
                        steady::MAX_PASSES
                    ),
                }).collect()),
            ),
            (
                "policies",
                stated(|p| &p.policies),
                format!(
                    "APU {} (off: write-back alone) at a 2 ms idle threshold; the threshold swept over {} ms ({}, {} MB, 2-way, APU-LRU)",
                    list(self.apus.clone()),
                    list(self.thresholds_ms.iter().map(f64::to_string).collect()),
                    list(self.sweep_kinds.clone()),
                    self.sweep_mb
                ),
            ),
            (
                "length",
                "not stated",
                format!(
                    "micro benchmarks: at least {} requests a cell, enough to write {FILL}x the cache's lines; iozone and postmark: the whole workload",
                    self.requests
                ),
            ),
            (
                "metric",
                stated(|p| &p.metric),
                "mean response time (ms)".to_string(),
            ),
        ];
        rows.into_iter()
            .map(|(a, p, w)| [a.to_string(), p.to_string(), w])
            .collect()
    }

    /// What [`ApuStudy::requests_for`] gives, for a report: one line per kind.
    pub fn requests_lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "requests per cell: micro benchmarks at least {}; with a cache, enough to write {FILL}x its lines \
             (mean pages written per request of the kind); without a cache, {}; iozone and postmark run in full",
            self.requests, self.requests
        )];
        for k in &self.kinds {
            let why = match k.as_str() {
                "constant-write" => {
                    " (its requests all start at sector 0 and stay below 4 MiB: no length fills these caches)"
                }
                "iozone" => " (every cell: the nine tests in full)",
                "postmark" => " (every cell: the whole capture, none left out)",
                _ => "",
            };
            let per: Vec<String> = if micro_kind(k).is_some() {
                self.sizes_mb
                    .iter()
                    .map(|&mb| format!("{mb} MB {}", self.requests_for(k, mb)))
                    .collect()
            } else {
                vec![self.requests_for(k, 0).to_string()]
            };
            out.push(format!("  {k}: {}{why}", per.join(", ")));
        }
        for k in &self.sweep_kinds {
            if !self.thresholds_ms.is_empty() {
                out.push(format!(
                    "  idle-threshold sweep ({k}, {} MB): {}",
                    self.sweep_mb,
                    self.requests_for(k, self.sweep_mb)
                ));
            }
        }
        out
    }

    /// Every cell: per gap and workload a no-cache baseline, then sizes x ways x APUs
    /// at the 2 ms threshold; then the idle-threshold sweep per gap and sweep workload.
    pub fn cells(&self) -> Vec<ApuCell> {
        let mut out = Vec::new();
        for &measure in &self.measures {
            for seed in self.seeds() {
                self.replicate_cells(seed, measure, &mut out);
            }
        }
        out
    }

    /// The cells of one replicate and view, into `out`.
    fn replicate_cells(&self, seed: u64, measure: Measure, out: &mut Vec<ApuCell>) {
        let cell =
            |gap_ms: f64, kind: &str, mb: u64, ways: u32, apu: &str, thr: f64, sweep| ApuCell {
                kind: kind.to_string(),
                cache_mb: mb,
                ways,
                apu: apu.to_string(),
                idle_threshold_ms: thr,
                gap_ms,
                requests: self.requests_for(kind, mb),
                device_gib: self.device_gib,
                sweep,
                seed,
                measure,
                version: VERSION.to_string(),
            };
        for &g in &self.gaps_ms {
            for k in &self.kinds {
                out.push(cell(g, k, 0, 1, "off", 2.0, false));
                for &mb in &self.sizes_mb {
                    for &w in &self.ways {
                        for a in &self.apus {
                            out.push(cell(g, k, mb, w, a, 2.0, false));
                        }
                    }
                }
            }
            for k in &self.sweep_kinds {
                for &t in &self.thresholds_ms {
                    out.push(cell(g, k, self.sweep_mb, 2, "lru", t, true));
                }
            }
        }
    }
}

/// The bundled PostMark capture, read once and placed on the study's device.
#[derive(Debug)]
pub struct PostmarkTrace {
    /// Where it was found.
    pub path: PathBuf,
    /// Its requests at their device addresses, in capture order (a request the
    /// placement cut is several, one per piece).
    pub requests: Vec<Request>,
    /// Requests in the capture.
    pub captured: u64,
    /// Reads among them.
    pub reads: u64,
    /// Captured requests served as several pieces.
    pub split: u64,
}

impl PostmarkTrace {
    /// Find [`POSTMARK_TRACE`] (beside the current folder's `traces/`, or the
    /// repository's bundled traces, as presets find theirs), read it and place its
    /// pages on a `device_gib` GiB device in first-touch order.
    pub fn load(device_gib: u64) -> Result<PostmarkTrace, LabError> {
        let path = crate::trace_folders::locate_trace(POSTMARK_TRACE, Path::new("traces"))?;
        let fail = |m: String| LabError::Cell {
            cell: format!("apu postmark ({})", path.display()),
            msg: m,
        };
        let dev = device(device_gib).map_err(|e| fail(e.to_string()))?;
        let mut rd = wafer_trace::open(&path, &wafer_trace::ReadOptions::default())
            .map_err(|e| fail(e.to_string()))?;
        let mapper = Mapper::new(AddressMap::Compact, &dev.geometry, dev.ftl);
        let mut reads = 0u64;
        let mut requests = Vec::new();
        let counts = {
            let mut m = MappedReader::new(rd.as_mut(), mapper);
            let mut batch = Vec::new();
            while m.read_batch(&mut batch).map_err(|e| fail(e.to_string()))? {
                requests.extend_from_slice(&batch);
            }
            m.counts()
        };
        // Reads by captured request: a piece of a cut read is not another read.
        let mut rd = wafer_trace::open(&path, &wafer_trace::ReadOptions::default())
            .map_err(|e| fail(e.to_string()))?;
        let mut batch = Vec::new();
        while rd.read_batch(&mut batch).map_err(|e| fail(e.to_string()))? {
            reads += batch.iter().filter(|r| r.op == Op::Read).count() as u64;
        }
        if counts.requests != POSTMARK_REQUESTS {
            return Err(fail(format!(
                "holds {} requests where the study expects {POSTMARK_REQUESTS} (traces/README.md); \
                 restore the bundled capture",
                counts.requests
            )));
        }
        Ok(PostmarkTrace {
            path,
            requests,
            captured: counts.requests,
            reads,
            split: counts.split_requests,
        })
    }

    /// The setup table's account of it.
    pub fn describe(&self) -> String {
        let pct = |n: u64| 100.0 * n as f64 / self.captured.max(1) as f64;
        format!(
            "postmark: the bundled page-cache-level capture traces/{POSTMARK_TRACE} (not the paper's block trace), \
             all {} requests in capture order, none left out: {:.1}% reads / {:.1}% writes by request \
             (the paper's: 83% / 17%); pages placed in first-touch order, {} requests served as pieces",
            self.captured,
            pct(self.reads),
            pct(self.captured - self.reads),
            self.split
        )
    }
}

/// The study's device: samsung-k9 timing, page-level FTL, `gib` GiB, 15% spare.
fn device(gib: u64) -> Result<wafer_ftl::Device, String> {
    let mut dev = wafer_ftl::Device::from_profile("samsung-k9").map_err(|e| e.to_string())?;
    dev.geometry =
        wafer_ftl::Geometry::with_op(gib << 30, 0.15, 4096, 64).map_err(|e| e.to_string())?;
    Ok(dev)
}

fn first_seed() -> u64 {
    1
}

fn is_first_seed(s: &u64) -> bool {
    *s == 1
}

/// One timed-device run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApuCell {
    /// Workload: a generator kind ([`KINDS`], `iozone`) or `postmark` (the field keeps
    /// its name so that the ids of stored cells stay valid).
    pub kind: String,
    /// Cache size, MiB (0 = no cache).
    pub cache_mb: u64,
    /// Associativity.
    pub ways: u32,
    /// APU policy.
    pub apu: String,
    /// Idle threshold, ms.
    pub idle_threshold_ms: f64,
    /// Mean Poisson arrival gap, ms.
    pub gap_ms: f64,
    /// Requests.
    pub requests: u64,
    /// Device capacity, GiB.
    pub device_gib: u64,
    /// Part of the idle-threshold sweep.
    pub sweep: bool,
    /// Workload seed: the Poisson arrival gaps and the generators' random choices
    /// (left out of the id at 1, so that cells stored before replicates keep theirs).
    #[serde(default = "first_seed", skip_serializing_if = "is_first_seed")]
    pub seed: u64,
    /// What the cell measures (left out of the id when as captured).
    #[serde(default, skip_serializing_if = "Measure::is_as_captured")]
    pub measure: Measure,
    /// wafer version.
    pub version: String,
}

impl ApuCell {
    /// Stable id: xxh3-64 of the parameters (version included).
    pub fn id(&self) -> String {
        crate::spec::cell_id(self)
    }

    /// The configuration label (`WB 2-way`, `APU-LRU 4-way`, `no cache`).
    pub fn config(&self) -> String {
        if self.cache_mb == 0 {
            return "no cache".into();
        }
        let a = match self.apu.as_str() {
            "off" => "WB".to_string(),
            a => format!("APU-{}", a.to_uppercase()),
        };
        format!("{a} {}-way", self.ways)
    }

    /// Run the cell (a postmark cell reads the bundled capture first).
    pub fn run(&self) -> Result<ApuResult, LabError> {
        let trace = if self.kind == "postmark" {
            Some(PostmarkTrace::load(self.device_gib)?)
        } else {
            None
        };
        self.run_with(trace.as_ref())
    }

    /// Run the cell; a postmark cell replays `postmark` (loaded once per study).
    pub fn run_with(&self, postmark: Option<&PostmarkTrace>) -> Result<ApuResult, LabError> {
        let fail = |m: String| LabError::Cell {
            cell: format!("apu {} {} MiB {}", self.kind, self.cache_mb, self.config()),
            msg: m,
        };
        let apu = Apu::from_name(&self.apu).map_err(|e| fail(e.to_string()))?;
        let cfg = SsdConfig {
            cache: (self.cache_mb > 0).then_some(CacheConfig {
                lines: ((self.cache_mb << 20) / 4096) as u32,
                assoc: Assoc::Ways(self.ways),
                apu,
            }),
            idle_threshold_ns: (self.idle_threshold_ms * 1e6).round() as u64,
            ..SsdConfig::default()
        };
        let dev = device(self.device_gib).map_err(fail)?;
        let flash = FtlFlash::new(&dev).map_err(|e| fail(e.to_string()))?;
        let mut ssd = Ssd::new(cfg, flash).map_err(|e| fail(e.to_string()))?;
        // The workload and how its requests arrive.
        let (mut rd, arrival): (Box<dyn RequestReader>, Arrival) = match self.kind.as_str() {
            "postmark" => {
                let t =
                    postmark.ok_or_else(|| fail("the PostMark capture is not loaded".into()))?;
                (
                    Box::new(VecReader::new(t.requests.clone())),
                    Arrival::Poisson {
                        mean_ns: (self.gap_ms * 1e6).round() as u64,
                        seed: self.seed,
                    },
                )
            }
            "iozone" => {
                let spec = GenSpec::Iozone(IozoneParams {
                    requests: Some(self.requests),
                    arrival: GenArrival::Poisson {
                        mean_ns: self.gap_ms * 1e6,
                    },
                    seed: self.seed,
                    ..iozone_params()
                });
                (spec.open()?, Arrival::Trace)
            }
            kind => {
                let mut spec = GenSpec::default_for(kind)
                    .ok_or_else(|| fail(format!("unknown workload {kind}")))?;
                let (GenSpec::ConstantWrite(p)
                | GenSpec::RandomWrite(p)
                | GenSpec::WriteBiased(p)
                | GenSpec::Thrash(p)) = &mut spec
                else {
                    return Err(fail(format!("{kind} is not a paper 004 workload")));
                };
                p.requests = self.requests;
                p.seed = self.seed;
                p.arrival = GenArrival::Poisson {
                    mean_ns: self.gap_ms * 1e6,
                };
                if kind == "thrash" && self.cache_mb > 0 {
                    p.cache = Some(Bytes(self.cache_mb << 20));
                }
                (spec.open()?, Arrival::Trace)
            }
        };
        if self.measure == Measure::Steady {
            return self.steady(ssd, rd.as_mut(), arrival).map_err(fail);
        }
        wafer_ssd::run(&mut ssd, rd.as_mut(), arrival, None, |_| {}, |_, _| {})
            .map_err(|e| fail(e.to_string()))?;
        let r = ssd.finish();
        let (od, af, used, evictions) = r.cache.as_ref().map_or((0, 0, 0, 0), |c| {
            let s = &c.stats;
            let evictions = s.fills_clean + s.on_demand_flushes;
            (s.on_demand_flushes, s.apu_flushes, s.fills_stale, evictions)
        });
        Ok(ApuResult {
            id: self.id(),
            cell: self.clone(),
            mean_ms: r.response.all.mean_ns * 1e-6,
            read_mean_ms: r.response.read.mean_ns * 1e-6,
            write_mean_ms: r.response.write.mean_ns * 1e-6,
            on_demand_flushes: od,
            apu_flushes: af,
            lines_used: used,
            evictions,
            utilization: r.timing.utilization,
            passes: 0,
            settled: None,
        })
    }

    /// The steady-state view: the workload `rd` (arriving by `arrival`) replayed on
    /// `ssd` pass after pass, each pass starting one mean gap after the last one's
    /// final arrival, until every pass's erases and device busy time settle
    /// ([`steady::settled_after`]) or [`steady::MAX_PASSES`] passes ran ("not
    /// steady"); then one more pass, the one measured. The cache and the FTL keep
    /// their state from pass to pass.
    fn steady(
        &self,
        mut ssd: Ssd<FtlFlash>,
        rd: &mut dyn RequestReader,
        arrival: Arrival,
    ) -> Result<ApuResult, String> {
        let err = |e: &dyn std::fmt::Display| e.to_string();
        let mut reqs = Vec::new();
        let mut batch = Vec::new();
        while rd.read_batch(&mut batch).map_err(|e| err(&e))? {
            reqs.extend_from_slice(&batch);
        }
        // The arrival times once, as the as-captured run draws them.
        if let Arrival::Poisson { .. } = arrival {
            let mut times = wafer_ssd::Arrivals::new(arrival).map_err(|e| err(&e))?;
            for r in &mut reqs {
                r.time_ns = times.next(r).ok_or("a Poisson arrival has a time")?;
            }
        }
        let (Some(first), Some(last)) = (reqs.first(), reqs.last()) else {
            return Err("the workload has no requests".into());
        };
        let (t0, span) = (first.time_ns, last.time_ns - first.time_ns);
        let gap = (self.gap_ms * 1e6).round() as u64;
        let mut start = 0u64;
        // The last completion so far: a pass is served from its first arrival or from
        // the end of the backlog the passes before it left, whichever is later.
        let mut served_to = 0u64;
        let mut pass = |ssd: &mut Ssd<FtlFlash>,
                        observe: &mut dyn FnMut(&Request, &wafer_ssd::Completion)|
         -> Result<u64, String> {
            let shifted: Vec<Request> = reqs
                .iter()
                .map(|r| Request {
                    time_ns: r.time_ns - t0 + start,
                    ..*r
                })
                .collect();
            let from = start.max(served_to);
            wafer_ssd::run(
                ssd,
                &mut VecReader::new(shifted),
                Arrival::Trace,
                None,
                |_| {},
                |r, c| {
                    served_to = served_to.max(c.done_ns);
                    observe(r, c)
                },
            )
            .map_err(|e| err(&e))?;
            start += span + gap;
            Ok(from)
        };
        let erased = |ssd: &Ssd<FtlFlash>| ssd.flash().ftl().counters().erases;
        let (mut erases, mut busy) = (Vec::new(), Vec::new());
        let mut settled = false;
        while erases.len() < steady::MAX_PASSES {
            let (e0, b0) = (erased(&ssd), ssd.busy_ns());
            pass(&mut ssd, &mut |_, _| {})?;
            erases.push((erased(&ssd) - e0) as f64);
            busy.push((ssd.busy_ns() - b0) as f64);
            if steady::settled_after(&[&erases, &busy]).is_some() {
                settled = true;
                break;
            }
        }
        // The measured pass.
        let stats = |ssd: &Ssd<FtlFlash>| ssd.cache().map(|c| c.stats().clone());
        let before = stats(&ssd);
        let b0 = ssd.busy_ns();
        let mut sum = [(0u64, 0u64); 3];
        let mut end = 0u64;
        let from = pass(&mut ssd, &mut |r, c| {
            let t = c.response_ns();
            let mut add = |i: usize| sum[i] = (sum[i].0 + t, sum[i].1 + 1);
            add(0);
            match r.op {
                Op::Read => add(1),
                Op::Write => add(2),
                Op::Trim => {}
            }
            end = end.max(c.done_ns);
        })?;
        let mean_ms = |(t, n): (u64, u64)| {
            if n == 0 {
                0.0
            } else {
                t as f64 / n as f64 * 1e-6
            }
        };
        let (od, af, used, evictions) = match (before, stats(&ssd)) {
            (Some(a), Some(b)) => (
                b.on_demand_flushes - a.on_demand_flushes,
                b.apu_flushes - a.apu_flushes,
                b.fills_stale,
                b.fills_clean + b.on_demand_flushes - a.fills_clean - a.on_demand_flushes,
            ),
            _ => (0, 0, 0, 0),
        };
        // Busy time over the time the pass was served: a device that never caught up
        // with the passes before is busy all of it (saturated).
        let span = end.saturating_sub(from);
        Ok(ApuResult {
            id: self.id(),
            cell: self.clone(),
            mean_ms: mean_ms(sum[0]),
            read_mean_ms: mean_ms(sum[1]),
            write_mean_ms: mean_ms(sum[2]),
            on_demand_flushes: od,
            apu_flushes: af,
            lines_used: used,
            evictions,
            utilization: if span == 0 {
                0.0
            } else {
                (ssd.busy_ns() - b0) as f64 / span as f64
            },
            passes: erases.len() as u64,
            settled: Some(settled),
        })
    }
}

/// What a cell measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApuResult {
    /// Cell id.
    pub id: String,
    /// Parameters.
    pub cell: ApuCell,
    /// Mean response time, all requests, ms.
    pub mean_ms: f64,
    /// Mean read response time, ms (0 without reads).
    pub read_mean_ms: f64,
    /// Mean write response time, ms.
    pub write_mean_ms: f64,
    /// Dirty lines flushed on demand (write miss in a full set).
    pub on_demand_flushes: u64,
    /// Dirty lines flushed by APU.
    pub apu_flushes: u64,
    /// Cache lines ever filled (write misses into a never-used line; nothing trims).
    pub lines_used: u64,
    /// Write misses that found their set full and replaced a line (clean, or dirty
    /// and flushed on demand).
    pub evictions: u64,
    /// Device utilization (busy / span).
    #[serde(alias = "utilisation")]
    pub utilization: f64,
    /// Steady state: preconditioning passes before the measured one (0 as captured).
    #[serde(default)]
    pub passes: u64,
    /// Steady state: whether the passes settled within [`steady::MAX_PASSES`] (None
    /// as captured).
    #[serde(default)]
    pub settled: Option<bool>,
}

/// What [`execute`] produced.
#[derive(Clone, Debug)]
pub struct ApuOutcome {
    /// Results of stored cells, in [`ApuStudy::cells`] order.
    pub results: Vec<ApuResult>,
    /// Cells in the study.
    pub total: usize,
    /// Cells computed by this run.
    pub computed: usize,
    /// Cells found in the store.
    pub reused: usize,
    /// Whether the run was stopped before computing every cell.
    pub interrupted: bool,
    /// Figures written (SVG; a PNG and a PDF next to each).
    pub figures: Vec<PathBuf>,
    /// The report.
    pub report: PathBuf,
    /// Claims next to measurements.
    pub comparison: Vec<String>,
    /// The verdict table: a row per claim and view.
    pub verdicts: Vec<VerdictRow>,
}

impl Study for ApuStudy {
    type Cell = ApuCell;
    type Output = ApuResult;
    type Shared = Option<Arc<PostmarkTrace>>;

    fn cells(&self) -> Vec<ApuCell> {
        ApuStudy::cells(self)
    }

    fn label(&self, c: &ApuCell) -> String {
        format!(
            "{} {} MiB {} gap {} ms seed {} {}",
            c.kind,
            c.cache_mb,
            c.config(),
            c.gap_ms,
            c.seed,
            c.measure.name()
        )
    }

    /// Group 1: the postmark cells, which share the capture; group 0: the rest.
    fn group(&self, c: &ApuCell) -> usize {
        usize::from(c.kind == "postmark")
    }

    fn prepare(
        &self,
        group: usize,
        _: &mut dyn Observer,
    ) -> Result<Option<Arc<PostmarkTrace>>, LabError> {
        Ok(match group {
            1 => Some(Arc::new(PostmarkTrace::load(self.device_gib)?)),
            _ => None,
        })
    }

    fn compute(
        &self,
        cell: &ApuCell,
        postmark: &Option<Arc<PostmarkTrace>>,
        _: &AtomicU64,
    ) -> Result<ApuResult, LabError> {
        cell.run_with(postmark.as_deref())
    }

    /// The longest cells first: requests x the pages each writes or reads, roughly.
    /// A steady-state cell runs at least `WINDOW + 1` passes.
    fn cost(&self, c: &ApuCell) -> u64 {
        let passes = match c.measure {
            Measure::AsCaptured => 1,
            Measure::Steady => steady::WINDOW as u64 + 1,
        };
        passes
            * c.requests
            * match c.kind.as_str() {
                "iozone" => 16,
                "postmark" => 1,
                k => mean_pages_written(k).map_or(1, |p| p.ceil() as u64),
            }
    }

    fn inputs(&self) -> Vec<PathBuf> {
        if !self
            .kinds
            .iter()
            .chain(&self.sweep_kinds)
            .any(|k| k == "postmark")
        {
            return Vec::new();
        }
        crate::trace_folders::locate_trace(POSTMARK_TRACE, Path::new("traces"))
            .into_iter()
            .collect()
    }

    fn is_result_of(&self, r: &ApuResult, cell: &ApuCell) -> bool {
        r.cell == *cell
    }
}

/// Run `study` with the one runner into `opts.out` (required), then write the
/// tables, figures and report from the stored cells.
pub fn execute(
    study: &Arc<ApuStudy>,
    opts: &RunOptions,
    obs: &mut dyn Observer,
) -> Result<ApuOutcome, LabError> {
    let out = opts
        .out
        .clone()
        .ok_or_else(|| LabError::Invalid("the apu study needs an output folder".into()))?;
    let _lock = opts.claim(&**study)?;
    let run = crate::study::run(study, opts, obs)?;
    let results = run.results;
    write_tables(&out, &results)?;
    let charts = figures(study, &results);
    let mut paths = Vec::new();
    for (stem, chart) in &charts {
        paths.push(crate::figure_file::write_figure(
            &out.join("figures"),
            stem,
            chart,
        )?);
    }
    let (comparison, verdicts) = judge_all(study, &results);
    let prov = crate::provenance::Provenance::here();
    let json = serde_json::to_vec_pretty(&prov).map_err(|e| LabError::Invalid(e.to_string()))?;
    write_atomic(&out.join("provenance.json"), &json)?;
    let report = out.join("report.html");
    write_atomic(
        &report,
        report_html(study, &results, &charts, &comparison, &verdicts, &prov).as_bytes(),
    )?;
    Ok(ApuOutcome {
        results,
        total: run.total,
        computed: run.computed,
        reused: run.reused,
        interrupted: run.interrupted,
        figures: paths,
        report,
        comparison,
        verdicts,
    })
}

/// The study's report, written by the grid reports' writer
/// ([`crate::report::rows_report`]): the verdict and setup tables and the comparison as
/// printed, the requests per cell, the figures and every row.
fn report_html(
    study: &ApuStudy,
    rs: &[ApuResult],
    charts: &[(String, Chart)],
    cmp: &[String],
    verdicts: &[VerdictRow],
    prov: &crate::provenance::Provenance,
) -> String {
    let preface = crate::report::Preface {
        lines: vec![NOTE.to_string()],
        verdicts: verdicts.to_vec(),
        setup: study.setup_rows(),
        printed: cmp.to_vec(),
        ..crate::report::Preface::default()
    };
    let rows: Vec<Row> = rs.iter().map(ApuResult::row).collect();
    crate::report::rows_report(
        "apu",
        "wafer study: apu, an SSD on-board cache with automatic periodic update (paper 004)",
        prov,
        &preface,
        &[("Requests per cell", study.requests_lines())],
        charts,
        &rows,
    )
}

impl ApuResult {
    /// One row of the results tables: every parameter and every metric, in the
    /// column order of `apu-results.csv` and `apu-results.parquet`.
    pub fn row(&self) -> Row {
        let c = &self.cell;
        let cols: [(&str, serde_json::Value); 22] = [
            ("cell_id", self.id.clone().into()),
            ("kind", c.kind.clone().into()),
            ("seed", c.seed.into()),
            ("measure", c.measure.name().into()),
            ("gap_ms", c.gap_ms.into()),
            ("cache_mb", c.cache_mb.into()),
            ("ways", c.ways.into()),
            ("apu", c.apu.clone().into()),
            ("idle_threshold_ms", c.idle_threshold_ms.into()),
            ("sweep", c.sweep.into()),
            ("requests", c.requests.into()),
            ("mean_ms", self.mean_ms.into()),
            ("read_mean_ms", self.read_mean_ms.into()),
            ("write_mean_ms", self.write_mean_ms.into()),
            ("on_demand_flushes", self.on_demand_flushes.into()),
            ("apu_flushes", self.apu_flushes.into()),
            ("lines_used", self.lines_used.into()),
            ("evictions", self.evictions.into()),
            ("utilization", self.utilization.into()),
            ("passes", self.passes.into()),
            ("settled", self.settled.into()),
            ("wafer_version", c.version.clone().into()),
        ];
        cols.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }
}

/// `results.csv`, `.parquet` and `.json`, one flat row per cell.
fn write_tables(out: &Path, results: &[ApuResult]) -> Result<(), LabError> {
    let rows: Vec<Row> = results.iter().map(ApuResult::row).collect();
    // The column types come from a row with every column set (`settled` is empty as
    // captured).
    let template = results.first().map(|r| {
        ApuResult {
            settled: Some(false),
            ..r.clone()
        }
        .row()
    });
    Store::new(out).write_tables(&rows, template.as_ref())?;
    Ok(())
}

/// The grid cells of `kind` at gap `gap` that the figures show: the first
/// replicate, as captured.
fn grid<'a>(rs: &'a [ApuResult], gap: f64, kind: &'a str) -> impl Iterator<Item = &'a ApuResult> {
    rs.iter().filter(move |r| {
        !r.cell.sweep
            && r.cell.gap_ms == gap
            && r.cell.kind == kind
            && r.cell.seed == 1
            && r.cell.measure == Measure::AsCaptured
    })
}

/// Mean response time vs cache size per (ways, APU), one chart per kind and load;
/// mean response time vs idle threshold per load; the first replicate as captured
/// (the claims give every replicate and view).
fn figures(study: &ApuStudy, rs: &[ApuResult]) -> Vec<(String, Chart)> {
    let mut out = Vec::new();
    let cats: Vec<String> = study.sizes_mb.iter().map(|m| format!("{m} MB")).collect();
    for &g in &study.gaps_ms {
        for k in &study.kinds {
            let mut series: Vec<Series> = Vec::new();
            for a in &study.apus {
                for &w in &study.ways {
                    let pts: Vec<(f64, f64)> = study
                        .sizes_mb
                        .iter()
                        .enumerate()
                        .filter_map(|(i, &mb)| {
                            grid(rs, g, k)
                                .find(|r| {
                                    r.cell.cache_mb == mb && r.cell.ways == w && r.cell.apu == *a
                                })
                                .map(|r| (i as f64, r.mean_ms))
                        })
                        .collect();
                    if let Some(r) = grid(rs, g, k)
                        .find(|r| r.cell.cache_mb > 0 && r.cell.ways == w && r.cell.apu == *a)
                    {
                        series.push(Series {
                            name: r.cell.config(),
                            points: pts,
                        });
                    }
                }
            }
            if let Some(nc) = grid(rs, g, k).find(|r| r.cell.cache_mb == 0) {
                series.push(Series {
                    name: "no cache".into(),
                    points: (0..cats.len()).map(|i| (i as f64, nc.mean_ms)).collect(),
                });
            }
            if series.iter().all(|s| s.points.is_empty()) {
                continue;
            }
            out.push((
                format!("apu-response-{k}-gap{g}ms"),
                Chart {
                    title: format!(
                        "{k}, Poisson arrivals, mean gap {g} ms: mean response time (seed 1, as captured)"
                    ),
                    x_label: "on-board cache size".into(),
                    y_label: "mean response time (ms)".into(),
                    categories: Some(cats.clone()),
                    kind: Kind::Line,
                    log_y: crate::plot::spans_decades(&series),
                    notes: Vec::new(),
                    series,
                    y_from_zero: true,
                },
            ));
        }
        for k in &study.sweep_kinds {
            let pts: Vec<(f64, f64)> = rs
                .iter()
                .filter(|r| {
                    r.cell.sweep
                        && r.cell.gap_ms == g
                        && r.cell.kind == *k
                        && r.cell.seed == 1
                        && r.cell.measure == Measure::AsCaptured
                })
                .map(|r| (r.cell.idle_threshold_ms, r.mean_ms))
                .collect();
            if pts.is_empty() {
                continue;
            }
            out.push((
                format!("apu-idle-threshold-{k}-gap{g}ms"),
                Chart {
                    title: format!(
                        "{k} {} MB 2-way APU-LRU, gap {g} ms: response vs idle threshold (seed 1, as captured)",
                        study.sweep_mb
                    ),
                    x_label: "idle threshold (ms)".into(),
                    y_label: "mean response time (ms)".into(),
                    categories: None,
                    kind: Kind::Line,
                    log_y: false,
                    notes: Vec::new(),
                    series: vec![Series {
                        name: "APU-LRU 2-way".into(),
                        points: pts,
                    }],
                    y_from_zero: true,
                },
            ));
        }
    }
    out
}

/// The note the preset prints.
pub const NOTE: &str = "Paper 004's workloads ran on DiskSim with Microsoft's SSD model; wafer runs the Table 5 micro benchmarks and an IOzone-like sequence (every request a write, as the paper's) as generators, and PostMark as its bundled page-cache-level capture, on its own timed SSD (samsung-k9 timing, page-level FTL), so compare directions, not numbers. The paper does not state its arrival rate: wafer reports the spec's 10 ms mean Poisson gap (where constant-write and thrash, ~2 MB per request, saturate the modelled device and the means measure the backlog), a lighter 100 ms gap (where constant-write still does) and a 1 s gap (where no baseline does), and picks none to suit a finding.";

fn mean_of(rs: &[ApuResult], f: impl Fn(&ApuResult) -> bool) -> Option<f64> {
    let v: Vec<f64> = rs.iter().filter(|r| f(r)).map(|r| r.mean_ms).collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Whether the cells `f` selects ran the device saturated
/// ([`crate::claims::rule::SATURATED`]).
fn saturated(rs: &[ApuResult], f: impl Fn(&ApuResult) -> bool) -> bool {
    rs.iter()
        .filter(|r| f(r))
        .any(|r| r.utilization >= crate::claims::rule::SATURATED)
}

/// One of paper 004's claims as the shared verdict rule reads it (`claims.rs`): the
/// loads (arrival gaps) stand where a grid preset has traces.
fn claim(
    text: &str,
    policy: &'static str,
    baseline: &'static str,
    form: Form,
    over: Over,
    paper: Option<f64>,
) -> Claim {
    Claim {
        text: text.into(),
        policy: policy.into(),
        baseline: baseline.into(),
        metric: Metric::Elapsed,
        form,
        over,
        paper,
        device: "the timed SSD".into(),
        differences: String::new(),
    }
}

/// How one claim is judged on one replicate and view.
enum Judge {
    /// By the shared rule, on per-load figures `(load, figure, whether the baseline's
    /// device ran saturated there)`.
    Rule(Claim, Vec<(String, Option<f64>, bool)>),
    /// A claim that two settings do not differ: per-load ratios, set against the dead
    /// band. The rule judges an effect in one direction and has no outcome that
    /// supports an absence of effect, so none is drawn.
    NoDifference(&'static str, Vec<(String, f64)>),
}

/// One claim (or a second claim on the same figures) as measured on one replicate
/// and view.
struct Entry {
    /// The paper's claim, printed above wafer's figures.
    paper: Option<String>,
    /// wafer's figures, one line per load.
    lines: Vec<String>,
    judge: Option<Judge>,
}

/// The claims of one replicate and view, in the order they are printed.
#[derive(Default)]
struct Entries(Vec<Entry>);

impl Entries {
    /// The entry being written: a new one after a judged one.
    fn open(&mut self) -> &mut Entry {
        if self.0.last().map_or(true, |e| e.judge.is_some()) {
            self.0.push(Entry {
                paper: None,
                lines: Vec::new(),
                judge: None,
            });
        }
        self.0.last_mut().expect("an open entry")
    }

    fn paper(&mut self, text: String) {
        self.0.push(Entry {
            paper: Some(text),
            lines: Vec::new(),
            judge: None,
        });
    }

    fn line(&mut self, text: String) {
        self.open().lines.push(text);
    }

    fn verdict(&mut self, c: Claim, per_load: Vec<(String, Option<f64>, bool)>) {
        self.open().judge = Some(Judge::Rule(c, per_load));
    }

    fn no_verdict(&mut self, what: &'static str, per_load: Vec<(String, f64)>) {
        self.open().judge = Some(Judge::NoDifference(what, per_load));
    }
}

/// The cells of replicate `seed` in view `measure`.
fn subset(rs: &[ApuResult], seed: u64, measure: Measure) -> Vec<ApuResult> {
    rs.iter()
        .filter(|r| r.cell.seed == seed && r.cell.measure == measure)
        .cloned()
        .collect()
}

/// The view's name as printed.
fn view_name(m: Measure) -> &'static str {
    match m {
        Measure::AsCaptured => "as captured",
        Measure::Steady => "steady state",
    }
}

/// Paper 004's claims, each followed by what wafer measured, in each view (as
/// captured, steady state): the first replicate's figures at each load; with
/// replicates, the claim's figure as the median over them with its range and each
/// replicate's own figure and verdict; then the verdict by the rule of the grid
/// presets over the replicates (`crate::claims`), the loads standing where a grid
/// preset has traces.
pub fn compare(study: &ApuStudy, rs: &[ApuResult]) -> Vec<String> {
    judge_all(study, rs).0
}

/// [`compare`]'s lines, and a verdict-table row per claim and view.
fn judge_all(study: &ApuStudy, rs: &[ApuResult]) -> (Vec<String>, Vec<VerdictRow>) {
    let seeds = study.seeds();
    let views: Vec<(Measure, Vec<(u64, Entries)>)> = study
        .measures
        .iter()
        .map(|&m| {
            let reps = seeds
                .iter()
                .map(|&s| (s, entries(study, &subset(rs, s, m))))
                .collect();
            (m, reps)
        })
        .collect();
    let Some(template) = views.first().and_then(|(_, reps)| reps.first()) else {
        return (Vec::new(), Vec::new());
    };
    let (mut out, mut rows) = (Vec::new(), Vec::new());
    let mut paper = String::new();
    for (i, e) in template.1 .0.iter().enumerate() {
        out.extend(e.paper.clone());
        if let Some(p) = &e.paper {
            paper = p.trim_start_matches("paper: ").to_string();
        }
        for (m, reps) in &views {
            // Entry i of every replicate (a replicate whose cells are missing may
            // have fewer claims: it is left out).
            let at: Vec<(u64, &Entry)> = reps
                .iter()
                .filter_map(|(s, es)| es.0.get(i).filter(|x| x.paper == e.paper).map(|x| (*s, x)))
                .collect();
            let Some(&(first, shown)) = at.first() else {
                continue;
            };
            if views.len() > 1 {
                out.push(format!("  {}:", view_name(*m)));
            }
            for l in &shown.lines {
                out.push(if seeds.len() > 1 {
                    l.replacen("  wafer", &format!("  wafer, seed {first}"), 1)
                } else {
                    l.clone()
                });
            }
            match &shown.judge {
                Some(Judge::Rule(c, _)) => {
                    let (lines, mut row) = judged(c, &at);
                    out.extend(lines);
                    row.text = paper.clone();
                    row.group = view_name(*m).to_string();
                    rows.push(row);
                }
                Some(Judge::NoDifference(what, _)) => {
                    let line = no_verdict(what, &at);
                    rows.push(VerdictRow {
                        claim: what.to_string(),
                        text: paper.clone(),
                        group: view_name(*m).to_string(),
                        paper: "no difference".into(),
                        verdict: "no verdict".into(),
                        why: line.trim_start_matches("  no verdict: ").to_string(),
                        ..VerdictRow::default()
                    });
                    out.push(line);
                }
                None => {}
            }
        }
    }
    (out, rows)
}

/// The lines of claim `c` judged over the replicates `at` (seed, entry): with
/// several, the median and range and each replicate's figure and verdict; then the
/// verdict. Loads where the baseline's device ran saturated are left out of every
/// figure; with none left the claim is not measurable.
fn judged(c: &Claim, at: &[(u64, &Entry)]) -> (Vec<String>, VerdictRow) {
    let mut saturated: Vec<String> = Vec::new();
    let mut reps = Vec::new();
    for (seed, e) in at {
        let Some(Judge::Rule(_, per_load)) = &e.judge else {
            continue;
        };
        let kept: Vec<(String, Option<f64>, usize)> = per_load
            .iter()
            .filter(|(_, _, sat)| !sat)
            .map(|(load, v, _)| (load.clone(), *v, 1))
            .collect();
        let all_saturated = kept.is_empty() && !per_load.is_empty();
        saturated.extend(per_load.iter().filter(|x| x.2).map(|x| x.0.clone()));
        let figures: Vec<f64> = kept.iter().filter_map(|x| x.1).collect();
        let measured = Measured {
            // Ratios aggregate by their geometric mean, as every claim's do.
            value: c.aggregate(&figures),
            range: None,
            effects: figures,
            per_trace: kept,
            not_comparable: Vec::new(),
        };
        let verdict = if all_saturated {
            Verdict::NotMeasurable
        } else {
            c.judge(&measured).0
        };
        reps.push(Replicate {
            seed: Some(*seed),
            measured,
            verdict,
        });
    }
    let mut seen = std::collections::HashSet::new();
    saturated.retain(|l| seen.insert(l.clone()));
    let m = c.combine(&reps.iter().map(|r| r.measured.clone()).collect::<Vec<_>>());
    let note = crate::claims::saturated_note(&saturated);
    let (v, why) = if m.per_trace.is_empty() && !saturated.is_empty() {
        (Verdict::NotMeasurable, note)
    } else {
        let (v, why) = c.over_replicates(&m, &reps, "seed");
        if saturated.is_empty() {
            (v, why)
        } else {
            (v, format!("{why}; left out: {note}"))
        }
    };
    let mut out = Vec::new();
    let show = |v: Option<f64>| v.map_or("n/a".to_string(), |v| c.show(v));
    let (k, n) = (
        m.effects.iter().filter(|&&v| c.favourable(v)).count(),
        m.effects.len(),
    );
    let row = VerdictRow {
        claim: c.text.to_string(),
        text: String::new(),
        group: String::new(),
        paper: c.paper_figure(),
        wafer: show(m.value),
        range: m
            .range
            .map(|(lo, hi)| format!("{}..{} over {} seeds", c.show(lo), c.show(hi), reps.len())),
        cells: format!("{k} of {n}"),
        verdict: v.name().to_string(),
        why: why.clone(),
    };
    if reps.len() > 1 {
        out.push(format!(
            "  wafer, median over {} replicates: {}{} (geometric mean over loads); {k} of {n} cells (load x replicate) favourable",
            reps.len(),
            show(m.value),
            m.range.map_or(String::new(), |(lo, hi)| format!(
                " [{}..{}]",
                c.show(lo),
                c.show(hi)
            ))
        ));
        let each: Vec<String> = reps
            .iter()
            .map(|r| {
                format!(
                    "{}: {} {}",
                    r.seed.unwrap_or(0),
                    show(r.measured.value),
                    r.verdict.name()
                )
            })
            .collect();
        out.push(format!("         by seed: {}", each.join("; ")));
    }
    out.push(format!(
        "  verdict: {} ({why}; the loads stand where traces do)",
        v.name()
    ));
    (out, row)
}

/// The line printed in place of a verdict for a claim that two settings do not
/// differ ([`Judge::NoDifference`]): its ratios, over loads and replicates, set
/// against the rule's dead band.
fn no_verdict(what: &str, at: &[(u64, &Entry)]) -> String {
    let several = at.len() > 1;
    let mut per: Vec<(String, f64)> = Vec::new();
    for (seed, e) in at {
        if let Some(Judge::NoDifference(_, per_load)) = &e.judge {
            for (l, q) in per_load {
                let label = if several {
                    format!("{l}, seed {seed}")
                } else {
                    l.clone()
                };
                per.push((label, *q));
            }
        }
    }
    let within: Vec<&str> = per
        .iter()
        .filter(|(_, q)| q.ln().abs() < crate::claims::rule::DEAD_BAND)
        .map(|(l, _)| l.as_str())
        .collect();
    format!(
        "  no verdict: the rule judges an effect in one direction and cannot support a claim of no difference; \
         {what} is within its {:.1}% dead band at {} of {} {}{}",
        crate::claims::rule::DEAD_BAND * 100.0,
        within.len(),
        per.len(),
        if several { "cells (load x replicate)" } else { "loads" },
        if within.is_empty() {
            String::new()
        } else {
            format!(" ({})", within.join(if several { "; " } else { ", " }))
        }
    )
}

/// Paper 004's claims on the cells `rs` of one replicate and view: each claim's
/// lines and figures per load.
fn entries(study: &ApuStudy, rs: &[ApuResult]) -> Entries {
    let mut out = Entries::default();
    let gap = |g: f64| format!("{g} ms gap");
    let small = study.sizes_mb.first().copied().unwrap_or(8);
    let f = |v: Option<f64>| v.map_or("not run".to_string(), |v| format!("{v:.3} ms"));
    let mut constant = Vec::new();
    out.paper("paper: Constant Write Only drops from 6.8 ms (no cache) to under 0.3 ms with any cache size, associativity or APU".into());
    for &g in &study.gaps_ms {
        let k = "constant-write";
        let nc = mean_of(rs, |r| {
            !r.cell.sweep && r.cell.gap_ms == g && r.cell.kind == k && r.cell.cache_mb == 0
        });
        let lo = rs
            .iter()
            .filter(|r| {
                !r.cell.sweep && r.cell.gap_ms == g && r.cell.kind == k && r.cell.cache_mb > 0
            })
            .map(|r| r.mean_ms)
            .fold(f64::MAX, f64::min);
        let hi = rs
            .iter()
            .filter(|r| {
                !r.cell.sweep && r.cell.gap_ms == g && r.cell.kind == k && r.cell.cache_mb > 0
            })
            .map(|r| r.mean_ms)
            .fold(f64::MIN, f64::max);
        if lo <= hi {
            out.line(format!(
                "  wafer, {g} ms gap: no cache {}, any cache {lo:.3} .. {hi:.3} ms",
                f(nc)
            ));
            // "With any cache": the slowest cache is the one the claim must hold for.
            let sat = saturated(rs, |r| {
                !r.cell.sweep && r.cell.gap_ms == g && r.cell.kind == k && r.cell.cache_mb == 0
            });
            constant.push((gap(g), nc.filter(|&n| n > 0.0).map(|n| 1.0 - hi / n), sat));
        }
    }
    out.verdict(
        claim(
            "constant write: any cache cuts the mean from 6.8 ms to under 0.3 ms",
            "any cache",
            "no cache",
            Form::Reduction,
            Over::Mean,
            Some(1.0 - 0.3 / 6.8),
        ),
        constant,
    );
    for (k, name) in [
        ("random-write", "Random Write Only"),
        ("write-biased", "Random Write Biased"),
    ] {
        out.paper(format!("paper: {name}, small caches: APU cuts mean response time versus write-back alone (up to an order of magnitude)"));
        let mut per = Vec::new();
        for &g in &study.gaps_ms {
            let at = |apu: &str| {
                mean_of(rs, |r| {
                    !r.cell.sweep
                        && r.cell.gap_ms == g
                        && r.cell.kind == k
                        && r.cell.cache_mb == small
                        && r.cell.apu == apu
                })
            };
            if let (Some(wb), Some(lru)) = (at("off"), at("lru")) {
                out.line(format!(
                    "  wafer, {g} ms gap, {small} MB (mean over ways): write-back {wb:.3} ms, APU-LRU {lru:.3} ms, APU-LFU {}: {:.2}x",
                    f(at("lfu")),
                    wb / lru
                ));
                let sat = saturated(rs, |r| {
                    !r.cell.sweep
                        && r.cell.gap_ms == g
                        && r.cell.kind == k
                        && r.cell.cache_mb == small
                        && r.cell.apu == "off"
                });
                per.push((gap(g), (lru > 0.0).then(|| wb / lru), sat));
            }
        }
        out.verdict(
            claim(
                &format!(
                    "{k}, smallest cache: APU-LRU cuts the mean versus write-back alone, up to 10x"
                ),
                "APU-LRU",
                "write-back",
                Form::Ratio,
                Over::UpTo,
                Some(10.0),
            ),
            per,
        );
    }
    // Paper 004, Sec. 4.3.1: "Without the automatic update policies, the average
    // response time using a cache turns out to be slightly inferior to the case
    // without a cache, for small cache sizes (< 32 MB)", of both random benchmarks.
    out.paper("paper: Random Write Only and Write Biased: below 32 MB, write-back alone is slightly slower than no cache".into());
    let mut below = Vec::new();
    for k in ["random-write", "write-biased"] {
        for &g in &study.gaps_ms {
            let small_wb = |r: &ApuResult| {
                !r.cell.sweep
                    && r.cell.gap_ms == g
                    && r.cell.kind == k
                    && r.cell.cache_mb > 0
                    && r.cell.cache_mb < 32
                    && r.cell.apu == "off"
            };
            let none = |r: &ApuResult| {
                !r.cell.sweep && r.cell.gap_ms == g && r.cell.kind == k && r.cell.cache_mb == 0
            };
            if let (Some(wb), Some(nc)) = (mean_of(rs, small_wb), mean_of(rs, none)) {
                out.line(format!(
                    "  wafer, {k}, {g} ms gap: no cache {nc:.3} ms, write-back below 32 MB (mean over sizes and ways) {wb:.3} ms: {:.2}x",
                    wb / nc
                ));
                let sat = saturated(rs, small_wb) || saturated(rs, none);
                below.push((format!("{k}, {}", gap(g)), (nc > 0.0).then(|| wb / nc), sat));
            }
        }
    }
    out.verdict(
        claim(
            "below 32 MB, write-back alone is slower than no cache (random write, write biased)",
            "no cache",
            "write-back below 32 MB",
            Form::Ratio,
            Over::Mean,
            None,
        ),
        below,
    );
    out.paper(
        "paper: Thrash Balanced: higher associativity cuts the response time (2-way vs direct mapped: 7x for write-back)"
            .into(),
    );
    let mut thrash = Vec::new();
    for &g in &study.gaps_ms {
        let at = |w: u32, apu: &str| {
            mean_of(rs, |r| {
                !r.cell.sweep
                    && r.cell.gap_ms == g
                    && r.cell.kind == "thrash"
                    && r.cell.cache_mb > 0
                    && r.cell.ways == w
                    && r.cell.apu == apu
            })
        };
        for apu in ["off", "lru"] {
            if let (Some(a), Some(b)) = (at(1, apu), at(2, apu)) {
                out.line(format!(
                    "  wafer, {g} ms gap, {} (mean over sizes): 1-way {a:.3} ms, 2-way {b:.3} ms: {:.2}x",
                    if apu == "off" { "write-back" } else { "APU-LRU" },
                    a / b
                ));
                if apu == "off" {
                    let sat = saturated(rs, |r| {
                        !r.cell.sweep
                            && r.cell.gap_ms == g
                            && r.cell.kind == "thrash"
                            && r.cell.cache_mb > 0
                            && r.cell.ways == 1
                            && r.cell.apu == "off"
                    });
                    thrash.push((gap(g), (b > 0.0).then(|| a / b), sat));
                }
            }
        }
    }
    out.verdict(
        claim(
            "thrash: 2-way is 7x faster than direct mapped (write-back)",
            "2-way",
            "1-way",
            Form::Ratio,
            Over::Mean,
            Some(7.0),
        ),
        thrash,
    );
    apps(study, rs, &mut out);
    out
}

/// The mean of `f` over the grid cells of `kind` at gap `g` that `sel` selects.
fn grid_mean(
    rs: &[ApuResult],
    g: f64,
    kind: &str,
    sel: impl Fn(&ApuCell) -> bool,
    f: impl Fn(&ApuResult) -> f64,
) -> Option<f64> {
    let v: Vec<f64> = rs
        .iter()
        .filter(|r| !r.cell.sweep && r.cell.gap_ms == g && r.cell.kind == kind && sel(&r.cell))
        .map(f)
        .collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Whether the grid cells of `kind` at gap `g` that `sel` selects ran saturated.
fn grid_saturated(rs: &[ApuResult], g: f64, kind: &str, sel: impl Fn(&ApuCell) -> bool) -> bool {
    saturated(rs, |r| {
        !r.cell.sweep && r.cell.gap_ms == g && r.cell.kind == kind && sel(&r.cell)
    })
}

/// Paper 004's Sec. 4.3.2 findings on IOzone and PostMark (Figs. 10-11), into `out`.
fn apps(study: &ApuStudy, rs: &[ApuResult], out: &mut Entries) {
    let gap = |g: f64| format!("{g} ms gap");
    let has = |k: &str| study.kinds.iter().any(|x| x == k);
    let (Some(&small), Some(&large)) = (study.sizes_mb.first(), study.sizes_mb.last()) else {
        return;
    };
    let mean = |r: &ApuResult| r.mean_ms;
    let write = |r: &ApuResult| r.write_mean_ms;
    if has("iozone") {
        let k = "iozone";
        // The cache at the smallest size against no cache, "up to 14%": the best
        // configuration at that size.
        out.paper("paper: IOzone (all writes), 8 MB: the cache improves the mean response time over no cache by up to 14% (Fig. 10(a-c))".into());
        let mut per = Vec::new();
        for &g in &study.gaps_ms {
            let nc = grid_mean(rs, g, k, |c| c.cache_mb == 0, mean);
            let at: Vec<(String, f64)> = rs
                .iter()
                .filter(|r| {
                    !r.cell.sweep
                        && r.cell.gap_ms == g
                        && r.cell.kind == k
                        && r.cell.cache_mb == small
                })
                .map(|r| (r.cell.config(), r.mean_ms))
                .collect();
            let best = at.iter().min_by(|a, b| a.1.total_cmp(&b.1));
            let worst = at.iter().map(|a| a.1).fold(f64::MIN, f64::max);
            if let (Some(nc), Some((name, b))) = (nc, best) {
                out.line(format!(
                    "  wafer, {g} ms gap: no cache {nc:.3} ms; {small} MB: best {name} {b:.3} ms ({:+.1}%), slowest {worst:.3} ms ({:+.1}%)",
                    100.0 * (1.0 - b / nc),
                    100.0 * (1.0 - worst / nc)
                ));
                let sat = grid_saturated(rs, g, k, |c| c.cache_mb == 0);
                per.push((gap(g), (nc > 0.0).then(|| 1.0 - b / nc), sat));
            }
        }
        out.verdict(
            claim(
                "IOzone, smallest cache: up to 14% less mean response time than no cache",
                "the best cache configuration",
                "no cache",
                Form::Reduction,
                Over::UpTo,
                Some(0.14),
            ),
            per,
        );
        out.paper(
            "paper: IOzone, large caches: more than 50% reduction in the response time for writes (Fig. 10(a-c))"
                .into(),
        );
        let mut per = Vec::new();
        for &g in &study.gaps_ms {
            let nc = grid_mean(rs, g, k, |c| c.cache_mb == 0, write);
            let big = grid_mean(rs, g, k, |c| c.cache_mb == large, write);
            if let (Some(nc), Some(big)) = (nc, big) {
                out.line(format!(
                    "  wafer, {g} ms gap, writes: no cache {nc:.3} ms, {large} MB (mean over ways and APU settings) {big:.3} ms: {:+.1}%",
                    100.0 * (1.0 - big / nc)
                ));
                let sat = grid_saturated(rs, g, k, |c| c.cache_mb == 0);
                per.push((gap(g), (nc > 0.0).then(|| 1.0 - big / nc), sat));
            }
        }
        out.verdict(
            claim(
                "IOzone, the largest cache: more than 50% less write response time than no cache",
                "the largest cache",
                "no cache",
                Form::Reduction,
                Over::Mean,
                Some(0.5),
            ),
            per,
        );
        out.paper(
            "paper: IOzone: APU reduces the response time further than write-back alone, most for small caches (Fig. 10(a-c))"
                .into(),
        );
        let ratio_at = |g: f64, mb: u64| {
            let wb = grid_mean(rs, g, k, |c| c.cache_mb == mb && c.apu == "off", mean)?;
            let lru = grid_mean(rs, g, k, |c| c.cache_mb == mb && c.apu == "lru", mean)?;
            Some((wb, lru))
        };
        let (mut further, mut prominent) = (Vec::new(), Vec::new());
        for &g in &study.gaps_ms {
            let (Some((wbs, lrus)), Some((wbl, lrul))) = (ratio_at(g, small), ratio_at(g, large))
            else {
                continue;
            };
            out.line(format!(
                "  wafer, {g} ms gap (mean over ways): {small} MB write-back {wbs:.3} ms, APU-LRU {lrus:.3} ms: {:.2}x; {large} MB write-back {wbl:.3} ms, APU-LRU {lrul:.3} ms: {:.2}x",
                wbs / lrus,
                wbl / lrul
            ));
            let sat_s = grid_saturated(rs, g, k, |c| c.cache_mb == small && c.apu == "off");
            let sat_l = grid_saturated(rs, g, k, |c| c.cache_mb == large && c.apu == "off");
            further.push((gap(g), (lrus > 0.0).then(|| wbs / lrus), sat_s));
            let (gs, gl) = (wbs / lrus, wbl / lrul);
            prominent.push((
                gap(g),
                (gl > 0.0 && gs.is_finite()).then(|| gs / gl),
                sat_s || sat_l,
            ));
        }
        out.verdict(
            claim(
                "IOzone, smallest cache: APU-LRU is faster than write-back alone",
                "APU-LRU",
                "write-back",
                Form::Ratio,
                Over::Mean,
                None,
            ),
            further,
        );
        let gains: Vec<String> = prominent
            .iter()
            .filter_map(|(l, v, _)| v.map(|v| format!("{l} {v:.2}x")))
            .collect();
        out.line(format!(
            "  wafer: APU-LRU's gain at {small} MB over its gain at {large} MB: {}",
            gains.join(", ")
        ));
        out.verdict(
            claim(
                "IOzone: APU-LRU's gain over write-back is larger at the smallest cache than at the largest",
                "the smallest cache's gain",
                "the largest cache's gain",
                Form::Ratio,
                Over::Mean,
                None,
            ),
            prominent,
        );
        out.paper("paper: IOzone: no significant difference between the LRU and LFU policies for APU (Fig. 10(a-c))".into());
        let mut per = Vec::new();
        for &g in &study.gaps_ms {
            let lru = grid_mean(rs, g, k, |c| c.cache_mb > 0 && c.apu == "lru", mean);
            let lfu = grid_mean(rs, g, k, |c| c.cache_mb > 0 && c.apu == "lfu", mean);
            if let (Some(lru), Some(lfu)) = (lru, lfu) {
                out.line(format!(
                    "  wafer, {g} ms gap (mean over sizes and ways): APU-LRU {lru:.3} ms, APU-LFU {lfu:.3} ms: APU-LRU/APU-LFU {:.4}",
                    lru / lfu
                ));
                if lfu > 0.0 {
                    per.push((gap(g), lru / lfu));
                }
            }
        }
        out.no_verdict("APU-LRU/APU-LFU", per);
    }
    if has("postmark") {
        let k = "postmark";
        out.paper("paper: PostMark: the cache with APU reduces the response time by up to 17% (Fig. 10(d-f))".into());
        let mut per = Vec::new();
        for &g in &study.gaps_ms {
            let nc = grid_mean(rs, g, k, |c| c.cache_mb == 0, mean);
            let best = rs
                .iter()
                .filter(|r| {
                    !r.cell.sweep
                        && r.cell.gap_ms == g
                        && r.cell.kind == k
                        && r.cell.cache_mb > 0
                        && r.cell.apu != "off"
                })
                .min_by(|a, b| a.mean_ms.total_cmp(&b.mean_ms));
            if let (Some(nc), Some(b)) = (nc, best) {
                out.line(format!(
                    "  wafer, {g} ms gap: no cache {nc:.3} ms; best APU cell {} MB {} {:.3} ms: {:+.1}%",
                    b.cell.cache_mb,
                    b.cell.config(),
                    b.mean_ms,
                    100.0 * (1.0 - b.mean_ms / nc)
                ));
                let sat = grid_saturated(rs, g, k, |c| c.cache_mb == 0);
                per.push((gap(g), (nc > 0.0).then(|| 1.0 - b.mean_ms / nc), sat));
            }
        }
        out.verdict(
            claim(
                "PostMark: a cache with APU cuts the mean response time by up to 17% against no cache",
                "the best APU configuration",
                "no cache",
                Form::Reduction,
                Over::UpTo,
                Some(0.17),
            ),
            per,
        );
        out.paper("paper: PostMark: write-back alone shows no significant improvement with cache size (Fig. 10(d-f))".into());
        let mut per = Vec::new();
        for &g in &study.gaps_ms {
            let wbs = grid_mean(rs, g, k, |c| c.cache_mb == small && c.apu == "off", mean);
            let wbl = grid_mean(rs, g, k, |c| c.cache_mb == large && c.apu == "off", mean);
            if let (Some(s), Some(l)) = (wbs, wbl) {
                out.line(format!(
                    "  wafer, {g} ms gap, write-back (mean over ways): {small} MB {s:.3} ms, {large} MB {l:.3} ms: {large} MB/{small} MB {:.3}",
                    l / s
                ));
                if s > 0.0 {
                    per.push((gap(g), l / s));
                }
            }
        }
        out.no_verdict(
            "write-back's mean at the largest cache over the smallest",
            per,
        );
        out.paper(
            "paper: PostMark: APU improves on plain write-back by 5% to 12.5% (Fig. 10(d-f))"
                .into(),
        );
        let mut per = Vec::new();
        for &g in &study.gaps_ms {
            let mut by_size = Vec::new();
            for &mb in &study.sizes_mb {
                let wb = grid_mean(rs, g, k, |c| c.cache_mb == mb && c.apu == "off", mean);
                let lru = grid_mean(rs, g, k, |c| c.cache_mb == mb && c.apu == "lru", mean);
                if let (Some(wb), Some(lru)) = (wb, lru) {
                    if wb > 0.0 {
                        by_size.push((mb, 1.0 - lru / wb));
                    }
                }
            }
            let Some(&(best_mb, best)) = by_size.iter().max_by(|a, b| a.1.total_cmp(&b.1)) else {
                continue;
            };
            let shown: Vec<String> = by_size
                .iter()
                .map(|(mb, v)| format!("{mb} MB {:+.1}%", 100.0 * v))
                .collect();
            out.line(format!(
                "  wafer, {g} ms gap, APU-LRU against write-back (mean over ways): {}",
                shown.join(", ")
            ));
            let sat = grid_saturated(rs, g, k, |c| c.cache_mb == best_mb && c.apu == "off");
            per.push((gap(g), Some(best), sat));
        }
        out.verdict(
            claim(
                "PostMark: APU-LRU cuts write-back's mean by up to 12.5% (5% to 12.5% over cache sizes)",
                "APU-LRU",
                "write-back",
                Form::Reduction,
                Over::UpTo,
                Some(0.125),
            ),
            per,
        );
    }
    // Fig. 11: APU-LRU, 16 MB, 2-way, over the idle threshold.
    for k in &study.sweep_kinds {
        let (paper, rises) = match k.as_str() {
            "iozone" => ("paper: IOzone: the mean response time tends to increase with the idle threshold (Fig. 11)", true),
            "postmark" => ("paper: PostMark: the mean response time decreases as the idle threshold grows (Fig. 11)", false),
            _ => continue,
        };
        out.paper(paper.into());
        let mut per = Vec::new();
        for &g in &study.gaps_ms {
            let cells: Vec<&ApuResult> = rs
                .iter()
                .filter(|r| r.cell.sweep && r.cell.gap_ms == g && r.cell.kind == *k)
                .collect();
            let (Some(first), Some(last)) = (cells.first(), cells.last()) else {
                continue;
            };
            let pts: Vec<String> = cells
                .iter()
                .map(|r| format!("{} ms: {:.3}", r.cell.idle_threshold_ms, r.mean_ms))
                .collect();
            out.line(format!(
                "  wafer, {g} ms gap, {k} {} MB 2-way APU-LRU: {}",
                study.sweep_mb,
                pts.join(", ")
            ));
            // Direction only: the mean at one end of the sweep over the other.
            let (hi, lo) = if rises {
                (last.mean_ms, first.mean_ms)
            } else {
                (first.mean_ms, last.mean_ms)
            };
            let sat = saturated(rs, |r| {
                r.cell.sweep && r.cell.gap_ms == g && r.cell.kind == *k
            });
            per.push((gap(g), (lo > 0.0).then(|| hi / lo), sat));
        }
        let c = if rises {
            claim(
                "IOzone: the mean rises with the idle threshold (longest over shortest)",
                "the shortest threshold",
                "the longest",
                Form::Ratio,
                Over::Mean,
                None,
            )
        } else {
            claim(
                "PostMark: the mean falls as the idle threshold grows (shortest over longest)",
                "the longest threshold",
                "the shortest",
                Form::Ratio,
                Over::Mean,
                None,
            )
        };
        out.verdict(c, per);
    }
}
