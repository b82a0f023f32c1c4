//! What a search reports while it runs and when it ends.

use std::time::Duration;

use crate::rules::moves::{Decision, Move};
use crate::rules::outcome::Outcome;
use crate::rules::position::Position;

use super::score::{Bound, Score};

/// A progress report, given to the caller's callback from the thread that
/// called [`super::Engine::search`]. Two kinds: a finished line (`pv` not
/// empty, or empty when the root has no legal move), and a `currmove`
/// report (`currmove` set, `pv` empty) sent once the search has run for a
/// second.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    /// Iteration depth in plies.
    pub depth: u32,
    /// Deepest ply reached (quiescence included).
    pub seldepth: u32,
    /// 1-based index of the line (MultiPV).
    pub multipv: usize,
    /// Score from the point of view of the player to move at the root.
    pub score: Score,
    /// Whether `score` is exact or a bound (aspiration fail high or low).
    pub bound: Bound,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Permille of the transposition table written by this search.
    pub hashfull: u32,
    /// Positions the endgame tables answered.
    pub tbhits: u64,
    /// Time since the search started.
    pub time: Duration,
    /// The line, first move first; its moves are legal one after the other
    /// from the root (cut where a move from the table is not).
    pub pv: Vec<Move>,
    /// The root move being searched, with its 1-based number.
    pub currmove: Option<(Move, usize)>,
}

/// The outcome of a search. `best` is a legal move of the root (or `None`
/// when the root has none); `ponder` a legal reply to it.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play; `None` when the root has no legal move.
    pub best: Option<Move>,
    /// The expected reply (for pondering).
    pub ponder: Option<Move>,
    /// Score of `best`, from the point of view of the player to move.
    pub score: Score,
    /// Depth of the last finished iteration.
    pub depth: u32,
    /// Nodes searched by all threads.
    pub nodes: u64,
    /// Time used.
    pub time: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
    /// The game result when the root has no legal move (mate, stalemate).
    pub outcome: Option<Outcome>,
    /// Why the search failed, when it did (an internal error): `best` is
    /// then a fallback, the first legal move.
    pub failure: Option<String>,
    /// A simultaneous turn: the deciding seat's mixed strategy (each
    /// decision with its probability, most probable first); `best` is the
    /// decision sampled from it, `None` with `pass` for a pass.
    pub strategy: Vec<(Decision, f64)>,
    /// A simultaneous turn's decision is a pass.
    pub pass: bool,
}

impl SearchResult {
    /// The result of a search that failed with `failure` (an internal
    /// error): the first legal move, so that a game can go on.
    pub fn fallback(pos: &Position, failure: String) -> SearchResult {
        let best = pos.legal_moves().first().copied();
        SearchResult {
            best,
            ponder: None,
            score: Score::Cp(0),
            depth: 0,
            nodes: 0,
            time: Duration::ZERO,
            pv: best.into_iter().collect(),
            outcome: if best.is_none() { pos.outcome() } else { None },
            failure: Some(failure),
            strategy: Vec::new(),
            pass: false,
        }
    }
}
