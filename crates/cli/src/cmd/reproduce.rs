//! `wafer reproduce <paper>`: run a paper's design on stand-in workloads and print the
//! paper's claims next to what wafer measured (presets in `wafer_lab::presets`).

use std::io::Write;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use wafer_lab::presets::{self, Preset};
use wafer_lab::spec::Measure;

use super::run::run_plan;
use super::{unknown, UsageError};

/// Arguments of `wafer reproduce`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Papers: ts-clock, bua, craw, sorted-clock, apu.
apu runs paper 004's micro benchmarks, IOzone (a generator) and PostMark (the bundled
capture) on the timed SSD (see docs/experiments.md); --requests sets the least requests
per micro benchmark cell (default 2000); a cell with a cache runs enough to write twice
its lines, IOzone and PostMark run whole, and the report lists each cell's count.
Each paper study is a study file (studies/NAME.toml in the repository); --export
writes it out to edit, and `wafer run FILE` runs the edited file the same way.
Examples:
  wafer reproduce ts-clock
  wafer reproduce ts-clock --quick
  wafer reproduce ts-clock --quick --measure as-captured
  wafer reproduce craw --export craw.toml
  wafer reproduce craw -o out/craw --jobs 2
  wafer reproduce apu --requests 1000")]
pub struct Args {
    /// Paper study: ts-clock, bua, craw, sorted-clock, apu; or a study file (TOML).
    pub paper: String,
    /// Write the study file (its quick form with --quick) to FILE to edit, and run
    /// nothing; `wafer run FILE` runs it.
    #[arg(long, value_name = "FILE")]
    pub export: Option<PathBuf>,
    /// Least requests per micro benchmark cell of the apu preset (cells with a cache
    /// run enough to fill it; IOzone and PostMark run whole).
    #[arg(long, default_value_t = 2000)]
    pub requests: u64,
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
    presets::reproduce(&Arc::new(study), out, quick, &mut stdout, &mut run)?;
    Ok(())
}

/// Run the apu preset (paper 004) into `out`.
fn apu(args: &Args, out: &Path) -> anyhow::Result<()> {
    use wafer_lab::apu::{self, ApuStudy};
    if args.requests == 0 {
        return Err(UsageError("--requests must be at least 1".into()).into());
    }
    let mut study = ApuStudy {
        requests: args.requests,
        ..if args.quick {
            ApuStudy::quick()
        } else {
            ApuStudy::paper()
        }
    };
    if let Some(r) = args.replicates {
        if r == 0 {
            return Err(UsageError("--replicates must be at least 1".into()).into());
        }
        study.replicates = r;
    }
    if !args.measure.is_empty() {
        study.measures = args.measure.clone();
    }
    let mut stdout = std::io::stdout();
    writeln!(
        stdout,
        "apu: SSD on-board cache with automatic periodic update (paper 004)"
    )?;
    writeln!(stdout, "note: {}", apu::NOTE)?;
    for l in study.setup_lines() {
        writeln!(stdout, "{l}")?;
    }
    for l in study.requests_lines() {
        writeln!(stdout, "{l}")?;
    }
    let opts = wafer_lab::RunOptions {
        out: Some(out.to_path_buf()),
        jobs: args.jobs,
        stop: crate::interrupt::graceful(),
        ..wafer_lab::RunOptions::default()
    };
    let mut obs = super::run::Bar::default();
    let done = apu::execute(&std::sync::Arc::new(study), &opts, &mut obs)?;
    obs.finish();
    writeln!(
        stdout,
        "{} cells ({} computed, {} reused); report {}",
        done.results.len(),
        done.computed,
        done.reused,
        done.report.display()
    )?;
    writeln!(stdout)?;
    for l in &done.comparison {
        writeln!(stdout, "{l}")?;
    }
    if done.interrupted {
        anyhow::bail!(
            "interrupted: {} of {} cells are stored; run the same command again to finish",
            done.results.len(),
            done.total
        );
    }
    Ok(())
}

/// Run `wafer reproduce`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.paper == "apu" {
        if args.export.is_some() {
            return Err(UsageError("--export: apu is not a study file yet".into()).into());
        }
        let out = args
            .out
            .clone()
            .unwrap_or_else(|| Path::new("wafer-out").join("apu"));
        return apu(&args, &out);
    }
    // A study file, or a built-in study by name.
    let file = Path::new(&args.paper);
    let mut study = if args.paper.ends_with(".toml") || file.is_file() {
        Preset::load(file).map_err(super::config)?
    } else {
        presets::find(&args.paper).map_err(|e| {
            let known = presets::paper_names().into_iter().chain(["apu"]);
            unknown(e, &args.paper, known)
        })?
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
