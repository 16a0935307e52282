//! The timed device: an FCFS server over the cache and the flash
//! (`docs/ssd.md`, "Device timing"; paper 004, Huang et al., "Efficient Cache Design
//! for Solid-State Drives", ACM Computing Frontiers 2010, Sec. 3.2 and 4.2).
//!
//! # Model
//! * **Requests** are served one at a time in arrival order (first come, first
//!   served). A request starts at `max(arrival, end of the previous request, end of
//!   an APU flush in progress)` and completes when its last page does. Response time
//!   = completion - arrival. Because service is FCFS, the whole event history follows
//!   from the arrivals in order (Lindley's recurrence), which is what makes the model
//!   exact to the nanosecond and fast; idle periods, APU firings and queue lengths
//!   are events between arrivals and are computed exactly in [`Ssd::submit`].
//! * **Pages** of a request are served in ascending order. The *host link* (host
//!   interface and controller, one serial lane) carries every page once: `t_bus` for
//!   its transfer, plus `t_cache` when the cache DRAM holds or takes it. Flash work
//!   runs on `units = channels x ways` parallel units; page `p` sits on unit
//!   `p mod units` (logical striping; channels and ways only matter through their
//!   product in this model). Per page:
//!   - read hit: link `t_cache + t_bus`;
//!   - flash read (miss, or no cache): the read is issued to its unit at the request's
//!     start and takes `t_read` there; the page then crosses the link (`t_bus`) in
//!     order, after the previous page;
//!   - write into the cache: link `t_bus`, then `t_cache`; an on-demand update first
//!     programs the victim (`t_program` + GC on the victim's unit) and the new data
//!     enters the line only when that program has finished (the line holds the only
//!     copy of the victim until then), so the link waits for it;
//!   - write without a cache: link `t_bus`, then `t_program` + GC on the page's unit,
//!     which overlaps the transfer of the next page.
//!
//!   The request completes when its last page has (link and units). With one unit this
//!   is a plain single server (the sum of the page times) except that a page's transfer
//!   overlaps flash work of its neighbours (a pipelined controller); with zero `t_bus`
//!   and `t_cache` it is exactly the sum of the flash times.
//! * **Idle**: the device is idle when no request is in it and no flush runs. After
//!   `idle_threshold` of continuous idleness one APU flush starts (one page
//!   program, GC included); when it ends the device is idle again and the next flush
//!   needs another full threshold. A request arriving during a flush waits for it
//!   (the controller runs the flush). An arrival exactly at the threshold wins; no
//!   flush starts. No flushes run after the last request.
//! * **Queue**: the number in the device N(t) (waiting or in service) is integrated
//!   over time independently of the response times, so Little's law
//!   (mean N = throughput x mean response) is a check, not an identity of the code.

use crate::cache::OnBoardCache;
use crate::config::SsdConfig;
use crate::error::SsdError;
use crate::flash::Flash;
use crate::list::NIL;
use crate::metrics::{
    CacheReport, FlashOps, Histogram, Report, RespStats, Responses, Series, Timing,
};
use std::collections::VecDeque;
use wafer_ftl::FtlError;
use wafer_trace::{Op, Request};

/// Points of the response-time series (it keeps between this and twice as many).
pub const SERIES_POINTS: usize = 500;

/// Requests per [`Ssd::prefetch`] hint in [`crate::run`]: enough independent cache
/// misses to keep the memory system busy, few enough that their lines stay cached
/// until used.
pub const PREFETCH_AHEAD: usize = 64;

/// Pages of one request hinted at most (the first ones; long requests are rare and
/// their neighbouring mapping entries share cache lines).
const HINT_PAGES: u64 = 8;

/// When one request arrived, started and completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// Arrival, ns.
    pub arrival_ns: u64,
    /// Start of service, ns.
    pub start_ns: u64,
    /// Completion, ns.
    pub done_ns: u64,
    /// The request's op.
    pub op: Op,
    /// Pages it touched.
    pub pages: u64,
}

impl Completion {
    /// Completion - arrival.
    pub fn response_ns(&self) -> u64 {
        self.done_ns - self.arrival_ns
    }
}

