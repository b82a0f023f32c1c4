//! The command-line subcommands' work, kept out of `main.rs` so that the
//! binary only wires arguments and tests can call the same code.

use std::fmt;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;

use ndchess::board::piece::{EMPTY, Piece, piece_kind, piece_seat};
use ndchess::board::registry;
use ndchess::board::seating::Seat;
use ndchess::board::variant::{Variant, VariantError};
use ndchess::protocol::text::result_text;
use ndchess::rules::movegen;
use ndchess::rules::notation;
use ndchess::rules::position::{Position, PositionError};
use ndchess::theory::mobility;

/// Variant selection shared by the subcommands.
#[derive(Args, Debug, Clone)]
pub struct VariantArgs {
    /// Variant spec `name[:key=value,…]`, e.g. `chess960:sp=518`,
    /// `diamond:n=4,l=10`.
    #[arg(long, short, default_value = "chess")]
    pub variant: String,
    /// Extra variant parameter `key=value` (repeatable), appended to the spec.
    #[arg(long = "param", short = 'p')]
    pub params: Vec<String>,
    /// Position text (FEN on 2-D boards); the start position if absent.
    #[arg(long)]
    pub fen: Option<String>,
}

/// Errors of the subcommands.
#[derive(Debug)]
pub enum CommandError {
    /// Bad variant spec.
    Variant(VariantError),
    /// Bad position text.
    Position(PositionError),
    /// Anything else (thread pool, output).
    Other(String),
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::Variant(e) => write!(f, "variant: {e}"),
            CommandError::Position(e) => write!(f, "position: {e}"),
            CommandError::Other(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CommandError {}

impl VariantArgs {
    /// The full spec string.
    pub fn spec(&self) -> String {
        let mut spec = self.variant.clone();
        for (i, p) in self.params.iter().enumerate() {
            spec.push(if i == 0 && !self.variant.contains(':') {
                ':'
            } else {
                ','
            });
            spec.push_str(p);
        }
        spec
    }

    /// Builds the variant and the position.
    pub fn load(&self) -> Result<(Arc<Variant>, Position), CommandError> {
        let v = Variant::from_spec(&self.spec()).map_err(CommandError::Variant)?;
        let pos = match &self.fen {
            Some(f) => Position::from_text(&v, f).map_err(CommandError::Position)?,
            None => Position::start(&v),
        };
        Ok((v, pos))
    }
}

fn io(e: std::io::Error) -> CommandError {
    CommandError::Other(e.to_string())
}

/// `ndchess perft`.
pub fn perft(
    args: &VariantArgs,
    depth: u32,
    divide: bool,
    threads: usize,
) -> Result<(), CommandError> {
    let (_v, pos) = args.load()?;
    let started = Instant::now();
    let king_takes_rook = pos.king_takes_rook();
    let total = if depth == 0 {
        1
    } else if threads == 1 && !divide && depth < 5 {
        let mut p = pos.clone();
        movegen::perft(&mut p, depth)
    } else {
        // Deep runs report each finished root move on stderr.
        let roots = pos.legal_moves().len();
        let finished = std::sync::atomic::AtomicUsize::new(0);
        let progress = |m, n| {
            if depth >= 5 {
                let k = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                eprintln!(
                    "perft: {k}/{roots} root moves done ({} {n}, {:.1} s)",
                    pos.move_text(m, king_takes_rook),
                    started.elapsed().as_secs_f64()
                );
            }
        };
        let results = movegen::perft_divide_with_progress(&pos, depth, threads, progress)
            .map_err(|e| CommandError::Other(e.to_string()))?;
        let mut lines: Vec<(String, u64)> = results
            .iter()
            .map(|&(m, n)| (pos.move_text(m, king_takes_rook), n))
            .collect();
        lines.sort();
        if divide {
            let mut out = std::io::stdout().lock();
            for (m, n) in &lines {
                writeln!(out, "{m}: {n}").map_err(io)?;
            }
        }
        lines.iter().map(|x| x.1).sum()
    };
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "perft {depth}: {total} nodes in {secs:.3} s ({:.0} nodes/s)",
        total as f64 / secs.max(1e-9)
    );
    println!("Nodes searched: {total}");
    Ok(())
}

/// `ndchess show`.
pub fn show(args: &VariantArgs) -> Result<(), CommandError> {
    let (v, pos) = args.load()?;
    println!("variant {}", v.spec);
    print!("{}", notation::diagram(&pos));
    Ok(())
}

/// One line of `ndchess variants`.
pub fn describe_variant(v: &Variant) -> String {
    let g = &v.geometry;
    let lens: Vec<String> = g.lens().iter().map(|l| l.to_string()).collect();
    let mut army: Vec<(char, usize)> = Vec::new();
    for &(_, p) in v
        .start
        .iter()
        .filter(|(_, p)| piece_seat(*p) == Seat::FIRST)
    {
        let letter = v.kinds[piece_kind(p)].letter;
        match army.iter_mut().find(|(c, _)| *c == letter) {
            Some(e) => e.1 += 1,
            None => army.push((letter, 1)),
        }
    }
    let army: Vec<String> = army.iter().map(|(c, n)| format!("{n}{c}")).collect();
    format!(
        "{:<34} dimension {} size {} cells {} players {} army {}",
        v.spec,
        g.dims(),
        lens.join("x"),
        g.cell_count(),
        v.seat_count(),
        army.join(" ")
    )
}

/// `ndchess variants`: every family of the registry with its parameters,
/// then one line per example spec.
pub fn variants() -> Result<(), CommandError> {
    println!("Variant specs are name[:key=value,...]:");
    for f in registry::FAMILIES {
        let params: Vec<String> = f
            .parameters()
            .map(|p| {
                format!(
                    "{}={} (default {})",
                    p.key,
                    p.values_text(),
                    p.default_text()
                )
            })
            .collect();
        println!("  {:<17} {}", f.name, f.summary);
        if !params.is_empty() {
            println!("  {:<17} {}", "", params.join(", "));
        }
    }
    println!();
    for spec in registry::example_specs() {
        let v = Variant::from_spec(spec).map_err(CommandError::Variant)?;
        println!("{}", describe_variant(&v));
    }
    Ok(())
}

/// `ndchess mobility`.
pub fn mobility(args: &VariantArgs) -> Result<(), CommandError> {
    let (v, _) = args.load()?;
    let r = mobility::report(&v);
    println!("variant {}", v.spec);
    println!(
        "{:<14} {:>6} {:>8} {:>10}",
        "piece", "cells", "total", "average"
    );
    for k in &r.kinds {
        let kind = &v.kinds[k.kind];
        let n = k.classes.len();
        for (i, c) in k.classes.iter().enumerate() {
            let class = if n > 1 {
                format!("  (class {} of {n})", i + 1)
            } else {
                String::new()
            };
            println!(
                "{:<14} {:>6} {:>8} {:>10.4}{}",
                format!("{} ({})", kind.name, kind.letter),
                c.cells,
                c.total,
                c.average(),
                class
            );
        }
    }
    println!("army total: {}", r.army_total);
    Ok(())
}

/// `ndchess axioms`: the T4.2 start-position axioms for the start position,
/// or for the placement of `--fen` (to try a setup of one's own).
pub fn axioms(args: &VariantArgs) -> Result<(), CommandError> {
    let (v, pos) = args.load()?;
    let pieces: Vec<(ndchess::board::geometry::Cell, Piece)> = (0..v.geometry.cell_count())
        .filter(|&c| pos.piece_at(c) != EMPTY)
        .map(|c| (c, pos.piece_at(c)))
        .collect();
    println!("variant {}", v.spec);
    print!("{}", ndchess::theory::axioms::check_placement(&v, &pieces));
    Ok(())
}

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
            "info {}",
            info.uci(&pos, ktr, None)
        );
    });
    match result.best {
        Some(m) => {
            let mut line = format!("bestmove {}", pos.move_text(m, ktr));
            if let Some(p) = result.ponder {
                let mut after = pos.clone();
                after.make(m);
                line.push_str(&format!(" ponder {}", after.move_text(p, ktr)));
            }
            writeln!(out, "{line}").map_err(io)?;
        }
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

/// Arguments of `ndchess play`.
#[derive(Args, Debug, Clone)]
pub struct PlayArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Thinking time per move in milliseconds.
    #[arg(long, default_value_t = 100)]
    pub movetime: u64,
    /// Fixed depth per move instead of a time (reproducible games).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Random seed: the first two plies are drawn at random from the legal
    /// moves (so different seeds give different games), and a Chess960
    /// start without `sp` is drawn from it.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Search threads.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// Draw the board after every this many moves (0: only at the end).
    #[arg(long, default_value_t = 10)]
    pub board_every: u32,
    /// Safety limit in moves (per player); reaching it is adjudicated a
    /// draw. Rarely needed: repetition and the 50-move rule end games first
    /// where they apply.
    #[arg(long, default_value_t = 500)]
    pub max_moves: u32,
}

