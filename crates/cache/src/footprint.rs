//! One counting pass over a trace: its distinct pages and its accesses, in O(distinct
//! pages) memory.
//!
//! A cache size given as a share of the footprint (`5%`) needs the footprint before
//! the first access. A [`crate::PreparedTrace`] knows it once built; a trace too
//! large to prepare is counted here first and then streamed once per cell. The
//! definitions are the prepared trace's, so `5%` is the same number of pages either
//! way: every page a request touches (trims included) is one distinct page, and
//! accesses are the pages of reads and writes.

use wafer_trace::{Densifier, Granularity, Op, RequestReader};

use crate::error::SimError;

/// What the counting pass found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Distinct pages (the universe of dense ids a run over the trace will use).
    pub pages: u32,
    /// Page accesses (reads and writes; trims are not accesses).
    pub accesses: u64,
}

impl Footprint {
    /// Read `reader` to the end; `progress` is called with the number of requests
    /// read so far after each batch.
    pub fn count(
        granularity: Granularity,
        reader: &mut dyn RequestReader,
        progress: &mut dyn FnMut(u64),
    ) -> Result<Footprint, SimError> {
        let mut dens = Densifier::expecting(reader.expected_keys(granularity));
        let mut batch = Vec::with_capacity(wafer_trace::reader::BATCH);
        let (mut requests, mut accesses) = (0u64, 0u64);
        while reader.read_batch(&mut batch)? {
            for r in &batch {
                // Room for every page of the request, asked for fallibly: a trace
                // whose pages do not fit is an error, not an abort.
                let n = granularity.count(r);
                dens.try_reserve(usize::try_from(n).unwrap_or(usize::MAX))
                    .map_err(|bytes| SimError::StreamOutOfMemory {
                        bytes,
                        what: "the page table",
                        pages: dens.len() as u64,
                    })?;
                granularity.for_each_key(r, |key| {
                    dens.id_in_room(key);
                });
                if r.op != Op::Trim {
                    accesses += n;
                }
            }
            requests += batch.len() as u64;
            progress(requests);
        }
        let pages = u32::try_from(dens.len()).map_err(|_| SimError::TooLarge("distinct pages"))?;
        Ok(Footprint { pages, accesses })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PreparedTrace;
    use wafer_trace::Request;

    /// The counting pass agrees with the prepared trace, trims and multi-page
    /// requests included.
    #[test]
    fn agrees_with_the_prepared_trace() {
        let req = |offset: u64, len: u32, op: Op| Request {
            time_ns: 0,
            offset,
            len,
            dev: 0,
            op,
        };
        let reqs = vec![
            req(0, 8192, Op::Write),
            req(4096, 4096, Op::Read),
            req(1 << 20, 12288, Op::Trim),
            req(40960, 1, Op::Read),
            req(0, 4096, Op::Write),
        ];
        let g = Granularity::default();
        let t = PreparedTrace::from_requests(g, &reqs).unwrap();
        struct Mem(Option<Vec<Request>>, wafer_trace::TraceMeta);
        impl RequestReader for Mem {
            fn read_batch(&mut self, out: &mut Vec<Request>) -> wafer_trace::Result<bool> {
                out.clear();
                if let Some(v) = self.0.take() {
                    out.extend(v);
                }
                Ok(!out.is_empty())
            }
            fn meta(&self) -> &wafer_trace::TraceMeta {
                &self.1
            }
        }
        let mut seen = 0;
        let f = Footprint::count(g, &mut Mem(Some(reqs), Default::default()), &mut |n| {
            seen = n
        })
        .unwrap();
        assert_eq!(seen, 5);
        assert_eq!(f.pages, t.universe());
        assert_eq!(f.accesses, t.accesses());
        // Pages 0, 1, 10 and the three trimmed ones; 2 + 1 + 1 + 1 accesses.
        assert_eq!((f.pages, f.accesses), (6, 5));
    }
}
