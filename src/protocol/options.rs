//! The engine's options as a GUI sees them: name, type, default and range,
//! protocol-neutral (UCI writes them as `option name … type …`, XBoard's
//! `feature option="…"` carries the same facts), with the checks a value
//! must pass before the session applies it.

use std::fmt;

/// The type and range of an option, as UCI defines the types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// An integer in `min..=max`.
    Spin {
        /// Default value.
        default: i64,
        /// Smallest value accepted.
        min: i64,
        /// Largest value accepted.
        max: i64,
    },
    /// `true` or `false`.
    Check {
        /// Default value.
        default: bool,
    },
    /// One of a fixed list of words.
    Combo {
        /// Default value (one of `vars`).
        default: String,
        /// The values accepted.
        vars: Vec<String>,
    },
    /// An action without a value.
    Button,
    /// Free text, such as a directory (UCI `type string`; empty means
    /// unset, written `<empty>` as UCI GUIs do).
    Text {
        /// Default value.
        default: String,
    },
}

/// Longest value a text option takes.
pub const MAX_TEXT: usize = 4096;

/// One option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// The name as the engine announces it; matched case-insensitively.
    pub name: &'static str,
    /// Type, default and range.
    pub kind: OptionKind,
}

/// A value accepted for an option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// A spin's value.
    Int(i64),
    /// A check's value.
    Bool(bool),
    /// A combo's value, spelt as in the option's list.
    Word(String),
    /// A button was pressed.
    Press,
    /// A text option's value (empty: unset).
    Text(String),
}

/// Why a `setoption` was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionError {
    /// No option of that name.
    Unknown(String),
    /// The option needs a value and none was given.
    MissingValue(String),
    /// A value that is not of the option's type or outside its range.
    BadValue {
        /// The option.
        name: String,
        /// The value given.
        value: String,
        /// What would have been accepted.
        expected: String,
    },
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionError::Unknown(n) => write!(f, "unknown option '{n}'"),
            OptionError::MissingValue(n) => write!(f, "option '{n}' needs a value"),
            OptionError::BadValue {
                name,
                value,
                expected,
            } => write!(
                f,
                "bad value '{value}' for option '{name}': expected {expected}"
            ),
        }
    }
}

impl std::error::Error for OptionError {}

impl OptionSpec {
    /// Checks `value` (the text after `value`, `None` if absent) against the
    /// option's type and range.
    pub fn parse(&self, value: Option<&str>) -> Result<OptionValue, OptionError> {
        let value = value.map(str::trim).filter(|v| !v.is_empty());
        let bad = |v: &str, expected: String| OptionError::BadValue {
            name: self.name.to_string(),
            value: v.to_string(),
            expected,
        };
        match &self.kind {
            OptionKind::Button => Ok(OptionValue::Press),
            OptionKind::Text { .. } => {
                let v = value.unwrap_or("");
                if v.len() > MAX_TEXT {
                    return Err(bad(
                        &v[..v.floor_char_boundary(40)],
                        format!("at most {MAX_TEXT} bytes"),
                    ));
                }
                Ok(OptionValue::Text(if v == "<empty>" {
                    String::new()
                } else {
                    v.to_string()
                }))
            }
            OptionKind::Spin { min, max, .. } => {
                let v = value.ok_or_else(|| OptionError::MissingValue(self.name.into()))?;
                let expected = || format!("an integer from {min} to {max}");
                let n: i64 = v.parse().map_err(|_| bad(v, expected()))?;
                if n < *min || n > *max {
                    return Err(bad(v, expected()));
                }
                Ok(OptionValue::Int(n))
            }
            OptionKind::Check { .. } => {
                let v = value.ok_or_else(|| OptionError::MissingValue(self.name.into()))?;
                match v.to_ascii_lowercase().as_str() {
                    "true" => Ok(OptionValue::Bool(true)),
                    "false" => Ok(OptionValue::Bool(false)),
                    _ => Err(bad(v, "true or false".into())),
                }
            }
            OptionKind::Combo { vars, .. } => {
                let v = value.ok_or_else(|| OptionError::MissingValue(self.name.into()))?;
                vars.iter()
                    .find(|x| x.eq_ignore_ascii_case(v))
                    .map(|x| OptionValue::Word(x.clone()))
                    .ok_or_else(|| bad(v, format!("one of {}", vars.join(", "))))
            }
        }
    }

    /// The default value (`Press` for a button).
    pub fn default_value(&self) -> OptionValue {
        match &self.kind {
            OptionKind::Spin { default, .. } => OptionValue::Int(*default),
            OptionKind::Check { default } => OptionValue::Bool(*default),
            OptionKind::Combo { default, .. } => OptionValue::Word(default.clone()),
            OptionKind::Button => OptionValue::Press,
            OptionKind::Text { default } => OptionValue::Text(default.clone()),
        }
    }
}

/// Finds an option by name, ignoring ASCII case and runs of white space
/// (`setoption name move   overhead` is `Move Overhead`).
pub fn find<'a>(table: &'a [OptionSpec], name: &str) -> Result<&'a OptionSpec, OptionError> {
    let want: Vec<String> = name
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    table
        .iter()
        .find(|o| {
            let have: Vec<String> = o
                .name
                .split_whitespace()
                .map(str::to_ascii_lowercase)
                .collect();
            have == want
        })
        .ok_or_else(|| OptionError::Unknown(name.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin() -> OptionSpec {
        OptionSpec {
            name: "Move Overhead",
            kind: OptionKind::Spin {
                default: 10,
                min: 0,
                max: 5000,
            },
        }
    }

    #[test]
    fn spin_range_is_enforced() {
        let o = spin();
        assert_eq!(o.parse(Some(" 0 ")), Ok(OptionValue::Int(0)));
        assert_eq!(o.parse(Some("5000")), Ok(OptionValue::Int(5000)));
        assert!(matches!(
            o.parse(Some("5001")),
            Err(OptionError::BadValue { .. })
        ));
        assert!(matches!(
            o.parse(Some("-1")),
            Err(OptionError::BadValue { .. })
        ));
        assert!(matches!(
            o.parse(Some("ten")),
            Err(OptionError::BadValue { .. })
        ));
        assert_eq!(
            o.parse(None),
            Err(OptionError::MissingValue("Move Overhead".into()))
        );
    }

    #[test]
    fn names_match_without_case_and_spacing() {
        let table = [spin()];
        assert!(find(&table, "move  OVERHEAD").is_ok());
        assert_eq!(
            find(&table, "Overhead"),
            Err(OptionError::Unknown("Overhead".into()))
        );
    }

    #[test]
    fn combo_and_check_values() {
        let c = OptionSpec {
            name: "UCI_Variant",
            kind: OptionKind::Combo {
                default: "chess".into(),
                vars: vec!["chess".into(), "cube".into()],
            },
        };
        assert_eq!(c.parse(Some("CUBE")), Ok(OptionValue::Word("cube".into())));
        assert!(c.parse(Some("torus")).is_err());
        let b = OptionSpec {
            name: "Ponder",
            kind: OptionKind::Check { default: false },
        };
        assert_eq!(b.parse(Some("TRUE")), Ok(OptionValue::Bool(true)));
        assert!(b.parse(Some("yes")).is_err());
    }
}
