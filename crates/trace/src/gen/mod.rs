//! Deterministic synthetic workload generators.
//!
//! Every generator is a [`RequestReader`]: it streams requests in O(1) memory, and the
//! same parameters (seed included) give the same requests on every run (PCG-64 seeded
//! through `seed_from_u64`; arrival gaps use a second stream derived from the same
//! seed, so the arrival process never changes addresses). Integer-only patterns are
//! identical across platforms too; Zipf ranks and Poisson gaps go through the
//! platform's `powf`/`ln`, which may differ in the last bit between libm versions.
//!
//! [`GenSpec`] names a generator and all its parameters. It is what experiment files
//! hold (`kind = "zipf"`, `theta = 0.99`, ...), what `wafer trace gen` builds from its
//! flags, and what [`GenSpec::open`] turns into a reader after validating every
//! parameter. [`KINDS`] describes each kind for `--list` and the docs.

mod arrival;
mod block_util;
mod common;
mod hot_cold;
mod iozone;
mod paper004;
mod scramble;
mod sequential;
mod size;
mod stream;
mod uniform;
mod zipf;

pub use arrival::Arrival;
pub use block_util::BlockUtilParams;
pub use hot_cold::HotColdParams;
pub use iozone::{IozoneParams, IozoneTest};
pub use paper004::{MicroKind, MicroParams};
pub use sequential::SequentialParams;
pub use size::SizeDist;
pub use uniform::UniformParams;
pub use zipf::ZipfParams;

use crate::error::{Error, Result};
use crate::reader::RequestReader;
use crate::request::Request;
use crate::units::parse_size;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A generator and its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum GenSpec {
    /// Uniform random starts over the footprint.
    Uniform(UniformParams),
    /// Zipf(theta) over pages, ranks scattered over the footprint.
    Zipf(ZipfParams),
    /// Sequential with wrap-around.
    Sequential(SequentialParams),
    /// A hot region taking most accesses, a cold region the rest.
    HotCold(HotColdParams),
    /// Paper 000 (TS-CLOCK: Kang, Min, Eom, IEEE MASCOTS 2014) Sec. II-B: x% of the pages
    /// of random blocks, in page order.
    BlockUtilization(BlockUtilParams),
    /// Paper 004 (Huang et al., "Efficient Cache Design for Solid-State Drives", ACM
    /// Computing Frontiers 2010) Table 5: Constant Write Only.
    ConstantWrite(MicroParams),
    /// Paper 004 Table 5: Random Write Only.
    RandomWrite(MicroParams),
    /// Paper 004 Table 5: Random Write Biased (90% W / 10% R).
    WriteBiased(MicroParams),
    /// Paper 004 Table 5: Thrash Balanced.
    Thrash(MicroParams),
    /// IOzone's test sequence over one file (paper 004 Sec. 4.3.2 ran IOzone, all
    /// accesses turned into writes).
    Iozone(IozoneParams),
}

