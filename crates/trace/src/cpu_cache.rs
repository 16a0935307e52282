//! A CPU cache in front of a memory-reference trace: a reader adapter that turns the
//! loads and stores a program made into the traffic that leaves its CPU cache, the
//! references a virtual-memory page cache below it would see.
//!
//! Why: paper 002 (H. Lee, H. Bahn, K. G. Shin, "Page Replacement for Write References
//! in NAND Flash Based Virtual Memory Systems", JCSE 8(3), 2014, Sec. V-A) filtered
//! its Valgrind memory traces through a CPU cache "and also reflect\[ed\] the write-back
//! property of the cache memory", and blames that write-back for the weak temporal
//! locality of write references it found (Sec. III). A raw lackey trace has neither
//! effect; this adapter adds both.
//!
//! The model: `size` bytes in sets of `ways` lines of `line` bytes, a line's set being
//! its line number modulo the number of sets, LRU within a set, write-back and
//! write-allocate. Every access of a request is split into the lines it touches, in
//! ascending order. A hit changes no traffic (a store marks the line dirty). A miss
//! reads the whole line (a store miss too: write-allocate), and if the set was full
//! its least recently used line leaves; if that line was dirty, a write of it is
//! emitted first. With `flush`, the lines still dirty when the trace ends are written
//! last, set by set, least recently used first. Each emitted request is one whole,
//! line-aligned line on the device of the access that caused it, stamped with that
//! access's time (the flush with the last request's time). Zero-length requests touch
//! no line and vanish; a trim has no meaning to a CPU cache and is refused.
//!
//! Paper 002 does not state its cache's parameters, nor does paper 003 (the
//! Sorted-Clock paper, whose virtual-memory simulator also read memory traces). The
//! default, [`CpuCacheConfig::default`], is 256 KiB, 8 ways, 64 B lines: the
//! last-level cache Valgrind's Cachegrind (the tool paper 002 modified) simulates when
//! it cannot detect the host's caches.

use crate::error::{Error, Result};
use crate::reader::{RequestReader, TraceMeta, BATCH};
use crate::request::{Op, Request, NO_TIME};
use crate::units::parse_size;

/// Geometry of a CPU cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuCacheConfig {
    /// Capacity in bytes: a multiple of `ways * line`.
    pub size: u64,
    /// Lines per set (1 = direct mapped).
    pub ways: u32,
    /// Line size in bytes, a power of two.
    pub line: u32,
}

/// Most lines a cache may have (1 GiB of 64 B lines): the model keeps 16 bytes per line.
pub const MAX_LINES: u64 = 1 << 24;

impl Default for CpuCacheConfig {
    /// 256 KiB, 8-way, 64 B lines (see the module docs for why).
    fn default() -> Self {
        CpuCacheConfig {
            size: 256 << 10,
            ways: 8,
            line: 64,
        }
    }
}

impl CpuCacheConfig {
    /// The default as `SIZE:WAYS:LINE`.
    pub const DEFAULT_SPEC: &'static str = "256KiB:8:64";

    /// Parse `SIZE:WAYS:LINE` (`256KiB:8:64`; sizes as [`parse_size`] reads them) and
    /// check it ([`CpuCacheConfig::validate`]).
    pub fn parse(s: &str) -> Result<CpuCacheConfig> {
        let bad = |why: String| {
            Error::Invalid(format!(
                "expected SIZE:WAYS:LINE like {} (ways >= 1, a power-of-two line, size a \
                 multiple of ways x line), found `{s}`: {why}",
                Self::DEFAULT_SPEC
            ))
        };
        let parts: Vec<&str> = s.split(':').map(str::trim).collect();
        let [size, ways, line] = parts[..] else {
            return Err(bad(format!("{} fields", parts.len())));
        };
        let size = parse_size(size).map_err(|e| bad(e.to_string()))?;
        let ways: u32 = ways
            .parse()
            .map_err(|_| bad(format!("ways `{ways}` is not a whole number")))?;
        let line = parse_size(line).map_err(|e| bad(e.to_string()))?;
        let line = u32::try_from(line).map_err(|_| bad(format!("line {line} B is too large")))?;
        let c = CpuCacheConfig { size, ways, line };
        c.validate().map_err(|e| bad(e.to_string()))?;
        Ok(c)
    }

