//! One array of a [`super::PreparedTrace`]: owned when the trace was prepared in
//! memory, or a view into a mapped prepared file.
//!
//! Why a view: reading 90 MiB of arrays into fresh memory costs a run more than its
//! simulation (every page of the destination is faulted in and zeroed by the kernel,
//! then copied into); a read-only mapping of the file, already in the page cache,
//! costs neither. The view is shared by every run over the trace (an `Arc` of the
//! mapping).

use std::ops::Deref;
use std::sync::Arc;

use memmap2::Mmap;

/// An array that is either a `Vec` or `len` values at byte `start` of a mapping.
#[derive(Debug)]
pub(crate) enum Words<T> {
    /// Prepared in memory.
    Owned(Vec<T>),
    /// In a mapped file (little-endian machines only: the file is little-endian).
    Mapped {
        map: Arc<Mmap>,
        start: usize,
        len: usize,
    },
}

impl<T> Default for Words<T> {
    fn default() -> Self {
        Words::Owned(Vec::new())
    }
}

impl<T: bytemuck::Pod> Deref for Words<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match self {
            Words::Owned(v) => v,
            Words::Mapped { map, start, len } => {
                // Alignment and bounds were checked when the view was made.
                bytemuck::cast_slice(&map[*start..*start + len * size_of::<T>()])
            }
        }
    }
}

impl<T: bytemuck::Pod> Words<T> {
    /// `len` values at byte `start` of `map`, or None when they do not fit in it or
    /// are not aligned for `T`.
    pub(crate) fn mapped(map: &Arc<Mmap>, start: usize, len: usize) -> Option<Words<T>> {
        let end = len.checked_mul(size_of::<T>())?.checked_add(start)?;
        let bytes = map.get(start..end)?;
        bytemuck::try_cast_slice::<u8, T>(bytes).ok()?;
        Some(Words::Mapped {
            map: Arc::clone(map),
            start,
            len,
        })
    }
}