impl GenSpec {
    /// The kind's name (`zipf`, `block-utilization`, `thrash`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            GenSpec::Uniform(_) => "uniform",
            GenSpec::Zipf(_) => "zipf",
            GenSpec::Sequential(_) => "sequential",
            GenSpec::HotCold(_) => "hot-cold",
            GenSpec::BlockUtilization(_) => "block-utilization",
            GenSpec::ConstantWrite(_) => MicroKind::ConstantWrite.name(),
            GenSpec::RandomWrite(_) => MicroKind::RandomWrite.name(),
            GenSpec::WriteBiased(_) => MicroKind::WriteBiased.name(),
            GenSpec::Thrash(_) => MicroKind::Thrash.name(),
            GenSpec::Iozone(_) => "iozone",
        }
    }

    /// The kind with every parameter at its default, or `None` for an unknown name.
    pub fn default_for(kind: &str) -> Option<GenSpec> {
        let m = MicroParams::default();
        Some(match kind {
            "uniform" => GenSpec::Uniform(UniformParams::default()),
            "zipf" => GenSpec::Zipf(ZipfParams::default()),
            "sequential" => GenSpec::Sequential(SequentialParams::default()),
            "hot-cold" => GenSpec::HotCold(HotColdParams::default()),
            "block-utilization" => GenSpec::BlockUtilization(BlockUtilParams::default()),
            "constant-write" => GenSpec::ConstantWrite(m),
            "random-write" => GenSpec::RandomWrite(m),
            "write-biased" => GenSpec::WriteBiased(m),
            "thrash" => GenSpec::Thrash(m),
            "iozone" => GenSpec::Iozone(IozoneParams::default()),
            _ => return None,
        })
    }

    /// The page size the trace is meant to be read with: the generator's `page_size`,
    /// or 4 KiB for paper 004's benchmarks and IOzone (its cache line is one 4 KB flash
    /// page).
    pub fn page_size(&self) -> u32 {
        match self {
            GenSpec::Uniform(p) => p.page_size,
            GenSpec::Zipf(p) => p.page_size,
            GenSpec::Sequential(p) => p.page_size,
            GenSpec::HotCold(p) => p.page_size,
            GenSpec::BlockUtilization(p) => p.page_size,
            GenSpec::ConstantWrite(_)
            | GenSpec::RandomWrite(_)
            | GenSpec::WriteBiased(_)
            | GenSpec::Thrash(_)
            | GenSpec::Iozone(_) => 4096,
        }
    }

    /// Check every parameter; the error names the kind, the parameter and its range.
    pub fn validate(&self) -> Result<()> {
        match self {
            GenSpec::Uniform(p) => p.validate(),
            GenSpec::Zipf(p) => p.validate(),
            GenSpec::Sequential(p) => p.validate(),
            GenSpec::HotCold(p) => p.validate(),
            GenSpec::BlockUtilization(p) => p.validate(),
            GenSpec::ConstantWrite(p) => p.validate(MicroKind::ConstantWrite),
            GenSpec::RandomWrite(p) => p.validate(MicroKind::RandomWrite),
            GenSpec::WriteBiased(p) => p.validate(MicroKind::WriteBiased),
            GenSpec::Thrash(p) => p.validate(MicroKind::Thrash),
            GenSpec::Iozone(p) => p.validate(),
        }
    }

    /// Validate, then open the generator as a streaming reader.
    pub fn open(&self) -> Result<Box<dyn RequestReader>> {
        let label = self.to_string();
        match self {
            GenSpec::Uniform(p) => p.open(label),
            GenSpec::Zipf(p) => p.open(label),
            GenSpec::Sequential(p) => p.open(label),
            GenSpec::HotCold(p) => p.open(label),
            GenSpec::BlockUtilization(p) => p.open(label),
            GenSpec::ConstantWrite(p) => p.open(MicroKind::ConstantWrite, label),
            GenSpec::RandomWrite(p) => p.open(MicroKind::RandomWrite, label),
            GenSpec::WriteBiased(p) => p.open(MicroKind::WriteBiased, label),
            GenSpec::Thrash(p) => p.open(MicroKind::Thrash, label),
            GenSpec::Iozone(p) => p.open(label),
        }
    }

    /// Generate every request into memory (for tests and small traces; use
    /// [`GenSpec::open`] to stream).
    pub fn collect(&self) -> Result<Vec<Request>> {
        let mut reader = self.open()?;
        let mut all = Vec::new();
        let mut batch = Vec::new();
        while reader.read_batch(&mut batch)? {
            all.extend_from_slice(&batch);
        }
        Ok(all)
    }

    /// The spec's parameters as `key=value` pairs, alphabetical, unset options left
    /// out.
    /// Paper 004's kind-dependent defaults are shown with their values.
    pub fn params(&self) -> Vec<(String, String)> {
        let resolved = match self {
            GenSpec::ConstantWrite(p) => {
                GenSpec::ConstantWrite(p.effective(MicroKind::ConstantWrite))
            }
            GenSpec::RandomWrite(p) => GenSpec::RandomWrite(p.effective(MicroKind::RandomWrite)),
            GenSpec::WriteBiased(p) => GenSpec::WriteBiased(p.effective(MicroKind::WriteBiased)),
            GenSpec::Thrash(p) => GenSpec::Thrash(p.effective(MicroKind::Thrash)),
            other => other.clone(),
        };
        let mut out = Vec::new();
        if let Ok(serde_json::Value::Object(map)) = serde_json::to_value(&resolved) {
            for (k, v) in map {
                match v {
                    serde_json::Value::Null => {}
                    _ if k == "kind" => {}
                    serde_json::Value::String(s) => out.push((k, s)),
                    v => out.push((k, v.to_string())),
                }
            }
        }
        // By name, whatever order the JSON map keeps.
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}

