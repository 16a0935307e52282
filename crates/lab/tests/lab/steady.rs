//! Steady-state measurement on a device where the analytic steady state is known:
//! uniform random single-page writes on a page-level FTL with greedy garbage
//! collection. Replaying the cell's own stream pass after pass settles the device,
//! and the measured pass's write amplification is the mean-field greedy value of
//! docs/ftl.md ("Analytic check": 2.402 at alpha = 1.28 with 64-page blocks), while
//! the first pass, as captured on the freshly filled device, is far from it.

use std::sync::Arc;

use wafer_lab::{CellResult, Experiment, GridStudy, Quiet, RunOptions};

/// Physical blocks (2^20 pages of 4 KiB: the size at which docs/ftl.md's table holds
/// within 1%) and pages per block.
const BLOCKS: u64 = 16384;
const PAGES_PER_BLOCK: u64 = 64;
/// The table's greedy value at alpha = 1.28, b = 64.
const GREEDY_WAF: f64 = 2.402;

fn run(dir: &std::path::Path, measure: &str) -> CellResult {
    let usable = (BLOCKS - u64::from(wafer_ftl::GC_RESERVE)) * PAGES_PER_BLOCK;
    let logical = (usable as f64 / 1.28).round() as u64;
    let device = dir.join("dev.toml");
    std::fs::write(
        &device,
        format!(
            "name = \"uniform-check\"\nftl = \"page\"\ncapacity = \"{}\"\nphysical_blocks = {BLOCKS}\n\
             page_size = \"4KiB\"\npages_per_block = {PAGES_PER_BLOCK}\ncell = \"slc\"\n\
             read = \"25us\"\nprogram = \"200us\"\nerase = \"1.5ms\"\n",
            logical * 4096
        ),
    )
    .unwrap();
    // Four writes per logical page in each pass, uniform over the whole space; a
    // one-page cache passes every write through. The fill ages the card (every page
    // valid) before the first pass.
    let text = format!(
        "name = \"steady\"\npolicies = [\"lru\"]\ncache_sizes = [\"1p\"]\ndevices = [\"{}\"]\n\
         measure = \"{measure}\"\nflush_at_end = true\naging = {{ fill = true }}\n\
         [[traces]]\ngen = {{ kind = \"uniform\", requests = {}, footprint = \"{}\", size = \"4KiB\", write_ratio = 1.0, seed = 3 }}\n\
         name = \"uniform\"\n",
        device.display(),
        4 * logical,
        logical * 4096
    );
    let exp: Experiment = toml::from_str(&text).unwrap();
    let plan = exp.plan("steady.toml", dir).unwrap();
    let study = Arc::new(GridStudy::new(plan, None));
    let run = wafer_lab::study::run(&study, &RunOptions::default(), &mut Quiet).unwrap();
    run.results.into_iter().next().unwrap()
}

#[test]
fn uniform_random_writes_settle_at_the_greedy_steady_state() {
    let dir = tempfile::tempdir().unwrap();
    let steady = run(dir.path(), "steady");
    let f = steady.ftl.as_ref().unwrap();
    assert_eq!(f.settled, Some(true), "{f:?}");
    assert!(f.passes >= wafer_lab::steady::WINDOW as u64, "{f:?}");
    assert!(
        (f.waf - GREEDY_WAF).abs() / GREEDY_WAF < 0.02,
        "steady WAF {} against the greedy model's {GREEDY_WAF}",
        f.waf
    );
    // The measured pass is one pass of the stream: every write reaches the device,
    // the end flush included.
    assert_eq!(
        f.host_write_pages,
        steady.cache.page_writes + steady.cache.writes_at_end
    );
    // As captured, the first pass on the freshly filled card erases less: the
    // difference the steady view removes.
    let first = run(dir.path(), "as-captured");
    let g = first.ftl.as_ref().unwrap();
    assert_eq!((g.passes, g.settled), (0, None));
    assert!(
        g.waf < 0.9 * f.waf,
        "first pass {} vs steady {}",
        g.waf,
        f.waf
    );
    assert_ne!(first.id, steady.id);
}
