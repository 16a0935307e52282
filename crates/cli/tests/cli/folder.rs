//! An output folder has one writer and holds only what wafer wrote: a second run on a
//! held folder is refused naming the holder; no output of a run replaces one of its
//! inputs or a file wafer did not write; what killed runs left is removed by the next
//! one; SIGTERM stops a run as Ctrl-C does; stored trace facts are reused only by runs
//! they fit.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{bundled, wafer_process as wafer};

/// An experiment file in `dir` over `trace` with `extra` settings.
fn experiment(dir: &Path, trace: &Path, extra: &str) -> PathBuf {
    let p = dir.join("exp.toml");
    std::fs::write(
        &p,
        format!(
            r#"name = "folder"
traces = [{{ path = "{}", name = "t" }}]
policies = ["lru", "clock", "fifo", "arc"]
cache_sizes = ["5%", "25%"]
{extra}
[outputs]
figures = ["hit-ratio"]
report = false
"#,
            trace.display()
        ),
    )
    .unwrap();
    p
}

fn run(exp: &Path, out: &Path) -> std::process::Output {
    wafer()
        .arg("run")
        .arg(exp)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

/// `results.json` without the wall-clock column.
fn results(out: &Path) -> Vec<serde_json::Map<String, Value>> {
    let text = std::fs::read(out.join("results.json")).unwrap();
    let mut rows: Vec<serde_json::Map<String, Value>> = serde_json::from_slice(&text).unwrap();
    for r in &mut rows {
        r.remove("elapsed_s");
    }
    rows
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// An experiment file at `path` over a generated million-request trace with a device
/// behind the cache: long enough to be running while a test acts on it.
fn zipf_grid(path: &Path, policies: &[&str], sizes: &[&str]) {
    let list = |v: &[&str]| {
        v.iter()
            .map(|x| format!("\"{x}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    std::fs::write(
        path,
        format!(
            r#"name = "long"
traces = [{{ gen = {{ kind = "zipf", requests = 1000000, footprint = "256MiB", write_ratio = 0.3, seed = 1 }}, name = "zipf" }}]
policies = [{}]
cache_sizes = [{}]
devices = ["microsd-16g"]
[outputs]
figures = ["hit-ratio"]
report = false
"#,
            list(policies),
            list(sizes)
        ),
    )
    .unwrap();
}

/// `wafer run exp -o out` started in the background.
fn spawn_run(exp: &Path, out: &Path) -> std::process::Child {
    wafer()
        .arg("run")
        .arg(exp)
        .arg("-o")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Hold `out`'s lock from this process as another wafer would, saying `who`.
fn hold(out: &Path, who: &str) -> std::fs::File {
    use std::os::fd::AsRawFd;
    std::fs::create_dir_all(out).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .open(out.join(".wafer-lock"))
        .unwrap();
    f.write_all(who.as_bytes()).unwrap();
    // SAFETY: flock on a descriptor this function owns.
    #[allow(unsafe_code)]
    let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    assert_eq!(r, 0);
    f
}

#[test]
fn a_held_folder_is_refused_naming_the_holder_then_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let exp = experiment(dir.path(), &bundled("sqlite-wal.wtr"), "");
    let out = dir.path().join("out");
    let lock = hold(&out, "pid 4242 on elsewhere\n");
    let o = run(&exp, &out);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let e = stderr(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("in use by wafer pid 4242 on elsewhere"), "{e}");
    assert!(!out.join("cells").exists() && !out.join("results.csv").exists());
    // The holder ended (its lock went with it): the folder is taken over.
    drop(lock);
    let o = run(&exp, &out);
    assert!(o.status.success(), "{}", stderr(&o));
    let lone = dir.path().join("lone");
    assert!(run(&exp, &lone).status.success());
    assert_eq!(results(&out), results(&lone));
}

#[test]
fn two_concurrent_runs_on_one_folder_one_refused_one_complete() {
    let dir = tempfile::tempdir().unwrap();
    // Long enough (a generated million requests, a device) to be running when the
    // second run starts.
    let p = dir.path().join("exp.toml");
    zipf_grid(&p, &["lru", "clock", "arc", "lirs"], &["1%", "5%"]);
    let out = dir.path().join("out");
    let first = spawn_run(&p, &out);
    let holder = format!("pid {} on ", first.id());
    let t0 = Instant::now();
    while !std::fs::read_to_string(out.join(".wafer-lock")).is_ok_and(|s| s.starts_with(&holder)) {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the first run never took the folder"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let second = run(&p, &out);
    let mut first = first;
    let still_running = first.try_wait().unwrap().is_none();
    let done = first.wait_with_output().unwrap();
    assert!(done.status.success(), "{}", stderr(&done));
    if still_running {
        assert_eq!(second.status.code(), Some(2), "{}", stderr(&second));
        assert!(stderr(&second).contains(&holder), "{}", stderr(&second));
    } else {
        eprintln!("the first run ended before the second started; nothing to refuse");
    }
    let lone = dir.path().join("lone");
    assert!(run(&p, &lone).status.success());
    assert_eq!(results(&out), results(&lone));
}

#[test]
fn an_input_where_an_output_goes_is_refused_in_every_spelling() {
    let names = [
        "results.csv",
        "results.json",
        "results.parquet",
        "provenance.json",
        "report.html",
    ];
    let original = std::fs::read(bundled("sqlite-wal.wtr")).unwrap();
    for name in names {
        for how in ["copy", "symlink", "hardlink", "dotted"] {
            let dir = tempfile::tempdir().unwrap();
            let out = dir.path().join("out");
            std::fs::create_dir_all(&out).unwrap();
            let elsewhere = dir.path().join("trace.wtr");
            std::fs::write(&elsewhere, &original).unwrap();
            let placed = out.join(name);
            let trace = match how {
                "copy" => {
                    std::fs::write(&placed, &original).unwrap();
                    placed.clone()
                }
                "symlink" => {
                    std::os::unix::fs::symlink(&elsewhere, &placed).unwrap();
                    elsewhere.clone()
                }
                "hardlink" => {
                    std::fs::hard_link(&elsewhere, &placed).unwrap();
                    elsewhere.clone()
                }
                _ => {
                    std::fs::write(&placed, &original).unwrap();
                    out.join(".").join(name)
                }
            };
            let exp = experiment(dir.path(), &trace, "");
            let o = run(&exp, &out);
            assert_eq!(o.status.code(), Some(2), "{name} {how}: {}", stderr(&o));
            assert!(
                stderr(&o).contains("an input of this run is where it writes its output"),
                "{name} {how}: {}",
                stderr(&o)
            );
            assert_eq!(std::fs::read(&placed).unwrap(), original, "{name} {how}");
            assert!(!out.join("cells").exists(), "{name} {how}");
        }
    }
}

#[test]
fn a_file_wafer_did_not_write_is_not_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let exp = experiment(dir.path(), &bundled("sqlite-wal.wtr"), "");
    let out = dir.path().join("mine");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("report.html"), b"my own notes").unwrap();
    let o = run(&exp, &out);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("report.html: exists and was not written by wafer"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(out.join("report.html")).unwrap(),
        b"my own notes"
    );
    assert!(!out.join(".wafer-lock").exists());
    // A folder a run has taken is wafer's: its own outputs are replaced on a rerun.
    std::fs::remove_file(out.join("report.html")).unwrap();
    assert!(run(&exp, &out).status.success());
    assert!(run(&exp, &out).status.success());
}

#[test]
fn what_killed_runs_left_is_removed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let exp = experiment(dir.path(), &bundled("sqlite-wal.wtr"), "");
    let out = dir.path().join("out");
    assert!(run(&exp, &out).status.success());
    let host = wafer_trace::tempfiles::host();
    // A pid above the kernel's limit (2^22) was never alive.
    let debris = [
        out.join("cells")
            .join(format!(".wafer-4194305@{host}~0-0123.json.tmp")),
        out.join("cells").join(".0123.json.tmp.4194305"),
        out.join(format!(".wafer-4194305@{host}~0-results.csv.tmp")),
    ];
    for d in &debris {
        std::fs::write(d, b"half a file").unwrap();
    }
    assert!(run(&exp, &out).status.success());
    for d in &debris {
        assert!(!d.exists(), "{} is still there", d.display());
    }

    // Beside a converted trace: the temporary of an ended writer goes, a living one's
    // (this process's) stays.
    let dead = dir.path().join(format!(".wafer-4194305@{host}~ab12.tmp"));
    let living = dir
        .path()
        .join(format!(".wafer-{}@{host}~cd34.tmp", std::process::id()));
    std::fs::write(&dead, b"x").unwrap();
    std::fs::write(&living, b"x").unwrap();
    let o = wafer()
        .args(["trace", "convert"])
        .arg(bundled("sqlite-wal.wtr"))
        .arg(dir.path().join("copy.csv"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!dead.exists());
    assert!(living.exists());
}

#[test]
fn sigterm_stops_a_run_as_ctrl_c_does() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("exp.toml");
    zipf_grid(
        &p,
        &["lru", "clock", "arc", "lirs", "fifo", "sieve"],
        &["1%", "5%", "20%"],
    );
    let out = dir.path().join("out");
    let child = spawn_run(&p, &out);
    let t0 = Instant::now();
    while !out.join("cells").is_dir() && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let o = child.wait_with_output().unwrap();
    let e = stderr(&o);
    if o.status.success() {
        eprintln!("the run finished before the signal");
        return;
    }
    let line = e.lines().last().unwrap_or_default();
    assert!(
        line.starts_with("wafer: interrupted: ")
            && line.ends_with(" cells are stored; run the same command again to finish"),
        "{e}"
    );
}

/// Percentage sizes resolve against the footprint at the run's page size: a stream
/// run at 64 KiB pages into a folder where one at 4 KiB ran gives the cells a fresh
/// folder gives.
#[test]
fn stream_runs_at_two_page_sizes_share_a_folder_correctly() {
    let dir = tempfile::tempdir().unwrap();
    let trace = bundled("sqlite-wal.wtr");
    let shared = dir.path().join("shared");
    for page in ["4KiB", "64KiB"] {
        let sub = dir.path().join(page);
        std::fs::create_dir_all(&sub).unwrap();
        let exp = experiment(
            &sub,
            &trace,
            &format!("stream = true\npage_size = \"{page}\""),
        );
        let o = run(&exp, &shared);
        assert!(o.status.success(), "{}", stderr(&o));
        let fresh = sub.join("fresh");
        let o = run(&exp, &fresh);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(results(&shared), results(&fresh), "{page}");
    }
}
