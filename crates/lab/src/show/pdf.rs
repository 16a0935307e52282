//! PDF versions of the figures, converted from their SVG with svg2pdf: vector paths
//! and real (selectable, subset-embedded) text, for papers typeset with LaTeX.
//!
//! The page is the chart's size at 96 user units per inch, the CSS reference the SVG
//! is drawn for (720 x 440 units: 7.5 x 4.58 in). Fonts come from the same database
//! as the PNGs ([`crate::png`]), so both forms show the same faces; without any font
//! the PDF keeps every line, bar and point, only no text.

use svg2pdf::{ConversionOptions, PageOptions};

use crate::error::LabError;

/// Convert `svg` to the bytes of a one-page PDF.
pub fn render(svg: &str) -> Result<Vec<u8>, LabError> {
    let tree = svg2pdf::usvg::Tree::from_str(svg, crate::png::options())
        .map_err(|e| LabError::Invalid(format!("figure SVG: {e}")))?;
    svg2pdf::to_pdf(
        &tree,
        ConversionOptions::default(),
        PageOptions { dpi: 96.0 },
    )
    .map_err(|e| LabError::Invalid(format!("figure PDF: {e}")))
}
