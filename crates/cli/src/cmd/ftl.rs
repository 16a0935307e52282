//! `wafer ftl`: replay a trace on a simulated flash device, and `wafer ftl sweep` for
//! Fig. 1-style synthetic studies of paper 000 (TS-CLOCK: D. H. Kang, C. Min, Y. I. Eom,
//! "An Efficient Buffer Replacement Algorithm for NAND Flash Storage Devices", IEEE
//! MASCOTS 2014).

use super::{about_file, unknown, UsageError};
use crate::progress;
use std::io::Write;
use std::path::PathBuf;
use wafer_ftl::aging::{self, Aging};
use wafer_ftl::replay;
use wafer_ftl::sweep::{self, Placement, SweepConfig};
use wafer_ftl::{AddressMap, Device, Ftl, FtlKind, Mapper, Victim, PROFILES};
use wafer_trace::export::write_atomic;
use wafer_trace::units::{format_size, parse_size};
use wafer_trace::{Format, ReadOptions};

const EXAMPLES: &str = "Examples:
  wafer ftl -t after.wtr --device microsd-16g --aging
  wafer ftl -t prxy_0.csv --device ssd-120g --map compact --json
  wafer ftl -t telegram.csv.gz --map wrap          # fold pages modulo the capacity (lossy)
  wafer ftl -t trace.csv -d card.toml --rw-log-blocks 16 --precondition precond.wtr
  wafer ftl sweep --csv fig1.csv                 # paper 000 Fig. 1
  wafer ftl sweep --ftl page --range 1GiB,16GiB --util 25,100 --json

Devices: microsd-16g, ssd-120g, slc-paper002, samsung-k9, or a .toml file (docs/ftl.md).";

/// Arguments of `wafer ftl`.
#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, after_help = EXAMPLES)]
pub struct Args {
    #[command(subcommand)]
    sub: Option<Sub>,
    #[command(flatten)]
    replay: ReplayArgs,
}

#[derive(clap::Subcommand, Debug)]
enum Sub {
    /// Fig. 1-style sweep: WAF against block utilization and I/O range.
    #[command(after_help = "Examples:\n  wafer ftl sweep --csv fig1.csv\n  \
        wafer ftl sweep --placement aligned --rw-log-blocks 16 --range 1GiB,16GiB")]
    Sweep(SweepArgs),
}

#[derive(clap::Args, Debug)]
struct DeviceArgs {
    /// Built-in profile (microsd-16g, ssd-120g, slc-paper002, samsung-k9) or a .toml file.
    #[arg(short, long, default_value = "microsd-16g")]
    device: String,
    /// Page-level GC victim policy: greedy, cost-benefit or fifo.
    #[arg(long)]
    victim: Option<String>,
    /// Page-level: write GC copies to their own frontier.
    #[arg(long)]
    hot_cold: bool,
    /// FAST: number of RW log blocks (default: every spare block).
    #[arg(long)]
    rw_log_blocks: Option<u32>,
}

/// Resolve `--map` (and its `--wrap` alias); an unknown name is a usage error with a
/// "did you mean".
pub fn address_map(name: &str, wrap: bool) -> anyhow::Result<AddressMap> {
    if wrap {
        return Ok(AddressMap::Wrap);
    }
    AddressMap::from_name(name).map_err(|e| unknown(e, name, AddressMap::NAMES))
}

/// What the address map did, for the text reports of `wafer ftl` and `wafer ssd`
/// (`mapper`: what a compact map placed).
pub fn address_line(mapper: &Mapper, remapped: u64, requests: u64) -> String {
    match mapper.kind() {
        AddressMap::Refuse => "refuse (every page within the capacity)".to_string(),
        AddressMap::Compact => format!(
            "compact: {} {} placed in first-touch order; {remapped} of \
             {requests} requests moved, none folded",
            mapper.blocks_seen(),
            mapper.unit_name()
        ),
        AddressMap::Wrap => format!(
            "wrap: pages folded modulo the capacity; {remapped} of {requests} requests wrapped"
        ),
    }
}

