//! Ctrl-C (SIGINT), SIGTERM and SIGHUP: one handler for the whole process, installed
//! before anything runs; the three are treated alike.
//!
//! A command that can stop cleanly (`run`, `reproduce`, `demo`: they keep every
//! finished cell and a rerun completes the grid) asks for [`graceful`] and gets the
//! flag the signal sets; the runner then starts no new cell, and the command exits
//! non-zero saying how many cells are stored. Any other command, or one interrupted
//! before it is ready to stop cleanly, ends at once with one line and status 130 (the
//! shell's convention for SIGINT); outputs are written atomically, so nothing is left
//! half-written either way.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};

static STOP: LazyLock<Arc<AtomicBool>> = LazyLock::new(|| Arc::new(AtomicBool::new(false)));
static GRACEFUL: AtomicBool = AtomicBool::new(false);

/// Install the handler (once, at start).
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        if GRACEFUL.load(Ordering::SeqCst) {
            STOP.store(true, Ordering::SeqCst);
        } else {
            eprintln!("wafer: interrupted");
            std::process::exit(130);
        }
    });
}

/// From now on a SIGINT asks the caller to stop through the returned flag.
pub fn graceful() -> Arc<AtomicBool> {
    let stop = Arc::clone(&STOP);
    GRACEFUL.store(true, Ordering::SeqCst);
    stop
}
