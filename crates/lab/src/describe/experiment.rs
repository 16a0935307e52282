//! The experiment file: one TOML document describing a grid of
//! traces x policies x cache sizes x devices, validated up front.
//!
//! Every key is documented in `examples/experiment.toml` and `docs/experiments.md`.
//! Unknown keys are refused (`deny_unknown_fields`); TOML syntax and type errors carry
//! the line and the key; semantic errors name the offending key with its index, e.g.
//! `exp.toml: policies[3]: unknown policy "lur" (known: ...)`.
//!
//! Resolved details:
//! * Relative trace and device-file paths are relative to the experiment file's folder.
//! * `devices = []` (the default) means cache metrics only; `"none"` in the list adds a
//!   cache-only column next to devices.
//! * Cache sizes are bytes (`16MiB`), pages (`4096p`) or a share of the trace's
//!   footprint (`5%`), as in `wafer sim`.
//! * The after-cache trace reaches a device at the cache's page size: page `p` is the
//!   byte range `p x page_size ..+ page_size`, placed on the device's pages by
//!   `address_map` (default `compact`: the trace's erase blocks in first-touch order,
//!   since mobile traces span more than a 16 GiB card but touch fewer blocks; `wrap`
//!   folds pages modulo the capacity, `refuse` stops at the first page beyond it).

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use wafer_cache::PolicySpec;
use wafer_ftl::aging::Aging;
use wafer_ftl::{AddressMap, Device};
use wafer_trace::gen::GenSpec;
use wafer_trace::units::{parse_size, CacheSize};

use crate::options::{self, Collected, EngineOptions, KnownKey, OptionValue};
use wafer_trace::{Format, Granularity, Mapping, ReadOptions, RequestReader};

use crate::board::Board;
use crate::error::LabError;
use crate::spec::{Access, Measure, PageSize, RunSpec, VERSION};
use crate::study_def::Claim;
use crate::study_def::{PaperSetup, Sensitivity, TraceGroup};

/// Figure kinds and what they show.
pub const FIGURES: [(&str, &str); 13] = [
    ("hit-ratio", "hit ratio vs cache size"),
    ("write-backs", "pages written to storage vs cache size"),
    (
        "write-backs-relative",
        "pages written to storage relative to the baseline policy",
    ),
    ("io-time", "estimated storage time vs cache size"),
    ("io-time-vs-clock", "storage time normalised to CLOCK"),
    ("erases", "block erases per policy and cache size"),
    (
        "erases-relative",
        "block erases relative to the baseline policy",
    ),
    ("waf", "write amplification vs cache size"),
    (
        "block-utilization",
        "write operations (bursts) per block-utilization range",
    ),
    (
        "block-utilization-pages",
        "share of written pages per block-utilization range",
    ),
    ("io-counts", "read and write I/Os per policy"),
    ("write-pattern", "page number of writes over time"),
    ("areas", "policy area sizes over time"),
];

/// Where a run sits in the grid: indices into the plan's traces, policies, sizes and
/// devices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GridPos {
    /// Index into [`Plan::traces`].
    pub trace: usize,
    /// Index into [`Plan::policies`].
    pub policy: usize,
    /// Index into [`Plan::sizes`].
    pub size: usize,
    /// Index into [`Plan::devices`].
    pub device: usize,
    /// Index into [`Plan::seeds`] (0 for a cell without aging).
    pub replicate: usize,
}

/// A trace of the experiment: a file (`path`) or a synthetic generator (`gen`),
/// exactly one of the two.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceDef {
    /// Trace file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// Generator (`{ kind = "zipf", theta = 0.99, ... }`, see docs/generators.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gen: Option<GenSpec>,
    /// Format name (detected when absent; files only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Short label in tables and figures (default: the file name without extensions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Column mapping of a custom text trace (`{ offset_col = 2, units = "sectors",
    /// ... }`, the keys of the `--offset-col`, `--units`, ... flags); implies
    /// `format = "generic"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mapping: Option<Mapping>,
    /// This trace's own cache sizes, in place of the experiment's `cache_sizes`:
    /// traces whose footprints differ a hundredfold share one grid, each at the
    /// sizes that suit it (`["5%", "25%"]` for a small capture beside `"64MiB"` for
    /// a large one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_sizes: Option<Vec<String>>,
    /// Skip malformed records (counted, and said on stderr) instead of stopping at
    /// the first (`--skip-invalid`). Part of how the trace is read, so of every
    /// cell's identity.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skip_invalid: bool,
}

impl TraceDef {
    /// A trace file.
    pub fn file(path: PathBuf) -> TraceDef {
        TraceDef {
            path: Some(path),
            gen: None,
            format: None,
            name: None,
            mapping: None,
            cache_sizes: None,
            skip_invalid: false,
        }
    }

    /// A generated trace labelled `name`.
    pub fn generated(spec: GenSpec, name: &str) -> TraceDef {
        TraceDef {
            path: None,
            gen: Some(spec),
            format: None,
            name: Some(name.to_string()),
            mapping: None,
            cache_sizes: None,
            skip_invalid: false,
        }
    }

    /// The label of the trace (default: the file name without extensions, or the
    /// generator's kind).
    pub fn label(&self) -> String {
        if let Some(n) = &self.name {
            return n.clone();
        }
        if let Some(g) = &self.gen {
            return g.kind().to_string();
        }
        let f = self
            .path
            .as_deref()
            .and_then(Path::file_name)
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        f.split('.').next().unwrap_or(&f).to_string()
    }

    /// Where the requests come from, for messages and the report: the path, or
    /// `gen: <kind and every parameter>`.
    pub fn source(&self) -> String {
        match (&self.gen, &self.path) {
            (Some(g), _) => format!("gen: {g}"),
            (None, Some(p)) => p.display().to_string(),
            (None, None) => String::new(),
        }
    }

    /// The format the description names, checked against the mapping: a mapping
    /// means generic text, and generic text needs a mapping. `at(key)` names a key
    /// (`format`, `mapping`, `mapping.offset_col`) in errors. None: detect it.
    pub fn format_as(&self, at: &dyn Fn(&str) -> String) -> Result<Option<Format>, LabError> {
        let err = |key: &str, msg: String| LabError::Config { at: at(key), msg };
        let format = match &self.format {
            Some(f) => Some(Format::from_name(f).map_err(|e| err("format", e.to_string()))?),
            None => None,
        };
        Ok(match (format, &self.mapping) {
            (Some(f), Some(_)) if f != Format::Generic => {
                return Err(err(
                    "mapping",
                    format!(
                        "describes generic text, not {}: set format = \"generic\" or \
                         leave format out",
                        f.name()
                    ),
                ))
            }
            (Some(Format::Generic), None) => {
                return Err(err(
                    "format",
                    "\"generic\" needs a `mapping = { offset_col = N, ... }` table".into(),
                ))
            }
            (f, Some(m)) => {
                m.spec()
                    .map_err(|e| err(&format!("mapping.{}", e.key), e.msg.clone()))?;
                Some(f.unwrap_or(Format::Generic))
            }
            (f, None) => f,
        })
    }

