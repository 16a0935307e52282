//! One file per policy. The registry (names, parameters, dispatch) lives in
//! `crate::registry`.

pub mod lru;
