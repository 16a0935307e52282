//! Studies with claims (`wafer reproduce`, `wafer run` on a file with `[[claims]]`,
//! `wafer demo`): an experiment file extended with the paper's setup, its stand-in
//! traces in groups, the paper's claims and sensitivity studies
//! ([`crate::study_def`]), run through the one runner and judged by the rule of
//! [`crate::claims`]. The five paper studies are such files under `studies/` of the
//! repository, built into wafer ([`BUILT_IN`]); `wafer reproduce NAME --export FILE`
//! writes one out to edit.
//!
//! The papers' own traces are not public: the stand-ins are real mobile block traces
//! (`../shared/traces/mobile-pixel6a`, see that folder's README) and wafer's own
//! captures (`traces/`), so figures are expected to differ from the papers'; the setup
//! table says what differs. Policies a study names that are not registered in this
//! build are left out with a note.
//!
//! A group's traces are found beside the study file, under the repository's
//! `traces/`, or in the trace folders ([`crate::trace_folders`]: `$WAFER_TRACES`, the
//! data folder `wafer traces fetch` fills, `../shared/traces`). A group whose traces
//! are not all there is left out with a line saying how to fetch them
//! ([`Preset::skipped`]), so a study runs from a clone alone on its bundled group. A
//! file with claims but no groups judges its `traces` as one group.
//!
//! A file with a `[board]` section is an on-board cache study ([`crate::board`]): its
//! cells are timed-device runs ([`crate::apu`]), and [`reproduce`] runs and judges
//! it through the same front end.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use wafer_cache::external;
use wafer_cache::registry::{self, PolicySpec};
use wafer_ftl::Device;

use crate::apu::{self, ApuOutcome, ApuStudy};
use crate::claims::{Claim, Form, Judged, Measured, Metric, Over};
use crate::error::LabError;
use crate::experiment::{DeviceChoice, Experiment, Plan, TraceDef};
use crate::grid::{Done, PrefaceFn};
use crate::plot::{Chart, Kind, Series};
use crate::report::{Preface, VerdictRow};
use crate::result::CellResult;
use crate::spec::Measure;
use crate::study_def::{PaperSetup, Sensitivity, Vary};

/// The studies built into wafer: `(name, the study file's text)`, the files under
/// `studies/` of the repository.
pub const BUILT_IN: &[(&str, &str)] = &[
    (
        "ts-clock",
        include_str!("../../../../studies/ts-clock.toml"),
    ),
    ("bua", include_str!("../../../../studies/bua.toml")),
    ("craw", include_str!("../../../../studies/craw.toml")),
    (
        "sorted-clock",
        include_str!("../../../../studies/sorted-clock.toml"),
    ),
    ("apu", include_str!("../../../../studies/apu.toml")),
    ("demo", include_str!("../../../../studies/demo.toml")),
];

/// The paper studies `wafer reproduce` offers (the built-in files but the demo).
pub fn paper_names() -> Vec<&'static str> {
    BUILT_IN
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| *n != "demo")
        .collect()
}

/// The note every reproduction prints.
pub const NOTE: &str = "The papers' own traces are not public: wafer runs the papers' designs on stand-in workloads (named in the setup table), so compare trends and verdicts, not exact numbers.";

/// A group of traces as the study runs it.
#[derive(Clone, Debug)]
pub struct Group {
    /// Short name in verdict lines and figure labels.
    pub name: String,
    /// What its workloads differ in from the paper's.
    pub differences: String,
    /// Its traces: located files, or the experiment's own trace definitions.
    pub traces: Vec<TraceDef>,
    /// Its cache sizes (empty: each trace's own, else the experiment's).
    pub sizes: Vec<String>,
    /// Its traces not found here, as the file names them: the group is left out.
    pub missing: Vec<String>,
}

impl Group {
    /// The labels its traces carry in results.
    pub fn labels(&self) -> Vec<String> {
        self.traces.iter().map(TraceDef::label).collect()
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

    /// One line: what it lacks, and the command that fetches it.
    pub fn skipped_line(&self) -> String {
        let how = match crate::trace_folders::fetch_command(self.missing.iter().map(String::as_str))
        {
            Some(cmd) => format!("run `{cmd}` to include it"),
            None => "run from a wafer clone (they are under its traces/)".into(),
        };
        format!(
            "skipped: group {} needs {}, not found; {how}",
            self.name,
            self.missing.join(", ")
        )
    }
}

/// A study with claims: the file as read, its groups located.
#[derive(Clone, Debug)]
pub struct Preset {
    /// Name (the file's `name`).
    pub name: String,
    /// The paper cited in full (empty for a study of no paper).
    pub paper: String,
    /// The paper's setup, if the file gives it.
    pub setup: Option<PaperSetup>,
    /// Its groups of traces, each judged on its own.
    pub groups: Vec<Group>,
    /// Its claims.
    pub claims: Vec<Claim>,
    /// Its sensitivity studies.
    pub sensitivities: Vec<Sensitivity>,
    /// The file: the grid's other settings (policies, devices, aging, ...).
    pub exp: Experiment,
    /// The folder its relative paths resolve in.
    pub base: PathBuf,
    /// The file's text, as `--export` writes it.
    pub text: String,
    /// Where it came from, prefixed to its errors.
    pub source: String,
    /// Replicates asked for on the command line, over the file's.
    pub replicates: Option<u32>,
    /// Measurement views asked for on the command line, over the file's.
    pub measure: Option<Vec<Measure>>,
}

/// The most replicates a quick form runs (fewer if the file asks for fewer).
pub const QUICK_REPLICATES: u32 = 3;

/// Which traces and sizes of each group a run takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pick {
    /// Every trace at its sizes.
    All,
    /// The first trace at its smallest and largest size.
    Quick,
    /// The first trace at its smallest size.
    Smallest,
}

