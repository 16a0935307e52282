//! S3-FIFO: three static FIFO queues, in libCacheSim's two versions.
//!
//! J. Yang, Y. Zhang, Z. Qiu, Y. Yue and K. V. Rashmi, "FIFO Queues are All You Need
//! for Cache Eviction", ACM SOSP 2023, Algorithm 1.
//!
//! A small FIFO S (10% of the capacity) admits new pages; a main FIFO M holds the
//! rest; a ghost FIFO G remembers ids recently evicted from S. Each resident page has
//! an access counter (a hit increments it, saturating at 3). A page whose id is in G
//! enters M, any other enters S. Eviction, while the cache is full: from M if M holds
//! more than its size or S is empty, else from S.
//! * From S: tails whose counter is at least `threshold` (default 2, the paper's
//!   `freq > 1` and libCacheSim's `move-to-main-threshold`) move to the head of M with
//!   the counter at 0, until a tail below it is evicted and its id enters G (or S runs
//!   out). Promotions may overfill M; M then evicts one page per eviction until it is
//!   back to its size.
//! * From M: a tail with a non-zero counter is reinserted at the head with the counter
//!   decremented; the first tail at zero is evicted.
//!
//! Two versions, both exactly as libCacheSim implements them (equal miss counts on the
//! CloudPhysics trace at seven sizes, `tests/cache/parity_pip.rs`):
//! * `s3fifo` ([`S3Fifo`]) is libCacheSim's current `S3FIFO` (`S3FIFO.c`, December
//!   2024; what the `libcachesim` pip package runs). Until the cache first evicts, a
//!   new page that finds S full enters M, so M fills during warm-up.
//! * `s3fifo-v0` ([`S3FifoV0`]) is libCacheSim's `S3FIFOv0`, the original code the
//!   paper was evaluated with (libCacheSim's `S3FIFO` until then). New pages always
//!   enter S, so S holds the whole cache until it first fills and M starts empty:
//!   the first evictions flush S's one-hit pages and M reaches its size only through
//!   promotions and ghost hits. On CloudPhysics at 32,000 objects that costs 70,108
//!   misses against the current version's 52,531 (LRU 67,182).
//!
//! Resolved details (libCacheSim's choices, both versions):
//! * Small size `floor(small_ratio * C)`, main size `C - small`, ghost
//!   `floor(ghost_ratio * C)` ids (default 0.9: "as many entries as M").
//! * A page promoted from S to M restarts its counter (libCacheSim re-inserts it as a
//!   new object). Algorithm 1 leaves this implicit.
//! * A hit never moves a page; writes set the dirty bit, and an evicted dirty page is
//!   written back. Reinsertion into M and promotion from S cause no I/O.
//! * Where libCacheSim refuses or degenerates, wafer keeps going: below C = 10 (no
//!   small queue: refused there) S holds at least one page, and where S holds
//!   one page libCacheSim admits nothing into it (it refuses an object as large as S,
//!   a guard meant for sized objects) while wafer admits as usual.
//!
//! Per page: two `u32` links (S, M and G are disjoint and share one array) and one
//! state byte (queue, dirty, counter). Amortised O(1) per access: every reinsertion
//! decrements a counter that only hits increment, every promotion follows a miss.

use crate::list::{IndexList, Links};
use crate::params::open_unit;
use crate::policy::{parse_f64, parse_u32, Access, IoSink, ParamError, Policy, PolicyCtx};
use crate::table::filled;
use wafer_trace::Op;

crate::params! {
    /// Parameters of S3-FIFO (both versions).
    pub struct S3FifoParams {
        /// Share of the capacity given to the small FIFO.
        small_ratio: f64 = 0.1,
            doc "share of the capacity for the small FIFO, in (0, 1)",
            parse open_unit;
        /// Ghost entries as a share of the capacity.
        ghost_ratio: f64 = 0.9,
            doc "ghost FIFO entries as a share of the capacity, >= 0",
            parse |v| match parse_f64(v)? {
                v if v < 0.0 => Err(format!("must be >= 0, found {v}")),
                v => Ok(v),
            };
        /// Counter value at which a page leaves S for M.
        threshold: u32 = 2,
            doc "access count (1..=3) at which a page moves from the small to the main FIFO",
            parse |v| match parse_u32(v)? {
                v @ 1..=3 => Ok(v),
                v => Err(format!("must be 1, 2 or 3, found {v}")),
            };
    }
}

const NONE: u8 = 0;
const SMALL: u8 = 1;
const MAIN: u8 = 2;
const GHOST: u8 = 3;
const WHERE: u8 = 0b0011;
const DIRTY: u8 = 0b0100;
const FREQ_SHIFT: u8 = 3;
const FREQ: u8 = 0b1_1000;
const MAX_FREQ: u8 = 3;

