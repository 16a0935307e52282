//! `wafer replay` end to end on temporary files: the announced pattern and range, the
//! refusals with their messages and exit codes, after-cache traces of `wafer sim`, fio.

use predicates::prelude::*;
use std::path::{Path, PathBuf};

use crate::common::wafer;

const PS: usize = 4096;
const SENTINEL: u8 = 0x5A;

use wafer_testdata::trace as shared_trace;

/// An MSR Cambridge CSV of (write?, offset, len), 100 ns apart.
fn msr(dir: &Path, reqs: &[(bool, u64, u32)]) -> PathBuf {
    let mut s = String::new();
    for (i, &(w, off, len)) in reqs.iter().enumerate() {
        let op = if w { "Write" } else { "Read" };
        s += &format!("{i},host,0,{op},{off},{len},0\n");
    }
    let p = dir.join("trace.csv");
    std::fs::write(&p, s).unwrap();
    p
}

fn word(page: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(page[i * 8..i * 8 + 8].try_into().unwrap())
}

fn json_of(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Pages 1, 3-4 and 6 are written (page 3 twice), page 7 read; the target is 12 pages
/// of sentinel bytes. Afterwards the written pages carry the announced header words
/// (magic, seed, their own offset, the sequence number of their last write) and every
/// other page still holds the sentinel: nothing outside the written pages changed.
#[test]
fn written_pages_carry_the_announced_pattern_and_nothing_else_changes() {
    let d = tempfile::tempdir().unwrap();
    let p = PS as u64;
    let trace = msr(
        d.path(),
        &[
            (true, p, 4096),
            (true, 3 * p, 8192),
            (false, 7 * p, 4096),
            (true, 6 * p + 100, 200), // a partial page is replayed as the whole page
            (true, 3 * p, 4096),
        ],
    );
    let target = d.path().join("t.img");
    std::fs::write(&target, vec![SENTINEL; 12 * PS]).unwrap();
    let out = wafer()
        .arg("replay")
        .arg(&trace)
        .args(["--format", "msr", "--target"])
        .arg(&target)
        .args(["--seed", "42", "-q", "4", "--verify", "--json"])
        .output()
        .unwrap();
    let r = json_of(&out);
    assert_eq!(r["pattern"]["name"], "wafer-page-v1");
    assert_eq!(r["pattern"]["seed"], 42);
    assert_eq!(r["range"]["start"], 0);
    assert_eq!(r["range"]["end"], 8 * p, "pages 0..8: the trace's span");
    assert_eq!(r["target"]["bytes"], 12 * p);
    assert_eq!(r["target"]["created"], false);
    assert_eq!(r["write"]["ios"], 4);
    assert_eq!(r["read"]["ios"], 1);
    assert_eq!(r["verify"]["pages"], 4);
    assert_eq!(r["queue_depth"], 4);

    let data = std::fs::read(&target).unwrap();
    assert_eq!(data.len(), 12 * PS, "the file was not grown");
    // page -> sequence number of its last write I/O (1-based).
    let expect = [(1, 1), (3, 4), (4, 2), (6, 3)];
    for (i, page) in data.chunks(PS).enumerate() {
        match expect.iter().find(|e| e.0 == i) {
            Some(&(_, seq)) => {
                assert_eq!(&page[..8], b"wafrpag1", "page {i}");
                assert_eq!(word(page, 1), 42, "page {i}: seed");
                assert_eq!(word(page, 2), (i * PS) as u64, "page {i}: offset");
                assert_eq!(word(page, 3), seq, "page {i}: write sequence");
            }
            None => assert!(page.iter().all(|&b| b == SENTINEL), "page {i} changed"),
        }
    }
}

#[test]
fn text_report_announces_range_pattern_and_rates() {
    let d = tempfile::tempdir().unwrap();
    let trace = msr(d.path(), &[(true, 0, 4096), (false, 4096, 4096)]);
    let target = d.path().join("new.img");
    wafer()
        .arg("replay")
        .arg(&trace)
        .args(["--format", "msr", "--target"])
        .arg(&target)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "range      bytes 0..8192 (2 pages of 4096 B)",
        ))
        .stdout(predicate::str::contains("pattern    wafer-page-v1 seed 1:"))
        .stdout(predicate::str::contains(
            "created, preallocated bytes 0..8192",
        ))
        .stdout(predicate::str::contains("writes     1 I/Os, 4 KiB"))
        .stdout(predicate::str::contains("latency us p50"));
    assert_eq!(std::fs::metadata(&target).unwrap().len(), 8192);
}

