//! Opening a trace: the reader interface every format implements ([`RequestReader`]),
//! the format names ([`Format`]) and their detection; the readers themselves live in
//! `formats/`, one file per format.
//!
//! [`open`] detects the format from the content (magic bytes, record structure, or
//! by running each text decoder on the first lines); the conventions of every format
//! (units, ops, devices, records skipped) are documented in its reader module under
//! `formats/`, and in the README's formats table.

use crate::error::{Error, Result};
use crate::request::Request;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// Requests a reader returns per [`RequestReader::read_batch`] call.
pub const BATCH: usize = 4096;

/// Every trace format wafer reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// wafer's own binary format (`.wtr`).
    Wtr,
    /// MSR Cambridge CSV.
    Msr,
    /// UMass / SPC CSV (`ASU,LBA,size,opcode,timestamp`).
    Spc,
    /// blkparse default text output (D events).
    Blkparse,
    /// FIU SRCmap / IODedup traces.
    Fiu,
    /// DiskSim ASCII (as shipped with MQSim).
    Disksim,
    /// CloudPhysics vscsi binary, v1 or v2.
    Vscsi,
    /// The CloudPhysics CSV copy (`version,time,op,size,lbn`).
    CloudphysicsCsv,
    /// libCacheSim oracleGeneral binary (keys only; every access is a read).
    OracleGeneral,
    /// The Android block CSV of the Pixel 6a traces.
    Android,
    /// Valgrind lackey memory traces.
    Lackey,
    /// Generic CSV / whitespace text with a column mapping.
    Generic,
    /// wafer's CSV export (`time_ns,op,dev,offset,len`).
    WaferCsv,
    /// The after-cache CSV of `wafer sim --after X.csv`.
    AfterCsv,
}

/// Static facts about a trace known once it is opened.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TraceMeta {
    /// The file.
    pub path: PathBuf,
    /// Its format (`None` only before detection).
    pub format: Option<Format>,
    /// Whether requests carry timestamps.
    pub has_time: bool,
    /// Whether reads and writes are told apart (false for oracleGeneral).
    pub has_op: bool,
    /// Request count if the header says (`.wtr`), else `None`.
    pub requests: Option<u64>,
}

/// Options every reader understands.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Force a format instead of detecting it.
    pub format: Option<Format>,
    /// Skip and count malformed records instead of failing on the first one.
    pub skip_invalid: bool,
    /// Lackey: also emit instruction fetches (`I` lines) as reads.
    pub instructions: bool,
    /// Generic text: the column mapping (`None` = error if the generic format is used).
    pub generic: Option<crate::reader::GenericSpec>,
}

/// Column mapping of the generic text reader.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenericSpec {
    /// Field separator; `None` = any run of whitespace or commas.
    pub delimiter: Option<u8>,
    /// Lines to skip at the top (a header).
    pub skip_lines: u64,
    /// 0-based column of the time stamp, if any.
    pub time_col: Option<usize>,
    /// Seconds per time unit (1e-9 for ns, 1e-6 for us, 1.0 for s).
    pub time_unit_s: f64,
    /// 0-based column of the op (`R`/`W`, `read`/`write`, `0`/`1` as read/write).
    pub op_col: Option<usize>,
    /// 0-based column of the address.
    pub offset_col: usize,
    /// Bytes per address unit (1, 512, 4096).
    pub offset_unit: u64,
    /// 0-based column of the length, if any (else one `size_unit`).
    pub size_col: Option<usize>,
    /// Bytes per length unit.
    pub size_unit: u64,
    /// 0-based column of the device number, if any.
    pub dev_col: Option<usize>,
    /// The op words of this trace, replacing the default vocabulary (`None`: `r`,
    /// `read`, `0` / `w`, `write`, `1` / `t`, `trim`, `d`, `discard`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops: Option<OpNames>,
}

/// The words an op column holds for each op (compared ignoring case); a word in no
/// list is a malformed record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpNames {
    /// Words meaning a read.
    pub read: Vec<String>,
    /// Words meaning a write.
    pub write: Vec<String>,
    /// Words meaning a trim.
    pub trim: Vec<String>,
}

