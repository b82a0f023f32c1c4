//! The UCI front-end: reading command lines, writing `info`/`bestmove`/
//! `option` lines, and the dialogue itself ([`Uci::handle`]), with the
//! ndchess extension for variants and their parameters (docs/protocol.md).
//!
//! Output goes to a channel of lines, so that the same code serves the
//! binary (a printer thread writes the channel to stdout) and in-process
//! tests (which read the channel). Every refused line produces exactly one
//! `info string error: …` line and changes nothing.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::Sender;

use crate::board::variant::Variant;
use crate::rules::position::Position;
use crate::search::{Bound, Limits, Score, SearchInfo, SearchResult};

use super::options::{OptionKind, OptionSpec};
use super::session::{OptionEffect, Session, SessionConfig, SessionError};
use crate::engine::host::{PerftOutcome, SearchEvent};

/// Deepest `go perft` accepted (far beyond anything that finishes; the
/// bound keeps the counter's per-ply buffers small).
pub const MAX_PERFT_DEPTH: u32 = 64;

/// How many characters of a bad input an error message quotes.
const QUOTE_CHARS: usize = 60;

/// Parameters of `go` (times in milliseconds; negative clock times, which
/// some GUIs send after a flag fall, are read as 0).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    /// `searchmoves`: only these root moves.
    pub searchmoves: Vec<String>,
    /// `ponder`: search in ponder mode.
    pub ponder: bool,
    /// `wtime`.
    pub wtime: Option<u64>,
    /// `btime`.
    pub btime: Option<u64>,
    /// `winc`.
    pub winc: Option<u64>,
    /// `binc`.
    pub binc: Option<u64>,
    /// `movestogo`.
    pub movestogo: Option<u32>,
    /// `depth`.
    pub depth: Option<u32>,
    /// `nodes`.
    pub nodes: Option<u64>,
    /// `mate`.
    pub mate: Option<u32>,
    /// `movetime`.
    pub movetime: Option<u64>,
    /// `infinite`.
    pub infinite: bool,
}

impl GoParams {
    /// The search limits (without MultiPV and move overhead, which the
    /// session adds from its options).
    pub fn limits(&self) -> Limits {
        let ms = |v: Option<u64>| v.map(Duration::from_millis);
        Limits {
            time: vec![ms(self.wtime), ms(self.btime)],
            inc: vec![ms(self.winc), ms(self.binc)],
            movestogo: self.movestogo,
            depth: self.depth,
            nodes: self.nodes,
            mate: self.mate,
            movetime: ms(self.movetime),
            infinite: self.infinite,
            ..Limits::default()
        }
    }
}

impl fmt::Display for GoParams {
    /// The parameters as a `go` command would give them (debug output).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "go")?;
        if !self.searchmoves.is_empty() {
            write!(f, " searchmoves {}", self.searchmoves.join(" "))?;
        }
        if self.ponder {
            write!(f, " ponder")?;
        }
        let numbers = [
            ("wtime", self.wtime),
            ("btime", self.btime),
            ("winc", self.winc),
            ("binc", self.binc),
            ("movestogo", self.movestogo.map(u64::from)),
            ("depth", self.depth.map(u64::from)),
            ("nodes", self.nodes),
            ("mate", self.mate.map(u64::from)),
            ("movetime", self.movetime),
        ];
        for (key, v) in numbers {
            if let Some(v) = v {
                write!(f, " {key} {v}")?;
            }
        }
        if self.infinite {
            write!(f, " infinite")?;
        }
        Ok(())
    }
}

/// A UCI command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`.
    Uci,
    /// `debug on|off`.
    Debug(bool),
    /// `isready`.
    IsReady,
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// The option name (may contain spaces).
        name: String,
        /// The value, if given.
        value: Option<String>,
    },
    /// `register …` (the engine needs no registration).
    Register,
    /// `ucinewgame`.
    UciNewGame,
    /// `position startpos|fen <text> [moves …]`.
    Position {
        /// The position text, `None` for `startpos`.
        fen: Option<String>,
        /// The moves played from it.
        moves: Vec<String>,
    },
    /// `go perft <depth>`.
    Perft(u32),
    /// `go …`.
    Go(GoParams),
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `quit`.
    Quit,
}

