//! The column mapping of custom text traces from every command: a generic CSV
//! (`ts,op,lba,blocks`: microseconds, `R`/`W`, 512 B sectors) gives the same results
//! as the same requests in wafer's CSV; a bad mapping is a one-line usage error
//! naming the flag.

use serde_json::Value;
use std::path::{Path, PathBuf};

use crate::common::wafer;

/// The mapping of the generic file [`files`] writes.
const MAPPING: [&str; 16] = [
    "--delimiter",
    ",",
    "--skip-lines",
    "1",
    "--time-col",
    "0",
    "--op-col",
    "1",
    "--offset-col",
    "2",
    "--len-col",
    "3",
    "--units",
    "sectors",
    "--time-unit",
    "us",
];

/// 300 requests over 2 MiB, as a generic CSV and as wafer CSV.
fn files(dir: &Path) -> (PathBuf, PathBuf) {
    let mut generic = String::from("ts,op,lba,blocks\n");
    let mut native = String::from("time_ns,op,dev,offset,len\n");
    let mut x: u64 = 7;
    for i in 0..300u64 {
        x = (x * 1_103_515_245 + 12_345) % (1 << 31);
        let lba = (x >> 8) % 512 * 8;
        let blocks = 8 * (1 + (x >> 4) % 3);
        let op = if (x >> 3) % 3 == 0 { "W" } else { "R" };
        let us = i * 250;
        generic += &format!("{us},{op},{lba},{blocks}\n");
        native += &format!("{},{op},0,{},{}\n", us * 1000, lba * 512, blocks * 512);
    }
    let g = dir.join("g.csv");
    let w = dir.join("w.csv");
    std::fs::write(&g, generic).unwrap();
    std::fs::write(&w, native).unwrap();
    (g, w)
}

/// Run `args` and parse stdout as JSON, with the keys that name the file dropped.
fn json(args: &[&str], file: &Path, drop: &[&str]) -> Value {
    let out = wafer().args(args).arg(file).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut strip = |o: &mut Value| {
        if let Some(o) = o.as_object_mut() {
            for k in drop {
                o.remove(*k);
            }
        }
    };
    match v.as_array_mut() {
        Some(rows) => rows.iter_mut().for_each(&mut strip),
        None => strip(&mut v),
    }
    v
}

#[test]
fn sim_reads_the_mapping_like_wafer_csv() {
    let dir = tempfile::tempdir().unwrap();
    let (g, w) = files(dir.path());
    let sim = [
        "sim", "-p", "lru", "-p", "cflru", "-c", "64KiB", "5%", "--json",
    ];
    let drop = ["cell_id", "trace", "trace_checksum", "format", "elapsed_s"];
    let mapped: Vec<&str> = sim.into_iter().chain(MAPPING).chain(["-t"]).collect();
    let plain: Vec<&str> = sim.into_iter().chain(["-t"]).collect();
    let a = json(&mapped, &g, &drop);
    let b = json(&plain, &w, &drop);
    assert_eq!(a, b);
    assert_eq!(a.as_array().unwrap().len(), 4);
    assert!(a[0]["accesses"].as_u64().unwrap() > 300);
    // The mapping is part of the run's identity: another unit is another run.
    let out = wafer()
        .args(["sim", "-p", "lru", "-c", "64KiB", "--json", "-t"])
        .arg(&g)
        .args(MAPPING)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let format = v[0]["format"].as_str().unwrap();
    assert!(format.starts_with("generic {"), "{format}");
    assert!(format.contains("\"offset_unit\":512"), "{format}");
}

#[test]
fn ftl_and_trace_info_read_the_mapping_like_wafer_csv() {
    let dir = tempfile::tempdir().unwrap();
    let (g, w) = files(dir.path());
    let ftl = ["ftl", "--device", "microsd-16g", "--json", "-t"];
    let drop = ["trace", "format"];
    let mapped: Vec<&str> = ["ftl", "--device", "microsd-16g", "--json"]
        .into_iter()
        .chain(MAPPING)
        .chain(["-t"])
        .collect();
    assert_eq!(json(&mapped, &g, &drop), json(&ftl, &w, &drop));
    let mapped: Vec<&str> = ["trace", "info", "--json"]
        .into_iter()
        .chain(MAPPING)
        .collect();
    let drop = ["file", "format"];
    let a = json(&mapped, &g, &drop);
    assert_eq!(a, json(&["trace", "info", "--json"], &w, &drop));
    assert_eq!(a["requests"], 300);
}

