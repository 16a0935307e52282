//! Helpers shared by the integration tests: the analytic WAF models of `docs/ftl.md`
//! ("Analytic check") and small drivers.
// The FTL bench (benches/ftl.rs) uses a share of these.
#![allow(dead_code)]

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use wafer_ftl::{Ftl, Latency};

/// Latencies of paper 004's Samsung K9 (Huang et al., "Efficient Cache Design for
/// Solid-State Drives", ACM Computing Frontiers 2010, Table 1).
pub const LAT: Latency = Latency {
    read_ns: 25_000,
    program_ns: 200_000,
    erase_ns: 1_500_000,
};

/// Principal branch of Lambert W on [-1/e, 0) by Halley iteration.
pub fn lambert_w0(x: f64) -> f64 {
    assert!((-1.0 / std::f64::consts::E..0.0).contains(&x));
    let mut w = if x < -0.3 {
        -1.0 + (2.0 * (1.0 + std::f64::consts::E * x)).sqrt()
    } else {
        x
    };
    for _ in 0..100 {
        let ew = w.exp();
        let f = w * ew - x;
        let step = f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0));
        w -= step;
        if step.abs() < 1e-15 {
            break;
        }
    }
    w
}

/// FIFO cleaning (and greedy as Np -> inf): WA = 1/(1-u), u = -W0(-a e^-a)/a.
pub fn waf_fifo(alpha: f64) -> f64 {
    let u = -lambert_w0(-alpha * (-alpha).exp()) / alpha;
    1.0 / (1.0 - u)
}

/// Digamma for x > 0 (recurrence up to 6, then the asymptotic series).
pub fn digamma(mut x: f64) -> f64 {
    let mut acc = 0.0;
    while x < 6.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    let x2 = 1.0 / (x * x);
    acc + x.ln()
        - 0.5 / x
        - x2 * (1.0 / 12.0 - x2 * (1.0 / 120.0 - x2 * (1.0 / 252.0 - x2 / 240.0)))
}

/// Greedy mean-field WA for `b` pages per block: solve a = b (H_b - H_j)/(b - j) for
/// real j, WA = b/(b - j); H_x = digamma(x+1) + gamma (gamma cancels).
pub fn waf_greedy_mf(alpha: f64, b: f64) -> f64 {
    let a_of = |j: f64| b * (digamma(b + 1.0) - digamma(j + 1.0)) / (b - j);
    let (mut lo, mut hi) = (0.0, b - 1e-9);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if a_of(mid) > alpha {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    b / (b - 0.5 * (lo + hi))
}

/// Write every logical page once, block-sized requests in order.
pub fn fill<F: Ftl + ?Sized>(f: &mut F) {
    let g = *f.geometry();
    let np = u64::from(g.pages_per_block);
    let mut p = 0;
    while p < g.logical_pages {
        let n = np.min(g.logical_pages - p);
        f.write(p, n).unwrap();
        p += n;
    }
}

/// `n` uniform random single-page writes, in batches of 64 behind a
/// [`Ftl::prefetch`] hint as a trace replay issues them.
pub fn random_writes<F: Ftl + ?Sized>(f: &mut F, seed: u64, n: u64) {
    let lp = f.geometry().logical_pages;
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut batch = [0u64; 64];
    let mut done = 0;
    while done < n {
        let k = (n - done).min(64) as usize;
        for p in &mut batch[..k] {
            *p = rng.gen_range(0..lp);
        }
        f.prefetch(&batch[..k]);
        for &p in &batch[..k] {
            f.write(p, 1).unwrap();
        }
        done += k as u64;
    }
}
