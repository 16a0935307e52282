//! Parser of `strace -f -ttt -T -y -o FILE` output: one completed system call per
//! [`Syscall`], with `<unfinished ...>` / `<... NAME resumed>` halves joined per pid.
//!
//! A line is `[PID ]TIME NAME(ARGS) = RET[<PATH>] [ERRNO (text)] [<DURATION>]`.
//! `TIME` is `-tt` wall-clock time (`HH:MM:SS.micros`, a wrap past midnight is
//! carried forward) or `-ttt` seconds since the epoch. With `-y` every descriptor
//! argument and descriptor result carries its path in angle brackets
//! (`3</tmp/f>`, `5<socket:[123]>`). Signal (`--- SIG...`) and exit (`+++ ...`) lines
//! carry no call and yield nothing. The parser is pure: text in, calls out.

use rustc_hash::FxHashMap;

/// One completed system call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Syscall {
    /// Thread id (0 when strace ran without `-f` and printed none).
    pub pid: u32,
    /// Start time in ns: since the epoch (`-ttt`) or since midnight (`-tt`, carried
    /// past midnight).
    pub time_ns: u64,
    /// Call name (`openat`, `pread64`, ...).
    pub name: String,
    /// Top-level arguments as printed (`3</tmp/f>`, `"abc"...`, `O_RDONLY`).
    pub args: Vec<String>,
    /// Return value (`-1` on error; 0 when strace printed `?`).
    pub ret: i64,
    /// The `-y` path of a returned descriptor (`= 3</tmp/f>`).
    pub ret_path: Option<String>,
}

impl Syscall {
    /// Argument `i` as a descriptor and its `-y` path: `3</tmp/f>` -> `(3, Some("/tmp/f"))`.
    pub fn fd_arg(&self, i: usize) -> Option<(i64, Option<&str>)> {
        split_fd(self.args.get(i)?)
    }

    /// Argument `i` as an integer (decimal, or hex with `0x`).
    pub fn int_arg(&self, i: usize) -> Option<i64> {
        parse_int(self.args.get(i)?)
    }
}

/// Split `3</tmp/f>` into the number and the path.
pub fn split_fd(s: &str) -> Option<(i64, Option<&str>)> {
    let s = s.strip_suffix(DELETED).unwrap_or(s);
    match s.find('<') {
        Some(i) if s.ends_with('>') => Some((parse_int(&s[..i])?, Some(&s[i + 1..s.len() - 1]))),
        Some(_) => None,
        None => Some((parse_int(s)?, None)),
    }
}

/// What strace's `-y` prints after the path of an unlinked file.
const DELETED: &str = "(deleted)";

fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let v = match s.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16).ok()?,
        None => s.parse::<i64>().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// Streaming parser state: halves of calls interrupted by another thread's output.
#[derive(Default)]
pub struct StraceParser {
    /// Per pid: the start time and the text before `<unfinished ...>`.
    pending: FxHashMap<u32, (u64, String)>,
    /// `-tt` midnight handling: last time seen and days carried.
    last_ns: u64,
    day_ns: u64,
}

const DAY_NS: u64 = 86_400 * 1_000_000_000;

impl StraceParser {
    /// A parser with no pending calls.
    pub fn new() -> StraceParser {
        StraceParser::default()
    }

    /// Parse one line. `Ok(None)` for lines that complete no call (signals, exits,
    /// the first half of an interrupted call); `Err` says what was expected.
    pub fn line(&mut self, line: &str) -> Result<Option<Syscall>, String> {
        let line = line.trim_end();
        if line.is_empty() {
            return Ok(None);
        }
        let (pid, rest) = match line.split_once(' ') {
            Some((p, r)) if !p.contains([':', '.']) && p.bytes().all(|b| b.is_ascii_digit()) => (
                p.parse::<u32>().map_err(|_| bad("a pid", p))?,
                r.trim_start(),
            ),
            _ => (0, line),
        };
        let (time, body) = rest
            .split_once(' ')
            .ok_or_else(|| bad("`TIME CALL(...)`", rest))?;
        let time_ns = self.time(time)?;
        if body.starts_with("+++") || body.starts_with("---") {
            return Ok(None);
        }
        if let Some(head) = body.strip_suffix("<unfinished ...>") {
            self.pending.insert(pid, (time_ns, head.to_string()));
            return Ok(None);
        }
        if let Some(r) = body.strip_prefix("<... ") {
            let (_, tail) = r
                .split_once(" resumed>")
                .ok_or_else(|| bad("`<... NAME resumed>`", body))?;
            let Some((start, head)) = self.pending.remove(&pid) else {
                // Its first half came before the trace began (or was never printed).
                return Ok(None);
            };
            let joined = format!("{}{}", head.trim_end(), tail.trim_start());
            return parse_call(pid, start, &joined).map(Some);
        }
        parse_call(pid, time_ns, body).map(Some)
    }