/// S3-FIFO; `V0` selects libCacheSim's original version (see the module doc).
#[derive(Debug)]
pub struct S3FifoQueues<const V0: bool> {
    cap: u32,
    small_cap: u32,
    main_cap: u32,
    ghost_cap: u32,
    threshold: u8,
    /// Whether the cache has evicted yet: the current version's warm-up rule.
    evicted: bool,
    links: Links,
    small: IndexList,
    main: IndexList,
    ghost: IndexList,
    state: Vec<u8>,
}

/// libCacheSim's current `S3FIFO` (`s3fifo`).
pub type S3Fifo = S3FifoQueues<false>;

/// libCacheSim's original `S3FIFOv0`, the SOSP 2023 code (`s3fifo-v0`).
pub type S3FifoV0 = S3FifoQueues<true>;

#[inline]
fn freq(s: u8) -> u8 {
    (s & FREQ) >> FREQ_SHIFT
}

impl<const V0: bool> S3FifoQueues<V0> {
    fn evict_page<S: IoSink>(&mut self, v: u32, io: &mut S) {
        if self.state[v as usize] & DIRTY != 0 {
            io.write_back(v);
        } else {
            io.drop_clean(v);
        }
        self.state[v as usize] = NONE;
    }

    /// One eviction (or, from S, promotions until S runs out).
    fn evict<S: IoSink>(&mut self, io: &mut S) {
        self.evicted = true;
        if self.main.len() > self.main_cap || self.small.is_empty() {
            self.evict_main(io);
        } else {
            self.evict_small(io);
        }
    }

    /// Evict one page from M, reinserting tails with a non-zero counter.
    fn evict_main<S: IoSink>(&mut self, io: &mut S) {
        while let Some(t) = self.main.pop_back(&mut self.links) {
            let s = self.state[t as usize];
            let f = freq(s);
            if f > 0 {
                self.state[t as usize] = (s & !FREQ) | ((f - 1) << FREQ_SHIFT);
                self.main.push_front(&mut self.links, t);
            } else {
                self.evict_page(t, io);
                return;
            }
        }
    }

    /// Evict one page from S, promoting frequent tails to M on the way.
    fn evict_small<S: IoSink>(&mut self, io: &mut S) {
        while let Some(t) = self.small.pop_back(&mut self.links) {
            let s = self.state[t as usize];
            if freq(s) >= self.threshold {
                self.state[t as usize] = (s & DIRTY) | MAIN;
                self.main.push_front(&mut self.links, t);
            } else {
                self.evict_page(t, io);
                self.remember(t);
                return;
            }
        }
    }

    /// Put `id` at the head of G, trimming G to its size.
    #[inline]
    fn remember(&mut self, id: u32) {
        if self.ghost_cap == 0 {
            return;
        }
        if self.ghost.len() >= self.ghost_cap {
            if let Some(g) = self.ghost.pop_back(&mut self.links) {
                self.state[g as usize] = NONE;
            }
        }
        self.ghost.push_front(&mut self.links, id);
        self.state[id as usize] = GHOST;
    }
}

