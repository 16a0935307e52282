//! Block-layer conventions several formats share: Linux RWBS strings and device
//! numbers.
//!
//! Device numbers: `Request::dev` is folded into page keys above bit 44, so it must
//! stay below 2^20 ([`DEV_LIMIT`]). A Linux (major, minor) pair is stored as `major << 8 | minor`,
//! the classic 16-bit `dev_t` layout (8,16 = `sdb` becomes 2064), which covers the
//! devices block traces name (majors below 4096, minors below 256); larger numbers
//! are rejected with a parse error rather than folded into a colliding key.

use super::fields::{dec, expected};
use crate::request::{Op, DEV_LIMIT};

/// `major << 8 | minor`, or an error message if it does not fit.
pub(crate) fn dev_of(major: u64, minor: u64) -> Result<u32, String> {
    if major >= 4096 || minor >= 256 {
        return Err(format!(
            "expected a device with major < 4096 and minor < 256, found {major},{minor}"
        ));
    }
    Ok(((major << 8) | minor) as u32)
}

/// A plain device / volume number field (`< 2^20`).
pub(crate) fn dev_field(b: &[u8], what: &str) -> Result<u32, String> {
    match dec(b) {
        Some(v) if v < u64::from(DEV_LIMIT) => Ok(v as u32),
        _ => Err(expected(&format!("{what} (an integer below 2^20)"), b)),
    }
}

/// The op of a Linux RWBS string (`blktrace`'s `fill_rwbs`): an optional leading `F`
/// (pre-flush), then `D` (discard, becomes [`Op::Trim`]), `W`, `R` or `N` (no data),
/// then flag letters (`F` FUA, `A` readahead, `S` sync, `M` meta, ...). `Ok(None)`
/// for records that move no data: `N` and a bare flush (`F`, `FN`).
pub(crate) fn rwbs(b: &[u8]) -> Result<Option<Op>, String> {
    let body = b.strip_prefix(b"F").unwrap_or(b);
    let op = match body.first() {
        None if !b.is_empty() => return Ok(None),
        Some(b'D') => Some(Op::Trim),
        Some(b'W') => Some(Op::Write),
        Some(b'R') => Some(Op::Read),
        Some(b'N') => None,
        _ => return Err(expected("an RWBS field like R, WS, D or N", b)),
    };
    if !body[1..]
        .iter()
        .all(|c| matches!(c, b'F' | b'A' | b'S' | b'M' | b'E' | b'B' | b'P'))
    {
        return Err(expected("an RWBS field like R, WS, D or N", b));
    }
    Ok(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rwbs_strings() {
        assert_eq!(rwbs(b"R"), Ok(Some(Op::Read)));
        assert_eq!(rwbs(b"RA"), Ok(Some(Op::Read)));
        assert_eq!(rwbs(b"WSM"), Ok(Some(Op::Write)));
        assert_eq!(rwbs(b"FWFS"), Ok(Some(Op::Write)));
        assert_eq!(rwbs(b"D"), Ok(Some(Op::Trim)));
        assert_eq!(rwbs(b"DS"), Ok(Some(Op::Trim)));
        assert_eq!(rwbs(b"N"), Ok(None));
        assert_eq!(rwbs(b"FN"), Ok(None));
        assert_eq!(rwbs(b"F"), Ok(None));
        assert!(rwbs(b"X").is_err());
        assert!(rwbs(b"").is_err());
        assert!(rwbs(b"RQ").is_err());
    }

    #[test]
    fn device_numbers() {
        assert_eq!(dev_of(8, 16), Ok(2064));
        assert!(dev_of(8, 300).is_err());
        assert_eq!(dev_field(b"15", "device"), Ok(15));
        assert!(dev_field(b"1048576", "device").is_err());
    }
}
