//! One simulation, the record `wafer sim --json` prints for one (policy, cache) cell.

use pyo3::prelude::*;
use serde::Serialize;
use std::path::PathBuf;
use wafer_cache::{run_policy, CostModel, Input, Metrics, PolicySpec, PreparedTrace, SimConfig};
use wafer_ftl::{Device, Ftl};
use wafer_lab::runner::CellSink;
use wafer_lab::FtlSummary;
use wafer_trace::units::{parse_size, CacheSize};
use wafer_trace::{Format, Granularity};

use crate::errors::{trace_err, value_err, WaferError};
use crate::trace::read_options;

/// The fields of one `wafer sim --json` row (same names, same order).
#[derive(Serialize)]
struct Row {
    trace: String,
    /// The format the trace was read as (detected or forced), as the CLI's row says.
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
    metrics: Metrics,
    #[serde(skip_serializing_if = "Option::is_none")]
    device: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ftl: Option<FtlSummary>,
}

/// Simulate `policy` with a cache of `cache` over the trace at `path`; returns the
/// row as JSON. With `device` (a profile name or a device `.toml`), the after-cache
/// operations are replayed on its FTL, as an experiment cell does, and `ftl` holds its
/// metrics. The GIL is released while the trace is read and simulated.
#[pyfunction]
#[pyo3(signature = (path, policy, cache, block="4MiB", page_size="4KiB", granularity="page",
    warmup=0, write_miss_fetch=false, flush_at_end=false, format=None, device=None))]
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    py: Python<'_>,
    path: PathBuf,
    policy: &str,
    cache: &str,
    block: &str,
    page_size: &str,
    granularity: &str,
    warmup: u64,
    write_miss_fetch: bool,
    flush_at_end: bool,
    format: Option<&str>,
    device: Option<&str>,
) -> PyResult<String> {
    let spec = PolicySpec::parse(policy).map_err(|e| value_err(e.to_string()))?;
    let size = CacheSize::parse(cache).map_err(|e| value_err(e.to_string()))?;
    let granularity = match granularity {
        "page" => {
            let ps = parse_size(page_size).map_err(|e| value_err(e.to_string()))?;
            let page_size = u32::try_from(ps)
                .ok()
                .filter(|&p| p > 0)
                .ok_or_else(|| value_err(format!("page size `{page_size}` out of range")))?;
            Granularity::Page { page_size }
        }
        "record" => Granularity::Record,
        other => {
            return Err(value_err(format!(
                "granularity `{other}`: expected `page` or `record`"
            )))
        }
    };
    let unit = granularity.unit();
    let block_bytes = parse_size(block).map_err(|e| value_err(e.to_string()))?;
    if block_bytes < unit || block_bytes % unit != 0 {
        return Err(value_err(format!(
            "block size {block} must be a multiple of the {unit} B page"
        )));
    }
    let ppb = u32::try_from(block_bytes / unit).map_err(|_| value_err("block size too large"))?;
    let opts = read_options(format, false)?;
    let mut ftl = match device {
        Some(d) => {
            let dev = Device::resolve(d).map_err(|e| value_err(format!("device {d}: {e}")))?;
            Some(
                dev.build_ftl()
                    .map_err(|e| value_err(format!("device {d}: {e}")))?,
            )
        }
        None => None,
    };
    let row = py.allow_threads(|| -> PyResult<Row> {
        let mut reader = wafer_trace::open(&path, &opts).map_err(trace_err)?;
        let format = reader.meta().format;
        let trace = PreparedTrace::read(granularity, reader.as_mut(), &mut |_| {})
            .map_err(|e| WaferError::new_err(format!("reading {}: {e}", path.display())))?;
        let capacity_pages = size
            .pages(unit, u64::from(trace.universe()))
            .map_err(|e| value_err(e.to_string()))?;
        let cfg = SimConfig {
            granularity,
            capacity_pages,
            pages_per_block: ppb,
            warmup,
            write_miss_fetch,
            flush_at_end,
            cost: CostModel::default(),
            series_every: 0,
        };
        let mut sink = CellSink::new(ftl.as_mut(), cfg.unit(), None);
        let metrics = run_policy(&spec, Input::Prepared(&trace), &cfg, &mut sink, &mut |_| {})
            .map_err(|e| WaferError::new_err(e.to_string()))?;
        let (wrapped, _) = sink.into_parts();
        let ftl = ftl
            .as_ref()
            .map(|f| FtlSummary::from_metrics(&f.metrics(), wrapped));
        Ok(Row {
            trace: path.display().to_string(),
            format,
            policy: spec.label(),
            cache: cache.to_string(),
            capacity_pages,
            page_size: unit as u32,
            pages_per_block: ppb,
            granularity,
            warmup,
            write_miss_fetch,
            flush_at_end,
            metrics,
            device: device.map(str::to_string),
            ftl,
        })
    })?;
    serde_json::to_string(&row).map_err(|e| value_err(e.to_string()))
}
