//! Texel-style tuning of the evaluation weights (issue 17).
//!
//! The data are positions of self-play games, each labelled with the
//! points the first seat scored in its game. A logistic curve maps an
//! evaluation (centipawns, the first seat's view) to expected points,
//! `1 / (1 + 10^(−K·e/400))`; the loss is the mean squared difference
//! between those expectations and the points scored (Peter Österlund's
//! method for Texel). `K` is fitted once with the starting weights (it
//! fixes the scale, which the weights could otherwise trade against it),
//! then the weights by coordinate descent: each weight in turn is moved up
//! and down by its step and kept where the loss falls; a pass without a
//! gain halves the steps, and the search stops when they fall below a
//! hundredth of the weights (converged) or after the pass limit.
//!
//! Every weight scales a measured quantity ([`super::weights`]), so the
//! same tuner serves every board: the data decide the weights of the
//! variant they come from.
//!
//! Data file (`ndchess tune data` writes it, `ndchess tune fit` reads it):
//! one position per line, `<points> <position text>` (the first seat's
//! points: 1, 0.5 or 0 from its game, or any number from 0 to 1 as another
//! judge expects them, e.g. a stronger engine's evaluation mapped to
//! points), `#` comments and blank lines ignored.

use std::fmt;
use std::sync::Arc;

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rayon::prelude::*;

use crate::board::piece::EMPTY;
use crate::board::seating::{BySeat, Seat};
use crate::board::variant::Variant;
use crate::game::{DriverOptions, EnginePlayer, Game, Step, run};
use crate::rules::position::Position;
use crate::search::{EngineOptions, Limits};

use super::tables::TEMPO_INDEX;
use super::{EvalConfig, EvalScratch, EvalWeights, Evaluator};

/// A labelled position.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The position.
    pub pos: Position,
    /// The points the first seat scored in the game it comes from.
    pub points: f64,
}

/// Why tuning data cannot be read or made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TuneError {
    /// A data line that is not `<points> <position>`.
    Line { line: usize, message: String },
    /// No positions to tune on.
    NoSamples,
    /// The variant is not one the tuner can label (two seats).
    Variant(String),
}

impl fmt::Display for TuneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TuneError::Line { line, message } => write!(f, "data line {line}: {message}"),
            TuneError::NoSamples => write!(f, "no positions to tune on"),
            TuneError::Variant(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for TuneError {}

/// Reads a data file of `v`'s positions.
pub fn parse_samples(v: &Arc<Variant>, text: &str) -> Result<Vec<Sample>, TuneError> {
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let body = raw.trim();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let bad = |message: String| TuneError::Line { line, message };
        let (points, rest) = body
            .split_once(char::is_whitespace)
            .ok_or_else(|| bad("expected '<points> <position>'".into()))?;
        // A game's result (1, 0.5, 0), or expected points between them
        // given by another judge (a stronger engine's evaluation mapped to
        // points): the loss is the same squared difference.
        let points = match points.parse::<f64>() {
            Ok(p) if (0.0..=1.0).contains(&p) => p,
            _ => {
                return Err(bad(format!(
                    "points '{points}' are not a number from 0 to 1"
                )));
            }
        };
        let pos = Position::from_text(v, rest.trim()).map_err(|e| bad(e.to_string()))?;
        out.push(Sample { pos, points });
    }
    Ok(out)
}

/// One data line for `pos` with the first seat's `points`.
pub fn format_sample(points: f64, pos: &Position) -> String {
    format!("{points} {}", pos.to_text())
}

/// How self-play data are made.
#[derive(Clone, Debug)]
pub struct DataOptions {
    /// Games to play.
    pub games: usize,
    /// Node budget per decision.
    pub nodes: u64,
    /// Random joint decisions from the start before the engines play.
    pub random_turns: usize,
    /// Steps after which a game is a draw.
    pub max_steps: usize,
    /// Positions before this step of a game are not kept (the openings).
    pub skip_steps: usize,
    /// Seed of the openings and the engines.
    pub seed: u64,
}

