//! The `apu` preset (paper 004: M. Huang, O. Serres, V. K. Narayana, T. El-Ghazawi,
//! G. Newby, "Efficient Cache Design for Solid-State Drives", ACM Computing Frontiers
//! 2010, an SSD on-board cache with automatic periodic update):
//! the four micro benchmarks of Table 5 on the timed SSD (wafer-ssd) x on-board cache
//! size x associativity x APU policy, plus an idle-threshold sweep (Figs. 6-8, 10-11).
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
//!   with Poisson arrivals of mean `gap_ms` (seed 1).
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

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use wafer_ssd::{Apu, Arrival, Assoc, CacheConfig, FtlFlash, Ssd, SsdConfig};
use wafer_trace::gen::{Arrival as GenArrival, Bytes, GenSpec, MicroKind};

use crate::claims::{Claim, Form, Measured, Metric, Over};
use crate::error::LabError;
use crate::parquet_file::Row;
use crate::plot::{Chart, Kind, Series};
use crate::spec::VERSION;
use crate::store::{write_atomic, Store};
use crate::study::{Observer, RunOptions, Study};

/// Paper 004's micro benchmarks (Table 5), as generator kinds.
pub const KINDS: [&str; 4] = ["constant-write", "random-write", "write-biased", "thrash"];

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
    /// Generator kinds.
    pub kinds: Vec<String>,
    /// On-board cache sizes, MiB.
    pub sizes_mb: Vec<u64>,
    /// Associativities.
    pub ways: Vec<u32>,
    /// APU policies (`off`, `lru`, `lfu`).
    pub apus: Vec<String>,
    /// Mean Poisson arrival gaps, ms (one grid per load).
    pub gaps_ms: Vec<f64>,
    /// Idle thresholds of the sweep, ms (kind `sweep_kind`, `sweep_mb`, 2 ways, APU-LRU).
    pub thresholds_ms: Vec<f64>,
    /// Kind of the idle-threshold sweep.
    pub sweep_kind: String,
    /// Cache size of the sweep, MiB.
    pub sweep_mb: u64,
    /// Requests per cell at least (`--requests`); cells with a cache may run more
    /// ([`ApuStudy::requests_for`]).
    pub requests: u64,
    /// Logical capacity of the device, GiB.
    pub device_gib: u64,
}

impl ApuStudy {
    /// Paper 004's design: 8-256 MB x 1/2/4 ways x off/LRU/LFU, thresholds
    /// 0.5-16 ms; at least 2,000 requests per cell, more where a cache needs them to
    /// fill ([`ApuStudy::requests_for`]).
    pub fn paper() -> ApuStudy {
        ApuStudy {
            kinds: KINDS.iter().map(|s| s.to_string()).collect(),
            sizes_mb: vec![8, 16, 32, 64, 128, 256],
            ways: vec![1, 2, 4],
            apus: vec!["off".into(), "lru".into(), "lfu".into()],
            gaps_ms: vec![10.0, 100.0, 1000.0],
            thresholds_ms: vec![0.5, 1.0, 2.0, 4.0, 8.0, 16.0],
            sweep_kind: "random-write".into(),
            sweep_mb: 8,
            requests: 2_000,
            device_gib: 16,
        }
    }

    /// The quick check: paper 004's design at its smallest and largest cache only.
    pub fn quick() -> ApuStudy {
        ApuStudy {
            sizes_mb: vec![8, 256],
            ..ApuStudy::paper()
        }
    }

    /// Requests of a `kind` cell with a `cache_mb` MiB cache (0 = none): enough to
    /// write [`FILL`] times the cache's lines on average, at least `requests`.
    pub fn requests_for(&self, kind: &str, cache_mb: u64) -> u64 {
        let lines = (cache_mb << 20) / LINE;
        match mean_pages_written(kind) {
            Some(per) if cache_mb > 0 => ((FILL * lines) as f64 / per)
                .ceil()
                .max(self.requests as f64) as u64,
            _ => self.requests,
        }
    }

