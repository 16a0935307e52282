//! `wafer ssd`: a trace or a paper 004 micro benchmark (M. Huang, O. Serres,
//! V. K. Narayana, T. El-Ghazawi, G. Newby, "Efficient Cache Design for Solid-State
//! Drives", ACM Computing Frontiers 2010, Table 5) on the timed SSD with an on-board
//! write cache and automatic periodic update (crate wafer-ssd).

use super::ftl::{address_line, address_map, resolve_device};
use super::{about_file, unknown, UsageError};
use crate::progress;
use std::io::Write;
use std::path::PathBuf;
use wafer_ftl::address_map::{MappedCounts, MappedReader};
use wafer_ftl::{AddressMap, Mapper};
use wafer_ssd::{
    parse_duration_ns, Apu, Arrival, Assoc, CacheConfig, FtlFlash, Report, Ssd, SsdConfig,
};
use wafer_trace::gen::Bytes;
use wafer_trace::gen::{Arrival as GenArrival, GenSpec};
use wafer_trace::units::{format_size, parse_size};
use wafer_trace::{Format, RequestReader};

/// The paper 004 micro benchmarks `--gen` runs.
const MICRO: [&str; 4] = ["constant-write", "random-write", "write-biased", "thrash"];

/// Arguments of `wafer ssd`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  wafer ssd --gen random-write --cache-size 8MiB --ways 2 --apu lru
  wafer ssd --gen thrash --cache-size 16MiB --ways 1 --apu off --json
  wafer ssd --gen constant-write --no-cache
  wafer ssd -t trace.csv --device samsung-k9 --map compact --cache-size 64MiB --ways 4 --apu lfu
  wafer ssd -t untimed.wtr --arrival poisson:2ms --idle-threshold 1ms
Micro benchmarks (paper 004 Table 5): constant-write, random-write, write-biased, thrash.
The model and every parameter: docs/ssd.md.")]
pub struct Args {
    /// Trace file (any format wafer reads).
    #[arg(short, long, conflicts_with = "gen", required_unless_present = "gen")]
    trace: Option<PathBuf>,
    /// A paper 004 micro benchmark instead of a trace.
    #[arg(long, value_name = "KIND")]
    gen: Option<String>,
    /// Micro benchmark: number of requests.
    #[arg(long, default_value_t = 10_000)]
    requests: u64,
    /// Micro benchmark: random seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Micro benchmark: its arrival process (none, fixed:<gap>, poisson:<mean gap>).
    #[arg(long, default_value = "poisson:10ms")]
    gen_arrival: String,
    /// Micro benchmark `thrash`: regions per round (2 thrashes a direct-mapped cache).
    #[arg(long)]
    thrash_regions: Option<u32>,
    /// Device profile (samsung-k9, ssd-120g, microsd-16g, slc-paper002) or a .toml file.
    #[arg(short, long, default_value = "samsung-k9")]
    device: String,
    /// Override the device's logical capacity (same page, block and OP); defaults to
    /// 16GiB for micro benchmarks, whose span is 16 GiB.
    #[arg(long)]
    capacity: Option<String>,
    /// On-board cache size (one line per flash page).
    #[arg(long = "cache", visible_alias = "cache-size", default_value = "16MiB")]
    cache_size: String,
    /// No on-board cache (the paper's "No Cache" baseline).
    #[arg(long)]
    no_cache: bool,
    /// Associativity: 1 (direct-mapped), 2, 4 or full.
    #[arg(long, default_value = "2")]
    ways: String,
    /// Automatic periodic update: off, lru or lfu.
    #[arg(long, default_value = "lru")]
    apu: String,
    /// Idle time before each APU flush.
    #[arg(long, default_value = "2ms")]
    idle_threshold: String,
    /// Cache DRAM time per whole page (in proportion for a partial page).
    #[arg(long, default_value = "10us")]
    t_cache: String,
    /// Host-interface transfer time per whole page (in proportion for a partial page).
    #[arg(long, default_value = "10us")]
    t_bus: String,
    /// Flash channel transfer time per page, on the bus a channel's ways share (0: not
    /// modelled).
    #[arg(long, default_value = "0us")]
    t_channel: String,
    /// Native command queueing depth: requests served at once (1 = FCFS; closed loops
    /// keep this many outstanding).
    #[arg(long, default_value_t = 32)]
    queue_depth: u32,
    /// Arrival times: trace, fixed:<gap>, poisson:<mean gap>[:seed], closed (queue depth
    /// outstanding) or closed:<depth>.
    #[arg(long, default_value = "trace")]
    arrival: String,
    /// How the trace's addresses are placed on the device: refuse (pages beyond the
    /// capacity are an error), compact (the trace's erase blocks in first-touch order,
    /// offsets in a block kept; a request whose blocks lie apart is served as one
    /// request per piece) or wrap (pages modulo the capacity: folds).
    #[arg(long, visible_alias = "address-map", default_value = "refuse")]
    map: String,
    /// The same as --map wrap.
    #[arg(long, conflicts_with = "map")]
    wrap: bool,
    /// Stop after this many requests.
    #[arg(long)]
    limit: Option<u64>,
    /// Print the report (series included) as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    source: crate::cmd::mapping::TraceArgs,
}

