//! The search: the engine's brain, generic over every variant.
//!
//! [`Engine`] owns the shared transposition table, the thread count and the
//! evaluation settings; [`Engine::search`] runs one search of a position
//! under [`Limits`], steered from another thread through a
//! [`SearchControl`] (stop, ponder), reporting progress through a callback
//! and returning a [`SearchResult`]. The protocol front-ends (UCI, XBoard)
//! drive it from their own thread; the CLI commands `analyse`, `play` and
//! `bench` call it directly.
//!
//! The search owns game-theoretic scoring: mate > stalemate win (the cube's
//! ¾ point) > material, with draws by repetition, the 50-move rule and bare
//! kings detected inside the tree ([`score`]). docs/engine.md describes the
//! algorithm.

pub mod control;
mod correction;
pub mod info;
mod large_pages;
pub mod limits;
pub mod matrix_game;
pub mod multi;
pub mod ordering;
pub mod score;
pub mod simultaneous;
pub mod time;
pub mod tt;
mod worker;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::board::variant::{StalemateRule, Variant};
use crate::eval::{EvalConfig, EvalScratch, EvalWeights, Evaluator};
use crate::rules::moves::Move;
use crate::rules::position::Position;
use crate::tablebase::Tablebases;

pub use control::SearchControl;
pub use info::{SearchInfo, SearchResult};
pub use limits::Limits;
pub use score::{Bound, Score};
pub use tt::TranspositionTable;

use score::{INFINITE, MAX_PLY};
use worker::{MainDuties, Shared, Worker};

/// Reversible plies (since the last capture or pawn move) during which the
/// engine, having a stalemate win in hand, keeps hunting for mate; after
/// them it takes the ¾ point (K+R against K, which cannot mate, ends so).
pub const HUNT_PLIES: usize = 60;

/// Deepest iteration a search starts.
pub const MAX_DEPTH: u32 = (MAX_PLY - 8) as u32;

/// Engine settings.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineOptions {
    /// Search threads (1 = deterministic: the same input gives the same
    /// nodes, move and score).
    pub threads: usize,
    /// Transposition table size in MiB (0 = the smallest table).
    pub hash_mb: usize,
    /// Evaluation terms.
    pub eval: EvalConfig,
    /// Evaluation weights: `None` for each variant's built-in ones
    /// ([`EvalWeights::for_variant`]), or a set for every variant (a
    /// tuned one: `EvalFile`).
    pub weights: Option<EvalWeights>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            threads: 1,
            hash_mb: 16,
            eval: EvalConfig::FULL,
            weights: None,
        }
    }
}

/// A search feature that is on by default only on the boards where a
/// match measured it.
///
/// Such a feature changes the whole tree, and what it is worth differs by
/// board: a search change lands on a board only when an SPRT at equal
/// nodes shows it does not lose there (docs/performance.md). Each is an
/// option ([`Switch`]) so that it can be measured anywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    /// Singular extensions (`SingularExtensions`; docs/engine.md): win in
    /// chess and Chess960 and do not lose on the cube, while on the 3-D
    /// diamond a thousand games left an earlier form undecided.
    SingularExtensions,
    /// The static value corrected by the correction history and by the
    /// table's bound (`EvalCorrection`; docs/engine.md).
    EvalCorrection,
}

impl Feature {
    /// Every feature, in the order of [`Engine`]'s switches.
    pub const ALL: [Feature; 2] = [Feature::SingularExtensions, Feature::EvalCorrection];

    /// The option that switches it.
    pub fn option_name(self) -> &'static str {
        match self {
            Feature::SingularExtensions => "SingularExtensions",
            Feature::EvalCorrection => "EvalCorrection",
        }
    }

    /// The variants whose SPRTs accepted it (docs/performance.md).
    pub fn measured(self) -> &'static [&'static str] {
        match self {
            Feature::SingularExtensions => &["chess", "chess960", "cube"],
            // Chess's SPRT ended undecided (docs/performance.md,
            // "Correcting the static value"): off until a match accepts it.
            Feature::EvalCorrection => &[],
        }
    }
}

/// Where a [`Feature`] is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Switch {
    /// On for the variants of [`Feature::measured`].
    #[default]
    Auto,
    /// On for every variant.
    On,
    /// Off for every variant.
    Off,
}

