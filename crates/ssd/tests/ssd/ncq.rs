//! The queued device (native command queueing): requests overlap across flash units
//! up to the queue depth, one unit or one channel serialises what it holds, the host
//! link and the cache DRAM are separate and charge the bytes moved, the cache's
//! on-demand flushes run on their units in parallel, and an APU flush takes a queue
//! slot. Checked to the nanosecond on tiny fixed-latency devices (K9 times: 25 us
//! read, 200 us program; t_bus = t_cache = 10 us unless stated).

use crate::common::*;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use wafer_ssd::{
    run, Apu, Arrival, Assoc, CacheConfig, Completion, FtlFlash, Ssd, SsdConfig, VecReader,
};
use wafer_trace::Op::{Read as R, Write as W};
use wafer_trace::Request;

fn device(cache: Option<CacheConfig>, units: u32, depth: u32) -> Ssd<Recording> {
    let cfg = SsdConfig {
        cache,
        queue_depth: depth,
        ..SsdConfig::default()
    };
    Ssd::new(cfg, Recording::new(25 * US, 200 * US, units)).unwrap()
}

fn submit_all<F: wafer_ssd::Flash>(ssd: &mut Ssd<F>, reqs: &[Request]) -> Vec<Completion> {
    reqs.iter()
        .map(|r| ssd.submit(r, r.time_ns).unwrap())
        .collect()
}

fn spans(c: &[Completion]) -> Vec<(u64, u64)> {
    c.iter().map(|c| (c.start_ns, c.done_ns)).collect()
}

#[test]
fn independent_requests_on_different_units_overlap() {
    // Two one-page writes at 0 on units 0 and 1: transfers 0-10 and 10-20 on the link,
    // programs 10-210 and 20-220. The second completes at 220 us, long before the
    // first's completion plus its own service (210 + 210).
    let reqs = [req(0, W, 0), req(0, W, 1)];
    let c = submit_all(&mut device(None, 2, 32), &reqs);
    assert_eq!(spans(&c), vec![(0, 210 * US), (0, 220 * US)]);
    assert!(c[1].done_ns < c[0].done_ns + c[0].response_ns());
    // Reads overlap the same way: 0-25 and 1-26 on the units, then the link in turn.
    let reqs = [req(0, R, 0), req(US, R, 1)];
    let c = submit_all(&mut device(None, 2, 32), &reqs);
    assert_eq!(spans(&c), vec![(0, 35 * US), (US, 45 * US)]);
    // At depth 1 the second waits for the first, whatever the units.
    let c = submit_all(&mut device(None, 2, 1), &[req(0, W, 0), req(0, W, 1)]);
    assert_eq!(spans(&c), vec![(0, 210 * US), (210 * US, 420 * US)]);
}

#[test]
fn requests_on_the_same_unit_serialise() {
    // Pages 0 and 2 share unit 0 of two: the second program waits for the first
    // (210-410), although the second request was admitted at 0.
    let c = submit_all(&mut device(None, 2, 32), &[req(0, W, 0), req(0, W, 2)]);
    assert_eq!(spans(&c), vec![(0, 210 * US), (0, 410 * US)]);
    assert_eq!(c[1].done_ns, c[0].done_ns + 200 * US);
    // A read behind a program on its unit waits for it: 210-235, link 235-245.
    let c = submit_all(&mut device(None, 2, 32), &[req(0, W, 0), req(US, R, 2)]);
    assert_eq!(c[1].done_ns, 245 * US);
}

