//! `wafer sim` and `wafer policies` end to end.

use predicates::prelude::*;

use wafer_testdata::trace;

use crate::common::wafer;

/// The JSON output carries every cell with the libCacheSim-checked miss counts
/// (libCacheSim's own LRU and Clock at 500 objects, as in
/// `crates/cache/tests/cache/parity.rs`).
#[test]
fn sim_json_reports_every_cell() {
    let Some(t) = trace("cloudphysics/cloudPhysicsIO.oracleGeneral.bin") else {
        return;
    };
    let out = wafer()
        .args(["sim", "-t"])
        .arg(&t)
        .args(["--format", "oracle-general", "--granularity", "record"])
        .args(["-p", "lru", "clock:insert_ref=0"])
        .args(["-c", "500p", "1000p", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 4);
    let misses = |i: usize| rows[i]["misses"].as_u64().unwrap();
    assert_eq!(rows[0]["policy"], "lru");
    assert_eq!(rows[0]["capacity_pages"], 500);
    assert_eq!((misses(0), misses(1)), (95398, 94823));
    assert_eq!(rows[2]["policy"], "clock:insert_ref=0");
    assert_eq!((misses(2), misses(3)), (95293, 94727));
    assert_eq!(rows[0]["accesses"], 113_872);
}

#[test]
fn sim_table_and_after_trace() {
    let Some(t) = trace("fiu/fiu_mail_cheetah_10k.blkparse") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let tpl = dir.path().join("after-{policy}-{cache}.csv");
    let out = wafer()
        .args(["sim", "-t"])
        .arg(&t)
        .args([
            "--format", "fiu", "-p", "lru", "-p", "fifo", "-c", "1MiB", "--json",
        ])
        .arg("--after")
        .arg(&tpl)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for (row, name) in rows.as_array().unwrap().iter().zip(["lru", "fifo"]) {
        let file = dir.path().join(format!("after-{name}-1MiB.csv"));
        let text = std::fs::read_to_string(&file).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("access,time_ns,op,kind,group,dev,page,offset,len")
        );
        let m = row;
        let ops = m["page_reads"].as_u64().unwrap()
            + m["page_writes"].as_u64().unwrap()
            + m["trims"].as_u64().unwrap();
        assert!(ops > 0);
        assert_eq!(
            lines.count() as u64,
            ops,
            "{name}: one CSV row per storage op"
        );
        assert_eq!(row["capacity_pages"], 256);
    }
    wafer()
        .args(["sim", "-t"])
        .arg(&t)
        .args(["--format", "fiu", "-p", "lru", "fifo", "-c", "1MiB"])
        .assert()
        .success()
        .stdout(predicate::str::contains("hit ratio"))
        .stdout(predicate::str::contains("burst util"))
        .stdout(predicate::str::contains("fifo"));
}

/// `--stream` (one read per cell, a counting pass for `5%`) and `--jobs` change how
/// the cells run, never their results; nor do they change the after-cache trace.
#[test]
fn stream_and_jobs_give_the_same_results() {
    let Some(t) = trace("mobile-pixel6a/telegram_exec.csv.gz") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str], tag: &str| -> (serde_json::Value, Vec<u8>) {
        let after = dir.path().join(format!("{tag}-{{policy}}-{{cache}}.csv"));
        let out = wafer()
            .args(["sim", "-t"])
            .arg(&t)
            .args(["-p", "ts-clock", "opt", "-c", "2%", "16MiB", "--json"])
            .arg("--after")
            .arg(&after)
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let after = std::fs::read(dir.path().join(format!("{tag}-ts-clock-2pct.csv"))).unwrap();
        for r in rows.as_array_mut().unwrap() {
            r.as_object_mut().unwrap().remove("elapsed_s");
        }
        (rows, after)
    };
    let (base, base_after) = run(&["--jobs", "1"], "prepared1");
    assert_eq!(base.as_array().unwrap().len(), 4);
    assert!(base_after.len() > 1000);
    for (extra, tag) in [
        (&["--jobs", "2"][..], "prepared2"),
        (&["--stream", "--jobs", "1"][..], "stream1"),
        (&["--stream", "--jobs", "2"][..], "stream2"),
    ] {
        let (rows, after) = run(extra, tag);
        assert_eq!(rows, base, "{extra:?}");
        assert!(after == base_after, "{extra:?}: after-cache trace differs");
    }
}

