//! wafer's own CSV export (`wafer trace convert ... out.csv`, [`crate::export`]),
//! read back exactly.
//!
//! Header `time_ns,op,dev,offset,len` (exactly; it is how the format is detected),
//! then `time_ns,op,dev,offset,len` per line: time in ns or empty (no timestamp), op
//! `R`, `W` or `T`, device number, byte offset, byte length.

use super::block::dev_field;
use super::fields::{dec, dec_u32, expected, fixed, split, time_ns};
use super::text::LineFormat;
use crate::export::CSV_HEADER;
use crate::request::{Op, Request, NO_TIME};

/// The wafer CSV line decoder.
#[derive(Default)]
pub(crate) struct WaferCsv {
    /// The header line has been seen (it must come first).
    header: bool,
}

impl LineFormat for WaferCsv {
    fn parse(&mut self, _no: u64, line: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        if !self.header {
            if line != CSV_HEADER.as_bytes() {
                return Err(expected(&format!("the header `{CSV_HEADER}`"), line));
            }
            self.header = true;
            return Ok(());
        }
        let (f, n) = fixed::<5>(split(line, b','));
        if n != 5 {
            return Err(format!(
                "expected 5 comma-separated fields ({CSV_HEADER}), found {n}"
            ));
        }
        let time_ns = if f[0].is_empty() {
            NO_TIME
        } else {
            time_ns(f[0]).ok_or_else(|| expected("a time in ns or nothing", f[0]))?
        };
        let op = match f[1] {
            b"R" => Op::Read,
            b"W" => Op::Write,
            b"T" => Op::Trim,
            _ => return Err(expected("R, W or T", f[1])),
        };
        let dev = dev_field(f[2], "a device number")?;
        let offset = dec(f[3]).ok_or_else(|| expected("a byte offset", f[3]))?;
        let len = dec_u32(f[4]).ok_or_else(|| expected("a length in bytes below 4 GiB", f[4]))?;
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
