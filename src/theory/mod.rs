//! The seeds' theory of boards and start positions: the mobility of pieces
//! on the empty board (seed 001) and the start-position axioms (T4.2).

pub mod axioms;
pub mod mobility;
