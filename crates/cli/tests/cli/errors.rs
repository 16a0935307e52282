//! Every command: usage errors exit 2 and runtime errors 1, each as one line that
//! names the file once; options are checked, not silently accepted; outputs say
//! which trace format was read.

use std::path::Path;

use crate::common::wafer;

/// A `wafer-csv` trace of `n` 4 KiB requests; record `bad` (1-based) is malformed.
fn csv_trace(path: &Path, n: u64, bad: Option<u64>) {
    let mut s = String::from("time_ns,op,dev,offset,len\n");
    for i in 1..=n {
        let op = if i % 2 == 0 { 'W' } else { 'R' };
        if Some(i) == bad {
            s.push_str(&format!("{},{op},0,notanumber,4096\n", i * 1000));
        } else {
            s.push_str(&format!("{},{op},0,{},4096\n", i * 1000, (i % 300) * 4096));
        }
    }
    std::fs::write(path, s).unwrap();
}

/// Run and expect exit `code` with one line on stderr containing every `want`.
fn fails(args: &[&str], code: i32, want: &[&str]) -> String {
    // In a folder of its own: a run's default output folder is under the current one.
    let here = tempfile::tempdir().unwrap();
    let out = wafer()
        .current_dir(here.path())
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("wafer: "), "{args:?}: {err}");
    for w in want {
        assert!(err.contains(w), "{args:?}: want `{w}` in {err}");
    }
    err
}

fn stdout(args: &[&str]) -> String {
    let out = wafer().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn unknown_names_are_usage_errors_with_a_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.csv");
    csv_trace(&t, 100, None);
    let t = t.to_str().unwrap();
    let o = dir.path().join("o.wtr");
    let o = o.to_str().unwrap();
    let exp = dir.path().join("exp.toml");
    std::fs::write(
        &exp,
        format!(
            "name = \"x\"\ntraces = [{{ path = \"{t}\" }}]\npolicies = [\"lru\"]\ncache_sizes = [\"1MiB\"]\ndevices = [\"microsd-61g\"]\n"
        ),
    )
    .unwrap();
    let exp = exp.to_str().unwrap();
    let cases: [(&[&str], &str); 16] = [
        (&["ftl", "-t", t, "-d", "nosuch"], "unknown device `nosuch`"),
        (
            &["ftl", "-t", t, "-d", "microsd-16"],
            "did you mean `microsd-16g`?",
        ),
        (
            &["ftl", "sweep", "-d", "ssd-12g"],
            "did you mean `ssd-120g`?",
        ),
        (
            &["ssd", "-t", t, "-d", "samsung-k8"],
            "did you mean `samsung-k9`?",
        ),
        (&["ssd", "--gen", "thrsh"], "did you mean `thrash`?"),
        (
            &["sim", "-t", t, "-p", "lruu", "-c", "1p"],
            "did you mean `lru`?",
        ),
        (&["trace", "gen", "zipff", "-o", o], "did you mean `zipf`?"),
        (&["reproduce", "ts-clok"], "did you mean `ts-clock`?"),
        (
            &["trace", "info", t, "--format", "wafercsv"],
            "did you mean `wafer-csv`?",
        ),
        (
            &["trace", "convert", t, o, "--to", "csvv"],
            "did you mean `csv`?",
        ),
        // Transpositions are one edit: `lur` is a typo of `lru`.
        (
            &["sim", "-t", t, "-p", "lur", "-c", "1p"],
            "did you mean `lru`?",
        ),
        (
            &["sim", "-t", t, "-p", "lirs:stack_limt=2", "-c", "1p"],
            "did you mean `stack_limit`?",
        ),
        (
            &["sim", "-t", t, "-p", "lru", "-c", "1p", "-d", "microsd-61g"],
            "did you mean `microsd-16g`?",
        ),
        (
            &["sim", "-t", t, "--format", "vscis", "-p", "lru", "-c", "1p"],
            "did you mean `vscsi`?",
        ),
        (&["run", exp], "did you mean `microsd-16g`?"),
        (&["reproduce", "crwa"], "did you mean `craw`?"),
    ];
    for (args, want) in cases {
        let err = fails(args, 2, &[want]);
        let once = usize::from(want.contains("did you mean"));
        assert_eq!(err.matches("did you mean").count(), once, "{err}");
    }
    // Nothing close: no suggestion.
    let err = fails(&["ftl", "-t", t, "-d", "nosuch"], 2, &["microsd-16g"]);
    assert!(!err.contains("did you mean"), "{err}");
}

