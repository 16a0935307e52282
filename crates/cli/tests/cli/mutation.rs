//! `wafer trace convert` on mutated traces (the library's mutation corpus,
//! `crates/trace/tests/trace/mutation/`), run under `ulimit -v` and a timeout, detecting the
//! format and forcing it. Each run must either exit 1 with exactly one stderr line
//! `wafer: ...` and no output file, or exit 0 with an output that an independent check
//! of the CSV export grammar (docs/formats.md) accepts. Exit 2 is for usage errors, not
//! bad data; a panic (exit 101, or the one-line `wafer: internal error` report), running
//! out of memory, a signal or a timeout always fails.
//!
//! `WAFER_MUTATION_CLI_CASES` sets the cases per format (default [`CASES`]);
//! `WAFER_MUTATION_SEED` and `WAFER_MUTATION_REPLAY` work as in the library's test.

// The library's test also uses the request models and oracles of these modules.
#[allow(dead_code)]
#[path = "../../../trace/tests/trace/mutation/corpus.rs"]
mod corpus;
#[allow(dead_code)]
#[path = "../../../trace/tests/trace/mutation/report.rs"]
mod report;

use crate::common::wafer_limited;
use corpus::{Case, Target};
use report::{Tally, Violation};
use std::fs::File;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Cases per format by default: each spawns two processes.
const CASES: u64 = 32;

/// Address space a conversion may use (`ulimit -v`, KiB): ample for streaming a
/// small trace, fatal for one that buffers without bound.
const MEMORY_KIB: u64 = 2 * 1024 * 1024;

/// Wall time a conversion of a few KiB may take.
const TIMEOUT: Duration = Duration::from_secs(60);

/// Header of wafer's CSV export.
const HEADER: &str = "time_ns,op,dev,offset,len";

/// Run `wafer trace convert INPUT OUT.csv` (forcing `format` if given) under the
/// memory limit; `None` when it timed out and was killed.
fn convert(input: &Path, out: &Path, format: Option<&str>, stderr: &Path) -> Option<ExitStatus> {
    let mut cmd = wafer_limited(MEMORY_KIB);
    cmd.args(["trace", "convert"]).arg(input).arg(out);
    if let Some(f) = format {
        cmd.args(["--format", f]);
    }
    let err = File::create(stderr).expect("a stderr file");
    // `wafer_limited` runs it without RUST_BACKTRACE: a panic takes the documented
    // path, one line and exit 1.
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(err)
        .spawn()
        .expect("spawning sh");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("waiting for wafer") {
            return Some(status);
        }
        if start.elapsed() > TIMEOUT {
            // `exec` made the child wafer itself: this kills it, not just the shell.
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A decimal `u64`: digits only, no sign, no blanks.
fn number(field: &str, what: &str) -> Result<u64, String> {
    if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{what} `{field}` is not a decimal number"));
    }
    field
        .parse()
        .map_err(|_| format!("{what} `{field}` does not fit in 64 bits"))
}

/// Check wafer's CSV export grammar (docs/formats.md, `export.rs`) without wafer's
/// reader: the header line, then `time_ns,op,dev,offset,len` rows, each line ended by
/// a line break; time empty or a u64, op `R`, `W` or `T`, device below 2^20, offset
/// and length u64 with offset + len at most 2^53. Returns the rows.
fn check_csv(bytes: &[u8]) -> Result<usize, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())?;
    let body = text
        .strip_suffix('\n')
        .ok_or("does not end with a line break")?;
    let mut lines = body.split('\n');
    if lines.next() != Some(HEADER) {
        return Err(format!("the first line is not `{HEADER}`"));
    }
    let mut rows = 0;
    for (i, line) in lines.enumerate() {
        let row = |e: String| format!("row {}: {e}: `{line}`", i + 1);
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 5 {
            return Err(row(format!("{} fields", f.len())));
        }
        if !f[0].is_empty() {
            number(f[0], "time").map_err(row)?;
        }
        if !matches!(f[1], "R" | "W" | "T") {
            return Err(row("op is not R, W or T".to_string()));
        }
        if number(f[2], "device").map_err(row)? >= 1 << 20 {
            return Err(row("device number of 2^20 or more".to_string()));
        }
        let offset = number(f[3], "offset").map_err(row)?;
        let len = number(f[4], "length").map_err(row)?;
        if u128::from(offset) + u128::from(len) > 1 << 53 {
            return Err(row("offset + len beyond 2^53".to_string()));
        }
        rows += 1;
    }
    Ok(rows)
}

