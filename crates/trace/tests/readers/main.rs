//! Reader integration tests: the real traces of `../shared/traces` against their
//! README and libCacheSim's key count, malformed input with line numbers, and
//! property tests (random and mutated bytes) for every reader.

mod fuzz;
mod malformed;
mod real;
mod semantics;

use std::io::Cursor;
use std::path::{Path, PathBuf};
use wafer_trace::{Format, ReadOptions, Request, RequestReader};

/// A shared trace, or `None` (with a message) when it is missing outside CI.
pub fn trace(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/traces/"
    ))
    .join(rel);
    if p.exists() {
        return Some(p);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{} is missing (CI needs ../shared/traces)", p.display());
    }
    eprintln!("skipping: {} not found", p.display());
    None
}

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
        wafer_trace::format::open_stream(Path::new(name), Box::new(Cursor::new(data.to_vec())), o)?;
    let v = drain(r.as_mut())?;
    Ok((v, r.skipped()))
}
