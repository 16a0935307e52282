//! Hand-worked timing vectors after paper 004's Algorithm 1 and APU (Huang et al.,
//! "Efficient Cache Design for Solid-State Drives", ACM Computing Frontiers 2010,
//! Sec. 3; 2 sets x 2 ways, set = LPN mod 2) and further cases on tiny devices,
//! checked to the nanosecond. They were worked out for the FCFS single server, which
//! the device is at queue depth 1; `ncq.rs` has the queued cases.

use crate::common::*;
use wafer_ssd::{
    Apu, Assoc, CacheConfig, Completion, FixedFlash, FtlFlash, LineState, Ssd, SsdConfig,
};
use wafer_trace::Op::{Read as R, Write as W};
use wafer_trace::Request;

/// The hand-worked vectors' setting: 4 lines, 2 ways, zero service time except a 0.2 ms
/// program, one request at a time.
fn vec_cfg(apu: Apu) -> SsdConfig {
    SsdConfig {
        cache: Some(CacheConfig {
            lines: 4,
            assoc: Assoc::Ways(2),
            apu,
        }),
        idle_threshold_ns: 2 * MS,
        t_cache_ns: 0,
        t_bus_ns: 0,
        t_channel_ns: 0,
        queue_depth: 1,
        wrap: false,
    }
}

fn run_all<F: wafer_ssd::Flash>(ssd: &mut Ssd<F>, reqs: &[Request]) -> Vec<Completion> {
    reqs.iter()
        .map(|r| ssd.submit(r, r.time_ns).unwrap())
        .collect()
}

fn line(ssd: &Ssd<Recording>, i: usize) -> (u64, LineState, u64, u32) {
    let l = ssd.cache().unwrap().lines()[i];
    (l.tag, l.state, l.time, l.count)
}

#[test]
fn v1_write_allocation_read_no_allocate_and_on_demand_update() {
    let mut ssd = Ssd::new(vec_cfg(Apu::Off), Recording::new(0, 200 * US, 1)).unwrap();
    let reqs = [
        req(0, W, 0),
        req(MS, W, 2),
        req(2 * MS, R, 0),
        req(3 * MS, W, 4),
        req(4 * MS, R, 6),
    ];
    let c = run_all(&mut ssd, &reqs);
    // W4: set 0 all Dirty, LRU = tag 2 (time 1 ms; tag 0 was read at 2 ms) -> WB2;
    // R6 misses -> RD6 and allocates nothing.
    assert_eq!(ssd.flash().log, vec![FlashOp::Wb(2), FlashOp::Rd(6)]);
    assert_eq!(line(&ssd, 0), (0, LineState::Dirty, 2 * MS, 2));
    assert_eq!(line(&ssd, 1), (4, LineState::Dirty, 3 * MS, 1));
    assert_eq!(line(&ssd, 2).1, LineState::Stale);
    assert_eq!(line(&ssd, 3).1, LineState::Stale);
    // Only the on-demand update takes time: 0.2 ms for W4.
    let resp: Vec<u64> = c.iter().map(|c| c.response_ns()).collect();
    assert_eq!(resp, vec![0, 0, 0, 200 * US, 0]);
    let r = ssd.finish();
    let cs = r.cache.unwrap();
    assert_eq!(
        (
            cs.stats.read_hits,
            cs.stats.read_misses,
            cs.stats.on_demand_flushes
        ),
        (1, 1, 1)
    );
    assert_eq!(r.flash.on_demand_programs, 1);
}

/// Hand-worked vector 2's trace.
fn v2_trace() -> Vec<Request> {
    vec![
        req(0, W, 0),
        req(MS / 2, W, 2),
        req(MS, W, 1),
        req(10 * MS, R, 0),
    ]
}

