//! Curves: results of one trace at every cache size, for one or more policies, as
//! rows (what `wafer curve` prints and writes, and what Python's `wafer.curve`
//! returns).
//!
//! LRU is exact in one pass ([`Method::Exact`], [`wafer_cache::curve::lru`]); SHARDS
//! samples it ([`Method::Shards`]); any policy runs scaled down on a sample
//! ([`Method::Minisim`]). The trace is prepared once and shared; a SHARDS-only run
//! streams it instead (memory grows with the sample, not the trace). Rows carry the
//! metric names of `wafer sim`, plus `method`, `rate` and `miss_ratio`. How each
//! curve is computed and how far off it is: docs/curve.md.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use wafer_cache::curve::{self, lru, minisim, shards, CurvePoint, Method, SampleUnit, Sampling};
use wafer_cache::{Input, Metrics, PolicySpec, PreparedTrace, SimConfig};
use wafer_trace::Granularity;

use crate::bounds::MAX_CURVE_POINTS;
use crate::error::LabError;
use crate::experiment::Experiment;
use crate::spec::Access;
use crate::study::{Observer, RunOptions, Study};

/// How the curves of a trace are drawn (the rest of the run, the trace, policies,
/// page and block size and run options, is an [`Experiment`]).
#[derive(Clone, Debug)]
pub struct CurveOptions {
    /// Methods; empty: exact for LRU, minisim for every other policy.
    pub methods: Vec<Method>,
    /// Sampling rate of shards and minisim, in (0, 1] (None: 0.01).
    pub rate: Option<f64>,
    /// Keep at most this many sampled keys, lowering the rate as needed.
    pub max_keys: Option<u32>,
    /// What a sampled key is (None: a page).
    pub sample_unit: Option<SampleUnit>,
    /// Seed of the sampling hash.
    pub seed: u64,
    /// SHARDS: depth of the exact head in pages (None: [`Sampling::default_head`]).
    pub exact_head: Option<u32>,
    /// Sizes, log-spaced from 1 page to the footprint, when the experiment gives
    /// none.
    pub points: usize,
    /// Worker threads of the minisim runs (0 = all cores), as a grid's `--jobs`.
    pub jobs: usize,
}

impl Default for CurveOptions {
    fn default() -> Self {
        CurveOptions {
            methods: Vec::new(),
            rate: None,
            max_keys: None,
            sample_unit: None,
            seed: 0,
            exact_head: None,
            points: 100,
            jobs: 0,
        }
    }
}

/// One row: a policy, a method, a cache size.
#[derive(Serialize, Clone, Debug)]
pub struct CurveRow {
    /// The trace's path as given.
    pub trace: String,
    /// Policy label (name and parameters).
    pub policy: String,
    /// How the point was computed.
    pub method: Method,
    /// Sampling rate actually used (1 for exact).
    pub rate: f64,
    /// Sampling unit (sampled methods only).
    pub sample_unit: Option<SampleUnit>,
    /// Sampling seed (sampled methods only).
    pub seed: Option<u64>,
    /// Cache size in pages.
    pub cache_pages: u32,
    /// Bytes per page.
    pub page_size: u32,
    /// Pages per erase block.
    pub pages_per_block: u32,
    /// How requests became page accesses.
    pub granularity: Granularity,
    /// Accesses not counted.
    pub warmup: u64,
    /// Whether a write miss reads the page.
    pub write_miss_fetch: bool,
    /// Whether dirty pages are written at the end.
    pub flush_at_end: bool,
    /// The run's counters at this size.
    pub metrics: Metrics,
}

/// What [`compute`] produced.
#[derive(Clone, Debug)]
pub struct Curves {
    /// Rows by policy and method, then size.
    pub rows: Vec<CurveRow>,
    /// Distinct pages of the trace.
    pub footprint: u64,
    /// Whether the footprint is estimated from a sample (a SHARDS-only run).
    pub estimated: bool,
    /// Sizes minisim left out (below `1 / rate` pages: no sampled cache stands for
    /// them).
    pub left_out: usize,
}

