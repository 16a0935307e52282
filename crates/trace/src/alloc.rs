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
}
