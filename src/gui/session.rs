//! One person's game at the web GUI: the game record, which seats the
//! person plays, the engine's settings; it answers the messages of the
//! page's protocol ([`super::messages`], docs/gui.md).
//!
//! The session is a state machine without I/O: [`Session::handle`] takes a
//! message from the page and returns what to send back and, when the
//! engine has to think, a [`SearchJob`]. The server runs the job on a
//! blocking thread with the engine it takes out of the session
//! ([`Session::take_engine`]) and hands both back through
//! [`Session::search_done`]. Keeping the I/O out makes every rule of the
//! page's protocol testable without a socket.
//!
//! Who decides next is asked of the position (its turn and, in a
//! simultaneous turn, every seat's options), never assumed: a person may
//! play any set of seats, the engine plays the others, one seat after the
//! other. In a simultaneous turn the engine searches the position as it is
//! before anyone's decision of that turn, so it decides without seeing the
//! person's choice, and the turn is resolved (and revealed) once every
//! seat has committed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::arbiter::pgn;
use crate::board::registry;
use crate::board::seating::{Phase, Seat, Turn};
use crate::game::clock::{Clock, TimeControl};
use crate::game::record::{ForfeitCause, Game, Step};
use crate::rules::moves::{Decision, JointDecision, Move};
use crate::rules::notation::joint::{decision_text, parse_decision};
use crate::rules::position::Position;
use crate::search::{
    Engine, EngineOptions, Limits, Score, SearchControl, SearchInfo, SearchResult,
};

use super::messages::{ClientMsg, LegalView, SeatView, ServerMsg, StateView, StepView};
use super::svg::{self, Marks};

/// Longest think the page may ask for per move.
pub const MAX_MOVETIME_MS: u64 = 600_000;
/// Deepest fixed depth the page may ask for.
pub const MAX_DEPTH: u32 = 64;
/// Most plies a preview (a PV played on the board) may have.
const MAX_PREVIEW: usize = 256;

/// What a search is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// The engine's decision for a seat.
    Decide(Seat),
    /// Analysis of a person's turn.
    Analyse(Seat),
}

/// A search the server must run.
#[derive(Clone, Debug)]
pub struct SearchJob {
    pub id: u64,
    pub pos: Position,
    pub limits: Limits,
    pub purpose: Purpose,
    pub control: Arc<SearchControl>,
}

/// What a handled message produces.
#[derive(Debug, Default)]
pub struct Reply {
    pub messages: Vec<ServerMsg>,
    pub search: Option<SearchJob>,
    /// Follow published games (`Some(true)`) or stop (`Some(false)`):
    /// the connection's business, not the game's.
    pub watch: Option<bool>,
}

impl Reply {
    fn error(message: impl Into<String>) -> Reply {
        Reply {
            messages: vec![ServerMsg::Error {
                message: message.into(),
            }],
            ..Reply::default()
        }
    }
}

/// Errors setting up a session's game.
#[derive(Debug)]
pub enum SessionError {
    Variant(String),
    Position(String),
    Parameter(String),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::Variant(e) => write!(f, "variant: {e}"),
            SessionError::Position(e) => write!(f, "position: {e}"),
            SessionError::Parameter(e) => write!(f, "{e}"),
        }
    }
}

struct Running {
    id: u64,
    purpose: Purpose,
    control: Arc<SearchControl>,
}

/// One person's game.
pub struct Session {
    spec: String,
    game: Game,
    humans: Vec<bool>,
    movetime_ms: Option<u64>,
    depth: Option<u32>,
    flip: bool,
    analysing: bool,
    multipv: usize,
    engine: Option<Engine>,
    running: Option<Running>,
    next_id: u64,
    /// Decisions of the current simultaneous turn committed so far.
    pending: Option<JointDecision>,
    /// The engine's last score per seat (for draw offers).
    last_score: Vec<Option<Score>>,
    /// The last simultaneous turn revealed.
    reveal: Option<String>,
    /// The engine's mixed strategy in the current simultaneous turn.
    strategies: Vec<String>,
    /// The clocks' time control (a game without clocks: `None`).
    time_control: Option<TimeControl>,
    /// The clocks.
    clock: Option<Clock>,
    /// The clocks before each step of the record (for take-backs).
    clocks_before: Vec<Option<Clock>>,
    /// The clocks at the start of the current simultaneous turn.
    turn_clock: Option<Clock>,
    /// Since when each seat has been asked for its decision (its clock
    /// runs).
    asked_at: Vec<Option<Instant>>,
}

/// Time a seat may overstep its clock before it loses on time (the
/// message's way through the socket, the engine's reply).
const CLOCK_MARGIN: Duration = Duration::from_millis(100);

fn score_cp(s: Score) -> Option<i32> {
    match s {
        Score::Cp(cp) => Some(cp),
        Score::Mate(n) | Score::StalemateWin(n) => Some(if n > 0 { 100_000 } else { -100_000 }),
    }
}

