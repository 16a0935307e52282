//! `[board]`: a study of a timed SSD with an on-board cache (the design of paper 004:
//! M. Huang, O. Serres, V. K. Narayana, T. El-Ghazawi, G. Newby, "Efficient Cache
//! Design for Solid-State Drives", ACM Computing Frontiers 2010). Its cells are timed
//! device runs of a workload x cache size x associativity x APU setting x load, not
//! trace x policy x size x device runs, so the section stands in place of a grid's
//! traces, policies, sizes and devices (`docs/experiments.md`, "On-board cache
//! studies"). The values are checked, and turned into cells, by the study that runs
//! them (`crate::apu`).

use serde::{Deserialize, Serialize};

/// The design of an on-board cache study, as the file states it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Board {
    /// Workloads: generator kinds (`constant-write`, `random-write`, `write-biased`,
    /// `thrash`, `iozone`) and `postmark`, the bundled PostMark capture.
    pub workloads: Vec<String>,
    /// On-board cache sizes, whole MiB (`"8MiB"`); each workload also runs without a
    /// cache.
    pub sizes: Vec<String>,
    /// Associativities (1 = direct mapped).
    pub ways: Vec<u32>,
    /// APU settings: `off` (write-back alone), `lru`, `lfu`.
    pub apu: Vec<String>,
    /// Mean gaps of the Poisson arrivals (`"10ms"`): the whole grid runs at each load.
    pub gaps: Vec<String>,
    /// Least requests of a micro benchmark cell (cells with a cache run enough to
    /// fill it).
    #[serde(default = "least_requests")]
    pub requests: u64,
    /// Logical capacity of the device, whole GiB (`"16GiB"`).
    pub capacity: String,
    /// The idle-threshold sweep (APU-LRU, 2-way), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Sweep>,
}

/// The idle-threshold sweep of an on-board cache study (paper 004, Fig. 11).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    /// Workloads swept.
    pub workloads: Vec<String>,
    /// Cache size, whole MiB.
    pub size: String,
    /// Idle thresholds (`"0.5ms"`).
    pub thresholds: Vec<String>,
}

fn least_requests() -> u64 {
    2_000
}
