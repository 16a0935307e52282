//! `wafer reproduce <paper> --quick` end to end for every paper preset: the setup table
//! next to the paper's, one verdict per claim by the documented rule, the rows with the
//! columns a device study must show (address map, log blocks, both views of the end
//! flush, elapsed time beside the sum of latencies), the report, and the sensitivity
//! study where a preset has one.

use std::path::Path;

use crate::common::{self, repo};

/// `wafer ARGS` in the repository; its standard output (it must succeed).
fn wafer(args: &[&str], out: &Path) -> String {
    let run = common::wafer()
        .current_dir(repo())
        .args(args)
        .arg(out)
        .output()
        .unwrap();
    let stdout = String::from_utf8(run.stdout).unwrap();
    assert!(
        run.status.success(),
        "{args:?}: {}\n{stdout}",
        String::from_utf8_lossy(&run.stderr)
    );
    stdout
}

/// The lines of `stdout` that judge a claim: the claim, its figures, its verdict.
fn verdict_lines(stdout: &str) -> Vec<&str> {
    let at = stdout.find("\nclaim: ").expect("no claim printed");
    let end = stdout.find("claims at a glance: ").unwrap();
    stdout[at..end].lines().collect()
}

/// Run `paper`'s quick form into a temporary folder; its standard output, the header
/// of its results.csv and its report. Then its study file, exported in the quick form
/// and run with `wafer run` on the same folder, must describe the same cells (all
/// reused) and print the same verdict lines.
fn quick(paper: &str) -> Option<(String, String, String)> {
    // Every grid preset reads at least one Pixel 6a trace.
    wafer_testdata::trace("mobile-pixel6a/telegram_exec.csv.gz")?;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    // One replicate: the quick form's three age every device three times, which the
    // rule's own tests cover (crates/lab/src/claims.rs).
    let r = ["--replicates", "1"];
    let stdout = wafer(
        &["reproduce", paper, "--quick", r[0], r[1], "-j", "2", "-o"],
        &out,
    );
    let file = dir.path().join(format!("{paper}.toml"));
    wafer(
        &["reproduce", paper, "--quick", r[0], r[1], "--export"],
        &file,
    );
    let file = file.to_str().unwrap();
    let again = wafer(&["run", file, "-j", "2", "-o"], &out);
    assert_eq!(verdict_lines(&again), verdict_lines(&stdout), "{paper}");
    let summaries: Vec<&str> = again
        .lines()
        .filter(|l| l.contains(" cells: computed "))
        .collect();
    assert!(
        !summaries.is_empty() && summaries.iter().all(|l| l.contains("computed 0,")),
        "{paper}: the exported file describes other cells:\n{again}"
    );
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    Some((stdout, csv.lines().next().unwrap().to_string(), report))
}

