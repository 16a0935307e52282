//! The simulation loop: one policy, one cache size, one trace.
//!
//! [`simulate`] is generic over the policy and the after-cache sink, so every policy
//! gets its own monomorphised loop: no dynamic call and no allocation per access. It
//! takes either input of [`Input`]:
//! * a stream ([`wafer_trace::RequestReader`]): requests are expanded into page
//!   accesses and page keys densified on the fly; the policy's per-page arrays grow by
//!   amortised doubling ([`Policy::reserve`]) as the universe grows; blocks are
//!   densified too, but only for block-aware policies;
//! * a [`PreparedTrace`] decoded once and shared read-only by many runs.
//!
//! Offline policies ([`Policy::NEEDS_NEXT_USE`], Belady) need the whole trace: a
//! stream is prepared first, and next-use indices come from one backward pass.
//!
//! Semantics (`docs/cache.md`, "Engine semantics"):
//! * Each page access is handled completely before the next, in ascending page order
//!   within a request.
//! * The read of a missed page (read miss, or write miss with `write_miss_fetch`) is
//!   emitted after the write-backs the policy reported for that access.
//! * Warm-up: the first `warmup` accesses change the cache but neither the counters
//!   nor the after-cache trace. Eviction-group numbering runs on regardless.
//! * Trims are not accesses: the policy drops the page without I/O
//!   ([`Policy::invalidate`]) and the trim passes through to the after-cache trace.
//!   A trimmed dirty page's data is discarded, so it is neither written back nor
//!   dirty at the end.
//! * At the end, resident dirty pages are counted (`dirty_at_end`); with
//!   `flush_at_end` they are written in ascending key order and counted apart
//!   (`writes_at_end`).
//! * Metrics definitions are in [`crate::metrics`].

use std::num::NonZeroU32;

use wafer_trace::{Densifier, Granularity, Op, RequestReader};

use crate::after::{AfterSink, IoKind, StorageOp};
use crate::error::SimError;
use crate::metrics::{BlockUtilization, BurstTracker, MergeTracker, Metrics, Series};
use crate::policy::{Access, IoSink, Policy, PolicyCtx, NO_KEY};
use crate::prepared::PreparedTrace;
use wafer_trace::request::DEV_SHIFT;
use wafer_trace::{block_key, key_page};

/// Storage costs of paper 002 (H. Lee, H. Bahn, K. G. Shin, "Page Replacement for
/// Write References in NAND Flash Based Virtual Memory Systems", JCSE 8(3), 2014;
/// SLC flash): read 25 µs, program 200 µs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CostModel {
    /// Time of one page read, ns.
    pub t_read_ns: u64,
    /// Time of one page write, ns.
    pub t_write_ns: u64,
}

impl CostModel {
    /// Largest cost of one page read or write, ns (one second): beyond it a value is a
    /// typo, and `u64::MAX` made `io_time_ns` wrap.
    pub const MAX_NS: u64 = 1_000_000_000;

    /// Paper 002's SLC costs (the default).
    pub const DEFAULT: CostModel = CostModel {
        t_read_ns: 25_000,
        t_write_ns: 200_000,
    };

    /// Time of `reads` page reads and `writes` page writes, ns; it saturates at
    /// `u64::MAX` (585 years) instead of wrapping.
    pub fn io_time_ns(&self, reads: u64, writes: u64) -> u64 {
        reads
            .saturating_mul(self.t_read_ns)
            .saturating_add(writes.saturating_mul(self.t_write_ns))
    }
}

impl Default for CostModel {
    fn default() -> Self {
        CostModel::DEFAULT
    }
}

/// Everything about a run except the policy and the trace.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SimConfig {
    /// How requests become page accesses.
    pub granularity: Granularity,
    /// Cache capacity in pages (at least 1).
    pub capacity_pages: u32,
    /// Pages per erase block (block = page div this): non-zero by its type, so the
    /// engine and the policies divide by it as it is.
    pub pages_per_block: NonZeroU32,
    /// Accesses of the warm-up prefix.
    pub warmup: u64,
    /// Read the page from storage on a write miss too.
    pub write_miss_fetch: bool,
    /// Write the dirty pages left at the end (counted apart).
    pub flush_at_end: bool,
    /// Read/write costs for `io_time_ns`.
    pub cost: CostModel,
    /// Sample the policy's series every this many measured accesses (0 = off).
    pub series_every: u64,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            granularity: Granularity::default(),
            capacity_pages: 1024,
            pages_per_block: NonZeroU32::new(1024).expect("non-zero"),
            warmup: 0,
            write_miss_fetch: false,
            flush_at_end: false,
            cost: CostModel::default(),
            series_every: 0,
        }
    }
}

impl SimConfig {
    /// The [`PolicyCtx`] a policy is built with.
    pub fn policy_ctx(&self, universe_hint: u32) -> PolicyCtx {
        PolicyCtx {
            pages_per_block: self.pages_per_block,
            write_read_cost_ratio: self.cost.t_write_ns as f64 / self.cost.t_read_ns.max(1) as f64,
            universe_hint,
        }
    }

    /// Bytes per page of the after-cache trace.
    pub fn unit(&self) -> u32 {
        self.granularity.unit() as u32
    }
}

