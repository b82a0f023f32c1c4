//! The engine as a protocol front-end hosts it, independent of UCI or
//! XBoard: the option values, the variant they select, the position with
//! its move history, and the [`EngineHost`] that searches.
//!
//! Every change is all-or-nothing: a refused option value, a variant that
//! cannot be built, a bad position text or a bad move leaves the session
//! exactly as it was, so that a front-end can report the error and go on.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::board::registry::{self, Param, ParamDefault, ParamKind};
use crate::board::variant::{Variant, VariantError};
use crate::eval::weights::{EvalWeights, WeightsError};
use crate::rules::moves::Move;
use crate::rules::notation::MoveError;
use crate::rules::notation::joint;
use crate::rules::notation::variant_file::{self, FileError};
use crate::rules::position::{Position, PositionError};
use crate::search::multi::MultiAlgorithm;
use crate::search::{EngineOptions, Limits};
use crate::search::{Feature, Switch};

use super::options::{self, OptionError, OptionKind, OptionSpec, OptionValue};
use crate::engine::host::{EngineHost, PerftReporter, SearchReporter};

/// Option names (matched case-insensitively by [`options::find`]). The
/// options that set variant parameters take their names from the variant
/// registry ([`registry::PARAMS`]).
pub mod names {
    /// Transposition table size in MiB.
    pub const HASH: &str = "Hash";
    /// Search threads.
    pub const THREADS: &str = "Threads";
    /// Number of lines to report.
    pub const MULTIPV: &str = "MultiPV";
    /// Whether the GUI may let the engine ponder.
    pub const PONDER: &str = "Ponder";
    /// Safety margin per move in milliseconds.
    pub const MOVE_OVERHEAD: &str = "Move Overhead";
    /// Empties the transposition table.
    pub const CLEAR_HASH: &str = "Clear Hash";
    /// Castling written king-takes-rook.
    pub const UCI_CHESS960: &str = "UCI_Chess960";
    /// Win/draw/loss figures in `info` lines.
    pub const UCI_SHOWWDL: &str = "UCI_ShowWDL";
    /// The variant family.
    pub const UCI_VARIANT: &str = "UCI_Variant";
    /// Directory of endgame tables (docs/tablebases.md).
    pub const TABLEBASE_PATH: &str = "TablebasePath";
    /// A file of evaluation weights (docs/engine.md, "Weights and
    /// tuning"); empty: each variant's built-in weights.
    pub const EVAL_FILE: &str = "EvalFile";
    /// A variants file to load (docs/variants-file.md).
    pub const VARIANT_PATH: &str = "VariantPath";
    /// The seat the engine decides for in simultaneous turns.
    pub const SEAT: &str = "Seat";
    /// The board of synchronous chess: a family, with its own parameter
    /// options.
    pub const SYNCHRONOUS_BASE: &str = "SynchronousBase";
    /// The search of multi-party games: paranoid, brs or maxn.
    pub const MULTI_SEARCH: &str = "MultiSearch";
}

/// Limits of the options that cost memory or threads; the binary uses the
/// defaults, tests that throw random values at a session choose small ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionConfig {
    /// Largest `Hash` in MiB.
    pub max_hash_mb: i64,
    /// Largest `Threads`.
    pub max_threads: i64,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            max_hash_mb: 16_384,
            max_threads: 256,
        }
    }
}

/// The option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// `Hash`, MiB.
    pub hash_mb: usize,
    /// `Threads`.
    pub threads: usize,
    /// `MultiPV`.
    pub multipv: usize,
    /// `Ponder`.
    pub ponder: bool,
    /// `Move Overhead`, milliseconds.
    pub move_overhead_ms: u64,
    /// `TablebasePath` (empty: none).
    pub tablebase_path: String,
    /// `EvalFile` (empty: each variant's built-in weights).
    pub eval_file: String,
    /// `UCI_Chess960`.
    pub chess960: bool,
    /// `UCI_ShowWDL`.
    pub show_wdl: bool,
    /// `UCI_Variant`: a family of [`registry::FAMILIES`].
    pub variant: String,
    /// `Seat`: the seat the engine decides for in simultaneous turns.
    pub seat: String,
    /// `SynchronousBase`: the base family of synchronous chess.
    pub synchronous_base: String,
    /// `MultiSearch`: the search of multi-party games.
    pub multi_search: String,
    /// Where each search [`Feature`] is on (its option's value, in
    /// [`Feature::ALL`]'s order): auto, on or off.
    pub switches: [String; Feature::ALL.len()],
    /// The variant parameter options, one per [`registry::PARAMS`] entry
    /// in that order: the parameter's value as a spec writes it, or `None`
    /// for "not set" (the family's default: `auto`, or a random start).
    pub params: Vec<(&'static Param, Option<String>)>,
}

