//! Synchronous chess: the simultaneous-move search against the sequential
//! search playing the same game as if it moved first, and as if it moved
//! second (issue 10, acceptance 4). Both sides get the same node budget
//! per decision; openings are random joint decisions (seeded), each played
//! twice with the seats exchanged; games reaching `--max-turns` steps are
//! adjudicated draws. Prints W/D/L from the simultaneous search's point of
//! view with the Elo difference and its 95 % interval.
//!
//! ```text
//! cargo run --release --example synchronous_strength -- \
//!     [--games 200] [--nodes 3000] [--opening 2] [--max-turns 200] [--seed 1] \
//!     [--variant synchronous] [--only first|second] [--depth D] \
//!     [--resign CP] [--draw CP]
//! ```
//!
//! `--depth D` gives both sides the same depth (turns) instead of the same
//! nodes (`--nodes 0` lifts the node budget).
//!
//! Adjudication as tournament managers do it (off by default): `--resign
//! CP` ends a game when a side's own score was at or below −CP for 4
//! decisions in a row (cutechess-cli's `-resign movecount=4 score=CP`),
//! `--draw CP` when both sides' scores stayed within CP of zero for 10
//! decisions each from move 40 on (`-draw movenumber=40 movecount=10`).
//!
//! Games run in parallel on every core (rayon); progress goes to stderr.

use std::sync::atomic::{AtomicUsize, Ordering};

use ndchess::arbiter::stats::Wdl;
use ndchess::board::seating::{BySeat, Seat};
use ndchess::board::variant::Variant;
use ndchess::game::adjudication::{DrawRule, ResignRule};
use ndchess::game::{DriverOptions, EnginePlayer, Game, run};
use ndchess::rules::position::Position;
use ndchess::search::simultaneous::Strategy;
use ndchess::search::{EngineOptions, Limits};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rayon::prelude::*;

struct Args {
    games: usize,
    nodes: u64,
    /// A depth limit for both sides (0: none).
    depth: u32,
    opening: usize,
    max_turns: usize,
    seed: u64,
    variant: String,
    /// Only this baseline (`first` or `second`); both when empty.
    only: String,
    /// Resignation threshold in centipawns (0: no resignation).
    resign: u64,
    /// Draw adjudication margin in centipawns (0: none).
    draw: u64,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        games: 200,
        nodes: 3000,
        depth: 0,
        opening: 2,
        max_turns: 200,
        seed: 1,
        variant: "synchronous".into(),
        only: String::new(),
        resign: 0,
        draw: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let v = it.next().ok_or(format!("{k} needs a value"))?;
        let num = |v: &str| v.parse::<u64>().map_err(|e| format!("{k} {v}: {e}"));
        match k.as_str() {
            "--games" => a.games = num(&v)? as usize,
            "--nodes" => a.nodes = num(&v)?,
            "--depth" => a.depth = num(&v)? as u32,
            "--opening" => a.opening = num(&v)? as usize,
            "--max-turns" => a.max_turns = num(&v)? as usize,
            "--seed" => a.seed = num(&v)?,
            "--variant" => a.variant = v,
            "--only" => a.only = v,
            "--resign" => a.resign = num(&v)?,
            "--draw" => a.draw = num(&v)?,
            _ => return Err(format!("unknown argument {k}")),
        }
    }
    Ok(a)
}

/// The start after `turns` random joint decisions (seeded).
fn opening(v: &std::sync::Arc<Variant>, turns: usize, seed: u64) -> Position {
    let mut rng = SmallRng::seed_from_u64(seed);
    Position::after_random_joint_decisions(v, turns, &mut rng).unwrap_or_else(|| Position::start(v))
}

