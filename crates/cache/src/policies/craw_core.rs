//! The machine shared by CRAW and CRAW-A (paper 002: H. Lee, H. Bahn, K. G. Shin, "Page
//! Replacement for Write References in NAND Flash Based Virtual Memory Systems", JCSE
//! 8(3), 2014): three CLOCK areas over one set of frames, three FIFO ghost lists, and
//! cost-weighted adaptation of the areas' desired sizes.
//!
//! The two policies differ only in the first area and the bit that guards it:
//! * CRAW ([`super::craw`]): the read area R, guarded by a read bit set by reads;
//! * CRAW-A ([`super::craw_a`]): the total reference area T, guarded by a reference
//!   bit set by reads and writes, and a write fault also enters T (Sec. VI-A).
//!
//! Both are this one type with the flag `all_refs`; the docs of the two policy files
//! list the resolved ambiguities. Here "R" names the first area in either mode.
//!
//! Representation: per page four pairs of `u32` links (area R, areas W1/W2, ghost R',
//! ghosts W1'/W2'; W1 and W2 are exclusive, and so are W1' and W2') and one flag byte:
//! 33 bytes per page of the universe (ghosts included). Each area is an
//! [`IndexList`] whose head is the page under its hand. O(1) per hit; a fault costs
//! amortised O(1) reclaim steps (each step clears a bit an access set, or unlinks a
//! page).

use crate::list::{IndexList, Links};
use crate::policy::{parse_bool, parse_f64, IoSink, ParamError};
use wafer_trace::Op;

/// Doc of CRAW's and CRAW-A's `c`.
const C_DOC: &str =
    "write/read cost ratio (> 0): S_R starts at S/c and grows by one every c read-ghost hits";
/// Doc of CRAW's and CRAW-A's `clean_on_w_unlink`.
const CLEAN_DOC: &str =
    "write a dirty page back when it leaves W but stays in R (default: when it leaves memory)";
/// Shown default of `c`.
const C_SHOWN: &str = "t_w/t_r of the cost model (8)";

/// The cost ratio `c`: a number > 0.
fn cost_ratio(value: &str) -> Result<Option<f64>, String> {
    match parse_f64(value)? {
        c if c > 0.0 => Ok(Some(c)),
        _ => Err(format!("expected a number > 0, found `{value}`")),
    }
}

crate::params! {
    /// Parameters of CRAW.
    pub struct CrawParams {
        /// Cost ratio `c = t_w / t_r`; `None` = from the run's cost model.
        c: Option<f64> = None, shown C_SHOWN, doc C_DOC, parse cost_ratio;
        /// Write a dirty page back (and mark it clean) when it is unlinked from W while
        /// still linked in R, instead of when it finally leaves memory (an option beside
        /// [`super::craw`]'s "written back iff dirty when it leaves memory").
        clean_on_w_unlink: bool = false, doc CLEAN_DOC, parse parse_bool;
    }
}

crate::params! {
    /// Parameters of CRAW-A: those of CRAW plus `write_fault_adapts_t`.
    pub struct CrawAParams {
        /// As [`CrawParams::c`].
        c: Option<f64> = None, shown C_SHOWN, doc C_DOC, parse cost_ratio;
        /// As [`CrawParams::clean_on_w_unlink`].
        clean_on_w_unlink: bool = false, doc CLEAN_DOC, parse parse_bool;
        /// A write fault on a page in T' adapts the sizes as a read fault there would
        /// (Fig. 16 is not in our copy; see [`super::craw_a`]).
        write_fault_adapts_t: bool = false,
            doc "a write fault on a page of T' adapts the sizes like a read fault there (Fig. 16 of paper 002 is not available)",
            parse parse_bool;
    }
}

impl From<&CrawParams> for CrawAParams {
    /// CRAW's parameters for the shared machine (CRAW has no T area to adapt).
    fn from(p: &CrawParams) -> CrawAParams {
        CrawAParams {
            c: p.c,
            clean_on_w_unlink: p.clean_on_w_unlink,
            write_fault_adapts_t: false,
        }
    }
}

// Flag bits of a page.
const IN_R: u8 = 1;
const IN_W1: u8 = 2;
const IN_W2: u8 = 4;
const IN_RG: u8 = 8;
const IN_W1G: u8 = 16;
const IN_W2G: u8 = 32;
const IN_W: u8 = IN_W1 | IN_W2;
const IN_WG: u8 = IN_W1G | IN_W2G;

/// Which area a reclaim works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Area {
    R,
    W1,
    W2,
}

/// Names of the series [`CrawCore::sample`] fills (paper 002 Fig. 15).
pub const SERIES: &[&str] = &["S_R", "S_W1", "S_W2", "R", "W1", "W2"];

