//! Hot/cold mix: a fraction `hot_access` of the requests go to the first
//! `hot_fraction` of the footprint (the hot region), the rest to the remainder, each
//! uniformly, with every request inside its region. The classic "80% of accesses to
//! 20% of the data" skew of flash GC studies (e.g. the hot/cold workloads of
//! Desnoyers, "Analytic models of SSD write performance", ACM TOS 2014).

use super::arrival::Arrival;
use super::common::Space;
use super::size::SizeDist;
use super::stream::{draw_op, GenRng, Pattern, Stream};
use super::{invalid, Bytes};
use crate::error::Result;
use crate::reader::RequestReader;
use crate::request::Op;
use rand::Rng;
use serde::{Deserialize, Serialize};

/// Parameters of the `hot-cold` generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HotColdParams {
    /// Random seed.
    pub seed: u64,
    /// Number of requests.
    pub requests: u64,
    /// Fraction of the footprint that is hot, in (0, 1); rounded to whole pages.
    pub hot_fraction: f64,
    /// Fraction of requests that go to the hot region, in [0, 1].
    pub hot_access: f64,
    /// Bytes addressed.
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

impl Default for HotColdParams {
    fn default() -> Self {
        HotColdParams {
            seed: 1,
            requests: 1_000_000,
            hot_fraction: 0.2,
            hot_access: 0.8,
            footprint: Bytes(1 << 30),
            page_size: 4096,
            write_ratio: 0.5,
            size: SizeDist::default(),
            arrival: Arrival::None,
        }
    }
}

impl HotColdParams {
    fn space(&self) -> Space<'_> {
        Space {
            kind: "hot-cold",
            requests: self.requests,
            footprint: self.footprint,
            page_size: self.page_size,
            write_ratio: self.write_ratio,
            size: &self.size,
        }
    }

    /// Pages in the hot region.
    fn hot_pages(&self) -> u64 {
        (self.hot_fraction * self.space().pages() as f64).round() as u64
    }

    /// Check every parameter against its range.
    pub fn validate(&self) -> Result<()> {
        let space = self.space();
        space.validate()?;
        let k = "hot-cold";
        if !(self.hot_fraction > 0.0 && self.hot_fraction < 1.0) {
            return Err(invalid(
                k,
                "hot_fraction",
                format!(
                    "= {} is out of range (expected 0 < f < 1)",
                    self.hot_fraction
                ),
            ));
        }
        if !(0.0..=1.0).contains(&self.hot_access) {
            return Err(invalid(
                k,
                "hot_access",
                format!("= {} is out of range (expected 0..=1)", self.hot_access),
            ));
        }
        let ps = u64::from(self.page_size);
        let hot = self.hot_pages() * ps;
        let cold = self.footprint.0 - hot;
        let largest = u64::from(self.size.max());
        if hot < largest || cold < largest {
            return Err(invalid(
                k,
                "hot_fraction",
                format!(
                    "= {} leaves a region ({} hot, {} cold) smaller than the largest request ({} B)",
                    self.hot_fraction,
                    Bytes(hot),
                    Bytes(cold),
                    largest
                ),
            ));
        }
        Ok(())
    }

    /// Validate and open as a streaming reader.
    pub fn open(&self, label: String) -> Result<Box<dyn RequestReader>> {
        self.validate()?;
        let ps = u64::from(self.page_size);
        let pattern = HotCold {
            hot_bytes: self.hot_pages() * ps,
            footprint: self.footprint.0,
            page_size: ps,
            hot_access: self.hot_access,
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

struct HotCold {
    hot_bytes: u64,
    footprint: u64,
    page_size: u64,
    hot_access: f64,
    write_ratio: f64,
    size: SizeDist,
}

impl Pattern for HotCold {
    #[inline]
    fn next(&mut self, rng: &mut GenRng) -> Option<(Op, u64, u32)> {
        let op = draw_op(rng, self.write_ratio);
        let len = self.size.sample(rng);
        let (base, end) = if rng.gen_bool(self.hot_access) {
            (0, self.hot_bytes)
        } else {
            (self.hot_bytes, self.footprint)
        };
        let starts = (end - base - u64::from(len)) / self.page_size + 1;
        Some((op, base + rng.gen_range(0..starts) * self.page_size, len))
    }
}
