//! The trace readers and writers (`wafer-trace`) end to end: one test binary, one
//! module per concern (each says what it tests), so that the library is linked into
//! one test executable instead of one per file. Run one module with `cargo test -p
//! wafer-trace --test trace MODULE::`.
//!
//! The tests share one process and run on parallel threads: none changes process-wide
//! state (environment, working directory, limits, signal handlers) but the mutation
//! test's panic hook, which silences only the panics it catches on its own threads and
//! passes every other panic to the default hook.

mod gen;
mod mutation;
mod readers;
mod wtr;
