//! TS-CLOCK: temporal and spatial locality aware CLOCK for NAND flash (paper 000).
//!
//! Source: D. H. Kang, C. Min, Y. I. Eom, "An Efficient Buffer Replacement Algorithm
//! for NAND Flash Storage Devices", IEEE MASCOTS 2014 (paper 000; a two-page version
//! is "TS-CLOCK: Temporal and Spatial Locality Aware Buffer Replacement Algorithm for
//! NAND Flash Storages", ACM SIGMETRICS 2014), Sec. III, the pseudo-code of Fig. 2
//! and the worked example of Fig. 3, with the fixes below (`docs/cache.md` sums them
//! up).
//!
//! Two hands. The **t-hand** is CLOCK's hand over a ring of all resident pages, but a
//! page carries a reference *count* instead of a bit: the t-hand decrements it (Fig. 2
//! line 45) and a page with count R survives R rotations. A clean page gets count 1
//! on every access (line 16-17); a dirty page gets `ceil(4 · non_zero / ppb)` (line
//! 21-22), where `non_zero[b]` counts the dirty resident pages of its block whose count
//! is not 0 — "the update likelihood of a block" (Sec. III). So clean pages go first,
//! and dirty pages of blocks with many warm dirty pages live longest. When the t-hand
//! stops on a page with count 0, a clean page is the victim (line 29-30); a dirty one
//! hands over to the **s-hand**, which walks per-block lists of dirty pages sorted by
//! page number and returns the first page with count 0 (line 31-43). Successive dirty
//! victims therefore come out of one block in ascending order: the "pseudo sequential
//! write patterns with high block utilization" of Sec. III.
//!
//! Resolved ambiguities and bugs of Fig. 2 (wafer's numbering; FIX-1 to FIX-4 name the
//! four departures from the literal pseudo-code, TS-1 to TS-4 the hand-worked vectors
//! of the tests below):
//! 1. Line 47 decrements `p.block.non_zero` for the *accessed* page `p`; it must be the
//!    **t-hand page's** block (FIX-3).
//! 2. Lines 46-47 also decrement for clean pages, which line 19-22 never counted: the
//!    decrement is for **dirty** t-hand pages only (FIX-3).
//! 3. A write hit on a clean page (clean → dirty) enters its block's sorted list and
//!    the counted set (FIX-1, FIX-2). The literal code leaves it out of every list, so
//!    the s-hand loop spins forever once the t-hand stops on it (vector TS-3).
//! 4. Block = page number div ppb (as everywhere in wafer; the Fig. 3 numbers 67 → 16,
//!    14 → 3 fix it).
//! 5. The s-hand persists across blocks: it is reset to the first page of the t-hand
//!    page's block only when null or after the last page of its list (line 31-38). In
//!    Fig. 3 E4 the t-hand selects 14 (block 3) yet 67 (block 16) is evicted.
//! 6. "The last of the block" is the last entry of the block's sorted list of dirty
//!    resident pages.
//! 7. The s-hand loop ends within |list of the s-hand's block| + |list of the t-hand
//!    page's block| steps (the t-hand page itself qualifies); this is asserted.
//! 8. A dirty victim is written back alone, at once; if the s-hand points at it, the
//!    s-hand becomes null (FIX-4, no dangling hand). `non_zero` is unchanged.
//! 9. / 10. The count formula follows the page's *status after* the access (line 16
//!    tests status, not the operation): a read hit on a dirty page gets the dirty
//!    formula.
//! 11. A missed page starts with count 0, so a new dirty page always passes line 20
//!     (`non_zero++`) and gets count >= 1.
//! 12. Only the accessed page's count is recomputed when `non_zero` changes.
//! 13. Fig. 3's "replaced by a new page, Page 31" means Page 53 (vector TS-4).
//!
//! Hand movement and insertion ("insert p into the position of t-hand", Fig. 2 line
//! 12): while the cache fills, new pages go behind the t-hand. When the victim is the
//! t-hand page, it leaves and the new page goes behind the hand, which is now on the
//! next page (Fig. 3 E2). When the s-hand picked another page, the victim leaves, the
//! t-hand passes the page it stopped on and the new page goes behind it (E3: "inserted
//! at the position of the t-hand and TS-CLOCK moves the t-hand one step forward"; E4
//! then has the t-hand select 14, past 67).
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `ppb` | the run's (`--block`) | pages per erase block for `non_zero`, the counts and the sorted lists (1024 = the 4 MiB blocks of the paper's microSD runs, 6144 = its 24 MiB SSD blocks, 4 in Fig. 3) |
//! | `levels` | 4 | count levels of a dirty page: `ceil(levels · non_zero / ppb)` (paper: 4 quartiles) |
//!
//! Cost: a hit is O(1) except a clean → dirty write hit, which (like a dirty miss)
//! inserts into its block's sorted list by binary search (O(log d) compares and a move
//! of at most d entries, d = dirty pages of the block, at most ppb). Eviction is
//! amortised O(1) in t-hand steps (each undoes part of a count some access set, counts
//! are at most `levels`); the s-hand walk is bounded as in 7. above. The clock is a
//! power-of-two ring buffer (`crate::ring`, a queue whose front is the hand); a page
//! leaving from inside it (an s-hand victim, a trim) leaves a tombstone, dropped when
//! it reaches the hand or by a compaction once tombstones outnumber resident pages. No
//! allocation per access once the ring, the lists and the block table have grown.
//!
//! What the hot path avoids, since each is a random read in a table of the whole
//! universe (`BENCHMARKS.md`, "Cache policies"): the page's key is asked for
//! ([`IoSink::key`], [`Policy::NEEDS_KEY`] false) only on its first miss, to number
//! its block (one hash lookup per distinct page) and keep its offset; a write-back's
//! key is the block's first key plus that offset; everything about a page (state,
//! count, tombstones, block, offset) is one 8-byte entry, so an access or a hand step
//! reads one cache line per page; hits on warm dirty pages touch no block state while
//! no block has more than `ppb / levels` warm dirty pages (their count is then 1, see
//! `crowded`); dirty counts come from a table instead of a division. What is left is
//! latency, hidden by prefetching: the engine announces the page of the access 8
//! ahead ([`Policy::prefetch`]), and both hands prefetch the pages `HAND_AHEAD`
//! entries ahead of them.
//! Memory: 8 bytes per page of the universe, 4 bytes per ring slot (slots = the
//! largest ring length rounded up to a power of two: 4 to 16 bytes per cached page
//! with tombstones), 8 bytes per dirty page (sorted-list entries, kept at each block's
//! high-water mark), about 52 bytes per block (list header, `non_zero`, first key,
//! hash entry).