#[test]
fn v2_apu_lru_fires_every_threshold_of_idleness() {
    let mut ssd = Ssd::new(vec_cfg(Apu::Lru), Recording::new(0, 200 * US, 1)).unwrap();
    let c = run_all(&mut ssd, &v2_trace());
    // Idle from t1; flushes at 3 (ends 3.2), 5.2 (ends 5.4), 7.4 (ends 7.6): 0, 2, 1.
    assert_eq!(
        ssd.flash().log,
        vec![FlashOp::Wb(0), FlashOp::Wb(2), FlashOp::Wb(1)]
    );
    assert_eq!(c[3].response_ns(), 0, "R0 hits the Clean line");
    for i in [0, 1, 2] {
        assert_eq!(line(&ssd, i).1, LineState::Clean);
    }
    let r = ssd.finish();
    let cs = r.cache.as_ref().unwrap();
    assert_eq!(
        (cs.stats.apu_flushes, cs.stats.read_hits, cs.dirty_at_end),
        (3, 1, 0)
    );
    let t = &r.timing;
    assert_eq!(t.apu_busy_ns, 600 * US);
    assert_eq!(t.span_ns, 10 * MS);
    // Idle intervals: [0,0.5], [0.5,1], [1,3], [3.2,5.2], [5.4,7.4], [7.6,10].
    assert_eq!(t.idle_periods, 6);
    assert_eq!(t.idle_ns, 10 * MS - 600 * US);
    assert_eq!(t.idle_periods_over_threshold, 4);
    assert_eq!(t.longest_idle_ns, 2_400 * US);
}

#[test]
fn v2_request_arriving_during_a_flush_waits_for_it() {
    // R0 at 3.1 ms: the first flush runs 3.0-3.2 ms, so R0 starts at 3.2 ms.
    let mut t = v2_trace();
    t[3].time_ns = 3_100 * US;
    let mut ssd = Ssd::new(vec_cfg(Apu::Lru), Recording::new(0, 200 * US, 1)).unwrap();
    let c = run_all(&mut ssd, &t);
    assert_eq!(ssd.flash().log, vec![FlashOp::Wb(0)]);
    assert_eq!(
        (c[3].start_ns, c[3].done_ns, c[3].response_ns()),
        (3_200 * US, 3_200 * US, 100 * US)
    );
}

#[test]
fn v2_arrival_exactly_at_the_threshold_cancels_the_flush() {
    let mut t = v2_trace();
    t[3].time_ns = 3 * MS;
    let mut ssd = Ssd::new(vec_cfg(Apu::Lru), Recording::new(0, 200 * US, 1)).unwrap();
    let c = run_all(&mut ssd, &t);
    assert!(ssd.flash().log.is_empty());
    assert_eq!(c[3].response_ns(), 0);
    // One nanosecond later the flush has started and the read waits 0.2 ms - 1 ns.
    t[3].time_ns = 3 * MS + 1;
    let mut ssd = Ssd::new(vec_cfg(Apu::Lru), Recording::new(0, 200 * US, 1)).unwrap();
    let c = run_all(&mut ssd, &t);
    assert_eq!(c[3].response_ns(), 200 * US - 1);
}

#[test]
fn v3_apu_lfu_orders_by_count_then_recency() {
    let mut t = v2_trace();
    t.insert(2, req(700 * US, W, 0)); // count(0) = 2
    let mut ssd = Ssd::new(vec_cfg(Apu::Lfu), Recording::new(0, 200 * US, 1)).unwrap();
    run_all(&mut ssd, &t);
    assert_eq!(
        ssd.flash().log,
        vec![FlashOp::Wb(2), FlashOp::Wb(1), FlashOp::Wb(0)]
    );
}

#[test]
fn v4_stale_before_clean_without_write_back() {
    let mut t = v2_trace();
    t.push(req(11 * MS, W, 3));
    let mut ssd = Ssd::new(vec_cfg(Apu::Lru), Recording::new(0, 200 * US, 1)).unwrap();
    let c = run_all(&mut ssd, &t);
    // Set 1 holds 1 (Clean, way 0) and a Stale way 1: 3 takes way 1.
    assert_eq!(line(&ssd, 2), (1, LineState::Clean, MS, 1));
    assert_eq!(line(&ssd, 3), (3, LineState::Dirty, 11 * MS, 1));
    assert_eq!(ssd.flash().log.len(), 3, "only the three APU flushes");
    assert_eq!(c[4].response_ns(), 0);
}

/// wafer's default times (t_cache = t_bus = 10 us) on a fixed K9 flash, one request
/// at a time.
fn timed(cache: Option<CacheConfig>, units: u32) -> Ssd<Recording> {
    let cfg = SsdConfig {
        cache,
        queue_depth: 1,
        ..SsdConfig::default()
    };
    Ssd::new(cfg, Recording::new(25 * US, 200 * US, units)).unwrap()
}

