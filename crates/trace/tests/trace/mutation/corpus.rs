//! Seed inputs of every format, each with the requests it must read as, and their
//! mutations, each with what a correct reader may return. Shared by the library's
//! mutation test (`crates/trace/tests/trace/mutation.rs`) and the CLI's
//! (`crates/cli/tests/cli/mutation.rs`); nothing here reads a trace.
//!
//! The requests of a seed (its *model*) are written down from each format's documented
//! grammar (README's formats table, `crates/trace/src/formats/*.rs`), never taken from a
//! reader: when a reader disagrees with a model, the reader or the grammar is wrong.
//! Everything about a case (seed input, mutation, expectation) follows from its case
//! seed alone, so one seed replays one case.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::fmt::Display;
use std::io::Write;
use std::ops::Range;
use std::path::Path;
use wafer_trace::reader::GenericSpec;
use wafer_trace::wtr::{Columns, Header, Writer};
use wafer_trace::{Format, Op, Request, NO_TIME};

/// What a test covers: a format and, for vscsi, its record version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Wtr,
    Msr,
    Spc,
    Blkparse,
    Fiu,
    Disksim,
    VscsiV1,
    VscsiV2,
    CloudphysicsCsv,
    OracleGeneral,
    Android,
    Lackey,
    Generic,
    WaferCsv,
    AfterCsv,
}

impl Target {
    /// Every target, in the order of the README's formats table.
    pub const ALL: [Target; 15] = [
        Target::Wtr,
        Target::Msr,
        Target::Spc,
        Target::Blkparse,
        Target::Fiu,
        Target::Disksim,
        Target::VscsiV1,
        Target::VscsiV2,
        Target::CloudphysicsCsv,
        Target::OracleGeneral,
        Target::Android,
        Target::Lackey,
        Target::Generic,
        Target::WaferCsv,
        Target::AfterCsv,
    ];

    /// The name used in messages, saved file names and `WAFER_MUTATION_REPLAY`.
    pub fn name(self) -> &'static str {
        match self {
            Target::VscsiV1 => "vscsi-v1",
            Target::VscsiV2 => "vscsi-v2",
            t => t.format().name(),
        }
    }

    /// A target by [`Target::name`].
    pub fn from_name(s: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == s)
    }

    /// The format wafer must read it as.
    pub fn format(self) -> Format {
        match self {
            Target::Wtr => Format::Wtr,
            Target::Msr => Format::Msr,
            Target::Spc => Format::Spc,
            Target::Blkparse => Format::Blkparse,
            Target::Fiu => Format::Fiu,
            Target::Disksim => Format::Disksim,
            Target::VscsiV1 | Target::VscsiV2 => Format::Vscsi,
            Target::CloudphysicsCsv => Format::CloudphysicsCsv,
            Target::OracleGeneral => Format::OracleGeneral,
            Target::Android => Format::Android,
            Target::Lackey => Format::Lackey,
            Target::Generic => Format::Generic,
            Target::WaferCsv => Format::WaferCsv,
            Target::AfterCsv => Format::AfterCsv,
        }
    }

    /// What detection may pick for it: its own format, except generic text, which is
    /// never guessed (README, `formats/mod.rs`).
    pub fn detected(self) -> Option<Format> {
        (self != Target::Generic).then(|| self.format())
    }

    /// Whether the format is line-oriented text.
    pub fn is_text(self) -> bool {
        !matches!(
            self,
            Target::Wtr | Target::VscsiV1 | Target::VscsiV2 | Target::OracleGeneral
        )
    }

    /// Whether every record of the format has a timestamp, so that a request without
    /// one ([`NO_TIME`]) cannot be right. `.wtr` and wafer CSV store "no time";
    /// lackey has none.
    pub fn timed(self) -> bool {
        !matches!(
            self,
            Target::Wtr | Target::Lackey | Target::WaferCsv | Target::AfterCsv
        )
    }

    /// Extension of a saved input (replaying needs none: formats are detected from
    /// the content).
    pub fn extension(self) -> &'static str {
        if self == Target::Wtr {
            "wtr"
        } else {
            "trace"
        }
    }
}

/// The column mapping the generic seeds are written for (and read with).
pub fn generic_spec() -> GenericSpec {
    GenericSpec {
        delimiter: Some(b';'),
        skip_lines: 1,
        time_col: Some(0),
        time_unit_s: 1.0,
        op_col: Some(2),
        offset_col: 3,
        offset_unit: 512,
        size_col: Some(4),
        size_unit: 512,
        dev_col: Some(1),
        ops: None,
    }
}

/// SplitMix64: consecutive inputs give unrelated outputs.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of case `i` of `target` under the master seed; `tag` keeps the library's
/// and the CLI's cases apart.
pub fn case_seed(master: u64, tag: &str, target: Target, i: u64) -> u64 {
    let name = tag
        .bytes()
        .chain(target.name().bytes())
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
    mix(mix(master ^ name).wrapping_add(i))
}

/// What a numeric field means, with the factor from its unit to bytes or ns.
#[derive(Clone, Copy, Debug)]
pub enum Role {
    /// Time in units of this many ns.
    Time(u128),
    /// Address in units of this many bytes.
    Offset(u64),
    /// Length in units of this many bytes.
    Len(u64),
    /// A device number kept as is (below 2^20).
    Dev,
    /// A Linux major number beside this minor (`major << 8 | minor`).
    DevMajor(u64),
    /// A Linux minor number beside this major.
    DevMinor(u64),
    /// A kernel `dev_t` (major above bit 20).
    DevT,
    /// Parsed but not kept.
    Ignored,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Time(_) => "time",
            Role::Offset(_) => "address",
            Role::Len(_) => "length",
            Role::Dev => "device",
            Role::DevMajor(_) => "device major",
            Role::DevMinor(_) => "device minor",
            Role::DevT => "dev_t",
            Role::Ignored => "unused field",
        }
    }
}

/// How a numeric field is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enc {
    /// Decimal text (a decimal point allowed where the format takes one).
    Dec,
    /// Hex text.
    Hex,
    /// Little-endian binary of 4 bytes.
    U32,
    /// Little-endian binary of 8 bytes.
    U64,
}

/// A numeric field of a record: where it is, what it means.
#[derive(Clone, Debug)]
pub struct Field {
    pub span: Range<usize>,
    pub role: Role,
    pub enc: Enc,
}

/// One line (text) or record (binary) of a seed and the requests it stands for.
#[derive(Clone, Debug)]
pub struct Record {
    pub span: Range<usize>,
    pub reqs: Range<usize>,
    pub fields: Vec<Field>,
}

