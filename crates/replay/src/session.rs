//! One replay from start to finish: scan the trace, apply the safety rules, prepare the
//! target, play (built-in pool or fio), sync, read back, report.

use crate::error::{Error, Result};
use crate::plan::{self, Layout, Mapper};
use crate::player::{self, PlayConfig, Timing};
use crate::report::{OpReport, PatternReport, RangeReport, Report, TargetReport, VerifyReport};
use crate::target::{self, TargetKind};
use crate::{fio, mounts, pattern, safety, verify};
use std::path::Path;
use std::time::Instant;
use wafer_trace::ReadOptions;

/// How the I/Os are issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The built-in thread pool ([`crate::player`]).
    Threads,
    /// fio, from an iolog v2 file ([`crate::fio`]).
    Fio,
}

/// Everything a replay can be asked to do.
#[derive(Clone, Debug)]
pub struct Options {
    /// Page size: requests are replayed as the whole pages they touch.
    pub page_size: u32,
    /// I/Os in flight at most.
    pub queue_depth: u32,
    /// When to issue requests.
    pub timing: Timing,
    /// Allow writing to a block device.
    pub destructive: bool,
    /// Map addresses beyond the target modulo its size.
    pub wrap: bool,
    /// Allow a file target beyond [`crate::safety::LARGE_FILE_BYTES`] or half the free
    /// space of its filesystem (never beyond the free space itself).
    pub allow_large: bool,
    /// Size of a file target to create (or grow an existing file to); default: the
    /// trace's span.
    pub size: Option<u64>,
    /// Pattern seed.
    pub seed: u64,
    /// Read back every written page afterwards.
    pub verify: bool,
    /// Who issues the I/Os.
    pub engine: Engine,
    /// Longest wait before one request that `Timing::Trace` may make, seconds (after
    /// the speed factor); a trace asking for more is refused before the first I/O.
    pub max_gap_s: f64,
}

/// Default of [`Options::max_gap_s`]: an hour. A longer pause in a trace is more likely
/// a corrupt timestamp than a workload, and the replay would sleep through it.
pub const DEFAULT_MAX_GAP_S: f64 = 3600.0;

/// Slowest and fastest speed factors of `Timing::Trace`: beyond them a trace's
/// schedule is stretched past any useful run (`1e-300` slept for ever) or squeezed to
/// as-fast-as-possible.
pub const SPEED_RANGE: (f64, f64) = (1e-6, 1e6);

impl Default for Options {
    fn default() -> Self {
        Options {
            page_size: 4096,
            queue_depth: 1,
            timing: Timing::AsFast,
            destructive: false,
            wrap: false,
            allow_large: false,
            size: None,
            seed: 1,
            verify: false,
            engine: Engine::Threads,
            max_gap_s: DEFAULT_MAX_GAP_S,
        }
    }
}

/// The phases a progress display can show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// First pass over the trace (unit: requests; total unknown).
    Scan,
    /// Preallocating a file target (unit: bytes).
    Prefill,
    /// The replay (unit: requests).
    Replay,
    /// The read-back (unit: pages).
    Verify,
}

/// Progress callback: `(stage, done, total)`; `total` is 0 when unknown.
pub type Progress<'a> = &'a mut dyn FnMut(Stage, u64, u64);

fn validate(o: &Options) -> Result<()> {
    let bad = |m: String| Err(Error::Invalid(m));
    if o.page_size < 512 || o.page_size % 512 != 0 {
        return bad(format!(
            "page size {} must be a multiple of 512 bytes (O_DIRECT alignment)",
            o.page_size
        ));
    }
    if o.queue_depth == 0 || o.queue_depth > 1024 {
        return bad(format!(
            "queue depth {} must be between 1 and 1024",
            o.queue_depth
        ));
    }
    if let Timing::Trace { speed } = o.timing {
        let (lo, hi) = SPEED_RANGE;
        if !(lo..=hi).contains(&speed) {
            return bad(format!(
                "speed factor {speed} must be a number from {lo:e} to {hi:e}"
            ));
        }
    }
    if !(o.max_gap_s.is_finite() && o.max_gap_s > 0.0) {
        return bad(format!(
            "longest wait {} s must be a positive number of seconds",
            o.max_gap_s
        ));
    }
    if o.engine == Engine::Fio {
        if o.verify {
            return bad(
                "--verify needs the built-in engine: fio writes its own data, not \
                        the announced pattern"
                    .into(),
            );
        }
        if o.timing != Timing::AsFast {
            return bad(
                "--timing trace needs the built-in engine: an fio iolog v2 carries \
                        no timestamps"
                    .into(),
            );
        }
    }
    Ok(())
}

