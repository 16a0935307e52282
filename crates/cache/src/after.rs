//! The after-cache trace: every storage operation the cache sends below it, in order
//! (paper 000, TS-CLOCK: D. H. Kang, C. Min, Y. I. Eom, "An Efficient Buffer
//! Replacement Algorithm for NAND Flash Storage Devices", IEEE MASCOTS 2014,
//! Sec. IV-A; `docs/cache.md`, "After-cache trace").
//!
//! The engine reports each operation to an [`AfterSink`] as a [`StorageOp`]: the op,
//! the page key, the index of the page access that caused it, that access's request
//! timestamp, an eviction-group id and what kind of operation it is. Sinks are
//! generic parameters of the simulation loop (no dynamic call per operation). Writing
//! can fail; sinks keep the first error and return it from [`AfterSink::finish`], so
//! the loop itself stays free of error plumbing. A sink that failed says so through
//! [`AfterSink::failed`], which the engine asks only when it reports progress (every
//! 65,536 accesses): a full disk or a device error ends the run soon after it
//! happens, and the hot path pays nothing for it.
//!
//! Operations are one page each. Consecutive pages of one group can be merged by a
//! consumer (the group id says which belong together); the page counts stay the same
//! either way.
//!
//! Resolved details:
//! * Storage operations caused by warm-up accesses are not reported (the after-cache
//!   trace covers the measured part of the run, like the counters).
//! * Trims pass through as [`IoKind::Trim`] operations, one per page, whether or not
//!   the page was cached.
//! * The request written for a page uses the run's unit: offset = page number x page
//!   size, length = page size (512 B sectors in record mode), device from the key.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use wafer_trace::export::AtomicFile;
use wafer_trace::{wtr, Error, Op, Request};

/// Why a storage operation happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[repr(u8)]
pub enum IoKind {
    /// The read of a missed page (a read miss, or a write miss with fetch-on-write-miss).
    Miss = 0,
    /// A dirty page written back by the policy.
    WriteBack = 1,
    /// A padding read of a block-level policy (BPLRU).
    PadRead = 2,
    /// A padding write (a clean or padded page written as part of a block write).
    PadWrite = 3,
    /// A dirty page written by flush-at-end.
    Flush = 4,
    /// A trim passed through.
    Trim = 5,
}

impl IoKind {
    /// Every kind, in tag order.
    pub const ALL: [IoKind; 6] = [
        IoKind::Miss,
        IoKind::WriteBack,
        IoKind::PadRead,
        IoKind::PadWrite,
        IoKind::Flush,
        IoKind::Trim,
    ];

    /// Short name used in CSV output.
    pub fn name(self) -> &'static str {
        match self {
            IoKind::Miss => "miss",
            IoKind::WriteBack => "write-back",
            IoKind::PadRead => "pad-read",
            IoKind::PadWrite => "pad-write",
            IoKind::Flush => "flush",
            IoKind::Trim => "trim",
        }
    }

    /// The tag stored with each record of a `.wtr` after-cache trace.
    pub fn tag(self) -> u8 {
        self as u8
    }

    /// The kind of a `.wtr` record tag.
    pub fn from_tag(tag: u8) -> Option<IoKind> {
        IoKind::ALL.get(usize::from(tag)).copied()
    }
}

/// One page-sized storage operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageOp {
    /// Read, write or trim.
    pub op: Op,
    /// Why it happened.
    pub kind: IoKind,
    /// Page key (`wafer_trace::page_key`): device above bit 44, page number below.
    pub key: u64,
    /// 0-based index of the page access that caused it (for flush-at-end: the number
    /// of accesses, i.e. one past the last).
    pub access: u64,
    /// Timestamp of that access's request (ns, or `wafer_trace::NO_TIME`).
    pub time_ns: u64,
    /// Eviction group (one victim block of a block-level policy), numbered from 1;
    /// 0 = not part of a group.
    pub group: u64,
}

