//! Move ordering: the hash move, then winning and equal captures and
//! promotions by victim and attacker value, then the killer moves, then
//! quiet moves by history, then the captures that lose material.
//!
//! A good order is what makes alpha-beta cut: the first move of a node
//! should be the one that refutes the opponent's last move.

use crate::board::piece::{EMPTY, piece_kind};
use crate::eval::Evaluator;
use crate::rules::movegen::MoveGen;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::position::Position;

use super::tt::MoveCode;

const HASH_MOVE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 28;
const KILLER: i32 = 1 << 26;
const BAD_CAPTURE: i32 = -(1 << 28);
/// History scores stay within ±this.
pub const HISTORY_MAX: i32 = 1 << 14;

/// Whether `m` captures.
#[inline]
pub fn is_capture(pos: &Position, m: &Move) -> bool {
    m.kind == MoveKind::EnPassant
        || (m.kind != MoveKind::Castle && pos.piece_at(m.to as usize) != EMPTY)
}

/// Value of the piece `m` captures (0 if none).
#[inline]
pub fn victim_value(pos: &Position, eval: &Evaluator, m: &Move) -> i32 {
    let cell = match m.kind {
        MoveKind::EnPassant => m.aux as usize,
        MoveKind::Castle | MoveKind::Null => return 0,
        _ => m.to as usize,
    };
    match pos.piece_at(cell) {
        EMPTY => 0,
        p => eval.value(piece_kind(p)),
    }
}

/// Whether the capture `m` likely loses material: a more valuable piece
/// takes on a defended cell (a cheap stand-in for static exchange
/// evaluation that works on every board; `movegen` answers whether the
/// cell is defended).
pub fn losing_capture(pos: &Position, eval: &Evaluator, movegen: &MoveGen, m: &Move) -> bool {
    let attacker = eval.value(piece_kind(pos.piece_at(m.from as usize)));
    let victim = victim_value(pos, eval, m);
    attacker > victim && movegen.attacked_by_checkers(pos, m.to as usize, pos.to_move())
}

/// Killer moves and history counters of one thread.
#[derive(Debug, Default)]
pub struct Heuristics {
    /// Two quiet moves per ply that caused a beta cut-off.
    pub killers: Vec<[Option<Move>; 2]>,
    /// `history[(player * kinds + kind) * cells + to]`.
    pub history: Vec<i32>,
    kinds: usize,
    cells: usize,
}

impl Heuristics {
    /// Empty tables for a board of `cells` cells, `kinds` kinds and
    /// `players` players.
    pub fn new(players: usize, kinds: usize, cells: usize, plies: usize) -> Heuristics {
        Heuristics {
            killers: vec![[None; 2]; plies],
            history: vec![0; players * kinds * cells],
            kinds,
            cells,
        }
    }

    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.iter_mut().for_each(|h| *h = 0);
    }

    #[inline]
    fn index(&self, pos: &Position, m: &Move) -> usize {
        let p = pos.piece_at(m.from as usize);
        let player = crate::board::piece::piece_seat(p).index();
        (player * self.kinds + piece_kind(p)) * self.cells + m.to as usize
    }

    /// History score of a quiet move.
    #[inline]
    pub fn history(&self, pos: &Position, m: &Move) -> i32 {
        self.history[self.index(pos, m)]
    }

    /// Rewards the quiet move that cut (`bonus > 0`) or punishes one that
    /// did not; the update shrinks as the score nears its bound.
    pub fn update_history(&mut self, pos: &Position, m: &Move, bonus: i32) {
        let i = self.index(pos, m);
        let h = &mut self.history[i];
        let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        *h += b - *h * b.abs() / HISTORY_MAX;
    }

    /// Records a killer move at `ply`.
    pub fn add_killer(&mut self, ply: usize, m: Move) {
        let k = &mut self.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
    }

    /// Whether `m` is a killer at `ply`.
    #[inline]
    pub fn is_killer(&self, ply: usize, m: &Move) -> bool {
        let k = &self.killers[ply];
        k[0] == Some(*m) || k[1] == Some(*m)
    }
}

