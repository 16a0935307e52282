//! Prepared traces a user keeps: `TRACE.wprep` beside a trace file holds its
//! [`PreparedTrace`] (`wafer trace prepare`), so a run loads the arrays instead of
//! decoding and densifying the trace again.
//!
//! [`load_from`] is called where every run gets its trace ([`prepare_trace`]:
//! `wafer sim`, `wafer run`, the Python API and Dask workers alike). A prepared file is
//! used only when it matches the run exactly: the trace file's size, modification time
//! and checksum, the format it is read as (and a custom text trace's columns), and the
//! granularity (page size, or record accesses). Otherwise one line on stderr says why
//! and the run prepares the trace from its source, as without the file: a stale file
//! never gives wrong results, and a run never fails because of one. A file that is not
//! a readable prepared trace (truncated, damaged, foreign) is an error naming it: it
//! was put there to be used, and a silent fallback would hide that it no longer is.

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use wafer_cache::prepared::file::{Opened, PreparedFile, Source, EXTENSION, FORMAT_VERSION};
use wafer_cache::PreparedTrace;
use wafer_trace::Granularity;

use crate::error::LabError;
use crate::experiment::Plan;
use crate::task::TraceSource;

/// The prepared file of trace file `trace`: `TRACE.wprep` beside it.
pub fn path_of(trace: &Path) -> PathBuf {
    let mut p = trace.as_os_str().to_owned();
    p.push(".");
    p.push(EXTENSION);
    PathBuf::from(p)
}

/// `trace` (whose checksum is `checksum`) as a prepared file records it, with the
/// trace's path; None for a generated trace (nothing to keep beside).
fn source(trace: &TraceSource, checksum: &str) -> Result<Option<(PathBuf, Source)>, LabError> {
    let t = &trace.def;
    let (None, Some(path)) = (&t.gen, &t.path) else {
        return Ok(None);
    };
    let meta = std::fs::metadata(path).map_err(|e| LabError::io(path, e))?;
    let mtime_ns = meta
        .modified()
        .ok()
        .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64);
    Ok(Some((
        path.clone(),
        Source {
            path: path.display().to_string(),
            size: meta.len(),
            mtime_ns,
            checksum: checksum.to_string(),
            format: trace.format_label().unwrap_or_default(),
        },
    )))
}

/// How accesses are formed, for messages: `4 KiB pages` or `record accesses`.
pub fn describe(g: Granularity) -> String {
    match g {
        Granularity::Page { page_size } => {
            format!(
                "{} pages",
                wafer_trace::units::format_size(u64::from(page_size))
            )
        }
        Granularity::Record => "record accesses".into(),
    }
}

/// Why the prepared file's header does not fit this run, or None when it does.
fn mismatch(have: &Source, g: Granularity, want: &Source, run: Granularity) -> Option<String> {
    if g != run {
        return Some(format!(
            "was prepared for {}, this run uses {}",
            describe(g),
            describe(run)
        ));
    }
    if have.format != want.format {
        return Some(format!(
            "was prepared reading the trace as {}, this run reads it as {}",
            have.format, want.format
        ));
    }
    if (have.size, have.mtime_ns, &have.checksum) != (want.size, want.mtime_ns, &want.checksum) {
        return Some(format!(
            "is stale: {} changed since it was prepared",
            want.path
        ));
    }
    None
}

/// Trace `ti` of `plan` from its prepared file, when there is one and it fits the
/// run; None otherwise (a stale or other-granularity file is named on stderr).
pub fn load(plan: &Plan, ti: usize) -> Result<Option<PreparedTrace>, LabError> {
    load_or(plan, ti, "preparing from the trace")
}

/// [`load`], for a run that does `instead` without the file (named on stderr when
/// one is there but does not fit).
pub fn load_or(plan: &Plan, ti: usize, instead: &str) -> Result<Option<PreparedTrace>, LabError> {
    load_from(
        &plan.trace_source(ti),
        &plan.checksums[ti],
        plan.granularity(),
        instead,
    )
}

