//! The XBoard (CECP v2) front-end: the same [`Session`] and engine thread
//! as UCI behind the protocol xboard, WinBoard, python-chess and Fairy-Max
//! tournaments speak (docs/protocol.md, "XBoard").
//!
//! Unlike UCI, the engine owns the game here: it keeps the position and
//! its history, knows which side it plays, makes its own moves, ponders,
//! claims results and decides on draws and resignation. All of that state
//! lives on the protocol thread; the engine thread only searches and
//! reports back through an [`Event`] channel the input loop listens to
//! beside the input ([`XBoard::events`]). A finished search is therefore
//! turned into a `move` on the protocol thread, in order with the
//! commands around it.
//!
//! Variants: `normal`, `fischerandom`, `cylinder` (built into xboard) and
//! the engine-defined `torus`, for which the engine answers `variant`
//! with a `setup` line (board size, piece letters, start position) and
//! `piece` lines, so that xboard draws the 8-file, 14-rank board. Boards
//! of three or more dimensions are UCI/CLI-only (docs/protocol.md says
//! why).
//!
//! Every refused line gets exactly one answer — `Error (…): line`,
//! `Illegal move (…): move` or `tellusererror Illegal position …` — and
//! changes nothing.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, unbounded};

use crate::board::registry;
use crate::board::seating::Seat;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::outcome::{EndReason, Outcome};
use crate::rules::position::Position;
use crate::search::{Bound, Limits, Score, SearchInfo, SearchResult};

use super::options::{self, OptionKind, OptionSpec};
use super::session::{DEFAULT_FAMILY, OptionEffect, Session, SessionConfig, SessionError, names};
use super::text::result_text;
use super::uci::{Flow, MAX_MESSAGE_CHARS, engine_name, printable, quote};
use super::xboard_parse::{Command, Level, MoveSet, parse};
use crate::engine::host::SearchEvent;

/// The XBoard variant names and the ndchess variant family each selects
/// (the families of the registry that have an XBoard name).
pub fn variants() -> Vec<(&'static str, &'static str)> {
    registry::FAMILIES
        .iter()
        .filter_map(|f| f.xboard.map(|x| (x, f.name)))
        .collect()
}

/// Default time control before any `level`/`st` arrives: xboard's own
/// default, 40 moves in 5 minutes.
const DEFAULT_LEVEL: Level = Level {
    moves: 40,
    base: Duration::from_secs(300),
    inc: Duration::ZERO,
};

/// Score (in XBoard's centipawn scale) of a forced cube stalemate win in
/// N moves: `±(STALEMATE_WIN_BASE + N)`, between any material score and
/// the mate scores `±(100000 + N)` the protocol defines.
pub const STALEMATE_WIN_BASE: i64 = 90_000;

/// Something the engine thread reports to the protocol thread.
#[derive(Debug)]
pub enum Event {
    /// Search `id` ended with `result` (a failed search with a fallback
    /// move and [`SearchResult::failure`] set).
    Done {
        /// The search's number.
        id: u64,
        /// Its result.
        result: SearchResult,
    },
}

/// What the engine is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Activity {
    /// Waiting for commands.
    Idle,
    /// Searching for its own move (search `id`).
    Thinking(u64),
    /// Pondering on the opponent's time, expecting `expected`.
    Pondering(u64, Move),
    /// Analysing (`analyze` mode), search `id`.
    Analyzing(u64),
}

/// The resignation and draw policy (XBoard options "Resign",
/// "Resign Threshold", "Draw Offers"); documented in docs/protocol.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Whether the engine resigns lost games.
    pub resign: bool,
    /// Centipawns below zero after which a game counts as lost.
    pub resign_threshold: i64,
    /// Whether the engine offers and accepts draws.
    pub draw_offers: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            resign: true,
            resign_threshold: 1000,
            draw_offers: true,
        }
    }
}

/// Consecutive own moves with a score at or below −threshold before the
/// engine resigns (one bad search is not enough).
const RESIGN_MOVES: usize = 3;
/// Own moves in a row with a score within ±[`DRAW_BAND`] before the
/// engine offers a draw, and the earliest full move it does.
const DRAW_MOVES: usize = 10;
/// See [`DRAW_MOVES`].
const DRAW_BAND: i64 = 10;
/// See [`DRAW_MOVES`].
const DRAW_EARLIEST_MOVE: u32 = 40;
/// The engine accepts a draw offer when its latest score is at most this.
const DRAW_ACCEPT: i64 = 0;

/// Status of the running search, for `.` in analysis mode.
#[derive(Clone, Debug, Default)]
struct Status {
    time: Duration,
    nodes: u64,
    depth: u32,
    currmove: Option<(String, usize)>,
}

/// The clocks and limits the GUI set.
#[derive(Clone, Debug, PartialEq)]
struct TimeControl {
    level: Level,
    /// `st`: exact seconds per move (overrides `level`).
    per_move: Option<Duration>,
    /// `sd`.
    depth: Option<u32>,
    /// `nps`: node budget per second of thinking time.
    nps: Option<u64>,
    /// `time`.
    own: Option<Duration>,
    /// `otim`.
    opponent: Option<Duration>,
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl {
            level: DEFAULT_LEVEL,
            per_move: None,
            depth: None,
            nps: None,
            own: None,
            opponent: None,
        }
    }
}

