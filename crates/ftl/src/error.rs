//! Errors of the FTL simulator.

use std::path::PathBuf;

/// Everything that can go wrong configuring or driving an FTL.
#[derive(Debug, thiserror::Error)]
pub enum FtlError {
    /// A device or FTL parameter is impossible.
    #[error("{0}")]
    Config(String),
    /// A device file could not be read or parsed.
    #[error("{path}: {msg}")]
    DeviceFile {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        msg: String,
    },
    /// A host access beyond the logical capacity.
    #[error(
        "logical page {lpn} is beyond the device's {logical_pages} logical pages \
         (use --wrap to map addresses modulo the capacity)"
    )]
    OutOfRange {
        /// First offending logical page.
        lpn: u64,
        /// The device's logical pages.
        logical_pages: u64,
    },
    /// Reading the trace failed.
    #[error(transparent)]
    Trace(#[from] wafer_trace::Error),
}
