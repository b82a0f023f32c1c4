//! `ndchess play`: a complete self-play game through the game driver,
//! every step printed in the seed's long notation and in coordinates, the
//! board every few moves, and the result with its reason.

use std::io::Write;
use std::time::Duration;

use clap::Args;

use ndchess::board::registry;
use ndchess::game::{
    DriverOptions, EnginePlayer, Game, GameEnd, Player, PlayerError, RandomPlayer, Request, Step,
    Verdict, run,
};
use ndchess::protocol::text::result_text;
use ndchess::rules::notation::{self, san};
use ndchess::search::{EngineOptions, Limits};

use super::{CommandError, VariantArgs, io};

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
    /// Safety limit in moves (per seat); reaching it is adjudicated a
    /// draw. Rarely needed: repetition and the 50-move rule end games first
    /// where they apply.
    #[arg(long, default_value_t = 500)]
    pub max_moves: u32,
    /// Directory of endgame tables to probe (docs/tablebases.md).
    #[arg(long)]
    pub tablebases: Option<std::path::PathBuf>,
}

/// The parameters a spec leaves to chance (a Chess960 start number),
/// drawn from `seed` instead, so that a seeded game is reproducible.
fn seeded_params(spec: &str, seed: u64) -> Vec<String> {
    let Ok((family, _)) = registry::parse(spec) else {
        return Vec::new();
    };
    let given = |key: &str| {
        spec.split_once(':')
            .is_some_and(|(_, rest)| rest.split(',').any(|i| i.trim().starts_with(key)))
    };
    family
        .parameters()
        .filter(|p| p.default == registry::ParamDefault::Random && !given(p.key))
        .filter_map(|p| match p.kind {
            registry::ParamKind::Int { min, max, .. } => {
                let span = (max - min + 1) as u64;
                Some(format!("{}={}", p.key, min + (seed % span) as i64))
            }
            _ => None,
        })
        .collect()
}

/// The engine, after a few random plies that vary the opening.
struct SelfPlay {
    engine: EnginePlayer,
    opening: RandomPlayer,
    random_plies: usize,
}

impl Player for SelfPlay {
    fn name(&self) -> String {
        self.engine.name()
    }

    fn new_game(&mut self, game: &Game) -> Result<(), PlayerError> {
        self.engine.new_game(game)
    }

    fn decide(&mut self, request: &Request<'_>) -> Result<Verdict, PlayerError> {
        if request.game.plies().len() < self.random_plies {
            let mut v = self.opening.decide(request)?;
            v.note = Some("random opening move".into());
            return Ok(v);
        }
        self.engine.decide(request)
    }
}

/// `ndchess play`: a complete self-play game from the start position.
pub fn play(args: &PlayArgs) -> Result<GameEnd, CommandError> {
    let mut vargs = args.variant.clone();
    if let Some(seed) = args.seed {
        vargs.params.extend(seeded_params(&vargs.spec(), seed));
    }
    let (v, pos) = vargs.load()?;
    let limits = match args.depth {
        Some(d) => Limits::depth(d),
        None => Limits::movetime(Duration::from_millis(args.movetime.max(1))),
    };
    let options = EngineOptions {
        threads: args.threads.max(1),
        hash_mb: args.hash,
        ..EngineOptions::default()
    };
    let mut engine = EnginePlayer::new("ndchess", options, limits);
    engine.engine().set_tablebase_path(args.tablebases.clone());
    let mut player = SelfPlay {
        engine,
        opening: RandomPlayer::new(args.seed.unwrap_or(0)),
        random_plies: if args.seed.is_some() { 2 } else { 0 },
    };
    let seats = v.seat_count();
    let mut out = std::io::stdout().lock();
    writeln!(out, "variant {}", v.spec).map_err(io)?;
    write!(out, "{}", notation::diagram(&pos)).map_err(io)?;
    let mut game = Game::new(pos.clone());
    // The position before each step, for the seed's notation of it.
    let mut before = pos;
    let mut failed: Option<std::io::Error> = None;
    let options = DriverOptions {
        max_plies: Some(args.max_moves as usize * seats),
        ..DriverOptions::default()
    };
    let mut print = |game: &Game| {
        let Some(ply) = game.plies().last() else {
            return;
        };
        let seat = ply.seats.lowest().unwrap_or_default();
        let dots = if seat == v.seating.order()[0] {
            "."
        } else {
            "..."
        };
        let long = match &ply.step {
            Step::Move(m) => san::long_notation(&before, *m),
            // Each seat's decision in the seed's long notation, in seat
            // order (`-` a pass); an exchange step is marked.
            Step::Joint(j) => {
                let parts: Vec<String> = (0..v.seat_count())
                    .map(|i| match j.get(ndchess::board::seating::Seat::new(i)) {
                        Some(ndchess::rules::moves::Decision::Move(m)) => {
                            san::long_notation(&before, m)
                        }
                        _ => "-".into(),
                    })
                    .collect();
                let exchange = if before.phase() == ndchess::board::seating::Phase::Exchange {
                    "exchange: "
                } else {
                    ""
                };
                format!("{exchange}{}", parts.join(" | "))
            }
        };
        // Who decided: the seat, or every deciding seat of a joint step.
        let who: Vec<&str> = ply.seats.iter().map(|s| v.seating.name(s)).collect();
        let line = format!(
            "{}{dots} {:<16} {:<10} {} {}",
            ply.number,
            long,
            ply.text,
            who.join("+"),
            ply.note.as_deref().unwrap_or("")
        );
        let board = args.board_every > 0
            && game
                .plies()
                .len()
                .is_multiple_of(args.board_every as usize * seats);
        let written = writeln!(out, "{}", line.trim_end()).and_then(|_| {
            if board {
                write!(out, "{}", notation::diagram(game.position()))
            } else {
                Ok(())
            }
        });
        if let Err(e) = written {
            failed.get_or_insert(e);
        }
        before = game.position().clone();
    };
    let end = run(
        &mut game,
        &mut [&mut player],
        &ndchess::board::seating::BySeat::from_fn(seats, |_| 0),
        &options,
        &mut print,
    );
    if let Some(e) = failed {
        return Err(io(e));
    }
    write!(out, "{}", notation::diagram(game.position())).map_err(io)?;
    writeln!(
        out,
        "result {} ({}) after {} plies",
        result_text(end.outcome()),
        end.reason(&game),
        game.plies().len()
    )
    .map_err(io)?;
    Ok(end)
}
