//! `wafer demo`: no arguments; a small TS-CLOCK-style study (the design of paper 000:
//! D. H. Kang, C. Min, Y. I. Eom, "An Efficient Buffer Replacement Algorithm for NAND
//! Flash Storage Devices", IEEE MASCOTS 2014) on the two traces bundled in the
//! repository, with the microSD card model (aged as paper 000 ages it) behind the
//! cache, written to
//! `./wafer-out/demo/report.html`.

use std::path::Path;

use wafer_lab::presets;

use super::reproduce::reproduce;

/// Arguments of `wafer demo` (none).
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Run `wafer demo`.
pub fn run(_: Args) -> anyhow::Result<()> {
    reproduce(
        presets::find("demo")?,
        &Path::new("wafer-out").join("demo"),
        0,
        false,
    )
}
