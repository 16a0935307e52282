//! Test-only reference model for the differential test of TS-CLOCK: the
//! implementation before the speed work (per-page block ids and offsets, the clock
//! as a `VecDeque` with tombstones, the s-hand kept as a page). Kept verbatim so the
//! faster `ts_clock.rs` is checked against it event for event.

use std::collections::VecDeque;
use std::num::NonZeroU32;

use rustc_hash::FxHashMap;

use crate::list::NIL;
use crate::policies::block_group::offset_in_block;
use crate::policies::ts_clock::TsClockParams;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use wafer_trace::block_key;
use wafer_trace::Op;

const ABSENT: u8 = 0;
const CLEAN: u8 = 1;
const DIRTY: u8 = 2;

/// Per-page state the hands read on every step, one byte so that the sweep's random
/// reads stay in a small array: bits 0-1 the state, bit 2 set while the page has
/// tombstones in the ring, bits 3-7 the reference count (0..=levels).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Hot(u8);

impl Hot {
    const STALE: u8 = 4;

    #[inline]
    fn state(self) -> u8 {
        self.0 & 3
    }

    #[inline]
    fn refc(self) -> u8 {
        self.0 >> 3
    }

    #[inline]
    fn stale(self) -> bool {
        self.0 & Self::STALE != 0
    }

    #[inline]
    fn set_state(&mut self, s: u8) {
        self.0 = (self.0 & !3) | s;
    }

    #[inline]
    fn set_refc(&mut self, c: u8) {
        self.0 = (self.0 & 7) | (c << 3);
    }
}

/// TS-CLOCK as first written (per-page block ids and offsets, `VecDeque` ring).
#[derive(Debug)]
pub struct ReferenceTsClock {
    cap: u32,
    ppb: NonZeroU32,
    levels: u32,
    /// Dense block id of each block key (page number div ppb, device kept apart).
    ids: FxHashMap<u64, u32>,
    /// The clock as a queue: front = the t-hand's page, back = just behind it.
    /// A page that leaves from elsewhere (an s-hand victim, a trim) leaves a
    /// tombstone, skipped when it reaches the front (see `stale`).
    ring: VecDeque<u32>,
    /// Resident pages.
    live: u32,
    /// Tombstones in `ring`.
    tombstones: u32,
    hot: Vec<Hot>,
    /// Per page: its tombstones in the ring, which all lie ahead of its live entry.
    stale: Vec<u8>,
    /// Per page: dense block id, [`NIL`] before the page's first miss.
    blk: Vec<u32>,
    /// Per page: page number mod ppb, the sort key inside its block.
    off: Vec<u32>,
    /// Per block: its dirty resident pages as (offset, page), ascending offset.
    sorted: Vec<Vec<(u32, u32)>>,
    /// Per block: dirty resident pages whose count is not 0.
    non_zero: Vec<u32>,
    /// The s-hand's page, [`NIL`] when null.
    s_hand: u32,
}

impl ReferenceTsClock {
    /// The s-hand's page, [`NIL`] when null.
    pub fn s_hand(&self) -> u32 {
        self.s_hand
    }

    /// Count of a dirty page of a block with `nz` warm dirty pages (Fig. 2 line 21-22).
    #[inline]
    fn dirty_count(&self, nz: u32) -> u8 {
        let l = u64::from(self.levels);
        (l * u64::from(nz))
            .div_ceil(u64::from(self.ppb.get()))
            .min(l) as u8
    }

    /// Dense block id of the page of `a`, looked up by block key on its first miss.
    ///
    /// The policy numbers blocks itself (rather than asking the engine for
    /// [`Access::block`] on every access) so that `ppb` can differ from the run's and
    /// so that hits on clean pages touch no block state at all.
    #[inline]
    fn block_of(&mut self, a: &Access) -> u32 {
        let pi = a.page as usize;
        if self.blk[pi] == NIL {
            let next = self.ids.len() as u32;
            let id = *self
                .ids
                .entry(block_key(a.key, self.ppb.get()))
                .or_insert(next);
            if id == next {
                self.sorted.push(Vec::new());
                self.non_zero.push(0);
            }
            self.blk[pi] = id;
            self.off[pi] = offset_in_block(a.key, self.ppb);
        }
        self.blk[pi]
    }