/// A valid input and the requests it must read as. Its records cover every byte, in
/// order.
#[derive(Clone, Debug, Default)]
pub struct Seed {
    pub bytes: Vec<u8>,
    pub model: Vec<Request>,
    pub records: Vec<Record>,
}

/// What a correct reader may return for a mutated input, when it does not refuse it
/// with an error (always allowed).
#[derive(Clone, Debug)]
pub enum Expect {
    /// Exactly one of these request lists; the class names the failure otherwise.
    OneOf(&'static str, Vec<Vec<Request>>),
    /// Nothing: the input holds what no reader may accept (a value with no faithful
    /// reading, a line longer than the limit); `at` is the index of the request the
    /// record would have given.
    Refuse { class: &'static str, at: usize },
    /// Requests outside the edited records must be the model's: the first `head` and
    /// the last `tail`.
    Splice {
        model: Vec<Request>,
        head: usize,
        tail: usize,
    },
}

/// One mutated input.
#[derive(Clone, Debug)]
pub struct Case {
    pub target: Target,
    pub seed: u64,
    /// The mutation, for humans.
    pub what: String,
    pub input: Vec<u8>,
    pub expect: Expect,
}

/// A scratch directory for `.wtr` files: in memory (`/dev/shm`) where there is one,
/// because the `.wtr` writer syncs every file it finishes (30 s per 2000 cases on disk).
pub fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("wafer-mutation-")
        .tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .expect("a scratch directory")
}

/// The case of `seed`; `scratch` is a directory for writing `.wtr` seeds.
pub fn case(target: Target, seed: u64, scratch: &Path) -> Case {
    let mut r = Pcg64::seed_from_u64(seed);
    let base = seed_input(target, &mut r, scratch);
    let (what, input, expect) = mutate(target, &base, &mut r, scratch);
    Case {
        target,
        seed,
        what,
        input,
        expect,
    }
}

/// A valid input of a few hundred records.
pub fn seed_input(target: Target, r: &mut Pcg64, scratch: &Path) -> Seed {
    let n = r.gen_range(150..=400);
    match target {
        Target::Wtr => wtr(r, n, scratch),
        Target::Msr => msr(r, n),
        Target::Spc => spc(r, n),
        Target::Blkparse => blkparse(r, n),
        Target::Fiu => fiu(r, n),
        Target::Disksim => disksim(r, n),
        Target::VscsiV1 => vscsi(r, n, false),
        Target::VscsiV2 => vscsi(r, n, true),
        Target::CloudphysicsCsv => cloudphysics(r, n),
        Target::OracleGeneral => oracle(r, n),
        Target::Android => android(r, n),
        Target::Lackey => lackey(r, n),
        Target::Generic => generic(r, n),
        Target::WaferCsv => wafer_csv(r, n),
        Target::AfterCsv => after_csv(r, n),
    }
}

fn rq(time_ns: u64, op: Op, dev: u32, offset: u64, len: u32) -> Request {
    Request {
        time_ns,
        offset,
        len,
        dev,
        op,
    }
}

fn pick<'a, T>(r: &mut Pcg64, xs: &'a [T]) -> &'a T {
    xs.choose(r).expect("a non-empty choice")
}

const SEC: u128 = 1_000_000_000;
const SEC64: u64 = 1_000_000_000;

/// Builds a text seed line by line, noting each numeric field.
#[derive(Default)]
struct Lines {
    seed: Seed,
    fields: Vec<Field>,
    start: usize,
}

impl Lines {
    fn s(&mut self, s: &str) -> &mut Self {
        self.seed.bytes.extend_from_slice(s.as_bytes());
        self
    }

    fn field(&mut self, role: Role, enc: Enc, v: impl Display) -> &mut Self {
        let start = self.seed.bytes.len();
        write!(self.seed.bytes, "{v}").expect("writing to memory");
        self.fields.push(Field {
            span: start..self.seed.bytes.len(),
            role,
            enc,
        });
        self
    }

    fn n(&mut self, role: Role, v: impl Display) -> &mut Self {
        self.field(role, Enc::Dec, v)
    }

    /// End the line; it stands for `reqs`.
    fn end(&mut self, reqs: &[Request]) {
        self.seed.bytes.push(b'\n');
        let first = self.seed.model.len();
        self.seed.model.extend_from_slice(reqs);
        self.seed.records.push(Record {
            span: self.start..self.seed.bytes.len(),
            reqs: first..self.seed.model.len(),
            fields: std::mem::take(&mut self.fields),
        });
        self.start = self.seed.bytes.len();
    }

    /// A line without requests (header, comment, summary).
    fn line(&mut self, s: &str) {
        self.s(s).end(&[]);
    }
}

/// Builds a binary seed record by record.
#[derive(Default)]
struct Records(Seed);

impl Records {
    /// Append `rec`, whose numeric fields start at the given offsets.
    fn push(&mut self, rec: &[u8], fields: &[(usize, Enc, Role)], reqs: &[Request]) {
        let s = &mut self.0;
        let start = s.bytes.len();
        s.bytes.extend_from_slice(rec);
        let first = s.model.len();
        s.model.extend_from_slice(reqs);
        let fields = fields
            .iter()
            .map(|&(at, enc, role)| {
                let width = if enc == Enc::U32 { 4 } else { 8 };
                Field {
                    span: start + at..start + at + width,
                    role,
                    enc,
                }
            })
            .collect();
        s.records.push(Record {
            span: start..s.bytes.len(),
            reqs: first..s.model.len(),
            fields,
        });
    }
}

fn wtr(r: &mut Pcg64, n: usize, scratch: &Path) -> Seed {
    let mut t = r.gen_range(0..1u64 << 40);
    let model: Vec<Request> = (0..n)
        .map(|_| {
            t += r.gen_range(0..1_000_000);
            let time = if r.gen_bool(0.1) { NO_TIME } else { t };
            let op = *pick(r, &[Op::Read, Op::Write, Op::Trim]);
            rq(
                time,
                op,
                r.gen_range(0..4),
                r.gen_range(0..1u64 << 40),
                r.gen_range(0..=1 << 20),
            )
        })
        .collect();
    let bytes = wtr_bytes(&model, scratch);
    Seed {
        records: vec![Record {
            span: 0..bytes.len(),
            reqs: 0..n,
            fields: Vec::new(),
        }],
        bytes,
        model,
    }
}

