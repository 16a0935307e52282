//! The prepared-trace file (`.wprep`): a [`PreparedTrace`] kept on disk, so that a
//! run reads its arrays back instead of decoding and densifying the trace again.
//!
//! Layout (version 2, little-endian; `docs/formats.md`, "Prepared traces"):
//!
//! ```text
//! 0       8  magic "WAFERPRP"
//! 8       4  format version (u32)
//! 12      4  header length H (u32)
//! 16      H  header: JSON of [`Header`] (what it was prepared from, the counts)
//!            zero bytes up to a multiple of 8
//!            pages  u32 x events    dense page id of every event
//!            req    u32 x events    request index of every event
//!            times  u64 x requests  timestamp of every request
//!            keys   u64 x universe  page key of every dense id
//!            ops    u8  x events    0 read, 1 write, 2 trim
//!            zero bytes up to a multiple of 8
//! end-8   8  xxh3-64 of every byte before it, seeded with the xxh3-64 of the
//!            trace checksum the header records
//! ```
//!
//! Why this shape: the arrays are exactly [`PreparedTrace`]'s, so a run maps the
//! file read-only and uses them in place (`Words`): no decoding, no densifier, no
//! copy, and none of the page faults and zeroing that reading 90 MiB into fresh
//! memory costs; the ops (one byte each) are the only array converted. The
//! 8-byte-wide arrays come first so each starts aligned. The header is JSON because
//! it is small, read once, and a person can look at it (`head -c 600
//! trace.wtr.wprep`). The checksum covers header and arrays: a damaged file is
//! refused by name rather than simulated. It is keyed by the checksum of the trace
//! the file was prepared from (which a run compares with the trace it reads), so
//! arrays edited or copied from another trace with a plain checksum recomputed over
//! them are refused too. On top of it, [`PreparedFile::load`]
//! checks every index against the counts, so even a file written with a matching
//! checksum by something else cannot make a run index out of bounds. Next-use
//! indices and block maps are not stored: only offline and block-aware policies
//! need them, and they are derived in one pass when asked for.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use memmap2::Mmap;

use serde::{Deserialize, Serialize};
use wafer_trace::export::AtomicFile;
use wafer_trace::{Granularity, Op};
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed, Xxh3};

use super::{PreparedTrace, Words};
use crate::error::SimError;

/// First bytes of every prepared-trace file.
pub const MAGIC: &[u8; 8] = b"WAFERPRP";

/// Version of the layout written; a file of another version is not read.
pub const FORMAT_VERSION: u32 = 2;

/// The seed of a prepared file's checksum: its trace's checksum, hashed.
fn key(trace_checksum: &str) -> u64 {
    xxh3_64(trace_checksum.as_bytes())
}

/// Extension of a prepared-trace file (`TRACE.wprep`).
pub const EXTENSION: &str = "wprep";

/// Bytes converted and written per step.
const CHUNK: usize = 1 << 20;

/// What a prepared file was prepared from; a run compares it with its own trace
/// before using the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The trace's path when it was prepared (for messages; not compared).
    pub path: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, ns since the Unix epoch.
    pub mtime_ns: u64,
    /// xxh3-64 of its bytes (hex).
    pub checksum: String,
    /// The format it was read as, as a run records it (name, and a custom text
    /// trace's column mapping).
    pub format: String,
}

/// The header of a prepared file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// wafer version that wrote the file (information only).
    pub wafer: String,
    /// What it was prepared from.
    pub source: Source,
    /// How requests were expanded into accesses.
    pub granularity: Granularity,
    /// Requests.
    pub requests: u64,
    /// Events (accesses and trimmed pages).
    pub events: u64,
    /// Accesses (trims excluded).
    pub accesses: u64,
    /// Distinct pages.
    pub universe: u32,
}

impl Header {
    /// Bytes from the start of the file to the first array.
    fn data_offset(header_len: u64) -> u64 {
        (16 + header_len).next_multiple_of(8)
    }

    /// Bytes of the arrays, padding included, or None when the counts overflow.
    fn data_len(&self) -> Option<u64> {
        let words4 = self.events.checked_mul(8)?;
        let words8 = self
            .requests
            .checked_add(u64::from(self.universe))?
            .checked_mul(8)?;
        Some(
            words4
                .checked_add(words8)?
                .checked_add(self.events)?
                .next_multiple_of(8),
        )
    }
}

/// An opened prepared file whose header has been read.
#[derive(Debug)]
pub struct PreparedFile {
    path: PathBuf,
    file: File,
    header: Header,
    header_bytes: Vec<u8>,
}

/// What [`PreparedFile::open`] found.
#[derive(Debug)]
pub enum Opened {
    /// A file of this version, header read.
    Current(Box<PreparedFile>),
    /// A prepared file of another layout version (written by another wafer).
    OtherVersion(u32),
}

