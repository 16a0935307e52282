//! `wafer trace capture` end to end: programs doing known I/O (dd, a Python script
//! with positional, sequential, appending and dup'd I/O) yield exactly the requests
//! their calls imply, placed by the documented layout; the bundled real traces keep
//! the counts `traces/README.md` states. Without strace the live tests say so and
//! pass, except under CI (env `CI` set), where they fail.

use std::path::Path;

use crate::common::{bundled, wafer};

/// Whether strace can run here; panics under CI when it cannot.
fn have(tool: &str) -> bool {
    let ok = std::process::Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "{tool} is required in CI (apt-get install {tool})"
        );
        eprintln!("SKIPPED: {tool} not found; install it with apt-get install {tool}");
    }
    ok
}

/// `(op, offset, len)` of every request of a CSV capture.
fn requests(csv: &Path) -> Vec<(String, u64, u64)> {
    let text = std::fs::read_to_string(csv).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[1].to_string(),
                f[3].parse().unwrap(),
                f[4].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn dd_with_seek_gives_three_writes_at_the_seek_offset() {
    if !have("strace") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let f = data.join("F");
    let out = dir.path().join("dd.csv");
    wafer()
        .args(["trace", "capture", "-o"])
        .arg(&out)
        .arg("--include")
        .arg(&data)
        .args(["--", "dd", "if=/dev/zero"])
        .arg(format!("of={}", f.display()))
        .args(["bs=4096", "count=3", "seek=5", "conv=notrunc"])
        .assert()
        .success()
        .stdout(predicates::str::contains("command exited with status 0"));
    // seek=5 blocks of 4096: bytes 20480.. of F, the only file, so in slot 0.
    let w = |o: u64| ("W".to_string(), o, 4096);
    assert_eq!(requests(&out), vec![w(20480), w(24576), w(28672)]);
    let layout: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("dd.csv.layout.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(layout["block_size"], 4 << 20);
    let path = std::fs::canonicalize(&f).unwrap();
    assert_eq!(layout["files"][0]["path"], path.display().to_string());
    assert_eq!(layout["files"][0]["extents"][0]["address"], 0);
}

const SCRIPT: &str = r#"
import os, sys
d = sys.argv[1]
a = os.open(os.path.join(d, "a"), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
b = os.open(os.path.join(d, "b"), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
os.pwrite(a, b"x" * 1000, 10000)        # a: 10000+1000
os.pwrite(b, b"y" * 8192, 61440)        # b: crosses its 64 KiB extent boundary
os.write(a, b"z" * 300)                 # a: position 0
c = os.dup(a)
os.lseek(c, 5000, os.SEEK_SET)
os.read(a, 200)                         # a: shared position 5000
os.preadv(b, [bytearray(100), bytearray(28)], 4096)   # b: 4096+128
os.close(a); os.close(c)
l = os.open(os.path.join(d, "a"), os.O_WRONLY | os.O_APPEND)
os.write(l, b"e" * 10)                  # a: appended at its end, 11000
os.close(l); os.close(b)
"#;

#[test]
fn python_script_gives_exact_requests_and_layout() {
    if !have("strace") || !have("python3") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let script = dir.path().join("io.py");
    std::fs::write(&script, SCRIPT).unwrap();
    let out = dir.path().join("py.csv");
    wafer()
        .args(["trace", "capture", "--block", "64KiB", "-o"])
        .arg(&out)
        .arg("--include")
        .arg(&data)
        .args(["--", "python3"])
        .arg(&script)
        .arg(&data)
        .assert()
        .success();
    // Layout, 64 KiB slots in first-touch order: a extent 0 -> slot 0; b extents 0
    // and 1 -> slots 1 and 2 (b's first touch reaches byte 69631).
    let k = 65536;
    let r = |op: &str, o: u64, l: u64| (op.to_string(), o, l);
    assert_eq!(
        requests(&out),
        vec![
            r("W", 10000, 1000),
            r("W", k + 61440, 4096),
            r("W", 2 * k, 4096),
            r("W", 0, 300),
            r("R", 5000, 200),
            r("R", k + 4096, 128),
            r("W", 11000, 10),
        ]
    );
}

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
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `(requests, reads, writes)` of a bundled trace, as `wafer trace info --json` says.
fn counts(name: &str) -> (u64, u64, u64) {
    let v = info(&bundled(name));
    (
        v["requests"].as_u64().unwrap(),
        v["read_requests"]["count"].as_u64().unwrap(),
        v["write_requests"]["count"].as_u64().unwrap(),
    )
}

#[test]
fn bundled_sqlite_trace_has_the_readme_counts() {
    // traces/README.md: 38474 requests, 17219 reads, 21255 writes.
    assert_eq!(counts("sqlite-wal.wtr"), (38474, 17219, 21255));
}

#[test]
fn bundled_fileserver_trace_has_the_readme_counts() {
    // traces/README.md: 2559 requests, 1279 reads, 1280 writes.
    assert_eq!(counts("fileserver.wtr"), (2559, 1279, 1280));
}

#[test]
fn bundled_page_cache_level_traces_have_the_readme_counts() {
    // traces/README.md: (requests, reads, writes) of each capture.
    let traces: [(&str, (u64, u64, u64)); 6] = [
        ("dbench.wtr", (163701, 124199, 39502)),
        ("postmark.wtr", (107100, 66087, 41013)),
        ("mariadb-oltp.wtr", (127472, 74979, 52493)),
        ("pgbench.wtr", (55739, 22875, 32864)),
        ("mem-xz.wtr", (181123, 96122, 85001)),
        ("mem-sort.wtr", (211080, 140812, 70268)),
    ];
    for (name, want) in traces {
        assert_eq!(counts(name), want, "{name}");
    }
}

#[test]
fn bundled_page_cache_level_traces_have_the_readme_reference_shares() {
    // traces/README.md, "Is it page-cache-level?": (page writes, overwrites, page
    // reads, re-reads, sequential write requests) as `wafer trace info` counts them.
    let traces: [(&str, [u64; 5]); 6] = [
        ("dbench.wtr", [259661, 253703, 394718, 394702, 11620]),
        ("postmark.wtr", [43947, 3387, 66087, 66087, 35828]),
        ("mariadb-oltp.wtr", [361945, 348507, 308350, 297067, 4175]),
        ("pgbench.wtr", [87655, 41017, 45540, 21847, 874]),
        ("mem-xz.wtr", [85001, 81246, 96122, 92269, 100]),
        ("mem-sort.wtr", [70268, 69844, 140812, 140326, 3060]),
    ];
    for (name, want) in traces {
        let v = info(&bundled(name));
        let got = [
            "writes",
            "overwrites",
            "reads",
            "rereads",
            "sequential_writes",
        ]
        .map(|k| v[k].as_u64().unwrap());
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn memory_capture_runs_lackey_and_writes_loads_and_stores() {
    if !have("valgrind") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mem.wtr");
    wafer()
        .args(["trace", "capture", "--memory", "-o"])
        .arg(&out)
        .args(["--", "true"])
        .assert()
        .success()
        .stdout(predicates::str::contains("from memory accesses"));
    let v = info(&out);
    // Even `true` loads and stores (the dynamic loader runs first).
    assert!(v["read_requests"]["count"].as_u64().unwrap() > 1000, "{v}");
    assert!(v["write_requests"]["count"].as_u64().unwrap() > 1000, "{v}");
    assert!(!dir.path().join("mem.wtr.layout.json").exists());
    // Through a CPU cache: whole 64 B lines, far fewer than the accesses.
    let llc = dir.path().join("llc.wtr");
    let o = wafer()
        .args([
            "trace",
            "capture",
            "--memory",
            "--cpu-cache",
            "32KiB:4:64",
            "--json",
            "-o",
        ])
        .arg(&llc)
        .args(["--", "true"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let c = &s["cpu_cache"];
    assert_eq!(s["reads"], c["misses"]);
    assert_eq!(s["writes"], c["dirty_evictions"]);
    let w = info(&llc);
    let all = v["requests"].as_u64().unwrap();
    assert!(w["requests"].as_u64().unwrap() < all / 4, "{w} vs {v}");
    // Only with --memory.
    wafer()
        .args(["trace", "capture", "--cpu-cache", "-o"])
        .arg(dir.path().join("x.wtr"))
        .args(["--", "true"])
        .assert()
        .code(2);
}

#[test]
fn failing_command_status_is_reported_and_exit_is_1() {
    if !have("strace") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.wtr");
    wafer()
        .args(["trace", "capture", "-o"])
        .arg(&out)
        .args(["--", "sh", "-c", "exit 3"])
        .assert()
        .code(1)
        .stdout(predicates::str::contains("command exited with status 3"))
        .stderr(predicates::str::contains("the captured command failed"));
    assert!(
        out.exists(),
        "the trace is written even when the command fails"
    );
}

/// The README's table of bundled traces lists exactly the traces in `traces/`.
#[test]
fn the_readme_lists_every_bundled_trace() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme
        .split("## Bundled traces")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README has a Bundled traces section");
    let mut listed: Vec<String> = section
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_string)
        .collect();
    let mut present: Vec<String> = std::fs::read_dir(root.join("traces"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".wtr"))
        .collect();
    listed.sort();
    present.sort();
    assert_eq!(listed, present);
    let count = [
        "", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    ];
    let said = format!(
        "holds {} small",
        count.get(present.len()).unwrap_or(&"many")
    );
    assert!(section.contains(&said), "the README should say `{said}`");
}
