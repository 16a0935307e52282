//! Generated traces in experiment files (`gen = { kind = ..., ... }`): a grid over a
//! generator runs like a grid over a file, reruns byte-identically, and gives the
//! same metrics as the same requests written to a `.wtr` file first; errors in a
//! generator's parameters name the key.

use std::path::Path;

use serde_json::Value;
use wafer_lab::{execute, CellResult, Experiment, GridStudy, Plan, Quiet, RunOptions};
use wafer_trace::gen::GenSpec;
use wafer_trace::{OutFormat, TraceWriter, WriteInfo};

const GEN: &str = r#"{ kind = "zipf", theta = 0.99, requests = 20000, footprint = "64MiB", write_ratio = 0.3, seed = 7 }"#;

fn load(dir: &Path, trace: &str) -> Result<Plan, String> {
    let text = format!(
        "name = \"gen\"\ntraces = [{trace}]\npolicies = [\"lru\", \"clock\", \"fab\"]\n\
         cache_sizes = [\"1MiB\", \"10%\"]\nblock_size = \"256KiB\"\ndevices = [\"none\", \"microsd-16g\"]\n"
    );
    let path = dir.join("exp.toml");
    std::fs::write(&path, text).unwrap();
    Experiment::load(&path).map_err(|e| e.to_string())
}

fn run(plan: &Plan, out: &Path) -> Vec<CellResult> {
    let study = std::sync::Arc::new(GridStudy::new(plan.clone(), Some(out)));
    execute(&study, &RunOptions::stored(out, 2), &mut Quiet)
        .unwrap()
        .outcome
        .results
}

/// Rows without timing, as JSON bytes.
fn bytes(results: &[CellResult]) -> Vec<u8> {
    let rows: Vec<Vec<(String, Value)>> = results.iter().map(|r| r.row(false)).collect();
    serde_json::to_vec(&rows).unwrap()
}

#[test]
fn a_generated_trace_runs_and_reruns_byte_identically() {
    let dir = tempfile::tempdir().unwrap();
    let plan = load(dir.path(), &format!("{{ gen = {GEN}, name = \"zipf\" }}")).unwrap();
    let a = run(&plan, &dir.path().join("a"));
    assert_eq!(a.len(), 3 * 2 * 2);
    assert!(a.iter().all(|r| r.params.trace == "zipf"));
    assert!(a.iter().any(|r| r
        .ftl
        .as_ref()
        .is_some_and(|f| f.erases > 0 || f.busy_ns > 0)));
    // A fresh plan from the same file, a fresh output folder: identical rows and
    // identical trace facts.
    let plan2 = load(dir.path(), &format!("{{ gen = {GEN}, name = \"zipf\" }}")).unwrap();
    let b = run(&plan2, &dir.path().join("b"));
    assert_eq!(bytes(&a), bytes(&b));
    let sum = &plan.checksums[0];
    // The one facts file, named by the checksum (and the page size it was counted at).
    let info = |d: &str| {
        let files: Vec<_> = std::fs::read_dir(dir.path().join(d).join("traces"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(files.len(), 1, "{files:?}");
        let name = files[0].file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(&format!("{sum}-")), "{name}");
        std::fs::read(&files[0]).unwrap()
    };
    assert_eq!(info("a"), info("b"));
    let facts: Value = serde_json::from_slice(&info("a")).unwrap();
    assert_eq!(facts["requests"], 20000);
    assert!(facts["path"].as_str().unwrap().starts_with("gen: zipf"));
}

#[test]
fn a_generated_trace_gives_what_the_same_requests_from_a_file_give() {
    let dir = tempfile::tempdir().unwrap();
    let spec: GenSpec = toml::from_str::<toml::Table>(&format!("g = {GEN}")).unwrap()["g"]
        .clone()
        .try_into()
        .unwrap();
    let file = dir.path().join("zipf.wtr");
    let info = WriteInfo {
        origin: spec.to_string(),
        page_size: spec.page_size(),
        has_time: true,
        has_op: true,
    };
    let mut w = TraceWriter::create(&file, OutFormat::Wtr, &info).unwrap();
    w.write_all(&spec.collect().unwrap()).unwrap();
    w.finish().unwrap();
    let generated = run(
        &load(dir.path(), &format!("{{ gen = {GEN}, name = \"zipf\" }}")).unwrap(),
        &dir.path().join("g"),
    );
    let from_file = run(
        &load(dir.path(), "{ path = \"zipf.wtr\", name = \"zipf\" }").unwrap(),
        &dir.path().join("f"),
    );
    // Identity differs (checksum of the spec vs of the file, no format vs wtr); every
    // metric agrees.
    let metrics = |rs: &[CellResult]| -> Vec<Vec<(String, Value)>> {
        rs.iter()
            .map(|r| {
                r.row(false)
                    .into_iter()
                    .filter(|(k, _)| !["cell_id", "trace_checksum", "format"].contains(&k.as_str()))
                    .collect()
            })
            .collect()
    };
    assert_eq!(metrics(&generated), metrics(&from_file));
    assert_ne!(
        generated[0].params.trace_checksum,
        from_file[0].params.trace_checksum
    );
}

#[test]
fn generator_errors_name_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let e = load(dir.path(), "{ gen = { kind = \"zipf\", theta = -1.0 } }").unwrap_err();
    assert!(e.contains("traces[0].gen"), "{e}");
    assert!(e.contains("theta"), "{e}");
    let e = load(dir.path(), "{ gen = { kind = \"zipf\", colour = 1 } }").unwrap_err();
    assert!(e.contains("colour"), "{e}");
    let e = load(dir.path(), "{ gen = { kind = \"zipff\" } }").unwrap_err();
    assert!(e.contains("zipff"), "{e}");
    let e = load(dir.path(), "{ name = \"x\" }").unwrap_err();
    assert!(e.contains("traces[0]: needs `path"), "{e}");
    let e = load(
        dir.path(),
        "{ path = \"x.csv\", gen = { kind = \"zipf\" } }",
    )
    .unwrap_err();
    assert!(e.contains("traces[0]") && e.contains("not both"), "{e}");
    // A different seed is a different trace.
    let a = load(dir.path(), "{ gen = { kind = \"zipf\", seed = 1 } }").unwrap();
    let b = load(dir.path(), "{ gen = { kind = \"zipf\", seed = 2 } }").unwrap();
    assert_ne!(a.checksums, b.checksums);
    assert_eq!(a.traces[0].0.label(), "zipf");
}
