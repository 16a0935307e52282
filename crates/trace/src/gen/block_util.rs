//! Block utilization (paper 000, TS-CLOCK: D. H. Kang, C. Min, Y. I. Eom, "An Efficient
//! Buffer Replacement Algorithm for NAND Flash Storage Devices", IEEE MASCOTS 2014;
//! Sec. II-B, the synthetic traces behind Fig. 1):
//! "we randomly select x% of pages in a randomly selected block and then issue write
//! operations for the selected pages by the sector number". Repeat until the budget
//! is spent.
//!
//! * The block is uniform over the erase blocks of the I/O range
//!   `[range_start, range_start + range)` (both block-aligned).
//! * Exactly `k = round(ppb * utilization / 100)` distinct pages of it are chosen,
//!   every k-subset equally likely, by selection sampling (Knuth, TAOCP vol. 2,
//!   3.4.2, Algorithm S): page `i` is taken with probability
//!   `(k - taken) / (ppb - i)`. Pages come out in ascending order and memory is O(1);
//!   no random number is used once the outcome is certain (so 100% draws none).
//! * Each chosen page is one write request of `page_size` bytes; with `coalesce`,
//!   runs of consecutive chosen pages become one request.
//! * The budget is `bytes` written and/or `requests`, whichever ends first
//!   (1 GiB of writes when neither is given); the last block may be cut short.
//!
//! Paper 000 uses a 16 GB device, 4 MB blocks of 4 KB pages (ppb = 1024), x = 25, 50,
//! 75, 100% and I/O ranges of 16 GB and 1 GB; `docs/ftl.md` ("`wafer ftl sweep`")
//! discusses which FTL settings reproduce its WAF figures.

use super::arrival::Arrival;
use super::stream::{GenRng, Pattern, Stream};
use super::{invalid, Bytes};
use crate::error::Result;
use crate::reader::RequestReader;
use crate::request::Op;
use rand::Rng;
use serde::{Deserialize, Serialize};

const KIND: &str = "block-utilization";

/// Parameters of the `block-utilization` generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BlockUtilParams {
    /// Random seed.
    pub seed: u64,
    /// Flash page size (a power of two >= 512).
    pub page_size: u32,
    /// Erase block size (a multiple of the page size).
    pub block_size: Bytes,
    /// Percentage x of each chosen block's pages that are written, in (0, 100].
    pub utilization: f64,
    /// Size of the I/O range blocks are chosen from (a multiple of the block size).
    pub range: Bytes,
    /// First byte of the I/O range (block-aligned).
    pub range_start: Bytes,
    /// Stop after this many requests.
    pub requests: Option<u64>,
    /// Stop after this many bytes written (a multiple of the page size).
    pub bytes: Option<Bytes>,
    /// Merge runs of consecutive chosen pages into one request.
    pub coalesce: bool,
    /// Arrival process.
    pub arrival: Arrival,
}

impl Default for BlockUtilParams {
    fn default() -> Self {
        BlockUtilParams {
            seed: 1,
            page_size: 4096,
            block_size: Bytes(4 << 20),
            utilization: 25.0,
            range: Bytes(16 << 30),
            range_start: Bytes(0),
            requests: None,
            bytes: None,
            coalesce: false,
            arrival: Arrival::None,
        }
    }
}

/// Budget when neither `requests` nor `bytes` is given.
const DEFAULT_BYTES: u64 = 1 << 30;

impl BlockUtilParams {
    /// Pages per erase block.
    pub fn pages_per_block(&self) -> u64 {
        self.block_size.0 / u64::from(self.page_size.max(1))
    }

    /// Pages written per chosen block: `round(ppb * utilization / 100)`.
    pub fn pages_per_visit(&self) -> u64 {
        (self.pages_per_block() as f64 * self.utilization / 100.0).round() as u64
    }

    fn budget_pages(&self) -> u64 {
        match (self.requests, self.bytes) {
            (_, Some(b)) => b.0 / u64::from(self.page_size),
            (Some(_), None) => u64::MAX,
            (None, None) => DEFAULT_BYTES / u64::from(self.page_size),
        }
    }

