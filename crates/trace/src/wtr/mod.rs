//! wafer's own binary trace format (`.wtr`): compact, versioned, checksummed,
//! zstd-compressed, streamable and appendable. The byte layout is specified in
//! `docs/formats.md`; this module is its reference implementation.
//!
//! A file is a header, then a sequence of 32-byte record heads: chunk records (a head
//! followed by a zstd frame of up to [`DEFAULT_CHUNK`] requests in columnar,
//! bit-packed form, see `columns.rs`) and end records (running totals). The last 32
//! bytes of a complete file are always an end record, so a reader knows the request
//! count when it opens the file and a cut file is reported as truncated before any
//! request is returned.
//!
//! Appending ([`Writer::append`]) leaves the old end record in place and writes new
//! chunks and a new end record after it; the reader checks every end record it meets
//! against its own running totals. An interrupted append therefore never damages the
//! requests that were already there: the file is reported as truncated, and the
//! message names the byte length that restores it (`truncate -s N`).
//!
//! Version 2 stores in each end record an estimate of the
//! distinct keys before it ([`crate::DistinctKeys`]), so a first run can size its
//! tables up front; version 1 files are read as before, and appends to them stay
//! version 1.

mod columns;
mod reader;
mod writer;

pub use reader::Reader;
pub use writer::Writer;

use crate::error::{Error, Result};
use crate::DistinctKeys;
use std::path::Path;
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

/// First bytes of every `.wtr` file.
pub const MAGIC: [u8; 4] = *b"WTR\0";

/// The format version this code writes; it reads this one and version 1.
pub const VERSION: u16 = 2;

/// The version before distinct-key estimates (end records without them).
const VERSION_1: u16 = 1;

/// Requests per chunk the writers use unless told otherwise: large enough for zstd to
/// find the structure of a column, small enough that a reader holds about 2 MiB.
pub const DEFAULT_CHUNK: u32 = 1 << 16;

/// Largest chunk a reader accepts (bounds the memory a corrupt file can ask for).
pub const MAX_CHUNK: u32 = 1 << 20;

/// Length of the fixed part of the header (before the origin string).
const HEADER_FIXED: usize = 28;

/// Length of every record head (chunk head or end record).
const RECORD: usize = 32;

/// Magic of a chunk head.
const CHUNK_MAGIC: [u8; 4] = *b"WTRC";

/// Magic of an end record.
const END_MAGIC: [u8; 4] = *b"WTRE";

/// Longest origin string, in bytes.
pub const MAX_ORIGIN: usize = 4096;

/// Optional per-record columns beyond the request itself, selected per file by the
/// header's column-set bitmask so that plain traces do not carry them. They hold what
/// an after-cache trace knows about each storage operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Columns(u32);

impl Columns {
    /// No extra column (a plain trace).
    pub const NONE: Columns = Columns(0);
    /// The index of the page access that caused the operation.
    pub const ACCESS: Columns = Columns(1);
    /// A small tag saying why (the cache's `IoKind`).
    pub const KIND: Columns = Columns(2);
    /// The eviction group the operation belongs to.
    pub const GROUP: Columns = Columns(4);
    /// All three after-cache columns.
    pub const AFTER: Columns = Columns(7);

    /// The bitmask as stored in the header.
    pub fn bits(self) -> u32 {
        self.0
    }

    /// The column set of a stored bitmask, if every bit is known.
    pub fn from_bits(bits: u32) -> Option<Columns> {
        (bits & !Self::AFTER.0 == 0).then_some(Columns(bits))
    }

    /// Whether every column of `other` is in `self`.
    pub fn contains(self, other: Columns) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Columns {
    type Output = Columns;
    fn bitor(self, rhs: Columns) -> Columns {
        Columns(self.0 | rhs.0)
    }
}

/// The extra columns of one record (zero where the file does not store a column).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Extra {
    /// Index of the page access that caused the operation.
    pub access: u64,
    /// Kind tag (the cache crate's `IoKind::tag`).
    pub kind: u8,
    /// Eviction group (0 = none).
    pub group: u64,
}

