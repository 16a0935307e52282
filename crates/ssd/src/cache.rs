//! The on-board write cache of paper 004 (M. Huang, O. Serres, V. K. Narayana,
//! T. El-Ghazawi, G. Newby, "Efficient Cache Design for Solid-State Drives", ACM
//! Computing Frontiers 2010; Sec. 3, Algorithm 1, Table 3, Sec. 4.1; `docs/ssd.md`,
//! "Cache").
//!
//! * A line holds one flash page and is Stale (cache copy out of date or empty),
//!   Clean (cache = flash) or Dirty (cache newer than flash). Every line starts Stale.
//! * Set of page `x` = `x mod sets` (the paper does not give the index function; low
//!   LPN bits are the conventional choice).
//! * Reads hit Clean or Dirty lines with the tag (updating access time and count) and
//!   never allocate; a read miss leaves the cache unchanged.
//! * Writes follow Algorithm 1: hit -> Dirty; else the first Stale way, else the first
//!   Clean way, else the set's LRU line (smallest access time, ties to the lowest way)
//!   is flushed on demand. A write miss never reads flash.
//! * APU victims come from all dirty lines: LRU = the head of a list of dirty lines in
//!   access order (O(1)); LFU = the head of the lowest-count bucket of an ordered map
//!   of per-count lists in access order (O(log n), the paper's red-black tree of
//!   lists; `BTreeMap` is the ordered map here). An APU flush leaves access time and
//!   count alone.
//! * Fully associative (an extension): one set, an index from tag to line and bit
//!   sets of the Stale and Clean lines, so that "first" keeps its meaning (lowest
//!   line number) at O(1) (module `lineset`); the on-demand victim is the dirty-list
//!   head. The index is an array with one entry per logical page when the device's
//!   page count is known ([`OnBoardCache::with_pages`]: one load per lookup, its
//!   memory allocated zeroed so the OS supplies only the pages a run touches), a hash
//!   map otherwise.

use crate::config::{Apu, Assoc, CacheConfig};
use crate::lineset::LineSet;
use crate::list::{Links, List, NIL};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::BTreeMap;

/// Table 3 states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum LineState {
    /// Out of date in the cache (or never filled).
    Stale,
    /// Same data in cache and flash.
    Clean,
    /// Cache newer than flash.
    Dirty,
}

/// One cache line's metadata (Fig. 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Line {
    /// Logical page held.
    pub tag: u64,
    /// Time of the last read or write access, ns.
    pub time: u64,
    /// Accesses since the line was allocated to this tag.
    pub count: u32,
    /// Table 3 state.
    pub state: LineState,
}

/// What happened in the cache, for the report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    /// Page reads served by the cache.
    pub read_hits: u64,
    /// Page reads sent to flash.
    pub read_misses: u64,
    /// Page writes to a line already holding the page.
    pub write_hits: u64,
    /// Write misses that took a Stale line.
    pub fills_stale: u64,
    /// Write misses that took a Clean line.
    pub fills_clean: u64,
    /// Write misses that flushed a dirty line first (on-demand updates).
    pub on_demand_flushes: u64,
    /// Dirty lines flushed in idle time.
    pub apu_flushes: u64,
    /// Dirty lines dropped by trims.
    pub trimmed_dirty: u64,
}

struct FullIndex {
    map: TagIndex,
    stale: LineSet,
    clean: LineSet,
}

/// Line of each cached page of a fully associative cache.
enum TagIndex {
    /// Page -> line.
    Hash(FxHashMap<u64, u32>),
    /// Entry `page`: its line + 1, 0 when not cached (zero-filled memory is "empty").
    Dense(Vec<u32>),
}

impl TagIndex {
    #[inline]
    fn get(&self, lpn: u64) -> Option<u32> {
        match self {
            TagIndex::Hash(m) => m.get(&lpn).copied(),
            TagIndex::Dense(v) => match v.get(lpn as usize) {
                Some(&i) if i > 0 => Some(i - 1),
                _ => None,
            },
        }
    }

