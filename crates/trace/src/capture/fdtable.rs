//! Descriptor and file-position tracking: turns [`Syscall`]s into file I/O
//! ([`FileIo`]: path, byte offset in the file, length, read or write).
//!
//! The model follows POSIX (open(2), dup(2)): a descriptor names an *open file
//! description* that holds the position and the `O_APPEND` flag; `dup`, `dup2`,
//! `dup3` and `fcntl(F_DUPFD[_CLOEXEC])` make another descriptor for the same
//! description, so the position is shared. Each process has a descriptor table;
//! `fork`/`clone` copy it (descriptions stay shared), `clone(CLONE_FILES)` (threads)
//! shares it. `read`/`write`/`readv`/`writev` use and advance the position; the
//! positional calls (`pread64`, `pwrite64`, `preadv`, `pwritev`, and `preadv2`/
//! `pwritev2` with an offset other than -1) do not touch it; `lseek` sets it to its
//! result. A write to an `O_APPEND` description goes to the end of the file as far
//! as the trace has seen it (its largest end touched, `lseek(SEEK_END)` results,
//! `O_TRUNC`/`ftruncate`). The length of an access is the call's result, the bytes
//! really moved. A descriptor the trace never saw opened (inherited, or used by a
//! child before its parent's `clone` returned) is taken from its `-y` path with
//! position 0.

use super::strace::Syscall;
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// Read or write of file bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileIo {
    /// Start time of the call (as the parser gave it).
    pub time_ns: u64,
    /// The file, as strace's `-y` printed it.
    pub path: Rc<str>,
    /// First byte in the file.
    pub offset: u64,
    /// Bytes moved.
    pub len: u64,
    /// `true` for a write.
    pub write: bool,
}

/// An open file description.
struct Desc {
    path: Rc<str>,
    pos: u64,
    append: bool,
}

/// Descriptor tables of every process seen, and the descriptions they point to.
#[derive(Default)]
pub struct FdTable {
    descs: Vec<Desc>,
    /// Descriptor tables; a table maps descriptor -> index in `descs`.
    tables: Vec<FxHashMap<i64, usize>>,
    /// Process / thread id -> its table.
    pid_table: FxHashMap<u32, usize>,
    /// Known size of each file (the end of the file as the trace has seen it).
    sizes: FxHashMap<Rc<str>, u64>,
}

impl FdTable {
    /// Empty tables.
    pub fn new() -> FdTable {
        FdTable::default()
    }

    fn table(&mut self, pid: u32) -> usize {
        if let Some(&t) = self.pid_table.get(&pid) {
            return t;
        }
        self.tables.push(FxHashMap::default());
        let t = self.tables.len() - 1;
        self.pid_table.insert(pid, t);
        t
    }

    fn new_desc(&mut self, path: &str, append: bool) -> usize {
        let path: Rc<str> = match self.sizes.get_key_value(path) {
            Some((k, _)) => k.clone(),
            None => {
                let k: Rc<str> = path.into();
                self.sizes.insert(k.clone(), 0);
                k
            }
        };
        self.descs.push(Desc {
            path,
            pos: 0,
            append,
        });
        self.descs.len() - 1
    }

    /// The description behind argument `arg` of `c`, registering an unseen descriptor
    /// from its `-y` path.
    fn desc_of(&mut self, c: &Syscall, arg: usize) -> Option<usize> {
        let (fd, path) = c.fd_arg(arg)?;
        let t = self.table(c.pid);
        if let Some(&d) = self.tables[t].get(&fd) {
            return Some(d);
        }
        let d = self.new_desc(path?, false);
        self.tables[t].insert(fd, d);
        Some(d)
    }

    fn bind(&mut self, pid: u32, fd: i64, d: usize) {
        let t = self.table(pid);
        self.tables[t].insert(fd, d);
    }