#[test]
fn a_cache_hit_reads_the_dram_while_another_crosses_the_link() {
    // Read hits on four units: each reads the DRAM for 10 us, then crosses the one
    // link for 10 us. The DRAM and the link are separate resources, so each hit's DRAM
    // access overlaps the previous hit's transfer: DRAM 0-10, 10-20, 20-30, 30-40;
    // link 10-20, 20-30, 30-40, 40-50. (One lane for both took 20, 40, 60, 80 us.)
    let cache = CacheConfig {
        lines: 8,
        assoc: Assoc::Ways(2),
        apu: Apu::Off,
    };
    let mut ssd = device(Some(cache), 4, 32);
    submit_all(&mut ssd, &[pages(0, W, 0, 4)]);
    let c = submit_all(&mut ssd, &(0..4).map(|p| req(MS, R, p)).collect::<Vec<_>>());
    let done: Vec<u64> = c.iter().map(|c| c.done_ns - MS).collect();
    assert_eq!(done, vec![20 * US, 30 * US, 40 * US, 50 * US]);
}

/// A request of `len` bytes from byte `offset`.
fn bytes(t: u64, op: wafer_trace::Op, offset: u64, len: u32) -> Request {
    Request {
        time_ns: t,
        offset,
        len,
        dev: 0,
        op,
    }
}

#[test]
fn partial_pages_move_only_their_bytes_on_link_and_dram() {
    // 4 KiB pages, t_bus = t_cache = 10 us a page, requests 1 ms apart (all resources
    // free). Link and DRAM times scale with the bytes, rounded up: 1000 bytes take
    // 10 us x 1000 / 4096 = 2.442 us; flash still reads and programs whole pages.
    let cache = CacheConfig {
        lines: 8,
        assoc: Assoc::Ways(2),
        apu: Apu::Off,
    };
    let mut ssd = device(Some(cache), 1, 32);
    let c = submit_all(
        &mut ssd,
        &[
            // A whole page: link 10 + DRAM 10.
            bytes(0, W, 0, 4096),
            // 2 KiB inside page 1: link 5 + DRAM 5.
            bytes(MS, W, PAGE + 1024, 2048),
            // 4 KiB over the halves of pages 2 and 3: link 0-5, DRAM 5-10; link 5-10,
            // DRAM 10-15 (one page of bytes over two pages: 15 us, not 2 x 20).
            bytes(2 * MS, W, 2 * PAGE + 2048, 4096),
            // A hit on 1000 bytes of page 0: DRAM 2.442 + link 2.442.
            bytes(3 * MS, R, 100, 1000),
            // A miss on 1000 bytes of page 5: whole-page read 25, link 2.442.
            bytes(4 * MS, R, 5 * PAGE + 100, 1000),
        ],
    );
    let resp: Vec<u64> = c.iter().map(|c| c.response_ns()).collect();
    assert_eq!(
        resp,
        vec![20 * US, 10 * US, 15 * US, 2 * 2_442, 25 * US + 2_442]
    );
    // Without a cache a partial write crosses the link in 2.442 us and programs a
    // whole page (200 us).
    let mut ssd = device(None, 1, 32);
    let c = ssd.submit(&bytes(0, W, 100, 1000), 0).unwrap();
    assert_eq!(c.response_ns(), 2_442 + 200 * US);
    assert_eq!(ssd.flash().log, vec![FlashOp::Wb(0)]);
}

#[test]
fn a_channel_bus_is_shared_by_its_ways() {
    // Four units on two channels, 30 us per page on a channel, no host-link time.
    // Pages 0 and 2 (units 0 and 2) share channel 0: both read 0-25, then move out
    // 25-55 and 55-85. Pages 0 and 1 sit on channels 0 and 1: both out by 55.
    let cfg = SsdConfig {
        cache: None,
        t_bus_ns: 0,
        t_channel_ns: 30 * US,
        ..SsdConfig::default()
    };
    let flash = || {
        let mut f = Recording::new(25 * US, 200 * US, 4);
        f.channels = 2;
        f
    };
    let mut ssd = Ssd::new(cfg, flash()).unwrap();
    let c = submit_all(&mut ssd, &[req(0, R, 0), req(0, R, 2)]);
    assert_eq!(spans(&c), vec![(0, 55 * US), (0, 85 * US)]);
    let mut ssd = Ssd::new(cfg, flash()).unwrap();
    let c = submit_all(&mut ssd, &[req(0, R, 0), req(0, R, 1)]);
    assert_eq!(spans(&c), vec![(0, 55 * US), (0, 55 * US)]);
    // A program moves its page in over the channel first: 0-30, then 30-230.
    let mut ssd = Ssd::new(cfg, flash()).unwrap();
    assert_eq!(ssd.submit(&req(0, W, 3), 0).unwrap().done_ns, 230 * US);
    // Units must spread evenly over the channels.
    let mut odd = flash();
    odd.channels = 3;
    assert!(Ssd::new(cfg, odd).is_err());
}

