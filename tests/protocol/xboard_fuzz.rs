//! Randomized robustness test of the XBoard (CECP v2) front-end, the
//! counterpart of tests/protocol/uci_fuzz.rs: at least 100,000 random, mutated and
//! garbage protocol lines go through `XBoard::handle` in-process, with the
//! engine's searches, moves, pondering and analysis running between them.
//! Checked for every line and every batch of engine reports:
//!
//! - no panic (the test thread would die) and no `# internal error` line
//!   (a panic caught on the engine thread);
//! - every output line is of a form the front-end may write, without
//!   control characters;
//! - a refused line is answered by exactly one line (`Error (…): …`,
//!   `Illegal move (…): …` or `tellusererror Illegal position …`) and leaves
//!   the state as it was: settings, variant, position and its ply count,
//!   force mode and the engine's side;
//! - a line held back while the engine thinks (everything after a `ping`
//!   sent then) changes nothing and says nothing until the move is out;
//! - the state changes of accepted lines: a move adds one ply, `undo` and
//!   `remove` take back one and two, `setboard` starts a new history,
//!   `new` resets the game, `force`, `go` and `playother` set force mode
//!   and the engine's side; a legal move in force mode is never refused;
//! - every `move` the engine sends is legal in the position it was sent
//!   from, is the move played, and comes on the engine's own turn outside
//!   force mode; after `resign` and `result` the engine is in force mode;
//! - `ping N` is answered by `pong N`, after the engine's move if it was
//!   held back; every `Hint:` is a legal move and every result claimed
//!   (`1-0 {…}` …) is the outcome of the position on the board;
//! - `variant` and `setboard` set the variant and position they name.
//!
//! The seed is fixed so that CI runs are reproducible; set
//! `NDCHESS_FUZZ_SEED` and `NDCHESS_FUZZ_LINES` to explore further. Inputs
//! that once found a bug are kept in tests/data/xboard_corpus/ and replayed
//! first.
//!
//! Searches are kept tiny: the harness follows every line that leaves the
//! engine without a small depth (`sd` 1 to 3) or a short `st` by one that
//! sets it, so that every search for a move ends by itself within
//! milliseconds. Analysis and pondering never end by themselves; the
//! harness tracks when they may run and sends `exit` and `easy` before it
//! waits for the engine.

use crate::fuzz_support;
use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use crossbeam_channel::{Receiver, unbounded};
use fuzz_support::{assert_printable, corpus, garbage, mutate, pick, seed_and_lines};
use ndchess::protocol::session::{SessionConfig, Settings};
use ndchess::protocol::uci::Flow;
use ndchess::protocol::xboard::{XBoard, move_text, parse_move, variants};
use ndchess::protocol::xboard_parse::{Command, parse};
use ndchess::protocol::{InputLine, MAX_LINE_BYTES};
use ndchess::rules::moves::MoveKind;
use ndchess::rules::position::Position;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Small limits: random `memory`/`cores` values must not allocate
/// gigabytes or spawn hundreds of threads.
const CONFIG: SessionConfig = SessionConfig {
    max_hash_mb: 4,
    max_threads: 2,
};

/// Longest `st` (seconds) that counts as a small search limit on its own.
const SHORT_ST: f64 = 0.01;

/// Deepest `sd` that counts as a small search limit.
const SHALLOW: u32 = 3;

#[derive(Debug, PartialEq)]
struct Snapshot {
    settings: Settings,
    variant: String,
    position: Option<(String, usize)>,
    force: bool,
    engine_player: usize,
}

fn snapshot(x: &XBoard) -> Snapshot {
    let s = x.session();
    Snapshot {
        settings: s.settings().clone(),
        variant: s.variant().spec.clone(),
        position: s.position().map(|p| (p.to_text(), p.ply_count())),
        force: x.force_mode(),
        engine_player: x.engine_player().index(),
    }
}

fn position(x: &XBoard) -> &Position {
    x.session()
        .position()
        .expect("the XBoard front-end always has a position")
}

/// `Error (…): …`, `Illegal move (…): …`: a parenthesised reason, then
/// the refused text.
fn bracketed(line: &str, prefix: &str) -> bool {
    line.strip_prefix(prefix)
        .is_some_and(|rest| rest.contains("): "))
}

/// Whether `line` answers a refused line.
fn is_refusal(line: &str) -> bool {
    bracketed(line, "Error (")
        || bracketed(line, "Illegal move (")
        || line.starts_with("tellusererror Illegal position")
}

/// A thinking-output line: `depth score time nodes pv…`, the first four
/// integers (the line may end in `?` or `!` after a fail low or high).
fn is_thinking(line: &str) -> bool {
    let w: Vec<&str> = line.split(' ').collect();
    w.len() >= 4 && w[..4].iter().all(|t| t.parse::<i64>().is_ok())
}

