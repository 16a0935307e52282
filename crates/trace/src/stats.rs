//! Summary statistics of a trace (`wafer trace info`), reusable by every stage.
//!
//! * Counts and bytes per op; reads, writes and trims apart.
//! * Distinct pages read, written and touched (the footprint), counted exactly with
//!   a hash map of page keys (`page_key`, so devices stay apart) under a
//!   [`Granularity`]: `Page` counts pages of the given size, `Record` counts record
//!   keys (one per request, libCacheSim's object view). Trims move no data and
//!   touch no page; zero-length requests touch none either.
//! * Re-references, which tell a page-cache-level trace (applications' reads and
//!   writes, before any cache) from a block-layer one (already filtered by the
//!   kernel's page cache): the share of page writes that overwrite a page written
//!   before, of page reads that re-read a page accessed before, and of write
//!   requests that start where the previous write on the device ended (sequential).
//! * Write range: the address span of the writes as paper 000 (TS-CLOCK, Kang, Min,
//!   Eom, IEEE MASCOTS 2014, Table II) reports it,
//!   `max(offset + len) - min(offset)` over all writes, in bytes, whatever the device
//!   (a multi-device trace gets the span of the union of its address spaces).
//! * Request sizes in power-of-two buckets: bucket `k` holds lengths in
//!   `[2^k, 2^(k+1))` bytes; zero-length requests have their own count.
//! * Duration: last minus first timestamp over the requests that carry one
//!   (min..max, since some traces are not sorted).
//! * Inter-arrival times between consecutive timestamped requests in trace order:
//!   mean (exact), p50 and p99 from a log-linear histogram (128 sub-buckets per
//!   power of two, relative error below 0.8%, reported at the bucket middle), and
//!   the number of negative gaps (times going backwards), which are left out of the
//!   summary.
//! * Requests per device.
//!
//! Memory is proportional to the number of distinct pages, as exactness demands.

use crate::error::Result;
use crate::reader::{RequestReader, BATCH};
use crate::request::{page_key, Granularity, Op, Request, SECTOR};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::BTreeMap;

/// Count and bytes of one op.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OpCount {
    /// Requests.
    pub count: u64,
    /// Bytes they address.
    pub bytes: u64,
}

/// Summary of inter-arrival gaps in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct InterArrival {
    /// Non-negative gaps summarised.
    pub gaps: u64,
    /// Gaps where time went backwards (not summarised).
    pub negative: u64,
    /// Mean gap (ns).
    pub mean_ns: f64,
    /// Median gap (ns, within 0.8%).
    pub p50_ns: u64,
    /// 99th percentile gap (ns, within 0.8%).
    pub p99_ns: u64,
    /// The largest gap (ns): a single corrupt timestamp shows as one huge gap.
    pub max_ns: u64,
}

impl InterArrival {
    /// Whether one gap makes up most of the trace's duration `duration_ns` while the
    /// others are small (over a thousand times below it at the 99th percentile): the
    /// mark of a corrupt timestamp rather than of an idle period.
    pub fn one_gap_dominates(&self, duration_ns: u64) -> bool {
        self.gaps >= 2 && self.max_ns > duration_ns / 2 && self.max_ns / 1000 > self.p99_ns.max(1)
    }
}

/// One bucket of the request size histogram.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SizeBucket {
    /// Smallest length in the bucket (bytes; a power of two, or 0 for empty requests).
    pub min_bytes: u64,
    /// Requests in it.
    pub count: u64,
}

/// Requests of one device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DeviceCount {
    /// Device number (`Request::dev`).
    pub dev: u32,
    /// Requests on it.
    pub requests: u64,
}