#[test]
fn on_demand_flushes_of_one_request_run_in_parallel() {
    // Four direct-mapped lines. W 0-3 fills them: transfers 0-40, each page into the
    // DRAM after its transfer, 10-20 ... 40-50 (50 us). W 4-7 at 1 ms evicts dirty
    // 0-3, one per unit: transfers 1000-1040, victim programs from 1010, 1020, 1030,
    // 1040 to 1210-1240, each page enters its line after its victim's program:
    // 1220, 1230, 1240, 1250 -> 250 us, where one unit serialises the programs (820 us)
    // and the FCFS model that held the link for each flush took 4 x 220 = 880 us.
    let cache = CacheConfig {
        lines: 4,
        assoc: Assoc::Ways(1),
        apu: Apu::Off,
    };
    let trace = [pages(0, W, 0, 4), pages(MS, W, 4, 4)];
    for (units, want) in [(4, 250 * US), (1, 820 * US)] {
        let mut ssd = device(Some(cache), units, 1);
        let c = submit_all(&mut ssd, &trace);
        assert_eq!(c[0].response_ns(), 50 * US);
        assert_eq!(c[1].response_ns(), want, "{units} units");
        assert_eq!(ssd.flash().log, (0..4).map(FlashOp::Wb).collect::<Vec<_>>());
    }
}

/// Random writes of 1-16 pages over 64 Ki pages, gaps up to 4 ms, through a 64-line
/// cache that is soon full of dirty lines (most write misses flush on demand).
fn random_writes(seed: u64) -> Vec<Request> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut t = 0;
    (0..2_000)
        .map(|_| {
            t += rng.gen_range(0..4 * MS);
            pages(t, W, rng.gen_range(0..1 << 16), rng.gen_range(1..=16))
        })
        .collect()
}

fn mean_response(units: u32, depth: u32, reqs: &[Request]) -> f64 {
    let cache = CacheConfig {
        lines: 64,
        assoc: Assoc::Ways(2),
        apu: Apu::Lru,
    };
    let mut ssd = device(Some(cache), units, depth);
    run(
        &mut ssd,
        &mut VecReader::new(reqs.to_vec()),
        Arrival::Trace,
        None,
        |_| {},
        |_, _| {},
    )
    .unwrap();
    let r = ssd.finish();
    assert!(r.cache.unwrap().stats.on_demand_flushes > 10_000);
    r.response.all.mean_ns
}

#[test]
fn several_units_make_cached_writes_faster() {
    let reqs = random_writes(3);
    for depth in [1, 32] {
        let (one, eight) = (
            mean_response(1, depth, &reqs),
            mean_response(8, depth, &reqs),
        );
        assert!(
            eight < one,
            "depth {depth}: 8 units {eight} ns, 1 unit {one} ns"
        );
    }
    // Queueing lets requests overlap too: the same eight units do better at depth 32.
    assert!(mean_response(8, 32, &reqs) < mean_response(8, 1, &reqs));
}

