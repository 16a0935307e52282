//! The `.wtr` format and the exporters: every reader's requests survive
//! read -> .wtr -> CSV export -> read back exactly; corrupted and truncated files are
//! reported as such; appending keeps counts consistent; random requests round-trip
//! and random or mutated bytes never panic.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use wafer_trace::reader::GenericSpec;
use wafer_trace::request::{ADDRESS_LIMIT, DEV_LIMIT};
use wafer_trace::wtr::{self, Columns, Extra, Header};
use wafer_trace::{
    Format, Granularity, Op, OutFormat, ReadOptions, Request, RequestReader, TraceWriter,
    WriteInfo, NO_TIME,
};

fn drain(r: &mut dyn RequestReader) -> wafer_trace::Result<Vec<Request>> {
    let mut all = Vec::new();
    let mut batch = Vec::new();
    while r.read_batch(&mut batch)? {
        all.extend_from_slice(&batch);
    }
    Ok(all)
}

fn read(p: &Path, o: &ReadOptions) -> wafer_trace::Result<(Vec<Request>, Option<Format>)> {
    let mut r = wafer_trace::open(p, o)?;
    let v = drain(r.as_mut())?;
    Ok((v, r.meta().format))
}

fn export(p: &Path, format: OutFormat, rs: &[Request]) -> u64 {
    let info = WriteInfo {
        origin: "test".into(),
        page_size: 4096,
        has_time: true,
        has_op: true,
    };
    let mut w = TraceWriter::create(p, format, &info).unwrap();
    w.write_all(rs).unwrap();
    w.finish().unwrap()
}

/// Read `src`, write it as .wtr, export that as CSV, read both back: all three
/// request lists must be identical. Returns the request count.
fn round_trip(src: &Path, o: &ReadOptions, expect: Format) -> usize {
    let (orig, f) = read(src, o).unwrap();
    assert_eq!(f, Some(expect), "{}", src.display());
    assert!(!orig.is_empty(), "{}: no requests", src.display());
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("t.wtr");
    assert_eq!(export(&w, OutFormat::Wtr, &orig), orig.len() as u64);
    let mut r = wafer_trace::open(&w, &ReadOptions::default()).unwrap();
    assert_eq!(r.meta().requests, Some(orig.len() as u64));
    let back = drain(r.as_mut()).unwrap();
    assert_eq!(r.meta().format, Some(Format::Wtr));
    assert!(back == orig, "{}: .wtr round trip differs", src.display());
    let c = dir.path().join("t.csv");
    assert_eq!(export(&c, OutFormat::Csv, &back), orig.len() as u64);
    let (csv, f) = read(&c, &ReadOptions::default()).unwrap();
    assert_eq!(f, Some(Format::WaferCsv), "the CSV export is detected");
    assert!(csv == orig, "{}: CSV round trip differs", src.display());
    orig.len()
}

fn detect() -> ReadOptions {
    ReadOptions::default()
}

#[test]
fn shared_traces_round_trip() {
    let cases = [
        ("cloudphysics/cloudPhysicsIO.vscsi", Format::Vscsi, 113_872),
        (
            "cloudphysics/cloudPhysicsIO.csv",
            Format::CloudphysicsCsv,
            113_872,
        ),
        (
            "cloudphysics/cloudPhysicsIO.oracleGeneral.bin",
            Format::OracleGeneral,
            113_872,
        ),
        (
            "mobile-pixel6a/telegram_exec.csv.gz",
            Format::Android,
            251_879,
        ),
        ("mobile-pixel6a/telegram_precond.csv.gz", Format::Android, 0),
        ("mobile-pixel6a/cod_exec.csv.gz", Format::Android, 223_998),
        (
            "mobile-pixel6a/slideshow_exec.csv.gz",
            Format::Android,
            84_197,
        ),
        ("fiu/fiu_mail_cheetah_10k.blkparse", Format::Fiu, 9_998),
        ("blkparse/blkparseout_ext4.txt", Format::Blkparse, 9_887),
        ("blkparse/blkparseout_f2fs.txt", Format::Blkparse, 5_727),
        ("disksim/tpcc-small.trace", Format::Disksim, 6_999),
    ];
    for (rel, f, n) in cases {
        let Some(p) = wafer_testdata::trace(rel) else {
            continue;
        };
        let got = round_trip(&p, &detect(), f);
        if n > 0 {
            assert_eq!(got, n, "{rel}: README request count");
        }
    }
}

