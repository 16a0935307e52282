//! The grid study: an experiment's traces x policies x cache sizes x devices, each
//! run a [`RunSpec`], computed by the one runner ([`crate::study::run`]), then the
//! tables, figures and report ([`execute`]).
//!
//! The cells are computed from their tasks ([`CellTask`]: the spec and where its trace
//! is) by a [`TaskStudy`], which needs no experiment: a Dask worker runs one on the
//! tasks of its share, and a [`GridStudy`] is one on every task of a plan, with the
//! plan kept for the tables, figures and report.
//!
//! Each trace that still has missing runs is decoded and densified once into a
//! [`PreparedTrace`] shared read-only by its runs (also a trace whose facts for the
//! report are not stored yet). With `stream = true` a trace is never held in memory:
//! one pass gathers its facts (footprint included, stored, so a rerun skips it) and
//! every run then reads the trace itself. A run streams the trace through the cache;
//! the after-cache operations go straight into the device's FTL (never materialised,
//! unless an after-cache file is asked for).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use wafer_cache::{PolicySpec, PreparedTrace, SimError};
use wafer_trace::units::CacheSize;
use wafer_trace::{Densifier, Granularity, Op};

use crate::compute::{compute, compute_together, AgedDevices, CellInput, PATTERN_POINTS};
use crate::error::LabError;
use crate::experiment::Plan;
use crate::prepared::{load_from, prepare_error, prepare_trace, say_skipped};
use crate::report::Preface;
use crate::result::{CellResult, Decimator, Outcome, TraceInfo};
use crate::spec::RunSpec;
use crate::store::{write_atomic, Store};
use crate::study::{self, Observer, RunOptions, Study};
use crate::task::{CellTask, TraceSource};

/// How the runs of one trace get their accesses.
pub enum TraceInput {
    /// Prepared once, shared by the runs.
    Prepared(Arc<PreparedTrace>),
    /// Read by each run; the trace's distinct pages, when counted.
    Stream(Option<u32>),
}

/// Names the after-cache file of a run (`None`: not kept).
pub type AfterFile = dyn Fn(&RunSpec) -> Option<PathBuf> + Send + Sync;

/// Makes a report's opening notes from the results (a preset's claims).
pub type PrefaceFn = dyn Fn(&[CellResult]) -> Preface + Send + Sync;

/// A trace the cells of a study read: where it is, and what its cells' specs say of
/// it (label, checksum, how its requests become accesses).
struct Trace {
    source: TraceSource,
    label: String,
    checksum: String,
    granularity: Granularity,
    /// The file's size (a generator: the largest file's), for [`Study::cost`].
    bytes: u64,
}

impl Trace {
    /// The trace of `task`.
    fn of(task: &CellTask) -> Trace {
        Trace {
            source: task.trace.clone(),
            label: task.spec.trace.clone(),
            checksum: task.spec.trace_checksum.clone(),
            granularity: task.spec.granularity(),
            bytes: 0,
        }
    }

    /// Whether `task` reads this trace, read the same way.
    fn reads(&self, task: &CellTask) -> bool {
        self.source == task.trace
            && self.checksum == task.spec.trace_checksum
            && self.granularity == task.spec.granularity()
    }
}

/// Cells given as tasks, each computed from its task alone ([`CellTask`]): a share of
/// a grid on a worker that has no experiment, or a whole plan's grid ([`GridStudy`]).
/// The cells of one trace share its input, built once; finished cells and the facts of
/// their traces are stored under `out` when given.
pub struct TaskStudy {
    tasks: Vec<CellTask>,
    /// Each cell's index in `tasks`, by id.
    index: HashMap<String, usize>,
    /// Each task's trace, an index into `traces` (traces in order of first use).
    trace_of: Vec<usize>,
    traces: Vec<Trace>,
    /// Each task's [`Study::cost`].
    costs: Vec<u64>,
    out: Option<PathBuf>,
    /// Names each cell's after-cache file in place of `outputs.keep_after`.
    after: Option<Box<AfterFile>>,
    infos: Mutex<Vec<Option<TraceInfo>>>,
    only: Option<HashSet<String>>,
    devices: AgedDevices,
    /// Whether a cache size is a share of the footprint (known only once counted).
    needs_footprint: bool,
    /// Whether every policy can run streamed (an offline policy needs the whole
    /// trace in memory).
    can_stream: bool,
}

