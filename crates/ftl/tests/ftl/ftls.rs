//! Exact costs of the three FTLs on small hand-checked workloads (FAST's write rules and
//! merge costs as `src/fast.rs` and `docs/ftl.md` state them).

use crate::common::*;
use wafer_ftl::{
    BlockFtl, CellType, Device, FastFtl, Ftl, FtlError, FtlKind, Geometry, PageConfig, PageFtl,
};

fn geo(logical_blocks: u64, physical_blocks: u32, np: u32) -> Geometry {
    Geometry {
        page_size: 4096,
        pages_per_block: np,
        logical_pages: logical_blocks * u64::from(np),
        physical_blocks,
        channels: 1,
        ways: 1,
    }
}

fn all(g: Geometry) -> Vec<Box<dyn Ftl>> {
    vec![
        Box::new(PageFtl::new(g, LAT, CellType::Slc, PageConfig::default()).unwrap()),
        Box::new(FastFtl::new(g, LAT, CellType::Slc, Some(4)).unwrap()),
        Box::new(BlockFtl::new(g, LAT, CellType::Slc).unwrap()),
    ]
}

#[test]
fn whole_block_sequential_overwrites_have_waf_one_everywhere() {
    let g = geo(32, 40, 64);
    for mut f in all(g) {
        fill(&mut *f);
        f.reset_counters();
        for round in 0..5u64 {
            for b in 0..32u64 {
                let lbn = (b * 7 + round) % 32;
                f.write(lbn * 64, 64).unwrap();
            }
        }
        let m = f.metrics();
        assert_eq!(m.counters.programs_gc, 0, "{}", m.ftl);
        assert!((m.waf - 1.0).abs() < 1e-12, "{}: WAF {}", m.ftl, m.waf);
        // One erase per overwritten block; page-level GC erases lazily, so up to its
        // spare blocks may still wait for their erase.
        let lag = if m.ftl == "page" { 8 } else { 0 };
        assert!(
            m.counters.erases <= 160 && m.counters.erases + lag >= 160,
            "{}",
            m.ftl
        );
        if m.ftl == "fast" {
            assert_eq!(m.counters.switch_merges, 160);
            assert_eq!(m.counters.partial_merges + m.counters.full_merges, 0);
        }
        f.check_invariants().unwrap();
    }
}

#[test]
fn fast_page_by_page_sequential_overwrite_is_switch_merges() {
    let g = geo(8, 16, 16);
    let mut f = FastFtl::new(g, LAT, CellType::Mlc, None).unwrap();
    fill(&mut f);
    f.reset_counters();
    for p in 0..g.logical_pages {
        f.write(p, 1).unwrap();
    }
    let m = f.metrics();
    assert_eq!(m.counters.switch_merges, 8);
    assert_eq!(m.waf, 1.0);
}

#[test]
fn fast_partial_merge_copies_the_rest_of_the_block() {
    let np = 16;
    let g = geo(8, 16, np);
    let mut f = FastFtl::new(g, LAT, CellType::Mlc, Some(2)).unwrap();
    fill(&mut f);
    f.reset_counters();
    // 4 pages from offset 0 of block 3 open the SW log; a write to offset 0 of block 5
    // closes it by a partial merge: 12 copies, 1 erase.
    f.write(3 * 16, 4).unwrap();
    f.write(5 * 16, 1).unwrap();
    let m = f.metrics();
    assert_eq!(m.counters.partial_merges, 1);
    assert_eq!(m.counters.programs_gc, 12);
    assert_eq!(m.counters.flash_reads_gc, 12);
    assert_eq!(m.counters.erases, 1);
    f.check_invariants().unwrap();
}

#[test]
fn fast_full_merges_cost_a_block_per_logical_block_in_the_victim() {
    let np = 16;
    let g = geo(8, 16, np);
    let mut f = FastFtl::new(g, LAT, CellType::Mlc, Some(2)).unwrap();
    fill(&mut f);
    f.reset_counters();
    // 32 random-path writes fill both RW blocks: the first holds one page of each of
    // logical blocks 0..8 twice (offset 1 and 2), the second offsets 3 and 4.
    for off in 1..5u64 {
        for lbn in 0..8u64 {
            f.write(lbn * 16 + off, 1).unwrap();
        }
    }
    assert_eq!(f.metrics().counters.full_merges, 0);
    // One more RW write reclaims the oldest RW block: 8 full merges of 16 pages each
    // (less the page being rewritten, whose old copy is already invalid), 8 data-block
    // erases + the victim's erase.
    f.write(7, 1).unwrap();
    let m = f.metrics();
    assert_eq!(m.counters.full_merges, 8);
    assert_eq!(m.counters.programs_gc, 8 * 16 - 1);
    assert_eq!(m.counters.erases, 9);
    assert_eq!(m.counters.gc_invocations, 1);
    f.check_invariants().unwrap();
}