/// Formats without a shared file (and edge cases: trims, no timestamps, devices).
#[test]
fn synthetic_inputs_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let lackey_opts = ReadOptions {
        format: Some(Format::Lackey),
        instructions: true,
        ..ReadOptions::default()
    };
    let generic = ReadOptions {
        generic: Some(GenericSpec {
            delimiter: None,
            skip_lines: 1,
            time_col: Some(0),
            time_unit_s: 1e-6,
            op_col: Some(1),
            offset_col: 2,
            offset_unit: 512,
            size_col: Some(3),
            size_unit: 512,
            dev_col: Some(4),
            ops: None,
        }),
        ..ReadOptions::default()
    };
    let cases: [(&str, &str, ReadOptions, Format); 5] = [
        (
            "msr.csv",
            "128166372003061629,hm,1,Read,383055872,4096,1062\n\
             128166372016382155,hm,1,Write,3490480128,32768,1278\n\
             128166372026382245,hm,0,Write,0,512,4\n",
            detect(),
            Format::Msr,
        ),
        (
            "spc.csv",
            "0,20941264,8192,W,0.551706\n1,3,512,r,0.6\n2,99999999,65536,R,10.25\n",
            detect(),
            Format::Spc,
        ),
        (
            "lackey.txt",
            "==1== Lackey\nI  0400d7d4,8\n L 1ffefffe70,8\n S 0421a4a8,4\n M 0400d7d4,8\n",
            lackey_opts,
            Format::Lackey,
        ),
        (
            "generic.txt",
            "t op lba n dev\n10 R 8 2 0\n20 W 16 8 3\n35 write 100000000 1 7\n",
            generic,
            Format::Generic,
        ),
        (
            "blk.txt",
            "  8,16   3  5  0.000026421  3645  D   WS 4938888 + 256 [java]\n\
             \x20 8,16   3  6  0.000126421  3645  D   D 88 + 8 [java]\n\
             \x20 8,0   1  7  1.5  3645  D   R 0 + 8 [x]\n",
            detect(),
            Format::Blkparse,
        ),
    ];
    for (name, text, o, f) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        round_trip(&p, &o, f);
    }
    // The edge cases really were exercised.
    let (l, _) = read(
        &dir.path().join("lackey.txt"),
        &ReadOptions {
            format: Some(Format::Lackey),
            instructions: true,
            ..ReadOptions::default()
        },
    )
    .unwrap();
    assert!(l.iter().all(|r| r.time_ns == NO_TIME) && l.len() == 5);
    let (b, _) = read(&dir.path().join("blk.txt"), &detect()).unwrap();
    assert!(b.iter().any(|r| r.op == Op::Trim), "{b:?}");
}

/// A multi-chunk file of `n` requests (chunks of 1,000) and the requests.
fn sample(dir: &Path, n: u64) -> (PathBuf, Vec<Request>) {
    let rs: Vec<Request> = (0..n)
        .map(|i| Request {
            time_ns: 1_000 * i + (i * 7919) % 500,
            offset: (i * 2_654_435_761) % (1 << 36),
            len: 4096 << (i % 3),
            dev: (i % 2) as u32,
            op: if i % 5 == 0 { Op::Write } else { Op::Read },
        })
        .collect();
    let p = dir.join("s.wtr");
    let mut w = wtr::Writer::create(&p, header(1_000, Columns::NONE)).unwrap();
    for r in &rs {
        w.push(r).unwrap();
    }
    assert_eq!(w.finish().unwrap(), n);
    (p, rs)
}

fn header(chunk: u32, columns: Columns) -> Header {
    Header {
        has_time: true,
        has_op: true,
        page_size: 4096,
        columns,
        chunk,
        origin: "sample".into(),
    }
}

/// Byte offsets of every record head after the header.
fn records(bytes: &[u8]) -> Vec<(usize, [u8; 4])> {
    let mut pos = usize::from(u16::from_le_bytes([bytes[6], bytes[7]]));
    let mut v = vec![];
    while pos + 32 <= bytes.len() {
        let magic: [u8; 4] = bytes[pos..pos + 4].try_into().unwrap();
        v.push((pos, magic));
        pos += 32;
        if &magic == b"WTRC" {
            pos += u32::from_le_bytes(bytes[pos - 20..pos - 16].try_into().unwrap()) as usize;
        }
    }
    v
}

