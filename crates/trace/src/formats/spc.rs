//! UMass Trace Repository / SPC block traces (Financial1-2, WebSearch1-3).
//!
//! `ASU,LBA,Size,Opcode,Timestamp[,...]`, and an optional header line naming those
//! columns (skipped). The ASU (application storage unit) is a separate address space
//! and becomes `dev`; LBA is in 512 B sectors, Size in bytes, Opcode `r`/`R`/`w`/`W`,
//! Timestamp in seconds (decimal, converted exactly to ns). Extra trailing fields are
//! ignored.

use super::block::dev_field;
use super::fields::{dec, dec_u32, expected, fixed, is_header, scaled, split};
use super::text::LineFormat;
use crate::request::{Op, Request, SECTOR};

/// The column names of the header line some copies carry.
const COLUMNS: [&str; 5] = ["ASU", "LBA", "Size", "Opcode", "Timestamp"];

/// The SPC line decoder.
pub(crate) struct Spc;

impl LineFormat for Spc {
    fn parse(&mut self, no: u64, line: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        let (f, n) = fixed::<5>(split(line, b','));
        if n >= 5 && is_header(no, &f, &COLUMNS) {
            return Ok(());
        }
        if n < 5 {
            return Err(format!(
                "expected at least 5 comma-separated fields (ASU,LBA,Size,Opcode,Timestamp), found {n}"
            ));
        }
        let dev = dev_field(f[0], "an ASU number")?;
        let offset = dec(f[1])
            .and_then(|l| l.checked_mul(SECTOR))
            .ok_or_else(|| expected("an LBA in 512 B sectors", f[1]))?;
        let len = dec_u32(f[2]).ok_or_else(|| expected("a size in bytes below 4 GiB", f[2]))?;
        let op = match f[3] {
            b"r" | b"R" => Op::Read,
            b"w" | b"W" => Op::Write,
            other => return Err(expected("opcode r or w", other)),
        };
        let time_ns = scaled(f[4], 9).ok_or_else(|| expected("a timestamp in seconds", f[4]))?;
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
