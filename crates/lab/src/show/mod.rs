//! Show: figures, provenance and the HTML report.

pub mod figure_file;
pub mod figures;
pub mod pdf;
pub mod plot;
pub mod png;
pub mod provenance;
pub mod report;