/// `reqs` as a `.wtr` file, written by the library's writer in chunks of 64 requests
/// (so that a file has several).
fn wtr_bytes(reqs: &[Request], scratch: &Path) -> Vec<u8> {
    let path = scratch.join("seed.wtr");
    let header = Header {
        has_time: true,
        has_op: true,
        page_size: 4096,
        columns: Columns::NONE,
        chunk: 64,
        origin: "wafer mutation test".to_string(),
    };
    let mut w = Writer::create(&path, header).expect("creating a .wtr seed");
    for q in reqs {
        w.push(q).expect("writing a .wtr seed");
    }
    w.finish().expect("finishing a .wtr seed");
    std::fs::read(&path).expect("reading a .wtr seed back")
}

fn msr(r: &mut Pcg64, n: usize) -> Seed {
    let mut t = Lines::default();
    let host = *pick(r, &["hm", "prn", "src1", "web", "usr"]);
    let mut ticks = 128_166_372_000_000_000 + r.gen_range(0..1u64 << 32);
    for _ in 0..n {
        ticks += r.gen_range(0..100_000);
        let (dev, write) = (r.gen_range(0..4u32), r.gen_bool(0.5));
        let names = if write {
            ["Write", "write", "WRITE"]
        } else {
            ["Read", "read", "READ"]
        };
        let (offset, len) = (r.gen_range(0..1u64 << 34), r.gen_range(1..=1u32 << 17));
        t.n(Role::Time(100), ticks)
            .s(",")
            .s(host)
            .s(",")
            .n(Role::Dev, dev)
            .s(",")
            .s(pick::<&str>(r, &names))
            .s(",")
            .n(Role::Offset(1), offset)
            .s(",")
            .n(Role::Len(1), len)
            .s(",")
            .n(Role::Ignored, r.gen_range(0..100_000u32));
        let op = if write { Op::Write } else { Op::Read };
        t.end(&[rq(ticks * 100, op, dev, offset, len)]);
    }
    t.seed
}

fn spc(r: &mut Pcg64, n: usize) -> Seed {
    let mut t = Lines::default();
    let mut us = r.gen_range(0..1_000_000_000u64);
    for _ in 0..n {
        us += r.gen_range(0..50_000);
        let (asu, lba, size) = (
            r.gen_range(0..4u32),
            r.gen_range(0..1u64 << 32),
            512 * r.gen_range(1..=256u32),
        );
        let write = r.gen_bool(0.4);
        let names = if write { ["w", "W"] } else { ["r", "R"] };
        t.n(Role::Dev, asu)
            .s(",")
            .n(Role::Offset(512), lba)
            .s(",")
            .n(Role::Len(1), size)
            .s(",")
            .s(pick::<&str>(r, &names))
            .s(",")
            .n(
                Role::Time(SEC),
                format_args!("{}.{:06}", us / 1_000_000, us % 1_000_000),
            );
        if r.gen_bool(0.1) {
            t.s(",extra");
        }
        let op = if write { Op::Write } else { Op::Read };
        t.end(&[rq(us * 1000, op, asu, lba * 512, size)]);
    }
    t.seed
}

fn blkparse(r: &mut Pcg64, n: usize) -> Seed {
    const RWBS: [(&str, Option<Op>); 11] = [
        ("R", Some(Op::Read)),
        ("RA", Some(Op::Read)),
        ("RM", Some(Op::Read)),
        ("W", Some(Op::Write)),
        ("WS", Some(Op::Write)),
        ("WSM", Some(Op::Write)),
        ("FWFS", Some(Op::Write)),
        ("D", Some(Op::Trim)),
        ("DS", Some(Op::Trim)),
        ("N", None),
        ("FN", None),
    ];
    let mut t = Lines::default();
    let (maj, min) = *pick(r, &[(8u64, 0u64), (8, 16), (259, 0), (253, 1)]);
    let dev = ((maj << 8) | min) as u32;
    let mut ns = r.gen_range(0..SEC64);
    for seq in 1..=n {
        ns += r.gen_range(0..2_000_000);
        let action = if r.gen_bool(0.7) {
            "D"
        } else {
            *pick(r, &["Q", "G", "I", "C", "M"])
        };
        let (rwbs, op) = *pick(r, &RWBS);
        let (sector, nsec) = (r.gen_range(0..1u64 << 32), r.gen_range(1..=256u32));
        let process = *pick(r, &["java", "kworker/0:1", "jbd2/sda1-8", "mysqld"]);
        t.s("  ")
            .n(Role::DevMajor(min), maj)
            .s(",")
            .n(Role::DevMinor(maj), min)
            .s("  ")
            .n(Role::Ignored, r.gen_range(0..4))
            .s("  ")
            .n(Role::Ignored, seq)
            .s("  ")
            .n(
                Role::Time(SEC),
                format_args!("{}.{:09}", ns / SEC64, ns % SEC64),
            )
            .s("  ")
            .n(Role::Ignored, r.gen_range(1..5000))
            .s(&format!("  {action} {rwbs:>4} "))
            .n(Role::Offset(512), sector)
            .s(" + ")
            .n(Role::Len(512), nsec)
            .s(&format!(" [{process}]"));
        let req = op
            .filter(|_| action == "D")
            .map(|op| rq(ns, op, dev, sector * 512, nsec * 512));
        t.end(req.as_slice());
    }
    if r.gen_bool(0.5) {
        let queued =
            " Reads Queued:           7,       28KiB\t Writes Queued:          41,      164KiB";
        let summary = [
            format!("CPU0 ({maj},{min}):"),
            queued.to_string(),
            " Read Dispatches:        7,       28KiB\t Write Dispatches:       41,      164KiB"
                .to_string(),
            format!("Total ({maj},{min}):"),
            queued.to_string(),
            String::new(),
            "Throughput (R/W): 0KiB/s / 1KiB/s".to_string(),
            format!("Events ({maj},{min}): {n} entries"),
            "Skips: 0 forward (0 -   0.0%)".to_string(),
        ];
        for line in &summary {
            t.line(line);
        }
    }
    t.seed
}

