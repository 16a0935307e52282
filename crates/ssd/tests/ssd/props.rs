//! Property tests on long random runs: Little's law (time-integrated number in the
//! device = throughput x mean response), utilization, admission at most queue depth
//! at a time in arrival order (FCFS service at depth 1), cache invariants.

use crate::common::*;
use proptest::prelude::*;
use wafer_ssd::{run, Apu, Arrival, Assoc, CacheConfig, Ssd, SsdConfig, VecReader};
use wafer_trace::{Op, Request, NO_TIME};

fn arb_reqs(n: usize) -> impl Strategy<Value = Vec<(u64, u8, u64, u64)>> {
    prop::collection::vec((0u64..3 * MS, 0u8..10, 0u64..64, 1u64..9), 1..n)
}

fn build(raw: &[(u64, u8, u64, u64)], timed: bool) -> Vec<Request> {
    let mut t = 0;
    raw.iter()
        .map(|&(gap, op, lpn, n)| {
            t += gap;
            let op = match op {
                0..=5 => Op::Write,
                6..=8 => Op::Read,
                _ => Op::Trim,
            };
            let mut r = pages(if timed { t } else { NO_TIME }, op, lpn, n);
            if op == Op::Trim {
                r.len = 4096;
            }
            r
        })
        .collect()
}

fn arb_cfg() -> impl Strategy<Value = SsdConfig> {
    (
        prop_oneof![Just(None), (0u32..3, 0u32..4, 0u8..3).prop_map(Some)],
        0u64..30,
        0u64..30,
        1u64..4,
        prop_oneof![Just(0u64), 1u64..40],
        prop_oneof![Just(1u32), 2u32..9],
    )
        .prop_map(|(cache, tc, tb, thr, tch, depth)| SsdConfig {
            cache: cache.map(|(l, a, apu)| CacheConfig {
                lines: 4 << l,
                assoc: match a {
                    0 => Assoc::Ways(1),
                    1 => Assoc::Ways(2),
                    2 => Assoc::Ways(4),
                    _ => Assoc::Full,
                },
                apu: [Apu::Off, Apu::Lru, Apu::Lfu][apu as usize],
            }),
            idle_threshold_ns: thr * MS / 2,
            t_cache_ns: tc * US,
            t_bus_ns: tb * US,
            t_channel_ns: tch * US,
            queue_depth: depth,
            wrap: false,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn littles_law_utilization_and_admission(raw in arb_reqs(3000), cfg in arb_cfg(), units in 1u32..5, per_channel in any::<bool>(), closed in 0u32..4) {
        let arrival = if closed == 0 { Arrival::Trace } else { Arrival::Closed { depth: closed } };
        let reqs = build(&raw, closed == 0);
        let mut flash = Recording::new(25 * US, 200 * US, units);
        flash.channels = if per_channel { units } else { 1 };
        let mut ssd = Ssd::new(cfg, flash).unwrap();
        let mut comps = vec![];
        run(&mut ssd, &mut VecReader::new(reqs.clone()), arrival, None, |_| {}, |_, c| comps.push(*c)).unwrap();
        if let Some(c) = ssd.cache() {
            prop_assert_eq!(c.check_invariants(), Ok(()));
        }
        let r = ssd.finish();
        let t = &r.timing;
        // Admission in arrival order, at most queue depth requests in the device; at
        // depth 1 FCFS service: no overlap.
        for w in comps.windows(2) {
            prop_assert!(w[1].arrival_ns >= w[0].arrival_ns);
            prop_assert!(w[1].start_ns >= w[0].start_ns);
            if cfg.queue_depth == 1 {
                prop_assert!(w[1].start_ns >= w[0].done_ns);
            }
        }
        for (i, c) in comps.iter().enumerate() {
            prop_assert!(c.arrival_ns <= c.start_ns && c.start_ns <= c.done_ns);
            let inside = comps[..i].iter().filter(|p| p.done_ns > c.start_ns).count();
            prop_assert!(inside < cfg.queue_depth as usize);
        }
        // Little's law from the independently integrated N(t).
        let sum: u128 = comps.iter().map(|c| u128::from(c.response_ns())).sum();
        if t.span_ns > 0 {
            let little = t.throughput_rps * r.response.all.mean_ns * 1e-9;
            prop_assert!((t.mean_in_system - little).abs() <= 1e-9 * little.max(1.0),
                "L {} vs X R {}", t.mean_in_system, little);
            prop_assert!((t.mean_in_system - sum as f64 / t.span_ns as f64).abs() < 1e-9 * t.mean_in_system.max(1.0));
        }
        // Busy + idle = span, utilization in [0, 1], the busy time is the union of
        // the service intervals (their sum when they cannot overlap).
        prop_assert_eq!(t.request_busy_ns + t.apu_busy_ns + t.idle_ns, t.span_ns);
        prop_assert!((0.0..=1.0).contains(&t.utilization));
        let service: u64 = comps.iter().map(|c| c.done_ns - c.start_ns).sum();
        if cfg.queue_depth == 1 {
            prop_assert_eq!(service, t.request_busy_ns);
        } else {
            prop_assert!(t.request_busy_ns <= service);
        }
        prop_assert_eq!(t.apu_busy_ns, r.flash.apu_programs * (200 * US + cfg.t_channel_ns));
        if let Arrival::Closed { depth } = arrival {
            prop_assert!(t.max_in_system <= u64::from(depth));
            prop_assert_eq!(t.apu_busy_ns, 0, "a closed loop never idles");
        }
        // Without a cache, one unit and free transfers, the device is busy exactly
        // while its unit is, at any depth: an independent count of the busy time.
        if cfg.cache.is_none() && units == 1 && cfg.t_bus_ns == 0 && cfg.t_channel_ns == 0 {
            let (rd, wr) = reqs.iter().fold((0, 0), |(rd, wr), q| match q.op {
                Op::Read => (rd + q.len as u64 / PAGE, wr),
                Op::Write => (rd, wr + q.len as u64 / PAGE),
                Op::Trim => (rd, wr),
            });
            prop_assert_eq!(t.request_busy_ns, rd * 25 * US + wr * 200 * US);
        }
    }
}
