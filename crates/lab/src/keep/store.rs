//! The results store: `<out>/cells/<cell-id>.json`, one file per finished cell of
//! any [`Study`](crate::study::Study), written atomically the moment the cell
//! finishes, and the aggregate tables `results.csv`, `results.json` and
//! `results.parquet` (one flat row per cell, see [`crate::parquet_file`]), rewritten
//! atomically after the run.
//!
//! Atomic write: the bytes go to a temporary in the same folder
//! (`.wafer-<pid>@<host>~<name>.tmp`, [`wafer_trace::tempfiles`]), are fsynced, and
//! the file is renamed over the target, then the folder is fsynced; a reader (or a
//! rerun after a kill) sees either the old file or the complete new one. A write that
//! fails (a full disk, a rename refused) removes its temporary. Cell files that do not
//! parse (a foreign file, an older layout) are treated as missing.
//!
//! A run takes its folder with [`Store::claim`]: one writer at a time
//! ([`crate::lock`]), and never a write over one of the run's inputs or over a file
//! wafer did not write.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::LabError;
use crate::lock::OutLock;
use crate::parquet_file::Row;

/// The files a run writes at the top of its output folder.
pub const OUTPUT_FILES: [&str; 5] = [
    "results.csv",
    "results.json",
    "results.parquet",
    "provenance.json",
    "report.html",
];
/// The folders a run writes in (cells, figures, trace facts, after-cache traces,
/// sensitivity studies).
pub const OUTPUT_FOLDERS: [&str; 5] = ["cells", "figures", "traces", "after", "sensitivity"];

/// Whether `a` and `b` are one file (device and inode), whatever their names.
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Write `bytes` to `path` atomically (tmp + fsync + rename); on any failure the
/// temporary is removed, so a full disk leaves no debris beside the target.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), LabError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir).map_err(|e| LabError::io(dir, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Numbered, so that two threads writing one name never share a temporary.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(
        "{}{n}-{name}{}",
        wafer_trace::tempfiles::own_prefix(),
        wafer_trace::tempfiles::SUFFIX
    ));
    let written = fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_all()))
        .map_err(|e| LabError::io(path, e))
        .and_then(|()| fs::rename(&tmp, path).map_err(|e| LabError::io(path, e)));
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    if let Ok(d) = fs::File::open(dir) {
        // Persist the rename; not all platforms allow syncing a folder.
        let _ = d.sync_all();
    }
    Ok(())
}

/// The store of one experiment's output folder.
#[derive(Clone, Debug)]
pub struct Store {
    out: PathBuf,
}

impl Store {
    /// The store in `out` (created on first write).
    pub fn new(out: &Path) -> Store {
        Store {
            out: out.to_path_buf(),
        }
    }

    /// The output folder.
    pub fn out(&self) -> &Path {
        &self.out
    }

    /// Path of a cell's file.
    pub fn cell_path(&self, id: &str) -> PathBuf {
        self.out.join("cells").join(format!("{id}.json"))
    }

