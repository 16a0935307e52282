//! Generic delimited text with a user-given column mapping ([`GenericSpec`]).
//!
//! Fields are split at the spec's delimiter, or at runs of blanks and commas when it
//! has none. The first `skip_lines` lines are skipped (headers). Address and length
//! are integers (decimal, or hex with a `0x` prefix) multiplied by their units
//! (`offset_unit`, `size_unit` bytes); a missing length column means one
//! `size_unit`. Times are decimal numbers (exponents allowed) in `time_unit_s`
//! seconds, converted to ns through `f64` (exact for integers below 2^53 ns); no
//! time column means `NO_TIME`. The op column accepts `r`/`read`/`0` for reads,
//! `w`/`write`/`1` for writes, `t`/`trim`/`d`/`discard` for trims (any case), or the
//! spec's own words ([`crate::reader::OpNames`]) instead; no op column means every
//! request is a read. A device column must hold integers below
//! 2^20.

use super::block::dev_field;
use super::fields::{dec, expected, fixed, hex, split, tokens_blank_or_comma, trim};
use super::text::LineFormat;
use crate::reader::{GenericSpec, OpNames};
use crate::request::{Op, Request, NO_TIME};

/// Largest column index a spec may name (fields are collected into a fixed array).
pub(crate) const MAX_COLS: usize = 64;

/// The generic line decoder.
pub(crate) struct Generic {
    spec: GenericSpec,
    ns_per_unit: f64,
}

impl Generic {
    /// Check the spec and build the decoder.
    pub(crate) fn new(spec: GenericSpec) -> Result<Generic, String> {
        let cols = [
            spec.time_col,
            spec.op_col,
            Some(spec.offset_col),
            spec.size_col,
            spec.dev_col,
        ];
        if cols.iter().flatten().any(|&c| c >= MAX_COLS) {
            return Err(format!(
                "generic format: column numbers must be below {MAX_COLS}"
            ));
        }
        if spec.offset_unit == 0 || spec.size_unit == 0 {
            return Err("generic format: offset and size units must be at least 1 byte".into());
        }
        if let Some(o) = &spec.ops {
            let words = || o.read.iter().chain(&o.write).chain(&o.trim);
            if words().any(|w| w.is_empty() || w.contains(|c: char| c == ',' || c.is_whitespace()))
            {
                return Err(
                    "generic format: op words must be non-empty, without blanks or commas".into(),
                );
            }
            if let Some(w) = words().enumerate().find_map(|(i, w)| {
                words()
                    .skip(i + 1)
                    .any(|v| v.eq_ignore_ascii_case(w))
                    .then_some(w)
            }) {
                return Err(format!("generic format: the op word `{w}` is given twice"));
            }
        }
        if spec.time_col.is_some() && !(spec.time_unit_s.is_finite() && spec.time_unit_s > 0.0) {
            return Err(
                "generic format: the time unit must be a positive number of seconds".into(),
            );
        }
        Ok(Generic {
            ns_per_unit: spec.time_unit_s * 1e9,
            spec,
        })
    }
}

fn int(b: &[u8]) -> Option<u64> {
    if b.starts_with(b"0x") || b.starts_with(b"0X") {
        hex(b)
    } else {
        dec(b)
    }
}

/// The op `b` names in the spec's own words.
fn named_op(names: &OpNames, b: &[u8]) -> Option<Op> {
    let is = |set: &[String]| set.iter().any(|s| s.as_bytes().eq_ignore_ascii_case(b));
    if is(&names.read) {
        Some(Op::Read)
    } else if is(&names.write) {
        Some(Op::Write)
    } else if is(&names.trim) {
        Some(Op::Trim)
    } else {
        None
    }
}

/// What an op column may hold, for messages.
fn op_words(names: &OpNames) -> String {
    [
        ("read", &names.read),
        ("write", &names.write),
        ("trim", &names.trim),
    ]
    .iter()
    .filter(|(_, w)| !w.is_empty())
    .map(|(op, w)| format!("{} for {op}", w.join("/")))
    .collect::<Vec<_>>()
    .join(", ")
}

fn op_of(b: &[u8]) -> Option<Op> {
    const READ: [&[u8]; 3] = [b"r", b"read", b"0"];
    const WRITE: [&[u8]; 3] = [b"w", b"write", b"1"];
    const TRIM: [&[u8]; 4] = [b"t", b"trim", b"d", b"discard"];
    let is = |set: &[&[u8]]| set.iter().any(|s| s.eq_ignore_ascii_case(b));
    if is(&READ) {
        Some(Op::Read)
    } else if is(&WRITE) {
        Some(Op::Write)
    } else if is(&TRIM) {
        Some(Op::Trim)
    } else {
        None
    }
}

impl LineFormat for Generic {
    fn parse(&mut self, no: u64, line: &[u8], out: &mut Vec<Request>) -> Result<(), String> {
        if no <= self.spec.skip_lines {
            return Ok(());
        }
        let (f, n) = match self.spec.delimiter {
            Some(d) => fixed::<MAX_COLS>(split(line, d).map(trim)),
            None => fixed::<MAX_COLS>(tokens_blank_or_comma(line)),
        };
        let n = n.min(MAX_COLS);
        let col = |c: usize, what: &str| -> Result<&[u8], String> {
            if c < n {
                Ok(f[c])
            } else {
                Err(format!(
                    "expected {what} in column {c} (0-based), found only {n} fields"
                ))
            }
        };
        let offset = {
            let b = col(self.spec.offset_col, "an address")?;
            int(b)
                .and_then(|v| v.checked_mul(self.spec.offset_unit))
                .ok_or_else(|| expected("an integer address", b))?
        };
        let len = match self.spec.size_col {
            Some(c) => {
                let b = col(c, "a size")?;
                int(b)
                    .and_then(|v| v.checked_mul(self.spec.size_unit))
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(|| expected("an integer size below 4 GiB", b))?
            }
            None => u32::try_from(self.spec.size_unit)
                .map_err(|_| "generic format: the size unit must be below 4 GiB".to_string())?,
        };
        let time_ns = match self.spec.time_col {
            Some(c) => {
                let b = col(c, "a time")?;
                let v: f64 = std::str::from_utf8(b)
                    .ok()
                    .and_then(|s| s.parse().ok())
                    .ok_or_else(|| expected("a number", b))?;
                let ns = (v * self.ns_per_unit).round();
                // `-1e-20` rounds to -0.0, which is not a time of 0.
                if !(ns.is_finite() && !v.is_sign_negative() && ns < NO_TIME as f64) {
                    return Err(expected("a non-negative time", b));
                }
                ns as u64
            }
            None => NO_TIME,
        };
        let op = match self.spec.op_col {
            Some(c) => {
                let b = col(c, "an op")?;
                match &self.spec.ops {
                    None => op_of(b)
                        .ok_or_else(|| expected("an op (r/read/0, w/write/1, t/trim)", b))?,
                    Some(names) => named_op(names, b)
                        .ok_or_else(|| expected(&format!("an op ({})", op_words(names)), b))?,
                }
            }
            None => Op::Read,
        };
        let dev = match self.spec.dev_col {
            Some(c) => dev_field(col(c, "a device")?, "a device number")?,
            None => 0,
        };
        out.push(Request {
            time_ns,
            offset,
            len,
            dev,
            op,
        });
        Ok(())
    }
}
