//! Device profiles: named built-ins and custom devices from TOML.
//!
//! Built-ins (capacities in binary units, as paper 000 writes "16 GB" for 2^34 bytes):
//!
//! | name | FTL | capacity | page | block | OP | cell | read / program / erase | FAST log blocks |
//! |---|---|---|---|---|---|---|---|---|
//! | `microsd-16g` | FAST | 16 GiB | 4 KiB | 4 MiB | 15% | MLC | 50 us / 600 us / 3 ms | 4 RW + 1 SW |
//! | `page-16g` | page | 16 GiB | 4 KiB | 24 MiB | 15% | MLC | 50 us / 600 us / 3 ms | - |
//! | `ssd-120g` | page | 120 GiB | 4 KiB | 24 MiB | 15% | TLC | 75 us / 1.5 ms / 5 ms | - |
//! | `slc-paper002` | page | 1 GiB | 2 KiB | 128 KiB | 15% | SLC | 25 us / 200 us / 1.5 ms | - |
//! | `samsung-k9` | page | 8 GiB | 4 KiB | 256 KiB | 15% | SLC | 25 us / 200 us / 1.5 ms | - |
//!
//! `microsd-16g` and `page-16g` are the two devices of paper 000's FTL simulator
//! (TS-CLOCK: D. H. Kang, C. Min, Y. I. Eom, "An Efficient Buffer Replacement Algorithm
//! for NAND Flash Storage Devices", IEEE MASCOTS 2014, Sec. IV-E: "For FAST FTL, it is
//! configured as typical microSD cards: 16 GB capacity, 15% over-provisioned space,
//! 4 KB page, and 4 MB block. For page-level FTL, its block size is configured to 24 MB
//! and the other parameters are the same as FAST FTL"). `ssd-120g` is the real SSD of
//! its Table I (Storage-C: Samsung, 120 GB, 24 MB erase block, TLC), which the paper
//! measured, not simulated; it is kept for studies at that capacity.
//!
//! FAST's log blocks: a card keeps the page map of its log blocks in controller SRAM,
//! so memory-poor cards keep a handful (S.-W. Lee et al., "A Log Buffer-Based Flash
//! Translation Layer Using Fully-Associative Sector Translation", ACM TECS 6(3), 2007:
//! the log buffer is a small fixed set of blocks, one sequential and the rest random).
//! Neither paper 000 nor Table I's vendors give the number. Measurements of real SD
//! cards count the erase blocks (allocation units) a card keeps open for writing
//! before it must merge: 1 to at least 5 (A. Bergmann, post to the OLPC devel mailing
//! list, 12 March 2011: SanDisk cards "can write to at least 5 erase blocks before
//! getting into garbage collection", Kingston cards to one at a time; the README of his
//! flashbench tool, Linaro 2011: its example card with 4 MiB units keeps 2). `microsd-16g` takes the top of
//! that range, 5 open blocks: FAST's 1 SW + 4 RW log blocks (fewer log blocks would
//! make write order matter more, so the top is the cautious choice for write-order
//! claims). Every FAST result names the count (`rw_log_blocks`); the sensitivity to it
//! is a parameter sweep away. The rest of the spare area is the pool merges draw free
//! blocks from. With every spare block as a log block (a TOML device without
//! `rw_log_blocks`), FAST behaves like a page-level FTL with a huge
//! spare area: random log pages are reclaimed at the same cost whatever follows.
//!
//! ```toml
//! name = "my-card"
//! ftl = "fast"             # page | fast | block
//! capacity = "16GiB"
//! op = 0.15                # or: physical_blocks = 4710
//! page_size = "4KiB"
//! block_size = "4MiB"      # or: pages_per_block = 1024
//! cell = "mlc"             # slc | mlc | tlc
//! read = "50us"           # durations carry their unit (ns, us, ms, s);
//! program = "600us"        # the older read_us = 50.0 (a number of microseconds)
//! erase = "3ms"            # is read too
//! channels = 1             # optional, with ways, for the parallel time estimate
//! ways = 1
//! victim = "greedy"        # page FTL: greedy | cost-benefit | fifo
//! hot_cold = false         # page FTL: separate frontier for GC copies
//! rw_log_blocks = 16       # FAST: RW log blocks (default: every spare block)
//! ```

