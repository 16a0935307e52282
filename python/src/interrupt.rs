//! Ctrl-C during a long call. The work runs on a thread of its own while the calling
//! thread, with the GIL released, waits for it in steps of 100 ms and runs Python's
//! signal handlers in between ([`Python::check_signals`]): a SIGINT raises
//! `KeyboardInterrupt` within about 100 ms instead of when the call returns. The
//! runner is told to stop through its flag (`RunOptions::stop`): it starts no new
//! cell, and the work left (a cell or a trace being read) ends in the background and
//! is discarded.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use pyo3::prelude::*;

use crate::errors::WaferError;

/// How often the calling thread looks for signals.
const POLL: Duration = Duration::from_millis(100);

/// Run `work` on its own thread; a signal handler that raises (Ctrl-C) sets `stop`
/// and raises in the caller at once.
pub fn run<T: Send + 'static>(
    py: Python<'_>,
    stop: Arc<AtomicBool>,
    work: impl FnOnce() -> PyResult<T> + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = mpsc::channel::<PyResult<T>>();
    std::thread::Builder::new()
        .name("wafer-run".into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .map_err(|e| WaferError::new_err(format!("cannot start the run's thread: {e}")))?;
    let mut rx = rx;
    loop {
        // The receiver goes into the GIL-free closure and back (it is Send, not Sync).
        let (got, back) = py.allow_threads(move || (rx.recv_timeout(POLL), rx));
        rx = back;
        match got {
            Ok(result) => return result,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    stop.store(true, Ordering::SeqCst);
                    return Err(e);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(WaferError::new_err(
                    "internal error: the run ended without a result",
                ))
            }
        }
    }
}
