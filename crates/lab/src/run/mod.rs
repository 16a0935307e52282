//! Run: the one runner, what it computes, and publishing a finished grid.

pub mod compute;
pub mod curve;
pub mod grid;
pub mod steady;
pub mod study;
pub mod timed;
