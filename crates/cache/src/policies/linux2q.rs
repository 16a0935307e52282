//! Linux2Q: the 2.6-kernel active/inactive page lists.
//!
//! After D. P. Bovet and M. Cesati, *Understanding the Linux Kernel*, 3rd ed.,
//! O'Reilly 2005, ch. 17 (the page frame reclaiming algorithm).
//!
//! Every page is on the active list A or the inactive list I and has a referenced
//! flag. `mark_page_accessed` runs on every access (a miss too): an inactive
//! referenced page moves to the head of A with the flag cleared, an unreferenced page
//! gets the flag. New pages enter at the head of I. Reclaim first demotes A's tail to
//! I's head while A is larger than its share, then frees I's tail.
//!
//! Resolved details (wafer's model; all kernel behaviour for the unmapped page-cache
//! pages of a read()/write() trace):
//! 1. Balance: a target, `|A| <= active_ratio / (1 - active_ratio) * |I|` (default
//!    0.5, i.e. `|A| <= |I|`, the 2.6.28+ `inactive_file_is_low` rule), checked only
//!    when a reclaim is needed, so hits never demote.
//! 2. The referenced flag does not rescue a page at either tail (`page_mapping_inuse`
//!    is false); `rotate_referenced=true` models mapped pages instead: a referenced
//!    page at A's tail is rotated to A's head, and at I's tail it is promoted to A's
//!    head, both with the flag cleared.
//! 3. Demotion clears the flag (`clear_ref_on_demote`, default true; false mimics
//!    2.6.11).
//! 4. Hits do not reorder pages within a list; only promotion moves a page.
//! 5. If I is empty when a page must be freed, one page is demoted first.
//!
//! Per page: two `u32` links (A and I are disjoint) and one state byte. O(1)
//! amortised per access (each demotion follows an insertion; rotations clear a flag).

use crate::list::{IndexList, Links};
use crate::policy::{parse_bool, parse_f64, Access, IoSink, ParamError, Policy, PolicyCtx};
use crate::table::filled;
use wafer_trace::Op;

crate::params! {
    /// Parameters of Linux2Q.
    pub struct Linux2QParams {
        /// Largest share of the resident pages on the active list.
        active_ratio: f64 = 0.5,
            doc "largest share of resident pages on the active list, in [0, 1) (0.67 approximates older kernels)",
            parse |v| match parse_f64(v)? {
                v if (0.0..1.0).contains(&v) => Ok(v),
                v => Err(format!("must be in [0, 1), found {v}")),
            };
        /// Give referenced pages at the list tails a second chance (mapped pages).
        rotate_referenced: bool = false,
            doc "referenced pages at a list tail get a second chance (models mapped pages)",
            parse parse_bool;
        /// Clear the referenced flag when a page is demoted.
        clear_ref_on_demote: bool = true,
            doc "clear the referenced flag on demotion (false mimics 2.6.11)",
            parse parse_bool;
    }
}

const NONE: u8 = 0;
const INACTIVE: u8 = 1;
const ACTIVE: u8 = 2;
const WHERE: u8 = 0b11;
const REF: u8 = 0b100;
const DIRTY: u8 = 0b1000;

/// Linux 2.6 active/inactive lists.
#[derive(Debug)]
pub struct Linux2Q {
    cap: u32,
    /// `active_ratio / (1 - active_ratio)`.
    balance: f64,
    rotate: bool,
    clear_on_demote: bool,
    links: Links,
    active: IndexList,
    inactive: IndexList,
    state: Vec<u8>,
}

impl Linux2Q {
    /// Move A's tail to I's head (or rotate it within A if referenced and rotating).
    fn demote_one(&mut self) {
        let Some(y) = self.active.pop_back(&mut self.links) else {
            return;
        };
        let s = self.state[y as usize];
        if self.rotate && s & REF != 0 {
            self.state[y as usize] = s & !REF;
            self.active.push_front(&mut self.links, y);
            return;
        }
        let s = if self.clear_on_demote { s & !REF } else { s };
        self.state[y as usize] = (s & !WHERE) | INACTIVE;
        self.inactive.push_front(&mut self.links, y);
    }

    fn reclaim<S: IoSink>(&mut self, io: &mut S) {
        while self.active.len() as f64 > self.balance * self.inactive.len() as f64 {
            self.demote_one();
        }
        loop {
            while self.inactive.is_empty() && !self.active.is_empty() {
                self.demote_one();
            }
            let Some(v) = self.inactive.pop_back(&mut self.links) else {
                return;
            };
            let s = self.state[v as usize];
            if self.rotate && s & REF != 0 {
                self.state[v as usize] = (s & !(REF | WHERE)) | ACTIVE;
                self.active.push_front(&mut self.links, v);
                continue;
            }
            if s & DIRTY != 0 {
                io.write_back(v);
            } else {
                io.drop_clean(v);
            }
            self.state[v as usize] = NONE;
            return;
        }
    }
}