impl TaskStudy {
    /// The cells `tasks`; trace facts (and with `keep_after` each cell's after-cache
    /// trace, as `<out>/after/<id>.csv`) are stored under `out` when given.
    pub fn new(tasks: Vec<CellTask>, out: Option<&Path>) -> TaskStudy {
        let mut traces: Vec<Trace> = Vec::new();
        let mut trace_of = Vec::with_capacity(tasks.len());
        for t in &tasks {
            // Cells come trace by trace: the last trace first.
            let known = match traces.last() {
                Some(last) if last.reads(t) => Some(traces.len() - 1),
                _ => traces.iter().position(|tr| tr.reads(t)),
            };
            trace_of.push(known.unwrap_or_else(|| {
                traces.push(Trace::of(t));
                traces.len() - 1
            }));
        }
        let files: Vec<Option<u64>> = traces
            .iter()
            .map(|t| {
                t.source
                    .def
                    .path
                    .as_ref()
                    .and_then(|p| std::fs::metadata(p).ok())
                    .map(|m| m.len())
            })
            .collect();
        let largest = files.iter().flatten().copied().max().unwrap_or(1);
        for (t, f) in traces.iter_mut().zip(files) {
            t.bytes = f.unwrap_or(largest);
        }
        // Each policy parsed once: its weight, and whether it is offline (a policy
        // that does not parse here fails its cells when they run).
        let mut policies: HashMap<&str, (u64, bool)> = HashMap::new();
        for t in &tasks {
            policies.entry(&t.spec.policy).or_insert_with(|| {
                PolicySpec::parse(&t.spec.policy)
                    .map_or((4, false), |p| (policy_weight(&p), p.info().offline))
            });
        }
        let costs = tasks
            .iter()
            .zip(&trace_of)
            .map(|(t, &ti)| {
                let size = traces[ti]
                    .bytes
                    .saturating_mul(policies[t.spec.policy.as_str()].0);
                if t.spec.device_spec.is_empty() {
                    size
                } else {
                    size.saturating_mul(3)
                }
            })
            .collect();
        let can_stream = !policies.values().any(|&(_, offline)| offline);
        let needs_footprint = tasks
            .iter()
            .any(|t| CacheSize::parse(&t.spec.cache).is_ok_and(|s| s.needs_footprint()));
        let index = tasks.iter().enumerate().map(|(i, t)| (t.id(), i)).collect();
        let n = traces.len();
        TaskStudy {
            tasks,
            index,
            trace_of,
            traces,
            costs,
            out: out.map(Path::to_path_buf),
            after: None,
            infos: Mutex::new(vec![None; n]),
            only: None,
            devices: AgedDevices::new(),
            needs_footprint,
            can_stream,
        }
    }

    /// Only the runs whose ids are in `ids` (a share of the grid, for a distributed
    /// driver that hands each worker a part).
    pub fn with_only(mut self, ids: impl IntoIterator<Item = String>) -> TaskStudy {
        self.only = Some(ids.into_iter().collect());
        self
    }

    /// Name each run's after-cache file with `after` instead.
    pub fn with_after(mut self, after: Box<AfterFile>) -> TaskStudy {
        self.after = Some(after);
        self
    }

    /// The task of `cell`, and its index.
    fn task(&self, cell: &RunSpec) -> (usize, &CellTask) {
        let i = self.index[&cell.id()];
        (i, &self.tasks[i])
    }

