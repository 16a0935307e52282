//! Reading `.wtr` files in O(chunk) memory: one compressed and one decompressed chunk
//! buffer, reused. Every chunk's checksum, sequence number and lengths are checked
//! before any of its requests is returned, and every end record met must agree with
//! the totals counted so far.

use super::columns::{self, Cursor};
use super::writer::read_full;
use super::{
    corrupt, ChunkHead, Columns, End, Extra, Header, CHUNK_MAGIC, END_MAGIC, MAX_CHUNK, RECORD,
};
use crate::error::{Error, Result};
use crate::reader::{Format, RequestReader, TraceMeta, BATCH};
use crate::request::{Op, Request, ADDRESS_LIMIT, DEV_LIMIT};
use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::Path;

/// Columns of a chunk, in storage order.
const TIME: usize = 0;
const OP: usize = 1;
const DEV: usize = 2;
const OFFSET: usize = 3;
const LEN: usize = 4;
const ACCESS: usize = 5;
const KIND: usize = 6;
const GROUP: usize = 7;

/// Streaming reader of a `.wtr` file.
pub struct Reader {
    meta: TraceMeta,
    header: Header,
    /// The file's format version.
    version: u16,
    file: File,
    /// Byte position of the next record.
    pos: u64,
    len: u64,
    /// Totals of the final end record.
    total: End,
    /// Chunks and requests read so far (complete chunks).
    seen: End,
    packed: Vec<u8>,
    raw: Vec<u8>,
    zstd: zstd::bulk::Decompressor<'static>,
    cursors: [Cursor; 8],
    /// Extra columns of the last batch (files with extra columns only).
    extras: Vec<Extra>,
    /// Decoded values of each column for the current batch.
    cols: Box<[[u64; BATCH]]>,
    /// Requests of the current chunk not yet returned.
    left: usize,
    done: bool,
}

