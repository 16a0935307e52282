//! The engine options: how one cache run treats its trace, declared once.
//!
//! [`EngineOptions`] is the one declaration of every option that `wafer sim`,
//! `wafer curve`, an experiment file and the Python API share. Each field has one
//! name (the experiment file's key and the Python keyword; the CLI flag is the same
//! name with dashes), one doc comment (the flag's `--help`), one named default (the
//! constants below, read by clap, by [`EngineOptions::default`] and so by serde and
//! Python) and a checked type. Former spellings are aliases, accepted everywhere and
//! never printed: clap's `alias`/`visible_alias` and serde's `alias`, which
//! [`table`] reads back as one list (a test checks the two agree).
//!
//! * The CLI flattens the type into its commands (`#[command(flatten)]`).
//! * An experiment file's top table holds the fields beside its own keys
//!   ([`crate::Experiment`] routes each key to its owner and refuses unknown ones
//!   with the file's line and the valid keys).
//! * Python passes its keywords as a JSON object ([`EngineOptions::from_json`]);
//!   `wafer.engine_options()` lists [`table`].
//!
//! Values are checked once, by [`EngineOptions::check`], whatever front end gave
//! them; errors name the option by its one name through the front end's `at`.

use std::fmt;
use std::num::NonZeroU32;
use std::str::FromStr;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use wafer_cache::CostModel;
use wafer_trace::units::parse_size;

use crate::error::LabError;
use crate::spec::{Access, PageSize};

/// Default erase-block size the block-aware policies see.
pub const BLOCK_SIZE: &str = wafer_trace::units::DEFAULT_BLOCK_SIZE;
/// Default page size.
pub const PAGE_SIZE: &str = "4KiB";
/// Default warm-up: none.
pub const WARMUP: u64 = 0;
/// Default: a write miss allocates the page without reading it.
pub const WRITE_MISS_FETCH: bool = false;
/// Default: dirty pages left at the end are counted, not written.
pub const FLUSH_AT_END: bool = false;
/// Default: no policy series sampled.
pub const SERIES_EVERY: u64 = 0;
/// Default storage read time per page, ns ([`CostModel::default`]).
pub const T_READ_NS: u64 = CostModel::DEFAULT.t_read_ns;
/// Default storage write time per page, ns ([`CostModel::default`]).
pub const T_WRITE_NS: u64 = CostModel::DEFAULT.t_write_ns;

/// A size in bytes as the user wrote it (`4MiB`, `4096`): parsed when given, so a
/// malformed size is refused where it was written, and kept as written for
/// messages and for the experiment file a run records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByteSize {
    bytes: u64,
    text: String,
}

impl ByteSize {
    /// Bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// The size as written.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl FromStr for ByteSize {
    type Err = String;
    fn from_str(s: &str) -> Result<ByteSize, String> {
        Ok(ByteSize {
            bytes: parse_size(s).map_err(|e| e.to_string())?,
            text: s.to_string(),
        })
    }
}

impl From<u64> for ByteSize {
    fn from(bytes: u64) -> ByteSize {
        ByteSize {
            bytes,
            text: bytes.to_string(),
        }
    }
}

impl fmt::Display for ByteSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for ByteSize {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ByteSize, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = ByteSize;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a size such as \"4MiB\" or a number of bytes")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<ByteSize, E> {
                s.parse().map_err(E::custom)
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<ByteSize, E> {
                Ok(ByteSize::from(n))
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<ByteSize, E> {
                u64::try_from(n)
                    .map(ByteSize::from)
                    .map_err(|_| E::custom(format!("size {n}: must be a non-negative number")))
            }
        }
        d.deserialize_any(V)
    }
}