    /// The format as a run records it: its name, for a custom text trace the
    /// mapping's canonical text, and `skip-invalid` when malformed records are
    /// skipped, since the file's checksum does not say how it is read.
    pub fn format_label(&self, format: Option<Format>) -> Option<String> {
        let name = format?.name();
        let mut label = match self.mapping.as_ref().and_then(|m| m.spec().ok()) {
            Some(spec) => format!("{name} {}", spec.canonical()),
            None => name.to_string(),
        };
        if self.skip_invalid {
            label.push_str(" skip-invalid");
        }
        Some(label)
    }

    /// Open the trace as a stream of requests.
    pub fn open(&self, format: Option<Format>) -> Result<Box<dyn RequestReader>, LabError> {
        match (&self.gen, &self.path) {
            (Some(g), _) => Ok(g.open()?),
            (None, Some(p)) => {
                let generic = match &self.mapping {
                    Some(m) => Some(m.spec().map_err(|e| LabError::Invalid(e.to_string()))?),
                    None => None,
                };
                let opts = ReadOptions {
                    format,
                    generic,
                    skip_invalid: self.skip_invalid,
                    ..ReadOptions::default()
                };
                Ok(wafer_trace::open(p, &opts)?)
            }
            (None, None) => Err(LabError::Invalid("a trace needs `path` or `gen`".into())),
        }
    }
}

/// The identity of a generated trace: xxh3-64 (hex) of its canonical spec (JSON of
/// every parameter, defaults filled in) and the wafer version, since a generator's
/// output may change between versions.
pub fn gen_checksum(spec: &GenSpec) -> String {
    let json = serde_json::to_string(spec).expect("generator specs serialise");
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(json.as_bytes());
    h.update(b"\0wafer ");
    h.update(crate::spec::VERSION.as_bytes());
    format!("{:016x}", h.digest())
}

/// Device aging before each cell's measurement (paper 000, TS-CLOCK: Kang, Min, Eom,
/// IEEE MASCOTS 2014, Sec. IV-E).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgingDef {
    /// Write every logical page once first.
    #[serde(default = "yes")]
    pub fill: bool,
    /// Mixed overwrite volume after the fill (`16GiB`).
    #[serde(default = "zero_size")]
    pub volume: String,
    /// Share of the volume written as random single pages.
    #[serde(default = "half")]
    pub random_fraction: f64,
    /// Sequential run length (`1MiB`).
    #[serde(default = "one_mib")]
    pub run: String,
    /// Random seed (default: wafer's aging seed, the one every preset ages with).
    #[serde(default = "aging_seed")]
    pub seed: u64,
}

fn aging_seed() -> u64 {
    wafer_ftl::aging::Aging::default().seed
}

fn yes() -> bool {
    true
}
fn zero_size() -> String {
    "0".into()
}
fn half() -> f64 {
    0.5
}
fn one_mib() -> String {
    "1MiB".into()
}

/// What the run writes besides the results tables.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Outputs {
    /// Figures to draw (names of [`FIGURES`]), or `["all"]`.
    #[serde(default = "all_figures")]
    pub figures: Vec<String>,
    /// Keep every cell's after-cache trace as `after/<cell-id>.csv`.
    #[serde(default)]
    pub keep_after: bool,
    /// Write the HTML report.
    #[serde(default = "yes")]
    pub report: bool,
    /// The former place of the `series_every` option (`[outputs] series_every`),
    /// still read: [`Experiment`] moves it to [`EngineOptions::series_every`].
    #[serde(default, rename = "series_every", skip_serializing)]
    #[doc(hidden)]
    pub legacy_series_every: Option<u64>,
}

fn all_figures() -> Vec<String> {
    vec!["all".into()]
}

impl Default for Outputs {
    fn default() -> Self {
        Outputs {
            figures: all_figures(),
            keep_after: false,
            report: true,
            legacy_series_every: None,
        }
    }
}

/// The experiment file as written.
///
/// Its top table holds its own keys and the engine options ([`EngineOptions`],
/// `block_size`, `warmup`, ...) side by side. Reading it routes each key to its
/// owner: an unknown key is refused where it stands (the file's line) with every
/// valid key; the former `[cost]` table and `[outputs] series_every` are read into
/// the options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct Experiment {
    /// Name (used in the report title).
    pub name: String,
    /// Traces (a study file may give `groups` instead).
    #[serde(default)]
    pub traces: Vec<TraceDef>,
    /// Policy specs, `name[:key=value,...]`, or `"all"` (every registered policy);
    /// at least one for a grid (an on-board cache study has none).
    #[serde(default)]
    pub policies: Vec<String>,
    /// Cache sizes (traces and groups may give their own).
    #[serde(default)]
    pub cache_sizes: Vec<String>,
    /// How each run treats its trace: page and block size, granularity, warm-up,
    /// write-miss fetch, end flush, cost model, series sampling.
    #[serde(flatten, skip_deserializing)]
    pub options: EngineOptions,
    /// Device profiles or `.toml` files; `"none"` = cache metrics only.
    #[serde(default)]
    pub devices: Vec<String>,
    /// How the traces' addresses are placed on each device: `compact` (default),
    /// `wrap` or `refuse` ([`AddressMap`]).
    #[serde(default = "compact")]
    pub address_map: String,
    /// Aging of each device before measuring (absent = fresh device).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aging: Option<AgingDef>,
    /// Independent agings of every device cell (replicates): the aging seeds are
    /// `aging.seed`, `aging.seed + 1`, ...; a claim is judged on each and printed as
    /// the median with its range (`docs/experiments.md`, "Verdicts").
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub replicates: u32,
    /// What device cells measure, one view or several (each a cell of its own):
    /// `as-captured` (default: the stream once on the aged device) and `steady`
    /// (preconditioned with the cell's own stream until it settles, then one more
    /// pass; `docs/experiments.md`, "Steady state"). A claim is judged under each.
    #[serde(
        default = "as_captured",
        deserialize_with = "one_or_many",
        serialize_with = "one_or_list",
        skip_serializing_if = "is_as_captured"
    )]
    pub measure: Vec<Measure>,
    /// Worker threads (0 = all cores; `--jobs` overrides).
    #[serde(default)]
    pub workers: usize,
    /// Read each trace once per cell instead of holding it in memory: memory follows
    /// the footprint, not the trace length (traces too large to prepare). Results are
    /// the same either way, so it is not part of a cell's identity.
    #[serde(default)]
    pub stream: bool,
    /// Outputs.
    #[serde(default)]
    pub outputs: Outputs,
    /// The most cells the grid may have (default [`crate::bounds::MAX_CELLS`]): a
    /// larger grid is refused before anything is read or listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cells: Option<u64>,
    /// The paper a study reproduces, and its setup as the paper states it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paper: Option<PaperSetup>,
    /// Stand-in traces in groups, each judged on its own (instead of `traces`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<TraceGroup>,
    /// Claims judged on the results, one verdict per group (`docs/experiments.md`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<Claim>,
    /// Sensitivity studies of the claims: one condition varied, each run apart.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sensitivity: Vec<Sensitivity>,
    /// An on-board cache study (`[board]`): timed-device cells in place of the grid's
    /// traces, policies, sizes and devices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<Board>,
    /// Run the study's quick form: the first trace of each group at its smallest and
    /// largest cache size; each sensitivity study at the first trace and smallest
    /// size.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quick: bool,
}

