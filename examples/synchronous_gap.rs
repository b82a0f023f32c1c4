//! Synchronous chess: what a sequential player's pure decision gives away
//! against the equilibrium, position by position (issue 10, acceptance
//! 4). At a simultaneous turn searched `d` turns deep, the equilibrium
//! (value `v`, strategies `p` for White and `q` for Black) holds every
//! White decision `r` to `u(r, q) = Σ q_j u(r, c_j) ≤ v`, so a White
//! that plays `r` against an equilibrium Black loses `v − u(r, q) ≥ 0`
//! in expectation (Black symmetrically). That loss is all that playing
//! the equilibrium can win from the pure decision at this turn, whatever
//! the equilibrium player does. The example measures it for the
//! first-mover view (pure maximin) and the second-mover view (the best
//! answer to the opponent's maximin), each seat's, at depths 1..=D, on
//! the main-phase positions of games between the equilibrium and the
//! first-mover view.
//!
//! ```text
//! cargo run --release --example synchronous_gap -- \
//!     [--games 20] [--every 4] [--depth 2] [--play-nodes 3000] [--seed 1] \
//!     [--variant synchronous] [--max-turns 120]
//! ```
//!
//! Each line: game, turn, depth, the equilibrium's value, the maximin
//! (White first) and minimax (Black first) values, then the losses of
//! White's and Black's first-mover and second-mover decisions in
//! centipawns. Positions whose value is beyond ±3,000 (decided games)
//! are counted but left out of the summary. The summary gives, per
//! depth, the mean loss per decision with each loss capped at 200
//! centipawns (a decision that walks into mate would otherwise weigh as
//! a thousand ordinary ones) and the shares of decisions losing more
//! than 1, 50 and 200 centipawns. Progress goes to stderr.

use ndchess::board::seating::{Phase, Seat};
use ndchess::board::variant::Variant;
use ndchess::rules::moves::{Decision, JointDecision};
use ndchess::rules::position::Position;
use ndchess::search::SearchControl;
use ndchess::search::simultaneous::{SimLimits, SimResult, SimSearcher, Strategy};
use ndchess::search::{Engine, EngineOptions};
use rand::SeedableRng;
use rand::rngs::SmallRng;

/// The command line (see the module documentation).
#[derive(clap::Parser)]
struct Args {
    /// Games between the equilibrium and the first-mover view.
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// Measure every this many turns of a game.
    #[arg(long, default_value_t = 4, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    every: usize,
    /// Deepest search measured (depths 1 to this).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=4))]
    depth: u32,
    /// Nodes per decision of the games' own play.
    #[arg(long, default_value_t = 3000, value_parser = clap::value_parser!(u64).range(1..))]
    play_nodes: u64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "synchronous")]
    variant: String,
    #[arg(long, default_value_t = 120)]
    max_turns: usize,
}

/// A fresh searcher of `strategy` for `me`.
fn searcher(
    eval: &std::sync::Arc<ndchess::eval::Evaluator>,
    strategy: Strategy,
    me: Seat,
) -> SimSearcher {
    let mut s = SimSearcher::new(eval.clone(), 1);
    s.set_strategy(strategy, me);
    s
}

/// The search of `pos` to exactly `depth` turns with a fresh searcher.
fn solve(
    eval: &std::sync::Arc<ndchess::eval::Evaluator>,
    pos: &Position,
    strategy: Strategy,
    me: Seat,
    depth: u32,
) -> Option<SimResult> {
    let limits = SimLimits {
        depth: Some(depth),
        ..SimLimits::default()
    };
    searcher(eval, strategy, me).search(pos, &limits, &SearchControl::new(), &mut |_| {})
}

/// The pure decision of `seat` in a sequential view's result.
fn pure(r: &SimResult, seat: Seat) -> Option<Decision> {
    r.strategy(seat).and_then(|s| s.first()).map(|d| d.decision)
}

/// Losses (centipawns, ≥ 0 up to the search's tolerance) of White's and
/// Black's decisions `rw`, `rb` against the equilibrium `eq` of depth
/// `depth`.
fn losses(
    eval: &std::sync::Arc<ndchess::eval::Evaluator>,
    pos: &Position,
    eq: &SimResult,
    rw: Decision,
    rb: Decision,
    depth: u32,
) -> Option<(f64, f64)> {
    let mut u = searcher(eval, Strategy::Equilibrium, Seat::FIRST);
    let black = eq.strategy(Seat::new(1))?;
    let white = eq.strategy(Seat::FIRST)?;
    let mut against_q = 0.0;
    for c in black {
        against_q += c.probability * u.joint_value(pos, rw, c.decision, depth)?;
    }
    let mut against_p = 0.0;
    for r in white {
        against_p += r.probability * u.joint_value(pos, r.decision, rb, depth)?;
    }
    Some((eq.value - against_q, against_p - eq.value))
}

/// The losses of one depth, over the positions kept.
#[derive(Default, Clone)]
struct Tally {
    positions: usize,
    decided: usize,
    /// Per decision kind (White's and Black's first-mover decisions,
    /// White's and Black's second-mover decisions): each kept position's
    /// loss.
    losses: [Vec<f64>; 4],
    /// Positions whose equilibrium is mixed for some seat.
    mixed: usize,
}

