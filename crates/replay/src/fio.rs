//! `--via fio`: the same mapped I/Os, issued by fio instead of the built-in pool.
//!
//! The player maps the trace exactly as for its own engine (same range, same wrap,
//! same alignment; the safety rules have already run), writes the mapped I/Os as an
//! fio iolog v2 ([`wafer_trace::export`]) and runs
//! `fio --read_iolog=LOG --ioengine=psync|libaio --iodepth=QD --direct=0|1
//! --output-format=json`, then reads fio's JSON into the same report. fio writes its
//! own buffer contents, so no data pattern is announced and `--verify` is refused;
//! an iolog v2 carries no timestamps, so the replay is as fast as possible.

use crate::error::{Error, Result};
use crate::histogram::LatencySummary;
use crate::plan::{self, Mapper};
use crate::report::OpReport;
use crate::target::Target;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use wafer_trace::export::TraceWriter;
use wafer_trace::{Op, Request, RequestReader, NO_TIME};

/// What fio reported, in the player's terms.
#[derive(Clone, Debug)]
pub struct FioRun {
    /// Requests of the trace replayed.
    pub requests: u64,
    /// Requests with a wrapped page.
    pub wrapped_requests: u64,
    /// I/Os fio issued (its `total_ios`); the reports count those it measured.
    pub issued: u64,
    /// fio's job runtime, s.
    pub elapsed_s: f64,
    /// Reads as fio measured them (completion latency).
    pub read: OpReport,
    /// Writes.
    pub write: OpReport,
    /// fio's version string.
    pub version: String,
}

/// Write the mapped I/Os of `reader` as an iolog v2 at `log`; returns (requests,
/// wrapped requests).
fn write_iolog(
    log: &Path,
    target: &Path,
    reader: &mut dyn RequestReader,
    mapper: &Mapper,
    progress: &mut dyn FnMut(u64),
) -> Result<(u64, u64)> {
    let name = target.to_str().ok_or_else(|| {
        Error::Fio(format!(
            "{}: fio needs a target path that is valid UTF-8",
            target.display()
        ))
    })?;
    let mut w = TraceWriter::create_fio_iolog(log, name)?;
    let (mut requests, mut wrapped) = (0u64, 0u64);
    let mut batch = Vec::new();
    let mut ios = Vec::new();
    let mut out = Vec::new();
    let trace = reader.meta().path.clone();
    let mut record = 0u64;
    while reader.read_batch(&mut batch)? {
        out.clear();
        for r in &batch {
            record += 1;
            ios.clear();
            let w = mapper
                .map(r, &mut ios)
                .map_err(|why| plan::unaddressable(&trace, record, &why))?;
            wrapped += u64::from(w);
            if ios.is_empty() {
                continue;
            }
            requests += 1;
            for io in &ios {
                // I/Os are at most `Mapper::max_io_bytes`, a page or 4 MiB.
                let len = u32::try_from(io.len).map_err(|_| {
                    Error::Fio(format!(
                        "an I/O of {} bytes does not fit an iolog line (at most 4 GiB)",
                        io.len
                    ))
                })?;
                out.push(Request {
                    time_ns: NO_TIME,
                    offset: io.offset,
                    len,
                    dev: 0,
                    op: if io.write { Op::Write } else { Op::Read },
                });
            }
        }
        w.write_all(&out)?;
        progress(requests);
    }
    w.finish()?;
    Ok((requests, wrapped))
}

/// Run fio on the mapped trace.
pub fn run(
    t: &Target,
    reader: &mut dyn RequestReader,
    mapper: &Mapper,
    queue_depth: u32,
    progress: &mut dyn FnMut(u64),
) -> Result<FioRun> {
    let dir = tempfile::tempdir().map_err(|e| Error::io(std::env::temp_dir(), e))?;
    let log = dir.path().join("replay.iolog");
    let (requests, wrapped_requests) = write_iolog(&log, &t.path, reader, mapper, progress)?;
    let engine = if queue_depth > 1 { "libaio" } else { "psync" };
    let out = Command::new("fio")
        .arg("--name=wafer-replay")
        .arg(format!("--read_iolog={}", log.display()))
        .arg(format!("--ioengine={engine}"))
        .arg(format!("--iodepth={queue_depth}"))
        .arg(format!("--direct={}", u8::from(t.direct)))
        .arg("--percentile_list=50:95:99")
        .arg("--output-format=json")
        .output()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::Fio(
                    "fio is not installed or not on PATH (install it, e.g. `apt-get install \
                     fio`, or leave out --via fio to use the built-in engine)"
                        .into(),
                )
            } else {
                Error::Fio(format!("cannot run fio: {e}"))
            }
        })?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(Error::Fio(format!(
            "fio exited with {}: {last}",
            out.status
        )));
    }
    let mut r = parse_json(&stdout)?;
    r.requests = requests;
    r.wrapped_requests = wrapped_requests;
    Ok(r)
}

fn num(v: &Value, path: &[&str]) -> Result<f64> {
    let mut x = v;
    for k in path {
        x = x
            .get(k)
            .ok_or_else(|| Error::Fio(format!("JSON output lacks `{}`", path.join("."))))?;
    }
    x.as_f64()
        .ok_or_else(|| Error::Fio(format!("JSON field `{}` is not a number", path.join("."))))
}