    #[inline]
    fn insert(&mut self, lpn: u64, line: u32) {
        match self {
            TagIndex::Hash(m) => {
                m.insert(lpn, line);
            }
            TagIndex::Dense(v) => match v.get_mut(lpn as usize) {
                Some(e) => *e = line + 1,
                // A page beyond the device's count (the device refuses those first).
                None => {
                    let mut m: FxHashMap<u64, u32> = v
                        .iter()
                        .enumerate()
                        .filter(|&(_, &i)| i > 0)
                        .map(|(p, &i)| (p as u64, i - 1))
                        .collect();
                    m.insert(lpn, line);
                    *self = TagIndex::Hash(m);
                }
            },
        }
    }

    #[inline]
    fn remove(&mut self, lpn: u64) {
        match self {
            TagIndex::Hash(m) => {
                m.remove(&lpn);
            }
            TagIndex::Dense(v) => {
                if let Some(e) = v.get_mut(lpn as usize) {
                    *e = 0;
                }
            }
        }
    }
}

/// The cache.
pub struct OnBoardCache {
    cfg: CacheConfig,
    sets: u64,
    /// `sets - 1` when `sets` is a power of two (the set index is then a mask).
    set_mask: Option<u64>,
    ways: u32,
    lines: Vec<Line>,
    links: Links,
    /// Dirty lines in access order (head = least recently used).
    lru: List,
    lfu_links: Links,
    lfu: BTreeMap<u32, List>,
    full: Option<FullIndex>,
    dirty: u64,
    stats: CacheStats,
}

impl OnBoardCache {
    /// An all-Stale cache (call [`CacheConfig::validate`] first).
    pub fn new(cfg: CacheConfig) -> OnBoardCache {
        OnBoardCache::with_pages(cfg, None)
    }