fn usage(msg: impl std::fmt::Display) -> anyhow::Error {
    UsageError(msg.to_string()).into()
}

/// Run `wafer ssd`.
pub fn run(a: Args) -> anyhow::Result<()> {
    let map = address_map(&a.map, a.wrap)?;
    let mut dev = resolve_device(&a.device)?;
    let capacity = match (&a.capacity, &a.gen) {
        (Some(c), _) => Some(parse_size(c).map_err(usage)?),
        (None, Some(_)) => Some(16u64 << 30),
        (None, None) => None,
    };
    if let Some(cap) = capacity {
        let g = dev.geometry;
        let op = g.op();
        let mut ng =
            wafer_ftl::Geometry::with_op(cap, op, g.page_size, g.pages_per_block).map_err(usage)?;
        ng.channels = g.channels;
        ng.ways = g.ways;
        dev.geometry = ng;
    }
    let page = u64::from(dev.geometry.page_size);
    let cache = if a.no_cache {
        None
    } else {
        let bytes = parse_size(&a.cache_size).map_err(usage)?;
        let lines = bytes / page;
        if lines == 0 || lines > u64::from(u32::MAX) {
            return Err(usage(format!(
                "--cache-size {} holds no whole page of {page} bytes",
                a.cache_size
            )));
        }
        Some(CacheConfig {
            lines: lines as u32,
            assoc: Assoc::from_name(&a.ways).map_err(usage)?,
            apu: Apu::from_name(&a.apu).map_err(usage)?,
        })
    };
    let cfg = SsdConfig {
        cache,
        idle_threshold_ns: parse_duration_ns(&a.idle_threshold).map_err(usage)?,
        t_cache_ns: parse_duration_ns(&a.t_cache).map_err(usage)?,
        t_bus_ns: parse_duration_ns(&a.t_bus).map_err(usage)?,
        t_channel_ns: parse_duration_ns(&a.t_channel).map_err(usage)?,
        queue_depth: a.queue_depth,
        wrap: map == AddressMap::Wrap,
    };
    cfg.validate().map_err(usage)?;
    let arrival = if a.arrival.trim() == "closed" {
        Arrival::Closed {
            depth: a.queue_depth,
        }
    } else {
        Arrival::parse(&a.arrival).map_err(usage)?
    };
    let read = a.source.read_options()?;
    if a.trace.is_none() && (read.format.is_some()) {
        return Err(usage(
            "--format and the column flags describe a trace file (-t), not --gen",
        ));
    }
    let (mut reader, source) = match (&a.trace, &a.gen) {
        (Some(t), _) => (wafer_trace::open(t, &read)?, t.display().to_string()),
        (None, Some(kind)) => {
            let mut spec = GenSpec::default_for(kind).ok_or_else(|| {
                unknown(
                    format!(
                        "unknown micro benchmark `{kind}` (expected {})",
                        MICRO.join(", ")
                    ),
                    kind,
                    MICRO,
                )
            })?;
            let (GenSpec::ConstantWrite(p)
            | GenSpec::RandomWrite(p)
            | GenSpec::WriteBiased(p)
            | GenSpec::Thrash(p)) = &mut spec
            else {
                return Err(usage(format!(
                    "`--gen {kind}` is not a paper 004 micro benchmark (expected constant-write, \
                     random-write, write-biased or thrash); write other kinds with `wafer trace gen` \
                     and pass the file with -t"
                )));
            };
            p.requests = a.requests;
            p.seed = a.seed;
            p.arrival = GenArrival::parse(&a.gen_arrival).map_err(usage)?;
            if let (GenSpec::Thrash(p), Some(c)) = (&mut spec, &cfg.cache) {
                p.cache = Some(Bytes(u64::from(c.lines) * page));
                p.regions = a.thrash_regions.or(p.regions);
            }
            let label = spec.to_string();
            (spec.open().map_err(usage)?, label)
        }
        (None, None) => {
            return Err(usage(
                "give a trace with -t/--trace or a micro benchmark with --gen",
            ))
        }
    };
    let format = reader.meta().format;
    let flash = FtlFlash::new(&dev)?;
    let mut ssd = Ssd::new(cfg, flash)?;
    let total = a.limit.or(reader.meta().requests).unwrap_or(0);
    let pb = progress::bar(total, "simulating");
    let simulate = |ssd: &mut Ssd<FtlFlash>, input: &mut dyn RequestReader| {
        wafer_ssd::run(
            ssd,
            input,
            arrival,
            a.limit,
            |n| pb.set_position(n),
            |_, _| {},
        )
        .map_err(|e| match &a.trace {
            Some(t) => about_file(e, "simulating", t),
            None => anyhow::Error::from(e).context(format!("simulating {source}")),
        })
    };
    // Wrapping is the device model's own (pages modulo the capacity within one
    // request); compact reads the trace through a `MappedReader`.
    let mapper = Mapper::new(map, &dev.geometry, dev.ftl);
    let mapped = if map == AddressMap::Compact {
        let mut m = MappedReader::new(reader.as_mut(), mapper.clone());
        simulate(&mut ssd, &mut m)?;
        Some((m.counts(), m.mapper().clone()))
    } else {
        simulate(&mut ssd, reader.as_mut())?;
        None
    };
    pb.finish_and_clear();
    wafer_lab::prepared::say_skipped(&source, reader.skipped());
    let report = ssd.finish();
    let (counts, mapper) = mapped.unwrap_or((
        MappedCounts {
            requests: report.requests,
            remapped_requests: report.wrapped_requests,
            split_requests: 0,
        },
        mapper,
    ));
    let mut addresses = address_line(&mapper, counts.remapped_requests, counts.requests);
    if counts.split_requests > 0 {
        addresses += &format!(
            "; {} split where their blocks lie apart (served as one request per piece)",
            counts.split_requests
        );
    }
    let mut stdout = std::io::stdout().lock();
    if a.json {
        let out = serde_json::json!({
            "type": "result",
            "source": source,
            "format": format,
            "device": dev,
            "config": cfg,
            "address_map": map,
            "mapping": counts,
            "arrival": arrival,
            "report": report,
        });
        writeln!(stdout, "{}", serde_json::to_string_pretty(&out)?)?;
        return Ok(());
    }
    let workload = match (&a.trace, format) {
        (Some(_), f) => format!("{source} (format {})", f.map_or("?", Format::name)),
        (None, _) => format!("{source} (generated)"),
    };
    print_text(&mut stdout, &workload, &dev, &addresses, &cfg, &report)?;
    Ok(())
}

