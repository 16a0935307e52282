//! Paper presets (`wafer reproduce`) and the demo: each is one of the five papers'
//! designs (policy set, cache sizes, devices, aging, metric) as an experiment defined
//! in code, with the paper's setup next to wafer's, and the paper's claims judged by
//! the rule of [`crate::claims`].
//!
//! The papers' own traces are not public: the stand-ins are real mobile block traces
//! (`../shared/traces/mobile-pixel6a`, see that folder's README) and wafer's own
//! captures (`traces/`), so figures are expected to differ from the papers'; the setup
//! table says what differs. Every preset that writes to a device ages it first as paper
//! 000 does (fill, then 16 GiB of mixed sequential and random writes); each device is
//! aged once and copied into every cell. Lifetime claims count the end flush (dirty
//! pages left in the cache are written at the end), and print the view without it.
//! Policies a preset names that are not registered in this build are left out with a
//! note.
//!
//! Bundled captures are found under the repository's `traces/`, the public traces in
//! the trace folders ([`crate::trace_folders`]: `$WAFER_TRACES`, the data folder
//! `wafer traces fetch` fills, `../shared/traces`). A group whose traces are not all
//! there is left out with a line saying how to fetch them ([`Preset::skipped`]), so a
//! study runs from a clone alone on its bundled group.
//!
//! The `apu` preset (paper 004: M. Huang et al., "Efficient Cache Design for
//! Solid-State Drives", ACM Computing Frontiers 2010) runs timed-device cells, not
//! cache x FTL cells: it lives in [`crate::apu`].

use std::path::{Path, PathBuf};

use wafer_cache::registry;
use wafer_ftl::Device;

use crate::claims::{Claim, Form, Judged, Measured, Metric, Over};
use crate::error::LabError;
use crate::experiment::{AgingDef, Experiment, Outputs, Plan, TraceDef};
use crate::plot::{Chart, Kind, Series};
use crate::report::{Preface, VerdictRow};
use crate::result::CellResult;

/// The paper's own setup, as its text states it.
#[derive(Clone, Debug)]
pub struct PaperSetup {
    /// Workload and the level it was traced at.
    pub workload: &'static str,
    /// Cache sizes.
    pub sizes: &'static str,
    /// Devices and FTLs.
    pub device: &'static str,
    /// Aging or preconditioning.
    pub aging: &'static str,
    /// What was measured.
    pub metric: &'static str,
}

/// A paper preset.
#[derive(Clone, Debug)]
pub struct Preset {
    /// Name on the command line.
    pub name: &'static str,
    /// The paper.
    pub paper: &'static str,
    /// Policies of the paper's evaluation, in wafer's names.
    pub policies: &'static [&'static str],
    /// Devices (`none` = cache only).
    pub devices: &'static [&'static str],
    /// Stand-in traces in groups, each judged on its own: the workloads closest to
    /// the paper's first, the Pixel 6a block traces as a second group.
    pub groups: &'static [TraceGroup],
    /// Read the page on a write miss (a virtual-memory fault always reads it).
    pub write_miss_fetch: bool,
    /// The paper's setup.
    pub setup: PaperSetup,
    /// Claims checked.
    pub claims: &'static [Claim],
    /// Where a claim holds: one device parameter varied (docs/papers.md).
    pub sensitivities: &'static [Sensitivity],
}

/// Stand-in traces judged together: every claim gets one verdict per group.
#[derive(Clone, Copy, Debug)]
pub struct TraceGroup {
    /// Short name in verdict lines and figure labels.
    pub name: &'static str,
    /// Trace files: public traces by their path in a trace folder
    /// ([`crate::known_traces`]), or wafer's own bundled captures under `traces/` of
    /// the repository.
    pub traces: &'static [&'static str],
    /// The group's cache sizes (a share of each trace's footprint suits captures
    /// whose footprints are small).
    pub sizes: &'static [&'static str],
    /// What the group's workloads differ in from the paper's.
    pub differences: &'static str,
}

impl TraceGroup {
    /// The labels its traces carry in results.
    pub fn labels(&self) -> Vec<String> {
        self.traces
            .iter()
            .map(|t| TraceDef::file(PathBuf::from(t)).label())
            .collect()
    }

    /// The cells of `results` on its traces.
    pub fn of(&self, results: &[CellResult]) -> Vec<CellResult> {
        let labels = self.labels();
        results
            .iter()
            .filter(|r| labels.contains(&r.params.trace))
            .cloned()
            .collect()
    }
}

/// A sensitivity study of one claim: its policies on the preset's traces and cache
/// sizes, aged and flushed as the preset, with one condition varied: the device or
/// the proposed policy's parameter (docs/findings.md). It runs as an experiment of
/// its own through the same runner.
#[derive(Clone, Copy, Debug)]
pub struct Sensitivity {
    /// Its folder under `<out>/sensitivity/`.
    pub slug: &'static str,
    /// The claim (index into the preset's claims).
    pub claim: usize,
    /// What varies.
    pub axis: &'static str,
    /// Whether a point is a device or a policy.
    pub vary: Vary,
    /// `(value, device spec or policy label)` in the axis' order.
    pub points: &'static [(&'static str, &'static str)],
    /// The value the preset itself runs.
    pub preset_point: &'static str,
    /// The value of the paper's own setup, if the paper gives it.
    pub paper_point: Option<&'static str>,
}

impl Sensitivity {
    /// The marks of point `value`: the preset's and the paper's operating points.
    fn mark(&self, value: &str) -> &'static str {
        match (value == self.preset_point, self.paper_point == Some(value)) {
            (true, true) => " (preset, paper)",
            (true, false) => " (preset)",
            (false, true) => " (paper)",
            (false, false) => "",
        }
    }
}

/// What a sensitivity point replaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vary {
    /// The claim's device (a device spec such as `microsd-16g:rw_log_blocks=1`).
    Device,
    /// The claim's proposed policy (a policy label such as `craw:c=4`).
    Policy,
}

