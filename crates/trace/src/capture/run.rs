//! Running a command under `strace` so that its log can be [`convert`](super::convert)ed.

use crate::error::{Error, Result};
use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, ExitStatus};

/// The calls traced: descriptor bookkeeping, position changes, data transfer, and
/// process creation (for descriptor-table inheritance).
pub const TRACED_CALLS: &str = "open,openat,creat,dup,dup2,dup3,fcntl,close,lseek,ftruncate,\
read,write,readv,writev,pread64,pwrite64,preadv,pwritev,preadv2,pwritev2,\
clone,clone3,fork,vfork";

/// Run `cmd` under `strace -f -ttt -T -y -s 0`, its log going to `log`. The
/// command's stdin, stdout and stderr are the caller's. Returns its exit status
/// (strace exits with the traced command's status).
pub fn run_strace(cmd: &[OsString], log: &Path) -> Result<ExitStatus> {
    if cmd.is_empty() {
        return Err(Error::Invalid("no command to capture".into()));
    }
    let mut c = Command::new("strace");
    c.args(["-f", "-ttt", "-T", "-y", "-s", "0", "-qq", "-e"])
        .arg(format!("trace={}", TRACED_CALLS))
        .arg("-o")
        .arg(log)
        .arg("--")
        .args(cmd);
    c.status().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Error::Invalid("strace not found; install it with apt-get install strace".into())
        } else {
            Error::Invalid(format!("cannot run strace: {e}"))
        }
    })
}

/// Run `cmd` under `valgrind --tool=lackey --trace-mem=yes`, the memory trace going
/// to `log` (Valgrind's `--log-file`). Returns the command's exit status.
pub fn run_lackey(cmd: &[OsString], log: &Path) -> Result<ExitStatus> {
    if cmd.is_empty() {
        return Err(Error::Invalid("no command to capture".into()));
    }
    let mut lf = OsString::from("--log-file=");
    lf.push(log.as_os_str());
    Command::new("valgrind")
        .args(["--tool=lackey", "--trace-mem=yes", "-q"])
        .arg(lf)
        .args(cmd)
        .status()
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::Invalid(
                    "valgrind not found; install it with apt-get install valgrind".into(),
                )
            } else {
                Error::Invalid(format!("cannot run valgrind: {e}"))
            }
        })
}