impl Switch {
    /// Every setting, as the options name them.
    pub const ALL: [Switch; 3] = [Switch::Auto, Switch::On, Switch::Off];

    /// The option's name of the setting.
    pub fn name(self) -> &'static str {
        match self {
            Switch::Auto => "auto",
            Switch::On => "on",
            Switch::Off => "off",
        }
    }

    /// The setting the option's value names (any case).
    pub fn parse(s: &str) -> Option<Switch> {
        Self::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(s.trim()))
    }

    /// Whether `feature` is on in the search of variant `v`.
    pub fn applies(self, feature: Feature, v: &Variant) -> bool {
        match self {
            Switch::Auto => feature.measured().contains(&v.name.as_str()),
            Switch::On => true,
            Switch::Off => false,
        }
    }
}

/// The engine: shared table, threads, evaluation tables per variant.
pub struct Engine {
    options: EngineOptions,
    tt: TranspositionTable,
    evaluators: HashMap<String, Arc<Evaluator>>,
    workers: Vec<Worker>,
    /// Where endgame tables are read from (`TablebasePath`).
    tablebase_dir: Option<std::path::PathBuf>,
    /// The tables of the variant last searched, if any are there.
    tablebases: Option<Arc<Tablebases>>,
    /// The simultaneous-move search (built on first use, per variant).
    sim: Option<(String, simultaneous::SimSearcher)>,
    /// Seed of the simultaneous search's sampled decisions.
    sim_seed: u64,
    /// How simultaneous turns are decided (the equilibrium; the
    /// sequential views for comparison matches).
    sim_strategy: simultaneous::Strategy,
    /// The threads of the multi-party search (built on first use).
    multi_workers: Vec<multi::MultiWorker>,
    /// Which search decides multi-party games.
    multi_algorithm: multi::MultiAlgorithm,
    /// Where each [`Feature`] is on, in [`Feature::ALL`]'s order.
    switches: [Switch; Feature::ALL.len()],
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("options", &self.options)
            .field("tt", &self.tt)
            .finish()
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(EngineOptions::default())
    }
}

impl Engine {
    /// An engine with the given options.
    pub fn new(options: EngineOptions) -> Engine {
        let options = EngineOptions {
            threads: options.threads.max(1),
            ..options
        };
        Engine {
            tt: TranspositionTable::new(options.hash_mb),
            options,
            evaluators: HashMap::new(),
            workers: Vec::new(),
            tablebase_dir: None,
            tablebases: None,
            sim: None,
            sim_seed: 0,
            sim_strategy: simultaneous::Strategy::Equilibrium,
            multi_workers: Vec::new(),
            multi_algorithm: multi::MultiAlgorithm::DEFAULT,
            switches: [Switch::Auto; Feature::ALL.len()],
        }
    }

    /// Chooses where `feature` is on.
    pub fn set_switch(&mut self, feature: Feature, s: Switch) {
        self.switches[feature as usize] = s;
    }

    /// Seeds the sampled decisions of simultaneous turns (reproducible
    /// games; a new game keeps drawing from the same stream).
    pub fn set_simultaneous_seed(&mut self, seed: u64) {
        self.sim_seed = seed;
        if let Some((_, s)) = &mut self.sim {
            s.reseed(seed);
        }
    }

    /// Decides simultaneous turns by `strategy`: the equilibrium (the
    /// default), or one of the sequential views that comparison matches
    /// play against it.
    pub fn set_simultaneous_strategy(&mut self, strategy: simultaneous::Strategy) {
        self.sim_strategy = strategy;
    }

