//! `wafer replay`: play a trace on a real file or block device (the workload player of
//! paper 003, the Sorted-Clock paper; paper 000, TS-CLOCK: Kang, Min, Eom, IEEE MASCOTS
//! 2014, Sec. IV-A) and report elapsed time, throughput, IOPS and service-time
//! percentiles. The work is done by `wafer_replay`; this module parses arguments, draws
//! progress and prints.

use super::{refuse_input_as_output, UsageError};
use crate::progress;
use std::io::Write;
use std::path::PathBuf;
use wafer_replay::{Engine, Options, Report, Stage, Timing, DEFAULT_MAX_GAP_S};
use wafer_trace::reader::GenericSpec;
use wafer_trace::units::{format_size, parse_page_size, parse_size};
use wafer_trace::{Format, ReadOptions};

/// When requests are issued.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimingArg {
    /// As fast as the queue depth allows.
    AsFast,
    /// At the trace's timestamps (divided by --speed).
    Trace,
}

/// Who issues the I/Os.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// The built-in pool of pread/pwrite threads.
    Threads,
    /// fio (must be on PATH), from an iolog v2 of the mapped trace.
    Fio,
}

/// Arguments of `wafer replay`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  wafer replay after-lru.csv --target /tmp/replay.img --size 256MiB --wrap --verify
  wafer replay after.csv --target replay.img --queue-depth 8 --json
  wafer replay trace.csv --target replay.img --timing trace --speed 10
  wafer replay after.csv --target /dev/sdX --destructive --wrap
  wafer replay after.csv --target replay.img --via fio --queue-depth 8
