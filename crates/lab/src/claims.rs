//! A paper's claim, what wafer measured for it, and the verdict
//! (`docs/experiments.md`, "Verdicts").
//!
//! **Sign convention.** A claim says a proposed policy A beats a baseline B on a metric
//! where lower is better. Each pair of cells that differ only in the policy (same
//! trace, cache size and device) gives one effect: `1 - A/B` for a reduction ("by
//! 30%"), `B/A` for a ratio ("3.7 times less"). An effect is *favourable* (the paper's
//! direction) when it is above 0 (reduction) or above 1 (ratio).
//!
//! **Aggregation.** Per trace, the effects over cache sizes are reduced as the paper
//! words the claim: the largest for "up to", the mean otherwise; wafer's figure is the
//! mean of the per-trace figures (traces are never pooled cell by cell). A pair whose
//! baseline metric is 0 (or, for a ratio, whose policy metric is 0) has no effect; it
//! is counted and reported, never dropped silently.
//!
//! **Verdict.** *Supported*: every trace's figure is favourable and wafer's figure is
//! at least half the paper's (a reduction of at least p/2; a ratio of at least
//! 1 + (p-1)/2). *Contradicted*: no trace's figure is favourable. *Inconclusive*
//! otherwise (the traces disagree, or the direction holds with a smaller effect), or
//! when nothing could be compared. The rule is fixed here, not per claim.

use serde::{Deserialize, Serialize};

use crate::result::CellResult;

/// How a comparison reads a cell (lower is better for every metric). In a study file:
/// `elapsed`, `device-time`, `erases`, `erases-before-flush`, `cost-time`,
/// `pages-written`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Elapsed time of the after-cache replay on the timed device.
    Elapsed,
    /// Device busy time (flash operation latencies summed).
    DeviceTime,
    /// Block erases on the device, end flush included (the lifetime view).
    Erases,
    /// Block erases before the end flush began.
    ErasesBeforeFlush,
    /// Cost-model I/O time (reads x t_r + writes x t_w).
    CostTime,
    /// Pages the cache wrote to storage (write-backs + padding).
    PagesWritten,
}

impl Metric {
    /// The metric of cell `r`, if it has it.
    pub fn of(self, r: &CellResult) -> Option<f64> {
        match self {
            Metric::Elapsed => r.ftl.as_ref().map(|f| f.elapsed_ns as f64),
            Metric::DeviceTime => r.ftl.as_ref().map(|f| f.busy_ns as f64),
            Metric::Erases => r.ftl.as_ref().map(|f| f.erases as f64),
            Metric::ErasesBeforeFlush => r.ftl.as_ref().map(|f| f.erases_before_flush as f64),
            Metric::CostTime => Some(r.cache.io_time_ns as f64),
            Metric::PagesWritten => Some(r.write_backs() as f64),
        }
    }

    /// A word for figure labels.
    pub fn short(self) -> &'static str {
        match self {
            Metric::Elapsed => "elapsed",
            Metric::DeviceTime => "device time",
            Metric::Erases => "erases",
            Metric::ErasesBeforeFlush => "erases",
            Metric::CostTime => "I/O time",
            Metric::PagesWritten => "writes",
        }
    }

    /// Its name in the printed comparison.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Elapsed => "elapsed time (timed device, one request at a time)",
            Metric::DeviceTime => "device time (sum of flash latencies)",
            Metric::Erases => "erases (end flush included)",
            Metric::ErasesBeforeFlush => "erases without the end flush",
            Metric::CostTime => "I/O time (cost model)",
            Metric::PagesWritten => "pages written to storage",
        }
    }
}

/// How a claim is expressed (`reduction` or `ratio` in a study file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    /// `1 - A/B` ("outperforms by x%").
    Reduction,
    /// `B/A` ("x times less").
    Ratio,
}

/// How the paper reduces its figures over cache sizes (`up-to` or `mean` in a study
/// file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Over {
    /// "up to": the largest effect.
    UpTo,
    /// "on average" or unqualified: the mean effect.
    Mean,
}

/// One claim of a paper and how wafer checks it: a `[[claims]]` entry of a study or
/// experiment file (`docs/experiments.md`, "Claims").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The paper's sentence, abridged, with its figure or section.
    pub text: String,
    /// The proposed policy (a policy label of the grid, as results carry it).
    pub policy: String,
    /// The baseline.
    pub baseline: String,
    /// The metric (lower is better).
    pub metric: Metric,
    /// How the claim is expressed.
    pub form: Form,
    /// How the paper reduces over cache sizes.
    #[serde(default = "mean")]
    pub over: Over,
    /// The paper's figure: 0.29 for "29% less", 3.7 for "3.7 times less"; None for
    /// a claim of direction only (no figure given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paper: Option<f64>,
    /// Device column to read (`none` for cache-only metrics).
    #[serde(default = "no_device")]
    pub device: String,
    /// What still differs from the paper's setup for this claim.
    #[serde(default = "no_differences")]
    pub differences: String,
}