    /// A simultaneous turn: the matrix-game search for `limits.seat` (the
    /// first deciding seat when unset), the decision sampled from its
    /// equilibrium strategy; scores from that seat's point of view.
    fn search_simultaneous(
        &mut self,
        pos: &Position,
        limits: &Limits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        use crate::rules::moves::Decision;
        let start = Instant::now();
        let v = pos.variant().clone();
        if self.sim.as_ref().is_none_or(|(spec, _)| *spec != v.spec) {
            let eval = self.evaluator(&v);
            self.sim = Some((
                v.spec.clone(),
                simultaneous::SimSearcher::new(eval, self.sim_seed),
            ));
        }
        let seat = limits
            .seat
            .unwrap_or_else(|| pos.turn().movers().lowest().unwrap_or_default());
        let mut time = limits.movetime;
        if time.is_none()
            && let Some(Some(left)) = limits.time.get(seat.index())
        {
            let inc = limits
                .inc
                .get(seat.index())
                .copied()
                .flatten()
                .unwrap_or_default();
            let moves = limits.movestogo.unwrap_or(30).clamp(1, 30);
            time = Some(*left / moves + inc * 3 / 4);
        }
        if limits.infinite || control.pondering_now() {
            time = None;
        }
        let time = time.map(|t| {
            t.saturating_sub(limits.move_overhead)
                .max(Duration::from_millis(1))
        });
        let sim_limits = simultaneous::SimLimits {
            depth: limits.depth,
            nodes: limits.nodes,
            time,
        };
        let sign = if seat.index() == 0 { 1.0 } else { -1.0 };
        let (_, sim) = self.sim.as_mut().expect("invariant: built above");
        sim.set_threads(self.options.threads);
        sim.set_hash_mb(self.options.hash_mb);
        sim.set_strategy(self.sim_strategy, seat);
        let found = sim.search(pos, &sim_limits, control, &mut |info| {
            let own = sign * info.value;
            on_info(&SearchInfo {
                depth: info.depth,
                seldepth: info.depth,
                multipv: 1,
                score: simultaneous::score_of(own),
                bound: Bound::Exact,
                nodes: info.nodes,
                nps: (info.nodes as f64 / info.time.as_secs_f64().max(1e-6)) as u64,
                hashfull: 0,
                tbhits: 0,
                time: info.time,
                pv: Vec::new(),
                currmove: None,
            });
        });
        Self::wait_while_unbounded(limits, control);
        let Some(r) = found else {
            return Self::no_move_result(pos, start);
        };
        let decision = sim.choose(&r, seat);
        let strategy: Vec<(Decision, f64)> = r
            .strategy(seat)
            .map(|s| s.iter().map(|d| (d.decision, d.probability)).collect())
            .unwrap_or_else(|| vec![(Decision::Pass, 1.0)]);
        let best = match decision {
            Some(Decision::Move(m)) => Some(m),
            _ => None,
        };
        SearchResult {
            best,
            ponder: None,
            score: simultaneous::score_of(sign * r.value),
            depth: r.depth,
            nodes: r.nodes,
            time: start.elapsed(),
            pv: best.into_iter().collect(),
            outcome: None,
            failure: None,
            strategy,
            pass: best.is_none(),
        }
    }

    /// Decides multi-party games (more than two players) with `algorithm`.
    pub fn set_multi_algorithm(&mut self, algorithm: multi::MultiAlgorithm) {
        self.multi_algorithm = algorithm;
    }

    /// The search that decides multi-party games.
    pub fn multi_algorithm(&self) -> multi::MultiAlgorithm {
        self.multi_algorithm
    }

    /// Reads endgame tables from `dir` from the next search on (`None`:
    /// no tables). Missing, corrupt or foreign files are skipped: the
    /// engine plays on without them.
    pub fn set_tablebase_path(&mut self, dir: Option<std::path::PathBuf>) {
        self.tablebase_dir = dir;
        self.tablebases = None;
    }

    /// The tables for `v` (`None` when no directory is set, the variant
    /// has none, or tables do not apply to it).
    pub fn tablebases_for(&mut self, v: &Arc<Variant>) -> Option<Arc<Tablebases>> {
        let dir = self.tablebase_dir.as_ref()?;
        if let Some(t) = &self.tablebases
            && t.variant().spec == v.spec
        {
            return (t.max_pieces() > 0).then(|| t.clone());
        }
        let t = Arc::new(Tablebases::new(v, Some(dir)).ok()?);
        self.tablebases = Some(t.clone());
        (t.max_pieces() > 0).then_some(t)
    }

    /// The current options.
    pub fn options(&self) -> EngineOptions {
        self.options.clone()
    }

    /// Sets the number of search threads (at least 1).
    pub fn set_threads(&mut self, threads: usize) {
        self.options.threads = threads.max(1);
    }

    /// Resizes (and clears) the transposition table.
    pub fn set_hash(&mut self, mb: usize) {
        self.options.hash_mb = mb;
        self.tt = TranspositionTable::new(mb);
    }

