//! Results for every cache size of one trace: miss-ratio and write-back curves.
//!
//! Three methods, one output ([`CurvePoint`]: a cache size and the [`Metrics`] a run
//! at that size reports):
//! * [`lru::exact`]: LRU at every size from 1 page to the footprint in one pass, equal
//!   to a [`crate::simulate`] run at each size (block-utilization statistics aside).
//! * [`shards::lru`]: the same on a spatial sample of the pages (SHARDS: C. A.
//!   Waldspurger, N. Park, A. Garthwaite, I. Ahmad, "Efficient MRC Construction with
//!   SHARDS", USENIX FAST 2015), at a fixed rate or a fixed number of sampled keys.
//! * [`minisim::point`]: any registered policy, each size simulated on the sample at
//!   the size times the rate, one independent run per size (C. A. Waldspurger, T. Saemundsson,
//!   I. Ahmad, N. Park, "Cache Modeling and Optimization using Miniature
//!   Simulations", USENIX ATC 2017).
//!
//! Sampling ([`Sampling`]) hashes the page key, or its erase block's key so that the
//! sample keeps whole blocks (what block-level policies and write-back bursts need).

mod head;
pub mod lru;
pub mod minisim;
pub mod shards;
pub mod stack;

use serde::{Deserialize, Serialize};

use crate::metrics::Metrics;

/// How a curve was computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Exact LRU stack distances.
    Exact,
    /// LRU stack distances on a spatial sample.
    Shards,
    /// Scaled-down simulation on a spatial sample.
    Minisim,
}

impl Method {
    /// Its name on the command line and in outputs.
    pub fn name(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Shards => "shards",
            Method::Minisim => "minisim",
        }
    }
}

/// What one sampled key stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleUnit {
    /// A page: pages are sampled independently.
    Page,
    /// An erase block (page key div pages per block): a block is in the sample with
    /// all its pages or not at all.
    Block,
}

/// A spatial sample: keys whose hash falls below a threshold.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    /// Sampling rate in (0, 1] (the starting rate with `max_keys`).
    pub rate: f64,
    /// Keep at most this many sampled keys, lowering the threshold as needed
    /// (fixed-size SHARDS).
    pub max_keys: Option<u32>,
    /// What a key is.
    pub unit: SampleUnit,
    /// Seed of the hash.
    pub seed: u64,
    /// SHARDS: depth of the exact head in pages (0 = none): every access goes
    /// through an LRU stack cut at this depth, which gives the sizes up to it
    /// exactly (see [`Sampling::default_head`]).
    pub exact_head: u32,
}

impl Default for Sampling {
    fn default() -> Self {
        Sampling {
            rate: 0.01,
            max_keys: None,
            unit: SampleUnit::Page,
            seed: 0,
            exact_head: Sampling::default_head(0.01),
        }
    }
}

impl Sampling {
    /// The default exact head of a rate: `100 / rate` pages, where the sample's
    /// relative error (about `1 / sqrt(distance x rate)`) falls to 10%, and at most
    /// 65,536 (a head that stays in the processor's caches).
    pub fn default_head(rate: f64) -> u32 {
        if rate >= 1.0 {
            return 0;
        }
        (100.0 / rate).ceil().min(65_536.0) as u32
    }

    /// Check the rate and size.
    pub fn validate(&self) -> Result<(), crate::SimError> {
        if !(self.rate > 0.0 && self.rate <= 1.0) {
            return Err(crate::SimError::Invalid(format!(
                "sampling rate {} is not in (0, 1]",
                self.rate
            )));
        }
        if self.max_keys == Some(0) {
            return Err(crate::SimError::Invalid(
                "the sample must keep at least one key".into(),
            ));
        }
        Ok(())
    }
}

/// The results at one cache size.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Cache size in pages.
    pub cache_pages: u32,
    /// What a run at that size reports (estimated when sampled).
    pub metrics: Metrics,
}

/// `points` cache sizes from 1 to `footprint`, spaced evenly on a log scale (both ends
/// included, duplicates dropped), ascending.
pub fn log_sizes(footprint: u32, points: usize) -> Vec<u32> {
    let top = footprint.max(1);
    if points <= 1 || top == 1 {
        return vec![top];
    }
    let span = f64::from(top).ln();
    let mut out: Vec<u32> = (0..points)
        .map(|i| {
            let x = (span * i as f64 / (points - 1) as f64).exp().round() as u32;
            x.clamp(1, top)
        })
        .collect();
    out.push(1);
    out.push(top);
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_sizes_cover_both_ends() {
        assert_eq!(log_sizes(1, 100), [1]);
        assert_eq!(log_sizes(10, 100), (1..=10).collect::<Vec<_>>());
        let s = log_sizes(1_000_000, 7);
        assert_eq!(s, [1, 10, 100, 1000, 10_000, 100_000, 1_000_000]);
    }
}
