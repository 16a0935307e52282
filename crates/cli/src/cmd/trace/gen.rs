//! `wafer trace gen`: write a synthetic trace from one of the generators of
//! `wafer_trace::gen`. The flags are the generator's parameters (`--theta` for
//! `theta`); they are checked against the kind's parameter table, then deserialised
//! into the same `GenSpec` an experiment file holds, so both accept the same values.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::{json, Map, Value};
use wafer_trace::gen::{GenSpec, KINDS};
use wafer_trace::reader::BATCH;
use wafer_trace::units::parse_page_size;
use wafer_trace::{wtr, OutFormat, TraceWriter, WriteInfo};

use super::convert::out_format_arg;
use crate::cmd::{unknown, usage, UsageError};

/// Arguments of `wafer trace gen`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  wafer trace gen --list
  wafer trace gen zipf --theta 0.99 --footprint 1GiB --requests 1000000 -o zipf.wtr
  wafer trace gen uniform --size 4KiB..64KiB --write-ratio 0.3 --arrival poisson:1000/s -o u.csv
  wafer trace gen block-utilization --utilization 25 --range 1GiB --bytes 32GiB -o bu25.wtr
  wafer trace gen thrash --cache 16MiB --seed 7 -o thrash.wtr
  wafer trace gen iozone --file-size 64MiB --record 64KiB --writes-only true -o iozone.wtr

Every kind, its parameters and their defaults: `wafer trace gen --list` or docs/generators.md.")]
pub struct Args {
    /// Generator kind (see --list).
    #[arg(required_unless_present = "list")]
    pub kind: Option<String>,
    /// Output file; the format follows the extension (.wtr, .csv, .iolog).
    #[arg(
        short = 'o',
        long = "out",
        visible_alias = "output",
        required_unless_present = "list"
    )]
    pub output: Option<PathBuf>,
    /// Output format, overriding the extension: wtr, csv or fio-iolog (as `wafer trace
    /// convert --to`).
    #[arg(long = "to")]
    pub format: Option<String>,
    /// Describe every kind and its parameters, then exit.
    #[arg(long)]
    pub list: bool,
    /// Machine-readable output (the list, or a summary of what was written).
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub params: Params,
}

