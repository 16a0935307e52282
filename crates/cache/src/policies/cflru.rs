//! CFLRU (clean-first LRU): LRU that, among the pages nearest the LRU end, evicts a
//! clean page before a dirty one.
//!
//! The LRU list is split into a *working region* (the MRU side) and a *clean-first
//! region* of the `w` pages nearest the LRU end. A hit moves the page to the MRU end (a
//! write makes it dirty). To make room, the policy evicts the least recently used
//! **clean** page of the clean-first region; if that region holds only dirty pages, it
//! evicts the LRU page itself (a write-back).
//!
//! Resolved ambiguities:
//! * The window size `w = max(1, floor(window × C))` is counted in pages of the LRU
//!   list, clean or dirty, not in clean pages only: CFLRU's paper defines the
//!   clean-first region as a stretch of the LRU list, and paper 002 (H. Lee, H. Bahn,
//!   K. G. Shin, JCSE 8(3), 2014, Sec. II, Fig. 1) draws it the same way.
//! * Default `window = 0.25`: paper 000 (TS-CLOCK, Kang, Min, Eom, IEEE MASCOTS 2014,
//!   Sec. IV) and 001 (Kang, Min, Eom, IEICE 2014) set 25 %, "advised by the authors"
//!   of CFLRU for its static variant. Paper 002 uses 1/3 (from the original swap
//!   simulations): `cflru:window=0.3333`.
//! * `window = 0` gives `w = 1`, i.e. plain LRU (the LRU page is the only candidate).
//!
//! Why the victim search is O(1): besides the LRU list, the policy keeps
//! 1. the list split in two at the region boundary (working list + window list, every
//!    page flagged with its region); each access moves at most one page across the
//!    boundary to keep the window at `min(w, resident)` pages; and
//! 2. a second list of the **clean** pages only, in the same recency order.
//!
//! The LRU-most clean page overall is the tail of the clean list. If any clean page
//! lies in the window, that tail does too (nothing clean is older than it), so the
//! clean-first victim is "the clean tail if it is flagged in-window, else the window's
//! LRU page": no scan of the window, whatever `w` is.
//!
//! Cost: O(1) per access. Memory: 17 bytes per page of the universe (two link arrays
//! of two `u32` each, one state byte); nothing per cached page beyond that.
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `window` | 0.25 | clean-first region as a fraction of the capacity, in [0, 1] |
//!
//! Citation: S.-Y. Park, D. Jung, J.-U. Kang, J.-S. Kim, J. Lee, "CFLRU: a replacement
//! algorithm for flash memory", Proc. CASES 2006, pp. 234-241.

use crate::list::{IndexList, Links};
use crate::params::fraction;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use crate::table::filled;
use wafer_trace::Op;

crate::params! {
    /// Parameters of [`Cflru`].
    pub struct CflruParams {
        /// Clean-first region as a fraction of the capacity, in `[0, 1]`.
        window: f64 = 0.25,
            doc "clean-first region as a fraction of the cache, 0..=1 (w = max(1, floor(window x C)) pages; 0.25 in papers 000/001, 1/3 in 002)",
            parse fraction;
    }
}

/// `max(1, floor(window × cap))`, at most `cap`. The product is nudged up by one part
/// in 10^12 so that a fraction written in decimal (0.29 × 100 = 28.999...) gives the
/// page count the user meant.
pub(crate) fn window_pages(window: f64, cap: u32) -> u32 {
    let x = (window * f64::from(cap) * (1.0 + 1e-12)).floor();
    (x as u32).clamp(1, cap)
}

/// Clean-first LRU.
#[derive(Debug)]
pub struct Cflru {
    cap: u32,
    /// Pages in the clean-first region when the cache holds at least that many.
    w: u32,
    /// Links of the working and window lists (a page is on one of them).
    links: Links,
    /// MRU side of the LRU list; head = MRU.
    work: IndexList,
    /// The `min(w, resident)` pages nearest the LRU end; tail = LRU page.
    window: IndexList,
    /// Links of the clean list.
    clinks: Links,
    /// Every resident clean page, in LRU order (head = most recent).
    clean: IndexList,
    /// Per page: [`RESIDENT`], [`DIRTY`], [`IN_WINDOW`] bits.
    state: Vec<u8>,
}