impl Tally {
    /// Mean loss with each loss capped at `cap` (a walk into mate counts
    /// as `cap`, not as a hundred thousand), and the shares of losses
    /// above 1, 50 and 200 centipawns, of decision kind `k`.
    fn line(&self, k: usize, cap: f64) -> String {
        let l = &self.losses[k];
        let n = l.len().max(1) as f64;
        let share = |t: f64| 100.0 * l.iter().filter(|&&x| x > t).count() as f64 / n;
        format!(
            "{:.1} cp ({:.1} % > 1, {:.1} % > 50, {:.1} % > 200)",
            l.iter().map(|x| x.min(cap)).sum::<f64>() / n,
            share(1.0),
            share(50.0),
            share(200.0)
        )
    }
}

fn main() {
    let run = || -> Result<(), String> {
        let a = <Args as clap::Parser>::parse();
        let v = Variant::from_spec(&a.variant).map_err(|e| e.to_string())?;
        let eval = Engine::new(EngineOptions::default()).evaluator(&v);
        let (white, black) = (Seat::FIRST, Seat::new(1));
        let mut tallies = vec![Tally::default(); a.depth as usize];
        println!(
            "game turn depth value maximin minimax loss_w_first loss_b_first loss_w_second loss_b_second"
        );
        for g in 0..a.games {
            let mut rng = SmallRng::seed_from_u64(a.seed.wrapping_mul(1_000_003) + g as u64);
            let mut pos = Position::after_random_joint_decisions(&v, 2, &mut rng)
                .unwrap_or_else(|| Position::start(&v));
            // The equilibrium plays White in even games, Black in odd ones.
            let eq_seat = Seat::new(g % 2);
            let fm_seat = if eq_seat == white { black } else { white };
            let mut players = [
                SimSearcher::new(eval.clone(), a.seed ^ (g as u64) << 8),
                searcher(&eval, Strategy::FirstMover, fm_seat),
            ];
            let play_limits = SimLimits {
                nodes: Some(a.play_nodes),
                ..SimLimits::default()
            };
            for turn in 0..a.max_turns {
                if pos.outcome().is_some() {
                    break;
                }
                if pos.phase() == Phase::Main && turn >= 2 && turn % a.every == 0 {
                    for d in 1..=a.depth {
                        let Some(eq) = solve(&eval, &pos, Strategy::Equilibrium, white, d) else {
                            break;
                        };
                        let t = &mut tallies[d as usize - 1];
                        t.positions += 1;
                        if eq.value.abs() > 3000.0 {
                            t.decided += 1;
                            continue;
                        }
                        let fw = solve(&eval, &pos, Strategy::FirstMover, white, d)
                            .ok_or("no first-mover result")?;
                        let fb = solve(&eval, &pos, Strategy::FirstMover, black, d)
                            .ok_or("no first-mover result")?;
                        let sw = solve(&eval, &pos, Strategy::SecondMover, white, d)
                            .ok_or("no second-mover result")?;
                        let sb = solve(&eval, &pos, Strategy::SecondMover, black, d)
                            .ok_or("no second-mover result")?;
                        let need = |r: &SimResult, s: Seat| pure(r, s).ok_or("no pure decision");
                        let (lw_f, lb_f) =
                            losses(&eval, &pos, &eq, need(&fw, white)?, need(&fb, black)?, d)
                                .ok_or("a decision not in the position")?;
                        let (lw_s, lb_s) =
                            losses(&eval, &pos, &eq, need(&sw, white)?, need(&sb, black)?, d)
                                .ok_or("a decision not in the position")?;
                        for (k, l) in [lw_f, lb_f, lw_s, lb_s].into_iter().enumerate() {
                            t.losses[k].push(l);
                        }
                        let mixed = [white, black]
                            .iter()
                            .any(|&s| eq.strategy(s).is_some_and(|x| x.len() > 1));
                        if mixed {
                            t.mixed += 1;
                        }
                        println!(
                            "{g} {turn} {d} {:.1} {:.1} {:.1} {:.1} {:.1} {:.1} {:.1}",
                            eq.value, fw.value, fb.value, lw_f, lb_f, lw_s, lb_s
                        );
                    }
                }
                // The next turn: each player decides for its seat.
                let mut joint = JointDecision::new(v.seat_count());
                let results: Vec<Option<SimResult>> = players
                    .iter_mut()
                    .map(|p| p.search(&pos, &play_limits, &SearchControl::new(), &mut |_| {}))
                    .collect();
                for option in pos.seat_options() {
                    let k = usize::from(option.seat != eq_seat);
                    let chosen = results[k]
                        .as_ref()
                        .and_then(|r| players[k].choose(r, option.seat));
                    let d = chosen
                        .or_else(|| option.decisions.first().copied())
                        .ok_or("a seat without a decision")?;
                    joint.set(option.seat, d);
                }
                pos.make_joint(&joint).map_err(|e| e.to_string())?;
            }
            eprintln!("synchronous_gap: game {}/{} done", g + 1, a.games);
        }
        for (k, t) in tallies.iter().enumerate() {
            println!(
                "depth {}: {} positions ({} decided, left out; {} of the rest mixed); \
                 mean loss per decision, each capped at 200 cp: first mover White {}, Black {}; \
                 second mover White {}, Black {}",
                k + 1,
                t.positions,
                t.decided,
                t.mixed,
                t.line(0, 200.0),
                t.line(1, 200.0),
                t.line(2, 200.0),
                t.line(3, 200.0)
            );
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("synchronous_gap: {e}");
        std::process::exit(2);
    }
}