impl Settings {
    /// The value of the variant parameter with spec key `key`.
    pub fn param(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(p, _)| p.key == key)
            .and_then(|(_, v)| v.as_deref())
    }
}

/// The value a parameter option takes when its parameter is not set: one
/// below the smallest for a spin, `auto` for a combo.
const NOT_SET_WORD: &str = "auto";

/// A combo option: its default and its words.
fn combo<'a>(default: &str, vars: impl IntoIterator<Item = &'a str>) -> OptionKind {
    OptionKind::Combo {
        default: default.to_string(),
        vars: vars.into_iter().map(str::to_string).collect(),
    }
}

/// The option that sets parameter `p`.
fn param_option(p: &'static Param) -> OptionSpec {
    let kind = match (p.kind, p.default) {
        (ParamKind::Int { min, max, .. }, ParamDefault::Value(v)) => OptionKind::Spin {
            default: v.parse().unwrap_or(min),
            min,
            max,
        },
        (ParamKind::Int { min, max, .. }, _) => OptionKind::Spin {
            default: min - 1,
            min: min - 1,
            max,
        },
        (ParamKind::Choice(words), ParamDefault::Value(v)) => combo(v, words.iter().copied()),
        (ParamKind::Choice(words), _) => OptionKind::Combo {
            default: NOT_SET_WORD.to_string(),
            vars: std::iter::once(NOT_SET_WORD)
                .chain(words.iter().copied())
                .map(str::to_string)
                .collect(),
        },
        (ParamKind::Flag, d) => OptionKind::Check {
            default: d != ParamDefault::Value("0"),
        },
    };
    OptionSpec {
        name: p.option,
        kind,
    }
}

/// A parameter option's value as the parameter's spec value (`None`: not
/// set), checked against the parameter.
fn param_value(
    p: &'static Param,
    spec: &OptionSpec,
    v: &OptionValue,
) -> Result<Option<String>, OptionError> {
    let text = match v {
        OptionValue::Int(n) => match (spec.kind.clone(), p.kind) {
            (OptionKind::Spin { min, .. }, ParamKind::Int { min: pmin, .. })
                if *n == min && min < pmin =>
            {
                return Ok(None);
            }
            _ => n.to_string(),
        },
        OptionValue::Bool(b) => if *b { "1" } else { "0" }.to_string(),
        OptionValue::Word(w) if w == NOT_SET_WORD => return Ok(None),
        OptionValue::Word(w) => w.clone(),
        OptionValue::Press | OptionValue::Text(_) => return Ok(None),
    };
    p.parse(&text).map(Some).map_err(|e| match e {
        VariantError::BadValue {
            value, expected, ..
        } => OptionError::BadValue {
            name: p.option.into(),
            value,
            expected,
        },
        other => OptionError::BadValue {
            name: p.option.into(),
            value: text.clone(),
            expected: other.to_string(),
        },
    })
}

/// Default hash size in MiB.
pub const DEFAULT_HASH_MB: i64 = 16;

