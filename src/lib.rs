//! ndchess: a chess engine for boards of any dimension and shape.
//!
//! Data flows one way: a [`variant::Variant`] (built from a spec string)
//! owns its [`geometry::Geometry`] and every table derived from it; a
//! [`position::Position`] holds pieces and rights; [`movegen`] produces legal
//! moves and perft counts; [`mobility`] measures piece strength as seed 001
//! does; [`notation`] reads and writes position texts and diagrams; [`san`]
//! reads and writes moves in the seeds' long and short notation; [`protocol`]
//! speaks UCI to GUIs and tournament managers.

pub mod axioms;
pub mod bitboard;
pub mod commands;
pub mod eval;
pub mod geometry;
pub mod mobility;
pub mod movegen;
pub mod movegen64;
pub mod notation;
pub mod position;
pub mod protocol;
pub mod san;
pub mod search;
pub mod variant;