/// A streaming source of requests. Implementations hold O(1) memory (a fixed buffer)
/// whatever the trace length.
pub trait RequestReader: Send {
    /// Clear `out` and fill it with up to [`BATCH`] requests. Returns `Ok(false)` when
    /// the trace is exhausted and `out` is empty.
    fn read_batch(&mut self, out: &mut Vec<Request>) -> Result<bool>;

    /// What is known about the trace.
    fn meta(&self) -> &TraceMeta;

    /// Malformed records skipped so far (only with `skip_invalid`).
    fn skipped(&self) -> u64 {
        0
    }

    /// Estimated distinct keys of the whole trace, where the file stores them (`.wtr`
    /// version 2): a hint for sizing tables up front, never needed for a result.
    fn distinct_keys(&self) -> Option<crate::DistinctKeys> {
        None
    }

    /// The distinct keys to size a densifier for at `granularity`: the stored
    /// estimate's lower bound ([`crate::DistinctKeys::expected`]), 0 where the file
    /// stores none.
    fn expected_keys(&self, granularity: crate::Granularity) -> u64 {
        self.distinct_keys().map_or(0, |d| d.expected(granularity))
    }
}

/// Open `path` with the given options, detecting the format unless one is forced.
/// gzip and zstd compression are undone transparently (recognised by magic bytes,
/// not by the file name). A `.wtr` file is recognised by [`crate::wtr::MAGIC`].
/// Detection and the per-format conventions are documented in the reader modules;
/// when no format fits, the error lists the formats tried and suggests `--format`.
pub fn open(path: &Path, opts: &ReadOptions) -> Result<Box<dyn RequestReader>> {
    let mut file = File::open(path).map_err(|e| Error::io(path, e))?;
    if matches!(opts.format, None | Some(Format::Wtr)) {
        let mut magic = [0u8; 4];
        let n = read_up_to(&mut file, &mut magic).map_err(|e| Error::io(path, e))?;
        if opts.format == Some(Format::Wtr) || (n == 4 && magic == crate::wtr::MAGIC) {
            return Ok(Box::new(crate::wtr::Reader::open(path)?));
        }
        file.seek(SeekFrom::Start(0))
            .map_err(|e| Error::io(path, e))?;
    }
    crate::formats::open_stream(path, Box::new(file), opts)
}

/// Open any byte stream as a trace, exactly as [`open`] opens a file (`name` is used
/// in messages only). `.wtr` data needs a file and is refused here.
pub fn open_stream(
    name: &Path,
    stream: Box<dyn Read + Send>,
    opts: &ReadOptions,
) -> Result<Box<dyn RequestReader>> {
    crate::formats::open_stream(name, stream, opts)
}

fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

impl Format {
    /// All formats, in the order `--format` help lists them.
    pub const ALL: [Format; 14] = [
        Format::Wtr,
        Format::Msr,
        Format::Spc,
        Format::Blkparse,
        Format::Fiu,
        Format::Disksim,
        Format::Vscsi,
        Format::CloudphysicsCsv,
        Format::OracleGeneral,
        Format::Android,
        Format::Lackey,
        Format::Generic,
        Format::WaferCsv,
        Format::AfterCsv,
    ];

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Format::Wtr => "wtr",
            Format::Msr => "msr",
            Format::Spc => "spc",
            Format::Blkparse => "blkparse",
            Format::Fiu => "fiu",
            Format::Disksim => "disksim",
            Format::Vscsi => "vscsi",
            Format::CloudphysicsCsv => "cloudphysics-csv",
            Format::OracleGeneral => "oracle-general",
            Format::Android => "android",
            Format::Lackey => "lackey",
            Format::Generic => "generic",
            Format::WaferCsv => "wafer-csv",
            Format::AfterCsv => "after-csv",
        }
    }

    /// Parse a format name.
    pub fn from_name(s: &str) -> Result<Format> {
        Format::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| {
                let names: Vec<_> = Format::ALL.iter().map(|f| f.name()).collect();
                Error::Invalid(format!(
                    "unknown trace format `{s}` (expected one of: {}){}",
                    names.join(", "),
                    crate::suggest::hint(s, names.iter().copied())
                ))
            })
    }
}