    /// Chooses the evaluation terms. The table's scores were computed by
    /// the old evaluation, so a change forgets them (as a new game does).
    pub fn set_eval_config(&mut self, eval: EvalConfig) {
        if eval != self.options.eval {
            self.options.eval = eval;
            self.evaluation_changed();
        }
    }

    /// Chooses the evaluation weights; a change forgets the table's
    /// scores, as [`Engine::set_eval_config`] does.
    pub fn set_eval_weights(&mut self, weights: Option<EvalWeights>) {
        if weights != self.options.weights {
            self.options.weights = weights;
            self.evaluation_changed();
        }
    }

    /// Drops what the old evaluation built or scored: its evaluators, the
    /// table and history (as a new game does) and the simultaneous
    /// searcher, which holds an evaluator of its own.
    fn evaluation_changed(&mut self) {
        self.evaluators.clear();
        self.new_game();
        self.sim = None;
    }

    /// Forgets everything learnt (table, history): a new game.
    pub fn new_game(&mut self) {
        self.tt.clear();
        if let Some((_, s)) = &mut self.sim {
            s.clear();
        }
        for w in &mut self.workers {
            w.heuristics.clear();
            w.correction.clear();
        }
        for w in &mut self.multi_workers {
            w.clear();
        }
    }

    /// The shared transposition table.
    pub fn tt(&self) -> &TranspositionTable {
        &self.tt
    }

    /// The evaluation tables of variant `v` (built on first use).
    pub fn evaluator(&mut self, v: &Arc<Variant>) -> Arc<Evaluator> {
        let (cfg, weights) = (self.options.eval, self.options.weights.clone());
        self.evaluators
            .entry(v.spec.clone())
            .or_insert_with(|| {
                let w = weights.unwrap_or_else(|| EvalWeights::for_variant(v));
                Arc::new(Evaluator::with_weights(v, cfg, &w))
            })
            .clone()
    }

    /// Builds what a search of `pos` needs: its variant's evaluation
    /// tables and, for a sequential turn, the workers' tables for its
    /// board, unless they are built already. [`Engine::search`] does it on
    /// its own; a caller that times searches (the bench) or answers
    /// `isready` calls it first, so that the clock of the first search
    /// measures the search, not the one-time set-up of a variant (on the
    /// 6-D diamond about half a second).
    pub fn prepare(&mut self, pos: &Position) -> Arc<Evaluator> {
        let v = pos.variant();
        let eval = self.evaluator(v);
        let threads = self.options.threads;
        let sequential = !pos.turn().is_simultaneous();
        if sequential && (self.workers.len() != threads || !self.workers.iter().all(|w| w.fits(v)))
        {
            self.workers = (0..threads).map(|i| Worker::new(i, v)).collect();
        }
        eval
    }

