//! `wafer sim`: replay a trace through one or more policies at one or more cache sizes
//! and print the result rows (a table, JSON with `--json`, CSV with `--csv`).
//!
//! The arguments fill an [`Experiment`] (the description an experiment file and the
//! Python API fill too), validated by [`Experiment::plan_as`] and run by the one
//! runner ([`wafer_lab::study::run`]) with no store: the trace is read and densified
//! once (or loaded from `TRACE.wprep`, kept by `wafer trace prepare`); every (policy,
//! size) run then goes over it, `--jobs` at a time. With
//! `--stream` the trace is instead read once per run and never held in memory (memory
//! grows with the distinct pages, not the accesses): the way to run a trace too large
//! to prepare. Cache sizes are bytes (`16MiB`), pages (`4096p`) or a share of the
//! trace's footprint (`5%`; with `--stream` this costs one counting pass). With
//! `--after`, each run's after-cache trace is written to a file whose name is a
//! template when there are several runs (`{policy}` and `{cache}` are replaced; no
//! other `{...}`). Each file replaces its target only once complete; a file that is
//! the trace itself is refused. Results do not depend on `--jobs` or `--stream`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use indicatif::ProgressBar;
use wafer_cache::after::FileSink;
use wafer_cache::PolicySpec;
use wafer_lab::experiment::{Outputs, TraceDef};
use wafer_lab::{CellResult, EngineOptions, Experiment, GridStudy, LabError, Observer, RunOptions};

use super::{list, policy_list, refuse_input_as_output, usage};
use crate::progress;

/// Arguments of `wafer sim`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  wafer sim -t trace.wtr -p lru ts-clock -c 16MiB 64MiB --block-size 4MiB
  wafer sim -t cp.bin --granularity record -p clock:insert_ref=0 -c 1000p --json
  wafer sim -t trace.csv -p lru -p cflru:window=0.25 -c 5% --after 'after-{policy}-{cache}.csv'
  wafer sim -t huge.wtr --stream -p lru ts-clock -c 1GiB 4GiB --jobs 2
  wafer sim -t telegram.csv.gz -p lru -c 16MiB -d microsd-16g --map compact
  wafer sim -t io.csv --skip-lines 1 --op-col 1 --offset-col 2 --len-col 3 --units sectors -p lru -c 5%
Policies and their parameters: wafer policies")]
pub struct Args {
    /// Trace file (format detected unless --format is given).
    #[arg(short = 't', long)]
    pub trace: PathBuf,
    #[command(flatten)]
    pub source: crate::cmd::mapping::TraceArgs,
    /// Policies, each `name` or `name:key=value,...`; repeatable or comma-separated
    /// (`-p lru,arc,cflru:window=0.25`).
    #[arg(short = 'p', long = "policy", required = true, num_args = 1..)]
    pub policies: Vec<String>,
    /// Cache sizes: bytes (16MiB), pages (4096p) or a share of the footprint (5%);
    /// repeatable or comma-separated (`-c 4MiB,16MiB`).
    #[arg(short = 'c', long = "cache", visible_alias = "cache-size", required = true, num_args = 1..)]
    pub caches: Vec<String>,
    /// Devices behind the cache (profiles such as microsd-16g, or device .toml
    /// files; see `wafer ftl --help`): the after-cache operations are replayed on each
    /// one's FTL; repeatable or comma-separated.
    #[arg(short = 'd', long = "device", num_args = 1..)]
    pub devices: Vec<String>,
    /// How the after-cache operations' addresses are placed on each device: compact
    /// (the trace's erase blocks in first-touch order, offsets in a block kept), wrap
    /// (pages modulo the capacity: folds distinct pages together) or refuse (pages
    /// beyond the capacity are an error).
    #[arg(long = "map", visible_alias = "address-map", default_value = "compact")]
    pub address_map: String,
    #[command(flatten)]
    pub options: EngineOptions,
    /// Write the after-cache trace (.csv or .wtr); with several cells, a template using
    /// {policy} and {cache}.
    #[arg(long)]
    pub after: Option<PathBuf>,
    /// Print JSON (one flat row per run, the columns of an experiment's
    /// results.json) instead of a table.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,
    /// Print CSV (the columns of an experiment's results.csv) instead of a table.
    #[arg(long)]
    pub csv: bool,
    /// Read the trace once per cell instead of holding it in memory (for traces too
    /// large to prepare; OPT still needs the whole trace). A share of the footprint
    /// (`5%`) costs one more counting pass.
    #[arg(long)]
    pub stream: bool,
    /// Cells run at once (default and most: one per core).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// The most runs (policies x sizes x devices) to accept (default 100000): a
    /// larger grid is refused before the trace is read.
    #[arg(long, value_name = "N")]
    pub max_cells: Option<u64>,
}

