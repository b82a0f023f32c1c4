//! The rules of play: positions, legal moves, game end and notation.

pub mod movegen;
pub mod notation;
pub mod position;
