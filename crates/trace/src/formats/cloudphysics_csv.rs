//! The CSV copy of the CloudPhysics vscsi sample (libCacheSim's `data/`).
//!
//! Header `version,time,op,size,lbn`, then one record per line: op is the SCSI
//! opcode in hex (`28`, `2a`, ...; see [`super::vscsi::scsi_op`]), size is bytes,
//! lbn is 512 B sectors. The `time` column holds whole **seconds**: it equals the
//! vscsi record's microsecond timestamp divided by 10^6 on every record of
//! `cloudPhysicsIO.csv` (checked against `cloudPhysicsIO.vscsi`; the trace spans
//! 7,200 of these units, i.e. its two hours), although the trace README calls it
//! microseconds. A decimal part is accepted. Records with non-data opcodes are
//! skipped as in the vscsi reader.

use super::fields::{dec, dec_u32, expected, fixed, hex, scaled, split};
use super::text::LineFormat;
use super::vscsi::scsi_op;
use crate::request::{Request, SECTOR};

/// The CloudPhysics CSV line decoder.
pub(crate) struct CloudphysicsCsv;

impl LineFormat for CloudphysicsCsv {
    fn parse(&mut self, no: u64, line: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        if no == 1 && line.starts_with(b"version,") {
            return Ok(());
        }
        let (f, n) = fixed::<5>(split(line, b','));
        if n != 5 {
            return Err(format!(
                "expected 5 comma-separated fields (version,time,op,size,lbn), found {n}"
            ));
        }
        dec(f[0]).ok_or_else(|| expected("a version number", f[0]))?;
        let time_ns = scaled(f[1], 9).ok_or_else(|| expected("a time in seconds", f[1]))?;
        let code = hex(f[2])
            .filter(|&c| c <= 0xff)
            .ok_or_else(|| expected("a SCSI opcode in hex like 28 or 2a", f[2]))?;
        let len = dec_u32(f[3]).ok_or_else(|| expected("a size in bytes below 4 GiB", f[3]))?;
        let offset = dec(f[4])
            .and_then(|l| l.checked_mul(SECTOR))
            .ok_or_else(|| expected("an lbn in 512 B sectors", f[4]))?;
        if let Some(op) = scsi_op(code as u8) {
            out.push(Request {
                time_ns,
                offset,
                len,
                dev: 0,
                op,
            });
        }
        Ok(())
    }
}