/// One direction of fio's job: I/Os and bytes as fio accounted them, completion
/// latency. `total_ios` counts issued I/Os; with an async engine fio leaves the last
/// in-flight ones out of `io_bytes` and `clat_ns`, so the report counts the completions
/// fio measured (`clat_ns.N`) and [`FioRun::issued`] keeps the issued count. A
/// direction without measured completions has no percentiles in the JSON.
fn op(job: &Value, dir: &str, elapsed_s: f64) -> Result<(OpReport, u64)> {
    let d = &job[dir];
    let issued = num(d, &["total_ios"])? as u64;
    let bytes = num(d, &["io_bytes"])? as u64;
    let count = match d.get("clat_ns").and_then(|c| c.get("N")) {
        Some(_) => num(d, &["clat_ns", "N"])? as u64,
        None => issued,
    };
    let us = |p: &[&str]| -> Result<f64> {
        if count == 0 {
            return Ok(0.0);
        }
        Ok(num(d, p)? / 1e3)
    };
    let latency = LatencySummary {
        count,
        min_us: us(&["clat_ns", "min"])?,
        mean_us: us(&["clat_ns", "mean"])?,
        p50_us: us(&["clat_ns", "percentile", "50.000000"])?,
        p95_us: us(&["clat_ns", "percentile", "95.000000"])?,
        p99_us: us(&["clat_ns", "percentile", "99.000000"])?,
        max_us: us(&["clat_ns", "max"])?,
        log2_buckets: Vec::new(),
    };
    Ok((OpReport::from_summary(latency, bytes, elapsed_s), issued))
}

/// Read fio's `--output-format=json` text (anything before the first `{` — fio's
/// warnings — is skipped) into a run report; rates are over the job's runtime.
pub fn parse_json(text: &str) -> Result<FioRun> {
    let start = text
        .find('{')
        .ok_or_else(|| Error::Fio("no JSON in fio's output".into()))?;
    let v: Value = serde_json::from_str(&text[start..])
        .map_err(|e| Error::Fio(format!("cannot parse fio's JSON output: {e}")))?;
    let job = v
        .get("jobs")
        .and_then(|j| j.get(0))
        .ok_or_else(|| Error::Fio("JSON output has no job".into()))?;
    if let Some(e) = job.get("error").and_then(Value::as_i64).filter(|&e| e != 0) {
        return Err(Error::Fio(format!("job failed with error {e}")));
    }
    let elapsed_s = num(job, &["job_runtime"])? / 1e3;
    let (read, read_issued) = op(job, "read", elapsed_s)?;
    let (write, write_issued) = op(job, "write", elapsed_s)?;
    Ok(FioRun {
        requests: 0,
        wrapped_requests: 0,
        elapsed_s,
        issued: read_issued + write_issued,
        read,
        write,
        version: v
            .get("fio version")
            .and_then(Value::as_str)
            .unwrap_or("fio")
            .to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Real output of fio 3.33 replaying a 5-I/O iolog (2 writes of 4 KiB and 8 KiB,
    /// 3 reads of 4 KiB) with psync and O_DIRECT.
    #[test]
    fn parses_real_fio_json() {
        let text = include_str!("../tests/data/fio-3.33-psync.json");
        let r = parse_json(&format!("fio: some warning\n{text}")).unwrap();
        assert_eq!(r.version, "fio-3.33");
        assert_eq!(r.elapsed_s, 0.025);
        assert_eq!((r.read.ios, r.read.bytes), (3, 12288));
        assert_eq!((r.write.ios, r.write.bytes), (2, 12288));
        assert_eq!(r.read.latency.min_us, 3859.438);
        assert_eq!(r.read.latency.p50_us, 3948.544);
        assert_eq!(r.write.latency.p99_us, 9109.504);
        assert_eq!(r.write.latency.max_us, 9139.326);
        assert!((r.read.iops - 3.0 / 0.025).abs() < 1e-9);
        assert_eq!(r.issued, 5);
    }

    /// The shape fio 3.33 prints for a 3-I/O iolog under libaio at depth 4: all three
    /// issued, none accounted (no completion latencies, no percentiles).
    #[test]
    fn unaccounted_async_ios_have_no_percentiles() {
        let dir = |n: u64| {
            format!(
                "{{\"total_ios\":{n},\"io_bytes\":0,\"clat_ns\":{{\"min\":0,\"max\":0,\
                 \"mean\":0.0,\"stddev\":0.0,\"N\":0}}}}"
            )
        };
        let text = format!(
            "{{\"fio version\":\"fio-3.33\",\"jobs\":[{{\"error\":0,\"job_runtime\":0,\
             \"read\":{},\"write\":{}}}]}}",
            dir(1),
            dir(2)
        );
        let r = parse_json(&text).unwrap();
        assert_eq!(r.issued, 3);
        assert_eq!((r.read.ios, r.write.ios, r.write.bytes), (0, 0, 0));
        assert_eq!(r.write.latency.p99_us, 0.0);
    }

    #[test]
    fn reports_fio_errors() {
        let e = parse_json("{\"jobs\":[{\"error\":5}]}").unwrap_err();
        assert_eq!(e.to_string(), "fio: job failed with error 5");
        assert!(parse_json("fio: bad option")
            .unwrap_err()
            .to_string()
            .contains("no JSON"));
    }
}
