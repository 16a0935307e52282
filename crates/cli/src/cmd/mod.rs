//! One module per subcommand; each exposes an `Args` struct (clap) and `run`.

pub mod demo;
pub mod ftl;
pub mod policies;
pub mod replay;
pub mod reproduce;
pub mod run;
pub mod sim;
pub mod ssd;
pub mod trace;

/// An error in how the command was called (exit status 2), as opposed to a failure
/// while running it (exit status 1).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);