fn fiu(r: &mut Pcg64, n: usize) -> Seed {
    let mut t = Lines::default();
    let mut ts = 89_966_522_969_723 + r.gen_range(0..1u64 << 32);
    for _ in 0..n {
        ts += r.gen_range(0..10_000_000);
        let process = *pick(
            r,
            &[
                "rpc.mountd",
                "nfsd",
                "kjournald",
                "syslogd",
                "gnome terminal",
            ],
        );
        let (lba, size) = (r.gen_range(0..1u64 << 32), r.gen_range(1..=64u32));
        let (maj, min) = (r.gen_range(3..9u64), r.gen_range(0..32u64));
        let write = r.gen_bool(0.5);
        let rw = if write { ["W", "w"] } else { ["R", "r"] };
        let md5: String = (0..32)
            .map(|_| char::from_digit(r.gen_range(0..16), 16).expect("a hex digit"))
            .collect();
        t.n(Role::Time(1), ts)
            .s(" ")
            .n(Role::Ignored, r.gen_range(1..30_000))
            .s(" ")
            .s(process)
            .s(" ")
            .n(Role::Offset(512), lba)
            .s(" ")
            .n(Role::Len(512), size)
            .s(" ")
            .s(pick::<&str>(r, &rw))
            .s(" ")
            .n(Role::DevMajor(min), maj)
            .s(" ")
            .n(Role::DevMinor(maj), min)
            .s(" ")
            .s(&md5);
        let op = if write { Op::Write } else { Op::Read };
        let dev = ((maj << 8) | min) as u32;
        t.end(&[rq(ts, op, dev, lba * 512, size * 512)]);
    }
    t.seed
}

fn disksim(r: &mut Pcg64, n: usize) -> Seed {
    let mut t = Lines::default();
    let mut ns = r.gen_range(0..1u64 << 40);
    for _ in 0..n {
        ns += r.gen_range(0..1_000_000);
        // A fractional part is rounded to the nearest ns, halves up.
        let (frac, up) = *pick(
            r,
            &[("", 0), (".25", 0), (".5", 1), (".75", 1), (".499", 0)],
        );
        let (dev, sector, size) = (
            r.gen_range(0..16u32),
            r.gen_range(0..1u64 << 32),
            r.gen_range(1..=64u32),
        );
        let flags = *pick(r, &[0u32, 1, 2, 3]);
        t.n(Role::Time(1), format_args!("{ns}{frac}"))
            .s(" ")
            .n(Role::Dev, dev)
            .s(" ")
            .n(Role::Offset(512), sector)
            .s(" ")
            .n(Role::Len(512), size)
            .s(&format!(" {flags}"));
        let op = if flags & 1 == 1 { Op::Read } else { Op::Write };
        t.end(&[rq(ns + up, op, dev, sector * 512, size * 512)]);
    }
    t.seed
}

/// SCSI opcodes as vscsi and the CloudPhysics CSV carry them; `None`: no data moved.
const SCSI: [(u8, Option<Op>); 11] = [
    (0x28, Some(Op::Read)),
    (0x2a, Some(Op::Write)),
    (0x08, Some(Op::Read)),
    (0x0a, Some(Op::Write)),
    (0x88, Some(Op::Read)),
    (0x8a, Some(Op::Write)),
    (0xa8, Some(Op::Read)),
    (0xaa, Some(Op::Write)),
    (0x00, None),
    (0x12, None),
    (0x35, None),
];

fn vscsi(r: &mut Pcg64, n: usize, v2: bool) -> Seed {
    let mut b = Records::default();
    let mut us = r.gen_range(0..1u64 << 40);
    for sn in 0..n as u32 {
        us += r.gen_range(0..10_000);
        let (cmd, op) = *pick(r, &SCSI);
        let (len, lbn) = (r.gen_range(1..=256u32) * 512, r.gen_range(0..1u64 << 32));
        let ver_low = r.gen_range(0..4u16);
        let req = op.map(|op| rq(us * 1000, op, 0, lbn * 512, len));
        if v2 {
            let mut rec = [0u8; 40];
            rec[0..2].copy_from_slice(&u16::from(cmd).to_le_bytes());
            rec[2..4].copy_from_slice(&(0x0200 | ver_low).to_le_bytes());
            rec[4..8].copy_from_slice(&sn.to_le_bytes());
            rec[8..12].copy_from_slice(&len.to_le_bytes());
            rec[12..16].copy_from_slice(&r.gen_range(1..4u32).to_le_bytes());
            rec[16..24].copy_from_slice(&lbn.to_le_bytes());
            rec[24..32].copy_from_slice(&us.to_le_bytes());
            rec[32..40].copy_from_slice(&r.gen_range(0..10_000u64).to_le_bytes());
            let fields = [
                (8, Enc::U32, Role::Len(1)),
                (16, Enc::U64, Role::Offset(512)),
                (24, Enc::U64, Role::Time(1000)),
            ];
            b.push(&rec, &fields, req.as_slice());
        } else {
            let mut rec = [0u8; 32];
            rec[0..4].copy_from_slice(&sn.to_le_bytes());
            rec[4..8].copy_from_slice(&len.to_le_bytes());
            rec[8..12].copy_from_slice(&r.gen_range(1..4u32).to_le_bytes());
            rec[12..14].copy_from_slice(&u16::from(cmd).to_le_bytes());
            rec[14..16].copy_from_slice(&(0x0100 | ver_low).to_le_bytes());
            rec[16..24].copy_from_slice(&lbn.to_le_bytes());
            rec[24..32].copy_from_slice(&us.to_le_bytes());
            let fields = [
                (4, Enc::U32, Role::Len(1)),
                (16, Enc::U64, Role::Offset(512)),
                (24, Enc::U64, Role::Time(1000)),
            ];
            b.push(&rec, &fields, req.as_slice());
        }
    }
    b.0
}

fn cloudphysics(r: &mut Pcg64, n: usize) -> Seed {
    let mut t = Lines::default();
    t.line("version,time,op,size,lbn");
    let mut s = r.gen_range(5_000_000..6_000_000u64);
    for _ in 0..n {
        s += r.gen_range(0..3);
        let (frac, half) = *pick(r, &[("", 0), ("", 0), ("", 0), (".5", SEC64 / 2)]);
        let (code, op) = *pick(r, &SCSI);
        // Hex opcodes as written in the wild: bare, upper case, with a 0x prefix.
        let code = match r.gen_range(0..4) {
            0 => format!("{code:X}"),
            1 => format!("{code:#x}"),
            _ => format!("{code:x}"),
        };
        let (size, lbn) = (r.gen_range(1..=256u32) * 512, r.gen_range(0..1u64 << 32));
        t.n(Role::Ignored, 1)
            .s(",")
            .n(Role::Time(SEC), format_args!("{s}{frac}"))
            .s(",")
            .s(&code)
            .s(",")
            .n(Role::Len(1), size)
            .s(",")
            .n(Role::Offset(512), lbn);
        let req = op.map(|op| rq(s * SEC64 + half, op, 0, lbn * 512, size));
        t.end(req.as_slice());
    }
    t.seed
}

