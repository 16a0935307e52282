//! Is a block device in use? Before the player writes to a device it checks that
//! neither the device nor any partition of it is mounted (`/proc/self/mounts`) and that
//! no other block device is stacked on it (device mapper, MD RAID, bcache: the
//! `holders/` directories of sysfs). Partitions are the subdirectories of
//! `/sys/class/block/<disk>/` that hold a `partition` file (the kernel's sysfs-block
//! ABI). The parsing is separate from the file reading so that it can be tested on
//! fixture text.
//!
//! A regular file can be in use too: the image of a file system mounted through a loop
//! device (`/sys/block/loopN/loop/backing_file` names it), an image mounted directly (a
//! mount source that is the file itself) or an active swap file (`/proc/swaps`).
//! Writing to such a file corrupts the file system above it just as writing to a
//! mounted partition does, and nothing in the kernel stops it, so [`file_users`] looks
//! for all three. Files are compared by device and inode, not by path: the target may be
//! a symlink or a hard link to the image, and the kernel's path may be spelled
//! differently. A loop device's file is identified by the device and inode the kernel
//! holds (`LOOP_GET_STATUS64` on `/dev/loopN`, [`loop_backing_id`]), because its sysfs
//! name can be stale: once the name it was attached by is removed, sysfs says
//! `name (deleted)` while a hard link still reaches the image. Where the node cannot be
//! opened (no permission), the sysfs name is the fallback.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// One line of `/proc/self/mounts` (the fstab layout, `proc_pid_mounts(5)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    /// What is mounted (`/dev/sda1`, `tmpfs`, ...), octal escapes undone.
    pub source: String,
    /// Where.
    pub target: String,
    /// Filesystem type.
    pub fstype: String,
}

/// Undo the kernel's octal escapes (`\040` for a space, `\011`, `\012`, `\134`).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        // Three octal digits make at most 0o777, more than a byte: such an escape is not
        // the kernel's and stays as it is.
        let v = b
            .get(i + 1..i + 4)
            .filter(|d| b[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)))
            .map(|d| d.iter().fold(0u16, |v, c| v * 8 + u16::from(c - b'0')))
            .and_then(|v| u8::try_from(v).ok());
        if let Some(v) = v {
            out.push(v);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Parse the text of `/proc/self/mounts`; malformed lines are skipped (the kernel
/// writes this file, so there are none in practice).
pub fn parse_mounts(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let mut f = line.split_ascii_whitespace();
            let (source, target, fstype) = (f.next()?, f.next()?, f.next()?);
            Some(Mount {
                source: unescape(source),
                target: unescape(target),
                fstype: unescape(fstype),
            })
        })
        .collect()
}

/// A block device as sysfs describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockDevice {
    /// Kernel name (`sdb`, `nvme0n1`, `mmcblk0`, `sdb1`).
    pub name: String,
    /// `major:minor`.
    pub dev: String,
    /// Its partitions (kernel name, `major:minor`), empty for a partition itself.
    pub partitions: Vec<(String, String)>,
    /// Block devices stacked on it or on a partition of it (`dm-0`, `md0`).
    pub holders: Vec<String>,
}

fn read_trim(p: &Path) -> Option<String> {
    std::fs::read_to_string(p)
        .ok()
        .map(|s| s.trim().to_string())
}