/// Why a line is not a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The first word is no UCI command.
    UnknownCommand(String),
    /// A command with malformed arguments.
    Syntax {
        /// The command.
        command: &'static str,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::UnknownCommand(c) => write!(f, "unknown command '{}'", quote(c)),
            ParseError::Syntax { command, message } => write!(f, "{command}: {message}"),
        }
    }
}

impl std::error::Error for ParseError {}

/// An input fragment fit to be quoted in an error line: control
/// characters replaced, at most `QUOTE_CHARS` characters.
pub fn quote(s: &str) -> String {
    printable(s, QUOTE_CHARS)
}

/// Longest error message sent (characters); an error that repeats a huge
/// input is cut here.
pub const MAX_MESSAGE_CHARS: usize = 400;

/// `s` fit for one output line: control characters (which could end the
/// line early or upset a terminal) replaced by `?`, at most `max`
/// characters, `…` marking a cut.
pub fn printable(s: &str, max: usize) -> String {
    let mut out: String = s
        .chars()
        .take(max)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

fn syntax(command: &'static str, message: impl Into<String>) -> ParseError {
    ParseError::Syntax {
        command,
        message: message.into(),
    }
}

const GO_KEYWORDS: &[&str] = &[
    "searchmoves",
    "ponder",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
    "infinite",
    "perft",
];

/// Parses one line. `Ok(None)` for an empty or blank line.
pub fn parse(line: &str) -> Result<Option<Command>, ParseError> {
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = words.collect();
    let no_args = |cmd: &'static str, c: Command| {
        if rest.is_empty() {
            Ok(Some(c))
        } else {
            Err(syntax(
                cmd,
                format!("takes no arguments, got '{}'", quote(&rest.join(" "))),
            ))
        }
    };
    match first {
        "uci" => no_args("uci", Command::Uci),
        "isready" => no_args("isready", Command::IsReady),
        "ucinewgame" => no_args("ucinewgame", Command::UciNewGame),
        "stop" => no_args("stop", Command::Stop),
        "ponderhit" => no_args("ponderhit", Command::PonderHit),
        "quit" => no_args("quit", Command::Quit),
        "register" => Ok(Some(Command::Register)),
        "debug" => match rest.as_slice() {
            ["on"] => Ok(Some(Command::Debug(true))),
            ["off"] => Ok(Some(Command::Debug(false))),
            _ => Err(syntax("debug", "expected 'debug on' or 'debug off'")),
        },
        "setoption" => parse_setoption(&rest).map(Some),
        "position" => parse_position(&rest).map(Some),
        "go" => parse_go(&rest).map(Some),
        other => Err(ParseError::UnknownCommand(other.to_string())),
    }
}

fn parse_setoption(rest: &[&str]) -> Result<Command, ParseError> {
    if rest.first().copied() != Some("name") {
        return Err(syntax(
            "setoption",
            "expected 'setoption name <name> [value <value>]'",
        ));
    }
    let rest = &rest[1..];
    let split = rest.iter().position(|w| *w == "value");
    let (name, value) = match split {
        Some(i) => (&rest[..i], Some(rest[i + 1..].join(" "))),
        None => (rest, None),
    };
    if name.is_empty() {
        return Err(syntax("setoption", "missing option name"));
    }
    Ok(Command::SetOption {
        name: name.join(" "),
        value,
    })
}

