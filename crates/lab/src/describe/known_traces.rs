//! The public third-party traces wafer knows: where each comes from, what to cite,
//! its licence, and its size and checksum, so that `wafer traces fetch` can download
//! one and prove it is the file the presets, examples and tests were written against.
//!
//! Their licences do not let the repository carry most of them (only the MIT sample
//! under `traces/third-party/`), so a clone alone has none of the others: a missing
//! one is named with the command that fetches it ([`crate::trace_folders`]).
//!
//! Each URL pins a commit whose file is byte for byte the one described (checked
//! against the upstream repositories' history). The FIU sample is a byte range of
//! its upstream file: the upstream sample is the head of a tar archive, and wafer's
//! copy is the trace inside it, without the archive's header and padding.

use std::path::Path;

use crate::error::LabError;

/// One public trace.
#[derive(Clone, Copy, Debug)]
pub struct KnownTrace {
    /// Its name on the command line (`wafer traces fetch NAME`).
    pub name: &'static str,
    /// Its path under a trace folder (`../shared/traces`, `$WAFER_TRACES`, the data
    /// folder); presets and examples name it by this path.
    pub path: &'static str,
    /// What it is, in a few words.
    pub what: &'static str,
    /// The repository that publishes it.
    pub repository: &'static str,
    /// The raw file at a pinned commit.
    pub url: &'static str,
    /// Where the trace starts in the file at `url` (0: the whole file).
    pub offset: u64,
    /// The paper to cite.
    pub paper: &'static str,
    /// Its licence as the repository states it.
    pub licence: &'static str,
    /// Size in bytes.
    pub size: u64,
    /// xxh3-64 of its bytes, as 16 hex digits (the checksum wafer keeps for every
    /// trace a cell reads).
    pub xxh3: &'static str,
}

/// No licence file in the repository.
const NO_LICENCE: &str = "none stated; cite the paper";

const PIXEL_REPO: &str = "https://github.com/acsl-technion/MobileBlockIOTraces";
/// The raw file `$f` at the pinned commit of the Pixel 6a repository.
macro_rules! pixel_raw {
    ($f:literal) => {
        concat!(
            "https://raw.githubusercontent.com/acsl-technion/MobileBlockIOTraces/bc8e767b691af052fd091361797cc523259f3cf3/",
            $f
        )
    };
}
const PIXEL_PAPER: &str = "\"Space-efficient FTL for Mobile Storage via Tiny Neural Nets\", ACM SYSTOR 2024, doi:10.1145/3688351.3689157";

const LCS_REPO: &str = "https://github.com/1a1a11a/libCacheSim";
/// The raw file `$f` at the pinned commit of libCacheSim's `data/`.
macro_rules! lcs_raw {
    ($f:literal) => {
        concat!(
            "https://raw.githubusercontent.com/1a1a11a/libCacheSim/aa0fc40914b2b786f4b9f4dafb099f8f332b216a/data/",
            $f
        )
    };
}
const CLOUDPHYSICS_PAPER: &str = "C. A. Waldspurger, N. Park, A. Garthwaite, I. Ahmad, \"Efficient MRC Construction with SHARDS\", USENIX FAST 2015 (the CloudPhysics traces)";
const LCS_LICENCE: &str = "GPL-3.0 (the repository's licence)";

const SSDSIM_REPO: &str = "https://github.com/MsClaudz/SSD-Simulator";
/// The raw file `$f` at the pinned commit of SSD-Simulator's `traces/`.
macro_rules! ssdsim_raw {
    ($f:literal) => {
        concat!(
            "https://raw.githubusercontent.com/MsClaudz/SSD-Simulator/35a0f5b649a273b7e4ae56a10f1da73960997fcf/traces/",
            $f
        )
    };
}

