//! CFCLOCK (clean-first CLOCK): CLOCK that first looks, in a window of frames from the
//! hand, for an unreferenced clean page, then for an unreferenced dirty one.
//!
//! After paper 002's description (H. Lee, H. Bahn, K. G. Shin, "Page Replacement for
//! Write References in NAND Flash Based Virtual Memory Systems", JCSE 8(3), 2014,
//! Sec. V-A, on its reference \[10\], CFLRU's paper). A hit only sets the page's reference
//! bit (and the dirty bit on a write); nothing moves. To free a frame:
//! 1. the first `w` frames from the hand are searched for a **clean** page with
//!    reference bit 0;
//! 2. failing that, the same window is searched for any page with bit 0 (a dirty one,
//!    since pass 1 found no clean one);
//! 3. failing that, the hand sweeps CLOCK-style from the frame just after the window,
//!    clearing set bits and wrapping round (window frames included), to the first page
//!    with bit 0.
//!
//! The new page takes the victim's frame with its bit set to `insert_ref`, and the
//! hand moves to the frame after it.
//!
//! Resolved ambiguities (wafer's reading of Sec. V-A):
//! * (a) passes 1 and 2 leave reference bits alone; otherwise pass 2 would always
//!   succeed and pass 3 ("starting from the next position") would be dead text;
//! * (b) "the next position" is the first frame after the window;
//! * (c) after an in-window victim the hand moves one past the victim's frame, as in
//!   CLOCK; the window pages it skipped keep their bits;
//! * (d) `insert_ref = 1` by default, as for wafer's CLOCK, so the baselines compare with
//!   TS-CLOCK; paper 002's own CLOCK family inserts with 0 (`cfclock:insert_ref=0`);
//! * (e) a write hit on a clean page only sets its dirty bit;
//! * the window is 1/3 of the frames by default, the value 002 took from CFLRU's swap
//!   simulations: `w = max(1, floor(window × C))`.
//!
//! Representation: a frame array (a deque whose front is the hand is the same thing
//! read from the hand) with the page of each frame, the frame of each page, one state
//! byte per page, and two [`SummaryBits`] over the frames: "unreferenced" and
//! "unreferenced and clean". Passes 1 and 2 are two "first set bit in the window"
//! queries, O(w / 4096 + 1) word operations each instead of a walk over `w` frames;
//! pass 3 is a CLOCK sweep, amortised O(1) per access (each step clears a bit some
//! access set). A trimmed page frees its frame, which the next miss fills without an
//! eviction (frame-array CLOCK); the deque model, which has no trims, would put that
//! page behind the hand instead.
//!
//! Memory: 5 bytes per page of the universe (frame index, state byte) + about 4.25
//! bytes per frame (page id, two bitsets with their summaries).
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `window` | 1/3 | frames searched from the hand in passes 1 and 2, as a fraction of C, in [0, 1] |
//! | `insert_ref` | 1 | reference bit of a newly inserted page (0 or 1) |
//!
//! Citation: S.-Y. Park, D. Jung, J.-U. Kang, J.-S. Kim, J. Lee, "CFLRU: a replacement
//! algorithm for flash memory", Proc. CASES 2006, pp. 234-241 (the reference paper
//! 002 gives for CFCLOCK); the CLOCK variant as described by H. Lee, H. Bahn,
//! K. G. Shin, "Page Replacement for Write References in NAND Flash Based Virtual
//! Memory Systems", Journal of Computing Science and Engineering 8(3), 2014, Sec. V-A.

use crate::bits::SummaryBits;
use crate::params::{bit, fraction};
use crate::policies::cflru::window_pages;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use crate::table::filled;
use wafer_trace::Op;

crate::params! {
    /// Parameters of [`CfClock`].
    pub struct CfClockParams {
        /// Window as a fraction of the frames, in `[0, 1]`.
        window: f64 = 1.0 / 3.0,
            shown "0.3333 (1/3)",
            doc "frames searched from the hand for a clean (then dirty) unreferenced page, as a fraction of the cache, 0..=1 (w = max(1, floor(window x C)); paper 002 uses 1/3)",
            parse fraction;
        /// Reference bit of a newly inserted page, 0 or 1.
        insert_ref: u32 = 1,
            doc "reference bit of a newly inserted page: 1 (as TS-CLOCK) or 0 (paper 002's CLOCK family)",
            parse bit;
    }
}

