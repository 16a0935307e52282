//! `wafer trace convert` end to end: conversions keep every request (checked with
//! `wafer trace info --json` and `head`), outputs are the documented formats, bad
//! calls exit 2 and bad input exits 1 with a one-line message.

use predicates::prelude::*;
use std::path::Path;

use crate::common::wafer;

fn info(p: &Path) -> serde_json::Value {
    let out = wafer()
        .args(["trace", "info", "--json"])
        .arg(p)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("file");
    o.remove("format");
    v
}

fn head(p: &Path) -> String {
    let out = wafer()
        .args(["trace", "head", "-n", "50"])
        .arg(p)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn convert(input: &Path, output: &Path, extra: &[&str]) -> serde_json::Value {
    let out = wafer()
        .args(["trace", "convert"])
        .arg(input)
        .arg(output)
        .args(extra)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn telegram_survives_wtr_and_csv() {
    let Some(src) = wafer_testdata::trace("mobile-pixel6a/telegram_exec.csv.gz") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("t.wtr");
    let s = convert(&src, &w, &["--origin", "telegram", "--page-size", "4KiB"]);
    assert_eq!(s["requests"], 251_879, "README request count");
    assert_eq!(s["input_format"], "android");
    assert_eq!(s["output_format"], "wtr");
    let c = dir.path().join("t.csv");
    assert_eq!(convert(&w, &c, &[])["requests"], 251_879);
    let want = info(&src);
    assert_eq!(info(&w), want);
    assert_eq!(info(&c), want);
    assert_eq!(head(&w), head(&src));
    assert_eq!(head(&c), head(&src));
    // The .wtr is much smaller than the gzip'd CSV it came from.
    let (a, b) = (
        std::fs::metadata(&src).unwrap().len(),
        std::fs::metadata(&w).unwrap().len(),
    );
    assert!(b < a, "wtr {b} bytes vs gzip CSV {a}");
}

#[test]
fn fio_iolog_output() {
    let Some(src) = wafer_testdata::trace("disksim/tpcc-small.trace") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("x.txt");
    let s = convert(&src, &o, &["--to", "fio-iolog", "--fio-target", "/dev/sdq"]);
    assert_eq!(s["requests"], 6_999);
    let text = std::fs::read_to_string(&o).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("fio version 2 iolog"));
    let io: Vec<&str> = text
        .lines()
        .filter(|l| l.ends_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert_eq!(io.len(), 6_999, "one line per request (none is empty)");
    assert!(io
        .iter()
        .all(|l| l.starts_with("/dev/sdq") && l.split(' ').count() == 4));
    // 16 devices: each added, opened and closed once.
    for act in ["add", "open", "close"] {
        let n = text
            .lines()
            .filter(|l| l.ends_with(&format!(" {act}")))
            .count();
        assert_eq!(n, 16, "{act}");
    }
    assert!(text.ends_with(" close\n"));
}

#[test]
fn default_summary_and_skip_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("in.csv");
    std::fs::write(&src, "0,8,4096,W,0.5\n0,x,4096,R,0.6\n1,16,512,R,0.7\n").unwrap();
    let out = dir.path().join("o.wtr");
    wafer()
        .args(["trace", "convert", "--format", "spc", "--skip-invalid"])
        .arg(&src)
        .arg(&out)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("(spc) ->").and(predicate::str::contains(
                "(wtr): 2 requests (1 malformed records skipped)",
            )),
        );
    // Without --skip-invalid: the line is named, exit 1, nothing written.
    let out2 = dir.path().join("o2.wtr");
    wafer()
        .args(["trace", "convert", "--format", "spc"])
        .arg(&src)
        .arg(&out2)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("in.csv:2: expected"));
    assert!(!out2.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        2,
        "no temp file left"
    );
}

