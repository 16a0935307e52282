//! The worker pool: the trace's I/Os issued at a chosen queue depth.
//!
//! `queue_depth` threads each own an aligned buffer and do blocking positional I/O
//! (`pread`/`pwrite` through `FileExt::read_at`/`write_at`); one dispatcher (the
//! calling thread) reads the trace, maps each request ([`Mapper`]) and hands each I/O
//! to an idle worker, so that at most `queue_depth` I/Os are in flight, as in a
//! device queue. Why threads and not io_uring: io_uring needs `unsafe` FFI or a
//! further dependency, and the workspace denies `unsafe`; at the depths that matter for
//! flash cards and SATA SSDs (1 to 32) a thread per slot keeps the device as busy,
//! paying a context switch per I/O (microseconds against the device's tens of
//! microseconds to milliseconds).
//!
//! Ordering: I/Os leave in trace order, and an I/O that overlaps an in-flight one where
//! either is a write waits for it to complete (read-after-write, write-after-read and
//! write-after-write hazards are kept), so the last write to a page in the trace is the
//! last one to reach it and a read-back can name the exact write it expects.
//!
//! Latency is the service time of one `pread`/`pwrite` (the syscall's duration, the
//! filling of the data pattern excluded). With `Timing::Trace`, the dispatcher holds
//! each request until its timestamp (scaled by the speed factor) has come; the report
//! states how far behind schedule the player fell.

use crate::align::AlignedBuf;
use crate::error::{Error, Result};
use crate::histogram::Histogram;
use crate::pattern;
use crate::plan::{Io, Mapper};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};
use wafer_trace::{RequestReader, NO_TIME};

/// When requests are issued.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "mode")]
pub enum Timing {
    /// As fast as the queue depth allows (the papers' elapsed-time measurement).
    AsFast,
    /// At the trace's timestamps divided by `speed` (2.0 = twice as fast).
    Trace {
        /// Speed factor, > 0.
        speed: f64,
    },
}

/// What the workers need to know.
pub struct PlayConfig<'a> {
    /// Page size in bytes (pattern unit).
    pub page_size: u32,
    /// Threads = I/Os in flight at most.
    pub queue_depth: u32,
    /// When to issue.
    pub timing: Timing,
    /// Pattern seed.
    pub seed: u64,
    /// Target path, for messages.
    pub path: &'a Path,
    /// Record the last write of every page for a later read-back.
    pub track_writes: bool,
}

/// What the replay measured.
#[derive(Default)]
pub struct PlayStats {
    /// Read service times, ns.
    pub read_lat: Histogram,
    /// Write service times, ns.
    pub write_lat: Histogram,
    /// Bytes read.
    pub read_bytes: u64,
    /// Bytes written.
    pub write_bytes: u64,
    /// From the first issue to the last completion.
    pub elapsed: Duration,
    /// Requests replayed.
    pub requests: u64,
    /// Requests with a page mapped modulo the target.
    pub wrapped_requests: u64,
    /// Write I/Os issued (the last sequence number).
    pub write_seq: u64,
    /// Largest delay behind the trace's schedule, ns (`Timing::Trace` only).
    pub max_lag_ns: u64,
    /// Last write sequence number of every written page, by byte offset.
    pub last_write: FxHashMap<u64, u64>,
}

struct Job {
    io: Io,
    seq: u64,
}

struct Done {
    worker: usize,
    io: Io,
    ns: u64,
    err: Option<std::io::Error>,
}

/// A slot in flight: its page range and whether it writes.
#[derive(Clone, Copy)]
struct Busy {
    from: u64,
    to: u64,
    write: bool,
}

/// Must `b` wait for `a`? When their byte ranges overlap and either writes.
fn hazard(a: &Busy, b: &Busy) -> bool {
    (a.write || b.write) && a.from < b.to && b.from < a.to
}

fn worker(
    id: usize,
    file: &File,
    rx: mpsc::Receiver<Job>,
    done: mpsc::Sender<Done>,
    buf_len: usize,
    page_size: usize,
    seed: u64,
) {
    let mut buf = AlignedBuf::new(buf_len);
    while let Ok(Job { io, seq }) = rx.recv() {
        let b = &mut buf.as_mut_slice()[..io.len as usize];
        let t0;
        let r = if io.write {
            pattern::fill(b, page_size, seed, io.offset, seq);
            t0 = Instant::now();
            file.write_all_at(b, io.offset)
        } else {
            t0 = Instant::now();
            file.read_exact_at(b, io.offset)
        };
        let ns = t0.elapsed().as_nanos() as u64;
        if done
            .send(Done {
                worker: id,
                io,
                ns,
                err: r.err(),
            })
            .is_err()
        {
            return;
        }
    }
}

struct Dispatcher<'a> {
    jobs: Vec<mpsc::Sender<Job>>,
    done: mpsc::Receiver<Done>,
    idle: Vec<usize>,
    busy: Vec<Option<Busy>>,
    in_flight: usize,
    stats: PlayStats,
    error: Option<Error>,
    path: &'a Path,
}

