//! Latency histogram with log-linear buckets, in the manner of HdrHistogram: every
//! power of two of nanoseconds is split into [`SUB`] equal sub-buckets, so a
//! percentile read from the histogram is within 1/[`SUB`] (12.5 %) of the true value
//! above 16 ns, exact below. Fixed size (no allocation when recording), mergeable.

use serde::Serialize;

/// Sub-buckets per power of two.
pub const SUB: u64 = 8;
const SUB_BITS: u32 = 3;
/// Values below this are counted exactly, one bucket each.
const LINEAR: u64 = 2 * SUB;
const BUCKETS: usize = (LINEAR + (64 - (SUB_BITS + 1) as u64) * SUB) as usize;

/// Counts of latencies in nanoseconds.
#[derive(Clone)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram {
            counts: vec![0; BUCKETS],
            n: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }
}

#[inline]
fn index(v: u64) -> usize {
    if v < LINEAR {
        return v as usize;
    }
    let k = 63 - v.leading_zeros(); // v in [2^k, 2^(k+1)), k >= SUB_BITS + 1
    let sub = (v >> (k - SUB_BITS)) & (SUB - 1);
    (LINEAR + u64::from(k - SUB_BITS - 1) * SUB + sub) as usize
}

/// Inclusive lower and exclusive upper bound of bucket `i`.
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < LINEAR {
        return (i, i + 1);
    }
    let k = (i - LINEAR) / SUB + u64::from(SUB_BITS) + 1;
    let sub = (i - LINEAR) % SUB;
    let width = 1u64 << (k - u64::from(SUB_BITS));
    let lo = (1u64 << k) + sub * width;
    (lo, lo.saturating_add(width))
}

/// A summary of a histogram in microseconds, as reports print it.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LatencySummary {
    /// Number of samples.
    pub count: u64,
    /// Smallest sample, us.
    pub min_us: f64,
    /// Mean, us.
    pub mean_us: f64,
    /// Median, us (upper bound of its bucket, at most the maximum).
    pub p50_us: f64,
    /// 95th percentile, us.
    pub p95_us: f64,
    /// 99th percentile, us.
    pub p99_us: f64,
    /// Largest sample, us.
    pub max_us: f64,
    /// Counts per power of two: `[from_us, to_us, count]`, non-empty rows only.
    pub log2_buckets: Vec<(f64, f64, u64)>,
}

impl Histogram {
    /// Count one sample.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.counts[index(ns)] += 1;
        self.n += 1;
        self.sum += u128::from(ns);
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    /// Add all samples of `other`.
    pub fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.n += other.n;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The smallest value `v` such that at least `q` of the samples are <= `v`'s
    /// bucket: the upper bound of that bucket minus one, capped at the maximum. 0
    /// when empty.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return (bounds(i).1 - 1).min(self.max).max(self.min);
            }
        }
        self.max
    }

    /// The summary reports print.
    pub fn summary(&self) -> LatencySummary {
        if self.n == 0 {
            return LatencySummary::default();
        }
        let us = |ns: u64| ns as f64 / 1e3;
        let mut log2: Vec<(f64, f64, u64)> = Vec::new();
        for (i, &c) in self.counts.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let lo = bounds(i).0;
            let p = if lo == 0 { 0 } else { 63 - lo.leading_zeros() };
            let (from, to) = if lo == 0 {
                (0, 1)
            } else {
                (1u64 << p, 1u64 << (p + 1).min(63))
            };
            match log2.last_mut() {
                Some(last) if last.0 == us(from) => last.2 += c,
                _ => log2.push((us(from), us(to), c)),
            }
        }
        LatencySummary {
            count: self.n,
            min_us: us(self.min),
            mean_us: self.sum as f64 / self.n as f64 / 1e3,
            p50_us: us(self.quantile(0.50)),
            p95_us: us(self.quantile(0.95)),
            p99_us: us(self.quantile(0.99)),
            max_us: us(self.max),
            log2_buckets: log2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn buckets_tile_the_range() {
        let mut prev_hi = 0;
        for i in 0..BUCKETS - 1 {
            let (lo, hi) = bounds(i);
            assert_eq!(lo, prev_hi, "bucket {i}");
            assert_eq!(index(lo), i);
            assert_eq!(index(hi - 1), i);
            prev_hi = hi;
        }
        assert_eq!(index(u64::MAX), BUCKETS - 1);
    }

    proptest! {
        /// Percentiles agree with the exact order statistic of the sorted samples to
        /// within one sub-bucket (12.5 %).
        #[test]
        fn quantiles_are_within_one_sub_bucket(mut v in proptest::collection::vec(1u64..50_000_000, 1..400)) {
            let mut h = Histogram::default();
            for &x in &v { h.record(x); }
            v.sort_unstable();
            for q in [0.5, 0.95, 0.99, 1.0] {
                let exact = v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
                let got = h.quantile(q);
                prop_assert!(got >= exact, "q {} got {} exact {}", q, got, exact);
                prop_assert!(got as f64 <= exact as f64 * (1.0 + 1.0 / SUB as f64) + 1.0, "q {} got {} exact {}", q, got, exact);
            }
            prop_assert_eq!(h.quantile(1.0), *v.last().unwrap());
        }
    }

    #[test]
    fn summary_groups_powers_of_two() {
        let mut h = Histogram::default();
        for x in [1000, 1500, 2047, 2048, 100_000] {
            h.record(x);
        }
        let s = h.summary();
        assert_eq!(s.count, 5);
        assert_eq!(s.min_us, 1.0);
        assert_eq!(s.max_us, 100.0);
        assert_eq!(
            s.log2_buckets,
            vec![
                (0.512, 1.024, 1),
                (1.024, 2.048, 2),
                (2.048, 4.096, 1),
                (65.536, 131.072, 1)
            ]
        );
        let mut other = Histogram::default();
        other.record(5);
        h.merge(&other);
        assert_eq!(h.count(), 6);
        assert_eq!(h.quantile(0.0001), 5);
    }
}
