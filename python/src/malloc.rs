//! Memory reuse in processes that compute many cells (Dask workers).
//!
//! Dask's nanny starts worker processes with `MALLOC_TRIM_THRESHOLD_=65536`, which
//! turns off glibc's dynamic mmap threshold: every large allocation of a cell (the
//! FTL's tables, the policy's per-page arrays) is then a fresh mmap whose pages fault
//! in again, cell after cell. Measured on a 54-cell grid, a worker's share took about
//! twice as long as the same share in a plain process (BENCHMARKS.md, "Dask").
//! Setting the thresholds explicitly keeps freed blocks of up to 32 MiB (glibc's
//! largest mmap threshold on 64-bit) for the next cell.

use std::sync::Once;

/// Keep freed memory for reuse (once per process; glibc on Linux only).
pub fn reuse_freed_memory() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: mallopt only changes allocator tuning parameters; it is safe to call
        // at any time from any thread (glibc serialises it with the arena locks).
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
        }
    });
}
