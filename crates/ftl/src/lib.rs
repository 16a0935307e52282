//! wafer-ftl: a fast, exact FTL simulator (`docs/ftl.md`). Paper 000
//! (TS-CLOCK: D. H. Kang, C. Min, Y. I. Eom, "An Efficient Buffer Replacement Algorithm
//! for NAND Flash Storage Devices", IEEE MASCOTS 2014) replays after-cache traces on a
//! FAST hybrid FTL (its microSD model) and on a page-level FTL (its SSD model) to
//! compare erase counts and lifetime; Fig. 1 of that paper is a sweep of this
//! simulator.
//!
//! * [`Geometry`]: logical capacity, over-provisioning, page and block size, channels
//!   x ways; physical blocks derived.
//! * [`Ftl`]: the one interface (page-range reads, writes, trims; [`Metrics`];
//!   [`Ftl::reset_counters`]), implemented by [`PageFtl`] (greedy / cost-benefit / FIFO
//!   GC, optional hot/cold separation), [`FastFtl`] and [`BlockFtl`], and dispatched
//!   without vtables by [`AnyFtl`].
//! * [`Device`]: named profiles (`microsd-16g`, `ssd-120g`, `slc-paper002`,
//!   `samsung-k9`) and TOML devices.
//! * [`aging`], [`replay`] and [`sweep`]: preconditioning, trace replay and Fig. 1
//!   studies; [`address_map`]: how a trace's addresses are placed on the device
//!   (refuse, compact or wrap).
//!
//! Entry point:
//!
//! ```
//! use wafer_ftl::{Device, Ftl};
//! let mut dev = Device::from_profile("samsung-k9")?;
//! dev.geometry = wafer_ftl::Geometry::with_op(64 << 20, 0.15, 4096, 64)?; // small copy
//! let mut ftl = dev.build_ftl()?;
//! ftl.write(0, 64)?; // logical pages 0..64
//! ftl.read(100, 1)?; // never written: counted in `unwritten_reads`
//! ftl.trim(0, 8)?;
//! let m = ftl.metrics(); // serde::Serialize
//! assert_eq!(m.counters.host_write_pages, 64);
//! assert_eq!(m.counters.unwritten_reads, 1);
//! # Ok::<(), wafer_ftl::FtlError>(())
//! ```
//!
//! Mapping memory: the page-level and FAST FTLs keep one 32-bit physical page number
//! per logical page (4 bytes; FAST adds a 4-byte block map entry per logical block).
//! The reverse map (the logical page stored in each physical page) models the pages'
//! out-of-band area, which a real device keeps in flash, and costs another 4 bytes
//! per physical page in the simulator.
#![deny(missing_docs)]

pub mod address_map;
pub mod aging;
mod block;
mod device;
mod error;
mod fast;
mod flash;
mod ftl;
mod geometry;
mod metrics;
mod page;
pub mod replay;
pub mod sweep;
mod table;

pub use address_map::{AddressMap, Mapper};
pub use block::BlockFtl;
pub use device::{Device, FtlKind, PROFILES};
pub use error::FtlError;
pub use fast::FastFtl;
pub use ftl::{AnyFtl, Ftl};
pub use geometry::{CellType, Geometry, Latency};
pub use metrics::{Counters, EraseStats, Lifetime, Metrics};
pub use page::{PageConfig, PageFtl, Victim, GC_RESERVE};
