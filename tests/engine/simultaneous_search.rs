//! The simultaneous-move search against full backward induction: every
//! node's whole matrix (each pair of the two seats' choices) searched
//! without windows or pruning and solved as a matrix game, written here
//! from the definition of the value the search claims to compute
//! (docs/engine.md, "Synchronous chess"): leaves at depth 0 of a main
//! phase take the static evaluation from White's side, game ends score
//! a win as `WIN` less the turns it took, exchange phases do not use
//! depth. The double oracle with its windows, table and seeds must
//! reach the same value (to the search's tolerance of half a centipawn
//! per node), and the sequential views their nested maximin values.

use std::sync::Arc;

use ndchess::board::seating::{Phase, Seat};
use ndchess::board::variant::Variant;
use ndchess::eval::{EvalScratch, Evaluator};
use ndchess::rules::moves::JointDecision;
use ndchess::rules::outcome::Outcome;
use ndchess::rules::position::Position;
use ndchess::search::matrix_game;
use ndchess::search::simultaneous::{SimLimits, SimSearcher, Strategy, WIN};
use ndchess::search::{Engine, EngineOptions, SearchControl};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// The three ways a node's matrix is reduced to its value, in the
/// order of [`backward`]'s answer.
const EQUILIBRIUM: usize = 0;
/// White chooses first and Black answers seeing it (max of mins).
const WHITE_FIRST: usize = 1;
/// Black chooses first (min of maxes).
const BLACK_FIRST: usize = 2;

fn terminal(o: &Outcome, ply: u32) -> f64 {
    if o.is_draw() {
        0.0
    } else {
        (o.points[Seat::FIRST].value() - 0.5) * 2.0 * (WIN - ply as f64)
    }
}

/// The values of `pos` (White's view) `depth` turns deep, every child
/// searched: the simultaneous game's, and the two serialized games'
/// (indexed by [`EQUILIBRIUM`], [`WHITE_FIRST`], [`BLACK_FIRST`]).
fn backward(
    pos: &mut Position,
    depth: u32,
    ply: u32,
    eval: &Evaluator,
    scratch: &mut EvalScratch,
) -> [f64; 3] {
    let static_value =
        |pos: &Position, s: &mut EvalScratch| eval.evaluate_for(pos, s, Seat::FIRST) as f64;
    let main = pos.phase() == Phase::Main;
    if depth == 0 && main {
        let checked = pos
            .variant()
            .seating
            .all()
            .iter()
            .any(|s| pos.seat_in_check(s));
        let end = if checked || !pos.out().is_empty() {
            pos.outcome()
        } else {
            pos.rule_draw()
        };
        return [match end {
            Some(o) => terminal(&o, ply),
            None => static_value(pos, scratch),
        }; 3];
    }
    let options = pos.seat_options();
    if options.len() != 2 || options.iter().any(|o| o.decisions.is_empty()) {
        return [match pos.outcome() {
            Some(o) => terminal(&o, ply),
            None => static_value(pos, scratch),
        }; 3];
    }
    if let Some(o) = pos.rule_draw() {
        return [terminal(&o, ply); 3];
    }
    let (white, black) = (&options[0], &options[1]);
    let seats = pos.variant().seat_count();
    let mut a = vec![vec![vec![0.0; black.decisions.len()]; white.decisions.len()]; 3];
    for (i, &r) in white.decisions.iter().enumerate() {
        for (j, &c) in black.decisions.iter().enumerate() {
            let mut joint = JointDecision::new(seats);
            joint.set(white.seat, r);
            joint.set(black.seat, c);
            pos.make_joint_listed(&joint);
            let child_depth = if main { depth - 1 } else { depth };
            let values = backward(pos, child_depth, ply + u32::from(main), eval, scratch);
            for (m, value) in a.iter_mut().zip(values) {
                m[i][j] = value;
            }
            pos.unmake();
        }
    }
    let white_first = &a[WHITE_FIRST];
    let black_first = &a[BLACK_FIRST];
    [
        matrix_game::solve(&a[EQUILIBRIUM]).value,
        white_first
            .iter()
            .map(|row| row.iter().copied().fold(f64::INFINITY, f64::min))
            .fold(f64::NEG_INFINITY, f64::max),
        (0..black_first[0].len())
            .map(|j| {
                black_first
                    .iter()
                    .map(|row| row[j])
                    .fold(f64::NEG_INFINITY, f64::max)
            })
            .fold(f64::INFINITY, f64::min),
    ]
}

/// The searcher's root value for `strategy` played by `me`.
fn searched(
    pos: &Position,
    eval: &Arc<Evaluator>,
    strategy: Strategy,
    me: Seat,
    depth: u32,
) -> f64 {
    let mut s = SimSearcher::new(eval.clone(), 1);
    s.set_strategy(strategy, me);
    let limits = SimLimits {
        depth: Some(depth),
        ..SimLimits::default()
    };
    s.search(pos, &limits, &SearchControl::new(), &mut |_| {})
        .expect("a position in play")
        .value
}

