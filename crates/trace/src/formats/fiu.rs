//! FIU SRCmap / IODedup block traces (SNIA IOTTA sets 390/391; Koller and
//! Rangaswami, FAST'10).
//!
//! `ts_ns pid process lba size R/W major minor md5`, blank-separated. lba and size
//! are 512 B sectors, ts nanoseconds. The process name may itself contain blanks, so
//! the fields are taken from both ends: two at the front, six at the back.
//! `major minor` becomes `dev` ([`super::block`]); the content hash is not kept, but it
//! must be printable: a control byte there is damage, not a hash.

use super::block::dev_of;
use super::fields::{dec, dec_u32, expected, fixed, time_ns, words};
use super::text::LineFormat;
use crate::request::{Op, Request, SECTOR};

/// The FIU line decoder.
pub(crate) struct Fiu;

impl LineFormat for Fiu {
    fn parse(&mut self, _no: u64, line: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        let (f, n) = fixed::<32>(words(line));
        if !(9..=32).contains(&n) {
            return Err(format!(
                "expected 9 fields `ts pid process lba size R/W major minor md5`, found {n}"
            ));
        }
        let (ts, pid) = (f[0], f[1]);
        let [lba, size, rw, major, minor, md5] =
            [f[n - 6], f[n - 5], f[n - 4], f[n - 3], f[n - 2], f[n - 1]];
        let time_ns = time_ns(ts).ok_or_else(|| expected("a timestamp in ns", ts))?;
        dec(pid).ok_or_else(|| expected("a process id", pid))?;
        let offset = dec(lba)
            .and_then(|l| l.checked_mul(SECTOR))
            .ok_or_else(|| expected("an LBA in 512 B sectors", lba))?;
        let len = dec_u32(size)
            .and_then(|s| u32::try_from(u64::from(s) * SECTOR).ok())
            .ok_or_else(|| expected("a size in 512 B sectors below 2^23", size))?;
        let op = match rw {
            b"R" | b"r" => Op::Read,
            b"W" | b"w" => Op::Write,
            other => return Err(expected("R or W", other)),
        };
        let maj = dec(major).ok_or_else(|| expected("a major device number", major))?;
        let min = dec(minor).ok_or_else(|| expected("a minor device number", minor))?;
        let dev = dev_of(maj, min)?;
        if !md5.iter().all(u8::is_ascii_graphic) {
            return Err(expected("a content hash of printable characters", md5));
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