impl Dispatcher<'_> {
    fn complete(&mut self, d: Done) {
        self.busy[d.worker] = None;
        self.idle.push(d.worker);
        self.in_flight -= 1;
        if let Some(e) = d.err {
            if self.error.is_none() {
                let what = if d.io.write { "write" } else { "read" };
                self.error = Some(Error::io(
                    self.path,
                    std::io::Error::new(
                        e.kind(),
                        format!(
                            "{what} of {} bytes at offset {}: {e}",
                            d.io.len, d.io.offset
                        ),
                    ),
                ));
            }
            return;
        }
        if d.io.write {
            self.stats.write_lat.record(d.ns);
            self.stats.write_bytes += d.io.len;
        } else {
            self.stats.read_lat.record(d.ns);
            self.stats.read_bytes += d.io.len;
        }
    }

    fn wait_one(&mut self) {
        let d = self.done.recv().expect("workers outlive the dispatcher");
        self.complete(d);
    }

    fn conflicts(&self, b: Busy) -> bool {
        self.busy.iter().flatten().any(|o| hazard(o, &b))
    }

    fn issue(&mut self, io: Io, seq: u64) {
        let b = Busy {
            from: io.offset,
            to: io.offset + io.len,
            write: io.write,
        };
        while self.idle.is_empty() || self.conflicts(b) {
            self.wait_one();
        }
        let w = self.idle.pop().expect("an idle worker");
        self.busy[w] = Some(b);
        self.in_flight += 1;
        self.jobs[w].send(Job { io, seq }).expect("worker alive");
    }

    /// Wait until `deadline`, handling completions meanwhile.
    fn wait_until(&mut self, deadline: Instant) {
        loop {
            let now = Instant::now();
            if now >= deadline {
                return;
            }
            match self.done.recv_timeout(deadline - now) {
                Ok(d) => self.complete(d),
                Err(_) => return,
            }
        }
    }
}

/// Replay every request of `reader` on `file`. The I/Os stay inside the mapper's range
/// (checked for each; an I/O outside it is an internal error, never issued).
pub fn play(
    file: &File,
    reader: &mut dyn RequestReader,
    mapper: &Mapper,
    cfg: &PlayConfig,
    progress: &mut dyn FnMut(u64),
) -> Result<PlayStats> {
    let qd = cfg.queue_depth.max(1) as usize;
    let buf_len = mapper.max_io_bytes() as usize;
    let range_end = mapper.range_bytes();
    let ps = u64::from(cfg.page_size);
    std::thread::scope(|s| {
        let (done_tx, done_rx) = mpsc::channel();
        let mut jobs = Vec::with_capacity(qd);
        for id in 0..qd {
            let (tx, rx) = mpsc::channel();
            jobs.push(tx);
            let done = done_tx.clone();
            let page_size = cfg.page_size as usize;
            let seed = cfg.seed;
            s.spawn(move || worker(id, file, rx, done, buf_len, page_size, seed));
        }
        drop(done_tx);
        let mut d = Dispatcher {
            jobs,
            done: done_rx,
            idle: (0..qd).rev().collect(),
            busy: vec![None; qd],
            in_flight: 0,
            stats: PlayStats::default(),
            error: None,
            path: cfg.path,
        };
        let mut batch = Vec::new();
        let mut ios = Vec::new();
        let mut start: Option<Instant> = None;
        let mut t0: Option<u64> = None;
        let mut last_t = 0u64;
        'outer: loop {
            match reader.read_batch(&mut batch) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    d.error.get_or_insert(e.into());
                    break;
                }
            }
            for r in &batch {
                ios.clear();
                if mapper.map(r, &mut ios) {
                    d.stats.wrapped_requests += 1;
                }
                if ios.is_empty() {
                    continue;
                }
                let begun = *start.get_or_insert_with(Instant::now);
                if let Timing::Trace { speed } = cfg.timing {
                    if r.time_ns != NO_TIME {
                        last_t = r.time_ns;
                    }
                    let origin = *t0.get_or_insert(last_t);
                    let due = last_t.saturating_sub(origin) as f64 / speed;
                    let deadline = begun + Duration::from_nanos(due as u64);
                    d.wait_until(deadline);
                    let lag = Instant::now().saturating_duration_since(deadline);
                    d.stats.max_lag_ns = d.stats.max_lag_ns.max(lag.as_nanos() as u64);
                }
                for &io in &ios {
                    if io.offset % ps != 0 || io.offset + io.len > range_end {
                        d.error.get_or_insert(Error::Invalid(format!(
                            "internal error: I/O at {}+{} outside the announced range [0, {range_end})",
                            io.offset, io.len
                        )));
                        break 'outer;
                    }
                    let seq = if io.write {
                        d.stats.write_seq += 1;
                        if cfg.track_writes {
                            let seq = d.stats.write_seq;
                            for p in (io.offset..io.offset + io.len).step_by(ps as usize) {
                                d.stats.last_write.insert(p, seq);
                            }
                        }
                        d.stats.write_seq
                    } else {
                        0
                    };
                    d.issue(io, seq);
                }
                d.stats.requests += 1;
                if d.error.is_some() {
                    break 'outer;
                }
            }
            progress(d.stats.requests);
        }
        while d.in_flight > 0 {
            d.wait_one();
        }
        if let Some(s) = start {
            d.stats.elapsed = s.elapsed();
        }
        progress(d.stats.requests);
        d.jobs.clear(); // closes the job channels: workers return
        match d.error.take() {
            Some(e) => Err(e),
            None => Ok(std::mem::take(&mut d.stats)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_ios_wait_only_when_one_writes() {
        let b = |from, to, write| Busy { from, to, write };
        assert!(hazard(&b(0, 8192, true), &b(4096, 8192, false))); // read after write
        assert!(hazard(&b(0, 8192, false), &b(4096, 8192, true))); // write after read
        assert!(hazard(&b(0, 4096, true), &b(0, 4096, true))); // write after write
        assert!(!hazard(&b(0, 8192, false), &b(0, 8192, false))); // reads share
        assert!(!hazard(&b(0, 4096, true), &b(4096, 8192, true))); // adjacent, disjoint
    }
}
