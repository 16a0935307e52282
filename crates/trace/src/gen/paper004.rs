//! The four micro benchmarks of paper 004 (M. Huang, O. Serres, V. K. Narayana,
//! T. El-Ghazawi, G. Newby, "Efficient Cache Design for Solid-State Drives", ACM
//! Computing Frontiers 2010: an SSD on-board write cache with automatic periodic
//! update; Table 5 and Sec. 4.3.1), with the details the paper leaves open pinned
//! down as follows (`docs/generators.md`):
//!
//! | kind | ops | start address | size (512 B blocks) |
//! |---|---|---|---|
//! | `constant-write` | 100% W | sector 0 | uniform 1..8191 |
//! | `random-write` | 100% W | uniform over the span, 8-sector aligned | uniform 1..199 |
//! | `write-biased` | 90% W / 10% R, independent per request | as `random-write` | uniform 1..199 |
//! | `thrash` | 50% W / 50% R, independent per request | rounds of `regions` requests at `o + k * cache/512`, `o` uniform in `[0, cache/512)`, 8-aligned | uniform 1..8191 |
//!
//! Defaults: 10,000 requests, a 16 GiB span, Poisson arrivals with a 10 ms mean gap
//! (so idle gaps longer than the 2 ms APU threshold exist), seed 1. The paper states
//! only the table's one-line descriptions and "< 8192" / "< 200" blocks; the rest
//! (alignment, arrival rate, span, seed) is wafer's reconstruction and is a parameter.
//!
//! Draw order, fixed so that runs can be reasoned about: per request the op (only for
//! mixed kinds), then the size, then the start; a thrash round draws op, size and `o`
//! for its first request and only the op for the others, which reuse the size so that
//! every page of region `k` has a twin at the same offset in region 0. Random starts
//! are drawn among the aligned sectors at which the largest request still fits in
//! the span. Arrival gaps come from their own stream (see [`super::arrival`]).

use super::arrival::Arrival;
use super::stream::{draw_op, GenRng, Pattern, Stream};
use super::{invalid, Bytes};
use crate::error::Result;
use crate::reader::RequestReader;
use crate::request::{Op, SECTOR};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Which of the four benchmarks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MicroKind {
    /// Constant Write Only: 100% writes at sector 0, sizes < 8192 blocks.
    ConstantWrite,
    /// Random Write Only: 100% writes at random aligned starts, sizes < 200 blocks.
    RandomWrite,
    /// Random Write Biased: 90% writes / 10% reads at random starts, sizes < 200 blocks.
    WriteBiased,
    /// Thrash Balanced: 50/50 reads and writes in set-conflicting regions, sizes < 8192.
    Thrash,
}

impl MicroKind {
    /// Name used in [`super::GenSpec`] and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            MicroKind::ConstantWrite => "constant-write",
            MicroKind::RandomWrite => "random-write",
            MicroKind::WriteBiased => "write-biased",
            MicroKind::Thrash => "thrash",
        }
    }

    /// Table 5's bound on the request size, in 512 B blocks (sizes are below it).
    pub fn default_max_blocks(self) -> u32 {
        match self {
            MicroKind::ConstantWrite | MicroKind::Thrash => 8192,
            MicroKind::RandomWrite | MicroKind::WriteBiased => 200,
        }
    }

    /// Table 5's fraction of writes.
    pub fn default_write_ratio(self) -> f64 {
        match self {
            MicroKind::ConstantWrite | MicroKind::RandomWrite => 1.0,
            MicroKind::WriteBiased => 0.9,
            MicroKind::Thrash => 0.5,
        }
    }
}

/// Parameters of the paper 004 micro benchmarks (`None` = the kind's Table 5 value).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MicroParams {
    /// Random seed.
    pub seed: u64,
    /// Number of requests (10,000 by default; the paper gives no count).
    pub requests: u64,
    /// Device span in bytes that random starts cover (16 GiB).
    pub span: Bytes,
    /// Arrival process (Poisson, 10 ms mean gap).
    pub arrival: Arrival,
    /// Exclusive bound on the size in 512 B blocks: sizes are uniform on
    /// `[1, max_blocks - 1]` (8192 or 200 by kind).
    pub max_blocks: Option<u32>,
    /// Fraction of writes (1.0, 1.0, 0.9 or 0.5 by kind).
    pub write_ratio: Option<f64>,
    /// `thrash` only: the on-board cache size the regions are spaced by (8 MiB, the
    /// smallest cache of 004's sweep). Must equal the cache under test.
    pub cache: Option<Bytes>,
    /// `thrash` only: regions per round (2 thrashes a direct-mapped cache; use n+1
    /// for an n-way cache).
    pub regions: Option<u32>,
}

impl Default for MicroParams {
    fn default() -> Self {
        MicroParams {
            seed: 1,
            requests: 10_000,
            span: Bytes(16 << 30),
            arrival: Arrival::Poisson { mean_ns: 1e7 },
            max_blocks: None,
            write_ratio: None,
            cache: None,
            regions: None,
        }
    }
}

/// Default thrash cache size: 8 MiB.
const DEFAULT_CACHE: u64 = 8 << 20;

/// Sectors per 4 KiB page: the start alignment wafer chose (the paper gives none).
const ALIGN: u64 = 8;