/// How a self-play game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// By the rules.
    Rules(ndchess::rules::outcome::Outcome),
    /// Adjudicated a draw at the move limit.
    MoveLimit,
}

/// `ndchess play`: a complete self-play game from the start position.
pub fn play(args: &PlayArgs) -> Result<GameEnd, CommandError> {
    use ndchess::search::{Engine, EngineOptions, Limits, SearchControl};
    use rand::{RngExt, SeedableRng};
    let mut vargs = args.variant.clone();
    if let Some(seed) = args.seed
        && vargs.variant.starts_with("chess960")
        && !vargs.spec().contains("sp=")
    {
        vargs.params.push(format!("sp={}", seed % 960));
    }
    let (v, mut pos) = vargs.load()?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(args.seed.unwrap_or(0));
    let random_plies = if args.seed.is_some() { 2 } else { 0 };
    let mut engine = Engine::new(EngineOptions {
        threads: args.threads.max(1),
        hash_mb: args.hash,
        ..EngineOptions::default()
    });
    engine.new_game();
    let limits = match args.depth {
        Some(d) => Limits::depth(d),
        None => Limits::movetime(std::time::Duration::from_millis(args.movetime.max(1))),
    };
    let ktr = pos.king_takes_rook();
    let mut out = std::io::stdout().lock();
    writeln!(out, "variant {}", v.spec).map_err(io)?;
    write!(out, "{}", notation::diagram(&pos)).map_err(io)?;
    let players = v.seat_count();
    let mut ply = 0u32;
    let end = loop {
        if let Some(result) = pos.outcome() {
            break GameEnd::Rules(result);
        }
        if ply >= args.max_moves * players as u32 {
            break GameEnd::MoveLimit;
        }
        let (m, note) = if ply < random_plies {
            let moves = pos.legal_moves();
            (
                moves[rng.random_range(0..moves.len())],
                "random opening move".to_string(),
            )
        } else {
            let control = SearchControl::new();
            let r = engine.search(&pos, &limits, &control, &mut |_| {});
            let m = r
                .best
                .ok_or_else(|| CommandError::Other("search found no move in a live game".into()))?;
            (
                m,
                format!("{} depth {} nodes {}", r.score, r.depth, r.nodes),
            )
        };
        let number = ply / players as u32 + 1;
        let dots = if pos.to_move() == Seat::FIRST {
            "."
        } else {
            "..."
        };
        writeln!(
            out,
            "{number}{dots} {:<16} {:<10} {} {note}",
            ndchess::rules::notation::san::long_notation(&pos, m),
            pos.move_text(m, ktr),
            v.seating.name(pos.to_move()),
        )
        .map_err(io)?;
        pos.make(m);
        ply += 1;
        if args.board_every > 0 && ply.is_multiple_of(args.board_every * players as u32) {
            write!(out, "{}", notation::diagram(&pos)).map_err(io)?;
        }
    };
    write!(out, "{}", notation::diagram(&pos)).map_err(io)?;
    match &end {
        GameEnd::Rules(r) => writeln!(
            out,
            "result {} ({}) after {ply} plies",
            result_text(r),
            r.description(&v)
        )
        .map_err(io)?,
        GameEnd::MoveLimit => writeln!(
            out,
            "result 1/2-1/2 (adjudicated draw: move limit of {} moves reached) after {ply} plies",
            args.max_moves
        )
        .map_err(io)?,
    }
    Ok(end)
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

/// The protocol loop on standard input and output: `ndchess` without a
/// subcommand (the first command chooses the protocol) and `ndchess uci`.
pub fn protocol(mode: ndchess::protocol::Mode) -> Result<(), CommandError> {
    ndchess::protocol::run_stdio(mode).map_err(io)
}
