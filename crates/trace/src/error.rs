//! Errors of the trace layer. Every message names the file and, for text formats, the
//! line, then says what was expected and what was found.

use std::path::PathBuf;

/// Result alias for the trace layer.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// An error reading, writing or interpreting a trace.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A malformed record: `file:line: message`. `line` is 1-based; binary formats
    /// report the record number instead and say so in the message.
    #[error("{}:{line}: {msg}", path.display())]
    Parse {
        /// The trace file.
        path: PathBuf,
        /// 1-based line (text) or record (binary) number.
        line: u64,
        /// What was expected and what was found.
        msg: String,
    },
    /// The file as a whole is unusable (bad magic, truncated, checksum mismatch,
    /// unknown format).
    #[error("{}: {msg}", path.display())]
    Corrupt {
        /// The trace file.
        path: PathBuf,
        /// What is wrong with it.
        msg: String,
    },
    /// An I/O error on a named file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// A bad argument or option (not tied to a file).
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

    /// Shorthand for an [`Error::Parse`].
    pub fn parse(path: impl Into<PathBuf>, line: u64, msg: impl Into<String>) -> Self {
        Error::Parse {
            path: path.into(),
            line,
            msg: msg.into(),
        }
    }

    /// Shorthand for an [`Error::Corrupt`].
    pub fn corrupt(path: impl Into<PathBuf>, msg: impl Into<String>) -> Self {
        Error::Corrupt {
            path: path.into(),
            msg: msg.into(),
        }
    }
}
