//! Parsing of human sizes (`16MiB`, `4k`, `512`), cache-size specs (`16MiB`, `5%`) and
//! durations (`25us`, `2ms`): every duration wafer reads, on the command line or in a
//! file, is a number with a unit.

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Parse a byte size: a number with an optional binary suffix (`K`, `KiB`, `M`, `MiB`,
/// `G`, `GiB`, `T`, `TiB`; case-insensitive; `KB`/`MB`/`GB` are also powers of 1024, as
/// in the papers) or `B`.
pub fn parse_size(s: &str) -> Result<u64> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    let mult: u64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        other => {
            return Err(Error::Invalid(format!(
                "size `{s}`: unknown unit `{other}` (expected B, KiB, MiB, GiB or TiB)"
            )))
        }
    };
    let v: f64 = num
        .parse()
        .map_err(|_| Error::Invalid(format!("size `{s}`: expected a number like 16MiB")))?;
    if !v.is_finite() || v < 0.0 {
        return Err(Error::Invalid(format!(
            "size `{s}`: must be a non-negative number"
        )));
    }
    let bytes = v * mult as f64;
    if bytes > u64::MAX as f64 {
        return Err(Error::Invalid(format!("size `{s}`: too large")));
    }
    Ok(bytes.round() as u64)
}

/// Format a byte count with the largest binary unit that keeps it readable.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else if (v - v.round()).abs() < 1e-9 {
        format!("{} {}", v.round() as u64, UNITS[u])
    } else {
        format!("{v:.2} {}", UNITS[u])
    }
}

/// A cache size as the user gave it: absolute bytes, a number of pages/objects, or a
/// fraction of the trace's footprint (distinct pages).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheSize {
    /// Bytes; divided by the page size.
    Bytes(u64),
    /// A count of pages (or objects in record mode).
    Pages(u64),
    /// A fraction (0, 1] of the footprint.
    Fraction(f64),
}

impl CacheSize {
    /// Parse `16MiB` (bytes), `5%` (fraction of footprint) or `1000p` / `1000` with
    /// `pages` suffix (`1000pages`). Zero is refused, and so is a bare fraction such
    /// as `0.01`: libCacheSim reads it as a share of the working set, wafer would read
    /// it as bytes, so it asks for `1%` or a size with a unit instead.
    pub fn parse(s: &str) -> Result<CacheSize> {
        let t = s.trim();
        if let Some(p) = t.strip_suffix('%') {
            let v: f64 = p.trim().parse().map_err(|_| {
                Error::Invalid(format!("cache size `{s}`: expected a percentage like 5%"))
            })?;
            if !(v > 0.0 && v <= 100.0) {
                return Err(Error::Invalid(format!(
                    "cache size `{s}`: percentage must be in (0, 100]"
                )));
            }
            return Ok(CacheSize::Fraction(v / 100.0));
        }
        let lower = t.to_ascii_lowercase();
        for suf in ["pages", "page", "p", "objects", "obj"] {
            if let Some(n) = lower.strip_suffix(suf) {
                let v: u64 = n.trim().parse().map_err(|_| {
                    Error::Invalid(format!(
                        "cache size `{s}`: expected a page count like 1000p"
                    ))
                })?;
                if v == 0 {
                    return Err(Error::Invalid(format!(
                        "cache size `{s}`: expected at least one page"
                    )));
                }
                return Ok(CacheSize::Pages(v));
            }
        }
        if let Ok(v) = t.parse::<f64>() {
            if v < 1.0 && t.contains('.') {
                return Err(Error::Invalid(format!(
                    "cache size `{s}`: a bare fraction; write {}% for a share of the \
                     footprint, or a size with a unit like 16MiB",
                    v * 100.0
                )));
            }
        }
        match parse_size(t)? {
            0 => Err(Error::Invalid(format!(
                "cache size `{s}`: expected at least one page"
            ))),
            b => Ok(CacheSize::Bytes(b)),
        }
    }