    /// Searches `pos` under `limits`. `on_info` receives progress reports
    /// (on the calling thread); `control` may stop the search or end
    /// pondering from another thread. Returns when a limit is reached or a
    /// stop is requested; never before a stop while `limits.infinite` or
    /// pondering.
    pub fn search(
        &mut self,
        pos: &Position,
        limits: &Limits,
        control: &SearchControl,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        if pos.turn().is_simultaneous() {
            return self.search_simultaneous(pos, limits, control, on_info);
        }
        let start = Instant::now();
        let v = pos.variant().clone();
        let eval = self.prepare(pos);
        self.tt.new_search();
        let threads = self.options.threads;

        let mut legal = pos.legal_moves();
        if legal.is_empty() {
            let result = Self::no_move_result(pos, start);
            let info = SearchInfo {
                depth: 0,
                seldepth: 0,
                multipv: 1,
                score: result.score,
                bound: Bound::Exact,
                nodes: 0,
                nps: 0,
                hashfull: self.tt.hashfull(),
                tbhits: 0,
                time: start.elapsed(),
                pv: Vec::new(),
                currmove: None,
            };
            on_info(&info);
            Self::wait_while_unbounded(limits, control);
            return result;
        }
        if !limits.searchmoves.is_empty() {
            let only: Vec<Move> = legal
                .iter()
                .copied()
                .filter(|m| limits.searchmoves.contains(m))
                .collect();
            if !only.is_empty() {
                legal = only;
            }
        }
        if v.rules.party.is_some() {
            return multi::search(
                &mut self.multi_workers,
                &self.tt,
                &eval,
                threads,
                self.multi_algorithm,
                pos,
                legal,
                limits,
                control,
                on_info,
            );
        }
        // A position the tables hold: only the moves that keep its value
        // (the quickest mate, the longest defence, the draw) are searched;
        // inside the tree the tables give exact scores.
        let tablebases = self.tablebases_for(&v);
        if let Some(tb) = &tablebases
            && let Ok(Some(ranked)) = tb.rank_moves(pos)
            && let Some(&(_, best)) = ranked.first()
        {
            let keep: Vec<Move> = legal
                .iter()
                .copied()
                .filter(|m| ranked.iter().any(|(r, val)| r == m && *val == best))
                .collect();
            if !keep.is_empty() {
                legal = keep;
            }
        }
        // Root order: hash move, then captures by value, as inside the tree.
        {
            let cells = v.geometry.cell_count();
            let h = ordering::Heuristics::new(v.seat_count(), v.kinds.len(), cells, 1);
            let tt_move = self.tt.probe(pos.hash()).and_then(|e| e.mv);
            let mut scores = Vec::new();
            let movegen = &self.workers[0].movegen;
            ordering::score_moves(
                pos,
                &eval,
                &h,
                0,
                tt_move,
                &legal,
                ordering::Quiets::Ordered,
                &mut scores,
            );
            ordering::settle_exchanges(pos, &eval, movegen, &legal, &mut scores);
            let mut pairs: Vec<(i32, Move)> = scores.into_iter().zip(legal).collect();
            pairs.sort_by_key(|p| std::cmp::Reverse(p.0));
            legal = pairs.into_iter().map(|p| p.1).collect();
        }

        let mut tm = time::TimeManager::new(limits, pos.to_move(), start);
        let pondering = control.pondering_now();
        let mut max_depth = limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH);
        if legal.len() == 1 && tm.limited() && !limits.infinite && !pondering {
            // One legal move: play it, after a token search for the score.
            max_depth = max_depth.min(1);
        }
        if pondering {
            tm.restart(start);
        }
        let abort = AtomicBool::new(false);
        let tablebase_hits = AtomicU64::new(0);
        let nodes: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
        let shared = Shared {
            tt: &self.tt,
            eval: &eval,
            control,
            abort: &abort,
            nodes: &nodes,
            limits,
            start,
            tablebases: tablebases.as_deref(),
            tablebase_pieces: tablebases.as_ref().map_or(0, |t| t.max_pieces()),
            tablebase_hits: &tablebase_hits,
        };
        // A mate hunt may follow a found stalemate win, for a while: after
        // HUNT_PLIES reversible plies the ¾ point is taken.
        let hunt_allowed = v.rules.stalemate == StalemateRule::StalematedLoses
            && (pos.halfmove_clock() as usize) < HUNT_PLIES;
        for w in &mut self.workers {
            w.prepare(pos, &legal);
            w.hunt_allowed = hunt_allowed && w.id == 0;
            w.exhaustive = limits.mate.is_some();
            let on = |f: Feature| self.switches[f as usize].applies(f, &v);
            w.singular = on(Feature::SingularExtensions);
            w.correcting = on(Feature::EvalCorrection) && v.seat_count() == 2;
        }
        let (main_worker, helpers) = self
            .workers
            .split_first_mut()
            .expect("invariant: at least one worker (threads >= 1)");
        std::thread::scope(|s| {
            for h in helpers.iter_mut() {
                let shared = &shared;
                s.spawn(move || h.iterate(shared, None, MAX_DEPTH));
            }
            let mut duties = MainDuties {
                tm,
                pondering,
                on_info,
                last_best: None,
                best_changes: 0.0,
            };
            main_worker.iterate(&shared, Some(&mut duties), max_depth);
            if main_worker.wants_hunt() {
                main_worker.hunt(&shared, Some(&mut duties), max_depth);
            }
            // UCI: no best move while pondering or in infinite mode until
            // told; the finished search waits for the stop (or ponder hit).
            Self::wait_while_unbounded(limits, control);
            abort.store(true, Ordering::SeqCst);
        });