/// The built-in study called `name`.
pub fn find(name: &str) -> Result<Preset, LabError> {
    let Some((n, text)) = BUILT_IN.iter().find(|(n, _)| *n == name) else {
        return Err(LabError::Invalid(format!(
            "unknown paper preset \"{name}\" (known: {}, apu)",
            paper_names().join(", ")
        )));
    };
    Preset::parse(text, &format!("studies/{n}.toml"), Path::new("."))
}

impl Preset {
    /// The study file at `path`.
    pub fn load(path: &Path) -> Result<Preset, LabError> {
        let text = std::fs::read_to_string(path).map_err(|e| LabError::Io {
            path: path.to_path_buf(),
            source: e,
        })?;
        Preset::parse(
            &text,
            &path.display().to_string(),
            path.parent().unwrap_or(Path::new(".")),
        )
    }

    /// The study file `text` (from `source`, its relative paths resolved in `base`).
    pub fn parse(text: &str, source: &str, base: &Path) -> Result<Preset, LabError> {
        let exp: Experiment = toml::from_str(text).map_err(|e| LabError::Config {
            at: source.to_string(),
            msg: e.to_string().trim_end().to_string(),
        })?;
        let mut p = Preset::of(exp, source, base)?;
        p.text = text.to_string();
        Ok(p)
    }

    /// The study of experiment `exp` (read from `source`, relative paths resolved in
    /// `base`): its claims and sensitivity studies checked against its policies and
    /// devices, its groups located.
    pub fn of(exp: Experiment, source: &str, base: &Path) -> Result<Preset, LabError> {
        let err = |key: String, msg: String| LabError::Config {
            at: format!("{source}: {key}"),
            msg,
        };
        if !exp.groups.is_empty() && !exp.traces.is_empty() {
            return Err(err(
                "groups".into(),
                "give either `traces` or `groups`, not both".into(),
            ));
        }
        if let Some(b) = &exp.board {
            // Its workloads, caches and claims are the study's own.
            for (key, given) in [
                ("traces", !exp.traces.is_empty()),
                ("groups", !exp.groups.is_empty()),
                ("policies", !exp.policies.is_empty()),
                ("devices", !exp.devices.is_empty()),
                ("claims", !exp.claims.is_empty()),
                ("sensitivity", !exp.sensitivity.is_empty()),
            ] {
                if given {
                    return Err(err(
                        key.into(),
                        "an on-board cache study (`[board]`) has its own workloads, caches and claims; leave this out".into(),
                    ));
                }
            }
            ApuStudy::of(b, exp.replicates, exp.measure.clone(), false)
                .map_err(|(k, m)| err(k, m))?;
        }
        // A policy missing from this build is left out of the study (said in its
        // comparison); a Python class that cannot be loaded here stops it, saying
        // where it can run.
        let mut labels: Vec<String> = Vec::new();
        for (i, p) in exp.policies.iter().enumerate() {
            match PolicySpec::parse(p) {
                Ok(s) => labels.push(s.label()),
                Err(e) if external::is_external(p) => {
                    return Err(err(format!("policies[{i}]"), e.to_string()))
                }
                Err(_) => {}
            }
        }
        let devices: Vec<&str> = if exp.devices.is_empty() {
            vec!["none"]
        } else {
            exp.devices.iter().map(String::as_str).collect()
        };
        for (i, c) in exp.claims.iter().enumerate() {
            for (key, p) in [("policy", &c.policy), ("baseline", &c.baseline)] {
                if !labels.contains(p) {
                    return Err(err(
                        format!("claims[{i}].{key}"),
                        format!("\"{p}\" is not among `policies` ({})", labels.join(", ")),
                    ));
                }
            }
            if !devices.contains(&c.device.as_str()) {
                return Err(err(
                    format!("claims[{i}].device"),
                    format!(
                        "\"{}\" is not among `devices` ({})",
                        c.device,
                        devices.join(", ")
                    ),
                ));
            }
        }
        for (i, s) in exp.sensitivity.iter().enumerate() {
            if s.claim == 0 || s.claim > exp.claims.len() {
                return Err(err(
                    format!("sensitivity[{i}].claim"),
                    format!(
                        "{} is not a claim's number (1 to {})",
                        s.claim,
                        exp.claims.len()
                    ),
                ));
            }
            if s.points.is_empty() {
                return Err(err(
                    format!("sensitivity[{i}].points"),
                    "at least one point is needed".into(),
                ));
            }
        }
        for (i, g) in exp.groups.iter().enumerate() {
            if g.traces.is_empty() || g.sizes.is_empty() {
                return Err(err(
                    format!("groups[{i}]"),
                    "a group needs at least one trace and one cache size".into(),
                ));
            }
        }
        let groups = if exp.board.is_some() {
            Vec::new()
        } else if exp.groups.is_empty() {
            vec![Group {
                name: "all traces".into(),
                differences: "not stated".into(),
                traces: exp.traces.clone(),
                sizes: Vec::new(),
                missing: Vec::new(),
            }]
        } else {
            exp.groups
                .iter()
                .map(|g| {
                    let mut traces = Vec::new();
                    let mut missing = Vec::new();
                    for t in &g.traces {
                        match crate::trace_folders::locate_trace(t, base) {
                            Ok(p) => traces.push(TraceDef::file(p)),
                            Err(_) => {
                                missing.push(t.clone());
                                traces.push(TraceDef::file(PathBuf::from(t)));
                            }
                        }
                    }
                    Group {
                        name: g.name.clone(),
                        differences: g.differences.clone(),
                        traces,
                        sizes: g.sizes.clone(),
                        missing,
                    }
                })
                .collect()
        };
        Ok(Preset {
            name: exp.name.clone(),
            paper: exp
                .paper
                .as_ref()
                .map_or(String::new(), |p| p.reference.clone()),
            setup: exp.paper.clone(),
            groups,
            claims: exp.claims.clone(),
            sensitivities: exp.sensitivity.clone(),
            text: toml::to_string_pretty(&exp).unwrap_or_default(),
            exp,
            base: base.to_path_buf(),
            source: source.to_string(),
            replicates: None,
            measure: None,
        })
    }