/// The timed SSD over the flash back end `F`.
pub struct Ssd<F: Flash> {
    cfg: SsdConfig,
    flash: F,
    cache: Option<OnBoardCache>,
    units: Vec<u64>,
    nunits: u64,
    page_size: u64,
    /// `log2(page_size)` when it is a power of two (page numbers by shifting).
    page_shift: Option<u32>,
    logical_pages: u64,
    started: bool,
    first_arrival: u64,
    last_arrival: u64,
    /// End of the last busy interval (request or flush): the device is free from here.
    free_at: u64,
    /// Completion times of requests in the device at the last event (FCFS: sorted).
    in_system: VecDeque<u64>,
    area: u128,
    area_t: u64,
    max_in_system: u64,
    queue_full: u64,
    reordered: u64,
    request_busy: u64,
    apu_busy: u64,
    idle: u64,
    idle_periods: u64,
    longest_idle: u64,
    idle_over: u64,
    reads: u64,
    writes: u64,
    trims: u64,
    read_pages: u64,
    write_pages: u64,
    wrapped: u64,
    h_all: Histogram,
    h_read: Histogram,
    h_write: Histogram,
    series: Series,
    ops: FlashOps,
    /// Scratch for [`Ssd::prefetch`].
    hints: Vec<u64>,
    /// APU flushes counted at the last [`Ssd::prefetch`].
    apu_seen: u64,
}

