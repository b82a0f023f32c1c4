//! Synchronous chess: the nodes the simultaneous search needs to finish
//! each depth, against the same search serialized (as if White moved
//! first, as if Black did), on the same positions. The cost of solving
//! matrix games instead of alternating moves (docs/performance.md).
//!
//! ```text
//! cargo run --release --example synchronous_nodes -- \
//!     [--positions 10] [--depth 2] [--seed 7] [--variant synchronous] [--file FILE]
//! ```
//!
//! Positions are reached by 2-9 random joint decisions (seeded), or read
//! from `--file` (one position text per line). Prints each position's
//! nodes per finished depth and root value per strategy, then the totals.

use ndchess::board::seating::{Phase, Seat};
use ndchess::board::variant::Variant;
use ndchess::rules::position::Position;
use ndchess::search::SearchControl;
use ndchess::search::simultaneous::{SimLimits, SimSearcher, Strategy};
use ndchess::search::{Engine, EngineOptions};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// The command line (see the module documentation).
#[derive(clap::Parser)]
struct Args {
    /// Positions searched.
    #[arg(long, default_value_t = 10)]
    positions: usize,
    /// Deepest iteration.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=8))]
    depth: u32,
    /// Seed of the random positions (unused with --file).
    #[arg(long, default_value_t = 7)]
    seed: u64,
    #[arg(long, default_value = "synchronous")]
    variant: String,
    /// Read the positions from this file, one per line, instead.
    #[arg(long)]
    file: Option<String>,
}

fn positions(a: &Args, v: &std::sync::Arc<Variant>) -> Result<Vec<Position>, String> {
    if let Some(f) = &a.file {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{f}: {e}"))?;
        return text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(a.positions)
            .map(|l| Position::from_text(v, l).map_err(|e| format!("{l}: {e}")))
            .collect();
    }
    let mut rng = SmallRng::seed_from_u64(a.seed);
    let mut out = Vec::new();
    while out.len() < a.positions {
        let mut pos = Position::start(v);
        for _ in 0..rng.random_range(2..10) {
            let all = pos.joint_decisions();
            if all.is_empty() {
                break;
            }
            let j = &all[rng.random_range(0..all.len())];
            pos.make_joint(j).map_err(|e| e.to_string())?;
        }
        if pos.outcome().is_none() && pos.phase() == Phase::Main {
            out.push(pos);
        }
    }
    Ok(out)
}

fn main() {
    let run = || -> Result<(), String> {
        let a = <Args as clap::Parser>::parse();
        let v = Variant::from_spec(&a.variant).map_err(|e| e.to_string())?;
        let eval = Engine::new(EngineOptions::default()).evaluator(&v);
        let strategies = [
            ("equilibrium", Strategy::Equilibrium),
            ("white first", Strategy::FirstMover),
            ("black first", Strategy::SecondMover),
        ];
        let mut totals = vec![vec![0u64; a.depth as usize]; strategies.len()];
        for (k, pos) in positions(&a, &v)?.iter().enumerate() {
            for (s, (name, strategy)) in strategies.iter().enumerate() {
                // The sequential views are played by White: first mover
                // is White first, second mover is Black first.
                let mut searcher = SimSearcher::new(eval.clone(), 1);
                searcher.set_strategy(*strategy, Seat::FIRST);
                let limits = SimLimits {
                    depth: Some(a.depth),
                    ..SimLimits::default()
                };
                let mut line = String::new();
                let r = searcher
                    .search(pos, &limits, &SearchControl::new(), &mut |i| {
                        totals[s][i.depth as usize - 1] += i.nodes;
                        line += &format!(" d{} {}", i.depth, i.nodes);
                    })
                    .ok_or("a position without a simultaneous turn")?;
                println!("#{k} {name}:{line} value {:.2}", r.value);
            }
        }
        for (s, (name, _)) in strategies.iter().enumerate() {
            println!("total {name}: {:?}", totals[s]);
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("synchronous_nodes: {e}");
        std::process::exit(2);
    }
}
