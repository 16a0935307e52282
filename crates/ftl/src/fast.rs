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

use crate::error::FtlError;
use crate::flash::Flash;
use crate::ftl::{check_range, touch, Ftl};
use crate::geometry::{CellType, Geometry, Latency};
use crate::metrics::{Counters, Metrics};
use crate::table::{FreeBlocks, Table, NIL};
use std::collections::VecDeque;

/// The FAST FTL.
#[derive(Clone, Debug)]
pub struct FastFtl {
    f: Flash,
    np: u32,
    logical_pages: u32,
    /// Newest copy of each logical page, or NIL.
    l2p: Table,
    /// Logical page programmed into each physical page (NIL = erased).
    p2l: Table,
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
        Ok(FastFtl {
            f: Flash::new(geo, lat, cell),
            np: geo.pages_per_block,
            logical_pages: geo.logical_pages as u32,
            l2p: Table::nil(geo.logical_pages as usize),
            p2l: Table::nil(geo.physical_pages() as usize),
            valid: vec![0; geo.physical_blocks as usize],
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

    /// Bytes of mapping state per logical page: `l2p` (4 bytes; it subsumes the block
    /// map and the log page map) plus the block map's share.
    pub fn map_bytes_per_logical_page(&self) -> f64 {
        4.0 + 4.0 / f64::from(self.np)
    }

    #[inline]
    fn pop_free(&mut self) -> u32 {
        self.free
            .pop()
            .expect("FAST block accounting keeps one free block for merges")
    }

    #[inline]
    fn drop_copy(&mut self, lpn: u32) {
        let old = self.l2p.get(lpn as usize);
        if old != NIL {
            self.valid[(old / self.np) as usize] -= 1;
            self.l2p.set(lpn as usize, NIL);
        }
    }

    #[inline]
    fn place(&mut self, lpn: u32, ppn: u32) {
        self.p2l.set(ppn as usize, lpn);
        self.l2p.set(lpn as usize, ppn);
        self.valid[(ppn / self.np) as usize] += 1;
    }

    /// Copy the newest version of `lpn` (if any) to `dst`.
    #[inline]
    fn copy_to(&mut self, lpn: u32, dst: u32) {
        let src = self.l2p.get(lpn as usize);
        if src != NIL {
            self.valid[(src / self.np) as usize] -= 1;
            self.place(lpn, dst);
            self.f.copy(src / self.np, dst / self.np);
        }
    }

    fn erase(&mut self, b: u32) {
        debug_assert_eq!(self.valid[b as usize], 0, "erasing a block with valid data");
        let base = (b * self.np) as usize;
        self.p2l.clear(base..base + self.np as usize);
        self.f.erase(b);
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
        if k >= n {
            self.f.c.switch_merges += 1;
        } else {
            self.f.c.partial_merges += 1;
            for off in k..n {
                self.copy_to(lbn * self.np + off, s * self.np + off);
            }
        }
        let old = self.data.get(lbn as usize);
        if old != NIL {
            self.erase(old);
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
        for off in 0..self.pages_of(lbn) {
            self.copy_to(lbn * self.np + off, nb * self.np + off);
        }
        let old = self.data.get(lbn as usize);
        if old != NIL {
            self.erase(old);
            self.free.push(old);
        }
        self.data.set(lbn as usize, nb);
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
                let base = v * self.np;
                for off in 0..self.np {
                    if self.valid[v as usize] == 0 {
                        break;
                    }
                    let lpn = self.p2l.get((base + off) as usize);
                    if lpn != NIL && self.l2p.get(lpn as usize) == base + off {
                        self.full_merge(lpn / self.np);
                    }
                }
                self.erase(v);
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
            let ppn = self.sw_block * self.np + off;
            self.place(lpn, ppn);
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
            let ppn = d * self.np + off;
            if self.p2l.get(ppn as usize) == NIL {
                self.drop_copy(lpn);
                self.place(lpn, ppn);
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
            let ppn = self.l2p.get(p as usize);
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

    fn prefetch(&self, lpns: &[u64]) {
        touch(self.l2p.raw(), lpns);
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
        let mut valid = vec![0u32; self.valid.len()];
        for (ppn, lpn) in self.p2l.iter().enumerate() {
            if lpn != NIL && self.l2p.get(lpn as usize) == ppn as u32 {
                valid[ppn / self.np as usize] += 1;
            }
        }
        if valid != self.valid {
            return Err("per-block valid counts differ from the mapped pages".into());
        }
        let mut mapped = 0u64;
        for (lpn, ppn) in self.l2p.iter().enumerate() {
            if ppn == NIL {
                continue;
            }
            mapped += 1;
            if self.p2l.get(ppn as usize) != lpn as u32 {
                return Err(format!("logical page {lpn} maps to a page holding another"));
            }
            let b = ppn / self.np;
            let lbn = lpn as u32 / self.np;
            let off = lpn as u32 % self.np;
            let in_data =
                self.data.get(lbn as usize) == b || (b == self.sw_block && lbn == self.sw_lbn);
            if in_data && ppn % self.np != off {
                return Err(format!(
                    "logical page {lpn} is at the wrong offset of its block"
                ));
            }
            if !in_data && !self.rw.contains(&b) {
                return Err(format!(
                    "logical page {lpn} lives in a block that is no log of it"
                ));
            }
        }
        let total: u64 = valid.iter().map(|&v| u64::from(v)).sum();
        if total != mapped {
            return Err(format!(
                "{total} valid pages but {mapped} mapped logical pages"
            ));
        }
        if self.sw_block != NIL && self.sw_next > 0 {
            for off in 0..self.sw_next {
                let ppn = self.sw_block * self.np + off;
                let lpn = self.p2l.get(ppn as usize);
                if lpn != NIL && lpn != self.sw_lbn * self.np + off {
                    return Err("SW block holds a page out of order".into());
                }
            }
        }
        Ok(())
    }
}
