//! Describe: what a run is (experiment and study files, claims), validated once into a
//! plan of cells; where traces are found; the limits a run stays within.

pub mod board;
pub mod bounds;
pub mod error;
pub mod experiment;
pub mod known_traces;
pub mod options;
pub mod spec;
pub mod study_def;
pub mod task;
pub mod trace_folders;