#[test]
fn an_apu_flush_takes_a_queue_slot() {
    // Paper 004's vector 2 (2 sets x 2 ways, zero times but a 0.2 ms program): the
    // first APU flush runs 3.0-3.2 ms. A read hit at 3.1 ms waits for it at depth 1
    // (`vectors.rs`) but is admitted at once at depth 2 and served from the cache.
    let cfg = |depth| SsdConfig {
        cache: Some(CacheConfig {
            lines: 4,
            assoc: Assoc::Ways(2),
            apu: Apu::Lru,
        }),
        t_cache_ns: 0,
        t_bus_ns: 0,
        queue_depth: depth,
        ..SsdConfig::default()
    };
    let trace = [
        req(0, W, 0),
        req(MS / 2, W, 2),
        req(MS, W, 1),
        req(3_100 * US, R, 0),
    ];
    for (depth, want) in [(1, (3_200 * US, 3_200 * US)), (2, (3_100 * US, 3_100 * US))] {
        let mut ssd = Ssd::new(cfg(depth), Recording::new(0, 200 * US, 1)).unwrap();
        let c = submit_all(&mut ssd, &trace);
        assert_eq!((c[3].start_ns, c[3].done_ns), want, "depth {depth}");
        assert_eq!(ssd.flash().log, vec![FlashOp::Wb(0)]);
        let t = ssd.finish().timing;
        // The run ends with the flush, which outlasts the read at depth 2.
        assert_eq!(t.last_completion_ns, 3_200 * US);
        assert_eq!(t.apu_busy_ns, 200 * US);
        assert_eq!(t.request_busy_ns + t.apu_busy_ns + t.idle_ns, t.span_ns);
    }
}

#[test]
fn gc_stays_on_the_unit_that_runs_it() {
    // `vectors.rs`'s GC case on two units: the 17th rewrite of page 0 (unit 0) pays
    // the 1.5 ms erase; a read of page 1 (unit 1) admitted with it is not delayed.
    let mut dev = wafer_ftl::Device::from_profile("samsung-k9").unwrap();
    dev.geometry = wafer_ftl::Geometry {
        page_size: 4096,
        pages_per_block: 4,
        logical_pages: 8,
        physical_blocks: 6,
        channels: 1,
        ways: 2,
    };
    let mut ssd = Ssd::new(SsdConfig::default(), FtlFlash::new(&dev).unwrap()).unwrap();
    for i in 0..16u64 {
        ssd.submit(&req(i * 10 * MS, W, 0), i * 10 * MS).unwrap();
    }
    let t = 160 * MS;
    let w = ssd.submit(&req(t, W, 0), t).unwrap();
    let r = ssd.submit(&req(t, R, 1), t).unwrap();
    assert_eq!(w.response_ns(), 1_710 * US);
    // The read: 25 us on unit 1 from t, then the link after the write's transfer.
    assert_eq!(r.response_ns(), 35 * US);
    assert_eq!(ssd.finish().flash.ftl.unwrap().erases, 1);
}

#[test]
fn arrivals_beyond_the_queue_depth_wait_on_the_host() {
    // Eight one-page writes at 0 on eight units, depth 4: four are admitted at 0,
    // the fifth when the first completes (210 us), and so on; at most four overlap.
    let reqs: Vec<Request> = (0..8).map(|p| req(0, W, p)).collect();
    let mut ssd = device(None, 8, 4);
    let c = submit_all(&mut ssd, &reqs);
    let starts: Vec<u64> = c.iter().map(|c| c.start_ns / US).collect();
    assert_eq!(starts, vec![0, 0, 0, 0, 210, 220, 230, 240]);
    for x in &c {
        let inside = c
            .iter()
            .filter(|y| y.start_ns <= x.start_ns && x.start_ns < y.done_ns)
            .count();
        assert!(inside <= 4);
    }
    let r = ssd.finish();
    assert_eq!(r.timing.queue_full_arrivals, 4);
    assert_eq!(r.timing.max_in_system, 8);
}

