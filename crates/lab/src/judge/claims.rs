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

use crate::result::CellResult;
use crate::spec::Measure;
pub use crate::study_def::{Claim, Form, Metric, Over};

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

/// The thresholds of the verdict rule, named once (`docs/experiments.md`,
/// "Verdicts").
pub mod rule {
    /// A policy whose metric is within 0.5% of the baseline's (`|ln(A/B)|` below this)
    /// is no different from it: such a cell is not counted favourable, and a figure
    /// inside the band is "no difference", never a direction.
    pub const DEAD_BAND: f64 = 0.005;
    /// Erases of a FAST card that are full merges both policies make (the smaller of
    /// the two counts) above this share of the baseline's erases: the comparison is
    /// decided by what aging left on the card, which neither policy causes, so it is
    /// "not measurable" (docs/findings.md, section 1).
    pub const RESIDUE_SHARE: f64 = 0.5;
    /// Share of compared cells that must go the paper's way for "supported": more
    /// than half, so one favourable outlier cell never carries an "up to" claim.
    pub const MOST_CELLS: f64 = 0.5;
    /// A timed device busy this share of the time or more is saturated: its queue
    /// grows without bound and its response time says how long the run was, not how
    /// fast the device served; a comparison against it is "not measurable".
    pub const SATURATED: f64 = 0.99;
}

/// The outcomes of the rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The effect shows, in the paper's direction, at least half as large, in most
    /// cells and every replicate.
    Supported,
    /// The effect goes the other way on every trace, in every replicate.
    Contradicted,
    /// Neither: the traces or the replicates disagree, or the effect is smaller.
    Inconclusive,
    /// The effect is inside the dead band, or its range over the replicates spans
    /// no effect.
    NoDifference,
    /// The comparison is decided by what the policies do not cause (the aging
    /// residue), or has no denominator.
    NotMeasurable,
}

impl Verdict {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Supported => "supported",
            Verdict::Contradicted => "contradicted",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NoDifference => "no difference",
            Verdict::NotMeasurable => "not measurable",
        }
    }
}

/// What wafer measured for a claim on one metric: one replicate's figures, or the
/// medians over the replicates.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// Per trace: its label, its figure (None if no pair could be compared) and the
    /// number of pairs compared.
    pub per_trace: Vec<(String, Option<f64>, usize)>,
    /// The group's figure: the per-trace figures' geometric mean (as ratios of the
    /// policy's metric to the baseline's); over replicates, their median.
    pub value: Option<f64>,
    /// Pairs with no effect (zero denominator), as `trace @ cache`.
    pub not_comparable: Vec<String>,
    /// Every compared pair's effect, trace by trace (every replicate's): the cells
    /// behind the figures, so a reader can see how many of them lean the paper's way.
    pub effects: Vec<f64>,
    /// Over replicates: the smallest and largest group figure.
    pub range: Option<(f64, f64)>,
}

/// One replicate (one aging seed) of a claim's judgement.
#[derive(Clone, Debug, PartialEq)]
pub struct Replicate {
    /// The aging seed (None for cells without a device).
    pub seed: Option<u64>,
    /// Its figures.
    pub measured: Measured,
    /// Its verdict by the rule on its own.
    pub verdict: Verdict,
}

/// A claim judged on one group of traces. The printed comparison
/// ([`Claim::lines`]) and the report's verdict table are both written from it, so
/// they cannot disagree.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    /// wafer's figures on the claim's metric: medians over the replicates.
    pub measured: Measured,
    /// Each replicate's figures and verdict.
    pub replicates: Vec<Replicate>,
    /// The verdict by the rule.
    pub verdict: Verdict,
    /// Why, in words.
    pub why: String,
    /// The view printed beside the claim's metric, with its name: erases without the
    /// end flush, or the sum of flash latencies beside elapsed time.
    pub beside: Option<(&'static str, Measured)>,
}

impl Judged {
    /// Compared cells (trace x cache size x replicate) and how many of them are
    /// favourable.
    pub fn cells(&self, claim: &Claim) -> (usize, usize) {
        let e = &self.measured.effects;
        (e.iter().filter(|&&v| claim.favourable(v)).count(), e.len())
    }
}

/// Why figures at `loads` (traces or loads) are left out: the baseline's device ran
/// saturated there ([`rule::SATURATED`]).
pub fn saturated_note(loads: &[String]) -> String {
    format!(
        "the baseline's device is saturated (utilization at least {:.0}%) at {}",
        rule::SATURATED * 100.0,
        loads.join(", ")
    )
}

