//! Block-level FTL: one physical block per logical block, updated by read-modify-write.
//!
//! Each host request is split at logical-block boundaries and every piece is one unit
//! of work. A piece whose first page lies at or beyond the block's write pointer is
//! programmed in place (NAND programs pages of a block in ascending order; skipped pages
//! stay erased). Otherwise the block is rewritten: a free block receives the new pages
//! from the host and every other valid page as a copy, in page order, and the old
//! block is erased. Resolved ambiguity: the unit of a read-modify-write is the request
//! (one per logical block it touches), not the page, so a whole-block request costs one
//! erase and no copy, while the same data written page by page costs a copy of the
//! rest of the block for each page.

use crate::error::FtlError;
use crate::flash::Flash;
use crate::ftl::{check_range, Ftl};
use crate::geometry::{CellType, Geometry, Latency};
use crate::metrics::{Counters, Metrics};
use crate::table::{FreeBlocks, Table, NIL};

/// The block-level FTL.
#[derive(Clone, Debug)]
pub struct BlockFtl {
    f: Flash,
    np: u32,
    logical_pages: u64,
    /// Data block of each logical block.
    data: Table,
    /// Next programmable page of each physical block.
    wp: Vec<u32>,
    /// Whether each logical page holds data.
    has: Vec<bool>,
    free: FreeBlocks,
}

impl BlockFtl {
    /// An erased device.
    pub fn new(geo: Geometry, lat: Latency, cell: CellType) -> Result<BlockFtl, FtlError> {
        geo.validate()?;
        let lb = geo.logical_blocks();
        if u64::from(geo.physical_blocks) < lb + 1 {
            return Err(FtlError::Config(format!(
                "block-level FTL needs {} physical blocks (one spare), the device has {}",
                lb + 1,
                geo.physical_blocks
            )));
        }
        Ok(BlockFtl {
            f: Flash::new(geo, lat, cell),
            np: geo.pages_per_block,
            logical_pages: geo.logical_pages,
            data: Table::nil(lb as usize),
            wp: vec![0; geo.physical_blocks as usize],
            has: vec![false; geo.logical_pages as usize],
            free: FreeBlocks::all(geo.physical_blocks),
        })
    }

    /// Write pages `a..b` (offsets) of logical block `lbn`.
    fn write_piece(&mut self, lbn: u32, a: u32, b: u32) {
        let np = self.np;
        let base = u64::from(lbn) * u64::from(np);
        let mut d = self.data.get(lbn as usize);
        if d == NIL {
            d = self.free.pop().expect("one free block per logical block");
            self.data.set(lbn as usize, d);
        }
        if a >= self.wp[d as usize] {
            for off in a..b {
                self.has[(base + u64::from(off)) as usize] = true;
                self.f.program_host(d);
            }
            self.wp[d as usize] = b;
            return;
        }
        self.f.c.read_modify_writes += 1;
        let nb = self.free.pop().expect("one spare block");
        let n = (self.logical_pages - base).min(u64::from(np)) as u32;
        let mut last = 0;
        for off in 0..n {
            let lp = (base + u64::from(off)) as usize;
            if (a..b).contains(&off) {
                self.has[lp] = true;
                self.f.program_host(nb);
                last = off + 1;
            } else if self.has[lp] {
                self.f.copy(d, nb);
                last = off + 1;
            }
        }
        self.wp[nb as usize] = last;
        self.f.erase(d);
        self.wp[d as usize] = 0;
        self.free.push(d);
        self.data.set(lbn as usize, nb);
    }
}

impl Ftl for BlockFtl {
    fn write(&mut self, lpn: u64, n: u64) -> Result<(), FtlError> {
        check_range(lpn, n, self.logical_pages)?;
        self.f.c.host_write_pages += n;
        let np = u64::from(self.np);
        let (mut p, end) = (lpn, lpn + n);
        while p < end {
            let lbn = p / np;
            let stop = end.min((lbn + 1) * np);
            self.write_piece(lbn as u32, (p % np) as u32, (stop - lbn * np) as u32);
            p = stop;
        }
        Ok(())
    }

    fn read(&mut self, lpn: u64, n: u64) -> Result<(), FtlError> {
        check_range(lpn, n, self.logical_pages)?;
        self.f.c.host_read_pages += n;
        for p in lpn..lpn + n {
            if self.has[p as usize] {
                let d = self.data.get((p / u64::from(self.np)) as usize);
                self.f.read_host(d);
            } else {
                self.f.c.unwritten_reads += 1;
            }
        }
        Ok(())
    }

    fn trim(&mut self, lpn: u64, n: u64) -> Result<(), FtlError> {
        check_range(lpn, n, self.logical_pages)?;
        self.f.c.host_trim_pages += n;
        self.has[lpn as usize..(lpn + n) as usize].fill(false);
        Ok(())
    }

    fn metrics(&self) -> Metrics {
        self.f.metrics("block")
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
        let np = u64::from(self.np);
        let mut used = vec![false; self.wp.len()];
        for (lbn, d) in self.data.iter().enumerate() {
            if d == NIL {
                if (lbn as u64 * np..((lbn as u64 + 1) * np).min(self.logical_pages))
                    .any(|p| self.has[p as usize])
                {
                    return Err(format!("logical block {lbn} has data but no block"));
                }
                continue;
            }
            if std::mem::replace(&mut used[d as usize], true) {
                return Err(format!("physical block {d} is mapped twice"));
            }
        }
        if self.free.iter().any(|b| used[b as usize]) {
            return Err("a mapped block is on the free list".into());
        }
        Ok(())
    }
}
