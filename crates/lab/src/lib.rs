//! wafer-lab: studies over the whole pipeline.
//!
//! A run is described once: an [`Experiment`] (an experiment file, `wafer sim`'s
//! arguments or the Python API's keywords) is validated into a [`Plan`] whose grid of
//! traces x policies x cache sizes x devices is a list of [`RunSpec`]s, each computed
//! from its spec and where its trace is alone ([`CellTask`], [`TaskStudy`]: what a Dask
//! worker gets). Every study
//! (that grid, [`GridStudy`]; paper 004's timed-SSD grid, [`apu::ApuStudy`]) is a
//! [`Study`] run by the one resumable, parallel runner [`study::run`], which keeps
//! each finished cell in the [`store`] the moment it finishes. [`figures`], [`plot`]
//! and [`report`] turn results into figures (SVG, PNG and PDF, [`figure_file`]) and one self-contained HTML
//! report; [`presets`] holds the paper reproductions behind `wafer reproduce` and
//! `wafer demo`. [`execute`] runs a grid and writes all of it.
//!
//! ```no_run
//! use std::sync::Arc;
//! use wafer_lab::{execute, Experiment, GridStudy, Quiet, RunOptions};
//! let plan = Experiment::load("exp.toml".as_ref())?;
//! let out = std::path::Path::new("out");
//! let study = Arc::new(GridStudy::new(plan, Some(out)));
//! let done = execute(&study, &RunOptions::stored(out, 0), &mut Quiet)?;
//! println!("{} cells, report in out/report.html", done.outcome.total);
//! # Ok::<(), wafer_lab::LabError>(())
//! ```
#![deny(missing_docs)]

// The modules, in folders by role; a role uses only its own modules and those of the
// roles before it (`tests/lab/layout.rs` checks it, and that no modules import in a circle).
// Each module is reached by its own name (`wafer_lab::experiment`).
// Roles, in order: describe, keep, judge, show, run, studies.
mod describe;
mod judge;
mod keep;
mod run;
mod show;
mod studies;

pub use describe::{
    board, bounds, error, experiment, known_traces, options, spec, study_def, task, trace_folders,
};
pub use judge::claims;
pub use keep::{lock, parquet_file, prepared, result, store};
pub use run::{compute, curve, grid, steady, study, timed};
pub use show::{figure_file, figures, pdf, plot, png, provenance, report};
pub use studies::{apu, presets};

pub use compute::{run_cell, run_task, CellSink};
pub use error::LabError;
pub use experiment::{Experiment, GridPos, Plan};
pub use grid::{execute, publish, Done, GridStudy, TaskStudy};
pub use options::EngineOptions;
pub use provenance::Provenance;
pub use report::Preface;
pub use result::{CellResult, FtlSummary, Outcome};
pub use spec::{Access, Measure, PageSize, RunSpec, VERSION};
pub use study::{Observer, Quiet, RunOptions, Study};
pub use task::{CellTask, TraceSource};
