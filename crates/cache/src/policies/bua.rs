//! BUA-CLOCK: the block-utilization-aware buffer replacement scheme of paper 001.
//!
//! Source: D. H. Kang, C. Min, Y. I. Eom, "Block utilization-aware buffer replacement
//! scheme for mobile NAND flash storage", IEICE Trans. Information and Systems
//! E97-D(9), 2014 (paper 001, Sec. 2.2, Fig. 2), with the fixes below.
//!
//! The structure is TS-CLOCK's ([`super::ts_clock`]): a clock of all resident pages
//! with a reference count per page (the t-hand decrements it), a per-block list of the
//! block's dirty pages sorted by page number, and an s-hand that drains those lists in
//! order. When the t-hand stops on a page with count 0, a clean page is evicted at
//! once; a dirty one makes the s-hand walk the sorted lists (starting in the t-hand
//! page's block) to the first dirty page with count 0, which is written back alone.
//!
//! What paper 001 changes: the count of a dirty page comes from `zero[b]`, the number
//! of dirty resident pages of its block whose count is 0 ("block utilization is
//! calculated as the ratio of the number of dirty pages, whose reference count is
//! zero, in a block"), through the **inverse** mapping of the text (25/50/75/100 % ->
//! 4/3/2/1): `count = 5 − max(1, ceil(4·zero/ppb))`. A block whose cold dirty pages
//! are about to be flushed gives new dirty pages short lives so they join the flush.
//! Clean pages get count 1.
//!
//! Resolved ambiguities (wafer's fixes to Fig. 2 of paper 001):
//! * Mapping: the text's inverse mapping (default). `mapping = literal` reproduces
//!   Fig. 2's `ceil(4·zero/ppb)`, which gives count 0 to a page written into a block
//!   without cold dirty pages; such a page is counted in `zero` (the invariant
//!   "zero = dirty pages with count 0" is kept in both modes).
//! * (a) the inner s-hand loop returns the first page with count 0 (as TS-CLOCK line
//!   41-42); (b) the decrement, the `zero` update and the t-hand advance are inside
//!   the outer loop; (c) `zero` is incremented for the **t-hand page's** block and
//!   only for a dirty page.
//! * (d) `zero[b]` is decremented when a dirty page with count 0 is accessed (before
//!   its new count is computed, so it does not count itself) and when such a page is
//!   evicted or trimmed; (f) a new dirty page's count uses the current `zero[b]`.
//! * (e) a write hit on a clean page enters its block's sorted list (TS-CLOCK FIX-1).
//! * From TS-CLOCK (its module doc): block = page number div ppb; the s-hand persists
//!   across blocks and is reset only at the end of a sorted list; a dangling s-hand
//!   (its page evicted) becomes null; when the victim is not the t-hand page, the
//!   t-hand passes its page and the new page goes behind it; "last of the block" is
//!   the last entry of the block's sorted list.
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `mapping` | `text` | dirty-page count from `zero`: `text` (inverse) or `literal` (Fig. 2) |
//!
//! Block size: the run's pages per block (`--block`), 1024 (4 MiB) in paper 001.
//! Cost: a hit is O(1) except a clean-to-dirty write hit, and a miss of a dirty page,
//! which insert into the block's sorted list, a vector, by binary search (O(1) for
//! ascending writes; else O(log d) compares and a move of at most d entries, d = dirty
//! pages of the block). A linked list filled by a scan from its tail spent a quarter
//! of the run there; `bua_ref.rs` keeps that version for the differential test. Eviction is amortised
//! O(1) in t-hand steps (each clears a count some access set); the s-hand walk is
//! bounded by the lengths of two sorted lists.
//!
//! Representation, for speed: the t-hand's clock is a ring buffer of page ids (4
//! bytes per cached page) and each page's count, state and tombstone count share one
//! byte, so a t-hand step reads the ring in order and one byte per page (a linked
//! ring cost two random cache lines per step). A page that leaves from elsewhere than
//! the front (the s-hand's victim, a trim) stays in the ring as a tombstone, counted
//! in its byte, which the hand discards when it reaches it; the ring is compacted
//! when tombstones outnumber live pages (as `clock.rs`). Checked against the linked
//! version on random traces with trims (same events at every access) before it was
//! replaced.
//!
//! Memory: 13 bytes per page of the universe (key and block 12, state byte 1) + 4
//! bytes per cached page (ring, up to 2x with tombstones) + 16 bytes per dirty cached
//! page (sorted lists, up to 2x with vector growth) + 28 bytes per block.