        let total: u64 = nodes.iter().map(|n| n.load(Ordering::Relaxed)).sum();
        let main_worker = &self.workers[0];
        let best = &main_worker.root_moves[0];
        let internal = if best.prev_score > -INFINITE {
            best.prev_score
        } else {
            let mut s = EvalScratch::default();
            eval.evaluate(pos, &mut s)
        };
        let mut pv = crate::rules::movegen::legal_prefix(pos, &best.pv);
        if let Some(tb) = &tablebases {
            extend_with_table(pos, &mut pv, tb);
        }
        SearchResult {
            best: Some(best.mv),
            ponder: pv.get(1).copied(),
            score: Score::from_internal(internal),
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

    /// UCI: no best move while pondering or in infinite mode until told;
    /// a finished search waits for the stop (or the ponder hit).
    pub(crate) fn wait_while_unbounded(limits: &Limits, control: &SearchControl) {
        while (limits.infinite || control.pondering_now()) && !control.stopped() {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    fn no_move_result(pos: &Position, start: Instant) -> SearchResult {
        let in_check = pos.in_check();
        let outcome = pos.outcome();
        let score = if pos.variant().rules.party.is_some() {
            // A multi-party game is over: `mate 0` when the seat asked
            // has lost, else 0 (UCI has no score for a game already won).
            let lost = outcome
                .as_ref()
                .is_some_and(|o| o.points[pos.to_move()] == crate::rules::outcome::Points::ZERO);
            if lost { Score::Mate(0) } else { Score::Cp(0) }
        } else if in_check {
            Score::Mate(0)
        } else {
            match pos.variant().rules.stalemate {
                StalemateRule::Draw => Score::Cp(0),
                StalemateRule::StalematedLoses => Score::StalemateWin(0),
            }
        };
        SearchResult {
            best: None,
            ponder: None,
            score,
            depth: 0,
            nodes: 0,
            time: start.elapsed(),
            pv: Vec::new(),
            outcome,
            failure: None,
            strategy: Vec::new(),
            pass: false,
        }
    }
}

/// Nodes of all threads of a search: thread `id`'s own count `own`
/// (exact), the others' as last published in `nodes`.
pub(crate) fn nodes_of_all(nodes: &[AtomicU64], id: usize, own: u64) -> u64 {
    nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if i == id {
                own
            } else {
                n.load(Ordering::Relaxed)
            }
        })
        .sum()
}

/// Continues a principal variation that reaches a table position with the
/// table's best line (quickest win, longest defence) to the end of the
/// game, so a table result shows its whole mate.
fn extend_with_table(root: &Position, pv: &mut Vec<Move>, tb: &Tablebases) {
    let mut p = root.clone();
    for &m in pv.iter() {
        p.make(m);
    }
    while pv.len() < 2 * MAX_PLY {
        match tb.probe(&p) {
            Ok(Some(crate::tablebase::Value::Draw)) | Ok(None) | Err(_) => return,
            Ok(Some(_)) => {}
        }
        let Ok(Some(ranked)) = tb.rank_moves(&p) else {
            return;
        };
        let Some(&(m, _)) = ranked.first() else {
            return;
        };
        pv.push(m);
        p.make(m);
    }
}

#[cfg(test)]
mod tests {
    use super::{Feature, Switch};
    use crate::board::registry::build;

    /// Where each feature is on by default: the boards of its accepted
    /// SPRTs (docs/performance.md), and no other.
    #[test]
    fn features_are_on_by_default_only_where_measured() {
        let cases: [(Feature, &[&str], &[&str]); 2] = [
            (
                Feature::SingularExtensions,
                &["chess", "chess960:sp=518", "cube"],
                &["diamond:n=3", "diamond:n=4", "torus", "cylinder"],
            ),
            (
                Feature::EvalCorrection,
                &[],
                &["chess", "chess960:sp=518", "cube", "diamond:n=3", "torus"],
            ),
        ];
        for (f, on_by_default, off_by_default) in cases {
            let on = |s: Switch, spec: &str| {
                s.applies(f, &build(spec).expect("invariant: a registered variant"))
            };
            for &spec in on_by_default {
                assert!(on(Switch::Auto, spec), "{f:?} {spec}");
                assert!(!on(Switch::Off, spec), "{f:?} {spec}");
            }
            for &spec in off_by_default {
                assert!(!on(Switch::Auto, spec), "{f:?} {spec}");
                assert!(on(Switch::On, spec), "{f:?} {spec}");
            }
        }
        assert_eq!(Switch::parse(" ON "), Some(Switch::On));
        assert_eq!(Switch::parse("sometimes"), None);
    }
}
