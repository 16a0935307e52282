//! The grid runner (issue 5, item 2).
//!
//! 1. Every trace file is checksummed (xxh3-64 of its bytes); the grid expands to
//!    cells (trace x policy x cache size x device, in that nesting order); cells whose
//!    result is already in the store are reused.
//! 2. Each trace that still has missing cells is decoded and densified once into a
//!    [`PreparedTrace`] shared read-only by its cells.
//! 3. Missing cells run on a rayon pool of `jobs` threads (work stealing). A cell
//!    streams the trace through the cache; the after-cache operations go straight into
//!    the device's FTL through [`CellSink`] (never materialised, unless
//!    `outputs.keep_after` asks for the CSV). Each finished cell is stored at once.
//! 4. Stopping (the `stop` flag, set by Ctrl-C in the CLI): no new cell starts, the
//!    runner returns at once with the finished cells, and cells still running are
//!    discarded (never stored); a rerun computes them.
//!
//! Results do not depend on the number of workers: each cell is a pure function of
//! its parameters, and the returned list is in grid order whatever the completion
//! order.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use wafer_cache::after::FileSink;
use wafer_cache::{run_policy, AfterSink, Input, PreparedTrace, SimConfig, StorageOp};
use wafer_ftl::replay::{apply, ReplayOptions, ReplayStats};
use wafer_ftl::{AnyFtl, Ftl, FtlError};
use wafer_trace::{Op, ReadOptions};

use crate::cell::{CellParams, CellResult, Decimator, FtlSummary, VERSION};
use crate::config::{DeviceChoice, Plan};
use crate::error::LabError;
use crate::store::{write_atomic, Store};

/// Points kept of each write pattern (Fig. 10 scatter).
const PATTERN_POINTS: usize = 3000;

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Output folder.
    pub out: PathBuf,
    /// Worker threads (0 = the experiment's `workers`, then all cores).
    pub jobs: usize,
    /// Set to stop early.
    pub stop: Arc<AtomicBool>,
}

/// Receives progress.
pub trait Observer {
    /// The grid is known: `total` cells, of which `todo` must be computed.
    fn start(&mut self, total: usize, todo: usize);
    /// Something worth a line (reading a trace).
    fn message(&mut self, msg: &str);
    /// A cell was computed and stored.
    fn cell_done(&mut self, r: &CellResult);
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl Observer for Quiet {
    fn start(&mut self, _: usize, _: usize) {}
    fn message(&mut self, _: &str) {}
    fn cell_done(&mut self, _: &CellResult) {}
}

/// Facts about one trace of the experiment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceInfo {
    /// Label.
    pub label: String,
    /// Path.
    pub path: String,
    /// xxh3-64 of the file, hex.
    pub checksum: String,
    /// Requests.
    pub requests: u64,
    /// Page accesses.
    pub accesses: u64,
    /// Distinct pages.
    pub footprint_pages: u64,
    /// A sample of the before-cache writes: `(access index, page)`.
    pub write_pattern: Vec<(u64, u64)>,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Cells in the grid.
    pub total: usize,
    /// Cells found in the store.
    pub reused: usize,
    /// Cells computed by this run.
    pub computed: usize,
    /// Whether the run was stopped before computing every cell.
    pub interrupted: bool,
    /// Results present, in grid order.
    pub results: Vec<CellResult>,
    /// The traces (those whose info is known).
    pub traces: Vec<TraceInfo>,
    /// Wall-clock time of the run, seconds.
    pub elapsed_s: f64,
    /// Worker threads used.
    pub jobs: usize,
}

/// One cell to compute.
#[derive(Clone, Debug)]
struct Cell {
    params: CellParams,
    id: String,
    trace: usize,
    policy: usize,
    size: usize,
    device: usize,
}