fn ms(ns: f64) -> String {
    format!("{:.3} ms", ns * 1e-6)
}

fn print_text(
    stdout: &mut impl Write,
    source: &str,
    dev: &wafer_ftl::Device,
    addresses: &str,
    cfg: &SsdConfig,
    r: &Report,
) -> std::io::Result<()> {
    let g = &dev.geometry;
    writeln!(stdout, "workload      {source}")?;
    let count = |n: u32, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    writeln!(
        stdout,
        "device        {} ({:?} FTL, {}, {} ({} x {}), read {} / program {} / erase {} us), queue depth {}",
        dev.name,
        dev.ftl,
        format_size(g.logical_bytes()),
        count(g.channels * g.ways, "unit"),
        count(g.channels, "channel"),
        count(g.ways, "way"),
        dev.latency.read_ns / 1000,
        dev.latency.program_ns / 1000,
        dev.latency.erase_ns / 1000,
        cfg.queue_depth
    )?;
    writeln!(stdout, "addresses     {addresses}")?;
    match &r.cache {
        Some(c) => writeln!(
            stdout,
            "cache         {} ({} sets x {} ways), APU {:?}, idle threshold {}",
            format_size(u64::from(c.lines) * u64::from(g.page_size)),
            c.sets,
            c.ways,
            c.apu,
            ms(cfg.idle_threshold_ns as f64)
        )?,
        None => writeln!(stdout, "cache         none")?,
    }
    writeln!(
        stdout,
        "requests      {} ({} reads, {} writes, {} trims; {} / {} pages)",
        r.requests, r.reads, r.writes, r.trims, r.read_pages, r.write_pages
    )?;
    writeln!(
        stdout,
        "response      {:>10} {:>10} {:>10} {:>10} {:>10}",
        "mean", "p50", "p95", "p99", "max"
    )?;
    for (name, s) in [
        ("  all", &r.response.all),
        ("  read", &r.response.read),
        ("  write", &r.response.write),
    ] {
        if s.count > 0 {
            writeln!(
                stdout,
                "{name:<13} {:>10.3} {:>10.3} {:>10.3} {:>10.3} {:>10.3}   ms",
                s.mean_ns * 1e-6,
                s.p50_ns as f64 * 1e-6,
                s.p95_ns as f64 * 1e-6,
                s.p99_ns as f64 * 1e-6,
                s.max_ns as f64 * 1e-6
            )?;
        }
    }
    if let Some(c) = &r.cache {
        writeln!(
            stdout,
            "hits          {:.4} (read {:.4}, write {:.4}); {} dirty at end",
            c.hit_ratio, c.read_hit_ratio, c.write_hit_ratio, c.dirty_at_end
        )?;
        writeln!(
            stdout,
            "flushes       {} on demand, {} APU",
            c.stats.on_demand_flushes, c.stats.apu_flushes
        )?;
    }
    let f = &r.flash;
    writeln!(
        stdout,
        "flash         {} page reads, {} programs ({} direct, {} on demand, {} APU)",
        f.page_reads,
        f.direct_programs + f.on_demand_programs + f.apu_programs,
        f.direct_programs,
        f.on_demand_programs,
        f.apu_programs
    )?;
    if let Some(c) = &f.ftl {
        writeln!(
            stdout,
            "FTL           {} GC copies, {} erases, {} GC runs",
            c.programs_gc, c.erases, c.gc_invocations
        )?;
    }
    let t = &r.timing;
    writeln!(
        stdout,
        "time          span {}, utilization {:.3}, {:.1} req/s, mean in device {:.3} (max {})",
        ms(t.span_ns as f64),
        t.utilization,
        t.throughput_rps,
        t.mean_in_system,
        t.max_in_system
    )?;
    writeln!(
        stdout,
        "idle          {} in {} periods ({} >= threshold, longest {}); APU busy {}",
        ms(t.idle_ns as f64),
        t.idle_periods,
        t.idle_periods_over_threshold,
        ms(t.longest_idle_ns as f64),
        ms(t.apu_busy_ns as f64)
    )?;
    Ok(())
}
