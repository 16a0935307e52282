//! Valgrind lackey memory traces (`valgrind --tool=lackey --trace-mem=yes`).
//!
//! Lines `I  addr,size` (instruction fetch), ` L addr,size` (load), ` S addr,size`
//! (store) and ` M addr,size` (modify); addresses are hex, sizes decimal bytes.
//! A load is a read, a store a write, a modify a read followed by a write of the same
//! bytes (two requests). Instruction fetches are reads emitted only with
//! `ReadOptions::instructions` (they dominate such traces and are usually served by
//! the CPU's caches). Lines starting with `==` (Valgrind's `==pid==` banners and
//! summaries) are skipped. There are no timestamps (`NO_TIME`); every access is on
//! device 0, and page expansion turns `addr / page_size` into the page, so an access
//! that straddles a page boundary touches both pages.

use super::fields::{dec_u32, expected, hex, trim};
use super::text::LineFormat;
use crate::request::{Op, Request, NO_TIME};

/// The lackey line decoder.
pub(crate) struct Lackey {
    /// Emit `I` lines as reads.
    pub(crate) instructions: bool,
}

impl LineFormat for Lackey {
    fn parse(&mut self, _no: u64, line: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        if line.starts_with(b"==") {
            return Ok(());
        }
        let t = trim(line);
        let (kind, rest) = match t {
            [k @ (b'I' | b'L' | b'S' | b'M'), b' ' | b'\t', rest @ ..] => (*k, trim(rest)),
            _ => return Err(expected("a lackey record like ` L 0400d7d4,8`", line)),
        };
        let comma = rest
            .iter()
            .position(|&b| b == b',')
            .ok_or_else(|| expected("`address,size`", rest))?;
        let offset =
            hex(&rest[..comma]).ok_or_else(|| expected("a hex address", &rest[..comma]))?;
        let len = dec_u32(&rest[comma + 1..])
            .ok_or_else(|| expected("a size in bytes", &rest[comma + 1..]))?;
        let req = |op| Request {
            time_ns: NO_TIME,
            offset,
            len,
            dev: 0,
            op,
        };
        match kind {
            b'I' if self.instructions => out.push(req(Op::Read)),
            b'I' => {}
            b'L' => out.push(req(Op::Read)),
            b'S' => out.push(req(Op::Write)),
            _ => {
                out.push(req(Op::Read));
                out.push(req(Op::Write));
            }
        }
        Ok(())
    }
}
