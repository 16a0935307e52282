//! libCacheSim's oracleGeneral binary traces.
//!
//! Packed little-endian 24-byte records, no header: `u32 clock_time_s, u64 obj_id,
//! u32 obj_size_bytes, i64 next_access_vtime`, as libCacheSim's own reader of the
//! format (`traceReader/customizedReader/oracle/oracleGeneralBin.h`) lays it out.
//! The format has no op: **every access is a read**. To make
//! `Granularity::Record` keys equal the object ids (which, for the CloudPhysics
//! sample, are the vscsi lbn), a record becomes a read at `offset = obj_id * 512`
//! of `obj_size` bytes on device 0. Ids of 2^44 and above (hashed 64-bit ids, say)
//! would share keys with smaller ones, so a record that carries one is refused
//! rather than folded (`Request::check`). `next_access_vtime` is not kept.
//! Time is `clock_time` seconds in ns.

use super::binary::{le_u32, le_u64, RecordFormat};
use crate::request::{Op, Request, SECTOR};

/// The oracleGeneral record decoder.
pub(crate) struct OracleGeneral;

impl RecordFormat for OracleGeneral {
    const SIZE: usize = 24;
    fn decode(&mut self, r: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        let time_s = u64::from(le_u32(r, 0));
        let id = le_u64(r, 4);
        let offset = id
            .checked_mul(SECTOR)
            .ok_or_else(|| format!("expected an object id below 2^44, found {id}"))?;
        out.push(Request {
            time_ns: time_s * 1_000_000_000,
            offset,
            len: le_u32(r, 12),
            dev: 0,
            op: Op::Read,
        });
        Ok(())
    }
}

/// Whether `head` (the start of a stream) holds positive evidence of oracleGeneral
/// records. The format has no magic, so every sampled record (at least two, at most
/// 256) must be plausible: clock times non-decreasing (one second of jitter allowed),
/// an object id wafer can key ([`crate::request::ADDRESS_LIMIT`] / 512), a size of at
/// most 1 GiB, and `next_access_vtime` either -1 or a later record index below 2^48.
/// Text or other binary data fails on the first few records.
pub(crate) fn looks_like(head: &[u8]) -> bool {
    let recs: Vec<&[u8]> = head.chunks_exact(OracleGeneral::SIZE).take(256).collect();
    let max_id = crate::request::ADDRESS_LIMIT / SECTOR;
    recs.len() >= 2
        && recs
            .windows(2)
            .all(|w| u64::from(le_u32(w[1], 0)) + 1 >= u64::from(le_u32(w[0], 0)))
        && recs.iter().enumerate().all(|(i, r)| {
            let next = le_u64(r, 16) as i64;
            le_u64(r, 4) < max_id
                && le_u32(r, 12) <= 1 << 30
                && (next == -1 || (next > i as i64 + 1 && next < 1 << 48))
        })
}
