//! A keyed pseudo-random permutation of `0..n`, used to scatter Zipf ranks over the
//! page space so that the hottest pages are not neighbours (a rank-ordered Zipf
//! would put all the heat in the first blocks, which flatters every block-level
//! policy).
//!
//! Construction: a 4-round balanced Feistel network over the smallest even-width
//! power-of-two domain that holds `n`, with cycle walking (re-apply until the value
//! falls below `n`). A Feistel network is a bijection whatever its round function, and
//! cycle walking restricts a bijection of the larger domain to one of `0..n`; the
//! domain is less than 4n, so on average fewer than 4 rounds of walking are needed.
//! O(1) memory and time per rank, unlike a shuffled table.

/// Bijection of `0..n` chosen by a key.
#[derive(Clone, Debug)]
pub(crate) struct Permutation {
    n: u64,
    half: u32,
    mask: u64,
    keys: [u64; 4],
}

/// SplitMix64 finaliser: a fast, well-mixed 64-bit hash (Steele, Lea & Flood,
/// OOPSLA 2014).
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Permutation {
    /// The permutation of `0..n` (n >= 1) selected by `key`.
    pub(crate) fn new(n: u64, key: u64) -> Permutation {
        let bits = 64 - (n.max(2) - 1).leading_zeros();
        let half = bits.div_ceil(2);
        let mut keys = [0u64; 4];
        let mut k = key;
        for slot in &mut keys {
            k = k.wrapping_add(0x9e37_79b9_7f4a_7c15);
            *slot = mix(k);
        }
        Permutation {
            n,
            half,
            mask: (1u64 << half) - 1,
            keys,
        }
    }

    #[inline]
    fn feistel(&self, x: u64) -> u64 {
        let (mut l, mut r) = (x >> self.half, x & self.mask);
        for k in self.keys {
            let f = mix(r ^ k) & self.mask;
            (l, r) = (r, l ^ f);
        }
        (l << self.half) | r
    }

    /// The image of `x` (`x < n`).
    #[inline]
    pub(crate) fn apply(&self, x: u64) -> u64 {
        let mut y = self.feistel(x);
        while y >= self.n {
            y = self.feistel(y);
        }
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_a_bijection_for_awkward_sizes() {
        for n in [1u64, 2, 3, 5, 64, 1000, 4097] {
            let p = Permutation::new(n, 42);
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = p.apply(x);
                assert!(y < n && !seen[y as usize], "n={n} x={x} y={y}");
                seen[y as usize] = true;
            }
        }
    }

    #[test]
    fn scatters_neighbouring_ranks() {
        let n = 1 << 20;
        let p = Permutation::new(n, 7);
        // Of the 100 hottest ranks, few land next to the previous rank's page.
        let adjacent = (1..100)
            .filter(|&x| p.apply(x).abs_diff(p.apply(x - 1)) <= 1)
            .count();
        assert!(adjacent <= 2, "{adjacent} adjacent pairs");
        assert_ne!(Permutation::new(n, 8).apply(0), p.apply(0));
    }
}
