//! `wafer trace info`: summary statistics of a trace, computed by
//! [`wafer_trace::stats`]: requests, reads / writes / trims (count and bytes), distinct
//! pages read / written / total (footprint), overwrites, re-reads and sequential
//! writes (page-cache-level or block-layer), write range (paper 000, TS-CLOCK: Kang,
//! Min, Eom, IEEE MASCOTS 2014, Table II), request size histogram, duration,
//! inter-arrival summary, devices. A table for people, `--json` for programs.

use std::path::PathBuf;

use serde::Serialize;
use wafer_lab::Access;
use wafer_trace::stats::TraceStats;
use wafer_trace::units::{format_size, parse_page_size};
use wafer_trace::{Format, Granularity, ReadOptions};

use crate::cmd::usage;
use crate::progress;

/// Arguments of `wafer trace info`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Formats (detected from the content unless --format is given; gzip and zstd \
input is decompressed transparently):
  wtr, msr, spc, blkparse, fiu, disksim, vscsi, cloudphysics-csv, oracle-general,
  android, lackey, wafer-csv, after-csv; generic text is never guessed: give its
  columns (--offset-col, ...; docs/formats.md, \"Custom text traces\")
Examples:
  wafer trace info ../shared/traces/fiu/fiu_mail_cheetah_10k.blkparse
  wafer trace info trace.csv.gz --format spc --page-size 8KiB --json
  wafer trace info cp.bin --granularity record
  wafer trace info io.txt --delimiter , --skip-lines 1 --time-col 0 --op-col 1 \\
    --offset-col 2 --len-col 3 --units sectors --time-unit us"
)]
pub struct Args {
    /// Trace file.
    pub file: PathBuf,
    #[command(flatten)]
    pub source: crate::cmd::mapping::TraceArgs,
    /// Page size for the distinct-page counts.
    #[arg(long, default_value = "4KiB")]
    pub page_size: String,
    /// Count pages, or record keys (one per request, libCacheSim's object view).
    #[arg(long, value_enum, default_value_t = Access::default())]
    pub granularity: Access,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Lackey traces: count instruction fetches as reads.
    #[arg(long)]
    pub instructions: bool,
}

/// The JSON document `--json` prints.
#[derive(Serialize)]
struct Report<'a> {
    file: &'a std::path::Path,
    format: Option<Format>,
    skipped: u64,
    #[serde(flatten)]
    stats: &'a TraceStats,
}

/// Parse a `--format` value (a usage error if unknown, with a "did you mean").
pub fn format_arg(f: Option<&str>) -> anyhow::Result<Option<Format>> {
    let Some(name) = f else {
        return Ok(None);
    };
    Format::from_name(name).map(Some).map_err(usage)
}

/// Run `wafer trace info`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let granularity = match args.granularity {
        Access::Record => Granularity::Record,
        Access::Page => Granularity::Page {
            page_size: parse_page_size(&args.page_size).map_err(usage)?,
        },
    };
    let opts = ReadOptions {
        instructions: args.instructions,
        ..args.source.read_options()?
    };
    let mut reader = wafer_trace::open(&args.file, &opts)?;
    let pb = progress::bar(reader.meta().requests.unwrap_or(0), "reading trace");
    let stats = TraceStats::collect(reader.as_mut(), granularity, &mut |n| pb.set_position(n))?;
    pb.finish_and_clear();
    let report = Report {
        file: &args.file,
        format: reader.meta().format,
        skipped: reader.skipped(),
        stats: &stats,
    };
    let text = if args.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        table(&report)
    };
    use std::io::Write;
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}

/// A device as its trace names it: block-layer traces by `major,minor` (stored as
/// `major << 8 | minor`, `docs/formats.md`), the others by their number.
fn device_name(format: Option<Format>, dev: u32) -> String {
    match format {
        Some(Format::Blkparse | Format::Fiu | Format::Android) => {
            format!("{},{}", dev >> 8, dev & 0xff)
        }
        _ => dev.to_string(),
    }
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", part as f64 * 100.0 / whole as f64)
    }
}

