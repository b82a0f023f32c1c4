//! Subcommands that search: `analyse` (a position, UCI-style output) and
//! `bench` (the search's fixed benchmark and node signature).

use std::io::Write;
use std::time::Instant;

use clap::Args;

use ndchess::board::variant::Variant;
use ndchess::protocol::text::result_text;
use ndchess::protocol::uci;
use ndchess::rules::position::Position;

use super::{CommandError, VariantArgs, io};

/// Arguments of `ndchess analyse`.
#[derive(Args, Debug, Clone)]
pub struct AnalyseArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Search to this depth (plies).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Search this many milliseconds (the default is 2000 when no limit is
    /// given).
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Search this many nodes.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// Number of best lines to show.
    #[arg(long, default_value_t = 1)]
    pub multipv: usize,
    /// Directory of endgame tables to probe (docs/tablebases.md).
    #[arg(long)]
    pub tablebases: Option<std::path::PathBuf>,
}

/// `ndchess analyse`: UCI-style `info` lines and `bestmove`.
pub fn analyse(args: &AnalyseArgs) -> Result<(), CommandError> {
    use ndchess::search::{Engine, EngineOptions, Limits, SearchControl};
    let (v, pos) = args.variant.load()?;
    let mut engine = Engine::new(EngineOptions {
        threads: args.threads.max(1),
        hash_mb: args.hash,
        ..EngineOptions::default()
    });
    engine.set_tablebase_path(args.tablebases.clone());
    let mut limits = Limits {
        depth: args.depth,
        nodes: args.nodes,
        movetime: args.movetime.map(std::time::Duration::from_millis),
        multipv: args.multipv.max(1),
        ..Limits::default()
    };
    if limits.depth.is_none() && limits.nodes.is_none() && limits.movetime.is_none() {
        limits.movetime = Some(std::time::Duration::from_millis(2000));
    }
    let evaluator = engine.evaluator(&v);
    let values: Vec<String> = v
        .kinds
        .iter()
        .enumerate()
        .filter(|(_, k)| !k.royal)
        .map(|(i, k)| format!("{}={}", k.letter, evaluator.value(i)))
        .collect();
    let b = evaluator.breakdown(&pos);
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "info string variant {} values {}",
        v.spec,
        values.join(" ")
    )
    .map_err(io)?;
    writeln!(
        out,
        "info string static eval {} (material {:?} mobility {:?} pawns {:?} king {:?})",
        b.total, b.material, b.mobility, b.pawn_progress, b.king
    )
    .map_err(io)?;
    let ktr = pos.king_takes_rook();
    let control = SearchControl::new();
    let result = engine.search(&pos, &limits, &control, &mut |info| {
        let _ = writeln!(
            std::io::stdout().lock(),
            "{}",
            uci::info_line(info, &pos, ktr, false)
        );
    });
    match result.best {
        Some(_) => writeln!(out, "{}", uci::bestmove_line(&result, &pos, ktr)).map_err(io)?,
        None => {
            let why = result
                .outcome
                .map(|o| format!(" ({} {})", result_text(&o), o.description(&v)))
                .unwrap_or_default();
            writeln!(out, "bestmove (none){why}").map_err(io)?;
        }
    }
    Ok(())
}

/// The positions of `ndchess bench`: (variant spec, position text or empty
/// for the start, depth relative to the requested one).
pub const BENCH_POSITIONS: &[(&str, &str, i32)] = &[
    ("chess", "", 0),
    (
        "chess",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        0,
    ),
    ("chess", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 2),
    ("chess960:sp=0", "", 0),
    ("cylinder", "", 0),
    ("torus", "", -1),
    ("cube", "", 1),
    ("diamond:n=3", "", -2),
    ("diamond:n=4", "", -4),
];

/// Default depth of `ndchess bench`.
pub const BENCH_DEPTH: u32 = 11;

/// Result of `ndchess bench`.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchResult {
    /// Nodes of every position, in order.
    pub nodes: Vec<u64>,
    /// Total nodes: the signature of search and evaluation.
    pub total: u64,
    /// Seconds taken.
    pub seconds: f64,
}

/// Runs the bench positions single-threaded to fixed depths; each position
/// starts from an empty table.
pub fn run_bench(
    depth: u32,
    mut progress: impl FnMut(&str, u32, u64, f64),
) -> Result<BenchResult, CommandError> {
    use ndchess::search::{Engine, EngineOptions, Limits, SearchControl};
    let mut engine = Engine::new(EngineOptions {
        threads: 1,
        hash_mb: 16,
        ..EngineOptions::default()
    });
    let mut nodes = Vec::new();
    let started = Instant::now();
    for &(spec, text, offset) in BENCH_POSITIONS {
        let v = Variant::from_spec(spec).map_err(CommandError::Variant)?;
        let pos = if text.is_empty() {
            Position::start(&v)
        } else {
            Position::from_text(&v, text).map_err(CommandError::Position)?
        };
        let d = (depth as i32 + offset).max(1) as u32;
        engine.new_game();
        let t = Instant::now();
        let r = engine.search(&pos, &Limits::depth(d), &SearchControl::new(), &mut |_| {});
        progress(spec, d, r.nodes, t.elapsed().as_secs_f64());
        nodes.push(r.nodes);
    }
    Ok(BenchResult {
        total: nodes.iter().sum(),
        nodes,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// `ndchess bench`.
pub fn bench(depth: Option<u32>) -> Result<(), CommandError> {
    let depth = depth.unwrap_or(BENCH_DEPTH);
    let r = run_bench(depth, |spec, d, n, s| {
        eprintln!(
            "{spec:<16} depth {d:>2} nodes {n:>10} {s:>7.3} s {:>9.0} nodes/s",
            n as f64 / s.max(1e-9)
        );
    })?;
    println!("Total time (ms) : {:.0}", r.seconds * 1000.0);
    println!("Nodes searched  : {}", r.total);
    println!(
        "Nodes/second    : {:.0}",
        r.total as f64 / r.seconds.max(1e-9)
    );
    Ok(())
}
