//! Where wafer's tests find the public third-party traces (`../shared/traces` beside
//! the repository, or the folder `WAFER_TRACES` names), and what a test does when one
//! is absent.
//!
//! The repository carries only what it may redistribute: its own captures, generated
//! and hand-written fixtures, and the few public traces whose licence allows it, under
//! `traces/third-party/` in the same layout (found there first). The other public
//! traces stay outside it. A test that needs one calls [`trace`]: where the file is
//! missing, the test is
//! skipped with one line on the terminal naming the test and the file (written past
//! the test harness's output capture, so that a skip is never silent), unless
//! `CI=true` or `WAFER_REQUIRE_TRACES=1`, where a missing trace fails the test: CI
//! always has the folder.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The folder of public traces: `$WAFER_TRACES`, else `../shared/traces` beside the
/// repository.
pub fn dir() -> PathBuf {
    match std::env::var_os("WAFER_TRACES") {
        Some(d) => PathBuf::from(d),
        None => repository()
            .parent()
            .unwrap_or(Path::new("/"))
            .join("shared/traces"),
    }
}

/// The repository's root (this crate sits in `crates/testdata`).
fn repository() -> &'static Path {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors().nth(2).unwrap_or(here)
}

/// Whether a missing trace must fail the test instead of skipping it.
pub fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("WAFER_REQUIRE_TRACES").is_ok_and(|v| v == "1")
}

/// The public trace `rel` (a path under [`dir`]; the repository's own copy under
/// `traces/third-party/` first), or `None` after one visible line saying which test
/// is skipped for want of which file. Panics instead when [`required`].
pub fn trace(rel: &str) -> Option<PathBuf> {
    let bundled = repository().join("traces/third-party");
    if bundled.join(rel).is_file() {
        return Some(bundled.join(rel));
    }
    let p = dir().join(rel);
    if p.exists() {
        return Some(p);
    }
    assert!(
        !required(),
        "{} is missing (CI needs the public traces: ../shared/traces beside the \
         repository, or WAFER_TRACES)",
        p.display()
    );
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    // Straight to the file descriptor: the harness captures `eprintln!` of passing
    // tests, and a skip must be seen.
    let _ = writeln!(
        std::io::stderr(),
        "skipped: {test} needs {} (a third-party trace the repository does not carry; \
         set WAFER_TRACES, which `WAFER_TRACES=DIR wafer traces fetch` fills, or put \
         shared/traces beside the clone)",
        p.display()
    );
    None
}