/// The XBoard front-end.
pub struct XBoard {
    session: Session,
    out: Sender<String>,
    events_tx: Sender<Event>,
    events_rx: Receiver<Event>,
    activity: Activity,
    next_id: u64,
    /// Force mode: the engine plays neither side.
    force: bool,
    /// The player the engine plays when not in force mode.
    engine_player: Seat,
    /// A `result` arrived or the engine resigned: no more moves.
    game_over: bool,
    /// Lines held back until the engine's move is out (a `ping` sent
    /// while the engine thinks is answered after the move).
    deferred: VecDeque<String>,
    time: TimeControl,
    post: Arc<AtomicBool>,
    ponder: bool,
    /// Whether `#` debug lines may be sent (feature debug accepted).
    debug: bool,
    status: Arc<Mutex<Status>>,
    /// Scores (engine's view, centipawns) of the engine's moves this game.
    scores: Vec<i64>,
    policy: Policy,
    /// The opponent offered a draw that is still to be answered.
    draw_offered: bool,
    /// The engine offered a draw that stands (not offered again).
    draw_offer_made: bool,
    /// The predicted reply of the last search, for `hint`.
    hint: Option<Move>,
    /// Root moves excluded by `exclude` (cleared on every new position).
    excluded: Vec<Move>,
    /// Analysis mode (`analyze` until `exit`): every new position is
    /// analysed; a search may or may not run (all root moves excluded).
    analyze_mode: bool,
}

impl fmt::Debug for XBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("XBoard")
            .field("session", &self.session)
            .field("activity", &self.activity)
            .field("force", &self.force)
            .field("engine_player", &self.engine_player)
            .field("game_over", &self.game_over)
            .finish()
    }
}

/// What a refused command is answered with.
#[derive(Debug)]
enum Refusal {
    /// `Error (kind): line`.
    Error(String),
    /// `Illegal move (reason): move`.
    IllegalMove(String, String),
    /// `tellusererror Illegal position: reason`.
    IllegalPosition(String),
}

fn error(kind: impl Into<String>) -> Refusal {
    Refusal::Error(kind.into())
}

/// The XBoard variant name of an ndchess variant family, if it has one.
pub fn xboard_variant_name(family: &str) -> Option<&'static str> {
    registry::family(family).and_then(|f| f.xboard)
}

/// Whether `m` is a castling that ends with the king on the h side
/// (written `O-O`); the king's destination names the castling on every
/// 2-D board (RULES 2.3).
fn is_short_castling(pos: &Position, m: Move) -> bool {
    let g = &pos.variant().geometry;
    let files = g.lens()[1];
    g.coord(m.to as usize, 1) * 2 > files as i32
}

/// The move as xboard reads it: coordinates, promotion letter in lower
/// case, castling as the king's move — except in Fischer random, where it
/// is `O-O` / `O-O-O` (the king's move can be an ordinary move there).
pub fn move_text(pos: &Position, m: Move) -> String {
    if m.kind == MoveKind::Castle && pos.king_takes_rook() {
        return if is_short_castling(pos, m) {
            "O-O".into()
        } else {
            "O-O-O".into()
        };
    }
    pos.move_text(m, false)
}

/// Reads a move xboard sends: coordinates (castling as the king's move
/// or king-takes-rook) or `O-O` / `O-O-O` (also with zeros).
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, String> {
    let castle = match text {
        "O-O" | "0-0" => Some(true),
        "O-O-O" | "0-0-0" => Some(false),
        _ => None,
    };
    if let Some(short) = castle {
        let found: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|&m| m.kind == MoveKind::Castle && is_short_castling(pos, m) == short)
            .collect();
        return match found.as_slice() {
            [m] => Ok(*m),
            [] => Err("no such castling now".into()),
            _ => Err("ambiguous castling".into()),
        };
    }
    pos.parse_move(text).map_err(|e| match e {
        crate::rules::notation::MoveError::Syntax(_) => "not a move".to_string(),
        crate::rules::notation::MoveError::Illegal(_) => {
            if pos.legal_moves().is_empty() {
                "the game is over".to_string()
            } else {
                "not legal here".to_string()
            }
        }
        e => e.to_string(),
    })
}

/// The XBoard score of `score`: centipawns, `±(100000 + N)` for mate in
/// N moves, `±(90000 + N)` for a forced cube stalemate win.
pub fn xboard_score(score: Score) -> i64 {
    match score {
        Score::Cp(cp) => i64::from(cp),
        Score::Mate(n) if n > 0 => 100_000 + i64::from(n),
        Score::Mate(n) => -100_000 + i64::from(n),
        Score::StalemateWin(n) if n > 0 => STALEMATE_WIN_BASE + i64::from(n),
        Score::StalemateWin(n) => -STALEMATE_WIN_BASE + i64::from(n),
    }
}

/// A thinking-output line: `ply score time nodes pv` (time in
/// centiseconds), with `?` after a fail-low and `!` after a fail-high.
pub fn thinking_line(info: &SearchInfo, root: &Position) -> String {
    let mut p = root.clone();
    let mut pv = Vec::with_capacity(info.pv.len());
    for &m in &info.pv {
        if !p.legal_moves().contains(&m) {
            break;
        }
        pv.push(move_text(&p, m));
        p.make(m);
    }
    let mut line = format!(
        "{} {} {} {} {}",
        info.depth,
        xboard_score(info.score),
        info.time.as_millis() / 10,
        info.nodes,
        pv.join(" ")
    );
    match info.bound {
        Bound::Upper => line.push('?'),
        Bound::Lower => line.push('!'),
        Bound::Exact => {}
    }
    line
}

/// The seat that is not `s`: XBoard games have two seats (the front-end
/// offers only two-seat variants).
fn other_seat(s: Seat) -> Seat {
    Seat::new(1 - s.index().min(1))
}

