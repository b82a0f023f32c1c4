//! Randomized robustness test of the UCI front-end (issue acceptance 4):
//! at least 100,000 random, mutated and garbage protocol lines and
//! position texts go through `Uci::handle` in-process. Checked for every
//! line: no panic (the test thread would die), no internal error reported
//! from the engine thread (a caught panic there), every output line of a
//! known form, and every refused line leaves the session exactly as it was.
//!
//! The seed is fixed so that CI runs are reproducible; set
//! `NDCHESS_FUZZ_SEED` and `NDCHESS_FUZZ_LINES` to explore further. Inputs
//! that once found a bug are kept in tests/data/uci_corpus/ and replayed
//! first.

use crate::fuzz_support;
use crossbeam_channel::{Receiver, unbounded};
use fuzz_support::{assert_printable, corpus, garbage, mutate, pick, seed_and_lines};
use ndchess::protocol::InputLine;
use ndchess::protocol::session::{SessionConfig, Settings};
use ndchess::protocol::uci::{Flow, Uci};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Small limits: random `Hash`/`Threads` values must not allocate
/// gigabytes or spawn hundreds of threads.
const CONFIG: SessionConfig = SessionConfig {
    max_hash_mb: 4,
    max_threads: 2,
};

#[derive(Debug, PartialEq)]
struct Snapshot {
    settings: Settings,
    variant: String,
    position: Option<(String, usize)>,
}

fn snapshot(u: &Uci) -> Snapshot {
    let s = u.session();
    Snapshot {
        settings: s.settings().clone(),
        variant: s.variant().spec.clone(),
        position: s.position().map(|p| (p.to_text(), p.ply_count())),
    }
}

/// Whether `line` is a line the engine may write.
fn known_output(line: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "id name ",
        "id author ",
        "option name ",
        "info depth ",
        "info string ",
        "bestmove ",
        "Nodes searched: ",
    ];
    if line == "uciok" || line == "readyok" {
        return true;
    }
    if PREFIXES.iter().any(|p| line.starts_with(p)) {
        return !line.contains('\n');
    }
    // A `go perft` line: `<move>: <count>`.
    match line.split_once(": ") {
        Some((m, n)) => !m.is_empty() && !m.contains(' ') && n.parse::<u64>().is_ok(),
        None => false,
    }
}

struct Harness {
    uci: Uci,
    rx: Receiver<String>,
    lines: usize,
    refused: usize,
    searches: usize,
    output: usize,
}

impl Harness {
    fn new() -> Harness {
        let (tx, rx) = unbounded();
        Harness {
            uci: Uci::new(tx, CONFIG),
            rx,
            lines: 0,
            refused: 0,
            searches: 0,
            output: 0,
        }
    }

    fn drain(&mut self, context: &str) -> Vec<String> {
        let got: Vec<String> = self.rx.try_iter().collect();
        for l in &got {
            assert!(known_output(l), "unknown output {l:?} after {context:?}");
            assert_printable(l, l.starts_with("info string error"), context);
            assert!(
                !l.starts_with("info string error: internal"),
                "engine-thread failure {l:?} after {context:?}"
            );
        }
        self.output += got.len();
        got
    }

    /// Feeds one line and checks the invariants.
    fn feed(&mut self, line: &str) {
        self.lines += 1;
        let before = snapshot(&self.uci);
        let flow = self.uci.handle(line);
        let was_busy = self.uci.session().host().busy();
        let out = self.drain(line);
        let refused = out.iter().any(|l| {
            l.starts_with("info string error:") && !l.starts_with("info string error: internal")
        });
        if refused {
            self.refused += 1;
            assert_eq!(
                snapshot(&self.uci),
                before,
                "a refused line changed the session: {line:?} -> {out:?}"
            );
        }
        if was_busy || flow == Flow::Quit {
            self.searches += 1;
            // Unbounded searches (infinite, ponder) only end on `stop`.
            self.uci.handle("stop");
            self.uci.wait_idle();
            self.drain(line);
        }
    }
}

