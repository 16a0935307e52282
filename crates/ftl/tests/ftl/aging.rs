//! Aging decides whether write order shows (`docs/ftl.md`, "Aging"): on a fresh device
//! every write lands in a never-programmed page, so random and sequential writes cost
//! the same; after paper 000's aging (fill, then 16 GiB of mixed writes; TS-CLOCK:
//! D. H. Kang, C. Min, Y. I. Eom, IEEE MASCOTS 2014, Sec. IV-E) random writes cost
//! more than sequential ones on both of its FTLs, the FAST card (few log blocks) and
//! the page-level device (24 MiB blocks).

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use wafer_ftl::aging::{age, Aging};
use wafer_ftl::{AnyFtl, Device, Ftl};

/// Single-page writes over the first GiB of the device (2^18 pages of 4 KiB).
const RANGE: u64 = 1 << 18;

/// The order of the single-page writes.
#[derive(Clone, Copy)]
enum Order {
    /// Page after page, wrapping at the end of the range.
    Sequential,
    /// Distinct pages in a scattered order (a stride coprime with the range).
    Scattered,
    /// Uniformly random pages (overwrites included).
    Random,
}

/// Mean device time per written page of `writes` single-page writes in `order`.
fn cost_per_page(mut ftl: AnyFtl, order: Order, writes: u64) -> f64 {
    let mut rng = Pcg64Mcg::seed_from_u64(7);
    let before = ftl.metrics().counters.busy_ns;
    for i in 0..writes {
        let lpn = match order {
            Order::Sequential => i % RANGE,
            Order::Scattered => i * 104_729 % RANGE,
            Order::Random => rng.gen_range(0..RANGE),
        };
        ftl.write(lpn, 1).unwrap();
    }
    (ftl.metrics().counters.busy_ns - before) as f64 / writes as f64
}

/// `(sequential, other)` costs per page on `profile`, aged or fresh.
fn costs(profile: &str, aged: bool, other: Order, writes: u64) -> (f64, f64) {
    let mut ftl = Device::from_profile(profile).unwrap().build_ftl().unwrap();
    if aged {
        age(&mut ftl, &Aging::default()).unwrap();
    }
    (
        cost_per_page(ftl.clone(), Order::Sequential, writes),
        cost_per_page(ftl, other, writes),
    )
}

#[test]
fn a_fresh_card_hides_write_order() {
    let (seq, scattered) = costs("microsd-16g", false, Order::Scattered, 100_000);
    // Every page is programmed once into a never-written page: the program time,
    // whatever the order.
    assert_eq!(seq, scattered);
    assert_eq!(seq, 600_000.0);
}

#[test]
fn aging_makes_random_writes_cost_more_on_fast() {
    let (seq, rnd) = costs("microsd-16g", true, Order::Random, 100_000);
    // Sequential writes fill log blocks that switch-merge; random ones full-merge
    // every data block a log block holds a page of.
    assert!(
        rnd > 5.0 * seq,
        "sequential {seq} ns/page, random {rnd} ns/page"
    );
}

#[test]
fn aging_makes_random_writes_cost_more_on_page_level() {
    let (seq, rnd) = costs("page-16g", true, Order::Random, 300_000);
    // Sequential overwrites leave whole blocks invalid for GC; random ones leave
    // every block partly valid. The aging residue costs both the same, so the
    // difference is smaller than on FAST.
    assert!(
        rnd > 1.1 * seq,
        "sequential {seq} ns/page, random {rnd} ns/page"
    );
}
