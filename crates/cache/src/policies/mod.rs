//! One file per policy. The registry (names, parameters, dispatch) lives in
//! `crate::registry`.

pub mod arc;
pub mod block_group;
pub mod bplru;
pub mod bua;
pub mod car;
pub mod cfclock;
pub mod cflru;
pub mod clock;
pub mod clock_pro;
pub mod craw;
pub mod craw_a;
pub mod craw_core;
pub mod fab;
pub mod fifo;
pub mod lb_clock;
pub mod linux2q;
pub mod lirs;
pub mod lru;
pub mod lru_wsr;
pub mod opt;
pub mod s3fifo;
pub mod sieve;
pub mod sorted_clock;
pub mod sorted_clock_wsr;
pub mod sorted_ring;
pub mod ts_clock;
pub mod two_q;