    /// Capacity in pages given the page size and the trace footprint in pages. Less
    /// than one page, a byte size that is not a whole number of pages, or more pages
    /// than a cache can index (2^32 - 1), is an error naming the size: never rounded
    /// or clamped.
    pub fn pages(&self, page_size: u64, footprint_pages: u64) -> Result<u32> {
        if let CacheSize::Bytes(b) = *self {
            let below = b / page_size * page_size;
            if below > 0 && below != b {
                let n = below / page_size;
                let show = |bytes: u64, pages: u64| {
                    let s = if pages == 1 { "" } else { "s" };
                    format!("{} ({pages} page{s})", format_size(bytes).replace(' ', ""))
                };
                return Err(Error::Invalid(format!(
                    "cache size {self} is not a whole number of {page_size} B pages; the \
                     nearest sizes are {} and {}",
                    show(below, n),
                    show(below + page_size, n + 1)
                )));
            }
        }
        let p = match *self {
            CacheSize::Bytes(b) => b / page_size,
            CacheSize::Pages(p) => p,
            CacheSize::Fraction(f) => (f * footprint_pages as f64).round() as u64,
        };
        let of = match *self {
            CacheSize::Fraction(_) => format!(" of a footprint of {footprint_pages} pages"),
            _ => String::new(),
        };
        match u32::try_from(p) {
            Ok(0) => Err(Error::Invalid(format!(
                "cache size {self}{of} is less than one page of {page_size} B"
            ))),
            Ok(n) => Ok(n),
            Err(_) => Err(Error::Invalid(format!(
                "cache size {self}{of} is {p} pages, more than a cache indexes (2^32 - 1)"
            ))),
        }
    }

    /// Whether resolving this size needs the trace footprint.
    pub fn needs_footprint(&self) -> bool {
        matches!(self, CacheSize::Fraction(_))
    }
}

impl std::fmt::Display for CacheSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            CacheSize::Bytes(b) => write!(f, "{}", format_size(b).replace(' ', "")),
            CacheSize::Pages(p) => write!(f, "{p}p"),
            CacheSize::Fraction(x) => write!(f, "{}%", x * 100.0),
        }
    }
}

/// The erase-block size a run assumes unless told otherwise (the 4 MiB block of the
/// microSD cards in paper 000): the one spelling of this default, shared by the run
/// options (`wafer_lab::options`), `wafer trace capture` and the block-utilization
/// generator.
pub const DEFAULT_BLOCK_SIZE: &str = "4MiB";

/// Smallest page size [`parse_page_size`] accepts: one 512 B sector.
pub const MIN_PAGE_SIZE: u32 = 512;

/// Largest page size [`parse_page_size`] accepts (1 GiB).
pub const MAX_PAGE_SIZE: u32 = 1 << 30;

/// Parse a page size (`4KiB`, `512`): a power of two from [`MIN_PAGE_SIZE`] to
/// [`MAX_PAGE_SIZE`]. Every command taking a page size uses this one check, so a
/// size like 3000 B, which no device has and which breaks block arithmetic, is
/// refused everywhere alike.
pub fn parse_page_size(s: &str) -> Result<u32> {
    let bytes = parse_size(s)?;
    match u32::try_from(bytes) {
        Ok(p) if is_page_size(p) => Ok(p),
        _ => Err(Error::Invalid(format!(
            "page size `{s}` must be a power of two from 512 B to 1 GiB (e.g. 4KiB)"
        ))),
    }
}

/// Whether `bytes` is a page size [`parse_page_size`] accepts.
pub fn is_page_size(bytes: u32) -> bool {
    bytes.is_power_of_two() && (MIN_PAGE_SIZE..=MAX_PAGE_SIZE).contains(&bytes)
}

/// Parse a duration: a non-negative number with a unit, `ns`, `us` (or `µs`), `ms`
/// or `s` (`25us`, `0.5ms`, `3s`), into nanoseconds. A bare number is refused: its
/// unit would be a guess.
pub fn parse_duration(s: &str) -> std::result::Result<f64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult = match unit.trim() {
        "ns" => 1.0,
        "us" | "\u{b5}s" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "" => return Err(format!("duration `{t}` needs a unit (ns, us, ms or s)")),
        u => {
            return Err(format!(
                "unknown duration unit `{u}` in `{t}` (ns, us, ms or s)"
            ))
        }
    };
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v * mult),
        _ => Err(format!("`{t}` is not a non-negative duration")),
    }
}

