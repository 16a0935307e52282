//! `wafer sim`: replay a trace through one or more policies at one or more cache sizes
//! and print the metrics (a table, or JSON with `--json`).
//!
//! The trace is read and densified once ([`PreparedTrace`]); every (policy, size) cell
//! then runs over it, `--jobs` cells at a time. With `--stream` the trace is instead
//! read once per cell and never held in memory (memory grows with the distinct pages,
//! not the accesses): the way to run a trace too large to prepare. Cache sizes are
//! bytes (`16MiB`), pages (`4096p`) or a fraction of the trace's footprint (`5%`; with
//! `--stream` this costs one counting pass, [`Footprint`]). With `--after`, each
//! cell's after-cache trace is written to a file whose name is a template when there
//! are several cells (`{policy}` and `{cache}` are replaced; no other `{...}`). Each
//! file replaces its target only once complete; a file that is the trace itself is
//! refused. Results do not depend on `--jobs` or `--stream`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::Context;
use indicatif::ProgressBar;
use serde::Serialize;
use wafer_cache::after::{FileSink, NullSink};
use wafer_cache::{
    run_policy, CostModel, Footprint, Input, Metrics, PolicySpec, PreparedTrace, SimConfig,
    SimError,
};
use wafer_trace::units::{parse_page_size, parse_size, CacheSize};
use wafer_trace::{Format, Granularity, ReadOptions};

use super::trace::info::format_arg;
use super::{about_file, list, no_duplicates, policy_list, refuse_input_as_output, unknown, usage};
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
  wafer sim -t huge.wtr --stream -p lru ts-clock -c 1GiB 4GiB --jobs 2
Policies and their parameters: wafer policies")]
pub struct Args {
    /// Trace file (format detected unless --format is given).
    #[arg(short = 't', long)]
    pub trace: PathBuf,
    /// Trace format (see `wafer trace info --help` for the list).
    #[arg(long)]
    pub format: Option<String>,
    /// Policies, each `name` or `name:key=value,...`; repeatable or comma-separated
    /// (`-p lru,arc,cflru:window=0.25`).
    #[arg(short = 'p', long = "policy", required = true, num_args = 1..)]
    pub policies: Vec<String>,
    /// Cache sizes: bytes (16MiB), pages (4096p) or a share of the footprint (5%);
    /// repeatable or comma-separated (`-c 4MiB,16MiB`).
    #[arg(short = 'c', long = "cache", visible_alias = "cache-size", required = true, num_args = 1..)]
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
    /// Read the trace once per cell instead of holding it in memory (for traces too
    /// large to prepare; OPT still needs the whole trace). A share of the footprint
    /// (`5%`) costs one more counting pass.
    #[arg(long)]
    pub stream: bool,
    /// Cells run at once (default: one per core).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
}

