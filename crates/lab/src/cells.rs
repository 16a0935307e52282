//! Single cells: the grid as a list, and one cell computed on its own (issue 5,
//! item 2), for runners that spread cells over machines (the Python/Dask front end).
//!
//! A driver and its workers load the same experiment file; the driver lists
//! [`Plan::cells`], skips those the [`Store`](crate::store::Store) already has, and
//! sends each missing [`CellParams`] (serde) to a worker; the worker calls
//! [`run_cell`] and sends the [`CellResult`] back (serde); the driver keeps it with
//! [`Store::save`](crate::store::Store::save) (atomic). When every cell is stored,
//! [`crate::execute`] on the driver computes nothing and writes the tables, figures and
//! report. Cells are pure functions of their parameters, so where a cell ran does not
//! change its result.
//!
//! Resolved details:
//! * A cell is matched to the plan by its parameters (trace checksum, device
//!   description and wafer version included); a cell of another plan, trace file or
//!   wafer version is refused rather than computed with the wrong inputs.
//! * [`run_cell`] decodes the cell's trace itself, each call: a worker that gets many
//!   cells of one trace should keep one [`PreparedTrace`] and call [`run_prepared`].
//!   With `stream = true` it counts the trace's pages in one pass and then streams it
//!   through the cell instead (`CellInput::Stream`).
//! * [`run_cell`] does not keep the after-cache trace (`outputs.keep_after`): that is
//!   a file on the machine that ran the cell; [`crate::run`] keeps it.

use std::path::Path;
use std::time::Instant;

use wafer_cache::after::FileSink;
use wafer_cache::{run_policy, Footprint, Input, PreparedTrace, SimConfig};

use crate::cell::{CellParams, CellResult, FtlSummary, VERSION};
use crate::config::{DeviceChoice, Plan};
use crate::error::LabError;
use crate::runner::CellSink;

/// Where a cell sits in the grid: indices into the plan's traces, policies, sizes and
/// devices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridPos {
    /// Index into [`Plan::traces`].
    pub trace: usize,
    /// Index into [`Plan::policies`].
    pub policy: usize,
    /// Index into [`Plan::sizes`].
    pub size: usize,
    /// Index into [`Plan::devices`].
    pub device: usize,
}

impl Plan {
    /// Every cell of the grid, in grid order (trace, then policy, then cache size,
    /// then device); `cell.id()` is each one's stable id.
    pub fn cells(&self) -> Vec<CellParams> {
        self.grid().into_iter().map(|(c, _)| c).collect()
    }

    /// The grid: each cell with its position.
    pub fn grid(&self) -> Vec<(CellParams, GridPos)> {
        let e = &self.exp;
        let mut cells = Vec::new();
        for (ti, (t, _)) in self.traces.iter().enumerate() {
            for (pi, p) in self.policies.iter().enumerate() {
                for (si, (s, _)) in self.sizes.iter().enumerate() {
                    for (di, d) in self.devices.iter().enumerate() {
                        let device_spec = match d {
                            DeviceChoice::None => String::new(),
                            DeviceChoice::Device(_, dev) => {
                                serde_json::to_string(dev).expect("devices serialise")
                            }
                        };
                        let params = CellParams {
                            trace: t.label(),
                            trace_checksum: self.checksums[ti].clone(),
                            policy: p.label(),
                            cache: s.clone(),
                            page_size: self.granularity.unit() as u32,
                            pages_per_block: self.pages_per_block,
                            device: d.label().to_string(),
                            device_spec,
                            aging: match d {
                                DeviceChoice::None => None,
                                DeviceChoice::Device(..) => self.aging.clone(),
                            },
                            warmup: e.warmup,
                            write_miss_fetch: e.write_miss_fetch,
                            flush_at_end: e.flush_at_end,
                            cost: e.cost,
                            series_every: e.outputs.series_every,
                            version: VERSION.to_string(),
                        };
                        let pos = GridPos {
                            trace: ti,
                            policy: pi,
                            size: si,
                            device: di,
                        };
                        cells.push((params, pos));
                    }
                }
            }
        }
        cells
    }

    /// The position of `cell` in this plan's grid, if it belongs to it.
    pub fn position(&self, cell: &CellParams) -> Option<GridPos> {
        self.grid()
            .into_iter()
            .find_map(|(c, pos)| (c == *cell).then_some(pos))
    }
}

/// Decode and densify trace `ti` of `plan` (once per trace; cells share it).
pub fn prepare_trace(plan: &Plan, ti: usize) -> Result<PreparedTrace, LabError> {
    let (t, format) = &plan.traces[ti];
    let mut reader = t.open(*format)?;
    PreparedTrace::read(plan.granularity, reader.as_mut(), &mut |_| {})
        .map_err(|e| LabError::Invalid(format!("{}: {e}", t.source())))
}

