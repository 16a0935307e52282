//! A trace decoded and densified once, shared read-only by many simulation cells.
//!
//! An experiment runs many policies at many sizes over one trace. Decoding, page
//! expansion and densifying are done once here; each cell then streams over flat
//! arrays: per event a dense page id (`u32`), an op and the index of its request,
//! and per request its timestamp. Trims are kept as events in place, so they reach
//! every cell at the right moment. Derived arrays that only some policies need are
//! computed on first use and cached: the dense block id of every page for a given
//! pages-per-block (block-aware policies), and the next-use index of every access
//! (offline policies, one backward pass).
//!
//! Memory: 9 bytes per event + 8 per request + 8 per distinct page, plus 4 per page per
//! pages-per-block asked for and 4 per access once next-use is computed.
//!
//! Kept on disk ([`mod@file`], `TRACE.wprep`), a prepared trace is mapped and used in
//! place by later runs instead of being prepared again.
//!
//! Limits: fewer than 2^32 - 1 events and requests (a u32 index each); larger traces
//! must be streamed.

use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, OnceLock};

pub mod file;
mod words;

use words::Words;

use wafer_trace::block_key;
use wafer_trace::{Densifier, Granularity, Op, Request, RequestReader};

use crate::error::SimError;

/// Dense block ids of every dense page id for one pages-per-block value.
#[derive(Debug)]
pub struct BlockMap {
    /// Pages per block it was computed for.
    pub pages_per_block: u32,
    /// Dense block id per dense page id.
    pub of_page: Vec<u32>,
    /// Number of distinct blocks.
    pub blocks: u32,
}

/// A decoded, densified trace (see the module docs).
#[derive(Debug)]
pub struct PreparedTrace {
    granularity: Granularity,
    pages: Words<u32>,
    ops: Vec<Op>,
    req: Words<u32>,
    times: Words<u64>,
    keys: Words<u64>,
    accesses: u64,
    blocks: Mutex<Vec<Arc<BlockMap>>>,
    next_use: OnceLock<Arc<Vec<u32>>>,
}

/// The arrays of a [`PreparedTrace`] while they grow.
struct Growing {
    granularity: Granularity,
    pages: Vec<u32>,
    ops: Vec<Op>,
    req: Vec<u32>,
    times: Vec<u64>,
    keys: Vec<u64>,
    accesses: u64,
}

/// Accumulates requests into a [`PreparedTrace`].
struct Builder {
    t: Growing,
    dens: Densifier,
    /// Page keys of the batch being added, in order.
    batch_keys: Vec<u64>,
    /// Bytes the trace may take ([`prepared_bytes`]).
    limit: u64,
}

/// Bytes a trace of `events` events, `requests` requests and `pages` distinct pages
/// takes while it is prepared: its arrays (9 bytes per event, 8 per request, 8 per
/// distinct page) and the densifier's table. A lower bound: arrays that grow by
/// doubling may hold up to twice their length for a while.
pub fn prepared_bytes(events: u64, requests: u64, pages: u64) -> u64 {
    events
        .saturating_mul(9)
        .saturating_add(requests.saturating_mul(8))
        .saturating_add(pages.saturating_mul(8))
        .saturating_add(Densifier::bytes_for(
            usize::try_from(pages).unwrap_or(usize::MAX),
        ))
}

/// Grow `v` by `additional` (amortised, as `push` would), with a failed allocation
/// an error: the bytes asked for.
fn grow<T>(v: &mut Vec<T>, additional: usize) -> Result<(), SimError> {
    wafer_trace::alloc::fallibly(|| v.try_reserve(additional)).map_err(|_| {
        let want = v.len().saturating_add(additional).max(2 * v.capacity());
        SimError::OutOfMemory((want as u64).saturating_mul(std::mem::size_of::<T>() as u64))
    })
}

/// How many keys ahead the densifier's slot is prefetched.
const DENSIFY_AHEAD: usize = 16;

/// Keys expanded before they are densified: enough for the prefetches to overlap,
/// few enough that the distinct pages counted lag little behind the events.
const DENSIFY_BATCH: usize = 1 << 16;

impl Builder {
    /// A builder within `limit` bytes for a trace of about `expected` distinct keys
    /// (0: not known), its densifier sized for them when that fits the limit.
    fn new(granularity: Granularity, limit: u64, expected: u64) -> Self {
        let table = Densifier::bytes_for(usize::try_from(expected).unwrap_or(usize::MAX));
        Builder {
            t: Growing {
                granularity,
                pages: Vec::new(),
                ops: Vec::new(),
                req: Vec::new(),
                times: Vec::new(),
                keys: Vec::new(),
                accesses: 0,
            },
            dens: if table <= limit {
                Densifier::expecting(expected)
            } else {
                Densifier::new()
            },
            batch_keys: Vec::new(),
            limit,
        }
    }

