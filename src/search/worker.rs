//! One search thread: iterative deepening over principal variation search
//! with aspiration windows, quiescence, null-move pruning, late-move
//! reductions and check extensions.
//!
//! All threads of a search run this same loop over their own copy of the
//! position and share only the transposition table (Lazy SMP); helper
//! threads skip some depths so that they run ahead of the main thread and
//! fill the table with results it will want. The main thread alone watches
//! the clock, reports progress and decides when everyone stops.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use crate::board::piece::piece_kind;
use crate::board::seating::{MAX_SEATS, Seat, SeatSet, TurnOrder};
use crate::board::variant::{StalemateRule, Variant};
use crate::eval::{EVAL_LIMIT, EvalScratch, Evaluator};
use crate::rules::exchange;
use crate::rules::movegen::{GenType, MoveGen, legal_prefix};
use crate::rules::moves::Move;
use crate::rules::outcome::{EndReason, Outcome};
use crate::rules::position::Position;
use crate::tablebase::{End as TableEnd, Tablebases, Value as TableValue};

use super::control::SearchControl;
use super::correction::CorrectionHistory;
use super::info::SearchInfo;
use super::limits::Limits;
use super::ordering::{self, Heuristics, is_capture, victim_value};
use super::score::{
    self, Bound, DRAW, INFINITE, MATE, MATE_BOUND, MAX_PLY, STALEMATE_WIN_BOUND, Score, mated_in,
    stalemated_in,
};
use super::time::TimeManager;
use super::tt::{MoveCode, NO_EVAL, TranspositionTable, TtEntry};

/// Depth the normal search reaches before a mate hunt starts (the depth
/// at which root moves are checked to keep the stalemate win).
const HUNT_MIN_DEPTH: u32 = 8;

/// What every thread of one search shares.
pub(crate) struct Shared<'a> {
    pub tt: &'a TranspositionTable,
    pub eval: &'a Evaluator,
    pub control: &'a SearchControl,
    /// Set by the main thread when the search ends (all threads stop).
    pub abort: &'a AtomicBool,
    /// Nodes of each thread, published every few hundred nodes.
    pub nodes: &'a [AtomicU64],
    pub limits: &'a Limits,
    pub start: Instant,
    /// Endgame tables of the variant, if any.
    pub tablebases: Option<&'a Tablebases>,
    /// Most pieces of any table there.
    pub tablebase_pieces: usize,
    /// Positions the tables answered (all threads).
    pub tablebase_hits: &'a AtomicU64,
}

/// A root move with its latest score and line.
#[derive(Clone, Debug)]
pub(crate) struct RootMove {
    pub mv: Move,
    pub score: i32,
    pub prev_score: i32,
    pub pv: Vec<Move>,
    pub seldepth: usize,
    pub bound: Bound,
}

/// The main thread's extra duties.
pub(crate) struct MainDuties<'a> {
    pub tm: TimeManager,
    pub pondering: bool,
    pub on_info: &'a mut dyn FnMut(&SearchInfo),
    pub last_best: Option<Move>,
    pub best_changes: f64,
}

/// Per-thread search state, kept between searches (history and killers
/// carry over within a game).
pub(crate) struct Worker {
    pub id: usize,
    pos: Option<Position>,
    pub(super) movegen: MoveGen,
    /// The hash of the position last asked [`Worker::in_check`] about,
    /// and the answer.
    last_check: Option<(u64, bool)>,
    eval_scratch: EvalScratch,
    moves: Vec<Vec<Move>>,
    scores: Vec<Vec<i32>>,
    sort_buf: ordering::SortScratch,
    quiets: Vec<Vec<Move>>,
    pub heuristics: Heuristics,
    pv: Vec<Vec<Move>>,
    evals: Vec<i32>,
    pub nodes: u64,
    seldepth: usize,
    pub root_moves: Vec<RootMove>,
    pub completed_depth: u32,
    stopped: bool,
    /// Mate hunt (see [`Worker::keeps`]): a stalemate win of the root's
    /// side is already banked, so delivering one counts as a draw and the
    /// search plays for mate; results go to a separate part of the table.
    pub hunt: bool,
    /// Whether a mate hunt may follow a found stalemate win.
    pub hunt_allowed: bool,
    /// A mate search (`go mate N`): no forward pruning and no reductions,
    /// so that the search to depth 2N−1 sees every line of N moves and
    /// its answer is a proof either way (see [`Worker::iterate`]). The
    /// prunings trust the static evaluation, which says nothing about
    /// mates: a quiet threat of mate where the other side is far ahead is
    /// exactly what they cut. Results go to a separate part of the table,
    /// so that pruned results of earlier searches are never read as proof.
    pub exhaustive: bool,
    /// Whether the table's move is extended when it is singular (see
    /// [`Worker::singular_extension`]); chosen per variant by
    /// [`super::Switch`].
    pub singular: bool,
    /// Whether static evaluations are corrected by what earlier searches
    /// of the same pawn structure found ([`CorrectionHistory`]; two-seat
    /// variants only, chosen per variant by [`super::Switch`]).
    pub correcting: bool,
    /// The evaluation's error per pawn structure, learnt within a game.
    pub correction: CorrectionHistory,
    /// Per ply: the move a singular test leaves out (the node is searched
    /// again without it; its results are kept apart in the table).
    excluded: Vec<Option<MoveCode>>,
    /// The stalemate-win score banked before a hunt.
    banked: i32,
    root_depth: i32,
    root_player: Seat,
    /// Paranoid sides: `side[p]` is whether seat `p` is on the root's
    /// side (always alternating with two seats).
    side: [bool; MAX_SEATS],
    lmr: Vec<[u8; 64]>,
    /// Variant the tables are sized for.
    shape: (usize, usize, usize),
}

/// The shallowest node the singular test is made at.
const SINGULAR_DEPTH: i32 = 6;

/// What the singular test found.
enum Singular {
    /// The table's move is singular: search it a ply deeper.
    Extend,
    /// Nothing to change.
    Keep,
    /// The node's value (two moves beat beta, or the search stopped).
    Cut(i32),
}

/// The key change of a node searched without move `c` (a singular test).
fn excluded_key(c: MoveCode) -> u64 {
    let x = (c.from as u64)
        | (c.to as u64) << 16
        | (c.promotion as u64) << 32
        | (c.castle as u64) << 40;
    (x ^ 0x3C6E_F372_FE94_F82B).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1
}

