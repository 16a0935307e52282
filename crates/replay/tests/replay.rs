//! The player end to end on temporary files: what it writes, where, and what it refuses.
//!
//! The expected page contents are computed here from the pattern as `docs/replay.md`
//! and the report announce it (word by word, with SplitMix64 written out again), not
//! through the crate's own pattern code.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use wafer_replay::{replay, Engine, Error, Options, Report, Stage, Timing};
use wafer_trace::{Format, ReadOptions};

const PS: u64 = 4096;
const SENTINEL: u8 = 0xA5;

/// (time in 100 ns ticks, write?, offset, len) as an MSR Cambridge CSV.
fn msr(dir: &Path, reqs: &[(u64, bool, u64, u32)]) -> PathBuf {
    let mut s = String::new();
    for &(t, w, off, len) in reqs {
        let op = if w { "Write" } else { "Read" };
        s += &format!("{t},host,0,{op},{off},{len},0\n");
    }
    let p = dir.join("trace.csv");
    std::fs::write(&p, s).unwrap();
    p
}

fn msr_opts() -> ReadOptions {
    ReadOptions {
        format: Some(Format::Msr),
        ..ReadOptions::default()
    }
}

fn run(trace: &Path, target: &Path, o: &Options) -> Result<Report, Error> {
    let mut stages = Vec::new();
    let r = replay(trace, &msr_opts(), target, o, &mut |s: Stage, _, _| {
        if stages.last() != Some(&s) {
            stages.push(s);
        }
    });
    r
}

/// SplitMix64's output function, as announced.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The announced page: w0 "wafrpag1", w1 seed, w2 offset, w3 seq, wi = mix(...).
fn expected_page(seed: u64, offset: u64, seq: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(PS as usize);
    for i in 0..PS / 8 {
        let w = match i {
            0 => u64::from_le_bytes(*b"wafrpag1"),
            1 => seed,
            2 => offset,
            3 => seq,
            _ => mix(seed ^ offset ^ seq.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i),
        };
        v.extend_from_slice(&w.to_le_bytes());
    }
    v
}

/// Last write (1-based sequence number) of every page, by the page semantics of
/// `docs/cache.md` ("Engine semantics"), for traces whose requests are each one I/O.
fn last_writes(reqs: &[(u64, bool, u64, u32)]) -> BTreeMap<u64, u64> {
    let mut m = BTreeMap::new();
    let mut seq = 0;
    for &(_, w, off, len) in reqs {
        if !w {
            continue;
        }
        seq += 1;
        for p in off / PS..=(off + u64::from(len) - 1) / PS {
            m.insert(p, seq);
        }
    }
    m
}

fn sentinel_file(path: &Path, pages: u64) {
    std::fs::write(path, vec![SENTINEL; (pages * PS) as usize]).unwrap();
}

fn check_contents(target: &Path, seed: u64, expect: &BTreeMap<u64, u64>) {
    let data = std::fs::read(target).unwrap();
    for (p, page) in data.chunks(PS as usize).enumerate() {
        let p = p as u64;
        match expect.get(&p) {
            Some(&seq) => assert!(
                page == expected_page(seed, p * PS, seq).as_slice(),
                "page {p} does not carry the pattern of write #{seq}"
            ),
            None => assert!(
                page.iter().all(|&b| b == SENTINEL),
                "page {p} was never written by the trace but changed"
            ),
        }
    }
}

/// A mixed trace: unaligned requests, overwrites of the same pages, multi-page
/// requests, reads of written and unwritten pages.
fn mixed() -> Vec<(u64, bool, u64, u32)> {
    let mut v = vec![
        (0, true, 0, 4096),
        (1, true, 3 * 4096 + 100, 5000), // pages 3..=4
        (2, false, 0, 8192),
        (3, true, 10 * 4096, 3 * 4096), // 10..=12
        (4, true, 11 * 4096, 512),      // 11 again
        (5, false, 50 * 4096, 4096),    // never written
        (6, true, 3 * 4096, 4096),      // 3 again
        (7, true, 99 * 4096 + 4095, 2), // 99..=100: the span ends at page 101
    ];
    // Many small overwrites of a few pages, so that queue-depth workers race for them.
    for i in 0..400u64 {
        v.push((8 + i, i % 3 != 0, (i * 7 % 20) * 4096, 4096));
    }
    v
}

