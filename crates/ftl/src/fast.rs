//! FAST hybrid log-block FTL (S.-W. Lee, D.-J. Park, T.-S. Chung, D.-H. Lee, S. Park,
//! H.-J. Song, "A log buffer-based flash translation layer using fully-associative
//! sector translation", ACM TECS 6(3), 2007), with the write rules and merge costs
//! below (`docs/ftl.md`, "The three FTLs"); paper 000 (TS-CLOCK, Kang, Min, Eom, IEEE
//! MASCOTS 2014) Sec. II-B and IV-E use it as the microSD model.
//!
//! Data blocks are block-mapped (page `off` of logical block `lbn` lives at page `off` of
//! its data block). One sequential-write (SW) log block holds offsets `0..k` of one
//! logical block in order; `n_rw` random-write (RW) log blocks are fully associative and
//! filled in arrival order, the oldest being the FIFO victim. Write of `lpn`
//! (`lbn = lpn / Np`, `off = lpn % Np`), rules in this order:
//!
//! 1. `lbn` owns the SW block and `off == sw_next`: append to SW; when full, switch merge.
//! 2. `lbn` does not own the SW block and its data page `off` was never programmed
//!    (fresh device / fresh data block): program in place, no log. Resolved ambiguity:
//!    in-place programming is allowed out of page order, as FlashSim does; for the SW
//!    owner it is not allowed, since the SW block may already hold that offset.
//! 3. `off == 0`: close the open SW block (switch merge if full, else partial merge),
//!    open a new SW block for `lbn`, write page 0.
//! 4. `lbn` owns the SW block (out-of-order write): partial-merge the SW block, then 5.
//! 5. Append to the RW log. With all `n_rw` RW blocks full, the oldest is the victim:
//!    every logical block with a valid page in it is fully merged, then it is erased.
//!
//! Merge costs (copy = 1 read + 1 program): switch 0 copies + 1 erase (old data block);
//! partial `Np - k` copies at most (only offsets holding data are copied) + 1 erase;
//! full: one copy per valid page of the logical block into a fresh block + 1 erase of
//! the old data block; the victim log block costs 1 more erase. Resolved ambiguity: a
//! victim page of the SW owner is merged by partial-merging the SW block (counted as a
//! partial merge), which leaves every page of that logical block in one block, rather
//! than by a partial merge followed by a full merge.
//!
//! Default `n_rw`: every spare block, i.e. `physical - logical blocks - 2` (one SW block
//! and one free block for merges are kept).
//!
//! Representation. A page in its data block or in the SW block sits at its own offset,
//! so only its presence needs storing: per block, a bitmap of the offsets programmed
//! since the erase (`prog`, which rule 2 asks) and of those holding their page's newest
//! copy (`live`). Only pages in the RW logs have explicit entries (`l2p`, `p2l`), and a
//! bitmap per logical block (`logged`) says which of its offsets they are; their `live`
//! bits give an RW victim's valid pages without a lookup per page. A merge then
//! moves 64 offsets a word at a time (the data block's `live` word or'ed with the
//! logical block's `logged` word) and visits only the logical block's log pages one by
//! one, where copying page by page visited every offset: an aged 16 GiB card with 4 MiB
//! blocks merges about a thousand logical blocks of about a thousand pages for each RW
//! victim. Counters and busy time of the copies from the data block are added once per
//! merge (`Flash::copy_many`), the sums the page-by-page copies add. A test replays
//! random workloads on this and on the page-by-page algorithm and compares every
//! counter and every page's location after each request.

use crate::error::FtlError;
use crate::flash::Flash;
use crate::ftl::{check_range, Ftl};
use crate::geometry::{CellType, Geometry, Latency};
use crate::metrics::{Counters, Metrics};
use crate::table::{FreeBlocks, Table, NIL};
use std::collections::VecDeque;

/// Offsets per bitmap word.
const W: u32 = 64;

/// Word index and bit of offset `off` in a block's (or logical block's) bitmap.
#[inline]
fn bit(off: u32) -> (usize, u64) {
    ((off / W) as usize, 1u64 << (off % W))
}

/// The bits of offsets `lo..hi` that fall in the word holding offsets `base..base + 64`.
#[inline]
fn range_mask(lo: u32, hi: u32, base: u32) -> u64 {
    let a = lo.saturating_sub(base).min(W);
    let b = hi.saturating_sub(base).min(W);
    if a >= b {
        return 0;
    }
    let upto = if b == W { !0 } else { (1u64 << b) - 1 };
    upto & !((1u64 << a) - 1)
}

