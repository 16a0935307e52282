//! A preset judges each claim once per group of traces, each group at its own cache
//! sizes, and never averages groups together; on bundled traces, so it runs from a
//! clone alone.

use std::sync::Arc;

use wafer_lab::claims::{Claim, Form, Metric, Over};
use wafer_lab::presets::{PaperSetup, Preset, TraceGroup};
use wafer_lab::{execute, GridStudy, Quiet, RunOptions};

const SETUP: PaperSetup = PaperSetup {
    workload: "w",
    sizes: "s",
    device: "d",
    aging: "a",
    metric: "m",
};

const TWO_GROUPS: Preset = Preset {
    name: "two-groups",
    paper: "a test preset",
    policies: &["lru", "clock"],
    devices: &["none"],
    groups: &[
        TraceGroup {
            name: "first",
            traces: &["fileserver.wtr"],
            sizes: &["5%", "20%"],
            differences: "first group",
        },
        TraceGroup {
            name: "second",
            traces: &["sqlite-wal.wtr"],
            sizes: &["10%", "25%", "50%"],
            differences: "second group",
        },
    ],
    write_miss_fetch: false,
    setup: SETUP,
    claims: &[Claim {
        text: "CLOCK costs less I/O time than LRU",
        policy: "clock",
        baseline: "lru",
        metric: Metric::CostTime,
        form: Form::Reduction,
        over: Over::Mean,
        paper: None,
        device: "none",
        differences: "none",
    }],
    sensitivities: &[],
};

#[test]
fn each_group_is_judged_on_its_own_cells_at_its_own_sizes() {
    let plan = TWO_GROUPS.plan(false).unwrap();
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
    let lines = TWO_GROUPS.compare(results);
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
    let chart = TWO_GROUPS.claims_chart(results);
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
    const MISSING: TraceGroup = TraceGroup {
        name: "absent",
        traces: &["no-such-capture.wtr"],
        sizes: &["10%"],
        differences: "none",
    };
    const PARTIAL: &[TraceGroup] = &[TWO_GROUPS.groups[0], MISSING];
    const NONE: &[TraceGroup] = &[MISSING];
    let partial = Preset {
        groups: PARTIAL,
        ..TWO_GROUPS
    };
    let plan = partial.plan(true).unwrap();
    assert_eq!(plan.traces.len(), 1);
    let skipped = partial.skipped();
    assert_eq!(skipped.len(), 1);
    assert_eq!(
        skipped[0].line(),
        "skipped: group absent needs no-such-capture.wtr, not found; run from a wafer clone (they are under its traces/)"
    );
    let none = Preset {
        groups: NONE,
        ..TWO_GROUPS
    };
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
    let plan = TWO_GROUPS.plan(true).unwrap();
    let setup = TWO_GROUPS.setup_table(&plan);
    let dir = tempfile::tempdir().unwrap();
    let study = GridStudy::new(plan, Some(dir.path()))
        .with_preface(Box::new(move |rs| TWO_GROUPS.preface(&setup, rs)));
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
        "<th class=l>claim</th><th class=l>traces</th><th class=l>the paper</th><th class=l>wafer</th><th>cells favourable</th><th class=l>verdict</th>"
    ));
    let rows: Vec<&str> = table.split("<tr>").skip(2).collect();
    assert_eq!(rows.len(), 2, "one row per claim and group: {table}");
    // The verdicts the comparison prints, group by group, in the table's rows.
    let printed: Vec<String> = TWO_GROUPS
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
