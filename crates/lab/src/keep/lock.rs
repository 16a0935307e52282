//! One writer per output folder: an advisory lock (`flock`) on `<out>/.wafer-lock`,
//! held by every run that stores cells there (`wafer run`, `wafer sim -o`, presets,
//! `wafer demo`, the Python API, the Dask driver) for the whole run, publishing
//! included.
//!
//! A second run on the folder is refused with one line naming the holder (pid and
//! host, which the holder writes into the lock file). The kernel releases the lock
//! when its holder dies, however it dies, so a lock left by a killed run is simply
//! taken over. The lock file also marks the folder as wafer's own: outputs are written
//! over only in a folder that carries it ([`crate::store::Store::claim`]).
//!
//! The lock is re-entrant on one thread: a front end that takes it around a whole
//! command and the runner that takes it again share one holding, so a command never
//! refuses itself; another thread of the same process is refused like another
//! process. Dask workers write through their driver's lock: they take
//! none and clean nothing ([`crate::study::RunOptions::shared`]).
//!
//! On taking the lock (not on re-entering it) the temporaries that killed runs left
//! in the folder are removed: while the lock is held no other run writes there, so
//! every temporary present at that moment is debris.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, Weak};
use std::thread::ThreadId;

use crate::error::LabError;

/// The lock file's name inside an output folder.
pub const LOCK_FILE: &str = ".wafer-lock";

/// Holding the lock of one output folder; released when the last clone is dropped.
#[derive(Clone, Debug)]
pub struct OutLock {
    _held: Arc<Held>,
}

#[derive(Debug)]
struct Held {
    _file: File,
}

/// The folders this process holds, by canonical path and holding thread.
type Holdings = HashMap<(PathBuf, ThreadId), Weak<Held>>;
static HELD: LazyLock<Mutex<Holdings>> = LazyLock::new(Mutex::default);

impl OutLock {
    /// Take the lock of output folder `out` (created if missing), or refuse naming
    /// who holds it. Re-entrant on the thread that holds it.
    pub fn acquire(out: &Path) -> Result<OutLock, LabError> {
        std::fs::create_dir_all(out).map_err(|e| LabError::io(out, e))?;
        let dir = out.canonicalize().map_err(|e| LabError::io(out, e))?;
        let key = (dir.clone(), std::thread::current().id());
        let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(h) = held.get(&key).and_then(Weak::upgrade) {
            return Ok(OutLock { _held: h });
        }
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| LabError::io(&path, e))?;
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {}
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => {
                let mut who = String::new();
                let _ = file.read_to_string(&mut who);
                let who = match who.trim() {
                    "" => "another wafer process".to_string(),
                    w => format!("wafer {w}"),
                };
                return Err(LabError::Refused(format!(
                    "{}: the output folder is in use by {who}; wait for that run to end or choose another output folder",
                    out.display()
                )));
            }
            Err(e) => return Err(LabError::io(&path, e.into())),
        }
        // Ours now: say who holds it, for the message a second run prints.
        let me = format!(
            "pid {} on {}\n",
            std::process::id(),
            wafer_trace::tempfiles::host()
        );
        let _ = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(me.as_bytes()));
        remove_debris(&dir);
        let h = Arc::new(Held { _file: file });
        held.insert(key, Arc::downgrade(&h));
        Ok(OutLock { _held: h })
    }
}

/// Remove every temporary in `out` and its folders one level down (cells, figures,
/// traces, after-cache files): called with the lock just taken, so none has a
/// living writer.
fn remove_debris(out: &Path) {
    let mut dirs = vec![out.to_path_buf()];
    if let Ok(rd) = std::fs::read_dir(out) {
        dirs.extend(
            rd.flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path()),
        );
    }
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name();
            if wafer_trace::tempfiles::is_temporary(&name.to_string_lossy()) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reentrant_in_one_process_and_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let a = OutLock::acquire(dir.path()).unwrap();
        let b = OutLock::acquire(&dir.path().join(".")).unwrap();
        drop(a);
        drop(b);
        let who = std::fs::read_to_string(dir.path().join(LOCK_FILE)).unwrap();
        assert!(
            who.starts_with(&format!("pid {} on ", std::process::id())),
            "{who}"
        );
        // Released: taken afresh (and a new file description can flock it).
        let c = OutLock::acquire(dir.path()).unwrap();
        // Another thread of this process is another writer.
        let path = dir.path().to_path_buf();
        let e = std::thread::spawn(move || OutLock::acquire(&path).map(|_| ()))
            .join()
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(e.contains("in use by wafer pid"), "{e}");
        drop(c);
    }

    #[test]
    fn a_second_holder_is_refused_naming_the_first() {
        let dir = tempfile::tempdir().unwrap();
        // Another open file description stands for another process.
        let f = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .read(true)
            .open(dir.path().join(LOCK_FILE))
            .unwrap();
        rustix::fs::flock(&f, rustix::fs::FlockOperation::NonBlockingLockExclusive).unwrap();
        std::fs::write(dir.path().join(LOCK_FILE), "pid 4242 on elsewhere\n").unwrap();
        let e = OutLock::acquire(dir.path()).unwrap_err().to_string();
        assert!(
            e.contains("in use by wafer pid 4242 on elsewhere") && !e.contains('\n'),
            "{e}"
        );
        drop(f);
        OutLock::acquire(dir.path()).unwrap();
    }

    #[test]
    fn taking_the_lock_removes_debris_but_not_results() {
        let dir = tempfile::tempdir().unwrap();
        let cells = dir.path().join("cells");
        std::fs::create_dir_all(&cells).unwrap();
        std::fs::write(cells.join(".0123.json.tmp.77"), b"x").unwrap();
        std::fs::write(cells.join(".wafer-h.77-0123.json.tmp"), b"x").unwrap();
        std::fs::write(cells.join("0123.json"), b"{}").unwrap();
        std::fs::write(dir.path().join(".results.csv.tmp.12"), b"x").unwrap();
        let _l = OutLock::acquire(dir.path()).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(&cells)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["0123.json"]);
        assert!(!dir.path().join(".results.csv.tmp.12").exists());
    }
}
