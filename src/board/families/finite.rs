//! Finite chess (seed 000 §12, "Finitschach"), truncated at `d` digits:
//! the board is the numbers `0.x1 x2 … xd` in base `b` (`b^d` cells), a
//! step along direction `k` adds `b^-k` with carry, and the start is the
//! seed's Table 12.1 restricted to `d` digits. The seed's board has every
//! finite digit string; a computer plays its truncations
//! (docs/variants.md says what they keep and lose).

use crate::board::geometry::{Geometry, Naming};
use crate::board::piece::{BISHOP_LETTERS, piece};
use crate::board::registry::{Family, Param, ParamDefault, ParamKind, PgnName, Values};
use crate::board::seating::Seat;
use crate::board::variant::{VariantDef, VariantError};

use super::diamond::{diamond_kinds, diamond_rules_def};
use super::letter_kind;

/// `b`: the base of the digits.
pub static BASE: Param = Param {
    key: "b",
    doc: "base of the digits (the seed asks b >= 8)",
    kind: ParamKind::Int {
        min: 8,
        max: 16,
        step: 1,
    },
    default: ParamDefault::Value("8"),
    option: "DigitBase",
};

/// `d`: the number of digits kept.
pub static DIGITS: Param = Param {
    key: "d",
    doc: "digits kept (b^d cells, at most 60000)",
    kind: ParamKind::Int {
        min: 2,
        max: 5,
        step: 1,
    },
    default: ParamDefault::Value("2"),
    option: "Digits",
};

/// Finite chess.
pub const FINITE: Family = Family {
    name: "finite",
    aliases: &["digit", "finitschach"],
    summary: "finite chess (T12) truncated at d digits in base b: b^d cells on one number line",
    params: &["b", "d"],
    build: finite,
    xboard: None,
    pgn: PgnName::Spec,
    examples: &["finite:b=8,d=2", "finite:b=8,d=3"],
};

/// The white piece of Table 12.1 on the cell with digits `x` (0-based
/// list, `x[0]` the first digit), if any: K at 0, Q at `b^-2`, rooks at
/// `0.00…` and knights at `0.01…` with a later digit non-zero, k-D bishops
/// at `0.0x…` with `x >= 2` (k the length of the digit string), pawns at
/// `0.1…`.
fn table_12_1(x: &[i32]) -> Option<char> {
    let len = x.iter().rposition(|&v| v != 0).map_or(0, |i| i + 1);
    let later = len > 2;
    match (x[0], x[1]) {
        (1, _) => Some('P'),
        (0, 0) if len == 0 => Some('K'),
        (0, 1) if len == 2 => Some('Q'),
        (0, 0) if later => Some('R'),
        (0, 1) if later => Some('N'),
        (0, x2) if x2 >= 2 => Some(BISHOP_LETTERS[len - 2]),
        _ => None,
    }
}

fn finite(p: &Values) -> Result<VariantDef, VariantError> {
    let b = p.int("b").unwrap_or(8) as usize;
    let d = p.int("d").unwrap_or(2) as usize;
    if b.checked_pow(d as u32).is_none_or(|c| c > 60_000) {
        return Err(p.refuse("d", "b^d at most 60000"));
    }
    let naming = if d == 2 {
        Naming::TwoD
    } else {
        Naming::Layered
    };
    let g = Geometry::digits(b, d, naming)?;
    let kinds = diamond_kinds(&g, d);
    let (w, bl) = (Seat::new(0), Seat::new(1));
    let mut start = Vec::new();
    for c in 0..g.cell_count() {
        let x: Vec<i32> = g.coords(c).iter().map(|&v| v as i32).collect();
        let Some(letter) = table_12_1(&x) else {
            continue;
        };
        let k = letter_kind(&kinds, letter);
        start.push((c, piece(w, k)));
        // Black: the first digit reflected (x1 -> b-1-x1), as the seed's
        // table places him (K at (b-1)/b, pawns at x1 = b-2).
        let mut y = x.clone();
        y[0] = b as i32 - 1 - y[0];
        let m = g
            .cell_at(&y)
            .expect("invariant: a reflected digit string is a cell");
        start.push((m, piece(bl, k)));
    }
    let spec = format!("finite:b={b},d={d}");
    Ok(diamond_rules_def("finite", spec, g, kinds, start))
}