fn damaged(path: &Path, msg: impl Into<String>) -> SimError {
    SimError::PreparedFile {
        path: path.to_path_buf(),
        msg: msg.into(),
    }
}

fn io(path: &Path, e: std::io::Error) -> SimError {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        return damaged(path, "damaged prepared trace: truncated");
    }
    damaged(path, e.to_string())
}

impl PreparedFile {
    /// Open `path` and read its header.
    pub fn open(path: &Path) -> Result<Opened, SimError> {
        let mut file = File::open(path).map_err(|e| io(path, e))?;
        let mut fixed = [0u8; 16];
        file.read_exact(&mut fixed).map_err(|e| io(path, e))?;
        if &fixed[..8] != MAGIC {
            return Err(damaged(
                path,
                "not a prepared trace (no WAFERPRP magic); delete it or prepare again with `wafer trace prepare`",
            ));
        }
        let version = u32::from_le_bytes(fixed[8..12].try_into().expect("4 bytes"));
        if version != FORMAT_VERSION {
            return Ok(Opened::OtherVersion(version));
        }
        let header_len = u32::from_le_bytes(fixed[12..16].try_into().expect("4 bytes"));
        let file_len = file.metadata().map_err(|e| io(path, e))?.len();
        if u64::from(header_len) + 16 > file_len {
            return Err(damaged(path, "damaged prepared trace: truncated"));
        }
        let mut header_bytes = vec![0u8; header_len as usize];
        file.read_exact(&mut header_bytes)
            .map_err(|e| io(path, e))?;
        let header: Header = serde_json::from_slice(&header_bytes)
            .map_err(|e| damaged(path, format!("damaged prepared trace: header: {e}")))?;
        let want = header
            .data_len()
            .and_then(|d| d.checked_add(Header::data_offset(u64::from(header_len)) + 8));
        if want != Some(file_len) {
            return Err(damaged(
                path,
                format!(
                    "damaged prepared trace: {file_len} bytes, its header says {}",
                    want.map_or("more than 2^64".into(), |w| w.to_string())
                ),
            ));
        }
        let mut fixed_and_header = fixed.to_vec();
        fixed_and_header.extend_from_slice(&header_bytes);
        Ok(Opened::Current(Box::new(PreparedFile {
            path: path.to_path_buf(),
            file,
            header,
            header_bytes: fixed_and_header,
        })))
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The arrays as a [`PreparedTrace`] viewing the mapped file (copied on
    /// big-endian machines), after the checksum and every index are checked.
    pub fn load(self) -> Result<PreparedTrace, SimError> {
        let PreparedFile {
            path,
            file,
            header: h,
            header_bytes,
        } = self;
        let bad = |what: &str| damaged(&path, format!("damaged prepared trace: {what}"));
        let events = usize::try_from(h.events)
            .ok()
            .filter(|&n| n < u32::MAX as usize)
            .ok_or_else(|| bad("too many events"))?;
        let requests = usize::try_from(h.requests)
            .ok()
            .filter(|&n| n < u32::MAX as usize)
            .ok_or_else(|| bad("too many requests"))?;
        // SAFETY: the mapping is read-only, and wafer never writes a prepared file in
        // place (`save` renames a new file over it, which leaves a mapped file's bytes
        // as they were). Another program writing the file in place while a run maps
        // it is not guarded against (docs/formats.md, "Prepared traces").
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::MmapOptions::new().populate().map(&file) }
            .map_err(|e| io(&path, e))?;
        let map = Arc::new(map);
        let (body, sum) = map
            .split_last_chunk::<8>()
            .ok_or_else(|| bad("truncated"))?;
        if xxh3_64_with_seed(body, key(&h.source.checksum)) != u64::from_le_bytes(*sum) {
            return Err(bad(
                "checksum mismatch (damaged, or not prepared from the trace its header names)",
            ));
        }
        let mut at = Header::data_offset(header_bytes.len() as u64 - 16) as usize;
        let mut next = |n: usize, size: usize| {
            let start = at;
            at += n * size;
            start
        };
        let (pages_at, req_at) = (next(events, 4), next(events, 4));
        let (times_at, keys_at) = (next(requests, 8), next(h.universe as usize, 8));
        let ops_at = next(events, 1);
        let pages = words(&map, pages_at, events).ok_or_else(|| bad("layout"))?;
        let req = words(&map, req_at, events).ok_or_else(|| bad("layout"))?;
        let times = words(&map, times_at, requests).ok_or_else(|| bad("layout"))?;
        let keys = words(&map, keys_at, h.universe as usize).ok_or_else(|| bad("layout"))?;
        let op_bytes = map
            .get(ops_at..ops_at + events)
            .ok_or_else(|| bad("layout"))?;
        if let Some(b) = op_bytes.iter().find(|&&b| Op::from_u8(b).is_none()) {
            return Err(bad(&format!("op byte {b}")));
        }
        let ops: Vec<Op> = op_bytes
            .iter()
            .map(|&b| match b {
                0 => Op::Read,
                1 => Op::Write,
                _ => Op::Trim,
            })
            .collect();
        if pages.iter().copied().max().is_some_and(|m| m >= h.universe) {
            return Err(bad("a page id beyond the distinct pages"));
        }
        if req
            .iter()
            .copied()
            .max()
            .is_some_and(|m| m as usize >= requests)
        {
            return Err(bad("a request index beyond the requests"));
        }
        if ops.iter().filter(|&&o| o != Op::Trim).count() as u64 != h.accesses {
            return Err(bad("the accesses do not add up"));
        }
        Ok(PreparedTrace {
            granularity: h.granularity,
            pages,
            ops,
            req,
            times,
            keys,
            accesses: h.accesses,
            blocks: Mutex::new(Vec::new()),
            next_use: OnceLock::new(),
        })
    }
}

/// `len` little-endian values at byte `start` of `map`: a view on little-endian
/// machines, a converted copy on others. None when they do not fit the file.
fn words<T: bytemuck::Pod>(map: &Arc<Mmap>, start: usize, len: usize) -> Option<Words<T>> {
    if cfg!(target_endian = "little") {
        return Words::mapped(map, start, len);
    }
    let bytes = map.get(start..start.checked_add(len.checked_mul(size_of::<T>())?)?)?;
    let mut v = vec![T::zeroed(); len];
    let dst = bytemuck::cast_slice_mut::<T, u8>(&mut v);
    dst.copy_from_slice(bytes);
    dst.chunks_mut(size_of::<T>()).for_each(<[u8]>::reverse);
    Some(Words::Owned(v))
}

/// The writer of a prepared file: every byte hashed on its way out.
struct Out {
    file: AtomicFile,
    hash: Xxh3,
    buf: Vec<u8>,
}

impl Out {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.hash.update(bytes);
        self.file.write_all(bytes)
    }

