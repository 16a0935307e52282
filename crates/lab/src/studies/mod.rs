//! Studies: the paper studies and the timed-SSD study of paper 004.

pub mod apu;
pub mod presets;