impl<F: Flash> Ssd<F> {
    /// A device with an empty (all-Stale) cache over `flash`.
    pub fn new(cfg: SsdConfig, flash: F) -> Result<Ssd<F>, SsdError> {
        cfg.validate()?;
        let nunits = flash.units().max(1);
        Ok(Ssd {
            cache: cfg.cache.map(OnBoardCache::new),
            units: vec![0; nunits as usize],
            nunits: u64::from(nunits),
            page_size: flash.page_size(),
            page_shift: flash
                .page_size()
                .is_power_of_two()
                .then(|| flash.page_size().trailing_zeros()),
            logical_pages: flash.logical_pages(),
            cfg,
            flash,
            started: false,
            first_arrival: 0,
            last_arrival: 0,
            free_at: 0,
            in_system: VecDeque::new(),
            area: 0,
            area_t: 0,
            max_in_system: 0,
            queue_full: 0,
            reordered: 0,
            request_busy: 0,
            apu_busy: 0,
            idle: 0,
            idle_periods: 0,
            longest_idle: 0,
            idle_over: 0,
            reads: 0,
            writes: 0,
            trims: 0,
            read_pages: 0,
            write_pages: 0,
            wrapped: 0,
            h_all: Histogram::default(),
            h_read: Histogram::default(),
            h_write: Histogram::default(),
            series: Series::new(SERIES_POINTS),
            ops: FlashOps::default(),
            hints: Vec::new(),
            apu_seen: 0,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &SsdConfig {
        &self.cfg
    }

    /// The cache, if any.
    pub fn cache(&self) -> Option<&OnBoardCache> {
        self.cache.as_ref()
    }

    /// The flash back end.
    pub fn flash(&self) -> &F {
        &self.flash
    }

    /// The parallel unit of page `p`.
    #[inline]
    fn unit(&self, p: u64) -> usize {
        if self.nunits == 1 {
            0
        } else {
            (p % self.nunits) as usize
        }
    }

    /// First and last page of `req`, as [`Request::page_range`] but by shifts when the
    /// page size allows (a 64-bit division is the dearest instruction on a request's
    /// path), and with an end past 2^64 bytes saturated (out of range either way).
    #[inline]
    fn page_range(&self, req: &Request) -> Option<(u64, u64)> {
        if req.len == 0 {
            return None;
        }
        let last = req.offset.saturating_add(u64::from(req.len) - 1);
        Some(match self.page_shift {
            Some(s) => (req.offset >> s, last >> s),
            None => (req.offset / self.page_size, last / self.page_size),
        })
    }

    /// Account the busy interval `[s, e]` (`s >= free_at`): the gap before it is idle.
    #[inline]
    fn busy(&mut self, s: u64, e: u64) {
        if self.started && s > self.free_at {
            let gap = s - self.free_at;
            self.idle += gap;
            self.idle_periods += 1;
            self.longest_idle = self.longest_idle.max(gap);
            if gap >= self.cfg.idle_threshold_ns {
                self.idle_over += 1;
            }
        }
        self.free_at = e;
    }

    /// Run the APU in the idle time before an arrival at `a`.
    #[inline]
    fn idle_until(&mut self, a: u64) -> Result<(), SsdError> {
        let Some(cache) = &self.cache else {
            return Ok(());
        };
        if !self.started || !cache.apu_pending() || self.free_at >= a {
            return Ok(());
        }
        loop {
            let fire = self.free_at + self.cfg.idle_threshold_ns;
            if fire >= a {
                return Ok(());
            }
            let Some(victim) = self.cache.as_mut().and_then(|c| c.apu_victim()) else {
                return Ok(());
            };
            let d = self.flash.program(victim)?;
            self.ops.apu_programs += 1;
            self.ops.flash_ns += d;
            self.apu_busy += d;
            self.busy(fire, fire + d);
        }
    }

    /// Bring the time integral of N(t) up to `t`, retiring completions up to it.
    #[inline]
    fn advance_queue(&mut self, t: u64) {
        while let Some(&c) = self.in_system.front() {
            if c > t {
                break;
            }
            self.area += self.in_system.len() as u128 * u128::from(c - self.area_t);
            self.area_t = c;
            self.in_system.pop_front();
        }
        self.area += self.in_system.len() as u128 * u128::from(t - self.area_t);
        self.area_t = t;
    }

    /// Hint that `reqs` come next. Loads the flash back end's table entries for the
    /// pages they will probably send to flash (a read that misses the cache, the
    /// victim a write miss would flush, every page without a cache, and the next APU
    /// victims, as many as flushed since the last hint) in one sweep of
    /// independent loads, whose cache misses overlap instead of stalling the requests
    /// one after the other. Changes nothing observable; [`crate::run`] calls it for
    /// every [`PREFETCH_AHEAD`] requests, and a caller of [`Ssd::submit`] can too:
    ///
    /// ```
    /// use wafer_ssd::{FtlFlash, Ssd, SsdConfig, PREFETCH_AHEAD};
    /// use wafer_trace::{Op, Request};
    /// let dev = wafer_ftl::Device::from_profile("samsung-k9")?;
    /// let mut ssd = Ssd::new(SsdConfig::default(), FtlFlash::new(&dev)?)?;
    /// let reqs: Vec<Request> = (0..1000u64)
    ///     .map(|i| Request {
    ///         time_ns: i * 1_000_000,
    ///         offset: (i * 7919 % 4096) * 4096,
    ///         len: 4096,
    ///         dev: 0,
    ///         op: Op::Write,
    ///     })
    ///     .collect();
    /// for chunk in reqs.chunks(PREFETCH_AHEAD) {
    ///     ssd.prefetch(chunk); // a hint: serving is the same without it
    ///     for r in chunk {
    ///         ssd.submit(r, r.time_ns)?;
    ///     }
    /// }
    /// assert_eq!(ssd.finish().writes, 1000);
    /// # Ok::<(), wafer_ssd::SsdError>(())
    /// ```
    pub fn prefetch(&mut self, reqs: &[Request]) {
        if !self.flash.prefetches() {
            return;
        }
        let mut hints = std::mem::take(&mut self.hints);
        hints.clear();
        let lp = self.logical_pages.max(1);
        // APU flushes to come: as many as the last chunk of requests saw.
        let mut cursor = NIL;
        if let Some(c) = &self.cache {
            let flushes = c.stats().apu_flushes;
            let n = (flushes - self.apu_seen).min(PREFETCH_AHEAD as u64) as usize;
            self.apu_seen = flushes;
            cursor = c.apu_hints(n, &mut hints);
        }
        for r in reqs {
            let Some((first, last)) = self.page_range(r) else {
                continue;
            };
            for p in first..=last.min(first + HINT_PAGES - 1) {
                let lpn = if p >= lp { p % lp } else { p };
                let h = match (&self.cache, r.op) {
                    (None, _) | (Some(_), Op::Trim) => Some(lpn),
                    (Some(c), Op::Read) => c.read_hint(lpn),
                    (Some(c), Op::Write) => c.write_hint(lpn, &mut cursor),
                };
                hints.extend(h);
            }
        }
        self.flash.prefetch(&hints);
        self.hints = hints;
    }

    /// Serve one request arriving at `arrival_ns` (arrivals must be submitted in
    /// order; an earlier time is served as arriving with its predecessor).
    pub fn submit(&mut self, req: &Request, arrival_ns: u64) -> Result<Completion, SsdError> {
        let mut a = arrival_ns;
        if !self.started {
            self.first_arrival = a;
            self.area_t = a;
            self.free_at = a;
        } else if a < self.last_arrival {
            self.reordered += 1;
            a = self.last_arrival;
        }
        self.last_arrival = a;
        self.idle_until(a)?;
        self.started = true;
        self.advance_queue(a);
        if self.in_system.len() as u64 >= u64::from(self.cfg.queue_depth) {
            self.queue_full += 1;
        }
        let start = a.max(self.free_at);
        let (done, pages) = self.serve(req, start)?;
        self.request_busy += done - start;
        self.busy(start, done);
        self.in_system.push_back(done);
        self.max_in_system = self.max_in_system.max(self.in_system.len() as u64);
        let resp = done - a;
        self.h_all.record(resp);
        match req.op {
            Op::Read => {
                self.reads += 1;
                self.read_pages += pages;
                self.h_read.record(resp);
            }
            Op::Write => {
                self.writes += 1;
                self.write_pages += pages;
                self.h_write.record(resp);
            }
            Op::Trim => self.trims += 1,
        }
        self.series.record(a, resp);
        Ok(Completion {
            arrival_ns: a,
            start_ns: start,
            done_ns: done,
            op: req.op,
            pages,
        })
    }

    /// Serve the pages of `req` from `start`; returns (completion, pages).
    #[inline]
    fn serve(&mut self, req: &Request, start: u64) -> Result<(u64, u64), SsdError> {
        let Some((first, last)) = self.page_range(req) else {
            return Ok((start, 0));
        };
        let lp = self.logical_pages;
        if last >= lp {
            if !self.cfg.wrap {
                return Err(FtlError::OutOfRange {
                    lpn: first.max(lp),
                    logical_pages: lp,
                }
                .into());
            }
            self.wrapped += 1;
        }
        let (tc, tb) = (self.cfg.t_cache_ns, self.cfg.t_bus_ns);
        // `link`: the host link's free time; `done`: the latest page completion.
        let mut link = start;
        let mut done = start;
        for p in first..=last {
            let lpn = if p >= lp { p % lp } else { p };
            match req.op {
                Op::Read => {
                    if let Some(c) = &mut self.cache {
                        if c.read(lpn, link) {
                            link += tc + tb;
                            done = done.max(link);
                            continue;
                        }
                    }
                    let d = self.flash.read(lpn)?;
                    self.ops.page_reads += 1;
                    self.ops.flash_ns += d;
                    let u = self.unit(lpn);
                    let e = start.max(self.units[u]) + d;
                    self.units[u] = e;
                    link = link.max(e) + tb;
                    done = done.max(link);
                }
                Op::Write => {
                    link += tb;
                    if let Some(c) = &mut self.cache {
                        if let Some(v) = c.write(lpn, link) {
                            let d = self.flash.program(v)?;
                            self.ops.on_demand_programs += 1;
                            self.ops.flash_ns += d;
                            let u = self.unit(v);
                            let e = link.max(self.units[u]) + d;
                            self.units[u] = e;
                            link = e;
                        }
                        link += tc;
                        done = done.max(link);
                    } else {
                        let d = self.flash.program(lpn)?;
                        self.ops.direct_programs += 1;
                        self.ops.flash_ns += d;
                        let u = self.unit(lpn);
                        let e = link.max(self.units[u]) + d;
                        self.units[u] = e;
                        done = done.max(e);
                    }
                }
                Op::Trim => {
                    if let Some(c) = &mut self.cache {
                        c.discard(lpn);
                    }
                    self.flash.trim(lpn)?;
                }
            }
        }
        Ok((done, last - first + 1))
    }

    /// End the run: the report.
    pub fn finish(mut self) -> Report {
        let end = self.in_system.back().copied().unwrap_or(self.first_arrival);
        self.advance_queue(end);
        let span = end.saturating_sub(self.first_arrival);
        let requests = self.h_all.count();
        let secs = span as f64 * 1e-9;
        let busy = self.request_busy + self.apu_busy;
        let timing = Timing {
            first_arrival_ns: self.first_arrival,
            last_completion_ns: end,
            span_ns: span,
            request_busy_ns: self.request_busy,
            apu_busy_ns: self.apu_busy,
            idle_ns: self.idle,
            idle_periods: self.idle_periods,
            longest_idle_ns: self.longest_idle,
            idle_periods_over_threshold: self.idle_over,
            utilisation: if span == 0 {
                0.0
            } else {
                busy as f64 / span as f64
            },
            throughput_rps: if span == 0 {
                0.0
            } else {
                requests as f64 / secs
            },
            mean_in_system: if span == 0 {
                0.0
            } else {
                self.area as f64 / span as f64
            },
            max_in_system: self.max_in_system,
            queue_full_arrivals: self.queue_full,
            reordered_arrivals: self.reordered,
        };
        let cache = self.cache.as_ref().map(|c| {
            let s = c.stats().clone();
            let cfg = c.config();
            let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
            let reads = s.read_hits + s.read_misses;
            let writes = s.write_hits + s.fills_stale + s.fills_clean + s.on_demand_flushes;
            CacheReport {
                lines: cfg.lines,
                sets: cfg.sets(),
                ways: cfg.ways(),
                apu: cfg.apu,
                hit_ratio: ratio(s.read_hits + s.write_hits, reads + writes),
                read_hit_ratio: ratio(s.read_hits, reads),
                write_hit_ratio: ratio(s.write_hits, writes),
                dirty_at_end: c.dirty_lines(),
                stats: s,
            }
        });
        let mut ops = self.ops.clone();
        ops.ftl = self.flash.ftl_counters();
        Report {
            requests,
            reads: self.reads,
            writes: self.writes,
            trims: self.trims,
            read_pages: self.read_pages,
            write_pages: self.write_pages,
            wrapped_requests: self.wrapped,
            response: Responses {
                all: RespStats::of(&self.h_all),
                read: RespStats::of(&self.h_read),
                write: RespStats::of(&self.h_write),
            },
            cache,
            flash: ops,
            timing,
            series: self.series.finish(),
        }
    }
}
