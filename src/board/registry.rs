//! The variant registry: one definition per variant family — its name,
//! parameter schema, builder, XBoard name and example specs — from which
//! the spec parser ([`build`]), the UCI and XBoard variant options, the
//! `ndchess variants` listing and the tests' variant lists are all made.
//!
//! Adding a family is one entry in [`FAMILIES`] (and its builder, in
//! [`super::families`]); no other code names variants.

use std::sync::{Arc, RwLock};

use super::families::{chess, cube, diamond, finite, multiparty, raumschach, synchronous};
use super::variant::{Variant, VariantDef, VariantError};

/// What values a parameter takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// An integer from `min` to `max` in steps of `step` from `min`.
    Int {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
        /// Step between allowed values.
        step: i64,
    },
    /// One of the words.
    Choice(&'static [&'static str]),
    /// `0` or `1`.
    Flag,
}

/// A parameter's value when the spec does not give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamDefault {
    /// This value.
    Value(&'static str),
    /// Chosen by the family from the other parameters (described).
    Auto(&'static str),
    /// Drawn at random when the variant is built.
    Random,
}

/// A variant parameter (shared by the families that take it).
#[derive(Debug, PartialEq, Eq)]
pub struct Param {
    /// Its key in specs (`n` in `diamond:n=4`).
    pub key: &'static str,
    /// One line on what it means.
    pub doc: &'static str,
    /// The values it takes.
    pub kind: ParamKind,
    /// Its value when absent.
    pub default: ParamDefault,
    /// The UCI (and XBoard) option that sets it.
    pub option: &'static str,
}

impl Param {
    /// Checks a value given in a spec; returns it in canonical form.
    pub fn parse(&self, value: &str) -> Result<String, VariantError> {
        let bad = |expected: String| VariantError::BadValue {
            key: self.key.into(),
            value: value.into(),
            expected,
        };
        match self.kind {
            ParamKind::Int { min, max, step } => match value.parse::<i64>() {
                Ok(x) if (min..=max).contains(&x) && (x - min) % step == 0 => Ok(x.to_string()),
                _ if step == 2 => Err(bad(format!("an even number from {min} to {max}"))),
                _ if step > 1 => Err(bad(format!("{min}..={max} in steps of {step}"))),
                _ => Err(bad(format!("an integer in {min}..={max}"))),
            },
            ParamKind::Choice(words) => words
                .iter()
                .find(|w| w.eq_ignore_ascii_case(value))
                .map(|w| w.to_string())
                .ok_or_else(|| bad(words.join(", "))),
            ParamKind::Flag => match value {
                "0" | "1" => Ok(value.into()),
                _ => Err(bad("0 or 1".into())),
            },
        }
    }

    /// The default in words, for listings.
    pub fn default_text(&self) -> String {
        match self.default {
            ParamDefault::Value(v) => v.into(),
            ParamDefault::Auto(how) => how.into(),
            ParamDefault::Random => "random".into(),
        }
    }

    /// The values in words, for listings.
    pub fn values_text(&self) -> String {
        match self.kind {
            ParamKind::Int { min, max, step: 1 } => format!("{min}..{max}"),
            ParamKind::Int { min, max, step } => {
                format!("{min},{},..,{max}", min + step)
            }
            ParamKind::Choice(words) => words.join("|"),
            ParamKind::Flag => "0|1".into(),
        }
    }
}

/// The parameters of every family, in the order the UCI options list them.
pub static PARAMS: &[&Param] = &[
    &diamond::DIMENSION,
    &diamond::EDGE,
    &diamond::SETUP,
    &multiparty::PLAYERS,
    &multiparty::MODE,
    &multiparty::END,
    &multiparty::DEAD,
    &multiparty::ORDER,
    &multiparty::SELF_CAPTURE,
    &multiparty::CROSS,
    &chess::WRAP_CASTLING,
    &chess::START_NUMBER,
    &finite::BASE,
    &finite::DIGITS,
];

/// A parameter's value as given (or defaulted) for one build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Values {
    family: &'static str,
    items: Vec<(&'static str, Option<String>)>,
    /// Built for the theory (`ndchess axioms`): combinations refused for
    /// play because the seed shows they break an axiom are built anyway,
    /// so the axioms can report the breach.
    theory: bool,
}

impl Values {
    fn raw(&self, key: &str) -> Option<&str> {
        self.items
            .iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v.as_deref())
    }

    /// The integer value of `key`, `None` when absent with no fixed
    /// default.
    pub fn int(&self, key: &str) -> Option<i64> {
        self.raw(key).and_then(|v| v.parse().ok())
    }

    /// The word value of `key`.
    pub fn word(&self, key: &str) -> Option<&str> {
        self.raw(key)
    }

    /// The flag value of `key`.
    pub fn flag(&self, key: &str) -> Option<bool> {
        self.raw(key).map(|v| v == "1")
    }

    /// The family being built.
    pub fn family(&self) -> &'static str {
        self.family
    }

    /// Whether the variant is built for the theory only (see
    /// [`build_for_theory`]).
    pub fn for_theory(&self) -> bool {
        self.theory
    }

    /// An error for a value of `key` that the family refuses in this
    /// combination.
    pub fn refuse(&self, key: &str, expected: &str) -> VariantError {
        VariantError::BadValue {
            key: key.into(),
            value: self.raw(key).unwrap_or("").into(),
            expected: expected.into(),
        }
    }
}

