//! `wafer trace prepare`: decode and densify a trace once and keep the result beside
//! it (`TRACE.wprep`, [`wafer_lab::prepared`]), so that every later run of that
//! trace at that granularity (`wafer sim`, `wafer run`, the Python API, Dask workers)
//! loads it instead of preparing the trace again. The file records what it was
//! prepared from; a run that does not match it says so on stderr and prepares from
//! the trace.

use std::path::{Path, PathBuf};

use wafer_lab::experiment::TraceDef;
use wafer_lab::options::{ByteSize, PAGE_SIZE};
use wafer_lab::{Access, Experiment};

use crate::cmd::refuse_input_as_output;
use crate::cmd::sim::{flag, lab_error};

/// Arguments of `wafer trace prepare`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  wafer trace prepare trace.wtr                          # writes trace.wtr.wprep
  wafer sim -t trace.wtr -p lru -c 5%                    # now loads trace.wtr.wprep
  wafer trace prepare cp.bin --format oracle-general --granularity record
  wafer sim -t cp.bin --format oracle-general --granularity record -p clock -c 1000p
A prepared trace holds one granularity (page size, or record accesses) and one way of
reading the trace (format, columns); prepare again to change them. For a trace in a
read-only folder, prepare a symbolic link to it in a writable one.")]
pub struct Args {
    /// Trace file.
    pub file: PathBuf,
    #[command(flatten)]
    pub source: crate::cmd::mapping::TraceArgs,
    /// Page size the runs will use.
    #[arg(long, value_name = "SIZE", default_value = PAGE_SIZE)]
    pub page_size: ByteSize,
    /// Page accesses, or one access per record.
    #[arg(long, value_enum, default_value_t = Access::default())]
    pub granularity: Access,
}

/// Run `wafer trace prepare`.
pub fn run(args: Args) -> anyhow::Result<()> {
    args.source.read_options()?;
    std::fs::File::open(&args.file).map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    // `TRACE.wprep` is written through a symlink; one to the trace (or a hard link)
    // would replace the trace with its prepared file.
    refuse_input_as_output(&wafer_lab::prepared::path_of(&args.file), &[&args.file])?;
    // A plan resolves the format and checksums the file exactly as a run's does, so
    // the prepared file records what a run will compare; the cache options (one
    // policy, one size) are placeholders that do not enter it.
    let mut exp = Experiment::new(
        "wafer trace prepare",
        vec![TraceDef {
            format: args.source.format.clone(),
            mapping: args.source.mapping(),
            cache_sizes: None,
            ..TraceDef::file(args.file.clone())
        }],
        vec!["lru".into()],
        vec!["1p".into()],
    );
    exp.options.granularity = args.granularity;
    exp.options.page_size = args.page_size.clone();
    let plan = exp.plan_as(&flag, Path::new("")).map_err(lab_error)?;
    let bar = crate::progress::counter(&format!("preparing {}", args.file.display()));
    let (path, t) = wafer_lab::prepared::keep(&plan, 0)?;
    bar.finish_and_clear();
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!(
        "{} -> {}: {} requests, {} accesses, {} distinct pages ({}), {}",
        args.file.display(),
        path.display(),
        t.requests(),
        t.accesses(),
        t.universe(),
        wafer_lab::prepared::describe(plan.granularity()),
        wafer_trace::units::format_size(bytes)
    );
    Ok(())
}