/// Every trace wafer knows, in the layout of the trace folders.
pub const KNOWN: &[KnownTrace] = &[
    KnownTrace {
        name: "telegram_exec",
        path: "mobile-pixel6a/telegram_exec.csv.gz",
        what: "Pixel 6a block layer, Telegram in use (90% writes)",
        repository: PIXEL_REPO,
        url: pixel_raw!("telegram_exec.csv.gz"),
        offset: 0,
        paper: PIXEL_PAPER,
        licence: NO_LICENCE,
        size: 1_960_109,
        xxh3: "af7b075142d890bd",
    },
    KnownTrace {
        name: "telegram_precond",
        path: "mobile-pixel6a/telegram_precond.csv.gz",
        what: "Pixel 6a block layer, Telegram install (all writes)",
        repository: PIXEL_REPO,
        url: pixel_raw!("telegram_precond.csv.gz"),
        offset: 0,
        paper: PIXEL_PAPER,
        licence: NO_LICENCE,
        size: 43_348,
        xxh3: "de15752fa3b16a51",
    },
    KnownTrace {
        name: "cod_exec",
        path: "mobile-pixel6a/cod_exec.csv.gz",
        what: "Pixel 6a block layer, a mobile game (10% writes)",
        repository: PIXEL_REPO,
        url: pixel_raw!("cod_exec.csv.gz"),
        offset: 0,
        paper: PIXEL_PAPER,
        licence: NO_LICENCE,
        size: 2_166_660,
        xxh3: "cef99ec749ef9316",
    },
    KnownTrace {
        name: "slideshow_exec",
        path: "mobile-pixel6a/slideshow_exec.csv.gz",
        what: "Pixel 6a block layer, gallery slideshow (8% writes)",
        repository: PIXEL_REPO,
        url: pixel_raw!("slideshow_exec.csv.gz"),
        offset: 0,
        paper: PIXEL_PAPER,
        licence: NO_LICENCE,
        size: 821_477,
        xxh3: "816a042bb906ef6c",
    },
    KnownTrace {
        name: "cloudphysics-vscsi",
        path: "cloudphysics/cloudPhysicsIO.vscsi",
        what: "CloudPhysics VMware block trace, vscsi binary",
        repository: LCS_REPO,
        url: lcs_raw!("cloudPhysicsIO.vscsi"),
        offset: 0,
        paper: CLOUDPHYSICS_PAPER,
        licence: LCS_LICENCE,
        size: 3_643_904,
        xxh3: "5cacafb142206479",
    },
    KnownTrace {
        name: "cloudphysics-csv",
        path: "cloudphysics/cloudPhysicsIO.csv",
        what: "the same CloudPhysics trace as CSV",
        repository: LCS_REPO,
        url: lcs_raw!("cloudPhysicsIO.csv"),
        offset: 0,
        paper: CLOUDPHYSICS_PAPER,
        licence: LCS_LICENCE,
        size: 3_116_791,
        xxh3: "22f3e0bdaaaa85a5",
    },
    KnownTrace {
        name: "cloudphysics-oracle",
        path: "cloudphysics/cloudPhysicsIO.oracleGeneral.bin",
        what: "the same CloudPhysics trace as libCacheSim oracleGeneral",
        repository: LCS_REPO,
        url: lcs_raw!("cloudPhysicsIO.oracleGeneral.bin"),
        offset: 0,
        paper: CLOUDPHYSICS_PAPER,
        licence: LCS_LICENCE,
        size: 2_732_928,
        xxh3: "9423018d267e9151",
    },
    KnownTrace {
        name: "fiu-mail",
        path: "fiu/fiu_mail_cheetah_10k.blkparse",
        what: "FIU mail server (cheetah), first 9,998 requests",
        repository: SSDSIM_REPO,
        url: ssdsim_raw!("cheetah.cs.fiu.edu-110108-113008.1_sample_10000_lines"),
        // Three 512-byte tar headers come first.
        offset: 1536,
        paper: "R. Koller, R. Rangaswami, \"I/O Deduplication: Utilizing Content Similarity to Improve I/O Performance\", USENIX FAST 2010 (the FIU traces, distributed by SNIA IOTTA)",
        licence: NO_LICENCE,
        size: 765_165,
        xxh3: "25cb192f07bd1c94",
    },
    KnownTrace {
        name: "blkparse-ext4",
        path: "blkparse/blkparseout_ext4.txt",
        what: "YCSB on ext4, blkparse text",
        repository: SSDSIM_REPO,
        url: ssdsim_raw!("blkparseout_ext4.txt"),
        offset: 0,
        paper: "no paper; cite the repository, https://github.com/MsClaudz/SSD-Simulator",
        licence: "none stated; cite the repository",
        size: 2_053_033,
        xxh3: "f2e04a4151a03d91",
    },
    KnownTrace {
        name: "blkparse-f2fs",
        path: "blkparse/blkparseout_f2fs.txt",
        what: "YCSB on F2FS, blkparse text",
        repository: SSDSIM_REPO,
        url: ssdsim_raw!("blkparseout_f2fs.txt"),
        offset: 0,
        paper: "no paper; cite the repository, https://github.com/MsClaudz/SSD-Simulator",
        licence: "none stated; cite the repository",
        size: 1_182_177,
        xxh3: "f0bdbca5a3874323",
    },
    KnownTrace {
        name: "tpcc-small",
        path: "disksim/tpcc-small.trace",
        what: "TPC-C-like OLTP sample shipped with MQSim, DiskSim ASCII",
        repository: "https://github.com/CMU-SAFARI/MQSim",
        url: "https://raw.githubusercontent.com/CMU-SAFARI/MQSim/7ec40e3b198e8bd117f992f051cd610e330e079e/traces/tpcc-small.trace",
        offset: 0,
        paper: "A. Tavakkol et al., \"MQSim: A Framework for Enabling Realistic Studies of Modern Multi-Queue SSD Devices\", USENIX FAST 2018",
        licence: "MIT (bundled in traces/third-party/)",
        size: 194_790,
        xxh3: "b00143ce93ba7008",
    },
];

