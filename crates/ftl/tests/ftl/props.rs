//! Property tests of the mapping invariants under arbitrary operation sequences.

use crate::common::LAT;
use proptest::prelude::*;
use wafer_ftl::{BlockFtl, CellType, FastFtl, Ftl, Geometry, PageConfig, PageFtl, Victim};

#[derive(Clone, Debug)]
enum Op {
    W(u64, u64),
    R(u64, u64),
    T(u64, u64),
}

const LP: u64 = 12 * 8;

fn op() -> impl Strategy<Value = Op> {
    (0..3u8, 0..LP, 1..12u64).prop_map(|(k, p, n)| {
        let n = n.min(LP - p);
        match k {
            0 => Op::R(p, n),
            1 => Op::T(p, n),
            _ => Op::W(p, n),
        }
    })
}

fn ftls() -> Vec<Box<dyn Ftl>> {
    let g = Geometry {
        page_size: 4096,
        pages_per_block: 8,
        logical_pages: LP,
        physical_blocks: 18,
        channels: 2,
        ways: 1,
    };
    let page = |victim, hot_cold| {
        PageFtl::new(g, LAT, CellType::Slc, PageConfig { victim, hot_cold }).unwrap()
    };
    vec![
        Box::new(page(Victim::Greedy, false)),
        Box::new(page(Victim::Greedy, true)),
        Box::new(page(Victim::Fifo, false)),
        Box::new(page(Victim::CostBenefit, true)),
        Box::new(FastFtl::new(g, LAT, CellType::Slc, Some(2)).unwrap()),
        Box::new(FastFtl::new(g, LAT, CellType::Slc, None).unwrap()),
        Box::new(BlockFtl::new(g, LAT, CellType::Slc).unwrap()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn invariants_hold(ops in prop::collection::vec(op(), 1..300)) {
        for mut f in ftls() {
            // A model of which logical pages hold data.
            let mut has = vec![false; LP as usize];
            let mut unwritten = 0u64;
            let mut erases = f.erase_counts().to_vec();
            for o in &ops {
                // Hints change nothing observable, out-of-range ones included.
                let (Op::W(p, _) | Op::R(p, _) | Op::T(p, _)) = *o;
                f.prefetch(&[p, (p * 7) % LP, LP + p]);
                match *o {
                    Op::W(p, n) => { f.write(p, n).unwrap(); has[p as usize..(p + n) as usize].fill(true); }
                    Op::T(p, n) => { f.trim(p, n).unwrap(); has[p as usize..(p + n) as usize].fill(false); }
                    Op::R(p, n) => {
                        unwritten += has[p as usize..(p + n) as usize].iter().filter(|h| !**h).count() as u64;
                        f.read(p, n).unwrap();
                    }
                }
                let now = f.erase_counts();
                prop_assert!(now.iter().zip(&erases).all(|(a, b)| a >= b), "erase counts shrank");
                erases = now.to_vec();
                if let Err(e) = f.check_invariants() {
                    prop_assert!(false, "{}: {}", f.metrics().ftl, e);
                }
            }
            let m = f.metrics();
            prop_assert_eq!(m.counters.unwritten_reads, unwritten, "{}", m.ftl);
            prop_assert_eq!(m.counters.host_read_pages - m.counters.unwritten_reads, m.counters.flash_reads_host);
            prop_assert!(m.waf == 0.0 || m.waf >= 1.0);
        }
    }
}
