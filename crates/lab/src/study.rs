//! The one study runner: every grid wafer computes (`wafer sim`, `wafer run`, each
//! `wafer reproduce` preset, `wafer demo`, the Python API and the Dask backend) is a
//! [`Study`] run by [`run`].
//!
//! 1. The study lists its cells ([`Study::cells`]); a cell's id is the xxh3-64 hash
//!    of its canonical JSON ([`cell_id`]), so a rerun finds the cells it already has
//!    and a changed parameter computes afresh. Stored results are reused (when the
//!    study confirms they belong to the cell) and temporaries a killed run left are
//!    removed.
//! 2. Each group of cells that still has missing cells gets its shared input once
//!    ([`Study::prepare`]: a trace decoded and densified), shared read-only.
//! 3. Missing cells run on a rayon pool of `jobs` threads (work stealing); each
//!    finished cell is stored at once, atomically ([`Store`]).
//! 4. Stopping (the `stop` flag, set by Ctrl-C): no new cell starts, the runner
//!    returns with the finished cells, and cells still running are discarded (never
//!    stored); a rerun computes them.
//!
//! Results do not depend on the number of workers: each cell is a pure function of
//! its parameters, and results come back in cell order whatever the completion order.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::LabError;
use crate::store::Store;

/// A set of independent cells, each a pure function of its parameters.
pub trait Study: Sync {
    /// One cell's parameters (its JSON is its identity).
    type Cell: Clone + PartialEq + Serialize + DeserializeOwned + Send + Sync + 'static;
    /// What a cell yields (stored as JSON).
    type Output: Clone + Serialize + DeserializeOwned + Send + 'static;
    /// The input the cells of one group share (a prepared trace), built once.
    type Shared: Send + Sync + 'static;

    /// Every cell, in the order results are reported.
    fn cells(&self) -> Vec<Self::Cell>;
    /// A short label for progress lines and errors.
    fn label(&self, cell: &Self::Cell) -> String;
    /// The group whose shared input `cell` reads.
    fn group(&self, _cell: &Self::Cell) -> usize {
        0
    }
    /// The shared input of `group`, built once per group that has missing cells.
    fn prepare(&self, group: usize, obs: &mut dyn Observer) -> Result<Self::Shared, LabError>;
    /// Compute one cell; `work` counts units done (page accesses) for progress.
    fn compute(
        &self,
        cell: &Self::Cell,
        shared: &Self::Shared,
        work: &AtomicU64,
    ) -> Result<Self::Output, LabError>;
    /// Whether a stored output is the result of `cell` (a foreign or stale file is not).
    fn is_result_of(&self, output: &Self::Output, cell: &Self::Cell) -> bool;
}

/// The id of a cell: xxh3-64 (16 hex digits) of its canonical JSON.
pub fn cell_id<C: Serialize>(cell: &C) -> String {
    let json = serde_json::to_vec(cell).expect("cell parameters serialise");
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&json))
}

/// How to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Output folder: finished cells are stored under `<out>/cells/`. `None` keeps
    /// results in memory only (`wafer sim`, the Python `simulate`).
    pub out: Option<PathBuf>,
    /// Worker threads (0 = all cores; more than the cores run as many as the cores).
    pub jobs: usize,
    /// Set to stop early.
    pub stop: Arc<AtomicBool>,
}

impl RunOptions {
    /// Store under `out`, `jobs` workers, never stopped.
    pub fn stored(out: &Path, jobs: usize) -> RunOptions {
        RunOptions {
            out: Some(out.to_path_buf()),
            jobs,
            stop: Arc::default(),
        }
    }

    /// The worker count `jobs` resolves to (0 = all cores; at most one per core,
    /// [`crate::bounds::workers`]).
    pub fn workers(&self) -> usize {
        crate::bounds::workers(self.jobs).0
    }
}