/// Whether [`score_moves`] orders the quiet moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quiets {
    /// Killers, then by history (a node that searches them).
    Ordered,
    /// All below every other move, unscored: the quiescence search skips
    /// them (out of check), and since they score below every capture and
    /// promotion they change neither which of those is picked when nor,
    /// through [`pick`]'s swaps, their order.
    Last,
}

/// The score of a quiet move left unscored ([`Quiets::Last`]).
const UNSCORED_QUIET: i32 = i32::MIN;

/// What [`score_moves`]'s score of a capture whose victim is worth
/// something says of [`losing_capture`]: `Some(true)` for the losing ones
/// (scored below every quiet move), `Some(false)` for the others (above);
/// `None` for the hash move, scored without looking.
#[inline]
pub fn capture_loses(score: i32) -> Option<bool> {
    (score != HASH_MOVE).then_some(score < 0)
}

/// Scores `moves` for ordering into `scores`.
#[allow(clippy::too_many_arguments)]
pub fn score_moves(
    pos: &Position,
    eval: &Evaluator,
    movegen: &MoveGen,
    h: &Heuristics,
    ply: usize,
    tt_move: Option<MoveCode>,
    moves: &[Move],
    quiets: Quiets,
    scores: &mut Vec<i32>,
) {
    scores.clear();
    for m in moves {
        let s = if tt_move.is_some_and(|t| t.matches(m)) {
            HASH_MOVE
        } else if is_capture(pos, m) || m.promotion != 0 {
            let victim = victim_value(pos, eval, m);
            let promo = m.promotion_kind().map_or(0, |k| eval.value(k));
            let attacker = eval.value(piece_kind(pos.piece_at(m.from as usize)));
            let mvv_lva = (victim + promo) * 32 - attacker / 8;
            if victim > 0 && losing_capture(pos, eval, movegen, m) {
                BAD_CAPTURE + mvv_lva
            } else {
                GOOD_CAPTURE + mvv_lva
            }
        } else if quiets == Quiets::Last {
            UNSCORED_QUIET
        } else if h.is_killer(ply, m) {
            if h.killers[ply][0] == Some(*m) {
                KILLER + 1
            } else {
                KILLER
            }
        } else {
            h.history(pos, m)
        };
        scores.push(s);
    }
}

/// Moves to pick one by one before sorting the rest: most nodes cut after
/// a few moves, so sorting everything up front would be wasted.
const SELECT_FIRST: usize = 6;

/// Scratch space of [`pick`]'s sort (one per search thread).
#[derive(Debug, Default)]
pub struct SortScratch {
    keys: Vec<u64>,
    moves: Vec<Move>,
}

/// Brings the best remaining move to index `i` (moves `< i` are done).
#[inline]
pub fn pick(moves: &mut [Move], scores: &mut [i32], i: usize, scratch: &mut SortScratch) {
    if i < SELECT_FIRST {
        // The first of the highest scores (ties keep the list's order):
        // the maximum in one branch-free pass, then its first place.
        let rest = &scores[i..];
        let high = rest.iter().copied().fold(i32::MIN, i32::max);
        let best = i + rest.iter().position(|&s| s == high).unwrap_or(0);
        moves.swap(i, best);
        scores.swap(i, best);
    } else if i == SELECT_FIRST {
        // A stable sort by falling score, as an unstable sort of one word
        // per move: the score flipped to fall in the high half, the
        // position in the low half breaking ties.
        let SortScratch { keys, moves: rest } = scratch;
        keys.clear();
        keys.extend(scores[i..].iter().enumerate().map(|(k, &s)| {
            let falling = !((s as u32) ^ 0x8000_0000);
            (falling as u64) << 32 | k as u64
        }));
        keys.sort_unstable();
        rest.clear();
        rest.extend_from_slice(&moves[i..]);
        for (j, &key) in keys.iter().enumerate() {
            moves[i + j] = rest[(key & 0xFFFF_FFFF) as usize];
            scores[i + j] = (!((key >> 32) as u32) ^ 0x8000_0000) as i32;
        }
    }
}