/// How PGN, and engines without ndchess's variant extension, know a
/// family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PgnName {
    /// Classical chess: no `Variant` tag, SAN moves, every engine plays it.
    Standard,
    /// A variant of the 8x8 board the chess world names (`Chess960`): this
    /// `Variant` tag, SAN moves, `UCI_Chess960` for the engines.
    Known(&'static str),
    /// Only ndchess knows it: the spec as `Variant` tag, coordinate moves.
    Spec,
}

/// A variant family.
#[derive(Debug)]
pub struct Family {
    /// Its name in specs (and in the UCI option `UCI_Variant`).
    pub name: &'static str,
    /// Other names accepted in specs.
    pub aliases: &'static [&'static str],
    /// One line on what it is.
    pub summary: &'static str,
    /// The keys of [`PARAMS`] it takes.
    pub params: &'static [&'static str],
    /// Builds the definition from the parameter values.
    pub build: fn(&Values) -> Result<VariantDef, VariantError>,
    /// Its name in the XBoard protocol, if XBoard can play it.
    pub xboard: Option<&'static str>,
    /// Its name in PGN and among engines without the ndchess extension.
    pub pgn: PgnName,
    /// Specs that show the family (listed by `ndchess variants`, played by
    /// the tests that run every variant).
    pub examples: &'static [&'static str],
}

impl Family {
    /// The family's parameters.
    pub fn parameters(&self) -> impl Iterator<Item = &'static Param> + '_ {
        self.params.iter().filter_map(|k| param(k))
    }
}

/// Every family, in the order listings show them.
pub static FAMILIES: &[Family] = &[
    chess::CHESS,
    chess::CHESS960,
    chess::CYLINDER,
    chess::TORUS,
    diamond::DIAMOND,
    diamond::CYLINDER_DIAMOND,
    diamond::TORUS_DIAMOND,
    diamond::DOUBLE_DIAMOND,
    cube::CUBE,
    raumschach::RAUMSCHACH,
    finite::FINITE,
    synchronous::SYNCHRONOUS,
];

/// A variant read from a file: its name, one-line summary and definition.
#[derive(Clone, Debug)]
pub struct FileVariant {
    /// Its name in specs.
    pub name: String,
    /// One line on what it is.
    pub summary: String,
    /// The definition, checked (it built once while loading).
    pub def: VariantDef,
}

/// The variants loaded into this process.
static LOADED: RwLock<Vec<FileVariant>> = RwLock::new(Vec::new());

/// Adds `variants` to the process-wide list (a variant of the same name
/// is replaced); returns their names.
pub fn install(variants: Vec<FileVariant>) -> Vec<String> {
    let names: Vec<String> = variants.iter().map(|v| v.name.clone()).collect();
    let mut loaded = LOADED.write().unwrap_or_else(|p| p.into_inner());
    for v in variants {
        loaded.retain(|o| o.name != v.name);
        loaded.push(v);
    }
    names
}