/// docs/findings.md quotes every study's quick form as printed (section "The quick
/// form, as printed"): the quoted lines must be what `stdout` prints. With
/// `WAFER_BLESS=1` the quote is rewritten instead (after a change that moves a
/// figure, said in the commit).
fn findings_quote(paper: &str, stdout: &str) {
    let path = repo().join("docs/findings.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let (open, close) = (
        format!("<!-- quick: {paper} -->\n```text\n"),
        "```\n<!-- /quick -->",
    );
    let at = doc
        .find(&open)
        .unwrap_or_else(|| panic!("docs/findings.md quotes no quick form of {paper}"))
        + open.len();
    let end = at + doc[at..].find(close).unwrap();
    let printed = verdict_lines(stdout)
        .into_iter()
        .skip_while(|l| l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect::<String>();
    if std::env::var_os("WAFER_BLESS").is_some() {
        let new = format!("{}{printed}{}", &doc[..at], &doc[end..]);
        std::fs::write(&path, new).unwrap();
        return;
    }
    let quoted = &doc[at..end];
    for (i, (q, p)) in quoted.lines().zip(printed.lines()).enumerate() {
        assert_eq!(
            q, p,
            "{paper}: docs/findings.md line {i} of the quick form differs from what wafer prints (WAFER_BLESS=1 rewrites it)"
        );
    }
    assert_eq!(
        quoted.lines().count(),
        printed.lines().count(),
        "{paper}: docs/findings.md quotes another number of lines than wafer prints"
    );
}

fn check(paper: &str) {
    let Some((stdout, header, report)) = quick(paper) else {
        return;
    };
    findings_quote(paper, &stdout);
    let preset = wafer_lab::presets::find(paper).unwrap();
    for row in [
        "workload",
        "cache sizes",
        "device and FTL",
        "aging",
        "metric",
    ] {
        assert!(
            stdout.lines().any(|l| l.trim_start().starts_with(row)),
            "{paper}: setup row `{row}` missing:\n{stdout}"
        );
    }
    let verdicts: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("verdict: "))
        .collect();
    // One verdict per claim, group of traces and measurement view (each judged on
    // its own).
    let views = if preset.exp.devices.iter().any(|d| d != "none") {
        preset.exp.measure.len()
    } else {
        1
    };
    assert_eq!(
        verdicts.len(),
        preset.claims.len() * preset.groups.len() * views,
        "{paper}:\n{stdout}"
    );
    if views > 1 {
        for view in [", as captured:", ", steady state:"] {
            assert!(stdout.contains(view), "{paper}: no {view} view:\n{stdout}");
        }
    }
    for g in &preset.groups {
        let on = format!("  on {} (", g.name);
        assert!(
            stdout.contains(&on) && report.contains(&on),
            "{paper}: no verdicts on group {}:\n{stdout}",
            g.name
        );
    }
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("claims at a glance: ") && l.ends_with("claims.svg")),
        "{paper}: claims figure:\n{stdout}"
    );
    for v in &verdicts {
        assert!(
            [
                "supported (",
                "contradicted (",
                "inconclusive (",
                "no difference (",
                "not measurable (",
            ]
            .iter()
            .any(|k| v.starts_with(k)),
            "{paper}: verdict without a rule's name and reason: {v}"
        );
    }
    let columns: Vec<&str> = header.split(',').collect();
    for c in [
        "address_map",
        "ftl_remapped_ops",
        "ftl_rw_log_blocks",
        "ftl_erases_before_flush",
        "ftl_elapsed_ns",
        "ftl_busy_ns",
    ] {
        assert!(columns.contains(&c), "{paper}: no column {c} in {header}");
    }
    for sens in &preset.sensitivities {
        let points = stdout
            .lines()
            .filter(|l| l.starts_with(&format!("  {} ", sens.axis)))
            .count();
        assert_eq!(points, sens.points.len(), "{paper}: sensitivity:\n{stdout}");
        assert!(
            stdout.lines().any(|l| l.starts_with("figure: ")
                && l.ends_with(&format!("{}/where-it-holds.svg", sens.slug))),
            "{paper}: sensitivity figure {}:\n{stdout}",
            sens.slug
        );
        // The preset's report shows the study's lines and figure, the preset's
        // operating point marked on its axis.
        assert!(
            report.contains(&format!("by {}", sens.axis)),
            "{paper}: no {} study in the report",
            sens.axis
        );
    }
    if !preset.sensitivities.is_empty() {
        assert!(stdout.contains("where it holds: "), "{paper}");
        assert!(
            report.contains("<figure class=\"preface\">") && report.contains(" (preset"),
            "{paper}: no sensitivity figure in the report"
        );
    }
    if preset.exp.devices.iter().any(|d| d != "none") {
        assert!(
            stdout.contains("fill, then 16 GiB of overwrites"),
            "{paper}: a device study ages its device:\n{stdout}"
        );
    }
}

#[test]
fn ts_clock_quick_prints_its_setup_and_a_verdict_per_claim() {
    check("ts-clock");
}

#[test]
fn bua_quick_prints_its_setup_and_a_verdict_per_claim() {
    check("bua");
}

#[test]
fn craw_quick_prints_its_setup_and_a_verdict_per_claim() {
    check("craw");
}

#[test]
fn sorted_clock_quick_prints_its_setup_and_a_verdict_per_claim() {
    check("sorted-clock");
}

#[test]
fn apu_quick_prints_its_setup_and_a_verdict_per_claim() {
    // Generated micro benchmarks and IOzone; PostMark from the bundled capture.
    let dir = tempfile::tempdir().unwrap();
    let out = common::wafer()
        // One replicate, as captured: the replicates and the steady view of apu are
        // tested on a reduced design (crates/lab/tests/lab/apu.rs), at a fraction of the
        // quick form's 21 runs of every cell.
        .args([
            "reproduce",
            "apu",
            "--quick",
            "--replicates",
            "1",
            "--measure",
            "as-captured",
            "-j",
            "2",
            "-o",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for row in ["workload", "cache sizes", "device", "arrivals", "metric"] {
        assert!(
            stdout.lines().any(|l| l.trim_start().starts_with(row)),
            "setup row `{row}` missing:\n{stdout}"
        );
    }
    // Constant write, random write, write biased, write-back below 32 MB against no
    // cache, thrash; IOzone at the smallest and the largest cache, APU against
    // write-back and its gain by size; PostMark's cache and APU; Fig. 11 for IOzone and
    // PostMark. The two claims of no difference (IOzone's LRU vs LFU, PostMark's
    // write-back by size) print their figures and draw no verdict.
    let verdicts = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("verdict: "))
        .count();
    assert_eq!(verdicts, 13, "{stdout}");
    let none = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("no verdict: "))
        .count();
    assert_eq!(none, 2, "{stdout}");
    assert!(
        stdout.contains("IOzone-like generator") && stdout.contains("traces/postmark.wtr"),
        "{stdout}"
    );
    assert!(
        stdout.contains("write-back alone is slightly slower than no cache"),
        "{stdout}"
    );
    assert!(dir.path().join("report.html").is_file());
    // apu is a study file as the others are: exported in the same quick form and run
    // with `wafer run` on the same folder, it describes the same cells (all reused)
    // and prints the same verdict lines.
    let files = tempfile::tempdir().unwrap();
    let file = files.path().join("apu.toml");
    let opts = ["--quick", "--replicates", "1", "--measure", "as-captured"];
    let export: Vec<&str> = ["reproduce", "apu"]
        .into_iter()
        .chain(opts)
        .chain(["--export"])
        .collect();
    wafer(&export, &file);
    let again = wafer(
        &["run", file.to_str().unwrap(), "-j", "2", "-o"],
        dir.path(),
    );
    let judged = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with("paper: ") || l.starts_with("  "))
            .filter(|l| !l.contains("cells: computed"))
            .map(String::from)
            .collect()
    };
    assert_eq!(judged(&again), judged(&stdout));
    assert!(
        again.contains("378 cells: computed 0, reused 378"),
        "the exported file describes other cells:\n{again}"
    );
}