/// The option table of a session with `config`: the engine's options,
/// then `UCI_Variant` and one option per variant parameter of the
/// registry.
pub fn option_table(config: &SessionConfig) -> Vec<OptionSpec> {
    use names::*;
    let spin = |name, default, min, max| OptionSpec {
        name,
        kind: OptionKind::Spin { default, min, max },
    };
    let check = |name, default| OptionSpec {
        name,
        kind: OptionKind::Check { default },
    };
    let mut table = vec![
        spin(
            HASH,
            DEFAULT_HASH_MB.min(config.max_hash_mb),
            1,
            config.max_hash_mb.max(1),
        ),
        spin(THREADS, 1, 1, config.max_threads.max(1)),
        spin(MULTIPV, 1, 1, 256),
        check(PONDER, false),
        spin(MOVE_OVERHEAD, 10, 0, 5000),
        OptionSpec {
            name: CLEAR_HASH,
            kind: OptionKind::Button,
        },
        OptionSpec {
            name: TABLEBASE_PATH,
            kind: OptionKind::Text {
                default: String::new(),
            },
        },
        OptionSpec {
            name: EVAL_FILE,
            kind: OptionKind::Text {
                default: String::new(),
            },
        },
        OptionSpec {
            name: VARIANT_PATH,
            kind: OptionKind::Text {
                default: String::new(),
            },
        },
        check(UCI_CHESS960, false),
        check(UCI_SHOWWDL, false),
        OptionSpec {
            name: UCI_VARIANT,
            kind: OptionKind::Combo {
                default: DEFAULT_FAMILY.to_string(),
                vars: registry::variant_names(),
            },
        },
        OptionSpec {
            name: SEAT,
            kind: combo(SEATS[0], SEATS.iter().copied()),
        },
        OptionSpec {
            name: SYNCHRONOUS_BASE,
            kind: OptionKind::Combo {
                default: DEFAULT_FAMILY.to_string(),
                vars: registry::family_names()
                    .into_iter()
                    .filter(|f| *f != SYNCHRONOUS)
                    .map(str::to_string)
                    .collect(),
            },
        },
        OptionSpec {
            name: MULTI_SEARCH,
            kind: combo(
                MultiAlgorithm::DEFAULT.name(),
                MultiAlgorithm::ALL.iter().map(|a| a.name()),
            ),
        },
    ];
    table.extend(Feature::ALL.iter().map(|f| OptionSpec {
        name: f.option_name(),
        kind: combo(Switch::Auto.name(), Switch::ALL.iter().map(|a| a.name())),
    }));
    table.extend(registry::PARAMS.iter().map(|p| param_option(p)));
    table
}

/// The values of the `Seat` option (two-seat simultaneous variants).
pub const SEATS: [&str; 2] = ["white", "black"];

/// The family whose board is another family's.
const SYNCHRONOUS: &str = "synchronous";

/// The family a session starts with.
pub const DEFAULT_FAMILY: &str = "chess";

/// Why the session refused a request.
#[derive(Debug)]
pub enum SessionError {
    /// A refused option name or value.
    Option(OptionError),
    /// The options select a variant that cannot be built.
    Variant(VariantError),
    /// A bad position text.
    Position(PositionError),
    /// A variants file that cannot be loaded.
    VariantFile(FileError),
    /// An evaluation weights file that cannot be loaded.
    EvalFile(WeightsError),
    /// Move `index` (0-based) of a move list is unreadable or illegal.
    Move {
        /// Index in the list.
        index: usize,
        /// What is wrong with it.
        error: MoveError,
    },
    /// Joint decision `index` (0-based) of a simultaneous game's move
    /// list is unreadable or not allowed.
    Joint {
        /// Index in the list.
        index: usize,
        /// What is wrong with it.
        error: String,
    },
    /// A search was asked for before any position was set.
    NoPosition,
    /// A search was asked for while another one runs and was not stopped.
    Busy,
    /// The engine thread is gone (it could not be started).
    EngineGone,
}

impl fmt::Display for SessionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionError::Option(e) => write!(f, "{e}"),
            SessionError::Variant(e) => write!(f, "variant: {e}"),
            SessionError::Position(e) => write!(f, "position: {e}"),
            SessionError::VariantFile(e) => write!(f, "variants file {e}"),
            SessionError::EvalFile(e) => write!(f, "weights file {e}"),
            SessionError::Move { index, error } => {
                write!(f, "move {} of the list: {error}", index + 1)
            }
            SessionError::Joint { index, error } => {
                write!(f, "joint decision {} of the list: {error}", index + 1)
            }
            SessionError::NoPosition => write!(
                f,
                "no position: send 'position startpos' or 'position fen …' first"
            ),
            SessionError::Busy => write!(
                f,
                "a search is running: send 'stop' and wait for 'bestmove' first"
            ),
            SessionError::EngineGone => write!(f, "the engine thread is not running"),
        }
    }
}

impl std::error::Error for SessionError {}

impl From<OptionError> for SessionError {
    fn from(e: OptionError) -> Self {
        SessionError::Option(e)
    }
}