    /// Check the geometry: at least one way, a power-of-two line, a size that is a
    /// whole, positive number of sets, at most [`MAX_LINES`] lines.
    pub fn validate(&self) -> Result<()> {
        if self.ways == 0 {
            return Err(Error::Invalid("ways must be at least 1".into()));
        }
        if !self.line.is_power_of_two() {
            return Err(Error::Invalid(format!(
                "line {} B is not a power of two",
                self.line
            )));
        }
        let set_bytes = u64::from(self.ways) * u64::from(self.line);
        if self.size == 0 || self.size % set_bytes != 0 {
            return Err(Error::Invalid(format!(
                "size {} B is not a positive multiple of ways x line = {set_bytes} B",
                self.size
            )));
        }
        if self.size / u64::from(self.line) > MAX_LINES {
            return Err(Error::Invalid(format!(
                "{} lines is more than the {MAX_LINES} the model holds",
                self.size / u64::from(self.line)
            )));
        }
        Ok(())
    }

    /// Number of sets.
    pub fn sets(&self) -> u64 {
        self.size / (u64::from(self.ways) * u64::from(self.line))
    }
}

/// What the cache did so far, counted in line accesses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CpuCacheStats {
    /// Line accesses (a request touching three lines counts three).
    pub accesses: u64,
    /// Line accesses by stores.
    pub write_accesses: u64,
    /// Accesses that found their line.
    pub hits: u64,
    /// Accesses that did not; each emitted one line read.
    pub misses: u64,
    /// Dirty lines evicted by a miss; each emitted one line write.
    pub dirty_evictions: u64,
    /// Dirty lines written at the end of the trace (only with `flush`).
    pub flushed: u64,
}

/// One line frame of a set.
#[derive(Clone, Copy, Debug, Default)]
struct Frame {
    line: u64,
    dev: u32,
    valid: bool,
    dirty: bool,
}

/// The line range of a request still to be run through the cache.
#[derive(Clone, Copy, Debug)]
struct Cursor {
    req: Request,
    next: u64,
    last: u64,
}

/// A reader that runs the requests of `inner` through a CPU cache and returns what
/// leaves it (see the module docs). Its meta is `inner`'s with no request count.
pub struct CpuCache {
    inner: Box<dyn RequestReader>,
    cfg: CpuCacheConfig,
    sets: u64,
    /// `sets * ways` frames; each set's frames run from most to least recently used,
    /// invalid frames last.
    frames: Vec<Frame>,
    meta: TraceMeta,
    input: Vec<Request>,
    pos: usize,
    cur: Option<Cursor>,
    exhausted: bool,
    flush: bool,
    /// Next frame the end-of-trace flush looks at.
    flush_at: usize,
    last_time: u64,
    stats: CpuCacheStats,
}

impl CpuCache {
    /// Put a cache of geometry `cfg` in front of `inner`; with `flush`, the lines
    /// still dirty at the end are written too.
    pub fn new(inner: Box<dyn RequestReader>, cfg: CpuCacheConfig, flush: bool) -> Result<Self> {
        cfg.validate()?;
        let meta = TraceMeta {
            requests: None,
            ..inner.meta().clone()
        };
        let sets = cfg.sets();
        Ok(CpuCache {
            inner,
            cfg,
            sets,
            frames: vec![Frame::default(); (sets * u64::from(cfg.ways)) as usize],
            meta,
            input: Vec::with_capacity(BATCH),
            pos: 0,
            cur: None,
            exhausted: false,
            flush,
            flush_at: 0,
            last_time: NO_TIME,
            stats: CpuCacheStats::default(),
        })
    }