impl StorageOp {
    /// Device number of the page.
    pub fn dev(&self) -> u32 {
        wafer_trace::key_dev(self.key)
    }

    /// Page number within the device.
    pub fn page(&self) -> u64 {
        wafer_trace::key_page(self.key)
    }

    /// The operation as a one-page request, with pages of `unit` bytes.
    pub fn request(&self, unit: u32) -> Request {
        Request {
            time_ns: self.time_ns,
            offset: self.page() * u64::from(unit),
            len: unit,
            dev: self.dev(),
            op: self.op,
        }
    }
}

/// Why the after-cache trace could not be taken in.
#[derive(Debug, thiserror::Error)]
pub enum AfterError {
    /// Writing the after-cache trace file failed (a full disk, a removed folder).
    #[error(transparent)]
    Write(#[from] Error),
    /// The storage below the cache (a simulated device) refused an operation.
    #[error("device: {0}")]
    Device(Box<dyn std::error::Error + Send + Sync>),
}

/// Receives the after-cache trace.
pub trait AfterSink {
    /// One storage operation, in emission order.
    fn push(&mut self, op: &StorageOp);

    /// Whether the sink takes reads. A sink that only looks at writes says no, and
    /// the engine then skips building a read's operation (and looking up its key: a
    /// random read in a large table) on every miss.
    #[inline]
    fn takes_reads(&self) -> bool {
        true
    }

    /// Whether the sink reads [`StorageOp::time_ns`]. A sink that does not says no,
    /// and a run over a prepared trace then leaves each access's timestamp unread
    /// (12 bytes an access less to stream through the caches: BENCHMARKS.md,
    /// "Cores").
    #[inline]
    fn takes_time(&self) -> bool {
        true
    }

    /// Whether an operation failed already, so that the rest of the run is wasted:
    /// the engine then stops and returns the error of [`AfterSink::finish`]. Asked
    /// now and then (with progress reports), not per operation.
    #[inline]
    fn failed(&self) -> bool {
        false
    }

    /// End of the run: flush buffers and report the first error, if any.
    fn finish(&mut self) -> Result<(), AfterError> {
        Ok(())
    }
}

/// Discards everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct NullSink;

impl AfterSink for NullSink {
    #[inline]
    fn push(&mut self, _: &StorageOp) {}

    #[inline]
    fn takes_reads(&self) -> bool {
        false
    }

    #[inline]
    fn takes_time(&self) -> bool {
        false
    }
}

/// Keeps every operation in memory (tests, small runs).
#[derive(Clone, Debug, Default)]
pub struct VecSink {
    /// Operations in order.
    pub ops: Vec<StorageOp>,
}

impl AfterSink for VecSink {
    fn push(&mut self, op: &StorageOp) {
        self.ops.push(*op);
    }
}

/// Writes the after-cache trace as CSV with header
/// `access,time_ns,op,kind,group,dev,page,offset,len`. Like [`WtrSink`], the file
/// appears (replacing any old one) only when [`AfterSink::finish`] succeeds: a run
/// that fails half-way, or a full disk, leaves the old file as it was.
pub struct CsvSink {
    out: Option<AtomicFile>,
    unit: u32,
    error: Option<std::io::Error>,
}

impl CsvSink {
    /// Start writing `path`; pages are `unit` bytes.
    pub fn create(path: &Path, unit: u32) -> Result<CsvSink, Error> {
        let mut out = AtomicFile::create(path)?;
        let error = writeln!(out, "{}", wafer_trace::export::AFTER_CSV_HEADER).err();
        Ok(CsvSink {
            out: Some(out),
            unit,
            error,
        })
    }
}

impl AfterSink for CsvSink {
    fn push(&mut self, op: &StorageOp) {
        let Some(out) = self.out.as_mut().filter(|_| self.error.is_none()) else {
            return;
        };
        let r = write!(out, "{},", op.access)
            .and_then(|()| {
                if op.time_ns == wafer_trace::NO_TIME {
                    Ok(())
                } else {
                    write!(out, "{}", op.time_ns)
                }
            })
            .and_then(|()| {
                writeln!(
                    out,
                    ",{},{},{},{},{},{},{}",
                    op.op.letter(),
                    op.kind.name(),
                    op.group,
                    op.dev(),
                    op.page(),
                    op.page() * u64::from(self.unit),
                    self.unit
                )
            });
        self.error = r.err();
    }

