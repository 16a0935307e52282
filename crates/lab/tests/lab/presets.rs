//! A preset judges each claim once per group of traces, each group at its own cache
//! sizes, and never averages groups together; on bundled traces, so it runs from a
//! clone alone.

use std::path::Path;
use std::sync::Arc;

use wafer_lab::presets::{self, Preset};
use wafer_lab::{execute, GridStudy, Quiet, RunOptions};

/// A study of two groups (bundled captures), one claim.
const TWO_GROUPS: &str = r#"
name = "two-groups"
policies = ["lru", "clock"]
devices = ["none"]

[paper]
reference = "a test preset"
workload = "w"
sizes = "s"
device = "d"
aging = "a"
metric = "m"

[[groups]]
name = "first"
traces = ["fileserver.wtr"]
sizes = ["5%", "20%"]
differences = "first group"

[[groups]]
name = "second"
traces = ["sqlite-wal.wtr"]
sizes = ["10%", "25%", "50%"]
differences = "second group"

[[claims]]
text = "CLOCK costs less I/O time than LRU"
policy = "clock"
baseline = "lru"
metric = "cost-time"
form = "reduction"
device = "none"
differences = "none"
"#;

fn two_groups() -> Preset {
    Preset::parse(TWO_GROUPS, "two-groups.toml", Path::new(".")).unwrap()
}

#[test]
fn each_group_is_judged_on_its_own_cells_at_its_own_sizes() {
    let two = two_groups();
    let plan = two.plan(false).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let study = Arc::new(GridStudy::new(plan.clone(), Some(dir.path())));
    let done = execute(&study, &RunOptions::stored(dir.path(), 2), &mut Quiet).unwrap();
    let results = &done.outcome.results;
    // 2 policies x (2 + 3) sizes.
    assert_eq!(results.len(), 10);
    let sizes = |trace: &str| {
        let mut s: Vec<String> = results
            .iter()
            .filter(|r| r.params.trace == trace && r.params.policy == "lru")
            .map(|r| r.params.cache.clone())
            .collect();
        s.sort();
        s
    };
    assert_eq!(sizes("fileserver"), ["20%", "5%"]);
    assert_eq!(sizes("sqlite-wal"), ["10%", "25%", "50%"]);
    let lines = two.compare(results);
    let on: Vec<&String> = lines.iter().filter(|l| l.starts_with("  on ")).collect();
    assert_eq!(
        on,
        ["  on first (fileserver):", "  on second (sqlite-wal):"]
    );
    // One verdict per group, each naming only its group's trace and workload.
    let verdicts = lines
        .iter()
        .filter(|l| l.trim_start().starts_with("verdict: "))
        .count();
    assert_eq!(verdicts, 2, "{lines:#?}");
    let second = lines
        .iter()
        .position(|l| l.starts_with("  on second"))
        .unwrap();
    assert!(lines[..second].iter().all(|l| !l.contains("sqlite-wal")));
    assert!(lines[second..].iter().all(|l| !l.contains("fileserver")));
    assert!(lines[second..]
        .iter()
        .any(|l| l.contains("workload: second group")));
    // The figure numbers the claim and its key spells out one verdict per group.
    let chart = two.claims_chart(results);
    let label = &chart.categories.as_ref().unwrap()[0];
    assert_eq!(label, "1. I/O time\nclock/lru");
    let key = &chart.notes[0];
    assert!(
        key.starts_with("1. clock vs lru, I/O time: first ") && key.contains("; second "),
        "{key}"
    );
}

