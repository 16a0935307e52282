//! [`CellTask`]: a cell as it is handed to whoever computes it, its [`RunSpec`] with
//! what computing it needs besides ([`TraceSource`]: where its trace is and how to
//! read it).
//!
//! The spec is the cell's identity (its id is the hash of the spec alone) and decides
//! its result: the policy, the cache size, the device and its aging are all read from
//! it. It names its trace only by label and checksum, so the task adds where the trace
//! is. A task is plain data (JSON): a Dask worker computes the cells of its share from
//! their tasks without reading the experiment file or checksumming a trace again.

use serde::{Deserialize, Serialize};
use wafer_trace::{Format, RequestReader};

use crate::error::LabError;
use crate::experiment::{FileStamp, GridPos, Plan, TraceDef};
use crate::spec::RunSpec;

/// Where a cell's trace is and how to read it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceSource {
    /// The trace as declared, its path resolved (a file), or its generator.
    pub def: TraceDef,
    /// The format the file is read as (detected once, when the run was planned).
    pub format: Option<Format>,
    /// The file when it was checksummed: a cell computed from a file that no longer
    /// matches it is not stored under that checksum ([`TraceSource::check_unchanged`]).
    pub stamp: Option<FileStamp>,
    /// Each cell reads the trace itself instead of sharing it prepared in memory
    /// (`stream = true`): how the trace is read, not what a cell computes, so not in
    /// the spec.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
}

impl TraceSource {
    /// Where the requests come from, for messages: the path, or `gen: <spec>`.
    pub fn source(&self) -> String {
        self.def.source()
    }

    /// Open the trace as a stream of requests.
    pub fn open(&self) -> Result<Box<dyn RequestReader>, LabError> {
        self.def.open(self.format)
    }

    /// The format as a cell records it ([`TraceDef::format_label`]).
    pub fn format_label(&self) -> Option<String> {
        self.def.format_label(self.format)
    }

    /// An error unless the trace file still matches the stamp taken when it was
    /// checksummed.
    pub fn check_unchanged(&self) -> Result<(), LabError> {
        let (Some(stamp), Some(path)) = (&self.stamp, &self.def.path) else {
            return Ok(());
        };
        if FileStamp::of(path).is_ok_and(|now| stamp.matches(&now)) {
            return Ok(());
        }
        Err(LabError::Invalid(format!(
            "{}: the trace file changed during the run (its size, time or inode differ from when it was checksummed); its results are not stored: run again",
            path.display()
        )))
    }
}

/// A cell and what computing it needs besides its spec.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellTask {
    /// The cell: its identity, and everything its result depends on.
    pub spec: RunSpec,
    /// Where its trace is and how to read it.
    pub trace: TraceSource,
    /// Keep its after-cache trace as `<out>/after/<id>.csv` (`outputs.keep_after`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_after: bool,
}

impl CellTask {
    /// The cell's id ([`RunSpec::id`]).
    pub fn id(&self) -> String {
        self.spec.id()
    }
}

impl Plan {
    /// Where trace `ti` is and how the cells read it.
    pub fn trace_source(&self, ti: usize) -> TraceSource {
        let (def, format) = &self.traces[ti];
        TraceSource {
            def: def.clone(),
            format: *format,
            stamp: self.stamps[ti],
            stream: self.exp.stream,
        }
    }

    /// The task of `cell`, at `pos` in this plan's grid ([`Plan::grid`]).
    pub fn task(&self, cell: RunSpec, pos: GridPos) -> CellTask {
        CellTask {
            spec: cell,
            trace: self.trace_source(pos.trace),
            keep_after: self.exp.outputs.keep_after,
        }
    }

    /// The task of every cell, in grid order.
    pub fn tasks(&self) -> Vec<CellTask> {
        self.grid()
            .into_iter()
            .map(|(c, pos)| self.task(c, pos))
            .collect()
    }
}