/// Where the accesses come from.
pub enum Input<'a> {
    /// Streamed from a reader, densified on the fly.
    Stream(&'a mut dyn RequestReader),
    /// Prepared once, shared.
    Prepared(&'a PreparedTrace),
}

/// Run policy `P` with `params` over `input`; report storage operations to `after`
/// and call `progress` with the number of accesses done now and then.
pub fn simulate<P: Policy, A: AfterSink>(
    params: &P::Params,
    input: Input<'_>,
    cfg: &SimConfig,
    after: &mut A,
    progress: &mut dyn FnMut(u64),
) -> Result<Metrics, SimError> {
    if cfg.capacity_pages == 0 {
        return Err(SimError::Invalid(
            "cache capacity must be at least one page".into(),
        ));
    }
    match input {
        Input::Prepared(t) => run_prepared::<P, A>(params, t, cfg, after, progress),
        Input::Stream(r) if P::NEEDS_NEXT_USE => {
            let t = PreparedTrace::read(cfg.granularity, r, &mut |_| {})?;
            run_prepared::<P, A>(params, &t, cfg, after, progress)
        }
        Input::Stream(r) => run_stream::<P, A>(params, r, cfg, after, progress),
    }
}

/// Page keys by dense id.
trait KeyOf {
    fn key_of(&self, id: u32) -> u64;
}

impl KeyOf for [u64] {
    #[inline]
    fn key_of(&self, id: u32) -> u64 {
        self[id as usize]
    }
}

impl KeyOf for Densifier {
    #[inline]
    fn key_of(&self, id: u32) -> u64 {
        self.key(id)
    }
}

/// Counters and trackers of one run.
struct Run {
    m: Metrics,
    warmup: u64,
    fetch_on_write: bool,
    measuring: bool,
    access: u64,
    time: u64,
    group: u64,
    groups_opened: u64,
    blocks: BlockMemo,
    wb: BurstTracker,
    strict: BurstTracker,
    merge: MergeTracker,
    series_every: u64,
    series: Option<Series>,
    sample: Vec<f64>,
    /// The error a [`Policy::FALLIBLE`] policy stopped the run with.
    failed: Option<String>,
}

impl Run {
    fn new<P: Policy>(policy: &P, cfg: &SimConfig) -> Run {
        let names = policy.series_names();
        let series = (cfg.series_every > 0 && !names.is_empty()).then(|| Series {
            names: names.iter().map(|s| s.to_string()).collect(),
            ..Series::default()
        });
        Run {
            m: Metrics {
                capacity: cfg.capacity_pages,
                pages_per_block: cfg.pages_per_block.get(),
                ..Metrics::default()
            },
            warmup: cfg.warmup,
            fetch_on_write: cfg.write_miss_fetch,
            measuring: false,
            access: 0,
            time: wafer_trace::NO_TIME,
            group: 0,
            groups_opened: 0,
            blocks: BlockMemo::new(cfg.pages_per_block),
            wb: BurstTracker::new(cfg.pages_per_block),
            strict: BurstTracker::new(cfg.pages_per_block),
            merge: MergeTracker::default(),
            series_every: if series.is_some() {
                cfg.series_every
            } else {
                0
            },
            series,
            sample: Vec::new(),
            failed: None,
        }
    }

    /// One access, fully handled.
    #[inline(always)]
    fn access<P: Policy, K: KeyOf + ?Sized, A: AfterSink>(
        &mut self,
        policy: &mut P,
        keys: &K,
        after: &mut A,
        a: &Access,
        time: u64,
    ) {
        self.measuring = a.index >= self.warmup;
        self.access = a.index;
        self.time = time;
        let hit = policy.access(
            a,
            &mut Tap {
                run: self,
                keys,
                after,
            },
        );
        if !self.measuring {
            return;
        }
        let m = &mut self.m;
        m.accesses += 1;
        if a.op == Op::Write {
            m.writes += 1;
            m.write_hits += u64::from(hit);
        } else {
            m.reads += 1;
            m.read_hits += u64::from(hit);
        }
        if !hit && (a.op == Op::Read || self.fetch_on_write) {
            m.page_reads += 1;
            self.strict.end();
            if !after.takes_reads() {
                return self.sample_now(policy);
            }
            after.push(&StorageOp {
                op: Op::Read,
                kind: IoKind::Miss,
                key: if P::NEEDS_KEY {
                    a.key
                } else {
                    keys.key_of(a.page)
                },
                access: a.index,
                time_ns: time,
                group: 0,
            });
        }
        self.sample_now(policy);
    }

    /// Take a series sample if one is due.
    #[inline(always)]
    fn sample_now<P: Policy>(&mut self, policy: &P) {
        if self.series_every > 0 && self.m.accesses % self.series_every == 0 {
            self.take_sample(policy);
        }
    }

    #[cold]
    fn take_sample<P: Policy>(&mut self, policy: &P) {
        if let Some(s) = self.series.as_mut() {
            self.sample.clear();
            policy.sample(&mut self.sample);
            s.at.push(self.m.accesses);
            s.values.push(self.sample.clone());
        }
    }

    /// A trim of `key` (dense id `id` if the page was ever seen).
    fn trim<P: Policy, A: AfterSink>(
        &mut self,
        policy: &mut P,
        after: &mut A,
        key: u64,
        id: Option<u32>,
        time: u64,
    ) {
        let resident = id.is_some_and(|id| policy.invalidate(id));
        if self.access_index_measuring() {
            self.m.trims += 1;
            self.m.trimmed_resident += u64::from(resident);
            after.push(&StorageOp {
                op: Op::Trim,
                kind: IoKind::Trim,
                key,
                access: self.next_index(),
                time_ns: time,
                group: 0,
            });
        }
    }

    /// Index the next access will get.
    fn next_index(&self) -> u64 {
        self.m.warmup_accesses + self.m.accesses
    }

    /// Whether the next access is past the warm-up.
    fn access_index_measuring(&self) -> bool {
        self.next_index() >= self.warmup
    }

    /// Account one warm-up access (for [`Run::next_index`]).
    #[inline(always)]
    fn count_warmup(&mut self) {
        if !self.measuring {
            self.m.warmup_accesses += 1;
        }
    }

    /// Dirty pages at the end, flush-at-end, summaries.
    fn finish<P: Policy, K: KeyOf + ?Sized, A: AfterSink>(
        mut self,
        policy: &P,
        keys: &K,
        after: &mut A,
        universe: u64,
        cfg: &SimConfig,
    ) -> Result<Metrics, SimError> {
        let mut dirty = Vec::new();
        policy.dirty_pages(&mut dirty);
        self.m.dirty_at_end = dirty.len() as u64;
        if cfg.flush_at_end {
            let mut dk: Vec<u64> = dirty.iter().map(|&p| keys.key_of(p)).collect();
            dk.sort_unstable();
            let mut merge = MergeTracker::default();
            let at = self.next_index();
            for key in dk {
                merge.write(0, key);
                after.push(&StorageOp {
                    op: Op::Write,
                    kind: IoKind::Flush,
                    key,
                    access: at,
                    time_ns: self.time,
                    group: 0,
                });
            }
            self.m.writes_at_end = self.m.dirty_at_end;
            self.m.write_ios_at_end = merge.ios;
        }
        let m = &mut self.m;
        m.universe = universe;
        m.hits = m.read_hits + m.write_hits;
        m.read_misses = m.reads - m.read_hits;
        m.write_misses = m.writes - m.write_hits;
        m.misses = m.read_misses + m.write_misses;
        m.write_ios = self.merge.ios;
        m.io_time_ns = cfg
            .cost
            .io_time_ns(m.page_reads + m.pad_reads, m.page_writes + m.pad_writes);
        m.finish_ratios();
        m.block_utilization = BlockUtilization {
            write_stream: self.wb.stats(),
            strict: self.strict.stats(),
        };
        m.series = self.series;
        after.finish()?;
        Ok(self.m)
    }
}

/// [`block_key`] and the page's place in its block, with the last block
/// remembered: the pages of one block flush (a block-level policy writes up to ppb of
/// them in a row) cost one division, not one each.
struct BlockMemo {
    ppb: u64,
    /// Key of the first page of the last block (device bits included).
    base: u64,
    /// Its block key.
    block: u64,
}

impl BlockMemo {
    fn new(ppb: NonZeroU32) -> BlockMemo {
        BlockMemo {
            ppb: u64::from(ppb.get()),
            base: u64::MAX,
            block: u64::MAX,
        }
    }

    /// `(block_key(key, ppb), key_page(key) % ppb)`.
    #[inline]
    fn of(&mut self, key: u64) -> (u64, u32) {
        let d = key.wrapping_sub(self.base);
        // Same device too: a last block cut short at the top of a device's page
        // space must not take in the first pages of the next device.
        if d < self.ppb && (key ^ self.base) >> DEV_SHIFT == 0 {
            return (self.block, d as u32);
        }
        let offset = key_page(key) % self.ppb;
        self.block = block_key(key, self.ppb as u32);
        self.base = key - offset;
        (self.block, offset as u32)
    }
}

/// The [`IoSink`] handed to the policy for one access.
struct Tap<'r, K: ?Sized, A> {
    run: &'r mut Run,
    keys: &'r K,
    after: &'r mut A,
}

