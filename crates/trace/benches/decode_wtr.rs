//! `.wtr` decoding throughput (requests per second, one core). A synthetic block
//! trace is written once to a temporary `.wtr` file, then read through
//! `wafer_trace::open` exactly as every wafer command reads traces (batches of
//! `BATCH` requests, checksums verified).
//!
//! The trace mixes what makes block traces hard to compress: timestamps with
//! irregular gaps (up to ~1 ms), sequential runs broken by random jumps over a
//! 100 GiB span, five request sizes, 70 % reads, two devices.
//!
//! Wall-clock and CPU-time throughputs are printed: on a shared machine the
//! second is the decoder's own speed on one core.
//!
//! Run: `cargo bench -p wafer-trace --bench decode_wtr` (set `REQUESTS` to change
//! the trace length; default 30,000,000).

use std::time::Instant;
use wafer_trace::reader::BATCH;
use wafer_trace::{Op, OutFormat, ReadOptions, Request, TraceWriter, WriteInfo};

fn write_trace(path: &std::path::Path, n: u64) {
    let info = WriteInfo {
        origin: "decode_wtr benchmark".into(),
        page_size: 4096,
        has_time: true,
        has_op: true,
    };
    let mut w = TraceWriter::create(path, OutFormat::Wtr, &info).unwrap();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let (mut t, mut off) = (1_000_000_000u64, 0u64);
    let mut batch = Vec::with_capacity(BATCH);
    for _ in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        t += x % 1_000_000;
        let len = [512u32, 4096, 8192, 16384, 65536][(x >> 20) as usize % 5];
        if (x >> 32) % 4 == 0 {
            off = (x >> 8) % (100 << 30) / 512 * 512;
        } else {
            off += u64::from(len);
        }
        batch.push(Request {
            time_ns: t,
            offset: off,
            len,
            dev: ((x >> 40) % 2) as u32,
            op: if (x >> 44) % 10 < 7 {
                Op::Read
            } else {
                Op::Write
            },
        });
        if batch.len() == BATCH {
            w.write_all(&batch).unwrap();
            batch.clear();
        }
    }
    w.write_all(&batch).unwrap();
    w.finish().unwrap();
}

/// CPU time this thread has run, in seconds (`/proc/thread-self/schedstat`, Linux),
/// so that figures on a shared, busy machine measure the decoder and not the
/// neighbours; `None` elsewhere.
fn cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn main() {
    let n: u64 = std::env::var("REQUESTS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30_000_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.wtr");
    let t = Instant::now();
    write_trace(&path, n);
    let wsecs = t.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&path).unwrap().len();
    println!(
        "wrote {n} requests in {wsecs:.2} s ({:.1} M req/s): {:.1} MB, {:.2} bytes/request",
        n as f64 / wsecs / 1e6,
        bytes as f64 / 1e6,
        bytes as f64 / n as f64
    );
    let (mut best, mut best_cpu) = (f64::MAX, f64::MAX);
    for _ in 0..3 {
        let c0 = cpu_secs();
        let t = Instant::now();
        let mut r = wafer_trace::open(&path, &ReadOptions::default()).unwrap();
        let mut batch = Vec::with_capacity(BATCH);
        let (mut got, mut sum) = (0u64, 0u64);
        while r.read_batch(&mut batch).unwrap() {
            got += batch.len() as u64;
            sum = sum.wrapping_add(
                batch
                    .iter()
                    .map(|q| q.offset ^ q.time_ns ^ u64::from(q.len))
                    .fold(0, u64::wrapping_add),
            );
        }
        let dt = t.elapsed().as_secs_f64();
        if let (Some(a), Some(b)) = (c0, cpu_secs()) {
            best_cpu = best_cpu.min(b - a);
        }
        assert_eq!(got, n);
        std::hint::black_box(sum);
        best = best.min(dt);
    }
    println!(
        "decode   {n} requests: best of 3 {best:.3} s = {:.1} M requests/s ({:.0} MB/s of .wtr)",
        n as f64 / best / 1e6,
        bytes as f64 / best / 1e6
    );
    if best_cpu < f64::MAX {
        println!(
            "decode   CPU time of the decoding thread: best of 3 {best_cpu:.3} s = {:.1} M requests/s per core",
            n as f64 / best_cpu / 1e6
        );
    }
}