    /// The after-cache file of `cell`, if kept, its folder made.
    fn after_file(&self, cell: &RunSpec) -> Result<Option<PathBuf>, LabError> {
        let after = match (&self.after, &self.out) {
            (Some(name), _) => name(cell),
            (None, Some(out)) if self.task(cell).1.keep_after => {
                Some(out.join("after").join(format!("{}.csv", cell.id())))
            }
            _ => None,
        };
        if let Some(dir) = after.as_deref().and_then(Path::parent) {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir).map_err(|e| LabError::io(dir, e))?;
            }
        }
        Ok(after)
    }

    fn stored_info(&self, ti: usize) -> Option<TraceInfo> {
        let out = self.out.as_deref()?;
        let b = std::fs::read(trace_info_path(out, &self.traces[ti])).ok()?;
        serde_json::from_slice(&b).ok()
    }

    fn keep_info(&self, ti: usize, info: TraceInfo) -> Result<(), LabError> {
        if let Some(out) = &self.out {
            store_info(&info, out, &self.traces[ti])?;
        }
        self.infos.lock().unwrap_or_else(|e| e.into_inner())[ti] = Some(info);
        Ok(())
    }

    /// Facts about every trace, from this run, the store, or a pass over the trace.
    fn traces(&self) -> Result<Vec<TraceInfo>, LabError> {
        let mut all = Vec::new();
        for (ti, t) in self.traces.iter().enumerate() {
            let known = self.infos.lock().unwrap_or_else(|e| e.into_inner())[ti].clone();
            let info = match known.or_else(|| self.stored_info(ti)) {
                Some(i) => i,
                None => {
                    let info = if t.source.stream {
                        describe_streamed(t)?
                    } else {
                        describe(t, &prepare_trace(&t.source, &t.checksum, t.granularity)?)
                    };
                    self.keep_info(ti, info.clone())?;
                    info
                }
            };
            all.push(info);
        }
        Ok(all)
    }

    /// Trace `ti` read by its cells themselves: counted first when the report or a
    /// share of the footprint needs its facts (stored, so a rerun skips the pass), or
    /// when the count pays for itself: counted, the cells share passes over the trace,
    /// one a worker ([`Study::pass_key`]), so with more than two cells a core the
    /// count and the shared passes read the trace fewer times than the cells would.
    fn streamed(&self, ti: usize, obs: &mut dyn Observer) -> Result<TraceInput, LabError> {
        let t = &self.traces[ti];
        let cells = self.cells().iter().filter(|c| self.group(c) == ti).count();
        let cores = crate::bounds::workers(0).0;
        if self.out.is_none() && !self.needs_footprint && cells <= 2 * cores {
            return Ok(TraceInput::Stream(None));
        }
        let info = match self.stored_info(ti) {
            Some(info) => info,
            None => {
                obs.message(&format!("counting {}", t.source.source()));
                describe_streamed(t)?
            }
        };
        let pages = u32::try_from(info.footprint_pages).map_err(|_| {
            LabError::Invalid(format!(
                "{}: more than 2^32 distinct pages",
                t.source.source()
            ))
        })?;
        self.keep_info(ti, info)?;
        Ok(TraceInput::Stream(Some(pages)))
    }

    /// Why trace `ti`, which has no prepared file, is better streamed than prepared
    /// in memory, or None when it is not:
    ///
    /// * one cell reads it, and nothing needs its facts: building the arrays is
    ///   pure overhead for a single pass (it took half of such a run), and a
    ///   streamed cell holds only its batch and its densifier;
    /// * it is generated, and its arrays alone ([`wafer_cache::prepared::prepared_bytes`], a
    ///   lower bound) would take more than the memory limit or half the memory
    ///   available now (the cells' own state and the machine's other work need the
    ///   rest): preparing it would push the machine into swap, or be refused only
    ///   after most of it was generated.
    fn why_stream(&self, ti: usize) -> Option<StreamWhy> {
        if !self.can_stream {
            return None;
        }
        if let Some(requests) = self.traces[ti]
            .source
            .def
            .gen
            .as_ref()
            .and_then(gen_requests)
        {
            let needed = wafer_cache::prepared::prepared_bytes(requests, requests, 0);
            let half = available_memory().map_or(u64::MAX, |a| a / 2);
            let room = crate::bounds::memory_limit().min(half);
            if needed > room {
                let size = |b: u64| wafer_trace::units::format_size(b);
                return Some(StreamWhy {
                    too_large: true,
                    msg: format!(
                        "{requests} requests take at least {} prepared in memory, more than the {} it may use",
                        size(needed),
                        size(room)
                    ),
                });
            }
        }
        let cells = self.cells().iter().filter(|c| self.group(c) == ti).count();
        (cells == 1 && self.out.is_none() && !self.needs_footprint).then(|| StreamWhy {
            too_large: false,
            msg: "one run reads it".into(),
        })
    }
}

/// Why a trace is streamed rather than prepared (`TaskStudy::why_stream`).
struct StreamWhy {
    /// Because it would not fit in memory (said on stderr, not only in progress).
    too_large: bool,
    msg: String,
}

