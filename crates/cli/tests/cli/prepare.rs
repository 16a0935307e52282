//! `wafer trace prepare` end to end: runs on a prepared trace give the results of
//! runs on the trace itself (several policies, both granularities); a prepared file
//! that does not fit the run (other granularity, stale trace) is not used and one
//! line says so; a damaged one is a one-line error naming it, exit 1.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{untimed, wafer};

/// The bundled fileserver capture (reads and writes), copied into `dir` so that its
/// prepared file is written there.
fn fileserver(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/fileserver.wtr");
    let t = dir.join("fileserver.wtr");
    std::fs::copy(src, &t).unwrap();
    t
}

/// Policies of every kind: list, clock, composite, flash-aware, block-aware, offline.
const POLICIES: &str = "lru,clock:insert_ref=0,arc,ts-clock,bplru,opt";

/// `wafer sim --json` rows without their timings, and stderr.
fn sim(trace: &Path, extra: &[&str]) -> (Vec<Value>, String) {
    let out = wafer()
        .args(["sim", "-t"])
        .arg(trace)
        .args(["-p", POLICIES, "-c", "3%,200p", "--json"])
        .args(extra)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{err}");
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    (untimed(&rows), err)
}

fn prepare(trace: &Path, extra: &[&str]) -> String {
    let out = wafer()
        .args(["trace", "prepare"])
        .arg(trace)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn wprep(trace: &Path) -> PathBuf {
    PathBuf::from(format!("{}.wprep", trace.display()))
}

#[test]
fn prepared_runs_equal_unprepared_runs() {
    for gran in [&["--granularity", "page"][..], &["--granularity", "record"]] {
        let dir = tempfile::tempdir().unwrap();
        let t = fileserver(dir.path());
        let (plain, _) = sim(&t, gran);
        let said = prepare(&t, gran);
        assert!(said.contains("fileserver.wtr.wprep"), "{said}");
        assert!(wprep(&t).exists());
        let (kept, err) = sim(&t, gran);
        assert_eq!(err, "", "a fitting prepared file is used silently");
        assert_eq!(plain.len(), 12);
        assert_eq!(plain, kept, "{gran:?}");
    }
}

/// A single run with no prepared file streams the trace (nothing to share), a grid
/// prepares it in memory, and a kept file is mapped: all three give the same rows,
/// for every kind of policy (the offline one is prepared whatever the run).
#[test]
fn single_runs_streamed_equal_runs_over_the_mapped_file() {
    let dir = tempfile::tempdir().unwrap();
    let t = fileserver(dir.path());
    let one = |policy: &str| {
        let out = wafer()
            .args(["sim", "-t"])
            .arg(&t)
            .args(["-p", policy, "-c", "200p", "--json"])
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(out.status.success(), "{err}");
        let mut rows: Value = serde_json::from_slice(&out.stdout).unwrap();
        let row = rows.as_array_mut().unwrap().remove(0);
        row.as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| !k.contains("elapsed"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Vec<_>>()
    };
    let policies: Vec<&str> = POLICIES.split(',').collect();
    let first: Vec<_> = policies.iter().map(|p| one(p)).collect();
    let (grid, _) = sim(&t, &[]);
    prepare(&t, &[]);
    let mapped: Vec<_> = policies.iter().map(|p| one(p)).collect();
    assert_eq!(first, mapped);
    for (p, row) in policies.iter().zip(&first) {
        let same = grid
            .iter()
            .find(|g| g["policy"] == *p && g["cache"] == "200p");
        let same: Vec<_> = same
            .unwrap()
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(&same, row, "{p}");
    }
}

#[test]
fn prepared_file_for_another_granularity_or_a_changed_trace_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let t = fileserver(dir.path());
    let (record, _) = sim(&t, &["--granularity", "record"]);
    let (pages8k, _) = sim(&t, &["--page-size", "8KiB"]);
    prepare(&t, &[]);
    let (rows, err) = sim(&t, &["--granularity", "record"]);
    assert_eq!(rows, record);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("was prepared for 4 KiB pages, this run uses record accesses"),
        "{err}"
    );
    let (rows, err) = sim(&t, &["--page-size", "8KiB"]);
    assert_eq!(rows, pages8k);
    assert!(err.contains("this run uses 8 KiB pages"), "{err}");

    // The trace changes under its prepared file: the run uses the new trace.
    let csv = dir.path().join("t.csv");
    let rows_of = |n: u64| {
        let mut s = String::from("time_ns,op,dev,offset,len\n");
        for i in 0..n {
            s += &format!(
                "{i},{},0,{},4096\n",
                if i % 3 == 0 { 'W' } else { 'R' },
                (i * 7 % 50) * 4096
            );
        }
        s
    };
    std::fs::write(&csv, rows_of(300)).unwrap();
    prepare(&csv, &[]);
    std::fs::write(&csv, rows_of(400)).unwrap();
    let (rows, err) = sim(&csv, &[]);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("is stale: "), "{err}");
    assert!(err.contains("t.csv changed since it was prepared"), "{err}");
    assert_eq!(rows[0]["accesses"], 400);
    std::fs::remove_file(wprep(&csv)).unwrap();
    assert_eq!(sim(&csv, &[]).0, rows);
}