fn parse_position(rest: &[&str]) -> Result<Command, ParseError> {
    let moves_at = rest.iter().position(|w| *w == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let fen = match head {
        ["startpos"] => None,
        ["fen"] => return Err(syntax("position", "missing position text after 'fen'")),
        ["fen", text @ ..] => Some(text.join(" ")),
        [] => return Err(syntax("position", "expected 'startpos' or 'fen <text>'")),
        [..] => {
            return Err(syntax(
                "position",
                format!(
                    "expected 'startpos' or 'fen <text>', got '{}'",
                    quote(&head.join(" "))
                ),
            ));
        }
    };
    Ok(Command::Position {
        fen,
        moves: moves.iter().map(|s| s.to_string()).collect(),
    })
}

fn number<T: std::str::FromStr>(key: &str, v: Option<&&str>) -> Result<T, ParseError> {
    let v = v.ok_or_else(|| syntax("go", format!("'{key}' needs a value")))?;
    v.parse::<T>().map_err(|_| {
        syntax(
            "go",
            format!("'{key}' needs a non-negative integer, got '{}'", quote(v)),
        )
    })
}

/// A clock value in milliseconds; negative values are read as 0.
fn millis(key: &str, v: Option<&&str>) -> Result<u64, ParseError> {
    let n: i64 = number(key, v).map_err(|_| {
        syntax(
            "go",
            format!(
                "'{key}' needs an integer (milliseconds), got '{}'",
                quote(v.copied().unwrap_or(""))
            ),
        )
    })?;
    Ok(n.max(0) as u64)
}

fn parse_go(rest: &[&str]) -> Result<Command, ParseError> {
    let mut g = GoParams::default();
    let mut seen: Vec<&str> = Vec::new();
    let mut perft = None;
    let mut i = 0;
    while i < rest.len() {
        let key = rest[i];
        if !GO_KEYWORDS.contains(&key) {
            return Err(syntax("go", format!("unknown parameter '{}'", quote(key))));
        }
        if seen.contains(&key) {
            return Err(syntax("go", format!("'{key}' given twice")));
        }
        seen.push(key);
        let v = rest.get(i + 1);
        i += 2;
        match key {
            "ponder" => {
                g.ponder = true;
                i -= 1;
            }
            "infinite" => {
                g.infinite = true;
                i -= 1;
            }
            "searchmoves" => {
                i -= 1;
                while i < rest.len() && !GO_KEYWORDS.contains(&rest[i]) {
                    g.searchmoves.push(rest[i].to_string());
                    i += 1;
                }
                if g.searchmoves.is_empty() {
                    return Err(syntax("go", "'searchmoves' needs at least one move"));
                }
            }
            "wtime" => g.wtime = Some(millis(key, v)?),
            "btime" => g.btime = Some(millis(key, v)?),
            "winc" => g.winc = Some(millis(key, v)?),
            "binc" => g.binc = Some(millis(key, v)?),
            "movetime" => g.movetime = Some(millis(key, v)?),
            "movestogo" => g.movestogo = Some(number(key, v)?),
            "depth" => g.depth = Some(number(key, v)?),
            "nodes" => g.nodes = Some(number(key, v)?),
            "mate" => g.mate = Some(number(key, v)?),
            "perft" => {
                let d: u32 = number(key, v)?;
                if d > MAX_PERFT_DEPTH {
                    return Err(syntax(
                        "go",
                        format!("perft depth {d} exceeds {MAX_PERFT_DEPTH}"),
                    ));
                }
                perft = Some(d);
            }
            _ => unreachable!("invariant: every keyword of GO_KEYWORDS is handled"),
        }
    }
    match perft {
        Some(d) if seen.len() == 1 => Ok(Command::Perft(d)),
        Some(_) => Err(syntax("go", "'perft' takes no other parameters")),
        None => Ok(Command::Go(g)),
    }
}

/// The `option` line announcing `o`.
pub fn option_line(o: &OptionSpec) -> String {
    match &o.kind {
        OptionKind::Spin { default, min, max } => format!(
            "option name {} type spin default {default} min {min} max {max}",
            o.name
        ),
        OptionKind::Check { default } => {
            format!("option name {} type check default {default}", o.name)
        }
        OptionKind::Combo { default, vars } => {
            let mut s = format!("option name {} type combo default {default}", o.name);
            for v in vars {
                s.push_str(" var ");
                s.push_str(v);
            }
            s
        }
        OptionKind::Button => format!("option name {} type button", o.name),
        OptionKind::Text { default } => format!(
            "option name {} type string default {}",
            o.name,
            if default.is_empty() {
                "<empty>"
            } else {
                default
            }
        ),
    }
}

/// Win/draw/loss estimate in permille for `score` (the player to move's
/// view). Mates are certain; a cube stalemate win (worth ¾) is written
/// 500/500/0, whose expectation W + D/2 is ¾; centipawns go through two
/// logistic curves, `W = 1000 σ((cp − 150) / 75)` and `L = 1000 σ((−cp −
/// 150) / 75)`, with `D` the rest. The constants give even chances of a
/// win at +1.5 pawns and a draw rate of about ¾ at 0; they are a plain
/// model, not fitted to ndchess's games (docs/protocol.md).
pub fn wdl(score: Score) -> (u32, u32, u32) {
    match score {
        Score::Mate(n) if n > 0 => (1000, 0, 0),
        Score::Mate(_) => (0, 0, 1000),
        Score::StalemateWin(n) if n > 0 => (500, 500, 0),
        Score::StalemateWin(_) => (0, 500, 500),
        Score::Cp(cp) => {
            let sigma = |x: f64| 1.0 / (1.0 + (-x).exp());
            let cp = cp as f64;
            let w = (1000.0 * sigma((cp - 150.0) / 75.0)).round() as u32;
            let l = (1000.0 * sigma((-cp - 150.0) / 75.0)).round() as u32;
            let (w, l) = (w.min(1000), l.min(1000 - w.min(1000)));
            (w, 1000 - w - l, l)
        }
    }
}

/// UCI's `score` field: `cp N` or `mate N`. A stalemate win has no UCI
/// form; it is sent as `cp ±(200000 − plies)`, a band no evaluation
/// reaches (docs/engine.md).
pub fn score_text(score: Score) -> String {
    match score {
        Score::Cp(v) => format!("cp {v}"),
        Score::Mate(n) => format!("mate {n}"),
        Score::StalemateWin(n) => {
            let plies = if n > 0 { 2 * n - 1 } else { -2 * n };
            let v = crate::search::score::STALEMATE_WIN - plies;
            format!("cp {}", if n > 0 { v } else { -v })
        }
    }
}

/// The `info` line of a search report (moves written from `root`, with
/// the win/draw/loss estimate when `show_wdl`).
pub fn info_line(
    info: &SearchInfo,
    root: &Position,
    king_takes_rook: bool,
    show_wdl: bool,
) -> String {
    if let Some((m, n)) = info.currmove {
        return format!(
            "info depth {} currmove {} currmovenumber {}",
            info.depth,
            root.move_text(m, king_takes_rook),
            n
        );
    }
    let mut s = format!(
        "info depth {} seldepth {} multipv {} score {}",
        info.depth,
        info.seldepth,
        info.multipv,
        score_text(info.score)
    );
    match info.bound {
        Bound::Lower => s.push_str(" lowerbound"),
        Bound::Upper => s.push_str(" upperbound"),
        Bound::Exact => {}
    }
    if show_wdl {
        let (w, d, l) = wdl(info.score);
        s.push_str(&format!(" wdl {w} {d} {l}"));
    }
    s.push_str(&format!(
        " nodes {} nps {} hashfull {} tbhits {} time {}",
        info.nodes,
        info.nps,
        info.hashfull,
        info.tbhits,
        info.time.as_millis()
    ));
    if !info.pv.is_empty() {
        s.push_str(" pv");
        let mut p = root.clone();
        for &m in &info.pv {
            s.push(' ');
            s.push_str(&p.move_text(m, king_takes_rook));
            p.make(m);
        }
    }
    s
}

/// The `bestmove` line of a finished search: `bestmove (none)` when the
/// root has no legal move (mate or stalemate).
pub fn bestmove_line(r: &SearchResult, root: &Position, king_takes_rook: bool) -> String {
    match r.best {
        Some(m) => {
            let mut s = format!("bestmove {}", root.move_text(m, king_takes_rook));
            if let Some(p) = r.ponder {
                let mut after = root.clone();
                after.make(m);
                s.push_str(" ponder ");
                s.push_str(&after.move_text(p, king_takes_rook));
            }
            s
        }
        // A simultaneous turn's pass (the exchange phase).
        None if r.pass => "bestmove 0000".to_string(),
        None => "bestmove (none)".to_string(),
    }
}

/// A simultaneous turn's `info string strategy <seat> <decision> <p> …`
/// line: the deciding seat's equilibrium strategy (`None` in sequential
/// turns).
pub fn strategy_line(
    r: &SearchResult,
    root: &Position,
    seat: crate::board::seating::Seat,
) -> Option<String> {
    if r.strategy.is_empty() {
        return None;
    }
    let items: Vec<String> = r
        .strategy
        .iter()
        .map(|&(d, p)| {
            format!(
                "{} {p:.3}",
                crate::rules::notation::joint::decision_text(root, Some(d))
            )
        })
        .collect();
    Some(format!(
        "info string strategy {} {}",
        root.variant().seating.name(seat),
        items.join(" ")
    ))
}

/// The variant announcement (the ndchess extension).
pub fn announcement(v: &Arc<Variant>) -> String {
    let g = &v.geometry;
    let size: Vec<String> = g.lens().iter().map(|l| l.to_string()).collect();
    let mut turns = if v.seating.turn_order() == crate::board::seating::TurnOrder::Simultaneous {
        " turns simultaneous".to_string()
    } else {
        String::new()
    };
    if let Some(party) = v.rules.party {
        // Multi-party games: the convention and the seats in turn order.
        let seats: Vec<&str> = v
            .seating
            .order()
            .iter()
            .map(|&s| v.seating.name(s))
            .collect();
        turns.push_str(&format!(
            " mode {} end {} dead {} seats {}",
            party.mode,
            party.end,
            party.dead,
            seats.join(",")
        ));
    }
    format!(
        "info string variant {} dimension {} size {} cells {} players {}{turns} startpos {}",
        v.spec,
        g.dims(),
        size.join("x"),
        g.cell_count(),
        v.seat_count(),
        Position::start(v).to_text()
    )
}

/// What the caller of [`Uci::handle`] should do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` was received: end the session.
    Quit,
}

