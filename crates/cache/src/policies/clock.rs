//! CLOCK (second chance): a FIFO ring whose hand spares pages referenced since it last
//! passed them.
//!
//! The ring is modelled as a queue whose front is the page under the hand. A hit sets
//! the page's reference bit (a write also makes it dirty). A miss on a full cache
//! advances the hand, clearing set bits and moving those pages behind the hand, until
//! it finds a page with a clear bit: the victim (written back if dirty). The new page
//! goes behind the hand with its bit set to `insert_ref`.
//!
//! Resolved ambiguity: the reference bit of a new page. `insert_ref = 1` (default)
//! matches TS-CLOCK's refcount of 1 for a new clean page, so the baselines of papers
//! 000/001 (TS-CLOCK: Kang, Min, Eom, IEEE MASCOTS 2014; BUA: Kang, Min, Eom, IEICE
//! Trans. Inf. & Syst. E97-D(9), 2014) compare with TS-CLOCK; `insert_ref = 0` is the
//! classic definition CAR uses and what libCacheSim's `Clock` does (parity tested with
//! it, `tests/cache/parity.rs`).
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `insert_ref` | 1 | reference bit of a newly inserted page (0 or 1) |
//!
//! Representation: a ring buffer of page ids (`VecDeque`, 4 bytes per cached page, so
//! the hand's sweep is sequential in memory) and one state byte per page. Trims leave
//! tombstones (see [`Clock::invalidate`]). Amortised O(1) per access (each rotation
//! clears a bit that some earlier access set).
//!
//! Citation: F. J. Corbató, "A paging experiment with the Multics system", MIT Project
//! MAC Report MAC-M-384, 1968.

use std::collections::VecDeque;

use crate::params::bit;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use crate::table::filled;
use wafer_trace::Op;

crate::params! {
    /// Parameters of [`Clock`].
    pub struct ClockParams {
        /// Reference bit of a newly inserted page, 0 or 1.
        insert_ref: u32 = 1,
            doc "reference bit of a newly inserted page: 1 (as TS-CLOCK) or 0 (classic, libCacheSim)",
            parse bit;
    }
}

/// Second-chance CLOCK.
#[derive(Debug)]
pub struct Clock {
    cap: u32,
    len: u32,
    insert_ref: bool,
    /// Front = page under the hand, back = just behind it. May also hold tombstones
    /// of trimmed pages (see [`Clock::invalidate`]).
    ring: VecDeque<u32>,
    /// Tombstones in `ring`.
    tombstones: u32,
    /// Per page: bit 0 resident, bit 1 dirty, bit 2 referenced, bits 3..8 the number
    /// of tombstones of this page in `ring`.
    state: Vec<u8>,
}

const RESIDENT: u8 = 1;
const DIRTY: u8 = 2;
const REF: u8 = 4;
const STALE_ONE: u8 = 8;
const STALE_MASK: u8 = 0xf8;