/// Counters that hand-worked FAST sequences check: (host programs, GC copies, erases,
/// switch, partial, full merges, RW victims).
fn fast_counts(f: &FastFtl) -> [u64; 7] {
    let c = f.metrics().counters;
    [
        c.programs_host,
        c.programs_gc,
        c.erases,
        c.switch_merges,
        c.partial_merges,
        c.full_merges,
        c.gc_invocations,
    ]
}

#[test]
fn fast_fresh_pages_in_place_then_sw_and_rw_paths() {
    // FAST's write rules 1-5 (src/fast.rs) on an erased device, 16 pages per block, by
    // hand.
    let g = geo(8, 16, 16);
    let mut f = FastFtl::new(g, LAT, CellType::Mlc, Some(2)).unwrap();
    f.write(5, 1).unwrap(); // rule 1: never-programmed data page, in place
    f.write(3, 1).unwrap(); // in place, out of page order
    f.write(20, 2).unwrap(); // block 1, offsets 4 and 5, in place
    assert_eq!(fast_counts(&f), [4, 0, 0, 0, 0, 0, 0]);
    f.write(3, 1).unwrap(); // rule 5: programmed, offset != 0 -> RW log
    f.write(0, 1).unwrap(); // offset 0 never programmed: in place
    f.write(0, 1).unwrap(); // rule 2: opens the SW log for block 0
    f.write(1, 1).unwrap(); // rule 3: in-order append to the SW log
    assert_eq!(fast_counts(&f), [8, 0, 0, 0, 0, 0, 0]);
    f.check_invariants().unwrap();
    // Rule 4: out-of-order write to the SW owner. The SW block (offsets 0, 1) is
    // partial-merged first: offsets 2..16 holding data are 3 (in the RW log) and 5 (the
    // data block; still valid, as the merge precedes this write), 2 copies; the old data
    // block is erased. Then page 5 goes to the RW log.
    f.write(5, 1).unwrap();
    assert_eq!(fast_counts(&f), [9, 2, 1, 0, 1, 0, 0]);
    f.check_invariants().unwrap();
    f.read(0, 16).unwrap();
    let c = f.metrics().counters;
    assert_eq!((c.flash_reads_host, c.unwritten_reads), (4, 12));
}

#[test]
fn fast_rw_victim_is_the_oldest_log_block() {
    // Two RW log blocks: R0 holds pages of logical blocks {0, 1}, R1 of {2, 3, 5}. The
    // first reclaim must take R0 (2 full merges), the second R1 (3 full merges); every
    // full merge copies all 16 pages of its block and erases the old data block, and
    // each victim costs one more erase.
    let g = geo(8, 16, 16);
    let mut f = FastFtl::new(g, LAT, CellType::Mlc, Some(2)).unwrap();
    fill(&mut f);
    f.reset_counters();
    let w = |f: &mut FastFtl, lbn: u64, offs: std::ops::Range<u64>| {
        for off in offs {
            f.write(lbn * 16 + off, 1).unwrap();
        }
    };
    w(&mut f, 0, 1..16);
    w(&mut f, 1, 1..2); // R0 full
    w(&mut f, 2, 1..15);
    w(&mut f, 3, 1..2);
    w(&mut f, 5, 1..2); // R1 full
    assert_eq!(fast_counts(&f), [32, 0, 0, 0, 0, 0, 0]);
    w(&mut f, 4, 1..2); // reclaims R0
    assert_eq!(fast_counts(&f), [33, 32, 3, 0, 0, 2, 1]);
    w(&mut f, 4, 2..16);
    w(&mut f, 7, 1..2); // R0 (reused) full again
    w(&mut f, 6, 1..2); // reclaims R1
    assert_eq!(fast_counts(&f), [49, 80, 7, 0, 0, 5, 2]);
    f.check_invariants().unwrap();
}