/// The result line for a finished game: `1-0 {White mates}` and so on.
/// A cube stalemate win (scored ¾–¼ by the rules) is sent as a win, the
/// only form CECP has, with the true score in the comment.
pub fn result_line(r: &Outcome, pos: &Position) -> String {
    let v = pos.variant();
    let name = |p: Seat| {
        let n = v.seating.name(p);
        let mut c = n.chars();
        match c.next() {
            Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
            None => String::new(),
        }
    };
    // XBoard games have two seats: the winner's result is "1-0" or "0-1".
    let win = |w: Seat| if w == Seat::FIRST { "1-0" } else { "0-1" };
    match (r.reason, r.winner()) {
        (EndReason::Checkmate { .. }, Some(w)) => format!("{} {{{} mates}}", win(w), name(w)),
        (EndReason::StalemateLoss { .. }, Some(w)) => format!(
            "{} {{{} wins by stalemate, scored {} by the rules}}",
            win(w),
            name(w),
            result_text(r)
        ),
        (EndReason::Stalemate, _) => "1/2-1/2 {Stalemate}".into(),
        (EndReason::Repetition, _) => "1/2-1/2 {Draw by repetition}".into(),
        (EndReason::FiftyMoves, _) => "1/2-1/2 {Draw by fifty move rule}".into(),
        (EndReason::DeadPosition, _) => "1/2-1/2 {Insufficient material}".into(),
        _ => format!("{} {{{}}}", result_text(r), r.description(v)),
    }
}

/// The `feature option="…"` text of an option.
fn option_feature(name: &str, o: &OptionSpec) -> String {
    let body = match &o.kind {
        OptionKind::Spin { default, min, max } => format!("-spin {default} {min} {max}"),
        OptionKind::Check { default } => format!("-check {}", u8::from(*default)),
        OptionKind::Combo { default, vars } => {
            let items: Vec<String> = vars
                .iter()
                .map(|v| {
                    if v == default {
                        format!("*{v}")
                    } else {
                        v.clone()
                    }
                })
                .collect();
            format!("-combo {}", items.join(" /// "))
        }
        OptionKind::Button => "-button".into(),
        // XBoard offers a file chooser for `-file`, a folder chooser for
        // `-path`: the engine's text options name one or the other.
        OptionKind::Text { default } if name.ends_with("File") => format!("-file {default}"),
        OptionKind::Text { default } => format!("-path {default}"),
    };
    format!("feature option=\"{name} {body}\"")
}

/// Session options offered through `feature option`, as (XBoard name,
/// session name): the search parameters an XBoard user may change, and
/// the parameters of the variant families XBoard plays (from the variant
/// registry). XBoard names have no spaces, because some clients
/// (python-chess) cut option names at the first space. `Hash` and
/// `Threads` come through `memory` and `cores`, the variant through
/// `variant`.
fn session_options() -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = [
        names::MULTIPV,
        names::MOVE_OVERHEAD,
        names::CLEAR_HASH,
        names::TABLEBASE_PATH,
        names::EVAL_FILE,
    ]
    .iter()
    .map(|n| (n.replace(' ', ""), *n))
    .collect();
    for p in registry::PARAMS {
        let played = registry::FAMILIES
            .iter()
            .any(|f| f.xboard.is_some() && f.params.contains(&p.key));
        if played {
            out.push((p.option.replace(' ', ""), p.option));
        }
    }
    out
}

/// Names of the front-end's own options.
mod own {
    pub const RESIGN: &str = "Resign";
    pub const RESIGN_THRESHOLD: &str = "ResignThreshold";
    pub const DRAW_OFFERS: &str = "DrawOffers";
}

/// Whether option names `a` and `b` are the same, ignoring case and
/// spaces (`Move Overhead` = `MoveOverhead`).
fn same_option_name(a: &str, b: &str) -> bool {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| !c.is_whitespace())
            .flat_map(char::to_lowercase)
            .collect()
    };
    norm(a) == norm(b)
}

impl XBoard {
    /// A front-end writing its lines to `out`, with classical chess set up.
    pub fn new(out: Sender<String>, config: SessionConfig) -> XBoard {
        let mut session = Session::new(config);
        // The default session is classical chess, whose start always builds.
        session.set_start_position();
        let (events_tx, events_rx) = unbounded();
        XBoard {
            session,
            out,
            events_tx,
            events_rx,
            activity: Activity::Idle,
            next_id: 0,
            force: false,
            engine_player: Seat::new(1),
            game_over: false,
            deferred: VecDeque::new(),
            time: TimeControl::default(),
            post: Arc::new(AtomicBool::new(false)),
            ponder: false,
            debug: true,
            status: Arc::new(Mutex::new(Status::default())),
            scores: Vec::new(),
            policy: Policy::default(),
            draw_offered: false,
            draw_offer_made: false,
            hint: None,
            excluded: Vec::new(),
            analyze_mode: false,
        }
    }

    /// The session (variant, position, options).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The channel of engine events the input loop must feed to
    /// [`XBoard::handle_event`].
    pub fn events(&self) -> Receiver<Event> {
        self.events_rx.clone()
    }

    /// Whether the engine is in force mode.
    pub fn force_mode(&self) -> bool {
        self.force
    }

    /// The player the engine plays when not in force mode.
    pub fn engine_player(&self) -> Seat {
        self.engine_player
    }

    /// Whether a search (thinking, pondering or analysis) runs.
    pub fn searching(&self) -> bool {
        self.activity != Activity::Idle
    }

    fn send(&self, line: impl Into<String>) {
        // A closed output (the GUI went away) is not an error of the input.
        let _ = self.out.send(line.into());
    }

    fn debug_line(&self, text: impl FnOnce() -> String) {
        if self.debug {
            self.send(format!("# {}", text()));
        }
    }

    /// Handles one input line.
    pub fn handle(&mut self, line: &str) -> Flow {
        if line.len() > super::MAX_LINE_BYTES {
            self.reject_long_line(line.len());
            return Flow::Continue;
        }
        if !self.deferred.is_empty() {
            self.deferred.push_back(line.to_string());
            return Flow::Continue;
        }
        self.process_line(line)
    }