const TELEGRAM: &str = "mobile-pixel6a/telegram_exec.csv.gz";
const GAME: &str = "mobile-pixel6a/cod_exec.csv.gz";
/// SQLite under a write-heavy load with a small page cache, captured by
/// `wafer trace capture` (`traces/README.md`): the storage engine of Android apps.
const SQLITE: &str = "sqlite-wal.wtr";
/// dbench's file-server load, one client, one pass of its load file, captured the same
/// way (`traces/README.md`): paper 000's file-server workload.
const DBENCH: &str = "dbench.wtr";
/// MariaDB under sysbench's OLTP read-write load with an 8 MiB buffer pool, captured
/// the same way: the stand-in for paper 000's TPC-C on MySQL.
const MARIADB: &str = "mariadb-oltp.wtr";
/// Valgrind (lackey) memory traces of `xz` and `sort`, filtered through a CPU-cache
/// model (`traces/README.md`): the kind of trace papers 002 and 003 used.
const MEM_XZ: &str = "mem-xz.wtr";
const MEM_SORT: &str = "mem-sort.wtr";

/// What remains different in every study on the mobile block traces.
const BLOCK_STAND_IN: &str = "block-layer traces (the phone's page cache already filtered them and its file system laid them out), not the paper's page-cache traces";

/// The paper-like file-server and OLTP captures (paper 000's Dbench and TPC-C).
const SERVER_CAPTURES: TraceGroup = TraceGroup {
    name: "paper-like",
    traces: &[DBENCH, MARIADB],
    // Shares of each footprint (23 and 59 MiB): the paper's 4 to 64 MB would hold
    // these captures whole at the larger sizes.
    sizes: &["5%", "10%", "25%", "50%"],
    differences: "dbench and MariaDB OLTP captured at the system-call level (page-cache level) on this kind of machine, not the paper's Dbench and TPC-C traces; cache sizes as shares of their footprints",
};

/// The memory traces of real programs (papers 002 and 003).
const MEMORY_CAPTURES: TraceGroup = TraceGroup {
    name: "paper-like",
    traces: &[MEM_XZ, MEM_SORT],
    // Shares of each footprint (3,853 and 486 pages): at the Pixel group's 0.5% a
    // cache of `sort` would hold 2 pages.
    sizes: &["5%", "10%", "20%", "40%"],
    differences: "Valgrind memory traces of xz and sort through a CPU-cache model, not the paper's X11 and SPEC programs; cache sizes as shares of their footprints",
};

