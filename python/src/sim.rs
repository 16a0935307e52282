//! Simulations: a trace through policies x cache sizes (x devices), built and run
//! exactly as `wafer sim` builds and runs them (one [`Experiment`], validated once,
//! run by the one runner), returning the same flat rows.

use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use wafer_lab::experiment::{option_name, Outputs, TraceDef};
use wafer_lab::{Access, Experiment, GridStudy, Quiet, RunOptions};

use crate::errors::{lab_err, value_err};

/// The run description the keywords give (the Python twin of `wafer sim`'s
/// arguments; the same defaults).
#[allow(clippy::too_many_arguments)]
pub(crate) fn experiment(
    path: PathBuf,
    policies: Vec<String>,
    caches: Vec<String>,
    block: &str,
    page_size: &str,
    granularity: &str,
    warmup: u64,
    write_miss_fetch: bool,
    flush_at_end: bool,
    format: Option<&str>,
    mapping: Option<&str>,
    devices: Vec<String>,
    address_map: &str,
    stream: bool,
) -> PyResult<Experiment> {
    let mapping = match mapping {
        Some(json) => Some(
            serde_json::from_str::<wafer_trace::Mapping>(json)
                .map_err(|e| value_err(format!("mapping: {e}")))?,
        ),
        None => None,
    };
    let access = match granularity {
        "page" => Access::Page,
        "record" => Access::Record,
        other => {
            return Err(value_err(format!(
                "granularity={other:?}: expected \"page\" or \"record\""
            )))
        }
    };
    let trace = TraceDef {
        format: format.map(str::to_string),
        mapping,
        cache_sizes: None,
        ..TraceDef::file(path)
    };
    Ok(Experiment {
        access,
        page_size: page_size.to_string(),
        block_size: block.to_string(),
        devices,
        address_map: address_map.to_string(),
        warmup,
        write_miss_fetch,
        flush_at_end,
        stream,
        outputs: Outputs {
            figures: Vec::new(),
            keep_after: false,
            report: false,
            series_every: 0,
        },
        ..Experiment::new("wafer sim", vec![trace], policies, caches)
    })
}

/// Simulate every policy at every cache size (on every device) over the trace at
/// `path`, decoded once; returns the rows (the objects `wafer sim --json` prints) as
/// JSON. The GIL is released while the trace is read and simulated, and Ctrl-C stops
/// the run within about 100 ms ([`crate::interrupt`]).
#[pyfunction]
#[pyo3(signature = (path, policies, caches, block="4MiB", page_size="4KiB", granularity="page",
    warmup=0, write_miss_fetch=false, flush_at_end=false, format=None, mapping=None,
    devices=Vec::new(), address_map="compact", stream=false, jobs=0, max_cells=None))]
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    py: Python<'_>,
    path: PathBuf,
    policies: Vec<String>,
    caches: Vec<String>,
    block: &str,
    page_size: &str,
    granularity: &str,
    warmup: u64,
    write_miss_fetch: bool,
    flush_at_end: bool,
    format: Option<&str>,
    mapping: Option<&str>,
    devices: Vec<String>,
    address_map: &str,
    stream: bool,
    jobs: usize,
    max_cells: Option<u64>,
) -> PyResult<String> {
    // A trace that cannot be opened is an OSError naming it, as for every reader.
    std::fs::File::open(&path)
        .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", path.display())))?;
    let mut exp = experiment(
        path,
        policies,
        caches,
        block,
        page_size,
        granularity,
        warmup,
        write_miss_fetch,
        flush_at_end,
        format,
        mapping,
        devices,
        address_map,
        stream,
    )?;
    exp.max_cells = max_cells;
    let stop = Arc::new(AtomicBool::new(false));
    let opts = RunOptions {
        out: None,
        jobs,
        stop: Arc::clone(&stop),
        ..RunOptions::default()
    };
    crate::interrupt::run(py, stop, move || {
        let plan = exp.plan_as(&option_name, Path::new("")).map_err(lab_err)?;
        let study = Arc::new(GridStudy::new(plan, None));
        let run = wafer_lab::study::run(&study, &opts, &mut Quiet).map_err(lab_err)?;
        let rows: Vec<serde_json::Map<String, serde_json::Value>> = run
            .results
            .iter()
            .map(|r| r.row(true).into_iter().collect())
            .collect();
        serde_json::to_string(&rows).map_err(|e| value_err(e.to_string()))
    })
}

/// Every registered policy (the registry table `wafer policies --json` prints), JSON.
#[pyfunction]
pub fn policies() -> PyResult<String> {
    serde_json::to_string(wafer_cache::POLICIES).map_err(|e| value_err(e.to_string()))
}

/// Every built-in device profile, fully described, JSON.
#[pyfunction]
pub fn devices() -> PyResult<String> {
    let all = wafer_ftl::PROFILES
        .iter()
        .map(|n| wafer_ftl::Device::from_profile(n))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| value_err(e.to_string()))?;
    serde_json::to_string(&all).map_err(|e| value_err(e.to_string()))
}
