//! Errors of the timed SSD.

use wafer_ftl::FtlError;

/// Everything that can go wrong configuring or driving the timed SSD.
#[derive(Debug, thiserror::Error)]
pub enum SsdError {
    /// An impossible parameter (cache size, associativity, arrival process...).
    #[error("{0}")]
    Config(String),
    /// The flash model refused an operation or could not be built.
    #[error(transparent)]
    Ftl(#[from] FtlError),
    /// Reading the trace failed.
    #[error(transparent)]
    Trace(#[from] wafer_trace::Error),
}