    fn time(&mut self, t: &str) -> Result<u64, String> {
        let (whole, frac) = t.split_once('.').unwrap_or((t, "0"));
        let mut frac_ns: u64 = 0;
        let mut digits = 0;
        for b in frac.bytes() {
            if !b.is_ascii_digit() || digits == 9 {
                return Err(bad(
                    "a time like `07:21:45.473142` or `1700000000.473142`",
                    t,
                ));
            }
            frac_ns = frac_ns * 10 + u64::from(b - b'0');
            digits += 1;
        }
        frac_ns *= 10u64.pow(9 - digits);
        let secs = if whole.contains(':') {
            let p: Vec<&str> = whole.split(':').collect();
            let [h, m, s] = p[..] else {
                return Err(bad("a time like `07:21:45.473142`", t));
            };
            let n = |x: &str| x.parse::<u64>().map_err(|_| bad("a time", t));
            n(h)? * 3600 + n(m)? * 60 + n(s)?
        } else {
            whole
                .parse::<u64>()
                .map_err(|_| bad("a time like `1700000000.473142`", t))?
        };
        let mut ns = secs * 1_000_000_000 + frac_ns + self.day_ns;
        if whole.contains(':') && ns + DAY_NS / 2 < self.last_ns {
            self.day_ns += DAY_NS;
            ns += DAY_NS;
        }
        self.last_ns = ns;
        Ok(ns)
    }
}

fn bad(what: &str, found: &str) -> String {
    let found: String = found.chars().take(60).collect();
    format!("expected {what}, found `{found}`")
}

/// Parse `NAME(ARGS) = RET...`.
fn parse_call(pid: u32, time_ns: u64, body: &str) -> Result<Syscall, String> {
    let open = body
        .find('(')
        .ok_or_else(|| bad("a system call `NAME(...)`", body))?;
    let name = &body[..open];
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return Err(bad("a system call name", body));
    }
    let (args, after) = split_args(&body[open + 1..]).ok_or_else(|| bad("`(...)`", body))?;
    let after = after.trim_start();
    let ret_text = after
        .strip_prefix('=')
        .ok_or_else(|| bad("` = RESULT` after the arguments", after))?
        .trim_start();
    let tok = ret_text.split(' ').next().unwrap_or("");
    let (ret, ret_path) = if tok == "?" {
        (0, None)
    } else {
        let (v, p) = split_fd(tok).ok_or_else(|| bad("a result", tok))?;
        (v, p.map(str::to_string))
    };
    Ok(Syscall {
        pid,
        time_ns,
        name: name.to_string(),
        args,
        ret,
        ret_path,
    })
}