/// The loaded variant named `name` (case-insensitive), if any.
pub fn lookup(name: &str) -> Option<FileVariant> {
    let loaded = LOADED.read().unwrap_or_else(|p| p.into_inner());
    loaded
        .iter()
        .find(|v| v.name.eq_ignore_ascii_case(name.trim()))
        .cloned()
}

/// Every loaded variant, in loading order.
pub fn loaded() -> Vec<FileVariant> {
    LOADED.read().unwrap_or_else(|p| p.into_inner()).clone()
}

/// The parameter with key `key`.
pub fn param(key: &str) -> Option<&'static Param> {
    PARAMS.iter().copied().find(|p| p.key == key)
}

/// The family named `name` (or one of its aliases), case-insensitively.
pub fn family(name: &str) -> Option<&'static Family> {
    let name = name.trim();
    FAMILIES.iter().find(|f| {
        f.name.eq_ignore_ascii_case(name) || f.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    })
}

/// The names of all families.
pub fn family_names() -> Vec<&'static str> {
    FAMILIES.iter().map(|f| f.name).collect()
}

/// The names of all families, then of the variants loaded from files.
pub fn variant_names() -> Vec<String> {
    FAMILIES
        .iter()
        .map(|f| f.name.to_string())
        .chain(loaded().into_iter().map(|f| f.name))
        .collect()
}

/// Every example spec of every family.
pub fn example_specs() -> impl Iterator<Item = &'static str> {
    FAMILIES.iter().flat_map(|f| f.examples.iter().copied())
}

/// Splits a spec `name[:key=value,…]` into the family and its values
/// (defaults filled in, every value checked).
pub fn parse(spec: &str) -> Result<(&'static Family, Values), VariantError> {
    let spec = spec.trim();
    let (name, rest) = match spec.split_once(':') {
        Some((n, r)) => (n.trim(), r),
        None => (spec, ""),
    };
    let fam = family(name).ok_or_else(|| VariantError::UnknownVariant {
        name: name.to_ascii_lowercase(),
        known: family_names().iter().map(|s| s.to_string()).collect(),
    })?;
    let mut given: Vec<(String, String)> = Vec::new();
    if fam.name == synchronous::SYNCHRONOUS.name {
        // The base is a whole spec with its own ':' and ','.
        let rest = rest.trim();
        if rest.is_empty() {
            return Ok((
                fam,
                Values {
                    family: fam.name,
                    items: Vec::new(),
                    theory: false,
                },
            ));
        }
        return match rest.split_once('=') {
            Some((k, v)) if k.trim().eq_ignore_ascii_case("base") && !v.trim().is_empty() => Ok((
                fam,
                Values {
                    family: fam.name,
                    items: vec![("base", Some(v.trim().to_string()))],
                    theory: false,
                },
            )),
            Some((k, _)) if !k.trim().eq_ignore_ascii_case("base") => {
                Err(VariantError::UnknownKey {
                    variant: fam.name.into(),
                    key: k.trim().to_ascii_lowercase(),
                })
            }
            _ => Err(VariantError::Syntax(rest.into())),
        };
    }
    for item in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match item.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
                given.push((k.trim().to_ascii_lowercase(), v.trim().to_string()))
            }
            _ => return Err(VariantError::Syntax(item.into())),
        }
    }
    let mut items = Vec::new();
    for p in fam.parameters() {
        let value = match given.iter().position(|(k, _)| k == p.key) {
            Some(i) => Some(p.parse(&given.remove(i).1)?),
            None => match p.default {
                ParamDefault::Value(v) => Some(v.to_string()),
                ParamDefault::Auto(_) | ParamDefault::Random => None,
            },
        };
        items.push((p.key, value));
    }
    if let Some((key, _)) = given.into_iter().next() {
        return Err(VariantError::UnknownKey {
            variant: fam.name.into(),
            key,
        });
    }
    Ok((
        fam,
        Values {
            family: fam.name,
            items,
            theory: false,
        },
    ))
}

