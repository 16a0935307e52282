//! Running out of memory ends `wafer` with one line and exit status 1, like every
//! other runtime error. Rust's own handler prints two lines (and a backtrace when
//! `RUST_BACKTRACE` is set) and aborts with status 134; stable Rust offers no hook for
//! it, so the binary's global allocator is the system allocator with a check on the
//! pointer it returns. Nothing here allocates: the message is composed on the stack
//! and the process ends with `_exit`, which runs no handler that could allocate or
//! wait for a lock held by the thread that ran out. A fallible allocation
//! ([`wafer_trace::alloc::fallibly`]) gets its null back instead.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, ending the process with one line when it fails.
pub struct OneLineOnOom;

// SAFETY: every call is forwarded unchanged to `System`, which upholds the contract;
// a null result never returns to the caller.
unsafe impl GlobalAlloc for OneLineOnOom {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        checked(System.alloc(layout), layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        checked(System.alloc_zeroed(layout), layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        checked(System.realloc(ptr, layout, new_size), new_size)
    }
}

/// `p`, unless it is null where the caller cannot handle it: a `try_reserve` run
/// [`wafer_trace::alloc::fallibly`] gets its null back (and reports it, naming what
/// grew), any other allocation ends the process.
fn checked(p: *mut u8, bytes: usize) -> *mut u8 {
    if p.is_null() && !wafer_trace::alloc::is_fallible() {
        out_of_memory(bytes);
    }
    p
}

/// `wafer: out of memory (could not allocate N bytes)` on stderr, then exit 1.
fn out_of_memory(bytes: usize) -> ! {
    const HEAD: &[u8] = b"wafer: out of memory (could not allocate ";
    const TAIL: &[u8] = b" bytes; a smaller trace, cache or device, or wafer sim --stream)\n";
    let mut line = [0u8; 160];
    line[..HEAD.len()].copy_from_slice(HEAD);
    let mut n = HEAD.len();
    let mut digits = [0u8; 20];
    let mut d = digits.len();
    let mut v = bytes;
    loop {
        d -= 1;
        digits[d] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    line[n..n + digits.len() - d].copy_from_slice(&digits[d..]);
    n += digits.len() - d;
    line[n..n + TAIL.len()].copy_from_slice(TAIL);
    n += TAIL.len();
    // SAFETY: writes `n` initialised bytes of a live stack buffer to fd 2, then ends
    // the process without running handlers.
    unsafe {
        libc::write(2, line.as_ptr().cast(), n);
        libc::_exit(1)
    }
}
