//! Bounds checked before work: every limit that stops a request from taking hours or
//! all of the machine's memory before its first result, in one place
//! (`docs/safety.md`, "Bounds before work").
//!
//! Each limit is checked where its count is first known and cheap to know (the size
//! of a grid from the lengths of its lists, a curve's points from the option, a
//! prepared trace's memory as it grows, the worker count from the machine), and a
//! refusal says the count, an estimate of what it would cost and how to proceed.

/// Cells a grid may have unless the description raises the limit (`--max-cells`,
/// `max_cells` in an experiment file, `max_cells=` in Python): the cells are listed,
/// identified and positioned before the first one runs, about 2 KB each (10^6 cells
/// took 2 GB), and a grid that large is more often a typo than a study.
pub const MAX_CELLS: u64 = 100_000;

/// Sizes a curve may have (`--points`, or `--sizes` given one by one): each size is a
/// row per policy and method, and no trace has more distinct sizes worth drawing.
pub const MAX_CURVE_POINTS: u64 = 100_000;

/// The environment variable that sets the memory a prepared trace may take, in bytes
/// or with a unit (`64GiB`), in place of the machine's physical memory (a machine
/// with swap, or a test).
pub const MEMORY_ENV: &str = "WAFER_MAX_MEMORY";

/// The memory a prepared trace may take: `WAFER_MAX_MEMORY`, else the machine's
/// physical memory (`MemTotal` of `/proc/meminfo`), else no limit. A trace that needs
/// more would be killed by the kernel half-way, or swap for hours, instead of being
/// refused.
pub fn memory_limit() -> u64 {
    if let Some(v) = std::env::var_os(MEMORY_ENV) {
        if let Ok(n) = wafer_trace::units::parse_size(&v.to_string_lossy()) {
            return n;
        }
    }
    physical_memory().unwrap_or(u64::MAX)
}

fn physical_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Cells one shared pass over a streamed trace of `footprint_pages` distinct pages
/// may hold (`docs/experiments.md`, "Traces larger than memory"): their policies'
/// state is in memory at once, at most [`wafer_cache::engine::POLICY_BYTES_PER_ID`]
/// bytes per page each, and every core may run such a pass, so the passes together
/// stay within half the memory limit; at least one.
pub fn cells_per_pass(footprint_pages: u32) -> usize {
    let cores = workers(0).0 as u64;
    let share = memory_limit() / 2 / cores;
    let per_cell =
        (u64::from(footprint_pages) + 1).saturating_mul(wafer_cache::engine::POLICY_BYTES_PER_ID);
    usize::try_from(share / per_cell)
        .unwrap_or(usize::MAX)
        .max(1)
}

/// The worker threads `jobs` asks for (0 = one per core), at most one per core: more
/// threads than cores only add memory (a cell's arrays each) and contention, and a
/// huge count spawns threads until the kernel refuses. The second value is the note
/// to print when the count was capped.
pub fn workers(jobs: usize) -> (usize, Option<String>) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match jobs {
        0 => (cores, None),
        j if j > cores => (
            cores,
            Some(format!(
                "{j} jobs asked for, more than the {cores} cores here; running {cores}"
            )),
        ),
        j => (j, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_holds_fewer_cells_over_a_larger_footprint_and_at_least_one() {
        let (small, large) = (cells_per_pass(1_000), cells_per_pass(100_000_000));
        assert!(
            small >= large,
            "{small} cells at 1,000 pages, {large} at 10^8"
        );
        // 2^32 pages of 48 bytes a cell is 192 GiB: past half of this machine's memory.
        assert_eq!(cells_per_pass(u32::MAX), 1);
    }

    #[test]
    fn workers_are_capped_at_the_cores() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(workers(0), (cores, None));
        assert_eq!(workers(1), (1, None));
        let (n, note) = workers(1_000_000);
        assert_eq!(n, cores);
        assert!(note.unwrap().starts_with("1000000 jobs asked for"));
    }
}
