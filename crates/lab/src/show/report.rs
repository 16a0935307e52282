//! The HTML report: one self-contained file, `report.html`, with
//! the figures inline (SVG), the results table, the per-cell timings, the
//! configuration and the environment, opened by the run's [`Provenance`]. No scripts, no external references: it opens
//! offline in any browser. A preset's report then opens with its verdict table; the
//! per-trace figures, the results and the configuration are collapsed (`<details>`,
//! which a link into them opens), so the page stays a few screens long.

use std::fmt::Write;

use wafer_ftl::AddressMap;

use crate::experiment::Plan;
use crate::experiment::FIGURES;
use crate::figure_file::FORMATS;
use crate::figures::Figure;
use crate::plot::{esc, fmt_num};
use crate::provenance::Provenance;
use crate::result::CellResult;
use crate::result::Outcome;

/// Extra text a preset adds at the top (claims next to measurements).
#[derive(Clone, Debug, Default)]
pub struct Preface {
    /// Short notes, one paragraph each (what the study is, how to read it).
    pub lines: Vec<String>,
    /// The verdict table, first thing after the provenance.
    pub verdicts: Vec<VerdictRow>,
    /// The figure that makes the point at a glance, under the verdict table.
    pub glance: Option<crate::plot::Chart>,
    /// The setup table: `(aspect, the paper, wafer)` rows.
    pub setup: Vec<[String; 3]>,
    /// The comparison as the command printed it, kept whole but collapsed: the
    /// verdict table says the same at a glance.
    pub printed: Vec<String>,
    /// Figures shown after the printed comparison (where a claim holds).
    pub after: Vec<crate::plot::Chart>,
}

/// A row of the verdict table: one claim judged on one group of traces.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VerdictRow {
    /// The claim in short: number, policy vs baseline, metric.
    pub claim: String,
    /// The paper's sentence.
    pub text: String,
    /// The group and the traces it ran, or the view (as captured, steady state) a
    /// study without groups was judged in.
    pub group: String,
    /// The paper's figure in words.
    pub paper: String,
    /// wafer's figure (mean over traces) in words.
    pub wafer: String,
    /// The traces' figures from most to least favourable, where there are several.
    pub range: Option<String>,
    /// Favourable cells, `k of n`.
    pub cells: String,
    /// The verdict's name.
    pub verdict: String,
    /// Why, as the printed comparison says it.
    pub why: String,
}

const STYLE: &str = "body{font-family:DejaVu Sans,Verdana,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;font-size:12px;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}\
th{background:#f3f3f3}td.l,th.l{text-align:left}figure{margin:1.5em 0}figcaption{font-size:13px;color:#555}\
nav ol{font-size:13px;margin:.2em 0}nav ol ol{columns:2}td.l small{color:#555}.v-supported{background:#e3f4e6}.v-inconclusive{background:#fff3d6}.v-contradicted{background:#fbe2e0}.v-no-difference,.v-not-measurable{background:#eceff3}\
table.verdicts,table.setup{font-size:13px;width:100%}table.verdicts td,table.setup td{vertical-align:top}table.setup td{text-align:left}\
details{margin:.6em 0}summary{cursor:pointer;font-weight:bold;font-size:14px}.key{font-size:13px;color:#444}.provenance code{white-space:pre-wrap;word-break:break-all}pre{background:#f7f7f7;padding:1em;overflow:auto;font-size:12px}.note{background:#fff7e0;padding:.6em 1em;border-left:4px solid #e0a000}";

/// The note a report opens with when a device folded addresses: with
/// `address_map = "wrap"`, the after-cache operations of a trace wider than the device
/// are wrapped modulo its logical capacity, so distinct pages share device pages and
/// the FTL sees overwrites the trace does not have; the reader must know
/// (`ftl_remapped_ops` per cell in the tables).
pub fn folded(results: &[CellResult]) -> Option<String> {
    let hit: Vec<&CellResult> = results
        .iter()
        .filter(|r| r.params.address_map == Some(AddressMap::Wrap))
        .filter(|r| r.ftl.as_ref().is_some_and(|f| f.remapped_ops > 0))
        .collect();
    let with_device = results.iter().filter(|r| r.ftl.is_some()).count();
    if hit.is_empty() {
        return None;
    }
    let ops: u64 = hit
        .iter()
        .filter_map(|r| r.ftl.as_ref().map(|f| f.remapped_ops))
        .sum();
    let mut traces: Vec<&str> = hit.iter().map(|r| r.params.trace.as_str()).collect();
    traces.dedup();
    Some(format!(
        "addresses folded: in {} of {with_device} device cells ({}) the trace reaches beyond the device's logical capacity, and address_map = \"wrap\" wrapped {ops} storage operations modulo the capacity; their device metrics describe the folded address space, with overwrites the trace does not have (column ftl_remapped_ops; address_map = \"compact\" keeps every page apart)",
        hit.len(),
        traces.join(", ")
    ))
}

