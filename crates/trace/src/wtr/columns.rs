//! The column codec inside a `.wtr` chunk: each field of the chunk's records is
//! stored as one column of fixed-width bit-packed integers, in frame-of-reference
//! ("plain": value - minimum) or delta (zigzag of the difference to the previous
//! value) form, whichever needs fewer bits. Times and offsets of block traces mostly
//! move forward by small steps, so deltas are narrow; lengths, ops and devices take
//! few distinct values, so plain widths are small (often 0 bits: a constant).
//!
//! Fixed widths make decoding branch-free: one unaligned 8-byte load, a shift and a
//! mask per value, which is what lets a reader decode tens of millions of requests per
//! second. zstd then removes the redundancy fixed widths leave behind.
//!
//! Layout of one column (little-endian): `mode: u8` (0 plain, 1 delta), `bits: u8`
//! (0..=56 or 64), `base: u64` (plain: the minimum; delta: the first value), then
//! `ceil(n * bits / 8)` bytes of values packed from the lowest bit of each byte up.

/// Bytes of a column head.
pub(super) const HEAD: usize = 10;

/// Bytes a reader appends after the decompressed data so that every load of a group
/// of packed values (up to 57 bytes from a value's first byte) stays inside the
/// buffer.
pub(super) const PAD: usize = 64;

fn zigzag(d: u64) -> u64 {
    let d = d as i64;
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(z: u64) -> u64 {
    ((z >> 1) as i64 ^ -((z & 1) as i64)) as u64
}

/// Width in bits of `max`, rounded to the widths the decoder handles (0..=56, 64).
fn width(max: u64) -> u32 {
    let b = 64 - max.leading_zeros();
    if b > 56 {
        64
    } else {
        b
    }
}

/// Append the column of `vals` (non-empty) to `out`.
pub(super) fn encode(vals: &[u64], out: &mut Vec<u8>) {
    let first = vals[0];
    let (mut lo, mut hi, mut zmax, mut prev) = (first, first, 0u64, first);
    for &v in vals {
        lo = lo.min(v);
        hi = hi.max(v);
        zmax = zmax.max(zigzag(v.wrapping_sub(prev)));
        prev = v;
    }
    let (plain_bits, delta_bits) = (width(hi - lo), width(zmax));
    // Plain decodes a little faster: prefer it on a tie.
    let delta = delta_bits < plain_bits;
    let (bits, base) = if delta {
        (delta_bits, first)
    } else {
        (plain_bits, lo)
    };
    out.push(u8::from(delta));
    out.push(bits as u8);
    out.extend_from_slice(&base.to_le_bytes());
    if bits == 0 {
        return;
    }
    let mut packer = Packer::new(out, bits);
    let mut prev = first;
    for &v in vals {
        let x = if delta {
            zigzag(v.wrapping_sub(prev))
        } else {
            v - lo
        };
        prev = v;
        packer.push(x);
    }
    packer.finish();
}

/// Packs values of a fixed bit width into bytes, lowest bit first.
struct Packer<'a> {
    out: &'a mut Vec<u8>,
    bits: u32,
    acc: u128,
    filled: u32,
}

impl<'a> Packer<'a> {
    fn new(out: &'a mut Vec<u8>, bits: u32) -> Self {
        Packer {
            out,
            bits,
            acc: 0,
            filled: 0,
        }
    }

    fn push(&mut self, x: u64) {
        self.acc |= u128::from(x) << self.filled;
        self.filled += self.bits;
        if self.filled >= 64 {
            self.out.extend_from_slice(&(self.acc as u64).to_le_bytes());
            self.acc >>= 64;
            self.filled -= 64;
        }
    }

    fn finish(self) {
        let bytes = self.filled.div_ceil(8) as usize;
        self.out
            .extend_from_slice(&(self.acc as u64).to_le_bytes()[..bytes]);
    }
}

/// Read position in one column of a decompressed chunk.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Cursor {
    delta: bool,
    bits: u32,
    /// Plain: the base; delta: the last value returned (the base before the first).
    prev: u64,
    /// Bit position of the next value in the chunk buffer.
    bitpos: usize,
}

impl Cursor {
    /// Parse the column starting at byte `at` of `raw` holding `n` values; returns the
    /// cursor and the byte where the next column starts, or `None` if the column
    /// head is invalid or its data runs past `raw` (the unpadded data).
    pub(super) fn parse(raw: &[u8], at: usize, n: usize) -> Option<(Cursor, usize)> {
        let head = raw.get(at..at + HEAD)?;
        let delta = match head[0] {
            0 => false,
            1 => true,
            _ => return None,
        };
        let bits = u32::from(head[1]);
        if bits > 56 && bits != 64 {
            return None;
        }
        let base = super::u64le(&head[2..]);
        let data = at + HEAD;
        let end = data.checked_add((n * bits as usize).div_ceil(8))?;
        if end > raw.len() {
            return None;
        }
        Some((
            Cursor {
                delta,
                bits,
                prev: base,
                bitpos: data * 8,
            },
            end,
        ))
    }