    /// The setup table next to the paper's, as text lines (aspect: the paper | wafer),
    /// in the form of the grid presets' tables.
    pub fn setup_lines(&self) -> Vec<String> {
        let list = |v: Vec<String>| v.join(", ");
        let rows = [
            (
                "workload",
                "the four micro benchmarks of Table 5; IOzone and PostMark",
                format!("generators of the four micro benchmarks: {}", list(self.kinds.clone())),
            ),
            (
                "cache sizes",
                "8 MB to 256 MB, direct mapped, 2- and 4-way, write-back alone or APU-LRU / APU-LFU (Figs. 6-8)",
                format!(
                    "{} MB x {} ways x APU {}",
                    list(self.sizes_mb.iter().map(u64::to_string).collect()),
                    list(self.ways.iter().map(u32::to_string).collect()),
                    list(self.apus.clone())
                ),
            ),
            (
                "device",
                "DiskSim with Microsoft's SSD model, Samsung K9 flash (Table 1)",
                format!(
                    "wafer's timed SSD: samsung-k9 timing, page-level FTL, {} GiB, erased; cache DRAM and host link 10 us a page",
                    self.device_gib
                ),
            ),
            (
                "arrivals",
                "not stated",
                format!(
                    "Poisson, mean gaps {} ms (seed 1), each reported",
                    list(self.gaps_ms.iter().map(f64::to_string).collect())
                ),
            ),
            (
                "idle threshold",
                "2 ms; swept in Figs. 10-11",
                format!(
                    "2 ms; swept over {} ms ({}, {} MB, 2-way, APU-LRU)",
                    list(self.thresholds_ms.iter().map(f64::to_string).collect()),
                    self.sweep_kind,
                    self.sweep_mb
                ),
            ),
            (
                "length",
                "not stated",
                format!("at least {} requests a cell, enough to write {FILL}x the cache's lines", self.requests),
            ),
            (
                "metric",
                "mean response time",
                "mean response time (ms)".to_string(),
            ),
        ];
        let mut out = vec!["setup (aspect: the paper | wafer):".to_string()];
        for (a, p, w) in rows {
            out.push(format!("  {a}: {p} | {w}"));
        }
        out
    }

    /// What [`ApuStudy::requests_for`] gives, for a report: one line per kind.
    pub fn requests_lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "requests per cell: at least {}; with a cache, enough to write {FILL}x its lines \
             (mean pages written per request of the kind); without a cache, {}",
            self.requests, self.requests
        )];
        for k in &self.kinds {
            let per: Vec<String> = self
                .sizes_mb
                .iter()
                .map(|&mb| format!("{mb} MB {}", self.requests_for(k, mb)))
                .collect();
            let why = if k == "constant-write" {
                " (its requests all start at sector 0 and stay below 4 MiB: no length fills these caches)"
            } else {
                ""
            };
            out.push(format!("  {k}: {}{why}", per.join(", ")));
        }
        if !self.thresholds_ms.is_empty() {
            out.push(format!(
                "  idle-threshold sweep ({}, {} MB): {}",
                self.sweep_kind,
                self.sweep_mb,
                self.requests_for(&self.sweep_kind, self.sweep_mb)
            ));
        }
        out
    }

    /// Every cell: per gap and kind a no-cache baseline, then sizes x ways x APUs at
    /// the 2 ms threshold; then the idle-threshold sweep per gap.
    pub fn cells(&self) -> Vec<ApuCell> {
        let mut out = Vec::new();
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
            for &t in &self.thresholds_ms {
                out.push(cell(g, &self.sweep_kind, self.sweep_mb, 2, "lru", t, true));
            }
        }
        out
    }
}

