//! The search of simultaneous turns (synchronous chess, seed 004).
//!
//! Every node is a matrix game: the rows are White's choices, the columns
//! Black's (moves in the main phase; captures on contested cells or a pass
//! in the exchange phase), the entries the values of the positions after
//! each joint decision, searched one turn shallower (exchange steps are
//! searched to their end without using depth: they are short and narrow,
//! the synchronous game's quiescence). The value of a node is the value of
//! its matrix game, a mixed strategy for each side, found by the double
//! oracle (McMahan, Gordon, Blum 2003; in search, Bošanský et al. 2016):
//!
//! 1. start from one row and one column (the table's or the ordering's
//!    best guess) and solve the restricted game exactly by linear
//!    programming ([`super::matrix_game`]);
//! 2. look for a row that does better than the game value against the
//!    column player's strategy, and a column that does better against the
//!    row player's; add them and repeat; without any, the restricted
//!    game's equilibrium is one of the whole game.
//!
//! When the opposing strategy is pure, "does better than v" is asked with
//! a window `(v, +∞)` (or `(−∞, v)`), so most children of a node whose
//! equilibrium is pure — the common case in chess — are refuted by
//! null-window-like searches, as in alpha-beta. The bounds are sound: once
//! no row improves on `v` against `y`, every row gives at most `v` against
//! `y` and the node's value is at most `v` (and symmetrically at least `v`
//! when no column improves), so a node searched with a window returns as
//! soon as its value is known to lie outside it.
//!
//! Scores are centipawns from the first seat's (White's) point of view;
//! a won game is worth [`WIN`] less the turns it takes.
//!
//! For comparison ([`Strategy::FirstMover`], [`Strategy::SecondMover`]) the
//! same search can treat the turn as sequential: it plays the pure
//! maximin move (as if it moved first and the opponent saw its move), or
//! best-responds to the opponent's maximin move (as if it moved second) —
//! the ways a sequential engine would play the game.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::board::seating::{Phase, Seat};
use crate::eval::{EvalScratch, Evaluator};
use crate::rules::moves::{Decision, JointDecision};
use crate::rules::position::Position;

use super::control::SearchControl;
use super::matrix_game::{self, GameSolution};
use super::ordering::Heuristics;

/// The value of a won game (less one per turn to it).
pub const WIN: f64 = 100_000.0;

/// A simultaneous search's value (centipawns for the seat it is given
/// for) as a [`Score`](super::score::Score): a won or lost game as a mate in the turns to it.
pub fn score_of(value: f64) -> super::score::Score {
    use super::score::Score;
    if value.abs() >= WIN - 1000.0 {
        let turns = (WIN - value.abs()).round().max(0.0) as i32;
        if value > 0.0 {
            Score::Mate(turns.max(1))
        } else {
            Score::Mate(-turns)
        }
    } else {
        Score::Cp(value.round() as i32)
    }
}

/// Values closer than this are equal (centipawns).
const EPS: f64 = 0.5;

/// The table's size when nobody sets one (`Hash`'s default).
const DEFAULT_TABLE_MB: usize = 16;

/// How the engine chooses its decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Strategy {
    /// The equilibrium mixed strategy of the simultaneous game (sampled).
    #[default]
    Equilibrium,
    /// The sequential view as if the engine moved first: its pure maximin
    /// decision at every node of its own.
    FirstMover,
    /// The sequential view as if the engine moved second: the best
    /// response to the opponent's pure maximin decision.
    SecondMover,
}

/// Limits of one simultaneous search.
#[derive(Clone, Debug, Default)]
pub struct SimLimits {
    /// Deepest iteration (turns).
    pub depth: Option<u32>,
    /// Node budget (positions visited).
    pub nodes: Option<u64>,
    /// Time budget.
    pub time: Option<Duration>,
}

/// One decision of a seat with its equilibrium probability and its value
/// against the opponent's strategy (White's view).
#[derive(Clone, Debug, PartialEq)]
pub struct WeightedDecision {
    /// The decision.
    pub decision: Decision,
    /// Its probability in the seat's strategy.
    pub probability: f64,
}

/// What a simultaneous search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SimResult {
    /// The value of the root from White's point of view (centipawns).
    pub value: f64,
    /// Per seat in play: its strategy at the root (support only, most
    /// probable first).
    pub strategies: Vec<(Seat, Vec<WeightedDecision>)>,
    /// The last finished iteration.
    pub depth: u32,
    /// Positions visited.
    pub nodes: u64,
    /// Time used.
    pub time: Duration,
}

impl SimResult {
    /// The strategy of `seat`, if it decides.
    pub fn strategy(&self, seat: Seat) -> Option<&[WeightedDecision]> {
        self.strategies
            .iter()
            .find(|(s, _)| *s == seat)
            .map(|(_, d)| d.as_slice())
    }
}

/// A progress report after each finished iteration.
#[derive(Clone, Debug)]
pub struct SimInfo {
    /// Iteration depth (turns).
    pub depth: u32,
    /// Value from White's point of view.
    pub value: f64,
    /// Positions visited so far.
    pub nodes: u64,
    /// Time since the start.
    pub time: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BoundKind {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Debug)]
struct Entry {
    depth: u32,
    value: f64,
    bound: BoundKind,
    /// Where the next search of the node starts.
    seed: Seed,
}

/// How many decisions per seat a table entry keeps to seed the next
/// search of its node.
const SEED: usize = 8;

/// The decisions of each seat in the support of a node's last solution,
/// most probable first, as indices into the node's decisions in the
/// order the move generator lists them (two bytes each, so that an entry
/// stays small). The double oracle starts the next search of the node (a
/// deeper iteration, or the same child asked again with another window)
/// from them instead of rediscovering them one best response at a time.
#[derive(Clone, Debug, Default)]
struct Seed {
    rows: ArrayVec<u16, SEED>,
    cols: ArrayVec<u16, SEED>,
}