    /// Insert the dirty page `p` into its block's sorted list.
    #[inline]
    fn sorted_insert(&mut self, p: u32) {
        let (block, off) = (self.blk[p as usize], self.off[p as usize]);
        let list = &mut self.sorted[block as usize];
        match list.last() {
            Some(&(last, _)) if last > off => {
                let at = list.partition_point(|e| e.0 < off);
                list.insert(at, (off, p));
            }
            _ => list.push((off, p)),
        }
    }

    /// Position of the dirty page `p` in its block's sorted list.
    #[inline]
    fn sorted_pos(&self, p: u32) -> (usize, usize) {
        let (block, off) = (self.blk[p as usize], self.off[p as usize]);
        let at = self.sorted[block as usize]
            .binary_search_by_key(&off, |e| e.0)
            .expect("a dirty page is in its block's sorted list");
        (block as usize, at)
    }

    /// The t-hand's page, after dropping the tombstones in front of it.
    #[inline]
    fn t_hand(&mut self) -> u32 {
        loop {
            let p = *self.ring.front().expect("a full cache has pages");
            if !self.hot[p as usize].stale() {
                return p;
            }
            self.unstale(p);
            self.tombstones -= 1;
            self.ring.pop_front();
        }
    }

    /// Turn the live ring entry of `p` (not the front) into a tombstone.
    fn bury(&mut self, p: u32) {
        if self.stale[p as usize] == u8::MAX {
            self.compact();
        }
        self.stale[p as usize] += 1;
        self.hot[p as usize].0 |= Hot::STALE;
        self.tombstones += 1;
        if self.tombstones > self.live.max(64) {
            self.compact();
        }
    }

    /// Remove every tombstone from the ring, keeping the order of live entries.
    #[cold]
    fn compact(&mut self) {
        let (hot, stale) = (&mut self.hot, &mut self.stale);
        self.ring.retain(|&p| {
            let pi = p as usize;
            if !hot[pi].stale() {
                return true;
            }
            stale[pi] -= 1;
            if stale[pi] == 0 {
                hot[pi].0 &= !Hot::STALE;
            }
            false
        });
        self.tombstones = 0;
    }

    /// One tombstone of `p` leaves the ring.
    #[inline]
    fn unstale(&mut self, p: u32) {
        let pi = p as usize;
        self.stale[pi] -= 1;
        if self.stale[pi] == 0 {
            self.hot[pi].0 &= !Hot::STALE;
        }
    }

    /// Fig. 2 `choose_victim`, with FIX-3 and the bounded s-hand walk (item 7 of
    /// `ts_clock.rs`'s module doc).
    /// The victim, with its block and position in its sorted list when the s-hand
    /// chose it (so `evict` need not search for it again).
    fn choose_victim(&mut self) -> (u32, Option<(usize, usize)>) {
        loop {
            let h = self.t_hand();
            let hh = self.hot[h as usize];
            if hh.refc() == 0 {
                if hh.state() == CLEAN {
                    return (h, None);
                }
                let hb = self.blk[h as usize] as usize;
                let (mut sb, mut si) = if self.s_hand == NIL {
                    (hb, 0)
                } else {
                    self.sorted_pos(self.s_hand)
                };
                let bound = self.sorted[sb].len() + self.sorted[hb].len();
                for _ in 0..bound {
                    let s = self.sorted[sb][si].1;
                    let at = (sb, si);
                    if si + 1 == self.sorted[sb].len() {
                        (sb, si) = (hb, 0);
                    } else {
                        si += 1;
                    }
                    if self.hot[s as usize].refc() == 0 {
                        self.s_hand = self.sorted[sb][si].1;
                        return (s, Some(at));
                    }
                }
                panic!("TS-CLOCK s-hand found no page with count 0 within {bound} steps");
            }
            self.hot[h as usize].set_refc(hh.refc() - 1);
            if hh.refc() == 1 && hh.state() == DIRTY {
                self.non_zero[self.blk[h as usize] as usize] -= 1;
            }
            self.ring.pop_front();
            self.ring.push_back(h);
        }
    }