use crate::block::BlockFtl;
use crate::error::FtlError;
use crate::fast::FastFtl;
use crate::ftl::AnyFtl;
use crate::geometry::{CellType, Geometry, Latency};
use crate::page::{PageConfig, PageFtl, Victim};
use serde::{Deserialize, Serialize};
use std::path::Path;
use wafer_trace::units::parse_size;

/// The three FTL kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FtlKind {
    /// Page-level mapping with GC.
    Page,
    /// FAST hybrid log-block mapping.
    Fast,
    /// Block-level mapping with read-modify-write.
    Block,
}

impl FtlKind {
    /// Parse `page`, `fast` or `block`.
    pub fn from_name(s: &str) -> Result<FtlKind, FtlError> {
        match s.to_ascii_lowercase().as_str() {
            "page" | "page-level" => Ok(FtlKind::Page),
            "fast" => Ok(FtlKind::Fast),
            "block" | "block-level" => Ok(FtlKind::Block),
            _ => Err(FtlError::Config(format!(
                "unknown FTL `{s}` (expected page, fast or block)"
            ))),
        }
    }
}

/// A complete device description.
///
/// Its serde form is the canonical description a run records (and reads back to build
/// the device); a device file is read by [`Device::from_toml_file`], not by it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Device {
    /// Profile name.
    pub name: String,
    /// FTL kind.
    pub ftl: FtlKind,
    /// Shape.
    pub geometry: Geometry,
    /// Latencies.
    pub latency: Latency,
    /// Cell type (P/E limit).
    pub cell: CellType,
    /// Page-level FTL options.
    pub page: PageConfig,
    /// FAST RW log blocks (`None` = all spare blocks).
    pub rw_log_blocks: Option<u32>,
}

/// Names of the built-in profiles.
pub const PROFILES: [&str; 5] = [
    "microsd-16g",
    "page-16g",
    "ssd-120g",
    "slc-paper002",
    "samsung-k9",
];

/// RW log blocks of the `microsd-16g` card (module docs).
pub const MICROSD_RW_LOG_BLOCKS: u32 = 4;

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

fn lat(read_us: u64, program_us: u64, erase_us: u64) -> Latency {
    Latency {
        read_ns: read_us * 1000,
        program_ns: program_us * 1000,
        erase_ns: erase_us * 1000,
    }
}

impl Device {
    /// A device from its parts with default FTL options.
    pub fn new(
        name: &str,
        ftl: FtlKind,
        geometry: Geometry,
        latency: Latency,
        cell: CellType,
    ) -> Device {
        Device {
            name: name.to_string(),
            ftl,
            geometry,
            latency,
            cell,
            page: PageConfig::default(),
            rw_log_blocks: None,
        }
    }

    /// A built-in profile by name.
    pub fn from_profile(name: &str) -> Result<Device, FtlError> {
        let (ftl, cap, page, block, cell, l) = match name {
            "microsd-16g" => (
                FtlKind::Fast,
                16 * GIB,
                4 * KIB,
                4 * MIB,
                CellType::Mlc,
                lat(50, 600, 3000),
            ),
            "page-16g" => (
                FtlKind::Page,
                16 * GIB,
                4 * KIB,
                24 * MIB,
                CellType::Mlc,
                lat(50, 600, 3000),
            ),
            "ssd-120g" => (
                FtlKind::Page,
                120 * GIB,
                4 * KIB,
                24 * MIB,
                CellType::Tlc,
                lat(75, 1500, 5000),
            ),
            "slc-paper002" => (
                FtlKind::Page,
                GIB,
                2 * KIB,
                128 * KIB,
                CellType::Slc,
                lat(25, 200, 1500),
            ),
            "samsung-k9" => (
                FtlKind::Page,
                8 * GIB,
                4 * KIB,
                256 * KIB,
                CellType::Slc,
                lat(25, 200, 1500),
            ),
            _ => {
                return Err(FtlError::Config(format!(
                    "unknown device `{name}` (built-in: {}; or give a .toml file){}",
                    PROFILES.join(", "),
                    wafer_trace::suggest::hint(name, PROFILES.iter().copied())
                )))
            }
        };
        let geo = Geometry::with_op(cap, 0.15, page as u32, (block / page) as u32)?;
        let mut d = Device::new(name, ftl, geo, l, cell);
        if ftl == FtlKind::Fast {
            d.rw_log_blocks = Some(MICROSD_RW_LOG_BLOCKS);
        }
        Ok(d)
    }

