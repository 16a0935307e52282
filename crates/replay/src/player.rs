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
use crate::plan::{self, Io, Mapper};
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
    mut buf: AlignedBuf,
    page_size: usize,
    seed: u64,
) {
    while let Ok(Job { io, seq }) = rx.recv() {
        // The dispatcher only sends I/Os that fit the buffer; `get_mut` keeps a
        // broken promise an I/O error instead of a panic.
        let Some(b) = usize::try_from(io.len)
            .ok()
            .and_then(|n| buf.as_mut_slice().get_mut(..n))
        else {
            let err = std::io::Error::other("I/O larger than the worker's buffer");
            let _ = done.send(Done {
                worker: id,
                io,
                ns: 0,
                err: Some(err),
            });
            continue;
        };
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

    /// Issue `io`, already checked to lie inside the announced range (so its end fits).
    fn issue(&mut self, io: Io, seq: u64) {
        let b = Busy {
            from: io.offset,
            to: io.offset.saturating_add(io.len),
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
/// (checked for each; an I/O outside it is an internal error, never issued). A request
/// the mapper cannot map (its pages end beyond [`crate::plan::MAX_END`]) is an
/// [`Error::Unaddressable`] naming it; what was issued before it completes first.
pub fn play(
    file: &File,
    reader: &mut dyn RequestReader,
    mapper: &Mapper,
    cfg: &PlayConfig,
    progress: &mut dyn FnMut(u64),
) -> Result<PlayStats> {
    let qd = cfg.queue_depth.max(1) as usize;
    let ps = u64::from(cfg.page_size);
    if ps == 0 {
        return Err(Error::Invalid("page size 0".into()));
    }
    let max_io = mapper.max_io_bytes();
    let buf_len = usize::try_from(max_io)
        .map_err(|_| Error::Invalid(format!("I/Os of {max_io} bytes do not fit in memory here")))?;
    // Allocated here, before any thread starts, so that a size the allocator refuses is
    // an error of the call.
    let bufs = (0..qd)
        .map(|_| AlignedBuf::new(buf_len))
        .collect::<Result<Vec<_>>>()?;
    let range_end = mapper.range_bytes();
    let trace = reader.meta().path.clone();
    std::thread::scope(|s| {
        let (done_tx, done_rx) = mpsc::channel();
        let mut jobs = Vec::with_capacity(qd);
        for (id, buf) in bufs.into_iter().enumerate() {
            let (tx, rx) = mpsc::channel();
            jobs.push(tx);
            let done = done_tx.clone();
            let page_size = cfg.page_size as usize;
            let seed = cfg.seed;
            s.spawn(move || worker(id, file, rx, done, buf, page_size, seed));
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
        let mut record = 0u64;
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
                record += 1;
                ios.clear();
                match mapper.map(r, &mut ios) {
                    Ok(true) => d.stats.wrapped_requests += 1,
                    Ok(false) => {}
                    Err(why) => {
                        d.error
                            .get_or_insert(plan::unaddressable(&trace, record, &why));
                        break 'outer;
                    }
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
                    let inside = io
                        .offset
                        .checked_add(io.len)
                        .is_some_and(|end| end <= range_end);
                    if io.offset % ps != 0 || !inside || io.len == 0 || io.len > max_io {
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

    struct VecReader(Vec<wafer_trace::Request>, bool, wafer_trace::TraceMeta);
    impl RequestReader for VecReader {
        fn read_batch(&mut self, out: &mut Vec<wafer_trace::Request>) -> wafer_trace::Result<bool> {
            out.clear();
            if std::mem::replace(&mut self.1, true) {
                return Ok(false);
            }
            out.extend_from_slice(&self.0);
            Ok(true)
        }
        fn meta(&self) -> &wafer_trace::TraceMeta {
            &self.2
        }
    }

    /// Requests that reach the player without the scan (a library caller, a trace
    /// changed between the passes) near 2^64, with `wrap`: the request is named in an
    /// error and nothing is written at a wrapped offset. The page before it is written.
    #[test]
    fn unaddressable_requests_are_errors_never_writes() {
        use wafer_trace::{Op, Request};
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("t.img");
        std::fs::write(&path, vec![0x5Au8; 1 << 20]).unwrap();
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let scan = plan::Scan {
            devs: vec![(0, 256)],
            ..plan::Scan::default()
        };
        let layout = plan::Layout::new(&scan, 4096).unwrap();
        let mapper = Mapper::new(layout, 1 << 20, true).unwrap();
        let w = |offset| Request {
            time_ns: NO_TIME,
            offset,
            len: 4096,
            dev: 0,
            op: Op::Write,
        };
        for bad in [u64::MAX - 4095, u64::MAX] {
            let meta = wafer_trace::TraceMeta {
                path: "gen.wtr".into(),
                ..Default::default()
            };
            let mut reader = VecReader(vec![w(0), w(bad), w(8192)], false, meta);
            let cfg = PlayConfig {
                page_size: 4096,
                queue_depth: 2,
                timing: Timing::AsFast,
                seed: 1,
                path: &path,
                track_writes: false,
            };
            let e = play(&file, &mut reader, &mapper, &cfg, &mut |_| {})
                .err()
                .expect("refused");
            let msg = e.to_string();
            assert!(
                msg.starts_with(&format!(
                    "gen.wtr: request 2: write of 4096 bytes at offset {bad} (device 0) ends \
                     at or beyond byte 2^64;"
                )),
                "{msg}"
            );
            assert!(matches!(e, Error::Unaddressable(_)));
            let data = std::fs::read(&path).unwrap();
            assert_eq!(data.len(), 1 << 20, "the file was not grown");
            assert_eq!(&data[..8], b"wafrpag1", "request 1 was replayed");
            assert!(
                data[4096..].iter().all(|&b| b == 0x5A),
                "nothing else written"
            );
        }
    }
}
