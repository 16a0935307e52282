//! [`RunSpec`]: one validated run (trace, policy, cache size, device and every option
//! that decides the result) — one cell of a grid.
//!
//! Every front end builds runs the same way: `wafer sim`'s arguments, an experiment
//! file and the Python API each fill an [`Experiment`](crate::Experiment), whose
//! [`plan`](crate::Experiment::plan) validates it once (the same checks, the same
//! messages) and expands it into `RunSpec`s ([`crate::Plan::grid`]). The types rule
//! out what no run can mean: a page size that is not a power of two from 512 B to
//! 1 GiB, zero pages per erase block; a cache below one page is refused when its size
//! is resolved against the trace.
//!
//! The id of a run is the xxh3-64 hash of its canonical JSON
//! ([`cell_id`]): it holds the trace's checksum, the full device
//! description and the wafer version, so a rerun finds the runs it already has and a
//! changed parameter, trace file or wafer version computes afresh.
//!
//! A run is computed from its spec and where its trace is alone
//! ([`crate::task::CellTask`], [`crate::compute`]): what decides the result is what
//! makes the id, so a cell computed anywhere is stored under the id of what it is.

use std::num::NonZeroU32;

use serde::{Deserialize, Serialize};
use wafer_cache::CostModel;
use wafer_ftl::aging::Aging;
use wafer_ftl::AddressMap;
use wafer_trace::units::{MAX_PAGE_SIZE, MIN_PAGE_SIZE};
use wafer_trace::Granularity;

/// The wafer version every run is stamped with.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A page size: a power of two from 512 B to 1 GiB.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub struct PageSize(u32);

impl PageSize {
    /// The page size of `bytes`, or why it cannot be one.
    pub fn new(bytes: u64) -> Result<PageSize, String> {
        match u32::try_from(bytes) {
            Ok(p) if p.is_power_of_two() && (MIN_PAGE_SIZE..=MAX_PAGE_SIZE).contains(&p) => {
                Ok(PageSize(p))
            }
            _ => Err(format!(
                "page size {bytes} B must be a power of two from 512 B to 1 GiB (e.g. 4KiB)"
            )),
        }
    }

    /// Bytes.
    pub fn get(self) -> u32 {
        self.0
    }
}

impl TryFrom<u32> for PageSize {
    type Error = String;
    fn try_from(v: u32) -> Result<PageSize, String> {
        PageSize::new(u64::from(v))
    }
}

impl From<PageSize> for u32 {
    fn from(p: PageSize) -> u32 {
        p.0
    }
}

/// How requests become cache accesses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Every page a request touches is one access.
    #[default]
    Page,
    /// One access per record, keyed by its first 512 B sector (libCacheSim's object
    /// view).
    Record,
}

/// What a device cell measures (`docs/experiments.md`, "Steady state").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Measure {
    /// The after-cache stream once, on the aged device as aging left it.
    #[default]
    AsCaptured,
    /// The stream replayed pass after pass until the device settles
    /// ([`crate::steady`]), then one more pass measured.
    Steady,
}

impl Measure {
    /// Its name in rows and files.
    pub fn name(self) -> &'static str {
        match self {
            Measure::AsCaptured => "as-captured",
            Measure::Steady => "steady",
        }
    }

    /// The view called `name` (`as-captured` or `steady`).
    pub fn from_name(name: &str) -> Option<Measure> {
        [Measure::AsCaptured, Measure::Steady]
            .into_iter()
            .find(|m| m.name() == name)
    }

    pub(crate) fn is_as_captured(&self) -> bool {
        *self == Measure::AsCaptured
    }
}