/// Clean-first CLOCK.
#[derive(Debug)]
pub struct CfClock {
    cap: u32,
    len: u32,
    /// Window size in frames (`1..=cap`).
    w: u32,
    insert_ref: bool,
    /// Page in each frame ([`EMPTY`] if free).
    frames: Vec<u32>,
    /// Frames never used yet: `used..cap`.
    used: u32,
    /// Frames freed by trims.
    free: Vec<u32>,
    /// Frame under the hand.
    hand: u32,
    /// Per page: its frame (valid while resident).
    frame_of: Vec<u32>,
    /// Per page: [`RESIDENT`], [`DIRTY`], [`REF`] bits.
    state: Vec<u8>,
    /// Frames holding a page with reference bit 0.
    unref: SummaryBits,
    /// Frames holding a clean page with reference bit 0.
    unref_clean: SummaryBits,
}

const EMPTY: u32 = u32::MAX;
const RESIDENT: u8 = 1;
const DIRTY: u8 = 2;
const REF: u8 = 4;

impl CfClock {
    /// Record the bits of the page in frame `f` with state `s` in the two bitsets.
    #[inline]
    fn mark(&mut self, f: u32, s: u8) {
        let unref = s & REF == 0;
        self.unref.assign(f as usize, unref);
        self.unref_clean.assign(f as usize, unref && s & DIRTY == 0);
    }

    /// Choose the victim frame (the cache is full) per passes 1-3.
    #[inline]
    fn victim(&mut self) -> u32 {
        let (h, w) = (self.hand as usize, self.w as usize);
        if let Some(f) = self.unref_clean.first_cyclic(h, w) {
            return f as u32;
        }
        if let Some(f) = self.unref.first_cyclic(h, w) {
            return f as u32;
        }
        // Pass 3: every window page is referenced. Sweep from the frame after the
        // window, clearing bits, round the ring until an unreferenced page.
        let cap = self.cap as usize;
        let mut f = (h + w) % cap;
        loop {
            let p = self.frames[f];
            let s = &mut self.state[p as usize];
            if *s & REF == 0 {
                return f as u32;
            }
            *s &= !REF;
            let s = *s;
            self.mark(f as u32, s);
            f += 1;
            if f == cap {
                f = 0;
            }
        }
    }
}

