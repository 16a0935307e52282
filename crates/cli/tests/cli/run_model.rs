//! One run description for every front end: the same run given as `wafer sim`
//! arguments and as an experiment-file cell is the same `RunSpec` (the same cell id,
//! a hash of every parameter) with the same result row, and every invalid value is
//! refused by both with the same message after each front end's own location. (The
//! Python keywords are checked against `wafer sim` in `python/tests/test_sim.py`.)

use std::path::Path;

use serde_json::Value;

use crate::common::wafer;

/// A trace the repository carries.
const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/fileserver.wtr");

/// An experiment file for the same run as `wafer sim -p lru,ts-clock -c 1MiB,5%
/// --block 256KiB -d microsd-16g --warmup 100 --flush-at-end`, with `extra` keys.
fn experiment(dir: &Path, extra: &str) -> std::path::PathBuf {
    let p = dir.join("exp.toml");
    std::fs::write(
        &p,
        format!(
            r#"name = "same run"
traces = [{{ path = "{TRACE}" }}]
policies = ["lru", "ts-clock"]
cache_sizes = ["1MiB", "5%"]
block_size = "256KiB"
devices = ["microsd-16g"]
warmup = 100
flush_at_end = true
{extra}
[outputs]
figures = []
report = false
"#
        ),
    )
    .unwrap();
    p
}

/// Rows without the wall-clock column.
fn untimed(rows: &Value) -> Vec<Value> {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r.as_object_mut().unwrap().remove("elapsed_s");
            r
        })
        .collect()
}