    /// The on-board cache study of a `[board]` file (its quick form if `quick`), with
    /// the replicates and views asked for on the command line over the file's; None
    /// for a grid study.
    pub fn board(&self, quick: bool) -> Result<Option<ApuStudy>, LabError> {
        let Some(b) = &self.exp.board else {
            return Ok(None);
        };
        let quick = quick || self.exp.quick;
        let file = self.exp.replicates;
        let replicates = self.replicates.unwrap_or(if quick {
            file.min(QUICK_REPLICATES)
        } else {
            file
        });
        let measures = self.measure.clone().unwrap_or(self.exp.measure.clone());
        let mut study = ApuStudy::of(b, replicates, measures, quick).map_err(|(key, msg)| {
            LabError::Config {
                at: format!("{}: {key}", self.source),
                msg,
            }
        })?;
        study.paper = self.setup.clone();
        Ok(Some(study))
    }

    /// The title: the name and the paper.
    pub fn title(&self) -> String {
        if self.paper.is_empty() {
            self.name.clone()
        } else {
            format!("{}: {}", self.name, self.paper)
        }
    }

    /// The file as `--export` writes it: its text, marked to run its quick form if
    /// `quick`.
    pub fn export(&self, quick: bool) -> String {
        let mut text = self.text.clone();
        // What was asked for on the command line replaces the file's key.
        if let Some(r) = self.replicates {
            text = replace_key(&text, "replicates", &r.to_string());
        }
        if let Some(m) = &self.measure {
            let names: Vec<String> = m.iter().map(|v| format!("\"{}\"", v.name())).collect();
            text = replace_key(&text, "measure", &format!("[{}]", names.join(", ")));
        }
        if !quick || self.exp.quick {
            return text;
        }
        // Top-level keys go before the first table: after the leading comments.
        let lines: Vec<&str> = text.lines().collect();
        let at = lines
            .iter()
            .position(|l| !(l.starts_with('#') || l.trim().is_empty()))
            .unwrap_or(lines.len());
        let mut out = lines[..at].join("\n");
        if at > 0 {
            out.push('\n');
        }
        out.push_str(if self.exp.board.is_some() {
            "# The quick form: every workload at the smallest and largest cache size, at most\n# 3 replicates (remove this line for the whole study).\nquick = true\n"
        } else {
            "# The quick form: the first trace of each group at its smallest and largest\n# cache size (remove this line for the whole study).\nquick = true\n"
        });
        for l in &lines[at..] {
            out.push_str(l);
            out.push('\n');
        }
        out
    }

    /// Registered policies of the study, and the ones missing from this build.
    pub fn policies(&self) -> (Vec<String>, Vec<String>) {
        self.exp.policies.iter().cloned().partition(|p| {
            if external::is_external(p) {
                // A Python class is never "missing from this build": it loaded
                // or the study was refused ([`Preset::of`]).
                return true;
            }
            registry::find(p.split(':').next().unwrap_or(p)).is_ok()
        })
    }

    /// The trace files its groups that can run here read.
    pub fn trace_files(&self) -> Vec<PathBuf> {
        let mut files = self.exp.trace_files(&self.base);
        for g in self.groups.iter().filter(|g| g.missing.is_empty()) {
            files.extend(g.traces.iter().filter_map(|t| t.path.clone()));
        }
        files
    }

