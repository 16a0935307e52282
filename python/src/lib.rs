//! Python bindings of wafer: thin wrappers that convert between wafer's Rust types and
//! Python/NumPy values. No simulation logic lives here.

use numpy::IntoPyArray;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use wafer_trace::{format::BATCH, Format, ReadOptions, Request, RequestReader};

pyo3::create_exception!(_wafer, WaferError, pyo3::exceptions::PyException, "An error reported by wafer.");

fn to_py(e: wafer_trace::Error) -> PyErr {
    match e {
        wafer_trace::Error::Invalid(m) => PyValueError::new_err(m),
        wafer_trace::Error::Io { .. } => PyOSError::new_err(e.to_string()),
        other => WaferError::new_err(other.to_string()),
    }
}

fn read_options(format: Option<&str>, skip_invalid: bool) -> PyResult<ReadOptions> {
    let format = format.map(Format::from_name).transpose().map_err(to_py)?;
    Ok(ReadOptions { format, skip_invalid, ..ReadOptions::default() })
}

/// A streaming trace reader yielding batches of requests as dicts of NumPy arrays
/// (`time_ns`, `op` (0 read, 1 write, 2 trim), `dev`, `offset`, `len`).
#[pyclass(module = "wafer._wafer", unsendable)]
struct TraceReader {
    inner: Box<dyn RequestReader>,
    batch: Vec<Request>,
    batch_size: usize,
}

#[pymethods]
impl TraceReader {
    #[new]
    #[pyo3(signature = (path, format=None, skip_invalid=false, batch_size=65536))]
    fn new(path: PathBuf, format: Option<&str>, skip_invalid: bool, batch_size: usize) -> PyResult<Self> {
        let opts = read_options(format, skip_invalid)?;
        let inner = wafer_trace::open(&path, &opts).map_err(to_py)?;
        Ok(TraceReader { inner, batch: Vec::with_capacity(BATCH), batch_size: batch_size.max(1) })
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
            let more = py.allow_threads(|| self.inner.read_batch(&mut self.batch)).map_err(to_py)?;
            if !more {
                break;
            }
            for r in &self.batch {
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

#[pymodule]
fn _wafer(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("WaferError", m.py().get_type::<WaferError>())?;
    m.add_class::<TraceReader>()?;
    Ok(())
}
