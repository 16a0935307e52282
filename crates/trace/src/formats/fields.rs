//! Byte-level field splitting and number parsing shared by the text readers.
//!
//! Everything works on `&[u8]` slices of one line, without allocating: fields are
//! sub-slices, numbers are parsed by hand. Integer parsing is strict (ASCII digits
//! only, no sign, no surrounding blanks, overflow is an error); decimal numbers are
//! converted to integer units exactly (e.g. `0.551706` s to 551,706,000 ns) rather
//! than through `f64`, rounding half up at the first dropped digit, so that
//! nanosecond timestamps survive unchanged. Exponent notation (`1.5e-3`) falls back
//! to `f64`.

use crate::request::NO_TIME;

/// Fields separated by exactly one delimiter byte (empty fields are kept).
pub(crate) struct Split<'a> {
    rest: Option<&'a [u8]>,
    delim: u8,
}

/// Split `line` at every `delim`.
pub(crate) fn split(line: &[u8], delim: u8) -> Split<'_> {
    Split {
        rest: Some(line),
        delim,
    }
}

impl<'a> Iterator for Split<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let r = self.rest?;
        match r.iter().position(|&b| b == self.delim) {
            Some(i) => {
                self.rest = Some(&r[i + 1..]);
                Some(&r[..i])
            }
            None => {
                self.rest = None;
                Some(r)
            }
        }
    }
}

/// Fields separated by runs of bytes for which `sep` holds (runs at either end are
/// ignored, so no field is empty).
pub(crate) struct Tokens<'a> {
    rest: &'a [u8],
    sep: fn(u8) -> bool,
}

/// Split `line` at runs of spaces and tabs.
pub(crate) fn words(line: &[u8]) -> Tokens<'_> {
    Tokens {
        rest: line,
        sep: is_blank,
    }
}

/// Split `line` at runs of spaces, tabs and commas.
pub(crate) fn tokens_blank_or_comma(line: &[u8]) -> Tokens<'_> {
    Tokens {
        rest: line,
        sep: |b| is_blank(b) || b == b',',
    }
}

/// Space or tab (the only blanks a line can hold once its terminator is removed, apart
/// from a stray `\r`, which counts too).
#[inline]
pub(crate) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r'
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|&b| !(self.sep)(b))?;
        let r = &self.rest[start..];
        let end = r.iter().position(|&b| (self.sep)(b)).unwrap_or(r.len());
        self.rest = &r[end..];
        Some(&r[..end])
    }
}

