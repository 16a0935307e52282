//! Fig. 1-style synthetic studies (paper 000, TS-CLOCK: Kang, Min, Eom, IEEE MASCOTS
//! 2014, Sec. II-B, Fig. 1): write amplification
//! against block utilization and I/O range.
//!
//! The paper's workload "with x% block utilization" picks a random erase block inside
//! the I/O range, selects x% of its pages and writes them in sector order. Resolved
//! ambiguities, each a [`SweepConfig`] field because they move the absolute numbers
//! (`docs/ftl.md`, "`wafer ftl sweep`", lists their effects):
//! * page placement: a contiguous run at a random start inside the block
//!   (`RandomStart`, the default), a run starting at page 0 (`Aligned`), or a uniformly
//!   random subset of the block's pages in ascending order (`Subset`, the paper's literal
//!   words; with FAST it is not monotone in the utilization, because a subset that
//!   contains page 0 opens the SW log and its first gap forces a partial merge);
//! * aging: the whole logical space is written sequentially first (`prefill`) so that
//!   the data outside the I/O range is static and valid;
//! * warm-up and measurement volumes, in device-writes (multiples of the logical
//!   capacity), WAF measured over the second volume only;
//! * FAST's RW log block count (device default: all spare blocks).
//!
//! The I/O range starts at logical address 0 and is rounded down to whole blocks.

use crate::device::{Device, FtlKind};
use crate::error::FtlError;
use crate::ftl::Ftl;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;
use serde::{Deserialize, Serialize};

/// Where the written pages of a block lie.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// Random subset of pages, written in ascending order.
    Subset,
    /// A run from the first page of the block.
    Aligned,
    /// A run starting at a random page such that it fits the block.
    RandomStart,
}

impl Placement {
    /// Parse `subset`, `aligned` or `random-start`.
    pub fn from_name(s: &str) -> Result<Placement, FtlError> {
        match s {
            "subset" => Ok(Placement::Subset),
            "aligned" => Ok(Placement::Aligned),
            "random-start" => Ok(Placement::RandomStart),
            _ => Err(FtlError::Config(format!(
                "unknown placement `{s}` (expected subset, aligned or random-start)"
            ))),
        }
    }
}

/// Parameters of a sweep.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepConfig {
    /// FTLs to run.
    pub ftls: Vec<FtlKind>,
    /// Block utilizations, fractions in (0, 1].
    pub utilizations: Vec<f64>,
    /// I/O ranges, bytes.
    pub ranges: Vec<u64>,
    /// Page placement.
    pub placement: Placement,
    /// Fill the logical space before the warm-up.
    pub prefill: bool,
    /// Warm-up volume in device-writes.
    pub warmup_dw: f64,
    /// Measured volume in device-writes.
    pub measure_dw: f64,
    /// FAST RW log blocks (`None` = the device's setting).
    pub rw_log_blocks: Option<u32>,
    /// Random seed.
    pub seed: u64,
}

impl Default for SweepConfig {
    /// Paper 000 Fig. 1: both FTLs, 25/50/75/100%, 1..16 GiB.
    fn default() -> SweepConfig {
        SweepConfig {
            ftls: vec![FtlKind::Fast, FtlKind::Page],
            utilizations: vec![0.25, 0.5, 0.75, 1.0],
            ranges: vec![1 << 30, 2 << 30, 4 << 30, 8 << 30, 16 << 30],
            placement: Placement::RandomStart,
            prefill: true,
            warmup_dw: 2.0,
            measure_dw: 2.0,
            rw_log_blocks: None,
            seed: 1,
        }
    }
}

/// One measured point.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepRow {
    /// FTL kind.
    pub ftl: FtlKind,
    /// Block utilization (fraction).
    pub utilization: f64,
    /// I/O range, bytes.
    pub range_bytes: u64,
    /// Page placement.
    pub placement: Placement,
    /// FAST RW log blocks (0 for other FTLs).
    pub rw_log_blocks: u32,
    /// Host page writes measured.
    pub host_write_pages: u64,
    /// Flash programs measured.
    pub flash_programs: u64,
    /// Erases measured.
    pub erases: u64,
    /// Switch / partial / full merges (FAST).
    pub merges: [u64; 3],
    /// Write amplification.
    pub waf: f64,
}

/// Header of [`to_csv`].
pub const CSV_HEADER: &str =
    "ftl,utilization,range_bytes,placement,rw_log_blocks,host_write_pages,\
flash_programs,erases,switch_merges,partial_merges,full_merges,waf";

/// The rows as CSV with [`CSV_HEADER`].
pub fn to_csv(rows: &[SweepRow]) -> String {
    let mut s = String::from(CSV_HEADER);
    s.push('\n');
    for r in rows {
        let ftl = match r.ftl {
            FtlKind::Page => "page",
            FtlKind::Fast => "fast",
            FtlKind::Block => "block",
        };
        let pl = match r.placement {
            Placement::Subset => "subset",
            Placement::Aligned => "aligned",
            Placement::RandomStart => "random-start",
        };
        s.push_str(&format!(
            "{ftl},{},{},{pl},{},{},{},{},{},{},{},{:.4}\n",
            r.utilization,
            r.range_bytes,
            r.rw_log_blocks,
            r.host_write_pages,
            r.flash_programs,
            r.erases,
            r.merges[0],
            r.merges[1],
            r.merges[2],
            r.waf
        ));
    }
    s
}

