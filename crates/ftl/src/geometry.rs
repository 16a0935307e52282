//! Flash geometry, operation latencies and cell types (`docs/ftl.md`, "Geometry").
//!
//! A device is described by its logical capacity, page size, pages per block and its
//! physical block count. The physical block count is normally derived from an
//! over-provisioning fraction `op` *relative to the logical capacity* (the convention
//! of paper 000, TS-CLOCK: Kang, Min, Eom, IEEE MASCOTS 2014: "16 GB capacity, 15%
//! over-provisioned space" = 2.4 GB spare):
//! `physical_blocks = ceil(logical_pages * (1 + op) / pages_per_block)`. Every FTL
//! keeps its own small reserve of free blocks inside that count (documented per FTL).
//!
//! Channels x ways only spread operation latencies over parallel units for the time
//! estimate: block `b` sits on parallel unit `b % (channels * ways)`, whose channel is
//! `unit % channels`.

use crate::error::FtlError;
use serde::{Deserialize, Serialize};

/// NAND cell type; fixes the default program/erase-cycle limit (paper 000, Sec. IV-E:
/// SLC 100K, MLC 3K, TLC 1K).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    /// One bit per cell.
    Slc,
    /// Two bits per cell.
    Mlc,
    /// Three bits per cell.
    Tlc,
}

impl CellType {
    /// Program/erase cycles a block endures.
    pub fn pe_limit(self) -> u64 {
        match self {
            CellType::Slc => 100_000,
            CellType::Mlc => 3_000,
            CellType::Tlc => 1_000,
        }
    }
}

/// Latencies of the three flash operations, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Latency {
    /// Page read.
    pub read_ns: u64,
    /// Page program.
    pub program_ns: u64,
    /// Block erase.
    pub erase_ns: u64,
}

/// The shape of a flash device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Geometry {
    /// Bytes per flash page (the mapping unit).
    pub page_size: u32,
    /// Pages per erase block.
    pub pages_per_block: u32,
    /// Logical pages the host sees.
    pub logical_pages: u64,
    /// Physical erase blocks, spare blocks included.
    pub physical_blocks: u32,
    /// Independent channels (1 = one serial flash).
    pub channels: u32,
    /// Ways (dies) per channel.
    pub ways: u32,
}

impl Geometry {
    /// A geometry from a logical capacity in bytes and an over-provisioning fraction
    /// relative to it. The capacity is rounded down to whole pages.
    pub fn with_op(
        logical_bytes: u64,
        op: f64,
        page_size: u32,
        pages_per_block: u32,
    ) -> Result<Geometry, FtlError> {
        if page_size == 0 || pages_per_block == 0 {
            return Err(FtlError::Config(
                "page size and pages per block must be positive".into(),
            ));
        }
        if !(0.0..=10.0).contains(&op) {
            return Err(FtlError::Config(format!(
                "over-provisioning {op} is outside 0..=10 (a fraction of the logical capacity)"
            )));
        }
        let logical_pages = logical_bytes / u64::from(page_size);
        let phys = (logical_pages as f64 * (1.0 + op) / f64::from(pages_per_block)).ceil();
        if phys > f64::from(u32::MAX - 1) {
            return Err(FtlError::Config("too many physical blocks".into()));
        }
        let g = Geometry {
            page_size,
            pages_per_block,
            logical_pages,
            physical_blocks: phys as u32,
            channels: 1,
            ways: 1,
        };
        g.validate()?;
        Ok(g)
    }

    /// Check the sizes fit the simulator's 32-bit page numbers.
    pub fn validate(&self) -> Result<(), FtlError> {
        if self.page_size == 0 || self.pages_per_block == 0 || self.channels == 0 || self.ways == 0
        {
            return Err(FtlError::Config(
                "page size, pages per block, channels and ways must be positive".into(),
            ));
        }
        if self.logical_pages == 0 {
            return Err(FtlError::Config(
                "logical capacity is smaller than one page".into(),
            ));
        }
        if self.physical_pages() >= u64::from(u32::MAX) || self.logical_pages >= u64::from(u32::MAX)
        {
            return Err(FtlError::Config(format!(
                "{} physical pages exceed the simulator's 32-bit page numbers",
                self.physical_pages()
            )));
        }
        Ok(())
    }

    /// Logical erase-block-sized units (the last one may be partial).
    pub fn logical_blocks(&self) -> u64 {
        self.logical_pages.div_ceil(u64::from(self.pages_per_block))
    }

    /// Physical pages.
    pub fn physical_pages(&self) -> u64 {
        u64::from(self.physical_blocks) * u64::from(self.pages_per_block)
    }

    /// Bytes per erase block.
    pub fn block_bytes(&self) -> u64 {
        u64::from(self.page_size) * u64::from(self.pages_per_block)
    }

    /// Logical capacity in bytes.
    pub fn logical_bytes(&self) -> u64 {
        self.logical_pages * u64::from(self.page_size)
    }

    /// Over-provisioning actually realised: (physical - logical) / logical pages.
    pub fn op(&self) -> f64 {
        (self.physical_pages() as f64 - self.logical_pages as f64) / self.logical_pages as f64
    }

    /// The channel block `b` sits on.
    #[inline]
    pub fn channel_of(&self, block: u32) -> usize {
        ((block % (self.channels * self.ways)) % self.channels) as usize
    }
}
