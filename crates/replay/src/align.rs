//! Buffers whose start is aligned for O_DIRECT.
//!
//! Direct I/O on Linux needs the memory address, the file offset and the length to be
//! multiples of the device's logical block size (`open(2)`, "O_DIRECT"). 4096 covers
//! every logical block size in use (512 B and 4 KiB). The workspace denies `unsafe`, so
//! instead of an aligned allocator the buffer over-allocates a `Vec<u8>` by one
//! alignment unit and exposes the aligned window inside it; the vector is never grown,
//! so the window never moves.
//!
//! Sizes come from options and traces, so the allocation is fallible: a size that
//! overflows or that the allocator refuses is an error, not an abort.

use crate::error::{Error, Result};

/// Alignment of every buffer handed to the kernel.
pub const ALIGN: usize = 4096;

/// A zero-filled byte buffer whose first byte sits on an [`ALIGN`] boundary.
pub struct AlignedBuf {
    raw: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBuf {
    /// A buffer of `len` bytes (zeroed); an error if `len` plus the alignment slack
    /// overflows or cannot be allocated.
    pub fn new(len: usize) -> Result<AlignedBuf> {
        let too_big = || Error::Invalid(format!("cannot allocate an I/O buffer of {len} bytes"));
        let total = len.checked_add(ALIGN).ok_or_else(too_big)?;
        let mut raw = Vec::new();
        raw.try_reserve_exact(total).map_err(|_| too_big())?;
        raw.resize(total, 0);
        let addr = raw.as_ptr() as usize;
        let start = (ALIGN - addr % ALIGN) % ALIGN;
        Ok(AlignedBuf { raw, start, len })
    }

    /// Capacity in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The aligned bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.raw[self.start..self.start + self.len]
    }

    /// The aligned bytes, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.raw[self.start..self.start + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_is_aligned_and_sized() {
        for len in [0, 1, 512, 4096, 12288, 1 << 20] {
            let mut b = AlignedBuf::new(len).unwrap();
            assert_eq!(b.as_slice().as_ptr() as usize % ALIGN, 0);
            assert_eq!(b.as_mut_slice().len(), len);
            assert_eq!(b.len(), len);
            assert!(b.as_slice().iter().all(|&x| x == 0));
        }
    }

    /// A size near `usize::MAX` is an error, not an overflow or an abort.
    #[test]
    fn impossible_sizes_are_errors() {
        for len in [usize::MAX, usize::MAX - ALIGN + 1, usize::MAX / 2] {
            let e = AlignedBuf::new(len).err().expect("refused");
            assert!(e.to_string().starts_with("cannot allocate"), "{e}");
        }
    }
}
