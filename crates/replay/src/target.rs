//! The storage the trace is replayed on: a regular file or a block device, opened with
//! O_DIRECT so that the page cache neither absorbs writes nor serves reads (paper 000,
//! TS-CLOCK: Kang, Min, Eom, IEEE MASCOTS 2014, Sec. IV-A, replays its after-cache
//! traces "with the O_DIRECT option").
//!
//! Some filesystems refuse O_DIRECT (tmpfs before Linux 6.6, some FUSE and network
//! filesystems): `open` fails with `EINVAL`, or the first aligned I/O does. The target
//! then falls back to buffered I/O and says so in [`Target::warning`]; the report
//! carries the warning because timings then measure the page cache, not the device.
//!
//! A new file target is created at the requested size with `set_len` and then
//! preallocated by one sequential pass of zero pages over the whole file ([`prefill`]),
//! so that the replay overwrites allocated blocks instead of allocating them on first
//! touch (which would charge the first policy replayed for the filesystem's allocation
//! work). `fallocate(2)` would be faster but needs `unsafe` FFI, which the workspace
//! denies.

use crate::align::AlignedBuf;
use crate::error::{Error, Result};
use serde::Serialize;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom};
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Bytes written per call by the preallocation pass.
const PREFILL_CHUNK: usize = 1 << 20;

/// What kind of storage the target is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TargetKind {
    /// A regular file (created if missing).
    File,
    /// A block device node.
    BlockDevice,
}

/// What the target is before it is opened for the replay.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetInfo {
    /// The path.
    pub path: PathBuf,
    /// File or block device.
    pub kind: TargetKind,
    /// Whether it exists.
    pub exists: bool,
    /// Its size in bytes (0 when it does not exist).
    pub size: u64,
}

/// Look at `path` without changing it.
pub fn inspect(path: &Path) -> Result<TargetInfo> {
    match std::fs::metadata(path) {
        Ok(md) if md.file_type().is_block_device() => {
            let mut f = File::open(path).map_err(|e| Error::io(path, e))?;
            let size = f.seek(SeekFrom::End(0)).map_err(|e| Error::io(path, e))?;
            Ok(TargetInfo {
                path: path.to_path_buf(),
                kind: TargetKind::BlockDevice,
                exists: true,
                size,
            })
        }
        Ok(md) if md.is_file() => Ok(TargetInfo {
            path: path.to_path_buf(),
            kind: TargetKind::File,
            exists: true,
            size: md.len(),
        }),
        Ok(_) => Err(Error::Invalid(format!(
            "{}: target must be a regular file or a block device",
            path.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(TargetInfo {
            path: path.to_path_buf(),
            kind: TargetKind::File,
            exists: false,
            size: 0,
        }),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Only the kind of `path`, for the checks that must come before anything is opened.
pub fn kind_of(path: &Path) -> Option<TargetKind> {
    let md = std::fs::metadata(path).ok()?;
    if md.file_type().is_block_device() {
        Some(TargetKind::BlockDevice)
    } else {
        Some(TargetKind::File)
    }
}

/// The target opened for the replay.
pub struct Target {
    /// The path.
    pub path: PathBuf,
    /// The open file; shared by the worker threads (positional I/O needs no seek).
    pub file: File,
    /// Whether O_DIRECT is in effect.
    pub direct: bool,
    /// Why it is not, when it was refused.
    pub warning: Option<String>,
}

/// `excl` opens a block device exclusively (`O_EXCL` without `O_CREAT`, see
/// `open(2)`): the kernel refuses with `EBUSY` while the device is mounted, used as swap
/// or claimed by a device mapper or RAID, and, once open, refuses a mount of it until
/// the replay ends, closing the gap between the safety checks and the first write.
fn open_with(path: &Path, write: bool, direct: bool, excl: bool) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true).write(write);
    let mut flags = 0;
    if direct {
        flags |= libc::O_DIRECT;
    }
    if excl {
        flags |= libc::O_EXCL;
    }
    o.custom_flags(flags);
    o.open(path)
}

fn is_einval(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::EINVAL)
}

/// Open an existing target for the replay, with O_DIRECT unless the filesystem
/// refuses it. `probe_bytes` > 0 makes a first aligned read of that many bytes at
/// offset 0 to catch filesystems that accept the flag but fail the I/O.
pub fn open(path: &Path, write: bool, probe_bytes: usize) -> Result<Target> {
    let excl = write && kind_of(path) == Some(TargetKind::BlockDevice);
    let open_with = |write, direct| match open_with(path, write, direct, excl) {
        Err(e) if excl && e.raw_os_error() == Some(libc::EBUSY) => Err(Error::InUse {
            path: path.to_path_buf(),
            users: vec![
                "the kernel reports it busy (EBUSY on an exclusive open: mounted, used as \
                 swap, or claimed by a device mapper or RAID)"
                    .into(),
            ],
        }),
        Err(e) => Err(Error::io(path, e)),
        Ok(f) => Ok(f),
    };
    let refused = |why: String| {
        Some(format!(
            "{}: the filesystem refused O_DIRECT ({why}); falling back to buffered I/O, \
             so timings include the page cache",
            path.display()
        ))
    };
    let (file, warning) = match open_with(write, true) {
        Ok(f) => {
            let mut w = None;
            if probe_bytes > 0 {
                let mut buf = AlignedBuf::new(probe_bytes)?;
                if let Err(e) = f.read_at(buf.as_mut_slice(), 0) {
                    if !is_einval(&e) {
                        return Err(Error::io(path, e));
                    }
                    w = refused(format!("first aligned read: {e}"));
                }
            }
            if w.is_some() {
                // The exclusive claim ends with `f`: drop it before opening again.
                drop(f);
                (open_with(write, false)?, w)
            } else {
                (f, None)
            }
        }
        Err(Error::Io { source, .. }) if is_einval(&source) => {
            (open_with(write, false)?, refused(format!("open: {source}")))
        }
        Err(e) => return Err(e),
    };
    Ok(Target {
        path: path.to_path_buf(),
        file,
        direct: warning.is_none(),
        warning,
    })
}

/// Bytes an unprivileged user may still allocate on the filesystem that holds (or will
/// hold) the file `path` (`statvfs`: `f_bavail * f_frsize`).
pub fn available_bytes(path: &Path) -> Result<u64> {
    let dir = if path.exists() {
        path
    } else {
        match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        }
    };
    let st = rustix::fs::statvfs(dir).map_err(|e| Error::io(dir, e.into()))?;
    Ok(st.f_bavail.saturating_mul(st.f_frsize))
}

/// Create (or grow) a file target to `size` bytes with `set_len`. Returns the old
/// size (0 for a new file); the bytes from there on must be preallocated with
/// [`prefill`].
pub fn create_or_grow(path: &Path, size: u64) -> Result<u64> {
    let f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| Error::io(path, e))?;
    let old = f.metadata().map_err(|e| Error::io(path, e))?.len();
    if size > old {
        f.set_len(size).map_err(|e| Error::io(path, e))?;
    }
    Ok(old)
}

