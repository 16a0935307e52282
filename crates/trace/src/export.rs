//! Writing traces: wafer's `.wtr`, a plain CSV wafer reads back (`wafer-csv`), and
//! fio's iolog versions 2 and 3 for `fio --read_iolog`.
//!
//! Every [`TraceWriter`] writes to a temporary file beside the target and renames it
//! into place in [`TraceWriter::finish`] ([`AtomicFile`]): an interrupted or failed
//! export (a full disk, a malformed input record) never leaves a half-written file
//! under the final name, and the temporary is removed.
//!
//! * **CSV** (`wafer-csv`): header `time_ns,op,dev,offset,len`, then one line per
//!   request: time in ns (empty when the request has none), op `R`/`W`/`T`, device,
//!   byte offset, byte length. Reading it back yields exactly the requests written.
//! * **fio iolog v2** (fio's HOWTO, "Trace file format"): `fio version 2 iolog`, then
//!   `<file> add` and `<file> open`, one `<file> read|write|trim <offset> <len>` line
//!   per request, `<file> close` at the end. The file is [`FIO_TARGET`] unless the
//!   caller names another ([`TraceWriter::create_fio_iolog`]). Requests of device
//!   `d` other than the first device seen go to `<file>.<d>` (added and opened when
//!   first used), so multi-volume traces keep their address spaces apart. Version 2
//!   has no timestamps (fio replays as fast as it can, or paced by its own options);
//!   zero-length requests carry no I/O and are left out.
//! * **fio iolog v3** (fio's HOWTO, "Trace file format v3", fio 3.31 and later): the
//!   same lines as v2, each preceded by a timestamp: `fio version 3 iolog`, then
//!   `<us> <file> add|open|close` and `<us> <file> read|write|trim <offset> <len>`.
//!   The HOWTO says only that timestamps start at 0 at the beginning of the run; fio
//!   writes them, and waits for them on replay, in microseconds, so wafer writes each
//!   request's time minus the first request's, in whole microseconds (rounded down).
//!   A file is added and opened at the time of its first request and closed at the
//!   last request's time. A request without a time is refused (write v2 instead); a
//!   time before the first request's is written as 0 (fio does not wait for a time
//!   that goes back either).

use crate::error::{Error, Result};
use crate::request::{Request, NO_TIME};
use crate::wtr::{self, Columns, Header};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// fio target file used when the caller names none.
pub const FIO_TARGET: &str = "/dev/wafer-target";

/// Header line of wafer's CSV export (and how the `wafer-csv` reader recognises it).
pub const CSV_HEADER: &str = "time_ns,op,dev,offset,len";

/// Header of the after-cache CSV that `wafer sim --after X.csv` writes (one storage
/// operation per line: the access that caused it, its time, op, kind, eviction group,
/// device, page, byte offset and length); read back as the `after-csv` format.
pub const AFTER_CSV_HEADER: &str = "access,time_ns,op,kind,group,dev,page,offset,len";

/// An output trace format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutFormat {
    /// wafer's binary format.
    Wtr,
    /// `time_ns,op,dev,offset,len` CSV.
    Csv,
    /// fio iolog version 2.
    FioIolog,
    /// fio iolog version 3 (timestamped).
    FioIologV3,
}

impl OutFormat {
    /// All output formats.
    pub const ALL: [OutFormat; 4] = [
        OutFormat::Wtr,
        OutFormat::Csv,
        OutFormat::FioIolog,
        OutFormat::FioIologV3,
    ];

    /// The format a file name implies: `.wtr`, `.csv`, `.iolog` (any case; version 2,
    /// the one every fio reads).
    pub fn from_path(p: &Path) -> Option<OutFormat> {
        let ext = p.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "wtr" => Some(OutFormat::Wtr),
            "csv" => Some(OutFormat::Csv),
            "iolog" => Some(OutFormat::FioIolog),
            _ => None,
        }
    }

    /// Parse a name: `wtr`, `csv`, `fio-iolog`, `fio-iolog-v3`.
    pub fn parse(name: &str) -> Result<OutFormat> {
        OutFormat::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "unknown output format `{name}` (expected one of: wtr, csv, fio-iolog, \
                     fio-iolog-v3)"
                ))
            })
    }

    /// The name [`OutFormat::parse`] accepts.
    pub fn name(self) -> &'static str {
        match self {
            OutFormat::Wtr => "wtr",
            OutFormat::Csv => "csv",
            OutFormat::FioIolog => "fio-iolog",
            OutFormat::FioIologV3 => "fio-iolog-v3",
        }
    }
}