/// The FAST FTL.
#[derive(Clone, Debug)]
pub struct FastFtl {
    f: Flash,
    np: u32,
    /// Bitmap words per block, `ceil(Np / 64)`: every block's bits start a word.
    wpb: usize,
    logical_pages: u32,
    /// Where in an RW log each logical page's newest copy is; NIL when it is elsewhere
    /// or nowhere.
    l2p: Table,
    /// Logical page programmed into each page of an RW log block (NIL = erased); a
    /// superseded copy keeps its entry, so `live` decides which entries are valid.
    p2l: Table,
    /// Per logical block, `wpb` words: the offsets whose newest copy is in an RW log
    /// (exactly those with an `l2p` entry).
    logged: Vec<u64>,
    /// Per physical block, `wpb` words: the offsets programmed since the erase, in data
    /// and SW blocks (RW blocks use `p2l`).
    prog: Vec<u64>,
    /// Per physical block, `wpb` words: the pages holding their logical page's newest
    /// copy (in data, SW and RW log blocks; an RW victim's are the pages to merge).
    live: Vec<u64>,
    /// Pages holding a newest copy, per physical block.
    valid: Vec<u32>,
    /// Data block of each logical block, or NIL.
    data: Table,
    free: FreeBlocks,
    sw_block: u32,
    sw_lbn: u32,
    sw_next: u32,
    rw: VecDeque<u32>,
    rw_ptr: u32,
    n_rw: usize,
}

impl FastFtl {
    /// An erased device with `n_rw` RW log blocks (`None` = all spare blocks).
    pub fn new(
        geo: Geometry,
        lat: Latency,
        cell: CellType,
        n_rw: Option<u32>,
    ) -> Result<FastFtl, FtlError> {
        geo.validate()?;
        let lb = geo.logical_blocks();
        let spare = u64::from(geo.physical_blocks).saturating_sub(lb + 2);
        let n_rw = u64::from(n_rw.unwrap_or(spare.min(u64::from(u32::MAX)) as u32));
        if n_rw == 0 || n_rw > spare {
            return Err(FtlError::Config(format!(
                "FAST needs 1..={spare} RW log blocks on this device ({} physical, {lb} logical \
                 blocks, 1 SW and 1 merge block); {n_rw} requested",
                geo.physical_blocks
            )));
        }
        let wpb = geo.pages_per_block.div_ceil(W) as usize;
        let pb = geo.physical_blocks as usize;
        Ok(FastFtl {
            f: Flash::new(geo, lat, cell),
            np: geo.pages_per_block,
            wpb,
            logical_pages: geo.logical_pages as u32,
            l2p: Table::nil(geo.logical_pages as usize),
            p2l: Table::nil(geo.physical_pages() as usize),
            logged: vec![0; lb as usize * wpb],
            prog: vec![0; pb * wpb],
            live: vec![0; pb * wpb],
            valid: vec![0; pb],
            data: Table::nil(lb as usize),
            free: FreeBlocks::all(geo.physical_blocks),
            sw_block: NIL,
            sw_lbn: NIL,
            sw_next: 0,
            rw: VecDeque::with_capacity(n_rw as usize),
            rw_ptr: 0,
            n_rw: n_rw as usize,
        })
    }

    /// RW log blocks in use by this configuration.
    pub fn rw_log_blocks(&self) -> usize {
        self.n_rw
    }

    /// Bytes of mapping state per logical page: the log page map `l2p` (4 bytes, sized
    /// for every logical page), the block map's share and the bitmaps (`logged`: 1 bit per
    /// logical page; `prog` and `live`: 2 bits per physical page).
    pub fn map_bytes_per_logical_page(&self) -> f64 {
        let bitmaps = (self.logged.len() + self.prog.len() + self.live.len()) as f64 * 8.0;
        4.0 + 4.0 / f64::from(self.np) + bitmaps / f64::from(self.logical_pages.max(1))
    }

    #[inline]
    fn pop_free(&mut self) -> u32 {
        self.free
            .pop()
            .expect("FAST block accounting keeps one free block for merges")
    }

    /// Index of the word holding bit `w` of block (or logical block) `b`.
    #[inline]
    fn at(&self, b: u32, w: usize) -> usize {
        b as usize * self.wpb + w
    }

    /// The data or SW block holding the newest copy of page `off` of `lbn`, or NIL (the
    /// copy is in an RW log, or there is none).
    #[inline]
    fn home(&self, lbn: u32, off: u32) -> u32 {
        let (w, m) = bit(off);
        if lbn == self.sw_lbn && self.live[self.at(self.sw_block, w)] & m != 0 {
            return self.sw_block;
        }
        let d = self.data.get(lbn as usize);
        if d != NIL && self.live[self.at(d, w)] & m != 0 {
            return d;
        }
        NIL
    }

    /// Physical page of the newest copy of `lpn`, or NIL.
    #[inline]
    fn locate(&self, lpn: u32) -> u32 {
        let (lbn, off) = (lpn / self.np, lpn % self.np);
        let (w, m) = bit(off);
        if self.logged[self.at(lbn, w)] & m != 0 {
            return self.l2p.get(lpn as usize);
        }
        match self.home(lbn, off) {
            NIL => NIL,
            b => b * self.np + off,
        }
    }