impl Seed {
    /// The seed of a solution: the support (under `p`) of the restricted
    /// lines `idx`, most probable first, by generation index (`ids`).
    fn of(ids: &[u16], idx: &[usize], p: &[f64]) -> ArrayVec<u16, SEED> {
        let mut lines = support_of(idx, p);
        lines.sort_by(|a, b| p[*b].total_cmp(&p[*a]));
        lines.iter().take(SEED).map(|&i| ids[i]).collect()
    }
}

/// Probabilities above this put a line in a strategy's support (what the
/// LP leaves at 0 comes back as rounding noise of this order).
const SUPPORT_EPS: f64 = 1e-9;

/// Whether a line of probability `p` is in its strategy's support.
fn in_support(p: f64) -> bool {
    p > SUPPORT_EPS
}

/// The lines of `idx` in the support of the strategy `p` (indexed like
/// the node's lines), in the order of `idx`.
fn support_of(idx: &[usize], p: &[f64]) -> Vec<usize> {
    idx.iter().copied().filter(|&i| in_support(p[i])).collect()
}

/// The pure strategies of a serialized node's solution: row `i` and
/// column `j` with probability one.
fn pure_pair(node: &Node, i: usize, j: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut x, mut y) = (vec![0.0; node.rows.len()], vec![0.0; node.cols.len()]);
    x[i] = 1.0;
    y[j] = 1.0;
    (x, y)
}

/// One slot of the table: the key, the entry and the search (by number)
/// that stored it.
type Slot = Option<(u64, Entry, u32)>;

/// The table, shared by the threads of a search (sharded so that threads
/// rarely wait for each other): a fixed number of slots, so that its
/// memory is what `Hash` says; a slot keeps the deeper of two entries
/// unless its entry is from an earlier search.
#[derive(Debug)]
struct SharedTable {
    shards: Vec<Mutex<Vec<Slot>>>,
    /// Slots per shard.
    per_shard: std::sync::atomic::AtomicUsize,
    /// The number of the current search (entries of earlier ones are
    /// replaced first).
    generation: std::sync::atomic::AtomicU32,
}

/// Shards of the shared table.
const SHARDS: usize = 64;

impl SharedTable {
    fn new() -> SharedTable {
        let table = SharedTable {
            shards: (0..SHARDS).map(|_| Mutex::new(Vec::new())).collect(),
            per_shard: std::sync::atomic::AtomicUsize::new(0),
            generation: std::sync::atomic::AtomicU32::new(0),
        };
        table.set_mb(DEFAULT_TABLE_MB);
        table
    }

    /// Sizes the table to about `mb` megabytes (at least one slot per
    /// shard); a new size empties it.
    fn set_mb(&self, mb: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        let slots = mb.saturating_mul(1 << 20) / std::mem::size_of::<Slot>();
        let per_shard = (slots / SHARDS).max(1);
        if self.per_shard.swap(per_shard, Relaxed) != per_shard {
            for shard in &self.shards {
                *shard.lock().unwrap_or_else(|p| p.into_inner()) = vec![None; per_shard];
            }
        }
    }

    /// A new search: entries stored from now on replace older ones.
    fn new_search(&self) {
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// The shard of `key` and the slot's index in it.
    fn shard(&self, key: u64) -> (std::sync::MutexGuard<'_, Vec<Slot>>, usize) {
        // A thread that panicked while holding a shard left usable slots.
        let shard = self.shards[(key >> 58) as usize % SHARDS]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let at = (key % shard.len().max(1) as u64) as usize;
        (shard, at)
    }

    fn get(&self, key: u64) -> Option<Entry> {
        let (shard, at) = self.shard(key);
        match shard.get(at) {
            Some(Some((k, e, _))) if *k == key => Some(e.clone()),
            _ => None,
        }
    }

    fn insert(&self, key: u64, e: Entry) {
        let generation = self.generation.load(std::sync::atomic::Ordering::Relaxed);
        let (mut shard, at) = self.shard(key);
        let Some(slot) = shard.get_mut(at) else {
            return;
        };
        let replace = match slot {
            None => true,
            Some((k, old, g)) => *k == key || *g != generation || e.depth >= old.depth,
        };
        if replace {
            *slot = Some((key, e, generation));
        }
    }

    fn clear(&self) {
        for s in &self.shards {
            s.lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter_mut()
                .for_each(|slot| *slot = None);
        }
    }

    fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| {
                s.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .iter()
                    .filter(|slot| slot.is_some())
                    .count()
            })
            .sum()
    }
}

/// Why a search stopped early.
#[derive(Debug)]
struct Abort;

/// The simultaneous-move searcher (one per engine; its table persists
/// between searches of one game).
pub struct SimSearcher {
    eval: std::sync::Arc<Evaluator>,
    scratch: EvalScratch,
    table: Arc<SharedTable>,
    /// Search threads (the main one and helpers sharing the table: Lazy
    /// SMP, as in the sequential search).
    threads: usize,
    nodes: u64,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    /// Whether a stop may end the iteration (not the first: the engine
    /// must answer).
    interruptible: bool,
    rng: SmallRng,
    /// The root's restricted lines of the last iteration (the next one
    /// starts from them).
    root_seed: (Vec<usize>, Vec<usize>),
    /// How the searching seat plays.
    strategy: Strategy,
    /// The seat the sequential strategies play for.
    me: Seat,
    /// Killer moves and history of the current search: each seat's
    /// decision that led a solved node's strategy is a killer of its turn
    /// (killer slot `2 * ply + k`, k = 0 for the rows' seat, 1 for the
    /// columns') and earns history. A reply that was best in one position
    /// is often best in its siblings, so the double oracle and the
    /// serialized search try it first (a third fewer nodes at depth 2).
    heuristics: Heuristics,
}

/// Killer slots of the simultaneous search: two seats per turn, turns up
/// to the deepest iteration.
const KILLER_SLOTS: usize = 2 * (MAX_DEPTH as usize + 1);