/// Resolve `--device`: a built-in profile or a .toml file. An unknown profile name is
/// a usage error (with a "did you mean"); a .toml file that cannot be read or parsed
/// is a runtime error, like a trace that cannot be.
pub fn resolve_device(spec: &str) -> anyhow::Result<Device> {
    let name = spec.split_once(':').map_or(spec, |(n, _)| n);
    if !spec.ends_with(".toml") && !PROFILES.contains(&name) {
        return Err(unknown(
            format!(
                "unknown device `{spec}` (built-in: {}; or give a .toml file)",
                PROFILES.join(", ")
            ),
            spec,
            PROFILES,
        ));
    }
    Ok(Device::resolve(spec)?)
}

impl DeviceArgs {
    fn device(&self) -> anyhow::Result<Device> {
        let mut d = resolve_device(&self.device)?;
        if let Some(v) = &self.victim {
            d.page.victim = match v.as_str() {
                "greedy" => Victim::Greedy,
                "cost-benefit" => Victim::CostBenefit,
                "fifo" => Victim::Fifo,
                _ => {
                    return Err(unknown(
                        format!(
                            "unknown victim policy `{v}` (expected greedy, cost-benefit or fifo)"
                        ),
                        v,
                        ["greedy", "cost-benefit", "fifo"],
                    ))
                }
            };
        }
        d.page.hot_cold |= self.hot_cold;
        if self.rw_log_blocks.is_some() {
            d.rw_log_blocks = self.rw_log_blocks;
        }
        Ok(d)
    }
}

#[derive(clap::Args, Debug)]
struct ReplayArgs {
    /// The trace to replay (any format wafer reads).
    #[arg(short, long)]
    trace: Option<PathBuf>,
    #[command(flatten)]
    dev: DeviceArgs,
    /// Age the device first: fill it sequentially, then overwrite --aging-volume bytes.
    #[arg(long)]
    aging: bool,
    /// Volume of mixed overwrites after the fill.
    #[arg(long, default_value = "16GiB")]
    aging_volume: String,
    /// Fraction of the aging volume written as random single pages (rest: 1 MiB runs).
    #[arg(long, default_value_t = 0.5)]
    aging_random: f64,
    /// Precondition with this trace instead (replayed, then counters reset).
    #[arg(long, conflicts_with = "aging")]
    precondition: Option<PathBuf>,
    /// How the trace's addresses are placed on the device: refuse (pages beyond the
    /// capacity are an error), compact (the trace's erase blocks in first-touch order,
    /// offsets in a block kept) or wrap (pages modulo the capacity: folds).
    #[arg(long, visible_alias = "address-map", default_value = "refuse")]
    map: String,
    /// The same as --map wrap.
    #[arg(long, conflicts_with = "map")]
    wrap: bool,
    /// Print the metrics as JSON.
    #[arg(long)]
    json: bool,
    /// How the trace (-t) is read; a --precondition trace is detected.
    #[command(flatten)]
    source: crate::cmd::mapping::TraceArgs,
}

#[derive(clap::Args, Debug)]
struct SweepArgs {
    #[command(flatten)]
    dev: DeviceArgs,
    /// FTLs, comma-separated (page, fast, block).
    #[arg(long, default_value = "fast,page", value_delimiter = ',')]
    ftl: Vec<String>,
    /// Block utilizations in percent, comma-separated.
    #[arg(long, default_value = "25,50,75,100", value_delimiter = ',')]
    util: Vec<f64>,
    /// I/O ranges, comma-separated sizes.
    #[arg(
        long,
        default_value = "1GiB,2GiB,4GiB,8GiB,16GiB",
        value_delimiter = ','
    )]
    range: Vec<String>,
    /// Page placement in a block: random-start, aligned or subset.
    #[arg(long, default_value = "random-start")]
    placement: String,
    /// Warm-up volume in device-writes.
    #[arg(long, default_value_t = 2.0)]
    warmup: f64,
    /// Measured volume in device-writes.
    #[arg(long, default_value_t = 2.0)]
    measure: f64,
    /// Do not fill the device before the warm-up.
    #[arg(long)]
    no_prefill: bool,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the table as CSV here.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Print the table as JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Run `wafer ftl`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.sub {
        Some(Sub::Sweep(s)) => run_sweep(s),
        None => run_replay(args.replay),
    }
}

