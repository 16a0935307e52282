//! Per-page tables, allocated written.
//!
//! A table of zeros from `vec![0; n]` comes from `calloc`, whose fresh memory the
//! kernel backs with its shared zero page on the first read. The first write to each
//! 4 KiB page then faults a second time, and replacing that read-only mapping flushes
//! the TLB of every core running the process: an interprocessor interrupt per page,
//! per cell, to the other workers of a grid (BENCHMARKS.md, "Cores"). A table filled
//! by writing takes one fault per page and no flush.

/// `n` copies of `v`, every element written once.
pub fn filled<T: Copy>(n: usize, v: T) -> Vec<T> {
    let mut t = Vec::with_capacity(n);
    t.resize(n, v);
    t
}