    #[inline]
    fn drop_copy(&mut self, lpn: u32) {
        let (lbn, off) = (lpn / self.np, lpn % self.np);
        let (w, m) = bit(off);
        let i = self.at(lbn, w);
        if self.logged[i] & m != 0 {
            self.logged[i] &= !m;
            let ppn = self.l2p.get(lpn as usize);
            self.l2p.set(lpn as usize, NIL);
            self.supersede_log(ppn);
            return;
        }
        let b = self.home(lbn, off);
        if b != NIL {
            let i = self.at(b, w);
            self.live[i] &= !m;
            self.valid[b as usize] -= 1;
        }
    }

    /// Program page `off` of data or SW block `b` with the newest copy of its page.
    #[inline]
    fn place(&mut self, b: u32, off: u32) {
        let (w, m) = bit(off);
        let i = self.at(b, w);
        self.prog[i] |= m;
        self.live[i] |= m;
        self.valid[b as usize] += 1;
    }

    /// Program RW log page `ppn` with the newest copy of `lpn`.
    #[inline]
    fn place_log(&mut self, lpn: u32, ppn: u32) {
        let (w, m) = bit(lpn % self.np);
        let i = self.at(lpn / self.np, w);
        self.logged[i] |= m;
        self.p2l.set(ppn as usize, lpn);
        self.l2p.set(lpn as usize, ppn);
        let (b, (w, m)) = (ppn / self.np, bit(ppn % self.np));
        let i = self.at(b, w);
        self.live[i] |= m;
        self.valid[b as usize] += 1;
    }

    /// RW log page `ppn` no longer holds the newest copy of its page.
    #[inline]
    fn supersede_log(&mut self, ppn: u32) {
        let (b, (w, m)) = (ppn / self.np, bit(ppn % self.np));
        let i = self.at(b, w);
        self.live[i] &= !m;
        self.valid[b as usize] -= 1;
    }

    /// Copy the newest copy of every page at offsets `lo..hi` of `lbn`, from its data
    /// block `old` (NIL if none) and the RW logs, to the same offsets of block `dst`.
    /// The copies out of `old` are counted together; each log page's own block is read.
    fn gather(&mut self, lbn: u32, old: u32, dst: u32, lo: u32, hi: u32) {
        let (mut from_old, mut from_log) = (0u32, 0u32);
        for w in 0..self.wpb {
            let base = w as u32 * W;
            let mask = range_mask(lo, hi, base);
            if mask == 0 {
                continue;
            }
            let d = if old == NIL {
                0
            } else {
                let i = self.at(old, w);
                let d = self.live[i] & mask;
                self.live[i] &= !d;
                d
            };
            let i = self.at(lbn, w);
            let mut l = self.logged[i] & mask;
            self.logged[i] &= !l;
            let i = self.at(dst, w);
            self.live[i] |= d | l;
            self.prog[i] |= d | l;
            from_old += d.count_ones();
            from_log += l.count_ones();
            while l != 0 {
                let lpn = lbn * self.np + base + l.trailing_zeros();
                l &= l - 1;
                let src = self.l2p.get(lpn as usize);
                self.l2p.set(lpn as usize, NIL);
                self.supersede_log(src);
                self.f.copy(src / self.np, dst);
            }
        }
        if from_old > 0 {
            self.valid[old as usize] -= from_old;
            self.f.copy_many(old, dst, u64::from(from_old));
        }
        self.valid[dst as usize] += from_old + from_log;
    }

    /// Erase a data or SW block that holds no newest copy.
    fn erase_data(&mut self, b: u32) {
        debug_assert_eq!(self.valid[b as usize], 0, "erasing a block with valid data");
        let r = self.at(b, 0)..self.at(b + 1, 0);
        debug_assert!(self.live[r.clone()].iter().all(|&w| w == 0));
        self.prog[r].fill(0);
        self.f.erase(b);
    }

    /// Erase an RW log block whose pages are all superseded.
    fn erase_log(&mut self, b: u32) {
        debug_assert_eq!(self.valid[b as usize], 0, "erasing a block with valid data");
        let base = (b * self.np) as usize;
        self.p2l.clear(base..base + self.np as usize);
        self.f.erase(b);
        let r = self.at(b, 0)..self.at(b + 1, 0);
        debug_assert!(self.live[r].iter().all(|&w| w == 0));
    }

    /// Pages of logical block `lbn` (the last one may be short).
    #[inline]
    fn pages_of(&self, lbn: u32) -> u32 {
        (self.logical_pages - lbn * self.np).min(self.np)
    }