fn read_err(p: &Path) -> String {
    let o = ReadOptions {
        format: Some(Format::Wtr),
        ..ReadOptions::default()
    };
    match read(p, &o) {
        Ok((v, _)) => panic!("{} read {} requests without error", p.display(), v.len()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn corrupted_chunk_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let (p, rs) = sample(dir.path(), 5_500);
    let (back, _) = read(&p, &detect()).unwrap();
    assert!(back == rs);
    let bytes = std::fs::read(&p).unwrap();
    let recs = records(&bytes);
    assert_eq!(recs.len(), 7, "6 chunks and the end record");
    assert_eq!(recs[6].1, *b"WTRE");
    // A byte in the middle of chunk 3's payload.
    let mut b = bytes.clone();
    b[recs[3].0 + 40] ^= 0x10;
    std::fs::write(&p, &b).unwrap();
    let e = read_err(&p);
    assert!(
        e.ends_with("corrupt .wtr: chunk 3 checksum mismatch"),
        "{e}"
    );
    assert!(e.starts_with(&p.display().to_string()), "{e}");
    // Its request count in the head.
    let mut b = bytes.clone();
    b[recs[3].0 + 8] ^= 1;
    std::fs::write(&p, &b).unwrap();
    let e = read_err(&p);
    assert!(e.contains("chunk 3"), "{e}");
    // The header (page size field).
    let mut b = bytes.clone();
    b[17] ^= 0x01;
    std::fs::write(&p, &b).unwrap();
    assert!(read_err(&p).ends_with("corrupt .wtr: header checksum mismatch"));
    // Two chunks swapped: checksums hold, the sequence does not.
    let mut b = bytes[..recs[1].0].to_vec();
    b.extend_from_slice(&bytes[recs[2].0..recs[3].0]);
    b.extend_from_slice(&bytes[recs[1].0..recs[2].0]);
    b.extend_from_slice(&bytes[recs[3].0..]);
    std::fs::write(&p, &b).unwrap();
    let e = read_err(&p);
    assert!(e.contains("chunk 1 out of order"), "{e}");
}

#[test]
fn truncation_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let (p, _) = sample(dir.path(), 5_500);
    let bytes = std::fs::read(&p).unwrap();
    let recs = records(&bytes);
    for cut in [recs[2].0 + 100, recs[6].0, bytes.len() - 1, 20, 3] {
        std::fs::write(&p, &bytes[..cut]).unwrap();
        let e = read_err(&p);
        assert!(
            e.contains("truncated") || e.contains("not a .wtr file"),
            "cut {cut}: {e}"
        );
    }
    std::fs::write(&p, &bytes[..recs[2].0 + 100]).unwrap();
    // Detected at open, before any request is handed out.
    let e = wafer_trace::open(&p, &detect())
        .err()
        .expect("open fails")
        .to_string();
    assert!(e.contains("corrupt .wtr: truncated"), "{e}");
}

#[test]
fn append_keeps_counts_and_survives_interruption() {
    let dir = tempfile::tempdir().unwrap();
    let (p, mut rs) = sample(dir.path(), 2_500);
    let old_len = std::fs::metadata(&p).unwrap().len();
    let more: Vec<Request> = (0..1_700u64)
        .map(|i| Request {
            time_ns: NO_TIME,
            offset: i * 512,
            len: 512,
            dev: 9,
            op: Op::Trim,
        })
        .collect();
    let mut w = wtr::Writer::append(&p).unwrap();
    assert_eq!(w.requests(), 2_500);
    for r in &more {
        w.push(r).unwrap();
    }
    assert_eq!(w.finish().unwrap(), 4_200);
    rs.extend_from_slice(&more);
    let mut r = wafer_trace::open(&p, &detect()).unwrap();
    assert_eq!(r.meta().requests, Some(4_200));
    assert!(drain(r.as_mut()).unwrap() == rs);
    // Append again, then cut the new data: the message names the old length, and
    // cutting there restores the 4,200 requests.
    let mid_len = std::fs::metadata(&p).unwrap().len();
    assert!(mid_len > old_len);
    let mut w = wtr::Writer::append(&p).unwrap();
    w.write_some(&more[..10]);
    w.finish().unwrap();
    let bytes = std::fs::read(&p).unwrap();
    std::fs::write(&p, &bytes[..bytes.len() - 40]).unwrap();
    let e = read_err(&p);
    assert!(
        e.contains(&format!("the first 4200 requests end at byte {mid_len}")),
        "{e}"
    );
    std::fs::write(&p, &bytes[..mid_len as usize]).unwrap();
    assert!(read(&p, &detect()).unwrap().0 == rs);
    // An append to a truncated file is refused.
    std::fs::write(&p, &bytes[..bytes.len() - 40]).unwrap();
    assert!(wtr::Writer::append(&p).is_err());
}

trait WriteSome {
    fn write_some(&mut self, rs: &[Request]);
}

impl WriteSome for wtr::Writer {
    fn write_some(&mut self, rs: &[Request]) {
        for r in rs {
            self.push(r).unwrap();
        }
    }
}

#[test]
fn extra_columns_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.wtr");
    let mut w = wtr::Writer::create(&p, header(700, Columns::AFTER)).unwrap();
    let mut want = vec![];
    for i in 0..2_000u64 {
        let r = Request {
            time_ns: i * 10,
            offset: (i % 97) * 4096,
            len: 4096,
            dev: 0,
            op: if i % 3 == 0 { Op::Read } else { Op::Write },
        };
        let x = Extra {
            access: i * 3 + 1,
            kind: (i % 6) as u8,
            group: i / 64,
        };
        w.push_with(&r, &x).unwrap();
        want.push((r, x));
    }
    w.finish().unwrap();
    let mut r = wtr::Reader::open(&p).unwrap();
    assert_eq!(r.header().columns, Columns::AFTER);
    let (mut out, mut extra, mut got) = (vec![], vec![], vec![]);
    while r.read_batch_with(&mut out, &mut extra).unwrap() {
        assert_eq!(out.len(), extra.len());
        got.extend(out.iter().copied().zip(extra.iter().copied()));
    }
    assert!(got == want);
    // Such files read like any trace.
    let (plain, f) = read(&p, &detect()).unwrap();
    assert_eq!(f, Some(Format::Wtr));
    assert!(plain.iter().zip(&want).all(|(a, (b, _))| a == b));
    // A plain file pays nothing for them: its extras read as zero.
    let (q, _) = sample(dir.path(), 10);
    let mut r = wtr::Reader::open(&q).unwrap();
    r.read_batch_with(&mut out, &mut extra).unwrap();
    assert_eq!(extra, vec![Extra::default(); 10]);
}

