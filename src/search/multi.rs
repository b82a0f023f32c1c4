//! The searches of multi-party games (more than two players, seed 000
//! §8.6): paranoid, best-reply search and max-n, selectable.
//!
//! With more than two players "the opponent" is no longer one seat, and
//! the three classic answers differ in whom they assume the others play
//! against:
//! - **paranoid** (Sturtevant & Korf 2000): every other player plays
//!   against the seat searching (its side, with coalitions), so the tree is
//!   a two-sided alpha-beta tree from the root seat's view;
//! - **best-reply search** (BRS, Schadd & Winands 2011): as paranoid, but
//!   between two moves of the root's side only the *one* opponent with the
//!   strongest reply moves, the others pass, so the root seat sees deeper
//!   at the price of positions that cannot arise. Passing is a null move;
//!   an opponent in check (which may not pass into a king capture) or
//!   without a move plays its first move in the move order instead, as in
//!   BRS+ (Esser et al. 2013);
//! - **max-n** (Luckhardt & Irani 1986): every node returns one value per
//!   seat and the seat to move picks the child best for itself; shallow
//!   pruning (Korf 1991) cuts a child once the seat above can no longer
//!   gain there, which needs a bound on the sum of the values.
//!
//! All three share the rest: the per-seat evaluation
//! ([`crate::eval::Evaluator::seat_values`]) turned into one value per
//! seat, the game-theoretic values of the seed's scores, quiescence on
//! captures, move ordering by table move, captures, killers and history,
//! the shared transposition table (keyed with the algorithm and the root
//! seat, because paranoid and BRS values are the root seat's view), threads
//! sharing that table (Lazy SMP), and the clock.
//!
//! Values: a seat still in play is worth the mean of its side's army
//! values minus the mean of its enemies' (the seats it may capture; a seat
//! out counts with nothing, so putting an enemy out gains its army), within
//! ±[`EVAL_CAP`]; a seat whose result is fixed (out, or the game over) is
//! worth [`RESULT_UNIT`] per quarter point above or below half a point,
//! nearer results counting more (one per ply). With two players this is
//! the usual zero-sum evaluation.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::board::party::{Fate, PartyMode, PartyRules};
use crate::board::seating::{MAX_SEATS, Seat};
use crate::board::variant::Variant;
use crate::eval::{EVAL_LIMIT, EvalScratch, Evaluator};
use crate::rules::movegen::{GenType, MoveGen, legal_prefix};
use crate::rules::moves::{Move, MoveKind};
use crate::rules::position::Position;

use super::control::SearchControl;
use super::info::{SearchInfo, SearchResult};
use super::limits::Limits;
use super::ordering::{self, Heuristics, is_capture};
use super::score::{self, Bound, MAX_PLY, Score};
use super::time::TimeManager;
use super::tt::{MoveCode, NO_EVAL, TranspositionTable};

/// Which multi-player search decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MultiAlgorithm {
    /// Everyone else against the root seat.
    Paranoid,
    /// Best-reply search: one opponent replies, the others pass.
    BestReply,
    /// Every seat for itself (max-n with shallow pruning).
    MaxN,
}

impl MultiAlgorithm {
    /// Every algorithm, in the order the option lists them.
    pub const ALL: [MultiAlgorithm; 3] = [
        MultiAlgorithm::Paranoid,
        MultiAlgorithm::BestReply,
        MultiAlgorithm::MaxN,
    ];

    /// The default: chosen by the 6-seat matches of docs/performance.md.
    pub const DEFAULT: MultiAlgorithm = MultiAlgorithm::Paranoid;

    /// The option value naming the algorithm.
    pub fn name(self) -> &'static str {
        match self {
            MultiAlgorithm::Paranoid => "paranoid",
            MultiAlgorithm::BestReply => "brs",
            MultiAlgorithm::MaxN => "maxn",
        }
    }

    /// The algorithm an option value names.
    pub fn parse(s: &str) -> Option<MultiAlgorithm> {
        Self::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(s.trim()))
    }

    /// Mixed into table keys, so that the algorithms' entries never mix.
    fn key(self) -> u64 {
        match self {
            MultiAlgorithm::Paranoid => 0x9E37_79B9_7F4A_7C15,
            MultiAlgorithm::BestReply => 0xBF58_476D_1CE4_E5B9,
            MultiAlgorithm::MaxN => 0x94D0_49BB_1331_11EB,
        }
    }
}

