//! `wafer trace capture`: run a command under `strace` (file I/O) or Valgrind lackey
//! (`--memory`) and write what it did as a before-cache trace
//! ([`wafer_trace::capture`]). The command's stdin, stdout and stderr are the
//! terminal's; its exit status is reported. With `--memory --cpu-cache` the accesses
//! pass through a CPU cache first, as paper 002's memory traces did (see
//! [`wafer_trace::cpu_cache`]).

use std::ffi::OsString;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use wafer_trace::capture::{self, CaptureOptions, PathFilter};
use wafer_trace::cpu_cache::{CpuCache, CpuCacheConfig};
use wafer_trace::export::AtomicFile;
use wafer_trace::reader::BATCH;
use wafer_trace::units::parse_size;
use wafer_trace::{wtr, Format, OutFormat, ReadOptions, RequestReader, TraceWriter, WriteInfo};

use super::convert::{cpu_cache_arg, CpuCacheSummary};
use crate::cmd::UsageError;

/// Arguments of `wafer trace capture`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Each file is laid out in one address space in block-aligned extents;
the layout (file -> extents) is written to OUT.layout.json. Sockets, pipes, ttys and
/proc, /sys, /dev are skipped. mmap'd file I/O is invisible to strace.
Examples:
  wafer trace capture -o dd.wtr -- dd if=/dev/zero of=f bs=4k count=100
  wafer trace capture -o db.wtr --include /tmp/db -- python3 bench.py
  wafer trace capture -o ls-mem.wtr --memory -- ls /
  wafer trace capture -o ls-llc.wtr --memory --cpu-cache 256KiB:8:64 -- ls /"
)]
pub struct Args {
    /// Output trace (.wtr, .csv or .iolog).
    #[arg(
        short = 'o',
        long = "out",
        visible_alias = "output",
        default_value = "capture.wtr"
    )]
    pub output: PathBuf,
    /// Layout slot / extent size (e.g. 4MiB, 1MiB).
    #[arg(long, visible_alias = "block-size", default_value = wafer_lab::options::BLOCK_SIZE)]
    pub block: String,
    /// Only files matching: a path prefix, or a glob with * and ? (repeatable).
    #[arg(long)]
    pub include: Vec<String>,
    /// Leave out files matching: a path prefix or a glob (repeatable).
    #[arg(long)]
    pub exclude: Vec<String>,
    /// Capture memory accesses with `valgrind --tool=lackey` instead of file I/O.
    #[arg(long)]
    pub memory: bool,
    /// With --memory: write what leaves a write-back, write-allocate CPU cache with
    /// LRU sets (a line read per miss, a line write per dirty eviction) instead of
    /// every access. Alone: 256KiB:8:64 (paper 002 gives no parameters).
    #[arg(
        long,
        value_name = "SIZE:WAYS:LINE",
        num_args = 0..=1,
        default_missing_value = CpuCacheConfig::DEFAULT_SPEC,
        requires = "memory"
    )]
    pub cpu_cache: Option<String>,
    /// With --cpu-cache: also write the lines still dirty when the command ends.
    #[arg(long, requires = "cpu_cache")]
    pub cpu_cache_flush: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// The command and its arguments (after `--`).
    #[arg(required = true, last = true)]
    pub command: Vec<OsString>,
}

#[derive(Serialize)]
struct Summary {
    output: String,
    layout: Option<String>,
    requests: u64,
    reads: u64,
    writes: u64,
    files: usize,
    calls: u64,
    skipped: u64,
    exit_status: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu_cache: Option<CpuCacheSummary>,
}

/// Run `wafer trace capture`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let format = OutFormat::from_path(&args.output).ok_or_else(|| {
        UsageError(format!(
            "cannot tell the output format of `{}` (use .wtr, .csv or .iolog)",
            args.output.display()
        ))
    })?;
    let block = parse_size(&args.block).map_err(|e| UsageError(format!("--block: {e}")))?;
    if block == 0 {
        return Err(UsageError("--block must be positive".into()).into());
    }
    let cpu = cpu_cache_arg(args.cpu_cache.as_deref())?;
    let dir = tempfile::tempdir()?;
    let log = dir.path().join("capture.log");
    let origin = origin(&args);
    let (status, mut summary) = if args.memory {
        let status = capture::run::run_lackey(&args.command, &log)?;
        let cpu = cpu.map(|c| (c, args.cpu_cache_flush));
        (
            status,
            write_memory(&log, &args.output, format, &origin, cpu)?,
        )
    } else {
        let status = capture::run::run_strace(&args.command, &log)?;
        let opts = CaptureOptions {
            block,
            filter: PathFilter {
                include: args.include.clone(),
                exclude: args.exclude.clone(),
            },
        };
        (
            status,
            write_files(&log, &args.output, format, &origin, &opts)?,
        )
    };
    summary.exit_status = status.code();
    let mut out = std::io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &summary)?;
        writeln!(out)?;
    } else {
        let source = if args.memory {
            "memory accesses".to_string()
        } else {
            format!("{} files", summary.files)
        };
        writeln!(
            out,
            "wrote {} requests ({} reads, {} writes) from {source} to {}",
            summary.requests, summary.reads, summary.writes, summary.output
        )?;
        if let Some(l) = &summary.layout {
            writeln!(out, "layout: {l}")?;
        }
        if let Some(c) = &summary.cpu_cache {
            writeln!(out, "{}", c.text())?;
        }
        writeln!(
            out,
            "command exited with status {}",
            status
                .code()
                .map_or("none (killed by a signal)".to_string(), |c| c.to_string())
        )?;
    }
    if !status.success() {
        anyhow::bail!("the captured command failed ({status}); its trace was written");
    }
    Ok(())
}

