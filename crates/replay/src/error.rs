//! Errors of the workload player. Refusals (the safety rules of `docs/replay.md`) are
//! their own variants so that front ends can tell them from I/O failures.

use std::path::{Path, PathBuf};
use wafer_trace::units::format_size;

/// Result alias for the player.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a replay did not run or did not finish.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading the trace failed.
    #[error(transparent)]
    Trace(#[from] wafer_trace::Error),
    /// An I/O error on a named file or device.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or device.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The trace writes and the target is a block device, but `--destructive` was not given.
    #[error(
        "{}: is a block device and the trace writes ({writes} write requests), which destroys \
         its contents; add --destructive to allow it",
        path.display()
    )]
    NeedsDestructive {
        /// The device.
        path: PathBuf,
        /// Write requests in the trace.
        writes: u64,
    },
    /// The target is in use: a block device (or a partition of it) is mounted or has
    /// holders, a file backs a loop device, is mounted itself or is a swap file.
    #[error("{}: refusing to write: {}", path.display(), users.join(", "))]
    InUse {
        /// The device or file.
        path: PathBuf,
        /// What uses it, one phrase each (`/dev/sdb1 is mounted on /mnt (ext4)`).
        users: Vec<String>,
    },
    /// A request whose pages cannot be addressed: they end beyond 2^64 or beyond the
    /// largest file offset ([`crate::plan::MAX_END`]). The message names the request.
    #[error("{0}")]
    Unaddressable(String),
    /// The target is smaller than the trace's address range and `--wrap` was not given.
    #[error(
        "{}: target holds {target_bytes} bytes but the trace addresses {span_bytes} bytes \
         (pages 0..{span_pages} of {page_size} B); use --wrap to map addresses modulo the \
         target size, or a larger target (--size for a new file)",
        path.display()
    )]
    TooSmall {
        /// The target.
        path: PathBuf,
        /// Its size.
        target_bytes: u64,
        /// Bytes the trace addresses after alignment and device layout.
        span_bytes: u64,
        /// The same in pages.
        span_pages: u64,
        /// Page size.
        page_size: u32,
    },
    /// Creating or growing a file target would take more of its filesystem than the
    /// player allows itself ([`crate::safety::check_space`]).
    #[error("{}", no_space_message(.path, .size, .needed, .available, .over_free))]
    NoSpace {
        /// The target.
        path: PathBuf,
        /// The size it would have.
        size: u64,
        /// Bytes it would grow by.
        needed: u64,
        /// Bytes available to an unprivileged user on its filesystem.
        available: u64,
        /// Whether the growth exceeds the free space itself (else only the default
        /// limit that `--allow-large` lifts).
        over_free: bool,
    },
    /// A page read back during verification does not carry the announced pattern.
    #[error("verify: page at byte {offset}: {what}")]
    Verify {
        /// Byte offset of the page in the target.
        offset: u64,
        /// What differs.
        what: String,
    },
    /// Running fio failed, or its output could not be understood.
    #[error("fio: {0}")]
    Fio(String),
    /// A bad option or an option the trace cannot satisfy.
    #[error("{0}")]
    Invalid(String),
}

impl Error {
    /// Shorthand for an [`Error::Io`].
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Whether the error is a refusal of how the player was asked to run (a safety rule,
    /// a missing flag, an impossible option) rather than a failure while running or a bad
    /// trace: front ends exit 2 for these, as `docs/replay.md` promises.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            Error::NeedsDestructive { .. }
                | Error::InUse { .. }
                | Error::TooSmall { .. }
                | Error::NoSpace { .. }
                | Error::Invalid(_)
        )
    }
}

fn no_space_message(
    path: &Path,
    size: &u64,
    needed: &u64,
    available: &u64,
    over_free: &bool,
) -> String {
    let (verb, limit) = if *over_free {
        ("", String::new())
    } else {
        (
            " without --allow-large",
            format!(
                ", and without --allow-large a file target may take at most half of that and \
                 {}",
                format_size(crate::safety::LARGE_FILE_BYTES)
            ),
        )
    };
    format!(
        "{}: refusing to make a {} file target{verb}: that needs {} more and its filesystem \
         has {} available{limit}; replay onto a smaller file with --wrap (e.g. --wrap --size \
         256MiB)",
        path.display(),
        format_size(*size),
        format_size(*needed),
        format_size(*available),
    )
}
