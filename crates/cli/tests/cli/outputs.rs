//! Output files: written atomically (the old file stays until the new one is
//! complete, no temporary is left behind on failure), and never over an input.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

use crate::common::wafer;

/// A `wafer-csv` trace of `n` requests (alternating reads and writes over 100,000
/// pages); record `bad` (1-based), if given, has a malformed offset.
fn csv_trace(path: &Path, n: u64, bad: Option<u64>) {
    let mut s = String::from("time_ns,op,dev,offset,len\n");
    for i in 1..=n {
        let op = if i % 2 == 0 { 'W' } else { 'R' };
        let page = i.wrapping_mul(2_654_435_761) % 100_000;
        if Some(i) == bad {
            s.push_str(&format!("{},{op},0,notanumber,4096\n", i * 1000));
        } else {
            s.push_str(&format!("{},{op},0,{},4096\n", i * 1000, page * 4096));
        }
    }
    std::fs::write(path, s).unwrap();
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Run and expect failure with `code` and a one-line message containing `want`.
fn fails(cmd: &mut Command, code: i32, want: &str) -> String {
    let out = cmd.output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("wafer: ") && err.contains(want), "{err}");
    err
}

#[test]
fn an_output_that_is_the_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let t = d.join("t.csv");
    csv_trace(&t, 2000, None);
    let before = std::fs::read(&t).unwrap();
    let link = d.join("link.csv");
    std::os::unix::fs::symlink(&t, &link).unwrap();
    let hard = d.join("hard.csv");
    std::fs::hard_link(&t, &hard).unwrap();
    let spellings = [t.clone(), d.join(".").join("t.csv"), link, hard];
    for out in &spellings {
        for stream in [false, true] {
            let mut c = wafer();
            c.args(["sim", "-p", "lru", "-c", "100p", "-t"])
                .arg(&t)
                .arg("--after")
                .arg(out);
            if stream {
                c.arg("--stream");
            }
            fails(&mut c, 2, "is the input");
        }
        fails(
            wafer().args(["trace", "convert"]).arg(&t).arg(out),
            2,
            "is the input",
        );
        assert_eq!(std::fs::read(&t).unwrap(), before, "{}", out.display());
    }
    // The input given through the symlink, the output by its real name.
    fails(
        wafer()
            .args(["trace", "convert"])
            .arg(d.join("link.csv"))
            .arg(&t),
        2,
        "is the input",
    );
    assert_eq!(std::fs::read(&t).unwrap(), before);
}

/// Two outputs of one command that are one file are refused before either is
/// written: `curve --csv X --parquet X` wrote the Parquet over the CSV (exit 0).
#[test]
fn two_outputs_that_are_one_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let t = d.join("t.csv");
    csv_trace(&t, 2000, None);
    let x = d.join("x.out");
    let dotted = d.join(".").join("x.out");
    for pair in [
        ["--csv", "--parquet"],
        ["--plot", "--plot-writes"],
        ["--csv", "--plot"],
    ] {
        fails(
            wafer()
                .args(["curve", "-t"])
                .arg(&t)
                .arg(pair[0])
                .arg(&x)
                .arg(pair[1])
                .arg(&dotted),
            2,
            "are one file",
        );
        assert!(!x.exists(), "{pair:?}");
    }
}

#[test]
fn a_run_failing_midway_keeps_the_old_output_and_leaves_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let t = d.join("t.csv");
    csv_trace(&t, 10_000, Some(5000));
    let outs: Vec<PathBuf> = ["after.csv", "after.wtr", "out.csv", "out.iolog", "out.wtr"]
        .iter()
        .map(|n| d.join(n))
        .collect();
    for o in &outs {
        std::fs::write(o, b"old content\n").unwrap();
    }
    let listing = names(d);
    for after in &outs[..2] {
        for stream in [true, false] {
            let mut c = wafer();
            c.args(["sim", "-p", "lru", "-c", "100p", "-t"])
                .arg(&t)
                .arg("--after")
                .arg(after);
            if stream {
                c.arg("--stream");
            }
            fails(&mut c, 1, "t.csv:5001");
        }
    }
    for out in &outs[2..] {
        fails(
            wafer().args(["trace", "convert"]).arg(&t).arg(out),
            1,
            "t.csv:5001",
        );
    }
    for o in &outs {
        assert_eq!(
            std::fs::read(o).unwrap(),
            b"old content\n",
            "{}",
            o.display()
        );
    }
    assert_eq!(names(d), listing, "no temporary left behind");
}

/// A 64 KiB tmpfs, unmounted (and its folder removed) on drop.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    /// Mount one, or say why not (not root, no mount permission) and return `None`.
    fn mount() -> Option<SmallDisk> {
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status();
        match status {
            Ok(s) if s.success() => Some(SmallDisk { dir }),
            other => {
                eprintln!("skipping the full-disk test: cannot mount a tmpfs ({other:?})");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

#[test]
fn a_full_disk_keeps_the_old_output_and_leaves_no_temporary() {
    let Some(disk) = SmallDisk::mount() else {
        return;
    };
    let src = tempfile::tempdir().unwrap();
    let t = src.path().join("t.csv");
    csv_trace(&t, 10_000, None);
    let old = b"old content\n";
    let after = disk.path().join("after.csv");
    let gen = disk.path().join("gen.csv");
    std::fs::write(&after, old).unwrap();
    std::fs::write(&gen, old).unwrap();
    let listing = names(disk.path());
    for stream in [false, true] {
        let mut c = wafer();
        c.args(["sim", "-p", "lru", "-c", "100p", "-t"])
            .arg(&t)
            .arg("--after")
            .arg(&after);
        if stream {
            c.arg("--stream");
        }
        fails(&mut c, 1, "after.csv: No space left on device");
    }
    fails(
        wafer()
            .args(["trace", "gen", "uniform", "--requests", "100000", "-o"])
            .arg(&gen),
        1,
        "No space left on device",
    );
    assert_eq!(std::fs::read(&after).unwrap(), old);
    assert_eq!(std::fs::read(&gen).unwrap(), old);
    assert_eq!(names(disk.path()), listing, "no temporary left behind");
}