impl MicroParams {
    /// Check every parameter against its range for `kind`.
    pub fn validate(&self, kind: MicroKind) -> Result<()> {
        let k = kind.name();
        if self.requests == 0 {
            return Err(invalid(k, "requests", "must be at least 1"));
        }
        let max = self.max_blocks.unwrap_or(kind.default_max_blocks());
        if !(2..=(1 << 23)).contains(&max) {
            return Err(invalid(
                k,
                "max_blocks",
                format!("= {max} is out of range (expected 2..=8388608 blocks of 512 B)"),
            ));
        }
        if let Some(w) = self.write_ratio {
            if !(0.0..=1.0).contains(&w) {
                return Err(invalid(
                    k,
                    "write_ratio",
                    format!("= {w} is out of range (expected 0..=1)"),
                ));
            }
        }
        if kind != MicroKind::Thrash {
            if self.cache.is_some() {
                return Err(invalid(k, "cache", "applies only to thrash"));
            }
            if self.regions.is_some() {
                return Err(invalid(k, "regions", "applies only to thrash"));
            }
        }
        let span = self.span.0 / SECTOR;
        let largest = u64::from(max - 1);
        if self.span.0 % (ALIGN * SECTOR) != 0 || span < largest {
            return Err(invalid(
                k,
                "span",
                format!(
                    "= {} must be a multiple of 4 KiB holding the largest request ({} blocks)",
                    self.span, largest
                ),
            ));
        }
        if kind == MicroKind::Thrash {
            let cache = self.cache.map_or(DEFAULT_CACHE, |c| c.0);
            if cache == 0 || cache % (ALIGN * SECTOR) != 0 {
                return Err(invalid(
                    k,
                    "cache",
                    format!("= {cache} B must be a positive multiple of 4 KiB"),
                ));
            }
            let regions = self.regions.unwrap_or(2);
            if regions < 2 {
                return Err(invalid(
                    k,
                    "regions",
                    format!("= {regions} must be at least 2"),
                ));
            }
            let needs = u64::from(regions) * (cache / SECTOR) + largest;
            if needs > span {
                return Err(invalid(
                    k,
                    "span",
                    format!("= {} cannot hold {regions} regions of {cache} B", self.span),
                ));
            }
        }
        Ok(())
    }

    /// A copy with every `None` replaced by the value `kind` uses (the thrash-only
    /// options stay `None` for the other kinds), so labels show what was generated.
    pub fn effective(&self, kind: MicroKind) -> MicroParams {
        let thrash = kind == MicroKind::Thrash;
        MicroParams {
            max_blocks: Some(self.max_blocks.unwrap_or(kind.default_max_blocks())),
            write_ratio: Some(self.write_ratio.unwrap_or(kind.default_write_ratio())),
            cache: self.cache.or(thrash.then_some(Bytes(DEFAULT_CACHE))),
            regions: self.regions.or(thrash.then_some(2)),
            ..self.clone()
        }
    }

    /// Validate and open as a streaming reader.
    pub fn open(&self, kind: MicroKind, label: String) -> Result<Box<dyn RequestReader>> {
        self.validate(kind)?;
        let max = self.max_blocks.unwrap_or(kind.default_max_blocks());
        let largest = u64::from(max - 1);
        let pattern = Micro {
            kind,
            write_ratio: self.write_ratio.unwrap_or(kind.default_write_ratio()),
            max_blocks: max,
            starts: (self.span.0 / SECTOR - largest) / ALIGN + 1,
            cache_sectors: self.cache.map_or(DEFAULT_CACHE, |c| c.0) / SECTOR,
            regions: self.regions.unwrap_or(2),
            round: Round::default(),
        };
        Ok(Box::new(Stream::new(
            label,
            pattern,
            self.seed,
            self.arrival,
            self.requests,
            Some(self.requests),
        )?))
    }
}

/// Where a thrash round stands.
#[derive(Default)]
struct Round {
    /// Next region index in the round.
    k: u32,
    /// `o` of the round, in sectors.
    base: u64,
    /// Size of the round's requests, in sectors.
    sectors: u32,
}

struct Micro {
    kind: MicroKind,
    write_ratio: f64,
    max_blocks: u32,
    /// Number of aligned random starts (`random-write`, `write-biased`).
    starts: u64,
    cache_sectors: u64,
    regions: u32,
    round: Round,
}

impl Pattern for Micro {
    #[inline]
    fn next(&mut self, rng: &mut GenRng) -> Option<(Op, u64, u32)> {
        let op = draw_op(rng, self.write_ratio);
        let (sector, sectors) = match self.kind {
            MicroKind::ConstantWrite => (0, rng.gen_range(1..self.max_blocks)),
            MicroKind::RandomWrite | MicroKind::WriteBiased => {
                let size = rng.gen_range(1..self.max_blocks);
                (ALIGN * rng.gen_range(0..self.starts), size)
            }
            MicroKind::Thrash => {
                let r = &mut self.round;
                if r.k == 0 {
                    r.sectors = rng.gen_range(1..self.max_blocks);
                    r.base = ALIGN * rng.gen_range(0..self.cache_sectors / ALIGN);
                }
                let start = r.base + u64::from(r.k) * self.cache_sectors;
                r.k = (r.k + 1) % self.regions;
                (start, r.sectors)
            }
        };
        Some((op, sector * SECTOR, sectors * SECTOR as u32))
    }
}