#[test]
fn the_demo_runs_from_the_bundled_traces_and_every_cell_writes_back() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::wafer()
        .current_dir(dir.path())
        .arg("demo")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let verdicts = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("verdict: "))
        .count();
    let demo = wafer_lab::presets::find("demo").unwrap();
    assert_eq!(verdicts, demo.claims.len(), "{stdout}");
    // The figure that makes the point at a glance: one bar group per claim, each
    // claim and its verdict in the key under the plot, shown under the verdict table.
    let out = dir.path().join("wafer-out/demo");
    let glance = std::fs::read_to_string(out.join("figures/claims.svg")).unwrap();
    for (i, c) in demo.claims.iter().enumerate() {
        let key = format!(
            "{}. {} vs {}, {}: paper-like ",
            i + 1,
            c.policy,
            c.baseline,
            c.metric.short()
        );
        assert!(glance.contains(&key), "no key line {key}");
    }
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    let table = report.find("<table class=\"verdicts\">").unwrap();
    assert!(table < report.find("<figure id=\"glance\">").unwrap());
    assert_eq!(
        report.matches("<td class=\"l v-").count(),
        demo.claims.len()
    );
    // Every cell exercises the cache and the device: write-backs before the end flush.
    let csv = std::fs::read_to_string(dir.path().join("wafer-out/demo/results.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let (written, at_end, erases) = (col("page_writes"), col("writes_at_end"), col("ftl_erases"));
    let mut cells = 0;
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        let n = |i: usize| f[i].parse::<u64>().unwrap();
        assert!(
            n(written) > n(at_end),
            "a cell wrote nothing before the end: {l}"
        );
        assert!(n(erases) > 0, "a cell erased nothing: {l}");
        cells += 1;
    }
    assert_eq!(cells, 56);
}

/// `paper --quick` as a clone alone sees it (no trace folder, no `shared/traces`
/// beside it): its bundled group runs, each missing group is one line with the
/// command that fetches it, and the study exits 0.
fn clone_alone(paper: &str) {
    let out_dir = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let out = common::wafer()
        .current_dir(repo())
        .env("WAFER_TRACES", empty.path())
        .env("XDG_DATA_HOME", empty.path().join("data"))
        .env("WAFER_NO_SHARED", "1")
        .args([
            "reproduce",
            paper,
            "--quick",
            "--replicates",
            "1",
            // One view: the steady one is checked by the quick runs above.
            "--measure",
            "as-captured",
            "-j",
            "2",
            "-o",
        ])
        .arg(out_dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{paper}: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    let preset = wafer_lab::presets::find(paper).unwrap();
    let skipped: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("skipped: group "))
        .collect();
    assert_eq!(skipped.len(), 1, "{paper}:\n{stdout}");
    assert!(
        skipped[0].starts_with("skipped: group Pixel 6a needs mobile-pixel6a/telegram_exec.csv.gz")
            && skipped[0].contains("run `wafer traces fetch telegram_exec"),
        "{paper}: {}",
        skipped[0]
    );
    // One verdict per claim, on the bundled group only.
    let verdicts = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("verdict: "))
        .count();
    assert_eq!(verdicts, preset.claims.len(), "{paper}:\n{stdout}");
    assert!(stdout.contains("  on paper-like ("), "{paper}:\n{stdout}");
}

#[test]
fn ts_clock_runs_from_a_clone_alone() {
    clone_alone("ts-clock");
}

#[test]
fn bua_runs_from_a_clone_alone() {
    clone_alone("bua");
}

#[test]
fn craw_runs_from_a_clone_alone() {
    clone_alone("craw");
}

#[test]
fn sorted_clock_runs_from_a_clone_alone() {
    clone_alone("sorted-clock");
}
