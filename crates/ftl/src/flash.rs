//! The NAND array's bookkeeping shared by every FTL: operation counters, latency sums
//! per channel and per-block erase counts (which only grow; a counter reset only moves
//! the window's baseline).

use crate::geometry::{CellType, Geometry, Latency};
use crate::metrics::{erase_stats, Counters, Metrics};

/// Counters, busy time and wear of one flash array.
#[derive(Clone, Debug)]
pub(crate) struct Flash {
    pub geo: Geometry,
    pub lat: Latency,
    pub cell: CellType,
    pub c: Counters,
    erases: Vec<u32>,
    erase_base: Vec<u32>,
    channel_busy: Vec<u64>,
}

impl Flash {
    pub fn new(geo: Geometry, lat: Latency, cell: CellType) -> Flash {
        let n = geo.physical_blocks as usize;
        Flash {
            geo,
            lat,
            cell,
            c: Counters::default(),
            erases: vec![0; n],
            erase_base: vec![0; n],
            channel_busy: vec![0; geo.channels as usize],
        }
    }

    #[inline]
    fn busy(&mut self, block: u32, ns: u64) {
        self.c.busy_ns += ns;
        if self.channel_busy.len() > 1 {
            let ch = self.geo.channel_of(block);
            self.channel_busy[ch] += ns;
        }
    }

    /// A flash read of one page in `block` for the host.
    #[inline]
    pub fn read_host(&mut self, block: u32) {
        self.c.flash_reads_host += 1;
        self.busy(block, self.lat.read_ns);
    }

    /// A page copy (read + program) from `from` to `to` for GC or a merge.
    #[inline]
    pub fn copy(&mut self, from: u32, to: u32) {
        self.c.flash_reads_gc += 1;
        self.c.programs_gc += 1;
        self.busy(from, self.lat.read_ns);
        self.busy(to, self.lat.program_ns);
    }

    /// `n` page copies from `from` to `to`: what `n` calls of [`Flash::copy`] count, added
    /// at once, for a merge that moves many pages between the same two blocks.
    #[inline]
    pub fn copy_many(&mut self, from: u32, to: u32, n: u64) {
        self.c.flash_reads_gc += n;
        self.c.programs_gc += n;
        self.busy(from, n * self.lat.read_ns);
        self.busy(to, n * self.lat.program_ns);
    }

    /// A program of host data into `block`.
    #[inline]
    pub fn program_host(&mut self, block: u32) {
        self.c.programs_host += 1;
        self.busy(block, self.lat.program_ns);
    }

    /// Erase `block`.
    #[inline]
    pub fn erase(&mut self, block: u32) {
        self.c.erases += 1;
        self.erases[block as usize] += 1;
        self.busy(block, self.lat.erase_ns);
    }

    /// Lifetime erase counts per block.
    pub fn erase_counts(&self) -> &[u32] {
        &self.erases
    }

    /// Start a new measurement window.
    pub fn reset(&mut self) {
        self.c = Counters::default();
        self.erase_base.copy_from_slice(&self.erases);
        self.channel_busy.iter_mut().for_each(|b| *b = 0);
    }

    /// The report of the current window.
    pub fn metrics(&self, ftl: &str) -> Metrics {
        let programs = self.c.programs_host + self.c.programs_gc;
        let waf = if self.c.host_write_pages == 0 {
            0.0
        } else {
            programs as f64 / self.c.host_write_pages as f64
        };
        let channel_busy_ns = if self.channel_busy.len() > 1 {
            self.channel_busy.clone()
        } else {
            vec![self.c.busy_ns]
        };
        Metrics {
            ftl: ftl.to_string(),
            counters: self.c.clone(),
            waf,
            erase: erase_stats(&self.erases, &self.erase_base),
            parallel_busy_ns: channel_busy_ns.iter().copied().max().unwrap_or(0),
            channel_busy_ns,
            pe_limit: self.cell.pe_limit(),
            lifetime: None,
        }
    }
}
