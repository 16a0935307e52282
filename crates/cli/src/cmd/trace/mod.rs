//! `wafer trace ...`: inspect, convert, generate and capture traces.

use clap::Subcommand;

pub mod capture;
pub mod convert;
pub mod gen;
pub mod head;
pub mod info;
pub mod prepare;

/// Trace subcommands.
#[derive(Subcommand, Debug)]
pub enum TraceCommand {
    /// Summary statistics: requests, R/W split, distinct pages, sizes, timing.
    Info(Box<info::Args>),
    /// Print the first requests, normalised (ns, bytes).
    Head(Box<head::Args>),
    /// Write a synthetic trace (uniform, zipf, block-utilization, paper 004 benchmarks, ...).
    Gen(Box<gen::Args>),
    /// Convert a trace to .wtr, CSV or a fio iolog, version 2 or 3 (streaming).
    Convert(Box<convert::Args>),
    /// Decode and densify a trace once and keep it beside the trace (TRACE.wprep):
    /// later runs load it instead of preparing the trace again.
    Prepare(Box<prepare::Args>),
    /// Run a command under strace (or valgrind lackey) and write its I/O as a trace.
    Capture(capture::Args),
}

/// Run a trace subcommand.
pub fn run(c: TraceCommand) -> anyhow::Result<()> {
    match c {
        TraceCommand::Info(a) => info::run(*a),
        TraceCommand::Head(a) => head::run(*a),
        TraceCommand::Gen(a) => gen::run(*a),
        TraceCommand::Convert(a) => convert::run(*a),
        TraceCommand::Prepare(a) => prepare::run(*a),
        TraceCommand::Capture(a) => capture::run(a),
    }
}