/// One game: the simultaneous search on `seat`, the baseline on the other;
/// the simultaneous search's points (0, ½, 1).
fn game(
    a: &Args,
    v: &std::sync::Arc<Variant>,
    start: &Position,
    baseline: Strategy,
    sim_seat: Seat,
    seed: u64,
) -> (f64, usize) {
    let limits = Limits {
        nodes: (a.nodes > 0).then_some(a.nodes),
        depth: (a.depth > 0).then_some(a.depth),
        ..Limits::default()
    };
    let options = EngineOptions {
        hash_mb: 32,
        ..EngineOptions::default()
    };
    let mut sim =
        EnginePlayer::new("simultaneous", options.clone(), limits.clone()).with_seed(seed);
    let mut seq = EnginePlayer::new("sequential", options, limits)
        .with_seed(seed ^ 0x5eed)
        .with_strategy(baseline);
    let mut g = Game::new(start.clone());
    let seats = BySeat::from_fn(v.seat_count(), |s| usize::from(s != sim_seat));
    let opts = DriverOptions {
        max_plies: Some(a.max_turns),
        resign_rule: (a.resign > 0).then(|| ResignRule {
            movecount: 4,
            score: i32::try_from(a.resign).unwrap_or(i32::MAX),
        }),
        draw_rule: (a.draw > 0).then(|| DrawRule {
            movenumber: 40,
            movecount: 10,
            score: i32::try_from(a.draw).unwrap_or(i32::MAX),
        }),
        ..DriverOptions::default()
    };
    let end = run(
        &mut g,
        &mut [&mut sim, &mut seq],
        &seats,
        &opts,
        &mut |_| {},
    );
    (end.outcome().points[sim_seat].value(), g.plies().len())
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("synchronous_strength: {e}");
            std::process::exit(2);
        }
    };
    let v = Variant::from_spec(&a.variant).unwrap_or_else(|e| {
        eprintln!("synchronous_strength: {e}");
        std::process::exit(2)
    });
    for (key, name, baseline) in [
        ("first", "as if it moved first", Strategy::FirstMover),
        ("second", "as if it moved second", Strategy::SecondMover),
    ] {
        if !a.only.is_empty() && a.only != key {
            continue;
        }
        let done = AtomicUsize::new(0);
        // Points so far, in half points (for the progress line).
        let half_points = AtomicUsize::new(0);
        // Steps played so far (the progress line's mean game length).
        let steps = AtomicUsize::new(0);
        let points: Vec<f64> = (0..a.games)
            .into_par_iter()
            .map(|i| {
                let pair = (i / 2) as u64;
                let start = opening(&v, a.opening, a.seed.wrapping_mul(1_000_003) + pair);
                let sim_seat = Seat::new(i % 2);
                let (p, n) = game(&a, &v, &start, baseline, sim_seat, a.seed ^ (i as u64) << 8);
                let all_steps = steps.fetch_add(n, Ordering::Relaxed) + n;
                let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                let half = half_points.fetch_add((2.0 * p).round() as usize, Ordering::Relaxed)
                    + (2.0 * p).round() as usize;
                if k.is_multiple_of(20) || k == a.games {
                    eprintln!(
                        "{name}: {k}/{} games, score {:.3}, {:.0} steps per game",
                        a.games,
                        half as f64 / (2.0 * k as f64),
                        all_steps as f64 / k as f64
                    );
                }
                p
            })
            .collect();
        let mut wdl = Wdl::default();
        for p in points {
            if p > 0.75 {
                wdl.wins += 1;
            } else if p < 0.25 {
                wdl.losses += 1;
            } else {
                wdl.draws += 1;
            }
        }
        let elo = wdl.elo().map_or("n/a".into(), |e| format!("{e:+.0}"));
        let err = wdl
            .elo_error_95()
            .map_or("n/a".into(), |e| format!("{e:.0}"));
        println!(
            "simultaneous vs sequential ({name}), {} nodes and depth {} per decision: +{} ={} -{} score {:.3} Elo {elo} +- {err} (95 %)",
            a.nodes,
            a.depth,
            wdl.wins,
            wdl.draws,
            wdl.losses,
            wdl.score().unwrap_or(0.5)
        );
    }
}