impl Serialize for Experiment {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // The derived code: the options flattened among the experiment's keys.
        Experiment::serialize(self, s)
    }
}

impl<'de> Deserialize<'de> for Experiment {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Experiment, D::Error> {
        d.deserialize_map(ExperimentVisitor)
    }
}

/// The experiment's own keys (the derived code's list, read once by asking it).
fn own_keys() -> &'static [&'static str] {
    static KEYS: std::sync::OnceLock<&'static [&'static str]> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| {
        use serde::de::value::Error;
        use std::cell::Cell;
        /// Answers the derived code's request for a struct with its field list.
        struct Probe<'a>(&'a Cell<&'static [&'static str]>);
        impl<'de> serde::Deserializer<'de> for Probe<'_> {
            type Error = Error;
            fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
                Err(serde::de::Error::custom("only the field list is asked for"))
            }
            fn deserialize_struct<V: serde::de::Visitor<'de>>(
                self,
                _: &'static str,
                fields: &'static [&'static str],
                _: V,
            ) -> Result<V::Value, Error> {
                self.0.set(fields);
                Err(serde::de::Error::custom("only the field list is asked for"))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
                bytes byte_buf option unit unit_struct newtype_struct seq tuple
                tuple_struct map enum identifier ignored_any
            }
        }
        let fields = Cell::new(&[][..]);
        let _ = Experiment::deserialize(Probe(&fields));
        fields.get()
    })
}

/// Every key of the top table, for "expected one of": the experiment's own, then
/// the engine options' names.
fn valid_keys() -> &'static [&'static str] {
    static KEYS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| own_keys().iter().chain(options::names()).copied().collect())
}

/// The former `[cost]` table, read into the options `t_read_ns` and `t_write_ns`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LegacyCost {
    t_read_ns: Option<u64>,
    t_write_ns: Option<u64>,
}

struct LegacyCostValue<'a>(&'a mut Collected);

impl<'de> serde::de::DeserializeSeed<'de> for LegacyCostValue<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        use serde::de::Error;
        let c = LegacyCost::deserialize(d)?;
        for (name, v) in [("t_read_ns", c.t_read_ns), ("t_write_ns", c.t_write_ns)] {
            if let (Some(v), Some(info)) = (v, options::find(name)) {
                self.0
                    .set(info, &format!("cost.{name}"), v.into())
                    .map_err(D::Error::custom)?;
            }
        }
        Ok(())
    }
}

/// The top table: the experiment's own keys go to the derived code, the options'
/// keys (and the former `cost` table) are read into a [`Collected`] where they stand.
struct Route<'a, A> {
    map: A,
    options: &'a mut Collected,
}

impl<'de, A: serde::de::MapAccess<'de>> serde::de::MapAccess<'de> for Route<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let known = |k: &str| own_keys().contains(&k) || k == "cost" || options::find(k).is_some();
        while let Some(key) = self.map.next_key_seed(KnownKey(&known, valid_keys))? {
            if own_keys().contains(&key.as_str()) {
                let key = serde::de::value::StringDeserializer::<A::Error>::new(key);
                return seed.deserialize(key).map(Some);
            }
            if key == "cost" {
                self.map.next_value_seed(LegacyCostValue(self.options))?;
            } else {
                self.map.next_value_seed(OptionValue {
                    key: &key,
                    into: self.options,
                })?;
            }
        }
        Ok(None)
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

struct ExperimentVisitor;

impl<'de> serde::de::Visitor<'de> for ExperimentVisitor {
    type Value = Experiment;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an experiment table")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Experiment, A::Error> {
        use serde::de::Error;
        let mut got = Collected::default();
        let mut exp =
            Experiment::deserialize(serde::de::value::MapAccessDeserializer::new(Route {
                map,
                options: &mut got,
            }))?;
        if let Some(n) = exp.outputs.legacy_series_every.take() {
            let info = options::find("series_every").expect("an option");
            got.set(info, "outputs.series_every", n.into())
                .map_err(A::Error::custom)?;
        }
        exp.options = got.finish().map_err(A::Error::custom)?;
        Ok(exp)
    }
}

fn one() -> u32 {
    1
}
fn as_captured() -> Vec<Measure> {
    vec![Measure::AsCaptured]
}
fn is_as_captured(m: &[Measure]) -> bool {
    m == [Measure::AsCaptured]
}

/// `measure = "steady"` or `measure = ["as-captured", "steady"]`.
fn one_or_many<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<Measure>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(Measure),
        Many(Vec<Measure>),
    }
    match OneOrMany::deserialize(d) {
        Ok(OneOrMany::One(m)) => Ok(vec![m]),
        Ok(OneOrMany::Many(v)) => Ok(v),
        Err(_) => Err(serde::de::Error::custom(
            "expected \"as-captured\", \"steady\" or a list of them",
        )),
    }
}

/// One view as a string, several as a list (the form a user writes).
fn one_or_list<S: serde::Serializer>(m: &[Measure], s: S) -> Result<S::Ok, S::Error> {
    match m {
        [one] => one.serialize(s),
        many => many.serialize(s),
    }
}
fn is_one(n: &u32) -> bool {
    *n == 1
}