#[test]
fn fast_victim_page_of_the_sw_owner_is_merged_by_a_partial_merge() {
    let g = geo(8, 16, 16);
    let mut f = FastFtl::new(g, LAT, CellType::Mlc, Some(2)).unwrap();
    fill(&mut f);
    f.reset_counters();
    f.write(3 * 16 + 5, 1).unwrap(); // RW log R0, page 0
    f.write(3 * 16, 4).unwrap(); // SW log for block 3, offsets 0..4
    for off in 1..16 {
        f.write(off, 1).unwrap(); // block 0 -> R0 full
    }
    for off in 1..16 {
        f.write(16 + off, 1).unwrap(); // block 1 -> R1
    }
    f.write(2 * 16 + 1, 1).unwrap(); // R1 full
    assert_eq!(fast_counts(&f), [36, 0, 0, 0, 0, 0, 0]);
    // Reclaiming R0: block 3 (SW owner) by partial merge, offsets 4..16 = 12 copies
    // (offset 5 from R0) + 1 erase; block 0 by a full merge, 16 copies + 1 erase; R0's
    // erase.
    f.write(4 * 16 + 1, 1).unwrap();
    assert_eq!(fast_counts(&f), [37, 28, 3, 0, 1, 1, 1]);
    f.check_invariants().unwrap();
}

#[test]
fn block_ftl_read_modify_write_copies_the_untouched_pages() {
    let g = geo(4, 5, 8);
    let mut f = BlockFtl::new(g, LAT, CellType::Slc).unwrap();
    fill(&mut f);
    f.reset_counters();
    f.write(8 + 2, 3).unwrap();
    let m = f.metrics();
    assert_eq!(m.counters.read_modify_writes, 1);
    assert_eq!(m.counters.programs_gc, 5);
    assert_eq!(m.counters.programs_host, 3);
    assert_eq!(m.counters.erases, 1);
}

#[test]
fn unwritten_reads_are_counted_and_out_of_range_refused() {
    let g = geo(4, 12, 8);
    for mut f in all(g) {
        f.write(0, 4).unwrap();
        f.read(2, 4).unwrap();
        f.trim(3, 1).unwrap();
        f.read(3, 1).unwrap();
        let m = f.metrics();
        assert_eq!(m.counters.host_read_pages, 5);
        assert_eq!(m.counters.unwritten_reads, 3, "{}", m.ftl);
        assert_eq!(m.counters.flash_reads_host, 2, "{}", m.ftl);
        assert!(matches!(
            f.write(31, 2),
            Err(FtlError::OutOfRange { lpn: 32, .. })
        ));
        assert!(matches!(
            f.read(u64::MAX, 2),
            Err(FtlError::OutOfRange { .. })
        ));
    }
}

#[test]
fn busy_time_is_the_sum_of_latencies_and_spreads_over_channels() {
    let mut g = geo(4, 12, 8);
    g.channels = 2;
    let mut f = BlockFtl::new(g, LAT, CellType::Slc).unwrap();
    f.write(0, 8).unwrap(); // 8 programs in one block
    f.write(8, 8).unwrap();
    f.write(0, 8).unwrap(); // RMW: 8 programs + 1 erase
    f.read(0, 1).unwrap();
    let m = f.metrics();
    let expect = 24 * LAT.program_ns + LAT.erase_ns + LAT.read_ns;
    assert_eq!(m.counters.busy_ns, expect);
    assert_eq!(m.channel_busy_ns.iter().sum::<u64>(), expect);
    assert_eq!(m.channel_busy_ns.len(), 2);
    assert!(m.parallel_busy_ns < expect);
}

#[test]
fn erase_statistics_and_lifetime() {
    let g = geo(4, 8, 8);
    let mut f = PageFtl::new(g, LAT, CellType::Mlc, PageConfig::default()).unwrap();
    fill(&mut f);
    random_writes(&mut f, 3, 2000);
    let mut m = f.metrics();
    let counts = f.erase_counts();
    let mean = counts.iter().map(|&c| f64::from(c)).sum::<f64>() / counts.len() as f64;
    assert!((m.erase.mean - mean).abs() < 1e-9);
    assert_eq!(m.erase.max, u64::from(*counts.iter().max().unwrap()));
    assert_eq!(m.erase.histogram.iter().sum::<u64>(), 8);
    m.project_lifetime(3600.0, g.physical_pages() * 4096);
    let l = m.lifetime.unwrap();
    assert_eq!(l.pe_limit, 3000);
    let expect_years = 3000.0 / (mean / 3600.0) / (365.25 * 86400.0);
    assert!((l.years_mean - expect_years).abs() / expect_years < 1e-9);
    assert!(l.years_max <= l.years_mean);
}

