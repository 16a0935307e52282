//! Malformed records: `file:line: expected X, found Y` with the right line number for
//! every format, and `skip_invalid` skipping and counting them instead.

use super::{opts, read_bytes};
use wafer_trace::reader::GenericSpec;
use wafer_trace::{Format, Op, ReadOptions};

/// Read `data` as `format`, expect an error and return its message.
fn error(format: Format, data: &str) -> String {
    match read_bytes("t.txt", data.as_bytes(), &opts(Some(format))) {
        Ok((v, _)) => panic!("{format:?}: expected an error, read {} requests", v.len()),
        Err(e) => e.to_string(),
    }
}

/// (format, valid lines, one bad line appended as line `valid + 1`, expected message part)
fn cases() -> Vec<(Format, &'static str, &'static str, &'static str)> {
    vec![
        (
            Format::Msr,
            "128166372003061629,hm,1,Read,383055872,4096,1062\n128166372003061630,hm,1,Write,0,512,10\n",
            "128166372003061631,hm,1,Erase,0,512,10",
            "expected Read or Write, found `Erase`",
        ),
        (
            Format::Spc,
            "0,20941264,8192,W,0.551706\n1,20939840,8192,r,0.554041\n",
            "0,2094x264,8192,W,0.6",
            "expected an LBA in 512 B sectors, found `2094x264`",
        ),
        (
            Format::Blkparse,
            "  8,16   3        4     0.000011950  3645  I   R 4938888 + 256 [java]\n  8,16   3        5     0.000026421  3645  D   R 4938888 + 256 [java]\n",
            "  8,16   3        6     0.000030000  3645  D   R 4938888 - 256 [java]",
            "expected `+` between sector and sector count, found `-`",
        ),
        (
            Format::Fiu,
            "89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\n89966527950584 4253 nfsd 508516672 8 R 6 0 88b93b628d84082186026d9da044f173\n",
            "89966527996712 4253 nfsd 508516680 8 X 6 0 b5e9f4e5ab62a4fff5313a606b0ad4e3",
            "expected R or W, found `X`",
        ),
        (
            // A NUL in the content hash was accepted: the field is not kept.
            Format::Fiu,
            "89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\n",
            "89966527996712 4253 nfsd 508516680 8 W 6 0 b5e9f4e5ab62\0a4fff5313a606b0ad4e3",
            "expected a content hash of printable characters, found `b5e9f4e5ab62?a4fff5313a606b0ad4e3`",
        ),
        (
            Format::Disksim,
            "938513000 4 264719034 16 0\n938828000 3 197570570 16 1\n",
            "938944000 13 93230992 32",
            "expected 5 fields `arrival_ns device sector size_sectors flags`, found 4",
        ),
        (
            Format::CloudphysicsCsv,
            "version,time,op,size,lbn\n1,5633898,2a,512,42932745\n",
            "1,5633898,zz,512,42932746",
            "expected a SCSI opcode in hex like 28 or 2a, found `zz`",
        ),
        (
            Format::Android,
            "proces,device,rw_flag,sector,size,timestamp\n<...>-12228,8388608,R,29880920,16,159273.751646\n",
            "kworker/4:1H-225,8388608,R,30175712,8,159273.8374x",
            "expected a timestamp in seconds, found `159273.8374x`",
        ),
        (
            Format::Lackey,
            "==1234== Lackey, an example Valgrind tool\n I  04000000,3\n",
            " L 04c8bd58;8",
            "expected `address,size`, found `04c8bd58;8`",
        ),
    ]
}

#[test]
fn every_format_reports_file_line_expected_found() {
    for (format, good, bad, msg) in cases() {
        let line = good.lines().count() + 1;
        let e = error(format, &format!("{good}{bad}\n{good}"));
        assert_eq!(e, format!("t.txt:{line}: {msg}"), "{format:?}");
    }
}

#[test]
fn skip_invalid_skips_and_counts() {
    for (format, good, bad, _) in cases() {
        let data = format!("{good}{bad}\n{bad}\n");
        let o = ReadOptions {
            format: Some(format),
            skip_invalid: true,
            ..ReadOptions::default()
        };
        let (v, skipped) = read_bytes("t.txt", data.as_bytes(), &o).unwrap();
        let (clean, _) = read_bytes("t.txt", good.as_bytes(), &opts(Some(format))).unwrap();
        assert_eq!(skipped, 2, "{format:?}");
        assert_eq!(v, clean, "{format:?}");
    }
}

