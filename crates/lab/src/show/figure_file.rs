//! Writing one figure to disk in every form: SVG (the reference, for the web and
//! the report), PNG (for slides and quick looks) and PDF (vector, for papers).
//! Each file is written atomically, so a reader never sees half a figure.

use std::path::{Path, PathBuf};

use crate::error::LabError;
use crate::plot::Chart;
use crate::store::write_atomic;

/// File extensions written for every figure, in order.
pub const FORMATS: [&str; 3] = ["svg", "png", "pdf"];

/// Write `chart` as `dir/stem.svg`, `.png` (2x scale) and `.pdf`; returns the SVG's
/// path.
pub fn write_figure(dir: &Path, stem: &str, chart: &Chart) -> Result<PathBuf, LabError> {
    let p = dir.join(format!("{stem}.svg"));
    let svg = chart.svg();
    write_atomic(&p, svg.as_bytes())?;
    write_atomic(&p.with_extension("png"), &crate::png::render(&svg, 2.0)?)?;
    write_atomic(&p.with_extension("pdf"), &crate::pdf::render(&svg)?)?;
    Ok(p)
}

/// The form a figure file takes from its extension (`svg`, `png` or `pdf`, any case),
/// or an error naming the file and the extensions there are.
pub fn format_of(path: &Path) -> Result<&'static str, LabError> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    FORMATS.into_iter().find(|f| *f == ext).ok_or_else(|| {
        LabError::Invalid(format!(
            "{}: a figure is written as .svg, .png or .pdf (from the file's extension)",
            path.display()
        ))
    })
}

/// Write `chart` to `path` in the form its extension names ([`format_of`]).
pub fn write_as(path: &Path, chart: &Chart) -> Result<(), LabError> {
    let svg = chart.svg();
    let bytes = match format_of(path)? {
        "png" => crate::png::render(&svg, 2.0)?,
        "pdf" => crate::pdf::render(&svg)?,
        _ => svg.into_bytes(),
    };
    write_atomic(path, &bytes)
}
