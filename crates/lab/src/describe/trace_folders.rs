//! Where a trace file a preset or an experiment file names is found: the one lookup
//! every command that takes a trace uses, so that a clone, `wafer traces fetch` and
//! the tests' `../shared/traces` all serve the same runs.
//!
//! The order: the path as given (an experiment file's relative path beside the file;
//! a preset's bundled capture under the repository's `traces/`), then the trace
//! folders: `$WAFER_TRACES`, the data folder (`$XDG_DATA_HOME/wafer/traces`, else
//! `~/.local/share/wafer/traces`: where `wafer traces fetch` puts them), and
//! `shared/traces` beside the repository (found from the current folder or the
//! `wafer` executable upwards; `WAFER_NO_SHARED=1` skips it, so a test can see what a
//! clone alone sees). A file missing from all of them is named with the command that
//! fetches it ([`crate::known_traces`]), or with the folders to put it in.

use std::path::{Component, Path, PathBuf};

use crate::error::LabError;
use crate::known_traces::{self, KnownTrace};

/// The data folder: `$XDG_DATA_HOME/wafer/traces`, else `$HOME/.local/share/wafer/traces`.
pub fn data_dir() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    if let Some(d) = std::env::var_os("XDG_DATA_HOME").and_then(absolute) {
        return Some(d.join("wafer/traces"));
    }
    std::env::var_os("HOME")
        .and_then(absolute)
        .map(|h| h.join(".local/share/wafer/traces"))
}

/// Where `wafer traces fetch` writes: `$WAFER_TRACES` if set, else [`data_dir`].
pub fn fetch_dir() -> Option<PathBuf> {
    match std::env::var_os("WAFER_TRACES").filter(|v| !v.is_empty()) {
        Some(d) => Some(PathBuf::from(d)),
        None => data_dir(),
    }
}

/// The folders above the current folder and above the `wafer` executable, nearest
/// first: where the repository (`traces/`) and the folder beside it are looked for.
fn ancestors() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        out.extend(cwd.ancestors().map(Path::to_path_buf));
    }
    if let Ok(exe) = std::env::current_exe() {
        out.extend(exe.ancestors().skip(1).map(Path::to_path_buf));
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    out
}

/// `shared/traces` beside the repository: the first such folder above the current
/// folder or the executable; none when `WAFER_NO_SHARED=1`.
pub fn shared_dir() -> Option<PathBuf> {
    if std::env::var("WAFER_NO_SHARED").is_ok_and(|v| v == "1") {
        return None;
    }
    ancestors()
        .into_iter()
        .map(|a| a.join("shared/traces"))
        .find(|d| d.is_dir())
}

/// The trace folders in lookup order, each with what it is.
pub fn folders() -> Vec<(&'static str, PathBuf)> {
    let mut out = Vec::new();
    if let Some(d) = std::env::var_os("WAFER_TRACES").filter(|v| !v.is_empty()) {
        out.push(("$WAFER_TRACES", PathBuf::from(d)));
    }
    if let Some(d) = data_dir() {
        out.push(("data folder", d));
    }
    if let Some(d) = shared_dir() {
        out.push(("beside the repository", d));
    }
    out
}

/// A preset's bundled capture `rel` where the repository holds it: `traces/rel` or
/// `traces/third-party/rel` above the current folder or the executable.
pub fn bundled(rel: &str) -> Vec<PathBuf> {
    ancestors()
        .into_iter()
        .flat_map(|a| {
            [
                a.join("traces").join(rel),
                a.join("traces/third-party").join(rel),
            ]
        })
        .collect()
}

/// The path under a trace folder that `written` stands for: a known trace's folder
/// path when it ends in one, else `written` itself if it is relative and stays below
/// the folder.
fn folder_path(written: &Path) -> Option<PathBuf> {
    if let Some(k) = known_traces::by_path(written) {
        return Some(PathBuf::from(k.path));
    }
    let below = written
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    below.then(|| written.to_path_buf())
}