impl<K: KeyOf + ?Sized, A: AfterSink> Tap<'_, K, A> {
    #[inline(always)]
    fn write(&mut self, key: u64, kind: IoKind) {
        let r = &mut *self.run;
        let (blk, offset) = r.blocks.of(key);
        r.wb.write(blk, offset);
        r.strict.write(blk, offset);
        r.merge.write(r.access, key);
        self.after.push(&StorageOp {
            op: Op::Write,
            kind,
            key,
            access: r.access,
            time_ns: r.time,
            group: r.group,
        });
    }
}

impl<K: KeyOf + ?Sized, A: AfterSink> IoSink for Tap<'_, K, A> {
    #[inline]
    fn key(&self, page: u32) -> u64 {
        self.keys.key_of(page)
    }

    #[inline]
    fn write_back(&mut self, page: u32) {
        if self.run.measuring {
            self.run.m.page_writes += 1;
            self.run.m.evictions += 1;
            let key = self.keys.key_of(page);
            self.write(key, IoKind::WriteBack);
        }
    }

    #[inline]
    fn write_back_keyed(&mut self, page: u32, key: u64) {
        debug_assert_eq!(key, self.keys.key_of(page), "key of page {page}");
        if self.run.measuring {
            self.run.m.page_writes += 1;
            self.run.m.evictions += 1;
            self.write(key, IoKind::WriteBack);
        }
    }

    #[inline]
    fn drop_clean(&mut self, _page: u32) {
        if self.run.measuring {
            self.run.m.evictions += 1;
        }
    }

    #[inline]
    fn pad_read(&mut self, key: u64) {
        let r = &mut *self.run;
        if r.measuring {
            r.m.pad_reads += 1;
            if r.group == 0 {
                r.strict.end();
            }
            self.after.push(&StorageOp {
                op: Op::Read,
                kind: IoKind::PadRead,
                key,
                access: r.access,
                time_ns: r.time,
                group: r.group,
            });
        }
    }

    #[inline]
    fn pad_write(&mut self, key: u64) {
        if self.run.measuring {
            self.run.m.pad_writes += 1;
            self.write(key, IoKind::PadWrite);
        }
    }

    fn begin_group(&mut self) {
        let r = &mut *self.run;
        r.groups_opened += 1;
        r.group = r.groups_opened;
        r.wb.end();
        r.strict.end();
        if r.measuring {
            r.m.groups += 1;
        }
    }

    fn end_group(&mut self) {
        let r = &mut *self.run;
        r.group = 0;
        r.wb.end();
        r.strict.end();
    }
}

fn build<P: Policy>(params: &P::Params, cfg: &SimConfig, universe: u32) -> Result<P, SimError> {
    Ok(P::new(
        cfg.capacity_pages,
        params,
        &cfg.policy_ctx(universe),
    )?)
}

/// How many accesses ahead the engine tells the policy of a page
/// ([`Policy::prefetch`]): far enough for a load from memory to finish first.
const PREFETCH_AHEAD: usize = 8;

/// How many keys ahead a streamed batch prefetches the densifier's slot.
const DENSIFY_AHEAD: usize = 16;

/// Progress is reported every this many accesses.
const PROGRESS_EVERY: u64 = 1 << 16;

fn run_prepared<P: Policy, A: AfterSink>(
    params: &P::Params,
    t: &PreparedTrace,
    cfg: &SimConfig,
    after: &mut A,
    progress: &mut dyn FnMut(u64),
) -> Result<Metrics, SimError> {
    if t.granularity() != cfg.granularity {
        return Err(SimError::Invalid(format!(
            "the prepared trace was expanded with {:?}, the run asks for {:?}",
            t.granularity(),
            cfg.granularity
        )));
    }
    let universe = t.universe();
    let mut policy = build::<P>(params, cfg, universe)?;
    let blocks = P::BLOCK_AWARE.then(|| t.block_map(cfg.pages_per_block));
    policy.reserve(universe, blocks.as_ref().map_or(0, |b| b.blocks));
    let next_use = P::NEEDS_NEXT_USE.then(|| t.next_use());
    let block_of: &[u32] = blocks.as_ref().map_or(&[], |b| &b.of_page);
    let next: &[u32] = next_use.as_ref().map_or(&[], |v| v.as_slice());
    let keys = t.keys();
    let times = t.times();
    // A sink that ignores the time leaves the request index and timestamps unread.
    let timed = after.takes_time();
    let mut run = Run::new(&policy, cfg);
    let mut index = 0u64;
    let pages = t.pages();
    let steps = pages
        .iter()
        .zip(t.ops())
        .zip(t.request_index())
        .map(|((&page, &op), &ri)| Step {
            page,
            block: if P::BLOCK_AWARE {
                block_of[page as usize]
            } else {
                0
            },
            key: if P::NEEDS_KEY || op == Op::Trim {
                keys[page as usize]
            } else {
                NO_KEY
            },
            op,
            time: if timed {
                times[ri as usize]
            } else {
                wafer_trace::NO_TIME
            },
        });
    let ahead = |i: usize| pages.get(i).copied();
    let cx = Loop {
        keys,
        next,
        progress,
    };
    let stop;
    (index, stop) = drive(&mut policy, &mut run, after, cx, steps, ahead, index);
    if stop {
        return Err(stopped(&mut run, after));
    }
    progress(index);
    policy_end(&mut policy)?;
    run.finish(&policy, keys, after, u64::from(universe), cfg)
}