/// What a successful `setoption` changed, for the front-end to report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionEffect {
    /// A variant option (family, parameter, or the castling notation):
    /// the front-end announces the variant. `rebuilt` tells whether the
    /// variant itself changed (and the position was cleared).
    Variant {
        /// Whether a new variant was built.
        rebuilt: bool,
    },
    /// Anything else.
    Other,
}

/// Builds the variant spec the settings select: the family and every
/// parameter of it that is set.
pub fn variant_spec(s: &Settings) -> String {
    let Some(family) = registry::family(&s.variant) else {
        return s.variant.clone();
    };
    if family.name == SYNCHRONOUS {
        // The base with its own parameter options.
        let base = variant_spec(&Settings {
            variant: s.synchronous_base.clone(),
            ..s.clone()
        });
        return if base == DEFAULT_FAMILY {
            SYNCHRONOUS.into()
        } else {
            format!("{SYNCHRONOUS}:base={base}")
        };
    }
    let items: Vec<String> = family
        .params
        .iter()
        .filter_map(|key| s.param(key).map(|v| format!("{key}={v}")))
        .collect();
    if items.is_empty() {
        family.name.to_string()
    } else {
        format!("{}:{}", family.name, items.join(","))
    }
}

/// The session.
pub struct Session {
    table: Vec<OptionSpec>,
    settings: Settings,
    /// The spec the variant was built from (a random Chess960 start keeps
    /// its variant until a setting changes the spec).
    built_from: String,
    variant: Arc<Variant>,
    position: Option<Position>,
    host: EngineHost,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("settings", &self.settings)
            .field("variant", &self.variant.spec)
            .field("position", &self.position.as_ref().map(|p| p.to_text()))
            .finish()
    }
}

impl Session {
    /// A session with default options (classical chess, no position yet).
    pub fn new(config: SessionConfig) -> Session {
        let table = option_table(&config);
        let int = |name| match options::find(&table, name).map(|o| o.default_value()) {
            Ok(OptionValue::Int(n)) => n,
            _ => unreachable!("invariant: {name} is a spin option of the table"),
        };
        let settings = Settings {
            hash_mb: int(names::HASH) as usize,
            threads: 1,
            multipv: 1,
            ponder: false,
            move_overhead_ms: int(names::MOVE_OVERHEAD) as u64,
            tablebase_path: String::new(),
            eval_file: String::new(),
            chess960: false,
            show_wdl: false,
            variant: DEFAULT_FAMILY.into(),
            seat: SEATS[0].into(),
            synchronous_base: DEFAULT_FAMILY.into(),
            multi_search: MultiAlgorithm::DEFAULT.name().into(),
            switches: Feature::ALL.map(|_| Switch::Auto.name().to_string()),
            params: registry::PARAMS
                .iter()
                .map(|&p| {
                    let spec = param_option(p);
                    let value = param_value(p, &spec, &spec.default_value())
                        .expect("invariant: an option's default is a value of its parameter");
                    (p, value)
                })
                .collect(),
        };
        let built_from = variant_spec(&settings);
        let variant = Variant::from_spec(&built_from)
            .expect("invariant: the default settings select classical chess, a fixed variant");
        let host = EngineHost::new(EngineOptions {
            threads: settings.threads,
            hash_mb: settings.hash_mb,
            ..EngineOptions::default()
        });
        Session {
            table,
            settings,
            built_from,
            variant,
            position: None,
            host,
        }
    }

    /// The options, in announcement order.
    pub fn options(&self) -> &[OptionSpec] {
        &self.table
    }

    /// The current option values.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The current variant.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// The current position, if one was set.
    pub fn position(&self) -> Option<&Position> {
        self.position.as_ref()
    }

    /// Whether moves are written king-takes-rook: always in Chess960
    /// (where the king's destination can be an ordinary king move), and in
    /// classical chess when `UCI_Chess960` is on (a GUI playing Chess960
    /// through the classical variant). The cylinder and the torus keep the
    /// king's move, the only unambiguous form there (docs/notation.md).
    pub fn king_takes_rook(&self) -> bool {
        self.variant.fischer_random_notation
            || (self.variant.chess960_number.is_some() && self.settings.chess960)
    }

    /// The engine host (searches, stop, ponder hit).
    pub fn host(&self) -> &EngineHost {
        &self.host
    }

