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
use wafer_lab::{Measure, Quiet, RunOptions};

fn study() -> ApuStudy {
    ApuStudy {
        kinds: vec!["random-write".into(), "thrash".into()],
        sizes_mb: vec![1, 2],
        ways: vec![1, 2],
        apus: vec!["off".into(), "lru".into()],
        gaps_ms: vec![100.0],
        thresholds_ms: vec![1.0, 4.0],
        sweep_kinds: vec!["random-write".into()],
        sweep_mb: 1,
        requests: 200,
        device_gib: 16, // the generators span 16 GiB (Table 5)
        replicates: 1,
        measures: vec![Measure::AsCaptured],
        paper: None,
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
    assert!(csv.starts_with("cell_id,kind,seed,measure,gap_ms,cache_mb,ways,apu,"));
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
                        Field::Null => Value::Null,
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

/// Paper 004's design: every cell with a cache runs long enough to fill it (at least
/// 80% of its lines used, against about 86% expected from twice its lines in random
/// writes to a direct-mapped cache, and write misses replacing lines), with and
/// without APU, at every cache size; constant-write, whose requests stay in the first
/// 4 MiB (Table 5), is the one benchmark that cannot, and runs the floor.
#[test]
fn apu_cells_fill_their_cache() {
    let s = ApuStudy {
        replicates: 1,
        measures: vec![Measure::AsCaptured],
        ..ApuStudy::paper()
    };
    let cells = s.cells();
    for kind in ["random-write", "write-biased", "thrash", "constant-write"] {
        for &mb in &s.sizes_mb {
            for (ways, apu) in [(1, "off"), (4, "lru")] {
                let cell = cells
                    .iter()
                    .find(|c| {
                        c.kind == kind
                            && c.cache_mb == mb
                            && c.ways == ways
                            && c.apu == apu
                            && c.gap_ms == 100.0
                            && !c.sweep
                    })
                    .unwrap();
                assert_eq!(cell.requests, s.requests_for(kind, mb));
                assert!(cell.requests >= s.requests);
                let r = cell.run().unwrap();
                let lines = mb << 8;
                let what = format!(
                    "{kind} {mb} MiB {ways}-way {apu}: {} requests, {} of {lines} lines used, {} evictions",
                    cell.requests, r.lines_used, r.evictions
                );
                if kind == "constant-write" {
                    assert_eq!(cell.requests, s.requests, "{what}");
                    assert!(r.lines_used <= 1024 && r.evictions == 0, "{what}");
                } else {
                    assert!(r.lines_used * 10 >= lines * 8, "{what}");
                    assert!(r.evictions > 0, "{what}");
                }
            }
        }
    }
    // Small requests need more of them to fill a large cache: the count grows with
    // the cache once it passes the floor.
    assert!(s.requests_for("random-write", 256) > 2 * s.requests_for("random-write", 64));
    assert_eq!(s.requests_for("random-write", 0), s.requests);
}

/// The thrash claim compares what paper 004 compares (Sec. 4.3.1: "the 2-way
/// set-associative cache with write-back ... a factor of 7, compared with the direct
/// mapped cache"): 1-way with 2-way, not with the widest associativity run.
#[test]
fn thrash_claim_compares_direct_mapped_with_two_way() {
    let s = ApuStudy {
        kinds: vec!["thrash".into()],
        sizes_mb: vec![8],
        ways: vec![1, 2, 4],
        apus: vec!["off".into()],
        gaps_ms: vec![10.0],
        thresholds_ms: vec![],
        replicates: 1,
        measures: vec![Measure::AsCaptured],
        ..ApuStudy::paper()
    };
    let rs: Vec<apu::ApuResult> = s
        .cells()
        .into_iter()
        .filter(|c| c.cache_mb > 0)
        .map(|c| apu::ApuResult {
            id: c.id(),
            // 4-way fastest: the old line (1-way vs the widest) would say 14x.
            mean_ms: match c.ways {
                1 => 14.0,
                2 => 2.0,
                _ => 1.0,
            },
            read_mean_ms: 0.0,
            write_mean_ms: 0.0,
            on_demand_flushes: 0,
            apu_flushes: 0,
            lines_used: 0,
            evictions: 0,
            utilization: 0.0,
            passes: 0,
            settled: None,
            cell: c,
        })
        .collect();
    let lines = apu::compare(&s, &rs);
    let thrash: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("10 ms gap, write-back"))
        .collect();
    assert_eq!(thrash.len(), 1, "{lines:?}");
    assert!(
        thrash[0].ends_with("1-way 14.000 ms, 2-way 2.000 ms: 7.00x"),
        "{}",
        thrash[0]
    );
}

/// Paper 004's real-life applications (Sec. 4.3.2) are cells of the design: IOzone
/// and PostMark at every size, way and APU setting of the grid, and Fig. 11's sweep
/// (APU-LRU, 16 MB, 2-way) for both; the micro benchmarks' cells are unchanged (the
/// same parameters, so the same ids as stored results).
#[test]
fn iozone_and_postmark_are_cells_and_fig_11_sweeps_them() {
    let s = ApuStudy {
        replicates: 1,
        measures: vec![Measure::AsCaptured],
        ..ApuStudy::paper()
    };
    let cells = s.cells();
    for k in ["iozone", "postmark"] {
        let grid = cells.iter().filter(|c| c.kind == k && !c.sweep).count();
        assert_eq!(grid, 3 * (1 + 6 * 3 * 3), "{k}");
        let sweep: Vec<_> = cells.iter().filter(|c| c.kind == k && c.sweep).collect();
        assert_eq!(sweep.len(), 3 * s.thresholds_ms.len(), "{k}");
        assert!(sweep
            .iter()
            .all(|c| c.cache_mb == 16 && c.ways == 2 && c.apu == "lru"));
    }
    assert!(cells
        .iter()
        .filter(|c| c.sweep)
        .all(|c| c.kind != "random-write"));
    assert_eq!(s.requests_for("iozone", 8), apu::IOZONE_REQUESTS);
    assert_eq!(
        apu::iozone_params().sequence_len().unwrap(),
        apu::IOZONE_REQUESTS
    );
    assert_eq!(s.requests_for("postmark", 256), apu::POSTMARK_REQUESTS);
    // The micro benchmark cells are those of the design without the applications.
    let micro = ApuStudy {
        kinds: apu::KINDS.iter().map(|k| k.to_string()).collect(),
        sweep_kinds: vec![],
        ..s.clone()
    };
    for c in micro.cells() {
        assert!(cells.iter().any(|d| d.id() == c.id()), "{c:?}");
    }
}

/// The PostMark capture is found from a clone alone (the repository's `traces/`),
/// runs whole, and the setup line says what it is against the paper's trace.
#[test]
fn postmark_replays_the_bundled_capture_whole() {
    let t = apu::PostmarkTrace::load(16).unwrap();
    assert_eq!(t.captured, apu::POSTMARK_REQUESTS);
    assert_eq!(t.reads, 66_087);
    assert!(t.requests.len() as u64 >= t.captured);
    let line = t.describe();
    assert!(
        line.contains("page-cache-level") && line.contains("61.7% reads") && line.contains("83%"),
        "{line}"
    );
    // Every page placed on the 16 GiB device: nothing beyond its logical pages.
    assert!(t
        .requests
        .iter()
        .all(|r| r.offset + u64::from(r.len) <= 16 << 30));
}

/// An IOzone cell writes only; the mean is over writes (paper 004 turned IOzone's
/// accesses into writes), and APU flushes at the 1 s gap cut it at a small cache.
#[test]
fn an_iozone_cell_writes_only() {
    let cell = |apu: &str| apu::ApuCell {
        kind: "iozone".into(),
        cache_mb: 8,
        ways: 1,
        apu: apu.into(),
        idle_threshold_ms: 2.0,
        gap_ms: 1000.0,
        requests: apu::IOZONE_REQUESTS,
        device_gib: 16,
        sweep: false,
        seed: 1,
        measure: Measure::AsCaptured,
        version: wafer_lab::spec::VERSION.to_string(),
    };
    let wb = cell("off").run().unwrap();
    let lru = cell("lru").run().unwrap();
    assert_eq!(wb.read_mean_ms, 0.0, "{wb:?}");
    assert_eq!(wb.mean_ms, wb.write_mean_ms);
    assert!(
        lru.apu_flushes > 0 && lru.mean_ms < wb.mean_ms,
        "{lru:?} {wb:?}"
    );
}

/// Replicates and the steady-state view: every cell runs under each workload seed and
/// in each view; the first replicate as captured keeps the id it had before either
/// existed; a steady cell preconditions at least one window of passes; each claim is
/// printed under both views with the median over the replicates and each seed's
/// figure and verdict.
#[test]
fn replicates_and_both_views_are_run_and_judged_apart() {
    let dir = tempfile::tempdir().unwrap();
    let s = Arc::new(ApuStudy {
        kinds: vec!["random-write".into()],
        sizes_mb: vec![1],
        ways: vec![1],
        thresholds_ms: Vec::new(),
        sweep_kinds: Vec::new(),
        replicates: 2,
        measures: vec![Measure::AsCaptured, Measure::Steady],
        ..study()
    });
    let a = apu::execute(&s, &RunOptions::stored(dir.path(), 2), &mut Quiet).unwrap();
    // 2 views x 2 seeds x (no cache + 1 size x 1 way x 2 APUs).
    assert_eq!(a.results.len(), 2 * 2 * 3);
    for r in &a.results {
        let json = serde_json::to_string(&r.cell).unwrap();
        // Seed 1 and the as-captured view stay out of the id's JSON.
        assert_eq!(json.contains("\"seed\""), r.cell.seed != 1, "{json}");
        assert_eq!(
            json.contains("\"measure\""),
            r.cell.measure == Measure::Steady
        );
        match r.cell.measure {
            Measure::AsCaptured => assert_eq!((r.passes, r.settled), (0, None)),
            Measure::Steady => {
                assert!(r.passes >= wafer_lab::steady::WINDOW as u64, "{r:?}");
                assert!(r.settled.is_some());
            }
        }
    }
    // Another seed draws other arrivals (and addresses): other means.
    let mean = |seed: u64, m: Measure| {
        a.results
            .iter()
            .find(|r| r.cell.seed == seed && r.cell.measure == m && r.cell.apu == "lru")
            .unwrap()
            .mean_ms
    };
    assert_ne!(mean(1, Measure::AsCaptured), mean(2, Measure::AsCaptured));
    let text = a.comparison.join("\n");
    for want in [
        "  as captured:",
        "  steady state:",
        "median over 2 replicates",
        "by seed: 1: ",
    ] {
        assert!(text.contains(want), "`{want}` missing:\n{text}");
    }
    // Every judged claim has a verdict in each view.
    let verdicts = a
        .comparison
        .iter()
        .filter(|l| l.trim_start().starts_with("verdict: "))
        .count();
    assert!(verdicts > 0 && verdicts % 2 == 0, "{text}");
    // The rows carry the seed, the view and the passes, typed in Parquet.
    let csv = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    for col in ["seed", "measure", "passes", "settled"] {
        assert!(header.split(',').any(|c| c == col), "{header}");
    }
}

/// An on-board cache study is a study file: `[board]` gives its design in units
/// (sizes in MiB, gaps and thresholds as durations); the built-in `apu` file is paper
/// 004's design (the same cells, hence the same ids, as the study it replaced); a
/// wrong value is refused naming its key, and grid keys beside `[board]` are refused.
#[test]
fn the_apu_study_file_describes_paper_004s_design() {
    let preset = wafer_lab::presets::find("apu").unwrap();
    let paper = ApuStudy {
        paper: preset.setup.clone(),
        ..ApuStudy::paper()
    };
    assert_eq!(preset.board(false).unwrap().unwrap(), paper);
    let quick = preset.board(true).unwrap().unwrap();
    assert_eq!(quick.sizes_mb, [8, 256]);
    assert_eq!(quick.replicates, 3);
    assert_eq!(quick.cells(), ApuStudy::quick().cells());
    let bad = |edit: &str, want: &str| {
        let text = wafer_lab::presets::BUILT_IN
            .iter()
            .find(|(n, _)| *n == "apu")
            .unwrap()
            .1
            .replace("ways = [1, 2, 4]", edit);
        let e = wafer_lab::presets::Preset::parse(&text, "apu.toml", std::path::Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{edit}: {e}");
    };
    bad(
        "ways = [1, 0]",
        "apu.toml: board.ways[1]: must be at least 1",
    );
    bad("ways = [1]\nsizes = [\"8MiB\"]", "duplicate key");
    let text = wafer_lab::presets::BUILT_IN
        .iter()
        .find(|(n, _)| *n == "apu")
        .unwrap()
        .1;
    for (from, to, want) in [
        (
            "\"8MiB\"",
            "\"3KiB\"",
            "board.sizes[0]: `3KiB` is not a whole number of MiB",
        ),
        (
            "\"10ms\"",
            "\"10\"",
            "board.gaps[0]: duration `10` needs a unit",
        ),
        (
            "\"thrash\"",
            "\"trash\"",
            "board.workloads[3]: unknown workload `trash`",
        ),
        (
            "name = \"apu\"",
            "name = \"apu\"\npolicies = [\"lru\"]",
            "policies: an on-board cache study",
        ),
    ] {
        let e = wafer_lab::presets::Preset::parse(
            &text.replacen(from, to, 1),
            "apu.toml",
            std::path::Path::new("."),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(want), "{to}: {e}");
    }
}
