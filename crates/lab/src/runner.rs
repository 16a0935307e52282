//! The grid runner (issue 5, item 2).
//!
//! 1. The plan holds every trace file's checksum (xxh3-64 of its bytes); the grid
//!    ([`Plan::grid`]) is trace x policy x cache size x device, in that nesting order;
//!    cells whose result is already in the store are reused, and temporaries that a
//!    killed run left in the store are removed.
//! 2. Each trace that still has missing cells is decoded and densified once into a
//!    [`PreparedTrace`] shared read-only by its cells (also a trace whose facts for
//!    the report are not stored yet, e.g. when its cells ran on other machines
//!    through [`crate::cells`]). With `stream = true` a trace is never held in
//!    memory: one pass gathers its facts (footprint included, stored, so a rerun
//!    skips it) and every cell then reads the trace itself.
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
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use wafer_cache::after::FileSink;
use wafer_cache::{AfterSink, PreparedTrace, StorageOp};
use wafer_ftl::replay::{apply, ReplayOptions, ReplayStats};
use wafer_ftl::{AnyFtl, FtlError};
use wafer_trace::{Densifier, Op};

use crate::cell::{CellParams, CellResult, Decimator};
use crate::cells::{compute, prepare_trace, CellInput, GridPos};
use crate::config::Plan;
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
    /// Path, or `gen: <spec>` for a generated trace.
    pub path: String,
    /// xxh3-64 of the file (or of the generator spec and version), hex.
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

/// How the cells of one trace get their accesses.
#[derive(Clone, Debug)]
enum TraceInput {
    /// Prepared once, shared by the cells.
    Prepared(Arc<PreparedTrace>),
    /// Read by each cell; the trace's distinct pages.
    Stream(u32),
}

/// One cell to compute.
#[derive(Clone, Debug)]
struct Cell {
    params: CellParams,
    id: String,
    pos: GridPos,
}

fn trace_info_path(out: &Path, checksum: &str) -> PathBuf {
    out.join("traces").join(format!("{checksum}.json"))
}

/// Facts about trace `ti` (and its before-cache write pattern) from its prepared
/// form, stored under `<out>/traces/<checksum>.json` for later runs that need not
/// decode it.
fn describe(
    plan: &Plan,
    ti: usize,
    prepared: &PreparedTrace,
    out: &Path,
) -> Result<TraceInfo, LabError> {
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
    let info = trace_info(
        plan,
        ti,
        prepared.requests() as u64,
        prepared.accesses(),
        u64::from(prepared.universe()),
        d.points,
    );
    store_info(&info, out)?;
    Ok(info)
}

/// The same facts as [`describe`] from one pass over the trace, holding only its
/// distinct pages (for `stream = true`).
fn describe_streamed(plan: &Plan, ti: usize, out: &Path) -> Result<TraceInfo, LabError> {
    let (t, format) = &plan.traces[ti];
    let mut reader = t.open(*format)?;
    let mut dens = Densifier::new();
    let mut d = Decimator::new(PATTERN_POINTS);
    let (mut requests, mut access) = (0u64, 0u64);
    let mut batch = Vec::with_capacity(wafer_trace::format::BATCH);
    while reader.read_batch(&mut batch)? {
        requests += batch.len() as u64;
        for r in &batch {
            plan.granularity.for_each_key(r, |key| {
                dens.id(key);
                match r.op {
                    Op::Write => {
                        d.push((access, key & PAGE_MASK));
                        access += 1;
                    }
                    Op::Read => access += 1,
                    Op::Trim => {}
                }
            });
        }
    }
    let info = trace_info(plan, ti, requests, access, dens.len() as u64, d.points);
    store_info(&info, out)?;
    Ok(info)
}

fn trace_info(
    plan: &Plan,
    ti: usize,
    requests: u64,
    accesses: u64,
    footprint_pages: u64,
    write_pattern: Vec<(u64, u64)>,
) -> TraceInfo {
    let (t, _) = &plan.traces[ti];
    TraceInfo {
        label: t.label(),
        path: t.source(),
        checksum: plan.checksums[ti].to_string(),
        requests,
        accesses,
        footprint_pages,
        write_pattern,
    }
}