/// The UCI front-end.
#[derive(Debug)]
pub struct Uci {
    session: Session,
    out: Sender<String>,
    debug: bool,
}

/// The engine's name in `id name`.
pub fn engine_name() -> String {
    format!("ndchess {}", env!("CARGO_PKG_VERSION"))
}

impl Uci {
    /// A front-end writing its lines to `out`.
    pub fn new(out: Sender<String>, config: SessionConfig) -> Uci {
        Uci {
            session: Session::new(config),
            out,
            debug: false,
        }
    }

    /// The session (variant, position, options).
    pub fn session(&self) -> &Session {
        &self.session
    }

    fn send(&self, line: String) {
        // A closed output (the GUI went away) is not an error of the input.
        let _ = self.out.send(line);
    }

    fn error(&self, message: impl fmt::Display) {
        // Messages repeat parts of the input: keep them on one short line.
        self.send(format!(
            "info string error: {}",
            printable(&message.to_string(), MAX_MESSAGE_CHARS)
        ));
    }

    fn debug_line(&self, message: impl FnOnce() -> String) {
        if self.debug {
            self.send(format!("info string debug: {}", message()));
        }
    }

    /// Reports a line longer than the reader accepts (it was discarded).
    pub fn reject_long_line(&self, bytes: usize) {
        self.error(format!(
            "line of {bytes} bytes ignored: longer than the limit of {} bytes",
            super::MAX_LINE_BYTES
        ));
    }