    /// Apply one call; returns the file I/O it did, if any.
    pub fn apply(&mut self, c: &Syscall) -> Option<FileIo> {
        match c.name.as_str() {
            "open" | "openat" | "creat" => {
                let (flags, path_arg) = match c.name.as_str() {
                    "open" => (c.args.get(1).map(String::as_str), 0),
                    "openat" => (c.args.get(2).map(String::as_str), 1),
                    _ => (Some("O_CREAT|O_WRONLY|O_TRUNC"), 0),
                };
                if c.ret < 0 {
                    return None;
                }
                let flags = flags.unwrap_or("");
                let path = match &c.ret_path {
                    Some(p) => p.clone(),
                    None => unquote(c.args.get(path_arg)?),
                };
                let d = self.new_desc(&path, flags.contains("O_APPEND"));
                if flags.contains("O_TRUNC") {
                    let p = self.descs[d].path.clone();
                    self.sizes.insert(p, 0);
                }
                self.bind(c.pid, c.ret, d);
                None
            }
            "dup" | "dup2" | "dup3" => {
                if c.ret >= 0 {
                    let d = self.desc_of(c, 0)?;
                    self.bind(c.pid, c.ret, d);
                }
                None
            }
            "fcntl" | "fcntl64" => {
                let cmd = c.args.get(1)?.as_str();
                if c.ret < 0 {
                    return None;
                }
                if cmd.starts_with("F_DUPFD") {
                    let d = self.desc_of(c, 0)?;
                    self.bind(c.pid, c.ret, d);
                } else if cmd == "F_SETFL" {
                    let d = self.desc_of(c, 0)?;
                    self.descs[d].append = c.args.get(2).is_some_and(|f| f.contains("O_APPEND"));
                }
                None
            }
            "close" => {
                let (fd, _) = c.fd_arg(0)?;
                let t = self.table(c.pid);
                self.tables[t].remove(&fd);
                None
            }
            "clone" | "clone3" | "fork" | "vfork" => {
                if c.ret > 0 {
                    let child = u32::try_from(c.ret).ok()?;
                    let parent = self.table(c.pid);
                    let shared = c.args.iter().any(|a| a.contains("CLONE_FILES"));
                    let t = if shared {
                        parent
                    } else {
                        self.tables.push(self.tables[parent].clone());
                        self.tables.len() - 1
                    };
                    self.pid_table.insert(child, t);
                }
                None
            }
            "lseek" => {
                if c.ret >= 0 {
                    let d = self.desc_of(c, 0)?;
                    self.descs[d].pos = c.ret as u64;
                    if c.args.get(2).is_some_and(|w| w == "SEEK_END") {
                        let size = c.ret - c.int_arg(1).unwrap_or(0);
                        if size >= 0 {
                            let p = self.descs[d].path.clone();
                            self.sizes.insert(p, size as u64);
                        }
                    }
                }
                None
            }
            "ftruncate" => {
                if c.ret == 0 {
                    let d = self.desc_of(c, 0)?;
                    let len = u64::try_from(c.int_arg(1)?).ok()?;
                    let p = self.descs[d].path.clone();
                    self.sizes.insert(p, len);
                }
                None
            }
            "read" | "readv" => self.sequential(c, false),
            "write" | "writev" => self.sequential(c, true),
            "pread64" | "preadv" | "preadv2" => self.positional(c, false),
            "pwrite64" | "pwritev" | "pwritev2" => self.positional(c, true),
            _ => None,
        }
    }

    /// A call at the description's position (or the file's end under `O_APPEND`).
    fn sequential(&mut self, c: &Syscall, write: bool) -> Option<FileIo> {
        if c.ret <= 0 {
            return None;
        }
        let d = self.desc_of(c, 0)?;
        let len = c.ret as u64;
        let desc = &self.descs[d];
        let offset = if write && desc.append {
            self.sizes.get(&desc.path).copied().unwrap_or(0)
        } else {
            desc.pos
        };
        self.descs[d].pos = offset + len;
        Some(self.io(c.time_ns, d, offset, len, write))
    }

    /// A call at an explicit offset (argument 3); `preadv2`/`pwritev2` with -1 use
    /// the position like `readv`/`writev`.
    fn positional(&mut self, c: &Syscall, write: bool) -> Option<FileIo> {
        let off = c.int_arg(3)?;
        if off < 0 {
            return self.sequential(c, write);
        }
        if c.ret <= 0 {
            return None;
        }
        let d = self.desc_of(c, 0)?;
        Some(self.io(c.time_ns, d, off as u64, c.ret as u64, write))
    }

    fn io(&mut self, time_ns: u64, d: usize, offset: u64, len: u64, write: bool) -> FileIo {
        let path = self.descs[d].path.clone();
        let size = self.sizes.entry(path.clone()).or_insert(0);
        *size = (*size).max(offset + len);
        FileIo {
            time_ns,
            path,
            offset,
            len,
            write,
        }
    }
}