    fn process_line(&mut self, line: &str) -> Flow {
        let command = match parse(line) {
            Ok(None) => return Flow::Continue,
            Ok(Some(c)) => c,
            Err(e) => {
                self.send(format!(
                    "Error ({}): {}",
                    printable(&e.kind, MAX_MESSAGE_CHARS),
                    quote(line.trim())
                ));
                return Flow::Continue;
            }
        };
        if let (Command::Ping(_), Activity::Thinking(_)) = (&command, self.activity) {
            // Answered after the move (the protocol's rule for ping).
            self.deferred.push_back(line.to_string());
            return Flow::Continue;
        }
        match self.execute(command) {
            Ok(flow) => flow,
            // Reasons repeat parts of the input: keep them on one short line.
            Err(Refusal::Error(kind)) => {
                self.send(format!(
                    "Error ({}): {}",
                    printable(&kind, MAX_MESSAGE_CHARS),
                    quote(line.trim())
                ));
                Flow::Continue
            }
            Err(Refusal::IllegalMove(reason, mv)) => {
                self.send(format!(
                    "Illegal move ({}): {}",
                    printable(&reason, MAX_MESSAGE_CHARS),
                    quote(&mv)
                ));
                Flow::Continue
            }
            Err(Refusal::IllegalPosition(reason)) => {
                self.send(format!(
                    "tellusererror Illegal position: {}",
                    printable(&reason, MAX_MESSAGE_CHARS)
                ));
                Flow::Continue
            }
        }
    }

    /// Reports a line longer than the reader accepts (it was discarded).
    pub fn reject_long_line(&self, bytes: usize) {
        self.send(format!(
            "Error (line of {bytes} bytes longer than the limit of {} bytes): ignored",
            super::MAX_LINE_BYTES
        ));
    }

    /// Handles everything the engine thread has reported so far (tests;
    /// the binary's loop selects on [`XBoard::events`]). Returns `Quit` if
    /// a deferred `quit` was reached.
    pub fn pump(&mut self) -> Flow {
        while let Ok(ev) = self.events_rx.try_recv() {
            if self.handle_event(ev) == Flow::Quit {
                return Flow::Quit;
            }
        }
        Flow::Continue
    }

    /// Waits until the engine thread is idle and handles its reports
    /// (tests). A search without a limit (analysis, pondering) must be
    /// ended first, or this waits for ever.
    pub fn wait_idle(&mut self) -> Flow {
        loop {
            self.session.host().wait_idle();
            if self.pump() == Flow::Quit {
                return Flow::Quit;
            }
            if !self.session.host().busy() && self.events_rx.is_empty() {
                return Flow::Continue;
            }
        }
    }

    /// Ends the engine thread, waiting at most `grace`.
    pub fn shutdown(&mut self, grace: Duration) -> bool {
        self.session.shutdown(grace)
    }

    /// Handles one engine report.
    pub fn handle_event(&mut self, ev: Event) -> Flow {
        let Event::Done { id, result } = ev;
        if let Some(failure) = &result.failure {
            self.debug_line(|| format!("internal error: {}", quote(failure)));
        }
        self.search_done(id, result)
    }

    fn current_id(&self) -> Option<u64> {
        match self.activity {
            Activity::Idle => None,
            Activity::Thinking(id) | Activity::Pondering(id, _) | Activity::Analyzing(id) => {
                Some(id)
            }
        }
    }

    fn search_done(&mut self, id: u64, result: SearchResult) -> Flow {
        if self.current_id() != Some(id) {
            // An aborted search (force, new, a ponder miss): its move is
            // not played.
            return Flow::Continue;
        }
        let activity = self.activity;
        self.activity = Activity::Idle;
        if let Activity::Thinking(_) = activity {
            self.play_engine_move(result);
        }
        self.run_deferred()
    }

    /// Handles the lines held back while the engine thought, in order,
    /// until they are done or the engine thinks again.
    fn run_deferred(&mut self) -> Flow {
        while !matches!(self.activity, Activity::Thinking(_)) {
            let Some(line) = self.deferred.pop_front() else {
                break;
            };
            if self.process_line(&line) == Flow::Quit {
                return Flow::Quit;
            }
        }
        Flow::Continue
    }

    fn position(&self) -> &Position {
        self.session
            .position()
            .expect("invariant: the XBoard front-end always has a position")
    }

    /// Stops whatever search runs; its result will be discarded.
    fn abort_search(&mut self) {
        if self.activity != Activity::Idle {
            self.session.host().stop();
            self.activity = Activity::Idle;
        }
    }

    fn engine_to_move(&self) -> bool {
        !self.force && !self.game_over && self.position().to_move() == self.engine_player
    }

