//! What the CLI test binaries share: the `wafer` binary as a command, and the
//! repository's files.
// Each test binary uses its own share of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Environment a user's shell may set that changes what `wafer` prints: a backtrace
/// on panic, a memory limit. A test that wants one sets it again.
const CLEARED: [&str; 2] = ["RUST_BACKTRACE", "WAFER_MAX_MEMORY"];

/// The `wafer` binary.
pub fn wafer() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("wafer").expect("the wafer binary");
    for v in CLEARED {
        c.env_remove(v);
    }
    c
}

/// The `wafer` binary as a process to spawn, wait for or signal.
pub fn wafer_process() -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("wafer"));
    for v in CLEARED {
        c.env_remove(v);
    }
    c
}

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A trace bundled under `traces/`, which must be there.
pub fn bundled(name: &str) -> PathBuf {
    let p = repo().join("traces").join(name);
    assert!(p.exists(), "{} is missing from the repository", p.display());
    p
}
