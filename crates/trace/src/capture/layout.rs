//! Laying captured files out in one logical address space, and choosing which files
//! count.
//!
//! **Scheme.** The address space is cut into slots of `block` bytes (default 4 MiB).
//! A file is cut into extents of the same size: extent `k` holds file bytes
//! `[k*block, (k+1)*block)`. The first time the trace touches extent `k` of a file,
//! every extent `0..=k` of that file not yet placed gets the next free slots, in
//! order. So a file is laid out contiguously from its start up to the furthest byte
//! touched when it was first seen; a file that later grows past that gets further
//! extents at the end of the space as it then is (possibly after other files'
//! slots). File offset `o` maps to `slot(o / block) * block + o % block`, so slots
//! are block-aligned and a request crossing an extent boundary is split in two.
//! Files are placed in first-touch order, which makes the layout deterministic for
//! a given strace log.
//!
//! **Filter.** Only regular files count: paths that do not start with `/`
//! (`socket:[..]`, `pipe:[..]`, `anon_inode:..`) and pseudo files under `/proc`,
//! `/sys` and `/dev` (ttys, `/dev/zero`, ...) are skipped. `--include` patterns (any
//! of them must match, if given) and `--exclude` patterns (none may match) follow;
//! a pattern with `*` or `?` is a glob over the whole path (`*` matches any run of
//! characters, `/` included, `?` one character), anything else is a path prefix.

use crate::request::{Op, Request};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::rc::Rc;

/// Default slot / extent size: 4 MiB.
pub const DEFAULT_BLOCK: u64 = 4 << 20;

/// Which paths are captured.
#[derive(Clone, Debug, Default)]
pub struct PathFilter {
    /// Patterns of which one must match (none = every regular file).
    pub include: Vec<String>,
    /// Patterns none of which may match.
    pub exclude: Vec<String>,
}

impl PathFilter {
    /// Whether `path` names a regular file the filter lets through.
    pub fn accepts(&self, path: &str) -> bool {
        if !path.starts_with('/')
            || ["/proc", "/sys", "/dev"]
                .iter()
                .any(|p| path == *p || path.strip_prefix(p).is_some_and(|r| r.starts_with('/')))
        {
            return false;
        }
        (self.include.is_empty() || self.include.iter().any(|p| matches(p, path)))
            && !self.exclude.iter().any(|p| matches(p, path))
    }
}

/// Glob (`*`, `?`) over the whole path, or a prefix when the pattern has neither.
fn matches(pattern: &str, path: &str) -> bool {
    if !pattern.contains(['*', '?']) {
        return path.starts_with(pattern);
    }
    let (p, s) = (pattern.as_bytes(), path.as_bytes());
    // Iterative wildcard match with one backtrack point.
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < s.len() {
        if i < p.len() && (p[i] == b'?' || p[i] == s[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == b'*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == b'*')
}

/// One file's placement: `slots[k]` is the slot holding its extent `k`.
struct FilePlace {
    path: Rc<str>,
    slots: Vec<u64>,
}

/// The layout being built.
pub struct Layout {
    block: u64,
    next_slot: u64,
    index: FxHashMap<Rc<str>, usize>,
    files: Vec<FilePlace>,
}

/// A run of consecutive slots holding consecutive extents of one file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Extent {
    /// First file byte of the run.
    pub file_offset: u64,
    /// Its address in the trace.
    pub address: u64,
    /// Length in bytes (a multiple of the block size).
    pub len: u64,
}

/// A file and its extents, as written to `<trace>.layout.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileLayout {
    /// The file.
    pub path: String,
    /// Its extents, in file order.
    pub extents: Vec<Extent>,
}

/// The whole layout, as written to `<trace>.layout.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LayoutFile {
    /// Slot / extent size in bytes.
    pub block_size: u64,
    /// Files in first-touch order.
    pub files: Vec<FileLayout>,
}

impl Layout {
    /// An empty layout with slots of `block` bytes (> 0).
    pub fn new(block: u64) -> Layout {
        assert!(block > 0, "block size must be positive");
        Layout {
            block,
            next_slot: 0,
            index: FxHashMap::default(),
            files: Vec::new(),
        }
    }