const OPTION_NAMES: &[&str] = &[
    "Hash",
    "Threads",
    "MultiPV",
    "Ponder",
    "Move Overhead",
    "Clear Hash",
    "UCI_Chess960",
    "UCI_ShowWDL",
    "UCI_Variant",
    "Dimension",
    "EdgeLength",
    "DiamondSetup",
    "WrapCastling",
    "Chess960Number",
    "uci_variant",
    "move overhead",
    "NoSuchOption",
];

const VARIANTS: &[&str] = &[
    "chess",
    "chess960",
    "cylinder",
    "torus",
    "diamond",
    "cylinder-diamond",
    "cube",
    "CUBE",
    "checkers",
    "",
];

fn option_value(rng: &mut SmallRng, name: &str) -> String {
    match name.to_ascii_lowercase().as_str() {
        "uci_variant" => pick(rng, VARIANTS).to_string(),
        // Mostly the cheap boards: a 6-D diamond takes a second to build.
        "dimension" => pick(rng, &["3", "3", "4", "4", "5", "2", "7", "x"]).to_string(),
        "edgelength" => pick(rng, &["8", "8", "10", "9", "6", "28", "12"]).to_string(),
        "diamondsetup" => pick(rng, &["auto", "8.1", "8.2", "8.3", "8.4"]).to_string(),
        "ponder" | "uci_chess960" | "uci_showwdl" | "wrapcastling" => {
            pick(rng, &["true", "false", "TRUE", "maybe"]).to_string()
        }
        _ => match rng.random_range(0..6) {
            0 => "-1".to_string(),
            1 => u64::MAX.to_string(),
            2 => "abc".to_string(),
            _ => rng.random_range(0..1000).to_string(),
        },
    }
}

/// Legal moves from the session's position (or the start), written as
/// the engine writes them.
fn random_game(rng: &mut SmallRng, u: &Uci, plies: usize) -> (Option<String>, Vec<String>) {
    let s = u.session();
    let ktr = s.king_takes_rook();
    let (fen, mut pos) = match s.position() {
        Some(p) if rng.random_bool(0.5) => (Some(p.to_text()), p.clone()),
        _ => (None, s.start_position()),
    };
    let mut moves = Vec::new();
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = *pick(rng, &legal);
        moves.push(pos.move_text(m, ktr));
        pos.make(m);
    }
    (fen, moves)
}

fn valid_line(rng: &mut SmallRng, u: &Uci) -> String {
    match rng.random_range(0..20) {
        0 => pick(
            rng,
            &[
                "uci",
                "isready",
                "ucinewgame",
                "stop",
                "ponderhit",
                "debug on",
                "debug off",
                "register later",
            ],
        )
        .to_string(),
        1..=5 => {
            let name = *pick(rng, OPTION_NAMES);
            if rng.random_bool(0.1) {
                format!("setoption name {name}")
            } else {
                format!("setoption name {name} value {}", option_value(rng, name))
            }
        }
        6..=10 => {
            let plies = rng.random_range(0..12);
            let (fen, moves) = random_game(rng, u, plies);
            let mut line = match fen {
                Some(f) => format!("position fen {f}"),
                None => "position startpos".to_string(),
            };
            if !moves.is_empty() || rng.random_bool(0.2) {
                line.push_str(" moves");
                for m in moves {
                    line.push(' ');
                    line.push_str(&m);
                }
            }
            line
        }
        11..=12 => format!("go perft {}", rng.random_range(0..3)),
        _ => {
            let mut line = "go".to_string();
            let params: [&dyn Fn(&mut SmallRng) -> String; 12] = [
                &|r| format!(" depth {}", r.random_range(0..4)),
                &|r| format!(" nodes {}", r.random_range(0..3000)),
                &|r| format!(" movetime {}", r.random_range(0..6)),
                &|r| {
                    format!(
                        " wtime {} btime {}",
                        r.random_range(-50..200),
                        r.random_range(-50..200)
                    )
                },
                &|r| {
                    format!(
                        " winc {} binc {}",
                        r.random_range(0..20),
                        r.random_range(0..20)
                    )
                },
                &|r| format!(" movestogo {}", r.random_range(0..40)),
                &|r| format!(" mate {}", r.random_range(0..3)),
                &|_| " infinite".to_string(),
                &|_| " ponder".to_string(),
                &|r| format!(" depth {}", r.random_range(0..4)),
                &|r| format!(" nodes {}", r.random_range(0..500)),
                &|_| String::new(),
            ];
            for _ in 0..rng.random_range(1..4) {
                line.push_str(&pick(rng, &params)(rng));
            }
            if rng.random_bool(0.1) {
                let (_, moves) = random_game(rng, u, 1);
                if let Some(m) = moves.first() {
                    line.push_str(" searchmoves ");
                    line.push_str(m);
                }
            }
            line
        }
    }
}