#[test]
fn generic_spec_errors_and_units() {
    let spec = GenericSpec {
        delimiter: Some(b';'),
        skip_lines: 1,
        time_col: Some(0),
        time_unit_s: 1e-6,
        op_col: Some(1),
        offset_col: 2,
        offset_unit: 512,
        size_col: Some(3),
        size_unit: 4096,
        dev_col: None,
        ops: None,
    };
    let o = ReadOptions {
        generic: Some(spec),
        ..ReadOptions::default()
    };
    let (v, _) = read_bytes(
        "g.csv",
        b"time;op;lba;pages\n1.5;W;0x10;2\n3;read;8;1\n",
        &o,
    )
    .unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(
        (v[0].time_ns, v[0].op, v[0].offset, v[0].len),
        (1500, Op::Write, 16 * 512, 8192)
    );
    assert_eq!(
        (v[1].time_ns, v[1].op, v[1].offset, v[1].len),
        (3000, Op::Read, 4096, 4096)
    );
    let e = read_bytes("g.csv", b"h\n1;W;8;1\n2;W;8\n", &o)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "g.csv:3: expected a size in column 3 (0-based), found only 3 fields"
    );
}

#[test]
fn binary_formats_report_record_numbers() {
    // vscsi v1: second record carries a v2 version field.
    let mut rec = [0u8; 32];
    rec[4..8].copy_from_slice(&512u32.to_le_bytes());
    rec[12] = 0x28;
    rec[15] = 0x01;
    let mut data = rec.repeat(3);
    data[32 + 15] = 0x02;
    let e = read_bytes("v.bin", &data, &opts(Some(Format::Vscsi))).unwrap_err();
    assert_eq!(
        e.to_string(),
        "v.bin:2: record 2 (byte 32): expected vscsi version 0x01xx, found 0x0200"
    );
    // Truncated: a partial fourth record.
    let mut data = rec.repeat(3);
    data.extend_from_slice(&[1, 2, 3]);
    let e = read_bytes("v.bin", &data, &opts(None)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "v.bin:4: record 4 (byte 96): truncated file: expected a 32-byte record, found 3 bytes"
    );
    let o = ReadOptions {
        skip_invalid: true,
        ..ReadOptions::default()
    };
    let (v, skipped) = read_bytes("v.bin", &data, &o).unwrap();
    assert_eq!((v.len(), skipped), (3, 1));
}

#[test]
fn undetectable_input_lists_formats_and_suggests_format_flag() {
    let e = read_bytes("x.dat", b"hello world\nthis is prose\n", &opts(None)).unwrap_err();
    let m = e.to_string();
    assert!(
        m.starts_with("x.dat: cannot detect the trace format (tried wtr, vscsi"),
        "{m}"
    );
    assert!(m.contains("disksim") && m.contains("--format"), "{m}");
}

#[test]
fn overlong_lines_are_an_error_not_a_memory_blowup() {
    let mut data = b"0,1,512,R,0.1\n".to_vec();
    data.extend(std::iter::repeat(b'9').take(1 << 20));
    let e = read_bytes("l.csv", &data, &opts(Some(Format::Spc))).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("l.csv:2: expected a text line of at most 65536 bytes"),
        "{e}"
    );
}

/// An SPC CSV of `n` lines (one request each, times increasing).
fn spc_lines(n: u64) -> Vec<u8> {
    (0..n)
        .flat_map(|i| {
            format!(
                "0,{},4096,{},{}.5\n",
                i * 8 + 3,
                if i % 3 == 0 { 'W' } else { 'r' },
                i
            )
            .into_bytes()
        })
        .collect()
}

#[test]
fn one_control_byte_never_makes_a_text_trace_binary() {
    // Formerly read as oracleGeneral: "350 requests, 259 GiB read".
    for at in [0usize, 7, 400, 3000] {
        let mut data = spc_lines(300);
        data.insert(at, 0x01);
        match read_bytes("s.csv", &data, &opts(None)) {
            Ok((v, _)) => panic!("control byte at {at}: read {} requests", v.len()),
            Err(e) => {
                let m = e.to_string();
                assert!(
                    m.contains("cannot detect the trace format") || m.starts_with("s.csv:"),
                    "{m}"
                );
                assert!(!m.contains("record"), "read as a binary format: {m}");
            }
        }
    }
    // A 24-byte multiple of text bytes is not an oracleGeneral trace either.
    let mut data = spc_lines(300);
    data.truncate(data.len() / 24 * 24);
    data[100] = 0;
    let e = read_bytes("s.csv", &data, &opts(None))
        .unwrap_err()
        .to_string();
    assert!(!e.contains("record"), "{e}");
}

