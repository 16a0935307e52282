//! Acceptance of the exact LRU curve: on three real traces (two write-heavy), the hit,
//! read, write-back, eviction and dirty-at-end counts of `curve::lru::exact` equal
//! those of a separate LRU run of the engine at every cache size from 1 page to the
//! footprint (1,582, 7,135 and 20,470 pages: small enough to check every size, so no
//! size is skipped). Block-utilization statistics are not part of a curve.

use std::path::{Path, PathBuf};

use wafer_cache::after::NullSink;
use wafer_cache::curve::lru;
use wafer_cache::{run_policy, Input, PolicySpec, PreparedTrace, SimConfig};
use wafer_trace::ReadOptions;

fn bundled(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../traces")
        .join(name)
}

fn prepare(path: &Path, cfg: &SimConfig) -> PreparedTrace {
    let mut r = wafer_trace::open(path, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    PreparedTrace::read(cfg.granularity, r.as_mut(), &mut |_| {}).unwrap()
}

fn check_every_size(path: PathBuf, cfg: SimConfig) {
    let t = prepare(&path, &cfg);
    let curve = lru::exact(&t, &cfg, &mut |_| {}).unwrap();
    assert_eq!(curve.footprint(), u64::from(t.universe()));
    let spec = PolicySpec::parse("lru").unwrap();
    let mut writebacks = 0;
    for c in 1..=t.universe() {
        let cfg = SimConfig {
            capacity_pages: c,
            ..cfg
        };
        let mut m =
            run_policy(&spec, Input::Prepared(&t), &cfg, &mut NullSink, &mut |_| {}).unwrap();
        m.block_utilization = Default::default();
        assert_eq!(curve.metrics(c), m, "{} at {c} pages", path.display());
        writebacks += m.page_writes;
    }
    // The traces exercise the write-back curve, not only the hits.
    assert!(writebacks > 0, "{}", path.display());
}

#[test]
fn sqlite_wal_every_size() {
    check_every_size(bundled("sqlite-wal.wtr"), SimConfig::default());
}

/// With write-miss fetch, flush-at-end and a warm-up.
#[test]
fn fileserver_every_size_with_options() {
    let cfg = SimConfig {
        warmup: 2_000,
        write_miss_fetch: true,
        flush_at_end: true,
        ..SimConfig::default()
    };
    check_every_size(bundled("fileserver.wtr"), cfg);
}

#[test]
fn tpcc_every_size() {
    let Some(p) = wafer_testdata::trace("disksim/tpcc-small.trace") else {
        return;
    };
    let cfg = SimConfig {
        flush_at_end: true,
        ..SimConfig::default()
    };
    check_every_size(p, cfg);
}