/// The most replicates a grid may ask for: each ages every device anew.
pub const MAX_REPLICATES: u32 = 100;
/// Studies place a trace's erase blocks on the device rather than fold them: a
/// trace wider than the device would otherwise show overwrites it does not have.
fn compact() -> String {
    AddressMap::Compact.name().into()
}

/// A device column of the grid.
#[derive(Clone, Debug, PartialEq)]
pub enum DeviceChoice {
    /// Cache metrics only.
    None,
    /// A device (profile name or file, as written; resolved).
    Device(String, Box<Device>),
}

impl DeviceChoice {
    /// Label in tables (`none` or the spec as written).
    pub fn label(&self) -> &str {
        match self {
            DeviceChoice::None => "none",
            DeviceChoice::Device(s, _) => s,
        }
    }
}

/// A validated experiment, ready to expand.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The file as written (for the report and the cell ids).
    pub exp: Experiment,
    /// Traces with resolved paths (or generators) and formats.
    pub traces: Vec<(TraceDef, Option<Format>)>,
    /// Parsed policies.
    pub policies: Vec<PolicySpec>,
    /// Parsed sizes with their text: the experiment's, then the traces' own sizes
    /// not among them.
    pub sizes: Vec<(String, CacheSize)>,
    /// Per trace, the indices into `sizes` it runs at.
    pub trace_sizes: Vec<Vec<usize>>,
    /// Page size (the 512 B sector with record accesses).
    pub page_size: PageSize,
    /// Pages per erase block.
    pub pages_per_block: NonZeroU32,
    /// Device columns.
    pub devices: Vec<DeviceChoice>,
    /// How addresses are placed on the devices, parsed.
    pub address_map: AddressMap,
    /// Aging, parsed (its seed the first replicate's).
    pub aging: Option<Aging>,
    /// The aging seed of each replicate (one `None` without aging).
    pub seeds: Vec<Option<u64>>,
    /// xxh3-64 of each trace file, or [`gen_checksum`] of a generator (hex), in
    /// `traces` order: part of every cell's identity, so an edited trace file or
    /// generator is computed afresh.
    pub checksums: Vec<String>,
    /// Each trace file's identity when it was checksummed (None for a generator):
    /// a cell computed from a file that no longer has it is not stored.
    pub stamps: Vec<Option<FileStamp>>,
}

/// What identifies a file's contents without reading them: its size, modification
/// time, device and inode. A file replaced (renamed over, copied onto) or written
/// to changes at least one of them.
///
/// Sent elsewhere (in a [`crate::task::CellTask`]) it keeps its size and time only:
/// another host sees a shared file under other device (and possibly inode) numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    len: u64,
    mtime_ns: i128,
    /// Device and inode, in the process that took the stamp.
    #[serde(skip)]
    place: Option<(u64, u64)>,
}

impl FileStamp {
    /// The stamp of the file at `path` now.
    pub fn of(path: &Path) -> Result<FileStamp, LabError> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).map_err(|e| LabError::io(path, e))?;
        Ok(FileStamp {
            len: m.len(),
            mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            place: Some((m.dev(), m.ino())),
        })
    }

    /// Whether `now`, taken later, shows the same file: the same size and time, and
    /// the same device and inode where this stamp knows them.
    pub fn matches(&self, now: &FileStamp) -> bool {
        (self.len, self.mtime_ns) == (now.len, now.mtime_ns)
            && (self.place.is_none() || self.place == now.place)
    }
}

impl Plan {
    /// The trace files the plan reads (generators read none).
    pub fn trace_files(&self) -> Vec<PathBuf> {
        self.traces
            .iter()
            .filter_map(|(t, _)| t.path.clone())
            .collect()
    }
}

/// [`checksum`] of the file at `path` with its stamp, refused when the file changed
/// while it was read.
fn checksum_stamped(path: &Path) -> Result<(String, FileStamp), LabError> {
    let before = FileStamp::of(path)?;
    let sum = crate::known_traces::checksum(path)?;
    if FileStamp::of(path)? != before {
        return Err(LabError::Invalid(format!(
            "{}: the trace file changed while it was being checksummed",
            path.display()
        )));
    }
    Ok((sum, before))
}

/// The checked run options of a description, apart from its traces.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Parsed policies.
    pub policies: Vec<PolicySpec>,
    /// Parsed sizes with their text.
    pub sizes: Vec<(String, CacheSize)>,
    /// Page size (the 512 B sector with record accesses).
    pub page_size: PageSize,
    /// Pages per erase block.
    pub pages_per_block: NonZeroU32,
    /// Device columns.
    pub devices: Vec<DeviceChoice>,
    /// How addresses are placed on the devices, parsed.
    pub address_map: AddressMap,
    /// Aging, parsed.
    pub aging: Option<Aging>,
}

/// A cache size as a hash key: equal keys for equal sizes (a share of the footprint
/// by the bits of its value, which parsing leaves positive and finite).
type SizeKey = (u8, u64);

fn size_key(s: CacheSize) -> SizeKey {
    match s {
        CacheSize::Bytes(b) => (0, b),
        CacheSize::Pages(p) => (1, p),
        CacheSize::Fraction(f) => (2, f.to_bits()),
    }
}

/// `list` parsed, each size once; `at(i)` says where entry `i` came from.
fn parse_sizes(
    list: &[String],
    page: PageSize,
    at: &dyn Fn(usize) -> String,
) -> Result<Vec<(String, CacheSize)>, LabError> {
    let err = |i: usize, msg: String| LabError::Config { at: at(i), msg };
    let mut sizes: Vec<(String, CacheSize)> = Vec::with_capacity(list.len());
    // Hashed, so that a long list is checked in linear time.
    let mut seen: HashMap<SizeKey, usize> = HashMap::with_capacity(list.len());
    for (i, c) in list.iter().enumerate() {
        let s = CacheSize::parse(c).map_err(|e| err(i, e.to_string()))?;
        if let Some(&first) = seen.get(&size_key(s)) {
            return Err(err(
                i,
                format!(
                    "cache size `{c}` is given twice (the same as `{}`); each run would be computed twice",
                    sizes[first].0
                ),
            ));
        }
        seen.insert(size_key(s), sizes.len());
        // Bytes and pages are checked here; a share of the footprint once the
        // trace's footprint is known.
        if !s.needs_footprint() {
            s.pages(u64::from(page.get()), 0)
                .map_err(|e| err(i, e.to_string()))?;
        }
        sizes.push((c.clone(), s));
    }
    Ok(sizes)
}