fn oracle(r: &mut Pcg64, n: usize) -> Seed {
    let mut b = Records::default();
    let mut t = r.gen_range(0..1_000_000u32);
    for i in 0..n {
        t += r.gen_range(0..3);
        let (obj, size) = (r.gen_range(0..1u64 << 40), r.gen_range(1..=1u32 << 20));
        // -1 or the later 1-based index of the next access (detection checks it).
        let next = if r.gen_bool(0.3) {
            -1
        } else {
            i as i64 + 2 + r.gen_range(0..100)
        };
        let mut rec = [0u8; 24];
        rec[0..4].copy_from_slice(&t.to_le_bytes());
        rec[4..12].copy_from_slice(&obj.to_le_bytes());
        rec[12..16].copy_from_slice(&size.to_le_bytes());
        rec[16..24].copy_from_slice(&next.to_le_bytes());
        let fields = [
            (0, Enc::U32, Role::Time(SEC)),
            (4, Enc::U64, Role::Offset(512)),
            (12, Enc::U32, Role::Len(1)),
        ];
        let req = rq(u64::from(t) * SEC64, Op::Read, 0, obj * 512, size);
        b.push(&rec, &fields, &[req]);
    }
    b.0
}

fn android(r: &mut Pcg64, n: usize) -> Seed {
    const RWBS: [(&str, Option<Op>); 8] = [
        ("R", Some(Op::Read)),
        ("RA", Some(Op::Read)),
        ("RM", Some(Op::Read)),
        ("W", Some(Op::Write)),
        ("WS", Some(Op::Write)),
        ("FWS", Some(Op::Write)),
        ("D", Some(Op::Trim)),
        ("N", None),
    ];
    let mut t = Lines::default();
    t.line("proces,device,rw_flag,sector,size,timestamp");
    let (maj, min) = *pick(r, &[(8u64, 0u64), (8, 16), (253, 0), (254, 32)]);
    let dev = ((maj << 8) | min) as u32;
    let mut secs = r.gen_range(100..200_000u64);
    for _ in 0..n {
        secs += r.gen_range(0..2);
        let process = *pick(
            r,
            &[
                "kworker/u16:2",
                "Binder:1234_5",
                "com.android.chrome",
                "f2fs_ckpt-254:3",
                "odd,name",
            ],
        );
        let (rw, op) = *pick(r, &RWBS);
        let (sector, size) = (r.gen_range(0..1u64 << 31), r.gen_range(0..=256u32));
        // Seconds with 3, 6 or 9 decimals; digits beyond the ns are float noise,
        // rounded half up.
        let digits = *pick(r, &[3u32, 6, 9]);
        let frac = r.gen_range(0..10u64.pow(digits));
        let mut ns = secs * SEC64 + frac * 10u64.pow(9 - digits);
        let mut ts = format!("{secs}.{frac:0w$}", w = digits as usize);
        if digits == 9 && r.gen_bool(0.3) {
            let noise: String = (0..r.gen_range(1..5))
                .map(|_| char::from(b'0' + r.gen_range(0..10u8)))
                .collect();
            ns += u64::from(noise.as_bytes()[0] >= b'5');
            ts.push_str(&noise);
        }
        t.s(process)
            .s(",")
            .n(Role::DevT, (maj << 20) | min)
            .s(",")
            .s(rw)
            .s(",")
            .n(Role::Offset(512), sector)
            .s(",")
            .n(Role::Len(512), size)
            .s(",")
            .n(Role::Time(SEC), ts);
        let req = op
            .filter(|_| size > 0)
            .map(|op| rq(ns, op, dev, sector * 512, size * 512));
        t.end(req.as_slice());
    }
    t.seed
}

/// Lackey seeds count instruction fetches (`ReadOptions::instructions`).
fn lackey(r: &mut Pcg64, n: usize) -> Seed {
    /// Line prefixes and the requests they stand for (`M`: a read, then a write).
    const KINDS: [(&str, &[Op]); 4] = [
        ("I  ", &[Op::Read]),
        (" L ", &[Op::Read]),
        (" S ", &[Op::Write]),
        (" M ", &[Op::Read, Op::Write]),
    ];
    let mut t = Lines::default();
    let pid = r.gen_range(1000..99_999);
    for banner in [
        "Lackey, an example Valgrind tool",
        "Copyright (C) 2002-2017, and GNU GPL'd, by Nicholas Nethercote.",
        "Command: ./a.out",
        "",
    ] {
        t.line(&format!("=={pid}== {banner}"));
    }
    for _ in 0..n {
        let (prefix, ops) = *pick(r, &KINDS);
        let (addr, size) = (
            r.gen_range(0x40_0000..1u64 << 40),
            *pick(r, &[1u32, 2, 4, 8, 16]),
        );
        let hex = if r.gen_bool(0.2) {
            format!("{addr:08X}")
        } else {
            format!("{addr:08x}")
        };
        t.s(prefix)
            .field(Role::Offset(1), Enc::Hex, hex)
            .s(",")
            .n(Role::Len(1), size);
        let reqs: Vec<Request> = ops
            .iter()
            .map(|&op| rq(NO_TIME, op, 0, addr, size))
            .collect();
        t.end(&reqs);
    }
    t.line(&format!("=={pid}== "));
    t.line(&format!("=={pid}== Counted 1 call to main()"));
    t.seed
}

/// Generic text as [`generic_spec`] maps it: `seconds;dev;op;sector;blocks`.
fn generic(r: &mut Pcg64, n: usize) -> Seed {
    const OPS: [(&str, Op); 14] = [
        ("r", Op::Read),
        ("R", Op::Read),
        ("read", Op::Read),
        ("READ", Op::Read),
        ("0", Op::Read),
        ("w", Op::Write),
        ("W", Op::Write),
        ("write", Op::Write),
        ("1", Op::Write),
        ("t", Op::Trim),
        ("trim", Op::Trim),
        ("d", Op::Trim),
        ("discard", Op::Trim),
        ("Discard", Op::Trim),
    ];
    let mut t = Lines::default();
    t.line("ts;dev;op;lba;blocks");
    let mut us = r.gen_range(0..1u64 << 36);
    for _ in 0..n {
        us += r.gen_range(0..100_000);
        let ts = format!("{}.{:06}", us / 1_000_000, us % 1_000_000);
        // Times go through f64, as documented.
        let ns = (ts.parse::<f64>().expect("a decimal") * 1e9).round() as u64;
        let (dev, lba, blocks) = (
            r.gen_range(0..64u32),
            r.gen_range(0..1u64 << 32),
            r.gen_range(1..=64u32),
        );
        let (op_name, op) = *pick(r, &OPS);
        let pad = if r.gen_bool(0.2) { " " } else { "" };
        t.n(Role::Time(SEC), ts)
            .s(";")
            .s(pad)
            .n(Role::Dev, dev)
            .s(pad)
            .s(";")
            .s(op_name)
            .s(";");
        if r.gen_bool(0.2) {
            t.s(&format!("{lba:#x}"));
        } else {
            t.n(Role::Offset(512), lba);
        }
        t.s(";").n(Role::Len(512), blocks);
        t.end(&[rq(ns, op, dev, lba * 512, blocks * 512)]);
    }
    t.seed
}

