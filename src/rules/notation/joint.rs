//! Joint decisions of simultaneous turns in text (docs/notation.md): each
//! seat's decision in seat order, separated by `|`, a move in the
//! coordinates of [`super::coord`] and `0000` for a pass — `e2e4|e7e5`, or
//! `d4e5|0000` in an exchange phase. A host builds it by joining the
//! engines' answers without knowing the rules.

use std::fmt;

use crate::board::seating::{Phase, Seat, Turn};
use crate::rules::moves::{Decision, JointDecision};
use crate::rules::position::Position;

/// The text of a pass.
pub const PASS: &str = "0000";

/// Why a joint-decision text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JointTextError {
    /// The position's turn is not simultaneous.
    NotSimultaneous,
    /// Not one decision per seat.
    SeatCount {
        /// Decisions given.
        given: usize,
        /// Seats of the variant.
        seats: usize,
    },
    /// A seat's decision is not one of its choices now.
    Decision {
        /// The seat.
        seat: Seat,
        /// Its text.
        text: String,
        /// Why.
        why: String,
    },
}

impl fmt::Display for JointTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JointTextError::NotSimultaneous => write!(f, "the turn is not simultaneous"),
            JointTextError::SeatCount { given, seats } => write!(
                f,
                "{given} decisions given, one per seat ({seats}) separated by '|' expected"
            ),
            JointTextError::Decision { seat, text, why } => {
                write!(f, "decision '{text}' of {seat}: {why}")
            }
        }
    }
}

impl std::error::Error for JointTextError {}

/// The text of one seat's decision.
pub fn decision_text(pos: &Position, d: Option<Decision>) -> String {
    match d {
        Some(Decision::Move(m)) => pos.move_text(m, pos.king_takes_rook()),
        Some(Decision::Pass) | None => PASS.into(),
    }
}

/// The text of a joint decision.
pub fn joint_text(pos: &Position, j: &JointDecision) -> String {
    (0..pos.variant().seat_count())
        .map(|i| decision_text(pos, j.get(Seat::new(i))))
        .collect::<Vec<_>>()
        .join("|")
}

/// Reads one seat's decision in the current turn: a pass, or one of its
/// moves now (legal moves in the main phase, exchange captures in the
/// exchange phase).
pub fn parse_decision(pos: &Position, seat: Seat, text: &str) -> Result<Decision, JointTextError> {
    let text = text.trim();
    let err = |why: String| JointTextError::Decision {
        seat,
        text: text.into(),
        why,
    };
    let Turn::All(_) = pos.turn() else {
        return Err(JointTextError::NotSimultaneous);
    };
    if text == PASS || text == "-" {
        return Ok(Decision::Pass);
    }
    let moves = match pos.phase() {
        Phase::Main => pos.legal_moves_of(seat),
        Phase::Exchange => pos.exchange_moves(seat),
    };
    match pos.find_move(text, &moves) {
        Ok(m) => Ok(Decision::Move(m)),
        Err(e) if pos.phase() == Phase::Exchange => Err(err(format!(
            "{e}; in the exchange phase only captures on a contested cell by a piece that has not moved in the phase, or {PASS}"
        ))),
        Err(e) => Err(err(e.to_string())),
    }
}

/// Reads a joint decision `d1|d2|…` (one per seat, seat order). A seat
/// that does not decide now gives a pass (main phase: it has no
/// decision). The result still has to pass [`Position::check_joint`].
pub fn parse_joint(pos: &Position, text: &str) -> Result<JointDecision, JointTextError> {
    let Turn::All(movers) = pos.turn() else {
        return Err(JointTextError::NotSimultaneous);
    };
    let seats = pos.variant().seat_count();
    let parts: Vec<&str> = text.split('|').collect();
    if parts.len() != seats {
        return Err(JointTextError::SeatCount {
            given: parts.len(),
            seats,
        });
    }
    let mut j = JointDecision::new(seats);
    for (i, part) in parts.iter().enumerate() {
        let seat = Seat::new(i);
        let d = parse_decision(pos, seat, part)?;
        if movers.contains(seat) || pos.phase() == Phase::Exchange {
            j.set(seat, d);
        } else if d != Decision::Pass {
            return Err(JointTextError::Decision {
                seat,
                text: part.trim().into(),
                why: "this seat does not decide now".into(),
            });
        }
    }
    Ok(j)
}