    fn failed(&self) -> bool {
        self.error.is_some()
    }

    fn finish(&mut self) -> Result<(), AfterError> {
        let out = self
            .out
            .take()
            .ok_or_else(|| Error::Invalid("after-cache trace finished twice".into()))?;
        match self.error.take() {
            Some(e) => Err(Error::io(out.path(), e).into()),
            None => Ok(out.commit()?),
        }
    }
}

/// Writes the after-cache trace in wafer's `.wtr` format: each operation as a
/// one-page request plus the extra columns access index, kind tag
/// ([`IoKind::tag`]) and group. `wafer trace info/head` read it like any trace;
/// [`wafer_trace::wtr::Reader::read_batch_with`] also returns the extra columns.
/// The file appears only when [`AfterSink::finish`] succeeds.
pub struct WtrSink {
    path: PathBuf,
    writer: Option<Box<wtr::Writer>>,
    unit: u32,
    error: Option<Error>,
}

impl WtrSink {
    /// Create `path`; pages are `unit` bytes (recorded as the file's page size).
    pub fn create(path: &Path, unit: u32) -> Result<WtrSink, Error> {
        let header = wtr::Header {
            has_time: true,
            has_op: true,
            page_size: unit,
            columns: wtr::Columns::AFTER,
            chunk: wtr::DEFAULT_CHUNK,
            origin: "wafer after-cache trace: one storage operation per record".to_string(),
        };
        Ok(WtrSink {
            path: path.to_path_buf(),
            writer: Some(Box::new(wtr::Writer::create(path, header)?)),
            unit,
            error: None,
        })
    }
}

impl AfterSink for WtrSink {
    #[inline]
    fn push(&mut self, op: &StorageOp) {
        if self.error.is_some() {
            return;
        }
        if let Some(w) = self.writer.as_mut() {
            let extra = wtr::Extra {
                access: op.access,
                kind: op.kind.tag(),
                group: op.group,
            };
            if let Err(e) = w.push_with(&op.request(self.unit), &extra) {
                self.error = Some(e);
            }
        }
    }

    fn failed(&self) -> bool {
        self.error.is_some()
    }

    fn finish(&mut self) -> Result<(), AfterError> {
        if let Some(e) = self.error.take() {
            return Err(e.into());
        }
        match self.writer.take() {
            Some(w) => Ok(w.finish().map(|_| ())?),
            None => Err(Error::Invalid(format!(
                "{}: after-cache trace finished twice",
                self.path.display()
            ))
            .into()),
        }
    }
}

/// An after-cache trace file, format chosen by extension (`.csv`, `.wtr`).
pub enum FileSink {
    /// CSV text.
    Csv(CsvSink),
    /// wafer's binary format with the access, kind and group columns.
    Wtr(WtrSink),
}

impl FileSink {
    /// Create `path`, choosing the format from its extension; pages are `unit` bytes.
    pub fn create(path: &Path, unit: u32) -> Result<FileSink, Error> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase());
        match ext.as_deref() {
            Some("csv") => Ok(FileSink::Csv(CsvSink::create(path, unit)?)),
            Some("wtr") => Ok(FileSink::Wtr(WtrSink::create(path, unit)?)),
            _ => Err(Error::Invalid(format!(
                "{}: after-cache trace must end in {}",
                path.display(),
                FileSink::EXTENSIONS.join(" or ")
            ))),
        }
    }

    /// Extensions [`FileSink::create`] understands.
    pub const EXTENSIONS: &'static [&'static str] = &[".csv", ".wtr"];
}