    /// Turn the SW block into its owner's data block (switch or partial merge).
    fn close_sw(&mut self) {
        let (s, lbn, k) = (self.sw_block, self.sw_lbn, self.sw_next);
        let n = self.pages_of(lbn);
        let old = self.data.get(lbn as usize);
        if k >= n {
            self.f.c.switch_merges += 1;
        } else {
            self.f.c.partial_merges += 1;
            self.gather(lbn, old, s, k, n);
        }
        if old != NIL {
            self.erase_data(old);
            self.free.push(old);
        }
        self.data.set(lbn as usize, s);
        self.sw_block = NIL;
        self.sw_lbn = NIL;
    }

    /// Full merge of `lbn` into a fresh block. For the SW owner the partial merge of
    /// the SW block already gathers the newest copy of every page of `lbn` (from its
    /// data block and the RW logs) into one block, so it is done by that partial merge
    /// alone; copying the result once more would add `Np` copies and an erase for no
    /// change of state.
    fn full_merge(&mut self, lbn: u32) {
        if self.sw_lbn == lbn {
            self.close_sw();
            return;
        }
        self.f.c.full_merges += 1;
        let nb = self.pop_free();
        let old = self.data.get(lbn as usize);
        self.gather(lbn, old, nb, 0, self.pages_of(lbn));
        if old != NIL {
            self.erase_data(old);
            self.free.push(old);
        }
        self.data.set(lbn as usize, nb);
    }

    /// Start loading the `l2p` entries of the valid pages in word `w` of RW block `v`.
    /// The merge each of them triggers reads its entry, a cache miss on a large device
    /// (16 MiB of `l2p` at 16 GiB); issued a word ahead, those misses overlap. Prefetch
    /// instructions rather than loads: the merges of a whole word run before the entries
    /// are used (BENCHMARKS.md, "FAST merges": 10% less CPU for aging a card).
    fn prefetch_log_entries(&self, v: u32, w: usize) {
        if w >= self.wpb {
            return;
        }
        let mut x = self.live[self.at(v, w)];
        let base = v * self.np + w as u32 * W;
        while x != 0 {
            let lpn = self.p2l.get((base + x.trailing_zeros()) as usize);
            x &= x - 1;
            wafer_trace::prefetch::prefetch(self.l2p.raw(), lpn as usize);
        }
    }

    /// Next RW log page, reclaiming the oldest RW block when all are full.
    fn rw_page(&mut self) -> u32 {
        if self.rw.is_empty() || self.rw_ptr == self.np {
            if self.rw.len() < self.n_rw {
                let b = self.pop_free();
                self.rw.push_back(b);
            } else {
                self.f.c.gc_invocations += 1;
                let v = self.rw.pop_front().expect("n_rw >= 1");
                // The victim's valid pages in page order; each merge gathers the page
                // found (and any later ones of its logical block) out of the victim.
                self.prefetch_log_entries(v, 0);
                for w in 0..self.wpb {
                    self.prefetch_log_entries(v, w + 1);
                    let i = self.at(v, w);
                    while self.live[i] != 0 {
                        let lowest = self.live[i] & self.live[i].wrapping_neg();
                        let ppn = v * self.np + w as u32 * W + lowest.trailing_zeros();
                        self.full_merge(self.p2l.get(ppn as usize) / self.np);
                        debug_assert_eq!(self.live[i] & lowest, 0, "merge left page {ppn}");
                    }
                }
                self.erase_log(v);
                self.rw.push_back(v);
            }
            self.rw_ptr = 0;
        }
        let b = *self.rw.back().expect("an RW block is open");
        let ppn = b * self.np + self.rw_ptr;
        self.rw_ptr += 1;
        ppn
    }

    fn write_page(&mut self, lpn: u32) {
        let (lbn, off) = (lpn / self.np, lpn % self.np);
        if lbn == self.sw_lbn && off == self.sw_next {
            self.drop_copy(lpn);
            self.place(self.sw_block, off);
            self.f.program_host(self.sw_block);
            self.sw_next += 1;
            if self.sw_next >= self.pages_of(lbn) {
                self.close_sw();
            }
            return;
        }
        if lbn != self.sw_lbn {
            let mut d = self.data.get(lbn as usize);
            if d == NIL {
                d = self.pop_free();
                self.data.set(lbn as usize, d);
            }
            let (w, m) = bit(off);
            if self.prog[self.at(d, w)] & m == 0 {
                self.drop_copy(lpn);
                self.place(d, off);
                self.f.program_host(d);
                return;
            }
        }
        if off == 0 {
            if self.sw_block != NIL {
                self.close_sw();
            }
            self.drop_copy(lpn);
            let s = self.pop_free();
            self.sw_block = s;
            self.sw_lbn = lbn;
            self.sw_next = 1;
            self.place(s, 0);
            self.f.program_host(s);
            if self.pages_of(lbn) == 1 {
                self.close_sw();
            }
            return;
        }
        if lbn == self.sw_lbn {
            self.close_sw();
        }
        self.drop_copy(lpn);
        let ppn = self.rw_page();
        self.place_log(lpn, ppn);
        self.f.program_host(ppn / self.np);
    }
}

