//! The registry: every policy by name, its parameters, and the one dynamic choice of
//! a run.
//!
//! One line per policy in the `policies!` invocation below produces the static table
//! [`POLICIES`] (read by `wafer policies`, the docs and the CLI's error messages), the
//! parameter validation behind [`PolicySpec::parse`], and the dispatch in
//! [`run_policy`], which matches the name once and calls the monomorphised
//! [`simulate`] of the concrete type.
//!
//! Spec syntax: `name[:key=value[,key=value...]]`, e.g. `ts-clock:ppb=1024` or
//! `clock:insert_ref=0`. Names and aliases match case-insensitively; `_` and `-` are
//! interchangeable in names. Keys must be among the policy's [`ParamSet::SPECS`];
//! values are checked by the policy's [`ParamSet::set`].

use crate::after::AfterSink;
use crate::engine::{simulate, Input, SimConfig};
use crate::error::SimError;
use crate::external::{self, External, ExternalParams};
use crate::metrics::Metrics;
use crate::policy::{ParamError, ParamSet, ParamSpec, Policy};

/// What the registry knows about one policy.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct PolicyInfo {
    /// Canonical name.
    pub name: &'static str,
    /// Other accepted names.
    pub aliases: &'static [&'static str],
    /// One line.
    pub summary: &'static str,
    /// Full citation.
    pub citation: &'static str,
    /// The implementation or variant it follows ([`Policy::FOLLOWS`]; may be empty).
    pub follows: &'static str,
    /// Whether it treats clean and dirty pages (or flash blocks) differently.
    pub flash_aware: bool,
    /// Whether it is offline (needs the future of the trace).
    pub offline: bool,
    /// Whether it works on erase blocks.
    pub block_aware: bool,
    /// Whether read misses bypass the cache (a write buffer; see
    /// [`Policy::BYPASSES_READS`]).
    pub bypasses_reads: bool,
    /// Its parameters.
    pub params: &'static [ParamSpec],
}

impl PolicyInfo {
    /// The entry of policy `P`.
    pub const fn of<P: Policy>() -> PolicyInfo {
        PolicyInfo {
            name: P::NAME,
            aliases: P::ALIASES,
            summary: P::SUMMARY,
            citation: P::CITATION,
            follows: P::FOLLOWS,
            flash_aware: P::FLASH_AWARE,
            offline: P::NEEDS_NEXT_USE,
            block_aware: P::BLOCK_AWARE,
            bypasses_reads: P::BYPASSES_READS,
            params: <P::Params as ParamSet>::SPECS,
        }
    }

    /// Whether `name` names this policy.
    pub fn matches(&self, name: &str) -> bool {
        let norm = |s: &str| s.trim().to_ascii_lowercase().replace('_', "-");
        let n = norm(name);
        norm(self.name) == n || self.aliases.iter().any(|a| norm(a) == n)
    }
}

/// A policy chosen by name with its parameters, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicySpec {
    /// Canonical policy name.
    pub name: &'static str,
    /// `key=value` pairs in the order given.
    pub params: Vec<(String, String)>,
}

impl PolicySpec {
    /// Parse and validate `name[:key=value,...]`.
    pub fn parse(text: &str) -> Result<PolicySpec, SimError> {
        let (name, rest) = if external::is_external(text.trim_start()) {
            external::split_spec(text.trim()).map_err(SimError::Invalid)?
        } else {
            match text.split_once(':') {
                Some((n, r)) => (n, Some(r)),
                None => (text, None),
            }
        };
        let info = find(name)?;
        let mut params = Vec::new();
        for kv in rest.into_iter().flat_map(|r| r.split(',')) {
            let kv = kv.trim();
            if kv.is_empty() {
                continue;
            }
            let (k, v) = kv.split_once('=').ok_or_else(|| ParamError {
                policy: info.name.into(),
                msg: format!("expected key=value, found `{kv}`"),
            })?;
            params.push((k.trim().to_string(), v.trim().to_string()));
        }
        let spec = PolicySpec {
            name: info.name,
            params,
        };
        validate(&spec)?;
        Ok(spec)
    }

    /// The registry entry.
    pub fn info(&self) -> &'static PolicyInfo {
        POLICIES
            .iter()
            .find(|p| p.name == self.name)
            .or_else(|| external::lookup(self.name).ok().map(|r| r.info))
            .expect("a parsed spec names a registered policy")
    }

    /// `name` or `name:k=v,...` as given (canonical name).
    pub fn label(&self) -> String {
        if self.params.is_empty() {
            return self.name.to_string();
        }
        let kv: Vec<String> = self
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{}:{}", self.name, kv.join(","))
    }

    /// The typed parameters of `P`, built from the pairs.
    pub fn params_of<P: Policy>(&self) -> Result<P::Params, ParamError> {
        let mut p = P::Params::default();
        let specs = <P::Params as ParamSet>::SPECS;
        for (k, v) in &self.params {
            if !specs.iter().any(|s| s.name == k.as_str()) {
                let keys: Vec<&str> = specs.iter().map(|s| s.name).collect();
                let allowed = if keys.is_empty() {
                    "it takes no parameters".to_string()
                } else {
                    format!("known parameters: {}", keys.join(", "))
                };
                return Err(ParamError {
                    policy: P::NAME.into(),
                    msg: format!(
                        "unknown parameter `{k}` ({allowed}){}",
                        wafer_trace::suggest::hint(k, keys.iter().copied())
                    ),
                });
            }
            p.set(k, v).map_err(|msg| ParamError {
                policy: P::NAME.into(),
                msg: format!("{k}: {msg}"),
            })?;
        }
        Ok(p)
    }
}

