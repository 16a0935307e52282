//! The readers of every input format and the format detection behind
//! [`crate::reader::open`].
//!
//! One file per format; [`text`] and [`binary`] hold the shared decoding loops,
//! [`fields`] the byte-level parsing, [`block`] the block-layer conventions (RWBS,
//! device numbers), [`source`] the decompression.
//!
//! Detection (when no format is forced) looks at the first 64 KiB of the
//! decompressed stream and asks for positive evidence, never for its absence:
//! 1. the binary formats, which have no magic, must show plausible field values
//!    over a sample of records: vscsi v1 and v2 their version byte, SCSI opcodes,
//!    lbns, lengths and timestamps; oracleGeneral its clock times, ids, sizes and
//!    `next_access_vtime` ([`vscsi::looks_like`], [`oracle_general::looks_like`]);
//! 2. otherwise every text format's own decoder is run on up to 64 complete lines,
//!    in the order of [`TEXT_ORDER`]; the first that accepts them all wins. A stray
//!    control byte therefore never makes a text trace "binary": the line holding it
//!    is reported by the text reader. The generic format is never guessed (it needs
//!    a column mapping); giving a [`crate::reader::GenericSpec`] without a format
//!    selects it.
//!
//! When nothing fits, the error says the format cannot be detected, lists what was
//! tried and suggests `--format`. The format chosen is in [`TraceMeta::format`] for
//! every output to name.

mod after_csv;
mod android;
mod binary;
mod blkparse;
mod block;
mod cloudphysics_csv;
mod disksim;
mod fields;
mod fiu;
mod generic;
mod lackey;
mod msr;
mod oracle_general;
mod source;
mod spc;
mod text;
mod vscsi;
mod wafer_csv;

pub(crate) use generic::MAX_COLS as GENERIC_MAX_COLS;
pub(crate) use source::Stream;

use crate::error::{Error, Result};
use crate::reader::{Format, ReadOptions, RequestReader, TraceMeta};
use crate::request::Request;
use binary::BinaryReader;
use std::path::Path;
use text::{accepts, TextReader};

/// Text formats in the order detection tries them (most distinctive first).
pub(crate) const TEXT_ORDER: [Format; 10] = [
    Format::WaferCsv,
    Format::AfterCsv,
    Format::CloudphysicsCsv,
    Format::Android,
    Format::Blkparse,
    Format::Lackey,
    Format::Msr,
    Format::Spc,
    Format::Fiu,
    Format::Disksim,
];

/// Binary formats in the order detection tries them.
pub(crate) const BINARY_ORDER: [Format; 2] = [Format::Vscsi, Format::OracleGeneral];

/// The vscsi version (1 or 2) `head` shows evidence of, if any.
fn vscsi_version(head: &[u8]) -> Option<u8> {
    if vscsi::looks_like(head, vscsi::V1) {
        Some(1)
    } else if vscsi::looks_like(head, vscsi::V2) {
        Some(2)
    } else {
        None
    }
}

/// Guess the format of a stream from its first bytes (`complete`: they are the
/// whole stream).
fn detect(head: &[u8], complete: bool, opts: &ReadOptions) -> Option<Format> {
    if vscsi_version(head).is_some() {
        return Some(Format::Vscsi);
    }
    if oracle_general::looks_like(head) {
        return Some(Format::OracleGeneral);
    }
    TEXT_ORDER.into_iter().find(|&f| match f {
        // Its exact header is evidence enough: a bad record below it is then reported
        // at its line instead of making the whole file undetectable.
        Format::WaferCsv => starts_with_line(head, crate::export::CSV_HEADER),
        Format::AfterCsv => starts_with_line(head, crate::export::AFTER_CSV_HEADER),
        Format::CloudphysicsCsv => accepts(cloudphysics_csv::CloudphysicsCsv, head, complete),
        Format::Android => accepts(android::Android, head, complete),
        Format::Blkparse => accepts(blkparse::Blkparse::default(), head, complete),
        Format::Lackey => accepts(
            lackey::Lackey {
                instructions: opts.instructions,
            },
            head,
            complete,
        ),
        Format::Msr => accepts(msr::Msr, head, complete),
        Format::Spc => accepts(spc::Spc, head, complete),
        Format::Fiu => accepts(fiu::Fiu, head, complete),
        Format::Disksim => accepts(disksim::Disksim, head, complete),
        _ => false,
    })
}

