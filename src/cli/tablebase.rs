//! `ndchess tablebase`: generate, probe, verify and describe endgame tables
//! (docs/tablebases.md).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};

use ndchess::board::variant::Variant;
use ndchess::rules::notation::san::long_notation;
use ndchess::rules::position::Position;
use ndchess::tablebase::generate::position_of;
use ndchess::tablebase::stats::{Counts, stats};
use ndchess::tablebase::{Material, Table, Tablebases};

use super::{CommandError, VariantArgs, io};

/// Where tables live unless `--dir` says otherwise.
pub const DEFAULT_DIR: &str = "tablebases";

/// The board and the directory.
#[derive(Args, Debug, Clone)]
pub struct TableArgs {
    #[command(flatten)]
    pub variant: VariantArgs,
    /// Directory of the table files (one folder per board inside).
    #[arg(long, default_value = DEFAULT_DIR)]
    pub dir: PathBuf,
    /// Threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum TablebaseCommand {
    /// Build the table of a material (and the smaller ones it needs).
    Generate {
        #[command(flatten)]
        args: TableArgs,
        /// Material as `KQvK` (repeatable).
        #[arg(long, short, required_unless_present = "pieces")]
        material: Vec<String>,
        /// Every material of at most this many pieces, kings included
        /// (3 to 6; 4 is every three- and four-piece table of the board).
        #[arg(long)]
        pieces: Option<usize>,
    },
    /// The value of a position (--fen) and of each of its moves.
    Probe {
        #[command(flatten)]
        args: TableArgs,
    },
    /// Won, drawn and lost positions and the longest mates of a table.
    Stats {
        #[command(flatten)]
        args: TableArgs,
        /// Material as `KQvK` (repeatable).
        #[arg(long, short, required = true)]
        material: Vec<String>,
        /// Also count the quiet positions alone: no piece attacks an enemy
        /// piece (the start positions of seed 000 §16's mate problems).
        #[arg(long)]
        quiet: bool,
    },
    /// Check a table against the rules: every position's value is the best
    /// of its moves' values, computed forwards.
    Verify {
        #[command(flatten)]
        args: TableArgs,
        /// Material as `KQvK` (repeatable).
        #[arg(long, short, required = true)]
        material: Vec<String>,
    },
}

fn tb_error(e: ndchess::tablebase::TablebaseError) -> CommandError {
    CommandError::Other(e.to_string())
}

fn pool(threads: usize) -> Result<rayon::ThreadPool, CommandError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CommandError::Other(e.to_string()))
}

fn open(args: &TableArgs) -> Result<(Arc<Variant>, Position, Tablebases), CommandError> {
    let (v, pos) = args.variant.load()?;
    let tb = Tablebases::new(&v, Some(&args.dir)).map_err(tb_error)?;
    Ok((v, pos, tb))
}

/// The stored table of material `m` (as `KQvK`), or an error saying how
/// to build it.
fn stored(tb: &Tablebases, m: &str, args: &TableArgs) -> Result<Arc<Table>, CommandError> {
    let v = tb.variant();
    let mat = Material::parse(v, m).map_err(tb_error)?;
    tb.get(&mat).map_err(tb_error)?.ok_or_else(|| {
        CommandError::Other(format!(
            "no table {} for {} in {} (run tablebase generate)",
            mat.name(v),
            v.spec,
            args.dir.display()
        ))
    })
}

/// Runs a `tablebase` subcommand.
pub fn run(cmd: &TablebaseCommand) -> Result<(), CommandError> {
    match cmd {
        TablebaseCommand::Generate {
            args,
            material,
            pieces,
        } => {
            let (v, _, tb) = open(args)?;
            let mut wanted = Vec::new();
            for m in material {
                wanted.push(Material::parse(&v, m).map_err(tb_error)?);
            }
            if let Some(n) = *pieces {
                if !(3..=ndchess::tablebase::material::MAX_PIECES).contains(&n) {
                    return Err(CommandError::Other(format!(
                        "--pieces {n}: from 3 to {}",
                        ndchess::tablebase::material::MAX_PIECES
                    )));
                }
                wanted.extend(ndchess::tablebase::material::all_up_to(&v, n));
                eprintln!("info {} materials of at most {n} pieces", wanted.len());
            }
            pool(args.threads)?.install(|| {
                for mat in &wanted {
                    let there = tb.get(mat).map_err(tb_error)?.is_some();
                    let start = std::time::Instant::now();
                    let progress = |s: &str| eprintln!("info {s}");
                    let t = tb.ensure(mat, &progress).map_err(tb_error)?;
                    let secs = start.elapsed().as_secs_f64();
                    // A table read back (or built as a smaller one before)
                    // has no generation time of its own.
                    print_summary(&v, &t, (!there).then_some(secs))?;
                }
                Ok(())
            })
        }
        TablebaseCommand::Stats {
            args,
            material,
            quiet,
        } => {
            let (v, _, tb) = open(args)?;
            pool(args.threads)?.install(|| {
                for m in material {
                    let t = stored(&tb, m, args)?;
                    print_summary(&v, &t, None)?;
                    if *quiet {
                        let q = ndchess::tablebase::stats::quiet_stats(&t, &v);
                        let mut out = std::io::stdout().lock();
                        for (side, (classes, positions)) in q.iter().enumerate() {
                            let who = v.seating.name(ndchess::board::seating::Seat::new(side));
                            writeln!(
                                out,
                                "  quiet, {who} to move: {} classes: {}",
                                classes.total(),
                                counts_line(classes)
                            )
                            .map_err(io)?;
                            if let Some(p) = positions {
                                writeln!(
                                    out,
                                    "  quiet, {who} to move: {} positions: {}",
                                    p.total(),
                                    counts_line(p)
                                )
                                .map_err(io)?;
                            }
                        }
                    }
                }
                Ok(())
            })
        }
        TablebaseCommand::Verify { args, material } => {
            let (v, _, tb) = open(args)?;
            pool(args.threads)?.install(|| {
                for m in material {
                    let t = stored(&tb, m, args)?;
                    let checked = ndchess::tablebase::verify::verify(&tb, &t).map_err(tb_error)?;
                    println!(
                        "{} on {}: {checked} positions agree with their moves",
                        t.material.name(&v),
                        v.spec
                    );
                }
                Ok(())
            })
        }
        TablebaseCommand::Probe { args } => {
            let (_, pos, tb) = open(args)?;
            probe(&pos, &tb)
        }
    }
}