#[test]
fn trace_errors_name_the_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("bad.csv");
    csv_trace(&t, 6000, Some(5000));
    let t = t.to_str().unwrap();
    let out = dir.path().join("o.csv");
    let out = out.to_str().unwrap();
    let runs: [&[&str]; 8] = [
        &["sim", "-t", t, "-p", "lru", "-c", "10p"],
        &["sim", "-t", t, "-p", "lru", "-c", "10p", "--stream"],
        &["sim", "-t", t, "-p", "lru", "-c", "5%", "--stream"],
        &["ftl", "-t", t],
        &["ssd", "-t", t],
        &["trace", "info", t],
        &["trace", "head", t, "-n", "6000"],
        &["trace", "convert", t, out],
    ];
    for args in runs {
        let err = fails(args, 1, &["bad.csv:5001: expected a byte offset"]);
        assert_eq!(err.matches("bad.csv").count(), 1, "{args:?}: {err}");
    }
    // An error of the simulator, not of the reader, names the file once too.
    let far = dir.path().join("far.csv");
    std::fs::write(
        &far,
        "time_ns,op,dev,offset,len\n0,W,0,1099511627776000,4096\n",
    )
    .unwrap();
    let far = far.to_str().unwrap();
    for args in [&["ftl", "-t", far][..], &["ssd", "-t", far]] {
        let err = fails(args, 1, &["far.csv", "address map refuse", "--map"]);
        assert_eq!(err.matches("far.csv").count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn page_sizes_must_be_powers_of_two() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.csv");
    csv_trace(&t, 100, None);
    let t = t.to_str().unwrap();
    let o = dir.path().join("o.wtr");
    let o = o.to_str().unwrap();
    let want = "must be a power of two from 512 B to 1 GiB";
    for args in [
        &["trace", "info", t, "--page-size", "3000"][..],
        &["trace", "info", t, "--page-size", "256"],
        &["trace", "info", t, "--page-size", "2GiB"],
        &[
            "sim",
            "-t",
            t,
            "-p",
            "lru",
            "-c",
            "10p",
            "--page-size",
            "3000",
            "--block",
            "6000",
        ],
        &["trace", "convert", t, o, "--page-size", "3000"],
        &["trace", "gen", "uniform", "--page-size", "3000", "-o", o],
    ] {
        fails(args, 2, &[want]);
    }
    assert!(!Path::new(o).exists());
    stdout(&["trace", "info", t, "--page-size", "512"]);
}

#[test]
fn after_templates_know_only_policy_and_cache() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.csv");
    csv_trace(&t, 100, None);
    let t = t.to_str().unwrap();
    for (tpl, bad) in [
        ("a-{nope}.wtr", "`{nope}`"),
        ("a-{policy.csv", "`{`"),
        ("a}.csv", "`}`"),
    ] {
        let tpl = dir.path().join(tpl);
        let args = [
            "sim",
            "-t",
            t,
            "-p",
            "lru",
            "-c",
            "10p",
            "--after",
            tpl.to_str().unwrap(),
        ];
        fails(&args, 2, &["unknown placeholder", bad]);
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn a_too_long_origin_is_refused_not_cut() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.csv");
    csv_trace(&t, 100, None);
    let o = dir.path().join("o.wtr");
    let long = "x".repeat(5000);
    let args = [
        "trace",
        "convert",
        t.to_str().unwrap(),
        o.to_str().unwrap(),
        "--origin",
        &long,
    ];
    fails(&args, 2, &["--origin is 5000 bytes", "at most 4096 bytes"]);
    assert!(!o.exists());
}

#[test]
fn every_output_names_the_trace_format() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.csv");
    csv_trace(&t, 100, None);
    let t = t.to_str().unwrap();
    let sim = stdout(&["sim", "-t", t, "-p", "lru", "-c", "10p"]);
    let first = sim.lines().next().unwrap();
    assert!(
        first.starts_with(&format!("trace: {t} (format wafer-csv), 100 accesses")),
        "{first}"
    );
    for stream in [&[][..], &["--stream"]] {
        let mut args = vec!["sim", "-t", t, "-p", "lru", "-c", "10p", "--json"];
        args.extend_from_slice(stream);
        let rows: serde_json::Value = serde_json::from_str(&stdout(&args)).unwrap();
        assert_eq!(rows[0]["format"], "wafer-csv", "{rows}");
    }
    let ftl = stdout(&["ftl", "-t", t]);
    assert!(ftl.contains("(format wafer-csv)"), "{ftl}");
    let v: serde_json::Value = serde_json::from_str(&stdout(&["ftl", "-t", t, "--json"])).unwrap();
    assert_eq!(v["format"], "wafer-csv");
    let ssd = stdout(&["ssd", "-t", t]);
    assert!(ssd.contains("(format wafer-csv)"), "{ssd}");
    let v: serde_json::Value = serde_json::from_str(&stdout(&["ssd", "-t", t, "--json"])).unwrap();
    assert_eq!(v["format"], "wafer-csv");
    let info = stdout(&["trace", "info", t]);
    assert!(info.contains("format        wafer-csv"), "{info}");
}