impl Default for DataOptions {
    fn default() -> Self {
        DataOptions {
            games: 100,
            nodes: 2000,
            random_turns: 4,
            max_steps: 300,
            skip_steps: 8,
            seed: 1,
        }
    }
}

/// The labels are the first seat's expected points against the other
/// one, so data and labels exist only for two-seat games; `what` names
/// the job refused in the error.
fn require_two_seats(v: &Variant, what: &str) -> Result<(), TuneError> {
    if v.seat_count() == 2 {
        return Ok(());
    }
    Err(TuneError::Variant(format!(
        "{}: {what} two-seat games; this one has {} seats",
        v.spec,
        v.seat_count()
    )))
}

/// Plays `opts.games` self-play games of `v` (in parallel) and returns
/// their quiet positions labelled with the first seat's points: positions
/// after the opening where no seat is in check and the step played next
/// captured nothing (the static evaluation of a position in the middle of
/// an exchange says little about its result). `progress` hears of each
/// finished game.
pub fn generate(
    v: &Arc<Variant>,
    opts: &DataOptions,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<Sample>, TuneError> {
    require_two_seats(v, "the tuner labels positions of")?;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let per_game: Vec<Vec<Sample>> = (0..opts.games)
        .into_par_iter()
        .map(|i| {
            let seed = opts.seed.wrapping_mul(0x9e37_79b9).wrapping_add(i as u64);
            let samples = self_play_game(v, opts, seed);
            progress(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1);
            samples
        })
        .collect();
    let out: Vec<Sample> = per_game.into_iter().flatten().collect();
    if out.is_empty() {
        return Err(TuneError::NoSamples);
    }
    Ok(out)
}

/// One self-play game's quiet positions (see [`generate`]).
fn self_play_game(v: &Arc<Variant>, opts: &DataOptions, seed: u64) -> Vec<Sample> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let start = random_opening(v, opts.random_turns, &mut rng);
    let limits = Limits {
        nodes: Some(opts.nodes),
        ..Limits::default()
    };
    let mut a = EnginePlayer::new("a", EngineOptions::default(), limits.clone()).with_seed(seed);
    let mut b = EnginePlayer::new("b", EngineOptions::default(), limits).with_seed(seed ^ 1);
    let mut game = Game::new(start.clone());
    let seats = BySeat::from_fn(2, |s| s.index());
    let driver = DriverOptions {
        max_plies: Some(opts.max_steps),
        ..DriverOptions::default()
    };
    let mut positions = vec![start];
    let end = run(
        &mut game,
        &mut [&mut a, &mut b],
        &seats,
        &driver,
        &mut |g| positions.push(g.position().clone()),
    );
    let points = end.outcome().points[Seat::FIRST].value();
    let mut out = Vec::new();
    for (k, ply) in game.plies().iter().enumerate() {
        let Some(pos) = positions.get(k) else {
            break;
        };
        let captured = match &ply.step {
            Step::Move(m) => pos.piece_at(m.to as usize) != EMPTY,
            Step::Joint(j) => j.0.iter().any(|(_, d)| {
                matches!(d, Some(crate::rules::moves::Decision::Move(m))
                    if pos.piece_at(m.to as usize) != EMPTY)
            }),
        };
        let checked = v.seating.seats().any(|s| pos.seat_in_check(s));
        if k >= opts.skip_steps && !captured && !checked {
            // The position alone, without the game's undo records and
            // hashes that a clone carries (they grow with the game: kept
            // for every sample, 10,000 games took 6 GB).
            let pos = Position::from_text(v, &pos.to_text()).unwrap_or_else(|_| pos.clone());
            out.push(Sample { pos, points });
        }
    }
    out
}

/// The start after `turns` random steps drawn with `rng` (moves of the
/// seat to move, or joint decisions of a simultaneous turn); a line that
/// ends the game is drawn again (the start itself after 100 tries).
fn random_opening(v: &Arc<Variant>, turns: usize, rng: &mut SmallRng) -> Position {
    use rand::RngExt;
    for _ in 0..100 {
        let mut pos = Position::start(v);
        for _ in 0..turns {
            if pos.turn().is_simultaneous() {
                let all = pos.joint_decisions();
                if all.is_empty() {
                    break;
                }
                pos.make_joint_listed(&all[rng.random_range(0..all.len())]);
            } else {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos.make(moves[rng.random_range(0..moves.len())]);
            }
        }
        if pos.outcome().is_none() {
            return pos;
        }
    }
    Position::start(v)
}

