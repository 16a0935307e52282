//! Checks shared by the address-pattern generators (uniform, Zipf, sequential,
//! hot/cold), which all take a request count, a footprint cut into pages, a
//! read/write mix and a request-size distribution.

use super::size::SizeDist;
use super::{invalid, Bytes};
use crate::error::Result;

/// The shared parameters of one spec, borrowed for validation.
pub(crate) struct Space<'a> {
    pub kind: &'static str,
    pub requests: u64,
    pub footprint: Bytes,
    pub page_size: u32,
    pub write_ratio: f64,
    pub size: &'a SizeDist,
}

impl Space<'_> {
    /// Every shared parameter in range, and the largest request inside the footprint.
    pub fn validate(&self) -> Result<()> {
        let k = self.kind;
        if self.requests == 0 {
            return Err(invalid(k, "requests", "must be at least 1"));
        }
        if self.page_size < 512 || !self.page_size.is_power_of_two() {
            return Err(invalid(
                k,
                "page_size",
                format!("= {} must be a power of two >= 512", self.page_size),
            ));
        }
        let ps = u64::from(self.page_size);
        if self.footprint.0 < ps || self.footprint.0 % ps != 0 {
            return Err(invalid(
                k,
                "footprint",
                format!(
                    "= {} must be a positive multiple of the page size ({} B)",
                    self.footprint, ps
                ),
            ));
        }
        if !(0.0..=1.0).contains(&self.write_ratio) {
            return Err(invalid(
                k,
                "write_ratio",
                format!("= {} is out of range (expected 0..=1)", self.write_ratio),
            ));
        }
        if u64::from(self.size.max()) > self.footprint.0 {
            return Err(invalid(
                k,
                "size",
                format!(
                    "= {} has requests larger than the footprint ({})",
                    self.size, self.footprint
                ),
            ));
        }
        Ok(())
    }

    /// Footprint in pages.
    pub fn pages(&self) -> u64 {
        self.footprint.0 / u64::from(self.page_size)
    }
}
