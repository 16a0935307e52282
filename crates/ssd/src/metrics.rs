//! Response-time statistics and the run report.
//!
//! Means, minima and maxima are exact. Percentiles come from a log-linear [`Histogram`]
//! (128 sub-buckets per power of two: values below 128 ns are exact, above that a
//! percentile is the upper edge of its bucket, at most 1/128 = 0.8% above the true
//! value, and never above the maximum). Per-request times, exact to the nanosecond,
//! are available through the observer of [`crate::Ssd::submit`].

use crate::cache::CacheStats;
use serde::Serialize;
use wafer_ftl::Counters;

/// Response times in nanoseconds: 128 sub-buckets per power of two, the precision
/// [`RespStats`] documents.
pub type Histogram = wafer_trace::histogram::Histogram<7>;

/// Response-time summary of one request class.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RespStats {
    /// Requests.
    pub count: u64,
    /// Exact mean, ns.
    pub mean_ns: f64,
    /// Exact minimum, ns.
    pub min_ns: u64,
    /// Median (histogram, within 0.8%).
    pub p50_ns: u64,
    /// 95th percentile.
    pub p95_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// Exact maximum, ns.
    pub max_ns: u64,
}

impl RespStats {
    /// The summary of `h`.
    pub fn of(h: &Histogram) -> RespStats {
        RespStats {
            count: h.count(),
            mean_ns: h.mean(),
            min_ns: h.min(),
            p50_ns: h.quantile(0.50),
            p95_ns: h.quantile(0.95),
            p99_ns: h.quantile(0.99),
            max_ns: h.max(),
        }
    }
}

/// One point of the decimated response-time series: a window of consecutive
/// requests (in arrival order).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeriesPoint {
    /// Arrival time of the window's last request, ns.
    pub t_ns: u64,
    /// Requests in the window.
    pub requests: u64,
    /// Mean response time in the window, ns.
    pub mean_ns: f64,
    /// Largest response time in the window, ns.
    pub max_ns: u64,
}

/// A series that keeps between `target` and `2 target` points whatever the run
/// length: when full, neighbouring windows merge and the window width doubles.
#[derive(Clone, Debug)]
pub struct Series {
    target: usize,
    width: u64,
    points: Vec<SeriesPoint>,
    cur: SeriesPoint,
}

impl Series {
    /// A series of about `target` points (at least 1).
    pub fn new(target: usize) -> Series {
        Series {
            target: target.max(1),
            width: 1,
            points: Vec::with_capacity(2 * target.max(1) + 1),
            cur: SeriesPoint {
                t_ns: 0,
                requests: 0,
                mean_ns: 0.0,
                max_ns: 0,
            },
        }
    }

    /// Add one request's response time.
    #[inline]
    pub fn record(&mut self, arrival_ns: u64, resp_ns: u64) {
        let c = &mut self.cur;
        c.t_ns = arrival_ns;
        c.mean_ns += resp_ns as f64; // a sum until the window closes
        c.max_ns = c.max_ns.max(resp_ns);
        c.requests += 1;
        if c.requests == self.width {
            self.close();
        }
    }

    fn close(&mut self) {
        let mut p = std::mem::replace(
            &mut self.cur,
            SeriesPoint {
                t_ns: 0,
                requests: 0,
                mean_ns: 0.0,
                max_ns: 0,
            },
        );
        p.mean_ns /= p.requests as f64;
        self.points.push(p);
        if self.points.len() == 2 * self.target {
            let old = std::mem::take(&mut self.points);
            for pair in old.chunks(2) {
                let (a, b) = (&pair[0], &pair[1]);
                let n = a.requests + b.requests;
                self.points.push(SeriesPoint {
                    t_ns: b.t_ns,
                    requests: n,
                    mean_ns: (a.mean_ns * a.requests as f64 + b.mean_ns * b.requests as f64)
                        / n as f64,
                    max_ns: a.max_ns.max(b.max_ns),
                });
            }
            self.width *= 2;
        }
    }

    /// The points, the partial last window included.
    pub fn finish(mut self) -> Vec<SeriesPoint> {
        if self.cur.requests > 0 {
            let mut p = self.cur.clone();
            p.mean_ns /= p.requests as f64;
            self.points.push(p);
        }
        self.points
    }
}

/// Response times by request class.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Responses {
    /// Every request (trims and empty requests included).
    pub all: RespStats,
    /// Reads.
    pub read: RespStats,
    /// Writes.
    pub write: RespStats,
}