    /// The groups that cannot run here: a group runs only with all its traces, so
    /// that its verdicts are the same wherever it runs.
    pub fn skipped(&self) -> Vec<&Group> {
        self.groups
            .iter()
            .filter(|g| !g.missing.is_empty())
            .collect()
    }

    /// The experiment, with traces located. `quick` (or the file's `quick`) keeps the
    /// design (policies, devices, aging) on the first trace of each group at its
    /// smallest and largest cache size: the form the tests run.
    pub fn plan(&self, quick: bool) -> Result<Plan, LabError> {
        let (have, _) = self.policies();
        if have.is_empty() {
            return Err(LabError::Invalid(format!(
                "none of the policies of study {} is registered in this build",
                self.name
            )));
        }
        self.experiment(
            self.title(),
            have,
            self.exp.devices.clone(),
            if quick || self.exp.quick {
                Pick::Quick
            } else {
                Pick::All
            },
            self.views(),
        )
    }

    /// The measurement views it runs: the command line's, else the file's.
    fn views(&self) -> Vec<Measure> {
        self.measure
            .clone()
            .unwrap_or_else(|| self.exp.measure.clone())
    }

    /// The sensitivity studies' experiments: each claim's policies on the study's
    /// traces and sizes, with each point's device or policy; `quick`: the first trace
    /// of each group at its smallest size (each device point ages a device of its own,
    /// which is most of the time).
    pub fn sensitivity_plans(&self, quick: bool) -> Result<Vec<(Sensitivity, Plan)>, LabError> {
        let mut out = Vec::new();
        for s in &self.sensitivities {
            let c = &self.claims[s.claim - 1];
            let (policies, devices) = match s.vary {
                Vary::Device => (
                    vec![c.policy.clone(), c.baseline.clone()],
                    s.points.iter().map(|(_, d)| d.clone()).collect(),
                ),
                Vary::Policy => (
                    std::iter::once(c.baseline.clone())
                        .chain(s.points.iter().map(|(_, p)| p.clone()))
                        .collect(),
                    vec![c.device.clone()],
                ),
                Vary::Baseline => (
                    std::iter::once(c.policy.clone())
                        .chain(s.points.iter().map(|(_, p)| p.clone()))
                        .collect(),
                    vec![c.device.clone()],
                ),
            };
            let plan = self.experiment(
                format!("{}: where \"{}\" holds, by {}", self.name, c.text, s.axis),
                policies,
                devices,
                if quick || self.exp.quick {
                    Pick::Smallest
                } else {
                    Pick::All
                },
                // Where a claim holds is asked of the study's first view.
                self.views().into_iter().take(1).collect(),
            )?;
            out.push((s.clone(), plan));
        }
        Ok(out)
    }

    /// The study's experiment with these policies and devices, on the traces and
    /// sizes `pick` takes from each group that can run.
    fn experiment(
        &self,
        name: String,
        policies: Vec<String>,
        devices: Vec<String>,
        pick: Pick,
        measure: Vec<Measure>,
    ) -> Result<Plan, LabError> {
        let skipped = self.skipped();
        if skipped.len() == self.groups.len() {
            let lines: Vec<String> = skipped.iter().map(|g| g.skipped_line()).collect();
            return Err(LabError::MissingTrace(format!(
                "{}: no group of traces can run here ({})",
                self.name,
                lines.join("; ")
            )));
        }
        let mut defs = Vec::new();
        for g in self.groups.iter().filter(|g| g.missing.is_empty()) {
            let traces = match pick {
                Pick::All => &g.traces[..],
                Pick::Quick | Pick::Smallest => &g.traces[..1],
            };
            for t in traces {
                let mut def = t.clone();
                let sizes = match (&g.sizes, &t.cache_sizes) {
                    (s, _) if !s.is_empty() => s.clone(),
                    (_, Some(s)) => s.clone(),
                    _ => self.exp.cache_sizes.clone(),
                };
                let picked = match pick {
                    Pick::All => sizes,
                    Pick::Quick => sizes
                        .first()
                        .into_iter()
                        .chain(sizes.last().filter(|_| sizes.len() > 1))
                        .cloned()
                        .collect(),
                    Pick::Smallest => sizes.first().into_iter().cloned().collect(),
                };
                def.cache_sizes = Some(picked);
                defs.push(def);
            }
        }
        let replicates = self.replicates.unwrap_or(match pick {
            Pick::All => self.exp.replicates,
            Pick::Quick | Pick::Smallest => self.exp.replicates.min(QUICK_REPLICATES),
        });
        let exp = Experiment {
            name,
            replicates,
            traces: defs,
            policies,
            devices,
            measure,
            paper: None,
            groups: Vec::new(),
            claims: Vec::new(),
            sensitivity: Vec::new(),
            board: None,
            quick: false,
            ..self.exp.clone()
        };
        // A file's own traces resolve beside it, as `wafer run` resolves them.
        exp.plan(&self.source, &self.base)
    }