/// Everything `wafer trace info` reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceStats {
    /// The granularity the page counts use.
    pub granularity: Granularity,
    /// Bytes per counted unit (the page size; 512 in record mode).
    pub unit_bytes: u64,
    /// All requests.
    pub requests: u64,
    /// Read requests (`read_requests` in the JSON).
    #[serde(rename = "read_requests")]
    pub reads: OpCount,
    /// Write requests (`write_requests`).
    #[serde(rename = "write_requests")]
    pub writes: OpCount,
    /// Trim requests (`trim_requests`).
    #[serde(rename = "trim_requests")]
    pub trims: OpCount,
    /// Distinct pages (or record keys) read.
    pub pages_read: u64,
    /// Distinct pages (or record keys) written.
    pub pages_written: u64,
    /// Distinct pages (or record keys) read or written: the footprint
    /// (`footprint_pages`).
    #[serde(rename = "footprint_pages")]
    pub pages_total: u64,
    /// Page write accesses: a write request of `n` pages counts `n`
    /// (`writes`, as a run's).
    #[serde(rename = "writes")]
    pub page_writes: u64,
    /// Page write accesses to a page written before (`overwrites`).
    #[serde(rename = "overwrites")]
    pub page_overwrites: u64,
    /// Page read accesses (`reads`, as a run's).
    #[serde(rename = "reads")]
    pub page_reads: u64,
    /// Page read accesses of a page read or written before (`rereads`).
    #[serde(rename = "rereads")]
    pub page_rereads: u64,
    /// Write requests that start where the previous write on their device ended.
    pub sequential_writes: u64,
    /// Footprint in bytes (`pages_total * unit_bytes`).
    pub footprint_bytes: u64,
    /// Lowest byte written, if any write.
    pub write_min: Option<u64>,
    /// One past the highest byte written, if any write.
    pub write_end: Option<u64>,
    /// `write_end - write_min` in bytes (paper 000's write range), 0 without writes.
    pub write_range_bytes: u64,
    /// Request sizes, non-empty power-of-two buckets in ascending order.
    pub sizes: Vec<SizeBucket>,
    /// Requests with a timestamp.
    pub timed: u64,
    /// Earliest timestamp (ns).
    pub first_ns: Option<u64>,
    /// Latest timestamp (ns).
    pub last_ns: Option<u64>,
    /// `last_ns - first_ns`, 0 without times.
    pub duration_ns: u64,
    /// Inter-arrival summary.
    pub inter_arrival: InterArrival,
    /// Requests per device, ascending device numbers.
    pub devices: Vec<DeviceCount>,
}

/// Sub-buckets per power of two of the gap histogram.
const SUB_BITS: u32 = 7;

/// Log-linear histogram of u64 values.
struct LogHist {
    counts: Vec<u64>,
}

impl LogHist {
    fn new() -> LogHist {
        LogHist {
            counts: vec![0; (65 << SUB_BITS) as usize],
        }
    }

    fn index(v: u64) -> usize {
        if v < (1 << SUB_BITS) {
            return v as usize;
        }
        let exp = 63 - v.leading_zeros(); // >= SUB_BITS
        let shift = exp - SUB_BITS;
        let mant = (v >> shift) & ((1 << SUB_BITS) - 1);
        (((shift + 1) << SUB_BITS) as u64 + mant) as usize
    }

    /// Middle of the values bucket `i` holds.
    fn middle(i: usize) -> u64 {
        let i = i as u64;
        let block = i >> SUB_BITS;
        if block == 0 {
            return i;
        }
        let shift = block - 1;
        let mant = i & ((1 << SUB_BITS) - 1);
        let lo = ((1u64 << SUB_BITS) | mant) << shift;
        lo + ((1u64 << shift) >> 1)
    }

    fn add(&mut self, v: u64) {
        self.counts[Self::index(v)] += 1;
    }

    /// Value at quantile `q` (nearest rank).
    fn quantile(&self, total: u64, q: f64) -> u64 {
        if total == 0 {
            return 0;
        }
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::middle(i);
            }
        }
        0
    }
}

/// Accumulates [`TraceStats`] one request at a time.
pub struct StatsBuilder {
    gran: Granularity,
    requests: u64,
    ops: [OpCount; 3],
    /// Page key -> bit 0 read, bit 1 written.
    pages: FxHashMap<u64, u8>,
    /// Page reads, re-reads, writes, overwrites.
    refs: [u64; 4],
    sequential_writes: u64,
    /// Per device: where its last write ended.
    write_ends: FxHashMap<u32, u64>,
    write_min: u64,
    write_end: u64,
    sizes: [u64; 33],
    empty: u64,
    timed: u64,
    first: u64,
    last: u64,
    prev: Option<u64>,
    gaps: LogHist,
    gap_count: u64,
    gap_sum: f64,
    gap_max: u64,
    negative: u64,
    devices: BTreeMap<u32, u64>,
}

impl StatsBuilder {
    /// Empty statistics counting pages under `gran`.
    pub fn new(gran: Granularity) -> StatsBuilder {
        StatsBuilder {
            gran,
            requests: 0,
            ops: [OpCount::default(); 3],
            pages: FxHashMap::default(),
            refs: [0; 4],
            sequential_writes: 0,
            write_ends: FxHashMap::default(),
            write_min: u64::MAX,
            write_end: 0,
            sizes: [0; 33],
            empty: 0,
            timed: 0,
            first: u64::MAX,
            last: 0,
            prev: None,
            gaps: LogHist::new(),
            gap_count: 0,
            gap_sum: 0.0,
            gap_max: 0,
            negative: 0,
            devices: BTreeMap::new(),
        }
    }