/// What a `.wtr` header says about its trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Whether requests carry timestamps.
    pub has_time: bool,
    /// Whether reads and writes are told apart.
    pub has_op: bool,
    /// The page size the producer used, in bytes (0 = not stated). A hint for
    /// consumers: requests are always stored in bytes.
    pub page_size: u32,
    /// Which extra columns every record carries.
    pub columns: Columns,
    /// Requests per chunk the writer aimed for (the last chunk may hold fewer).
    pub chunk: u32,
    /// Free text: where the trace came from (source file, generator, policy run).
    pub origin: String,
}

impl Header {
    /// Serialise as format `version`, checksum included.
    fn encode(&self, version: u16) -> Vec<u8> {
        let origin = self.origin.as_bytes();
        let len = HEADER_FIXED + origin.len() + 8;
        let mut b = Vec::with_capacity(len);
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&version.to_le_bytes());
        b.extend_from_slice(&(len as u16).to_le_bytes());
        let flags = u32::from(self.has_time) | (u32::from(self.has_op) << 1);
        b.extend_from_slice(&flags.to_le_bytes());
        b.extend_from_slice(&self.columns.bits().to_le_bytes());
        b.extend_from_slice(&self.page_size.to_le_bytes());
        b.extend_from_slice(&self.chunk.to_le_bytes());
        b.push(0); // time unit: nanoseconds
        b.push(0); // address unit: bytes
        b.extend_from_slice(&(origin.len() as u16).to_le_bytes());
        b.extend_from_slice(origin);
        let sum = xxh3_64(&b);
        b.extend_from_slice(&sum.to_le_bytes());
        b
    }

    /// Parse a header from the start of a file; returns it, its length and the
    /// file's format version. `read` fills a buffer with the next bytes of the file
    /// and returns how many it got.
    fn decode(
        path: &Path,
        mut read: impl FnMut(&mut [u8]) -> Result<usize>,
    ) -> Result<(Header, u64, u16)> {
        let mut fixed = [0u8; HEADER_FIXED];
        let n = read(&mut fixed)?;
        if n < 4 || fixed[..4] != MAGIC {
            return Err(corrupt(path, "not a .wtr file (bad magic)"));
        }
        if n < HEADER_FIXED {
            return Err(corrupt(path, "truncated header"));
        }
        let version = u16le(&fixed[4..]);
        if version != VERSION && version != VERSION_1 {
            return Err(corrupt(
                path,
                format!(
                    "unsupported .wtr version {version} (this wafer reads versions \
                     {VERSION_1} and {VERSION})"
                ),
            ));
        }
        let len = usize::from(u16le(&fixed[6..]));
        let origin_len = usize::from(u16le(&fixed[26..]));
        if origin_len > MAX_ORIGIN || len != HEADER_FIXED + origin_len + 8 {
            return Err(corrupt(path, "header length fields are inconsistent"));
        }
        let mut all = vec![0u8; len];
        all[..HEADER_FIXED].copy_from_slice(&fixed);
        if read(&mut all[HEADER_FIXED..])? < len - HEADER_FIXED {
            return Err(corrupt(path, "truncated header"));
        }
        let body = &all[..len - 8];
        if xxh3_64(body) != u64le(&all[len - 8..]) {
            return Err(corrupt(path, "header checksum mismatch"));
        }
        let flags = u32le(&all[8..]);
        let columns = Columns::from_bits(u32le(&all[12..]))
            .ok_or_else(|| corrupt(path, "header names unknown extra columns"))?;
        let chunk = u32le(&all[20..]);
        if flags & !3 != 0 || all[24] != 0 || all[25] != 0 || chunk == 0 || chunk > MAX_CHUNK {
            return Err(corrupt(
                path,
                "header has unknown flags, units or chunk size",
            ));
        }
        let page_size = u32le(&all[16..]);
        if page_size != 0 && !crate::units::is_page_size(page_size) {
            return Err(corrupt(
                path,
                format!(
                    "header page size {page_size} is neither 0 (not stated) nor a power of two from 512 B to 1 GiB"
                ),
            ));
        }
        let origin = std::str::from_utf8(&all[HEADER_FIXED..len - 8])
            .map_err(|_| corrupt(path, "header origin is not UTF-8"))?
            .to_string();
        Ok((
            Header {
                has_time: flags & 1 != 0,
                has_op: flags & 2 != 0,
                page_size,
                columns,
                chunk,
                origin,
            },
            len as u64,
            version,
        ))
    }
}

