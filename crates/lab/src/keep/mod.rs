//! Keep: what a cell produced, the store of finished cells, prepared traces, the output
//! folder's lock.

pub mod lock;
pub mod parquet_file;
pub mod prepared;
pub mod result;
pub mod store;
