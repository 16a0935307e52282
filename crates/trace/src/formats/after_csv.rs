//! The after-cache CSV that `wafer sim --after X.csv` writes, read back as a trace.
//!
//! Header `access,time_ns,op,kind,group,dev,page,offset,len` (exactly; it is how the
//! format is detected), then one storage operation per line: the index of the page
//! access that caused it, that access's time in ns or nothing, op `R`, `W` or `T`,
//! why it happened (`miss`, `write-back`, `pad-read`, `pad-write`, `flush`, `trim`),
//! the eviction group, device, page number, byte offset (= page x length) and byte
//! length (the page size of the run). Each line becomes one request; the access,
//! kind and group columns are checked but not kept (the `.wtr` form of the
//! after-cache trace keeps them, `docs/formats.md`).

use super::block::dev_field;
use super::fields::{dec, dec_u32, expected, fixed, split, time_ns};
use super::text::LineFormat;
use crate::export::AFTER_CSV_HEADER;
use crate::request::{Op, Request, NO_TIME};

/// The kinds of storage operation a line may name.
const KINDS: [&[u8]; 6] = [
    b"miss",
    b"write-back",
    b"pad-read",
    b"pad-write",
    b"flush",
    b"trim",
];

/// The after-cache CSV line decoder.
#[derive(Default)]
pub(crate) struct AfterCsv {
    /// The header line has been seen (it must come first).
    header: bool,
}

impl LineFormat for AfterCsv {
    fn parse(&mut self, _no: u64, line: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        if !self.header {
            if line != AFTER_CSV_HEADER.as_bytes() {
                return Err(expected(&format!("the header `{AFTER_CSV_HEADER}`"), line));
            }
            self.header = true;
            return Ok(());
        }
        let (f, n) = fixed::<9>(split(line, b','));
        if n != 9 {
            return Err(format!(
                "expected 9 comma-separated fields ({AFTER_CSV_HEADER}), found {n}"
            ));
        }
        dec(f[0]).ok_or_else(|| expected("an access index", f[0]))?;
        let time_ns = if f[1].is_empty() {
            NO_TIME
        } else {
            time_ns(f[1]).ok_or_else(|| expected("a time in ns or nothing", f[1]))?
        };
        let op = match f[2] {
            b"R" => Op::Read,
            b"W" => Op::Write,
            b"T" => Op::Trim,
            _ => return Err(expected("R, W or T", f[2])),
        };
        if !KINDS.contains(&f[3]) {
            return Err(expected(
                "a kind: miss, write-back, pad-read, pad-write, flush or trim",
                f[3],
            ));
        }
        dec(f[4]).ok_or_else(|| expected("an eviction group", f[4]))?;
        let dev = dev_field(f[5], "a device number")?;
        let page = dec(f[6]).ok_or_else(|| expected("a page number", f[6]))?;
        let offset = dec(f[7]).ok_or_else(|| expected("a byte offset", f[7]))?;
        let len = dec_u32(f[8]).ok_or_else(|| expected("a length in bytes below 4 GiB", f[8]))?;
        if page.checked_mul(u64::from(len)) != Some(offset) {
            return Err(format!(
                "expected offset = page x length, found page {page}, offset {offset}, length {len}"
            ));
        }
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