    /// Builds the engine's tables for the current position (the variant's
    /// start without one) on the engine thread, after the work queued
    /// before: UCI's `isready` answers after it, so that the first
    /// search's clock pays for no set-up (about half a second on the 6-D
    /// diamond).
    pub fn prepare_engine(&self) {
        let pos = self
            .position
            .clone()
            .unwrap_or_else(|| Position::start(&self.variant));
        self.host.configure(move |engine| {
            engine.prepare(&pos);
        });
    }

    /// Sets an option; on error nothing changes.
    pub fn set_option(
        &mut self,
        name: &str,
        value: Option<&str>,
    ) -> Result<OptionEffect, SessionError> {
        use names::*;
        let spec = options::find(&self.table, name)?;
        let v = spec.parse(value)?;
        let int = |v: &OptionValue| match v {
            OptionValue::Int(n) => *n,
            _ => unreachable!("invariant: spin options parse to integers"),
        };
        let flag = |v: &OptionValue| match v {
            OptionValue::Bool(b) => *b,
            _ => unreachable!("invariant: check options parse to booleans"),
        };
        let word = |v: &OptionValue| match v {
            OptionValue::Word(w) => w.clone(),
            _ => unreachable!("invariant: combo options parse to words"),
        };
        let mut next = self.settings.clone();
        match spec.name {
            HASH => {
                let mb = int(&v) as usize;
                self.settings.hash_mb = mb;
                self.host.configure(move |e| e.set_hash(mb));
                return Ok(OptionEffect::Other);
            }
            THREADS => {
                let t = int(&v) as usize;
                self.settings.threads = t;
                self.host.configure(move |e| e.set_threads(t));
                return Ok(OptionEffect::Other);
            }
            CLEAR_HASH => {
                self.host.configure(|e| e.new_game());
                return Ok(OptionEffect::Other);
            }
            TABLEBASE_PATH => {
                let dir = match &v {
                    OptionValue::Text(t) => t.clone(),
                    _ => unreachable!("invariant: text options parse to text"),
                };
                self.settings.tablebase_path = dir.clone();
                let dir = (!dir.is_empty()).then(|| std::path::PathBuf::from(dir));
                self.host.configure(move |e| e.set_tablebase_path(dir));
                return Ok(OptionEffect::Other);
            }
            EVAL_FILE => {
                let path = match &v {
                    OptionValue::Text(t) => t.clone(),
                    _ => unreachable!("invariant: text options parse to text"),
                };
                // A file that cannot be loaded changes nothing.
                let weights = if path.is_empty() {
                    None
                } else {
                    Some(
                        EvalWeights::load(std::path::Path::new(&path))
                            .map_err(SessionError::EvalFile)?,
                    )
                };
                self.settings.eval_file = path;
                self.host.configure(move |e| e.set_eval_weights(weights));
                return Ok(OptionEffect::Other);
            }
            VARIANT_PATH => {
                let path = match &v {
                    OptionValue::Text(t) => t.clone(),
                    _ => unreachable!("invariant: text options parse to text"),
                };
                if !path.is_empty() {
                    variant_file::load_file(std::path::Path::new(&path))
                        .map_err(SessionError::VariantFile)?;
                    // The new names become values of UCI_Variant.
                    for o in &mut self.table {
                        if let (UCI_VARIANT, OptionKind::Combo { vars, .. }) = (o.name, &mut o.kind)
                        {
                            *vars = registry::variant_names();
                        }
                    }
                }
                return Ok(OptionEffect::Other);
            }
            MULTIPV => {
                self.settings.multipv = int(&v) as usize;
                return Ok(OptionEffect::Other);
            }
            PONDER => {
                self.settings.ponder = flag(&v);
                return Ok(OptionEffect::Other);
            }
            MOVE_OVERHEAD => {
                self.settings.move_overhead_ms = int(&v) as u64;
                return Ok(OptionEffect::Other);
            }
            UCI_SHOWWDL => {
                self.settings.show_wdl = flag(&v);
                return Ok(OptionEffect::Other);
            }
            UCI_CHESS960 => next.chess960 = flag(&v),
            UCI_VARIANT => next.variant = word(&v),
            SEAT => {
                self.settings.seat = word(&v);
                return Ok(OptionEffect::Other);
            }
            SYNCHRONOUS_BASE => next.synchronous_base = word(&v),
            MULTI_SEARCH => {
                let w = word(&v);
                let a = MultiAlgorithm::parse(&w)
                    .expect("invariant: the combo's values are the algorithms' names");
                self.settings.multi_search = w;
                self.host.configure(move |e| e.set_multi_algorithm(a));
                return Ok(OptionEffect::Other);
            }
            name if let Some(f) = Feature::ALL.into_iter().find(|f| f.option_name() == name) => {
                let w = word(&v);
                let a = Switch::parse(&w)
                    .expect("invariant: the combo's values are the settings' names");
                self.settings.switches[f as usize] = w;
                self.host.configure(move |e| e.set_switch(f, a));
                return Ok(OptionEffect::Other);
            }
            other => {
                let slot = next
                    .params
                    .iter_mut()
                    .find(|(p, _)| p.option == other)
                    .expect("invariant: every option of the table is handled");
                slot.1 = param_value(slot.0, spec, &v)?;
            }
        }
        let spec = variant_spec(&next);
        let rebuilt = spec != self.built_from;
        if rebuilt {
            let variant = Variant::from_spec(&spec).map_err(SessionError::Variant)?;
            self.variant = variant;
            self.built_from = spec;
            self.position = None;
        }
        self.settings = next;
        Ok(OptionEffect::Variant { rebuilt })
    }

