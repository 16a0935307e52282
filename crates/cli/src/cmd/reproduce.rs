//! `wafer reproduce <paper>`: run a paper's design on stand-in workloads and print the
//! paper's claims next to what wafer measured (presets in `wafer_lab::presets`).

use std::io::Write;
use std::path::{Path, PathBuf};

use wafer_lab::presets::{self, Preset, NOTE};
use wafer_lab::Preface;

use super::run::run_plan;
use super::{unknown, UsageError};

/// Arguments of `wafer reproduce`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Papers: ts-clock, bua, craw, sorted-clock, apu.
apu runs paper 004's micro benchmarks on the timed SSD (see docs/experiments.md);
--requests sets its least requests per cell (default 2000); a cell with a cache runs
enough to write twice its lines, and the report lists each cell's count.
Examples:
  wafer reproduce ts-clock
  wafer reproduce ts-clock --quick
  wafer reproduce craw -o out/craw --jobs 2
  wafer reproduce apu --requests 1000")]
pub struct Args {
    /// Paper preset: ts-clock, bua, craw, sorted-clock, apu.
    pub paper: String,
    /// Least requests per cell of the apu preset (cells with a cache run enough to
    /// fill it).
    #[arg(long, default_value_t = 2000)]
    pub requests: u64,
    /// Output folder (default: wafer-out/<paper>).
    #[arg(short = 'o', long, visible_alias = "output")]
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores; at most one per core).
    #[arg(short = 'j', long, default_value_t = 0)]
    pub jobs: usize,
    /// The same design on the first trace of each group at its smallest and largest
    /// cache size (devices and aging unchanged; apu: every benchmark, at 8 and 256 MB):
    /// a check that runs in about a minute.
    #[arg(long)]
    pub quick: bool,
}

/// Run `preset` (its `quick` form if asked) into `out`; print the setup table, then
/// each claim's comparison and verdict.
pub fn reproduce(
    preset: &'static Preset,
    out: &Path,
    jobs: usize,
    quick: bool,
) -> anyhow::Result<()> {
    let plan = preset.plan(quick)?;
    // Held to the end: the claims figure is written after the grid's outputs.
    let _lock = wafer_lab::store::Store::new(out).claim(&plan.trace_files())?;
    let mut stdout = std::io::stdout();
    let setup = preset.setup_table(&plan);
    // A group whose traces are not here is left out, saying how to fetch them.
    let skipped: Vec<String> = preset.skipped().iter().map(|s| s.line()).collect();
    writeln!(stdout, "{}: {}", preset.name, preset.paper)?;
    writeln!(stdout, "note: {NOTE}")?;
    for l in preset.setup_lines(&plan).iter().chain(&skipped) {
        writeln!(stdout, "{l}")?;
    }
    // Where each claim holds runs first, each study an experiment of its own in its
    // own folder through the same runner, so that the preset's report shows them.
    let mut sensitivity = Vec::new();
    for (s, plan) in preset.sensitivity_plans(quick)? {
        let dir = out.join("sensitivity").join(s.slug);
        writeln!(stdout, "sensitivity: {} ({})", s.axis, dir.display())?;
        let preface = move |results: &[wafer_lab::CellResult]| Preface {
            lines: preset.sensitivity_lines(&s, results),
            after: vec![preset.sensitivity_chart(&s, results)],
            ..Preface::default()
        };
        let done = run_plan(plan, &dir, jobs, Box::new(preface))?;
        let results = done.outcome.results;
        let lines = preset.sensitivity_lines(&s, &results);
        let chart = preset.sensitivity_chart(&s, &results);
        let fig = wafer_lab::figure_file::write_figure(&dir, "where-it-holds", &chart)?;
        sensitivity.push((lines, chart, fig));
        writeln!(stdout)?;
    }
    let extra = sensitivity.clone();
    // The report opens with the verdict table and the claims figure; the setup is a
    // table, and the comparison as printed is kept whole below them.
    let preface = move |results: &[wafer_lab::CellResult]| {
        let mut p = preset.preface(&setup, results);
        p.lines.extend(skipped.iter().cloned());
        for (sens, chart, _) in &extra {
            p.printed.extend(sens.iter().cloned());
            p.after.push(chart.clone());
        }
        p
    };
    let done = run_plan(plan, out, jobs, Box::new(preface))?;
    let results = &done.outcome.results;
    let cmp = preset.compare(results);
    writeln!(stdout)?;
    for l in cmp {
        writeln!(stdout, "{l}")?;
    }
    let chart = preset.claims_chart(results);
    let fig = wafer_lab::figure_file::write_figure(&out.join("figures"), "claims", &chart)?;
    writeln!(stdout, "claims at a glance: {}", fig.display())?;
    for (lines, _, fig) in sensitivity {
        writeln!(stdout)?;
        for l in lines {
            writeln!(stdout, "{l}")?;
        }
        writeln!(stdout, "figure: {}", fig.display())?;
    }
    Ok(())
}

/// Run the apu preset (paper 004) into `out`.
fn apu(args: &Args, out: &Path) -> anyhow::Result<()> {
    use wafer_lab::apu::{self, ApuStudy};
    if args.requests == 0 {
        return Err(UsageError("--requests must be at least 1".into()).into());
    }
    let study = ApuStudy {
        requests: args.requests,
        ..if args.quick {
            ApuStudy::quick()
        } else {
            ApuStudy::paper()
        }
    };
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
        let out = args
            .out
            .clone()
            .unwrap_or_else(|| Path::new("wafer-out").join("apu"));
        return apu(&args, &out);
    }
    let preset = presets::find(&args.paper).map_err(|e| {
        let known = presets::PRESETS.iter().map(|p| p.name).chain(["apu"]);
        unknown(e, &args.paper, known)
    })?;
    let out = args
        .out
        .unwrap_or_else(|| Path::new("wafer-out").join(preset.name));
    reproduce(preset, &out, args.jobs, args.quick)
}
