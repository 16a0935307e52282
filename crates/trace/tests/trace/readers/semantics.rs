//! Per-format conventions on small hand-written inputs: units, ops, devices and the
//! records that carry no data (each format's conventions are listed in `README.md`,
//! "Trace formats").

use super::{opts, read_bytes};
use wafer_trace::{Format, Op, ReadOptions, Request, NO_TIME};

fn one(format: Format, line: &str) -> Vec<Request> {
    read_bytes("t", line.as_bytes(), &opts(Some(format)))
        .unwrap()
        .0
}

fn req(time_ns: u64, op: Op, dev: u32, offset: u64, len: u32) -> Request {
    Request {
        time_ns,
        offset,
        len,
        dev,
        op,
    }
}

#[test]
fn msr_filetime_ticks_and_bytes() {
    let v = one(
        Format::Msr,
        "128166372003061629,hm,1,Write,383055872,4096,1062\n",
    );
    assert_eq!(
        v,
        [req(
            12_816_637_200_306_162_900,
            Op::Write,
            1,
            383_055_872,
            4096
        )]
    );
}

#[test]
fn spc_asu_is_the_device_and_lba_is_sectors() {
    let v = one(Format::Spc, "2,20941264,8192,w,0.551706,extra\n");
    assert_eq!(v, [req(551_706_000, Op::Write, 2, 20_941_264 * 512, 8192)]);
}

/// A header line on top of an MSR or SPC file (as published copies and spreadsheet
/// exports have) is skipped, detected or not; a column name below the first line is
/// still an error.
#[test]
fn msr_and_spc_header_lines_are_skipped() {
    let msr = "128166372003061629,hm,1,Write,383055872,4096,1062\n";
    let header = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n";
    let with = format!("{header}{msr}");
    assert_eq!(one(Format::Msr, &with), one(Format::Msr, msr));
    // Detected as MSR too (nothing else reads these lines).
    let detected = read_bytes("t", with.as_bytes(), &opts(None)).unwrap();
    assert_eq!(detected.0, one(Format::Msr, msr));
    let below = format!("{msr}{header}");
    assert!(read_bytes("t", below.as_bytes(), &opts(Some(Format::Msr))).is_err());
    let spc = "2,20941264,8192,w,0.551706\n";
    assert_eq!(
        one(
            Format::Spc,
            &format!("ASU,LBA,Size,Opcode,Timestamp\n{spc}")
        ),
        one(Format::Spc, spc)
    );
}

#[test]
fn blkparse_rwbs_discard_no_data_and_summary() {
    let text = "\
  8,0    0        1     0.000000000   1  D   DS 100 + 8 [fstrim]
  8,0    0        2     0.000001000   1  D   N 0 + 0 [x]
  8,0    0        3     0.000002000   1  D   FWS 0 + 0 [jbd2]
  8,0    0        4     0.000003000   1  D   FWFS 16 + 8 [jbd2]
  8,0    0        5     0.000004000   1  Q   R 16 + 8 [cat]
  8,0    0        6     0.000005000   0  m   N cfq1 insert_request
CPU0 (8,0):
 Reads Queued:           0,        0KiB
  8,0    0        7     0.000006000   1  D   R 16 + 8 [cat]
";
    let v = one(Format::Blkparse, text);
    assert_eq!(
        v,
        [
            req(0, Op::Trim, 8 << 8, 100 * 512, 4096),
            req(3000, Op::Write, 8 << 8, 16 * 512, 4096),
        ]
    );
}

#[test]
fn fiu_process_names_with_blanks() {
    let v = one(Format::Fiu, "5 1 kworker u16 2 8 R 8 16 abc\n");
    assert_eq!(v, [req(5, Op::Read, 8 << 8 | 16, 1024, 4096)]);
}