/// Compute one cell of `plan` on its own, decoding its trace first (or, with
/// `stream = true`, counting its pages and then streaming it).
pub fn run_cell(plan: &Plan, cell: &CellParams) -> Result<CellResult, LabError> {
    let pos = locate(plan, cell)?;
    if plan.exp.stream {
        let (t, format) = &plan.traces[pos.trace];
        let mut reader = t.open(*format)?;
        let f = Footprint::count(plan.granularity, reader.as_mut(), &mut |_| {})
            .map_err(|e| LabError::Invalid(format!("{}: {e}", t.source())))?;
        return compute(plan, cell, pos, CellInput::Stream(f.pages), None);
    }
    let trace = prepare_trace(plan, pos.trace)?;
    compute(plan, cell, pos, CellInput::Prepared(&trace), None)
}

/// Compute one cell of `plan` on `trace`, which must be [`prepare_trace`] of the
/// cell's trace.
pub fn run_prepared(
    plan: &Plan,
    cell: &CellParams,
    trace: &PreparedTrace,
) -> Result<CellResult, LabError> {
    let pos = locate(plan, cell)?;
    compute(plan, cell, pos, CellInput::Prepared(trace), None)
}

/// Where a cell's accesses come from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum CellInput<'a> {
    /// The trace prepared once and shared.
    Prepared(&'a PreparedTrace),
    /// The trace file (or generator) read by the cell itself; the trace's distinct
    /// pages, for cache sizes given as a share of the footprint.
    Stream(u32),
}

fn locate(plan: &Plan, cell: &CellParams) -> Result<GridPos, LabError> {
    plan.position(cell).ok_or_else(|| LabError::Cell {
        cell: cell.label(),
        msg: format!(
            "cell {} is not in this experiment (different parameters, trace file or wafer version {})",
            cell.id(),
            VERSION
        ),
    })
}

/// Compute a cell: stream the trace through the policy, the after-cache operations
/// into the device's FTL (and into `<after_dir>/<id>.csv` when given).
pub(crate) fn compute(
    plan: &Plan,
    params: &CellParams,
    pos: GridPos,
    input: CellInput<'_>,
    after_dir: Option<&Path>,
) -> Result<CellResult, LabError> {
    let t0 = Instant::now();
    let fail = |msg: String| LabError::Cell {
        cell: params.label(),
        msg,
    };
    let id = params.id();
    let footprint = u64::from(match input {
        CellInput::Prepared(t) => t.universe(),
        CellInput::Stream(pages) => pages,
    });
    let size = plan.sizes[pos.size].1;
    let capacity_pages = size
        .pages(plan.granularity.unit(), footprint)
        .map_err(|e| fail(e.to_string()))?;
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
    let mut ftl = match &plan.devices[pos.device] {
        DeviceChoice::None => None,
        DeviceChoice::Device(_, d) => {
            let mut f = d.build_ftl().map_err(|e| fail(e.to_string()))?;
            if let Some(a) = &plan.aging {
                wafer_ftl::aging::age(&mut f, a).map_err(|e| fail(format!("aging: {e}")))?;
            }
            Some(f)
        }
    };
    let file = match after_dir {
        Some(dir) if e.outputs.keep_after => {
            let p = dir.join(format!("{id}.csv"));
            std::fs::create_dir_all(dir).map_err(|e| LabError::io(dir, e))?;
            Some(FileSink::create(&p, cfg.unit())?)
        }
        _ => None,
    };
    let mut sink = CellSink::new(ftl.as_mut(), cfg.unit(), file);
    let mut reader;
    let input = match input {
        CellInput::Prepared(t) => Input::Prepared(t),
        CellInput::Stream(_) => {
            let (t, format) = &plan.traces[pos.trace];
            reader = t.open(*format)?;
            Input::Stream(reader.as_mut())
        }
    };
    let cache = run_policy(
        &plan.policies[pos.policy],
        input,
        &cfg,
        &mut sink,
        &mut |_| {},
    )
    .map_err(|e| fail(e.to_string()))?;
    let (wrapped, write_pattern) = sink.into_parts();
    let ftl = ftl.map(|f| {
        use wafer_ftl::Ftl;
        FtlSummary::from_metrics(&f.metrics(), wrapped)
    });
    Ok(CellResult {
        id,
        params: params.clone(),
        capacity_pages,
        footprint_pages: footprint,
        elapsed_s: t0.elapsed().as_secs_f64(),
        cache,
        ftl,
        write_pattern,
    })
}
