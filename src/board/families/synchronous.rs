//! Synchronous chess (seed 004) on any two-player board: the base
//! variant's board, pieces and start, both seats deciding at once, the
//! exchange phase of rule (d), no en passant.

use crate::board::registry::{Family, PgnName, Values};
use crate::board::seating::{BySeat, Seating, TurnOrder};
use crate::board::variant::{VariantDef, VariantError};

/// The base a spec names when it names none.
pub const DEFAULT_BASE: &str = "chess";

/// Synchronous chess.
pub const SYNCHRONOUS: Family = Family {
    name: "synchronous",
    aliases: &["synchron"],
    summary: "both sides move at once (seed 004) on any two-player board: base=<spec>",
    params: &[],
    build,
    xboard: None,
    pgn: PgnName::Spec,
    examples: &[
        "synchronous",
        "synchronous:base=chess960:sp=518",
        "synchronous:base=diamond:n=3,l=8,setup=8.1",
        "synchronous:base=cube",
    ],
};

fn build(p: &Values) -> Result<VariantDef, VariantError> {
    let base_spec = p.word("base").unwrap_or(DEFAULT_BASE);
    let base = crate::board::registry::definition(base_spec)?;
    let refuse = |why: &str| VariantError::BadValue {
        key: "base".into(),
        value: base_spec.into(),
        expected: why.into(),
    };
    if base.seating.len() != 2 || base.seating.turn_order() != TurnOrder::Rotate {
        return Err(refuse("a two-player variant whose sides alternate"));
    }
    let seats = BySeat::from_fn(2, |s| base.seating.info(s).clone());
    let seating =
        Seating::by_sides(seats, TurnOrder::Simultaneous).map_err(|e| refuse(&e.to_string()))?;
    let mut def = base;
    def.spec = if def.spec == DEFAULT_BASE {
        "synchronous".into()
    } else {
        format!("synchronous:base={}", def.spec)
    };
    def.name = "synchronous".into();
    def.seating = seating;
    // "entfällt die 'En passant' Sonderregel ... vollständig".
    def.rules.en_passant = false;
    def.rules.exchange_phase = true;
    Ok(def)
}
