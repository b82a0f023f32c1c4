//! Boards and variants: what is played on, by whom, with which pieces.
//!
//! [`geometry`] and [`bitboard`] describe boards of any dimension and
//! shape; [`piece`], [`seating`], [`party`], [`castling`] and [`zobrist`] the parts of
//! a variant; [`variant`] puts them together and derives the tables;
//! [`registry`] and [`families`] build the variants that have names.

pub mod bitboard;
pub mod castling;
pub mod families;
pub mod geometry;
pub mod party;
pub mod piece;
pub mod registry;
pub mod seating;
pub mod variant;
pub mod zobrist;