/// Relabels `samples` of `v` with the engine's own judgement: each
/// position searched to `nodes` nodes (one thread, a fresh 16 MB table
/// per position, the variant's built-in weights or `weights`), its score
/// mapped to the first seat's expected points by the logistic curve of
/// the Stockfish labels, `1 / (1 + 10^(−cp/400))` (a mate 1 or 0, the
/// cube's stalemate win ¾ or ¼). Where no stronger engine knows a variant
/// this is the label a deeper look gives: the fit then moves the static
/// evaluation towards what the search finds (the way NNUE data are made
/// from a search's own scores). Positions run in parallel, one per core;
/// `progress` hears of every thousandth.
pub fn self_label(
    v: &Arc<Variant>,
    samples: &[Sample],
    nodes: u64,
    weights: Option<EvalWeights>,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Vec<Sample>, TuneError> {
    use crate::search::score::Score;
    use crate::search::{Engine, SearchControl};
    require_two_seats(v, "the labeller scores")?;
    let done = std::sync::atomic::AtomicUsize::new(0);
    let limits = Limits {
        nodes: Some(nodes),
        ..Limits::default()
    };
    let out = samples
        .par_iter()
        .map_init(
            || {
                let mut e = Engine::new(EngineOptions {
                    threads: 1,
                    hash_mb: 16,
                    ..EngineOptions::default()
                });
                e.set_eval_weights(weights.clone());
                e
            },
            |engine, s| {
                engine.new_game();
                let control = SearchControl::new();
                let r = engine.search(&s.pos, &limits, &control, &mut |_| {});
                let mover = match r.score {
                    Score::Cp(cp) => expected(cp as f64, 1.0),
                    Score::Mate(n) => {
                        if n > 0 {
                            1.0
                        } else {
                            0.0
                        }
                    }
                    Score::StalemateWin(n) => {
                        if n > 0 {
                            0.75
                        } else {
                            0.25
                        }
                    }
                };
                let first = s.pos.to_move() == Seat::FIRST
                    || v.seating.same_side(s.pos.to_move(), Seat::FIRST);
                let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if k.is_multiple_of(1000) {
                    progress(k);
                }
                Sample {
                    pos: s.pos.clone(),
                    points: if first { mover } else { 1.0 - mover },
                }
            },
        )
        .collect();
    Ok(out)
}

/// Expected points of an evaluation `e` (centipawns) under scale `k`.
fn expected(e: f64, k: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * e / 400.0))
}

/// The mean squared error of `eval` on `samples` under scale `k`.
pub fn loss(samples: &[Sample], eval: &Evaluator, k: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let sum: f64 = samples
        .par_iter()
        .map_init(EvalScratch::default, |scratch, s| {
            let e = eval.evaluate_for(&s.pos, scratch, Seat::FIRST) as f64;
            let d = s.points - expected(e, k);
            d * d
        })
        .sum();
    sum / samples.len() as f64
}

/// The scale `K` that fits `eval` best to `samples` (golden-section search
/// over 0.05–5; the loss is unimodal in `K`).
pub fn fit_scale(samples: &[Sample], eval: &Evaluator) -> f64 {
    let (mut lo, mut hi) = (0.05f64, 5.0f64);
    let g = (5f64.sqrt() - 1.0) / 2.0;
    let mut a = hi - g * (hi - lo);
    let mut b = lo + g * (hi - lo);
    let (mut fa, mut fb) = (loss(samples, eval, a), loss(samples, eval, b));
    for _ in 0..40 {
        if fa < fb {
            hi = b;
            b = a;
            fb = fa;
            a = hi - g * (hi - lo);
            fa = loss(samples, eval, a);
        } else {
            lo = a;
            a = b;
            fa = fb;
            b = lo + g * (hi - lo);
            fb = loss(samples, eval, b);
        }
    }
    (lo + hi) / 2.0
}