    /// Decode the next `dst.len()` values into `dst`. `raw` must carry [`PAD`]
    /// bytes after the data [`Cursor::parse`] checked.
    ///
    /// Eight consecutive values of `b` bits span exactly `b` bytes, so the bit
    /// offsets inside every group of eight are the same: they are computed once,
    /// and each group costs one bounds check and eight load-shift-mask steps.
    #[inline]
    pub(super) fn decode(&mut self, raw: &[u8], dst: &mut [u64]) {
        match (self.bits, self.delta) {
            (0, _) => dst.fill(self.prev),
            (64, false) => self.wide::<false>(raw, dst),
            (64, true) => self.wide::<true>(raw, dst),
            (_, false) => self.packed::<false>(raw, dst),
            (_, true) => self.packed::<true>(raw, dst),
        }
    }

    /// 64-bit values: whole little-endian words.
    fn wide<const DELTA: bool>(&mut self, raw: &[u8], dst: &mut [u64]) {
        let mut at = self.bitpos / 8;
        let mut prev = self.prev;
        for d in dst.iter_mut() {
            let x = super::u64le(&raw[at..]);
            at += 8;
            *d = if DELTA {
                prev = prev.wrapping_add(unzigzag(x));
                prev
            } else {
                prev.wrapping_add(x)
            };
        }
        if DELTA {
            self.prev = prev;
        }
        self.bitpos = at * 8;
    }

    /// 1..=56-bit values.
    fn packed<const DELTA: bool>(&mut self, raw: &[u8], dst: &mut [u64]) {
        let bits = self.bits as usize;
        let mask = (1u64 << bits) - 1;
        let mut prev = self.prev;
        let base = self.prev;
        let mut put = |d: &mut u64, x: u64| {
            *d = if DELTA {
                prev = prev.wrapping_add(unzigzag(x));
                prev
            } else {
                base.wrapping_add(x)
            };
        };
        let shift0 = self.bitpos & 7;
        let offs: [(usize, usize); 8] =
            std::array::from_fn(|i| ((shift0 + i * bits) >> 3, (shift0 + i * bits) & 7));
        let mut at = self.bitpos >> 3;
        let mut groups = dst.chunks_exact_mut(8);
        for g in &mut groups {
            let w: &[u8; PAD] = raw[at..at + PAD].try_into().expect("padded chunk buffer");
            for (d, &(o, sh)) in g.iter_mut().zip(&offs) {
                put(d, (super::u64le(&w[o..]) >> sh) & mask);
            }
            at += bits;
        }
        let mut bp = at * 8 + shift0;
        for d in groups.into_remainder() {
            put(d, (super::u64le(&raw[bp >> 3..]) >> (bp & 7)) & mask);
            bp += bits;
        }
        if DELTA {
            self.prev = prev;
        }
        self.bitpos = bp;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(vals: &[u64]) -> (Vec<u64>, u8, u8) {
        let mut raw = Vec::new();
        encode(vals, &mut raw);
        let (mode, bits) = (raw[0], raw[1]);
        let (mut c, end) = Cursor::parse(&raw, 0, vals.len()).unwrap();
        assert_eq!(end, raw.len());
        raw.extend_from_slice(&[0; PAD]);
        let mut got = vec![0u64; vals.len()];
        // Decode in two uneven steps, as batches do.
        let split = vals.len() / 3;
        let (a, b) = got.split_at_mut(split);
        c.decode(&raw, a);
        c.decode(&raw, b);
        (got, mode, bits)
    }

    #[test]
    fn zigzag_is_a_bijection_on_edges() {
        for d in [0u64, 1, u64::MAX, 1 << 63, (1 << 63) - 1, 12345] {
            assert_eq!(unzigzag(zigzag(d)), d);
        }
        assert_eq!(zigzag(u64::MAX), 1); // -1 -> 1
        assert_eq!(zigzag(1), 2);
    }

    #[test]
    fn constant_column_is_zero_bits() {
        let (got, _, bits) = round_trip(&[7; 100]);
        assert_eq!(bits, 0);
        assert_eq!(got, vec![7; 100]);
    }

    #[test]
    fn increasing_column_uses_delta() {
        let vals: Vec<u64> = (0..1000).map(|i| 1_000_000_000 + i * 3).collect();
        let (got, mode, bits) = round_trip(&vals);
        assert_eq!((mode, bits), (1, 3)); // zigzag(3) = 6: 3 bits
        assert_eq!(got, vals);
    }

    #[test]
    fn small_range_uses_plain() {
        let vals: Vec<u64> = (0..999).map(|i| 4096 << (i % 4)).collect();
        let (got, mode, bits) = round_trip(&vals);
        assert_eq!((mode, bits), (0, 15)); // 32768 - 4096 = 28672 < 2^15
        assert_eq!(got, vals);
    }

    #[test]
    fn extreme_values_round_trip() {
        let vals = [u64::MAX, 0, u64::MAX, 1 << 63, 5, u64::MAX - 1];
        let (got, _, bits) = round_trip(&vals);
        assert_eq!(bits, 64);
        assert_eq!(got, vals);
        let vals = [1u64 << 56, 0, (1 << 56) - 1]; // 57 bits rounds up to 64
        assert_eq!(round_trip(&vals).0, vals);
    }

    #[test]
    fn bad_heads_are_rejected() {
        let mut raw = Vec::new();
        encode(&[1, 2, 3], &mut raw);
        let mut bad = raw.clone();
        bad[0] = 2;
        assert!(Cursor::parse(&bad, 0, 3).is_none());
        let mut bad = raw.clone();
        bad[1] = 60;
        assert!(Cursor::parse(&bad, 0, 3).is_none());
        assert!(Cursor::parse(&raw, 0, 1000).is_none());
        assert!(Cursor::parse(&raw[..5], 0, 3).is_none());
    }
}