impl Policy for CfClock {
    type Params = CfClockParams;
    const NAME: &'static str = "cfclock";
    const ALIASES: &'static [&'static str] = &["cf-clock", "clean-first-clock"];
    const SUMMARY: &'static str =
        "CLOCK that evicts an unreferenced clean page from a window at the hand before a dirty one";
    const CITATION: &'static str = "S.-Y. Park, D. Jung, J.-U. Kang, J.-S. Kim, J. Lee, \"CFLRU: a replacement algorithm for flash memory\", Proc. CASES 2006; CLOCK form as described in H. Lee, H. Bahn, K. G. Shin, \"Page Replacement for Write References in NAND Flash Based Virtual Memory Systems\", Journal of Computing Science and Engineering 8(3), 2014, Sec. V-A.";
    const FLASH_AWARE: bool = true;

    fn new(capacity: u32, params: &CfClockParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        if !(0.0..=1.0).contains(&params.window) || params.insert_ref > 1 {
            return Err(ParamError {
                policy: Self::NAME.into(),
                msg: format!(
                    "expected window in [0, 1] and insert_ref 0 or 1, found {} and {}",
                    params.window, params.insert_ref
                ),
            });
        }
        let cap = capacity.max(1);
        Ok(CfClock {
            cap,
            len: 0,
            w: window_pages(params.window, cap),
            insert_ref: params.insert_ref == 1,
            frames: vec![EMPTY; cap as usize],
            used: 0,
            free: Vec::new(),
            hand: 0,
            frame_of: filled(ctx.universe_hint as usize, EMPTY),
            state: filled(ctx.universe_hint as usize, 0),
            unref: SummaryBits::new(cap as usize),
            unref_clean: SummaryBits::new(cap as usize),
        })
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let p = a.page;
        let dirty = if a.op == Op::Write { DIRTY } else { 0 };
        let s = self.state[p as usize];
        if s & RESIDENT != 0 {
            let ns = s | REF | dirty;
            if ns != s {
                self.state[p as usize] = ns;
                if s & REF == 0 {
                    self.mark(self.frame_of[p as usize], ns);
                }
            }
            return true;
        }
        let f = if self.len < self.cap {
            self.len += 1;
            match self.free.pop() {
                Some(f) => f,
                None => {
                    self.used += 1;
                    self.used - 1
                }
            }
        } else {
            let f = self.victim();
            let v = self.frames[f as usize];
            let was = std::mem::replace(&mut self.state[v as usize], 0);
            if was & DIRTY != 0 {
                io.write_back(v);
            } else {
                io.drop_clean(v);
            }
            self.hand = if f + 1 == self.cap { 0 } else { f + 1 };
            f
        };
        let ns = RESIDENT | dirty | if self.insert_ref { REF } else { 0 };
        self.state[p as usize] = ns;
        self.frames[f as usize] = p;
        self.frame_of[p as usize] = f;
        self.mark(f, ns);
        false
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, 0);
            self.frame_of.resize(pages as usize, EMPTY);
        }
    }

    fn len(&self) -> u32 {
        self.len
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(
            self.frames
                .iter()
                .copied()
                .filter(|&p| p != EMPTY && self.state[p as usize] & DIRTY != 0),
        );
    }

    fn invalidate(&mut self, page: u32) -> bool {
        let Some(&s) = self.state.get(page as usize) else {
            return false;
        };
        if s & RESIDENT == 0 {
            return false;
        }
        let f = self.frame_of[page as usize];
        self.state[page as usize] = 0;
        self.frames[f as usize] = EMPTY;
        self.unref.clear(f as usize);
        self.unref_clean.clear(f as usize);
        self.free.push(f);
        self.len -= 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::ParamSet;
    use crate::testutil::{run, Ev};

    fn params(window: f64, insert_ref: u32) -> CfClockParams {
        CfClockParams { window, insert_ref }
    }

    /// The ring from the hand as (page, ref, dirty).
    fn ring(c: &CfClock) -> Vec<(u32, bool, bool)> {
        let n = c.frames.len();
        (0..n)
            .map(|k| c.frames[(c.hand as usize + k) % n])
            .filter(|&p| p != EMPTY)
            .map(|p| {
                let s = c.state[p as usize];
                (p, s & REF != 0, s & DIRTY != 0)
            })
            .collect()
    }

    /// Hand-worked vector after Sec. V-A's three passes (C = 3, w = 1, insert_ref = 1).
    #[test]
    fn spec_vector() {
        let p = CfClockParams::default();
        let o = run::<CfClock>(3, &p, 4, "W1 R2 R3 R4 R5 R6");
        assert_eq!(o.policy.w, 1);
        // R4: passes 1 and 2 fail on [1¹d]; pass 3 clears 2, 3, 1 and evicts 2.
        assert_eq!(o.events[3], [Ev::Ev(2)]);
        // R5: window [3⁰] is clean and unreferenced.
        assert_eq!(o.events[4], [Ev::Ev(3)]);
        // R6: window [1⁰d]: pass 2 writes it back.
        assert_eq!(o.events[5], [Ev::Wb(1)]);
        assert_eq!(
            ring(&o.policy),
            [(4, true, false), (5, true, false), (6, true, false)]
        );
        let o4 = run::<CfClock>(3, &p, 4, "W1 R2 R3 R4");
        assert_eq!(
            ring(&o4.policy),
            [(3, false, false), (1, false, true), (4, true, false)]
        );
        // Plain CLOCK on the same trace: WB1, ev2, ev3.
        use crate::policies::clock::{Clock, ClockParams};
        let c = run::<Clock>(3, &ClockParams::default(), 4, "W1 R2 R3 R4 R5 R6");
        assert_eq!(c.events[3..], [[Ev::Wb(1)], [Ev::Ev(2)], [Ev::Ev(3)]]);
    }

    /// Pass 1 skips an unreferenced dirty page for a clean one further in the window,
    /// and the skipped page keeps its place (the hand jumps past it).
    #[test]
    fn clean_first_inside_the_window() {
        // C = 4, w = 2, insert_ref = 0: [1⁰d, 2⁰, 3⁰, 4⁰]; R5 evicts 2, hand -> 3.
        let o = run::<CfClock>(4, &params(0.5, 0), 4, "W1 R2 R3 R4 R5");
        assert_eq!(o.events[4], [Ev::Ev(2)]);
        assert_eq!(
            ring(&o.policy),
            [
                (3, false, false),
                (4, false, false),
                (1, false, true),
                (5, false, false)
            ]
        );
    }

    #[test]
    fn parameters_are_validated() {
        let mut p = CfClockParams::default();
        assert!(p.set("window", "1.01").is_err());
        assert!(p.set("insert_ref", "2").is_err());
        p.set("window", "0.25").unwrap();
        p.set("insert_ref", "0").unwrap();
        assert_eq!(p, params(0.25, 0));
        assert!(CfClock::new(3, &params(-1.0, 1), &PolicyCtx::default()).is_err());
    }

    /// Against a deque model of the three passes (front = hand), on random traces
    /// without trims: same hits, same events, same ring.
    #[test]
    fn matches_the_deque_model() {
        use crate::testutil::Recorder;
        use proptest::prelude::*;
        use proptest::test_runner::TestRunner;
        use std::collections::VecDeque;
        let ops = proptest::collection::vec((any::<bool>(), 0u32..14), 1..300);
        TestRunner::default()
            .run(
                &(ops, 1u32..9, 0.0f64..=1.0, 0u32..2),
                |(ops, cap, win, ir)| {
                    let mut c = CfClock::new(cap, &params(win, ir), &PolicyCtx::default()).unwrap();
                    c.reserve(14, 0);
                    let w = window_pages(win, cap) as usize;
                    // (page, ref, dirty)
                    let mut m: VecDeque<(u32, bool, bool)> = VecDeque::new();
                    for (i, &(write, p)) in ops.iter().enumerate() {
                        let op = if write { Op::Write } else { Op::Read };
                        let a = Access {
                            page: p,
                            block: 0,
                            key: u64::from(p),
                            op,
                            index: i as u64,
                            next_use: u64::MAX,
                        };
                        let mut rec = Recorder::default();
                        let hit = c.access(&a, &mut rec);
                        let mut want = vec![];
                        let mhit = if let Some(e) = m.iter_mut().find(|e| e.0 == p) {
                            e.1 = true;
                            e.2 |= write;
                            true
                        } else {
                            if m.len() == cap as usize {
                                let win = w.min(m.len());
                                let pos = (0..win)
                                    .find(|&j| !m[j].1 && !m[j].2)
                                    .or_else(|| (0..win).find(|&j| !m[j].1))
                                    .unwrap_or_else(|| {
                                        let n = m.len();
                                        let mut j = win % n;
                                        while m[j].1 {
                                            m[j].1 = false;
                                            j = (j + 1) % n;
                                        }
                                        j
                                    });
                                m.rotate_left(pos);
                                let v = m.pop_front().unwrap();
                                want.push(if v.2 { Ev::Wb(v.0) } else { Ev::Ev(v.0) });
                            }
                            m.push_back((p, ir == 1, write));
                            false
                        };
                        prop_assert_eq!(hit, mhit, "step {}", i);
                        prop_assert_eq!(&rec.events, &want, "step {}", i);
                        // Before the cache first fills, the hand is at frame 0 and the
                        // model's front is the oldest page: the same ring.
                        let got = ring(&c);
                        let exp: Vec<_> = m.iter().copied().collect();
                        prop_assert_eq!(got, exp, "step {}", i);
                    }
                    Ok(())
                },
            )
            .unwrap();
    }
}