#[test]
fn a_failing_stdout_is_one_line_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.csv");
    csv_trace(&t, 100, None);
    let full = std::fs::File::create("/dev/full");
    let Ok(full) = full else {
        eprintln!("skipping: no /dev/full");
        return;
    };
    for args in [
        &["ftl", "-t"][..],
        &["ssd", "-t"],
        &["sim", "-p", "lru", "-c", "10p", "-t"],
    ] {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("wafer"))
            .env_remove("RUST_BACKTRACE")
            .args(args)
            .arg(&t)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("No space left on device"), "{args:?}: {err}");
    }
}

/// `--json` into a closed pipe exits 0, as text does (`wafer trace head | head`): the
/// JSON writers' error was not recognised as a broken pipe and exited 1.
#[test]
fn json_into_a_closed_pipe_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.csv");
    csv_trace(&t, 100, None);
    let t = t.to_str().unwrap();
    let sizes: Vec<String> = (1..=40).map(|i| format!("{i}p")).collect();
    let sizes = sizes.join(",");
    // Each output is larger than a pipe holds, so it meets the closed end whichever
    // process runs first.
    for args in [
        &["sim", "-t", t, "-p", "lru,arc", "-c", &sizes, "--json"][..],
        &["curve", "-t", t, "--json"],
    ] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("wafer"))
            .env_remove("RUST_BACKTRACE")
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?}");
    }
}

/// Running out of memory is a runtime error like any other: one line, exit 1 (Rust's
/// own handler printed two lines, or a backtrace, and aborted with status 134).
#[test]
fn out_of_memory_is_one_line_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("u.wtr");
    let gen = wafer()
        .args([
            "trace",
            "gen",
            "uniform",
            "--requests",
            "2000000",
            "--footprint",
            "64GiB",
            "-o",
        ])
        .arg(&t)
        .output()
        .unwrap();
    assert!(
        gen.status.success(),
        "{}",
        String::from_utf8_lossy(&gen.stderr)
    );
    let bin = assert_cmd::cargo::cargo_bin("wafer");
    // 4 M distinct pages need far more than 100 MB of address space to prepare.
    let script = format!(
        "ulimit -v 100000 && exec '{}' sim -t '{}' -p lru -c 1GiB",
        bin.display(),
        t.display()
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // A single cell streams a trace nobody prepared: its densifier or policy could
    // not grow, which it says naming the trace.
    assert!(
        err.starts_with(&format!(
            "wafer: out of memory while densifying {}: could not allocate ",
            t.display()
        )),
        "{err}"
    );
}