/// How one cache run treats its trace: the options every front end shares.
#[derive(clap::Args, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EngineOptions {
    /// Erase-block size the block-aware policies see (pages per block = block size
    /// div page size).
    #[arg(long, visible_alias = "block", value_name = "SIZE", default_value = BLOCK_SIZE)]
    #[serde(alias = "block")]
    pub block_size: ByteSize,
    /// Page size: a power of two from 512 B to 1 GiB (record accesses use the 512 B
    /// sector instead).
    #[arg(long, value_name = "SIZE", default_value = PAGE_SIZE)]
    pub page_size: ByteSize,
    /// Page accesses, or one access per record (libCacheSim's object view).
    #[arg(long, alias = "access", value_enum, default_value_t = Access::default())]
    #[serde(alias = "access")]
    pub granularity: Access,
    /// Accesses of a warm-up prefix that change the cache but are not counted.
    #[arg(long, value_name = "N", default_value_t = WARMUP)]
    pub warmup: u64,
    /// Read the page from storage on a write miss too.
    #[arg(long, action = clap::ArgAction::SetTrue, default_value_t = WRITE_MISS_FETCH)]
    pub write_miss_fetch: bool,
    /// Write the dirty pages left at the end (reported apart, sent to the device).
    #[arg(long, action = clap::ArgAction::SetTrue, default_value_t = FLUSH_AT_END)]
    pub flush_at_end: bool,
    /// Storage read time per page, ns (the cost model of the cache-only time
    /// estimate).
    #[arg(long, value_name = "NS", default_value_t = T_READ_NS)]
    pub t_read_ns: u64,
    /// Storage write time per page, ns (the cost model of the cache-only time
    /// estimate).
    #[arg(long, value_name = "NS", default_value_t = T_WRITE_NS)]
    pub t_write_ns: u64,
    /// Sample the policy's own series (e.g. CRAW's area sizes) every N accesses
    /// (0 = off).
    #[arg(long, value_name = "N", default_value_t = SERIES_EVERY)]
    pub series_every: u64,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            block_size: BLOCK_SIZE.parse().expect("the default block size parses"),
            page_size: PAGE_SIZE.parse().expect("the default page size parses"),
            granularity: Access::default(),
            warmup: WARMUP,
            write_miss_fetch: WRITE_MISS_FETCH,
            flush_at_end: FLUSH_AT_END,
            t_read_ns: T_READ_NS,
            t_write_ns: T_WRITE_NS,
            series_every: SERIES_EVERY,
        }
    }
}

/// The options after [`EngineOptions::check`]: the geometry they give.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    /// Page size (the 512 B sector with record accesses).
    pub page_size: PageSize,
    /// Pages per erase block.
    pub pages_per_block: NonZeroU32,
}

impl EngineOptions {
    /// The cost model of the cache-only time estimate.
    pub fn cost(&self) -> CostModel {
        CostModel {
            t_read_ns: self.t_read_ns,
            t_write_ns: self.t_write_ns,
        }
    }

    /// Check the values together; `at(name)` says where an option came from in
    /// messages (`exp.toml: block_size`, `--block-size`, `block_size`).
    pub fn check(&self, at: &dyn Fn(&str) -> String) -> Result<Geometry, LabError> {
        let err = |key: &str, msg: String| LabError::Config { at: at(key), msg };
        let page_size = match self.granularity {
            Access::Page => PageSize::new(self.page_size.bytes)
                .map_err(|e| err("page_size", format!("\"{}\": {e}", self.page_size)))?,
            Access::Record => {
                PageSize::new(wafer_trace::request::SECTOR).expect("512 B is a page size")
            }
        };
        let (bs, ps) = (self.block_size.bytes, u64::from(page_size.get()));
        let pages_per_block = (bs >= ps && bs % ps == 0)
            .then(|| u32::try_from(bs / ps).ok().and_then(NonZeroU32::new))
            .flatten()
            .ok_or_else(|| {
                err(
                    "block_size",
                    format!(
                        "\"{}\" must be a multiple of the {ps} B page (at most 2^32-1 pages)",
                        self.block_size
                    ),
                )
            })?;
        for (key, ns) in [
            ("t_read_ns", self.t_read_ns),
            ("t_write_ns", self.t_write_ns),
        ] {
            if ns > CostModel::MAX_NS {
                return Err(err(
                    key,
                    format!(
                        "{ns} ns per page is more than {} ns (one second), the largest cost",
                        CostModel::MAX_NS
                    ),
                ));
            }
        }
        Ok(Geometry {
            page_size,
            pages_per_block,
        })
    }

