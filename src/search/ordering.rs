//! Move ordering: the hash move, then winning and equal captures and
//! promotions by victim and attacker value, then the killer moves, then
//! quiet moves by history, then the captures that lose material.
//!
//! A good order is what makes alpha-beta cut: the first move of a node
//! should be the one that refutes the opponent's last move.

use crate::board::piece::{EMPTY, Piece, piece, piece_kind};
use crate::board::seating::Seat;
use crate::eval::Evaluator;
use crate::rules::exchange;
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
    exchange::captured_value(pos, eval.values(), m)
}

/// Whether the capture `m` loses material: a more valuable piece takes
/// on a defended cell and the exchange on it ([`MoveGen::static_exchange`])
/// ends below zero. A capture by a piece worth at most its victim never
/// loses.
/// With more than two seats (whose exchanges involve several sides) a
/// capture on a defended cell by a more valuable piece counts as losing
/// (`movegen` answers whether the cell is defended).
pub fn losing_capture(pos: &Position, eval: &Evaluator, movegen: &MoveGen, m: &Move) -> bool {
    risky_capture(pos, eval, movegen, m)
        && movegen
            .exchange_below(pos, eval.values(), m, 0)
            .is_none_or(|below| below)
}

/// Whether the capture `m` is by a more valuable piece on a defended
/// cell: the captures that may lose.
fn risky_capture(pos: &Position, eval: &Evaluator, movegen: &MoveGen, m: &Move) -> bool {
    let attacker = eval.value(piece_kind(pos.piece_at(m.from as usize)));
    attacker > victim_value(pos, eval, m)
        && movegen.attacked_by_checkers(pos, m.to as usize, pos.to_move())
}

/// The context of a node whose last move is unknown (the root) or was a
/// null move: no counter move and no continuation history apply.
pub const NO_CONTEXT: u32 = u32::MAX;

/// The continuation history's size when the board's pairs of (piece,
/// target) do not fit it directly: those boards share its slots by hash.
const CONTINUATION_BITS: u32 = 19;

/// Killer moves and history counters of one thread.
#[derive(Debug, Default)]
pub struct Heuristics {
    /// Two quiet moves per ply that caused a beta cut-off.
    pub killers: Vec<[Option<Move>; 2]>,
    /// `history[(player * kinds + kind) * cells + to]`.
    pub history: Vec<i32>,
    /// The move that led to each ply's node, as the moving piece's kind
    /// and its target (`kind * cells + to`), or [`NO_CONTEXT`]: the context of
    /// the counter moves and the continuation history. A quiet move that
    /// refutes a move tends to refute the same move again elsewhere in the
    /// tree, which the plain history (by piece and target alone) cannot
    /// tell apart from the move's worth after any other move.
    pub context: Vec<u32>,
    /// The quiet move that last refuted each context.
    counter_moves: Vec<Option<Move>>,
    /// History of quiet moves after each context: indexed by the pair
    /// (context, move's history index) directly where the pairs fit
    /// (chess: 384 × 768 slots of two bytes, 590 kB, small enough to stay
    /// in the cache, which the ordering of every node reads from), else
    /// by their hash into
    /// `2^CONTINUATION_BITS` slots.
    continuation: Vec<i16>,
    /// Whether `continuation` is indexed by the pairs directly (else by
    /// their hash): fixed when the tables are made, asked per move.
    continuation_direct: bool,
    /// Per piece code: the start of its (seat, kind)'s cells in
    /// `history`, `(seat * kinds + kind) * cells`, so that a move's index
    /// is one lookup and one addition (a code of no piece of the board's
    /// seats and kinds, 0 included, points past every table).
    piece_base: Vec<usize>,
    cells: usize,
}