/// The presets `wafer reproduce` offers.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "ts-clock",
        paper: "D. H. Kang, C. Min, Y. I. Eom, \"An Efficient Buffer Replacement Algorithm for NAND Flash Storage Devices\" (TS-CLOCK), IEEE MASCOTS 2014 (paper 000)",
        policies: &["lru", "clock", "cflru", "fab", "lb-clock", "sorted-clock", "bua", "ts-clock"],
        devices: &["microsd-16g", "page-16g"],
        groups: &[
            SERVER_CAPTURES,
            TraceGroup {
                name: "Pixel 6a",
                traces: &[TELEGRAM],
                sizes: &["4MiB", "8MiB", "16MiB", "32MiB", "64MiB"],
                differences: BLOCK_STAND_IN,
            },
        ],
        write_miss_fetch: false,
        setup: PaperSetup {
            workload: "page-cache traces: video streaming and mixed applications on Android, Dbench file server, TPC-C on MySQL (Table II)",
            sizes: "4 MB to 64 MB on the microSD cards (Fig. 4), 32 MB to 512 MB on the SSD (Fig. 6)",
            device: "FTL simulator (Sec. IV-E): FAST, 16 GB, 15% OP, 4 KB page, 4 MB block; page-level, 16 GB, 24 MB block, same OP. Elapsed time on two real microSD cards and a 120 GB SSD with NCQ (Table I)",
            aging: "16 GB of mixed sequential and random writes before each run (Sec. IV-E)",
            metric: "erase count (Figs. 8, 9); elapsed time measured on the real devices (Figs. 4, 6)",
        },
        claims: &[
            Claim {
                text: "TS-CLOCK extends the lifetime by up to 29% compared to CFLRU on FAST FTL (Sec. IV-E, Fig. 8b)",
                policy: "ts-clock",
                baseline: "cflru",
                metric: Metric::Erases,
                form: Form::Reduction,
                over: Over::UpTo,
                paper: Some(0.29),
                device: "microsd-16g",
                differences: "a simulated card whose log-block count the paper does not give",
            },
            Claim {
                text: "TS-CLOCK extends the lifetime by up to 53% compared to FAB on page-level FTL (Sec. IV-E, Fig. 9d)",
                policy: "ts-clock",
                baseline: "fab",
                metric: Metric::Erases,
                form: Form::Reduction,
                over: Over::UpTo,
                paper: Some(0.53),
                device: "page-16g",
                differences: "none in the setup",
            },
            Claim {
                text: "TS-CLOCK outperforms Sp.Clock by 30% on the NAND flash storage devices (abstract; elapsed time, Figs. 4, 6)",
                policy: "ts-clock",
                baseline: "sorted-clock",
                metric: Metric::Elapsed,
                form: Form::Reduction,
                over: Over::Mean,
                paper: Some(0.30),
                device: "microsd-16g",
                differences: "elapsed time of a synchronous replay on the timed model of the card (one flash unit, host link 10 us a page), not measured on a real card",
            },
        ],
        // FAST's merges decide the erase claim; a card's log blocks are not in the
        // paper (docs/ftl.md).
        sensitivities: &[
            LOG_BLOCK_STUDY,
            // Count levels decide whether a block being appended is written whole
            // (docs/findings.md, section 3); Fig. 2 of the paper uses 4.
            Sensitivity {
                slug: "levels",
                claim: 2,
                axis: "TS-CLOCK count levels",
                vary: Vary::Policy,
                points: &[
                    ("1", "ts-clock:levels=1"),
                    ("2", "ts-clock:levels=2"),
                    ("4", "ts-clock:levels=4"),
                    ("7", "ts-clock:levels=7"),
                ],
                preset_point: "4",
                paper_point: Some("4"),
            },
        ],
    },
    Preset {
        name: "bua",
        paper: "D. H. Kang, C. Min, Y. I. Eom, \"Block utilization-aware buffer replacement scheme for mobile NAND flash storage\" (BUA), IEICE Trans. Information and Systems E97-D(9), 2014 (paper 001)",
        policies: &["cflru", "fab", "sorted-clock", "bua"],
        devices: &["microsd-16g"],
        groups: &[
            TraceGroup {
                name: "paper-like",
                traces: &[SQLITE],
                // A share of its 6.2 MiB footprint: 8 MiB and more would hold it whole.
                sizes: &["10%", "25%", "50%"],
                differences: "one SQLite (WAL) application load captured at the system-call level on this kind of machine, the storage engine of Android apps, not the paper's phone traces of browsing, video and mixed apps; cache sizes as shares of its footprint",
            },
            TraceGroup {
                name: "Pixel 6a",
                // The third Pixel 6a trace, slideshow_exec, touches 6,364 erase blocks
                // of 4 MiB (24.9 GiB) after the cache: more than the 16 GiB card holds,
                // so compact refuses it and wrap would fold its pages together.
                traces: &[TELEGRAM, GAME],
                sizes: &["4MiB", "8MiB", "16MiB", "32MiB", "64MiB"],
                differences: "block-layer traces (the phone's page cache already filtered them), not the paper's page-cache traces; two of the three Pixel 6a traces (slideshow_exec spans more erase blocks than the 16 GiB card holds)",
            },
        ],
        write_miss_fetch: false,
        setup: PaperSetup {
            workload: "page-cache traces of an Android phone: W1 web browsing, W2 video streaming, W3 mixed applications (from the Sp.Clock study)",
            sizes: "4 MB to 64 MB",
            device: "two real microSD cards (Patriot 16 GB class 10, Adata 16 GB class 6), 4 MB blocks, replayed with O_DIRECT",
            aging: "not stated (cards in use)",
            metric: "elapsed time of the replay (Figs. 4, 5)",
        },
        claims: &[Claim {
            text: "BUA outperforms Sp.Clock by up to 48% (33% W1, 12% W2, 48% W3; Figs. 4, 5)",
            policy: "bua",
            baseline: "sorted-clock",
            metric: Metric::Elapsed,
            form: Form::Reduction,
            over: Over::UpTo,
            paper: Some(0.48),
            device: "microsd-16g",
            differences: "elapsed time of a synchronous replay on the timed model of the card, not measured on a real card; the card is aged as paper 000 ages",
        }],
        sensitivities: &[LOG_BLOCK_STUDY],
    },
    Preset {
        name: "craw",
        paper: "H. Lee, H. Bahn, K. G. Shin, \"Page Replacement for Write References in NAND Flash Based Virtual Memory Systems\" (CRAW), JCSE 8(3), 2014 (paper 002)",
        policies: &["clock", "car", "cfclock", "cflru", "craw", "craw-a"],
        devices: &["none"],
        groups: &[
            MEMORY_CAPTURES,
            TraceGroup {
                name: "Pixel 6a",
                traces: &[TELEGRAM, GAME],
                sizes: &["0.5%", "1%", "2%", "5%", "10%"],
                differences: "block-layer traces, not memory references; no CPU-cache filter applies",
            },
        ],
        write_miss_fetch: true,
        setup: PaperSetup {
            workload: "memory reference traces of applications (Valgrind), filtered by a CPU-cache model before the page cache",
            sizes: "a share of each trace's footprint",
            device: "none: a cost model of 25 us per page read and 200 us per page write (SLC, Table 1)",
            aging: "none (no device)",
            metric: "total I/O time under the cost model; a page fault reads the page",
        },
        claims: &[
            Claim {
                text: "CRAW reduces total I/O time vs CLOCK by 23.9% on average (up to 66.5%)",
                policy: "craw",
                baseline: "clock",
                metric: Metric::CostTime,
                form: Form::Reduction,
                over: Over::Mean,
                paper: Some(0.239),
                device: "none",
                differences: "none in the setup",
            },
            Claim {
                text: "CRAW reduces I/O time vs CAR by 25%-66%",
                policy: "craw",
                baseline: "car",
                metric: Metric::CostTime,
                form: Form::Reduction,
                over: Over::Mean,
                paper: Some(0.25),
                device: "none",
                differences: "the paper's lower bound is taken as its figure",
            },
            Claim {
                text: "CRAW reduces I/O time vs CFCLOCK by 16%-58%",
                policy: "craw",
                baseline: "cfclock",
                metric: Metric::CostTime,
                form: Form::Reduction,
                over: Over::Mean,
                paper: Some(0.16),
                device: "none",
                differences: "the paper's lower bound is taken as its figure",
            },
        ],
        // CRAW's areas are sized by the write/read cost ratio c it is given; the cost
        // model stays 200/25 = 8, so the sweep shows what a mis-set c costs.
        sensitivities: &[Sensitivity {
            slug: "craw-c",
            claim: 0,
            axis: "CRAW's cost ratio c",
            vary: Vary::Policy,
            points: &[
                ("1", "craw:c=1"),
                ("2", "craw:c=2"),
                ("4", "craw:c=4"),
                ("8", "craw:c=8"),
                ("16", "craw:c=16"),
                ("32", "craw:c=32"),
            ],
            preset_point: "8",
            // Table 1's SLC costs, 200 / 25 us.
            paper_point: Some("8"),
        }],
    },
    Preset {
        name: "sorted-clock",
        paper: "Write-ordering-aware page replacement (Sorted-Clock, Sorted-Clock-WSR) for smartphone flash (paper 003)",
        policies: &["lru", "clock", "lirs", "lru-wsr", "sorted-clock", "sorted-clock-wsr"],
        devices: &["microsd-16g"],
        groups: &[
            MEMORY_CAPTURES,
            TraceGroup {
                name: "Pixel 6a",
                traces: &[TELEGRAM],
                sizes: &["4MiB", "8MiB", "16MiB", "32MiB"],
                differences: BLOCK_STAND_IN,
            },
        ],
        // The paper's traces come from a virtual-memory simulator: a fault reads the
        // page before a store to it.
        write_miss_fetch: true,
        setup: PaperSetup {
            workload: "memory reference traces of smartphone applications through a virtual-memory simulator, replayed by a workload player",
            sizes: "page caches of a few to tens of MB",
            device: "a real smartphone's flash storage",
            aging: "not stated",
            metric: "elapsed time of the replay on the device",
        },
        claims: &[
            Claim {
                text: "Elapsed time of Sorted-Clock is 3.7 to 7.7 times less than the other schemes (vs CLOCK here)",
                policy: "sorted-clock",
                baseline: "clock",
                metric: Metric::Elapsed,
                form: Form::Ratio,
                over: Over::Mean,
                paper: Some(3.7),
                device: "microsd-16g",
                differences: "elapsed time of a synchronous replay on the timed model of a FAST card, not measured on a phone; the paper's lower bound is taken as its figure",
            },
            Claim {
                text: "Elapsed time of Sorted-Clock is 3.7 to 7.7 times less than the other schemes (vs LRU here)",
                policy: "sorted-clock",
                baseline: "lru",
                metric: Metric::Elapsed,
                form: Form::Ratio,
                over: Over::Mean,
                paper: Some(3.7),
                device: "microsd-16g",
                differences: "elapsed time of a synchronous replay on the timed model of a FAST card, not measured on a phone; the paper's lower bound is taken as its figure",
            },
        ],
        sensitivities: &[LOG_BLOCK_STUDY],
    },
];