/// One access or trim as [`drive`] takes it.
struct Step {
    page: u32,
    /// Dense block id (block-aware policies only).
    block: u32,
    /// Page key ([`NO_KEY`] allowed for an access when the policy does not need it).
    key: u64,
    op: Op,
    time: u64,
}

/// What [`drive`] needs besides the steps.
struct Loop<'a, K: ?Sized> {
    /// Keys by dense id (for the policy's [`IoSink::key`] and write-backs).
    keys: &'a K,
    /// Next use per access index (offline policies only; empty otherwise).
    next: &'a [u32],
    progress: &'a mut dyn FnMut(u64),
}

/// The one per-access loop, for prepared and streamed input alike: hints the policy
/// of the page `PREFETCH_AHEAD` steps on (`ahead(i)` = page of step `i`), passes
/// trims, runs each access from access index `index` on and reports progress. Returns
/// the next access index, and true when the after-cache sink failed and the run must
/// stop. The index goes in and out by value so it stays in a register. Inlined into each caller so the
/// iterator and the closure compile to the loops they replace.
#[inline(always)]
fn drive<P: Policy, K: KeyOf + ?Sized, A: AfterSink>(
    policy: &mut P,
    run: &mut Run,
    after: &mut A,
    cx: Loop<'_, K>,
    steps: impl Iterator<Item = Step>,
    ahead: impl Fn(usize) -> Option<u32>,
    mut index: u64,
) -> (u64, bool) {
    for (i, s) in steps.enumerate() {
        if let Some(page) = ahead(i + PREFETCH_AHEAD) {
            policy.prefetch(page);
        }
        if s.op == Op::Trim {
            run.trim(policy, after, s.key, Some(s.page), s.time);
            continue;
        }
        let a = Access {
            page: s.page,
            block: s.block,
            key: if P::NEEDS_KEY { s.key } else { NO_KEY },
            op: s.op,
            index,
            next_use: if P::NEEDS_NEXT_USE {
                match cx.next[index as usize] {
                    u32::MAX => u64::MAX,
                    n => u64::from(n),
                }
            } else {
                u64::MAX
            },
        };
        run.access(policy, cx.keys, after, &a, s.time);
        run.count_warmup();
        index += 1;
        if P::FALLIBLE && policy.error(false).map(|e| run.failed = Some(e)).is_some() {
            return (index, true);
        }
        if index % PROGRESS_EVERY == 0 {
            (cx.progress)(index);
            if after.failed() {
                return (index, true);
            }
        }
    }
    (index, false)
}

/// One access (or trim) of a stream, densified before the policy sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Event {
    key: u64,
    time: u64,
    page: u32,
    block: u32,
    op: Op,
}

/// Events buffered before they are densified and run: enough for the lookups to
/// overlap, few enough to stay in cache. A request is never split, so one request
/// of more pages (up to 2^20 for the largest request of 4 KiB pages) makes one
/// larger chunk.
const STREAM_CHUNK: usize = 1 << 14;

/// A stream is run in chunks of requests: their pages are expanded into events, the
/// events densified (the hash lookups do not depend on each other, and each slot is
/// prefetched `DENSIFY_AHEAD` keys ahead, so the cache misses overlap, where
/// interleaved with the policy's work they would wait one by one), then the policy
/// runs over the dense ids with the same prefetch hints as a prepared trace. Ids,
/// events and results are those of a prepared trace; memory is the densifier, the
/// policy and one chunk, whatever the trace's length.
fn run_stream<P: Policy, A: AfterSink>(
    params: &P::Params,
    reader: &mut dyn RequestReader,
    cfg: &SimConfig,
    after: &mut A,
    progress: &mut dyn FnMut(u64),
) -> Result<Metrics, SimError> {
    let mut run = Box::new(StreamRun::<P, A>::new(params, cfg, after)?);
    let pages = read_stream(
        reader,
        cfg.granularity,
        cfg.pages_per_block.get(),
        P::BLOCK_AWARE,
        |events, pages, blocks| Ok(run.feed(events, pages, blocks, progress)),
    )?;
    progress(run.index);
    run.finish(&pages)
}

/// Read `reader` in chunks of requests, expand each into its events (pages, or
/// records), densify them (and their blocks when `block_ids`) and hand each chunk,
/// with the densifier and the count of blocks seen, to `feed`, which says whether to
/// stop. Returns the densifier: the keys of the dense ids, for the runs' ends.
fn read_stream(
    reader: &mut dyn RequestReader,
    gran: Granularity,
    ppb: u32,
    block_ids: bool,
    mut feed: impl FnMut(&[Event], &Densifier, u32) -> Result<bool, SimError>,
) -> Result<Densifier, SimError> {
    // A trace that stores its distinct-key estimate (`.wtr` version 2) gets its
    // table at its final size at once (BENCHMARKS.md, "First contact").
    let mut pages = Densifier::expecting(reader.expected_keys(gran));
    let mut blocks = Densifier::new();
    let mut flush = |events: &mut Vec<Event>| -> Result<bool, SimError> {
        // Room for every event's key to be new, made here, once per chunk: the
        // lookups below neither check for growth nor allocate.
        let n = events.len();
        pages
            .try_reserve(n)
            .map_err(|bytes| out_of_memory(bytes, "the page table", pages.len()))?;
        if block_ids {
            blocks
                .try_reserve(n)
                .map_err(|bytes| out_of_memory(bytes, "the block table", pages.len()))?;
        }
        // Trimmed pages are densified too, so dense ids (and the universe) are the
        // same as a prepared trace's.
        for i in 0..n {
            if let Some(ahead) = events.get(i + DENSIFY_AHEAD) {
                pages.prefetch(ahead.key);
            }
            let e = &mut events[i];
            e.page = pages.id_in_room(e.key);
            if block_ids {
                e.block = blocks.id_in_room(block_key(e.key, ppb));
            }
        }
        let stop = feed(events, &pages, blocks.len() as u32)?;
        events.clear();
        Ok(stop)
    };
    let mut batch = Vec::with_capacity(wafer_trace::reader::BATCH);
    let mut events: Vec<Event> = Vec::new();
    while reader.read_batch(&mut batch)? {
        // Room for the chunk and the largest request of the batch (a request is
        // never split), made fallibly at the batch boundary: the expansion below
        // never reallocates.
        let most = match gran {
            Granularity::Record => 1,
            _ => batch.iter().map(|r| gran.count(r)).max().unwrap_or(0),
        };
        let room = usize::try_from(most)
            .ok()
            .and_then(|m| m.checked_add(STREAM_CHUNK))
            .unwrap_or(usize::MAX);
        if events.capacity() < room {
            let bytes = (room as u64).saturating_mul(std::mem::size_of::<Event>() as u64);
            let more = room - events.len();
            wafer_trace::alloc::fallibly(|| events.try_reserve_exact(more))
                .map_err(|_| out_of_memory(bytes, "the accesses of one request", 0))?;
        }
        for req in &batch {
            gran.for_each_key(req, |key| {
                events.push(Event {
                    key,
                    time: req.time_ns,
                    page: 0,
                    block: 0,
                    op: req.op,
                });
            });
            if events.len() >= STREAM_CHUNK && flush(&mut events)? {
                return Ok(pages);
            }
        }
    }
    flush(&mut events)?;
    Ok(pages)
}