fn store_info(info: &TraceInfo, out: &Path) -> Result<(), LabError> {
    let json = serde_json::to_vec(info).map_err(|e| LabError::Invalid(e.to_string()))?;
    write_atomic(&trace_info_path(out, &info.checksum), &json)
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

    /// Operations wrapped onto the device, and the sampled write pattern.
    pub fn into_parts(self) -> (u64, Vec<(u64, u64)>) {
        (self.stats.wrapped_requests, self.pattern.points)
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

/// Run `plan`, storing results under `opts.out`.
pub fn run(plan: &Plan, opts: &RunOptions, obs: &mut dyn Observer) -> Result<Outcome, LabError> {
    let t0 = Instant::now();
    let store = Store::new(&opts.out);
    store.remove_stale_temporaries();
    let cells: Vec<Cell> = plan
        .grid()
        .into_iter()
        .map(|(params, pos)| Cell {
            id: params.id(),
            params,
            pos,
        })
        .collect();
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
    let mut inputs: Vec<Option<TraceInput>> = vec![None; plan.traces.len()];
    for ti in 0..plan.traces.len() {
        if opts.stop.load(Ordering::Relaxed) {
            break;
        }
        let stored = std::fs::read(trace_info_path(&opts.out, &plan.checksums[ti]))
            .ok()
            .and_then(|b| serde_json::from_slice::<TraceInfo>(&b).ok());
        let needed = todo.iter().any(|&i| cells[i].pos.trace == ti);
        if plan.exp.stream {
            let info = match stored {
                Some(info) => info,
                None => {
                    obs.message(&format!("counting {}", plan.traces[ti].0.source()));
                    describe_streamed(plan, ti, &opts.out)?
                }
            };
            let pages = u32::try_from(info.footprint_pages).map_err(|_| {
                LabError::Invalid(format!(
                    "{}: more than 2^32 distinct pages",
                    plan.traces[ti].0.source()
                ))
            })?;
            if needed {
                inputs[ti] = Some(TraceInput::Stream(pages));
            }
            traces[ti] = Some(info);
        } else if needed || stored.is_none() {
            obs.message(&format!("reading {}", plan.traces[ti].0.source()));
            let p = prepare_trace(plan, ti)?;
            traces[ti] = Some(match stored {
                Some(info) => info,
                None => describe(plan, ti, &p, &opts.out)?,
            });
            if needed {
                inputs[ti] = Some(TraceInput::Prepared(Arc::new(p)));
            }
        } else {
            traces[ti] = stored;
        }
    }
    let mut computed = 0;
    let mut interrupted = false;
    if !todo.is_empty() && !opts.stop.load(Ordering::Relaxed) {
        let (tx, rx) = mpsc::channel::<(usize, Result<CellResult, LabError>)>();
        let work: Vec<(usize, Cell)> = todo.iter().map(|&i| (i, cells[i].clone())).collect();
        let plan2 = Arc::new(plan.clone());
        let inputs2 = inputs.clone();
        let stop = Arc::clone(&opts.stop);
        let after = opts.out.join("after");
        let store2 = store.clone();
        // Closed once the run stops: a worker stores and reports a cell only while it
        // holds this lock and it is open, so after closing it the main thread has seen
        // every cell that reached the store (the count it reports is exact).
        let gate = Arc::new(Mutex::new(false));
        let gate2 = Arc::clone(&gate);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map_err(|e| LabError::Invalid(format!("thread pool: {e}")))?;
        let handle = std::thread::spawn(move || {
            use rayon::prelude::*;
            pool.install(|| {
                work.par_iter().for_each(|(gi, cell)| {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let input = match inputs2[cell.pos.trace]
                        .as_ref()
                        .expect("traces with missing cells have an input")
                    {
                        TraceInput::Prepared(t) => CellInput::Prepared(t),
                        TraceInput::Stream(pages) => CellInput::Stream(*pages),
                    };
                    let r = compute(&plan2, &cell.params, cell.pos, input, Some(&after));
                    let closed = gate2.lock().unwrap_or_else(|e| e.into_inner());
                    if *closed || stop.load(Ordering::Relaxed) {
                        return; // discarded: the run was stopped while this cell ran
                    }
                    let r = r.and_then(|r| store2.save_and_reload(&r));
                    let _ = tx.send((*gi, r));
                    drop(closed);
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
                        break;
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        if computed == todo.len() {
            let _ = handle.join();
        }
        if computed < todo.len() {
            *gate.lock().unwrap_or_else(|e| e.into_inner()) = true;
            while let Ok((gi, r)) = rx.try_recv() {
                if let Ok(r) = r {
                    obs.cell_done(&r);
                    have[gi] = Some(r);
                    computed += 1;
                }
            }
        }
        if let Some(e) = failure {
            return Err(e);
        }
        // However the loop ended (a tick that saw the stop flag, or every worker
        // returning early once it was set, which closes the channel before any tick),
        // a cell left undone means the run was interrupted.
        interrupted = computed < todo.len();
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