#[test]
fn a_closed_loop_refills_as_requests_complete_out_of_order() {
    // Closed loop of two on two units at depth 2: W0 (unit 0) 0-210, W1 (unit 1)
    // link 10-20, 20-220; W2 arrives when W0 completes (210 us), W3 when W1 does.
    let reqs: Vec<Request> = (0..6).map(|i| req(wafer_trace::NO_TIME, W, i)).collect();
    let mut ssd = device(None, 2, 2);
    let mut got = vec![];
    run(
        &mut ssd,
        &mut VecReader::new(reqs),
        Arrival::Closed { depth: 2 },
        None,
        |_| {},
        |_, c| got.push((c.arrival_ns / US, c.done_ns / US)),
    )
    .unwrap();
    assert_eq!(
        got,
        vec![
            (0, 210),
            (0, 220),
            (210, 420),
            (220, 430),
            (420, 630),
            (430, 640)
        ]
    );
}

#[test]
fn transfers_leave_in_the_order_they_finish() {
    // No cache, two units. W0 (unit 0): link 0-10, program 10-210. R2 (unit 0) at
    // 1 us waits for it: read 210-235, link 235-245. R1 (unit 1) at 2 us reads 2-27
    // and crosses the link at once, 27-37: the request issued last finishes first.
    // (With the link in issue order R1's transfer waited for R2's: 245-255.)
    let reqs = [req(0, W, 0), req(US, R, 2), req(2 * US, R, 1)];
    let c = submit_all(&mut device(None, 2, 32), &reqs);
    assert_eq!(c[1].done_ns, 245 * US);
    assert_eq!(c[2].done_ns, 37 * US);
    assert!(c[2].done_ns < c[1].done_ns);
}

#[test]
fn a_read_is_not_held_behind_programs_on_another_unit() {
    // Four units on one channel, 30 us per page on it, no link time. W0 and W4
    // (unit 0): channel 0-30, program 30-230; the second moves in when the unit is
    // free, channel 230-260, program 260-460. R1 (unit 1) at 1 us reads 1-26 and
    // moves out in the channel's first gap, 30-60. (A channel in issue order held it
    // until 260: out at 290.)
    let cfg = SsdConfig {
        cache: None,
        t_bus_ns: 0,
        t_channel_ns: 30 * US,
        ..SsdConfig::default()
    };
    let mut ssd = Ssd::new(cfg, Recording::new(25 * US, 200 * US, 4)).unwrap();
    let c = submit_all(&mut ssd, &[req(0, W, 0), req(0, W, 4), req(US, R, 1)]);
    assert_eq!(spans(&c), vec![(0, 230 * US), (0, 460 * US), (US, 60 * US)]);
}

#[test]
fn a_read_hit_is_not_held_behind_an_on_demand_program() {
    // Two direct-mapped lines on two units. W0, W1 fill them (done by 30 us). At 1 ms
    // W2 needs line 0: link 1000-1010, victim 0 programs 1010-1210 on unit 0, then the
    // new data enters the DRAM 1210-1220. R1 at 1001 us hits line 1: DRAM 1001-1011,
    // link 1011-1021, 20 us, although W2's DRAM access was issued before it. (A DRAM
    // in issue order held the hit until 1220: 1220-1230, link 1230-1240.)
    let cache = CacheConfig {
        lines: 2,
        assoc: Assoc::Ways(1),
        apu: Apu::Off,
    };
    let mut ssd = device(Some(cache), 2, 32);
    let reqs = [
        req(0, W, 0),
        req(0, W, 1),
        req(MS, W, 2),
        req(MS + US, R, 1),
    ];
    let c = submit_all(&mut ssd, &reqs);
    assert_eq!(c[2].done_ns, MS + 220 * US);
    assert_eq!(c[3].done_ns, MS + 21 * US);
    assert_eq!(c[3].response_ns(), 20 * US);
    assert_eq!(ssd.flash().log, vec![FlashOp::Wb(0)]);
}
