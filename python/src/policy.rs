//! Python classes as replacement policies: the [`Chooser`] of `wafer_cache::external`
//! implemented by calling a user's class (`wafer/policy.py` says what the class
//! defines).
//!
//! The crossing into Python costs far more than a built-in policy's whole access, so
//! it is paid as rarely as the decisions allow: events (hits, insertions, trims) that
//! need no answer are queued in Rust and delivered in one go, under one hold of the
//! GIL, when the engine needs an answer (an eviction) or the queue is long; a hook
//! the class does not define is never queued at all. The class sees every event in
//! order before it answers, so the decisions are those of a call per access.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use wafer_cache::external::{
    self, Chooser, ChooserError, ChooserFactory, Event, EventKind, Victims,
};
use wafer_cache::PolicyCtx;

/// Events queued before they are delivered even without an eviction (a cache that
/// holds the whole trace never evicts): bounds the queue's memory.
const MAX_PENDING: usize = 1 << 16;

/// The `wafer.policy` module's helper `name`.
fn helper<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("wafer.policy")?.getattr(name)
}

/// One line for a Python exception raised by hook `hook`.
fn describe(py: Python<'_>, hook: &str, e: PyErr) -> String {
    helper(py, "_describe")
        .and_then(|f| f.call1((hook, e.value(py), e.traceback(py))))
        .and_then(|s| s.extract::<String>())
        .unwrap_or_else(|_| format!("{hook}() raised {e}"))
}

/// A policy class: builds one chooser per run.
struct PyFactory {
    cls: Py<PyAny>,
    display: String,
}

impl ChooserFactory for PyFactory {
    fn display(&self) -> String {
        self.display.clone()
    }

    fn check(&self, params: &[(String, String)]) -> Result<(), String> {
        Python::with_gil(|py| {
            helper(py, "_check")
                .and_then(|f| f.call1((self.cls.bind(py), params.to_vec())))
                .map(|_| ())
                .map_err(|e| one_line(&e.value(py).to_string()))
        })
    }

    fn build(
        &self,
        capacity: u32,
        _ctx: &PolicyCtx,
        params: &[(String, String)],
    ) -> Result<Box<dyn Chooser>, String> {
        Python::with_gil(|py| {
            let got = helper(py, "_build")
                .and_then(|f| f.call1((self.cls.bind(py), capacity, params.to_vec())))
                .map_err(|e| describe(py, "__init__", e))?;
            // The bound methods hold the object for the run.
            let hooks: (
                Option<PyObject>,
                Option<PyObject>,
                Option<PyObject>,
                PyObject,
            ) = got.extract().map_err(|e| e.to_string())?;
            let (hit, insert, remove, evict) = hooks;
            Ok(Box::new(PyChooser {
                _thread: ThreadState::keep(py),
                hit,
                insert,
                remove,
                evict,
                pending: Vec::new(),
            }) as Box<dyn Chooser>)
        })
    }
}

/// A message on one line.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Keeps this thread's Python thread state alive between holds of the GIL.
///
/// The engine runs on a thread Python did not create; each `with_gil` there would
/// otherwise create and destroy a thread state, which cost more than the call it
/// guards (measured: about 6 us per eviction on LRU, `BENCHMARKS.md`). One extra
/// `PyGILState_Ensure` for the chooser's life keeps the state, so each later hold is
/// a plain take of the GIL. The chooser is built, used and dropped on one thread (the
/// engine's), as `PyGILState_Release` requires.
struct ThreadState(pyo3::ffi::PyGILState_STATE);

impl ThreadState {
    fn keep(_py: Python<'_>) -> ThreadState {
        // SAFETY: called with the GIL held (the `Python` token); balanced by `drop`.
        ThreadState(unsafe { pyo3::ffi::PyGILState_Ensure() })
    }
}

impl Drop for ThreadState {
    fn drop(&mut self) {
        // SAFETY: the thread that called `keep` (see the type's doc), with the GIL
        // held; the enclosing hold's own release then frees the thread state.
        Python::with_gil(|_| unsafe { pyo3::ffi::PyGILState_Release(self.0) });
    }
}

