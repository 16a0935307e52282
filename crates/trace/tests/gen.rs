//! The synthetic generators against their specifications: paper 004's micro
//! benchmarks (`reference/policies.md` §11.5), paper 000's block-utilization pattern
//! (Sec. II-B), and the analytic shapes of the classic patterns.

use wafer_trace::gen::{Arrival, GenSpec, MicroParams};
use wafer_trace::{Op, Request, NO_TIME};

const MS: u64 = 1_000_000;
const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

fn spec(json: &str) -> GenSpec {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"))
}

fn gen(json: &str) -> Vec<Request> {
    spec(json)
        .collect()
        .unwrap_or_else(|e| panic!("{json}: {e}"))
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0u64), |(s, n), x| (s + x, n + 1));
    s / n as f64
}

// ---------------------------------------------------------------- paper 004 (§11.5)

#[test]
fn constant_write_starts_every_request_at_sector_zero() {
    let rs = gen(r#"{"kind":"constant-write","arrival":"fixed:10ms"}"#);
    assert_eq!(rs.len(), 10_000, "§11.5: 10,000 requests per run");
    for (i, r) in rs.iter().enumerate() {
        assert_eq!((r.op, r.offset, r.dev), (Op::Write, 0, 0), "request {i}");
        assert_eq!(r.len % 512, 0);
        assert!(
            (512..=8191 * 512).contains(&r.len),
            "size < 8192 blocks: {}",
            r.len
        );
        assert_eq!(r.time_ns, i as u64 * 10 * MS, "fixed 10 ms arrivals from 0");
    }
    // Uniform on 1..=8191 blocks: mean 4096 blocks, standard error 23.6 blocks.
    let m = mean(rs.iter().map(|r| f64::from(r.len / 512)));
    assert!((m - 4096.0).abs() < 100.0, "mean size {m} blocks");
}

#[test]
fn random_write_is_aligned_inside_the_16_gib_span() {
    let rs = gen(r#"{"kind":"random-write"}"#);
    assert_eq!(rs.len(), 10_000);
    let (mut lo, mut hi, mut min_len, mut max_len) = (u64::MAX, 0, u32::MAX, 0);
    for r in &rs {
        assert_eq!(r.op, Op::Write);
        assert_eq!(r.offset % 4096, 0, "8-sector aligned");
        assert_eq!(r.len % 512, 0);
        assert!(r.offset + u64::from(r.len) <= 16 * GIB);
        lo = lo.min(r.offset);
        hi = hi.max(r.offset);
        min_len = min_len.min(r.len);
        max_len = max_len.max(r.len);
    }
    // 10,000 uniform starts: the extremes sit within ~0.02% of the span's ends, and
    // each of the 199 sizes is missed with probability (198/199)^10000 ~ e^-50.
    assert!(lo < GIB / 64 && hi > 16 * GIB - GIB / 64, "{lo} {hi}");
    assert_eq!((min_len, max_len), (512, 199 * 512));
    let m = mean(rs.iter().map(|r| f64::from(r.len / 512)));
    assert!(
        (m - 100.0).abs() < 2.5,
        "uniform 1..199 has mean 100, got {m}"
    );
}

#[test]
fn write_biased_has_ten_percent_reads() {
    let rs = gen(r#"{"kind":"write-biased"}"#);
    let reads = rs.iter().filter(|r| r.op == Op::Read).count() as f64 / rs.len() as f64;
    // Binomial(10000, 0.1): standard error 0.003.
    assert!((reads - 0.1).abs() < 0.012, "read fraction {reads}");
    assert!(rs
        .iter()
        .all(|r| r.offset % 4096 == 0 && r.len <= 199 * 512));
}

#[test]
fn thrash_pairs_every_request_with_a_set_twin() {
    let rs = gen(r#"{"kind":"thrash","cache":"8MiB"}"#);
    assert_eq!(rs.len(), 10_000);
    let cache = 8 * MIB;
    let lines = cache / 4096;
    for pair in rs.chunks(2) {
        let (a, b) = (pair[0], pair[1]);
        assert!(
            a.offset < cache && a.offset % 4096 == 0,
            "o in [0, cache), aligned"
        );
        assert_eq!(b.offset, a.offset + cache, "region B = o + cache_bytes");
        assert_eq!(a.len, b.len);
        assert!((512..=8191 * 512).contains(&a.len));
        // Direct-mapped (sets = lines) and 2-way (sets = lines/2): same set.
        for sets in [lines, lines / 2] {
            for (pa, pb) in [(a.offset / 4096, b.offset / 4096)] {
                assert_eq!(pa % sets, pb % sets);
            }
        }
    }
    let writes = rs.iter().filter(|r| r.op == Op::Write).count() as f64 / 1e4;
    assert!((writes - 0.5).abs() < 0.02, "write fraction {writes}");
}

#[test]
fn thrash_with_three_regions_spaces_each_round_by_the_cache() {
    let rs = gen(r#"{"kind":"thrash","cache":"16MiB","regions":3,"requests":999}"#);
    for round in rs.chunks(3) {
        for k in 1..3 {
            assert_eq!(round[k].offset, round[0].offset + k as u64 * 16 * MIB);
            assert_eq!(round[k].len, round[0].len);
        }
    }
}

#[test]
fn micro_arrivals_are_poisson_with_a_10_ms_mean() {
    let rs = gen(r#"{"kind":"random-write"}"#);
    assert_eq!(rs[0].time_ns, 0, "the trace starts at time 0");
    let gaps: Vec<f64> = rs
        .windows(2)
        .map(|w| (w[1].time_ns - w[0].time_ns) as f64)
        .collect();
    let m = mean(gaps.iter().copied());
    let sd = mean(gaps.iter().map(|g| (g - m) * (g - m))).sqrt();
    // Exponential: mean 10 ms (standard error 0.1 ms), coefficient of variation 1,
    // and P(gap > 2 ms) = e^-0.2 = 0.8187: idle periods above the APU threshold.
    assert!((m - 1e7).abs() < 4e5, "mean gap {m} ns");
    assert!((sd / m - 1.0).abs() < 0.05, "cv {}", sd / m);
    let idle = gaps.iter().filter(|&&g| g > 2e6).count() as f64 / gaps.len() as f64;
    assert!(
        (idle - (-0.2f64).exp()).abs() < 0.016,
        "P(gap > 2 ms) = {idle}"
    );
}

#[test]
fn arrival_process_does_not_move_addresses() {
    let timed = gen(r#"{"kind":"write-biased","seed":9}"#);
    let untimed = gen(r#"{"kind":"write-biased","seed":9,"arrival":"none"}"#);
    assert!(untimed.iter().all(|r| r.time_ns == NO_TIME));
    let strip = |r: &Request| (r.op, r.offset, r.len);
    assert!(timed.iter().map(strip).eq(untimed.iter().map(strip)));
}

#[test]
fn same_seed_same_requests_other_seed_other_requests() {
    for kind in ["constant-write", "random-write", "write-biased", "thrash"] {
        let a = gen(&format!(r#"{{"kind":"{kind}","seed":5}}"#));
        let b = gen(&format!(r#"{{"kind":"{kind}","seed":5}}"#));
        let c = gen(&format!(r#"{{"kind":"{kind}","seed":6}}"#));
        assert_eq!(a, b, "{kind}");
        assert_ne!(a, c, "{kind}");
    }
}

#[test]
fn micro_defaults_are_the_papers() {
    let d = MicroParams::default();
    assert_eq!((d.requests, d.span.0), (10_000, 16 * GIB));
    assert_eq!(d.arrival, Arrival::Poisson { mean_ns: 1e7 });
    let s = GenSpec::default_for("thrash").unwrap();
    assert_eq!(
        s.to_string(),
        "thrash arrival=poisson:10ms requests=10000 seed=1 span=16GiB"
    );
}

#[test]
fn micro_validation_names_the_parameter_and_range() {
    let cases = [
        (r#"{"kind":"thrash","cache":3000}"#, "thrash: `cache`"),
        (r#"{"kind":"thrash","regions":1}"#, "thrash: `regions`"),
        (r#"{"kind":"thrash","cache":"8GiB"}"#, "thrash: `span`"),
        (
            r#"{"kind":"random-write","regions":3}"#,
            "applies only to thrash",
        ),
        (
            r#"{"kind":"write-biased","write_ratio":1.5}"#,
            "write-biased: `write_ratio` = 1.5",
        ),
        (
            r#"{"kind":"constant-write","max_blocks":1}"#,
            "`max_blocks`",
        ),
        (r#"{"kind":"constant-write","requests":0}"#, "`requests`"),
    ];
    for (json, want) in cases {
        let e = spec(json)
            .open()
            .err()
            .unwrap_or_else(|| panic!("{json} accepted"))
            .to_string();
        assert!(e.contains(want), "{json}: {e}");
    }
    let e = serde_json::from_str::<GenSpec>(r#"{"kind":"thrash","cahce":1}"#).unwrap_err();
    assert!(e.to_string().contains("cahce"), "{e}");
}
