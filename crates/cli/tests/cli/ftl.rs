//! `wafer ftl` and `wafer ftl sweep` end to end on a small TOML device and a synthetic
//! MSR trace whose costs follow by hand.

use std::path::{Path, PathBuf};

use crate::common::wafer;

/// 8 MiB logical, 64 x 4 KiB pages per block, 25% OP: 32 logical, 40 physical blocks.
const DEVICE: &str = "name = \"tiny\"\nftl = \"page\"\ncapacity = \"8MiB\"\nop = 0.25\n\
page_size = \"4KiB\"\npages_per_block = 64\ncell = \"mlc\"\nread_us = 25\nprogram_us = 200\n\
erase_us = 1500\n";

fn files(dir: &Path, trace: &str) -> (PathBuf, PathBuf) {
    let dev = dir.join("tiny.toml");
    std::fs::write(&dev, DEVICE).unwrap();
    let t = dir.join("trace.csv");
    std::fs::write(&t, trace).unwrap();
    (dev, t)
}

/// MSR lines: FILETIME ticks of 100 ns.
fn msr(ticks: u64, op: &str, offset: u64, size: u64) -> String {
    format!("{ticks},host,0,{op},{offset},{size},0\n")
}

#[test]
fn replay_reports_json_metrics_and_lifetime() {
    let dir = tempfile::tempdir().unwrap();
    // Four whole-block writes of the first two blocks over 10 s, one read of a written
    // and one of a never-written page.
    let mut trace = String::new();
    for i in 0..4u64 {
        trace += &msr(i * 25_000_000, "Write", (i % 2) * 262_144, 262_144);
    }
    trace += &msr(90_000_000, "Read", 4096, 4096);
    trace += &msr(100_000_000, "Read", 1 << 20, 4096);
    let (dev, t) = files(dir.path(), &trace);
    for ftl in ["page", "fast", "block"] {
        let dev_text = DEVICE.replace("ftl = \"page\"", &format!("ftl = \"{ftl}\""));
        std::fs::write(&dev, dev_text).unwrap();
        let out = wafer()
            .args(["ftl", "-t"])
            .arg(&t)
            .arg("-d")
            .arg(&dev)
            .arg("--json")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let m = &v["metrics"];
        assert_eq!(m["ftl"], ftl);
        assert_eq!(m["host_write_pages"], 256);
        assert_eq!(m["host_read_pages"], 2);
        assert_eq!(m["unwritten_reads"], 1);
        assert_eq!(m["flash_reads_host"], 1);
        assert_eq!(m["waf"], 1.0, "{ftl}: whole-block writes");
        assert_eq!(v["replay"]["requests"], 6);
        let l = &m["lifetime"];
        assert_eq!(l["pe_limit"], 3000);
        assert!((l["window_s"].as_f64().unwrap() - 10.0).abs() < 1e-9);
        assert_eq!(v["device"]["geometry"]["physical_blocks"], 40);
    }
}

#[test]
fn aging_and_text_output() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, t) = files(dir.path(), &msr(0, "Write", 0, 4096));
    let out = wafer()
        .args(["ftl", "-t"])
        .arg(&t)
        .arg("-d")
        .arg(&dev)
        .args(["--aging", "--aging-volume", "4MiB"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("precondition  fill + 4 MiB"), "{text}");
    // Counters were reset after aging: the window holds the trace's one page.
    assert!(
        text.contains("0 read (0 never written), 1 written"),
        "{text}"
    );
}

#[test]
fn bad_input_is_one_line_and_nonzero() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, t) = files(dir.path(), &msr(0, "Write", 64 << 20, 4096));
    let out = wafer()
        .args(["ftl", "-t"])
        .arg(&t)
        .arg("-d")
        .arg(&dev)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("wafer: ") && err.contains("request 1") && err.contains("--map"),
        "{err}"
    );

    let out = wafer()
        .args(["ftl", "-t"])
        .arg(&t)
        .args(["-d", "no-such-device"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("wafer: ") && err.contains("microsd-16g"),
        "{err}"
    );

    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "ftl = \"page\"\n").unwrap();
    let out = wafer()
        .args(["ftl", "-t"])
        .arg(&t)
        .arg("-d")
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("wafer: ") && err.contains("bad.toml: line 1: missing field"),
        "{err}"
    );

    let out = wafer().args(["ftl", "-d", "microsd-16g"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn sweep_json_falls_to_one_at_full_utilization() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, _) = files(dir.path(), "");
    let csv = dir.path().join("fig1.csv");
    let out = wafer()
        .args(["ftl", "sweep", "-d"])
        .arg(&dev)
        .args([
            "--range",
            "8MiB",
            "--util",
            "25,100",
            "--warmup",
            "1",
            "--measure",
            "1",
            "--json",
        ])
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4); // fast, page x 25%, 100%
    for pair in rows.chunks(2) {
        let (low, full) = (
            pair[0]["waf"].as_f64().unwrap(),
            pair[1]["waf"].as_f64().unwrap(),
        );
        assert!(low > 1.0 && full == 1.0, "{pair:?}");
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("ftl,utilization,range_bytes"));
    assert_eq!(text.lines().count(), 5);
}