fn lmr_table() -> Vec<[u8; 64]> {
    (0..64)
        .map(|d| {
            let mut row = [0u8; 64];
            for (m, r) in row.iter_mut().enumerate() {
                if d > 0 && m > 0 {
                    let x = 0.75 + (d as f64).ln() * (m as f64).ln() / 2.25;
                    *r = x.max(0.0) as u8;
                }
            }
            row
        })
        .collect()
}

impl Worker {
    pub fn new(id: usize, v: &Variant) -> Worker {
        let cells = v.geometry.cell_count();
        Worker {
            id,
            pos: None,
            movegen: MoveGen::new(v),
            last_check: None,
            eval_scratch: EvalScratch::default(),
            moves: vec![Vec::new(); MAX_PLY + 2],
            scores: vec![Vec::new(); MAX_PLY + 2],
            sort_buf: ordering::SortScratch::default(),
            quiets: vec![Vec::new(); MAX_PLY + 2],
            heuristics: Heuristics::new(v.seat_count(), v.kinds.len(), cells, MAX_PLY + 2),
            pv: vec![Vec::new(); MAX_PLY + 2],
            evals: vec![0; MAX_PLY + 2],
            nodes: 0,
            seldepth: 0,
            root_moves: Vec::new(),
            completed_depth: 0,
            stopped: false,
            hunt: false,
            hunt_allowed: false,
            exhaustive: false,
            singular: false,
            correcting: false,
            correction: CorrectionHistory::default(),
            excluded: vec![None; MAX_PLY + 2],
            banked: 0,
            root_depth: 0,
            root_player: Seat::FIRST,
            side: [false; MAX_SEATS],
            lmr: lmr_table(),
            shape: (v.seat_count(), v.kinds.len(), cells),
        }
    }

    /// Whether the tables fit variant `v`.
    pub fn fits(&self, v: &Variant) -> bool {
        self.shape == (v.seat_count(), v.kinds.len(), v.geometry.cell_count())
            && self.movegen.fits(v)
    }

    /// Prepares a search of `pos` over `root`.
    pub fn prepare(&mut self, pos: &Position, root: &[Move]) {
        let v = pos.variant().clone();
        self.root_player = pos.to_move();
        for p in v.seating.seats() {
            self.side[p.index()] = v.seating.same_side(p, self.root_player);
        }
        self.pos = Some(pos.clone());
        self.hunt = false;
        self.hunt_allowed = false;
        self.exhaustive = false;
        self.nodes = 0;
        self.seldepth = 0;
        self.completed_depth = 0;
        self.stopped = false;
        self.root_moves = root
            .iter()
            .map(|&mv| RootMove {
                mv,
                score: -INFINITE,
                prev_score: -INFINITE,
                pv: vec![mv],
                seldepth: 0,
                bound: Bound::Upper,
            })
            .collect();
        for k in self.heuristics.killers.iter_mut() {
            *k = [None; 2];
        }
    }

    #[inline]
    fn pos(&mut self) -> &mut Position {
        self.pos
            .as_mut()
            .expect("invariant: prepare() sets the position before any search")
    }

    /// Nodes of all threads so far.
    fn total_nodes(&self, sh: &Shared) -> u64 {
        super::nodes_of_all(sh.nodes, self.id, self.nodes)
    }

