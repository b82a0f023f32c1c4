//! shakmaty's perft as a process of its own, for the whole-process half of
//! the perft comparison (docs/performance.md): start-up included, as a user
//! running `ndchess perft` pays it.
//!
//! `cargo run --release --example shakmaty_perft -- DEPTH [FEN]` prints the
//! node count of perft(DEPTH) from FEN (default: the chess start), counted
//! by `shakmaty::perft` on one thread. Timed beside
//! `ndchess perft --depth DEPTH --threads 1` by the loop in
//! docs/performance.md.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

/// The command line (see the module documentation).
#[derive(clap::Parser)]
struct Args {
    /// Plies to count.
    depth: u32,
    /// The position (default: the chess start).
    fen: Option<String>,
}

fn main() {
    let args = <Args as clap::Parser>::parse();
    let pos: Chess = match &args.fen {
        None => Chess::default(),
        Some(text) => {
            let parsed = text
                .parse::<Fen>()
                .map_err(|e| e.to_string())
                .and_then(|f| {
                    f.into_position(CastlingMode::Standard)
                        .map_err(|e| e.to_string())
                });
            match parsed {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("shakmaty_perft: bad FEN: {e}");
                    std::process::exit(2);
                }
            }
        }
    };
    println!("{}", shakmaty::perft(&pos, args.depth));
}