/// Whether `line` is a line the front-end may write.
fn known_output(line: &str) -> bool {
    if line.is_empty() || line.starts_with(' ') {
        // After `xboard` and at the end of `bk`; `bk` text.
        return true;
    }
    if matches!(line, "resign" | "offer draw") || is_refusal(line) || is_thinking(line) {
        return true;
    }
    const PREFIXES: &[&str] = &[
        "feature ",
        "tellusererror ",
        "setup (",
        "piece ",
        "# ",
        "Hint: ",
    ];
    if PREFIXES.iter().any(|p| line.starts_with(p)) {
        return true;
    }
    if let Some(n) = line.strip_prefix("pong ") {
        return n.parse::<i64>().is_ok();
    }
    if let Some(m) = line.strip_prefix("move ") {
        return !m.is_empty() && !m.contains(' ');
    }
    if let Some(s) = line.strip_prefix("stat01: ") {
        // time nodes depth moves-left moves-total [current move]
        let w: Vec<&str> = s.split(' ').collect();
        return (5..=6).contains(&w.len()) && w[..5].iter().all(|t| t.parse::<u64>().is_ok());
    }
    ["1-0 {", "0-1 {", "1/2-1/2 {"]
        .iter()
        .any(|p| line.starts_with(p))
        && line.ends_with('}')
}

/// What the harness knows of the front-end's search limits and of the
/// searches that may run, from the lines it fed (in feeding order, which
/// is also the order held-back lines run in).
#[derive(Debug, Default)]
struct Model {
    /// `sd` (cleared by `new`).
    depth: Option<u32>,
    /// `st` in seconds (cleared by `level`).
    st: Option<f64>,
    /// `nps` (cleared by `new`).
    nps: Option<u64>,
    /// `hard` was the latest of `hard`/`easy`.
    ponder: bool,
    /// Analysis mode: from `analyze` to `exit` (the analysis restarts on
    /// every new position and runs until `exit`).
    analyse_mode: bool,
    /// The engine moved with pondering on since it was last idle.
    maybe_pondering: bool,
    /// A `ping` was held back: every line is held back until the engine
    /// has moved.
    held: bool,
    /// Lines held back.
    held_lines: usize,
}

impl Model {
    /// Whether a search for a move started now ends by itself, soon.
    fn small_limits(&self) -> bool {
        self.depth.is_some_and(|d| d <= SHALLOW)
            || (self.nps.is_none() && self.st.is_some_and(|t| t <= SHORT_ST))
    }

    /// Follows `c` (fed in this order; a held-back line runs later, but
    /// still in this order).
    fn note(&mut self, c: &Command) {
        match c {
            Command::Sd(d) => self.depth = Some(*d),
            Command::St(t) => self.st = Some(t.as_secs_f64()),
            Command::Level(_) => self.st = None,
            Command::Nps(n) => self.nps = Some(*n),
            Command::New => {
                self.depth = None;
                self.nps = None;
            }
            Command::Hard => self.ponder = true,
            Command::Easy => self.ponder = false,
            Command::Analyze => self.analyse_mode = true,
            Command::Exit => self.analyse_mode = false,
            _ => {}
        }
    }
}

#[derive(Debug, Default)]
struct Stats {
    /// Lines fed (generated, corpus, and the harness's own).
    lines: usize,
    /// Lines from the generator.
    generated: usize,
    refused: usize,
    /// Lines on which the front-end went from idle to searching (for a
    /// move, or analysing).
    searches: usize,
    user_moves: usize,
    engine_moves: usize,
    castlings: usize,
    promotions: usize,
    results: BTreeMap<String, usize>,
    resigns: usize,
    draw_offers: usize,
    held_back: usize,
    /// Lines that arrived while the engine thought, pondered (or may
    /// have), analysed.
    while_thinking: usize,
    while_pondering: usize,
    while_analysing: usize,
    thinking_lines: usize,
    output: usize,
    restarts: usize,
    /// Time spent waiting for the engine.
    waited: Duration,
}

struct Harness {
    x: XBoard,
    rx: Receiver<String>,
    model: Model,
    stats: Stats,
    /// The latest `Hint:` move, to play into a ponder search.
    hint: Option<String>,
    /// The latest lines fed and the harness's waits, shown on failure.
    trail: VecDeque<String>,
}

impl Drop for Harness {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("xboard fuzz: the latest input (> line, = harness step):");
            for t in &self.trail {
                eprintln!("  {t}");
            }
        }
    }
}

impl Harness {
    fn new() -> Harness {
        let (tx, rx) = unbounded();
        let mut h = Harness {
            x: XBoard::new(tx, CONFIG),
            rx,
            model: Model::default(),
            stats: Stats::default(),
            hint: None,
            trail: VecDeque::new(),
        };
        h.keep_limits_small(&mut SmallRng::seed_from_u64(0));
        h
    }

    /// After `quit`: a new front-end, as a GUI starts a new engine.
    fn restart(&mut self, rng: &mut SmallRng) {
        assert!(
            self.x.shutdown(Duration::from_secs(60)),
            "the engine thread did not end after quit"
        );
        let (tx, rx) = unbounded();
        self.x = XBoard::new(tx, CONFIG);
        self.rx = rx;
        self.model = Model::default();
        self.hint = None;
        self.stats.restarts += 1;
        self.note("= restart".into());
        self.keep_limits_small(rng);
    }

