//! BPLRU: block padding LRU, a write buffer managed as an LRU list of erase blocks.
//!
//! Source: H. Kim, S. Ahn, "BPLRU: a buffer management scheme for improving random
//! writes in flash storage", USENIX FAST 2008, with the resolutions below.
//!
//! Only writes allocate. A write first moves its block's group to the MRU end
//! (creating an empty group if needed), so the block being written is the victim only
//! when it is the only group. A write to a buffered page is a hit. Otherwise, when the
//! buffer is full, the LRU-end group is flushed as one eviction group:
//! * **page padding** (`padding = true`, default): every page of the victim block
//!   that is not buffered is read (a padding read), then all ppb pages are written in
//!   ascending order: buffered pages as write-backs, the others as padding writes;
//! * without padding, only the buffered pages are written, in ascending order.
//!
//! Then the page is inserted. **LRU compensation** (default `sequential`): a write that
//! fills its group moves the group to the LRU end if the block was written
//! sequentially (the group was created by a write to offset 0 and every later new page
//! was the next offset), since such a block is unlikely to be rewritten.
//!
//! Reads (BPLRU is a write buffer inside the SSD): a read of a buffered page is a hit
//! served from the buffer and does not change the LRU order; a read miss goes to
//! storage and allocates nothing ([`Policy::BYPASSES_READS`]).
//!
//! Resolved ambiguity: paper 002 (H. Lee, H. Bahn, K. G. Shin, JCSE 8(3), 2014,
//! Sec. II) summarises compensation as "evicts a fully buffered block first" without the
//! sequential condition; `compensation = any_full` reproduces that reading, `off`
//! disables compensation.
//! Beyond the paper: padding names pages by key (a padded page may never have been
//! accessed); a trim drops the page from its group without touching the LRU order.
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `padding` | true | pad a victim block to a full block write (reads + writes) |
//! | `compensation` | `sequential` | move a full group to the LRU end: `sequential`, `any_full` or `off` |
//!
//! Cost: O(1) per access; a flush costs O(ppb) with padding (one step per page
//! written) or O(k log k) for k buffered pages without.
//! Memory: 17 bytes per page ([`BlockGroups`]) + 16 bytes per block.

use std::num::NonZeroU32;

use super::block_group::{offset_in_block, BlockGroups, ABSENT};
use crate::list::{IndexList, Links, NIL};
use crate::params::choice;
use crate::policy::{parse_bool, Access, IoSink, ParamError, Policy, PolicyCtx};
use wafer_trace::Op;

/// When a full group is moved to the LRU end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compensation {
    /// Never.
    Off,
    /// When the block was written sequentially from offset 0 (the original paper).
    Sequential,
    /// Whenever the group becomes full (paper 002's summary).
    AnyFull,
}

crate::params! {
    /// Parameters of [`Bplru`].
    pub struct BplruParams {
        /// Pad victim blocks to full-block writes.
        padding: bool = true,
            doc "read the missing pages of a victim block and write the whole block",
            parse parse_bool;
        /// LRU compensation rule.
        compensation: Compensation = Compensation::Sequential,
            shown "sequential",
            doc "move a group that becomes full to the LRU end: `sequential` (written in order from offset 0), `any_full` or `off`",
            parse |v| {
                let names = [
                    ("sequential", Compensation::Sequential),
                    ("any_full", Compensation::AnyFull),
                    ("off", Compensation::Off),
                ];
                // Accepted spellings besides the listed names.
                let alias = match v.trim() {
                    "any-full" => "any_full",
                    "none" => "off",
                    _ => v,
                };
                choice(alias, &names)
            };
    }
}

/// Block padding LRU write buffer.
#[derive(Debug)]
pub struct Bplru {
    cap: u32,
    ppb: NonZeroU32,
    params: BplruParams,
    pages: BlockGroups,
    blinks: Links,
    /// Groups, MRU at the head.
    lru: IndexList,
    in_lru: Vec<bool>,
    /// Per block: offset the next new page must have for the fill to stay
    /// sequential, `NIL` once it is not.
    seq_next: Vec<u32>,
}

