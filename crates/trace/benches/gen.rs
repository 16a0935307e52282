//! Generator throughput: requests per second of every `wafer trace gen` kind with its
//! default parameters (block-utilization at 25%), streamed through `read_batch` and
//! discarded. Run: `cargo bench -p wafer-trace --bench gen`.

use std::hint::black_box;
use std::time::Instant;
use wafer_trace::gen::{GenSpec, KINDS};

fn main() {
    const N: u64 = 5_000_000;
    println!(
        "{:<18} {:>12} {:>10} {:>14}",
        "kind", "requests", "seconds", "Mreq/s"
    );
    for k in KINDS {
        let json = format!(r#"{{"kind":"{}","requests":{N}}}"#, k.name);
        let spec: GenSpec = serde_json::from_str(&json).expect("valid spec");
        let mut reader = spec.open().expect("opens");
        let mut batch = Vec::new();
        let t = Instant::now();
        let mut n = 0u64;
        while reader.read_batch(&mut batch).expect("generates") {
            n += batch.len() as u64;
            black_box(&batch);
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "{:<18} {:>12} {:>10.3} {:>14.1}",
            k.name,
            n,
            s,
            n as f64 / s / 1e6
        );
    }
}