/// A group whose traces are not here is left out with a line naming them; a preset
/// none of whose groups can run is a missing-trace error carrying those lines.
#[test]
fn a_group_without_its_traces_is_skipped_and_named() {
    let missing =
        "\n[[groups]]\nname = \"absent\"\ntraces = [\"no-such-capture.wtr\"]\nsizes = [\"10%\"]\n";
    // The first group and the absent one (a group's tables end at the next one).
    let first_end = TWO_GROUPS.find("[[groups]]\nname = \"second\"").unwrap();
    let claims = TWO_GROUPS.find("[[claims]]").unwrap();
    let text = format!(
        "{}{missing}\n{}",
        &TWO_GROUPS[..first_end],
        &TWO_GROUPS[claims..]
    );
    let partial = Preset::parse(&text, "partial.toml", Path::new(".")).unwrap();
    let plan = partial.plan(true).unwrap();
    assert_eq!(plan.traces.len(), 1);
    let skipped = partial.skipped();
    assert_eq!(skipped.len(), 1);
    assert_eq!(
        skipped[0].skipped_line(),
        "skipped: group absent needs no-such-capture.wtr, not found; run from a wafer clone (they are under its traces/)"
    );
    let groups = TWO_GROUPS.find("[[groups]]").unwrap();
    let text = format!(
        "{}{missing}\n{}",
        &TWO_GROUPS[..groups],
        &TWO_GROUPS[claims..]
    );
    let none = Preset::parse(&text, "none.toml", Path::new(".")).unwrap();
    match none.plan(false) {
        Err(wafer_lab::LabError::MissingTrace(m)) => {
            assert!(m.contains("no group of traces can run here"), "{m}");
            assert!(
                m.contains("skipped: group absent needs no-such-capture.wtr"),
                "{m}"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// The report of a preset opens with the verdict table: its header, then one row per
/// claim and group, each with a verdict, the same verdicts the comparison prints.
#[test]
fn the_report_opens_with_a_verdict_row_per_claim_and_group() {
    let two = Arc::new(two_groups());
    let plan = two.plan(true).unwrap();
    let setup = two.setup_table(&plan);
    let dir = tempfile::tempdir().unwrap();
    let judge = Arc::clone(&two);
    let study = GridStudy::new(plan, Some(dir.path()))
        .with_preface(Box::new(move |rs| judge.preface(&setup, rs)));
    let done = execute(
        &Arc::new(study),
        &RunOptions::stored(dir.path(), 2),
        &mut Quiet,
    )
    .unwrap();
    let html = std::fs::read_to_string(done.report.unwrap()).unwrap();
    let start = html
        .find("<table class=\"verdicts\">")
        .expect("verdict table");
    assert!(start < html.find("id=\"glance\"").unwrap());
    assert!(start < html.find("id=\"setup\"").unwrap());
    assert!(start < html.find("id=\"contents\"").unwrap());
    let table = &html[start..start + html[start..].find("</table>").unwrap()];
    assert!(table.contains(
        "<th class=l>claim</th><th class=l>traces or view</th><th class=l>the paper</th><th class=l>wafer</th><th>cells favourable</th><th class=l>verdict</th>"
    ));
    let rows: Vec<&str> = table.split("<tr>").skip(2).collect();
    assert_eq!(rows.len(), 2, "one row per claim and group: {table}");
    // The verdicts the comparison prints, group by group, in the table's rows.
    let printed: Vec<String> = two
        .compare(&done.outcome.results)
        .iter()
        .filter_map(|l| l.trim_start().strip_prefix("verdict: "))
        .map(|v| v.split(' ').next().unwrap().to_string())
        .collect();
    assert_eq!(printed.len(), 2);
    for ((row, group), verdict) in rows
        .iter()
        .zip(["first (fileserver)", "second (sqlite-wal)"])
        .zip(&printed)
    {
        assert!(row.contains(&format!("<td class=l>{group}</td>")), "{row}");
        assert!(
            row.contains(&format!("<td class=\"l v-{verdict}\"><b>{verdict}</b>")),
            "{row}"
        );
        assert!(row.contains(" of "), "cells favourable: {row}");
    }
    assert!(rows[0].contains("rowspan=\"2\"><b>1. clock vs lru, I/O time</b>"));
    // The setup is a table, not text lines.
    assert!(html.contains("<table class=\"setup\">"));
    assert!(!html.contains("setup (aspect: the paper | wafer)"));
}

/// A hand-written experiment file with one `[[claims]]` entry on bundled traces (no
/// groups, no paper): `wafer run`'s study runner prints the claim's verdict, and the
/// report's verdict table has its row.
#[test]
fn an_experiment_file_with_one_claim_prints_its_verdict_and_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let traces = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces");
    let file = dir.path().join("mine.toml");
    std::fs::write(
        &file,
        format!(
            r#"name = "mine"
policies = ["lru", "clock"]
cache_sizes = ["10%", "25%"]

[[traces]]
path = "{}"

[[claims]]
text = "CLOCK writes back no more pages than LRU"
policy = "clock"
baseline = "lru"
metric = "pages-written"
form = "reduction"
"#,
            traces.join("sqlite-wal.wtr").display()
        ),
    )
    .unwrap();
    let study = Arc::new(Preset::load(&file).unwrap());
    assert_eq!(study.groups.len(), 1, "the file's traces are one group");
    let out = dir.path().join("out");
    let mut printed = Vec::new();
    let mut run = |plan, at: &Path, preface| {
        let grid = Arc::new(GridStudy::new(plan, Some(at)).with_preface(preface));
        execute(&grid, &RunOptions::stored(at, 2), &mut Quiet)
    };
    let mut board = |_: &Arc<wafer_lab::apu::ApuStudy>,
                     _: &Path|
     -> Result<_, wafer_lab::LabError> { unreachable!("a grid study") };
    let done = presets::reproduce(&study, &out, false, &mut printed, &mut run, &mut board).unwrap();
    let printed = String::from_utf8(printed).unwrap();
    assert!(
        printed.contains("claim: CLOCK writes back no more pages than LRU"),
        "{printed}"
    );
    let verdict = printed
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("verdict: "))
        .expect("a verdict line");
    assert_eq!(done.verdicts.len(), 1);
    assert!(verdict.starts_with(&done.verdicts[0].verdict), "{verdict}");
    assert_eq!(done.results.len(), 4);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<table class=\"verdicts\">"));
    assert!(html.contains(&format!(
        "<td class=\"l v-{0}\"><b>{0}</b>",
        done.verdicts[0].verdict
    )));
}
