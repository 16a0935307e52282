//! The `Policy` trait every replacement policy implements, and what it is told.
//!
//! Contract (`docs/cache.md`, "Engine semantics"): the policy owns residency and the
//! dirty bit of every page. On each access it decides hit or miss, makes room when a
//! miss finds the cache full (reporting each dropped page to the [`IoSink`] in the
//! order the policy defines), and inserts the missed page (clean on a read, dirty on
//! a write).
//! The engine, not the policy, emits the storage read of a read miss (and of a write
//! miss when `write_miss_fetch` is on), always after the write-backs the miss caused.

use std::num::NonZeroU32;

use wafer_trace::Op;

/// One page access as a policy sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Dense id of the page (`0..universe`); index per-page arrays with it.
    pub page: u32,
    /// Dense id of the page's erase block (page number div pages-per-block, device
    /// kept apart); only meaningful for policies with [`Policy::BLOCK_AWARE`].
    pub block: u32,
    /// The page's key: page number with the device folded in (`wafer_trace::page_key`).
    /// Order-sensitive policies (Sorted-Clock, block flush order) sort by it.
    /// [`NO_KEY`] for policies without [`Policy::NEEDS_KEY`] (they ask
    /// [`IoSink::key`] when they need it).
    pub key: u64,
    /// Read or write (trims never reach a policy).
    pub op: Op,
    /// 0-based index of this access in the access stream.
    pub index: u64,
    /// Index of the next access to the same page, `u64::MAX` if none; only computed
    /// for policies with [`Policy::NEEDS_NEXT_USE`] (Belady), else `u64::MAX`.
    pub next_use: u64,
}

/// [`Access::key`] of a policy that does not need it on every access.
pub const NO_KEY: u64 = u64::MAX;

/// Facts about the run a policy may need at construction.
#[derive(Clone, Copy, Debug)]
pub struct PolicyCtx {
    /// Pages per erase block (block = page number div ppb, as `docs/cache.md` says),
    /// never zero.
    pub pages_per_block: NonZeroU32,
    /// Write cost over read cost (`t_w / t_r`), used by cost-aware policies (CRAW's c).
    pub write_read_cost_ratio: f64,
    /// Dense ids expected (a hint for pre-sizing; [`Policy::reserve`] grows beyond it).
    pub universe_hint: u32,
}

impl Default for PolicyCtx {
    fn default() -> Self {
        PolicyCtx {
            pages_per_block: NonZeroU32::new(1024).expect("non-zero"),
            write_read_cost_ratio: 8.0,
            universe_hint: 0,
        }
    }
}

/// Where a policy reports the pages it drops. All ids are dense page ids.
pub trait IoSink {
    /// A dirty page leaves the cache (or is cleaned in place) and is written to storage.
    fn write_back(&mut self, page: u32);
    /// [`IoSink::write_back`] of a page whose key the policy holds already (a block
    /// flush sorted by key): the same report, without the engine looking the key up
    /// again in its table of every page.
    #[inline]
    fn write_back_keyed(&mut self, page: u32, key: u64) {
        let _ = key;
        self.write_back(page);
    }
    /// A clean page leaves the cache; no I/O.
    fn drop_clean(&mut self, page: u32);
    /// A block-level policy reads a non-resident page to pad a block write (BPLRU).
    /// Padding names pages by key (page number, [`Access::key`]), not dense id: a
    /// padded page may never have been accessed, so it may have no dense id.
    fn pad_read(&mut self, key: u64);
    /// A block-level policy writes a clean or padded page, given by key (see
    /// [`IoSink::pad_read`]), as part of a block write.
    fn pad_write(&mut self, key: u64);
    /// The key of the dense page id `page` (what [`Access::key`] holds when it is
    /// filled), for a policy that needs keys only now and then ([`Policy::NEEDS_KEY`]
    /// false): looking a key up costs a random read in a large table, which the
    /// engine then does only when the policy asks.
    fn key(&self, page: u32) -> u64;
    /// The following reports form one eviction group (one victim block), ended by
    /// [`IoSink::end_group`]; a replayer may merge a group into one request.
    fn begin_group(&mut self);
    /// Ends the group opened by [`IoSink::begin_group`].
    fn end_group(&mut self);
}

/// A parameter the user gave was unknown or out of range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{policy}: {msg}")]
pub struct ParamError {
    /// Policy name.
    pub policy: String,
    /// What is wrong and what is allowed.
    pub msg: String,
}

/// One named parameter of a policy, for help, validation messages and docs.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct ParamSpec {
    /// Key as written on the command line (`window` in `cflru:window=0.25`).
    pub name: &'static str,
    /// Default value, as text.
    pub default: &'static str,
    /// What it means and its valid range.
    pub doc: &'static str,
}

/// Typed parameters of one policy, settable from `key=value` text.
pub trait ParamSet: Clone + std::fmt::Debug + Default + PartialEq {
    /// Every parameter this policy accepts.
    const SPECS: &'static [ParamSpec];

