//! The `ndchess` binary: wires clap subcommands to [`ndchess::commands`].

use clap::{Parser, Subcommand};
use ndchess::commands::{self, VariantArgs};

#[derive(Parser)]
#[command(name = "ndchess", version, about = "Chess engine for boards of any dimension and shape")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal move tree (correctness work).
    Perft {
        #[command(flatten)]
        variant: VariantArgs,
        /// Depth in plies.
        #[arg(long, short)]
        depth: u32,
        /// Print one `<move>: <count>` line per root move.
        #[arg(long)]
        divide: bool,
        /// Threads for the root moves (0 = all cores).
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Draw a position.
    Show {
        #[command(flatten)]
        variant: VariantArgs,
    },
    /// List every variant with its parameters, cell count and army.
    Variants,
    /// Empty-board mobility of each piece kind (seed 001's theory).
    Mobility {
        #[command(flatten)]
        variant: VariantArgs,
    },
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft {
            variant,
            depth,
            divide,
            threads,
        } => commands::perft(&variant, depth, divide, threads),
        Command::Show { variant } => commands::show(&variant),
        Command::Variants => commands::variants(),
        Command::Mobility { variant } => commands::mobility(&variant),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}
