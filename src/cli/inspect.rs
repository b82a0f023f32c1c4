//! Subcommands that inspect boards and rules: perft, diagrams, the variant
//! list, the seeds' mobility and start-position axioms.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use ndchess::rules::perft_table::{MAX_HASH_MB, PerftTable, perft_hashed};

use clap::{Args, Subcommand};

use ndchess::board::piece::{EMPTY, Piece, piece_kind, piece_seat};
use ndchess::board::registry;
use ndchess::board::seating::Seat;
use ndchess::board::variant::Variant;
use ndchess::rules::movegen;
use ndchess::rules::notation;
use ndchess::rules::notation::joint;
use ndchess::rules::perft_units::{self, ShardResult, Units, UnitsError};
use ndchess::rules::position::Position;
use ndchess::rules::simultaneous;
use ndchess::theory::mobility;

use super::{CommandError, VariantArgs, io};

/// `ndchess perft`: count, write work units, count a share of them, or
/// merge the shares (docs/performance.md, "Perft on a cluster").
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct PerftArgs {
    #[command(subcommand)]
    pub command: Option<PerftCommand>,
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Depth in plies (with --units the units carry it).
    #[arg(long, short, required_unless_present = "units")]
    pub depth: Option<u32>,
    /// Print one `<move>: <count>` line per root move.
    #[arg(long)]
    pub divide: bool,
    /// Threads (0 = all cores).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Write the work units: the positions this many plies deep, each with
    /// the paths reaching it and the depth left, instead of counting.
    #[arg(long, conflicts_with_all = ["divide", "units"])]
    pub split: Option<u32>,
    /// Count a share of the work units in this file (with --shard).
    #[arg(long, requires = "shard", conflicts_with = "divide")]
    pub units: Option<PathBuf>,
    /// The share of --units to count: i/n takes the units whose number is
    /// i modulo n (0 <= i < n).
    #[arg(long, requires = "units")]
    pub shard: Option<String>,
    /// Write the units or the shard's result to this file (atomically:
    /// a temporary file renamed at the end) instead of stdout.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    /// Transposition table for the count, MiB (0: none): positions
    /// reached again by other move orders are counted once.
    #[arg(long, default_value_t = 0)]
    pub hash: usize,
}