    /// Check every parameter against its range.
    pub fn validate(&self) -> Result<()> {
        let ps = u64::from(self.page_size);
        if self.page_size < 512 || !self.page_size.is_power_of_two() {
            return Err(invalid(
                KIND,
                "page_size",
                format!("= {} must be a power of two >= 512", self.page_size),
            ));
        }
        let bs = self.block_size.0;
        if bs < ps || bs % ps != 0 {
            return Err(invalid(
                KIND,
                "block_size",
                format!(
                    "= {} must be a positive multiple of the page size ({ps} B)",
                    self.block_size
                ),
            ));
        }
        if !(self.utilization > 0.0 && self.utilization <= 100.0) {
            return Err(invalid(
                KIND,
                "utilization",
                format!(
                    "= {} is out of range (expected a percentage in (0, 100])",
                    self.utilization
                ),
            ));
        }
        if self.pages_per_visit() == 0 {
            return Err(invalid(
                KIND,
                "utilization",
                format!(
                    "= {}% of {} pages per block rounds to 0 pages",
                    self.utilization,
                    self.pages_per_block()
                ),
            ));
        }
        if self.range.0 < bs || self.range.0 % bs != 0 {
            return Err(invalid(
                KIND,
                "range",
                format!(
                    "= {} must be a positive multiple of the block size ({})",
                    self.range, self.block_size
                ),
            ));
        }
        if self.range_start.0 % bs != 0 {
            return Err(invalid(
                KIND,
                "range_start",
                format!(
                    "= {} must be a multiple of the block size ({})",
                    self.range_start, self.block_size
                ),
            ));
        }
        if self.requests == Some(0) {
            return Err(invalid(KIND, "requests", "must be at least 1"));
        }
        if let Some(b) = self.bytes {
            if b.0 < ps || b.0 % ps != 0 {
                return Err(invalid(
                    KIND,
                    "bytes",
                    format!("= {b} must be a positive multiple of the page size ({ps} B)"),
                ));
            }
        }
        Ok(())
    }

    /// Validate and open as a streaming reader.
    pub fn open(&self, label: String) -> Result<Box<dyn RequestReader>> {
        self.validate()?;
        let ps = u64::from(self.page_size);
        let budget = self.budget_pages();
        let requests = self.requests.unwrap_or(u64::MAX);
        let count = (!self.coalesce).then(|| requests.min(budget));
        let pattern = BlockUtil {
            ppb: self.pages_per_block(),
            k: self.pages_per_visit(),
            first_block: self.range_start.0 / self.block_size.0,
            blocks: self.range.0 / self.block_size.0,
            page_size: ps,
            coalesce: self.coalesce,
            budget,
            block: 0,
            next: 0,
            left: 0,
        };
        Ok(Box::new(Stream::new(
            label,
            pattern,
            self.seed,
            self.arrival,
            requests,
            count,
        )?))
    }
}

struct BlockUtil {
    ppb: u64,
    k: u64,
    first_block: u64,
    blocks: u64,
    page_size: u64,
    coalesce: bool,
    /// Pages still to write.
    budget: u64,
    /// Current block (absolute number).
    block: u64,
    /// Next page index of the block to consider.
    next: u64,
    /// Pages still to choose in the current block.
    left: u64,
}

impl BlockUtil {
    /// Algorithm S step: whether page `next` is chosen (advances `next`).
    #[inline]
    fn take(&mut self, rng: &mut GenRng) -> bool {
        let remaining = self.ppb - self.next;
        let chosen = self.left == remaining || rng.gen_range(0..remaining) < self.left;
        self.next += 1;
        if chosen {
            self.left -= 1;
        }
        chosen
    }
}

impl Pattern for BlockUtil {
    #[inline]
    fn next(&mut self, rng: &mut GenRng) -> Option<(Op, u64, u32)> {
        if self.budget == 0 {
            return None;
        }
        if self.left == 0 {
            self.block = self.first_block + rng.gen_range(0..self.blocks);
            self.next = 0;
            self.left = self.k;
        }
        while !self.take(rng) {}
        let first = self.block * self.ppb + self.next - 1;
        let mut pages = 1u64;
        self.budget -= 1;
        // `left > 0` guarantees `next < ppb`.
        while self.coalesce
            && self.budget > 0
            && self.left > 0
            && pages < u64::from(u32::MAX) / self.page_size
        {
            if !self.take(rng) {
                break;
            }
            pages += 1;
            self.budget -= 1;
        }
        Some((
            Op::Write,
            first * self.page_size,
            (pages * self.page_size) as u32,
        ))
    }
}
