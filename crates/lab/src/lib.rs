//! wafer-lab: experiments over the whole pipeline (issue 5).
//!
//! An [`Experiment`] file describes a grid (traces x policies x cache sizes x
//! devices); [`config`] validates it into a [`Plan`]; [`runner`] computes the missing
//! cells in parallel and [`store`] keeps each one the moment it finishes; [`figures`],
//! [`plot`] and [`report`] turn the results into figures (SVG, PNG and PDF,
//! [`figure_file`]) and one self-contained HTML report; [`presets`] holds the paper reproductions behind `wafer reproduce` and
//! `wafer demo`. [`execute`] does all of it.
//!
//! ```no_run
//! use wafer_lab::{execute, Experiment, Quiet, RunOptions};
//! let plan = Experiment::load("exp.toml".as_ref())?;
//! let opts = RunOptions { out: "out".into(), jobs: 0, stop: Default::default() };
//! let done = execute(&plan, &opts, &mut Quiet, &|_| Default::default())?;
//! println!("{} cells, report in out/report.html", done.outcome.total);
//! # Ok::<(), wafer_lab::LabError>(())
//! ```
#![deny(missing_docs)]

pub mod apu;
pub mod cell;
pub mod cells;
pub mod config;
pub mod error;
pub mod figure_file;
pub mod figures;
pub mod parquet_file;
pub mod pdf;
pub mod plot;
pub mod png;
pub mod presets;
pub mod provenance;
pub mod report;
pub mod runner;
pub mod store;

pub use cell::{CellParams, CellResult, FtlSummary, VERSION};
pub use cells::{run_cell, run_prepared, GridPos};
pub use config::{Experiment, Plan};
pub use error::LabError;
pub use provenance::Provenance;
pub use report::Preface;
pub use runner::{run, Observer, Outcome, Quiet, RunOptions};

use std::path::PathBuf;

/// What [`execute`] produced.
#[derive(Clone, Debug)]
pub struct Done {
    /// The run.
    pub outcome: Outcome,
    /// SVG files written (each with a PNG and a PDF next to it).
    pub figures: Vec<PathBuf>,
    /// The report, if written.
    pub report: Option<PathBuf>,
}

/// Run `plan`, then write `results.csv`, `results.json`, `provenance.json`,
/// `figures/*.svg` (and `.png`, `.pdf`) and `report.html` under `opts.out` (also after an interruption, from the cells that
/// are finished). `preface` makes the report's opening notes from the results (a
/// preset's claims next to the measurements).
pub fn execute(
    plan: &Plan,
    opts: &RunOptions,
    obs: &mut dyn Observer,
    preface: &dyn Fn(&[CellResult]) -> Preface,
) -> Result<Done, LabError> {
    let outcome = runner::run(plan, opts, obs)?;
    let st = store::Store::new(&opts.out);
    st.write_tables(&outcome.results)?;
    let prov = Provenance::here();
    let json = serde_json::to_vec_pretty(&prov).map_err(|e| LabError::Invalid(e.to_string()))?;
    store::write_atomic(&opts.out.join("provenance.json"), &json)?;
    let figs = figures::draw(plan, &outcome.results, &outcome.traces);
    let mut paths = Vec::new();
    for f in &figs {
        paths.push(figure_file::write_figure(
            &opts.out.join("figures"),
            &f.stem,
            &f.chart,
        )?);
    }
    let report = if plan.exp.outputs.report {
        let p = opts.out.join("report.html");
        store::write_atomic(
            &p,
            report::html(plan, &outcome, &figs, &preface(&outcome.results), &prov).as_bytes(),
        )?;
        Some(p)
    } else {
        None
    };
    Ok(Done {
        outcome,
        figures: paths,
        report,
    })
}