fn agree(spec: &str, positions: usize, turns: std::ops::Range<usize>, depth: u32, seed: u64) {
    let v = Variant::from_spec(spec).expect("built-in");
    let eval = Engine::new(EngineOptions::default()).evaluator(&v);
    let mut scratch = EvalScratch::default();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut mixed = 0;
    for k in 0..positions {
        let t = rng.random_range(turns.clone());
        let mut pos = Position::after_random_joint_decisions(&v, t, &mut rng)
            .expect("random lines that leave the game on");
        let text = pos.to_text();
        let values = backward(&mut pos, depth, 0, &eval, &mut scratch);
        let cases = [
            (EQUILIBRIUM, Strategy::Equilibrium, Seat::FIRST),
            (WHITE_FIRST, Strategy::FirstMover, Seat::FIRST),
            (BLACK_FIRST, Strategy::FirstMover, Seat::new(1)),
            (BLACK_FIRST, Strategy::SecondMover, Seat::FIRST),
            (WHITE_FIRST, Strategy::SecondMover, Seat::new(1)),
        ];
        for (solve, strategy, me) in cases {
            let want = values[solve];
            let got = searched(&pos, &eval, strategy, me, depth);
            // Half a centipawn per matrix the double oracle solves on the
            // way; the serialized search is exact.
            assert!(
                (want - got).abs() <= 2.0 * depth as f64,
                "{spec} #{k} {text}: {strategy:?} for {me:?} searched {got}, backward induction {want}"
            );
            if solve == EQUILIBRIUM && want.fract().abs() > 1e-6 {
                mixed += 1;
            }
        }
    }
    // The comparison means something only if some roots are mixed games.
    assert!(mixed > 0, "{spec}: no position with a mixed value");
}

#[test]
fn depth_one_values_equal_backward_induction_on_chess() {
    agree("synchronous", 60, 2..14, 1, 1);
}

#[test]
fn depth_two_values_equal_backward_induction_on_chess() {
    agree("synchronous", 4, 2..10, 2, 2);
}

#[test]
fn depth_one_values_equal_backward_induction_on_the_cube() {
    agree("synchronous:base=cube", 20, 2..10, 1, 3);
}

/// `SimSearcher::joint_value`, the entry of a root's matrix that the
/// gap measurement (examples/synchronous_gap.rs) weighs strategies with,
/// is the child's value one turn shallower: backward induction of the
/// position after the pair, for every pair of a few positions at depth 1
/// and a corner of the matrix at depth 2; a decision that is not the
/// seat's own choice is refused.
#[test]
fn joint_values_equal_backward_induction_of_the_child() {
    let v = Variant::from_spec("synchronous").expect("built-in");
    let eval = Engine::new(EngineOptions::default()).evaluator(&v);
    let mut scratch = EvalScratch::default();
    let mut rng = SmallRng::seed_from_u64(4);
    let mut asked = 0;
    for (depth, positions, corner) in [(1, 6, usize::MAX), (2, 2, 3)] {
        for k in 0..positions {
            let t = rng.random_range(2..10);
            let mut pos = Position::after_random_joint_decisions(&v, t, &mut rng)
                .expect("random lines that leave the game on");
            let text = pos.to_text();
            let options = pos.seat_options();
            let (white, black) = (&options[0], &options[1]);
            for &r in white.decisions.iter().take(corner) {
                for &c in black.decisions.iter().take(corner) {
                    let mut joint = JointDecision::new(v.seat_count());
                    joint.set(white.seat, r);
                    joint.set(black.seat, c);
                    pos.make_joint_listed(&joint);
                    // A main-phase turn: the child is one turn shallower,
                    // one turn later.
                    let want = backward(&mut pos, depth - 1, 1, &eval, &mut scratch)[EQUILIBRIUM];
                    pos.unmake();
                    let got = SimSearcher::new(eval.clone(), 1)
                        .joint_value(&pos, r, c, depth)
                        .expect("the seats' own choices");
                    assert!(
                        (want - got).abs() <= 2.0 * depth as f64,
                        "#{k} {text}: {r:?} against {c:?} at depth {depth}: {got}, backward induction {want}"
                    );
                    asked += 1;
                }
            }
            let r = white.decisions[0];
            assert_eq!(
                SimSearcher::new(eval.clone(), 1).joint_value(&pos, r, r, depth),
                None,
                "#{k} {text}: White's decision {r:?} taken as Black's"
            );
        }
    }
    assert!(asked > 100, "only {asked} pairs compared");
}
