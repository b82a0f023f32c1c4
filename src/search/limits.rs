//! What a search may spend: clocks, fixed depth, nodes or time, mate
//! search, and the root moves and lines to consider.

use std::time::Duration;

use crate::board::seating::Seat;
use crate::rules::moves::Move;

/// Default safety margin for the time a move takes to reach the opponent.
pub const DEFAULT_MOVE_OVERHEAD: Duration = Duration::from_millis(10);

/// Search limits, as UCI's `go` gives them. Clocks are indexed by seat
/// index (0 = the first seat), never "white/black", so that variants with
/// more seats fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Time left on each player's clock.
    pub time: Vec<Option<Duration>>,
    /// Increment per move of each player.
    pub inc: Vec<Option<Duration>>,
    /// Moves until the next time control.
    pub movestogo: Option<u32>,
    /// Maximum depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes.
    pub nodes: Option<u64>,
    /// Search for a mate in at most this many moves: stop when found, or
    /// after depth 2N−1 without (the search is exhaustive then, so that
    /// proves there is none).
    pub mate: Option<u32>,
    /// Exact time for this move.
    pub movetime: Option<Duration>,
    /// Search until stopped.
    pub infinite: bool,
    /// Consider only these root moves (all when empty).
    pub searchmoves: Vec<Move>,
    /// Number of best lines to report (at least 1).
    pub multipv: usize,
    /// Margin subtracted from every time limit.
    pub move_overhead: Duration,
    /// A simultaneous turn: the seat the engine decides for (the first
    /// deciding seat when `None`).
    pub seat: Option<Seat>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            time: Vec::new(),
            inc: Vec::new(),
            movestogo: None,
            depth: None,
            nodes: None,
            mate: None,
            movetime: None,
            infinite: false,
            searchmoves: Vec::new(),
            multipv: 1,
            move_overhead: DEFAULT_MOVE_OVERHEAD,
            seat: None,
        }
    }
}

impl Limits {
    /// A fixed-depth search.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// A fixed-node search.
    pub fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::default()
        }
    }

    /// A fixed-time search.
    pub fn movetime(time: Duration) -> Limits {
        Limits {
            movetime: Some(time),
            ..Limits::default()
        }
    }

    /// Whether nothing but a stop request ends the search.
    pub fn unbounded(&self) -> bool {
        self.infinite
            || (self.depth.is_none()
                && self.nodes.is_none()
                && self.mate.is_none()
                && self.movetime.is_none()
                && self.time.iter().all(Option::is_none))
    }
}
