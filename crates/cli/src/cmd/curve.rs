//! `wafer curve`: results of a trace at every cache size, for one or more policies.
//!
//! LRU is exact in one pass (`--method exact`, [`wafer_cache::curve::lru`]); SHARDS
//! samples it (`--method shards`); any policy runs scaled down on a sample
//! (`--method minisim`). The trace is prepared once and shared; a SHARDS-only run
//! streams it instead (memory grows with the sample, not the trace). Rows carry the
//! metric names of `wafer sim`, plus `method`, `rate` and `cache_pages`. Outputs
//! (`--csv`, `--plot`) replace their targets only once complete.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use wafer_cache::curve::{self, lru, minisim, shards, CurvePoint, Method, SampleUnit, Sampling};
use wafer_cache::{Input, Metrics, PreparedTrace, SimConfig};
use wafer_lab::experiment::TraceDef;
use wafer_lab::plot::{Chart, Kind, Series};
use wafer_lab::{Access, Experiment};
use wafer_trace::Granularity;

use super::run_args::RunArgs;
use super::sim::{flag, lab_error, parse_policy};
use super::{about_file, list, no_duplicates, policy_list, refuse_input_as_output, usage};
use crate::progress;

/// How curves are computed.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodArg {
    /// Exact LRU stack distances (LRU only).
    Exact,
    /// LRU stack distances on a spatial sample (LRU only).
    Shards,
    /// Every size simulated on a spatial sample at the size times the rate.
    Minisim,
}

/// What a sampled key is.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitArg {
    /// Pages are sampled independently.
    Page,
    /// Erase blocks are sampled whole (block-level policies keep their blocks).
    Block,
}

/// Arguments of `wafer curve`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  wafer curve -t trace.wtr                                  exact LRU, 100 sizes, a table
  wafer curve -t trace.wtr --csv lru.csv --plot lru.svg
  wafer curve -t trace.wtr -p lru --method exact,shards --rate 0.01 --plot mrc.svg
  wafer curve -t trace.wtr -p lru,arc,ts-clock --method minisim --rate 0.05 --sample-unit block
  wafer curve -t trace.wtr -p lru,cflru,fab,ts-clock --method minisim --rate 0.1 --plot-writes wb.svg
  wafer curve -t trace.wtr --sizes 1000p,5%,64MiB --flush-at-end --json
Policies and their parameters: wafer policies")]
pub struct Args {
    /// Trace file (format detected unless --format is given).
    #[arg(short = 't', long)]
    pub trace: PathBuf,
    #[command(flatten)]
    pub source: crate::cmd::mapping::TraceArgs,
    /// Policies, each `name` or `name:key=value,...`; repeatable or comma-separated.
    #[arg(short = 'p', long = "policy", num_args = 1.., default_value = "lru")]
    pub policies: Vec<String>,
    /// Methods, repeatable or comma-separated: exact, shards, minisim (default: exact
    /// for LRU, minisim for other policies).
    #[arg(long = "method", num_args = 1..)]
    pub methods: Vec<String>,
    /// Sampling rate of shards and minisim, in (0, 1] (default 0.01).
    #[arg(long)]
    pub rate: Option<f64>,
    /// Keep at most this many sampled keys, lowering the rate as needed (fixed-size
    /// SHARDS).
    #[arg(long, value_name = "N")]
    pub max_keys: Option<u32>,
    /// What a sampled key is.
    #[arg(long, value_enum)]
    pub sample_unit: Option<UnitArg>,
    /// Seed of the sampling hash.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// SHARDS: depth in pages of the exact head, an LRU stack every access goes
    /// through that gives the sizes up to it exactly (default: 100 / rate, at most
    /// 65,536; 0 = sample only).
    #[arg(long, value_name = "PAGES")]
    pub exact_head: Option<u32>,
    /// Sizes to report, log-spaced from 1 page to the footprint (both included).
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub points: usize,
    /// Explicit sizes instead: bytes (16MiB), pages (4096p) or a share of the
    /// footprint (5%); repeatable or comma-separated.
    #[arg(long, num_args = 1..)]
    pub sizes: Vec<String>,
    #[command(flatten)]
    pub run: RunArgs,
    /// Write the rows as CSV to this file.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write the rows as Parquet to this file (the CSV's columns; pandas:
    /// `pd.read_parquet(FILE)`).
    #[arg(long, value_name = "FILE")]
    pub parquet: Option<PathBuf>,
    /// Print JSON (one object per row) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Draw the miss-ratio curves (SVG) to this file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Draw the write-back curves (SVG) to this file: storage page writes per
    /// access (write-backs, block padding, and the end flush with --flush-at-end).
    #[arg(long, value_name = "FILE.svg")]
    pub plot_writes: Option<PathBuf>,
}