impl std::fmt::Display for MultiAlgorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Evaluation values of a seat in play stay within ±this.
pub const EVAL_CAP: i32 = EVAL_LIMIT;
/// Value of a fixed result per quarter point above (below) half a point:
/// far above every evaluation, and inside the table's mate band, so that
/// stored distances are kept relative to the node (`score::to_tt`).
pub const RESULT_UNIT: i32 = 1_000_000;
/// Larger than every value.
const INF: i32 = 10 * RESULT_UNIT;
/// Deepest quiescence below the horizon.
const QUIESCENCE_PLIES: usize = 4;
/// Order score of a king capture (above the table move).
const KING_CAPTURE: i32 = i32::MAX;

const _: () = assert!(RESULT_UNIT - MAX_PLY as i32 > score::MATE_BOUND && EVAL_CAP < RESULT_UNIT);

/// One value per seat.
pub type Values = [i32; MAX_SEATS];

/// The value of a result of `quarters` quarter points, `ply` plies from
/// the root: wins sooner, losses later.
fn result_value(quarters: u8, ply: usize) -> i32 {
    let v = RESULT_UNIT * (quarters as i32 - 2);
    v - v.signum() * ply as i32
}

/// Quarter points of a fate.
fn fate_quarters(f: Fate) -> u8 {
    match f {
        Fate::Lost => 0,
        Fate::Drawn => 2,
        Fate::Won => 4,
    }
}

/// What every thread of one search shares.
struct Shared<'a> {
    tt: &'a TranspositionTable,
    eval: &'a Evaluator,
    control: &'a SearchControl,
    abort: &'a AtomicBool,
    nodes: &'a [AtomicU64],
    limits: &'a Limits,
    algorithm: MultiAlgorithm,
    root: Seat,
    /// `side[p]`: whether seat `p` plays on the root's side.
    side: [bool; MAX_SEATS],
    /// Mixed into every table key.
    key: u64,
}

/// The main thread's clock and reports.
struct MainDuties {
    tm: TimeManager,
    pondering: bool,
}

/// One thread of a multi-player search.
pub(crate) struct MultiWorker {
    id: usize,
    pos: Option<Position>,
    movegen: MoveGen,
    scratch: EvalScratch,
    moves: Vec<Vec<Move>>,
    scores: Vec<Vec<i32>>,
    sort_buf: Vec<(i32, Move)>,
    heuristics: Heuristics,
    nodes: u64,
    seldepth: usize,
    stopped: bool,
    /// Children cut by max-n's shallow pruning.
    pub shallow_cuts: u64,
    /// Root moves with the value of the last iteration that searched them
    /// (root seat's view), best first.
    root_moves: Vec<(Move, i32)>,
    completed_depth: u32,
    shape: (usize, usize, usize),
}

impl MultiWorker {
    /// A thread for variant `v`.
    pub fn new(id: usize, v: &Variant) -> MultiWorker {
        let cells = v.geometry.cell_count();
        MultiWorker {
            id,
            pos: None,
            movegen: MoveGen::new(v),
            scratch: EvalScratch::default(),
            moves: vec![Vec::new(); MAX_PLY + 1],
            scores: vec![Vec::new(); MAX_PLY + 1],
            sort_buf: Vec::new(),
            heuristics: Heuristics::new(v.seat_count(), v.kinds.len(), cells, MAX_PLY + 1),
            nodes: 0,
            seldepth: 0,
            stopped: false,
            shallow_cuts: 0,
            root_moves: Vec::new(),
            completed_depth: 0,
            shape: (v.seat_count(), v.kinds.len(), cells),
        }
    }

    /// Whether the thread's tables fit `v`.
    pub fn fits(&self, v: &Variant) -> bool {
        self.shape == (v.seat_count(), v.kinds.len(), v.geometry.cell_count())
            && self.movegen.fits(v)
    }

    /// Forgets the history of earlier games.
    pub fn clear(&mut self) {
        self.heuristics.clear();
    }

    #[inline]
    fn pos(&self) -> &Position {
        self.pos
            .as_ref()
            .expect("invariant: search() sets the position before any node")
    }

    #[inline]
    fn pos_mut(&mut self) -> &mut Position {
        self.pos
            .as_mut()
            .expect("invariant: search() sets the position before any node")
    }

    fn total_nodes(&self, sh: &Shared) -> u64 {
        super::nodes_of_all(sh.nodes, self.id, self.nodes)
    }