    /// Account for one request.
    pub fn add(&mut self, r: &Request) {
        self.requests += 1;
        let len = u64::from(r.len);
        let o = &mut self.ops[r.op as usize];
        o.count += 1;
        o.bytes += len;
        if r.len == 0 {
            self.empty += 1;
        } else {
            self.sizes[(63 - len.leading_zeros()) as usize] += 1;
        }
        *self.devices.entry(r.dev).or_insert(0) += 1;
        if r.has_time() {
            self.timed += 1;
            self.first = self.first.min(r.time_ns);
            self.last = self.last.max(r.time_ns);
            if let Some(p) = self.prev {
                if r.time_ns >= p {
                    let g = r.time_ns - p;
                    self.gaps.add(g);
                    self.gap_count += 1;
                    self.gap_sum += g as f64;
                    self.gap_max = self.gap_max.max(g);
                } else {
                    self.negative += 1;
                }
            }
            self.prev = Some(r.time_ns);
        }
        let bit = match r.op {
            Op::Read => 1u8,
            Op::Write => {
                if r.len > 0 {
                    let end = r.offset.saturating_add(len);
                    self.write_min = self.write_min.min(r.offset);
                    self.write_end = self.write_end.max(end);
                    if self.write_ends.insert(r.dev, end) == Some(r.offset) {
                        self.sequential_writes += 1;
                    }
                }
                2
            }
            Op::Trim => return,
        };
        let (pages, refs) = (&mut self.pages, &mut self.refs);
        // refs[0..2]: reads, re-reads; refs[2..4]: writes, overwrites.
        let base = usize::from(bit == 2) * 2;
        let mut touch = |k: u64| {
            let b = pages.entry(k).or_insert(0);
            let again = if bit == 2 { *b & 2 != 0 } else { *b != 0 };
            refs[base] += 1;
            refs[base + 1] += u64::from(again);
            *b |= bit;
        };
        match self.gran {
            Granularity::Record => touch(page_key(r.dev, r.offset / SECTOR)),
            Granularity::Page { .. } => self.gran.for_each_key(r, touch),
        }
    }

    /// Account for a batch of requests.
    pub fn add_all(&mut self, batch: &[Request]) {
        for r in batch {
            self.add(r);
        }
    }

    /// The statistics so far.
    pub fn finish(&self) -> TraceStats {
        let mut read = 0;
        let mut written = 0;
        for &b in self.pages.values() {
            read += u64::from(b & 1);
            written += u64::from(b >> 1);
        }
        let total = self.pages.len() as u64;
        let unit = self.gran.unit();
        let mut sizes = Vec::new();
        if self.empty > 0 {
            sizes.push(SizeBucket {
                min_bytes: 0,
                count: self.empty,
            });
        }
        for (k, &c) in self.sizes.iter().enumerate() {
            if c > 0 {
                sizes.push(SizeBucket {
                    min_bytes: 1 << k,
                    count: c,
                });
            }
        }
        let has_writes = self.write_end > 0 || self.write_min != u64::MAX;
        let timed = self.timed > 0;
        TraceStats {
            granularity: self.gran,
            unit_bytes: unit,
            requests: self.requests,
            reads: self.ops[Op::Read as usize],
            writes: self.ops[Op::Write as usize],
            trims: self.ops[Op::Trim as usize],
            pages_read: read,
            pages_written: written,
            pages_total: total,
            page_reads: self.refs[0],
            page_rereads: self.refs[1],
            page_writes: self.refs[2],
            page_overwrites: self.refs[3],
            sequential_writes: self.sequential_writes,
            footprint_bytes: total.saturating_mul(unit),
            write_min: has_writes.then_some(self.write_min),
            write_end: has_writes.then_some(self.write_end),
            write_range_bytes: if has_writes {
                self.write_end - self.write_min
            } else {
                0
            },
            sizes,
            timed: self.timed,
            first_ns: timed.then_some(self.first),
            last_ns: timed.then_some(self.last),
            duration_ns: if timed { self.last - self.first } else { 0 },
            inter_arrival: InterArrival {
                gaps: self.gap_count,
                negative: self.negative,
                mean_ns: if self.gap_count > 0 {
                    self.gap_sum / self.gap_count as f64
                } else {
                    0.0
                },
                p50_ns: self.gaps.quantile(self.gap_count, 0.5),
                p99_ns: self.gaps.quantile(self.gap_count, 0.99),
                max_ns: self.gap_max,
            },
            devices: self
                .devices
                .iter()
                .map(|(&dev, &requests)| DeviceCount { dev, requests })
                .collect(),
        }
    }
}

