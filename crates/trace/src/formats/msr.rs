//! MSR Cambridge block traces (SNIA IOTTA set 388; Narayanan et al., FAST'08).
//!
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, and an optional
//! header line naming those columns (skipped).
//! Timestamp is a Windows FILETIME (100 ns ticks since 1601-01-01) and becomes
//! `ticks * 100` ns (absolute; wafer never rebases times). `Type` is `Read` or
//! `Write` (any case); Offset and Size are bytes. DiskNumber becomes `dev`; the host
//! name and the response time are not kept (one file is one host volume).

use super::block::dev_field;
use super::fields::{dec, dec_u32, expected, fixed, is_header, split};
use super::text::LineFormat;
use crate::request::{Op, Request};

/// The column names of the header line some copies carry.
const COLUMNS: [&str; 7] = [
    "Timestamp",
    "Hostname",
    "DiskNumber",
    "Type",
    "Offset",
    "Size",
    "ResponseTime",
];

/// The MSR line decoder.
pub(crate) struct Msr;

impl LineFormat for Msr {
    fn parse(&mut self, no: u64, line: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        let (f, n) = fixed::<7>(split(line, b','));
        if n == 7 && is_header(no, &f, &COLUMNS) {
            return Ok(());
        }
        if n != 7 {
            return Err(format!(
                "expected 7 comma-separated fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found {n}"
            ));
        }
        let ticks = dec(f[0]).ok_or_else(|| expected("a FILETIME timestamp", f[0]))?;
        let time_ns = ticks
            .checked_mul(100)
            .ok_or_else(|| expected("a FILETIME timestamp before year 2185", f[0]))?;
        let dev = dev_field(f[2], "a disk number")?;
        let op = if f[3].eq_ignore_ascii_case(b"read") {
            Op::Read
        } else if f[3].eq_ignore_ascii_case(b"write") {
            Op::Write
        } else {
            return Err(expected("Read or Write", f[3]));
        };
        let offset = dec(f[4]).ok_or_else(|| expected("a byte offset", f[4]))?;
        let len = dec_u32(f[5]).ok_or_else(|| expected("a size in bytes below 4 GiB", f[5]))?;
        dec(f[6]).ok_or_else(|| expected("a response time", f[6]))?;
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
