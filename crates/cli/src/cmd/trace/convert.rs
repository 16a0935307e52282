//! `wafer trace convert`: stream any readable trace into wafer's `.wtr`, the
//! `time_ns,op,dev,offset,len` CSV, or a fio iolog v2 ([`wafer_trace::export`]).
//! The output appears only once it is complete (written to a temporary file and
//! renamed); an output that is the input is refused. `--cpu-cache` first runs a
//! memory trace through a CPU cache ([`wafer_trace::cpu_cache`]) and writes what
//! leaves it.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use wafer_trace::cpu_cache::{CpuCache, CpuCacheConfig, CpuCacheStats};
use wafer_trace::export::FIO_TARGET;
use wafer_trace::reader::BATCH;
use wafer_trace::units::parse_page_size;
use wafer_trace::{wtr, Format, OutFormat, ReadOptions, RequestReader, TraceWriter, WriteInfo};

use crate::cmd::{refuse_input_as_output, usage, UsageError};
use crate::progress;

/// Arguments of `wafer trace convert`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Output formats (from OUT's extension unless --to is given):
  wtr        .wtr    wafer's binary format: compressed, checksummed, fast to read
  csv        .csv    time_ns,op,dev,offset,len (bytes, ns; wafer reads it back)
  fio-iolog  .iolog  fio iolog v2 for `fio --read_iolog` (no timestamps)
  fio-iolog-v3       fio iolog v3 (fio 3.31+): each line stamped with its time in us
Examples:
  wafer trace convert ../shared/traces/mobile-pixel6a/telegram_exec.csv.gz telegram.wtr
  wafer trace convert telegram.wtr telegram.csv
  wafer trace convert trace.wtr replay.iolog   # then: fio --read_iolog=replay.iolog --replay_redirect=scratch.img
  wafer trace convert trace.wtr timed.iolog --to fio-iolog-v3
  wafer trace convert raw.txt out.wtr --format spc --skip-invalid --origin \"SPC Financial1\"
  wafer trace convert ls-mem.wtr ls-llc.wtr --cpu-cache 256KiB:8:64   # what leaves a CPU cache"
)]
pub struct Args {
    /// Input trace (any readable format; gzip / zstd input is decompressed).
    pub input: PathBuf,
    /// Output file.
    pub output: PathBuf,
    /// Output format: wtr, csv, fio-iolog or fio-iolog-v3 (default: from OUT's
    /// extension).
    #[arg(long)]
    pub to: Option<String>,
    #[command(flatten)]
    pub source: crate::cmd::mapping::TraceArgs,
    /// Lackey input: include instruction fetches as reads.
    #[arg(long)]
    pub instructions: bool,
    /// Run the input (a memory trace) through a write-back, write-allocate CPU cache
    /// with LRU sets, and write what leaves it: a line read per miss, a line write
    /// per dirty eviction. Alone: 256KiB:8:64 (paper 002 gives no parameters).
    #[arg(
        long,
        value_name = "SIZE:WAYS:LINE",
        num_args = 0..=1,
        default_missing_value = CpuCacheConfig::DEFAULT_SPEC
    )]
    pub cpu_cache: Option<String>,
    /// With --cpu-cache: also write the lines still dirty when the trace ends.
    #[arg(long, requires = "cpu_cache")]
    pub cpu_cache_flush: bool,
    /// Where the trace came from, stored in the .wtr header, at most 4096 bytes
    /// (default: "converted from <input> (<format>)").
    #[arg(long)]
    pub origin: Option<String>,
    /// Page size to record in the .wtr header as a hint for readers (e.g. 4KiB).
    #[arg(long)]
    pub page_size: Option<String>,
    /// fio iolog: the file or device fio should replay on.
    #[arg(long, default_value = FIO_TARGET)]
    pub fio_target: String,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What `--json` prints.
#[derive(Serialize)]
struct Summary<'a> {
    input: &'a std::path::Path,
    input_format: Option<Format>,
    output: &'a std::path::Path,
    output_format: &'a str,
    requests: u64,
    skipped: u64,
    bytes_written: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu_cache: Option<CpuCacheSummary>,
}

/// The CPU cache of `--cpu-cache` and what it did.
#[derive(Serialize)]
pub struct CpuCacheSummary {
    /// Capacity, bytes.
    pub size: u64,
    /// Ways per set.
    pub ways: u32,
    /// Line size, bytes.
    pub line: u32,
    /// Whether dirty lines were written at the end.
    pub flush: bool,
    /// The counts.
    #[serde(flatten)]
    pub stats: CpuCacheStats,
}

impl CpuCacheSummary {
    /// The summary of a cache of geometry `cfg` that counted `stats`.
    pub fn new(cfg: CpuCacheConfig, flush: bool, stats: CpuCacheStats) -> Self {
        CpuCacheSummary {
            size: cfg.size,
            ways: cfg.ways,
            line: cfg.line,
            flush,
            stats,
        }
    }

    /// One line for a text summary.
    pub fn text(&self) -> String {
        let s = &self.stats;
        let flushed = if self.flush {
            format!(", {} dirty at the end (line writes)", s.flushed)
        } else {
            String::new()
        };
        format!(
            "cpu cache {} B, {}-way, {} B lines: {} line accesses, {} hits, {} misses (line \
             reads), {} dirty evictions (line writes){flushed}",
            self.size, self.ways, self.line, s.accesses, s.hits, s.misses, s.dirty_evictions
        )
    }
}

/// Parse `--cpu-cache` (a usage error naming what was expected).
pub fn cpu_cache_arg(spec: Option<&str>) -> anyhow::Result<Option<CpuCacheConfig>> {
    spec.map(|s| CpuCacheConfig::parse(s).map_err(|e| usage(format!("--cpu-cache: {e}"))))
        .transpose()
}