/// Generator parameters; each applies to the kinds whose table lists it.
#[derive(clap::Args, Debug, Default)]
#[command(next_help_heading = "Generator parameters (see --list for which kind takes which)")]
pub struct Params {
    /// Random seed: the same seed gives a byte-identical trace.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Number of requests.
    #[arg(long)]
    pub requests: Option<u64>,
    /// Bytes addressed (16MiB, 1GiB, ...).
    #[arg(long)]
    pub footprint: Option<String>,
    /// Page size (4KiB; a power of two from 512 B to 1 GiB): offset alignment, the
    /// flash page for block-utilization.
    #[arg(long)]
    pub page_size: Option<String>,
    /// Fraction of writes, 0..=1.
    #[arg(long, allow_negative_numbers = true)]
    pub write_ratio: Option<f64>,
    /// Request size: 4KiB | 4KiB..64KiB[/step] | 4KiB:3,64KiB:1.
    #[arg(long)]
    pub size: Option<String>,
    /// Arrival process: none | fixed:10ms | poisson:10ms | poisson:100/s.
    #[arg(long)]
    pub arrival: Option<String>,
    /// Zipf skew exponent (0 = uniform).
    #[arg(long, allow_negative_numbers = true)]
    pub theta: Option<f64>,
    /// Zipf: scatter ranks over the pages (true) or rank 1 = page 0 (false).
    #[arg(long)]
    pub scramble: Option<bool>,
    /// Sequential: byte offset of the first request.
    #[arg(long)]
    pub start: Option<String>,
    /// Hot/cold: fraction of the footprint that is hot.
    #[arg(long, allow_negative_numbers = true)]
    pub hot_fraction: Option<f64>,
    /// Hot/cold: fraction of requests sent to the hot region.
    #[arg(long, allow_negative_numbers = true)]
    pub hot_access: Option<f64>,
    /// Block utilization: erase block size.
    #[arg(long = "block", visible_alias = "block-size")]
    pub block_size: Option<String>,
    /// Block utilization: percent of each chosen block's pages written.
    #[arg(long, allow_negative_numbers = true)]
    pub utilization: Option<f64>,
    /// Block utilization: size of the I/O range.
    #[arg(long)]
    pub range: Option<String>,
    /// Block utilization: first byte of the I/O range.
    #[arg(long)]
    pub range_start: Option<String>,
    /// Block utilization: total bytes to write.
    #[arg(long)]
    pub bytes: Option<String>,
    /// Block utilization: merge consecutive chosen pages into one request.
    #[arg(long)]
    pub coalesce: bool,
    /// Paper 004 benchmarks: device span of random starts.
    #[arg(long)]
    pub span: Option<String>,
    /// Paper 004 benchmarks: sizes are uniform on [1, max-blocks - 1] x 512 B.
    #[arg(long)]
    pub max_blocks: Option<u32>,
    /// Thrash: cache size separating the regions (the cache under test).
    #[arg(long, visible_alias = "cache-size")]
    pub cache: Option<String>,
    /// Thrash: regions per round (n+1 thrashes an n-way cache).
    #[arg(long)]
    pub regions: Option<u32>,
    /// IOzone: size of the file (64MiB).
    #[arg(long)]
    pub file_size: Option<String>,
    /// IOzone: record (request) size (64KiB).
    #[arg(long)]
    pub record: Option<String>,
    /// IOzone: the tests to run, all or a comma-separated subset (write, rewrite, read,
    /// reread, random-read, random-write, backward-read, record-rewrite, stride-read).
    #[arg(long)]
    pub tests: Option<String>,
    /// IOzone: stride-read's stride in records (17).
    #[arg(long)]
    pub stride: Option<u64>,
    /// IOzone: every request a write (true, as paper 004 ran IOzone) or IOzone's own
    /// ops (false).
    #[arg(long)]
    pub writes_only: Option<bool>,
}