/// Progress of [`compute`]'s stages (reading the trace, each curve).
pub trait Watch: Sync {
    /// A stage begins; `total` units when known.
    fn begin(&self, label: &str, total: Option<u64>);
    /// Units of the stage done so far.
    fn at(&self, done: u64);
    /// The stage is over.
    fn end(&self);
}

/// Progress nobody watches.
impl Watch for crate::study::Quiet {
    fn begin(&self, _: &str, _: Option<u64>) {}
    fn at(&self, _: u64) {}
    fn end(&self) {}
}

/// Minisim's policies x sizes as cells of the one runner ([`crate::study::run`]), so
/// they run on its workers and honour `jobs` as a grid's cells do. Each cell is one
/// scaled-down run on the shared sample ([`minisim::point`]); nothing is stored.
struct Minisim {
    /// The trace, for errors.
    source: String,
    sample: minisim::Sample,
    specs: Vec<PolicySpec>,
    cfg: SimConfig,
    cells: Vec<MiniCell>,
}

/// One policy (index into [`Minisim::specs`]) at one size, in pages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct MiniCell {
    job: usize,
    cache_pages: u32,
}

impl Minisim {
    fn new(
        source: String,
        sample: minisim::Sample,
        specs: Vec<PolicySpec>,
        sizes: &[u32],
        cfg: SimConfig,
    ) -> Self {
        let cells = (0..specs.len())
            .flat_map(|job| {
                sizes
                    .iter()
                    .map(move |&cache_pages| MiniCell { job, cache_pages })
            })
            .collect();
        Minisim {
            source,
            sample,
            specs,
            cfg,
            cells,
        }
    }
}

impl Study for Minisim {
    type Cell = MiniCell;
    type Output = Option<CurvePoint>;
    type Shared = ();

    fn cells(&self) -> Vec<MiniCell> {
        self.cells.clone()
    }

    fn label(&self, c: &MiniCell) -> String {
        format!(
            "minisim {} at {} pages",
            self.specs[c.job].label(),
            c.cache_pages
        )
    }

    fn prepare(&self, _: usize, _: &mut dyn Observer) -> Result<(), LabError> {
        Ok(())
    }

    fn compute(
        &self,
        c: &MiniCell,
        _: &(),
        work: &AtomicU64,
    ) -> Result<Option<CurvePoint>, LabError> {
        let mut last = 0;
        minisim::point(
            &self.sample,
            &self.specs[c.job],
            c.cache_pages,
            &self.cfg,
            &mut |n| {
                work.fetch_add(n - last, Ordering::Relaxed);
                last = n;
            },
        )
        .map_err(|e| {
            let msg = format!("{}: {e}", self.label(c));
            LabError::Invalid(crate::prepared::about(&self.source, msg))
        })
    }

    fn is_result_of(&self, out: &Option<CurvePoint>, c: &MiniCell) -> bool {
        out.as_ref()
            .map_or(true, |p| p.cache_pages == c.cache_pages)
    }

    fn cost(&self, c: &MiniCell) -> u64 {
        // Larger caches cost more per access (longer lists, more resident pages).
        u64::from(c.cache_pages)
    }
}

/// The runner's progress as a [`Watch`]'s.
struct Progress<'a>(&'a dyn Watch);

impl Observer for Progress<'_> {
    fn start(&mut self, _: usize, _: usize) {}
    fn message(&mut self, _: &str) {}
    fn work(&mut self, done: u64) {
        self.0.at(done);
    }
    fn cell_done(&mut self, _: &str) {}
}

/// Refuse more sizes than [`MAX_CURVE_POINTS`] before anything is computed, with
/// the memory their rows would take: `--points 4e9` once asked for 16 GB of sizes
/// before reading the trace.
fn check_points(
    exp: &Experiment,
    opts: &CurveOptions,
    err: &dyn Fn(&str, String) -> LabError,
) -> Result<(), LabError> {
    let (key, n) = if exp.cache_sizes.is_empty() {
        ("points", opts.points as u64)
    } else {
        ("cache_sizes", exp.cache_sizes.len() as u64)
    };
    if n <= MAX_CURVE_POINTS {
        return Ok(());
    }
    let curves = (exp.policies.len() * opts.methods.len().max(1)) as u64;
    let row = std::mem::size_of::<CurveRow>() as u64;
    let bytes = n.saturating_mul(curves.saturating_mul(row).saturating_add(4));
    Err(err(
        key,
        format!(
            "{n} sizes would take at least {} for their rows ({curves} curve(s) x {row} B per size); \
             at most {MAX_CURVE_POINTS} sizes (no curve needs more: sizes beyond the trace's distinct pages repeat)",
            wafer_trace::units::format_size(bytes)
        ),
    ))
}

