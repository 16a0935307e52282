//! The one interface every FTL implements, and [`AnyFtl`], a closed enum over the
//! three kinds so that callers dispatch by `match` instead of a vtable.

use crate::block::BlockFtl;
use crate::error::FtlError;
use crate::fast::FastFtl;
use crate::geometry::Geometry;
use crate::metrics::{Counters, Metrics};
use crate::page::PageFtl;

/// A flash translation layer driven by page-granular host operations.
///
/// Ranges are `n` pages from logical page `lpn`; a range reaching past the logical
/// capacity is refused with [`FtlError::OutOfRange`] before anything is done.
pub trait Ftl {
    /// Host write of `n` pages.
    fn write(&mut self, lpn: u64, n: u64) -> Result<(), FtlError>;
    /// Host read of `n` pages (reads of pages without data are counted, not errors).
    fn read(&mut self, lpn: u64, n: u64) -> Result<(), FtlError>;
    /// Host trim (discard) of `n` pages.
    fn trim(&mut self, lpn: u64, n: u64) -> Result<(), FtlError>;
    /// Hint that the logical pages `lpns` are about to be accessed. Changes nothing
    /// observable; FTLs with a large mapping table load or prefetch the entries, so
    /// that a batch of hints has its cache misses in flight together rather than one
    /// per access (a trace replay passes the first page of each request of a batch).
    /// Out-of-range pages are ignored.
    fn prefetch(&self, _lpns: &[u64]) {}
    /// The report of the current measurement window.
    fn metrics(&self) -> Metrics;
    /// The current window's raw counters, without building a report: a cheap view for
    /// callers that take counter deltas around every call (the timed SSD of wafer-ssd
    /// charges each host operation the flash time, GC included, that it caused).
    fn counters(&self) -> &Counters;
    /// Start a new measurement window (counters to zero; wear is kept).
    fn reset_counters(&mut self);
    /// The device shape.
    fn geometry(&self) -> &Geometry;
    /// Lifetime erase count of every physical block.
    fn erase_counts(&self) -> &[u32];
    /// Check the internal mapping invariants (valid pages per block equal the mapped
    /// logical pages stored there; no logical page is valid in two places). Costs a
    /// full scan; meant for tests.
    fn check_invariants(&self) -> Result<(), String>;
}

/// Check a range against the capacity.
#[inline]
pub(crate) fn check_range(lpn: u64, n: u64, logical_pages: u64) -> Result<(), FtlError> {
    match lpn.checked_add(n) {
        Some(end) if end <= logical_pages => Ok(()),
        _ => Err(FtlError::OutOfRange {
            lpn: lpn.max(logical_pages),
            logical_pages,
        }),
    }
}

/// Any of wafer's FTLs.
#[derive(Clone, Debug)]
pub enum AnyFtl {
    /// Page-level mapping with garbage collection.
    Page(PageFtl),
    /// FAST hybrid log-block FTL.
    Fast(FastFtl),
    /// Block-level mapping with read-modify-write.
    Block(BlockFtl),
}

impl AnyFtl {
    /// Which FTL this is.
    pub fn kind(&self) -> crate::device::FtlKind {
        use crate::device::FtlKind;
        match self {
            AnyFtl::Page(_) => FtlKind::Page,
            AnyFtl::Fast(_) => FtlKind::Fast,
            AnyFtl::Block(_) => FtlKind::Block,
        }
    }
}

macro_rules! each {
    ($self:ident, $f:ident => $e:expr) => {
        match $self {
            AnyFtl::Page($f) => $e,
            AnyFtl::Fast($f) => $e,
            AnyFtl::Block($f) => $e,
        }
    };
}

impl Ftl for AnyFtl {
    #[inline]
    fn write(&mut self, lpn: u64, n: u64) -> Result<(), FtlError> {
        each!(self, f => f.write(lpn, n))
    }
    #[inline]
    fn read(&mut self, lpn: u64, n: u64) -> Result<(), FtlError> {
        each!(self, f => f.read(lpn, n))
    }
    #[inline]
    fn trim(&mut self, lpn: u64, n: u64) -> Result<(), FtlError> {
        each!(self, f => f.trim(lpn, n))
    }
    #[inline]
    fn prefetch(&self, lpns: &[u64]) {
        each!(self, f => f.prefetch(lpns))
    }
    fn metrics(&self) -> Metrics {
        each!(self, f => f.metrics())
    }
    #[inline]
    fn counters(&self) -> &Counters {
        each!(self, f => f.counters())
    }
    fn reset_counters(&mut self) {
        each!(self, f => f.reset_counters())
    }
    fn geometry(&self) -> &Geometry {
        each!(self, f => f.geometry())
    }
    fn erase_counts(&self) -> &[u32] {
        each!(self, f => f.erase_counts())
    }
    fn check_invariants(&self) -> Result<(), String> {
        each!(self, f => f.check_invariants())
    }
}