    /// Whether the search must stop now (the main thread also watches the
    /// node limit and the clock).
    fn check_abort(&mut self, sh: &Shared, main: &mut Option<&mut MainDuties>) -> bool {
        if self.stopped {
            return true;
        }
        if sh.control.stopped() || sh.abort.load(Ordering::Relaxed) {
            self.stopped = true;
            return true;
        }
        if self.id == 0
            && let Some(limit) = sh.limits.nodes
            && self.total_nodes(sh) >= limit
        {
            self.stopped = true;
            return true;
        }
        if self.nodes & 255 == 0 {
            sh.nodes[self.id].store(self.nodes, Ordering::Relaxed);
        }
        if self.nodes & 15 == 0
            && let Some(m) = main.as_deref_mut()
        {
            if m.pondering && !sh.control.pondering_now() {
                m.pondering = false;
                m.tm.restart(Instant::now());
            }
            if !m.pondering && m.tm.out_of_time() {
                self.stopped = true;
                return true;
            }
        }
        false
    }

    /// Whether the position is drawn by the 50-move rule or a repetition
    /// inside the window of reversible plies.
    fn rule_draw(&self) -> bool {
        let pos = self.pos();
        let hm = pos.halfmove_clock() as usize;
        if hm == 0 {
            return false;
        }
        if pos.variant().rules.fifty_move && hm as u32 >= pos.fifty_move_plies() {
            return true;
        }
        let hist = pos.hash_history();
        let h = pos.hash();
        hist.iter().rev().take(hm).any(|&x| x == h)
    }

    /// The value of every seat when the game ends with `points` (quarter
    /// points per seat).
    fn result_values(points: impl Iterator<Item = u8>, ply: usize) -> Values {
        let mut vals = [0; MAX_SEATS];
        for (slot, q) in vals.iter_mut().zip(points) {
            *slot = result_value(q, ply);
        }
        vals
    }

    /// The values of a drawn game: seats out keep their fates (coalitions
    /// draw as a whole).
    fn draw_values(&self) -> Values {
        let pos = self.pos();
        let v = pos.variant();
        let fates = pos.turn_state().fates;
        let coalition = v
            .rules
            .party
            .is_some_and(|p| p.mode == PartyMode::Coalition);
        Self::result_values(
            v.seating.seats().map(|s| match fates.of(s) {
                Some(f) if !coalition => fate_quarters(f),
                _ => 2,
            }),
            0,
        )
    }

    /// The values of a position whose seats to move have no move: the game
    /// is over (the move generator returns no move only then).
    fn terminal_values(&self, ply: usize) -> Values {
        let pos = self.pos();
        match pos.outcome() {
            Some(o) => Self::result_values(o.points.values().iter().map(|p| p.quarters()), ply),
            None => self.draw_values(),
        }
    }

    /// The static values of every seat: results fixed for the seats out
    /// (unless a coalition still plays for them), the evaluation for the
    /// others.
    fn static_values(&mut self, sh: &Shared, ply: usize) -> Values {
        let terms = {
            let pos = self.pos.as_ref().expect("invariant: position set");
            sh.eval.seat_values(pos, &mut self.scratch)
        };
        let pos = self.pos();
        let v = pos.variant();
        let fates = pos.turn_state().fates;
        let party = v.rules.party;
        let coalition = party.is_some_and(|p| p.mode == PartyMode::Coalition);
        let out = pos.out();
        let mut vals = [0; MAX_SEATS];
        for seat in v.seating.seats() {
            let p = seat.index();
            if let Some(f) = fates.of(seat)
                && !coalition
            {
                vals[p] = result_value(fate_quarters(f), ply);
                continue;
            }
            // Seats out count with nothing: putting an enemy out is worth
            // its whole army.
            let (mut own, mut own_n, mut enemy, mut enemy_n) = (0i64, 0i64, 0i64, 0i64);
            for q in v.seating.seats() {
                let t = if out.contains(q) {
                    0
                } else {
                    terms[q.index()] as i64
                };
                if v.seating.same_side(seat, q) {
                    own += t;
                    own_n += 1;
                } else if v.seating.may_capture(seat, q) {
                    enemy += t;
                    enemy_n += 1;
                }
            }
            let mean = |sum: i64, n: i64| if n == 0 { 0 } else { sum / n };
            vals[p] = (mean(own, own_n) - mean(enemy, enemy_n))
                .clamp(-(EVAL_CAP as i64), EVAL_CAP as i64) as i32;
        }
        if sh.eval.config().tempo {
            let m = pos.to_move().index();
            vals[m] = (vals[m] + sh.eval.tempo()).min(EVAL_CAP);
        }
        vals
    }