impl Experiment {
    /// A description of `policies` x `cache_sizes` on `traces` with every other
    /// option at its default (the defaults an experiment file has).
    pub fn new(
        name: impl Into<String>,
        traces: Vec<TraceDef>,
        policies: Vec<String>,
        cache_sizes: Vec<String>,
    ) -> Self {
        Experiment {
            name: name.into(),
            traces,
            policies,
            cache_sizes,
            options: EngineOptions::default(),
            devices: Vec::new(),
            address_map: compact(),
            aging: None,
            replicates: 1,
            measure: as_captured(),
            workers: 0,
            stream: false,
            outputs: Outputs::default(),
            max_cells: None,
            paper: None,
            groups: Vec::new(),
            claims: Vec::new(),
            sensitivity: Vec::new(),
            board: None,
            quick: false,
        }
    }

    /// Whether the file is a study: it has claims, groups, sensitivity studies or a
    /// paper, which `wafer run` and `wafer reproduce` judge as a paper preset is.
    pub fn is_study(&self) -> bool {
        self.board.is_some()
            || self.paper.is_some()
            || !self.groups.is_empty()
            || !self.claims.is_empty()
            || !self.sensitivity.is_empty()
    }

    /// Cells of the grid, from the lengths of its lists alone (each entry is checked
    /// to be distinct later, so none is counted twice): traces x policies (`"all"`
    /// counted as every policy) x each trace's sizes x devices.
    pub fn cell_count(&self) -> u64 {
        let policies: u64 = self
            .policies
            .iter()
            .map(|p| {
                if p.eq_ignore_ascii_case("all") {
                    wafer_cache::registry::POLICIES.len() as u64
                } else {
                    1
                }
            })
            .sum();
        let sizes: u64 = self
            .traces
            .iter()
            .map(|t| t.cache_sizes.as_ref().unwrap_or(&self.cache_sizes).len() as u64)
            .sum();
        let devices = self.devices.len().max(1) as u64;
        sizes.saturating_mul(policies).saturating_mul(devices)
    }

    /// Refuse a grid of more cells than `max_cells` allows, before its lists are
    /// parsed or its traces read.
    fn check_cell_count(&self, at: &dyn Fn(&str) -> String) -> Result<(), LabError> {
        let n = self.cell_count();
        let limit = self.max_cells.unwrap_or(crate::bounds::MAX_CELLS);
        if n <= limit {
            return Ok(());
        }
        Err(LabError::Config {
            at: at("max_cells"),
            msg: format!(
                "the grid has {n} cells (traces x policies x cache sizes x devices), more than the limit of {limit}; \
                 each cell takes about 2 KB before the first one runs (about {} here); \
                 to run it anyway, raise the limit to {n} (--max-cells {n}, max_cells = {n} in an experiment file, max_cells={n} in Python)",
                wafer_trace::units::format_size(n.saturating_mul(2048))
            ),
        })
    }

    /// Read and validate `path`.
    pub fn load(path: &Path) -> Result<Plan, LabError> {
        let base = path.parent().unwrap_or(Path::new("."));
        Experiment::read(path)?.plan(&path.display().to_string(), base)
    }