/// Write zero pages over `[from, to)` sequentially (both page aligned) and sync, so
/// that the filesystem allocates every block before the replay.
pub fn prefill(t: &Target, from: u64, to: u64, progress: &mut dyn FnMut(u64)) -> Result<()> {
    let buf = AlignedBuf::new(PREFILL_CHUNK)?;
    let mut off = from;
    while off < to {
        let n = (to - off).min(PREFILL_CHUNK as u64) as usize;
        t.file
            .write_all_at(&buf.as_slice()[..n], off)
            .map_err(|e| Error::io(&t.path, e))?;
        off += n as u64;
        progress(off - from);
    }
    t.file.sync_all().map_err(|e| Error::io(&t.path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_file_is_created_at_size_and_zero_filled() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("t.img");
        assert!(!inspect(&p).unwrap().exists);
        assert_eq!(create_or_grow(&p, 3 << 20).unwrap(), 0);
        let t = open(&p, true, 4096).unwrap();
        let mut seen = 0;
        prefill(&t, 0, 3 << 20, &mut |n| seen = n).unwrap();
        assert_eq!(seen, 3 << 20);
        let info = inspect(&p).unwrap();
        assert_eq!(
            (info.kind, info.exists, info.size),
            (TargetKind::File, true, 3 << 20)
        );
        assert!(std::fs::read(&p).unwrap().iter().all(|&b| b == 0));
    }

    #[test]
    fn free_space_is_that_of_the_file_or_its_directory() {
        let d = tempfile::tempdir().unwrap();
        let free = available_bytes(d.path()).unwrap();
        assert!(free > 0);
        // A missing file is judged by its directory (same filesystem, so the two
        // readings differ only by what others wrote in between).
        let missing = available_bytes(&d.path().join("new.img")).unwrap();
        assert!(missing.abs_diff(free) < 1 << 30, "{missing} vs {free}");
        assert!(available_bytes(Path::new("/nonexistent-dir/x.img")).is_err());
    }

    #[test]
    fn directories_are_not_targets() {
        let d = tempfile::tempdir().unwrap();
        let e = inspect(d.path()).unwrap_err().to_string();
        assert!(
            e.contains("must be a regular file or a block device"),
            "{e}"
        );
    }
}