impl Session {
    /// A session with a game of chess in which the person plays White.
    pub fn new(options: EngineOptions) -> Session {
        let v = registry::build("chess").expect("invariant: chess is in the registry");
        let game = Game::new(Position::start(&v));
        let seats = v.seat_count();
        Session {
            spec: "chess".into(),
            humans: (0..seats).map(|s| s == 0).collect(),
            last_score: vec![None; seats],
            game,
            movetime_ms: Some(1000),
            depth: None,
            flip: false,
            analysing: false,
            multipv: 1,
            engine: Some(Engine::new(options)),
            running: None,
            next_id: 1,
            pending: None,
            reveal: None,
            strategies: Vec::new(),
            time_control: None,
            clock: None,
            clocks_before: Vec::new(),
            turn_clock: None,
            asked_at: vec![None; seats],
        }
    }

    /// The greeting sent when the page connects.
    pub fn hello() -> ServerMsg {
        ServerMsg::Hello {
            version: env!("CARGO_PKG_VERSION").into(),
            examples: registry::example_specs().map(String::from).collect(),
            families: registry::family_names()
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }

    /// The current game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Takes the engine out for a search (`None` while one runs).
    pub fn take_engine(&mut self) -> Option<Engine> {
        self.engine.take()
    }

    /// The control of the running search, to stop it (socket closed).
    pub fn stop_search(&mut self) {
        if let Some(r) = &self.running {
            r.control.stop();
        }
    }

    fn stop_and_forget(&mut self) {
        if let Some(r) = self.running.take() {
            r.control.stop();
        }
    }

    /// Handles one message from the page (already parsed).
    pub fn handle(&mut self, msg: ClientMsg) -> Reply {
        match msg {
            ClientMsg::New {
                variant,
                fen,
                humans,
                movetime_ms,
                depth,
                time_control,
            } => match self.new_game(
                &variant,
                fen.as_deref(),
                humans,
                (movetime_ms, depth),
                time_control.as_deref(),
            ) {
                Ok(()) => self.advance(),
                Err(e) => Reply::error(e.to_string()),
            },
            ClientMsg::Move { text } => self.person_moves(&text),
            ClientMsg::Undo => self.undo(),
            ClientMsg::Resign => self.resign(),
            ClientMsg::Draw => self.offer_draw(),
            ClientMsg::Flip => {
                self.flip = !self.flip;
                self.state_reply()
            }
            ClientMsg::Analyse { on, multipv } => {
                if let Some(k) = multipv {
                    if !(1..=16).contains(&k) {
                        return Reply::error("multipv must be 1 to 16");
                    }
                    self.multipv = k;
                }
                self.analysing = on;
                if !on
                    && let Some(r) = &self.running
                    && matches!(r.purpose, Purpose::Analyse(_))
                {
                    self.stop_and_forget();
                }
                self.advance()
            }
            ClientMsg::Stop => {
                match self.running.as_ref().map(|r| r.purpose) {
                    Some(Purpose::Analyse(_)) => {
                        self.analysing = false;
                        self.stop_and_forget();
                    }
                    Some(Purpose::Decide(_)) => self.stop_search(),
                    None => {}
                }
                self.state_reply()
            }
            ClientMsg::Preview { moves } => self.preview(&moves),
            ClientMsg::ImportPgn { pgn } => self.import_pgn(&pgn),
            ClientMsg::ExportPgn => Reply {
                messages: vec![ServerMsg::Pgn { pgn: self.pgn() }],
                ..Reply::default()
            },
            ClientMsg::ExportSvg => Reply {
                messages: vec![ServerMsg::Svg {
                    svg: self.svg(),
                    fen: self.game.position().to_text(),
                    preview: false,
                }],
                ..Reply::default()
            },
            ClientMsg::State => self.state_reply(),
            ClientMsg::Watch { on } => Reply {
                watch: Some(on),
                ..Reply::default()
            },
        }
    }

    /// Parses and handles a text message; malformed text gets an error.
    pub fn handle_text(&mut self, text: &str) -> Reply {
        match serde_json::from_str::<ClientMsg>(text) {
            Ok(msg) => self.handle(msg),
            Err(e) => Reply::error(format!("malformed message: {e}")),
        }
    }

    fn new_game(
        &mut self,
        spec: &str,
        fen: Option<&str>,
        humans: Option<Vec<usize>>,
        (movetime_ms, depth): (Option<u64>, Option<u32>),
        time_control: Option<&str>,
    ) -> Result<(), SessionError> {
        let v = registry::build(spec.trim()).map_err(|e| SessionError::Variant(e.to_string()))?;
        let start = match fen.map(str::trim).filter(|f| !f.is_empty()) {
            Some(text) => {
                Position::from_text(&v, text).map_err(|e| SessionError::Position(e.to_string()))?
            }
            None => Position::start(&v),
        };
        let seats = v.seat_count();
        let humans = humans.unwrap_or_else(|| vec![0]);
        if let Some(&bad) = humans.iter().find(|&&s| s >= seats) {
            return Err(SessionError::Parameter(format!(
                "seat {bad} does not exist: {spec} has seats 0 to {}",
                seats - 1
            )));
        }
        if let Some(ms) = movetime_ms
            && !(1..=MAX_MOVETIME_MS).contains(&ms)
        {
            return Err(SessionError::Parameter(format!(
                "movetime_ms must be 1 to {MAX_MOVETIME_MS}"
            )));
        }
        if let Some(d) = depth
            && !(1..=MAX_DEPTH).contains(&d)
        {
            return Err(SessionError::Parameter(format!(
                "depth must be 1 to {MAX_DEPTH}"
            )));
        }
        let time_control = match time_control.map(str::trim).filter(|t| !t.is_empty()) {
            Some(text) => Some(
                TimeControl::parse(text)
                    .map_err(|e| SessionError::Parameter(format!("time control: {e}")))?,
            ),
            None => None,
        };
        self.stop_and_forget();
        self.time_control = time_control;
        self.clock = time_control.map(|tc| Clock::new(tc, seats));
        self.clocks_before.clear();
        self.turn_clock = None;
        self.asked_at = vec![None; seats];
        self.spec = spec.trim().to_string();
        self.game = Game::new(start);
        self.humans = (0..seats).map(|s| humans.contains(&s)).collect();
        self.movetime_ms = if movetime_ms.is_none() && depth.is_none() {
            Some(1000)
        } else {
            movetime_ms
        };
        self.depth = depth;
        self.pending = None;
        self.reveal = None;
        self.strategies.clear();
        self.last_score = vec![None; seats];
        if let Some(e) = self.engine.as_mut() {
            e.new_game();
        }
        Ok(())
    }

    /// The seats that decide now, each with its decisions; in the exchange
    /// phase seats whose only decision is a pass are left out (they pass).
    fn deciders(&self) -> Vec<(Seat, Vec<Decision>)> {
        let pos = self.game.position();
        if self.game.is_over() {
            return Vec::new();
        }
        match pos.turn() {
            Turn::All(_) => pos
                .seat_options()
                .into_iter()
                .filter(|o| !(o.decisions.len() == 1 && o.decisions[0] == Decision::Pass))
                .map(|o| (o.seat, o.decisions))
                .collect(),
            _ => {
                let seat = pos.to_move();
                let moves = pos.legal_moves();
                vec![(seat, moves.into_iter().map(Decision::Move).collect())]
            }
        }
    }

    /// Whether `seat` has not committed its decision in this turn.
    fn is_undecided(&self, seat: Seat) -> bool {
        self.pending.as_ref().is_none_or(|p| p.get(seat).is_none())
    }

    /// The deciders that have not committed yet, in seat order.
    fn undecided(&self) -> Vec<(Seat, Vec<Decision>)> {
        self.deciders()
            .into_iter()
            .filter(|(s, _)| self.is_undecided(*s))
            .collect()
    }

    /// The seat to ask next (person or engine): the first undecided one.
    fn next_decider(&self) -> Option<(Seat, Vec<Decision>)> {
        self.undecided().into_iter().next()
    }

    /// The person's seat asked now: the first undecided human seat.
    fn asking(&self) -> Option<(Seat, Vec<Decision>)> {
        self.undecided()
            .into_iter()
            .find(|(s, _)| self.humans[s.index()])
    }

    fn is_simultaneous(&self) -> bool {
        self.game.position().turn().is_simultaneous()
    }

    /// Commits `d` for `seat`; plays the step once every seat decided.
    fn commit(&mut self, seat: Seat, d: Decision, note: Option<String>) -> Result<(), String> {
        if !self.is_simultaneous() {
            let Decision::Move(m) = d else {
                return Err("a pass is not a move here".into());
            };
            let before = self.clock.clone();
            self.game.play(m, note).map_err(|e| e.to_string())?;
            self.clocks_before.push(before);
            self.charge(seat);
            return Ok(());
        }
        if self.pending.is_none() {
            self.turn_clock = self.clock.clone();
        }
        self.charge(seat);
        if self.game.is_over() {
            // Out of time.
            self.pending = None;
            return Ok(());
        }
        let seats = self.game.position().variant().seat_count();
        let pending = self
            .pending
            .get_or_insert_with(|| JointDecision::new(seats));
        pending.set(seat, d);
        let all = self
            .deciders()
            .iter()
            .all(|(s, _)| self.pending.as_ref().is_some_and(|p| p.get(*s).is_some()));
        if all {
            let mut joint = self.pending.take().expect("invariant: inserted above");
            // Seats left out of the exchange phase (a pass their only
            // choice) pass.
            for o in self.game.position().seat_options() {
                if joint.get(o.seat).is_none() && o.decisions == [Decision::Pass] {
                    joint.set(o.seat, Decision::Pass);
                }
            }
            let text = crate::rules::notation::joint::joint_text(self.game.position(), &joint);
            let strategies = std::mem::take(&mut self.strategies);
            match self.game.play_joint(&joint, None) {
                Ok(_) => {
                    self.clocks_before.push(self.turn_clock.take());
                    self.reveal = Some(if strategies.is_empty() {
                        text
                    } else {
                        format!("{text} (engine: {})", strategies.join("; "))
                    });
                }
                Err(e) => {
                    // Cannot happen for decisions taken from the seats'
                    // options; the turn starts again rather than losing
                    // the game.
                    return Err(e.to_string());
                }
            }
        }
        Ok(())
    }

    fn person_moves(&mut self, text: &str) -> Reply {
        if self.game.is_over() {
            return Reply::error("the game is over: start a new one or take back");
        }
        let Some((seat, decisions)) = self.asking() else {
            return Reply::error("it is not your turn: the engine is to decide");
        };
        let pos = self.game.position();
        let d = if self.is_simultaneous() {
            match parse_decision(pos, seat, text) {
                Ok(d) => d,
                Err(e) => return Reply::error(e.to_string()),
            }
        } else {
            let moves: Vec<Move> = decisions
                .iter()
                .filter_map(|d| match d {
                    Decision::Move(m) => Some(*m),
                    Decision::Pass => None,
                })
                .collect();
            match pos.find_move(text.trim(), &moves) {
                Ok(m) => Decision::Move(m),
                Err(coord_error) => match pgn::read_move_text(pos, text.trim()) {
                    Some(m) if moves.contains(&m) => Decision::Move(m),
                    _ => return Reply::error(coord_error.to_string()),
                },
            }
        };
        if !decisions.contains(&d) {
            return Reply::error(format!(
                "{} is not a decision of {} now",
                text.trim(),
                pos.variant().seating.name(seat)
            ));
        }
        if let Some(r) = &self.running
            && matches!(r.purpose, Purpose::Analyse(_))
        {
            self.stop_and_forget();
        }
        if let Err(e) = self.commit(seat, d, None) {
            return Reply::error(e);
        }
        self.advance()
    }

    fn undo(&mut self) -> Reply {
        if self.game.plies().is_empty() && self.pending.is_none() {
            return Reply::error("nothing to take back");
        }
        self.stop_and_forget();
        self.strategies.clear();
        if self.pending.take().is_none() {
            // Back to the person's previous decision: at least one step,
            // then on until a person's seat decides (or the start).
            self.take_back_step();
            while !self.game.plies().is_empty() && self.asking().is_none() {
                self.take_back_step();
            }
        } else if let Some(c) = self.turn_clock.take() {
            self.clock = Some(c);
        }
        self.asked_at.iter_mut().for_each(|a| *a = None);
        self.reveal = None;
        self.advance()
    }

    /// Takes back one step with the clocks as they were before it.
    fn take_back_step(&mut self) {
        if self.game.take_back()
            && let Some(c) = self.clocks_before.pop()
        {
            self.clock = c;
        }
    }

    /// Stops `seat`'s clock (it has decided); the game ends if its time
    /// ran out.
    fn charge(&mut self, seat: Seat) {
        let Some(asked) = self.asked_at.get_mut(seat.index()).and_then(Option::take) else {
            return;
        };
        if let Some(c) = self.clock.as_mut()
            && !c.charge(seat, asked.elapsed(), CLOCK_MARGIN)
            && !self.game.is_over()
        {
            self.game.forfeit(seat, ForfeitCause::Time, "loses on time");
        }
    }

    /// When the first person asked now runs out of time, if the game has
    /// clocks (the server wakes the session then: [`Session::tick`]).
    pub fn deadline(&self) -> Option<Instant> {
        self.flag_times().into_iter().map(|(_, t)| t).min()
    }

    /// Ends the game if a person asked now is out of time.
    pub fn tick(&mut self) -> Reply {
        let now = Instant::now();
        let flagged = self
            .flag_times()
            .into_iter()
            .find(|&(_, t)| t < now)
            .map(|(s, _)| s);
        match flagged {
            Some(seat) if !self.game.is_over() => {
                self.stop_and_forget();
                self.pending = None;
                self.game.forfeit(seat, ForfeitCause::Time, "loses on time");
                self.state_reply()
            }
            _ => Reply::default(),
        }
    }

    /// When each person's seat asked now (in a simultaneous turn, every
    /// one that has not committed) runs out of time; empty without clocks.
    fn flag_times(&self) -> Vec<(Seat, Instant)> {
        let Some(clock) = self.clock.as_ref() else {
            return Vec::new();
        };
        self.undecided()
            .into_iter()
            .filter(|(s, _)| self.humans[s.index()])
            .filter_map(|(s, _)| {
                let asked = self.asked_at.get(s.index()).copied().flatten()?;
                Some((s, asked + clock.left()[s] + CLOCK_MARGIN))
            })
            .collect()
    }

    fn person_seat(&self) -> Option<Seat> {
        if let Some((s, _)) = self.asking() {
            return Some(s);
        }
        self.humans.iter().position(|&h| h).map(Seat::new)
    }

    fn resign(&mut self) -> Reply {
        if self.game.is_over() {
            return Reply::error("the game is over already");
        }
        let Some(seat) = self.person_seat() else {
            return Reply::error("you play no seat in this game");
        };
        self.stop_and_forget();
        self.pending = None;
        self.game.resign(seat);
        self.state_reply()
    }

    fn offer_draw(&mut self) -> Reply {
        if self.game.is_over() {
            return Reply::error("the game is over already");
        }
        if self.person_seat().is_none() {
            return Reply::error("you play no seat in this game");
        }
        let v = self.game.position().variant().clone();
        // The engine's seats accept when none of them expects to win: its
        // last score from its own view is at most 0.00 (a person alone at
        // the board agrees with themself).
        let engine_seats: Vec<usize> = (0..v.seat_count()).filter(|&s| !self.humans[s]).collect();
        let accepts = engine_seats.iter().all(|&s| match self.last_score[s] {
            Some(sc) => score_cp(sc).is_some_and(|cp| cp <= 0),
            None => false,
        });
        if !accepts {
            let mut r = self.state_reply();
            r.messages.insert(
                0,
                ServerMsg::Notice {
                    message: "the engine declines the draw".into(),
                },
            );
            return r;
        }
        self.stop_and_forget();
        self.pending = None;
        let outcome = crate::rules::outcome::Outcome::draw(
            v.seat_count(),
            crate::rules::outcome::EndReason::Adjudicated,
        );
        self.game.adjudicate(outcome, "draw agreed");
        self.state_reply()
    }

    fn preview(&self, moves: &[String]) -> Reply {
        if moves.len() > MAX_PREVIEW {
            return Reply::error(format!("a preview has at most {MAX_PREVIEW} moves"));
        }
        let mut pos = self.game.position().clone();
        if pos.turn().is_simultaneous() && !moves.is_empty() {
            return Reply::error("a line of a simultaneous turn cannot be previewed");
        }
        let mut last = Vec::new();
        for text in moves {
            match pos.parse_move(text) {
                Ok(m) => {
                    last = vec![m.from as usize, m.to as usize];
                    pos.make(m);
                }
                Err(e) => return Reply::error(format!("preview: {e}")),
            }
        }
        let marks = Marks {
            flip: self.flip,
            last,
            check: svg::check_cells(&pos),
        };
        Reply {
            messages: vec![ServerMsg::Svg {
                svg: svg::position_svg(&pos, &marks),
                fen: pos.to_text(),
                preview: true,
            }],
            ..Reply::default()
        }
    }

    fn import_pgn(&mut self, text: &str) -> Reply {
        let games = pgn::read_games(text);
        let Some(first) = games.into_iter().next() else {
            return Reply::error("no game in the PGN text");
        };
        let game = match first {
            Ok(g) => g,
            Err(e) => return Reply::error(format!("PGN: {e}")),
        };
        self.stop_and_forget();
        let v = game.start.variant().clone();
        let seats = v.seat_count();
        self.spec = pgn::variant_tag(&v).unwrap_or_else(|| v.name.clone());
        self.game = game.replay();
        if self.humans.len() != seats {
            self.humans = (0..seats).map(|s| s == 0).collect();
        }
        self.last_score = vec![None; seats];
        self.pending = None;
        self.reveal = None;
        self.strategies.clear();
        // An imported game has no clocks.
        self.time_control = None;
        self.clock = None;
        self.clocks_before.clear();
        self.turn_clock = None;
        self.asked_at = vec![None; seats];
        self.advance()
    }

    fn pgn(&self) -> String {
        let v = self.game.position().variant();
        let header = pgn::PgnHeader {
            event: "ndchess serve".into(),
            site: "localhost".into(),
            date: "????.??.??".into(),
            round: "-".into(),
            players: (0..v.seat_count())
                .map(|s| {
                    if self.humans[s] {
                        "Person".into()
                    } else {
                        format!("ndchess {}", env!("CARGO_PKG_VERSION"))
                    }
                })
                .collect(),
            time_control: "-".into(),
            extra: Vec::new(),
        };
        pgn::write_game(&self.game, &header)
    }

    fn svg(&self) -> String {
        let pos = self.game.position();
        let marks = Marks {
            flip: self.flip,
            last: self.last_cells(),
            check: svg::check_cells(pos),
        };
        svg::position_svg(pos, &marks)
    }

    fn last_cells(&self) -> Vec<usize> {
        self.game
            .plies()
            .last()
            .map(|p| p.step.cells())
            .unwrap_or_default()
    }

    /// The state the page draws.
    pub fn state(&self) -> StateView {
        let pos = self.game.position();
        let v = pos.variant();
        let seats = (0..v.seat_count())
            .map(|s| SeatView {
                name: v.seating.name(Seat::new(s)).to_string(),
                colour: svg::SEAT_COLOURS[s % svg::SEAT_COLOURS.len()].0.to_string(),
                human: self.humans[s],
            })
            .collect();
        // The deciders once: each listing generates the seats' moves.
        let deciders = self.deciders();
        let deciding: Vec<usize> = deciders.iter().map(|(s, _)| s.index()).collect();
        let asked = deciders
            .into_iter()
            .find(|(s, _)| self.humans[s.index()] && self.is_undecided(*s));
        let (asking, legal) = match asked {
            Some((seat, decisions)) => (
                Some(seat.index()),
                decisions
                    .iter()
                    .map(|&d| match d {
                        Decision::Move(m) => LegalView {
                            from: Some(m.from as usize),
                            to: Some(m.to as usize),
                            text: decision_text(pos, Some(d)),
                            label: m
                                .promotion_kind()
                                .map(|k| v.kinds[k].letter.to_string())
                                .unwrap_or_default(),
                        },
                        Decision::Pass => LegalView {
                            from: None,
                            to: None,
                            text: decision_text(pos, None),
                            label: "pass".into(),
                        },
                    })
                    .collect(),
            ),
            None => (None, Vec::new()),
        };
        let history = self.history();
        let (result, reason) = match self.game.end() {
            Some(end) => (
                Some(crate::protocol::text::result_text(end.outcome())),
                Some(end.reason(&self.game)),
            ),
            None => (None, None),
        };
        StateView {
            spec: self.spec.clone(),
            variant: v.name.clone(),
            dims: v.geometry.dims(),
            cells: v.geometry.cell_count(),
            seats,
            fen: pos.to_text(),
            svg: self.svg(),
            simultaneous: pos.turn().is_simultaneous(),
            phase: match pos.phase() {
                Phase::Main => "main".into(),
                Phase::Exchange => "exchange".into(),
            },
            deciding,
            committed: self
                .pending
                .as_ref()
                .map(|p| p.deciders().map(|s| s.index()).collect())
                .unwrap_or_default(),
            asking,
            legal,
            history,
            reveal: self.reveal.clone(),
            last: self.last_cells(),
            thinking: self
                .running
                .as_ref()
                .is_some_and(|r| matches!(r.purpose, Purpose::Decide(_))),
            analysing: self.analysing,
            flip: self.flip,
            result,
            reason,
            movetime_ms: self.movetime_ms,
            time_control: self.time_control.map(|t| t.to_string()),
            clocks_ms: self.clock.as_ref().map(|c| {
                let now = Instant::now();
                (0..c.left().len())
                    .map(|i| {
                        let s = Seat::new(i);
                        let spent = self
                            .asked_at
                            .get(i)
                            .copied()
                            .flatten()
                            .filter(|_| !self.game.is_over())
                            .map(|a| now.duration_since(a))
                            .unwrap_or_default();
                        c.left()[s].saturating_sub(spent).as_millis() as u64
                    })
                    .collect()
            }),
            clocks_running: if self.clock.is_some() && !self.game.is_over() {
                (0..self.asked_at.len())
                    .filter(|&i| self.asked_at[i].is_some())
                    .collect()
            } else {
                Vec::new()
            },
            depth: self.depth,
        }
    }

    /// The record with SAN on the boards that write it.
    fn history(&self) -> Vec<StepView> {
        let mut pos = self.game.start().clone();
        let mut out = Vec::with_capacity(self.game.plies().len());
        for ply in self.game.plies() {
            let text = match &ply.step {
                Step::Move(m) => {
                    let t = pgn::move_text(&pos, *m);
                    pos.make(*m);
                    t
                }
                Step::Joint(j) => {
                    let t = ply.text.clone();
                    // Invariant: the record holds only steps that were
                    // resolved from this very position.
                    if pos.make_joint(j).is_err() {
                        break;
                    }
                    t
                }
            };
            out.push(StepView {
                number: ply.number,
                seats: ply.seats.iter().map(|s| s.index()).collect(),
                text,
                note: ply.note.clone(),
            });
        }
        out
    }

    fn state_reply(&self) -> Reply {
        Reply {
            messages: vec![ServerMsg::State(Box::new(self.state()))],
            ..Reply::default()
        }
    }

    fn limits_for(&self, seat: Seat) -> Limits {
        match (&self.clock, self.time_control) {
            (Some(c), Some(TimeControl::Clock { inc, .. })) => Limits {
                time: c.left().values().iter().map(|&t| Some(t)).collect(),
                inc: c.left().values().iter().map(|_| Some(inc)).collect(),
                movestogo: c.moves_to_go(seat),
                depth: self.depth,
                seat: Some(seat),
                ..Limits::default()
            },
            (Some(_), Some(TimeControl::PerMove(d))) => Limits {
                movetime: Some(d),
                depth: self.depth,
                seat: Some(seat),
                ..Limits::default()
            },
            _ => Limits {
                movetime: self.movetime_ms.map(Duration::from_millis),
                depth: self.depth,
                seat: Some(seat),
                ..Limits::default()
            },
        }
    }

    /// Starts what comes next: the engine's decision for an engine seat,
    /// analysis on a person's turn, or nothing; always sends the state.
    fn advance(&mut self) -> Reply {
        if !self.game.is_over() {
            let now = Instant::now();
            let undecided: Vec<Seat> = self.undecided().into_iter().map(|(s, _)| s).collect();
            for s in undecided {
                if let Some(a) = self.asked_at.get_mut(s.index())
                    && a.is_none()
                {
                    *a = Some(now);
                }
            }
        }
        let mut reply = self.state_reply();
        if self.engine.is_none() || self.running.is_some() || self.game.is_over() {
            // A search still runs (or is being stopped): its end calls
            // this again.
            return reply;
        }
        let job = match self.next_decider() {
            Some((seat, _)) if !self.humans[seat.index()] => {
                Some((Purpose::Decide(seat), self.limits_for(seat)))
            }
            Some((seat, _)) if self.analysing => Some((
                Purpose::Analyse(seat),
                Limits {
                    infinite: true,
                    multipv: self.multipv,
                    seat: Some(seat),
                    ..Limits::default()
                },
            )),
            _ => None,
        };
        if let Some((purpose, limits)) = job {
            let control = Arc::new(SearchControl::new());
            let id = self.next_id;
            self.next_id += 1;
            self.running = Some(Running {
                id,
                purpose,
                control: control.clone(),
            });
            reply.search = Some(SearchJob {
                id,
                pos: self.game.position().clone(),
                limits,
                purpose,
                control,
            });
            // The state says the engine thinks.
            reply.messages = vec![ServerMsg::State(Box::new(self.state()))];
        }
        reply
    }

    /// An info line of a running search as the page shows it.
    pub fn info_message(job: &SearchJob, info: &SearchInfo) -> Option<ServerMsg> {
        if info.pv.is_empty() {
            return None;
        }
        let seat = match job.purpose {
            Purpose::Decide(s) | Purpose::Analyse(s) => s,
        };
        let mut pos = job.pos.clone();
        let mut pv = Vec::new();
        for &m in &info.pv {
            if pos.turn().is_simultaneous() {
                pv.push(pos.move_text(m, pos.king_takes_rook()));
                break;
            }
            pv.push(pos.move_text(m, pos.king_takes_rook()));
            pos.make(m);
        }
        Some(ServerMsg::Info {
            seat: seat.index(),
            depth: info.depth,
            seldepth: info.seldepth,
            multipv: info.multipv,
            score: info.score.to_string(),
            score_cp: score_cp(info.score),
            nodes: info.nodes,
            nps: info.nps,
            time_ms: info.time.as_millis() as u64,
            pv,
        })
    }

    /// A search came back with the engine: plays the engine's decision if
    /// the search is still wanted, then goes on.
    pub fn search_done(&mut self, id: u64, engine: Engine, result: SearchResult) -> Reply {
        self.engine = Some(engine);
        let current = self.running.as_ref().is_some_and(|r| r.id == id);
        if !current {
            return self.advance();
        }
        let running = self
            .running
            .take()
            .expect("invariant: checked current above");
        if let Purpose::Decide(seat) = running.purpose {
            self.last_score[seat.index()] = Some(result.score);
            let decision = match result.best {
                Some(m) => Some(Decision::Move(m)),
                None if result.pass => Some(Decision::Pass),
                None => None,
            };
            if let Some(d) = decision {
                let pos = self.game.position();
                if pos.turn().is_simultaneous() && !result.strategy.is_empty() {
                    let mix: Vec<String> = result
                        .strategy
                        .iter()
                        .take(4)
                        .map(|(d, p)| format!("{} {:.0}%", decision_text(pos, Some(*d)), p * 100.0))
                        .collect();
                    self.strategies.push(format!(
                        "{} {}",
                        pos.variant().seating.name(seat),
                        mix.join(", ")
                    ));
                }
                let note = Some(format!("{} depth {}", result.score, result.depth));
                if let Err(e) = self.commit(seat, d, note) {
                    let mut r = self.advance();
                    r.messages.insert(
                        0,
                        ServerMsg::Error {
                            message: format!("engine: {e}"),
                        },
                    );
                    return r;
                }
            } else {
                // A search without a decision (an internal failure): asking
                // again would loop, so the person decides what to do (take
                // back, new game).
                let mut r = self.state_reply();
                r.messages.insert(
                    0,
                    ServerMsg::Error {
                        message: format!(
                            "engine: no decision for {} ({})",
                            self.game.position().variant().seating.name(seat),
                            result.failure.unwrap_or_else(|| "no legal move".into())
                        ),
                    },
                );
                return r;
            }
        }
        self.advance()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> EngineOptions {
        EngineOptions {
            hash_mb: 1,
            ..EngineOptions::default()
        }
    }

    /// Runs searches synchronously until the person is asked or the game
    /// ends.
    fn settle(s: &mut Session, mut reply: Reply) -> Vec<ServerMsg> {
        let mut msgs = std::mem::take(&mut reply.messages);
        while let Some(job) = reply.search.take() {
            let mut engine = s.take_engine().expect("engine at home");
            let r = engine.search(&job.pos, &job.limits, &job.control, &mut |_| {});
            reply = s.search_done(job.id, engine, r);
            msgs.append(&mut reply.messages);
        }
        msgs
    }

    fn new_game(s: &mut Session, spec: &str, humans: Vec<usize>) -> Vec<ServerMsg> {
        let r = s.handle(ClientMsg::New {
            variant: spec.into(),
            fen: None,
            humans: Some(humans),
            movetime_ms: None,
            depth: Some(1),
            time_control: None,
        });
        settle(s, r)
    }

    #[test]
    fn the_engine_answers_the_persons_move_and_bad_moves_change_nothing() {
        let mut s = Session::new(options());
        new_game(&mut s, "chess", vec![0]);
        assert_eq!(s.state().legal.len(), 20);
        let before = s.state().fen;
        for bad in ["e2e5", "zz", "", "Ke2"] {
            let r = s.handle(ClientMsg::Move { text: bad.into() });
            assert!(matches!(r.messages[0], ServerMsg::Error { .. }), "{bad}");
            assert_eq!(s.state().fen, before);
        }
        let r = s.handle(ClientMsg::Move { text: "e4".into() });
        settle(&mut s, r);
        assert_eq!(
            s.game().plies().len(),
            2,
            "the person's move and the engine's"
        );
        assert_eq!(s.state().asking, Some(0));
        let r = s.handle(ClientMsg::Undo);
        settle(&mut s, r);
        assert_eq!(s.game().plies().len(), 0);
    }

    #[test]
    fn malformed_messages_and_parameters_are_refused() {
        let mut s = Session::new(options());
        for text in [
            "",
            "{",
            "{\"type\":\"fly\"}",
            "{\"type\":\"move\"}",
            "{\"type\":\"new\",\"variant\":\"chess\",\"bogus\":1}",
        ] {
            let r = s.handle_text(text);
            assert!(matches!(r.messages[0], ServerMsg::Error { .. }), "{text}");
        }
        for (spec, humans, ms) in [
            ("nonsense", vec![0], None),
            ("diamond:n=9", vec![0], None),
            ("chess", vec![2], None),
            ("chess", vec![0], Some(0)),
            ("chess", vec![0], Some(MAX_MOVETIME_MS + 1)),
        ] {
            let r = s.handle(ClientMsg::New {
                variant: spec.into(),
                fen: None,
                humans: Some(humans),
                movetime_ms: ms,
                depth: None,
                time_control: None,
            });
            assert!(matches!(r.messages[0], ServerMsg::Error { .. }), "{spec}");
            assert_eq!(s.state().spec, "chess");
        }
    }

    #[test]
    fn a_synchronous_turn_is_resolved_once_both_committed() {
        let mut s = Session::new(options());
        new_game(&mut s, "synchronous", vec![0]);
        let st = s.state();
        assert!(st.simultaneous);
        assert_eq!(st.asking, Some(0));
        let r = s.handle(ClientMsg::Move {
            text: "e2e4".into(),
        });
        settle(&mut s, r);
        assert_eq!(s.game().plies().len(), 1, "one joint step");
        let reveal = s.state().reveal.expect("the turn is revealed");
        assert!(reveal.starts_with("e2e4|"), "{reveal}");
    }

    #[test]
    fn a_person_whose_clock_runs_out_loses_on_time_and_bad_controls_are_refused() {
        let mut s = Session::new(options());
        let with_clocks = |tc: &str| ClientMsg::New {
            variant: "chess".into(),
            fen: None,
            humans: Some(vec![0]),
            movetime_ms: None,
            depth: None,
            time_control: Some(tc.into()),
        };
        let r = s.handle(with_clocks("nonsense"));
        assert!(matches!(r.messages[0], ServerMsg::Error { .. }));
        let r = s.handle(with_clocks("0:0.05"));
        settle(&mut s, r);
        let st = s.state();
        assert_eq!(st.clocks_running, vec![0]);
        let deadline = s.deadline().expect("the person's clock runs");
        std::thread::sleep(deadline.saturating_duration_since(std::time::Instant::now()));
        std::thread::sleep(Duration::from_millis(5));
        let r = s.tick();
        assert!(!r.messages.is_empty());
        let st = s.state();
        assert_eq!(st.result.as_deref(), Some("0-1"));
        assert!(st.reason.unwrap_or_default().contains("on time"));
        assert!(s.deadline().is_none());
    }

    #[test]
    fn resigning_and_importing_a_pgn() {
        let mut s = Session::new(options());
        new_game(&mut s, "chess", vec![0, 1]);
        let r = s.handle(ClientMsg::ImportPgn {
            pgn: "[Event \"x\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n".into(),
        });
        settle(&mut s, r);
        let st = s.state();
        assert_eq!(st.history.len(), 4);
        assert_eq!(st.result.as_deref(), Some("0-1"));
        let r = s.handle(ClientMsg::ImportPgn {
            pgn: "1. e5".into(),
        });
        assert!(matches!(r.messages[0], ServerMsg::Error { .. }));
        assert_eq!(s.state().history.len(), 4, "a bad PGN leaves the game");
        new_game(&mut s, "chess", vec![0]);
        s.handle(ClientMsg::Resign);
        assert_eq!(s.state().result.as_deref(), Some("0-1"));
    }
}