    /// The experiment file at `path`, parsed but not yet validated (nothing else is
    /// read).
    pub fn read(path: &Path) -> Result<Experiment, LabError> {
        let text = std::fs::read_to_string(path).map_err(|e| LabError::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        toml::from_str(&text).map_err(|e| LabError::Config {
            at: path.display().to_string(),
            msg: e.to_string().trim_end().to_string(),
        })
    }

    /// The trace files the experiment names, resolved against `base` (its folder).
    pub fn trace_files(&self, base: &Path) -> Vec<PathBuf> {
        self.traces
            .iter()
            .filter_map(|t| t.path.as_ref())
            .map(|p| {
                if p.is_relative() {
                    base.join(p)
                } else {
                    p.clone()
                }
            })
            .collect()
    }

    /// Validate against `base` (the folder relative paths are resolved in); `file`
    /// prefixes error messages.
    pub fn plan(self, file: &str, base: &Path) -> Result<Plan, LabError> {
        self.plan_as(&|key| format!("{file}: {key}"), base)
    }

    /// Validate against `base`; `at(key)` says where a key came from in error
    /// messages (`exp.toml: page_size`, `--page-size`, `page_size=`), so every front
    /// end refuses the same values with the same message after its own location.
    pub fn plan_as(self, at: &dyn Fn(&str) -> String, base: &Path) -> Result<Plan, LabError> {
        let err = |key: String, msg: String| LabError::Config { at: at(&key), msg };
        if self.traces.is_empty() {
            return Err(err("traces".into(), "at least one trace is needed".into()));
        }
        self.check_cell_count(at)?;
        let settings = self.settings_as(at, base)?;
        // Traces last: a refused description never depends on a file's contents.
        let mut traces = Vec::new();
        for (i, t) in self.traces.iter().enumerate() {
            let mut t = t.clone();
            match (&t.path, &t.gen) {
                (Some(_), Some(_)) => {
                    return Err(err(
                        format!("traces[{i}]"),
                        "give either `path` or `gen`, not both".into(),
                    ))
                }
                (None, None) => {
                    return Err(err(
                        format!("traces[{i}]"),
                        "needs `path = \"<file>\"` or `gen = { kind = \"...\", ... }`".into(),
                    ))
                }
                (None, Some(g)) => {
                    if t.format.is_some() {
                        return Err(err(
                            format!("traces[{i}].format"),
                            "applies to trace files only, not to `gen`".into(),
                        ));
                    }
                    if t.mapping.is_some() {
                        return Err(err(
                            format!("traces[{i}].mapping"),
                            "applies to trace files only, not to `gen`".into(),
                        ));
                    }
                    g.validate()
                        .map_err(|e| err(format!("traces[{i}].gen"), e.to_string()))?;
                    traces.push((t, None));
                    continue;
                }
                (Some(p), None) => {
                    let given = base.join(p);
                    // Missing beside the file: the trace folders (a fetched trace).
                    t.path = Some(
                        match crate::trace_folders::find(p, std::slice::from_ref(&given)) {
                            Ok(f) => f,
                            Err(LabError::MissingTrace(m))
                                if crate::known_traces::by_path(p).is_some() =>
                            {
                                let at = at(&format!("traces[{i}].path"));
                                return Err(LabError::MissingTrace(format!("{at}: {m}")));
                            }
                            // The user's own file: said missing below, where it was named.
                            Err(_) => given,
                        },
                    );
                }
            }
            let path = t.path.clone().expect("checked above");
            let format = t.format_as(&|k| at(&format!("traces[{i}].{k}")))?;
            if !path.is_file() {
                return Err(err(
                    format!("traces[{i}].path"),
                    format!("no such file: {}", path.display()),
                ));
            }
            // Detected once here, so every run of the trace reads it the same way and
            // says which format it was read as.
            let format = match format {
                Some(f) => f,
                None => t.open(None)?.meta().format.ok_or_else(|| {
                    LabError::Invalid(format!("{}: cannot detect the format", path.display()))
                })?,
            };
            traces.push((t, Some(format)));
        }
        let mut labels: Vec<String> = traces.iter().map(|(t, _)| t.label()).collect();
        labels.sort();
        if let Some(w) = labels.windows(2).find(|w| w[0] == w[1]) {
            return Err(err(
                "traces".into(),
                format!(
                    "two traces are labelled \"{}\"; give them distinct `name`s",
                    w[0]
                ),
            ));
        }
        let (checksums, stamps) = traces
            .iter()
            .map(|(t, _)| match (&t.gen, &t.path) {
                (Some(g), _) => Ok((gen_checksum(g), None)),
                (None, Some(p)) => checksum_stamped(p).map(|(c, s)| (c, Some(s))),
                (None, None) => unreachable!("validated above"),
            })
            .collect::<Result<(Vec<_>, Vec<_>), _>>()?;
        let Settings {
            policies,
            mut sizes,
            page_size,
            pages_per_block,
            devices,
            address_map,
            aging,
        } = settings;
        // Each trace's sizes as indices into one list: the experiment's first, then
        // the traces' own in order of appearance.
        let common: Vec<usize> = (0..sizes.len()).collect();
        let mut index: HashMap<SizeKey, usize> = sizes
            .iter()
            .enumerate()
            .map(|(k, (_, s))| (size_key(*s), k))
            .collect();
        let mut trace_sizes = Vec::new();
        for (i, (t, _)) in traces.iter().enumerate() {
            let Some(own) = &t.cache_sizes else {
                trace_sizes.push(common.clone());
                continue;
            };
            if own.is_empty() {
                return Err(err(
                    format!("traces[{i}].cache_sizes"),
                    "at least one cache size is needed (leave it out for the experiment's)".into(),
                ));
            }
            let parsed = parse_sizes(own, page_size, &|j| {
                at(&format!("traces[{i}].cache_sizes[{j}]"))
            })?;
            let mut idx = Vec::with_capacity(parsed.len());
            for (text, s) in parsed {
                match index.get(&size_key(s)) {
                    Some(&k) => idx.push(k),
                    None => {
                        index.insert(size_key(s), sizes.len());
                        sizes.push((text, s));
                        idx.push(sizes.len() - 1);
                    }
                }
            }
            trace_sizes.push(idx);
        }
        Ok(Plan {
            checksums,
            stamps,
            traces,
            policies,
            sizes,
            trace_sizes,
            page_size,
            pages_per_block,
            devices,
            address_map,
            seeds: match &aging {
                Some(a) => (0..u64::from(self.replicates))
                    .map(|r| Some(a.seed.wrapping_add(r)))
                    .collect(),
                None => vec![None],
            },
            aging,
            exp: self,
        })
    }

    /// Check everything but the traces: policies, cache sizes, page and block size,
    /// devices, aging, figures. [`Experiment::plan_as`] starts here; `wafer curve`,
    /// which reads its trace itself, stops here.
    pub fn settings_as(
        &self,
        at: &dyn Fn(&str) -> String,
        base: &Path,
    ) -> Result<Settings, LabError> {
        let err = |key: String, msg: String| LabError::Config { at: at(&key), msg };
        if self.policies.is_empty() {
            return Err(err(
                "policies".into(),
                "at least one policy is needed".into(),
            ));
        }
        let own_sizes =
            !self.traces.is_empty() && self.traces.iter().all(|t| t.cache_sizes.is_some());
        if self.cache_sizes.is_empty() && !own_sizes {
            return Err(err(
                "cache_sizes".into(),
                "at least one cache size is needed".into(),
            ));
        }
        let mut policies: Vec<(String, PolicySpec)> = Vec::new();
        // `"all"` stands for every registered policy with its default parameters.
        let names: Vec<(usize, String)> = self
            .policies
            .iter()
            .enumerate()
            .flat_map(|(i, p)| {
                if p.eq_ignore_ascii_case("all") {
                    wafer_cache::registry::POLICIES
                        .iter()
                        .map(|info| (i, info.name.to_string()))
                        .collect()
                } else {
                    vec![(i, p.clone())]
                }
            })
            .collect();
        // Labels hashed, so that a long list is checked in linear time.
        let mut seen: HashMap<String, usize> = HashMap::with_capacity(names.len());
        for (i, p) in &names {
            let spec =
                PolicySpec::parse(p).map_err(|e| err(format!("policies[{i}]"), e.to_string()))?;
            if let Some(&k) = seen.get(&spec.label()) {
                let first = &policies[k].0;
                return Err(err(
                    format!("policies[{i}]"),
                    format!(
                        "policy `{p}` is given twice (the same as `{first}`); each run would be computed twice"
                    ),
                ));
            }
            seen.insert(spec.label(), policies.len());
            policies.push((p.clone(), spec));
        }
        let geometry = self.options.check(at)?;
        let page = geometry.page_size;
        let sizes = parse_sizes(&self.cache_sizes, page, &|i| {
            at(&format!("cache_sizes[{i}]"))
        })?;
        let pages_per_block = geometry.pages_per_block;
        let mut devices = Vec::new();
        for (i, d) in self.devices.iter().enumerate() {
            if d.eq_ignore_ascii_case("none") {
                devices.push(DeviceChoice::None);
                continue;
            }
            let spec = if d.ends_with(".toml") && Path::new(d).is_relative() {
                base.join(d).display().to_string()
            } else {
                d.clone()
            };
            let dev =
                Device::resolve(&spec).map_err(|e| err(format!("devices[{i}]"), e.to_string()))?;
            devices.push(DeviceChoice::Device(d.clone(), Box::new(dev)));
        }
        if devices.is_empty() {
            devices.push(DeviceChoice::None);
        }
        let address_map = AddressMap::from_name(&self.address_map)
            .map_err(|e| err("address_map".into(), e.to_string()))?;
        let aging = match &self.aging {
            None => None,
            Some(a) => {
                let volume =
                    parse_size(&a.volume).map_err(|e| err("aging.volume".into(), e.to_string()))?;
                let run = parse_size(&a.run).map_err(|e| err("aging.run".into(), e.to_string()))?;
                if !(0.0..=1.0).contains(&a.random_fraction) {
                    return Err(err(
                        "aging.random_fraction".into(),
                        format!("{} is outside 0..=1", a.random_fraction),
                    ));
                }
                Some(Aging {
                    fill: a.fill,
                    volume_bytes: volume,
                    random_fraction: a.random_fraction,
                    run_bytes: run,
                    seed: a.seed,
                })
            }
        };
        if self.replicates == 0 || self.replicates > MAX_REPLICATES {
            return Err(err(
                "replicates".into(),
                format!("{} is outside 1..={MAX_REPLICATES}", self.replicates),
            ));
        }
        let mut views = self.measure.clone();
        views.sort_by_key(|m| m.name());
        views.dedup();
        if self.measure.is_empty() || views.len() != self.measure.len() {
            return Err(err(
                "measure".into(),
                "expected one or more of \"as-captured\", \"steady\", each once".into(),
            ));
        }
        if self.replicates > 1 && aging.is_none() {
            return Err(err(
                "replicates".into(),
                "replicates differ in their aging seed: they need [aging]".into(),
            ));
        }
        for (i, f) in self.outputs.figures.iter().enumerate() {
            if f != "all" && !FIGURES.iter().any(|(n, _)| n == f) {
                let known: Vec<&str> = FIGURES.iter().map(|(n, _)| *n).collect();
                return Err(err(
                    format!("outputs.figures[{i}]"),
                    format!("unknown figure \"{f}\" (known: all, {})", known.join(", ")),
                ));
            }
        }
        Ok(Settings {
            policies: policies.into_iter().map(|(_, s)| s).collect(),
            sizes,
            page_size: page,
            pages_per_block,
            devices,
            address_map,
            aging,
        })
    }
}

impl Plan {
    /// Every cell of the grid, in grid order (trace, then policy, then cache size,
    /// then device); `cell.id()` is each one's stable id.
    pub fn cells(&self) -> Vec<RunSpec> {
        self.grid().into_iter().map(|(c, _)| c).collect()
    }