/// Run `wafer trace convert`.
pub fn run(a: Args) -> anyhow::Result<()> {
    let to = match &a.to {
        Some(t) => out_format_arg(t)?,
        None => OutFormat::from_path(&a.output).ok_or_else(|| {
            UsageError(format!(
                "cannot tell the output format from `{}`: use a .wtr, .csv or .iolog name, \
                 or --to wtr|csv|fio-iolog|fio-iolog-v3",
                a.output.display()
            ))
        })?,
    };
    let page_size = match &a.page_size {
        None => 0,
        Some(s) => parse_page_size(s).map_err(|e| usage(format!("--page-size: {e}")))?,
    };
    if let Some(o) = &a.origin {
        if o.len() > wtr::MAX_ORIGIN {
            return Err(usage(format!(
                "--origin is {} bytes; a .wtr header holds at most {} bytes",
                o.len(),
                wtr::MAX_ORIGIN
            )));
        }
    }
    let cpu = cpu_cache_arg(a.cpu_cache.as_deref())?;
    refuse_input_as_output(&a.output, &[&a.input])?;
    let opts = ReadOptions {
        instructions: a.instructions,
        ..a.source.read_options()?
    };
    let reader = wafer_trace::open(&a.input, &opts)?;
    let meta = reader.meta().clone();
    let in_name = meta.format.map_or("?", Format::name);
    if to == OutFormat::FioIologV3 && !meta.has_time {
        return Err(usage(format!(
            "--to fio-iolog-v3 writes each request's time, and {} ({in_name}) has none: \
             write fio-iolog (version 2) instead{}",
            a.input.display(),
            if meta.format == Some(Format::Generic) {
                ", or give its time column (--time-col)"
            } else {
                ""
            }
        )));
    }
    let info = WriteInfo {
        origin: a.origin.clone().unwrap_or_else(|| {
            let name = a.input.file_name().map_or_else(
                || a.input.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            match &a.cpu_cache {
                Some(c) => format!("converted from {name} ({in_name}) through CPU cache {c}"),
                None => format!("converted from {name} ({in_name})"),
            }
        }),
        page_size,
        has_time: meta.has_time,
        has_op: meta.has_op,
    };
    let mut writer = match to {
        OutFormat::FioIolog => TraceWriter::create_fio_iolog(&a.output, &a.fio_target)
            .map_err(|e| UsageError(e.to_string()))?,
        OutFormat::FioIologV3 => TraceWriter::create_fio_iolog_v3(&a.output, &a.fio_target)
            .map_err(|e| UsageError(e.to_string()))?,
        f => TraceWriter::create(&a.output, f, &info)?,
    };
    let (skipped, cpu_cache) = match cpu {
        Some(cfg) => {
            let mut c = CpuCache::new(reader, cfg, a.cpu_cache_flush)?;
            let skipped = copy(&mut c, &mut writer, &bar(None))?;
            let summary = CpuCacheSummary::new(cfg, a.cpu_cache_flush, c.stats());
            (skipped, Some(summary))
        }
        None => {
            let mut reader = reader;
            (
                copy(reader.as_mut(), &mut writer, &bar(meta.requests))?,
                None,
            )
        }
    };
    let requests = writer.finish()?;
    let bytes_written = std::fs::metadata(&a.output).map_or(0, |m| m.len());
    let s = Summary {
        input: &a.input,
        input_format: meta.format,
        output: &a.output,
        output_format: to.name(),
        requests,
        skipped,
        bytes_written,
        cpu_cache,
    };
    let text = if a.json {
        serde_json::to_string_pretty(&s)? + "\n"
    } else {
        let skipped = if s.skipped > 0 {
            format!(" ({} malformed records skipped)", s.skipped)
        } else {
            String::new()
        };
        let cpu = s
            .cpu_cache
            .as_ref()
            .map_or(String::new(), |c| format!("{}\n", c.text()));
        format!(
            "{} ({in_name}) -> {} ({}): {requests} requests{skipped}, {bytes_written} bytes\n{cpu}",
            a.input.display(),
            a.output.display(),
            to.name(),
        )
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}

/// Parse `--to` / `--format` naming an output format (a usage error if unknown, with
/// a "did you mean").
pub fn out_format_arg(name: &str) -> anyhow::Result<OutFormat> {
    OutFormat::parse(name)
        .map_err(|e| crate::cmd::unknown(e, name, OutFormat::ALL.iter().map(|f| f.name())))
}

/// Write every request of `reader` to `writer`, counting them on `pb` (cleared at the
/// end); the malformed records the reader skipped.
fn copy(
    reader: &mut dyn RequestReader,
    writer: &mut TraceWriter,
    pb: &ProgressBar,
) -> anyhow::Result<u64> {
    let mut batch = Vec::with_capacity(BATCH);
    while reader.read_batch(&mut batch)? {
        writer.write_all(&batch)?;
        pb.inc(batch.len() as u64);
    }
    pb.finish_and_clear();
    Ok(reader.skipped())
}

/// A bar when the request count is known (.wtr input), else a counting spinner.
fn bar(total: Option<u64>) -> ProgressBar {
    if let Some(n) = total {
        return progress::bar(n, "converting");
    }
    let pb = ProgressBar::new_spinner();
    if !std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::hidden());
    }
    pb.set_style(
        ProgressStyle::with_template("{spinner} converting: {human_pos} requests ({per_sec})")
            .expect("static template"),
    );
    pb.enable_steady_tick(std::time::Duration::from_millis(200));
    pb
}
