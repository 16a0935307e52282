//! The flash behind the cache: how long each page operation takes.
//!
//! [`FtlFlash`] runs every operation through a wafer-ftl FTL and charges the flash
//! time it caused, read off [`wafer_ftl::Ftl::counters`] before and after the call
//! (`busy_ns`: the host page's own read or program plus every GC / merge read, program
//! and erase it triggered, at the device's latencies). [`FixedFlash`] is the model of
//! wafer's default timing model without an FTL (`docs/ssd.md`, "Device timing"): a
//! constant read and program time.

use crate::error::SsdError;
use wafer_ftl::{AnyFtl, Counters, Device, Ftl};

/// A page-granular flash back end. Durations are in nanoseconds.
pub trait Flash {
    /// Bytes per page (= one cache line).
    fn page_size(&self) -> u64;
    /// Logical pages the host may address.
    fn logical_pages(&self) -> u64;
    /// Independent parallel units (channels x ways).
    fn units(&self) -> u32;
    /// Channels the units are spread over (unit `u` on channel `u mod channels`); they
    /// matter when the device charges a channel transfer time.
    fn channels(&self) -> u32 {
        1
    }
    /// Read one page; returns the flash time it takes.
    fn read(&mut self, lpn: u64) -> Result<u64, SsdError>;
    /// Program one page; returns the flash time, garbage collection included.
    fn program(&mut self, lpn: u64) -> Result<u64, SsdError>;
    /// Discard one page (no flash time).
    fn trim(&mut self, lpn: u64) -> Result<(), SsdError>;
    /// Whether [`Flash::prefetch`] does anything (the device skips working out hints
    /// for a back end that ignores them).
    fn prefetches(&self) -> bool {
        false
    }
    /// Hint that the pages `lpns` are about to be read, programmed or trimmed. Changes
    /// nothing observable; a back end with large tables loads their entries so that the
    /// cache misses of a batch overlap (see [`wafer_ftl::Ftl::prefetch`]).
    fn prefetch(&self, _lpns: &[u64]) {}
    /// The FTL's counters, when there is an FTL.
    fn ftl_counters(&self) -> Option<Counters>;
}

/// A wafer-ftl device: page-level, FAST or block-level FTL with its latencies.
#[derive(Debug)]
pub struct FtlFlash {
    ftl: AnyFtl,
    read_ns: u64,
    units: u32,
    channels: u32,
}

impl FtlFlash {
    /// An erased device built from a profile.
    pub fn new(dev: &Device) -> Result<FtlFlash, SsdError> {
        Ok(FtlFlash::from_ftl(dev.build_ftl()?, dev.latency.read_ns))
    }

    /// Wrap an FTL (for example one aged beforehand); `read_ns` is charged for reads
    /// of pages that hold no data, which the FTL itself does not time.
    pub fn from_ftl(ftl: AnyFtl, read_ns: u64) -> FtlFlash {
        let g = ftl.geometry();
        FtlFlash {
            read_ns,
            units: g.channels * g.ways,
            channels: g.channels,
            ftl,
        }
    }

    /// The FTL.
    pub fn ftl(&self) -> &AnyFtl {
        &self.ftl
    }

    /// The FTL, to reset its counters between measured passes.
    pub fn ftl_mut(&mut self) -> &mut AnyFtl {
        &mut self.ftl
    }
}

impl Flash for FtlFlash {
    fn page_size(&self) -> u64 {
        u64::from(self.ftl.geometry().page_size)
    }
    fn logical_pages(&self) -> u64 {
        self.ftl.geometry().logical_pages
    }
    fn units(&self) -> u32 {
        self.units
    }
    fn channels(&self) -> u32 {
        self.channels
    }
    #[inline]
    fn read(&mut self, lpn: u64) -> Result<u64, SsdError> {
        let (b0, u0) = {
            let c = self.ftl.counters();
            (c.busy_ns, c.unwritten_reads)
        };
        self.ftl.read(lpn, 1)?;
        let c = self.ftl.counters();
        // DiskSim's SSD model reads flash for every host read; a page the FTL holds no
        // data for is charged one page read as well.
        Ok(c.busy_ns - b0 + (c.unwritten_reads - u0) * self.read_ns)
    }
    #[inline]
    fn program(&mut self, lpn: u64) -> Result<u64, SsdError> {
        let b0 = self.ftl.counters().busy_ns;
        self.ftl.write(lpn, 1)?;
        Ok(self.ftl.counters().busy_ns - b0)
    }
    fn trim(&mut self, lpn: u64) -> Result<(), SsdError> {
        Ok(self.ftl.trim(lpn, 1)?)
    }
    fn prefetches(&self) -> bool {
        true
    }
    #[inline]
    fn prefetch(&self, lpns: &[u64]) {
        self.ftl.prefetch(lpns);
    }
    fn ftl_counters(&self) -> Option<Counters> {
        Some(self.ftl.counters().clone())
    }
}

/// Constant page times, no FTL (wafer's default timing model; also the tiny devices of
/// the hand-worked tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedFlash {
    /// Page read time.
    pub read_ns: u64,
    /// Page program time.
    pub program_ns: u64,
    /// Page size in bytes.
    pub page_size: u64,
    /// Logical pages.
    pub logical_pages: u64,
    /// Parallel units.
    pub units: u32,
}

impl FixedFlash {
    /// Paper 004 (Huang et al., "Efficient Cache Design for Solid-State Drives", ACM
    /// Computing Frontiers 2010) Table 1 (Samsung K9: 25 us read, 200 us program),
    /// 4 KiB pages, one unit, `logical_pages` pages.
    pub fn k9(logical_pages: u64) -> FixedFlash {
        FixedFlash {
            read_ns: 25_000,
            program_ns: 200_000,
            page_size: 4096,
            logical_pages,
            units: 1,
        }
    }
}

impl Flash for FixedFlash {
    fn page_size(&self) -> u64 {
        self.page_size
    }
    fn logical_pages(&self) -> u64 {
        self.logical_pages
    }
    fn units(&self) -> u32 {
        self.units
    }
    #[inline]
    fn read(&mut self, _lpn: u64) -> Result<u64, SsdError> {
        Ok(self.read_ns)
    }
    #[inline]
    fn program(&mut self, _lpn: u64) -> Result<u64, SsdError> {
        Ok(self.program_ns)
    }
    fn trim(&mut self, _lpn: u64) -> Result<(), SsdError> {
        Ok(())
    }
    fn ftl_counters(&self) -> Option<Counters> {
        None
    }
}