impl Reader {
    /// Open a `.wtr` file: check its header and its final end record (a file cut
    /// anywhere is reported as truncated here, before any request is read).
    pub fn open(path: &Path) -> Result<Reader> {
        let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
        let (header, hlen, version) = Header::decode(path, |buf| read_full(&mut file, buf, path))?;
        let len = file.metadata().map_err(|e| Error::io(path, e))?.len();
        let total = last_end(path, &mut file, hlen, len, version)?;
        file.seek(SeekFrom::Start(hlen))
            .map_err(|e| Error::io(path, e))?;
        let meta = TraceMeta {
            path: path.to_path_buf(),
            format: Some(Format::Wtr),
            has_time: header.has_time,
            has_op: header.has_op,
            requests: Some(total.requests),
        };
        Ok(Reader {
            meta,
            header,
            version,
            file,
            pos: hlen,
            len,
            total,
            seen: End {
                requests: 0,
                chunks: 0,
                keys: None,
            },
            packed: Vec::new(),
            raw: Vec::new(),
            zstd: zstd::bulk::Decompressor::new().map_err(|e| Error::io(path, e))?,
            cursors: [Cursor::default(); 8],
            extras: Vec::new(),
            cols: vec![[0; BATCH]; 8].into_boxed_slice(),
            left: 0,
            done: false,
        })
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Total requests in the file (from its end record).
    pub fn requests(&self) -> u64 {
        self.total.requests
    }

    fn corrupt(&self, what: impl std::fmt::Display) -> Error {
        corrupt(&self.meta.path, what)
    }

    fn read_exact_at(&mut self, n: usize, into_packed: bool) -> Result<()> {
        let path = &self.meta.path;
        let buf = if into_packed {
            &mut self.packed
        } else {
            &mut self.raw
        };
        buf.clear();
        buf.resize(n, 0);
        let got = read_full(&mut self.file, buf, path)?;
        if got < n {
            return Err(corrupt(
                path,
                "truncated (the file changed while being read)",
            ));
        }
        self.pos += n as u64;
        Ok(())
    }

    /// Load the next chunk; false at the end of the file.
    fn next_chunk(&mut self) -> Result<bool> {
        loop {
            if self.done {
                return Ok(false);
            }
            let at = self.pos;
            let chunk_no = self.seen.chunks;
            if at + RECORD as u64 > self.len {
                return Err(self.corrupt(format!("truncated record at byte {at}")));
            }
            self.read_exact_at(RECORD, true)?;
            let mut rec = [0u8; RECORD];
            rec.copy_from_slice(&self.packed);
            if rec[..4] == END_MAGIC {
                let end = End::decode(&rec, self.version).ok_or_else(|| {
                    self.corrupt(format!("end record at byte {at} checksum mismatch"))
                })?;
                if !end.counts_match(&self.seen) {
                    return Err(self.corrupt(format!(
                        "end record at byte {at} counts {} requests in {} chunks, the chunks \
                         before it hold {} in {}",
                        end.requests, end.chunks, self.seen.requests, self.seen.chunks
                    )));
                }
                if self.pos == self.len {
                    self.done = true;
                }
                continue;
            }
            if rec[..4] != CHUNK_MAGIC {
                return Err(
                    self.corrupt(format!("chunk {chunk_no}: bad record magic at byte {at}"))
                );
            }
            let head = ChunkHead::decode(&rec);
            // Every chunk must end before the final end record.
            let room = self.len.saturating_sub(RECORD as u64 + self.pos);
            if u64::from(head.packed) > room {
                return Err(self.corrupt(format!(
                    "chunk {chunk_no} at byte {at}: length runs past the end of the file"
                )));
            }
            let ncols = 5 + self.header.columns.bits().count_ones() as u64;
            let max_raw = ncols * (columns::HEAD as u64 + 8 * u64::from(head.count));
            if head.count == 0 || head.count > MAX_CHUNK || u64::from(head.raw) > max_raw {
                return Err(self.corrupt(format!(
                    "chunk {chunk_no} at byte {at}: impossible request count or size"
                )));
            }
            self.read_exact_at(head.packed as usize, true)?;
            if super::chunk_sum(&rec[..24], &self.packed) != super::u64le(&rec[24..]) {
                return Err(self.corrupt(format!("chunk {chunk_no} checksum mismatch")));
            }
            if u64::from(head.seq) != chunk_no {
                return Err(self.corrupt(format!(
                    "chunk {chunk_no} out of order (it says it is chunk {})",
                    head.seq
                )));
            }
            self.raw.clear();
            self.raw.reserve(head.raw as usize + columns::PAD);
            let got = self
                .zstd
                .decompress_to_buffer(&self.packed[..], &mut self.raw)
                .map_err(|e| self.corrupt(format!("chunk {chunk_no}: bad zstd data ({e})")))?;
            if got != head.raw as usize {
                return Err(self.corrupt(format!(
                    "chunk {chunk_no}: decompressed to {got} bytes, its head says {}",
                    head.raw
                )));
            }
            let n = head.count as usize;
            let mut next = 0;
            let cols = self.header.columns;
            let present = [
                true,
                true,
                true,
                true,
                true,
                cols.contains(Columns::ACCESS),
                cols.contains(Columns::KIND),
                cols.contains(Columns::GROUP),
            ];
            for (c, &here) in present.iter().enumerate() {
                if !here {
                    continue;
                }
                let (cur, end) = Cursor::parse(&self.raw, next, n)
                    .ok_or_else(|| self.corrupt(format!("chunk {chunk_no}: bad column {c}")))?;
                self.cursors[c] = cur;
                next = end;
            }
            if next != self.raw.len() {
                return Err(self.corrupt(format!(
                    "chunk {chunk_no}: column data has the wrong length"
                )));
            }
            self.raw.extend_from_slice(&[0; columns::PAD]);
            self.seen.chunks += 1;
            self.seen.requests += n as u64;
            self.left = n;
            return Ok(true);
        }
    }

    /// Like [`RequestReader::read_batch`], also returning each record's extra
    /// columns in `extra` (zeros for columns the file does not store).
    pub fn read_batch_with(
        &mut self,
        out: &mut Vec<Request>,
        extra: &mut Vec<Extra>,
    ) -> Result<bool> {
        let more = self.read_batch(out)?;
        extra.clear();
        if self.header.columns == Columns::NONE {
            extra.resize(out.len(), Extra::default());
        } else {
            extra.extend_from_slice(&self.extras);
        }
        Ok(more)
    }

    /// Turn the decoded extra columns of the `k` records just decoded into
    /// `self.extras` (kept in step with the request columns whichever read call is
    /// used).
    fn assemble_extras(&mut self, k: usize) -> Result<()> {
        let cols = self.header.columns;
        let c = &self.cols;
        let bad = (0..k).fold(0, |b, j| b | (c[KIND][j] >> 8));
        if cols.contains(Columns::KIND) && bad != 0 {
            return Err(self.corrupt(format!(
                "chunk {}: kind tag out of range",
                self.seen.chunks - 1
            )));
        }
        self.extras.clear();
        self.extras.extend((0..k).map(|j| Extra {
            access: c[ACCESS][j],
            kind: c[KIND][j] as u8,
            group: c[GROUP][j],
        }));
        Ok(())
    }
}

impl RequestReader for Reader {
    fn read_batch(&mut self, out: &mut Vec<Request>) -> Result<bool> {
        out.clear();
        if self.left == 0 && !self.next_chunk()? {
            return Ok(false);
        }
        let k = self.left.min(BATCH);
        let extra = self.header.columns;
        let present = [
            true,
            true,
            true,
            true,
            true,
            extra.contains(Columns::ACCESS),
            extra.contains(Columns::KIND),
            extra.contains(Columns::GROUP),
        ];
        for (c, &here) in present.iter().enumerate() {
            if here {
                self.cursors[c].decode(&self.raw, &mut self.cols[c][..k]);
            }
        }
        let c = &self.cols;
        let (t, o, d, a, l) = (
            &c[TIME][..k],
            &c[OP][..k],
            &c[DEV][..k],
            &c[OFFSET][..k],
            &c[LEN][..k],
        );
        // One branch-free pass finds anything out of range: an op, device or length
        // that does not fit its type (corrupt), or a request outside the fast path of
        // `Request::check` (checked one by one below, for the message).
        let limit = ADDRESS_LIMIT - u64::from(u32::MAX);
        let bad = (0..k).fold(0, |b, j| {
            b | u64::from(o[j] > 2)
                | (d[j] >> DEV_LIMIT.trailing_zeros())
                | (l[j] >> 32)
                | u64::from(a[j] > limit)
        });
        if bad != 0 && (0..k).any(|j| o[j] > 2 || d[j] >> 32 != 0 || l[j] >> 32 != 0) {
            return Err(self.corrupt(format!(
                "chunk {}: op, device or length out of range",
                self.seen.chunks - 1
            )));
        }
        out.extend((0..k).map(|j| Request {
            time_ns: t[j],
            offset: a[j],
            len: l[j] as u32,
            dev: d[j] as u32,
            op: match o[j] {
                0 => Op::Read,
                1 => Op::Write,
                _ => Op::Trim,
            },
        }));
        if bad != 0 {
            if let Err(msg) = out.iter().try_for_each(Request::check) {
                return Err(self.corrupt(format!("chunk {}: {msg}", self.seen.chunks - 1)));
            }
        }
        if extra != Columns::NONE {
            self.assemble_extras(k)?;
        }
        self.left -= k;
        Ok(true)
    }

