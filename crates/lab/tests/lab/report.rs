//! The experiment report on a tiny run over the bundled SQLite capture: it opens with
//! the provenance block (also stored as `provenance.json`), its table of contents
//! links only to anchors that exist, and every figure is written as SVG, PNG and a
//! PDF whose structure holds together (cross-reference table, catalog, one page of
//! the chart's size).

use std::collections::BTreeSet;
use std::path::Path;

use wafer_lab::figure_file::FORMATS;
use wafer_lab::{execute, Experiment, GridStudy, Provenance, Quiet, RunOptions};

/// A trace the repository carries (`traces/README.md`), so this runs from a clone.
const TRACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../traces/sqlite-wal.wtr");

#[test]
fn report_has_provenance_contents_and_every_figure_form() {
    assert!(Path::new(TRACE).is_file(), "missing bundled trace {TRACE}");
    let dir = tempfile::tempdir().unwrap();
    let exp = dir.path().join("exp.toml");
    std::fs::write(
        &exp,
        format!(
            r#"name = "sqlite-wal report"
traces = [{{ path = "{TRACE}", name = "sqlite-wal" }}]
policies = ["lru", "clock", "cflru"]
cache_sizes = ["5%", "25%"]
devices = ["none", "microsd-16g"]
"#
        ),
    )
    .unwrap();
    let plan = Experiment::load(&exp).unwrap();
    let out = dir.path().join("out");
    let study = std::sync::Arc::new(GridStudy::new(plan, Some(&out)));
    let done = execute(&study, &RunOptions::stored(&out, 1), &mut Quiet).unwrap();
    let html = std::fs::read_to_string(done.report.unwrap()).unwrap();

    // Provenance: first thing after the title, and the same facts in the JSON file.
    let prov: Provenance =
        serde_json::from_slice(&std::fs::read(out.join("provenance.json")).unwrap()).unwrap();
    assert_eq!(prov.version, wafer_lab::VERSION);
    assert!(!prov.commit.is_empty() && !prov.hostname.is_empty());
    assert!(prov.cpus > 0 && prov.date.ends_with('Z'));
    let block = html
        .find("<table id=\"provenance\"")
        .expect("provenance block");
    assert!(block < html.find("<h2").unwrap(), "provenance comes first");
    for v in [&prov.commit, &prov.hostname, &prov.os] {
        assert!(html.contains(&wafer_lab::plot::esc(v)), "{v} in the report");
    }
    assert!(html.contains(&prov.date[..10]));

    // Table of contents: every link resolves, every section and figure is linked.
    let ids = attr_values(&html, "id=\"");
    let links: Vec<String> = attr_values(&html, "href=\"#").into_iter().collect();
    assert!(!links.is_empty());
    for l in &links {
        assert!(ids.contains(l), "link #{l} has no anchor");
    }
    for s in [
        "provenance",
        "traces",
        "figures",
        "results",
        "configuration",
    ] {
        assert!(links.iter().any(|l| l == s), "contents link to {s}");
    }
    assert!(!done.figures.is_empty());
    let kinds: BTreeSet<&str> = [
        "hit-ratio",
        "erases",
        "erases-relative",
        "write-backs-relative",
    ]
    .into_iter()
    .collect();
    for k in kinds {
        assert!(
            done.figures
                .iter()
                .any(|p| p.file_stem().unwrap().to_string_lossy().starts_with(k)),
            "a {k} figure"
        );
    }

    // Every figure in every form, each linked from the report and its PDF well formed.
    for svg in &done.figures {
        let stem = svg.file_stem().unwrap().to_string_lossy().into_owned();
        assert!(links.contains(&stem), "contents link to {stem}");
        for ext in FORMATS {
            let p = svg.with_extension(ext);
            assert!(p.is_file(), "{}", p.display());
            assert!(html.contains(&format!("href=\"figures/{stem}.{ext}\"")));
        }
        assert!(roxmltree::Document::parse(&std::fs::read_to_string(svg).unwrap()).is_ok());
        let png = std::fs::read(svg.with_extension("png")).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{stem}");
        check_pdf(&std::fs::read(svg.with_extension("pdf")).unwrap(), &stem);
    }
}

/// The values of every `prefix...="` attribute in `html` (up to the closing quote).
fn attr_values(html: &str, prefix: &str) -> BTreeSet<String> {
    html.match_indices(prefix)
        .map(|(i, _)| {
            let rest = &html[i + prefix.len()..];
            rest[..rest.find('"').unwrap()].to_string()
        })
        .collect()
}

