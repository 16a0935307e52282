//! The exact head of a sampled LRU curve: every access through an LRU stack cut at
//! a depth `K`, giving exact results at every size up to `K`.
//!
//! A spatial sample resolves distances only in steps of about `1 / rate` pages (a
//! depth `d` in the sample stands for `d / rate`), and its error at a distance `D`
//! is relative, about `1 / sqrt(D x rate)`: small caches are where SHARDS is least
//! accurate, and small caches are also where a bounded exact stack is cheap. The
//! caches of sizes up to `K` are the top `K` entries of the full stack, so a stack
//! that drops its bottom entry whenever it holds more than `K` gives their hits,
//! write-backs, residents and dirty pages exactly:
//! * a page deeper than `K` is a miss at every size up to `K`, whether or not the
//!   full stack still holds it, so it enters the head as a first reference would;
//! * a hole (trim) deeper than `K` changes nothing above `K` (a reference above it
//!   pushes the entry at `K` down one either way), so it is dropped;
//! * a dirty page falling below `K` has been written back at every size up to `K`;
//!   its interval is closed there, and when it comes back by a read it is clean at
//!   those sizes, which is what [`LruCore`] then sees.
//!
//! The sample then counts only what the head cannot see (see [`HeadView`]): hits at
//! distances beyond `K`, write-backs of intervals that left the head, at sizes above
//! `K`. Costs: one lookup of the page's head id (a hash map over the `K` keys, or
//! over a prepared trace's dense page ids a flat table) and one bounded stack update
//! per access; memory for `K` pages, plus 4 bytes per distinct page for the table.

use rustc_hash::FxHashMap;

use super::lru::{HeadView, LruCore, Tally};

/// No head id.
const NONE: u32 = u32::MAX;

/// Head ids by page key.
enum Ids {
    /// Any 64-bit key (a streamed trace).
    Map(FxHashMap<u64, u32>),
    /// Keys are dense ids below the table's length (a prepared trace); [`NONE`] where
    /// not in the head.
    Dense(Vec<u32>),
}

impl Ids {
    #[inline]
    fn get(&self, key: u64) -> Option<u32> {
        match self {
            Ids::Map(m) => m.get(&key).copied(),
            Ids::Dense(v) => Some(v[key as usize]).filter(|&id| id != NONE),
        }
    }

    #[inline]
    fn insert(&mut self, key: u64, id: u32) {
        match self {
            Ids::Map(m) => {
                m.insert(key, id);
            }
            Ids::Dense(v) => v[key as usize] = id,
        }
    }

    #[inline]
    fn remove(&mut self, key: u64) -> Option<u32> {
        match self {
            Ids::Map(m) => m.remove(&key),
            Ids::Dense(v) => {
                Some(std::mem::replace(&mut v[key as usize], NONE)).filter(|&id| id != NONE)
            }
        }
    }
}

/// The exact head (see the module docs).
pub(crate) struct Head {
    core: LruCore,
    /// Head id of each page key in it, and back.
    ids: Ids,
    keys: Vec<u64>,
    free: Vec<u32>,
    depth: u32,
}

impl Head {
    /// A head of `depth` pages (at least 1) over any page keys.
    pub(crate) fn new(depth: u32) -> Head {
        Head::with_ids(depth, Ids::Map(FxHashMap::default()))
    }

    /// A head of `depth` pages (at least 1) whose keys are dense ids below `universe`.
    pub(crate) fn dense(depth: u32, universe: u32) -> Head {
        Head::with_ids(depth, Ids::Dense(vec![NONE; universe as usize]))
    }

    fn with_ids(depth: u32, ids: Ids) -> Head {
        let depth = depth.max(1);
        Head {
            core: LruCore::new(depth + 1, 1.0),
            ids,
            keys: Vec::new(),
            free: Vec::new(),
            depth,
        }
    }

    /// What the head holds of page `key`.
    #[inline]
    pub(crate) fn view(&self, key: u64) -> HeadView {
        match self.ids.get(key) {
            Some(id) => HeadView {
                resident: true,
                dirty: self.core.is_dirty(id),
            },
            None => HeadView::default(),
        }
    }

    /// Start measuring (the warm-up is over).
    pub(crate) fn start(&mut self) {
        self.core.start(&|_| HeadView::default());
    }

    /// A read or write of page `key`: what the head held of it before.
    #[inline]
    pub(crate) fn access(&mut self, key: u64, write: bool, measured: bool) -> HeadView {
        let (id, before) = match self.ids.get(key) {
            Some(id) => (
                id,
                HeadView {
                    resident: true,
                    dirty: self.core.is_dirty(id),
                },
            ),
            None => (self.admit(key), HeadView::default()),
        };
        self.core.access(id, write, measured, HeadView::default());
        if self.core.stack.len() > self.depth {
            self.drop_bottom();
        }
        before
    }

    /// A trim of page `key`: what the head held of it before.
    pub(crate) fn trim(&mut self, key: u64, measured: bool) -> HeadView {
        let Some(id) = self.ids.remove(key) else {
            return HeadView::default();
        };
        let before = HeadView {
            resident: true,
            dirty: self.core.is_dirty(id),
        };
        self.core.trim(id, measured, HeadView::default());
        self.free.push(id);
        before
    }

    /// The head's counts at the end (sizes up to `K`), and the view of every page
    /// key it holds then, for the sample's end; `page_key` gives the page key of a
    /// key the head was given (flush-at-end merges pages whose keys follow).
    pub(crate) fn finish(self, page_key: impl Fn(u64) -> u64) -> (Tally, FxHashMap<u64, HeadView>) {
        // Every page in the head: its head id maps back to its key.
        let views: FxHashMap<u64, HeadView> = (0..self.keys.len() as u32)
            .filter(|&id| self.ids.get(self.keys[id as usize]) == Some(id))
            .map(|id| {
                (
                    self.keys[id as usize],
                    HeadView {
                        resident: true,
                        dirty: self.core.is_dirty(id),
                    },
                )
            })
            .collect();
        let keys = self.keys;
        let tally = self
            .core
            .tally(|p| page_key(keys[p as usize]), &|_| HeadView::default());
        (tally, views)
    }

    #[inline]
    fn admit(&mut self, key: u64) -> u32 {
        let id = self.free.pop().unwrap_or_else(|| {
            self.keys.push(0);
            (self.keys.len() - 1) as u32
        });
        self.core.reserve(id + 1);
        self.keys[id as usize] = key;
        self.ids.insert(key, id);
        id
    }

    /// The entry at depth `K + 1` leaves: a page is written back at every size up
    /// to `K` if dirty, and forgotten.
    #[inline]
    fn drop_bottom(&mut self) {
        if let Some(p) = self.core.stack.drop_bottom() {
            self.core.fall_off(p, self.depth + 1);
            self.ids.remove(self.keys[p as usize]);
            self.free.push(p);
        }
    }
}
