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
        if header(&mut self.header, line, CSV_HEADER)? {
            return Ok(());
        }
        let f = columns::<5>(line, CSV_HEADER)?;
        let time_ns = optional_time(f[0])?;
        let op = op_letter(f[1])?;
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

/// The shared conventions of wafer's own CSV files (this export and the after-cache
/// CSV): an exact header first, a fixed number of comma-separated columns, a time in ns
/// or nothing, an op letter.
///
/// Whether `line` is the header (`seen` tells whether it was met already); a first line
/// that is not `want` is an error.
pub(super) fn header(seen: &mut bool, line: &[u8], want: &str) -> Result<bool, String> {
    if *seen {
        return Ok(false);
    }
    if line != want.as_bytes() {
        return Err(expected(&format!("the header `{want}`"), line));
    }
    *seen = true;
    Ok(true)
}

/// The `N` comma-separated fields of a line of a file with header `header`.
pub(super) fn columns<'a, const N: usize>(
    line: &'a [u8],
    header: &str,
) -> Result<[&'a [u8]; N], String> {
    match fixed::<N>(split(line, b',')) {
        (f, n) if n == N => Ok(f),
        (_, n) => Err(format!(
            "expected {N} comma-separated fields ({header}), found {n}"
        )),
    }
}

/// A time in ns, or [`NO_TIME`] for an empty field.
pub(super) fn optional_time(b: &[u8]) -> Result<u64, String> {
    if b.is_empty() {
        Ok(NO_TIME)
    } else {
        time_ns(b).ok_or_else(|| expected("a time in ns or nothing", b))
    }
}

/// `R`, `W` or `T`.
pub(super) fn op_letter(b: &[u8]) -> Result<Op, String> {
    match b {
        b"R" => Ok(Op::Read),
        b"W" => Ok(Op::Write),
        b"T" => Ok(Op::Trim),
        _ => Err(expected("R, W or T", b)),
    }
}