impl Ftl for FastFtl {
    fn write(&mut self, lpn: u64, n: u64) -> Result<(), FtlError> {
        check_range(lpn, n, self.f.geo.logical_pages)?;
        self.f.c.host_write_pages += n;
        for p in lpn..lpn + n {
            self.write_page(p as u32);
        }
        Ok(())
    }

    fn read(&mut self, lpn: u64, n: u64) -> Result<(), FtlError> {
        check_range(lpn, n, self.f.geo.logical_pages)?;
        self.f.c.host_read_pages += n;
        for p in lpn..lpn + n {
            let ppn = self.locate(p as u32);
            if ppn == NIL {
                self.f.c.unwritten_reads += 1;
            } else {
                self.f.read_host(ppn / self.np);
            }
        }
        Ok(())
    }

    fn trim(&mut self, lpn: u64, n: u64) -> Result<(), FtlError> {
        check_range(lpn, n, self.f.geo.logical_pages)?;
        self.f.c.host_trim_pages += n;
        for p in lpn..lpn + n {
            self.drop_copy(p as u32);
        }
        Ok(())
    }

    /// Loads each page's `logged` word and its logical block's data block entry, the
    /// first lookups of a write, in one sweep of independent loads so that their cache
    /// misses overlap. Plain loads rather than prefetch instructions, which measured
    /// slower for the FTLs' tables (BENCHMARKS.md, "FTL").
    fn prefetch(&self, lpns: &[u64]) {
        let np = u64::from(self.np);
        let mut acc = 0u64;
        for &p in lpns {
            if p < u64::from(self.logical_pages) {
                let (lbn, off) = ((p / np) as u32, (p % np) as u32);
                acc ^= self.logged[self.at(lbn, bit(off).0)];
                acc ^= u64::from(self.data.raw()[lbn as usize]);
            }
        }
        std::hint::black_box(acc);
    }

    fn metrics(&self) -> Metrics {
        self.f.metrics("fast")
    }

    #[inline]
    fn counters(&self) -> &Counters {
        &self.f.c
    }

    fn reset_counters(&mut self) {
        self.f.reset();
    }

    fn geometry(&self) -> &Geometry {
        &self.f.geo
    }

    fn erase_counts(&self) -> &[u32] {
        self.f.erase_counts()
    }

