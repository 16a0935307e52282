//! LRU stack distances with trims, from a Fenwick tree over access positions.
//!
//! Every entry of the LRU stack holds a mark at the position (slot) of its last
//! access; the depth of an entry is the number of marks at or after its slot
//! (R. L. Mattson, J. Gecsei, D. R. Slutz, I. L. Traiger, "Evaluation techniques for
//! storage hierarchies", IBM Systems Journal 9(2), 1970; the counting tree is
//! P. M. Fenwick, "A new data structure for cumulative frequency tables",
//! Software: Practice and Experience 24(3), 1994). Slots are renumbered (compacted)
//! when they run out, so the tree holds at most about twice the live entries, not one
//! slot per access.
//!
//! Trims make holes. A trimmed page leaves every cache it is in, and a cache with a
//! free slot takes the next miss without evicting, so the caches of all sizes are no
//! longer the top of one stack of pages. They are the top of one stack of pages and
//! holes: the trimmed page's entry stays as a hole, a cache of `C` pages holds the
//! pages among the top `C` entries, and a reference shifts the entries above it down
//! only as far as the most recent hole above it, which it fills (its own entry
//! becomes the hole in its place). Without holes this is the textbook stack update.
//! Holes never make the stack longer than the footprint: a miss adds an entry only
//! when there is no hole to fill.

use std::collections::BinaryHeap;

/// Owner of a slot that is a hole.
const HOLE: u32 = u32::MAX;
/// Owner of an unmarked slot.
const EMPTY: u32 = u32::MAX - 1;
/// Smallest slot capacity.
const MIN_SLOTS: u32 = 1024;
/// Below this many entries a compaction leaves room for three times as many again.
const ROOMY: u32 = 1 << 16;

/// What a marked slot holds, as [`Stack::walk`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A resident page (dense id).
    Page(u32),
    /// A hole left by a trim.
    Hole,
}

/// The LRU stack of pages and holes (see the module docs).
#[derive(Debug, Default)]
pub struct Stack {
    /// Fenwick tree over slots `1..=cap` (slot `s` at index `s + 1`).
    tree: Vec<u32>,
    /// Per slot: the page whose last access it is, [`HOLE`] or [`EMPTY`].
    owner: Vec<u32>,
    /// Per page: its slot + 1, or 0 when not in the stack.
    slot: Vec<u32>,
    /// Slots of holes; the most recent on top.
    holes: BinaryHeap<u32>,
    /// Next slot to use.
    next: u32,
    /// Marked slots (pages and holes).
    live: u32,
    /// No slot below it is marked: the first marked slot is found from here
    /// ([`Stack::drop_bottom`]). Slots are marked in increasing order, so it only
    /// moves up (until a compaction renumbers them from 0).
    low: u32,
}

impl Stack {
    /// An empty stack for dense page ids below `pages` (it grows on demand).
    pub fn new(pages: u32) -> Stack {
        let mut s = Stack::default();
        s.reserve(pages);
        s.resize_slots(MIN_SLOTS.max(pages.saturating_mul(2)));
        s
    }

    /// Make room for page ids below `pages`.
    pub fn reserve(&mut self, pages: u32) {
        if pages as usize > self.slot.len() {
            self.slot.resize(pages as usize, 0);
        }
    }

    /// Entries (pages and holes) in the stack.
    pub fn len(&self) -> u32 {
        self.live
    }

    /// Whether the stack is empty.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Prefetch the slot number of `page`, to be read by [`Stack::prefetch_slot`] and
    /// then [`Stack::access`] a few references later.
    #[inline]
    pub fn prefetch_page(&self, page: u32) {
        wafer_trace::prefetch::prefetch(&self.slot, page as usize);
    }

    /// Prefetch the tree node and owner entry of `page`'s slot, where [`Stack::access`]
    /// starts its depth query and its update (the slot number is read now: prefetched
    /// before by [`Stack::prefetch_page`]).
    #[inline]
    pub fn prefetch_slot(&self, page: u32) {
        if let Some(&s) = self.slot.get(page as usize) {
            if s != 0 {
                wafer_trace::prefetch::prefetch(&self.tree, s as usize);
                wafer_trace::prefetch::prefetch(&self.owner, s as usize - 1);
            }
        }
    }

    /// Whether `page` is in the stack.
    #[inline]
    pub fn contains(&self, page: u32) -> bool {
        self.slot.get(page as usize).is_some_and(|&s| s != 0)
    }

