//! FAB: flash-aware buffer management that evicts the block with the most cached pages.
//!
//! Source: H. Jo, J.-U. Kang, S.-Y. Park, J.-S. Kim, J. Lee, "FAB: flash-aware buffer
//! management policy for portable media players", IEEE Trans. Consumer Electronics
//! 52(2), 2006, with the resolution below.
//!
//! Pages are grouped by erase block; the groups form a block-level LRU list. Any hit
//! moves the page's group to the MRU end (a write makes the page dirty). A miss on a
//! full cache evicts the group with the **largest number of pages**, the LRU one among
//! equals (paper 002, H. Lee, H. Bahn, K. G. Shin, JCSE 8(3), 2014, Sec. II: "the LRU
//! order is used as a tie-breaker"), then inserts the page into its group and makes
//! that group MRU. The whole victim group leaves: dirty pages are written in ascending
//! page order as one eviction group, clean pages are dropped.
//!
//! Resolved ambiguity: what the count counts.
//! * `count = all` (default): every resident page, as in the original FAB, which caches
//!   reads and writes in one buffer ("largest number of buffers", paper 002).
//! * `count = dirty`: dirty pages only, as paper 001 (Kang, Min, Eom, IEICE Trans. Inf.
//!   & Syst. E97-D(9), 2014, Sec. 1) summarises FAB ("an erase block including the
//!   largest number of dirty pages"); groups without dirty pages go in LRU order. The
//!   whole group is still evicted, clean pages included.
//!
//! Beyond the paper: a trim lowers its group's count without touching recency; the
//! group is re-placed among the groups of its new count by its last-touch stamp, so
//! the LRU tie-break stays exact.
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `count` | `all` | what the victim rule counts: `all` resident pages or `dirty` ones |
//!
//! Representation: groups of [`BlockGroups`]; the block-level LRU list is kept as one
//! LRU list per count value ("bucket"): every change of a group's count coincides
//! with a move of the group to the MRU end, so within a bucket the groups stay in LRU
//! order and the victim is the LRU end of the highest non-empty bucket. O(1) per hit
//! and per insertion; an eviction costs O(k log k) for a group of k pages (the sort of
//! its write-backs) plus amortised O(1) to find the highest bucket.
//! Memory: 17 bytes per page (see [`BlockGroups`]) + 24 bytes per block.

use super::block_group::{BlockGroups, ABSENT};
use crate::list::{IndexList, Links, NIL};
use crate::policy::{Access, IoSink, ParamError, ParamSet, ParamSpec, Policy, PolicyCtx};
use wafer_trace::Op;

/// Parameters of [`Fab`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FabParams {
    /// Count only dirty pages when choosing the victim (`count = dirty`).
    pub count_dirty: bool,
}

impl ParamSet for FabParams {
    const SPECS: &'static [ParamSpec] = &[ParamSpec {
        name: "count",
        default: "all",
        doc: "victim = block with the most `all` resident pages (original FAB) or `dirty` pages (paper 001's reading)",
    }];

    fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        match key {
            "count" => {
                self.count_dirty = match value.trim() {
                    "all" => false,
                    "dirty" => true,
                    _ => return Err(format!("expected `all` or `dirty`, found `{value}`")),
                };
                Ok(())
            }
            _ => Err(format!("unknown parameter `{key}`")),
        }
    }
}

/// Flash-aware buffer management (largest block first).
#[derive(Debug)]
pub struct Fab {
    cap: u32,
    count_dirty: bool,
    pages: BlockGroups,
    /// Links of blocks in their bucket.
    blinks: Links,
    /// `buckets[k]`: groups whose count is `k`, MRU at the head.
    buckets: Vec<IndexList>,
    /// Bucket each block is in, `NIL` if it has no resident page.
    bucket_of: Vec<u32>,
    /// Per block: when it was last moved to the MRU end.
    stamp: Vec<u64>,
    now: u64,
    /// No bucket above this one is non-empty.
    max: usize,
}

impl Fab {
    #[inline]
    fn key_of(&self, block: u32) -> u32 {
        if self.count_dirty {
            self.pages.dirty_count(block)
        } else {
            self.pages.count(block)
        }
    }

    /// Put `block` at the MRU end of the bucket of its current count.
    #[inline]
    fn touch(&mut self, block: u32) {
        let b = block as usize;
        let k = self.key_of(block);
        let old = self.bucket_of[b];
        if old == k {
            self.buckets[k as usize].move_to_front(&mut self.blinks, block);
        } else {
            if old != NIL {
                self.buckets[old as usize].remove(&mut self.blinks, block);
            }
            self.buckets[k as usize].push_front(&mut self.blinks, block);
            self.bucket_of[b] = k;
            self.max = self.max.max(k as usize);
        }
        self.now += 1;
        self.stamp[b] = self.now;
    }

    fn victim(&mut self) -> u32 {
        while self.buckets[self.max].is_empty() {
            self.max -= 1;
        }
        self.buckets[self.max]
            .tail()
            .expect("a full cache has a non-empty bucket")
    }
}

