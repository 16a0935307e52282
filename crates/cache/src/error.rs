//! Errors of a simulation run.

use crate::policy::ParamError;

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A policy name that is not registered; lists the names that are.
    #[error("unknown policy `{name}` (known policies: {known}){hint}")]
    UnknownPolicy {
        /// The name given.
        name: String,
        /// Comma-separated registered names.
        known: String,
        /// `; did you mean ...?` for a likely typo, or empty.
        hint: String,
    },
    /// A parameter that is unknown, malformed or out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// Reading the trace failed.
    #[error(transparent)]
    Trace(#[from] wafer_trace::Error),
    /// Writing the after-cache trace, or the device fed from it, failed.
    #[error(transparent)]
    After(#[from] crate::after::AfterError),
    /// A trace with more page accesses or requests than a [`crate::PreparedTrace`]
    /// indexes (2^32 - 1); such a trace must be streamed.
    #[error("trace has too many {0} to prepare in memory (limit 2^32-1); stream it instead")]
    TooLarge(&'static str),
    /// Preparing the trace would take more memory than the caller allows; checked
    /// as it grows, before each request is expanded, so no more than about that much
    /// is ever taken.
    #[error(
        "preparing the trace in memory would take more than the limit of {} (about {} at page access {events}, with up to {pages} distinct pages)",
        wafer_trace::units::format_size(*limit),
        wafer_trace::units::format_size(*needed)
    )]
    OverMemory {
        /// Bytes needed so far.
        needed: u64,
        /// Bytes allowed.
        limit: u64,
        /// Page accesses (events) so far.
        events: u64,
        /// Distinct pages so far, at most.
        pages: u64,
    },
    /// An allocation of this many bytes the system refused, reported rather than
    /// aborting the process (which, in the Python extension, is the interpreter).
    #[error("out of memory (could not allocate {0} bytes)")]
    OutOfMemory(u64),
    /// A streamed run whose densifier, buffer or policy could not grow: the
    /// allocation the system refused (an address-space limit, or no memory left),
    /// reported rather than aborting the process (which, in the Python extension,
    /// is the interpreter).
    #[error("could not allocate {bytes} bytes for {what} ({pages} distinct pages so far)")]
    StreamOutOfMemory {
        /// Bytes asked for.
        bytes: u64,
        /// What was growing.
        what: &'static str,
        /// Distinct pages seen by then.
        pages: u64,
    },
    /// A prepared trace file that cannot be used: damaged, truncated or not one.
    #[error("{}: {msg}", path.display())]
    PreparedFile {
        /// The prepared trace file.
        path: std::path::PathBuf,
        /// What is wrong with it.
        msg: String,
    },
    /// A policy defined outside the registry (a user's class) answered wrongly or
    /// failed; the message names it and the access.
    #[error("{0}")]
    Policy(String),
    /// An inconsistent configuration.
    #[error("{0}")]
    Invalid(String),
}
