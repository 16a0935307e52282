//! The cache policies (`wafer-cache`) end to end: one test binary, one module per
//! concern (each says what it tests), so that the library is linked into one test
//! executable instead of one per file. Run one module with `cargo test -p wafer-cache
//! --test cache MODULE::`.
//!
//! The tests share one process and run on parallel threads: none changes process-wide
//! state (environment, working directory, limits, signal handlers).

mod common;

mod bursts;
mod curve;
mod parity;
mod parity_adaptive;
mod parity_pip;
mod properties;
mod together;
