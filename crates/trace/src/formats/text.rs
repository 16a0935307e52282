//! Line-oriented decoding shared by every text format.
//!
//! [`Lines`] splits a byte stream into lines with one large reusable buffer (no
//! allocation per line; lines are borrowed slices). A line longer than
//! [`MAX_LINE`] bytes is an error (binary data read as text, or a file without line
//! breaks), which keeps memory bounded whatever the input. `\r\n` endings are
//! accepted. A final line without a terminator is reported apart: every tool that
//! writes a trace ends its last line, so a missing newline means the file was cut,
//! possibly in the middle of a record that would still parse.
//!
//! [`TextReader`] drives a [`LineFormat`] over those lines and implements
//! [`RequestReader`]: blank lines are skipped everywhere, malformed lines become
//! `file:line: expected X, found Y` errors or, with `skip_invalid`, are skipped and
//! counted.

use super::source::Stream;
use crate::error::{Error, Result};
use crate::reader::{RequestReader, TraceMeta, BATCH};
use crate::request::Request;
use std::io::Read;
use std::path::PathBuf;

/// Longest accepted line in bytes.
pub(crate) const MAX_LINE: usize = 64 * 1024;

/// Size of the read buffer.
const BUF: usize = 1 << 20;

/// One text format: turns one line into zero or more requests.
pub(crate) trait LineFormat: Send {
    /// Decode line `line_no` (1-based; `line` has no terminator and is not blank),
    /// appending its requests to `out`. Lines that carry no request (headers,
    /// comments, other event kinds) return `Ok(())` without appending. On error,
    /// return the message (`expected X, found Y`); the caller adds file and line.
    fn parse(&mut self, line_no: u64, line: &[u8], out: &mut Vec<Request>) -> Result<(), String>;
}

