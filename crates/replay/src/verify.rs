//! Read-back after a replay: every page the replay wrote must carry the announced
//! pattern for its offset, written by the last write the trace made to it.

use crate::align::AlignedBuf;
use crate::error::{Error, Result};
use crate::pattern;
use rustc_hash::FxHashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Read back the pages of `last_write` (byte offset -> write sequence number) in
/// ascending order, coalescing runs of consecutive pages into reads of up to
/// `max_read` bytes. Returns the number of pages checked; the first page that differs
/// is an [`Error::Verify`].
pub fn verify(
    file: &File,
    path: &Path,
    last_write: &FxHashMap<u64, u64>,
    page_size: u32,
    seed: u64,
    max_read: usize,
    progress: &mut dyn FnMut(u64),
) -> Result<u64> {
    let ps = page_size as usize;
    let mut pages: Vec<(u64, u64)> = last_write.iter().map(|(&o, &s)| (o, s)).collect();
    pages.sort_unstable();
    if ps == 0 {
        return Err(Error::Invalid("page size 0".into()));
    }
    let max_pages = (max_read / ps).max(1);
    let buf_len = max_pages
        .checked_mul(ps)
        .ok_or_else(|| Error::Invalid(format!("read-back of {max_pages} pages of {ps} B")))?;
    let mut buf = AlignedBuf::new(buf_len)?;
    let mut i = 0;
    while i < pages.len() {
        let mut j = i + 1;
        while j < pages.len()
            && j - i < max_pages
            && pages[j - 1].0.checked_add(ps as u64) == Some(pages[j].0)
        {
            j += 1;
        }
        let run = &pages[i..j];
        let b = &mut buf.as_mut_slice()[..run.len() * ps];
        file.read_exact_at(b, run[0].0)
            .map_err(|e| Error::io(path, e))?;
        for (k, &(offset, seq)) in run.iter().enumerate() {
            pattern::check(&b[k * ps..(k + 1) * ps], seed, offset, Some(seq))
                .map_err(|what| Error::Verify { offset, what })?;
        }
        i = j;
        progress(i as u64);
    }
    Ok(pages.len() as u64)
}