    /// Whether the search must stop now; the main thread also watches the
    /// clock and the node limit here.
    #[inline]
    fn check_abort(&mut self, sh: &Shared, main: &mut Option<&mut MainDuties>) -> bool {
        if self.stopped {
            return true;
        }
        if sh.control.stopped() || sh.abort.load(Ordering::Relaxed) {
            self.stopped = true;
            return true;
        }
        if let Some(limit) = sh.limits.nodes
            && self.id == 0
        {
            let total = if sh.nodes.len() == 1 {
                self.nodes
            } else {
                self.total_nodes(sh)
            };
            if total >= limit {
                self.stopped = true;
                return true;
            }
        }
        if self.nodes & 255 == 0 {
            sh.nodes[self.id].store(self.nodes, Ordering::Relaxed);
        }
        // The clock every 16 nodes: on the largest boards a node costs up to
        // a millisecond, and the engine must never overrun its time.
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

    /// Whether the position is drawn by repetition (once, inside the
    /// window of reversible moves), the 50-move rule or bare kings.
    fn is_draw(&mut self, in_check_unknown: bool) -> bool {
        let pos = self.pos.as_ref().expect("invariant: position set");
        let v = pos.variant();
        let hm = pos.halfmove_clock() as usize;
        if hm == 0 {
            return pos.dead_position();
        }
        if v.rules.fifty_move && hm >= 100 {
            // Mate on the hundredth ply still counts as mate.
            if in_check_unknown && self.movegen.in_check(pos) {
                let mut list = Vec::new();
                self.movegen.generate(pos, &mut list);
                return !list.is_empty();
            }
            return true;
        }
        let hist = pos.hash_history();
        let span = hm.min(hist.len());
        // Positions repeat only a whole round apart while the seats
        // take turns in a fixed order; otherwise any earlier ply may match.
        let step = if v.seating.turn_order() == TurnOrder::Rotate && pos.out().is_empty() {
            v.seat_count()
        } else {
            1
        };
        let h = pos.hash();
        let mut k = step;
        while k <= span {
            if hist[hist.len() - k] == h {
                return true;
            }
            k += step;
        }
        false
    }

    /// Score of a position without legal moves for the player to move.
    fn terminal(&self, in_check: bool, ply: usize) -> i32 {
        let pos = self.pos.as_ref().expect("invariant: position set");
        if in_check {
            mated_in(ply)
        } else {
            match pos.variant().rules.stalemate {
                StalemateRule::Draw => DRAW,
                StalemateRule::StalematedLoses => {
                    // The winner, as the rules score it.
                    let v = pos.variant();
                    let losers = SeatSet::single(pos.to_move());
                    let result = Outcome::defeat(v, losers, EndReason::StalemateLoss { losers });
                    let winner = result.winner().unwrap_or(pos.to_move());
                    if self.hunt && self.side[winner.index()] {
                        return DRAW;
                    }
                    let royal = v.royal_kind;
                    let pieces = pos
                        .seat_cells(winner)
                        .filter(|&c| Some(piece_kind(pos.piece_at(c))) != royal)
                        .count() as u32;
                    stalemated_in(ply, pieces)
                }
            }
        }
    }

    /// The exact score of the current position from the endgame tables,
    /// if a table holds it (never at the root: the root's moves were
    /// chosen by the tables already).
    fn probe_tables(&mut self, sh: &Shared, ply: usize) -> Option<i32> {
        let tb = sh.tablebases?;
        if ply == 0 {
            return None;
        }
        let pos = self.pos.as_ref().expect("invariant: position set");
        let pieces: u32 = pos.occupied_bits().iter().map(|w| w.count_ones()).sum();
        if pieces as usize > sh.tablebase_pieces {
            return None;
        }
        let value = tb.probe(pos).ok()??;
        sh.tablebase_hits.fetch_add(1, Ordering::Relaxed);
        let royal = pos.variant().royal_kind;
        let pieces_of = |seat: Seat| {
            pos.seat_cells(seat)
                .filter(|&c| Some(piece_kind(pos.piece_at(c))) != royal)
                .count() as u32
        };
        let us = pos.to_move();
        // Tables hold two-seat games only (`tablebase::check_variant`).
        let them = pos
            .variant()
            .seating
            .capturable_by(us)
            .lowest()
            .unwrap_or(us);
        // Distances past the score bands are clamped (no table mate is
        // that long on the boards tables are built for).
        let at = |plies: u16| (ply + plies as usize).min(MAX_PLY - 1);
        Some(match value {
            TableValue::Win {
                end: TableEnd::Mate,
                plies,
            } => -mated_in(at(plies)),
            TableValue::Loss {
                end: TableEnd::Mate,
                plies,
            } => mated_in(at(plies)),
            TableValue::Win {
                end: TableEnd::Stalemate,
                plies,
            } => -stalemated_in(at(plies), pieces_of(us)),
            TableValue::Loss {
                end: TableEnd::Stalemate,
                plies,
            } => stalemated_in(at(plies), pieces_of(them)),
            TableValue::Draw => DRAW,
        })
    }

    /// Whether the seat to move is in check. A node asks again what its
    /// parent asked right after making the move (whether it gives check),
    /// so the last answer is kept with the position's hash.
    #[inline(always)]
    fn in_check(&mut self) -> bool {
        let pos = self.pos.as_ref().expect("invariant: position set");
        let key = pos.hash();
        if let Some((k, answer)) = self.last_check
            && k == key
        {
            return answer;
        }
        let answer = self.movegen.in_check(pos);
        self.last_check = Some((key, answer));
        answer
    }

    /// Makes `m` like [`Worker::make_prefetched`]; when `pretest` and the
    /// futility pre-test clears the move ([`MoveGen::gives_no_check`]),
    /// records that the seat to move next is not in check, so that
    /// [`Worker::in_check`] answers without the attack test.
    #[inline(always)]
    fn make_noting_check(&mut self, sh: &Shared, m: Move, ply: usize, pretest: bool) {
        let cleared = pretest
            && self
                .movegen
                .gives_no_check(self.pos.as_ref().expect("invariant: position set"), &m);
        self.make_prefetched(sh, m, ply);
        if cleared {
            let key = self.pos.as_ref().expect("invariant: position set").hash();
            self.last_check = Some((key, false));
        }
    }

    /// Brings the best remaining move of the node's list to index `i`
    /// ([`ordering::pick`], which asks the exchanges on the way).
    #[inline(always)]
    fn pick(&mut self, sh: &Shared, list: &mut [Move], scores: &mut [i32], i: usize) {
        if ordering::picked_already(i) {
            return;
        }
        let pos = self.pos.as_ref().expect("invariant: position set");
        ordering::pick(
            pos,
            sh.eval,
            &self.movegen,
            list,
            scores,
            i,
            &mut self.sort_buf,
        );
    }

    /// Makes `m` and prefetches the child's table bucket.
    #[inline(always)]
    fn make_prefetched(&mut self, sh: &Shared, m: Move, ply: usize) {
        self.make_in_context(m, ply + 1);
        let key = self.tt_key();
        sh.tt.prefetch(key);
    }

    /// Plays `m`, recording it as the context (counter moves,
    /// continuation history) of the node it leads to, at `child_ply`.
    fn make_in_context(&mut self, m: Move, child_ply: usize) {
        let pos = self.pos.as_ref().expect("invariant: position set");
        let context = self.heuristics.context_of(pos, &m);
        self.pos().make(m);
        self.heuristics.set_context(child_ply, context);
    }

    /// The table key of the current position (mate-hunt results are kept
    /// apart from normal ones).
    #[inline]
    fn tt_key(&mut self) -> u64 {
        let h = self.pos().hash();
        self.tt_key_of(h)
    }

    /// Asks for the table bucket of the position after `m` (by
    /// [`Position::hash_hint`]) before `m` is weighed and made: the
    /// bucket's read was the search's longest wait on memory when the
    /// fetch started only after the move.
    #[inline(always)]
    fn prefetch_child(&self, sh: &Shared, m: &Move) {
        let pos = self.pos.as_ref().expect("invariant: position set");
        sh.tt.prefetch(self.tt_key_of(pos.hash_hint(m)));
    }

    /// The table key of a position of hash `h` in this search (mate-hunt
    /// and exhaustive results are kept apart from normal ones).
    #[inline(always)]
    fn tt_key_of(&self, mut h: u64) -> u64 {
        const HUNT_KEY: u64 = 0x6A09_E667_F3BC_C908;
        const EXHAUSTIVE_KEY: u64 = 0xBB67_AE85_84CA_A73B;
        if self.hunt {
            h ^= HUNT_KEY;
        }
        if self.exhaustive {
            h ^= EXHAUSTIVE_KEY;
        }
        h
    }

    /// Whether root move `m` keeps a score above `bound` at `depth` (a
    /// null-window search in normal mode).
    fn keeps(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        m: Move,
        bound: i32,
        depth: i32,
    ) -> bool {
        let hunt = std::mem::replace(&mut self.hunt, false);
        let us = self.pos().to_move();
        self.make_in_context(m, 1);
        let flip = self.flips(us);
        let v = self.child(
            sh,
            main,
            flip,
            bound,
            bound + 1,
            depth - 1,
            1,
            false,
            true,
            true,
        );
        self.pos().unmake();
        self.hunt = hunt;
        !self.stopped && v > bound
    }

    #[inline]
    fn evaluate(&mut self, sh: &Shared) -> i32 {
        let pos = self.pos.as_ref().expect("invariant: position set");
        if pos.variant().seat_count() == 2 {
            sh.eval.evaluate(pos, &mut self.eval_scratch)
        } else {
            sh.eval
                .evaluate_paranoid(pos, &mut self.eval_scratch, self.root_player)
        }
    }

    /// The correction history's slot for the node, where corrections
    /// apply.
    #[inline]
    fn correction_slot(&self) -> Option<usize> {
        let pos = self.pos.as_ref().expect("invariant: position set");
        self.correcting.then(|| CorrectionHistory::slot(pos))
    }

    /// `raw` corrected by the history's slot (`raw` unchanged without a
    /// slot or where it is no evaluation); the correction never moves a
    /// value past the evaluation's limit.
    #[inline]
    fn corrected(&self, raw: i32, slot: Option<usize>) -> i32 {
        match slot {
            Some(s) if raw.abs() < EVAL_LIMIT => {
                (raw + self.correction.get(s)).clamp(-EVAL_LIMIT + 1, EVAL_LIMIT - 1)
            }
            _ => raw,
        }
    }

    /// Whether the player to move has a piece other than pawns and king
    /// (null-move pruning is unsafe without: zugzwang).
    fn has_pieces(&self) -> bool {
        let pos = self.pos.as_ref().expect("invariant: position set");
        let v = pos.variant();
        let us = pos.seat_bits(pos.to_move());
        (0..v.kinds.len())
            .filter(|&k| !v.kinds[k].royal && v.kinds[k].pawn.is_none())
            .any(|k| pos.kind_bits(k).iter().zip(us).any(|(a, b)| a & b != 0))
    }

    /// Whether the value of a child must be negated (the child's mover is
    /// on the other side).
    #[inline]
    fn flips(&self, parent_mover: Seat) -> bool {
        let pos = self.pos.as_ref().expect("invariant: position set");
        self.side[parent_mover.index()] != self.side[pos.to_move().index()]
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(m);
        head[ply].extend_from_slice(&tail[0]);
    }

    /// Searches a child with the window given in the parent's view.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn child(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        flip: bool,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        pv_node: bool,
        cut_node: bool,
        null_ok: bool,
    ) -> i32 {
        if flip {
            -self.search(
                sh, main, -beta, -alpha, depth, ply, pv_node, cut_node, null_ok,
            )
        } else {
            self.search(
                sh, main, alpha, beta, depth, ply, pv_node, cut_node, null_ok,
            )
        }
    }