/// What a writer records about the trace (stored in `.wtr` headers; the text formats
/// have no place for it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteInfo {
    /// Where the trace came from (a file name, a generator and its seed, ...).
    pub origin: String,
    /// The page size it is meant to be read with (0 = not stated).
    pub page_size: u32,
    /// Whether requests carry timestamps.
    pub has_time: bool,
    /// Whether reads and writes are told apart.
    pub has_op: bool,
}

/// Writes requests to a file in one of the [`OutFormat`]s.
pub struct TraceWriter {
    inner: Inner,
    written: u64,
}

enum Inner {
    Wtr(wtr::Writer),
    Text(Text),
}

/// A text output written to a temporary file.
struct Text {
    out: AtomicFile,
    line: Vec<u8>,
    fio: Option<Fio>,
}

/// fio iolog state: the base target name and the devices opened so far.
struct Fio {
    target: String,
    /// Devices with an open file, the first one mapped to `target` itself.
    devs: Vec<u32>,
    /// Version 3 only: the first request's time (ns) once seen, and the last
    /// timestamp written (us).
    v3: Option<(Option<u64>, u64)>,
    /// The `<us> ` prefix of the current request's lines (empty for version 2).
    stamp: Vec<u8>,
}

impl TraceWriter {
    /// Create `path` in `format` (fio iologs target [`FIO_TARGET`]). A `.wtr` origin
    /// longer than [`wtr::MAX_ORIGIN`] bytes is refused, not cut.
    pub fn create(path: &Path, format: OutFormat, info: &WriteInfo) -> Result<TraceWriter> {
        let inner = match format {
            OutFormat::Wtr => Inner::Wtr(wtr::Writer::create(
                path,
                Header {
                    has_time: info.has_time,
                    has_op: info.has_op,
                    page_size: info.page_size,
                    columns: Columns::NONE,
                    chunk: wtr::DEFAULT_CHUNK,
                    origin: info.origin.clone(),
                },
            )?),
            OutFormat::Csv => {
                let mut t = Text::create(path, None)?;
                t.line.extend_from_slice(CSV_HEADER.as_bytes());
                t.line.push(b'\n');
                t.emit()?;
                Inner::Text(t)
            }
            OutFormat::FioIolog => return TraceWriter::create_fio_iolog(path, FIO_TARGET),
            OutFormat::FioIologV3 => return TraceWriter::create_fio_iolog_v3(path, FIO_TARGET),
        };
        Ok(TraceWriter { inner, written: 0 })
    }

    /// Create a fio iolog (version 2) at `path` whose I/O goes to the file or device
    /// `target`.
    pub fn create_fio_iolog(path: &Path, target: &str) -> Result<TraceWriter> {
        TraceWriter::fio(path, target, 2)
    }

    /// Create a timestamped fio iolog (version 3) at `path` whose I/O goes to the
    /// file or device `target`. Every request needs a time.
    pub fn create_fio_iolog_v3(path: &Path, target: &str) -> Result<TraceWriter> {
        TraceWriter::fio(path, target, 3)
    }

    fn fio(path: &Path, target: &str, version: u8) -> Result<TraceWriter> {
        if target.is_empty() || target.chars().any(char::is_whitespace) {
            return Err(Error::Invalid(format!(
                "fio target `{target}` must be a non-empty name without spaces"
            )));
        }
        let mut t = Text::create(
            path,
            Some(Fio {
                target: target.to_string(),
                devs: Vec::new(),
                v3: (version == 3).then_some((None, 0)),
                stamp: Vec::new(),
            }),
        )?;
        t.line.extend_from_slice(if version == 3 {
            b"fio version 3 iolog\n".as_slice()
        } else {
            b"fio version 2 iolog\n"
        });
        t.emit()?;
        Ok(TraceWriter {
            inner: Inner::Text(t),
            written: 0,
        })
    }

