//! Simulations: a trace through policies x cache sizes (x devices), built and run
//! exactly as `wafer sim` builds and runs them (one [`Experiment`], validated once,
//! run by the one runner), returning the same flat rows.

use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use wafer_lab::experiment::{Outputs, TraceDef};
use wafer_lab::{EngineOptions, Experiment, GridStudy, Quiet, RunOptions};

use crate::errors::{lab_err, value_err};

/// The engine options a JSON object of keywords gives (`wafer._args` has checked
/// their types; the type checks their values).
pub(crate) fn options(json: &str) -> PyResult<EngineOptions> {
    EngineOptions::from_json(json).map_err(value_err)
}

/// The keyword a key of the run description comes from, for error messages: an
/// engine option's one name; the grid's lists by the keyword that gives them.
pub(crate) fn keyword(key: &str) -> String {
    let head = key.split(['[', '.']).next().unwrap_or(key);
    match head {
        "policies" => "policy".into(),
        "cache_sizes" => "cache".into(),
        "devices" => "device".into(),
        "traces" if key.ends_with(".format") => "format".into(),
        "traces" => "trace".into(),
        _ => head.into(),
    }
}

/// The run description the keywords give (the Python twin of `wafer sim`'s
/// arguments; the same defaults).
#[allow(clippy::too_many_arguments)]
pub(crate) fn experiment(
    path: PathBuf,
    policies: Vec<String>,
    caches: Vec<String>,
    options: EngineOptions,
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
    let trace = TraceDef {
        format: format.map(str::to_string),
        mapping,
        cache_sizes: None,
        ..TraceDef::file(path)
    };
    Ok(Experiment {
        options,
        devices,
        address_map: address_map.to_string(),
        stream,
        outputs: Outputs {
            figures: Vec::new(),
            keep_after: false,
            report: false,
            ..Outputs::default()
        },
        ..Experiment::new("wafer sim", vec![trace], policies, caches)
    })
}

/// Every engine option (name, flag, aliases, doc, default, kind, choices), JSON:
/// the table `wafer.engine_options` and the keyword checks read.
#[pyfunction]
pub fn engine_option_table() -> PyResult<String> {
    serde_json::to_string(wafer_lab::options::table()).map_err(|e| value_err(e.to_string()))
}

/// The engine options the keywords give (names or former spellings), every one
/// filled in, as JSON; the options `simulate` and `curve` take, as this JSON.
#[pyfunction]
#[pyo3(signature = (**options))]
pub fn engine_options(options: Option<&Bound<'_, pyo3::types::PyDict>>) -> PyResult<String> {
    use pyo3::types::{PyBool, PyFloat, PyInt, PyString};
    let mut map = serde_json::Map::new();
    for (k, v) in options.into_iter().flatten() {
        let key: String = k.extract()?;
        let value = if v.is_instance_of::<PyBool>() {
            serde_json::Value::from(v.extract::<bool>()?)
        } else if v.is_instance_of::<PyInt>() {
            match v.extract::<u64>() {
                Ok(n) => n.into(),
                Err(_) => v.extract::<i64>()?.into(),
            }
        } else if v.is_instance_of::<PyFloat>() {
            v.extract::<f64>()?.into()
        } else if v.is_instance_of::<PyString>() {
            v.extract::<String>()?.into()
        } else {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "{key}=: expected a string, a number or a bool, found {}",
                v.get_type().name()?
            )));
        };
        map.insert(key, value);
    }
    let json = serde_json::Value::Object(map).to_string();
    serde_json::to_string(&self::options(&json)?).map_err(|e| value_err(e.to_string()))
}

/// Simulate every policy at every cache size (on every device) over the trace at
/// `path`, decoded once; returns the rows (the objects `wafer sim --json` prints) as
/// JSON. The GIL is released while the trace is read and simulated, and Ctrl-C stops
/// the run within about 100 ms ([`crate::interrupt`]).
#[pyfunction]
#[pyo3(signature = (path, policies, caches, options="{}", format=None, mapping=None,
    devices=Vec::new(), address_map="compact", stream=false, jobs=0, max_cells=None))]
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    py: Python<'_>,
    path: PathBuf,
    policies: Vec<String>,
    caches: Vec<String>,
    options: &str,
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
        self::options(options)?,
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
        let plan = exp.plan_as(&keyword, Path::new("")).map_err(lab_err)?;
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