    fn meta(&self) -> &TraceMeta {
        &self.meta
    }

    fn distinct_keys(&self) -> Option<crate::DistinctKeys> {
        self.total.keys
    }
}

/// The end record at the end of a file of `len` bytes whose header is `hlen` bytes
/// long. When there is none, the file was cut or a write was interrupted: the error
/// says so and, if an earlier end record exists (before an interrupted append), names
/// the length that restores the file.
pub(super) fn last_end(
    path: &Path,
    f: &mut File,
    hlen: u64,
    len: u64,
    version: u16,
) -> Result<End> {
    let mut rec = [0u8; RECORD];
    if len >= hlen + RECORD as u64 {
        f.seek(SeekFrom::Start(len - RECORD as u64))
            .map_err(|e| Error::io(path, e))?;
        if read_full(f, &mut rec, path)? == RECORD {
            if let Some(end) = End::decode(&rec, version) {
                return Ok(end);
            }
        }
    }
    // Walk the record heads to find the last complete end record.
    let mut pos = hlen;
    let mut good = None;
    f.seek(SeekFrom::Start(pos))
        .map_err(|e| Error::io(path, e))?;
    while pos + RECORD as u64 <= len {
        if read_full(f, &mut rec, path)? < RECORD {
            break;
        }
        pos += RECORD as u64;
        if let Some(end) = End::decode(&rec, version) {
            good = Some((pos, end));
        } else if rec[..4] == CHUNK_MAGIC {
            pos += u64::from(ChunkHead::decode(&rec).packed);
            f.seek(SeekFrom::Start(pos))
                .map_err(|e| Error::io(path, e))?;
        } else {
            break;
        }
    }
    Err(corrupt(
        path,
        match good {
            Some((at, end)) => format!(
                "truncated (no end record at the end of the file; the first {} requests end \
                 at byte {at}: `truncate -s {at}` keeps them)",
                end.requests
            ),
            None => "truncated (no end record at the end of the file)".to_string(),
        },
    ))
}
