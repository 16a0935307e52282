//! Text decoding throughput (lines per second, one core) for simple CSV traces:
//! SPC/UMass style (`ASU,LBA,Size,Opcode,Timestamp`) and MSR Cambridge style. The
//! input is synthetic, written once to a temporary file, then read through
//! `wafer_trace::open` exactly as `wafer trace info` reads it.
//!
//! Run: `cargo bench -p wafer-trace --bench decode_text` (set `LINES` to change the
//! trace length; default 5,000,000).

use std::io::Write;
use std::time::Instant;
use wafer_trace::reader::BATCH;
use wafer_trace::{Format, ReadOptions};

fn write_trace(path: &std::path::Path, lines: u64, msr: bool) {
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..lines {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let lba = x % 200_000_000;
        let size = 512 << (x % 5);
        let op = if x & 8 == 0 { 'R' } else { 'W' };
        if msr {
            let ticks = 128_166_372_003_061_629 + i * 1234;
            let kind = if op == 'R' { "Read" } else { "Write" };
            writeln!(w, "{ticks},hm,1,{kind},{},{size},{}", lba * 512, x % 5000).unwrap();
        } else {
            writeln!(
                w,
                "{},{lba},{size},{op},{}.{:06}",
                x % 3,
                i / 1000,
                i % 1000 * 997 % 1_000_000
            )
            .unwrap();
        }
    }
    w.flush().unwrap();
}

/// CPU time this thread has run, in seconds (`/proc/thread-self/schedstat`, Linux):
/// on a shared, busy machine it measures the decoder and not the neighbours.
fn cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn bench(name: &str, format: Format, msr: bool, lines: u64) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    write_trace(&path, lines, msr);
    let bytes = std::fs::metadata(&path).unwrap().len();
    let opts = ReadOptions {
        format: Some(format),
        ..ReadOptions::default()
    };
    let (mut best, mut best_cpu) = (f64::MAX, f64::MAX);
    for _ in 0..3 {
        let c0 = cpu_secs();
        let t = Instant::now();
        let mut r = wafer_trace::open(&path, &opts).unwrap();
        let mut batch = Vec::with_capacity(BATCH);
        let mut n = 0u64;
        let mut sum = 0u64;
        while r.read_batch(&mut batch).unwrap() {
            n += batch.len() as u64;
            sum = sum.wrapping_add(batch.iter().map(|q| q.offset).fold(0, u64::wrapping_add));
        }
        let dt = t.elapsed().as_secs_f64();
        if let (Some(a), Some(b)) = (c0, cpu_secs()) {
            best_cpu = best_cpu.min(b - a);
        }
        assert_eq!(n, lines);
        std::hint::black_box(sum);
        best = best.min(dt);
    }
    println!(
        "{name:<8} {lines} lines, {:.1} MB: best of 3 {:.3} s = {:.2} M lines/s ({:.0} MB/s)",
        bytes as f64 / 1e6,
        best,
        lines as f64 / best / 1e6,
        bytes as f64 / best / 1e6
    );
    if best_cpu < f64::MAX {
        println!(
            "{name:<8} CPU time of the decoding thread: best of 3 {best_cpu:.3} s = {:.2} M lines/s per core",
            lines as f64 / best_cpu / 1e6
        );
    }
}

fn main() {
    let lines = std::env::var("LINES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5_000_000);
    bench("spc", Format::Spc, false, lines);
    bench("msr", Format::Msr, true, lines);
}
