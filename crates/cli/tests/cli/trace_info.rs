//! `wafer trace info` and `wafer trace head` end to end.

use predicates::prelude::*;

use wafer_testdata::trace;

use crate::common::wafer;

fn info_json(rel: &str, extra: &[&str]) -> Option<serde_json::Value> {
    let t = trace(rel)?;
    let out = wafer()
        .args(["trace", "info"])
        .arg(&t)
        .args(extra)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

/// README counts of every shared trace, through the command line.
#[test]
fn info_json_matches_the_trace_readme() {
    // (file, format, requests, reads, writes)
    let cases = [
        (
            "cloudphysics/cloudPhysicsIO.vscsi",
            "vscsi",
            113_872,
            46_974,
            66_898,
        ),
        (
            "cloudphysics/cloudPhysicsIO.csv",
            "cloudphysics-csv",
            113_872,
            46_974,
            66_898,
        ),
        (
            "cloudphysics/cloudPhysicsIO.oracleGeneral.bin",
            "oracle-general",
            113_872,
            113_872,
            0,
        ),
        (
            "mobile-pixel6a/telegram_exec.csv.gz",
            "android",
            251_879,
            24_094,
            227_785,
        ),
        (
            "mobile-pixel6a/telegram_precond.csv.gz",
            "android",
            5_320,
            0,
            5_320,
        ),
        (
            "mobile-pixel6a/cod_exec.csv.gz",
            "android",
            223_998,
            201_635,
            22_363,
        ),
        (
            "mobile-pixel6a/slideshow_exec.csv.gz",
            "android",
            84_197,
            77_755,
            6_442,
        ),
        (
            "fiu/fiu_mail_cheetah_10k.blkparse",
            "fiu",
            9_998,
            8_896,
            1_102,
        ),
        (
            "blkparse/blkparseout_ext4.txt",
            "blkparse",
            9_887,
            9_039,
            848,
        ),
        (
            "blkparse/blkparseout_f2fs.txt",
            "blkparse",
            5_727,
            4_722,
            1_005,
        ),
        ("disksim/tpcc-small.trace", "disksim", 6_999, 4_381, 2_618),
    ];
    for (rel, format, n, r, w) in cases {
        let Some(j) = info_json(rel, &[]) else { return };
        assert_eq!(j["format"], format, "{rel}");
        assert_eq!(j["requests"], n, "{rel}");
        assert_eq!(j["read_requests"]["count"], r, "{rel}");
        assert_eq!(j["write_requests"]["count"], w, "{rel}");
        assert_eq!(j["skipped"], 0, "{rel}");
    }
}

#[test]
fn info_json_pages_and_record_keys() {
    let Some(j) = info_json(
        "mobile-pixel6a/telegram_exec.csv.gz",
        &["--page-size", "4KiB"],
    ) else {
        return;
    };
    assert_eq!(j["pages_written"], 976_231);
    assert_eq!(j["unit_bytes"], 4096);
    let Some(j) = info_json(
        "cloudphysics/cloudPhysicsIO.oracleGeneral.bin",
        &["--granularity", "record"],
    ) else {
        return;
    };
    assert_eq!(j["footprint_pages"], 48_974);
}

#[test]
fn info_table_is_readable() {
    let Some(t) = trace("fiu/fiu_mail_cheetah_10k.blkparse") else {
        return;
    };
    wafer()
        .args(["trace", "info"])
        .arg(&t)
        .assert()
        .success()
        .stdout(predicate::str::contains("format        fiu"))
        .stdout(predicate::str::contains("requests      9998"))
        .stdout(predicate::str::contains("writes        1102 (11.0%)"))
        .stdout(predicate::str::contains(">= 4 KiB"));
}

#[test]
fn head_prints_normalised_requests() {
    let Some(t) = trace("disksim/tpcc-small.trace") else {
        return;
    };
    let out = wafer()
        .args(["trace", "head", "-n", "2"])
        .arg(&t)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], ["time_ns", "op", "dev", "offset", "len"]);
    // `938513000 4 264719034 16 0`: sectors to bytes, flag 0 = write.
    let off = (264_719_034u64 * 512).to_string();
    assert_eq!(lines[1], ["938513000", "W", "4", off.as_str(), "8192"]);
    assert_eq!(lines[2][..3], ["938828000", "W", "3"]);
}

#[test]
fn head_with_forced_format() {
    let Some(t) = trace("cloudphysics/cloudPhysicsIO.csv") else {
        return;
    };
    wafer()
        .args(["trace", "head", "-n", "1", "--format", "cloudphysics-csv"])
        .arg(&t)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "5633898000000000  W       0      21981565440        512",
        ));
}

#[test]
fn bad_file_is_one_line_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.csv");
    std::fs::write(&p, "0,1,512,R,0.5\n0,2,512,Q,0.6\n").unwrap();
    let out = wafer()
        .args(["trace", "info", "--format", "spc"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err,
        format!(
            "wafer: {}:2: expected opcode r or w, found `Q`\n",
            p.display()
        )
    );
    // --skip-invalid reads past it and reports the count.
    let out = wafer()
        .args([
            "trace",
            "info",
            "--format",
            "spc",
            "--skip-invalid",
            "--json",
        ])
        .arg(&p)
        .output()
        .unwrap();
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (j["requests"].as_u64(), j["skipped"].as_u64()),
        (Some(1), Some(1))
    );
    // A missing file is a runtime error too; an unknown format a usage error.
    wafer()
        .args(["trace", "info", "/nonexistent/x"])
        .assert()
        .code(1);
    wafer()
        .args(["trace", "head", "--format", "nope"])
        .arg(&p)
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "wafer: unknown trace format `nope`",
        ));
}

/// A block-layer trace names its device `major,minor` and `trace info` shows it so
/// (it showed the packed number, 8,16 as `2064`); one corrupt timestamp, which made
/// the duration 1.27e9 s without a word, is flagged.
#[test]
fn block_devices_as_major_minor_and_a_corrupt_timestamp_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("b.txt");
    let mut text = String::new();
    for i in 0..200u64 {
        // Request 100 carries the corrupt time (the shared ext4 trace has one like it).
        let t = if i == 100 {
            1_266_874_889.0
        } else {
            i as f64 * 0.001
        };
        text.push_str(&format!(
            "  8,16   1  {}  {t:.9}  42  D   W {} + 8 [db]\n",
            i + 1,
            i * 8
        ));
    }
    std::fs::write(&p, text).unwrap();
    let out = wafer().args(["trace", "info"]).arg(&p).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("format        blkparse"), "{s}");
    assert!(s.contains("devices       8,16 (200)"), "{s}");
    assert!(s.contains("warning       one gap of"), "{s}");
    assert!(s.contains("(a corrupt timestamp?)"), "{s}");

    // An evenly spread trace gets no such warning.
    let even: String = (0..200u64)
        .map(|i| {
            format!(
                "  8,16   1  {}  {:.9}  42  D   W {} + 8 [db]\n",
                i + 1,
                i as f64 * 0.001,
                i * 8
            )
        })
        .collect();
    std::fs::write(&p, even).unwrap();
    let out = wafer().args(["trace", "info"]).arg(&p).output().unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(
        s.contains("devices       8,16 (200)") && !s.contains("warning"),
        "{s}"
    );
}