    /// Write `words` little-endian, a chunk at a time.
    fn words<const N: usize, T: Copy>(
        &mut self,
        words: &[T],
        le: impl Fn(T) -> [u8; N],
    ) -> std::io::Result<()> {
        for chunk in words.chunks(CHUNK / N) {
            let mut buf = std::mem::take(&mut self.buf);
            buf.clear();
            for &w in chunk {
                buf.extend_from_slice(&le(w));
            }
            let r = self.put(&buf);
            self.buf = buf;
            r?;
        }
        Ok(())
    }

    fn pad_to_8(&mut self, written: u64) -> std::io::Result<()> {
        let n = (written.next_multiple_of(8) - written) as usize;
        self.put(&[0u8; 8][..n])
    }
}

impl PreparedTrace {
    /// Write this trace to `path` as a prepared file recording `source`, atomically:
    /// the file appears complete or not at all ([`AtomicFile`]).
    pub fn save(&self, path: &Path, source: Source) -> Result<(), SimError> {
        let header = Header {
            wafer: env!("CARGO_PKG_VERSION").to_string(),
            source,
            granularity: self.granularity,
            requests: self.times.len() as u64,
            events: self.pages.len() as u64,
            accesses: self.accesses,
            universe: self.universe(),
        };
        let json = serde_json::to_vec(&header).expect("a header serialises");
        let mut out = Out {
            file: AtomicFile::create(path)?,
            hash: Xxh3::with_seed(key(&header.source.checksum)),
            buf: Vec::with_capacity(CHUNK),
        };
        let w = |e| io(path, e);
        out.put(MAGIC).map_err(w)?;
        out.put(&FORMAT_VERSION.to_le_bytes()).map_err(w)?;
        out.put(&(json.len() as u32).to_le_bytes()).map_err(w)?;
        out.put(&json).map_err(w)?;
        out.pad_to_8(16 + json.len() as u64).map_err(w)?;
        out.words(&self.pages, u32::to_le_bytes).map_err(w)?;
        out.words(&self.req, u32::to_le_bytes).map_err(w)?;
        out.words(&self.times, u64::to_le_bytes).map_err(w)?;
        out.words(&self.keys, u64::to_le_bytes).map_err(w)?;
        out.words(&self.ops, |o: Op| [o as u8]).map_err(w)?;
        out.pad_to_8(self.ops.len() as u64).map_err(w)?;
        let sum = out.hash.digest();
        out.file.write_all(&sum.to_le_bytes()).map_err(w)?;
        out.file.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wafer_trace::Request;

    fn trace() -> PreparedTrace {
        let reqs: Vec<Request> = (0..50u64)
            .map(|i| Request {
                time_ns: i * 7,
                offset: (i * 13 % 17) * 4096,
                len: 4096 * (1 + (i % 3) as u32),
                dev: 0,
                op: [Op::Read, Op::Write, Op::Trim][(i % 5).min(2) as usize],
            })
            .collect();
        PreparedTrace::from_requests(Granularity::default(), &reqs).unwrap()
    }

    fn source() -> Source {
        Source {
            path: "t.csv".into(),
            size: 10,
            mtime_ns: 20,
            checksum: "00ff".into(),
            format: "wafer-csv".into(),
        }
    }

    fn load(path: &Path) -> Result<PreparedTrace, SimError> {
        match PreparedFile::open(path)? {
            Opened::Current(f) => f.load(),
            Opened::OtherVersion(v) => panic!("version {v}"),
        }
    }

    #[test]
    fn saved_trace_loads_back_identical() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.csv.wprep");
        let t = trace();
        t.save(&p, source()).unwrap();
        let Opened::Current(f) = PreparedFile::open(&p).unwrap() else {
            panic!("version")
        };
        assert_eq!(f.header().source, source());
        assert_eq!(f.header().events, t.events() as u64);
        let u = f.load().unwrap();
        assert_eq!(u.pages(), t.pages());
        assert_eq!(u.ops(), t.ops());
        assert_eq!(u.request_index(), t.request_index());
        assert_eq!(u.times(), t.times());
        assert_eq!(u.keys(), t.keys());
        assert_eq!(u.accesses(), t.accesses());
        assert_eq!(u.granularity(), t.granularity());
        assert_eq!(*u.next_use(), *t.next_use());
        // Only the file remains: the temporary was renamed over it.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn every_damage_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.wprep");
        trace().save(&p, source()).unwrap();
        let good = std::fs::read(&p).unwrap();
        let data_start = good.len() - 8 - trace().events() * 9 - trace().requests() * 8;
        let mut cases: Vec<(Vec<u8>, &str)> = vec![
            (good[..good.len() - 1].to_vec(), "bytes, its header says"),
            (good[..10].to_vec(), "truncated"),
            ([b"WAFERPRX", &good[8..]].concat(), "not a prepared trace"),
        ];
        let mut flipped = good.clone();
        flipped[data_start + 3] ^= 1;
        cases.push((flipped, "checksum mismatch"));
        let mut header = good.clone();
        header[20] = b'#';
        cases.push((header, "header"));
        for (bytes, want) in cases {
            std::fs::write(&p, &bytes).unwrap();
            let e = load(&p).unwrap_err().to_string();
            assert!(e.starts_with(&p.display().to_string()), "{e}");
            assert!(e.contains(want), "{e} lacks {want}");
            assert!(!e.contains('\n'), "{e}");
        }
        // Arrays changed and a plain checksum recomputed over them: refused.
        let mut forged = good.clone();
        forged[data_start + 3] ^= 1;
        let n = forged.len() - 8;
        let plain = xxh3_64(&forged[..n]).to_le_bytes();
        forged[n..].copy_from_slice(&plain);
        std::fs::write(&p, &forged).unwrap();
        let e = load(&p).unwrap_err().to_string();
        assert!(e.contains("not prepared from the trace"), "{e}");
        // A foreign writer that knows the keyed checksum still cannot make a run
        // index past the arrays: a page id beyond the distinct pages is refused.
        let hlen = u32::from_le_bytes(good[12..16].try_into().unwrap());
        let pages_at = Header::data_offset(u64::from(hlen)) as usize;
        let mut foreign = good.clone();
        foreign[pages_at..pages_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let keyed = xxh3_64_with_seed(&foreign[..n], key(&source().checksum));
        foreign[n..].copy_from_slice(&keyed.to_le_bytes());
        std::fs::write(&p, &foreign).unwrap();
        let e = load(&p).unwrap_err().to_string();
        assert!(e.starts_with(&p.display().to_string()), "{e}");
        assert!(e.contains("a page id beyond the distinct pages"), "{e}");
        // A header that claims more requests than the file holds is refused before
        // the file is mapped, so nothing is read past its end.
        let mut grown = good.clone();
        let at = grown
            .windows(11)
            .position(|w| w == b"\"requests\":")
            .unwrap()
            + 11;
        grown[at] = b'9';
        std::fs::write(&p, &grown).unwrap();
        let e = load(&p).unwrap_err().to_string();
        assert!(e.contains("bytes, its header says"), "{e}");
        let mut other = good.clone();
        other[8] = 9;
        std::fs::write(&p, &other).unwrap();
        assert!(matches!(
            PreparedFile::open(&p).unwrap(),
            Opened::OtherVersion(9)
        ));
    }
}