/// One timed-device run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ApuCell {
    /// Generator kind.
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

    /// Run the cell.
    pub fn run(&self) -> Result<ApuResult, LabError> {
        let fail = |m: String| LabError::Cell {
            cell: format!("apu {} {} MiB {}", self.kind, self.cache_mb, self.config()),
            msg: m,
        };
        let mut spec = GenSpec::default_for(&self.kind)
            .ok_or_else(|| fail(format!("unknown micro benchmark {}", self.kind)))?;
        let (GenSpec::ConstantWrite(p)
        | GenSpec::RandomWrite(p)
        | GenSpec::WriteBiased(p)
        | GenSpec::Thrash(p)) = &mut spec
        else {
            return Err(fail(format!("{} is not a paper 004 benchmark", self.kind)));
        };
        p.requests = self.requests;
        p.seed = 1;
        p.arrival = GenArrival::Poisson {
            mean_ns: self.gap_ms * 1e6,
        };
        if self.kind == "thrash" && self.cache_mb > 0 {
            p.cache = Some(Bytes(self.cache_mb << 20));
        }
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
        let mut dev =
            wafer_ftl::Device::from_profile("samsung-k9").map_err(|e| fail(e.to_string()))?;
        dev.geometry = wafer_ftl::Geometry::with_op(self.device_gib << 30, 0.15, 4096, 64)
            .map_err(|e| fail(e.to_string()))?;
        let flash = FtlFlash::new(&dev).map_err(|e| fail(e.to_string()))?;
        let mut ssd = Ssd::new(cfg, flash).map_err(|e| fail(e.to_string()))?;
        let mut rd = spec.open()?;
        wafer_ssd::run(
            &mut ssd,
            rd.as_mut(),
            Arrival::Trace,
            None,
            |_| {},
            |_, _| {},
        )
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
}

impl Study for ApuStudy {
    type Cell = ApuCell;
    type Output = ApuResult;
    type Shared = ();

    fn cells(&self) -> Vec<ApuCell> {
        ApuStudy::cells(self)
    }

    fn label(&self, c: &ApuCell) -> String {
        format!(
            "{} {} MiB {} gap {} ms",
            c.kind,
            c.cache_mb,
            c.config(),
            c.gap_ms
        )
    }

    fn prepare(&self, _: usize, _: &mut dyn Observer) -> Result<(), LabError> {
        Ok(())
    }

    fn compute(&self, cell: &ApuCell, _: &(), _: &AtomicU64) -> Result<ApuResult, LabError> {
        cell.run()
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
    let comparison = compare(study, &results);
    let prov = crate::provenance::Provenance::here();
    let json = serde_json::to_vec_pretty(&prov).map_err(|e| LabError::Invalid(e.to_string()))?;
    write_atomic(&out.join("provenance.json"), &json)?;
    let report = out.join("report.html");
    write_atomic(
        &report,
        html(study, &results, &charts, &comparison, &prov).as_bytes(),
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
    })
}

impl ApuResult {
    /// One row of the results tables: every parameter and every metric, in the
    /// column order of `apu-results.csv` and `apu-results.parquet`.
    pub fn row(&self) -> Row {
        let c = &self.cell;
        let cols: [(&str, serde_json::Value); 18] = [
            ("cell_id", self.id.clone().into()),
            ("kind", c.kind.clone().into()),
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
            ("wafer_version", c.version.clone().into()),
        ];
        cols.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }
}

/// `results.csv`, `.parquet` and `.json`, one flat row per cell.
fn write_tables(out: &Path, results: &[ApuResult]) -> Result<(), LabError> {
    let rows: Vec<Row> = results.iter().map(ApuResult::row).collect();
    Store::new(out).write_tables(&rows, rows.first())?;
    Ok(())
}

fn grid<'a>(rs: &'a [ApuResult], gap: f64, kind: &'a str) -> impl Iterator<Item = &'a ApuResult> {
    rs.iter()
        .filter(move |r| !r.cell.sweep && r.cell.gap_ms == gap && r.cell.kind == kind)
}

