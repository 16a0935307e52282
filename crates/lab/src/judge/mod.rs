//! Judge: the verdict rule on a claim's cells.

pub mod claims;