/// The requests a generator yields, when its parameters fix them.
fn gen_requests(g: &wafer_trace::gen::GenSpec) -> Option<u64> {
    let (_, v) = g.params().into_iter().find(|(k, _)| k == "requests")?;
    v.parse().ok()
}

/// Memory the kernel could give this process now (`MemAvailable`).
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

impl Study for TaskStudy {
    type Cell = RunSpec;
    type Output = CellResult;
    type Shared = TraceInput;

    fn cells(&self) -> Vec<RunSpec> {
        let mut cells: Vec<RunSpec> = self.tasks.iter().map(|t| t.spec.clone()).collect();
        if let Some(only) = &self.only {
            cells.retain(|c| only.contains(&c.id()));
        }
        cells
    }

    fn label(&self, cell: &RunSpec) -> String {
        cell.label()
    }

    fn group(&self, cell: &RunSpec) -> usize {
        self.trace_of[self.task(cell).0]
    }

    /// The trace's input: its kept prepared file when one fits (mapped, shared by
    /// every worker), else streamed when that is cheaper or the only way
    /// (`TaskStudy::why_stream`), else decoded and densified once in memory.
    fn prepare(&self, ti: usize, obs: &mut dyn Observer) -> Result<TraceInput, LabError> {
        let t = &self.traces[ti];
        if t.source.stream {
            return self.streamed(ti, obs);
        }
        let source = t.source.source();
        let prepared = match load_from(
            &t.source,
            &t.checksum,
            t.granularity,
            "preparing from the trace",
        )? {
            Some(p) => p,
            None => {
                if let Some(why) = self.why_stream(ti) {
                    if why.too_large {
                        eprintln!("wafer: {source}: {}; streaming it", why.msg);
                    } else {
                        obs.message(&format!("streaming {source}: {}", why.msg));
                    }
                    return self.streamed(ti, obs);
                }
                obs.message(&format!("reading {source}"));
                let mut reader = t.source.open()?;
                let limit = crate::bounds::memory_limit();
                match PreparedTrace::read_within(t.granularity, reader.as_mut(), &mut |_| {}, limit)
                {
                    Ok(p) => {
                        say_skipped(&source, reader.skipped());
                        p
                    }
                    // Found too large only while reading it (a file's size does not
                    // tell its requests): the cells can still run, streamed.
                    Err(
                        e @ (SimError::OverMemory { .. }
                        | SimError::OutOfMemory(_)
                        | SimError::TooLarge(_)),
                    ) if self.can_stream => {
                        eprintln!("wafer: {source}: {e}; streaming it");
                        return self.streamed(ti, obs);
                    }
                    Err(e) => return Err(prepare_error(&source, e)),
                }
            }
        };
        // The facts are for the report; without a store (`wafer sim`) nothing reads
        // them, and a pass over every access is a tenth of a single run.
        let stored = self.stored_info(ti);
        if let Some(info) = stored.or_else(|| self.out.is_some().then(|| describe(t, &prepared))) {
            self.keep_info(ti, info)?;
        }
        Ok(TraceInput::Prepared(Arc::new(prepared)))
    }

    fn compute(
        &self,
        cell: &RunSpec,
        shared: &TraceInput,
        work: &AtomicU64,
    ) -> Result<CellResult, LabError> {
        let input = match shared {
            TraceInput::Prepared(t) => CellInput::Prepared(t),
            TraceInput::Stream(pages) => CellInput::Stream(*pages),
        };
        let (_, task) = self.task(cell);
        let after = self.after_file(cell)?;
        let r = compute(
            cell,
            &task.trace,
            input,
            &self.devices,
            after.as_deref(),
            work,
        )?;
        // A cell is stored under the trace's checksum: only if it was computed from
        // that file (a streamed run reads it again; a prepared one read it once).
        task.trace.check_unchanged()?;
        Ok(r)
    }

    /// Cells of a streamed trace whose footprint was counted share a pass when their
    /// policy is online, they have no device (a device's state and a steady-state
    /// replay are each cell's own) and they have the same block size (block ids are
    /// made once per pass).
    fn pass_key(&self, cell: &RunSpec, shared: &TraceInput) -> Option<u64> {
        let streamed = matches!(shared, TraceInput::Stream(Some(_)));
        // An offline policy reads the whole trace first; a policy that does not
        // parse fails with its own error.
        let online = PolicySpec::parse(&cell.policy).is_ok_and(|p| !p.info().offline);
        (streamed && online && cell.device_spec.is_empty())
            .then(|| u64::from(cell.pages_per_block.get()))
    }

