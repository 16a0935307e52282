//! Trace formats, autodetection and the streaming reader interface.

use crate::error::{Error, Result};
use crate::request::Request;
use serde::{Deserialize, Serialize};
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
    pub generic: Option<crate::format::GenericSpec>,
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
}

/// Open `path` with the given options, detecting the format unless one is forced.
/// gzip and zstd compression are undone transparently.
pub fn open(path: &Path, opts: &ReadOptions) -> Result<Box<dyn RequestReader>> {
    let _ = opts;
    Err(Error::corrupt(path, "no reader is available yet"))
}

impl Format {
    /// All formats, in the order `--format` help lists them.
    pub const ALL: [Format; 12] = [
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
                    "unknown trace format `{s}` (expected one of: {})",
                    names.join(", ")
                ))
            })
    }
}
