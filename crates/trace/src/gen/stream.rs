//! The reader shell every generator runs in: a seeded address pattern, an arrival
//! clock and a request budget, served in batches through [`RequestReader`].

use super::arrival::{Arrival, Clock};
use crate::error::Result;
use crate::reader::{RequestReader, TraceMeta, BATCH};
use crate::request::{Op, Request};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::path::PathBuf;

/// The random generator of every address pattern: PCG-64 (MCG variant), seeded
/// through `seed_from_u64`, so a seed gives the same stream on every platform.
pub(crate) type GenRng = Pcg64Mcg;

/// An address pattern: draws the op, length and offset of the next request.
pub(crate) trait Pattern: Send {
    /// The next request's `(op, offset, len)`, or `None` when the pattern has
    /// produced all it was asked for (patterns bounded by bytes rather than requests).
    fn next(&mut self, rng: &mut GenRng) -> Option<(Op, u64, u32)>;
}

/// Draw the op of one request: a write with probability `write_ratio`. No random
/// number is consumed when the ratio is 0 or 1.
#[inline]
pub(crate) fn draw_op(rng: &mut GenRng, write_ratio: f64) -> Op {
    if write_ratio >= 1.0 {
        Op::Write
    } else if write_ratio <= 0.0 || !rng.gen_bool(write_ratio) {
        Op::Read
    } else {
        Op::Write
    }
}

/// A generator as a [`RequestReader`]: O(1) memory, deterministic in `seed`.
pub(crate) struct Stream<P> {
    pattern: P,
    rng: GenRng,
    clock: Clock,
    left: u64,
    meta: TraceMeta,
}

impl<P: Pattern> Stream<P> {
    /// `requests` = most requests to produce (`u64::MAX` = until the pattern ends);
    /// `count` = the exact count if known, for [`TraceMeta::requests`].
    pub(crate) fn new(
        label: String,
        pattern: P,
        seed: u64,
        arrival: Arrival,
        requests: u64,
        count: Option<u64>,
    ) -> Result<Stream<P>> {
        Ok(Stream {
            pattern,
            rng: GenRng::seed_from_u64(seed),
            clock: Clock::new(arrival, seed)?,
            left: requests,
            meta: TraceMeta {
                path: PathBuf::from(label),
                format: None,
                has_time: arrival.has_time(),
                has_op: true,
                requests: count,
            },
        })
    }
}

impl<P: Pattern> RequestReader for Stream<P> {
    fn read_batch(&mut self, out: &mut Vec<Request>) -> Result<bool> {
        out.clear();
        while out.len() < BATCH && self.left > 0 {
            let Some((op, offset, len)) = self.pattern.next(&mut self.rng) else {
                self.left = 0;
                break;
            };
            self.left -= 1;
            out.push(Request {
                time_ns: self.clock.tick(),
                offset,
                len,
                dev: 0,
                op,
            });
        }
        Ok(!out.is_empty())
    }

    fn meta(&self) -> &TraceMeta {
        &self.meta
    }
}