#[test]
fn empty_trace_and_header_fields() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("e.wtr");
    let info = WriteInfo {
        origin: "generated: zipf 0.9, seed 7".into(),
        page_size: 8192,
        has_time: false,
        has_op: true,
    };
    TraceWriter::create(&p, OutFormat::Wtr, &info)
        .unwrap()
        .finish()
        .unwrap();
    let r = wtr::Reader::open(&p).unwrap();
    assert_eq!(r.header().origin, info.origin);
    assert_eq!(r.header().page_size, 8192);
    assert!(!r.meta().has_time && r.meta().has_op);
    assert_eq!(read(&p, &detect()).unwrap().0, vec![]);
}

fn any_request() -> impl Strategy<Value = Request> {
    (
        prop_oneof![Just(NO_TIME), any::<u64>(), 0u64..1_000_000],
        // Every address and device wafer can key (the reader refuses the rest).
        prop_oneof![0..ADDRESS_LIMIT - u64::from(u32::MAX), 0u64..(1 << 20)],
        prop_oneof![any::<u32>(), Just(4096u32), 0u32..2],
        prop_oneof![Just(0u32), 0..DEV_LIMIT],
        0u8..3,
    )
        .prop_map(|(time_ns, offset, len, dev, op)| Request {
            time_ns,
            offset,
            len,
            dev,
            op: Op::from_u8(op).unwrap(),
        })
}