    /// The options a JSON object gives (the Python keywords), the rest at their
    /// defaults. An unknown key is refused with the valid names.
    pub fn from_json(text: &str) -> Result<EngineOptions, String> {
        let mut de = serde_json::Deserializer::from_str(text);
        let opts = deserialize_checked(&mut de).map_err(|e| {
            // serde_json appends "at line 1 column N" of a text nobody wrote.
            let s = e.to_string();
            match s.rfind(" at line ") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        })?;
        de.end().map_err(|e| e.to_string())?;
        Ok(opts)
    }
}

/// One option as the front ends see it, read from the type itself.
#[derive(Clone, Debug, Serialize)]
pub struct OptionInfo {
    /// The one name: the experiment file's key and the Python keyword.
    pub name: String,
    /// The CLI flag (`--block-size`).
    pub flag: String,
    /// Former spellings, accepted everywhere (snake form; the CLI's with dashes).
    pub aliases: Vec<String>,
    /// What it does (the flag's help).
    pub doc: String,
    /// Its default, as JSON.
    pub default: serde_json::Value,
    /// What it takes: `size`, `int`, `bool`, or `text` (one of `choices`).
    pub kind: &'static str,
    /// The values a `text` option takes.
    pub choices: Vec<String>,
}

/// Every engine option, in declaration order: names and aliases from clap's view
/// of [`EngineOptions`], defaults from [`EngineOptions::default`].
pub fn table() -> &'static [OptionInfo] {
    static TABLE: OnceLock<Vec<OptionInfo>> = OnceLock::new();
    TABLE.get_or_init(|| {
        use clap::Args;
        let cmd = EngineOptions::augment_args(clap::Command::new("wafer"));
        let defaults = serde_json::to_value(EngineOptions::default()).expect("options serialise");
        cmd.get_arguments()
            .map(|a| {
                let name = a.get_id().as_str().to_string();
                let default = defaults.get(&name).cloned().unwrap_or_default();
                let choices: Vec<String> = a
                    .get_possible_values()
                    .iter()
                    .filter(|v| !v.is_hide_set())
                    .map(|v| v.get_name().to_string())
                    .collect();
                let kind = match &default {
                    serde_json::Value::Bool(_) => "bool",
                    serde_json::Value::Number(_) => "int",
                    _ if !choices.is_empty() => "text",
                    _ => "size",
                };
                OptionInfo {
                    flag: format!("--{}", a.get_long().unwrap_or(&name)),
                    aliases: a
                        .get_all_aliases()
                        .unwrap_or_default()
                        .into_iter()
                        .map(|s| s.replace('-', "_"))
                        .collect(),
                    doc: a
                        .get_long_help()
                        .or(a.get_help())
                        .map(|h| h.to_string())
                        .unwrap_or_default(),
                    default,
                    kind,
                    choices,
                    name,
                }
            })
            .collect()
    })
}

/// The option `key` names (its name or an alias).
pub fn find(key: &str) -> Option<&'static OptionInfo> {
    table()
        .iter()
        .find(|o| o.name == key || o.aliases.iter().any(|a| a == key))
}

/// The options' names, for "expected one of" messages.
pub fn names() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| table().iter().map(|o| o.name.as_str()).collect())
}

/// The CLI's name of a key the checks name: `--block-size` for an engine option;
/// other keys (`max_cells`) with dashes.
pub fn flag(key: &str) -> String {
    match find(key) {
        Some(o) => o.flag.clone(),
        None => format!("--{}", key.replace('_', "-")),
    }
}