fn mean() -> Over {
    Over::Mean
}
fn no_device() -> String {
    "none".into()
}
fn no_differences() -> String {
    "none stated".into()
}

/// The three verdicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The effect shows, in the paper's direction, at least half as large.
    Supported,
    /// The effect goes the other way in every trace.
    Contradicted,
    /// Neither.
    Inconclusive,
}

impl Verdict {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Supported => "supported",
            Verdict::Contradicted => "contradicted",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// What wafer measured for a claim on one metric.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// Per trace: its label, its figure (None if no pair could be compared) and the
    /// number of pairs compared.
    pub per_trace: Vec<(String, Option<f64>, usize)>,
    /// Mean of the per-trace figures.
    pub value: Option<f64>,
    /// Pairs with no effect (zero denominator), as `trace @ cache`.
    pub not_comparable: Vec<String>,
    /// Every compared pair's effect, trace by trace: the cells behind the figures,
    /// so a reader can see how many of them lean the paper's way.
    pub effects: Vec<f64>,
}

/// A claim judged on one group of traces. The printed comparison
/// ([`Claim::lines`]) and the report's verdict table are both written from it, so
/// they cannot disagree.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    /// wafer's figures on the claim's metric.
    pub measured: Measured,
    /// The verdict by the rule.
    pub verdict: Verdict,
    /// Why, in words.
    pub why: String,
    /// The view printed beside the claim's metric, with its name: erases without the
    /// end flush, or the sum of flash latencies beside elapsed time.
    pub beside: Option<(&'static str, Measured)>,
}

impl Judged {
    /// Compared cells (trace x cache size pairs) and how many of them are favourable.
    pub fn cells(&self, claim: &Claim) -> (usize, usize) {
        let e = &self.measured.effects;
        (e.iter().filter(|&&v| claim.favourable(v)).count(), e.len())
    }
}

impl Claim {
    /// Whether effect `v` goes the paper's way.
    pub fn favourable(&self, v: f64) -> bool {
        match self.form {
            Form::Reduction => v > 0.0,
            Form::Ratio => v > 1.0,
        }
    }

    /// The smallest figure the rule calls "at least half the paper's" (for a claim
    /// of direction only, anything favourable).
    pub fn half_of_paper(&self) -> f64 {
        match (self.form, self.paper) {
            (Form::Reduction, Some(p)) => p / 2.0,
            (Form::Ratio, Some(p)) => 1.0 + (p - 1.0) / 2.0,
            (Form::Reduction, None) => 0.0,
            (Form::Ratio, None) => 1.0,
        }
    }

    /// The paper's figure as printed.
    pub fn paper_figure(&self) -> String {
        self.paper
            .map_or("a direction, no figure".into(), |p| self.show(p))
    }

    /// wafer's figures for this claim's pairs on `metric`.
    pub fn measure(&self, metric: Metric, results: &[CellResult]) -> Measured {
        let mut traces: Vec<String> = Vec::new();
        for r in results {
            if !traces.contains(&r.params.trace) {
                traces.push(r.params.trace.clone());
            }
        }
        let mut per_trace = Vec::new();
        let mut not_comparable = Vec::new();
        let mut all = Vec::new();
        for t in traces {
            let mut effects = Vec::new();
            for a in results.iter().filter(|r| {
                r.params.trace == t
                    && r.params.policy == self.policy
                    && r.params.device == self.device
            }) {
                let b = results.iter().find(|b| {
                    b.params.policy == self.baseline
                        && b.params.device == self.device
                        && b.params.cache == a.params.cache
                        && b.params.trace == t
                });
                let (Some(x), Some(y)) = (metric.of(a), b.and_then(|b| metric.of(b))) else {
                    continue;
                };
                let effect = match self.form {
                    Form::Reduction if y > 0.0 => Some(1.0 - x / y),
                    Form::Ratio if x > 0.0 => Some(y / x),
                    _ => None,
                };
                match effect {
                    Some(e) => effects.push(e),
                    None => not_comparable.push(format!("{t} @ {}", a.params.cache)),
                }
            }
            let figure = match (effects.is_empty(), self.over) {
                (true, _) => None,
                (false, Over::UpTo) => effects.iter().copied().reduce(f64::max),
                (false, Over::Mean) => Some(effects.iter().sum::<f64>() / effects.len() as f64),
            };
            per_trace.push((t, figure, effects.len()));
            all.extend(effects);
        }
        let figures: Vec<f64> = per_trace.iter().filter_map(|t| t.1).collect();
        let value =
            (!figures.is_empty()).then(|| figures.iter().sum::<f64>() / figures.len() as f64);
        Measured {
            per_trace,
            value,
            not_comparable,
            effects: all,
        }
    }