/// `ndchess perft merge`.
#[derive(Subcommand, Debug)]
pub enum PerftCommand {
    /// Add shard results, checking that every unit was counted exactly
    /// once; prints `Nodes searched: N`.
    Merge {
        /// The shard result files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// Runs `ndchess perft` in the mode its arguments choose.
pub fn perft_command(args: &PerftArgs) -> Result<(), CommandError> {
    let units_err = |e: UnitsError| CommandError::Other(e.to_string());
    if let Some(PerftCommand::Merge { files }) = &args.command {
        let mut results = Vec::new();
        for f in files {
            let text = std::fs::read_to_string(f)
                .map_err(|e| CommandError::Other(format!("{}: {e}", f.display())))?;
            let r = ShardResult::from_text(&text)
                .map_err(|e| CommandError::Other(format!("{}: {e}", f.display())))?;
            results.push(r);
        }
        let total = perft_units::merge(&results).map_err(units_err)?;
        eprintln!(
            "perft merge: {} shard results, {} units",
            results.len(),
            results[0].units
        );
        println!("Nodes searched: {total}");
        return Ok(());
    }
    if let (Some(file), Some(shard)) = (&args.units, &args.shard) {
        let (i, n) = perft_units::parse_shard(shard).map_err(units_err)?;
        let text = std::fs::read_to_string(file)
            .map_err(|e| CommandError::Other(format!("{}: {e}", file.display())))?;
        let units = Units::from_text(&text)
            .map_err(|e| CommandError::Other(format!("{}: {e}", file.display())))?;
        let started = Instant::now();
        let last = std::sync::Mutex::new(Instant::now());
        let table = (args.hash > 0).then(|| PerftTable::new(args.hash));
        let result =
            perft_units::count_shard(&units, i, n, args.threads, table.as_ref(), |k, total| {
                // Invariant: the lock is only held here, never across a panic.
                let mut last = last.lock().unwrap_or_else(|p| p.into_inner());
                if k == total || last.elapsed().as_secs() >= 2 {
                    *last = Instant::now();
                    eprintln!(
                        "perft shard {i}/{n}: {k}/{total} units ({:.1} s)",
                        started.elapsed().as_secs_f64()
                    );
                }
            })
            .map_err(units_err)?;
        return write_out(args.out.as_deref(), &result.to_text());
    }
    let depth = args
        .depth
        .ok_or_else(|| CommandError::Other("--depth is required".into()))?;
    if let Some(s) = args.split {
        let (_v, pos) = args.variant.load()?;
        let units = perft_units::split(&pos, depth, s).map_err(units_err)?;
        eprintln!(
            "perft split: {} units at depth {s} (of {depth})",
            units.units.len()
        );
        return write_out(args.out.as_deref(), &units.to_text());
    }
    perft(&args.variant, depth, args.divide, args.threads, args.hash)
}

/// Writes `text` to `path` through a temporary file renamed at the end (so
/// a killed job leaves no half file), or to stdout.
pub(crate) fn write_out(path: Option<&std::path::Path>, text: &str) -> Result<(), CommandError> {
    match path {
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .map_err(io),
        Some(p) => {
            let mut tmp = p.as_os_str().to_owned();
            tmp.push(".tmp");
            std::fs::write(&tmp, text)
                .and_then(|()| std::fs::rename(&tmp, p))
                .map_err(|e| CommandError::Other(format!("{}: {e}", p.display())))
        }
    }
}

/// `ndchess perft`.
pub fn perft(
    args: &VariantArgs,
    depth: u32,
    divide: bool,
    threads: usize,
    hash_mb: usize,
) -> Result<(), CommandError> {
    let (_v, pos) = args.load()?;
    if hash_mb > MAX_HASH_MB {
        return Err(CommandError::Other(format!(
            "--hash {hash_mb}: at most {MAX_HASH_MB} MiB"
        )));
    }
    let table = (hash_mb > 0).then(|| PerftTable::new(hash_mb));
    let started = Instant::now();
    let king_takes_rook = pos.king_takes_rook();
    let total = if pos.turn().is_simultaneous() {
        if table.is_some() {
            return Err(CommandError::Other(
                "--hash: the joint-decision perft of simultaneous turns has no table".into(),
            ));
        }
        joint_perft_divide(&pos, depth, divide, threads)?
    } else if depth == 0 {
        1
    } else if threads == 1 && !divide && depth < 5 {
        let mut p = pos.clone();
        match &table {
            Some(t) => perft_hashed(&mut p, depth, t),
            None => movegen::perft(&mut p, depth),
        }
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
        let results = movegen::perft_divide_with(&pos, depth, threads, table.as_ref(), progress)
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

/// The joint-decision perft of a simultaneous variant, split by root
/// joint decision over `threads` threads (`--divide` lists them).
fn joint_perft_divide(
    pos: &Position,
    depth: u32,
    divide: bool,
    threads: usize,
) -> Result<u64, CommandError> {
    use rayon::prelude::*;
    if depth == 0 {
        return Ok(1);
    }
    let roots = pos.joint_decisions();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CommandError::Other(e.to_string()))?;
    let started = Instant::now();
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let mut lines: Vec<(String, u64)> = pool.install(|| {
        roots
            .par_iter()
            .map(|j| {
                let mut p = pos.clone();
                p.make_joint(j)
                    .expect("invariant: joint_decisions lists decisions check_joint accepts");
                let n = simultaneous::joint_perft(&mut p, depth - 1);
                let k = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if depth >= 4 && (k.is_multiple_of(50) || k == roots.len()) {
                    eprintln!(
                        "perft: {k}/{} root decisions done ({:.1} s)",
                        roots.len(),
                        started.elapsed().as_secs_f64()
                    );
                }
                (joint::joint_text(pos, j), n)
            })
            .collect()
    });
    lines.sort();
    if divide {
        let mut out = std::io::stdout().lock();
        for (m, n) in &lines {
            writeln!(out, "{m}: {n}").map_err(io)?;
        }
    }
    Ok(lines.iter().map(|x| x.1).sum())
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
    let files = registry::loaded();
    for f in &files {
        println!("  {:<17} {} (variants file)", f.name, f.summary);
    }
    println!();
    let specs = registry::example_specs()
        .map(str::to_string)
        .chain(files.iter().map(|f| f.name.clone()));
    for spec in specs {
        let v = Variant::from_spec(&spec).map_err(CommandError::Variant)?;
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
    // A spec refused for play because its start breaks an axiom (a
    // multi-party game at l = 8) is checked all the same: the report
    // shows the breach the seed predicts.
    let refused = Variant::from_spec(&args.spec()).err();
    let v =
        ndchess::board::registry::build_for_theory(&args.spec()).map_err(CommandError::Variant)?;
    let pos = match &args.fen {
        Some(f) => Position::from_text(&v, f).map_err(CommandError::Position)?,
        None => Position::start(&v),
    };
    if let Some(e) = refused {
        println!("note: refused for play: {e}");
    }
    let pieces: Vec<(ndchess::board::geometry::Cell, Piece)> = (0..v.geometry.cell_count())
        .filter(|&c| pos.piece_at(c) != EMPTY)
        .map(|c| (c, pos.piece_at(c)))
        .collect();
    println!("variant {}", v.spec);
    print!("{}", ndchess::theory::axioms::check_placement(&v, &pieces));
    Ok(())
}