    fn execute(&mut self, c: Command) -> Result<Flow, Refusal> {
        match c {
            Command::Xboard => {
                self.send("");
            }
            Command::Protover(_) => self.features(),
            Command::Accepted(_) => {}
            Command::Rejected(f) => {
                if f == "debug" {
                    self.debug = false;
                }
            }
            Command::New => self.new_game()?,
            Command::Variant(name) => self.variant(&name)?,
            Command::Quit => {
                self.abort_search();
                return Ok(Flow::Quit);
            }
            Command::Random | Command::Info => {}
            Command::Force => {
                // Thinking and pondering stop; an analysis goes on
                // (analysis is force mode with a search).
                if !self.analyze_mode {
                    self.abort_search();
                }
                self.force = true;
            }
            Command::Go => {
                if self.analyze_mode {
                    return Err(error("command not legal now: leave analysis with 'exit'"));
                }
                self.stop_pondering();
                self.force = false;
                self.game_over = false;
                self.engine_player = self.position().to_move();
                self.think_if_on_move();
            }
            Command::PlayOther => {
                if self.analyze_mode {
                    return Err(error("command not legal now: leave analysis with 'exit'"));
                }
                self.abort_search();
                self.force = false;
                self.game_over = false;
                let to_move = self.position().to_move();
                self.engine_player = other_seat(to_move);
            }
            Command::White | Command::Black => {
                // Protocol 1: the named side is on move and the engine
                // plays the other; only meaningful with colors=1, which
                // ndchess does not ask for. Accepted when it agrees with
                // the position.
                let side = Seat::new(usize::from(c == Command::Black));
                if self.position().to_move() != side {
                    return Err(error(
                        "command not legal now: the other side is on move (use setboard)",
                    ));
                }
                self.abort_search();
                self.engine_player = other_seat(side);
            }
            Command::Level(l) => {
                self.time.level = l;
                self.time.per_move = None;
            }
            Command::St(t) => self.time.per_move = Some(t),
            Command::Sd(d) => self.time.depth = Some(d),
            // `nps 0` asks for CPU time instead of wall-clock time; the
            // engine measures wall-clock time, which for a search that
            // runs flat out is the same.
            Command::Nps(n) => self.time.nps = (n > 0).then_some(n),
            Command::Time(t) => self.time.own = Some(t),
            Command::Otim(t) => self.time.opponent = Some(t),
            Command::UserMove(m) => self.user_move(&m)?,
            Command::MoveNow => {
                if let Activity::Thinking(_) = self.activity {
                    self.session.host().stop();
                }
            }
            Command::Ping(n) => self.send(format!("pong {n}")),
            Command::Draw => self.draw_offer(),
            Command::Result(_) => {
                self.abort_search();
                self.game_over = true;
                self.force = true;
            }
            Command::SetBoard(fen) => self.setboard(&fen)?,
            Command::Edit => {
                return Err(error(
                    "unknown command: ndchess takes positions through setboard",
                ));
            }
            Command::Hint => {
                if let Some(m) = self.hint
                    && self.position().legal_moves().contains(&m)
                {
                    self.send(format!("Hint: {}", move_text(self.position(), m)));
                }
            }
            Command::Book => {
                self.send(" ndchess has no opening book");
                self.send("");
            }
            Command::Undo => self.take_back(1)?,
            Command::Remove => self.take_back(2)?,
            Command::Hard => self.ponder = true,
            Command::Easy => {
                self.ponder = false;
                self.stop_pondering();
            }
            Command::Post => self.post.store(true, Ordering::SeqCst),
            Command::NoPost => self.post.store(false, Ordering::SeqCst),
            Command::Analyze => {
                self.abort_search();
                self.force = true;
                self.analyze_mode = true;
                self.reanalyse();
            }
            Command::Exit => {
                if !self.analyze_mode {
                    return Err(error("command not legal now: not analysing"));
                }
                self.analyze_mode = false;
                self.abort_search();
            }
            Command::Status => self.status_line(),
            Command::Pause | Command::Resume => {
                return Err(error("unknown command: pause=0 was declared"));
            }
            Command::Memory(mb) => {
                // The GUI gives an upper bound: use it, within our range.
                let mb = mb.clamp(1, self.spin_max(names::HASH));
                self.set_session_option(names::HASH, Some(&mb.to_string()))?;
            }
            Command::Cores(n) => {
                let n = n.clamp(1, self.spin_max(names::THREADS));
                self.set_session_option(names::THREADS, Some(&n.to_string()))?;
            }
            Command::SetOption { name, value } => self.option(&name, value.as_deref())?,
            Command::Exclude(set) => self.exclude(set, true)?,
            Command::Include(set) => self.exclude(set, false)?,
        }
        Ok(Flow::Continue)
    }

    /// In analysis mode, (re)starts the analysis of the current position.
    fn reanalyse(&mut self) {
        if self.analyze_mode {
            self.abort_search();
            self.start_search(SearchPurpose::Analyze);
        }
    }

    fn stop_pondering(&mut self) {
        if let Activity::Pondering(..) = self.activity {
            self.abort_search();
        }
    }

    fn features(&mut self) {
        let variants: Vec<&str> = variants().iter().map(|v| v.0).collect();
        self.send("feature done=0");
        self.send(format!(
            "feature ping=1 setboard=1 playother=1 san=0 usermove=1 time=1 draw=1 \
             sigint=0 sigterm=0 reuse=1 analyze=1 colors=0 ics=0 name=0 pause=0 nps=1 \
             debug=1 memory=1 smp=1 exclude=1 myname=\"{}\" variants=\"{}\"",
            engine_name(),
            variants.join(",")
        ));
        for (xb_name, name) in session_options() {
            if let Some(o) = self.session.options().iter().find(|o| o.name == name) {
                self.send(option_feature(&xb_name, o));
            }
        }
        let p = self.policy;
        self.send(format!(
            "feature option=\"{} -check {}\"",
            own::RESIGN,
            u8::from(p.resign)
        ));
        self.send(format!(
            "feature option=\"{} -spin {} 100 100000\"",
            own::RESIGN_THRESHOLD,
            p.resign_threshold
        ));
        self.send(format!(
            "feature option=\"{} -check {}\"",
            own::DRAW_OFFERS,
            u8::from(p.draw_offers)
        ));
        self.send("feature done=1");
    }

    /// The largest value of spin option `name`.
    fn spin_max(&self, name: &str) -> u64 {
        match options::find(self.session.options(), name).map(|o| &o.kind) {
            Ok(OptionKind::Spin { max, .. }) => (*max).max(1) as u64,
            _ => 1,
        }
    }

    fn set_session_option(
        &mut self,
        name: &str,
        value: Option<&str>,
    ) -> Result<OptionEffect, Refusal> {
        self.session
            .set_option(name, value)
            .map_err(|e| error(format!("bad option value: {e}")))
    }