    /// As many cells as fit in memory ([`crate::bounds::cells_per_pass`]).
    fn pass_limit(&self, shared: &TraceInput) -> usize {
        match shared {
            TraceInput::Stream(Some(pages)) => crate::bounds::cells_per_pass(*pages),
            _ => 1,
        }
    }

    fn compute_together(
        &self,
        cells: &[&RunSpec],
        shared: &TraceInput,
        work: &AtomicU64,
    ) -> Vec<Result<CellResult, LabError>> {
        let TraceInput::Stream(Some(pages)) = shared else {
            return cells
                .iter()
                .map(|c| self.compute(c, shared, work))
                .collect();
        };
        let trace = &self.task(cells[0]).1.trace;
        // A cell whose after-cache folder cannot be made fails alone.
        let afters: Vec<Result<Option<PathBuf>, LabError>> =
            cells.iter().map(|c| self.after_file(c)).collect();
        let ok: Vec<(&RunSpec, Option<&Path>)> = cells
            .iter()
            .zip(&afters)
            .filter_map(|(c, a)| a.as_ref().ok().map(|a| (*c, a.as_deref())))
            .collect();
        let ran = compute_together(&ok, trace, *pages, &self.devices, work)
            .and_then(|ran| trace.check_unchanged().map(|()| ran));
        let mut ran = match ran {
            Ok(ran) => ran.into_iter(),
            Err(e) => {
                let msg = e.to_string();
                return cells
                    .iter()
                    .map(|c| {
                        Err(LabError::Cell {
                            cell: c.label(),
                            msg: msg.clone(),
                        })
                    })
                    .collect();
            }
        };
        afters
            .into_iter()
            .map(|a| a.and_then(|_| ran.next().expect("one result per cell that ran")))
            .collect()
    }

    fn is_result_of(&self, output: &CellResult, cell: &RunSpec) -> bool {
        output.params == *cell
    }

    fn inputs(&self) -> Vec<PathBuf> {
        self.traces
            .iter()
            .filter_map(|t| t.source.def.path.clone())
            .collect()
    }

    /// The trace's size (bytes of its file; a generated trace counts as the largest
    /// file) times the policy's relative cost (`policy_weight`), three times over
    /// with a device behind the cache: a rough proportion of the work, enough to
    /// start the long cells first so that the last to finish are short ones.
    fn cost(&self, cell: &RunSpec) -> u64 {
        self.costs[self.task(cell).0]
    }
}

/// An experiment's grid as a [`Study`]: every cell of its plan, computed as a
/// [`TaskStudy`] computes it, and the plan for the tables, figures and report
/// ([`publish`]).
pub struct GridStudy {
    plan: Plan,
    cells: TaskStudy,
    preface: Box<PrefaceFn>,
}

impl GridStudy {
    /// The grid of `plan`; trace facts are stored under `out` (when given), and
    /// `outputs.keep_after` keeps each run's after-cache trace as
    /// `<out>/after/<id>.csv`.
    pub fn new(plan: Plan, out: Option<&Path>) -> GridStudy {
        GridStudy {
            cells: TaskStudy::new(plan.tasks(), out),
            plan,
            preface: Box::new(|_: &[CellResult]| Preface::default()),
        }
    }

    /// Only the runs whose ids are in `ids` (a share of the grid).
    pub fn with_only(mut self, ids: impl IntoIterator<Item = String>) -> GridStudy {
        self.cells = self.cells.with_only(ids);
        self
    }

    /// Name each run's after-cache file with `after` instead.
    pub fn with_after(mut self, after: Box<AfterFile>) -> GridStudy {
        self.cells = self.cells.with_after(after);
        self
    }

    /// Open the report with `preface`'s notes.
    pub fn with_preface(mut self, preface: Box<PrefaceFn>) -> GridStudy {
        self.preface = preface;
        self
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }
}

impl Study for GridStudy {
    type Cell = RunSpec;
    type Output = CellResult;
    type Shared = TraceInput;

    fn cells(&self) -> Vec<RunSpec> {
        self.cells.cells()
    }

