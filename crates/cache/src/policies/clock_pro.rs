//! CLOCK-Pro: CLOCK with LIRS-style reuse distances.
//!
//! S. Jiang, F. Chen and X. Zhang, "CLOCK-Pro: An Effective Improvement of the CLOCK
//! Replacement", USENIX ATC 2005, Section 3.
//!
//! One circular list holds hot pages, resident cold pages and non-resident cold pages
//! in their test period. HAND_cold frees frames (evicting unreferenced cold pages,
//! promoting referenced cold pages in their test period to hot), HAND_hot turns
//! unreferenced hot pages cold and ends test periods, and HAND_test ends test periods
//! to bound the non-resident entries to C. The cold target `m_c` grows on a hit in a
//! test period (a miss on a non-resident test page) and shrinks when a test period
//! ends unused.
//!
//! Resolved details:
//! * The list is a deque in sweep order; "the list head" is the position just behind
//!   HAND_hot, so a newly inserted or moved page is the last one HAND_hot reaches.
//! * Initial `m_c = max(1, round(cold_ratio * C))`, default ratio 0.01 (wafer's
//!   choice, mirroring LIRS: the paper's initial value is not in our sources), bounded
//!   to `[1, max(1, C-1)]`.
//! * A miss on a non-resident test page first adapts `m_c`, then frees a frame; the
//!   page becomes hot (reference bit 0) even if the freeing sweep ended its test
//!   period meanwhile. Afterwards HAND_hot runs while #hot exceeds `C - m_c`.
//! * HAND_hot moves HAND_test along when it passes it.
//! * No published hand-computed vectors exist in our sources; the tests check the
//!   properties the algorithm implies (once-only accesses behave as FIFO; a loop of
//!   C+1 pages hits).
//!
//! Speed: HAND_cold only ever stops at resident cold pages, but they are a small
//! share of the ring (`m_c` of C), so stepping over hot and non-resident entries
//! costs O(C / m_c) per miss. Instead the resident cold pages are also kept in a
//! second list in ring order, and HAND_cold jumps along it. Ring order is made
//! checkable with a label per entry: every entry gets a fresh, larger label when it is
//! inserted (just behind HAND_hot) or when HAND_hot passes it, so labels increase
//! along the ring from HAND_hot; the cold list is therefore only ever appended to,
//! and `cold_at` (the first cold page at or after HAND_cold) is kept up to date with
//! one label comparison. The test module checks this event for event against the
//! stepping implementation (`clock_pro_ref.rs`).
//!
//! Per page: four `u32` links (ring and cold list), one `u64` label and one flag byte
//! (non-resident entries included). O(1) per HAND_cold stop; HAND_hot and HAND_test
//! are O(1) amortised (each step clears a bit or changes a status).

use crate::list::{IndexList, Links, NIL};
use crate::params::open_unit;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use crate::table::filled;
use wafer_trace::Op;

crate::params! {
    /// Parameters of CLOCK-Pro.
    pub struct ClockProParams {
        /// Initial cold target as a share of the capacity.
        cold_ratio: f64 = 0.01,
            doc "initial cold-page target as a share of the capacity, in (0, 1); at least one page",
            parse open_unit;
    }
}

const IN: u8 = 1;
const RES: u8 = 2;
const HOT: u8 = 4;
const REF: u8 = 8;
const TEST: u8 = 16;
const DIRTY: u8 = 32;
/// On the cold list (exactly the resident cold pages).
const COLDQ: u8 = 64;

/// CLOCK-Pro.
#[derive(Debug)]
pub struct ClockPro {
    cap: u32,
    mc: u32,
    mc_max: u32,
    n_hot: u32,
    n_cold: u32,
    n_nonres: u32,
    links: Links,
    ring: IndexList,
    hand_hot: u32,
    hand_cold: u32,
    hand_test: u32,
    flags: Vec<u8>,
    /// Resident cold pages in ring order from HAND_hot (= label order).
    cold: IndexList,
    cold_links: Links,
    /// First cold-list page at or after HAND_cold in ring order (wrapping), `NIL` if
    /// the cold list is empty: where HAND_cold stops next.
    cold_at: u32,
    /// Ring-order label of each entry, increasing along the ring from HAND_hot.
    label: Vec<u64>,
    next_label: u64,
}

impl ClockPro {
    /// The current cold target `m_c`.
    pub fn cold_target(&self) -> u32 {
        self.mc
    }

    fn next(&self, id: u32) -> u32 {
        self.ring
            .next(&self.links, id)
            .or(self.ring.head())
            .unwrap_or(NIL)
    }