/// Replay `trace` on `target`.
pub fn replay(
    trace: &Path,
    read: &ReadOptions,
    target_path: &Path,
    o: &Options,
    progress: Progress,
) -> Result<Report> {
    validate(o)?;
    let ps = u64::from(o.page_size);
    let mut reader = wafer_trace::open(trace, read)?;
    let scan = plan::scan(reader.as_mut(), o.page_size, &mut |n| {
        progress(Stage::Scan, n, 0)
    })?;
    drop(reader);
    if matches!(o.timing, Timing::Trace { .. }) && !scan.has_time {
        return Err(Error::Invalid(format!(
            "{}: the trace has no timestamps; use --timing as-fast",
            trace.display()
        )));
    }
    if let Timing::Trace { speed } = o.timing {
        let wait_s = scan.max_gap_ns as f64 / 1e9 / speed;
        if wait_s > o.max_gap_s {
            return Err(Error::Invalid(format!(
                "{}: request {} comes {:.3} s after the requests before it in the trace's \
                 time, a wait of {wait_s:.3} s at --speed {speed}; waits above {} s are \
                 refused (a corrupt timestamp?): allow it with --max-gap {}, or raise --speed",
                trace.display(),
                scan.max_gap_request,
                scan.max_gap_ns as f64 / 1e9,
                o.max_gap_s,
                wait_s.ceil()
            )));
        }
    }
    let layout = Layout::new(&scan, o.page_size)?;
    // At most plan::MAX_END: every request's pages and the layout were checked.
    let span = layout.span_bytes();

    // Safety rules 1 and 2 come before the target is opened at all.
    let kind = target::kind_of(target_path).unwrap_or(TargetKind::File);
    safety::check_destructive(target_path, kind, scan.writes, o.destructive)?;
    if kind == TargetKind::BlockDevice && scan.writes > 0 {
        let users = mounts::live_users(target_path).map_err(|e| Error::io(target_path, e))?;
        safety::check_unused(target_path, users)?;
    }
    let info = target::inspect(target_path)?;
    // Sizes are whole pages; a --size whose pages end beyond any file offset is refused
    // here rather than overflowing.
    let round_up = |b: u64| {
        b.div_ceil(ps)
            .checked_mul(ps)
            .filter(|&r| r <= plan::MAX_END)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "--size {b}: rounded up to whole pages of {ps} B it is larger than \
                     {} bytes, the largest file size",
                    plan::MAX_END
                ))
            })
    };
    let mut warnings = Vec::new();
    let (size, created, prealloc) = match info.kind {
        TargetKind::BlockDevice => {
            if o.size.is_some() {
                warnings.push("--size applies to file targets only; ignored".to_string());
            }
            (info.size, false, None)
        }
        TargetKind::File => {
            let want = round_up(o.size.unwrap_or(if info.exists { 0 } else { span }))?;
            let size = info.size.max(want);
            // Rule 2 for files: an image in use (loop device, mount, swap) is not
            // written, grown included.
            if info.exists && (scan.writes > 0 || size > info.size) {
                let users =
                    mounts::live_file_users(target_path).map_err(|e| Error::io(target_path, e))?;
                safety::check_unused(target_path, users)?;
            }
            safety::check_size(target_path, size, span, o.page_size, o.wrap)?;
            if size > info.size {
                let free = target::available_bytes(target_path)?;
                safety::check_space(target_path, info.size, size, free, o.allow_large)?;
                let old = target::create_or_grow(target_path, size)?;
                (size, !info.exists, Some((round_up(old)?.min(size), size)))
            } else {
                (size, false, None)
            }
        }
    };
    safety::check_size(target_path, size, span, o.page_size, o.wrap)?;
    let needs_write = scan.writes > 0 || prealloc.is_some();
    let probe = if size >= ps { o.page_size as usize } else { 0 };
    let t = target::open(target_path, needs_write, probe)?;
    warnings.extend(t.warning.clone());
    if let Some((from, to)) = prealloc {
        target::prefill(&t, from, to, &mut |n| {
            progress(Stage::Prefill, n, to - from)
        })?;
    }
    if scan.trims > 0 {
        warnings.push(format!(
            "{} trim requests were not replayed (discard needs an ioctl the player does not issue)",
            scan.trims
        ));
    }
    let mapper = Mapper::new(layout, size, o.wrap)?;
    let target_report = TargetReport {
        path: target_path.to_path_buf(),
        kind: info.kind,
        bytes: size,
        created,
        preallocated: prealloc,
        preallocation: "set_len, then one sequential pass of zero pages, then fsync",
        direct_io: t.direct,
    };
    let range = |wrapped_requests| RangeReport {
        start: 0,
        end: mapper.range_bytes(),
        page_size: o.page_size,
        wrap: o.wrap,
        wrapped_requests,
        span_bytes: span,
        layout: mapper.layout().devs.clone(),
    };

    if o.engine == Engine::Fio {
        let mut reader = wafer_trace::open(trace, read)?;
        let f = fio::run(&t, reader.as_mut(), &mapper, o.queue_depth, &mut |n| {
            progress(Stage::Replay, n, scan.requests)
        })?;
        let accounted = f.read.ios + f.write.ios;
        if accounted < f.issued {
            warnings.push(format!(
                "fio issued {} I/Os but accounted {accounted} in its totals and latencies \
                 (its async engines leave the last in-flight I/Os of an iolog out)",
                f.issued
            ));
        }
        return Ok(Report {
            engine: "fio".into(),
            trace: trace.to_path_buf(),
            target: target_report,
            range: range(f.wrapped_requests),
            pattern: None,
            queue_depth: o.queue_depth,
            timing: o.timing,
            requests: f.requests,
            elapsed_s: f.elapsed_s,
            sync_s: 0.0,
            total: OpReport {
                ios: f.read.ios + f.write.ios,
                bytes: f.read.bytes + f.write.bytes,
                mb_per_s: f.read.mb_per_s + f.write.mb_per_s,
                iops: f.read.iops + f.write.iops,
                latency: Default::default(),
            },
            read: f.read,
            write: f.write,
            max_lag_ms: None,
            verify: None,
            warnings,
            scan,
        });
    }

    let mut reader = wafer_trace::open(trace, read)?;
    let cfg = PlayConfig {
        page_size: o.page_size,
        queue_depth: o.queue_depth,
        timing: o.timing,
        seed: o.seed,
        path: target_path,
        track_writes: o.verify,
    };
    let stats = player::play(&t.file, reader.as_mut(), &mapper, &cfg, &mut |n| {
        progress(Stage::Replay, n, scan.requests)
    })?;
    let t_sync = Instant::now();
    if scan.writes > 0 {
        t.file.sync_data().map_err(|e| Error::io(target_path, e))?;
    }
    let sync_s = t_sync.elapsed().as_secs_f64();
    let elapsed_s = stats.elapsed.as_secs_f64() + sync_s;
    let verify = if o.verify {
        let t0 = Instant::now();
        let total = stats.last_write.len() as u64;
        let pages = verify::verify(
            &t.file,
            target_path,
            &stats.last_write,
            o.page_size,
            o.seed,
            mapper.max_io_bytes() as usize,
            &mut |n| progress(Stage::Verify, n, total),
        )?;
        Some(VerifyReport {
            pages,
            seconds: t0.elapsed().as_secs_f64(),
        })
    } else {
        None
    };
    let mut all = stats.read_lat.clone();
    all.merge(&stats.write_lat);
    Ok(Report {
        engine: "threads".into(),
        trace: trace.to_path_buf(),
        target: target_report,
        range: range(stats.wrapped_requests),
        pattern: Some(PatternReport {
            name: pattern::NAME,
            seed: o.seed,
            page_size: o.page_size,
            description: pattern::DESCRIPTION,
        }),
        queue_depth: o.queue_depth,
        timing: o.timing,
        requests: stats.requests,
        elapsed_s,
        sync_s,
        read: OpReport::new(&stats.read_lat, stats.read_bytes, elapsed_s),
        write: OpReport::new(&stats.write_lat, stats.write_bytes, elapsed_s),
        total: OpReport::new(&all, stats.read_bytes + stats.write_bytes, elapsed_s),
        max_lag_ms: matches!(o.timing, Timing::Trace { .. }).then(|| stats.max_lag_ns as f64 / 1e6),
        verify,
        warnings,
        scan,
    })
}
