//! The Android block-layer CSV of the Pixel 6a traces (MobileBlockIOTraces;
//! SYSTOR'24, "Space-efficient FTL for mobile storage via tiny neural nets").
//!
//! Header `proces,device,rw_flag,sector,size,timestamp`. The process name may
//! contain commas, so the five numeric fields are taken from the end of the line.
//! `device` is a kernel `dev_t` (major in the bits above 20, minor below; 8388608 is
//! 8,0) and becomes `dev` as in [`super::block`]; `rw_flag` is an RWBS string
//! ([`super::block::rwbs`]); sector and size are 512 B units; timestamp is seconds
//! (seconds since boot, printed as a float: digits beyond the nanosecond are float
//! noise and are rounded away).

use super::block::{dev_of, rwbs};
use super::fields::{dec, dec_u32, expected, last_fields, scaled};
use super::text::LineFormat;
use crate::request::{Request, SECTOR};

/// The Android CSV line decoder.
pub(crate) struct Android;

impl LineFormat for Android {
    fn parse(&mut self, no: u64, line: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        if no == 1 && line.starts_with(b"proces,") {
            return Ok(());
        }
        let Some((_proc, [device, rw, sector, size, ts])) = last_fields::<5>(line, b',') else {
            return Err(
                "expected 6 comma-separated fields (proces,device,rw_flag,sector,size,timestamp)"
                    .to_string(),
            );
        };
        let d = dec(device).ok_or_else(|| expected("a device number (dev_t)", device))?;
        let dev = dev_of(d >> 20, d & 0xf_ffff)?;
        let op = rwbs(rw)?;
        let offset = dec(sector)
            .and_then(|s| s.checked_mul(SECTOR))
            .ok_or_else(|| expected("a sector number", sector))?;
        let len = dec_u32(size)
            .and_then(|s| u32::try_from(u64::from(s) * SECTOR).ok())
            .ok_or_else(|| expected("a size in sectors below 2^23", size))?;
        let time_ns = scaled(ts, 9).ok_or_else(|| expected("a timestamp in seconds", ts))?;
        if let Some(op) = op.filter(|_| len > 0) {
            out.push(Request {
                time_ns,
                offset,
                len,
                dev,
                op,
            });
        }
        Ok(())
    }
}
