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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: shakmaty_perft DEPTH [FEN]";
    let Some(depth) = args.first().and_then(|d| d.parse::<u32>().ok()) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let pos: Chess = match args.get(1) {
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
    println!("{}", shakmaty::perft(&pos, depth));
}
