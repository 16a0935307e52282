//! Mutation test of every trace reader: for each format a seeded generator writes a
//! valid input of a few hundred records together with the requests it stands for, and
//! thousands of mutations of it (cuts, bit flips, inserted and deleted bytes, control
//! bytes in text, huge and negative numbers in numeric fields, duplicated and removed
//! records, corrupt gzip and zstd streams) are read twice, detecting the format and
//! forcing it. Every reading must end without a panic, within a time bound and with a
//! bounded number of requests, and either fail with a one-line error naming the file,
//! or return requests that keep the documented invariants (`check.rs`) and what the
//! mutation allows (`corpus.rs`). Detection must pick the expected format or nothing.
//!
//! `WAFER_MUTATION_CASES` sets the cases per format (default [`CASES`]),
//! `WAFER_MUTATION_SEED` the master seed, `WAFER_MUTATION_REPLAY=msr:0x1234` replays one
//! case (docs/formats.md, "Malformed input and the mutation test").

mod check;
mod corpus;
mod report;

use corpus::{Expect, Target};
use report::{Tally, Violation};
use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};
use wafer_trace::{Format, Op, Request, NO_TIME};

/// Cases per format by default: a few thousand readings, about a second per format.
const CASES: u64 = 2000;

/// How long the watchdog waits for one case before reporting a hang.
const HANG: Duration = Duration::from_secs(60);

/// What the reading thread reports.
enum Msg {
    Start(u64),
    Passed,
    Failed(corpus::Case, Vec<Violation>),
}

/// Run every case of `target` (or the one being replayed) on a thread the test
/// watches, so that a reader that never returns is reported instead of hanging CI.
fn run(target: Target) {
    check::quiet_panics();
    let cfg = report::config("WAFER_MUTATION_CASES", CASES);
    let seeds: Vec<u64> = match cfg.replay {
        Some((t, seed)) if t == target => vec![seed],
        Some(_) => return,
        None => (0..cfg.cases)
            .map(|i| corpus::case_seed(cfg.master, "lib", target, i))
            .collect(),
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mutation");
    let mut tally = Tally::new(target, cfg.master, dir);
    let start = Instant::now();
    let (tx, rx) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        let scratch = corpus::scratch();
        for seed in seeds {
            let _ = tx.send(Msg::Start(seed));
            let case = corpus::case(target, seed, scratch.path());
            let violations = check::check(&case, scratch.path());
            let msg = if violations.is_empty() {
                Msg::Passed
            } else {
                Msg::Failed(case, violations)
            };
            let _ = tx.send(msg);
        }
    });
    let mut current = None;
    loop {
        match rx.recv_timeout(HANG) {
            Ok(Msg::Start(seed)) => current = Some(seed),
            Ok(Msg::Passed) => tally.pass(),
            Ok(Msg::Failed(case, v)) => tally.fail(&case, &v),
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                // The reading thread is stuck: report its case and leave it behind.
                let seed = current.expect("the watchdog fired between cases");
                let scratch = corpus::scratch();
                let case = corpus::case(target, seed, scratch.path());
                let hang = Violation {
                    mode: "detect or forced",
                    class: "hang",
                    detail: format!("no result after {HANG:?}"),
                };
                tally.fail(&case, &[hang]);
                tally.finish(start.elapsed());
                return;
            }
        }
    }
    if let Err(p) = worker.join() {
        std::panic::resume_unwind(p);
    }
    tally.finish(start.elapsed());
}

macro_rules! targets {
    ($($test:ident => $target:ident),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                run(Target::$target);
            }
        )*
    };
}

targets! {
    wtr => Wtr,
    msr => Msr,
    spc => Spc,
    blkparse => Blkparse,
    fiu => Fiu,
    disksim => Disksim,
    vscsi_v1 => VscsiV1,
    vscsi_v2 => VscsiV2,
    cloudphysics_csv => CloudphysicsCsv,
    oracle_general => OracleGeneral,
    android => Android,
    lackey => Lackey,
    generic => Generic,
    wafer_csv => WaferCsv,
    after_csv => AfterCsv,
}

/// Every format wafer reads has a mutation target: a format added to the readers
/// without one fails here, not silently outside the test.
#[test]
fn every_format_has_a_mutation_target() {
    for f in Format::ALL {
        assert!(
            Target::ALL.iter().any(|t| t.format() == f),
            "format {} has no mutation target (add one in tests/mutation/corpus.rs)",
            f.name()
        );
    }
}