    /// The verdict on `m` (this claim's own metric), and why.
    pub fn judge(&self, m: &Measured) -> (Verdict, String) {
        let figures: Vec<f64> = m.per_trace.iter().filter_map(|t| t.1).collect();
        let Some(value) = m.value else {
            return (
                Verdict::Inconclusive,
                format!(
                    "nothing to compare ({} or {} not run on {}, or every baseline value is 0)",
                    self.policy, self.baseline, self.device
                ),
            );
        };
        let favourable = figures.iter().filter(|&&v| self.favourable(v)).count();
        let half = self.half_of_paper();
        if favourable == figures.len() && (value >= half || self.paper.is_none()) {
            (
                Verdict::Supported,
                format!(
                    "favourable on every trace, {} against the paper's {}",
                    self.show(value),
                    self.paper_figure()
                ),
            )
        } else if favourable == 0 {
            (
                Verdict::Contradicted,
                format!(
                    "{} does not beat {} on any trace ({})",
                    self.policy,
                    self.baseline,
                    self.show(value)
                ),
            )
        } else if favourable < figures.len() {
            (
                Verdict::Inconclusive,
                format!(
                    "the traces disagree: favourable on {favourable} of {}",
                    figures.len()
                ),
            )
        } else {
            (
                Verdict::Inconclusive,
                format!(
                    "same direction, smaller: {} against the paper's {} (the rule needs {})",
                    self.show(value),
                    self.paper_figure(),
                    self.show(half)
                ),
            )
        }
    }

    /// A figure in the claim's form.
    pub fn show(&self, v: f64) -> String {
        match self.form {
            Form::Reduction => format!("{:+.1}%", v * 100.0),
            Form::Ratio => format!("{v:.2}x"),
        }
    }

    /// The claim and the paper's figure, printed once above each group's judgement.
    pub fn header(&self) -> Vec<String> {
        vec![
            format!("claim: {}", self.text),
            format!(
                "  paper: {} vs {}, {}: {}",
                self.policy,
                self.baseline,
                self.metric.name(),
                self.paper_figure()
            ),
        ]
    }

    /// The judgement on one group of traces (`results` holds its cells only): the
    /// claim's metric, the view printed beside it and the verdict.
    pub fn judge_group(&self, results: &[CellResult]) -> Judged {
        let measured = self.measure(self.metric, results);
        let (verdict, why) = self.judge(&measured);
        let beside = match self.metric {
            Metric::Erases => Some((
                "without the end flush",
                self.measure(Metric::ErasesBeforeFlush, results),
            )),
            Metric::Elapsed => Some((
                "sum of flash latencies",
                self.measure(Metric::DeviceTime, results),
            )),
            _ => None,
        };
        Judged {
            measured,
            verdict,
            why,
            beside,
        }
    }

    /// The judgement on one group of traces as printed (`results` holds its cells
    /// only): wafer's figures per trace, the end-flush view for erases, the sum of
    /// flash latencies beside elapsed time, the differences that remain (the claim's
    /// and the workload's) and the verdict.
    pub fn judged(&self, results: &[CellResult], workload: &str) -> Vec<String> {
        self.lines(&self.judge_group(results), workload)
    }

