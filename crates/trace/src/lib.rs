//! The trace layer of wafer: the request model every stage shares, readers for the
//! trace formats storage researchers use, wafer's own `.wtr` binary format, and
//! deterministic workload generators.
//!
//! Design: a trace is a stream of [`Request`]s (time, op, byte offset, byte length,
//! device). Readers fill caller-owned batches ([`RequestReader::read_batch`]) so that
//! decoding never allocates per request and a consumer pays one dynamic call per
//! batch, not per request. Page expansion ([`Granularity`]) turns requests into page
//! accesses exactly as `docs/cache.md` ("Engine semantics") specifies; [`Densifier`]
//! maps sparse page keys to dense `u32` ids so that later stages can keep per-page
//! state in flat arrays.
#![deny(missing_docs)]

pub mod alloc;
pub mod capture;
pub mod cpu_cache;
pub mod densify;
pub mod distinct;
pub mod error;
pub mod export;
mod formats;
pub mod gen;
/// Latency histogram with percentiles; here because both timed consumers, the timed SSD
/// (wafer-ssd) and the workload player (wafer-replay), share it and have no other common
/// dependency.
pub mod histogram;
pub mod mapping;
/// Prefetch hints for flat per-page tables; here, in the crate every simulator depends on,
/// so that any of them can use it (the cache policies do; the FTLs measured faster with
/// plain loads).
pub mod prefetch;
pub mod reader;
pub mod request;
pub mod stats;
pub mod suggest;
pub mod tempfiles;
pub mod units;
pub mod wtr;

pub use densify::Densifier;
pub use distinct::DistinctKeys;
pub use error::{Error, Result};
pub use export::{OutFormat, TraceWriter, WriteInfo};
pub use mapping::{Mapping, MappingError};
pub use reader::{open, Format, ReadOptions, RequestReader, TraceMeta};
pub use request::{
    block_key, key_dev, key_page, page_key, Granularity, Op, Request, NO_TIME, SECTOR,
};