/// The origin recorded in a `.wtr` header: the capture command line. One longer than
/// a header holds keeps its start and says, in the text, how much was left out.
fn origin(args: &Args) -> String {
    let cpu = match &args.cpu_cache {
        Some(c) if args.cpu_cache_flush => format!(" --cpu-cache {c} --cpu-cache-flush"),
        Some(c) => format!(" --cpu-cache {c}"),
        None => String::new(),
    };
    let line = format!(
        "wafer trace capture{}{cpu} -- {}",
        if args.memory { " --memory" } else { "" },
        args.command
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    );
    if line.len() <= wtr::MAX_ORIGIN {
        return line;
    }
    let note = |cut: usize| format!(" ... ({cut} more bytes of the command line)");
    // The count left out has no more digits than the whole length: the result fits.
    let mut keep = wtr::MAX_ORIGIN - note(line.len()).len();
    while !line.is_char_boundary(keep) {
        keep -= 1;
    }
    format!("{}{}", &line[..keep], note(line.len() - keep))
}

/// Convert a strace log and write the trace and its layout.
fn write_files(
    log: &Path,
    output: &Path,
    format: OutFormat,
    origin: &str,
    opts: &CaptureOptions,
) -> anyhow::Result<Summary> {
    let f = std::fs::File::open(log)
        .map_err(|e| anyhow::anyhow!("{}: strace wrote no log: {e}", log.display()))?;
    let cap = capture::convert(BufReader::new(f), log, opts)?;
    let info = WriteInfo {
        origin: origin.to_string(),
        page_size: 4096,
        has_time: true,
        has_op: true,
    };
    let mut w = TraceWriter::create(output, format, &info)?;
    w.write_all(&cap.requests)?;
    let n = w.finish()?;
    let mut layout_path = output.as_os_str().to_owned();
    layout_path.push(".layout.json");
    let layout_path = PathBuf::from(layout_path);
    let mut f = AtomicFile::create(&layout_path)?;
    serde_json::to_writer_pretty(&mut f, &cap.layout)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(f))
        .map_err(|e| anyhow::anyhow!("{}: {e}", layout_path.display()))?;
    f.commit()?;
    let writes = cap
        .requests
        .iter()
        .filter(|r| r.op == wafer_trace::Op::Write)
        .count() as u64;
    Ok(Summary {
        output: output.display().to_string(),
        layout: Some(layout_path.display().to_string()),
        requests: n,
        reads: n - writes,
        writes,
        files: cap.layout.files.len(),
        calls: cap.calls,
        skipped: cap.skipped,
        exit_status: None,
        cpu_cache: None,
    })
}

/// Stream a lackey log into the output trace, through the CPU cache `cpu` (its
/// geometry and whether to flush) if given.
fn write_memory(
    log: &Path,
    output: &Path,
    format: OutFormat,
    origin: &str,
    cpu: Option<(CpuCacheConfig, bool)>,
) -> anyhow::Result<Summary> {
    let opts = ReadOptions {
        format: Some(Format::Lackey),
        ..ReadOptions::default()
    };
    let lackey = wafer_trace::open(log, &opts)?;
    let info = WriteInfo {
        origin: origin.to_string(),
        page_size: 4096,
        has_time: false,
        has_op: true,
    };
    let mut w = TraceWriter::create(output, format, &info)?;
    let (writes, cpu_cache) = match cpu {
        Some((cfg, flush)) => {
            let mut c = CpuCache::new(lackey, cfg, flush)?;
            let writes = copy_counting_writes(&mut c, &mut w)?;
            (writes, Some(CpuCacheSummary::new(cfg, flush, c.stats())))
        }
        None => {
            let mut lackey = lackey;
            (copy_counting_writes(lackey.as_mut(), &mut w)?, None)
        }
    };
    let n = w.finish()?;
    Ok(Summary {
        output: output.display().to_string(),
        layout: None,
        requests: n,
        reads: n - writes,
        writes,
        files: 0,
        calls: 0,
        skipped: 0,
        exit_status: None,
        cpu_cache,
    })
}

/// Write every request of `reader` to `w`; the number of writes among them.
fn copy_counting_writes(
    reader: &mut dyn RequestReader,
    w: &mut TraceWriter,
) -> anyhow::Result<u64> {
    let mut batch = Vec::with_capacity(BATCH);
    let mut writes = 0u64;
    while reader.read_batch(&mut batch)? {
        writes += batch
            .iter()
            .filter(|r| r.op == wafer_trace::Op::Write)
            .count() as u64;
        w.write_all(&batch)?;
    }
    Ok(writes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    #[test]
    fn a_long_command_line_is_shortened_visibly() {
        let long = "x".repeat(5000);
        let cli = Cli::parse_from(["capture", "-o", "a.wtr", "--", "echo", long.as_str()]);
        let o = origin(&cli.args);
        assert!(o.len() <= wtr::MAX_ORIGIN, "{}", o.len());
        assert!(o.ends_with("more bytes of the command line)"), "{o}");
        let short = Cli::parse_from(["capture", "--", "echo", "hi"]);
        assert_eq!(origin(&short.args), "wafer trace capture -- echo hi");
    }
}