impl Policy for Fab {
    type Params = FabParams;
    const NAME: &'static str = "fab";
    const SUMMARY: &'static str =
        "block-level LRU list; evicts the whole block with the most cached pages (LRU among equals)";
    const CITATION: &'static str = "H. Jo, J.-U. Kang, S.-Y. Park, J.-S. Kim, J. Lee, \"FAB: flash-aware buffer management policy for portable media players\", IEEE Trans. Consumer Electronics 52(2), 2006.";
    const FLASH_AWARE: bool = true;
    const BLOCK_AWARE: bool = true;

    fn new(capacity: u32, params: &FabParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let cap = capacity.max(1);
        let mut f = Fab {
            cap,
            count_dirty: params.count_dirty,
            pages: BlockGroups::default(),
            blinks: Links::default(),
            buckets: vec![IndexList::new(); cap as usize + 1],
            bucket_of: Vec::new(),
            stamp: Vec::new(),
            now: 0,
            max: 0,
        };
        f.reserve(ctx.universe_hint, 0);
        Ok(f)
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let write = a.op == Op::Write;
        if self.pages.state(a.page) != ABSENT {
            if write {
                self.pages.make_dirty(a.page);
            }
            self.touch(a.block);
            return true;
        }
        if self.pages.resident() == self.cap {
            let v = self.victim();
            self.pages.evict(v, io);
            self.buckets[self.max].remove(&mut self.blinks, v);
            self.bucket_of[v as usize] = NIL;
        }
        self.pages.insert(a.page, a.block, a.key, write);
        self.touch(a.block);
        false
    }

    fn reserve(&mut self, pages: u32, blocks: u32) {
        self.pages.reserve(pages, blocks);
        self.blinks.reserve(blocks);
        if blocks as usize > self.bucket_of.len() {
            self.bucket_of.resize(blocks as usize, NIL);
            self.stamp.resize(blocks as usize, 0);
        }
    }

    fn len(&self) -> u32 {
        self.pages.resident()
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        self.pages.dirty_pages(out);
    }

    fn invalidate(&mut self, page: u32) -> bool {
        if !self.pages.is_resident(page) {
            return false;
        }
        let b = self.pages.remove(page);
        let old = self.bucket_of[b as usize];
        self.buckets[old as usize].remove(&mut self.blinks, b);
        if self.pages.count(b) == 0 {
            self.bucket_of[b as usize] = NIL;
            return true;
        }
        // Re-place the group among those of its new count by recency.
        let k = self.key_of(b);
        let list = &mut self.buckets[k as usize];
        let s = self.stamp[b as usize];
        let at = list
            .iter(&self.blinks)
            .find(|&o| self.stamp[o as usize] < s);
        match at {
            Some(o) => list.insert_before(&mut self.blinks, o, b),
            None => list.push_back(&mut self.blinks, b),
        }
        self.bucket_of[b as usize] = k;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{run, Ev};

    /// Hand-worked vector 1 (ppb = 4, C = 4): the block with the most pages goes whole,
    /// clean page dropped and dirty page written as one group, in ascending page order.
    #[test]
    fn spec_vector_1_largest_block() {
        let o = run::<Fab>(4, &FabParams::default(), 4, "R0 W1 R4 W8 R9");
        assert_eq!(o.hits, [false; 5]);
        assert_eq!(o.events[4], [Ev::Begin, Ev::Ev(0), Ev::Wb(1), Ev::End]);
        assert_eq!(o.policy.pages.state(9), crate::policies::block_group::CLEAN);
        assert_eq!(o.policy.len(), 3);
    }

    /// Hand-worked vector 2 (C = 2): equal counts are broken by LRU block order.
    #[test]
    fn spec_vector_2_lru_tie_break() {
        let o = run::<Fab>(2, &FabParams::default(), 4, "R0 R4 R8 R0");
        assert_eq!(o.evictions(), [0, 4]);
    }

    /// `count = dirty`: a block of two clean pages loses to a block with one dirty
    /// page; with `count = all` it is the other way round.
    #[test]
    fn dirty_count_option() {
        let t = "R0 R1 W4 R8";
        let all = run::<Fab>(3, &FabParams::default(), 4, t);
        assert_eq!(all.evictions(), [0, 1]);
        let dirty = run::<Fab>(3, &FabParams { count_dirty: true }, 4, t);
        assert_eq!(dirty.events[3], [Ev::Begin, Ev::Wb(4), Ev::End]);
    }

    /// A hit refreshes the block: after `R0 R4 R0`, B1 is the LRU group of size 1.
    #[test]
    fn hit_moves_block_to_mru() {
        let o = run::<Fab>(2, &FabParams::default(), 4, "R0 R4 R0 R8");
        assert_eq!(o.evictions(), [4]);
    }

    /// A trim keeps the recency order among the groups of its new count.
    #[test]
    fn trim_keeps_lru_order() {
        let mut o = run::<Fab>(3, &FabParams::default(), 4, "R0 R1 R4");
        assert!(o.policy.invalidate(1));
        // B0 {0} (older) and B1 {4}: B0 is the LRU group among count 1.
        let mut rec = crate::testutil::Recorder::default();
        let a = |p: u32| Access {
            page: p,
            block: p / 4,
            key: u64::from(p),
            op: Op::Read,
            index: 0,
            next_use: u64::MAX,
        };
        o.policy.reserve(16, 4);
        o.policy.access(&a(8), &mut rec);
        o.policy.access(&a(12), &mut rec);
        assert_eq!(rec.events, [Ev::Begin, Ev::Ev(0), Ev::End]);
    }
}