/// CRAW / CRAW-A state.
#[derive(Debug)]
pub struct CrawCore {
    cap: u32,
    c: f64,
    all_refs: bool,
    clean_on_w_unlink: bool,
    write_fault_adapts: bool,
    resident: u32,
    s_r: f64,
    s_w1: f64,
    s_w2: f64,
    r_ghost_hits: u32,
    /// Next W ghost to trim: false = W1', true = W2'.
    trim_w2: bool,
    lr: Links,
    lw: Links,
    lrg: Links,
    lwg: Links,
    r: IndexList,
    w1: IndexList,
    w2: IndexList,
    rg: IndexList,
    w1g: IndexList,
    w2g: IndexList,
    flags: Vec<u8>,
    /// Per page: bit 0 = read (reference) bit, bit 1 = write bit, bit 2 = dirty.
    bits: Vec<u8>,
}

const RB: u8 = 1;
const WB: u8 = 2;
const DIRTY: u8 = 4;

impl CrawCore {
    /// A machine of `capacity` frames; `all_refs` selects CRAW-A.
    pub fn new(
        capacity: u32,
        params: &CrawAParams,
        default_c: f64,
        all_refs: bool,
        name: &str,
    ) -> Result<Self, ParamError> {
        let c = params.c.unwrap_or(default_c);
        if !(c.is_finite() && c > 0.0) {
            return Err(ParamError {
                policy: name.into(),
                msg: format!("c: the cost ratio must be > 0, found {c}"),
            });
        }
        let cap = capacity.max(1);
        let s = f64::from(cap);
        let s_r = s / c;
        let s_w = (s - s_r).max(0.0) / 2.0;
        Ok(CrawCore {
            cap,
            c,
            all_refs,
            clean_on_w_unlink: params.clean_on_w_unlink,
            write_fault_adapts: all_refs && params.write_fault_adapts_t,
            resident: 0,
            s_r: s_r.min(s),
            s_w1: s_w,
            s_w2: s_w,
            r_ghost_hits: 0,
            trim_w2: false,
            lr: Links::default(),
            lw: Links::default(),
            lrg: Links::default(),
            lwg: Links::default(),
            r: IndexList::new(),
            w1: IndexList::new(),
            w2: IndexList::new(),
            rg: IndexList::new(),
            w1g: IndexList::new(),
            w2g: IndexList::new(),
            flags: Vec::new(),
            bits: Vec::new(),
        })
    }

    /// Grow per-page arrays to ids `< pages`.
    pub fn reserve(&mut self, pages: u32) {
        for l in [&mut self.lr, &mut self.lw, &mut self.lrg, &mut self.lwg] {
            l.reserve(pages);
        }
        if pages as usize > self.flags.len() {
            self.flags.resize(pages as usize, 0);
            self.bits.resize(pages as usize, 0);
        }
    }

    /// Resident pages.
    pub fn resident(&self) -> u32 {
        self.resident
    }

    /// Frames.
    pub fn capacity(&self) -> u32 {
        self.cap
    }

    /// Handle one access; true on a hit.
    #[inline]
    pub fn access<S: IoSink>(&mut self, page: u32, op: Op, io: &mut S) -> bool {
        let p = page as usize;
        if self.flags[p] & (IN_R | IN_W) != 0 {
            self.bits[p] |= match (op, self.all_refs) {
                (Op::Write, true) => RB | WB | DIRTY,
                (Op::Write, false) => WB | DIRTY,
                _ => RB,
            };
            return true;
        }
        while self.resident >= self.cap {
            self.reclaim(io);
        }
        self.bits[p] = 0;
        self.resident += 1;
        if op == Op::Write {
            self.add_write(page);
        } else {
            self.add_read(page, true);
        }
        self.adjust_ghosts();
        false
    }

    /// A read fault (or, in CRAW-A, the T half of a write fault: `adapt = false`
    /// unless `write_fault_adapts_t`).
    fn add_read(&mut self, page: u32, adapt: bool) {
        let p = page as usize;
        if self.flags[p] & IN_RG != 0 {
            self.rg.remove(&mut self.lrg, page);
            self.flags[p] &= !IN_RG;
            if adapt {
                self.r_ghost_hits += 1;
                if f64::from(self.r_ghost_hits) >= self.c {
                    self.r_ghost_hits = 0;
                    let s = f64::from(self.cap);
                    self.s_r = (self.s_r + 1.0).min(s);
                    self.s_w1 = (self.s_w1 - 0.5).max(0.0);
                    self.s_w2 = (self.s_w2 - 0.5).max(0.0);
                }
            }
        }
        self.r.push_back(&mut self.lr, page);
        self.flags[p] |= IN_R;
        self.bits[p] &= !RB;
    }