/// xxh3-64 of a file's bytes, hex.
pub fn checksum(path: &Path) -> Result<String, LabError> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).map_err(|e| LabError::io(path, e))?;
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(|e| LabError::io(path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(format!("{:016x}", h.digest()))
}

fn expand(plan: &Plan, sums: &[String]) -> Vec<Cell> {
    let e = &plan.exp;
    let mut cells = Vec::new();
    for (ti, (t, _)) in plan.traces.iter().enumerate() {
        for (pi, p) in plan.policies.iter().enumerate() {
            for (si, (s, _)) in plan.sizes.iter().enumerate() {
                for (di, d) in plan.devices.iter().enumerate() {
                    let device_spec = match d {
                        DeviceChoice::None => String::new(),
                        DeviceChoice::Device(_, dev) => {
                            serde_json::to_string(dev).expect("devices serialise")
                        }
                    };
                    let params = CellParams {
                        trace: t.label(),
                        trace_checksum: sums[ti].clone(),
                        policy: p.label(),
                        cache: s.clone(),
                        page_size: plan.granularity.unit() as u32,
                        pages_per_block: plan.pages_per_block,
                        device: d.label().to_string(),
                        device_spec,
                        aging: match d {
                            DeviceChoice::None => None,
                            DeviceChoice::Device(..) => plan.aging.clone(),
                        },
                        warmup: e.warmup,
                        write_miss_fetch: e.write_miss_fetch,
                        flush_at_end: e.flush_at_end,
                        cost: e.cost,
                        series_every: e.outputs.series_every,
                        version: VERSION.to_string(),
                    };
                    cells.push(Cell {
                        id: params.id(),
                        params,
                        trace: ti,
                        policy: pi,
                        size: si,
                        device: di,
                    });
                }
            }
        }
    }
    cells
}

fn trace_info_path(out: &Path, checksum: &str) -> PathBuf {
    out.join("traces").join(format!("{checksum}.json"))
}

fn prepare(
    plan: &Plan,
    ti: usize,
    sum: &str,
    out: &Path,
) -> Result<(PreparedTrace, TraceInfo), LabError> {
    let (t, format) = &plan.traces[ti];
    let opts = ReadOptions {
        format: *format,
        ..ReadOptions::default()
    };
    let mut reader = wafer_trace::open(&t.path, &opts)?;
    let prepared = PreparedTrace::read(plan.granularity, reader.as_mut(), &mut |_| {})
        .map_err(|e| LabError::Invalid(format!("{}: {e}", t.path.display())))?;
    let mut d = Decimator::new(PATTERN_POINTS);
    let keys = prepared.keys();
    let mut access = 0u64;
    for (&p, &op) in prepared.pages().iter().zip(prepared.ops()) {
        match op {
            Op::Write => {
                d.push((access, keys[p as usize] & PAGE_MASK));
                access += 1;
            }
            Op::Read => access += 1,
            Op::Trim => {}
        }
    }
    let info = TraceInfo {
        label: t.label(),
        path: t.path.display().to_string(),
        checksum: sum.to_string(),
        requests: prepared.requests() as u64,
        accesses: prepared.accesses(),
        footprint_pages: u64::from(prepared.universe()),
        write_pattern: d.points,
    };
    let json = serde_json::to_vec(&info).map_err(|e| LabError::Invalid(e.to_string()))?;
    write_atomic(&trace_info_path(out, sum), &json)?;
    Ok((prepared, info))
}

/// Page number bits of a page key (the device sits above bit 44).
const PAGE_MASK: u64 = (1 << wafer_trace::request::DEV_SHIFT) - 1;

/// The after-cache sink of one cell: feeds the FTL, optionally a file, and samples
/// the write pattern.
pub struct CellSink<'a> {
    ftl: Option<&'a mut AnyFtl>,
    unit: u32,
    stats: ReplayStats,
    file: Option<FileSink>,
    pattern: Decimator,
    error: Option<FtlError>,
}