/// A policy spec (an unknown name or parameter is refused with a "did you mean").
pub fn parse_policy(text: &str) -> anyhow::Result<PolicySpec> {
    PolicySpec::parse(text).map_err(usage)
}

/// The flag a key of the run description comes from, for error messages: an
/// engine option's own flag ([`wafer_lab::options::flag`]); the grid's lists are
/// given one entry per flag here (`policies[1]` is the second `--policy`).
pub(crate) fn flag(key: &str) -> String {
    let head = key.split(['[', '.']).next().unwrap_or(key);
    match head {
        "policies" => "--policy".into(),
        "cache_sizes" => "--cache".into(),
        "devices" => "--device".into(),
        "traces" if key.ends_with(".format") => "--format".into(),
        "traces" => "--trace".into(),
        _ => wafer_lab::options::flag(head),
    }
}

/// Lab errors as CLI errors: a refused description is a usage error (exit 2).
pub(crate) fn lab_error(e: LabError) -> anyhow::Error {
    match e {
        LabError::Config { .. } => usage(e),
        e => e.into(),
    }
}

/// The run description `wafer sim`'s arguments give.
pub fn experiment(args: &Args) -> anyhow::Result<Experiment> {
    let policies = policy_list(&args.policies);
    // Parsed here first for the "did you mean" hint; the plan checks the rest.
    for p in &policies {
        parse_policy(p)?;
    }
    let caches = list(&args.caches);
    args.source.read_options()?;
    let mut exp = Experiment::new(
        "wafer sim",
        vec![TraceDef {
            format: args.source.format.clone(),
            mapping: args.source.mapping(),
            skip_invalid: args.source.skip_invalid,
            cache_sizes: None,
            ..TraceDef::file(args.trace.clone())
        }],
        policies,
        caches,
    );
    exp.options = args.options.clone();
    exp.devices = list(&args.devices);
    exp.address_map = args.address_map.clone();
    exp.stream = args.stream;
    exp.max_cells = args.max_cells;
    exp.outputs = Outputs {
        figures: Vec::new(),
        keep_after: false,
        report: false,
        ..Outputs::default()
    };
    Ok(exp)
}

/// Progress of the runs: accesses simulated, runs done.
struct Progress {
    bar: ProgressBar,
    todo: usize,
    done: usize,
}

impl Observer for Progress {
    fn start(&mut self, _: usize, todo: usize) {
        self.todo = todo;
        self.bar.set_message(format!(
            "simulating (0 of {todo} runs done; accesses of all runs)"
        ));
    }

    fn message(&mut self, msg: &str) {
        self.bar.set_message(msg.to_string());
    }

    fn work(&mut self, done: u64) {
        self.bar.set_position(done);
    }

    fn cell_done(&mut self, _: &str) {
        self.done += 1;
        self.bar.set_message(format!(
            "simulating ({} of {} runs done; accesses of all runs)",
            self.done, self.todo
        ));
    }
}