/// The geometric mean of `q` (ratios, each at least 0); 0 if any is 0.
pub fn geometric_mean(q: &[f64]) -> Option<f64> {
    if q.is_empty() {
        return None;
    }
    if q.iter().any(|&x| x <= 0.0) {
        return Some(0.0);
    }
    Some((q.iter().map(|x| x.ln()).sum::<f64>() / q.len() as f64).exp())
}

/// The median of `v` (the mean of the middle two for an even count).
pub fn median(v: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = v.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The aging seed of cell `r` (None without aging).
fn seed_of(r: &CellResult) -> Option<u64> {
    r.params.aging.as_ref().map(|a| a.seed)
}

/// `results` by aging seed, in order of first appearance: one replicate each.
fn split_by_seed(results: &[CellResult]) -> Vec<(Option<u64>, Vec<CellResult>)> {
    let mut out: Vec<(Option<u64>, Vec<CellResult>)> = Vec::new();
    for r in results {
        let s = seed_of(r);
        match out.iter_mut().find(|(x, _)| *x == s) {
            Some((_, rs)) => rs.push(r.clone()),
            None => out.push((s, vec![r.clone()])),
        }
    }
    if out.is_empty() {
        out.push((None, Vec::new()));
    }
    out
}

impl Claim {
    /// The policy's metric over the baseline's for effect `v`.
    fn ratio_of(&self, v: f64) -> f64 {
        match self.form {
            Form::Reduction => 1.0 - v,
            Form::Ratio if v > 0.0 => 1.0 / v,
            Form::Ratio => f64::INFINITY,
        }
    }

    /// The effect of `q`, the policy's metric over the baseline's.
    fn effect_of(&self, q: f64) -> f64 {
        match self.form {
            Form::Reduction => 1.0 - q,
            Form::Ratio if q > 0.0 => 1.0 / q,
            Form::Ratio => f64::INFINITY,
        }
    }

    /// The figures `v` (effects of this claim's form) aggregated as the rule does:
    /// the geometric mean of their ratios of the policy's metric to the baseline's.
    pub fn aggregate(&self, v: &[f64]) -> Option<f64> {
        let q: Vec<f64> = v.iter().map(|&x| self.ratio_of(x)).collect();
        geometric_mean(&q).map(|q| self.effect_of(q))
    }

    /// Whether effect `v` goes the paper's way, beyond the dead band.
    pub fn favourable(&self, v: f64) -> bool {
        self.ratio_of(v).ln() < -rule::DEAD_BAND
    }

    /// Whether effect `v` goes against the paper's way, beyond the dead band.
    pub fn unfavourable(&self, v: f64) -> bool {
        self.ratio_of(v).ln() > rule::DEAD_BAND
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

    /// The cells of `results` that pair with this claim's policy and baseline, with
    /// each pair's metric values `(policy, baseline)` (same trace, cache size,
    /// device, measurement and aging seed).
    fn pairs<'a>(
        &self,
        metric: Metric,
        results: &'a [CellResult],
    ) -> Vec<(&'a CellResult, &'a CellResult, f64, f64)> {
        let mut out = Vec::new();
        for a in results
            .iter()
            .filter(|r| r.params.policy == self.policy && r.params.device == self.device)
        {
            let b = results.iter().find(|b| {
                b.params.policy == self.baseline
                    && b.params.device == self.device
                    && b.params.cache == a.params.cache
                    && b.params.trace == a.params.trace
                    && b.params.measure == a.params.measure
                    && seed_of(b) == seed_of(a)
            });
            if let (Some(b), Some(x)) = (b, metric.of(a)) {
                if let Some(y) = metric.of(b) {
                    out.push((a, b, x, y));
                }
            }
        }
        out
    }

    /// wafer's figures for this claim on `metric` over the cells of one replicate:
    /// per trace, the effects over cache sizes reduced as the paper words the claim
    /// (the largest for "up to", else the geometric mean of the ratios); the group's
    /// figure is the per-trace figures' geometric mean.
    fn measure_one(&self, metric: Metric, results: &[CellResult]) -> Measured {
        let mut traces: Vec<String> = Vec::new();
        for r in results {
            if !traces.contains(&r.params.trace) {
                traces.push(r.params.trace.clone());
            }
        }
        let pairs = self.pairs(metric, results);
        let mut per_trace = Vec::new();
        let mut not_comparable = Vec::new();
        let mut all = Vec::new();
        let mut trace_q = Vec::new();
        for t in traces {
            let mut q = Vec::new();
            for (a, _, x, y) in pairs.iter().filter(|p| p.0.params.trace == t) {
                let ok = match self.form {
                    Form::Reduction => *y > 0.0,
                    Form::Ratio => *x > 0.0 && *y > 0.0,
                };
                if ok {
                    q.push(x / y);
                } else {
                    not_comparable.push(format!("{t} @ {}", a.params.cache));
                }
            }
            let figure = match (q.is_empty(), self.over) {
                (true, _) => None,
                (false, Over::UpTo) => q.iter().copied().reduce(f64::min),
                (false, Over::Mean) => geometric_mean(&q),
            };
            if let Some(f) = figure {
                trace_q.push(f);
            }
            all.extend(q.iter().map(|&x| self.effect_of(x)));
            per_trace.push((t, figure.map(|f| self.effect_of(f)), q.len()));
        }
        Measured {
            per_trace,
            value: geometric_mean(&trace_q).map(|q| self.effect_of(q)),
            not_comparable,
            effects: all,
            range: None,
        }
    }

    /// wafer's figures for this claim's pairs on `metric`: each replicate (aging
    /// seed) measured on its own, then per trace and for the group the median over
    /// the replicates, with the group figure's range.
    pub fn measure(&self, metric: Metric, results: &[CellResult]) -> Measured {
        let reps: Vec<Measured> = split_by_seed(results)
            .into_iter()
            .map(|(_, rs)| self.measure_one(metric, &rs))
            .collect();
        self.combine(&reps)
    }

    /// The medians of replicates `reps`.
    pub fn combine(&self, reps: &[Measured]) -> Measured {
        if reps.len() == 1 {
            return reps[0].clone();
        }
        let mut per_trace: Vec<(String, Option<f64>, usize)> = Vec::new();
        for m in reps {
            for (t, _, _) in &m.per_trace {
                if !per_trace.iter().any(|(x, _, _)| x == t) {
                    per_trace.push((t.clone(), None, 0));
                }
            }
        }
        for (t, fig, n) in per_trace.iter_mut() {
            let figs: Vec<f64> = reps
                .iter()
                .flat_map(|m| m.per_trace.iter().filter(|x| &x.0 == t))
                .filter_map(|x| x.1)
                .collect();
            *n = reps
                .iter()
                .flat_map(|m| m.per_trace.iter().filter(|x| &x.0 == t))
                .map(|x| x.2)
                .sum();
            *fig = median(&figs);
        }
        let values: Vec<f64> = reps.iter().filter_map(|m| m.value).collect();
        let mut not_comparable: Vec<String> =
            reps.iter().flat_map(|m| m.not_comparable.clone()).collect();
        not_comparable.dedup();
        Measured {
            per_trace,
            value: median(&values),
            not_comparable,
            effects: reps.iter().flat_map(|m| m.effects.clone()).collect(),
            range: values
                .iter()
                .copied()
                .reduce(f64::min)
                .zip(values.iter().copied().reduce(f64::max)),
        }
    }

    /// The share of the baseline's erases that are FAST full merges both policies
    /// make (the smaller count of each pair), over every pair of cells measured as
    /// captured; None when the pairs erase nothing or have no FAST card.
    pub fn residue_share(&self, results: &[CellResult]) -> Option<f64> {
        let (mut common, mut erases) = (0u64, 0u64);
        for (a, b, _, _) in self.pairs(Metric::Erases, results) {
            // Preconditioning spends what aging left: a steady-state cell's merges are
            // the stream's own.
            if a.params.measure != Measure::AsCaptured {
                continue;
            }
            let (Some(fa), Some(fb)) = (&a.ftl, &b.ftl) else {
                continue;
            };
            common += fa.full_merges.min(fb.full_merges);
            erases += fb.erases;
        }
        (erases > 0 && common > 0).then(|| common as f64 / erases as f64)
    }

    /// The verdict where the baseline ran on a saturated device (utilization at least
    /// [`rule::SATURATED`]) at `saturated`, the loads or traces so marked: figures
    /// there are left out; with none left, "not measurable".
    pub fn judge_unsaturated(&self, m: &Measured, saturated: &[String]) -> (Verdict, String) {
        if saturated.is_empty() {
            return self.judge(m);
        }
        let mut kept = m.clone();
        kept.per_trace.retain(|(t, _, _)| !saturated.contains(t));
        let figures: Vec<f64> = kept.per_trace.iter().filter_map(|t| t.1).collect();
        let note = saturated_note(saturated);
        if figures.is_empty() {
            return (Verdict::NotMeasurable, note);
        }
        kept.value = self.aggregate(&figures);
        let (v, why) = self.judge(&kept);
        (v, format!("{why}; left out: {note}"))
    }

    /// The verdict on `m`, one replicate's figures (or their medians), and why.
    pub fn judge(&self, m: &Measured) -> (Verdict, String) {
        let figures: Vec<f64> = m.per_trace.iter().filter_map(|t| t.1).collect();
        let Some(value) = m.value else {
            if !m.not_comparable.is_empty() {
                return (
                    Verdict::NotMeasurable,
                    format!(
                        "a zero denominator: the {} of every pair is 0 ({})",
                        self.metric.name(),
                        m.not_comparable.join(", ")
                    ),
                );
            }
            return (
                Verdict::Inconclusive,
                format!(
                    "nothing to compare ({} or {} not run on {})",
                    self.policy, self.baseline, self.device
                ),
            );
        };
        let favourable = figures.iter().filter(|&&v| self.favourable(v)).count();
        let against = figures.iter().filter(|&&v| self.unfavourable(v)).count();
        let k = m.effects.iter().filter(|&&v| self.favourable(v)).count();
        let n = m.effects.len();
        let most = k as f64 > rule::MOST_CELLS * n as f64;
        let half = self.half_of_paper();
        if favourable == 0 && against == 0 {
            (
                Verdict::NoDifference,
                format!(
                    "{} on every trace is within the {:.1}% dead band",
                    self.show(value),
                    rule::DEAD_BAND * 100.0
                ),
            )
        } else if favourable == figures.len()
            && (value >= half || self.paper.is_none())
            && self.favourable(value)
            && most
        {
            (
                Verdict::Supported,
                format!(
                    "favourable on every trace and in {k} of {n} cells, {}",
                    match self.paper {
                        Some(p) =>
                            format!("{} against the paper's {}", self.show(value), self.show(p)),
                        None => format!(
                            "{} (the paper gives a direction, no figure)",
                            self.show(value)
                        ),
                    }
                ),
            )
        } else if favourable == 0 && (k as f64) < rule::MOST_CELLS * n as f64 {
            (
                Verdict::Contradicted,
                format!(
                    "{} does not beat {} on any trace ({}; {k} of {n} cells favourable)",
                    self.policy,
                    self.baseline,
                    self.show(value)
                ),
            )
        } else if favourable < figures.len() {
            (
                Verdict::Inconclusive,
                format!(
                    "the traces or cells disagree: favourable on {favourable} of {} traces, in {k} of {n} cells",
                    figures.len()
                ),
            )
        } else if !most {
            (
                Verdict::Inconclusive,
                format!(
                    "favourable on every trace but in only {k} of {n} cells: the figure rests on few cells"
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

    /// The judgement on one group of traces (`results` holds its cells only): each
    /// replicate judged on its own, the claim's metric as medians over them, the view
    /// printed beside it and the verdict by the rule (docs/experiments.md,
    /// "Verdicts").
    pub fn judge_group(&self, results: &[CellResult]) -> Judged {
        let replicates: Vec<Replicate> = split_by_seed(results)
            .into_iter()
            .map(|(seed, rs)| {
                let measured = self.measure_one(self.metric, &rs);
                let verdict = self.judge(&measured).0;
                Replicate {
                    seed,
                    measured,
                    verdict,
                }
            })
            .collect();
        let measured = self.combine(
            &replicates
                .iter()
                .map(|r| r.measured.clone())
                .collect::<Vec<_>>(),
        );
        let (verdict, why) = self.judge_replicates(&measured, &replicates, results);
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
            replicates,
            verdict,
            why,
            beside,
        }
    }

    /// The verdict over replicates: not measurable where the aging residue decides;
    /// else [`Claim::over_replicates`].
    fn judge_replicates(
        &self,
        m: &Measured,
        replicates: &[Replicate],
        results: &[CellResult],
    ) -> (Verdict, String) {
        if matches!(self.metric, Metric::Erases | Metric::ErasesBeforeFlush) {
            if let Some(share) = self.residue_share(results) {
                if share > rule::RESIDUE_SHARE {
                    return (
                        Verdict::NotMeasurable,
                        format!(
                            "aging residue: {:.0}% of {}'s erases are full merges {} makes as well (above {:.0}%)",
                            share * 100.0,
                            self.baseline,
                            self.policy,
                            rule::RESIDUE_SHARE * 100.0
                        ),
                    );
                }
            }
        }
        self.over_replicates(m, replicates, "aging seed")
    }

    /// The verdict on the medians `m` of `replicates` (each judged on its own): no
    /// difference where the replicates' range reaches the dead band; else the
    /// replicates' common verdict, and "inconclusive (split)" where they differ, each
    /// replicate named by its `seed` (what the replicates differ in).
    pub fn over_replicates(
        &self,
        m: &Measured,
        replicates: &[Replicate],
        seed: &str,
    ) -> (Verdict, String) {
        let (verdict, why) = self.judge(m);
        if replicates.len() < 2 || m.value.is_none() {
            return (verdict, why);
        }
        let seeds = |v: Verdict| -> Vec<String> {
            replicates
                .iter()
                .filter(|r| r.verdict == v)
                .map(|r| r.seed.map_or("-".into(), |s| s.to_string()))
                .collect()
        };
        if let Some((lo, hi)) = m.range {
            // The range in ratios: does it reach the dead band (or cross it)?
            let (a, b) = (self.ratio_of(lo).ln(), self.ratio_of(hi).ln());
            let (qlo, qhi) = (a.min(b), a.max(b));
            if qlo <= rule::DEAD_BAND && qhi >= -rule::DEAD_BAND {
                return (
                    Verdict::NoDifference,
                    format!(
                        "the {} replicates' range {}..{} reaches no effect",
                        replicates.len(),
                        self.show(lo),
                        self.show(hi)
                    ),
                );
            }
        }
        let first = replicates[0].verdict;
        if replicates.iter().all(|r| r.verdict == first) {
            if first == verdict {
                return (
                    verdict,
                    format!("{why}; all {} replicates", replicates.len()),
                );
            }
            return (
                first,
                format!(
                    "all {} replicates {}; the median {}",
                    replicates.len(),
                    first.name(),
                    self.show(m.value.unwrap_or(f64::NAN))
                ),
            );
        }
        let mut parts = Vec::new();
        for v in [
            Verdict::Supported,
            Verdict::Inconclusive,
            Verdict::Contradicted,
            Verdict::NoDifference,
            Verdict::NotMeasurable,
        ] {
            let s = seeds(v);
            if !s.is_empty() {
                parts.push(format!("{} with {seed} {}", v.name(), s.join(", ")));
            }
        }
        (
            Verdict::Inconclusive,
            format!("split over the replicates: {}", parts.join("; ")),
        )
    }

    /// The judgement on one group of traces as printed (`results` holds its cells
    /// only).
    pub fn judged(&self, results: &[CellResult], workload: &str) -> Vec<String> {
        self.lines(&self.judge_group(results), workload)
    }

    /// The printed lines of judgement `j`: wafer's figures per trace (medians over
    /// the replicates), the group's figure with its range, the cells favourable, each
    /// replicate, the view beside, the differences that remain (the claim's and the
    /// workload's) and the verdict.
    pub fn lines(&self, j: &Judged, workload: &str) -> Vec<String> {
        let m = &j.measured;
        let over = match self.over {
            Over::UpTo => "largest over cache sizes",
            Over::Mean => "geometric mean over cache sizes",
        };
        let mut out = Vec::new();
        let traces = |m: &Measured| {
            m.per_trace
                .iter()
                .map(|(t, v, n)| match v {
                    Some(v) => format!("{t} {} ({n} cells)", self.show(*v)),
                    None => format!("{t} n/a"),
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        let value = |m: &Measured| {
            let v = m.value.map_or("n/a".into(), |v| self.show(v));
            match m.range {
                Some((lo, hi)) => format!("{v} [{}..{}]", self.show(lo), self.show(hi)),
                None => v,
            }
        };
        let reps = j.replicates.len();
        let (k, n) = j.cells(self);
        out.push(format!(
            "  wafer: {} on {} ({over}{}): {}; geometric mean over traces {}; {k} of {n} cells favourable",
            self.metric.name(),
            self.device,
            if reps > 1 {
                format!(", median over {reps} replicates [range]")
            } else {
                String::new()
            },
            traces(m),
            value(m)
        ));
        if reps > 1 {
            let each: Vec<String> = j
                .replicates
                .iter()
                .map(|r| {
                    format!(
                        "{}: {} {}",
                        r.seed.map_or("-".into(), |s| s.to_string()),
                        r.measured.value.map_or("n/a".into(), |v| self.show(v)),
                        r.verdict.name()
                    )
                })
                .collect();
            out.push(format!("         by aging seed: {}", each.join("; ")));
        }
        if let Some((name, raw)) = &j.beside {
            out.push(format!(
                "         {name}: {}; geometric mean {}",
                traces(raw),
                value(raw)
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
    use wafer_ftl::aging::Aging;

    use crate::result::FtlSummary;
    use crate::spec::RunSpec;

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

    fn measured(c: &Claim, figures: &[Option<f64>]) -> Measured {
        let per_trace: Vec<(String, Option<f64>, usize)> = figures
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("t{i}"), *v, 1))
            .collect();
        let known: Vec<f64> = figures.iter().flatten().copied().collect();
        Measured {
            per_trace,
            value: c.aggregate(&known),
            not_comparable: Vec::new(),
            effects: known,
            range: None,
        }
    }

    #[test]
    fn the_rule_reads_as_documented() {
        let c = claim(Form::Reduction, Some(0.30));
        let v = |f: &[Option<f64>]| c.judge(&measured(&c, f)).0;
        assert_eq!(v(&[Some(0.20), Some(0.16)]), Verdict::Supported);
        assert_eq!(v(&[Some(0.20), Some(0.05)]), Verdict::Inconclusive);
        assert_eq!(v(&[Some(0.40), Some(-0.01)]), Verdict::Inconclusive);
        assert_eq!(v(&[Some(-0.20), Some(0.0)]), Verdict::Contradicted);
        assert_eq!(v(&[None]), Verdict::Inconclusive);
        // A ratio: 3.7 times less needs at least 2.35 times.
        let r = claim(Form::Ratio, Some(3.7));
        assert_eq!(r.judge(&measured(&r, &[Some(2.4)])).0, Verdict::Supported);
        assert_eq!(
            r.judge(&measured(&r, &[Some(1.5)])).0,
            Verdict::Inconclusive
        );
        assert_eq!(
            r.judge(&measured(&r, &[Some(0.9)])).0,
            Verdict::Contradicted
        );
        // A claim of direction only: anything favourable beyond the dead band.
        let d = claim(Form::Reduction, None);
        assert_eq!(d.judge(&measured(&d, &[Some(0.01)])).0, Verdict::Supported);
    }

    #[test]
    fn ratios_aggregate_by_their_geometric_mean() {
        let r = claim(Form::Ratio, Some(10.0));
        // The arithmetic mean of 1.38x and 17.8x is 9.59x; the geometric, 4.96x.
        let g = r.aggregate(&[1.38, 17.8]).unwrap();
        assert!((g - (1.38f64 * 17.8).sqrt()).abs() < 1e-12);
        assert_eq!(r.show(g), "4.96x");
        assert_eq!(
            r.judge(&measured(&r, &[Some(1.38), Some(17.8)])).0,
            Verdict::Inconclusive
        );
        // Reductions aggregate as the ratios 1 - x: 50% and 0% are 29.3%, not 25%.
        let c = claim(Form::Reduction, None);
        let g = c.aggregate(&[0.5, 0.0]).unwrap();
        assert!((g - (1.0 - 0.5f64.sqrt())).abs() < 1e-12);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }

    #[test]
    fn an_effect_inside_the_dead_band_is_no_difference() {
        let r = claim(Form::Ratio, Some(3.7));
        let m = measured(&r, &[Some(0.9997), Some(1.002)]);
        assert_eq!(r.judge(&m).0, Verdict::NoDifference);
        let (k, n) = Judged {
            measured: m,
            replicates: Vec::new(),
            verdict: Verdict::NoDifference,
            why: String::new(),
            beside: None,
        }
        .cells(&r);
        assert_eq!((k, n), (0, 2), "a 0.9997x cell is not favourable");
    }

    fn replicate(c: &Claim, seed: u64, figure: f64) -> Replicate {
        let measured = measured(c, &[Some(figure)]);
        Replicate {
            seed: Some(seed),
            verdict: c.judge(&measured).0,
            measured,
        }
    }

    #[test]
    fn a_claim_that_flips_between_seeds_is_split_never_supported_or_contradicted() {
        // The paper's 29%: 14.0% and 14.2% pass half of it, 13.2% does not.
        let c = claim(Form::Reduction, Some(0.28));
        let reps = [
            replicate(&c, 7, 0.140),
            replicate(&c, 8, 0.132),
            replicate(&c, 9, 0.142),
        ];
        assert_eq!(
            reps.iter().map(|r| r.verdict).collect::<Vec<_>>(),
            [
                Verdict::Supported,
                Verdict::Inconclusive,
                Verdict::Supported
            ]
        );
        let all: Vec<Measured> = reps.iter().map(|r| r.measured.clone()).collect();
        let m = c.combine(&all);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(close(m.value.unwrap(), 0.140));
        let (lo, hi) = m.range.unwrap();
        assert!(close(lo, 0.132) && close(hi, 0.142));
        let (v, why) = c.judge_replicates(&m, &reps, &[]);
        assert_eq!(v, Verdict::Inconclusive);
        assert!(
            why.contains("split")
                && why.contains("supported with aging seed 7, 9")
                && why.contains("inconclusive with aging seed 8"),
            "{why}"
        );
        // Every replicate agreeing gives their verdict.
        let reps = [replicate(&c, 7, 0.20), replicate(&c, 8, 0.22)];
        let all: Vec<Measured> = reps.iter().map(|r| r.measured.clone()).collect();
        let (v, why) = c.judge_replicates(&c.combine(&all), &reps, &[]);
        assert_eq!(v, Verdict::Supported, "{why}");
    }

    #[test]
    fn a_replicate_range_that_spans_no_effect_is_no_difference() {
        let c = claim(Form::Reduction, None);
        let reps = [replicate(&c, 1, 0.03), replicate(&c, 2, -0.02)];
        let all: Vec<Measured> = reps.iter().map(|r| r.measured.clone()).collect();
        let (v, why) = c.judge_replicates(&c.combine(&all), &reps, &[]);
        assert_eq!(v, Verdict::NoDifference, "{why}");
        assert!(why.contains("reaches no effect"), "{why}");
    }

    fn cell(policy: &str, erases: u64, full_merges: u64) -> CellResult {
        CellResult {
            id: policy.into(),
            params: RunSpec {
                policy: policy.into(),
                device: "d".into(),
                aging: Some(Aging::default()),
                ..crate::spec::example()
            },
            capacity_pages: 256,
            footprint_pages: 1000,
            elapsed_s: 0.0,
            cache: Default::default(),
            ftl: Some(FtlSummary {
                kind: "fast".into(),
                erases,
                erases_before_flush: erases,
                full_merges,
                ..FtlSummary::default()
            }),
            write_pattern: Vec::new(),
        }
    }

    #[test]
    fn erases_that_are_the_aging_residue_are_not_measurable() {
        let c = claim(Form::Reduction, Some(0.29));
        // 100 and 130 erases, 90 full merges in both: 90 of the baseline's 130 are
        // merges neither policy causes.
        let rs = [cell("a", 100, 90), cell("b", 130, 95)];
        assert!((c.residue_share(&rs).unwrap() - 90.0 / 130.0).abs() < 1e-12);
        let j = c.judge_group(&rs);
        assert_eq!(j.verdict, Verdict::NotMeasurable, "{}", j.why);
        assert!(j.why.contains("aging residue: 69%"), "{}", j.why);
        // Few common merges: judged as usual (23% fewer erases: supported).
        let rs = [cell("a", 100, 10), cell("b", 130, 95)];
        assert_eq!(c.judge_group(&rs).verdict, Verdict::Supported);
    }

    #[test]
    fn a_saturated_baseline_is_not_measurable() {
        let r = claim(Form::Ratio, Some(10.0));
        let m = measured(&r, &[Some(20.0), Some(3.0)]);
        let (v, why) = r.judge_unsaturated(&m, &["t0".into(), "t1".into()]);
        assert_eq!(v, Verdict::NotMeasurable);
        assert!(why.contains("saturated"), "{why}");
        // One load saturated: judged on the other.
        let (v, why) = r.judge_unsaturated(&m, &["t0".into()]);
        assert_eq!(v, Verdict::Inconclusive, "{why}");
        assert!(why.contains("left out") && why.contains("t0"), "{why}");
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