    /// The grid: each cell with its position.
    pub fn grid(&self) -> Vec<(RunSpec, GridPos)> {
        let e = &self.exp;
        let mut cells = Vec::new();
        for (ti, (t, _)) in self.traces.iter().enumerate() {
            for (pi, p) in self.policies.iter().enumerate() {
                for &si in &self.trace_sizes[ti] {
                    let s = &self.sizes[si].0;
                    for (di, d) in self.devices.iter().enumerate() {
                        // A cache-only cell has no aging, so one replicate.
                        let replicates = match d {
                            DeviceChoice::None => 1,
                            DeviceChoice::Device(..) => self.seeds.len(),
                        };
                        // A cache-only cell has no device to measure, so one view.
                        let views = match d {
                            DeviceChoice::None => &[Measure::AsCaptured][..],
                            DeviceChoice::Device(..) => &e.measure[..],
                        };
                        for (ri, &measure) in
                            (0..replicates).flat_map(|ri| views.iter().map(move |m| (ri, m)))
                        {
                            let device_spec = match d {
                                DeviceChoice::None => String::new(),
                                DeviceChoice::Device(_, dev) => {
                                    serde_json::to_string(dev).expect("devices serialise")
                                }
                            };
                            let params = RunSpec {
                                trace: t.label(),
                                trace_checksum: self.checksums[ti].clone(),
                                format: t.format_label(self.traces[ti].1),
                                access: e.options.granularity,
                                policy: p.label(),
                                cache: s.clone(),
                                page_size: self.page_size,
                                pages_per_block: self.pages_per_block,
                                device: d.label().to_string(),
                                device_spec,
                                address_map: match d {
                                    DeviceChoice::None => None,
                                    DeviceChoice::Device(..) => Some(self.address_map),
                                },
                                aging: match (d, &self.aging, self.seeds[ri]) {
                                    (DeviceChoice::Device(..), Some(a), Some(seed)) => {
                                        Some(Aging { seed, ..a.clone() })
                                    }
                                    _ => None,
                                },
                                measure,
                                warmup: e.options.warmup,
                                write_miss_fetch: e.options.write_miss_fetch,
                                flush_at_end: e.options.flush_at_end,
                                cost: e.options.cost(),
                                series_every: e.options.series_every,
                                version: VERSION.to_string(),
                            };
                            let pos = GridPos {
                                trace: ti,
                                policy: pi,
                                size: si,
                                device: di,
                                replicate: ri,
                            };
                            cells.push((params, pos));
                        }
                    }
                }
            }
        }
        cells
    }

    /// The position of `cell` in this plan's grid, if it belongs to it.
    pub fn position(&self, cell: &RunSpec) -> Option<GridPos> {
        self.grid()
            .into_iter()
            .find_map(|(c, pos)| (c == *cell).then_some(pos))
    }
}

impl Plan {
    /// How the traces' requests become accesses.
    pub fn granularity(&self) -> Granularity {
        match self.exp.options.granularity {
            Access::Page => Granularity::Page {
                page_size: self.page_size.get(),
            },
            Access::Record => Granularity::Record,
        }
    }