fn probe(pos: &Position, tb: &Tablebases) -> Result<(), CommandError> {
    let mut out = std::io::stdout().lock();
    let Some(value) = tb.probe(pos).map_err(tb_error)? else {
        return Err(CommandError::Other(
            "no table holds this position (castling rights, or its material is not generated)"
                .into(),
        ));
    };
    writeln!(out, "{value}").map_err(io)?;
    if let Some(moves) = tb.rank_moves(pos).map_err(tb_error)? {
        let best: Vec<String> = moves
            .iter()
            .filter(|(_, v)| *v == value)
            .map(|(m, _)| long_notation(pos, *m))
            .collect();
        if !best.is_empty() {
            writeln!(out, "best moves: {}", best.join(" ")).map_err(io)?;
        }
        for (m, v) in moves {
            writeln!(out, "  {:<10} {v}", long_notation(pos, m)).map_err(io)?;
        }
    }
    Ok(())
}

fn counts_line(c: &Counts) -> String {
    let mut s = format!(
        "{} won, {} drawn, {} lost",
        c.mate_wins + c.stalemate_wins,
        c.draws,
        c.mate_losses + c.stalemate_losses
    );
    if c.stalemate_wins + c.stalemate_losses > 0 {
        s.push_str(&format!(
            " (won by stalemate {}, lost by stalemate {})",
            c.stalemate_wins, c.stalemate_losses
        ));
    }
    s
}

fn print_summary(v: &Arc<Variant>, t: &Table, secs: Option<f64>) -> Result<(), CommandError> {
    let mut out = std::io::stdout().lock();
    let name = t.material.name(v);
    let s = stats(t);
    write!(
        out,
        "{name} on {}: {} entries, {} symmetries",
        v.spec,
        t.layout.size,
        t.layout.maps.len()
    )
    .map_err(io)?;
    if let Some(secs) = secs {
        write!(
            out,
            ", {secs:.2} s ({:.0} entries/s)",
            t.layout.size as f64 / secs.max(1e-9)
        )
        .map_err(io)?;
    }
    writeln!(out).map_err(io)?;
    for (side, st) in s.iter().enumerate() {
        let who = v.seating.name(ndchess::board::seating::Seat::new(side));
        writeln!(
            out,
            "  {who} to move: {} classes: {}",
            st.classes.total(),
            counts_line(&st.classes)
        )
        .map_err(io)?;
        if let Some(p) = &st.positions {
            writeln!(
                out,
                "  {who} to move: {} positions: {}",
                p.total(),
                counts_line(p)
            )
            .map_err(io)?;
        }
        let example = |idx: u64| {
            let (cells, sd) = t.layout.decode(idx);
            position_of(v, &t.layout, &cells[..t.layout.len()], sd)
                .map(|p| p.to_text())
                .unwrap_or_default()
        };
        if let Some((plies, idx, n)) = st.longest_mate {
            writeln!(
                out,
                "  {who} to move: longest mate {} moves ({n} classes), e.g. {}",
                plies.div_ceil(2),
                example(idx)
            )
            .map_err(io)?;
        }
        if let Some((plies, idx, n)) = st.longest_stalemate {
            writeln!(
                out,
                "  {who} to move: longest stalemate win {} moves ({n} classes), e.g. {}",
                plies.div_ceil(2),
                example(idx)
            )
            .map_err(io)?;
        }
        if let Some((plies, idx, n)) = st.longest_mated
            && plies > 0
        {
            writeln!(
                out,
                "  {who} to move: longest loss mated in {} moves ({n} classes), e.g. {}",
                plies / 2,
                example(idx)
            )
            .map_err(io)?;
        }
    }
    Ok(())
}
