//! A game: its start, its current position, the steps played and, once it
//! is over, how it ended.

use std::fmt;

use crate::board::seating::{Seat, SeatSet};
use crate::rules::moves::{JointDecision, Move};
use crate::rules::notation::MoveError;
use crate::rules::outcome::{Outcome, Points};
use crate::rules::position::Position;
use crate::rules::simultaneous::{JointError, Resolution};

/// One step of a game: a seat's move, or the joint decision of a
/// simultaneous turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A move of one seat.
    Move(Move),
    /// The decisions of the seats of a simultaneous turn.
    Joint(JointDecision),
}

impl Step {
    /// The cells the step moved pieces from and to (from, to, from, to, …;
    /// a pass moves nothing): what a diagram marks as the last step.
    pub fn cells(&self) -> Vec<usize> {
        match self {
            Step::Move(m) => vec![m.from as usize, m.to as usize],
            Step::Joint(j) => {
                j.0.iter()
                    .filter_map(|(_, d)| match d {
                        Some(crate::rules::moves::Decision::Move(m)) => {
                            Some([m.from as usize, m.to as usize])
                        }
                        _ => None,
                    })
                    .flatten()
                    .collect()
            }
        }
    }
}

/// A step with what the record keeps of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ply {
    /// The seats that decided.
    pub seats: SeatSet,
    /// What they decided.
    pub step: Step,
    /// The move number of the position the step was played in.
    pub number: u32,
    /// The step in ASCII coordinates (`e2e4`; `e2e4|e7e5` for the seats
    /// of a simultaneous turn in seat order, `0000` for a pass).
    pub text: String,
    /// A player's comment (the engine's score and depth, say).
    pub note: Option<String>,
    /// What the driver measured and the player reported: think time and
    /// evaluation (for PGN clock comments and adjudication).
    pub annotation: Option<Annotation>,
}

/// What the record keeps of how a step was decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Annotation {
    /// Wall time the deciding player took, measured by the driver.
    pub time: std::time::Duration,
    /// The player's evaluation of its decision, if it gave one.
    pub eval: Option<crate::game::driver::Eval>,
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// By the rules (mate, stalemate, repetition, …).
    Rules(Outcome),
    /// By a decision outside the rules: a move limit, a score margin, a
    /// draw agreed or resigned; `reason` says which.
    Adjudicated {
        /// The points given.
        outcome: Outcome,
        /// Why.
        reason: String,
    },
    /// A seat resigned: its side loses by its own choice.
    Resigned {
        /// The seat that resigned.
        seat: Seat,
        /// The points given (the resigning seat's side loses).
        outcome: Outcome,
    },
    /// A seat lost by forfeit: a crash, an illegal move, a time loss.
    Forfeit {
        /// The seat that forfeited.
        seat: Seat,
        /// The points given (the forfeiting seat's side loses).
        outcome: Outcome,
        /// What kind of forfeit (records such as PGN's `Termination`
        /// classify by it).
        cause: ForfeitCause,
        /// Why, in words.
        reason: String,
    },
}

/// The kinds of forfeit a record tells apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForfeitCause {
    /// The player could not start the game (or there was none).
    NoStart,
    /// The player's time ran out, or it did not answer in time.
    Time,
    /// Anything else: an illegal decision, a crash, a protocol error.
    Infraction,
}

impl GameEnd {
    /// The points.
    pub fn outcome(&self) -> &Outcome {
        match self {
            GameEnd::Rules(o) => o,
            GameEnd::Adjudicated { outcome, .. }
            | GameEnd::Resigned { outcome, .. }
            | GameEnd::Forfeit { outcome, .. } => outcome,
        }
    }

    /// Why the game ended, in words.
    pub fn reason(&self, game: &Game) -> String {
        match self {
            GameEnd::Rules(o) => o.description(game.position().variant()),
            GameEnd::Adjudicated { reason, .. } => reason.clone(),
            GameEnd::Resigned { seat, .. } => {
                format!("{} resigns", game.position().variant().seating.name(*seat))
            }
            GameEnd::Forfeit { seat, reason, .. } => {
                let v = game.position().variant();
                format!("{} forfeits: {reason}", v.seating.name(*seat))
            }
        }
    }
}

/// Why a step was refused (the game is unchanged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameError {
    /// The game is over.
    Over,
    /// The move is not legal now (or not readable).
    Move(MoveError),
    /// The joint decision is refused.
    Joint(JointError),
    /// A sequential move was given in a simultaneous turn, or the other
    /// way round.
    WrongTurn,
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameError::Over => write!(f, "the game is over"),
            GameError::Move(e) => write!(f, "{e}"),
            GameError::Joint(e) => write!(f, "{e}"),
            GameError::WrongTurn => write!(f, "not a decision of this turn"),
        }
    }
}

impl std::error::Error for GameError {}

/// A game in progress or over.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    pos: Position,
    plies: Vec<Ply>,
    end: Option<GameEnd>,
}

impl Game {
    /// A game from `start` (its end by the rules, if it is over already,
    /// is recorded).
    pub fn new(start: Position) -> Game {
        let mut g = Game {
            pos: start.clone(),
            start,
            plies: Vec::new(),
            end: None,
        };
        g.end = g.pos.outcome().map(GameEnd::Rules);
        g
    }

