//! Sampled LRU curves (SHARDS: C. A. Waldspurger, N. Park, A. Garthwaite, I. Ahmad,
//! "Efficient MRC Construction with SHARDS", USENIX FAST 2015).
//!
//! A key is in the sample when a seeded hash of it falls below a threshold `T`; the
//! rate is `T / 2^64`. The key is the page's, or its erase block's
//! ([`SampleUnit::Block`]), so that a sampled block keeps all its pages. Only the
//! sampled accesses go through the exact machinery of [`super::lru`]: a depth `d` in
//! the sample stands for the distance `d / rate` (each sampled page above stands for
//! `1 / rate` pages), and each count weighs `1 / rate`.
//!
//! Fixed size (`max_keys`): when one key too many is sampled, the one with the
//! largest hash leaves the sample (its pages and open dirty intervals are forgotten)
//! and `T` drops to its hash. Counts made at an earlier, higher rate keep their
//! weight `1 / rate` of that moment, which is the paper's rescaling of the histogram
//! by `R_new / R_old` followed by the final scaling by `1 / R`.
//!
//! The totals (reads, writes, trims) are counted over every access, not estimated.
//! The sampled misses keep their weight and the hits take the rest (the paper's
//! SHARDS_adj: the difference between the references the sample should have drawn
//! and those it drew goes to the smallest distance). Weighting the sample's hit
//! ratio instead lets one hot page that happens to be sampled shift the whole curve:
//! on a phone trace with a million pages that was a 7-point offset at every size.
//!
//! An exact head (module `head`, `Sampling::exact_head` pages) sees every access
//! and gives the sizes up to its depth exactly; the sample then adds only what lies
//! beyond the head: hits at larger distances, write-backs of intervals that left it.
//!
//! Memory: the sampled pages (a hash map of their keys and the stack) and the head;
//! every other access costs one hash, one comparison and the head's update.
//!
//! Over a prepared trace (mapped from its file when one is kept) the sample is drawn
//! before the pass: each distinct page is hashed once, into a bitmap of the pages
//! that can be in the sample, and an access outside it costs one bit test and the
//! head's update; the head looks pages up by their dense id in a flat table.

use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;
use wafer_trace::{Op, RequestReader};

use super::head::Head;
use super::lru::{HeadView, LruCore, LruCurve, Totals};
use super::{SampleUnit, Sampling};
use crate::engine::{Input, SimConfig};
use crate::error::SimError;
use wafer_trace::block_key;

/// 2^64 as a float.
const TWO64: f64 = 18_446_744_073_709_551_616.0;