impl std::str::FromStr for PolicySpec {
    type Err = SimError;
    fn from_str(s: &str) -> Result<Self, SimError> {
        PolicySpec::parse(s)
    }
}

impl std::fmt::Display for PolicySpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label())
    }
}

/// The entry named `name` (or an alias), or an error listing all names. A
/// `py:module:Class` name is an external policy's ([`crate::external`]), found in its
/// table or by its resolver.
pub fn find(name: &str) -> Result<&'static PolicyInfo, SimError> {
    if external::is_external(name.trim_start()) {
        return external::lookup(name.trim())
            .map(|r| r.info)
            .map_err(SimError::Invalid);
    }
    POLICIES
        .iter()
        .find(|p| p.matches(name))
        .ok_or_else(|| unknown_policy(name))
}

/// The refusal of policy name `name`, with a "did you mean" among names and aliases.
fn unknown_policy(name: &str) -> SimError {
    let known = POLICIES
        .iter()
        .flat_map(|p| std::iter::once(p.name).chain(p.aliases.iter().copied()));
    SimError::UnknownPolicy {
        name: name.trim().to_string(),
        known: names().join(", "),
        hint: wafer_trace::suggest::hint(name, known),
    }
}

/// Canonical names of all registered policies, in table order.
pub fn names() -> Vec<&'static str> {
    POLICIES.iter().map(|p| p.name).collect()
}

/// Calls a generic function with the concrete policy type a spec names.
///
/// Implement it for a "generic closure" and pass it to [`with_policy`]: the registry
/// matches the name once and calls [`PolicyVisitor::visit`] with the concrete type, so
/// everything inside is monomorphised.
pub trait PolicyVisitor {
    /// What the visit returns.
    type Output;
    /// Called with the concrete policy type and its typed parameters.
    fn visit<P: Policy>(self, params: P::Params) -> Self::Output;
}

/// Run `v` with the concrete policy type of `spec`.
pub fn with_policy<V: PolicyVisitor>(spec: &PolicySpec, v: V) -> Result<V::Output, SimError> {
    dispatch(spec, v)
}

fn validate(spec: &PolicySpec) -> Result<(), SimError> {
    struct Check;
    impl PolicyVisitor for Check {
        type Output = ();
        fn visit<P: Policy>(self, _: P::Params) {}
    }
    with_policy(spec, Check)
}

/// Run the policy `spec` names over `input` (see [`simulate`]).
pub fn run_policy<A: AfterSink>(
    spec: &PolicySpec,
    input: Input<'_>,
    cfg: &SimConfig,
    after: &mut A,
    progress: &mut dyn FnMut(u64),
) -> Result<Metrics, SimError> {
    struct Run<'a, 'i, A> {
        input: Input<'i>,
        cfg: &'a SimConfig,
        after: &'a mut A,
        progress: &'a mut dyn FnMut(u64),
    }
    impl<A: AfterSink> PolicyVisitor for Run<'_, '_, A> {
        type Output = Result<Metrics, SimError>;
        fn visit<P: Policy>(self, params: P::Params) -> Self::Output {
            simulate::<P, A>(&params, self.input, self.cfg, self.after, self.progress)
        }
    }
    with_policy(
        spec,
        Run {
            input,
            cfg,
            after,
            progress,
        },
    )?
}

macro_rules! policies {
    ($($module:ident :: $ty:ident),* $(,)?) => {
        /// Every registered policy, in the order `wafer policies` lists them.
        pub static POLICIES: &[PolicyInfo] = &[
            $(PolicyInfo::of::<crate::policies::$module::$ty>(),)*
        ];

        fn dispatch<V: PolicyVisitor>(spec: &PolicySpec, v: V) -> Result<V::Output, SimError> {
            if external::is_external(spec.name) {
                let r = external::lookup(spec.name).map_err(SimError::Invalid)?;
                r.factory.check(&spec.params).map_err(|msg| ParamError {
                    policy: r.factory.display(),
                    msg,
                })?;
                let params = ExternalParams {
                    factory: Some(r.factory),
                    pairs: spec.params.clone(),
                };
                return Ok(v.visit::<External>(params));
            }
            $(
                if spec.name == <crate::policies::$module::$ty as Policy>::NAME {
                    let params = spec.params_of::<crate::policies::$module::$ty>()?;
                    return Ok(v.visit::<crate::policies::$module::$ty>(params));
                }
            )*
            Err(unknown_policy(&spec.name))
        }
    };
}

