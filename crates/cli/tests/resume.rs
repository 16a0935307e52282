//! `wafer run` killed midway (SIGKILL) and run again: the results equal an
//! uninterrupted run's in every metric, and the cells stored before the kill are
//! reused, not recomputed (their files keep inode and mtime; the run reports them).

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

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

fn wafer() -> Command {
    Command::new(assert_cmd::cargo::cargo_bin("wafer"))
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
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp."))
        .collect();
    assert!(temporaries.is_empty(), "{temporaries:?}");

    let (a, b) = (results(&reference), results(&killed));
    assert_eq!(a.len(), total);
    assert_eq!(a, b, "resumed results differ from the uninterrupted run's");
    assert!(killed.join("results.parquet").is_file());
}