/// Everything that determines one run's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSpec {
    /// Trace label.
    pub trace: String,
    /// xxh3-64 of the trace file (or of a generator's spec), hex.
    pub trace_checksum: String,
    /// The format the trace is read as (given, or detected when the run was planned).
    pub format: Option<String>,
    /// Page accesses or record accesses.
    pub access: Access,
    /// Policy spec (canonical label).
    pub policy: String,
    /// Cache size as written (bytes, pages or a share of the footprint).
    pub cache: String,
    /// Page size (512 B, the sector, with record accesses).
    pub page_size: PageSize,
    /// Pages per erase block the policy sees.
    pub pages_per_block: NonZeroU32,
    /// Device label (`none` for cache metrics only).
    pub device: String,
    /// The full device description (JSON), empty without a device.
    pub device_spec: String,
    /// How the trace's addresses are placed on the device (`None` without a device).
    pub address_map: Option<AddressMap>,
    /// Aging before measuring.
    pub aging: Option<Aging>,
    /// What a device cell measures (left out of the id when as captured, so cells
    /// stored before the option existed keep theirs).
    #[serde(default, skip_serializing_if = "Measure::is_as_captured")]
    pub measure: Measure,
    /// Warm-up accesses.
    pub warmup: u64,
    /// Fetch on write miss.
    pub write_miss_fetch: bool,
    /// Flush dirty pages at the end.
    pub flush_at_end: bool,
    /// Cost model of the cache-only time estimate.
    pub cost: CostModel,
    /// Series sampling interval.
    pub series_every: u64,
    /// wafer version.
    pub version: String,
}

impl RunSpec {
    /// The run's id: 16 hex digits.
    pub fn id(&self) -> String {
        cell_id(self)
    }

    /// `trace / policy / cache / device`, for messages.
    pub fn label(&self) -> String {
        format!(
            "{} / {} / {} / {}",
            self.trace, self.policy, self.cache, self.device
        )
    }

    /// How the trace's requests become accesses.
    pub fn granularity(&self) -> Granularity {
        match self.access {
            Access::Page => Granularity::Page {
                page_size: self.page_size.get(),
            },
            Access::Record => Granularity::Record,
        }
    }
}

/// The id of a cell: xxh3-64 (16 hex digits) of its canonical JSON.
pub fn cell_id<C: Serialize>(cell: &C) -> String {
    let json = serde_json::to_vec(cell).expect("cell parameters serialise");
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(&json))
}

/// A cell of LRU at 1 MiB on trace `t`, no device: what unit tests vary.
#[cfg(test)]
pub(crate) fn example() -> RunSpec {
    RunSpec {
        trace: "t".into(),
        trace_checksum: "00".into(),
        format: None,
        access: Access::Page,
        policy: "lru".into(),
        cache: "1MiB".into(),
        page_size: PageSize::new(4096).unwrap(),
        pages_per_block: NonZeroU32::new(1024).unwrap(),
        device: "none".into(),
        device_spec: String::new(),
        address_map: None,
        aging: None,
        measure: Measure::AsCaptured,
        warmup: 0,
        write_miss_fetch: false,
        flush_at_end: false,
        cost: CostModel::default(),
        series_every: 0,
        version: VERSION.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> RunSpec {
        example()
    }

    #[test]
    fn id_changes_with_any_parameter() {
        let p = spec();
        let id = p.id();
        assert_eq!(id.len(), 16);
        assert_eq!(id, p.clone().id());
        let mut q = p.clone();
        q.trace_checksum = "01".into();
        assert_ne!(q.id(), id);
        let mut q = p;
        q.version = "9.9.9".into();
        assert_ne!(q.id(), id);
    }

    /// Stored results are found by their cell's id: this one was recorded by an
    /// earlier wafer (at version 0.3.0), and a change to the spec's canonical JSON that
    /// moved it would orphan every stored cell.
    #[test]
    fn ids_stay_what_they_were() {
        let p = RunSpec {
            version: "0.3.0".into(),
            ..spec()
        };
        assert_eq!(p.id(), "9b3985ebae4b917e");
    }

    #[test]
    fn invalid_values_do_not_deserialise() {
        let mut v = serde_json::to_value(spec()).unwrap();
        assert!(serde_json::from_value::<RunSpec>(v.clone()).is_ok());
        v["page_size"] = 3000.into();
        let e = serde_json::from_value::<RunSpec>(v.clone()).unwrap_err();
        assert!(e.to_string().contains("power of two"), "{e}");
        v["page_size"] = 4096.into();
        v["pages_per_block"] = 0.into();
        assert!(serde_json::from_value::<RunSpec>(v).is_err());
        assert!(PageSize::new(256).is_err() && PageSize::new(1 << 31).is_err());
    }
}
