//! How many distinct keys a trace holds, estimated once when the trace is written and
//! stored with it (`.wtr` version 2, `docs/formats.md`), so that a run reading the
//! trace for the first time can size its [`crate::Densifier`] before the first
//! request instead of doubling it as keys arrive.
//!
//! Why it pays: on a trace whose keys are mostly new (CloudPhysics x40: 1.96 million
//! keys in 4.55 million requests) growing the table, and zeroing and faulting in each
//! larger one, was 18 % of a first-contact run (BENCHMARKS.md, "First contact").
//!
//! Why an estimate: a writer sees each request once and may be appending to a file it
//! has not read, so it keeps a HyperLogLog sketch (2^14 registers: 0.8 % standard
//! error) rather than a set of every key. The count is a sizing hint and nothing
//! else: ids, results and growth when the hint is short are those of a run without
//! it.
//!
//! Why a sketch of its own rather than a crate's: the writer updates it twice per
//! request, and the `cardinality-estimator` crate's insert (a tagged representation
//! decoded on every call, six-bit packed registers) took 13 ns, a quarter of `trace
//! convert`'s time on CloudPhysics x40; the plain byte registers below take a mix and
//! a compare.

use crate::request::{Granularity, Request};

/// Estimates are lowered by this share before sizing a table from them: 2.5
/// standard errors, so that a hint exceeds the true count rarely (a table sized
/// past a power of two would be twice as large as needed), while one a little
/// short costs at most the one doubling a run without a hint makes last.
const MARGIN: f64 = 0.02;

/// log2 of the registers of a sketch.
const P: u32 = 14;

/// A HyperLogLog sketch (Flajolet, Fusy, Gandouet and Meunier, "HyperLogLog: the
/// analysis of a near-optimal cardinality estimation algorithm", AofA 2007): the top
/// [`P`] bits of a key's hash pick a register, which keeps the largest rank (leading
/// zeros plus one) of the remaining bits seen.
struct Sketch {
    registers: Box<[u8; 1 << P]>,
}

impl Default for Sketch {
    fn default() -> Self {
        Sketch {
            registers: Box::new([0; 1 << P]),
        }
    }
}

impl Sketch {
    #[inline]
    fn insert(&mut self, key: u64) {
        let h = mix(key);
        let rank = ((h << P) | (1 << (P - 1))).leading_zeros() as u8 + 1;
        let r = &mut self.registers[(h >> (64 - P)) as usize];
        *r = (*r).max(rank);
    }

    /// The raw estimate, with linear counting below 5/2 of the registers (the
    /// paper's small-range correction; a 64-bit hash needs no large-range one).
    fn estimate(&self) -> u64 {
        let m = f64::from(1u32 << P);
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let sum: f64 = self.registers.iter().map(|&r| (-f64::from(r)).exp2()).sum();
        let raw = alpha * m * m / sum;
        let zeros = self.registers.iter().filter(|&&r| r == 0).count();
        let e = if raw <= 2.5 * m && zeros > 0 {
            m * (m / zeros as f64).ln()
        } else {
            raw
        };
        e.round() as u64
    }
}

/// A 64-bit finaliser (SplitMix64's): page keys are structured (device above, page
/// number below), and every output bit must depend on every input bit.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Estimated distinct keys of a trace at the two granularities a count can be kept
/// for whatever page size a later run chooses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DistinctKeys {
    /// Record keys: device and 512-byte sector of the request's offset
    /// ([`Granularity::Record`]).
    pub records: u64,
    /// 4 KiB pages (device and page) the requests touch.
    pub pages_4k: u64,
}

impl DistinctKeys {
    /// Keys a run at granularity `g` will meet, as a lower bound (the estimate less
    /// 2 %), so that a table sized from it is not larger than needed.
    ///
    /// Pages of P bytes: a P-page touched holds between one and P/4096 touched 4 KiB
    /// pages when P >= 4 KiB, and a touched 4 KiB page holds at least one touched
    /// P-page when P < 4 KiB, so the bound is `pages_4k * 4096 / P` and `pages_4k`.
    pub fn expected(&self, g: Granularity) -> u64 {
        let n = match g {
            Granularity::Record => self.records,
            Granularity::Page { page_size } if page_size >= 4096 => {
                self.pages_4k / (u64::from(page_size) / 4096)
            }
            Granularity::Page { .. } => self.pages_4k,
        };
        (n as f64 * (1.0 - MARGIN)) as u64
    }
}

/// The writer's side: one sketch per granularity of [`DistinctKeys`].
#[derive(Default)]
pub struct KeySketch {
    records: Sketch,
    pages_4k: Sketch,
}

impl KeySketch {
    /// Count the keys of `req`.
    #[inline]
    pub fn insert(&mut self, req: &Request) {
        Granularity::Record.for_each_key(req, |k| self.records.insert(k));
        Granularity::Page { page_size: 4096 }.for_each_key(req, |k| self.pages_4k.insert(k));
    }

    /// The estimates so far.
    pub fn estimate(&self) -> DistinctKeys {
        DistinctKeys {
            records: self.records.estimate(),
            pages_4k: self.pages_4k.estimate(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Op;

    fn req(offset: u64, len: u32) -> Request {
        Request {
            time_ns: 0,
            offset,
            len,
            dev: 0,
            op: Op::Write,
        }
    }

    /// Within 3 % of the true counts (0.8 % standard error) from a handful of keys
    /// to millions, through the switch from linear counting, repeats not counted
    /// twice.
    #[test]
    fn estimates_are_close_to_the_true_counts() {
        for n in [1u64, 7, 1_000, 30_000, 50_000, 100_000, 2_000_000] {
            let mut s = KeySketch::default();
            // n distinct 8 KiB requests at 8 KiB steps, each twice: n record keys,
            // 2n 4 KiB pages.
            for _ in 0..2 {
                for i in 0..n {
                    s.insert(&req(i * 8192, 8192));
                }
            }
            let d = s.estimate();
            let near = |got: u64, want: u64| got.abs_diff(want) as f64 / want as f64 <= 0.03;
            assert!(near(d.records, n), "{n}: {d:?}");
            assert!(near(d.pages_4k, 2 * n), "{n}: {d:?}");
        }
    }

    #[test]
    fn expected_keys_are_lower_bounds_per_page_size() {
        let d = DistinctKeys {
            records: 1000,
            pages_4k: 6400,
        };
        let page = |page_size| Granularity::Page { page_size };
        assert_eq!(d.expected(Granularity::Record), 980);
        assert_eq!(d.expected(page(4096)), 6272);
        assert_eq!(d.expected(page(16384)), 1568);
        assert_eq!(d.expected(page(512)), 6272);
    }
}
