//! Embeds the git commit of the source tree as `WAFER_GIT_COMMIT` (short hash, with
//! `-dirty` when tracked files differ from it), for the report's provenance.
//!
//! Falls back to `unknown` where git or the repository is absent (a source archive,
//! a Python sdist) or where this crate is not tracked by the repository git finds
//! (a copy unpacked inside some other checkout). `WAFER_GIT_COMMIT` in the build's
//! environment overrides it, for packagers who know the commit.
//!
//! Cargo reruns this script only when HEAD or the branch it points to moves, so a
//! build does not redo it on every edit; the `-dirty` mark is therefore the state at
//! the last commit or checkout seen, not necessarily at the very last edit.

use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=WAFER_GIT_COMMIT");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let commit = match std::env::var("WAFER_GIT_COMMIT") {
        Ok(c) if !c.trim().is_empty() => c.trim().to_string(),
        _ => commit(dir).unwrap_or_else(|| "unknown".into()),
    };
    println!("cargo:rustc-env=WAFER_GIT_COMMIT={commit}");
}

/// Tell cargo to rerun when `path` (relative to `dir`, or absolute) changes; only for
/// a file that exists, as cargo reruns every build for a missing one.
fn watch(dir: &Path, path: &str) {
    let p = dir.join(path);
    if p.exists() {
        println!("cargo:rerun-if-changed={}", p.display());
    }
}

fn commit(dir: &Path) -> Option<String> {
    // Watch HEAD, the branch it names (loose or packed): a commit, a checkout or a
    // branch switch moves one of them.
    for p in ["HEAD", "packed-refs"] {
        if let Some(path) = git(dir, &["rev-parse", "--git-path", p]) {
            watch(dir, &path);
        }
    }
    if let Some(r) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        if let Some(path) = git(dir, &["rev-parse", "--git-path", &r]) {
            watch(dir, &path);
        }
    }
    // This very file must be tracked, else git found an unrelated repository.
    git(dir, &["ls-files", "--error-unmatch", "build.rs"])?;
    let hash = git(dir, &["rev-parse", "--short", "HEAD"]).filter(|h| !h.is_empty())?;
    // Untracked files (experiment outputs, scratch files) are not part of the build.
    let dirty =
        git(dir, &["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(if dirty { format!("{hash}-dirty") } else { hash })
}
