//! Self-play match harness: two engine configurations play each other from
//! varied openings, colours swapped for every opening; prints W/D/L and the
//! Elo difference with its 95 % confidence interval.
//!
//! ```text
//! cargo run --release --example match -- --variant chess --games 100 \
//!     --a depth=4 --b depth=3 [--opening-plies 4] [--seed 1] [--max-plies 300]
//! ```
//!
//! A configuration is a comma-separated list of `depth=N`, `nodes=N`,
//! `movetime=MS` (per move), `threads=T`, `hash=MB` and `eval=full|material`.
//! Openings: `--opening-plies` random legal plies from the start position
//! (seeded), each played twice with the colours exchanged. A game reaching
//! `--max-plies` is adjudicated a draw (counted separately). Scores follow
//! the rules: a cube stalemate win counts ¾. Progress goes to stderr.
//!
//! This is the harness of issue "Search and evaluation"; the full arbiter
//! (external engines, clocks, PGN, SPRT) is a separate tool.

use std::time::Duration;

use ndchess::board::seating::BySeat;
use ndchess::board::variant::Variant;
use ndchess::eval::EvalConfig;
use ndchess::game::{DriverOptions, EnginePlayer, Game, GameEnd, run};
use ndchess::rules::position::Position;
use ndchess::search::{EngineOptions, Limits};
use rand::{RngExt, SeedableRng};

#[derive(Clone, Debug)]
struct Config {
    text: String,
    limits: Limits,
    options: EngineOptions,
}

fn parse_config(text: &str) -> Result<Config, String> {
    let mut limits = Limits::default();
    let mut options = EngineOptions::default();
    for item in text.split(',').filter(|s| !s.is_empty()) {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| format!("expected key=value, got '{item}'"))?;
        let num = || {
            v.parse::<u64>()
                .map_err(|_| format!("bad number '{v}' for {k}"))
        };
        match k {
            "depth" => limits.depth = Some(num()? as u32),
            "nodes" => limits.nodes = Some(num()?),
            "movetime" => limits.movetime = Some(Duration::from_millis(num()?)),
            "threads" => options.threads = num()? as usize,
            "hash" => options.hash_mb = num()? as usize,
            "eval" => {
                options.eval = match v {
                    "full" => EvalConfig::FULL,
                    "material" => EvalConfig::MATERIAL,
                    _ => return Err(format!("eval is full or material, not '{v}'")),
                }
            }
            _ => return Err(format!("unknown key '{k}'")),
        }
    }
    if limits.depth.is_none() && limits.nodes.is_none() && limits.movetime.is_none() {
        return Err(format!(
            "configuration '{text}' sets no depth, nodes or movetime"
        ));
    }
    Ok(Config {
        text: text.to_string(),
        limits,
        options,
    })
}

/// The command line (see the module documentation).
#[derive(clap::Parser)]
struct Args {
    #[arg(long, default_value = "chess")]
    variant: String,
    /// Games in all (pairs of games with the colours exchanged).
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// Engine A's configuration.
    #[arg(long = "a", value_parser = parse_config)]
    a: Config,
    /// Engine B's configuration.
    #[arg(long = "b", value_parser = parse_config)]
    b: Config,
    /// Random legal plies of each opening.
    #[arg(long, default_value_t = 4)]
    opening_plies: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Plies after which a game is adjudicated a draw.
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
}

/// Plays one game from `start` with `white` on the first seat; returns
/// the first seat's score and whether the game was adjudicated.
fn play(
    start: &Position,
    white: &mut EnginePlayer,
    black: &mut EnginePlayer,
    max_plies: usize,
) -> (f64, bool) {
    let mut game = Game::new(start.clone());
    let options = DriverOptions {
        max_plies: Some(max_plies),
        ..DriverOptions::default()
    };
    let seats = BySeat::from_vec(vec![0, 1]);
    let end = run(
        &mut game,
        &mut [white, black],
        &seats,
        &options,
        &mut |_| {},
    );
    let adjudicated = matches!(end, GameEnd::Adjudicated { .. });
    (end.outcome().points.values()[0].value(), adjudicated)
}

/// Elo difference for a score fraction, an all-or-nothing score held
/// just inside (0, 1) so it prints as a large finite difference. An even
/// score gives −0.0, which `+ 0.0` turns into 0.0 (so it prints "+0").
fn elo(score: f64) -> f64 {
    ndchess::arbiter::stats::score_to_elo(score.clamp(1e-6, 1.0 - 1e-6))
        .expect("a score clamped into (0, 1) has an Elo difference")
        + 0.0
}

fn main() {
    let args = <Args as clap::Parser>::parse();
    let v = match Variant::from_spec(&args.variant) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(args.seed);
    let mut a = EnginePlayer::new(&args.a.text, args.a.options, args.a.limits.clone());
    let mut b = EnginePlayer::new(&args.b.text, args.b.options, args.b.limits.clone());
    let mut scores: Vec<f64> = Vec::new();
    let (mut wins, mut draws, mut losses, mut adjudicated) = (0, 0, 0, 0);
    let mut opening = Position::start(&v);
    for game in 0..args.games {
        if game % 2 == 0 {
            // A new opening: random plies, redrawn if the game ends in it.
            loop {
                opening = Position::start(&v);
                for _ in 0..args.opening_plies {
                    let moves = opening.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    opening.make(moves[rng.random_range(0..moves.len())]);
                }
                if opening.outcome().is_none() {
                    break;
                }
            }
        }
        let a_white = game % 2 == 0;
        let (s, adj) = if a_white {
            play(&opening, &mut a, &mut b, args.max_plies)
        } else {
            let (s, adj) = play(&opening, &mut b, &mut a, args.max_plies);
            (1.0 - s, adj)
        };
        if adj {
            adjudicated += 1;
        }
        if s > 0.5 {
            wins += 1;
        } else if s < 0.5 {
            losses += 1;
        } else {
            draws += 1;
        }
        scores.push(s);
        let mean = scores.iter().sum::<f64>() / scores.len() as f64;
        eprintln!(
            "game {:>4}: A {} score {s:.2}  total +{wins} ={draws} -{losses}  ({:.1} %, Elo {:+.0})",
            game + 1,
            if a_white { "white" } else { "black" },
            100.0 * mean,
            elo(mean)
        );
    }
    let n = scores.len() as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let var = scores.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    let se = (var / n).sqrt();
    let (lo, hi) = (elo(mean - 1.96 * se), elo(mean + 1.96 * se));
    println!(
        "variant {}  A = {}  B = {}",
        v.spec, args.a.text, args.b.text
    );
    println!(
        "games {}  A: +{wins} ={draws} -{losses}  (adjudicated draws {adjudicated})  score {:.1} %",
        scores.len(),
        100.0 * mean
    );
    println!(
        "Elo A - B: {:+.0}  95 % interval [{:+.0}, {:+.0}] (±{:.0})",
        elo(mean),
        lo,
        hi,
        (hi - lo) / 2.0
    );
}
