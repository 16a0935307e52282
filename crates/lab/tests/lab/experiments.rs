//! End-to-end checks of the experiment runner on a real trace (FIU mail server,
//! 10k requests) with the microSD FAST card behind the cache: worker count does not
//! change results, the single-cell API computes what the runner stores, the Parquet
//! table holds what the JSON table holds, and every figure kind parses with the
//! expected series; streaming the trace through each cell gives what the prepared
//! trace gives.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use serde_json::Value;
use std::sync::Arc;
use wafer_lab::experiment::FIGURES;
use wafer_lab::figures;
use wafer_lab::store::Store;

use wafer_lab::{execute, run_cell, CellResult, Experiment, GridStudy, Plan, Quiet, RunOptions};

/// A trace the repository carries (`traces/README.md`), so these tests run from a
/// clone alone.
const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/fileserver.wtr");

const POLICIES: [&str; 4] = ["lru", "clock", "fab", "craw"];

fn plan(dir: &Path) -> Plan {
    plan_with(dir, "")
}

/// The test plan with `extra` top-level keys.
fn plan_with(dir: &Path, extra: &str) -> Plan {
    assert!(
        Path::new(TRACE).is_file(),
        "missing test trace {TRACE} (bundled in the repository)"
    );
    let text = format!(
        r#"name = "fileserver on microSD"
traces = [{{ path = "{TRACE}", name = "fileserver" }}]
policies = [{}]
cache_sizes = ["1%", "5%", "20%"]
block_size = "256KiB"
devices = ["none", "microsd-16g"]
{extra}
[outputs]
series_every = 500
"#,
        POLICIES
            .iter()
            .map(|p| format!("\"{p}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let path = dir.join("exp.toml");
    std::fs::write(&path, text).unwrap();
    Experiment::load(&path).unwrap()
}

fn run(plan: &Plan, out: PathBuf, jobs: usize) -> wafer_lab::Done {
    let study = Arc::new(GridStudy::new(plan.clone(), Some(&out)));
    execute(&study, &RunOptions::stored(&out, jobs), &mut Quiet).unwrap()
}

fn rows(results: &[CellResult]) -> Vec<Vec<(String, Value)>> {
    results.iter().map(|r| r.row(false)).collect()
}

/// Assert equal rows, naming the first difference (rows are long).
fn same_rows(a: &[Vec<(String, Value)>], b: &[Vec<(String, Value)>], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: row count");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert_eq!(x.len(), y.len(), "{what}: row {i} width");
        for ((k, v), (l, w)) in x.iter().zip(y) {
            assert_eq!(k, l, "{what}: row {i} columns");
            assert_eq!(v, w, "{what}: row {i}, column {k}");
        }
    }
}

/// A result as the store holds it (JSON round trip): equal to the computed one, bit
/// for bit (floats are written in their shortest exact form and parsed exactly).
fn as_stored(r: CellResult) -> CellResult {
    let back: CellResult = serde_json::from_slice(&serde_json::to_vec(&r).unwrap()).unwrap();
    assert_eq!(back, r, "the JSON round trip changed a value");
    back
}

#[test]
fn one_and_two_workers_give_identical_rows() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(dir.path());
    let a = run(&plan, dir.path().join("one"), 1);
    let b = run(&plan, dir.path().join("two"), 2);
    assert_eq!(a.outcome.jobs, 1);
    assert_eq!(b.outcome.jobs, 2);
    assert_eq!(a.outcome.results.len(), 4 * 3 * 2);
    assert_eq!(b.outcome.computed, 24);
    same_rows(
        &rows(&a.outcome.results),
        &rows(&b.outcome.results),
        "1 vs 2 workers",
    );
    // Not vacuous: the cells differ from each other.
    let hits: BTreeSet<u64> = a.outcome.results.iter().map(|r| r.cache.hits).collect();
    assert!(hits.len() > 4, "{hits:?}");
    let erases: BTreeSet<u64> = a
        .outcome
        .results
        .iter()
        .filter_map(|r| r.ftl.as_ref().map(|f| f.erases))
        .collect();
    assert!(!erases.is_empty());
}

#[test]
fn single_cells_compute_what_the_runner_stores() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(dir.path());
    let out = dir.path().join("out");
    let done = run(&plan, out.clone(), 2);
    let cells = plan.cells();
    assert_eq!(cells.len(), 24);
    let ids: Vec<String> = cells.iter().map(|c| c.id()).collect();
    let stored: Vec<&str> = done.outcome.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, stored, "grid order and ids");
    let store = Store::new(&out);
    let collected: Vec<CellResult> = ids.iter().filter_map(|id| store.load(id)).collect();
    same_rows(&rows(&collected), &rows(&done.outcome.results), "collect");
    // A remote worker's view: one cell at a time, decoded on its own.
    for i in [0, 7, 13, 22] {
        let r = as_stored(run_cell(&plan, &cells[i]).unwrap());
        same_rows(
            &[r.row(false)],
            &[done.outcome.results[i].row(false)],
            &format!("cell {i}"),
        );
    }
    // A cell from another experiment is refused, not computed with wrong inputs.
    let mut foreign = cells[0].clone();
    foreign.cache = "3%".into();
    let e = run_cell(&plan, &foreign).unwrap_err().to_string();
    assert!(e.contains("not in this experiment"), "{e}");
    // A driver stores what workers computed; the final run computes nothing.
    let out2 = dir.path().join("driver");
    let st2 = Store::new(&out2);
    for c in &cells {
        st2.save(&c.id(), &run_cell(&plan, c).unwrap()).unwrap();
    }
    let fin = run(&plan, out2.clone(), 1);
    assert_eq!((fin.outcome.computed, fin.outcome.reused), (0, 24));
    assert_eq!(
        fin.outcome.traces.len(),
        1,
        "trace facts recomputed for the report"
    );
    same_rows(
        &rows(&fin.outcome.results),
        &rows(&done.outcome.results),
        "driver",
    );
}

