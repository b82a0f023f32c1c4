//! `ndchess play`: a complete self-play game through the game driver,
//! every step printed in the seed's long notation and in coordinates, the
//! board every few moves, and the result with its reason.

use std::io::Write;
use std::time::Duration;

use clap::Args;

use ndchess::board::party::Fate;
use ndchess::board::registry;
use ndchess::board::seating::Seat;
use ndchess::board::variant::Variant;
use ndchess::game::{
    DriverOptions, EnginePlayer, Game, GameEnd, Player, PlayerError, RandomPlayer, Request, Step,
    Verdict, run,
};
use ndchess::protocol::text::result_text;
use ndchess::rules::moves::MoveKind;
use ndchess::rules::notation::{self, san};
use ndchess::search::multi::MultiAlgorithm;
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
    /// The search of multi-party games (more than two players) for every
    /// seat without a `--seat` setting.
    #[arg(long, default_value_t = MultiAlgorithm::DEFAULT.name().to_string())]
    pub multi_search: String,
    /// Search settings of one seat, `SEAT:KEY=VALUE[,KEY=VALUE…]` with
    /// keys `search` (paranoid, brs, maxn), `depth`, `nodes`, `movetime`
    /// (ms), `threads`; e.g. `--seat w2:search=brs,depth=3` (repeatable).
    /// The seat plays with its own engine.
    #[arg(long = "seat")]
    pub seats: Vec<String>,
}

/// One seat's own search settings (`--seat`).
#[derive(Clone, Debug, PartialEq)]
pub struct SeatSettings {
    /// The seat.
    pub seat: Seat,
    /// Multi-party search.
    pub search: Option<MultiAlgorithm>,
    /// Search limits.
    pub limits: Option<Limits>,
    /// Threads.
    pub threads: Option<usize>,
}

/// Reads a `--seat` setting of variant `v`.
pub fn parse_seat_settings(v: &Variant, text: &str) -> Result<SeatSettings, String> {
    let (name, rest) = text
        .split_once(':')
        .ok_or_else(|| format!("--seat {text:?}: expected SEAT:KEY=VALUE[,KEY=VALUE…]"))?;
    let seat = v
        .seating
        .seats()
        .find(|&s| v.seating.name(s).eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| {
            let names: Vec<&str> = v.seating.seats().map(|s| v.seating.name(s)).collect();
            format!(
                "--seat {text:?}: no seat {name:?} in {} (seats: {})",
                v.spec,
                names.join(", ")
            )
        })?;
    let mut settings = SeatSettings {
        seat,
        search: None,
        limits: None,
        threads: None,
    };
    for item in rest.split(',').filter(|i| !i.trim().is_empty()) {
        let (key, value) = item
            .split_once('=')
            .ok_or_else(|| format!("--seat {text:?}: {item:?} is not KEY=VALUE"))?;
        let number = |what: &str| {
            value
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("--seat {text:?}: {what} must be a positive integer"))
        };
        match key.trim() {
            "search" => {
                settings.search = Some(MultiAlgorithm::parse(value).ok_or_else(|| {
                    format!("--seat {text:?}: search must be paranoid, brs or maxn")
                })?)
            }
            "depth" => settings.limits = Some(Limits::depth(number("depth")? as u32)),
            "nodes" => {
                settings.limits = Some(Limits {
                    nodes: Some(number("nodes")?),
                    ..Limits::default()
                })
            }
            "movetime" => {
                settings.limits = Some(Limits::movetime(Duration::from_millis(number("movetime")?)))
            }
            "threads" => settings.threads = Some(number("threads")? as usize),
            other => {
                return Err(format!(
                    "--seat {text:?}: unknown key {other:?} (search, depth, nodes, movetime, threads)"
                ));
            }
        }
    }
    Ok(settings)
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
    let default_search = MultiAlgorithm::parse(&args.multi_search).ok_or_else(|| {
        CommandError::Other(format!(
            "--multi-search {:?}: expected paranoid, brs or maxn",
            args.multi_search
        ))
    })?;
    let seat_settings = args
        .seats
        .iter()
        .map(|t| parse_seat_settings(&v, t))
        .collect::<Result<Vec<_>, _>>()
        .map_err(CommandError::Other)?;
    let seats = v.seat_count();
    // Player 0 plays every seat without settings of its own; each seat
    // with `--seat` gets its own engine.
    let make_player = |name: String, opts: EngineOptions, limits: Limits, search| {
        let mut engine = EnginePlayer::new(name, opts, limits);
        engine.engine().set_tablebase_path(args.tablebases.clone());
        engine.engine().set_multi_algorithm(search);
        SelfPlay {
            engine,
            opening: RandomPlayer::new(args.seed.unwrap_or(0)),
            random_plies: if args.seed.is_some() { 2 } else { 0 },
        }
    };
    let mut players = vec![make_player(
        "ndchess".into(),
        options.clone(),
        limits.clone(),
        default_search,
    )];
    let mut seat_player = vec![0usize; seats];
    for s in &seat_settings {
        seat_player[s.seat.index()] = players.len();
        let search = s.search.unwrap_or(default_search);
        players.push(make_player(
            format!("ndchess {} ({search})", v.seating.name(s.seat)),
            EngineOptions {
                threads: s.threads.unwrap_or(options.threads).max(1),
                ..options.clone()
            },
            s.limits.clone().unwrap_or_else(|| limits.clone()),
            search,
        ));
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "variant {}", v.spec).map_err(io)?;
    if v.rules.party.is_some() {
        let who: Vec<String> = v
            .seating
            .order()
            .iter()
            .map(|&s| {
                let search = seat_settings
                    .iter()
                    .find(|x| x.seat == s)
                    .and_then(|x| x.search)
                    .unwrap_or(default_search);
                format!("{}={search}", v.seating.name(s))
            })
            .collect();
        writeln!(out, "seats {}", who.join(" ")).map_err(io)?;
    }
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
        // Who went out with this step, and why.
        let gone = game.position().turn_state().fates;
        let was = before.turn_state().fates;
        let mut outs = String::new();
        for s in v.seating.seats() {
            if let (Some(f), None) = (gone.of(s), was.of(s)) {
                let why = match (f, &ply.step) {
                    (Fate::Won, _) => "its opponent went out: won",
                    (Fate::Drawn, Step::Move(m)) if m.kind == MoveKind::Out => "stalemated: drawn",
                    (Fate::Drawn, _) => "its game drawn",
                    (Fate::Lost, Step::Move(m)) if m.kind == MoveKind::Out => "mated: lost",
                    (Fate::Lost, _) => "king captured: lost",
                };
                outs.push_str(&format!("\n   {} out ({why})", v.seating.name(s)));
            }
        }
        let line = format!("{}{outs}", line.trim_end());
        let written = writeln!(out, "{line}").and_then(|_| {
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
    let mut refs: Vec<&mut dyn Player> = players.iter_mut().map(|p| p as &mut dyn Player).collect();
    let end = run(
        &mut game,
        &mut refs,
        &ndchess::board::seating::BySeat::from_fn(seats, |s| seat_player[s.index()]),
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
    if v.rules.party.is_some() {
        let o = end.outcome();
        let scores: Vec<String> = v
            .seating
            .seats()
            .map(|s| format!("{} {}", v.seating.name(s), o.points.values()[s.index()]))
            .collect();
        writeln!(out, "scores {}", scores.join(", ")).map_err(io)?;
    }
    Ok(end)
}