/// Without a share of the footprint, `--stream` makes no counting pass and the table
/// learns the trace's size from the cells (warm-up accesses included).
#[test]
fn stream_table_reports_the_trace_size() {
    let Some(t) = trace("fiu/fiu_mail_cheetah_10k.blkparse") else {
        return;
    };
    let table = |extra: &[&str]| {
        let out = wafer()
            .args(["sim", "-t"])
            .arg(&t)
            .args(["--format", "fiu", "-p", "lru", "clock", "-c", "1MiB"])
            .args(["--warmup", "100"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let prepared = table(&[]);
    assert!(
        prepared.lines().next().unwrap().ends_with("distinct pages"),
        "{prepared}"
    );
    assert_eq!(table(&["--stream"]), prepared);
}

#[test]
fn unknown_policy_lists_names_and_exits_2() {
    wafer()
        .args(["sim", "-t", "nowhere.csv", "-p", "no-such", "-c", "1MiB"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "wafer: unknown policy `no-such`",
        ))
        .stderr(predicate::str::contains("lru, fifo, clock"));
}

#[test]
fn unknown_parameter_lists_keys_and_exits_2() {
    wafer()
        .args([
            "sim",
            "-t",
            "nowhere.csv",
            "-p",
            "clock:bogus=1",
            "-c",
            "1MiB",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("insert_ref"));
}

#[test]
fn after_template_must_vary_with_cells() {
    wafer()
        .args([
            "sim",
            "-t",
            "nowhere.csv",
            "-p",
            "lru",
            "fifo",
            "-c",
            "1MiB",
        ])
        .args(["--after", "out.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("{policy}"));
}

#[test]
fn missing_trace_is_a_runtime_error() {
    for extra in [&[][..], &["--stream", "-c", "5%"][..]] {
        let out = wafer()
            .args([
                "sim",
                "-t",
                "/nonexistent/trace.csv",
                "-p",
                "lru",
                "-c",
                "1MiB",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        // One line naming the file once, the reason once.
        assert_eq!(
            String::from_utf8(out.stderr).unwrap(),
            "wafer: /nonexistent/trace.csv: No such file or directory (os error 2)\n"
        );
    }
}

#[test]
fn policies_lists_the_registry() {
    wafer()
        .arg("policies")
        .assert()
        .success()
        .stdout(predicate::str::contains("insert_ref=1"))
        .stdout(predicate::str::contains("sieve"));
    let out = wafer().args(["policies", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for n in ["lru", "fifo", "clock", "sieve", "opt"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    // The two S3-FIFOs say which libCacheSim version each one is.
    let follows = |n: &str| {
        let p = v.as_array().unwrap().iter().find(|p| p["name"] == n);
        p.unwrap()["follows"].as_str().unwrap().to_string()
    };
    assert!(follows("s3fifo").starts_with("libCacheSim S3FIFO "));
    assert!(follows("s3fifo-v0").starts_with("libCacheSim S3FIFOv0 "));
    wafer()
        .arg("policies")
        .assert()
        .stdout(predicate::str::contains("follows: libCacheSim S3FIFOv0"));
}

/// The after-cache CSV that `--after X.csv` writes reads back as a trace in every
/// command (detected as `after-csv`), with the same requests as the `.wtr` form.
#[test]
fn after_cache_csv_reads_back_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let t = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/fileserver.wtr");
    let (csv, wtr) = (dir.path().join("a.csv"), dir.path().join("a.wtr"));
    for out in [&csv, &wtr] {
        wafer()
            .args(["sim", "-t", t, "-p", "lru", "-c", "1MiB", "--after"])
            .arg(out)
            .assert()
            .success();
    }
    let json = |args: &[&str], p: &std::path::Path| -> serde_json::Value {
        let out = wafer().args(args).arg(p).arg("--json").output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let (a, b) = (
        json(&["trace", "info"], &csv),
        json(&["trace", "info"], &wtr),
    );
    assert_eq!(a["format"], "after-csv");
    for k in [
        "requests",
        "read_requests",
        "write_requests",
        "footprint_pages",
        "duration_ns",
    ] {
        assert_eq!(a[k], b[k], "{k}");
    }
    let (a, b) = (json(&["ftl", "-t"], &csv), json(&["ftl", "-t"], &wtr));
    assert_eq!(a["metrics"], b["metrics"]);
    let sim = |p: &std::path::Path| {
        let out = wafer()
            .args(["sim", "-t"])
            .arg(p)
            .args(["-p", "lru", "-c", "64KiB"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .skip(1)
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(sim(&csv), sim(&wtr));
}
