//! `wafer run exp.toml`: run an experiment grid (see `docs/experiments.md`), keep
//! every finished cell, and write results tables, figures and the HTML report.
//!
//! Ctrl-C stops cleanly: no new cell starts, finished cells are kept, cells still
//! running are discarded, and the tables and report are written from what is done;
//! rerunning the same command computes only the missing cells.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use indicatif::ProgressBar;
use wafer_lab::{execute, CellResult, Experiment, Observer, Plan, Preface, RunOptions};

use crate::progress;

/// Arguments of `wafer run`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  wafer run examples/experiment.toml
  wafer run exp.toml -o results/exp1 --jobs 2
A rerun of the same file computes only the cells that are missing.")]
pub struct Args {
    /// Experiment file (TOML).
    pub experiment: PathBuf,
    /// Output folder (default: wafer-out/<file stem>).
    #[arg(short = 'o', long)]
    pub out: Option<PathBuf>,
    /// Worker threads (default: the file's `workers`, else all cores).
    #[arg(short = 'j', long, default_value_t = 0)]
    pub jobs: usize,
}

/// Draws cells done, throughput and ETA on stderr.
struct Bar {
    bar: Option<ProgressBar>,
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

    fn cell_done(&mut self, r: &CellResult) {
        if let Some(b) = &self.bar {
            b.set_message(r.params.label());
            b.inc(1);
        }
    }
}

/// Run `plan` into `out` with a progress bar and a Ctrl-C handler, then print where
/// everything went.
pub fn run_plan(
    plan: &Plan,
    out: &Path,
    jobs: usize,
    preface: &dyn Fn(&[CellResult]) -> Preface,
) -> anyhow::Result<wafer_lab::Done> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    // A second handler cannot be installed in one process; the first one suffices.
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed));
    let opts = RunOptions {
        out: out.to_path_buf(),
        jobs,
        stop,
    };
    let mut obs = Bar { bar: None };
    let done = execute(plan, &opts, &mut obs, preface)?;
    if let Some(b) = &obs.bar {
        b.finish_and_clear();
    }
    let o = &done.outcome;
    println!(
        "{} cells: computed {}, reused {} ({} workers, {:.1} s)",
        o.total, o.computed, o.reused, o.jobs, o.elapsed_s
    );
    println!(
        "results: {}, {}",
        out.join("results.csv").display(),
        out.join("results.json").display()
    );
    println!(
        "figures: {} SVG files in {}",
        done.figures.len(),
        out.join("figures").display()
    );
    if let Some(r) = &done.report {
        println!("report: {}", r.display());
    }
    if o.interrupted {
        anyhow::bail!(
            "interrupted: {} of {} cells are stored; run the same command again to finish",
            o.results.len(),
            o.total
        );
    }
    Ok(done)
}

/// Run `wafer run`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let plan = Experiment::load(&args.experiment)?;
    let out = args.out.unwrap_or_else(|| {
        let stem = args
            .experiment
            .file_stem()
            .map_or("experiment".into(), |s| s.to_string_lossy().into_owned());
        Path::new("wafer-out").join(stem)
    });
    run_plan(&plan, &out, args.jobs, &|_| Preface::default()).map(|_| ())
}
