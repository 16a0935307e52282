//! Computing one cell from its spec: the trace through the policy, the after-cache
//! operations into the device's FTL ([`CellSink`]), the result as a [`CellResult`].
//!
//! `compute` reads everything that decides the result from the cell's [`RunSpec`]
//! (the policy from its label, the cache size from its text and the footprint, the
//! device from its description and aging, the engine options), and only the trace from
//! elsewhere ([`TraceSource`]): so a cell is computed the same way wherever it runs,
//! by the local runner or on a Dask worker that never saw the experiment file.
//!
//! [`run_task`] computes one cell from its task alone, and [`run_cell`] one cell of a
//! plan (what the runner computes for it, a check of purity). A run is matched to the
//! plan by its parameters (trace checksum, device description and wafer version
//! included); a run of another plan, trace file or wafer version is refused rather
//! than computed with the wrong inputs.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use wafer_cache::after::{FileSink, IoKind};
use wafer_cache::{
    run_policy, simulate_together, AfterError, AfterSink, Footprint, Input, Metrics, PolicySpec,
    PreparedTrace, SimConfig, StorageOp, Together,
};
use wafer_ftl::{AnyFtl, Device, Ftl, FtlError};
use wafer_trace::units::CacheSize;
use wafer_trace::{Op, Request};

use crate::error::LabError;
use crate::experiment::Plan;
use crate::prepared::{prepare_trace, say_skipped, stream_error};
use crate::result::{CellResult, Decimator, FtlSummary};
use crate::spec::{Measure, RunSpec, VERSION};
use crate::task::{CellTask, TraceSource};
use crate::timed::TimedDevice;

/// Points kept of each write pattern (Fig. 10 scatter).
pub(crate) const PATTERN_POINTS: usize = 3000;

/// Compute one run of `plan` on its own ([`run_task`] of its task).
pub fn run_cell(plan: &Plan, cell: &RunSpec) -> Result<CellResult, LabError> {
    let pos = plan.position(cell).ok_or_else(|| LabError::Cell {
        cell: cell.label(),
        msg: format!(
            "cell {} is not in this experiment (different parameters, trace file or wafer version {})",
            cell.id(),
            VERSION
        ),
    })?;
    run_task(&plan.task(cell.clone(), pos))
}

/// Compute one cell from its task alone: its trace is prepared, or with
/// `stream = true` counted and streamed.
pub fn run_task(task: &CellTask) -> Result<CellResult, LabError> {
    let (spec, trace) = (&task.spec, &task.trace);
    let work = AtomicU64::new(0);
    let devices = AgedDevices::new();
    if trace.stream {
        let mut reader = trace.open()?;
        let f = Footprint::count(spec.granularity(), reader.as_mut(), &mut |_| {})
            .map_err(|e| stream_error(&trace.source(), e))?;
        return compute(
            spec,
            trace,
            CellInput::Stream(Some(f.pages)),
            &devices,
            None,
            &work,
        );
    }
    // A prepared trace depends on the file, the format it is read as and the
    // granularity.
    let prepared = prepare_trace(trace, &spec.trace_checksum, spec.granularity())?;
    compute(
        spec,
        trace,
        CellInput::Prepared(&prepared),
        &devices,
        None,
        &work,
    )
}

/// A device as the cells get it: built from a spec's description, aged as the spec
/// says, with its page read time.
type Aged = Result<(AnyFtl, u64), String>;

/// The devices of a run, each built and aged once and copied into every cell that
/// runs on it: aging is deterministic (seeded), and on a 16 GiB card with few log
/// blocks it costs seconds that every cell would otherwise repeat. A device is known
/// by what the cells' specs say of it (its description and its aging, seed included),
/// so cells of any origin share it.
pub(crate) struct AgedDevices(Mutex<HashMap<String, Arc<OnceLock<Aged>>>>);

impl AgedDevices {
    /// None built yet.
    pub(crate) fn new() -> AgedDevices {
        AgedDevices(Mutex::new(HashMap::new()))
    }