/// One policy's run over a stream, fed a densified chunk at a time: alone
/// ([`run_stream`]) or beside others over one pass
/// ([`crate::together::simulate_together`]).
struct StreamRun<'a, P: Policy, A: AfterSink> {
    policy: P,
    run: Run,
    cfg: &'a SimConfig,
    after: &'a mut A,
    have_pages: u32,
    have_blocks: u32,
    /// Accesses run so far.
    index: u64,
    /// Why the run stopped early (its sink or policy failed, or its state could not
    /// grow); it is fed nothing more.
    error: Option<SimError>,
}

impl<'a, P: Policy, A: AfterSink> StreamRun<'a, P, A> {
    fn new(params: &P::Params, cfg: &'a SimConfig, after: &'a mut A) -> Result<Self, SimError> {
        if cfg.capacity_pages == 0 {
            return Err(SimError::Invalid(
                "cache capacity must be at least one page".into(),
            ));
        }
        let policy = build::<P>(params, cfg, 0)?;
        let run = Run::new(&policy, cfg);
        Ok(StreamRun {
            policy,
            run,
            cfg,
            after,
            have_pages: 0,
            have_blocks: 0,
            index: 0,
            error: None,
        })
    }
}

/// A [`StreamRun`] of any policy, for a pass shared by several
/// ([`crate::together`]).
pub(crate) trait Pass {
    /// Whether the policy needs block ids.
    fn block_aware(&self) -> bool;
    /// Run one densified chunk (`blocks`: block ids so far); `progress` gets this
    /// run's accesses done. Returns whether the run stopped (then it says why at
    /// [`Pass::finish`]).
    fn feed(
        &mut self,
        events: &[Event],
        pages: &Densifier,
        blocks: u32,
        progress: &mut dyn FnMut(u64),
    ) -> bool;
    /// Accesses run so far.
    fn index(&self) -> u64;
    /// The run's end: its error if it stopped, else its policy's deferred error, the
    /// flush and the metrics.
    fn finish(self: Box<Self>, pages: &Densifier) -> Result<Metrics, SimError>;
}

impl<P: Policy, A: AfterSink> Pass for StreamRun<'_, P, A> {
    fn block_aware(&self) -> bool {
        P::BLOCK_AWARE
    }

    fn feed(
        &mut self,
        events: &[Event],
        pages: &Densifier,
        blocks: u32,
        progress: &mut dyn FnMut(u64),
    ) -> bool {
        if self.error.is_some() {
            return true;
        }
        if let Some(last_page) = pages.len().checked_sub(1) {
            if let Err(e) = ensure(
                &mut self.policy,
                &mut self.have_pages,
                &mut self.have_blocks,
                last_page as u32,
                blocks.saturating_sub(1),
            ) {
                self.error = Some(e);
                return true;
            }
        }
        let steps = events.iter().map(|e| Step {
            page: e.page,
            block: e.block,
            key: e.key,
            op: e.op,
            time: e.time,
        });
        let ahead = |i: usize| events.get(i).map(|e| e.page);
        let cx = Loop {
            keys: pages,
            next: &[],
            progress,
        };
        let stop;
        (self.index, stop) = drive(
            &mut self.policy,
            &mut self.run,
            self.after,
            cx,
            steps,
            ahead,
            self.index,
        );
        if stop {
            self.error = Some(stopped(&mut self.run, self.after));
        }
        stop
    }

    fn index(&self) -> u64 {
        self.index
    }

    fn finish(mut self: Box<Self>, pages: &Densifier) -> Result<Metrics, SimError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        policy_end(&mut self.policy)?;
        let universe = pages.len() as u64;
        self.run
            .finish(&self.policy, pages, self.after, universe, self.cfg)
    }
}

/// Policy `P`'s run over a stream, to be fed with others ([`stream_together`]). A
/// policy that needs the next use of every access (an offline one) needs the whole
/// trace first, and cannot share a pass.
pub(crate) fn stream_pass<'a, P: Policy, A: AfterSink>(
    params: &P::Params,
    cfg: &'a SimConfig,
    after: &'a mut A,
) -> Result<Box<dyn Pass + 'a>, SimError> {
    if P::NEEDS_NEXT_USE {
        return Err(SimError::Invalid(format!(
            "{} needs the whole trace in memory and cannot share a streamed pass",
            P::NAME
        )));
    }
    Ok(Box::new(StreamRun::<P, A>::new(params, cfg, after)?))
}

/// Feed one pass over `reader` to every run of `passes` (all of granularity `gran`
/// and `ppb` pages per block); `progress` gets the accesses of all of them. The
/// outer error is the stream's (every run fails with it), the inner ones each run's.
pub(crate) fn stream_together(
    reader: &mut dyn RequestReader,
    gran: Granularity,
    ppb: u32,
    mut passes: Vec<Box<dyn Pass + '_>>,
    progress: &mut dyn FnMut(u64),
) -> Result<Vec<Result<Metrics, SimError>>, SimError> {
    let block_ids = passes.iter().any(|p| p.block_aware());
    let mut done = vec![0u64; passes.len()];
    let pages = read_stream(reader, gran, ppb, block_ids, |events, pages, blocks| {
        let mut running = false;
        for (i, p) in passes.iter_mut().enumerate() {
            let stopped = p.feed(events, pages, blocks, &mut |n| {
                done[i] = n;
                progress(done.iter().sum());
            });
            running |= !stopped;
        }
        Ok(!running)
    })?;
    progress(passes.iter().map(|p| p.index()).sum());
    Ok(passes.into_iter().map(|p| p.finish(&pages)).collect())
}

/// A streamed run's allocation of `bytes` for `what`, refused, with `pages` distinct
/// pages seen so far.
#[cold]
fn out_of_memory(bytes: u64, what: &'static str, pages: usize) -> SimError {
    SimError::StreamOutOfMemory {
        bytes,
        what,
        pages: pages as u64,
    }
}

/// The error a [`Policy::FALLIBLE`] policy reports at the end of the run (work it
/// deferred, done now), if any.
fn policy_end<P: Policy>(policy: &mut P) -> Result<(), SimError> {
    match P::FALLIBLE.then(|| policy.error(true)).flatten() {
        Some(e) => Err(SimError::Policy(e)),
        None => Ok(()),
    }
}

