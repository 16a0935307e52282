//! Bounds before work (docs/safety.md): a request that would take hours or all the
//! memory before its first result is refused up front, with the count, an estimate
//! and how to proceed, or capped with a note. Formerly `curve --points 4e9` took
//! 15.6 GB, 10^7 cells ran for minutes printing nothing, `--jobs 1000000` spawned
//! threads until the kernel refused, and a trace of a few requests expanded to
//! millions of pages without a word.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

use crate::common::{untimed, wafer, wafer_limited};

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
fn a_trace_whose_pages_need_more_than_the_memory_limit_is_streamed_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = wide_trace(dir.path(), 12);
    let sim = |policies: &str, extra: &[&str]| {
        let mut c = wafer();
        c.env("WAFER_MAX_MEMORY", "64MiB")
            .args(["sim", "-p", policies, "-c", "10p,20p", "-t"])
            .arg(&t)
            .args(extra);
        c
    };
    // An offline policy needs the trace in memory: refused, and told how to go on.
    let err = refused(&mut sim("opt", &[]), 1);
    assert!(
        err.contains("wide.csv: preparing the trace in memory would take more than the limit of 64 MiB (about "),
        "{err}"
    );
    assert!(
        err.contains("distinct pages); stream it instead: wafer sim --stream"),
        "{err}"
    );
    assert!(err.contains("WAFER_MAX_MEMORY=SIZE"), "{err}");
    // Otherwise the grid streams it by itself, says so in one line, and gives what
    // `--stream` gives.
    let run = |extra: &[&str]| {
        let out = sim("lru,fifo", extra).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success(), "{err}");
        (String::from_utf8(out.stdout).unwrap(), err)
    };
    let (chosen, err) = run(&[]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("wafer: "), "{err}");
    assert!(
        err.contains(
            "wide.csv: preparing the trace in memory would take more than the limit of 64 MiB"
        ),
        "{err}"
    );
    assert!(err.trim_end().ends_with("; streaming it"), "{err}");
    let (asked, err) = run(&["--stream"]);
    assert_eq!(err, "");
    assert_eq!(chosen, asked);
    assert!(chosen.contains("3145728 distinct pages"), "{chosen}");
}

/// A generated trace whose prepared arrays would take more than the memory it may use
/// is streamed from the start (its request count is known before any is generated),
/// one line on stderr says so, and the results are those of the trace prepared.
#[test]
fn a_generated_trace_too_large_for_memory_is_streamed_from_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let exp = dir.path().join("gen.toml");
    std::fs::write(
        &exp,
        r#"name = "gen"
traces = [{ gen = { kind = "zipf", requests = 20000, footprint = "64MiB", write_ratio = 0.3, seed = 3 }, name = "zipf" }]
policies = ["lru", "s3fifo"]
cache_sizes = ["1MiB", "5%"]
[outputs]
figures = []
report = false
"#,
    )
    .unwrap();
    let run = |out: &str, limit: Option<&str>| {
        let mut c = wafer();
        if let Some(l) = limit {
            c.env("WAFER_MAX_MEMORY", l);
        }
        let o = c
            .arg("run")
            .arg(&exp)
            .arg("-o")
            .arg(dir.path().join(out))
            .output()
            .unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        assert!(o.status.success(), "{err}");
        let rows: serde_json::Value = serde_json::from_slice(
            &std::fs::read(dir.path().join(out).join("results.json")).unwrap(),
        )
        .unwrap();
        (untimed(&rows), err)
    };
    let (prepared, err) = run("a", None);
    assert!(!err.contains("streaming"), "{err}");
    let (streamed, err) = run("b", Some("64KiB"));
    let said: Vec<&str> = err.lines().filter(|l| l.contains("streaming")).collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(
        said[0].starts_with("wafer: gen: zipf ")
            && said[0].contains("20000 requests take at least ")
            && said[0].ends_with("; streaming it"),
        "{err}"
    );
    assert_eq!(prepared.len(), 4);
    assert_eq!(prepared, streamed);
}

/// A single cell on a trace nobody prepared is streamed; when its densifier cannot
/// grow (an address-space limit, as `ulimit -v` sets) the run ends with one line
/// naming the trace and what could not be allocated, exit status 1: no abort, no
/// panic. Formerly the failed allocation aborted (in Python, the interpreter).
#[cfg(target_os = "linux")]
#[test]
fn a_streamed_cell_out_of_address_space_says_so_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    // 64 GiB of writes: 16,777,216 distinct pages, a densifier of about 640 MiB.
    let t = wide_trace(dir.path(), 64);
    let out = wafer_limited(786432)
        .args(["sim", "-p", "lru", "-c", "64p", "--jobs", "1", "-t"])
        .arg(&t)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with(&format!(
            "wafer: out of memory while densifying {}: could not allocate ",
            t.display()
        )),
        "{err}"
    );
    assert!(err.contains(" distinct pages so far)"), "{err}");
}
