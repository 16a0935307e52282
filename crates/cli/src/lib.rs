//! The `wafer` command: thin glue that parses arguments and calls the library crates.
//! [`main`] is the whole command; the `wafer` binary and the Python package's `wafer`
//! console script both call it.
//!
//! Exit codes: 0 success, 1 runtime error, 2 usage error (clap's own errors included).
//! Errors are printed as one line on stderr: `wafer: <message>`; so is a panic (a bug,
//! or an allocation too large to size: `wafer: out of memory (...)`), which exits 1
//! after unwinding, so temporary output files are removed. With `RUST_BACKTRACE` set
//! a panic is reported by Rust's default hook, backtrace included.

// Doc comments on the argument structs are clap's help text, written for a terminal
// (`<file>`, `[a, b]`), not for rustdoc.
#![allow(rustdoc::invalid_html_tags, rustdoc::broken_intra_doc_links)]

mod cmd;
mod download;
mod interrupt;
pub mod oom;
mod progress;

use clap::{Parser, Subcommand};

const EXAMPLES: &str = "\
Examples:
  wafer demo                                   run the bundled study and write a report
  wafer trace info ../shared/traces/fiu/fiu_mail_cheetah_10k.blkparse
  wafer trace convert in.csv.gz out.wtr        convert once, read fast forever
  wafer trace gen zipf --theta 0.99 --requests 1000000 -o zipf.wtr
  wafer sim -t trace.wtr -p lru -p ts-clock -c 16MiB --block-size 4MiB
  wafer curve -t trace.wtr --plot mrc.svg      exact LRU at every cache size
  wafer ftl -t after.wtr --device microsd-16g --aging
  wafer ssd --gen random-write --cache-size 8MiB --ways 2 --apu lru
  wafer run experiment.toml
  wafer traces fetch telegram_exec             the public Pixel 6a trace the presets use";

/// wafer: a trace-driven laboratory for flash-aware buffer caches.
#[derive(Parser, Debug)]
#[command(name = "wafer", version, about, after_help = EXAMPLES, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Inspect, convert, generate and capture traces.
    #[command(subcommand)]
    Trace(cmd::trace::TraceCommand),
    /// Replay a trace through cache policies and report hits and storage I/O.
    Sim(Box<cmd::sim::Args>),
    /// Results at every cache size: exact LRU, SHARDS, or any policy scaled down.
    Curve(Box<cmd::curve::Args>),
    /// List the replacement policies and their parameters.
    Policies(cmd::policies::Args),
    /// Run an experiment grid from a TOML file (resumable; tables, figures, report).
    Run(cmd::run::Args),
    /// Run a paper's design on stand-in workloads and compare with its claims.
    Reproduce(cmd::reproduce::Args),
    /// Replay a trace on a simulated flash device (FAST, page- or block-level FTL).
    Ftl(Box<cmd::ftl::Args>),
    /// Timed SSD with an on-board write cache and automatic periodic update (paper 004).
    Ssd(Box<cmd::ssd::Args>),
    /// Run a small TS-CLOCK-style study on a bundled trace and write a report.
    Demo(cmd::demo::Args),
    /// Play a trace on a real file or block device (O_DIRECT) and time it.
    Replay(Box<cmd::replay::Args>),
    /// List the public third-party traces wafer knows and where they are; `fetch` them.
    Traces(cmd::traces::Args),
}

/// Run `wafer` with `args` (the program name first); returns the exit status.
pub fn main<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    // First of all, so that no moment of the run takes SIGINT's default action.
    interrupt::install();
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0; usage errors exit 2.
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    install_panic_hook();
    let dispatch = move || match cli.command {
        Command::Trace(c) => cmd::trace::run(c),
        Command::Sim(a) => cmd::sim::run(*a),
        Command::Curve(a) => cmd::curve::run(*a),
        Command::Policies(a) => cmd::policies::run(a),
        Command::Run(a) => cmd::run::run(a),
        Command::Reproduce(a) => cmd::reproduce::run(a),
        Command::Demo(a) => cmd::demo::run(a),
        Command::Ftl(a) => cmd::ftl::run(*a),
        Command::Ssd(a) => cmd::ssd::run(*a),
        Command::Replay(a) => cmd::replay::run(*a),
        Command::Traces(a) => cmd::traces::run(a),
    };
    // The hook has printed the line; the state the panic left is not used again.
    let Ok(result) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(dispatch)) else {
        return 1;
    };
    match result {
        Ok(()) => 0,
        Err(err) if is_broken_pipe(&err) => 0,
        Err(err) => {
            eprintln!("wafer: {}", one_line(&err));
            // A missing trace is fixed before the run, like a usage error: fetch it.
            let refused = matches!(
                err.downcast_ref::<wafer_lab::LabError>(),
                Some(wafer_lab::LabError::Refused(_) | wafer_lab::LabError::MissingTrace(_))
            );
            if refused || err.downcast_ref::<cmd::UsageError>().is_some() {
                2
            } else {
                1
            }
        }
    }
}

/// Report a panic on one line (unless `RUST_BACKTRACE` asks for Rust's own report):
/// a failed or impossible allocation as `wafer: out of memory (...)`, anything else
/// as an internal error with the place it happened.
fn install_panic_hook() {
    if std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0") {
        return;
    }
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()));
        eprintln!("{}", panic_line(&msg, at.as_deref()));
    }));
}

/// The line a panic with message `msg` at `at` is reported as.
fn panic_line(msg: &str, at: Option<&str>) -> String {
    let msg = msg.split_whitespace().collect::<Vec<_>>().join(" ");
    if msg.contains("capacity overflow") || msg.contains("memory allocation") {
        return format!("wafer: out of memory ({msg})");
    }
    match at {
        Some(at) => format!("wafer: internal error: {msg} (at {at})"),
        None => format!("wafer: internal error: {msg}"),
    }
}

/// The error and its causes on one line, `a: b: c`, leaving out a cause whose text
/// the line already ends with (an I/O error shown as `path: reason` whose source is
/// the same `reason`).
fn one_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if line.ends_with(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// Whether `err` is a write to a closed pipe: exit 0, as `wafer ... | head` expects.
/// serde_json's writer errors do not list the I/O error among their causes, so they
/// are asked for its kind.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        let kind = match e.downcast_ref::<serde_json::Error>() {
            Some(j) => j.io_error_kind(),
            None => e.downcast_ref::<std::io::Error>().map(|io| io.kind()),
        };
        kind == Some(std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::panic_line;

    #[test]
    fn panics_are_one_line() {
        assert_eq!(
            panic_line("capacity overflow", Some("x.rs:1")),
            "wafer: out of memory (capacity overflow)"
        );
        assert_eq!(
            panic_line("index out of\nbounds", Some("src/a.rs:7")),
            "wafer: internal error: index out of bounds (at src/a.rs:7)"
        );
    }
}
