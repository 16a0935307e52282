//! Service-time histogram of the player and the summary reports print. The histogram
//! is wafer-trace's log-linear one at 8 sub-buckets per power of two: a percentile is
//! within 1/8 (12.5 %) of the true value above 16 ns, exact below.

use serde::Serialize;

/// Service times in nanoseconds, 8 sub-buckets per power of two.
pub type Histogram = wafer_trace::histogram::Histogram<3>;

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

impl LatencySummary {
    /// The summary of `h`.
    pub fn of(h: &Histogram) -> LatencySummary {
        if h.count() == 0 {
            return LatencySummary::default();
        }
        let us = |ns: u64| ns as f64 / 1e3;
        let mut log2: Vec<(f64, f64, u64)> = Vec::new();
        for (lo, _, c) in h.buckets() {
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
            count: h.count(),
            min_us: us(h.min()),
            mean_us: h.mean() / 1e3,
            p50_us: us(h.quantile(0.50)),
            p95_us: us(h.quantile(0.95)),
            p99_us: us(h.quantile(0.99)),
            max_us: us(h.max()),
            log2_buckets: log2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_groups_powers_of_two() {
        let mut h = Histogram::default();
        for x in [1000, 1500, 2047, 2048, 100_000] {
            h.record(x);
        }
        let s = LatencySummary::of(&h);
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