/// The card with 1 to 64 RW log blocks (real SD cards keep 1 to at least 5 open
/// erase blocks, docs/ftl.md); `microsd-16g` keeps 4.
const LOG_BLOCKS: &[(&str, &str)] = &[
    ("1", "microsd-16g:rw_log_blocks=1"),
    ("2", "microsd-16g:rw_log_blocks=2"),
    ("4", "microsd-16g:rw_log_blocks=4"),
    ("16", "microsd-16g:rw_log_blocks=16"),
    ("64", "microsd-16g:rw_log_blocks=64"),
];

/// The first claim by the card's RW log-block count, at `microsd-16g`'s 4; the paper
/// does not say how many log blocks its card keeps.
const LOG_BLOCK_STUDY: Sensitivity = Sensitivity {
    slug: "log-blocks",
    claim: 0,
    axis: "FAST RW log blocks",
    vary: Vary::Device,
    points: LOG_BLOCKS,
    preset_point: "4",
    paper_point: None,
};

/// The demo: a small TS-CLOCK-style study (paper 000's policy set on its FAST card,
/// aged) on two page-cache-level captures bundled with wafer. Policies of the list not
/// registered in this build are left out with a note.
pub const DEMO: Preset = Preset {
    name: "demo",
    paper: "a small TS-CLOCK-style study (paper 000's design) on two page-cache-level captures bundled with wafer: dbench's file server and MariaDB OLTP, the kinds of paper 000's Dbench and TPC-C workloads",
    policies: &[
        "lru", "clock", "cflru", "fab", "lb-clock", "ts-clock", "bua",
    ],
    devices: &["microsd-16g"],
    // Bundled in the repository, so the demo runs from a clone alone; every cell holds
    // less than the trace touches.
    groups: &[SERVER_CAPTURES],
    write_miss_fetch: false,
    setup: PaperSetup {
        workload: "page-cache traces (Table II)",
        sizes: "4 MB to 64 MB",
        device: "FAST, 16 GB, 15% OP, 4 KB page, 4 MB block",
        aging: "16 GB of mixed sequential and random writes",
        metric: "writes and erase counts (Figs. 7, 8)",
    },
    claims: &[
        Claim {
            text: "paper 000 Fig. 7: FAB's whole-block evictions send more writes to storage than fine-grained policies (LRU here)",
            policy: "lru",
            baseline: "fab",
            metric: Metric::PagesWritten,
            form: Form::Reduction,
            over: Over::Mean,
            paper: None,
            device: "microsd-16g",
            differences: "none in the setup",
        },
        Claim {
            text: "paper 000 Fig. 8: on the FAST card, FAB erases more blocks than fine-grained management (LRU here)",
            policy: "lru",
            baseline: "fab",
            metric: Metric::Erases,
            form: Form::Reduction,
            over: Over::Mean,
            paper: None,
            device: "microsd-16g",
            differences: "a simulated card whose log-block count the paper does not give",
        },
        Claim {
            text: "paper 000 Sec. IV-E: TS-CLOCK needs fewer erases than FAB",
            policy: "ts-clock",
            baseline: "fab",
            metric: Metric::Erases,
            form: Form::Reduction,
            over: Over::Mean,
            paper: None,
            device: "microsd-16g",
            differences: "a simulated card whose log-block count the paper does not give",
        },
        Claim {
            text: "paper 000: TS-CLOCK is faster on the microSD card than CLOCK",
            policy: "ts-clock",
            baseline: "clock",
            metric: Metric::Elapsed,
            form: Form::Reduction,
            over: Over::Mean,
            paper: None,
            device: "microsd-16g",
            differences: "elapsed time of a synchronous replay on the timed model of the card, not measured on a real one",
        },
    ],
    sensitivities: &[],
};

/// The note every reproduction prints.
pub const NOTE: &str = "The papers' own traces are not public: wafer runs the papers' designs on stand-in workloads (named in the setup table), so compare trends and verdicts, not exact numbers.";

/// The preset called `name`.
pub fn find(name: &str) -> Result<&'static Preset, LabError> {
    PRESETS.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        LabError::Invalid(format!(
            "unknown paper preset \"{name}\" (known: {}, apu)",
            names.join(", ")
        ))
    })
}

/// Where the preset trace `rel` is: a bundled capture under the repository's
/// `traces/`, else a trace folder ([`crate::trace_folders`]); missing, an error that
/// says how to fetch it.
pub fn locate_trace(rel: &str) -> Result<PathBuf, LabError> {
    let p = crate::trace_folders::find(Path::new(rel), &crate::trace_folders::bundled(rel))?;
    Ok(p.canonicalize().unwrap_or(p))
}

/// A group of a preset that cannot run here, and the traces it lacks.
#[derive(Clone, Debug)]
pub struct Skipped {
    /// The group.
    pub group: &'static TraceGroup,
    /// Its traces that were not found, as the preset names them.
    pub missing: Vec<&'static str>,
}

impl Skipped {
    /// One line: the group, what it lacks, and the command that fetches it.
    pub fn line(&self) -> String {
        let how = match crate::trace_folders::fetch_command(self.missing.iter().copied()) {
            Some(cmd) => format!("run `{cmd}` to include it"),
            None => "run from a wafer clone (they are under its traces/)".into(),
        };
        format!(
            "skipped: group {} needs {}, not found; {how}",
            self.group.name,
            self.missing.join(", ")
        )
    }
}

