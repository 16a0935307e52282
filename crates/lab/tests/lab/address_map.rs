//! The address map of a study (`address_map`, default compact) on the device behind
//! the cache: compact changes nothing for a trace already laid out in first-touch
//! order from block 0, and a trace wider than the device (as the Pixel 6a Telegram
//! trace is wider than a 16 GiB card) reaches the device with its own overwrites,
//! exactly as if it had been written compactly, while wrap folds it.

use std::collections::HashSet;
use std::path::Path;

use serde_json::Value;
use wafer_ftl::{AddressMap, Device, Mapper};
use wafer_lab::{execute, CellResult, Experiment, GridStudy, Quiet, RunOptions};

/// A page-level card of 160 MiB (640 erase blocks of 256 KiB, 7% spare).
const CARD: &str = "name = \"card\"\nftl = \"page\"\ncapacity = \"160MiB\"\nop = 0.07\n\
page_size = \"4KiB\"\npages_per_block = 64\ncell = \"mlc\"\nread_us = 25\nprogram_us = 200\n\
erase_us = 1500\n";

/// Run one cell: `trace` (an experiment trace entry) through LRU onto `devices` with
/// `map`, keeping the after-cache trace.
fn run(dir: &Path, name: &str, trace: &str, devices: &str, map: &str) -> Vec<CellResult> {
    let exp = dir.join(format!("{name}.toml"));
    std::fs::write(
        &exp,
        format!(
            "name = \"{name}\"\ntraces = [{trace}]\npolicies = [\"lru\"]\ncache_sizes = [\"64KiB\"]\n\
             devices = [{devices}]\naddress_map = \"{map}\"\n[outputs]\nfigures = []\nreport = false\n\
             keep_after = true\n"
        ),
    )
    .unwrap();
    let plan = Experiment::load(&exp).unwrap();
    let out = dir.join(name);
    let study = std::sync::Arc::new(GridStudy::new(plan, Some(&out)));
    execute(&study, &RunOptions::stored(&out, 2), &mut Quiet)
        .unwrap()
        .outcome
        .results
}

/// A row without what names the run (its id, the mapping) and without timing.
fn metrics(r: &CellResult) -> Vec<(String, Value)> {
    r.row(false)
        .into_iter()
        .filter(|(k, _)| k != "cell_id" && k != "address_map")
        .collect()
}

#[test]
fn compact_is_the_identity_for_a_trace_in_first_touch_order() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("card.toml"), CARD).unwrap();
    std::fs::write(
        dir.path().join("fast.toml"),
        CARD.replace("\"page\"", "\"fast\""),
    )
    .unwrap();
    // Sequential writes over 120 MiB, four times round: LRU writes them back in
    // ascending order, so the device sees blocks 0, 1, 2, ... first touched in order.
    let trace = r#"{ gen = { kind = "sequential", requests = 120000, footprint = "120MiB", write_ratio = 1.0, seed = 1 }, name = "seq" }"#;
    let devices = r#""card.toml", "fast.toml""#;
    let plain = run(dir.path(), "refuse", trace, devices, "refuse");
    let compact = run(dir.path(), "compact", trace, devices, "compact");
    assert_eq!(plain.len(), 2);
    for (a, b) in plain.iter().zip(&compact) {
        let f = b.ftl.as_ref().unwrap();
        assert_eq!(f.remapped_ops, 0, "{}", b.params.device);
        assert!(f.erases > 0, "{}: the card is cleaned", b.params.device);
        assert_eq!(metrics(a), metrics(b), "{}", b.params.device);
        assert_eq!(a.params.address_map, Some(AddressMap::Refuse));
        assert_eq!(b.params.address_map, Some(AddressMap::Compact));
        assert_ne!(a.id, b.id, "the mapping is part of the run");
    }
}

/// Write a trace of single-page writes: `offsets` in bytes, 1 ms apart (wafer CSV).
fn write_trace(path: &Path, offsets: &[u64]) {
    let mut s = String::from("time_ns,op,dev,offset,len\n");
    for (i, o) in offsets.iter().enumerate() {
        s += &format!("{},W,0,{o},4096\n", i as u64 * 1_000_000);
    }
    std::fs::write(path, s).unwrap();
}

/// Share of page writes that overwrite a page written before, over `pages`.
fn overwrite_share(pages: impl IntoIterator<Item = u64>) -> f64 {
    let (mut seen, mut writes, mut over) = (HashSet::new(), 0u64, 0u64);
    for p in pages {
        writes += 1;
        over += u64::from(!seen.insert(p));
    }
    over as f64 / writes as f64
}

