//! CloudPhysics VMware vscsi block traces (Waldspurger et al., FAST'15), as
//! libCacheSim distributes them.
//!
//! Packed little-endian records, no header (as libCacheSim's vscsi reader,
//! `traceReader/customizedReader/vscsi.h`, reads them):
//! v1 (32 B) `u32 sn, u32 len_bytes, u32 nSG, u16 cmd, u16 ver (0x01xx), u64 lbn,
//! u64 ts_us`; v2 (40 B) `u16 cmd, u16 ver (0x02xx), u32 sn, u32 len, u32 nSG,
//! u64 lbn, u64 ts_us, u64 rt`. lbn is 512 B sectors, ts microseconds (kept as is,
//! times 1000). The op comes from the SCSI opcode: READ(6/10/12/16) `08 28 a8 88`
//! and WRITE(6/10/12/16) `0a 2a aa 8a`; any other command (TEST UNIT READY, INQUIRY,
//! SYNCHRONIZE CACHE, ...) moves no user data and is skipped, like blkparse's `N`
//! records. A record whose version field is not the file's version is malformed.

use super::binary::{le_u16, le_u32, le_u64, RecordFormat};
use crate::request::{Op, Request, SECTOR};

/// The op of a SCSI command opcode, `None` for commands that move no user data.
pub(crate) fn scsi_op(code: u8) -> Option<Op> {
    match code {
        0x08 | 0x28 | 0xa8 | 0x88 => Some(Op::Read),
        0x0a | 0x2a | 0xaa | 0x8a => Some(Op::Write),
        _ => None,
    }
}

fn push(cmd: u16, len: u32, lbn: u64, ts_us: u64, out: &mut Vec<Request>) -> Result<(), String> {
    let Some(op) = u8::try_from(cmd).ok().and_then(scsi_op) else {
        return Ok(());
    };
    let offset = lbn
        .checked_mul(SECTOR)
        .ok_or_else(|| format!("expected an lbn below 2^55, found {lbn}"))?;
    let time_ns = ts_us
        .checked_mul(1000)
        .ok_or_else(|| format!("expected a timestamp below 2^64 ns, found {ts_us} us"))?;
    out.push(Request {
        time_ns,
        offset,
        len,
        dev: 0,
        op,
    });
    Ok(())
}

/// vscsi version 1 (32-byte records).
pub(crate) struct VscsiV1;

impl RecordFormat for VscsiV1 {
    const SIZE: usize = 32;
    fn decode(&mut self, r: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        let ver = le_u16(r, 14);
        if ver >> 8 != 1 {
            return Err(format!("expected vscsi version 0x01xx, found {ver:#06x}"));
        }
        push(
            le_u16(r, 12),
            le_u32(r, 4),
            le_u64(r, 16),
            le_u64(r, 24),
            out,
        )
    }
}

/// vscsi version 2 (40-byte records).
pub(crate) struct VscsiV2;

impl RecordFormat for VscsiV2 {
    const SIZE: usize = 40;
    fn decode(&mut self, r: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        let ver = le_u16(r, 2);
        if ver >> 8 != 2 {
            return Err(format!("expected vscsi version 0x02xx, found {ver:#06x}"));
        }
        push(
            le_u16(r, 0),
            le_u32(r, 8),
            le_u64(r, 16),
            le_u64(r, 24),
            out,
        )
    }
}

/// Whether `head` (the start of a stream) holds positive evidence of vscsi records
/// of `size` bytes whose version byte sits at `ver_at`, command at `cmd_at`, lbn at
/// `lbn_at` and timestamp at `ts_at`. Of up to 64 records, nine in ten carry the
/// version (so one damaged record is reported by the reader, not mistaken for another
/// format), at least one is a read or write, and every data command addresses an lbn
/// wafer can key with a length of at most 1 GiB, at a time that does not step back
/// by more than a second.
pub(crate) fn looks_like(head: &[u8], layout: Layout) -> bool {
    let recs: Vec<&[u8]> = head.chunks_exact(layout.size).take(64).collect();
    let versioned = recs
        .iter()
        .filter(|r| r[layout.ver_at + 1] == layout.ver)
        .count();
    let data: Vec<&&[u8]> = recs
        .iter()
        .filter(|r| r[layout.cmd_at + 1] == 0 && scsi_op(r[layout.cmd_at]).is_some())
        .collect();
    let max_lbn = crate::request::ADDRESS_LIMIT / SECTOR;
    !recs.is_empty()
        && versioned * 10 >= recs.len() * 9
        && !data.is_empty()
        && data
            .iter()
            .all(|r| le_u64(r, layout.lbn_at) < max_lbn && le_u32(r, layout.len_at) <= 1 << 30)
        && data.windows(2).all(|w| {
            le_u64(w[1], layout.ts_at).saturating_add(1_000_000) >= le_u64(w[0], layout.ts_at)
        })
}

/// The vscsi version of `head` by its version fields alone, for a file given as vscsi
/// that shows no evidence of either version ([`looks_like`]): 2 when more of its first
/// 64 records carry a v2 version field than a v1 one, else 1. A v2 file whose clock
/// steps back, or that starts with commands that move no data, is then read as v2
/// rather than refused at every record for a v1 version field.
pub(crate) fn version_by_field(head: &[u8]) -> u8 {
    let count = |l: Layout| {
        head.chunks_exact(l.size)
            .take(64)
            .filter(|r| r[l.ver_at + 1] == l.ver)
            .count()
    };
    if count(V2) > count(V1) {
        2
    } else {
        1
    }
}

/// Where the fields of one vscsi version sit in its record.
#[derive(Clone, Copy)]
pub(crate) struct Layout {
    size: usize,
    ver: u8,
    ver_at: usize,
    cmd_at: usize,
    len_at: usize,
    lbn_at: usize,
    ts_at: usize,
}

/// vscsi v1: `u32 sn, u32 len, u32 nSG, u16 cmd, u16 ver, u64 lbn, u64 ts`.
pub(crate) const V1: Layout = Layout {
    size: 32,
    ver: 1,
    ver_at: 14,
    cmd_at: 12,
    len_at: 4,
    lbn_at: 16,
    ts_at: 24,
};

/// vscsi v2: `u16 cmd, u16 ver, u32 sn, u32 len, u32 nSG, u64 lbn, u64 ts, u64 rt`.
pub(crate) const V2: Layout = Layout {
    size: 40,
    ver: 2,
    ver_at: 2,
    cmd_at: 0,
    len_at: 8,
    lbn_at: 16,
    ts_at: 24,
};
