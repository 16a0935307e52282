//! Peer parity with libCacheSim on the CloudPhysics trace (the miss counts
//! libCacheSim's own `cachesim` reports at commit aa0fc40): one access per record, unit
//! size, capacity in objects, cold start. The classic policies must reproduce
//! libCacheSim's miss counts exactly at all seven sizes. Rows of other policies live in
//! their own files and share `common`.

use crate::common::assert_exact;

#[test]
fn lru_matches_libcachesim() {
    assert_exact("lru", [95398, 94823, 94189, 92816, 87740, 75013, 67182]);
}

#[test]
fn fifo_matches_libcachesim() {
    assert_exact("fifo", [96483, 95520, 94588, 92910, 87596, 72732, 71931]);
}

#[test]
fn clock_insert_clear_matches_libcachesim() {
    assert_exact(
        "clock:insert_ref=0",
        [95293, 94727, 94081, 92747, 87731, 74923, 64356],
    );
}

#[test]
fn sieve_matches_libcachesim() {
    assert_exact("sieve", [94379, 93975, 93411, 91547, 84794, 69601, 64323]);
}

#[test]
fn opt_matches_libcachesim() {
    assert_exact("opt", [90175, 87025, 81870, 74311, 64766, 55843, 48974]);
}
