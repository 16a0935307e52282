//! Paper 000 Fig. 1 (TS-CLOCK: D. H. Kang, C. Min, Y. I. Eom, "An Efficient Buffer
//! Replacement Algorithm for NAND Flash Storage Devices", IEEE MASCOTS 2014) as SVG
//! charts from the CSV of `wafer ftl sweep --csv`: write amplification against block
//! utilization, one line per I/O range, one chart per FTL.
//!
//! ```text
//! wafer ftl sweep --csv fig1.csv
//! cargo run -p wafer-lab --example fig1 -- fig1.csv docs/figures
//! ```
//!
//! writes `fig1-fast.svg` and `fig1-page.svg` (one per FTL present in the CSV).

use std::collections::BTreeMap;
use std::process::ExitCode;
use wafer_lab::plot::{Chart, Kind, Series};

/// One CSV row: (ftl, utilization, range bytes, waf).
type Row = (String, f64, u64, f64);

fn parse(path: &str, text: &str) -> Result<Vec<Row>, String> {
    let mut lines = text.lines().enumerate();
    let (_, header) = lines.next().ok_or_else(|| format!("{path}: empty file"))?;
    let cols: Vec<&str> = header.split(',').collect();
    let col = |name: &str| {
        cols.iter().position(|c| *c == name).ok_or_else(|| {
            format!("{path}:1: expected a `{name}` column (a `wafer ftl sweep --csv` file)")
        })
    };
    let (ftl, util, range, waf) = (
        col("ftl")?,
        col("utilization")?,
        col("range_bytes")?,
        col("waf")?,
    );
    let mut rows = Vec::new();
    for (i, line) in lines.filter(|(_, l)| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(',').collect();
        let field = |c: usize| f.get(c).copied().unwrap_or("");
        let bad = |what: &str| format!("{path}:{}: expected {what}", i + 1);
        rows.push((
            field(ftl).to_string(),
            field(util)
                .parse()
                .map_err(|_| bad("a utilization fraction"))?,
            field(range).parse().map_err(|_| bad("a range in bytes"))?,
            field(waf).parse().map_err(|_| bad("a WAF number"))?,
        ));
    }
    Ok(rows)
}

fn chart(ftl: &str, rows: &[Row]) -> Chart {
    let mut by_range: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
    for (_, u, r, w) in rows.iter().filter(|r| r.0 == ftl) {
        by_range.entry(*r).or_default().push((u * 100.0, *w));
    }
    let name = match ftl {
        "fast" => "FAST hybrid FTL",
        "page" => "page-level FTL",
        other => other,
    };
    Chart {
        title: format!("{name}: WAF vs block utilization (paper 000 Fig. 1)"),
        x_label: "block utilization (%)".into(),
        y_label: "write amplification".into(),
        categories: None,
        kind: Kind::Line,
        log_y: false,
        notes: Vec::new(),
        series: by_range
            .into_iter()
            .map(|(r, mut points)| {
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                Series {
                    name: format!("{} GiB range", r as f64 / f64::from(1u32 << 30)),
                    points,
                }
            })
            .collect(),
        y_from_zero: true,
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let [csv, out] = args else {
        return Err("usage: fig1 SWEEP.csv OUT_DIR".into());
    };
    let text = std::fs::read_to_string(csv).map_err(|e| format!("{csv}: {e}"))?;
    let rows = parse(csv, &text)?;
    std::fs::create_dir_all(out).map_err(|e| format!("{out}: {e}"))?;
    let mut ftls: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    ftls.sort_unstable();
    ftls.dedup();
    for ftl in ftls {
        let path = std::path::Path::new(out).join(format!("fig1-{ftl}.svg"));
        let tmp = path.with_extension("svg.tmp");
        std::fs::write(&tmp, chart(ftl, &rows).svg())
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fig1: {e}");
            ExitCode::FAILURE
        }
    }
}