    /// The start position of the current variant.
    pub fn start_position(&self) -> Position {
        Position::start(&self.variant)
    }

    /// Sets the start position of the current variant (which cannot fail:
    /// every variant that built has one).
    pub fn set_start_position(&mut self) {
        self.position = Some(self.start_position());
    }

    /// Sets the position: `text` (a position text of the current variant)
    /// or the start position, then `moves` in the board's notation. On
    /// error the previous position stays.
    pub fn set_position(&mut self, text: Option<&str>, moves: &[&str]) -> Result<(), SessionError> {
        let mut pos = match text {
            Some(t) => Position::from_text(&self.variant, t).map_err(SessionError::Position)?,
            None => self.start_position(),
        };
        for (index, m) in moves.iter().enumerate() {
            if pos.turn().is_simultaneous() {
                let joint = joint::parse_joint(&pos, m).map_err(|e| SessionError::Joint {
                    index,
                    error: e.to_string(),
                })?;
                pos.make_joint(&joint).map_err(|e| SessionError::Joint {
                    index,
                    error: e.to_string(),
                })?;
                continue;
            }
            let mv = pos
                .parse_move(m)
                .map_err(|error| SessionError::Move { index, error })?;
            pos.make(mv);
        }
        self.position = Some(pos);
        Ok(())
    }

    /// The seat the engine decides for in simultaneous turns (`Seat`).
    pub fn seat(&self) -> crate::board::seating::Seat {
        let i = SEATS
            .iter()
            .position(|s| *s == self.settings.seat)
            .unwrap_or(0);
        crate::board::seating::Seat::new(i)
    }

    /// Plays one move on the current position (XBoard's `usermove`).
    pub fn play_move(&mut self, text: &str) -> Result<Move, SessionError> {
        let pos = self.position.as_mut().ok_or(SessionError::NoPosition)?;
        let m = pos
            .parse_move(text)
            .map_err(|error| SessionError::Move { index: 0, error })?;
        pos.make(m);
        Ok(m)
    }

    /// Plays `m`, a move of the current position (the XBoard front-end's
    /// own moves and the moves it has already read).
    pub fn play(&mut self, m: Move) -> Result<(), SessionError> {
        let pos = self.position.as_mut().ok_or(SessionError::NoPosition)?;
        if !pos.legal_moves().contains(&m) {
            return Err(SessionError::Move {
                index: 0,
                error: MoveError::Illegal(pos.move_text(m, false)),
            });
        }
        pos.make(m);
        Ok(())
    }

    /// Takes back the last move; `false` if there is none.
    pub fn undo_move(&mut self) -> bool {
        match self.position.as_mut() {
            Some(p) if p.ply_count() > 0 => {
                p.unmake();
                true
            }
            _ => false,
        }
    }

    /// Reads root moves (UCI's `searchmoves`) on the current position.
    pub fn parse_moves(&self, moves: &[&str]) -> Result<Vec<Move>, SessionError> {
        let pos = self.position.as_ref().ok_or(SessionError::NoPosition)?;
        moves
            .iter()
            .enumerate()
            .map(|(index, m)| {
                pos.parse_move(m)
                    .map_err(|error| SessionError::Move { index, error })
            })
            .collect()
    }

