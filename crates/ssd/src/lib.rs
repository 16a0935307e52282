//! wafer-ssd: a timed SSD with an on-board write cache and automatic periodic update
//! (paper 004: M. Huang, O. Serres, V. K. Narayana, T. El-Ghazawi, G. Newby, "Efficient
//! Cache Design for Solid-State Drives", ACM Computing Frontiers 2010; `docs/ssd.md`).
//!
//! Requests arrive at trace timestamps or from an [`Arrival`] process, are admitted in
//! arrival order up to the native command queueing depth, and are served concurrently
//! by the [`OnBoardCache`], a host link and the parallel units of a [`Flash`]
//! back end: a wafer-ftl FTL ([`FtlFlash`], whose GC and merge work is charged to the
//! operation that caused it, on its unit) or constant page times ([`FixedFlash`]). The
//! timing model is documented in [`device`]; the cache in [`cache`].
//!
//! ```
//! use wafer_ssd::{Apu, Assoc, CacheConfig, FixedFlash, Ssd, SsdConfig};
//! use wafer_trace::{Op, Request};
//! let cfg = SsdConfig {
//!     cache: Some(CacheConfig { lines: 1024, assoc: Assoc::Ways(2), apu: Apu::Lru }),
//!     ..SsdConfig::default()
//! };
//! let mut ssd = Ssd::new(cfg, FixedFlash::k9(1 << 20))?;
//! let w = Request { time_ns: 0, offset: 0, len: 4096, dev: 0, op: Op::Write };
//! let c = ssd.submit(&w, 0)?;
//! assert_eq!(c.response_ns(), 20_000); // t_cache + t_bus
//! let r = ssd.finish();
//! assert_eq!(r.cache.unwrap().stats.fills_stale, 1);
//! # Ok::<(), wafer_ssd::SsdError>(())
//! ```
#![deny(missing_docs)]

pub mod arrival;
pub mod cache;
mod config;
pub mod device;
mod error;
mod flash;
mod lane;
mod lineset;
mod list;
pub mod metrics;

pub use arrival::{run, Arrival, Arrivals, VecReader};
pub use cache::{CacheStats, Line, LineState, OnBoardCache};
pub use config::{parse_duration_ns, Apu, Assoc, CacheConfig, SsdConfig};
pub use device::{Completion, Ssd, PREFETCH_AHEAD};
pub use error::SsdError;
pub use flash::{FixedFlash, Flash, FtlFlash};
pub use metrics::Report;