fn seconds(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.3} us", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// The human-readable report.
fn table(r: &Report) -> String {
    use std::fmt::Write;
    let s = r.stats;
    let mut o = String::new();
    let unit = match s.granularity {
        Granularity::Record => "keys".to_string(),
        Granularity::Page { page_size } => format!("{} pages", format_size(u64::from(page_size))),
    };
    let fmt = r.format.map_or("?", Format::name);
    let _ = writeln!(o, "file          {}", r.file.display());
    let _ = writeln!(o, "format        {fmt}");
    let _ = writeln!(o, "requests      {}", s.requests);
    if r.skipped > 0 {
        let _ = writeln!(o, "skipped       {} malformed records", r.skipped);
    }
    for (name, c) in [("reads", s.reads), ("writes", s.writes), ("trims", s.trims)] {
        let _ = writeln!(
            o,
            "{name:<13} {} ({}), {}",
            c.count,
            pct(c.count, s.requests),
            format_size(c.bytes)
        );
    }
    let _ = writeln!(o, "distinct {unit}:");
    let _ = writeln!(o, "  read        {}", s.pages_read);
    let _ = writeln!(o, "  written     {}", s.pages_written);
    let _ = writeln!(
        o,
        "  total       {} (footprint {})",
        s.pages_total,
        format_size(s.footprint_bytes)
    );
    let _ = writeln!(
        o,
        "overwrites    {} of {} {unit} written ({})",
        s.page_overwrites,
        s.page_writes,
        pct(s.page_overwrites, s.page_writes)
    );
    let _ = writeln!(
        o,
        "re-reads      {} of {} {unit} read ({})",
        s.page_rereads,
        s.page_reads,
        pct(s.page_rereads, s.page_reads)
    );
    let _ = writeln!(
        o,
        "sequential    {} of {} write requests ({})",
        s.sequential_writes,
        s.writes.count,
        pct(s.sequential_writes, s.writes.count)
    );
    match (s.write_min, s.write_end) {
        (Some(a), Some(b)) => {
            let _ = writeln!(
                o,
                "write range   {} (bytes {a}..{b})",
                format_size(s.write_range_bytes)
            );
        }
        _ => {
            let _ = writeln!(o, "write range   - (no writes)");
        }
    }
    if s.timed > 0 {
        let ia = &s.inter_arrival;
        let _ = writeln!(o, "duration      {}", seconds(s.duration_ns as f64));
        if ia.one_gap_dominates(s.duration_ns) {
            let _ = writeln!(
                o,
                "warning       one gap of {} between two requests makes up most of the \
                 duration (a corrupt timestamp?)",
                seconds(ia.max_ns as f64)
            );
        }
        let _ = writeln!(
            o,
            "inter-arrival mean {}, p50 {}, p99 {}{}",
            seconds(ia.mean_ns),
            seconds(ia.p50_ns as f64),
            seconds(ia.p99_ns as f64),
            if ia.negative > 0 {
                format!(" ({} gaps where time goes back, left out)", ia.negative)
            } else {
                String::new()
            }
        );
    } else {
        let _ = writeln!(o, "duration      - (no timestamps)");
    }
    let devs: Vec<String> = s
        .devices
        .iter()
        .map(|d| format!("{} ({})", device_name(r.format, d.dev), d.requests))
        .collect();
    let _ = writeln!(o, "devices       {}", devs.join(", "));
    let _ = writeln!(o, "request sizes:");
    for b in &s.sizes {
        let label = if b.min_bytes == 0 {
            "0 B".to_string()
        } else {
            format!(">= {}", format_size(b.min_bytes))
        };
        let _ = writeln!(
            o,
            "  {label:<12} {:>10}  {}",
            b.count,
            pct(b.count, s.requests)
        );
    }
    o
}