    /// Write one request.
    pub fn write(&mut self, r: &Request) -> Result<()> {
        match &mut self.inner {
            Inner::Wtr(w) => w.push(r)?,
            Inner::Text(t) => t.write(r)?,
        }
        self.written += 1;
        Ok(())
    }

    /// Write requests in order.
    pub fn write_all(&mut self, rs: &[Request]) -> Result<()> {
        rs.iter().try_for_each(|r| self.write(r))
    }

    /// Requests written so far (the fio iolog leaves zero-length ones out of the file
    /// but counts them here).
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Complete the file and move it into place. Returns the requests written.
    pub fn finish(self) -> Result<u64> {
        match self.inner {
            Inner::Wtr(w) => {
                w.finish()?;
            }
            Inner::Text(t) => t.finish()?,
        }
        Ok(self.written)
    }
}

/// A file written under a temporary name in the target's folder and moved over the
/// target by [`AtomicFile::commit`] after an fsync, so the target holds either its
/// old content or the complete new one, never a part. Dropped without a commit (an
/// error on the way), the temporary is deleted. A target that is not a regular file
/// (a terminal, a pipe, `/dev/stdout`) is written in place instead: a rename would
/// replace it, not write to it.
pub struct AtomicFile {
    path: PathBuf,
    out: BufWriter<Out>,
}

/// Where an [`AtomicFile`]'s bytes go.
enum Out {
    Temp(tempfile::NamedTempFile),
    Stream(File),
    /// This process's standard output (`/dev/stdout`): written through its handle,
    /// since opening the path again would write a redirected file from its start.
    Stdout(std::io::Stdout),
}

/// Whether `path` names this process's standard output.
fn is_stdout(path: &Path) -> bool {
    ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
        .iter()
        .any(|p| path == Path::new(p))
}

impl AtomicFile {
    /// Start writing `path` (nothing appears there before [`AtomicFile::commit`]).
    pub fn create(path: &Path) -> Result<AtomicFile> {
        let (path, out) = match replaced(path)? {
            Some(real) => {
                let tmp = crate::tempfiles::temp_beside(&real)?;
                (real, Out::Temp(tmp))
            }
            None if is_stdout(path) => (path.to_path_buf(), Out::Stdout(std::io::stdout())),
            None => {
                let f = File::options()
                    .write(true)
                    .open(path)
                    .map_err(|e| Error::io(path, e))?;
                (path.to_path_buf(), Out::Stream(f))
            }
        };
        Ok(AtomicFile {
            path,
            out: BufWriter::with_capacity(1 << 20, out),
        })
    }