    /// An all-Stale cache in front of `pages` logical pages (page numbers `0..pages`;
    /// a fully associative cache then indexes its tags with an array, one `u32` per
    /// page, instead of a hash map). `None`, or more pages than a `u32` array of
    /// 16 GiB holds, keeps the hash map.
    pub fn with_pages(cfg: CacheConfig, pages: Option<u64>) -> OnBoardCache {
        let n = cfg.lines as usize;
        let full = matches!(cfg.assoc, Assoc::Full).then(|| FullIndex {
            map: match pages {
                Some(p) if p <= 1 << 32 => TagIndex::Dense(vec![0; p as usize]),
                _ => TagIndex::Hash(FxHashMap::with_capacity_and_hasher(n, Default::default())),
            },
            stale: LineSet::full(cfg.lines),
            clean: LineSet::new(cfg.lines),
        });
        OnBoardCache {
            cfg,
            sets: u64::from(cfg.sets()),
            set_mask: cfg
                .sets()
                .is_power_of_two()
                .then(|| u64::from(cfg.sets()) - 1),
            ways: cfg.ways(),
            lines: vec![
                Line {
                    tag: 0,
                    time: 0,
                    count: 0,
                    state: LineState::Stale,
                };
                n
            ],
            links: Links::new(n),
            lru: List::EMPTY,
            lfu_links: Links::new(if cfg.apu == Apu::Lfu { n } else { 0 }),
            lfu: BTreeMap::new(),
            full,
            dirty: 0,
            stats: CacheStats::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &CacheConfig {
        &self.cfg
    }

    /// Counters so far.
    pub fn stats(&self) -> &CacheStats {
        &self.stats
    }

    /// Dirty lines now.
    pub fn dirty_lines(&self) -> u64 {
        self.dirty
    }

    /// Every line's metadata, line `set * ways + way`.
    pub fn lines(&self) -> &[Line] {
        &self.lines
    }

    /// First line of the set of `lpn`.
    #[inline]
    fn set_base(&self, lpn: u64) -> u32 {
        let set = match self.set_mask {
            Some(m) => lpn & m,
            None => lpn % self.sets,
        };
        set as u32 * self.ways
    }

    #[inline]
    fn find(&self, lpn: u64) -> Option<u32> {
        if let Some(f) = &self.full {
            return f.map.get(lpn);
        }
        let base = self.set_base(lpn);
        (base..base + self.ways).find(|&i| {
            let l = &self.lines[i as usize];
            l.tag == lpn && l.state != LineState::Stale
        })
    }

    #[inline]
    fn lfu_push(&mut self, i: u32) {
        if self.cfg.apu == Apu::Lfu {
            let c = self.lines[i as usize].count;
            let l = self.lfu.entry(c).or_insert(List::EMPTY);
            self.lfu_links.push_back(l, i);
        }
    }

    #[inline]
    fn lfu_remove(&mut self, i: u32) {
        if self.cfg.apu == Apu::Lfu {
            let c = self.lines[i as usize].count;
            let l = self
                .lfu
                .get_mut(&c)
                .expect("a dirty line sits in its count's list");
            self.lfu_links.remove(l, i);
            if l.is_empty() {
                self.lfu.remove(&c);
            }
        }
    }

    /// Make line `i` (not Dirty) Dirty and list it.
    #[inline]
    fn list_dirty(&mut self, i: u32) {
        self.links.push_back(&mut self.lru, i);
        self.lfu_push(i);
        self.dirty += 1;
    }

    /// Unlist the Dirty line `i`.
    #[inline]
    fn unlist_dirty(&mut self, i: u32) {
        self.links.remove(&mut self.lru, i);
        self.lfu_remove(i);
        self.dirty -= 1;
    }

    /// Page read at `now`: `true` on a hit (served by the cache).
    #[inline]
    pub fn read(&mut self, lpn: u64, now: u64) -> bool {
        let Some(i) = self.find(lpn) else {
            self.stats.read_misses += 1;
            return false;
        };
        self.stats.read_hits += 1;
        self.touch(i, now);
        true
    }

    /// An access to a resident line: time = now, count + 1; a dirty line moves to the
    /// tail of its lists.
    #[inline]
    fn touch(&mut self, i: u32, now: u64) {
        let dirty = self.lines[i as usize].state == LineState::Dirty;
        if dirty {
            self.unlist_dirty(i);
        }
        let l = &mut self.lines[i as usize];
        l.time = now;
        l.count = l.count.saturating_add(1);
        if dirty {
            self.list_dirty(i);
        }
    }

    /// Page write at `now` (Algorithm 1). Returns the page of the dirty line flushed
    /// on demand to make room, if any.
    #[inline]
    pub fn write(&mut self, lpn: u64, now: u64) -> Option<u64> {
        if let Some(i) = self.find(lpn) {
            self.stats.write_hits += 1;
            if self.lines[i as usize].state == LineState::Clean {
                if let Some(f) = &mut self.full {
                    f.clean.remove(i);
                }
                let l = &mut self.lines[i as usize];
                l.state = LineState::Dirty;
                l.time = now;
                l.count = l.count.saturating_add(1);
                self.list_dirty(i);
            } else {
                self.touch(i, now);
            }
            return None;
        }
        let (i, victim) = self.pick(lpn);
        let old = self.lines[i as usize];
        if let Some(f) = &mut self.full {
            if old.state != LineState::Stale {
                f.map.remove(old.tag);
            }
            f.map.insert(lpn, i);
        }
        self.lines[i as usize] = Line {
            tag: lpn,
            time: now,
            count: 1,
            state: LineState::Dirty,
        };
        self.list_dirty(i);
        victim
    }

    /// The line a write miss of `lpn` takes, and the page flushed on demand.
    #[inline]
    fn pick(&mut self, lpn: u64) -> (u32, Option<u64>) {
        if let Some(f) = &mut self.full {
            if let Some(i) = f.stale.pop_first() {
                self.stats.fills_stale += 1;
                return (i, None);
            }
            if let Some(i) = f.clean.pop_first() {
                self.stats.fills_clean += 1;
                return (i, None);
            }
            let i = self.lru.head;
            debug_assert_ne!(i, NIL);
            return (i, Some(self.evict(i)));
        }
        let base = self.set_base(lpn);
        let set = base..base + self.ways;
        if let Some(i) = set
            .clone()
            .find(|&i| self.lines[i as usize].state == LineState::Stale)
        {
            self.stats.fills_stale += 1;
            return (i, None);
        }
        if let Some(i) = set
            .clone()
            .find(|&i| self.lines[i as usize].state == LineState::Clean)
        {
            self.stats.fills_clean += 1;
            return (i, None);
        }
        // All Dirty: the set's LRU line; `min_by_key` keeps the first (lowest way) of
        // equal times.
        let i = set
            .min_by_key(|&i| self.lines[i as usize].time)
            .expect("a set has at least one way");
        (i, Some(self.evict(i)))
    }

    /// Append the pages of the next `n` APU flushes (fewer if fewer lines are dirty)
    /// to `out`, in the order the APU would take them, and return the start of a
    /// [`OnBoardCache::write_hint`] cursor: the dirty-list line after them under
    /// APU-LRU (on-demand victims of the fully associative cache come from the same
    /// list), its head otherwise. A prefetch hint only.
    pub(crate) fn apu_hints(&self, n: usize, out: &mut Vec<u64>) -> u32 {
        match self.cfg.apu {
            Apu::Off => self.lru.head,
            Apu::Lru => {
                let mut i = self.lru.head;
                for _ in 0..n {
                    if i == NIL {
                        break;
                    }
                    out.push(self.lines[i as usize].tag);
                    i = self.links.next_of(i);
                }
                i
            }
            Apu::Lfu => {
                let mut left = n;
                for l in self.lfu.values() {
                    let mut i = l.head;
                    while i != NIL && left > 0 {
                        out.push(self.lines[i as usize].tag);
                        i = self.lfu_links.next_of(i);
                        left -= 1;
                    }
                    if left == 0 {
                        break;
                    }
                }
                self.lru.head
            }
        }
    }

    /// The page a read of `lpn` would send to flash now (`lpn` itself on a miss).
    /// A prefetch hint only, like [`OnBoardCache::write_hint`].
    #[inline]
    pub(crate) fn read_hint(&self, lpn: u64) -> Option<u64> {
        self.find(lpn).is_none().then_some(lpn)
    }

    /// The page a write of `lpn` would flush on demand now: on a miss in a set whose
    /// lines are all Dirty, the set's LRU line ([`OnBoardCache::write`]'s choice). A
    /// hint for prefetching, not a promise: the requests in between may change it.
    /// Fully associative, successive write misses flush successive lines from the
    /// head of the dirty list; `cursor` (from [`OnBoardCache::apu_hints`]) walks it.
    #[inline]
    pub(crate) fn write_hint(&self, lpn: u64, cursor: &mut u32) -> Option<u64> {
        if let Some(f) = &self.full {
            if f.map.get(lpn).is_some() || !f.stale.is_empty() || !f.clean.is_empty() {
                return None;
            }
            let i = *cursor;
            if i == NIL {
                return None;
            }
            *cursor = self.links.next_of(i);
            return Some(self.lines[i as usize].tag);
        }
        let base = self.set_base(lpn) as usize;
        let mut best = (u64::MAX, None);
        for l in &self.lines[base..base + self.ways as usize] {
            if l.state != LineState::Dirty || l.tag == lpn {
                return None;
            }
            if best.1.is_none() || l.time < best.0 {
                best = (l.time, Some(l.tag));
            }
        }
        best.1
    }

    /// Flush the dirty line `i` on demand; returns its page.
    #[inline]
    fn evict(&mut self, i: u32) -> u64 {
        self.unlist_dirty(i);
        self.stats.on_demand_flushes += 1;
        self.lines[i as usize].tag
    }

    /// Pick the APU victim, mark it Clean and return its page (`None` without dirty
    /// lines or with the APU off).
    pub fn apu_victim(&mut self) -> Option<u64> {
        let i = match self.cfg.apu {
            Apu::Off => return None,
            Apu::Lru => self.lru.head,
            Apu::Lfu => self.lfu.first_key_value().map_or(NIL, |(_, l)| l.head),
        };
        if i == NIL {
            return None;
        }
        self.unlist_dirty(i);
        self.lines[i as usize].state = LineState::Clean;
        if let Some(f) = &mut self.full {
            f.clean.insert(i);
        }
        self.stats.apu_flushes += 1;
        Some(self.lines[i as usize].tag)
    }

    /// Whether an APU flush would find a victim.
    #[inline]
    pub fn apu_pending(&self) -> bool {
        self.cfg.apu != Apu::Off && self.dirty > 0
    }

    /// A trim of `lpn`: its line, if any, becomes Stale (dirty data is dropped).
    pub fn discard(&mut self, lpn: u64) {
        let Some(i) = self.find(lpn) else { return };
        match self.lines[i as usize].state {
            LineState::Dirty => {
                self.unlist_dirty(i);
                self.stats.trimmed_dirty += 1;
            }
            LineState::Clean => {
                if let Some(f) = &mut self.full {
                    f.clean.remove(i);
                }
            }
            LineState::Stale => {}
        }
        if let Some(f) = &mut self.full {
            f.map.remove(lpn);
            f.stale.insert(i);
        }
        self.lines[i as usize].state = LineState::Stale;
    }

    /// Check the lists and indexes against the line states (tests).
    pub fn check_invariants(&self) -> Result<(), String> {
        let dirty = self
            .lines
            .iter()
            .filter(|l| l.state == LineState::Dirty)
            .count() as u64;
        if dirty != self.dirty {
            return Err(format!("{dirty} dirty lines, counter says {}", self.dirty));
        }
        let mut n = 0u64;
        let mut i = self.lru.head;
        let mut last_time = 0;
        while i != NIL {
            let l = &self.lines[i as usize];
            if l.state != LineState::Dirty {
                return Err(format!("line {i} is in the dirty list but {:?}", l.state));
            }
            if l.time < last_time {
                return Err("the dirty list is not in access order".into());
            }
            last_time = l.time;
            n += 1;
            i = self.links_next(i);
        }
        if n != self.dirty {
            return Err(format!(
                "dirty list holds {n} of {} dirty lines",
                self.dirty
            ));
        }
        if self.cfg.apu == Apu::Lfu {
            let listed: u64 = self.lfu.values().map(|l| self.lfu_len(l)).sum();
            if listed != self.dirty {
                return Err(format!(
                    "LFU lists hold {listed} of {} dirty lines",
                    self.dirty
                ));
            }
        }
        for s in 0..self.sets {
            let base = (s * u64::from(self.ways)) as usize;
            let set = &self.lines[base..base + self.ways as usize];
            for (a, la) in set.iter().enumerate() {
                if la.state != LineState::Stale && la.tag % self.sets != s {
                    return Err(format!("tag {} sits in set {s}", la.tag));
                }
                for lb in &set[a + 1..] {
                    if la.state != LineState::Stale
                        && lb.state != LineState::Stale
                        && la.tag == lb.tag
                    {
                        return Err(format!("tag {} is cached twice", la.tag));
                    }
                }
            }
        }
        Ok(())
    }

    fn links_next(&self, i: u32) -> u32 {
        self.links.next_of(i)
    }

    fn lfu_len(&self, l: &List) -> u64 {
        let mut n = 0;
        let mut i = l.head;
        while i != NIL {
            n += 1;
            i = self.lfu_links.next_of(i);
        }
        n
    }
}