/// The head of a chunk record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ChunkHead {
    /// 0-based position of the chunk in the file.
    seq: u32,
    /// Requests in the chunk.
    count: u32,
    /// Bytes of the zstd frame that follows.
    packed: u32,
    /// Bytes of the column data once decompressed.
    raw: u32,
}

impl ChunkHead {
    /// Serialise with the checksum over these fields and `payload`.
    fn encode(&self, payload: &[u8]) -> [u8; RECORD] {
        let mut b = [0u8; RECORD];
        b[..4].copy_from_slice(&CHUNK_MAGIC);
        b[4..8].copy_from_slice(&self.seq.to_le_bytes());
        b[8..12].copy_from_slice(&self.count.to_le_bytes());
        b[12..16].copy_from_slice(&self.packed.to_le_bytes());
        b[16..20].copy_from_slice(&self.raw.to_le_bytes());
        let sum = chunk_sum(&b[..24], payload);
        b[24..].copy_from_slice(&sum.to_le_bytes());
        b
    }

    fn decode(b: &[u8; RECORD]) -> ChunkHead {
        ChunkHead {
            seq: u32le(&b[4..]),
            count: u32le(&b[8..]),
            packed: u32le(&b[12..]),
            raw: u32le(&b[16..]),
        }
    }
}

/// Checksum of a chunk: xxh3 of its payload seeded with xxh3 of its head fields.
fn chunk_sum(head: &[u8], payload: &[u8]) -> u64 {
    xxh3_64_with_seed(payload, xxh3_64(head))
}

/// An end record: the totals of everything before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct End {
    requests: u64,
    chunks: u64,
    /// Estimated distinct keys before the record (version 2; `None` in version 1).
    keys: Option<DistinctKeys>,
}

impl End {
    /// Version 1: magic, 4 reserved zero bytes, requests (u64), chunks (u64), xxh3.
    /// Version 2: magic, distinct record keys (u32), requests (u64), chunks (u32),
    /// distinct 4 KiB pages (u32), xxh3. Counts above 2^32 - 1 are stored as 2^32 - 1
    /// (a sizing hint: no table of dense `u32` ids holds more).
    fn encode(&self, version: u16) -> [u8; RECORD] {
        let mut b = [0u8; RECORD];
        b[..4].copy_from_slice(&END_MAGIC);
        b[8..16].copy_from_slice(&self.requests.to_le_bytes());
        match self.keys.filter(|_| version != VERSION_1) {
            Some(k) => {
                let narrow = |n: u64| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
                b[4..8].copy_from_slice(&narrow(k.records));
                b[16..20].copy_from_slice(&(self.chunks as u32).to_le_bytes());
                b[20..24].copy_from_slice(&narrow(k.pages_4k));
            }
            None => b[16..24].copy_from_slice(&self.chunks.to_le_bytes()),
        }
        let sum = xxh3_64(&b[..24]);
        b[24..].copy_from_slice(&sum.to_le_bytes());
        b
    }

    /// Parse an end record of format `version`; `None` if `b` is not a valid one.
    fn decode(b: &[u8; RECORD], version: u16) -> Option<End> {
        if b[..4] != END_MAGIC || xxh3_64(&b[..24]) != u64le(&b[24..]) {
            return None;
        }
        let requests = u64le(&b[8..]);
        if version == VERSION_1 {
            return (b[4..8] == [0; 4]).then(|| End {
                requests,
                chunks: u64le(&b[16..]),
                keys: None,
            });
        }
        Some(End {
            requests,
            chunks: u64::from(u32le(&b[16..])),
            keys: Some(DistinctKeys {
                records: u64::from(u32le(&b[4..])),
                pages_4k: u64::from(u32le(&b[20..])),
            }),
        })
    }

    /// Whether the totals (not the estimates) are those of `other`.
    fn counts_match(&self, other: &End) -> bool {
        self.requests == other.requests && self.chunks == other.chunks
    }
}

/// A `.wtr` corruption error: `file: corrupt .wtr: what`.
fn corrupt(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::corrupt(path, format!("corrupt .wtr: {what}"))
}

fn u16le(b: &[u8]) -> u16 {
    u16::from_le_bytes([b[0], b[1]])
}

fn u32le(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

fn u64le(b: &[u8]) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[..8]);
    u64::from_le_bytes(a)
}