fn run_replay(a: ReplayArgs) -> anyhow::Result<()> {
    let Some(trace) = &a.trace else {
        return Err(
            UsageError("give a trace with -t/--trace (or use `wafer ftl sweep`)".into()).into(),
        );
    };
    let read = a.source.read_options()?;
    let dev = a.dev.device()?;
    let mut ftl = dev.build_ftl()?;
    let map = address_map(&a.map, a.wrap)?;
    // One placement for the preconditioning trace and the measured one: they address
    // the same logical space.
    let mut mapper = Mapper::new(map, ftl.geometry(), ftl.kind());
    if !(0.0..=1.0).contains(&a.aging_random) {
        return Err(UsageError(format!(
            "--aging-random {}: expected a fraction in 0..=1",
            a.aging_random
        ))
        .into());
    }
    let precondition = if a.aging {
        let volume = parse_size(&a.aging_volume).map_err(|e| UsageError(e.to_string()))?;
        aging::age(
            &mut ftl,
            &Aging {
                volume_bytes: volume,
                random_fraction: a.aging_random,
                ..Aging::default()
            },
        )?;
        format!(
            "fill + {} ({:.0}% random pages, rest 1 MiB runs)",
            format_size(volume),
            a.aging_random * 100.0
        )
    } else if let Some(p) = &a.precondition {
        let mut r = wafer_trace::open(p, &ReadOptions::default())?;
        let pb = progress::bar(r.meta().requests.unwrap_or(0), "preconditioning");
        replay::replay(&mut ftl, r.as_mut(), &mut mapper, |n| pb.set_position(n))
            .map_err(|e| about_file(e, "preconditioning with", p))?;
        pb.finish_and_clear();
        ftl.reset_counters();
        format!("trace {}", p.display())
    } else {
        "none (erased device)".to_string()
    };
    let mut r = wafer_trace::open(trace, &read)?;
    let format = r.meta().format;
    let pb = progress::bar(r.meta().requests.unwrap_or(0), "replaying");
    let stats = replay::replay(&mut ftl, r.as_mut(), &mut mapper, |n| pb.set_position(n))
        .map_err(|e| about_file(e, "replaying", trace))?;
    pb.finish_and_clear();
    wafer_lab::prepared::say_skipped(&trace.display().to_string(), r.skipped());
    let g = *ftl.geometry();
    let mut m = ftl.metrics();
    m.project_lifetime(stats.span_s(), g.physical_pages() * u64::from(g.page_size));
    let mut stdout = std::io::stdout().lock();
    if a.json {
        let out = serde_json::json!({
            "trace": trace,
            "format": format,
            "device": dev,
            "precondition": precondition,
            "address_map": map,
            "replay": stats,
            "metrics": m,
        });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(());
    }
    let c = &m.counters;
    writeln!(
        stdout,
        "trace         {} (format {})",
        trace.display(),
        format.map_or("?", Format::name)
    )?;
    writeln!(
        stdout,
        "device        {} ({:?} FTL, {} logical, {} physical blocks of {}, OP {:.1}%)",
        dev.name,
        dev.ftl,
        format_size(g.logical_bytes()),
        g.physical_blocks,
        format_size(g.block_bytes()),
        g.op() * 100.0
    )?;
    writeln!(stdout, "precondition  {precondition}")?;
    writeln!(
        stdout,
        "addresses     {}",
        address_line(&mapper, stats.remapped_requests, stats.requests)
    )?;
    writeln!(stdout, "requests      {}", stats.requests)?;
    writeln!(
        stdout,
        "host pages    {} read ({} never written), {} written, {} trimmed",
        c.host_read_pages, c.unwritten_reads, c.host_write_pages, c.host_trim_pages
    )?;
    writeln!(
        stdout,
        "flash         {} reads ({} for GC), {} programs ({} GC copies), {} erases",
        c.flash_reads_host + c.flash_reads_gc,
        c.flash_reads_gc,
        c.programs_host + c.programs_gc,
        c.programs_gc,
        c.erases
    )?;
    writeln!(
        stdout,
        "merges        {} switch, {} partial, {} full; {} read-modify-writes; {} GC runs",
        c.switch_merges, c.partial_merges, c.full_merges, c.read_modify_writes, c.gc_invocations
    )?;
    // A ratio with nothing under it is not a number (the JSON keeps 0).
    let waf = if c.host_write_pages == 0 {
        "n/a (nothing written)".to_string()
    } else {
        format!("{:.4}", m.waf)
    };
    writeln!(stdout, "WAF           {waf}")?;
    writeln!(
        stdout,
        "erases/block  max {} mean {:.3} stddev {:.3} (lifetime max {})",
        m.erase.max, m.erase.mean, m.erase.stddev, m.erase.max_wear
    )?;
    writeln!(
        stdout,
        "busy time     {:.3} s (busiest channel {:.3} s)",
        c.busy_ns as f64 * 1e-9,
        m.parallel_busy_ns as f64 * 1e-9
    )?;
    match &m.lifetime {
        Some(l) => writeln!(stdout, "lifetime      {:.2} years (ideal wear levelling), {:.2} years (most-erased block), P/E {}",
            l.years_mean, l.years_max, l.pe_limit)?,
        None => writeln!(stdout, "lifetime      n/a (trace has no time span)")?,
    }
    Ok(())
}

