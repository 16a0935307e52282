//! Errors of the FTL simulator.

use std::path::PathBuf;
use wafer_trace::units::format_size;

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
         (address map refuse: choose compact to place the trace's erase blocks on the \
         device, or wrap to fold pages modulo the capacity, with --map or address_map)"
    )]
    OutOfRange {
        /// First offending logical page.
        lpn: u64,
        /// The device's logical pages.
        logical_pages: u64,
    },
    /// A compact address map ran out of erase blocks
    /// ([`crate::address_map::AddressMap::Compact`]).
    #[error(
        "the trace touches {needed} {unit} of {} but the device's logical space \
         holds {held} (address map compact: a device of {} would hold them, or wrap \
         folds pages modulo the capacity, with --map or address_map)",
        format_size(*block_bytes),
        format_size(needed.saturating_mul(*block_bytes))
    )]
    TooManyBlocks {
        /// Distinct units the trace touches (as far as it was read).
        needed: u64,
        /// Whole units of the device's logical space.
        held: u64,
        /// What compact places: `erase blocks` or `pages`
        /// ([`crate::address_map::AddressMap::Compact`]).
        unit: &'static str,
        /// Bytes per unit.
        block_bytes: u64,
    },
    /// Reading the trace failed.
    #[error(transparent)]
    Trace(#[from] wafer_trace::Error),
}