/// The generators are right: every seed reads back as exactly its model, detected or
/// forced (generic text is not detected). Without this, failures could be the test's.
#[test]
fn seeds_read_back_exactly() {
    use rand::SeedableRng;
    check::quiet_panics();
    let scratch = corpus::scratch();
    let name = scratch.path().join("seed");
    let mut wrong = Vec::new();
    for target in Target::ALL {
        for i in 0..8 {
            let seed = corpus::case_seed(1, "seeds", target, i);
            let mut r = rand_pcg::Pcg64::seed_from_u64(seed);
            let s = corpus::seed_input(target, &mut r, scratch.path());
            let case = corpus::Case {
                target,
                seed,
                what: "seed".to_string(),
                input: s.bytes,
                expect: Expect::OneOf("seed misread", vec![s.model.clone()]),
            };
            for forced in [false, true] {
                let reading = check::read(&case, forced, &name).expect("a bounded reading");
                let detected = forced || target.detected().is_some();
                if detected && reading.result.as_ref().ok() != Some(&s.model) {
                    let got = reading.result.map(|v| v.len());
                    wrong.push(format!(
                        "{} seed {seed:#x} {}: {got:?}",
                        target.name(),
                        check::mode(forced)
                    ));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "seeds not read as written:\n{}",
        wrong.join("\n")
    );
}

/// The judge catches what the readers must not do, whatever the readers do today.
#[test]
fn judge_flags_broken_readings() {
    let q = Request {
        time_ns: 5,
        offset: 4096,
        len: 512,
        dev: 1,
        op: Op::Write,
    };
    let name = Path::new("/tmp/x.trace");
    let case = |expect| corpus::Case {
        target: Target::Msr,
        seed: 0,
        what: String::new(),
        input: Vec::new(),
        expect,
    };
    let exact = case(Expect::OneOf("misread", vec![vec![q]]));
    let ok = |reqs: Vec<Request>| check::Reading {
        format: Some(Format::Msr),
        result: Ok(reqs),
    };
    let class = |c: &corpus::Case, forced, r: &check::Reading| {
        check::judge(c, forced, name, r).map(|v| v.class)
    };
    assert_eq!(class(&exact, false, &ok(vec![q])), None);
    let bad = [
        (
            Request {
                offset: u64::MAX - 10,
                ..q
            },
            "offset + len overflows u64",
        ),
        (
            Request {
                offset: 1 << 53,
                ..q
            },
            "offset + len beyond 2^53",
        ),
        (
            Request { dev: 1 << 20, ..q },
            "device number of 2^20 or more",
        ),
        (
            Request {
                time_ns: NO_TIME,
                ..q
            },
            "no timestamp in a timed format",
        ),
        (Request { len: 1024, ..q }, "misread"),
    ];
    for (r, want) in bad {
        assert_eq!(class(&exact, true, &ok(vec![r])), Some(want), "{r:?}");
    }
    let refuse = case(Expect::Refuse {
        class: "impossible value accepted",
        at: 0,
    });
    assert_eq!(
        class(&refuse, true, &ok(vec![q])),
        Some("impossible value accepted")
    );
    let err = |msg: &str| check::Reading {
        format: None,
        result: Err(msg.to_string()),
    };
    assert_eq!(
        class(&exact, true, &err("/tmp/x.trace:3: expected R")),
        None
    );
    assert_eq!(
        class(&exact, true, &err("/tmp/x.trace:3:\nexpected R")),
        Some("error message not one line")
    );
    assert_eq!(
        class(&exact, true, &err("line 3: expected R")),
        Some("error message without the file name")
    );
    let oracle = check::Reading {
        format: Some(Format::OracleGeneral),
        result: Err("/tmp/x.trace:1: truncated".to_string()),
    };
    assert_eq!(
        class(&exact, false, &oracle),
        Some("text detected as a binary format")
    );
    let splice = case(Expect::Splice {
        model: vec![q, q, q],
        head: 1,
        tail: 1,
    });
    let moved = Request { offset: 0, ..q };
    assert_eq!(class(&splice, true, &ok(vec![q, moved, moved, q])), None);
    assert_eq!(
        class(&splice, true, &ok(vec![moved, q, q])),
        Some("edit changed records it did not touch")
    );
}