/// The error of a run its policy ([`Policy::FALLIBLE`]) or its after-cache sink
/// ([`AfterSink::failed`]) stopped.
#[cold]
fn stopped<A: AfterSink>(run: &mut Run, after: &mut A) -> SimError {
    if let Some(e) = run.failed.take() {
        return SimError::Policy(e);
    }
    match after.finish() {
        Err(e) => e.into(),
        Ok(()) => SimError::Invalid("the after-cache sink failed without saying why".into()),
    }
}

/// Make the policy's arrays hold `page` (and `block` for block-aware policies), as
/// a stream reveals new ones.
///
/// [`Policy::reserve`] cannot fail (its arrays grow with `resize`), so before it runs
/// the room is asked for ([`wafer_trace::alloc::room_for`]): [`POLICY_BYTES_PER_ID`]
/// bytes of address space per page and block id, never touched. When the system
/// refuses it, the run stops with [`SimError::StreamOutOfMemory`] rather than
/// aborting in the policy's growth. Rare: the sizes double.
#[inline(always)]
fn ensure<P: Policy>(
    policy: &mut P,
    pages: &mut u32,
    blocks: &mut u32,
    page: u32,
    block: u32,
) -> Result<(), SimError> {
    if page >= *pages || (P::BLOCK_AWARE && block >= *blocks) {
        let new_pages = grow(*pages, page);
        let new_blocks = if P::BLOCK_AWARE {
            grow(*blocks, block)
        } else {
            0
        };
        let ids = u64::from(new_pages) + u64::from(new_blocks);
        let bytes = ids * POLICY_BYTES_PER_ID;
        if !wafer_trace::alloc::room_for(bytes) {
            return Err(out_of_memory(
                bytes,
                "the policy's per-page state",
                page as usize + 1,
            ));
        }
        *pages = new_pages;
        *blocks = new_blocks;
        policy.reserve(*pages, *blocks);
    }
    Ok(())
}

/// An upper bound of the bytes a policy keeps per page (or block) id: the room a
/// streamed run asks for before its policy grows, and what a pass shared by several
/// cells counts per cell. The largest per-page state is about 40 bytes (CRAW's four
/// lists and flags), LRU's 12.
pub const POLICY_BYTES_PER_ID: u64 = 48;

