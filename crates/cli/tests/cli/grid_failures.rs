//! A cell that cannot run does not stop its grid: it is reported with its reason
//! (on stderr and in the report), every other cell is computed and stored, and the
//! run exits 1; a rerun tries only the failed cells again.

use std::path::Path;

use crate::common::wafer_process as wafer;

#[test]
fn a_cell_that_does_not_fit_its_device_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let traces = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces");
    // The PostMark capture touches more erase blocks than the card's logical space.
    let exp = dir.path().join("exp.toml");
    std::fs::write(
        &exp,
        format!(
            r#"name = "fits"
traces = [{{ path = "{0}/postmark.wtr", name = "postmark" }}, {{ path = "{0}/sqlite-wal.wtr", name = "sqlite" }}]
policies = ["lru", "clock"]
cache_sizes = ["5%"]
devices = ["microsd-16g"]
[outputs]
figures = ["hit-ratio"]
"#,
            traces.display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    let run = || {
        wafer()
            .arg("run")
            .arg(&exp)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap()
    };
    let o = run();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    for policy in ["lru", "clock"] {
        assert!(
            err.contains(&format!(
                "failed: postmark / {policy} / 5% / microsd-16g: device: the trace touches"
            )),
            "{err}"
        );
    }
    assert_eq!(
        err.lines().last().unwrap(),
        "wafer: 2 of 4 cells failed (listed above); the other 2 are stored"
    );
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["trace"] == "sqlite"));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("2 cells failed"),
        "the report names the failures"
    );
    // A rerun reuses the stored cells and fails the same two again.
    let o = run();
    assert_eq!(o.status.code(), Some(1));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("4 cells: computed 0, reused 2"), "{text}");
}
