//! Rust errors as Python exceptions carrying wafer's one-line message.

use pyo3::exceptions::{PyMemoryError, PyOSError, PyValueError};
use pyo3::PyErr;

pyo3::create_exception!(
    _wafer,
    WaferError,
    pyo3::exceptions::PyException,
    "An error reported by wafer."
);

/// Malformed input becomes `ValueError`, an unreadable file `OSError`, the rest
/// [`WaferError`].
pub fn trace_err(e: wafer_trace::Error) -> PyErr {
    match e {
        wafer_trace::Error::Invalid(m) => PyValueError::new_err(m),
        wafer_trace::Error::Io { .. } => PyOSError::new_err(e.to_string()),
        other => WaferError::new_err(other.to_string()),
    }
}

/// Experiment errors: configuration mistakes are `ValueError`, an unreadable file
/// `OSError`, more memory than there is `MemoryError`, a trace's own errors as
/// [`trace_err`] says, the rest [`WaferError`].
pub fn lab_err(e: wafer_lab::LabError) -> PyErr {
    match e {
        wafer_lab::LabError::Config { .. } => PyValueError::new_err(e.to_string()),
        wafer_lab::LabError::Io { .. } => PyOSError::new_err(e.to_string()),
        // A known public trace not found: an OSError naming how to fetch it.
        wafer_lab::LabError::MissingTrace(m) => pyo3::exceptions::PyFileNotFoundError::new_err(m),
        wafer_lab::LabError::Memory(m) => PyMemoryError::new_err(m),
        wafer_lab::LabError::Trace(t) => trace_err(t),
        other => WaferError::new_err(other.to_string()),
    }
}

/// A bad argument.
pub fn value_err(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}