/// `stream = true`: each cell reads the trace itself and the trace's facts come from
/// one counting pass; every row, the trace facts (write pattern included) and a
/// single cell computed on its own are what the prepared trace gives.
#[test]
fn streamed_cells_give_what_the_prepared_trace_gives() {
    let dir = tempfile::tempdir().unwrap();
    let prepared = run(&plan(dir.path()), dir.path().join("prepared"), 2);
    let plan = plan_with(dir.path(), "stream = true");
    assert!(plan.exp.stream);
    let streamed = run(&plan, dir.path().join("streamed"), 2);
    assert_eq!(streamed.outcome.computed, 24);
    same_rows(
        &rows(&streamed.outcome.results),
        &rows(&prepared.outcome.results),
        "streamed vs prepared",
    );
    assert_eq!(streamed.outcome.traces, prepared.outcome.traces);
    assert!(streamed.outcome.traces[0].write_pattern.len() > 100);
    let cells = plan.cells();
    let r = as_stored(run_cell(&plan, &cells[5]).unwrap());
    same_rows(
        &[r.row(false)],
        &[prepared.outcome.results[5].row(false)],
        "single streamed cell",
    );
    // A rerun finds every cell and the stored trace facts: nothing is read again.
    let again = run(&plan, dir.path().join("streamed"), 1);
    assert_eq!((again.outcome.computed, again.outcome.reused), (0, 24));
}

/// A Parquet field as JSON, for comparison with `results.json`.
fn field_json(f: &Field) -> Value {
    match f {
        Field::Null => Value::Null,
        Field::Bool(b) => Value::Bool(*b),
        Field::Str(s) => Value::String(s.clone()),
        Field::ULong(v) => Value::from(*v),
        Field::Long(v) => Value::from(*v),
        Field::Double(v) => Value::from(*v),
        other => panic!("unexpected Parquet field {other:?}"),
    }
}

#[test]
fn parquet_holds_the_rows_of_the_json_table() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(dir.path());
    let out = dir.path().join("out");
    let done = run(&plan, out.clone(), 2);
    let json: Vec<serde_json::Map<String, Value>> =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    let f = std::fs::File::open(out.join("results.parquet")).unwrap();
    let reader = SerializedFileReader::new(f).unwrap();
    assert_eq!(reader.metadata().file_metadata().num_rows(), 24);
    let pq: Vec<Vec<(String, Value)>> = reader
        .get_row_iter(None)
        .unwrap()
        .map(|r| {
            r.unwrap()
                .get_column_iter()
                .map(|(k, v)| (k.clone(), field_json(v)))
                .collect()
        })
        .collect();
    let exact: Vec<_> = done.outcome.results.iter().map(|r| r.row(true)).collect();
    same_rows(&pq, &exact, "parquet vs computed rows");
    assert_eq!(pq.len(), json.len());
    for (p, j) in pq.iter().zip(&json) {
        let names: Vec<&String> = p.iter().map(|(k, _)| k).collect();
        let jnames: Vec<&String> = j.keys().collect();
        assert_eq!(
            names.iter().collect::<BTreeSet<_>>(),
            jnames.iter().collect::<BTreeSet<_>>()
        );
        for (k, v) in p {
            let w = &j[k];
            match (v, w) {
                // results.json is parsed back here: allow its last-bit float error.
                (Value::Number(a), Value::Number(b)) => {
                    let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
                    assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0), "{k}: {a} vs {b}")
                }
                _ => assert_eq!(v, w, "{k}"),
            }
        }
        for k in [
            "wafer_version",
            "trace_checksum",
            "policy",
            "cache",
            "device",
        ] {
            assert!(p.iter().any(|(n, v)| n == k && v.is_string()), "{k}");
        }
    }
    // Cells without a device have null device columns; with one, numbers.
    let waf = |r: &Vec<(String, Value)>| r.iter().find(|(k, _)| k == "ftl_waf").unwrap().1.clone();
    assert!(waf(&pq[0]).is_null());
    assert!(waf(&pq[1]).as_f64().unwrap() >= 1.0);
}