    /// Whether the root seat's result is fixed already (it is out and no
    /// coalition plays on for it): paranoid and BRS stop there.
    fn root_fixed(&self, sh: &Shared, ply: usize) -> Option<i32> {
        let pos = self.pos();
        let party: PartyRules = pos.variant().rules.party?;
        if party.mode == PartyMode::Coalition {
            return None;
        }
        let f = pos.turn_state().fates.of(sh.root)?;
        Some(result_value(fate_quarters(f), ply))
    }

    #[inline]
    fn tt_key(&self, sh: &Shared) -> u64 {
        self.pos().hash() ^ sh.key
    }

    /// Generates the moves of the seat to move into `moves[ply]` and
    /// orders them (table move, captures, killers, history).
    fn generate_ordered(&mut self, sh: &Shared, ply: usize, which: GenType) {
        let tt_move = sh.tt.probe(self.tt_key(sh)).and_then(|e| e.mv);
        let mut list = std::mem::take(&mut self.moves[ply]);
        let mut scores = std::mem::take(&mut self.scores[ply]);
        {
            let pos = self.pos.as_ref().expect("invariant: position set");
            if which == GenType::All {
                self.movegen.generate(pos, &mut list);
            } else {
                self.movegen.generate_kind(pos, which, &mut list);
            }
            if list.len() == 1 {
                // Nothing to order (and the step out has no piece for the
                // history to look up).
                scores.clear();
                scores.push(0);
                self.moves[ply] = list;
                self.scores[ply] = scores;
                return;
            }
            ordering::score_moves(
                pos,
                sh.eval,
                &self.heuristics,
                ply,
                tt_move,
                &list,
                ordering::Quiets::Ordered,
                &mut scores,
            );
            ordering::settle_exchanges(pos, sh.eval, &self.movegen, &list, &mut scores);
            // A king capture puts a player out: tried before anything.
            let royal = pos.variant().royal_kind;
            for (m, sc) in list.iter().zip(scores.iter_mut()) {
                if m.kind != MoveKind::Castle
                    && m.kind != MoveKind::Out
                    && royal.is_some_and(|r| {
                        let p = pos.piece_at(m.to as usize);
                        p != crate::board::piece::EMPTY && crate::board::piece::piece_kind(p) == r
                    })
                {
                    *sc = KING_CAPTURE;
                }
            }
        }
        let pairs = &mut self.sort_buf;
        pairs.clear();
        pairs.extend(scores.iter().copied().zip(list.iter().copied()));
        pairs.sort_by_key(|p| std::cmp::Reverse(p.0));
        for (i, &(s, m)) in pairs.iter().enumerate() {
            scores[i] = s;
            list[i] = m;
        }
        self.moves[ply] = list;
        self.scores[ply] = scores;
    }

    /// Remembers a quiet move that cut at `ply`.
    fn reward(&mut self, m: Move, ply: usize, depth: i32) {
        let pos = self.pos.as_ref().expect("invariant: position set");
        if m.kind == MoveKind::Null || m.kind == MoveKind::Out || is_capture(pos, &m) {
            return;
        }
        self.heuristics.add_killer(ply, m);
        self.heuristics.update_history(pos, &m, depth * depth);
    }