impl Preset {
    /// Registered policies of the preset, and the ones missing from this build.
    pub fn policies(&self) -> (Vec<&'static str>, Vec<&'static str>) {
        self.policies
            .iter()
            .partition(|p| registry::find(p).is_ok())
    }

    /// Whether a device column is in the design (aging applies then).
    fn writes_to_a_device(&self) -> bool {
        self.devices.iter().any(|d| *d != "none")
    }

    /// The aging every device study runs: paper 000's recipe (fill, then 16 GiB,
    /// half random 4 KiB pages, half 1 MiB runs; `wafer_ftl::aging`).
    fn aging(&self) -> Option<AgingDef> {
        self.writes_to_a_device().then(|| AgingDef {
            fill: true,
            volume: "16GiB".into(),
            random_fraction: 0.5,
            run: "1MiB".into(),
            seed: wafer_ftl::aging::Aging::default().seed,
        })
    }

    /// The groups that cannot run here: a group runs only with all its traces, so
    /// that its verdicts are the same wherever it runs.
    pub fn skipped(&self) -> Vec<Skipped> {
        self.groups
            .iter()
            .filter_map(|g| {
                let missing: Vec<&'static str> = g
                    .traces
                    .iter()
                    .copied()
                    .filter(|t| locate_trace(t).is_err())
                    .collect();
                (!missing.is_empty()).then_some(Skipped { group: g, missing })
            })
            .collect()
    }

    /// The experiment, with traces located. `quick` keeps the design (policies,
    /// devices, aging) on the first trace of each group at its smallest and largest
    /// cache size: the form the tests run.
    pub fn plan(&self, quick: bool) -> Result<Plan, LabError> {
        let (have, _) = self.policies();
        if have.is_empty() {
            return Err(LabError::Invalid(format!(
                "none of the policies of preset {} is registered in this build",
                self.name
            )));
        }
        self.experiment(
            format!("{}: {}", self.name, self.paper),
            have.iter().map(|s| s.to_string()).collect(),
            self.devices.iter().map(|s| s.to_string()).collect(),
            &|g: &TraceGroup| {
                if quick {
                    (&g.traces[..1], vec![g.sizes[0], g.sizes[g.sizes.len() - 1]])
                } else {
                    (g.traces, g.sizes.to_vec())
                }
            },
        )
    }

    /// The sensitivity studies' experiments: each claim's policies on the preset's
    /// traces and sizes, with each point's device or policy; `quick`: the first trace
    /// of each group at its smallest size (each device point ages a device of its own,
    /// which is most of the time).
    pub fn sensitivity_plans(&self, quick: bool) -> Result<Vec<(Sensitivity, Plan)>, LabError> {
        let mut out = Vec::new();
        for s in self.sensitivities {
            let c = &self.claims[s.claim];
            let (policies, devices) = match s.vary {
                Vary::Device => (
                    vec![c.policy.to_string(), c.baseline.to_string()],
                    s.points.iter().map(|(_, d)| d.to_string()).collect(),
                ),
                Vary::Policy => (
                    std::iter::once(c.baseline)
                        .chain(s.points.iter().map(|(_, p)| *p))
                        .map(str::to_string)
                        .collect(),
                    vec![c.device.to_string()],
                ),
            };
            let plan = self.experiment(
                format!("{}: where \"{}\" holds, by {}", self.name, c.text, s.axis),
                policies,
                devices,
                &|g: &TraceGroup| {
                    if quick {
                        (&g.traces[..1], vec![g.sizes[0]])
                    } else {
                        (g.traces, g.sizes.to_vec())
                    }
                },
            )?;
            out.push((*s, plan));
        }
        Ok(out)
    }

    /// The preset's experiment with these policies and devices, on the traces and
    /// sizes `pick` takes from each group.
    #[allow(clippy::type_complexity)]
    fn experiment(
        &self,
        name: String,
        policies: Vec<String>,
        devices: Vec<String>,
        pick: &dyn Fn(&TraceGroup) -> (&'static [&'static str], Vec<&'static str>),
    ) -> Result<Plan, LabError> {
        let skipped = self.skipped();
        if skipped.len() == self.groups.len() {
            let lines: Vec<String> = skipped.iter().map(Skipped::line).collect();
            return Err(LabError::MissingTrace(format!(
                "{}: no group of traces can run here ({})",
                self.name,
                lines.join("; ")
            )));
        }
        let mut defs = Vec::new();
        for g in self.groups {
            if skipped.iter().any(|s| std::ptr::eq(s.group, g)) {
                continue;
            }
            let (traces, sizes) = pick(g);
            for t in traces {
                let mut def = TraceDef::file(locate_trace(t)?);
                def.cache_sizes = Some(sizes.iter().map(|s| s.to_string()).collect());
                defs.push(def);
            }
        }
        let mut exp = Experiment::new(name, defs, policies, Vec::new());
        exp.devices = devices;
        exp.aging = self.aging();
        // The lifetime view counts the dirty pages left at the end; the view without
        // them is kept beside it (`ftl_erases_before_flush`).
        exp.flush_at_end = self.writes_to_a_device();
        exp.write_miss_fetch = self.write_miss_fetch;
        exp.outputs = Outputs {
            // CRAW's area sizes over time (paper 002 Fig. 15).
            series_every: 10_000,
            ..Outputs::default()
        };
        exp.plan(self.name, Path::new("."))
    }

    /// The groups that have cells in `results`, each with its cells.
    fn groups_in(&self, results: &[CellResult]) -> Vec<(&'static TraceGroup, Vec<CellResult>)> {
        self.groups
            .iter()
            .map(|g| (g, g.of(results)))
            .filter(|(_, rs)| !rs.is_empty())
            .collect()
    }

    /// The claim of `c` at sensitivity point `point`.
    fn at_point(c: &Claim, s: &Sensitivity, point: &'static str) -> Claim {
        match s.vary {
            Vary::Device => Claim {
                device: point,
                ..c.clone()
            },
            Vary::Policy => Claim {
                policy: point,
                ..c.clone()
            },
        }
    }