impl Bplru {
    /// Make `block`'s group MRU, creating it for a first write at `off`.
    #[inline]
    fn touch(&mut self, block: u32, off: u32) {
        if self.in_lru[block as usize] {
            self.lru.move_to_front(&mut self.blinks, block);
        } else {
            self.lru.push_front(&mut self.blinks, block);
            self.in_lru[block as usize] = true;
            self.seq_next[block as usize] = if off == 0 { 0 } else { NIL };
        }
    }

    /// Flush the group of `block` as one eviction group.
    fn flush<S: IoSink>(&mut self, block: u32, io: &mut S) {
        let padding = self.params.padding;
        let ppb = self.ppb;
        let sorted = self.pages.sorted(block);
        io.begin_group();
        if padding {
            let base = sorted[0].0 - u64::from(offset_in_block(sorted[0].0, ppb));
            let mut it = sorted.iter().peekable();
            for k in base..base + u64::from(ppb.get()) {
                if it.next_if(|e| e.0 == k).is_none() {
                    io.pad_read(k);
                }
            }
            let mut it = sorted.iter().peekable();
            for k in base..base + u64::from(ppb.get()) {
                match it.next_if(|e| e.0 == k) {
                    Some(&(k, p)) => io.write_back_keyed(p, k),
                    None => io.pad_write(k),
                }
            }
        } else {
            for &(k, p) in sorted {
                io.write_back_keyed(p, k);
            }
        }
        io.end_group();
        self.pages.clear(block);
        self.lru.remove(&mut self.blinks, block);
        self.in_lru[block as usize] = false;
    }
}

impl Policy for Bplru {
    type Params = BplruParams;
    const NAME: &'static str = "bplru";
    const SUMMARY: &'static str =
        "write buffer with a block-level LRU list, page padding and LRU compensation";
    const CITATION: &'static str = "H. Kim, S. Ahn, \"BPLRU: a buffer management scheme for improving random writes in flash storage\", USENIX FAST 2008.";
    const FLASH_AWARE: bool = true;
    const BLOCK_AWARE: bool = true;
    const BYPASSES_READS: bool = true;
    /// Reads (most accesses) need no key: writes ask [`IoSink::key`].
    const NEEDS_KEY: bool = false;

    fn new(capacity: u32, params: &BplruParams, ctx: &PolicyCtx) -> Result<Self, ParamError> {
        let mut p = Bplru {
            cap: capacity.max(1),
            ppb: ctx.pages_per_block,
            params: params.clone(),
            pages: BlockGroups::default(),
            blinks: Links::default(),
            lru: IndexList::new(),
            in_lru: Vec::new(),
            seq_next: Vec::new(),
        };
        p.reserve(ctx.universe_hint, 0);
        Ok(p)
    }

    #[inline]
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool {
        let resident = self.pages.state(a.page) != ABSENT;
        if a.op != Op::Write {
            return resident;
        }
        let key = io.key(a.page);
        let off = offset_in_block(key, self.ppb);
        self.touch(a.block, off);
        if resident {
            return true;
        }
        if self.pages.resident() == self.cap {
            let v = self.lru.tail().expect("a full buffer has groups");
            self.flush(v, io);
            if v == a.block {
                self.touch(a.block, off);
            }
        }
        self.pages.insert(a.page, a.block, key, true);
        let b = a.block as usize;
        let seq = &mut self.seq_next[b];
        if *seq == off {
            *seq += 1;
        } else {
            *seq = NIL;
        }
        if self.pages.count(a.block) == self.ppb.get() {
            let compensate = match self.params.compensation {
                Compensation::Off => false,
                Compensation::Sequential => self.seq_next[b] == self.ppb.get(),
                Compensation::AnyFull => true,
            };
            if compensate {
                self.lru.move_to_back(&mut self.blinks, a.block);
            }
        }
        false
    }

    fn reserve(&mut self, pages: u32, blocks: u32) {
        self.pages.reserve(pages, blocks);
        self.blinks.reserve(blocks);
        if blocks as usize > self.in_lru.len() {
            self.in_lru.resize(blocks as usize, false);
            self.seq_next.resize(blocks as usize, NIL);
        }
    }

    fn len(&self) -> u32 {
        self.pages.resident()
    }

    fn capacity(&self) -> u32 {
        self.cap
    }

    fn dirty_pages(&self, out: &mut Vec<u32>) {
        self.pages.dirty_pages(out);
    }

