//! Every engine option is one declaration ([`wafer_lab::options`]): walked field by
//! field, its CLI flag, experiment-file key and Python keyword exist under the same
//! name, with the same default, the same aliases, the same value for the same text
//! and the same refusal of a bad value; `python/wafer/_wafer.pyi` lists exactly
//! these options with these defaults.

use std::path::Path;

use clap::{Args, FromArgMatches};
use wafer_lab::options::{self, table, EngineOptions, OptionInfo};
use wafer_lab::Experiment;

/// The options clap parses from `argv` (after the program name).
fn cli(argv: &[&str]) -> Result<EngineOptions, String> {
    let cmd = EngineOptions::augment_args(clap::Command::new("wafer").no_binary_name(true));
    let m = cmd.try_get_matches_from(argv).map_err(|e| e.to_string())?;
    EngineOptions::from_arg_matches(&m).map_err(|e| e.to_string())
}

/// The options an experiment file with the line `extra` gives.
fn file(extra: &str) -> Result<Experiment, String> {
    toml::from_str(&format!(
        "name = \"t\"\npolicies = [\"lru\"]\ncache_sizes = [\"1MiB\"]\n{extra}\n"
    ))
    .map_err(|e| e.to_string())
}

/// A value other than the default, as the text every front end takes.
fn other_value(o: &OptionInfo) -> (String, serde_json::Value) {
    match o.kind {
        "size" => ("8KiB".into(), "8KiB".into()),
        "int" => ("7".into(), 7.into()),
        "bool" => ("true".into(), true.into()),
        "text" => {
            let v = o
                .choices
                .iter()
                .find(|c| o.default != c.as_str())
                .expect("a second choice")
                .clone();
            (v.clone(), v.into())
        }
        k => panic!("{}: unknown kind {k}", o.name),
    }
}

/// The TOML of a JSON scalar.
fn toml_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

