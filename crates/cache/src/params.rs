//! Policy parameters declared once.
//!
//! [`params!`](crate::params!) turns one line per parameter (field, key, type,
//! default, the default as shown to users, doc, parser) into the struct, its
//! `Default`, [`ParamSet::set`] and the [`ParamSpec`] table that `wafer policies`, the
//! docs and the registry's error messages read, so the four cannot drift apart.
//! [`NoParams`] is the parameter type of every policy that takes none.
//!
//! The parsers below carry the messages users see on a bad value; the registry
//! prefixes them with `policy: key:`.

use crate::policy::{parse_f64, parse_u32, ParamSet, ParamSpec};

/// Declare the parameters of a policy.
///
/// ```text
/// params! {
///     /// Parameters of [`Clock`].
///     pub struct ClockParams {
///         /// Reference bit of a newly inserted page.
///         insert_ref: u32 = 1,
///             doc "reference bit of a newly inserted page: 1 or 0",
///             parse bit;
///     }
/// }
/// ```
///
/// Per parameter: `field [as "key"]: Type = default, [shown "text",] doc "text",
/// parse parser;`. The key defaults to the field's name, the shown default to the
/// default expression as written; the parser is a `fn(&str) -> Result<Type, String>`
/// (a function or a closure that captures nothing) that also checks the range.
#[macro_export]
macro_rules! params {
    (@key $field:ident) => { stringify!($field) };
    (@key $field:ident $key:literal) => { $key };
    (@shown $default:expr) => { stringify!($default) };
    (@shown $default:expr, $shown:expr) => { $shown };
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident $(as $key:literal)? : $ty:ty = $default:expr,
                    $(shown $shown:expr,)?
                    doc $doc:expr,
                    parse $parse:expr;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $(
                $(#[$fmeta])*
                pub $field: $ty,
            )*
        }

        impl ::core::default::Default for $name {
            fn default() -> Self {
                $name {
                    $($field: $default,)*
                }
            }
        }

        impl $crate::policy::ParamSet for $name {
            const SPECS: &'static [$crate::policy::ParamSpec] = &[
                $(
                    $crate::policy::ParamSpec {
                        name: $crate::params!(@key $field $($key)?),
                        default: $crate::params!(@shown $default $(, $shown)?),
                        doc: $doc,
                    },
                )*
            ];

            fn set(&mut self, key: &str, value: &str) -> ::core::result::Result<(), String> {
                $(
                    if key == $crate::params!(@key $field $($key)?) {
                        let parse: fn(&str) -> ::core::result::Result<$ty, String> = $parse;
                        self.$field = parse(value)?;
                        return Ok(());
                    }
                )*
                Err(format!("unknown parameter `{key}`"))
            }
        }
    };
}

/// The parameters of a policy that takes none.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NoParams;

impl ParamSet for NoParams {
    const SPECS: &'static [ParamSpec] = &[];

    fn set(&mut self, key: &str, _: &str) -> Result<(), String> {
        Err(format!("unknown parameter `{key}`"))
    }
}

/// A reference bit: 0 or 1.
pub fn bit(value: &str) -> Result<u32, String> {
    match parse_u32(value)? {
        v @ (0 | 1) => Ok(v),
        _ => Err(format!("expected 0 or 1, found `{value}`")),
    }
}

/// A fraction in `[0, 1]` (a window of the cache).
pub fn fraction(value: &str) -> Result<f64, String> {
    let v = parse_f64(value)?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("expected a fraction in [0, 1], found `{value}`"))
    }
}

/// A share strictly between 0 and 1 (a queue that must hold something and leave room).
pub fn open_unit(value: &str) -> Result<f64, String> {
    let v = parse_f64(value)?;
    if v > 0.0 && v < 1.0 {
        Ok(v)
    } else {
        Err(format!("must be in (0, 1), found {v}"))
    }
}

/// One of the named `choices`, by its name (surrounding blanks ignored).
pub fn choice<T: Copy>(value: &str, choices: &[(&str, T)]) -> Result<T, String> {
    if let Some(&(_, v)) = choices.iter().find(|(n, _)| *n == value.trim()) {
        return Ok(v);
    }
    let names: Vec<String> = choices.iter().map(|(n, _)| format!("`{n}`")).collect();
    let list = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    };
    Err(format!("expected {list}, found `{value}`"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::parse_bool;

    params! {
        /// A test set.
        pub struct Demo {
            /// A bit.
            insert_ref: u32 = 1,
                doc "a bit",
                parse bit;
            /// Renamed key, shown default.
            dirty as "count": bool = false,
                shown "all",
                doc "what to count",
                parse |v| choice(v, &[("all", false), ("dirty", true)]);
            /// Plain flag.
            flag: bool = true,
                doc "a flag",
                parse parse_bool;
        }
    }

    #[test]
    fn one_declaration_gives_struct_default_set_and_specs() {
        let d = Demo::default();
        assert_eq!((d.insert_ref, d.dirty, d.flag), (1, false, true));
        let names: Vec<_> = Demo::SPECS.iter().map(|s| (s.name, s.default)).collect();
        assert_eq!(
            names,
            [("insert_ref", "1"), ("count", "all"), ("flag", "true")]
        );
        let mut d = Demo::default();
        d.set("count", " dirty").unwrap();
        d.set("insert_ref", "0").unwrap();
        assert_eq!((d.insert_ref, d.dirty), (0, true));
        assert_eq!(
            d.set("insert_ref", "7").unwrap_err(),
            "expected 0 or 1, found `7`"
        );
        assert_eq!(
            d.set("count", "x").unwrap_err(),
            "expected `all` or `dirty`, found `x`"
        );
        assert_eq!(
            d.set("dirty", "x").unwrap_err(),
            "unknown parameter `dirty`"
        );
    }

    #[test]
    fn choice_lists_every_name() {
        let e = choice("z", &[("a", 0), ("b", 1), ("c", 2)]).unwrap_err();
        assert_eq!(e, "expected `a`, `b` or `c`, found `z`");
    }
}