/// A PDF as readers need it: the header, a cross-reference table at `startxref`
/// whose every in-use entry points at its object, a trailer whose `/Root` is a
/// catalog, and exactly one page whose media box is the chart's 720 x 440 user units
/// at 96 per inch (540 x 330 pt).
fn check_pdf(pdf: &[u8], stem: &str) {
    assert!(pdf.starts_with(b"%PDF-1."), "{stem}: header");
    // Byte offsets matter: binary stream bytes become one `?` each.
    let text: String = pdf
        .iter()
        .map(|&b| if b.is_ascii() { b as char } else { '?' })
        .collect();
    let tail = &text[text.rfind("startxref").expect("startxref")..];
    let xref: usize = tail.lines().nth(1).unwrap().trim().parse().unwrap();
    assert!(tail.trim_end().ends_with("%%EOF"), "{stem}: %%EOF");
    let table = &text[xref..];
    assert!(table.starts_with("xref"), "{stem}: xref at startxref");
    let mut lines = table.lines().skip(1);
    let sub: Vec<usize> = lines
        .next()
        .unwrap()
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    let (first, count) = (sub[0], sub[1]);
    let mut objects = Vec::new();
    for (k, line) in lines.take(count).enumerate() {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f[2] == "n" {
            let off: usize = f[0].parse().unwrap();
            let head = format!("{} {} obj", first + k, f[1].parse::<u32>().unwrap());
            assert!(text[off..].starts_with(&head), "{stem}: object {head}");
            objects.push((first + k, off));
        }
    }
    assert!(objects.len() >= 3, "{stem}: catalog, pages, page");
    let body = |n: usize| {
        let off = objects.iter().find(|o| o.0 == n).expect("object in xref").1;
        let end = text[off..].find("endobj").unwrap();
        text[off..off + end].to_string()
    };
    let trailer = &table[table.find("trailer").expect("trailer")..];
    let root: usize = trailer[trailer.find("/Root").unwrap() + 5..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(body(root).contains("/Type /Catalog"), "{stem}: catalog");
    let pages: Vec<String> = objects
        .iter()
        .map(|o| body(o.0))
        .filter(|b| b.contains("/Type /Page\n") || b.contains("/Type /Page "))
        .collect();
    assert_eq!(pages.len(), 1, "{stem}: one page");
    assert!(
        pages[0].contains("/MediaBox [0 0 540 330]"),
        "{stem}: {}",
        pages[0]
    );
}

/// A trace wider than the device: with `address_map = "wrap"` it is folded onto the
/// device and the report opens with a note giving the count of wrapped operations
/// (the `ftl_remapped_ops` column); with the default, compact, nothing is folded and
/// the setup line says how the addresses were placed; a trace that fits is not
/// folded by wrap either.
#[test]
fn folded_addresses_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let run = |footprint: &str, map: &str, name: &str| {
        let exp = dir.path().join(format!("{name}.toml"));
        std::fs::write(
            &exp,
            format!(
                r#"name = "fold"
traces = [{{ gen = {{ kind = "uniform", requests = 3000, footprint = "{footprint}", write_ratio = 1.0, seed = 3 }}, name = "u" }}]
policies = ["lru"]
cache_sizes = ["64KiB"]
devices = ["microsd-16g"]
address_map = "{map}"
[outputs]
figures = []
"#
            ),
        )
        .unwrap();
        let plan = Experiment::load(&exp).unwrap();
        let out = dir.path().join(name);
        let study = std::sync::Arc::new(GridStudy::new(plan, Some(&out)));
        let done = execute(&study, &RunOptions::stored(&out, 1), &mut Quiet).unwrap();
        let html = std::fs::read_to_string(done.report.unwrap()).unwrap();
        let moved = done.outcome.results[0].ftl.as_ref().unwrap().remapped_ops;
        (html, moved)
    };
    let (html, wrapped) = run("64GiB", "wrap", "wide");
    assert!(wrapped > 1000, "{wrapped}");
    assert!(
        html.contains(&format!(
            "addresses folded: in 1 of 1 device cells (u) the trace reaches beyond the device's logical capacity, and address_map = &quot;wrap&quot; wrapped {wrapped} storage operations"
        )),
        "no folding note"
    );
    let (html, moved) = run("64GiB", "compact", "compact");
    assert!(moved > 1000, "{moved}");
    assert!(!html.contains("addresses folded"));
    assert!(
        html.contains(&format!(
            "1 device columns; addresses: address map compact, each trace's erase blocks (FAST, block-level) or pages (page-level) placed on the device in first-touch order, offsets kept, nothing folded; {moved} storage operations moved"
        )),
        "no setup line"
    );
    let (html, wrapped) = run("1GiB", "wrap", "fits");
    assert_eq!(wrapped, 0);
    assert!(!html.contains("addresses folded"));
    assert!(html.contains("address map wrap, pages modulo the device's logical capacity; 0 storage operations wrapped"));
}

/// Traces whose names differ only in case or punctuation (`Mail`, `mail`, `mail!`)
/// each get their own figure files; they overwrote one another's `hit-ratio-mail`.
#[test]
fn traces_named_alike_get_their_own_figure_files() {
    let dir = tempfile::tempdir().unwrap();
    let exp = dir.path().join("exp.toml");
    let gen = |name: &str, seed: u32| {
        format!(
            r#"{{ gen = {{ kind = "uniform", requests = 2000, footprint = "4MiB", seed = {seed} }}, name = "{name}" }}"#
        )
    };
    std::fs::write(
        &exp,
        format!(
            r#"name = "alike"
traces = [{}, {}, {}]
policies = ["lru", "clock"]
cache_sizes = ["5%", "25%"]
[outputs]
figures = ["hit-ratio"]
report = false
"#,
            gen("Mail", 1),
            gen("mail", 2),
            gen("mail!", 3)
        ),
    )
    .unwrap();
    let plan = Experiment::load(&exp).unwrap();
    let out = dir.path().join("out");
    let study = std::sync::Arc::new(GridStudy::new(plan, Some(&out)));
    let done = execute(&study, &RunOptions::stored(&out, 1), &mut Quiet).unwrap();
    let svgs: BTreeSet<_> = std::fs::read_dir(out.join("figures"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_lowercase())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    assert_eq!(done.figures.len(), 3, "{:?}", done.figures);
    assert_eq!(svgs.len(), 3, "{svgs:?}");
    assert!(
        svgs.iter().all(|n| n.starts_with("hit-ratio-mail-")),
        "{svgs:?}"
    );
}
