//! The command-line subcommands' work, kept out of `main.rs` so that the
//! binary only wires arguments and tests can call the same code.

use std::fmt;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;

use crate::mobility;
use crate::movegen;
use crate::notation;
use crate::position::{Position, PositionError};
use crate::variant::{VARIANT_NAMES, Variant, VariantError};

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
pub fn perft(args: &VariantArgs, depth: u32, divide: bool, threads: usize) -> Result<(), CommandError> {
    let (_v, pos) = args.load()?;
    let started = Instant::now();
    let king_takes_rook = pos.king_takes_rook();
    let total = if depth == 0 {
        1
    } else if threads == 1 && !divide {
        let mut p = pos.clone();
        movegen::perft(&mut p, depth)
    } else {
        let results = movegen::perft_divide(&pos, depth, threads)
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
    for &(_, p) in v.start.iter().filter(|(_, p)| crate::variant::piece_player(*p) == 0) {
        let letter = v.kinds[crate::variant::piece_kind(p)].letter;
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
        v.players.len(),
        army.join(" ")
    )
}

/// `ndchess variants`.
pub fn variants() -> Result<(), CommandError> {
    println!("Variant specs are name[:key=value,...]:");
    println!("  chess");
    println!("  chess960          sp=0..959 (Scharnagl number; random if absent; 518 = classical)");
    println!("  cylinder          wrapcastling=0|1 (default 1: four castlings)");
    println!("  torus             wrapcastling=0|1 (default 1)");
    println!("  diamond           n=3..6 (default 3), l=8,10,..,26 (default 8), setup=8.1|8.2|8.3");
    println!("  cylinder-diamond  n, l, setup as diamond; axes 2..n wrap");
    println!("  cube              Schach hoch 3, the 4x4x4 cube");
    println!();
    for spec in [
        "chess",
        "chess960:sp=518",
        "cylinder",
        "torus",
        "diamond:n=3",
        "diamond:n=3,setup=8.3",
        "diamond:n=4",
        "diamond:n=4,setup=8.3",
        "diamond:n=5",
        "diamond:n=3,l=10",
        "cylinder-diamond:n=3",
        "cube",
    ] {
        let v = Variant::from_spec(spec).map_err(CommandError::Variant)?;
        println!("{}", describe_variant(&v));
    }
    debug_assert!(VARIANT_NAMES.len() >= 7);
    Ok(())
}

/// `ndchess mobility`.
pub fn mobility(args: &VariantArgs) -> Result<(), CommandError> {
    let (v, _) = args.load()?;
    let r = mobility::report(&v);
    println!("variant {}", v.spec);
    println!("{:<14} {:>6} {:>8} {:>10}", "piece", "cells", "total", "average");
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