use std::num::NonZeroU32;

use rustc_hash::FxHashMap;

use super::block_group::offset_in_block;
use crate::list::NIL;
use crate::policy::{parse_u32, Access, IoSink, ParamError, Policy, PolicyCtx};
use crate::ring::Ring;
use wafer_trace::block_key;
use wafer_trace::prefetch::prefetch;
use wafer_trace::Op;

crate::params! {
    /// Parameters of [`TsClock`].
    pub struct TsClockParams {
        /// Pages per erase block; `None` = the run's pages per block.
        ppb: Option<NonZeroU32> = None,
            shown "the run's (--block)",
            doc "pages per erase block for the block counters and sorted lists, 1..=16777216 (1024 = 4 MiB blocks of 4 KiB pages)",
            parse |v| match NonZeroU32::new(parse_u32(v)?) {
                None => Err("expected at least 1 page per block, found `0`".into()),
                n => Ok(n),
            };
        /// Count levels of a dirty page (paper 000: 4).
        levels: u32 = 4,
            doc "count levels of a dirty page, ceil(levels * non_zero / ppb), 1..=7",
            parse |v| match parse_u32(v)? {
                n if (1..=MAX_LEVELS).contains(&n) => Ok(n),
                _ => Err(format!("expected 1 to {MAX_LEVELS}, found `{v}`")),
            };
    }
}

/// Page state: never seen, so no block id yet.
const UNSEEN: u8 = 0;
/// Page state: not resident; its block id is known.
const GONE: u8 = 1;
/// Page state: resident and clean.
const CLEAN: u8 = 2;
/// Page state: resident and dirty.
const DIRTY: u8 = 3;

/// Per-page state the hands read on every step, one byte so that the sweep's random
/// reads stay in a small array: bits 0-1 the state (resident when >= [`CLEAN`]),
/// bits 2-4 the page's tombstones in the ring (0..=[`Hot::MAX_TOMBS`]), bits 5-7
/// the reference count (0..=levels, levels <= [`MAX_LEVELS`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Hot(u8);

impl Hot {
    /// One tombstone.
    const TOMB: u8 = 1 << 2;
    /// The tombstone bits.
    const TOMBS: u8 = 7 << 2;
    /// Most tombstones a page can have (a compaction clears them all first).
    const MAX_TOMBS: u8 = 7;

    #[inline]
    fn state(self) -> u8 {
        self.0 & 3
    }

    #[inline]
    fn resident(self) -> bool {
        self.state() >= CLEAN
    }

    #[inline]
    fn refc(self) -> u8 {
        self.0 >> 5
    }

    /// Whether the page has tombstones in the ring.
    #[inline]
    fn stale(self) -> bool {
        self.0 & Self::TOMBS != 0
    }

    #[inline]
    fn tombs(self) -> u8 {
        (self.0 & Self::TOMBS) >> 2
    }

    #[inline]
    fn set_state(&mut self, s: u8) {
        self.0 = (self.0 & !3) | s;
    }

    #[inline]
    fn set_refc(&mut self, c: u8) {
        self.0 = (self.0 & 0x1f) | (c << 5);
    }
}

/// Largest `levels`: a count must fit the three bits of [`Hot`].
const MAX_LEVELS: u32 = 7;

/// Largest `ppb`: a page's offset in its block must fit the three bytes of
/// [`Page::off`].
const MAX_PPB: u32 = 1 << 24;

/// Everything about one page in one 8-byte entry, so that an access, a t-hand step
/// or an s-hand step reads one cache line per page: the state byte, and the page's
/// block and offset (valid once the page is no longer [`UNSEEN`]).
#[derive(Clone, Copy, Debug, Default)]
struct Page {
    hot: Hot,
    /// Offset in the block (the sort key of the block's list), little-endian.
    off: [u8; 3],
    /// Dense block id.
    block: u32,
}

impl Page {
    #[inline]
    fn off(self) -> u32 {
        let [a, b, c] = self.off;
        u32::from_le_bytes([a, b, c, 0])
    }
}

/// How many entries ahead of a hand (the t-hand in the ring, the s-hand in a sorted
/// list) a page's state is prefetched ([`Policy::prefetch`]) while the hand sweeps.
const HAND_AHEAD: usize = 4;

/// Largest `ppb` whose dirty counts are tabulated (64 KiB of table).
const TABLE_PPB: u32 = 1 << 16;

/// TS-CLOCK (paper 000).
#[derive(Debug)]
pub struct TsClock {
    cap: u32,
    ppb: NonZeroU32,
    levels: u32,
    /// `dirty_count` for every `non_zero` value `0..=ppb` (empty if `ppb` >
    /// [`TABLE_PPB`]): saves a division on every dirty access.
    count_of: Vec<u8>,
    /// Dense block id of each block key (page number div ppb, device kept apart).
    ids: FxHashMap<u64, u32>,
    /// The clock as a queue: front = the t-hand's page, back = just behind it.
    /// A page that leaves from elsewhere (an s-hand victim, a trim) leaves a
    /// tombstone, skipped when it reaches the front (see [`Hot::tombs`]).
    ring: Ring,
    /// Resident pages.
    live: u32,
    /// Tombstones in `ring`.
    tombstones: u32,
    /// Per page: state, count, tombstones (which all lie ahead of its live entry),
    /// block and offset.
    pages: Vec<Page>,
    /// Per block: the key of its first page, so a write-back's key is this plus the
    /// offset kept in the sorted list (no lookup in the engine's key table).
    base: Vec<u64>,
    /// Per block: its dirty resident pages as (offset in block, page), ascending
    /// offset.
    sorted: Vec<Vec<(u32, u32)>>,
    /// Per block: dirty resident pages whose count is not 0.
    non_zero: Vec<u32>,
    /// Largest `non_zero` whose dirty count is 1: `ppb div levels`.
    one_max: u32,
    /// Blocks whose `non_zero` exceeds `one_max`. While there are none, every warm
    /// dirty page's count is 1, so a hit on one needs no block state (the common case
    /// with large blocks: 1024 pages, count 2 needs 257 warm dirty pages in a block).
    crowded: u32,
    /// The s-hand's page, [`NIL`] when null.
    s_hand: u32,
    /// The s-hand page's block and offset (its place in `sorted`), when not null.
    s_at: (u32, u32),
}

