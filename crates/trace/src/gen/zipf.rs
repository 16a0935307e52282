//! Zipf over pages: page rank `r` (1-based) is drawn with probability
//! `r^-theta / H(n, theta)`, `H(n, theta) = sum_{i=1..n} i^-theta`, over the `n`
//! pages of the footprint. `theta` = 0 is uniform; 0.99 is the YCSB default skew.
//!
//! Ranks are drawn by rejection-inversion (Hörmann & Derflinger, ACM TOMACS 1996, as
//! implemented by `rand_distr::Zipf`): O(1) time and memory for any `n`. With
//! `scramble` (the default) rank `r` lives at page `perm(r-1)`, a keyed
//! pseudo-random permutation of the pages ([`super::scramble`]), so hot pages are
//! spread over the whole footprint instead of packed into its first blocks; without
//! it rank `r` is page `r-1`. A request whose start is too close to the end for its
//! size is moved back to the last page-aligned start where it fits.

use super::arrival::Arrival;
use super::common::Space;
use super::scramble::Permutation;
use super::size::SizeDist;
use super::stream::{draw_op, GenRng, Pattern, Stream};
use super::{invalid, Bytes};
use crate::error::Result;
use crate::reader::RequestReader;
use crate::request::Op;
use rand_distr::Distribution;
use serde::{Deserialize, Serialize};

/// Salt of the scramble key, so the permutation is independent of the draws.
const SCRAMBLE_SALT: u64 = 0x7363_7261_6d62_6c65; // "scramble"

/// Parameters of the `zipf` generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ZipfParams {
    /// Random seed (also keys the scramble permutation).
    pub seed: u64,
    /// Number of requests.
    pub requests: u64,
    /// Skew exponent, >= 0 (0 = uniform).
    pub theta: f64,
    /// Scatter ranks over the footprint (true) or put rank 1 at page 0 (false).
    pub scramble: bool,
    /// Bytes addressed; its pages are the Zipf population.
    pub footprint: Bytes,
    /// Page size: the unit that is ranked (a power of two >= 512).
    pub page_size: u32,
    /// Fraction of writes, drawn per request.
    pub write_ratio: f64,
    /// Request size distribution.
    pub size: SizeDist,
    /// Arrival process.
    pub arrival: Arrival,
}

impl Default for ZipfParams {
    fn default() -> Self {
        ZipfParams {
            seed: 1,
            requests: 1_000_000,
            theta: 0.99,
            scramble: true,
            footprint: Bytes(1 << 30),
            page_size: 4096,
            write_ratio: 0.5,
            size: SizeDist::default(),
            arrival: Arrival::None,
        }
    }
}

impl ZipfParams {
    fn space(&self) -> Space<'_> {
        Space {
            kind: "zipf",
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
        if !(self.theta.is_finite() && (0.0..=100.0).contains(&self.theta)) {
            return Err(invalid(
                "zipf",
                "theta",
                format!("= {} is out of range (expected 0..=100)", self.theta),
            ));
        }
        Ok(())
    }

    /// Validate and open as a streaming reader.
    pub fn open(&self, label: String) -> Result<Box<dyn RequestReader>> {
        self.validate()?;
        let pages = self.space().pages();
        let zipf =
            rand_distr::Zipf::new(pages, self.theta).map_err(|e| invalid("zipf", "theta", e))?;
        let pattern = Zipf {
            zipf,
            perm: self
                .scramble
                .then(|| Permutation::new(pages, self.seed ^ SCRAMBLE_SALT)),
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

struct Zipf {
    zipf: rand_distr::Zipf<f64>,
    perm: Option<Permutation>,
    footprint: u64,
    page_size: u64,
    write_ratio: f64,
    size: SizeDist,
}

impl Pattern for Zipf {
    #[inline]
    fn next(&mut self, rng: &mut GenRng) -> Option<(Op, u64, u32)> {
        let op = draw_op(rng, self.write_ratio);
        let len = self.size.sample(rng);
        let rank = self.zipf.sample(rng) as u64 - 1;
        let page = match &self.perm {
            Some(p) => p.apply(rank),
            None => rank,
        };
        let last = (self.footprint - u64::from(len)) / self.page_size;
        Some((op, page.min(last) * self.page_size, len))
    }
}