#[test]
fn written_pages_carry_the_pattern_and_nothing_else_changes() {
    let d = tempfile::tempdir().unwrap();
    let reqs = mixed();
    let trace = msr(d.path(), &reqs);
    let target = d.path().join("target.img");
    sentinel_file(&target, 256); // 1 MiB, more than the 101 pages of the trace
    for qd in [1, 8] {
        let seed = 40 + u64::from(qd);
        let o = Options {
            queue_depth: qd,
            seed,
            verify: true,
            ..Options::default()
        };
        let r = run(&trace, &target, &o).unwrap();
        let expect = last_writes(&reqs);
        check_contents(&target, seed, &expect);
        // The announced range and pattern.
        assert_eq!((r.range.start, r.range.end), (0, 101 * PS));
        let p = r.pattern.as_ref().unwrap();
        assert_eq!((p.name, p.seed, p.page_size), ("wafer-page-v1", seed, 4096));
        assert!(!r.target.created);
        assert_eq!(r.target.preallocated, None);
        // Counts.
        let writes = reqs.iter().filter(|r| r.1).count() as u64;
        assert_eq!(r.write.ios, writes);
        assert_eq!(r.read.ios, reqs.len() as u64 - writes);
        assert_eq!(r.requests, reqs.len() as u64);
        assert_eq!(r.verify.as_ref().unwrap().pages, expect.len() as u64);
        assert_eq!(r.total.ios, reqs.len() as u64);
        assert!(r.elapsed_s > 0.0 && r.total.iops > 0.0);
        assert_eq!(r.write.latency.count, writes);
        // Page-rounded bytes.
        let wbytes: u64 = reqs
            .iter()
            .filter(|r| r.1)
            .map(|r| ((r.2 + u64::from(r.3) - 1) / PS - r.2 / PS + 1) * PS)
            .sum();
        assert_eq!(r.write.bytes, wbytes);
        // Reset the file for the next depth.
        sentinel_file(&target, 256);
    }
}

#[test]
fn too_small_target_is_refused_and_wrap_maps_modulo_its_size() {
    let d = tempfile::tempdir().unwrap();
    let reqs = vec![
        (0, true, 5 * 4096, 4096),
        (1, true, 20 * 4096, 4096),  // page 20 -> 4
        (2, true, 30 * 4096, 8192),  // pages 30, 31 -> 14, 15
        (3, true, 47 * 4096, 8192),  // pages 47, 48 -> 15, 0 (split at the end)
        (4, false, 40 * 4096, 4096), // page 40 -> 8
    ];
    let trace = msr(d.path(), &reqs);
    let target = d.path().join("small.img");
    sentinel_file(&target, 16);
    let e = run(&trace, &target, &Options::default()).unwrap_err();
    assert!(e.is_usage());
    assert_eq!(
        e.to_string(),
        format!(
            "{}: target holds 65536 bytes but the trace addresses 200704 bytes (pages 0..49 \
             of 4096 B); use --wrap to map addresses modulo the target size, or a larger \
             target (--size for a new file)",
            target.display()
        )
    );
    // Refused before anything was written.
    assert!(std::fs::read(&target)
        .unwrap()
        .iter()
        .all(|&b| b == SENTINEL));

    let o = Options {
        wrap: true,
        verify: true,
        seed: 3,
        ..Options::default()
    };
    let r = run(&trace, &target, &o).unwrap();
    assert!(r.range.wrap);
    assert_eq!((r.range.end, r.range.span_bytes), (16 * PS, 49 * PS));
    assert_eq!(r.range.wrapped_requests, 4);
    assert_eq!(
        r.write.ios, 5,
        "the request crossing the end is split in two I/Os"
    );
    // By hand: write I/Os #1 page 5, #2 page 4, #3 pages 14-15, #4 page 15 (47 mod 16),
    // #5 page 0 (48 mod 16, the second piece of the split request).
    let expect = BTreeMap::from([(5, 1), (4, 2), (14, 3), (15, 4), (0, 5)]);
    check_contents(&target, 3, &expect);
    assert_eq!(
        std::fs::metadata(&target).unwrap().len(),
        16 * PS,
        "never grown"
    );
}

#[test]
fn missing_file_is_created_and_preallocated() {
    let d = tempfile::tempdir().unwrap();
    let reqs = vec![(0, true, 2 * 4096, 4096), (1, false, 9 * 4096, 4096)];
    let trace = msr(d.path(), &reqs);
    let target = d.path().join("new.img");
    let r = run(&trace, &target, &Options::default()).unwrap();
    assert!(r.target.created);
    assert_eq!(r.target.bytes, 10 * PS);
    assert_eq!(r.target.preallocated, Some((0, 10 * PS)));
    let data = std::fs::read(&target).unwrap();
    assert_eq!(data.len() as u64, 10 * PS);
    for (p, page) in data.chunks(PS as usize).enumerate() {
        if p == 2 {
            assert_eq!(page, expected_page(1, 2 * PS, 1).as_slice());
        } else {
            assert!(page.iter().all(|&b| b == 0), "page {p}: preallocated zeros");
        }
    }
    // --size makes a larger file; the span stays the trace's.
    let big = d.path().join("big.img");
    let o = Options {
        size: Some(1 << 20),
        ..Options::default()
    };
    let r = run(&trace, &big, &o).unwrap();
    assert_eq!((r.target.bytes, r.range.end), (1 << 20, 10 * PS));
    assert_eq!(std::fs::metadata(&big).unwrap().len(), 1 << 20);
}