#[test]
fn fcfs_queueing_without_cache() {
    let mut ssd = timed(None, 1);
    // W 2 pages at 0: link 10, program 10-210; link 20, program 210-410 -> done 410.
    // R 1 page at 100 us: starts 410, read 410-435, transfer 435-445 -> 345 us.
    // R 2 pages at 1 ms: reads 1000-1025, 1025-1050; transfers 1025-1035, 1050-1060.
    let c = run_all(
        &mut ssd,
        &[pages(0, W, 0, 2), req(100 * US, R, 5), pages(MS, R, 7, 2)],
    );
    let got: Vec<(u64, u64)> = c.iter().map(|c| (c.start_ns, c.done_ns)).collect();
    assert_eq!(
        got,
        vec![(0, 410 * US), (410 * US, 445 * US), (MS, 1_060 * US)]
    );
    assert_eq!(c[1].response_ns(), 345 * US);
    let r = ssd.finish();
    assert_eq!(r.timing.request_busy_ns, 410 * US + 35 * US + 60 * US);
    assert_eq!(
        r.timing.idle_ns,
        r.timing.span_ns - r.timing.request_busy_ns
    );
    assert_eq!(r.timing.max_in_system, 2);
    assert_eq!(r.response.read.max_ns, 345 * US);
}

#[test]
fn parallel_units_overlap_programs_and_reads() {
    // Four pages on four units: transfers 0-10, 10-20, 20-30, 30-40; programs end at
    // 210, 220, 230, 240 -> 240 us instead of 10 + 4 x 200 = 810 us on one unit.
    let mut one = timed(None, 1);
    let mut four = timed(None, 4);
    assert_eq!(one.submit(&pages(0, W, 0, 4), 0).unwrap().done_ns, 810 * US);
    assert_eq!(
        four.submit(&pages(0, W, 0, 4), 0).unwrap().done_ns,
        240 * US
    );
    // Reads: all issued at the start (25 us), then transferred in order: 35, 45, 55, 65.
    assert_eq!(
        four.submit(&pages(MS, R, 0, 4), MS).unwrap().response_ns(),
        65 * US
    );
    // On one unit the reads serialise: 25, 50, 75, 100, transfers end 35, 60, 85, 110.
    assert_eq!(
        one.submit(&pages(MS, R, 0, 4), MS).unwrap().response_ns(),
        110 * US
    );
}

#[test]
fn on_demand_update_delays_the_write_that_needs_the_line() {
    // One direct-mapped line. W0: transfer 10 + cache 10 = 20 us. W1 at 1 ms: transfer
    // 10, program of 0 200, cache 10 = 220 us. R0 at 2 ms misses (0 was evicted):
    // read 25 + transfer 10. R1 at 3 ms hits: 20 us.
    let cache = CacheConfig {
        lines: 1,
        assoc: Assoc::Ways(1),
        apu: Apu::Off,
    };
    let mut ssd = timed(Some(cache), 1);
    let c = run_all(
        &mut ssd,
        &[
            req(0, W, 0),
            req(MS, W, 1),
            req(2 * MS, R, 0),
            req(3 * MS, R, 1),
        ],
    );
    let resp: Vec<u64> = c.iter().map(|c| c.response_ns()).collect();
    assert_eq!(resp, vec![20 * US, 220 * US, 35 * US, 20 * US]);
    assert_eq!(ssd.flash().log, vec![FlashOp::Wb(0), FlashOp::Rd(0)]);
}

#[test]
fn idle_detection_with_service_times() {
    // W0 ends at 20 us; APU fires at 2.020 ms and runs to 2.220 ms; nothing is dirty
    // after it, so the device stays idle until R0 at 5 ms, which hits (20 us).
    let cache = CacheConfig {
        lines: 4,
        assoc: Assoc::Ways(2),
        apu: Apu::Lru,
    };
    let mut ssd = timed(Some(cache), 1);
    let c = run_all(&mut ssd, &[req(0, W, 0), req(5 * MS, R, 0)]);
    assert_eq!(c[1].response_ns(), 20 * US);
    let r = ssd.finish();
    assert_eq!(r.timing.apu_busy_ns, 200 * US);
    assert_eq!(r.timing.idle_periods, 2);
    assert_eq!(r.timing.idle_ns, 2 * MS + (5 * MS - 2_220 * US));
    assert_eq!(r.cache.unwrap().stats.apu_flushes, 1);
}