fn series_of(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("SVG parses");
    doc.descendants()
        .filter(|n| n.attribute("class") == Some("series"))
        .map(|n| n.attribute("data-series").unwrap().to_string())
        .collect()
}

#[test]
fn every_figure_kind_parses_with_its_series() {
    let dir = tempfile::tempdir().unwrap();
    let plan = plan(dir.path());
    let out = dir.path().join("out");
    let done = run(&plan, out.clone(), 2);
    let figs = figures::draw(&plan, &done.outcome.results, &done.outcome.traces);
    let kinds: BTreeSet<&str> = figs.iter().map(|f| f.kind).collect();
    let all: BTreeSet<&str> = FIGURES.iter().map(|(k, _)| *k).collect();
    assert_eq!(kinds, all, "every figure kind is drawn");
    assert_eq!(done.figures.len(), figs.len());
    let policies: Vec<String> = POLICIES.iter().map(|s| s.to_string()).collect();
    for f in &figs {
        let path = out.join("figures").join(format!("{}.svg", f.stem));
        let svg = std::fs::read_to_string(&path).unwrap();
        let names = series_of(&svg);
        let png = std::fs::read(path.with_extension("png")).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{}", f.stem);
        match f.kind {
            "hit-ratio"
            | "write-backs"
            | "write-backs-relative"
            | "io-time"
            | "io-time-vs-clock"
            | "erases"
            | "erases-relative"
            | "waf"
            | "block-utilization"
            | "io-counts" => {
                assert_eq!(names, policies, "{}", f.stem)
            }
            "block-utilization-pages" => {
                assert!(!names.is_empty() && names.iter().all(|n| policies.contains(n)));
                // Shares of each policy's written pages over the ranges.
                for s in &f.chart.series {
                    let total: f64 = s.points.iter().map(|p| p.1).sum();
                    assert!((total - 1.0).abs() < 1e-9, "{} {}: {total}", f.stem, s.name);
                }
            }
            "write-pattern" if f.stem.ends_with("-before") => {
                assert_eq!(names, ["before cache"])
            }
            "write-pattern" => {
                assert_eq!(names.len(), 1);
                assert!(f.stem.ends_with(&names[0]), "{} {names:?}", f.stem);
            }
            "areas" => {
                let craw = done
                    .outcome
                    .results
                    .iter()
                    .rev()
                    .find(|r| r.params.policy == "craw" && r.params.device == "none")
                    .unwrap();
                let want = &craw.cache.series.as_ref().unwrap().names;
                assert_eq!(&names, want, "{}", f.stem);
            }
            k => panic!("unexpected kind {k}"),
        }
        // Erase and WAF figures exist only for the device column.
        if matches!(f.kind, "erases" | "erases-relative" | "waf") {
            assert!(f.stem.ends_with("microsd-16g"), "{}", f.stem);
        }
    }
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(roxmltree::Document::parse(&figs[0].chart.svg()).is_ok());
    for bad in [
        "<script",
        "src=\"http",
        "href=\"http",
        "url(http",
        "@import",
    ] {
        assert!(!report.contains(bad), "report refers outside: {bad}");
    }
}

