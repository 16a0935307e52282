//! `wafer trace head`: the first requests of a trace, normalised (ns, bytes), one per
//! line: `time_ns op dev offset len` (time `-` when the trace has none).

use std::io::Write;
use std::path::PathBuf;

use wafer_trace::reader::BATCH;
use wafer_trace::ReadOptions;

/// Arguments of `wafer trace head`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Example:
  wafer trace head ../shared/traces/disksim/tpcc-small.trace -n 5")]
pub struct Args {
    /// Trace file.
    pub file: PathBuf,
    /// Requests to print.
    #[arg(short = 'n', long = "lines", default_value_t = 10)]
    pub n: u64,
    #[command(flatten)]
    pub source: crate::cmd::mapping::TraceArgs,
    /// Lackey traces: include instruction fetches.
    #[arg(long)]
    pub instructions: bool,
}

/// Run `wafer trace head`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let opts = ReadOptions {
        instructions: args.instructions,
        ..args.source.read_options()?
    };
    let mut reader = wafer_trace::open(&args.file, &opts)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    writeln!(
        out,
        "{:>20} {:>2} {:>7} {:>16} {:>10}",
        "time_ns", "op", "dev", "offset", "len"
    )?;
    let mut batch = Vec::with_capacity(BATCH);
    let mut left = args.n;
    while left > 0 && reader.read_batch(&mut batch)? {
        for r in batch
            .iter()
            .take(usize::try_from(left).unwrap_or(usize::MAX))
        {
            let time = if r.has_time() {
                r.time_ns.to_string()
            } else {
                "-".to_string()
            };
            writeln!(
                out,
                "{time:>20} {:>2} {:>7} {:>16} {:>10}",
                r.op.letter(),
                r.dev,
                r.offset,
                r.len
            )?;
            left -= 1;
        }
    }
    out.flush()?;
    Ok(())
}