#[test]
fn too_small_target_is_refused_unless_wrap() {
    let d = tempfile::tempdir().unwrap();
    let trace = msr(d.path(), &[(true, 0, 4096), (true, 9 * 4096, 4096)]);
    let target = d.path().join("small.img");
    std::fs::write(&target, vec![SENTINEL; 4 * PS]).unwrap();
    let base = || {
        let mut c = wafer();
        c.arg("replay")
            .arg(&trace)
            .args(["--format", "msr", "--target"])
            .arg(&target);
        c
    };
    base().assert().code(2).stderr(format!(
        "wafer: {}: target holds 16384 bytes but the trace addresses 40960 bytes (pages \
         0..10 of 4096 B); use --wrap to map addresses modulo the target size, or a larger \
         target (--size for a new file)\n",
        target.display()
    ));
    assert!(std::fs::read(&target)
        .unwrap()
        .iter()
        .all(|&b| b == SENTINEL));
    // Page 9 wraps onto page 1 (9 mod 4), and the output says so.
    base()
        .args(["--wrap", "--verify"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "range      bytes 0..16384 (4 pages of 4096 B); --wrap: the trace's 40 KiB mapped \
             modulo the range (1 requests wrapped)",
        ));
    let data = std::fs::read(&target).unwrap();
    assert_eq!(word(&data[PS..], 2), PS as u64);
    assert_eq!(word(&data[PS..], 3), 2);
    assert!(data[2 * PS..].iter().all(|&b| b == SENTINEL));
}

/// The trace and its prepared file (`T.wprep`) are never a target, by any name: the
/// replay overwrote the trace it was reading (exit 0), also through a symlink or a
/// hard link, and wrote onto `T.wprep`. Refused with status 2 before anything is
/// written.
#[test]
fn the_trace_and_its_prepared_file_are_not_targets() {
    let d = tempfile::tempdir().unwrap();
    let trace = msr(d.path(), &[(true, 0, 4096), (true, 9 * 4096, 4096)]);
    let before = std::fs::read(&trace).unwrap();
    let link = d.path().join("link.csv");
    std::os::unix::fs::symlink(&trace, &link).unwrap();
    let hard = d.path().join("hard.csv");
    std::fs::hard_link(&trace, &hard).unwrap();
    let wprep = d.path().join("trace.csv.wprep");
    let wprep_link = d.path().join("w.img");
    std::os::unix::fs::symlink(&wprep, &wprep_link).unwrap();
    let targets = [
        trace.clone(),
        d.path().join(".").join("trace.csv"),
        link.clone(),
        hard,
        wprep.clone(),
        wprep_link,
    ];
    for target in &targets {
        let out = wafer()
            .arg("replay")
            .arg(&trace)
            .args(["--format", "msr", "--wrap", "--target"])
            .arg(target)
            .output()
            .unwrap();
        let err = one_line_failure(&out, 2);
        assert!(err.contains("is the input"), "{}: {err}", target.display());
        assert_eq!(
            std::fs::read(&trace).unwrap(),
            before,
            "{}",
            target.display()
        );
        assert!(!wprep.exists(), "{}", target.display());
    }
    // The trace named through its symlink, the target by the real name.
    let out = wafer()
        .arg("replay")
        .arg(&link)
        .args(["--format", "msr", "--wrap", "--target"])
        .arg(&trace)
        .output()
        .unwrap();
    one_line_failure(&out, 2);
    assert_eq!(std::fs::read(&trace).unwrap(), before);
}