#[test]
fn convert_and_head_read_the_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let (g, w) = files(dir.path());
    let out_g = dir.path().join("g.iolog");
    let out_w = dir.path().join("w.iolog");
    for (input, output, mapped) in [(&g, &out_g, true), (&w, &out_w, false)] {
        let mut c = wafer();
        c.args(["trace", "convert", "--to", "fio-iolog-v3"])
            .arg(input)
            .arg(output);
        if mapped {
            c.args(MAPPING);
        }
        c.assert().success();
    }
    let text = std::fs::read_to_string(&out_g).unwrap();
    assert_eq!(text, std::fs::read_to_string(&out_w).unwrap());
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("fio version 3 iolog"));
    assert!(text
        .lines()
        .nth(4)
        .unwrap()
        .starts_with("250 /dev/wafer-target "));
    let head = |file: &Path, mapped: bool| {
        let mut c = wafer();
        c.args(["trace", "head", "-n", "5"]).arg(file);
        if mapped {
            c.args(MAPPING);
        }
        c.output().unwrap().stdout
    };
    assert_eq!(head(&g, true), head(&w, false));
}

#[test]
fn custom_op_words() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("ops.txt");
    std::fs::write(&t, "Rd 0 4096\nWr 4096 4096\nRd 8192 512\n").unwrap();
    let out = wafer()
        .args([
            "trace",
            "info",
            "--json",
            "--op-col",
            "0",
            "--offset-col",
            "1",
        ])
        .args(["--len-col", "2", "--read-ops", "Rd", "--write-ops", "Wr"])
        .arg(&t)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "generic");
    assert_eq!(v["read_requests"]["count"], 2);
    assert_eq!(v["write_requests"]["count"], 1);
    // A word outside the lists is a malformed record (exit 1), named with its line.
    std::fs::write(&t, "Rd 0 4096\nR 4096 4096\n").unwrap();
    let out = wafer()
        .args(["trace", "info", "--op-col", "0", "--offset-col", "1"])
        .args(["--read-ops", "Rd", "--write-ops", "Wr"])
        .arg(&t)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("expected an op (Rd for read, Wr for write)"),
        "{err}"
    );
}

/// Exit status 2 and one line on stderr that contains `want`.
fn usage_error(args: &[&str], file: &Path, want: &str) {
    let out = wafer().args(args).arg(file).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(want), "{args:?}: {err}");
}

#[test]
fn bad_mappings_are_usage_errors_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let (g, _) = files(dir.path());
    // Each command's arguments before the flags, and after them (before the file).
    for (cmd, last) in [
        (&["trace", "info"][..], &[][..]),
        (&["trace", "head"], &[]),
        (&["sim", "-p", "lru", "-c", "1MiB"], &["-t"]),
        (&["ftl"], &["-t"]),
        (&["ssd"], &["-t"]),
    ] {
        let with = |extra: &[&'static str]| -> Vec<&str> {
            cmd.iter().chain(extra).chain(last).copied().collect()
        };
        usage_error(
            &with(&["--offset-col", "2", "--units", "furlongs"]),
            &g,
            "--units: `furlongs`: expected bytes, sectors or a size",
        );
        usage_error(
            &with(&["--len-col", "3", "--delimiter", ","]),
            &g,
            "--offset-col: the column of the address is required",
        );
        usage_error(
            &with(&["--format", "msr", "--offset-col", "2"]),
            &g,
            "--format msr: the column flags",
        );
        usage_error(
            &with(&["--format", "generic"]),
            &g,
            "--format generic needs a column mapping",
        );
    }
    // v3 needs times: a mapping without a time column has none.
    let out = wafer()
        .args(["trace", "convert", "--to", "fio-iolog-v3"])
        .arg(&g)
        .arg(dir.path().join("o.iolog"))
        .args(["--delimiter", ",", "--skip-lines", "1", "--offset-col", "2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("give its time column (--time-col)"), "{err}");
    assert!(!dir.path().join("o.iolog").exists());
}
