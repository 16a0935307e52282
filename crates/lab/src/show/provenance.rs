//! Where a set of results came from: the wafer version and commit that computed it,
//! when, by which command, on which host. It opens the report and is stored as
//! `provenance.json` beside the results, so a figure found later can be traced back
//! to the build and the invocation that drew it.
//!
//! The commit is embedded at build time (`build.rs`: short hash, `-dirty` when
//! tracked files differed, `unknown` outside a git checkout). The date is UTC in
//! RFC 3339, computed from the system clock with std alone.

use std::fmt::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::plot::esc;
use crate::spec::VERSION;

/// The git commit wafer was built from (`unknown` outside a checkout).
pub const COMMIT: &str = env!("WAFER_GIT_COMMIT");

/// Provenance of one run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// wafer version (the crate version).
    pub version: String,
    /// Git commit of the build: short hash, `-dirty` suffix, or `unknown`.
    pub commit: String,
    /// When the results were written, UTC, RFC 3339 (`2025-01-31T12:00:00Z`).
    pub date: String,
    /// The command line, shell-quoted so it can be pasted back into a shell.
    pub command: String,
    /// Host name.
    pub hostname: String,
    /// Operating system, kernel release and architecture (`linux 6.8.0 x86_64`).
    pub os: String,
    /// Logical CPUs available to the process.
    pub cpus: usize,
}

impl Provenance {
    /// The provenance of this process, now.
    pub fn here() -> Provenance {
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let argv: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let kernel = read_trimmed("/proc/sys/kernel/osrelease")
            .or_else(|| uname("-r"))
            .unwrap_or_default();
        let os = [std::env::consts::OS, &kernel, std::env::consts::ARCH]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        Provenance {
            version: VERSION.to_string(),
            commit: COMMIT.to_string(),
            date: rfc3339(secs),
            command: argv
                .iter()
                .map(|a| shell_quote(a))
                .collect::<Vec<_>>()
                .join(" "),
            hostname: read_trimmed("/proc/sys/kernel/hostname")
                .or_else(|| uname("-n"))
                .unwrap_or_else(|| "unknown".into()),
            os,
            cpus: std::thread::available_parallelism().map_or(0, |n| n.get()),
        }
    }

    /// Label and value of each field, in display order.
    pub fn rows(&self) -> [(&'static str, String); 6] {
        [
            (
                "wafer",
                format!("{} (commit {})", self.version, self.commit),
            ),
            ("date (UTC)", self.date.clone()),
            ("command", self.command.clone()),
            ("host", self.hostname.clone()),
            ("OS", self.os.clone()),
            ("CPUs", self.cpus.to_string()),
        ]
    }

    /// The HTML block that opens the report: `<table id="provenance">`.
    pub fn html(&self) -> String {
        let mut h = String::from("<table id=\"provenance\" class=\"provenance\">");
        for (k, v) in self.rows() {
            let v = if k == "command" {
                format!("<code>{}</code>", esc(&v))
            } else {
                esc(&v)
            };
            let _ = write!(h, "<tr><th class=l>{k}</th><td class=l>{v}</td></tr>");
        }
        h.push_str("</table>");
        h
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    let s = std::fs::read_to_string(path).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

fn uname(flag: &str) -> Option<String> {
    let out = std::process::Command::new("uname")
        .arg(flag)
        .output()
        .ok()?;
    let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !s.is_empty()).then_some(s)
}

/// `secs` since the Unix epoch as RFC 3339 UTC (`1970-01-01T00:00:00Z`).
///
/// The civil date comes from the day count with H. Hinnant's `civil_from_days`
/// ("chrono-Compatible Low-Level Date Algorithms", 2013), exact in the proleptic
/// Gregorian calendar.
pub fn rfc3339(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// `s` as one POSIX shell word: unchanged when it holds only characters no shell
/// treats specially, else in single quotes (a quote inside becoming `'\''`).
pub fn shell_quote(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-+=.,/:@%".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        // 2000-02-29 (a leap day of a century leap year) 12:34:56.
        assert_eq!(rfc3339(951_827_696), "2000-02-29T12:34:56Z");
        assert_eq!(rfc3339(1_735_689_599), "2024-12-31T23:59:59Z");
        assert_eq!(rfc3339(4_107_542_400), "2100-03-01T00:00:00Z");
    }

    #[test]
    fn arguments_are_quoted_only_when_needed() {
        assert_eq!(shell_quote("wafer"), "wafer");
        assert_eq!(shell_quote("out/exp-1.toml"), "out/exp-1.toml");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote("$HOME"), "'$HOME'");
    }

    #[test]
    fn here_is_filled_in() {
        let p = Provenance::here();
        assert_eq!(p.version, VERSION);
        assert!(!p.commit.is_empty() && !p.hostname.is_empty() && p.cpus > 0);
        assert!(p.date.ends_with('Z') && p.date.len() == 20, "{}", p.date);
        assert!(p.html().contains("id=\"provenance\""));
    }
}