    /// The stored result of cell `id`, if there is a readable one.
    pub fn load<T: DeserializeOwned>(&self, id: &str) -> Option<T> {
        let bytes = fs::read(self.cell_path(id)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Store a finished cell. Floats are written in their shortest exact form and
    /// read back exactly, so a stored cell equals the computed one bit for bit.
    pub fn save<T: Serialize>(&self, id: &str, result: &T) -> Result<(), LabError> {
        let json = serde_json::to_vec(result).map_err(|e| LabError::Invalid(e.to_string()))?;
        write_atomic(&self.cell_path(id), &json)
    }

    /// Take the output folder for a run that reads `inputs`: its lock (one writer at
    /// a time), after checking that no output of the run resolves to an input (the
    /// same path, another spelling, a symlink or a hard link, the input's prepared
    /// file beside it) and that no output would replace a file wafer did not write (a
    /// folder is wafer's once a run has taken it; one with `cells/` is an earlier
    /// version's). Both refusals name the file and change nothing.
    pub fn claim(&self, inputs: &[PathBuf]) -> Result<OutLock, LabError> {
        let ours =
            self.out.join(crate::lock::LOCK_FILE).exists() || self.out.join("cells").is_dir();
        let outputs: Vec<PathBuf> = OUTPUT_FILES
            .iter()
            .chain(&OUTPUT_FOLDERS)
            .map(|n| self.out.join(n))
            .collect();
        for input in inputs
            .iter()
            .flat_map(|i| [i.clone(), crate::prepared::path_of(i)])
        {
            let Ok(real) = input.canonicalize() else {
                continue;
            };
            for o in &outputs {
                let hit = match o.canonicalize() {
                    Ok(oc) if o.is_dir() => real.starts_with(&oc),
                    Ok(oc) => oc == real || same_file(o, &input),
                    Err(_) => false,
                };
                if hit {
                    return Err(LabError::Refused(format!(
                        "{}: an input of this run is where it writes its output {}; choose another output folder",
                        input.display(),
                        o.display()
                    )));
                }
            }
        }
        if !ours {
            if let Some(o) = outputs.iter().take(OUTPUT_FILES.len()).find(|o| o.exists()) {
                return Err(LabError::Refused(format!(
                    "{}: exists and was not written by wafer (its folder holds no {}); choose another output folder or move the file",
                    o.display(),
                    crate::lock::LOCK_FILE
                )));
            }
        }
        OutLock::acquire(&self.out)
    }

    /// Write `results.csv`, `results.json` and `results.parquet` from flat rows (cell
    /// order); `template` is a row with every column present (no nulls) that fixes the
    /// Parquet column types.
    pub fn write_tables(
        &self,
        rows: &[Row],
        template: Option<&Row>,
    ) -> Result<Vec<PathBuf>, LabError> {
        let mut written = Vec::new();
        if let Some(t) = template {
            let p = self.out.join("results.parquet");
            write_atomic(&p, &crate::parquet_file::encode(rows, t)?)?;
            written.push(p);
        }
        let json: Vec<serde_json::Map<String, serde_json::Value>> = rows
            .iter()
            .map(|row| row.iter().cloned().collect())
            .collect();
        let text =
            serde_json::to_string_pretty(&json).map_err(|e| LabError::Invalid(e.to_string()))?;
        let p = self.out.join("results.json");
        write_atomic(&p, text.as_bytes())?;
        written.push(p);
        let p = self.out.join("results.csv");
        write_atomic(&p, csv(rows).as_bytes())?;
        written.push(p);
        Ok(written)
    }
}

/// Rows as CSV (header from the first row; every row has the same columns).
pub fn csv(rows: &[Row]) -> String {
    let mut s = String::new();
    let Some(first) = rows.first() else {
        return s;
    };
    let header: Vec<&str> = first.iter().map(|(k, _)| k.as_str()).collect();
    s.push_str(&header.join(","));
    s.push('\n');
    for row in rows {
        let cells: Vec<String> = row.iter().map(|(_, v)| csv_field(v)).collect();
        s.push_str(&cells.join(","));
        s.push('\n');
    }
    s
}

fn csv_field(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(t) => {
            if t.contains([',', '"', '\n']) {
                format!("\"{}\"", t.replace('"', "\"\""))
            } else {
                t.clone()
            }
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b.json");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(dir.path().join("a")).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn failed_atomic_write_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        // A folder in the target's place: the temporary is written, the rename fails.
        let p = dir.path().join("figure.svg");
        fs::create_dir(&p).unwrap();
        fs::write(p.join("x"), b"x").unwrap();
        let e = write_atomic(&p, b"<svg/>").unwrap_err().to_string();
        assert!(e.contains("figure.svg") && !e.contains('\n'), "{e}");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["figure.svg"]);
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let rows = vec![vec![
            (
                "policy".to_string(),
                serde_json::json!("clock:insert_ref=0,x=1"),
            ),
            ("hits".to_string(), serde_json::json!(3)),
            ("ftl_waf".to_string(), serde_json::Value::Null),
        ]];
        assert_eq!(
            csv(&rows),
            "policy,hits,ftl_waf\n\"clock:insert_ref=0,x=1\",3,\n"
        );
    }
}
