//! libCacheSim's oracleGeneral binary traces.
//!
//! Packed little-endian 24-byte records, no header: `u32 clock_time_s, u64 obj_id,
//! u32 obj_size_bytes, i64 next_access_vtime` (`reference/libcachesim-parity.md`).
//! The format has no op: **every access is a read**. To make
//! `Granularity::Record` keys equal the object ids (which, for the CloudPhysics
//! sample, are the vscsi lbn), a record becomes a read at `offset = obj_id * 512`
//! of `obj_size` bytes on device 0; ids of 2^55 and above wrap (their keys are
//! truncated to 44 bits by `page_key` anyway). `next_access_vtime` is not kept.
//! Time is `clock_time` seconds in ns.

use super::binary::{le_u32, le_u64, RecordFormat};
use crate::request::{Op, Request, SECTOR};

/// The oracleGeneral record decoder.
pub(crate) struct OracleGeneral;

impl RecordFormat for OracleGeneral {
    const SIZE: usize = 24;
    fn decode(&mut self, r: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        let time_s = u64::from(le_u32(r, 0));
        out.push(Request {
            time_ns: time_s * 1_000_000_000,
            offset: le_u64(r, 4).wrapping_mul(SECTOR),
            len: le_u32(r, 12),
            dev: 0,
            op: Op::Read,
        });
        Ok(())
    }
}

/// Whether `head` looks like oracleGeneral: at least two whole records, and every
/// `next_access_vtime` is -1 or a later 1-based record index.
pub(crate) fn looks_like(head: &[u8]) -> bool {
    let recs: Vec<&[u8]> = head.chunks_exact(OracleGeneral::SIZE).take(256).collect();
    recs.len() >= 2
        && recs.iter().enumerate().all(|(i, r)| {
            let next = le_u64(r, 16) as i64;
            next == -1 || next > i as i64 + 1
        })
}