    /// Node entry: the stop check, the node count and the draws by rule.
    /// `Some(values)` ends the node.
    fn enter(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        ply: usize,
    ) -> Option<Values> {
        if self.check_abort(sh, main) {
            return Some([0; MAX_SEATS]);
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.rule_draw() {
            return Some(self.draw_values());
        }
        if ply >= MAX_PLY - 1 {
            return Some(self.static_values(sh, ply));
        }
        None
    }

    // ----- paranoid and best-reply search: values from the root's view -----

    /// Alpha-beta over the root seat's value: its side maximises, everyone
    /// else minimises (paranoid), or, with BRS, one opponent replies.
    fn alpha_beta(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
    ) -> i32 {
        let root = sh.root.index();
        if let Some(v) = self.enter(sh, main, ply) {
            return v[root];
        }
        if let Some(v) = self.root_fixed(sh, ply) {
            return v;
        }
        if depth <= 0 {
            return self.quiesce(sh, main, alpha, beta, ply, 0);
        }
        let key = self.tt_key(sh);
        let entry = sh.tt.probe(key);
        if let Some(e) = entry
            && e.depth >= depth
            && ply > 0
            && let Some(v) = e.cutoff(ply, alpha, beta)
        {
            return v;
        }
        self.generate_ordered(sh, ply, GenType::All);
        if self.moves[ply].is_empty() {
            return self.terminal_values(ply)[root];
        }
        let mover = self.pos().to_move();
        let maximise = sh.side[mover.index()];
        if !maximise && sh.algorithm == MultiAlgorithm::BestReply {
            return self.best_reply_layer(sh, main, alpha, beta, depth, ply, key);
        }
        let (alpha0, beta0) = (alpha, beta);
        let mut best = if maximise { -INF } else { INF };
        let mut best_move = None;
        let n = self.moves[ply].len();
        for i in 0..n {
            let m = self.moves[ply][i];
            self.pos_mut().make(m);
            let v = self.alpha_beta(sh, main, alpha, beta, depth - 1, ply + 1);
            self.pos_mut().unmake();
            if self.stopped {
                return 0;
            }
            let better = if maximise { v > best } else { v < best };
            if better {
                best = v;
                best_move = Some(m);
                if maximise {
                    alpha = alpha.max(v);
                } else {
                    beta = beta.min(v);
                }
            }
            if alpha >= beta {
                self.reward(m, ply, depth);
                break;
            }
        }
        let bound = if best >= beta0 {
            Bound::Lower
        } else if best <= alpha0 {
            Bound::Upper
        } else {
            Bound::Exact
        };
        sh.tt.store(
            key,
            best_move.map(MoveCode::of),
            depth,
            bound,
            score::to_tt(best, ply),
            NO_EVAL,
        );
        best
    }

    /// The move a seat plays when BRS lets it pass: a null move, or, when
    /// it is in check or has only the step out, its first ordered move
    /// (BRS+). `None` when it has no move (the game is over).
    fn pass_move(&mut self, sh: &Shared, ply: usize) -> Option<Move> {
        if !self.pos().in_check() {
            let mut list = std::mem::take(&mut self.moves[ply]);
            {
                let pos = self.pos.as_ref().expect("invariant: position set");
                self.movegen.generate(pos, &mut list);
            }
            let only_out = list.len() == 1 && list[0].kind == MoveKind::Out;
            let empty = list.is_empty();
            self.moves[ply] = list;
            if empty {
                return None;
            }
            return Some(if only_out { Move::OUT } else { Move::NULL });
        }
        self.generate_ordered(sh, ply, GenType::All);
        self.moves[ply].first().copied()
    }

    /// BRS's layer of opponents between two moves of the root's side: for
    /// each opponent in turn, each of its moves with the opponents after it
    /// passing; or it passes and a later opponent replies. The moves of the
    /// opponent to move are in `moves[ply]`, ordered.
    #[allow(clippy::too_many_arguments)]
    fn best_reply_layer(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        key: u64,
    ) -> i32 {
        let beta0 = beta;
        let mut best = INF;
        let mut best_move = None;
        let n = self.moves[ply].len();
        for i in 0..n {
            let m = self.moves[ply][i];
            self.pos_mut().make(m);
            // The opponents after this one pass.
            let mut passes = 0;
            let mut p = ply + 1;
            while p < MAX_PLY - 1
                && !sh.side[self.pos().to_move().index()]
                && !self.pos().party_decided()
                && self.root_fixed(sh, p).is_none()
            {
                match self.pass_move(sh, p) {
                    Some(pm) => {
                        self.pos_mut().make(pm);
                        self.nodes += 1;
                        passes += 1;
                        p += 1;
                    }
                    None => break,
                }
            }
            let v = self.alpha_beta(sh, main, alpha, beta, depth - 1, p);
            for _ in 0..passes {
                self.pos_mut().unmake();
            }
            self.pos_mut().unmake();
            if self.stopped {
                return 0;
            }
            if v < best {
                best = v;
                best_move = Some(m);
                beta = beta.min(v);
            }
            if alpha >= beta {
                self.reward(m, ply, depth);
                break;
            }
        }
        // This opponent passes and a later one replies.
        if alpha < beta
            && let Some(pm) = self.pass_move(sh, ply)
        {
            self.pos_mut().make(pm);
            let later = !sh.side[self.pos().to_move().index()] && !self.pos().party_decided();
            if later {
                self.nodes += 1;
                self.generate_ordered(sh, ply + 1, GenType::All);
                let v = if self.moves[ply + 1].is_empty() {
                    self.terminal_values(ply + 1)[sh.root.index()]
                } else {
                    let k = self.tt_key(sh);
                    self.best_reply_layer(sh, main, alpha, beta, depth, ply + 1, k)
                };
                if v < best {
                    best = v;
                }
            }
            self.pos_mut().unmake();
            if self.stopped {
                return 0;
            }
        }
        let bound = if best <= alpha {
            Bound::Upper
        } else if best >= beta0 {
            Bound::Lower
        } else {
            Bound::Exact
        };
        sh.tt.store(
            key,
            best_move.map(MoveCode::of),
            depth,
            bound,
            score::to_tt(best, ply),
            NO_EVAL,
        );
        best
    }

    /// Quiescence in the root's view: the seat to move stands pat or
    /// captures (each seat in turn).
    fn quiesce(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        qply: usize,
    ) -> i32 {
        let root = sh.root.index();
        if let Some(v) = self.enter(sh, main, ply) {
            return v[root];
        }
        if let Some(v) = self.root_fixed(sh, ply) {
            return v;
        }
        if self.pos().party_decided() {
            return self.terminal_values(ply)[root];
        }
        let stand = self.static_values(sh, ply)[root];
        let maximise = sh.side[self.pos().to_move().index()];
        if maximise {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
        } else {
            if stand <= alpha {
                return stand;
            }
            beta = beta.min(stand);
        }
        if qply >= QUIESCENCE_PLIES {
            return stand;
        }
        self.generate_ordered(sh, ply, GenType::Captures);
        let mut best = stand;
        let n = self.moves[ply].len();
        for i in 0..n {
            if self.scores[ply][i] < 0 {
                // The captures left lose material (ordered last).
                break;
            }
            let m = self.moves[ply][i];
            self.pos_mut().make(m);
            let v = self.quiesce(sh, main, alpha, beta, ply + 1, qply + 1);
            self.pos_mut().unmake();
            if self.stopped {
                return 0;
            }
            if maximise {
                if v > best {
                    best = v;
                    alpha = alpha.max(v);
                }
            } else if v < best {
                best = v;
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }

    // ----- max-n: one value per seat -----

    /// Max-n: the seat to move takes the child best for itself. `above`
    /// is the seat that moved into this node and the best value it has
    /// found so far, for shallow pruning.
    fn max_n(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        depth: i32,
        ply: usize,
        above: Option<(Seat, i32)>,
    ) -> Values {
        if let Some(v) = self.enter(sh, main, ply) {
            return v;
        }
        if depth <= 0 {
            return self.max_n_quiesce(sh, main, ply, 0);
        }
        let key = self.tt_key(sh);
        self.generate_ordered(sh, ply, GenType::All);
        if self.moves[ply].is_empty() {
            return self.terminal_values(ply);
        }
        let mover = self.pos().to_move();
        let me = mover.index();
        let (sum_max, floor) = value_bounds(self.pos().variant());
        let mut best: Option<Values> = None;
        let mut best_move = None;
        let n = self.moves[ply].len();
        for i in 0..n {
            let m = self.moves[ply][i];
            let own = best.map_or(-INF, |b| b[me]);
            self.pos_mut().make(m);
            let v = self.max_n(sh, main, depth - 1, ply + 1, Some((mover, own)));
            self.pos_mut().unmake();
            if self.stopped {
                return [0; MAX_SEATS];
            }
            if best.is_none_or(|b| v[me] > b[me]) {
                best = Some(v);
                best_move = Some(m);
            }
            // Shallow pruning: the seat above gets at most the sum's bound
            // minus what this seat secures here and what the others cannot
            // fall below; if that is no better than what it has, stop.
            if let Some((seat_above, had)) = above
                && seat_above != mover
                && let Some(b) = best
            {
                let others = self.pos().variant().seat_count() as i64 - 2;
                let most = sum_max as i64 - b[me] as i64 - others * floor as i64;
                if most <= had as i64 {
                    self.shallow_cuts += 1;
                    self.reward(m, ply, depth);
                    break;
                }
            }
        }
        sh.tt.store(
            key,
            best_move.map(MoveCode::of),
            depth,
            Bound::Exact,
            0,
            NO_EVAL,
        );
        best.unwrap_or([0; MAX_SEATS])
    }

    /// Max-n quiescence: the seat to move stands pat or takes the capture
    /// best for itself.
    fn max_n_quiesce(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        ply: usize,
        qply: usize,
    ) -> Values {
        if let Some(v) = self.enter(sh, main, ply) {
            return v;
        }
        if self.pos().party_decided() {
            return self.terminal_values(ply);
        }
        let mut best = self.static_values(sh, ply);
        if qply >= QUIESCENCE_PLIES {
            return best;
        }
        let me = self.pos().to_move().index();
        self.generate_ordered(sh, ply, GenType::Captures);
        let n = self.moves[ply].len();
        for i in 0..n {
            if self.scores[ply][i] < 0 {
                break;
            }
            let m = self.moves[ply][i];
            self.pos_mut().make(m);
            let v = self.max_n_quiesce(sh, main, ply + 1, qply + 1);
            self.pos_mut().unmake();
            if self.stopped {
                return best;
            }
            if v[me] > best[me] {
                best = v;
            }
        }
        best
    }

    // ----- the root -----

    /// The root seat's value of root move `m` at `depth` (window
    /// `alpha..INF` for the alpha-beta searches).
    fn root_move_value(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        m: Move,
        depth: i32,
        alpha: i32,
    ) -> i32 {
        self.pos_mut().make(m);
        let v = match sh.algorithm {
            MultiAlgorithm::MaxN => self.max_n(sh, main, depth - 1, 1, None)[sh.root.index()],
            _ => self.alpha_beta(sh, main, alpha, INF, depth - 1, 1),
        };
        self.pos_mut().unmake();
        v
    }

    /// Iterative deepening from the root until a limit or a stop. The
    /// main thread (`main` set) reports each finished iteration.
    fn iterate(
        &mut self,
        sh: &Shared,
        mut main: Option<&mut MainDuties>,
        max_depth: u32,
        on_info: &mut dyn FnMut(&MultiWorker, u32, i32),
    ) {
        let start_depth = 1 + (self.id as u32 % 2);
        for depth in start_depth..=max_depth {
            let mut alpha = -INF;
            let mut results: Vec<(Move, i32)> = Vec::with_capacity(self.root_moves.len());
            let moves: Vec<Move> = self.root_moves.iter().map(|r| r.0).collect();
            for (i, &m) in moves.iter().enumerate() {
                let v = self.root_move_value(sh, &mut main, m, depth as i32, alpha);
                if self.stopped {
                    // A move searched to the end that beats the last
                    // iteration's best is kept.
                    if i > 0
                        && let Some(&(bm, bv)) = results.iter().max_by_key(|r| r.1)
                        && bv > self.root_moves[0].1
                        && bm != self.root_moves[0].0
                    {
                        let pos = self.root_moves.iter().position(|r| r.0 == bm).unwrap_or(0);
                        self.root_moves[pos].1 = bv;
                        let r = self.root_moves.remove(pos);
                        self.root_moves.insert(0, r);
                    }
                    return;
                }
                if sh.algorithm != MultiAlgorithm::MaxN {
                    alpha = alpha.max(v);
                }
                results.push((m, v));
            }
            // Stable sort: equal values keep the earlier order.
            results.sort_by_key(|r| std::cmp::Reverse(r.1));
            self.root_moves = results;
            self.completed_depth = depth;
            if let Some(m) = main.as_deref_mut() {
                let best = self.root_moves[0].1;
                on_info(self, depth, best);
                if self.root_moves.len() == 1 && m.tm.limited() {
                    return;
                }
                if !m.pondering && !m.tm.may_continue(1.0) {
                    return;
                }
                if best.abs() > RESULT_UNIT / 2 && depth >= 2 {
                    // A decided result: deeper search finds no other.
                    let plies = RESULT_UNIT - best.abs() % RESULT_UNIT;
                    if (plies as u32) < depth {
                        return;
                    }
                }
            }
        }
    }

    /// The line from the root: the best root move, then the table's moves
    /// (checked to be legal).
    fn principal_line(&self, sh: &Shared, root: &Position, depth: u32) -> Vec<Move> {
        let Some(&(first, _)) = self.root_moves.first() else {
            return Vec::new();
        };
        let mut p = root.clone();
        let mut line = vec![first];
        p.make(first);
        let mut list = Vec::new();
        while (line.len() as u32) < depth.max(1) {
            let Some(code) = sh.tt.probe(p.hash() ^ sh.key).and_then(|e| e.mv) else {
                break;
            };
            crate::rules::movegen::with_generator(p.variant(), |g| g.generate(&p, &mut list));
            let Some(&m) = list.iter().find(|m| code.matches(m)) else {
                break;
            };
            line.push(m);
            p.make(m);
        }
        legal_prefix(root, &line)
    }
}

/// The bounds max-n's shallow pruning needs: the largest sum of all seats'
/// values and the lowest value of one seat. The seed's results do not sum
/// to a constant (every survivor of a free-for-all scores 1), so the bound
/// on the sum is loose and the pruning rare (Sturtevant & Korf 2000 found
/// shallow pruning weak for the same reason).
fn value_bounds(v: &Variant) -> (i32, i32) {
    let seats = v.seat_count() as i32;
    (seats.saturating_mul(2 * RESULT_UNIT), -2 * RESULT_UNIT)
}

/// The public score of a root-view value: a fixed result reads as mate in
/// the number of the seat's own moves until it is fixed.
pub fn score_of(value: i32, seats_in_play: usize) -> Score {
    if value.abs() <= EVAL_CAP {
        return Score::Cp(value);
    }
    let units = (value.abs() + RESULT_UNIT / 2) / RESULT_UNIT;
    let plies = (units * RESULT_UNIT - value.abs()).max(0) as usize;
    let rounds = plies.div_ceil(seats_in_play.max(1)) as i32;
    if value > 0 {
        Score::Mate(rounds.max(1))
    } else {
        Score::Mate(-rounds)
    }
}

/// Searches a multi-party position for the seat to move with
/// `algorithm`, on `threads` threads sharing `tt`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn search(
    workers: &mut Vec<MultiWorker>,
    tt: &TranspositionTable,
    eval: &Evaluator,
    threads: usize,
    algorithm: MultiAlgorithm,
    pos: &Position,
    legal: Vec<Move>,
    limits: &Limits,
    control: &SearchControl,
    on_info: &mut dyn FnMut(&SearchInfo),
) -> SearchResult {
    let start = Instant::now();
    let v = pos.variant().clone();
    if workers.len() != threads || !workers.iter().all(|w| w.fits(&v)) {
        *workers = (0..threads).map(|i| MultiWorker::new(i, &v)).collect();
    }
    tt.new_search();
    let root = pos.to_move();
    let mut side = [false; MAX_SEATS];
    for s in v.seating.seats() {
        side[s.index()] = v.seating.same_side(s, root);
    }
    let seat_key = (root.index() as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    let abort = AtomicBool::new(false);
    let nodes: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
    let shared = Shared {
        tt,
        eval,
        control,
        abort: &abort,
        nodes: &nodes,
        limits,
        algorithm,
        root,
        side,
        key: algorithm.key() ^ seat_key,
    };
    for w in workers.iter_mut() {
        w.pos = Some(pos.clone());
        w.nodes = 0;
        w.seldepth = 0;
        w.stopped = false;
        w.shallow_cuts = 0;
        w.completed_depth = 0;
        w.root_moves = legal.iter().map(|&m| (m, -INF)).collect();
    }
    let pondering = control.pondering_now();
    let mut tm = TimeManager::new(limits, root, start);
    if pondering {
        tm.restart(start);
    }
    let max_depth = limits
        .depth
        .unwrap_or(super::MAX_DEPTH)
        .clamp(1, super::MAX_DEPTH);
    let in_play = v.seat_count() - pos.out().len();
    let (main_worker, helpers) = workers
        .split_first_mut()
        .expect("invariant: at least one worker (threads >= 1)");
    std::thread::scope(|s| {
        for h in helpers.iter_mut() {
            let shared = &shared;
            s.spawn(move || h.iterate(shared, None, super::MAX_DEPTH, &mut |_, _, _| {}));
        }
        let mut duties = MainDuties { tm, pondering };
        let shared_ref = &shared;
        main_worker.iterate(
            shared_ref,
            Some(&mut duties),
            max_depth,
            &mut |w, depth, value| {
                let total: u64 = w.total_nodes(shared_ref);
                let time = start.elapsed();
                on_info(&SearchInfo {
                    depth,
                    seldepth: w.seldepth as u32,
                    multipv: 1,
                    score: score_of(value, in_play),
                    bound: Bound::Exact,
                    nodes: total,
                    nps: (total as f64 / time.as_secs_f64().max(1e-6)) as u64,
                    hashfull: shared_ref.tt.hashfull(),
                    tbhits: 0,
                    time,
                    pv: w.principal_line(shared_ref, pos, depth),
                    currmove: None,
                });
            },
        );
        super::Engine::wait_while_unbounded(limits, control);
        abort.store(true, Ordering::SeqCst);
    });
    let total: u64 = workers.iter().map(|w| w.nodes).sum();
    let main_worker = &mut workers[0];
    let (best, value) = main_worker.root_moves[0];
    let value = if value == -INF {
        // No root move searched to the end: the static value of the root
        // (the main thread's position is the root again after the search).
        main_worker.static_values(&shared, 0)[root.index()]
    } else {
        value
    };
    let pv = main_worker.principal_line(&shared, pos, main_worker.completed_depth);
    SearchResult {
        best: Some(best),
        ponder: pv.get(1).copied(),
        score: score_of(value, in_play),
        depth: main_worker.completed_depth,
        nodes: total,
        time: start.elapsed(),
        pv,
        outcome: None,
        failure: None,
        strategy: Vec::new(),
        pass: false,
    }
}
