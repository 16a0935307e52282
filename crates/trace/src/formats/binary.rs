//! Fixed-size binary records shared by the vscsi and oracleGeneral readers.
//!
//! Records are decoded straight from a fixed read buffer. A malformed record is an
//! `Error::Parse` whose "line" is the 1-based record number (the message names the
//! byte offset too); a trailing partial record means a truncated file and is
//! reported the same way (or skipped and counted with `skip_invalid`).

use super::source::Stream;
use crate::error::{Error, Result};
use crate::reader::{RequestReader, TraceMeta, BATCH};
use crate::request::Request;
use std::io::Read;

/// One binary record layout.
pub(crate) trait RecordFormat: Send {
    /// Record size in bytes.
    const SIZE: usize;
    /// Decode one record (exactly `SIZE` bytes), appending at most one request.
    fn decode(&mut self, rec: &[u8], out: &mut Vec<Request>) -> Result<(), String>;
}

/// A [`RequestReader`] over fixed-size records.
pub(crate) struct BinaryReader<F: RecordFormat> {
    src: Stream,
    fmt: F,
    buf: Vec<u8>,
    /// Records decoded so far.
    index: u64,
    meta: TraceMeta,
    skip_invalid: bool,
    skipped: u64,
    done: bool,
}

impl<F: RecordFormat> BinaryReader<F> {
    /// Read records of `fmt` from `src`.
    pub(crate) fn new(src: Stream, fmt: F, meta: TraceMeta, skip_invalid: bool) -> Self {
        BinaryReader {
            src,
            fmt,
            buf: vec![0; BATCH * F::SIZE],
            index: 0,
            meta,
            skip_invalid,
            skipped: 0,
            done: false,
        }
    }

    /// Fill the buffer as far as the stream allows; returns the bytes read.
    fn fill(&mut self) -> Result<usize> {
        let mut n = 0;
        while n < self.buf.len() {
            match self.src.read(&mut self.buf[n..]) {
                Ok(0) => break,
                Ok(k) => n += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(self.meta.path.clone(), e)),
            }
        }
        Ok(n)
    }

    fn error(&self, record: u64, msg: String) -> Error {
        let at = (record - 1) * F::SIZE as u64;
        Error::parse(
            self.meta.path.clone(),
            record,
            format!("record {record} (byte {at}): {msg}"),
        )
    }
}

impl<F: RecordFormat> RequestReader for BinaryReader<F> {
    fn read_batch(&mut self, out: &mut Vec<Request>) -> Result<bool> {
        out.clear();
        while !self.done && out.is_empty() {
            let n = self.fill()?;
            if n < self.buf.len() {
                self.done = true;
            }
            let whole = n / F::SIZE;
            for i in 0..whole {
                self.index += 1;
                let rec = &self.buf[i * F::SIZE..(i + 1) * F::SIZE];
                let before = out.len();
                let decoded = self.fmt.decode(rec, out);
                if let Err(msg) = decoded.and_then(|()| super::check_all(&out[before..])) {
                    out.truncate(before);
                    if self.skip_invalid {
                        self.skipped += 1;
                    } else {
                        return Err(self.error(self.index, msg));
                    }
                }
            }
            let tail = n - whole * F::SIZE;
            if tail > 0 {
                if self.skip_invalid {
                    self.skipped += 1;
                } else {
                    let msg = format!(
                        "truncated file: expected a {}-byte record, found {tail} bytes",
                        F::SIZE
                    );
                    return Err(self.error(self.index + 1, msg));
                }
            }
        }
        Ok(!out.is_empty())
    }

    fn meta(&self) -> &TraceMeta {
        &self.meta
    }

    fn skipped(&self) -> u64 {
        self.skipped
    }
}

/// Little-endian integers at fixed offsets of a record.
pub(crate) fn le_u16(r: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([r[at], r[at + 1]])
}

/// See [`le_u16`].
pub(crate) fn le_u32(r: &[u8], at: usize) -> u32 {
    let mut b = [0; 4];
    b.copy_from_slice(&r[at..at + 4]);
    u32::from_le_bytes(b)
}

/// See [`le_u16`].
pub(crate) fn le_u64(r: &[u8], at: usize) -> u64 {
    let mut b = [0; 8];
    b.copy_from_slice(&r[at..at + 8]);
    u64::from_le_bytes(b)
}
