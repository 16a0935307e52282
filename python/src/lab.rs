//! Experiments through the one runner: the whole local run, and a share of the grid
//! run on a worker from its cells' tasks (the Dask backend hands each worker a share;
//! see `wafer.dask_run`).

use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wafer_lab::lock::OutLock;
use wafer_lab::presets::{self, Preset};
use wafer_lab::store::Store;
use wafer_lab::study::Study;
use wafer_lab::{
    publish, CellResult, CellTask, Experiment, GridStudy, Quiet, RunOptions, TaskStudy,
};

use crate::errors::{lab_err, value_err};

/// The lock of an output folder, held by a distributed driver for its whole run so
/// that no other run writes there; its workers write through it.
#[pyclass(module = "wafer._wafer")]
pub struct OutputLock(Option<OutLock>);

#[pymethods]
impl OutputLock {
    /// Release the lock (also when the object is collected).
    fn release(&mut self) {
        self.0 = None;
    }
}

/// Take the output folder `out` for the experiment (its lock, after checking that no
/// output would replace an input or a file wafer did not write), removing what
/// killed runs left there. Raises naming the holder when another run has it.
#[pyfunction]
pub fn claim_out(py: Python<'_>, experiment: PathBuf, out: PathBuf) -> PyResult<OutputLock> {
    py.allow_threads(|| {
        let exp = Experiment::read(&experiment).map_err(lab_err)?;
        let base = experiment.parent().unwrap_or(Path::new("."));
        let lock = Store::new(&out)
            .claim(&exp.trace_files(base))
            .map_err(lab_err)?;
        Ok(OutputLock(Some(lock)))
    })
}

/// `(id, label, trace index, task)` of every cell of the experiment, in grid order.
/// The task (JSON, [`CellTask`]) is all a worker needs to compute the cell: the
/// experiment is planned once, by the driver.
#[pyfunction]
pub fn plan_cells(
    py: Python<'_>,
    experiment: PathBuf,
) -> PyResult<Vec<(String, String, usize, String)>> {
    py.allow_threads(|| {
        let plan = Experiment::load(&experiment).map_err(lab_err)?;
        plan.grid()
            .into_iter()
            .map(|(c, pos)| {
                let (id, label) = (c.id(), c.label());
                let task = serde_json::to_string(&plan.task(c, pos))
                    .map_err(|e| value_err(format!("a cell task: {e}")))?;
                Ok((id, label, pos.trace, task))
            })
            .collect()
    })
}

/// The cell tasks `tasks` (JSON, as [`plan_cells`] gives them), read back.
fn read_tasks(tasks: &[String]) -> PyResult<Vec<CellTask>> {
    tasks
        .iter()
        .map(|t| serde_json::from_str(t).map_err(|e| value_err(format!("a cell task: {e}"))))
        .collect()
}

/// Ids of the cells among `tasks` already stored (readable, and the result of that
/// cell) under `out`.
#[pyfunction]
pub fn stored_cells(py: Python<'_>, out: PathBuf, tasks: Vec<String>) -> PyResult<Vec<String>> {
    py.allow_threads(|| {
        let store = Store::new(&out);
        let study = TaskStudy::new(read_tasks(&tasks)?, None);
        Ok(study
            .cells()
            .iter()
            .filter(|c| {
                store
                    .load::<CellResult>(&c.id())
                    .is_some_and(|r| study.is_result_of(&r, c))
            })
            .map(|c| c.id())
            .collect())
    })
}

/// Compute the cells `tasks` (JSON, as [`plan_cells`] gives them) with the one runner
/// (`jobs` threads), storing each under `out` the moment it finishes; each trace is
/// decoded once for the share. Nothing is planned: the experiment file is not read
/// and no trace is checksummed again. Returns how many cells it computed.
#[pyfunction]
#[pyo3(signature = (out, tasks, jobs=1))]
pub fn run_cells(py: Python<'_>, out: PathBuf, tasks: Vec<String>, jobs: usize) -> PyResult<usize> {
    crate::malloc::reuse_freed_memory();
    py.allow_threads(|| {
        let study = Arc::new(TaskStudy::new(read_tasks(&tasks)?, Some(&out)));
        // The driver holds the folder's lock (`claim_out`); a worker writes through it.
        let opts = RunOptions {
            shared: true,
            ..RunOptions::stored(&out, jobs)
        };
        let run = wafer_lab::study::run(&study, &opts, &mut Quiet).map_err(lab_err)?;
        Ok(run.computed)
    })
}

/// Run the experiment with the local runner (`jobs` threads, 0 = the file's
/// `workers` or all cores), computing only missing cells, then write the tables,
/// figures and report. A distributed driver that computed the cells itself passes
/// `computed`, `elapsed_s` and `workers` so that the report describes its run.
/// Returns a JSON summary.
#[pyfunction]
#[pyo3(signature = (experiment, out, jobs=0, computed=None, elapsed_s=None, workers=None))]
pub fn run_local(
    py: Python<'_>,
    experiment: PathBuf,
    out: PathBuf,
    jobs: usize,
    computed: Option<usize>,
    elapsed_s: Option<f64>,
    workers: Option<usize>,
) -> PyResult<String> {
    py.allow_threads(|| {
        run(
            &experiment,
            &out,
            jobs,
            computed.map(|c| (c, elapsed_s.unwrap_or(0.0), workers.unwrap_or(1))),
        )
    })
}

