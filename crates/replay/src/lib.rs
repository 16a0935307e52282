//! The workload player: replays a trace (typically an after-cache trace from `wafer
//! sim`) on a real file or block device and measures it.
//!
//! Paper 000 (TS-CLOCK: D. H. Kang, C. Min, Y. I. Eom, "An Efficient Buffer Replacement
//! Algorithm for NAND Flash Storage Devices", IEEE MASCOTS 2014, Sec. IV-A) replays
//! each policy's after-cache trace "on top of real devices ... with the O_DIRECT
//! option" and compares elapsed times; paper 003 (the Sorted-Clock paper, see
//! `wafer_cache::policies::sorted_clock`) calls the same component the *workload
//! player*, "a standalone program that plays the storage access requests on the actual
//! storage devices and measures the performance (elapsed times and read/write
//! throughput)". This crate is that player:
//!
//! * [`plan`]: a first pass over the trace; requests become the whole pages they touch,
//!   devices are laid out one after another, `--wrap` maps addresses modulo the target;
//! * [`safety`] and [`mounts`]: block devices need `destructive`, are refused while
//!   mounted or stacked on, files while they back a loop device, are mounted or are
//!   swap; targets too small are refused unless wrapping;
//! * [`target`]: O_DIRECT with a stated fallback, file creation and preallocation;
//! * [`player`]: a pool of `queue_depth` threads doing `pread`/`pwrite` on
//!   [`align::AlignedBuf`]s, trace order and overlap hazards kept, optional
//!   timestamp pacing. **Engine decision**: threads, not io_uring, because io_uring
//!   needs `unsafe` FFI or an extra dependency and the workspace denies `unsafe`; a
//!   blocking thread per queue slot keeps flash cards and SATA/NVMe SSDs busy at the
//!   depths studied (1-32), at the cost of a context switch per I/O. [`fio`] offers
//!   fio's engines (libaio) through an iolog v2 when fio is installed;
//! * [`pattern`]: every written page carries an announced, verifiable pattern;
//!   [`verify`] reads every written page back;
//! * [`histogram`] and [`report`]: elapsed time, MB/s, IOPS and service-time
//!   percentiles for reads and writes apart.
//!
//! The entry point is [`replay`].
#![deny(missing_docs)]

pub mod align;
pub mod error;
pub mod fio;
pub mod histogram;
pub mod mounts;
pub mod pattern;
pub mod plan;
pub mod player;
pub mod report;
pub mod safety;
pub mod session;
pub mod target;
pub mod verify;

pub use error::{Error, Result};
pub use player::Timing;
pub use report::Report;
pub use session::{replay, Engine, Options, Stage, DEFAULT_MAX_GAP_S, SPEED_RANGE};
