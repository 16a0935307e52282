//! Byte sources: transparent decompression and a peek at the first bytes.
//!
//! Compression is recognised by magic bytes, never by file name: gzip (`1f 8b`,
//! multi-member files included, as `cat a.gz b.gz` produces) and zstd
//! (`28 b5 2f fd`, or a skippable frame `5? 2a 4d 18` first, as `pzstd` writes before
//! every frame; several frames are one stream). Anything else is read as is.

use crate::error::{Error, Result};
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::Path;

/// A boxed byte stream a reader owns.
pub(crate) type Stream = Box<dyn Read + Send>;

/// gzip magic bytes.
const GZIP: [u8; 2] = [0x1f, 0x8b];
/// zstd frame magic bytes.
const ZSTD: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Whether `head` starts a zstd stream: a frame, or a skippable frame (magic
/// 0x184D2A50 to 0x184D2A5F), which `pzstd` puts before each frame to record its size.
fn is_zstd(head: &[u8]) -> bool {
    head.starts_with(&ZSTD)
        || (head.len() >= 4 && head[0] >> 4 == 0x5 && head[1..4] == [0x2a, 0x4d, 0x18])
}

/// Bytes of the decompressed stream format detection looks at.
pub(crate) const PEEK: usize = 64 * 1024;

/// Wrap `raw` in a decompressor if its first bytes are a gzip or zstd magic.
pub(crate) fn decompress(path: &Path, raw: Stream) -> Result<Stream> {
    let mut br = BufReader::with_capacity(256 * 1024, raw);
    let head = br.fill_buf().map_err(|e| Error::io(path, e))?;
    if head.starts_with(&GZIP) {
        Ok(Box::new(flate2::read::MultiGzDecoder::new(br)))
    } else if is_zstd(head) {
        let dec = zstd::stream::read::Decoder::with_buffer(br).map_err(|e| Error::io(path, e))?;
        Ok(Box::new(dec))
    } else {
        Ok(Box::new(br))
    }
}

/// Read up to `n` bytes of `s` and return them together with a stream that still
/// yields every byte from the start.
pub(crate) fn peek(path: &Path, mut s: Stream, n: usize) -> Result<(Vec<u8>, Stream)> {
    let mut head = Vec::with_capacity(n);
    (&mut s)
        .take(n as u64)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(path, e))?;
    let rest: Stream = Box::new(Cursor::new(head.clone()).chain(s));
    Ok((head, rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn all(s: Stream) -> Vec<u8> {
        let mut v = vec![];
        let mut s = s;
        s.read_to_end(&mut v).unwrap();
        v
    }

    #[test]
    fn gzip_and_zstd_are_undone_by_magic() {
        let text = b"1,2,3\n4,5,6\n".repeat(100);
        let p = Path::new("x");
        let mut gz = flate2::write::GzEncoder::new(vec![], flate2::Compression::fast());
        gz.write_all(&text).unwrap();
        let gz = gz.finish().unwrap();
        // Two gzip members back to back read as one stream.
        let two = [gz.clone(), gz].concat();
        assert_eq!(
            all(decompress(p, Box::new(Cursor::new(two))).unwrap()),
            text.repeat(2)
        );
        let zs = zstd::encode_all(&text[..], 1).unwrap();
        assert_eq!(all(decompress(p, Box::new(Cursor::new(zs))).unwrap()), text);
        assert_eq!(
            all(decompress(p, Box::new(Cursor::new(text.clone()))).unwrap()),
            text
        );
    }

    /// `pzstd` output: each frame preceded by a skippable frame holding its size. It
    /// was read as raw bytes (no zstd magic first) and refused as an unknown format.
    #[test]
    fn multi_frame_zstd_with_skippable_frames_is_one_stream() {
        let text = b"1,2,3\n4,5,6\n".repeat(100);
        let (a, b) = text.split_at(500);
        let mut pz = Vec::new();
        let mut plain = Vec::new();
        for chunk in [a, b] {
            let frame = zstd::encode_all(chunk, 1).unwrap();
            pz.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0]);
            pz.extend_from_slice(&(frame.len() as u32).to_le_bytes());
            pz.extend_from_slice(&frame);
            plain.extend_from_slice(&frame);
        }
        let p = Path::new("x");
        assert_eq!(all(decompress(p, Box::new(Cursor::new(pz))).unwrap()), text);
        assert_eq!(
            all(decompress(p, Box::new(Cursor::new(plain))).unwrap()),
            text
        );
        // Not a skippable frame: read as is.
        let odd = [0x60, 0x2a, 0x4d, 0x18, 1, 2];
        assert_eq!(
            all(decompress(p, Box::new(Cursor::new(odd.to_vec()))).unwrap()),
            odd
        );
    }

    #[test]
    fn peek_keeps_every_byte() {
        let data: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
        let (head, rest) = peek(Path::new("x"), Box::new(Cursor::new(data.clone())), 100).unwrap();
        assert_eq!(head, &data[..100]);
        assert_eq!(all(rest), data);
    }
}
