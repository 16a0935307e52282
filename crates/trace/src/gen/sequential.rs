//! Sequential: each request starts where the previous one ended; a request that
//! would run past the footprint starts again at offset 0 (wrap). The scan pattern
//! that defeats LRU and that flash handles best (paper 000, TS-CLOCK: Kang, Min, Eom,
//! IEEE MASCOTS 2014, Sec. II-B: sequential writes give WAF = 1).

use super::arrival::Arrival;
use super::common::Space;
use super::size::SizeDist;
use super::stream::{draw_op, GenRng, Pattern, Stream};
use super::{invalid, Bytes};
use crate::error::Result;
use crate::reader::RequestReader;
use crate::request::Op;
use serde::{Deserialize, Serialize};

/// Parameters of the `sequential` generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SequentialParams {
    /// Random seed (ops and sizes; the addresses follow from them).
    pub seed: u64,
    /// Number of requests.
    pub requests: u64,
    /// Bytes addressed before wrapping to 0.
    pub footprint: Bytes,
    /// Granularity the footprint is a multiple of (a power of two >= 512).
    pub page_size: u32,
    /// Byte offset of the first request (below the footprint).
    pub start: Bytes,
    /// Fraction of writes, drawn per request.
    pub write_ratio: f64,
    /// Request size distribution.
    pub size: SizeDist,
    /// Arrival process.
    pub arrival: Arrival,
}

impl Default for SequentialParams {
    fn default() -> Self {
        SequentialParams {
            seed: 1,
            requests: 1_000_000,
            footprint: Bytes(1 << 30),
            page_size: 4096,
            start: Bytes(0),
            write_ratio: 0.5,
            size: SizeDist::default(),
            arrival: Arrival::None,
        }
    }
}

impl SequentialParams {
    fn space(&self) -> Space<'_> {
        Space {
            kind: "sequential",
            requests: self.requests,
            footprint: self.footprint,
            page_size: self.page_size,
            write_ratio: self.write_ratio,
            size: &self.size,
        }
    }

    /// Check every parameter against its range.
    pub fn validate(&self) -> Result<()> {
        self.space().validate()?;
        if self.start.0 >= self.footprint.0 {
            return Err(invalid(
                "sequential",
                "start",
                format!(
                    "= {} must lie below the footprint ({})",
                    self.start, self.footprint
                ),
            ));
        }
        Ok(())
    }

    /// Validate and open as a streaming reader.
    pub fn open(&self, label: String) -> Result<Box<dyn RequestReader>> {
        self.validate()?;
        let pattern = Sequential {
            footprint: self.footprint.0,
            cursor: self.start.0,
            write_ratio: self.write_ratio,
            size: self.size.clone(),
        };
        let n = self.requests;
        Ok(Box::new(Stream::new(
            label,
            pattern,
            self.seed,
            self.arrival,
            n,
            Some(n),
        )?))
    }
}

struct Sequential {
    footprint: u64,
    cursor: u64,
    write_ratio: f64,
    size: SizeDist,
}

impl Pattern for Sequential {
    #[inline]
    fn next(&mut self, rng: &mut GenRng) -> Option<(Op, u64, u32)> {
        let op = draw_op(rng, self.write_ratio);
        let len = self.size.sample(rng);
        if self.cursor + u64::from(len) > self.footprint {
            self.cursor = 0;
        }
        let offset = self.cursor;
        self.cursor += u64::from(len);
        Some((op, offset, len))
    }
}
