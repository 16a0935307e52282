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
use super::fields::{dec, dec_u32, expected};
use super::text::LineFormat;
use super::wafer_csv::{columns, header, op_letter, optional_time};
use crate::export::AFTER_CSV_HEADER;
use crate::request::Request;

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
        if header(&mut self.header, line, AFTER_CSV_HEADER)? {
            return Ok(());
        }
        let f = columns::<9>(line, AFTER_CSV_HEADER)?;
        dec(f[0]).ok_or_else(|| expected("an access index", f[0]))?;
        let time_ns = optional_time(f[1])?;
        let op = op_letter(f[2])?;
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