/// Options collected key by key from a table that holds other keys too (an
/// experiment file's top table): each value is read where it stands, so its
/// errors carry its position, then all are put together at the end.
#[derive(Default)]
pub(crate) struct Collected {
    values: serde_json::Map<String, serde_json::Value>,
    /// The key each option was given as, for "given twice".
    given_as: Vec<(&'static str, String)>,
}

impl Collected {
    /// Read the value of `key` (an option's name or alias, see [`find`]) from `d`.
    pub(crate) fn read<'de, D: serde::Deserializer<'de>>(
        &mut self,
        key: &str,
        d: D,
    ) -> Result<(), D::Error> {
        use serde::de::Error;
        let info = find(key).ok_or_else(|| D::Error::unknown_field(key, names()))?;
        // The derived code reads the one entry, so the value is checked by the
        // field's own type, at its place.
        let one =
            EngineOptions::deserialize(serde::de::value::MapAccessDeserializer::new(OneEntry {
                key: Some(key.to_string()),
                value: Some(d),
            }))?;
        let json = serde_json::to_value(&one).map_err(D::Error::custom)?;
        self.set(info, key, json[&info.name].clone())
            .map_err(D::Error::custom)
    }

    /// Set option `info` to `value` (JSON), given as `given`.
    pub(crate) fn set(
        &mut self,
        info: &'static OptionInfo,
        given: &str,
        value: serde_json::Value,
    ) -> Result<(), String> {
        if let Some((_, first)) = self.given_as.iter().find(|(n, _)| *n == info.name) {
            return Err(format!(
                "`{}` is given twice (as `{first}` and as `{given}`)",
                info.name
            ));
        }
        self.given_as.push((info.name.as_str(), given.to_string()));
        self.values.insert(info.name.clone(), value);
        Ok(())
    }

    /// The options, the ones not given at their defaults.
    pub(crate) fn finish(self) -> Result<EngineOptions, String> {
        EngineOptions::deserialize(serde_json::Value::Object(self.values))
            .map_err(|e| e.to_string())
    }
}

/// A map of one entry whose value is a deserializer still to be read.
struct OneEntry<D> {
    key: Option<String>,
    value: Option<D>,
}

impl<'de, D: serde::Deserializer<'de>> serde::de::MapAccess<'de> for OneEntry<D> {
    type Error = D::Error;

    fn next_key_seed<K: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, D::Error> {
        use serde::de::IntoDeserializer;
        match self.key.take() {
            Some(k) => seed.deserialize(k.into_deserializer()).map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<V: serde::de::DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, D::Error> {
        match self.value.take() {
            Some(d) => seed.deserialize(d),
            None => Err(serde::de::Error::custom("a value read twice")),
        }
    }
}

/// [`EngineOptions`] from a map, each key checked as it is read (so an unknown one
/// is refused at its place, with the valid names).
fn deserialize_checked<'de, D: serde::Deserializer<'de>>(d: D) -> Result<EngineOptions, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = EngineOptions;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a table of engine options")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<EngineOptions, A::Error> {
            use serde::de::Error;
            let mut got = Collected::default();
            while let Some(key) = map.next_key_seed(KnownKey(&|k| find(k).is_some(), names))? {
                map.next_value_seed(OptionValue {
                    key: &key,
                    into: &mut got,
                })?;
            }
            got.finish().map_err(A::Error::custom)
        }
    }
    d.deserialize_map(V)
}

/// A key, refused (as `unknown field`, with `valid()`) unless `known(key)`: the
/// refusal happens while the key is read, so a format that tracks positions (TOML)
/// points at the key.
pub(crate) struct KnownKey<'a>(
    pub(crate) &'a dyn Fn(&str) -> bool,
    pub(crate) fn() -> &'static [&'static str],
);

impl<'de> serde::de::DeserializeSeed<'de> for KnownKey<'_> {
    type Value = String;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        struct V<'a>(KnownKey<'a>);
        impl serde::de::Visitor<'_> for V<'_> {
            type Value = String;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<String, E> {
                if (self.0 .0)(s) {
                    Ok(s.to_string())
                } else {
                    Err(E::unknown_field(s, (self.0 .1)()))
                }
            }
        }
        d.deserialize_identifier(V(self))
    }
}

/// The value of option `key`, read into `into`.
pub(crate) struct OptionValue<'a> {
    pub(crate) key: &'a str,
    pub(crate) into: &'a mut Collected,
}

impl<'de> serde::de::DeserializeSeed<'de> for OptionValue<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.into.read(self.key, d)
    }
}