/// The label: the kind followed by every parameter, e.g.
/// `thrash arrival=poisson:10ms cache=8MiB max_blocks=8192 regions=2 ...`.
impl fmt::Display for GenSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind())?;
        for (k, v) in self.params() {
            write!(f, " {k}={v}")?;
        }
        Ok(())
    }
}

/// One parameter of a generator kind, for `--list` and the docs.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ParamInfo {
    /// Name (the experiment-file key; `--name` with `_` as `-` on the command line).
    pub name: &'static str,
    /// Default value as text.
    pub default: &'static str,
    /// What it means and its range.
    pub doc: &'static str,
}

/// A generator kind, for `--list` and the docs.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct KindInfo {
    /// The kind's name.
    pub name: &'static str,
    /// One line on what it generates.
    pub summary: &'static str,
    /// Where the pattern comes from.
    pub source: &'static str,
    /// Its parameters.
    pub params: &'static [ParamInfo],
}

const fn p(name: &'static str, default: &'static str, doc: &'static str) -> ParamInfo {
    ParamInfo { name, default, doc }
}

const SEED: ParamInfo = p("seed", "1", "random seed");
const REQUESTS: ParamInfo = p("requests", "1000000", "number of requests");
const FOOTPRINT: ParamInfo = p(
    "footprint",
    "1GiB",
    "bytes addressed (a multiple of page_size)",
);
const PAGE_SIZE: ParamInfo = p(
    "page_size",
    "4096",
    "starts are multiples of it (power of two >= 512)",
);
const WRITE_RATIO: ParamInfo = p(
    "write_ratio",
    "0.5",
    "fraction of writes, 0..=1, drawn per request",
);
const SIZE: ParamInfo = p(
    "size",
    "4KiB",
    "request size: 4KiB | 4KiB..64KiB[/step] | 4KiB:3,64KiB:1",
);
const ARRIVAL: ParamInfo = p(
    "arrival",
    "none",
    "none | fixed:<duration> | poisson:<mean gap> | poisson:<rate>/s",
);

const MICRO_PARAMS: &[ParamInfo] = &[
    p("seed", "1", "random seed"),
    p("requests", "10000", "number of requests"),
    p(
        "span",
        "16GiB",
        "device span that random starts cover (multiple of 4 KiB)",
    ),
    p(
        "arrival",
        "poisson:10ms",
        "none | fixed:<duration> | poisson:<mean gap> | poisson:<rate>/s",
    ),
    p(
        "max_blocks",
        "by kind (8192 or 200)",
        "sizes are uniform on [1, max_blocks-1] blocks of 512 B",
    ),
    p(
        "write_ratio",
        "by kind (1, 1, 0.9, 0.5)",
        "fraction of writes, 0..=1, drawn per request",
    ),
    p(
        "cache",
        "8MiB",
        "thrash only: cache size that separates the regions (use the cache under test)",
    ),
    p(
        "regions",
        "2",
        "thrash only: requests per round; n+1 thrashes an n-way cache",
    ),
];

