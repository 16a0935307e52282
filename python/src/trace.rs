//! Traces: a streaming reader yielding NumPy batches, and `wafer trace info`'s stats.

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use wafer_trace::stats::TraceStats;
use wafer_trace::{reader::BATCH, Format, Granularity, ReadOptions, Request, RequestReader};

use crate::errors::{trace_err, value_err};

pub fn read_options(format: Option<&str>, skip_invalid: bool) -> PyResult<ReadOptions> {
    let format = format
        .map(Format::from_name)
        .transpose()
        .map_err(trace_err)?;
    Ok(ReadOptions {
        format,
        skip_invalid,
        ..ReadOptions::default()
    })
}

/// A streaming trace reader yielding batches of requests as dicts of NumPy arrays
/// (`time_ns`, `op` (0 read, 1 write, 2 trim), `dev`, `offset`, `len`).
#[pyclass(module = "wafer._wafer", unsendable)]
pub struct TraceReader {
    inner: Box<dyn RequestReader>,
    batch: Vec<Request>,
    batch_size: usize,
}

#[pymethods]
impl TraceReader {
    #[new]
    #[pyo3(signature = (path, format=None, skip_invalid=false, batch_size=65536))]
    fn new(
        path: PathBuf,
        format: Option<&str>,
        skip_invalid: bool,
        batch_size: usize,
    ) -> PyResult<Self> {
        let opts = read_options(format, skip_invalid)?;
        let inner = wafer_trace::open(&path, &opts).map_err(trace_err)?;
        Ok(TraceReader {
            inner,
            batch: Vec::with_capacity(BATCH),
            batch_size: batch_size.max(1),
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let mut time = Vec::new();
        let mut op = Vec::new();
        let mut dev = Vec::new();
        let mut offset = Vec::new();
        let mut len = Vec::new();
        while time.len() < self.batch_size {
            // A reader's batch may overshoot `batch_size`; the surplus stays for the next call.
            if self.batch.is_empty() {
                let more = py
                    .allow_threads(|| self.inner.read_batch(&mut self.batch))
                    .map_err(trace_err)?;
                if !more || self.batch.is_empty() {
                    break;
                }
            }
            let take = (self.batch_size - time.len()).min(self.batch.len());
            for r in self.batch.drain(..take) {
                time.push(r.time_ns);
                op.push(r.op as u8);
                dev.push(r.dev);
                offset.push(r.offset);
                len.push(r.len);
            }
        }
        if time.is_empty() {
            return Ok(None);
        }
        let d = PyDict::new(py);
        d.set_item("time_ns", time.into_pyarray(py))?;
        d.set_item("op", op.into_pyarray(py))?;
        d.set_item("dev", dev.into_pyarray(py))?;
        d.set_item("offset", offset.into_pyarray(py))?;
        d.set_item("len", len.into_pyarray(py))?;
        Ok(Some(d))
    }

    /// Malformed records skipped so far (with `skip_invalid=True`).
    #[getter]
    fn skipped(&self) -> u64 {
        self.inner.skipped()
    }

    /// The detected or forced format name.
    #[getter]
    fn format(&self) -> Option<&'static str> {
        self.inner.meta().format.map(Format::name)
    }
}

/// The report `wafer trace info --json` prints (file, format, skipped and the
/// statistics), as JSON.
#[pyfunction]
#[pyo3(signature = (path, format=None, skip_invalid=false, page_size=4096))]
pub fn trace_info(
    py: Python<'_>,
    path: PathBuf,
    format: Option<&str>,
    skip_invalid: bool,
    page_size: u32,
) -> PyResult<String> {
    if page_size == 0 {
        return Err(value_err("page size must be positive"));
    }
    let opts = read_options(format, skip_invalid)?;
    py.allow_threads(|| {
        let mut reader = wafer_trace::open(&path, &opts).map_err(trace_err)?;
        let stats = TraceStats::collect(
            reader.as_mut(),
            Granularity::Page { page_size },
            &mut |_| {},
        )
        .map_err(trace_err)?;
        let mut v = serde_json::to_value(&stats).map_err(|e| value_err(e.to_string()))?;
        if let Some(m) = v.as_object_mut() {
            m.insert("file".into(), path.display().to_string().into());
            m.insert(
                "format".into(),
                reader.meta().format.map(Format::name).into(),
            );
            m.insert("skipped".into(), reader.skipped().into());
        }
        Ok(v.to_string())
    })
}
