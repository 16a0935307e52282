//! Reader integration tests: the real traces of `../shared/traces` against their
//! README and libCacheSim's key count, malformed input with line numbers, and
//! property tests (random and mutated bytes) for every reader.

mod fuzz;
mod malformed;
mod real;
mod semantics;

use std::io::Cursor;
use std::path::Path;
use wafer_trace::{Format, ReadOptions, Request, RequestReader};

/// A public trace, or `None` (after one visible line) where it is absent outside CI.
pub use wafer_testdata::trace;

/// Every request of a reader.
pub fn drain(r: &mut dyn RequestReader) -> wafer_trace::Result<Vec<Request>> {
    let mut all = Vec::new();
    let mut batch = Vec::new();
    while r.read_batch(&mut batch)? {
        all.extend_from_slice(&batch);
    }
    Ok(all)
}

/// Options forcing `format` (or detecting with `None`).
pub fn opts(format: Option<Format>) -> ReadOptions {
    ReadOptions {
        format,
        ..ReadOptions::default()
    }
}

/// Read in-memory bytes named `name`.
pub fn read_bytes(
    name: &str,
    data: &[u8],
    o: &ReadOptions,
) -> wafer_trace::Result<(Vec<Request>, u64)> {
    let mut r =
        wafer_trace::reader::open_stream(Path::new(name), Box::new(Cursor::new(data.to_vec())), o)?;
    let v = drain(r.as_mut())?;
    Ok((v, r.skipped()))
}
