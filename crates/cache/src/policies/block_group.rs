//! Resident pages grouped by erase block: the shared state of the block-level policies
//! (FAB, BPLRU, LB-CLOCK).
//!
//! A *block group* is the set of resident pages with the same block id (`LPN div ppb`,
//! densified by the engine). Each group is an unordered intrusive list of its pages;
//! evicting a group reports its pages in **ascending key** (page number) order as one
//! eviction group (`docs/cache.md`, "After-cache trace"): dirty pages as write-backs,
//! clean ones as clean drops. Sorting happens only at eviction, into a scratch buffer
//! reused across evictions (no allocation once it has grown to the largest group).
//!
//! Memory: per page 2 × `u32` links + `u64` key + 1 state byte (17 bytes); per block
//! one list head (12 bytes) + a dirty count (4 bytes).

use std::num::NonZeroU32;

use crate::list::{IndexList, Links};
use crate::policy::IoSink;

/// Page state: not resident.
pub const ABSENT: u8 = 0;
/// Page state: resident and clean.
pub const CLEAN: u8 = 1;
/// Page state: resident and dirty.
pub const DIRTY: u8 = 2;

/// Resident pages of every block.
#[derive(Debug, Default)]
pub struct BlockGroups {
    links: Links,
    groups: Vec<IndexList>,
    dirty: Vec<u32>,
    state: Vec<u8>,
    keys: Vec<u64>,
    block_of: Vec<u32>,
    resident: u32,
    scratch: Vec<(u64, u32)>,
}

impl BlockGroups {
    /// Grow per-page arrays to ids `< pages` and per-block arrays to ids `< blocks`.
    pub fn reserve(&mut self, pages: u32, blocks: u32) {
        self.links.reserve(pages);
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, ABSENT);
            self.keys.resize(pages as usize, 0);
            self.block_of.resize(pages as usize, 0);
        }
        if blocks as usize > self.groups.len() {
            self.groups.resize(blocks as usize, IndexList::new());
            self.dirty.resize(blocks as usize, 0);
        }
    }

    /// State of `page` ([`ABSENT`], [`CLEAN`] or [`DIRTY`]).
    #[inline]
    pub fn state(&self, page: u32) -> u8 {
        self.state[page as usize]
    }

    /// Resident pages in all groups.
    #[inline]
    pub fn resident(&self) -> u32 {
        self.resident
    }

    /// Resident pages of `block`.
    #[inline]
    pub fn count(&self, block: u32) -> u32 {
        self.groups[block as usize].len()
    }

    /// Resident dirty pages of `block`.
    #[inline]
    pub fn dirty_count(&self, block: u32) -> u32 {
        self.dirty[block as usize]
    }

    /// Add the non-resident `page` (key `key`) to `block`, dirty or clean.
    #[inline]
    pub fn insert(&mut self, page: u32, block: u32, key: u64, dirty: bool) {
        debug_assert_eq!(self.state[page as usize], ABSENT);
        self.state[page as usize] = if dirty { DIRTY } else { CLEAN };
        self.keys[page as usize] = key;
        self.block_of[page as usize] = block;
        self.groups[block as usize].push_back(&mut self.links, page);
        self.dirty[block as usize] += u32::from(dirty);
        self.resident += 1;
    }

    /// Mark the resident `page` dirty; returns whether it was clean.
    #[inline]
    pub fn make_dirty(&mut self, page: u32) -> bool {
        let st = &mut self.state[page as usize];
        if *st == CLEAN {
            *st = DIRTY;
            self.dirty[self.block_of[page as usize] as usize] += 1;
            true
        } else {
            false
        }
    }

    /// Block of the resident `page`.
    #[inline]
    pub fn block_of(&self, page: u32) -> u32 {
        self.block_of[page as usize]
    }

    /// Key of the resident `page`.
    #[inline]
    pub fn key(&self, page: u32) -> u64 {
        self.keys[page as usize]
    }

    /// The pages of `block` sorted by ascending key, as (key, page), in a buffer that
    /// stays valid until the next call that takes `&mut self`.
    pub fn sorted(&mut self, block: u32) -> &[(u64, u32)] {
        self.scratch.clear();
        let list = self.groups[block as usize];
        self.scratch
            .extend(list.iter(&self.links).map(|p| (self.keys[p as usize], p)));
        self.scratch.sort_unstable();
        &self.scratch
    }

    /// Remove every page of `block` without I/O; returns how many there were.
    pub fn clear(&mut self, block: u32) -> u32 {
        let list = &mut self.groups[block as usize];
        let n = list.len();
        while let Some(p) = list.pop_front(&mut self.links) {
            self.state[p as usize] = ABSENT;
        }
        self.dirty[block as usize] = 0;
        self.resident -= n;
        n
    }

    /// Evict the whole group of `block` as one eviction group: pages in ascending key
    /// order, dirty ones written back, clean ones dropped. Returns the pages evicted.
    pub fn evict<S: IoSink>(&mut self, block: u32, io: &mut S) -> u32 {
        self.sorted(block);
        io.begin_group();
        for &(k, p) in &self.scratch {
            if self.state[p as usize] == DIRTY {
                io.write_back_keyed(p, k);
            } else {
                io.drop_clean(p);
            }
        }
        io.end_group();
        self.clear(block)
    }

    /// Drop the resident `page` without I/O (a trim); returns its block.
    pub fn remove(&mut self, page: u32) -> u32 {
        let b = self.block_of[page as usize];
        let st = std::mem::replace(&mut self.state[page as usize], ABSENT);
        self.dirty[b as usize] -= u32::from(st == DIRTY);
        self.groups[b as usize].remove(&mut self.links, page);
        self.resident -= 1;
        b
    }

    /// Whether `page` (any id) is resident; false for ids never reserved.
    pub fn is_resident(&self, page: u32) -> bool {
        self.state.get(page as usize).is_some_and(|&s| s != ABSENT)
    }

    /// Append every resident dirty page to `out`.
    pub fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(
            self.state
                .iter()
                .enumerate()
                .filter(|&(_, &s)| s == DIRTY)
                .map(|(p, _)| p as u32),
        );
    }
}

/// Offset of a page key inside its erase block (block = page number div ppb, as
/// `docs/cache.md` says; the device number, folded above bit 44 by
/// `wafer_trace::page_key`, is kept out of the division).
#[inline]
pub fn offset_in_block(key: u64, ppb: NonZeroU32) -> u32 {
    (wafer_trace::key_page(key) % u64::from(ppb.get())) as u32
}