impl Params {
    /// The parameters given on the command line, as spec keys and JSON values.
    fn given(&self) -> anyhow::Result<Vec<(&'static str, Value)>> {
        let mut v: Vec<(&'static str, Value)> = Vec::new();
        if let Some(p) = &self.page_size {
            let bytes = parse_page_size(p).map_err(|e| usage(format!("--page-size: {e}")))?;
            v.push(("page_size", json!(bytes)));
        }
        macro_rules! put {
            ($($f:ident),*) => {$(
                if let Some(x) = &self.$f {
                    v.push((stringify!($f), json!(x)));
                }
            )*};
        }
        put!(
            seed,
            requests,
            footprint,
            write_ratio,
            size,
            arrival,
            theta,
            scramble,
            start,
            hot_fraction,
            hot_access,
            block_size,
            utilization,
            range,
            range_start,
            bytes,
            span,
            max_blocks,
            cache,
            regions,
            file_size,
            record,
            tests,
            stride,
            writes_only
        );
        if self.coalesce {
            v.push(("coalesce", json!(true)));
        }
        Ok(v)
    }
}

fn flag(name: &str) -> String {
    format!("--{}", name.replace('_', "-"))
}

/// Build the spec from the kind and the flags; every mistake is a usage error.
fn build_spec(kind: &str, params: &Params) -> anyhow::Result<GenSpec> {
    let info = KINDS.iter().find(|k| k.name == kind).ok_or_else(|| {
        let names: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
        unknown(
            format!(
                "unknown generator `{kind}` (expected one of: {})",
                names.join(", ")
            ),
            kind,
            names.iter().copied(),
        )
    })?;
    let mut map = Map::new();
    map.insert("kind".into(), json!(kind));
    for (name, value) in params.given()? {
        if !info.params.iter().any(|p| p.name == name) {
            let takes: Vec<String> = info.params.iter().map(|p| flag(p.name)).collect();
            return Err(UsageError(format!(
                "{kind} does not take {} (it takes {})",
                flag(name),
                takes.join(", ")
            ))
            .into());
        }
        map.insert(name.into(), value);
    }
    let spec: GenSpec = serde_json::from_value(Value::Object(map))
        .map_err(|e| UsageError(format!("{kind}: {e}")))?;
    spec.validate().map_err(|e| UsageError(e.to_string()))?;
    Ok(spec)
}

fn out_format(path: &Path, forced: Option<&str>) -> anyhow::Result<OutFormat> {
    match forced {
        Some(name) => out_format_arg(name),
        None => OutFormat::from_path(path).ok_or_else(|| {
            UsageError(format!(
                "{}: cannot tell the output format from the extension \
                 (use .wtr, .csv or .iolog, or --to)",
                path.display()
            ))
            .into()
        }),
    }
}

/// Run `wafer trace gen`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.list {
        return list(args.json);
    }
    let (Some(kind), Some(output)) = (args.kind.as_deref(), args.output.as_deref()) else {
        return Err(UsageError("give a generator kind and -o OUTPUT (or --list)".into()).into());
    };
    let spec = build_spec(kind, &args.params)?;
    let format = out_format(output, args.format.as_deref())?;
    let label = spec.to_string();

    let origin = format!("wafer trace gen {label}");
    if format == OutFormat::Wtr && origin.len() > wtr::MAX_ORIGIN {
        return Err(usage(format!(
            "the generator's description is {} bytes; a .wtr header holds at most {} \
             (shorten the parameters, or write .csv)",
            origin.len(),
            wtr::MAX_ORIGIN
        )));
    }
    let mut reader = spec.open()?;
    let info = WriteInfo {
        origin,
        page_size: spec.page_size(),
        has_time: reader.meta().has_time,
        has_op: true,
    };
    let total = reader.meta().requests.unwrap_or(0);
    let mut writer = TraceWriter::create(output, format, &info)?;
    let bar = crate::progress::bar(total, kind);
    let mut batch = Vec::with_capacity(BATCH);
    let (mut reads, mut writes, mut bytes) = (0u64, 0u64, 0u64);
    while reader.read_batch(&mut batch)? {
        for r in &batch {
            match r.op {
                wafer_trace::Op::Write => writes += 1,
                _ => reads += 1,
            }
            bytes += u64::from(r.len);
        }
        writer.write_all(&batch)?;
        bar.inc(batch.len() as u64);
    }
    let n = writer
        .finish()
        .with_context(|| format!("writing {}", output.display()))?;
    bar.finish_and_clear();

    let mut out = std::io::stdout().lock();
    if args.json {
        let doc = json!({
            "type": "summary",
            "output": output,
            "format": format.name(),
            "spec": spec,
            "label": label,
            "requests": n,
            "read_requests": reads,
            "write_requests": writes,
            "bytes": bytes,
        });
        writeln!(out, "{}", serde_json::to_string(&doc)?)?;
    } else {
        writeln!(
            out,
            "wrote {n} requests ({reads} reads, {writes} writes, {}) to {} [{}]\n  {label}",
            wafer_trace::units::format_size(bytes),
            output.display(),
            format.name()
        )?;
    }
    Ok(())
}

/// `--list`: every kind, what it generates, where it comes from, its parameters.
fn list(as_json: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if as_json {
        writeln!(out, "{}", serde_json::to_string_pretty(KINDS)?)?;
        return Ok(());
    }
    for k in KINDS {
        writeln!(out, "{}\n  {}\n  source: {}", k.name, k.summary, k.source)?;
        for p in k.params {
            writeln!(
                out,
                "    {:<16} {:<26} {}",
                flag(p.name),
                format!("[{}]", p.default),
                p.doc
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}
