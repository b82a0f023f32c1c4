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

struct Args {
    positions: usize,
    depth: u32,
    seed: u64,
    variant: String,
    file: Option<String>,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        positions: 10,
        depth: 2,
        seed: 7,
        variant: "synchronous".into(),
        file: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let v = it.next().ok_or(format!("{k} needs a value"))?;
        let num = |v: &str| v.parse::<u64>().map_err(|e| format!("{k} {v}: {e}"));
        match k.as_str() {
            "--positions" => a.positions = num(&v)? as usize,
            "--depth" => a.depth = num(&v)?.clamp(1, 8) as u32,
            "--seed" => a.seed = num(&v)?,
            "--variant" => a.variant = v,
            "--file" => a.file = Some(v),
            _ => return Err(format!("unknown argument {k}")),
        }
    }
    Ok(a)
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
        let a = args()?;
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
