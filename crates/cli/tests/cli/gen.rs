//! `wafer trace gen` end to end: byte-identical files per seed, the file holds
//! exactly what the library generator produces, and clear usage errors.

use predicates::prelude::*;
use std::path::Path;
use wafer_trace::gen::GenSpec;
use wafer_trace::{ReadOptions, Request};

use crate::common::wafer;

fn gen(args: &[&str], out: &Path) {
    wafer()
        .args(["trace", "gen"])
        .args(args)
        .arg("-o")
        .arg(out)
        .assert()
        .success();
}

fn read_back(path: &Path) -> Vec<Request> {
    let mut r = wafer_trace::open(path, &ReadOptions::default()).expect("readable");
    let (mut all, mut batch) = (Vec::new(), Vec::new());
    while r.read_batch(&mut batch).expect("decodes") {
        all.extend_from_slice(&batch);
    }
    all
}

#[test]
fn same_seed_gives_byte_identical_files() {
    let dir = tempfile::tempdir().unwrap();
    for ext in ["wtr", "csv"] {
        let path = |name: &str| dir.path().join(format!("{name}.{ext}"));
        let args = [
            "zipf",
            "--theta",
            "0.9",
            "--requests",
            "20000",
            "--arrival",
            "poisson:1ms",
        ];
        gen(&[&args[..], &["--seed", "3"]].concat(), &path("a"));
        gen(&[&args[..], &["--seed", "3"]].concat(), &path("b"));
        gen(&[&args[..], &["--seed", "4"]].concat(), &path("c"));
        let (a, b, c) = (
            std::fs::read(path("a")).unwrap(),
            std::fs::read(path("b")).unwrap(),
            std::fs::read(path("c")).unwrap(),
        );
        assert!(!a.is_empty());
        assert_eq!(a, b, "{ext}: same seed, same bytes");
        assert_ne!(a, c, "{ext}: another seed, another trace");
    }
}

#[test]
fn the_file_holds_exactly_the_generators_requests() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], &str); 3] = [
        (
            &[
                "block-utilization",
                "--utilization",
                "50",
                "--range",
                "1GiB",
                "--bytes",
                "64MiB",
            ],
            r#"{"kind":"block-utilization","utilization":50,"range":"1GiB","bytes":"64MiB"}"#,
        ),
        (
            &["thrash", "--cache", "16MiB", "--seed", "7"],
            r#"{"kind":"thrash","cache":"16MiB","seed":7}"#,
        ),
        (
            &[
                "uniform",
                "--size",
                "4KiB..64KiB",
                "--write-ratio",
                "0.3",
                "--requests",
                "3000",
            ],
            r#"{"kind":"uniform","size":"4KiB..64KiB","write_ratio":0.3,"requests":3000}"#,
        ),
    ];
    for (i, (args, json)) in cases.iter().enumerate() {
        let want = serde_json::from_str::<GenSpec>(json)
            .unwrap()
            .collect()
            .unwrap();
        for ext in ["wtr", "csv"] {
            let out = dir.path().join(format!("t{i}.{ext}"));
            gen(args, &out);
            assert_eq!(read_back(&out), want, "{} -> .{ext}", args[0]);
        }
    }
}

#[test]
fn json_summary_echoes_the_spec_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("w.wtr");
    let o = wafer()
        .args(["trace", "gen", "write-biased", "--json", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["type"], "summary");
    assert_eq!(v["spec"]["kind"], "write-biased");
    assert_eq!(v["spec"]["seed"], 1);
    assert_eq!(v["requests"], 10_000);
    assert_eq!(
        v["read_requests"].as_u64().unwrap() + v["write_requests"].as_u64().unwrap(),
        10_000
    );
}

#[test]
fn list_describes_every_kind() {
    let o = wafer().args(["trace", "gen", "--list"]).assert().success();
    let text = String::from_utf8(o.get_output().stdout.clone()).unwrap();
    for k in wafer_trace::gen::KINDS {
        assert!(
            text.contains(k.name) && text.contains(k.summary),
            "{}",
            k.name
        );
    }
    assert!(text.contains("--utilization") && text.contains("--theta"));
    let o = wafer()
        .args(["trace", "gen", "--list", "--json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&o.get_output().stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), wafer_trace::gen::KINDS.len());
}

#[test]
fn mistakes_are_usage_errors_with_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.wtr");
    let cases: [(&[&str], &str); 6] = [
        (&["zipff"], "unknown generator `zipff`"),
        (
            &["zipf", "--utilization", "25"],
            "zipf does not take --utilization",
        ),
        (
            &["zipf", "--theta", "-1"],
            "zipf: `theta` = -1 is out of range",
        ),
        (&["thrash", "--cache", "3000"], "thrash: `cache`"),
        (
            &["uniform", "--size", "4KiB..6KiB"],
            "multiples of the step",
        ),
        (&["uniform", "--arrival", "poisson"], "arrival `poisson`"),
    ];
    for (args, want) in cases {
        wafer()
            .args(["trace", "gen"])
            .args(args)
            .arg("-o")
            .arg(&out)
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with("wafer: ").and(predicate::str::contains(want)));
    }
    wafer()
        .args(["trace", "gen", "uniform", "-o"])
        .arg(dir.path().join("x.bin"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot tell the output format"));
    assert!(!out.exists(), "no file is left behind by a failed call");
}

/// An output whose extension names no format points at the flag that does (`--to`).
#[test]
fn an_unknown_extension_points_at_to() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("wafer"))
        .args(["trace", "gen", "zipf", "-o"])
        .arg(dir.path().join("x.foo"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(use .wtr, .csv or .iolog, or --to)"), "{err}");
}
