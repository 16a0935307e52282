//! The request model and its expansion into page accesses (`docs/cache.md`, "Engine
//! semantics": a request touches pages `offset/ps ..= (offset+len-1)/ps`, each one
//! access of the request's kind, in ascending page order).

use serde::{Deserialize, Serialize};

/// Bytes per sector: the 512 B unit most block traces count in.
pub const SECTOR: u64 = 512;

/// Sentinel for "this request carries no timestamp".
pub const NO_TIME: u64 = u64::MAX;

/// Number of low bits of a page key that hold the page number; the device number sits
/// above them (2^44 pages of 4 KiB = 64 PiB per device).
pub const DEV_SHIFT: u32 = 44;

/// Device numbers a request may carry (exclusive): the 20 bits above [`DEV_SHIFT`].
pub const DEV_LIMIT: u32 = 1 << (64 - DEV_SHIFT);

/// Bytes a request may address (exclusive): 2^53 = 8 PiB. A page key keeps 44 bits of
/// the page number; at the smallest page (512 B, also the record-mode unit) that is 2^53
/// bytes, so below this limit two distinct pages never share a key at any page size.
pub const ADDRESS_LIMIT: u64 = 1 << (DEV_SHIFT + 9);

/// What a request does to storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum Op {
    /// Read the range.
    #[default]
    Read = 0,
    /// Write the range.
    Write = 1,
    /// Discard the range (TRIM / UNMAP / blkparse `D` flag): no data, pages become invalid.
    Trim = 2,
}

impl Op {
    /// Decode the on-disk tag used by wafer's formats.
    pub fn from_u8(v: u8) -> Option<Op> {
        match v {
            0 => Some(Op::Read),
            1 => Some(Op::Write),
            2 => Some(Op::Trim),
            _ => None,
        }
    }

    /// One-letter name (`R`, `W`, `T`).
    pub fn letter(self) -> char {
        match self {
            Op::Read => 'R',
            Op::Write => 'W',
            Op::Trim => 'T',
        }
    }
}

/// One I/O request of a trace, normalised: bytes and nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Request {
    /// Arrival time in nanoseconds from the trace's own origin, or [`NO_TIME`].
    pub time_ns: u64,
    /// First byte addressed.
    pub offset: u64,
    /// Length in bytes (may be 0 for records that carry no data).
    pub len: u32,
    /// Device / volume / ASU number; separate address spaces are keyed apart.
    pub dev: u32,
    /// Read, write or trim.
    pub op: Op,
}

impl Request {
    /// Whether the request has a timestamp.
    pub fn has_time(&self) -> bool {
        self.time_ns != NO_TIME
    }

    /// Inclusive page range `offset/ps ..= (offset+len-1)/ps`; `None` for a zero-length
    /// request, which touches no page. Computed without forming `offset + len`, so it
    /// cannot overflow for any offset (page sizes of 2 B and more).
    #[inline]
    pub fn page_range(&self, page_size: u64) -> Option<(u64, u64)> {
        if self.len == 0 {
            return None;
        }
        let first = self.offset / page_size;
        let last = first + (self.offset % page_size + u64::from(self.len) - 1) / page_size;
        Some((first, last))
    }

    /// One past the last byte, or `None` if that lies beyond 2^64.
    #[inline]
    pub fn end(&self) -> Option<u64> {
        self.offset.checked_add(u64::from(self.len))
    }

    /// Whether wafer can key every page of the request apart from every other page:
    /// it starts below and ends at most at [`ADDRESS_LIMIT`], and its device is below
    /// [`DEV_LIMIT`].
    /// Readers refuse a record that fails this (with the message returned here)
    /// rather than fold it onto another address.
    #[inline]
    pub fn check(&self) -> Result<(), String> {
        // Every length fits below 2^32, so an offset this low cannot end past the limit:
        // one comparison for nearly every request a reader sees.
        if self.dev < DEV_LIMIT && self.offset <= ADDRESS_LIMIT - u64::from(u32::MAX) {
            return Ok(());
        }
        self.refusal()
    }

    /// [`Request::check`] for a request outside the fast path: the reason it cannot be
    /// keyed, if any.
    #[cold]
    fn refusal(&self) -> Result<(), String> {
        if self.dev >= DEV_LIMIT {
            return Err(format!(
                "expected a device number below 2^20, found {}",
                self.dev
            ));
        }
        match self.end() {
            None => Err(format!(
                "expected a request that ends below 2^64 bytes, found offset {} + length {}",
                self.offset, self.len
            )),
            // A record-mode access keys the first sector even of an empty request.
            Some(end) if end > ADDRESS_LIMIT || self.offset >= ADDRESS_LIMIT => Err(format!(
                "expected an address below 2^53 bytes (8 PiB, the largest wafer keys without \
                 aliasing), found offset {} + length {}",
                self.offset, self.len
            )),
            Some(_) => Ok(()),
        }
    }
}

/// Key of a page in the single key space wafer's caches use: the device number above
/// [`DEV_SHIFT`], the page number below.
#[inline]
pub fn page_key(dev: u32, page: u64) -> u64 {
    (u64::from(dev) << DEV_SHIFT) | (page & ((1u64 << DEV_SHIFT) - 1))
}

/// Device number of a page key ([`page_key`]).
#[inline]
pub fn key_dev(key: u64) -> u32 {
    (key >> DEV_SHIFT) as u32
}