    /// Append the requests for `len` bytes at `offset` of `path`, split at extent
    /// boundaries.
    pub fn map(
        &mut self,
        path: &Rc<str>,
        offset: u64,
        len: u64,
        op: Op,
        time_ns: u64,
        out: &mut Vec<Request>,
    ) {
        let f = match self.index.get(path) {
            Some(&f) => f,
            None => {
                self.files.push(FilePlace {
                    path: path.clone(),
                    slots: Vec::new(),
                });
                self.index.insert(path.clone(), self.files.len() - 1);
                self.files.len() - 1
            }
        };
        let (mut off, end) = (offset, offset + len);
        while off < end {
            let k = off / self.block;
            let file = &mut self.files[f];
            while file.slots.len() as u64 <= k {
                file.slots.push(self.next_slot);
                self.next_slot += 1;
            }
            let within = off % self.block;
            let piece = (self.block - within)
                .min(end - off)
                .min(u64::from(u32::MAX));
            out.push(Request {
                time_ns,
                offset: file.slots[k as usize] * self.block + within,
                len: piece as u32,
                dev: 0,
                op,
            });
            off += piece;
        }
    }

    /// The layout in its serialisable form, runs of consecutive slots merged.
    pub fn to_file(&self) -> LayoutFile {
        let files = self
            .files
            .iter()
            .map(|f| {
                let mut extents: Vec<Extent> = Vec::new();
                for (k, &slot) in f.slots.iter().enumerate() {
                    let address = slot * self.block;
                    match extents.last_mut() {
                        Some(e) if e.address + e.len == address => e.len += self.block,
                        _ => extents.push(Extent {
                            file_offset: k as u64 * self.block,
                            address,
                            len: self.block,
                        }),
                    }
                }
                FileLayout {
                    path: f.path.to_string(),
                    extents,
                }
            })
            .collect();
        LayoutFile {
            block_size: self.block,
            files,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_get_aligned_slots_and_grow_with_further_extents() {
        let mut l = Layout::new(4096);
        let (a, b): (Rc<str>, Rc<str>) = ("/a".into(), "/b".into());
        let mut out = Vec::new();
        l.map(&a, 100, 10, Op::Write, 1, &mut out); // /a extent 0 -> slot 0
        l.map(&b, 5000, 10, Op::Read, 2, &mut out); // /b extents 0,1 -> slots 1,2
        l.map(&a, 4090, 20, Op::Write, 3, &mut out); // crosses into /a extent 1 -> slot 3
        let got: Vec<(u64, u32, Op)> = out.iter().map(|r| (r.offset, r.len, r.op)).collect();
        assert_eq!(
            got,
            vec![
                (100, 10, Op::Write),
                (2 * 4096 + 904, 10, Op::Read),
                (4090, 6, Op::Write),
                (3 * 4096, 14, Op::Write),
            ]
        );
        let lf = l.to_file();
        assert_eq!(
            lf.files[0].extents.len(),
            2,
            "/a has two runs: slot 0 and slot 3"
        );
        assert_eq!(
            lf.files[1].extents,
            vec![Extent {
                file_offset: 0,
                address: 4096,
                len: 8192
            }]
        );
    }

    #[test]
    fn filter_skips_pseudo_files_and_applies_patterns() {
        let f = PathFilter::default();
        for p in [
            "socket:[12]",
            "pipe:[3]",
            "/dev/zero",
            "/proc/self/maps",
            "/sys/x",
            "/dev",
        ] {
            assert!(!f.accepts(p), "{p}");
        }
        assert!(f.accepts("/devices.txt"));
        let f = PathFilter {
            include: vec!["/data/".into(), "*.db".into()],
            exclude: vec!["*-journal".into(), "/data/tmp".into()],
        };
        assert!(f.accepts("/data/x"));
        assert!(f.accepts("/home/u/test.db"));
        assert!(!f.accepts("/home/u/test.db-journal"));
        assert!(!f.accepts("/data/tmp/y"));
        assert!(!f.accepts("/etc/passwd"));
        assert!(matches("/a/*/c?", "/a/b/x/cd"));
        assert!(!matches("/a/*/c?", "/a/b/c"));
    }
}
