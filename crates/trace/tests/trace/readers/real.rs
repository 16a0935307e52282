//! Every file of `../shared/traces` read with format detection, checked against the
//! numbers of its README (`../shared/traces/README.md`) and, for CloudPhysics,
//! the 48,974 distinct keys libCacheSim counts in it.

use super::{drain, opts, trace};
use wafer_trace::stats::TraceStats;
use wafer_trace::{Format, Granularity, Op, Request};

fn stats(rel: &str, expect: Format, gran: Granularity) -> Option<TraceStats> {
    let p = trace(rel)?;
    let mut r = wafer_trace::open(&p, &opts(None)).unwrap();
    assert_eq!(r.meta().format, Some(expect), "{rel} detected wrongly");
    Some(TraceStats::collect(r.as_mut(), gran, &mut |_| {}).unwrap())
}

fn page4k() -> Granularity {
    Granularity::Page { page_size: 4096 }
}

#[test]
fn cloudphysics_three_copies_agree() {
    let keys = [
        ("cloudphysics/cloudPhysicsIO.vscsi", Format::Vscsi),
        ("cloudphysics/cloudPhysicsIO.csv", Format::CloudphysicsCsv),
        (
            "cloudphysics/cloudPhysicsIO.oracleGeneral.bin",
            Format::OracleGeneral,
        ),
    ];
    for (rel, f) in keys {
        let Some(s) = stats(rel, f, Granularity::Record) else {
            return;
        };
        assert_eq!(s.requests, 113_872, "{rel}");
        assert_eq!(
            s.pages_total, 48_974,
            "{rel}: libCacheSim's distinct key count"
        );
        if f != Format::OracleGeneral {
            assert_eq!((s.reads.count, s.writes.count), (46_974, 66_898), "{rel}");
            // Two hours of trace.
            assert_eq!(s.duration_ns / 1_000_000_000, 7200, "{rel}");
        } else {
            assert_eq!(s.reads.count, 113_872, "oracleGeneral has no op: all reads");
        }
    }
}

#[test]
fn cloudphysics_vscsi_and_csv_agree_request_by_request() {
    let (Some(v), Some(c)) = (
        trace("cloudphysics/cloudPhysicsIO.vscsi"),
        trace("cloudphysics/cloudPhysicsIO.csv"),
    ) else {
        return;
    };
    let v = drain(wafer_trace::open(&v, &opts(None)).unwrap().as_mut()).unwrap();
    let c = drain(wafer_trace::open(&c, &opts(None)).unwrap().as_mut()).unwrap();
    assert_eq!(v.len(), c.len());
    let sec = 1_000_000_000;
    for (i, (a, b)) in v.iter().zip(&c).enumerate() {
        // The CSV keeps whole seconds of the vscsi microsecond timestamps.
        let a_s = Request {
            time_ns: a.time_ns / sec * sec,
            ..*a
        };
        assert_eq!(&a_s, b, "record {}", i + 1);
    }
    // First record, decoded by hand from the file's first 32 bytes.
    assert_eq!(
        v[0],
        Request {
            time_ns: 5_633_898_368_802_000,
            offset: 42_932_745 * 512,
            len: 512,
            dev: 0,
            op: Op::Write
        }
    );
}

#[test]
fn pixel6a_traces() {
    // (file, requests, writes): README counts and write shares.
    let cases = [
        ("mobile-pixel6a/telegram_exec.csv.gz", 251_879, 227_785),
        ("mobile-pixel6a/cod_exec.csv.gz", 223_998, 22_363),
        ("mobile-pixel6a/slideshow_exec.csv.gz", 84_197, 6_442),
        ("mobile-pixel6a/telegram_precond.csv.gz", 5_320, 5_320),
    ];
    for (rel, n, w) in cases {
        let Some(s) = stats(rel, Format::Android, page4k()) else {
            return;
        };
        assert_eq!(s.requests, n, "{rel}");
        assert_eq!(s.writes.count, w, "{rel}");
        assert_eq!(s.reads.count, n - w, "{rel}");
    }
    let Some(s) = stats(
        "mobile-pixel6a/telegram_exec.csv.gz",
        Format::Android,
        page4k(),
    ) else {
        return;
    };
    assert!((s.writes.count as f64 / s.requests as f64 - 0.904).abs() < 0.0005);
    assert_eq!(
        s.pages_written, 976_231,
        "README: distinct 4 KiB pages written"
    );
    // 119 GiB address span of writes.
    assert_eq!(
        (s.write_range_bytes as f64 / (1u64 << 30) as f64).round(),
        119.0
    );
    assert_eq!(s.devices.len(), 1);
    assert_eq!(s.devices[0].dev, 8 << 8);
}

#[test]
fn fiu_mail() {
    let Some(s) = stats("fiu/fiu_mail_cheetah_10k.blkparse", Format::Fiu, page4k()) else {
        return;
    };
    assert_eq!(s.requests, 9_998);
    assert_eq!((s.reads.count, s.writes.count), (8_896, 1_102));
    // "all 4 KiB"
    assert_eq!(s.sizes.len(), 1);
    assert_eq!((s.sizes[0].min_bytes, s.sizes[0].count), (4096, 9_998));
}

#[test]
fn blkparse_d_events() {
    let Some(s) = stats("blkparse/blkparseout_ext4.txt", Format::Blkparse, page4k()) else {
        return;
    };
    assert_eq!(s.requests, 9_887);
    assert_eq!(
        (s.reads.count, s.writes.count, s.trims.count),
        (9_039, 848, 0)
    );
    // The summary block agrees: 1023 MiB read, 246040 KiB written.
    assert_eq!(s.writes.bytes, 246_040 * 1024);
    // The corrupt last D event keeps its time, about 1.27e9 s.
    assert_eq!(s.last_ns, Some(1_266_874_889_708_668_759));

    let Some(s) = stats("blkparse/blkparseout_f2fs.txt", Format::Blkparse, page4k()) else {
        return;
    };
    assert_eq!(s.requests, 5_727);
    assert_eq!((s.reads.count, s.writes.count), (4_722, 1_005));
    assert_eq!(s.reads.bytes, 524_572 * 1024);
    assert_eq!(s.writes.bytes, 429_540 * 1024);
}

#[test]
fn disksim_tpcc() {
    let Some(s) = stats("disksim/tpcc-small.trace", Format::Disksim, page4k()) else {
        return;
    };
    assert_eq!(s.requests, 6_999);
    assert_eq!((s.reads.count, s.writes.count), (4_381, 2_618));
    assert_eq!(s.devices.len(), 16);
    assert_eq!(s.devices.iter().map(|d| d.requests).sum::<u64>(), 6_999);
}

#[test]
fn compressed_and_plain_read_the_same() {
    let Some(p) = trace("fiu/fiu_mail_cheetah_10k.blkparse") else {
        return;
    };
    let raw = std::fs::read(&p).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Names that lie about the content: detection goes by magic bytes.
    let gz = dir.path().join("a.txt");
    let zs = dir.path().join("b.gz");
    {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz).unwrap(),
            flate2::Compression::fast(),
        );
        e.write_all(&raw).unwrap();
        e.finish().unwrap();
    }
    std::fs::write(&zs, zstd::encode_all(&raw[..], 3).unwrap()).unwrap();
    let plain = drain(wafer_trace::open(&p, &opts(None)).unwrap().as_mut()).unwrap();
    for f in [gz, zs] {
        let r = drain(wafer_trace::open(&f, &opts(None)).unwrap().as_mut()).unwrap();
        assert_eq!(r, plain, "{}", f.display());
    }
}