    /// The claim of `s` measured at each of its points: a line per point with each
    /// group's per-trace figures and verdict by the usual rule, the preset's own point
    /// and the paper's figure marked.
    pub fn sensitivity_lines(&self, s: &Sensitivity, results: &[CellResult]) -> Vec<String> {
        let c = &self.claims[s.claim];
        let mut out = vec![format!(
            "where it holds: {} ({} vs {}, {}), by {}; the preset runs {}; the paper's setup {}; the paper's figure {}",
            c.text,
            c.policy,
            c.baseline,
            c.metric.name(),
            s.axis,
            s.preset_point,
            s.paper_point.unwrap_or("not given"),
            c.paper.map_or("none (a direction)".into(), |p| c.show(p))
        )];
        let in_results = self.groups_in(results);
        for (value, point) in s.points {
            let at = Self::at_point(c, s, point);
            let mut groups = Vec::new();
            for (g, rs) in &in_results {
                let m = at.measure(c.metric, rs);
                let (v, why) = at.judge(&m);
                let traces: Vec<String> = m
                    .per_trace
                    .iter()
                    .map(|(t, f, _)| format!("{t} {}", f.map_or("n/a".into(), |f| c.show(f))))
                    .collect();
                groups.push(format!(
                    "{}: {}; {} ({why})",
                    g.name,
                    traces.join(", "),
                    v.name()
                ));
            }
            out.push(format!(
                "  {} {value}{}: {}",
                s.axis,
                s.mark(value),
                groups.join(" | ")
            ));
        }
        out
    }

    /// The figure of `s`: the claim's figure per trace against the varied condition,
    /// with the paper's figure as a flat line.
    pub fn sensitivity_chart(&self, s: &Sensitivity, results: &[CellResult]) -> Chart {
        let c = &self.claims[s.claim];
        let pct = |v: f64| match c.form {
            Form::Reduction => v * 100.0,
            Form::Ratio => v,
        };
        let mut series: Vec<Series> = Vec::new();
        for (i, (_, point)) in s.points.iter().enumerate() {
            let at = Self::at_point(c, s, point);
            for (t, f, _) in at.measure(c.metric, results).per_trace {
                let Some(f) = f else { continue };
                match series.iter_mut().find(|x| x.name == t) {
                    Some(x) => x.points.push((i as f64, pct(f))),
                    None => series.push(Series {
                        name: t,
                        points: vec![(i as f64, pct(f))],
                    }),
                }
            }
        }
        if let Some(p) = c.paper {
            series.push(Series {
                name: "the paper's figure".into(),
                points: (0..s.points.len()).map(|i| (i as f64, pct(p))).collect(),
            });
        }
        Chart {
            // The axis marks the preset's and the paper's points.
            title: format!("{} vs {} by {}", c.policy, c.baseline, s.axis),
            x_label: s.axis.into(),
            y_label: match c.form {
                Form::Reduction => format!("{} lower by (%)", c.metric.short()),
                Form::Ratio => format!("{} ratio", c.metric.short()),
            },
            categories: Some(
                s.points
                    .iter()
                    .map(|(v, _)| format!("{v}{}", s.mark(v)))
                    .collect(),
            ),
            kind: Kind::Line,
            series,
            y_from_zero: true,
            log_y: false,
            notes: Vec::new(),
        }
    }

    /// The claims at a glance: per claim, wafer's figure on each trace and the
    /// paper's, as the change of the proposed policy's metric against the baseline's
    /// in % ([`Claim::change_pct`]): one scale for reductions and ratios, on which a
    /// bar below zero goes the paper's way and no bar passes -100%. The ticks number
    /// the claims; a key under the plot spells out each claim and its verdict per
    /// group, so the figure reads on its own.
    pub fn claims_chart(&self, results: &[CellResult]) -> Chart {
        let mut series: Vec<Series> = Vec::new();
        let mut paper = Series {
            name: "the paper's figure".into(),
            points: Vec::new(),
        };
        let outcomes = self.outcomes(results);
        let mut categories = Vec::new();
        let mut notes = Vec::new();
        for (i, c) in self.claims.iter().enumerate() {
            let mut verdicts = Vec::new();
            for o in outcomes.iter().filter(|o| o.claim == i) {
                verdicts.push(format!("{} {}", o.group.name, o.judged.verdict.name()));
                for (t, f, _) in &o.judged.measured.per_trace {
                    let Some(f) = f else { continue };
                    let pt = (i as f64, c.change_pct(*f));
                    match series.iter_mut().find(|x| &x.name == t) {
                        Some(x) => x.points.push(pt),
                        None => series.push(Series {
                            name: t.clone(),
                            points: vec![pt],
                        }),
                    }
                }
            }
            // Lines of at most 14 characters fit a slot of four claims flat.
            let pair = if c.policy.len() + c.baseline.len() < 14 {
                format!("{}/{}", c.policy, c.baseline)
            } else {
                format!("{}/\n{}", c.policy, c.baseline)
            };
            categories.push(format!("{}. {}\n{pair}", i + 1, c.metric.short()));
            notes.push(format!(
                "{}. {} vs {}, {}: {}",
                i + 1,
                c.policy,
                c.baseline,
                c.metric.short(),
                if verdicts.is_empty() {
                    "not run".to_string()
                } else {
                    verdicts.join("; ")
                }
            ));
            if let Some(p) = c.paper {
                paper.points.push((i as f64, c.change_pct(p)));
            }
        }
        if !paper.points.is_empty() {
            series.push(paper);
        }
        notes.push(
            "Bars: the proposed policy's metric against the baseline's (lower is better for every metric); below 0 is the paper's direction. Verdicts by the rule of docs/experiments.md."
                .into(),
        );
        Chart {
            title: format!("{}: claims at a glance", self.name),
            x_label: String::new(),
            y_label: "change vs the baseline (%)".into(),
            categories: Some(categories),
            kind: Kind::Bars,
            series,
            y_from_zero: true,
            log_y: false,
            notes,
        }
    }

