//! Prefetch hints: start loading an element's cache line without waiting for it.
//!
//! The simulators keep per-page state in flat arrays indexed by page (a policy's
//! per-page table, an FTL's mapping table), so a large trace makes each access a
//! random read that misses the CPU caches. A caller that knows the pages of the next
//! accesses can ask for those lines early and let the loads of several accesses
//! overlap. A plain load would do the same but occupies the pipeline until the line
//! arrives; the prefetch instruction does not. A hint only: it never faults and changes
//! no result (no-op off x86-64).

/// Prefetch `slice[i]` into every cache level, if `i` is in bounds.
#[inline(always)]
pub fn prefetch<T>(slice: &[T], i: usize) {
    if let Some(x) = slice.get(i) {
        #[cfg(target_arch = "x86_64")]
        safe_arch::prefetch_t0(x);
        #[cfg(not(target_arch = "x86_64"))]
        let _ = x;
    }
}