    /// The target path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flush, fsync and rename the file over the target (flush only, for a target
    /// written in place).
    pub fn commit(self) -> Result<()> {
        let path = self.path;
        match self
            .out
            .into_inner()
            .map_err(|e| Error::io(&path, e.into_error()))?
        {
            Out::Temp(tmp) => persist(tmp, &path),
            Out::Stream(mut f) => f.flush().map_err(|e| Error::io(&path, e)),
            Out::Stdout(mut f) => f.flush().map_err(|e| Error::io(&path, e)),
        }
    }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Out::Temp(f) => f.write(buf),
            Out::Stream(f) => f.write(buf),
            Out::Stdout(f) => f.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Out::Temp(f) => f.flush(),
            Out::Stream(f) => f.flush(),
            Out::Stdout(f) => f.flush(),
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.out.write_all(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// The file a new output at `path` replaces by a rename: `path` itself, or the
/// file a symlink at `path` names (so the link stays); None for an existing target
/// that is not a regular file (a terminal, a pipe), which a rename would replace
/// rather than write to, and for the process's own streams (`/dev/stdout` names the
/// file a shell redirected it to, which is written through the stream, not renamed
/// over).
pub(crate) fn replaced(path: &Path) -> Result<Option<PathBuf>> {
    if path.starts_with("/dev/fd")
        || path.starts_with("/proc/self/fd")
        || path == Path::new("/dev/stdout")
        || path == Path::new("/dev/stderr")
    {
        return Ok(None);
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => {
            let link = std::fs::symlink_metadata(path).is_ok_and(|l| l.file_type().is_symlink());
            Ok(Some(if link {
                std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?
            } else {
                path.to_path_buf()
            }))
        }
        Ok(m) if !m.is_dir() => Ok(None),
        _ => Ok(Some(path.to_path_buf())),
    }
}

/// Write `bytes` to `path` atomically ([`AtomicFile`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))?;
    f.commit()
}

/// fsync the complete temporary `tmp`, rename it over `path`, then fsync the folder
/// so that the rename itself survives a crash. On an error the temporary is removed
/// (dropping it deletes it).
pub(crate) fn persist(tmp: tempfile::NamedTempFile, path: &Path) -> Result<()> {
    tmp.as_file().sync_all().map_err(|e| Error::io(path, e))?;
    tmp.persist(path).map_err(|e| Error::io(path, e.error))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Ok(d) = File::open(dir) {
        // Not every file system can sync a folder; the data itself is synced above.
        let _ = d.sync_all();
    }
    Ok(())
}

impl Text {
    fn create(path: &Path, fio: Option<Fio>) -> Result<Text> {
        Ok(Text {
            out: AtomicFile::create(path)?,
            line: Vec::with_capacity(128),
            fio,
        })
    }

    /// Write the pending bytes of `line` and clear it.
    fn emit(&mut self) -> Result<()> {
        let r = self.out.write_all(&self.line);
        self.line.clear();
        r.map_err(|e| Error::io(&self.out.path, e))
    }

    fn write(&mut self, r: &Request) -> Result<()> {
        let l = &mut self.line;
        match &mut self.fio {
            None => {
                if r.time_ns != NO_TIME {
                    push_u64(l, r.time_ns);
                }
                l.push(b',');
                l.push(r.op.letter() as u8);
                l.push(b',');
                push_u64(l, u64::from(r.dev));
                l.push(b',');
                push_u64(l, r.offset);
                l.push(b',');
                push_u64(l, u64::from(r.len));
                l.push(b'\n');
            }
            Some(fio) => {
                if r.len == 0 {
                    return Ok(());
                }
                // Version 3: `<us> ` before every line of this request.
                if let Some((first, last)) = &mut fio.v3 {
                    if r.time_ns == NO_TIME {
                        return Err(Error::Invalid(
                            "a fio iolog v3 needs a time for every request, and one has \
                             none (write a version 2 iolog, fio-iolog, instead)"
                                .into(),
                        ));
                    }
                    let t0 = *first.get_or_insert(r.time_ns);
                    *last = r.time_ns.saturating_sub(t0) / 1000;
                    fio.stamp.clear();
                    push_u64(&mut fio.stamp, *last);
                    fio.stamp.push(b' ');
                }
                let stamp = &fio.stamp;
                let known = fio.devs.contains(&r.dev);
                if !known {
                    fio.devs.push(r.dev);
                }
                let first = fio.devs[0];
                let name = |l: &mut Vec<u8>| {
                    l.extend_from_slice(fio.target.as_bytes());
                    if r.dev != first {
                        l.push(b'.');
                        push_u64(l, u64::from(r.dev));
                    }
                };
                if !known {
                    l.extend_from_slice(stamp);
                    name(l);
                    l.extend_from_slice(b" add\n");
                    l.extend_from_slice(stamp);
                    name(l);
                    l.extend_from_slice(b" open\n");
                }
                l.extend_from_slice(stamp);
                name(l);
                l.extend_from_slice(match r.op {
                    crate::Op::Read => b" read ".as_slice(),
                    crate::Op::Write => b" write ",
                    crate::Op::Trim => b" trim ",
                });
                push_u64(l, r.offset);
                l.push(b' ');
                push_u64(l, u64::from(r.len));
                l.push(b'\n');
            }
        }
        self.emit()
    }

