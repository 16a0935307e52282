//! Sorted-Clock (= Sp.Clock): CLOCK whose hand sweeps the resident pages in ascending
//! page order, so dirty victims reach storage in address order.
//!
//! Sources: Sorted-Clock of paper 003 (the short paper that proposes Sorted-Clock and
//! Sorted-Clock-WSR for smart-phone flash storage, evaluated with a virtual-memory
//! simulator and a workload player; it "combines the idea of Circular-SCAN … and
//! Clock", after WOW, Gill & Modha, FAST 2005); the same algorithm is the Sp.Clock
//! baseline (Kim, Ryu & Ramachandran, SpatialClock, SIGMETRICS 2012) of papers 000 and
//! 001 (TS-CLOCK: Kang, Min, Eom, IEEE MASCOTS 2014; BUA: Kang, Min, Eom, IEICE Trans.
//! Inf. & Syst. E97-D(9), 2014), where Sp.Clock "manages page frames by logical sector
//! number rather than recency order".
//!
//! Every resident page has a reference bit; clean and dirty pages are treated alike
//! (paper 000: "Sp.Clock does not exploit asymmetric read and write operation
//! times"). A hit sets the bit (a write also makes the page dirty). A miss on a full
//! cache sweeps from the hand position h to the first resident page with key >= h,
//! wrapping from the highest key to the lowest, clearing set bits; the first page with
//! a clear bit is the victim (written back if dirty) and h becomes its key + 1. The new
//! page is inserted at its sorted position.
//!
//! Resolved ambiguities:
//! * (a) The hand is a page-key *position*, not a pointer: a new page with key >= h is
//!   met later in the current sweep, one below h only after the wrap (Circular-SCAN).
//!   The initial null hand is position 0, i.e. "the smallest resident page".
//! * (b) `insert_ref` (the bit of a new page): WOW uses 0, papers 000/001 do not say;
//!   default 1, as CLOCK and TS-CLOCK here.
//! * (c) WOW's "no recency bit on sequential hits" is not part of Sp.Clock as the
//!   papers 000, 001 and 003 describe it; `seq_no_ref = true` turns it on. A hit is
//!   *sequential* when its key follows the key of the previous access by one (a
//!   reconstruction: WOW detects sequential streams at the granularity of its write
//!   groups).
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `insert_ref` | 1 | reference bit of a newly inserted page (0 or 1) |
//! | `seq_no_ref` | false | a hit to the key after the previous access's does not set the bit |
//!
//! Representation: the pages in key order live in a [`SortedRing`] (a height-two
//! B+-tree in a slab: a miss costs two binary searches and a move of at most one
//! bucket; the sweep reads keys sequentially), per-page state in flat arrays. A hit is
//! O(1); eviction is amortised O(1) sweep steps (each clears a bit some access set)
//! plus O(log C) to find the hand and the new page's place. No allocation once the slab
//! has grown. Memory: 9 bytes per page of the universe (key, state) + 12 to 48 bytes
//! per resident page (ring entries in buckets 1/4 to full).

use super::sorted_ring::SortedRing;
use crate::params::bit;
use crate::policy::{parse_bool, Access, IoSink, ParamError, Policy, PolicyCtx};
use wafer_trace::Op;

crate::params! {
    /// Parameters of [`SortedClock`] and [`super::sorted_clock_wsr::SortedClockWsr`].
    pub struct SortedClockParams {
        /// Reference bit of a newly inserted page, 0 or 1.
        insert_ref: u32 = 1,
            doc "reference bit of a newly inserted page: 1 (as CLOCK and TS-CLOCK here) or 0 (WOW)",
            parse bit;
        /// Sequential hits (key = previous access's key + 1) leave the bit alone (WOW).
        seq_no_ref: bool = false,
            doc "WOW's rule: a hit to the page after the previously accessed one does not set the reference bit",
            parse parse_bool;
    }
}

const RESIDENT: u8 = 1;
const DIRTY: u8 = 2;
const REF: u8 = 4;
/// Sorted-Clock-WSR's cold flag ([`super::sorted_clock_wsr`]); never set when `WSR` is
/// false.
const COLD: u8 = 8;