/// A `.wtr` file can hold requests no reader may hand on (written by another tool,
/// or damaged so that the checksums still hold): a device of 2^20 and more would
/// share page keys with device 0, and an end beyond 2^53 bytes with lower pages.
#[test]
fn requests_wafer_cannot_key_are_refused_not_folded() {
    let dir = tempfile::tempdir().unwrap();
    let bad = [
        Request {
            dev: DEV_LIMIT,
            ..Request::default()
        },
        Request {
            offset: 1 << 56,
            len: 4096,
            ..Request::default()
        },
        Request {
            offset: u64::MAX,
            len: 4096,
            ..Request::default()
        },
    ];
    for (i, r) in bad.into_iter().enumerate() {
        let p = dir.path().join(format!("bad{i}.wtr"));
        let mut w = wtr::Writer::create(&p, header(16, Columns::NONE)).unwrap();
        w.write_some(&[Request::default(), r]);
        w.finish().unwrap();
        let err = read(&p, &ReadOptions::default()).unwrap_err().to_string();
        let want = format!("{}: corrupt .wtr: chunk 0: expected", p.display());
        assert!(err.starts_with(&want), "{err}");
        assert!(!err.contains('\n'), "{err}");
    }
}

/// A header's page size is a hint, but only a page size wafer could use: 0 (not
/// stated) or a power of two from 512 B to 1 GiB; anything else is a damaged header.
#[test]
fn a_page_size_hint_no_run_could_use_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (p, _) = sample(dir.path(), 3);
    let good = std::fs::read(&p).unwrap();
    let hlen = usize::from(u16::from_le_bytes([good[6], good[7]]));
    for hint in [3u32, 1000, 256, 1 << 31] {
        let mut bytes = good.clone();
        bytes[16..20].copy_from_slice(&hint.to_le_bytes());
        let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..hlen - 8]);
        bytes[hlen - 8..hlen].copy_from_slice(&sum.to_le_bytes());
        std::fs::write(&p, &bytes).unwrap();
        let e = read_err(&p);
        assert!(
            e.contains(&format!("header page size {hint} is neither")),
            "{e}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_requests_round_trip(rs in proptest::collection::vec(any_request(), 0..400), chunk in 1u32..100) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.wtr");
        let mut w = wtr::Writer::create(&p, header(chunk, Columns::NONE)).unwrap();
        w.write_some(&rs);
        w.finish().unwrap();
        let (back, _) = read(&p, &detect()).unwrap();
        prop_assert_eq!(&back, &rs);
        let c = dir.path().join("r.csv");
        export(&c, OutFormat::Csv, &rs);
        let o = ReadOptions { format: Some(Format::WaferCsv), ..ReadOptions::default() };
        let (csv, _) = read(&c, &o).unwrap();
        prop_assert_eq!(csv, rs);
    }

    #[test]
    fn any_single_byte_change_or_cut_is_detected(n in 1u64..3000, at in any::<prop::sample::Index>(), flip in 1u8..=255, cut in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let (p, _) = sample(dir.path(), n);
        let mut bytes = std::fs::read(&p).unwrap();
        let i = at.index(bytes.len());
        if cut {
            bytes.truncate(i);
        } else {
            bytes[i] ^= flip;
        }
        std::fs::write(&p, &bytes).unwrap();
        let o = ReadOptions { format: Some(Format::Wtr), ..ReadOptions::default() };
        prop_assert!(read(&p, &o).is_err());
    }

    /// Garbage that passes every checksum still never panics or misreads: column
    /// heads, widths and values are checked on their own.
    #[test]
    fn checksummed_garbage_never_panics(raw in proptest::collection::vec(any::<u8>(), 0..300), count in 0u32..40, heads in proptest::collection::vec((0u8..3, 0u8..70), 5)) {
        let dir = tempfile::tempdir().unwrap();
        let (p, _) = sample(dir.path(), 1);
        let bytes = std::fs::read(&p).unwrap();
        let hlen = usize::from(u16::from_le_bytes([bytes[6], bytes[7]]));
        // Plausible column heads (mode, bits) in front of random data.
        let mut payload = vec![];
        for (mode, bits) in heads {
            payload.extend_from_slice(&[mode, bits]);
            payload.extend_from_slice(&7u64.to_le_bytes());
        }
        payload.extend_from_slice(&raw);
        let packed = zstd::bulk::compress(&payload, 1).unwrap();
        let mut f = bytes[..hlen].to_vec();
        let mut head = [0u8; 32];
        head[..4].copy_from_slice(b"WTRC");
        head[8..12].copy_from_slice(&count.to_le_bytes());
        head[12..16].copy_from_slice(&(packed.len() as u32).to_le_bytes());
        head[16..20].copy_from_slice(&(payload.len() as u32).to_le_bytes());
        let sum = xxhash_rust::xxh3::xxh3_64_with_seed(&packed, xxhash_rust::xxh3::xxh3_64(&head[..24]));
        head[24..].copy_from_slice(&sum.to_le_bytes());
        f.extend_from_slice(&head);
        f.extend_from_slice(&packed);
        let mut end = [0u8; 32];
        end[..4].copy_from_slice(b"WTRE");
        end[8..16].copy_from_slice(&u64::from(count).to_le_bytes());
        end[16..24].copy_from_slice(&1u64.to_le_bytes());
        let sum = xxhash_rust::xxh3::xxh3_64(&end[..24]);
        end[24..].copy_from_slice(&sum.to_le_bytes());
        f.extend_from_slice(&end);
        std::fs::write(&p, &f).unwrap();
        if let Ok((v, _)) = read(&p, &detect()) {
            prop_assert_eq!(v.len(), count as usize);
            prop_assert!(v.iter().all(|r| (r.op as u8) < 3));
        }
    }

    #[test]
    fn random_bytes_never_panic(mut data in proptest::collection::vec(any::<u8>(), 0..600), magic in any::<bool>()) {
        if magic && data.len() >= 4 {
            data[..4].copy_from_slice(&wtr::MAGIC);
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.wtr");
        std::fs::write(&p, &data).unwrap();
        let o = ReadOptions { format: Some(Format::Wtr), ..ReadOptions::default() };
        let _ = read(&p, &o);
        let _ = wtr::Writer::append(&p);
    }
}

