//! Shared support of the peer-parity tests: the CloudPhysics trace read once with
//! wafer's oracleGeneral reader, prepared in one-access-per-record mode, and the
//! comparison with libCacheSim's miss counts (produced by libCacheSim's own `cachesim`,
//! commit aa0fc40, with `ignore_obj_size`, on the same trace; each test file lists its
//! rows).
//!
//! A parity module has one test per policy row, e.g.
//! `assert_exact("lru", [95398, ...])`.

use std::sync::OnceLock;

use wafer_cache::after::NullSink;
use wafer_cache::{run_policy, Input, PolicySpec, PreparedTrace, SimConfig};
use wafer_trace::{Granularity, ReadOptions};

/// Cache sizes (objects) of the reference table.
pub const SIZES: [u32; 7] = [500, 1000, 2000, 4000, 8000, 16000, 32000];

/// Requests in the trace.
pub const REQUESTS: u64 = 113_872;

/// Distinct keys in the trace.
pub const KEYS: u32 = 48_974;

/// The prepared trace, or `None` (after one visible line) when it is absent outside CI.
pub fn trace() -> Option<&'static PreparedTrace> {
    let p = wafer_testdata::trace("cloudphysics/cloudPhysicsIO.oracleGeneral.bin")?;
    static T: OnceLock<PreparedTrace> = OnceLock::new();
    Some(T.get_or_init(|| {
        let mut r = wafer_trace::open(&p, &ReadOptions::default())
            .unwrap_or_else(|e| panic!("cannot open {}: {e}", p.display()));
        let t = PreparedTrace::read(Granularity::Record, r.as_mut(), &mut |_| {})
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
        assert_eq!(t.accesses(), REQUESTS, "request count");
        assert_eq!(t.universe(), KEYS, "distinct keys");
        t
    }))
}

/// Misses of `spec` at `capacity` objects, cold start, no warm-up.
pub fn misses(t: &PreparedTrace, spec: &str, capacity: u32) -> u64 {
    let spec = PolicySpec::parse(spec).expect("registered policy");
    let cfg = SimConfig {
        granularity: Granularity::Record,
        capacity_pages: capacity,
        ..SimConfig::default()
    };
    let m = run_policy(&spec, Input::Prepared(t), &cfg, &mut NullSink, &mut |_| {})
        .expect("simulation runs");
    assert_eq!(m.accesses, REQUESTS);
    m.misses
}

/// All seven sizes must match exactly.
pub fn assert_exact(spec: &str, expected: [u64; 7]) {
    let Some(t) = trace() else { return };
    let got: Vec<u64> = SIZES.iter().map(|&c| misses(t, spec, c)).collect();
    assert_eq!(got, expected, "{spec}: misses at {SIZES:?}");
}

/// Every size within `tolerance` (a fraction) of the peer's count.
pub fn assert_within(spec: &str, expected: [u64; 7], tolerance: f64) {
    let Some(t) = trace() else { return };
    for (&c, &want) in SIZES.iter().zip(&expected) {
        let got = misses(t, spec, c);
        let diff = (got as f64 - want as f64).abs() / want as f64;
        assert!(
            diff <= tolerance,
            "{spec} at {c}: {got} misses vs libCacheSim {want} ({:.2}% apart)",
            diff * 100.0
        );
    }
}