/// A trace whose span no disk here can hold (a write just below 2 PiB): the file target is
/// refused before it exists, even with `allow_large`, naming the sizes and `--wrap`;
/// with `--wrap` onto a small `--size` the same trace runs.
#[test]
fn file_target_beyond_the_free_space_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let reqs = vec![(0, true, 4096, 4096), (1, true, (1 << 51) - 4096, 4096)];
    let trace = msr(d.path(), &reqs);
    let target = d.path().join("huge.img");
    for allow_large in [false, true] {
        let o = Options {
            allow_large,
            ..Options::default()
        };
        let e = run(&trace, &target, &o).unwrap_err();
        assert!(e.is_usage());
        let m = e.to_string();
        let want = format!(
            "{}: refusing to make a 2048 TiB file target: that needs 2048 TiB more and its \
             filesystem has ",
            target.display()
        );
        assert!(m.starts_with(&want), "{m}");
        assert!(
            m.ends_with("replay onto a smaller file with --wrap (e.g. --wrap --size 256MiB)"),
            "{m}"
        );
        assert!(!target.exists(), "refused before the file is created");
    }
    let o = Options {
        wrap: true,
        size: Some(1 << 20),
        verify: true,
        ..Options::default()
    };
    let r = run(&trace, &target, &o).unwrap();
    assert_eq!((r.target.bytes, r.range.end), (1 << 20, 1 << 20));
    assert_eq!(r.range.span_bytes, 1 << 51);
    assert_eq!(std::fs::metadata(&target).unwrap().len(), 1 << 20);
}

/// With `--timing trace`, requests wait for their timestamps: 0.2 s of trace time at
/// speed 2 cannot finish in less than 0.1 s.
#[test]
fn trace_timing_honours_timestamps() {
    let d = tempfile::tempdir().unwrap();
    // FILETIME ticks of 100 ns: 0, 0.1 s, 0.2 s.
    let reqs = vec![
        (1_000_000, true, 0, 4096),
        (2_000_000, false, 0, 4096),
        (3_000_000, true, 4096, 4096),
    ];
    let trace = msr(d.path(), &reqs);
    let target = d.path().join("t.img");
    let o = Options {
        timing: Timing::Trace { speed: 2.0 },
        ..Options::default()
    };
    let r = run(&trace, &target, &o).unwrap();
    assert!(r.elapsed_s >= 0.1, "elapsed {} s", r.elapsed_s);
    assert!(r.max_lag_ms.is_some());
    let fast = run(&trace, &target, &Options::default()).unwrap();
    assert!(fast.max_lag_ms.is_none());
}

#[test]
fn bad_options_are_refused_with_their_reason() {
    let d = tempfile::tempdir().unwrap();
    let trace = msr(d.path(), &[(0, true, 0, 4096)]);
    let target = d.path().join("t.img");
    let msg = |o: Options| run(&trace, &target, &o).unwrap_err().to_string();
    assert_eq!(
        msg(Options {
            queue_depth: 0,
            ..Options::default()
        }),
        "queue depth 0 must be between 1 and 1024"
    );
    assert_eq!(
        msg(Options {
            page_size: 1000,
            ..Options::default()
        }),
        "page size 1000 must be a multiple of 512 bytes (O_DIRECT alignment)"
    );
    assert!(msg(Options {
        engine: Engine::Fio,
        verify: true,
        ..Options::default()
    })
    .starts_with("--verify needs the built-in engine"));
    assert!(!target.exists(), "nothing created for a refused run");
}

/// A block device node, if this machine has one we can name (the refusal happens
/// before the device is opened, so nothing is touched).
fn some_block_device() -> Option<PathBuf> {
    use std::os::unix::fs::FileTypeExt;
    let mut v: Vec<PathBuf> = std::fs::read_dir("/dev")
        .ok()?
        .flatten()
        .filter(|e| e.file_type().map(|t| t.is_block_device()).unwrap_or(false))
        .map(|e| e.path())
        .collect();
    v.sort();
    v.into_iter().next()
}

#[test]
fn block_device_write_without_destructive_is_refused() {
    let Some(dev) = some_block_device() else {
        eprintln!("skipping: no block device node in /dev on this machine");
        return;
    };
    let d = tempfile::tempdir().unwrap();
    let trace = msr(d.path(), &[(0, false, 0, 4096), (1, true, 0, 4096)]);
    let e = run(&trace, &dev, &Options::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: is a block device and the trace writes (1 write requests), which destroys \
             its contents; add --destructive to allow it",
            dev.display()
        )
    );
}