/// What is wrong with one conversion, if anything.
fn judge(status: Option<ExitStatus>, stderr: &str, out: &Path) -> Option<(&'static str, String)> {
    let Some(status) = status else {
        return Some(("hang", format!("killed after {TIMEOUT:?}")));
    };
    let first = stderr.lines().next().unwrap_or("").to_string();
    match status.code() {
        None => Some(("killed by a signal", format!("{status}; stderr: {first}"))),
        Some(0) => match std::fs::read(out) {
            Err(e) => Some(("exit 0 without the output", e.to_string())),
            Ok(csv) => check_csv(&csv)
                .err()
                .map(|e| ("exit 0 with invalid CSV", e)),
        },
        Some(1) => {
            let one_line = stderr
                .strip_suffix('\n')
                .is_some_and(|l| l.starts_with("wafer: ") && !l.chars().any(char::is_control));
            if !one_line {
                Some(("exit 1 without one `wafer: ` line", format!("{stderr:?}")))
            } else if first.starts_with("wafer: internal error") {
                Some(("panic (internal error)", first))
            } else if first.starts_with("wafer: out of memory") {
                Some(("out of memory", first))
            } else if out.exists() {
                Some(("output left after exit 1", first))
            } else {
                None
            }
        }
        Some(101) => Some(("panic (exit 101)", stderr.to_string())),
        Some(2) => Some(("exit 2 (usage error) on bad data", first)),
        Some(c) => Some(("unexpected exit status", format!("{c}: {first}"))),
    }
}

/// Convert `case` detecting its format, then forcing it (except generic text: the
/// command has no column mapping, so forcing it is a usage question, not a data one).
fn check(case: &Case, dir: &Path) -> Vec<Violation> {
    let input = dir.join(format!("case.{}", case.target.extension()));
    std::fs::write(&input, &case.input).expect("writing the input");
    let (out, err) = (dir.join("out.csv"), dir.join("stderr"));
    let mut violations = Vec::new();
    for forced in [false, true] {
        if forced && case.target == Target::Generic {
            continue;
        }
        let _ = std::fs::remove_file(&out);
        let format = forced.then(|| case.target.format().name());
        let status = convert(&input, &out, format, &err);
        let stderr = std::fs::read_to_string(&err).unwrap_or_default();
        if let Some((class, detail)) = judge(status, &stderr, &out) {
            let mode = if forced { "forced" } else { "detect" };
            violations.push(Violation {
                mode,
                class,
                detail,
            });
        }
    }
    violations
}

fn run(target: Target) {
    let cfg = report::config("WAFER_MUTATION_CLI_CASES", CASES);
    let seeds: Vec<u64> = match cfg.replay {
        Some((t, seed)) if t == target => vec![seed],
        Some(_) => return,
        None => (0..cfg.cases)
            .map(|i| corpus::case_seed(cfg.master, "cli", target, i))
            .collect(),
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mutation-cli");
    let mut tally = Tally::new(target, cfg.master, dir);
    let scratch = corpus::scratch();
    let start = Instant::now();
    for seed in seeds {
        let case = corpus::case(target, seed, scratch.path());
        let v = check(&case, scratch.path());
        if v.is_empty() {
            tally.pass();
        } else {
            tally.fail(&case, &v);
        }
    }
    tally.finish(start.elapsed());
}

macro_rules! targets {
    ($($test:ident => $target:ident),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                run(Target::$target);
            }
        )*
    };
}

targets! {
    wtr => Wtr,
    msr => Msr,
    spc => Spc,
    blkparse => Blkparse,
    fiu => Fiu,
    disksim => Disksim,
    vscsi_v1 => VscsiV1,
    vscsi_v2 => VscsiV2,
    cloudphysics_csv => CloudphysicsCsv,
    oracle_general => OracleGeneral,
    android => Android,
    lackey => Lackey,
    generic => Generic,
    wafer_csv => WaferCsv,
    after_csv => AfterCsv,
}

/// The grammar check is strict where the export is: it is what makes an exit 0 mean
/// something.
#[test]
fn csv_check_follows_the_export_grammar() {
    let ok = format!("{HEADER}\n1254846034000,W,0,2957312,4096\n,R,3,0,512\n");
    assert_eq!(check_csv(ok.as_bytes()), Ok(2));
    assert_eq!(check_csv(format!("{HEADER}\n").as_bytes()), Ok(0));
    for bad in [
        format!("{HEADER}\n1,W,0,0,1"),
        format!("{HEADER}\n1,X,0,0,1\n"),
        format!("{HEADER}\n-1,W,0,0,1\n"),
        format!("{HEADER}\n1,W,1048576,0,1\n"),
        format!("{HEADER}\n1,W,0,9007199254740992,1\n"),
        format!("{HEADER}\n1,W,0,18446744073709551616,1\n"),
        format!("{HEADER}\n1,W,0, 5,1\n"),
        format!("{HEADER}\n1,W,0,5\n"),
        "time,op,dev,offset,len\n".to_string(),
    ] {
        assert!(check_csv(bad.as_bytes()).is_err(), "accepted {bad:?}");
    }
}