/// The victim `choose_victim` found: the page, the t-hand's page, and for a dirty
/// victim its block and index in that block's sorted list.
type Victim = (u32, u32, Option<(usize, usize)>);

impl TsClock {
    /// Count of a dirty page of a block with `nz` warm dirty pages (Fig. 2 line 21-22).
    #[inline]
    fn dirty_count(&self, nz: u32) -> u8 {
        match self.count_of.get(nz as usize) {
            Some(&c) => c,
            None => self.dirty_count_slow(nz),
        }
    }

    /// `ceil(levels · nz / ppb)`, at most `levels`.
    fn dirty_count_slow(&self, nz: u32) -> u8 {
        let l = u64::from(self.levels);
        (l * u64::from(nz))
            .div_ceil(u64::from(self.ppb.get()))
            .min(l) as u8
    }

    /// Give page `p` (key `key`) its dense block id, looked up by block key on its
    /// first miss (one hash lookup per distinct page), and its offset.
    ///
    /// The policy numbers blocks itself (rather than asking the engine for
    /// [`Access::block`] and [`Access::key`] on every access) so that `ppb` can
    /// differ from the run's and so that hits touch no key or block table.
    #[cold]
    fn number(&mut self, p: u32, key: u64) {
        let next = self.ids.len() as u32;
        let id = *self
            .ids
            .entry(block_key(key, self.ppb.get()))
            .or_insert(next);
        let off = offset_in_block(key, self.ppb);
        if id == next {
            self.sorted.push(Vec::new());
            self.non_zero.push(0);
            self.base.push(key - u64::from(off));
        }
        let page = &mut self.pages[p as usize];
        page.block = id;
        page.off.copy_from_slice(&off.to_le_bytes()[..3]);
    }

    /// Insert the dirty page `p` into its block's sorted list; returns its block.
    #[inline]
    fn sorted_insert(&mut self, p: u32) -> u32 {
        let page = self.pages[p as usize];
        let (block, off) = (page.block, page.off());
        let list = &mut self.sorted[block as usize];
        match list.last() {
            Some(&(last, _)) if last > off => {
                let at = list.partition_point(|e| e.0 < off);
                list.insert(at, (off, p));
            }
            _ => list.push((off, p)),
        }
        block
    }

    /// The t-hand's entry, after dropping the tombstones in front of it.
    #[inline]
    fn t_hand(&mut self) -> u32 {
        loop {
            let p = self.ring.front();
            let h = &mut self.pages[p as usize].hot;
            if !h.stale() {
                return p;
            }
            h.0 -= Hot::TOMB;
            self.tombstones -= 1;
            self.ring.pop_front();
        }
    }

    /// Turn the live ring entry of `p` (not the front) into a tombstone.
    fn bury(&mut self, p: u32) {
        if self.pages[p as usize].hot.tombs() == Hot::MAX_TOMBS {
            self.compact();
        }
        self.pages[p as usize].hot.0 += Hot::TOMB;
        self.tombstones += 1;
        if self.tombstones > self.live.max(64) {
            self.compact();
        }
    }

    /// Remove every tombstone from the ring, keeping the order of live entries.
    #[cold]
    fn compact(&mut self) {
        let pages = &mut self.pages;
        self.ring.retain(|p| {
            let h = &mut pages[p as usize].hot;
            if !h.stale() {
                return true;
            }
            h.0 -= Hot::TOMB;
            false
        });
        self.tombstones = 0;
    }

    /// Fig. 2 `choose_victim`, with FIX-3 and the bounded s-hand walk (item 7 of the
    /// module doc).
    #[inline]
    fn choose_victim(&mut self) -> Victim {
        loop {
            if let Some(q) = self.ring.ahead(HAND_AHEAD) {
                self.prefetch(q);
            }
            let h = self.t_hand();
            let page = &mut self.pages[h as usize];
            let hh = page.hot;
            if hh.refc() == 0 {
                if hh.state() == CLEAN {
                    return (h, h, None);
                }
                return self.s_hand_victim(h);
            }
            page.hot.set_refc(hh.refc() - 1);
            if hh.refc() == 1 && hh.state() == DIRTY {
                let b = page.block as usize;
                self.cool(b);
            }
            self.ring.rotate();
        }
    }

    /// The s-hand's walk once the t-hand stopped on the dirty page of `h` with count
    /// 0 (Fig. 2 line 31-43).
    fn s_hand_victim(&mut self, h: u32) -> Victim {
        let hb = self.pages[h as usize].block as usize;
        let (mut sb, mut si) = if self.s_hand == NIL {
            (hb, 0)
        } else {
            let (b, off) = self.s_at;
            let at = self.sorted[b as usize]
                .binary_search_by_key(&off, |e| e.0)
                .expect("the s-hand page is in its block's sorted list");
            (b as usize, at)
        };
        // Item 7: within |list of the s-hand's block| + |list of h's block| steps.
        let bound = self.sorted[sb].len() + self.sorted[hb].len();
        let mut steps = 0;
        loop {
            if let Some(e) = self.sorted[sb].get(si + HAND_AHEAD) {
                self.prefetch(e.1);
            }
            let s = self.sorted[sb][si].1;
            let at = (sb, si);
            if si + 1 == self.sorted[sb].len() {
                (sb, si) = (hb, 0);
            } else {
                si += 1;
            }
            if self.pages[s as usize].hot.refc() == 0 {
                let (off, next) = self.sorted[sb][si];
                self.s_hand = next;
                self.s_at = (sb as u32, off);
                return (s, h, Some(at));
            }
            steps += 1;
            assert!(
                steps < bound,
                "TS-CLOCK s-hand found no page with count 0 within {bound} steps"
            );
        }
    }