/// The deepest iteration (turns).
const MAX_DEPTH: u32 = 64;

impl std::fmt::Debug for SimSearcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimSearcher")
            .field("entries", &self.table.len())
            .field("strategy", &self.strategy)
            .finish()
    }
}

/// The rows and columns of a node: each deciding seat's choices.
struct Node {
    rows: Vec<Decision>,
    cols: Vec<Decision>,
    /// Each row's index in the order the move generator listed the rows
    /// (the table's seeds refer to it; the search reorders the rows).
    row_ids: Vec<u16>,
    /// The same for the columns.
    col_ids: Vec<u16>,
    white: Seat,
    black: Seat,
}

impl SimSearcher {
    /// A searcher with the evaluation `eval`, its random choices seeded by
    /// `seed` (reproducible games).
    pub fn new(eval: std::sync::Arc<Evaluator>, seed: u64) -> SimSearcher {
        SimSearcher {
            eval,
            scratch: EvalScratch::default(),
            table: Arc::new(SharedTable::new()),
            threads: 1,
            nodes: 0,
            deadline: None,
            node_limit: None,
            interruptible: false,
            rng: SmallRng::seed_from_u64(seed),
            root_seed: (vec![0], vec![0]),
            strategy: Strategy::Equilibrium,
            me: Seat::FIRST,
            heuristics: Heuristics::default(),
        }
    }

    /// Chooses how the engine plays when it plays `me` (the sequential
    /// strategies are the comparison matches' opponents).
    pub fn set_strategy(&mut self, strategy: Strategy, me: Seat) {
        if (strategy, me) != (self.strategy, self.me) {
            self.table.clear();
        }
        self.strategy = strategy;
        self.me = me;
    }

    /// Under a sequential strategy: whether White is the seat that moves
    /// first in the serialized turn (`None`: the simultaneous game).
    fn serial_outer(&self) -> Option<bool> {
        let me_white = self.me == Seat::FIRST;
        match self.strategy {
            Strategy::Equilibrium => None,
            Strategy::FirstMover => Some(me_white),
            Strategy::SecondMover => Some(!me_white),
        }
    }

    /// The serialized turn by alpha-beta: the outer seat chooses first,
    /// the inner one answers seeing it. Returns the value and the outer
    /// choice with the inner seat's answer to it.
    #[allow(clippy::too_many_arguments)]
    fn serial(
        &mut self,
        pos: &mut Position,
        node: &Node,
        depth: u32,
        ply: u32,
        alpha: f64,
        beta: f64,
        white_outer: bool,
        control: &SearchControl,
    ) -> Result<(f64, usize, usize), Abort> {
        // Work in the outer seat's sign: it maximises s * value.
        let s = if white_outer { 1.0 } else { -1.0 };
        let (lo, hi) = if white_outer {
            (alpha, beta)
        } else {
            (-beta, -alpha)
        };
        let (outer_n, inner_n) = if white_outer {
            (node.rows.len(), node.cols.len())
        } else {
            (node.cols.len(), node.rows.len())
        };
        let mut best = f64::NEG_INFINITY;
        let mut choice = (0, 0);
        for o in 0..outer_n {
            let floor = best.max(lo);
            let mut inner = f64::INFINITY;
            let mut answer = 0;
            for k in 0..inner_n {
                let (i, j) = if white_outer { (o, k) } else { (k, o) };
                let (a, b) = (floor, inner.min(hi));
                let (ca, cb) = if white_outer { (a, b) } else { (-b, -a) };
                let v = s * self.child_at(pos, node, i, j, depth, ply, ca, cb, control)?;
                if v < inner {
                    inner = v;
                    answer = k;
                }
                if inner <= floor {
                    break;
                }
            }
            if inner > best {
                best = inner;
                choice = if white_outer {
                    (o, answer)
                } else {
                    (answer, o)
                };
            }
            if best >= hi {
                break;
            }
        }
        Ok((s * best, choice.0, choice.1))
    }

    /// Bounds the table to about `mb` megabytes (the `Hash` option).
    pub fn set_hash_mb(&mut self, mb: usize) {
        self.table.set_mb(mb);
    }

    /// Sets the number of search threads (at least 1).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// A helper thread's searcher: the same evaluation, strategy and
    /// table, its own scratch, counters and random stream.
    fn helper(&self, id: usize) -> SimSearcher {
        SimSearcher {
            eval: self.eval.clone(),
            scratch: EvalScratch::default(),
            table: self.table.clone(),
            threads: 1,
            nodes: 0,
            deadline: None,
            node_limit: None,
            interruptible: true,
            rng: SmallRng::seed_from_u64(0x4e1_9e3 ^ id as u64),
            root_seed: (vec![0], vec![0]),
            strategy: self.strategy,
            me: self.me,
            heuristics: Heuristics::default(),
        }
    }

    /// A helper's work: iterative deepening of `pos` (odd helpers one
    /// turn deeper, so the threads spread over depths), filling the shared
    /// table until `control` stops it. Returns its node count.
    fn help(&mut self, pos: &Position, id: usize, control: &SearchControl) -> u64 {
        let Some(node) = node_of(pos) else {
            return 0;
        };
        let mut p = pos.clone();
        let mut depth = 1 + (id % 2) as u32;
        self.fresh_heuristics(pos);
        while !control.stopped() && depth <= MAX_DEPTH {
            if self.root(&mut p, &node, depth, control).is_err() {
                break;
            }
            depth += 1;
        }
        self.nodes
    }

    /// Empty killer and history tables for a search of `pos`'s variant.
    fn fresh_heuristics(&mut self, pos: &Position) {
        let v = pos.variant();
        let cells = v.geometry.cell_count();
        self.heuristics = Heuristics::new(v.seat_count(), v.kinds.len(), cells, KILLER_SLOTS);
    }

    /// Reseeds the random choices.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }

    /// Forgets the table (a new game).
    pub fn clear(&mut self) {
        self.table.clear();
    }

