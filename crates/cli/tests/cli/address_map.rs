//! Address maps end to end, on a trace wider than a tiny card: `wafer ftl` and `wafer
//! ssd` refuse it by default with one line, `--map compact` runs it with nothing
//! folded, `--map wrap` (or `--wrap`) folds it and says how many requests it wrapped,
//! and `wafer run` records the mapping and the moved operations in results.csv.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use crate::common::wafer;

/// 8 MiB logical: 32 erase blocks of 64 x 4 KiB pages, 25% OP.
const CARD: &str = "name = \"tiny\"\nftl = \"page\"\ncapacity = \"8MiB\"\nop = 0.25\n\
page_size = \"4KiB\"\npages_per_block = 64\ncell = \"mlc\"\nread_us = 25\nprogram_us = 200\n\
erase_us = 1500\n";

/// The card, and a trace of `blocks` erase blocks 1 GiB apart: each written whole
/// (one 256 KiB request), then its first page read back, 1 ms apart.
fn files(dir: &Path, blocks: u64) -> (PathBuf, PathBuf) {
    let card = dir.join("tiny.toml");
    std::fs::write(&card, CARD).unwrap();
    let mut s = String::from("time_ns,op,dev,offset,len\n");
    for b in 0..blocks {
        s += &format!("{},W,0,{},262144\n", b * 2_000_000, b << 30);
    }
    for b in 0..blocks {
        s += &format!("{},R,0,{},4096\n", (blocks + b) * 2_000_000, b << 30);
    }
    let trace = dir.join("wide.csv");
    std::fs::write(&trace, s).unwrap();
    (card, trace)
}

/// Run and expect exit `code` with one line on stderr containing every `want`.
fn fails(cmd: &mut Command, code: i32, want: &[&str]) -> String {
    let out = cmd.output().unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("wafer: "), "{err}");
    for w in want {
        assert!(err.contains(w), "want `{w}` in {err}");
    }
    err
}

fn json(cmd: &mut Command) -> Value {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn text(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn ftl_refuses_by_default_compacts_or_wraps_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let (card, trace) = files(dir.path(), 10);
    let ftl = |extra: &[&str]| {
        let mut c = wafer();
        c.arg("ftl")
            .arg("-t")
            .arg(&trace)
            .arg("-d")
            .arg(&card)
            .args(extra);
        c
    };
    let err = fails(
        &mut ftl(&[]),
        1,
        &[
            "wide.csv: request 2 (offset 1073741824 bytes): logical page 262144 is beyond \
             the device's 2048 logical pages (address map refuse",
            "--map",
        ],
    );
    assert_eq!(err.matches("wide.csv").count(), 1, "{err}");

    // Compact: ten blocks placed side by side, every page apart.
    let v = json(&mut ftl(&["--map", "compact", "--json"]));
    assert_eq!(v["address_map"], "compact");
    assert_eq!(v["replay"]["requests"], 20);
    assert_eq!(
        v["replay"]["remapped_requests"], 18,
        "all but block 0's two"
    );
    let m = &v["metrics"];
    assert_eq!(m["host_write_pages"], 640);
    assert_eq!(m["unwritten_reads"], 0, "every read finds its own block");
    let t = text(&mut ftl(&["--map", "compact"]));
    assert!(
        t.contains(
            "addresses     compact: 640 pages placed in first-touch order; 18 of 20 requests \
             moved, none folded"
        ),
        "{t}"
    );

    // Wrap: every block beyond the card folds onto block 0 (1 GiB is a multiple of
    // the 8 MiB card), so the reads all find the last write there.
    let v = json(&mut ftl(&["--map", "wrap", "--json"]));
    assert_eq!(v["address_map"], "wrap");
    assert_eq!(v["replay"]["remapped_requests"], 18);
    let t = text(&mut ftl(&["--wrap"]));
    assert!(
        t.contains(
            "addresses     wrap: pages folded modulo the capacity; 18 of 20 requests wrapped"
        ),
        "{t}"
    );

    // A trace of 40 blocks on a card of 32: refused, counting every block.
    let (card, trace) = files(dir.path(), 40);
    let mut c = wafer();
    c.arg("ftl").arg("-t").arg(&trace).arg("-d").arg(&card);
    fails(
        c.args(["--map", "compact"]),
        1,
        &[
            "wide.csv: request 33 (offset 34359738368 bytes): the trace touches 2560 pages \
             of 4 KiB but the device's logical space holds 2048 (address map compact: a \
             device of 10 MiB would hold them",
        ],
    );
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let (card, trace) = files(dir.path(), 2);
    for cmd in ["ftl", "ssd"] {
        let mut c = wafer();
        c.arg(cmd).arg("-t").arg(&trace).arg("-d").arg(&card);
        fails(
            c.args(["--map", "compat"]),
            2,
            &["unknown address map `compat` (expected refuse, compact or wrap); did you mean `compact`?"],
        );
        let mut c = wafer();
        c.arg(cmd).arg("-t").arg(&trace).arg("-d").arg(&card);
        let out = c.args(["--map", "compact", "--wrap"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{cmd}: --wrap is --map wrap");
    }
}

#[test]
fn ssd_refuses_by_default_and_compacts_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let (card, trace) = files(dir.path(), 10);
    let ssd = |extra: &[&str]| {
        let mut c = wafer();
        c.arg("ssd")
            .arg("-t")
            .arg(&trace)
            .arg("-d")
            .arg(&card)
            .args(extra);
        c
    };
    fails(
        &mut ssd(&[]),
        1,
        &[
            "wide.csv",
            "logical page 262144 is beyond the device's 2048 logical pages",
        ],
    );
    let v = json(&mut ssd(&["--map", "compact", "--json"]));
    assert_eq!(v["address_map"], "compact");
    assert_eq!(v["mapping"]["requests"], 20);
    assert_eq!(v["mapping"]["remapped_requests"], 18);
    assert_eq!(v["mapping"]["split_requests"], 0);
    assert_eq!(v["report"]["requests"], 20);
    assert_eq!(v["report"]["writes"], 640);
    let v = json(&mut ssd(&["--map", "wrap", "--json"]));
    assert_eq!(v["address_map"], "wrap");
    assert_eq!(v["mapping"]["remapped_requests"], 18);
    let t = text(&mut ssd(&["--map", "compact"]));
    assert!(
        t.contains("addresses     compact: 640 pages placed in first-touch order; 18 of 20"),
        "{t}"
    );
}

/// The rows of a results.csv as (column, value) maps; the values here hold no commas.
fn rows(path: &Path) -> Vec<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let head: Vec<String> = lines
        .next()
        .unwrap()
        .split(',')
        .map(str::to_string)
        .collect();
    lines
        .map(|l| {
            head.iter()
                .cloned()
                .zip(l.split(',').map(str::to_string))
                .collect()
        })
        .collect()
}

fn col<'a>(row: &'a [(String, String)], name: &str) -> &'a str {
    &row.iter()
        .find(|(k, _)| k == name)
        .unwrap_or_else(|| panic!("{name}"))
        .1
}