#[test]
fn a_text_trace_padded_with_nuls_fails_at_the_padding() {
    // What a crash leaves at the end of a log: the text, then NULs to a block size.
    let mut data = spc_lines(100);
    let text_lines = 100;
    data.resize(24 * 1024, 0);
    let e = read_bytes("p.csv", &data, &opts(None))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with(&format!("p.csv:{}: ", text_lines + 1)), "{e}");
}

#[test]
fn binary_detection_needs_evidence_and_a_damaged_record_is_reported_in_place() {
    // Random bytes whose length is a multiple of 24 (and of 32 and 40).
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let noise: Vec<u8> = (0..24 * 40 * 8)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let e = read_bytes("n.bin", &noise, &opts(None))
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot detect the trace format"), "{e}");

    // vscsi v1 with one record's version damaged by two flipped bits: still vscsi,
    // and the reader names the damaged record.
    let mut vscsi = vec![0u8; 32 * 20];
    for (i, r) in vscsi.chunks_mut(32).enumerate() {
        r[0] = i as u8; // sequence number
        r[5] = 0x10; // 4 KiB
        r[12] = 0x2a; // WRITE(10)
        r[15] = 1; // version 1
        r[16] = 8 * i as u8; // lbn
        r[24] = i as u8; // time
    }
    vscsi[32 * 5 + 15] ^= 0x03;
    let e = read_bytes("v.bin", &vscsi, &opts(None))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "v.bin:6: record 6 (byte 160): expected vscsi version 0x01xx, found 0x0200"
    );
}

#[test]
fn addresses_and_devices_beyond_the_key_space_are_refused_per_record() {
    let csv = |row: &str| format!("time_ns,op,dev,offset,len\n0,W,0,0,4096\n{row}\n");
    for (row, want) in [
        (
            "1,W,0,18446744073709551615,4096",
            "expected a request that ends below 2^64 bytes",
        ),
        (
            "1,W,0,18446744073709547520,4096",
            "expected a request that ends below 2^64 bytes",
        ),
        // Page 2^44 of 4 KiB pages would share page 0's key.
        (
            "1,W,0,72057594037927936,4096",
            "expected an address below 2^53 bytes",
        ),
        (
            "1,W,1048576,0,4096",
            "expected a device number (an integer below 2^20)",
        ),
    ] {
        let e = read_bytes("a.csv", csv(row).as_bytes(), &opts(None))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(&format!("a.csv:3: {want}")), "{row}: {e}");
    }
    // The same limits in a binary format and a block-layer text format.
    let mut og = vec![0u8; 48];
    og[16..24].copy_from_slice(&(-1i64).to_le_bytes());
    og[24 + 4..24 + 12].copy_from_slice(&(1u64 << 44).to_le_bytes());
    og[24 + 16..48].copy_from_slice(&(-1i64).to_le_bytes());
    let e = read_bytes("o.bin", &og, &opts(Some(Format::OracleGeneral))).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("o.bin:2: record 2 (byte 24): expected an address below 2^53"),
        "{e}"
    );
    let e = error(Format::Msr, "1,hm,1,Read,18446744073709551615,4096,10\n");
    assert!(
        e.starts_with("t.txt:1: expected a request that ends below 2^64"),
        "{e}"
    );
}

#[test]
fn a_last_line_cut_mid_record_is_an_error_or_skipped() {
    // Cut after "...,4096,W,99." : the last record would still parse.
    let mut data = spc_lines(100);
    data.truncate(data.len() - 2);
    let e = read_bytes("c.csv", &data, &opts(Some(Format::Spc)))
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("c.csv:100: expected a line ending in a newline"),
        "{e}"
    );
    let o = ReadOptions {
        format: Some(Format::Spc),
        skip_invalid: true,
        ..ReadOptions::default()
    };
    assert_eq!(read_bytes("c.csv", &data, &o).unwrap().0.len(), 99);
}

#[test]
fn negative_times_are_refused_even_when_they_round_to_zero() {
    let e = error(Format::Spc, "0,8,4096,W,-1e-20\n");
    assert_eq!(
        e,
        "t.txt:1: expected a timestamp in seconds, found `-1e-20`"
    );
}