impl Policy for Clock {
    type Params = ClockParams;
    const NAME: &'static str = "clock";
    const ALIASES: &'static [&'static str] = &["second-chance"];
    const SUMMARY: &'static str = "second chance: one reference bit per page, a rotating hand";
    const CITATION: &'static str = "F. J. Corbató, A paging experiment with the Multics system, MIT Project MAC Report MAC-M-384, 1968.";
    const FOLLOWS: &'static str = "CLOCK; with insert_ref=0 libCacheSim Clock (equal miss counts), the default insert_ref=1 is TS-CLOCK's convention";

    fn new(capacity: u32, params: &ClockParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let cap = capacity.max(1);
        Ok(Clock {
            cap,
            len: 0,
            insert_ref: params.insert_ref == 1,
            ring: VecDeque::with_capacity(cap.min(1 << 24) as usize),
            tombstones: 0,
            state: filled(ctx.universe_hint as usize, 0),
        })
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let p = a.page;
        let dirty = if a.op == Op::Write { DIRTY } else { 0 };
        let st = &mut self.state[p as usize];
        if *st & RESIDENT != 0 {
            *st |= REF | dirty;
            return true;
        }
        *st = (*st & STALE_MASK) | RESIDENT | dirty | if self.insert_ref { REF } else { 0 };
        if self.len == self.cap {
            self.evict(io);
        }
        self.ring.push_back(p);
        self.len += 1;
        false
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, 0);
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
            self.state
                .iter()
                .enumerate()
                .filter(|&(_, &s)| s & (RESIDENT | DIRTY) == RESIDENT | DIRTY)
                .map(|(p, _)| p as u32),
        );
    }

    /// Drop `page` without I/O. Its ring entry stays behind as a tombstone that the
    /// hand discards when it reaches it, so the order of the live pages is exactly
    /// that of a list with the entry removed. A tombstone is always ahead of a later
    /// live entry of the same page (the live one was pushed behind the hand after
    /// it), so counting tombstones per page is enough to tell them apart. The ring is
    /// compacted when tombstones outnumber live pages or a page's count would
    /// overflow.
    fn invalidate(&mut self, page: u32) -> bool {
        let Some(&s) = self.state.get(page as usize) else {
            return false;
        };
        if s & RESIDENT == 0 {
            return false;
        }
        if s & STALE_MASK == STALE_MASK {
            self.compact();
        }
        let st = &mut self.state[page as usize];
        *st = (*st & STALE_MASK) + STALE_ONE;
        self.tombstones += 1;
        self.len -= 1;
        if self.tombstones > self.len.max(8) {
            self.compact();
        }
        true
    }
}

impl Clock {
    /// Advance the hand to the first page with a clear bit and evict it.
    #[inline]
    fn evict<S: IoSink>(&mut self, io: &mut S) {
        while let Some(v) = self.ring.pop_front() {
            let s = &mut self.state[v as usize];
            if *s & STALE_MASK != 0 {
                *s -= STALE_ONE;
                self.tombstones -= 1;
                continue;
            }
            if *s & REF != 0 {
                *s &= !REF;
                self.ring.push_back(v);
                continue;
            }
            let was = std::mem::replace(s, 0);
            self.len -= 1;
            if was & DIRTY != 0 {
                io.write_back(v);
            } else {
                io.drop_clean(v);
            }
            return;
        }
    }

