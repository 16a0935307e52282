//! `wafer run exp.toml`: run an experiment grid (see `docs/experiments.md`), keep
//! every finished cell, and write results tables, figures and the HTML report.
//!
//! Ctrl-C stops cleanly: no new cell starts, finished cells are kept, cells still
//! running are discarded, and the tables and report are written from what is done;
//! rerunning the same command computes only the missing cells.

use std::io::Write;
use std::path::{Path, PathBuf};

use indicatif::ProgressBar;
use std::sync::Arc;

use wafer_lab::grid::PrefaceFn;
use wafer_lab::presets::Preset;
use wafer_lab::store::Store;
use wafer_lab::{execute, Experiment, GridStudy, Observer, Plan, RunOptions};

use crate::progress;

/// Arguments of `wafer run`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  wafer run examples/experiment.toml
  wafer run exp.toml -o results/exp1 --jobs 2
  wafer run exp.toml --dask tcp://scheduler:8786
A rerun of the same file computes only the cells that are missing.")]
pub struct Args {
    /// Experiment file (TOML).
    pub experiment: PathBuf,
    /// Output folder (default: wafer-out/<file stem>).
    #[arg(short = 'o', long, visible_alias = "output")]
    pub out: Option<PathBuf>,
    /// Worker threads (default: the file's `workers`, else all cores; at most one per
    /// core).
    #[arg(short = 'j', long, default_value_t = 0)]
    pub jobs: usize,
    /// Run the cells as tasks on the Dask scheduler at ADDRESS (needs the Python
    /// package with Dask: `pip install '.[dask]'` in the wafer repository; see docs/python.md).
    #[arg(long, value_name = "ADDRESS")]
    pub dask: Option<String>,
}

/// Draws cells done, throughput and ETA on stderr.
#[derive(Default)]
pub struct Bar {
    bar: Option<ProgressBar>,
}

impl Bar {
    /// Clear the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

impl Observer for Bar {
    fn start(&mut self, total: usize, todo: usize) {
        eprintln!(
            "{total} cells: {} stored already, {todo} to compute",
            total - todo
        );
        self.bar = Some(progress::bar(todo as u64, "cells"));
    }

    fn message(&mut self, msg: &str) {
        match &self.bar {
            Some(b) if !b.is_hidden() => b.println(msg),
            _ => eprintln!("{msg}"),
        }
    }

    fn cell_done(&mut self, label: &str) {
        if let Some(b) = &self.bar {
            b.set_message(label.to_string());
            b.inc(1);
        }
    }
}

/// Run `plan` into `out` with a progress bar and a Ctrl-C handler, then print where
/// everything went.
pub fn run_plan(
    plan: Plan,
    out: &Path,
    jobs: usize,
    preface: Box<PrefaceFn>,
) -> anyhow::Result<wafer_lab::Done> {
    let jobs = match (jobs, plan.exp.workers) {
        (0, w) => w,
        (j, _) => j,
    };
    let opts = RunOptions {
        out: Some(out.to_path_buf()),
        jobs,
        stop: crate::interrupt::graceful(),
        keep_going: true,
        ..RunOptions::default()
    };
    let study = Arc::new(GridStudy::new(plan, Some(out)).with_preface(preface));
    let mut obs = Bar::default();
    let done = execute(&study, &opts, &mut obs)?;
    obs.finish();
    let o = &done.outcome;
    if let Some(w) = wafer_lab::report::folded(&o.results) {
        eprintln!("wafer: warning: {w}");
    }
    let mut stdout = std::io::stdout().lock();
    writeln!(
        stdout,
        "{} cells: computed {}, reused {} ({} workers, {:.1} s)",
        o.total, o.computed, o.reused, o.jobs, o.elapsed_s
    )?;
    writeln!(
        stdout,
        "results: {}, {}",
        out.join("results.csv").display(),
        out.join("results.json").display()
    )?;
    writeln!(
        stdout,
        "figures: {} SVG files in {}",
        done.figures.len(),
        out.join("figures").display()
    )?;
    if let Some(r) = &done.report {
        writeln!(stdout, "report: {}", r.display())?;
    }
    if o.interrupted {
        anyhow::bail!(
            "interrupted: {} of {} cells are stored; run the same command again to finish",
            o.results.len(),
            o.total
        );
    }
    failed(&o.failed, o.total)?;
    Ok(done)
}

/// An error summing up the cells that failed (each named on stderr as it failed),
/// if any.
pub fn failed(failed: &[wafer_lab::result::Failure], total: usize) -> anyhow::Result<()> {
    if failed.is_empty() {
        return Ok(());
    }
    anyhow::bail!(
        "{} of {total} cells failed (listed above); the other {} are stored",
        failed.len(),
        total - failed.len()
    )
}

/// Run `wafer run`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let config = super::config;
    let exp = Experiment::read(&args.experiment).map_err(config)?;
    let out = args.out.unwrap_or_else(|| {
        let stem = args
            .experiment
            .file_stem()
            .map_or("experiment".into(), |s| s.to_string_lossy().into_owned());
        Path::new("wafer-out").join(stem)
    });
    if let Some(address) = &args.dask {
        return run_dask(&args.experiment, &out, address);
    }
    // A file with claims runs as a paper study does: setup, sensitivity studies,
    // verdicts.
    if exp.is_study() {
        let base = args.experiment.parent().unwrap_or(Path::new("."));
        let study =
            Preset::of(exp, &args.experiment.display().to_string(), base).map_err(config)?;
        return super::reproduce::reproduce(study, &out, args.jobs, false);
    }
    // The output folder is taken before any trace is read: a folder in use, or an
    // output over an input, is refused at once.
    let base = args.experiment.parent().unwrap_or(Path::new("."));
    let _lock = Store::new(&out).claim(&exp.trace_files(base))?;
    let plan = exp
        .plan(&args.experiment.display().to_string(), base)
        .map_err(config)?;
    run_plan(
        plan,
        &out,
        args.jobs,
        Box::new(|_: &[_]| Default::default()),
    )
    .map(|_| ())
}

/// `--dask`: hand the run to the Python package's Dask driver (`python3 -m
/// wafer.dask_run`, or `$WAFER_PYTHON`), which stores cells in the same store, and
/// exit with its status.
fn run_dask(experiment: &Path, out: &Path, address: &str) -> anyhow::Result<()> {
    use std::process::{Command, Stdio};
    let python = std::env::var("WAFER_PYTHON").unwrap_or_else(|_| "python3".into());
    let found = Command::new(&python)
        .args(["-c", "import wafer.dask_run, dask.distributed"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        anyhow::bail!(
            "--dask needs the wafer Python package with Dask for `{python}`: `pip install '.[dask]'` in the wafer repository (or set WAFER_PYTHON)"
        );
    }
    let status = Command::new(&python)
        .args(["-m", "wafer.dask_run"])
        .arg(experiment)
        .arg("--out")
        .arg(out)
        .args(["--address", address])
        .status()
        .map_err(|e| anyhow::anyhow!("running {python}: {e}"))?;
    std::process::exit(status.code().unwrap_or(1));
}