/// Next reserved size: at least `id + 1`, doubling, at least 1024.
fn grow(have: u32, id: u32) -> u32 {
    if id < have {
        return have;
    }
    have.saturating_mul(2).max(id.saturating_add(1)).max(1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::after::VecSink;
    use crate::params::NoParams;
    use crate::policies::lru::Lru;
    use crate::policy::ParamError;
    use crate::registry::{run_policy, PolicySpec, POLICIES};
    use crate::testutil::{requests, VecReader};
    use wafer_trace::Request;

    /// The remembered block is `block_key` (and the place in it the page number mod
    /// ppb) on runs within a block, jumps, other devices, and a last block cut short
    /// at the top of a device's page space.
    #[test]
    fn block_memo_is_block_key() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let top = (1u64 << DEV_SHIFT) - 1;
        for ppb in [1u32, 3, 4, 7, 1024, 6144] {
            let mut m = BlockMemo::new(NonZeroU32::new(ppb).unwrap());
            let mut key = 0u64;
            for _ in 0..20_000 {
                key = match rng.gen_range(0..4) {
                    0 => wafer_trace::page_key(rng.gen_range(0..3), rng.gen_range(0..50_000)),
                    1 => wafer_trace::page_key(rng.gen_range(0..3), top - rng.gen_range(0..8)),
                    _ => key.wrapping_add(1),
                };
                let want = (block_key(key, ppb), (key_page(key) % u64::from(ppb)) as u32);
                assert_eq!(m.of(key), want, "key {key:#x}, ppb {ppb}");
            }
        }
    }

    fn cfg(cap: u32) -> SimConfig {
        SimConfig {
            capacity_pages: cap,
            pages_per_block: NonZeroU32::new(4).unwrap(),
            ..SimConfig::default()
        }
    }

    fn run_lru(reqs: &[Request], c: &SimConfig) -> (Metrics, Vec<(Op, IoKind, u64, u64)>) {
        let t = PreparedTrace::from_requests(c.granularity, reqs).unwrap();
        let mut sink = VecSink::default();
        let m =
            simulate::<Lru, _>(&NoParams, Input::Prepared(&t), c, &mut sink, &mut |_| {}).unwrap();
        let ops = sink
            .ops
            .iter()
            .map(|o| (o.op, o.kind, o.key, o.access))
            .collect();
        (m, ops)
    }

    /// Hand-worked LRU vector (C = 3, `W1 R2 R3 R4 W2 R1`) through the engine:
    /// write-backs come before the read of the missed page; a write miss reads nothing.
    #[test]
    fn lru_vector_emits_the_spec_io_sequence() {
        let (m, ops) = run_lru(&requests("W1 R2 R3 R4 W2 R1"), &cfg(3));
        use IoKind::*;
        use Op::*;
        assert_eq!(
            ops,
            [
                (Read, Miss, 2, 1),
                (Read, Miss, 3, 2),
                (Write, WriteBack, 1, 3),
                (Read, Miss, 4, 3),
                (Read, Miss, 1, 5),
            ]
        );
        assert_eq!((m.accesses, m.hits, m.misses), (6, 1, 5));
        assert_eq!((m.reads, m.read_hits, m.writes, m.write_hits), (4, 0, 2, 1));
        assert_eq!((m.page_reads, m.page_writes, m.write_ios), (4, 1, 1));
        assert_eq!((m.evictions, m.dirty_at_end, m.writes_at_end), (2, 1, 0));
        assert_eq!(m.io_time_ns, 4 * 25_000 + 200_000);
        assert_eq!(m.universe, 4);
        assert!((m.hit_ratio - 1.0 / 6.0).abs() < 1e-12);
        assert_eq!(m.write_hit_ratio, 0.5);
    }

    #[test]
    fn fetch_on_write_miss_reads_after_the_write_backs() {
        let c = SimConfig {
            write_miss_fetch: true,
            ..cfg(1)
        };
        let (m, ops) = run_lru(&requests("W1 W2"), &c);
        use IoKind::*;
        use Op::*;
        assert_eq!(
            ops,
            [
                (Read, Miss, 1, 0),
                (Write, WriteBack, 1, 1),
                (Read, Miss, 2, 1)
            ]
        );
        assert_eq!(m.page_reads, 2);
    }

    /// A sink that takes no reads gets the writes alone, and the run's counters are
    /// those of a sink that takes everything.
    #[test]
    fn a_sink_without_reads_gets_the_writes_and_the_same_counters() {
        struct WritesOnly(VecSink);
        impl AfterSink for WritesOnly {
            fn push(&mut self, op: &StorageOp) {
                self.0.push(op);
            }
            fn takes_reads(&self) -> bool {
                false
            }
        }
        let c = SimConfig {
            write_miss_fetch: true,
            ..cfg(3)
        };
        let reqs = requests("W1 R2 R3 R4 W2 R1 W5 R6 R2");
        let t = PreparedTrace::from_requests(c.granularity, &reqs).unwrap();
        let mut all = VecSink::default();
        let want = simulate::<Lru, _>(&NoParams, Input::Prepared(&t), &c, &mut all, &mut |_| {});
        let mut writes = WritesOnly(VecSink::default());
        let got = simulate::<Lru, _>(&NoParams, Input::Prepared(&t), &c, &mut writes, &mut |_| {});
        let (want, got) = (want.unwrap(), got.unwrap());
        assert_eq!(
            serde_json::to_value(&got).unwrap(),
            serde_json::to_value(&want).unwrap()
        );
        assert!(want.page_reads > 0);
        let only: Vec<_> = all.ops.iter().filter(|o| o.op == Op::Write).collect();
        assert!(!only.is_empty());
        assert_eq!(writes.0.ops.iter().collect::<Vec<_>>(), only);
    }

    /// Warm-up accesses change the cache but not the counters or the trace.
    #[test]
    fn warmup_is_not_counted() {
        let c = SimConfig {
            warmup: 3,
            ..cfg(3)
        };
        let (m, ops) = run_lru(&requests("W1 R2 R3 R4 W2 R1"), &c);
        assert_eq!(m.warmup_accesses, 3);
        assert_eq!(
            (m.accesses, m.hits, m.page_reads, m.page_writes),
            (3, 1, 2, 1)
        );
        assert_eq!(ops[0], (Op::Write, IoKind::WriteBack, 1, 3));
        assert_eq!(ops.len(), 3);
    }

    #[test]
    fn trims_invalidate_and_pass_through() {
        let mut reqs = requests("W1 R2 R1 R1");
        reqs[2].op = Op::Trim;
        let (m, ops) = run_lru(&reqs, &cfg(3));
        // The trim drops dirty page 1 without I/O; the next R1 misses.
        assert_eq!(
            ops,
            [
                (Op::Read, IoKind::Miss, 2, 1),
                (Op::Trim, IoKind::Trim, 1, 2),
                (Op::Read, IoKind::Miss, 1, 2),
            ]
        );
        assert_eq!(
            (m.accesses, m.hits, m.trims, m.trimmed_resident),
            (3, 0, 1, 1)
        );
        assert_eq!((m.page_writes, m.dirty_at_end), (0, 0));
    }

    #[test]
    fn flush_at_end_writes_ascending_and_apart() {
        let c = SimConfig {
            flush_at_end: true,
            ..cfg(4)
        };
        let (m, ops) = run_lru(&requests("W5 W3 W4 R1 W9"), &c);
        let flushed: Vec<u64> = ops
            .iter()
            .filter(|o| o.1 == IoKind::Flush)
            .map(|o| o.2)
            .collect();
        assert_eq!(flushed, [3, 4, 9]);
        assert_eq!(m.page_writes, 1); // 5 was evicted by W9
        assert_eq!(
            (m.dirty_at_end, m.writes_at_end, m.write_ios_at_end),
            (3, 3, 2)
        );
        assert_eq!(m.io_time_ns, 25_000 + 200_000);
    }

    /// Bursts as `docs/cache.md` ("Metrics") defines them after Fig. 5 of paper 000
    /// (TS-CLOCK, Kang, Min, Eom, IEEE MASCOTS 2014): runs are taken over the
    /// write-back stream; reads between write-backs to one block end only the strict
    /// variant's runs.
    #[test]
    fn block_utilization_of_both_variants() {
        let (m, _) = run_lru(&requests("W0 W1 W2 W3 R8 R9 R10 R11 R12"), &cfg(4));
        let bu = &m.block_utilization;
        assert_eq!(bu.write_stream.histogram, [(4, 1)]);
        assert_eq!(bu.write_stream.mean_utilization, 1.0);
        assert_eq!(bu.strict.histogram, [(1, 4)]);
        assert_eq!(bu.strict.mean_utilization, 0.25);
        assert_eq!(m.write_ios, 4);
    }

    /// A toy block-level policy: evicts every resident page of the oldest page's block
    /// in one group, dirty pages as write-backs, clean ones as padding writes, and pads
    /// the block's missing pages with a read and a write.
    #[derive(Debug)]
    struct BlockToy {
        cap: u32,
        pages: Vec<(u32, u32, bool, u64)>,
    }

    impl Policy for BlockToy {
        type Params = NoParams;
        const NAME: &'static str = "block-toy";
        const SUMMARY: &'static str = "test";
        const CITATION: &'static str = "test";
        const BLOCK_AWARE: bool = true;
        fn new(cap: u32, _: &NoParams, _: &PolicyCtx) -> Result<Self, ParamError> {
            Ok(BlockToy { cap, pages: vec![] })
        }
        fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
            if let Some(e) = self.pages.iter_mut().find(|e| e.0 == a.page) {
                e.2 |= a.op == Op::Write;
                return true;
            }
            if self.pages.len() as u32 == self.cap {
                let blk = self.pages[0].1;
                let mut victims: Vec<_> =
                    self.pages.iter().filter(|e| e.1 == blk).copied().collect();
                victims.sort_by_key(|e| e.3);
                self.pages.retain(|e| e.1 != blk);
                io.begin_group();
                io.pad_read(victims[0].3);
                for (p, _, d, k) in victims {
                    if d {
                        io.write_back(p);
                    } else {
                        io.pad_write(k);
                    }
                }
                io.end_group();
            }
            self.pages.push((a.page, a.block, a.op == Op::Write, a.key));
            false
        }
        fn reserve(&mut self, _: u32, _: u32) {}
        fn len(&self) -> u32 {
            self.pages.len() as u32
        }
        fn capacity(&self) -> u32 {
            self.cap
        }
        fn dirty_pages(&self, out: &mut Vec<u32>) {
            out.extend(self.pages.iter().filter(|e| e.2).map(|e| e.0));
        }
        fn invalidate(&mut self, page: u32) -> bool {
            let n = self.pages.len();
            self.pages.retain(|e| e.0 != page);
            n != self.pages.len()
        }
        fn series_names(&self) -> &'static [&'static str] {
            &["resident"]
        }
        fn sample(&self, out: &mut Vec<f64>) {
            out.push(self.pages.len() as f64);
        }
    }

    #[test]
    fn groups_are_bursts_and_merge_into_one_io() {
        // Pages 4..7 are block 1 (ppb 4); dense ids follow first use: 5->0, 4->1, 6->2.
        let reqs = requests("W5 W4 R6 W8");
        let c = SimConfig {
            series_every: 2,
            ..cfg(3)
        };
        let mut reader = VecReader::new(reqs.clone(), 2);
        let mut sink = VecSink::default();
        let m = simulate::<BlockToy, _>(
            &NoParams,
            Input::Stream(&mut reader),
            &c,
            &mut sink,
            &mut |_| {},
        )
        .unwrap();
        let got: Vec<_> = sink.ops.iter().map(|o| (o.kind, o.key, o.group)).collect();
        use IoKind::*;
        assert_eq!(
            got,
            [
                (Miss, 6, 0),
                (PadRead, 4, 1),
                (WriteBack, 4, 1),
                (WriteBack, 5, 1),
                (PadWrite, 6, 1),
            ]
        );
        assert_eq!(
            (m.groups, m.pad_reads, m.pad_writes, m.page_writes),
            (1, 1, 1, 2)
        );
        assert_eq!(m.write_ios, 1);
        assert_eq!(m.evictions, 2);
        assert_eq!(m.block_utilization.write_stream.histogram, [(3, 1)]);
        assert_eq!(m.block_utilization.strict.histogram, [(3, 1)]);
        assert_eq!(m.io_time_ns, 2 * 25_000 + 3 * 200_000);
        let series = m.series.as_ref().expect("sampled");
        assert_eq!(series.names, ["resident"]);
        assert_eq!(series.at, [2, 4]);
        assert_eq!(series.values, [vec![2.0], vec![1.0]]);
        // The prepared path agrees.
        let t = PreparedTrace::from_requests(c.granularity, &reqs).unwrap();
        let mut sink2 = VecSink::default();
        let m2 =
            simulate::<BlockToy, _>(&NoParams, Input::Prepared(&t), &c, &mut sink2, &mut |_| {})
                .unwrap();
        assert_eq!(m, m2);
        assert_eq!(sink.ops, sink2.ops);
    }

    /// Streaming (odd batch size, growing arrays, several chunks of events and a
    /// request larger than a chunk) and prepared runs agree for every registered
    /// policy, with a trim, warm-up and flush-at-end in play.
    #[test]
    fn stream_and_prepared_agree_for_every_policy() {
        let mut reqs = Vec::new();
        let mut x = 12345u64;
        for i in 0..20_000u64 {
            if i == 9_000 {
                let len = 4096 * (STREAM_CHUNK as u32 + 1000);
                reqs.push(Request {
                    time_ns: i,
                    offset: 1 << 30,
                    len,
                    dev: 0,
                    op: Op::Write,
                });
            }
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let page = (x >> 33) % 2500;
            let op = match (x >> 20) % 10 {
                0..=5 => Op::Read,
                6..=8 => Op::Write,
                _ => Op::Trim,
            };
            reqs.push(Request {
                time_ns: i,
                offset: page * 4096,
                len: 4096 * (1 + ((x >> 40) % 3) as u32),
                dev: (x >> 50) as u32 % 2,
                op,
            });
        }
        let c = SimConfig {
            warmup: 100,
            flush_at_end: true,
            write_miss_fetch: true,
            ..cfg(300)
        };
        let t = PreparedTrace::from_requests(c.granularity, &reqs).unwrap();
        for info in POLICIES {
            let spec = PolicySpec::parse(info.name).unwrap();
            let mut a = VecSink::default();
            let mut b = VecSink::default();
            let m1 = run_policy(&spec, Input::Prepared(&t), &c, &mut a, &mut |_| {}).unwrap();
            let mut r = VecReader::new(reqs.clone(), 7);
            let m2 = run_policy(&spec, Input::Stream(&mut r), &c, &mut b, &mut |_| {}).unwrap();
            assert_eq!(m1, m2, "{}", info.name);
            assert_eq!(a.ops, b.ops, "{}", info.name);
            assert_eq!(
                m1.accesses + m1.warmup_accesses,
                t.accesses(),
                "{}",
                info.name
            );
        }
    }

    /// A sink that fails (as a full disk would) at its 100th operation.
    #[derive(Default)]
    struct FullDisk {
        pushed: u64,
        last_access: u64,
    }

    impl AfterSink for FullDisk {
        fn push(&mut self, op: &StorageOp) {
            self.pushed += 1;
            self.last_access = op.access;
        }
        fn failed(&self) -> bool {
            self.pushed >= 100
        }
        fn finish(&mut self) -> Result<(), crate::after::AfterError> {
            Err(wafer_trace::Error::Invalid("disk full".into()).into())
        }
    }

    /// A failed sink stops the run at the next progress report (prepared and
    /// streamed), and the run returns the sink's error.
    #[test]
    fn a_failed_sink_stops_the_run_early() {
        let n = 8 * PROGRESS_EVERY;
        let reqs: Vec<Request> = (0..n)
            .map(|i| Request {
                time_ns: i,
                offset: (i % 5000) * 4096,
                len: 4096,
                dev: 0,
                op: Op::Read,
            })
            .collect();
        let c = cfg(10);
        let t = PreparedTrace::from_requests(c.granularity, &reqs).unwrap();
        let mut s = FullDisk::default();
        let e = simulate::<Lru, _>(&NoParams, Input::Prepared(&t), &c, &mut s, &mut |_| {});
        assert_eq!(e.unwrap_err().to_string(), "disk full");
        assert!(s.last_access < PROGRESS_EVERY, "{}", s.last_access);
        let mut s = FullDisk::default();
        let mut r = VecReader::new(reqs, 7);
        let e = simulate::<Lru, _>(&NoParams, Input::Stream(&mut r), &c, &mut s, &mut |_| {});
        assert_eq!(e.unwrap_err().to_string(), "disk full");
        assert!(s.last_access < PROGRESS_EVERY, "{}", s.last_access);
    }

    #[test]
    fn zero_capacity_and_granularity_mismatch_are_errors() {
        let t = PreparedTrace::from_requests(Granularity::Record, &requests("R1")).unwrap();
        let mut s = crate::after::NullSink;
        let e = simulate::<Lru, _>(&NoParams, Input::Prepared(&t), &cfg(0), &mut s, &mut |_| {});
        assert!(e.unwrap_err().to_string().contains("at least one page"));
        let e = simulate::<Lru, _>(&NoParams, Input::Prepared(&t), &cfg(2), &mut s, &mut |_| {});
        assert!(e.unwrap_err().to_string().contains("prepared trace"));
    }
}