/// How the cells' addresses reached their devices, for the report's setup line: the
/// address map and the storage operations it moved (`None` without a device).
pub fn addresses(map: AddressMap, results: &[CellResult]) -> Option<String> {
    let ftl: Vec<_> = results.iter().filter_map(|r| r.ftl.as_ref()).collect();
    if ftl.is_empty() {
        return None;
    }
    let ops: u64 = ftl.iter().map(|f| f.remapped_ops).sum();
    Some(match map {
        AddressMap::Refuse => {
            "addresses: address map refuse, every page where the trace puts it (all within the devices' logical capacity)".to_string()
        }
        AddressMap::Compact => format!(
            "addresses: address map compact, each trace's erase blocks (FAST, block-level) or pages (page-level) placed on the device in first-touch order, offsets kept, nothing folded; {ops} storage operations moved (column ftl_remapped_ops)"
        ),
        AddressMap::Wrap => format!(
            "addresses: address map wrap, pages modulo the device's logical capacity; {ops} storage operations wrapped (column ftl_remapped_ops)"
        ),
    })
}

fn pct(v: f64) -> String {
    format!("{:.2}%", v * 100.0)
}

/// The report as HTML text.
pub fn html(
    plan: &Plan,
    outcome: &Outcome,
    figures: &[Figure],
    preface: &Preface,
    prov: &Provenance,
) -> String {
    let mut h = open(
        &plan.exp.name,
        &format!("wafer experiment: {}", plan.exp.name),
        prov,
        preface,
    );
    h.push_str(&contents(figures, preface));
    let _ = write!(
        h,
        "<p>{} cells ({} computed in this run, {} reused from earlier runs){}; {} traces, {} policies, {} cache sizes, {} device columns{}.</p>",
        outcome.total,
        outcome.computed,
        outcome.reused,
        if outcome.interrupted { ", <b>interrupted: some cells are missing</b>" } else { "" },
        plan.traces.len(),
        plan.policies.len(),
        plan.sizes.len(),
        plan.devices.len(),
        addresses(plan.address_map, &outcome.results)
            .map_or(String::new(), |a| format!("; {}", esc(&a)))
    );
    if !outcome.failed.is_empty() {
        let _ = write!(
            h,
            "<p class=\"note\"><b>{} cells failed</b> (not stored; a rerun tries them again):</p><ul>",
            outcome.failed.len()
        );
        for f in &outcome.failed {
            let _ = write!(h, "<li>{}: {}</li>", esc(&f.cell), esc(&f.reason));
        }
        h.push_str("</ul>");
    }
    if let Some(w) = folded(&outcome.results) {
        let _ = write!(h, "<p class=\"note\">{}</p>", esc(&w));
    }
    h.push_str("<h2 id=\"traces\">Traces</h2><table><tr><th class=l>trace</th><th>requests</th><th>page accesses</th><th>footprint (pages)</th><th class=l>xxh3</th><th class=l>path</th></tr>");
    for t in &outcome.traces {
        let _ = write!(
            h,
            "<tr><td class=l>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=l>{}</td><td class=l>{}</td></tr>",
            esc(&t.label),
            t.requests,
            t.accesses,
            t.footprint_pages,
            t.checksum,
            esc(&t.path)
        );
    }
    h.push_str("</table><h2 id=\"figures\">Figures</h2>");
    // Per trace, collapsed: a study of several traces draws a screenful per figure
    // and a dozen figures per trace. A single trace without a preface stays open.
    let open = plan.traces.len() == 1 && preface.glance.is_none();
    let mut traces: Vec<&str> = Vec::new();
    for f in figures {
        if !traces.contains(&f.trace.as_str()) {
            traces.push(&f.trace);
        }
    }
    for t in traces {
        let of: Vec<&Figure> = figures.iter().filter(|f| f.trace == t).collect();
        let _ = write!(
            h,
            "<details{}><summary>{}: {} figures</summary>",
            if open { " open" } else { "" },
            esc(t),
            of.len()
        );
        for f in of {
            let what = FIGURES
                .iter()
                .find(|(k, _)| *k == f.kind)
                .map_or("", |(_, d)| d);
            h.push_str(&figure(&f.stem, &f.chart, what));
        }
        h.push_str("</details>");
    }
    let _ = write!(
        h,
        "<h2 id=\"results\">Results</h2><details><summary>{} rows</summary>",
        outcome.results.len()
    );
    h.push_str(&table(&outcome.results));
    h.push_str("</details><h2 id=\"configuration\">Configuration</h2><details><summary>the experiment as TOML</summary><pre>");
    h.push_str(&esc(&toml::to_string_pretty(&plan.exp).unwrap_or_default()));
    h.push_str("</pre></details><h2 id=\"environment\">Environment</h2><table>");
    for (k, v) in [
        ("worker threads", outcome.jobs.to_string()),
        ("run wall time", format!("{:.2} s", outcome.elapsed_s)),
        (
            "cell time (sum)",
            format!(
                "{:.2} s",
                outcome.results.iter().map(|r| r.elapsed_s).sum::<f64>()
            ),
        ),
    ] {
        let _ = write!(
            h,
            "<tr><th class=l>{k}</th><td class=l>{}</td></tr>",
            esc(&v)
        );
    }
    h.push_str("</table></body></html>\n");
    h
}

