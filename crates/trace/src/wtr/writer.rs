//! Writing `.wtr` files: new files are written to a temporary file beside the target
//! and renamed over it by [`Writer::finish`] (a reader never sees a half-written
//! file); [`Writer::append`] adds chunks to an existing file in place.

#[cfg(doc)]
use super::DEFAULT_CHUNK;
use super::{columns, ChunkHead, Columns, End, Extra, Header, MAX_CHUNK, MAX_ORIGIN, VERSION};
use crate::distinct::KeySketch;
use crate::error::{Error, Result};
use crate::request::Request;
use crate::DistinctKeys;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// zstd level of the chunks: decoding speed does not depend on it, and higher levels
/// gain little on bit-packed columns while costing encoding time.
const LEVEL: i32 = 3;

/// Where the bytes go.
enum Target {
    /// A new file, renamed into place by `finish`.
    Temp(tempfile::NamedTempFile),
    /// An existing file being appended to.
    InPlace(File),
}

impl Write for Target {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Target::Temp(f) => f.write(buf),
            Target::InPlace(f) => f.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Target::Temp(f) => f.flush(),
            Target::InPlace(f) => f.flush(),
        }
    }
}

/// Streams requests into a `.wtr` file, one chunk at a time (memory: one chunk).
pub struct Writer {
    path: PathBuf,
    out: BufWriter<Target>,
    header: Header,
    pending: Vec<Request>,
    extras: Vec<Extra>,
    scratch: Vec<u64>,
    raw: Vec<u8>,
    packed: Vec<u8>,
    zstd: zstd::bulk::Compressor<'static>,
    chunks: u64,
    requests: u64,
    /// The file's format version (an append keeps the version it finds).
    version: u16,
    /// Distinct keys of the requests this writer adds.
    sketch: KeySketch,
    /// The estimate of the file appended to, if it has one.
    before: Option<DistinctKeys>,
}

impl Writer {
    /// Start a new `.wtr` file at `path` described by `header` (its `chunk` is the
    /// number of requests per chunk, 1..=[`MAX_CHUNK`]; [`DEFAULT_CHUNK`] is a good
    /// choice). Nothing appears at `path` until [`Writer::finish`].
    pub fn create(path: &Path, header: Header) -> Result<Writer> {
        if header.chunk == 0 || header.chunk > MAX_CHUNK {
            return Err(Error::Invalid(format!(
                "{}: .wtr chunk size must be 1..={MAX_CHUNK} requests, not {}",
                path.display(),
                header.chunk
            )));
        }
        if header.page_size != 0 && !crate::units::is_page_size(header.page_size) {
            return Err(Error::Invalid(format!(
                "{}: .wtr page size hint {} is neither 0 (not stated) nor a power of two from 512 B to 1 GiB",
                path.display(),
                header.page_size
            )));
        }
        if header.origin.len() > MAX_ORIGIN {
            return Err(Error::Invalid(format!(
                "{}: the origin text is {} bytes; a .wtr header holds at most \
                 {MAX_ORIGIN} bytes",
                path.display(),
                header.origin.len()
            )));
        }
        // A .wtr file is replaced whole, by a rename, so its target must be a file
        // (a symlink to one is followed).
        let Some(real) = crate::export::replaced(path)? else {
            return Err(Error::Invalid(format!(
                "{}: not a regular file; a .wtr trace is written to a file",
                path.display()
            )));
        };
        let tmp = crate::tempfiles::temp_beside(&real)?;
        let start = End {
            requests: 0,
            chunks: 0,
            keys: None,
        };
        let mut w = Writer::new(&real, Target::Temp(tmp), header, start, VERSION)?;
        let bytes = w.header.encode(VERSION);
        w.out.write_all(&bytes).map_err(|e| Error::io(path, e))?;
        Ok(w)
    }

    /// Open the `.wtr` file at `path` to add requests after the ones it holds. The
    /// header (and so the column set) stays as it is. The existing end record is
    /// kept; new chunks and a new end record follow it, so an interrupted append is
    /// reported as a truncation and the old requests stay readable after
    /// `truncate -s <old length>`.
    ///
    /// The file keeps its format version. Version 2's distinct-key estimate becomes
    /// the larger of the file's and the appended requests' (the old keys are not read
    /// again, so the union is not known; the larger is a lower bound of it, as a
    /// sizing hint must be).
    pub fn append(path: &Path) -> Result<Writer> {
        let mut f = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        let (header, hlen, version) = Header::decode(path, |buf| read_full(&mut f, buf, path))?;
        f.seek(SeekFrom::Start(0)).map_err(|e| Error::io(path, e))?;
        let len = f.metadata().map_err(|e| Error::io(path, e))?.len();
        let end = super::reader::last_end(path, &mut f, hlen, len, version)?;
        f.seek(SeekFrom::End(0)).map_err(|e| Error::io(path, e))?;
        Writer::new(path, Target::InPlace(f), header, end, version)
    }

