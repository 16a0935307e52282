//! The figures of an experiment, drawn from the stored results.
//!
//! One figure per trace (and per device where the device matters):
//! * `hit-ratio`: hit ratio vs cache size per policy (paper 000 Fig. 6, 002 Fig. 10;
//!   paper 000 = TS-CLOCK: D. H. Kang, C. Min, Y. I. Eom, "An Efficient Buffer
//!   Replacement Algorithm for NAND Flash Storage Devices", IEEE MASCOTS 2014; paper 002
//!   = CRAW: H. Lee, H. Bahn, K. G. Shin, "Page Replacement for Write References in
//!   NAND Flash Based Virtual Memory Systems", JCSE 8(3), 2014).
//! * `write-backs`: pages written to storage (write-backs + padding) vs cache size.
//! * `io-time`: estimated storage time vs cache size: the device's flash busy time, or
//!   the read/write cost model without a device (paper 002 Fig. 11).
//! * `io-time-vs-clock`: that time divided by CLOCK's at the same size (paper 002
//!   Fig. 12); drawn when `clock` is among the policies.
//! * `write-backs-relative`: pages written to storage divided by the baseline
//!   policy's at the same size (see below).
//! * `erases`: block erases per policy and size on each device (paper 000 Figs. 8-9).
//! * `erases-relative`: block erases divided by the baseline policy's at the same
//!   size, on each device.
//! * `waf`: write amplification vs cache size on each device.
//! * `block-utilization`: write operations (write-stream bursts, `wafer_cache::metrics`)
//!   per block-utilization range, (0, 10%] to (90, 100%], at the largest cache size
//!   (paper 000 Fig. 5): counts, so a policy that writes fewer, fuller bursts shows
//!   both.
//! * `block-utilization-pages`: the same ranges weighted by pages: the share of each
//!   policy's written pages (distinct pages per burst) that went out in bursts of
//!   that utilization; shares, so policies writing different amounts compare.
//! * `io-counts`: read I/Os (page and padding reads) and write I/Os (after merging)
//!   per policy at the largest cache size (paper 000 Fig. 7).
//! * `write-pattern`: page number over time of the before-cache writes and of each
//!   policy's after-cache writes, at the smallest cache size (paper 000 Fig. 10); one
//!   panel (file) each. Points are an evenly spaced sample of at most 3000 writes.
//! * `areas`: the policy's own series (CRAW's area sizes) over time at the largest
//!   cache size (paper 002 Fig. 15), for policies that expose one.
//!
//! Cache metrics do not depend on the device, so cache-only figures use the first
//! device column.
//!
//! Axes: a chart over cache sizes starts its y axis at 0 unless the values lie within
//! a narrow band ([`crate::plot::starts_at_zero`]); then it spans the data and says
//! so. Where policies differ by a few percent, the `-relative` figures show the same
//! counts divided by a baseline policy's, which reads the difference directly (0.95 =
//! 5% fewer) and cancels the scale of the trace; the absolute figures stay beside
//! them. The baseline is LRU when the plan runs it (the reference the flash-aware
//! policies are measured against), else the plan's first policy; the figures need at
//! least two policies.

use crate::experiment::Plan;
use crate::plot::{spans_decades, starts_at_zero, Chart, Kind, Series};
use crate::result::CellResult;
use crate::result::TraceInfo;
use wafer_cache::metrics::UTILIZATION_RANGES;

/// One drawn figure.
#[derive(Clone, Debug)]
pub struct Figure {
    /// File stem (`hit-ratio-telegram`).
    pub stem: String,
    /// Kind (first column of [`crate::experiment::FIGURES`]).
    pub kind: &'static str,
    /// The chart.
    pub chart: Chart,
    /// The label of the trace it draws (the report groups figures by it).
    pub trace: String,
}

fn slug(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    out.trim_matches('_').to_string()
}

