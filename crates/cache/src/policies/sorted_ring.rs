//! The key-ordered ring of Sorted-Clock and Sorted-Clock-WSR: resident pages in
//! ascending page-key order, swept by a hand that wraps from the highest key to the
//! lowest (Circular-SCAN, as in WOW: Gill & Modha, FAST 2005).
//!
//! Representation: a B+-tree of height two. Pages sit in buckets of at most
//! [`BUCKET`] (key, page) entries, each bucket sorted, the buckets ordered by their
//! first keys in a directory. Finding a key is two binary searches over contiguous
//! memory; inserting or removing moves at most one bucket's entries (and, on a split
//! or merge, the directory); the hand's sweep reads entries sequentially. Bucket
//! storage is one slab with a free list, so nothing is allocated once the slab has
//! grown to the high-water mark. Memory: 12 bytes per entry in buckets that stay at
//! least a quarter full (merging keeps them so), i.e. at most 48 bytes per resident
//! page, plus 16 bytes per bucket.

/// Entries per bucket.
pub const BUCKET: usize = 128;

/// A position in the ring: directory slot and index in that bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    dir: u32,
    at: u32,
}

/// Resident pages ordered by key.
#[derive(Debug, Default)]
pub struct SortedRing {
    /// Slab of bucket keys: bucket `s` holds `keys[s*BUCKET .. s*BUCKET + lens[s]]`.
    keys: Vec<u64>,
    /// Slab of bucket pages, parallel to `keys`.
    pages: Vec<u32>,
    /// Entries per slab bucket.
    lens: Vec<u32>,
    /// Slab buckets in key order.
    dir: Vec<u32>,
    /// First key of each bucket of `dir`.
    firsts: Vec<u64>,
    /// Unused slab buckets.
    free: Vec<u32>,
    len: u32,
}

impl SortedRing {
    /// An empty ring.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of pages.
    #[inline]
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the ring is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn base(&self, d: usize) -> usize {
        self.dir[d] as usize * BUCKET
    }

    #[inline]
    fn blen(&self, d: usize) -> usize {
        self.lens[self.dir[d] as usize] as usize
    }

    /// Directory slot whose bucket would hold `key` (the last bucket whose first key
    /// is <= key, or the first bucket). The ring must not be empty.
    #[inline]
    fn bucket_for(&self, key: u64) -> usize {
        self.firsts.partition_point(|&f| f <= key).saturating_sub(1)
    }

    /// A fresh slab bucket.
    fn alloc(&mut self) -> u32 {
        if let Some(s) = self.free.pop() {
            return s;
        }
        let s = self.lens.len() as u32;
        self.lens.push(0);
        self.keys.resize(self.keys.len() + BUCKET, 0);
        self.pages.resize(self.pages.len() + BUCKET, 0);
        s
    }

    /// Insert `page` with `key` (not present).
    pub fn insert(&mut self, key: u64, page: u32) {
        self.len += 1;
        if self.dir.is_empty() {
            let s = self.alloc();
            self.dir.push(s);
            self.firsts.push(key);
        }
        let d = self.bucket_for(key);
        let (base, n) = (self.base(d), self.blen(d));
        let at = self.keys[base..base + n].partition_point(|&k| k < key);
        self.keys.copy_within(base + at..base + n, base + at + 1);
        self.pages.copy_within(base + at..base + n, base + at + 1);
        self.keys[base + at] = key;
        self.pages[base + at] = page;
        self.lens[self.dir[d] as usize] += 1;
        if at == 0 {
            self.firsts[d] = key;
        }
        if n + 1 == BUCKET {
            self.split(d);
        }
    }

    /// Split the full bucket at slot `d` into two halves.
    fn split(&mut self, d: usize) {
        let s = self.alloc();
        let (from, to) = (self.base(d) + BUCKET / 2, s as usize * BUCKET);
        self.keys.copy_within(from..from + BUCKET / 2, to);
        self.pages.copy_within(from..from + BUCKET / 2, to);
        self.lens[self.dir[d] as usize] = (BUCKET / 2) as u32;
        self.lens[s as usize] = (BUCKET / 2) as u32;
        self.dir.insert(d + 1, s);
        self.firsts.insert(d + 1, self.keys[to]);
    }

    /// The position of `key`, if present.
    pub fn find(&self, key: u64) -> Option<Cursor> {
        if self.dir.is_empty() {
            return None;
        }
        let d = self.bucket_for(key);
        let base = self.base(d);
        let at = self.keys[base..base + self.blen(d)]
            .binary_search(&key)
            .ok()?;
        Some(Cursor {
            dir: d as u32,
            at: at as u32,
        })
    }

    /// The first position with key >= `key`, wrapping to the smallest key if there is
    /// none; `None` if the ring is empty.
    pub fn seek(&self, key: u64) -> Option<Cursor> {
        if self.dir.is_empty() {
            return None;
        }
        let d = self.bucket_for(key);
        let base = self.base(d);
        let at = self.keys[base..base + self.blen(d)].partition_point(|&k| k < key);
        let c = Cursor {
            dir: d as u32,
            at: at as u32,
        };
        Some(if at == self.blen(d) { self.next(c) } else { c })
    }

