//! What a study file declares beyond its grid: the paper it reproduces and that
//! paper's setup (`[paper]`), its stand-in traces in groups judged apart
//! (`[[groups]]`), the sensitivity studies of its claims (`[[sensitivity]]`)
//! and its claims (`[[claims]]`, [`Claim`]; judged by [`crate::claims`]). The five paper
//! studies are files of this schema under `studies/` of the repository
//! (`docs/experiments.md`, "Studies").

use serde::{Deserialize, Serialize};

/// The paper's own setup, as its text states it (`[paper]`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperSetup {
    /// The paper, cited in full.
    pub reference: String,
    /// Workload and the level it was traced at.
    pub workload: String,
    /// Cache sizes.
    pub sizes: String,
    /// The policies it compares and how it configures them (`not stated` when it
    /// does not say).
    #[serde(default = "not_stated")]
    pub policies: String,
    /// Devices and FTLs.
    pub device: String,
    /// Aging or preconditioning.
    pub aging: String,
    /// What was measured.
    pub metric: String,
    /// The page-cache rule on a write miss as the paper states it (`not stated` when
    /// it does not).
    #[serde(default = "not_stated")]
    pub write_miss: String,
    /// How requests arrive (an on-board cache study's loads; `not stated` when the
    /// paper does not say).
    #[serde(default = "not_stated")]
    pub arrivals: String,
}

fn not_stated() -> String {
    "not stated".into()
}

/// Stand-in traces judged together (`[[groups]]`): every claim gets one verdict per
/// group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceGroup {
    /// Short name in verdict lines and figure labels.
    pub name: String,
    /// Trace files: a path relative to the study file's folder, a public trace by its
    /// path in a trace folder (`wafer traces list`), or one of wafer's bundled
    /// captures under `traces/` of the repository. A group runs only when all of its
    /// traces are found; otherwise it is left out with a line saying how to fetch them.
    pub traces: Vec<String>,
    /// The group's cache sizes (a share of each trace's footprint suits captures
    /// whose footprints are small).
    pub sizes: Vec<String>,
    /// What the group's workloads differ in from the paper's.
    #[serde(default = "not_stated")]
    pub differences: String,
}

/// What a sensitivity point replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Vary {
    /// The claim's device (a device spec such as `microsd-16g:rw_log_blocks=1`).
    Device,
    /// The claim's proposed policy (a policy label such as `craw:c=4`).
    Policy,
    /// The claim's baseline (a policy label such as `clock:insert_ref=1`).
    Baseline,
}

/// A sensitivity study of one claim (`[[sensitivity]]`): its policies on the study's
/// traces and cache sizes, aged and flushed as the study, with one condition varied:
/// the device or the proposed policy's parameter. It runs as an experiment of its own
/// through the same runner, in `<out>/sensitivity/<slug>/`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sensitivity {
    /// Its folder under `<out>/sensitivity/`.
    pub slug: String,
    /// The claim, numbered from 1 in the file's order.
    pub claim: usize,
    /// What varies, in words.
    pub axis: String,
    /// What a point replaces: the claim's `device`, `policy` or `baseline`.
    pub vary: Vary,
    /// `[value, device spec or policy label]` in the axis' order.
    pub points: Vec<(String, String)>,
    /// The value the study itself runs.
    pub study_point: String,
    /// The value of the paper's own setup, if the paper gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paper_point: Option<String>,
}

impl Sensitivity {
    /// The marks of point `value`: the study's and the paper's operating points.
    pub fn mark(&self, value: &str) -> &'static str {
        match (
            value == self.study_point,
            self.paper_point.as_deref() == Some(value),
        ) {
            (true, true) => " (preset, paper)",
            (true, false) => " (preset)",
            (false, true) => " (paper)",
            (false, false) => "",
        }
    }
}

/// How a comparison reads a cell (lower is better for every metric). In a study file:
/// `elapsed`, `device-time`, `erases`, `erases-before-flush`, `cost-time`,
/// `pages-written`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Elapsed time of the after-cache replay on the timed device.
    Elapsed,
    /// Device busy time (flash operation latencies summed).
    DeviceTime,
    /// Block erases on the device, end flush included (the lifetime view).
    Erases,
    /// Block erases before the end flush began.
    ErasesBeforeFlush,
    /// Cost-model I/O time (reads x t_r + writes x t_w).
    CostTime,
    /// Pages the cache wrote to storage (write-backs + padding).
    PagesWritten,
}

/// How a claim is expressed (`reduction` or `ratio` in a study file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    /// `1 - A/B` ("outperforms by x%").
    Reduction,
    /// `B/A` ("x times less").
    Ratio,
}

/// How the paper reduces its figures over cache sizes (`up-to` or `mean` in a study
/// file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Over {
    /// "up to": the largest effect.
    UpTo,
    /// "on average" or unqualified: the mean effect.
    Mean,
}

/// One claim of a paper and how wafer checks it: a `[[claims]]` entry of a study or
/// experiment file (`docs/experiments.md`, "Claims").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The paper's sentence, abridged, with its figure or section.
    pub text: String,
    /// The proposed policy (a policy label of the grid, as results carry it).
    pub policy: String,
    /// The baseline.
    pub baseline: String,
    /// The metric (lower is better).
    pub metric: Metric,
    /// How the claim is expressed.
    pub form: Form,
    /// How the paper reduces over cache sizes.
    #[serde(default = "mean")]
    pub over: Over,
    /// The paper's figure: 0.29 for "29% less", 3.7 for "3.7 times less"; None for
    /// a claim of direction only (no figure given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paper: Option<f64>,
    /// Device column to read (`none` for cache-only metrics).
    #[serde(default = "no_device")]
    pub device: String,
    /// What still differs from the paper's setup for this claim.
    #[serde(default = "no_differences")]
    pub differences: String,
}

fn mean() -> Over {
    Over::Mean
}
fn no_device() -> String {
    "none".into()
}
fn no_differences() -> String {
    "none stated".into()
}