/// The known trace called `name`.
pub fn find(name: &str) -> Option<&'static KnownTrace> {
    KNOWN.iter().find(|k| k.name == name)
}

/// The known trace a path names: its folder path, or a path ending in it (an older
/// experiment file's `../../shared/traces/mobile-pixel6a/telegram_exec.csv.gz`).
pub fn by_path(path: &Path) -> Option<&'static KnownTrace> {
    KNOWN.iter().find(|k| path.ends_with(k.path))
}

impl KnownTrace {
    /// Whether the file at `path` is this trace: its size, then its checksum. The
    /// error says what differs.
    pub fn verify(&self, path: &Path) -> Result<(), LabError> {
        let len = std::fs::metadata(path)
            .map_err(|e| LabError::io(path, e))?
            .len();
        if len != self.size {
            return Err(LabError::Invalid(format!(
                "{}: {len} bytes, {} has {}",
                path.display(),
                self.name,
                self.size
            )));
        }
        let sum = checksum(path)?;
        if sum != self.xxh3 {
            return Err(LabError::Invalid(format!(
                "{}: checksum {sum} (xxh3-64), {} has {}",
                path.display(),
                self.name,
                self.xxh3
            )));
        }
        Ok(())
    }
}

/// xxh3-64 of a file's bytes, hex.
pub fn checksum(path: &Path) -> Result<String, LabError> {
    use std::io::Read;
    let mut f = std::fs::File::open(path).map_err(|e| LabError::io(path, e))?;
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(|e| LabError::io(path, e))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(format!("{:016x}", h.digest()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_paths_are_distinct_and_urls_pinned() {
        for (i, k) in KNOWN.iter().enumerate() {
            assert!(KNOWN[i + 1..]
                .iter()
                .all(|o| o.name != k.name && o.path != k.path));
            assert!(
                k.url.starts_with("https://raw.githubusercontent.com/"),
                "{}",
                k.url
            );
            assert_eq!(k.xxh3.len(), 16);
            assert_eq!(find(k.name).map(|f| f.path), Some(k.path));
        }
        let old = Path::new("../../shared/traces/mobile-pixel6a/telegram_exec.csv.gz");
        assert_eq!(by_path(old).map(|k| k.name), Some("telegram_exec"));
        assert!(by_path(Path::new("telegram_exec.csv.gz")).is_none());
    }

    #[test]
    fn the_bundled_sample_is_the_registered_one() {
        let k = find("tpcc-small").unwrap();
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let bundled = here.join("../../traces/third-party").join(k.path);
        k.verify(&bundled).unwrap();
    }
}