/// One run's object: its bound hooks and the events not yet delivered.
struct PyChooser {
    _thread: ThreadState,
    hit: Option<PyObject>,
    insert: Option<PyObject>,
    remove: Option<PyObject>,
    evict: PyObject,
    pending: Vec<Event>,
}

impl PyChooser {
    /// Deliver the queued events, in order, under the GIL the caller holds.
    fn deliver(&mut self, py: Python<'_>) -> Result<(), ChooserError> {
        let mut result = Ok(());
        for e in &self.pending {
            let (hook, name) = match e.kind {
                EventKind::Hit => (&self.hit, "hit"),
                EventKind::Insert => (&self.insert, "insert"),
                EventKind::Remove => (&self.remove, "remove"),
            };
            let Some(f) = hook else { continue };
            let r = if e.kind == EventKind::Remove {
                f.call1(py, (e.page, e.block))
            } else {
                f.call1(py, (e.page, e.block, e.write))
            };
            if let Err(err) = r {
                result = Err(ChooserError {
                    index: e.index,
                    msg: describe(py, name, err),
                });
                break;
            }
        }
        self.pending.clear();
        result
    }
}

impl Chooser for PyChooser {
    fn event(&mut self, e: &Event) -> Result<(), ChooserError> {
        let needed = match e.kind {
            EventKind::Hit => self.hit.is_some(),
            EventKind::Insert => self.insert.is_some(),
            EventKind::Remove => self.remove.is_some(),
        };
        if !needed {
            return Ok(());
        }
        self.pending.push(*e);
        if self.pending.len() >= MAX_PENDING {
            return Python::with_gil(|py| self.deliver(py));
        }
        Ok(())
    }

    fn evict(&mut self, index: u64, out: &mut Victims) -> Result<(), ChooserError> {
        Python::with_gil(|py| {
            self.deliver(py)?;
            let fail = |msg: String| ChooserError { index, msg };
            let v = self
                .evict
                .call0(py)
                .map_err(|e| fail(describe(py, "evict", e)))?;
            let v = v.bind(py);
            if v.is_none() {
                return Ok(());
            }
            if let Ok(page) = v.extract::<u64>() {
                out.pages.push(page);
                return Ok(());
            }
            let wrong = || {
                let shown: String = v.repr().map(|r| r.to_string()).unwrap_or_default();
                let shown: String = shown.chars().take(80).collect();
                fail(format!(
                    "evict() returned {shown}: expected a page number or a list of page numbers"
                ))
            };
            if !(v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>()) {
                return Err(wrong());
            }
            out.group = true;
            for p in v.try_iter().map_err(|_| wrong())? {
                let p = p.map_err(|_| wrong())?;
                out.pages.push(p.extract::<u64>().map_err(|_| wrong())?);
            }
            Ok(())
        })
    }

    fn finish(&mut self) -> Result<(), ChooserError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        Python::with_gil(|py| self.deliver(py))
    }
}

/// Register class `cls` as policy `name` (`py:module:Class`) for this process.
#[pyfunction]
pub fn register_policy(name: &str, cls: &Bound<'_, PyAny>, summary: &str) -> PyResult<()> {
    external::split_spec(name).map_err(crate::errors::value_err)?;
    let qual: String = cls
        .getattr("__qualname__")
        .and_then(|q| q.extract())
        .unwrap_or_else(|_| name.to_string());
    external::register(
        name,
        summary,
        Arc::new(PyFactory {
            cls: cls.clone().unbind(),
            display: format!("{qual} ({name})"),
        }),
    );
    Ok(())
}

/// Lets the core find a `py:module:Class` name nobody registered: imports the class
/// (`wafer.policy._resolve`), which registers it.
pub fn install_resolver() {
    external::set_resolver(Box::new(|name: &str| {
        Python::with_gil(|py| {
            helper(py, "_resolve")
                .and_then(|f| f.call1((name,)))
                .map(|_| ())
                .map_err(|e| e.value(py).to_string())
        })?;
        external::lookup_registered(name)
            .ok_or_else(|| format!("`{name}` was not registered by its module"))
    }));
}
