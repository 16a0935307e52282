//! A reduced `apu` preset (the design of paper 004, Huang et al., "Efficient Cache
//! Design for Solid-State Drives", ACM Computing Frontiers 2010; tiny sizes): every
//! cell of the design is stored with its row, the figures and report are written, flush
//! counts follow the configuration, the Parquet table holds the rows, and a rerun
//! computes nothing and reports the same rows.

use std::sync::Arc;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;
use serde_json::Value;
use wafer_lab::apu::{self, ApuStudy};
use wafer_lab::{Quiet, RunOptions};

fn study() -> ApuStudy {
    ApuStudy {
        kinds: vec!["random-write".into(), "thrash".into()],
        sizes_mb: vec![1, 2],
        ways: vec![1, 2],
        apus: vec!["off".into(), "lru".into()],
        gaps_ms: vec![100.0],
        thresholds_ms: vec![1.0, 4.0],
        sweep_kind: "random-write".into(),
        sweep_mb: 1,
        requests: 200,
        device_gib: 16, // the generators span 16 GiB (Table 5)
    }
}

#[test]
fn a_reduced_apu_preset_writes_rows_figures_and_report() {
    let dir = tempfile::tempdir().unwrap();
    let s = study();
    let s = Arc::new(s);
    let a = apu::execute(&s, &RunOptions::stored(dir.path(), 2), &mut Quiet).unwrap();
    // 2 kinds x (no cache + 2 sizes x 2 ways x 2 APUs) + 2 thresholds.
    assert_eq!(a.results.len(), 2 * (1 + 2 * 2 * 2) + 2);
    assert_eq!(a.computed, a.results.len());
    let csv = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), a.results.len() + 1);
    assert!(csv.starts_with("cell_id,kind,gap_ms,cache_mb,ways,apu,"));
    // The Parquet table: the same rows, typed (text, counts, doubles, flags).
    let f = std::fs::File::open(dir.path().join("results.parquet")).unwrap();
    let pq: Vec<Vec<(String, Value)>> = SerializedFileReader::new(f)
        .unwrap()
        .get_row_iter(None)
        .unwrap()
        .map(|r| {
            r.unwrap()
                .get_column_iter()
                .map(|(k, v)| {
                    let v = match v {
                        Field::Str(s) => Value::from(s.clone()),
                        Field::ULong(n) => Value::from(*n),
                        Field::Double(x) => Value::from(*x),
                        Field::Bool(b) => Value::from(*b),
                        other => panic!("{k}: unexpected Parquet field {other:?}"),
                    };
                    (k.clone(), v)
                })
                .collect()
        })
        .collect();
    let rows: Vec<_> = a.results.iter().map(|r| r.row()).collect();
    assert_eq!(pq, rows);
    assert_eq!(
        csv.lines().next().unwrap(),
        rows[0]
            .iter()
            .map(|(k, _)| k.as_str())
            .collect::<Vec<_>>()
            .join(",")
    );
    for r in &a.results {
        assert_eq!(r.cell.requests, 200);
        assert!(r.mean_ms > 0.0, "{r:?}");
        // Only APU flushes by APU; a device without a cache flushes nothing.
        if r.cell.apu == "off" {
            assert_eq!(r.apu_flushes, 0, "{r:?}");
        }
        if r.cell.cache_mb == 0 {
            assert_eq!(r.on_demand_flushes + r.apu_flushes, 0, "{r:?}");
        }
    }
    // At 100 ms gaps the idle time flushes what random writes dirty: APU flushes
    // happen and cut the response time at the small cache (docs/ssd.md, finding 2).
    let at = |apu: &str| {
        a.results
            .iter()
            .find(|r| {
                r.cell.kind == "random-write"
                    && !r.cell.sweep
                    && r.cell.cache_mb == 1
                    && r.cell.ways == 1
                    && r.cell.apu == apu
            })
            .unwrap()
            .clone()
    };
    assert!(at("lru").apu_flushes > 0);
    assert!(at("lru").mean_ms < at("off").mean_ms);
    // One response chart per kind and an idle-threshold chart, SVG that parses with
    // the expected series, and a PNG next to each.
    assert_eq!(a.figures.len(), 3);
    for f in &a.figures {
        let svg = std::fs::read_to_string(f).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let series: Vec<&str> = doc
            .descendants()
            .filter_map(|n| n.attribute("data-series"))
            .collect();
        if f.to_string_lossy().contains("idle-threshold") {
            assert_eq!(series, ["APU-LRU 2-way"]);
        } else {
            assert_eq!(
                series,
                [
                    "WB 1-way",
                    "WB 2-way",
                    "APU-LRU 1-way",
                    "APU-LRU 2-way",
                    "no cache"
                ]
            );
        }
        assert!(f.with_extension("png").is_file());
    }
    let html = std::fs::read_to_string(&a.report).unwrap();
    assert!(html.contains("<svg") && html.contains("paper 004"));
    assert!(a.comparison.iter().any(|l| l.contains("100 ms gap")));
    // Resumable: a rerun computes nothing and reports the same rows.
    let b = apu::execute(&s, &RunOptions::stored(dir.path(), 1), &mut Quiet).unwrap();
    assert_eq!((b.computed, b.reused), (0, a.results.len()));
    assert_eq!(b.results, a.results);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("results.csv")).unwrap(),
        csv
    );
}
