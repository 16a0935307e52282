//! Aging before measurement (paper 000, TS-CLOCK: Kang, Min, Eom, IEEE
//! MASCOTS 2014, Sec. IV-E: "we run aging traces,
//! which are 16 GB and are mixed with sequential accesses and random accesses").
//!
//! Resolved ambiguities: the paper gives neither the mix nor the run length. Here the
//! logical space is first filled sequentially (optional), then `volume_bytes` are
//! written, of which a fraction `random_fraction` (by bytes) as single pages at uniform
//! random addresses and the rest as runs of `run_bytes` starting at uniformly random
//! run-aligned addresses. The generator is seeded, so aging is reproducible. A
//! preconditioning trace is the alternative (`crate::replay`). Counters are reset at
//! the end either way.

use crate::error::FtlError;
use crate::ftl::Ftl;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// Synthetic aging parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Aging {
    /// Write every logical page once, in order, first.
    pub fill: bool,
    /// Bytes of mixed overwrites after the fill.
    pub volume_bytes: u64,
    /// Fraction of `volume_bytes` written as random single pages (0..=1).
    pub random_fraction: f64,
    /// Length of a sequential run, bytes (rounded to pages, at least one).
    pub run_bytes: u64,
    /// Random seed.
    pub seed: u64,
}

impl Default for Aging {
    /// Paper 000's recipe as read here: fill, then 16 GiB, half random 4 KiB pages and
    /// half 1 MiB sequential runs.
    fn default() -> Aging {
        Aging {
            fill: true,
            volume_bytes: 16 << 30,
            random_fraction: 0.5,
            run_bytes: 1 << 20,
            seed: 0x000a_9e00,
        }
    }
}

/// Age `ftl` and reset its counters.
pub fn age<F: Ftl>(ftl: &mut F, aging: &Aging) -> Result<(), FtlError> {
    if !(0.0..=1.0).contains(&aging.random_fraction) {
        return Err(FtlError::Config(format!(
            "aging random fraction {} is outside 0..=1",
            aging.random_fraction
        )));
    }
    let g = *ftl.geometry();
    let lp = g.logical_pages;
    if aging.fill {
        let np = u64::from(g.pages_per_block);
        let mut p = 0;
        while p < lp {
            let n = np.min(lp - p);
            ftl.write(p, n)?;
            p += n;
        }
    }
    let ps = u64::from(g.page_size);
    let total = aging.volume_bytes / ps;
    let run = (aging.run_bytes / ps).clamp(1, lp);
    let runs_in_space = lp / run;
    let random_pages = (total as f64 * aging.random_fraction).round() as u64;
    let mut rng = Pcg64Mcg::seed_from_u64(aging.seed);
    let (mut rnd_done, mut seq_done) = (0u64, 0u64);
    let seq_total = total - random_pages;
    while rnd_done < random_pages || seq_done < seq_total {
        // Interleave in proportion: pick the stream that is further behind.
        let rnd_behind = (rnd_done as f64) * (seq_total.max(1) as f64)
            <= (seq_done as f64) * (random_pages.max(1) as f64);
        if rnd_done < random_pages && (rnd_behind || seq_done >= seq_total) {
            ftl.write(rng.gen_range(0..lp), 1)?;
            rnd_done += 1;
        } else {
            let start = rng.gen_range(0..runs_in_space) * run;
            let n = run.min(seq_total - seq_done);
            ftl.write(start, n)?;
            seq_done += n;
        }
    }
    ftl.reset_counters();
    Ok(())
}