#[test]
fn gc_time_is_charged_to_the_write_that_triggers_it() {
    // Page-level FTL, 8 logical pages, 6 blocks of 4 pages, K9 latencies. Rewriting
    // page 0: writes 1-16 fill blocks 0-3 (each block closes holding only stale
    // copies but one). Write 17 finds 2 free blocks (= the GC reserve), so GC erases
    // a block with no valid page (greedy): 1.5 ms erase + 0.2 ms program + 10 us.
    let mut dev = wafer_ftl::Device::from_profile("samsung-k9").unwrap();
    dev.geometry = wafer_ftl::Geometry {
        page_size: 4096,
        pages_per_block: 4,
        logical_pages: 8,
        physical_blocks: 6,
        channels: 1,
        ways: 1,
    };
    let cfg = SsdConfig {
        cache: None,
        ..SsdConfig::default()
    };
    let mut ssd = Ssd::new(cfg, FtlFlash::new(&dev).unwrap()).unwrap();
    let resp: Vec<u64> = (0..20u64)
        .map(|i| {
            ssd.submit(&req(i * 10 * MS, W, 0), i * 10 * MS)
                .unwrap()
                .response_ns()
        })
        .collect();
    for (i, &r) in resp.iter().enumerate() {
        let want = if i == 16 { 1_710 * US } else { 210 * US };
        assert_eq!(r, want, "write {}", i + 1);
    }
    let r = ssd.finish();
    let f = r.flash.ftl.unwrap();
    assert_eq!(f.erases, 1);
    assert_eq!(r.flash.flash_ns, f.busy_ns);
}

#[test]
fn unwritten_reads_cost_a_flash_read() {
    let mut ssd = Ssd::new(
        SsdConfig {
            cache: None,
            ..SsdConfig::default()
        },
        FtlFlash::new(&tiny_k9()).unwrap(),
    )
    .unwrap();
    assert_eq!(ssd.submit(&req(0, R, 3), 0).unwrap().response_ns(), 35 * US);
}

fn tiny_k9() -> wafer_ftl::Device {
    let mut dev = wafer_ftl::Device::from_profile("samsung-k9").unwrap();
    dev.geometry = wafer_ftl::Geometry::with_op(64 << 20, 0.15, 4096, 64).unwrap();
    dev
}

#[test]
fn out_of_range_is_an_error_unless_wrapped() {
    let flash = FixedFlash::k9(16);
    let mut ssd = Ssd::new(SsdConfig::default(), flash).unwrap();
    let e = ssd.submit(&req(0, W, 16), 0).unwrap_err().to_string();
    assert!(e.contains("beyond the device's 16 logical pages"), "{e}");
    let mut ssd = Ssd::new(
        SsdConfig {
            wrap: true,
            ..SsdConfig::default()
        },
        flash,
    )
    .unwrap();
    ssd.submit(&pages(0, W, 15, 2), 0).unwrap();
    assert_eq!(ssd.finish().wrapped_requests, 1);
}

#[test]
fn closed_loop_keeps_depth_requests_outstanding() {
    // Depth 2, no cache, 1-page writes of 210 us: arrivals 0, 0, 210, 420, ...;
    // every request but the first waits one service time: responses 210, 420, 420...
    let reqs: Vec<Request> = (0..6).map(|i| req(wafer_trace::NO_TIME, W, i)).collect();
    let mut ssd = timed(None, 1);
    let mut resp = vec![];
    let mut rd = wafer_ssd::VecReader::new(reqs);
    wafer_ssd::run(
        &mut ssd,
        &mut rd,
        wafer_ssd::Arrival::Closed { depth: 2 },
        None,
        |_| {},
        |_, c| resp.push(c.response_ns()),
    )
    .unwrap();
    assert_eq!(
        resp,
        vec![210 * US, 420 * US, 420 * US, 420 * US, 420 * US, 420 * US]
    );
    let r = ssd.finish();
    // N(t) = 2 from 0 to 1050 us, then 1 until 1260 us: 2310 / 1260 on average,
    // which Little's law also gives (6 requests in 1260 us x mean 385 us).
    assert!((r.timing.mean_in_system - 2310.0 / 1260.0).abs() < 1e-12);
    let little = r.timing.throughput_rps * r.response.all.mean_ns * 1e-9;
    assert!((r.timing.mean_in_system - little).abs() < 1e-9);
}