/// One cell of the result.
#[derive(Serialize, Debug)]
struct Row {
    trace: String,
    /// The format the trace was read as (detected or `--format`).
    format: Option<Format>,
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

/// A policy spec; an unknown name gets a "did you mean".
pub fn parse_policy(text: &str) -> anyhow::Result<PolicySpec> {
    PolicySpec::parse(text).map_err(|e| match &e {
        SimError::UnknownPolicy { name, .. } => {
            let known = wafer_cache::POLICIES
                .iter()
                .flat_map(|p| std::iter::once(p.name).chain(p.aliases.iter().copied()));
            unknown(&e, name, known)
        }
        _ => usage(e),
    })
}

/// Run `wafer sim`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let specs = policy_list(&args.policies)
        .iter()
        .map(|p| parse_policy(p).map(|s| (p.clone(), s)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let labelled: Vec<(String, String)> =
        specs.iter().map(|(t, s)| (t.clone(), s.label())).collect();
    no_duplicates("policy", &labelled)?;
    let specs: Vec<PolicySpec> = specs.into_iter().map(|(_, s)| s).collect();
    let sizes = list(&args.caches)
        .into_iter()
        .map(|c| {
            CacheSize::parse(&c)
                .map(|s| (c, s))
                .map_err(|e| usage(e.to_string()))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    no_duplicates("cache size", &sizes)?;
    let granularity = match args.granularity {
        GranularityArg::Page => Granularity::Page {
            page_size: parse_page_size(&args.page_size).map_err(usage)?,
        },
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
    if let Some(a) = &args.after {
        check_template(a, specs.len(), sizes.len())?;
    }
    let format = format_arg(args.format.as_deref())?;

    let opts = ReadOptions {
        format,
        ..ReadOptions::default()
    };
    // Errors of the trace reader name the file (and line) themselves.
    let open = || wafer_trace::open(&args.trace, &opts);
    let reading = |e: anyhow::Error| about_file(e, "reading", &args.trace);
    let needs_footprint = sizes.iter().any(|(_, s)| s.needs_footprint());
    // Opened first in every mode: the format it was read as goes into the output.
    let mut reader = open()?;
    let format = reader.meta().format;
    let (prepared, footprint) = if args.stream {
        let footprint = if needs_footprint {
            let pb = progress::bar(reader.meta().requests.unwrap_or(0), "counting pages");
            let f = Footprint::count(granularity, reader.as_mut(), &mut |n| pb.set_position(n))
                .map_err(|e| reading(e.into()))?;
            pb.finish_and_clear();
            Some(f)
        } else {
            None
        };
        (None, footprint)
    } else {
        let pb = progress::bar(reader.meta().requests.unwrap_or(0), "reading trace");
        let trace = PreparedTrace::read(granularity, reader.as_mut(), &mut |n| pb.set_position(n))
            .map_err(|e| match e {
                SimError::TooLarge(_) => anyhow::anyhow!("{e} (wafer sim --stream)"),
                e => e.into(),
            })
            .map_err(reading)?;
        pb.finish_and_clear();
        let f = Footprint {
            pages: trace.universe(),
            accesses: trace.accesses(),
        };
        (Some(trace), Some(f))
    };
    drop(reader);

    let mut cells = Vec::with_capacity(specs.len() * sizes.len());
    for spec in &specs {
        for (text, size) in &sizes {
            let universe = footprint.map_or(0, |f| u64::from(f.pages));
            let capacity_pages = size
                .pages(unit, universe)
                .map_err(|e| usage(e.to_string()))?;
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
            let after = args.after.as_ref().map(|t| expand(t, spec, text));
            if let Some(p) = &after {
                refuse_input_as_output(p, &[&args.trace])?;
            }
            cells.push(Cell {
                spec,
                cache: text,
                cfg,
                after,
            });
        }
    }

    let total = footprint.map_or(0, |f| f.accesses * cells.len() as u64);
    let pb = if total > 0 {
        progress::bar(total, "simulating")
    } else {
        progress::counter("simulating")
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, cells.len().max(1));
    let run_one = |cell: &Cell| -> anyhow::Result<Metrics> {
        let mut last = 0u64;
        let mut tick = |n: u64| {
            pb.inc(n.saturating_sub(last));
            last = n;
        };
        let mut reader;
        let input = match &prepared {
            Some(t) => Input::Prepared(t),
            None => {
                reader = open()?;
                Input::Stream(reader.as_mut())
            }
        };
        Ok(match &cell.after {
            Some(p) => {
                let mut sink = FileSink::create(p, cell.cfg.unit()).map_err(|e| match e {
                    wafer_trace::Error::Invalid(m) => usage(m),
                    e => e.into(),
                })?;
                run_policy(cell.spec, input, &cell.cfg, &mut sink, &mut tick)?
            }
            None => run_policy(cell.spec, input, &cell.cfg, &mut NullSink, &mut tick)?,
        })
    };
    let results = run_cells(&cells, jobs, &pb, run_one);
    pb.finish_and_clear();

    let mut rows = Vec::with_capacity(cells.len());
    for (cell, result) in cells.iter().zip(results) {
        let metrics = result.with_context(|| format!("{} @ {}", cell.spec, cell.cache))?;
        rows.push(Row {
            trace: args.trace.display().to_string(),
            format,
            policy: cell.spec.label(),
            cache: cell.cache.clone(),
            capacity_pages: cell.cfg.capacity_pages,
            page_size: unit as u32,
            pages_per_block: ppb,
            granularity,
            warmup: args.warmup,
            write_miss_fetch: args.write_miss_fetch,
            flush_at_end: args.flush_at_end,
            after: cell.after.as_ref().map(|p| p.display().to_string()),
            metrics,
        });
    }

    use std::io::Write;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
    } else {
        // A streamed run without a counting pass learns the trace's size from a cell.
        let m = &rows[0].metrics;
        let (pages, accesses) = footprint
            .map_or((m.universe, m.warmup_accesses + m.accesses), |f| {
                (u64::from(f.pages), f.accesses)
            });
        writeln!(
            out,
            "trace: {} (format {}), {accesses} accesses, {pages} distinct pages",
            args.trace.display(),
            format.map_or("?", Format::name)
        )?;
        print_table(&mut out, &rows)?;
    }
    Ok(())
}

/// One (policy, cache size) cell.
struct Cell<'a> {
    spec: &'a PolicySpec,
    cache: &'a String,
    cfg: SimConfig,
    after: Option<PathBuf>,
}

/// Run every cell on `jobs` threads, each taking the next cell not yet started; the
/// results come back in cell order. After a failure no new cell starts (the cells not
/// started report that they were skipped; the caller returns the first error).
fn run_cells<T: Send>(
    cells: &[Cell<'_>],
    jobs: usize,
    pb: &ProgressBar,
    run: impl Fn(&Cell<'_>) -> anyhow::Result<T> + Sync,
) -> Vec<anyhow::Result<T>> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let slots: Vec<Mutex<Option<anyhow::Result<T>>>> =
        cells.iter().map(|_| Mutex::new(None)).collect();
    let label = |d: usize| format!("simulating: {d} of {} cells done", cells.len());
    pb.set_message(label(0));
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= cells.len() || failed.load(Ordering::Relaxed) {
            break;
        }
        let r = run(&cells[i]);
        if r.is_err() {
            failed.store(true, Ordering::Relaxed);
        }
        *slots[i].lock().expect("no panics while held") = Some(r);
        pb.set_message(label(done.fetch_add(1, Ordering::Relaxed) + 1));
    };
    std::thread::scope(|s| {
        // This thread is one of the workers. A helper that cannot be started (out of
        // memory or threads) is done without: results do not depend on the count.
        for _ in 1..jobs {
            if std::thread::Builder::new().spawn_scoped(s, work).is_err() {
                break;
            }
        }
        work();
    });
    slots
        .into_iter()
        .map(|m| {
            m.into_inner()
                .expect("no panics while held")
                .unwrap_or_else(|| Err(anyhow::anyhow!("skipped after an earlier cell failed")))
        })
        .collect()
}

/// With several policies (sizes), the template must vary by policy (size); braces
/// other than `{policy}` and `{cache}` are refused rather than kept literally, as
/// they are most likely a misspelt placeholder.
fn check_template(t: &Path, policies: usize, sizes: usize) -> anyhow::Result<()> {
    let s = t.to_string_lossy();
    let rest = s.replace("{policy}", "").replace("{cache}", "");
    if let Some(i) = rest.find(['{', '}']) {
        let bad = match rest[i..].find('}') {
            Some(j) if rest[i..].starts_with('{') => &rest[i..=i + j],
            _ => &rest[i..=i],
        };
        return Err(usage(format!(
            "--after {s}: unknown placeholder `{bad}` (only {{policy}} and {{cache}} exist)"
        )));
    }
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

/// A ratio to four places, or `n/a` when nothing is under it (no accesses, no write
/// I/Os): 0 would read as a measurement.
fn ratio(under: u64, value: f64) -> String {
    if under == 0 {
        "n/a".to_string()
    } else {
        format!("{value:.4}")
    }
}

fn print_table(out: &mut impl std::io::Write, rows: &[Row]) -> std::io::Result<()> {
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
                ratio(m.accesses, m.hit_ratio),
                (m.page_reads + m.pad_reads).to_string(),
                (m.page_writes + m.pad_writes).to_string(),
                m.write_ios.to_string(),
                ratio(
                    m.write_ios,
                    m.block_utilization.write_stream.mean_utilization,
                ),
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