#[test]
fn run_records_the_mapping_and_what_it_moved() {
    let dir = tempfile::tempdir().unwrap();
    let (_, trace) = files(dir.path(), 10);
    let run = |map: Option<&str>| {
        let name = map.unwrap_or("default");
        let exp = dir.path().join(format!("{name}.toml"));
        std::fs::write(
            &exp,
            format!(
                "name = \"{name}\"\ntraces = [{{ path = \"{}\" }}]\npolicies = [\"lru\"]\n\
                 cache_sizes = [\"16KiB\"]\ndevices = [\"none\", \"tiny.toml\"]\n{}\
                 [outputs]\nfigures = []\nreport = false\n",
                trace.display(),
                map.map_or(String::new(), |m| format!("address_map = \"{m}\"\n"))
            ),
        )
        .unwrap();
        let out = dir.path().join(name);
        let o = wafer()
            .arg("run")
            .arg(&exp)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8(o.stderr).unwrap();
        (o.status.code(), err, out.join("results.csv"))
    };
    // The default is compact: nothing folded, no warning.
    let (code, err, csv) = run(None);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("folded"), "{err}");
    let r = rows(&csv);
    assert_eq!(r.len(), 2);
    assert_eq!(
        (col(&r[0], "device"), col(&r[0], "address_map")),
        ("none", "")
    );
    assert_eq!(col(&r[0], "ftl_remapped_ops"), "");
    assert_eq!(
        (col(&r[1], "device"), col(&r[1], "address_map")),
        ("tiny.toml", "compact")
    );
    // The cache (4 pages) writes the blocks back page by page (the reads evict the
    // last ones): the operations beyond block 0, nine blocks and nine reads, moved.
    let moved: u64 = col(&r[1], "ftl_remapped_ops").parse().unwrap();
    assert_eq!(moved, 9 * 64 + 9);

    // Wrap: the same count, and a warning that addresses were folded.
    let (code, err, csv) = run(Some("wrap"));
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "addresses folded: in 1 of 1 device cells (wide) the trace reaches beyond the \
             device's logical capacity, and address_map = \"wrap\" wrapped {moved} storage \
             operations"
        )),
        "{err}"
    );
    let r = rows(&csv);
    assert_eq!(col(&r[1], "address_map"), "wrap");
    assert_eq!(col(&r[1], "ftl_remapped_ops"), moved.to_string());

    // Refuse: the device cell fails, naming itself; the other cell is stored and the
    // run exits 1 saying how many failed.
    let (code, err, _) = run(Some("refuse"));
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(
            "failed: wide / lru / 16KiB / tiny.toml: device: logical page 262144 is beyond \
             the device's 2048 logical pages"
        ),
        "{err}"
    );
    assert_eq!(
        err.lines().last().unwrap(),
        "wafer: 1 of 2 cells failed (listed above); the other 1 are stored"
    );

    // A name that is not a mapping: a usage error naming the key.
    let (code, err, _) = run(Some("fold"));
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(
            "fold.toml: address_map: unknown address map `fold` (expected refuse, compact or wrap)"
        ),
        "{err}"
    );
}
