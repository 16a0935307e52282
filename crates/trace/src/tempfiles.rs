//! Temporary files beside an output, and the debris killed writers leave.
//!
//! Every output wafer writes whole (a converted or generated trace, a prepared trace,
//! an after-cache file, a results table, a cell) is first written to a temporary in
//! the target's folder and renamed over the target once complete. The temporary is
//! named `.wafer-<pid>@<host>~<rest>.tmp`, so that a later command can tell whose it
//! is: a process that is killed (`kill -9`, or a signal whose handler ends the
//! process at once) leaves its temporary behind, and the next command that writes
//! into that folder removes the temporaries of processes of this host that are no
//! longer alive ([`remove_stale`]). A temporary of a living process, or of another
//! host sharing the folder, is never touched.

use std::path::Path;
use std::sync::OnceLock;

use crate::error::{Error, Result};

/// Prefix of every temporary wafer writes.
pub const PREFIX: &str = ".wafer-";
/// Suffix of every temporary wafer writes.
pub const SUFFIX: &str = ".tmp";

/// This machine's name as temporaries and lock files record it (letters, digits,
/// `.` and `-` only).
pub fn host() -> &'static str {
    static HOST: OnceLock<String> = OnceLock::new();
    HOST.get_or_init(|| {
        let raw = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        let h: String = raw
            .trim()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-')
            .collect();
        if h.is_empty() {
            "localhost".into()
        } else {
            h
        }
    })
}

/// The start of this process's temporaries' names: `.wafer-<pid>@<host>~`.
pub fn own_prefix() -> String {
    format!("{PREFIX}{}@{}~", std::process::id(), host())
}

/// Whether a file named `name` is a temporary of wafer's (also the
/// `.<name>.tmp.<pid>` form of earlier versions).
pub fn is_temporary(name: &str) -> bool {
    (name.starts_with(PREFIX) && name.ends_with(SUFFIX))
        || (name.starts_with('.') && name.contains(".tmp."))
}

/// The writer of temporary `name`: `(pid, host)`, when its name records them.
fn writer_of(name: &str) -> Option<(u32, &str)> {
    let rest = name.strip_prefix(PREFIX)?.strip_suffix(SUFFIX)?;
    let (pid, rest) = rest.split_once('@')?;
    let (host, _) = rest.split_once('~')?;
    Some((pid.parse().ok()?, host))
}

/// Whether process `pid` of this host is alive. Without `/proc` (not Linux) every
/// process counts as alive, so nothing is removed.
fn alive(pid: u32) -> bool {
    let proc_root = Path::new("/proc");
    !proc_root.join("self").exists() || proc_root.join(pid.to_string()).exists()
}

/// Remove from `dir` the temporaries whose writer, a process of this host, has
/// ended; returns how many. Errors are ignored: debris is only in the way.
pub fn remove_stale(dir: &Path) -> usize {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in rd.flatten() {
        let name = e.file_name();
        let Some((pid, h)) = writer_of(&name.to_string_lossy()).map(|(p, h)| (p, h.to_string()))
        else {
            continue;
        };
        if h == host() && !alive(pid) && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The folder `path` is written in (`.` for a bare file name).
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// A temporary file in the folder of `path`, to be renamed over it once complete,
/// after removing the debris of ended writers there. It gets the permissions a newly
/// created file would (0666 less the umask), not the 0600 of ordinary temporaries.
pub fn temp_beside(path: &Path) -> Result<tempfile::NamedTempFile> {
    let dir = folder_of(path);
    remove_stale(dir);
    let mut b = tempfile::Builder::new();
    let prefix = own_prefix();
    b.prefix(&prefix).suffix(SUFFIX);
    #[cfg(unix)]
    b.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    b.tempfile_in(dir).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_record_their_writer() {
        let name = format!("{}abc.tmp", own_prefix());
        assert!(is_temporary(&name));
        assert_eq!(writer_of(&name), Some((std::process::id(), host())));
        assert!(is_temporary(".0123.json.tmp.77"));
        assert!(!is_temporary("results.csv"));
        assert_eq!(writer_of(".wafer-x.tmp"), None);
    }

    #[test]
    fn only_ended_writers_of_this_host_are_cleaned() {
        let dir = tempfile::tempdir().unwrap();
        // A pid above the kernel's maximum (2^22) has never been alive.
        let dead = format!("{PREFIX}4194305@{}~a.tmp", host());
        let living = format!("{}b.tmp", own_prefix());
        let other_host = format!("{PREFIX}4194305@not-{}~c.tmp", host());
        for n in [&dead, &living, &other_host, &"trace.wtr".to_string()] {
            std::fs::write(dir.path().join(n), b"x").unwrap();
        }
        assert_eq!(remove_stale(dir.path()), 1);
        assert!(!dir.path().join(&dead).exists());
        for n in [&living, &other_host, &"trace.wtr".to_string()] {
            assert!(dir.path().join(n).exists(), "{n}");
        }
    }
}