#[test]
fn profiles_and_toml_devices() {
    let d = Device::from_profile("microsd-16g").unwrap();
    assert_eq!(d.ftl, FtlKind::Fast);
    assert_eq!(d.geometry.pages_per_block, 1024);
    assert_eq!(d.geometry.logical_pages, 4 << 20);
    assert_eq!(d.geometry.physical_blocks, 4711); // ceil(4096 * 1.15)
    let s = Device::from_profile("ssd-120g").unwrap();
    assert_eq!(
        (s.ftl, s.geometry.pages_per_block, s.cell),
        (FtlKind::Page, 6144, CellType::Tlc)
    );
    let k9 = Device::from_profile("samsung-k9").unwrap();
    assert_eq!(
        (
            k9.latency.read_ns,
            k9.latency.program_ns,
            k9.latency.erase_ns
        ),
        (25_000, 200_000, 1_500_000)
    );
    let slc = Device::from_profile("slc-paper002").unwrap();
    assert_eq!(
        (slc.geometry.page_size, slc.geometry.pages_per_block),
        (2048, 64)
    );
    assert!(Device::from_profile("nope").is_err());

    let t = Device::from_toml_str(
        "name = \"tiny\"\nftl = \"page\"\ncapacity = \"64MiB\"\nop = 0.25\npage_size = \"4KiB\"\n\
         pages_per_block = 64\ncell = \"slc\"\nread_us = 25\nprogram_us = 200\nerase_us = 1500\n\
         victim = \"fifo\"\nchannels = 4\n",
    )
    .unwrap();
    assert_eq!(t.geometry.physical_blocks, 320);
    assert_eq!(t.geometry.channels, 4);
    let mut f = t.build_ftl().unwrap();
    f.write(0, 10).unwrap();
    let e = Device::from_toml_str("ftl = \"page\"").unwrap_err();
    assert!(e.starts_with("line 1: missing field"), "{e}");
    let e =
        Device::from_toml_str("ftl = \"page\"\ncapacity = \"1GiB\"\ncell = \"qlc\"\n").unwrap_err();
    assert!(
        e.starts_with("line 3: unknown variant `qlc`") && !e.contains('\n'),
        "{e}"
    );
    let e = Device::from_toml_str(
        "ftl = \"warp\"\ncapacity = \"1GiB\"\nop = 0.1\npage_size = \"4KiB\"\npages_per_block = 64\n\
         cell = \"slc\"\nread_us = 1\nprogram_us = 1\nerase_us = 1\n",
    )
    .unwrap_err();
    assert!(e.contains("unknown FTL"), "{e}");
}

/// Latencies are durations with a unit (`25us`, `1.5ms`), as every duration wafer
/// reads; the older `read_us = 25` numbers give the same device. Both at once, a bare
/// number and a missing latency are refused by name.
#[test]
fn device_latencies_are_durations_with_a_unit() {
    let card = |times: &str| {
        Device::from_toml_str(&format!(
            "ftl = \"page\"\ncapacity = \"64MiB\"\nop = 0.25\npage_size = \"4KiB\"\n\
             pages_per_block = 64\ncell = \"slc\"\n{times}"
        ))
    };
    let new = card("read = \"25us\"\nprogram = \"0.2ms\"\nerase = \"1500000ns\"\n").unwrap();
    let old = card("read_us = 25\nprogram_us = 200\nerase_us = 1500\n").unwrap();
    assert_eq!(new.latency, old.latency);
    assert_eq!(new.latency.read_ns, 25_000);
    assert_eq!(new.latency.erase_ns, 1_500_000);
    let e = card("read = \"25\"\nprogram = \"200us\"\nerase = \"1ms\"\n").unwrap_err();
    assert!(e.contains("read") && e.contains("needs a unit"), "{e}");
    let e =
        card("read = \"25us\"\nread_us = 25\nprogram = \"200us\"\nerase = \"1ms\"\n").unwrap_err();
    assert!(e.contains("give read or read_us, not both"), "{e}");
    let e = card("read = \"25us\"\nprogram = \"200us\"\n").unwrap_err();
    assert!(e.contains("erase is missing"), "{e}");
    assert!(!e.contains('\n'), "{e}");
}