impl Heuristics {
    /// Empty tables for a board of `cells` cells, `kinds` kinds and
    /// `players` players.
    pub fn new(players: usize, kinds: usize, cells: usize, plies: usize) -> Heuristics {
        let n = players * kinds * cells;
        let pairs = (kinds * cells)
            .saturating_mul(n)
            .min(1 << CONTINUATION_BITS);
        let mut piece_base = vec![usize::MAX / 2; Piece::MAX as usize + 1];
        for seat in (0..players).map(Seat::new) {
            for kind in 0..kinds {
                piece_base[piece(seat, kind) as usize] = (seat.index() * kinds + kind) * cells;
            }
        }
        Heuristics {
            killers: vec![[None; 2]; plies],
            history: vec![0; n],
            context: vec![NO_CONTEXT; plies],
            counter_moves: vec![None; kinds * cells],
            continuation: vec![0; pairs],
            continuation_direct: (kinds * cells).checked_mul(n) == Some(pairs),
            piece_base,
            cells,
        }
    }

    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.killers.iter_mut().for_each(|k| *k = [None; 2]);
        self.history.iter_mut().for_each(|h| *h = 0);
        self.context.iter_mut().for_each(|c| *c = NO_CONTEXT);
        self.counter_moves.iter_mut().for_each(|c| *c = None);
        self.continuation.iter_mut().for_each(|h| *h = 0);
    }

    /// The context move `m` gives the node after it (`pos` is the
    /// position before `m`).
    #[inline]
    pub fn context_of(&self, pos: &Position, m: &Move) -> u32 {
        if m.kind == MoveKind::Null || self.history.is_empty() {
            NO_CONTEXT
        } else {
            (piece_kind(pos.piece_at(m.from as usize)) * self.cells + m.to as usize) as u32
        }
    }

    /// Records that the node at `ply` was reached by a move of context
    /// `context` (plies beyond the tables record nothing).
    #[inline]
    pub fn set_context(&mut self, ply: usize, context: u32) {
        if let Some(c) = self.context.get_mut(ply) {
            *c = context;
        }
    }

    /// The node's context at `ply`.
    #[inline]
    fn context_at(&self, ply: usize) -> u32 {
        self.context.get(ply).copied().unwrap_or(NO_CONTEXT)
    }

    #[inline]
    fn continuation_index(&self, context: u32, i: usize) -> usize {
        let n = self.history.len();
        let pair = context as usize * n + i;
        if self.continuation_direct {
            pair
        } else {
            ((pair as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - CONTINUATION_BITS)) as usize
        }
    }

    /// The quiet move that last refuted the move leading to the node at
    /// `ply`.
    #[inline]
    pub fn counter_move(&self, ply: usize) -> Option<Move> {
        match self.context_at(ply) {
            NO_CONTEXT => None,
            c => self.counter_moves[c as usize],
        }
    }

    /// The continuation history of the quiet move `m` at `ply` (0 without
    /// a context).
    #[inline]
    pub fn continuation(&self, pos: &Position, ply: usize, m: &Move) -> i32 {
        self.continuation_after(self.context_at(ply), self.index(pos, m))
    }

    /// The continuation history of the quiet move of history index `i`
    /// after the context `context` (0 without one).
    #[inline]
    fn continuation_after(&self, context: u32, i: usize) -> i32 {
        match context {
            NO_CONTEXT => 0,
            c => i32::from(self.continuation[self.continuation_index(c, i)]),
        }
    }

    /// Rewards (`bonus > 0`) or punishes the quiet move `m` after the
    /// node's context at `ply`, as [`Heuristics::update_history`] does; a
    /// reward also makes `m` the context's counter move.
    pub fn update_continuation(&mut self, pos: &Position, ply: usize, m: &Move, bonus: i32) {
        let c = self.context_at(ply);
        if c == NO_CONTEXT {
            return;
        }
        if bonus > 0 {
            self.counter_moves[c as usize] = Some(*m);
        }
        let k = self.continuation_index(c, self.index(pos, m));
        let h = i32::from(self.continuation[k]);
        let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        // Stays within ±HISTORY_MAX, which fits i16.
        self.continuation[k] = (h + b - h * b.abs() / HISTORY_MAX) as i16;
    }

    #[inline]
    fn index(&self, pos: &Position, m: &Move) -> usize {
        // `(seat * kinds + kind) * cells + to` of the moving piece.
        self.piece_base[pos.piece_at(m.from as usize) as usize] + m.to as usize
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

/// What the score of a capture whose victim is worth something, once
/// [`pick`] has handed it out, says of [`losing_capture`]: `Some(true)`
/// for the losing ones (scored below every quiet move), `Some(false)` for
/// the others (above); `None` for the hash move, scored without looking.
#[inline]
pub fn capture_loses(score: i32) -> Option<bool> {
    (score != HASH_MOVE).then_some(score < 0)
}

/// Scores `moves` for ordering into `scores`, every capture among the
/// good ones: [`pick`] (or [`settle_exchanges`]) demotes those that lose.
#[allow(clippy::too_many_arguments)]
pub fn score_moves(
    pos: &Position,
    eval: &Evaluator,
    h: &Heuristics,
    ply: usize,
    tt_move: Option<MoveCode>,
    moves: &[Move],
    quiets: Quiets,
    scores: &mut Vec<i32>,
) {
    scores.clear();
    // What does not change from move to move is read once: the killers,
    // the counter move and the continuation's context row (the scores are
    // those of the per-move questions `Heuristics::is_killer`,
    // `counter_move`, `history` and `continuation` ask).
    // They are compared as moves, not options: the null move, which no
    // list holds, stands for "none".
    let ordered = quiets == Quiets::Ordered;
    let [killer0, killer1, counter] = if ordered {
        let [k0, k1] = h.killers[ply];
        [k0, k1, h.counter_move(ply)]
    } else {
        [None; 3]
    }
    .map(|k| k.unwrap_or(Move::NULL));
    let context = h.context_at(ply);
    let board = pos.board();
    let values = eval.values();
    scores.extend(moves.iter().map(|m| {
        if tt_move.is_some_and(|t| t.matches(m)) {
            HASH_MOVE
        } else if is_capture(pos, m) || m.promotion != 0 {
            let victim = victim_value(pos, eval, m);
            let promo = m.promotion_kind().map_or(0, |k| values[k]);
            let attacker = values[piece_kind(board[m.from as usize])];
            // Every capture starts among the good ones; whether it loses
            // is asked when [`pick`] is about to hand it out.
            GOOD_CAPTURE + (victim + promo) * 32 - attacker / 8
        } else if !ordered {
            UNSCORED_QUIET
        } else if *m == killer0 {
            KILLER + 1
        } else if *m == killer1 {
            KILLER
        } else if *m == counter {
            KILLER - 1
        } else {
            let i = h.index(pos, m);
            h.history[i] + h.continuation_after(context, i)
        }
    }));
}

/// Moves to pick one by one before sorting the rest: most nodes cut after
/// a few moves, so sorting everything up front would be wasted.
pub const SELECT_FIRST: usize = 6;

/// Scratch space of [`pick`]'s sort (one per search thread).
#[derive(Debug, Default)]
pub struct SortScratch {
    keys: Vec<u64>,
    moves: Vec<Move>,
}

/// Whether [`pick`] at index `i` has nothing left to do: from
/// [`SELECT_FIRST`] on the list is sorted once and handed out in order.
#[inline(always)]
pub fn picked_already(i: usize) -> bool {
    i > SELECT_FIRST
}

/// The first index from `from` on whose move scores below the quiet
/// moves (a capture found to lose), in a list [`pick`] has sorted from
/// before `from` on. Such a list is, by falling score, the good captures
/// and promotions, the killers and the counter move, the quiet moves,
/// then the losing captures; so every move of `from..` before the index
/// returned is quiet where the move before `from` was, which lets a
/// search that prunes late quiet moves skip them in one step.
#[inline]
pub fn end_of_quiets(scores: &[i32], from: usize) -> usize {
    from + scores[from..].partition_point(|&s| s > BAD_CAPTURE / 2)
}

/// Whether `score` is [`score_moves`]'s score of a capture or promotion
/// not yet known to lose: the band between the killers and the hash move.
#[inline]
fn in_good_band(score: i32) -> bool {
    score > KILLER + 1 && score != HASH_MOVE
}

/// The score of a capture in the good band that turned out to lose: the
/// same victim and attacker order, below every quiet move.
#[inline]
fn demoted(score: i32) -> i32 {
    score - GOOD_CAPTURE + BAD_CAPTURE
}

/// Whether the capture or promotion `m` scored in the good band loses
/// material ([`losing_capture`]; promotions without a victim never do).
#[inline]
fn loses_material(pos: &Position, eval: &Evaluator, movegen: &MoveGen, m: &Move) -> bool {
    is_capture(pos, m) && victim_value(pos, eval, m) > 0 && losing_capture(pos, eval, movegen, m)
}

/// Demotes every capture of `moves` scored in the good band that loses
/// material: the scores [`score_moves`] would give asking every exchange
/// at once, for callers that sort the whole list instead of [`pick`]ing.
pub fn settle_exchanges(
    pos: &Position,
    eval: &Evaluator,
    movegen: &MoveGen,
    moves: &[Move],
    scores: &mut [i32],
) {
    for (s, m) in scores.iter_mut().zip(moves) {
        if in_good_band(*s) && loses_material(pos, eval, movegen, m) {
            *s = demoted(*s);
        }
    }
}

/// Brings the best remaining move of `pos`'s list to index `i` (moves
/// `< i` are done).
///
/// The exchange of a capture is evaluated here, not when the list is
/// scored: most nodes cut after a few moves, and the captures never
/// handed out need no exchange. The order is the one scoring every
/// capture first would give: a capture's good-band score is at least its
/// true one, so the highest score is true once the capture holding it
/// has been asked (and demoted if it loses), and nothing moves while
/// captures are asked, so ties still keep the list's order.
#[inline]
pub fn pick(
    pos: &Position,
    eval: &Evaluator,
    movegen: &MoveGen,
    moves: &mut [Move],
    scores: &mut [i32],
    i: usize,
    scratch: &mut SortScratch,
) {
    if i < SELECT_FIRST {
        // The first of the highest scores (ties keep the list's order):
        // the maximum in one branch-free pass, then its first place.
        loop {
            let rest = &scores[i..];
            let high = rest.iter().copied().fold(i32::MIN, i32::max);
            let best = i + rest.iter().position(|&s| s == high).unwrap_or(0);
            if in_good_band(high) && loses_material(pos, eval, movegen, &moves[best]) {
                scores[best] = demoted(high);
                continue;
            }
            moves.swap(i, best);
            scores.swap(i, best);
            return;
        }
    } else if i == SELECT_FIRST {
        // The rest is sorted once: every capture still in the good band
        // is asked first.
        settle_exchanges(pos, eval, movegen, &moves[i..], &mut scores[i..]);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::variant::Variant;
    use crate::eval::EvalConfig;

    /// The exchange on the capture `mv` of the chess position `fen`, with
    /// the evaluator's values, and the values of the kinds by letter.
    fn exchange(fen: &str, mv: &str) -> (Option<i32>, bool, impl Fn(char) -> i32) {
        let v = Variant::from_spec("chess").unwrap();
        let eval = Evaluator::new(&v, EvalConfig::FULL);
        let pos = Position::from_text(&v, fen).unwrap();
        let m = pos.parse_move(mv).unwrap();
        let movegen = MoveGen::new(&v);
        let see = exchange::static_exchange(&pos, eval.values(), &m);
        assert_eq!(movegen.static_exchange(&pos, eval.values(), &m), see);
        let loses = losing_capture(&pos, &eval, &movegen, &m);
        let values = eval.values().to_vec();
        let val = move |c: char| values[v.kind_by_letter(c).unwrap()];
        (see, loses, val)
    }

    #[test]
    fn an_undefended_pawn_is_won() {
        // Chess Programming Wiki's first SEE example: Rxe5 takes a pawn
        // nothing defends (the rook on d8 does not reach e5).
        let (see, loses, val) = exchange("1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5");
        assert_eq!(see, Some(val('P')));
        assert!(!loses);
    }

    #[test]
    fn the_exchange_follows_x_rays_and_stops_where_it_loses() {
        // Chess Programming Wiki's second example, counted by hand: Nxe5
        // (+P), Nxe5 (N: 200 for Black), Rxe5 (the queen behind the
        // bishop joins later), Bxe5, Qxe5, Qxe5. Black stops after its
        // knight took: the knight for the pawn, -(N - P) for White.
        let (see, loses, val) = exchange(
            "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1",
            "d3e5",
        );
        assert_eq!(see, Some(val('P') - val('N')));
        assert!(loses);
    }

    #[test]
    fn a_defended_piece_is_won_when_the_recapture_would_lose_the_queen() {
        // Rxd4: only the queen defends the bishop and the knight on b3
        // would take her back, so Black does not recapture: White wins
        // the bishop. (The cheap test before SEE called this capture
        // losing: a rook taking a defended bishop.)
        let (see, loses, val) = exchange("4k3/8/3q4/8/3b4/1N6/8/3RK3 w - - 0 1", "d1d4");
        assert_eq!(see, Some(val('B')));
        assert!(!loses);
        // Without the knight the queen takes back: rook for bishop.
        let (see, loses, val) = exchange("4k3/8/3q4/8/3b4/8/8/3RK3 w - - 0 1", "d1d4");
        assert_eq!(see, Some(val('B') - val('R')));
        assert!(loses);
    }

    #[test]
    fn a_pinned_defender_does_not_take_back() {
        // Qxg1 (from a published mate in 3, tests/data/tactics_chess.epd):
        // the rook on g2 defends g1 but is pinned to its king by the
        // bishop on f3, and the king cannot take (the rook on d1 guards
        // g1). White wins the bishop.
        let (see, loses, val) = exchange("8/Q7/8/8/5p2/5Bq1/6r1/1K1R2bk w - - 0 1", "a7g1");
        assert_eq!(see, Some(val('B')));
        assert!(!loses);
    }

    #[test]
    fn a_king_takes_back_when_nothing_takes_it() {
        // Qxe2 (+P), Rxe2 (the queen for Black), Kxe2 (the rook back;
        // nothing of Black attacks e2 then): P - Q + R, and Black does
        // recapture, as the rook for the queen gains.
        let (see, _, val) = exchange("4r1k1/8/8/8/8/8/4p3/3QK3 w - - 0 1", "d1e2");
        assert_eq!(see, Some(val('P') - val('Q') + val('R')));
    }

    /// The quiet moves of `fen` in the order [`score_moves`] gives them
    /// at ply 1, as text.
    fn quiet_order(v: &std::sync::Arc<Variant>, h: &Heuristics, pos: &Position) -> Vec<String> {
        let eval = Evaluator::new(v, EvalConfig::FULL);
        let mut movegen = MoveGen::new(v);
        let mut moves = Vec::new();
        movegen.generate(pos, &mut moves);
        moves.retain(|m| !is_capture(pos, m) && m.promotion == 0);
        let mut scores = Vec::new();
        score_moves(pos, &eval, h, 1, None, &moves, Quiets::Ordered, &mut scores);
        let mut pairs: Vec<(i32, String)> = scores
            .into_iter()
            .zip(moves.iter().map(|m| pos.move_text(*m, false)))
            .collect();
        pairs.sort_by_key(|p| std::cmp::Reverse(p.0));
        pairs.into_iter().map(|p| p.1).collect()
    }

    #[test]
    fn a_refutation_is_tried_first_after_the_same_move_only() {
        let v = Variant::from_spec("chess").unwrap();
        let start = Position::start(&v);
        let mut h = Heuristics::new(2, v.kinds.len(), v.geometry.cell_count(), 8);
        let e4 = start.parse_move("e2e4").unwrap();
        let d4 = start.parse_move("d2d4").unwrap();
        let mut after_e4 = start.clone();
        after_e4.make(e4);
        let nf6 = after_e4.parse_move("g8f6").unwrap();
        // Nf6 refuted 1.e4 (a cut at ply 1, reached by e4): it becomes
        // e4's counter move, and a later Black move after e4 is tried
        // first...
        h.set_context(1, h.context_of(&start, &e4));
        h.update_continuation(&after_e4, 1, &nf6, 400);
        assert_eq!(h.counter_move(1), Some(nf6));
        assert_eq!(quiet_order(&v, &h, &after_e4)[0], "g8f6");
        // ...but not after d4 (no counter, no continuation history).
        let mut after_d4 = start.clone();
        after_d4.make(d4);
        h.set_context(1, h.context_of(&start, &d4));
        assert_eq!(h.counter_move(1), None);
        assert_eq!(h.continuation(&after_d4, 1, &nf6), 0);
        // A null move or the root gives no context.
        h.set_context(1, h.context_of(&start, &Move::NULL));
        assert_eq!(h.counter_move(1), None);
        // Punishing Nf6 after e4 many times keeps the score within the
        // history's bound.
        h.set_context(1, h.context_of(&start, &e4));
        for _ in 0..1000 {
            h.update_continuation(&after_e4, 1, &nf6, -HISTORY_MAX);
        }
        assert_eq!(h.continuation(&after_e4, 1, &nf6), -HISTORY_MAX);
        // A reward only makes a move the counter move.
        assert_eq!(h.counter_move(1), Some(nf6));
        h.clear();
        assert_eq!(h.continuation(&after_e4, 1, &nf6), 0);
        assert_eq!(h.counter_move(1), None);
    }

    #[test]
    fn boards_too_large_for_the_direct_table_share_it_by_hash() {
        // The 4-D diamond's pairs of (kind, target) and (seat, kind,
        // target) do not fit 2^CONTINUATION_BITS slots.
        let v = Variant::from_spec("diamond:n=4").unwrap();
        let (kinds, cells) = (v.kinds.len(), v.geometry.cell_count());
        assert!(kinds * cells * 2 * kinds * cells > 1 << CONTINUATION_BITS);
        let mut h = Heuristics::new(2, kinds, cells, 8);
        assert_eq!(h.continuation.len(), 1 << CONTINUATION_BITS);
        let start = Position::start(&v);
        let mut movegen = MoveGen::new(&v);
        let mut moves = Vec::new();
        movegen.generate(&start, &mut moves);
        let first = moves[0];
        let mut after = start.clone();
        after.make(first);
        let mut replies = Vec::new();
        movegen.generate(&after, &mut replies);
        h.set_context(1, h.context_of(&start, &first));
        for r in &replies {
            h.update_continuation(&after, 1, r, 100);
        }
        // Every reply reads a score from its slot (shared slots add up,
        // within the bound).
        for r in &replies {
            let c = h.continuation(&after, 1, r);
            assert!((100..=HISTORY_MAX).contains(&c), "{c}");
        }
    }

    /// The order [`pick`] hands moves out in, exchanges asked as it goes,
    /// is the order it gives when every exchange was asked up front
    /// ([`settle_exchanges`] first: the old way of scoring), on the
    /// positions of random games of several boards, in both ways of
    /// scoring the quiet moves, with a hash move now and then.
    #[test]
    fn asking_exchanges_when_picking_keeps_the_order() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(41);
        let mut demoted_seen = 0;
        for spec in ["chess", "cylinder", "torus", "cube", "diamond:n=3"] {
            let v = Variant::from_spec(spec).unwrap();
            let eval = Evaluator::new(&v, EvalConfig::FULL);
            let mut movegen = MoveGen::new(&v);
            let h = Heuristics::new(v.seat_count(), v.kinds.len(), v.geometry.cell_count(), 4);
            let mut moves = Vec::new();
            for _ in 0..6 {
                let mut pos = Position::start(&v);
                for _ in 0..80 {
                    movegen.generate(&pos, &mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    let tt = (rng.random_range(0..4) == 0)
                        .then(|| MoveCode::of(moves[rng.random_range(0..moves.len())]));
                    for quiets in [Quiets::Ordered, Quiets::Last] {
                        let handed_out = |settle: bool| {
                            let mut list = moves.clone();
                            let mut scores = Vec::new();
                            score_moves(&pos, &eval, &h, 1, tt, &list, quiets, &mut scores);
                            if settle {
                                settle_exchanges(&pos, &eval, &movegen, &list, &mut scores);
                            }
                            let mut scratch = SortScratch::default();
                            let mut out = Vec::new();
                            for i in 0..list.len() {
                                pick(
                                    &pos,
                                    &eval,
                                    &movegen,
                                    &mut list,
                                    &mut scores,
                                    i,
                                    &mut scratch,
                                );
                                out.push((list[i], scores[i]));
                            }
                            out
                        };
                        let eager = handed_out(true);
                        assert_eq!(handed_out(false), eager, "{spec}");
                        demoted_seen += eager
                            .iter()
                            .filter(|(_, s)| *s < BAD_CAPTURE / 2 && *s > UNSCORED_QUIET)
                            .count();
                    }
                    pos.make(moves[rng.random_range(0..moves.len())]);
                }
            }
        }
        // The games reached losing captures, so the lazy path was asked.
        assert!(demoted_seen > 100, "{demoted_seen}");
    }
}
