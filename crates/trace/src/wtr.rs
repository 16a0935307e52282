//! wafer's own binary trace format (`.wtr`). Placeholder: being written.

use crate::error::{Error, Result};
use crate::format::{RequestReader, TraceMeta};
use crate::request::Request;
use std::path::Path;

/// First bytes of every `.wtr` file.
pub const MAGIC: [u8; 4] = *b"WTR\0";

/// Streaming reader of a `.wtr` file.
pub struct Reader {
    meta: TraceMeta,
}

impl Reader {
    /// Open a `.wtr` file.
    pub fn open(path: &Path) -> Result<Reader> {
        Err(Error::corrupt(path, ".wtr reading is not available yet"))
    }
}

impl RequestReader for Reader {
    fn read_batch(&mut self, _out: &mut Vec<Request>) -> Result<bool> {
        Ok(false)
    }
    fn meta(&self) -> &TraceMeta {
        &self.meta
    }
}