/// One convention for lists (repeated flags, several values, commas) and for what is
/// silently wrong: a cache of zero, below one page or a bare fraction, a policy or
/// size given twice; a ratio with nothing under it reads `n/a`, never 0.
#[test]
fn lists_cache_sizes_and_empty_ratios() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.csv");
    csv_trace(&t, 300, None);
    let t = t.to_str().unwrap();
    let table = |args: &[&str]| {
        let out = wafer().args(["sim", "-t", t]).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let commas = table(&[
        "-p",
        "lru,lirs:hirs_ratio=0.05,stack_limit=2,arc",
        "-c",
        "64KiB,256KiB",
    ]);
    let repeated = table(&[
        "-p",
        "lru",
        "-p",
        "lirs:hirs_ratio=0.05,stack_limit=2",
        "arc",
        "-c",
        "64KiB",
        "--cache-size",
        "256KiB",
    ]);
    assert_eq!(commas, repeated);
    assert_eq!(commas.lines().count(), 2 + 6, "{commas}");
    for (args, want) in [
        (["-p", "lru", "-c", "0"], "expected at least one page"),
        (["-p", "lru", "-c", "100"], "less than one page"),
        (
            ["-p", "lru", "-c", "0.01"],
            "write 1% for a share of the footprint",
        ),
        (
            ["-p", "lru,LRU", "-c", "1MiB"],
            "policy `LRU` is given twice",
        ),
        (
            ["-p", "lru", "-c", "1MiB,1024KiB"],
            "cache size `1024KiB` is given twice",
        ),
    ] {
        let mut a = vec!["sim", "-t", t];
        a.extend(args);
        fails(&a, 2, &[want]);
    }
    // Reads only: no write I/O, so no burst utilization to speak of.
    let r = dir.path().join("r.csv");
    std::fs::write(
        &r,
        "time_ns,op,dev,offset,len\n0,R,0,0,4096\n1,R,0,8192,4096\n",
    )
    .unwrap();
    let out = wafer()
        .args(["sim", "-t"])
        .arg(&r)
        .args(["-p", "lru", "-c", "1p"])
        .output()
        .unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.lines().nth(2).unwrap().ends_with("n/a"), "{s}");
    let out = wafer().args(["ftl", "-t"]).arg(&r).output().unwrap();
    let s = String::from_utf8(out.stdout).unwrap();
    assert!(s.contains("WAF           n/a (nothing written)"), "{s}");
}

/// `--skip-invalid` in every command that reads a trace (and `skip_invalid` in an
/// experiment file): without it the malformed record stops the command naming its
/// line; with it the command runs and says how many records it skipped.
#[test]
fn skip_invalid_in_every_command_that_reads_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.csv");
    csv_trace(&t, 200, Some(50));
    let t = t.to_str().unwrap();
    let commands: [&[&str]; 5] = [
        &["sim", "-t", t, "-p", "lru", "-c", "64KiB"],
        &["curve", "-t", t],
        &["ftl", "-t", t, "-d", "samsung-k9"],
        &["ssd", "-t", t],
        &["trace", "info", t],
    ];
    for args in commands {
        // Stops at the record, naming its line (record 50 is line 51).
        let out = wafer().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("t.csv:51:"), "{args:?}: {err}");
        let out = wafer().args(args).arg("--skip-invalid").output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {err}");
        if args[0] != "trace" {
            assert!(
                err.contains("skipped 1 malformed records"),
                "{args:?}: {err}"
            );
        }
    }
    let exp = dir.path().join("exp.toml");
    let run = |skip: bool| {
        std::fs::write(
            &exp,
            format!(
                "name = \"s\"\ntraces = [{{ path = \"{t}\", skip_invalid = {skip} }}]\npolicies = [\"lru\"]\ncache_sizes = [\"64KiB\"]\n"
            ),
        )
        .unwrap();
        wafer()
            .arg("run")
            .arg(&exp)
            .arg("-o")
            .arg(dir.path().join(format!("out-{skip}")))
            .output()
            .unwrap()
    };
    let out = run(false);
    assert_eq!(out.status.code(), Some(1));
    let out = run(true);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("skipped 1 malformed records"), "{err}");
}
