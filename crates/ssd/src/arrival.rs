//! Arrival processes and the driver that feeds a trace through the device.
//!
//! * [`Arrival::Trace`]: the trace's own timestamps (an error if it has none).
//! * [`Arrival::Fixed`]: request `i` arrives at `i x interval`.
//! * [`Arrival::Poisson`]: exponential inter-arrival times with the given mean,
//!   seeded (PCG64), the first request at 0.
//! * [`Arrival::Closed`]: a closed loop of `depth` outstanding requests with no think
//!   time: the first `depth` arrive at 0, every later request when the earliest of
//!   the outstanding ones completes (requests complete out of order when the device
//!   serves several at once).

use crate::device::{Completion, Ssd, PREFETCH_AHEAD};
use crate::error::SsdError;
use crate::flash::Flash;
use rand::SeedableRng;
use rand_distr::{Distribution, Exp};
use rand_pcg::Pcg64;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use wafer_trace::{Request, RequestReader, NO_TIME};

/// How request arrival times are produced.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Arrival {
    /// The trace's timestamps.
    Trace,
    /// A fixed interval between arrivals.
    Fixed {
        /// Interval, ns.
        interval_ns: u64,
    },
    /// Poisson arrivals.
    Poisson {
        /// Mean inter-arrival time, ns.
        mean_ns: u64,
        /// RNG seed.
        seed: u64,
    },
    /// Closed loop with this many outstanding requests.
    Closed {
        /// Outstanding requests.
        depth: u32,
    },
}

impl Arrival {
    /// Parse `trace`, `fixed:<duration>`, `poisson:<mean gap>` (seed 1) or
    /// `poisson:<mean gap>:<seed>`, or `closed:<depth>`.
    pub fn parse(s: &str) -> Result<Arrival, SsdError> {
        let bad = |why: String| {
            SsdError::Config(format!(
                "arrival `{s}`: {why} (expected trace, fixed:1ms, poisson:10ms[:seed] or closed:<depth>)"
            ))
        };
        let parts: Vec<&str> = s.trim().split(':').collect();
        let a = match parts.as_slice() {
            ["trace"] => Arrival::Trace,
            ["fixed", d] => Arrival::Fixed {
                interval_ns: crate::parse_duration_ns(d).map_err(|e| bad(e.to_string()))?,
            },
            ["poisson", d] | ["poisson", d, _] => Arrival::Poisson {
                mean_ns: crate::parse_duration_ns(d).map_err(|e| bad(e.to_string()))?,
                seed: match parts.get(2) {
                    Some(x) => x
                        .parse()
                        .map_err(|_| bad(format!("seed `{x}` is not a number")))?,
                    None => 1,
                },
            },
            ["closed", n] => Arrival::Closed {
                depth: n
                    .parse()
                    .map_err(|_| bad(format!("depth `{n}` is not a number")))?,
            },
            _ => return Err(bad("unknown form".into())),
        };
        a.validate().map_err(|e| bad(e.to_string()))?;
        Ok(a)
    }

    /// Check the parameters.
    pub fn validate(&self) -> Result<(), SsdError> {
        match *self {
            Arrival::Poisson { mean_ns: 0, .. } => Err(SsdError::Config(
                "the Poisson mean inter-arrival time must be positive".into(),
            )),
            Arrival::Closed { depth: 0 } => Err(SsdError::Config(
                "a closed loop needs at least one outstanding request".into(),
            )),
            _ => Ok(()),
        }
    }
}

/// Produces arrival times one request at a time.
pub struct Arrivals {
    kind: Arrival,
    i: u64,
    t: u64,
    rng: Pcg64,
    exp: Option<Exp<f64>>,
    /// Completion times of the outstanding requests (closed loop).
    done: BinaryHeap<Reverse<u64>>,
}

impl Arrivals {
    /// A generator for `kind`.
    pub fn new(kind: Arrival) -> Result<Arrivals, SsdError> {
        kind.validate()?;
        let (seed, exp) = match kind {
            Arrival::Poisson { mean_ns, seed } => (
                seed,
                Some(Exp::new(1.0 / mean_ns as f64).expect("positive rate")),
            ),
            _ => (0, None),
        };
        Ok(Arrivals {
            kind,
            i: 0,
            t: 0,
            rng: Pcg64::seed_from_u64(seed),
            exp,
            done: BinaryHeap::new(),
        })
    }

