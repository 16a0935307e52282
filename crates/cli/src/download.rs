//! A resumable download of one byte range into a `.part` file: a cut download (a
//! lost connection, Ctrl-C) continues where it stopped instead of starting again,
//! which matters for traces of megabytes on a slow link. `https://` and `http://` go
//! through ureq (rustls, no system TLS library), with an HTTP `Range` request;
//! `file://` reads a local mirror (what the tests use: no test needs the network).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The `.part` file a download of `dest` grows in.
pub fn part_of(dest: &Path) -> PathBuf {
    let mut p = dest.as_os_str().to_owned();
    p.push(".part");
    PathBuf::from(p)
}

/// Append bytes `offset + have .. offset + size` of `url` to `part` (which holds the
/// first `have` bytes): the whole trace on success. A source that ends early leaves
/// what arrived in `part`, and the error says that running again resumes.
pub fn fetch_range(url: &str, offset: u64, size: u64, part: &Path) -> anyhow::Result<()> {
    let mut have = std::fs::metadata(part).map(|m| m.len()).unwrap_or(0);
    if have > size {
        // Not a prefix of this trace: start again.
        std::fs::remove_file(part)?;
        have = 0;
    }
    if have == size {
        return Ok(());
    }
    let want = size - have;
    let mut out = OpenOptions::new().create(true).append(true).open(part)?;
    let from = offset + have;
    let got = match url.strip_prefix("file://") {
        Some(path) => {
            let mut f = File::open(path).map_err(|e| anyhow::anyhow!("{path}: {e}"))?;
            f.seek(SeekFrom::Start(from))?;
            std::io::copy(&mut f.take(want), &mut out)?
        }
        // What arrived before a cut stays in `part`.
        None => http_range(url, from, want, &mut out).map_err(|e| {
            e.context(format!(
                "fetching {url} failed (what arrived is kept: run the same command again to resume)"
            ))
        })?,
    };
    out.sync_all()?;
    if got < want {
        anyhow::bail!(
            "{url} ended after {} of {size} bytes; run the same command again to resume",
            have + got
        );
    }
    Ok(())
}

/// Copy `want` bytes of `url` from byte `from` into `out`; the count copied.
fn http_range(url: &str, from: u64, want: u64, out: &mut File) -> anyhow::Result<u64> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(30)))
        // Per read, not for the whole file: a slow link still finishes.
        .timeout_recv_body(None)
        .timeout_recv_response(Some(Duration::from_secs(60)))
        .user_agent(concat!("wafer/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let range = format!("bytes={from}-{}", from + want - 1);
    let resp = agent.get(url).header("Range", &range).call()?;
    // 206: the range itself; 200: the server ignored the range and sends the whole
    // file, whose first `from` bytes are skipped.
    let whole = resp.status().as_u16() == 200;
    let mut body = resp.into_body().into_reader();
    if whole {
        std::io::copy(&mut (&mut body).take(from), &mut std::io::sink())?;
    }
    Ok(std::io::copy(&mut body.take(want), out)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_of_a_file_is_fetched_from_its_offset() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("upstream");
        std::fs::write(&src, b"HEADERtrace bytes\0\0\0").unwrap();
        let part = dir.path().join("t.part");
        let url = format!("file://{}", src.display());
        fetch_range(&url, 6, 11, &part).unwrap();
        assert_eq!(std::fs::read(&part).unwrap(), b"trace bytes");
        // A part longer than the trace is not a prefix of it: started again.
        std::fs::write(&part, b"far too long a part").unwrap();
        fetch_range(&url, 6, 11, &part).unwrap();
        assert_eq!(std::fs::read(&part).unwrap(), b"trace bytes");
        // A source that ends early keeps what arrived and says so.
        let e = fetch_range(&url, 6, 40, &part).unwrap_err().to_string();
        assert!(e.contains("run the same command again to resume"), "{e}");
    }
}