/// The written pages of an after-cache trace (`after/<id>.csv`), in order.
fn after_writes(dir: &Path, r: &CellResult) -> Vec<u64> {
    let text = std::fs::read_to_string(dir.join("after").join(format!("{}.csv", r.id))).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (op, off) = (col("op"), col("offset"));
    lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[op] == "W")
        .map(|f| f[off].parse::<u64>().unwrap() / 4096)
        .collect()
}

#[test]
fn a_trace_wider_than_the_device_keeps_its_own_overwrites_under_compact() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("card.toml"), CARD).unwrap();
    // Two 64 MiB regions, at 0 and at 4000 MiB (25 capacities on: wrap puts the second
    // exactly onto the first): both filled in order, then 60000 random page writes
    // over both. The same trace laid out compactly has the second region at 64 MiB.
    const MIB: u64 = 1 << 20;
    let (far, near) = (4000 * MIB, 64 * MIB);
    let region = 64 * MIB / 4096;
    let mut wide: Vec<u64> = (0..region).map(|p| p * 4096).collect();
    wide.extend((0..region).map(|p| far + p * 4096));
    let mut x = 7u64;
    for _ in 0..60_000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let p = (x >> 33) % (2 * region);
        wide.push(if p < region {
            p * 4096
        } else {
            far + (p - region) * 4096
        });
    }
    let compacted: Vec<u64> = wide
        .iter()
        .map(|&o| if o >= far { o - far + near } else { o })
        .collect();
    write_trace(&dir.path().join("wide.csv"), &wide);
    write_trace(&dir.path().join("compacted.csv"), &compacted);
    let entry = |f: &str| format!("{{ path = \"{f}\", name = \"t\" }}");

    // Refused as it is: the card ends at 160 MiB.
    let exp = dir.path().join("refused.toml");
    std::fs::write(
        &exp,
        format!(
            "name = \"r\"\ntraces = [{}]\npolicies = [\"lru\"]\ncache_sizes = [\"64KiB\"]\n\
             devices = [\"card.toml\"]\naddress_map = \"refuse\"\n",
            entry("wide.csv")
        ),
    )
    .unwrap();
    let study = std::sync::Arc::new(GridStudy::new(Experiment::load(&exp).unwrap(), None));
    let Err(e) = execute(&study, &RunOptions::default(), &mut Quiet) else {
        panic!("a page beyond the card is refused");
    };
    let e = e.to_string();
    assert!(
        e.contains("logical page 1024000 is beyond the device's 40960 logical pages"),
        "{e}"
    );

    let compact = run(
        dir.path(),
        "compact",
        &entry("wide.csv"),
        "\"card.toml\"",
        "compact",
    );
    let wrap = run(
        dir.path(),
        "wrap",
        &entry("wide.csv"),
        "\"card.toml\"",
        "wrap",
    );
    let own = run(
        dir.path(),
        "own",
        &entry("compacted.csv"),
        "\"card.toml\"",
        "refuse",
    );
    let (c, w, o) = (&compact[0], &wrap[0], &own[0]);
    let fc = c.ftl.as_ref().unwrap();
    // Compact: the device sees exactly the compacted trace; only the trace's
    // checksum, the mapping and the moved operations differ.
    assert!(fc.remapped_ops >= region, "{}", fc.remapped_ops);
    assert_eq!(o.ftl.as_ref().unwrap().remapped_ops, 0);
    let same = |r: &CellResult| {
        let mut f = r.ftl.clone().unwrap();
        f.remapped_ops = 0;
        (f, r.cache.clone())
    };
    assert_eq!(same(c), same(o));
    assert!(fc.programs_gc > 0, "the card is cleaned");
    // Wrap folds the two regions together: fewer distinct pages, another cleaning.
    let fw = w.ftl.as_ref().unwrap();
    assert_eq!(fw.remapped_ops, fc.remapped_ops);
    assert_ne!(fw.programs_gc, fc.programs_gc);

    // The overwrite share of the writes reaching the device: the trace's own under
    // compact, inflated by folding under wrap.
    let writes = after_writes(&dir.path().join("compact"), c);
    let dev = Device::resolve(&dir.path().join("card.toml").display().to_string()).unwrap();
    let on_device = |map| {
        let mut m = Mapper::new(map, &dev.geometry, dev.ftl);
        let mut pages = Vec::new();
        for &p in &writes {
            m.map(p, p, |_, d, _| {
                pages.push(d);
                Ok(())
            })
            .unwrap();
        }
        overwrite_share(pages)
    };
    let trace_own = overwrite_share(writes.iter().copied());
    assert!(trace_own > 0.3 && trace_own < 0.7, "{trace_own}");
    assert_eq!(on_device(AddressMap::Compact), trace_own);
    assert!(on_device(AddressMap::Wrap) > trace_own + 0.1);
}
