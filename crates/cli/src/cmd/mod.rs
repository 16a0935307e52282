//! One module per subcommand; each exposes an `Args` struct (clap) and `run`; and the
//! checks they share: usage errors with a "did you mean", outputs that would overwrite
//! an input, and errors that name the trace file once.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

pub mod curve;
pub mod demo;
pub mod ftl;
pub mod mapping;
pub mod policies;
pub mod replay;
pub mod reproduce;
pub mod run;
pub mod sim;
pub mod ssd;
pub mod trace;
pub mod traces;

/// An error in how the command was called (exit status 2), as opposed to a failure
/// while running it (exit status 1).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// A usage error as an [`anyhow::Error`].
pub fn usage(msg: impl std::fmt::Display) -> anyhow::Error {
    UsageError(msg.to_string()).into()
}

/// A lab error, where a refused description (an experiment or study file's key) is a
/// usage error (exit 2), as refused arguments are.
pub fn config(e: wafer_lab::LabError) -> anyhow::Error {
    match e {
        wafer_lab::LabError::Config { .. } => usage(e),
        e => e.into(),
    }
}

/// The items of a list option given as repeated flags, several values, or values
/// separated by commas (`-c 4MiB,16MiB`, `-c 4MiB -c 16MiB`), in order, blanks trimmed.
pub fn list(args: &[String]) -> Vec<String> {
    args.iter()
        .flat_map(|a| a.split(','))
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Policy specs given like [`list`]: a comma also separates a policy's own
/// `key=value` parameters, so an item with `=` and no `:` continues the policy before
/// it (`-p lru,cflru:window=0.25,floor=2,arc` is LRU, CFLRU with two parameters, ARC).
pub fn policy_list(args: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for a in args {
        let mut in_params = false;
        for item in a.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match out.last_mut() {
                Some(last) if in_params && item.contains('=') && !item.contains(':') => {
                    last.push(',');
                    last.push_str(item);
                }
                _ => {
                    in_params = item.contains(':');
                    out.push(item.to_string());
                }
            }
        }
    }
    out
}

/// A usage error for an unknown `name`: `msg` (which lists the known names), plus
/// `; did you mean `x`?` when one of `known` is a likely typo of it.
pub fn unknown<'a>(
    msg: impl std::fmt::Display,
    name: &str,
    known: impl IntoIterator<Item = &'a str>,
) -> anyhow::Error {
    usage(format!("{msg}{}", wafer_trace::suggest::hint(name, known)))
}

/// Refuse (usage error) an `output` that is one of `inputs`: writing it would replace
/// the input it is read from. Compared by canonical path (a `./x` or symlinked
/// spelling) and, when both exist, by device and inode (a hard link).
pub fn refuse_input_as_output(output: &Path, inputs: &[&Path]) -> anyhow::Result<()> {
    for input in inputs {
        if same_file(output, input) {
            return Err(usage(format!(
                "output {} is the input {}: give another output file",
                output.display(),
                input.display()
            )));
        }
    }
    Ok(())
}

/// Refuse (usage error) two of a command's `outputs` (option, path) that are one file,
/// by the rule of [`refuse_input_as_output`]: the second would overwrite the first.
pub fn refuse_shared_outputs(outputs: &[(&str, &Path)]) -> anyhow::Result<()> {
    for (i, (fa, a)) in outputs.iter().enumerate() {
        if let Some((fb, b)) = outputs[i + 1..].iter().find(|(_, b)| same_file(a, b)) {
            return Err(usage(format!(
                "{fa} {} and {fb} {} are one file: give each output its own file",
                a.display(),
                b.display()
            )));
        }
    }
    Ok(())
}

fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        if (ma.dev(), ma.ino()) == (mb.dev(), mb.ino()) {
            return true;
        }
    }
    matches!((resolved(a), resolved(b)), (Some(x), Some(y)) if x == y)
}

/// `p` canonicalised; for a file not there yet, its canonical folder and its name. A
/// dangling symlink is followed (as the kernel does, at most 40 links): a write
/// through it creates the file it names.
fn resolved(p: &Path) -> Option<PathBuf> {
    let mut p = p.to_path_buf();
    for _ in 0..40 {
        if let Ok(c) = p.canonicalize() {
            return Some(c);
        }
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        match std::fs::read_link(&p) {
            Ok(to) => p = dir.join(to),
            Err(_) => return Some(dir.canonicalize().ok()?.join(p.file_name()?)),
        }
    }
    None
}

/// `err` with `<doing> <path>: ` in front, unless its message names the file already
/// (the trace readers' errors do, with the line), so that a message names it once.
pub fn about_file(err: impl Into<anyhow::Error>, doing: &str, path: &Path) -> anyhow::Error {
    let err = err.into();
    let name = path.display().to_string();
    if err.chain().any(|c| c.to_string().contains(&name)) {
        err
    } else {
        err.context(format!("{doing} {name}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_split_at_commas_and_keep_policy_parameters() {
        let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            list(&v(&["4MiB,16MiB", "64MiB"])),
            v(&["4MiB", "16MiB", "64MiB"])
        );
        assert_eq!(
            policy_list(&v(&[
                "lru,cflru:window=0.25,floor=2,arc",
                "clock:insert_ref=0"
            ])),
            v(&[
                "lru",
                "cflru:window=0.25,floor=2",
                "arc",
                "clock:insert_ref=0"
            ])
        );
        // A bare `key=value` after a policy without parameters is its own item (and an
        // unknown policy name later), not glued to it.
        assert_eq!(policy_list(&v(&["lru,a=1"])), v(&["lru", "a=1"]));
    }

    #[test]
    fn same_file_through_other_spellings() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.csv");
        std::fs::write(&a, "x").unwrap();
        let dotted = dir.path().join(".").join("a.csv");
        let link = dir.path().join("l.csv");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        let hard = dir.path().join("h.csv");
        std::fs::hard_link(&a, &hard).unwrap();
        for p in [&a, &dotted, &link, &hard] {
            assert!(refuse_input_as_output(p, &[&a]).is_err(), "{}", p.display());
        }
        let other = dir.path().join("b.csv");
        assert!(refuse_input_as_output(&other, &[&a]).is_ok());
        let missing = dir.path().join("sub/../b.csv");
        assert!(refuse_input_as_output(&missing, &[&a]).is_ok());
        // A dangling symlink to a missing input names it.
        let dangling = dir.path().join("d.csv");
        std::os::unix::fs::symlink("b.csv", &dangling).unwrap();
        assert!(refuse_input_as_output(&dangling, &[&other]).is_err());
        let looped = dir.path().join("loop.csv");
        std::os::unix::fs::symlink("loop.csv", &looped).unwrap();
        assert!(refuse_input_as_output(&looped, &[&other]).is_ok());
        // Two outputs, neither there yet, by two spellings of one name.
        let e = refuse_shared_outputs(&[
            ("--csv", &other),
            ("--plot", &a),
            ("--parquet", &dir.path().join(".").join("b.csv")),
        ])
        .unwrap_err();
        assert!(e.to_string().starts_with("--csv "), "{e}");
        assert!(refuse_shared_outputs(&[("--csv", &other), ("--plot", &a)]).is_ok());
    }
}