/// Split the text after `(` into top-level arguments, up to the matching `)`;
/// returns them and the text after `)`. Quoted strings (with escapes), brackets and
/// `-y` paths (`3<...>`) are kept whole.
fn split_args(s: &str) -> Option<(Vec<String>, &str)> {
    let b = s.as_bytes();
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'<' if i > 0 && b[i - 1].is_ascii_digit() => {
                // A `-y` path: runs to the `>` that ends the argument (strace adds
                // `(deleted)` after it for an unlinked file).
                while i < b.len()
                    && !(b[i] == b'>'
                        && matches!(b.get(i + 1), Some(b',' | b')' | b' ' | b']' | b'}') | None))
                {
                    if b[i..].starts_with(b">(deleted)") {
                        i += DELETED.len();
                        break;
                    }
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            b')' if depth == 0 => {
                let last = s[start..i].trim();
                if !last.is_empty() {
                    args.push(last.to_string());
                }
                return Some((args, &s[i + 1..]));
            }
            b')' => depth -= 1,
            b',' if depth == 0 => {
                args.push(s[start..i].trim().to_string());
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_call_with_paths() {
        let mut p = StraceParser::new();
        let c = p
            .line(r#"21506 07:21:45.473631 write(1</tmp/capx/F>, "\0\0\"),"..., 4096) = 4096 <0.000022>"#)
            .unwrap()
            .unwrap();
        assert_eq!(c.pid, 21506);
        assert_eq!(
            c.time_ns,
            (7 * 3600 + 21 * 60 + 45) * 1_000_000_000 + 473_631_000
        );
        assert_eq!(c.name, "write");
        assert_eq!(c.args.len(), 3);
        assert_eq!(c.fd_arg(0), Some((1, Some("/tmp/capx/F"))));
        assert_eq!(c.int_arg(2), Some(4096));
        assert_eq!(c.ret, 4096);
    }

    #[test]
    fn open_result_path_and_errors() {
        let mut p = StraceParser::new();
        let c = p
            .line(r#"1700000000.000001 openat(AT_FDCWD</tmp/capx>, "F", O_RDWR|O_CREAT, 0666) = 3</tmp/capx/F> <0.000036>"#)
            .unwrap()
            .unwrap();
        assert_eq!(c.pid, 0);
        assert_eq!(c.time_ns, 1_700_000_000_000_001_000);
        assert_eq!(c.args[2], "O_RDWR|O_CREAT");
        assert_eq!((c.ret, c.ret_path.as_deref()), (3, Some("/tmp/capx/F")));
        let e = p
            .line(r#"9 1.5 openat(AT_FDCWD</x>, "/nope", O_RDONLY) = -1 ENOENT (No such file or directory) <0.000015>"#)
            .unwrap()
            .unwrap();
        assert_eq!((e.ret, e.ret_path), (-1, None));
    }

    #[test]
    fn vectors_and_signals() {
        let mut p = StraceParser::new();
        let c = p
            .line(r#"5 1.0 pwritev(3</f>, [{iov_base="ab,c", iov_len=4}, {iov_base="d)", iov_len=2}], 2, 8192) = 6 <0.00001>"#)
            .unwrap()
            .unwrap();
        assert_eq!(c.args.len(), 4);
        assert_eq!(c.int_arg(3), Some(8192));
        assert_eq!(
            p.line("5 1.1 --- SIGCHLD {si_signo=SIGCHLD} ---").unwrap(),
            None
        );
        assert_eq!(p.line("5 1.2 +++ exited with 0 +++").unwrap(), None);
    }

    #[test]
    fn unfinished_and_resumed_pairs_across_pids() {
        let mut p = StraceParser::new();
        assert_eq!(
            p.line("10 1.000000 pread64(3</f>,  <unfinished ...>")
                .unwrap(),
            None
        );
        let other = p
            .line("11 1.000100 lseek(4</g>, 0, SEEK_END) = 77 <0.00001>")
            .unwrap()
            .unwrap();
        assert_eq!((other.pid, other.ret), (11, 77));
        let c = p
            .line(r#"10 1.000200 <... pread64 resumed>"xyz", 3, 4096) = 3 <0.0002>"#)
            .unwrap()
            .unwrap();
        assert_eq!(c.pid, 10);
        assert_eq!(c.time_ns, 1_000_000_000, "the call's start time is kept");
        assert_eq!(c.fd_arg(0), Some((3, Some("/f"))));
        assert_eq!(c.int_arg(3), Some(4096));
        assert_eq!(c.ret, 3);
    }

    #[test]
    fn midnight_wrap_is_carried() {
        let mut p = StraceParser::new();
        let a = p.line("23:59:59.900000 close(3) = 0").unwrap().unwrap();
        let b = p.line("00:00:00.100000 close(4) = 0").unwrap().unwrap();
        assert_eq!(b.time_ns - a.time_ns, 200_000_000);
    }

    #[test]
    fn malformed_lines_say_what_was_expected() {
        let mut p = StraceParser::new();
        let e = p.line("12 07:00:00.0 garbage here").unwrap_err();
        assert!(e.contains("expected a system call"), "{e}");
        let e = p.line("12 xx:00:00.0 close(3) = 0").unwrap_err();
        assert!(e.contains("expected a time"), "{e}");
    }
}