/// The sensitivity experiment of docs/papers.md describes what the page says: the
/// ts-clock preset's card at 1 to 64 RW log blocks, aged, flushed, compact.
#[test]
fn the_log_block_sensitivity_example_sweeps_the_fast_card() {
    if wafer_testdata::trace("mobile-pixel6a/telegram_exec.csv.gz").is_none() {
        return;
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/sensitivity/fast-log-blocks.toml");
    let plan = Experiment::load(&path).unwrap();
    let logs: Vec<Option<u32>> = plan
        .devices
        .iter()
        .map(|d| match d {
            wafer_lab::experiment::DeviceChoice::Device(_, dev) => {
                let card = wafer_ftl::Device::from_profile("microsd-16g").unwrap();
                assert_eq!(dev.geometry, card.geometry, "the preset's card");
                assert_eq!(dev.latency, card.latency);
                dev.rw_log_blocks
            }
            wafer_lab::experiment::DeviceChoice::None => None,
        })
        .collect();
    assert_eq!(logs, [1, 2, 4, 16, 64].map(Some));
    assert!(plan.aging.is_some() && plan.exp.options.flush_at_end);
    assert_eq!(plan.address_map, wafer_ftl::AddressMap::Compact);
}

#[test]
fn a_trace_with_its_own_sizes_is_drawn_at_those_sizes_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("exp.toml");
    std::fs::write(
        &path,
        format!(
            r#"name = "two traces, two size lists"
traces = [
  {{ path = "{TRACE}", name = "a" }},
  {{ path = "{TRACE}", name = "b", cache_sizes = ["2%", "10%"] }},
]
policies = ["lru", "clock"]
cache_sizes = ["1%", "5%", "20%"]
"#
        ),
    )
    .unwrap();
    let plan = Experiment::load(&path).unwrap();
    let done = run(&plan, dir.path().join("out"), 2);
    // 2 policies x (3 + 2) sizes: no cell of `b` at the experiment's sizes.
    assert_eq!(done.outcome.results.len(), 10);
    let figs = figures::draw(&plan, &done.outcome.results, &done.outcome.traces);
    let categories = |stem: &str| {
        figs.iter()
            .find(|f| f.stem == stem)
            .and_then(|f| f.chart.categories.clone())
            .unwrap()
    };
    assert_eq!(categories("hit-ratio-a"), ["1%", "5%", "20%"]);
    assert_eq!(categories("hit-ratio-b"), ["2%", "10%"]);
}

/// A trace file replaced after it was checksummed (as during a long stream run) is
/// detected: no cell computed from the new file is stored under the old checksum.
#[test]
fn a_trace_changed_during_the_run_stores_no_cell() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.wtr");
    std::fs::copy(TRACE, &trace).unwrap();
    let exp = dir.path().join("exp.toml");
    std::fs::write(
        &exp,
        format!(
            r#"name = "changing"
traces = [{{ path = "{}", name = "t" }}]
policies = ["lru", "fifo"]
cache_sizes = ["1MiB"]
stream = true
"#,
            trace.display()
        ),
    )
    .unwrap();
    let plan = Experiment::load(&exp).unwrap();
    // Another trace takes its name (a rename over it: new inode and size).
    let other = dir.path().join("other.wtr");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/sqlite-wal.wtr"),
        &other,
    )
    .unwrap();
    std::fs::rename(&other, &trace).unwrap();
    let out = dir.path().join("out");
    let study = Arc::new(GridStudy::new(plan, Some(&out)));
    let e = wafer_lab::study::run(&study, &RunOptions::stored(&out, 1), &mut Quiet)
        .expect_err("a changed trace is an error")
        .to_string();
    assert!(e.contains("the trace file changed during the run"), "{e}");
    let stored = std::fs::read_dir(out.join("cells"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(stored, 0);
}

/// Replicates: every device cell once per aging seed (`aging.seed`, `+1`, ...), the
/// cache-only column once, and each row carries its seed.
#[test]
fn replicates_age_every_device_cell_with_its_own_seed() {
    let text = r#"name = "r"
policies = ["lru"]
cache_sizes = ["64p"]
devices = ["none", "microsd-16g"]
replicates = 3
[[traces]]
gen = { kind = "uniform", requests = 100, footprint = "1MiB", seed = 1 }
[aging]
seed = 40
"#;
    let exp: wafer_lab::Experiment = toml::from_str(text).unwrap();
    let plan = exp.plan("r.toml", std::path::Path::new(".")).unwrap();
    let cells = plan.cells();
    assert_eq!(cells.len(), 1 + 3);
    let seeds: Vec<Option<u64>> = cells
        .iter()
        .map(|c| c.aging.as_ref().map(|a| a.seed))
        .collect();
    assert_eq!(seeds, [None, Some(40), Some(41), Some(42)]);
    let ids: std::collections::HashSet<String> = cells.iter().map(|c| c.id()).collect();
    assert_eq!(ids.len(), 4, "each replicate is a cell of its own");
    // Without aging there is nothing to replicate.
    let text = text.replace("[aging]\nseed = 40\n", "");
    let exp: wafer_lab::Experiment = toml::from_str(&text).unwrap();
    let e = exp
        .plan("r.toml", std::path::Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("r.toml: replicates") && e.contains("need [aging]"),
        "{e}"
    );
}
