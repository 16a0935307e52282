//! Several cells over one streamed pass: the trace is read, expanded and densified
//! once, and each chunk of dense accesses runs through every cell's policy in turn.
//!
//! Over a prepared trace a cell's own pass costs little (BENCHMARKS.md, "Cores"), but
//! a streamed cell spends most of its time decoding (or generating) and densifying
//! the trace; cells that share a pass pay that once. Each cell keeps its own policy,
//! counters and after-cache sink, and gets the result it would get alone: the
//! accesses, their order, the dense ids and the keys are the same.

use wafer_trace::RequestReader;

use crate::after::AfterSink;
use crate::engine::{stream_pass, stream_together, Pass};
use crate::error::SimError;
use crate::metrics::Metrics;
use crate::policy::Policy;
use crate::registry::{with_policy, PolicySpec, PolicyVisitor};
use crate::SimConfig;

/// One cell of a shared pass.
pub struct Together<'a, A> {
    /// Its policy.
    pub spec: &'a PolicySpec,
    /// Its configuration. Every cell of a pass has the same granularity and the same
    /// pages per block (the dense ids and block ids are made once for all).
    pub cfg: &'a SimConfig,
    /// Where its after-cache trace goes.
    pub after: &'a mut A,
}

/// Run every cell of `cells` over one pass of `reader`; `progress` gets the
/// accesses done by all of them together. One result per cell, in order: a cell
/// whose policy cannot be built (an unknown name, a bad parameter, an offline
/// policy) or whose sink fails has its error and the others go on. The outer error
/// is the stream's own (a read error, memory), which every cell shares, or cells
/// that disagree on the granularity or the block size.
pub fn simulate_together<A: AfterSink>(
    cells: Vec<Together<'_, A>>,
    reader: &mut dyn RequestReader,
    progress: &mut dyn FnMut(u64),
) -> Result<Vec<Result<Metrics, SimError>>, SimError> {
    let Some(first) = cells.first() else {
        return Ok(Vec::new());
    };
    let (gran, ppb) = (first.cfg.granularity, first.cfg.pages_per_block);
    if let Some(c) = cells
        .iter()
        .find(|c| c.cfg.granularity != gran || c.cfg.pages_per_block != ppb)
    {
        return Err(SimError::Invalid(format!(
            "cells sharing a pass need one granularity and block size: {} has {:?} and {} pages per block, the first {:?} and {}",
            c.spec, c.cfg.granularity, c.cfg.pages_per_block, gran, ppb
        )));
    }
    struct Build<'a, A> {
        cfg: &'a SimConfig,
        after: &'a mut A,
    }
    impl<'a, A: AfterSink> PolicyVisitor for Build<'a, A> {
        type Output = Result<Box<dyn Pass + 'a>, SimError>;
        fn visit<P: Policy>(self, params: P::Params) -> Self::Output {
            stream_pass::<P, A>(&params, self.cfg, self.after)
        }
    }
    // Cells that cannot run keep their error; the rest share the pass.
    let mut results: Vec<Option<Result<Metrics, SimError>>> = Vec::with_capacity(cells.len());
    let mut passes = Vec::new();
    for c in cells {
        match with_policy(
            c.spec,
            Build {
                cfg: c.cfg,
                after: c.after,
            },
        )
        .and_then(|r| r)
        {
            Ok(p) => {
                passes.push(p);
                results.push(None);
            }
            Err(e) => results.push(Some(Err(e))),
        }
    }
    let mut ran = stream_together(reader, gran, ppb.get(), passes, progress)?.into_iter();
    Ok(results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| ran.next().expect("one result per pass")))
        .collect())
}
