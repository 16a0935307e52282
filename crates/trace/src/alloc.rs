//! Allocations that may fail: a `try_reserve` whose failure the caller reports.
//!
//! A process may install a global allocator that ends it when the system refuses
//! memory (the `wafer` binary does, to say so in one line rather than abort). Such an
//! allocator cannot tell a `try_reserve`, whose caller handles the refusal, from an
//! allocation that cannot fail; [`fallibly`] tells it, for the current thread, and
//! [`is_fallible`] is what it asks before ending the process.

use std::cell::Cell;

thread_local! {
    static FALLIBLE: Cell<bool> = const { Cell::new(false) };
}

/// Run `f`, whose allocations the caller handles when they fail (a `try_reserve`):
/// an allocator that asks [`is_fallible`] returns null for them rather than ending
/// the process.
#[inline]
pub fn fallibly<T>(f: impl FnOnce() -> T) -> T {
    /// Restores the flag, also when `f` unwinds.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            FALLIBLE.set(self.0);
        }
    }
    let _restore = Restore(FALLIBLE.replace(true));
    f()
}

/// Whether the current thread is inside [`fallibly`]: a refused allocation is
/// handled by its caller. Allocates nothing (a global allocator may call it).
#[inline]
pub fn is_fallible() -> bool {
    FALLIBLE.try_with(Cell::get).unwrap_or(false)
}

/// Whether `bytes` of address space can be had now: mapped (never touched, so
/// never backed) and unmapped at once. A check before growth that cannot fail
/// gracefully (arrays that grow with `resize`), where an address-space limit would
/// otherwise abort.
///
/// Why a mapping of its own rather than a `try_reserve` freed at once: glibc's
/// allocator raises its mmap threshold to the size of a freed mapped block, so a
/// probe of tens of MiB moved later tables onto the heap, where they stayed resident
/// after being freed (36 MiB more peak memory on a streamed run).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
pub fn room_for(bytes: u64) -> bool {
    let Ok(len) = usize::try_from(bytes) else {
        return false;
    };
    if len == 0 {
        return true;
    }
    // SAFETY: a fresh anonymous mapping that nothing reads or writes, unmapped with
    // its own address and length.
    unsafe {
        let p = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        );
        if p == libc::MAP_FAILED {
            return false;
        }
        libc::munmap(p, len);
    }
    true
}

/// Whether `bytes` can be allocated now (an allocation freed at once).
#[cfg(not(target_os = "linux"))]
pub fn room_for(bytes: u64) -> bool {
    let Ok(len) = usize::try_from(bytes) else {
        return false;
    };
    let mut probe: Vec<u8> = Vec::new();
    fallibly(|| probe.try_reserve_exact(len)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_holds_inside_only_and_survives_a_panic() {
        assert!(!is_fallible());
        assert!(fallibly(is_fallible));
        assert!(fallibly(|| fallibly(|| true) && is_fallible()));
        assert!(!is_fallible());
        let r = std::panic::catch_unwind(|| fallibly(|| panic!("x")));
        assert!(r.is_err());
        assert!(!is_fallible());
    }

    #[test]
    fn room_for_what_the_address_space_cannot_hold_is_refused() {
        assert!(room_for(0));
        assert!(room_for(1 << 20));
        assert!(!room_for(u64::MAX / 2));
    }
}
