//! `wafer policies`: list every registered replacement policy with its parameters.
//!
//! Reads the registry table ([`wafer_cache::POLICIES`]), so it always matches what
//! `wafer sim --policy` accepts.

use std::io::Write;

use wafer_cache::POLICIES;

/// Arguments of `wafer policies`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Run `wafer policies`.
pub fn run(args: Args) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, POLICIES)?;
        writeln!(out)?;
        return Ok(());
    }
    for p in POLICIES {
        let mut tags = Vec::new();
        if p.flash_aware {
            tags.push("flash-aware");
        }
        if p.block_aware {
            tags.push("block-level");
        }
        if p.offline {
            tags.push("offline");
        }
        let tags = if tags.is_empty() {
            String::new()
        } else {
            format!(" [{}]", tags.join(", "))
        };
        writeln!(out, "{}{tags}: {}", p.name, p.summary)?;
        if !p.aliases.is_empty() {
            writeln!(out, "    aliases: {}", p.aliases.join(", "))?;
        }
        for s in p.params {
            writeln!(out, "    {}={} : {}", s.name, s.default, s.doc)?;
        }
        writeln!(out, "    source: {}", p.citation)?;
        if !p.follows.is_empty() {
            writeln!(out, "    follows: {}", p.follows)?;
        }
    }
    writeln!(
        out,
        "\nUse as --policy name or name:key=value,key=value (e.g. clock:insert_ref=0)."
    )?;
    Ok(())
}