/// Receives progress (on the thread that called [`run`]).
pub trait Observer {
    /// The study is known: `total` cells, of which `todo` must be computed.
    fn start(&mut self, total: usize, todo: usize);
    /// Something worth a line (reading a trace).
    fn message(&mut self, msg: &str);
    /// Units of work done so far by this run (page accesses), about every 50 ms.
    fn work(&mut self, _done: u64) {}
    /// A cell was computed (and stored); `label` names it.
    fn cell_done(&mut self, label: &str);
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl Observer for Quiet {
    fn start(&mut self, _: usize, _: usize) {}
    fn message(&mut self, _: &str) {}
    fn cell_done(&mut self, _: &str) {}
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome<T> {
    /// Cells in the study.
    pub total: usize,
    /// Cells found in the store.
    pub reused: usize,
    /// Cells computed by this run.
    pub computed: usize,
    /// Whether the run was stopped before computing every cell.
    pub interrupted: bool,
    /// Results present, in cell order.
    pub results: Vec<T>,
    /// Wall-clock time of the run, seconds.
    pub elapsed_s: f64,
    /// Worker threads used.
    pub jobs: usize,
}

/// Run `study`: reuse stored cells, compute the missing ones on `opts.jobs` threads,
/// store each the moment it finishes. On a stop or a failed cell it returns at once;
/// cells still running finish in the background and are discarded.
pub fn run<S: Study + Send + 'static>(
    study: &Arc<S>,
    opts: &RunOptions,
    obs: &mut dyn Observer,
) -> Result<Outcome<S::Output>, LabError> {
    let t0 = Instant::now();
    let store = opts.out.as_deref().map(Store::new);
    if let Some(s) = &store {
        s.remove_stale_temporaries();
    }
    let cells = study.cells();
    let ids: Vec<String> = cells.iter().map(cell_id).collect();
    let mut have: Vec<Option<S::Output>> = cells
        .iter()
        .zip(&ids)
        .map(|(c, id)| {
            store
                .as_ref()
                .and_then(|s| s.load::<S::Output>(id))
                .filter(|o| study.is_result_of(o, c))
        })
        .collect();
    let todo: Vec<usize> = (0..cells.len()).filter(|&i| have[i].is_none()).collect();
    let reused = cells.len() - todo.len();
    let (jobs, capped) = crate::bounds::workers(opts.jobs);
    if let Some(note) = capped {
        eprintln!("wafer: note: {note}");
    }
    obs.start(cells.len(), todo.len());

    // One shared input per group with missing cells, in group order.
    let mut groups: Vec<usize> = todo.iter().map(|&i| study.group(&cells[i])).collect();
    groups.sort_unstable();
    groups.dedup();
    let mut shared: Vec<(usize, S::Shared)> = Vec::with_capacity(groups.len());
    for g in groups {
        if opts.stop.load(Ordering::Relaxed) {
            break;
        }
        shared.push((g, study.prepare(g, obs)?));
    }

    let mut computed = 0;
    let mut failure = None;
    if !todo.is_empty() && !opts.stop.load(Ordering::Relaxed) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map_err(|e| LabError::Invalid(format!("thread pool: {e}")))?;
        let (tx, rx) = mpsc::channel::<(usize, Result<S::Output, LabError>)>();
        let work = Arc::new(AtomicU64::new(0));
        // Closed once the run stops: a worker stores and reports a cell only while it
        // holds this lock and it is open, so after closing it this thread has seen
        // every cell that reached the store (the count it reports is exact).
        let gate = Arc::new(Mutex::new(false));
        let handle = {
            let (study, work, gate, stop) = (
                Arc::clone(study),
                Arc::clone(&work),
                Arc::clone(&gate),
                Arc::clone(&opts.stop),
            );
            let (cells, ids, store, todo) =
                (cells.clone(), ids.clone(), store.clone(), todo.clone());
            std::thread::spawn(move || {
                use rayon::prelude::*;
                pool.install(|| {
                    todo.par_iter().for_each_with(tx, |tx, &i| {
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        let cell = &cells[i];
                        let g = study.group(cell);
                        let Some((_, input)) = shared.iter().find(|(k, _)| *k == g) else {
                            return; // stopped before its input was built
                        };
                        let r = study.compute(cell, input, &work);
                        let closed = gate.lock().unwrap_or_else(|e| e.into_inner());
                        if *closed || stop.load(Ordering::Relaxed) {
                            return; // discarded: the run was stopped while it ran
                        }
                        let r = r.and_then(|out| match &store {
                            Some(st) => st.save(&ids[i], &out).map(|()| out),
                            None => Ok(out),
                        });
                        let _ = tx.send((i, r));
                        drop(closed);
                    });
                });
            })
        };
        while computed < todo.len() {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok((i, Ok(out))) => {
                    obs.cell_done(&study.label(&cells[i]));
                    have[i] = Some(out);
                    computed += 1;
                }
                Ok((_, Err(e))) => {
                    failure = Some(e);
                    break;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    obs.work(work.load(Ordering::Relaxed));
                    if opts.stop.load(Ordering::Relaxed) {
                        break;
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        obs.work(work.load(Ordering::Relaxed));
        if computed == todo.len() {
            let _ = handle.join();
        } else {
            // Stop the workers, then take what reached the store before the gate
            // closed; cells finishing later are discarded.
            opts.stop.store(true, Ordering::Relaxed);
            *gate.lock().unwrap_or_else(|e| e.into_inner()) = true;
            while let Ok((i, r)) = rx.try_recv() {
                if let Ok(out) = r {
                    obs.cell_done(&study.label(&cells[i]));
                    have[i] = Some(out);
                    computed += 1;
                }
            }
        }
    }
    if let Some(e) = failure {
        return Err(e);
    }
    // However the loop ended, a cell left undone means the run was interrupted.
    let interrupted = computed < todo.len();
    Ok(Outcome {
        total: cells.len(),
        reused,
        computed,
        interrupted,
        results: have.into_iter().flatten().collect(),
        elapsed_s: t0.elapsed().as_secs_f64(),
        jobs,
    })
}
