//! The rules that keep the player from destroying data it was not given.
//!
//! 1. Writing to a block device needs an explicit `destructive` permission; a trace
//!    without writes may be replayed on any device (reads only, opened read-only).
//! 2. A device is not written while it, or any partition of it, is mounted, or while a
//!    device mapper / RAID device is stacked on it ([`crate::mounts`]); an existing file
//!    is not written (nor grown) while it backs a loop device, is mounted itself or is a
//!    swap file ([`crate::mounts::file_users`]): writing under a mounted file system
//!    corrupts it whether it sits on a partition or in an image file. A block device is
//!    also opened exclusively, so that the kernel refuses what the checks cannot see.
//! 3. A target smaller than the trace's address range is refused unless addresses wrap.
//! 4. Nothing is written outside the announced range: the mapper only produces
//!    addresses inside it, and the player checks every I/O before issuing it.
//! 5. A file target is never created or grown beyond the free space of its filesystem,
//!    and without `allow_large` not beyond half of it nor beyond [`LARGE_FILE_BYTES`]:
//!    a file target defaults to the trace's whole address span, which for a real
//!    after-cache trace can be hundreds of GiB that preallocation would really write.
//!
//! Every refusal is an error for which [`Error::is_usage`] holds (exit status 2 in the
//! CLI); I/O failures and unaddressable requests are not.

use crate::error::{Error, Result};
use crate::target::TargetKind;
use std::path::Path;

/// Rule 1.
pub fn check_destructive(
    path: &Path,
    kind: TargetKind,
    writes: u64,
    destructive: bool,
) -> Result<()> {
    if kind == TargetKind::BlockDevice && writes > 0 && !destructive {
        return Err(Error::NeedsDestructive {
            path: path.to_path_buf(),
            writes,
        });
    }
    Ok(())
}

/// Rule 2, given who uses the device or file ([`crate::mounts::BlockDevice::users`],
/// [`crate::mounts::file_users`]).
pub fn check_unused(path: &Path, users: Vec<String>) -> Result<()> {
    if users.is_empty() {
        Ok(())
    } else {
        Err(Error::InUse {
            path: path.to_path_buf(),
            users,
        })
    }
}

/// Rule 3: `span_bytes` of trace addresses onto `target_bytes` of target.
pub fn check_size(
    path: &Path,
    target_bytes: u64,
    span_bytes: u64,
    page_size: u32,
    wrap: bool,
) -> Result<()> {
    let ps = u64::from(page_size);
    if ps == 0 {
        return Err(Error::Invalid("page size 0".into()));
    }
    let usable = target_bytes / ps * ps;
    // Wrapping needs at least one page to wrap onto.
    if span_bytes > usable && (!wrap || usable == 0) {
        return Err(Error::TooSmall {
            path: path.to_path_buf(),
            target_bytes,
            span_bytes,
            span_pages: span_bytes / ps,
            page_size,
        });
    }
    Ok(())
}

/// Largest file target made without `allow_large` (rule 5).
pub const LARGE_FILE_BYTES: u64 = 64 << 30;

/// Rule 5: may a file target of `old` bytes become `new` bytes when its filesystem has
/// `available` bytes free?
pub fn check_space(
    path: &Path,
    old: u64,
    new: u64,
    available: u64,
    allow_large: bool,
) -> Result<()> {
    let needed = new.saturating_sub(old);
    if needed == 0 {
        return Ok(());
    }
    let over_free = needed > available;
    let over_limit = new > LARGE_FILE_BYTES || needed > available / 2;
    if over_free || (over_limit && !allow_large) {
        return Err(Error::NoSpace {
            path: path.to_path_buf(),
            size: new,
            needed,
            available,
            over_free,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_device_writes_need_destructive() {
        let p = Path::new("/dev/sdz");
        let e = check_destructive(p, TargetKind::BlockDevice, 3, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/sdz: is a block device and the trace writes (3 write requests), which \
             destroys its contents; add --destructive to allow it"
        );
        assert!(e.is_usage());
        check_destructive(p, TargetKind::BlockDevice, 3, true).unwrap();
        check_destructive(p, TargetKind::BlockDevice, 0, false).unwrap();
        check_destructive(p, TargetKind::File, 3, false).unwrap();
    }

    #[test]
    fn used_devices_are_refused_naming_the_users() {
        let e = check_unused(
            Path::new("/dev/sdb"),
            vec!["/dev/sdb1 is mounted on /media/card (vfat)".into()],
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/sdb: refusing to write: /dev/sdb1 is mounted on /media/card (vfat)"
        );
        // A refusal like the others: exit status 2 in the CLI (it was 1).
        assert!(e.is_usage());
        check_unused(Path::new("/dev/sdb"), vec![]).unwrap();
    }

    #[test]
    fn small_targets_need_wrap() {
        let p = Path::new("t.img");
        let e = check_size(p, 1 << 20, 2 << 20, 4096, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.img: target holds 1048576 bytes but the trace addresses 2097152 bytes (pages \
             0..512 of 4096 B); use --wrap to map addresses modulo the target size, or a \
             larger target (--size for a new file)"
        );
        check_size(p, 1 << 20, 2 << 20, 4096, true).unwrap();
        check_size(p, 2 << 20, 2 << 20, 4096, false).unwrap();
        // A partial last page does not count.
        assert!(check_size(p, (2 << 20) - 1, 2 << 20, 4096, false).is_err());
        // Nothing to wrap onto.
        assert!(check_size(p, 100, 4096, 4096, true).is_err());
    }

    #[test]
    fn file_targets_stay_within_the_free_space() {
        const GIB: u64 = 1 << 30;
        let p = Path::new("r.img");
        // The case that motivated the rule: a 119 GiB span onto a disk with 56 GiB free.
        let e = check_space(p, 0, 119 * GIB, 56 * GIB, true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.img: refusing to make a 119 GiB file target: that needs 119 GiB more and its \
             filesystem has 56 GiB available; replay onto a smaller file with --wrap (e.g. \
             --wrap --size 256MiB)"
        );
        assert!(e.is_usage());
        // 54 GiB fits in 56 GiB but would nearly fill the disk: needs --allow-large.
        let e = check_space(p, 0, 54 * GIB, 56 * GIB, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "r.img: refusing to make a 54 GiB file target without --allow-large: that needs \
             54 GiB more and its filesystem has 56 GiB available, and without --allow-large \
             a file target may take at most half of that and 64 GiB; replay onto a smaller \
             file with --wrap (e.g. --wrap --size 256MiB)"
        );
        check_space(p, 0, 54 * GIB, 56 * GIB, true).unwrap();
        // The 64 GiB cap holds however much is free.
        assert!(check_space(p, 0, 65 * GIB, 1000 * GIB, false).is_err());
        check_space(p, 0, 65 * GIB, 1000 * GIB, true).unwrap();
        // Only the growth counts against the free space.
        check_space(p, 50 * GIB, 51 * GIB, 4 * GIB, false).unwrap();
        assert!(check_space(p, 50 * GIB, 53 * GIB, 4 * GIB, false).is_err());
        check_space(p, 60 * GIB, 60 * GIB, 0, false).unwrap();
        check_space(p, 0, 256 << 20, 56 * GIB, false).unwrap();
    }
}
