//! The experiment runner (`wafer-lab`) end to end: one test binary, one module per
//! concern (each says what it tests), so that the library and its dependencies are
//! linked into one test executable instead of one per file. Run one module with
//! `cargo test -p wafer-lab --test lab MODULE::`.
//!
//! The tests share one process and run on parallel threads: none changes process-wide
//! state (environment, working directory, limits, signal handlers).

mod address_map;
mod apu;
mod experiments;
mod flush;
mod generated;
mod layout;
mod mapping;
mod options;
mod presets;
mod report;
mod steady;
mod tasks;
