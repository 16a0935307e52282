//! `wafer trace ...`: inspect, convert, generate and capture traces.

use clap::Subcommand;

/// Trace subcommands.
#[derive(Subcommand, Debug)]
pub enum TraceCommand {}

/// Run a trace subcommand.
pub fn run(c: TraceCommand) -> anyhow::Result<()> {
    match c {}
}