/// Where the trace `written` is: the first of `as_given` that is a file, else the
/// first trace folder that holds it ([`folders`]). A missing trace is a
/// [`LabError::MissingTrace`] naming the file and how to get it.
pub fn find(written: &Path, as_given: &[PathBuf]) -> Result<PathBuf, LabError> {
    if let Some(p) = as_given.iter().find(|p| p.is_file()) {
        return Ok(p.clone());
    }
    let rel = folder_path(written);
    let folders = folders();
    if let Some(rel) = &rel {
        for (_, d) in &folders {
            let p = d.join(rel);
            if p.is_file() {
                return Ok(p);
            }
        }
    }
    Err(LabError::MissingTrace(missing(
        written,
        rel.as_deref(),
        &folders,
    )))
}

/// Why `written` is missing and what to do: fetch it, or put it in a trace folder.
fn missing(written: &Path, rel: Option<&Path>, folders: &[(&str, PathBuf)]) -> String {
    let looked: Vec<String> = folders
        .iter()
        .map(|(what, d)| format!("{} ({what})", d.display()))
        .collect();
    let looked = if looked.is_empty() {
        "no trace folder".to_string()
    } else {
        looked.join(", ")
    };
    match (known_traces::by_path(written), rel) {
        (Some(k), _) => format!(
            "trace {} not found (looked beside it and in {looked}): fetch it with `wafer traces fetch {}`",
            written.display(),
            k.name
        ),
        (None, Some(rel)) => format!(
            "trace {} not found (looked beside it and in {looked}): put it at {} in one of those folders",
            written.display(),
            rel.display()
        ),
        (None, None) => format!("no such file: {}", written.display()),
    }
}

/// The command that fetches the known traces among `paths`, if any are known.
pub fn fetch_command<'a>(paths: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let names: Vec<&str> = paths
        .into_iter()
        .filter_map(|p| known_traces::by_path(Path::new(p)))
        .map(|k: &KnownTrace| k.name)
        .collect();
    (!names.is_empty()).then(|| format!("wafer traces fetch {}", names.join(" ")))
}

/// Where the study trace `rel` is: beside the study file (`base`), a bundled capture
/// under the repository's `traces/`, else a trace folder;
/// missing, an error that says how to fetch it.
pub fn locate_trace(rel: &str, base: &Path) -> Result<PathBuf, LabError> {
    let written = Path::new(rel);
    let mut as_given = Vec::new();
    if written.is_absolute() {
        as_given.push(written.to_path_buf());
    } else {
        as_given.push(base.join(written));
        as_given.extend(bundled(rel));
    }
    let p = find(written, &as_given)?;
    Ok(p.canonicalize().unwrap_or(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_paths_stay_below_the_folder() {
        let old = Path::new("../../shared/traces/mobile-pixel6a/cod_exec.csv.gz");
        assert_eq!(
            folder_path(old),
            Some(PathBuf::from("mobile-pixel6a/cod_exec.csv.gz"))
        );
        assert_eq!(
            folder_path(Path::new("a/b.csv")),
            Some(PathBuf::from("a/b.csv"))
        );
        assert_eq!(folder_path(Path::new("../b.csv")), None);
        assert_eq!(folder_path(Path::new("/x/b.csv")), None);
    }

    #[test]
    fn a_missing_known_trace_names_its_fetch_command() {
        let m = missing(
            Path::new("mobile-pixel6a/telegram_exec.csv.gz"),
            Some(Path::new("mobile-pixel6a/telegram_exec.csv.gz")),
            &[("data folder", PathBuf::from("/d"))],
        );
        assert!(
            m.ends_with("fetch it with `wafer traces fetch telegram_exec`"),
            "{m}"
        );
        assert!(m.contains("/d (data folder)"), "{m}");
        assert_eq!(
            fetch_command(["mobile-pixel6a/telegram_exec.csv.gz", "dbench.wtr"]).as_deref(),
            Some("wafer traces fetch telegram_exec")
        );
    }
}