    /// Searches a simultaneous position by iterative deepening within
    /// `limits` (at least depth 1 is finished), reporting each iteration.
    /// Returns `None` when the position is not a simultaneous turn or the
    /// game is over.
    pub fn search(
        &mut self,
        pos: &Position,
        limits: &SimLimits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&SimInfo),
    ) -> Option<SimResult> {
        if self.threads <= 1 {
            return self.search_main(pos, limits, control, on_info);
        }
        // Lazy SMP: helpers search the same position into the shared
        // table until the main thread has its answer.
        let helpers_stop = SearchControl::new();
        let mut helpers: Vec<SimSearcher> = (1..self.threads).map(|id| self.helper(id)).collect();
        std::thread::scope(|s| {
            let handles: Vec<_> = helpers
                .iter_mut()
                .enumerate()
                .map(|(k, h)| {
                    let stop = &helpers_stop;
                    s.spawn(move || h.help(pos, k + 1, stop))
                })
                .collect();
            let mut result = self.search_main(pos, limits, control, on_info);
            helpers_stop.stop();
            let extra: u64 = handles.into_iter().map(|h| h.join().unwrap_or(0)).sum();
            if let Some(r) = &mut result {
                r.nodes += extra;
            }
            result
        })
    }

    /// The main thread's iterative deepening.
    fn search_main(
        &mut self,
        pos: &Position,
        limits: &SimLimits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&SimInfo),
    ) -> Option<SimResult> {
        let start = Instant::now();
        let node = node_of(pos)?;
        if pos.outcome().is_some() {
            return None;
        }
        self.nodes = 0;
        self.root_seed = (vec![0], vec![0]);
        self.fresh_heuristics(pos);
        self.table.new_search();
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        let mut best: Option<SimResult> = None;
        let mut p = pos.clone();
        // Totals (seconds, nodes) after the iteration before the last.
        let (mut last_time, mut last_nodes): (Option<f64>, Option<f64>) = (None, None);
        for depth in 1..=max_depth {
            // Depth 1 always finishes: the engine must answer.
            let bounded = depth > 1;
            self.deadline = if bounded {
                limits.time.map(|t| start + t)
            } else {
                None
            };
            self.node_limit = if bounded { limits.nodes } else { None };
            self.interruptible = bounded;
            let solved = self.root(&mut p, &node, depth, control);
            let Ok((value, x, y)) = solved else {
                break;
            };
            let mut strategies = Vec::new();
            for (seat, decisions, probs) in
                [(node.white, &node.rows, &x), (node.black, &node.cols, &y)]
            {
                if !pos.turn().movers().contains(seat) {
                    continue;
                }
                let mut support: Vec<WeightedDecision> = decisions
                    .iter()
                    .zip(probs.iter())
                    .filter(|(_, p)| in_support(**p))
                    .map(|(&d, &p)| WeightedDecision {
                        decision: d,
                        probability: p,
                    })
                    .collect();
                support.sort_by(|a, b| b.probability.total_cmp(&a.probability));
                strategies.push((seat, support));
            }
            let result = SimResult {
                value,
                strategies,
                depth,
                nodes: self.nodes,
                time: start.elapsed(),
            };
            on_info(&SimInfo {
                depth,
                value,
                nodes: self.nodes,
                time: start.elapsed(),
            });
            best = Some(result);
            if value.abs() >= WIN - 1000.0 {
                break;
            }
            // An unfinished iteration is thrown away, so one that would
            // not finish is not started: each costs many times the one
            // before (from the start, depth 2 about 20 times depth 1, and
            // depth 3 about 1,000 times depth 2). The next one is expected
            // to grow the total by the factor the last one did (at least
            // 3 in time, 4 in nodes; those alone after the first).
            let growth = |now: f64, before: Option<f64>, least: f64| {
                before
                    .filter(|&b| b > 0.0)
                    .map_or(least, |b| (now / b).max(least))
            };
            if let Some(t) = limits.time {
                let now = start.elapsed().as_secs_f64();
                if now * growth(now, last_time, 3.0) > t.as_secs_f64() {
                    break;
                }
                last_time = Some(now);
            }
            if let Some(n) = limits.nodes {
                let now = self.nodes as f64;
                if now * growth(now, last_nodes, 4.0) > n as f64 {
                    break;
                }
                last_nodes = Some(now);
            }
        }
        best
    }

    /// The value (White's view) of the position after White decides
    /// `white` and Black `black` at `pos`, searched as a `depth`-turn
    /// search of `pos` searches that entry of its matrix: one turn
    /// shallower after a main-phase turn, exchange steps to their end,
    /// every node solved by this searcher's strategy, no limits. With
    /// an equilibrium's strategies this says what a seat's decision
    /// earns against the other seat's strategy, so what a pure decision
    /// gives away against the equilibrium (examples/synchronous_gap.rs).
    /// `None` when `pos` is not a two-seat simultaneous turn or a
    /// decision is not its seat's own choice there.
    pub fn joint_value(
        &mut self,
        pos: &Position,
        white: Decision,
        black: Decision,
        depth: u32,
    ) -> Option<f64> {
        let node = node_of(pos)?;
        let i = node.rows.iter().position(|&d| d == white)?;
        let j = node.cols.iter().position(|&d| d == black)?;
        self.fresh_heuristics(pos);
        self.deadline = None;
        self.node_limit = None;
        self.interruptible = false;
        let mut p = pos.clone();
        let control = SearchControl::new();
        self.child_at(
            &mut p,
            &node,
            i,
            j,
            depth,
            0,
            f64::NEG_INFINITY,
            f64::INFINITY,
            &control,
        )
        .ok()
    }

    /// Samples `seat`'s decision from its strategy in `result` (the
    /// equilibrium strategy; a pure one under the sequential strategies).
    pub fn choose(&mut self, result: &SimResult, seat: Seat) -> Option<Decision> {
        let support = result.strategy(seat)?;
        let total: f64 = support.iter().map(|d| d.probability).sum();
        let mut r = self.rng.random::<f64>() * total;
        for d in support {
            if r < d.probability {
                return Some(d.decision);
            }
            r -= d.probability;
        }
        support.last().map(|d| d.decision)
    }

    /// The root: the double oracle with a full window, whose strategies
    /// are equilibrium strategies of the whole game; under a sequential
    /// strategy the serialized turn instead, the engine's seat getting its
    /// pure choice (maximin as first mover, the best answer to the other's
    /// maximin as second mover).
    #[allow(clippy::type_complexity)]
    fn root(
        &mut self,
        pos: &mut Position,
        node: &Node,
        depth: u32,
        control: &SearchControl,
    ) -> Result<(f64, Vec<f64>, Vec<f64>), Abort> {
        self.nodes += 1;
        match self.serial_outer() {
            // The double oracle's final strategies are equilibrium
            // strategies of the whole game.
            None => {
                // Each iteration starts from the lines the last one needed.
                let (rows, cols) = self.root_seed.clone();
                let (v, x, y, rows, cols) = self.solve_node_at(
                    pos,
                    node,
                    rows,
                    cols,
                    depth,
                    0,
                    f64::NEG_INFINITY,
                    f64::INFINITY,
                    control,
                )?;
                self.root_seed = (support_of(&rows, &x), support_of(&cols, &y));
                Ok((v, x, y))
            }
            Some(white_outer) => {
                let (v, i, j) = self.serial(
                    pos,
                    node,
                    depth,
                    0,
                    f64::NEG_INFINITY,
                    f64::INFINITY,
                    white_outer,
                    control,
                )?;
                let (x, y) = pure_pair(node, i, j);
                Ok((v, x, y))
            }
        }
    }

    fn check_limits(&self, control: &SearchControl) -> Result<(), Abort> {
        if !self.interruptible {
            return Ok(());
        }
        if self.nodes & 255 == 0 {
            if control.stopped() {
                return Err(Abort);
            }
            if let Some(d) = self.deadline
                && Instant::now() >= d
            {
                return Err(Abort);
            }
        }
        if let Some(n) = self.node_limit
            && self.nodes >= n
        {
            return Err(Abort);
        }
        Ok(())
    }

    /// The value of `pos` (White's view) searched `depth` turns deep, with
    /// the window `(alpha, beta)`: outside it the result is a bound on the
    /// side of the window it fell.
    fn value(
        &mut self,
        pos: &mut Position,
        depth: u32,
        ply: u32,
        alpha: f64,
        beta: f64,
        control: &SearchControl,
    ) -> Result<f64, Abort> {
        self.nodes += 1;
        self.check_limits(control)?;
        let terminal = |o: crate::rules::outcome::Outcome| {
            let white = o.points[Seat::FIRST].value();
            // A win sooner is better; a loss later is less bad.
            let v = (white - 0.5) * 2.0 * (WIN - ply as f64);
            if o.is_draw() { 0.0 } else { v }
        };
        if depth == 0 && pos.phase() == Phase::Main {
            // A leaf: mate is looked for where a king is attacked; a
            // stalemate at a leaf is left to the evaluation (as the
            // sequential search's quiescence does).
            let v = pos.variant();
            let checked = v.seating.all().iter().any(|s| pos.seat_in_check(s));
            let end = if checked || !pos.out().is_empty() {
                pos.outcome()
            } else {
                pos.rule_draw()
            };
            return Ok(match end {
                Some(o) => terminal(o),
                None => self.static_value(pos),
            });
        }
        let Some(mut node) = node_of(pos) else {
            // Elimination, or a seat without a move: the game is over.
            return Ok(match pos.outcome() {
                Some(o) => terminal(o),
                None => self.static_value(pos),
            });
        };
        if let Some(o) = pos.rule_draw() {
            return Ok(terminal(o));
        }
        let key = pos.hash();
        let mut hint: Option<Seed> = None;
        if let Some(e) = self.table.get(key) {
            hint = Some(e.seed.clone());
            if e.depth >= depth {
                match e.bound {
                    BoundKind::Exact => return Ok(e.value),
                    BoundKind::Lower if e.value >= beta => return Ok(e.value),
                    BoundKind::Upper if e.value <= alpha => return Ok(e.value),
                    _ => {}
                }
            }
        }
        let (seed_rows, seed_cols) = order(pos, &mut node, hint.as_ref(), &self.heuristics, ply);
        let (value, x, y, rows, cols) = match self.serial_outer() {
            None => self.solve_node_at(
                pos,
                &node,
                (0..seed_rows.max(1)).collect(),
                (0..seed_cols.max(1)).collect(),
                depth,
                ply,
                alpha,
                beta,
                control,
            )?,
            Some(white_outer) => {
                let (v, i, j) =
                    self.serial(pos, &node, depth, ply, alpha, beta, white_outer, control)?;
                let (x, y) = pure_pair(&node, i, j);
                (v, x, y, vec![i], vec![j])
            }
        };
        let bound = if value <= alpha {
            BoundKind::Upper
        } else if value >= beta {
            BoundKind::Lower
        } else {
            BoundKind::Exact
        };
        let seed = Seed {
            rows: Seed::of(&node.row_ids, &rows, &x),
            cols: Seed::of(&node.col_ids, &cols, &y),
        };
        self.remember_leaders(pos, ply, depth, &node, &x, &y);
        self.table.insert(
            key,
            Entry {
                depth,
                value,
                bound,
                seed,
            },
        );
        Ok(value)
    }

    /// Records each seat's most probable decision of a node solved
    /// `depth` turns deep as a killer of its turn, and a quiet one in the
    /// history.
    fn remember_leaders(
        &mut self,
        pos: &Position,
        ply: u32,
        depth: u32,
        node: &Node,
        x: &[f64],
        y: &[f64],
    ) {
        for (k, (lines, p)) in [(&node.rows, x), (&node.cols, y)].into_iter().enumerate() {
            let Some(best) = (0..p.len()).max_by(|&a, &b| p[a].total_cmp(&p[b])) else {
                continue;
            };
            let Decision::Move(m) = lines[best] else {
                continue;
            };
            let slot = 2 * ply as usize + k;
            // (Tables not yet sized for the variant record nothing.)
            if slot < self.heuristics.killers.len() {
                self.heuristics.add_killer(slot, m);
            }
            if !self.heuristics.history.is_empty()
                && pos.piece_at(m.to as usize) == crate::board::piece::EMPTY
            {
                let bonus = (depth * depth) as i32;
                self.heuristics.update_history(pos, &m, bonus);
            }
        }
    }

    fn static_value(&mut self, pos: &Position) -> f64 {
        let v = self.eval.evaluate_for(pos, &mut self.scratch, Seat::FIRST);
        v as f64
    }

    /// A node's value, both seats' strategies (over all their choices)
    /// and the restricted lines the double oracle needed, starting from
    /// the lines `rows` × `cols`.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn solve_node_at(
        &mut self,
        pos: &mut Position,
        node: &Node,
        mut rows: Vec<usize>,
        mut cols: Vec<usize>,
        depth: u32,
        ply: u32,
        alpha: f64,
        beta: f64,
        control: &SearchControl,
    ) -> Result<(f64, Vec<f64>, Vec<f64>, Vec<usize>, Vec<usize>), Abort> {
        let mut m: HashMap<(usize, usize), (f64, BoundKind)> = HashMap::new();
        let (value, xs, ys) = self.double_oracle(
            pos, node, depth, ply, alpha, beta, control, &mut m, &mut rows, &mut cols,
        )?;
        Ok((
            value,
            expand(&xs, &rows, node.rows.len()),
            expand(&ys, &cols, node.cols.len()),
            rows,
            cols,
        ))
    }

    /// The double oracle on the restricted sets `rows` × `cols` (grown in
    /// place); returns the value and the restricted strategies.
    #[allow(clippy::too_many_arguments)]
    fn double_oracle(
        &mut self,
        pos: &mut Position,
        node: &Node,
        depth: u32,
        ply: u32,
        alpha: f64,
        beta: f64,
        control: &SearchControl,
        m: &mut HashMap<(usize, usize), (f64, BoundKind)>,
        rows: &mut Vec<usize>,
        cols: &mut Vec<usize>,
    ) -> Result<(f64, Vec<f64>, Vec<f64>), Abort> {
        loop {
            // Exact values of the restricted game. A single cell is its
            // game's value, so the node's window serves it: beyond the
            // window the bound is all the tests below need (when a line
            // then joins, the cell is searched again exactly).
            let mut a = vec![vec![0.0; cols.len()]; rows.len()];
            if let ([i], [j]) = (&rows[..], &cols[..]) {
                a[0][0] = self.bounded(pos, node, *i, *j, depth, ply, alpha, beta, control, m)?;
            } else {
                for (ri, &i) in rows.iter().enumerate() {
                    for (ci, &j) in cols.iter().enumerate() {
                        a[ri][ci] = self.exact(pos, node, i, j, depth, ply, control, m)?;
                    }
                }
            }
            let GameSolution {
                value: v,
                row: x,
                col: y,
            } = matrix_game::solve(&a);
            // A row doing better than v against y, and a column holding
            // White below v against x. Beyond the window only what would
            // bring the value back into it matters: when v <= alpha a row
            // must beat alpha (with none, the best answer to y, hence the
            // value, is at most alpha), when v >= beta a column must hold
            // White below beta; and that side is asked first.
            //
            // The bounds returned are fail-soft: with no row beating the
            // threshold, every restricted row gets at most v against y and
            // every other row at most the bound its question left, so the
            // node's value is at most the larger of the two (clamped to
            // the window's edge: a line counts as better only by more than
            // EPS). A tighter bound answers later questions of this child
            // at other levels from the table.
            let rows_first = v < beta;
            let mut new_row = None;
            let mut new_col = None;
            for pass in 0..2 {
                if (pass == 0) == rows_first {
                    let t = v.max(alpha);
                    let (line, bound) =
                        self.new_line(pos, node, true, rows, cols, &y, t, depth, ply, control, m)?;
                    new_row = line;
                    if new_row.is_none() && v <= alpha {
                        return Ok((v.max(bound).min(alpha), x, y));
                    }
                } else {
                    let t = v.min(beta);
                    let (line, bound) =
                        self.new_line(pos, node, false, cols, rows, &x, t, depth, ply, control, m)?;
                    new_col = line;
                    if new_col.is_none() && v >= beta {
                        return Ok((v.min(bound).max(beta), x, y));
                    }
                }
            }
            match (new_row, new_col) {
                (None, None) => return Ok((v, x, y)),
                (r, c) => {
                    rows.extend(r);
                    cols.extend(c);
                }
            }
        }
    }

    /// The first line (row when `row`, else column) outside `taken`
    /// that beats `v` against the other seat's strategy `q` on `others`,
    /// and the best bound (for the line's seat) the lines asked before it
    /// left: with no line found, no line outside `taken` does better than
    /// that bound against `q` (−∞ for rows, +∞ for columns when there are
    /// none).
    #[allow(clippy::too_many_arguments)]
    fn new_line(
        &mut self,
        pos: &mut Position,
        node: &Node,
        row: bool,
        taken: &[usize],
        others: &[usize],
        q: &[f64],
        v: f64,
        depth: u32,
        ply: u32,
        control: &SearchControl,
        m: &mut HashMap<(usize, usize), (f64, BoundKind)>,
    ) -> Result<(Option<usize>, f64), Abort> {
        let n = if row {
            node.rows.len()
        } else {
            node.cols.len()
        };
        let mut bound = if row {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        for k in 0..n {
            if taken.contains(&k) {
                continue;
            }
            let (beats, u) =
                self.line_beats(pos, node, row, k, others, q, v, depth, ply, control, m)?;
            if beats {
                return Ok((Some(k), bound));
            }
            bound = if row { bound.max(u) } else { bound.min(u) };
        }
        Ok((None, bound))
    }

    /// Whether line `k` — row `k` when `row` (White's choice), else
    /// column `k` — does better for its seat than `v` against the other
    /// seat's strategy `q` on `others`: a row gets more than `v`, a column
    /// holds White below it. Against a pure strategy one child is asked
    /// with a null window at `v`; against a mixed one each child of the
    /// support with a null window first (below), exactly only where the
    /// bounds do not settle it. Also returns the line's mean against `q`
    /// as far as it was searched: when the line does not beat `v`, a
    /// bound on its side of `v` (at most the mean for a row, at least it
    /// for a column).
    #[allow(clippy::too_many_arguments)]
    fn line_beats(
        &mut self,
        pos: &mut Position,
        node: &Node,
        row: bool,
        k: usize,
        others: &[usize],
        q: &[f64],
        v: f64,
        depth: u32,
        ply: u32,
        control: &SearchControl,
        m: &mut HashMap<(usize, usize), (f64, BoundKind)>,
    ) -> Result<(bool, f64), Abort> {
        let cell = |o: usize| if row { (k, o) } else { (o, k) };
        let better = |u: f64| if row { u > v + EPS } else { u < v - EPS };
        let support: Vec<(usize, f64)> = others
            .iter()
            .zip(q)
            .filter(|(_, p)| in_support(**p))
            .map(|(&o, &p)| (o, p))
            .collect();
        if let [(o, _)] = support[..] {
            let (i, j) = cell(o);
            let (alpha, beta) = if row {
                (v + EPS, f64::INFINITY)
            } else {
                (f64::NEG_INFINITY, v - EPS)
            };
            let r = self.bounded(pos, node, i, j, depth, ply, alpha, beta, control, m)?;
            return Ok((better(r), r));
        }
        // Against a mixed strategy the children are asked one by one
        // (most probable first) with a null window at the level that
        // all children still to ask would have to keep for the mean to
        // stay on `v`'s side: a child far on that side raises the level
        // for the rest. Children that favour the line are then searched
        // exactly; the others are bounds against it, and when their sum
        // with the exact ones does not beat `v`, neither does the mean
        // (most lines end here). Otherwise the rest are searched exactly.
        let favours = if row {
            BoundKind::Lower
        } else {
            BoundKind::Upper
        };
        let mut support = support;
        support.sort_by(|a, b| b.1.total_cmp(&a.1));
        let mut rest: f64 = support.iter().map(|(_, p)| p).sum();
        let mut known = 0.0;
        let mut cells = Vec::with_capacity(support.len());
        for &(o, p) in &support {
            let level = (v - known) / rest;
            rest -= p;
            let (alpha, beta) = if row {
                (level, level + EPS)
            } else {
                (level - EPS, level)
            };
            let (i, j) = cell(o);
            let r = self.bounded(pos, node, i, j, depth, ply, alpha, beta, control, m)?;
            let kind = m.get(&(i, j)).map_or(BoundKind::Exact, |e| e.1);
            known += p * r;
            cells.push((i, j, p, r, kind));
        }
        for c in cells.iter_mut().filter(|c| c.4 == favours) {
            c.3 = self.exact(pos, node, c.0, c.1, depth, ply, control, m)?;
            c.4 = BoundKind::Exact;
        }
        let bound: f64 = cells.iter().map(|c| c.2 * c.3).sum();
        if !better(bound) {
            return Ok((false, bound));
        }
        let mut u = 0.0;
        for c in cells {
            let r = if c.4 == BoundKind::Exact {
                c.3
            } else {
                self.exact(pos, node, c.0, c.1, depth, ply, control, m)?
            };
            u += c.2 * r;
        }
        Ok((better(u), u))
    }

    /// The exact value of the child `(i, j)` (cached in `m`).
    #[allow(clippy::too_many_arguments)]
    fn exact(
        &mut self,
        pos: &mut Position,
        node: &Node,
        i: usize,
        j: usize,
        depth: u32,
        ply: u32,
        control: &SearchControl,
        m: &mut HashMap<(usize, usize), (f64, BoundKind)>,
    ) -> Result<f64, Abort> {
        if let Some(&(v, BoundKind::Exact)) = m.get(&(i, j)) {
            return Ok(v);
        }
        let v = self.child_at(
            pos,
            node,
            i,
            j,
            depth,
            ply,
            f64::NEG_INFINITY,
            f64::INFINITY,
            control,
        )?;
        m.insert((i, j), (v, BoundKind::Exact));
        Ok(v)
    }

    /// The value of the child `(i, j)` searched with a window (cached
    /// with its bound kind).
    #[allow(clippy::too_many_arguments)]
    fn bounded(
        &mut self,
        pos: &mut Position,
        node: &Node,
        i: usize,
        j: usize,
        depth: u32,
        ply: u32,
        alpha: f64,
        beta: f64,
        control: &SearchControl,
        m: &mut HashMap<(usize, usize), (f64, BoundKind)>,
    ) -> Result<f64, Abort> {
        match m.get(&(i, j)) {
            Some(&(v, BoundKind::Exact)) => return Ok(v),
            Some(&(v, BoundKind::Upper)) if v <= alpha => return Ok(v),
            Some(&(v, BoundKind::Lower)) if v >= beta => return Ok(v),
            _ => {}
        }
        let v = self.child_at(pos, node, i, j, depth, ply, alpha, beta, control)?;
        let kind = if v <= alpha {
            BoundKind::Upper
        } else if v >= beta {
            BoundKind::Lower
        } else {
            BoundKind::Exact
        };
        m.insert((i, j), (v, kind));
        Ok(v)
    }

    /// Plays the joint decision `(i, j)` and searches the position after
    /// it.
    #[allow(clippy::too_many_arguments)]
    fn child_at(
        &mut self,
        pos: &mut Position,
        node: &Node,
        i: usize,
        j: usize,
        depth: u32,
        ply: u32,
        alpha: f64,
        beta: f64,
        control: &SearchControl,
    ) -> Result<f64, Abort> {
        let seats = pos.variant().seat_count();
        let mut joint = JointDecision::new(seats);
        joint.set(node.white, node.rows[i]);
        joint.set(node.black, node.cols[j]);
        let main = pos.phase() == Phase::Main;
        // The node's rows and columns are the seats' own choices.
        pos.make_joint_listed(&joint);
        let child_depth = if main { depth.saturating_sub(1) } else { depth };
        let r = self.value(
            pos,
            child_depth,
            ply + u32::from(main),
            alpha,
            beta,
            control,
        );
        pos.unmake();
        r
    }
}