    /// Refuse to grow to `events` events and `requests` requests, of which the keys
    /// of `pending` events are not densified yet (each may be a new page), when that
    /// takes more than the limit.
    fn check(&self, events: u64, requests: u64, pending: u64) -> Result<(), SimError> {
        let pages = self.dens.len() as u64 + pending;
        let needed = prepared_bytes(events, requests, pages).saturating_add(pending * 8);
        if needed > self.limit {
            return Err(SimError::OverMemory {
                needed,
                limit: self.limit,
                events,
                pages,
            });
        }
        Ok(())
    }

    /// Add a batch of requests: expand them into page keys, densifying the keys
    /// every [`DENSIFY_BATCH`] of them with the densifier's slot prefetched
    /// `DENSIFY_AHEAD` keys ahead, so the cache misses of the lookups overlap.
    ///
    /// Every array grows fallibly and within the limit, checked before a request is
    /// expanded: a request of a few bytes on disk can stand for millions of pages.
    fn push_batch(&mut self, batch: &[Request]) -> Result<(), SimError> {
        for r in batch {
            let t = &self.t;
            let ri = u32::try_from(t.times.len())
                .ok()
                .filter(|&i| i != u32::MAX)
                .ok_or(SimError::TooLarge("requests"))?;
            let n = t.granularity.count(r);
            let pending = self.batch_keys.len() as u64 + n;
            let events = t.pages.len() as u64 + pending;
            if events >= u64::from(u32::MAX) {
                return Err(SimError::TooLarge("page accesses"));
            }
            self.check(events, t.times.len() as u64 + 1, pending)?;
            let k = n as usize;
            let (t, keys) = (&mut self.t, &mut self.batch_keys);
            grow(&mut t.times, 1)?;
            grow(keys, k)?;
            grow(&mut t.ops, k)?;
            grow(&mut t.req, k)?;
            t.times.push(r.time_ns);
            let (ops, req) = (&mut t.ops, &mut t.req);
            t.granularity.for_each_key(r, |key| {
                keys.push(key);
                ops.push(r.op);
                req.push(ri);
            });
            if r.op != Op::Trim {
                t.accesses += n;
            }
            if self.batch_keys.len() >= DENSIFY_BATCH {
                self.densify()?;
            }
        }
        self.densify()
    }

    /// Densify the keys expanded so far.
    fn densify(&mut self) -> Result<(), SimError> {
        let (t, keys) = (&mut self.t, &self.batch_keys);
        grow(&mut t.pages, keys.len())?;
        for (i, &key) in keys.iter().enumerate() {
            if let Some(&ahead) = keys.get(i + DENSIFY_AHEAD) {
                self.dens.prefetch(ahead);
            }
            let id = self.dens.try_id(key).map_err(SimError::OutOfMemory)?;
            if id as usize == t.keys.len() {
                grow(&mut t.keys, 1)?;
                t.keys.push(key);
            }
            t.pages.push(id);
        }
        self.batch_keys.clear();
        Ok(())
    }

    fn finish(self) -> PreparedTrace {
        let mut t = self.t;
        t.ops.shrink_to_fit();
        PreparedTrace {
            granularity: t.granularity,
            pages: owned(t.pages),
            ops: t.ops,
            req: owned(t.req),
            times: owned(t.times),
            keys: owned(t.keys),
            accesses: t.accesses,
            blocks: Mutex::new(Vec::new()),
            next_use: OnceLock::new(),
        }
    }
}

/// `v`, without spare capacity, as an owned array.
fn owned<T>(mut v: Vec<T>) -> Words<T> {
    v.shrink_to_fit();
    Words::Owned(v)
}

impl PreparedTrace {
    /// Read every request of `reader` and prepare it; `progress` is called with the
    /// number of requests read so far after each batch.
    pub fn read(
        granularity: Granularity,
        reader: &mut dyn RequestReader,
        progress: &mut dyn FnMut(u64),
    ) -> Result<PreparedTrace, SimError> {
        Self::read_within(granularity, reader, progress, u64::MAX)
    }

    /// [`PreparedTrace::read`], refusing ([`SimError::OverMemory`]) once the trace
    /// would take more than `limit` bytes ([`prepared_bytes`]).
    pub fn read_within(
        granularity: Granularity,
        reader: &mut dyn RequestReader,
        progress: &mut dyn FnMut(u64),
        limit: u64,
    ) -> Result<PreparedTrace, SimError> {
        let mut b = Builder::new(granularity, limit, reader.expected_keys(granularity));
        let mut batch = Vec::with_capacity(wafer_trace::reader::BATCH);
        let mut n = 0u64;
        while reader.read_batch(&mut batch)? {
            b.push_batch(&batch)?;
            n += batch.len() as u64;
            progress(n);
        }
        Ok(b.finish())
    }