impl<'a> CellSink<'a> {
    /// A sink feeding `ftl` (pages of `unit` bytes) and `file`.
    pub fn new(ftl: Option<&'a mut AnyFtl>, unit: u32, file: Option<FileSink>) -> CellSink<'a> {
        CellSink {
            ftl,
            unit,
            stats: ReplayStats::default(),
            file,
            pattern: Decimator::new(PATTERN_POINTS),
            error: None,
        }
    }
}

impl AfterSink for CellSink<'_> {
    #[inline]
    fn push(&mut self, op: &StorageOp) {
        if op.op == Op::Write {
            self.pattern.push((op.access, op.page()));
        }
        if let Some(f) = self.file.as_mut() {
            f.push(op);
        }
        if let Some(ftl) = self.ftl.as_deref_mut() {
            if self.error.is_none() {
                let req = op.request(self.unit);
                let r = apply(ftl, &req, ReplayOptions { wrap: true }, &mut self.stats);
                self.error = r.err();
            }
        }
    }

    fn finish(&mut self) -> Result<(), wafer_trace::Error> {
        if let Some(f) = self.file.as_mut() {
            f.finish()?;
        }
        match self.error.take() {
            Some(e) => Err(wafer_trace::Error::Invalid(format!("device: {e}"))),
            None => Ok(()),
        }
    }
}

fn run_cell(
    plan: &Plan,
    cell: &Cell,
    t: &PreparedTrace,
    out: &Path,
) -> Result<CellResult, LabError> {
    let t0 = Instant::now();
    let fail = |msg: String| LabError::Cell {
        cell: cell.params.label(),
        msg,
    };
    let footprint = u64::from(t.universe());
    let size = plan.sizes[cell.size].1;
    let pages = size.pages(plan.granularity.unit(), footprint);
    let capacity_pages = u32::try_from(pages.max(1)).unwrap_or(u32::MAX);
    let e = &plan.exp;
    let cfg = SimConfig {
        granularity: plan.granularity,
        capacity_pages,
        pages_per_block: plan.pages_per_block,
        warmup: e.warmup,
        write_miss_fetch: e.write_miss_fetch,
        flush_at_end: e.flush_at_end,
        cost: e.cost,
        series_every: e.outputs.series_every,
    };
    let mut ftl = match &plan.devices[cell.device] {
        DeviceChoice::None => None,
        DeviceChoice::Device(_, d) => {
            let mut f = d.build_ftl().map_err(|e| fail(e.to_string()))?;
            if let Some(a) = &plan.aging {
                wafer_ftl::aging::age(&mut f, a).map_err(|e| fail(format!("aging: {e}")))?;
            }
            Some(f)
        }
    };
    let file = if e.outputs.keep_after {
        let p = out.join("after").join(format!("{}.csv", cell.id));
        std::fs::create_dir_all(out.join("after")).map_err(|e| LabError::io(&p, e))?;
        Some(FileSink::create(&p, cfg.unit())?)
    } else {
        None
    };
    let mut sink = CellSink::new(ftl.as_mut(), cfg.unit(), file);
    let cache = run_policy(
        &plan.policies[cell.policy],
        Input::Prepared(t),
        &cfg,
        &mut sink,
        &mut |_| {},
    )
    .map_err(|e| fail(e.to_string()))?;
    let wrapped = sink.stats.wrapped_requests;
    let write_pattern = std::mem::take(&mut sink.pattern.points);
    drop(sink);
    let ftl = ftl.map(|f| FtlSummary::from_metrics(&f.metrics(), wrapped));
    Ok(CellResult {
        id: cell.id.clone(),
        params: cell.params.clone(),
        capacity_pages,
        footprint_pages: footprint,
        elapsed_s: t0.elapsed().as_secs_f64(),
        cache,
        ftl,
        write_pattern,
    })
}

