//! The page's protocol: the JSON messages between the page and the server
//! over the WebSocket `/ws` (docs/gui.md, "The page's protocol"), and the
//! views of the game they carry.

use serde::{Deserialize, Serialize};

use crate::arbiter::publish::WatchGame;

/// A message from the page.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMsg {
    /// A new game: variant spec, optional position text, the seats the
    /// person plays (indices), the engine's time per move or depth.
    New {
        variant: String,
        #[serde(default)]
        fen: Option<String>,
        #[serde(default)]
        humans: Option<Vec<usize>>,
        #[serde(default)]
        movetime_ms: Option<u64>,
        #[serde(default)]
        depth: Option<u32>,
        /// Clocks for every seat (`5+3`, `40/300`, `0:30+1`; docs/arbiter.md's
        /// time controls); the engine then thinks by its clock.
        #[serde(default)]
        time_control: Option<String>,
    },
    /// The person's move (or decision, `0000` a pass) in coordinates or,
    /// on SAN boards, in short notation.
    Move { text: String },
    /// Take back to the person's previous decision.
    Undo,
    /// The person resigns (the seat asked now, or their first seat).
    Resign,
    /// The person offers a draw.
    Draw,
    /// See the board from the other side.
    Flip,
    /// Analysis on or off (infinite search on the person's turns).
    Analyse {
        on: bool,
        #[serde(default)]
        multipv: Option<usize>,
    },
    /// Stop the engine: analysis ends; a move search plays what it has.
    Stop,
    /// The position after these moves from the current one, drawn but not
    /// played (a PV shown on the board).
    Preview { moves: Vec<String> },
    /// Replace the game by the first game of a PGN text.
    ImportPgn { pgn: String },
    /// Ask for the game as PGN.
    ExportPgn,
    /// Ask for the current diagram as a standalone SVG.
    ExportSvg,
    /// Ask for the state again.
    State,
    /// Follow the games an arbiter publishes (`-publish`), or stop.
    Watch { on: bool },
}

/// A seat as the page shows it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SeatView {
    pub name: String,
    pub colour: String,
    pub human: bool,
}

/// A decision the person can make now.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LegalView {
    /// Start cell (index); `None` for a pass.
    pub from: Option<usize>,
    /// Target cell (index); `None` for a pass.
    pub to: Option<usize>,
    /// The text to send back (coordinates, `0000` a pass).
    pub text: String,
    /// How the page labels it (the promotion piece's letter, if any).
    pub label: String,
}

/// One step of the record as the page lists it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StepView {
    pub number: u32,
    pub seats: Vec<usize>,
    pub text: String,
    pub note: Option<String>,
}

/// A message to the page.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// Sent on connection: the variant specs the page offers.
    Hello {
        version: String,
        examples: Vec<String>,
        families: Vec<String>,
    },
    /// Everything the page draws.
    State(Box<StateView>),
    /// A line of the engine while it thinks.
    Info {
        seat: usize,
        depth: u32,
        seldepth: u32,
        multipv: usize,
        score: String,
        score_cp: Option<i32>,
        nodes: u64,
        nps: u64,
        time_ms: u64,
        pv: Vec<String>,
    },
    /// A refused request: the state is unchanged.
    Error { message: String },
    /// Something the person should know (a draw offer declined, say).
    Notice { message: String },
    /// The game as PGN.
    Pgn { pgn: String },
    /// A diagram (an export or a preview).
    Svg {
        svg: String,
        fen: String,
        preview: bool,
    },
    /// A published game's state with its diagram.
    Watch { game: Box<WatchGame>, svg: String },
    /// A published run's standings.
    Standings {
        event: String,
        text: String,
        done: usize,
        total: usize,
    },
}

/// The state of the game as the page draws it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct StateView {
    pub spec: String,
    pub variant: String,
    pub dims: usize,
    pub cells: usize,
    pub seats: Vec<SeatView>,
    pub fen: String,
    pub svg: String,
    pub simultaneous: bool,
    pub phase: String,
    /// The seats deciding now.
    pub deciding: Vec<usize>,
    /// Seats of this simultaneous turn that have committed (their choice
    /// stays hidden until the turn is resolved).
    pub committed: Vec<usize>,
    /// The seat the page asks the person for now, if any.
    pub asking: Option<usize>,
    /// That seat's decisions.
    pub legal: Vec<LegalView>,
    pub history: Vec<StepView>,
    /// The last simultaneous turn, revealed (`e2e4|e7e5`), with the
    /// engine's mixed strategy.
    pub reveal: Option<String>,
    pub last: Vec<usize>,
    pub thinking: bool,
    pub analysing: bool,
    pub flip: bool,
    pub result: Option<String>,
    pub reason: Option<String>,
    pub movetime_ms: Option<u64>,
    /// The clocks' time control, if the game has clocks.
    pub time_control: Option<String>,
    /// Time left per seat in milliseconds when the message was written.
    pub clocks_ms: Option<Vec<u64>>,
    /// The seats whose clocks run (the page counts them down).
    pub clocks_running: Vec<usize>,
    pub depth: Option<u32>,
}
