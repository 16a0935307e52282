//! Capturing before-cache traces from real programs: `strace` output in, requests
//! and a file layout out (paper 000, TS-CLOCK: Kang, Min, Eom, IEEE MASCOTS
//! 2014, Sec. IV-A, collected its before-cache traces from a modified kernel; this
//! does the same from user space).
//!
//! The pipeline is [`strace::StraceParser`] (lines -> system calls),
//! [`fdtable::FdTable`] (calls -> file I/O with positions), [`layout::Layout`]
//! (file I/O -> addresses in one space, with [`layout::PathFilter`] choosing the
//! files). [`convert`] runs it over a whole log and is pure; [`run`] spawns strace.
//!
//! What strace sees is the program's own calls, i.e. a trace *before* the operating
//! system's page cache: reads served by the page cache are still reads here.
//! Memory-mapped file I/O (`mmap` then loads and stores) makes no system calls and is
//! invisible, as are `sendfile`, `splice` and `copy_file_range`, and `io_uring`.

pub mod fdtable;
pub mod layout;
pub mod run;
pub mod strace;

use crate::error::{Error, Result};
use crate::request::{Op, Request};
use std::io::BufRead;
use std::path::Path;

pub use layout::{LayoutFile, PathFilter, DEFAULT_BLOCK};

/// How a log is converted.
#[derive(Clone, Debug)]
pub struct CaptureOptions {
    /// Slot / extent size of the layout in bytes.
    pub block: u64,
    /// Which files count.
    pub filter: PathFilter,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            block: DEFAULT_BLOCK,
            filter: PathFilter::default(),
        }
    }
}

/// A converted capture.
#[derive(Clone, Debug)]
pub struct Capture {
    /// Requests in the order the calls completed; times in ns from the first call
    /// of the log (a call interrupted by another thread keeps its start time).
    pub requests: Vec<Request>,
    /// Where each file went.
    pub layout: LayoutFile,
    /// System calls parsed.
    pub calls: u64,
    /// File reads and writes left out by the filter (sockets, pipes, pseudo files,
    /// `--include`/`--exclude`).
    pub skipped: u64,
}

/// Convert a whole strace log (`name` is used in error messages).
pub fn convert(input: impl BufRead, name: &Path, opts: &CaptureOptions) -> Result<Capture> {
    if opts.block == 0 {
        return Err(Error::Invalid("block size must be positive".into()));
    }
    let mut parser = strace::StraceParser::new();
    let mut fds = fdtable::FdTable::new();
    let mut layout = layout::Layout::new(opts.block);
    let mut requests = Vec::new();
    let (mut calls, mut skipped) = (0u64, 0u64);
    let mut first: Option<u64> = None;
    for (no, line) in input.lines().enumerate() {
        let line = line.map_err(|e| Error::io(name, e))?;
        let call = parser.line(&line).map_err(|msg| Error::Parse {
            path: name.to_path_buf(),
            line: no as u64 + 1,
            msg,
        })?;
        let Some(call) = call else { continue };
        calls += 1;
        let t0 = *first.get_or_insert(call.time_ns);
        let Some(io) = fds.apply(&call) else { continue };
        if !opts.filter.accepts(&io.path) {
            skipped += 1;
            continue;
        }
        let op = if io.write { Op::Write } else { Op::Read };
        layout.map(
            &io.path,
            io.offset,
            io.len,
            op,
            io.time_ns.saturating_sub(t0),
            &mut requests,
        );
    }
    Ok(Capture {
        requests,
        layout: layout.to_file(),
        calls,
        skipped,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_to_requests_with_layout_and_times() {
        let log = r#"7 10.000000 openat(AT_FDCWD</t>, "/t/a", O_RDWR|O_CREAT, 0644) = 3</t/a>
7 10.000010 pwrite64(3</t/a>, ""..., 8192, 4096) = 8192 <0.00001>
7 10.000020 write(4<socket:[99]>, ""..., 10) = 10
7 10.000030 openat(AT_FDCWD</t>, "/t/b", O_RDONLY) = 5</t/b>
7 10.000040 read(5</t/b>, ""..., 100) = 100
7 10.000050 pread64(3</t/a>, ""..., 4096, 0) = 4096
"#;
        let opts = CaptureOptions {
            block: 4 << 20,
            filter: PathFilter::default(),
        };
        let c = convert(log.as_bytes(), Path::new("log"), &opts).unwrap();
        let got: Vec<(u64, Op, u64, u32)> = c
            .requests
            .iter()
            .map(|r| (r.time_ns, r.op, r.offset, r.len))
            .collect();
        assert_eq!(
            got,
            vec![
                (10_000, Op::Write, 4096, 8192),
                (40_000, Op::Read, 4 << 20, 100),
                (50_000, Op::Read, 0, 4096),
            ]
        );
        assert_eq!((c.calls, c.skipped), (6, 1));
        assert_eq!(c.layout.files.len(), 2);
    }

    #[test]
    fn bad_line_names_file_and_line() {
        let e = convert(
            "1 1.0 close(3) = 0\n1 1.1 what\n".as_bytes(),
            Path::new("x.strace"),
            &CaptureOptions::default(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("x.strace:2: expected"), "{e}");
    }
}
