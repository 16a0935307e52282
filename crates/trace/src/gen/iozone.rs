//! An IOzone-like workload: IOzone's test sequence over one file, each test a full
//! pass over the file in records of `record` bytes (`docs/generators.md`, "IOzone-like
//! test sequence").
//!
//! Paper 004 (M. Huang, O. Serres, V. K. Narayana, T. El-Ghazawi, G. Newby, "Efficient
//! Cache Design for Solid-State Drives", ACM Computing Frontiers 2010, Sec. 4.3.2) ran
//! IOzone as a block trace under DiskSim and "intentionally converted all accesses in
//! the IOzone benchmark into write requests"; `writes_only = true` does that here. The
//! paper gives neither its file size nor its record size. The defaults:
//!
//! * `file_size` 64 MiB: eight times the smallest cache of paper 004's sweep (8 MB)
//!   and a quarter of the largest (256 MB), so the sweep runs from a cache the file
//!   overflows many times to one that holds it whole.
//! * `record` 64 KiB: inside the 4 KiB .. 16 MiB records IOzone's automatic mode
//!   sweeps, and 16 pages of a 4 KiB flash page, so records start page aligned.
//! * `stride` 17 records: IOzone's default stride (its `-j` option).
//!
//! The tests, in IOzone's order (a `tests` subset keeps this order, whatever order it
//! names them in; each runs once):
//!
//! | test | op | records, in order (n records, file at offset 0) |
//! |---|---|---|
//! | `write` | W | 0, 1, ..., n-1 |
//! | `rewrite` | W | 0, 1, ..., n-1 |
//! | `read` | R | 0, 1, ..., n-1 |
//! | `reread` | R | 0, 1, ..., n-1 |
//! | `random-read` | R | a random permutation of 0..n |
//! | `random-write` | W | another random permutation of 0..n |
//! | `backward-read` | R | n-1, n-2, ..., 0 |
//! | `record-rewrite` | W | 0, n times (one record rewritten in place) |
//! | `stride-read` | R | 0, s, 2s, ... below n, then 1, 1+s, ..., up to s-1, ... (stride s) |
//!
//! The random tests visit every record once, in an order drawn from `seed` (a keyed
//! permutation, O(1) memory): IOzone draws offsets with `rand()`, so the order is
//! wafer's, but the pass covers the file as each of the other tests does. Stride read
//! restarts one record further on each time it would run past the end of the file, as
//! IOzone does, so it too reads every record once. Requests carry no timestamps unless
//! `arrival` is given (IOzone itself issues one request after another).

use super::arrival::Arrival;
use super::scramble::Permutation;
use super::stream::{GenRng, Pattern, Stream};
use super::{invalid, Bytes};
use crate::error::Result;
use crate::reader::RequestReader;
use crate::request::{Op, SECTOR};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// One IOzone test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum IozoneTest {
    /// Sequential write of a new file.
    Write,
    /// Sequential write over the existing file.
    Rewrite,
    /// Sequential read.
    Read,
    /// Sequential read again.
    Reread,
    /// Every record once, in random order, read.
    RandomRead,
    /// Every record once, in random order, written.
    RandomWrite,
    /// Sequential read from the last record to the first.
    BackwardRead,
    /// The first record rewritten once per record of the file.
    RecordRewrite,
    /// Every record once, `stride` records apart.
    StrideRead,
}

impl IozoneTest {
    /// Every test, in IOzone's order.
    pub const ALL: [IozoneTest; 9] = [
        IozoneTest::Write,
        IozoneTest::Rewrite,
        IozoneTest::Read,
        IozoneTest::Reread,
        IozoneTest::RandomRead,
        IozoneTest::RandomWrite,
        IozoneTest::BackwardRead,
        IozoneTest::RecordRewrite,
        IozoneTest::StrideRead,
    ];