    /// A profile name, optionally with parameters (`microsd-16g:rw_log_blocks=1`, the
    /// way policies take theirs), or a path to a TOML device file (anything ending in
    /// `.toml`). The one parameter is `rw_log_blocks` (FAST): a sensitivity study
    /// varies it without a file per value.
    pub fn resolve(spec: &str) -> Result<Device, FtlError> {
        if spec.ends_with(".toml") {
            return Device::from_toml_file(Path::new(spec));
        }
        let Some((name, params)) = spec.split_once(':') else {
            return Device::from_profile(spec);
        };
        let mut d = Device::from_profile(name)?;
        let bad = |why: String| FtlError::Config(format!("device `{spec}`: {why}"));
        for kv in params.split(',') {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| bad(format!("`{kv}` is not key=value")))?;
            match k.trim() {
                "rw_log_blocks" if d.ftl == FtlKind::Fast => {
                    let n: u32 = v.trim().parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                        bad(format!("rw_log_blocks `{v}` is not a positive number"))
                    })?;
                    d.rw_log_blocks = Some(n);
                }
                "rw_log_blocks" => {
                    return Err(bad("rw_log_blocks applies to a FAST device".into()))
                }
                other => {
                    return Err(bad(format!(
                        "unknown device parameter `{other}` (expected rw_log_blocks)"
                    )))
                }
            }
        }
        d.name = spec.to_string();
        Ok(d)
    }

    /// Read a TOML device file.
    pub fn from_toml_file(path: &Path) -> Result<Device, FtlError> {
        let text = std::fs::read_to_string(path).map_err(|e| FtlError::DeviceFile {
            path: path.to_path_buf(),
            msg: e.to_string(),
        })?;
        Device::from_toml_str(&text).map_err(|e| FtlError::DeviceFile {
            path: path.to_path_buf(),
            msg: e,
        })
    }

    /// Parse a TOML device description (see the module docs).
    pub fn from_toml_str(text: &str) -> Result<Device, String> {
        let raw: RawDevice = toml::from_str(text).map_err(|e| {
            // One line: "line N: message" (toml's own rendering spans several lines).
            let msg = e.message().trim().replace('\n', " ");
            match e.span() {
                Some(span) => {
                    let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                    format!("line {line}: {msg}")
                }
                None => msg,
            }
        })?;
        raw.build()
    }

    /// Build the FTL this device runs, erased.
    pub fn build_ftl(&self) -> Result<AnyFtl, FtlError> {
        let (g, l, c) = (self.geometry, self.latency, self.cell);
        Ok(match self.ftl {
            FtlKind::Page => AnyFtl::Page(PageFtl::new(g, l, c, self.page)?),
            FtlKind::Fast => AnyFtl::Fast(FastFtl::new(g, l, c, self.rw_log_blocks)?),
            FtlKind::Block => AnyFtl::Block(BlockFtl::new(g, l, c)?),
        })
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDevice {
    name: Option<String>,
    ftl: String,
    capacity: String,
    op: Option<f64>,
    physical_blocks: Option<u32>,
    page_size: String,
    block_size: Option<String>,
    pages_per_block: Option<u32>,
    cell: CellType,
    read: Option<String>,
    program: Option<String>,
    erase: Option<String>,
    read_us: Option<f64>,
    program_us: Option<f64>,
    erase_us: Option<f64>,
    channels: Option<u32>,
    ways: Option<u32>,
    victim: Option<Victim>,
    hot_cold: Option<bool>,
    rw_log_blocks: Option<u32>,
}

impl RawDevice {
    fn build(self) -> Result<Device, String> {
        let ftl = FtlKind::from_name(&self.ftl).map_err(|e| e.to_string())?;
        let size = |s: &str, what: &str| parse_size(s).map_err(|e| format!("{what}: {e}"));
        let capacity = size(&self.capacity, "capacity")?;
        let page_size = size(&self.page_size, "page_size")?;
        if page_size == 0 || page_size > u64::from(u32::MAX) {
            return Err(format!("page_size {page_size} is out of range"));
        }
        let ppb = match (self.pages_per_block, &self.block_size) {
            (Some(n), None) => u64::from(n),
            (None, Some(b)) => {
                let b = size(b, "block_size")?;
                if b % page_size != 0 {
                    return Err("block_size must be a multiple of page_size".into());
                }
                b / page_size
            }
            _ => return Err("give exactly one of block_size and pages_per_block".into()),
        };
        if ppb == 0 || ppb > u64::from(u32::MAX) {
            return Err(format!("{ppb} pages per block is out of range"));
        }
        let mut geo = match (self.op, self.physical_blocks) {
            (Some(op), None) => Geometry::with_op(capacity, op, page_size as u32, ppb as u32)
                .map_err(|e| e.to_string())?,
            (None, Some(pb)) => Geometry {
                page_size: page_size as u32,
                pages_per_block: ppb as u32,
                logical_pages: capacity / page_size,
                physical_blocks: pb,
                channels: 1,
                ways: 1,
            },
            _ => return Err("give exactly one of op and physical_blocks".into()),
        };
        geo.channels = self.channels.unwrap_or(1);
        geo.ways = self.ways.unwrap_or(1);
        geo.validate().map_err(|e| e.to_string())?;
        // A latency: `read = "50us"`, or the older `read_us = 50.0`, never both.
        let time = |given: Option<&str>, us: Option<f64>, what: &str| match (given, us) {
            (Some(t), None) => wafer_trace::units::parse_duration(t)
                .map(|ns| ns.round() as u64)
                .map_err(|e| format!("{what}: {e}")),
            (None, Some(v)) if v.is_finite() && v >= 0.0 => Ok((v * 1000.0).round() as u64),
            (None, Some(_)) => Err(format!(
                "{what}_us must be a non-negative number of microseconds"
            )),
            (None, None) => Err(format!(
                "{what} is missing (a duration such as {what} = \"50us\")"
            )),
            (Some(_), Some(_)) => Err(format!("give {what} or {what}_us, not both")),
        };
        let latency = Latency {
            read_ns: time(self.read.as_deref(), self.read_us, "read")?,
            program_ns: time(self.program.as_deref(), self.program_us, "program")?,
            erase_ns: time(self.erase.as_deref(), self.erase_us, "erase")?,
        };
        let mut d = Device::new(
            self.name.as_deref().unwrap_or("custom"),
            ftl,
            geo,
            latency,
            self.cell,
        );
        d.page = PageConfig {
            victim: self.victim.unwrap_or_default(),
            hot_cold: self.hot_cold.unwrap_or(false),
        };
        d.rw_log_blocks = self.rw_log_blocks;
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_takes_its_log_blocks_as_a_parameter() {
        let d = Device::resolve("microsd-16g:rw_log_blocks=1").unwrap();
        assert_eq!(d.rw_log_blocks, Some(1));
        assert_eq!(d.name, "microsd-16g:rw_log_blocks=1");
        let card = Device::from_profile("microsd-16g").unwrap();
        assert_eq!(d.geometry, card.geometry);
        for (spec, why) in [
            (
                "microsd-16g:rw_log_blocks=0",
                "rw_log_blocks `0` is not a positive number",
            ),
            (
                "microsd-16g:op=0.2",
                "unknown device parameter `op` (expected rw_log_blocks)",
            ),
            (
                "microsd-16g:rw_log_blocks",
                "`rw_log_blocks` is not key=value",
            ),
            (
                "page-16g:rw_log_blocks=4",
                "rw_log_blocks applies to a FAST device",
            ),
        ] {
            let e = Device::resolve(spec).unwrap_err().to_string();
            assert_eq!(e, format!("device `{spec}`: {why}"));
        }
    }
}
