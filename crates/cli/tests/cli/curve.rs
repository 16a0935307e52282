//! `wafer curve` end to end: CSV columns and values, JSON, the figure, and exit codes
//! of bad input.

use std::path::PathBuf;

use predicates::prelude::*;

use crate::common::wafer;

fn sqlite() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../traces/sqlite-wal.wtr")
}

/// The CSV has the metric columns of `wafer sim`; its exact rows equal `wafer sim`'s
/// LRU at the same sizes; 1 and the footprint are always among the sizes.
#[test]
fn csv_columns_and_exact_rows_match_sim() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("c.csv");
    let svg = dir.path().join("c.svg");
    let writes = dir.path().join("w.svg");
    wafer()
        .args(["curve", "-t"])
        .arg(sqlite())
        .args(["--method", "exact,shards", "--rate", "0.5", "--points", "5"])
        .arg("--csv")
        .arg(&csv)
        .arg("--plot")
        .arg(&svg)
        .arg("--plot-writes")
        .arg(&writes)
        .assert()
        .success()
        .stdout(predicate::str::contains("1582 distinct pages"));
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    for col in [
        "policy",
        "method",
        "rate",
        "capacity_pages",
        "hits",
        "read_hits",
        "write_hits",
        "page_reads",
        "page_writes",
        "dirty_at_end",
        "miss_ratio",
    ] {
        assert!(header.contains(&col), "column {col}");
    }
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    fn col<'a>(header: &[&str], r: &[&'a str], name: &str) -> &'a str {
        r[header.iter().position(|h| *h == name).unwrap()]
    }
    let col = |r: &Vec<&'_ str>, name: &str| col(&header, r, name).to_string();
    let exact: Vec<_> = rows
        .iter()
        .filter(|r| col(r, "method") == "exact")
        .collect();
    let sizes: Vec<String> = exact.iter().map(|r| col(r, "capacity_pages")).collect();
    assert_eq!(sizes.first().map(String::as_str), Some("1"));
    assert_eq!(sizes.last().map(String::as_str), Some("1582"));
    assert_eq!(rows.len(), 2 * exact.len());
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.contains("lru (exact)") && svg.contains("lru (shards)"));
    let writes = std::fs::read_to_string(&writes).unwrap();
    assert!(writes.contains("Write-backs by cache size") && writes.contains("lru (exact)"));
    // wafer sim at one of the sizes.
    let r = exact[2];
    let out = wafer()
        .args(["sim", "-t"])
        .arg(sqlite())
        .args([
            "-p",
            "lru",
            "-c",
            &format!("{}p", col(r, "capacity_pages")),
            "--json",
        ])
        .output()
        .unwrap();
    let sim: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &sim[0];
    for name in [
        "hits",
        "read_hits",
        "write_hits",
        "page_reads",
        "page_writes",
        "dirty_at_end",
    ] {
        assert_eq!(
            m[name].as_u64().unwrap().to_string(),
            col(r, name),
            "{name}"
        );
    }
}

/// Explicit sizes, minisim for any policy, JSON rows.
#[test]
fn minisim_json_rows() {
    let out = wafer()
        .args(["curve", "-t"])
        .arg(sqlite())
        .args(["-p", "lru,ts-clock", "--method", "minisim", "--rate", "1"])
        .args(["--sizes", "10p,50%", "--json", "--seed", "4"])
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
    assert_eq!(rows[0]["method"], "minisim");
    assert_eq!(rows[0]["capacity_pages"], 10);
    assert_eq!(rows[1]["capacity_pages"], 791);
    // Flat rows with the CSV's columns.
    assert!(rows[0]["miss_ratio"].is_number() && rows[0]["page_writes"].is_number());
    assert_eq!(rows[3]["policy"], "ts-clock");
    assert_eq!(rows[3]["seed"], 4);
}

#[test]
fn bad_input_exits_2_or_1_with_one_line() {
    let t = sqlite();
    let t = t.to_str().unwrap();
    let usage: &[&[&str]] = &[
        &["-p", "arc", "--method", "exact"],
        &["-p", "arc", "--method", "shards"],
        &["--method", "exakt"],
        &["--method", "exact,exact"],
        &["--method", "shards", "--rate", "0"],
        &["--method", "shards", "--rate", "1.5"],
        &["--rate", "0.1"],
        &["--method", "shards", "--max-keys", "0"],
        &["--exact-head", "100"],
        &["-p", "arc", "--method", "minisim", "--exact-head", "100"],
        &["--points", "0"],
        &["--sizes", "12 apples"],
        &["-p", "nosuch"],
        &["--block", "3KiB"],
        &["--sample-unit", "sector"],
    ];
    for a in usage {
        let out = wafer().args(["curve", "-t", t]).args(*a).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{a:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{a:?}: {err}");
    }
    // The trace as an output is refused.
    wafer()
        .args(["curve", "-t", t, "--csv", t])
        .assert()
        .code(2);
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "time_ns,op,dev,offset,len\n1,X,0,0,4096\n").unwrap();
    let out = wafer().args(["curve", "-t"]).arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    wafer()
        .args(["curve", "-t"])
        .arg(dir.path().join("missing.wtr"))
        .assert()
        .code(1);
}