    /// The setup table: `(aspect, the paper, wafer)` rows for `plan`.
    pub fn setup_table(&self, plan: &Plan) -> Vec<[String; 3]> {
        let ran: Vec<String> = plan.traces.iter().map(|(t, _)| t.label()).collect();
        // Per group: its traces in this plan and their sizes.
        let mut workloads = Vec::new();
        let mut sizes = Vec::new();
        for g in self.groups {
            let labels: Vec<String> = g.labels().into_iter().filter(|l| ran.contains(l)).collect();
            let Some(ti) = ran.iter().position(|l| labels.first() == Some(l)) else {
                continue;
            };
            workloads.push(format!("{}: {}", g.name, labels.join(", ")));
            let texts: Vec<&str> = plan.trace_sizes[ti]
                .iter()
                .map(|&si| plan.sizes[si].0.as_str())
                .collect();
            sizes.push(format!("{}: {}", g.name, texts.join(", ")));
        }
        let devices: Vec<String> = self
            .devices
            .iter()
            .map(|d| match Device::from_profile(d) {
                Ok(dev) => describe_device(&dev),
                Err(_) => "none (cache only)".into(),
            })
            .collect();
        let aging = match &plan.aging {
            Some(a) => format!(
                "{}{} GiB of overwrites, {:.0}% as random 4 KiB pages, the rest as {} KiB runs; each device aged once and copied into every cell",
                if a.fill { "fill, then " } else { "" },
                a.volume_bytes >> 30,
                a.random_fraction * 100.0,
                a.run_bytes >> 10
            ),
            None => "none (no device)".into(),
        };
        let mut metrics: Vec<&str> = self.claims.iter().map(|c| c.metric.name()).collect();
        metrics.dedup();
        if self.claims.iter().any(|c| c.metric == Metric::Elapsed) {
            metrics.push(
                "elapsed time: the after-cache trace replayed on the timed device, one request outstanding (the papers' O_DIRECT replayer), host link 10 us a page, GC and merges on the critical path; the sum of flash latencies printed beside it",
            );
        }
        let row = |a: &str, p: &str, w: String| [a.to_string(), p.to_string(), w];
        vec![
            row(
                "workload",
                self.setup.workload,
                format!("stand-ins, each group judged on its own: {}", workloads.join("; ")),
            ),
            row("cache sizes", self.setup.sizes, sizes.join("; ")),
            row("device and FTL", self.setup.device, devices.join("; ")),
            row("aging", self.setup.aging, aging),
            row(
                "measurement window",
                "not stated",
                format!(
                    "{}; device counters reset after aging, so the aging residue (blocks aging left partly valid) is met during the measurement, as on a used card, and not counted itself",
                    if plan.exp.warmup == 0 {
                        "the whole trace from a cold cache (no cache warm-up)".to_string()
                    } else {
                        format!("after a cache warm-up of {} accesses", plan.exp.warmup)
                    }
                ),
            ),
            row(
                "end of trace",
                "not stated",
                if plan.exp.flush_at_end {
                    "dirty pages written at the end (lifetime view); erases before the flush reported too".into()
                } else {
                    "dirty pages left in the cache are not written".into()
                },
            ),
            row(
                "write miss",
                if self.write_miss_fetch {
                    "a fault reads the page"
                } else {
                    "not stated"
                },
                if plan.exp.write_miss_fetch {
                    "the page is read from storage".into()
                } else {
                    "written in the cache without a read".into()
                },
            ),
            row("metric", self.setup.metric, metrics.join("; ")),
        ]
    }

    /// The setup table as text lines.
    pub fn setup_lines(&self, plan: &Plan) -> Vec<String> {
        let mut out = vec!["setup (aspect: the paper | wafer):".to_string()];
        for [a, p, w] in self.setup_table(plan) {
            out.push(format!("  {a}: {p} | {w}"));
        }
        out
    }

    /// Each claim judged on each group of traces that has cells in `results`, claim
    /// by claim in the preset's order: what the printed comparison, the verdict table
    /// and the claims figure are written from.
    pub fn outcomes(&self, results: &[CellResult]) -> Vec<Outcome> {
        let groups = self.groups_in(results);
        let mut out = Vec::new();
        for (i, c) in self.claims.iter().enumerate() {
            for (g, rs) in &groups {
                out.push(Outcome {
                    claim: i,
                    group: g,
                    judged: c.judge_group(rs),
                });
            }
        }
        out
    }

    /// Each claim's comparison and verdict on `results`.
    pub fn compare(&self, results: &[CellResult]) -> Vec<String> {
        let (_, missing) = self.policies();
        let mut out = Vec::new();
        if !missing.is_empty() {
            out.push(format!(
                "not in this build, left out: {}",
                missing.join(", ")
            ));
        }
        let outcomes = self.outcomes(results);
        for (i, c) in self.claims.iter().enumerate() {
            out.extend(c.header());
            for o in outcomes.iter().filter(|o| o.claim == i) {
                let g = o.group;
                out.push(format!("  on {} ({}):", g.name, g.labels().join(", ")));
                out.extend(
                    c.lines(&o.judged, g.differences)
                        .into_iter()
                        .map(|l| format!("  {l}")),
                );
            }
        }
        out
    }

    /// The report's preface on `results`: the note, the verdict table, the claims
    /// figure, the setup table (`setup`, from [`Preset::setup_table`]) and the
    /// comparison as printed.
    pub fn preface(&self, setup: &[[String; 3]], results: &[CellResult]) -> Preface {
        Preface {
            // The title names the study already.
            lines: vec![format!("note: {NOTE}")],
            verdicts: self.verdict_rows(results),
            glance: Some(self.claims_chart(results)),
            setup: setup.to_vec(),
            printed: self.compare(results),
            after: Vec::new(),
        }
    }

