//! `wafer traces` and `wafer traces fetch` against a local `file://` mirror (no test
//! needs the network): a fetched trace is checked against the registry, a corrupted
//! one is refused and removed, a cut download resumes from its `.part` file, and an
//! experiment naming a missing public trace says which command fetches it.

use std::path::{Path, PathBuf};

use crate::common::{self, repo};

/// The MIT sample the repository carries: the one registry entry a test can serve.
const TPCC: &str = "disksim/tpcc-small.trace";

/// `wafer` seeing only `dest` (as WAFER_TRACES) and an empty data folder, with no
/// `shared/traces` beside the repository and `mirror` as the download source.
fn wafer(tmp: &Path, mirror: &Path) -> assert_cmd::Command {
    let mut c = common::wafer();
    c.env("WAFER_TRACES", tmp.join("dest"))
        .env("XDG_DATA_HOME", tmp.join("data"))
        .env("WAFER_NO_SHARED", "1")
        .env(
            "WAFER_TRACES_MIRROR",
            format!("file://{}", mirror.display()),
        );
    c
}

/// A mirror in the layout of the trace folders holding `bytes` as the sample.
fn mirror_with(tmp: &Path, bytes: &[u8]) -> PathBuf {
    let m = tmp.join("mirror");
    std::fs::create_dir_all(m.join("disksim")).unwrap();
    std::fs::write(m.join(TPCC), bytes).unwrap();
    m
}

fn sample() -> Vec<u8> {
    std::fs::read(repo().join("traces/third-party").join(TPCC)).unwrap()
}

#[test]
fn fetch_verifies_the_checksum_and_skips_what_is_there() {
    let tmp = tempfile::tempdir().unwrap();
    let m = mirror_with(tmp.path(), &sample());
    let out = wafer(tmp.path(), &m)
        .args(["traces", "fetch", "tpcc-small"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = tmp.path().join("dest").join(TPCC);
    assert_eq!(std::fs::read(&got).unwrap(), sample());
    assert!(!tmp
        .path()
        .join("dest/disksim/tpcc-small.trace.part")
        .exists());
    let again = wafer(tmp.path(), &m)
        .args(["traces", "fetch", "tpcc-small"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(again.stdout).unwrap();
    assert!(stdout.contains("tpcc-small: already there"), "{stdout}");
    // The list names every known trace and where the fetched one is.
    let list = wafer(tmp.path(), &m).arg("traces").output().unwrap();
    let stdout = String::from_utf8(list.stdout).unwrap();
    for k in wafer_lab::known_traces::KNOWN {
        assert!(stdout.contains(k.name), "{} not listed:\n{stdout}", k.name);
    }
    assert!(
        stdout.contains("missing: wafer traces fetch telegram_exec"),
        "{stdout}"
    );
}

#[test]
fn a_corrupted_download_is_refused_and_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bad = sample();
    bad[1000] ^= 0x20;
    let m = mirror_with(tmp.path(), &bad);
    let out = wafer(tmp.path(), &m)
        .args(["traces", "fetch", "tpcc-small"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("wafer: tpcc-small: ") && stderr.contains("checksum"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let dest = tmp.path().join("dest").join(TPCC);
    assert!(!dest.exists());
    assert!(!tmp
        .path()
        .join("dest/disksim/tpcc-small.trace.part")
        .exists());
}

#[test]
fn a_cut_download_resumes_from_its_part_file() {
    let tmp = tempfile::tempdir().unwrap();
    let good = sample();
    let cut = 70_000;
    // The mirror's head is garbage: only a download that continues after the part
    // file's bytes, instead of starting again, ends with the right trace.
    let mut served = good.clone();
    served[..cut].fill(b'x');
    let m = mirror_with(tmp.path(), &served);
    let part = tmp.path().join("dest/disksim/tpcc-small.trace.part");
    std::fs::create_dir_all(part.parent().unwrap()).unwrap();
    std::fs::write(&part, &good[..cut]).unwrap();
    let out = wafer(tmp.path(), &m)
        .args(["traces", "fetch", "tpcc-small"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read(tmp.path().join("dest").join(TPCC)).unwrap(),
        good
    );
    assert!(!part.exists());
}

#[test]
fn an_unknown_name_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let m = mirror_with(tmp.path(), b"");
    let out = wafer(tmp.path(), &m)
        .args(["traces", "fetch", "telegram_exe"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("did you mean `telegram_exec`"), "{stderr}");
}

/// Every example experiment needs the public Telegram trace: in a clone alone each
/// exits 2 naming the command that fetches it; where the trace is here, each plans.
#[test]
fn each_example_runs_or_names_its_fetch_command() {
    let tmp = tempfile::tempdir().unwrap();
    let m = mirror_with(tmp.path(), b"");
    let mut examples: Vec<PathBuf> = Vec::new();
    for dir in ["examples", "examples/sensitivity"] {
        for e in std::fs::read_dir(repo().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "toml") {
                examples.push(p);
            }
        }
    }
    assert_eq!(examples.len(), 6, "{examples:?}");
    for e in &examples {
        let out = wafer(tmp.path(), &m)
            .arg("run")
            .arg(e)
            .arg("-o")
            .arg(tmp.path().join("out"))
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{}: {stderr}", e.display());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("wafer: ")
                && stderr.contains("mobile-pixel6a/telegram_exec.csv.gz not found")
                && stderr.contains("`wafer traces fetch telegram_exec`"),
            "{}: {stderr}",
            e.display()
        );
        assert!(!tmp.path().join("out/results.csv").exists());
    }
    if wafer_testdata::trace("mobile-pixel6a/telegram_exec.csv.gz").is_some() {
        for e in &examples {
            wafer_lab::Experiment::load(e).unwrap_or_else(|err| panic!("{}: {err}", e.display()));
        }
    }
}