    /// Handles one input line.
    pub fn handle(&mut self, line: &str) -> Flow {
        if line.len() > super::MAX_LINE_BYTES {
            self.reject_long_line(line.len());
            return Flow::Continue;
        }
        match parse(line) {
            Ok(None) => Flow::Continue,
            Ok(Some(c)) => self.execute(c),
            Err(e) => {
                self.error(e);
                Flow::Continue
            }
        }
    }

    /// Waits until the engine thread has finished everything sent so far
    /// (tests; stop an unbounded search first).
    pub fn wait_idle(&self) {
        self.session.host().wait_idle();
    }

    /// Ends the engine thread, waiting at most `grace`.
    pub fn shutdown(&mut self, grace: Duration) -> bool {
        self.session.shutdown(grace)
    }

    fn execute(&mut self, c: Command) -> Flow {
        match c {
            Command::Uci => {
                self.send(format!("id name {}", engine_name()));
                self.send("id author the ndchess developers".into());
                for o in self.session.options() {
                    self.send(option_line(o));
                }
                self.send("uciok".into());
            }
            Command::Debug(on) => {
                self.debug = on;
                self.debug_line(|| "debug output on".into());
            }
            Command::IsReady => self.isready(),
            Command::Register => {}
            Command::SetOption { name, value } => self.setoption(&name, value.as_deref()),
            Command::UciNewGame => {
                self.session.new_game();
                self.debug_line(|| "new game: transposition table and history cleared".into());
            }
            Command::Position { fen, moves } => {
                let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
                match self.session.set_position(fen.as_deref(), &moves) {
                    Ok(()) => self.debug_line(|| {
                        let p = self.session.position().map(|p| p.to_text());
                        format!(
                            "position {} after {} moves",
                            p.unwrap_or_default(),
                            moves.len()
                        )
                    }),
                    Err(e) => self.error(e),
                }
            }
            Command::Go(g) => self.go(g),
            Command::Perft(d) => self.perft(d),
            Command::Stop => self.session.host().stop(),
            Command::PonderHit => self.session.host().ponderhit(),
            Command::Quit => {
                self.session.host().stop();
                return Flow::Quit;
            }
        }
        Flow::Continue
    }

