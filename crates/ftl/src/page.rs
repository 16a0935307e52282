//! Page-level FTL with garbage collection (paper 000's "page-level FTL": TS-CLOCK, Kang,
//! Min, Eom, IEEE MASCOTS 2014; checked against the analytic WAF of greedy and FIFO
//! cleaning, `docs/ftl.md`, "Analytic check").
//!
//! * Mapping: `l2p` (4 bytes per logical page, the FTL's DRAM table) and `p2l`, the
//!   logical page each physical page was programmed with, or none once its block is
//!   erased (4 bytes per physical page: the page's out-of-band area). A physical page
//!   is valid when `l2p` of its `p2l` entry points back to it, the check a real FTL
//!   makes from the out-of-band address during GC. Superseding or trimming a copy
//!   therefore touches only `l2p` (and the block's valid count): the old copy's `p2l`
//!   entry, at a random address of a multi-GB device, is never written on the host
//!   path. GC pays for the check instead: it prefetches the `l2p` entries of every
//!   programmed page of the victim in one sweep, whose misses overlap, and the valid
//!   ones are the entries it has to rewrite anyway. Both tables hold zero
//!   bytes for "none" (module `table`), so building the FTL allocates them without
//!   writing them and a run pays only for the pages of the tables it touches.
//! * One write frontier shared by host writes and GC copies (the model of the analytic
//!   WAF and of the independent simulation `docs/ftl.md` compares with), or with
//!   `hot_cold` a second frontier that receives only GC copies.
//! * GC runs when a new frontier block is needed and no more than [`GC_RESERVE`] free
//!   blocks remain; it cleans victims until more than that many are free. The reserve
//!   is part of the physical blocks, so the analytic `alpha` is
//!   `(physical_blocks - GC_RESERVE) * pages_per_block / logical_pages`.
//! * Victims: greedy (fewest valid pages; O(1) through doubly-linked lists bucketed by
//!   valid count, with a moving minimum pointer), FIFO (oldest closed block) or
//!   cost-benefit (max `(1-u) * age / (1+u)`, Rosenblum & Ousterhout; a scan over the
//!   closed blocks, O(blocks) per victim).

use crate::error::FtlError;
use crate::flash::Flash;
use crate::ftl::{check_range, Ftl};
use crate::geometry::{CellType, Geometry, Latency};
use crate::metrics::{Counters, Metrics};
use crate::table::{FreeBlocks, Table, NIL};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Free blocks kept back for GC.
pub const GC_RESERVE: u32 = 2;

/// GC victim selection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Victim {
    /// Fewest valid pages.
    #[default]
    Greedy,
    /// Best (1-u)·age/(1+u).
    CostBenefit,
    /// Oldest written block.
    Fifo,
}

/// Options of the page-level FTL.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageConfig {
    /// Victim policy.
    #[serde(default)]
    pub victim: Victim,
    /// Write GC copies to their own frontier (hot/cold separation).
    #[serde(default)]
    pub hot_cold: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Free,
    Open,
    Closed,
}

#[derive(Clone, Copy, Debug)]
struct Frontier {
    block: u32,
    ptr: u32,
}

/// The page-level FTL.
#[derive(Clone, Debug)]
pub struct PageFtl {
    f: Flash,
    cfg: PageConfig,
    np: u32,
    /// `log2(np)` when `np` is a power of two (block of a page by a shift, not a
    /// division on every overwrite), else `u32::MAX`.
    np_shift: u32,
    l2p: Table,
    p2l: Table,
    valid: Vec<u32>,
    state: Vec<State>,
    // Greedy buckets: doubly-linked lists of closed blocks by valid count.
    next: Table,
    prev: Table,
    head: Vec<u32>,
    min_bucket: usize,
    // FIFO order of closed blocks.
    closed: VecDeque<u32>,
    // Cost-benefit: host-write clock at which each block was closed.
    closed_at: Vec<u64>,
    clock: u64,
    free: FreeBlocks,
    host: Frontier,
    gc: Frontier,
}