    fn check_invariants(&self) -> Result<(), String> {
        let (np, wpb) = (self.np, self.wpb);
        // What each block is: 0 free, 1 data, 2 SW, 3 RW log.
        let mut role = vec![0u8; self.valid.len()];
        let mut claim = |b: u32, r: u8, what: &str| {
            if role[b as usize] != 0 {
                return Err(format!("block {b} is {what} and has another role"));
            }
            role[b as usize] = r;
            Ok(())
        };
        for d in self.data.iter().filter(|&d| d != NIL) {
            claim(d, 1, "a data block")?;
        }
        if self.sw_block != NIL {
            claim(self.sw_block, 2, "the SW block")?;
        }
        for &b in &self.rw {
            claim(b, 3, "an RW log block")?;
        }
        if self.free.iter().any(|b| role[b as usize] != 0) {
            return Err("a free block is in use".into());
        }
        // Any bit at offset `from` or beyond in a bitmap of `wpb` words.
        let beyond = |words: &[u64], from: u32| {
            (0..wpb).any(|w| words[w] & range_mask(from, wpb as u32 * W, w as u32 * W) != 0)
        };
        let mut valid = vec![0u32; self.valid.len()];
        for (b, &r) in role.iter().enumerate() {
            let words = b * wpb..(b + 1) * wpb;
            let (live, prog) = (&self.live[words.clone()], &self.prog[words]);
            if beyond(live, np) || beyond(prog, np) {
                return Err(format!("block {b} has bits beyond its pages"));
            }
            let has = |words: &[u64]| words.iter().any(|&w| w != 0);
            match r {
                1 | 2 if live.iter().zip(prog).any(|(&l, &p)| l & !p != 0) => {
                    return Err(format!("block {b} has a valid page never programmed"));
                }
                3 if has(prog) => return Err(format!("RW log block {b} has data pages")),
                0 if has(live) || has(prog) => return Err(format!("free block {b} has pages")),
                _ => {}
            }
            let count: u32 = live.iter().map(|w| w.count_ones()).sum();
            if count != self.valid[b] {
                return Err(format!("block {b}: valid count and valid pages differ"));
            }
            let pages = b * np as usize..(b + 1) * np as usize;
            if r != 3 && self.p2l.entries(pages).any(|l| l != NIL) {
                return Err(format!("block {b} is no RW log block but has log pages"));
            }
        }
        for lpn in 0..self.logical_pages {
            let (lbn, off) = (lpn / np, lpn % np);
            let (w, m) = bit(off);
            let logged = self.logged[self.at(lbn, w)] & m != 0;
            let ppn = self.l2p.get(lpn as usize);
            if logged != (ppn != NIL) {
                return Err(format!("logical page {lpn}: log flag and log map disagree"));
            }
            let d = self.data.get(lbn as usize);
            let in_data = d != NIL && self.live[self.at(d, w)] & m != 0;
            let in_sw = lbn == self.sw_lbn && self.live[self.at(self.sw_block, w)] & m != 0;
            if u8::from(logged) + u8::from(in_data) + u8::from(in_sw) > 1 {
                return Err(format!("logical page {lpn} is valid in two places"));
            }
            if logged {
                if role[(ppn / np) as usize] != 3 {
                    return Err(format!(
                        "logical page {lpn} lives in a block that is no log of it"
                    ));
                }
                let (pw, pm) = bit(ppn % np);
                if self.p2l.get(ppn as usize) != lpn || self.live[self.at(ppn / np, pw)] & pm == 0 {
                    return Err(format!("logical page {lpn} maps to a page holding another"));
                }
                valid[(ppn / np) as usize] += 1;
            } else if in_data {
                valid[d as usize] += 1;
            } else if in_sw {
                valid[self.sw_block as usize] += 1;
            }
        }
        for lbn in 0..self.data.raw().len() as u32 {
            let words = self.at(lbn, 0)..self.at(lbn + 1, 0);
            if beyond(&self.logged[words], self.pages_of(lbn)) {
                return Err(format!(
                    "logical block {lbn} has log flags beyond its pages"
                ));
            }
        }
        if valid != self.valid {
            return Err("per-block valid counts differ from the mapped pages".into());
        }
        if self.sw_block != NIL {
            let words = self.at(self.sw_block, 0)..self.at(self.sw_block + 1, 0);
            if beyond(&self.prog[words], self.sw_next) {
                return Err("SW block holds a page out of order".into());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    /// The page-by-page FAST this module replaced, kept as the oracle: one `l2p` entry per
    /// logical page and one `p2l` entry per physical page, every merge copying offset by
    /// offset through them.
    struct Reference {
        f: Flash,
        np: u32,
        logical_pages: u32,
        l2p: Table,
        p2l: Table,
        valid: Vec<u32>,
        data: Table,
        free: FreeBlocks,
        sw_block: u32,
        sw_lbn: u32,
        sw_next: u32,
        rw: VecDeque<u32>,
        rw_ptr: u32,
        n_rw: usize,
    }

    impl Reference {
        fn new(geo: Geometry, n_rw: usize) -> Reference {
            Reference {
                f: Flash::new(geo, LAT, CellType::Mlc),
                np: geo.pages_per_block,
                logical_pages: geo.logical_pages as u32,
                l2p: Table::nil(geo.logical_pages as usize),
                p2l: Table::nil(geo.physical_pages() as usize),
                valid: vec![0; geo.physical_blocks as usize],
                data: Table::nil(geo.logical_blocks() as usize),
                free: FreeBlocks::all(geo.physical_blocks),
                sw_block: NIL,
                sw_lbn: NIL,
                sw_next: 0,
                rw: VecDeque::new(),
                rw_ptr: 0,
                n_rw,
            }
        }

        fn drop_copy(&mut self, lpn: u32) {
            let old = self.l2p.get(lpn as usize);
            if old != NIL {
                self.valid[(old / self.np) as usize] -= 1;
                self.l2p.set(lpn as usize, NIL);
            }
        }

        fn place(&mut self, lpn: u32, ppn: u32) {
            self.p2l.set(ppn as usize, lpn);
            self.l2p.set(lpn as usize, ppn);
            self.valid[(ppn / self.np) as usize] += 1;
        }

        fn copy_to(&mut self, lpn: u32, dst: u32) {
            let src = self.l2p.get(lpn as usize);
            if src != NIL {
                self.valid[(src / self.np) as usize] -= 1;
                self.place(lpn, dst);
                self.f.copy(src / self.np, dst / self.np);
            }
        }

        fn erase(&mut self, b: u32) {
            assert_eq!(self.valid[b as usize], 0);
            let base = (b * self.np) as usize;
            self.p2l.clear(base..base + self.np as usize);
            self.f.erase(b);
        }

        fn pages_of(&self, lbn: u32) -> u32 {
            (self.logical_pages - lbn * self.np).min(self.np)
        }

        fn retire_data(&mut self, lbn: u32, new: u32) {
            let old = self.data.get(lbn as usize);
            if old != NIL {
                self.erase(old);
                self.free.push(old);
            }
            self.data.set(lbn as usize, new);
        }

        fn close_sw(&mut self) {
            let (s, lbn, k) = (self.sw_block, self.sw_lbn, self.sw_next);
            let n = self.pages_of(lbn);
            if k >= n {
                self.f.c.switch_merges += 1;
            } else {
                self.f.c.partial_merges += 1;
                for off in k..n {
                    self.copy_to(lbn * self.np + off, s * self.np + off);
                }
            }
            self.retire_data(lbn, s);
            self.sw_block = NIL;
            self.sw_lbn = NIL;
        }

        fn full_merge(&mut self, lbn: u32) {
            if self.sw_lbn == lbn {
                self.close_sw();
                return;
            }
            self.f.c.full_merges += 1;
            let nb = self.free.pop().unwrap();
            for off in 0..self.pages_of(lbn) {
                self.copy_to(lbn * self.np + off, nb * self.np + off);
            }
            self.retire_data(lbn, nb);
        }

        fn rw_page(&mut self) -> u32 {
            if self.rw.is_empty() || self.rw_ptr == self.np {
                if self.rw.len() < self.n_rw {
                    let b = self.free.pop().unwrap();
                    self.rw.push_back(b);
                } else {
                    self.f.c.gc_invocations += 1;
                    let v = self.rw.pop_front().unwrap();
                    for ppn in v * self.np..(v + 1) * self.np {
                        let lpn = self.p2l.get(ppn as usize);
                        if lpn != NIL && self.l2p.get(lpn as usize) == ppn {
                            self.full_merge(lpn / self.np);
                        }
                    }
                    self.erase(v);
                    self.rw.push_back(v);
                }
                self.rw_ptr = 0;
            }
            self.rw_ptr += 1;
            self.rw.back().unwrap() * self.np + self.rw_ptr - 1
        }

        fn write_page(&mut self, lpn: u32) {
            let (lbn, off) = (lpn / self.np, lpn % self.np);
            self.f.c.host_write_pages += 1;
            if lbn == self.sw_lbn && off == self.sw_next {
                self.drop_copy(lpn);
                self.place(lpn, self.sw_block * self.np + off);
                self.f.program_host(self.sw_block);
                self.sw_next += 1;
                if self.sw_next >= self.pages_of(lbn) {
                    self.close_sw();
                }
                return;
            }
            if lbn != self.sw_lbn {
                let mut d = self.data.get(lbn as usize);
                if d == NIL {
                    d = self.free.pop().unwrap();
                    self.data.set(lbn as usize, d);
                }
                if self.p2l.get((d * self.np + off) as usize) == NIL {
                    self.drop_copy(lpn);
                    self.place(lpn, d * self.np + off);
                    self.f.program_host(d);
                    return;
                }
            }
            if off == 0 {
                if self.sw_block != NIL {
                    self.close_sw();
                }
                self.drop_copy(lpn);
                let s = self.free.pop().unwrap();
                (self.sw_block, self.sw_lbn, self.sw_next) = (s, lbn, 1);
                self.place(lpn, s * self.np);
                self.f.program_host(s);
                if self.pages_of(lbn) == 1 {
                    self.close_sw();
                }
                return;
            }
            if lbn == self.sw_lbn {
                self.close_sw();
            }
            self.drop_copy(lpn);
            let ppn = self.rw_page();
            self.place(lpn, ppn);
            self.f.program_host(ppn / self.np);
        }

        fn read_page(&mut self, lpn: u32) {
            self.f.c.host_read_pages += 1;
            match self.l2p.get(lpn as usize) {
                NIL => self.f.c.unwritten_reads += 1,
                ppn => self.f.read_host(ppn / self.np),
            }
        }

        fn trim_page(&mut self, lpn: u32) {
            self.f.c.host_trim_pages += 1;
            self.drop_copy(lpn);
        }
    }

    const LAT: Latency = Latency {
        read_ns: 50_000,
        program_ns: 600_000,
        erase_ns: 3_000_000,
    };

    /// Every counter, the window's wear and busy time per channel, every block's
    /// lifetime erases and every logical page's physical location agree.
    fn assert_same(fast: &FastFtl, r: &Reference, step: &str) {
        let (a, b) = (fast.metrics(), r.f.metrics("fast"));
        assert_eq!(a.counters, b.counters, "{step}");
        assert_eq!(a.waf.to_bits(), b.waf.to_bits(), "{step}");
        assert_eq!(a.erase, b.erase, "{step}");
        assert_eq!(a.channel_busy_ns, b.channel_busy_ns, "{step}");
        assert_eq!(a.parallel_busy_ns, b.parallel_busy_ns, "{step}");
        assert_eq!(fast.erase_counts(), r.f.erase_counts(), "{step}");
        for lpn in 0..r.logical_pages {
            assert_eq!(
                fast.locate(lpn),
                r.l2p.get(lpn as usize),
                "{step}: page {lpn}"
            );
        }
        assert_eq!(fast.valid, r.valid, "{step}");
        fast.check_invariants()
            .unwrap_or_else(|e| panic!("{step}: {e}"));
    }

    /// Replays `requests` random requests on both FTLs, comparing after each one. The
    /// mix: runs from offset 0 (the SW path), short runs and single pages anywhere (the
    /// RW path, in-place programs on fresh blocks), reads of written and unwritten
    /// pages, trims; now and then a new measurement window.
    /// Returns how many switch, partial and full merges and unwritten reads it saw.
    fn differential(seed: u64, geo: Geometry, n_rw: u32, requests: usize, fill: bool) -> [u64; 4] {
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let mut fast = FastFtl::new(geo, LAT, CellType::Mlc, Some(n_rw)).unwrap();
        let mut r = Reference::new(geo, n_rw as usize);
        let (lp, np) = (geo.logical_pages, u64::from(geo.pages_per_block));
        if fill {
            fast.write(0, lp).unwrap();
            (0..lp as u32).for_each(|p| r.write_page(p));
            assert_same(&fast, &r, "fill");
        }
        let mut seen = [0u64; 4];
        let mut tally = |c: &Counters| {
            let now = [
                c.switch_merges,
                c.partial_merges,
                c.full_merges,
                c.unwritten_reads,
            ];
            seen.iter_mut().zip(now).for_each(|(s, n)| *s += n);
        };
        // Skewed toward a few hot logical blocks, so logs hold several pages of one.
        let hot = geo.logical_blocks().min(3);
        for i in 0..requests {
            let lbn = if rng.gen_bool(0.5) {
                rng.gen_range(0..hot)
            } else {
                rng.gen_range(0..geo.logical_blocks())
            };
            let start = match rng.gen_range(0..10) {
                0..=2 => lbn * np,
                _ => lbn * np + rng.gen_range(0..np),
            }
            .min(lp - 1);
            let n = match rng.gen_range(0..10) {
                0..=4 => 1,
                5..=7 => rng.gen_range(1..=np),
                _ => rng.gen_range(1..=2 * np),
            }
            .min(lp - start);
            let range = start as u32..(start + n) as u32;
            let step = format!("seed {seed}, request {i}");
            match rng.gen_range(0..20) {
                0..=13 => {
                    fast.write(start, n).unwrap();
                    range.for_each(|p| r.write_page(p));
                }
                14..=17 => {
                    fast.read(start, n).unwrap();
                    range.for_each(|p| r.read_page(p));
                }
                18 => {
                    fast.trim(start, n).unwrap();
                    range.for_each(|p| r.trim_page(p));
                }
                _ => {
                    tally(&r.f.c);
                    fast.reset_counters();
                    r.f.reset();
                }
            }
            assert_same(&fast, &r, &step);
        }
        tally(&r.f.c);
        seen
    }

    fn geo(np: u32, logical_pages: u64, physical_blocks: u32, channels: u32) -> Geometry {
        Geometry {
            page_size: 4096,
            pages_per_block: np,
            logical_pages,
            physical_blocks,
            channels,
            ways: 1,
        }
    }

    #[test]
    fn batched_merges_match_page_by_page_merges_on_random_workloads() {
        // (pages per block, logical pages, physical blocks, channels, RW log blocks):
        // word-sized and odd blocks, blocks of several bitmap words, a short last
        // logical block, one to several RW logs, one to three channels.
        let cases = [
            (4, 32, 14, 1, 4),
            (8, 61, 14, 3, 3),
            (16, 128, 14, 2, 2),
            (64, 512, 12, 1, 1),
            (130, 1000, 14, 2, 3),
            (200, 1190, 12, 3, 4),
        ];
        for (i, &(np, lp, pb, ch, n_rw)) in cases.iter().enumerate() {
            let mut seen = [0u64; 4];
            for seed in 0..4 {
                let g = geo(np, lp, pb, ch);
                let s = differential(seed * 10 + i as u64, g, n_rw, 400, seed % 2 == 0);
                seen.iter_mut().zip(s).for_each(|(a, b)| *a += b);
            }
            // Switch, partial and full merges and unwritten reads all occurred.
            assert!(seen.iter().all(|&n| n > 0), "case {i}: {seen:?}");
        }
    }

    #[test]
    fn batched_merges_match_page_by_page_merges_under_random_single_pages() {
        // Aging's random part on a full device: every RW victim fully merges many
        // logical blocks, each gathering pages from several logs and its data block.
        for seed in 0..3 {
            let g = geo(32, 32 * 12, 18, 2);
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            let mut fast = FastFtl::new(g, LAT, CellType::Mlc, Some(4)).unwrap();
            let mut r = Reference::new(g, 4);
            fast.write(0, g.logical_pages).unwrap();
            (0..g.logical_pages as u32).for_each(|p| r.write_page(p));
            for i in 0..3000 {
                let p = rng.gen_range(0..g.logical_pages);
                fast.write(p, 1).unwrap();
                r.write_page(p as u32);
                if i % 50 == 0 {
                    assert_same(&fast, &r, &format!("seed {seed}, write {i}"));
                }
            }
            assert!(
                r.f.c.full_merges > 100,
                "the workload exercises full merges"
            );
            assert_same(&fast, &r, &format!("seed {seed}, end"));
        }
    }
}
