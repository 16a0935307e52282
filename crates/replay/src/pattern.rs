//! The data pattern every written page carries, so that a read-back can prove which
//! write of the trace put it there and that it landed at the right address.
//!
//! Pattern `wafer-page-v1`: a page is a sequence of little-endian 64-bit words.
//!
//! | word | value |
//! |---|---|
//! | 0 | [`MAGIC`] (`"wafrpag1"` in ASCII, little-endian) |
//! | 1 | the seed announced in the report |
//! | 2 | byte offset of the page in the target |
//! | 3 | write sequence number: 1 for the first write I/O of the replay, 2 for the next, ... |
//! | i >= 4 | `mix(seed ^ offset ^ seq * 0x9E3779B97F4A7C15 ^ i)` |
//!
//! where `mix` is the SplitMix64 output function (Steele, Lea and Flood, "Fast
//! splittable pseudorandom number generators", OOPSLA 2014): `z = x + 0x9E3779B97F4A7C15;
//! z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9; z = (z ^ z >> 27) * 0x94D049BB133111EB;
//! z ^ z >> 31` (wrapping arithmetic). The filler words make every page's content
//! unique, so that neither a stale page nor a page written at the wrong offset can pass
//! for the expected one. Pages must be a multiple of 32 bytes (four header words).

/// Word 0 of every page: `"wafrpag1"` read as a little-endian `u64`.
pub const MAGIC: u64 = u64::from_le_bytes(*b"wafrpag1");

/// Name of the pattern, announced in reports.
pub const NAME: &str = "wafer-page-v1";

/// One-line description announced in reports.
pub const DESCRIPTION: &str = "little-endian u64 words: w0 = 0x3167617072666177 (\"wafrpag1\"), \
w1 = seed, w2 = byte offset of the page in the target, w3 = write sequence number (1-based, \
per write I/O), wi = splitmix64(seed ^ offset ^ seq*0x9E3779B97F4A7C15 ^ i) for i >= 4";

const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The SplitMix64 output function.
#[inline]
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(GOLDEN);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[inline]
fn word(seed: u64, offset: u64, seq: u64, i: u64) -> u64 {
    match i {
        0 => MAGIC,
        1 => seed,
        2 => offset,
        3 => seq,
        _ => mix(seed ^ offset ^ seq.wrapping_mul(GOLDEN) ^ i),
    }
}

/// Fill `buf` (whole pages of `page_size` bytes, the first at byte `offset` of the
/// target) with the pattern of write `seq`.
pub fn fill(buf: &mut [u8], page_size: usize, seed: u64, offset: u64, seq: u64) {
    if page_size == 0 {
        return;
    }
    for (p, page) in buf.chunks_exact_mut(page_size).enumerate() {
        // The stamp of a page, not an address: the player only fills pages inside its
        // range, and modular arithmetic keeps a library caller's odd offset panic-free.
        let off = offset.wrapping_add((p as u64).wrapping_mul(page_size as u64));
        for (i, w) in page.chunks_exact_mut(8).enumerate() {
            w.copy_from_slice(&word(seed, off, seq, i as u64).to_le_bytes());
        }
    }
}

/// What a page read back says about itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// Word 2: the offset it was written for.
    pub offset: u64,
    /// Word 3: the write that wrote it.
    pub seq: u64,
}

/// Check one page read back from byte `offset`: it must carry the pattern for that
/// offset and `seed`, written by write `expect_seq` when given. Returns the page's
/// stamp, or a description of the first difference.
pub fn check(
    page: &[u8],
    seed: u64,
    offset: u64,
    expect_seq: Option<u64>,
) -> Result<Stamp, String> {
    let w = |i: usize| u64::from_le_bytes(page[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
    if page.len() < 32 {
        return Err(format!(
            "page of {} bytes is too small for the pattern",
            page.len()
        ));
    }
    if w(0) != MAGIC {
        return Err(format!(
            "no pattern (word 0 is {:#018x}, expected {MAGIC:#018x})",
            w(0)
        ));
    }
    if w(1) != seed {
        return Err(format!("written with seed {} (expected {seed})", w(1)));
    }
    if w(2) != offset {
        return Err(format!(
            "carries the page of byte offset {} (misplaced write)",
            w(2)
        ));
    }
    let seq = w(3);
    if let Some(e) = expect_seq {
        if seq != e {
            return Err(format!(
                "written by write #{seq}, expected the last write to it, #{e}"
            ));
        }
    }
    for i in 4..page.len() / 8 {
        let want = word(seed, offset, seq, i as u64);
        if w(i) != want {
            return Err(format!(
                "word {i} is {:#018x}, expected {want:#018x} (torn or corrupted page)",
                w(i)
            ));
        }
    }
    Ok(Stamp { offset, seq })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first SplitMix64 output for state 0 is the published reference value
    /// 0xE220A8397B1DCDAF (the generator adds the constant before mixing).
    #[test]
    fn mix_matches_splitmix64_reference() {
        assert_eq!(mix(0), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn fill_then_check_round_trips_and_detects_damage() {
        let ps = 4096;
        let mut buf = vec![0u8; 3 * ps];
        fill(&mut buf, ps, 7, 40960, 12);
        for p in 0..3 {
            let off = 40960 + (p * ps) as u64;
            let s = check(&buf[p * ps..(p + 1) * ps], 7, off, Some(12)).unwrap();
            assert_eq!(
                s,
                Stamp {
                    offset: off,
                    seq: 12
                }
            );
        }
        assert!(check(&buf[..ps], 7, 40960, Some(11))
            .unwrap_err()
            .contains("#12"));
        assert!(check(&buf[..ps], 8, 40960, None)
            .unwrap_err()
            .contains("seed 7"));
        assert!(check(&buf[ps..2 * ps], 7, 40960, None)
            .unwrap_err()
            .contains("misplaced"));
        buf[100] ^= 1;
        assert!(check(&buf[..ps], 7, 40960, None)
            .unwrap_err()
            .contains("word 12"));
        assert!(check(&[0u8; 4096], 7, 0, None)
            .unwrap_err()
            .contains("no pattern"));
    }
}