/// `"a\"b"` -> `a"b` (strace's C-style quoting; only the escapes paths need).
fn unquote(s: &str) -> String {
    let inner = s.trim_end_matches("...").trim_matches('"');
    let mut out = String::with_capacity(inner.len());
    let mut it = inner.chars();
    while let Some(ch) = it.next() {
        if ch == '\\' {
            if let Some(n) = it.next() {
                out.push(n);
            }
        } else {
            out.push(ch);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::strace::StraceParser;
    use super::*;

    /// Feed fixture lines; collect `(path, offset, len, write)`.
    fn run(lines: &str) -> Vec<(String, u64, u64, bool)> {
        let mut p = StraceParser::new();
        let mut t = FdTable::new();
        let mut out = Vec::new();
        for l in lines.lines() {
            if let Some(c) = p.line(l).unwrap() {
                if let Some(io) = t.apply(&c) {
                    out.push((io.path.to_string(), io.offset, io.len, io.write));
                }
            }
        }
        out
    }

    #[test]
    fn dd_seek_then_writes_follow_the_position() {
        let got = run(
            r#"1 1.0 openat(AT_FDCWD</t>, "F", O_RDWR|O_CREAT, 0666) = 3</t/F>
1 1.1 dup2(3</t/F>, 1</dev/pts/0>) = 1</t/F>
1 1.2 close(3</t/F>) = 0
1 1.3 lseek(1</t/F>, 20480, SEEK_CUR) = 20480
1 1.4 read(0</dev/zero>, ""..., 4096) = 4096
1 1.5 write(1</t/F>, ""..., 4096) = 4096
1 1.6 write(1</t/F>, ""..., 4096) = 1000"#,
        );
        assert_eq!(
            got,
            vec![
                ("/dev/zero".into(), 0, 4096, false),
                ("/t/F".into(), 20480, 4096, true),
                ("/t/F".into(), 24576, 1000, true),
            ]
        );
    }

    #[test]
    fn positional_calls_leave_the_position_alone() {
        let got = run(r#"1 1.0 openat(AT_FDCWD</t>, "F", O_RDWR) = 3</t/F>
1 1.1 pwrite64(3</t/F>, "x"..., 512, 8192) = 512
1 1.2 write(3</t/F>, "x"..., 10) = 10
1 1.3 preadv(3</t/F>, [{iov_base="", iov_len=4}], 1, 100) = 4
1 1.4 preadv2(3</t/F>, [{iov_base="", iov_len=4}], 1, -1, 0) = 4
1 1.5 readv(3</t/F>, [{iov_base="", iov_len=8}], 1) = 8
1 1.6 pread64(3</t/F>, 0x7f, 4096, 0) = -1 EIO (Input/output error)"#);
        assert_eq!(
            got,
            vec![
                ("/t/F".into(), 8192, 512, true),
                ("/t/F".into(), 0, 10, true),
                ("/t/F".into(), 100, 4, false),
                ("/t/F".into(), 10, 4, false),
                ("/t/F".into(), 14, 8, false),
            ]
        );
    }

    #[test]
    fn dup_shares_position_and_append_goes_to_the_end() {
        let got = run(
            r#"1 1.0 open("/t/L", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3</t/L>
1 1.1 write(3</t/L>, "x"..., 100) = 100
1 1.2 fcntl(3</t/L>, F_DUPFD_CLOEXEC, 10) = 10</t/L>
1 1.3 write(10</t/L>, "x"..., 50) = 50
1 1.4 dup(3</t/L>) = 4</t/L>
1 1.5 close(3</t/L>) = 0
1 1.6 open("/t/L", O_WRONLY|O_APPEND) = 3</t/L>
1 1.7 lseek(4</t/L>, 0, SEEK_SET) = 0
1 1.8 write(3</t/L>, "x"..., 7) = 7
1 1.9 write(4</t/L>, "x"..., 1) = 1"#,
        );
        assert_eq!(
            got,
            vec![
                ("/t/L".into(), 0, 100, true),
                ("/t/L".into(), 100, 50, true),
                ("/t/L".into(), 150, 7, true),
                ("/t/L".into(), 0, 1, true),
            ]
        );
    }

    #[test]
    fn fork_copies_the_table_and_threads_share_it() {
        let got = run(r#"1 1.0 openat(AT_FDCWD</t>, "F", O_RDONLY) = 3</t/F>
1 1.1 clone(child_stack=NULL, flags=CLONE_CHILD_SETTID|SIGCHLD) = 2
1 1.2 clone(child_stack=0x7f, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_THREAD) = 3
3 1.3 openat(AT_FDCWD</t>, "G", O_RDONLY) = 5</t/G>
1 1.4 read(5</t/G>, ""..., 10) = 10
2 1.5 read(3</t/F>, ""..., 10) = 10
1 1.6 read(3</t/F>, ""..., 10) = 10
2 1.7 read(5, ""..., 10) = 10"#);
        assert_eq!(
            got,
            vec![
                ("/t/G".into(), 0, 10, false),
                ("/t/F".into(), 0, 10, false),
                ("/t/F".into(), 10, 10, false),
            ]
        );
    }

    #[test]
    fn seek_end_and_ftruncate_set_the_size_for_append() {
        let got = run(
            r#"1 1.0 openat(AT_FDCWD</t>, "F", O_RDWR|O_APPEND) = 3</t/F>
1 1.1 lseek(3</t/F>, 0, SEEK_END) = 9000
1 1.2 write(3</t/F>, "x"..., 100) = 100
1 1.3 ftruncate(3</t/F>, 50) = 0
1 1.4 write(3</t/F>, "x"..., 10) = 10"#,
        );
        assert_eq!(
            got,
            vec![
                ("/t/F".into(), 9000, 100, true),
                ("/t/F".into(), 50, 10, true)
            ]
        );
    }
}
