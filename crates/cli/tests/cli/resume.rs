//! `wafer run` killed midway (SIGKILL) and run again: the results equal an
//! uninterrupted run's in every metric, and the cells stored before the kill are
//! reused, not recomputed (their files keep inode and mtime; the run reports them).

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use crate::common::wafer_process as wafer;

/// The grid of the test over the Telegram trace (long enough to be killed mid-run),
/// or `None` where that trace is absent outside CI.
fn experiment(dir: &Path) -> Option<PathBuf> {
    let trace = wafer_testdata::trace("mobile-pixel6a/telegram_exec.csv.gz")?;
    let trace = trace.display();
    let p = dir.join("grid.toml");
    std::fs::write(
        &p,
        format!(
            r#"name = "resume"
traces = [{{ path = "{trace}", name = "telegram" }}]
policies = ["lru", "clock", "fifo", "sieve", "arc", "s3fifo"]
cache_sizes = ["1MiB", "8MiB", "64MiB"]
[outputs]
figures = ["hit-ratio"]
"#
        ),
    )
    .unwrap();
    Some(p)
}

/// Stored cell files: name -> (inode, mtime).
fn cells(out: &Path) -> BTreeMap<String, (u64, SystemTime)> {
    let Ok(dir) = std::fs::read_dir(out.join("cells")) else {
        return BTreeMap::new();
    };
    dir.flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| {
            let m = e.metadata().unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                (m.ino(), m.modified().unwrap()),
            )
        })
        .collect()
}

/// `results.json` without the wall-clock column.
fn results(out: &Path) -> Vec<serde_json::Map<String, Value>> {
    let text = std::fs::read(out.join("results.json")).unwrap();
    let mut rows: Vec<serde_json::Map<String, Value>> = serde_json::from_slice(&text).unwrap();
    for r in &mut rows {
        assert!(r.remove("elapsed_s").is_some());
    }
    rows
}

/// `(computed, reused)` from the run's summary line.
fn summary(stdout: &[u8]) -> (usize, usize) {
    let text = String::from_utf8_lossy(stdout);
    let line = text
        .lines()
        .find(|l| l.contains(" cells: computed "))
        .unwrap_or_else(|| panic!("no summary in {text}"));
    let num = |key: &str| -> usize {
        let rest = &line[line.find(key).unwrap() + key.len()..];
        rest.split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    (num("computed "), num("reused "))
}

#[test]
fn a_killed_run_resumes_to_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let Some(exp) = experiment(dir.path()) else {
        return;
    };
    let total = 18;

    let reference = dir.path().join("reference");
    let out = wafer()
        .arg("run")
        .arg(&exp)
        .arg("-o")
        .arg(&reference)
        .args(["--jobs", "1"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(summary(&out.stdout), (total, 0));

    let killed = dir.path().join("killed");
    let mut child = wafer()
        .arg("run")
        .arg(&exp)
        .arg("-o")
        .arg(&killed)
        .args(["--jobs", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while cells(&killed).len() < 3 {
        assert!(
            t0.elapsed() < Duration::from_secs(300),
            "no cells stored in 5 minutes"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it could be killed"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before = cells(&killed);
    assert!(
        before.len() >= 3 && before.len() < total,
        "killed with {} of {total} cells stored; the grid is too small to test a resume",
        before.len()
    );
    assert!(
        !killed.join("results.json").exists(),
        "killed before the tables"
    );

    let out = wafer()
        .arg("run")
        .arg(&exp)
        .arg("-o")
        .arg(&killed)
        .args(["--jobs", "2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (computed, reused) = summary(&out.stdout);
    assert_eq!(reused, before.len(), "every stored cell is reused");
    assert_eq!(computed + reused, total);
    let after = cells(&killed);
    assert_eq!(after.len(), total);
    for (name, meta) in &before {
        assert_eq!(
            after.get(name),
            Some(meta),
            "{name} was rewritten by the rerun"
        );
    }
    let temporaries: Vec<_> = std::fs::read_dir(killed.join("cells"))
        .unwrap()
        .flatten()
        .filter(|e| wafer_trace::tempfiles::is_temporary(&e.file_name().to_string_lossy()))
        .collect();
    assert!(temporaries.is_empty(), "{temporaries:?}");

    let (a, b) = (results(&reference), results(&killed));
    assert_eq!(a.len(), total);
    assert_eq!(a, b, "resumed results differ from the uninterrupted run's");
    assert!(killed.join("results.parquet").is_file());
}

/// A grid over the bundled SQLite capture (runs from a clone alone).
fn bundled_experiment(dir: &Path) -> PathBuf {
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/sqlite-wal.wtr");
    let p = dir.join("sigint.toml");
    std::fs::write(
        &p,
        format!(
            r#"name = "sigint"
traces = [{{ path = "{trace}", name = "sqlite" }}]
policies = ["lru", "clock", "fifo", "arc", "lirs", "s3fifo", "ts-clock", "cflru"]
cache_sizes = ["2%", "5%", "10%", "25%"]
devices = ["microsd-16g"]
[outputs]
figures = ["hit-ratio"]
report = false
"#
        ),
    )
    .unwrap();
    p
}

/// SIGINT at 20 moments spread over a run: an interrupted run exits non-zero and says
/// how many cells are stored (their files are there); one that finished first exits 0
/// with every cell; a rerun then completes to the uninterrupted results. (A run whose
/// workers all returned early after the signal used to print the normal lines and exit
/// 0 with part of the grid.)
#[test]
fn sigint_at_any_moment_stops_with_a_count_and_resumes_identically() {
    let dir = tempfile::tempdir().unwrap();
    let exp = bundled_experiment(dir.path());
    let total = 32;
    let reference = dir.path().join("reference");
    let t0 = Instant::now();
    let out = wafer()
        .arg("run")
        .arg(&exp)
        .arg("-o")
        .arg(&reference)
        .output()
        .unwrap();
    let span = t0.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let want = results(&reference);
    assert_eq!(want.len(), total);

    let (mut interrupted, mut finished) = (0, 0);
    for trial in 0..20u32 {
        let out_dir = dir.path().join(format!("t{trial}"));
        let child = wafer()
            .arg("run")
            .arg(&exp)
            .arg("-o")
            .arg(&out_dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Moments from just after the start (the handler is the first thing `wafer`
        // installs) to past the end of a whole run, evenly spread.
        std::thread::sleep(Duration::from_millis(20) + span.mul_f64(f64::from(trial) / 16.0));
        let _ = std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let stored = cells(&out_dir).len();
        if out.status.success() {
            finished += 1;
            assert_eq!(
                stored, total,
                "trial {trial}: exit 0 with a partial grid: {err}"
            );
        } else {
            interrupted += 1;
            let line = err.lines().last().unwrap_or_default();
            assert_eq!(
                line,
                format!(
                    "wafer: interrupted: {stored} of {total} cells are stored; run the same command again to finish"
                ),
                "trial {trial}"
            );
        }
        let rerun = wafer()
            .arg("run")
            .arg(&exp)
            .arg("-o")
            .arg(&out_dir)
            .output()
            .unwrap();
        assert!(
            rerun.status.success(),
            "{}",
            String::from_utf8_lossy(&rerun.stderr)
        );
        assert_eq!(
            results(&out_dir),
            want,
            "trial {trial}: the resumed grid differs"
        );
    }
    eprintln!("{interrupted} runs interrupted, {finished} finished before the signal");
    assert!(
        interrupted > 0,
        "no trial interrupted a run ({finished} finished first)"
    );
}