/// Whether `head` starts with the line `header` (ended by `\n` or `\r\n`).
fn starts_with_line(head: &[u8], header: &str) -> bool {
    head.strip_prefix(header.as_bytes())
        .is_some_and(|rest| rest.starts_with(b"\n") || rest.starts_with(b"\r\n"))
}

/// [`Request::check`] on every request one record produced: the message of the first
/// that wafer cannot key apart from other addresses.
#[inline]
fn check_all(rs: &[Request]) -> std::result::Result<(), String> {
    rs.iter().try_for_each(Request::check)
}

fn not_detected(path: &Path) -> Error {
    let tried: Vec<&str> = std::iter::once(Format::Wtr)
        .chain(BINARY_ORDER)
        .chain(TEXT_ORDER)
        .map(Format::name)
        .collect();
    Error::corrupt(
        path,
        format!(
            "cannot detect the trace format (tried {}); pass --format (and a column \
             mapping for generic text)",
            tried.join(", ")
        ),
    )
}

/// Open a (possibly compressed) stream named `path` as a trace.
pub(crate) fn open_stream(
    path: &Path,
    raw: Stream,
    opts: &ReadOptions,
) -> Result<Box<dyn RequestReader>> {
    let stream = source::decompress(path, raw)?;
    let (head, stream) = source::peek(path, stream, source::PEEK)?;
    let complete = head.len() < source::PEEK;
    let format = match (opts.format, &opts.generic) {
        (Some(f), _) => f,
        (None, Some(_)) => Format::Generic,
        (None, None) => {
            if head.starts_with(&crate::wtr::MAGIC) {
                return Err(Error::corrupt(
                    path,
                    "a compressed .wtr file: .wtr is compressed already, decompress it first",
                ));
            }
            detect(&head, complete, opts).ok_or_else(|| not_detected(path))?
        }
    };
    let mut meta = TraceMeta {
        path: path.to_path_buf(),
        format: Some(format),
        has_time: !matches!(format, Format::Lackey),
        has_op: format != Format::OracleGeneral,
        requests: None,
    };
    let skip = opts.skip_invalid;
    Ok(match format {
        Format::Wtr => {
            return Err(Error::corrupt(
                path,
                "a .wtr trace must be opened from an uncompressed file",
            ))
        }
        Format::WaferCsv => Box::new(TextReader::new(
            stream,
            wafer_csv::WaferCsv::default(),
            meta,
            skip,
        )),
        Format::AfterCsv => Box::new(TextReader::new(
            stream,
            after_csv::AfterCsv::default(),
            meta,
            skip,
        )),
        Format::Msr => Box::new(TextReader::new(stream, msr::Msr, meta, skip)),
        Format::Spc => Box::new(TextReader::new(stream, spc::Spc, meta, skip)),
        Format::Blkparse => Box::new(TextReader::new(
            stream,
            blkparse::Blkparse::default(),
            meta,
            skip,
        )),
        Format::Fiu => Box::new(TextReader::new(stream, fiu::Fiu, meta, skip)),
        Format::Disksim => Box::new(TextReader::new(stream, disksim::Disksim, meta, skip)),
        Format::CloudphysicsCsv => Box::new(TextReader::new(
            stream,
            cloudphysics_csv::CloudphysicsCsv,
            meta,
            skip,
        )),
        Format::Android => Box::new(TextReader::new(stream, android::Android, meta, skip)),
        Format::Lackey => Box::new(TextReader::new(
            stream,
            lackey::Lackey {
                instructions: opts.instructions,
            },
            meta,
            skip,
        )),
        Format::Generic => {
            let spec = opts.generic.clone().ok_or_else(|| {
                Error::Invalid(
                    "the generic format needs a column mapping (offset column, units, ...)"
                        .to_string(),
                )
            })?;
            meta.has_time = spec.time_col.is_some();
            meta.has_op = spec.op_col.is_some();
            let parser = generic::Generic::new(spec).map_err(Error::Invalid)?;
            Box::new(TextReader::new(stream, parser, meta, skip))
        }
        // Forced on data that shows no evidence of either version: the version fields
        // decide, and v1 reports a bad one.
        Format::Vscsi => {
            match vscsi_version(&head).unwrap_or_else(|| vscsi::version_by_field(&head)) {
                2 => Box::new(BinaryReader::new(stream, vscsi::VscsiV2, meta, skip)),
                _ => Box::new(BinaryReader::new(stream, vscsi::VscsiV1, meta, skip)),
            }
        }
        Format::OracleGeneral => Box::new(BinaryReader::new(
            stream,
            oracle_general::OracleGeneral,
            meta,
            skip,
        )),
    })
}