/// Refuse the engine options a curve has no use for (its rows count page reads and
/// writes, not their time, and hold no series) rather than ignore them.
fn check_unused(
    o: &crate::EngineOptions,
    err: &dyn Fn(&str, String) -> LabError,
) -> Result<(), LabError> {
    use crate::options::{SERIES_EVERY, T_READ_NS, T_WRITE_NS};
    let cost = "a curve counts page reads and writes, not their time: the cost model \
                applies to `wafer sim` and experiments";
    if o.t_read_ns != T_READ_NS {
        return Err(err("t_read_ns", cost.into()));
    }
    if o.t_write_ns != T_WRITE_NS {
        return Err(err("t_write_ns", cost.into()));
    }
    if o.series_every != SERIES_EVERY {
        return Err(err(
            "series_every",
            "a curve samples no policy series: they are sampled by `wafer sim` and experiments"
                .into(),
        ));
    }
    Ok(())
}

/// The curves `opts` asks for of `exp`'s one trace, every policy, at `exp`'s sizes
/// (or `opts.points` log-spaced sizes when it gives none). `at(key)` names an option
/// in errors, as [`Experiment::settings_as`] does: refused options are
/// [`LabError::Config`].
pub fn compute(
    exp: &Experiment,
    opts: &CurveOptions,
    at: &dyn Fn(&str) -> String,
    watch: &dyn Watch,
) -> Result<Curves, LabError> {
    let err = |key: &str, msg: String| LabError::Config { at: at(key), msg };
    let [trace] = exp.traces.as_slice() else {
        return Err(err("traces", "a curve is of one trace".into()));
    };
    let sizes_given = !exp.cache_sizes.is_empty();
    check_points(exp, opts, &err)?;
    check_unused(&exp.options, &err)?;
    let mut exp = exp.clone();
    // The curve's own bound on its sizes stands for the grid's on its cells.
    exp.max_cells = Some(u64::MAX);
    if !sizes_given {
        // The curve's largest size (the footprint) stands for the sizes drawn later.
        exp.cache_sizes = vec!["100%".into()];
    }
    // A trace that cannot be opened is a runtime error, named once (as in `wafer sim`).
    if let Some(p) = &trace.path {
        std::fs::File::open(p).map_err(|e| LabError::io(p, e))?;
    }
    let settings = exp.settings_as(at, std::path::Path::new(""))?;
    let (jobs, sampling) = jobs_of(&settings.policies, opts, &err)?;
    let granularity = match exp.options.granularity {
        Access::Page => Granularity::Page {
            page_size: settings.page_size.get(),
        },
        Access::Record => Granularity::Record,
    };
    let unit = granularity.unit();
    let ppb = settings.pages_per_block;
    let cfg = SimConfig {
        granularity,
        capacity_pages: 1,
        pages_per_block: ppb,
        warmup: exp.options.warmup,
        write_miss_fetch: exp.options.write_miss_fetch,
        flush_at_end: exp.options.flush_at_end,
        ..SimConfig::default()
    };
    let format = trace.format_as(&|k| at(&format!("traces[0].{k}")))?;
    let sim = |e: wafer_cache::SimError| {
        LabError::Invalid(crate::prepared::about(&trace.source(), e.to_string()))
    };
    let mut reader = trace.open(format)?;
    // A prepared file kept beside the trace (`wafer trace prepare`) is used when it
    // fits, as by every other run. Without one a SHARDS-only run streams the trace
    // instead of preparing it (memory grows with the sample, not the trace), and
    // only looks for one that is there (checking it means checksumming the trace).
    let prepared = if jobs.iter().all(|j| j.1 == Method::Shards) {
        let kept = trace
            .path
            .as_deref()
            .is_some_and(|p| crate::prepared::path_of(p).exists());
        if kept && !exp.stream {
            let plan = exp.clone().plan_as(at, std::path::Path::new(""))?;
            crate::prepared::load_or(&plan, 0, "streaming the trace")?
        } else {
            None
        }
    } else {
        let plan = exp.clone().plan_as(at, std::path::Path::new(""))?;
        match crate::prepared::load(&plan, 0)? {
            Some(t) => Some(t),
            None => {
                watch.begin("reading trace", reader.meta().requests);
                let t = PreparedTrace::read_within(
                    granularity,
                    reader.as_mut(),
                    &mut |n| watch.at(n),
                    crate::bounds::memory_limit(),
                )
                .map_err(|e| crate::prepared::prepare_error(&trace.source(), e))?;
                watch.end();
                Some(t)
            }
        }
    };

    // Curves of LRU by stack distance, computed once per method.
    let mut lru_curves: Vec<(Method, lru::LruCurve)> = Vec::new();
    for m in [Method::Exact, Method::Shards] {
        if !jobs.iter().any(|j| j.1 == m) {
            continue;
        }
        watch.begin(
            match m {
                Method::Exact => "exact LRU",
                _ => "SHARDS",
            },
            None,
        );
        let mut tick = |n: u64| watch.at(n);
        let c = match (m, &prepared) {
            (Method::Exact, Some(t)) => lru::exact(t, &cfg, &mut tick),
            (_, Some(t)) => shards::lru(Input::Prepared(t), &cfg, &sampling, &mut tick),
            (_, None) => shards::lru(Input::Stream(reader.as_mut()), &cfg, &sampling, &mut tick),
        }
        .map_err(sim)?;
        watch.end();
        lru_curves.push((m, c));
    }
    crate::prepared::say_skipped(&trace.source(), reader.skipped());
    drop(reader);
    let footprint = match &prepared {
        Some(t) => u64::from(t.universe()),
        None => lru_curves.first().map_or(1, |c| c.1.footprint()),
    };
    let sizes: Vec<u32> = if sizes_given {
        settings
            .sizes
            .iter()
            .enumerate()
            .map(|(i, (_, s))| {
                s.pages(unit, footprint)
                    .map_err(|e| err(&format!("cache_sizes[{i}]"), e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?
    } else {
        curve::log_sizes(u32::try_from(footprint).unwrap_or(u32::MAX), opts.points)
    };

    let sample = match &prepared {
        Some(t) if jobs.iter().any(|j| j.1 == Method::Minisim) => {
            Some(minisim::sample(t, &cfg, &sampling).map_err(sim)?)
        }
        _ => None,
    };
    let trace_name = match &trace.path {
        Some(p) => p.display().to_string(),
        None => trace.label(),
    };
    let specs: Vec<PolicySpec> = jobs
        .iter()
        .filter(|j| j.1 == Method::Minisim)
        .map(|j| j.0.clone())
        .collect();
    let mut mini = match sample {
        Some(s) if !specs.is_empty() => {
            let study = Arc::new(Minisim::new(trace.source(), s, specs, &sizes, cfg));
            let n = study.sample.trace.accesses() * study.cells.len() as u64;
            watch.begin("minisim", Some(n));
            let run = RunOptions {
                jobs: opts.jobs,
                ..RunOptions::default()
            };
            let done = crate::study::run(&study, &run, &mut Progress(watch));
            watch.end();
            let results = done?.results;
            let rate = study.sample.rate;
            Some((study.cells.clone().into_iter().zip(results), rate))
        }
        _ => None,
    };
    let mut rows = Vec::new();
    let mut left_out = 0usize;
    for (spec, m) in &jobs {
        let points: Vec<CurvePoint> = match m {
            Method::Minisim => {
                let (cells, _) = mini.as_mut().expect("run for minisim");
                let pts: Vec<CurvePoint> = cells
                    .by_ref()
                    .take(sizes.len())
                    .filter_map(|(_, p)| p)
                    .collect();
                left_out = left_out.max(sizes.len() - pts.len());
                pts
            }
            _ => {
                let c = &lru_curves.iter().find(|c| c.0 == *m).expect("computed").1;
                sizes
                    .iter()
                    .map(|&s| CurvePoint {
                        cache_pages: s,
                        metrics: c.metrics(s),
                    })
                    .collect()
            }
        };
        let (rate, sample_unit, seed) = match m {
            Method::Exact => (1.0, None, None),
            Method::Shards => (
                lru_curves
                    .iter()
                    .find(|c| c.0 == Method::Shards)
                    .map_or(sampling.rate, |c| c.1.rate()),
                Some(sampling.unit),
                Some(opts.seed),
            ),
            Method::Minisim => (
                mini.as_ref().map_or(sampling.rate, |m| m.1),
                Some(sampling.unit),
                Some(opts.seed),
            ),
        };
        for p in points {
            rows.push(CurveRow {
                trace: trace_name.clone(),
                policy: spec.label(),
                method: *m,
                rate,
                sample_unit,
                seed,
                cache_pages: p.cache_pages,
                page_size: u32::try_from(unit).unwrap_or(u32::MAX),
                pages_per_block: ppb.get(),
                granularity,
                warmup: exp.options.warmup,
                write_miss_fetch: exp.options.write_miss_fetch,
                flush_at_end: exp.options.flush_at_end,
                metrics: p.metrics,
            });
        }
    }
    Ok(Curves {
        rows,
        footprint,
        estimated: prepared.is_none(),
        left_out,
    })
}

/// The curves to draw: each policy with each method, in order.
type Jobs<'a> = Vec<(&'a PolicySpec, Method)>;

/// The (policy, method) pairs `opts` asks for, in order, and the sampling of the
/// sampled ones, checked: `err(key, msg)` refuses an option.
fn jobs_of<'a>(
    specs: &'a [PolicySpec],
    opts: &CurveOptions,
    err: &dyn Fn(&str, String) -> LabError,
) -> Result<(Jobs<'a>, Sampling), LabError> {
    // (policy, method) pairs in order.
    let mut jobs = Vec::new();
    for spec in specs {
        let is_lru = spec.name == "lru";
        if opts.methods.is_empty() {
            jobs.push((
                spec,
                if is_lru {
                    Method::Exact
                } else {
                    Method::Minisim
                },
            ));
        }
        for &m in &opts.methods {
            if m != Method::Minisim && !is_lru {
                return Err(err(
                    "method",
                    format!(
                        "{}: only LRU has stack distances; use minisim for {}",
                        m.name(),
                        spec.label()
                    ),
                ));
            }
            jobs.push((spec, m));
        }
    }
    if let Some(m) = opts
        .methods
        .iter()
        .enumerate()
        .find_map(|(i, m)| opts.methods[..i].contains(m).then_some(m))
    {
        return Err(err("method", format!("{} is given twice", m.name())));
    }
    let sampled = jobs.iter().any(|j| j.1 != Method::Exact);
    let rate = opts.rate.unwrap_or(0.01);
    if !(rate > 0.0 && rate <= 1.0) {
        return Err(err("rate", format!("{rate} is not in (0, 1]")));
    }
    if !sampled {
        for (key, given) in [
            ("rate", opts.rate.is_some()),
            ("max_keys", opts.max_keys.is_some()),
            ("sample_unit", opts.sample_unit.is_some()),
        ] {
            if given {
                return Err(err(
                    key,
                    "applies to methods shards and minisim only".into(),
                ));
            }
        }
    }
    if opts.exact_head.is_some() && !jobs.iter().any(|j| j.1 == Method::Shards) {
        return Err(err("exact_head", "applies to method shards only".into()));
    }
    if opts.max_keys == Some(0) {
        return Err(err(
            "max_keys",
            "the sample must keep at least one key".into(),
        ));
    }
    if opts.points == 0 {
        return Err(err("points", "at least one size".into()));
    }
    let sampling = Sampling {
        rate,
        max_keys: opts.max_keys,
        unit: opts.sample_unit.unwrap_or(SampleUnit::Page),
        seed: opts.seed,
        exact_head: opts
            .exact_head
            .unwrap_or_else(|| Sampling::default_head(rate)),
    };
    Ok((jobs, sampling))
}

/// Column names of the rows as a table (the CSV, the Parquet file, Python's rows):
/// metric names as in `wafer sim`.
pub const COLUMNS: [&str; 36] = [
    "trace",
    "policy",
    "method",
    "rate",
    "sample_unit",
    "seed",
    "capacity_pages",
    "page_size",
    "pages_per_block",
    "warmup",
    "write_miss_fetch",
    "flush_at_end",
    "footprint_pages",
    "accesses",
    "hits",
    "misses",
    "hit_ratio",
    "miss_ratio",
    "reads",
    "read_hits",
    "read_misses",
    "writes",
    "write_hits",
    "write_misses",
    "page_reads",
    "page_writes",
    "write_ios",
    "evictions",
    "dirty_at_end",
    "writes_at_end",
    "write_ios_at_end",
    "trims",
    "trimmed_resident",
    "pad_reads",
    "pad_writes",
    "io_time_ns",
];

impl CurveRow {
    /// The row's [`COLUMNS`], in order. Absent values (no sampling unit or seed for
    /// an exact curve) are null.
    pub fn columns(&self) -> Vec<(String, Value)> {
        let m = &self.metrics;
        let miss_ratio = if m.accesses == 0 {
            0.0
        } else {
            m.misses as f64 / m.accesses as f64
        };
        let values: [Value; 36] = [
            self.trace.clone().into(),
            self.policy.clone().into(),
            self.method.name().into(),
            self.rate.into(),
            self.sample_unit.map_or(Value::Null, |u| {
                format!("{u:?}").to_ascii_lowercase().into()
            }),
            self.seed.map_or(Value::Null, Value::from),
            self.cache_pages.into(),
            self.page_size.into(),
            self.pages_per_block.into(),
            self.warmup.into(),
            self.write_miss_fetch.into(),
            self.flush_at_end.into(),
            m.universe.into(),
            m.accesses.into(),
            m.hits.into(),
            m.misses.into(),
            m.hit_ratio.into(),
            miss_ratio.into(),
            m.reads.into(),
            m.read_hits.into(),
            m.read_misses.into(),
            m.writes.into(),
            m.write_hits.into(),
            m.write_misses.into(),
            m.page_reads.into(),
            m.page_writes.into(),
            m.write_ios.into(),
            m.evictions.into(),
            m.dirty_at_end.into(),
            m.writes_at_end.into(),
            m.write_ios_at_end.into(),
            m.trims.into(),
            m.trimmed_resident.into(),
            m.pad_reads.into(),
            m.pad_writes.into(),
            m.io_time_ns.into(),
        ];
        COLUMNS
            .iter()
            .zip(values)
            .map(|(k, v)| (k.to_string(), v))
            .collect()
    }
}

/// The rows as CSV text ([`COLUMNS`]).
pub fn csv(rows: &[CurveRow]) -> String {
    let text = |v: &Value| match v {
        Value::Null => String::new(),
        Value::String(t) if t.contains([',', '"', '\n']) => {
            format!("\"{}\"", t.replace('"', "\"\""))
        }
        Value::String(t) => t.clone(),
        // Floats as Rust prints them (shortest exact form), integers as they are.
        Value::Number(n) => match n.as_u64() {
            Some(u) => u.to_string(),
            None => n.as_f64().unwrap_or(f64::NAN).to_string(),
        },
        other => other.to_string(),
    };
    let mut s = COLUMNS.join(",");
    s.push('\n');
    for r in rows {
        let fields: Vec<String> = r.columns().iter().map(|(_, v)| text(v)).collect();
        s.push_str(&fields.join(","));
        s.push('\n');
    }
    s
}

/// The rows as a Parquet file, the CSV's columns with their types (a column that is
/// null in every row, the seed of an exact curve, keeps its type).
pub fn parquet(rows: &[CurveRow]) -> Result<Vec<u8>, LabError> {
    let rows: Vec<Vec<(String, Value)>> = rows.iter().map(CurveRow::columns).collect();
    let mut template = rows.first().cloned().unwrap_or_default();
    for (k, v) in &mut template {
        if v.is_null() {
            *v = if k == "seed" { 0u64.into() } else { "".into() };
        }
    }
    crate::parquet_file::encode(&rows, &template)
}
