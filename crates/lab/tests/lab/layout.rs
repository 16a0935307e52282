//! The modules of `wafer-lab` depend on each other in one direction: they sit in
//! folders by role (`src/describe`, `keep`, `judge`, `show`, `run`, `studies`, in the
//! order `lib.rs` gives them), and a module uses only modules of its own role and
//! the roles above it, without circles (docs/extending.md, "Where things live"). A use
//! against the order, or a circle, means an item sits in the wrong file; the tests
//! name it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every module of `src/<role>/` (one file each; `mod.rs` only declares them): its
/// role and its text.
fn modules(src: &Path) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    for role in std::fs::read_dir(src).unwrap() {
        let dir = role.unwrap().path();
        if !dir.is_dir() {
            let name = dir.file_name().unwrap().to_string_lossy();
            assert_eq!(
                name, "lib.rs",
                "src/{name}: a module belongs in the folder of its role"
            );
            continue;
        }
        let role = dir.file_name().unwrap().to_string_lossy().into_owned();
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            if p.extension().is_some_and(|x| x == "rs") && name != "mod" {
                let text = std::fs::read_to_string(&p).unwrap();
                assert!(
                    out.insert(name.clone(), (role.clone(), text)).is_none(),
                    "{name} twice"
                );
            }
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

/// The roles in the order `lib.rs` gives them (`// Roles, in order: a, b, ...`).
fn role_order(lib: &str) -> Vec<String> {
    let line = lib
        .lines()
        .find_map(|l| l.strip_prefix("// Roles, in order: "))
        .expect("lib.rs names the roles' order");
    line.trim_end_matches('.')
        .split(", ")
        .map(String::from)
        .collect()
}

/// Every module's uses of the other modules.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mods = modules(&src);
    assert!(mods.len() > 10, "modules of {} not found", src.display());
    mods.iter()
        .map(|(m, (_, text))| {
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
    let order = role_order(include_str!("../../src/lib.rs"));
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mods = modules(&src);
    let rank = |m: &str| {
        let role = &mods[m].0;
        let at = order.iter().position(|r| r == role);
        (
            at.unwrap_or_else(|| panic!("lib.rs does not declare role {role}")),
            role.clone(),
        )
    };
    let against: Vec<String> = graph()
        .iter()
        .flat_map(|(m, deps)| deps.iter().map(move |d| (m.clone(), d.clone())))
        .filter(|(m, d)| rank(d).0 > rank(m).0)
        .map(|(m, d)| format!("{m} ({}) uses {d} ({})", rank(&m).1, rank(&d).1))
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