/// What one pass of the descent did.
#[derive(Clone, Debug)]
pub struct Pass {
    /// Pass number (from 1).
    pub number: usize,
    /// Loss after the pass.
    pub loss: f64,
    /// The relative step the pass used.
    pub step: f64,
    /// Weights changed in the pass.
    pub changed: usize,
}

/// The tuner's result.
#[derive(Clone, Debug)]
pub struct TuneReport {
    /// The fitted scale `K`.
    pub scale: f64,
    /// Loss of the starting weights.
    pub start_loss: f64,
    /// Loss of the tuned weights.
    pub end_loss: f64,
    /// The tuned weights.
    pub weights: EvalWeights,
    /// Passes run.
    pub passes: usize,
    /// Whether the steps fell below the convergence threshold (else the
    /// pass limit stopped it).
    pub converged: bool,
}

/// The relative step of the first pass.
const FIRST_STEP: f64 = 0.2;
/// The descent has converged when the step falls below this.
const LAST_STEP: f64 = 0.01;

/// Tunes `start` on `samples` of `v` (at most `max_passes` passes);
/// `on_pass` hears of each pass.
pub fn tune(
    v: &Arc<Variant>,
    samples: &[Sample],
    start: EvalWeights,
    max_passes: usize,
    on_pass: &mut dyn FnMut(&Pass),
) -> Result<TuneReport, TuneError> {
    if samples.is_empty() {
        return Err(TuneError::NoSamples);
    }
    let build = |w: &EvalWeights| Evaluator::with_weights(v, EvalConfig::FULL, w);
    let start_eval = build(&start);
    let scale = fit_scale(samples, &start_eval);
    let start_loss = loss(samples, &start_eval, scale);
    let mut best = start;
    let mut best_loss = start_loss;
    let mut step = FIRST_STEP;
    let mut passes = 0;
    // A weight at 0 moves by a share of its default instead of itself,
    // or of a twentieth of its range where the default is 0 too.
    let defaults = EvalWeights::default();
    let nominal = |i: usize| match defaults.get(i) {
        0.0 => super::weights::MAX[i] / 20.0,
        d => d,
    };
    while passes < max_passes && step >= LAST_STEP {
        passes += 1;
        let mut changed = 0;
        for i in 0..EvalWeights::COUNT {
            let base = best.get(i);
            let delta = step * if base.abs() > 1e-9 { base } else { nominal(i) };
            for candidate in [base + delta, base - delta] {
                let mut w = best.clone();
                w.set(i, EvalWeights::round(candidate));
                if w == best {
                    continue;
                }
                let l = loss(samples, &build(&w), scale);
                if l < best_loss {
                    best = w;
                    best_loss = l;
                    changed += 1;
                    break;
                }
            }
        }
        on_pass(&Pass {
            number: passes,
            loss: best_loss,
            step,
            changed,
        });
        if changed == 0 {
            step /= 2.0;
        }
    }
    Ok(TuneReport {
        scale,
        start_loss,
        end_loss: best_loss,
        weights: best,
        passes,
        converged: step < LAST_STEP,
    })
}

/// One sample's linear features: the evaluation (first seat's view) is
/// `Σ x[i] · value` over `dense` and `Σ sign · (x[i] · phase + x[i + 1] ·
/// (1 − phase))` over `entries`, for the parameters `x` of the variant's
/// [`Layout`].
#[derive(Clone, Debug)]
struct Features {
    /// (parameter, value): the phase scales' terms and the tempo.
    dense: Vec<(u32, f32)>,
    /// (opening parameter, sign): the table entries the seats' pieces use
    /// (a seat on the first seat's side adds, the others subtract).
    entries: Vec<(u32, f32)>,
    /// The phase, from 1 (every start piece) to 0.
    phase: f32,
    /// The label: the first seat's points.
    points: f32,
}