    /// The counts so far.
    pub fn stats(&self) -> CpuCacheStats {
        self.stats
    }

    fn line_request(&self, time_ns: u64, line: u64, dev: u32, op: Op) -> Request {
        Request {
            time_ns,
            offset: line * u64::from(self.cfg.line),
            len: self.cfg.line,
            dev,
            op,
        }
    }

    /// Run one line access of `req`; push at most two requests to `out`.
    fn access(&mut self, req: &Request, line: u64, out: &mut Vec<Request>) {
        let w = self.cfg.ways as usize;
        let set = (line % self.sets) as usize;
        let store = req.op == Op::Write;
        self.stats.accesses += 1;
        self.stats.write_accesses += u64::from(store);
        let frames = &mut self.frames[set * w..(set + 1) * w];
        if let Some(i) = frames
            .iter()
            .position(|f| f.valid && f.line == line && f.dev == req.dev)
        {
            frames[..=i].rotate_right(1);
            frames[0].dirty |= store;
            self.stats.hits += 1;
            return;
        }
        self.stats.misses += 1;
        let victim = frames[w - 1];
        frames.rotate_right(1);
        frames[0] = Frame {
            line,
            dev: req.dev,
            valid: true,
            dirty: store,
        };
        if victim.valid && victim.dirty {
            self.stats.dirty_evictions += 1;
            out.push(self.line_request(req.time_ns, victim.line, victim.dev, Op::Write));
        }
        out.push(self.line_request(req.time_ns, line, req.dev, Op::Read));
    }

    /// Write dirty lines left at the end, until `out` is full.
    fn flush_some(&mut self, out: &mut Vec<Request>) {
        let w = self.cfg.ways as usize;
        while self.flush_at < self.frames.len() && out.len() < BATCH {
            // Within a set, least recently used first.
            let (set, k) = (self.flush_at / w, self.flush_at % w);
            self.flush_at += 1;
            let f = self.frames[set * w + (w - 1 - k)];
            if f.valid && f.dirty {
                self.stats.flushed += 1;
                out.push(self.line_request(self.last_time, f.line, f.dev, Op::Write));
            }
        }
    }
}

impl RequestReader for CpuCache {
    fn read_batch(&mut self, out: &mut Vec<Request>) -> Result<bool> {
        out.clear();
        let line = u64::from(self.cfg.line);
        // A line access emits at most two requests.
        while out.len() + 2 <= BATCH {
            if let Some(mut c) = self.cur.take() {
                if c.next <= c.last {
                    let l = c.next;
                    c.next += 1;
                    self.cur = Some(c);
                    self.access(&c.req, l, out);
                }
                continue;
            }
            if let Some(&r) = self.input.get(self.pos) {
                self.pos += 1;
                if r.op == Op::Trim {
                    return Err(Error::Invalid(format!(
                        "a CPU cache sees loads and stores only; found a trim of {} bytes at {}",
                        r.len, r.offset
                    )));
                }
                self.last_time = r.time_ns;
                if let Some((first, last)) = r.page_range(line) {
                    self.cur = Some(Cursor {
                        req: r,
                        next: first,
                        last,
                    });
                }
                continue;
            }
            if self.exhausted {
                if self.flush {
                    self.flush_some(out);
                }
                break;
            }
            self.pos = 0;
            self.exhausted = !self.inner.read_batch(&mut self.input)?;
        }
        Ok(!out.is_empty())
    }

    fn meta(&self) -> &TraceMeta {
        &self.meta
    }

