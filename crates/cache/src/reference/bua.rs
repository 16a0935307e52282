//! Test-only reference model for the differential test of BUA: the first
//! implementation, whose per-block sorted lists are linked lists filled by a scan
//! from the tail. Kept verbatim so the binary-searched lists in `bua.rs` are checked
//! against it event for event.

use std::collections::VecDeque;

use crate::list::{IndexList, Links, NIL};
use crate::policies::bua::BuaParams;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use wafer_trace::Op;

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
pub struct ReferenceBua {
    cap: u32,
    len: u32,
    ppb: u32,
    literal: bool,
    /// Clock of all resident pages; front = the t-hand's page. Pages that left from
    /// elsewhere than the front stay as tombstones (counted in their `rs` byte)
    /// until the hand reaches them, so the hand's sweep reads memory in order.
    ring: VecDeque<u32>,
    tombstones: u32,
    slinks: Links,
    /// Per block: its dirty resident pages in ascending key order.
    sorted: Vec<IndexList>,
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

/// Per-page key and block of [`ReferenceBua`].
#[derive(Clone, Copy, Debug, Default)]
struct PageMeta {
    key: u64,
    block: u32,
}

impl ReferenceBua {
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
    fn sorted_insert(&mut self, p: u32, b: u32) {
        let k = self.m[p as usize].key;
        let list = &mut self.sorted[b as usize];
        let mut at = list.tail();
        while let Some(q) = at {
            if self.m[q as usize].key < k {
                break;
            }
            at = list.prev(&self.slinks, q);
        }
        match at {
            None => list.push_front(&mut self.slinks, p),
            Some(q) => match list.next(&self.slinks, q) {
                Some(n) => list.insert_before(&mut self.slinks, n, p),
                None => list.push_back(&mut self.slinks, p),
            },
        }
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
                let first = self.sorted[hb].head().expect("a dirty page is in its list");
                if self.s_hand == NIL {
                    self.s_hand = first;
                }
                loop {
                    let s = self.s_hand;
                    let sb = self.m[s as usize].block as usize;
                    self.s_hand = self.sorted[sb].next(&self.slinks, s).unwrap_or(first);
                    if self.refc(s) == 0 {
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
            let b = self.m[vi].block as usize;
            self.sorted[b].remove(&mut self.slinks, v);
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

impl Policy for ReferenceBua {
    type Params = BuaParams;
    const NAME: &'static str = "bua-reference";
    const ALIASES: &'static [&'static str] = &[];
    const SUMMARY: &'static str =
        "TS-CLOCK-like clock whose dirty pages live shorter in blocks with many cold dirty pages (paper 001)";
    const CITATION: &'static str = "D. H. Kang, C. Min, Y. I. Eom, \"Block utilization-aware buffer replacement scheme for mobile NAND flash storage\", IEICE Trans. Information and Systems E97-D(9), 2014.";
    const FLASH_AWARE: bool = true;
    const BLOCK_AWARE: bool = true;

    fn new(capacity: u32, params: &BuaParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let cap = capacity.max(1);
        let mut p = ReferenceBua {
            cap,
            len: 0,
            ppb: ctx.pages_per_block.get(),
            literal: params.literal,
            ring: VecDeque::with_capacity(cap.min(1 << 24) as usize),
            tombstones: 0,
            slinks: Links::default(),
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
        self.slinks.reserve(pages);
        if pages as usize > self.m.len() {
            self.m.resize(pages as usize, PageMeta::default());
            self.rs.resize(pages as usize, 0);
        }
        if blocks as usize > self.sorted.len() {
            self.sorted.resize(blocks as usize, IndexList::new());
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
            let b = self.m[pi].block as usize;
            self.sorted[b].remove(&mut self.slinks, page);
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