impl Features {
    fn eval(&self, x: &[f64]) -> f64 {
        let ph = self.phase as f64;
        let dense: f64 = self
            .dense
            .iter()
            .map(|&(i, f)| x[i as usize] * f as f64)
            .sum();
        let tables: f64 = self
            .entries
            .iter()
            .map(|&(i, sign)| {
                let i = i as usize;
                sign as f64 * (x[i] * ph + x[i + 1] * (1.0 - ph))
            })
            .sum();
        dense + tables
    }
}

/// The features of `pos` under `eval` (made with
/// [`Evaluator::for_tuning`]).
fn features_of(
    eval: &Evaluator,
    v: &Variant,
    pos: &Position,
    points: f64,
    scratch: &mut EvalScratch,
) -> Features {
    let (b, used) = eval.features(pos, scratch);
    let first = |seat: usize| {
        let seat = Seat::new(seat);
        seat == Seat::FIRST || v.seating.same_side(seat, Seat::FIRST)
    };
    let sign = |seat: usize| if first(seat) { 1.0 } else { -1.0 };
    let ph = b.phase as f64 / super::tables::PHASE_FULL as f64;
    let terms = [
        &b.material,
        &b.mobility,
        &b.pawn_progress,
        &b.king,
        &b.threats,
        &b.pawn_structure,
        &b.open_lines,
    ];
    let mut dense = Vec::with_capacity(2 * terms.len() + 1);
    for (j, t) in terms.iter().enumerate() {
        let d: f64 = t.iter().enumerate().map(|(p, &x)| sign(p) * x as f64).sum();
        if d != 0.0 {
            dense.push(((2 * j) as u32, (d * ph) as f32));
            dense.push(((2 * j + 1) as u32, (d * (1.0 - ph)) as f32));
        }
    }
    if !pos.turn().is_simultaneous() {
        dense.push((TEMPO_INDEX as u32, sign(pos.to_move().index()) as f32));
    }
    let mut entries: Vec<(u32, f32)> = used
        .iter()
        .map(|&(p, i)| (i as u32, sign(p) as f32))
        .collect();
    entries.sort_unstable_by_key(|e| e.0);
    let mut merged: Vec<(u32, f32)> = Vec::with_capacity(entries.len());
    for (i, sgn) in entries {
        match merged.last_mut() {
            Some(last) if last.0 == i => last.1 += sgn,
            _ => merged.push((i, sgn)),
        }
    }
    merged.retain(|e| e.1 != 0.0);
    Features {
        dense,
        entries: merged,
        phase: ph as f32,
        points: points as f32,
    }
}

/// What one round of the linear fit did.
#[derive(Clone, Debug)]
pub struct LinearRound {
    /// Iterations so far.
    pub iteration: usize,
    /// Loss on the fitted positions (of the linear model).
    pub loss: f64,
    /// Loss on the held-out positions (of the linear model).
    pub held_out: f64,
}

/// The linear fit's result.
#[derive(Clone, Debug)]
pub struct LinearReport {
    /// The fitted scale `K`.
    pub scale: f64,
    /// Positions fitted and held out.
    pub fitted: usize,
    /// Positions held out (every twentieth block).
    pub held: usize,
    /// Loss of the starting weights on the fitted positions (the
    /// evaluator's own).
    pub start_loss: f64,
    /// Loss of the fitted weights on the fitted positions (the
    /// evaluator's own, tables rounded to centipawns).
    pub end_loss: f64,
    /// The same two on the held-out positions.
    pub start_held_out: f64,
    /// See `start_held_out`.
    pub end_held_out: f64,
    /// The fitted weights.
    pub weights: EvalWeights,
    /// Iterations run.
    pub iterations: usize,
}

/// Settings of the linear fit.
#[derive(Clone, Debug)]
pub struct LinearOptions {
    /// Iterations of the descent (each over every fitted position).
    pub iterations: usize,
    /// Step of the table entries in centipawns (Adam's rate); the phase
    /// scales take a thousandth of it per unit, the tempo the same.
    pub rate: f64,
    /// Weight of the pull of each table entry towards 0 and each phase
    /// scale towards its start (squared distance, per position).
    pub ridge: f64,
}

impl Default for LinearOptions {
    fn default() -> Self {
        LinearOptions {
            iterations: 2000,
            rate: 1.0,
            ridge: 1e-7,
        }
    }
}

