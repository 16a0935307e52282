//! The one study runner: every grid wafer computes (`wafer sim`, `wafer run`, each
//! `wafer reproduce` preset, `wafer demo`, the Python API and the Dask backend) is a
//! [`Study`] run by [`run`].
//!
//! 1. The study lists its cells ([`Study::cells`]); a cell's id is the xxh3-64 hash
//!    of its canonical JSON ([`crate::spec::cell_id`]), so a rerun finds the cells it already has
//!    and a changed parameter computes afresh. Stored results are reused (when the
//!    study confirms they belong to the cell). The output folder is taken first
//!    ([`RunOptions::claim`]): one writer at a time, no output over an input.
//! 2. Each group of cells that still has missing cells gets its shared input once
//!    ([`Study::prepare`]: a trace decoded and densified), shared read-only.
//! 3. Missing cells run on a rayon pool of `jobs` threads (work stealing); each
//!    finished cell is stored at once, atomically ([`Store`]).
//! 4. Stopping (the `stop` flag, set by Ctrl-C): no new cell starts, the runner
//!    returns with the finished cells, and cells still running are discarded (never
//!    stored); a rerun computes them.
//! 5. A cell that cannot run (it does not fit its device, its trace cannot be read)
//!    is recorded as failed with its reason ([`crate::result::Failure`]) and the other cells go on;
//!    a failed cell is not stored, so a rerun tries it again. A failure of the store
//!    itself (a full disk) ends the run at once.
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
use crate::lock::OutLock;
use crate::result::Failure;
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
    /// Cells of one group with the same key may be computed in one pass over the
    /// group's input ([`Study::compute_together`]); `None` (the default): `cell` is
    /// computed alone.
    fn pass_key(&self, _cell: &Self::Cell, _shared: &Self::Shared) -> Option<u64> {
        None
    }
    /// The most cells one pass over `shared` may hold (their state is in memory at
    /// once).
    fn pass_limit(&self, _shared: &Self::Shared) -> usize {
        1
    }
    /// Compute `cells` (one group, one [`Study::pass_key`]) in one pass: one result
    /// per cell, in order.
    fn compute_together(
        &self,
        cells: &[&Self::Cell],
        shared: &Self::Shared,
        work: &AtomicU64,
    ) -> Vec<Result<Self::Output, LabError>> {
        cells
            .iter()
            .map(|c| self.compute(c, shared, work))
            .collect()
    }
    /// Whether a stored output is the result of `cell` (a foreign or stale file is not).
    fn is_result_of(&self, output: &Self::Output, cell: &Self::Cell) -> bool;
    /// A relative estimate of what `cell` costs to compute, for scheduling: cells
    /// run in decreasing order of it (ties in cell order).
    fn cost(&self, _cell: &Self::Cell) -> u64 {
        1
    }
    /// The files the study reads (its traces), which no output may replace.
    fn inputs(&self) -> Vec<PathBuf> {
        Vec::new()
    }
}

fn failure(cell: String, reason: &str) -> Failure {
    let reason = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    // A cell's own error names the cell already.
    let reason = match reason.strip_prefix(&format!("{cell}: ")) {
        Some(r) => r.to_string(),
        None => reason,
    };
    Failure { cell, reason }
}

/// Whether `e`, met while building a group's input, is the output folder's fault (a
/// run that cannot store what it computes must stop, not fail each cell).
fn is_store_failure(e: &LabError, opts: &RunOptions) -> bool {
    match (e, &opts.out) {
        (LabError::Io { path, .. }, Some(out)) => path.starts_with(out),
        _ => false,
    }
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
    /// The output folder is held by a driver elsewhere (a Dask worker computing a
    /// share): store cells there without taking its lock or cleaning it.
    pub shared: bool,
    /// A cell that cannot run is recorded as failed and the others go on (a stored
    /// grid); otherwise its error ends the run (a single `wafer sim`).
    pub keep_going: bool,
}

impl RunOptions {
    /// Store under `out`, `jobs` workers, never stopped.
    pub fn stored(out: &Path, jobs: usize) -> RunOptions {
        RunOptions {
            out: Some(out.to_path_buf()),
            jobs,
            ..RunOptions::default()
        }
    }

