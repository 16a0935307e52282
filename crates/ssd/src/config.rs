//! Parameters of the timed SSD (`docs/ssd.md`; paper 004, Huang et al., "Efficient Cache
//! Design for Solid-State Drives", ACM Computing Frontiers 2010, Sec. 3-4).

use crate::error::SsdError;
use serde::{Deserialize, Serialize};

/// Cache associativity: `Ways(n)` lines per set, or one set holding every line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Assoc {
    /// n-way set-associative (1 = direct-mapped); paper 004 evaluates 1, 2 and 4.
    Ways(u32),
    /// Fully associative (an extension: one set; victims by LRU over all lines).
    Full,
}

impl Assoc {
    /// Parse `1`, `2`, `4`, any other positive integer, or `full`.
    pub fn from_name(s: &str) -> Result<Assoc, SsdError> {
        if s.eq_ignore_ascii_case("full") {
            return Ok(Assoc::Full);
        }
        match s.parse::<u32>() {
            Ok(n) if n > 0 => Ok(Assoc::Ways(n)),
            _ => Err(SsdError::Config(format!(
                "associativity `{s}` is not a positive number of ways or `full`"
            ))),
        }
    }

    /// Short label (`1`, `2`, `4`, `full`).
    pub fn label(self) -> String {
        match self {
            Assoc::Ways(n) => n.to_string(),
            Assoc::Full => "full".into(),
        }
    }
}

/// Automatic periodic update policy (paper 004 Sec. 3.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Apu {
    /// Write-back only: dirty lines leave the cache only by on-demand updates.
    #[default]
    Off,
    /// Flush the dirty line with the oldest access time.
    Lru,
    /// Flush the dirty line with the smallest access count; ties by oldest access.
    Lfu,
}

impl Apu {
    /// Parse `off`, `lru` or `lfu`.
    pub fn from_name(s: &str) -> Result<Apu, SsdError> {
        match s.to_ascii_lowercase().as_str() {
            "off" | "none" => Ok(Apu::Off),
            "lru" => Ok(Apu::Lru),
            "lfu" => Ok(Apu::Lfu),
            _ => Err(SsdError::Config(format!(
                "unknown APU policy `{s}` (expected off, lru or lfu)"
            ))),
        }
    }
}

/// The on-board write cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheConfig {
    /// Lines (one flash page each).
    pub lines: u32,
    /// Associativity.
    pub assoc: Assoc,
    /// Automatic periodic update.
    pub apu: Apu,
}

impl CacheConfig {
    /// Ways per set.
    pub fn ways(&self) -> u32 {
        match self.assoc {
            Assoc::Ways(n) => n,
            Assoc::Full => self.lines,
        }
    }

    /// Sets (`lines / ways`).
    pub fn sets(&self) -> u32 {
        self.lines / self.ways().max(1)
    }

    /// Check the shape: at least one line, lines a multiple of the ways.
    pub fn validate(&self) -> Result<(), SsdError> {
        if self.lines == 0 {
            return Err(SsdError::Config(
                "the cache needs at least one line (one flash page)".into(),
            ));
        }
        let w = self.ways();
        if w == 0 || self.lines % w != 0 {
            return Err(SsdError::Config(format!(
                "{} cache lines cannot be split into sets of {w} ways",
                self.lines
            )));
        }
        Ok(())
    }
}

/// Everything the device model needs besides the flash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SsdConfig {
    /// The on-board cache (`None` = the paper's "No Cache" baseline).
    pub cache: Option<CacheConfig>,
    /// Continuous idle time after which one APU flush starts (paper 004: 2 ms).
    pub idle_threshold_ns: u64,
    /// Time to read or write one whole page in the cache DRAM, charged in proportion to
    /// the bytes of a partial page (wafer's default: 0.01 ms).
    pub t_cache_ns: u64,
    /// Host-interface transfer time per whole page, charged in proportion to the bytes
    /// of a partial page (wafer's default: 0.01 ms).
    pub t_bus_ns: u64,
    /// Flash channel transfer time per page, on the bus a channel's ways share
    /// (default 0: paper 004's model folds it into the page read and program times).
    pub t_channel_ns: u64,
    /// Native command queueing depth: requests the device serves concurrently; later
    /// arrivals wait on the host side (counted). 1 is an FCFS single server; the
    /// default 32 is SATA NCQ's. A closed-loop workload keeps this many outstanding.
    pub queue_depth: u32,
    /// Map pages beyond the capacity modulo the logical pages instead of refusing.
    pub wrap: bool,
}

impl Default for SsdConfig {
    fn default() -> Self {
        SsdConfig {
            cache: None,
            idle_threshold_ns: 2_000_000,
            t_cache_ns: 10_000,
            t_bus_ns: 10_000,
            t_channel_ns: 0,
            queue_depth: 32,
            wrap: false,
        }
    }
}

impl SsdConfig {
    /// Check every field.
    pub fn validate(&self) -> Result<(), SsdError> {
        if let Some(c) = &self.cache {
            c.validate()?;
        }
        if self.queue_depth == 0 {
            return Err(SsdError::Config("queue depth must be at least 1".into()));
        }
        if self.idle_threshold_ns == 0 {
            return Err(SsdError::Config(
                "the idle threshold must be positive".into(),
            ));
        }
        Ok(())
    }
}

/// Parse a duration with a unit (`2ms`, `10us`, `1.5s`, `500ns`) into whole
/// nanoseconds ([`wafer_trace::units::parse_duration`], the convention of every
/// duration wafer reads).
pub fn parse_duration_ns(s: &str) -> Result<u64, SsdError> {
    match wafer_trace::units::parse_duration(s) {
        Ok(ns) if ns < 1.8e19 => Ok(ns.round() as u64),
        Ok(_) => Err(SsdError::Config(format!(
            "`{}` is too long a duration",
            s.trim()
        ))),
        Err(e) => Err(SsdError::Config(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("2ms").unwrap(), 2_000_000);
        assert_eq!(parse_duration_ns("0.5us").unwrap(), 500);
        assert_eq!(parse_duration_ns("3s").unwrap(), 3_000_000_000);
        assert!(parse_duration_ns("3").is_err());
        assert!(parse_duration_ns("-1ms").is_err());
        assert!(parse_duration_ns("2hours").is_err());
    }

    #[test]
    fn cache_shapes() {
        let c = |lines, assoc| CacheConfig {
            lines,
            assoc,
            apu: Apu::Off,
        };
        assert_eq!(c(8, Assoc::Ways(2)).sets(), 4);
        assert_eq!(c(8, Assoc::Full).sets(), 1);
        assert!(c(6, Assoc::Ways(4)).validate().is_err());
        assert!(c(0, Assoc::Ways(1)).validate().is_err());
        assert_eq!(Assoc::from_name("full").unwrap(), Assoc::Full);
        assert!(Assoc::from_name("0").is_err());
        assert_eq!(Apu::from_name("LFU").unwrap(), Apu::Lfu);
    }
}