    /// Checks that a search can start now: a position is set, and no
    /// search runs unless it was told to stop (then the new one waits for
    /// it in the engine thread's queue).
    fn may_start(&self) -> Result<Position, SessionError> {
        let pos = self.position.clone().ok_or(SessionError::NoPosition)?;
        if self.host.busy() && !self.host.stop_requested() {
            return Err(SessionError::Busy);
        }
        Ok(pos)
    }

    /// Starts a search of the current position. `limits` gets `MultiPV`
    /// and `Move Overhead` from the settings.
    pub fn search(
        &mut self,
        mut limits: Limits,
        ponder: bool,
        report: SearchReporter,
    ) -> Result<Position, SessionError> {
        let pos = self.may_start()?;
        limits.seat = Some(self.seat());
        limits.multipv = self.settings.multipv.max(1);
        limits.move_overhead = Duration::from_millis(self.settings.move_overhead_ms);
        if self.host.search(pos.clone(), limits, ponder, report) {
            Ok(pos)
        } else {
            Err(SessionError::EngineGone)
        }
    }

    /// Starts a perft count of the current position on `Threads` threads.
    pub fn perft(&mut self, depth: u32, report: PerftReporter) -> Result<Position, SessionError> {
        let pos = self.may_start()?;
        if self.host.perft(
            pos.clone(),
            depth,
            self.settings.threads,
            self.king_takes_rook(),
            report,
        ) {
            Ok(pos)
        } else {
            Err(SessionError::EngineGone)
        }
    }

    /// A new game: the engine forgets what it learnt.
    pub fn new_game(&mut self) {
        self.host.configure(|e| e.new_game());
    }

    /// Ends the engine thread (see [`EngineHost::shutdown`]).
    pub fn shutdown(&mut self, grace: Duration) -> bool {
        self.host.shutdown(grace)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session {
        Session::new(SessionConfig {
            max_hash_mb: 8,
            max_threads: 2,
        })
    }

    #[test]
    fn variant_options_build_the_variant() {
        let mut s = session();
        assert_eq!(s.variant().spec, "chess");
        assert_eq!(
            s.set_option("uci_variant", Some("DIAMOND")).unwrap(),
            OptionEffect::Variant { rebuilt: true }
        );
        assert_eq!(s.variant().spec, "diamond:n=3,l=8,setup=8.1");
        s.set_option("Dimension", Some("4")).unwrap();
        assert_eq!(s.variant().geometry.dims(), 4);
        s.set_option("EdgeLength", Some("10")).unwrap();
        assert_eq!(s.variant().geometry.lens(), &[10, 10, 10, 10]);
        // Odd edge lengths and out-of-range values change nothing.
        assert!(s.set_option("EdgeLength", Some("9")).is_err());
        assert!(s.set_option("Dimension", Some("7")).is_err());
        assert_eq!(s.settings().param("l"), Some("10"));
        // A setup the dimension does not have is refused as a whole.
        assert!(matches!(
            s.set_option("DiamondSetup", Some("8.1")),
            Err(SessionError::Variant(_))
        ));
        assert_eq!(s.settings().param("setup"), None);
        assert_eq!(s.variant().geometry.dims(), 4);
    }

    #[test]
    fn same_variant_keeps_position() {
        let mut s = session();
        s.set_position(None, &["e2e4"]).unwrap();
        assert_eq!(
            s.set_option("UCI_Variant", Some("chess")).unwrap(),
            OptionEffect::Variant { rebuilt: false }
        );
        assert!(s.position().is_some());
        s.set_option("UCI_Variant", Some("cube")).unwrap();
        assert!(s.position().is_none());
    }

    #[test]
    fn bad_moves_leave_the_position() {
        let mut s = session();
        s.set_position(None, &["e2e4"]).unwrap();
        let before = s.position().unwrap().to_text();
        assert!(matches!(
            s.set_position(None, &["e2e4", "e2e4"]),
            Err(SessionError::Move { index: 1, .. })
        ));
        assert!(s.set_position(Some("not a fen"), &[]).is_err());
        assert_eq!(s.position().unwrap().to_text(), before);
        assert!(s.play_move("e7e5").is_ok());
        assert!(s.undo_move());
        assert_eq!(s.position().unwrap().to_text(), before);
    }
}