    fn add_write(&mut self, page: u32) {
        let p = page as usize;
        let s = f64::from(self.cap);
        self.bits[p] |= DIRTY;
        let f = self.flags[p];
        if f & IN_W1G != 0 {
            self.w1g.remove(&mut self.lwg, page);
            self.s_w1 = (self.s_w1 + 1.0).min(s);
            self.s_r = (self.s_r - 1.0).max(0.0);
            self.w2.push_back(&mut self.lw, page);
            self.flags[p] = (f & !IN_W1G) | IN_W2;
        } else if f & IN_W2G != 0 {
            self.w2g.remove(&mut self.lwg, page);
            self.s_w2 = (self.s_w2 + 1.0).min(s);
            self.s_r = (self.s_r - 1.0).max(0.0);
            self.w2.push_back(&mut self.lw, page);
            self.flags[p] = (f & !IN_W2G) | IN_W2;
        } else {
            self.w1.push_back(&mut self.lw, page);
            self.flags[p] |= IN_W1;
        }
        self.bits[p] &= !WB;
        if self.all_refs {
            // CRAW-A: "if a page is written, it is included into both the total
            // reference area and the write area" (Sec. VI-A).
            self.add_read(page, self.write_fault_adapts);
        }
    }

    /// |X| / S_X, `None` for an empty area, +inf for a desired size of 0.
    fn ratio(len: u32, want: f64) -> Option<f64> {
        if len == 0 {
            None
        } else if want <= 0.0 {
            Some(f64::INFINITY)
        } else {
            Some(f64::from(len) / want)
        }
    }

    fn pick(&self) -> Area {
        let mut best = (Area::R, Self::ratio(self.r.len(), self.s_r));
        for (a, r) in [
            (Area::W1, Self::ratio(self.w1.len(), self.s_w1)),
            (Area::W2, Self::ratio(self.w2.len(), self.s_w2)),
        ] {
            if let Some(v) = r {
                if best.1.map_or(true, |b| v > b) {
                    best = (a, r);
                }
            }
        }
        best.0
    }

    /// Free the frame of `page` (linked in no area any more).
    fn free<S: IoSink>(&mut self, page: u32, io: &mut S) {
        let b = &mut self.bits[page as usize];
        if *b & DIRTY != 0 {
            io.write_back(page);
        } else {
            io.drop_clean(page);
        }
        *b = 0;
        self.resident -= 1;
    }

    /// One call of the paper's reclaim(): frees at most one frame.
    fn reclaim<S: IoSink>(&mut self, io: &mut S) {
        match self.pick() {
            Area::R => self.reclaim_r(io),
            a => self.reclaim_w(a == Area::W2, io),
        }
    }

    fn reclaim_r<S: IoSink>(&mut self, io: &mut S) {
        while let Some(p) = self.r.head() {
            let i = p as usize;
            self.r.move_to_back(&mut self.lr, p);
            if self.bits[i] & WB != 0 && self.flags[i] & IN_W == 0 {
                self.link_w1_by_scan(p);
                self.bits[i] &= !WB;
            }
            if self.bits[i] & RB != 0 {
                self.bits[i] &= !RB;
                continue;
            }
            self.r.remove(&mut self.lr, p);
            self.rg.push_front(&mut self.lrg, p);
            self.flags[i] = (self.flags[i] & !IN_R) | IN_RG;
            if self.flags[i] & IN_W == 0 {
                self.free(p, io);
            }
            return;
        }
    }

    fn reclaim_w<S: IoSink>(&mut self, w2: bool, io: &mut S) {
        loop {
            let list = if w2 { &mut self.w2 } else { &mut self.w1 };
            let Some(p) = list.head() else {
                return; // the area emptied during its own scan: re-select (see craw.rs)
            };
            let i = p as usize;
            list.move_to_back(&mut self.lw, p);
            if self.bits[i] & RB != 0 && self.flags[i] & IN_R == 0 {
                self.link_r_by_scan(p);
                self.bits[i] &= !RB;
            }
            if self.bits[i] & WB != 0 {
                self.bits[i] &= !WB;
                if !w2 {
                    self.w1.remove(&mut self.lw, p);
                    self.w2.push_back(&mut self.lw, p);
                    self.flags[i] = (self.flags[i] & !IN_W1) | IN_W2;
                }
                continue;
            }
            let (ghost, gflag) = if w2 {
                self.w2.remove(&mut self.lw, p);
                (&mut self.w2g, IN_W2G)
            } else {
                self.w1.remove(&mut self.lw, p);
                (&mut self.w1g, IN_W1G)
            };
            ghost.push_front(&mut self.lwg, p);
            self.flags[i] = (self.flags[i] & !IN_W) | gflag;
            if self.flags[i] & IN_R == 0 {
                self.free(p, io);
            } else if self.clean_on_w_unlink && self.bits[i] & DIRTY != 0 {
                io.write_back(p);
                self.bits[i] &= !DIRTY;
            }
            return;
        }
    }

