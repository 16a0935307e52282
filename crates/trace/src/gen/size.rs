//! Request-size distributions.
//!
//! Written as a number of bytes or a string, on the command line and in experiment
//! files alike:
//! * `4KiB` (or `4096`): every request has this size;
//! * `4KiB..64KiB`: uniform over `4KiB, 8KiB, ..., 64KiB` (step 4 KiB);
//!   `512..4MiB/512` sets the step explicitly;
//! * `4KiB:3,64KiB:1`: a small discrete distribution with integer weights
//!   (`4KiB,64KiB` = equal weights).
//!
//! A fixed size consumes no random number, so a fixed-size generator's address
//! stream does not depend on the size.

use crate::error::{Error, Result};
use crate::units::{format_size, parse_size};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How big each request is, in bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "SizeRepr", into = "String")]
pub enum SizeDist {
    /// Every request has this many bytes.
    Fixed(u32),
    /// Uniform over `min, min+step, ..., max`.
    Range {
        /// Smallest size.
        min: u32,
        /// Largest size (a multiple of `step` away from `min`).
        max: u32,
        /// Distance between consecutive sizes.
        step: u32,
    },
    /// `(size, weight)` pairs, drawn in proportion to their weights.
    Choice(Vec<(u32, u32)>),
}

impl Default for SizeDist {
    fn default() -> Self {
        SizeDist::Fixed(4096)
    }
}

impl SizeDist {
    /// Parse the string forms described in the module docs.
    pub fn parse(s: &str) -> Result<SizeDist> {
        let bad = |why: String| {
            Error::Invalid(format!(
                "request size `{s}`: {why} (expected e.g. 4KiB, 4KiB..64KiB, 512..4MiB/512 \
                 or 4KiB:3,64KiB:1)"
            ))
        };
        let one = |v: &str| -> Result<u32> {
            let b = parse_size(v)?;
            if b == 0 || b > u64::from(u32::MAX) {
                return Err(bad(format!("`{v}` must be between 1 B and 4 GiB - 1")));
            }
            Ok(b as u32)
        };
        let t = s.trim();
        let dist = if let Some((lo, rest)) = t.split_once("..") {
            let (hi, step) = match rest.split_once('/') {
                Some((hi, step)) => (hi, one(step)?),
                None => (rest, 4096),
            };
            let (min, max) = (one(lo)?, one(hi)?);
            SizeDist::Range { min, max, step }
        } else if t.contains(',') || t.contains(':') {
            let mut pairs = Vec::new();
            for item in t.split(',') {
                let (v, w) = match item.split_once(':') {
                    Some((v, w)) => {
                        let w: u32 = w
                            .trim()
                            .parse()
                            .map_err(|_| bad(format!("weight `{w}` is not an integer")))?;
                        (v, w)
                    }
                    None => (item, 1),
                };
                pairs.push((one(v)?, w));
            }
            SizeDist::Choice(pairs)
        } else {
            SizeDist::Fixed(one(t)?)
        };
        dist.check().map_err(bad)?;
        Ok(dist)
    }

    /// Internal consistency (ranges, weights).
    fn check(&self) -> std::result::Result<(), String> {
        match self {
            SizeDist::Fixed(0) => Err("the size must be at least 1 B".into()),
            SizeDist::Fixed(_) => Ok(()),
            SizeDist::Range { min, max, step } => {
                if *step == 0 || min > max {
                    Err("the range must be MIN..MAX with MIN <= MAX and a step >= 1".into())
                } else if min % step != 0 || max % step != 0 {
                    Err(format!(
                        "both ends must be multiples of the step ({})",
                        format_size(u64::from(*step))
                    ))
                } else {
                    Ok(())
                }
            }
            SizeDist::Choice(pairs) => {
                let total: u64 = pairs.iter().map(|&(_, w)| u64::from(w)).sum();
                if pairs.is_empty() || total == 0 || total > u64::from(u32::MAX) {
                    Err("the weights must sum to a number between 1 and 2^32 - 1".into())
                } else if pairs.iter().any(|&(v, _)| v == 0) {
                    Err("every size must be at least 1 B".into())
                } else {
                    Ok(())
                }
            }
        }
    }