/// Cache counters and ratios.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CacheReport {
    /// Lines.
    pub lines: u32,
    /// Sets.
    pub sets: u32,
    /// Ways (`lines` when fully associative).
    pub ways: u32,
    /// APU policy.
    pub apu: crate::Apu,
    /// Raw counters.
    #[serde(flatten)]
    pub stats: CacheStats,
    /// Page hits / page accesses (reads and writes).
    pub hit_ratio: f64,
    /// Read hits / page reads.
    pub read_hit_ratio: f64,
    /// Write hits / page writes.
    pub write_hit_ratio: f64,
    /// Dirty lines left at the end (not flushed).
    pub dirty_at_end: u64,
}

/// Flash page operations the host requests caused, as the device issued them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FlashOps {
    /// Page reads (read misses, or every read without a cache).
    pub page_reads: u64,
    /// Page programs of host data written straight through (no cache).
    pub direct_programs: u64,
    /// Page programs of on-demand updates.
    pub on_demand_programs: u64,
    /// Page programs of APU flushes.
    pub apu_programs: u64,
    /// Flash time of all of them, GC included, ns.
    pub flash_ns: u64,
    /// The FTL's own counters (GC copies, erases, merges), when there is an FTL.
    pub ftl: Option<Counters>,
}

/// Time, queueing and idleness of the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Timing {
    /// First arrival, ns.
    pub first_arrival_ns: u64,
    /// Last completion, ns.
    pub last_completion_ns: u64,
    /// `last_completion - first_arrival`, ns.
    pub span_ns: u64,
    /// Time serving requests, ns.
    pub request_busy_ns: u64,
    /// Time flushing in idle periods (APU), ns.
    pub apu_busy_ns: u64,
    /// Time neither serving nor flushing, ns (`span - request_busy - apu_busy`).
    pub idle_ns: u64,
    /// Maximal idle intervals.
    pub idle_periods: u64,
    /// Longest idle interval, ns.
    pub longest_idle_ns: u64,
    /// Idle intervals at least as long as the idle threshold.
    pub idle_periods_over_threshold: u64,
    /// Busy time / span.
    #[serde(alias = "utilisation")]
    pub utilization: f64,
    /// Requests per second of simulated time.
    pub throughput_rps: f64,
    /// Time-averaged number of requests in the device (waiting or in service).
    pub mean_in_system: f64,
    /// Most requests in the device at once.
    pub max_in_system: u64,
    /// Arrivals that found the command queue full and waited on the host side.
    pub queue_full_arrivals: u64,
    /// Timestamps earlier than their predecessor's (served as arriving with it).
    pub reordered_arrivals: u64,
}

/// Everything a run reports.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Requests served.
    pub requests: u64,
    /// Read requests.
    #[serde(rename = "read_requests")]
    pub reads: u64,
    /// Write requests.
    #[serde(rename = "write_requests")]
    pub writes: u64,
    /// Trim requests.
    #[serde(rename = "trim_requests")]
    pub trims: u64,
    /// Page reads requested (`reads`, as a cache run's read accesses).
    #[serde(rename = "reads")]
    pub read_pages: u64,
    /// Page writes requested (`writes`).
    #[serde(rename = "writes")]
    pub write_pages: u64,
    /// Requests with at least one page wrapped modulo the capacity.
    pub wrapped_requests: u64,
    /// Response times.
    pub response: Responses,
    /// The cache (`None` without one).
    pub cache: Option<CacheReport>,
    /// Flash operations.
    pub flash: FlashOps,
    /// Time and queueing.
    pub timing: Timing,
    /// Decimated response-time series.
    pub series: Vec<SeriesPoint>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_against_sorted_values() {
        let mut h = Histogram::default();
        let vals: Vec<u64> = (1..=1000u64).map(|i| i * 997).collect();
        vals.iter().for_each(|&v| h.record(v));
        for q in [0.5, 0.95, 0.99] {
            let exact = vals[((q * 1000.0) as usize) - 1];
            let got = h.quantile(q);
            assert!(
                got >= exact && got as f64 <= exact as f64 * (1.0 + 1.0 / 128.0),
                "q{q}: {got} vs {exact}"
            );
        }
        assert_eq!(RespStats::of(&h).max_ns, 997_000);
        assert_eq!(RespStats::of(&h).mean_ns, 997.0 * 500.5);
    }

    #[test]
    fn series_stays_bounded_and_keeps_totals() {
        let mut s = Series::new(10);
        for i in 0..1000u64 {
            s.record(i, i);
        }
        let p = s.finish();
        assert!(p.len() <= 21);
        assert_eq!(p.iter().map(|p| p.requests).sum::<u64>(), 1000);
        let total: f64 = p.iter().map(|p| p.mean_ns * p.requests as f64).sum();
        assert!((total - 499_500.0).abs() < 1e-6);
        assert_eq!(p.last().unwrap().max_ns, 999);
    }
}
