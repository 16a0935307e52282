//! wafer-lab: studies over the whole pipeline.
//!
//! A run is described once: an [`Experiment`] (an experiment file, `wafer sim`'s
//! arguments or the Python API's keywords) is validated into a [`Plan`] whose grid of
//! traces x policies x cache sizes x devices is a list of [`RunSpec`]s. Every study
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

pub mod apu;
pub mod bounds;
pub mod claims;
pub mod compute;
pub mod curve;
pub mod error;
pub mod experiment;
pub mod figure_file;
pub mod figures;
pub mod grid;
pub mod known_traces;
pub mod lock;
pub mod options;
pub mod parquet_file;
pub mod pdf;
pub mod plot;
pub mod png;
pub mod prepared;
pub mod presets;
pub mod provenance;
pub mod report;
pub mod result;
pub mod spec;
pub mod steady;
pub mod store;
pub mod study;
pub mod study_def;
pub mod timed;
pub mod trace_folders;

pub use compute::{run_cell, CellSink};
pub use error::LabError;
pub use experiment::{Experiment, GridPos, Plan};
pub use grid::{execute, publish, Done, GridStudy, Outcome};
pub use options::EngineOptions;
pub use provenance::Provenance;
pub use report::Preface;
pub use result::{CellResult, FtlSummary};
pub use spec::{Access, Measure, PageSize, RunSpec, VERSION};
pub use study::{Observer, Quiet, RunOptions, Study};
