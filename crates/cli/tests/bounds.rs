//! Bounds before work (docs/safety.md): a request that would take hours or all the
//! memory before its first result is refused up front, with the count, an estimate
//! and how to proceed, or capped with a note. Formerly `curve --points 4e9` took
//! 15.6 GB, 10^7 cells ran for minutes printing nothing, `--jobs 1000000` spawned
//! threads until the kernel refused, and a trace of a few requests expanded to
//! millions of pages without a word.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

mod common;
use common::wafer;

/// A trace the repository carries (`traces/README.md`).
const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/fileserver.wtr");

/// Runs `c`, asserting exit status `code` and one line on stderr; returns the line.
fn refused(c: &mut Command, code: i32) -> String {
    let out = c.output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

#[test]
fn a_grid_beyond_the_cell_limit_is_refused_before_it_is_listed() {
    let sizes: Vec<String> = (1..=20_001).map(|i| format!("{i}p")).collect();
    let t0 = std::time::Instant::now();
    let err = refused(
        wafer()
            .args(["sim", "-t", TRACE, "-p", "lru,fifo,clock,sieve,arc", "-c"])
            .arg(sizes.join(",")),
        2,
    );
    assert!(
        err.starts_with("wafer: --max-cells: the grid has 100005 cells"),
        "{err}"
    );
    assert!(err.contains("more than the limit of 100000"), "{err}");
    assert!(err.contains("--max-cells 100005"), "{err}");
    assert!(t0.elapsed().as_secs() < 20, "{:?}", t0.elapsed());
}

#[test]
fn curve_points_beyond_the_bound_are_refused_with_an_estimate() {
    let err = refused(
        wafer().args(["curve", "-t", TRACE, "--points", "4000000000"]),
        2,
    );
    assert!(
        err.starts_with("wafer: --points: 4000000000 sizes would take at least "),
        "{err}"
    );
    assert!(err.contains("TiB"), "{err}");
    assert!(err.contains("at most 100000 sizes"), "{err}");
}

#[test]
fn jobs_beyond_the_cores_are_capped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let exp = dir.path().join("exp.toml");
    std::fs::write(
        &exp,
        format!(
            "name = \"t\"\ntraces = [{{ path = \"{TRACE}\" }}]\npolicies = [\"lru\", \"clock\"]\ncache_sizes = [\"64p\"]\noutputs = {{ figures = [], report = false }}\n"
        ),
    )
    .unwrap();
    let out = wafer()
        .args(["run"])
        .arg(&exp)
        .arg("-o")
        .arg(dir.path().join("out"))
        .args(["--jobs", "1000000"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(
        err.contains(&format!(
            "wafer: note: 1000000 jobs asked for, more than the {cores} cores here; running {cores}\n"
        )),
        "{err}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&format!("({cores} workers, ")), "{stdout}");
}

/// A wafer CSV trace of `n` writes of 1 GiB each: a few hundred bytes on disk,
/// 262,144 distinct pages per request.
fn wide_trace(dir: &Path, n: u64) -> PathBuf {
    let p = dir.join("wide.csv");
    let mut text = String::from("time_ns,op,dev,offset,len\n");
    for i in 0..n {
        text.push_str(&format!("{i},W,0,{},{}\n", i << 30, 1u64 << 30));
    }
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_trace_whose_pages_need_more_than_the_memory_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = wide_trace(dir.path(), 12);
    let sim = |extra: &[&str]| {
        let mut c = wafer();
        c.env("WAFER_MAX_MEMORY", "64MiB")
            .args(["sim", "-p", "lru", "-c", "10p", "-t"])
            .arg(&t)
            .args(extra);
        c
    };
    let err = refused(&mut sim(&[]), 1);
    assert!(
        err.contains("wide.csv: preparing the trace in memory would take more than the limit of 64 MiB (about "),
        "{err}"
    );
    assert!(
        err.contains("distinct pages); stream it instead: wafer sim --stream"),
        "{err}"
    );
    assert!(err.contains("WAFER_MAX_MEMORY=SIZE"), "{err}");
    // Streamed, the same trace runs.
    let out = sim(&["--stream"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("3145728 distinct pages"));
}