#[test]
fn disksim_flags_and_devices() {
    let v = one(Format::Disksim, "1000 15 8 16 1\n2000.6 3 0 1 0\n");
    assert_eq!(
        v,
        [
            req(1000, Op::Read, 15, 4096, 8192),
            req(2001, Op::Write, 3, 0, 512)
        ]
    );
}

#[test]
fn android_device_numbers_and_commas_in_process_names() {
    let v = one(
        Format::Android,
        "proces,device,rw_flag,sector,size,timestamp\na,b-1,8388625,W,16,8,2.5\n",
    );
    // dev_t 8388625 = (8 << 20) | 17, i.e. 8,17.
    assert_eq!(v, [req(2_500_000_000, Op::Write, 8 << 8 | 17, 8192, 4096)]);
}

#[test]
fn lackey_loads_stores_modifies_and_optional_fetches() {
    let text =
        "==42== Lackey\nI  04000000,3\n L 0400d7d4,8\n S 7ff000a08,8\n M 10,4\n==42== done\n";
    let v = one(Format::Lackey, text);
    assert_eq!(
        v,
        [
            req(NO_TIME, Op::Read, 0, 0x0400_d7d4, 8),
            req(NO_TIME, Op::Write, 0, 0x7_ff00_0a08, 8),
            req(NO_TIME, Op::Read, 0, 0x10, 4),
            req(NO_TIME, Op::Write, 0, 0x10, 4),
        ]
    );
    let o = ReadOptions {
        format: Some(Format::Lackey),
        instructions: true,
        ..ReadOptions::default()
    };
    let (v, _) = read_bytes("t", text.as_bytes(), &o).unwrap();
    assert_eq!(v[0], req(NO_TIME, Op::Read, 0, 0x0400_0000, 3));
    assert_eq!(v.len(), 5);
    // Detected as lackey without --format.
    let (d, _) = read_bytes("t", text.as_bytes(), &opts(None)).unwrap();
    assert_eq!(d.len(), 4);
}

#[test]
fn vscsi_v2_and_oracle_general_records() {
    let mut v2 = vec![0u8; 40];
    v2[0] = 0x8a; // WRITE(16)
    v2[3] = 0x02;
    v2[8..12].copy_from_slice(&4096u32.to_le_bytes());
    v2[16..24].copy_from_slice(&77u64.to_le_bytes());
    v2[24..32].copy_from_slice(&5u64.to_le_bytes());
    let (v, _) = read_bytes("t", &v2, &opts(None)).unwrap();
    assert_eq!(v, [req(5000, Op::Write, 0, 77 * 512, 4096)]);

    // A v2 file that fails detection (its clock steps back by more than a second) is
    // read as v2 when --format vscsi says what it is; it was read as v1 and refused.
    let mut back = v2.clone();
    back[24..32].copy_from_slice(&5_000_000u64.to_le_bytes());
    back.extend_from_slice(&v2);
    assert!(read_bytes("t", &back, &opts(None)).is_err());
    let (v, _) = read_bytes("t", &back, &opts(Some(Format::Vscsi))).unwrap();
    assert_eq!(
        v,
        [
            req(5_000_000_000, Op::Write, 0, 77 * 512, 4096),
            req(5000, Op::Write, 0, 77 * 512, 4096)
        ]
    );

    let mut og = Vec::new();
    for (t, id, size, next) in [(7u32, 9u64, 100u32, 2i64), (8, 9, 100, -1)] {
        og.extend_from_slice(&t.to_le_bytes());
        og.extend_from_slice(&id.to_le_bytes());
        og.extend_from_slice(&size.to_le_bytes());
        og.extend_from_slice(&next.to_le_bytes());
    }
    let (v, _) = read_bytes("t", &og, &opts(None)).unwrap();
    assert_eq!(
        v,
        [
            req(7_000_000_000, Op::Read, 0, 9 * 512, 100),
            req(8_000_000_000, Op::Read, 0, 9 * 512, 100)
        ]
    );
}
