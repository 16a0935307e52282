//! `wafer trace ...`: inspect, convert, generate and capture traces.

use clap::Subcommand;

pub mod gen;
pub mod head;
pub mod info;

/// Trace subcommands.
#[derive(Subcommand, Debug)]
pub enum TraceCommand {
    /// Summary statistics: requests, R/W split, distinct pages, sizes, timing.
    Info(info::Args),
    /// Print the first requests, normalised (ns, bytes).
    Head(head::Args),
    /// Write a synthetic trace (uniform, zipf, block-utilization, paper 004 benchmarks, ...).
    Gen(Box<gen::Args>),
}

/// Run a trace subcommand.
pub fn run(c: TraceCommand) -> anyhow::Result<()> {
    match c {
        TraceCommand::Info(a) => info::run(a),
        TraceCommand::Head(a) => head::run(a),
        TraceCommand::Gen(a) => gen::run(*a),
    }
}