fn run(
    experiment: &Path,
    out: &Path,
    jobs: usize,
    elsewhere: Option<(usize, f64, usize)>,
) -> PyResult<String> {
    let plan = Experiment::load(experiment).map_err(lab_err)?;
    let jobs = if jobs == 0 { plan.exp.workers } else { jobs };
    let study = Arc::new(GridStudy::new(plan, Some(out)));
    let opts = RunOptions {
        keep_going: true,
        ..RunOptions::stored(out, jobs)
    };
    // Held through publishing (re-entered when a driver in this process holds it).
    let _lock = opts.claim(&*study).map_err(lab_err)?;
    let mut o = wafer_lab::grid::run(&study, &opts, &mut Quiet).map_err(lab_err)?;
    if let Some((computed, elapsed_s, workers)) = elsewhere {
        o.computed += computed;
        o.reused = o.total.saturating_sub(o.computed);
        o.elapsed_s += elapsed_s;
        o.jobs = workers;
    }
    let done = publish(&study, o, out).map_err(lab_err)?;
    let o = &done.outcome;
    let summary = serde_json::json!({
        "out": out.display().to_string(),
        "total": o.total,
        "computed": o.computed,
        "reused": o.reused,
        "interrupted": o.interrupted,
        "failed": o.failed.iter().map(|f| serde_json::json!({"cell": f.cell, "reason": f.reason})).collect::<Vec<_>>(),
        "jobs": o.jobs,
        "elapsed_s": o.elapsed_s,
        "figures": done.figures.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "report": done.report.as_ref().map(|p| p.display().to_string()),
    });
    Ok(summary.to_string())
}

/// Run a study with claims (a built-in paper study by name, or a study file) into
/// `out` with the lab's study runner, the one `wafer reproduce` uses; its printed
/// comparison goes to the returned JSON (`printed`) with the rows (`rows`, as
/// `wafer sim --json` prints them) and the verdict table (`verdicts`).
#[pyfunction]
#[pyo3(signature = (study, out, quick=false, jobs=0, replicates=None, measure=None))]
pub fn reproduce(
    py: Python<'_>,
    study: String,
    out: PathBuf,
    quick: bool,
    jobs: usize,
    replicates: Option<u32>,
    measure: Option<Vec<String>>,
) -> PyResult<String> {
    crate::malloc::reuse_freed_memory();
    let measure = match measure {
        None => None,
        Some(names) => Some(
            names
                .iter()
                .map(|n| {
                    wafer_lab::Measure::from_name(n).ok_or_else(|| {
                        value_err(format!("measure: expected as-captured or steady, not {n:?}"))
                    })
                })
                .collect::<PyResult<Vec<_>>>()?,
        ),
    };
    py.allow_threads(|| {
        let file = Path::new(&study);
        // An unknown name is a bad argument.
        let mut preset = if study.ends_with(".toml") || file.is_file() {
            Preset::load(file).map_err(lab_err)?
        } else {
            presets::find(&study).map_err(|e| value_err(e.to_string()))?
        };
        preset.replicates = replicates;
        preset.measure = measure;
        let mut printed = Vec::new();
        let mut run = |plan: wafer_lab::Plan, dir: &Path, preface| {
            let jobs = if jobs == 0 { plan.exp.workers } else { jobs };
            let study = Arc::new(GridStudy::new(plan, Some(dir)).with_preface(preface));
            let opts = RunOptions {
                keep_going: true,
                ..RunOptions::stored(dir, jobs)
            };
            wafer_lab::execute(&study, &opts, &mut Quiet)
        };
        let mut run_board = |board: &Arc<wafer_lab::apu::ApuStudy>, dir: &Path| {
            wafer_lab::apu::execute(board, &RunOptions::stored(dir, jobs), &mut Quiet)
        };
        let done = presets::reproduce(
            &Arc::new(preset),
            &out,
            quick,
            &mut printed,
            &mut run,
            &mut run_board,
        )
        .map_err(lab_err)?;
        let verdicts: Vec<serde_json::Value> = done
            .verdicts
            .iter()
            .map(|v| {
                serde_json::json!({
                    "claim": v.claim, "text": v.text, "group": v.group, "paper": v.paper,
                    "wafer": v.wafer, "range": v.range, "cells": v.cells,
                    "verdict": v.verdict, "why": v.why,
                })
            })
            .collect();
        let rows: Vec<serde_json::Map<String, serde_json::Value>> = done
            .rows
            .into_iter()
            .map(|r| r.into_iter().collect())
            .collect();
        let summary = serde_json::json!({
            "out": out.display().to_string(),
            "rows": rows,
            "verdicts": verdicts,
            "printed": String::from_utf8_lossy(&printed).lines().collect::<Vec<_>>(),
        });
        Ok(summary.to_string())
    })
}
