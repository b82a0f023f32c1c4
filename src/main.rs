//! The `ndchess` binary: wires clap subcommands to the CLI front-end
//! (`cli`).

use clap::{Parser, Subcommand};
mod cli;

use cli::VariantArgs;
use cli::{arbiter, gui, inspect, play, search, solve, tablebase, tune};

#[derive(Parser)]
#[command(
    name = "ndchess",
    version,
    about = "Chess engine for boards of any dimension and shape"
)]
struct Cli {
    /// Without a subcommand, ndchess speaks a GUI protocol on stdin/stdout:
    /// UCI, or XBoard when the first command is `xboard`.
    #[command(subcommand)]
    command: Option<Command>,
    /// Load the variants defined in this file (docs/variants-file.md);
    /// their names then work wherever a variant spec does.
    #[arg(long, global = true, value_name = "FILE")]
    variants_file: Option<std::path::PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Speak UCI on stdin/stdout (also the default without a subcommand).
    Uci,
    /// Speak XBoard (CECP v2) on stdin/stdout (also chosen without a
    /// subcommand when the first command is `xboard`).
    Xboard,
    /// Count the leaf nodes of the legal move tree (correctness work).
    Perft(inspect::PerftArgs),
    /// Draw a position.
    Show {
        #[command(flatten)]
        variant: VariantArgs,
    },
    /// Draw a position as an SVG document on stdout (the web GUI's
    /// drawing; n-D boards as grids of slices).
    Svg(gui::SvgArgs),
    /// Serve the web GUI: play and analyse every variant in a browser
    /// (docs/gui.md).
    Serve(gui::ServeArgs),
    /// List every variant with its parameters, cell count and army.
    Variants,
    /// Empty-board mobility of each piece kind (seed 001's theory).
    Mobility {
        #[command(flatten)]
        variant: VariantArgs,
    },
    /// Analyse a position: UCI-style `info` lines and `bestmove`.
    Analyse(search::AnalyseArgs),
    /// Play a complete self-play game from the start position.
    Play(play::PlayArgs),
    /// Search a fixed set of positions of several variants to a fixed depth
    /// (single thread): total nodes (the search's signature) and speed.
    Bench {
        /// Base depth in plies.
        #[arg(long, short)]
        depth: Option<u32>,
    },
    /// Referee a match between two engines (UCI or XBoard) in any variant;
    /// cutechess-cli-style options (docs/arbiter.md).
    Match(arbiter::ArbiterArgs),
    /// Referee a round robin or gauntlet of several engines;
    /// `tournament merge JOURNAL…` combines shards (docs/arbiter.md).
    Tournament(arbiter::ArbiterArgs),
    /// Puzzle solvers: queens, non-attacking placements, knight's tours
    /// (docs/solve.md).
    Solve {
        /// Print one JSON object instead of text.
        #[arg(long, global = true)]
        json: bool,
        /// Threads for the parallel solvers (0: one per core).
        #[arg(long, global = true, default_value_t = 0)]
        threads: usize,
        #[command(subcommand)]
        problem: solve::Problem,
    },
    /// Endgame tables: generate, probe, stats, verify
    /// (docs/tablebases.md).
    Tablebase {
        #[command(subcommand)]
        command: tablebase::TablebaseCommand,
    },
    /// Tune the evaluation weights to self-play results: `data` plays
    /// the games, `fit` fits the weights (docs/engine.md, "Tuning").
    Tune {
        #[command(subcommand)]
        command: tune::TuneCommand,
    },
    /// PGN tools.
    Pgn {
        #[command(subcommand)]
        command: PgnCommand,
    },
    /// Check the start position (or --fen) against the T4.2 axioms.
    Axioms {
        #[command(flatten)]
        variant: VariantArgs,
    },
}

#[derive(Subcommand)]
enum PgnCommand {
    /// Replay every game with the engine's rules: legal moves, result and
    /// termination; prints each game's final position.
    Check {
        /// PGN files.
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
}

fn main() {
    let cli = Cli::parse();
    if let Some(path) = &cli.variants_file
        && let Err(e) = ndchess::rules::notation::variant_file::load_file(path)
    {
        eprintln!("error: variants file {e}");
        std::process::exit(2);
    }
    let Some(command) = cli.command else {
        if let Err(e) = cli::protocol(ndchess::protocol::Mode::Auto) {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
        return;
    };
    let result = match command {
        Command::Uci => cli::protocol(ndchess::protocol::Mode::Uci),
        Command::Xboard => cli::protocol(ndchess::protocol::Mode::XBoard),
        Command::Perft(args) => inspect::perft_command(&args),
        Command::Show { variant } => inspect::show(&variant),
        Command::Variants => inspect::variants(),
        Command::Svg(args) => gui::svg_command(&args),
        Command::Serve(args) => gui::serve_command(&args),
        Command::Mobility { variant } => inspect::mobility(&variant),
        Command::Axioms { variant } => inspect::axioms(&variant),
        Command::Analyse(args) => search::analyse(&args),
        Command::Play(args) => play::play(&args).map(|_| ()),
        Command::Bench { depth } => search::bench(depth),
        Command::Solve {
            json,
            threads,
            problem,
        } => solve::solve(&problem, json, threads),
        Command::Tablebase { command } => tablebase::run(&command),
        Command::Tune { command } => tune::run(&command),
        Command::Match(args) => arbiter::run(&args, false),
        Command::Tournament(args) => arbiter::run(&args, true),
        Command::Pgn {
            command: PgnCommand::Check { files },
        } => arbiter::pgn_check(&files),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}
