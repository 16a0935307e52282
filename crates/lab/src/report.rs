//! The HTML report: one self-contained file, `report.html`, with
//! the figures inline (SVG), the results table, the per-cell timings, the
//! configuration and the environment, opened by the run's [`Provenance`]. No scripts, no external references: it opens
//! offline in any browser.

use std::fmt::Write;

use wafer_ftl::AddressMap;

use crate::experiment::Plan;
use crate::figure_file::FORMATS;
use crate::figures::{Figure, FIGURES};
use crate::grid::Outcome;
use crate::plot::{esc, fmt_num};
use crate::provenance::Provenance;
use crate::result::CellResult;

/// Extra text a preset adds at the top (claims next to measurements).
#[derive(Clone, Debug, Default)]
pub struct Preface {
    /// HTML-escaped paragraphs are built from these lines.
    pub lines: Vec<String>,
    /// The figure that makes the point at a glance, shown first.
    pub glance: Option<crate::plot::Chart>,
    /// Figures shown after the lines (where a claim holds).
    pub after: Vec<crate::plot::Chart>,
}

const STYLE: &str = "body{font-family:DejaVu Sans,Verdana,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\
table{border-collapse:collapse;font-size:12px;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}\
th{background:#f3f3f3}td.l,th.l{text-align:left}figure{margin:1.5em 0}figcaption{font-size:13px;color:#555}\
nav ol{font-size:13px;margin:.2em 0}nav ol ol{columns:2}.provenance code{white-space:pre-wrap;word-break:break-all}pre{background:#f7f7f7;padding:1em;overflow:auto;font-size:12px}.note{background:#fff7e0;padding:.6em 1em;border-left:4px solid #e0a000}";

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
    let mut h = String::new();
    let name = esc(&plan.exp.name);
    let _ = write!(
        h,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>wafer — {name}</title><style>{STYLE}</style></head><body>"
    );
    let _ = write!(h, "<h1>wafer experiment: {name}</h1>");
    h.push_str(&prov.html());
    h.push_str(&contents(figures));
    if let Some(c) = &preface.glance {
        let _ = write!(
            h,
            "<figure id=\"glance\">{}<figcaption>{}</figcaption></figure>",
            c.svg(),
            esc(&c.title)
        );
    }
    for l in &preface.lines {
        let _ = write!(h, "<p class=\"note\">{}</p>", esc(l));
    }
    for c in &preface.after {
        let _ = write!(
            h,
            "<figure class=\"preface\">{}<figcaption>{}</figcaption></figure>",
            c.svg(),
            esc(&c.title)
        );
    }
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
    for f in figures {
        let what = FIGURES
            .iter()
            .find(|(k, _)| *k == f.kind)
            .map_or("", |(_, d)| d);
        let stem = esc(&f.stem);
        let _ = write!(
            h,
            "<figure id=\"{stem}\">{}<figcaption>{}; files: {}</figcaption></figure>",
            f.chart.svg(),
            esc(what),
            FORMATS
                .iter()
                .map(|x| format!("<a href=\"figures/{stem}.{x}\">{stem}.{x}</a>"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    h.push_str("<h2 id=\"results\">Results</h2>");
    h.push_str(&table(&outcome.results));
    h.push_str("<h2 id=\"configuration\">Configuration</h2><pre>");
    h.push_str(&esc(&toml::to_string_pretty(&plan.exp).unwrap_or_default()));
    h.push_str("</pre><h2 id=\"environment\">Environment</h2><table>");
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
fn contents(figures: &[Figure]) -> String {
    let mut h = String::from("<nav id=\"contents\"><h2>Contents</h2><ol>");
    for (id, title) in SECTIONS {
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