    fn skipped(&self) -> u64 {
        self.inner.skipped()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    struct Mem {
        reqs: Vec<Request>,
        at: usize,
        meta: TraceMeta,
    }

    impl RequestReader for Mem {
        fn read_batch(&mut self, out: &mut Vec<Request>) -> Result<bool> {
            out.clear();
            let end = (self.at + 7).min(self.reqs.len()); // small batches cross boundaries
            out.extend_from_slice(&self.reqs[self.at..end]);
            self.at = end;
            Ok(!out.is_empty())
        }
        fn meta(&self) -> &TraceMeta {
            &self.meta
        }
    }

    fn mem(reqs: Vec<Request>) -> Box<dyn RequestReader> {
        Box::new(Mem {
            reqs,
            at: 0,
            meta: TraceMeta {
                requests: Some(0),
                ..TraceMeta::default()
            },
        })
    }

    fn req(t: u64, op: Op, offset: u64, len: u32) -> Request {
        Request {
            time_ns: t,
            offset,
            len,
            dev: 0,
            op,
        }
    }

    fn drain(c: &mut CpuCache) -> Vec<Request> {
        let (mut all, mut b) = (Vec::new(), Vec::new());
        while c.read_batch(&mut b).unwrap() {
            assert!(!b.is_empty() && b.len() <= BATCH);
            all.extend_from_slice(&b);
        }
        all
    }

    /// 2 sets x 2 ways x 16 B lines: lines 0, 2, 4 share set 0; lines 1, 3 set 1.
    fn tiny() -> CpuCacheConfig {
        CpuCacheConfig {
            size: 64,
            ways: 2,
            line: 16,
        }
    }

    #[test]
    fn two_set_two_way_vector_by_hand() {
        use Op::{Read as R, Write as W};
        let input = vec![
            req(1, R, 0, 4),    // line 0, set 0: miss, read 0
            req(2, W, 16, 4),   // line 1, set 1: write miss, read 1 (allocate), dirty
            req(3, R, 4, 8),    // line 0: hit
            req(4, W, 32, 16),  // line 2, set 0: write miss, read 2; set 0 = [2*, 0]
            req(5, R, 0, 1),    // line 0: hit; set 0 = [0, 2*]
            req(6, R, 64, 4),   // line 4, set 0: miss evicts dirty 2: write 2, read 4
            req(7, W, 8, 16),   // lines 0 (hit, dirty) and 1 (hit)
            req(8, R, 48, 0),   // empty: no line
            req(9, R, 80, 4),   // line 5, set 1: miss, set 1 = [5, 1*], nothing evicted
            req(10, R, 112, 4), // line 7, set 1: miss evicts dirty 1: write 1, read 7
        ];
        let mut c = CpuCache::new(mem(input.clone()), tiny(), false).unwrap();
        let want = vec![
            req(1, R, 0, 16),
            req(2, R, 16, 16),
            req(4, R, 32, 16),
            req(6, W, 32, 16),
            req(6, R, 64, 16),
            req(9, R, 80, 16),
            req(10, W, 16, 16),
            req(10, R, 112, 16),
        ];
        assert_eq!(drain(&mut c), want);
        assert_eq!(
            c.stats(),
            CpuCacheStats {
                accesses: 10,
                write_accesses: 4,
                hits: 4,
                misses: 6,
                dirty_evictions: 2,
                flushed: 0,
            }
        );
        assert_eq!(c.meta().requests, None);
        // With flush, line 0 (dirty since t = 7; set 0 = [0*, 4]) is written last.
        let mut c = CpuCache::new(mem(input), tiny(), true).unwrap();
        let mut flushed = want;
        flushed.push(req(10, W, 0, 16));
        assert_eq!(drain(&mut c), flushed);
        assert_eq!(c.stats().flushed, 1);
    }

    #[test]
    fn devices_are_cached_apart_and_trims_refused() {
        let mut a = req(1, Op::Write, 0, 4);
        let mut b = a;
        b.dev = 3;
        a.time_ns = 0;
        let mut c = CpuCache::new(mem(vec![a, b]), tiny(), true).unwrap();
        let out = drain(&mut c);
        assert_eq!(out.iter().filter(|r| r.op == Op::Read).count(), 2);
        assert_eq!(out.iter().filter(|r| r.op == Op::Write).count(), 2);
        let mut c = CpuCache::new(mem(vec![req(1, Op::Trim, 0, 4)]), tiny(), false).unwrap();
        let e = c.read_batch(&mut Vec::new()).unwrap_err().to_string();
        assert!(e.contains("trim"), "{e}");
    }

    #[test]
    fn specs_parse_and_bad_ones_say_what_was_expected() {
        assert_eq!(
            CpuCacheConfig::parse(CpuCacheConfig::DEFAULT_SPEC).unwrap(),
            CpuCacheConfig::default()
        );
        assert_eq!(
            CpuCacheConfig::parse("32KiB:4:32").unwrap(),
            CpuCacheConfig {
                size: 32 << 10,
                ways: 4,
                line: 32
            }
        );
        assert_eq!(CpuCacheConfig::parse("48KiB:12:64").unwrap().sets(), 64);
        for bad in [
            "32KiB",
            "32KiB:4",
            "32KiB:0:64",
            "32KiB:4:48",
            "100:4:64",
            "0:1:64",
            "x:4:64",
            "32KiB:four:64",
            "1TiB:1:64",
            "1:2:3:4",
        ] {
            let e = CpuCacheConfig::parse(bad).unwrap_err().to_string();
            assert!(e.starts_with("expected SIZE:WAYS:LINE"), "{bad}: {e}");
        }
    }

    /// Requests over a small address range (so lines are reused and evicted), with
    /// lengths that sometimes straddle lines.
    fn trace() -> impl Strategy<Value = Vec<Request>> {
        prop::collection::vec((any::<bool>(), 0u64..2048, 0u32..40, 0u32..2), 0..400).prop_map(
            |v| {
                v.into_iter()
                    .enumerate()
                    .map(|(i, (w, offset, len, dev))| Request {
                        time_ns: i as u64,
                        offset,
                        len,
                        dev,
                        op: if w { Op::Write } else { Op::Read },
                    })
                    .collect()
            },
        )
    }

    proptest! {
        #[test]
        fn traffic_matches_the_counts(
            reqs in trace(),
            ways in 1u32..5,
            sets in 1u64..5,
            line_log in 2u32..6,
            flush in any::<bool>(),
        ) {
            let line = 1u32 << line_log;
            let cfg = CpuCacheConfig { size: sets * u64::from(ways) * u64::from(line), ways, line };
            let mut c = CpuCache::new(mem(reqs.clone()), cfg, flush).unwrap();
            let out = drain(&mut c);
            let s = c.stats();
            let reads = out.iter().filter(|r| r.op == Op::Read).count() as u64;
            let writes = out.len() as u64 - reads;
            prop_assert_eq!(reads, s.misses);
            prop_assert_eq!(writes, s.dirty_evictions + s.flushed);
            prop_assert_eq!(s.hits + s.misses, s.accesses);
            let lines: u64 = reqs
                .iter()
                .filter_map(|r| r.page_range(u64::from(line)))
                .map(|(a, b)| b - a + 1)
                .sum();
            prop_assert_eq!(s.accesses, lines);
            // Never more traffic than references: a read per missing access at most,
            // a write per store access at most (a line is written back only after a
            // store dirtied it since it was read).
            prop_assert!(reads <= s.accesses);
            prop_assert!(writes <= s.write_accesses);
            if !flush {
                prop_assert_eq!(s.flushed, 0);
            }
            // Whole, aligned lines, in the order of the accesses that caused them.
            prop_assert!(out.iter().all(|r| r.len == line && r.offset % u64::from(line) == 0));
            prop_assert!(out.windows(2).all(|p| p[0].time_ns <= p[1].time_ns));
            // Every line read is still resident or was evicted; what stays fits.
            prop_assert!(s.misses >= s.dirty_evictions);
            prop_assert!(s.misses - s.dirty_evictions >= s.flushed);
            prop_assert!(s.flushed <= cfg.size / u64::from(line));
        }
    }
}