fn holders(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir.join("holders"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

impl BlockDevice {
    /// Read device `name` from a sysfs `class/block` directory (`/sys/class/block` on a
    /// live system, a fixture tree in tests).
    pub fn from_sysfs(class_block: &Path, name: &str) -> std::io::Result<BlockDevice> {
        let dir = class_block.join(name);
        let dev = std::fs::read_to_string(dir.join("dev"))?.trim().to_string();
        let mut partitions = Vec::new();
        let mut holder = holders(&dir);
        for e in std::fs::read_dir(&dir)?.flatten() {
            let p = e.path();
            if p.join("partition").is_file() {
                let pname = e.file_name().to_string_lossy().into_owned();
                let pdev = read_trim(&p.join("dev")).unwrap_or_default();
                holder.extend(holders(&p));
                partitions.push((pname, pdev));
            }
        }
        partitions.sort();
        holder.sort();
        holder.dedup();
        Ok(BlockDevice {
            name: name.to_string(),
            dev,
            partitions,
            holders: holder,
        })
    }

    /// The kernel name of the device whose `major:minor` is `dev`, looked up in the
    /// sysfs `dev/block` directory (`/sys/dev/block/8:16 -> ../../block/sdb`).
    pub fn name_of(dev_block: &Path, dev: &str) -> std::io::Result<String> {
        let p = std::fs::canonicalize(dev_block.join(dev))?;
        Ok(p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default())
    }

    /// Who uses the device: one phrase per mounted device or partition and per holder.
    /// `resolve` maps a mount source to `(kernel name, major:minor)` when it names a
    /// block device (`/dev/sdb1`, `/dev/disk/by-uuid/...`); sources it cannot resolve
    /// are compared by the last path component.
    pub fn users(
        &self,
        mounts: &[Mount],
        resolve: impl Fn(&str) -> Option<(String, String)>,
    ) -> Vec<String> {
        let mut names: Vec<(&str, &str)> = vec![(&self.name, &self.dev)];
        names.extend(
            self.partitions
                .iter()
                .map(|(n, d)| (n.as_str(), d.as_str())),
        );
        let mut out = Vec::new();
        for m in mounts {
            if !m.source.starts_with('/') {
                continue;
            }
            let (rname, rdev) = resolve(&m.source).unwrap_or_else(|| {
                let last = m.source.rsplit('/').next().unwrap_or("").to_string();
                (last, String::new())
            });
            if let Some((n, _)) = names
                .iter()
                .find(|(n, d)| *n == rname || (!rdev.is_empty() && *d == rdev))
            {
                out.push(format!(
                    "/dev/{n} is mounted on {} ({})",
                    m.target, m.fstype
                ));
            }
        }
        for h in &self.holders {
            out.push(format!("{h} is stacked on it (device mapper or RAID)"));
        }
        out
    }
}

/// Resolve a mount source on the live system: its kernel name and `major:minor` if it
/// is a block device node (symlinks followed).
pub fn resolve_live(source: &str) -> Option<(String, String)> {
    use std::os::unix::fs::FileTypeExt;
    let md = std::fs::metadata(source).ok()?;
    if !md.file_type().is_block_device() {
        return None;
    }
    let dev = format!("{}:{}", major(md.rdev()), minor(md.rdev()));
    let name = BlockDevice::name_of(Path::new("/sys/dev/block"), &dev).ok()?;
    Some((name, dev))
}

/// Major number of a Linux `dev_t` (glibc's `gnu_dev_major` bit layout).
pub fn major(rdev: u64) -> u64 {
    ((rdev >> 32) & 0xffff_f000) | ((rdev >> 8) & 0x0000_0fff)
}

/// Minor number of a Linux `dev_t`.
pub fn minor(rdev: u64) -> u64 {
    ((rdev >> 12) & 0xffff_ff00) | (rdev & 0x0000_00ff)
}

/// A file's identity: device and inode of what a path leads to (symlinks followed).
fn file_id(p: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()))
}

/// An attached loop device: its kernel name and its backing file as the kernel names
/// it (the path it had when attached; ` (deleted)` is appended once it is unlinked).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopDevice {
    /// Kernel name (`loop0`).
    pub name: String,
    /// The backing file.
    pub backing_file: PathBuf,
    /// Device and inode of the backing file as the kernel holds them
    /// ([`loop_backing_id`]); `None` when they could not be asked for.
    pub backing_id: Option<(u64, u64)>,
}

/// `struct loop_info64` of `<linux/loop.h>`: device and inode of the backing file
/// first, then fields the player does not read (232 bytes in all).
#[repr(C)]
struct LoopInfo64 {
    lo_device: u64,
    lo_inode: u64,
    _rest: [u8; 216],
}

const _: () = assert!(std::mem::size_of::<LoopInfo64>() == 232);