/// Sorted-Clock, with Sorted-Clock-WSR's cold flag when `WSR` is true.
#[derive(Debug)]
pub struct SortedCore<const WSR: bool> {
    cap: u32,
    insert_ref: bool,
    seq_no_ref: bool,
    /// Pages in key order.
    ring: SortedRing,
    /// The hand: the sweep resumes at the first resident key >= this.
    hand: u64,
    /// Key of the previous access (for `seq_no_ref`).
    last_key: u64,
    /// Per page: its key.
    keys: Vec<u64>,
    /// Per page: RESIDENT | DIRTY | REF | COLD bits.
    st: Vec<u8>,
}

impl<const WSR: bool> SortedCore<WSR> {
    /// An empty cache of `capacity` pages.
    pub fn new(capacity: u32, params: &SortedClockParams, ctx: &PolicyCtx) -> Self {
        let mut c = SortedCore {
            cap: capacity.max(1),
            insert_ref: params.insert_ref == 1,
            seq_no_ref: params.seq_no_ref,
            ring: SortedRing::new(),
            hand: 0,
            last_key: u64::MAX,
            keys: Vec::new(),
            st: Vec::new(),
        };
        c.reserve(ctx.universe_hint);
        c
    }

    /// Handle one access; `true` on a hit.
    #[inline]
    pub fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let pi = a.page as usize;
        let dirty = if a.op == Op::Write { DIRTY } else { 0 };
        let seq = self.seq_no_ref && a.key == self.last_key.wrapping_add(1);
        self.last_key = a.key;
        let s = self.st[pi];
        if s & RESIDENT != 0 {
            let mut n = s | dirty;
            if !seq {
                n |= REF;
            }
            if WSR && n & DIRTY != 0 {
                // WSR: cold = 0 when a page becomes dirty and on any hit to a dirty page.
                n &= !COLD;
            }
            self.st[pi] = n;
            return true;
        }
        if self.ring.len() == self.cap {
            self.evict(io);
        }
        self.keys[pi] = a.key;
        self.st[pi] = RESIDENT | dirty | if self.insert_ref { REF } else { 0 };
        self.ring.insert(a.key, a.page);
        false
    }

    /// Sweep from the hand to the victim (with Sorted-Clock-WSR's cold test after the
    /// reference test when `WSR`), drop it and leave the hand just past its key.
    fn evict<S: IoSink>(&mut self, io: &mut S) {
        let mut c = self.ring.seek(self.hand).expect("a full cache has pages");
        loop {
            let (k, p) = self.ring.get(c);
            let s = &mut self.st[p as usize];
            if *s & REF != 0 {
                *s &= !REF;
            } else if WSR && *s & (DIRTY | COLD) == DIRTY {
                *s |= COLD;
            } else {
                if *s & DIRTY != 0 {
                    io.write_back(p);
                } else {
                    io.drop_clean(p);
                }
                *s = 0;
                self.hand = k.wrapping_add(1);
                self.ring.remove(c);
                return;
            }
            c = self.ring.next(c);
        }
    }

    /// Grow per-page arrays to ids `< pages`.
    pub fn reserve(&mut self, pages: u32) {
        if pages as usize > self.st.len() {
            self.st.resize(pages as usize, 0);
            self.keys.resize(pages as usize, 0);
        }
    }

    /// Resident pages.
    pub fn resident(&self) -> u32 {
        self.ring.len()
    }

    /// Capacity in pages.
    pub fn capacity(&self) -> u32 {
        self.cap
    }

    /// Append every resident dirty page to `out`.
    pub fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(
            self.st
                .iter()
                .enumerate()
                .filter(|&(_, &s)| s & (RESIDENT | DIRTY) == RESIDENT | DIRTY)
                .map(|(p, _)| p as u32),
        );
    }

    /// Drop `page` without I/O; the hand, a key position, needs no repair.
    pub fn invalidate(&mut self, page: u32) -> bool {
        let pi = page as usize;
        if self.st.get(pi).map_or(true, |&s| s & RESIDENT == 0) {
            return false;
        }
        let c = self
            .ring
            .find(self.keys[pi])
            .expect("a resident page is in the ring");
        self.ring.remove(c);
        self.st[pi] = 0;
        true
    }

    /// The reference bit of `page` (tests).
    #[cfg(test)]
    pub(crate) fn referenced(&self, page: u32) -> bool {
        self.st[page as usize] & REF != 0
    }

    /// The hand position (tests).
    #[cfg(test)]
    pub(crate) fn hand(&self) -> u64 {
        self.hand
    }

    /// Resident pages in key order (tests).
    #[cfg(test)]
    pub(crate) fn pages(&self) -> Vec<u32> {
        self.ring.iter().map(|e| e.1).collect()
    }
}