    /// Arrival time of the next request (`req` gives its timestamp for
    /// [`Arrival::Trace`]); `None` when the trace has no timestamp.
    #[inline]
    pub fn next(&mut self, req: &Request) -> Option<u64> {
        let i = self.i;
        self.i += 1;
        match self.kind {
            Arrival::Trace => (req.time_ns != NO_TIME).then_some(req.time_ns),
            Arrival::Fixed { interval_ns } => Some(i * interval_ns),
            Arrival::Poisson { .. } => {
                if i > 0 {
                    let gap = self.exp.as_ref().expect("poisson").sample(&mut self.rng);
                    self.t += gap.round() as u64;
                }
                Some(self.t)
            }
            Arrival::Closed { depth } => {
                if i < u64::from(depth) {
                    Some(0)
                } else {
                    self.done.pop().map(|Reverse(t)| t)
                }
            }
        }
    }

    /// Tell the generator a request completed (closed loop).
    #[inline]
    pub fn completed(&mut self, c: &Completion) {
        if let Arrival::Closed { .. } = self.kind {
            self.done.push(Reverse(c.done_ns));
        }
    }
}

/// Feed `reader` through `ssd` with `arrival` times, at most `limit` requests;
/// `progress(done)` after each batch, `observe` for every completion. Every
/// [`PREFETCH_AHEAD`] requests are announced to [`Ssd::prefetch`] before they are served.
pub fn run<F: Flash>(
    ssd: &mut Ssd<F>,
    reader: &mut dyn RequestReader,
    arrival: Arrival,
    limit: Option<u64>,
    mut progress: impl FnMut(u64),
    mut observe: impl FnMut(&Request, &Completion),
) -> Result<u64, SsdError> {
    let mut arr = Arrivals::new(arrival)?;
    let mut batch = Vec::with_capacity(wafer_trace::reader::BATCH);
    let mut n = 0u64;
    let limit = limit.unwrap_or(u64::MAX);
    while n < limit && reader.read_batch(&mut batch)? {
        for (i, req) in batch.iter().enumerate() {
            if n == limit {
                break;
            }
            if i % PREFETCH_AHEAD == 0 {
                ssd.prefetch(&batch[i..batch.len().min(i + PREFETCH_AHEAD)]);
            }
            let Some(t) = arr.next(req) else {
                return Err(SsdError::Config(format!(
                    "{}: request {} has no timestamp; choose an arrival process \
                     (fixed interval, Poisson or closed loop)",
                    reader.meta().path.display(),
                    n + 1
                )));
            };
            let c = ssd.submit(req, t).map_err(|e| match e {
                SsdError::Ftl(f) => SsdError::Config(format!(
                    "{}: request {} (offset {} bytes): {f}",
                    reader.meta().path.display(),
                    n + 1,
                    req.offset
                )),
                other => other,
            })?;
            arr.completed(&c);
            observe(req, &c);
            n += 1;
        }
        progress(n);
    }
    Ok(n)
}

/// A [`RequestReader`] over a list of requests (tests, examples, generators).
pub struct VecReader {
    reqs: Vec<Request>,
    pos: usize,
    meta: wafer_trace::TraceMeta,
}

impl VecReader {
    /// Serve `reqs` in order.
    pub fn new(reqs: Vec<Request>) -> VecReader {
        let has_time = reqs.first().is_some_and(|r| r.time_ns != NO_TIME);
        VecReader {
            meta: wafer_trace::TraceMeta {
                path: "<requests>".into(),
                has_time,
                has_op: true,
                requests: Some(reqs.len() as u64),
                ..Default::default()
            },
            reqs,
            pos: 0,
        }
    }
}

impl RequestReader for VecReader {
    fn read_batch(&mut self, out: &mut Vec<Request>) -> wafer_trace::Result<bool> {
        out.clear();
        let end = (self.pos + wafer_trace::reader::BATCH).min(self.reqs.len());
        out.extend_from_slice(&self.reqs[self.pos..end]);
        self.pos = end;
        Ok(!out.is_empty())
    }
    fn meta(&self) -> &wafer_trace::TraceMeta {
        &self.meta
    }
}