fn wafer_csv(r: &mut Pcg64, n: usize) -> Seed {
    let mut t = Lines::default();
    t.line("time_ns,op,dev,offset,len");
    let mut ns = r.gen_range(0..1u64 << 50);
    for _ in 0..n {
        ns += r.gen_range(0..1_000_000);
        let time = if r.gen_bool(0.1) {
            NO_TIME
        } else {
            t.n(Role::Time(1), ns);
            ns
        };
        let (letter, op) = *pick(r, &[("R", Op::Read), ("W", Op::Write), ("T", Op::Trim)]);
        let (dev, offset, len) = (
            r.gen_range(0..8u32),
            r.gen_range(0..1u64 << 40),
            r.gen_range(0..=1u32 << 20),
        );
        t.s(",")
            .s(letter)
            .s(",")
            .n(Role::Dev, dev)
            .s(",")
            .n(Role::Offset(1), offset)
            .s(",")
            .n(Role::Len(1), len);
        t.end(&[rq(time, op, dev, offset, len)]);
    }
    t.seed
}

/// The after-cache CSV of `wafer sim --after X.csv`. Only time and device are
/// numeric fields here: page, offset and length must agree (offset = page x length),
/// and access and group are checked integers, so substituting one of them alone has no
/// single faithful reading; byte edits still reach them.
fn after_csv(r: &mut Pcg64, n: usize) -> Seed {
    let mut t = Lines::default();
    t.line("access,time_ns,op,kind,group,dev,page,offset,len");
    let mut ns = r.gen_range(0..1u64 << 50);
    let mut access = 0u64;
    for _ in 0..n {
        access += r.gen_range(0..50);
        ns += r.gen_range(0..1_000_000);
        t.s(&format!("{access},"));
        let time = if r.gen_bool(0.1) {
            NO_TIME
        } else {
            t.n(Role::Time(1), ns);
            ns
        };
        let (letter, kind, op) = *pick(
            r,
            &[
                ("R", "miss", Op::Read),
                ("R", "pad-read", Op::Read),
                ("W", "write-back", Op::Write),
                ("W", "pad-write", Op::Write),
                ("W", "flush", Op::Write),
                ("T", "trim", Op::Trim),
            ],
        );
        let len = *pick(r, &[512u32, 4096, 16384]);
        let (dev, page) = (r.gen_range(0..8u32), r.gen_range(0..1u64 << 30));
        t.s(&format!(",{letter},{kind},{},", r.gen_range(0..100u32)))
            .n(Role::Dev, dev)
            .s(&format!(",{page},{},{len}", page * u64::from(len)));
        t.end(&[rq(time, op, dev, page * u64::from(len), len)]);
    }
    t.seed
}

/// Numbers put into decimal fields, with their value (`None`: not a non-negative
/// integer, so no unit makes it a valid time, address, length or device).
const DEC: [(&str, Option<u128>); 15] = [
    ("18446744073709551615", Some(u64::MAX as u128)),
    ("18446744073709551616", Some(1 << 64)),
    ("18446744073709551104", Some((1 << 64) - 512)),
    ("9223372036854775808", Some(1 << 63)),
    ("36028797018963967", Some((1 << 55) - 1)),
    ("9007199254740992", Some(1 << 53)),
    ("17592186044416", Some(1 << 44)),
    ("4294967296", Some(1 << 32)),
    ("1048576", Some(1 << 20)),
    (
        "99999999999999999999999",
        Some(99_999_999_999_999_999_999_999),
    ),
    ("-1", None),
    ("-1e-20", None),
    ("1e300", None),
    ("inf", None),
    ("nan", None),
];

/// The same for hex fields.
const HEX: [(&str, Option<u128>); 7] = [
    ("ffffffffffffffff", Some(u64::MAX as u128)),
    ("fffffffffffff000", Some((1 << 64) - 4096)),
    ("8000000000000000", Some(1 << 63)),
    ("20000000000000", Some(1 << 53)),
    ("1fffffffffffff", Some((1 << 53) - 1)),
    ("10000000000000000", Some(1 << 64)),
    ("-1", None),
];

/// Values put into binary fields.
const U64: [u64; 7] = [
    u64::MAX,
    u64::MAX - 511,
    1 << 63,
    (1 << 55) - 1,
    1 << 55,
    1 << 53,
    1 << 44,
];
const U32: [u32; 4] = [u32::MAX, 1 << 31, 1 << 30, 1 << 20];

/// A change to one field of a request.
#[derive(Clone, Copy, Debug)]
enum Set {
    Time(u64),
    Offset(u64),
    Len(u32),
    Dev(u32),
    Nothing,
}

impl Set {
    fn apply(self, q: &mut Request) {
        match self {
            Set::Time(v) => q.time_ns = v,
            Set::Offset(v) => q.offset = v,
            Set::Len(v) => q.len = v,
            Set::Dev(v) => q.dev = v,
            Set::Nothing => {}
        }
    }
}

/// What a field of `role` holding `value` must read as; `None` when nothing is right
/// (the input must be refused). Times must stay below [`NO_TIME`], which means "no
/// timestamp"; device numbers below 2^20 (`formats/block.rs`).
fn faithful(role: Role, value: Option<u128>) -> Option<Set> {
    let dev = |v: u128| (v < 1 << 20).then_some(Set::Dev(v as u32));
    let linux = |major: u128, minor: u128| {
        (major < 4096 && minor < 256)
            .then(|| dev((major << 8) | minor))
            .flatten()
    };
    match role {
        Role::Ignored => Some(Set::Nothing),
        Role::Time(unit) => value?
            .checked_mul(unit)
            .filter(|&ns| ns < u128::from(NO_TIME))
            .map(|ns| Set::Time(ns as u64)),
        Role::Offset(unit) => u64::try_from(value?.checked_mul(unit.into())?)
            .ok()
            .map(Set::Offset),
        Role::Len(unit) => u32::try_from(value?.checked_mul(unit.into())?)
            .ok()
            .map(Set::Len),
        Role::Dev => dev(value?),
        Role::DevMajor(minor) => linux(value?, minor.into()),
        Role::DevMinor(major) => linux(major.into(), value?),
        Role::DevT => {
            let v = value?;
            linux(v >> 20, v & 0xf_ffff)
        }
    }
}