    /// A dirty page of block `b` becomes warm: `non_zero[b] += 1`.
    #[inline]
    fn warm(&mut self, b: usize) {
        let n = &mut self.non_zero[b];
        *n += 1;
        if *n == self.one_max + 1 {
            self.crowded += 1;
        }
    }

    /// A warm dirty page of block `b` cools or leaves: `non_zero[b] -= 1`.
    #[inline]
    fn cool(&mut self, b: usize) {
        let n = &mut self.non_zero[b];
        if *n == self.one_max + 1 {
            self.crowded -= 1;
        }
        *n -= 1;
    }

    /// Drop the victim and place the t-hand as "Hand movement and insertion" in the
    /// module doc says.
    #[inline]
    fn evict<S: IoSink>(&mut self, (v, h, pos): Victim, io: &mut S) {
        let vi = v as usize;
        if self.pages[vi].hot.state() == DIRTY {
            let (b, at) = pos.expect("a dirty victim comes from the s-hand");
            let (off, _) = self.sorted[b].remove(at);
            io.write_back_keyed(v, self.base[b] + u64::from(off));
        } else {
            io.drop_clean(v);
        }
        if self.s_hand == v {
            self.s_hand = NIL;
        }
        if v == h {
            self.ring.pop_front();
        } else {
            self.bury(v);
            self.ring.rotate();
        }
        self.pages[vi].hot.set_state(GONE);
        self.live -= 1;
    }
}

impl Policy for TsClock {
    type Params = TsClockParams;
    const NAME: &'static str = "ts-clock";
    const SUMMARY: &'static str =
        "clock of reference counts (dirty pages by block update likelihood) + an s-hand evicting dirty pages block by block in page order";
    const CITATION: &'static str = "D. H. Kang, C. Min, Y. I. Eom, \"An Efficient Buffer Replacement Algorithm for NAND Flash Storage Devices\" (TS-CLOCK), IEEE MASCOTS 2014, Sec. III, Fig. 2 and Fig. 3.";
    const FLASH_AWARE: bool = true;
    const NEEDS_KEY: bool = false;

    fn new(capacity: u32, params: &TsClockParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let cap = capacity.max(1);
        let ppb = params.ppb.unwrap_or(ctx.pages_per_block);
        if ppb.get() > MAX_PPB {
            return Err(ParamError {
                policy: Self::NAME.into(),
                msg: format!("ppb: expected at most {MAX_PPB} pages per block, found {ppb}"),
            });
        }
        let mut p = TsClock {
            cap,
            ppb,
            levels: params.levels.clamp(1, MAX_LEVELS),
            count_of: Vec::new(),
            ids: FxHashMap::default(),
            ring: Ring::with_capacity(cap.min(1 << 24) as usize + 64),
            live: 0,
            tombstones: 0,
            pages: Vec::new(),
            base: Vec::new(),
            sorted: Vec::new(),
            non_zero: Vec::new(),
            one_max: 0,
            crowded: 0,
            s_hand: NIL,
            s_at: (0, 0),
        };
        p.one_max = p.ppb.get() / p.levels;
        if p.ppb.get() <= TABLE_PPB {
            p.count_of = (0..=p.ppb.get()).map(|nz| p.dirty_count_slow(nz)).collect();
        }
        p.reserve(ctx.universe_hint, 0);
        Ok(p)
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let p = a.page;
        let pi = p as usize;
        let write = a.op == Op::Write;
        let before = self.pages[pi].hot;
        if before.resident() {
            if before.state() == CLEAN {
                if !write {
                    self.pages[pi].hot.set_refc(1);
                    return true;
                }
                // FIX-1 / FIX-2: the page enters its block's list and the counted set.
                self.pages[pi].hot.set_state(DIRTY);
                let b = self.sorted_insert(p);
                if before.refc() > 0 {
                    self.warm(b as usize);
                }
            }
            self.count_dirty(pi);
            return true;
        }
        if self.live == self.cap {
            let v = self.choose_victim();
            self.evict(v, io);
        }
        if before.state() == UNSEEN {
            self.number(p, io.key(p));
        }
        // Re-read: the sweep may have dropped tombstones of this page.
        let h = &mut self.pages[pi].hot;
        h.set_refc(0);
        self.ring.push_back(p);
        self.live += 1;
        if write {
            h.set_state(DIRTY);
            self.sorted_insert(p);
            self.count_dirty(pi);
        } else {
            h.set_state(CLEAN);
            h.set_refc(1);
        }
        false
    }

    #[inline]
    fn prefetch(&self, page: u32) {
        prefetch(&self.pages, page as usize);
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        if pages as usize > self.pages.len() {
            self.pages.resize(pages as usize, Page::default());
        }
    }

    fn len(&self) -> u32 {
        self.live
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(self.sorted.iter().flatten().map(|e| e.1));
    }

    fn invalidate(&mut self, page: u32) -> bool {
        let pi = page as usize;
        if !self.pages.get(pi).is_some_and(|p| p.hot.resident()) {
            return false;
        }
        if self.pages[pi].hot.state() == DIRTY {
            let b = self.pages[pi].block as usize;
            let at = self.sorted[b]
                .iter()
                .position(|e| e.1 == page)
                .expect("a dirty page is in its block's sorted list");
            self.sorted[b].remove(at);
            if self.pages[pi].hot.refc() > 0 {
                self.cool(b);
            }
        }
        if self.s_hand == page {
            self.s_hand = NIL;
        }
        self.bury(page);
        self.pages[pi].hot.set_state(GONE);
        self.live -= 1;
        true
    }
}