use std::collections::VecDeque;

use crate::list::NIL;
use crate::params::choice;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use wafer_trace::Op;

crate::params! {
    /// Parameters of [`Bua`].
    pub struct BuaParams {
        /// Use Fig. 2's literal `ceil(4·zero/ppb)` instead of the text's inverse mapping.
        literal as "mapping": bool = false,
            shown "text",
            doc "dirty-page count from the block's cold dirty pages: `text` = 5 - max(1, ceil(4 zero/ppb)), `literal` = Fig. 2's ceil(4 zero/ppb)",
            parse |v| choice(v, &[("text", false), ("literal", true)]);
    }
}

/// `rs` byte: reference count (0..=4) in bits 0-2.
const REFC: u8 = 0x07;
/// `rs` byte: resident and clean.
const CLEAN: u8 = 0x08;
/// `rs` byte: resident and dirty.
const DIRTY: u8 = 0x10;
const STATE: u8 = CLEAN | DIRTY;
/// `rs` byte: one stale ring entry (tombstone) of this page; bits 5-7 count them.
const STALE_ONE: u8 = 0x20;
const STALE: u8 = 0xe0;

/// Block-utilization-aware CLOCK (paper 001).
#[derive(Debug)]
pub struct Bua {
    cap: u32,
    len: u32,
    ppb: u32,
    literal: bool,
    /// Clock of all resident pages; front = the t-hand's page. Pages that left from
    /// elsewhere than the front stay as tombstones (counted in their `rs` byte)
    /// until the hand reaches them, so the hand's sweep reads memory in order.
    ring: VecDeque<u32>,
    tombstones: u32,
    /// Per block: its dirty resident pages as (key, page), ascending key; found by
    /// binary search, contiguous for the s-hand's walk.
    sorted: Vec<Vec<(u64, u32)>>,
    /// Per block: dirty resident pages whose count is 0.
    zero: Vec<u32>,
    /// Per page: count, state and tombstones in one byte, so that a t-hand step
    /// touches the ring and one byte.
    rs: Vec<u8>,
    /// Per page: key and block, needed only when a page enters a sorted list or
    /// a dirty count changes.
    m: Vec<PageMeta>,
    s_hand: u32,
}

/// Per-page key and block of [`Bua`].
#[derive(Clone, Copy, Debug, Default)]
struct PageMeta {
    key: u64,
    block: u32,
}

impl Bua {
    #[inline]
    fn refc(&self, p: u32) -> u8 {
        self.rs[p as usize] & REFC
    }

    #[inline]
    fn state(&self, p: u32) -> u8 {
        self.rs[p as usize] & STATE
    }

    #[inline]
    fn set_refc(&mut self, p: u32, c: u8) {
        let r = &mut self.rs[p as usize];
        *r = (*r & !REFC) | c;
    }

    /// Count of a dirty page of a block with `zero` cold dirty pages.
    #[inline]
    fn dirty_count(&self, zero: u32) -> u8 {
        let q = (4 * u64::from(zero)).div_ceil(u64::from(self.ppb)).min(4) as u8;
        if self.literal {
            q
        } else {
            5 - q.max(1)
        }
    }

    /// Insert the dirty page `p` into its block's sorted list.
    #[inline]
    fn sorted_insert(&mut self, p: u32, b: u32) {
        let k = self.m[p as usize].key;
        let list = &mut self.sorted[b as usize];
        match list.last() {
            Some(&(last, _)) if last > k => {
                let at = list.partition_point(|e| e.0 < k);
                list.insert(at, (k, p));
            }
            _ => list.push((k, p)),
        }
    }

    /// Block and position of the dirty page `p` in its block's sorted list.
    #[inline]
    fn sorted_pos(&self, p: u32) -> (usize, usize) {
        let PageMeta { key, block } = self.m[p as usize];
        let at = self.sorted[block as usize]
            .binary_search_by_key(&key, |e| e.0)
            .expect("a dirty page is in its block's sorted list");
        (block as usize, at)
    }