    /// The groups that have cells in `results`, each with its cells.
    fn groups_in(&self, results: &[CellResult]) -> Vec<(&Group, Vec<CellResult>)> {
        self.groups
            .iter()
            .map(|g| (g, g.of(results)))
            .filter(|(_, rs)| !rs.is_empty())
            .collect()
    }

    /// The groups that have cells in `results`, each split by measurement view where
    /// the cells hold more than one (`measure = ["as-captured", "steady"]`): a claim
    /// is judged under each view on its own.
    fn judged_sets(
        &self,
        results: &[CellResult],
    ) -> Vec<(&Group, Option<Measure>, Vec<CellResult>)> {
        let mut out = Vec::new();
        for (g, rs) in self.groups_in(results) {
            let mut views: Vec<Measure> = Vec::new();
            for r in rs.iter().filter(|r| r.params.device != "none") {
                if !views.contains(&r.params.measure) {
                    views.push(r.params.measure);
                }
            }
            if views.len() < 2 {
                out.push((g, None, rs));
                continue;
            }
            views.sort_by_key(|m| *m != Measure::AsCaptured);
            for v in views {
                let of_view = rs
                    .iter()
                    .filter(|r| r.params.device == "none" || r.params.measure == v)
                    .cloned()
                    .collect();
                out.push((g, Some(v), of_view));
            }
        }
        out
    }

    /// The claim of `c` at sensitivity point `point`.
    fn at_point(c: &Claim, s: &Sensitivity, point: &str) -> Claim {
        match s.vary {
            Vary::Device => Claim {
                device: point.to_string(),
                ..c.clone()
            },
            Vary::Policy => Claim {
                policy: point.to_string(),
                ..c.clone()
            },
            Vary::Baseline => Claim {
                baseline: point.to_string(),
                ..c.clone()
            },
        }
    }