    /// Drop the victim `v` and place the t-hand as `ts_clock.rs`'s module doc says.
    fn evict<S: IoSink>(&mut self, (v, pos): (u32, Option<(usize, usize)>), io: &mut S) {
        let h = self.t_hand();
        let vi = v as usize;
        if self.hot[vi].state() == DIRTY {
            io.write_back(v);
            let (b, at) = pos.expect("a dirty victim comes from the s-hand");
            self.sorted[b].remove(at);
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
            self.ring.pop_front();
            self.ring.push_back(h);
        }
        self.hot[vi].set_state(ABSENT);
        self.live -= 1;
    }
}

impl Policy for ReferenceTsClock {
    type Params = TsClockParams;
    const NAME: &'static str = "ts-clock";
    const SUMMARY: &'static str =
        "clock of reference counts (dirty pages by block update likelihood) + an s-hand evicting dirty pages block by block in page order";
    const CITATION: &'static str = "D. H. Kang, C. Min, Y. I. Eom, \"An Efficient Buffer Replacement Algorithm for NAND Flash Storage Devices\" (TS-CLOCK), IEEE MASCOTS 2014, Sec. III, Fig. 2 and Fig. 3.";
    const FLASH_AWARE: bool = true;

    fn new(capacity: u32, params: &TsClockParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let cap = capacity.max(1);
        let mut p = ReferenceTsClock {
            cap,
            ppb: params.ppb.unwrap_or(ctx.pages_per_block),
            levels: params.levels.clamp(1, 31),
            ids: FxHashMap::default(),
            ring: VecDeque::with_capacity(cap.min(1 << 24) as usize),
            live: 0,
            tombstones: 0,
            hot: Vec::new(),
            stale: Vec::new(),
            blk: Vec::new(),
            off: Vec::new(),
            sorted: Vec::new(),
            non_zero: Vec::new(),
            s_hand: NIL,
        };
        p.reserve(ctx.universe_hint, 0);
        Ok(p)
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let p = a.page;
        let pi = p as usize;
        let write = a.op == Op::Write;
        let before = self.hot[pi].state();
        let hit = before != ABSENT;
        if !hit {
            if self.live == self.cap {
                let v = self.choose_victim();
                self.evict(v, io);
            }
            self.block_of(a);
            let h = &mut self.hot[pi];
            h.set_refc(0);
            h.set_state(if write { DIRTY } else { CLEAN });
            self.ring.push_back(p);
            self.live += 1;
            if write {
                self.sorted_insert(p);
            }
        } else if write && before == CLEAN {
            // FIX-1 / FIX-2: the page enters its block's list and the counted set.
            self.hot[pi].set_state(DIRTY);
            self.sorted_insert(p);
            if self.hot[pi].refc() > 0 {
                self.non_zero[self.blk[pi] as usize] += 1;
            }
        }
        let h = self.hot[pi];
        if h.state() == CLEAN {
            self.hot[pi].set_refc(1);
        } else {
            let b = self.blk[pi] as usize;
            if h.refc() == 0 {
                self.non_zero[b] += 1;
            }
            let c = self.dirty_count(self.non_zero[b]);
            self.hot[pi].set_refc(c);
        }
        hit
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        if pages as usize > self.hot.len() {
            self.hot.resize(pages as usize, Hot::default());
            self.stale.resize(pages as usize, 0);
            self.blk.resize(pages as usize, NIL);
            self.off.resize(pages as usize, 0);
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
        if self.hot.get(pi).map_or(true, |h| h.state() == ABSENT) {
            return false;
        }
        if self.hot[pi].state() == DIRTY {
            let (b, at) = self.sorted_pos(page);
            self.sorted[b].remove(at);
            if self.hot[pi].refc() > 0 {
                self.non_zero[b] -= 1;
            }
        }
        if self.s_hand == page {
            self.s_hand = NIL;
        }
        self.bury(page);
        self.hot[pi].set_state(ABSENT);
        self.live -= 1;
        true
    }
}