/// One row: a policy, a method, a cache size.
#[derive(Serialize, Debug)]
struct Row {
    trace: String,
    policy: String,
    method: Method,
    rate: f64,
    sample_unit: Option<SampleUnit>,
    seed: Option<u64>,
    cache_pages: u32,
    page_size: u32,
    pages_per_block: u32,
    granularity: Granularity,
    warmup: u64,
    write_miss_fetch: bool,
    flush_at_end: bool,
    metrics: Metrics,
}

fn method_of(text: &str) -> anyhow::Result<Method> {
    match text.to_ascii_lowercase().as_str() {
        "exact" => Ok(Method::Exact),
        "shards" => Ok(Method::Shards),
        "minisim" => Ok(Method::Minisim),
        _ => Err(super::unknown(
            format!("unknown method `{text}` (known: exact, shards, minisim)"),
            text,
            ["exact", "shards", "minisim"],
        )),
    }
}

/// Run `wafer curve`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let policies = policy_list(&args.policies);
    // Parsed here first for the "did you mean" hint; the description checks the rest.
    for p in &policies {
        parse_policy(p)?;
    }
    let sizes_given = list(&args.sizes);
    // The run options are checked as `wafer sim`'s are; with no sizes given, the
    // curve's largest size (the footprint) stands for the sizes drawn later.
    let mut exp = Experiment::new(
        "wafer curve",
        vec![TraceDef::file(args.trace.clone())],
        policies,
        if sizes_given.is_empty() {
            vec!["100%".into()]
        } else {
            sizes_given.clone()
        },
    );
    args.run.describe(&mut exp);
    let at = |key: &str| {
        if key.starts_with("cache_sizes") {
            "--sizes".to_string()
        } else {
            flag(key)
        }
    };
    let settings = exp.settings_as(&at, Path::new("")).map_err(lab_error)?;
    let specs = settings.policies;
    let methods = list(&args.methods)
        .iter()
        .map(|m| method_of(m).map(|v| (m.clone(), v)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    no_duplicates("method", &methods)?;
    let methods: Vec<Method> = methods.into_iter().map(|(_, m)| m).collect();
    // (policy, method) pairs in order.
    let mut jobs = Vec::new();
    for spec in &specs {
        let is_lru = spec.name == "lru";
        if methods.is_empty() {
            jobs.push((
                spec,
                if is_lru {
                    Method::Exact
                } else {
                    Method::Minisim
                },
            ));
        }
        for &m in &methods {
            if m != Method::Minisim && !is_lru {
                return Err(usage(format!(
                    "--method {}: only LRU has stack distances; use --method minisim for {}",
                    m.name(),
                    spec.label()
                )));
            }
            jobs.push((spec, m));
        }
    }
    let sampled = jobs.iter().any(|j| j.1 != Method::Exact);
    let rate = args.rate.unwrap_or(0.01);
    if !(rate > 0.0 && rate <= 1.0) {
        return Err(usage(format!("--rate {rate}: not in (0, 1]")));
    }
    if !sampled && (args.rate.is_some() || args.max_keys.is_some() || args.sample_unit.is_some()) {
        return Err(usage(
            "--rate, --max-keys and --sample-unit apply to --method shards and minisim only",
        ));
    }
    if args.exact_head.is_some() && !jobs.iter().any(|j| j.1 == Method::Shards) {
        return Err(usage("--exact-head applies to --method shards only"));
    }
    if args.max_keys == Some(0) {
        return Err(usage("--max-keys: the sample must keep at least one key"));
    }
    if args.points == 0 {
        return Err(usage("--points: at least one size"));
    }
    let granularity = match exp.access {
        Access::Page => Granularity::Page {
            page_size: settings.page_size.get(),
        },
        Access::Record => Granularity::Record,
    };
    let unit = granularity.unit();
    let ppb = settings.pages_per_block.get();
    for out in [&args.csv, &args.parquet, &args.plot, &args.plot_writes]
        .into_iter()
        .flatten()
    {
        refuse_input_as_output(out, &[&args.trace])?;
    }
    let opts = args.source.read_options()?;
    let sampling = Sampling {
        rate,
        max_keys: args.max_keys,
        unit: match args.sample_unit {
            Some(UnitArg::Block) => SampleUnit::Block,
            _ => SampleUnit::Page,
        },
        seed: args.seed,
        exact_head: args
            .exact_head
            .unwrap_or_else(|| Sampling::default_head(rate)),
    };
    let cfg = SimConfig {
        granularity,
        capacity_pages: 1,
        pages_per_block: ppb,
        warmup: exp.warmup,
        write_miss_fetch: exp.write_miss_fetch,
        flush_at_end: exp.flush_at_end,
        ..SimConfig::default()
    };

    let reading = |e: anyhow::Error| about_file(e, "reading", &args.trace);
    let mut reader = wafer_trace::open(&args.trace, &opts)?;
    let total_requests = reader.meta().requests.unwrap_or(0);
    let stream_only = jobs.iter().all(|j| j.1 == Method::Shards);
    let prepared = if stream_only {
        None
    } else {
        let pb = progress::bar(total_requests, "reading trace");
        let t = PreparedTrace::read(granularity, reader.as_mut(), &mut |n| pb.set_position(n))
            .map_err(|e| reading(e.into()))?;
        pb.finish_and_clear();
        Some(t)
    };

    // Curves of LRU by stack distance, computed once per method.
    let mut lru_curves: Vec<(Method, lru::LruCurve)> = Vec::new();
    for &m in [Method::Exact, Method::Shards].iter() {
        if !jobs.iter().any(|j| j.1 == m) {
            continue;
        }
        let pb = progress::counter(match m {
            Method::Exact => "exact LRU",
            _ => "SHARDS",
        });
        let mut tick = |n: u64| pb.set_position(n);
        let c = match (m, &prepared) {
            (Method::Exact, Some(t)) => lru::exact(t, &cfg, &mut tick)?,
            (_, Some(t)) => shards::lru(Input::Prepared(t), &cfg, &sampling, &mut tick)?,
            (_, None) => shards::lru(Input::Stream(reader.as_mut()), &cfg, &sampling, &mut tick)
                .map_err(|e| reading(e.into()))?,
        };
        pb.finish_and_clear();
        lru_curves.push((m, c));
    }
    drop(reader);
    let footprint = match &prepared {
        Some(t) => u64::from(t.universe()),
        None => lru_curves.first().map_or(1, |c| c.1.footprint()),
    };
    let sizes: Vec<u32> = if sizes_given.is_empty() {
        curve::log_sizes(u32::try_from(footprint).unwrap_or(u32::MAX), args.points)
    } else {
        settings
            .sizes
            .iter()
            .map(|(_, s)| s.pages(unit, footprint).map_err(|e| usage(e.to_string())))
            .collect::<anyhow::Result<Vec<_>>>()?
    };

    let sample = match &prepared {
        Some(t) if jobs.iter().any(|j| j.1 == Method::Minisim) => {
            Some(minisim::sample(t, &cfg, &sampling)?)
        }
        _ => None,
    };
    let mut rows = Vec::new();
    let mut skipped = 0usize;
    for (spec, m) in &jobs {
        let points: Vec<CurvePoint> = match m {
            Method::Minisim => {
                let s = sample.as_ref().expect("drawn for minisim");
                let n = s.trace.accesses() * sizes.len() as u64;
                let pb = progress::bar(n, &format!("minisim {}", spec.label()));
                let pts = minisim::run(s, spec, &sizes, &cfg, &|d| pb.inc(d))?;
                pb.finish_and_clear();
                skipped = skipped.max(sizes.len() - pts.len());
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
                    .map_or(rate, |c| c.1.rate()),
                Some(sampling.unit),
                Some(args.seed),
            ),
            Method::Minisim => (
                sample.as_ref().map_or(rate, |s| s.rate),
                Some(sampling.unit),
                Some(args.seed),
            ),
        };
        for p in points {
            rows.push(Row {
                trace: args.trace.display().to_string(),
                policy: spec.label(),
                method: *m,
                rate,
                sample_unit,
                seed,
                cache_pages: p.cache_pages,
                page_size: u32::try_from(unit).unwrap_or(u32::MAX),
                pages_per_block: ppb,
                granularity,
                warmup: exp.warmup,
                write_miss_fetch: exp.write_miss_fetch,
                flush_at_end: exp.flush_at_end,
                metrics: p.metrics,
            });
        }
    }
    if skipped > 0 {
        eprintln!(
            "wafer: note: minisim leaves out {skipped} size(s) below 1 / rate pages (no cache of 0 pages stands for them)"
        );
    }

    if let Some(p) = &args.csv {
        wafer_trace::export::write_atomic(p, csv(&rows).as_bytes())?;
    }
    if let Some(p) = &args.parquet {
        wafer_trace::export::write_atomic(p, &parquet(&rows)?)?;
    }
    for (p, curve) in [
        (&args.plot, Curve::MissRatio),
        (&args.plot_writes, Curve::WriteBacks),
    ] {
        if let Some(p) = p {
            let svg = chart(&rows, &args.trace, curve).svg();
            wafer_trace::export::write_atomic(p, svg.as_bytes())?;
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "trace: {}, {} distinct pages{}",
            args.trace.display(),
            footprint,
            if prepared.is_none() {
                " (estimated)"
            } else {
                ""
            }
        )?;
        table(&mut out, &rows)?;
    }
    Ok(())
}

/// Column names of the CSV and the Parquet file (metric names as in `wafer sim`).
const NAMES: [&str; 36] = [
    "trace",
    "policy",
    "method",
    "rate",
    "sample_unit",
    "seed",
    "cache_pages",
    "page_size",
    "pages_per_block",
    "warmup",
    "write_miss_fetch",
    "flush_at_end",
    "universe",
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

/// A row's columns, in order (metric names as in `wafer sim`): what the CSV and the
/// Parquet file hold. Absent values (no sampling unit or seed for an exact curve) are
/// null.
fn columns(r: &Row) -> Vec<(String, Value)> {
    let m = &r.metrics;
    let miss_ratio = if m.accesses == 0 {
        0.0
    } else {
        m.misses as f64 / m.accesses as f64
    };
    let values: [Value; 36] = [
        r.trace.clone().into(),
        r.policy.clone().into(),
        r.method.name().into(),
        r.rate.into(),
        r.sample_unit.map_or(Value::Null, |u| {
            format!("{u:?}").to_ascii_lowercase().into()
        }),
        r.seed.map_or(Value::Null, Value::from),
        r.cache_pages.into(),
        r.page_size.into(),
        r.pages_per_block.into(),
        r.warmup.into(),
        r.write_miss_fetch.into(),
        r.flush_at_end.into(),
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
    NAMES
        .iter()
        .zip(values)
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

fn csv(rows: &[Row]) -> String {
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
    let mut s = NAMES.join(",");
    s.push('\n');
    for r in rows {
        let cols = columns(r);
        let fields: Vec<String> = cols.iter().map(|(_, v)| text(v)).collect();
        s.push_str(&fields.join(","));
        s.push('\n');
    }
    s
}

/// The rows as a Parquet file, the CSV's columns with their types (a column that is
/// null in every row, the seed of an exact curve, keeps its type).
fn parquet(rows: &[Row]) -> anyhow::Result<Vec<u8>> {
    let rows: Vec<Vec<(String, Value)>> = rows.iter().map(columns).collect();
    let mut template = rows.first().cloned().unwrap_or_default();
    for (k, v) in &mut template {
        if v.is_null() {
            *v = if k == "seed" { 0u64.into() } else { "".into() };
        }
    }
    Ok(wafer_lab::parquet_file::encode(&rows, &template)?)
}

/// Miss ratio against log10 of the cache size, one series per policy and method.
/// What a figure plots against the cache size.
#[derive(Clone, Copy)]
enum Curve {
    MissRatio,
    /// Storage page writes (write-backs, block padding, the end flush) per access.
    WriteBacks,
}

fn chart(rows: &[Row], trace: &std::path::Path, curve: Curve) -> Chart {
    let mut series: Vec<Series> = Vec::new();
    for r in rows {
        let name = format!("{} ({})", r.policy, r.method.name());
        let m = &r.metrics;
        if m.accesses == 0 {
            continue;
        }
        let y = match curve {
            Curve::MissRatio => m.misses,
            Curve::WriteBacks => m.page_writes + m.pad_writes + m.writes_at_end,
        };
        let pt = (
            f64::from(r.cache_pages).log10(),
            y as f64 / m.accesses as f64,
        );
        match series.iter_mut().find(|s| s.name == name) {
            Some(s) => s.points.push(pt),
            None => series.push(Series {
                name,
                points: vec![pt],
            }),
        }
    }
    let (what, y_label) = match curve {
        Curve::MissRatio => ("Miss ratio", "miss ratio"),
        Curve::WriteBacks => ("Write-backs", "storage page writes per access"),
    };
    Chart {
        title: format!(
            "{what} by cache size: {}",
            trace
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned())
        ),
        x_label: "cache size (log10 pages)".into(),
        y_label: y_label.into(),
        categories: None,
        kind: Kind::Line,
        series,
        y_from_zero: true,
        log_y: false,
    }
}

fn table(out: &mut impl Write, rows: &[Row]) -> std::io::Result<()> {
    let header = [
        "policy",
        "method",
        "pages",
        "hit ratio",
        "read hits",
        "write hits",
        "page reads",
        "page writes",
        "dirty at end",
    ];
    let cells: Vec<[String; 9]> = rows
        .iter()
        .map(|r| {
            let m = &r.metrics;
            [
                r.policy.clone(),
                r.method.name().to_string(),
                r.cache_pages.to_string(),
                format!("{:.4}", m.hit_ratio),
                m.read_hits.to_string(),
                m.write_hits.to_string(),
                m.page_reads.to_string(),
                m.page_writes.to_string(),
                m.dirty_at_end.to_string(),
            ]
        })
        .collect();
    let mut w = header.map(str::len);
    for c in &cells {
        for (i, s) in c.iter().enumerate() {
            w[i] = w[i].max(s.len());
        }
    }
    let line = |out: &mut dyn Write, c: &[&str]| -> std::io::Result<()> {
        let mut s = String::new();
        for (i, v) in c.iter().enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            if i < 2 {
                s.push_str(&format!("{v:<width$}", width = w[i]));
            } else {
                s.push_str(&format!("{v:>width$}", width = w[i]));
            }
        }
        writeln!(out, "{}", s.trim_end())
    };
    line(out, &header)?;
    for c in &cells {
        let refs: Vec<&str> = c.iter().map(String::as_str).collect();
        line(out, &refs)?;
    }
    Ok(())
}
