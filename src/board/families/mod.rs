//! The built-in variant families: each file builds the [`VariantDef`]s of
//! its families from spec parameters and declares them for the registry.
//!
//! [`VariantDef`]: super::variant::VariantDef

pub mod chess;
pub mod cube;
pub mod diamond;
pub mod finite;
pub mod multiparty;
pub mod raumschach;
pub mod synchronous;

use super::piece::PieceKind;

/// The index of the kind with `letter` in a family's own piece set.
pub(crate) fn letter_kind(kinds: &[PieceKind], letter: char) -> usize {
    kinds
        .iter()
        .position(|k| k.letter == letter)
        .expect("invariant: a family's setup only names letters of its own piece set")
}