/// Builds the variant a spec names.
pub fn build(spec: &str) -> Result<Arc<Variant>, VariantError> {
    Variant::new(definition(spec)?)
}

/// The variant a spec names, built even where the spec is refused for
/// play because its start breaks an axiom the seed predicts (multi-party
/// games at l = 8): for `ndchess axioms`, which reports the breach.
pub fn build_for_theory(spec: &str) -> Result<Arc<Variant>, VariantError> {
    match parse(spec) {
        Ok((fam, mut values)) => {
            values.theory = true;
            Variant::new((fam.build)(&values)?)
        }
        Err(_) => build(spec),
    }
}

/// The definition a spec names (a family's, or a variants-file
/// variant's), before its tables are built.
pub fn definition(spec: &str) -> Result<VariantDef, VariantError> {
    match parse(spec) {
        Ok((fam, values)) => (fam.build)(&values),
        Err(VariantError::UnknownVariant { name, known }) => match lookup(&name) {
            // A variants-file variant has no parameters: its spec is its
            // name.
            Some(fv) if !spec.contains(':') => Ok(fv.def),
            Some(fv) => Err(VariantError::UnknownKey {
                variant: fv.name,
                key: spec.split_once(':').map_or("", |(_, r)| r).trim().into(),
            }),
            None => Err(VariantError::UnknownVariant {
                name,
                known: known
                    .into_iter()
                    .chain(loaded().into_iter().map(|f| f.name))
                    .collect(),
            }),
        },
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_builds_its_examples_under_their_own_spec() {
        for f in FAMILIES {
            assert!(!f.examples.is_empty(), "{}", f.name);
            for spec in f.examples {
                let v = build(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
                assert_eq!(v.name, f.name, "{spec}");
                let again = build(&v.spec).unwrap();
                assert_eq!(
                    again.spec, v.spec,
                    "{spec}: the canonical spec rebuilds itself"
                );
            }
            for p in f.params {
                assert!(
                    param(p).is_some(),
                    "{}: parameter {p} is not in PARAMS",
                    f.name
                );
            }
        }
    }

    #[test]
    fn specs_parse_and_reject() {
        assert_eq!(build("chess").unwrap().spec, "chess");
        assert_eq!(build("chess960:sp=518").unwrap().spec, "chess960:sp=518");
        assert_eq!(build("diamond").unwrap().spec, "diamond:n=3,l=8,setup=8.1");
        assert_eq!(
            build("diamond:n=4").unwrap().spec,
            "diamond:n=4,l=8,setup=8.2"
        );
        assert_eq!(
            build("diamond:n=5").unwrap().spec,
            "diamond:n=5,l=8,setup=8.3"
        );
        assert_eq!(build("Cube").unwrap().spec, "cube");
        assert_eq!(build("frc:sp=0").unwrap().spec, "chess960:sp=0");
        for bad in [
            "shogi",
            "chess:x=1",
            "chess960:sp=960",
            "diamond:n=2",
            "diamond:l=9",
            "diamond:n=3,setup=8.2",
            "diamond:n",
            "torus:wrapcastling=2",
        ] {
            assert!(build(bad).is_err(), "{bad}");
        }
        let e = build("diamond:l=9").unwrap_err().to_string();
        assert!(e.contains("even"), "{e}");
    }

    #[test]
    fn armies_have_the_sizes_of_the_seed() {
        // RULES §2.4: the torus has 8 pieces and 16 pawns a side; §2.5: the
        // 4-D board 32 pieces and 32 pawns a side; Table 8.1: 12 pieces and
        // 12 pawns a side; seed 001: the cube 8 pieces and 4 pawns a side.
        let count = |spec: &str| build(spec).unwrap().start.len();
        assert_eq!(count("chess"), 32);
        assert_eq!(count("torus"), 48);
        assert_eq!(count("diamond:n=3"), 48);
        assert_eq!(count("diamond:n=4"), 128);
        assert_eq!(count("diamond:n=3,setup=8.3"), 48);
        assert_eq!(count("cube"), 24);
    }
}