/// A trace reaching 1 PiB would need a file no disk here holds: refused before the
/// file exists, naming the sizes and `--wrap`; `--allow-large` does not lift the free
/// space itself.
#[test]
fn file_target_beyond_free_space_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let trace = msr(d.path(), &[(true, (1 << 50) - 4096, 4096)]);
    let target = d.path().join("huge.img");
    for extra in [&[][..], &["--allow-large"][..]] {
        wafer()
            .arg("replay")
            .arg(&trace)
            .args(["--format", "msr", "--target"])
            .arg(&target)
            .args(extra)
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with(format!(
                "wafer: {}: refusing to make a 1024 TiB file target: that needs 1024 TiB \
                 more and its filesystem has ",
                target.display()
            )))
            .stderr(predicate::str::ends_with(
                "available; replay onto a smaller file with --wrap (e.g. --wrap --size \
                 256MiB)\n",
            ));
        assert!(!target.exists());
    }
}

#[test]
fn bad_options_are_usage_errors() {
    let d = tempfile::tempdir().unwrap();
    let trace = msr(d.path(), &[(true, 0, 4096)]);
    let target = d.path().join("t.img");
    let run = |args: &[&str], msg: &str| {
        wafer()
            .arg("replay")
            .arg(&trace)
            .args(["--format", "msr", "--target"])
            .arg(&target)
            .args(args)
            .assert()
            .code(2)
            .stderr(format!("wafer: {msg}\n"));
    };
    run(
        &["--via", "fio", "--verify"],
        "--verify needs the built-in engine: fio writes its own data, not the announced pattern",
    );
    run(&["--speed", "2"], "--speed applies to --timing trace only");
    run(
        &["--max-gap", "5"],
        "--max-gap applies to --timing trace only",
    );
    run(&["-q", "0"], "queue depth 0 must be between 1 and 1024");
    run(
        &["--page-size", "1000"],
        "page size `1000` must be a power of two from 512 B to 1 GiB (e.g. 4KiB)",
    );
    assert!(!target.exists(), "nothing created for a refused run");
}

