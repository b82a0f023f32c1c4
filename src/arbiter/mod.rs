//! The arbiter: engine-vs-engine matches and tournaments in every variant.
//!
//! It referees with the engine's own rules (the `rules` layer), so it can
//! judge the boards no other tournament manager knows; it runs games
//! through the one game driver (`game::run`) with external engines as
//! players.

pub mod config;
pub mod engine;
pub mod openings;
pub mod pgn;
pub mod publish;
pub mod stats;
pub mod tournament;