    /// Set `key` (one of [`ParamSet::SPECS`]) from `value`; return a message saying
    /// what was expected on a bad value. The registry rejects unknown keys before
    /// calling this. Range checks that depend on the capacity belong in
    /// [`Policy::new`].
    fn set(&mut self, key: &str, value: &str) -> Result<(), String>;
}

/// Parse a float parameter value.
pub fn parse_f64(value: &str) -> Result<f64, String> {
    value
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("expected a number, found `{value}`"))
}

/// Parse an unsigned integer parameter value.
pub fn parse_u32(value: &str) -> Result<u32, String> {
    value
        .trim()
        .parse::<u32>()
        .map_err(|_| format!("expected a non-negative integer, found `{value}`"))
}

/// Parse a boolean parameter value (`true/false`, `1/0`, `yes/no`, `on/off`).
pub fn parse_bool(value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Ok(true),
        "false" | "0" | "no" | "off" => Ok(false),
        _ => Err(format!("expected true or false, found `{value}`")),
    }
}

/// A page replacement policy.
pub trait Policy: Sized + 'static {
    /// Typed parameters (`cflru:window=0.25` becomes a field of this struct).
    type Params: ParamSet;

    /// Name on the command line (`ts-clock`), lower-case kebab.
    const NAME: &'static str;
    /// Other accepted names (`sp-clock` for Sorted-Clock).
    const ALIASES: &'static [&'static str] = &[];
    /// One line: what the policy does.
    const SUMMARY: &'static str;
    /// Full citation of the source (authors, title, venue, year).
    const CITATION: &'static str;
    /// Which implementation or variant the policy reproduces and how closely (a
    /// peer's name for it and the parity checked), where it matters; empty otherwise.
    const FOLLOWS: &'static str = "";
    /// Whether the policy treats clean and dirty pages (or flash blocks) differently.
    const FLASH_AWARE: bool = false;

    /// Whether [`Access::next_use`] must be computed (an offline policy).
    const NEEDS_NEXT_USE: bool = false;
    /// Whether [`Access::key`] must be filled on every access. A policy that needs
    /// the key only on rare paths (TS-CLOCK: a page's first miss) sets this false,
    /// gets [`NO_KEY`] there and asks [`IoSink::key`] instead.
    const NEEDS_KEY: bool = true;
    /// Whether [`Access::block`] must be computed.
    const BLOCK_AWARE: bool = false;
    /// Whether read misses bypass the cache (served from storage, nothing allocated):
    /// a write buffer such as BPLRU. Such a policy is not a demand-paging cache, so
    /// Belady's MIN does not bound its hits.
    const BYPASSES_READS: bool = false;
    /// Whether the policy's decisions come from code that can answer wrongly (a
    /// user's class, [`crate::external`]): the engine then asks [`Policy::error`]
    /// after each access and at the end, and stops the run on the first error. For
    /// every other policy the check compiles away.
    const FALLIBLE: bool = false;

    /// A cache of `capacity` pages (at least 1).
    fn new(capacity: u32, params: &Self::Params, ctx: &PolicyCtx) -> Result<Self, ParamError>;

    /// Handle one access; return `true` on a hit. Ghost hits are misses.
    fn access<S: IoSink>(&mut self, a: &Access, io: &mut S) -> bool;

    /// Make per-page (and per-block) arrays large enough for ids `< pages` (and
    /// `< blocks`). Called by the engine before the first access with a new id.
    fn reserve(&mut self, pages: u32, blocks: u32);

    /// Resident pages.
    fn len(&self) -> u32;

    /// Whether no page is resident.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Capacity in pages.
    fn capacity(&self) -> u32;

    /// Append every resident dirty page to `out` (any order; the engine sorts).
    fn dirty_pages(&self, out: &mut Vec<u32>);

    /// Drop page `page` if resident, without I/O (a trim). Returns whether it was.
    fn invalidate(&mut self, page: u32) -> bool;

    /// A hint that `page` is accessed soon (the engine passes the page a few
    /// accesses ahead of a prepared trace): a policy whose per-page state is a random
    /// read in a large table loads it now, so the access finds it in cache. Changes
    /// nothing; the default does nothing.
    #[inline]
    fn prefetch(&self, _page: u32) {}

    /// The error that stopped this policy, taken (only asked when
    /// [`Policy::FALLIBLE`]); `end` says the run is over, so work the policy deferred
    /// is done first.
    fn error(&mut self, _end: bool) -> Option<String> {
        None
    }

    /// Names of the series [`Policy::sample`] fills (CRAW's area sizes), if any.
    fn series_names(&self) -> &'static [&'static str] {
        &[]
    }

    /// Current values of [`Policy::series_names`], in that order.
    fn sample(&self, _out: &mut Vec<f64>) {}
}