impl TsClock {
    /// The count of the accessed dirty page `pi` (line 19-22): it joins `non_zero`
    /// if its count was 0, then gets `ceil(levels · non_zero / ppb)`.
    #[inline(always)]
    fn count_dirty(&mut self, pi: usize) {
        if self.pages[pi].hot.refc() > 0 && self.crowded == 0 {
            // Counted already, in a block with at most `one_max` warm dirty pages.
            self.pages[pi].hot.set_refc(1);
            return;
        }
        self.count_dirty_by_block(pi);
    }

    /// [`TsClock::count_dirty`] through the page's block.
    fn count_dirty_by_block(&mut self, pi: usize) {
        let b = self.pages[pi].block as usize;
        if self.pages[pi].hot.refc() == 0 {
            self.warm(b);
        }
        let c = self.dirty_count(self.non_zero[b]);
        self.pages[pi].hot.set_refc(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policies::clock::{Clock, ClockParams};
    use crate::policy::ParamSet;
    use crate::testutil::{parse, run, Ev, Recorder};
    use rand::{Rng, SeedableRng};

    /// The ring from the t-hand on, as (page, count).
    fn ring(p: &TsClock) -> Vec<(u32, u8)> {
        let mut stale: Vec<u8> = p.pages.iter().map(|x| x.hot.tombs()).collect();
        p.ring
            .iter()
            .filter(|&x| {
                let s = &mut stale[x as usize];
                *s == 0 || {
                    *s -= 1;
                    false
                }
            })
            .map(|x| (x, p.pages[x as usize].hot.refc()))
            .collect()
    }

    /// Block number `b`'s sorted list of dirty pages.
    fn sorted(p: &TsClock, b: u64) -> Vec<u32> {
        p.ids.get(&b).map_or(Vec::new(), |&i| {
            p.sorted[i as usize].iter().map(|e| e.1).collect()
        })
    }

    /// `non_zero` of block number `b`.
    fn nz(p: &TsClock, b: u64) -> u32 {
        p.ids.get(&b).map_or(0, |&i| p.non_zero[i as usize])
    }

    /// Drive `p` through `trace` (page number = dense id = key), events per access.
    fn drive(p: &mut TsClock, ppb: u32, trace: &str) -> Vec<Vec<Ev>> {
        parse(trace)
            .into_iter()
            .enumerate()
            .map(|(i, (op, page))| {
                let mut rec = Recorder::default();
                let a = Access {
                    page,
                    block: page / ppb,
                    key: u64::from(page),
                    op,
                    index: i as u64,
                    next_use: u64::MAX,
                };
                p.access(&a, &mut rec);
                rec.events
            })
            .collect()
    }

    /// A TS-CLOCK of capacity `cap` whose ring (t-hand first) is `pages` as (page,
    /// dirty, count), with sorted lists and `non_zero` built to their invariants
    /// (`non_zero[b]` = dirty resident pages of block b with count > 0).
    fn with_state(cap: u32, ppb: u32, pages: &[(u32, bool, u8)]) -> TsClock {
        let ctx = PolicyCtx {
            pages_per_block: NonZeroU32::new(ppb).unwrap(),
            ..PolicyCtx::default()
        };
        let mut p = TsClock::new(cap, &TsClockParams::default(), &ctx).unwrap();
        p.reserve(128, 0);
        for &(page, dirty, refc) in pages {
            let a = Access {
                page,
                block: 0,
                key: u64::from(page),
                op: Op::Read,
                index: 0,
                next_use: u64::MAX,
            };
            p.number(page, a.key);
            let block = p.pages[page as usize].block;
            let h = &mut p.pages[page as usize].hot;
            h.set_refc(refc);
            h.set_state(if dirty { DIRTY } else { CLEAN });
            p.ring.push_back(page);
            p.live += 1;
            if dirty {
                p.sorted_insert(page);
                if refc > 0 {
                    p.warm(block as usize);
                }
            }
        }
        p
    }

    /// Hand-worked vector TS-1: with clean pages only, TS-CLOCK is CLOCK with new pages
    /// referenced.
    #[test]
    fn ts1_clean_pages_are_clock() {
        let o = run::<TsClock>(3, &TsClockParams::default(), 4, "R0 R1 R2 R0 R3");
        assert_eq!(o.events[4], [Ev::Ev(0)]);
        assert_eq!(ring(&o.policy), [(1, 0), (2, 0), (3, 1)]);
    }

    /// TS-1 generalised: on random read-only traces TS-CLOCK makes exactly the choices
    /// of CLOCK with `insert_ref = 1`, access by access.
    #[test]
    fn read_only_traces_match_clock() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(7);
        for round in 0..20 {
            let trace: Vec<String> = (0..400)
                .map(|_| format!("R{}", rng.gen_range(0..60u32)))
                .collect();
            let trace = trace.join(" ");
            let cap = 3 + round;
            let t = run::<TsClock>(cap, &TsClockParams::default(), 4, &trace);
            let c = run::<Clock>(cap, &ClockParams::default(), 4, &trace);
            assert_eq!(t.hits, c.hits, "capacity {cap}");
            assert_eq!(t.events, c.events, "capacity {cap}");
        }
    }

    /// Hand-worked vector TS-2: the s-hand picks a page other than the t-hand's,
    /// persists on page 6 over a clean eviction, and is nulled when its own page is the
    /// victim (FIX-4).
    #[test]
    fn ts2_s_hand_persistence_and_dangling_fix() {
        let o = run::<TsClock>(3, &TsClockParams::default(), 8, "W6 W5 R9 R10");
        let p = &o.policy;
        assert_eq!(o.events[3], [Ev::Wb(5)]);
        assert_eq!(ring(p), [(9, 0), (6, 0), (10, 1)]);
        assert_eq!(p.s_hand, 6);
        assert_eq!(nz(p, 0), 0);

        let o = run::<TsClock>(3, &TsClockParams::default(), 8, "W6 W5 R9 R10 R11 R12");
        let p = &o.policy;
        assert_eq!(o.events[0..3], [vec![], vec![], vec![]]);
        assert_eq!(o.events[4], [Ev::Ev(9)]);
        assert_eq!(o.events[5], [Ev::Wb(6)]);
        assert_eq!(p.s_hand, NIL);
        assert!(sorted(p, 0).is_empty());
        assert_eq!(ring(p), [(10, 1), (11, 1), (12, 1)]);
    }

    /// Hand-worked vector TS-2, first accesses: counts and the sorted list of block 0.
    #[test]
    fn ts2_counts_from_non_zero() {
        let o = run::<TsClock>(3, &TsClockParams::default(), 8, "W6 W5 R9");
        let p = &o.policy;
        assert_eq!(ring(p), [(6, 1), (5, 1), (9, 1)]);
        assert_eq!(sorted(p, 0), [5, 6]);
        assert_eq!(nz(p, 0), 2);
    }

    /// Hand-worked vector TS-3: a write hit on a clean page enters its block's list and
    /// `non_zero` (FIX-1, FIX-2), so at R9 the s-hand finds page 1 (the literal Fig. 2
    /// loops forever there).
    #[test]
    fn ts3_clean_to_dirty() {
        let o = run::<TsClock>(3, &TsClockParams::default(), 4, "R1 W1");
        assert_eq!(sorted(&o.policy, 0), [1]);
        assert_eq!(nz(&o.policy, 0), 1);
        assert_eq!(ring(&o.policy), [(1, 1)]);

        let o = run::<TsClock>(3, &TsClockParams::default(), 4, "R1 W1 W2 R8 R9");
        let p = &o.policy;
        assert_eq!(o.events[2], []);
        assert_eq!(o.events[4], [Ev::Wb(1)]);
        assert_eq!(ring(p), [(2, 1), (8, 0), (9, 1)]);
        assert_eq!(sorted(p, 0), [2]);
        assert_eq!(nz(p, 0), 1);
        assert_eq!(p.s_hand, 2);
    }

    /// Hand-worked vector TS-3, the count of page 2 at W2: ceil(4 · 2 / 4) = 2.
    #[test]
    fn ts3_second_dirty_page_gets_count_two() {
        let o = run::<TsClock>(3, &TsClockParams::default(), 4, "R1 W1 W2");
        assert_eq!(ring(&o.policy), [(1, 1), (2, 2)]);
        assert_eq!(nz(&o.policy, 0), 2);
    }

    /// Hand-worked vector TS-4: the reconstruction of paper 000 Fig. 3, events E1-E4,
    /// from a T0/S0 consistent with the text (the figure's own T0 is not in our copy of
    /// the paper).
    #[test]
    fn ts4_paper_figure_3() {
        let t0 = [
            (31, false, 0),
            (67, true, 0),
            (14, true, 0),
            (16, true, 1),
            (17, true, 1),
            (65, true, 1),
            (66, true, 0),
        ];
        let mut p = with_state(7, 4, &t0);
        assert_eq!(sorted(&p, 3), [14]);
        assert_eq!(sorted(&p, 4), [16, 17]);
        assert_eq!(sorted(&p, 16), [65, 66, 67]);
        assert_eq!((nz(&p, 3), nz(&p, 4), nz(&p, 16)), (0, 2, 1));

        // E1: hit on 16, count ceil(4 · 2 / 4) = 2 (T1).
        let ev = drive(&mut p, 4, "R16");
        assert_eq!(ev[0], []);
        assert_eq!(p.pages[16].hot.refc(), 2);
        // E2: 31 is clean with count 0 under the t-hand: replaced by 53 (T2).
        let ev = drive(&mut p, 4, "R53");
        assert_eq!(ev[0], [Ev::Ev(31)]);
        let order: Vec<u32> = ring(&p).iter().map(|e| e.0).collect();
        assert_eq!(order, [67, 14, 16, 17, 65, 66, 53]);
        // E3: the t-hand selects 67 (dirty); the s-hand starts at 65 (S1), skips it
        // (count 1) and evicts 66 (S2), ending on 67; 28 goes behind 67 (T3).
        let ev = drive(&mut p, 4, "R28");
        assert_eq!(ev[0], [Ev::Wb(66)]);
        assert_eq!(p.s_hand, 67);
        let order: Vec<u32> = ring(&p).iter().map(|e| e.0).collect();
        assert_eq!(order, [14, 16, 17, 65, 53, 67, 28]);
        // E4: the t-hand selects 14 (block 3) (T4), but the s-hand is still in block
        // 16 (S3) and evicts 67 (S4), then wraps to block 3; 29 is inserted (T5).
        let ev = drive(&mut p, 4, "R29");
        assert_eq!(ev[0], [Ev::Wb(67)]);
        assert_eq!(p.s_hand, 14);
        let order: Vec<u32> = ring(&p).iter().map(|e| e.0).collect();
        assert_eq!(order, [16, 17, 65, 53, 28, 14, 29]);
        assert_eq!(sorted(&p, 16), [65]);
    }

    /// `non_zero` counts only warm dirty pages (FIX-3): the t-hand cooling the clean
    /// pages 1 and 3 leaves it alone (the literal line 46-47 would decrement it twice,
    /// and for page 4's block), cooling dirty page 0 decrements block 0's.
    #[test]
    fn non_zero_counts_only_warm_dirty_pages() {
        let o = run::<TsClock>(4, &TsClockParams::default(), 4, "W0 R1 W2 R3");
        assert_eq!(ring(&o.policy), [(0, 1), (1, 1), (2, 2), (3, 1)]);
        assert_eq!(nz(&o.policy, 0), 2);
        let o = run::<TsClock>(4, &TsClockParams::default(), 4, "W0 R1 W2 R3 R4");
        let p = &o.policy;
        // R4 swept 0 (1 -> 0), 1 (1 -> 0), 2 (2 -> 1), 3 (1 -> 0); 0 is dirty with
        // count 0 and first in block 0's list [0, 2], so the s-hand evicts it.
        assert_eq!(o.events[4], [Ev::Wb(0)]);
        assert_eq!(ring(p), [(1, 0), (2, 1), (3, 0), (4, 1)]);
        assert_eq!(nz(p, 0), 1);
        assert_eq!(p.s_hand, 2);
    }

    /// A direct transcription of Fig. 2's pseudo-code, corrected as the module doc
    /// says, with plain collections (ring as a `VecDeque`, sorted lists as `BTreeSet`s,
    /// ppb = `ppb`, 4 levels), the model the fast ring buffer with tombstones is
    /// checked against. Returns the events per access.
    fn model(cap: usize, ppb: u32, trace: &[(Op, u32)]) -> Vec<Vec<Ev>> {
        use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
        let mut ring: VecDeque<u32> = VecDeque::new();
        let mut pg: HashMap<u32, (u32, bool)> = HashMap::new();
        let mut sorted: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
        let mut nz: HashMap<u32, u32> = HashMap::new();
        let mut s_hand: Option<u32> = None;
        let mut out = Vec::new();
        for &(op, x) in trace {
            let mut ev = Vec::new();
            let w = op == Op::Write;
            if !pg.contains_key(&x) {
                if ring.len() == cap {
                    let v = loop {
                        let h = ring[0];
                        let (rc, d) = pg[&h];
                        if rc == 0 {
                            if !d {
                                break h;
                            }
                            let first = |s: &BTreeMap<u32, BTreeSet<u32>>| {
                                *s[&(h / ppb)].iter().next().unwrap()
                            };
                            let mut sh = s_hand.unwrap_or_else(|| first(&sorted));
                            let v = loop {
                                let s = sh;
                                let list = &sorted[&(s / ppb)];
                                sh = match list.range(s + 1..).next() {
                                    Some(&n) => n,
                                    None => first(&sorted),
                                };
                                if pg[&s].0 == 0 {
                                    break s;
                                }
                            };
                            s_hand = Some(sh);
                            break v;
                        }
                        pg.get_mut(&h).unwrap().0 -= 1;
                        if rc == 1 && d {
                            *nz.get_mut(&(h / ppb)).unwrap() -= 1;
                        }
                        ring.rotate_left(1);
                    };
                    let d = pg.remove(&v).unwrap().1;
                    if d {
                        ev.push(Ev::Wb(v));
                        sorted.get_mut(&(v / ppb)).unwrap().remove(&v);
                    } else {
                        ev.push(Ev::Ev(v));
                    }
                    if s_hand == Some(v) {
                        s_hand = None;
                    }
                    if ring[0] == v {
                        ring.pop_front();
                    } else {
                        let at = ring.iter().position(|&y| y == v).unwrap();
                        ring.remove(at);
                        ring.rotate_left(1);
                    }
                }
                ring.push_back(x);
                pg.insert(x, (0, w));
                if w {
                    sorted.entry(x / ppb).or_default().insert(x);
                }
            } else if w && !pg[&x].1 {
                sorted.entry(x / ppb).or_default().insert(x);
                pg.get_mut(&x).unwrap().1 = true;
                if pg[&x].0 > 0 {
                    *nz.entry(x / ppb).or_default() += 1;
                }
            }
            let e = pg.get_mut(&x).unwrap();
            if !e.1 {
                e.0 = 1;
            } else {
                let n = nz.entry(x / ppb).or_default();
                if e.0 == 0 {
                    *n += 1;
                }
                e.0 = (4 * *n).div_ceil(ppb);
            }
            out.push(ev);
        }
        out
    }

    /// The ring buffer with tombstones makes exactly the choices of the literal
    /// pseudo-code on random traces with writes, at several block sizes.
    #[test]
    fn matches_the_pseudo_code() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        for (cap, ppb, pages) in [
            (3u32, 2u32, 12u32),
            (8, 4, 40),
            (50, 8, 200),
            (200, 16, 600),
        ] {
            let trace: Vec<String> = (0..5000)
                .map(|_| {
                    let op = if rng.gen_bool(0.4) { 'W' } else { 'R' };
                    format!("{op}{}", rng.gen_range(0..pages))
                })
                .collect();
            let trace = trace.join(" ");
            let o = run::<TsClock>(cap, &TsClockParams::default(), ppb, &trace);
            let want = model(cap as usize, ppb, &parse(&trace));
            assert_eq!(o.events, want, "cap {cap}, ppb {ppb}");
        }
    }