impl AfterSink for FileSink {
    #[inline]
    fn push(&mut self, op: &StorageOp) {
        match self {
            FileSink::Csv(s) => s.push(op),
            FileSink::Wtr(s) => s.push(op),
        }
    }

    fn failed(&self) -> bool {
        match self {
            FileSink::Csv(s) => s.failed(),
            FileSink::Wtr(s) => s.failed(),
        }
    }

    fn finish(&mut self) -> Result<(), AfterError> {
        match self {
            FileSink::Csv(s) => s.finish(),
            FileSink::Wtr(s) => s.finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_tags() {
        for k in IoKind::ALL {
            assert_eq!(IoKind::from_tag(k.tag()), Some(k));
        }
        assert_eq!(IoKind::from_tag(9), None);
    }

    #[test]
    fn request_splits_device_and_page() {
        let op = StorageOp {
            op: Op::Write,
            kind: IoKind::WriteBack,
            key: wafer_trace::page_key(3, 17),
            access: 5,
            time_ns: 99,
            group: 0,
        };
        assert_eq!(op.dev(), 3);
        assert_eq!(op.page(), 17);
        let r = op.request(4096);
        assert_eq!(
            (r.offset, r.len, r.dev, r.op),
            (17 * 4096, 4096, 3, Op::Write)
        );
    }

    #[test]
    fn csv_sink_writes_header_and_rows() {
        let dir = std::env::temp_dir().join(format!("wafer-after-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.csv");
        let mut s = CsvSink::create(&p, 4096).unwrap();
        s.push(&StorageOp {
            op: Op::Read,
            kind: IoKind::Miss,
            key: 2,
            access: 0,
            time_ns: wafer_trace::NO_TIME,
            group: 0,
        });
        assert!(!p.exists(), "nothing before finish");
        s.finish().unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            text,
            "access,time_ns,op,kind,group,dev,page,offset,len\n0,,R,miss,0,0,2,8192,4096\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn csv_sink_dropped_unfinished_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.csv");
        std::fs::write(&p, b"old").unwrap();
        let mut s = FileSink::create(&p, 4096).unwrap();
        s.push(&StorageOp {
            op: Op::Write,
            kind: IoKind::WriteBack,
            key: 1,
            access: 0,
            time_ns: 0,
            group: 0,
        });
        drop(s);
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn wtr_sink_keeps_every_column() {
        let dir = std::env::temp_dir().join(format!("wafer-after-wtr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.wtr");
        let mut s = FileSink::create(&p, 4096).unwrap();
        let ops: Vec<StorageOp> = (0..10_000u64)
            .map(|i| StorageOp {
                op: if i % 3 == 0 { Op::Read } else { Op::Write },
                kind: IoKind::ALL[(i % 6) as usize],
                key: wafer_trace::page_key((i % 2) as u32, i * 7 % 1000),
                access: i * 2,
                time_ns: if i % 5 == 0 {
                    wafer_trace::NO_TIME
                } else {
                    i * 100
                },
                group: i / 32,
            })
            .collect();
        for op in &ops {
            s.push(op);
        }
        s.finish().unwrap();
        let mut r = wtr::Reader::open(&p).unwrap();
        assert_eq!(r.header().page_size, 4096);
        let (mut reqs, mut extra, mut back) = (vec![], vec![], vec![]);
        while r.read_batch_with(&mut reqs, &mut extra).unwrap() {
            for (q, x) in reqs.iter().zip(&extra) {
                back.push(StorageOp {
                    op: q.op,
                    kind: IoKind::from_tag(x.kind).unwrap(),
                    key: wafer_trace::page_key(q.dev, q.offset / 4096),
                    access: x.access,
                    time_ns: q.time_ns,
                    group: x.group,
                });
                assert_eq!(q.len, 4096);
            }
        }
        assert_eq!(back, ops);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
