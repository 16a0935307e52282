//! `wafer traces`: the public third-party traces wafer knows
//! ([`wafer_lab::known_traces`]), whether each is here and where; `wafer traces fetch`
//! downloads them into the folder every command looks in
//! ([`wafer_lab::trace_folders`]), so that the presets' phone-trace groups and the
//! examples run after a clone.

use std::io::Write;
use std::path::{Path, PathBuf};

use wafer_lab::known_traces::{self, KnownTrace, KNOWN};
use wafer_lab::trace_folders;

use crate::download;

use super::{unknown, usage};

/// Arguments of `wafer traces`.
#[derive(clap::Args, Debug)]
#[command(
    after_help = "Where traces are looked for, in order: the path as given (beside an
experiment file; the repository's traces/ for a preset), $WAFER_TRACES, the data folder
($XDG_DATA_HOME/wafer/traces, else ~/.local/share/wafer/traces), and shared/traces beside
the repository. `wafer traces fetch` writes into $WAFER_TRACES if set, else the data
folder; WAFER_TRACES_MIRROR=URL replaces the upstream addresses with URL/<path> (a
mirror in the layout of the trace folders, file:// included).
Examples:
  wafer traces
  wafer traces --long
  wafer traces fetch telegram_exec cod_exec
  wafer traces fetch"
)]
pub struct Args {
    /// Fetch instead of listing.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Also print each trace's source, paper and checksum.
    #[arg(long)]
    pub long: bool,
}

/// `wafer traces` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Download traces (every one when none is named), resuming a cut download and
    /// checking each against its size and checksum.
    Fetch(FetchArgs),
}

/// Arguments of `wafer traces fetch`.
#[derive(clap::Args, Debug)]
pub struct FetchArgs {
    /// Trace names as `wafer traces` lists them (default: all).
    pub names: Vec<String>,
}

/// Run `wafer traces`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        None => list(args.long),
        Some(Command::Fetch(f)) => fetch(&f.names),
    }
}

/// Where `k` is found, if anywhere.
fn located(k: &KnownTrace) -> Option<PathBuf> {
    trace_folders::find(Path::new(k.path), &trace_folders::bundled(k.path)).ok()
}

/// The table of known traces and the folders looked in.
fn list(long: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let w = KNOWN.iter().map(|k| k.name.len()).max().unwrap_or(4);
    let lw = KNOWN.iter().map(|k| k.licence.len()).max().unwrap_or(7);
    writeln!(
        out,
        "{:w$}  {:>9}  {:lw$}  where",
        "name", "bytes", "licence"
    )?;
    for k in KNOWN {
        let at = match located(k) {
            Some(p) => match std::fs::metadata(&p) {
                Ok(m) if m.len() != k.size => {
                    format!("{} (differs: {} bytes)", p.display(), m.len())
                }
                _ => p.display().to_string(),
            },
            None => format!("missing: wafer traces fetch {}", k.name),
        };
        writeln!(out, "{:w$}  {:>9}  {:lw$}  {at}", k.name, k.size, k.licence)?;
        if long {
            writeln!(out, "{:w$}  {}", "", k.what)?;
            writeln!(out, "{:w$}  source: {} ({})", "", k.repository, k.url)?;
            if k.offset > 0 {
                writeln!(out, "{:w$}  from byte {} of that file", "", k.offset)?;
            }
            writeln!(out, "{:w$}  cite: {}", "", k.paper)?;
            writeln!(out, "{:w$}  xxh3-64: {}, path: {}", "", k.xxh3, k.path)?;
        }
    }
    writeln!(out)?;
    writeln!(out, "looked for in:")?;
    for (what, d) in trace_folders::folders() {
        writeln!(out, "  {} ({what})", d.display())?;
    }
    match trace_folders::fetch_dir() {
        Some(d) => writeln!(out, "`wafer traces fetch` writes into {}", d.display())?,
        None => writeln!(
            out,
            "`wafer traces fetch` needs WAFER_TRACES or HOME to know where to write"
        )?,
    }
    Ok(())
}

/// Download `names` (all when empty) into the fetch folder.
fn fetch(names: &[String]) -> anyhow::Result<()> {
    let picked: Vec<&KnownTrace> = if names.is_empty() {
        KNOWN.iter().collect()
    } else {
        names
            .iter()
            .map(|n| {
                known_traces::find(n).ok_or_else(|| {
                    let all: Vec<&str> = KNOWN.iter().map(|k| k.name).collect();
                    unknown(
                        format!("unknown trace \"{n}\" (known: {})", all.join(", ")),
                        n,
                        all,
                    )
                })
            })
            .collect::<anyhow::Result<_>>()?
    };
    let dir = trace_folders::fetch_dir().ok_or_else(|| {
        usage("no folder to fetch into: set WAFER_TRACES (or HOME for the data folder)")
    })?;
    let mirror = std::env::var("WAFER_TRACES_MIRROR")
        .ok()
        .filter(|m| !m.is_empty());
    let mut stdout = std::io::stdout();
    for k in picked {
        let dest = dir.join(k.path);
        if dest.is_file() && k.verify(&dest).is_ok() {
            writeln!(stdout, "{}: already there, {}", k.name, dest.display())?;
            continue;
        }
        let (url, offset) = match &mirror {
            Some(m) => (format!("{}/{}", m.trim_end_matches('/'), k.path), 0),
            None => (k.url.to_string(), k.offset),
        };
        writeln!(stdout, "{}: fetching {url}", k.name)?;
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| anyhow::anyhow!("{}: {e}", parent.display()))?;
        }
        let part = download::part_of(&dest);
        download::fetch_range(&url, offset, k.size, &part)?;
        if let Err(e) = k.verify(&part) {
            // Never kept: a later run would take it for a good prefix.
            let _ = std::fs::remove_file(&part);
            anyhow::bail!(
                "{}: the download from {url} is not the trace wafer knows ({e}); removed it",
                k.name
            );
        }
        std::fs::rename(&part, &dest).map_err(|e| anyhow::anyhow!("{}: {e}", dest.display()))?;
        writeln!(
            stdout,
            "{}: {} (licence: {}; cite: {})",
            k.name,
            dest.display(),
            k.licence,
            k.paper
        )?;
    }
    Ok(())
}