const RESIDENT: u8 = 1;
const DIRTY: u8 = 2;
const IN_WINDOW: u8 = 4;

impl Cflru {
    /// Move pages from the working region's LRU end into the window until it holds
    /// `min(w, resident)` pages. Each access needs at most one move.
    #[inline]
    fn refill_window(&mut self) {
        while self.window.len() < self.w {
            let Some(p) = self.work.pop_back(&mut self.links) else {
                return;
            };
            self.window.push_front(&mut self.links, p);
            self.state[p as usize] |= IN_WINDOW;
        }
    }

    /// Evict the LRU clean page of the window, or else the LRU page.
    #[inline]
    fn evict<S: IoSink>(&mut self, io: &mut S) {
        let v = match self.clean.tail() {
            Some(c) if self.state[c as usize] & IN_WINDOW != 0 => c,
            _ => self.window.tail().expect("a full cache has a window"),
        };
        self.window.remove(&mut self.links, v);
        let was = std::mem::replace(&mut self.state[v as usize], 0);
        if was & DIRTY != 0 {
            io.write_back(v);
        } else {
            self.clean.remove(&mut self.clinks, v);
            io.drop_clean(v);
        }
    }
}

impl Policy for Cflru {
    type Params = CflruParams;
    const NAME: &'static str = "cflru";
    const ALIASES: &'static [&'static str] = &["clean-first-lru"];
    const SUMMARY: &'static str =
        "LRU that evicts the LRU clean page of a window at the LRU end before any dirty page";
    const CITATION: &'static str = "S.-Y. Park, D. Jung, J.-U. Kang, J.-S. Kim, J. Lee, \"CFLRU: a replacement algorithm for flash memory\", Proc. CASES 2006, pp. 234-241.";
    const FLASH_AWARE: bool = true;

    fn new(capacity: u32, params: &CflruParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        if !(0.0..=1.0).contains(&params.window) {
            return Err(ParamError {
                policy: Self::NAME.into(),
                msg: format!(
                    "window: expected a fraction in [0, 1], found {}",
                    params.window
                ),
            });
        }
        let cap = capacity.max(1);
        let w = window_pages(params.window, cap);
        Ok(Cflru {
            cap,
            w,
            links: Links::new(ctx.universe_hint),
            work: IndexList::new(),
            window: IndexList::new(),
            clinks: Links::new(ctx.universe_hint),
            clean: IndexList::new(),
            state: filled(ctx.universe_hint as usize, 0),
        })
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let p = a.page;
        let write = a.op == Op::Write;
        let s = self.state[p as usize];
        if s & RESIDENT != 0 {
            if s & DIRTY == 0 {
                if write {
                    self.clean.remove(&mut self.clinks, p);
                } else {
                    self.clean.move_to_front(&mut self.clinks, p);
                }
            }
            if s & IN_WINDOW != 0 {
                self.window.remove(&mut self.links, p);
                self.work.push_front(&mut self.links, p);
                self.state[p as usize] = (s & !IN_WINDOW) | if write { DIRTY } else { 0 };
                self.refill_window();
            } else {
                self.work.move_to_front(&mut self.links, p);
                if write {
                    self.state[p as usize] = s | DIRTY;
                }
            }
            return true;
        }
        if self.work.len() + self.window.len() == self.cap {
            self.evict(io);
        }
        if write {
            self.state[p as usize] = RESIDENT | DIRTY;
        } else {
            self.state[p as usize] = RESIDENT;
            self.clean.push_front(&mut self.clinks, p);
        }
        self.work.push_front(&mut self.links, p);
        self.refill_window();
        false
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        self.links.reserve(pages);
        self.clinks.reserve(pages);
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, 0);
        }
    }

    fn len(&self) -> u32 {
        self.work.len() + self.window.len()
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(
            self.work
                .iter(&self.links)
                .chain(self.window.iter(&self.links))
                .filter(|&p| self.state[p as usize] & DIRTY != 0),
        );
    }

    fn invalidate(&mut self, page: u32) -> bool {
        let Some(&s) = self.state.get(page as usize) else {
            return false;
        };
        if s & RESIDENT == 0 {
            return false;
        }
        if s & IN_WINDOW != 0 {
            self.window.remove(&mut self.links, page);
        } else {
            self.work.remove(&mut self.links, page);
        }
        if s & DIRTY == 0 {
            self.clean.remove(&mut self.clinks, page);
        }
        self.state[page as usize] = 0;
        self.refill_window();
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::ParamSet;
    use crate::testutil::{run, Ev};

    fn params(window: f64) -> CflruParams {
        CflruParams { window }
    }

    /// The LRU list from the LRU end as (page, dirty, in window).
    fn lru_order(p: &Cflru) -> Vec<(u32, bool, bool)> {
        let mut v: Vec<u32> = p
            .work
            .iter(&p.links)
            .chain(p.window.iter(&p.links))
            .collect();
        v.reverse();
        v.into_iter()
            .map(|x| {
                let s = p.state[x as usize];
                (x, s & DIRTY != 0, s & IN_WINDOW != 0)
            })
            .collect()
    }

    /// Hand-worked vector 1 (C = 4, w = 2): the clean page 2 in the window goes
    /// before the older dirty page 1; then 3, which has entered the window.
    #[test]
    fn spec_vector_1() {
        let o = run::<Cflru>(4, &params(0.5), 4, "W1 R2 R3 R4 R5 R6");
        assert_eq!(o.policy.w, 2);
        assert_eq!(o.events[4], [Ev::Ev(2)]);
        assert_eq!(o.events[5], [Ev::Ev(3)]);
        let o5 = run::<Cflru>(4, &params(0.5), 4, "W1 R2 R3 R4 R5");
        // Order after R5: 1d, 3, 4, 5 (LRU first); the window is {1d, 3}.
        assert_eq!(
            lru_order(&o5.policy),
            [
                (1, true, true),
                (3, false, true),
                (4, false, false),
                (5, false, false)
            ]
        );
    }

    /// Hand-worked vector 2 (C = 3, w = 2): a window of dirty pages only gives
    /// up its LRU page.
    #[test]
    fn spec_vector_2() {
        let o = run::<Cflru>(3, &params(0.7), 4, "W1 W2 R3 R4");
        assert_eq!(o.policy.w, 2);
        assert_eq!(o.events[3], [Ev::Wb(1)]);
    }

    /// A clean page just outside the window is not a candidate.
    #[test]
    fn clean_page_outside_the_window_is_kept() {
        // C = 4, w = 1: LRU first 1d, 2d, 3, 4. The window is {1d}: write back 1.
        let o = run::<Cflru>(4, &params(0.25), 4, "W1 W2 R3 R4 R5");
        assert_eq!(o.events[4], [Ev::Wb(1)]);
        // w = 3: window {1d, 2d, 3} -> ev3.
        let o = run::<Cflru>(4, &params(0.75), 4, "W1 W2 R3 R4 R5");
        assert_eq!(o.events[4], [Ev::Ev(3)]);
    }

    /// The example of paper 002, Fig. 1, as its text tells it: P8 is the (dirty) LRU
    /// page, the clean-first region holds P8d, P7, P6d, P5, and pages leave in the
    /// order P7, P5, P8, P6. Reconstructed with C = 8, w = 4 and a dirty working
    /// region (P4..P1), so that pages entering the window are dirty too.
    #[test]
    fn paper_002_fig1_order() {
        let t = "W8 R7 W6 R5 W4 W3 W2 W1 R10 R11 R12 R13";
        let o = run::<Cflru>(8, &params(0.5), 4, t);
        assert_eq!(o.evictions(), [7, 5, 8, 6]);
        assert_eq!(o.write_backs(), [8, 6]);
    }

    /// With window = 0 (w = 1) CFLRU is LRU.
    #[test]
    fn window_zero_is_lru() {
        use crate::params::NoParams;
        use crate::policies::lru::Lru;
        let t = "W1 R2 W3 R1 R4 W2 R5 R1 W6 R3 R3 R7 W1 R8 R2";
        let a = run::<Cflru>(3, &params(0.0), 4, t);
        let b = run::<Lru>(3, &NoParams, 4, t);
        assert_eq!(a.hits, b.hits);
        assert_eq!(a.events, b.events);
    }

    #[test]
    fn window_pages_rounds_as_written() {
        assert_eq!(window_pages(0.29, 100), 29);
        assert_eq!(window_pages(1.0 / 3.0, 3), 1);
        assert_eq!(window_pages(1.0 / 3.0, 30_000), 10_000);
        assert_eq!(window_pages(0.25, 3), 1);
        assert_eq!(window_pages(0.0, 10), 1);
        assert_eq!(window_pages(1.0, 10), 10);
    }

    #[test]
    fn window_is_validated() {
        let mut p = CflruParams::default();
        assert!(p.set("window", "1.5").is_err());
        assert!(p.set("window", "-0.1").is_err());
        assert!(p.set("window", "abc").is_err());
        p.set("window", "0.3333").unwrap();
        assert_eq!(p.window, 0.3333);
        assert!(Cflru::new(4, &params(2.0), &PolicyCtx::default()).is_err());
    }

    /// Against a naive model (a `Vec` in LRU order, scanning the window), on random
    /// traces with trims: same hits, same events, same order.
    #[test]
    fn matches_a_naive_scan() {
        use crate::testutil::Recorder;
        use proptest::prelude::*;
        use proptest::test_runner::TestRunner;
        let ops = proptest::collection::vec((0u8..7, 0u32..14), 1..300);
        TestRunner::default()
            .run(&(ops, 1u32..8, 0.0f64..=1.0), |(ops, cap, win)| {
                let mut c = Cflru::new(cap, &params(win), &PolicyCtx::default()).unwrap();
                c.reserve(14, 0);
                let w = window_pages(win, cap) as usize;
                // (page, dirty), index 0 = LRU end.
                let mut m: Vec<(u32, bool)> = Vec::new();
                for (i, &(kind, p)) in ops.iter().enumerate() {
                    if kind == 6 {
                        let pos = m.iter().position(|e| e.0 == p);
                        prop_assert_eq!(c.invalidate(p), pos.is_some());
                        if let Some(pos) = pos {
                            m.remove(pos);
                        }
                        continue;
                    }
                    let op = if kind < 2 { Op::Write } else { Op::Read };
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
                    let mhit = if let Some(pos) = m.iter().position(|e| e.0 == p) {
                        let mut e = m.remove(pos);
                        e.1 |= op == Op::Write;
                        m.push(e);
                        true
                    } else {
                        if m.len() == cap as usize {
                            let pos = (0..w.min(m.len())).find(|&j| !m[j].1).unwrap_or(0);
                            let v = m.remove(pos);
                            want.push(if v.1 { Ev::Wb(v.0) } else { Ev::Ev(v.0) });
                        }
                        m.push((p, op == Op::Write));
                        false
                    };
                    prop_assert_eq!(hit, mhit, "step {}", i);
                    prop_assert_eq!(&rec.events, &want, "step {}", i);
                    let got: Vec<u32> = lru_order(&c).iter().map(|e| e.0).collect();
                    let exp: Vec<u32> = m.iter().map(|e| e.0).collect();
                    prop_assert_eq!(got, exp, "step {}", i);
                }
                Ok(())
            })
            .unwrap();
    }
}