impl PageFtl {
    /// An empty (fully erased) device.
    pub fn new(
        geo: Geometry,
        lat: Latency,
        cell: CellType,
        cfg: PageConfig,
    ) -> Result<PageFtl, FtlError> {
        geo.validate()?;
        let np = geo.pages_per_block;
        let min_blocks = geo.logical_blocks() + u64::from(GC_RESERVE) + 2;
        if u64::from(geo.physical_blocks) < min_blocks {
            return Err(FtlError::Config(format!(
                "page-level FTL needs at least {min_blocks} physical blocks (logical blocks + \
                 {GC_RESERVE} reserve + 2 frontiers), the device has {}",
                geo.physical_blocks
            )));
        }
        let nb = geo.physical_blocks as usize;
        let full = Frontier {
            block: NIL,
            ptr: np,
        };
        Ok(PageFtl {
            f: Flash::new(geo, lat, cell),
            cfg,
            np,
            np_shift: if np.is_power_of_two() {
                np.trailing_zeros()
            } else {
                u32::MAX
            },
            l2p: Table::nil(geo.logical_pages as usize),
            p2l: Table::nil(geo.physical_pages() as usize),
            valid: vec![0; nb],
            state: vec![State::Free; nb],
            next: Table::nil(nb),
            prev: Table::nil(nb),
            head: vec![NIL; np as usize + 1],
            min_bucket: np as usize,
            closed: VecDeque::new(),
            closed_at: vec![0; nb],
            clock: 0,
            free: FreeBlocks::all(geo.physical_blocks),
            host: full,
            gc: full,
        })
    }

    /// Bytes of mapping table per logical page (the `l2p` entry).
    pub const MAP_BYTES_PER_LOGICAL_PAGE: usize = std::mem::size_of::<u32>();

    #[inline(always)]
    fn bucket_remove(&mut self, b: u32) {
        let (p, n) = (self.prev.get(b as usize), self.next.get(b as usize));
        if p == NIL {
            self.head[self.valid[b as usize] as usize] = n;
        } else {
            self.next.set(p as usize, n);
        }
        if n != NIL {
            self.prev.set(n as usize, p);
        }
    }

    #[inline(always)]
    fn bucket_push(&mut self, b: u32) {
        let v = self.valid[b as usize] as usize;
        let h = self.head[v];
        self.next.set(b as usize, h);
        self.prev.set(b as usize, NIL);
        if h != NIL {
            self.prev.set(h as usize, b);
        }
        self.head[v] = b;
        if v < self.min_bucket {
            self.min_bucket = v;
        }
    }

    /// The block holding physical page `ppn`.
    #[inline]
    fn block_of(&self, ppn: u32) -> u32 {
        if self.np_shift == u32::MAX {
            ppn / self.np
        } else {
            ppn >> self.np_shift
        }
    }

    /// Whether `ppn` holds the valid copy of the logical page it was programmed with.
    #[inline]
    fn is_valid(&self, ppn: u32) -> bool {
        let lpn = self.p2l.get(ppn as usize);
        lpn != NIL && self.l2p.get(lpn as usize) == ppn
    }

    /// Drop the valid copy at `ppn`; the caller has already pointed its `l2p` entry
    /// elsewhere, which is what makes the copy invalid (its `p2l` entry stays).
    #[inline(always)]
    fn invalidate(&mut self, ppn: u32) {
        let b = self.block_of(ppn);
        if self.cfg.victim == Victim::Greedy && self.state[b as usize] == State::Closed {
            self.bucket_remove(b);
            self.valid[b as usize] -= 1;
            self.bucket_push(b);
        } else {
            self.valid[b as usize] -= 1;
        }
    }