    /// A reference to `page`: its depth before it (1 = most recent), `None` on its
    /// first reference or after a trim; it is then on top.
    #[inline]
    pub fn access(&mut self, page: u32) -> Option<u32> {
        if self.next as usize == self.owner.len() {
            self.compact();
        }
        let s = self.slot[page as usize];
        let depth = (s != 0).then(|| self.depth_of_slot(s - 1));
        // Holes dropped off the bottom ([`Stack::drop_bottom`]) leave stale slots.
        while let Some(&h) = self.holes.peek() {
            if self.owner[h as usize] == HOLE {
                break;
            }
            self.holes.pop();
        }
        match self.holes.peek() {
            // The most recent hole is above the page (or the page is new): the
            // entries above the hole shift down into it; the page's entry, if any,
            // becomes a hole.
            Some(&h) if s == 0 || h > s - 1 => {
                self.holes.pop();
                self.unmark(h);
                if s != 0 {
                    self.owner[(s - 1) as usize] = HOLE;
                    self.holes.push(s - 1);
                }
            }
            _ => {
                if s != 0 {
                    self.unmark(s - 1);
                }
            }
        }
        let n = self.next;
        self.mark(n, page);
        self.slot[page as usize] = n + 1;
        self.next += 1;
        depth
    }

    /// A trim of `page`: its depth, if it was in the stack; its entry becomes a hole.
    pub fn trim(&mut self, page: u32) -> Option<u32> {
        let s = *self.slot.get(page as usize)?;
        if s == 0 {
            return None;
        }
        let d = self.depth_of_slot(s - 1);
        self.owner[(s - 1) as usize] = HOLE;
        self.holes.push(s - 1);
        self.slot[page as usize] = 0;
        Some(d)
    }

    /// Take `page` out of the stack as if it had never been referenced (a page leaving
    /// a sample); no hole is left.
    pub fn remove(&mut self, page: u32) {
        if let Some(&s) = self.slot.get(page as usize) {
            if s != 0 {
                self.unmark(s - 1);
                self.slot[page as usize] = 0;
            }
        }
    }

    /// Take the deepest entry out of the stack (a bounded stack keeping only its
    /// top): the page it held, or `None` for a hole or an empty stack.
    pub fn drop_bottom(&mut self) -> Option<u32> {
        if self.live == 0 {
            return None;
        }
        // The first marked slot, at or after `low`: each slot is passed over once
        // between compactions, so this costs O(1) amortised.
        let mut s = self.low;
        while self.owner[s as usize] == EMPTY {
            s += 1;
        }
        self.low = s + 1;
        let owner = self.owner[s as usize];
        self.unmark(s);
        match owner {
            HOLE => None,
            p => {
                self.slot[p as usize] = 0;
                Some(p)
            }
        }
    }

    /// Current depth of `page`, if it is in the stack.
    pub fn depth(&self, page: u32) -> Option<u32> {
        let s = *self.slot.get(page as usize)?;
        (s != 0).then(|| self.depth_of_slot(s - 1))
    }

    /// Call `f(entry, depth)` for every entry, most recent (depth 1) first.
    pub fn walk(&self, mut f: impl FnMut(Entry, u32)) {
        let mut depth = 0;
        for &o in self.owner[..self.next as usize].iter().rev() {
            match o {
                EMPTY => {}
                HOLE => {
                    depth += 1;
                    f(Entry::Hole, depth);
                }
                p => {
                    depth += 1;
                    f(Entry::Page(p), depth);
                }
            }
        }
    }

    #[inline]
    fn depth_of_slot(&self, s: u32) -> u32 {
        // Marks at slots >= s: all of them minus those below s.
        let mut i = s as usize;
        let mut below = 0;
        while i > 0 {
            below += self.tree[i];
            i &= i - 1;
        }
        self.live - below
    }

    #[inline]
    fn add(&mut self, s: u32, v: u32) {
        let mut i = s as usize + 1;
        let n = self.tree.len();
        while i < n {
            self.tree[i] = self.tree[i].wrapping_add(v);
            i += i & i.wrapping_neg();
        }
    }

    #[inline]
    fn mark(&mut self, s: u32, owner: u32) {
        self.owner[s as usize] = owner;
        self.add(s, 1);
        self.live += 1;
    }

    #[inline]
    fn unmark(&mut self, s: u32) {
        self.owner[s as usize] = EMPTY;
        self.add(s, u32::MAX);
        self.live -= 1;
    }

    fn resize_slots(&mut self, cap: u32) {
        self.owner = vec![EMPTY; cap as usize];
        self.tree = vec![0; cap as usize + 1];
    }