    /// The live page under the t-hand (tombstones ahead of it discarded).
    #[inline]
    fn hand(&mut self) -> u32 {
        loop {
            let h = *self.ring.front().expect("a full cache has pages");
            let r = &mut self.rs[h as usize];
            if *r & STALE == 0 {
                return h;
            }
            *r -= STALE_ONE;
            self.tombstones -= 1;
            self.ring.pop_front();
        }
    }

    /// Leave a tombstone for the resident `p`, which leaves the ring from elsewhere
    /// than the front. A page's tombstones are always ahead of its live entry (a
    /// page re-enters behind everything), so counting them per page is enough.
    fn bury(&mut self, p: u32) {
        if self.rs[p as usize] & STALE == STALE {
            self.compact();
        }
        self.rs[p as usize] += STALE_ONE;
        self.tombstones += 1;
    }

    /// Remove every tombstone from the ring, keeping the order of live pages.
    #[cold]
    fn compact(&mut self) {
        let rs = &mut self.rs;
        self.ring.retain(|&p| {
            let r = &mut rs[p as usize];
            if *r & STALE != 0 {
                *r -= STALE_ONE;
                false
            } else {
                true
            }
        });
        self.tombstones = 0;
    }

    fn choose_victim(&mut self) -> u32 {
        loop {
            let h = self.hand();
            let c = self.refc(h);
            if c == 0 {
                if self.state(h) == CLEAN {
                    return h;
                }
                let hb = self.m[h as usize].block as usize;
                // The s-hand walks its block's list by index; past the end it goes
                // on at the start of the t-hand page's block.
                let (mut sb, mut i) = if self.s_hand == NIL {
                    (hb, 0)
                } else {
                    self.sorted_pos(self.s_hand)
                };
                loop {
                    let s = self.sorted[sb][i].1;
                    i += 1;
                    if i == self.sorted[sb].len() {
                        (sb, i) = (hb, 0);
                    }
                    if self.rs[s as usize] & REFC == 0 {
                        self.s_hand = self.sorted[sb][i].1;
                        return s;
                    }
                }
            }
            self.set_refc(h, c - 1);
            if c == 1 && self.state(h) == DIRTY {
                self.zero[self.m[h as usize].block as usize] += 1;
            }
            self.ring.pop_front();
            self.ring.push_back(h);
        }
    }

    fn evict<S: IoSink>(&mut self, v: u32, io: &mut S) {
        let h = self.hand();
        let vi = v as usize;
        if self.state(v) == DIRTY {
            io.write_back(v);
            let (b, at) = self.sorted_pos(v);
            self.sorted[b].remove(at);
            self.zero[b] -= 1;
        } else {
            io.drop_clean(v);
        }
        if self.s_hand == v {
            self.s_hand = NIL;
        }
        self.ring.pop_front();
        if v != h {
            self.bury(v);
            self.ring.push_back(h);
        }
        self.rs[vi] &= STALE;
        self.len -= 1;
    }
}