    fn close(&mut self, b: u32) {
        self.state[b as usize] = State::Closed;
        match self.cfg.victim {
            Victim::Greedy => self.bucket_push(b),
            Victim::Fifo => self.closed.push_back(b),
            Victim::CostBenefit => self.closed_at[b as usize] = self.clock,
        }
    }

    fn pick_victim(&mut self) -> u32 {
        match self.cfg.victim {
            Victim::Greedy => {
                while self.head[self.min_bucket] == NIL {
                    self.min_bucket += 1;
                }
                let b = self.head[self.min_bucket];
                self.bucket_remove(b);
                b
            }
            Victim::Fifo => self
                .closed
                .pop_front()
                .expect("a closed block exists while the device is short of free blocks"),
            Victim::CostBenefit => {
                let now = self.clock;
                let np = f64::from(self.np);
                let mut best = (f64::NEG_INFINITY, NIL);
                for (b, st) in self.state.iter().enumerate() {
                    if *st == State::Closed {
                        let u = f64::from(self.valid[b]) / np;
                        let age = (now - self.closed_at[b]) as f64 + 1.0;
                        let score = (1.0 - u) * age / (1.0 + u);
                        if score > best.0 {
                            best = (score, b as u32);
                        }
                    }
                }
                best.1
            }
        }
    }

    /// Next free page of the GC frontier (the host frontier without hot/cold
    /// separation) and its block; takes free blocks directly, the reserve guarantees
    /// them.
    #[inline]
    fn gc_page(&mut self) -> (u32, u32) {
        let fr = if self.cfg.hot_cold {
            &mut self.gc
        } else {
            &mut self.host
        };
        if fr.ptr == self.np {
            let old = fr.block;
            let b = self.free.pop().expect("GC reserve guarantees a free block");
            fr.block = b;
            fr.ptr = 0;
            self.state[b as usize] = State::Open;
            if old != NIL {
                self.close(old);
            }
        }
        let fr = if self.cfg.hot_cold {
            &mut self.gc
        } else {
            &mut self.host
        };
        let ppn = fr.block * self.np + fr.ptr;
        fr.ptr += 1;
        (ppn, fr.block)
    }

    /// Clean one victim block: its valid pages are those whose `p2l` entry's `l2p`
    /// entry points back to them.
    fn collect(&mut self) {
        self.f.c.gc_invocations += 1;
        let v = self.pick_victim();
        let base = v as usize * self.np as usize;
        let end = base + self.np as usize;
        // Prefetch the l2p entries of the victim's pages in one sweep: their cache misses
        // overlap, while the validity checks and the stores of the copy loop would take
        // them one at a time (x86 commits stores in program order). Prefetches rather
        // than loads: they retire at once, so the sweep is not held up by a full reorder
        // buffer (BENCHMARKS.md, "FTL": faster on the Intel machine, slower on an AMD one
        // measured before).
        for lpn in self.p2l.entries(base..end) {
            wafer_trace::prefetch::prefetch(self.l2p.raw(), lpn as usize);
        }
        // The victim's valid count says when its last valid page has been copied.
        let mut left = self.valid[v as usize];
        for ppn in base..end {
            if left == 0 {
                break;
            }
            if !self.is_valid(ppn as u32) {
                continue;
            }
            left -= 1;
            let lpn = self.p2l.get(ppn);
            let (dst, db) = self.gc_page();
            self.p2l.set(dst as usize, lpn);
            self.l2p.set(lpn as usize, dst);
            self.valid[db as usize] += 1;
            self.f.copy(v, db);
        }
        self.valid[v as usize] = 0;
        self.p2l.clear(base..end);
        self.f.erase(v);
        self.state[v as usize] = State::Free;
        self.free.push(v);
    }

