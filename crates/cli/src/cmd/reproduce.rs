//! `wafer reproduce <paper>`: run a paper's design on stand-in workloads and print the
//! paper's claims next to what wafer measured (presets in `wafer_lab::presets`).

use std::path::{Path, PathBuf};

use wafer_lab::presets::{self, Preset, NOTE};
use wafer_lab::Preface;

use super::run::run_plan;
use super::UsageError;

/// Arguments of `wafer reproduce`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Papers: ts-clock, bua, craw, sorted-clock (apu needs the timed SSD model, not in this build).
Examples:
  wafer reproduce ts-clock
  wafer reproduce craw -o out/craw --jobs 2"
)]
pub struct Args {
    /// Paper preset: ts-clock, bua, craw, sorted-clock.
    pub paper: String,
    /// Output folder (default: wafer-out/<paper>).
    #[arg(short = 'o', long)]
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long, default_value_t = 0)]
    pub jobs: usize,
}

/// Run `preset` into `out` and print the comparison.
pub fn reproduce(preset: &Preset, out: &Path, jobs: usize) -> anyhow::Result<()> {
    let plan = preset.plan()?;
    println!("{}: {}", preset.name, preset.paper);
    println!("note: {NOTE}");
    let head = vec![
        format!("{}: {}", preset.name, preset.paper),
        NOTE.to_string(),
    ];
    let preface = |results: &[wafer_lab::CellResult]| {
        let mut lines = head.clone();
        lines.extend(preset.compare(results));
        Preface { lines }
    };
    let done = run_plan(&plan, out, jobs, &preface)?;
    let cmp = preset.compare(&done.outcome.results);
    println!();
    for l in cmp {
        println!("{l}");
    }
    Ok(())
}

/// Run `wafer reproduce`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let preset = presets::find(&args.paper).map_err(|e| UsageError(e.to_string()))?;
    let out = args
        .out
        .unwrap_or_else(|| Path::new("wafer-out").join(preset.name));
    reproduce(preset, &out, args.jobs)
}
