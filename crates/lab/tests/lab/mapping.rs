//! A custom text trace in an experiment file: the trace entry's `mapping` table reads
//! it as the same requests in wafer's CSV are read, the mapping is part of each run's
//! identity, and a bad mapping is refused naming its key.

use std::path::Path;
use wafer_lab::{run_cell, Experiment, Plan};

/// 200 requests as a generic CSV (`ts,op,lba,blocks`: us, R/W, 512 B sectors) and as
/// wafer CSV.
fn files(dir: &Path) {
    let mut generic = String::from("ts;op;lba;blocks\n");
    let mut native = String::from("time_ns,op,dev,offset,len\n");
    let mut x: u64 = 11;
    for i in 0..200u64 {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let lba = (x >> 20) % 256 * 8;
        let blocks = 8 * (1 + (x >> 10) % 2);
        let op = if (x >> 5) % 4 == 0 { "WRITE" } else { "READ" };
        generic += &format!("{};{op};{lba};{blocks}\n", i * 100);
        native += &format!(
            "{},{},0,{},{}\n",
            i * 100_000,
            &op[..1],
            lba * 512,
            blocks * 512
        );
    }
    std::fs::write(dir.join("g.txt"), generic).unwrap();
    std::fs::write(dir.join("w.csv"), native).unwrap();
}

const MAPPING: &str = r#"{ offset_col = 2, len_col = 3, op_col = 1, time_col = 0, delimiter = ";", skip_lines = 1, units = "sectors", time_unit = "us", read_ops = ["READ"], write_ops = ["WRITE"] }"#;

fn plan(dir: &Path, traces: &str) -> Result<Plan, String> {
    let text = format!(
        "name = \"m\"\ntraces = [{traces}]\npolicies = [\"lru\", \"cflru\"]\ncache_sizes = [\"64KiB\"]\n"
    );
    let exp: Experiment = toml::from_str(&text).map_err(|e| e.to_string())?;
    exp.plan("exp.toml", dir).map_err(|e| e.to_string())
}

#[test]
fn a_mapped_trace_reads_like_wafer_csv() {
    let dir = tempfile::tempdir().unwrap();
    files(dir.path());
    let p = plan(
        dir.path(),
        &format!(r#"{{ path = "g.txt", mapping = {MAPPING} }}, {{ path = "w.csv" }}"#),
    )
    .unwrap();
    let cells = p.cells();
    assert_eq!(cells.len(), 4);
    let format = cells[0].format.as_deref().unwrap();
    assert!(format.starts_with("generic {"), "{format}");
    assert!(format.contains("\"offset_unit\":512"), "{format}");
    for i in 0..2 {
        let a = run_cell(&p, &cells[i]).unwrap();
        let b = run_cell(&p, &cells[i + 2]).unwrap();
        assert_eq!(a.cache, b.cache, "{}", cells[i].policy);
        assert!(a.cache.accesses >= 200);
    }
    // Another reading of the same file is another run.
    let other = MAPPING.replace("\"sectors\"", "\"4KiB\"");
    let q = plan(
        dir.path(),
        &format!(r#"{{ path = "g.txt", mapping = {other} }}"#),
    )
    .unwrap();
    assert_eq!(q.cells()[0].trace_checksum, cells[0].trace_checksum);
    assert_ne!(q.cells()[0].id(), cells[0].id());
    // `format = "generic"` may be given with the mapping.
    let r = plan(
        dir.path(),
        &format!(r#"{{ path = "g.txt", format = "generic", mapping = {MAPPING} }}"#),
    )
    .unwrap();
    assert_eq!(r.cells()[0].id(), cells[0].id());
}

#[test]
fn bad_mappings_name_the_key() {
    let dir = tempfile::tempdir().unwrap();
    files(dir.path());
    let err = |entry: &str| plan(dir.path(), entry).unwrap_err();
    let e = err(r#"{ path = "g.txt", mapping = { offset_col = 2, units = "furlongs" } }"#);
    assert!(
        e.starts_with("exp.toml: traces[0].mapping.units: `furlongs`: expected bytes, sectors"),
        "{e}"
    );
    let e = err(r#"{ path = "g.txt", mapping = { len_col = 3 } }"#);
    assert!(
        e.starts_with("exp.toml: traces[0].mapping.offset_col: "),
        "{e}"
    );
    let e = err(r#"{ path = "g.txt", format = "msr", mapping = { offset_col = 2 } }"#);
    assert!(
        e.starts_with("exp.toml: traces[0].mapping: describes generic text, not msr"),
        "{e}"
    );
    let e = err(r#"{ path = "g.txt", format = "generic" }"#);
    assert!(
        e.starts_with("exp.toml: traces[0].format: \"generic\" needs a `mapping"),
        "{e}"
    );
    let e = err(r#"{ path = "g.txt", mapping = { offset = 2 } }"#);
    assert!(e.contains("unknown field `offset`"), "{e}");
    // Checked before the file is looked at.
    let e = err(r#"{ path = "missing.txt", mapping = { offset_col = 0, time_unit = "h" } }"#);
    assert!(
        e.starts_with("exp.toml: traces[0].mapping.time_unit: "),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
}
