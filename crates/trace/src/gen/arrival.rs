//! Arrival processes: the timestamps a generator gives its requests.
//!
//! Request 0 arrives at time 0 and request `i` at the arrival of request `i-1` plus
//! one gap, so a trace always starts at 0. Gaps come from their own random stream
//! (derived from the generator's seed), so choosing or changing the arrival process
//! never changes the addresses, sizes or ops a generator produces.

use crate::error::{Error, Result};
use crate::request::NO_TIME;
use crate::units::{format_duration, parse_duration};
use rand::SeedableRng;
use rand_distr::{Distribution, Exp};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How requests are spread over time.
///
/// Written as a string everywhere (command line and experiment files):
/// `none`, `fixed:<duration>`, `poisson:<mean gap>` or `poisson:<rate>/s`, with a
/// duration unit of `ns`, `us`, `ms` or `s` (`poisson:10ms` = `poisson:100/s`).
#[derive(Clone, Copy, Debug, PartialEq, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Arrival {
    /// No timestamps (every request carries [`NO_TIME`]).
    #[default]
    None,
    /// One request every `interval_ns` nanoseconds.
    Fixed {
        /// Gap between consecutive requests, ns.
        interval_ns: u64,
    },
    /// A Poisson process: exponentially distributed gaps with this mean, rounded to
    /// whole nanoseconds.
    Poisson {
        /// Mean gap, ns (the inverse of the rate).
        mean_ns: f64,
    },
}

impl Arrival {
    /// Parse `none`, `fixed:10ms`, `poisson:10ms` or `poisson:100/s`.
    pub fn parse(s: &str) -> Result<Arrival> {
        let t = s.trim();
        let bad = |why: &str| {
            Error::Invalid(format!(
                "arrival `{s}`: {why} (expected none, fixed:<duration>, poisson:<mean gap> \
                 or poisson:<rate>/s, e.g. poisson:10ms)"
            ))
        };
        if t.eq_ignore_ascii_case("none") {
            return Ok(Arrival::None);
        }
        let (kind, arg) = t.split_once(':').ok_or_else(|| bad("missing `:`"))?;
        match kind.trim().to_ascii_lowercase().as_str() {
            "fixed" => {
                let ns = parse_duration(arg).map_err(|e| bad(&e))?;
                if ns < 1.0 || ns.fract() != 0.0 {
                    return Err(bad("the interval must be a whole number of ns >= 1"));
                }
                Ok(Arrival::Fixed {
                    interval_ns: ns as u64,
                })
            }
            "poisson" => {
                let mean_ns = if let Some(rate) = arg.trim().strip_suffix("/s") {
                    let r: f64 = rate.trim().parse().map_err(|_| bad("bad rate"))?;
                    if !(r.is_finite() && r > 0.0) {
                        return Err(bad("the rate must be > 0"));
                    }
                    1e9 / r
                } else {
                    parse_duration(arg).map_err(|e| bad(&e))?
                };
                if !(mean_ns.is_finite() && mean_ns > 0.0) {
                    return Err(bad("the mean gap must be > 0"));
                }
                Ok(Arrival::Poisson { mean_ns })
            }
            _ => Err(bad("unknown process")),
        }
    }

    /// Whether requests get timestamps.
    pub fn has_time(&self) -> bool {
        !matches!(self, Arrival::None)
    }
}

impl fmt::Display for Arrival {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Arrival::None => f.write_str("none"),
            Arrival::Fixed { interval_ns } => {
                write!(f, "fixed:{}", format_duration(interval_ns as f64))
            }
            Arrival::Poisson { mean_ns } => write!(f, "poisson:{}", format_duration(mean_ns)),
        }
    }
}

impl TryFrom<String> for Arrival {
    type Error = Error;
    fn try_from(s: String) -> Result<Arrival> {
        Arrival::parse(&s)
    }
}

impl From<Arrival> for String {
    fn from(a: Arrival) -> String {
        a.to_string()
    }
}

/// Salt mixed into the seed of the arrival stream so it is independent of the
/// address stream.
const ARRIVAL_SALT: u64 = 0x6172_7269_7661_6c21; // "arrival!"

/// The running clock of an [`Arrival`] process.
pub(crate) struct Clock {
    now: u64,
    gap: Gap,
    rng: Pcg64Mcg,
}

enum Gap {
    None,
    Fixed(u64),
    Poisson(Exp<f64>),
}

impl Clock {
    /// A clock at time 0 with its own random stream derived from `seed`.
    pub(crate) fn new(arrival: Arrival, seed: u64) -> Result<Clock> {
        let gap = match arrival {
            Arrival::None => Gap::None,
            Arrival::Fixed { interval_ns } => Gap::Fixed(interval_ns),
            Arrival::Poisson { mean_ns } => Gap::Poisson(
                Exp::new(1.0 / mean_ns)
                    .map_err(|e| Error::Invalid(format!("arrival {arrival}: {e}")))?,
            ),
        };
        Ok(Clock {
            now: 0,
            gap,
            rng: Pcg64Mcg::seed_from_u64(seed ^ ARRIVAL_SALT),
        })
    }

    /// Arrival time of the next request ([`NO_TIME`] without an arrival process).
    #[inline]
    pub(crate) fn tick(&mut self) -> u64 {
        let t = self.now;
        let gap = match &self.gap {
            Gap::None => return NO_TIME,
            Gap::Fixed(g) => *g,
            Gap::Poisson(exp) => exp.sample(&mut self.rng).round() as u64,
        };
        self.now = self.now.saturating_add(gap);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_every_form() {
        assert_eq!(Arrival::parse("none").unwrap(), Arrival::None);
        assert_eq!(
            Arrival::parse("fixed:10ms").unwrap(),
            Arrival::Fixed {
                interval_ns: 10_000_000
            }
        );
        assert_eq!(
            Arrival::parse("poisson:100/s").unwrap(),
            Arrival::Poisson { mean_ns: 1e7 }
        );
        assert_eq!(
            Arrival::parse("poisson:10ms").unwrap().to_string(),
            "poisson:10ms"
        );
        assert_eq!(
            Arrival::parse("fixed:1.5us").unwrap().to_string(),
            "fixed:1.5us"
        );
        for bad in [
            "poisson",
            "fixed:10",
            "poisson:-1ms",
            "poisson:0/s",
            "gamma:1ms",
            "fixed:0ns",
        ] {
            let e = Arrival::parse(bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{e}");
        }
    }

    #[test]
    fn fixed_clock_counts_intervals_from_zero() {
        let mut c = Clock::new(Arrival::Fixed { interval_ns: 7 }, 1).unwrap();
        let t: Vec<u64> = (0..4).map(|_| c.tick()).collect();
        assert_eq!(t, vec![0, 7, 14, 21]);
        let mut none = Clock::new(Arrival::None, 1).unwrap();
        assert_eq!(none.tick(), NO_TIME);
    }
}
