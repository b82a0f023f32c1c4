//! Multi-party diamond chess: the three multi-player searches (paranoid,
//! best-reply search, max-n) against each other (issue 11, acceptance 4).
//!
//! For each pairing A–B, every game seats A on three of the six faces and
//! B on the other three; the 20 ways to choose three faces out of six are
//! played in turn, so over each block of 20 games each search sits on
//! every face equally often and in every neighbourhood of the turn order.
//! Each block starts from its own opening: every seat plays one random
//! legal move (seeded). Every seat gets the same node budget per move;
//! games reaching `--max-rounds` rounds are adjudicated draws (the seats
//! out keep their results). A game's figure is A's mean points per seat
//! minus B's; the report gives each search's mean points per seat and the
//! difference with its 95 % interval (normal approximation over games).
//!
//! ```text
//! cargo run --release --example multi_strength -- \
//!     [--games 60] [--nodes 4000] [--max-rounds 100] [--seed 1] \
//!     [--variant diamond:n=3,l=10,players=6] [--pair paranoid-brs]
//! ```
//!
//! Games run in parallel on every core (rayon); progress goes to stderr
//! (with `MULTI_STRENGTH_VERBOSE=1` also every game's result).

use std::sync::atomic::{AtomicUsize, Ordering};

use ndchess::board::seating::BySeat;
use ndchess::board::variant::Variant;
use ndchess::game::{DriverOptions, EnginePlayer, Game, run};
use ndchess::rules::position::Position;
use ndchess::search::multi::MultiAlgorithm;
use ndchess::search::{EngineOptions, Limits};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

/// The command line (see the module documentation).
#[derive(clap::Parser)]
struct Args {
    /// Games per pairing.
    #[arg(long, default_value_t = 60)]
    games: usize,
    /// Nodes per move, every seat alike.
    #[arg(long, default_value_t = 4000)]
    nodes: u64,
    /// Rounds after which a game is adjudicated a draw.
    #[arg(long, default_value_t = 100)]
    max_rounds: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value = "diamond:n=3,l=10,players=6")]
    variant: String,
    /// Only this pairing (`a-b`); all three when empty.
    #[arg(long, default_value = "")]
    pair: String,
}

/// The sets of seats (bit masks over `seats` seats) holding exactly half
/// of them, in increasing order.
fn halves(seats: usize) -> Vec<u32> {
    (0u32..1 << seats)
        .filter(|m| m.count_ones() as usize == seats / 2)
        .collect()
}

/// The start after one random legal move of each seat (seeded).
fn opening(v: &std::sync::Arc<Variant>, seed: u64) -> Position {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut pos = Position::start(v);
    for _ in 0..v.seat_count() {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.make(moves[rng.random_range(0..moves.len())]);
    }
    pos
}

/// One game: A on the seats of `mask`, B on the others. Returns A's and
/// B's mean points per seat.
fn game(
    a: &Args,
    v: &std::sync::Arc<Variant>,
    start: &Position,
    pair: (MultiAlgorithm, MultiAlgorithm),
    mask: u32,
) -> (f64, f64) {
    let limits = Limits {
        nodes: Some(a.nodes),
        ..Limits::default()
    };
    let options = EngineOptions {
        hash_mb: 16,
        ..EngineOptions::default()
    };
    let mut pa = EnginePlayer::new(pair.0.name(), options.clone(), limits.clone());
    pa.engine().set_multi_algorithm(pair.0);
    let mut pb = EnginePlayer::new(pair.1.name(), options, limits);
    pb.engine().set_multi_algorithm(pair.1);
    let mut g = Game::new(start.clone());
    let seats = BySeat::from_fn(v.seat_count(), |s| usize::from(mask & 1 << s.index() == 0));
    let opts = DriverOptions {
        max_plies: Some(a.max_rounds * v.seat_count()),
        ..DriverOptions::default()
    };
    let end = run(&mut g, &mut [&mut pa, &mut pb], &seats, &opts, &mut |_| {});
    let points = &end.outcome().points;
    if std::env::var_os("MULTI_STRENGTH_VERBOSE").is_some() {
        eprintln!(
            "game mask {mask:06b}: {:?} after {} plies",
            end.outcome(),
            g.plies().len()
        );
    }
    let (mut sa, mut na, mut sb, mut nb) = (0.0, 0.0, 0.0, 0.0);
    for s in v.seating.seats() {
        let p = points[s].value();
        if mask & 1 << s.index() != 0 {
            sa += p;
            na += 1.0;
        } else {
            sb += p;
            nb += 1.0;
        }
    }
    (sa / na, sb / nb)
}

fn main() {
    let a = <Args as clap::Parser>::parse();
    let v = Variant::from_spec(&a.variant).unwrap_or_else(|e| {
        eprintln!("multi_strength: {e}");
        std::process::exit(2)
    });
    let masks = halves(v.seat_count());
    use MultiAlgorithm::*;
    for pair in [(Paranoid, BestReply), (Paranoid, MaxN), (BestReply, MaxN)] {
        let name = format!("{}-{}", pair.0, pair.1);
        if !a.pair.is_empty() && a.pair != name {
            continue;
        }
        let done = AtomicUsize::new(0);
        let results: Vec<(f64, f64)> = (0..a.games)
            .into_par_iter()
            .map(|i| {
                let block = (i / masks.len()) as u64;
                let start = opening(&v, a.seed.wrapping_mul(1_000_003) + block);
                let r = game(&a, &v, &start, pair, masks[i % masks.len()]);
                let k = done.fetch_add(1, Ordering::Relaxed) + 1;
                if k.is_multiple_of(10) || k == a.games {
                    eprintln!("{name}: {k}/{} games", a.games);
                }
                r
            })
            .collect();
        let n = results.len() as f64;
        let mean = |f: &dyn Fn(&(f64, f64)) -> f64| results.iter().map(f).sum::<f64>() / n;
        let ma = mean(&|r| r.0);
        let mb = mean(&|r| r.1);
        let d = ma - mb;
        let var = results.iter().map(|r| (r.0 - r.1 - d).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        let half = 1.96 * (var / n).sqrt();
        let (better, equal, worse) = results.iter().fold((0, 0, 0), |(b, e, w), r| {
            if r.0 > r.1 + 1e-9 {
                (b + 1, e, w)
            } else if r.1 > r.0 + 1e-9 {
                (b, e, w + 1)
            } else {
                (b, e + 1, w)
            }
        });
        println!(
            "{} vs {} on {}, {} games, {} nodes per move: points per seat {:.3} vs {:.3}, difference {:+.3} +- {:.3} (95 %); games better/equal/worse for {}: {better}/{equal}/{worse}",
            pair.0,
            pair.1,
            v.spec,
            results.len(),
            a.nodes,
            ma,
            mb,
            d,
            half,
            pair.0
        );
    }
}