#[test]
fn sim_arguments_and_an_experiment_cell_are_the_same_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = wafer()
        .args(["sim", "-t", TRACE, "-p", "lru,ts-clock", "-c", "1MiB,5%"])
        .args(["--block", "256KiB", "-d", "microsd-16g", "--warmup", "100"])
        .args(["--flush-at-end", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sim: Value = serde_json::from_slice(&out.stdout).unwrap();
    let exp = experiment(dir.path(), "");
    let res = dir.path().join("out");
    wafer()
        .args(["run"])
        .arg(&exp)
        .arg("-o")
        .arg(&res)
        .assert()
        .success();
    let run: Value =
        serde_json::from_slice(&std::fs::read(res.join("results.json")).unwrap()).unwrap();
    let (sim, run) = (untimed(&sim), untimed(&run));
    assert_eq!(sim.len(), 4);
    // Same ids (every parameter hashed) and every column equal, floats to the bit.
    assert_eq!(sim, run);
    assert!(sim.iter().all(|r| r["ftl_erases"].is_u64()));
}

/// `(sim flags, experiment-file keys, the message both must end with)`.
const INVALID: [(&[&str], &str, &str); 7] = [
    (
        &["--page-size", "3000"],
        "page_size = \"3000\"",
        "\"3000\": page size 3000 B must be a power of two from 512 B to 1 GiB (e.g. 4KiB)",
    ),
    (
        &["--block", "6KiB"],
        "block_size = \"6KiB\"",
        "\"6KiB\" must be a multiple of the 4096 B page (at most 2^32-1 pages)",
    ),
    (&["-c", "0"], "cache_sizes = [\"0\"]", "cache size"),
    (
        &["-c", "100"],
        "cache_sizes = [\"100\"]",
        "less than one page",
    ),
    (&["-c", "0.01"], "cache_sizes = [\"0.01\"]", "1%"),
    // Ran as one page: a size is whole pages.
    (
        &["-c", "6KiB"],
        "cache_sizes = [\"6KiB\"]",
        "cache size 6KiB is not a whole number of 4096 B pages; the nearest sizes are \
         4KiB (1 page) and 8KiB (2 pages)",
    ),
    (&["-p", "lru,lru"], "policies = [\"lru\", \"lru\"]", "twice"),
];

#[test]
fn invalid_values_are_refused_alike_by_sim_run_and_curve() {
    let dir = tempfile::tempdir().unwrap();
    for (flags, keys, want) in INVALID {
        let mut sim = wafer();
        sim.args(["sim", "-t", TRACE]);
        if !flags.contains(&"-p") {
            sim.args(["-p", "lru"]);
        }
        if !flags.contains(&"-c") {
            sim.args(["-c", "1MiB"]);
        }
        let out = sim.args(flags).output().unwrap();
        let sim_err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{flags:?}: {sim_err}");
        // The experiment file with the same value instead of its default.
        let text = std::fs::read_to_string(experiment(dir.path(), "")).unwrap();
        let key = keys.split(' ').next().unwrap();
        let text: String = text
            .lines()
            .filter(|l| !l.starts_with(&format!("{key} ")))
            .collect::<Vec<_>>()
            .join("\n");
        let exp = dir.path().join("bad.toml");
        std::fs::write(
            &exp,
            text.replacen("[outputs]", &format!("{keys}\n[outputs]"), 1),
        )
        .unwrap();
        let out = wafer()
            .args(["run"])
            .arg(&exp)
            .arg("-o")
            .arg(dir.path().join("never"))
            .output()
            .unwrap();
        let run_err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{keys}: {run_err}");
        // `wafer curve` shares sim's run options (sizes are its `--sizes`).
        let curve_flags: Vec<&str> = flags
            .iter()
            .map(|f| if *f == "-c" { "--sizes" } else { f })
            .collect();
        let out = wafer()
            .args(["curve", "-t", TRACE])
            .args(&curve_flags)
            .output()
            .unwrap();
        let curve_err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{curve_flags:?}: {curve_err}");
        for e in [&sim_err, &run_err, &curve_err] {
            assert_eq!(e.lines().count(), 1, "{e}");
            assert!(e.contains(want), "want `{want}` in {e}");
        }
        // The same message after the location (`--flag: ` / `bad.toml: key[i]: `).
        let tail = |e: &str| e.trim_end().rsplit(": ").next().unwrap().to_string();
        assert_eq!(tail(&sim_err), tail(&run_err), "{flags:?} / {keys}");
        assert_eq!(tail(&sim_err), tail(&curve_err), "{flags:?} / curve");
    }
}

/// A cost beyond one second per page (`u64::MAX` made the I/O time wrap) is refused
/// by `--t-read-ns` and the file alike (here in the former `cost` table, which names
/// the option by its one name).
#[test]
fn an_extreme_cost_is_refused_alike_by_sim_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = wafer()
        .args(["sim", "-t", TRACE, "-p", "lru", "-c", "1MiB"])
        .args(["--t-read-ns", "18446744073709551615"])
        .output()
        .unwrap();
    let sim_err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{sim_err}");
    assert_eq!(
        sim_err,
        "wafer: --t-read-ns: 18446744073709551615 ns per page is more than 1000000000 ns \
         (one second), the largest cost\n"
    );
    let exp = experiment(
        dir.path(),
        "cost = { t_read_ns = 25000, t_write_ns = 2000000000 }",
    );
    let out = wafer()
        .args(["run"])
        .arg(&exp)
        .arg("-o")
        .arg(dir.path().join("never"))
        .output()
        .unwrap();
    let run_err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{run_err}");
    assert!(
        run_err.contains(": t_write_ns: 2000000000 ns per page is more than"),
        "{run_err}"
    );
}

/// The address map (devices only, so not `wafer curve`'s): `--map` and the file's
/// `address_map` refuse an unknown name with the same message after the location.
#[test]
fn an_unknown_address_map_is_refused_alike_by_sim_and_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = wafer()
        .args([
            "sim", "-t", TRACE, "-p", "lru", "-c", "1MiB", "--map", "fold",
        ])
        .output()
        .unwrap();
    let sim_err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{sim_err}");
    let exp = experiment(dir.path(), "address_map = \"fold\"");
    let out = wafer()
        .args(["run"])
        .arg(&exp)
        .arg("-o")
        .arg(dir.path().join("never"))
        .output()
        .unwrap();
    let run_err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{run_err}");
    let want = "unknown address map `fold` (expected refuse, compact or wrap)";
    assert_eq!(sim_err, format!("wafer: --address-map: {want}\n"));
    assert_eq!(
        run_err,
        format!("wafer: {}: address_map: {want}\n", exp.display())
    );
}