fn run_sweep(a: SweepArgs) -> anyhow::Result<()> {
    let dev = a.dev.device()?;
    if let Some(u) = a.util.iter().find(|&&u| !(u > 0.0 && u <= 100.0)) {
        return Err(UsageError(format!("--util {u}: expected a percentage in (0, 100]")).into());
    }
    let usage = |e: wafer_ftl::FtlError| UsageError(e.to_string());
    let ftls = a
        .ftl
        .iter()
        .map(|s| FtlKind::from_name(s).map_err(usage))
        .collect::<Result<Vec<_>, _>>()?;
    let mut ranges = Vec::new();
    for r in &a.range {
        ranges.push(parse_size(r).map_err(|e| UsageError(e.to_string()))?);
    }
    let cfg = SweepConfig {
        ftls,
        utilizations: a.util.iter().map(|u| u / 100.0).collect(),
        ranges,
        placement: Placement::from_name(&a.placement).map_err(usage)?,
        prefill: !a.no_prefill,
        warmup_dw: a.warmup,
        measure_dw: a.measure,
        rw_log_blocks: a.dev.rw_log_blocks,
        seed: a.seed,
    };
    let points = (cfg.ftls.len() * cfg.ranges.len() * cfg.utilizations.len()) as u64;
    let pb = progress::bar(points, "sweeping");
    let rows = sweep::run(&dev, &cfg, |_| pb.inc(1))?;
    pb.finish_and_clear();
    if let Some(p) = &a.csv {
        write_atomic(p, sweep::to_csv(&rows).as_bytes())?;
    }
    let mut stdout = std::io::stdout().lock();
    if a.json {
        writeln!(
            stdout,
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"device": dev, "config": cfg, "rows": rows})
            )?
        )?;
        return Ok(());
    }
    writeln!(
        stdout,
        "{:<6} {:>8} {:>10} {:>8}",
        "ftl", "util", "range", "WAF"
    )?;
    for r in &rows {
        writeln!(
            stdout,
            "{:<6} {:>7.0}% {:>10} {:>8.3}",
            format!("{:?}", r.ftl).to_lowercase(),
            r.utilization * 100.0,
            format_size(r.range_bytes),
            r.waf
        )?;
    }
    Ok(())
}