    /// The test's name in `tests`.
    pub fn name(self) -> &'static str {
        match self {
            IozoneTest::Write => "write",
            IozoneTest::Rewrite => "rewrite",
            IozoneTest::Read => "read",
            IozoneTest::Reread => "reread",
            IozoneTest::RandomRead => "random-read",
            IozoneTest::RandomWrite => "random-write",
            IozoneTest::BackwardRead => "backward-read",
            IozoneTest::RecordRewrite => "record-rewrite",
            IozoneTest::StrideRead => "stride-read",
        }
    }

    /// IOzone's own op for the test.
    pub fn op(self) -> Op {
        match self {
            IozoneTest::Write
            | IozoneTest::Rewrite
            | IozoneTest::RandomWrite
            | IozoneTest::RecordRewrite => Op::Write,
            _ => Op::Read,
        }
    }

    /// The test called `name` (`re-read` is accepted for `reread`).
    pub fn from_name(name: &str) -> Option<IozoneTest> {
        let n = name.trim();
        let n = if n == "re-read" { "reread" } else { n };
        IozoneTest::ALL.into_iter().find(|t| t.name() == n)
    }
}

/// Parameters of the `iozone` generator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IozoneParams {
    /// Random seed (the order of the random tests only).
    pub seed: u64,
    /// Size of the file, bytes (a multiple of `record`); it lies at offset 0.
    pub file_size: Bytes,
    /// Record (request) size, bytes (a multiple of 512).
    pub record: Bytes,
    /// The tests to run: `all` or a comma-separated subset of the names of
    /// [`IozoneTest`], run in IOzone's order.
    pub tests: String,
    /// Stride of `stride-read`, in records (at least 1).
    pub stride: u64,
    /// Turn every request into a write, as paper 004 did with IOzone.
    pub writes_only: bool,
    /// Stop after this many requests (unset: the whole sequence).
    pub requests: Option<u64>,
    /// Arrival process.
    pub arrival: Arrival,
}

impl Default for IozoneParams {
    fn default() -> Self {
        IozoneParams {
            seed: 1,
            file_size: Bytes(64 << 20),
            record: Bytes(64 << 10),
            tests: "all".into(),
            stride: 17,
            writes_only: false,
            requests: None,
            arrival: Arrival::None,
        }
    }
}

const KIND: &str = "iozone";

