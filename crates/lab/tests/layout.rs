//! The modules of `wafer-lab` depend on each other in one direction: `lib.rs` lists
//! them by role (describe, keep, judge, show, run, studies), and a module uses only
//! modules of its own role and the roles above it, without circles (docs/extending.md,
//! "Where things live"). A use against the order, or a circle, means an item sits in
//! the wrong file; the tests name it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module names of `src/` (one file each; `lib.rs` only declares them).
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(src).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        if p.extension().is_some_and(|x| x == "rs") && name != "lib" {
            out.insert(name, std::fs::read_to_string(&p).unwrap());
        }
    }
    out
}

/// The code of a module outside comments and its unit tests.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or(text);
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules `text` names: `crate::m::...` paths and the first segments of a
/// `use crate::{m::x, n, ...}` group.
fn uses(text: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (i, _) in text.match_indices("crate::") {
        let rest = &text[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => start = true,
                    c if depth == 1 && start && (c.is_alphanumeric() || c == '_') => {
                        out.insert(ident(&group[k..]));
                        start = false;
                    }
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out
}

/// A circle of the graph, if any (depth-first search with colours).
fn circle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        v: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(v.to_string(), 1);
        path.push(v.to_string());
        for w in &g[v] {
            match state.get(w.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = path.iter().position(|p| p == w).unwrap();
                    let mut c = path[at..].to_vec();
                    c.push(w.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(w, g, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(v.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for v in g.keys() {
        if !state.contains_key(v.as_str()) {
            if let Some(c) = visit(v, g, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

/// Each module's role, by `lib.rs`: the `// Role: ...` comment above its `pub mod`
/// line, as the role's index in the order they appear.
fn roles(lib: &str) -> BTreeMap<String, (usize, String)> {
    let mut out = BTreeMap::new();
    let mut role: Option<(usize, String)> = None;
    let mut n = 0;
    for line in lib.lines() {
        if let Some(c) = line.strip_prefix("// ") {
            if let Some((name, _)) = c.split_once(':') {
                if !name.contains(' ') {
                    role = Some((n, name.to_string()));
                    n += 1;
                }
            }
        } else if let Some(m) = line.strip_prefix("pub mod ") {
            let r = role
                .clone()
                .unwrap_or_else(|| panic!("lib.rs: module {m} has no role"));
            out.insert(m.trim_end_matches(';').to_string(), r);
        }
    }
    out
}

/// Every module's uses of the other modules.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mods = modules(&src);
    assert!(mods.len() > 10, "modules of {} not found", src.display());
    mods.iter()
        .map(|(m, text)| {
            let deps = uses(&code(text))
                .into_iter()
                .filter(|d| d != m && mods.contains_key(d))
                .collect();
            (m.clone(), deps)
        })
        .collect()
}

#[test]
fn the_modules_import_without_circles() {
    if let Some(c) = circle(&graph()) {
        panic!("wafer-lab modules import in a circle: {}", c.join(" -> "));
    }
}

#[test]
fn each_module_uses_only_its_role_and_the_roles_above() {
    let lib = include_str!("../src/lib.rs");
    let roles = roles(lib);
    let g = graph();
    for m in g.keys() {
        assert!(
            roles.contains_key(m),
            "lib.rs does not list module {m} under a role"
        );
    }
    let against: Vec<String> = g
        .iter()
        .flat_map(|(m, deps)| deps.iter().map(move |d| (m, d)))
        .filter(|(m, d)| roles[*d].0 > roles[*m].0)
        .map(|(m, d)| format!("{m} ({}) uses {d} ({})", roles[m].1, roles[d].1))
        .collect();
    assert!(
        against.is_empty(),
        "uses against the roles' order: {}",
        against.join("; ")
    );
}

#[test]
fn the_circle_check_finds_a_circle() {
    // The check itself: two modules naming each other, one through a `use` group.
    let a = uses(&code("use crate::{b::X, error::E};\nfn f() {}"));
    let b = uses(&code("// crate::c is a comment\nfn g() { crate::a::f() }"));
    assert_eq!(a, ["b", "error"].map(String::from).into());
    assert_eq!(b, ["a"].map(String::from).into());
    let g: BTreeMap<String, BTreeSet<String>> = [("a".to_string(), a), ("b".to_string(), b)]
        .into_iter()
        .map(|(k, v)| (k, v.into_iter().filter(|d| d == "a" || d == "b").collect()))
        .collect();
    assert_eq!(circle(&g).unwrap(), ["a", "b", "a"].map(String::from));
}
