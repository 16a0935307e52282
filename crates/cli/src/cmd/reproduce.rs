//! `wafer reproduce <paper>`: run a paper's design on stand-in workloads and print the
//! paper's claims next to what wafer measured (presets in `wafer_lab::presets`).

use std::path::{Path, PathBuf};

use std::sync::Arc;

use wafer_lab::apu::{self, ApuOutcome, ApuStudy};
use wafer_lab::presets::{self, Preset};
use wafer_lab::spec::Measure;

use super::run::run_plan;
use super::unknown;

/// Arguments of `wafer reproduce`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Papers: ts-clock, bua, craw, sorted-clock, apu.
Each paper study is a study file (studies/NAME.toml in the repository); --export
writes it out to edit, and `wafer run FILE` runs the edited file the same way. apu's
file is an on-board cache study (`[board]`: paper 004's workloads on the timed SSD;
docs/experiments.md).
Examples:
  wafer reproduce ts-clock
  wafer reproduce ts-clock --quick
  wafer reproduce ts-clock --quick --measure as-captured
  wafer reproduce craw --export craw.toml
  wafer reproduce craw -o out/craw --jobs 2
  wafer reproduce apu --quick --replicates 1")]
pub struct Args {
    /// Paper study: ts-clock, bua, craw, sorted-clock, apu; or a study file (TOML).
    pub paper: String,
    /// Write the study file (its quick form with --quick) to FILE to edit, and run
    /// nothing; `wafer run FILE` runs it.
    #[arg(long, value_name = "FILE")]
    pub export: Option<PathBuf>,
    /// Output folder (default: wafer-out/<paper>).
    #[arg(short = 'o', long, visible_alias = "output")]
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores; at most one per core).
    #[arg(short = 'j', long, default_value_t = 0)]
    pub jobs: usize,
    /// The same design on the first trace of each group at its smallest and largest
    /// cache size, with at most 3 replicates (devices and aging unchanged; apu: every
    /// workload, at 8 and 256 MB, and the 16 MB idle-threshold sweep): a check in minutes (`--replicates 1`: about one).
    #[arg(long)]
    pub quick: bool,
    /// Independent agings of every device cell (default: the study file's, at most
    /// 3 with --quick); each claim is printed as the median with its range.
    #[arg(long, value_name = "R")]
    pub replicates: Option<u32>,
    /// Measurement views of the device cells, comma-separated: as-captured, steady
    /// (default: the study file's; the paper studies run both, each claim judged
    /// under each).
    #[arg(long, value_name = "VIEWS", value_delimiter = ',', value_parser = view)]
    pub measure: Vec<Measure>,
}

/// A measurement view by name.
fn view(s: &str) -> Result<Measure, String> {
    Measure::from_name(s).ok_or_else(|| format!("expected as-captured or steady, not `{s}`"))
}

/// Run `study` (its `quick` form if asked) into `out`: the lab's study runner
/// ([`presets::reproduce`]) with this front end's progress bar, Ctrl-C and summary
/// lines; it prints the setup table, then each claim's comparison and verdict.
pub fn reproduce(study: Preset, out: &Path, jobs: usize, quick: bool) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout();
    let mut run = |plan, dir: &Path, preface| run_plan(plan, dir, jobs, preface);
    let mut run_board = |board: &Arc<ApuStudy>, dir: &Path| run_board(board, dir, jobs);
    presets::reproduce(
        &Arc::new(study),
        out,
        quick,
        &mut stdout,
        &mut run,
        &mut run_board,
    )?;
    Ok(())
}

/// Run an on-board cache study into `out` with a progress bar and a Ctrl-C handler,
/// then say what was computed and where the report is.
fn run_board(study: &Arc<ApuStudy>, out: &Path, jobs: usize) -> anyhow::Result<ApuOutcome> {
    let opts = wafer_lab::RunOptions {
        out: Some(out.to_path_buf()),
        jobs,
        stop: crate::interrupt::graceful(),
        ..wafer_lab::RunOptions::default()
    };
    let mut obs = super::run::Bar::default();
    let done = apu::execute(study, &opts, &mut obs)?;
    obs.finish();
    println!(
        "{} cells: computed {}, reused {}; report {}",
        done.total,
        done.computed,
        done.reused,
        done.report.display()
    );
    if done.interrupted {
        anyhow::bail!(
            "interrupted: {} of {} cells are stored; run the same command again to finish",
            done.results.len(),
            done.total
        );
    }
    Ok(done)
}

/// Run `wafer reproduce`.
pub fn run(args: Args) -> anyhow::Result<()> {
    // A study file, or a built-in study by name.
    let file = Path::new(&args.paper);
    let mut study = if args.paper.ends_with(".toml") || file.is_file() {
        Preset::load(file).map_err(super::config)?
    } else {
        presets::find(&args.paper).map_err(|e| unknown(e, &args.paper, presets::paper_names()))?
    };
    study.replicates = args.replicates;
    if !args.measure.is_empty() {
        study.measure = Some(args.measure.clone());
    }
    if let Some(to) = &args.export {
        wafer_lab::store::write_atomic(to, study.export(args.quick).as_bytes())?;
        println!(
            "wrote {} ({}{}); run it with `wafer run {}`",
            to.display(),
            study.name,
            if args.quick { ", quick form" } else { "" },
            to.display()
        );
        return Ok(());
    }
    let out = args
        .out
        .unwrap_or_else(|| Path::new("wafer-out").join(&study.name));
    reproduce(study, &out, args.jobs, args.quick)
}