    /// A fresh copy of the device of `spec`, aged as it says, with its page read
    /// time (None for a cache-only cell).
    fn copy(&self, spec: &RunSpec) -> Result<Option<(AnyFtl, u64)>, String> {
        if spec.device_spec.is_empty() {
            return Ok(None);
        }
        let key = serde_json::to_string(&(&spec.device_spec, &spec.aging))
            .expect("device descriptions and agings serialise");
        // The map is held only to find the slot; a device is built outside it, and a
        // cell that needs one being built waits for it.
        let slot = Arc::clone(
            self.0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .entry(key)
                .or_default(),
        );
        let aged = slot.get_or_init(|| {
            let d: Device = serde_json::from_str(&spec.device_spec)
                .map_err(|e| format!("device description: {e}"))?;
            let mut f = d.build_ftl().map_err(|e| e.to_string())?;
            if let Some(a) = &spec.aging {
                wafer_ftl::aging::age(&mut f, a).map_err(|e| format!("aging: {e}"))?;
            }
            Ok((f, d.latency.read_ns))
        });
        aged.clone().map(Some)
    }
}

/// Where a cell's accesses come from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CellInput<'a> {
    /// The trace prepared once and shared.
    Prepared(&'a PreparedTrace),
    /// The trace file (or generator) read by the cell itself; the trace's distinct
    /// pages when counted (needed for cache sizes given as a share of the footprint).
    Stream(Option<u32>),
}

/// Compute the cell `spec`: stream its trace (from `input`, or read from `trace`)
/// through the policy, the after-cache operations into the device's FTL (and into the
/// file `after` when given); `work` counts the accesses done.
pub(crate) fn compute(
    spec: &RunSpec,
    trace: &TraceSource,
    input: CellInput<'_>,
    devices: &AgedDevices,
    after: Option<&Path>,
    work: &AtomicU64,
) -> Result<CellResult, LabError> {
    let t0 = Instant::now();
    let footprint = match input {
        CellInput::Prepared(t) => t.universe(),
        CellInput::Stream(pages) => pages.unwrap_or(0),
    };
    let mut cell = Ready::new(spec, footprint, devices, after)?;
    // A stream that was not counted first is read by this cell alone: it says what
    // it skipped (a counting pass says it otherwise).
    let mut reader = None;
    let uncounted = matches!(input, CellInput::Stream(None));
    let input = match input {
        CellInput::Prepared(t) => Input::Prepared(t),
        CellInput::Stream(_) => Input::Stream(reader.insert(trace.open()?).as_mut()),
    };
    let mut done = 0u64;
    let cache = run_policy(&cell.policy, input, &cell.cfg, &mut cell.sink, &mut |n| {
        work.fetch_add(n.saturating_sub(done), Ordering::Relaxed);
        done = n;
    })
    .map_err(|e| cell_error(spec, trace, e))?;
    if let (true, Some(r)) = (uncounted, &reader) {
        say_skipped(&trace.source(), r.skipped());
    }
    cell.finish(spec, cache, t0)
}

