//! Curves: one trace at every cache size, computed as `wafer curve` computes them
//! ([`wafer_lab::curve::compute`]), returning the same rows.

use pyo3::prelude::*;
use std::path::PathBuf;
use wafer_cache::curve::{Method, SampleUnit};
use wafer_lab::curve::{compute, CurveOptions};
use wafer_lab::Quiet;

use crate::errors::{lab_err, value_err};
use crate::sim::{experiment, keyword, options};

/// The curves of `policies` over the trace at `path` (the keywords of `wafer curve`,
/// the same defaults); returns the rows (the CSV's columns, in order) as JSON. The
/// GIL is released while the trace is read and the curves computed.
#[pyfunction]
#[pyo3(signature = (path, policies, methods=Vec::new(), rate=None, max_keys=None,
    sample_unit=None, seed=0, exact_head=None, points=100, sizes=Vec::new(), options="{}",
    format=None, mapping=None))]
#[allow(clippy::too_many_arguments)]
pub fn curve(
    py: Python<'_>,
    path: PathBuf,
    policies: Vec<String>,
    methods: Vec<String>,
    rate: Option<f64>,
    max_keys: Option<u32>,
    sample_unit: Option<&str>,
    seed: u64,
    exact_head: Option<u32>,
    points: usize,
    sizes: Vec<String>,
    options: &str,
    format: Option<&str>,
    mapping: Option<&str>,
) -> PyResult<String> {
    let exp = experiment(
        path,
        policies,
        sizes,
        self::options(options)?,
        format,
        mapping,
        Vec::new(),
        "compact",
        false,
    )?;
    let methods = methods
        .iter()
        .map(|m| match m.to_ascii_lowercase().as_str() {
            "exact" => Ok(Method::Exact),
            "shards" => Ok(Method::Shards),
            "minisim" => Ok(Method::Minisim),
            _ => Err(value_err(format!(
                "method: unknown method `{m}` (known: exact, shards, minisim)"
            ))),
        })
        .collect::<PyResult<Vec<_>>>()?;
    let sample_unit = match sample_unit {
        None => None,
        Some("page") => Some(SampleUnit::Page),
        Some("block") => Some(SampleUnit::Block),
        Some(other) => {
            return Err(value_err(format!(
                "sample_unit={other:?}: expected \"page\" or \"block\""
            )))
        }
    };
    let opts = CurveOptions {
        methods,
        rate,
        max_keys,
        sample_unit,
        seed,
        exact_head,
        points,
        // Every core, as the grid's default.
        jobs: 0,
    };
    py.allow_threads(|| {
        let at = |key: &str| {
            if key.starts_with("cache_sizes") {
                "sizes".to_string()
            } else {
                keyword(key)
            }
        };
        let curves = compute(&exp, &opts, &at, &Quiet).map_err(lab_err)?;
        let rows: Vec<serde_json::Map<String, serde_json::Value>> = curves
            .rows
            .iter()
            .map(|r| r.columns().into_iter().collect())
            .collect();
        serde_json::to_string(&rows).map_err(|e| value_err(e.to_string()))
    })
}
