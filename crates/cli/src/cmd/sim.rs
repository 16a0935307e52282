//! `wafer sim`: replay a trace through one or more policies at one or more cache sizes
//! and print the metrics (a table, or JSON with `--json`).
//!
//! The trace is read and densified once ([`PreparedTrace`]); every (policy, size) cell
//! then runs over it. Cache sizes are bytes (`16MiB`), pages (`4096p`) or a fraction
//! of the trace's footprint (`5%`). With `--after`, each cell's after-cache trace is
//! written to a file whose name is a template when there are several cells
//! (`{policy}` and `{cache}` are replaced).

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use wafer_cache::after::{FileSink, NullSink};
use wafer_cache::{run_policy, CostModel, Input, Metrics, PolicySpec, PreparedTrace, SimConfig};
use wafer_trace::units::{parse_size, CacheSize};
use wafer_trace::{Format, Granularity, ReadOptions};

use super::UsageError;
use crate::progress;

/// How requests become cache accesses.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GranularityArg {
    /// Every page a request touches is one access (default).
    Page,
    /// One access per record, keyed by its first sector (libCacheSim's object view).
    Record,
}

/// Arguments of `wafer sim`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  wafer sim -t trace.wtr -p lru ts-clock -c 16MiB 64MiB --block 4MiB
  wafer sim -t cp.bin --granularity record -p clock:insert_ref=0 -c 1000p --json
  wafer sim -t trace.csv -p lru -p cflru:window=0.25 -c 5% --after 'after-{policy}-{cache}.csv'