/// Sorted-Clock (= Sp.Clock).
#[derive(Debug)]
pub struct SortedClock(SortedCore<false>);

impl Policy for SortedClock {
    type Params = SortedClockParams;
    const NAME: &'static str = "sorted-clock";
    const ALIASES: &'static [&'static str] = &["sp-clock", "spatial-clock"];
    const SUMMARY: &'static str =
        "CLOCK whose hand sweeps the pages in ascending page order (Circular-SCAN), wrapping";
    const CITATION: &'static str = "Sorted-Clock: write-ordering-aware page replacement for smartphone flash (the Sorted-Clock paper of wafer's paper set, docs/cache.md); = Sp.Clock of papers 000/001 (H. Kim, M. Ryu, U. Ramachandran, \"What is a good buffer cache replacement scheme for mobile flash storage?\", SIGMETRICS 2012); after WOW (B. S. Gill, D. S. Modha, FAST 2005).";

    fn new(capacity: u32, params: &SortedClockParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        Ok(SortedClock(SortedCore::new(capacity, params, ctx)))
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        self.0.access(a, io)
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        self.0.reserve(pages);
    }

    fn len(&self) -> u32 {
        self.0.resident()
    }

    fn capacity(&self) -> u32 {
        self.0.capacity()
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        self.0.dirty_pages(out);
    }

    fn invalidate(&mut self, page: u32) -> bool {
        self.0.invalidate(page)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::policy::ParamSet;
    use crate::testutil::{parse, run, Ev};
    use rand::{Rng, SeedableRng};
    use std::collections::BTreeMap;

    /// Hand-worked vector (C = 3, insert_ref = 1): ev2, ev5, ev8, WB9 with the hand at
    /// 3, 6, 9, 10 after them.
    #[test]
    fn spec_vector() {
        let p = SortedClockParams::default();
        let o = run::<SortedClock>(3, &p, 4, "R5 R2 R8 R1");
        assert_eq!(o.events[3], [Ev::Ev(2)]);
        let c = &o.policy.0;
        assert_eq!(c.hand(), 3);
        assert_eq!(c.pages(), [1, 5, 8]);
        assert!(c.referenced(1) && !c.referenced(5) && !c.referenced(8));

        let o = run::<SortedClock>(3, &p, 4, "R5 R2 R8 R1 R3 W9 R4");
        assert_eq!(o.events[4], [Ev::Ev(5)]);
        assert_eq!(o.events[5], [Ev::Ev(8)]);
        assert_eq!(o.events[6], [Ev::Wb(9)]);
        assert_eq!(o.evictions(), [2, 5, 8, 9]);
        assert_eq!(o.policy.0.hand(), 10);
        assert_eq!(o.policy.0.pages(), [1, 3, 4]);
    }

    /// Sorted-Clock-WSR's hand-worked trace under plain Sorted-Clock: the dirty page 2
    /// goes first.
    #[test]
    fn wsr_trace_without_wsr() {
        let o = run::<SortedClock>(3, &SortedClockParams::default(), 4, "W2 R5 R8 R1");
        assert_eq!(o.events[3], [Ev::Wb(2)]);
    }

    /// `insert_ref = 0` (WOW): new pages can go at the first sweep step.
    #[test]
    fn insert_ref_zero() {
        let p = SortedClockParams {
            insert_ref: 0,
            ..SortedClockParams::default()
        };
        // 5 and 2 are unreferenced; the hand starts at the smallest key, 2.
        let o = run::<SortedClock>(2, &p, 4, "R5 R2 R1");
        assert_eq!(o.events[2], [Ev::Ev(2)]);
        assert_eq!(o.policy.0.hand(), 3);
        // Next sweep starts at 3: 5 is the first page >= 3.
        let o = run::<SortedClock>(2, &p, 4, "R5 R2 R1 R9");
        assert_eq!(o.events[3], [Ev::Ev(5)]);
    }

    /// `seq_no_ref`: a hit to the page after the previous access's leaves the bit
    /// clear, so that page goes first.
    #[test]
    fn seq_no_ref() {
        let trace = "R1 R2 R5 R1 R2 R7";
        let mut p = SortedClockParams {
            insert_ref: 0,
            ..SortedClockParams::default()
        };
        let o = run::<SortedClock>(3, &p, 4, trace);
        assert_eq!(o.events[5], [Ev::Ev(5)]);
        p.seq_no_ref = true;
        let o = run::<SortedClock>(3, &p, 4, trace);
        assert_eq!(o.events[5], [Ev::Ev(2)]);
    }

    /// Parameters are validated.
    #[test]
    fn parameters_are_validated() {
        let mut p = SortedClockParams::default();
        assert!(p.set("insert_ref", "2").unwrap_err().contains("0 or 1"));
        assert!(p
            .set("seq_no_ref", "maybe")
            .unwrap_err()
            .contains("true or false"));
        p.set("seq_no_ref", "on").unwrap();
        assert!(p.seq_no_ref);
    }

    /// A direct transcription of the algorithm (module docs of this file and of
    /// `sorted_clock_wsr.rs`) over a `BTreeMap` (page -> (ref, dirty, cold)), the model
    /// the fast ring is checked against.
    /// Returns the pages dropped, in order, with `true` for a write-back.
    pub(crate) fn model(cap: usize, wsr: bool, trace: &[(Op, u32)]) -> Vec<(u32, bool)> {
        let mut m: BTreeMap<u32, (bool, bool, bool)> = BTreeMap::new();
        let mut h: Option<u32> = None;
        let mut out = Vec::new();
        for &(op, x) in trace {
            let w = op == Op::Write;
            if let Some(e) = m.get_mut(&x) {
                e.0 = true;
                e.1 |= w;
                if e.1 {
                    e.2 = false;
                }
                continue;
            }
            if m.len() == cap {
                let mut hh = h.unwrap_or(*m.keys().next().unwrap());
                loop {
                    let y = *m.range(hh..).next().or_else(|| m.iter().next()).unwrap().0;
                    let e = m.get_mut(&y).unwrap();
                    hh = y + 1;
                    if e.0 {
                        e.0 = false;
                    } else if wsr && e.1 && !e.2 {
                        e.2 = true;
                    } else {
                        out.push((y, e.1));
                        m.remove(&y);
                        break;
                    }
                }
                h = Some(hh);
            }
            m.insert(x, (true, w, false));
        }
        out
    }

    /// A random trace over `pages` pages.
    pub(crate) fn random_trace(rng: &mut rand_pcg::Pcg64Mcg, n: usize, pages: u32) -> String {
        let v: Vec<String> = (0..n)
            .map(|_| {
                let op = if rng.gen_bool(0.3) { 'W' } else { 'R' };
                format!("{op}{}", rng.gen_range(0..pages))
            })
            .collect();
        v.join(" ")
    }

    /// The bucketed ring gives exactly the evictions of the literal pseudo-code, with
    /// capacities spanning many buckets.
    #[test]
    fn matches_the_pseudo_code() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        for cap in [1u32, 2, 5, 40, 300, 700] {
            let trace = random_trace(&mut rng, 6000, 1000);
            let o = run::<SortedClock>(cap, &SortedClockParams::default(), 4, &trace);
            let got: Vec<(u32, bool)> = o
                .events
                .iter()
                .flatten()
                .map(|e| match *e {
                    Ev::Wb(p) => (p, true),
                    Ev::Ev(p) => (p, false),
                    _ => unreachable!(),
                })
                .collect();
            assert_eq!(got, model(cap as usize, false, &parse(&trace)), "cap {cap}");
        }
    }
}