    fn option(&mut self, name: &str, value: Option<&str>) -> Result<(), Refusal> {
        let flag = |v: Option<&str>| match v {
            Some("1") => Ok(true),
            Some("0") => Ok(false),
            _ => Err(error(format!("option {name} needs 0 or 1"))),
        };
        if same_option_name(name, own::RESIGN) {
            self.policy.resign = flag(value)?;
            return Ok(());
        }
        if same_option_name(name, own::DRAW_OFFERS) {
            self.policy.draw_offers = flag(value)?;
            return Ok(());
        }
        if same_option_name(name, own::RESIGN_THRESHOLD) {
            let n: i64 = value
                .and_then(|v| v.parse().ok())
                .filter(|n| (100..=100_000).contains(n))
                .ok_or_else(|| error(format!("option {name} needs a number from 100 to 100000")))?;
            self.policy.resign_threshold = n;
            return Ok(());
        }
        let Some((_, name)) = session_options()
            .into_iter()
            .find(|(xb, session)| same_option_name(name, xb) || same_option_name(name, session))
        else {
            return Err(error(format!("unknown option '{}'", quote(name))));
        };
        // A check option arrives as 0/1; the session reads true/false.
        let is_check = self
            .session
            .options()
            .iter()
            .any(|o| o.name == name && matches!(o.kind, OptionKind::Check { .. }));
        let value = match value {
            Some("1") if is_check => Some("true"),
            Some("0") if is_check => Some("false"),
            v => v,
        };
        let effect = self.set_session_option(name, value)?;
        // Asked of the session, not read from the spec: a variant rebuilt
        // with the spec it had (Chess960Number unset draws a start at
        // random, which can be the one it replaces) has no position.
        if let OptionEffect::Variant { rebuilt: true } = effect {
            // The variant changed under the game (WrapCastling,
            // Chess960Number): the game restarts from its start position.
            self.abort_search();
            self.session.set_start_position();
            self.position_changed();
        }
        Ok(())
    }

    fn new_game(&mut self) -> Result<(), Refusal> {
        self.abort_search();
        // `new` starts a game of xboard's `normal` variant.
        let normal = variants()
            .iter()
            .find(|v| v.0 == "normal")
            .map_or(DEFAULT_FAMILY, |v| v.1);
        if self.session.settings().variant != normal {
            self.set_session_option(names::UCI_VARIANT, Some(normal))?;
        }
        self.session.set_start_position();
        self.session.new_game();
        self.force = false;
        self.engine_player = Seat::new(1);
        self.game_over = false;
        self.time.depth = None;
        self.time.nps = None;
        self.scores.clear();
        self.draw_offered = false;
        self.draw_offer_made = false;
        self.position_changed();
        if self.analyze_mode {
            // `new` in analysis mode: the start position, still analysed.
            self.force = true;
            self.reanalyse();
        }
        Ok(())
    }

    fn variant(&mut self, name: &str) -> Result<(), Refusal> {
        let known = variants();
        let Some(&(_, family)) = known.iter().find(|v| v.0 == name) else {
            return Err(error(format!(
                "unsupported variant; ndchess plays {} over XBoard, boards of three or more \
                 dimensions over UCI",
                known.iter().map(|v| v.0).collect::<Vec<_>>().join(", ")
            )));
        };
        self.set_session_option(names::UCI_VARIANT, Some(family))?;
        self.abort_search();
        self.session.set_start_position();
        self.position_changed();
        self.describe_board();
        self.reanalyse();
        Ok(())
    }

    /// Tells xboard what it cannot know of the variant's board: a board
    /// other than 8x8 is defined with `setup` (size, piece letters, start
    /// position) and `piece` lines for pawns that move backwards; on an
    /// 8x8 board whose files wrap, every piece is defined as cylindrical
    /// (Betza `o`), or xboard's cylinder rejects moves round the edge.
    fn describe_board(&self) {
        let v = self.session.variant();
        let g = &v.geometry;
        let (ranks, files) = (g.lens()[0], g.lens()[1]);
        if (ranks, files) != (8, 8) {
            let start = Position::start(v).to_text();
            let white: String = XBOARD_PIECE_ORDER
                .chars()
                .map(|c| {
                    if v.kind_by_letter(c).is_some() {
                        c
                    } else {
                        '.'
                    }
                })
                .collect();
            let black = white.to_ascii_lowercase();
            self.send(format!(
                "setup ({white}{black}) {files}x{ranks}+0_fairy {start}"
            ));
            let backward = v.kinds.iter().any(|k| {
                k.pawn
                    .as_ref()
                    .is_some_and(|p| p.pushes.iter().any(|d| d[0] < 0))
            });
            if backward {
                for line in REVERSE_PAWN_PIECES {
                    self.send(*line);
                }
            }
        } else if g.wraps()[1] {
            for line in CYLINDER_PIECES {
                self.send(*line);
            }
        }
    }

    fn setboard(&mut self, fen: &str) -> Result<(), Refusal> {
        if matches!(self.activity, Activity::Thinking(_)) {
            return Err(error("command not legal now: the engine is thinking"));
        }
        match self.session.set_position(Some(fen), &[]) {
            Ok(()) => {
                self.abort_search();
                self.game_over = false;
                self.scores.clear();
                self.position_changed();
                self.reanalyse();
                Ok(())
            }
            Err(SessionError::Position(e)) => Err(Refusal::IllegalPosition(e.to_string())),
            Err(e) => Err(Refusal::IllegalPosition(e.to_string())),
        }
    }

    /// Everything that depends on the position is reset: excluded moves,
    /// the hint.
    fn position_changed(&mut self) {
        self.excluded.clear();
        self.hint = None;
    }

