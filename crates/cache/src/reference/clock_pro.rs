//! Test-only reference model for the differential test of CLOCK-Pro: the first
//! implementation, whose cold hand steps over hot and non-resident entries one by one
//! (O(C) per miss). Kept verbatim so the faster ring in `clock_pro.rs` is checked
//! against it event for event.

use crate::list::{IndexList, Links, NIL};
use crate::policies::clock_pro::ClockProParams;
use crate::policy::{Access, IoSink, ParamError, Policy, PolicyCtx};
use wafer_trace::Op;

const IN: u8 = 1;
const RES: u8 = 2;
const HOT: u8 = 4;
const REF: u8 = 8;
const TEST: u8 = 16;
const DIRTY: u8 = 32;

/// CLOCK-Pro as first written, with a cold hand that steps over every entry.
#[derive(Debug)]
pub struct ReferenceClockPro {
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
}

impl ReferenceClockPro {
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

    fn insert_head(&mut self, id: u32) {
        if self.hand_hot == NIL {
            self.ring.push_back(&mut self.links, id);
            self.hand_hot = id;
            self.hand_cold = id;
            self.hand_test = id;
        } else {
            self.ring.insert_before(&mut self.links, self.hand_hot, id);
        }
    }

    fn unlink(&mut self, id: u32) {
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
            } else if f & TEST != 0 {
                self.hand_hot = n;
                self.end_test(h);
            } else {
                self.hand_hot = n;
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
        while self.hand_cold != NIL {
            let h = self.hand_cold;
            let f = self.flags[h as usize];
            if f & RES == 0 || f & HOT != 0 {
                self.hand_cold = self.next(h);
                continue;
            }
            if f & REF == 0 {
                if f & DIRTY != 0 {
                    io.write_back(h);
                } else {
                    io.drop_clean(h);
                }
                self.n_cold -= 1;
                if f & TEST != 0 {
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

impl Policy for ReferenceClockPro {
    type Params = ClockProParams;
    const NAME: &'static str = "clock-pro-reference";
    const ALIASES: &'static [&'static str] = &[];
    const SUMMARY: &'static str = "CLOCK with hot/cold pages and test periods approximating LIRS";
    const CITATION: &'static str = "S. Jiang, F. Chen and X. Zhang, \"CLOCK-Pro: An Effective Improvement of the CLOCK Replacement\", USENIX ATC 2005.";

    fn new(capacity: u32, params: &ClockProParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let cap = capacity.max(1);
        let mc_max = (cap - 1).max(1);
        let mc = ((params.cold_ratio * cap as f64).round() as u32).clamp(1, mc_max);
        Ok(ReferenceClockPro {
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
            flags: vec![0; ctx.universe_hint as usize],
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
        if pages as usize > self.flags.len() {
            self.flags.resize(pages as usize, 0);
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