/// The longest line a text reader accepts: longer ones are errors, which keeps its
/// memory bounded whatever the input (`formats/text.rs`).
const LINE_LIMIT: usize = 64 * 1024;

/// The mutations, each with its weight per kind of format.
#[derive(Clone, Copy, Debug)]
enum Mutation {
    Truncate,
    Flip,
    Insert,
    Delete,
    Control,
    Number,
    Duplicate,
    Remove,
    LongLine,
    Gzip,
    Zstd,
}

fn mutations(target: Target) -> &'static [(Mutation, u32)] {
    use Mutation::*;
    match target {
        Target::Wtr => &[
            (Truncate, 2),
            (Flip, 3),
            (Insert, 1),
            (Delete, 1),
            (Number, 4),
            (Gzip, 1),
            (Zstd, 1),
        ],
        t if !t.is_text() => &[
            (Truncate, 2),
            (Flip, 3),
            (Insert, 1),
            (Delete, 1),
            (Number, 4),
            (Duplicate, 1),
            (Remove, 1),
            (Gzip, 1),
            (Zstd, 1),
        ],
        _ => &[
            (Truncate, 2),
            (Flip, 2),
            (Insert, 1),
            (Delete, 1),
            (Control, 3),
            (Number, 4),
            (Duplicate, 1),
            (Remove, 1),
            (LongLine, 1),
            (Gzip, 1),
            (Zstd, 1),
        ],
    }
}

/// "line 3" or "record 3" (1-based).
fn unit(target: Target, i: usize) -> String {
    match target {
        Target::Wtr => "the file".to_string(),
        t if t.is_text() => format!("line {}", i + 1),
        _ => format!("record {}", i + 1),
    }
}

/// The record holding byte `p`.
fn record_at(s: &Seed, p: usize) -> usize {
    s.records
        .iter()
        .position(|x| x.span.contains(&p))
        .unwrap_or(s.records.len() - 1)
}

fn mutate(target: Target, s: &Seed, r: &mut Pcg64, scratch: &Path) -> (String, Vec<u8>, Expect) {
    let table = mutations(target);
    let mut x = r.gen_range(0..table.iter().map(|m| m.1).sum::<u32>());
    let mut mutation = table[0].0;
    for &(m, weight) in table {
        if x < weight {
            mutation = m;
            break;
        }
        x -= weight;
    }
    let len = s.bytes.len();
    let mut b = s.bytes.clone();
    match mutation {
        Mutation::Truncate => {
            let p = r.gen_range(0..len);
            b.truncate(p);
            let i = record_at(s, p);
            let rec = &s.records[i];
            let expect = if target == Target::Wtr {
                whole(s, "truncated .wtr read")
            } else {
                // The cut record may be dropped, or read as it was when the cut only
                // took bytes it does not keep (its line break, a trailing field).
                let mut allowed = vec![s.model[..rec.reqs.start].to_vec()];
                if target.is_text() && p > rec.span.start {
                    allowed.push(s.model[..rec.reqs.end].to_vec());
                }
                Expect::OneOf("cut record read with changed values", allowed)
            };
            let what = format!("cut to {p} of {len} bytes, in {}", unit(target, i));
            (what, b, expect)
        }
        Mutation::Flip => {
            let ps: Vec<usize> = (0..r.gen_range(1..=3))
                .map(|_| r.gen_range(0..len))
                .collect();
            for &p in &ps {
                b[p] ^= 1 << r.gen_range(0..8);
            }
            let lo = *ps.iter().min().expect("a flip");
            let hi = *ps.iter().max().expect("a flip");
            let expect = edited(target, s, lo, hi, false);
            (format!("bit flips at bytes {ps:?}"), b, expect)
        }
        Mutation::Insert => {
            let p = r.gen_range(0..=len);
            let bytes: Vec<u8> = (0..r.gen_range(1..=4)).map(|_| r.gen()).collect();
            b.splice(p..p, bytes.iter().copied());
            let what = format!("bytes {bytes:02x?} inserted at byte {p}");
            (what, b, edited(target, s, p, p, true))
        }
        Mutation::Delete => {
            let p = r.gen_range(0..len);
            let k = r.gen_range(1..=4.min(len - p));
            b.drain(p..p + k);
            let what = format!("{k} bytes deleted at byte {p}");
            (what, b, edited(target, s, p, p + k - 1, true))
        }
        Mutation::Control => {
            let mut at: Vec<(usize, u8)> = (0..r.gen_range(1..=3))
                .map(|_| (r.gen_range(0..=len), r.gen_range(0..0x20)))
                .collect();
            at.sort_unstable();
            for &(p, c) in at.iter().rev() {
                b.insert(p, c);
            }
            let what = format!("control bytes (at, byte) {at:02x?} inserted");
            let expect = edited(target, s, at[0].0, at[at.len() - 1].0, true);
            (what, b, expect)
        }
        Mutation::Number if target == Target::Wtr => wtr_number(s, r, scratch),
        Mutation::Number => number(target, s, r),
        Mutation::Duplicate | Mutation::Remove => {
            let i = r.gen_range(0..s.records.len());
            let rec = &s.records[i];
            let mut model = s.model.clone();
            let verb = if matches!(mutation, Mutation::Duplicate) {
                b.splice(
                    rec.span.end..rec.span.end,
                    s.bytes[rec.span.clone()].iter().copied(),
                );
                model.splice(
                    rec.reqs.end..rec.reqs.end,
                    s.model[rec.reqs.clone()].iter().copied(),
                );
                "duplicated"
            } else {
                b.drain(rec.span.clone());
                model.drain(rec.reqs.clone());
                // Generic text skips its first line by position (`skip_lines`): without
                // the header, the first record takes its place.
                if target == Target::Generic && i == 0 {
                    model.drain(s.records[1].reqs.clone());
                }
                "removed"
            };
            let expect = Expect::OneOf("duplicated or removed record read wrong", vec![model]);
            (format!("{} {verb}", unit(target, i)), b, expect)
        }
        Mutation::LongLine => {
            let i = r.gen_range(0..s.records.len());
            let rec = &s.records[i];
            let p = r.gen_range(rec.span.start..rec.span.end);
            let n = LINE_LIMIT + r.gen_range(1..=LINE_LIMIT);
            b.splice(p..p, b"1234567890,".iter().copied().cycle().take(n));
            let expect = Expect::Refuse {
                class: "over-long line accepted",
                at: rec.reqs.start,
            };
            (
                format!("{n} bytes inserted at byte {p}, in line {}", i + 1),
                b,
                expect,
            )
        }
        Mutation::Gzip | Mutation::Zstd => compressed(s, matches!(mutation, Mutation::Gzip), r),
    }
}