#[test]
fn every_option_is_one_name_with_one_default_on_every_front_end() {
    let defaults = EngineOptions::default();
    // Nothing given: each front end has the same defaults.
    assert_eq!(cli(&[]).unwrap(), defaults);
    assert_eq!(file("").unwrap().options, defaults);
    assert_eq!(EngineOptions::from_json("{}").unwrap(), defaults);
    // The defaults survive a round trip through every serde form.
    let text = toml::to_string(&defaults).unwrap();
    assert_eq!(toml::from_str::<EngineOptions>(&text).unwrap(), defaults);
    let json = serde_json::to_string(&defaults).unwrap();
    assert_eq!(EngineOptions::from_json(&json).unwrap(), defaults);

    let cmd = EngineOptions::augment_args(clap::Command::new("wafer"));
    let args: Vec<_> = cmd.get_arguments().collect();
    let serialized = serde_json::to_value(&defaults).unwrap();
    let keys: Vec<&String> = serialized.as_object().unwrap().keys().collect();
    assert_eq!(args.len(), keys.len(), "a field clap or serde does not see");
    assert_eq!(table().len(), args.len());
    for ((a, key), o) in args.iter().zip(&keys).zip(table()) {
        let name = a.get_id().as_str();
        // One name: the field's, the TOML key and Python keyword; the flag is it
        // with dashes.
        assert_eq!(name, key.as_str());
        assert_eq!(o.name, name);
        assert_eq!(
            a.get_long(),
            Some(name.replace('_', "-").as_str()),
            "{name}"
        );
        assert_eq!(o.flag, format!("--{}", name.replace('_', "-")));
        assert!(!o.doc.is_empty(), "{name}: a doc comment is its --help");
        // clap's default is the serde default.
        let clap_default: Vec<String> = a
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        let serde_default = match &serialized[name] {
            serde_json::Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        assert_eq!(clap_default, std::slice::from_ref(&serde_default), "{name}");
        assert_eq!(o.default, serialized[name], "{name}");

        // A value other than the default means the same on every front end, under
        // the name and under every former spelling.
        let (text, json) = other_value(o);
        let flag = format!("--{}", name.replace('_', "-"));
        let by_cli = match o.kind {
            "bool" => cli(&[&flag]),
            _ => cli(&[&flag, &text]),
        }
        .unwrap();
        assert_ne!(by_cli, defaults, "{name}: the value changes nothing");
        let spellings = std::iter::once(name.to_string()).chain(o.aliases.iter().cloned());
        for spelling in spellings {
            let by_file = file(&format!("{spelling} = {}", toml_value(&json)))
                .unwrap()
                .options;
            assert_eq!(by_file, by_cli, "{spelling} in a file");
            let by_json =
                EngineOptions::from_json(&serde_json::json!({ &spelling: json }).to_string())
                    .unwrap();
            assert_eq!(by_json, by_cli, "{spelling} from Python");
            let dashed = format!("--{}", spelling.replace('_', "-"));
            let by_alias = match o.kind {
                "bool" => cli(&[&dashed]),
                _ => cli(&[&dashed, &text]),
            }
            .unwrap();
            assert_eq!(by_alias, by_cli, "{dashed}");
        }
        // A name and its former spelling together are refused.
        if let Some(alias) = o.aliases.first() {
            let v = toml_value(&json);
            let e = file(&format!("{name} = {v}\n{alias} = {v}")).unwrap_err();
            assert!(e.contains("is given twice"), "{e}");
        }
    }
}

#[test]
fn serde_knows_exactly_the_names_and_aliases_clap_knows() {
    // An unknown key lists what serde accepts: the names and aliases.
    let e = EngineOptions::from_json("{\"colour\": 1}").unwrap_err();
    for o in table() {
        assert!(e.contains(&format!("`{}`", o.name)), "{e}");
    }
    // Every spelling serde takes is one clap takes (with dashes), and no other.
    let err = toml::from_str::<EngineOptions>("colour = 1")
        .unwrap_err()
        .to_string();
    let listed: Vec<&str> = err
        .split("expected one of ")
        .nth(1)
        .unwrap()
        .trim()
        .split(", ")
        .map(|s| s.trim_matches('`'))
        .collect();
    let mut clap_spellings: Vec<String> = table()
        .iter()
        .flat_map(|o| std::iter::once(o.name.clone()).chain(o.aliases.iter().cloned()))
        .collect();
    let mut serde_spellings: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
    clap_spellings.sort();
    serde_spellings.sort();
    assert_eq!(serde_spellings, clap_spellings);
}

/// `(option, bad value, the message every front end gives after its location)`.
const REFUSED: [(&str, &str, &str); 4] = [
    (
        "block_size",
        "3KiB",
        "\"3KiB\" must be a multiple of the 4096 B page (at most 2^32-1 pages)",
    ),
    (
        "page_size",
        "3000",
        "\"3000\": page size 3000 B must be a power of two from 512 B to 1 GiB (e.g. 4KiB)",
    ),
    (
        "t_read_ns",
        "2000000000",
        "2000000000 ns per page is more than 1000000000 ns (one second), the largest cost",
    ),
    (
        "t_write_ns",
        "2000000000",
        "2000000000 ns per page is more than 1000000000 ns (one second), the largest cost",
    ),
];

#[test]
fn a_bad_value_is_refused_alike_by_every_front_end() {
    for (name, bad, want) in REFUSED {
        let o = options::find(name).unwrap();
        let quoted = match o.kind {
            "size" | "text" => format!("{bad:?}"),
            _ => bad.to_string(),
        };
        // The CLI: the flag names it.
        let by_cli = cli(&[&o.flag, bad]).unwrap();
        let e = by_cli.check(&|k| options::flag(k)).unwrap_err().to_string();
        assert_eq!(e, format!("{}: {want}", o.flag));
        // The experiment file: its key, after the file.
        let exp = file(&format!("{name} = {quoted}")).unwrap();
        let e = exp
            .settings_as(&|k| format!("exp.toml: {k}"), Path::new("/"))
            .unwrap_err()
            .to_string();
        assert_eq!(e, format!("exp.toml: {name}: {want}"));
        // Python: the keyword.
        let by_py =
            EngineOptions::from_json(&format!("{{\"{name}\": {}}}", serde_json::json!(bad)))
                .or_else(|_| EngineOptions::from_json(&format!("{{\"{name}\": {bad}}}")))
                .unwrap();
        let e = by_py.check(&|k| k.to_string()).unwrap_err().to_string();
        assert_eq!(e, format!("{name}: {want}"));
    }
}

#[test]
fn a_malformed_size_is_refused_where_it_is_written() {
    let e = cli(&["--block-size", "12 apples"]).unwrap_err();
    assert!(e.contains("unknown unit `apples`"), "{e}");
    let e = file("block_size = \"12 apples\"").unwrap_err();
    assert!(
        e.contains("line 4") && e.contains("unknown unit `apples`"),
        "{e}"
    );
    let e = EngineOptions::from_json("{\"block_size\": \"12 apples\"}").unwrap_err();
    assert!(e.contains("unknown unit `apples`"), "{e}");
}

#[test]
fn the_former_places_of_cost_and_series_every_are_read() {
    let exp = file("[cost]\nt_read_ns = 5\nt_write_ns = 6\n[outputs]\nseries_every = 9").unwrap();
    assert_eq!(
        (exp.options.t_read_ns, exp.options.t_write_ns),
        (5, 6),
        "[cost]"
    );
    assert_eq!(exp.options.series_every, 9, "[outputs] series_every");
    // Written back, they are top-level keys.
    let text = toml::to_string(&exp).unwrap();
    assert!(
        text.contains("\nt_read_ns = 5\n") && !text.contains("[cost]"),
        "{text}"
    );
    assert_eq!(toml::from_str::<Experiment>(&text).unwrap(), exp);
    // Given in both places: refused.
    let e = file("series_every = 1\n[outputs]\nseries_every = 9").unwrap_err();
    assert!(e.contains("`series_every` is given twice"), "{e}");
    let e = file("t_read_ns = 1\ncost = { t_read_ns = 2 }").unwrap_err();
    assert!(e.contains("`t_read_ns` is given twice"), "{e}");
}

#[test]
fn an_unknown_key_names_its_line_and_every_valid_key() {
    let e = file("colour = 1").unwrap_err();
    assert!(
        e.contains("line 4") && e.contains("unknown field `colour`"),
        "{e}"
    );
    for key in ["policies", "cache_sizes", "block_size", "series_every"] {
        assert!(e.contains(&format!("`{key}`")), "{key}: {e}");
    }
}

/// The keyword stub `engine_options(*, name: type = default, ...)` in
/// `python/wafer/_wafer.pyi`: its names and defaults, in order.
fn stub_options() -> Vec<(String, String)> {
    let pyi = concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/wafer/_wafer.pyi");
    let text = std::fs::read_to_string(pyi).unwrap();
    let start = text
        .find("def engine_options(")
        .expect("an engine_options stub");
    let body = &text[start..];
    let body = &body[..body.find(") -> ").unwrap()];
    body.lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "*,")
        .map(|l| {
            let (name, rest) = l.split_once(':').unwrap();
            let default = rest.split_once(" = ").expect("a default").1;
            (
                name.trim().to_string(),
                default.trim_end_matches(',').to_string(),
            )
        })
        .collect()
}

#[test]
fn the_python_stub_lists_exactly_the_options_with_their_defaults() {
    let want: Vec<(String, String)> = table()
        .iter()
        .map(|o| {
            let d = match &o.default {
                serde_json::Value::Bool(true) => "True".to_string(),
                serde_json::Value::Bool(false) => "False".to_string(),
                serde_json::Value::String(s) => format!("\"{s}\""),
                v => v.to_string(),
            };
            (o.name.clone(), d)
        })
        .collect();
    assert_eq!(stub_options(), want);
}