    /// The printed lines of judgement `j`.
    pub fn lines(&self, j: &Judged, workload: &str) -> Vec<String> {
        let m = &j.measured;
        let over = match self.over {
            Over::UpTo => "largest over cache sizes",
            Over::Mean => "mean over cache sizes",
        };
        let mut out = Vec::new();
        let traces = |m: &Measured| {
            m.per_trace
                .iter()
                .map(|(t, v, n)| match v {
                    Some(v) => format!("{t} {} ({n} sizes)", self.show(*v)),
                    None => format!("{t} n/a"),
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        out.push(format!(
            "  wafer: {} on {} ({over}): {}; mean over traces {}",
            self.metric.name(),
            self.device,
            traces(m),
            m.value.map_or("n/a".into(), |v| self.show(v))
        ));
        if let Some((name, raw)) = &j.beside {
            out.push(format!(
                "         {name}: {}; mean {}",
                traces(raw),
                raw.value.map_or("n/a".into(), |v| self.show(v))
            ));
        }
        if !m.not_comparable.is_empty() {
            out.push(format!(
                "  not comparable (a zero denominator of {}): {}",
                self.metric.name(),
                m.not_comparable.join(", ")
            ));
        }
        out.push(format!(
            "  setup differences: {}; workload: {workload}",
            self.differences
        ));
        out.push(format!("  verdict: {} ({})", j.verdict.name(), j.why));
        out
    }

    /// Effect `v` in plain words, as the proposed policy's metric against the
    /// baseline's: `29.0% lower`, `2.02x higher`. A reduction below -100% is no
    /// reduction but a multiple (the policy's metric more than twice the baseline's),
    /// so it is written as one.
    pub fn plain(&self, v: f64) -> String {
        // The policy's metric over the baseline's.
        let r = match self.form {
            Form::Reduction => 1.0 - v,
            Form::Ratio if v > 0.0 => 1.0 / v,
            Form::Ratio => f64::INFINITY,
        };
        plain_ratio(r, self.form)
    }

    /// Effect `v` as the change of the policy's metric against the baseline's, in %:
    /// one scale for reductions and ratios, bounded by -100% on the paper's side
    /// (below 0) and open on the other.
    pub fn change_pct(&self, v: f64) -> f64 {
        match self.form {
            Form::Reduction => -v * 100.0,
            Form::Ratio => (1.0 / v - 1.0) * 100.0,
        }
    }
}

/// `r` (the policy's metric over the baseline's) in words: a share lower or higher
/// below 2x, a multiple from there (and for ratio claims throughout).
fn plain_ratio(r: f64, form: Form) -> String {
    if !r.is_finite() {
        return "n/a".into();
    }
    if r == 1.0 {
        return "equal".into();
    }
    match form {
        Form::Ratio if r < 1.0 => format!("{:.2}x lower", 1.0 / r),
        _ if r >= 2.0 || form == Form::Ratio => format!("{r:.2}x higher"),
        _ if r < 1.0 => {
            let p = (1.0 - r) * 100.0;
            // Rounding must not print a reduction to zero that did not happen.
            if p > 99.9 && r > 0.0 {
                "more than 99.9% lower".into()
            } else {
                format!("{p:.1}% lower")
            }
        }
        _ => format!("{:.1}% higher", (r - 1.0) * 100.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(form: Form, paper: Option<f64>) -> Claim {
        Claim {
            text: "A beats B".into(),
            policy: "a".into(),
            baseline: "b".into(),
            metric: Metric::Erases,
            form,
            over: Over::Mean,
            paper,
            device: "d".into(),
            differences: String::new(),
        }
    }

    fn measured(figures: &[Option<f64>]) -> Measured {
        let per_trace: Vec<(String, Option<f64>, usize)> = figures
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("t{i}"), *v, 1))
            .collect();
        let known: Vec<f64> = figures.iter().flatten().copied().collect();
        Measured {
            per_trace,
            value: (!known.is_empty()).then(|| known.iter().sum::<f64>() / known.len() as f64),
            not_comparable: Vec::new(),
            effects: known,
        }
    }

    #[test]
    fn the_rule_reads_as_documented() {
        let c = claim(Form::Reduction, Some(0.30));
        let v = |f: &[Option<f64>]| c.judge(&measured(f)).0;
        assert_eq!(v(&[Some(0.20), Some(0.16)]), Verdict::Supported);
        assert_eq!(v(&[Some(0.20), Some(0.05)]), Verdict::Inconclusive);
        assert_eq!(v(&[Some(0.40), Some(-0.01)]), Verdict::Inconclusive);
        assert_eq!(v(&[Some(-0.20), Some(0.0)]), Verdict::Contradicted);
        assert_eq!(v(&[None]), Verdict::Inconclusive);
        // A ratio: 3.7 times less needs at least 2.35 times.
        let r = claim(Form::Ratio, Some(3.7));
        assert_eq!(r.judge(&measured(&[Some(2.4)])).0, Verdict::Supported);
        assert_eq!(r.judge(&measured(&[Some(1.5)])).0, Verdict::Inconclusive);
        assert_eq!(r.judge(&measured(&[Some(0.9)])).0, Verdict::Contradicted);
        // A claim of direction only: anything favourable on every trace.
        let d = claim(Form::Reduction, None);
        assert_eq!(d.judge(&measured(&[Some(0.01)])).0, Verdict::Supported);
    }

    #[test]
    fn effects_read_in_plain_words() {
        let c = claim(Form::Reduction, None);
        assert_eq!(c.plain(0.29), "29.0% lower");
        assert_eq!(c.plain(-0.103), "10.3% higher");
        // "-102%" is no reduction: the policy's metric is 2.02 times the baseline's.
        assert_eq!(c.plain(-1.02), "2.02x higher");
        assert_eq!(c.plain(0.9995), "more than 99.9% lower");
        assert_eq!(c.plain(1.0), "100.0% lower");
        assert!((c.change_pct(-1.02) - 102.0).abs() < 1e-9);
        let r = claim(Form::Ratio, Some(3.7));
        assert_eq!(r.plain(3.7), "3.70x lower");
        assert_eq!(r.plain(0.5), "2.00x higher");
        assert!((r.change_pct(4.0) + 75.0).abs() < 1e-9);
    }
}