/// Write `volume` host pages of the workload.
fn drive<F: Ftl>(
    ftl: &mut F,
    rng: &mut Pcg64Mcg,
    blocks: u64,
    np: u32,
    k: u32,
    placement: Placement,
    volume: u64,
) -> Result<(), FtlError> {
    let mut done = 0u64;
    let npu = u64::from(np);
    while done < volume {
        let base = rng.gen_range(0..blocks) * npu;
        match placement {
            Placement::Aligned => ftl.write(base, u64::from(k))?,
            Placement::RandomStart => {
                let start = rng.gen_range(0..=np - k);
                ftl.write(base + u64::from(start), u64::from(k))?;
            }
            Placement::Subset => {
                // Selection sampling (Knuth, TAOCP 3.4.2, Algorithm S): ascending order,
                // consecutive picks issued as one run.
                let (mut need, mut run_start, mut run_len) = (k, 0u32, 0u32);
                for i in 0..np {
                    if need == 0 {
                        break;
                    }
                    if rng.gen_range(0..np - i) < need {
                        need -= 1;
                        if run_len > 0 && run_start + run_len == i {
                            run_len += 1;
                        } else {
                            if run_len > 0 {
                                ftl.write(base + u64::from(run_start), u64::from(run_len))?;
                            }
                            run_start = i;
                            run_len = 1;
                        }
                    }
                }
                if run_len > 0 {
                    ftl.write(base + u64::from(run_start), u64::from(run_len))?;
                }
            }
        }
        done += u64::from(k);
    }
    Ok(())
}

/// Measure one (FTL, utilization, range) point on `device`.
pub fn run_point(
    device: &Device,
    ftl: FtlKind,
    utilization: f64,
    range_bytes: u64,
    cfg: &SweepConfig,
) -> Result<SweepRow, FtlError> {
    let mut dev = device.clone();
    dev.ftl = ftl;
    if cfg.rw_log_blocks.is_some() {
        dev.rw_log_blocks = cfg.rw_log_blocks;
    }
    let g = dev.geometry;
    let np = g.pages_per_block;
    if !(utilization > 0.0 && utilization <= 1.0) {
        return Err(FtlError::Config(format!(
            "utilization {utilization} is outside (0, 1]"
        )));
    }
    let k = ((utilization * f64::from(np)).round() as u32).clamp(1, np);
    let blocks = (range_bytes / g.block_bytes()).min(g.logical_pages / u64::from(np));
    if blocks == 0 {
        return Err(FtlError::Config(format!(
            "I/O range of {range_bytes} bytes holds no whole block of this device"
        )));
    }
    let mut f = dev.build_ftl()?;
    let rw = match &f {
        crate::ftl::AnyFtl::Fast(x) => x.rw_log_blocks() as u32,
        _ => 0,
    };
    if cfg.prefill {
        crate::aging::age(
            &mut f,
            &crate::aging::Aging {
                fill: true,
                volume_bytes: 0,
                ..Default::default()
            },
        )?;
    }
    let mut rng = Pcg64Mcg::seed_from_u64(cfg.seed);
    let dw = |x: f64| (x * g.logical_pages as f64) as u64;
    drive(
        &mut f,
        &mut rng,
        blocks,
        np,
        k,
        cfg.placement,
        dw(cfg.warmup_dw),
    )?;
    f.reset_counters();
    drive(
        &mut f,
        &mut rng,
        blocks,
        np,
        k,
        cfg.placement,
        dw(cfg.measure_dw),
    )?;
    let m = f.metrics();
    Ok(SweepRow {
        ftl,
        utilization,
        range_bytes,
        placement: cfg.placement,
        rw_log_blocks: rw,
        host_write_pages: m.counters.host_write_pages,
        flash_programs: m.counters.programs_host + m.counters.programs_gc,
        erases: m.counters.erases,
        merges: [
            m.counters.switch_merges,
            m.counters.partial_merges,
            m.counters.full_merges,
        ],
        waf: m.waf,
    })
}

/// Run every point of the sweep in order (FTL, range, utilization), reporting each row
/// to `each` as it completes.
pub fn run(
    device: &Device,
    cfg: &SweepConfig,
    mut each: impl FnMut(&SweepRow),
) -> Result<Vec<SweepRow>, FtlError> {
    let mut rows = Vec::new();
    for &ftl in &cfg.ftls {
        for &range in &cfg.ranges {
            for &u in &cfg.utilizations {
                let row = run_point(device, ftl, u, range, cfg)?;
                each(&row);
                rows.push(row);
            }
        }
    }
    Ok(rows)
}