    /// Insert `id` just behind HAND_hot (flags already set); a resident cold page also
    /// joins the cold list.
    fn insert_head(&mut self, id: u32) {
        if self.hand_hot == NIL {
            self.ring.push_back(&mut self.links, id);
            self.hand_hot = id;
            self.hand_cold = id;
            self.hand_test = id;
        } else {
            self.ring.insert_before(&mut self.links, self.hand_hot, id);
        }
        self.relabel(id);
        if self.flags[id as usize] & (RES | HOT) == RES {
            self.cold_push(id);
        }
    }

    fn relabel(&mut self, id: u32) {
        self.label[id as usize] = self.next_label;
        self.next_label += 1;
    }

    /// Append `id`, which carries the largest label, to the cold list.
    fn cold_push(&mut self, id: u32) {
        self.cold.push_back(&mut self.cold_links, id);
        self.flags[id as usize] |= COLDQ;
        // `cold_at` wrapped (no cold page at or after HAND_cold) unless its label is
        // not below HAND_cold's; then the new last page is the first one it meets.
        if self.cold_at == NIL
            || self.label[self.cold_at as usize] < self.label[self.hand_cold as usize]
        {
            self.cold_at = id;
        }
    }

    fn cold_remove(&mut self, id: u32) {
        if self.cold_at == id {
            let n = self
                .cold
                .next(&self.cold_links, id)
                .or(self.cold.head())
                .unwrap_or(NIL);
            self.cold_at = if n == id { NIL } else { n };
        }
        self.cold.remove(&mut self.cold_links, id);
        self.flags[id as usize] &= !COLDQ;
    }

    /// HAND_hot has just moved past `h` (status already updated): `h` becomes the
    /// last entry in ring order from HAND_hot.
    fn passed_by_hand_hot(&mut self, h: u32) {
        if self.flags[h as usize] & COLDQ != 0 {
            self.cold_remove(h);
        }
        self.relabel(h);
        if self.hand_cold == h {
            self.cold_at = self.cold.head().unwrap_or(NIL);
        }
        if self.flags[h as usize] & (RES | HOT) == RES {
            self.cold_push(h);
        }
    }

    fn unlink(&mut self, id: u32) {
        if self.flags[id as usize] & COLDQ != 0 {
            self.cold_remove(id);
        }
        let n = self.next(id);
        let n = if n == id { NIL } else { n };
        for h in [&mut self.hand_hot, &mut self.hand_cold, &mut self.hand_test] {
            if *h == id {
                *h = n;
            }
        }
        self.ring.remove(&mut self.links, id);
    }

    fn move_to_head(&mut self, id: u32) {
        self.unlink(id);
        self.insert_head(id);
    }

    fn shrink_mc(&mut self) {
        self.mc = self.mc.saturating_sub(1).max(1);
    }

    /// End the test period of `h` (a cold page); a non-resident entry leaves the list.
    fn end_test(&mut self, h: u32) {
        self.shrink_mc();
        if self.flags[h as usize] & RES == 0 {
            self.unlink(h);
            self.flags[h as usize] = 0;
            self.n_nonres -= 1;
        } else {
            self.flags[h as usize] &= !TEST;
        }
    }

    fn run_hand_hot(&mut self) {
        while self.n_hot > self.cap - self.mc && self.hand_hot != NIL {
            let h = self.hand_hot;
            let f = self.flags[h as usize];
            let n = self.next(h);
            if self.hand_test == h {
                self.hand_test = n;
            }
            if f & HOT != 0 {
                if f & REF != 0 {
                    self.flags[h as usize] = f & !REF;
                } else {
                    self.flags[h as usize] = f & !(HOT | TEST);
                    self.n_hot -= 1;
                    self.n_cold += 1;
                }
                self.hand_hot = n;
                self.passed_by_hand_hot(h);
            } else if f & TEST != 0 {
                self.hand_hot = n;
                self.end_test(h);
                if self.flags[h as usize] & IN != 0 {
                    self.passed_by_hand_hot(h);
                }
            } else {
                self.hand_hot = n;
                self.passed_by_hand_hot(h);
            }
        }
    }

    fn run_hand_test(&mut self) {
        while self.n_nonres > self.cap && self.hand_test != NIL {
            let h = self.hand_test;
            let f = self.flags[h as usize];
            self.hand_test = self.next(h);
            if f & HOT == 0 && f & TEST != 0 {
                self.end_test(h);
            }
        }
    }