/// Every generator kind.
pub const KINDS: &[KindInfo] = &[
    KindInfo {
        name: "uniform",
        summary: "uniform random page-aligned starts over the footprint",
        source: "the baseline of every cache and FTL study (docs/generators.md)",
        params: &[SEED, REQUESTS, FOOTPRINT, PAGE_SIZE, WRITE_RATIO, SIZE, ARRIVAL],
    },
    KindInfo {
        name: "zipf",
        summary: "Zipf(theta) over the footprint's pages, hot ranks scattered by a keyed permutation",
        source: "rejection-inversion sampling (Hormann & Derflinger 1996); theta 0.99 as in YCSB",
        params: &[
            SEED,
            REQUESTS,
            p("theta", "0.99", "skew exponent, 0..=100 (0 = uniform)"),
            p("scramble", "true", "scatter ranks over the pages (false: rank 1 = page 0)"),
            FOOTPRINT,
            PAGE_SIZE,
            WRITE_RATIO,
            SIZE,
            ARRIVAL,
        ],
    },
    KindInfo {
        name: "sequential",
        summary: "each request starts where the last ended, wrapping to 0 at the footprint's end",
        source: "scan / streaming access; WAF 1 on flash (paper 000 Sec. II-B)",
        params: &[
            SEED,
            REQUESTS,
            FOOTPRINT,
            PAGE_SIZE,
            p("start", "0", "byte offset of the first request (below the footprint)"),
            WRITE_RATIO,
            SIZE,
            ARRIVAL,
        ],
    },
    KindInfo {
        name: "hot-cold",
        summary: "hot_access of the requests hit the first hot_fraction of the footprint, uniformly",
        source: "the 80/20 hot/cold workload of flash GC studies",
        params: &[
            SEED,
            REQUESTS,
            p("hot_fraction", "0.2", "fraction of the footprint that is hot, 0 < f < 1"),
            p("hot_access", "0.8", "fraction of requests sent to the hot region, 0..=1"),
            FOOTPRINT,
            PAGE_SIZE,
            WRITE_RATIO,
            SIZE,
            ARRIVAL,
        ],
    },
    KindInfo {
        name: "block-utilization",
        summary: "writes x% of the pages of a random erase block, chosen at random, in page order; repeat",
        source: "Kang, Min, Eom, MASCOTS 2014 (TS-CLOCK) Sec. II-B and Fig. 1; docs/generators.md",
        params: &[
            SEED,
            p("page_size", "4096", "flash page size (power of two >= 512)"),
            p(
                "block_size",
                crate::units::DEFAULT_BLOCK_SIZE,
                "erase block size (a multiple of page_size)",
            ),
            p("utilization", "25", "percent of each chosen block's pages written, (0, 100]"),
            p("range", "16GiB", "I/O range blocks are drawn from (a multiple of block_size)"),
            p("range_start", "0", "first byte of the I/O range (block-aligned)"),
            p("requests", "unset", "stop after this many requests"),
            p("bytes", "1GiB if requests is unset", "stop after this many bytes written"),
            p("coalesce", "false", "merge runs of consecutive chosen pages into one request"),
            ARRIVAL,
        ],
    },
    KindInfo {
        name: "constant-write",
        summary: "100% writes, all starting at sector 0, sizes uniform 1..8191 blocks of 512 B",
        source: "Huang et al., Computing Frontiers 2010 (paper 004) Table 5 (Constant Write Only); docs/generators.md",
        params: MICRO_PARAMS,
    },
    KindInfo {
        name: "random-write",
        summary: "100% writes at random 4 KiB-aligned starts over the span, sizes 1..199 blocks",
        source: "Huang et al., Computing Frontiers 2010 (paper 004) Table 5 (Random Write Only); docs/generators.md",
        params: MICRO_PARAMS,
    },
    KindInfo {
        name: "write-biased",
        summary: "90% writes / 10% reads at random 4 KiB-aligned starts, sizes 1..199 blocks",
        source: "Huang et al., Computing Frontiers 2010 (paper 004) Table 5 (Random Write Biased); docs/generators.md",
        params: MICRO_PARAMS,
    },
    KindInfo {
        name: "thrash",
        summary: "50% writes / 50% reads in rounds at o, o+cache, ...: every page has a twin in the same cache set",
        source: "Huang et al., Computing Frontiers 2010 (paper 004) Table 5 (Thrash Balanced); docs/generators.md",
        params: MICRO_PARAMS,
    },
    KindInfo {
        name: "iozone",
        summary: "IOzone's tests over one file, each a full pass in records: write, rewrite, read, reread, random read/write, backward read, record rewrite, stride read",
        source: "IOzone's test sequence; Huang et al., Computing Frontiers 2010 (paper 004) Sec. 4.3.2 ran it with every access a write; docs/generators.md",
        params: &[
            p("seed", "1", "random seed (the order of the random tests)"),
            p("file_size", "64MiB", "size of the file at offset 0 (a multiple of record)"),
            p("record", "64KiB", "record (request) size (a multiple of 512 B, at most 1 GiB)"),
            p(
                "tests",
                "all",
                "all, or a comma-separated subset of write, rewrite, read, reread, random-read, random-write, backward-read, record-rewrite, stride-read (run in that order)",
            ),
            p("stride", "17", "stride-read: records between reads (IOzone's default)"),
            p("writes_only", "false", "true: every request a write (as paper 004 ran IOzone)"),
            p("requests", "unset", "stop after this many requests (unset: every test in full)"),
            ARRIVAL,
        ],
    },
];