    /// The verdict table of the report: a row per claim and group, from the same
    /// judgements as [`Preset::compare`].
    pub fn verdict_rows(&self, results: &[CellResult]) -> Vec<VerdictRow> {
        self.outcomes(results)
            .into_iter()
            .map(|o| {
                let c = &self.claims[o.claim];
                let m = &o.judged.measured;
                let paper = match (c.paper, c.over) {
                    (None, _) => "a direction (no figure)".to_string(),
                    (Some(p), Over::UpTo) => format!("up to {}", c.plain(p)),
                    (Some(p), Over::Mean) => c.plain(p),
                };
                // Per-trace figures, most favourable first: the range around the mean.
                let mut figs: Vec<(&str, f64)> = m
                    .per_trace
                    .iter()
                    .filter_map(|(t, f, _)| f.map(|f| (t.as_str(), f)))
                    .collect();
                figs.sort_by(|a, b| b.1.total_cmp(&a.1));
                let range = match (figs.first(), figs.last()) {
                    (Some(a), Some(b)) if figs.len() > 1 => Some(format!(
                        "{} ({}) to {} ({})",
                        c.plain(a.1),
                        a.0,
                        c.plain(b.1),
                        b.0
                    )),
                    _ => None,
                };
                let (k, n) = o.judged.cells(c);
                VerdictRow {
                    claim: format!(
                        "{}. {} vs {}, {}",
                        o.claim + 1,
                        c.policy,
                        c.baseline,
                        c.metric.short()
                    ),
                    text: c.text.to_string(),
                    group: format!("{} ({})", o.group.name, figs_or_labels(o.group, m)),
                    paper,
                    wafer: m.value.map_or("n/a".into(), |v| c.plain(v)),
                    range,
                    cells: format!("{k} of {n}"),
                    verdict: o.judged.verdict.name().to_string(),
                    why: o.judged.why.clone(),
                }
            })
            .collect()
    }
}

/// The traces of group `g` that have figures in `m` (those that ran), else all of
/// its traces.
fn figs_or_labels(g: &TraceGroup, m: &Measured) -> String {
    let ran: Vec<&str> = m.per_trace.iter().map(|(t, _, _)| t.as_str()).collect();
    if ran.is_empty() {
        g.labels().join(", ")
    } else {
        ran.join(", ")
    }
}

/// A claim judged on one group of traces.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Index of the claim in the preset's claims.
    pub claim: usize,
    /// The group.
    pub group: &'static TraceGroup,
    /// The judgement.
    pub judged: Judged,
}

/// One line of a device's parameters that decide its results.
pub fn describe_device(d: &Device) -> String {
    let g = &d.geometry;
    let page = u64::from(g.page_size);
    let phys = u64::from(g.physical_blocks) * u64::from(g.pages_per_block);
    let op = phys as f64 / g.logical_pages as f64 - 1.0;
    let ftl = match d.ftl {
        wafer_ftl::FtlKind::Fast => "FAST",
        wafer_ftl::FtlKind::Page => "page-level",
        wafer_ftl::FtlKind::Block => "block-level",
    };
    let mut s = format!(
        "{}: {ftl} FTL, {} capacity, {} page, {} block, {:.0}% OP",
        d.name,
        bytes(g.logical_pages * page),
        bytes(page),
        bytes(page * u64::from(g.pages_per_block)),
        op * 100.0
    );
    if let Some(n) = d.rw_log_blocks {
        s.push_str(&format!(", {n} RW log blocks + 1 SW"));
    }
    s
}

/// `n` bytes in the largest binary unit that divides it.
fn bytes(n: u64) -> String {
    for (shift, unit) in [(30, "GiB"), (20, "MiB"), (10, "KiB")] {
        if n >= 1 << shift && n % (1 << shift) == 0 {
            return format!("{} {unit}", n >> shift);
        }
    }
    format!("{n} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_name_known_devices_and_sizes() {
        for p in PRESETS.iter().chain([&DEMO]) {
            for d in p.devices {
                assert!(
                    *d == "none" || wafer_ftl::Device::from_profile(d).is_ok(),
                    "{d}"
                );
            }
            for g in p.groups {
                for s in g.sizes {
                    assert!(wafer_trace::units::CacheSize::parse(s).is_ok(), "{s}");
                }
            }
            // A policy point's spec is the label the results carry.
            for s in p.sensitivities.iter().filter(|s| s.vary == Vary::Policy) {
                for (_, spec) in s.points {
                    let label = wafer_cache::registry::PolicySpec::parse(spec)
                        .unwrap()
                        .label();
                    assert_eq!(label, *spec);
                }
            }
            for c in p.claims {
                assert!(p.policies.contains(&c.policy) && p.policies.contains(&c.baseline));
                assert!(p.devices.contains(&c.device));
            }
        }
        assert!(find("apu").is_err());
        assert!(find("craw").is_ok());
    }

    #[test]
    fn claims_figure_labels_stay_flat() {
        for p in PRESETS.iter().chain([&DEMO]) {
            let chart = p.claims_chart(&[]);
            let labels = chart.categories.clone().unwrap();
            assert!(labels.len() <= 4, "{}", p.name);
            for l in &labels {
                assert!(l.lines().all(|x| x.chars().count() <= 14), "{l}");
            }
            assert_eq!(chart.notes.len(), p.claims.len() + 1);
            assert!(!chart.svg().contains("rotate(-40)"), "{}", p.name);
        }
    }

    #[test]
    fn every_device_study_ages_and_flushes() {
        for p in PRESETS.iter().chain([&DEMO]) {
            let device = p.devices.iter().any(|d| *d != "none");
            let a = p.aging();
            assert_eq!(a.is_some(), device, "{}", p.name);
            if let Some(a) = a {
                // Paper 000's recipe, as wafer_ftl::aging reads it.
                assert!(a.fill && a.volume == "16GiB", "{}", p.name);
            }
        }
    }

    #[test]
    fn paper_000_claims_use_the_papers_baselines_and_ftls() {
        let p = find("ts-clock").unwrap();
        let on = |baseline: &str| {
            p.claims
                .iter()
                .find(|c| c.baseline == baseline && c.metric == Metric::Erases)
                .map(|c| (c.device, c.paper))
        };
        // Fig. 8b: 29% vs CFLRU on FAST; Fig. 9d: 53% vs FAB on the page-level FTL.
        assert_eq!(on("cflru"), Some(("microsd-16g", Some(0.29))));
        assert_eq!(on("fab"), Some(("page-16g", Some(0.53))));
        let fast = Device::from_profile("microsd-16g").unwrap();
        let page = Device::from_profile("page-16g").unwrap();
        assert_eq!(fast.ftl, wafer_ftl::FtlKind::Fast);
        assert_eq!(page.ftl, wafer_ftl::FtlKind::Page);
        assert_eq!(
            u64::from(page.geometry.pages_per_block) * u64::from(page.geometry.page_size),
            24 << 20
        );
        assert_eq!(page.geometry.logical_pages, fast.geometry.logical_pages);
        assert!(describe_device(&fast).contains("4 RW log blocks"));
    }
}