    fn finish(mut self) -> Result<()> {
        if let Some(fio) = self.fio.take() {
            for &d in &fio.devs {
                if let Some((_, last)) = fio.v3 {
                    push_u64(&mut self.line, last);
                    self.line.push(b' ');
                }
                self.line.extend_from_slice(fio.target.as_bytes());
                if d != fio.devs[0] {
                    self.line.push(b'.');
                    push_u64(&mut self.line, u64::from(d));
                }
                self.line.extend_from_slice(b" close\n");
            }
            self.emit()?;
        }
        self.out.commit()
    }
}

/// Append the decimal digits of `v`.
fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Op;

    /// Written through a symlink, an output replaces the file the link names and the
    /// link stays; a target that is not a regular file (a pipe here) is written to,
    /// not replaced; a .wtr trace is refused there.
    #[cfg(unix)]
    #[test]
    fn links_are_followed_and_pipes_written_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.csv");
        let link = dir.path().join("link.csv");
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");

        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_atomic(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        let e = TraceWriter::create(&fifo, OutFormat::Wtr, &WriteInfo::default()).err();
        assert!(e.unwrap().to_string().contains("not a regular file"));
        // The process's own streams are never renamed over, whatever they point to.
        for p in ["/dev/stdout", "/dev/stderr", "/dev/fd/1", "/proc/self/fd/1"] {
            assert_eq!(replaced(Path::new(p)).unwrap(), None, "{p}");
        }
        assert!(is_stdout(Path::new("/dev/stdout")) && !is_stdout(Path::new("/dev/stderr")));
    }

    #[test]
    fn formats_from_names_and_paths() {
        assert_eq!(
            OutFormat::from_path(Path::new("a/b.WTR")),
            Some(OutFormat::Wtr)
        );
        assert_eq!(
            OutFormat::from_path(Path::new("x.csv")),
            Some(OutFormat::Csv)
        );
        assert_eq!(
            OutFormat::from_path(Path::new("x.iolog")),
            Some(OutFormat::FioIolog)
        );
        assert_eq!(OutFormat::from_path(Path::new("x.txt")), None);
        assert_eq!(OutFormat::parse("fio-iolog").unwrap(), OutFormat::FioIolog);
        let e = OutFormat::parse("parquet").unwrap_err().to_string();
        assert!(e.contains("wtr, csv, fio-iolog, fio-iolog-v3"), "{e}");
    }

    #[test]
    fn digits() {
        for v in [0u64, 7, 10, 12345, u64::MAX] {
            let mut b = Vec::new();
            push_u64(&mut b, v);
            assert_eq!(String::from_utf8(b).unwrap(), v.to_string());
        }
    }

