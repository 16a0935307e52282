//! Settings and failure bookkeeping shared by the library's and the CLI's mutation
//! tests: failures are collected per class (never stopping at the first), a few inputs
//! per class are saved for replay, and a summary is printed before the test fails.

use super::corpus::{Case, Target};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;
use std::time::Duration;

/// The master seed when `WAFER_MUTATION_SEED` is not set.
const DEFAULT_SEED: u64 = 0x5eed_0fa1_17ac;

/// Seeds listed per failure class.
const SEEDS: usize = 5;

/// Cases per failure class printed in full, with their input saved.
const EXAMPLES: usize = 2;

/// What the environment asks for.
pub struct Config {
    /// `WAFER_MUTATION_SEED`: every case seed derives from it.
    pub master: u64,
    /// Cases per format.
    pub cases: u64,
    /// `WAFER_MUTATION_REPLAY=target:seed`: run that one case only.
    pub replay: Option<(Target, u64)>,
}

fn parse_u64(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

fn env_u64(var: &str) -> Option<u64> {
    let v = std::env::var(var).ok()?;
    Some(
        parse_u64(&v).unwrap_or_else(|| panic!("{var}={v}: expected a number (decimal or 0x hex)")),
    )
}

/// Read the settings; `cases_var` names the variable that sets the cases per format.
pub fn config(cases_var: &str, default_cases: u64) -> Config {
    let replay = std::env::var("WAFER_MUTATION_REPLAY").ok().map(|v| {
        let parsed = v
            .split_once(':')
            .and_then(|(t, s)| Some((Target::from_name(t)?, parse_u64(s)?)));
        parsed.unwrap_or_else(|| {
            panic!("WAFER_MUTATION_REPLAY={v}: expected TARGET:SEED, e.g. msr:0x1234")
        })
    });
    Config {
        master: env_u64("WAFER_MUTATION_SEED").unwrap_or(DEFAULT_SEED),
        cases: env_u64(cases_var).unwrap_or(default_cases),
        replay,
    }
}

/// One broken promise of a reader.
#[derive(Clone, Debug)]
pub struct Violation {
    /// How the input was read (`detect`, `forced`).
    pub mode: &'static str,
    /// A short stable name, the unit of the summary.
    pub class: &'static str,
    pub detail: String,
}

#[derive(Default)]
struct Class {
    cases: u64,
    seeds: Vec<u64>,
    examples: Vec<String>,
}

/// The results of one target.
pub struct Tally {
    target: Target,
    master: u64,
    /// Where failing inputs are saved.
    dir: PathBuf,
    cases: u64,
    failing: u64,
    first: Option<u64>,
    classes: BTreeMap<&'static str, Class>,
}

impl Tally {
    /// Failing inputs go to `dir` (created when the first is saved).
    pub fn new(target: Target, master: u64, dir: PathBuf) -> Tally {
        Tally {
            target,
            master,
            dir,
            cases: 0,
            failing: 0,
            first: None,
            classes: BTreeMap::new(),
        }
    }

    /// A case that kept every promise.
    pub fn pass(&mut self) {
        self.cases += 1;
    }

    /// A case that broke at least one; counted once in each class it broke.
    pub fn fail(&mut self, case: &Case, violations: &[Violation]) {
        self.cases += 1;
        self.failing += 1;
        self.first.get_or_insert(case.seed);
        let mut seen = Vec::new();
        for v in violations {
            if seen.contains(&v.class) {
                continue;
            }
            seen.push(v.class);
            let saved = self.classes.get(v.class).map_or(0, |c| c.examples.len());
            let path = (saved < EXAMPLES).then(|| self.save(case));
            let c = self.classes.entry(v.class).or_default();
            c.cases += 1;
            if c.seeds.len() < SEEDS {
                c.seeds.push(case.seed);
            }
            if let Some(path) = path {
                let all: Vec<String> = violations
                    .iter()
                    .map(|v| format!("[{}] {}: {}", v.mode, v.class, v.detail))
                    .collect();
                c.examples.push(format!(
                    "seed {:#018x}: {}\n        {}\n        input: {path}",
                    case.seed,
                    case.what,
                    all.join("\n        ")
                ));
            }
        }
    }

    /// Write the input of `case` where a replay can find it; returns the path.
    fn save(&self, case: &Case) -> String {
        let path = self.dir.join(format!(
            "{}-{:#018x}.{}",
            self.target.name(),
            case.seed,
            self.target.extension()
        ));
        let written =
            std::fs::create_dir_all(&self.dir).and_then(|()| std::fs::write(&path, &case.input));
        match written {
            Ok(()) => path.display().to_string(),
            Err(e) => format!("(not saved: {}: {e})", path.display()),
        }
    }

    /// Print the summary; panic if any case failed.
    pub fn finish(self, elapsed: Duration) {
        let name = self.target.name();
        let mut out = format!(
            "mutation {name}: {} cases in {:.2} s (master seed {:#x}), {} failing\n",
            self.cases,
            elapsed.as_secs_f64(),
            self.master,
            self.failing
        );
        for (class, c) in &self.classes {
            let seeds: Vec<String> = c.seeds.iter().map(|s| format!("{s:#018x}")).collect();
            let _ = writeln!(
                out,
                "  {class}: {} cases, seeds {}",
                c.cases,
                seeds.join(" ")
            );
            for e in &c.examples {
                let _ = writeln!(out, "    {e}");
            }
        }
        print!("{out}");
        if let Some(seed) = self.first {
            panic!(
                "{name}: {} of {} mutated inputs broke the reader contract (summary above); \
                 replay one with WAFER_MUTATION_REPLAY={name}:{seed:#x}",
                self.failing, self.cases
            );
        }
    }
}