Safety: the target is never the trace or its prepared trace (TRACE.wprep); writing
to a block device needs --destructive and is refused while it or a partition of it is
mounted or otherwise in use; a file is not written while it backs a loop device, is
mounted or is a swap file; a target smaller than the trace's addresses is refused
unless --wrap; a file target is not created or grown beyond the free space of its
filesystem (nor beyond half of it or 64 GiB without --allow-large); --timing trace
refuses a wait above --max-gap. Refusals exit with status 2. Every written page
carries an announced pattern (see docs/replay.md).")]
pub struct Args {
    /// The trace (any format wafer reads; after-cache traces of `wafer sim --after`).
    pub trace: PathBuf,
    /// File or block device to replay on; a missing file is created and preallocated.
    #[arg(long)]
    pub target: PathBuf,
    #[command(flatten)]
    pub source: super::mapping::TraceArgs,
    /// I/Os in flight at most (worker threads, or fio's iodepth).
    #[arg(short = 'q', long, default_value_t = 1)]
    pub queue_depth: u32,
    /// Allow writing to a block device (destroys its contents).
    #[arg(long)]
    pub destructive: bool,
    /// Map addresses beyond the target modulo its size instead of refusing.
    #[arg(long)]
    pub wrap: bool,
    /// Allow a file target larger than 64 GiB or half the free space of its
    /// filesystem (never larger than the free space).
    #[arg(long)]
    pub allow_large: bool,
    /// Size of a new file target (default: the trace's address span); an existing
    /// smaller file is grown to it.
    #[arg(long)]
    pub size: Option<String>,
    /// Issue requests as fast as possible, or at the trace's timestamps.
    #[arg(long, value_enum, default_value_t = TimingArg::AsFast)]
    pub timing: TimingArg,
    /// Speed factor for --timing trace (2 = twice as fast as recorded), from 1e-6 to
    /// 1e6.
    #[arg(long, default_value_t = 1.0)]
    pub speed: f64,
    /// Longest wait before one request for --timing trace, seconds after --speed; a
    /// trace with a longer pause (a corrupt timestamp?) is refused before the first I/O.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_MAX_GAP_S)]
    pub max_gap: f64,
    /// Page size: requests are replayed as the whole pages they touch.
    #[arg(long, default_value = "4KiB")]
    pub page_size: String,
    /// Seed of the data pattern (word 1 of every written page).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Read back every written page afterwards and check the pattern.
    #[arg(long)]
    pub verify: bool,
    /// Issue the I/Os with the built-in threads or with fio.
    #[arg(long, value_enum, default_value_t = Via::Threads)]
    pub via: Via,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Header of the after-cache CSV that `wafer sim --after x.csv` writes
/// (`wafer_cache::after::CsvSink`).
const AFTER_HEADER: &str = "access,time_ns,op,kind,group,dev,page,offset,len";

/// Read options for an after-cache CSV (recognised by its header): the generic reader
/// with that file's columns; the time column only when the first record has a time
/// (untimed traces leave it empty).
fn after_cache_csv(path: &std::path::Path) -> Option<ReadOptions> {
    use std::io::BufRead;
    let f = std::fs::File::open(path).ok()?;
    let mut lines = std::io::BufReader::new(f).lines();
    if lines.next()?.ok()?.trim_end() != AFTER_HEADER {
        return None;
    }
    let timed = match lines.next() {
        Some(Ok(l)) => l.split(',').nth(1).is_some_and(|t| !t.is_empty()),
        _ => false,
    };
    Some(ReadOptions {
        format: Some(Format::Generic),
        generic: Some(GenericSpec {
            delimiter: Some(b','),
            skip_lines: 1,
            time_col: timed.then_some(1),
            time_unit_s: 1e-9,
            op_col: Some(2),
            offset_col: 7,
            offset_unit: 1,
            size_col: Some(8),
            size_unit: 1,
            dev_col: Some(5),
            ops: None,
        }),
        ..ReadOptions::default()
    })
}

fn usage(msg: impl Into<String>) -> anyhow::Error {
    UsageError(msg.into()).into()
}

/// Run `wafer replay`.
pub fn run(a: Args) -> anyhow::Result<()> {
    // The trace and the prepared trace kept beside it are inputs: a target that is
    // either (by any name) would be overwritten by the replay.
    refuse_input_as_output(
        &a.target,
        &[&a.trace, &wafer_lab::prepared::path_of(&a.trace)],
    )?;
    let page_size = parse_page_size(&a.page_size).map_err(|e| usage(e.to_string()))?;
    let size = a
        .size
        .as_deref()
        .map(parse_size)
        .transpose()
        .map_err(|e| usage(e.to_string()))?;
    let given = a.source.read_options()?;
    if a.timing == TimingArg::AsFast && a.speed != 1.0 {
        return Err(usage("--speed applies to --timing trace only"));
    }
    if a.timing == TimingArg::AsFast && a.max_gap != DEFAULT_MAX_GAP_S {
        return Err(usage("--max-gap applies to --timing trace only"));
    }
    let opts = Options {
        page_size,
        queue_depth: a.queue_depth,
        timing: match a.timing {
            TimingArg::AsFast => Timing::AsFast,
            TimingArg::Trace => Timing::Trace { speed: a.speed },
        },
        destructive: a.destructive,
        wrap: a.wrap,
        allow_large: a.allow_large,
        size,
        seed: a.seed,
        verify: a.verify,
        engine: match a.via {
            Via::Threads => Engine::Threads,
            Via::Fio => Engine::Fio,
        },
        max_gap_s: a.max_gap,
    };
    let read = match given.format {
        None => ReadOptions {
            skip_invalid: given.skip_invalid,
            ..after_cache_csv(&a.trace).unwrap_or_default()
        },
        Some(_) => given,
    };
    let mut bar: Option<(Stage, indicatif::ProgressBar)> = None;
    let result = wafer_replay::replay(
        &a.trace,
        &read,
        &a.target,
        &opts,
        &mut |stage, done, total| {
            if bar.as_ref().map(|b| b.0) != Some(stage) {
                if let Some((_, b)) = bar.take() {
                    b.finish_and_clear();
                }
                let what = match stage {
                    Stage::Scan => "scanning trace",
                    Stage::Prefill => "preallocating target",
                    Stage::Replay => "replaying",
                    Stage::Verify => "verifying",
                };
                bar = Some((stage, progress::bar(total, what)));
            }
            if let Some((_, b)) = &bar {
                b.set_position(done);
            }
        },
    );
    if let Some((_, b)) = bar.take() {
        b.finish_and_clear();
    }
    let report = result.map_err(|e| {
        if e.is_usage() {
            usage(e.to_string())
        } else {
            anyhow::Error::new(e)
        }
    })?;
    for w in &report.warnings {
        eprintln!("wafer: warning: {w}");
    }
    // A failing stdout (a closed pipe, a full disk) is an error, not a panic.
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        print_text(&mut out, &report)?;
    }
    Ok(())
}

