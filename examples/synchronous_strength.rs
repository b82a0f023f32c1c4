//! Synchronous chess: the simultaneous-move search against the sequential
//! search playing the same game as if it moved first, and as if it moved
//! second (issue 10, acceptance 4). Both sides get the same node budget
//! per decision; openings are random joint decisions (seeded), each played
//! twice with the seats exchanged; games reaching `--max-turns` steps are
//! adjudicated draws. Prints W/D/L from the simultaneous search's point of
//! view with the Elo difference and its 95 % interval, then the share of
//! each side's decisions searched to each depth (from the record's
//! notes).
//!
//! ```text
//! cargo run --release --example synchronous_strength -- \
//!     [--games 200] [--nodes 3000] [--opening 2] [--max-turns 200] [--seed 1] \
//!     [--variant synchronous] [--only first|second] [--depth D] \
//!     [--resign CP] [--draw CP] [--first K]
//! cargo run --release --example synchronous_strength -- --tally FILE[,FILE…]
//! ```
//!
//! Each game prints a line as it ends (`game <index> <baseline> <points>
//! <steps> sim=<decisions per depth 0,1,2,…> seq=<…>`). Games follow
//! their index (the opening of pair `index / 2`, the seats exchanged
//! within a pair, the engines' seeds), so a run can be split: `--first K
//! --games N` plays games K..K+N exactly as one longer run would, on
//! other machines or at another time, and `--tally` sums the lines of
//! such shards (or of a run that was stopped) into the same summary.
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

/// The command line (see the module documentation).
#[derive(clap::Parser)]
struct Args {
    /// Games in all (pairs of games with the seats exchanged).
    #[arg(long, default_value_t = 200)]
    games: usize,
    /// Nodes per decision, both sides alike (0: no node budget).
    #[arg(long, default_value_t = 3000)]
    nodes: u64,
    /// A depth limit for both sides (0: none).
    #[arg(long, default_value_t = 0)]
    depth: u32,
    /// Random joint decisions of each opening.
    #[arg(long, default_value_t = 2)]
    opening: usize,
    /// Steps after which a game is adjudicated a draw.
    #[arg(long, default_value_t = 200)]
    max_turns: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "synchronous")]
    variant: String,
    /// Only this baseline; both when absent.
    #[arg(long, value_parser = ["first", "second"])]
    only: Option<String>,
    /// Resignation threshold in centipawns (0: no resignation).
    #[arg(long, default_value_t = 0)]
    resign: u64,
    /// Draw adjudication margin in centipawns (0: none).
    #[arg(long, default_value_t = 0)]
    draw: u64,
    /// The index of the first game (a run split into shards plays the
    /// same games as one run: openings and seeds follow the index).
    #[arg(long, default_value_t = 0)]
    first: usize,
    /// Files of per-game lines to sum instead of playing.
    #[arg(long, value_delimiter = ',')]
    tally: Vec<String>,
}

/// The start after `turns` random joint decisions (seeded).
fn opening(v: &std::sync::Arc<Variant>, turns: usize, seed: u64) -> Position {
    let mut rng = SmallRng::seed_from_u64(seed);
    Position::after_random_joint_decisions(v, turns, &mut rng).unwrap_or_else(|| Position::start(v))
}

/// The depths each side's searches finished in one game, read from the
/// record's notes (`white: <score> depth D nodes N; black: …`):
/// `[simultaneous, sequential]`, depth `d` counted at index `d`.
type DepthCounts = [Vec<usize>; 2];

fn depths_of(g: &Game, v: &Variant, sim_seat: Seat) -> DepthCounts {
    let sim_name = format!("{}: ", v.seating.name(sim_seat));
    let mut counts: DepthCounts = [Vec::new(), Vec::new()];
    for ply in g.plies() {
        let Some(note) = &ply.note else { continue };
        for part in note.split("; ") {
            let side = usize::from(!part.starts_with(&sim_name));
            let depth = part
                .split_whitespace()
                .skip_while(|w| *w != "depth")
                .nth(1)
                .and_then(|d| d.parse::<usize>().ok());
            if let Some(d) = depth {
                if counts[side].len() <= d {
                    counts[side].resize(d + 1, 0);
                }
                counts[side][d] += 1;
            }
        }
    }
    counts
}

/// One game: the simultaneous search on `seat`, the baseline on the other;
/// the simultaneous search's points (0, ½, 1), the steps played and the
/// depths each side finished.
fn game(
    a: &Args,
    v: &std::sync::Arc<Variant>,
    start: &Position,
    baseline: Strategy,
    sim_seat: Seat,
    seed: u64,
) -> (f64, usize, DepthCounts) {
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
    (
        end.outcome().points[sim_seat].value(),
        g.plies().len(),
        depths_of(&g, v, sim_seat),
    )
}

/// One game's line on stdout: `game <index> <baseline> <points> <steps>
/// sim=<decisions at depth 0,1,2,…> seq=<…>` (what `--tally` reads back).
fn game_line(i: usize, key: &str, p: f64, steps: usize, depths: &DepthCounts) -> String {
    let list = |c: &Vec<usize>| {
        c.iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        "game {i} {key} {p} {steps} sim={} seq={}",
        list(&depths[0]),
        list(&depths[1])
    )
}

