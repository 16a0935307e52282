//! Log-linear histogram of nanosecond values, in the manner of HdrHistogram: every
//! power of two is split into `2^SUB_BITS` equal sub-buckets, so values below
//! `2^(SUB_BITS + 1)` are counted exactly and a percentile read from the histogram is
//! the largest value of its bucket, at most `1/2^SUB_BITS` above the true value (and
//! never above the maximum nor below the minimum). Fixed size, no allocation when
//! recording, mergeable; count, sum, minimum and maximum are exact.
//!
//! The precision is a parameter because the two timed consumers ask for different
//! ones and their reports depend on it: the timed SSD (wafer-ssd) uses 128
//! sub-buckets (within 0.8 %), the workload player (wafer-replay) 8 (within 12.5 %).

/// Counts of values (nanoseconds) with `2^SUB_BITS` sub-buckets per power of two.
#[derive(Clone, Debug)]
pub struct Histogram<const SUB_BITS: u32> {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl<const SUB_BITS: u32> Default for Histogram<SUB_BITS> {
    fn default() -> Self {
        Histogram {
            counts: vec![0; Self::BUCKETS],
            n: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }
}

impl<const SUB_BITS: u32> Histogram<SUB_BITS> {
    /// Sub-buckets per power of two.
    pub const SUB: u64 = 1 << SUB_BITS;
    /// Buckets: `SUB` exact ones for values below `SUB`, then `SUB` per power of two
    /// from `2^SUB_BITS` to `2^63`.
    const BUCKETS: usize = (64 - SUB_BITS as usize + 1) * (1 << SUB_BITS);

    /// The bucket of `v`.
    #[inline]
    fn index(v: u64) -> usize {
        if v < Self::SUB {
            return v as usize;
        }
        let e = 63 - v.leading_zeros(); // v in [2^e, 2^(e+1)), e >= SUB_BITS
        let sub = (v >> (e - SUB_BITS)) & (Self::SUB - 1);
        (u64::from(e - SUB_BITS + 1) * Self::SUB + sub) as usize
    }

    /// Smallest and largest value of bucket `i` (both inclusive).
    fn bounds(i: usize) -> (u64, u64) {
        let i = i as u64;
        if i < Self::SUB {
            return (i, i);
        }
        let e = i / Self::SUB + u64::from(SUB_BITS) - 1;
        let shift = e - u64::from(SUB_BITS);
        let low = (1u64 << e) | ((i % Self::SUB) << shift);
        (low, low + ((1u64 << shift) - 1))
    }

    /// Count one value.
    #[inline]
    pub fn record(&mut self, v: u64) {
        self.counts[Self::index(v)] += 1;
        self.n += 1;
        self.sum += u128::from(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
    }

    /// Add all values of `other`.
    pub fn merge(&mut self, other: &Self) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.n += other.n;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Exact mean, 0 when empty.
    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum as f64 / self.n as f64
        }
    }

    /// Exact minimum, 0 when empty.
    pub fn min(&self) -> u64 {
        if self.n == 0 {
            0
        } else {
            self.min
        }
    }

    /// Exact maximum, 0 when empty.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The `q`-quantile (0..=1): the largest value of the first bucket with at least
    /// `ceil(q n)` values at or below it, capped at the maximum, at least the minimum.
    /// 0 when empty.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::bounds(i).1.min(self.max).max(self.min);
            }
        }
        self.max
    }

    /// The non-empty buckets in ascending order: `(smallest value, largest value,
    /// count)`, bounds inclusive.
    pub fn buckets(&self) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(i, &c)| {
                let (lo, hi) = Self::bounds(i);
                (lo, hi, c)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Replay's precision (8 sub-buckets).
    type Coarse = Histogram<3>;
    /// The timed SSD's precision (128 sub-buckets).
    type Fine = Histogram<7>;

    fn tile<const B: u32>() {
        let mut next = 0;
        for i in 0..Histogram::<B>::BUCKETS - 1 {
            let (lo, hi) = Histogram::<B>::bounds(i);
            assert_eq!(lo, next, "bucket {i}");
            assert_eq!(Histogram::<B>::index(lo), i);
            assert_eq!(Histogram::<B>::index(hi), i);
            next = hi + 1;
        }
        assert_eq!(Histogram::<B>::index(u64::MAX), Histogram::<B>::BUCKETS - 1);
        assert_eq!(
            Histogram::<B>::bounds(Histogram::<B>::BUCKETS - 1),
            (next, u64::MAX)
        );
    }

    #[test]
    fn buckets_tile_the_range() {
        tile::<3>();
        tile::<7>();
    }

    #[test]
    fn buckets_cover_values_monotonically() {
        let mut last = 0;
        for v in (0..5000u64).chain([1 << 20, (1 << 20) + 12345, u64::MAX / 3, u64::MAX]) {
            let b = Fine::index(v);
            assert!(b >= last || v < 5000, "bucket order");
            if v < 5000 {
                last = b;
            }
            let high = Fine::bounds(b).1;
            assert!(high >= v, "{v} above its bucket edge {high}");
            assert!((high - v) as f64 <= v as f64 / 128.0 + 1.0);
        }
        assert!(Fine::index(u64::MAX) < Fine::BUCKETS);
    }

    proptest! {
        /// Percentiles agree with the exact order statistic of the sorted samples to
        /// within one sub-bucket (12.5 % at replay's precision).
        #[test]
        fn quantiles_are_within_one_sub_bucket(mut v in proptest::collection::vec(1u64..50_000_000, 1..400)) {
            let mut h = Coarse::default();
            for &x in &v { h.record(x); }
            v.sort_unstable();
            for q in [0.5, 0.95, 0.99, 1.0] {
                let exact = v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
                let got = h.quantile(q);
                prop_assert!(got >= exact, "q {} got {} exact {}", q, got, exact);
                prop_assert!(got as f64 <= exact as f64 * (1.0 + 1.0 / Coarse::SUB as f64) + 1.0, "q {} got {} exact {}", q, got, exact);
            }
            prop_assert_eq!(h.quantile(1.0), *v.last().unwrap());
        }
    }

    #[test]
    fn merge_and_buckets() {
        let mut h = Coarse::default();
        for x in [1000, 1500, 2047] {
            h.record(x);
        }
        let mut other = Coarse::default();
        other.record(5);
        h.merge(&other);
        assert_eq!((h.count(), h.min(), h.max()), (4, 5, 2047));
        assert_eq!(h.mean(), 4552.0 / 4.0);
        assert_eq!(
            h.buckets().collect::<Vec<_>>(),
            [(5, 5, 1), (960, 1023, 1), (1408, 1535, 1), (1920, 2047, 1)]
        );
        let empty = Fine::default();
        assert_eq!((empty.min(), empty.max(), empty.mean()), (0, 0, 0.0));
        assert_eq!(empty.quantile(0.5), 0);
    }
}