fn print_text(out: &mut impl Write, r: &Report) -> std::io::Result<()> {
    let s = &r.scan;
    writeln!(
        out,
        "trace      {} ({} requests: {} reads, {} writes, {} trims and {} empty not replayed)",
        r.trace.display(),
        s.requests,
        s.reads,
        s.writes,
        s.trims,
        s.empty
    )?;
    let t = &r.target;
    let mut how = Vec::new();
    if t.created {
        how.push("created".to_string());
    }
    if let Some((from, to)) = t.preallocated {
        how.push(format!(
            "preallocated bytes {from}..{to} ({})",
            t.preallocation
        ));
    }
    how.push(
        if t.direct_io {
            "O_DIRECT"
        } else {
            "buffered I/O"
        }
        .to_string(),
    );
    writeln!(
        out,
        "target     {} ({}, {}; {})",
        t.path.display(),
        match t.kind {
            wafer_replay::target::TargetKind::File => "file",
            wafer_replay::target::TargetKind::BlockDevice => "block device",
        },
        format_size(t.bytes),
        how.join(", ")
    )?;
    let g = &r.range;
    writeln!(
        out,
        "range      bytes {}..{} ({} pages of {} B){}",
        g.start,
        g.end,
        (g.end - g.start) / u64::from(g.page_size),
        g.page_size,
        if g.wrap {
            format!(
                "; --wrap: the trace's {} mapped modulo the range ({} requests wrapped)",
                format_size(g.span_bytes),
                g.wrapped_requests
            )
        } else {
            String::new()
        }
    )?;
    if g.layout.len() > 1 {
        let l: Vec<String> = g
            .layout
            .iter()
            .map(|d| format!("dev {} at byte {}", d.dev, d.base))
            .collect();
        writeln!(out, "layout     {}", l.join(", "))?;
    }
    match &r.pattern {
        Some(p) => writeln!(
            out,
            "pattern    {} seed {}: {}",
            p.name, p.seed, p.description
        )?,
        None => writeln!(
            out,
            "pattern    none announced (fio writes its own buffers)"
        )?,
    }
    let timing = match r.timing {
        Timing::AsFast => "as fast as possible".to_string(),
        Timing::Trace { speed } => format!("trace timestamps / {speed}"),
    };
    writeln!(
        out,
        "engine     {}, queue depth {}, {timing}",
        r.engine, r.queue_depth
    )?;
    writeln!(
        out,
        "elapsed    {:.3} s (final sync {:.3} s){}",
        r.elapsed_s,
        r.sync_s,
        r.max_lag_ms
            .map(|l| format!("; at most {l:.3} ms behind the trace's schedule"))
            .unwrap_or_default()
    )?;
    for (name, o) in [
        ("reads", &r.read),
        ("writes", &r.write),
        ("total", &r.total),
    ] {
        let l = &o.latency;
        let lat = if l.count > 0 {
            format!(
                "; latency us p50 {:.1} p95 {:.1} p99 {:.1} max {:.1}",
                l.p50_us, l.p95_us, l.p99_us, l.max_us
            )
        } else {
            String::new()
        };
        writeln!(
            out,
            "{name:<10} {} I/Os, {}, {:.2} MB/s, {:.0} IOPS{lat}",
            o.ios,
            format_size(o.bytes),
            o.mb_per_s,
            o.iops
        )?;
    }
    if let Some(v) = &r.verify {
        writeln!(
            out,
            "verify     {} written pages read back in {:.3} s: all carry the pattern of their last write",
            v.pages, v.seconds
        )?;
    }
    Ok(())
}