/// Reads a line of [`game_line`]: (index, baseline, points, depths).
fn parse_game_line(line: &str) -> Option<(usize, String, f64, DepthCounts)> {
    let w: Vec<&str> = line.split_whitespace().collect();
    if w.len() != 7 || w[0] != "game" {
        return None;
    }
    let list = |s: &str, tag: &str| -> Option<Vec<usize>> {
        let body = s.strip_prefix(tag)?;
        if body.is_empty() {
            return Some(Vec::new());
        }
        body.split(',').map(|n| n.parse().ok()).collect()
    };
    Some((
        w[1].parse().ok()?,
        w[2].to_string(),
        w[3].parse().ok()?,
        [list(w[5], "sim=")?, list(w[6], "seq=")?],
    ))
}

/// Prints W/D/L, score and Elo with its 95 % interval, then each side's
/// share of decisions per depth.
fn summary(title: &str, results: Vec<(f64, DepthCounts)>) {
    let mut wdl = Wdl::default();
    let mut depths: DepthCounts = [Vec::new(), Vec::new()];
    for (p, game_depths) in results {
        for (all, one) in depths.iter_mut().zip(game_depths) {
            if all.len() < one.len() {
                all.resize(one.len(), 0);
            }
            for (d, n) in one.into_iter().enumerate() {
                all[d] += n;
            }
        }
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
        "{title}: +{} ={} -{} score {:.3} Elo {elo} +- {err} (95 %)",
        wdl.wins,
        wdl.draws,
        wdl.losses,
        wdl.score().unwrap_or(0.5)
    );
    // The share of decisions at each depth, per side.
    for (side, counts) in ["simultaneous", "sequential"].iter().zip(&depths) {
        let total: usize = counts.iter().sum();
        let shares: Vec<String> = counts
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(d, n)| format!("depth {d} {:.1} %", 100.0 * *n as f64 / total.max(1) as f64))
            .collect();
        println!("  {side}: {total} decisions, {}", shares.join(", "));
    }
}

/// `--tally`: the summary of the per-game lines in `files`, per baseline.
fn tally(files: &[String]) -> Result<(), String> {
    let mut by_key: Vec<(String, Vec<(f64, DepthCounts)>)> = Vec::new();
    // Shards that overlap would count a game twice.
    let mut seen = std::collections::HashSet::new();
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{f}: {e}"))?;
        for line in text.lines().filter(|l| l.starts_with("game ")) {
            let (i, key, p, d) = parse_game_line(line).ok_or(format!("{f}: bad line {line:?}"))?;
            if !seen.insert((key.clone(), i)) {
                return Err(format!("{f}: game {i} ({key}) is in the files twice"));
            }
            match by_key.iter_mut().find(|(k, _)| *k == key) {
                Some((_, r)) => r.push((p, d)),
                None => by_key.push((key, vec![(p, d)])),
            }
        }
    }
    if by_key.is_empty() {
        return Err("no game lines in the files".into());
    }
    for (key, results) in by_key {
        let n = results.len();
        summary(
            &format!("simultaneous vs sequential ({key}), {n} games from the files"),
            results,
        );
    }
    Ok(())
}

fn main() {
    let a = <Args as clap::Parser>::parse();
    if !a.tally.is_empty() {
        if let Err(e) = tally(&a.tally) {
            eprintln!("synchronous_strength: {e}");
            std::process::exit(2);
        }
        return;
    }
    let v = Variant::from_spec(&a.variant).unwrap_or_else(|e| {
        eprintln!("synchronous_strength: {e}");
        std::process::exit(2)
    });
    for (key, name, baseline) in [
        ("first", "as if it moved first", Strategy::FirstMover),
        ("second", "as if it moved second", Strategy::SecondMover),
    ] {
        if a.only.as_deref().is_some_and(|only| only != key) {
            continue;
        }
        let done = AtomicUsize::new(0);
        // Points so far, in half points (for the progress line).
        let half_points = AtomicUsize::new(0);
        // Steps played so far (the progress line's mean game length).
        let steps = AtomicUsize::new(0);
        let results: Vec<(f64, DepthCounts)> = (a.first..a.first + a.games)
            .into_par_iter()
            .map(|i| {
                let pair = (i / 2) as u64;
                let start = opening(&v, a.opening, a.seed.wrapping_mul(1_000_003) + pair);
                let sim_seat = Seat::new(i % 2);
                let (p, n, depths) =
                    game(&a, &v, &start, baseline, sim_seat, a.seed ^ (i as u64) << 8);
                println!("{}", game_line(i, key, p, n, &depths));
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
                (p, depths)
            })
            .collect();
        summary(
            &format!(
                "simultaneous vs sequential ({name}), {} nodes and depth {} per decision",
                a.nodes, a.depth
            ),
            results,
        );
    }
}