/// Mean response time vs cache size per (ways, APU), one chart per kind and load;
/// mean response time vs idle threshold per load.
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
                    title: format!("{k}, Poisson arrivals, mean gap {g} ms: mean response time"),
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
        let pts: Vec<(f64, f64)> = rs
            .iter()
            .filter(|r| r.cell.sweep && r.cell.gap_ms == g)
            .map(|r| (r.cell.idle_threshold_ms, r.mean_ms))
            .collect();
        if !pts.is_empty() {
            out.push((
                format!("apu-idle-threshold-gap{g}ms"),
                Chart {
                    title: format!(
                        "{} {} MB 2-way APU-LRU, gap {g} ms: response vs idle threshold",
                        study.sweep_kind, study.sweep_mb
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
pub const NOTE: &str = "Paper 004's workloads ran on DiskSim with Microsoft's SSD model; wafer runs the Table 5 micro benchmarks as generators on its own timed SSD (samsung-k9 timing, page-level FTL), so compare directions, not numbers. The paper does not state its arrival rate: wafer reports the spec's 10 ms mean Poisson gap (where constant-write and thrash, ~2 MB per request, saturate the modelled device and the means measure the backlog), a lighter 100 ms gap (where constant-write still does) and a 1 s gap (where no baseline does), and picks none to suit a finding.";

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
    text: &'static str,
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

/// The verdict line of `c` on per-load figures (`(load, figure, the baseline's
/// device saturated)`).
fn verdict(c: &Claim, per_load: Vec<(String, Option<f64>, bool)>) -> String {
    let saturated: Vec<String> = per_load
        .iter()
        .filter(|x| x.2)
        .map(|x| x.0.clone())
        .collect();
    let per_load: Vec<(String, Option<f64>)> =
        per_load.into_iter().map(|(l, v, _)| (l, v)).collect();
    let figures: Vec<f64> = per_load.iter().filter_map(|x| x.1).collect();
    let m = Measured {
        // Ratios aggregate by their geometric mean, as every claim's do.
        value: c.aggregate(&figures),
        range: None,
        effects: figures,
        per_trace: per_load.into_iter().map(|(l, v)| (l, v, 1)).collect(),
        not_comparable: Vec::new(),
    };
    let (v, why) = c.judge_unsaturated(&m, &saturated);
    format!(
        "  verdict: {} ({why}; the loads stand where traces do)",
        v.name()
    )
}

/// Paper 004's claims, each followed by what wafer measured at each load and the
/// verdict by the rule of the grid presets.
pub fn compare(study: &ApuStudy, rs: &[ApuResult]) -> Vec<String> {
    let mut out = Vec::new();
    let gap = |g: f64| format!("{g} ms gap");
    let small = study.sizes_mb.first().copied().unwrap_or(8);
    let f = |v: Option<f64>| v.map_or("not run".to_string(), |v| format!("{v:.3} ms"));
    let mut constant = Vec::new();
    out.push("paper: Constant Write Only drops from 6.8 ms (no cache) to under 0.3 ms with any cache size, associativity or APU".into());
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
            out.push(format!(
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
    out.push(verdict(
        &claim(
            "constant write: any cache cuts the mean from 6.8 ms to under 0.3 ms",
            "any cache",
            "no cache",
            Form::Reduction,
            Over::Mean,
            Some(1.0 - 0.3 / 6.8),
        ),
        constant,
    ));
    for (k, name) in [
        ("random-write", "Random Write Only"),
        ("write-biased", "Random Write Biased"),
    ] {
        out.push(format!("paper: {name}, small caches: APU cuts mean response time versus write-back alone (up to an order of magnitude)"));
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
                out.push(format!(
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
        out.push(verdict(
            &claim(
                "APU-LRU cuts the mean versus write-back alone, up to 10x",
                "APU-LRU",
                "write-back",
                Form::Ratio,
                Over::UpTo,
                Some(10.0),
            ),
            per,
        ));
    }
    // Paper 004, Sec. 4.3.1: "Without the automatic update policies, the average
    // response time using a cache turns out to be slightly inferior to the case
    // without a cache, for small cache sizes (< 32 MB)", of both random benchmarks.
    out.push("paper: Random Write Only and Write Biased: below 32 MB, write-back alone is slightly slower than no cache".into());
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
                out.push(format!(
                    "  wafer, {k}, {g} ms gap: no cache {nc:.3} ms, write-back below 32 MB (mean over sizes and ways) {wb:.3} ms: {:.2}x",
                    wb / nc
                ));
                let sat = saturated(rs, small_wb) || saturated(rs, none);
                below.push((format!("{k}, {}", gap(g)), (nc > 0.0).then(|| wb / nc), sat));
            }
        }
    }
    out.push(verdict(
        &claim(
            "below 32 MB, write-back alone is slower than no cache (random write, write biased)",
            "no cache",
            "write-back below 32 MB",
            Form::Ratio,
            Over::Mean,
            None,
        ),
        below,
    ));
    out.push(
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
                out.push(format!(
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
    out.push(verdict(
        &claim(
            "thrash: 2-way is 7x faster than direct mapped (write-back)",
            "2-way",
            "1-way",
            Form::Ratio,
            Over::Mean,
            Some(7.0),
        ),
        thrash,
    ));
    out.push("paper: the idle threshold trades APU flushes for interference with arriving requests (Figs. 10-11)".into());
    let mut sweep = Vec::new();
    for &g in &study.gaps_ms {
        let means: Vec<f64> = rs
            .iter()
            .filter(|r| r.cell.sweep && r.cell.gap_ms == g)
            .map(|r| r.mean_ms)
            .collect();
        // A longer threshold leaves fewer idle periods to flush in: the mean at the
        // longest threshold over the mean at the shortest (direction only).
        if let (Some(first), Some(last)) = (means.first(), means.last()) {
            sweep.push((gap(g), (*first > 0.0).then(|| last / first), false));
        }
        let pts: Vec<String> = rs
            .iter()
            .filter(|r| r.cell.sweep && r.cell.gap_ms == g)
            .map(|r| format!("{} ms: {:.3}", r.cell.idle_threshold_ms, r.mean_ms))
            .collect();
        if !pts.is_empty() {
            out.push(format!(
                "  wafer, {g} ms gap, {} {} MB 2-way APU-LRU: {}",
                study.sweep_kind,
                study.sweep_mb,
                pts.join(", ")
            ));
        }
    }
    out.push(verdict(
        &claim(
            "a longer idle threshold leaves APU less idle time: the mean rises with the threshold",
            "the shortest threshold",
            "the longest",
            Form::Ratio,
            Over::Mean,
            None,
        ),
        sweep,
    ));
    out
}

fn html(
    study: &ApuStudy,
    rs: &[ApuResult],
    charts: &[(String, Chart)],
    cmp: &[String],
    prov: &crate::provenance::Provenance,
) -> String {
    use crate::plot::esc;
    let mut h = String::from("<!doctype html><html><head><meta charset=utf-8><title>wafer: apu (paper 004)</title><style>body{font-family:sans-serif;max-width:1200px;margin:auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}pre{white-space:pre-wrap}</style></head><body>");
    h.push_str("<h1>apu: SSD on-board cache with automatic periodic update (paper 004)</h1>");
    h.push_str(&prov.html());
    h.push_str(&format!("<p>{}</p>", esc(NOTE)));
    h.push_str(&format!(
        "<pre>{}</pre><p>Seed 1, idle threshold 2 ms except in the sweep; wafer {}.</p>",
        esc(&[study.setup_lines(), study.requests_lines()]
            .concat()
            .join("\n")),
        VERSION
    ));
    h.push_str(&format!(
        "<h2>Claims</h2><pre>{}</pre>",
        esc(&cmp.join("\n"))
    ));
    h.push_str("<h2>Figures</h2>");
    for (_, c) in charts {
        h.push_str(&c.svg());
    }
    // The table's columns, without the cell id and the wafer version.
    h.push_str("<h2>Results</h2><table><tr>");
    if let Some(r) = rs.first() {
        for (c, _) in &r.row()[1..17] {
            h.push_str(&format!("<th>{c}</th>"));
        }
    }
    h.push_str("</tr>");
    for r in rs {
        let c = &r.cell;
        h.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td></tr>",
            esc(&c.kind), c.gap_ms, c.cache_mb, c.ways, esc(&c.apu), c.idle_threshold_ms, c.sweep, c.requests,
            r.mean_ms, r.read_mean_ms, r.write_mean_ms, r.on_demand_flushes, r.apu_flushes, r.lines_used, r.evictions, r.utilization
        ));
    }
    h.push_str("</table></body></html>\n");
    h
}