/// The seeded hash of a key (the SplitMix64 finalizer: S. Vigna, "Further
/// scramblings of Marsaglia's xorshift generators", J. Comput. Appl. Math. 315,
/// 2017, after G. L. Steele, D. Lea, C. H. Flood, "Fast splittable pseudorandom
/// number generators", OOPSLA 2014).
#[inline]
pub fn hash(key: u64, seed: u64) -> u64 {
    let mut z = key
        .wrapping_add(seed.wrapping_mul(0xD6E8_FEB8_6659_FD93))
        .wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The threshold of `rate`: keys hashing at or below it are sampled.
pub fn threshold(rate: f64) -> u64 {
    if rate >= 1.0 {
        u64::MAX
    } else {
        (rate * TWO64) as u64
    }
}

/// The rate of threshold `t`.
pub fn rate_of(t: u64) -> f64 {
    if t == u64::MAX {
        1.0
    } else {
        (t as f64 + 1.0) / TWO64
    }
}

/// The key a page is sampled by.
#[inline]
pub fn unit_key(key: u64, unit: SampleUnit, pages_per_block: u32) -> u64 {
    match unit {
        SampleUnit::Page => key,
        SampleUnit::Block => block_key(key, pages_per_block),
    }
}

/// No page.
const NONE: u32 = u32::MAX;

/// The sampled pages and keys, and the LRU accumulator over them.
struct Sampler {
    s: Sampling,
    ppb: u32,
    t: u64,
    core: LruCore,
    /// Sampled page keys by dense id, and back.
    ids: FxHashMap<u64, u32>,
    keys: Vec<u64>,
    /// The key the head knows each sampled page by (its page key, or its dense id
    /// in a prepared trace).
    hkeys: Vec<u64>,
    /// Sampled units: their id, and per unit id a list of its pages (fixed size).
    units: FxHashMap<u64, u32>,
    first: Vec<u32>,
    next: Vec<u32>,
    /// Units in the sample by hash (fixed size).
    heap: BinaryHeap<(u64, u32)>,
    live_pages: u64,
}

impl Sampler {
    fn new(s: &Sampling, cfg: &SimConfig) -> Sampler {
        Sampler {
            s: *s,
            ppb: cfg.pages_per_block.get(),
            t: threshold(s.rate),
            core: LruCore::with(0, s.rate, s.rate < 1.0 || s.max_keys.is_some()),
            ids: FxHashMap::default(),
            keys: Vec::new(),
            hkeys: Vec::new(),
            units: FxHashMap::default(),
            first: Vec::new(),
            next: Vec::new(),
            heap: BinaryHeap::new(),
            live_pages: 0,
        }
    }

    /// The dense id of sampled page `key` (`hkey` to the head), or `None` when it is
    /// not in the sample.
    #[inline]
    fn id(&mut self, key: u64, hkey: u64) -> Option<u32> {
        let u = unit_key(key, self.s.unit, self.ppb);
        let h = hash(u, self.s.seed);
        if h > self.t {
            return None;
        }
        if let Some(&id) = self.ids.get(&key) {
            return Some(id);
        }
        self.admit(key, hkey, u, h)
    }

    /// A page seen for the first time while its unit hashes below the threshold.
    #[cold]
    fn admit(&mut self, key: u64, hkey: u64, u: u64, h: u64) -> Option<u32> {
        let id = self.keys.len() as u32;
        self.keys.push(key);
        self.hkeys.push(hkey);
        self.ids.insert(key, id);
        self.core.reserve(id + 1);
        self.live_pages += 1;
        let Some(max) = self.s.max_keys else {
            return Some(id);
        };
        let next_uid = self.first.len() as u32;
        let uid = *self.units.entry(u).or_insert(next_uid);
        if uid == next_uid {
            self.first.push(NONE);
            self.heap.push((h, uid));
        }
        self.next.push(self.first[uid as usize]);
        self.first[uid as usize] = id;
        if self.heap.len() > max as usize {
            let (top, gone) = self.heap.pop().expect("over the limit");
            self.t = top.saturating_sub(1);
            self.core.scale.rate = rate_of(self.t);
            let mut p = std::mem::replace(&mut self.first[gone as usize], NONE);
            while p != NONE {
                self.core.remove(p);
                self.live_pages -= 1;
                p = self.next[p as usize];
            }
            if top == h {
                return None;
            }
        }
        Some(id)
    }
}

/// Counts over every access.
#[derive(Default)]
struct Count {
    t: Totals,
    index: u64,
    started: bool,
}

impl Count {
    #[inline]
    fn event(&mut self, op: Op, warmup: u64) -> bool {
        let measured = self.index >= warmup;
        match op {
            Op::Trim => {
                if measured {
                    self.t.trims += 1;
                }
            }
            _ => {
                if !measured {
                    self.t.warmup += 1;
                } else if op == Op::Write {
                    self.t.writes += 1;
                } else {
                    self.t.reads += 1;
                }
                self.index += 1;
            }
        }
        measured
    }
}

/// The pages of a prepared trace (keys by dense id) that can be in the sample: a
/// bitmap by dense id of those whose unit hashes at or below the starting
/// threshold (a fixed-size sample only lowers it).
fn candidates(keys: &[u64], s: &Sampler) -> Vec<u64> {
    let mut bits = vec![0u64; keys.len().div_ceil(64)];
    for (w, chunk) in bits.iter_mut().zip(keys.chunks(64)) {
        for (i, &k) in chunk.iter().enumerate() {
            let h = hash(unit_key(k, s.s.unit, s.ppb), s.s.seed);
            *w |= u64::from(h <= s.t) << i;
        }
    }
    bits
}

/// One event of the trace: the head's key of the page (`hkey`), and its page key
/// when it may be in the sample (`None` when it cannot be).
#[inline]
fn step(
    s: &mut Sampler,
    head: &mut Option<Head>,
    c: &mut Count,
    hkey: u64,
    key: Option<u64>,
    op: Op,
    warmup: u64,
) {
    let measured = c.event(op, warmup);
    if measured && !c.started {
        start(s, head, c);
    }
    let view = match head {
        Some(h) if op == Op::Trim => h.trim(hkey, measured),
        Some(h) => h.access(hkey, op == Op::Write, measured),
        None => HeadView::default(),
    };
    let Some(key) = key else { return };
    if let Some(id) = s.id(key, hkey) {
        if op == Op::Trim {
            s.core.trim(id, measured, view);
        } else {
            s.core.access(id, op == Op::Write, measured, view);
        }
    }
}

/// The warm-up ends: the head and the sample start measuring at the same access.
#[cold]
fn start(s: &mut Sampler, head: &mut Option<Head>, c: &mut Count) {
    c.started = true;
    let hkeys = &s.hkeys;
    match head {
        Some(h) => {
            h.start();
            s.core.start(&|p| h.view(hkeys[p as usize]));
        }
        None => s.core.start(&|_| HeadView::default()),
    }
}

/// The sampled LRU curve of `input` under `cfg` (its capacity is ignored).
pub fn lru(
    input: Input<'_>,
    cfg: &SimConfig,
    sampling: &Sampling,
    progress: &mut dyn FnMut(u64),
) -> Result<LruCurve, SimError> {
    sampling.validate()?;
    let mut s = Sampler::new(sampling, cfg);
    let mut head = (sampling.exact_head > 0).then(|| Head::new(sampling.exact_head));
    if head.is_some() {
        // The sizes up to the head's depth are the head's.
        s.core.scale.floor = u64::from(sampling.exact_head) + 1;
    }
    let mut c = Count::default();
    // The page key of a key the head was given: its dense id in a prepared trace.
    let trace_keys = match input {
        Input::Prepared(t) => Some(t.keys()),
        Input::Stream(_) => None,
    };
    let known_footprint = match input {
        Input::Prepared(t) => {
            if t.granularity() != cfg.granularity {
                return Err(SimError::Invalid(format!(
                    "the prepared trace was expanded with {:?}, the curve asks for {:?}",
                    t.granularity(),
                    cfg.granularity
                )));
            }
            let keys = t.keys();
            let maybe = candidates(keys, &s);
            if head.is_some() {
                head = Some(Head::dense(sampling.exact_head, t.universe()));
            }
            for (i, (&p, &op)) in t.pages().iter().zip(t.ops()).enumerate() {
                let pu = p as usize;
                let key = (maybe[pu / 64] >> (pu % 64) & 1 != 0).then(|| keys[pu]);
                step(&mut s, &mut head, &mut c, u64::from(p), key, op, cfg.warmup);
                if i % (1 << 18) == 0 {
                    progress(c.index);
                }
            }
            Some(u64::from(t.universe()))
        }
        Input::Stream(r) => {
            stream(r, &mut s, &mut head, &mut c, cfg, progress)?;
            None
        }
    };
    progress(c.index);
    let rate = s.core.scale.rate;
    let footprint = known_footprint.unwrap_or_else(|| (s.live_pages as f64 / rate).round() as u64);
    let (keys, hkeys) = (s.keys, s.hkeys);
    let tally = match head {
        Some(h) => {
            let (mut t, views) = h.finish(|k| trace_keys.map_or(k, |keys| keys[k as usize]));
            let view = |p: u32| views.get(&hkeys[p as usize]).copied().unwrap_or_default();
            t.add_sample(s.core.tally(|p| keys[p as usize], &view));
            t.count(c.t);
            t
        }
        None => {
            let mut t = s.core.tally(|p| keys[p as usize], &|_| HeadView::default());
            if sampling.max_keys.is_some() {
                t.rescale(c.t);
            } else {
                t.adjust(c.t);
            }
            t
        }
    };
    Ok(tally.curve(footprint, cfg))
}

fn stream(
    r: &mut dyn RequestReader,
    s: &mut Sampler,
    head: &mut Option<Head>,
    c: &mut Count,
    cfg: &SimConfig,
    progress: &mut dyn FnMut(u64),
) -> Result<(), SimError> {
    let gran = cfg.granularity;
    let mut batch = Vec::with_capacity(wafer_trace::reader::BATCH);
    while r.read_batch(&mut batch)? {
        for req in &batch {
            gran.for_each_key(req, |key| {
                step(s, head, c, key, Some(key), req.op, cfg.warmup)
            });
        }
        progress(c.index);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curve::lru::exact;
    use crate::prepared::PreparedTrace;
    use crate::Metrics;
    use wafer_trace::Request;

    fn zipfish(n: u64, seed: u64) -> Vec<Request> {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
        (0..n)
            .map(|i| {
                // Skewed page popularity over 200,000 pages (the hottest page
                // takes 0.2% of the accesses), a third writes.
                let u: f64 = rng.gen();
                let page = (200_000.0 * u * u) as u64;
                Request {
                    time_ns: i,
                    offset: page * 4096,
                    len: 4096,
                    dev: 0,
                    op: if rng.gen_range(0..3) == 0 {
                        Op::Write
                    } else {
                        Op::Read
                    },
                }
            })
            .collect()
    }

    fn mae(a: &LruCurve, b: &LruCurve, top: u32) -> f64 {
        let sizes = super::super::log_sizes(top, 50);
        let miss = |c: &LruCurve, s| {
            let m = c.metrics(s);
            m.misses as f64 / m.accesses as f64
        };
        sizes
            .iter()
            .map(|&s| (miss(a, s) - miss(b, s)).abs())
            .sum::<f64>()
            / sizes.len() as f64
    }

    #[test]
    fn deterministic_for_a_seed_and_close_to_exact() {
        let reqs = zipfish(1_000_000, 1);
        // Blocks of 16 pages: 12,500 of them, enough for a sample of blocks.
        let cfg = SimConfig {
            pages_per_block: std::num::NonZeroU32::new(16).unwrap(),
            flush_at_end: true,
            ..SimConfig::default()
        };
        let t = PreparedTrace::from_requests(cfg.granularity, &reqs).unwrap();
        let ex = exact(&t, &cfg, &mut |_| {}).unwrap();
        for unit in [SampleUnit::Page, SampleUnit::Block] {
            for (max_keys, exact_head) in
                [(None, 0), (Some(4000), 0), (None, 1000), (Some(4000), 1000)]
            {
                let s = Sampling {
                    rate: 0.1,
                    max_keys,
                    unit,
                    seed: 7,
                    exact_head,
                };
                let a = lru(Input::Prepared(&t), &cfg, &s, &mut |_| {}).unwrap();
                let b = lru(Input::Prepared(&t), &cfg, &s, &mut |_| {}).unwrap();
                let mut r = crate::testutil::VecReader::new(reqs.clone(), 1000);
                let c = lru(Input::Stream(&mut r), &cfg, &s, &mut |_| {}).unwrap();
                for size in [1, 10, 100, 1000, 10_000, 100_000] {
                    assert_eq!(a.metrics(size), b.metrics(size));
                    // Every count alike (flush-at-end merging by page key included);
                    // only the stream's footprint is estimated.
                    let (ma, mc) = (a.metrics(size), c.metrics(size));
                    assert_eq!(
                        Metrics { universe: 0, ..ma },
                        Metrics { universe: 0, ..mc },
                        "stream and prepared"
                    );
                }
                let err = mae(&a, &ex, t.universe());
                // A block sample has 16 times fewer independent keys.
                let bound = if unit == SampleUnit::Page { 0.01 } else { 0.03 };
                assert!(
                    err < bound,
                    "{unit:?} {max_keys:?} head {exact_head}: MAE {err}"
                );
                let other = lru(
                    Input::Prepared(&t),
                    &cfg,
                    &Sampling { seed: 8, ..s },
                    &mut |_| {},
                )
                .unwrap();
                assert_ne!(other.metrics(10_000), a.metrics(10_000), "the seed matters");
            }
        }
    }

    #[test]
    fn rate_one_is_exact() {
        let reqs = zipfish(20_000, 2);
        let cfg = SimConfig {
            flush_at_end: true,
            warmup: 500,
            ..SimConfig::default()
        };
        let t = PreparedTrace::from_requests(cfg.granularity, &reqs).unwrap();
        let ex = exact(&t, &cfg, &mut |_| {}).unwrap();
        let s = Sampling {
            rate: 1.0,
            ..Sampling::default()
        };
        let sh = lru(Input::Prepared(&t), &cfg, &s, &mut |_| {}).unwrap();
        for size in [1, 5, 50, 500, 5000, t.universe()] {
            assert_eq!(sh.metrics(size), ex.metrics(size), "size {size}");
        }
    }

    /// Random traces with multi-page requests, two devices, trims, warm-up,
    /// write-miss fetch and flush-at-end: at every size up to the exact head's depth
    /// the sampled curve equals the exact one, and with a head as deep as the
    /// footprint it equals it everywhere.
    #[test]
    fn the_exact_head_is_exact_up_to_its_depth() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(21);
        for round in 0..30 {
            let n = rng.gen_range(200..3000);
            let span = rng.gen_range(8..400u64);
            let reqs: Vec<Request> = (0..n)
                .map(|i| Request {
                    time_ns: i,
                    offset: rng.gen_range(0..span) * 4096,
                    len: rng.gen_range(1..4) * 4096,
                    dev: rng.gen_range(0..2),
                    op: match rng.gen_range(0..12) {
                        0..=5 => Op::Read,
                        6..=10 => Op::Write,
                        _ => Op::Trim,
                    },
                })
                .collect();
            let cfg = SimConfig {
                warmup: if round % 3 == 0 {
                    rng.gen_range(0..n)
                } else {
                    0
                },
                write_miss_fetch: round % 2 == 1,
                flush_at_end: round % 4 < 2,
                ..SimConfig::default()
            };
            let t = PreparedTrace::from_requests(cfg.granularity, &reqs).unwrap();
            let ex = exact(&t, &cfg, &mut |_| {}).unwrap();
            for head in [1, 7, 60, t.universe()] {
                let s = Sampling {
                    rate: 0.3,
                    seed: round,
                    exact_head: head,
                    ..Sampling::default()
                };
                let sh = lru(Input::Prepared(&t), &cfg, &s, &mut |_| {}).unwrap();
                let top = if head >= t.universe() {
                    t.universe() + 1
                } else {
                    head
                };
                for c in 1..=top {
                    assert_eq!(
                        sh.metrics(c),
                        ex.metrics(c),
                        "round {round}, head {head}, size {c}"
                    );
                }
            }
        }
    }

    #[test]
    fn bad_rates_are_refused() {
        let t = PreparedTrace::from_requests(Default::default(), &zipfish(10, 3)).unwrap();
        for rate in [0.0, -1.0, 1.5, f64::NAN] {
            let s = Sampling {
                rate,
                ..Sampling::default()
            };
            assert!(lru(Input::Prepared(&t), &SimConfig::default(), &s, &mut |_| {}).is_err());
        }
    }
}
