//! Cells sharing one streamed pass (`simulate_together`) get exactly what each gets
//! alone: the same metrics and the same after-cache operations, for every registered
//! online policy (block-aware ones included) over a trace of multi-page requests
//! with writes and trims; an offline policy among them fails alone; cells that
//! disagree on the block size are refused.

use std::num::NonZeroU32;

use wafer_cache::after::VecSink;
use wafer_cache::{
    run_policy, simulate_together, Input, PolicySpec, SimConfig, Together, POLICIES,
};
use wafer_trace::{Granularity, Op, Request, RequestReader, TraceMeta};

/// Requests in memory, served in batches of 1000.
struct Mem {
    reqs: Vec<Request>,
    pos: usize,
    meta: TraceMeta,
}

impl RequestReader for Mem {
    fn read_batch(&mut self, out: &mut Vec<Request>) -> wafer_trace::Result<bool> {
        out.clear();
        let end = (self.pos + 1000).min(self.reqs.len());
        out.extend_from_slice(&self.reqs[self.pos..end]);
        self.pos = end;
        Ok(!out.is_empty())
    }

    fn meta(&self) -> &TraceMeta {
        &self.meta
    }
}

/// 60,000 requests of 1-3 pages over 5,000 pages, skewed, a third writes and one in
/// 200 a trim: more than one stream chunk, so runs cross chunk boundaries.
fn requests() -> Vec<Request> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..60_000u64)
        .map(|i| {
            let r = next();
            let page = if r % 4 == 0 { r % 5000 } else { (r >> 8) % 600 };
            let op = match r >> 40 & 0xff {
                0 => Op::Trim,
                k if k % 3 == 0 => Op::Write,
                _ => Op::Read,
            };
            Request {
                time_ns: i * 1000,
                offset: page * 4096,
                len: 4096 * (1 + (r >> 20) % 3) as u32,
                dev: 0,
                op,
            }
        })
        .collect()
}

fn reader() -> Mem {
    Mem {
        reqs: requests(),
        pos: 0,
        meta: TraceMeta::default(),
    }
}

fn cfg(capacity_pages: u32, i: usize) -> SimConfig {
    SimConfig {
        granularity: Granularity::Page { page_size: 4096 },
        capacity_pages,
        pages_per_block: NonZeroU32::new(8).unwrap(),
        warmup: if i % 2 == 0 { 0 } else { 5_000 },
        write_miss_fetch: i % 3 == 0,
        flush_at_end: i % 2 == 1,
        ..SimConfig::default()
    }
}

#[test]
fn a_shared_pass_gives_each_cell_its_own_run() {
    let specs: Vec<PolicySpec> = POLICIES
        .iter()
        .map(|p| PolicySpec::parse(p.name).unwrap())
        .collect();
    let cfgs: Vec<SimConfig> = (0..specs.len())
        .map(|i| cfg([64, 300, 1500][i % 3], i))
        .collect();
    let mut sinks: Vec<VecSink> = vec![VecSink::default(); specs.len()];
    let cells = specs
        .iter()
        .zip(&cfgs)
        .zip(sinks.iter_mut())
        .map(|((spec, cfg), after)| Together { spec, cfg, after })
        .collect();
    let mut last = 0;
    let together = simulate_together(cells, &mut reader(), &mut |n| {
        assert!(n >= last, "progress goes forward");
        last = n;
    })
    .unwrap();
    let mut ran = 0;
    for (((spec, cfg), got), sink) in specs.iter().zip(&cfgs).zip(together).zip(&sinks) {
        let info = spec.info();
        if info.offline {
            let e = got.expect_err("an offline policy cannot share a streamed pass");
            assert!(e.to_string().contains("whole trace"), "{e}");
            continue;
        }
        let mut alone_sink = VecSink::default();
        let alone = run_policy(
            spec,
            Input::Stream(&mut reader()),
            cfg,
            &mut alone_sink,
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(got.unwrap(), alone, "{spec}: metrics");
        assert_eq!(sink.ops, alone_sink.ops, "{spec}: after-cache operations");
        ran += 1;
    }
    assert!(ran >= 20, "{ran} policies compared");
    assert!(last > 0, "progress was reported");
}

#[test]
fn cells_with_different_block_sizes_cannot_share_a_pass() {
    let lru = PolicySpec::parse("lru").unwrap();
    let (a, mut b) = (cfg(64, 0), cfg(64, 0));
    b.pages_per_block = NonZeroU32::new(16).unwrap();
    let (mut s1, mut s2) = (VecSink::default(), VecSink::default());
    let cells = vec![
        Together {
            spec: &lru,
            cfg: &a,
            after: &mut s1,
        },
        Together {
            spec: &lru,
            cfg: &b,
            after: &mut s2,
        },
    ];
    let e = simulate_together(cells, &mut reader(), &mut |_| {}).unwrap_err();
    assert!(
        e.to_string().contains("one granularity and block size"),
        "{e}"
    );
}
