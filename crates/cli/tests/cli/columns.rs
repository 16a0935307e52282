//! Every name the commands write is in the column glossary (docs/columns.md), and
//! every name the glossary lists is written by some command: one name per concept,
//! documented once.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::common::{repo, wafer};

/// stdout of `wafer args...`, which must succeed.
fn run(args: &[&str]) -> String {
    let out = wafer().current_dir(repo()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "wafer {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Every object key in `v`, at any depth.
fn keys(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.insert(k.clone());
                keys(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
        _ => {}
    }
}

/// The names the glossary lists: the backquoted names of each table row's first cell.
fn glossary() -> BTreeSet<String> {
    let text = std::fs::read_to_string(repo().join("docs/columns.md")).unwrap();
    let mut out = BTreeSet::new();
    for line in text.lines().filter(|l| l.starts_with("| `")) {
        let first = line.split('|').nth(1).unwrap_or("");
        for (i, part) in first.split('`').enumerate() {
            if i % 2 == 1 {
                out.insert(part.to_string());
            }
        }
    }
    out
}

#[test]
fn every_written_name_is_in_the_glossary_and_back() {
    let t = "traces/sqlite-wal.wtr";
    let mut written = BTreeSet::new();
    let mut json = |args: &[&str]| {
        let v: Value = serde_json::from_str(&run(args)).unwrap();
        keys(&v, &mut written);
    };
    json(&[
        "sim",
        "-t",
        t,
        "-p",
        "lru",
        "-c",
        "5%",
        "--device",
        "microsd-16g",
        "--json",
    ]);
    json(&[
        "curve",
        "-t",
        t,
        "-p",
        "lru,clock",
        "--points",
        "3",
        "--json",
    ]);
    json(&["trace", "info", t, "--json"]);
    json(&["ftl", "-t", t, "--json"]);
    json(&["ssd", "-t", t, "--json"]);
    let header = |args: &[&str]| -> Vec<String> {
        run(args)
            .lines()
            .next()
            .unwrap()
            .split(',')
            .map(String::from)
            .collect()
    };
    written.extend(header(&["sim", "-t", t, "-p", "lru", "-c", "5%", "--csv"]));
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("c.csv");
    run(&[
        "curve",
        "-t",
        t,
        "--points",
        "3",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&csv).unwrap();
    written.extend(text.lines().next().unwrap().split(',').map(String::from));

    let listed = glossary();
    assert!(
        listed.len() > 100,
        "docs/columns.md lists {} names",
        listed.len()
    );
    // A row's device counters are the FTL's counters with the prefix `ftl_`.
    let known =
        |k: &str| listed.contains(k) || k.strip_prefix("ftl_").is_some_and(|s| listed.contains(s));
    let missing: Vec<&String> = written.iter().filter(|k| !known(k)).collect();
    assert!(
        missing.is_empty(),
        "written but not in docs/columns.md: {missing:?}"
    );
    let prefixed: BTreeSet<String> = written
        .iter()
        .filter_map(|k| k.strip_prefix("ftl_").map(String::from))
        .collect();
    let stale: Vec<&String> = listed
        .iter()
        .filter(|k| !written.contains(*k) && !prefixed.contains(*k))
        .collect();
    assert!(
        stale.is_empty(),
        "in docs/columns.md but written by no command: {stale:?}"
    );
}