    /// `ppb` given as a parameter overrides the run's blocks: TS-2 with the run at 1
    /// page per block and `ppb=8` behaves as TS-2 at 8 pages per block.
    #[test]
    fn ppb_parameter_overrides_the_run() {
        let params = TsClockParams {
            ppb: NonZeroU32::new(8),
            ..TsClockParams::default()
        };
        let trace = "W6 W5 R9 R10 R11 R12";
        let own = run::<TsClock>(3, &params, 1, trace);
        let runs = run::<TsClock>(3, &TsClockParams::default(), 8, trace);
        assert_eq!(own.events, runs.events);
        assert_eq!(own.events[3], [Ev::Wb(5)]);
        // At 1 page per block, W5 would get count ceil(4 · 1 / 1) = 4 instead.
        let one = run::<TsClock>(3, &TsClockParams::default(), 1, "W6 W5");
        assert_eq!(ring(&one.policy), [(6, 4), (5, 4)]);
    }

    /// `levels` scales the dirty counts: at levels = 1 every dirty page gets 1.
    #[test]
    fn levels_parameter() {
        let params = TsClockParams {
            levels: 1,
            ..TsClockParams::default()
        };
        let o = run::<TsClock>(3, &params, 4, "R1 W1 W2");
        assert_eq!(ring(&o.policy), [(1, 1), (2, 1)]);
    }

