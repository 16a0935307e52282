//! `blkparse` default text output (blktrace's `-f` default format).
//!
//! `maj,min cpu seq time_s pid action RWBS sector + nsectors [process]`. Only `D`
//! (issued to the driver) events become requests: `Q`, `G`, `I`, `C`, ... describe
//! the same I/O at other stages and are checked only for their common prefix. The
//! RWBS field gives the op ([`super::block::rwbs`]: `D` discard is a trim; `N` and
//! flush-only records, and any record of 0 sectors, move no data and are skipped).
//! Sector and nsectors are 512 B units; the time is seconds with nanosecond
//! decimals; `maj,min` becomes `dev` as in [`super::block`].
//!
//! The per-CPU / total summary block that `blkparse` prints at the end (a line
//! starting `CPU<n> (` or `Total (`) ends the event list: everything after it is
//! ignored.
//!
//! Timestamps are kept as printed, even when one is implausible: the sample
//! `blkparseout_ext4.txt` has a final D event at about 1.27e9 s among events of a
//! few hundred seconds (a corrupt record); it is still one request with that time.
//! Times are also not sorted (events of several CPUs interleave). Consumers that
//! need monotone time must check.

use super::block::{dev_of, rwbs};
use super::fields::{dec, dec_u32, expected, fixed, scaled, words};
use super::text::LineFormat;
use crate::request::{Request, SECTOR};

/// The blkparse line decoder.
#[derive(Default)]
pub(crate) struct Blkparse {
    /// Inside the trailing summary block.
    summary: bool,
}

fn is_summary(line: &[u8]) -> bool {
    let t = super::fields::trim(line);
    if t.starts_with(b"Total (") {
        return true;
    }
    match t.strip_prefix(b"CPU") {
        Some(rest) => {
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            digits > 0 && rest[digits..].starts_with(b" (")
        }
        None => false,
    }
}

impl LineFormat for Blkparse {
    fn parse(&mut self, _no: u64, line: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        if self.summary {
            return Ok(());
        }
        if is_summary(line) {
            self.summary = true;
            return Ok(());
        }
        let (f, n) = fixed::<11>(words(line));
        if n < 6 {
            return Err(format!(
                "expected a blkparse event `maj,min cpu seq time pid action ...`, found {n} fields"
            ));
        }
        let dev = {
            let mut mm = f[0].splitn(2, |&b| b == b',');
            let (maj, min) = (mm.next().and_then(dec), mm.next().and_then(dec));
            match (maj, min) {
                (Some(a), Some(b)) => dev_of(a, b)?,
                _ => return Err(expected("a device `major,minor`", f[0])),
            }
        };
        dec(f[1]).ok_or_else(|| expected("a CPU number", f[1]))?;
        dec(f[2]).ok_or_else(|| expected("a sequence number", f[2]))?;
        let time_ns = scaled(f[3], 9).ok_or_else(|| expected("a time in seconds", f[3]))?;
        dec(f[4]).ok_or_else(|| expected("a process id", f[4]))?;
        if f[5] != b"D" {
            return Ok(());
        }
        let Some(op) = rwbs(f[6])? else {
            return Ok(());
        };
        if n < 10 {
            return Err(format!(
                "expected `sector + nsectors` after the RWBS field {}, found {} fields in all",
                super::fields::show(f[6]),
                n
            ));
        }
        if f[8] != b"+" {
            return Err(expected("`+` between sector and sector count", f[8]));
        }
        let sector = dec(f[7]).ok_or_else(|| expected("a sector number", f[7]))?;
        let nsec = dec_u32(f[9]).ok_or_else(|| expected("a sector count", f[9]))?;
        if nsec == 0 {
            return Ok(());
        }
        let offset = sector
            .checked_mul(SECTOR)
            .ok_or_else(|| expected("a sector number below 2^55", f[7]))?;
        let len = u32::try_from(u64::from(nsec) * SECTOR)
            .map_err(|_| expected("a sector count below 2^23", f[9]))?;
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
