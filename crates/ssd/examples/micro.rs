//! Paper 004's micro benchmarks (Huang et al., "Efficient Cache Design for Solid-State
//! Drives", ACM Computing Frontiers 2010, Table 5) over cache size x associativity x
//! APU on the samsung-k9 device at 16 GiB: the table of `docs/ssd.md`.
//!
//! `cargo run --release -p wafer-ssd --example micro [-- KIND [MEAN_GAP_MS]]`

use wafer_ssd::{run, Apu, Arrival, Assoc, CacheConfig, FtlFlash, Ssd, SsdConfig};
use wafer_trace::gen::{Arrival as GenArrival, GenSpec};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let kinds: Vec<String> = match args.first() {
        Some(k) => vec![k.clone()],
        None => ["constant-write", "random-write", "write-biased", "thrash"]
            .map(String::from)
            .to_vec(),
    };
    let gap_ms: f64 = args
        .get(1)
        .map_or(10.0, |s| s.parse().expect("mean gap in ms"));
    let mut dev = wafer_ftl::Device::from_profile("samsung-k9").unwrap();
    dev.geometry = wafer_ftl::Geometry::with_op(16 << 30, 0.15, 4096, 64).unwrap();
    println!("kind cache_mb ways apu mean_ms p99_ms on_demand apu_flushes util");
    for kind in &kinds {
        let mut sizes: Vec<Option<u64>> = vec![None];
        sizes.extend([8u64, 16, 32, 64, 128, 256].map(Some));
        for mb in sizes {
            let ways: &[u32] = if mb.is_some() { &[1, 2, 4] } else { &[1] };
            for &w in ways {
                let apus: &[Apu] = if mb.is_some() {
                    &[Apu::Off, Apu::Lru, Apu::Lfu]
                } else {
                    &[Apu::Off]
                };
                for &apu in apus {
                    let mut spec = GenSpec::default_for(kind).expect("kind");
                    let (GenSpec::ConstantWrite(p)
                    | GenSpec::RandomWrite(p)
                    | GenSpec::WriteBiased(p)
                    | GenSpec::Thrash(p)) = &mut spec
                    else {
                        unreachable!("{kind} is one of paper 004's micro benchmarks")
                    };
                    p.arrival = GenArrival::Poisson {
                        mean_ns: gap_ms * 1e6,
                    };
                    if let (Some(mb), "thrash") = (mb, kind.as_str()) {
                        p.cache = Some(wafer_trace::gen::Bytes(mb << 20));
                    }
                    let cfg = SsdConfig {
                        cache: mb.map(|mb| CacheConfig {
                            lines: (mb << 20) as u32 / 4096,
                            assoc: Assoc::Ways(w),
                            apu,
                        }),
                        ..SsdConfig::default()
                    };
                    let mut ssd = Ssd::new(cfg, FtlFlash::new(&dev).unwrap()).unwrap();
                    let mut rd = spec.open().unwrap();
                    run(
                        &mut ssd,
                        rd.as_mut(),
                        Arrival::Trace,
                        None,
                        |_| {},
                        |_, _| {},
                    )
                    .unwrap();
                    let r = ssd.finish();
                    let (od, af) = r
                        .cache
                        .as_ref()
                        .map_or((0, 0), |c| (c.stats.on_demand_flushes, c.stats.apu_flushes));
                    println!(
                        "{kind} {} {w} {apu:?} {:.3} {:.3} {od} {af} {:.3}",
                        mb.map_or("none".into(), |m| m.to_string()),
                        r.response.all.mean_ns * 1e-6,
                        r.response.all.p99_ns as f64 * 1e-6,
                        r.timing.utilization
                    );
                }
            }
        }
    }
}