    /// A game from `start` with `moves` (ASCII coordinates) played; the
    /// index of the first bad move on error.
    pub fn from_moves(start: Position, moves: &[&str]) -> Result<Game, (usize, GameError)> {
        let mut g = Game {
            pos: start.clone(),
            start,
            plies: Vec::new(),
            end: None,
        };
        for (i, text) in moves.iter().enumerate() {
            let m = g
                .pos
                .parse_move(text)
                .map_err(|e| (i, GameError::Move(e)))?;
            g.push_move(m, None);
        }
        g.end = g.pos.outcome().map(GameEnd::Rules);
        Ok(g)
    }

    /// The start position.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The current position.
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The steps played.
    pub fn plies(&self) -> &[Ply] {
        &self.plies
    }

    /// How the game ended, if it is over.
    pub fn end(&self) -> Option<&GameEnd> {
        self.end.as_ref()
    }

    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    fn push_move(&mut self, m: Move, note: Option<String>) {
        let text = self.pos.move_text(m, self.pos.king_takes_rook());
        let mover = self
            .pos
            .piece_seat_at(m.from as usize)
            .unwrap_or(self.pos.to_move());
        self.plies.push(Ply {
            seats: SeatSet::single(mover),
            step: Step::Move(m),
            number: self.pos.fullmove_number(),
            text,
            note,
            annotation: None,
        });
        self.pos.make(m);
    }

    /// Plays `m` (a legal move of a deciding seat in a sequential turn)
    /// and records the end by the rules, if the game ends.
    pub fn play(&mut self, m: Move, note: Option<String>) -> Result<(), GameError> {
        if self.end.is_some() {
            return Err(GameError::Over);
        }
        if self.pos.turn().is_simultaneous() {
            return Err(GameError::WrongTurn);
        }
        if !self.pos.legal_moves().contains(&m) {
            return Err(GameError::Move(MoveError::Illegal(
                self.pos.move_text(m, self.pos.king_takes_rook()),
            )));
        }
        self.push_move(m, note);
        self.end = self.pos.outcome().map(GameEnd::Rules);
        Ok(())
    }

    /// Reads and plays a move written in ASCII coordinates.
    pub fn play_text(&mut self, text: &str) -> Result<Move, GameError> {
        if self.end.is_some() {
            return Err(GameError::Over);
        }
        let m = self.pos.parse_move(text).map_err(GameError::Move)?;
        self.play(m, None)?;
        Ok(m)
    }

    /// Resolves and plays the joint decision of a simultaneous turn.
    pub fn play_joint(
        &mut self,
        joint: &JointDecision,
        note: Option<String>,
    ) -> Result<Resolution, GameError> {
        if self.end.is_some() {
            return Err(GameError::Over);
        }
        let number = self.pos.fullmove_number();
        // The joint decision in docs/notation.md's form, the text a
        // protocol host sends back (`e2e4|e7e5`, `0000` a pass).
        let text = crate::rules::notation::joint::joint_text(&self.pos, joint);
        let r = self.pos.make_joint(joint).map_err(GameError::Joint)?;
        self.plies.push(Ply {
            seats: joint.deciders().collect(),
            step: Step::Joint(joint.clone()),
            number,
            text,
            note,
            annotation: None,
        });
        self.end = self.pos.outcome().map(GameEnd::Rules);
        Ok(r)
    }

    /// Takes back the last step; `false` if there is none. An end
    /// outside the rules is forgotten with it.
    pub fn take_back(&mut self) -> bool {
        if self.plies.pop().is_none() {
            return false;
        }
        self.pos.unmake();
        self.end = self.pos.outcome().map(GameEnd::Rules);
        true
    }

    /// Attaches what the driver measured to the last step.
    pub fn annotate_last(&mut self, annotation: Annotation) {
        if let Some(p) = self.plies.last_mut() {
            p.annotation = Some(annotation);
        }
    }

    /// Ends the game by a decision outside the rules.
    pub fn adjudicate(&mut self, outcome: Outcome, reason: impl Into<String>) {
        self.end = Some(GameEnd::Adjudicated {
            outcome,
            reason: reason.into(),
        });
    }

    /// The points when `seat`'s side loses outside the rules: it scores
    /// nothing, the others win.
    fn loss_of_side(&self, seat: Seat) -> Outcome {
        let v = self.pos.variant();
        let side = v.seating.side_of(seat);
        Outcome {
            points: crate::board::seating::BySeat::from_fn(v.seat_count(), |s| {
                if side.contains(s) {
                    Points::ZERO
                } else {
                    Points::ONE
                }
            }),
            reason: crate::rules::outcome::EndReason::Forfeit { losers: side },
        }
    }

    /// Ends the game by `seat`'s resignation.
    pub fn resign(&mut self, seat: Seat) {
        let losers = crate::board::seating::SeatSet::single(seat);
        let outcome = Outcome::defeat(
            self.pos.variant(),
            losers,
            crate::rules::outcome::EndReason::Adjudicated,
        );
        self.end = Some(GameEnd::Resigned { seat, outcome });
    }

    /// Ends the game by `seat`'s forfeit: its side loses, the others win.
    pub fn forfeit(&mut self, seat: Seat, cause: ForfeitCause, reason: impl Into<String>) {
        let outcome = self.loss_of_side(seat);
        self.end = Some(GameEnd::Forfeit {
            seat,
            outcome,
            cause,
            reason: reason.into(),
        });
    }
}