/// Collect up to `N` fields into an array; returns the array (missing fields empty)
/// and the total number of fields the iterator yielded (which may exceed `N`).
#[inline]
pub(crate) fn fixed<'a, const N: usize>(
    it: impl Iterator<Item = &'a [u8]>,
) -> ([&'a [u8]; N], usize) {
    let mut out: [&[u8]; N] = [&[]; N];
    let mut n = 0;
    for f in it {
        if n < N {
            out[n] = f;
        }
        n += 1;
    }
    (out, n)
}

/// The last `N` `delim`-separated fields of `line` (in order) and everything before
/// them; `None` if the line has fewer than `N` fields. Used where a leading free-text
/// field (a process name) may itself contain the delimiter.
pub(crate) fn last_fields<const N: usize>(line: &[u8], delim: u8) -> Option<(&[u8], [&[u8]; N])> {
    let mut out: [&[u8]; N] = [&[]; N];
    let mut end = line.len();
    for i in (0..N).rev() {
        let head = &line[..end];
        if i == 0 {
            // The first of the N fields ends at `end` and starts after the previous
            // delimiter, if any.
            match head.iter().rposition(|&b| b == delim) {
                Some(p) => {
                    out[0] = &head[p + 1..];
                    return Some((&line[..p], out));
                }
                None => {
                    out[0] = head;
                    return Some((&[], out));
                }
            }
        }
        let p = head.iter().rposition(|&b| b == delim)?;
        out[i] = &head[p + 1..];
        end = p;
    }
    Some((&line[..end], out))
}

/// Strip spaces, tabs and `\r` at both ends.
pub(crate) fn trim(mut b: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = b {
        if is_blank(*first) {
            b = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = b {
        if is_blank(*last) {
            b = rest;
        } else {
            break;
        }
    }
    b
}

/// A non-empty run of ASCII decimal digits as `u64`; `None` on anything else or on
/// overflow.
#[inline]
pub(crate) fn dec(b: &[u8]) -> Option<u64> {
    if b.is_empty() {
        return None;
    }
    if b.len() <= 19 {
        // 19 digits cannot overflow u64: no checks in the common case.
        let mut v: u64 = 0;
        for &c in b {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + u64::from(d);
        }
        return Some(v);
    }
    let mut v: u64 = 0;
    for &c in b {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// A decimal `u32`.
#[inline]
pub(crate) fn dec_u32(b: &[u8]) -> Option<u32> {
    dec(b).and_then(|v| u32::try_from(v).ok())
}

/// A non-empty run of hex digits (optionally prefixed `0x`/`0X`) as `u64`.
pub(crate) fn hex(b: &[u8]) -> Option<u64> {
    let b = b
        .strip_prefix(b"0x")
        .or_else(|| b.strip_prefix(b"0X"))
        .unwrap_or(b);
    if b.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &c in b {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = v.checked_mul(16)?.checked_add(u64::from(d))?;
    }
    Some(v)
}

/// A time in nanoseconds: a decimal integer below [`NO_TIME`] (`u64::MAX` stands for
/// "no timestamp", so a record must not be able to spell it).
pub(crate) fn time_ns(b: &[u8]) -> Option<u64> {
    dec(b).filter(|&t| t != NO_TIME)
}

/// A non-negative time (`12`, `12.5`, `.5`, `1.5e-3`) times `10^scale`, as an
/// integer below [`NO_TIME`], rounded half up. `scaled(b"0.551706", 9)` is
/// 551,706,000: seconds to nanoseconds without going through floating point.
pub(crate) fn scaled(b: &[u8], scale: u32) -> Option<u64> {
    scaled_any(b, scale).filter(|&t| t != NO_TIME)
}

fn scaled_any(b: &[u8], scale: u32) -> Option<u64> {
    if b.iter().any(|&c| c == b'e' || c == b'E') {
        return scaled_float(b, scale);
    }
    let (int, frac) = match b.iter().position(|&c| c == b'.') {
        Some(p) => (&b[..p], &b[p + 1..]),
        None => (b, &b[b.len()..]),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let int = if int.is_empty() { 0 } else { dec(int)? };
    let mut v = int.checked_mul(10u64.checked_pow(scale)?)?;
    let mut place = scale;
    let mut round_up = false;
    for (i, &c) in frac.iter().enumerate() {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        if place > 0 {
            place -= 1;
            v = v.checked_add(u64::from(d) * 10u64.pow(place))?;
        } else if i == scale as usize {
            round_up = d >= 5;
        }
    }
    if round_up {
        v = v.checked_add(1)?;
    }
    Some(v)
}

fn scaled_float(b: &[u8], scale: u32) -> Option<u64> {
    let s = std::str::from_utf8(b).ok()?;
    let v: f64 = s.parse().ok()?;
    // A negative number is refused even when it rounds to 0 (`-1e-20`).
    if v.is_sign_negative() {
        return None;
    }
    let x = (v * 10f64.powi(i32::try_from(scale).ok()?)).round();
    (x.is_finite() && x >= 0.0 && x < u64::MAX as f64).then_some(x as u64)
}

/// Render a field for an error message: quoted, shortened, or `nothing`.
pub(crate) fn show(b: &[u8]) -> String {
    if b.is_empty() {
        return "nothing".to_string();
    }
    const MAX: usize = 40;
    let s = String::from_utf8_lossy(&b[..b.len().min(MAX)]);
    let s: String = s
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if b.len() > MAX {
        format!("`{s}...`")
    } else {
        format!("`{s}`")
    }
}

/// `expected {what}, found {field}`: the shape of every parse error message.
pub(crate) fn expected(what: &str, found: &[u8]) -> String {
    format!("expected {what}, found {}", show(found))
}

/// Whether line `no` with fields `fields` is the format's header line: the first
/// line, naming the format's `columns` (case and surrounding blanks ignored), as
/// published copies and spreadsheet exports have on top. Only the format's own
/// column names count, so that no record, and no other format's header, is taken
/// for one (detection needs positive evidence).
pub(crate) fn is_header(no: u64, fields: &[&[u8]], columns: &[&str]) -> bool {
    no == 1
        && fields.len() >= columns.len()
        && fields
            .iter()
            .zip(columns)
            .all(|(f, c)| f.trim_ascii().eq_ignore_ascii_case(c.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_strict() {
        assert_eq!(dec(b"0"), Some(0));
        assert_eq!(dec(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(dec(b"18446744073709551616"), None);
        assert_eq!(dec(b""), None);
        assert_eq!(dec(b" 1"), None);
        assert_eq!(dec(b"-1"), None);
        assert_eq!(hex(b"2a"), Some(0x2a));
        assert_eq!(hex(b"0x7FF000A08"), Some(0x7ff000a08));
        assert_eq!(hex(b"0x"), None);
    }

    #[test]
    fn decimals_scale_exactly() {
        assert_eq!(scaled(b"0.551706", 9), Some(551_706_000));
        assert_eq!(
            scaled(b"1266874889.708668759", 9),
            Some(1_266_874_889_708_668_759)
        );
        // Android timestamps carry float noise beyond the nanosecond: round it away.
        assert_eq!(scaled(b"159273.83748699998", 9), Some(159_273_837_487_000));
        assert_eq!(scaled(b"12", 0), Some(12));
        assert_eq!(scaled(b"12.7", 0), Some(13));
        assert_eq!(scaled(b".5", 1), Some(5));
        assert_eq!(scaled(b"1.5e-3", 9), Some(1_500_000));
        assert_eq!(scaled(b".", 9), None);
        assert_eq!(scaled(b"1.2.3", 9), None);
        assert_eq!(scaled(b"-1", 9), None);
        assert_eq!(scaled(b"-1e-20", 9), None);
        assert_eq!(scaled(b"-0.0e0", 9), None);
        assert_eq!(scaled(b"1e300", 9), None);
        assert_eq!(scaled(b"NaN", 9), None);
        // u64::MAX ns means "no timestamp": no record may spell it.
        assert_eq!(scaled(b"18446744073709551615", 0), None);
        assert_eq!(scaled(b"18446744073.709551615", 9), None);
        assert_eq!(time_ns(b"18446744073709551615"), None);
        assert_eq!(time_ns(b"18446744073709551614"), Some(u64::MAX - 1));
    }

    #[test]
    fn splitting() {
        let f: Vec<_> = split(b"a,,b", b',').collect();
        assert_eq!(f, vec![&b"a"[..], b"", b"b"]);
        let w: Vec<_> = words(b"  8,16   3 D  ").collect();
        assert_eq!(w, vec![&b"8,16"[..], b"3", b"D"]);
        let t: Vec<_> = tokens_blank_or_comma(b"1, 2 ,3").collect();
        assert_eq!(t, vec![&b"1"[..], b"2", b"3"]);
        let (head, last) = last_fields::<2>(b"a,b,c,d", b',').unwrap();
        assert_eq!((head, last), (&b"a,b"[..], [&b"c"[..], b"d"]));
        let (head, last) = last_fields::<2>(b"c,d", b',').unwrap();
        assert_eq!((head, last), (&b""[..], [&b"c"[..], b"d"]));
        assert!(last_fields::<3>(b"c,d", b',').is_none());
        let (a, n) = fixed::<2>(split(b"x,y,z", b','));
        assert_eq!((a, n), ([&b"x"[..], b"y"], 3));
        assert_eq!(trim(b" \tx y\r"), b"x y");
    }
}