/// A position text of the current variant, mutated in its fields.
fn mutated_position(rng: &mut SmallRng, u: &Uci) -> String {
    let plies = rng.random_range(0..20);
    let (fen, moves) = random_game(rng, u, plies);
    let s = u.session();
    // The session's position text does not always read back: moves played
    // after a text with a move number near the reader's limit (100,000)
    // count past it (found by this test, seed 11); start afresh then.
    let (mut pos, moves) = match fen {
        Some(f) => match ndchess::rules::position::Position::from_text(s.variant(), &f) {
            Ok(p) => (p, moves),
            Err(_) => (s.start_position(), Vec::new()),
        },
        None => (s.start_position(), moves),
    };
    for m in &moves {
        let mv = pos.parse_move(m).expect("generated moves are legal");
        pos.make(mv);
    }
    let text = pos.to_text();
    let mut fields: Vec<String> = text.split(' ').map(str::to_string).collect();
    let i = rng.random_range(0..fields.len());
    fields[i] = mutate(rng, &fields[i]);
    if rng.random_bool(0.2) {
        fields.truncate(rng.random_range(0..fields.len()));
    }
    format!("position fen {}", fields.join(" "))
}

fn replay_corpus(h: &mut Harness) -> usize {
    let mut n = 0;
    for file in corpus("uci_corpus") {
        for l in file {
            match l {
                InputLine::Text(t) => h.feed(&t),
                InputLine::TooLong(len) => h.uci.reject_long_line(len),
            }
            n += 1;
        }
    }
    n
}

#[test]
fn uci_survives_random_and_mutated_input() {
    let (seed, total) = seed_and_lines(0x5eed_0f0d_c4e5);
    eprintln!("uci fuzz: seed {seed}, {total} lines");
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut h = Harness::new();
    let corpus = replay_corpus(&mut h);
    let started = std::time::Instant::now();
    while h.lines < total + corpus {
        let u = &h.uci;
        let line = match rng.random_range(0..10) {
            0..=3 => valid_line(&mut rng, u),
            4..=6 => {
                let l = valid_line(&mut rng, u);
                mutate(&mut rng, &l)
            }
            7..=8 => mutated_position(&mut rng, u),
            _ => garbage(&mut rng),
        };
        h.feed(&line);
        if h.lines.is_multiple_of(20_000) {
            eprintln!(
                "uci fuzz: {} lines, {} refused, {} searches, {:.1} s",
                h.lines,
                h.refused,
                h.searches,
                started.elapsed().as_secs_f64()
            );
        }
    }
    // A very long line and lines after it still work.
    let long = format!("position startpos moves {}", "e2e4 ".repeat(300_000));
    h.feed(&long);
    h.feed("isready");
    h.uci.wait_idle();
    let out = h.drain("isready");
    assert!(out.iter().any(|l| l == "readyok"), "{out:?}");
    eprintln!(
        "uci fuzz: {} lines ({} from the corpus): {} refused, {} searches or counts, {} output lines",
        h.lines, corpus, h.refused, h.searches, h.output
    );
    assert!(h.lines >= total, "fed {} of {total} lines", h.lines);
    // The mix must exercise both paths, or the generator is broken.
    assert!(h.refused > total / 10 && h.searches > total / 100);
}