    /// A scan links `p` into W1: drop any stale W ghost entry without adapting (only
    /// faults adapt; see [`super::craw`]).
    fn link_w1_by_scan(&mut self, p: u32) {
        let i = p as usize;
        if self.flags[i] & IN_W1G != 0 {
            self.w1g.remove(&mut self.lwg, p);
        } else if self.flags[i] & IN_W2G != 0 {
            self.w2g.remove(&mut self.lwg, p);
        }
        self.w1.push_back(&mut self.lw, p);
        self.flags[i] = (self.flags[i] & !IN_WG) | IN_W1;
    }

    /// A scan links `p` into R: drop any stale R' entry without adapting (only faults
    /// adapt; see [`super::craw`]).
    fn link_r_by_scan(&mut self, p: u32) {
        let i = p as usize;
        if self.flags[i] & IN_RG != 0 {
            self.rg.remove(&mut self.lrg, p);
        }
        self.r.push_back(&mut self.lr, p);
        self.flags[i] = (self.flags[i] & !IN_RG) | IN_R;
    }

    fn adjust_ghosts(&mut self) {
        while self.r.len() + self.rg.len() > self.cap {
            let Some(p) = self.rg.pop_back(&mut self.lrg) else {
                break;
            };
            self.flags[p as usize] &= !IN_RG;
        }
        while self.w1.len() + self.w1g.len() + self.w2.len() + self.w2g.len() > self.cap {
            let from_w2 = if self.w1g.is_empty() && self.w2g.is_empty() {
                break;
            } else if self.w1g.is_empty() {
                true
            } else if self.w2g.is_empty() {
                false
            } else {
                self.trim_w2
            };
            self.trim_w2 = !self.trim_w2;
            let (g, f) = if from_w2 {
                (&mut self.w2g, IN_W2G)
            } else {
                (&mut self.w1g, IN_W1G)
            };
            let p = g.pop_back(&mut self.lwg).expect("non-empty ghost");
            self.flags[p as usize] &= !f;
        }
    }

    /// Append every resident dirty page to `out`.
    pub fn dirty_pages(&self, out: &mut Vec<u32>) {
        out.extend(
            self.flags
                .iter()
                .zip(&self.bits)
                .enumerate()
                .filter(|&(_, (&f, &b))| f & (IN_R | IN_W) != 0 && b & DIRTY != 0)
                .map(|(p, _)| p as u32),
        );
    }

    /// Drop `page` from every area and ghost without I/O; whether it was resident.
    pub fn invalidate(&mut self, page: u32) -> bool {
        let i = page as usize;
        let Some(&f) = self.flags.get(i) else {
            return false;
        };
        if f & IN_R != 0 {
            self.r.remove(&mut self.lr, page);
        }
        if f & IN_W1 != 0 {
            self.w1.remove(&mut self.lw, page);
        }
        if f & IN_W2 != 0 {
            self.w2.remove(&mut self.lw, page);
        }
        if f & IN_RG != 0 {
            self.rg.remove(&mut self.lrg, page);
        }
        if f & IN_W1G != 0 {
            self.w1g.remove(&mut self.lwg, page);
        }
        if f & IN_W2G != 0 {
            self.w2g.remove(&mut self.lwg, page);
        }
        self.flags[i] = 0;
        self.bits[i] = 0;
        let was = f & (IN_R | IN_W) != 0;
        self.resident -= u32::from(was);
        was
    }

    /// S_R, S_W1, S_W2, |R|, |W1|, |W2| (see [`SERIES`]).
    pub fn sample(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(&[
            self.s_r,
            self.s_w1,
            self.s_w2,
            f64::from(self.r.len()),
            f64::from(self.w1.len()),
            f64::from(self.w2.len()),
        ]);
    }

    /// Area members head-first (the hand's page first), for tests.
    #[cfg(test)]
    pub fn areas(&self) -> [Vec<u32>; 3] {
        [
            self.r.iter(&self.lr).collect(),
            self.w1.iter(&self.lw).collect(),
            self.w2.iter(&self.lw).collect(),
        ]
    }

    /// Ghost members, newest first, for tests.
    #[cfg(test)]
    pub fn ghosts(&self) -> [Vec<u32>; 3] {
        [
            self.rg.iter(&self.lrg).collect(),
            self.w1g.iter(&self.lwg).collect(),
            self.w2g.iter(&self.lwg).collect(),
        ]
    }

    /// Desired sizes (S_R, S_W1, S_W2), for tests.
    #[cfg(test)]
    pub fn sizes(&self) -> (f64, f64, f64) {
        (self.s_r, self.s_w1, self.s_w2)
    }

    /// Whether `page`'s read (reference) bit is set, for tests.
    #[cfg(test)]
    pub fn ref_bit(&self, page: u32) -> bool {
        self.bits[page as usize] & RB != 0
    }
}