    /// Parameters are validated with messages saying what is allowed.
    #[test]
    fn parameters_are_validated() {
        let mut p = TsClockParams::default();
        assert!(p.set("ppb", "0").unwrap_err().contains("at least 1"));
        assert!(p.set("ppb", "x").unwrap_err().contains("integer"));
        assert!(p.set("levels", "0").unwrap_err().contains("1 to 7"));
        assert!(p.set("levels", "8").unwrap_err().contains("1 to 7"));
        p.set("ppb", "1024").unwrap();
        p.set("levels", "7").unwrap();
        assert_eq!((p.ppb, p.levels), (NonZeroU32::new(1024), 7));
    }

    /// A trimmed page leaves the ring, its sorted list and `non_zero`, and a trimmed
    /// s-hand page leaves the s-hand null.
    #[test]
    fn invalidate_keeps_the_invariants() {
        let mut o = run::<TsClock>(3, &TsClockParams::default(), 8, "W6 W5 R9 R10");
        let p = &mut o.policy;
        assert_eq!(p.s_hand, 6);
        assert!(p.invalidate(6));
        assert!(!p.invalidate(6));
        assert_eq!(p.s_hand, NIL);
        assert!(sorted(p, 0).is_empty());
        assert_eq!(ring(p), [(9, 0), (10, 1)]);
        let mut d = Vec::new();
        p.dirty_pages(&mut d);
        assert!(d.is_empty());
    }

