//! Exact costs of the three FTLs on small hand-checked workloads (`reference/ftl.md` §2).

mod common;

use common::*;
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
        assert!(m.counters.erases <= 160 && m.counters.erases + lag >= 160, "{}", m.ftl);
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
        assert!(matches!(f.write(31, 2), Err(FtlError::OutOfRange { lpn: 32, .. })));
        assert!(matches!(f.read(u64::MAX, 2), Err(FtlError::OutOfRange { .. })));
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
    assert_eq!((s.ftl, s.geometry.pages_per_block, s.cell), (FtlKind::Page, 6144, CellType::Tlc));
    let k9 = Device::from_profile("samsung-k9").unwrap();
    assert_eq!((k9.latency.read_ns, k9.latency.program_ns, k9.latency.erase_ns), (25_000, 200_000, 1_500_000));
    let slc = Device::from_profile("slc-paper002").unwrap();
    assert_eq!((slc.geometry.page_size, slc.geometry.pages_per_block), (2048, 64));
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
    assert!(Device::from_toml_str("ftl = \"page\"").is_err());
    let e = Device::from_toml_str(
        "ftl = \"warp\"\ncapacity = \"1GiB\"\nop = 0.1\npage_size = \"4KiB\"\npages_per_block = 64\n\
         cell = \"slc\"\nread_us = 1\nprogram_us = 1\nerase_us = 1\n",
    )
    .unwrap_err();
    assert!(e.contains("unknown FTL"), "{e}");
}