    fn label(&self, cell: &RunSpec) -> String {
        self.cells.label(cell)
    }

    fn group(&self, cell: &RunSpec) -> usize {
        self.cells.group(cell)
    }

    fn prepare(&self, group: usize, obs: &mut dyn Observer) -> Result<TraceInput, LabError> {
        self.cells.prepare(group, obs)
    }

    fn compute(
        &self,
        cell: &RunSpec,
        shared: &TraceInput,
        work: &AtomicU64,
    ) -> Result<CellResult, LabError> {
        self.cells.compute(cell, shared, work)
    }

    fn pass_key(&self, cell: &RunSpec, shared: &TraceInput) -> Option<u64> {
        self.cells.pass_key(cell, shared)
    }

    fn pass_limit(&self, shared: &TraceInput) -> usize {
        self.cells.pass_limit(shared)
    }

    fn compute_together(
        &self,
        cells: &[&RunSpec],
        shared: &TraceInput,
        work: &AtomicU64,
    ) -> Vec<Result<CellResult, LabError>> {
        self.cells.compute_together(cells, shared, work)
    }

    fn is_result_of(&self, output: &CellResult, cell: &RunSpec) -> bool {
        self.cells.is_result_of(output, cell)
    }

    fn inputs(&self) -> Vec<PathBuf> {
        self.cells.inputs()
    }

    fn cost(&self, cell: &RunSpec) -> u64 {
        self.cells.cost(cell)
    }
}

/// A policy's cost per access relative to the simplest ones, in quarters: ARC, LIRS
/// and S3-FIFO keep several queues (and ghosts) per access and took 1.5-2x LRU's
/// time per cell on CloudPhysics x40 (BENCHMARKS.md, "Cores"); the rest count as
/// LRU. Only the order of cells depends on it, never a result.
fn policy_weight(p: &wafer_cache::PolicySpec) -> u64 {
    match p.name {
        "arc" | "lirs" => 8,
        "s3fifo" | "s3fifo-v0" | "2q" => 6,
        _ => 4,
    }
}

/// What [`execute`] produced.
#[derive(Clone, Debug)]
pub struct Done {
    /// The run.
    pub outcome: Outcome,
    /// Tables written (`results.parquet`, `.json`, `.csv`).
    pub tables: Vec<PathBuf>,
    /// SVG files written (each with a PNG and a PDF next to it).
    pub figures: Vec<PathBuf>,
    /// The report, if written.
    pub report: Option<PathBuf>,
}

/// Run the grid with the one runner; with an output folder, then [`publish`] there
/// (also after an interruption, from the runs that are finished).
pub fn execute(
    study: &Arc<GridStudy>,
    opts: &RunOptions,
    obs: &mut dyn Observer,
) -> Result<Done, LabError> {
    // Held through publishing: the tables and report are this run's too.
    let _lock = opts.claim(&**study)?;
    let outcome = run(study, opts, obs)?;
    match opts.out.as_deref() {
        Some(out) => publish(study, outcome, out),
        None => Ok(Done {
            outcome,
            tables: Vec::new(),
            figures: Vec::new(),
            report: None,
        }),
    }
}

/// Run the grid with the one runner, writing nothing but the stored runs.
pub fn run(
    study: &Arc<GridStudy>,
    opts: &RunOptions,
    obs: &mut dyn Observer,
) -> Result<Outcome, LabError> {
    let run = study::run(study, opts, obs)?;
    Ok(Outcome {
        total: run.total,
        reused: run.reused,
        computed: run.computed,
        interrupted: run.interrupted,
        failed: run.failed,
        results: run.results,
        traces: Vec::new(),
        elapsed_s: run.elapsed_s,
        jobs: run.jobs,
    })
}