/// `--timing trace` over a trace with one corrupt far-future timestamp slept for a
/// day (any gap, any `--speed`, `1e-300` included): a wait above `--max-gap` (an hour
/// by default, after `--speed`) and a speed outside 1e-6..1e6 are refused with status
/// 2 before the target is created. (The commands have a timeout so that a regression
/// fails instead of sleeping.)
#[test]
fn timing_refuses_waits_of_days_and_absurd_speeds() {
    let d = tempfile::tempdir().unwrap();
    // MSR times are 100 ns ticks: request 3 comes a day after request 2.
    let msr_at = |name: &str, ticks: &[u64]| {
        let p = d.path().join(name);
        let s: String = ticks
            .iter()
            .map(|t| format!("{t},host,0,Write,0,4096,0\n"))
            .collect();
        std::fs::write(&p, s).unwrap();
        p
    };
    let day = msr_at("day.csv", &[0, 100, 864_000_000_100, 864_000_000_200]);
    let two_s = msr_at("two.csv", &[0, 20_000_000]);
    let one = msr_at("one.csv", &[0]);
    let target = d.path().join("t.img");
    let replay = |trace: &Path, args: &[&str]| {
        wafer()
            .arg("replay")
            .arg(trace)
            .args(["--format", "msr", "--timing", "trace", "--target"])
            .arg(&target)
            .args(args)
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap()
    };
    let err = one_line_failure(&replay(&day, &[]), 2);
    assert_eq!(
        err,
        format!(
            "wafer: {}: request 3 comes 86400.000 s after the requests before it in the \
             trace's time, a wait of 86400.000 s at --speed 1; waits above 3600 s are refused \
             (a corrupt timestamp?): allow it with --max-gap 86400, or raise --speed\n",
            day.display()
        )
    );
    let err = one_line_failure(&replay(&two_s, &["--max-gap", "1"]), 2);
    assert!(err.contains("request 2 comes 2.000 s after"), "{err}");
    for speed in ["1e-300", "0", "-1", "inf", "NaN", "1e7"] {
        let err = one_line_failure(&replay(&one, &[&format!("--speed={speed}")]), 2);
        assert!(
            err.contains("must be a number from 1e-6 to 1e6"),
            "{speed}: {err}"
        );
    }
    one_line_failure(&replay(&one, &["--max-gap", "0"]), 2);
    assert!(!target.exists(), "nothing created for a refused run");
    // The bound is on the wait after --speed: at 100 times the speed, 0.02 s.
    let out = replay(&two_s, &["--max-gap", "1", "--speed", "100"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The after-cache trace `wafer sim --after` writes is read by its header: the replay
/// issues exactly its rows (reads and writes counted from the file here), wrapped onto
/// a 4 MiB file because the FIU trace spans 277 GiB.
#[test]
fn after_cache_trace_of_sim_replays_wrapped() {
    let Some(t) = shared_trace("fiu/fiu_mail_cheetah_10k.blkparse") else {
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let after = d.path().join("after.csv");
    wafer()
        .args(["sim", "-t"])
        .arg(&t)
        .args(["-p", "lru", "-c", "1MiB", "--after"])
        .arg(&after)
        .assert()
        .success();
    let text = std::fs::read_to_string(&after).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("access,time_ns,op,kind,group,dev,page,offset,len")
    );
    let (mut reads, mut writes) = (0u64, 0u64);
    for l in lines {
        match l.split(',').nth(2) {
            Some("R") => reads += 1,
            Some("W") => writes += 1,
            other => panic!("unexpected op {other:?} in {l}"),
        }
    }
    assert!(reads > 0 && writes > 0, "{reads} reads, {writes} writes");
    let target = d.path().join("r.img");
    let out = wafer()
        .arg("replay")
        .arg(&after)
        .arg("--target")
        .arg(&target)
        .args(["--size", "4MiB", "--wrap", "--verify", "--json", "-q", "2"])
        .output()
        .unwrap();
    let r = json_of(&out);
    assert_eq!(r["scan"]["reads"], reads);
    assert_eq!(r["scan"]["writes"], writes);
    assert_eq!(r["range"]["end"], 4 << 20);
    assert_eq!(r["range"]["wrap"], true);
    assert!(r["range"]["span_bytes"].as_u64().unwrap() > 200 << 30);
    assert_eq!(std::fs::metadata(&target).unwrap().len(), 4 << 20);
}

/// `--via fio` issues the same mapped I/Os with fio and reads its JSON back. Skipped,
/// visibly, where fio is not installed.
#[test]
fn via_fio_reports_fios_numbers() {
    if std::process::Command::new("fio")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipping via_fio_reports_fios_numbers: fio is not on PATH");
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let p = 4096u64;
    let reqs: Vec<_> = (0..64)
        .map(|i| (i % 3 != 0, (i * 7 % 32) * p, 4096))
        .collect();
    let trace = msr(d.path(), &reqs);
    let target = d.path().join("t.img");
    let out = wafer()
        .arg("replay")
        .arg(&trace)
        .args(["--format", "msr", "--target"])
        .arg(&target)
        .args(["--via", "fio", "--json"])
        .output()
        .unwrap();
    let r = json_of(&out);
    assert_eq!(r["engine"], "fio");
    assert!(r["pattern"].is_null(), "fio writes its own data");
    // psync at depth 1 accounts every I/O: 42 writes and 22 reads of one page each.
    assert_eq!(r["write"]["ios"], 42);
    assert_eq!(r["read"]["ios"], 22);
    assert_eq!(r["write"]["bytes"], 42 * p);
    assert!(r["write"]["latency"]["p50_us"].as_f64().unwrap() > 0.0);
    assert_eq!(std::fs::metadata(&target).unwrap().len(), 32 * p);
}

/// A wafer-csv trace of (write?, offset, len) on device 0, untimed.
fn wafer_csv(dir: &Path, name: &str, reqs: &[(bool, u64, u32)]) -> PathBuf {
    let mut s = String::from("time_ns,op,dev,offset,len\n");
    for &(w, off, len) in reqs {
        s += &format!(",{},0,{off},{len}\n", if w { "W" } else { "R" });
    }
    let p = dir.join(name);
    std::fs::write(&p, s).unwrap();
    p
}

/// Asserts that `out` failed with status `code` and one line on stderr, returned.
fn one_line_failure(out: &std::process::Output, code: i32) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "stderr: {err}");
    assert!(
        err.starts_with("wafer: ") && err.ends_with('\n') && err.lines().count() == 1,
        "not one line: {err:?}"
    );
    err
}

/// The attack's inputs: one 4 KiB write at 2^64 - 1 (replay tried to allocate 6 GiB)
/// and one at 2^64 - 4096 (replay announced a range and issued a pwrite at that offset),
/// with and without --wrap. Each is an error with status 1 naming the request, and the
/// target is untouched. The trace readers may come to refuse such requests themselves
/// (then the line names the line of the file): either way one line naming the record.
#[test]
fn requests_ending_beyond_2_64_are_errors_not_writes() {
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("t.img");
    std::fs::write(&target, vec![SENTINEL; 256 * PS]).unwrap();
    for (name, off) in [("max.csv", u64::MAX), ("page.csv", u64::MAX - 4095)] {
        let trace = wafer_csv(d.path(), name, &[(true, off, 4096)]);
        for extra in [&[][..], &["--wrap"][..], &["--wrap", "--size", "1MiB"][..]] {
            let out = wafer()
                .arg("replay")
                .arg(&trace)
                .args(["--format", "wafer-csv", "--target"])
                .arg(&target)
                .args(extra)
                .output()
                .unwrap();
            let err = one_line_failure(&out, 1);
            let prefix = format!("wafer: {}:", trace.display());
            assert!(err.starts_with(&prefix), "{extra:?}: {err}");
            assert!(
                err.contains(": request 1: write of 4096 bytes at offset")
                    || err.starts_with(&format!("{prefix}2:")),
                "{extra:?}: the record is not named: {err}"
            );
            let data = std::fs::read(&target).unwrap();
            assert_eq!(data.len(), 256 * PS);
            assert!(data.iter().all(|&b| b == SENTINEL), "{name} {extra:?}");
        }
    }
}

/// A --size whose whole pages do not fit in a file offset is refused (it overflowed
/// while being rounded up to pages).
#[test]
fn size_beyond_any_file_is_a_usage_error() {
    let d = tempfile::tempdir().unwrap();
    let trace = wafer_csv(d.path(), "t.csv", &[(true, 0, 4096)]);
    let target = d.path().join("t.img");
    let out = wafer()
        .arg("replay")
        .arg(&trace)
        .args(["--format", "wafer-csv", "--target"])
        .arg(&target)
        .args(["--size", "18446744073709551615"])
        .output()
        .unwrap();
    let err = one_line_failure(&out, 2);
    assert_eq!(
        err,
        "wafer: --size 18446744073709551615: rounded up to whole pages of 4096 B it is \
         larger than 9223372036854775807 bytes, the largest file size\n"
    );
    assert!(!target.exists());
}

/// Runs a command; `Err` says what failed (for the skip message).
fn sh(prog: &str, args: &[&std::ffi::OsStr]) -> Result<String, String> {
    let out = std::process::Command::new(prog)
        .args(args)
        .output()
        .map_err(|e| format!("{prog}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{prog} {:?}: {}",
            args,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// An ext4 image in a temporary directory, attached to a loop device and mounted. Drop
/// undoes whatever was done, in reverse order, even when an assertion failed.
struct LoopMount {
    dir: tempfile::TempDir,
    /// `/dev/loopN` once attached.
    dev: Option<String>,
    /// Whether `mnt` is mounted.
    mounted: bool,
    /// A process holding a mount of `dev` in a mount namespace of its own.
    hidden: Option<std::process::Child>,
}

impl LoopMount {
    fn image(&self) -> PathBuf {
        self.dir.path().join("fs.img")
    }

    fn mnt(&self) -> PathBuf {
        self.dir.path().join("mnt")
    }

    /// Needs root, losetup, mkfs.ext4 and mount; `Err` says why it cannot be had.
    fn new() -> Result<LoopMount, String> {
        use std::os::unix::fs::MetadataExt;
        let uid = std::fs::metadata("/proc/self").map_err(|e| format!("/proc/self: {e}"))?;
        if uid.uid() != 0 {
            return Err("not running as root".into());
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mut lm = LoopMount {
            dir,
            dev: None,
            mounted: false,
            hidden: None,
        };
        let img = lm.image();
        let f = std::fs::File::create(&img).map_err(|e| e.to_string())?;
        f.set_len(8 << 20).map_err(|e| e.to_string())?;
        drop(f);
        sh(
            "mkfs.ext4",
            &["-q".as_ref(), "-F".as_ref(), img.as_os_str()],
        )?;
        lm.dev = Some(sh(
            "losetup",
            &["-f".as_ref(), "--show".as_ref(), img.as_os_str()],
        )?);
        std::fs::create_dir(lm.mnt()).map_err(|e| e.to_string())?;
        lm.mount()?;
        std::fs::write(lm.mnt().join("hello.txt"), b"hello").map_err(|e| e.to_string())?;
        Ok(lm)
    }

    fn mount(&mut self) -> Result<(), String> {
        let dev = self.dev.clone().unwrap_or_default();
        sh("mount", &[dev.as_ref(), self.mnt().as_os_str()])?;
        self.mounted = true;
        Ok(())
    }

    fn umount(&mut self) -> Result<(), String> {
        sh("umount", &[self.mnt().as_os_str()])?;
        self.mounted = false;
        Ok(())
    }

    /// Mount the device in a new mount namespace, where this process cannot see it.
    fn mount_hidden(&mut self) -> Result<(), String> {
        use std::io::BufRead;
        let dev = self.dev.clone().unwrap_or_default();
        let script = format!(
            "mount '{dev}' '{}' && echo mounted && exec sleep 120",
            self.mnt().display()
        );
        let mut child = std::process::Command::new("unshare")
            .args(["-m", "--propagation", "private", "sh", "-c", &script])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("unshare: {e}"))?;
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped");
        let _ = std::io::BufReader::new(stdout).read_line(&mut line);
        self.hidden = Some(child);
        if line.trim() != "mounted" {
            return Err("unshare -m could not mount in a new namespace".into());
        }
        Ok(())
    }
}

impl Drop for LoopMount {
    fn drop(&mut self) {
        if let Some(mut c) = self.hidden.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
        if self.mounted && self.umount().is_err() {
            let _ = sh("umount", &["-l".as_ref(), self.mnt().as_os_str()]);
        }
        if let Some(dev) = self.dev.take() {
            // The kernel releases a lazily unmounted or namespaced mount a moment later.
            for _ in 0..50 {
                if sh("losetup", &["-d".as_ref(), dev.as_ref()]).is_ok() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        }
    }
}

/// The attack: `wafer replay t --target fs.img --wrap` on the image of a mounted ext4
/// exited 0 and corrupted it. The image, a symlink to it, and the loop device itself
/// are refused with status 2 and one line naming the reason; so is the image while
/// attached but unmounted, and the device while mounted where this process cannot see
/// it (another mount namespace), and the image under a hard link once the name it
/// was attached by is removed. The unmounted device may be written. Needs root,
/// losetup, mkfs.ext4 and mount; skipped, visibly, without them.
#[test]
fn images_and_devices_of_mounted_file_systems_are_refused() {
    let mut lm = match LoopMount::new() {
        Ok(lm) => lm,
        Err(why) => {
            eprintln!("skipping images_and_devices_of_mounted_file_systems_are_refused: {why}");
            return;
        }
    };
    let d = tempfile::tempdir().unwrap();
    let trace = msr(d.path(), &[(true, 0, 4096), (true, 1 << 20, 8192)]);
    let image = lm.image();
    let link = d.path().join("link.img");
    std::os::unix::fs::symlink(&image, &link).unwrap();
    let dev = lm.dev.clone().unwrap();
    let replay = |target: &Path, extra: &[&str]| {
        wafer()
            .arg("replay")
            .arg(&trace)
            .args(["--format", "msr", "--target"])
            .arg(target)
            .args(extra)
            .output()
            .unwrap()
    };
    let mnt = std::fs::canonicalize(lm.mnt()).unwrap();
    let before = std::fs::read(&image).unwrap();
    for target in [&image, &link] {
        let err = one_line_failure(&replay(target, &["--wrap"]), 2);
        assert_eq!(
            err,
            format!(
                "wafer: {}: refusing to write: it is the backing file of {dev}, and {dev} is \
                 mounted on {} (ext4)\n",
                target.display(),
                mnt.display()
            )
        );
    }
    assert!(std::fs::read(&image).unwrap() == before, "image changed");
    // Every safety refusal exits 2, the mounted device included (it exited 1).
    let err = one_line_failure(&replay(Path::new(&dev), &["--wrap"]), 2);
    assert!(err.contains("add --destructive to allow it"), "{err}");
    let err = one_line_failure(&replay(Path::new(&dev), &["--wrap", "--destructive"]), 2);
    assert_eq!(
        err,
        format!(
            "wafer: {dev}: refusing to write: {dev} is mounted on {} (ext4)\n",
            mnt.display()
        )
    );
    assert_eq!(
        std::fs::read(lm.mnt().join("hello.txt")).unwrap(),
        b"hello",
        "the file system is intact"
    );

    // The name the image was attached by is removed and a hard link survives: sysfs
    // says `fs.img (deleted)`, the kernel's device and inode still find it (the replay
    // wrote into the mounted file system, exit 0). The name is restored afterwards.
    let kept = lm.dir.path().join("kept.img");
    std::fs::hard_link(&image, &kept).unwrap();
    std::fs::remove_file(&image).unwrap();
    let err = one_line_failure(&replay(&kept, &["--wrap"]), 2);
    std::fs::rename(&kept, &image).unwrap();
    assert_eq!(
        err,
        format!(
            "wafer: {}: refusing to write: it is the backing file of {dev}, and {dev} is \
             mounted on {} (ext4)\n",
            kept.display(),
            mnt.display()
        )
    );
    assert!(std::fs::read(&image).unwrap() == before, "image changed");

    // Attached but not mounted: the image is still refused (a mount can come at any
    // moment), the device may be written.
    lm.umount().unwrap();
    let err = one_line_failure(&replay(&link, &["--wrap"]), 2);
    assert_eq!(
        err,
        format!(
            "wafer: {}: refusing to write: it is the backing file of {dev}\n",
            link.display()
        )
    );
    let out = replay(Path::new(&dev), &["--wrap", "--destructive"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Mounted in another mount namespace: /proc/self/mounts does not show it, the
    // kernel's exclusive open refuses it. (The replay above overwrote the superblock.)
    if let Err(why) = sh("mkfs.ext4", &["-q".as_ref(), "-F".as_ref(), dev.as_ref()])
        .and_then(|_| lm.mount_hidden())
    {
        eprintln!("skipping the mount-namespace part: {why}");
        return;
    }
    let err = one_line_failure(&replay(Path::new(&dev), &["--wrap", "--destructive"]), 2);
    assert_eq!(
        err,
        format!(
            "wafer: {dev}: refusing to write: the kernel reports it busy (EBUSY on an \
             exclusive open: mounted, used as swap, or claimed by a device mapper or RAID)\n"
        )
    );
}
