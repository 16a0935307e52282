//! Test-only reference models: the first, simpler implementations of policies that
//! were later rewritten for speed, kept unchanged so differential tests can check the
//! fast versions against them event for event. Compiled for tests only.

pub mod bua;
pub mod clock_pro;
pub mod ts_clock;