/// Run `plan`, storing results under `opts.out`.
pub fn run(plan: &Plan, opts: &RunOptions, obs: &mut dyn Observer) -> Result<Outcome, LabError> {
    let t0 = Instant::now();
    let store = Store::new(&opts.out);
    let mut sums = Vec::new();
    for (t, _) in &plan.traces {
        sums.push(checksum(&t.path)?);
    }
    let cells = expand(plan, &sums);
    let mut have: Vec<Option<CellResult>> = cells.iter().map(|c| store.load(&c.id)).collect();
    let todo: Vec<usize> = (0..cells.len()).filter(|&i| have[i].is_none()).collect();
    let reused = cells.len() - todo.len();
    let jobs = match (opts.jobs, plan.exp.workers) {
        (0, 0) => std::thread::available_parallelism().map_or(1, |n| n.get()),
        (0, w) => w,
        (j, _) => j,
    };
    obs.start(cells.len(), todo.len());
    let mut traces: Vec<Option<TraceInfo>> = vec![None; plan.traces.len()];
    let mut prepared: Vec<Option<Arc<PreparedTrace>>> = vec![None; plan.traces.len()];
    for ti in 0..plan.traces.len() {
        if opts.stop.load(Ordering::Relaxed) {
            break;
        }
        if todo.iter().any(|&i| cells[i].trace == ti) {
            obs.message(&format!("reading {}", plan.traces[ti].0.path.display()));
            let (p, info) = prepare(plan, ti, &sums[ti], &opts.out)?;
            prepared[ti] = Some(Arc::new(p));
            traces[ti] = Some(info);
        } else if let Ok(bytes) = std::fs::read(trace_info_path(&opts.out, &sums[ti])) {
            traces[ti] = serde_json::from_slice(&bytes).ok();
        }
    }
    let mut computed = 0;
    let mut interrupted = false;
    if !todo.is_empty() && !opts.stop.load(Ordering::Relaxed) {
        let (tx, rx) = mpsc::channel::<(usize, Result<CellResult, LabError>)>();
        let work: Vec<Cell> = todo.iter().map(|&i| cells[i].clone()).collect();
        let index: Vec<usize> = todo.clone();
        let plan2 = Arc::new(plan.clone());
        let prepared2 = prepared.clone();
        let stop = Arc::clone(&opts.stop);
        let out = opts.out.clone();
        let store2 = store.clone();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map_err(|e| LabError::Invalid(format!("thread pool: {e}")))?;
        let handle = std::thread::spawn(move || {
            use rayon::prelude::*;
            pool.install(|| {
                work.par_iter()
                    .zip(index.par_iter())
                    .for_each(|(cell, &gi)| {
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        let t = prepared2[cell.trace]
                            .as_ref()
                            .expect("traces with missing cells are prepared");
                        let r = run_cell(&plan2, cell, t, &out);
                        if stop.load(Ordering::Relaxed) {
                            return; // discarded: the run was stopped while this cell ran
                        }
                        let r = r.and_then(|r| store2.save(&r).map(|()| r));
                        let _ = tx.send((gi, r));
                    });
            });
        });
        let mut failure = None;
        while computed < todo.len() {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok((gi, Ok(r))) => {
                    obs.cell_done(&r);
                    have[gi] = Some(r);
                    computed += 1;
                }
                Ok((_, Err(e))) => {
                    opts.stop.store(true, Ordering::Relaxed);
                    failure = Some(e);
                    break;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if opts.stop.load(Ordering::Relaxed) {
                        interrupted = true;
                        break;
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        if computed == todo.len() {
            let _ = handle.join();
        }
        if let Some(e) = failure {
            return Err(e);
        }
    } else if !todo.is_empty() {
        interrupted = true;
    }
    let results: Vec<CellResult> = have.into_iter().flatten().collect();
    Ok(Outcome {
        total: cells.len(),
        reused,
        computed,
        interrupted,
        results,
        traces: traces.into_iter().flatten().collect(),
        elapsed_s: t0.elapsed().as_secs_f64(),
        jobs,
    })
}