/// Compute the cells `specs` of one streamed trace (each with its after-cache file,
/// if kept), counted first (`footprint` pages), in one pass over it ([`wafer_cache::simulate_together`]): one result per
/// cell, in order, each what [`compute`] gives it alone (its `elapsed_s` is the
/// pass's); the outer error is the pass's own (the trace could not be read), which
/// every cell shares.
pub(crate) fn compute_together(
    specs: &[(&RunSpec, Option<&Path>)],
    trace: &TraceSource,
    footprint: u32,
    devices: &AgedDevices,
    work: &AtomicU64,
) -> Result<Vec<Result<CellResult, LabError>>, LabError> {
    let t0 = Instant::now();
    let mut ready: Vec<Result<Ready, LabError>> = specs
        .iter()
        .map(|&(s, after)| Ready::new(s, footprint, devices, after))
        .collect();
    let mut reader = trace.open()?;
    let mut done = 0u64;
    let mut progress = |n: u64| {
        work.fetch_add(n.saturating_sub(done), Ordering::Relaxed);
        done = n;
    };
    let together: Vec<Together<'_, CellSink>> = ready
        .iter_mut()
        .filter_map(|r| r.as_mut().ok())
        .map(|r| Together {
            spec: &r.policy,
            cfg: &r.cfg,
            after: &mut r.sink,
        })
        .collect();
    let mut ran = simulate_together(together, reader.as_mut(), &mut progress)
        .map_err(|e| match e {
            e @ wafer_cache::SimError::StreamOutOfMemory { .. } => stream_error(&trace.source(), e),
            e => LabError::Invalid(format!("{}: {e}", trace.source())),
        })?
        .into_iter();
    Ok(ready
        .into_iter()
        .zip(specs)
        .map(|(r, &(s, _))| {
            let cell = r?;
            let cache = ran
                .next()
                .expect("one result per cell that ran")
                .map_err(|e| cell_error(s, trace, e))?;
            cell.finish(s, cache, t0)
        })
        .collect())
}

/// A cell's engine error, named by the cell (a stream out of memory: by the trace).
fn cell_error(spec: &RunSpec, trace: &TraceSource, e: wafer_cache::SimError) -> LabError {
    match e {
        e @ wafer_cache::SimError::StreamOutOfMemory { .. } => stream_error(&trace.source(), e),
        e => LabError::Cell {
            cell: spec.label(),
            msg: e.to_string(),
        },
    }
}

/// A cell made ready to run: its policy, its cache size, its configuration and its
/// sink (device, file, write pattern).
struct Ready {
    policy: PolicySpec,
    capacity_pages: u32,
    footprint: u64,
    cfg: SimConfig,
    sink: CellSink,
}

impl Ready {
    /// Everything `spec` says, over a trace of `footprint` distinct pages (0: not
    /// counted), its after-cache trace into `after` when given.
    fn new(
        spec: &RunSpec,
        footprint: u32,
        devices: &AgedDevices,
        after: Option<&Path>,
    ) -> Result<Ready, LabError> {
        let fail = |msg: String| LabError::Cell {
            cell: spec.label(),
            msg,
        };
        let policy = PolicySpec::parse(&spec.policy).map_err(|e| fail(e.to_string()))?;
        let size = CacheSize::parse(&spec.cache).map_err(|e| fail(e.to_string()))?;
        let footprint = u64::from(footprint);
        let granularity = spec.granularity();
        let capacity_pages = size
            .pages(granularity.unit(), footprint)
            .map_err(|e| fail(e.to_string()))?;
        let cfg = SimConfig {
            granularity,
            capacity_pages,
            pages_per_block: spec.pages_per_block,
            warmup: spec.warmup,
            write_miss_fetch: spec.write_miss_fetch,
            flush_at_end: spec.flush_at_end,
            cost: spec.cost,
            series_every: spec.series_every,
        };
        let dev = match devices.copy(spec).map_err(fail)? {
            Some((ftl, read_ns)) => {
                let map = spec
                    .address_map
                    .ok_or_else(|| fail("a cell with a device needs an address map".into()))?;
                Some(TimedDevice::new(ftl, read_ns, map).map_err(|e| fail(e.to_string()))?)
            }
            None => None,
        };
        let file = match after {
            Some(p) => Some(FileSink::create(p, cfg.unit())?),
            None => None,
        };
        let mut sink = CellSink::new(dev, cfg.unit(), file);
        if spec.measure == Measure::Steady {
            sink.recording();
        }
        Ok(Ready {
            policy,
            capacity_pages,
            footprint,
            cfg,
            sink,
        })
    }

