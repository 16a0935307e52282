//! Uniform random: every page-aligned start at which the request fits is equally
//! likely. The baseline of every cache study, and the workload behind the analytic
//! WAF of greedy GC (`docs/ftl.md`, "Analytic check").

use super::arrival::Arrival;
use super::common::Space;
use super::size::SizeDist;
use super::stream::{draw_op, GenRng, Pattern, Stream};
use super::Bytes;
use crate::error::Result;
use crate::reader::RequestReader;
use crate::request::Op;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Parameters of the `uniform` generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UniformParams {
    /// Random seed.
    pub seed: u64,
    /// Number of requests.
    pub requests: u64,
    /// Bytes addressed: starts fall in `[0, footprint - size]`.
    pub footprint: Bytes,
    /// Starts are multiples of this (a power of two >= 512).
    pub page_size: u32,
    /// Fraction of writes, drawn per request.
    pub write_ratio: f64,
    /// Request size distribution.
    pub size: SizeDist,
    /// Arrival process.
    pub arrival: Arrival,
}

impl Default for UniformParams {
    fn default() -> Self {
        UniformParams {
            seed: 1,
            requests: 1_000_000,
            footprint: Bytes(1 << 30),
            page_size: 4096,
            write_ratio: 0.5,
            size: SizeDist::default(),
            arrival: Arrival::None,
        }
    }
}

impl UniformParams {
    fn space(&self) -> Space<'_> {
        Space {
            kind: "uniform",
            requests: self.requests,
            footprint: self.footprint,
            page_size: self.page_size,
            write_ratio: self.write_ratio,
            size: &self.size,
        }
    }

    /// Check every parameter against its range.
    pub fn validate(&self) -> Result<()> {
        self.space().validate()
    }

    /// Validate and open as a streaming reader.
    pub fn open(&self, label: String) -> Result<Box<dyn RequestReader>> {
        self.validate()?;
        let pattern = Uniform {
            footprint: self.footprint.0,
            page_size: u64::from(self.page_size),
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

struct Uniform {
    footprint: u64,
    page_size: u64,
    write_ratio: f64,
    size: SizeDist,
}

impl Pattern for Uniform {
    #[inline]
    fn next(&mut self, rng: &mut GenRng) -> Option<(Op, u64, u32)> {
        let op = draw_op(rng, self.write_ratio);
        let len = self.size.sample(rng);
        let starts = (self.footprint - u64::from(len)) / self.page_size + 1;
        Some((op, rng.gen_range(0..starts) * self.page_size, len))
    }
}