    fn note(&mut self, step: String) {
        if self.trail.len() == 60 {
            self.trail.pop_front();
        }
        self.trail.push_back(step);
    }

    /// Collects and checks the output so far.
    fn drain(&mut self, context: &str) -> Vec<String> {
        let got: Vec<String> = self.rx.try_iter().collect();
        for l in &got {
            assert!(known_output(l), "unknown output {l:?} after {context:?}");
            assert_printable(l, is_refusal(l), context);
            if l.starts_with("1-0 {") || l.starts_with("0-1 {") || l.starts_with("1/2-1/2 {") {
                *self.stats.results.entry(l.clone()).or_default() += 1;
            } else if l == "resign" {
                self.stats.resigns += 1;
            } else if l == "offer draw" {
                self.stats.draw_offers += 1;
            } else if let Some(m) = l.strip_prefix("Hint: ") {
                self.hint = Some(m.to_string());
            } else if is_thinking(l) {
                self.stats.thinking_lines += 1;
            }
        }
        self.stats.output += got.len();
        got
    }

    /// Feeds one line and checks the invariants.
    fn feed(&mut self, line: &str, rng: &mut SmallRng) {
        self.stats.lines += 1;
        self.note(format!("> {line:?}"));
        let command = parse(line).ok().flatten();
        let analysing = self.model.analyse_mode;
        if let Some(c) = &command {
            self.model.note(c);
        }
        let before = snapshot(&self.x);
        let before_pos = position(&self.x).clone();
        let was_searching = self.x.searching();
        if was_searching {
            if analysing {
                self.stats.while_analysing += 1;
            } else if self.model.maybe_pondering {
                self.stats.while_pondering += 1;
            } else {
                self.stats.while_thinking += 1;
            }
        }
        let flow = self.x.handle(line);
        let out = self.drain(line);
        let after = snapshot(&self.x);
        if self.model.held {
            // Held back until the engine's move is out.
            assert_eq!(flow, Flow::Continue, "{line:?}");
            assert!(
                out.iter().all(|l| is_thinking(l)),
                "a held-back line was answered: {line:?} -> {out:?}"
            );
            assert_eq!(
                after, before,
                "a held-back line changed the state: {line:?}"
            );
            self.model.held_lines += 1;
            self.keep_limits_small(rng);
            return;
        }
        let refusals = out.iter().filter(|l| is_refusal(l)).count();
        assert!(refusals <= 1, "several refusals for {line:?}: {out:?}");
        let refused = refusals == 1;
        if refused {
            self.stats.refused += 1;
            assert_eq!(
                after, before,
                "a refused line changed the state: {line:?} -> {out:?}"
            );
            assert!(
                out.iter().all(|l| is_refusal(l) || is_thinking(l)),
                "a refused line got more than its one answer: {line:?} -> {out:?}"
            );
        }
        if !was_searching && self.x.searching() {
            self.stats.searches += 1;
        }
        self.check_claims(&out, line);
        let ply = |s: &Snapshot| s.position.as_ref().map_or(0, |p| p.1);
        match &command {
            Some(Command::Ping(n)) => {
                let pong = format!("pong {n}");
                if out.contains(&pong) {
                    assert!(!refused, "{line:?} -> {out:?}");
                } else {
                    // Answered after the engine's move.
                    assert!(was_searching, "ping not answered: {line:?} -> {out:?}");
                    assert!(out.iter().all(|l| is_thinking(l)), "{line:?} -> {out:?}");
                    self.model.held = true;
                    self.stats.held_back += 1;
                }
            }
            Some(Command::UserMove(text)) => {
                let legal = parse_move(&before_pos, text);
                if before.force && !was_searching && legal.is_ok() {
                    assert!(
                        !refused,
                        "a legal move was refused in force mode: {line:?} {out:?}"
                    );
                }
                if !refused {
                    let m = legal.unwrap_or_else(|e| {
                        panic!("an illegal move was accepted: {line:?} ({e}) -> {out:?}")
                    });
                    assert_eq!(ply(&after), ply(&before) + 1, "{line:?}");
                    let mut expected = before_pos.clone();
                    expected.make(m);
                    assert_eq!(
                        position(&self.x).to_text(),
                        expected.to_text(),
                        "{line:?} played something else"
                    );
                    self.stats.user_moves += 1;
                    if m.kind == MoveKind::Castle {
                        self.stats.castlings += 1;
                    }
                    if m.promotion != 0 {
                        self.stats.promotions += 1;
                    }
                }
            }
            Some(Command::Undo) if !refused => {
                assert_eq!(ply(&after) + 1, ply(&before), "{line:?}");
            }
            Some(Command::Remove) if !refused => {
                assert_eq!(ply(&after) + 2, ply(&before), "{line:?}");
            }
            Some(Command::SetBoard(text)) if !refused => {
                assert_eq!(ply(&after), 0, "{line:?}");
                let set = Position::from_text(self.x.session().variant(), text)
                    .unwrap_or_else(|e| panic!("{line:?} accepted but not a position: {e}"));
                assert_eq!(position(&self.x).to_text(), set.to_text(), "{line:?}");
            }
            Some(Command::Variant(name)) if !refused => {
                let family = variants().iter().find(|v| v.0 == name).map(|v| v.1);
                assert_eq!(
                    Some(self.x.session().variant().name.as_str()),
                    family,
                    "{line:?}"
                );
                assert_eq!(ply(&after), 0, "{line:?}");
            }
            Some(Command::Result(_)) if !refused => assert!(after.force, "{line:?}"),
            Some(Command::New) if !refused => {
                assert_eq!(after.variant, "chess", "{line:?}");
                assert_eq!(ply(&after), 0, "{line:?}");
                // In analysis mode the new game is analysed (force mode).
                assert_eq!(after.force, analysing, "{line:?}");
                assert_eq!(after.engine_player, 1, "{line:?}");
            }
            Some(Command::Force) => assert!(after.force, "{line:?}"),
            Some(Command::Go | Command::PlayOther) if analysing => {
                assert!(refused, "{line:?} accepted in analysis mode: {out:?}");
            }
            Some(Command::Go) if !refused => {
                assert!(!after.force, "{line:?}");
                assert_eq!(
                    after.engine_player,
                    before_pos.to_move().index(),
                    "{line:?}"
                );
            }
            Some(Command::PlayOther) if !refused => {
                assert!(!after.force, "{line:?}");
                assert_eq!(
                    after.engine_player,
                    1 - before_pos.to_move().index(),
                    "{line:?}"
                );
            }
            Some(Command::Xboard) => {
                let answer: Vec<&String> = out.iter().filter(|l| !is_thinking(l)).collect();
                assert_eq!(answer, [""], "{line:?}");
            }
            Some(Command::Protover(_)) => {
                let answer = out.iter().rfind(|l| !is_thinking(l));
                assert_eq!(answer.map(String::as_str), Some("feature done=1"));
            }
            _ => {}
        }
        if flow == Flow::Quit {
            self.drain(line);
            self.restart(rng);
            return;
        }
        self.keep_limits_small(rng);
    }