/// `LOOP_GET_STATUS64` of `<linux/loop.h>` (an old-style number, not `_IOR`-encoded).
const LOOP_GET_STATUS64: rustix::ioctl::Opcode = 0x4C05;

/// Device and inode of the file the loop device node `dev` (`/dev/loop0`) is attached
/// to, as the kernel holds them, whatever names the file has lost or gained since;
/// `None` when the node cannot be opened (it needs root or the disk group) or is not
/// attached. The device number is the kernel's `huge_encode_dev`, which equals the
/// `st_dev` of `stat` for Linux's 12-bit majors.
#[allow(unsafe_code)]
pub fn loop_backing_id(dev: &Path) -> Option<(u64, u64)> {
    let node = std::fs::File::open(dev).ok()?;
    // SAFETY: LOOP_GET_STATUS64 takes a pointer to a `struct loop_info64`, which
    // LoopInfo64 lays out with the same size and the same first two fields, writes
    // that struct whole and reads nothing; the call has no other effect.
    let getter = unsafe { rustix::ioctl::Getter::<LOOP_GET_STATUS64, LoopInfo64>::new() };
    let info = unsafe { rustix::ioctl::ioctl(&node, getter) }.ok()?;
    Some((info.lo_device, info.lo_inode))
}

/// The attached loop devices under a sysfs `block` directory (`/sys/block` on a live
/// system, a fixture tree in tests): those with a `loop/backing_file`. A missing
/// directory means no loop devices; any other failure to read it is an error, because
/// the caller cannot then tell a free file from one in use.
pub fn loop_devices(sys_block: &Path) -> std::io::Result<Vec<LoopDevice>> {
    let entries = match std::fs::read_dir(sys_block) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for e in entries {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with("loop") {
            continue;
        }
        // Only attached devices have the file; the kernel ends it with a newline.
        let Ok(text) = std::fs::read(e.path().join("loop/backing_file")) else {
            continue;
        };
        let text = text.strip_suffix(b"\n").unwrap_or(&text);
        if text.is_empty() {
            continue;
        }
        use std::os::unix::ffi::OsStrExt;
        out.push(LoopDevice {
            name,
            backing_file: PathBuf::from(std::ffi::OsStr::from_bytes(text)),
            backing_id: None,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The file names of the text of `/proc/swaps` (a header line, then one line per swap
/// area whose first field is its path, octal escapes as in the mounts file).
pub fn parse_swaps(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .filter_map(|l| l.split_ascii_whitespace().next().map(unescape))
        .collect()
}

/// Who uses the regular file `path`, one phrase each (empty = free): loop devices of
/// `loops` it backs (with what is mounted from them or stacked on them), mounts whose
/// source is the file itself, swap areas that are the file. `sys_block` is the sysfs
/// `block` directory, `resolve` as for [`BlockDevice::users`]. A loop device's file is
/// matched by the device and inode the kernel reported, else by the device and inode
/// of its sysfs name, else by canonical path.
pub fn file_users(
    path: &Path,
    sys_block: &Path,
    loops: &[LoopDevice],
    mounts: &[Mount],
    swaps: &[String],
    resolve: impl Fn(&str) -> Option<(String, String)>,
) -> std::io::Result<Vec<String>> {
    let md = std::fs::metadata(path)?;
    let id = (md.dev(), md.ino());
    let canonical = std::fs::canonicalize(path)?;
    let backs = |l: &LoopDevice| match (l.backing_id, file_id(&l.backing_file)) {
        (Some(kernel), _) => kernel == id,
        (None, Some(named)) => named == id,
        (None, None) => l.backing_file == canonical,
    };
    let mut out = Vec::new();
    for l in loops {
        if !backs(l) {
            continue;
        }
        let mut phrase = format!("it is the backing file of /dev/{}", l.name);
        if let Ok(bd) = BlockDevice::from_sysfs(sys_block, &l.name) {
            let users = bd.users(mounts, &resolve);
            if !users.is_empty() {
                phrase = format!("{phrase}, and {}", users.join(" and "));
            }
        }
        out.push(phrase);
    }
    for m in mounts {
        if m.source.starts_with('/') && file_id(Path::new(&m.source)) == Some(id) {
            out.push(format!("it is mounted on {} ({})", m.target, m.fstype));
        }
    }
    if swaps.iter().any(|s| file_id(Path::new(s)) == Some(id)) {
        out.push("it is in use as swap space".to_string());
    }
    Ok(out)
}

/// [`file_users`] on the live system (`/sys/block`, `/dev/loopN`, `/proc/self/mounts`,
/// `/proc/swaps`).
pub fn live_file_users(path: &Path) -> std::io::Result<Vec<String>> {
    let sys_block = Path::new("/sys/block");
    let mut loops = loop_devices(sys_block)?;
    for l in &mut loops {
        l.backing_id = loop_backing_id(&Path::new("/dev").join(&l.name));
    }
    let mounts = parse_mounts(&std::fs::read_to_string("/proc/self/mounts")?);
    let swaps = match std::fs::read_to_string("/proc/swaps") {
        Ok(t) => parse_swaps(&t),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e),
    };
    file_users(path, sys_block, &loops, &mounts, &swaps, resolve_live)
}

/// Check, on the live system, that the block device node at `path` may be written:
/// returns the list of users (empty = free).
pub fn live_users(path: &Path) -> std::io::Result<Vec<String>> {
    let md = std::fs::metadata(path)?;
    let dev = format!("{}:{}", major(md.rdev()), minor(md.rdev()));
    let name = BlockDevice::name_of(Path::new("/sys/dev/block"), &dev)?;
    let bd = BlockDevice::from_sysfs(Path::new("/sys/class/block"), &name)?;
    let mounts = parse_mounts(&std::fs::read_to_string("/proc/self/mounts")?);
    Ok(bd.users(&mounts, resolve_live))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTS: &str = "\
sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0
/dev/nvme0n1p2 / ext4 rw,relatime 0 0
/dev/sdb1 /media/my\\040card vfat rw,nosuid 0 0
tmpfs /run tmpfs rw 0 0
";

    fn fixture() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        let w = |p: &str, s: &str| {
            let p = d.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, s).unwrap();
        };
        w("sdb/dev", "8:16\n");
        w("sdb/size", "62333952\n");
        w("sdb/queue/logical_block_size", "512\n");
        w("sdb/sdb1/dev", "8:17\n");
        w("sdb/sdb1/partition", "1\n");
        w("sdb/sdb2/dev", "8:18\n");
        w("sdb/sdb2/partition", "2\n");
        w("sdc/dev", "8:32\n");
        w("sdd/dev", "8:48\n");
        std::fs::create_dir_all(d.path().join("sdd/holders/dm-0")).unwrap();
        d
    }

    #[test]
    fn mounts_are_parsed_with_escapes() {
        let m = parse_mounts(MOUNTS);
        assert_eq!(m.len(), 4);
        assert_eq!(m[2].source, "/dev/sdb1");
        assert_eq!(m[2].target, "/media/my card");
        assert_eq!(m[2].fstype, "vfat");
        // Not the kernel's escapes: kept as they are, no overflow.
        assert_eq!(parse_mounts("/a\\777b /m\\04 x 0 0")[0].source, "/a\\777b");
        assert_eq!(parse_mounts("/a\\777b /m\\04 x 0 0")[0].target, "/m\\04");
    }

    #[test]
    fn partitions_are_found_in_sysfs() {
        let d = fixture();
        let b = BlockDevice::from_sysfs(d.path(), "sdb").unwrap();
        assert_eq!(b.dev, "8:16");
        assert_eq!(
            b.partitions,
            vec![
                ("sdb1".into(), "8:17".into()),
                ("sdb2".into(), "8:18".into())
            ]
        );
        assert!(b.holders.is_empty());
    }

    /// A disk whose partition is mounted is refused, with the mount named.
    #[test]
    fn mounted_partition_is_reported() {
        let d = fixture();
        let b = BlockDevice::from_sysfs(d.path(), "sdb").unwrap();
        let users = b.users(&parse_mounts(MOUNTS), |_| None);
        assert_eq!(users, vec!["/dev/sdb1 is mounted on /media/my card (vfat)"]);
    }

    /// Mount sources given as symlinks (`/dev/disk/by-uuid/...`) match through the
    /// resolver's `major:minor`.
    #[test]
    fn mounted_by_uuid_is_reported() {
        let d = fixture();
        let b = BlockDevice::from_sysfs(d.path(), "sdb").unwrap();
        let m = parse_mounts("/dev/disk/by-uuid/1234-ABCD /boot/efi vfat rw 0 0\n");
        let users = b.users(&m, |s| {
            (s == "/dev/disk/by-uuid/1234-ABCD").then(|| ("sdb2".to_string(), "8:18".to_string()))
        });
        assert_eq!(users, vec!["/dev/sdb2 is mounted on /boot/efi (vfat)"]);
    }

    #[test]
    fn unmounted_disk_is_free_and_holders_count() {
        let d = fixture();
        let c = BlockDevice::from_sysfs(d.path(), "sdc").unwrap();
        assert!(c.users(&parse_mounts(MOUNTS), |_| None).is_empty());
        let dd = BlockDevice::from_sysfs(d.path(), "sdd").unwrap();
        assert_eq!(
            dd.users(&parse_mounts(MOUNTS), |_| None),
            vec!["dm-0 is stacked on it (device mapper or RAID)"]
        );
    }

    #[test]
    fn dev_t_split_matches_glibc_layout() {
        // makedev(8, 17) and makedev(259, 65536) in glibc's encoding.
        let mk = |ma: u64, mi: u64| {
            ((ma & 0xffff_f000) << 32)
                | ((ma & 0xfff) << 8)
                | ((mi & 0xffff_ff00) << 12)
                | (mi & 0xff)
        };
        for (ma, mi) in [(8, 17), (259, 65536), (179, 0)] {
            assert_eq!((major(mk(ma, mi)), minor(mk(ma, mi))), (ma, mi));
        }
    }

    /// A fake `/sys/block` whose loop devices back files of `d`: `loop0` backs `img`
    /// (named through a symlinked directory, as the kernel may spell it), `loop1` backs
    /// `other`, `loop2` is detached, `loop3` backs a deleted file.
    fn loop_fixture(d: &Path) -> PathBuf {
        let w = |p: &str, s: &str| {
            let p = d.join("sys").join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, s).unwrap();
        };
        std::fs::write(d.join("img"), b"ext4 image").unwrap();
        std::fs::write(d.join("other"), b"another image").unwrap();
        std::fs::write(d.join("free"), b"free").unwrap();
        std::os::unix::fs::symlink(d, d.join("via")).unwrap();
        w("loop0/dev", "7:0\n");
        w(
            "loop0/loop/backing_file",
            &format!("{}\n", d.join("via/img").display()),
        );
        w("loop1/dev", "7:1\n");
        w(
            "loop1/loop/backing_file",
            &format!("{}\n", d.join("other").display()),
        );
        w("loop2/dev", "7:2\n");
        w("loop3/dev", "7:3\n");
        w(
            "loop3/loop/backing_file",
            &format!("{} (deleted)\n", d.join("free").display()),
        );
        w("vda/dev", "254:0\n");
        d.join("sys")
    }

    #[test]
    fn loop_devices_are_read_from_sysfs() {
        let d = tempfile::tempdir().unwrap();
        let sys = loop_fixture(d.path());
        let names: Vec<String> = loop_devices(&sys)
            .unwrap()
            .into_iter()
            .map(|l| l.name)
            .collect();
        assert_eq!(names, vec!["loop0", "loop1", "loop3"]);
        assert!(loop_devices(&d.path().join("no-sysfs")).unwrap().is_empty());
    }

    /// The attack: the image of a mounted file system, named directly, through a
    /// symlink or through a hard link, is found by device and inode and refused with
    /// the mount named; a file no loop device backs is free.
    #[test]
    fn loop_backed_images_are_found_by_device_and_inode() {
        let d = tempfile::tempdir().unwrap();
        let sys = loop_fixture(d.path());
        let img = d.path().join("img");
        std::os::unix::fs::symlink(&img, d.path().join("link")).unwrap();
        std::fs::hard_link(&img, d.path().join("hard")).unwrap();
        let mounts = parse_mounts("/dev/loop0 /mnt/img ext4 rw,relatime 0 0\n");
        let loops = loop_devices(&sys).unwrap();
        for name in ["img", "link", "hard"] {
            let users =
                file_users(&d.path().join(name), &sys, &loops, &mounts, &[], |_| None).unwrap();
            assert_eq!(
                users,
                vec![
                    "it is the backing file of /dev/loop0, and /dev/loop0 is mounted on \
                     /mnt/img (ext4)"
                ],
                "{name}"
            );
        }
        // Attached but not mounted: still refused (a mount can come at any time).
        let users = file_users(&d.path().join("other"), &sys, &loops, &mounts, &[], |_| {
            None
        })
        .unwrap();
        assert_eq!(users, vec!["it is the backing file of /dev/loop1"]);
        // loop3's file was deleted: the file now at that path is another one.
        let free = d.path().join("free");
        assert!(file_users(&free, &sys, &loops, &mounts, &[], |_| None)
            .unwrap()
            .is_empty());
    }

    /// The attack: the image was attached as `fs.img`, that name was removed and a
    /// hard link `kept.img` survives. sysfs names `fs.img (deleted)`, which leads
    /// nowhere, but the kernel's device and inode are `kept.img`'s: refused. Without
    /// them (no permission to open `/dev/loopN`) the sysfs name decides, as before.
    #[test]
    fn a_loop_image_is_found_by_the_kernels_inode_when_its_name_is_gone() {
        let d = tempfile::tempdir().unwrap();
        let sys = loop_fixture(d.path());
        let kept = d.path().join("kept.img");
        std::fs::write(&kept, b"ext4 image").unwrap();
        let md = std::fs::metadata(&kept).unwrap();
        let loops = |id: Option<(u64, u64)>| {
            vec![LoopDevice {
                name: "loop3".into(),
                backing_file: d.path().join("fs.img (deleted)"),
                backing_id: id,
            }]
        };
        let mounts = parse_mounts("/dev/loop3 /mnt/fs ext4 rw 0 0\n");
        let users = |l: &[LoopDevice]| file_users(&kept, &sys, l, &mounts, &[], |_| None).unwrap();
        assert_eq!(
            users(&loops(Some((md.dev(), md.ino())))),
            vec![
                "it is the backing file of /dev/loop3, and /dev/loop3 is mounted on /mnt/fs (ext4)"
            ]
        );
        assert!(users(&loops(None)).is_empty());
        // Another inode on the same device is another file, whatever sysfs names.
        let mut other = loops(Some((md.dev(), md.ino() + 1)));
        other[0].backing_file = kept.clone();
        assert!(users(&other).is_empty());
    }

    /// An image mounted without a loop device (the mount source is the file) and a
    /// swap file are in use too.
    #[test]
    fn mounted_images_and_swap_files_are_in_use() {
        let d = tempfile::tempdir().unwrap();
        let sys = loop_fixture(d.path());
        let free = d.path().join("free");
        let loops = loop_devices(&sys).unwrap();
        let mounts = parse_mounts(&format!("{} /mnt/ro erofs ro 0 0\n", free.display()));
        assert_eq!(
            file_users(&free, &sys, &loops, &mounts, &[], |_| None).unwrap(),
            vec!["it is mounted on /mnt/ro (erofs)"]
        );
        let swaps = parse_swaps(&format!(
            "Filename\tType\tSize\tUsed\tPriority\n{}\tfile\t1024\t0\t-2\n",
            free.display()
        ));
        assert_eq!(swaps, vec![free.display().to_string()]);
        assert_eq!(
            file_users(&free, &sys, &loops, &[], &swaps, |_| None).unwrap(),
            vec!["it is in use as swap space"]
        );
        assert_eq!(
            parse_swaps("Filename Type Size Used Priority\n/swap\\040file file 8 0 -2\n"),
            vec!["/swap file"]
        );
    }
}
