//! `wafer curve`: results of a trace at every cache size, for one or more policies
//! ([`wafer_lab::curve`] computes them). Outputs (`--csv`, `--parquet`, `--plot`)
//! replace their targets only once complete.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use indicatif::ProgressBar;
use wafer_cache::curve::{Method, SampleUnit};
use wafer_lab::curve::{self, CurveOptions, CurveRow, Watch};
use wafer_lab::experiment::TraceDef;
use wafer_lab::plot::{Chart, Kind, Series};
use wafer_lab::{EngineOptions, Experiment};

use super::sim::{flag, lab_error, parse_policy};
use super::{list, policy_list, refuse_input_as_output, refuse_shared_outputs, usage};
use crate::progress;

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
    /// Minisim runs at once (default and most: one per core).
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0)]
    pub jobs: usize,
    /// Explicit sizes instead: bytes (16MiB), pages (4096p) or a share of the
    /// footprint (5%); repeatable or comma-separated.
    #[arg(long, num_args = 1..)]
    pub sizes: Vec<String>,
    #[command(flatten)]
    pub options: EngineOptions,
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
    /// Draw the miss-ratio curves to this file (.svg, .png or .pdf, by its
    /// extension).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Draw the write-back curves to this file (.svg, .png or .pdf): storage page
    /// writes per access (write-backs, block padding, and the end flush with
    /// --flush-at-end).
    #[arg(long, value_name = "FILE.svg")]
    pub plot_writes: Option<PathBuf>,
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

/// Progress bars of the stages: a bar when the total is known, a counter otherwise.
#[derive(Default)]
struct Bars(Mutex<Option<ProgressBar>>);

impl Watch for Bars {
    fn begin(&self, label: &str, total: Option<u64>) {
        let pb = match total {
            Some(n) => progress::bar(n, label),
            None => progress::counter(label),
        };
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(pb);
    }

    fn at(&self, done: u64) {
        if let Some(pb) = self.0.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            pb.set_position(done);
        }
    }

    fn end(&self) {
        if let Some(pb) = self.0.lock().unwrap_or_else(|e| e.into_inner()).take() {
            pb.finish_and_clear();
        }
    }
}

/// Run `wafer curve`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let policies = policy_list(&args.policies);
    // Parsed here first for the "did you mean" hint; the description checks the rest.
    for p in &policies {
        parse_policy(p)?;
    }
    let mut exp = Experiment::new(
        "wafer curve",
        vec![TraceDef {
            format: args.source.format.clone(),
            mapping: args.source.mapping(),
            skip_invalid: args.source.skip_invalid,
            ..TraceDef::file(args.trace.clone())
        }],
        policies,
        list(&args.sizes),
    );
    exp.options = args.options.clone();
    args.source.read_options()?;
    let opts = CurveOptions {
        methods: list(&args.methods)
            .iter()
            .map(|m| method_of(m))
            .collect::<anyhow::Result<Vec<_>>>()?,
        rate: args.rate,
        max_keys: args.max_keys,
        sample_unit: args.sample_unit.map(|u| match u {
            UnitArg::Page => SampleUnit::Page,
            UnitArg::Block => SampleUnit::Block,
        }),
        seed: args.seed,
        exact_head: args.exact_head,
        points: args.points,
        jobs: args.jobs,
    };
    let outputs: Vec<(&str, &Path)> = [
        ("--csv", &args.csv),
        ("--parquet", &args.parquet),
        ("--plot", &args.plot),
        ("--plot-writes", &args.plot_writes),
    ]
    .into_iter()
    .filter_map(|(flag, p)| Some((flag, p.as_deref()?)))
    .collect();
    for (_, out) in &outputs {
        refuse_input_as_output(out, &[&args.trace])?;
    }
    refuse_shared_outputs(&outputs)?;
    // Before any work: a figure's form comes from its extension.
    for p in [&args.plot, &args.plot_writes].into_iter().flatten() {
        wafer_lab::figure_file::format_of(p).map_err(usage)?;
    }
    let at = |key: &str| {
        if key.starts_with("cache_sizes") {
            "--sizes".to_string()
        } else {
            flag(key)
        }
    };
    let curves = curve::compute(&exp, &opts, &at, &Bars::default()).map_err(lab_error)?;
    if curves.left_out > 0 {
        eprintln!(
            "wafer: note: minisim leaves out {} size(s) below 1 / rate pages (no cache of 0 pages stands for them)",
            curves.left_out
        );
    }
    let rows = &curves.rows;
    if let Some(p) = &args.csv {
        wafer_trace::export::write_atomic(p, curve::csv(rows).as_bytes())?;
    }
    if let Some(p) = &args.parquet {
        wafer_trace::export::write_atomic(p, &curve::parquet(rows)?)?;
    }
    for (p, what) in [
        (&args.plot, Curve::MissRatio),
        (&args.plot_writes, Curve::WriteBacks),
    ] {
        if let Some(p) = p {
            wafer_lab::figure_file::write_as(p, &chart(rows, &args.trace, what))?;
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        // The CSV's columns, one flat object a row (as `wafer sim --json`).
        let flat: Vec<serde_json::Map<String, serde_json::Value>> = rows
            .iter()
            .map(|r| r.columns().into_iter().collect())
            .collect();
        serde_json::to_writer_pretty(&mut out, &flat)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "trace: {}, {} distinct pages{}",
            args.trace.display(),
            curves.footprint,
            if curves.estimated { " (estimated)" } else { "" }
        )?;
        table(&mut out, rows)?;
    }
    Ok(())
}

/// Miss ratio against log10 of the cache size, one series per policy and method.
/// What a figure plots against the cache size.
#[derive(Clone, Copy)]
enum Curve {
    MissRatio,
    /// Storage page writes (write-backs, block padding, the end flush) per access.
    WriteBacks,
}

fn chart(rows: &[CurveRow], trace: &std::path::Path, curve: Curve) -> Chart {
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
        notes: Vec::new(),
    }
}

fn table(out: &mut impl Write, rows: &[CurveRow]) -> std::io::Result<()> {
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