/// The node of a simultaneous two-seat position: each seat's choices (a
/// seat that does not decide has the single choice "pass"); `None` when
/// the turn is not simultaneous between two seats or a seat has no choice.
fn node_of(pos: &Position) -> Option<Node> {
    let options = pos.seat_options();
    if options.len() != 2 || options.iter().any(|o| o.decisions.is_empty()) {
        return None;
    }
    // Generation indices fit two bytes: no board lists 65,536 moves.
    let ids = |n: usize| (0..n).map(|i| i as u16).collect();
    Some(Node {
        white: options[0].seat,
        black: options[1].seat,
        row_ids: ids(options[0].decisions.len()),
        col_ids: ids(options[1].decisions.len()),
        rows: options[0].decisions.clone(),
        cols: options[1].decisions.clone(),
    })
}

/// Orders a node's choices: the table's seed first (in its order), then
/// the seat's killers of turn `ply`, captures by the value of the captured
/// piece, quiet moves by history, passes last. Returns how many seed
/// decisions of each seat lead the lists.
fn order(
    pos: &Position,
    node: &mut Node,
    hint: Option<&Seed>,
    heuristics: &Heuristics,
    ply: u32,
) -> (usize, usize) {
    let v = pos.variant();
    let key = |d: &Decision| -> i32 {
        match d {
            Decision::Pass => -1,
            Decision::Move(m) => {
                let target = pos.piece_at(m.to as usize);
                if target == crate::board::piece::EMPTY {
                    0
                } else {
                    1 + crate::board::piece::piece_kind(target) as i32
                        + 100
                            * i32::from(
                                Some(crate::board::piece::piece_kind(target)) != v.royal_kind,
                            )
                }
            }
        }
    };
    let mut led = [0usize; 2];
    for (k, (list, ids, seed)) in [
        (&mut node.rows, &mut node.row_ids, hint.map(|h| &h.rows[..])),
        (&mut node.cols, &mut node.col_ids, hint.map(|h| &h.cols[..])),
    ]
    .into_iter()
    .enumerate()
    {
        // Sort keys: the seed's rank for seeded lines (a stale seed from
        // another position of the same hash names lines that may not
        // exist: those are ignored), then captures.
        let seed = seed.unwrap_or(&[]);
        let rank = |id: u16| seed.iter().position(|&s| s == id);
        let mut lines: Vec<(Decision, u16)> =
            list.iter().copied().zip(ids.iter().copied()).collect();
        // Killers of the seat's turn next, then captures by victim, then
        // quiet moves by history, passes last.
        let slot = 2 * ply as usize + k;
        // (Tables not yet sized for the variant order by captures alone.)
        let killer = |d: &Decision| match (d, heuristics.killers.get(slot)) {
            (Decision::Move(m), Some(kills)) => kills.iter().position(|x| *x == Some(*m)),
            _ => None,
        };
        let sized = !heuristics.history.is_empty();
        let history = |d: &Decision| match d {
            Decision::Move(m) if sized && key(d) == 0 => heuristics.history(pos, m),
            _ => 0,
        };
        lines.sort_by_cached_key(|&(d, id)| match (rank(id), killer(&d)) {
            (Some(r), _) => (0, r as i32, 0),
            (None, Some(r)) => (1, r as i32, 0),
            (None, None) => (2, -key(&d), -history(&d)),
        });
        led[k] = lines.iter().filter(|&&(_, id)| rank(id).is_some()).count();
        for (slot, (d, id)) in list.iter_mut().zip(ids.iter_mut()).zip(lines) {
            *slot.0 = d;
            *slot.1 = id;
        }
    }
    (led[0], led[1])
}

