//! What the CLI's test modules share: the `wafer` binary as a command, and the
//! repository's files.

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

/// The `wafer` binary run by `sh` under an address-space limit of `kib` KiB (`ulimit
/// -v`); the arguments added go to `wafer`.
pub fn wafer_limited(kib: u64) -> std::process::Command {
    let mut c = std::process::Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(assert_cmd::cargo::cargo_bin("wafer"));
    for v in CLEARED {
        c.env_remove(v);
    }
    c
}

/// Result rows (a JSON array: `--json`, `results.json`) without their timing columns
/// (`elapsed`), which differ from run to run.
pub fn untimed(rows: &serde_json::Value) -> Vec<serde_json::Value> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.as_object_mut()
                .unwrap()
                .retain(|k, _| !k.contains("elapsed"));
            r
        })
        .collect()
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