    /// Key of dense id `page` in the differential tests: two devices, page numbers
    /// in the reverse order of the ids, so neither block numbering nor the sort key
    /// can lean on the dense ids.
    fn diff_key(page: u32) -> u64 {
        wafer_trace::page_key(page & 1, u64::from(5000 - page))
    }

    /// A [`Recorder`] that knows the keys of [`diff_key`].
    #[derive(Default)]
    struct Keyed(Recorder);

    impl IoSink for Keyed {
        fn key(&self, page: u32) -> u64 {
            diff_key(page)
        }
        fn write_back(&mut self, page: u32) {
            self.0.write_back(page);
        }
        fn drop_clean(&mut self, page: u32) {
            self.0.drop_clean(page);
        }
        fn pad_read(&mut self, key: u64) {
            self.0.pad_read(key);
        }
        fn pad_write(&mut self, key: u64) {
            self.0.pad_write(key);
        }
        fn begin_group(&mut self) {
            self.0.begin_group();
        }
        fn end_group(&mut self) {
            self.0.end_group();
        }
    }

    /// Run this implementation and the one before the speed work
    /// (`ts_clock_ref.rs`) on one op list (0, 1 read; 2 write; 3 trim) and compare
    /// hits, reported events, occupancy, the s-hand and the dirty pages after every
    /// step.
    fn check_against_reference(
        ops: &[(u8, u32)],
        cap: u32,
        run_ppb: u32,
        params: &TsClockParams,
    ) -> Result<(), String> {
        let ctx = PolicyCtx {
            pages_per_block: NonZeroU32::new(run_ppb).unwrap(),
            universe_hint: 4,
            ..PolicyCtx::default()
        };
        let mut fast = TsClock::new(cap, params, &ctx).unwrap();
        let mut slow =
            crate::reference::ts_clock::ReferenceTsClock::new(cap, params, &ctx).unwrap();
        let top = ops.iter().map(|o| o.1 + 1).max().unwrap_or(1);
        fast.reserve(top, 0);
        slow.reserve(top, 0);
        for (i, &(kind, page)) in ops.iter().enumerate() {
            if kind == 3 {
                if fast.invalidate(page) != slow.invalidate(page) {
                    return Err(format!("step {i}: invalidate({page}) differs"));
                }
            } else {
                let a = Access {
                    page,
                    block: 0,
                    key: diff_key(page),
                    op: if kind == 2 { Op::Write } else { Op::Read },
                    index: i as u64,
                    next_use: u64::MAX,
                };
                let (mut rf, mut rs) = (Keyed::default(), Recorder::default());
                // The engine leaves the key out for TS-CLOCK (`NEEDS_KEY` false).
                let no_key = Access {
                    key: crate::policy::NO_KEY,
                    ..a
                };
                let (hf, hs) = (fast.access(&no_key, &mut rf), slow.access(&a, &mut rs));
                if hf != hs || rf.0.events != rs.events {
                    return Err(format!(
                        "step {i} ({kind},{page}): hit {hf} vs {hs}, events {:?} vs {:?}",
                        rf.0.events, rs.events
                    ));
                }
            }
            let (mut df, mut ds) = (vec![], vec![]);
            fast.dirty_pages(&mut df);
            slow.dirty_pages(&mut ds);
            df.sort_unstable();
            ds.sort_unstable();
            if fast.len() != slow.len() || fast.s_hand != slow.s_hand() || df != ds {
                return Err(format!("step {i}: state differs"));
            }
            let crowded = fast.non_zero.iter().filter(|&&n| n > fast.one_max).count();
            if fast.crowded as usize != crowded {
                return Err(format!(
                    "step {i}: {} crowded blocks counted, {crowded} are",
                    fast.crowded
                ));
            }
        }
        Ok(())
    }

    /// The fast implementation behaves exactly like the previous one on random traces
    /// with writes and trims, over capacities, block sizes (the run's and the `ppb`
    /// parameter) and count levels.
    #[test]
    fn matches_the_previous_implementation() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let ops = proptest::collection::vec((0u8..4, 0u32..60), 1..1500);
        let shape = (1u32..24, 1u32..10, proptest::option::of(1u32..12), 1u32..8);
        TestRunner::new(Config::with_cases(400))
            .run(&(ops, shape), |(ops, (cap, run_ppb, ppb, levels))| {
                let params = TsClockParams {
                    ppb: ppb.and_then(NonZeroU32::new),
                    levels,
                };
                check_against_reference(&ops, cap, run_ppb, &params).map_err(TestCaseError::fail)
            })
            .unwrap();
    }

    /// Long skewed traces (a hot set with many writes plus a scan) reach states the
    /// short ones rarely do: long sorted lists, high counts, many tombstones and
    /// compactions.
    #[test]
    fn matches_the_previous_implementation_on_long_skewed_traces() {
        for seed in 0..12u64 {
            let ops = crate::testutil::skewed_ops(seed, 40_000, 0.01, 300, 1900);
            let cap = 40 + (seed as u32) * 23;
            let params = TsClockParams {
                ppb: None,
                levels: 1 + (seed as u32 % 5),
            };
            check_against_reference(&ops, cap, 1 << (seed % 7), &params).unwrap();
        }
    }
}