    /// Take the output folder for `study` ([`Store::claim`]), unless there is none
    /// or a driver elsewhere holds it. Hold the result for as long as the run writes.
    pub fn claim<S: Study>(&self, study: &S) -> Result<Option<OutLock>, LabError> {
        match (&self.out, self.shared) {
            (Some(out), false) => Store::new(out).claim(&study.inputs()).map(Some),
            _ => Ok(None),
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
    /// Cells that could not be computed, in cell order.
    pub failed: Vec<Failure>,
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
    let _lock = opts.claim(&**study)?;
    let store = opts.out.as_deref().map(Store::new);
    let cells = study.cells();
    let ids: Vec<String> = cells.iter().map(crate::spec::cell_id).collect();
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
    // A group whose input cannot be built fails its cells; the others go on.
    let mut shared: Vec<(usize, S::Shared)> = Vec::with_capacity(groups.len());
    let mut failed: Vec<(usize, Failure)> = Vec::new();
    for g in groups {
        if opts.stop.load(Ordering::Relaxed) {
            break;
        }
        match study.prepare(g, obs) {
            Ok(input) => shared.push((g, input)),
            Err(e) if !opts.keep_going || is_store_failure(&e, opts) => return Err(e),
            Err(e) => {
                let reason = e.to_string();
                obs.message(&format!("failed: {reason}"));
                for &i in todo.iter().filter(|&&i| study.group(&cells[i]) == g) {
                    failed.push((i, failure(study.label(&cells[i]), &reason)));
                }
            }
        }
    }
    let todo: Vec<usize> = todo
        .into_iter()
        .filter(|i| !failed.iter().any(|(f, _)| f == i))
        .collect();

    let (mut computed, mut settled) = (0, 0);
    let mut fatal = None;
    if !todo.is_empty() && !opts.stop.load(Ordering::Relaxed) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map_err(|e| LabError::Invalid(format!("thread pool: {e}")))?;
        // A cell's error (`Err(Ok(e))`: the cell failed) or the store's
        // (`Err(Err(e))`: the run cannot go on).
        type Sent<T> = Result<T, Result<LabError, LabError>>;
        let (tx, rx) = mpsc::channel::<(usize, Sent<S::Output>)>();
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
            let (cells, ids, store) = (cells.clone(), ids.clone(), store.clone());
            // Longest work first (the study's estimate), each worker taking the
            // next: the last to finish are short, so no worker idles while one long
            // cell runs alone at the end.
            let mut order = passes(&*study, &cells, &todo, &shared, jobs);
            let together: Vec<usize> = order.iter().map(Vec::len).filter(|&n| n > 1).collect();
            if !together.is_empty() {
                obs.message(&format!(
                    "{} cells share {} passes over their trace",
                    together.iter().sum::<usize>(),
                    together.len()
                ));
            }
            order.sort_by_key(|p| {
                std::cmp::Reverse(p.iter().map(|&i| study.cost(&cells[i])).sum::<u64>())
            });
            std::thread::spawn(move || {
                let next = std::sync::atomic::AtomicUsize::new(0);
                // One pass (one cell, or cells sharing it), computed, stored and
                // reported (unless the run stopped).
                let one = |pass: &[usize]| {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let g = study.group(&cells[pass[0]]);
                    let Some((_, input)) = shared.iter().find(|(k, _)| *k == g) else {
                        return; // stopped before its input was built
                    };
                    let rs = match pass {
                        [i] => vec![study.compute(&cells[*i], input, &work)],
                        _ => {
                            let these: Vec<&S::Cell> = pass.iter().map(|&i| &cells[i]).collect();
                            study.compute_together(&these, input, &work)
                        }
                    };
                    let closed = gate.lock().unwrap_or_else(|e| e.into_inner());
                    if *closed || stop.load(Ordering::Relaxed) {
                        return; // discarded: the run was stopped while it ran
                    }
                    for (&i, r) in pass.iter().zip(rs) {
                        let r = match r {
                            Ok(out) => match &store {
                                Some(st) => st.save(&ids[i], &out).map(|()| out).map_err(Err),
                                None => Ok(out),
                            },
                            Err(e) => Err(Ok(e)),
                        };
                        // Sent while the gate is held, so a closed gate has seen it.
                        let _ = tx.send((i, r));
                    }
                    drop(closed);
                };
                pool.scope(|s| {
                    for _ in 0..jobs {
                        let (next, order, one) = (&next, &order, &one);
                        s.spawn(move |_| {
                            while let Some(p) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                                one(p);
                            }
                        });
                    }
                });
            })
        };
        while settled < todo.len() {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok((i, Ok(out))) => {
                    obs.cell_done(&study.label(&cells[i]));
                    have[i] = Some(out);
                    computed += 1;
                    settled += 1;
                }
                Ok((_, Err(Ok(e)))) if !opts.keep_going => {
                    fatal = Some(e);
                    break;
                }
                Ok((i, Err(Ok(e)))) => {
                    let label = study.label(&cells[i]);
                    obs.message(&format!("failed: {e}"));
                    obs.cell_done(&label);
                    failed.push((i, failure(label, &e.to_string())));
                    settled += 1;
                }
                Ok((_, Err(Err(e)))) => {
                    fatal = Some(e);
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
        if settled == todo.len() {
            let _ = handle.join();
        } else {
            // Stop the workers, then take what reached the store before the gate
            // closed; cells finishing later are discarded.
            opts.stop.store(true, Ordering::Relaxed);
            *gate.lock().unwrap_or_else(|e| e.into_inner()) = true;
            while let Ok((i, r)) = rx.try_recv() {
                match r {
                    Ok(out) => {
                        obs.cell_done(&study.label(&cells[i]));
                        have[i] = Some(out);
                        computed += 1;
                        settled += 1;
                    }
                    Err(Ok(e)) => {
                        failed.push((i, failure(study.label(&cells[i]), &e.to_string())));
                        settled += 1;
                    }
                    Err(Err(_)) => {}
                }
            }
        }
    }
    if let Some(e) = fatal {
        return Err(e);
    }
    failed.sort_by_key(|(i, _)| *i);
    // However the loop ended, a cell neither computed nor failed means the run was
    // interrupted.
    let interrupted = settled < todo.len();
    Ok(Outcome {
        total: cells.len(),
        reused,
        computed,
        interrupted,
        failed: failed.into_iter().map(|(_, f)| f).collect(),
        results: have.into_iter().flatten().collect(),
        elapsed_s: t0.elapsed().as_secs_f64(),
        jobs,
    })
}

/// The work of a run: each cell of `todo` alone, except cells that may share a pass
/// over their group's input ([`Study::pass_key`]). Those are dealt, in decreasing
/// cost, into as many passes as there are workers (fewer if there are fewer cells,
/// more if [`Study::pass_limit`] says a pass holds fewer): each worker then reads
/// the input once for all of its cells.
fn passes<S: Study>(
    study: &S,
    cells: &[S::Cell],
    todo: &[usize],
    shared: &[(usize, S::Shared)],
    jobs: usize,
) -> Vec<Vec<usize>> {
    let mut alone = Vec::new();
    let mut sharing: std::collections::BTreeMap<(usize, u64), Vec<usize>> = Default::default();
    for &i in todo {
        let g = study.group(&cells[i]);
        let key = shared
            .iter()
            .find(|(k, _)| *k == g)
            .and_then(|(_, input)| study.pass_key(&cells[i], input));
        match key {
            Some(k) => sharing.entry((g, k)).or_default().push(i),
            None => alone.push(vec![i]),
        }
    }
    for ((g, _), mut members) in sharing {
        let input = &shared
            .iter()
            .find(|(k, _)| *k == g)
            .expect("a shared input")
            .1;
        let limit = study.pass_limit(input).max(1);
        let n = members.len().div_ceil(limit).max(jobs.min(members.len()));
        members.sort_by_key(|&i| std::cmp::Reverse(study.cost(&cells[i])));
        let mut dealt = vec![Vec::new(); n];
        for (k, i) in members.into_iter().enumerate() {
            dealt[k % n].push(i);
        }
        for mut p in dealt {
            p.sort_unstable();
            alone.push(p);
        }
    }
    alone
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells 0..8 whose cost is their value; compute records the order it ran in.
    struct Costly(Mutex<Vec<u64>>);

    impl Study for Costly {
        type Cell = u64;
        type Output = u64;
        type Shared = ();
        fn cells(&self) -> Vec<u64> {
            vec![3, 7, 1, 5, 0, 6, 2, 4]
        }
        fn label(&self, c: &u64) -> String {
            c.to_string()
        }
        fn prepare(&self, _: usize, _: &mut dyn Observer) -> Result<(), LabError> {
            Ok(())
        }
        fn compute(&self, c: &u64, _: &(), _: &AtomicU64) -> Result<u64, LabError> {
            self.0.lock().unwrap().push(*c);
            Ok(c * 10)
        }
        fn is_result_of(&self, o: &u64, c: &u64) -> bool {
            *o == c * 10
        }
        fn cost(&self, c: &u64) -> u64 {
            *c
        }
    }

    /// Cells 0..10; the even ones may share a pass, and compute_together records
    /// the passes it was given.
    struct Sharing(Mutex<Vec<Vec<u64>>>);

    impl Study for Sharing {
        type Cell = u64;
        type Output = u64;
        type Shared = ();
        fn cells(&self) -> Vec<u64> {
            (0..10).collect()
        }
        fn label(&self, c: &u64) -> String {
            c.to_string()
        }
        fn prepare(&self, _: usize, _: &mut dyn Observer) -> Result<(), LabError> {
            Ok(())
        }
        fn compute(&self, c: &u64, _: &(), _: &AtomicU64) -> Result<u64, LabError> {
            self.0.lock().unwrap().push(vec![*c]);
            Ok(c * 10)
        }
        fn pass_key(&self, c: &u64, _: &()) -> Option<u64> {
            (c % 2 == 0).then_some(7)
        }
        fn pass_limit(&self, _: &()) -> usize {
            2
        }
        fn compute_together(
            &self,
            cells: &[&u64],
            _: &(),
            _: &AtomicU64,
        ) -> Vec<Result<u64, LabError>> {
            self.0
                .lock()
                .unwrap()
                .push(cells.iter().map(|c| **c).collect());
            cells.iter().map(|c| Ok(**c * 10)).collect()
        }
        fn is_result_of(&self, o: &u64, c: &u64) -> bool {
            *o == c * 10
        }
        fn cost(&self, c: &u64) -> u64 {
            *c
        }
    }

    #[test]
    fn cells_that_may_share_a_pass_are_dealt_into_passes_within_the_limit() {
        let study = Arc::new(Sharing(Mutex::default()));
        let opts = RunOptions {
            jobs: 1,
            ..RunOptions::default()
        };
        let out = run(&study, &opts, &mut Quiet).unwrap();
        assert_eq!(out.results, (0..10).map(|c| c * 10).collect::<Vec<_>>());
        let mut ran = study.0.lock().unwrap().clone();
        ran.sort();
        // Five even cells, at most two a pass: three passes, dealt in decreasing
        // cost (8, 6 | 4, 2 | 0 -> 8, 2 | 6, 0 | 4); the odd cells alone.
        assert_eq!(
            ran,
            [
                vec![0, 6],
                vec![1],
                vec![2, 8],
                vec![3],
                vec![4],
                vec![5],
                vec![7],
                vec![9]
            ]
        );
    }

    #[test]
    fn cells_start_longest_first_and_come_back_in_cell_order() {
        let study = Arc::new(Costly(Mutex::default()));
        let opts = RunOptions {
            jobs: 1,
            ..RunOptions::default()
        };
        let out = run(&study, &opts, &mut Quiet).unwrap();
        assert_eq!(*study.0.lock().unwrap(), [7, 6, 5, 4, 3, 2, 1, 0]);
        assert_eq!(out.results, [30, 70, 10, 50, 0, 60, 20, 40]);
    }
}