    /// Remove every tombstone from the ring, keeping the order of live pages.
    #[cold]
    fn compact(&mut self) {
        let state = &mut self.state;
        self.ring.retain(|&p| {
            let s = &mut state[p as usize];
            if *s & STALE_MASK != 0 {
                *s -= STALE_ONE;
                false
            } else {
                true
            }
        });
        self.tombstones = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::ParamSet;
    use crate::testutil::{run, Ev};

    fn ring(c: &Clock) -> Vec<(u32, bool)> {
        c.ring
            .iter()
            .copied()
            .map(|p| (p, c.state[p as usize] & REF != 0))
            .collect()
    }

    /// Hand-worked vector 1 (C = 3, insert_ref = 1).
    #[test]
    fn spec_vector_1() {
        let o = run::<Clock>(3, &ClockParams { insert_ref: 1 }, 4, "R1 R2 R3 R4 R1 R3 R5");
        assert_eq!(o.evictions(), [1, 2, 3]);
        assert_eq!(o.hit_count(), 1);
        // [4⁰, 1⁰, 5¹]
        assert_eq!(ring(&o.policy), [(4, false), (1, false), (5, true)]);
    }

    /// Hand-worked vector 2: the same trace with insert_ref = 0.
    #[test]
    fn spec_vector_2() {
        let o = run::<Clock>(3, &ClockParams { insert_ref: 0 }, 4, "R1 R2 R3 R4 R1 R3 R5");
        assert_eq!(o.evictions(), [1, 2, 4]);
        assert_eq!(o.hit_count(), 1);
    }

    /// Hand-worked vector 3: a dirty victim is written back.
    #[test]
    fn spec_vector_3() {
        let o = run::<Clock>(3, &ClockParams::default(), 4, "W1 R2 R3 R4");
        assert_eq!(o.events[3], [Ev::Wb(1)]);
    }

    #[test]
    fn insert_ref_must_be_a_bit() {
        let mut p = ClockParams::default();
        assert!(p.set("insert_ref", "2").is_err());
        assert!(p.set("insert_ref", "x").is_err());
        p.set("insert_ref", "0").unwrap();
        assert_eq!(p.insert_ref, 0);
    }
    /// Drive `ops` (kind 0/1 read, 2 write, 3 trim; page) through CLOCK and the deque
    /// model (front = hand) with removal; compare hits, events and sizes at every step.
    fn check_against_model(ops: &[(u8, u32)], cap: u32, ir: u32) -> Result<(), String> {
        use crate::testutil::Recorder;
        let params = ClockParams { insert_ref: ir };
        let mut c = Clock::new(cap, &params, &PolicyCtx::default()).unwrap();
        let universe = ops.iter().map(|o| o.1 + 1).max().unwrap_or(0);
        c.reserve(universe, 0);
        // Model: (page, ref, dirty), front = hand.
        let mut m: std::collections::VecDeque<(u32, bool, bool)> = Default::default();
        for (i, &(kind, p)) in ops.iter().enumerate() {
            if kind == 3 {
                let pos = m.iter().position(|e| e.0 == p);
                if c.invalidate(p) != pos.is_some() {
                    return Err(format!("step {i}: invalidate({p})"));
                }
                if let Some(pos) = pos {
                    m.remove(pos);
                }
                continue;
            }
            let op = if kind == 2 { Op::Write } else { Op::Read };
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
                e.2 |= op == Op::Write;
                true
            } else {
                if m.len() as u32 == cap {
                    while m[0].1 {
                        let mut e = m.pop_front().unwrap();
                        e.1 = false;
                        m.push_back(e);
                    }
                    let v = m.pop_front().unwrap();
                    want.push(if v.2 { Ev::Wb(v.0) } else { Ev::Ev(v.0) });
                }
                m.push_back((p, ir == 1, op == Op::Write));
                false
            };
            if hit != mhit || rec.events != want || c.len() as usize != m.len() {
                return Err(format!(
                    "step {i} ({kind},{p}): hit {hit} vs {mhit}, events {:?} vs {want:?}",
                    rec.events
                ));
            }
        }
        Ok(())
    }

    /// The ring buffer with tombstones behaves exactly like the deque model with
    /// removal, under any mix of accesses and trims.
    #[test]
    fn matches_the_deque_model_with_trims() {
        use proptest::prelude::*;
        use proptest::test_runner::TestRunner;
        let ops = proptest::collection::vec((0u8..4, 0u32..12), 1..400);
        TestRunner::default()
            .run(&(ops, 1u32..6, 0u32..2), |(ops, cap, ir)| {
                check_against_model(&ops, cap, ir).map_err(TestCaseError::fail)
            })
            .unwrap();
    }

    /// Both compaction triggers: many tombstones, and one page's count saturating.
    #[test]
    fn compaction_keeps_the_order() {
        let mut ops: Vec<(u8, u32)> = (0..20).map(|p| (0, p)).collect();
        ops.extend((0..15).map(|p| (3, p)));
        ops.extend((0..40).map(|p| (2, 100 + p)));
        check_against_model(&ops, 20, 1).unwrap();
        let mut ops: Vec<(u8, u32)> = (0..40).map(|p| (0, p)).collect();
        for _ in 0..35 {
            ops.push((2, 50));
            ops.push((3, 50));
        }
        ops.extend((0..100).map(|p| (0, 200 + p)));
        check_against_model(&ops, 100, 0).unwrap();
    }
}