impl IozoneParams {
    /// The tests `tests` names, in IOzone's order, each once.
    pub fn test_list(&self) -> Result<Vec<IozoneTest>> {
        if self.tests.trim() == "all" {
            return Ok(IozoneTest::ALL.to_vec());
        }
        let mut out = Vec::new();
        for part in self.tests.split(',') {
            let t = IozoneTest::from_name(part).ok_or_else(|| {
                let names: Vec<&str> = IozoneTest::ALL.iter().map(|t| t.name()).collect();
                invalid(
                    KIND,
                    "tests",
                    format!(
                        "names an unknown test `{}` (expected all or a comma-separated list of {})",
                        part.trim(),
                        names.join(", ")
                    ),
                )
            })?;
            out.push(t);
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Records in the file.
    pub fn records(&self) -> u64 {
        self.file_size.0.checked_div(self.record.0).unwrap_or(0)
    }

    /// Requests of the whole sequence (every selected test a full pass), before any
    /// `requests` cap.
    pub fn sequence_len(&self) -> Result<u64> {
        Ok(self.test_list()?.len() as u64 * self.records())
    }

    /// Check every parameter against its range.
    pub fn validate(&self) -> Result<()> {
        let r = self.record.0;
        if r == 0 || r % SECTOR != 0 || r > 1 << 30 {
            return Err(invalid(
                KIND,
                "record",
                format!(
                    "= {} must be a positive multiple of 512 B, at most 1 GiB",
                    self.record
                ),
            ));
        }
        if self.file_size.0 < r || self.file_size.0 % r != 0 {
            return Err(invalid(
                KIND,
                "file_size",
                format!(
                    "= {} must be a positive multiple of the record ({})",
                    self.file_size, self.record
                ),
            ));
        }
        if self.stride == 0 {
            return Err(invalid(KIND, "stride", "must be at least 1 record"));
        }
        if self.requests == Some(0) {
            return Err(invalid(KIND, "requests", "must be at least 1"));
        }
        self.test_list()?;
        Ok(())
    }

    /// Validate and open as a streaming reader.
    pub fn open(&self, label: String) -> Result<Box<dyn RequestReader>> {
        self.validate()?;
        let whole = self.sequence_len()?;
        let n = self.requests.map_or(whole, |c| c.min(whole));
        let pattern = Iozone {
            tests: self.test_list()?,
            t: 0,
            i: 0,
            n: self.records(),
            record: self.record.0,
            stride: self.stride,
            writes_only: self.writes_only,
            perm: None,
            stride_start: 0,
            stride_at: 0,
        };
        Ok(Box::new(Stream::new(
            label,
            pattern,
            self.seed,
            self.arrival,
            n,
            Some(n),
        )?))
    }
}

struct Iozone {
    tests: Vec<IozoneTest>,
    /// Index of the current test.
    t: usize,
    /// Requests of the current test issued so far.
    i: u64,
    /// Records in the file.
    n: u64,
    record: u64,
    stride: u64,
    writes_only: bool,
    /// The order of the current random test.
    perm: Option<Permutation>,
    /// Stride read: the record the current run of strides started at, and the next.
    stride_start: u64,
    stride_at: u64,
}

impl Pattern for Iozone {
    #[inline]
    fn next(&mut self, rng: &mut GenRng) -> Option<(Op, u64, u32)> {
        let test = *self.tests.get(self.t)?;
        if self.i == 0 {
            self.perm = matches!(test, IozoneTest::RandomRead | IozoneTest::RandomWrite)
                .then(|| Permutation::new(self.n, rng.gen::<u64>()));
            self.stride_start = 0;
            self.stride_at = 0;
        }
        let i = self.i;
        let rec = match test {
            IozoneTest::Write | IozoneTest::Rewrite | IozoneTest::Read | IozoneTest::Reread => i,
            IozoneTest::RandomRead | IozoneTest::RandomWrite => {
                self.perm.as_ref().map_or(i, |p| p.apply(i))
            }
            IozoneTest::BackwardRead => self.n - 1 - i,
            IozoneTest::RecordRewrite => 0,
            IozoneTest::StrideRead => {
                let at = self.stride_at;
                self.stride_at += self.stride;
                if self.stride_at >= self.n {
                    self.stride_start += 1;
                    self.stride_at = self.stride_start;
                }
                at
            }
        };
        self.i += 1;
        if self.i == self.n {
            self.t += 1;
            self.i = 0;
        }
        let op = if self.writes_only {
            Op::Write
        } else {
            test.op()
        };
        Some((op, rec * self.record, self.record as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::GenSpec;

    fn run(p: IozoneParams) -> Vec<(Op, u64, u32)> {
        GenSpec::Iozone(p)
            .collect()
            .unwrap()
            .into_iter()
            .map(|r| (r.op, r.offset, r.len))
            .collect()
    }

    fn tiny() -> IozoneParams {
        IozoneParams {
            file_size: Bytes(4 << 10),
            record: Bytes(1 << 10),
            stride: 2,
            ..IozoneParams::default()
        }
    }

    /// File of 4 records of 1 KiB, stride 2, worked by hand: every test's offsets in
    /// KiB, IOzone's order.
    #[test]
    fn a_tiny_file_gives_the_hand_worked_sequence() {
        use Op::{Read as R, Write as W};
        let rs = run(tiny());
        assert_eq!(rs.len(), 9 * 4);
        assert!(rs.iter().all(|r| r.2 == 1024));
        let kib = |k: usize| -> Vec<(Op, u64)> {
            rs[4 * k..4 * k + 4]
                .iter()
                .map(|r| (r.0, r.1 >> 10))
                .collect()
        };
        let fixed: [(usize, [(Op, u64); 4]); 7] = [
            (0, [(W, 0), (W, 1), (W, 2), (W, 3)]), // write
            (1, [(W, 0), (W, 1), (W, 2), (W, 3)]), // rewrite
            (2, [(R, 0), (R, 1), (R, 2), (R, 3)]), // read
            (3, [(R, 0), (R, 1), (R, 2), (R, 3)]), // reread
            (6, [(R, 3), (R, 2), (R, 1), (R, 0)]), // backward read
            (7, [(W, 0), (W, 0), (W, 0), (W, 0)]), // record rewrite
            (8, [(R, 0), (R, 2), (R, 1), (R, 3)]), // stride read, stride 2
        ];
        for (k, want) in fixed {
            assert_eq!(kib(k), want, "test {}", IozoneTest::ALL[k].name());
        }
        // Random read and random write: each a permutation of the four records.
        for (k, op) in [(4, R), (5, W)] {
            let got = kib(k);
            assert!(got.iter().all(|g| g.0 == op));
            let mut recs: Vec<u64> = got.iter().map(|g| g.1).collect();
            recs.sort();
            assert_eq!(recs, [0, 1, 2, 3], "test {}", IozoneTest::ALL[k].name());
        }
    }

    #[test]
    fn stride_reads_cover_the_file_once_whatever_the_stride() {
        for (records, stride) in [(4, 17), (10, 3), (12, 4), (7, 1)] {
            let rs = run(IozoneParams {
                file_size: Bytes(records * 512),
                record: Bytes(512),
                tests: "stride-read".into(),
                stride,
                ..IozoneParams::default()
            });
            let order: Vec<u64> = rs.iter().map(|r| r.1 / 512).collect();
            let mut sorted = order.clone();
            sorted.sort();
            assert_eq!(sorted, (0..records).collect::<Vec<_>>(), "{order:?}");
            if (records, stride) == (10, 3) {
                assert_eq!(order, [0, 3, 6, 9, 1, 4, 7, 2, 5, 8]);
            }
        }
    }

    #[test]
    fn a_subset_runs_in_iozones_order_and_the_cap_cuts_it() {
        let rs = run(IozoneParams {
            tests: "backward-read, write,write".into(),
            ..tiny()
        });
        let offs: Vec<(Op, u64)> = rs.iter().map(|r| (r.0, r.1 >> 10)).collect();
        assert_eq!(
            offs,
            [
                (Op::Write, 0),
                (Op::Write, 1),
                (Op::Write, 2),
                (Op::Write, 3),
                (Op::Read, 3),
                (Op::Read, 2),
                (Op::Read, 1),
                (Op::Read, 0)
            ]
        );
        let capped = run(IozoneParams {
            requests: Some(5),
            ..tiny()
        });
        assert_eq!(capped.len(), 5);
        let over = run(IozoneParams {
            requests: Some(1000),
            ..tiny()
        });
        assert_eq!(over.len(), 36);
    }

    #[test]
    fn the_seed_decides_the_random_orders_only() {
        let big = |seed| {
            run(IozoneParams {
                seed,
                file_size: Bytes(64 << 10),
                record: Bytes(1 << 10),
                ..IozoneParams::default()
            })
        };
        let (a, b, c) = (big(3), big(3), big(4));
        assert_eq!(a, b);
        assert_ne!(a, c);
        let n = 64;
        for k in 0..9 {
            let random = matches!(
                IozoneTest::ALL[k],
                IozoneTest::RandomRead | IozoneTest::RandomWrite
            );
            let same = a[k * n..(k + 1) * n] == c[k * n..(k + 1) * n];
            assert_eq!(same, !random, "test {}", IozoneTest::ALL[k].name());
        }
        // The two random tests draw two different orders.
        let recs = |k: usize| -> Vec<u64> { a[k * n..(k + 1) * n].iter().map(|r| r.1).collect() };
        assert_ne!(recs(4), recs(5));
    }

    #[test]
    fn writes_only_turns_every_op_into_a_write_and_keeps_the_offsets() {
        let own = run(tiny());
        let all_w = run(IozoneParams {
            writes_only: true,
            ..tiny()
        });
        assert!(own.iter().any(|r| r.0 == Op::Read));
        assert!(all_w.iter().all(|r| r.0 == Op::Write));
        let place = |v: &[(Op, u64, u32)]| v.iter().map(|r| (r.1, r.2)).collect::<Vec<_>>();
        assert_eq!(place(&own), place(&all_w));
    }

    #[test]
    fn bad_values_name_the_parameter() {
        for (p, what) in [
            (
                IozoneParams {
                    record: Bytes(1000),
                    ..tiny()
                },
                "`record`",
            ),
            (
                IozoneParams {
                    file_size: Bytes(3 << 9),
                    ..tiny()
                },
                "`file_size`",
            ),
            (
                IozoneParams {
                    stride: 0,
                    ..tiny()
                },
                "`stride`",
            ),
            (
                IozoneParams {
                    tests: "write,fread".into(),
                    ..tiny()
                },
                "unknown test `fread`",
            ),
        ] {
            let e = p.validate().unwrap_err().to_string();
            assert!(e.contains("iozone") && e.contains(what), "{e}");
        }
    }
}