impl Policy for Linux2Q {
    type Params = Linux2QParams;
    const NAME: &'static str = "linux2q";
    const ALIASES: &'static [&'static str] = &["linux-2q"];
    const SUMMARY: &'static str = "Linux 2.6 active/inactive lists with the referenced flag";
    const CITATION: &'static str = "D. P. Bovet and M. Cesati, Understanding the Linux Kernel, 3rd ed., O'Reilly, 2005, ch. 17.";

    fn new(capacity: u32, params: &Linux2QParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        if !(0.0..1.0).contains(&params.active_ratio) {
            return Err(ParamError {
                policy: Self::NAME.into(),
                msg: format!(
                    "active_ratio must be in [0, 1), found {}",
                    params.active_ratio
                ),
            });
        }
        Ok(Linux2Q {
            cap: capacity.max(1),
            balance: params.active_ratio / (1.0 - params.active_ratio),
            rotate: params.rotate_referenced,
            clear_on_demote: params.clear_ref_on_demote,
            links: Links::new(ctx.universe_hint),
            active: IndexList::new(),
            inactive: IndexList::new(),
            state: filled(ctx.universe_hint as usize, NONE),
        })
    }

    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let x = a.page;
        let dirty = if a.op == Op::Write { DIRTY } else { 0 };
        let mut s = self.state[x as usize];
        let hit = s & WHERE != NONE;
        if !hit {
            if self.active.len() + self.inactive.len() >= self.cap {
                self.reclaim(io);
            }
            self.inactive.push_front(&mut self.links, x);
            s = INACTIVE;
        }
        s |= dirty;
        // mark_page_accessed
        if s & WHERE == INACTIVE && s & REF != 0 {
            self.inactive.remove(&mut self.links, x);
            self.active.push_front(&mut self.links, x);
            s = (s & !(REF | WHERE)) | ACTIVE;
        } else {
            s |= REF;
        }
        self.state[x as usize] = s;
        hit
    }

    fn reserve(&mut self, pages: u32, _blocks: u32) {
        self.links.reserve(pages);
        if pages as usize > self.state.len() {
            self.state.resize(pages as usize, NONE);
        }
    }

    fn len(&self) -> u32 {
        self.active.len() + self.inactive.len()
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        let dirty = |&p: &u32| self.state[p as usize] & DIRTY != 0;
        out.extend(self.active.iter(&self.links).filter(dirty));
        out.extend(self.inactive.iter(&self.links).filter(dirty));
    }

    fn invalidate(&mut self, page: u32) -> bool {
        let Some(&s) = self.state.get(page as usize) else {
            return false;
        };
        match s & WHERE {
            ACTIVE => self.active.remove(&mut self.links, page),
            INACTIVE => self.inactive.remove(&mut self.links, page),
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

    fn lists(p: &Linux2Q) -> (Vec<u32>, Vec<u32>) {
        (
            p.active.iter(&p.links).collect(),
            p.inactive.iter(&p.links).collect(),
        )
    }

    /// Hand-worked vector 1 (C = 4, defaults).
    #[test]
    fn spec_vector_1() {
        let o = run::<Linux2Q>(
            4,
            &Linux2QParams::default(),
            4,
            "R1 R2 R1 R3 R4 R1 R5 R3 R4 R6 R7",
        );
        assert_eq!(o.evictions(), [2, 5, 1]);
        assert_eq!(o.hit_count(), 4);
        assert_eq!(lists(&o.policy), (vec![4, 3], vec![7, 6]));
    }

    /// Hand-worked vector 2: the dirty inactive tail is written back.
    #[test]
    fn spec_vector_2() {
        let o = run::<Linux2Q>(2, &Linux2QParams::default(), 4, "W1 R2 R3");
        assert_eq!(o.events[2], [Ev::Wb(1)]);
    }

    /// With rotate_referenced, a referenced inactive tail is promoted, not evicted.
    #[test]
    fn rotate_referenced_rescues_tail() {
        let p = Linux2QParams {
            rotate_referenced: true,
            ..Linux2QParams::default()
        };
        // At R4, 1 is demoted (unreferenced since its promotion) and 3, referenced on
        // entry, is I's tail: the default evicts 3, rotation promotes 3 and evicts 1.
        let trace = "R1 R2 R3 R1 R2 R4";
        let o = run::<Linux2Q>(3, &Linux2QParams::default(), 4, trace);
        assert_eq!(o.evictions(), [3]);
        let o = run::<Linux2Q>(3, &p, 4, trace);
        assert_eq!(o.evictions(), [1]);
    }
}