policies! {
    lru::Lru,
    fifo::Fifo,
    clock::Clock,
    sieve::Sieve,
    opt::Opt,
    linux2q::Linux2Q,
    two_q::TwoQ,
    arc::Arc,
    car::Car,
    clock_pro::ClockPro,
    lirs::Lirs,
    s3fifo::S3Fifo,
    s3fifo::S3FifoV0,
    fab::Fab,
    bplru::Bplru,
    lb_clock::LbClock,
    bua::Bua,
    craw::Craw,
    craw_a::CrawA,
    cflru::Cflru,
    cfclock::CfClock,
    lru_wsr::LruWsr,
    sorted_clock::SortedClock,
    sorted_clock_wsr::SortedClockWsr,
    ts_clock::TsClock,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_documented_and_unique() {
        let mut seen = std::collections::HashSet::new();
        for p in POLICIES {
            assert!(!p.summary.trim().is_empty(), "{}: empty summary", p.name);
            assert!(!p.citation.trim().is_empty(), "{}: empty citation", p.name);
            assert_eq!(p.name, p.name.to_ascii_lowercase(), "names are lower case");
            for n in std::iter::once(p.name).chain(p.aliases.iter().copied()) {
                assert!(seen.insert(n.replace('_', "-")), "duplicate name {n}");
            }
            for s in p.params {
                assert!(!s.doc.is_empty(), "{}.{}: no doc", p.name, s.name);
            }
        }
    }

    /// The hand-written table of `docs/cache.md` ("Policies and parameters") names
    /// the aliases and parameter keys the registry has, for every policy it lists.
    #[test]
    fn docs_table_matches_the_registry() {
        let doc = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/cache.md"));
        let section = doc
            .split("## Policies and parameters")
            .nth(1)
            .expect("docs/cache.md has the policy table");
        /// Backticked words of a cell, each with what follows it.
        fn ticked(cell: &str) -> Vec<(&str, &str)> {
            let parts: Vec<&str> = cell.split('`').collect();
            (1..parts.len())
                .step_by(2)
                .map(|i| (parts[i], parts.get(i + 1).copied().unwrap_or("")))
                .collect()
        }
        let mut rows = 0;
        for line in section.lines().take_while(|l| !l.starts_with("## ")) {
            let cells: Vec<&str> = line.split('|').skip(1).map(str::trim).collect();
            if !line.starts_with("| `") || cells.len() < 5 {
                continue;
            }
            rows += 1;
            let name = cells[0].trim_matches('`');
            let info = find(name).unwrap_or_else(|_| panic!("docs name unknown `{name}`"));
            assert_eq!(info.name, name, "docs use an alias as the name");
            let aliases: Vec<&str> = ticked(cells[1]).into_iter().map(|(a, _)| a).collect();
            assert_eq!(aliases, info.aliases, "{name}: aliases in docs/cache.md");
            let params = cells[2].trim();
            let keys: Vec<&str> = match params.strip_prefix("as ") {
                Some(other) => find(other.trim_matches('`'))
                    .unwrap()
                    .params
                    .iter()
                    .map(|s| s.name)
                    .collect(),
                None => ticked(params)
                    .into_iter()
                    .filter(|(_, after)| after.starts_with(" ="))
                    .map(|(k, _)| k)
                    .collect(),
            };
            let have: Vec<&str> = info.params.iter().map(|s| s.name).collect();
            assert_eq!(keys, have, "{name}: parameters in docs/cache.md");
        }
        assert!(rows >= 10, "found {rows} policy rows in docs/cache.md");
    }

    #[test]
    fn parses_names_and_parameters() {
        let s = PolicySpec::parse("CLOCK:insert_ref=0").unwrap();
        assert_eq!(s.name, "clock");
        assert_eq!(s.params, vec![("insert_ref".into(), "0".into())]);
        assert_eq!(s.label(), "clock:insert_ref=0");
        assert_eq!(PolicySpec::parse("lru").unwrap().label(), "lru");
    }

    #[test]
    fn unknown_policy_lists_all_names() {
        let e = PolicySpec::parse("nope").unwrap_err().to_string();
        assert!(e.contains("unknown policy `nope`"), "{e}");
        for n in names() {
            assert!(e.contains(n), "{e} lacks {n}");
        }
    }

    #[test]
    fn unknown_key_lists_the_policys_keys() {
        let e = PolicySpec::parse("clock:x=1").unwrap_err().to_string();
        assert!(e.contains("unknown parameter `x`"), "{e}");
        assert!(e.contains("insert_ref"), "{e}");
        let e = PolicySpec::parse("lru:x=1").unwrap_err().to_string();
        assert!(e.contains("takes no parameters"), "{e}");
    }

    #[test]
    fn bad_value_reports_the_policys_message() {
        let e = PolicySpec::parse("clock:insert_ref=7")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("clock: insert_ref:"), "{e}");
        let e = PolicySpec::parse("clock:insert_ref")
            .unwrap_err()
            .to_string();
        assert!(e.contains("expected key=value"), "{e}");
    }
}