/// Write `results.csv`, `results.json`, `results.parquet`, `provenance.json`,
/// `figures/*.svg` (and `.png`, `.pdf`) and `report.html` under `out` from
/// `outcome` (its counts and time are what the report says about the run).
pub fn publish(study: &GridStudy, mut outcome: Outcome, out: &Path) -> Result<Done, LabError> {
    outcome.traces = study.cells.traces()?;
    let plan = &study.plan;
    let rows: Vec<_> = outcome.results.iter().map(|r| r.row(true)).collect();
    // Every column present, so that the Parquet types do not depend on the data.
    let template = outcome.results.first().map(CellResult::template_row);
    let tables = Store::new(out).write_tables(&rows, template.as_ref())?;
    let prov = crate::provenance::Provenance::here();
    let json = serde_json::to_vec_pretty(&prov).map_err(|e| LabError::Invalid(e.to_string()))?;
    write_atomic(&out.join("provenance.json"), &json)?;
    let figs = crate::figures::draw(plan, &outcome.results, &outcome.traces);
    let mut paths = Vec::new();
    for f in &figs {
        paths.push(crate::figure_file::write_figure(
            &out.join("figures"),
            &f.stem,
            &f.chart,
        )?);
    }
    let report = if plan.exp.outputs.report {
        let p = out.join("report.html");
        let preface = (study.preface)(&outcome.results);
        write_atomic(
            &p,
            crate::report::html(plan, &outcome, &figs, &preface, &prov).as_bytes(),
        )?;
        Some(p)
    } else {
        None
    };
    Ok(Done {
        outcome,
        tables,
        figures: paths,
        report,
    })
}

/// Where the facts of trace `t` are kept: `<out>/traces/<checksum>-<how>.json`,
/// `<how>` a hash of everything besides the bytes that shapes them (the format it is
/// read as, a custom trace's columns, the page size or record accesses), so that a
/// run at another page size never reuses a footprint counted at this one.
fn trace_info_path(out: &Path, t: &Trace) -> PathBuf {
    let how = format!(
        "{}|{}",
        t.source.format_label().unwrap_or_default(),
        crate::prepared::describe(t.granularity)
    );
    let how = xxhash_rust::xxh3::xxh3_64(how.as_bytes()) & 0xffff_ffff;
    out.join("traces")
        .join(format!("{}-{how:08x}.json", t.checksum))
}

/// Facts about trace `t` (and its before-cache write pattern) from its prepared
/// form, stored under `<out>/traces/` ([`trace_info_path`]) for later runs that need
/// not decode it.
fn describe(t: &Trace, prepared: &PreparedTrace) -> TraceInfo {
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
    trace_info(
        t,
        prepared.requests() as u64,
        prepared.accesses(),
        u64::from(prepared.universe()),
        d.points,
    )
}

/// The same facts as [`describe`] from one pass over the trace, holding only its
/// distinct pages (for `stream = true`).
fn describe_streamed(t: &Trace) -> Result<TraceInfo, LabError> {
    let source = t.source.source();
    let mut reader = t.source.open()?;
    let mut dens = Densifier::new();
    let mut d = Decimator::new(PATTERN_POINTS);
    let (mut requests, mut access) = (0u64, 0u64);
    let mut batch = Vec::with_capacity(wafer_trace::reader::BATCH);
    while reader.read_batch(&mut batch)? {
        requests += batch.len() as u64;
        for r in &batch {
            let n = t.granularity.count(r);
            dens.try_reserve(usize::try_from(n).unwrap_or(usize::MAX))
                .map_err(|bytes| {
                    crate::prepared::stream_error(
                        &source,
                        wafer_cache::SimError::StreamOutOfMemory {
                            bytes,
                            what: "the page table",
                            pages: dens.len() as u64,
                        },
                    )
                })?;
            t.granularity.for_each_key(r, |key| {
                dens.id_in_room(key);
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
    crate::prepared::say_skipped(&source, reader.skipped());
    Ok(trace_info(t, requests, access, dens.len() as u64, d.points))
}

fn trace_info(
    t: &Trace,
    requests: u64,
    accesses: u64,
    footprint_pages: u64,
    write_pattern: Vec<(u64, u64)>,
) -> TraceInfo {
    TraceInfo {
        label: t.label.clone(),
        path: t.source.source(),
        checksum: t.checksum.clone(),
        requests,
        accesses,
        footprint_pages,
        write_pattern,
    }
}

fn store_info(info: &TraceInfo, out: &Path, t: &Trace) -> Result<(), LabError> {
    let json = serde_json::to_vec(info).map_err(|e| LabError::Invalid(e.to_string()))?;
    write_atomic(&trace_info_path(out, t), &json)
}

/// Page number bits of a page key (the device sits above bit 44).
const PAGE_MASK: u64 = (1 << wafer_trace::request::DEV_SHIFT) - 1;
