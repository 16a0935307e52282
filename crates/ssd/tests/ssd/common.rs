//! Helpers shared by the wafer-ssd integration tests.

use wafer_ftl::Counters;
use wafer_ssd::{FixedFlash, Flash, SsdError};
use wafer_trace::{Op, Request};

pub const MS: u64 = 1_000_000;
pub const US: u64 = 1_000;
pub const PAGE: u64 = 4096;

/// One-page request of `op` on page `lpn` at `t` ns.
pub fn req(t: u64, op: Op, lpn: u64) -> Request {
    pages(t, op, lpn, 1)
}

/// `n`-page request.
pub fn pages(t: u64, op: Op, lpn: u64, n: u64) -> Request {
    Request {
        time_ns: t,
        offset: lpn * PAGE,
        len: (n * PAGE) as u32,
        dev: 0,
        op,
    }
}

/// A flash operation seen by [`Recording`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlashOp {
    Rd(u64),
    Wb(u64),
}

/// Fixed-latency flash that logs every operation (the `RD x` / `WB x` notation of the
/// hand-worked vectors).
pub struct Recording {
    pub inner: FixedFlash,
    pub channels: u32,
    pub log: Vec<FlashOp>,
}

impl Recording {
    pub fn new(read_ns: u64, program_ns: u64, units: u32) -> Recording {
        Recording {
            inner: FixedFlash {
                read_ns,
                program_ns,
                page_size: PAGE,
                logical_pages: 1 << 20,
                units,
            },
            channels: 1,
            log: vec![],
        }
    }
}

impl Flash for Recording {
    fn page_size(&self) -> u64 {
        self.inner.page_size
    }
    fn logical_pages(&self) -> u64 {
        self.inner.logical_pages
    }
    fn units(&self) -> u32 {
        self.inner.units
    }
    fn channels(&self) -> u32 {
        self.channels
    }
    fn read(&mut self, lpn: u64) -> Result<u64, SsdError> {
        self.log.push(FlashOp::Rd(lpn));
        Ok(self.inner.read_ns)
    }
    fn program(&mut self, lpn: u64) -> Result<u64, SsdError> {
        self.log.push(FlashOp::Wb(lpn));
        Ok(self.inner.program_ns)
    }
    fn trim(&mut self, _lpn: u64) -> Result<(), SsdError> {
        Ok(())
    }
    fn ftl_counters(&self) -> Option<Counters> {
        None
    }
}