/// A duration in nanoseconds with the largest unit that keeps it short (`25us`,
/// `1.5ms`); [`parse_duration`] reads it back.
pub fn format_duration(ns: f64) -> String {
    let trim = |v: f64| {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    for (unit, scale) in [("s", 1e9), ("ms", 1e6), ("us", 1e3)] {
        if ns >= scale {
            return format!("{}{unit}", trim(ns / scale));
        }
    }
    format!("{}ns", trim(ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_carry_a_unit_and_read_back() {
        assert_eq!(parse_duration("25us").unwrap(), 25_000.0);
        assert_eq!(parse_duration(" 1.5ms ").unwrap(), 1_500_000.0);
        assert_eq!(parse_duration("3s").unwrap(), 3e9);
        assert_eq!(parse_duration("500ns").unwrap(), 500.0);
        assert_eq!(parse_duration("2\u{b5}s").unwrap(), 2_000.0);
        assert!(parse_duration("25").unwrap_err().contains("needs a unit"));
        assert!(parse_duration("25h")
            .unwrap_err()
            .contains("unknown duration unit"));
        assert!(parse_duration("-1us").is_err());
        assert!(parse_duration("nanus").is_err());
        for ns in [0.0, 500.0, 25_000.0, 1_500_000.0, 3e9] {
            assert_eq!(parse_duration(&format_duration(ns)).unwrap(), ns);
        }
        assert_eq!(format_duration(25_000.0), "25us");
        assert_eq!(format_duration(1_500_000.0), "1.5ms");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("16MiB").unwrap(), 16 << 20);
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("512").unwrap(), 512);
        assert_eq!(parse_size("1.5GB").unwrap(), 3 << 29);
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("MiB").is_err());
    }

    #[test]
    fn cache_sizes() {
        let pages = |s: &str, footprint| CacheSize::parse(s).unwrap().pages(4096, footprint);
        assert_eq!(pages("16MiB", 0).unwrap(), 4096);
        assert_eq!(pages("5%", 1000).unwrap(), 50);
        assert_eq!(pages("500p", 0).unwrap(), 500);
        // Nothing below one page, nothing beyond what a cache indexes: no clamping.
        for bad in ["0", "0p", "0B", "0.01", "0.5"] {
            assert!(CacheSize::parse(bad).is_err(), "{bad}");
        }
        assert!(CacheSize::parse("0.01")
            .unwrap_err()
            .to_string()
            .contains("1%"));
        assert!(pages("100", 0)
            .unwrap_err()
            .to_string()
            .contains("less than one page"));
        // 6KiB of 4 KiB pages ran as one page; a size that is not whole pages says
        // the page size and the two nearest sizes that are.
        assert_eq!(
            pages("6KiB", 0).unwrap_err().to_string(),
            "cache size 6KiB is not a whole number of 4096 B pages; the nearest sizes are \
             4KiB (1 page) and 8KiB (2 pages)"
        );
        assert!(pages("1.5MiB", 0).is_ok());
        assert_eq!(CacheSize::parse("6KiB").unwrap().pages(512, 0).unwrap(), 12);
        assert!(pages("1%", 10)
            .unwrap_err()
            .to_string()
            .contains("footprint of 10 pages"));
        assert!(pages("32TiB", 0)
            .unwrap_err()
            .to_string()
            .contains("2^32 - 1"));
        assert!(CacheSize::parse("0%").is_err());
        assert_eq!(CacheSize::parse("16MiB").unwrap().to_string(), "16MiB");
    }

    #[test]
    fn page_sizes() {
        assert_eq!(parse_page_size("4KiB").unwrap(), 4096);
        assert_eq!(parse_page_size("512").unwrap(), 512);
        assert_eq!(parse_page_size("1GiB").unwrap(), 1 << 30);
        for bad in ["3000", "256", "0", "2GiB", "16TiB", "4.5KiB"] {
            let e = parse_page_size(bad).unwrap_err().to_string();
            assert!(
                e.contains("power of two") && !e.contains('\n'),
                "{bad}: {e}"
            );
        }
        assert!(parse_page_size("four").is_err());
    }
}