    /// Follows a line that left the engine without a small search limit
    /// by one that sets it, before anything can start a search.
    fn keep_limits_small(&mut self, rng: &mut SmallRng) {
        if self.model.small_limits() {
            return;
        }
        let fix = if self.model.nps.is_none() && rng.random_bool(0.2) {
            format!("st 0.00{}", rng.random_range(1..=9))
        } else {
            format!("sd {}", rng.random_range(1..=SHALLOW))
        };
        self.feed(&fix, rng);
        assert!(
            self.model.small_limits(),
            "{fix:?} did not fix {:?}",
            self.model
        );
    }

    /// Every result claimed in `out` is the outcome of the current
    /// position (the game ended by the rules on the board), and every
    /// hint is a legal move of it.
    fn check_claims(&self, out: &[String], context: &str) {
        let pos = position(&self.x);
        for l in out {
            if let Some(m) = l.strip_prefix("Hint: ") {
                assert!(
                    parse_move(pos, m).is_ok(),
                    "{l:?} not legal after {context:?}"
                );
            }
            let code = ["1-0 {", "0-1 {", "1/2-1/2 {"]
                .into_iter()
                .find(|p| l.starts_with(p));
            let Some(code) = code else { continue };
            let expected = match pos.outcome() {
                Some(o) if o.is_draw() => "1/2-1/2 {",
                Some(o) if o.winner().is_some_and(|w| w.index() == 0) => "1-0 {",
                Some(_) => "0-1 {",
                None => panic!("{l:?} claimed after {context:?} in {}", pos.to_text()),
            };
            assert_eq!(
                code,
                expected,
                "{l:?} after {context:?} in {}",
                pos.to_text()
            );
        }
    }

    /// Checks the output of engine reports handled by `pump` or
    /// `wait_idle` with nothing held back: no refusals, at most one engine
    /// move, on the engine's turn, legal in `before` and played; claims.
    fn check_reports(&mut self, out: &[String], before: &Position, context: &str) {
        assert!(
            !out.iter().any(|l| is_refusal(l)),
            "engine reports produced a refusal ({context}): {out:?}"
        );
        let moves: Vec<&str> = out.iter().filter_map(|l| l.strip_prefix("move ")).collect();
        assert!(
            moves.len() <= 1,
            "several moves at once ({context}): {out:?}"
        );
        self.check_claims(out, context);
        if out.iter().any(|l| l == "resign") {
            assert!(self.x.force_mode(), "no force mode after resigning");
        }
        if let Some(text) = moves.first() {
            // Only on its own turn, in a game it plays.
            assert_eq!(
                self.x.engine_player(),
                before.to_move(),
                "{text} ({context})"
            );
            assert!(!self.x.force_mode(), "{text} in force mode ({context})");
            let m = parse_move(before, text)
                .unwrap_or_else(|e| panic!("engine move {text:?} not legal ({e}): {out:?}"));
            let mut expected = before.clone();
            expected.make(m);
            assert_eq!(
                position(&self.x).to_text(),
                expected.to_text(),
                "the engine sent {text} but played something else"
            );
            self.stats.engine_moves += 1;
            if m.kind == MoveKind::Castle {
                self.stats.castlings += 1;
            }
            if m.promotion != 0 {
                self.stats.promotions += 1;
            }
            if self.model.ponder {
                self.model.maybe_pondering = true;
            }
        }
    }

