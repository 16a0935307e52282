//! The lifetime view with and without the end flush: a cell that flushes the dirty
//! pages left at the end reports the device as it was before the flush too, and the
//! difference is exactly the flushed pages (`docs/experiments.md`, "Verdicts").

use wafer_lab::{execute, Experiment, GridStudy, Quiet, RunOptions};

/// A trace the repository carries (`traces/README.md`), so this runs from a clone.
const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/sqlite-wal.wtr");

#[test]
fn the_device_is_reported_before_and_after_the_end_flush() {
    let dir = tempfile::tempdir().unwrap();
    let device = dir.path().join("small.toml");
    // Small enough that the flush itself can erase.
    std::fs::write(
        &device,
        "name = \"small\"\nftl = \"page\"\ncapacity = \"256MiB\"\nop = 0.07\npage_size = \"4KiB\"\nblock_size = \"256KiB\"\ncell = \"mlc\"\nread = \"50us\"\nprogram = \"600us\"\nerase = \"3ms\"\n",
    )
    .unwrap();
    let mut rows = Vec::new();
    for flush in [false, true] {
        let exp = dir.path().join(format!("exp-{flush}.toml"));
        std::fs::write(
            &exp,
            format!(
                "name = \"flush\"\ntraces = [{{ path = \"{TRACE}\" }}]\npolicies = [\"lru\", \"ts-clock\"]\n\
                 cache_sizes = [\"25%\"]\ndevices = [\"{}\"]\nflush_at_end = {flush}\n\
                 aging = {{ fill = true, volume = \"256MiB\" }}\n",
                device.display()
            ),
        )
        .unwrap();
        let plan = Experiment::load(&exp).unwrap();
        let out = dir.path().join(format!("out-{flush}"));
        let study = std::sync::Arc::new(GridStudy::new(plan, Some(&out)));
        let done = execute(&study, &RunOptions::stored(&out, 1), &mut Quiet).unwrap();
        rows.push(done.outcome.results);
    }
    for (plain, flushed) in rows[0].iter().zip(&rows[1]) {
        let (p, f) = (plain.ftl.as_ref().unwrap(), flushed.ftl.as_ref().unwrap());
        // Without a flush both views are the same device.
        assert_eq!(p.erases_before_flush, p.erases);
        assert_eq!(p.host_write_pages_before_flush, p.host_write_pages);
        assert_eq!(plain.cache.writes_at_end, 0);
        // With it, the view before the flush is the run without it, and the flush
        // adds exactly the dirty pages left at the end.
        assert_eq!(f.erases_before_flush, p.erases);
        assert_eq!(f.busy_ns_before_flush, p.busy_ns);
        assert_eq!(f.elapsed_ns_before_flush, p.elapsed_ns);
        assert!(f.elapsed_ns > f.elapsed_ns_before_flush);
        assert_eq!(f.host_write_pages_before_flush, p.host_write_pages);
        assert!(flushed.cache.writes_at_end > 0);
        assert_eq!(
            f.host_write_pages - f.host_write_pages_before_flush,
            flushed.cache.writes_at_end
        );
        assert!(f.erases >= f.erases_before_flush);
    }
}