    /// Next free page of the host frontier, cleaning as needed.
    #[inline]
    fn host_page(&mut self) -> u32 {
        if self.host.ptr == self.np {
            if self.host.block != NIL {
                let b = self.host.block;
                self.host.block = NIL;
                self.close(b);
            }
            while self.free.len() <= GC_RESERVE as usize {
                self.collect();
            }
            // Without hot/cold separation GC copies may have opened a new frontier.
            // A frontier that GC copies filled exactly is closed like any other.
            if self.host.ptr == self.np && self.host.block != NIL {
                let b = self.host.block;
                self.close(b);
            }
            if self.host.ptr == self.np {
                let b = self.free.pop().expect("more free blocks than the reserve");
                self.state[b as usize] = State::Open;
                self.host = Frontier { block: b, ptr: 0 };
            }
        }
        let ppn = self.host.block * self.np + self.host.ptr;
        self.host.ptr += 1;
        ppn
    }

    #[inline]
    fn write_page(&mut self, lpn: u32) {
        let old = self.l2p.get(lpn as usize);
        if old != NIL {
            self.l2p.set(lpn as usize, NIL);
            self.invalidate(old);
        }
        let ppn = self.host_page();
        let b = self.host.block;
        self.p2l.set(ppn as usize, lpn);
        self.l2p.set(lpn as usize, ppn);
        self.valid[b as usize] += 1;
        self.f.program_host(b);
    }
}

impl Ftl for PageFtl {
    fn write(&mut self, lpn: u64, n: u64) -> Result<(), FtlError> {
        check_range(lpn, n, self.f.geo.logical_pages)?;
        self.f.c.host_write_pages += n;
        self.clock += n;
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
            let old = self.l2p.get(p as usize);
            if old != NIL {
                self.l2p.set(p as usize, NIL);
                self.invalidate(old);
            }
        }
        Ok(())
    }

    fn prefetch(&self, lpns: &[u64]) {
        // The l2p entries: the only table at a random address that a host write or
        // read touches (the per-block counts and states are small). Prefetched, as in
        // `collect`.
        for &p in lpns {
            wafer_trace::prefetch::prefetch(self.l2p.raw(), p as usize);
        }
    }

    fn metrics(&self) -> Metrics {
        self.f.metrics("page")
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
            if lpn != NIL && lpn as u64 >= self.f.geo.logical_pages {
                return Err(format!(
                    "physical page {ppn} holds logical page {lpn}, beyond the device"
                ));
            }
            if self.is_valid(ppn as u32) {
                valid[ppn / self.np as usize] += 1;
            }
        }
        if valid != self.valid {
            return Err("per-block valid counts differ from the mapped pages".into());
        }
        let mapped = self.l2p.iter().filter(|&p| p != NIL).count() as u64;
        for (lpn, ppn) in self.l2p.iter().enumerate() {
            if ppn != NIL && self.p2l.get(ppn as usize) != lpn as u32 {
                return Err(format!("logical page {lpn} maps to a page holding another"));
            }
        }
        let total: u64 = valid.iter().map(|&v| u64::from(v)).sum();
        if total != mapped {
            return Err(format!(
                "{total} valid pages but {mapped} mapped logical pages"
            ));
        }
        let open = self.state.iter().filter(|s| **s == State::Open).count();
        if open > 1 + usize::from(self.cfg.hot_cold) {
            return Err(format!("{open} blocks are open for writing"));
        }
        if self.cfg.victim == Victim::Greedy {
            let mut listed = 0usize;
            for (v, &h) in self.head.iter().enumerate() {
                let mut b = h;
                while b != NIL {
                    if self.valid[b as usize] as usize != v
                        || self.state[b as usize] != State::Closed
                    {
                        return Err(format!("block {b} is in the wrong greedy bucket"));
                    }
                    listed += 1;
                    b = self.next.get(b as usize);
                }
            }
            let closed = self.state.iter().filter(|s| **s == State::Closed).count();
            if listed != closed {
                return Err(format!(
                    "{listed} bucketed blocks but {closed} closed blocks"
                ));
            }
        }
        Ok(())
    }
}
