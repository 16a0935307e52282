//! PNG versions of the figures, rendered from their SVG with resvg at 2x scale
//! (1440 x 880 pixels).
//!
//! Fonts: the system's fonts are loaded once (fontconfig folders, e.g. DejaVu on
//! Linux); the charts ask for "DejaVu Sans, Verdana, sans-serif" and resvg falls back
//! to any sans-serif face it found. Without any font the PNG still has every line,
//! bar and point, only no text; the SVG (which the viewer renders with its own fonts)
//! stays the reference.

use std::sync::{Arc, OnceLock};

use resvg::{tiny_skia, usvg};

use crate::error::LabError;

/// The parse options of every rendered figure, PNG and PDF alike: the font database
/// is loaded once per process and shared, so both forms use the same faces.
pub(crate) fn options() -> &'static usvg::Options<'static> {
    static OPT: OnceLock<usvg::Options<'static>> = OnceLock::new();
    OPT.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_system_fonts();
        db.load_fonts_dir("/usr/share/fonts/truetype/dejavu");
        db.set_sans_serif_family("DejaVu Sans");
        usvg::Options {
            font_family: "DejaVu Sans".into(),
            fontdb: Arc::new(db),
            ..usvg::Options::default()
        }
    })
}

/// Render `svg` to PNG bytes at `scale` x its size.
pub fn render(svg: &str, scale: f32) -> Result<Vec<u8>, LabError> {
    let tree = usvg::Tree::from_str(svg, options())
        .map_err(|e| LabError::Invalid(format!("figure SVG: {e}")))?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(scale)
        .ok_or_else(|| LabError::Invalid("figure too large to render".into()))?;
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| LabError::Invalid("figure too large to render".into()))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap
        .encode_png()
        .map_err(|e| LabError::Invalid(format!("PNG encoding: {e}")))
}