    fn run_hand_cold<S: IoSink>(&mut self, io: &mut S) {
        self.run_hand_hot();
        // HAND_cold jumps straight to the next resident cold page.
        while self.cold_at != NIL {
            let h = self.cold_at;
            self.hand_cold = h;
            let f = self.flags[h as usize];
            if f & REF == 0 {
                if f & DIRTY != 0 {
                    io.write_back(h);
                } else {
                    io.drop_clean(h);
                }
                self.n_cold -= 1;
                if f & TEST != 0 {
                    self.cold_remove(h);
                    self.flags[h as usize] = IN | TEST;
                    self.n_nonres += 1;
                    self.hand_cold = self.next(h);
                } else {
                    self.unlink(h);
                    self.flags[h as usize] = 0;
                }
                self.run_hand_test();
                return;
            }
            if f & TEST != 0 {
                self.flags[h as usize] = (f & !(REF | TEST)) | HOT;
                self.n_cold -= 1;
                self.n_hot += 1;
                self.move_to_head(h);
                self.run_hand_hot();
            } else {
                self.flags[h as usize] = (f & !REF) | TEST;
                self.move_to_head(h);
            }
        }
    }
}

impl Policy for ClockPro {
    type Params = ClockProParams;
    const NAME: &'static str = "clock-pro";
    const ALIASES: &'static [&'static str] = &["clockpro"];
    const SUMMARY: &'static str = "CLOCK with hot/cold pages and test periods approximating LIRS";
    const CITATION: &'static str = "S. Jiang, F. Chen and X. Zhang, \"CLOCK-Pro: An Effective Improvement of the CLOCK Replacement\", USENIX ATC 2005.";
    const FOLLOWS: &'static str = "the paper's Section 3 (wafer's reading); libCacheSim ClockPro is another reading, 3-16% apart";

    fn new(capacity: u32, params: &ClockProParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let cap = capacity.max(1);
        let mc_max = (cap - 1).max(1);
        let mc = ((params.cold_ratio * cap as f64).round() as u32).clamp(1, mc_max);
        Ok(ClockPro {
            cap,
            mc,
            mc_max,
            n_hot: 0,
            n_cold: 0,
            n_nonres: 0,
            links: Links::new(ctx.universe_hint),
            ring: IndexList::new(),
            hand_hot: NIL,
            hand_cold: NIL,
            hand_test: NIL,
            flags: filled(ctx.universe_hint as usize, 0),
            cold: IndexList::new(),
            cold_links: Links::new(ctx.universe_hint),
            cold_at: NIL,
            label: filled(ctx.universe_hint as usize, 0),
            next_label: 0,
        })
    }

    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let x = a.page;
        let dirty = if a.op == Op::Write { DIRTY } else { 0 };
        let f = self.flags[x as usize];
        if f & RES != 0 {
            self.flags[x as usize] = f | REF | dirty;
            return true;
        }
        let in_test = f & IN != 0;
        if in_test {
            self.mc = (self.mc + 1).min(self.mc_max);
        }
        if self.n_hot + self.n_cold >= self.cap {
            self.run_hand_cold(io);
        }
        if in_test {
            if self.flags[x as usize] & IN != 0 {
                self.unlink(x);
                self.n_nonres -= 1;
            }
            self.flags[x as usize] = IN | RES | HOT | dirty;
            self.insert_head(x);
            self.n_hot += 1;
            self.run_hand_hot();
        } else {
            self.flags[x as usize] = IN | RES | TEST | dirty;
            self.insert_head(x);
            self.n_cold += 1;
        }
        false
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        self.links.reserve(pages);
        self.cold_links.reserve(pages);
        if pages as usize > self.flags.len() {
            self.flags.resize(pages as usize, 0);
            self.label.resize(pages as usize, 0);
        }
    }

    fn len(&self) -> u32 {
        self.n_hot + self.n_cold
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(
            self.ring
                .iter(&self.links)
                .filter(|&p| self.flags[p as usize] & (RES | DIRTY) == RES | DIRTY),
        );
    }

    fn invalidate(&mut self, page: u32) -> bool {
        let Some(&f) = self.flags.get(page as usize) else {
            return false;
        };
        if f & IN == 0 {
            return false;
        }
        self.unlink(page);
        self.flags[page as usize] = 0;
        if f & RES == 0 {
            self.n_nonres -= 1;
            return false;
        }
        if f & HOT != 0 {
            self.n_hot -= 1;
        } else {
            self.n_cold -= 1;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::NoParams;
    use crate::policies::fifo::Fifo;
    use crate::reference::clock_pro::ReferenceClockPro;
    use crate::testutil::run;
    use crate::testutil::Recorder;

    /// Spec property 1: if every page is accessed once, CLOCK-Pro evicts like FIFO.
    #[test]
    fn once_only_is_fifo() {
        let trace: Vec<String> = (1..=40).map(|p| format!("R{p}")).collect();
        let trace = trace.join(" ");
        let o = run::<ClockPro>(5, &ClockProParams::default(), 4, &trace);
        let f = run::<Fifo>(5, &NoParams, 4, &trace);
        assert_eq!(o.evictions(), f.evictions());
        assert_eq!(o.evictions()[..3], [1, 2, 3]);
    }

    /// Spec property 2: a loop over C+1 pages hits, where LRU and CLOCK never do.
    #[test]
    fn loop_of_c_plus_one_hits() {
        let trace: Vec<String> = (0..30)
            .flat_map(|_| 1..=6)
            .map(|p| format!("R{p}"))
            .collect();
        let o = run::<ClockPro>(5, &ClockProParams::default(), 4, &trace.join(" "));
        assert!(o.hit_count() > 60, "hits {}", o.hit_count());
    }

    /// A miss on a page in its test period makes it hot and raises m_c.
    #[test]
    fn test_period_hit_promotes() {
        let p = ClockProParams { cold_ratio: 0.3 };
        let o = run::<ClockPro>(3, &p, 4, "R1 R2 W3 R4 R1");
        assert_eq!(o.evictions()[0], 1);
        assert_ne!(o.policy.flags[1] & HOT, 0);
        assert_eq!(o.policy.cold_target(), 2);
        let mut d = vec![];
        o.policy.dirty_pages(&mut d);
        assert_eq!(d, [3]);
    }

    /// Run both implementations on one op list (0,1 read; 2 write; 3 trim) and compare
    /// hits, reported events, occupancy, `m_c` and dirty pages after every step.
    fn check_against_reference(ops: &[(u8, u32)], cap: u32, ratio: f64) -> Result<(), String> {
        let ctx = PolicyCtx {
            universe_hint: 4,
            ..PolicyCtx::default()
        };
        let p = ClockProParams { cold_ratio: ratio };
        let mut fast = ClockPro::new(cap, &p, &ctx).unwrap();
        let mut slow = ReferenceClockPro::new(cap, &p, &ctx).unwrap();
        let top = ops.iter().map(|o| o.1 + 1).max().unwrap_or(1);
        fast.reserve(top, 1);
        slow.reserve(top, 1);
        for (i, &(kind, page)) in ops.iter().enumerate() {
            if kind == 3 {
                if fast.invalidate(page) != slow.invalidate(page) {
                    return Err(format!("step {i}: invalidate({page}) differs"));
                }
            } else {
                let a = Access {
                    page,
                    block: 0,
                    key: u64::from(page),
                    op: if kind == 2 { Op::Write } else { Op::Read },
                    index: i as u64,
                    next_use: u64::MAX,
                };
                let (mut rf, mut rs) = (Recorder::default(), Recorder::default());
                let (hf, hs) = (fast.access(&a, &mut rf), slow.access(&a, &mut rs));
                if hf != hs || rf.events != rs.events {
                    return Err(format!(
                        "step {i} ({kind},{page}): hit {hf} vs {hs}, events {:?} vs {:?}",
                        rf.events, rs.events
                    ));
                }
            }
            let (mut df, mut ds) = (vec![], vec![]);
            fast.dirty_pages(&mut df);
            slow.dirty_pages(&mut ds);
            if fast.len() != slow.len() || fast.cold_target() != slow.cold_target() || df != ds {
                return Err(format!("step {i}: state differs"));
            }
        }
        Ok(())
    }

    /// The jumping cold hand behaves exactly like the stepping one, on random traces
    /// with writes and trims, over capacities and initial cold ratios.
    #[test]
    fn matches_the_stepping_reference() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let ops = proptest::collection::vec((0u8..4, 0u32..40), 1..1500);
        TestRunner::new(Config::with_cases(400))
            .run(&(ops, 1u32..24, 0.01f64..0.9), |(ops, cap, r)| {
                check_against_reference(&ops, cap, r).map_err(TestCaseError::fail)
            })
            .unwrap();
    }

    /// Long skewed traces (hot set plus a scan) reach steady states the short random
    /// ones rarely do: many hot pages, full non-resident bookkeeping.
    #[test]
    fn matches_the_stepping_reference_on_long_skewed_traces() {
        for seed in 0..12u64 {
            let ops = crate::testutil::skewed_ops(seed, 30_000, 0.02, 150, 1600);
            let cap = 20 + (seed as u32) * 9;
            check_against_reference(&ops, cap, 0.01 + 0.03 * seed as f64).unwrap();
        }
    }
}