/// Run `wafer sim`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if let Some(a) = &args.after {
        check_template(
            a,
            policy_list(&args.policies).len(),
            list(&args.caches).len(),
        )?;
        if FileSink::EXTENSIONS
            .iter()
            .all(|e| !a.to_string_lossy().to_ascii_lowercase().ends_with(e))
        {
            return Err(usage(format!(
                "{}: after-cache trace must end in {}",
                a.display(),
                FileSink::EXTENSIONS.join(" or ")
            )));
        }
    }
    let exp = experiment(&args)?;
    // A trace that cannot be opened is a runtime error (exit 1), named once.
    std::fs::File::open(&args.trace)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.trace.display()))?;
    let plan = exp.plan_as(&flag, Path::new("")).map_err(lab_error)?;
    let mut study = GridStudy::new(plan, None);
    if let Some(t) = args.after.clone() {
        for c in study.plan().cells() {
            refuse_input_as_output(&expand(&t, &c.policy, &c.cache), &[&args.trace])?;
        }
        study = study.with_after(Box::new(move |c| Some(expand(&t, &c.policy, &c.cache))));
    }
    let cells = study.plan().cells().len();
    let opts = RunOptions {
        out: None,
        jobs: args.jobs.unwrap_or(0).min(cells.max(1)),
        stop: crate::interrupt::graceful(),
        ..wafer_lab::RunOptions::default()
    };
    let mut obs = Progress {
        bar: progress::counter("reading trace"),
        todo: 0,
        done: 0,
    };
    let study = Arc::new(study);
    let run = wafer_lab::study::run(&study, &opts, &mut obs).map_err(lab_error)?;
    obs.bar.finish_and_clear();
    if run.interrupted {
        anyhow::bail!(
            "interrupted: {} of {} runs finished",
            run.results.len(),
            run.total
        );
    }
    let rows = &run.results;

    use std::io::Write;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        let json: Vec<serde_json::Value> = rows.iter().map(json_row).collect();
        serde_json::to_writer_pretty(&mut out, &json)?;
        writeln!(out)?;
    } else if args.csv {
        let flat: Vec<_> = rows.iter().map(|r| r.row(true)).collect();
        write!(out, "{}", wafer_lab::store::csv(&flat))?;
    } else {
        let r = &rows[0];
        writeln!(
            out,
            "trace: {} (format {}), {} accesses, {} distinct pages",
            args.trace.display(),
            // The name only: a custom text trace's mapping is in the JSON.
            r.params
                .format
                .as_deref()
                .map_or("?", |f| f.split_once(' ').map_or(f, |(name, _)| name)),
            r.cache.warmup_accesses + r.cache.accesses,
            r.footprint_pages
        )?;
        print_table(&mut out, rows)?;
    }
    Ok(())
}

/// One run as JSON: its flat row, and the policy's series when sampled.
fn json_row(r: &CellResult) -> serde_json::Value {
    let mut m: serde_json::Map<String, serde_json::Value> = r.row(true).into_iter().collect();
    if let Some(s) = &r.cache.series {
        m.insert("series".into(), serde_json::to_value(s).unwrap_or_default());
    }
    serde_json::Value::Object(m)
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
fn expand(t: &Path, policy: &str, cache: &str) -> PathBuf {
    let safe = |s: &str| s.replace([':', ',', '/'], "_").replace('%', "pct");
    PathBuf::from(
        t.to_string_lossy()
            .replace("{policy}", &safe(policy))
            .replace("{cache}", &safe(cache)),
    )
}

/// A ratio to four places, or `n/a` when nothing is under it (no accesses, no write
/// bursts): 0 would read as a measurement.
fn ratio(under: u64, value: f64) -> String {
    if under == 0 {
        "n/a".to_string()
    } else {
        format!("{value:.4}")
    }
}

fn print_table(out: &mut impl std::io::Write, rows: &[CellResult]) -> std::io::Result<()> {
    let device = rows.iter().any(|r| r.ftl.is_some());
    let mut header = vec![
        "policy",
        "cache",
        "pages",
        "hit ratio",
        "page reads",
        "page writes",
        "write IOs",
        "burst util",
    ];
    if device {
        header.extend(["device", "erases", "WAF", "map", "moved"]);
    }
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let m = &r.cache;
            let mut c = vec![
                r.params.policy.clone(),
                r.params.cache.clone(),
                r.capacity_pages.to_string(),
                ratio(m.accesses, m.hit_ratio),
                (m.page_reads + m.pad_reads).to_string(),
                (m.page_writes + m.pad_writes).to_string(),
                m.write_ios.to_string(),
                ratio(
                    m.block_utilization.write_stream.bursts,
                    m.block_utilization.write_stream.mean_utilization,
                ),
            ];
            if let Some(f) = &r.ftl {
                c.push(r.params.device.clone());
                c.push(f.erases.to_string());
                c.push(ratio(f.host_write_pages, f.waf));
                c.push(r.params.address_map.map_or("-", |m| m.name()).into());
                c.push(f.remapped_ops.to_string());
            } else if device {
                c.extend(["none", "-", "-", "-", "-"].map(String::from));
            }
            c
        })
        .collect();
    let mut w: Vec<usize> = header.iter().map(|h| h.len()).collect();
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
            if i < 2 || i == 8 || i == 11 {
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