/// Every request of the seed, or an error.
fn whole(s: &Seed, class: &'static str) -> Expect {
    Expect::OneOf(class, vec![s.model.clone()])
}

/// What an edit of bytes `lo..=hi` allows: in `.wtr`, whose every byte is under a
/// checksum, nothing but the seed; elsewhere any change to the records it touches
/// (for text also their neighbours, which an edited line break joins or splits),
/// and, when bytes were inserted or deleted in fixed-size records, to every record
/// after it.
fn edited(target: Target, s: &Seed, lo: usize, hi: usize, shifts: bool) -> Expect {
    if target == Target::Wtr {
        return whole(s, "corrupt .wtr read");
    }
    let text = target.is_text();
    let (lo, hi) = if text {
        (lo.saturating_sub(1), hi + 1)
    } else {
        (lo, hi)
    };
    let first = s
        .records
        .iter()
        .position(|x| x.span.end > lo)
        .unwrap_or(s.records.len() - 1);
    let last = s
        .records
        .iter()
        .rposition(|x| x.span.start <= hi)
        .unwrap_or(first)
        .max(first);
    let tail = if shifts && !text {
        0
    } else {
        s.model.len() - s.records[last].reqs.end
    };
    Expect::Splice {
        model: s.model.clone(),
        head: s.records[first].reqs.start,
        tail,
    }
}

/// A huge, negative or otherwise impossible number in one numeric field.
fn number(target: Target, s: &Seed, r: &mut Pcg64) -> (String, Vec<u8>, Expect) {
    let fields: Vec<(usize, usize)> = s
        .records
        .iter()
        .enumerate()
        .flat_map(|(i, x)| (0..x.fields.len()).map(move |j| (i, j)))
        .collect();
    let (i, j) = *pick(r, &fields);
    let (rec, f) = (&s.records[i], &s.records[i].fields[j]);
    let mut b = s.bytes.clone();
    let (shown, value) = match f.enc {
        Enc::Dec | Enc::Hex => {
            let (lit, v) = *pick(
                r,
                if f.enc == Enc::Dec {
                    &DEC[..]
                } else {
                    &HEX[..]
                },
            );
            b.splice(f.span.clone(), lit.bytes());
            (lit.to_string(), v)
        }
        Enc::U32 => {
            let v = *pick(r, &U32);
            b[f.span.clone()].copy_from_slice(&v.to_le_bytes());
            (v.to_string(), Some(v.into()))
        }
        Enc::U64 => {
            let v = *pick(r, &U64);
            b[f.span.clone()].copy_from_slice(&v.to_le_bytes());
            (v.to_string(), Some(v.into()))
        }
    };
    let what = format!("`{shown}` as the {} of {}", f.role.name(), unit(target, i));
    let expect = if rec.reqs.is_empty() {
        // A record that yields nothing (a header, a non-data command) must keep
        // yielding nothing.
        whole(s, "record without requests read")
    } else {
        match faithful(f.role, value) {
            None => Expect::Refuse {
                class: "impossible value accepted",
                at: rec.reqs.start,
            },
            Some(set) => {
                let mut model = s.model.clone();
                model[rec.reqs.clone()]
                    .iter_mut()
                    .for_each(|q| set.apply(q));
                Expect::OneOf("substituted value misread", vec![model])
            }
        }
    };
    (what, b, expect)
}

/// A `.wtr` file written by the library's writer with one impossible value: the
/// writer stores what it is given, the reader must check.
fn wtr_number(s: &Seed, r: &mut Pcg64, scratch: &Path) -> (String, Vec<u8>, Expect) {
    let i = r.gen_range(0..s.model.len());
    let (set, refuse) = match r.gen_range(0..4) {
        0 => (Set::Time(*pick(r, &[NO_TIME, NO_TIME - 1, 1 << 63])), false),
        1 => (
            Set::Offset(*pick(r, &[u64::MAX, u64::MAX - 4095, 1 << 63, 1 << 53])),
            false,
        ),
        2 => (Set::Len(*pick(r, &[u32::MAX, 1 << 31])), false),
        _ => (Set::Dev(*pick(r, &[1 << 20, u32::MAX])), true),
    };
    let mut model = s.model.clone();
    set.apply(&mut model[i]);
    let bytes = wtr_bytes(&model, scratch);
    let expect = if refuse {
        Expect::Refuse {
            class: "impossible value accepted",
            at: i,
        }
    } else {
        Expect::OneOf("substituted value misread", vec![model])
    };
    (format!("request {i} written with {set:?}"), bytes, expect)
}

/// The seed compressed (zstd with its content checksum, as the zstd tool writes by
/// default), then maybe cut or bit-flipped: the checksums leave nothing to read but
/// the seed itself.
fn compressed(s: &Seed, gzip: bool, r: &mut Pcg64) -> (String, Vec<u8>, Expect) {
    let mut z = if gzip {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(&s.bytes).expect("gzip to memory");
        e.finish().expect("gzip to memory")
    } else {
        let mut e = zstd::stream::Encoder::new(Vec::new(), 3).expect("zstd encoder");
        e.include_checksum(true).expect("zstd checksum flag");
        e.write_all(&s.bytes).expect("zstd to memory");
        e.finish().expect("zstd to memory")
    };
    let how = match r.gen_range(0..10) {
        0 => "intact".to_string(),
        1..=4 => {
            // Keeping the magic bytes: a shorter file is not a compressed stream (an
            // empty one is an empty trace, three zstd bytes are a line of text).
            let magic = if gzip { 2 } else { 4 };
            let p = r.gen_range(magic..z.len());
            z.truncate(p);
            format!("cut to {p} bytes")
        }
        _ => {
            let ps: Vec<usize> = (0..r.gen_range(1..=2))
                .map(|_| r.gen_range(0..z.len()))
                .collect();
            for &p in &ps {
                z[p] ^= 1 << r.gen_range(0..8);
            }
            format!("bit flips at bytes {ps:?}")
        }
    };
    let name = if gzip { "gzip" } else { "zstd" };
    let what = format!("{name} stream of the seed, {how}");
    (what, z, whole(s, "corrupt compressed stream read"))
}