/// Page number of a page key ([`page_key`]) within its device.
#[inline]
pub fn key_page(key: u64) -> u64 {
    key & ((1u64 << DEV_SHIFT) - 1)
}

/// The erase-block key of page key `key` with `ppb` pages per block (0 counts as 1):
/// the device kept, the page number divided by `ppb`, so blocks of two devices never
/// share a key (block = page number div ppb, `docs/cache.md`).
#[inline]
pub fn block_key(key: u64, ppb: u32) -> u64 {
    page_key(key_dev(key), key_page(key) / u64::from(ppb.max(1)))
}

/// How requests become accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Granularity {
    /// Every page a request touches is one access, in ascending page order (the
    /// default, 4 KiB pages).
    Page {
        /// Page size in bytes.
        page_size: u32,
    },
    /// One access per record, keyed by the record's first 512 B sector, whatever its
    /// length: the "object" view of libCacheSim with `ignore_obj_size` (every record
    /// one access to its key, unit size), the mode its miss counts are compared in.
    Record,
}

impl Default for Granularity {
    fn default() -> Self {
        Granularity::Page { page_size: 4096 }
    }
}

impl Granularity {
    /// Call `f(key)` for every access `req` expands to, in order. Keys are
    /// [`page_key`]s: page numbers (or sector numbers in record mode) with the device
    /// folded in.
    #[inline]
    pub fn for_each_key(&self, req: &Request, mut f: impl FnMut(u64)) {
        match *self {
            Granularity::Page { page_size } => {
                if let Some((first, last)) = req.page_range(u64::from(page_size)) {
                    for p in first..=last {
                        f(page_key(req.dev, p));
                    }
                }
            }
            Granularity::Record => f(page_key(req.dev, req.offset / SECTOR)),
        }
    }

    /// Number of accesses `req` expands to.
    #[inline]
    pub fn count(&self, req: &Request) -> u64 {
        match *self {
            Granularity::Page { page_size } => req
                .page_range(u64::from(page_size))
                .map_or(0, |(a, b)| b - a + 1),
            Granularity::Record => 1,
        }
    }

    /// Page size in bytes (512 for record mode, whose keys are sectors).
    pub fn unit(&self) -> u64 {
        match *self {
            Granularity::Page { page_size } => u64::from(page_size),
            Granularity::Record => SECTOR,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(offset: u64, len: u32) -> Request {
        Request {
            time_ns: 0,
            offset,
            len,
            dev: 0,
            op: Op::Read,
        }
    }

    #[test]
    fn page_range_follows_design_semantics() {
        assert_eq!(req(0, 4096).page_range(4096), Some((0, 0)));
        assert_eq!(req(0, 4097).page_range(4096), Some((0, 1)));
        assert_eq!(req(4095, 2).page_range(4096), Some((0, 1)));
        assert_eq!(req(8192, 512).page_range(4096), Some((2, 2)));
        assert_eq!(req(8192, 0).page_range(4096), None);
    }

    #[test]
    fn page_range_near_the_top_of_the_address_space() {
        assert_eq!(
            req(u64::MAX, 4096).page_range(4096),
            Some((u64::MAX / 4096, u64::MAX / 4096 + 1))
        );
        assert_eq!(
            req(u64::MAX - 4095, 4096).page_range(4096).unwrap().0,
            (1 << 52) - 1
        );
    }

    #[test]
    fn check_refuses_what_would_overflow_or_alias() {
        assert!(req(0, 4096).check().is_ok());
        assert!(req(ADDRESS_LIMIT - 4096, 4096).check().is_ok());
        assert!(req(ADDRESS_LIMIT - 4096, 4097).check().is_err());
        assert!(req(ADDRESS_LIMIT, 0).check().is_err());
        // Pages 0 and 2^56 / 4096 would share a key.
        assert!(req(1 << 56, 4096).check().unwrap_err().contains("2^53"));
        assert!(req(u64::MAX, 4096).check().unwrap_err().contains("2^64"));
        let dev = |d| Request {
            dev: d,
            ..req(0, 512)
        };
        assert!(dev(DEV_LIMIT - 1).check().is_ok());
        assert!(dev(DEV_LIMIT).check().unwrap_err().contains("2^20"));
    }

    #[test]
    fn expansion_is_ascending_and_keyed_by_device() {
        let g = Granularity::default();
        let mut keys = vec![];
        let r = Request {
            dev: 3,
            ..req(4096 * 5 + 100, 3 * 4096)
        };
        g.for_each_key(&r, |k| keys.push(k));
        let base = 3u64 << DEV_SHIFT;
        assert_eq!(keys, vec![base + 5, base + 6, base + 7, base + 8]);
        assert_eq!(g.count(&r), 4);
    }

    #[test]
    fn block_keys_keep_devices_apart() {
        let (a, b) = (page_key(1, 9), page_key(2, 9));
        assert_ne!(block_key(a, 4), block_key(b, 4));
        assert_eq!(block_key(a, 4), page_key(1, 2));
        assert_eq!(block_key(a, 0), a);
        assert_eq!((key_dev(a), key_page(a)), (1, 9));
    }

    #[test]
    fn record_mode_is_one_access_per_record() {
        let g = Granularity::Record;
        let mut keys = vec![];
        g.for_each_key(&req(512 * 77, 65536), |k| keys.push(k));
        assert_eq!(keys, vec![77]);
    }
}