Policies and their parameters: wafer policies")]
pub struct Args {
    /// Trace file (format detected unless --format is given).
    #[arg(short = 't', long)]
    pub trace: PathBuf,
    /// Trace format (see `wafer trace info --help` for the list).
    #[arg(long)]
    pub format: Option<String>,
    /// Policies, each `name` or `name:key=value,...`; repeatable.
    #[arg(short = 'p', long = "policy", required = true, num_args = 1..)]
    pub policies: Vec<String>,
    /// Cache sizes: bytes (16MiB), pages (4096p) or a share of the footprint (5%).
    #[arg(short = 'c', long = "cache", required = true, num_args = 1..)]
    pub caches: Vec<String>,
    /// Erase-block size (block = page div pages-per-block).
    #[arg(long, default_value = "4MiB")]
    pub block: String,
    /// Page size.
    #[arg(long, default_value = "4KiB")]
    pub page_size: String,
    /// Page accesses, or one access per record.
    #[arg(long, value_enum, default_value_t = GranularityArg::Page)]
    pub granularity: GranularityArg,
    /// Accesses of a warm-up prefix that are not counted.
    #[arg(long, default_value_t = 0)]
    pub warmup: u64,
    /// Read the page from storage on a write miss too.
    #[arg(long)]
    pub write_miss_fetch: bool,
    /// Write the dirty pages left at the end (reported apart).
    #[arg(long)]
    pub flush_at_end: bool,
    /// Storage read time per page, ns (cost model).
    #[arg(long, default_value_t = CostModel::default().t_read_ns)]
    pub t_read_ns: u64,
    /// Storage write time per page, ns (cost model).
    #[arg(long, default_value_t = CostModel::default().t_write_ns)]
    pub t_write_ns: u64,
    /// Sample the policy's own series (e.g. CRAW's area sizes) every N accesses into
    /// the JSON output (0 = off).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub series_every: u64,
    /// Write the after-cache trace (.csv or .wtr); with several cells, a template using
    /// {policy} and {cache}.
    #[arg(long)]
    pub after: Option<PathBuf>,
    /// Print JSON (one object per cell) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// One cell of the result.
#[derive(Serialize, Debug)]
struct Row {
    trace: String,
    policy: String,
    cache: String,
    capacity_pages: u32,
    page_size: u32,
    pages_per_block: u32,
    granularity: Granularity,
    warmup: u64,
    write_miss_fetch: bool,
    flush_at_end: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    after: Option<String>,
    metrics: Metrics,
}

fn usage(msg: impl Into<String>) -> anyhow::Error {
    UsageError(msg.into()).into()
}

/// Run `wafer sim`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let specs = args
        .policies
        .iter()
        .map(|p| PolicySpec::parse(p).map_err(|e| usage(e.to_string())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let sizes = args
        .caches
        .iter()
        .map(|c| {
            CacheSize::parse(c)
                .map(|s| (c.clone(), s))
                .map_err(|e| usage(e.to_string()))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let granularity = match args.granularity {
        GranularityArg::Page => {
            let ps = parse_size(&args.page_size).map_err(|e| usage(e.to_string()))?;
            let page_size = u32::try_from(ps)
                .ok()
                .filter(|&p| p > 0)
                .ok_or_else(|| usage(format!("page size `{}` out of range", args.page_size)))?;
            Granularity::Page { page_size }
        }
        GranularityArg::Record => Granularity::Record,
    };
    let unit = granularity.unit();
    let block = parse_size(&args.block).map_err(|e| usage(e.to_string()))?;
    if block < unit || block % unit != 0 {
        return Err(usage(format!(
            "block size {} must be a multiple of the {unit} B page",
            args.block
        )));
    }
    let ppb = u32::try_from(block / unit).map_err(|_| usage("block size too large"))?;
    let cells = specs.len() * sizes.len();
    if let Some(a) = &args.after {
        check_template(a, specs.len(), sizes.len())?;
    }
    let format = args
        .format
        .as_deref()
        .map(Format::from_name)
        .transpose()
        .map_err(|e| usage(e.to_string()))?;

    let opts = ReadOptions {
        format,
        ..ReadOptions::default()
    };
    let mut reader = wafer_trace::open(&args.trace, &opts)?;
    let total_requests = reader.meta().requests.unwrap_or(0);
    let pb = progress::bar(total_requests, "reading trace");
    let trace = PreparedTrace::read(granularity, reader.as_mut(), &mut |n| pb.set_position(n))
        .with_context(|| format!("reading {}", args.trace.display()))?;
    pb.finish_and_clear();

    let pb = progress::bar(trace.accesses() * cells as u64, "simulating");
    let mut rows = Vec::with_capacity(cells);
    for spec in &specs {
        for (text, size) in &sizes {
            let capacity = size.pages(unit, u64::from(trace.universe()));
            let capacity_pages = u32::try_from(capacity)
                .map_err(|_| usage(format!("cache size {text} is too many pages")))?;
            let cfg = SimConfig {
                granularity,
                capacity_pages,
                pages_per_block: ppb,
                warmup: args.warmup,
                write_miss_fetch: args.write_miss_fetch,
                flush_at_end: args.flush_at_end,
                cost: CostModel {
                    t_read_ns: args.t_read_ns,
                    t_write_ns: args.t_write_ns,
                },
                series_every: args.series_every,
            };
            pb.set_message(format!("{spec} @ {text}"));
            let base = pb.position();
            let mut tick = |n: u64| pb.set_position(base + n);
            let after_path = args.after.as_ref().map(|t| expand(t, spec, text));
            let metrics = match &after_path {
                Some(p) => {
                    let mut sink = FileSink::create(p, cfg.unit()).map_err(|e| match e {
                        wafer_trace::Error::Invalid(m) => usage(m),
                        e => e.into(),
                    })?;
                    run_policy(spec, Input::Prepared(&trace), &cfg, &mut sink, &mut tick)?
                }
                None => run_policy(
                    spec,
                    Input::Prepared(&trace),
                    &cfg,
                    &mut NullSink,
                    &mut tick,
                )?,
            };
            rows.push(Row {
                trace: args.trace.display().to_string(),
                policy: spec.label(),
                cache: text.clone(),
                capacity_pages,
                page_size: unit as u32,
                pages_per_block: ppb,
                granularity,
                warmup: args.warmup,
                write_miss_fetch: args.write_miss_fetch,
                flush_at_end: args.flush_at_end,
                after: after_path.map(|p| p.display().to_string()),
                metrics,
            });
        }
    }
    pb.finish_and_clear();

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &rows)?;
        use std::io::Write;
        writeln!(out)?;
    } else {
        print_table(&mut out, &rows, trace.universe(), trace.accesses())?;
    }
    Ok(())
}

/// With several policies (sizes), the template must vary by policy (size).
fn check_template(t: &Path, policies: usize, sizes: usize) -> anyhow::Result<()> {
    let s = t.to_string_lossy();
    if policies > 1 && !s.contains("{policy}") {
        return Err(usage(format!(
            "--after {s}: with several policies the file name needs {{policy}}"
        )));
    }
    if sizes > 1 && !s.contains("{cache}") {
        return Err(usage(format!(
            "--after {s}: with several cache sizes the file name needs {{cache}}"
        )));
    }
    Ok(())
}

/// Fill `{policy}` and `{cache}` with file-name-safe text.
fn expand(t: &Path, spec: &PolicySpec, cache: &str) -> PathBuf {
    let safe = |s: &str| s.replace([':', ',', '/'], "_").replace('%', "pct");
    PathBuf::from(
        t.to_string_lossy()
            .replace("{policy}", &safe(&spec.label()))
            .replace("{cache}", &safe(cache)),
    )
}

fn print_table(
    out: &mut impl std::io::Write,
    rows: &[Row],
    universe: u32,
    accesses: u64,
) -> std::io::Result<()> {
    writeln!(out, "{accesses} accesses, {universe} distinct pages")?;
    let header = [
        "policy",
        "cache",
        "pages",
        "hit ratio",
        "reads",
        "writes",
        "write IOs",
        "burst util",
    ];
    let cells: Vec<[String; 8]> = rows
        .iter()
        .map(|r| {
            let m = &r.metrics;
            [
                r.policy.clone(),
                r.cache.clone(),
                r.capacity_pages.to_string(),
                format!("{:.4}", m.hit_ratio),
                (m.page_reads + m.pad_reads).to_string(),
                (m.page_writes + m.pad_writes).to_string(),
                m.write_ios.to_string(),
                format!("{:.4}", m.block_utilization.write_stream.mean_utilization),
            ]
        })
        .collect();
    let mut w = header.map(str::len);
    for c in &cells {
        for (i, s) in c.iter().enumerate() {
            w[i] = w[i].max(s.len());
        }
    }
    let line = |out: &mut dyn std::io::Write, c: &[&str]| -> std::io::Result<()> {
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
