//! Experiments: the whole local run, and the single-cell pieces a distributed driver
//! needs (list the cells, compute one on a worker, store it atomically on the driver);
//! see `wafer.dask_run` and `wafer_lab::cells`.

use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use wafer_lab::store::{write_atomic, Store};
use wafer_lab::study::Study;
use wafer_lab::{execute, CellResult, Experiment, GridStudy, Quiet, RunOptions};

use crate::errors::{lab_err, value_err};

/// `(id, label)` of every cell of the experiment, in grid order.
#[pyfunction]
pub fn plan_cells(py: Python<'_>, experiment: PathBuf) -> PyResult<Vec<(String, String)>> {
    py.allow_threads(|| {
        let plan = Experiment::load(&experiment).map_err(lab_err)?;
        Ok(plan.cells().iter().map(|c| (c.id(), c.label())).collect())
    })
}

/// Ids of the cells of the experiment already stored (readable) under `out`.
#[pyfunction]
pub fn stored_cells(py: Python<'_>, experiment: PathBuf, out: PathBuf) -> PyResult<Vec<String>> {
    py.allow_threads(|| {
        let plan = Experiment::load(&experiment).map_err(lab_err)?;
        let store = Store::new(&out);
        store.remove_stale_temporaries();
        let study = GridStudy::new(plan, None);
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

/// Compute cell `cell_id` of the experiment (on whichever machine calls this) and
/// return its result as the JSON the store keeps.
#[pyfunction]
pub fn compute_cell(py: Python<'_>, experiment: PathBuf, cell_id: &str) -> PyResult<String> {
    py.allow_threads(|| {
        let plan = Experiment::load(&experiment).map_err(lab_err)?;
        let cell = plan
            .cells()
            .into_iter()
            .find(|c| c.id() == cell_id)
            .ok_or_else(|| {
                value_err(format!(
                    "{}: no cell {cell_id} in this experiment",
                    experiment.display()
                ))
            })?;
        let r = wafer_lab::run_cell(&plan, &cell).map_err(lab_err)?;
        serde_json::to_string(&r).map_err(|e| value_err(e.to_string()))
    })
}

/// Store a result from [`compute_cell`] under `out` atomically, byte for byte as the
/// local runner would; returns its id.
#[pyfunction]
pub fn store_cell(py: Python<'_>, out: PathBuf, result: &str) -> PyResult<String> {
    py.allow_threads(|| {
        let r: CellResult = serde_json::from_str(result)
            .map_err(|e| value_err(format!("not a cell result: {e}")))?;
        let store = Store::new(&out);
        write_atomic(&store.cell_path(&r.id), result.as_bytes()).map_err(lab_err)?;
        Ok(r.id)
    })
}

/// Run the experiment with the local runner (`jobs` threads, 0 = the file's
/// `workers` or all cores), computing only missing cells, then write the tables,
/// figures and report. Returns a JSON summary.
#[pyfunction]
#[pyo3(signature = (experiment, out, jobs=0))]
pub fn run_local(
    py: Python<'_>,
    experiment: PathBuf,
    out: PathBuf,
    jobs: usize,
) -> PyResult<String> {
    py.allow_threads(|| run(&experiment, &out, jobs))
}

fn run(experiment: &Path, out: &Path, jobs: usize) -> PyResult<String> {
    let plan = Experiment::load(experiment).map_err(lab_err)?;
    let jobs = if jobs == 0 { plan.exp.workers } else { jobs };
    let study = Arc::new(GridStudy::new(plan, Some(out)));
    let done = execute(&study, &RunOptions::stored(out, jobs), &mut Quiet).map_err(lab_err)?;
    let o = &done.outcome;
    let summary = serde_json::json!({
        "out": out.display().to_string(),
        "total": o.total,
        "computed": o.computed,
        "reused": o.reused,
        "interrupted": o.interrupted,
        "jobs": o.jobs,
        "elapsed_s": o.elapsed_s,
        "figures": done.figures.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "report": done.report.as_ref().map(|p| p.display().to_string()),
    });
    Ok(summary.to_string())
}