    /// A writer continuing after `end` (the totals so far) in format `version`.
    fn new(path: &Path, target: Target, header: Header, end: End, version: u16) -> Result<Writer> {
        let n = header.chunk as usize;
        Ok(Writer {
            path: path.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, target),
            pending: Vec::with_capacity(n),
            extras: Vec::with_capacity(if header.columns == Columns::NONE {
                0
            } else {
                n
            }),
            header,
            scratch: Vec::with_capacity(n),
            raw: Vec::new(),
            packed: Vec::new(),
            zstd: zstd::bulk::Compressor::new(LEVEL).map_err(|e| Error::io(path, e))?,
            chunks: end.chunks,
            requests: end.requests,
            version,
            sketch: KeySketch::default(),
            before: end.keys,
        })
    }

    /// The header of the file being written.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Add one request (extra columns, if the file has any, are stored as 0).
    #[inline]
    pub fn push(&mut self, r: &Request) -> Result<()> {
        self.push_with(r, &Extra::default())
    }

    /// Add one request with its extra columns (ignored where the file has none).
    #[inline]
    pub fn push_with(&mut self, r: &Request, e: &Extra) -> Result<()> {
        if self.version == VERSION {
            self.sketch.insert(r);
        }
        self.pending.push(*r);
        if self.header.columns != Columns::NONE {
            self.extras.push(*e);
        }
        if self.pending.len() >= self.header.chunk as usize {
            self.flush_chunk()?;
        }
        Ok(())
    }

    /// Requests written so far, including those of the file appended to.
    pub fn requests(&self) -> u64 {
        self.requests + self.pending.len() as u64
    }

    /// Encode and write the pending requests as one chunk.
    fn flush_chunk(&mut self) -> Result<()> {
        let n = self.pending.len();
        if n == 0 {
            return Ok(());
        }
        self.raw.clear();
        let cols = self.header.columns;
        let (p, x, s, raw) = (
            &self.pending,
            &self.extras,
            &mut self.scratch,
            &mut self.raw,
        );
        let mut col = |f: &dyn Fn(usize) -> u64| {
            s.clear();
            s.extend((0..n).map(f));
            columns::encode(s, raw);
        };
        col(&|i| p[i].time_ns);
        col(&|i| p[i].op as u64);
        col(&|i| u64::from(p[i].dev));
        col(&|i| p[i].offset);
        col(&|i| u64::from(p[i].len));
        if cols.contains(Columns::ACCESS) {
            col(&|i| x[i].access);
        }
        if cols.contains(Columns::KIND) {
            col(&|i| u64::from(x[i].kind));
        }
        if cols.contains(Columns::GROUP) {
            col(&|i| x[i].group);
        }
        self.packed.clear();
        self.packed
            .reserve(zstd::zstd_safe::compress_bound(self.raw.len()));
        self.zstd
            .compress_to_buffer(&self.raw[..], &mut self.packed)
            .map_err(|e| Error::io(&self.path, e))?;
        let head = ChunkHead {
            seq: u32::try_from(self.chunks).map_err(|_| {
                Error::Invalid(format!("{}: more than 2^32 chunks", self.path.display()))
            })?,
            count: n as u32,
            packed: self.packed.len() as u32,
            raw: self.raw.len() as u32,
        };
        let bytes = head.encode(&self.packed);
        self.out
            .write_all(&bytes)
            .and_then(|()| self.out.write_all(&self.packed))
            .map_err(|e| Error::io(&self.path, e))?;
        self.chunks += 1;
        self.requests += n as u64;
        self.pending.clear();
        self.extras.clear();
        Ok(())
    }

    /// Write the last chunk and the end record, then move the file into place (new
    /// files) or flush it (appends). Returns the file's total request count.
    pub fn finish(mut self) -> Result<u64> {
        self.flush_chunk()?;
        let added = self.sketch.estimate();
        let keys = match self.before {
            Some(b) => DistinctKeys {
                records: b.records.max(added.records),
                pages_4k: b.pages_4k.max(added.pages_4k),
            },
            None => added,
        };
        let end = End {
            requests: self.requests,
            chunks: self.chunks,
            keys: Some(keys),
        };
        let path = self.path.clone();
        self.out
            .write_all(&end.encode(self.version))
            .map_err(|e| Error::io(&path, e))?;
        let target = self
            .out
            .into_inner()
            .map_err(|e| Error::io(&path, e.into_error()))?;
        match target {
            Target::Temp(t) => crate::export::persist(t, &path)?,
            Target::InPlace(f) => f.sync_all().map_err(|e| Error::io(&path, e))?,
        }
        Ok(end.requests)
    }
}

/// Read into `buf` until it is full or the file ends; returns the bytes read.
pub(super) fn read_full(f: &mut File, buf: &mut [u8], path: &Path) -> Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(path, e)),
        }
    }
    Ok(n)
}