#[test]
fn usage_and_input_errors() {
    let dir = tempfile::tempdir().unwrap();
    let Some(src) = wafer_testdata::trace("fiu/fiu_mail_cheetah_10k.blkparse") else {
        return;
    };
    wafer()
        .args(["trace", "convert"])
        .arg(&src)
        .arg(dir.path().join("o.parquet"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--to wtr|csv|fio-iolog"));
    wafer()
        .args(["trace", "convert", "--to", "xml"])
        .arg(&src)
        .arg(dir.path().join("o.wtr"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown output format `xml`"));
    // A corrupt .wtr input: exit 1, one line naming the chunk.
    let w = dir.path().join("a.wtr");
    convert(&src, &w, &[]);
    let mut b = std::fs::read(&w).unwrap();
    let hlen = usize::from(u16::from_le_bytes([b[6], b[7]]));
    b[hlen + 40] ^= 0xff;
    std::fs::write(&w, &b).unwrap();
    let out = wafer()
        .args(["trace", "convert"])
        .arg(&w)
        .arg(dir.path().join("b.csv"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.ends_with("corrupt .wtr: chunk 0 checksum mismatch\n"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
    // Truncated.
    std::fs::write(&w, &b[..b.len() / 2]).unwrap();
    wafer()
        .args(["trace", "info"])
        .arg(&w)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("corrupt .wtr: truncated"));
}

/// `wafer sim --after X.wtr` writes the after-cache trace in wafer's format; `trace
/// info` reads it like any trace and counts exactly the storage page reads and
/// writes the simulator reported.
#[test]
fn after_cache_wtr_reads_like_a_trace() {
    let Some(src) = wafer_testdata::trace("fiu/fiu_mail_cheetah_10k.blkparse") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let after = dir.path().join("after.wtr");
    let out = wafer()
        .args(["sim", "-p", "lru", "-c", "1MiB", "--json", "-t"])
        .arg(&src)
        .arg("--after")
        .arg(&after)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sim: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &sim[0];
    let i = info(&after);
    assert_eq!(i["read_requests"]["count"], m["page_reads"]);
    assert_eq!(i["write_requests"]["count"], m["page_writes"]);
    assert!(m["page_reads"].as_u64().unwrap() > 1000);
    let h = head(&after);
    assert_eq!(h.lines().count(), 51, "header and 50 operations");
}

/// `--cpu-cache`: a lackey trace through a 2-set 2-way cache of 16 B lines gives the
/// hand-worked line traffic (the vector of `wafer_trace::cpu_cache`'s unit test, plus
/// a modify), the summary counts it, and bad geometries exit 2 with one line.
#[test]
fn cpu_cache_filters_a_memory_trace() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("mem.lackey");
    std::fs::write(
        &src,
        "==1== lackey\n L 00000000,4\n S 00000010,4\n L 00000004,8\n S 00000020,16\n \
         L 00000000,1\n L 00000040,4\n S 00000008,16\n L 00000050,4\n L 00000070,4\n \
         M 00000070,4\n",
    )
    .unwrap();
    let rows = |p: &Path| -> Vec<String> {
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .skip(1)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                format!("{} {} {}", f[1], f[3], f[4])
            })
            .collect()
    };
    let out = dir.path().join("llc.csv");
    let v = convert(
        &src,
        &out,
        &["--format", "lackey", "--cpu-cache", "64:2:16"],
    );
    let want = [
        "R 0 16", "R 16 16", "R 32 16", "W 32 16", "R 64 16", "R 80 16", "W 16 16", "R 112 16",
    ];
    assert_eq!(rows(&out), want);
    assert_eq!(v["requests"], 8);
    let c = &v["cpu_cache"];
    assert_eq!(
        (c["size"].as_u64(), c["ways"].as_u64(), c["line"].as_u64()),
        (Some(64), Some(2), Some(16))
    );
    assert_eq!(c["accesses"], 12);
    assert_eq!(c["hits"], 6);
    assert_eq!(c["misses"], 6);
    assert_eq!(c["dirty_evictions"], 2);
    // With the flush, the dirty lines left (0, then 7 after the modify) come last.
    let out = dir.path().join("llc-flush.csv");
    let v = convert(
        &src,
        &out,
        &[
            "--format",
            "lackey",
            "--cpu-cache=64:2:16",
            "--cpu-cache-flush",
        ],
    );
    let mut flushed = want.to_vec();
    flushed.extend(["W 0 16", "W 112 16"]);
    assert_eq!(rows(&out), flushed);
    assert_eq!(v["cpu_cache"]["flushed"], 2);
    // Alone, --cpu-cache is the documented default, and the text summary says so.
    wafer()
        .args(["trace", "convert", "--format", "lackey"])
        .arg(&src)
        .arg(dir.path().join("d.csv"))
        .arg("--cpu-cache")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "cpu cache 262144 B, 8-way, 64 B lines: 11 line accesses",
        ));
    for bad in [
        "32KiB:3:64",
        "32KiB:4:48",
        "32KiB:4",
        "32KiB:0:64",
        "lots:4:64",
    ] {
        let out = wafer()
            .args(["trace", "convert", "--format", "lackey"])
            .arg(&src)
            .arg(dir.path().join("bad.csv"))
            .args(["--cpu-cache", bad])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.contains("--cpu-cache: expected SIZE:WAYS:LINE like 256KiB:8:64"),
            "{bad}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!dir.path().join("bad.csv").exists());
    }
    wafer()
        .args(["trace", "convert", "--cpu-cache-flush"])
        .arg(&src)
        .arg(dir.path().join("bad.csv"))
        .assert()
        .code(2);
}