/// A restricted strategy spread over all `n` choices.
fn expand(p: &[f64], idx: &[usize], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n];
    for (&i, &q) in idx.iter().zip(p) {
        out[i] = q;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_slot_takes_72_bytes() {
        // docs/engine.md gives the slot's size; Hash counts slots by it.
        assert_eq!(std::mem::size_of::<Slot>(), 72);
    }

    #[test]
    fn the_table_keeps_the_deeper_entry_of_one_search_and_replaces_older_searches() {
        let table = SharedTable::new();
        table.set_mb(1);
        let entry = |depth| Entry {
            depth,
            value: depth as f64,
            bound: BoundKind::Exact,
            seed: Seed::default(),
        };
        let per_shard = table.per_shard.load(std::sync::atomic::Ordering::Relaxed) as u64;
        // Two keys of one shard and one slot.
        let (a, b) = (5, 5 + per_shard);
        table.insert(a, entry(3));
        table.insert(b, entry(2));
        assert_eq!(table.get(a).map(|e| e.depth), Some(3));
        assert!(table.get(b).is_none());
        table.insert(b, entry(4));
        assert_eq!(table.get(b).map(|e| e.depth), Some(4));
        assert!(table.get(a).is_none());
        table.new_search();
        table.insert(a, entry(1));
        assert_eq!(table.get(a).map(|e| e.depth), Some(1));
        table.clear();
        assert_eq!(table.len(), 0);
    }
}