    /// Handles the engine's reports without waiting (nothing held back).
    fn pump(&mut self) {
        assert!(!self.model.held);
        self.note("= pump".into());
        let before = position(&self.x).clone();
        let flow = self.x.pump();
        assert_eq!(flow, Flow::Continue, "pump without held-back lines");
        let out = self.drain("pump");
        self.check_reports(&out, &before, "pump");
    }

    /// Waits for a search for a move to end and handles its reports; only
    /// when no analysis or pondering can run.
    fn finish_thinking(&mut self) {
        assert!(!self.model.held && !self.model.analyse_mode && !self.model.maybe_pondering);
        self.note("= wait for the engine's move".into());
        let t = std::time::Instant::now();
        self.x.session().host().wait_idle();
        self.stats.waited += t.elapsed();
        self.pump();
    }

    /// Ends analysis and pondering, waits until the engine is idle and
    /// handles everything (held-back lines included).
    fn settle(&mut self, rng: &mut SmallRng) {
        // Analysis mode may be idle (every move excluded) and start an
        // endless search on the next line: always leave it.
        if self.model.analyse_mode {
            self.feed("exit", rng);
        }
        if self.model.ponder && (self.model.held || self.x.searching()) {
            self.feed("easy", rng);
        }
        let held = self.model.held;
        self.note("= wait_idle".into());
        let before = position(&self.x).clone();
        let t = std::time::Instant::now();
        let flow = self.x.wait_idle();
        self.stats.waited += t.elapsed();
        let out = self.drain("wait_idle");
        if held {
            // The held-back lines ran: at most one refusal each.
            let refusals = out.iter().filter(|l| is_refusal(l)).count();
            assert!(
                refusals <= self.model.held_lines,
                "{refusals} refusals for {} held-back lines: {out:?}",
                self.model.held_lines
            );
            self.stats.refused += refusals;
            let pong = out.iter().position(|l| l.starts_with("pong "));
            assert!(
                pong.is_some() || flow == Flow::Quit,
                "held-back ping not answered: {out:?}"
            );
            // The ping waited for the search's end: the engine's move (or
            // resignation, or the result of a finished game) comes first.
            if let Some(i) = pong {
                let ended = out[..i].iter().any(|l| {
                    l.starts_with("move ")
                        || l == "resign"
                        || ["1-0 {", "0-1 {", "1/2-1/2 {"]
                            .iter()
                            .any(|p| l.starts_with(p))
                });
                assert!(ended, "pong before the engine's move: {out:?}");
            }
            self.stats.engine_moves += out.iter().filter(|l| l.starts_with("move ")).count();
        } else {
            self.check_reports(&out, &before, "wait_idle");
        }
        self.model.held = false;
        self.model.held_lines = 0;
        self.model.analyse_mode = false;
        self.model.maybe_pondering = false;
        if flow == Flow::Quit {
            self.restart(rng);
            return;
        }
        assert!(
            !self.x.searching(),
            "the engine is idle but the front-end thinks a search runs: {:?}",
            self.x
        );
    }

    /// What the harness does after a generated line: wait for the engine
    /// most of the time, but let some lines arrive while it searches,
    /// analyses, ponders or holds lines back.
    fn after_line(&mut self, rng: &mut SmallRng) {
        if self.model.held {
            if rng.random_bool(0.4) {
                self.settle(rng);
            }
        } else if self.x.searching() {
            if self.model.analyse_mode {
                if rng.random_bool(0.08) {
                    self.settle(rng);
                }
            } else if self.model.maybe_pondering {
                if rng.random_bool(0.25) {
                    self.settle(rng);
                }
            } else {
                match rng.random_range(0..10) {
                    0..=6 => self.finish_thinking(),
                    7..=8 => self.settle(rng),
                    _ => {}
                }
            }
        } else if rng.random_bool(0.02) {
            self.settle(rng);
        }
    }
}

