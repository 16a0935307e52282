//! Errors of a simulation run.

use crate::policy::ParamError;

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A policy name that is not registered; lists the names that are.
    #[error("unknown policy `{name}` (known policies: {known})")]
    UnknownPolicy {
        /// The name given.
        name: String,
        /// Comma-separated registered names.
        known: String,
    },
    /// A parameter that is unknown, malformed or out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// Reading the trace or writing the after-cache trace failed.
    #[error(transparent)]
    Trace(#[from] wafer_trace::Error),
    /// An inconsistent configuration.
    #[error("{0}")]
    Invalid(String),
}