#[test]
fn parquet_rows_are_the_csv_rows() {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let dir = tempfile::tempdir().unwrap();
    let (csv, pq) = (dir.path().join("c.csv"), dir.path().join("c.parquet"));
    wafer()
        .args(["curve", "-t"])
        .arg(sqlite())
        .args(["--method", "exact,shards", "--rate", "0.5", "--points", "4"])
        .arg("--csv")
        .arg(&csv)
        .arg("--parquet")
        .arg(&pq)
        .assert()
        .success();
    let text = std::fs::read_to_string(&csv).unwrap();
    let header: Vec<String> = text
        .lines()
        .next()
        .unwrap()
        .split(',')
        .map(String::from)
        .collect();
    let rows: Vec<Vec<String>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    let reader = SerializedFileReader::new(std::fs::File::open(&pq).unwrap()).unwrap();
    let names: Vec<String> = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    assert_eq!(names, header);
    let got: Vec<Vec<String>> = reader
        .get_row_iter(None)
        .unwrap()
        .map(|r| {
            r.unwrap()
                .get_column_iter()
                .map(|(_, f)| match f {
                    parquet::record::Field::Null => String::new(),
                    parquet::record::Field::Str(s) => s.clone(),
                    other => other.to_string(),
                })
                .collect()
        })
        .collect();
    assert_eq!(got.len(), rows.len());
    // Counters and text agree cell by cell (floats are checked by value).
    for (g, r) in got.iter().zip(&rows) {
        for ((name, a), b) in header.iter().zip(g).zip(r) {
            match (a.parse::<f64>(), b.parse::<f64>()) {
                (Ok(x), Ok(y)) => assert_eq!(x, y, "{name}"),
                _ => assert_eq!(a, b, "{name}"),
            }
        }
    }
}

/// A figure takes the form its extension names (a PDF is a PDF, not SVG text in a
/// .pdf file); an extension that is none of them is refused before any work.
#[test]
fn plots_are_written_in_the_form_their_extension_names() {
    let dir = tempfile::tempdir().unwrap();
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/sqlite-wal.wtr");
    let (pdf, png, svg) = (
        dir.path().join("m.pdf"),
        dir.path().join("w.PNG"),
        dir.path().join("m.svg"),
    );
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("wafer"))
        .args(["curve", "-t", trace, "--plot"])
        .arg(&pdf)
        .arg("--plot-writes")
        .arg(&png)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::read(&pdf).unwrap().starts_with(b"%PDF-"));
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("wafer"))
        .args(["curve", "-t", trace, "--plot"])
        .arg(&svg)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    let jpg = dir.path().join("m.jpg");
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("wafer"))
        .args(["curve", "-t", trace, "--plot"])
        .arg(&jpg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("a figure is written as .svg, .png or .pdf"),
        "{err}"
    );
    assert!(!jpg.exists());
}

/// Minisim's policies x sizes run as cells of the one runner: one worker or two,
/// the rows are the same, in the same order.
#[test]
fn minisim_rows_do_not_depend_on_the_workers() {
    let dir = tempfile::tempdir().unwrap();
    let csv = |jobs: &str| {
        let out = dir.path().join(format!("j{jobs}.csv"));
        wafer()
            .args(["curve", "-t"])
            .arg(sqlite())
            .args(["--policy", "clock,ts-clock", "--method", "minisim"])
            .args(["--rate", "0.2", "--points", "6", "-j", jobs, "--csv"])
            .arg(&out)
            .assert()
            .success();
        std::fs::read_to_string(out).unwrap()
    };
    let one = csv("1");
    for p in ["clock", "ts-clock"] {
        assert!(
            one.lines()
                .filter(|l| l.contains(&format!(",{p},minisim,")))
                .count()
                >= 4,
            "{one}"
        );
    }
    assert_eq!(one, csv("2"));
}

/// `wafer curve` takes the engine options `wafer sim` takes (one declaration,
/// `wafer_lab::options`), former spellings included, and refuses the ones a curve
/// has no use for rather than ignore them.
#[test]
fn the_engine_options_it_cannot_use_are_refused() {
    let t = sqlite();
    let t = t.to_str().unwrap();
    let rows = |extra: &[&str]| {
        let out = wafer()
            .args(["curve", "-t", t, "--points", "5", "--json"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{extra:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(
        rows(&["--block-size", "1MiB"]),
        rows(&["--block", "1MiB"]),
        "a former spelling is the same option"
    );
    for (flag, want) in [
        (
            "--t-read-ns",
            "--t-read-ns: a curve counts page reads and writes",
        ),
        (
            "--t-write-ns",
            "--t-write-ns: a curve counts page reads and writes",
        ),
        (
            "--series-every",
            "--series-every: a curve samples no policy series",
        ),
    ] {
        let out = wafer()
            .args(["curve", "-t", t, flag, "7"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with(&format!("wafer: {want}")), "{err}");
    }
}