    fn user_move(&mut self, text: &str) -> Result<(), Refusal> {
        if matches!(self.activity, Activity::Thinking(_)) {
            return Err(Refusal::IllegalMove(
                "the engine is on move".into(),
                text.to_string(),
            ));
        }
        if self.game_over && !self.force {
            return Err(Refusal::IllegalMove(
                "the game is over".into(),
                text.to_string(),
            ));
        }
        let m = parse_move(self.position(), text)
            .map_err(|reason| Refusal::IllegalMove(reason, text.to_string()))?;
        let ponder_hit = matches!(self.activity, Activity::Pondering(_, e) if e == m);
        if !ponder_hit {
            self.abort_search();
        }
        self.session
            .play(m)
            .map_err(|e| Refusal::IllegalMove(e.to_string(), text.to_string()))?;
        self.position_changed();
        if self.analyze_mode {
            self.reanalyse();
            return Ok(());
        }
        if ponder_hit {
            if let Activity::Pondering(id, _) = self.activity {
                self.activity = Activity::Thinking(id);
                self.session.host().ponderhit();
            }
            return Ok(());
        }
        if let Some(r) = self.position().outcome() {
            // The opponent's move ended the game by rule.
            self.send(result_line(&r, self.position()));
            return Ok(());
        }
        self.think_if_on_move();
        Ok(())
    }

    fn take_back(&mut self, plies: usize) -> Result<(), Refusal> {
        if matches!(self.activity, Activity::Thinking(_)) {
            return Err(error("command not legal now: the engine is thinking"));
        }
        if self.position().ply_count() < plies {
            return Err(error("command not legal now: no move to take back"));
        }
        self.abort_search();
        for _ in 0..plies {
            self.session.undo_move();
        }
        self.game_over = false;
        self.position_changed();
        self.reanalyse();
        Ok(())
    }

    fn draw_offer(&mut self) {
        if !self.policy.draw_offers || self.game_over {
            return;
        }
        if matches!(self.activity, Activity::Thinking(_)) {
            // Answered with the move, on the search's own score.
            self.draw_offered = true;
            return;
        }
        if self.scores.last().is_some_and(|&s| s <= DRAW_ACCEPT) {
            self.send("offer draw");
        }
    }

    fn exclude(&mut self, set: MoveSet, exclude: bool) -> Result<(), Refusal> {
        match set {
            MoveSet::All => {
                self.excluded = if exclude {
                    self.position().legal_moves()
                } else {
                    Vec::new()
                };
            }
            MoveSet::One(text) => {
                let m = parse_move(self.position(), &text)
                    .map_err(|reason| Refusal::IllegalMove(reason, text.clone()))?;
                self.excluded.retain(|&x| x != m);
                if exclude {
                    self.excluded.push(m);
                }
            }
        }
        self.reanalyse();
        Ok(())
    }

    fn status_line(&self) {
        if !self.analyze_mode {
            return;
        }
        let s = self
            .status
            .lock()
            .map(|s| s.clone())
            .unwrap_or_else(|p| p.into_inner().clone());
        let total = self.position().legal_moves().len();
        let (left, name) = match &s.currmove {
            Some((m, n)) => (total.saturating_sub(*n), m.clone()),
            None => (0, String::new()),
        };
        let line = format!(
            "stat01: {} {} {} {} {} {}",
            s.time.as_millis() / 10,
            s.nodes,
            s.depth,
            left,
            total,
            name
        );
        self.send(line.trim_end());
    }

    fn think_if_on_move(&mut self) {
        if self.engine_to_move() && self.activity == Activity::Idle {
            self.start_search(SearchPurpose::Move);
        }
    }

    /// The limits of a search for the engine's own move.
    fn move_limits(&self) -> Limits {
        let pos = self.position();
        let me = pos.to_move();
        let players = pos.variant().seat_count();
        let t = &self.time;
        let mut limits = Limits {
            depth: t.depth,
            ..Limits::default()
        };
        if let Some(st) = t.per_move {
            limits.movetime = Some(st);
        } else {
            let mut clocks = vec![None; players];
            let mut incs = vec![None; players];
            let other = other_seat(me);
            clocks[me.index()] = Some(t.own.unwrap_or(t.level.base));
            clocks[other.index()] = Some(t.opponent.unwrap_or(t.level.base));
            incs[me.index()] = Some(t.level.inc);
            incs[other.index()] = Some(t.level.inc);
            limits.time = clocks;
            limits.inc = incs;
            if t.level.moves > 0 {
                let done = pos.fullmove_number().saturating_sub(1) % t.level.moves;
                limits.movestogo = Some(t.level.moves - done);
            }
        }
        if let Some(nps) = t.nps {
            // Node-counted time: the wall-clock budget becomes a node
            // budget at `nps` nodes per second.
            let budget = match t.per_move {
                Some(st) => st,
                None => {
                    let clock = t.own.unwrap_or(t.level.base);
                    let moves = limits.movestogo.unwrap_or(30).max(1);
                    clock / moves + t.level.inc
                }
            };
            limits.nodes = Some(((budget.as_secs_f64() * nps as f64) as u64).max(1));
            limits.movetime = None;
            limits.time = Vec::new();
            limits.inc = Vec::new();
            limits.movestogo = None;
        }
        limits
    }