impl Policy for Bua {
    type Params = BuaParams;
    const NAME: &'static str = "bua";
    const ALIASES: &'static [&'static str] = &["bua-clock"];
    const SUMMARY: &'static str =
        "TS-CLOCK-like clock whose dirty pages live shorter in blocks with many cold dirty pages (paper 001)";
    const CITATION: &'static str = "D. H. Kang, C. Min, Y. I. Eom, \"Block utilization-aware buffer replacement scheme for mobile NAND flash storage\", IEICE Trans. Information and Systems E97-D(9), 2014.";
    const FLASH_AWARE: bool = true;
    const BLOCK_AWARE: bool = true;

    fn new(capacity: u32, params: &BuaParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let cap = capacity.max(1);
        let mut p = Bua {
            cap,
            len: 0,
            ppb: ctx.pages_per_block.get(),
            literal: params.literal,
            ring: VecDeque::with_capacity(cap.min(1 << 24) as usize),
            tombstones: 0,
            sorted: Vec::new(),
            zero: Vec::new(),
            rs: Vec::new(),
            m: Vec::new(),
            s_hand: NIL,
        };
        p.reserve(ctx.universe_hint, 0);
        Ok(p)
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let (p, b) = (a.page, a.block);
        let (pi, bi) = (p as usize, b as usize);
        let write = a.op == Op::Write;
        let before = self.state(p);
        let hit = before != 0;
        if !hit {
            if self.len == self.cap {
                let v = self.choose_victim();
                self.evict(v, io);
            }
            self.rs[pi] = (self.rs[pi] & STALE) | if write { DIRTY } else { CLEAN };
            self.m[pi] = PageMeta {
                key: a.key,
                block: b,
            };
            self.ring.push_back(p);
            self.len += 1;
            if write {
                self.sorted_insert(p, b);
            }
        } else if write && before == CLEAN {
            self.rs[pi] ^= CLEAN | DIRTY;
            self.sorted_insert(p, b);
        }
        if self.state(p) == CLEAN {
            self.set_refc(p, 1);
        } else {
            if before == DIRTY && self.refc(p) == 0 {
                self.zero[bi] -= 1;
            }
            let c = self.dirty_count(self.zero[bi]);
            self.set_refc(p, c);
            if c == 0 {
                self.zero[bi] += 1;
            }
        }
        if self.tombstones > self.len.max(8) {
            self.compact();
        }
        hit
    }

    fn reserve(&mut self, pages: u32, blocks: u32) {
        if pages as usize > self.m.len() {
            self.m.resize(pages as usize, PageMeta::default());
            self.rs.resize(pages as usize, 0);
        }
        if blocks as usize > self.sorted.len() {
            self.sorted.resize(blocks as usize, Vec::new());
            self.zero.resize(blocks as usize, 0);
        }
    }

    fn len(&self) -> u32 {
        self.len
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(
            self.rs
                .iter()
                .enumerate()
                .filter(|&(_, &r)| r & STATE == DIRTY)
                .map(|(p, _)| p as u32),
        );
    }

    fn invalidate(&mut self, page: u32) -> bool {
        let pi = page as usize;
        if self.rs.get(pi).map_or(true, |&r| r & STATE == 0) {
            return false;
        }
        if self.state(page) == DIRTY {
            let (b, at) = self.sorted_pos(page);
            self.sorted[b].remove(at);
            if self.refc(page) == 0 {
                self.zero[b] -= 1;
            }
        }
        if self.s_hand == page {
            self.s_hand = NIL;
        }
        self.bury(page);
        self.rs[pi] &= STALE;
        self.len -= 1;
        if self.tombstones > self.len.max(8) {
            self.compact();
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::bua::ReferenceBua;
    use crate::testutil::Recorder;
    use crate::testutil::{run, Ev};

    /// The live ring from the t-hand on, as (page, count).
    fn ring(p: &Bua) -> Vec<(u32, u8)> {
        let mut skip: Vec<u8> = p.rs.iter().map(|r| (r & STALE) / STALE_ONE).collect();
        p.ring
            .iter()
            .filter(|&&x| {
                let k = &mut skip[x as usize];
                let stale = *k > 0;
                *k = k.saturating_sub(1);
                !stale
            })
            .map(|&x| (x, p.refc(x)))
            .collect()
    }

    /// Hand-worked vector 1 (ppb = 4, C = 3): dirty pages of a block without cold dirty
    /// pages get count 4 (inverse mapping), so the clean page goes first: ev8 (TS-CLOCK
    /// would write back 1 here).
    #[test]
    fn spec_vector_1() {
        let o = run::<Bua>(3, &BuaParams::default(), 4, "W1 W2 R8 R9");
        assert_eq!(o.events[3], [Ev::Ev(8)]);
        assert_eq!(ring(&o.policy), [(1, 2), (2, 2), (9, 1)]);
    }

    /// Hand-worked vector 2: `zero` grows as the t-hand cools dirty pages, the
    /// s-hand writes back 1 alone, the new page's count comes from `zero` without
    /// itself, and a hit on a cold dirty page leaves `zero` before its count is set.
    #[test]
    fn spec_vector_2() {
        let o = run::<Bua>(3, &BuaParams::default(), 4, "W1 W2 R8 R9 R10 W3 W2");
        assert_eq!(o.events[4], [Ev::Ev(9)]);
        assert_eq!(o.events[5], [Ev::Wb(1)]);
        assert!(o.hits[6]);
        let p = &o.policy;
        assert_eq!(ring(p), [(2, 4), (10, 1), (3, 4)]);
        assert_eq!(p.zero[0], 0);
        let sorted: Vec<u32> = p.sorted[0].iter().map(|e| e.1).collect();
        assert_eq!(sorted, [2, 3]);
    }

    /// State after R10 of vector 2: both dirty pages are cold, zero0 = 2.
    #[test]
    fn spec_vector_2_zero_counter() {
        let o = run::<Bua>(3, &BuaParams::default(), 4, "W1 W2 R8 R9 R10");
        assert_eq!(ring(&o.policy), [(1, 0), (2, 0), (10, 1)]);
        assert_eq!(o.policy.zero[0], 2);
    }

    /// `mapping = literal` (Fig. 2's typo): a page written into a block without cold
    /// dirty pages gets count 0 and is the first victim.
    #[test]
    fn literal_mapping() {
        let p = BuaParams { literal: true };
        let o = run::<Bua>(2, &p, 4, "W1 R8 R9");
        assert_eq!(o.events[2], [Ev::Wb(1)]);
        let o = run::<Bua>(2, &BuaParams::default(), 4, "W1 R8 R9");
        assert_eq!(o.events[2], [Ev::Ev(8)]);
    }

    /// Clean-to-dirty write hit (fix (e)): the page enters its block's sorted list, so
    /// the s-hand can find it; the literal Fig. 2 would leave it out.
    #[test]
    fn clean_to_dirty_enters_sorted_list() {
        let o = run::<Bua>(3, &BuaParams::default(), 4, "R2 W0 W2");
        let p = &o.policy;
        let sorted: Vec<u32> = p.sorted[0].iter().map(|e| e.1).collect();
        assert_eq!(sorted, [0, 2]);
        assert_eq!(p.refc(2), 4);
    }

    /// Run both implementations on one op list (0,1 read; 2 write; 3 trim) and compare
    /// hits, reported events, occupancy and dirty pages after every step.
    fn check_against_reference(
        ops: &[(u8, u32)],
        cap: u32,
        ppb: u32,
        literal: bool,
    ) -> Result<(), String> {
        let ctx = PolicyCtx {
            pages_per_block: std::num::NonZeroU32::new(ppb).unwrap(),
            universe_hint: 4,
            ..PolicyCtx::default()
        };
        let p = BuaParams { literal };
        let mut fast = Bua::new(cap, &p, &ctx).unwrap();
        let mut slow = ReferenceBua::new(cap, &p, &ctx).unwrap();
        let top = ops.iter().map(|o| o.1 + 1).max().unwrap_or(1);
        fast.reserve(top, top / ppb + 1);
        slow.reserve(top, top / ppb + 1);
        for (i, &(kind, page)) in ops.iter().enumerate() {
            if kind == 3 {
                if fast.invalidate(page) != slow.invalidate(page) {
                    return Err(format!("step {i}: invalidate({page}) differs"));
                }
            } else {
                let a = Access {
                    page,
                    block: page / ppb,
                    key: u64::from(page),
                    op: if kind == 2 { Op::Write } else { Op::Read },
                    index: i as u64,
                    next_use: u64::MAX,
                };
                let (mut rf, mut rs) = (Recorder::default(), Recorder::default());
                let (hf, hs) = (fast.access(&a, &mut rf), slow.access(&a, &mut rs));
                if hf != hs || rf.events != rs.events {
                    return Err(format!(
                        "step {i} ({kind},{page}): hit {hf} vs {hs}, events {:?} vs {:?}",
                        rf.events, rs.events
                    ));
                }
            }
            let (mut df, mut ds) = (vec![], vec![]);
            fast.dirty_pages(&mut df);
            slow.dirty_pages(&mut ds);
            if fast.len() != slow.len() || df != ds {
                return Err(format!("step {i}: state differs"));
            }
        }
        Ok(())
    }

    /// The vector-backed sorted lists behave exactly like the linked ones, on random
    /// traces with reads, writes and trims, over capacities, block sizes and mappings.
    #[test]
    fn matches_the_linked_list_reference() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let ops = proptest::collection::vec((0u8..4, 0u32..48), 1..1500);
        TestRunner::new(Config::with_cases(300))
            .run(
                &(ops, 1u32..20, 1u32..10, any::<bool>()),
                |(ops, cap, ppb, literal)| {
                    check_against_reference(&ops, cap, ppb, literal).map_err(TestCaseError::fail)
                },
            )
            .unwrap();
    }
}
