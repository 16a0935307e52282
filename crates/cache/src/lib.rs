//! The buffer-cache simulator of wafer.
//!
//! Design: a [`Policy`] sees one page access at a time ([`Access`]) and reports every
//! page it drops through an [`IoSink`] (a dirty write-back, a clean drop, block-level
//! padding). The simulation loop is generic over the policy and the sink, so each
//! policy is monomorphised and no dynamic call happens per access; the one dynamic
//! choice (which policy) is made once in the registry. Pages reach policies as dense
//! `u32` ids (`wafer_trace::Densifier`) so per-page state lives in flat arrays; queues
//! are [`list::IndexList`]s over those arrays. A policy defined outside the crate (a
//! user's Python class) runs as [`external::External`], which keeps the shared
//! bookkeeping and asks a chooser for victims; only that path calls dynamically.
#![deny(missing_docs)]

pub mod after;
pub mod bits;
pub mod curve;
pub mod engine;
pub mod error;
pub mod external;
pub mod footprint;
pub mod list;
pub mod metrics;
pub mod params;
pub mod policy;
pub mod prepared;
pub mod registry;
mod ring;
mod table;
pub mod together;

pub use after::{AfterError, AfterSink, IoKind, NullSink, StorageOp};
pub use engine::{simulate, CostModel, Input, SimConfig};
pub use error::SimError;
pub use footprint::Footprint;
pub use metrics::Metrics;
pub use params::NoParams;
pub use policy::{Access, IoSink, ParamError, ParamSet, ParamSpec, Policy, PolicyCtx};
pub use prepared::PreparedTrace;
pub use registry::{run_policy, PolicyInfo, PolicySpec, POLICIES};
pub use together::{simulate_together, Together};
pub mod policies;
#[cfg(test)]
mod reference;
#[cfg(any(test, feature = "test-utils"))]
pub mod testutil;