    /// The largest size the distribution can produce.
    pub fn max(&self) -> u32 {
        match self {
            SizeDist::Fixed(v) => *v,
            SizeDist::Range { max, .. } => *max,
            SizeDist::Choice(p) => p.iter().map(|&(v, _)| v).max().unwrap_or(0),
        }
    }

    /// The mean size in bytes.
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed(v) => f64::from(*v),
            SizeDist::Range { min, max, .. } => (f64::from(*min) + f64::from(*max)) / 2.0,
            SizeDist::Choice(p) => {
                let w: f64 = p.iter().map(|&(_, w)| f64::from(w)).sum();
                p.iter()
                    .map(|&(v, w)| f64::from(v) * f64::from(w))
                    .sum::<f64>()
                    / w
            }
        }
    }

    /// Draw one size.
    #[inline]
    pub(crate) fn sample(&self, rng: &mut impl Rng) -> u32 {
        match self {
            SizeDist::Fixed(v) => *v,
            SizeDist::Range { min, max, step } => {
                min + rng.gen_range(0..=(max - min) / step) * step
            }
            SizeDist::Choice(pairs) => {
                let total: u32 = pairs.iter().map(|&(_, w)| w).sum();
                let mut r = rng.gen_range(0..total);
                for &(v, w) in pairs {
                    if r < w {
                        return v;
                    }
                    r -= w;
                }
                unreachable!("r < total weight")
            }
        }
    }
}

impl fmt::Display for SizeDist {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |v: u32| format_size(u64::from(v)).replace(' ', "");
        match self {
            SizeDist::Fixed(v) => f.write_str(&s(*v)),
            SizeDist::Range { min, max, step } => {
                write!(f, "{}..{}", s(*min), s(*max))?;
                if *step != 4096 {
                    write!(f, "/{}", s(*step))?;
                }
                Ok(())
            }
            SizeDist::Choice(pairs) => {
                let parts: Vec<String> = pairs
                    .iter()
                    .map(|&(v, w)| format!("{}:{w}", s(v)))
                    .collect();
                f.write_str(&parts.join(","))
            }
        }
    }
}

/// What a size may be written as in a file: a byte count or a string.
#[derive(Deserialize)]
#[serde(untagged)]
enum SizeRepr {
    Bytes(u64),
    Text(String),
}

impl TryFrom<SizeRepr> for SizeDist {
    type Error = Error;
    fn try_from(r: SizeRepr) -> Result<SizeDist> {
        match r {
            SizeRepr::Bytes(b) => SizeDist::parse(&b.to_string()),
            SizeRepr::Text(t) => SizeDist::parse(&t),
        }
    }
}

impl From<SizeDist> for String {
    fn from(d: SizeDist) -> String {
        d.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn parses_every_form_and_round_trips() {
        assert_eq!(SizeDist::parse("4KiB").unwrap(), SizeDist::Fixed(4096));
        assert_eq!(
            SizeDist::parse("4KiB..64KiB").unwrap(),
            SizeDist::Range {
                min: 4096,
                max: 65536,
                step: 4096
            }
        );
        assert_eq!(
            SizeDist::parse("4KiB:3,64KiB:1").unwrap(),
            SizeDist::Choice(vec![(4096, 3), (65536, 1)])
        );
        for s in ["4KiB", "4KiB..64KiB", "512B..4MiB/512B", "4KiB:3,64KiB:1"] {
            let d = SizeDist::parse(s).unwrap();
            assert_eq!(SizeDist::parse(&d.to_string()).unwrap(), d, "{s}");
        }
        for bad in ["0", "8KiB..4KiB", "4KiB..6KiB", "4KiB:x", "4KiB:0", "5GiB"] {
            let e = SizeDist::parse(bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
    }

    #[test]
    fn range_samples_cover_both_ends_on_the_step() {
        let d = SizeDist::parse("512..2KiB/512").unwrap();
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(3);
        let mut seen = [0u32; 4];
        for _ in 0..4000 {
            let v = d.sample(&mut rng);
            assert_eq!(v % 512, 0);
            seen[(v / 512 - 1) as usize] += 1;
        }
        // Each of the 4 sizes ~1000 times (sd ~27).
        assert!(seen.iter().all(|&n| (850..1150).contains(&n)), "{seen:?}");
    }
}
