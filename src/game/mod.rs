//! One game driver for every front-end: a [`Game`] (the start, the
//! position, the record and the end), the [`Player`] trait that every
//! kind of player implements — the internal engine, a random mover, an
//! external engine process, a person at a GUI — clocks, and [`run`], the
//! one loop that asks the players for their decisions and plays them, for
//! sequential and simultaneous turns alike.
//!
//! The CLI's `play`, the self-play match example and the arbiter run
//! games through [`run`]; the protocol front-ends, whose games
//! a GUI drives, keep their game in a [`Game`].

pub mod adjudication;
pub mod clock;
pub mod driver;
pub mod players;
pub mod record;

pub use adjudication::{DrawRule, ResignRule};
pub use clock::{Clock, TimeControl};
pub use driver::{DriverOptions, Eval, Player, PlayerError, Request, Verdict, run};
pub use players::{EnginePlayer, RandomPlayer};
pub use record::{Annotation, Game, GameEnd, GameError, Ply, Step};