    /// Whether figure `name` is asked for.
    pub fn wants_figure(&self, name: &str) -> bool {
        self.exp
            .outputs
            .figures
            .iter()
            .any(|f| f == "all" || f == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trace the repository carries (`traces/README.md`).
    const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/fileserver.wtr");

    fn plan(text: &str) -> Result<Plan, LabError> {
        let exp: Experiment = toml::from_str(text).map_err(|e| LabError::Config {
            at: "exp.toml".into(),
            msg: e.to_string(),
        })?;
        exp.plan("exp.toml", Path::new("/"))
    }

    fn base(extra: &str) -> String {
        format!(
            "name = \"t\"\ntraces = [{{ path = \"{TRACE}\" }}]\npolicies = [\"lru\", \"clock\"]\ncache_sizes = [\"1MiB\", \"5%\"]\n{extra}"
        )
    }

    #[test]
    fn a_valid_file_expands() {
        let p = plan(&base("devices = [\"none\", \"microsd-16g\"]")).unwrap();
        assert_eq!(p.policies.len(), 2);
        assert_eq!(p.sizes[1].1, CacheSize::Fraction(0.05));
        assert_eq!(p.pages_per_block.get(), 1024);
        assert_eq!(p.devices.len(), 2);
        assert_eq!(p.traces[0].0.label(), "fileserver");
    }

    #[test]
    fn each_view_of_a_device_cell_is_a_cell_of_its_own() {
        let p = plan(&base(
            "devices = [\"none\", \"microsd-16g\"]\nmeasure = [\"as-captured\", \"steady\"]",
        ))
        .unwrap();
        let cells = p.cells();
        // 2 policies x 2 sizes: one cache-only cell, two device cells (one per view).
        assert_eq!(cells.len(), 4 * 3);
        let views = |d: &str| {
            let mut v: Vec<&str> = cells
                .iter()
                .filter(|c| c.device == d)
                .map(|c| c.measure.name())
                .collect();
            v.sort();
            v.dedup();
            v
        };
        assert_eq!(views("none"), ["as-captured"]);
        assert_eq!(views("microsd-16g"), ["as-captured", "steady"]);
        // One view may be written alone; a view twice, none, or an unknown one is refused.
        let one = plan(&base("devices = [\"microsd-16g\"]\nmeasure = \"steady\"")).unwrap();
        assert!(one.cells().iter().all(|c| c.measure == Measure::Steady));
        for bad in ["[\"steady\", \"steady\"]", "[]"] {
            let e = plan(&base(&format!(
                "devices = [\"microsd-16g\"]\nmeasure = {bad}"
            )))
            .unwrap_err()
            .to_string();
            assert!(e.contains("measure") && e.contains("each once"), "{e}");
        }
        let e = plan(&base("measure = \"stedy\"")).unwrap_err().to_string();
        assert!(
            e.contains("\"as-captured\", \"steady\" or a list of them"),
            "{e}"
        );
    }

    #[test]
    fn a_trace_runs_at_its_own_sizes() {
        let two = format!(
            "name = \"t\"\npolicies = [\"lru\"]\ncache_sizes = [\"1MiB\"]\ntraces = [\
             {{ path = \"{TRACE}\" }}, \
             {{ path = \"{TRACE}\", name = \"small\", cache_sizes = [\"5%\", \"1MiB\"] }}]"
        );
        let p = plan(&two).unwrap();
        // The experiment's size, then the trace's own that is new; 1MiB is shared.
        assert_eq!(p.sizes.len(), 2);
        assert_eq!(p.trace_sizes, vec![vec![0], vec![1, 0]]);
        let cells: Vec<(String, String)> =
            p.cells().into_iter().map(|c| (c.trace, c.cache)).collect();
        assert_eq!(
            cells,
            [("fileserver", "1MiB"), ("small", "5%"), ("small", "1MiB")]
                .map(|(t, c)| (t.to_string(), c.to_string()))
        );
        // Every trace with its own sizes: the experiment's list may be empty.
        let own = two.replace(
            &format!("{{ path = \"{TRACE}\" }}"),
            &format!("{{ path = \"{TRACE}\", cache_sizes = [\"2MiB\"] }}"),
        );
        assert!(plan(&own.replace("[\"1MiB\"]\ntraces", "[]\ntraces")).is_ok());
        // Otherwise not, and a trace's list is checked like the experiment's.
        let e = plan(&two.replace("[\"1MiB\"]\ntraces", "[]\ntraces"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("exp.toml: cache_sizes: "), "{e}");
        let e = plan(&two.replace("\"5%\", \"1MiB\"", "\"5%\", \"5%\""))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("exp.toml: traces[1].cache_sizes[1]: cache size `5%` is given twice"),
            "{e}"
        );
        let e = plan(&two.replace("[\"5%\", \"1MiB\"]", "[]"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("exp.toml: traces[1].cache_sizes: "), "{e}");
    }

    #[test]
    fn errors_point_at_the_key() {
        let e = plan(&base("").replace("\"clock\"", "\"clock\", \"lur\""))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("exp.toml: policies[2]: unknown policy `lur`"),
            "{e}"
        );
        assert!(e.contains("lru"), "{e}");
        let e = plan(&base("devices = [\"floppy\"]"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("exp.toml: devices[0]:"), "{e}");
        let e = plan(&base(""))
            .map(|_| ())
            .and_then(|_| plan(&base("colour = 1")).map(|_| ()));
        let e2 = e.unwrap_err().to_string();
        assert!(e2.contains("unknown field `colour`"), "{e2}");
        let e = plan(&base("").replace("\"5%\"", "\"5 parsecs\""))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("exp.toml: cache_sizes[1]:"), "{e}");
        let e = plan(&base("[outputs]\nfigures = [\"pie\"]"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("exp.toml: outputs.figures[0]: unknown figure"),
            "{e}"
        );
    }

    fn sizes(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("{i}p")).collect()
    }

    #[test]
    fn a_grid_beyond_the_cell_limit_is_refused_up_front() {
        // 3 policies x 50,000 sizes x 1 device: refused before a size is parsed or
        // the trace looked at (the path does not exist).
        let mut exp = Experiment::new(
            "t",
            vec![TraceDef::file("/no/such/trace.wtr".into())],
            vec!["lru".into(), "clock".into(), "arc".into()],
            sizes(50_000),
        );
        let e = exp.clone().plan("exp.toml", Path::new("/")).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.starts_with("exp.toml: max_cells: the grid has 150000 cells"),
            "{msg}"
        );
        assert!(msg.contains("more than the limit of 100000"), "{msg}");
        assert!(msg.contains("max_cells = 150000"), "{msg}");
        // Raised, the grid is planned (and the trace looked for).
        exp.max_cells = Some(150_000);
        let e = exp.plan("exp.toml", Path::new("/")).unwrap_err();
        assert!(e.to_string().contains("no such file"), "{e}");
    }

    #[test]
    fn a_long_size_list_is_checked_for_duplicates_in_linear_time() {
        // Formerly quadratic: 10^7 cells ran for minutes before the first one.
        let mut list = sizes(200_000);
        list.push("2p".into());
        let exp = Experiment::new("t", Vec::new(), vec!["lru".into()], list);
        let t0 = std::time::Instant::now();
        let Err(e) = exp.settings_as(&|k| k.to_string(), Path::new("/")) else {
            panic!("a duplicate is refused");
        };
        assert_eq!(
            e.to_string(),
            "cache_sizes[200000]: cache size `2p` is given twice (the same as `2p`); each run would be computed twice"
        );
        assert!(t0.elapsed().as_secs() < 10, "{:?}", t0.elapsed());
    }

    #[test]
    fn a_duplicate_policy_names_its_first() {
        let list = ["clock:insert_ref=1", "lru", "clock:insert_ref=1"].map(String::from);
        let exp = Experiment::new("t", Vec::new(), list.to_vec(), vec!["1p".into()]);
        let e = exp
            .settings_as(&|k| k.to_string(), Path::new("/"))
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("policies[2]: policy `clock:insert_ref=1` is given twice (the same as `clock:insert_ref=1`)"),
            "{e}"
        );
    }
}