    fn start_search(&mut self, purpose: SearchPurpose) {
        let root = match purpose {
            SearchPurpose::Ponder(m) => {
                let mut p = self.position().clone();
                p.make(m);
                p
            }
            _ => self.position().clone(),
        };
        let mut limits = match purpose {
            SearchPurpose::Analyze => Limits {
                infinite: true,
                ..Limits::default()
            },
            SearchPurpose::Move | SearchPurpose::Ponder(_) => self.move_limits(),
        };
        if !self.excluded.is_empty() && purpose == SearchPurpose::Analyze {
            let rest: Vec<Move> = root
                .legal_moves()
                .into_iter()
                .filter(|m| !self.excluded.contains(m))
                .collect();
            if rest.is_empty() {
                // Everything excluded: nothing to analyse until a move is
                // included again.
                return;
            }
            limits.searchmoves = rest;
        }
        self.next_id += 1;
        let id = self.next_id;
        if let Ok(mut s) = self.status.lock() {
            *s = Status::default();
        }
        let post = self.post.clone();
        let out = self.out.clone();
        let events = self.events_tx.clone();
        let status = self.status.clone();
        let report_root = root.clone();
        let report = Box::new(move |e: SearchEvent<'_>| match e {
            SearchEvent::Info(info) => {
                if let Ok(mut s) = status.lock() {
                    s.time = info.time;
                    s.nodes = info.nodes;
                    s.depth = info.depth;
                    if let Some((m, n)) = info.currmove {
                        s.currmove = Some((move_text(&report_root, m), n));
                    }
                }
                if info.currmove.is_none() && info.multipv == 1 && post.load(Ordering::SeqCst) {
                    let _ = out.send(thinking_line(info, &report_root));
                }
            }
            SearchEvent::Done(result) => {
                let _ = events.send(Event::Done { id, result });
            }
        });
        let ponder = matches!(purpose, SearchPurpose::Ponder(_));
        // The session searches its own position; a ponder search needs
        // the predicted move on it for the duration of the search.
        let result = if let SearchPurpose::Ponder(m) = purpose {
            match self.session.play(m) {
                Ok(_) => {
                    let r = self.session.search(limits, ponder, report);
                    self.session.undo_move();
                    r
                }
                Err(e) => Err(e),
            }
        } else {
            self.session.search(limits, ponder, report)
        };
        match result {
            Ok(_) => {
                self.activity = match purpose {
                    SearchPurpose::Move => Activity::Thinking(id),
                    SearchPurpose::Ponder(m) => Activity::Pondering(id, m),
                    SearchPurpose::Analyze => Activity::Analyzing(id),
                };
            }
            Err(e) => {
                self.send(format!("Error (cannot search): {e}"));
            }
        }
    }

    /// Plays the result of a search for the engine's move: resigns,
    /// offers or accepts a draw, sends `move`, claims a result, ponders.
    fn play_engine_move(&mut self, result: SearchResult) {
        let pos = self.position().clone();
        let Some(best) = result.best else {
            // No legal move: the game is over by the rules.
            if let Some(r) = pos.outcome() {
                self.send(result_line(&r, &pos));
            }
            return;
        };
        let score = result.failure.is_none().then(|| xboard_score(result.score));
        let ponder = result.ponder;
        if let Some(s) = score {
            self.scores.push(s);
        }
        if self.should_resign() {
            self.send("resign");
            self.game_over = true;
            self.force = true;
            return;
        }
        if self.policy.draw_offers {
            let latest = self.scores.last().copied();
            if self.draw_offered && latest.is_some_and(|s| s <= DRAW_ACCEPT) {
                self.send("offer draw");
            } else if !self.draw_offer_made && self.wants_draw(&pos) {
                self.send("offer draw");
                self.draw_offer_made = true;
            }
        }
        self.draw_offered = false;
        let text = move_text(&pos, best);
        if self.session.play(best).is_err() {
            // Unreachable: `best` is one of the legal moves.
            self.send(format!("Error (internal): cannot play {text}"));
            return;
        }
        self.send(format!("move {text}"));
        self.position_changed();
        if let Some(r) = self.position().outcome() {
            self.send(result_line(&r, self.position()));
            return;
        }
        self.hint = ponder.filter(|p| self.position().legal_moves().contains(p));
        if self.ponder
            && let Some(p) = self.hint
        {
            self.start_search(SearchPurpose::Ponder(p));
        }
    }

    fn should_resign(&self) -> bool {
        if !self.policy.resign || self.scores.len() < RESIGN_MOVES {
            return false;
        }
        let t = -self.policy.resign_threshold;
        self.scores[self.scores.len() - RESIGN_MOVES..]
            .iter()
            .all(|&s| s <= t)
    }

    fn wants_draw(&self, pos: &Position) -> bool {
        pos.fullmove_number() >= DRAW_EARLIEST_MOVE
            && self.scores.len() >= DRAW_MOVES
            && self.scores[self.scores.len() - DRAW_MOVES..]
                .iter()
                .all(|s| s.abs() <= DRAW_BAND)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SearchPurpose {
    Move,
    Ponder(Move),
    Analyze,
}

/// xboard's piece types in its own order (pawn, knight, bishop, rook,
/// queen, then the fairy types, king last), by the letters xboard gives
/// them: a `setup` line lists the variant's letters in these slots (`.`
/// for types not in play). The torus's reverse pawn `U` takes xboard's
/// unicorn slot.
pub const XBOARD_PIECE_ORDER: &str = "PNBRQFEACWMOHIJGDVLSUK";

/// `piece` lines for a backward-moving pawn (the torus's `U`): it moves
/// and captures backwards (Betza `b`), double-steps from its start, takes
/// en passant. (No Betza modifier expresses a wrapping rank, so xboard
/// must run with legality testing off on the torus; docs/xboard.md.)
pub const REVERSE_PAWN_PIECES: &[&str] = &["piece U& bmWbceFibmnD"];

/// `piece` lines for the cylinder: every piece's moves cross the side
/// edge (Betza modifier `o`), as Fairy-Max defines them too.
pub const CYLINDER_PIECES: &[&str] = &[
    "piece P& fmWfceoFifmnD",
    "piece N& oN",
    "piece B& oB",
    "piece R& oR",
    "piece Q& oQ",
    "piece K& oK",
];
