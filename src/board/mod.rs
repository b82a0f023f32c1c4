//! Boards and variants: what is played on, by whom, with which pieces.

pub mod bitboard;
pub mod geometry;
pub mod variant;