    /// The position after `c`, wrapping from the largest key to the smallest.
    #[inline]
    pub fn next(&self, c: Cursor) -> Cursor {
        if c.at as usize + 1 < self.blen(c.dir as usize) {
            Cursor {
                dir: c.dir,
                at: c.at + 1,
            }
        } else if c.dir as usize + 1 < self.dir.len() {
            Cursor {
                dir: c.dir + 1,
                at: 0,
            }
        } else {
            Cursor { dir: 0, at: 0 }
        }
    }

    /// The (key, page) at `c`.
    #[inline]
    pub fn get(&self, c: Cursor) -> (u64, u32) {
        let i = self.base(c.dir as usize) + c.at as usize;
        (self.keys[i], self.pages[i])
    }

    /// Remove the entry at `c`; positions after it in its bucket shift down.
    pub fn remove(&mut self, c: Cursor) {
        let (d, at) = (c.dir as usize, c.at as usize);
        let (base, n) = (self.base(d), self.blen(d));
        self.keys.copy_within(base + at + 1..base + n, base + at);
        self.pages.copy_within(base + at + 1..base + n, base + at);
        self.lens[self.dir[d] as usize] -= 1;
        self.len -= 1;
        let n = n - 1;
        if n == 0 {
            self.free.push(self.dir.remove(d));
            self.firsts.remove(d);
            return;
        }
        if at == 0 {
            self.firsts[d] = self.keys[base];
        }
        if n < BUCKET / 4 {
            // Merge with a neighbour when both fit in half a bucket, so buckets stay
            // at least a quarter full on average and the directory short.
            if d > 0 && self.blen(d - 1) + n <= BUCKET / 2 {
                self.merge(d - 1);
            } else if d + 1 < self.dir.len() && self.blen(d + 1) + n <= BUCKET / 2 {
                self.merge(d);
            }
        }
    }

    /// Append bucket `d + 1` to bucket `d` and free it.
    fn merge(&mut self, d: usize) {
        let (to, n) = (self.base(d), self.blen(d));
        let (from, m) = (self.base(d + 1), self.blen(d + 1));
        self.keys.copy_within(from..from + m, to + n);
        self.pages.copy_within(from..from + m, to + n);
        self.lens[self.dir[d] as usize] += m as u32;
        self.lens[self.dir[d + 1] as usize] = 0;
        self.free.push(self.dir.remove(d + 1));
        self.firsts.remove(d + 1);
    }

    /// Every (key, page) in ascending key order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        (0..self.dir.len()).flat_map(move |d| {
            let base = self.base(d);
            (base..base + self.blen(d)).map(move |i| (self.keys[i], self.pages[i]))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[derive(Debug, Clone)]
    enum Cmd {
        Insert(u64),
        Remove(u64),
        Seek(u64),
    }

    fn cmd() -> impl Strategy<Value = Cmd> {
        prop_oneof![
            3 => (0u64..2000).prop_map(Cmd::Insert),
            2 => (0u64..2000).prop_map(Cmd::Remove),
            1 => (0u64..2100).prop_map(Cmd::Seek),
        ]
    }

    proptest! {
        /// The ring behaves like an ordered map under any mix of inserts, removals and
        /// seeks, across bucket splits and merges.
        #[test]
        fn matches_btreemap_model(cmds in proptest::collection::vec(cmd(), 0..3000)) {
            let mut r = SortedRing::new();
            let mut model: BTreeMap<u64, u32> = BTreeMap::new();
            for c in cmds {
                match c {
                    Cmd::Insert(k) if !model.contains_key(&k) => {
                        r.insert(k, k as u32 * 3);
                        model.insert(k, k as u32 * 3);
                    }
                    Cmd::Remove(k) => {
                        let at = r.find(k);
                        prop_assert_eq!(at.is_some(), model.contains_key(&k));
                        if let Some(at) = at {
                            prop_assert_eq!(r.get(at), (k, k as u32 * 3));
                            r.remove(at);
                            model.remove(&k);
                        }
                    }
                    Cmd::Seek(k) => {
                        let want = model.range(k..).next().or_else(|| model.iter().next());
                        let got = r.seek(k).map(|c| r.get(c));
                        prop_assert_eq!(got, want.map(|(&k, &v)| (k, v)));
                        if let Some(c) = r.seek(k) {
                            let n = r.get(r.next(c)).0;
                            let want = model
                                .range(r.get(c).0 + 1..)
                                .next()
                                .or_else(|| model.iter().next())
                                .map(|e| *e.0);
                            prop_assert_eq!(Some(n), want);
                        }
                    }
                    _ => {}
                }
                prop_assert_eq!(r.len() as usize, model.len());
            }
            let all: Vec<(u64, u32)> = r.iter().collect();
            let want: Vec<(u64, u32)> = model.into_iter().collect();
            prop_assert_eq!(all, want);
        }
    }
}
