//! Tables sized by the device whose construction costs nothing per entry. Their empty
//! state is all-zero bytes, allocated zeroed (`vec![0; n]`, the allocator's calloc
//! path), so the OS supplies zero pages lazily and a run faults in only the pages it
//! touches: the page-level maps of a 476 GiB device are 518 MB, of which a short trace
//! touches a few MB.

use std::ops::Range;

/// No entry (an unmapped page, a logical block without a data block).
pub(crate) const NIL: u32 = u32::MAX;

/// `u32` entries, each [`NIL`] until set. Entries are stored complemented so that
/// [`NIL`] is zero in memory and a new table is a zeroed allocation; reading one costs
/// a `not`, comparing it with [`NIL`] nothing (the compiler tests the stored word
/// against zero).
#[derive(Clone, Debug)]
pub(crate) struct Table(Vec<u32>);

impl Table {
    /// `n` entries, all [`NIL`].
    pub fn nil(n: usize) -> Table {
        Table(vec![0; n])
    }

    /// Entry `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        !self.0[i]
    }

    /// Set entry `i`.
    #[inline]
    pub fn set(&mut self, i: usize, v: u32) {
        self.0[i] = !v;
    }

    /// Reset entries `r` to [`NIL`].
    #[inline]
    pub fn clear(&mut self, r: Range<usize>) {
        self.0[r].fill(0);
    }

    /// Entries `r`, in order.
    #[inline]
    pub fn entries(&self, r: Range<usize>) -> impl Iterator<Item = u32> + '_ {
        self.0[r].iter().map(|&e| !e)
    }

    /// Every entry, in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.entries(0..self.0.len())
    }

    /// The stored words (for loads whose values do not matter, such as prefetches).
    #[inline]
    pub fn raw(&self) -> &[u32] {
        &self.0
    }
}

/// The free blocks: recycled ones on a stack (the last freed is taken first) above the
/// never-used blocks `fresh..total`, taken in ascending order. That is the order of a
/// stack filled with every block in descending order, without an entry per block at
/// construction.
#[derive(Clone, Debug)]
pub(crate) struct FreeBlocks {
    recycled: Vec<u32>,
    fresh: u32,
    total: u32,
}

impl FreeBlocks {
    /// Blocks `0..total`, all free.
    pub fn all(total: u32) -> FreeBlocks {
        FreeBlocks {
            recycled: Vec::new(),
            fresh: 0,
            total,
        }
    }

    /// Take a free block.
    #[inline]
    pub fn pop(&mut self) -> Option<u32> {
        if let Some(b) = self.recycled.pop() {
            return Some(b);
        }
        (self.fresh < self.total).then(|| {
            self.fresh += 1;
            self.fresh - 1
        })
    }

    /// Return an erased block.
    #[inline]
    pub fn push(&mut self, b: u32) {
        self.recycled.push(b);
    }

    /// Free blocks.
    #[inline]
    pub fn len(&self) -> usize {
        self.recycled.len() + (self.total - self.fresh) as usize
    }

    /// Every free block.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.recycled.iter().copied().chain(self.fresh..self.total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_starts_nil_and_round_trips() {
        let mut t = Table::nil(5);
        assert!(t.iter().all(|e| e == NIL));
        t.set(1, 0);
        t.set(2, 7);
        assert_eq!((t.get(1), t.get(2)), (0, 7));
        t.clear(0..2);
        assert_eq!(t.iter().collect::<Vec<_>>(), [NIL, NIL, 7, NIL, NIL]);
    }

    /// The same blocks in the same order as a stack holding `total-1..=0`.
    #[test]
    fn free_blocks_behave_like_a_full_stack() {
        let mut a = FreeBlocks::all(6);
        let mut b: Vec<u32> = (0..6).rev().collect();
        for step in [0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0] {
            if step == 0 {
                assert_eq!(a.pop(), b.pop());
            } else {
                let x = a.pop().unwrap();
                assert_eq!(Some(x), b.pop());
                a.push(x);
                b.push(x);
            }
            assert_eq!(a.len(), b.len());
        }
        assert_eq!(a.pop(), None);
    }
}
