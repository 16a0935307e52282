//! DiskSim ASCII traces, as MQSim ships them.
//!
//! `arrival_time device start_sector size_sectors flags`, blank-separated. MQSim's
//! files give the arrival time in ns (DiskSim's own traces use ms; force nothing,
//! convert with the generic reader if needed); a fractional part is rounded to the
//! nearest ns. Bit 0 of `flags` set means read, clear means write (DiskSim's
//! convention, which MQSim follows: 1 = read, 0 = write). The device number is kept
//! in `dev`, so the 16 devices of `tpcc-small.trace` stay separate address spaces.

use super::block::dev_field;
use super::fields::{dec, dec_u32, expected, fixed, scaled, words};
use super::text::LineFormat;
use crate::request::{Op, Request, SECTOR};

/// The DiskSim line decoder.
pub(crate) struct Disksim;

impl LineFormat for Disksim {
    fn parse(&mut self, _no: u64, line: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        let (f, n) = fixed::<5>(words(line));
        if n != 5 {
            return Err(format!(
                "expected 5 fields `arrival_ns device sector size_sectors flags`, found {n}"
            ));
        }
        let time_ns = scaled(f[0], 0).ok_or_else(|| expected("an arrival time in ns", f[0]))?;
        let dev = dev_field(f[1], "a device number")?;
        let offset = dec(f[2])
            .and_then(|s| s.checked_mul(SECTOR))
            .ok_or_else(|| expected("a start sector", f[2]))?;
        let len = dec_u32(f[3])
            .and_then(|s| u32::try_from(u64::from(s) * SECTOR).ok())
            .ok_or_else(|| expected("a size in sectors below 2^23", f[3]))?;
        let flags = dec(f[4]).ok_or_else(|| expected("flags (1 = read, 0 = write)", f[4]))?;
        let op = if flags & 1 == 1 { Op::Read } else { Op::Write };
        out.push(Request {
            time_ns,
            offset,
            len,
            dev,
            op,
        });
        Ok(())
    }
}