    /// The cell's result from its cache's metrics: the device's steady state when
    /// asked for, its summary, the write pattern.
    fn finish(self, spec: &RunSpec, cache: Metrics, t0: Instant) -> Result<CellResult, LabError> {
        let fail = |msg: String| LabError::Cell {
            cell: spec.label(),
            msg,
        };
        let (mut dev, remapped, mut before_flush, write_pattern, recorded) = self.sink.into_parts();
        // Steady state: the cell's own stream again, pass after pass, then one measured.
        let mut steady = None;
        if let (Some(d), Some((reqs, flush_at))) = (dev.as_mut(), recorded) {
            let s = steady_passes(d, &reqs, flush_at).map_err(|e| fail(e.to_string()))?;
            before_flush = s.before_flush.clone();
            steady = Some(s);
        }
        let ftl = dev.map(|d| {
            let rw_log_blocks = match d.ftl() {
                AnyFtl::Fast(x) => Some(x.rw_log_blocks() as u64),
                _ => None,
            };
            let start = steady.as_ref().map_or(0, |s| s.start_ns);
            let mut f = FtlSummary::from_metrics(
                &d.ftl().metrics(),
                d.elapsed_ns() - start,
                before_flush.as_ref(),
                remapped,
                rw_log_blocks,
            );
            if let Some(s) = &steady {
                f.passes = s.passes;
                f.settled = Some(s.settled);
            }
            f
        });
        Ok(CellResult {
            id: spec.id(),
            params: spec.clone(),
            capacity_pages: self.capacity_pages,
            // A streamed run that was not counted first learns the footprint itself.
            footprint_pages: if self.footprint == 0 {
                cache.universe
            } else {
                self.footprint
            },
            elapsed_s: t0.elapsed().as_secs_f64(),
            cache,
            ftl,
            write_pattern,
        })
    }
}

/// What preconditioning a device with a cell's own stream left: the passes run, whether
/// they settled, when the measured pass began, and the device at its end flush.
struct Steady {
    passes: u64,
    settled: bool,
    start_ns: u64,
    before_flush: Option<(wafer_ftl::Metrics, u64)>,
}

/// Replay `reqs` (the cell's after-cache stream in device addresses, its end flush
/// from `flush_at`) on `d` pass after pass until the per-pass erases and busy time
/// settle ([`crate::steady`]) or [`crate::steady::MAX_PASSES`] passes have run, the
/// first being the pass the cell just ran; then reset the counters and replay one
/// more pass, the one measured.
fn steady_passes(
    d: &mut TimedDevice,
    reqs: &[Request],
    flush_at: Option<usize>,
) -> Result<Steady, FtlError> {
    use crate::steady::{window_is_steady, MAX_PASSES};
    let mut erases = Vec::new();
    let mut busy = Vec::new();
    loop {
        let c = d.ftl().metrics().counters;
        erases.push(c.erases as f64);
        busy.push(c.busy_ns as f64);
        let settled = window_is_steady(&erases) && window_is_steady(&busy);
        if settled || erases.len() >= MAX_PASSES {
            break;
        }
        d.reset_counters();
        for r in reqs {
            d.precondition(r)?;
        }
    }
    let settled = window_is_steady(&erases) && window_is_steady(&busy);
    d.reset_counters();
    let start_ns = d.elapsed_ns();
    let mut before_flush = None;
    for (i, r) in reqs.iter().enumerate() {
        if Some(i) == flush_at {
            before_flush = Some((d.ftl().metrics(), d.elapsed_ns() - start_ns));
        }
        d.replay(r)?;
    }
    Ok(Steady {
        passes: erases.len() as u64,
        settled,
        start_ns,
        before_flush,
    })
}

/// The after-cache sink of one cell: feeds the device (the FTL in the timed model,
/// through the cell's address map), optionally a file, and samples the write pattern.
pub struct CellSink {
    dev: Option<TimedDevice>,
    unit: u32,
    remapped: u64,
    file: Option<FileSink>,
    pattern: Decimator,
    error: Option<FtlError>,
    before_flush: Option<(wafer_ftl::Metrics, u64)>,
    /// The requests sent to the device, kept to replay them (`measure = "steady"`),
    /// and where the end flush began among them.
    record: Option<(Vec<Request>, Option<usize>)>,
}