    fn invalidate(&mut self, page: u32) -> bool {
        if !self.pages.is_resident(page) {
            return false;
        }
        let b = self.pages.remove(page);
        if self.pages.count(b) == 0 {
            self.lru.remove(&mut self.blinks, b);
            self.in_lru[b as usize] = false;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{run, Ev};

    fn params(padding: bool, compensation: Compensation) -> BplruParams {
        BplruParams {
            padding,
            compensation,
        }
    }

    /// Hand-worked vector 1 (ppb = 4, C = 4): the written block is touched before
    /// eviction, the LRU block B0 is padded (RD2, RD3) and written whole, in ascending
    /// order.
    #[test]
    fn spec_vector_1_padding() {
        let o = run::<Bplru>(4, &BplruParams::default(), 4, "W0 W1 W4 W0 W8 W5");
        assert_eq!(o.hits, [false, false, false, true, false, false]);
        assert_eq!(
            o.events[5],
            [
                Ev::Begin,
                Ev::PadRd(2),
                Ev::PadRd(3),
                Ev::Wb(0),
                Ev::Wb(1),
                Ev::PadWr(2),
                Ev::PadWr(3),
                Ev::End
            ]
        );
        let unpadded = run::<Bplru>(
            4,
            &params(false, Compensation::Sequential),
            4,
            "W0 W1 W4 W0 W8 W5",
        );
        assert_eq!(
            unpadded.events[5],
            [Ev::Begin, Ev::Wb(0), Ev::Wb(1), Ev::End]
        );
    }

    /// Hand-worked vector 2 (C = 8): a block filled sequentially goes to the LRU end and
    /// is the next victim, with no padding; without compensation the LRU block B2 {8}
    /// is padded instead.
    #[test]
    fn spec_vector_2_compensation() {
        let t = "W8 W0 W1 W2 W3 W12 W16 W20 W24";
        let o = run::<Bplru>(8, &BplruParams::default(), 4, t);
        assert_eq!(
            o.events[8],
            [
                Ev::Begin,
                Ev::Wb(0),
                Ev::Wb(1),
                Ev::Wb(2),
                Ev::Wb(3),
                Ev::End
            ]
        );
        let o = run::<Bplru>(8, &params(true, Compensation::Off), 4, t);
        assert_eq!(
            o.events[8],
            [
                Ev::Begin,
                Ev::PadRd(9),
                Ev::PadRd(10),
                Ev::PadRd(11),
                Ev::Wb(8),
                Ev::PadWr(9),
                Ev::PadWr(10),
                Ev::PadWr(11),
                Ev::End
            ]
        );
    }

    /// `sequential` needs the fill to start at offset 0 in order; `any_full` does not.
    #[test]
    fn compensation_variants() {
        let t = "W8 W1 W0 W2 W3 W12 W16 W20 W24";
        let seq = run::<Bplru>(8, &BplruParams::default(), 4, t);
        assert_eq!(seq.write_backs(), [8]);
        let any = run::<Bplru>(8, &params(true, Compensation::AnyFull), 4, t);
        assert_eq!(any.write_backs(), [0, 1, 2, 3]);
    }

    /// Hand-worked vector 3 (C = 1): a read miss allocates nothing; a read hit leaves
    /// the LRU order alone.
    #[test]
    fn spec_vector_3_reads_bypass() {
        let o = run::<Bplru>(1, &BplruParams::default(), 4, "W0 R5 W0");
        assert_eq!(o.hits, [false, false, true]);
        assert!(o.events.iter().all(Vec::is_empty));
        // R0 hits B0 but does not refresh it: B0 stays LRU and goes at W8.
        let o = run::<Bplru>(2, &params(false, Compensation::Off), 4, "W0 W4 R0 W8");
        assert_eq!(o.hits, [false, false, true, false]);
        assert_eq!(o.write_backs(), [0]);
    }

    /// The only group is the victim when the buffer holds nothing else.
    #[test]
    fn only_group_is_its_own_victim() {
        let o = run::<Bplru>(2, &params(false, Compensation::Off), 4, "W0 W1 W2");
        assert_eq!(o.events[2], [Ev::Begin, Ev::Wb(0), Ev::Wb(1), Ev::End]);
        assert_eq!(o.policy.len(), 1);
    }
}
