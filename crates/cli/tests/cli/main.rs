//! The `wafer` command end to end: one test binary, one module per command or concern
//! (each says what it tests), so that the workspace is linked into one test executable
//! instead of one per file. Run one module with `cargo test -p wafer-cli --test cli
//! MODULE::`.
//!
//! The tests share one process and run on parallel threads: they change no
//! process-wide state (environment, working directory, limits, signal handlers); what
//! a test needs differently it sets on the `wafer` process it spawns.

mod common;

mod address_map;
mod bounds;
mod capture;
mod columns;
mod convert;
mod curve;
mod errors;
mod folder;
mod ftl;
mod gen;
mod grid_failures;
mod limits;
mod mapping;
mod mutation;
mod outputs;
mod prepare;
mod replay;
mod reproduce;
mod resume;
mod run_model;
mod sim;
mod ssd;
mod trace_info;
mod traces;