/// What [`Lines::next_line`] found.
pub(crate) enum Next<'a> {
    /// A line and its 1-based number.
    Line(u64, &'a [u8]),
    /// Line `n` is longer than [`MAX_LINE`]; its remainder is discarded.
    TooLong(u64),
    /// The input ends inside line `n`, which has no terminator.
    Unterminated(u64, &'a [u8]),
    /// End of input.
    End,
}

/// A line splitter over a stream with one fixed buffer.
pub(crate) struct Lines {
    src: Stream,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    eof: bool,
    line: u64,
    /// Inside an over-long line whose remainder must be dropped.
    discarding: bool,
}

impl Lines {
    /// Split `src` into lines.
    pub(crate) fn new(src: Stream) -> Lines {
        Lines {
            src,
            buf: vec![0; BUF].into_boxed_slice(),
            start: 0,
            end: 0,
            eof: false,
            line: 0,
            discarding: false,
        }
    }

    /// Move the unread bytes to the front and read more; false at end of input.
    fn refill(&mut self) -> std::io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        loop {
            match self.src.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The next line.
    pub(crate) fn next_line(&mut self) -> std::io::Result<Next<'_>> {
        loop {
            let avail = &self.buf[self.start..self.end];
            if let Some(nl) = avail.iter().position(|&b| b == b'\n') {
                let s = self.start;
                self.start += nl + 1;
                if self.discarding {
                    self.discarding = false;
                    continue;
                }
                self.line += 1;
                let mut line = &self.buf[s..s + nl];
                if let [rest @ .., b'\r'] = line {
                    line = rest;
                }
                if line.len() > MAX_LINE {
                    return Ok(Next::TooLong(self.line));
                }
                return Ok(Next::Line(self.line, line));
            }
            if avail.len() > MAX_LINE {
                // No terminator within the limit: report once, drop the rest.
                self.start = self.end;
                if !self.discarding {
                    self.discarding = true;
                    self.line += 1;
                    return Ok(Next::TooLong(self.line));
                }
                continue;
            }
            if !self.refill()? {
                if self.start == self.end || self.discarding {
                    self.start = self.end;
                    return Ok(Next::End);
                }
                let s = self.start;
                self.start = self.end;
                self.line += 1;
                return Ok(Next::Unterminated(self.line, &self.buf[s..self.end]));
            }
        }
    }
}

/// A [`RequestReader`] over a text format.
pub(crate) struct TextReader<P: LineFormat> {
    lines: Lines,
    parser: P,
    meta: TraceMeta,
    skip_invalid: bool,
    skipped: u64,
}

impl<P: LineFormat> TextReader<P> {
    /// Read `src` with `parser`.
    pub(crate) fn new(src: Stream, parser: P, meta: TraceMeta, skip_invalid: bool) -> Self {
        TextReader {
            lines: Lines::new(src),
            parser,
            meta,
            skip_invalid,
            skipped: 0,
        }
    }

    fn path(&self) -> PathBuf {
        self.meta.path.clone()
    }
}

impl<P: LineFormat> RequestReader for TextReader<P> {
    fn read_batch(&mut self, out: &mut Vec<Request>) -> Result<bool> {
        out.clear();
        // One line yields at most two requests (lackey `M`).
        while out.len() + 2 <= BATCH {
            let next = self
                .lines
                .next_line()
                .map_err(|e| Error::io(self.meta.path.clone(), e))?;
            let (no, line) = match next {
                Next::End => break,
                Next::TooLong(no) => {
                    if self.skip_invalid {
                        self.skipped += 1;
                        continue;
                    }
                    return Err(Error::parse(
                        self.path(),
                        no,
                        format!(
                            "expected a text line of at most {MAX_LINE} bytes, found a longer one \
                             (binary data, or the wrong --format?)"
                        ),
                    ));
                }
                Next::Unterminated(no, line) => {
                    if line.iter().all(|&b| super::fields::is_blank(b)) {
                        continue;
                    }
                    if self.skip_invalid {
                        self.skipped += 1;
                        continue;
                    }
                    return Err(Error::parse(
                        self.path(),
                        no,
                        "expected a line ending in a newline, found the end of the file \
                         (cut in the middle of a record?)",
                    ));
                }
                Next::Line(no, line) => (no, line),
            };
            if line.iter().all(|&b| super::fields::is_blank(b)) {
                continue;
            }
            let before = out.len();
            let parsed = self.parser.parse(no, line, out);
            if let Err(msg) = parsed.and_then(|()| super::check_all(&out[before..])) {
                out.truncate(before);
                if self.skip_invalid {
                    self.skipped += 1;
                } else {
                    return Err(Error::parse(self.meta.path.clone(), no, msg));
                }
            }
        }
        Ok(!out.is_empty())
    }

    fn meta(&self) -> &TraceMeta {
        &self.meta
    }

    fn skipped(&self) -> u64 {
        self.skipped
    }
}

/// Whether `parser` accepts every complete line of `sample` (the start of a
/// stream; `complete` says whether it is the whole stream, else its last partial
/// line is ignored) and finds at least one record-like line in it. Used by format
/// detection.
pub(crate) fn accepts(mut parser: impl LineFormat, sample: &[u8], complete: bool) -> bool {
    let usable = if complete {
        sample
    } else {
        match sample.iter().rposition(|&b| b == b'\n') {
            Some(p) => &sample[..p],
            None => return false,
        }
    };
    let mut out = Vec::new();
    let mut seen = 0;
    for (i, line) in usable.split(|&b| b == b'\n').enumerate().take(64) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(|&b| super::fields::is_blank(b)) {
            continue;
        }
        if parser.parse(i as u64 + 1, line, &mut out).is_err() {
            return false;
        }
        seen += 1;
    }
    seen > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn collect(data: &[u8]) -> Vec<String> {
        let mut l = Lines::new(Box::new(Cursor::new(data.to_vec())));
        let mut v = vec![];
        loop {
            match l.next_line().unwrap() {
                Next::Line(n, s) => v.push(format!("{n}:{}", String::from_utf8_lossy(s))),
                Next::TooLong(n) => v.push(format!("{n}:TOO LONG")),
                Next::Unterminated(n, s) => {
                    v.push(format!("{n}:{} (cut)", String::from_utf8_lossy(s)))
                }
                Next::End => return v,
            }
        }
    }

    #[test]
    fn lines_and_numbers() {
        assert_eq!(
            collect(b"a\r\nb\n\nc"),
            vec!["1:a", "2:b", "3:", "4:c (cut)"]
        );
        assert_eq!(collect(b""), Vec::<String>::new());
        let mut long = vec![b'x'; MAX_LINE + 10];
        long.extend_from_slice(b"\nok\n");
        assert_eq!(collect(&long), vec!["1:TOO LONG", "2:ok"]);
        assert_eq!(collect(b"a\n"), vec!["1:a"]);
        // Longer than the whole buffer, without any newline.
        let huge = vec![b'y'; BUF * 2 + 5];
        assert_eq!(collect(&huge), vec!["1:TOO LONG"]);
    }

    #[test]
    fn lines_across_buffer_refills() {
        let mut data = Vec::new();
        for i in 0..200_000 {
            data.extend_from_slice(format!("{i}\n").as_bytes());
        }
        let v = collect(&data);
        assert_eq!(v.len(), 200_000);
        assert_eq!(v[199_999], "200000:199999");
    }
}
