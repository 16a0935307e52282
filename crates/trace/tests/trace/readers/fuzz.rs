//! Property tests: random bytes and mutated valid inputs never panic or hang in any
//! reader, and memory stays bounded (lines are capped; binary records are fixed).
//! Every case either reads to the end or stops with an error.

use super::read_bytes;
use proptest::prelude::*;
use wafer_trace::reader::GenericSpec;
use wafer_trace::{Format, ReadOptions};

/// A few valid records of every format (the seeds that mutation starts from).
fn seeds() -> Vec<(Format, Vec<u8>)> {
    let mut vscsi = vec![0u8; 64];
    for r in vscsi.chunks_mut(32) {
        r[4] = 2;
        r[12] = 0x2a;
        r[15] = 1;
        r[16] = 7;
    }
    let mut vscsi2 = vec![0u8; 80];
    for r in vscsi2.chunks_mut(40) {
        r[0] = 0x28;
        r[3] = 2;
        r[9] = 2;
    }
    let mut oracle = vec![0u8; 48];
    for r in oracle.chunks_mut(24) {
        r[4] = 9;
        r[16..24].copy_from_slice(&(-1i64).to_le_bytes());
    }
    vec![
        (
            Format::Msr,
            b"128166372003061629,hm,1,Read,383055872,4096,1062\n".to_vec(),
        ),
        (
            Format::Spc,
            b"0,20941264,8192,W,0.551706\n1,3,512,r,1e-3\n".to_vec(),
        ),
        (
            Format::Blkparse,
            b"  8,16   3  5  0.000026421  3645  D   WS 4938888 + 256 [java]\nCPU0 (8,16):\n x\n"
                .to_vec(),
        ),
        (
            Format::Fiu,
            b"89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c7\n".to_vec(),
        ),
        (Format::Disksim, b"938513000 4 264719034 16 0\n".to_vec()),
        (
            Format::CloudphysicsCsv,
            b"version,time,op,size,lbn\n1,5633898,2a,512,42932745\n".to_vec(),
        ),
        (
            Format::Android,
            b"proces,device,rw_flag,sector,size,timestamp\na,8388608,W,2,8,1.5\n".to_vec(),
        ),
        (
            Format::Lackey,
            b"==1== x\nI  0400d7d4,8\n M 0400d7d4,8\n".to_vec(),
        ),
        (Format::Generic, b"1 R 8 2\n".to_vec()),
        (Format::Vscsi, vscsi),
        (Format::Vscsi, vscsi2),
        (Format::OracleGeneral, oracle),
    ]
}

fn options(format: Option<Format>, skip: bool) -> ReadOptions {
    ReadOptions {
        format,
        skip_invalid: skip,
        instructions: true,
        generic: (format == Some(Format::Generic)).then_some(GenericSpec {
            delimiter: None,
            skip_lines: 0,
            time_col: Some(0),
            time_unit_s: 1.0,
            op_col: Some(1),
            offset_col: 2,
            offset_unit: 512,
            size_col: Some(3),
            size_unit: 512,
            dev_col: None,
            ops: None,
        }),
    }
}

/// Read and check the invariants that hold whatever the input.
fn check(data: &[u8], format: Option<Format>, skip: bool) {
    match read_bytes("fuzz", data, &options(format, skip)) {
        Ok((v, skipped)) => {
            // Each request comes from at least one byte of input (lackey M: two per line).
            assert!(v.len() as u64 <= data.len() as u64 + 1);
            assert!(skipped <= data.len() as u64 + 1);
        }
        Err(e) => {
            let m = e.to_string();
            assert!(m.starts_with("fuzz"), "error without the file name: {m}");
            assert!(!skip || !m.contains("expected a text line"), "{m}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..2048),
                                f in 0usize..13, skip in any::<bool>()) {
        let format = if f == 12 { None } else { Some(seeds()[f].0) };
        check(&data, format, skip);
    }

    #[test]
    fn mutated_valid_inputs_never_panic(which in 0usize..12,
                                        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 1..8),
                                        detect in any::<bool>(), skip in any::<bool>()) {
        let (format, mut data) = seeds()[which].clone();
        let data_ref = &mut data;
        for (pos, byte, kind) in edits {
            let at = if data_ref.is_empty() { 0 } else { pos % data_ref.len() };
            match kind {
                0 if !data_ref.is_empty() => data_ref[at] = byte,
                1 => data_ref.insert(at, byte),
                _ if !data_ref.is_empty() => { data_ref.remove(at); }
                _ => {}
            }
        }
        check(&data, if detect { None } else { Some(format) }, skip);
    }

    #[test]
    fn seeds_round_trip_their_format(which in 0usize..12) {
        let (format, data) = seeds()[which].clone();
        let (v, skipped) = read_bytes("seed", &data, &options(Some(format), false)).unwrap();
        prop_assert!(!v.is_empty());
        prop_assert_eq!(skipped, 0);
        if format != Format::Generic {
            // Detection finds the same format on these small samples.
            let (d, _) = read_bytes("seed", &data, &options(None, false)).unwrap();
            prop_assert_eq!(d, v);
        }
    }
}