impl TraceStats {
    /// Read `reader` to the end and summarise it; `tick` is called with the number of
    /// requests read so far after every batch (for progress bars).
    pub fn collect(
        reader: &mut dyn RequestReader,
        gran: Granularity,
        tick: &mut dyn FnMut(u64),
    ) -> Result<TraceStats> {
        let mut b = StatsBuilder::new(gran);
        let mut batch = Vec::with_capacity(BATCH);
        while reader.read_batch(&mut batch)? {
            b.add_all(&batch);
            tick(b.requests);
        }
        Ok(b.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(time_ns: u64, offset: u64, len: u32, op: Op) -> Request {
        Request {
            time_ns,
            offset,
            len,
            dev: 0,
            op,
        }
    }

    /// Hand-worked: W 0-8K, W 8K-12K (sequential), W 0-4K (overwrites page 0),
    /// R page 0 (re-read: written before), R page 10 (first), R page 10 (re-read).
    #[test]
    fn counts_overwrites_rereads_and_sequential_writes() {
        let mut b = StatsBuilder::new(Granularity::default());
        b.add(&r(1, 0, 8192, Op::Write));
        b.add(&r(2, 8192, 4096, Op::Write));
        b.add(&r(3, 0, 4096, Op::Write));
        b.add(&r(4, 0, 4096, Op::Read));
        b.add(&r(5, 40960, 4096, Op::Read));
        b.add(&r(6, 40960, 4096, Op::Read));
        let s = b.finish();
        assert_eq!((s.page_writes, s.page_overwrites), (4, 1));
        assert_eq!((s.page_reads, s.page_rereads), (3, 2));
        assert_eq!(s.sequential_writes, 1);
    }

    #[test]
    fn counts_pages_ranges_and_sizes() {
        let mut b = StatsBuilder::new(Granularity::default());
        b.add(&r(10, 0, 8192, Op::Read)); // pages 0, 1
        b.add(&r(30, 4096, 4096, Op::Write)); // page 1
        b.add(&r(20, 40960, 100, Op::Write)); // page 10, time goes back
        b.add(&r(40, 0, 1 << 20, Op::Trim)); // no pages
        b.add(&r(40, 0, 0, Op::Read)); // empty
        let s = b.finish();
        assert_eq!(s.requests, 5);
        assert_eq!(
            s.reads,
            OpCount {
                count: 2,
                bytes: 8192
            }
        );
        assert_eq!(
            s.writes,
            OpCount {
                count: 2,
                bytes: 4196
            }
        );
        assert_eq!(s.trims.count, 1);
        assert_eq!((s.pages_read, s.pages_written, s.pages_total), (2, 2, 3));
        assert_eq!(s.footprint_bytes, 3 * 4096);
        assert_eq!((s.write_min, s.write_end), (Some(4096), Some(41060)));
        assert_eq!(s.write_range_bytes, 41060 - 4096);
        let sizes: Vec<_> = s.sizes.iter().map(|b| (b.min_bytes, b.count)).collect();
        assert_eq!(
            sizes,
            vec![(0, 1), (64, 1), (4096, 1), (8192, 1), (1 << 20, 1)]
        );
        assert_eq!(s.duration_ns, 30);
        assert_eq!(s.inter_arrival.negative, 1);
        // Gaps 20, 20 (40-20), 0 (40-40).
        assert_eq!(s.inter_arrival.gaps, 3);
        assert!((s.inter_arrival.mean_ns - 40.0 / 3.0).abs() < 1e-9);
        assert_eq!(s.inter_arrival.p50_ns, 20);
    }

    #[test]
    fn histogram_quantiles_are_within_a_percent() {
        let mut h = LogHist::new();
        let vals: Vec<u64> = (1..=10_000u64).map(|i| i * i * 37).collect();
        for &v in &vals {
            h.add(v);
        }
        for q in [0.5, 0.9, 0.99] {
            let exact = vals[((q * vals.len() as f64).ceil() as usize) - 1] as f64;
            let got = h.quantile(vals.len() as u64, q) as f64;
            assert!(
                (got - exact).abs() / exact < 0.008,
                "q{q}: {got} vs {exact}"
            );
        }
        assert_eq!(LogHist::middle(LogHist::index(u64::MAX)) >> 56, 0xff);
    }
}