/// The start of every report: the title, the provenance and the preface.
fn open(name: &str, title: &str, prov: &Provenance, preface: &Preface) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>wafer — {}</title><style>{STYLE}</style></head><body><h1>{}</h1>",
        esc(name),
        esc(title)
    );
    h.push_str(&prov.html());
    h.push_str(&preface_html(preface));
    h
}

/// One figure with its caption and links to its files (`figures/<stem>.svg`, ...).
fn figure(stem: &str, chart: &crate::plot::Chart, caption: &str) -> String {
    let stem = esc(stem);
    format!(
        "<figure id=\"{stem}\">{}<figcaption>{}; files: {}</figcaption></figure>",
        chart.svg(),
        esc(caption),
        FORMATS
            .iter()
            .map(|x| format!("<a href=\"figures/{stem}.{x}\">{stem}.{x}</a>"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The report of a study whose cells are not a grid's (an on-board cache study,
/// `crate::apu`), on the grid report's page: the provenance and the preface (verdict
/// table, setup table, comparison as printed), then `notes` (a heading and its lines
/// each), the figures (`(stem, chart)`, drawn as `figures/<stem>.*`) and every row of
/// its results table.
pub fn rows_report(
    name: &str,
    title: &str,
    prov: &Provenance,
    preface: &Preface,
    notes: &[(&str, Vec<String>)],
    charts: &[(String, crate::plot::Chart)],
    rows: &[crate::parquet_file::Row],
) -> String {
    let mut h = open(name, title, prov, preface);
    for (heading, lines) in notes {
        let _ = write!(
            h,
            "<h2>{}</h2><pre>{}</pre>",
            esc(heading),
            esc(&lines.join("\n"))
        );
    }
    h.push_str("<h2 id=\"figures\">Figures</h2>");
    for (stem, chart) in charts {
        h.push_str(&figure(stem, chart, &chart.title));
    }
    let _ = write!(
        h,
        "<h2 id=\"results\">Results</h2><details><summary>{} rows, every column of results.csv</summary><table><tr>",
        rows.len()
    );
    if let Some(r) = rows.first() {
        for (c, _) in r {
            let _ = write!(h, "<th>{}</th>", esc(c));
        }
    }
    h.push_str("</tr>");
    for r in rows {
        h.push_str("<tr>");
        for (_, v) in r {
            let cell = match v {
                serde_json::Value::Number(n) if n.is_f64() => {
                    format!("{:.3}", n.as_f64().unwrap_or(f64::NAN))
                }
                serde_json::Value::String(s) => esc(s),
                serde_json::Value::Null => String::new(),
                other => other.to_string(),
            };
            let _ = write!(h, "<td>{cell}</td>");
        }
        h.push_str("</tr>");
    }
    h.push_str("</table></details></body></html>\n");
    h
}

/// The preface: the notes, the verdict table and its key, the figure at a glance,
/// the setup table, the printed comparison (collapsed) and the figures after it.
fn preface_html(p: &Preface) -> String {
    let mut h = String::new();
    for l in &p.lines {
        let _ = write!(h, "<p class=\"note\">{}</p>", esc(l));
    }
    if !p.verdicts.is_empty() {
        h.push_str("<h2 id=\"verdicts\">Verdicts</h2>");
        h.push_str(&verdict_table(&p.verdicts));
        h.push_str("<p class=\"key\">The paper's and wafer's figures compare the proposed policy's metric with the baseline's (lower is better for every metric); wafer's is the geometric mean over the group's traces (the median over the aging replicates, with their range), the traces' range under it. Cells favourable: the trace x cache size x replicate cells where the policy beats the baseline by more than the 0.5% dead band. <i>Supported</i>: favourable on every trace, in most cells and every replicate, and at least half the paper's effect; <i>contradicted</i>: favourable on no trace and in fewer than half of the cells; <i>no difference</i>: inside the dead band, or a replicate range that reaches it; <i>not measurable</i>: decided by what neither policy causes (aging residue, a saturated baseline, a zero denominator); <i>inconclusive</i>: otherwise (docs/experiments.md, \"Verdicts\"). The reasons quote figures as the command prints them: a reduction 1 - policy/baseline (+29% is 29% lower), a ratio baseline/policy.</p>");
    }
    if let Some(c) = &p.glance {
        let _ = write!(
            h,
            "<figure id=\"glance\">{}<figcaption>{}</figcaption></figure>",
            c.svg(),
            esc(&c.title)
        );
    }
    if !p.setup.is_empty() {
        h.push_str("<h2 id=\"setup\">Setup</h2><table class=\"setup\"><colgroup><col style=\"width:13%\"><col style=\"width:32%\"><col></colgroup><tr><th class=l>aspect</th><th class=l>the paper</th><th class=l>wafer</th></tr>");
        for [a, paper, w] in &p.setup {
            let _ = write!(
                h,
                "<tr><th class=l>{}</th><td>{}</td><td>{}</td></tr>",
                esc(a),
                esc(paper),
                esc(w)
            );
        }
        h.push_str("</table>");
    }
    if !p.printed.is_empty() {
        let _ = write!(
            h,
            "<h2 id=\"comparison\">Comparison as printed</h2><details><summary>each claim's figures per trace, the setup differences and the verdicts, as the command printed them ({} lines)</summary><pre>",
            p.printed.len()
        );
        for l in &p.printed {
            h.push_str(&esc(l));
            h.push('\n');
        }
        h.push_str("</pre></details>");
    }
    for c in &p.after {
        let _ = write!(
            h,
            "<figure class=\"preface\">{}<figcaption>{}</figcaption></figure>",
            c.svg(),
            esc(&c.title)
        );
    }
    h
}

/// The verdict table: a row per claim and group, the claim's cell spanning its
/// groups' rows.
fn verdict_table(rows: &[VerdictRow]) -> String {
    let mut h = String::from("<table class=\"verdicts\"><colgroup><col style=\"width:27%\"><col style=\"width:14%\"><col style=\"width:12%\"><col style=\"width:15%\"><col style=\"width:7%\"><col></colgroup><tr><th class=l>claim</th><th class=l>traces or view</th><th class=l>the paper</th><th class=l>wafer</th><th>cells favourable</th><th class=l>verdict</th></tr>");
    let mut i = 0;
    while i < rows.len() {
        let span = rows[i..]
            .iter()
            .take_while(|r| r.claim == rows[i].claim)
            .count();
        for (k, r) in rows[i..i + span].iter().enumerate() {
            h.push_str("<tr>");
            if k == 0 {
                let _ = write!(
                    h,
                    "<td class=l rowspan=\"{span}\"><b>{}</b><br><small>{}</small></td>",
                    esc(&r.claim),
                    esc(&r.text)
                );
            }
            let _ = write!(
                h,
                "<td class=l>{}</td><td class=l>{}</td><td class=l>{}{}</td><td>{}</td><td class=\"l v-{}\"><b>{}</b><br><small>{}</small></td></tr>",
                esc(&r.group),
                esc(&r.paper),
                esc(&r.wafer),
                r.range
                    .as_ref()
                    .map_or(String::new(), |x| format!("<br><small>{}</small>", esc(x))),
                esc(&r.cells),
                // One class per verdict: "no difference" is `v-no-difference`.
                esc(&r.verdict.replace(' ', "-")),
                esc(&r.verdict),
                esc(&r.why)
            );
        }
        i += span;
    }
    h.push_str("</table>");
    h
}

/// The sections of the report: anchor id and heading, in order.
pub const SECTIONS: [(&str, &str); 6] = [
    ("provenance", "Provenance"),
    ("traces", "Traces"),
    ("figures", "Figures"),
    ("results", "Results"),
    ("configuration", "Configuration"),
    ("environment", "Environment"),
];

/// The table of contents: every section, and under Figures every figure by its
/// title. Figures are anchored by their file stem, which is stable across reruns
/// (it names the trace, device and policy, never a position), so links into a
/// report survive regeneration.
fn contents(figures: &[Figure], preface: &Preface) -> String {
    let mut h = String::from("<nav id=\"contents\"><h2>Contents</h2><ol>");
    let first: Vec<(&str, &str)> = [
        (!preface.verdicts.is_empty()).then_some(("verdicts", "Verdicts")),
        (!preface.setup.is_empty()).then_some(("setup", "Setup")),
        (!preface.printed.is_empty()).then_some(("comparison", "Comparison as printed")),
    ]
    .into_iter()
    .flatten()
    .collect();
    // In the page's order: the provenance, the preface, then the rest.
    for (id, title) in SECTIONS[..1]
        .iter()
        .copied()
        .chain(first)
        .chain(SECTIONS[1..].iter().copied())
    {
        let _ = write!(h, "<li><a href=\"#{id}\">{title}</a>");
        if id == "figures" && !figures.is_empty() {
            h.push_str("<ol>");
            for f in figures {
                let _ = write!(
                    h,
                    "<li><a href=\"#{}\">{}</a></li>",
                    esc(&f.stem),
                    esc(&f.chart.title)
                );
            }
            h.push_str("</ol>");
        }
        h.push_str("</li>");
    }
    h.push_str("</ol></nav>");
    h
}

fn table(results: &[CellResult]) -> String {
    let mut h = String::from(
        "<table><tr><th class=l>trace</th><th class=l>policy</th><th class=l>cache</th><th class=l>device</th><th>pages</th><th>hit ratio</th><th>read hits</th><th>write hits</th><th>page reads</th><th>pages written</th><th>write I/Os</th><th>burst util.</th><th>WAF</th><th>erases</th><th>est. time (s)</th><th>cell time (s)</th><th class=l>cell</th></tr>",
    );
    for r in results {
        let p = &r.params;
        let (waf, erases) = match &r.ftl {
            Some(f) => (format!("{:.3}", f.waf), fmt_num(f.erases as f64)),
            None => ("".into(), "".into()),
        };
        // Mean block utilization of the write-stream bursts; empty without any.
        let bu = &r.cache.block_utilization.write_stream;
        let util = if bu.bursts > 0 {
            pct(bu.mean_utilization)
        } else {
            String::new()
        };
        let _ = write!(
            h,
            "<tr><td class=l>{}</td><td class=l>{}</td><td class=l>{}</td><td class=l>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.3}</td><td>{:.2}</td><td class=l>{}</td></tr>",
            esc(&p.trace),
            esc(&p.policy),
            esc(&p.cache),
            esc(&p.device),
            r.capacity_pages,
            pct(r.cache.hit_ratio),
            pct(r.cache.read_hit_ratio),
            pct(r.cache.write_hit_ratio),
            r.cache.page_reads,
            r.write_backs(),
            r.cache.write_ios,
            util,
            waf,
            erases,
            r.io_time_s(),
            r.elapsed_s,
            r.id
        );
    }
    h.push_str("</table>");
    h
}