/// The [`slug`]s of `names`, in order, made distinct: names that share a slug (`Mail`
/// and `mail`, `a:b` and `a_b`) would write one file, so each of them gets `-` and six
/// hex digits of its name's xxh3 hash, which do not depend on the other names.
fn slugs<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    let plain: Vec<String> = names.iter().map(|n| slug(n.as_ref())).collect();
    names
        .iter()
        .zip(&plain)
        .map(|(n, s)| {
            let n = n.as_ref();
            let shared = names
                .iter()
                .zip(&plain)
                .any(|(m, t)| t == s && m.as_ref() != n);
            if shared {
                format!("{s}-{:06x}", xxhash_rust::xxh3::xxh3_64(n.as_bytes()) >> 40)
            } else {
                s.clone()
            }
        })
        .collect()
}

struct Ctx<'a> {
    plan: &'a Plan,
    results: &'a [CellResult],
    /// The cache sizes of the trace being drawn (a trace may have its own).
    sizes: Vec<String>,
}

impl Ctx<'_> {
    fn cell(&self, trace: &str, policy: &str, cache: &str, device: &str) -> Option<&CellResult> {
        self.results.iter().find(|r| {
            let p = &r.params;
            p.trace == trace && p.policy == policy && p.cache == cache && p.device == device
        })
    }

    fn sizes(&self) -> Vec<String> {
        self.sizes.clone()
    }

    /// One series per policy: `f(cell)` at each cache size.
    fn by_size(
        &self,
        trace: &str,
        device: &str,
        f: &dyn Fn(&CellResult) -> Option<f64>,
    ) -> Vec<Series> {
        self.plan
            .policies
            .iter()
            .map(|p| Series {
                name: p.label(),
                points: self
                    .sizes()
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| {
                        self.cell(trace, &p.label(), s, device)
                            .and_then(f)
                            .map(|v| (i as f64, v))
                    })
                    .collect(),
            })
            .collect()
    }

    /// A chart over the cache sizes; lines switch to a log y axis when the values
    /// span two decades or more.
    fn size_chart(&self, title: String, y: &str, kind: Kind, series: Vec<Series>) -> Chart {
        Chart {
            title,
            x_label: "cache size".into(),
            y_label: y.into(),
            categories: Some(self.sizes()),
            kind,
            log_y: kind == Kind::Line && spans_decades(&series),
            notes: Vec::new(),
            y_from_zero: starts_at_zero(&series),
            series,
        }
    }

    /// The policy the `-relative` figures divide by: `lru` when the plan runs it,
    /// else the first policy; none with fewer than two policies.
    fn baseline(&self) -> Option<String> {
        let labels: Vec<String> = self.plan.policies.iter().map(|p| p.label()).collect();
        if labels.len() < 2 {
            return None;
        }
        Some(
            labels
                .iter()
                .find(|l| *l == "lru")
                .unwrap_or(&labels[0])
                .clone(),
        )
    }

    /// `f(cell) / f(baseline's cell)` at each cache size, per policy (the baseline's
    /// own series is the reference line at 1); sizes where the baseline's value is 0
    /// or missing are left out.
    fn relative(
        &self,
        trace: &str,
        device: &str,
        base: &str,
        f: &dyn Fn(&CellResult) -> Option<f64>,
    ) -> Vec<Series> {
        self.by_size(trace, device, &|r| {
            let b = f(self.cell(trace, base, &r.params.cache, device)?)?;
            (b > 0.0).then(|| f(r).map(|v| v / b)).flatten()
        })
    }
}

/// The page size as `4 KiB`.
fn kib(plan: &Plan) -> String {
    let b = plan.granularity().unit();
    if b >= 1024 && b % 1024 == 0 {
        format!("{} KiB", b / 1024)
    } else {
        format!("{b} B")
    }
}

/// Labels of the utilization ranges: `0-10%` for (0, 10%], ...
fn utilization_labels() -> Vec<String> {
    let w = 100 / UTILIZATION_RANGES;
    (0..UTILIZATION_RANGES)
        .map(|i| format!("{}-{}%", i * w, (i + 1) * w))
        .collect()
}

