//! The column mapping of a custom text trace as people write it: the keys of an
//! experiment file's `mapping = { ... }` table and, with `-` for `_`, the flags of
//! every `wafer` command that reads a trace (`offset_col` is `--offset-col`).
//!
//! [`Mapping::spec`] checks it and resolves names and units into the reader's
//! [`GenericSpec`]; an error names the key, so each front end can turn it into its
//! own wording (a flag, or `traces[0].mapping.units`). One type for both keeps the
//! names of the command line and of the file the same.

use crate::reader::{GenericSpec, OpNames};
use crate::units::parse_size;
use serde::{Deserialize, Serialize};

/// A column mapping as given (every field optional so that a missing one is reported
/// by its key, not as a parse error).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mapping {
    /// 0-based column of the address (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset_col: Option<usize>,
    /// 0-based column of the length (none: every request is one `len_units`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub len_col: Option<usize>,
    /// 0-based column of the op (none: every request is a read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op_col: Option<usize>,
    /// 0-based column of the time stamp (none: untimed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_col: Option<usize>,
    /// 0-based column of the device number (none: device 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dev_col: Option<usize>,
    /// Field separator: one character, or `tab` (none: runs of blanks or commas).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delimiter: Option<String>,
    /// Lines to skip at the top (a header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_lines: Option<u64>,
    /// Unit of addresses and lengths: `bytes`, `sectors` (512 B) or a size (`4KiB`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub units: Option<String>,
    /// Unit of lengths when it differs from `units`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub len_units: Option<String>,
    /// Unit of time stamps: `ns`, `us`, `ms` or `s` (default `ns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_unit: Option<String>,
    /// Words of the op column meaning a read (given any op words: they replace the
    /// default vocabulary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_ops: Option<Vec<String>>,
    /// Words of the op column meaning a write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_ops: Option<Vec<String>>,
    /// Words of the op column meaning a trim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trim_ops: Option<Vec<String>>,
}

/// Why a mapping is refused, and the key at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {msg}")]
pub struct MappingError {
    /// The key (`units`; the flag is `--units`).
    pub key: &'static str,
    /// What is wrong with it.
    pub msg: String,
}

fn fail(key: &'static str, msg: impl Into<String>) -> MappingError {
    MappingError {
        key,
        msg: msg.into(),
    }
}

impl Mapping {
    /// Whether nothing is given (no mapping at all).
    pub fn is_empty(&self) -> bool {
        *self == Mapping::default()
    }

    /// Check the mapping and resolve it into the reader's spec.
    pub fn spec(&self) -> Result<GenericSpec, MappingError> {
        let offset_col = self.offset_col.ok_or_else(|| {
            fail(
                "offset_col",
                "the column of the address is required (0-based)",
            )
        })?;
        let cols = [
            ("offset_col", Some(offset_col)),
            ("len_col", self.len_col),
            ("op_col", self.op_col),
            ("time_col", self.time_col),
            ("dev_col", self.dev_col),
        ];
        for (key, c) in cols {
            if let Some(c) = c.filter(|&c| c >= crate::formats::GENERIC_MAX_COLS) {
                return Err(fail(
                    key,
                    format!(
                        "column {c}: columns are numbered from 0 to {}",
                        crate::formats::GENERIC_MAX_COLS - 1
                    ),
                ));
            }
            if let Some((other, _)) = cols
                .iter()
                .take_while(|(k, _)| *k != key)
                .find(|(_, d)| c.is_some() && *d == c)
            {
                return Err(fail(
                    key,
                    format!("column {} is `{other}` already", c.unwrap_or(0)),
                ));
            }
        }
        let delimiter = match self.delimiter.as_deref() {
            None => None,
            Some(d) => Some(delimiter(d).ok_or_else(|| {
                fail(
                    "delimiter",
                    format!("`{d}`: expected one ASCII character other than a newline, or `tab`"),
                )
            })?),
        };
        let offset_unit = match self.units.as_deref() {
            None => 1,
            Some(u) => unit(u).map_err(|m| fail("units", m))?,
        };
        let size_unit = match self.len_units.as_deref() {
            None => offset_unit,
            Some(u) => unit(u).map_err(|m| fail("len_units", m))?,
        };
        if self.len_col.is_none() && size_unit > u64::from(u32::MAX) {
            return Err(fail(
                if self.len_units.is_some() {
                    "len_units"
                } else {
                    "units"
                },
                "without a length column every request is one unit long, which must be below 4 GiB",
            ));
        }
        let time_unit_s = match self.time_unit.as_deref() {
            None => 1e-9,
            Some(t) => {
                if self.time_col.is_none() {
                    return Err(fail(
                        "time_unit",
                        "applies only with a time column (time_col)",
                    ));
                }
                time_unit(t)
                    .ok_or_else(|| fail("time_unit", format!("`{t}`: expected ns, us, ms or s")))?
            }
        };
        let words = [
            ("read_ops", &self.read_ops),
            ("write_ops", &self.write_ops),
            ("trim_ops", &self.trim_ops),
        ];
        let ops = if words.iter().all(|(_, w)| w.is_none()) {
            None
        } else {
            let mut seen: Vec<&str> = Vec::new();
            for (key, w) in words {
                if self.op_col.is_none() {
                    return Err(fail(key, "applies only with an op column (op_col)"));
                }
                for word in w.iter().flatten() {
                    if word.is_empty() || word.contains(|c: char| c == ',' || c.is_whitespace()) {
                        return Err(fail(
                            key,
                            format!("`{word}`: op words are non-empty, without blanks or commas"),
                        ));
                    }
                    if seen.iter().any(|s| s.eq_ignore_ascii_case(word)) {
                        return Err(fail(key, format!("`{word}` is given twice")));
                    }
                    seen.push(word);
                }
            }
            Some(OpNames {
                read: self.read_ops.clone().unwrap_or_default(),
                write: self.write_ops.clone().unwrap_or_default(),
                trim: self.trim_ops.clone().unwrap_or_default(),
            })
        };
        Ok(GenericSpec {
            delimiter,
            skip_lines: self.skip_lines.unwrap_or(0),
            time_col: self.time_col,
            time_unit_s,
            op_col: self.op_col,
            offset_col,
            offset_unit,
            size_col: self.len_col,
            size_unit,
            dev_col: self.dev_col,
            ops,
        })
    }
}

