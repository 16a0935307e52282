//! Errors of an experiment.

use std::path::PathBuf;

/// Why an experiment could not be planned, run or written.
#[derive(Debug, thiserror::Error)]
pub enum LabError {
    /// A bad experiment file: `at` names the file and the key.
    #[error("{at}: {msg}")]
    Config {
        /// `file: key` of the offending entry.
        at: String,
        /// What is wrong.
        msg: String,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A trace could not be read.
    #[error(transparent)]
    Trace(#[from] wafer_trace::Error),
    /// A simulation failed.
    #[error("{cell}: {msg}")]
    Cell {
        /// The cell's label.
        cell: String,
        /// What failed.
        msg: String,
    },
    /// A run refused before any work, to protect a file or another run: an output
    /// that is an input, a file wafer did not write, a folder another run holds.
    #[error("{0}")]
    Refused(String),
    /// More memory than there is: an allocation refused, or a trace whose prepared
    /// form would take more than [`crate::bounds::memory_limit`].
    #[error("{0}")]
    Memory(String),
    /// A trace file that is neither where it was named nor in a trace folder; the
    /// message names it and how to get it (`wafer traces fetch NAME`).
    #[error("{0}")]
    MissingTrace(String),
    /// Anything else that is inconsistent.
    #[error("{0}")]
    Invalid(String),
}

impl LabError {
    /// An I/O error on `path`.
    pub fn io(path: &std::path::Path, source: std::io::Error) -> LabError {
        LabError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
