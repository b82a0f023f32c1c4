//! What a search reports while it runs and when it ends.

use std::time::Duration;

use crate::rules::moves::Move;
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
    /// Time since the search started.
    pub time: Duration,
    /// The line, first move first.
    pub pv: Vec<Move>,
    /// The root move being searched, with its 1-based number.
    pub currmove: Option<(Move, usize)>,
}

impl SearchInfo {
    /// The UCI `info` line (without the leading `info `), with moves in the
    /// board's ASCII coordinates (`king_takes_rook` for Chess960 castling)
    /// and, when given, the win/draw/loss estimate after the score. The pv
    /// is written up to its first move that is not legal (a hash collision
    /// can leave one at the end of a line taken from the table).
    pub fn uci(
        &self,
        root: &Position,
        king_takes_rook: bool,
        wdl: Option<(u32, u32, u32)>,
    ) -> String {
        if let Some((m, n)) = self.currmove {
            return format!(
                "depth {} currmove {} currmovenumber {}",
                self.depth,
                root.move_text(m, king_takes_rook),
                n
            );
        }
        let mut s = format!(
            "depth {} seldepth {} multipv {} score {}",
            self.depth,
            self.seldepth,
            self.multipv,
            self.score.uci()
        );
        match self.bound {
            Bound::Lower => s.push_str(" lowerbound"),
            Bound::Upper => s.push_str(" upperbound"),
            Bound::Exact => {}
        }
        if let Some((w, d, l)) = wdl {
            s.push_str(&format!(" wdl {w} {d} {l}"));
        }
        s.push_str(&format!(
            " nodes {} nps {} hashfull {} tbhits 0 time {}",
            self.nodes,
            self.nps,
            self.hashfull,
            self.time.as_millis()
        ));
        let mut p = root.clone();
        let mut first = true;
        for &m in &self.pv {
            if !p.legal_moves().contains(&m) {
                break;
            }
            s.push_str(if first { " pv " } else { " " });
            first = false;
            s.push_str(&p.move_text(m, king_takes_rook));
            p.make(m);
        }
        s
    }
}

/// The outcome of a search.
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
}