/// Draw every figure the plan asks for.
pub fn draw(plan: &Plan, results: &[CellResult], traces: &[TraceInfo]) -> Vec<Figure> {
    let mut figs = Vec::new();
    let want = |k: &str| plan.wants_figure(k);
    let first_dev = plan.devices[0].label().to_string();
    let devs: Vec<String> = plan.devices.iter().map(|d| d.label().to_string()).collect();
    let dev_slugs = slugs(&devs);
    let real_devs: Vec<(&String, &String)> = devs
        .iter()
        .zip(&dev_slugs)
        .filter(|(d, _)| *d != "none")
        .collect();
    let trace_slugs = slugs(
        &plan
            .traces
            .iter()
            .map(|(t, _)| t.label())
            .collect::<Vec<_>>(),
    );
    let policy_slugs = slugs(&plan.policies.iter().map(|p| p.label()).collect::<Vec<_>>());
    for (ti, (t, _)) in plan.traces.iter().enumerate() {
        let cx = Ctx {
            plan,
            results,
            sizes: plan.trace_sizes[ti]
                .iter()
                .map(|&si| plan.sizes[si].0.clone())
                .collect(),
        };
        let sizes = cx.sizes();
        let smallest = sizes.first().cloned().unwrap_or_default();
        let largest = sizes.last().cloned().unwrap_or_default();
        let tl = t.label();
        let ts = &trace_slugs[ti];
        let mut push = |stem: String, kind: &'static str, chart: Chart| {
            if chart.has_data() {
                figs.push(Figure {
                    stem,
                    kind,
                    chart,
                    trace: tl.clone(),
                });
            }
        };
        if want("hit-ratio") {
            let s = cx.by_size(&tl, &first_dev, &|r| Some(r.cache.hit_ratio));
            push(
                format!("hit-ratio-{ts}"),
                "hit-ratio",
                cx.size_chart(
                    format!("Hit ratio — {tl}"),
                    "hit ratio (hits / page accesses)",
                    Kind::Line,
                    s,
                ),
            );
        }
        if want("write-backs") {
            let s = cx.by_size(&tl, &first_dev, &|r| Some(r.write_backs() as f64));
            push(
                format!("write-backs-{ts}"),
                "write-backs",
                cx.size_chart(
                    format!("Pages written to storage — {tl}"),
                    &format!("pages written ({} pages)", kib(plan)),
                    Kind::Line,
                    s,
                ),
            );
        }
        if let (true, Some(base)) = (want("write-backs-relative"), cx.baseline()) {
            let s = cx.relative(&tl, &first_dev, &base, &|r| Some(r.write_backs() as f64));
            push(
                format!("write-backs-relative-{ts}"),
                "write-backs-relative",
                cx.size_chart(
                    format!("Pages written to storage relative to {base} — {tl}"),
                    &format!("pages written relative to {base}"),
                    Kind::Line,
                    s,
                ),
            );
        }
        for (d, ds) in devs.iter().zip(&dev_slugs) {
            let what = if d == "none" {
                "cost model".to_string()
            } else {
                d.clone()
            };
            if want("io-time") {
                let s = cx.by_size(&tl, d, &|r| Some(r.io_time_s()));
                push(
                    format!("io-time-{ts}-{ds}"),
                    "io-time",
                    cx.size_chart(
                        format!("Storage time ({what}) — {tl}"),
                        "storage time (s)",
                        Kind::Line,
                        s,
                    ),
                );
            }
            if want("io-time-vs-clock") && plan.policies.iter().any(|p| p.label() == "clock") {
                let s = cx.by_size(&tl, d, &|r| {
                    let c = cx.cell(&tl, "clock", &r.params.cache, d)?;
                    let base = c.io_time_s();
                    (base > 0.0).then(|| r.io_time_s() / base)
                });
                push(
                    format!("io-time-vs-clock-{ts}-{ds}"),
                    "io-time-vs-clock",
                    cx.size_chart(
                        format!("Storage time / CLOCK's ({what}) — {tl}"),
                        "time / CLOCK's time",
                        Kind::Line,
                        s,
                    ),
                );
            }
        }
        for &(d, ds) in &real_devs {
            if want("erases") {
                let s = cx.by_size(&tl, d, &|r| r.ftl.as_ref().map(|f| f.erases as f64));
                push(
                    format!("erases-{ts}-{ds}"),
                    "erases",
                    cx.size_chart(
                        format!("Block erases ({d}) — {tl}"),
                        "block erases (count)",
                        Kind::Bars,
                        s,
                    ),
                );
            }
            if let (true, Some(base)) = (want("erases-relative"), cx.baseline()) {
                let s = cx.relative(&tl, d, &base, &|r| r.ftl.as_ref().map(|f| f.erases as f64));
                push(
                    format!("erases-relative-{ts}-{ds}"),
                    "erases-relative",
                    cx.size_chart(
                        format!("Block erases relative to {base} ({d}) — {tl}"),
                        &format!("block erases relative to {base}"),
                        Kind::Line,
                        s,
                    ),
                );
            }
            if want("waf") {
                let s = cx.by_size(&tl, d, &|r| r.ftl.as_ref().map(|f| f.waf));
                push(
                    format!("waf-{ts}-{ds}"),
                    "waf",
                    cx.size_chart(
                        format!("Write amplification ({d}) — {tl}"),
                        "WAF (flash programs / host writes)",
                        Kind::Line,
                        s,
                    ),
                );
            }
        }
        // One series per policy at the largest size: `f(cell)` over categories `0, 1, ...`.
        let at_largest = |f: &dyn Fn(&CellResult) -> Option<Vec<f64>>| -> Vec<Series> {
            plan.policies
                .iter()
                .filter_map(|p| {
                    let ys = f(cx.cell(&tl, &p.label(), &largest, &first_dev)?)?;
                    Some(Series {
                        name: p.label(),
                        points: ys
                            .into_iter()
                            .enumerate()
                            .map(|(i, y)| (i as f64, y))
                            .collect(),
                    })
                })
                .collect()
        };
        let bars = |title: String, x: &str, y: &str, categories: Vec<String>, series| Chart {
            title,
            x_label: x.into(),
            y_label: y.into(),
            categories: Some(categories),
            kind: Kind::Bars,
            series,
            y_from_zero: true,
            log_y: false,
            notes: Vec::new(),
        };
        let ranges_x = "block utilization of the burst (distinct pages / pages per block)";
        if want("block-utilization") {
            let s = at_largest(&|r| {
                let b = &r.cache.block_utilization.write_stream;
                Some(b.bursts_by_utilization.iter().map(|&n| n as f64).collect())
            });
            push(
                format!("block-utilization-{ts}"),
                "block-utilization",
                bars(
                    format!("Write operations per block utilization ({largest}) — {tl}"),
                    ranges_x,
                    "write operations (bursts)",
                    utilization_labels(),
                    s,
                ),
            );
        }
        if want("block-utilization-pages") {
            let s = at_largest(&|r| {
                let b = &r.cache.block_utilization.write_stream;
                (b.pages > 0).then(|| {
                    let total = b.pages as f64;
                    b.pages_by_utilization
                        .iter()
                        .map(|&n| n as f64 / total)
                        .collect()
                })
            });
            push(
                format!("block-utilization-pages-{ts}"),
                "block-utilization-pages",
                bars(
                    format!("Written pages per block utilization ({largest}) — {tl}"),
                    ranges_x,
                    "share of written pages",
                    utilization_labels(),
                    s,
                ),
            );
        }
        if want("io-counts") {
            let s = at_largest(&|r| {
                let m = &r.cache;
                Some(vec![
                    (m.page_reads + m.pad_reads) as f64,
                    m.write_ios as f64,
                ])
            });
            push(
                format!("io-counts-{ts}"),
                "io-counts",
                bars(
                    format!("Storage I/Os ({largest}) — {tl}"),
                    "reads: page and padding reads; writes: after merging",
                    "I/O operations (count)",
                    vec!["read I/Os".into(), "write I/Os".into()],
                    s,
                ),
            );
        }
        if want("write-pattern") {
            let scatter = |title: String, name: String, pts: &[(u64, u64)]| Chart {
                title,
                x_label: "time (page accesses into the trace)".into(),
                y_label: format!("page number ({} pages)", kib(plan)),
                categories: None,
                kind: Kind::Scatter,
                series: vec![Series {
                    name,
                    points: pts.iter().map(|&(a, p)| (a as f64, p as f64)).collect(),
                }],
                y_from_zero: false,
                log_y: false,
                notes: Vec::new(),
            };
            if let Some(info) = traces.iter().find(|i| i.label == tl) {
                push(
                    format!("write-pattern-{ts}-before"),
                    "write-pattern",
                    scatter(
                        format!("Writes before the cache — {tl}"),
                        "before cache".into(),
                        &info.write_pattern,
                    ),
                );
            }
            for (p, ps) in plan.policies.iter().zip(&policy_slugs) {
                if let Some(r) = cx.cell(&tl, &p.label(), &smallest, &first_dev) {
                    push(
                        format!("write-pattern-{ts}-{ps}"),
                        "write-pattern",
                        scatter(
                            format!("Writes after {} ({smallest}) — {tl}", p.label()),
                            p.label(),
                            &r.write_pattern,
                        ),
                    );
                }
            }
        }
        if want("areas") {
            for (p, ps) in plan.policies.iter().zip(&policy_slugs) {
                let Some(r) = cx.cell(&tl, &p.label(), &largest, &first_dev) else {
                    continue;
                };
                let Some(se) = &r.cache.series else { continue };
                let series = se
                    .names
                    .iter()
                    .enumerate()
                    .map(|(j, n)| Series {
                        name: n.clone(),
                        points: se
                            .at
                            .iter()
                            .zip(&se.values)
                            .filter_map(|(&a, v)| v.get(j).map(|&y| (a as f64, y)))
                            .collect(),
                    })
                    .collect();
                push(
                    format!("areas-{ts}-{ps}"),
                    "areas",
                    Chart {
                        title: format!("{} areas over time ({largest}) — {tl}", p.label()),
                        x_label: "time (page accesses into the trace)".into(),
                        y_label: "area size (cache pages)".into(),
                        categories: None,
                        kind: Kind::Line,
                        series,
                        y_from_zero: true,
                        log_y: false,
                        notes: Vec::new(),
                    },
                );
            }
        }
    }
    figs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utilization_labels_are_tenths() {
        let l = utilization_labels();
        assert_eq!(l.len(), UTILIZATION_RANGES);
        assert_eq!((l[0].as_str(), l[9].as_str()), ("0-10%", "90-100%"));
        assert_eq!(slug("ts-clock:ppb=1024"), "ts-clock_ppb_1024");
    }

    /// Trace names that differ only in case or punctuation wrote one figure file.
    #[test]
    fn names_sharing_a_slug_get_distinct_file_names() {
        let s = slugs(&["Mail", "mail", "mail!", "web", "Web-1"]);
        assert_eq!(&s[3..], ["web", "web-1"]);
        assert!(
            s[..3]
                .iter()
                .all(|x| x.starts_with("mail-") && x.len() == 11),
            "{s:?}"
        );
        let distinct: std::collections::HashSet<_> = s.iter().collect();
        assert_eq!(distinct.len(), 5, "{s:?}");
        // A name keeps its file name whatever else shares its slug.
        assert_eq!(slugs(&["mail", "MAIL"])[0], s[1]);
    }
}