    /// Prepare requests held in memory.
    pub fn from_requests<'a>(
        granularity: Granularity,
        requests: impl IntoIterator<Item = &'a Request>,
    ) -> Result<PreparedTrace, SimError> {
        let mut b = Builder::new(granularity, u64::MAX, 0);
        let requests: Vec<Request> = requests.into_iter().copied().collect();
        for chunk in requests.chunks(wafer_trace::reader::BATCH) {
            b.push_batch(chunk)?;
        }
        Ok(b.finish())
    }

    /// How requests were expanded.
    pub fn granularity(&self) -> Granularity {
        self.granularity
    }

    /// Page accesses (reads and writes; trims excluded).
    pub fn accesses(&self) -> u64 {
        self.accesses
    }

    /// Events: page accesses plus trimmed pages.
    pub fn events(&self) -> usize {
        self.pages.len()
    }

    /// Requests read.
    pub fn requests(&self) -> usize {
        self.times.len()
    }

    /// Distinct pages (the footprint), in dense ids `0..universe`.
    pub fn universe(&self) -> u32 {
        self.keys.len() as u32
    }

    /// Dense page id of every event.
    pub fn pages(&self) -> &[u32] {
        &self.pages
    }

    /// Op of every event.
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// Request index of every event.
    pub fn request_index(&self) -> &[u32] {
        &self.req
    }

    /// Timestamp of every request.
    pub fn times(&self) -> &[u64] {
        &self.times
    }

    /// Page key of every dense page id.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Dense block ids for `pages_per_block`, computed on first use and cached.
    pub fn block_map(&self, pages_per_block: NonZeroU32) -> Arc<BlockMap> {
        let ppb = pages_per_block.get();
        let mut cache = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = cache.iter().find(|m| m.pages_per_block == ppb) {
            return Arc::clone(m);
        }
        let mut dens = Densifier::new();
        let of_page: Vec<u32> = self
            .keys
            .iter()
            .map(|&k| dens.id(block_key(k, ppb)))
            .collect();
        let m = Arc::new(BlockMap {
            pages_per_block: ppb,
            of_page,
            blocks: dens.len() as u32,
        });
        cache.push(Arc::clone(&m));
        m
    }

    /// For every access (trims skipped), the index of the next access to the same
    /// page, `u32::MAX` if none. One backward pass, cached.
    pub fn next_use(&self) -> Arc<Vec<u32>> {
        Arc::clone(self.next_use.get_or_init(|| {
            let n = self.accesses as usize;
            let mut next = vec![u32::MAX; n];
            let mut last = vec![u32::MAX; self.keys.len()];
            let mut i = n;
            for (&p, &op) in self.pages.iter().zip(&self.ops).rev() {
                if op == Op::Trim {
                    continue;
                }
                i -= 1;
                next[i] = last[p as usize];
                last[p as usize] = i as u32;
            }
            Arc::new(next)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(op: Op, page: u64, pages: u32) -> Request {
        Request {
            time_ns: page * 10,
            offset: page * 4096,
            len: pages * 4096,
            dev: 0,
            op,
        }
    }

    #[test]
    fn expands_densifies_and_indexes_requests() {
        let reqs = [
            req(Op::Write, 100, 2),
            req(Op::Read, 7, 1),
            req(Op::Trim, 101, 1),
            req(Op::Read, 100, 1),
        ];
        let t = PreparedTrace::from_requests(Granularity::default(), &reqs).unwrap();
        assert_eq!(t.pages(), [0, 1, 2, 1, 0]);
        assert_eq!(t.keys(), [100, 101, 7]);
        assert_eq!(t.request_index(), [0, 0, 1, 2, 3]);
        assert_eq!(t.accesses(), 4);
        assert_eq!(t.events(), 5);
        assert_eq!(t.universe(), 3);
        assert_eq!(*t.next_use(), vec![3, u32::MAX, u32::MAX, u32::MAX]);
        let b = t.block_map(NonZeroU32::new(4).unwrap());
        // pages 100, 101 -> block 25; page 7 -> block 1
        assert_eq!(b.of_page, [0, 0, 1]);
        assert_eq!(b.blocks, 2);
        assert!(Arc::ptr_eq(&b, &t.block_map(NonZeroU32::new(4).unwrap())));
    }
}