#[test]
fn damaged_prepared_file_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let t = fileserver(dir.path());
    prepare(&t, &[]);
    let p = wprep(&t);
    let good = std::fs::read(&p).unwrap();
    let mut flipped = good.clone();
    let n = flipped.len();
    flipped[n - 100] ^= 0x10;
    for (bytes, want) in [
        (good[..good.len() / 2].to_vec(), "damaged prepared trace"),
        (flipped, "checksum mismatch"),
        (
            b"not a prepared trace at all".to_vec(),
            "not a prepared trace",
        ),
    ] {
        std::fs::write(&p, bytes).unwrap();
        let out = wafer()
            .args(["sim", "-t"])
            .arg(&t)
            .args(["-p", "lru", "-c", "5%"])
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("wafer: "), "{err}");
        assert!(err.contains(&p.display().to_string()), "{err}");
        assert!(err.contains(want), "want {want} in {err}");
    }
}

/// `wafer curve` rows (CSV text) and stderr.
fn curve(trace: &Path) -> (String, String) {
    let csv = trace.with_extension("curve.csv");
    let out = wafer()
        .args(["curve", "-t"])
        .arg(trace)
        .args(["-p", "lru,arc", "--points", "8", "--rate", "0.5", "--csv"])
        .arg(&csv)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{err}");
    (std::fs::read_to_string(&csv).unwrap(), err)
}

/// `wafer curve` uses the prepared file as `wafer sim` does: the same rows with it
/// as without, and a damaged one is refused, naming it.
#[test]
fn curves_use_the_prepared_file() {
    let dir = tempfile::tempdir().unwrap();
    let t = fileserver(dir.path());
    let (before, err) = curve(&t);
    assert!(before.contains("lru,exact"), "{err}");
    prepare(&t, &[]);
    let (after, err) = curve(&t);
    assert_eq!(after, before, "{err}");
    let p = wprep(&t);
    let good = std::fs::read(&p).unwrap();
    std::fs::write(&p, &good[..good.len() / 2]).unwrap();
    let out = wafer().args(["curve", "-t"]).arg(&t).output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains(&p.display().to_string()), "{err}");
}

/// A `TRACE.wprep` that is a symlink or a hard link to the trace is refused (status 2)
/// and the trace stays as it was: the prepared file was written through the link,
/// over the trace.
#[test]
fn a_prepared_file_that_is_the_trace_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t = fileserver(dir.path());
    let before = std::fs::read(&t).unwrap();
    for hard in [false, true] {
        let w = wprep(&t);
        let _ = std::fs::remove_file(&w);
        if hard {
            std::fs::hard_link(&t, &w).unwrap();
        } else {
            std::os::unix::fs::symlink(&t, &w).unwrap();
        }
        let out = wafer().args(["trace", "prepare"]).arg(&t).output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("is the input"), "{err}");
        assert_eq!(std::fs::read(&t).unwrap(), before, "hard link: {hard}");
    }
}
