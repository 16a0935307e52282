//! The timed device: a queued server over the cache and the flash, like a drive with
//! native command queueing (`docs/ssd.md`, "Device timing"; paper 004, Huang et al.,
//! "Efficient Cache Design for Solid-State Drives", ACM Computing Frontiers 2010,
//! Sec. 3.2 and 4.2).
//!
//! # Model
//! * **Admission**: up to `queue_depth` commands are in the device at once; the others
//!   wait on the host side, first come, first served. A request is admitted at
//!   `max(arrival, previous admission, a free slot)` and completes when its last page
//!   does; response time = completion - arrival. An APU flush takes a slot while it
//!   runs, so at depth 1 a request arriving during a flush waits for it and the device
//!   is the FCFS single server of Lindley's recurrence.
//! * **Resources**: the *host link* (host interface, one lane), the *cache DRAM*
//!   (its own resource, as in a real controller), both busy in proportion to the bytes
//!   a request has in a page (a partial first or last page moves only its bytes),
//!   `channels` flash buses (each shared by its ways, busy `t_channel` per page moved)
//!   and `units = channels x ways` flash units (one operation at a time). Page `p` sits
//!   on unit `p mod units`, unit `u` on channel `u mod channels` (consecutive pages go
//!   to different channels first). A unit runs its operations in the order the device
//!   issues them (requests in admission order, a request's pages in ascending order).
//!   The link, the DRAM and each channel are shared lanes (module `lane`): an
//!   operation takes the earliest idle interval, at or after the time its input is
//!   ready, long enough for it, so a transfer whose data is ready leaves while one
//!   issued before it still waits for its unit (completions and data leave in the
//!   order they finish, as on an NVMe host interface; no head-of-line blocking). Placed
//!   operations keep their places (no preemption); a unit serves a read queued behind
//!   a program after it (no read priority).
//! * **Pages** (the cache and the FTL see them in admission order; only the timing
//!   overlaps):
//!   - read hit: DRAM `t_cache`, then link `t_bus`;
//!   - flash read (miss, or no cache): issued to its unit at admission, `t_read` there,
//!     then `t_channel` on its channel (the unit holds the data until it is out), then
//!     `t_bus` on the link;
//!   - write into the cache: link `t_bus`, then DRAM `t_cache`; a write that needs a
//!     dirty victim's line first programs the victim (`t_channel`, then `t_program` +
//!     GC on the victim's unit), and the new data waits in the controller until that
//!     program has finished (the line holds the victim's only copy until then): the
//!     link and the DRAM carry other transfers meanwhile, so the on-demand flushes of
//!     one request run on their units in parallel;
//!   - write without a cache: link `t_bus`, then `t_channel` and `t_program` + GC on the
//!     page's unit, which overlaps the next transfers;
//!   - flash reads and programs stay whole pages; the cache's LRU time of a line is its
//!     request's admission (the order the cache sees requests in).
//! * **Idle**: the device is idle when no request is in it and no flush runs. After
//!   `idle_threshold` of continuous idleness one APU flush starts (one page program on
//!   the victim's unit, GC included); when it ends the device is idle again and the
//!   next flush needs another full threshold. An arrival exactly at the threshold
//!   wins; no flush starts. No flushes run after the last request.
//! * **Queue**: the number in the system N(t) (waiting or in the device) is
//!   integrated over time independently of the response times, so Little's law
//!   (mean N = throughput x mean response) is a check, not an identity of the code.

use crate::cache::OnBoardCache;
use crate::config::SsdConfig;
use crate::error::SsdError;
use crate::flash::Flash;
use crate::lane::{Lane, TimeQueue};
use crate::list::NIL;
use crate::metrics::{
    CacheReport, FlashOps, Histogram, Report, RespStats, Responses, Series, Timing,
};
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