impl GenericSpec {
    /// One line that is the same for every mapping read the same way (`sectors` and
    /// `512` alike): what a run's identity records besides the file's checksum.
    pub fn canonical(&self) -> String {
        serde_json::to_string(self).expect("generic specs serialise")
    }
}

fn delimiter(d: &str) -> Option<u8> {
    if d.eq_ignore_ascii_case("tab") || d == "\\t" {
        return Some(b'\t');
    }
    match d.as_bytes() {
        [b] if b.is_ascii() && *b != b'\n' && *b != b'\r' => Some(*b),
        _ => None,
    }
}

fn unit(u: &str) -> Result<u64, String> {
    let bytes = match u.trim().to_ascii_lowercase().as_str() {
        "byte" | "bytes" => 1,
        "sector" | "sectors" => crate::request::SECTOR,
        _ => parse_size(u)
            .map_err(|_| format!("`{u}`: expected bytes, sectors or a size such as 4KiB"))?,
    };
    if bytes == 0 {
        return Err(format!("`{u}`: a unit is at least 1 byte"));
    }
    Ok(bytes)
}

fn time_unit(t: &str) -> Option<f64> {
    Some(match t.trim().to_ascii_lowercase().as_str() {
        "ns" => 1e-9,
        "us" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(text: &str) -> Result<GenericSpec, MappingError> {
        toml::from_str::<Mapping>(text).unwrap().spec()
    }

    #[test]
    fn resolves_names_and_units() {
        let s = m(
            "offset_col = 2\nlen_col = 3\nop_col = 1\ntime_col = 0\ndelimiter = \",\"\n\
             units = \"sectors\"\ntime_unit = \"us\"\nskip_lines = 1",
        )
        .unwrap();
        assert_eq!(s.delimiter, Some(b','));
        assert_eq!((s.offset_unit, s.size_unit), (512, 512));
        assert_eq!(s.time_unit_s, 1e-6);
        assert_eq!((s.offset_col, s.size_col, s.op_col), (2, Some(3), Some(1)));
        assert_eq!(s.skip_lines, 1);
        // The same reading, spelt differently, is the same identity.
        let t = m(
            "offset_col = 2\nlen_col = 3\nop_col = 1\ntime_col = 0\ndelimiter = \",\"\n\
             units = \"512\"\ntime_unit = \"us\"\nskip_lines = 1",
        )
        .unwrap();
        assert_eq!(s.canonical(), t.canonical());
        assert_eq!(
            m("offset_col = 0\ndelimiter = \"tab\"").unwrap().delimiter,
            Some(b'\t')
        );
        let o = m("offset_col = 0\nop_col = 1\nread_ops = [\"R\"]\nwrite_ops = [\"W\", \"WS\"]")
            .unwrap()
            .ops
            .unwrap();
        assert_eq!(o.write, ["W", "WS"]);
        assert!(o.trim.is_empty());
    }

    #[test]
    fn errors_name_the_key() {
        let key = |t: &str| m(t).unwrap_err().key;
        assert_eq!(key("len_col = 1"), "offset_col");
        assert_eq!(key("offset_col = 0\nunits = \"furlongs\""), "units");
        assert_eq!(key("offset_col = 0\nlen_units = \"0\""), "len_units");
        assert_eq!(key("offset_col = 0\ndelimiter = \"::\""), "delimiter");
        assert_eq!(key("offset_col = 0\ntime_unit = \"s\""), "time_unit");
        assert_eq!(
            key("offset_col = 0\ntime_col = 1\ntime_unit = \"h\""),
            "time_unit"
        );
        assert_eq!(key("offset_col = 64"), "offset_col");
        assert_eq!(key("offset_col = 1\nlen_col = 1"), "len_col");
        assert_eq!(key("offset_col = 0\nread_ops = [\"R\"]"), "read_ops");
        assert_eq!(
            key("offset_col = 0\nop_col = 1\nread_ops = [\"R\"]\nwrite_ops = [\"r\"]"),
            "write_ops"
        );
        let e = m("offset_col = 0\nunits = \"furlongs\"")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("units: `furlongs`: expected bytes, sectors"),
            "{e}"
        );
        assert!(toml::from_str::<Mapping>("offset = 1").is_err());
    }
}