/// Fits the evaluation's linear part to `samples` of `v`: the phase
/// scales of the measured terms, the tempo and every table (placement,
/// passed pawns, mobility by count, pairs; docs/engine.md), starting
/// from `start` (its other weights stay). The evaluation is linear in
/// these parameters once the measured terms are computed, so each
/// position's features are computed once and the mean squared error of
/// the logistic curve is descended by its gradient (Adam, every fitted
/// position each iteration). Every twentieth block of positions (up to
/// 64 in a row, most of a game's) is held out and its loss reported
/// beside, so that an overfit shows. `on_round` hears
/// of every 50th iteration.
pub fn tune_linear(
    v: &Arc<Variant>,
    samples: &[Sample],
    start: EvalWeights,
    opts: &LinearOptions,
    on_round: &mut dyn FnMut(&LinearRound),
) -> Result<LinearReport, TuneError> {
    if samples.is_empty() {
        return Err(TuneError::NoSamples);
    }
    let start_eval = Evaluator::for_tuning(v, &start);
    let Some(layout) = start_eval.layout().cloned() else {
        return Err(TuneError::Variant(format!("{}: no tables to fit", v.spec)));
    };
    let (fit_set, held_set): (Vec<&Sample>, Vec<&Sample>) = {
        let mut a = Vec::new();
        let mut b = Vec::new();
        // Neighbouring positions come from the same game: blocks of up
        // to 64 are held out together, so that the held-out loss is not
        // that of near copies of fitted positions.
        let block = (samples.len() / 2000).clamp(1, 64);
        for (i, s) in samples.iter().enumerate() {
            if (i / block) % 20 == 19 {
                b.push(s)
            } else {
                a.push(s)
            }
        }
        (a, b)
    };
    let owned: Vec<Sample> = fit_set.iter().map(|s| (*s).clone()).collect();
    let scale = fit_scale(&owned, &start_eval);
    let extract = |set: &[&Sample]| -> Vec<Features> {
        set.par_iter()
            .map_init(EvalScratch::default, |scratch, s| {
                features_of(&start_eval, v, &s.pos, s.points, scratch)
            })
            .collect()
    };
    let fit_f = extract(&fit_set);
    let held_f = extract(&held_set);
    let mut x = layout.params_of(v, &start);
    let prior = x.clone();
    let model_loss = |set: &[Features], x: &[f64]| -> f64 {
        if set.is_empty() {
            return 0.0;
        }
        set.par_iter()
            .map(|f| {
                let d = f.points as f64 - expected(f.eval(x), scale);
                d * d
            })
            .sum::<f64>()
            / set.len() as f64
    };
    // Adam's state, and each parameter's rate: the scales are near 1,
    // the tables in centipawns.
    let n = layout.len;
    let rates: Vec<f64> = (0..n)
        .map(|i| {
            if i < TEMPO_INDEX {
                opts.rate / 1000.0
            } else {
                opts.rate
            }
        })
        .collect();
    let (mut m, mut s2) = (vec![0.0f64; n], vec![0.0f64; n]);
    let (b1, b2, eps) = (0.9f64, 0.999f64, 1e-12f64);
    let c = scale * std::f64::consts::LN_10 / 400.0;
    let count = fit_f.len() as f64;
    for it in 1..=opts.iterations {
        let grad = fit_f
            .par_iter()
            .fold(
                || vec![0.0f64; n],
                |mut g, f| {
                    let p = expected(f.eval(&x), scale);
                    // d/de of (y − p)²: −2 (y − p) p (1 − p) c.
                    let k = -2.0 * (f.points as f64 - p) * p * (1.0 - p) * c;
                    for &(i, v) in &f.dense {
                        g[i as usize] += k * v as f64;
                    }
                    let ph = f.phase as f64;
                    for &(i, sign) in &f.entries {
                        let i = i as usize;
                        g[i] += k * sign as f64 * ph;
                        g[i + 1] += k * sign as f64 * (1.0 - ph);
                    }
                    g
                },
            )
            .reduce(
                || vec![0.0f64; n],
                |mut a, b| {
                    a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        let t = it as i32;
        for i in 0..n {
            let g = grad[i] / count
                + 2.0 * opts.ridge * (x[i] - prior[i]) * if i < TEMPO_INDEX { 1e4 } else { 1.0 };
            if grad[i] == 0.0 && x[i] == prior[i] {
                continue;
            }
            m[i] = b1 * m[i] + (1.0 - b1) * g;
            s2[i] = b2 * s2[i] + (1.0 - b2) * g * g;
            let mh = m[i] / (1.0 - b1.powi(t));
            let vh = s2[i] / (1.0 - b2.powi(t));
            x[i] -= rates[i] * mh / (vh.sqrt() + eps);
        }
        for xi in x.iter_mut().take(TEMPO_INDEX + 1) {
            *xi = xi.max(0.0);
        }
        if it % 50 == 0 || it == opts.iterations {
            on_round(&LinearRound {
                iteration: it,
                loss: model_loss(&fit_f, &x),
                held_out: model_loss(&held_f, &x),
            });
        }
    }
    let mut weights = start.clone();
    layout.write_params(v, &x, &mut weights);
    let end_eval = Evaluator::with_weights(v, EvalConfig::FULL, &weights);
    let held_owned: Vec<Sample> = held_set.iter().map(|s| (*s).clone()).collect();
    let plain_start = Evaluator::with_weights(v, EvalConfig::FULL, &start);
    Ok(LinearReport {
        scale,
        fitted: owned.len(),
        held: held_owned.len(),
        start_loss: loss(&owned, &plain_start, scale),
        end_loss: loss(&owned, &end_eval, scale),
        start_held_out: loss(&held_owned, &plain_start, scale),
        end_held_out: loss(&held_owned, &end_eval, scale),
        weights,
        iterations: opts.iterations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_lines_read_back_and_bad_lines_are_refused_with_their_number() {
        let v = Variant::from_spec("chess").unwrap();
        let start = Position::start(&v);
        let text = format!(
            "# comment\n\n{}\n{}\n",
            format_sample(1.0, &start),
            format_sample(0.5, &start)
        );
        let s = parse_samples(&v, &text).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].points, s[1].points), (1.0, 0.5));
        assert_eq!(s[0].pos.to_text(), start.to_text());
        // Expected points from another judge are read as they are.
        let judged = parse_samples(&v, &format_sample(0.73, &start)).unwrap();
        assert_eq!(judged[0].points, 0.73);
        let mut bad_lines = vec![
            ("1".to_string(), 1),
            ("# x\n1 not-a-position".to_string(), 2),
        ];
        // Points outside 0..=1, or no number at all, before a good position.
        let start_text = start.to_text();
        for points in ["1.5", "-0.1", "NaN", "one"] {
            bad_lines.push((format!("{points} {start_text}"), 1));
        }
        for (bad, line) in &bad_lines {
            match parse_samples(&v, bad) {
                Err(TuneError::Line { line: l, .. }) => assert_eq!(l, *line, "{bad}"),
                other => panic!("{bad}: {other:?}"),
            }
        }
        assert!(matches!(
            tune(&v, &[], EvalWeights::default(), 3, &mut |_| {}),
            Err(TuneError::NoSamples)
        ));
    }

    /// Random positions of short random games of `v`.
    fn random_positions(v: &Arc<Variant>, games: usize, seed: u64) -> Vec<Position> {
        use rand::RngExt;
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut out = Vec::new();
        for _ in 0..games {
            let mut pos = Position::start(v);
            for _ in 0..rng.random_range(0..60) {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos.make(moves[rng.random_range(0..moves.len())]);
                out.push(pos.clone());
            }
        }
        out
    }

    #[test]
    fn the_linear_features_give_the_evaluation() {
        // For weights with every kind of table and phase scales off 1,
        // the features' linear model gives the evaluator's own value on
        // positions of random games (within the evaluator's rounding:
        // one centipawn per table sum and term).
        for spec in ["chess", "cube", "diamond:n=3"] {
            let v = Variant::from_spec(spec).unwrap();
            let layout = super::super::tables::Layout::of(&v);
            let mut rng = SmallRng::seed_from_u64(5);
            use rand::RngExt;
            let mut x: Vec<f64> = (0..layout.len)
                .map(|_| rng.random_range(-60.0..60.0f64).round())
                .collect();
            for s in x.iter_mut().take(TEMPO_INDEX) {
                *s = rng.random_range(0.5..1.5f64);
            }
            x[TEMPO_INDEX] = 17.0;
            let mut w = EvalWeights::for_variant(&v);
            layout.write_params(&v, &x, &mut w);
            let x = layout.params_of(&v, &w);
            let eval = Evaluator::with_weights(&v, EvalConfig::FULL, &w);
            let tuning = Evaluator::for_tuning(&v, &w);
            let mut scratch = EvalScratch::default();
            let positions = random_positions(&v, 20, 9);
            assert!(positions.len() > 200, "{spec}");
            for pos in &positions {
                let e = eval.evaluate_for(pos, &mut scratch, Seat::FIRST) as f64;
                assert_eq!(
                    tuning.evaluate_for(pos, &mut scratch, Seat::FIRST) as f64,
                    e,
                    "{spec}: the tuner's evaluator evaluates as the engine's"
                );
                let f = features_of(&tuning, &v, pos, 0.5, &mut scratch);
                let model = f.eval(&x);
                assert!(
                    (model - e).abs() <= 4.0,
                    "{spec} {}: model {model}, eval {e}",
                    pos.to_text()
                );
            }
        }
    }

    #[test]
    fn the_linear_fit_lowers_the_loss_and_writes_tables() {
        // Labels from a known linear truth: the placement of the knights
        // is all that differs from the start weights (a knight on the
        // rim 40 cp worse in the opening); the fit must find that
        // direction and lower the loss on fitted and held-out positions.
        let v = Variant::from_spec("chess").unwrap();
        let mut truth = EvalWeights::for_variant(&v);
        let rim: Vec<f64> = (0..64)
            .map(|c| {
                let (r, f) = (v.geometry.coord(c, 0), v.geometry.coord(c, 1));
                if r == 0 || r == 7 || f == 0 || f == 7 {
                    -40.0
                } else {
                    0.0
                }
            })
            .collect();
        truth.set_table("placement.N.opening", rim);
        let judge = Evaluator::with_weights(&v, EvalConfig::FULL, &truth);
        let mut scratch = EvalScratch::default();
        let samples: Vec<Sample> = random_positions(&v, 60, 3)
            .into_iter()
            .map(|pos| {
                let e = judge.evaluate_for(&pos, &mut scratch, Seat::FIRST) as f64;
                Sample {
                    points: expected(e, 1.0),
                    pos,
                }
            })
            .collect();
        let start = EvalWeights::for_variant(&v);
        let opts = LinearOptions {
            iterations: 300,
            rate: 2.0,
            ridge: 0.0,
        };
        let mut rounds = 0;
        let r = tune_linear(&v, &samples, start, &opts, &mut |_| rounds += 1).unwrap();
        assert_eq!(rounds, 6);
        assert!(
            r.end_loss < r.start_loss * 0.5,
            "{} -> {}",
            r.start_loss,
            r.end_loss
        );
        assert!(
            r.end_held_out < r.start_held_out,
            "{} -> {}",
            r.start_held_out,
            r.end_held_out
        );
        let n = r
            .weights
            .table("placement.N.opening")
            .expect("a knight table");
        let cell = |name: &str| v.geometry.parse_cell(name).unwrap();
        assert!(n[cell("a4")] < n[cell("d4")] - 10.0, "{n:?}");
    }

    #[test]
    fn the_expected_points_follow_the_logistic_curve() {
        // 1 / (1 + 10^(-K e / 400)): even at 0, 10:1 odds at K e = 400.
        assert!((expected(0.0, 1.0) - 0.5).abs() < 1e-12);
        assert!((expected(400.0, 1.0) - 10.0 / 11.0).abs() < 1e-12);
        assert!((expected(-200.0, 2.0) - 1.0 / 11.0).abs() < 1e-12);
    }
}