    #[test]
    fn fio_iolog_matches_fio_syntax() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.iolog");
        let mut w = TraceWriter::create_fio_iolog(&p, "/dev/sdz").unwrap();
        let r = |dev, op, offset, len| Request {
            time_ns: 5,
            offset,
            len,
            dev,
            op,
        };
        w.write(&r(1, Op::Write, 4096, 8192)).unwrap();
        w.write(&r(1, Op::Read, 0, 0)).unwrap();
        w.write(&r(2, Op::Trim, 0, 512)).unwrap();
        w.write(&r(1, Op::Read, 0, 4096)).unwrap();
        assert_eq!(w.finish().unwrap(), 4);
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "fio version 2 iolog\n\
             /dev/sdz add\n/dev/sdz open\n/dev/sdz write 4096 8192\n\
             /dev/sdz.2 add\n/dev/sdz.2 open\n/dev/sdz.2 trim 0 512\n\
             /dev/sdz read 0 4096\n\
             /dev/sdz close\n/dev/sdz.2 close\n"
        );
    }

    /// Three requests worked by hand: times 1 ms, 1.500999 ms and 3 ms become 0, 500
    /// and 2000 us after the first (rounded down); the close is at the last time.
    #[test]
    fn fio_iolog_v3_by_hand() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.iolog");
        let mut w = TraceWriter::create(
            &p,
            OutFormat::parse("fio-iolog-v3").unwrap(),
            &WriteInfo::default(),
        )
        .unwrap();
        let r = |time_ns, op, offset, len| Request {
            time_ns,
            offset,
            len,
            dev: 0,
            op,
        };
        w.write(&r(1_000_000, Op::Write, 4096, 8192)).unwrap();
        w.write(&r(1_500_999, Op::Read, 0, 4096)).unwrap();
        w.write(&r(3_000_000, Op::Trim, 8192, 512)).unwrap();
        assert_eq!(w.finish().unwrap(), 3);
        let text = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            text,
            "fio version 3 iolog\n\
             0 /dev/wafer-target add\n\
             0 /dev/wafer-target open\n\
             0 /dev/wafer-target write 4096 8192\n\
             500 /dev/wafer-target read 0 4096\n\
             2000 /dev/wafer-target trim 8192 512\n\
             2000 /dev/wafer-target close\n"
        );
        // Read back the way fio's v3 parser splits a line (timestamp, file, action,
        // offset, length): the same requests at microsecond resolution.
        let back: Vec<(u64, &str, u64, u32)> = text
            .lines()
            .skip(1)
            .map(|l| l.split(' ').collect::<Vec<_>>())
            .filter(|f| f.len() == 5)
            .map(|f| {
                (
                    f[0].parse().unwrap(),
                    f[2],
                    f[3].parse().unwrap(),
                    f[4].parse().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            back,
            [
                (0, "write", 4096, 8192),
                (500, "read", 0, 4096),
                (2000, "trim", 8192, 512)
            ]
        );
    }

    #[test]
    fn fio_iolog_v3_devices_zero_lengths_and_untimed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.iolog");
        let mut w = TraceWriter::create_fio_iolog_v3(&p, "/dev/sdz").unwrap();
        let r = |time_ns, dev, len| Request {
            time_ns,
            offset: 0,
            len,
            dev,
            op: Op::Read,
        };
        w.write(&r(10_000, 1, 512)).unwrap();
        w.write(&r(12_000, 1, 0)).unwrap();
        w.write(&r(15_000, 2, 512)).unwrap();
        // A time before the first request's is written as 0.
        w.write(&r(5_000, 1, 512)).unwrap();
        assert_eq!(w.finish().unwrap(), 4);
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "fio version 3 iolog\n\
             0 /dev/sdz add\n0 /dev/sdz open\n0 /dev/sdz read 0 512\n\
             5 /dev/sdz.2 add\n5 /dev/sdz.2 open\n5 /dev/sdz.2 read 0 512\n\
             0 /dev/sdz read 0 512\n\
             0 /dev/sdz close\n0 /dev/sdz.2 close\n"
        );
        let mut w = TraceWriter::create_fio_iolog_v3(&p, "/dev/sdz").unwrap();
        let e = w.write(&r(NO_TIME, 1, 512)).unwrap_err().to_string();
        assert!(e.contains("needs a time for every request"), "{e}");
    }

    #[test]
    fn nothing_appears_before_finish() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.csv");
        let mut w = TraceWriter::create(&p, OutFormat::Csv, &WriteInfo::default()).unwrap();
        w.write(&Request::default()).unwrap();
        assert!(!p.exists());
        drop(w);
        assert!(!p.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn long_origin_is_refused_not_cut() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.wtr");
        let info = WriteInfo {
            origin: "x".repeat(wtr::MAX_ORIGIN + 1),
            ..WriteInfo::default()
        };
        let e = TraceWriter::create(&p, OutFormat::Wtr, &info)
            .err()
            .expect("refused")
            .to_string();
        assert!(e.contains("4096 bytes"), "{e}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn failed_commit_keeps_the_target_and_removes_the_temporary() {
        let dir = tempfile::tempdir().unwrap();
        // A folder where the file should go: the rename fails.
        let p = dir.path().join("t.csv");
        std::fs::create_dir(&p).unwrap();
        std::fs::write(p.join("inside"), b"kept").unwrap();
        assert!(write_atomic(&p, b"new").is_err());
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["t.csv"]);
        assert_eq!(std::fs::read(p.join("inside")).unwrap(), b"kept");
    }
}