/// A byte count in a parameter: a number of bytes or a size string (`16GiB`).
/// Written back as a size string when a binary unit divides it exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "BytesRepr", into = "BytesRepr")]
pub struct Bytes(pub u64);

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum BytesRepr {
    Number(u64),
    Text(String),
}

impl TryFrom<BytesRepr> for Bytes {
    type Error = Error;
    fn try_from(r: BytesRepr) -> Result<Bytes> {
        match r {
            BytesRepr::Number(n) => Ok(Bytes(n)),
            BytesRepr::Text(t) => parse_size(&t).map(Bytes),
        }
    }
}

impl From<Bytes> for BytesRepr {
    fn from(b: Bytes) -> BytesRepr {
        let s = b.to_string();
        match s.parse() {
            Ok(n) => BytesRepr::Number(n),
            Err(_) => BytesRepr::Text(s),
        }
    }
}

impl fmt::Display for Bytes {
    /// The largest binary unit that divides the count exactly (`16GiB`, `6MiB`,
    /// `1536`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(&str, u64); 4] = [
            ("TiB", 1 << 40),
            ("GiB", 1 << 30),
            ("MiB", 1 << 20),
            ("KiB", 1 << 10),
        ];
        for (unit, scale) in UNITS {
            if self.0 >= scale && self.0 % scale == 0 {
                return write!(f, "{}{unit}", self.0 / scale);
            }
        }
        write!(f, "{}", self.0)
    }
}

/// A validation error naming the kind and the parameter.
pub(crate) fn invalid(kind: &str, param: &str, msg: impl fmt::Display) -> Error {
    Error::Invalid(format!("{kind}: `{param}` {msg}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_defaults_a_summary_and_opens() {
        for k in KINDS {
            let spec = GenSpec::default_for(k.name).unwrap_or_else(|| panic!("{}", k.name));
            assert_eq!(spec.kind(), k.name);
            assert!(!k.summary.is_empty() && !k.source.is_empty());
            spec.open().unwrap_or_else(|e| panic!("{}: {e}", k.name));
            for (name, _) in spec.params() {
                assert!(
                    k.params.iter().any(|p| p.name == name),
                    "{}: {name} undocumented",
                    k.name
                );
            }
        }
    }

    #[test]
    fn bytes_read_numbers_and_sizes_and_print_exact_units() {
        let b: Bytes = serde_json::from_str("\"16GiB\"").unwrap();
        assert_eq!(b, Bytes(16 << 30));
        assert_eq!(b.to_string(), "16GiB");
        assert_eq!(Bytes(1536).to_string(), "1536");
        assert_eq!(Bytes(1 << 20 | 1 << 19).to_string(), "1536KiB");
        assert_eq!(serde_json::to_string(&Bytes(1536)).unwrap(), "1536");
    }
}