    /// Renumber the marked slots `0..live` in order, with room for as many again
    /// (three times as many for a stack of fewer than [`ROOMY`] entries, such as a
    /// bounded one: a compaction then comes every `2 x live` references instead of
    /// every `live`, and its tree still fits in a core's cache).
    #[cold]
    fn compact(&mut self) {
        let old = std::mem::take(&mut self.owner);
        let room = if self.live < ROOMY { 4 } else { 2 };
        self.resize_slots(
            MIN_SLOTS
                .max(self.live.saturating_mul(room))
                .max(self.live + 1),
        );
        self.holes.clear();
        let mut j = 0u32;
        for o in old.into_iter().take(self.next as usize) {
            match o {
                EMPTY => continue,
                HOLE => self.holes.push(j),
                p => self.slot[p as usize] = j + 1,
            }
            self.owner[j as usize] = o;
            j += 1;
        }
        debug_assert_eq!(j, self.live);
        // Linear-time Fenwick build over slots 0..live (each holds one mark).
        let n = self.tree.len();
        for i in 1..n {
            if i <= j as usize {
                self.tree[i] += 1;
            }
            let up = i + (i & i.wrapping_neg());
            if up < n {
                self.tree[up] += self.tree[i];
            }
        }
        self.next = j;
        self.low = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model: the stack as a vector of entries, most recent first.
    #[derive(Default)]
    struct Model(Vec<Option<u32>>);

    impl Model {
        fn access(&mut self, p: u32) -> Option<u32> {
            let at = self.0.iter().position(|&e| e == Some(p));
            let hole = self.0.iter().position(|e| e.is_none());
            let d = at.map(|i| i as u32 + 1);
            match (at, hole) {
                (Some(i), Some(h)) if h < i => {
                    self.0[i] = None;
                    self.0.remove(h);
                }
                (None, Some(h)) => {
                    self.0.remove(h);
                }
                (Some(i), _) => {
                    self.0.remove(i);
                }
                (None, None) => {}
            }
            self.0.insert(0, Some(p));
            d
        }
        fn trim(&mut self, p: u32) -> Option<u32> {
            let i = self.0.iter().position(|&e| e == Some(p))?;
            self.0[i] = None;
            Some(i as u32 + 1)
        }
    }

    #[test]
    fn textbook_distances() {
        let mut s = Stack::new(4);
        let got: Vec<_> = [0, 1, 2, 0, 3, 1].iter().map(|&p| s.access(p)).collect();
        assert_eq!(got, [None, None, None, Some(3), None, Some(4)]);
        assert_eq!(s.len(), 4);
    }

    /// A trim leaves a hole that the next miss fills: after A B C a cache of 2 holds
    /// {B, C}; trim B; D takes the free slot ({C, D}) and A, evicted before, stays
    /// below it.
    #[test]
    fn holes_are_filled_by_the_next_miss() {
        let mut s = Stack::new(8);
        for p in [0, 1, 2] {
            s.access(p);
        }
        assert_eq!(s.trim(1), Some(2));
        assert_eq!(s.access(3), None);
        let mut order = vec![];
        s.walk(|e, d| order.push((e, d)));
        assert_eq!(
            order,
            [
                (Entry::Page(3), 1),
                (Entry::Page(2), 2),
                (Entry::Page(0), 3)
            ]
        );
    }

    /// A stack cut at depth 20 keeps the model's top 20 entries, holes included.
    #[test]
    fn a_bounded_stack_is_the_models_top() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let mut s = Stack::new(300);
        let mut m = Model::default();
        for i in 0..40_000 {
            let p = rng.gen_range(0..300u32);
            if rng.gen_range(0..8) == 0 {
                let want = m.trim(p).filter(|&d| d <= 20);
                assert_eq!(s.trim(p), want, "step {i}");
            } else {
                let want = m.access(p).filter(|&d| d <= 20);
                assert_eq!(s.access(p), want, "step {i}");
            }
            while s.len() > 20 {
                let want = match m.0[20] {
                    Some(q) if s.contains(q) => Some(q),
                    _ => None,
                };
                assert_eq!(s.drop_bottom(), want, "step {i}");
                if let Some(q) = want {
                    assert_eq!(s.depth(q), None);
                }
            }
            let mut got = vec![];
            s.walk(|e, _| {
                got.push(match e {
                    Entry::Page(p) => Some(p),
                    Entry::Hole => None,
                })
            });
            assert_eq!(got[..], m.0[..got.len()], "step {i}");
        }
    }

    /// Random accesses and trims against the model, across compactions.
    #[test]
    fn matches_the_model() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut s = Stack::new(0);
        let mut m = Model::default();
        for i in 0..40_000 {
            let p = rng.gen_range(0..300u32);
            s.reserve(p + 1);
            if rng.gen_range(0..8) == 0 {
                assert_eq!(s.trim(p), m.trim(p), "step {i}");
            } else {
                assert_eq!(s.access(p), m.access(p), "step {i}");
            }
            if i % 997 == 0 {
                let mut got = vec![];
                s.walk(|e, _| {
                    got.push(match e {
                        Entry::Page(p) => Some(p),
                        Entry::Hole => None,
                    })
                });
                assert_eq!(got, m.0, "step {i}");
                for q in 0..300 {
                    let d = m.0.iter().position(|&e| e == Some(q)).map(|i| i as u32 + 1);
                    assert_eq!(s.depth(q), d);
                }
            }
        }
    }
}
