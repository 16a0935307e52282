//! The options of one cache run that `wafer sim` and `wafer curve` share: declared
//! once here, and checked once, by the run description they fill
//! ([`wafer_lab::Experiment::settings_as`], the checks an experiment file and the
//! Python API get too).

use wafer_lab::{Access, Experiment};

/// How requests become cache accesses.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GranularityArg {
    /// Every page a request touches is one access (default).
    Page,
    /// One access per record, keyed by its first sector (libCacheSim's object view).
    Record,
}

/// Page and block geometry and the run options of the cache.
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Erase-block size (block = page div pages-per-block).
    #[arg(long, visible_alias = "block-size", default_value = "4MiB")]
    pub block: String,
    /// Page size.
    #[arg(long, default_value = "4KiB")]
    pub page_size: String,
    /// Page accesses, or one access per record.
    #[arg(long, value_enum, default_value_t = GranularityArg::Page)]
    pub granularity: GranularityArg,
    /// Accesses of a warm-up prefix that are not counted.
    #[arg(long, default_value_t = 0)]
    pub warmup: u64,
    /// Read the page from storage on a write miss too.
    #[arg(long)]
    pub write_miss_fetch: bool,
    /// Write the dirty pages left at the end (reported apart).
    #[arg(long)]
    pub flush_at_end: bool,
}

impl RunArgs {
    /// Put these options into `exp`.
    pub fn describe(&self, exp: &mut Experiment) {
        exp.access = match self.granularity {
            GranularityArg::Page => Access::Page,
            GranularityArg::Record => Access::Record,
        };
        exp.page_size = self.page_size.clone();
        exp.block_size = self.block.clone();
        exp.warmup = self.warmup;
        exp.write_miss_fetch = self.write_miss_fetch;
        exp.flush_at_end = self.flush_at_end;
    }
}
