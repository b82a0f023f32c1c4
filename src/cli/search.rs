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
    /// Simultaneous turns: the seat(s) whose mixed strategy is printed
    /// (`white`, `black`, a seat number, or `all`).
    #[arg(long, default_value = "all")]
    pub side: String,
    /// Simultaneous turns: seed of the sampled decision.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Multi-party games (more than two players): the search, paranoid,
    /// brs or maxn.
    #[arg(long, default_value_t = ndchess::search::multi::MultiAlgorithm::DEFAULT.name().to_string())]
    pub multi_search: String,
}

/// `ndchess analyse`: UCI-style `info` lines and `bestmove`.
pub fn analyse(args: &AnalyseArgs) -> Result<(), CommandError> {
    use ndchess::search::{Engine, EngineOptions, Limits, SearchControl};
    let (v, pos) = args.variant.load()?;
    if pos.turn().is_simultaneous() {
        return analyse_simultaneous(args, &v, &pos);
    }
    let mut engine = Engine::new(EngineOptions {
        threads: args.threads.max(1),
        hash_mb: args.hash,
        ..EngineOptions::default()
    });
    engine.set_tablebase_path(args.tablebases.clone());
    let search =
        ndchess::search::multi::MultiAlgorithm::parse(&args.multi_search).ok_or_else(|| {
            CommandError::Other(format!(
                "--multi-search {:?}: expected paranoid, brs or maxn",
                args.multi_search
            ))
        })?;
    engine.set_multi_algorithm(search);
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
        "info string static eval {} (material {:?} mobility {:?} pawns {:?} king {:?} threats {:?} structure {:?} lines {:?})",
        b.total, b.material, b.mobility, b.pawn_progress, b.king, b.threats, b.pawn_structure, b.open_lines
    )
    .map_err(io)?;
    if v.rules.party.is_some() {
        writeln!(
            out,
            "info string seat {} search {search}",
            v.seating.name(pos.to_move())
        )
        .map_err(io)?;
    }
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

/// `ndchess analyse` of a simultaneous turn: one `info` line per
/// iteration (value from White's point of view), then each asked seat's
/// equilibrium strategy (`info string strategy <seat> <move> <p> …`) and
/// the decision sampled from it (`bestdecision`).
fn analyse_simultaneous(
    args: &AnalyseArgs,
    v: &std::sync::Arc<Variant>,
    pos: &Position,
) -> Result<(), CommandError> {
    use ndchess::board::seating::Seat;
    use ndchess::rules::notation::joint::decision_text;
    use ndchess::search::simultaneous::{SimLimits, SimSearcher};
    use ndchess::search::{Engine, EngineOptions, SearchControl};
    let seats: Vec<Seat> = match args.side.as_str() {
        "all" => pos.turn().movers().iter().collect(),
        "white" | "w" => vec![Seat::new(0)],
        "black" | "b" => vec![Seat::new(1)],
        s => match s.parse::<usize>() {
            Ok(i) if i < v.seat_count() => vec![Seat::new(i)],
            _ => {
                return Err(CommandError::Other(format!(
                    "--side {s}: white, black, a seat number or all"
                )));
            }
        },
    };
    let mut engine = Engine::new(EngineOptions::default());
    let mut sim = SimSearcher::new(engine.evaluator(v), args.seed);
    sim.set_threads(args.threads);
    let mut limits = SimLimits {
        depth: args.depth,
        nodes: args.nodes,
        time: args.movetime.map(std::time::Duration::from_millis),
    };
    if limits.depth.is_none() && limits.nodes.is_none() && limits.time.is_none() {
        limits.time = Some(std::time::Duration::from_millis(2000));
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "info string variant {} simultaneous", v.spec).map_err(io)?;
    let result = sim.search(pos, &limits, &SearchControl::new(), &mut |info| {
        let ms = info.time.as_millis().max(1);
        let _ = writeln!(
            std::io::stdout().lock(),
            "info depth {} score cp {} nodes {} nps {} time {}",
            info.depth,
            info.value.round() as i64,
            info.nodes,
            info.nodes as u128 * 1000 / ms,
            ms
        );
    });
    let Some(r) = result else {
        let why = pos
            .outcome()
            .map(|o| format!(" ({} {})", result_text(&o), o.description(v)))
            .unwrap_or_default();
        writeln!(out, "bestdecision (none){why}").map_err(io)?;
        return Ok(());
    };
    writeln!(
        out,
        "info string value {} (White's point of view) depth {}",
        r.value.round() as i64,
        r.depth
    )
    .map_err(io)?;
    for &seat in &seats {
        let Some(strategy) = r.strategy(seat) else {
            writeln!(
                out,
                "info string strategy {} 0000 1.000 (does not decide now)",
                v.seating.name(seat)
            )
            .map_err(io)?;
            continue;
        };
        let items: Vec<String> = strategy
            .iter()
            .map(|d| {
                format!(
                    "{} {:.3}",
                    decision_text(pos, Some(d.decision)),
                    d.probability
                )
            })
            .collect();
        writeln!(
            out,
            "info string strategy {} {}",
            v.seating.name(seat),
            items.join(" ")
        )
        .map_err(io)?;
    }
    let mut joint = ndchess::rules::moves::JointDecision::new(v.seat_count());
    for seat in pos.turn().movers().iter() {
        if let Some(d) = sim.choose(&r, seat) {
            joint.set(seat, d);
        }
    }
    writeln!(
        out,
        "bestdecision {}",
        ndchess::rules::notation::joint::joint_text(pos, &joint)
    )
    .map_err(io)?;
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
    /// Seconds the searches took.
    pub seconds: f64,
    /// Seconds of set-up before the searches: building each variant, its
    /// evaluation tables and the workers' tables, and clearing the
    /// transposition table.
    pub setup_seconds: f64,
}

/// Runs the bench positions single-threaded to fixed depths; each position
/// starts from an empty table. The clock runs during the searches only,
/// as in Stockfish's bench (which restarts its clock after `ucinewgame`
/// clears the table, and builds its tables before): a variant's one-time
/// set-up is timed apart.
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
    let (mut seconds, mut setup_seconds) = (0.0, 0.0);
    for &(spec, text, offset) in BENCH_POSITIONS {
        let set_up = Instant::now();
        let v = Variant::from_spec(spec).map_err(CommandError::Variant)?;
        let pos = if text.is_empty() {
            Position::start(&v)
        } else {
            Position::from_text(&v, text).map_err(CommandError::Position)?
        };
        let d = (depth as i32 + offset).max(1) as u32;
        engine.new_game();
        engine.prepare(&pos);
        setup_seconds += set_up.elapsed().as_secs_f64();
        let t = Instant::now();
        let r = engine.search(&pos, &Limits::depth(d), &SearchControl::new(), &mut |_| {});
        let s = t.elapsed().as_secs_f64();
        seconds += s;
        progress(spec, d, r.nodes, s);
        nodes.push(r.nodes);
    }
    Ok(BenchResult {
        total: nodes.iter().sum(),
        nodes,
        seconds,
        setup_seconds,
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
    eprintln!(
        "Set-up (ms)     : {:.0} (variants, evaluation tables, clearing the table; not counted)",
        r.setup_seconds * 1000.0
    );
    println!("Total time (ms) : {:.0}", r.seconds * 1000.0);
    println!("Nodes searched  : {}", r.total);
    println!(
        "Nodes/second    : {:.0}",
        r.total as f64 / r.seconds.max(1e-9)
    );
    Ok(())
}
