//! The rules of play: positions, the attack routine, legal moves, joint
//! decisions of simultaneous turns, the end of a game, and notation.
//!
//! Imports run one way inside this layer too: [`moves`] → [`attacks`] →
//! [`position`] → [`exchange`] → [`movegen`] → [`outcome`],
//! [`simultaneous`] → [`notation`].

pub mod attacks;
pub mod exchange;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod outcome;
pub mod perft_table;
pub mod perft_units;
pub mod position;
pub mod simultaneous;