/// When one request arrived, was admitted and completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// Arrival, ns.
    pub arrival_ns: u64,
    /// Admission into the device (start of service at queue depth 1), ns.
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
    /// When each flash unit is free.
    units: Vec<u64>,
    nunits: u64,
    /// The channel buses (used when `t_channel` > 0).
    channels: Vec<Lane>,
    nchannels: u64,
    /// The host link.
    link: Lane,
    /// The cache DRAM (a resource of its own: a controller's DRAM bus is not its host
    /// interface).
    dram: Lane,
    /// No operation placed from now on is ready before this (the last admission).
    horizon: u64,
    page_size: u64,
    /// `log2(page_size)` when it is a power of two (page numbers by shifting).
    page_shift: Option<u32>,
    logical_pages: u64,
    started: bool,
    first_arrival: u64,
    last_arrival: u64,
    /// End of the last busy interval (request or flush): the device is idle from here.
    free_at: u64,
    /// Admission time of the last request (admission is first come, first served).
    admitted: u64,
    /// Ends of the commands (requests, APU flushes) in the device at the last admission.
    slots: TimeQueue,
    /// Completion times of the requests in the system (waiting or in the device).
    in_system: TimeQueue,
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
        let nchannels = flash.channels().max(1);
        if nunits % nchannels != 0 {
            return Err(SsdError::Config(format!(
                "{nunits} flash units cannot be spread evenly over {nchannels} channels"
            )));
        }
        Ok(Ssd {
            cache: cfg
                .cache
                .map(|c| OnBoardCache::with_pages(c, Some(flash.logical_pages()))),
            units: vec![0; nunits as usize],
            nunits: u64::from(nunits),
            channels: vec![Lane::default(); nchannels as usize],
            nchannels: u64::from(nchannels),
            link: Lane::default(),
            dram: Lane::default(),
            horizon: 0,
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
            admitted: 0,
            slots: TimeQueue::default(),
            in_system: TimeQueue::default(),
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

    /// The flash back end, to reset its counters between measured passes.
    pub fn flash_mut(&mut self) -> &mut F {
        &mut self.flash
    }

    /// Time the device has been busy so far, serving requests and APU flushes (ns):
    /// a pass's busy time is the difference across it (steady-state passes).
    pub fn busy_ns(&self) -> u64 {
        self.request_busy + self.apu_busy
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

    /// Bytes of `req` in its first page before the request starts, and in its last page
    /// up to where it ends (`head`, `tail`): the first page moves `page_size - head`
    /// bytes, the last `tail`, one page alone `tail - head`.
    #[inline]
    fn edges(&self, req: &Request) -> (u64, u64) {
        let end = req.offset.saturating_add(u64::from(req.len) - 1);
        match self.page_shift {
            Some(s) => {
                let m = (1u64 << s) - 1;
                (req.offset & m, (end & m) + 1)
            }
            None => (req.offset % self.page_size, end % self.page_size + 1),
        }
    }

    /// A whole page's time `t` scaled to `bytes` of the page, rounded up (a transfer of
    /// any bytes takes some time).
    #[inline]
    fn share(&self, t: u64, bytes: u64) -> u64 {
        if bytes == self.page_size {
            t
        } else {
            (u128::from(t) * u128::from(bytes)).div_ceil(u128::from(self.page_size)) as u64
        }
    }

    /// The channel of unit `u`.
    #[inline]
    fn channel(&self, u: usize) -> usize {
        if self.nchannels == 1 {
            0
        } else {
            u % self.nchannels as usize
        }
    }

    /// Account the busy interval `[s, e]` (busy intervals come in order of `s`): a gap
    /// before it is idle; returns the part of it not yet counted busy.
    #[inline]
    fn busy(&mut self, s: u64, e: u64) -> u64 {
        if self.started && s > self.free_at {
            let gap = s - self.free_at;
            self.idle += gap;
            self.idle_periods += 1;
            self.longest_idle = self.longest_idle.max(gap);
            if gap >= self.cfg.idle_threshold_ns {
                self.idle_over += 1;
            }
        }
        let new = e.saturating_sub(s.max(self.free_at));
        self.free_at = self.free_at.max(e);
        new
    }

    /// Program `lpn` on its unit, its data ready at `ready`: the channel moves the
    /// page in when both are free, then the unit programs it (GC included). Returns
    /// when the program ends.
    #[inline]
    fn program_at(&mut self, lpn: u64, ready: u64) -> Result<u64, SsdError> {
        let d = self.flash.program(lpn)?;
        self.ops.flash_ns += d;
        let u = self.unit(lpn);
        let tch = self.cfg.t_channel_ns;
        let e = if tch == 0 {
            ready.max(self.units[u]) + d
        } else {
            let c = self.channel(u);
            let ch = &mut self.channels[c];
            ch.forget_before(self.horizon);
            ch.place(ready.max(self.units[u]), tch) + tch + d
        };
        self.units[u] = e;
        Ok(e)
    }

    /// Read `lpn` on its unit from `ready`, then move it out over the channel (the unit
    /// holds the data until then). Returns when the data has left the channel.
    #[inline]
    fn read_at(&mut self, lpn: u64, ready: u64) -> Result<u64, SsdError> {
        let d = self.flash.read(lpn)?;
        self.ops.page_reads += 1;
        self.ops.flash_ns += d;
        let u = self.unit(lpn);
        let mut e = ready.max(self.units[u]) + d;
        let tch = self.cfg.t_channel_ns;
        if tch > 0 {
            let c = self.channel(u);
            let ch = &mut self.channels[c];
            ch.forget_before(self.horizon);
            e = ch.place(e, tch) + tch;
        }
        self.units[u] = e;
        Ok(e)
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
            // Idle: every resource is free, so the flush starts when it fires.
            let e = self.program_at(victim, fire)?;
            self.ops.apu_programs += 1;
            self.apu_busy += e - fire;
            self.slots.push(e);
            self.busy(fire, e);
        }
    }

    /// Bring the time integral of N(t) up to `t`, retiring completions up to it.
    #[inline]
    fn advance_queue(&mut self, t: u64) {
        while let Some(c) = self.in_system.peek() {
            if c > t {
                break;
            }
            self.area += self.in_system.len() as u128 * u128::from(c - self.area_t);
            self.area_t = c;
            self.in_system.pop();
        }
        self.area += self.in_system.len() as u128 * u128::from(t - self.area_t);
        self.area_t = t;
    }

    /// Admit the request that arrived at `a`: at the earliest time from `a` and the
    /// previous admission on at which fewer than `queue_depth` commands are in the
    /// device.
    #[inline]
    fn admit(&mut self, a: u64) -> u64 {
        let mut t = a.max(self.admitted);
        let depth = self.cfg.queue_depth as usize;
        loop {
            while let Some(c) = self.slots.peek() {
                if c > t {
                    break;
                }
                self.slots.pop();
            }
            if self.slots.len() < depth {
                break;
            }
            // Full: wait for the earliest command to finish (the loop retires it).
            t = self.slots.peek().unwrap_or(t);
        }
        self.admitted = t;
        t
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
            self.admitted = a;
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
        let start = self.admit(a);
        let (done, pages) = self.serve(req, start)?;
        self.slots.push(done);
        self.request_busy += self.busy(start, done);
        self.in_system.push(done);
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
        let (head, tail) = self.edges(req);
        // Nothing from now on is ready before this admission: the lanes forget the
        // intervals that end before it.
        self.horizon = start;
        self.link.forget_before(start);
        self.dram.forget_before(start);
        // `done`: the latest page completion.
        let mut done = start;
        for p in first..=last {
            let lpn = if p >= lp { p % lp } else { p };
            // Link and DRAM move the request's bytes in this page; flash moves the page.
            let lo = if p == first { head } else { 0 };
            let hi = if p == last { tail } else { self.page_size };
            let tb = self.share(self.cfg.t_bus_ns, hi - lo);
            let tc = self.share(self.cfg.t_cache_ns, hi - lo);
            match req.op {
                Op::Read => {
                    if let Some(c) = &mut self.cache {
                        if c.read(lpn, start) {
                            let d = self.dram.place(start, tc) + tc;
                            done = done.max(self.link.place(d, tb) + tb);
                            continue;
                        }
                    }
                    let e = self.read_at(lpn, start)?;
                    done = done.max(self.link.place(e, tb) + tb);
                }
                Op::Write => {
                    let moved = self.link.place(start, tb) + tb;
                    if let Some(c) = &mut self.cache {
                        // A page that needs a dirty victim's line enters it after the
                        // victim's program (the line holds the victim's only copy).
                        let ready = match c.write(lpn, start) {
                            Some(v) => {
                                self.ops.on_demand_programs += 1;
                                self.program_at(v, moved)?
                            }
                            None => moved,
                        };
                        done = done.max(self.dram.place(ready, tc) + tc);
                    } else {
                        let e = self.program_at(lpn, moved)?;
                        self.ops.direct_programs += 1;
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
        // The last completion, or the end of an APU flush that outlasts it.
        let end = if self.started {
            self.free_at
        } else {
            self.first_arrival
        };
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
            utilization: if span == 0 {
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