impl<const V0: bool> Policy for S3FifoQueues<V0> {
    type Params = S3FifoParams;
    const NAME: &'static str = if V0 { "s3fifo-v0" } else { "s3fifo" };
    const ALIASES: &'static [&'static str] = if V0 { &["s3-fifo-v0"] } else { &["s3-fifo"] };
    const SUMMARY: &'static str = if V0 {
        "S3-FIFO as first published: new pages fill the small FIFO until the first eviction"
    } else {
        "small, main and ghost FIFO queues with 2-bit access counters"
    };
    const CITATION: &'static str = "J. Yang, Y. Zhang, Z. Qiu, Y. Yue, K. V. Rashmi, \"FIFO Queues are All You Need for Cache Eviction\", ACM SOSP 2023.";
    const FOLLOWS: &'static str = if V0 {
        "libCacheSim S3FIFOv0 (the paper's original code): equal miss counts"
    } else {
        "libCacheSim S3FIFO (Dec. 2024 version, pip libcachesim 0.3.5): equal miss counts"
    };

    fn new(capacity: u32, params: &S3FifoParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let cap = capacity.max(1);
        let small_cap = ((params.small_ratio * cap as f64).floor() as u32).clamp(1, cap);
        Ok(S3FifoQueues {
            cap,
            small_cap,
            main_cap: cap - small_cap,
            ghost_cap: (params.ghost_ratio * cap as f64).floor() as u32,
            threshold: params.threshold.min(MAX_FREQ as u32) as u8,
            evicted: false,
            links: Links::new(ctx.universe_hint),
            small: IndexList::new(),
            main: IndexList::new(),
            ghost: IndexList::new(),
            state: filled(ctx.universe_hint as usize, NONE),
        })
    }

    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let x = a.page;
        let s = self.state[x as usize];
        let dirty = if a.op == Op::Write { DIRTY } else { 0 };
        let w = s & WHERE;
        if w == SMALL || w == MAIN {
            let f = (freq(s) + 1).min(MAX_FREQ);
            self.state[x as usize] = (s & !FREQ) | (f << FREQ_SHIFT) | dirty;
            return true;
        }
        let from_ghost = w == GHOST;
        if from_ghost {
            self.ghost.remove(&mut self.links, x);
            self.state[x as usize] = NONE;
        }
        while self.small.len() + self.main.len() >= self.cap {
            self.evict(io);
        }
        let warming = !V0 && !self.evicted && self.small.len() >= self.small_cap;
        if from_ghost || warming {
            self.main.push_front(&mut self.links, x);
            self.state[x as usize] = MAIN | dirty;
        } else {
            self.small.push_front(&mut self.links, x);
            self.state[x as usize] = SMALL | dirty;
        }
        false
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        self.links.reserve(pages);
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, NONE);
        }
    }

    fn len(&self) -> u32 {
        self.small.len() + self.main.len()
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        let dirty = |&p: &u32| self.state[p as usize] & DIRTY != 0;
        out.extend(self.small.iter(&self.links).filter(dirty));
        out.extend(self.main.iter(&self.links).filter(dirty));
    }

    fn invalidate(&mut self, page: u32) -> bool {
        let Some(&s) = self.state.get(page as usize) else {
            return false;
        };
        match s & WHERE {
            SMALL => self.small.remove(&mut self.links, page),
            MAIN => self.main.remove(&mut self.links, page),
            GHOST => {
                self.ghost.remove(&mut self.links, page);
                self.state[page as usize] = NONE;
                return false;
            }
            _ => return false,
        }
        self.state[page as usize] = NONE;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{run, Ev};

    fn params() -> S3FifoParams {
        S3FifoParams::default()
    }

    /// C = 10: S holds 1 page, M 9, G 9 ids. One-hit wonders leave through S. The
    /// original fills S with the whole cache first; the current version sends pages
    /// to M once S is full, until the first eviction.
    #[test]
    fn warm_up_fills_small_or_main() {
        let t = "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12";
        let o = run::<S3FifoV0>(10, &params(), 4, t);
        assert_eq!(o.evictions(), [1, 2]);
        assert_eq!(o.hit_count(), 0);
        // Current: 1 in S, 2..=10 in M; then S's tail goes each time.
        let o = run::<S3Fifo>(10, &params(), 4, t);
        assert_eq!(o.evictions(), [1, 11]);
        assert_eq!(o.hit_count(), 0);
    }

    /// A page hit twice while in S is promoted to M instead of evicted; a ghost hit
    /// goes straight to M.
    #[test]
    fn promotion_and_ghost_hit() {
        // C = 3: small 1 (floor 0.3 -> 1), main 2, ghost 2.
        let o = run::<S3FifoV0>(3, &params(), 4, "R1 R1 R1 R2 R3 R4 R2 R5");
        // R4: S holds 3, 2, 1 (M empty); tail 1 (counter 2) moves to M, then tail 2
        // (counter 0) is evicted and G = [2].
        assert_eq!(o.events[5], [Ev::Ev(2)]);
        // R2: ghost hit -> miss, evict from S (|M| = 1 <= 2): tail 3 -> G; 2 enters M.
        assert!(!o.hits[6]);
        assert_eq!(o.events[6], [Ev::Ev(3)]);
        // R5: |M| = 2 <= 2 -> evict 4 from S.
        assert_eq!(o.events[7], [Ev::Ev(4)]);
        assert_eq!(o.hit_count(), 2);
    }

    /// Promotions may overfill M; M then gives back one page per miss before S is
    /// evicted from again.
    #[test]
    fn promotions_overfill_main() {
        // C = 10, small 3, main 7. Current version: 1, 2, 3 in S, 4..=10 in M.
        let p = S3FifoParams {
            small_ratio: 0.3,
            ..params()
        };
        let t = "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R1 R1 R2 R2 R11 R12 R13 R14";
        let o = run::<S3Fifo>(10, &p, 4, t);
        // R11: 1 and 2 move to M (|M| = 9), 3 is evicted. R12, R13: M evicts 4, 5.
        // R14: |M| = 7 again, S's tail 11 goes.
        assert_eq!(o.evictions(), [3, 4, 5, 11]);
        assert_eq!(o.hit_count(), 4);
    }

    /// M gives pages with a non-zero counter another round (CLOCK-like).
    #[test]
    fn main_reinserts_accessed_pages() {
        let o = run::<S3FifoV0>(3, &params(), 4, "W1 R1 R1 R2 R2 R2 R3 R4 R5 R6");
        assert_eq!(o.hit_count(), 4);
        // 1 and 2 reach M (counters restart at 0); S cycles 3, 4, 5 out.
        assert_eq!(o.evictions(), [3, 4, 5]);
        let mut d = vec![];
        o.policy.dirty_pages(&mut d);
        assert_eq!(d, [1]);
    }
}