impl CellSink {
    /// A sink feeding `dev` (pages of `unit` bytes) and `file`.
    pub fn new(dev: Option<TimedDevice>, unit: u32, file: Option<FileSink>) -> CellSink {
        CellSink {
            dev,
            unit,
            remapped: 0,
            file,
            pattern: Decimator::new(PATTERN_POINTS),
            error: None,
            before_flush: None,
            record: None,
        }
    }

    /// Keep the requests sent to the device, to replay them.
    pub fn recording(&mut self) {
        if let Some(d) = self.dev.as_mut() {
            d.recording();
            self.record = Some((Vec::new(), None));
        }
    }

    /// The device, the operations the address map moved, the device's metrics and
    /// elapsed time when flush-at-end began (None without a flush), the sampled
    /// write pattern, and the requests kept ([`CellSink::recording`], in device
    /// addresses) with where the end flush began among them.
    #[allow(clippy::type_complexity)]
    pub fn into_parts(
        mut self,
    ) -> (
        Option<TimedDevice>,
        u64,
        Option<(wafer_ftl::Metrics, u64)>,
        Vec<(u64, u64)>,
        Option<(Vec<Request>, Option<usize>)>,
    ) {
        if let (Some((reqs, _)), Some(d)) = (self.record.as_mut(), self.dev.as_mut()) {
            *reqs = d.take_recorded();
        }
        (
            self.dev,
            self.remapped,
            self.before_flush,
            self.pattern.points,
            self.record,
        )
    }
}

/// Whether `e` is a compact map out of erase blocks: the run then goes on to its end
/// feeding nothing, so the error can say how many blocks the whole stream needs.
fn counting(e: &Option<FtlError>) -> bool {
    matches!(e, Some(FtlError::TooManyBlocks { .. }))
}

impl CellSink {
    /// The file and the device, where there are any (out of line: the engine
    /// inlines [`CellSink::push`], which is a counter when there are neither).
    #[inline(never)]
    fn feed(&mut self, op: &StorageOp) {
        if let Some(f) = self.file.as_mut() {
            f.push(op);
        }
        if let Some(dev) = self.dev.as_mut() {
            if op.kind == IoKind::Flush && self.before_flush.is_none() {
                self.before_flush = Some((dev.ftl().metrics(), dev.elapsed_ns()));
                if let Some((_, at)) = self.record.as_mut() {
                    *at = Some(dev.recorded_len());
                }
            }
            let req = op.request(self.unit);
            if self.error.is_none() {
                match dev.submit(&req) {
                    Ok(moved) => self.remapped += u64::from(moved),
                    Err(e) => self.error = Some(e),
                }
            }
            if counting(&self.error) {
                let map = dev.mapper();
                if let Some((a, b)) = req.page_range(map.page_size()) {
                    map.note(a, b);
                }
            }
        }
    }
}

impl AfterSink for CellSink {
    #[inline(always)]
    fn push(&mut self, op: &StorageOp) {
        if op.op == Op::Write {
            self.pattern.push((op.access, op.page()));
        }
        if self.takes_reads() {
            self.feed(op);
        }
    }

    /// Reads matter only to a file or a device; without either the sink counts
    /// writes alone.
    #[inline]
    fn takes_reads(&self) -> bool {
        self.file.is_some() || self.dev.is_some()
    }

    /// Only the file and the device read the time; the write pattern does not.
    #[inline]
    fn takes_time(&self) -> bool {
        self.takes_reads()
    }

    fn failed(&self) -> bool {
        (self.error.is_some() && !counting(&self.error))
            || self.file.as_ref().is_some_and(AfterSink::failed)
    }

    fn finish(&mut self) -> Result<(), AfterError> {
        if let Some(f) = self.file.as_mut() {
            f.finish()?;
        }
        match (self.error.take(), &mut self.dev) {
            (None, _) => Ok(()),
            (Some(FtlError::TooManyBlocks { .. }), Some(dev)) => {
                Err(AfterError::Device(Box::new(dev.mapper().too_many_blocks())))
            }
            (Some(e), _) => Err(AfterError::Device(Box::new(e))),
        }
    }
}