/// `trace` (whose checksum is `checksum`, read at granularity `g`) from its prepared
/// file, when there is one and it fits; None otherwise, and always for a streamed
/// trace. A run that does `instead` without the file names it on stderr when one is
/// there but does not fit.
pub fn load_from(
    trace: &TraceSource,
    checksum: &str,
    g: Granularity,
    instead: &str,
) -> Result<Option<PreparedTrace>, LabError> {
    if trace.stream {
        return Ok(None);
    }
    let Some((trace, want)) = source(trace, checksum)? else {
        return Ok(None);
    };
    let path = path_of(&trace);
    if !path.exists() {
        return Ok(None);
    }
    let redo = |why: String| {
        eprintln!(
            "wafer: {} {why}; {instead} (`wafer trace prepare {}` keeps it)",
            path.display(),
            trace.display()
        );
        Ok(None)
    };
    let file = match PreparedFile::open(&path).map_err(sim)? {
        Opened::Current(f) => f,
        Opened::OtherVersion(v) => {
            return redo(format!(
                "is a version {v} prepared trace, this wafer reads version {FORMAT_VERSION}"
            ))
        }
    };
    let h = file.header();
    if let Some(why) = mismatch(&h.source, h.granularity, &want, g) {
        return redo(why);
    }
    file.load().map(Some).map_err(sim)
}

/// Prepare trace `ti` of `plan` from its source and keep it beside the trace
/// (atomically). Returns the prepared file's path and the trace.
pub fn keep(plan: &Plan, ti: usize) -> Result<(PathBuf, PreparedTrace), LabError> {
    let from = plan.trace_source(ti);
    let Some((trace, source)) = source(&from, &plan.checksums[ti])? else {
        return Err(LabError::Invalid(
            "a generated trace has no file to keep a prepared trace beside".into(),
        ));
    };
    let t = prepare_from_source(&from, plan.granularity())?;
    let path = path_of(&trace);
    t.save(&path, source).map_err(sim)?;
    Ok((path, t))
}

fn sim(e: wafer_cache::SimError) -> LabError {
    LabError::Invalid(e.to_string())
}

/// `trace` (whose checksum is `checksum`) prepared at granularity `g` (once per
/// trace; cells share it): read from its prepared file when one fits the run
/// ([`load_from`]), otherwise decoded and densified from the trace. Every run gets
/// its trace here.
pub fn prepare_trace(
    trace: &TraceSource,
    checksum: &str,
    g: Granularity,
) -> Result<PreparedTrace, LabError> {
    match load_from(trace, checksum, g, "preparing from the trace")? {
        Some(t) => Ok(t),
        None => prepare_from_source(trace, g),
    }
}

/// Decode and densify `trace` at granularity `g`.
pub fn prepare_from_source(trace: &TraceSource, g: Granularity) -> Result<PreparedTrace, LabError> {
    let mut reader = trace.open()?;
    let limit = crate::bounds::memory_limit();
    let p = PreparedTrace::read_within(g, reader.as_mut(), &mut |_| {}, limit)
        .map_err(|e| prepare_error(&trace.source(), e))?;
    say_skipped(&trace.source(), reader.skipped());
    Ok(p)
}

/// One line on stderr for the malformed records a `skip_invalid` read of `source`
/// skipped (every command says it the same way).
pub fn say_skipped(source: &str, skipped: u64) {
    if skipped > 0 {
        eprintln!("wafer: {source}: skipped {skipped} malformed records");
    }
}

/// An error of preparing `source`, with how to proceed when it is too large.
pub(crate) fn prepare_error(source: &str, e: wafer_cache::SimError) -> LabError {
    use wafer_cache::SimError;
    const STREAM: &str = "stream it instead: wafer sim --stream, `stream = true` in an experiment file, stream=True in Python";
    match e {
        SimError::TooLarge(_) => LabError::Invalid(about(source, format!("{e} ({STREAM})"))),
        SimError::OverMemory { .. } => LabError::Memory(about(
            source,
            format!(
                "{e}; {STREAM}, or set {}=SIZE where more memory is available",
                crate::bounds::MEMORY_ENV
            ),
        )),
        // As the `wafer` binary's allocator words it, the trace named after.
        SimError::OutOfMemory(bytes) => LabError::Memory(format!(
            "out of memory (could not allocate {bytes} bytes preparing {source}; {STREAM})"
        )),
        e => LabError::Invalid(about(source, e.to_string())),
    }
}

/// An error of streaming `source` (counting it, or a run reading it): a densifier,
/// buffer or policy that could not grow is [`LabError::Memory`] (`MemoryError` in
/// Python), one line naming the trace; the rest is about the trace.
pub(crate) fn stream_error(source: &str, e: wafer_cache::SimError) -> LabError {
    match e {
        e @ wafer_cache::SimError::StreamOutOfMemory { .. } => {
            LabError::Memory(format!("out of memory while densifying {source}: {e}"))
        }
        e => LabError::Invalid(about(source, e.to_string())),
    }
}

/// `msg` about `source`, naming it once (reader errors name their file already).
pub(crate) fn about(source: &str, msg: String) -> String {
    if msg.contains(source) {
        msg
    } else {
        format!("{source}: {msg}")
    }
}
