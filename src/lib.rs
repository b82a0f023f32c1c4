//! ndchess: a chess engine for boards of any dimension and shape.
//!
//! Data flows one way: a [`variant::Variant`] (built from a spec string)
//! owns its [`geometry::Geometry`] and every table derived from it; a
//! [`position::Position`] holds pieces and rights; [`movegen`] produces legal
//! moves and perft counts; [`mobility`] measures piece strength as seed 001
//! does; [`notation`] reads and writes position texts and diagrams.

pub mod bitboard;
pub mod commands;
pub mod geometry;
pub mod mobility;
pub mod movegen;
pub mod notation;
pub mod position;
pub mod variant;