    /// The claim of `s` measured at each of its points: a line per point with each
    /// group's per-trace figures and verdict by the usual rule, the preset's own point
    /// and the paper's figure marked.
    pub fn sensitivity_lines(&self, s: &Sensitivity, results: &[CellResult]) -> Vec<String> {
        let c = &self.claims[s.claim - 1];
        let mut out = vec![format!(
            "where it holds: {} ({} vs {}, {}), by {}; the preset runs {}; the paper's setup {}; the paper's figure {}",
            c.text,
            c.policy,
            c.baseline,
            c.metric.name(),
            s.axis,
            s.study_point,
            s.paper_point.as_deref().unwrap_or("not given"),
            c.paper.map_or("none (a direction)".into(), |p| c.show(p))
        )];
        let in_results = self.groups_in(results);
        for (value, point) in &s.points {
            let at = Self::at_point(c, s, point);
            let mut groups = Vec::new();
            for (g, rs) in &in_results {
                let j = at.judge_group(rs);
                let (m, v, why) = (j.measured, j.verdict, j.why);
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
        let c = &self.claims[s.claim - 1];
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
            x_label: s.axis.clone(),
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
                verdicts.push(format!(
                    "{}{} {}",
                    o.group.name,
                    o.view_words(),
                    o.judged.verdict.name()
                ));
                for (t, f, _) in &o.judged.measured.per_trace {
                    let Some(f) = f else { continue };
                    let pt = (i as f64, c.change_pct(*f));
                    let name = match o.view {
                        Some(v) if v != Measure::AsCaptured => format!("{t} ({})", v.name()),
                        _ => t.clone(),
                    };
                    match series.iter_mut().find(|x| x.name == name) {
                        Some(x) => x.points.push(pt),
                        None => series.push(Series {
                            name,
                            points: vec![pt],
                        }),
                    }
                }
            }
            // Lines of at most 16 characters fit a slot of four claims flat.
            // Policy names without their parameters: the key under the plot gives
            // them whole.
            let name = |p: &str| p.split(':').next().unwrap_or(p).to_string();
            let (policy, baseline) = (name(&c.policy), name(&c.baseline));
            let pair = if policy.len() + baseline.len() < 14 {
                format!("{policy}/{baseline}")
            } else {
                format!("{policy}\n/{baseline}")
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
        let Some(setup) = &self.setup else {
            return Vec::new();
        };
        let ran: Vec<String> = plan.traces.iter().map(|(t, _)| t.label()).collect();
        // Per group: its traces in this plan and their sizes.
        let mut workloads = Vec::new();
        let mut sizes = Vec::new();
        for g in &self.groups {
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
        let devices: Vec<String> = plan
            .devices
            .iter()
            .map(|d| match d {
                DeviceChoice::Device(_, dev) => describe_device(dev),
                DeviceChoice::None => "none (cache only)".into(),
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
                &setup.workload,
                format!(
                    "stand-ins, each group judged on its own: {}",
                    workloads.join("; ")
                ),
            ),
            row("policies", &setup.policies, self.policy_words(plan)),
            row("cache sizes", &setup.sizes, sizes.join("; ")),
            row("device and FTL", &setup.device, devices.join("; ")),
            row("aging", &setup.aging, aging),
            row(
                "measurement window",
                "not stated",
                format!(
                    "{}; {}",
                    plan.exp
                        .measure
                        .iter()
                        .map(|m| match m {
                            Measure::Steady => "steady state: each cell's after-cache stream replayed on its aged device pass after pass until the device settles (docs/experiments.md, \"Steady state\"), then one pass measured",
                            Measure::AsCaptured => "as captured: device counters reset after aging, so the aging residue (blocks aging left partly valid) is met during the measurement, as on a used card, and not counted itself",
                        })
                        .collect::<Vec<_>>()
                        .join("; every claim judged under each view apart; "),
                    if plan.exp.options.warmup == 0 {
                        "the whole trace from a cold cache (no cache warm-up)".to_string()
                    } else {
                        format!("after a cache warm-up of {} accesses", plan.exp.options.warmup)
                    }
                ),
            ),
            row(
                "end of trace",
                "not stated",
                if plan.exp.options.flush_at_end {
                    "dirty pages written at the end (lifetime view); erases before the flush reported too".into()
                } else {
                    "dirty pages left in the cache are not written".into()
                },
            ),
            row(
                "write miss",
                &setup.write_miss,
                if plan.exp.options.write_miss_fetch {
                    "the page is read from storage".into()
                } else {
                    "written in the cache without a read".into()
                },
            ),
            row("metric", &setup.metric, metrics.join("; ")),
        ]
    }

    /// The policies as the grid runs them, each with the parameters the file sets,
    /// and the sensitivity studies that vary one.
    fn policy_words(&self, plan: &Plan) -> String {
        let mut s = plan
            .policies
            .iter()
            .map(|p| p.label())
            .collect::<Vec<_>>()
            .join(", ");
        s.push_str(" (parameters not written are wafer's defaults, docs/cache.md)");
        for sens in &self.sensitivities {
            let points: Vec<&str> = sens.points.iter().map(|(v, _)| v.as_str()).collect();
            s.push_str(&format!(
                "; sensitivity study {}: {} at {}",
                sens.slug,
                sens.axis,
                points.join(", ")
            ));
        }
        s
    }

    /// The setup table as text lines.
    pub fn setup_lines(&self, plan: &Plan) -> Vec<String> {
        let table = self.setup_table(plan);
        if table.is_empty() {
            return Vec::new();
        }
        let mut out = vec!["setup (aspect: the paper | wafer):".to_string()];
        for [a, p, w] in table {
            out.push(format!("  {a}: {p} | {w}"));
        }
        out
    }

    /// Each claim judged on each group of traces that has cells in `results`, claim
    /// by claim in the preset's order: what the printed comparison, the verdict table
    /// and the claims figure are written from.
    pub fn outcomes(&self, results: &[CellResult]) -> Vec<Outcome<'_>> {
        let groups = self.judged_sets(results);
        let mut out = Vec::new();
        for (i, c) in self.claims.iter().enumerate() {
            for (g, view, rs) in &groups {
                out.push(Outcome {
                    claim: i,
                    group: g,
                    view: *view,
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
                out.push(format!(
                    "  on {} ({}){}:",
                    g.name,
                    g.labels().join(", "),
                    o.view_words()
                ));
                out.extend(
                    c.lines(&o.judged, &g.differences)
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
                    group: format!(
                        "{} ({}){}",
                        o.group.name,
                        figs_or_labels(o.group, m),
                        o.view_words()
                    ),
                    paper,
                    wafer: match (m.value, m.range) {
                        (None, _) => "n/a".into(),
                        (Some(v), None) => c.plain(v),
                        (Some(v), Some((lo, hi))) => format!(
                            "{} (median of {} replicates; {} to {})",
                            c.plain(v),
                            o.judged.replicates.len(),
                            c.plain(lo),
                            c.plain(hi)
                        ),
                    },
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
fn figs_or_labels(g: &Group, m: &Measured) -> String {
    let ran: Vec<&str> = m.per_trace.iter().map(|(t, _, _)| t.as_str()).collect();
    if ran.is_empty() {
        g.labels().join(", ")
    } else {
        ran.join(", ")
    }
}

/// A claim judged on one group of traces.
#[derive(Clone, Debug)]
pub struct Outcome<'a> {
    /// Index of the claim in the study's claims.
    pub claim: usize,
    /// The group.
    pub group: &'a Group,
    /// The measurement view judged, where the study measures more than one.
    pub view: Option<Measure>,
    /// The judgement.
    pub judged: Judged,
}

impl Outcome<'_> {
    /// The view in words after a group's name (empty with one view).
    pub fn view_words(&self) -> String {
        match self.view {
            None => String::new(),
            Some(Measure::AsCaptured) => ", as captured".into(),
            Some(Measure::Steady) => ", steady state".into(),
        }
    }
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

/// What a study run leaves: its cells and its verdicts.
#[derive(Clone, Debug)]
pub struct StudyDone {
    /// The main grid's cells (none for an on-board cache study: see `rows`).
    pub results: Vec<CellResult>,
    /// Every cell's row, as the results tables hold it.
    pub rows: Vec<crate::parquet_file::Row>,
    /// The verdict table: a row per claim and group.
    pub verdicts: Vec<VerdictRow>,
    /// The comparison as printed (claims, figures, verdicts).
    pub compared: Vec<String>,
}

/// How a front end runs one plan into a folder with a report preface: its progress,
/// its Ctrl-C and the summary it prints (`wafer run`'s and the Python runner's).
pub type RunPlan<'a, E> = dyn FnMut(Plan, &Path, Box<PrefaceFn>) -> Result<Done, E> + 'a;

/// How a front end runs an on-board cache study into a folder: its progress, its
/// Ctrl-C and the summary it prints.
pub type RunBoard<'a, E> = dyn FnMut(&Arc<ApuStudy>, &Path) -> Result<ApuOutcome, E> + 'a;

/// Run `study` (its quick form if `quick`) into `out` through `run`; print its setup
/// table to `print`, then each sensitivity study, then each claim's comparison and
/// verdict. What `wafer reproduce`, `wafer run` on a file with claims, `wafer demo`
/// and Python's `wafer.reproduce` all do.
pub fn reproduce<E>(
    study: &Arc<Preset>,
    out: &Path,
    quick: bool,
    print: &mut dyn Write,
    run: &mut RunPlan<'_, E>,
    run_board: &mut RunBoard<'_, E>,
) -> Result<StudyDone, E>
where
    E: From<LabError>,
{
    if let Some(board) = study.board(quick)? {
        say(print, &study.title())?;
        say(print, &format!("note: {}", apu::NOTE))?;
        for l in board.setup_lines().iter().chain(&board.requests_lines()) {
            say(print, l)?;
        }
        let done = run_board(&Arc::new(board), out)?;
        say(print, "")?;
        for l in &done.comparison {
            say(print, l)?;
        }
        return Ok(StudyDone {
            results: Vec::new(),
            rows: done.results.iter().map(apu::ApuResult::row).collect(),
            verdicts: done.verdicts,
            compared: done.comparison,
        });
    }
    // Taken before any trace is read, and held to the end: the claims figure is
    // written after the grid's outputs.
    let _lock = crate::store::Store::new(out).claim(&study.trace_files())?;
    let plan = study.plan(quick)?;
    let setup = study.setup_table(&plan);
    // A group whose traces are not here is left out, saying how to fetch them.
    let skipped: Vec<String> = study.skipped().iter().map(|g| g.skipped_line()).collect();
    say(print, &study.title())?;
    if study.setup.is_some() {
        say(print, &format!("note: {NOTE}"))?;
    }
    for l in study.setup_lines(&plan).iter().chain(&skipped) {
        say(print, l)?;
    }
    // Where each claim holds runs first, each study an experiment of its own in its
    // own folder through the same runner, so that the study's report shows them.
    let mut sensitivity = Vec::new();
    for (s, plan) in study.sensitivity_plans(quick)? {
        let dir = out.join("sensitivity").join(&s.slug);
        say(
            print,
            &format!("sensitivity: {} ({})", s.axis, dir.display()),
        )?;
        let (st, sp) = (Arc::clone(study), s.clone());
        let preface = move |results: &[CellResult]| Preface {
            lines: st.sensitivity_lines(&sp, results),
            after: vec![st.sensitivity_chart(&sp, results)],
            ..Preface::default()
        };
        let done = run(plan, &dir, Box::new(preface))?;
        let results = done.outcome.results;
        let lines = study.sensitivity_lines(&s, &results);
        let chart = study.sensitivity_chart(&s, &results);
        let fig = crate::figure_file::write_figure(&dir, "where-it-holds", &chart)?;
        sensitivity.push((lines, chart, fig));
        say(print, "")?;
    }
    let extra = sensitivity.clone();
    let st = Arc::clone(study);
    // The report opens with the verdict table and the claims figure; the setup is a
    // table, and the comparison as printed is kept whole below them.
    let preface = move |results: &[CellResult]| {
        let mut p = st.preface(&setup, results);
        p.lines.extend(skipped.iter().cloned());
        for (sens, chart, _) in &extra {
            p.printed.extend(sens.iter().cloned());
            p.after.push(chart.clone());
        }
        p
    };
    let done = run(plan, out, Box::new(preface))?;
    let results = done.outcome.results;
    let compared = study.compare(&results);
    say(print, "")?;
    for l in &compared {
        say(print, l)?;
    }
    let chart = study.claims_chart(&results);
    let fig = crate::figure_file::write_figure(&out.join("figures"), "claims", &chart)?;
    say(print, &format!("claims at a glance: {}", fig.display()))?;
    for (lines, _, fig) in sensitivity {
        say(print, "")?;
        for l in lines {
            say(print, &l)?;
        }
        say(print, &format!("figure: {}", fig.display()))?;
    }
    Ok(StudyDone {
        verdicts: study.verdict_rows(&results),
        rows: results.iter().map(|r| r.row(true)).collect(),
        results,
        compared,
    })
}

/// `text` (a study file) with its top-level `key` set to `value`: the key's line
/// dropped, and `key = value` put before the first line that is not a comment.
fn replace_key(text: &str, key: &str, value: &str) -> String {
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with(key) && t[key.len()..].trim_start().starts_with('='))
        })
        .collect();
    let at = kept
        .iter()
        .position(|l| !(l.starts_with('#') || l.trim().is_empty()))
        .unwrap_or(kept.len());
    let mut out: Vec<String> = kept[..at].iter().map(|l| l.to_string()).collect();
    out.push(format!("{key} = {value}"));
    out.extend(kept[at..].iter().map(|l| l.to_string()));
    out.join("\n") + "\n"
}

/// One line of a study's printed comparison.
fn say(print: &mut dyn Write, line: &str) -> Result<(), LabError> {
    writeln!(print, "{line}").map_err(|e| LabError::io(Path::new("standard output"), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built_in() -> Vec<Preset> {
        BUILT_IN.iter().map(|(n, _)| find(n).unwrap()).collect()
    }

    #[test]
    fn built_in_studies_name_known_devices_and_sizes() {
        for p in built_in() {
            for d in &p.exp.devices {
                assert!(
                    d == "none" || wafer_ftl::Device::from_profile(d).is_ok(),
                    "{d}"
                );
            }
            for g in &p.exp.groups {
                for s in &g.sizes {
                    assert!(wafer_trace::units::CacheSize::parse(s).is_ok(), "{s}");
                }
            }
            // A policy point's spec is the label the results carry.
            for s in p.sensitivities.iter().filter(|s| s.vary != Vary::Device) {
                for (_, spec) in &s.points {
                    let label = PolicySpec::parse(spec).unwrap().label();
                    assert_eq!(&label, spec);
                }
            }
            assert!(p.setup.is_some(), "{}", p.name);
        }
        // apu is an on-board cache study; the others are grids.
        assert!(find("apu").unwrap().board(false).unwrap().is_some());
        assert!(find("craw").unwrap().board(false).unwrap().is_none());
        assert!(find("craww").is_err());
    }

    #[test]
    fn claims_figure_labels_stay_flat() {
        for p in built_in() {
            let chart = p.claims_chart(&[]);
            let labels = chart.categories.clone().unwrap();
            assert!(labels.len() <= 4, "{}", p.name);
            for l in &labels {
                // The longest policy name, sorted-clock-wsr, on a line of its own.
                assert!(l.lines().all(|x| x.chars().count() <= 16), "{l}");
            }
            assert_eq!(chart.notes.len(), p.claims.len() + 1);
            assert!(!chart.svg().contains("rotate(-40)"), "{}", p.name);
        }
    }

    #[test]
    fn every_device_study_ages_and_flushes() {
        for p in built_in() {
            let device = p.exp.devices.iter().any(|d| d != "none");
            assert_eq!(p.exp.aging.is_some(), device, "{}", p.name);
            assert_eq!(p.exp.options.flush_at_end, device, "{}", p.name);
            if let Some(a) = &p.exp.aging {
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
                .map(|c| (c.device.clone(), c.paper))
        };
        // Fig. 8b: 29% vs CFLRU on FAST; Fig. 9d: 53% vs FAB on the page-level FTL.
        assert_eq!(on("cflru"), Some(("microsd-16g".into(), Some(0.29))));
        assert_eq!(on("fab"), Some(("page-16g".into(), Some(0.53))));
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

    const ONE_CLAIM: &str = r#"name = "t"
policies = ["lru", "clock"]
cache_sizes = ["10%"]
[[traces]]
path = "x.wtr"
[[claims]]
text = "c"
metric = "erases"
form = "reduction"
"#;

    #[test]
    fn a_claim_on_a_policy_or_device_not_in_the_grid_is_refused() {
        let refused = |claim: &str| {
            Preset::parse(&format!("{ONE_CLAIM}{claim}\n"), "t.toml", Path::new("."))
                .unwrap_err()
                .to_string()
        };
        let e = refused("policy = \"clock\"\nbaseline = \"fab\"");
        assert!(
            e.contains("t.toml: claims[0].baseline") && e.contains("\"fab\" is not among"),
            "{e}"
        );
        let e = refused("policy = \"clock\"\nbaseline = \"lru\"\ndevice = \"microsd-16g\"");
        assert!(e.contains("claims[0].device"), "{e}");
        let e = refused("policy = \"clock\"\nbaseline = \"lru\"\nmetric2 = 1");
        assert!(e.contains("metric2"), "{e}");
        assert!(Preset::parse(
            &format!("{ONE_CLAIM}policy = \"clock\"\nbaseline = \"lru\"\n"),
            "t.toml",
            Path::new(".")
        )
        .is_ok());
    }

    #[test]
    fn the_quick_export_runs_the_quick_form() {
        let p = find("craw").unwrap();
        let text = p.export(true);
        let q = Preset::parse(&text, "craw.toml", Path::new(".")).unwrap();
        assert!(q.exp.quick && !p.exp.quick);
        assert_eq!(
            Experiment {
                quick: false,
                ..q.exp.clone()
            },
            p.exp,
            "the export changes nothing but `quick`"
        );
        assert_eq!(p.export(false), p.text);
    }
}
