//! Python bindings of wafer: thin wrappers that convert between wafer's Rust types and
//! Python/NumPy values. No simulation logic lives here; results cross as the same JSON
//! the CLI prints, so Python and the CLI report identical numbers.

use pyo3::prelude::*;

mod curve;
mod errors;
mod interrupt;
mod lab;
mod malloc;
mod policy;
mod sim;
mod trace;

/// The `wafer` command with `argv` (program name first); returns its exit status.
/// Behind the package's `wafer` console script.
#[pyfunction]
fn cli(py: Python<'_>, argv: Vec<std::ffi::OsString>) -> i32 {
    py.allow_threads(|| wafer_cli::main(argv))
}

#[pymodule]
fn _wafer(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("LAB_VERSION", wafer_lab::VERSION)?;
    m.add("WaferError", m.py().get_type::<errors::WaferError>())?;
    m.add_class::<trace::TraceReader>()?;
    m.add_function(wrap_pyfunction!(trace::trace_info, m)?)?;
    m.add_function(wrap_pyfunction!(sim::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(sim::policies, m)?)?;
    m.add_function(wrap_pyfunction!(sim::devices, m)?)?;
    m.add_function(wrap_pyfunction!(sim::engine_options, m)?)?;
    m.add_function(wrap_pyfunction!(sim::engine_option_table, m)?)?;
    m.add_function(wrap_pyfunction!(curve::curve, m)?)?;
    m.add_function(wrap_pyfunction!(lab::plan_cells, m)?)?;
    m.add_function(wrap_pyfunction!(lab::claim_out, m)?)?;
    m.add_class::<lab::OutputLock>()?;
    m.add_function(wrap_pyfunction!(lab::stored_cells, m)?)?;
    m.add_function(wrap_pyfunction!(lab::run_cells, m)?)?;
    m.add_function(wrap_pyfunction!(lab::run_local, m)?)?;
    m.add_function(wrap_pyfunction!(lab::reproduce, m)?)?;
    m.add_function(wrap_pyfunction!(cli, m)?)?;
    m.add_function(wrap_pyfunction!(policy::register_policy, m)?)?;
    policy::install_resolver();
    Ok(())
}
