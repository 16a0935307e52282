//! A two-level bitset that finds the first set bit of a range in O(range / 4096 + 1)
//! word operations: one `u64` per 64 bits, and a summary with one bit per non-zero
//! word. Frame-array policies use it to find "the first frame from the hand with some
//! property" without walking the frames one by one (CFCLOCK's window passes).

/// Bits `0..len`, all clear at the start.
#[derive(Clone, Debug, Default)]
pub struct SummaryBits {
    words: Vec<u64>,
    /// Bit `i` set iff `words[i] != 0`.
    summary: Vec<u64>,
    len: usize,
}

impl SummaryBits {
    /// `len` clear bits.
    pub fn new(len: usize) -> Self {
        let nw = len.div_ceil(64);
        SummaryBits {
            words: vec![0; nw],
            summary: vec![0; nw.div_ceil(64)],
            len,
        }
    }

    /// Number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bits at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether bit `i` is set.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.words[i >> 6] >> (i & 63) & 1 != 0
    }

    /// Set bit `i`.
    #[inline]
    pub fn set(&mut self, i: usize) {
        let w = i >> 6;
        self.words[w] |= 1 << (i & 63);
        self.summary[w >> 6] |= 1 << (w & 63);
    }

    /// Clear bit `i`.
    #[inline]
    pub fn clear(&mut self, i: usize) {
        let w = i >> 6;
        self.words[w] &= !(1 << (i & 63));
        if self.words[w] == 0 {
            self.summary[w >> 6] &= !(1 << (w & 63));
        }
    }

    /// Set or clear bit `i`.
    #[inline]
    pub fn assign(&mut self, i: usize, on: bool) {
        if on {
            self.set(i)
        } else {
            self.clear(i)
        }
    }

    /// The first set bit in `lo..hi`, if any.
    #[inline]
    pub fn first_in(&self, lo: usize, hi: usize) -> Option<usize> {
        if lo >= hi {
            return None;
        }
        let w = lo >> 6;
        let first = self.words[w] & (!0u64 << (lo & 63));
        let found = if first != 0 {
            (w << 6) + first.trailing_zeros() as usize
        } else {
            let nw = self.first_word_from(w + 1, (hi - 1) >> 6)?;
            (nw << 6) + self.words[nw].trailing_zeros() as usize
        };
        (found < hi).then_some(found)
    }

    /// The first non-zero word index in `lo..=hi`, through the summary.
    #[inline]
    fn first_word_from(&self, lo: usize, hi: usize) -> Option<usize> {
        if lo > hi {
            return None;
        }
        let mut s = lo >> 6;
        let mut bits = self.summary[s] & (!0u64 << (lo & 63));
        loop {
            if bits != 0 {
                let w = (s << 6) + bits.trailing_zeros() as usize;
                return (w <= hi).then_some(w);
            }
            s += 1;
            if s > hi >> 6 {
                return None;
            }
            bits = self.summary[s];
        }
    }

    /// The first set bit at or after `from` going round the ring of all bits
    /// (`from..len`, then `0..from`), looking at `span` bits at most.
    #[inline]
    pub fn first_cyclic(&self, from: usize, span: usize) -> Option<usize> {
        let end = from + span;
        if end <= self.len {
            self.first_in(from, end)
        } else {
            self.first_in(from, self.len)
                .or_else(|| self.first_in(0, end - self.len))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `first_in` and `first_cyclic` agree with a plain `Vec<bool>` scan.
        #[test]
        fn matches_a_linear_scan(
            len in 1usize..9000,
            ops in proptest::collection::vec((any::<bool>(), 0usize..9000), 0..400),
            queries in proptest::collection::vec((0usize..9000, 0usize..9000), 1..50),
        ) {
            let mut b = SummaryBits::new(len);
            let mut m = vec![false; len];
            for (on, i) in ops {
                let i = i % len;
                b.assign(i, on);
                m[i] = on;
            }
            for (i, v) in m.iter().enumerate() {
                prop_assert_eq!(b.get(i), *v);
            }
            for (x, y) in queries {
                let (lo, hi) = (x % (len + 1), y % (len + 1));
                let want = (lo..hi).find(|&i| m[i]);
                prop_assert_eq!(b.first_in(lo, hi), want);
                let from = x % len;
                let span = y % (len + 1);
                let want = (0..span).map(|k| (from + k) % len).find(|&i| m[i]);
                prop_assert_eq!(b.first_cyclic(from, span), want);
            }
        }
    }

    #[test]
    fn sparse_bits_far_apart() {
        let mut b = SummaryBits::new(1 << 20);
        b.set(5);
        b.set(700_000);
        assert_eq!(b.first_in(6, 1 << 20), Some(700_000));
        assert_eq!(b.first_in(6, 700_000), None);
        assert_eq!(b.first_cyclic(700_001, 1 << 20), Some(5));
        b.clear(700_000);
        assert_eq!(b.first_in(6, 1 << 20), None);
    }
}