    /// What every node of the tree starts with: an empty pv, the stop
    /// check, the node count, and the scores that need no search (an
    /// aborted search, a draw by rule, the ply limit). `Some(score)` ends
    /// the node there.
    #[inline(always)]
    fn enter_node(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        ply: usize,
    ) -> Option<i32> {
        self.pv[ply].clear();
        if self.check_abort(sh, main) {
            return Some(0);
        }
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.is_draw(true) {
            return Some(DRAW);
        }
        if ply >= MAX_PLY - 1 {
            return Some(self.evaluate(sh));
        }
        None
    }

    /// The principal variation search below the root.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        pv_node: bool,
        cut_node: bool,
        null_ok: bool,
    ) -> i32 {
        if depth <= 0 {
            return self.qsearch(sh, main, alpha, beta, ply, pv_node);
        }
        if let Some(v) = self.enter_node(sh, main, ply) {
            return v;
        }
        // Mate distance pruning: no line can beat a shorter mate found.
        alpha = alpha.max(mated_in(ply));
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        if let Some(v) = self.probe_tables(sh, ply) {
            return v;
        }
        // A singular test's search of this node without the table's move
        // keeps its results apart from the node's own.
        let hash = match self.excluded[ply] {
            None => self.tt_key(),
            Some(c) => self.tt_key() ^ excluded_key(c),
        };
        let mut tte = sh.tt.probe(hash);
        let tt_move = tte.and_then(|e| e.mv);
        if let Some(e) = tte
            && !pv_node
            && e.depth >= depth
            && let Some(s) = e.cutoff(ply, alpha, beta)
        {
            return s;
        }
        let in_check = self.in_check();
        // The raw value goes to the table; the search trusts the
        // corrected one.
        let raw_eval = if in_check {
            -INFINITE
        } else {
            match tte {
                Some(e) if e.eval != NO_EVAL => e.eval,
                _ => {
                    let raw = self.evaluate(sh);
                    // Kept at once with a bound that settles nothing:
                    // a node cut by the prunings below stores nothing
                    // else, and its next visit then need not evaluate.
                    if tte.is_none() && self.excluded[ply].is_none() {
                        sh.tt.store(hash, None, -2, Bound::Lower, -INFINITE, raw);
                    }
                    raw
                }
            }
        };
        let correction_slot = self.correction_slot();
        let static_eval = self.corrected(raw_eval, correction_slot);
        self.evals[ply] = static_eval;
        let improving = !in_check && ply >= 2 && static_eval > self.evals[ply - 2];
        // A table bound on the right side of the static value is a better
        // guess of the node's worth for the prunings that ask "could the
        // side to move keep this by passing" (not a mate score: those are
        // the prunings' blind spot, docs/engine.md).
        let eval = match tte {
            Some(e) if !in_check && self.correcting => {
                let s = score::from_tt(e.score, ply);
                let better = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s > static_eval,
                    Bound::Upper => s < static_eval,
                };
                if better && s.abs() < EVAL_LIMIT {
                    s
                } else {
                    static_eval
                }
            }
            _ => static_eval,
        };
        if ply + 2 < self.heuristics.killers.len() {
            self.heuristics.killers[ply + 2] = [None; 2];
        }
        let us = self.pos().to_move();

        // Both prunings below assume that the side to move could at least
        // keep its static value by passing; `null_ok` is false where that
        // assumption is being verified (zugzwang).
        let prune = !self.exhaustive;
        if prune && !pv_node && !in_check && null_ok && beta.abs() < EVAL_LIMIT {
            // Reverse futility: far above beta at low depth.
            let margin = 120 * depth - if improving { 40 } else { 0 };
            if depth <= 6 && eval - margin >= beta {
                return eval;
            }
            // Null move, unless the side to move has only pawns and king
            // (zugzwang is likely there).
            if depth >= 3 && eval >= beta && self.has_pieces() {
                let r = 3 + depth / 4 + ((eval - beta) / 200).min(3);
                self.make_prefetched(sh, Move::NULL, ply);
                let flip = self.flips(us);
                let v = self.child(
                    sh,
                    main,
                    flip,
                    beta - 1,
                    beta,
                    depth - r,
                    ply + 1,
                    false,
                    !cut_node,
                    false,
                );
                self.pos().unmake();
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    let v = if v > STALEMATE_WIN_BOUND { beta } else { v };
                    if depth < 8 {
                        return v;
                    }
                    // Deep nodes: verify without null moves, against
                    // zugzwang in disguise.
                    let w = self.search(
                        sh,
                        main,
                        beta - 1,
                        beta,
                        depth - r,
                        ply,
                        false,
                        cut_node,
                        false,
                    );
                    if self.stopped {
                        return 0;
                    }
                    if w >= beta {
                        return v;
                    }
                }
            }
        }

        // Internal iterative deepening: find a first move to try.
        let mut tt_move = tt_move;
        if pv_node && tt_move.is_none() && depth >= 6 {
            self.search(sh, main, alpha, beta, depth - 2, ply, true, false, false);
            if self.stopped {
                return 0;
            }
            tte = sh.tt.probe(hash);
            tt_move = tte.and_then(|e| e.mv);
            self.pv[ply].clear();
        }

        // (`tt_move` is the entry's move: both come from one probe.)
        let singular_move = match tte.filter(|_| prune) {
            Some(e) => match self.singular_extension(sh, main, e, beta, depth, ply, cut_node) {
                Singular::Extend => e.mv,
                Singular::Keep => None,
                Singular::Cut(v) => return v,
            },
            None => None,
        };

        let mut list = std::mem::take(&mut self.moves[ply]);
        let mut scores = std::mem::take(&mut self.scores[ply]);
        let mut quiets = std::mem::take(&mut self.quiets[ply]);
        quiets.clear();
        {
            let pos = self.pos.as_ref().expect("invariant: position set");
            self.movegen.generate(pos, &mut list);
        }
        if list.is_empty() {
            self.moves[ply] = list;
            self.scores[ply] = scores;
            self.quiets[ply] = quiets;
            return self.terminal(in_check, ply);
        }
        {
            let pos = self.pos.as_ref().expect("invariant: position set");
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
        }

        let alpha_orig = alpha;
        let mut best = -INFINITE;
        let mut best_move: Option<Move> = None;
        let mut searched = 0usize;
        let lmp_limit = ((3 + depth * depth) / if improving { 1 } else { 2 }) as usize;
        let mut next = 0;
        while next < list.len() {
            let i = next;
            next += 1;
            self.pick(sh, &mut list, &mut scores, i);
            let m = list[i];
            if self.excluded[ply].is_some_and(|c| c.matches(&m)) {
                continue;
            }
            let (capture, killer) = {
                let pos = self.pos.as_ref().expect("invariant: position set");
                (is_capture(pos, &m), self.heuristics.is_killer(ply, &m))
            };
            let quiet = !capture && m.promotion == 0;
            if prune
                && !pv_node
                && !in_check
                && quiet
                && best > -STALEMATE_WIN_BOUND
                && depth <= 4
                && searched >= lmp_limit
            {
                // Every later quiet move is pruned here too (nothing this
                // test reads changes while moves are pruned): where the
                // rest of the list is sorted, they are skipped at once.
                if i >= ordering::SELECT_FIRST {
                    next = ordering::end_of_quiets(&scores, next);
                }
                continue;
            }
            // Futility: a quiet move that gives no check, near the leaves,
            // far below alpha. Where the move certainly gives no check
            // (known before it is made, `MoveGen::gives_no_check`) it is
            // pruned unmade; otherwise it is made and the attack test
            // asked: the same moves are pruned either way. The unmade
            // pruning comes before the exchange pruning below, which
            // would only prune the same move again at the price of an
            // exchange.
            let futile = prune
                && !pv_node
                && !in_check
                && quiet
                && best > -STALEMATE_WIN_BOUND
                && depth <= 3
                && eval + 100 + 120 * depth <= alpha;
            if futile
                && self
                    .movegen
                    .gives_no_check(self.pos.as_ref().expect("invariant: position set"), &m)
            {
                continue;
            }
            // The move is likely to be made: its child's bucket is asked
            // for now (the late-move and futility prunings above drop
            // many moves for the price of a few comparisons).
            self.prefetch_child(sh, &m);
            // Exchange pruning near the leaves: a move that loses
            // material on its cell by more than the depth allows (a quiet
            // move 60 per ply, a capture 100), after the first move.
            if prune
                && !pv_node
                && !in_check
                && searched > 0
                && best > -STALEMATE_WIN_BOUND
                && depth <= 5
                && m.promotion == 0
                && !killer
            {
                let pos = self.pos.as_ref().expect("invariant: position set");
                let margin = if quiet { 60 * depth } else { 100 * depth };
                // Where even losing the mover stays within the margin, no
                // exchange can prune (`exchange::exchange_floor`): the
                // attack test and the exchange are not asked.
                let may_lose_more = exchange::exchange_floor(pos, sh.eval.values(), &m) < -margin;
                let suspect = may_lose_more
                    && if quiet {
                        self.movegen.attacked_by_checkers(pos, m.to as usize, us)
                    } else {
                        ordering::capture_loses(scores[i]) == Some(true)
                    };
                // Against a bare king material is not what decides (the
                // mating net is): no pruning there.
                if suspect
                    && !self.bare_king(|q| q != us)
                    && self
                        .movegen
                        .exchange_below(pos, sh.eval.values(), &m, -margin)
                        .is_some_and(|below| below)
                {
                    continue;
                }
            }
            // A move the pre-test clears gives no check: the child is
            // told so instead of asking the attack test (a futile move was
            // asked above and not cleared).
            self.make_noting_check(sh, m, ply, !futile);
            let gives_check = self.in_check();
            if futile && !gives_check {
                self.pos().unmake();
                continue;
            }
            let flip = self.flips(us);
            let singular = singular_move.is_some_and(|c| c.matches(&m));
            let ext = i32::from((gives_check || singular) && (ply as i32) < 2 * self.root_depth);
            let new_depth = depth - 1 + ext;
            let v = if searched == 0 {
                self.child(
                    sh,
                    main,
                    flip,
                    alpha,
                    beta,
                    new_depth,
                    ply + 1,
                    pv_node,
                    false,
                    true,
                )
            } else {
                let mut r = 0;
                if prune && depth >= 3 && quiet && !gives_check && !in_check && searched >= 2 {
                    r = self.lmr[(depth as usize).min(63)][searched.min(63)] as i32;
                    if pv_node {
                        r -= 1;
                    }
                    if killer {
                        r -= 1;
                    }
                    if cut_node {
                        r += 1;
                    }
                    if !improving {
                        r += 1;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                let mut v = self.child(
                    sh,
                    main,
                    flip,
                    alpha,
                    alpha + 1,
                    new_depth - r,
                    ply + 1,
                    false,
                    true,
                    true,
                );
                if v > alpha && r > 0 && !self.stopped {
                    v = self.child(
                        sh,
                        main,
                        flip,
                        alpha,
                        alpha + 1,
                        new_depth,
                        ply + 1,
                        false,
                        !cut_node,
                        true,
                    );
                }
                if v > alpha && v < beta && pv_node && !self.stopped {
                    v = self.child(
                        sh,
                        main,
                        flip,
                        alpha,
                        beta,
                        new_depth,
                        ply + 1,
                        true,
                        false,
                        true,
                    );
                }
                v
            };
            self.pos().unmake();
            if self.stopped {
                self.moves[ply] = list;
                self.scores[ply] = scores;
                self.quiets[ply] = quiets;
                return 0;
            }
            searched += 1;
            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(m);
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if v >= beta {
                        if quiet {
                            let bonus = (depth * depth).min(400) * 16;
                            let pos = self.pos.as_ref().expect("invariant: position set");
                            self.heuristics.add_killer(ply, m);
                            self.heuristics.update_history(pos, &m, bonus);
                            self.heuristics.update_continuation(pos, ply, &m, bonus);
                            for q in &quiets {
                                self.heuristics.update_history(pos, q, -bonus);
                                self.heuristics.update_continuation(pos, ply, q, -bonus);
                            }
                        }
                        break;
                    }
                    alpha = v;
                }
            }
            if quiet {
                quiets.push(m);
            }
        }
        self.moves[ply] = list;
        self.scores[ply] = scores;
        self.quiets[ply] = quiets;
        if searched == 0 && self.excluded[ply].is_some() {
            // The table's move was the only move: no other reaches the
            // singular test's bound.
            return alpha;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        // The value found teaches the correction history how far the raw
        // evaluation was off, where the value says something about it: not
        // in check, not after a capture or promotion (whose gain the
        // static value never had), not a bound on the wrong side of the
        // static value, not a mate.
        if let Some(slot) = correction_slot
            && !in_check
            && self.excluded[ply].is_none()
            && best.abs() < EVAL_LIMIT
            && best_move.is_none_or(|m| {
                let pos = self.pos.as_ref().expect("invariant: position set");
                !is_capture(pos, &m) && m.promotion == 0
            })
            && !(bound == Bound::Lower && best <= static_eval)
            && !(bound == Bound::Upper && best >= static_eval)
        {
            self.correction.update(slot, best - raw_eval, depth);
        }
        let eval_store = if in_check { NO_EVAL } else { raw_eval };
        sh.tt.store(
            hash,
            best_move.map(MoveCode::of),
            depth,
            bound,
            score::to_tt(best, ply),
            eval_store,
        );
        best
    }

    /// The singular test (Anantharaman, Campbell, Marsland 1990, in the
    /// cheap form of today's engines): where the table holds a lower
    /// bound `s` for its move from a search nearly as deep as this one,
    /// the node is searched at half depth without that move against
    /// `s − 2·depth`. If no other move reaches it, the table's move is
    /// the only good one and is searched a ply deeper
    /// ([`Singular::Extend`]); if another does and that bound is at or
    /// above beta, two moves beat beta and the node fails high at once
    /// (multi-cut, [`Singular::Cut`]).
    ///
    /// Not where a side has only its king left: there the mating net, not
    /// one move, decides, and the extended defences push mates the tables'
    /// test asks for past the horizon (docs/performance.md).
    #[allow(clippy::too_many_arguments)]
    fn singular_extension(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        e: TtEntry,
        beta: i32,
        depth: i32,
        ply: usize,
        cut_node: bool,
    ) -> Singular {
        let Some(code) = e.mv else {
            return Singular::Keep;
        };
        if !self.singular
            || depth < SINGULAR_DEPTH
            || self.excluded[ply].is_some()
            || e.bound == Bound::Upper
            || e.depth < depth - 3
        {
            return Singular::Keep;
        }
        let s = score::from_tt(e.score, ply);
        if s.abs() >= EVAL_LIMIT || self.bare_king(|_| true) {
            return Singular::Keep;
        }
        let bound = s - 2 * depth;
        self.excluded[ply] = Some(code);
        let v = self.search(
            sh,
            main,
            bound - 1,
            bound,
            depth / 2,
            ply,
            false,
            cut_node,
            false,
        );
        self.excluded[ply] = None;
        if self.stopped {
            Singular::Cut(0)
        } else if v < bound {
            Singular::Extend
        } else if bound >= beta {
            Singular::Cut(bound)
        } else {
            Singular::Keep
        }
    }

    /// Whether a seat that `among` picks has nothing but its king.
    fn bare_king(&self, among: impl Fn(Seat) -> bool) -> bool {
        let pos = self.pos.as_ref().expect("invariant: position set");
        pos.variant()
            .seating
            .seats()
            .any(|q| among(q) && pos.seat_bits(q).iter().map(|w| w.count_ones()).sum::<u32>() == 1)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn qchild(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        flip: bool,
        alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        if flip {
            -self.qsearch(sh, main, -beta, -alpha, ply, pv_node)
        } else {
            self.qsearch(sh, main, alpha, beta, ply, pv_node)
        }
    }

    /// Quiescence: captures and promotions until the position is quiet;
    /// every legal move when in check. Positions without legal moves are
    /// scored as mate or stalemate here too (the generator is complete).
    fn qsearch(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        if let Some(v) = self.enter_node(sh, main, ply) {
            return v;
        }
        let hash = self.tt_key();
        let tte = sh.tt.probe(hash);
        if let Some(e) = tte
            && !pv_node
            && let Some(s) = e.cutoff(ply, alpha, beta)
        {
            return s;
        }
        let in_check = self.in_check();
        // Where being without a move is a draw and nothing else (no
        // stalemate win, no multi-party leaving), a quiet position's
        // stand-pat needs no move list, and only the captures and
        // promotions it searches are generated: the cost of not telling
        // a stalemate in the horizon's last captures is the one every
        // chess engine pays for a faster quiescence.
        let rules = &self.pos().variant().rules;
        let captures_only =
            !in_check && rules.stalemate == StalemateRule::Draw && rules.party.is_none();
        let mut list = std::mem::take(&mut self.moves[ply]);
        let mut scores = std::mem::take(&mut self.scores[ply]);
        if !captures_only {
            let pos = self.pos.as_ref().expect("invariant: position set");
            self.movegen.generate(pos, &mut list);
            if list.is_empty() {
                self.moves[ply] = list;
                self.scores[ply] = scores;
                return self.terminal(in_check, ply);
            }
        }
        let alpha_orig = alpha;
        let mut best = -INFINITE;
        let mut stand_pat = -INFINITE;
        let mut raw_eval = NO_EVAL;
        if !in_check {
            raw_eval = match tte {
                Some(e) if e.eval != NO_EVAL => e.eval,
                _ => self.evaluate(sh),
            };
            let slot = self.correction_slot();
            stand_pat = self.corrected(raw_eval, slot);
            if stand_pat >= beta {
                // The stand-pat is a lower bound of this node; kept with
                // the static value, the next visit (the next iteration
                // meets most of these leaves again) need not evaluate.
                if tte.is_none() {
                    sh.tt.store(
                        hash,
                        None,
                        -1,
                        Bound::Lower,
                        score::to_tt(stand_pat, ply),
                        raw_eval,
                    );
                }
                self.moves[ply] = list;
                self.scores[ply] = scores;
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
        }
        if captures_only {
            let pos = self.pos.as_ref().expect("invariant: position set");
            self.movegen
                .generate_kind(pos, GenType::Captures, &mut list);
        }
        let tt_move = tte.and_then(|e| e.mv);
        {
            let pos = self.pos.as_ref().expect("invariant: position set");
            ordering::score_moves(
                pos,
                sh.eval,
                &self.heuristics,
                ply,
                tt_move,
                &list,
                if in_check {
                    ordering::Quiets::Ordered
                } else {
                    ordering::Quiets::Last
                },
                &mut scores,
            );
        }
        let us = self.pos().to_move();
        let mut best_move = None;
        for i in 0..list.len() {
            self.pick(sh, &mut list, &mut scores, i);
            let m = list[i];
            if !in_check {
                let pos = self.pos.as_ref().expect("invariant: position set");
                let capture = is_capture(pos, &m);
                if !capture && m.promotion == 0 {
                    continue;
                }
                if m.promotion == 0 {
                    // Delta pruning: even winning the piece cannot reach alpha.
                    let gain = victim_value(pos, sh.eval, &m);
                    if stand_pat + gain + 200 <= alpha {
                        continue;
                    }
                    self.prefetch_child(sh, &m);
                    // Losing captures (the exchange on the cell ends below
                    // zero). The ordering has looked already, unless the
                    // move came from the table or its victim is worth
                    // nothing (see `ordering::capture_loses`).
                    let loses = match ordering::capture_loses(scores[i]) {
                        Some(loses) if gain > 0 => loses,
                        _ => ordering::losing_capture(pos, sh.eval, &self.movegen, &m),
                    };
                    if loses {
                        continue;
                    }
                }
            }
            // A capture the pre-test clears gives no check: the child is
            // told so instead of asking the attack test.
            self.make_noting_check(sh, m, ply, true);
            let flip = self.flips(us);
            let v = self.qchild(sh, main, flip, alpha, beta, ply + 1, pv_node);
            self.pos().unmake();
            if self.stopped {
                self.moves[ply] = list;
                self.scores[ply] = scores;
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(m);
                    if pv_node {
                        self.update_pv(ply, m);
                    }
                    if v >= beta {
                        break;
                    }
                    alpha = v;
                }
            }
        }
        self.moves[ply] = list;
        self.scores[ply] = scores;
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        sh.tt.store(
            hash,
            best_move.map(MoveCode::of),
            if in_check { 0 } else { -1 },
            bound,
            score::to_tt(best, ply),
            if in_check { NO_EVAL } else { raw_eval },
        );
        best
    }

    /// Searches the root moves from `pv_idx` on; returns the best score.
    fn root_search(
        &mut self,
        sh: &Shared,
        main: &mut Option<&mut MainDuties>,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        pv_idx: usize,
    ) -> i32 {
        self.pv[0].clear();
        self.nodes += 1;
        let us = self.pos().to_move();
        let mut best = -INFINITE;
        for rm in &mut self.root_moves[pv_idx..] {
            rm.score = -INFINITE;
        }
        for i in pv_idx..self.root_moves.len() {
            let m = self.root_moves[i].mv;
            if let Some(md) = main.as_deref_mut()
                && md.tm.elapsed().as_millis() >= 1000
            {
                let info = SearchInfo {
                    depth: depth as u32,
                    seldepth: self.seldepth as u32,
                    multipv: pv_idx + 1,
                    score: Score::Cp(0),
                    bound: Bound::Exact,
                    nodes: 0,
                    nps: 0,
                    hashfull: 0,
                    tbhits: 0,
                    time: sh.start.elapsed(),
                    pv: Vec::new(),
                    currmove: Some((m, i + 1)),
                };
                (md.on_info)(&info);
            }
            self.seldepth = 0;
            self.make_in_context(m, 1);
            let gives_check = self.in_check();
            let flip = self.flips(us);
            let new_depth = depth - 1 + i32::from(gives_check);
            let v = if i == pv_idx {
                self.child(sh, main, flip, alpha, beta, new_depth, 1, true, false, true)
            } else {
                let mut v = self.child(
                    sh,
                    main,
                    flip,
                    alpha,
                    alpha + 1,
                    new_depth,
                    1,
                    false,
                    true,
                    true,
                );
                if v > alpha && v < beta && !self.stopped {
                    v = self.child(sh, main, flip, alpha, beta, new_depth, 1, true, false, true);
                }
                v
            };
            self.pos().unmake();
            if self.stopped {
                break;
            }
            let rm = &mut self.root_moves[i];
            if i == pv_idx || v > alpha {
                rm.score = v;
                rm.seldepth = self.seldepth;
                rm.pv.clear();
                rm.pv.push(m);
                rm.pv.extend_from_slice(&self.pv[1]);
                rm.bound = if v >= beta {
                    Bound::Lower
                } else if v <= alpha {
                    Bound::Upper
                } else {
                    Bound::Exact
                };
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        // Stable: unsearched moves (-INFINITE) keep their order.
        self.root_moves[pv_idx..].sort_by_key(|r| std::cmp::Reverse(r.score));
        best
    }

    fn report(&self, sh: &Shared, main: &mut MainDuties, depth: u32, pv_idx: usize) {
        let rm = &self.root_moves[pv_idx];
        let (mut score, mut bound) = if rm.score == -INFINITE {
            (rm.prev_score, Bound::Exact)
        } else {
            (rm.score, rm.bound)
        };
        if self.hunt && score <= MATE_BOUND {
            // No mate found yet: the banked stalemate win is the value.
            score = self.banked;
            bound = Bound::Exact;
        }
        let nodes = self.total_nodes(sh);
        let time = sh.start.elapsed();
        let info = SearchInfo {
            depth,
            seldepth: rm.seldepth.max(depth as usize) as u32,
            multipv: pv_idx + 1,
            score: Score::from_internal(score.clamp(-MATE, MATE)),
            bound,
            nodes,
            nps: (nodes as f64 / time.as_secs_f64().max(1e-6)) as u64,
            hashfull: sh.tt.hashfull(),
            tbhits: sh.tablebase_hits.load(Ordering::Relaxed),
            time,
            pv: legal_prefix(self.pos.as_ref().expect("invariant: position set"), &rm.pv),
            currmove: None,
        };
        (main.on_info)(&info);
    }

    /// Depths a helper thread skips, so that helpers run ahead of the main
    /// thread at staggered depths.
    fn skips(&self, depth: u32) -> bool {
        if self.id == 0 {
            return false;
        }
        const SIZE: [u32; 8] = [1, 1, 2, 2, 2, 2, 3, 3];
        const PHASE: [u32; 8] = [0, 1, 0, 1, 2, 3, 0, 1];
        let i = (self.id - 1) % 8;
        !((depth + PHASE[i]) / SIZE[i]).is_multiple_of(2)
    }

    /// Whether the last iteration found a stalemate win (not a mate) for
    /// the root side, so that a mate hunt should follow.
    pub fn wants_hunt(&self) -> bool {
        let score = self.root_moves.first().map_or(-INFINITE, |r| r.prev_score);
        self.hunt_allowed
            && !self.hunt
            && !self.stopped
            && self.completed_depth > 0
            && score > STALEMATE_WIN_BOUND
            && score <= MATE_BOUND
    }

    /// The mate hunt, after a stalemate win was found: the ¾ point is
    /// banked, and the search now plays for mate, among the root moves that
    /// keep a forced stalemate win (each checked by a null-window search at
    /// the last completed depth), with delivering a stalemate counted as a
    /// draw, so that the choice falls to mates and then to the evaluation
    /// (the defending king's confinement). Returns whether the hunt's move
    /// replaced the stalemate-win move.
    pub fn hunt(&mut self, sh: &Shared, mut main: Option<&mut MainDuties>, max_depth: u32) -> bool {
        let depth = self.completed_depth as i32;
        let best = self.root_moves[0].clone();
        let mut safe = vec![best.mv];
        let candidates: Vec<Move> = self.root_moves[1..].iter().map(|r| r.mv).collect();
        for m in candidates {
            if self.keeps(sh, &mut main, m, STALEMATE_WIN_BOUND, depth) {
                safe.push(m);
            }
            if self.stopped {
                return false;
            }
        }
        if safe.len() == 1 {
            return false;
        }
        let saved = std::mem::replace(
            &mut self.root_moves,
            safe.iter()
                .map(|&mv| RootMove {
                    mv,
                    score: -INFINITE,
                    prev_score: -INFINITE,
                    pv: vec![mv],
                    seldepth: 0,
                    bound: Bound::Upper,
                })
                .collect(),
        );
        let saved_depth = self.completed_depth;
        self.banked = best.prev_score;
        self.hunt = true;
        self.completed_depth = 0;
        if let Some(md) = main.as_deref_mut() {
            md.last_best = None;
            md.best_changes = 0.0;
        }
        self.iterate(sh, main, max_depth);
        self.hunt = false;
        if self.completed_depth == 0 {
            self.root_moves = saved;
            self.completed_depth = saved_depth;
            return false;
        }
        let top = &mut self.root_moves[0];
        if top.prev_score <= MATE_BOUND {
            top.prev_score = self.banked;
            top.pv.truncate(1);
        }
        true
    }

    /// Iterative deepening until a limit or a stop.
    pub fn iterate(&mut self, sh: &Shared, mut main: Option<&mut MainDuties>, max_depth: u32) {
        let multipv = sh.limits.multipv.clamp(1, self.root_moves.len().max(1));
        for depth in 1..=max_depth {
            if self.skips(depth) && depth > 1 {
                continue;
            }
            self.root_depth = depth as i32;
            for pv_idx in 0..multipv {
                let prev = self.root_moves[pv_idx].prev_score;
                let mut delta = 25 + prev.abs() / 32;
                let (mut alpha, mut beta) = if depth >= 4 && prev.abs() < EVAL_LIMIT {
                    ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
                } else {
                    (-INFINITE, INFINITE)
                };
                loop {
                    let v = self.root_search(sh, &mut main, depth as i32, alpha, beta, pv_idx);
                    if self.stopped {
                        break;
                    }
                    if v <= alpha {
                        beta = (alpha + beta) / 2;
                        alpha = (v - delta).max(-INFINITE);
                    } else if v >= beta {
                        beta = (v + delta).min(INFINITE);
                    } else {
                        break;
                    }
                    if let Some(md) = main.as_deref_mut()
                        && sh.start.elapsed().as_millis() >= 1000
                    {
                        self.report(sh, md, depth, pv_idx);
                    }
                    delta += delta / 2;
                    if delta > 4 * EVAL_LIMIT {
                        alpha = -INFINITE;
                        beta = INFINITE;
                    }
                }
                // Keep the lines found so far in order.
                self.root_moves[..=pv_idx].sort_by_key(|r| std::cmp::Reverse(r.score));
                if self.stopped {
                    break;
                }
            }
            if self.stopped {
                // An interrupted iteration still counts if its first line
                // was completed with a new best move (it has a real score).
                if self.root_moves[0].score != -INFINITE {
                    self.root_moves[0].prev_score = self.root_moves[0].score;
                }
                break;
            }
            for rm in &mut self.root_moves {
                rm.prev_score = rm.score;
            }
            self.completed_depth = depth;
            let Some(md) = main.as_deref_mut() else {
                continue;
            };
            for pv_idx in 0..multipv {
                self.report(sh, md, depth, pv_idx);
            }
            let best = self.root_moves[0].mv;
            if md.last_best != Some(best) {
                md.best_changes += 1.0;
                md.last_best = Some(best);
            }
            md.best_changes *= 0.5;
            // Limits checked between iterations.
            let score = self.root_moves[0].score;
            // A mate search ends at a mate in at most N, or after depth
            // 2N−1 without one: exhaustive to there, it has proved that
            // there is none.
            if let Some(n) = sh.limits.mate
                && ((score > MATE_BOUND && (MATE - score + 1) / 2 <= n as i32)
                    || depth as i64 >= 2 * i64::from(n) - 1)
            {
                break;
            }
            if !md.pondering && !md.tm.may_continue(1.0 + md.best_changes) {
                break;
            }
            if self.wants_hunt() && depth >= HUNT_MIN_DEPTH {
                // Deep enough to tell which moves keep the stalemate win:
                // leave the rest of the time to the mate hunt.
                break;
            }
            if sh.control.stopped() || sh.abort.load(Ordering::Relaxed) {
                break;
            }
        }
        sh.nodes[self.id].store(self.nodes, Ordering::Relaxed);
    }
}