    fn isready(&self) {
        if self.session.host().busy() {
            // Answered at once: the search runs on the engine thread.
            self.send("readyok".into());
            return;
        }
        // Ready once queued reconfiguration (a table resize) is done and
        // the variant's tables are built.
        self.session.prepare_engine();
        let out = self.out.clone();
        if !self.session.host().after_queued(move || {
            let _ = out.send("readyok".into());
        }) {
            self.send("readyok".into());
        }
    }

    fn setoption(&mut self, name: &str, value: Option<&str>) {
        match self.session.set_option(name, value) {
            Ok(OptionEffect::Variant { .. }) => {
                self.send(announcement(self.session.variant()));
            }
            Ok(OptionEffect::Other) => {
                self.debug_line(|| format!("option {name} set"));
            }
            Err(e) => self.error(e),
        }
    }

    fn go(&mut self, g: GoParams) {
        let Some(root) = self.session.position().cloned() else {
            self.error(format!("go: {}", SessionError::NoPosition));
            return;
        };
        if root.variant().rules.party.is_some() {
            // Multi-party games: the seat the answer is for (its view is
            // the score's).
            let v = root.variant();
            self.send(format!(
                "info string seat {} search {}",
                v.seating.name(root.to_move()),
                self.session.settings().multi_search
            ));
        }
        let mut limits = g.limits();
        if !g.searchmoves.is_empty() {
            let moves: Vec<&str> = g.searchmoves.iter().map(String::as_str).collect();
            match self.session.parse_moves(&moves) {
                Ok(m) => limits.searchmoves = m,
                Err(e) => {
                    self.error(format!("go searchmoves: {e}"));
                    return;
                }
            }
        }
        let ktr = self.session.king_takes_rook();
        let wdl = self.session.settings().show_wdl;
        let debug = self.debug;
        let seat = self.session.seat();
        let out = self.out.clone();
        let report_root = root;
        let report = Box::new(move |e: SearchEvent<'_>| {
            let line = match e {
                SearchEvent::Info(info) => info_line(info, &report_root, ktr, wdl),
                SearchEvent::Done(r) => {
                    if let Some(failure) = &r.failure {
                        let _ =
                            out.send(format!("info string error: internal: {}", quote(failure)));
                    } else if debug {
                        let _ = out.send(format!(
                            "info string debug: search done: depth {} nodes {} time {} ms score {}",
                            r.depth,
                            r.nodes,
                            r.time.as_millis(),
                            r.score
                        ));
                    }
                    if let Some(line) = strategy_line(&r, &report_root, seat) {
                        let _ = out.send(line);
                    }
                    bestmove_line(&r, &report_root, ktr)
                }
            };
            let _ = out.send(line);
        });
        self.debug_line(|| format!("search: {g}"));
        if let Err(e) = self.session.search(limits, g.ponder, report) {
            self.error(format!("go: {e}"));
        }
    }

    fn perft(&mut self, depth: u32) {
        if self.session.position().is_none() {
            self.error(format!("go perft: {}", SessionError::NoPosition));
            return;
        }
        let out = self.out.clone();
        let report = Box::new(move |o: PerftOutcome| match o {
            PerftOutcome::Done(parts) => {
                let mut lines = parts;
                lines.sort();
                let total: u64 = if depth == 0 {
                    1
                } else {
                    lines.iter().map(|l| l.1).sum()
                };
                if depth > 0 {
                    for (m, n) in &lines {
                        let _ = out.send(format!("{m}: {n}"));
                    }
                }
                let _ = out.send(format!("Nodes searched: {total}"));
            }
            PerftOutcome::Stopped => {
                let _ = out.send("info string perft stopped before the end".to_string());
            }
            PerftOutcome::Failed(msg) => {
                let _ = out.send(format!("info string error: internal: {}", quote(&msg)));
            }
        });
        if let Err(e) = self.session.perft(depth, report) {
            self.error(format!("go perft: {e}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_commands() {
        assert_eq!(parse("  "), Ok(None));
        assert_eq!(parse("uci"), Ok(Some(Command::Uci)));
        assert_eq!(
            parse("setoption name Move Overhead value 30"),
            Ok(Some(Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("30".into())
            }))
        );
        assert_eq!(
            parse("setoption name Clear Hash"),
            Ok(Some(Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }))
        );
        assert_eq!(
            parse("position fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1 moves e1e2"),
            Ok(Some(Command::Position {
                fen: Some("4k3/8/8/8/8/8/8/4K3 w - - 0 1".into()),
                moves: vec!["e1e2".into()]
            }))
        );
        assert_eq!(
            parse("go wtime -5 btime 1000 winc 10 binc 10 movestogo 5"),
            Ok(Some(Command::Go(GoParams {
                wtime: Some(0),
                btime: Some(1000),
                winc: Some(10),
                binc: Some(10),
                movestogo: Some(5),
                ..GoParams::default()
            })))
        );
        assert_eq!(
            parse("go searchmoves e2e4 d2d4 depth 3"),
            Ok(Some(Command::Go(GoParams {
                searchmoves: vec!["e2e4".into(), "d2d4".into()],
                depth: Some(3),
                ..GoParams::default()
            })))
        );
        assert_eq!(parse("go perft 3"), Ok(Some(Command::Perft(3))));
    }

    #[test]
    fn refuses_malformed_lines() {
        for bad in [
            "uci now",
            "debug",
            "setoption Hash 3",
            "setoption name",
            "position",
            "position fen",
            "position startfen",
            "go depth",
            "go depth -1",
            "go depth 3 depth 4",
            "go perft 3 depth 2",
            "go perft 65",
            "go searchmoves",
            "go sideways",
            "frobnicate",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn go_parameters_print_as_a_go_command() {
        let line = "go searchmoves e2e4 d2d4 ponder wtime 5 btime 6 movestogo 7 depth 3 infinite";
        let Ok(Some(Command::Go(g))) = parse(line) else {
            panic!("{line} parses")
        };
        assert_eq!(g.to_string(), line);
        assert_eq!(parse(&g.to_string()), Ok(Some(Command::Go(g))));
    }

    #[test]
    fn wdl_sums_to_a_thousand() {
        for cp in [-100_000, -500, -150, 0, 1, 150, 420, 100_000] {
            let (w, d, l) = wdl(Score::Cp(cp));
            assert_eq!(w + d + l, 1000, "{cp}");
        }
        // Symmetric in the score.
        let (w, _, l) = wdl(Score::Cp(200));
        assert_eq!(wdl(Score::Cp(-200)), (l, 1000 - w - l, w));
        // At +150 the first logistic is at its midpoint.
        assert_eq!(wdl(Score::Cp(150)).0, 500);
    }

    #[test]
    fn quotes_are_short_and_printable() {
        let q = quote(&"\u{1}x".repeat(100));
        assert!(q.chars().count() <= QUOTE_CHARS + 1);
        assert!(!q.chars().any(|c| c.is_control()));
    }
}
