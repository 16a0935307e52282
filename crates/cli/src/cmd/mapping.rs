//! How every command that reads a trace is told its format and, for a custom text
//! trace, its columns: one set of flags ([`TraceArgs`], flattened into each command's
//! arguments) so that `sim`, `ftl`, `ssd`, `curve`, `replay` and `trace info | head |
//! convert` spell them alike, and alike to the experiment file's `mapping` keys
//! ([`wafer_trace::Mapping`]: `--offset-col` is `offset_col`).

use super::trace::info::format_arg;
use super::usage;
use wafer_trace::{Format, Mapping, MappingError, ReadOptions};

/// The trace's format and, for generic text, its column mapping.
#[derive(clap::Args, Clone, Debug, Default)]
#[command(next_help_heading = "Trace format and custom text columns (docs/formats.md)")]
pub struct TraceArgs {
    /// Trace format (default: detected; the list is in `wafer trace info --help`).
    /// Any column flag below selects `generic`.
    #[arg(long)]
    pub format: Option<String>,
    /// Skip malformed records (their count is printed) instead of stopping at the
    /// first.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Generic text: 0-based column of the address (required).
    #[arg(long, value_name = "N")]
    pub offset_col: Option<usize>,
    /// Generic text: column of the length (default: every request is one unit).
    #[arg(long, value_name = "N")]
    pub len_col: Option<usize>,
    /// Generic text: column of the op (default: every request is a read).
    #[arg(long, value_name = "N")]
    pub op_col: Option<usize>,
    /// Generic text: column of the time stamp (default: untimed).
    #[arg(long, value_name = "N")]
    pub time_col: Option<usize>,
    /// Generic text: column of the device number (default: device 0).
    #[arg(long, value_name = "N")]
    pub dev_col: Option<usize>,
    /// Generic text: field separator, one character or `tab` (default: runs of
    /// blanks or commas).
    #[arg(long, value_name = "CHAR")]
    pub delimiter: Option<String>,
    /// Generic text: lines to skip at the top (a header).
    #[arg(long, value_name = "N")]
    pub skip_lines: Option<u64>,
    /// Generic text: unit of addresses and lengths: bytes, sectors (512 B) or a size
    /// such as 4KiB (default: bytes).
    #[arg(long, value_name = "UNIT")]
    pub units: Option<String>,
    /// Generic text: unit of lengths when it differs from --units.
    #[arg(long, value_name = "UNIT")]
    pub len_units: Option<String>,
    /// Generic text: unit of time stamps: ns, us, ms or s (default: ns).
    #[arg(long, value_name = "UNIT")]
    pub time_unit: Option<String>,
    /// Generic text: op words meaning a read, comma-separated (any op words replace
    /// the default r/read/0, w/write/1, t/trim/d/discard).
    #[arg(long, value_name = "WORDS", value_delimiter = ',')]
    pub read_ops: Option<Vec<String>>,
    /// Generic text: op words meaning a write.
    #[arg(long, value_name = "WORDS", value_delimiter = ',')]
    pub write_ops: Option<Vec<String>>,
    /// Generic text: op words meaning a trim.
    #[arg(long, value_name = "WORDS", value_delimiter = ',')]
    pub trim_ops: Option<Vec<String>>,
}

/// A mapping error as a usage error naming the flag (`--units: ...`).
pub fn flag_error(e: MappingError) -> anyhow::Error {
    usage(format!("--{}: {}", e.key.replace('_', "-"), e.msg))
}

impl TraceArgs {
    /// The column mapping given, if any.
    pub fn mapping(&self) -> Option<Mapping> {
        let m = Mapping {
            offset_col: self.offset_col,
            len_col: self.len_col,
            op_col: self.op_col,
            time_col: self.time_col,
            dev_col: self.dev_col,
            delimiter: self.delimiter.clone(),
            skip_lines: self.skip_lines,
            units: self.units.clone(),
            len_units: self.len_units.clone(),
            time_unit: self.time_unit.clone(),
            read_ops: self.read_ops.clone(),
            write_ops: self.write_ops.clone(),
            trim_ops: self.trim_ops.clone(),
        };
        (!m.is_empty()).then_some(m)
    }

    /// The format given (a usage error if unknown), checked against the mapping: a
    /// mapping goes with the generic format only, and the generic format needs one.
    pub fn format(&self) -> anyhow::Result<Option<Format>> {
        let format = format_arg(self.format.as_deref())?;
        match (format, self.mapping().is_some()) {
            (Some(f), true) if f != Format::Generic => Err(usage(format!(
                "--format {}: the column flags (--offset-col, --units, ...) describe generic \
                 text; give --format generic or leave --format out",
                f.name()
            ))),
            (Some(Format::Generic), false) => Err(usage(
                "--format generic needs a column mapping: at least --offset-col N \
                 (see docs/formats.md, \"Custom text traces\")",
            )),
            (f, true) => Ok(Some(f.unwrap_or(Format::Generic))),
            (f, false) => Ok(f),
        }
    }

    /// Read options for the trace: format, generic spec and whether malformed
    /// records are skipped; everything else default.
    pub fn read_options(&self) -> anyhow::Result<ReadOptions> {
        let format = self.format()?;
        let generic = self
            .mapping()
            .map(|m| m.spec())
            .transpose()
            .map_err(flag_error)?;
        Ok(ReadOptions {
            format,
            generic,
            skip_invalid: self.skip_invalid,
            ..ReadOptions::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_build_the_spec_and_errors_name_them() {
        let a = TraceArgs {
            offset_col: Some(2),
            len_col: Some(3),
            units: Some("sectors".into()),
            ..TraceArgs::default()
        };
        let o = a.read_options().unwrap();
        assert_eq!(o.format, Some(Format::Generic));
        assert_eq!(o.generic.unwrap().offset_unit, 512);
        let bad = TraceArgs {
            units: Some("parsecs".into()),
            ..a.clone()
        };
        let e = bad.read_options().unwrap_err().to_string();
        assert!(e.starts_with("--units: `parsecs`"), "{e}");
        let msr = TraceArgs {
            format: Some("msr".into()),
            ..a
        };
        assert!(msr
            .read_options()
            .unwrap_err()
            .to_string()
            .starts_with("--format msr"));
        let none = TraceArgs {
            format: Some("generic".into()),
            ..TraceArgs::default()
        };
        assert!(none
            .read_options()
            .unwrap_err()
            .to_string()
            .contains("--offset-col"));
        assert!(TraceArgs::default()
            .read_options()
            .unwrap()
            .format
            .is_none());
    }
}
