//! Addresses wafer cannot key apart, end to end: every command that reads a trace
//! refuses the record with the same one-line error and exit status 1. Formerly a
//! write at 2^64 - 1 showed as 0 pages in `trace info`, was dropped by `sim --stream`
//! and `ssd --wrap` (exit 0), and a write at 2^56 shared page 0's key.

use crate::common::wafer;

/// The wafer CSV export with one good request and then `row`.
fn trace_with(dir: &std::path::Path, name: &str, row: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!("time_ns,op,dev,offset,len\n0,W,0,0,4096\n{row}\n"),
    )
    .unwrap();
    p
}

fn commands(t: &std::path::Path) -> Vec<Vec<String>> {
    let t = t.display().to_string();
    let v = |a: &[&str]| a.iter().map(|s| s.replace("T", &t)).collect::<Vec<_>>();
    vec![
        v(&["trace", "info", "T"]),
        v(&["sim", "-t", "T", "-p", "lru", "-c", "4p"]),
        v(&["sim", "-t", "T", "-p", "lru", "-c", "4p", "--stream"]),
        v(&["ftl", "-t", "T", "--wrap"]),
        v(&["ssd", "-t", "T", "--wrap"]),
        v(&["trace", "convert", "T", "out.wtr"]),
    ]
}

#[test]
fn every_command_refuses_what_would_overflow_or_alias() {
    let dir = tempfile::tempdir().unwrap();
    for (name, row, want) in [
        (
            "top.csv",
            "1,W,0,18446744073709551615,4096",
            "expected a request that ends below 2^64 bytes",
        ),
        (
            "wrap.csv",
            "1,W,0,18446744073709547520,4096",
            "expected a request that ends below 2^64 bytes",
        ),
        (
            "alias.csv",
            "1,W,0,72057594037927936,4096",
            "expected an address below 2^53 bytes",
        ),
        (
            "dev.csv",
            "1,W,1048576,0,4096",
            "expected a device number (an integer below 2^20)",
        ),
    ] {
        let t = trace_with(dir.path(), name, row);
        for args in commands(&t) {
            let out = wafer()
                .current_dir(dir.path())
                .args(&args)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(
                err.contains(&format!("{name}:3: {want}")),
                "{args:?}: {err}"
            );
        }
        assert!(!dir.path().join("out.wtr").exists());
    }
}
