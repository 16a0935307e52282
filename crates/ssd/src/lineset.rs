//! A set of cache line numbers with O(1) insert and remove and a fast pop of the
//! smallest member: one bit per line, plus one bit per 64-line word telling whether
//! the word has any member. The fully associative cache fills a write miss into the
//! lowest-numbered Stale line, else the lowest-numbered Clean one (`cache` module), so
//! it needs exactly these operations; an ordered tree gave them at O(log n) with a
//! pointer chase per level on every APU flush and every fill.

/// Line numbers `0..n`.
#[derive(Clone, Debug)]
pub(crate) struct LineSet {
    /// Bit `i % 64` of word `i / 64`: line `i` is a member.
    bits: Vec<u64>,
    /// Bit `w % 64` of word `w / 64`: `bits[w]` is not zero.
    words: Vec<u64>,
    /// No member lies in a summary word below this one.
    low: usize,
    len: usize,
}

impl LineSet {
    /// An empty set of lines `0..n`.
    pub fn new(n: u32) -> LineSet {
        let nbits = (n as usize).div_ceil(64);
        LineSet {
            bits: vec![0; nbits],
            words: vec![0; nbits.div_ceil(64)],
            low: 0,
            len: 0,
        }
    }

    /// Every line `0..n`.
    pub fn full(n: u32) -> LineSet {
        let mut s = LineSet::new(n);
        for i in 0..n {
            s.insert(i);
        }
        s
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Add line `i`; `false` if it was a member already.
    #[inline]
    pub fn insert(&mut self, i: u32) -> bool {
        let (w, b) = (i as usize / 64, i % 64);
        if self.bits[w] & (1 << b) != 0 {
            return false;
        }
        self.bits[w] |= 1 << b;
        self.words[w / 64] |= 1 << (w % 64);
        self.low = self.low.min(w / 64);
        self.len += 1;
        true
    }

    /// Drop line `i`; `false` if it was not a member.
    #[inline]
    pub fn remove(&mut self, i: u32) -> bool {
        let (w, b) = (i as usize / 64, i % 64);
        if self.bits[w] & (1 << b) == 0 {
            return false;
        }
        self.bits[w] &= !(1 << b);
        if self.bits[w] == 0 {
            self.words[w / 64] &= !(1 << (w % 64));
        }
        self.len -= 1;
        true
    }

    /// Remove and return the smallest member.
    #[inline]
    pub fn pop_first(&mut self) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        while self.words[self.low] == 0 {
            self.low += 1;
        }
        let w = self.low * 64 + self.words[self.low].trailing_zeros() as usize;
        let i = (w * 64) as u32 + self.bits[w].trailing_zeros();
        self.remove(i);
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The same answers as an ordered set under a long random mix of operations.
    #[test]
    fn behaves_like_an_ordered_set() {
        let n = 64 * 64 * 3 + 17;
        let mut a = LineSet::new(n);
        let mut b = BTreeSet::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Small numbers more often, so pops compete with inserts near the front.
            let i = ((x >> 8) % u64::from(n)) as u32 >> ((x & 3) * 3);
            match x % 5 {
                0 | 1 => assert_eq!(a.insert(i), b.insert(i)),
                2 => assert_eq!(a.remove(i), b.remove(&i)),
                3 => assert_eq!(a.pop_first(), b.pop_first()),
                _ => assert_eq!(a.is_empty(), b.is_empty()),
            }
        }
        let mut f = LineSet::full(n);
        assert!((0..n).all(|i| f.pop_first() == Some(i)));
        assert_eq!(f.pop_first(), None);
    }
}