/// Version 2 stores the distinct keys of the requests before each end record; an
/// append raises them to the larger of the two parts (the old keys are not read
/// again); a reader's estimate is near the true count.
#[test]
fn end_records_carry_the_distinct_keys() {
    let dir = tempfile::tempdir().unwrap();
    let (p, rs) = sample(dir.path(), 20_000);
    let bytes = std::fs::read(&p).unwrap();
    assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), wtr::VERSION);
    let keys = |p: &Path| wafer_trace::open(p, &detect()).unwrap().distinct_keys();
    let truth = |g: Granularity| {
        let mut set = std::collections::HashSet::new();
        for r in &rs {
            g.for_each_key(r, |k| {
                set.insert(k);
            });
        }
        set.len() as f64
    };
    let d = keys(&p).expect("a version 2 file has an estimate");
    let near = |got: u64, want: f64| (got as f64 - want).abs() / want < 0.03;
    assert!(near(d.records, truth(Granularity::Record)), "{d:?}");
    let pages = truth(Granularity::Page { page_size: 4096 });
    assert!(near(d.pages_4k, pages), "{d:?} against {pages}");
    // 100 requests appended, all new keys but fewer than the file's: the estimate
    // stays that of the larger part.
    let mut w = wtr::Writer::append(&p).unwrap();
    w.write_some(
        &rs[..100]
            .iter()
            .map(|r| Request { dev: 7, ..*r })
            .collect::<Vec<_>>(),
    );
    w.finish().unwrap();
    assert_eq!(keys(&p), Some(d));
}

/// Version 1 files (the bundled traces are) are read as before, with no estimate, and
/// an append keeps them version 1.
#[test]
fn version_1_files_are_read_and_appended_as_version_1() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("v1.wtr");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/postmark.wtr"),
        &p,
    )
    .unwrap();
    let version = |p: &Path| {
        let b = std::fs::read(p).unwrap();
        u16::from_le_bytes([b[4], b[5]])
    };
    assert_eq!(version(&p), 1);
    let mut r = wafer_trace::open(&p, &detect()).unwrap();
    assert_eq!(r.distinct_keys(), None);
    let before = drain(r.as_mut()).unwrap();
    let mut w = wtr::Writer::append(&p).unwrap();
    w.write_some(&before[..10]);
    w.finish().unwrap();
    assert_eq!(version(&p), 1);
    let mut r = wafer_trace::open(&p, &detect()).unwrap();
    assert_eq!(r.distinct_keys(), None);
    let after = drain(r.as_mut()).unwrap();
    assert_eq!(after.len(), before.len() + 10);
    // A version this wafer does not know is refused by name.
    let mut b = std::fs::read(&p).unwrap();
    b[4] = 3;
    std::fs::write(&p, &b).unwrap();
    let e = read_err(&p);
    assert!(
        e.contains("unsupported .wtr version 3 (this wafer reads versions 1 and 2)"),
        "{e}"
    );
}