/// Position texts to set up, by variant family: start and perft positions
/// (castling, en passant, promotions), ends of games (mate, stalemate,
/// fifty moves) and lost positions (resignation), plus texts of other
/// boards that the variant must refuse.
fn fen_pool(family: &str) -> &'static [&'static str] {
    match family {
        "chess" => &[
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // chessprogramming.org "Perft Results", positions 2 to 5.
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "4k3/P7/8/8/8/8/7p/4K3 w - - 0 1",
            "4k3/P7/8/8/8/8/7p/4K3 b - - 0 1",
            "7k/5Q2/6K1/8/8/8/8/8 w - - 0 1",
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "4k3/8/8/8/8/8/QQQ5/R3K3 b - - 0 1",
            "4k3/8/8/8/8/8/8/4K2R w K - 99 80",
            "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "UUUUUUUU/8/8/8/8/uuuuuuuu/rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ],
        "chess960" => &[
            // Chess960 start positions 0 and 518 (Scharnagl numbering).
            "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w FHfh - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
            "r1k1r2q/p1ppp1pp/8/8/8/8/P1PPP1PP/R1K1R2Q w KQkq - 0 1",
            "2r5/8/8/8/8/8/6PP/k2KR3 w K - 0 1",
            "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1",
            "4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1",
        ],
        "cylinder" => &[
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",
            "7k/8/8/8/8/8/8/R6K w - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8 w KQkq - 0 1",
        ],
        "torus" => &[
            "UUUUUUUU/8/8/8/8/uuuuuuuu/rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "8/8/8/8/8/8/4k3/8/8/8/8/8/8/4K3 w - - 0 1",
            "8/8/8/8/8/8/4k3/P7/8/8/8/8/7p/4K3 w - - 0 1",
            "8/8/8/8/8/8/r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        ],
        _ => &["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"],
    }
}

/// A position reached by up to `plies` random legal moves from the
/// current position.
fn random_game(rng: &mut SmallRng, x: &XBoard, plies: usize) -> Position {
    let mut pos = position(x).clone();
    for _ in 0..plies {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = *pick(rng, &legal);
        pos.make(m);
    }
    pos
}

fn setboard_text(rng: &mut SmallRng, x: &XBoard) -> String {
    let family = x.session().variant().name.clone();
    match rng.random_range(0..10) {
        0..=4 => pick(rng, fen_pool(&family)).to_string(),
        5..=8 => {
            let plies = rng.random_range(0..40);
            random_game(rng, x, plies).to_text()
        }
        _ => {
            let other = *pick(rng, &["chess", "chess960", "cylinder", "torus"]);
            pick(rng, fen_pool(other)).to_string()
        }
    }
}

/// A legal move of the current position as xboard writes it (the latest
/// hint now and then, to hit a ponder search).
fn legal_move(rng: &mut SmallRng, h: &Harness) -> Option<String> {
    let pos = position(&h.x);
    if let Some(hint) = &h.hint
        && rng.random_bool(0.5)
        && parse_move(pos, hint).is_ok()
    {
        return Some(hint.clone());
    }
    let legal = pos.legal_moves();
    // Prefer castling and promotions when there are any: deep game
    // states are rare in random play.
    let special: Vec<_> = legal
        .iter()
        .filter(|m| m.kind == MoveKind::Castle || m.promotion != 0)
        .collect();
    if !special.is_empty() && rng.random_bool(0.3) {
        return Some(move_text(pos, **pick(rng, &special)));
    }
    if legal.is_empty() {
        return None;
    }
    Some(move_text(pos, *pick(rng, &legal)))
}

fn illegal_move(rng: &mut SmallRng, x: &XBoard) -> String {
    match rng.random_range(0..4) {
        0 => pick(
            rng,
            &[
                "e2e5", "a1a1", "e7e8k", "O-O", "0-0-0", "@@@@", "z9z9", "a0a1", "e1g1", "e8g8",
                "a14a13", "h2h1q", "e2e4e", "b7b8u", "a99b99",
            ],
        )
        .to_string(),
        1 => {
            // A move of the side not on move.
            let pos = random_game(rng, x, 1);
            let legal = pos.legal_moves();
            if legal.is_empty() {
                "e2e4".to_string()
            } else {
                move_text(&pos, *pick(rng, &legal))
            }
        }
        _ => {
            let pos = position(x);
            let legal = pos.legal_moves();
            if legal.is_empty() {
                return "e7e5".to_string();
            }
            let text = move_text(pos, *pick(rng, &legal));
            mutate(rng, &text)
        }
    }
}

const OPTIONS: &[&str] = &[
    "MultiPV",
    "MoveOverhead",
    "Move Overhead",
    "ClearHash",
    "Clear Hash",
    "WrapCastling",
    "Chess960Number",
    "Resign",
    "Resign Threshold",
    "Draw Offers",
    "multipv",
    "Hash",
    "Threads",
    "UCI_Variant",
    "NoSuchOption",
    "",
];

fn option_line(rng: &mut SmallRng) -> String {
    let name = *pick(rng, OPTIONS);
    let value = match name.to_ascii_lowercase().replace(' ', "").as_str() {
        "multipv" => pick(rng, &["1", "1", "2", "3", "0", "257", "x"]).to_string(),
        "moveoverhead" => pick(rng, &["0", "10", "100", "5000", "5001", "-1"]).to_string(),
        "wrapcastling" | "resign" | "drawoffers" => {
            pick(rng, &["0", "1", "1", "true", "2", ""]).to_string()
        }
        "chess960number" => pick(rng, &["-1", "0", "518", "959", "960", "-2", "abc"]).to_string(),
        "resignthreshold" => pick(rng, &["100", "300", "100000", "99", "100001", "x"]).to_string(),
        "uci_variant" => pick(rng, &["chess", "cube", "torus"]).to_string(),
        _ => rng.random_range(-5..2000).to_string(),
    };
    if name.starts_with("Clear") || rng.random_bool(0.05) {
        format!("option {name}")
    } else {
        format!("option {name}={value}")
    }
}

fn valid_line(rng: &mut SmallRng, h: &Harness) -> String {
    let x = &h.x;
    match rng.random_range(0..100) {
        0..=39 => {
            let m = legal_move(rng, h)
                .unwrap_or_else(|| pick(rng, &["new", "undo", "remove", "setboard"]).to_string());
            if m.starts_with(|c: char| c.is_ascii_lowercase() || c == 'O')
                && !["new", "undo", "remove", "setboard"].contains(&m.as_str())
                && rng.random_bool(0.7)
            {
                format!("usermove {m}")
            } else if m == "setboard" {
                format!("setboard {}", setboard_text(rng, x))
            } else {
                m
            }
        }
        40..=43 => {
            let m = illegal_move(rng, x);
            if rng.random_bool(0.7) {
                format!("usermove {m}")
            } else {
                m
            }
        }
        44..=48 => "go".into(),
        49 => "playother".into(),
        50..=51 => "force".into(),
        52 => {
            if rng.random_bool(0.5) {
                "new".into()
            } else {
                "?".into()
            }
        }
        53..=54 => format!(
            "variant {}",
            pick(
                rng,
                &[
                    "normal",
                    "normal",
                    "fischerandom",
                    "fischerandom",
                    "cylinder",
                    "cylinder",
                    "torus",
                    "torus",
                    "garbage",
                    "cube",
                    "diamond",
                    "crazyhouse",
                    "normal extra",
                ]
            )
        ),
        55..=57 => match rng.random_range(0..10) {
            0 => format!("sd {}", rng.random_range(4..12)),
            1 => pick(rng, &["sd 0", "sd 1001", "sd -1", "sd x"]).to_string(),
            _ => format!("sd {}", rng.random_range(1..=SHALLOW)),
        },
        58 => pick(
            rng,
            &[
                "st 0.001", "st 0.005", "st 0.01", "st 0.02", "st 1", "st 30", "st 0", "st -1",
                "st nan", "st inf", "st 86401",
            ],
        )
        .to_string(),
        59 => pick(
            rng,
            &[
                "level 40 5 0",
                "level 0 2 12",
                "level 0 0:30 0.5",
                "level 40 25+5 0",
                "level 1 0 0",
                "level 0 0 0",
                "level 40 5",
                "level x 5 0",
                "level 40 :30 0",
                "level -1 5 0",
                "level 40 99999999 0",
                "level 40 5 -3",
            ],
        )
        .to_string(),
        60 => pick(
            rng,
            &[
                "nps 0",
                "nps 1",
                "nps 1000",
                "nps 100000",
                "nps 18446744073709551615",
                "nps -5",
            ],
        )
        .to_string(),
        61..=63 => {
            let n = match rng.random_range(0..8) {
                0 => -rng.random_range(0..1000),
                1 => i64::MAX,
                _ => rng.random_range(0..30_000),
            };
            format!("{} {n}", pick(rng, &["time", "otim"]))
        }
        64..=65 => {
            let n: i64 = match rng.random_range(0..6) {
                0 => i64::MIN,
                1 => -rng.random_range(0..100),
                _ => rng.random_range(0..1_000_000),
            };
            format!("ping {n}")
        }
        66 => "draw".into(),
        67 => pick(
            rng,
            &[
                "result 1-0 {White mates}",
                "result 0-1 {Black resigns}",
                "result 1/2-1/2 {Draw by repetition}",
                "result *",
                "result * {xboard exit}",
                "result 2-0",
                "result",
            ],
        )
        .to_string(),
        68..=72 => format!("setboard {}", setboard_text(rng, x)),
        73 => "hint".into(),
        74 => "bk".into(),
        75..=76 => "undo".into(),
        77 => "remove".into(),
        78 => "hard".into(),
        79 => "easy".into(),
        80 => "post".into(),
        81 => "nopost".into(),
        82 => "analyze".into(),
        83 => "exit".into(),
        84 => ".".into(),
        85 => pick(
            rng,
            &[
                "memory 1",
                "memory 4",
                "memory 64",
                "memory 0",
                "memory 18446744073709551615",
                "memory -1",
            ],
        )
        .to_string(),
        86 => pick(
            rng,
            &["cores 1", "cores 2", "cores 0", "cores 999", "cores -2"],
        )
        .to_string(),
        87..=89 => option_line(rng),
        90..=92 => {
            let word = if rng.random_bool(0.3) {
                "all".to_string()
            } else if rng.random_bool(0.8) {
                legal_move(rng, h).unwrap_or_else(|| "all".into())
            } else {
                illegal_move(rng, x)
            };
            format!("{} {word}", pick(rng, &["exclude", "include"]))
        }
        93 if rng.random_bool(0.2) => "quit".into(),
        _ => pick(
            rng,
            &[
                "xboard",
                "protover 2",
                "protover 1",
                "accepted setboard",
                "accepted debug",
                "rejected debug",
                "rejected san",
                "random",
                "name Fairy-Max",
                "rating 2400 1800",
                "computer",
                "ics -",
                "egtpath syzygy /tmp",
                "edit",
                "pause",
                "resume",
                "white",
                "black",
            ],
        )
        .to_string(),
    }
}

/// A `setboard` line with one field of a real position text mutated.
fn mutated_setboard(rng: &mut SmallRng, x: &XBoard) -> String {
    let text = setboard_text(rng, x);
    let mut fields: Vec<String> = text.split(' ').map(str::to_string).collect();
    let i = rng.random_range(0..fields.len());
    fields[i] = mutate(rng, &fields[i]);
    if rng.random_bool(0.2) {
        fields.truncate(rng.random_range(0..fields.len()));
    }
    format!("setboard {}", fields.join(" "))
}

fn generate(rng: &mut SmallRng, h: &Harness) -> String {
    if h.x.searching() && rng.random_bool(0.1) {
        // While the engine thinks, a ping holds back every line after it.
        return format!("ping {}", rng.random_range(0..1000));
    }
    match rng.random_range(0..100) {
        0..=59 => valid_line(rng, h),
        60..=74 => {
            let l = valid_line(rng, h);
            mutate(rng, &l)
        }
        75..=84 => format!("setboard {}", setboard_text(rng, &h.x)),
        85..=91 => mutated_setboard(rng, &h.x),
        _ => garbage(rng),
    }
}

/// Replays tests/data/xboard_corpus/ (files in name order, each line as
/// the input thread reads it). After each line a search for a move is
/// waited for; analysis and pondering run on until a line of the file or
/// the file's end stops them.
fn replay_corpus(h: &mut Harness, rng: &mut SmallRng) -> usize {
    let mut n = 0;
    for file in corpus("xboard_corpus") {
        for l in file {
            match l {
                InputLine::Text(t) => h.feed(&t, rng),
                InputLine::TooLong(len) => {
                    h.x.reject_long_line(len);
                    let out = h.drain("long line");
                    assert_eq!(out.len(), 1, "{out:?}");
                    assert!(is_refusal(&out[0]), "{out:?}");
                }
            }
            n += 1;
            if !h.model.held && h.x.searching() && !h.model.analyse_mode && !h.model.maybe_pondering
            {
                h.finish_thinking();
            }
        }
        h.settle(rng);
    }
    n
}

#[test]
fn xboard_survives_random_and_mutated_input() {
    let (seed, total) = seed_and_lines(0x5eed_cec9);
    eprintln!("xboard fuzz: seed {seed}, {total} lines");
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut h = Harness::new();
    let corpus = replay_corpus(&mut h, &mut rng);
    let started = std::time::Instant::now();
    while h.stats.generated < total {
        let line = generate(&mut rng, &h);
        h.stats.generated += 1;
        h.feed(&line, &mut rng);
        h.after_line(&mut rng);
        if h.stats.generated.is_multiple_of(20_000) {
            eprintln!(
                "xboard fuzz: {} lines, {} refused, {} searches, {} moves, {:.1} s ({:.1} s waiting)",
                h.stats.generated,
                h.stats.refused,
                h.stats.searches,
                h.stats.user_moves + h.stats.engine_moves,
                started.elapsed().as_secs_f64(),
                h.stats.waited.as_secs_f64()
            );
        }
    }
    h.settle(&mut rng);
    // An overlong line is refused, and lines after it still work.
    let long = format!("usermove {}", "e2e4".repeat(MAX_LINE_BYTES / 4 + 1));
    let refused = h.stats.refused;
    h.feed(&long, &mut rng);
    assert_eq!(h.stats.refused, refused + 1, "overlong line not refused");
    h.feed("ping 77", &mut rng);
    h.settle(&mut rng);
    let s = &h.stats;
    eprintln!(
        "xboard fuzz: {} lines fed ({} generated, {} from the corpus, the rest the harness's \
         own sd/st/exit/easy), {} refused, {} searches started; lines arriving while the engine \
         thought {}, pondered {}, analysed {}; {} pings held lines back; \
         {} output lines ({} thinking), {} restarts after quit; {:.1} s waiting for the engine",
        s.lines,
        s.generated,
        corpus,
        s.refused,
        s.searches,
        s.while_thinking,
        s.while_pondering,
        s.while_analysing,
        s.held_back,
        s.output,
        s.thinking_lines,
        s.restarts,
        s.waited.as_secs_f64()
    );
    eprintln!(
        "xboard fuzz: moves played: {} by the user, {} by the engine ({} castlings, {} \
         promotions); {} resignations, {} draw offers; results: {:?}",
        s.user_moves,
        s.engine_moves,
        s.castlings,
        s.promotions,
        s.resigns,
        s.draw_offers,
        s.results
    );
    assert!(s.generated >= total, "fed {} of {total} lines", s.generated);
    // The mix must reach every path, or the generator is broken.
    assert!(s.refused > total / 10, "{s:?}");
    assert!(s.searches > total / 100, "{s:?}");
    assert!(
        s.user_moves > total / 10 && s.engine_moves > total / 50,
        "{s:?}"
    );
    assert!(
        s.castlings > 0 && s.promotions > 0 && s.held_back > 0,
        "{s:?}"
    );
    assert!(!s.results.is_empty() && s.resigns > 0, "{s:?}");
}
