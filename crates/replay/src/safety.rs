//! The rules that keep the player from destroying data it was not given.
//!
//! 1. Writing to a block device needs an explicit `destructive` permission; a trace
//!    without writes may be replayed on any device (reads only, opened read-only).
//! 2. A device is not written while it, or any partition of it, is mounted, or while a
//!    device mapper / RAID device is stacked on it ([`crate::mounts`]).
//! 3. A target smaller than the trace's address range is refused unless addresses wrap.
//! 4. Nothing is written outside the announced range: the mapper only produces
//!    addresses inside it, and the player checks every I/O before issuing it.

use crate::error::{Error, Result};
use crate::target::TargetKind;
use std::path::Path;

/// Rule 1.
pub fn check_destructive(path: &Path, kind: TargetKind, writes: u64, destructive: bool) -> Result<()> {
    if kind == TargetKind::BlockDevice && writes > 0 && !destructive {
        return Err(Error::NeedsDestructive {
            path: path.to_path_buf(),
            writes,
        });
    }
    Ok(())
}

/// Rule 2, given who uses the device ([`crate::mounts::BlockDevice::users`]).
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
        assert!(!e.is_usage());
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
}
