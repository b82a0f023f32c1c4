//! Simultaneous turns: the seats of a [`Turn::All`] each decide, without
//! seeing the others' decisions, and the joint decision is resolved at
//! once (seed 004, rules a–c):
//!
//! - every moving piece leaves its start cell before any lands;
//! - a piece landing alone on a cell captures whatever stands there and
//!   did not move away (a), and simply lands where the cell was vacated
//!   — two pieces may swap places or chase each other (b);
//! - pieces landing together on one cell are all removed, and so is a
//!   piece that stood there (c);
//! - a king removed so is captured outright: its seat is out.
//!
//! Each seat's move must be legal for it in the position before the turn,
//! the others standing still. Follow-up phases (synchronous chess's
//! exchange phase) build on this resolution.

use std::fmt;

use crate::board::geometry::Cell;
use crate::board::piece::{EMPTY, Piece, piece, piece_kind, piece_seat};
use crate::board::seating::{Phase, Seat, Turn};
use crate::rules::moves::{Decision, JointDecision, MoveKind};
use crate::rules::position::Position;

/// Why a joint decision was refused (the position is unchanged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JointError {
    /// The position's turn is not simultaneous.
    NotSimultaneous,
    /// A deciding seat gave no decision.
    Missing(Seat),
    /// A seat that does not decide now gave one.
    NotDeciding(Seat),
    /// A seat's move is not legal for it.
    Illegal(Seat),
    /// A seat passed where it must move.
    MustMove(Seat),
}

impl fmt::Display for JointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JointError::NotSimultaneous => write!(f, "the turn is not simultaneous"),
            JointError::Missing(s) => write!(f, "{s} has not decided"),
            JointError::NotDeciding(s) => write!(f, "{s} does not decide now"),
            JointError::Illegal(s) => write!(f, "the move of {s} is not legal"),
            JointError::MustMove(s) => write!(f, "{s} must move, not pass"),
        }
    }
}

impl std::error::Error for JointError {}

/// What the resolution of a joint decision did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resolution {
    /// Pieces captured, with the cells they stood on.
    pub captured: Vec<(Cell, Piece)>,
    /// Cells where pieces landed together and were removed.
    pub collisions: Vec<Cell>,
}

impl Position {
    /// Checks a joint decision against the turn and every seat's legal
    /// moves.
    pub fn check_joint(&self, joint: &JointDecision) -> Result<(), JointError> {
        let Turn::All(movers) = self.turn() else {
            return Err(JointError::NotSimultaneous);
        };
        for (seat, d) in joint.0.iter() {
            match (movers.contains(seat), d) {
                (false, Some(_)) => return Err(JointError::NotDeciding(seat)),
                (true, None) => return Err(JointError::Missing(seat)),
                (true, Some(Decision::Pass)) if self.phase() == Phase::Main => {
                    return Err(JointError::MustMove(seat));
                }
                (true, Some(Decision::Move(m))) if !self.legal_moves_of(seat).contains(m) => {
                    return Err(JointError::Illegal(seat));
                }
                _ => {}
            }
        }
        if let Some(s) = movers.iter().find(|s| s.index() >= joint.0.len()) {
            return Err(JointError::Missing(s));
        }
        Ok(())
    }

    /// Resolves and plays a joint decision (undone by
    /// [`Position::unmake`]); on error nothing changes.
    pub fn make_joint(&mut self, joint: &JointDecision) -> Result<Resolution, JointError> {
        self.check_joint(joint)?;
        let v = self.variant().clone();
        let board: Vec<Piece> = self.board().to_vec();
        // Departures and arrivals of every moving piece.
        let mut departures: Vec<Cell> = Vec::new();
        let mut arrivals: Vec<(Cell, Piece)> = Vec::new();
        let mut moves = Vec::new();
        let mut irreversible = false;
        for (seat, d) in joint.0.iter() {
            let Some(Decision::Move(m)) = d else {
                continue;
            };
            let (from, to) = (m.from as usize, m.to as usize);
            let moving = board[from];
            moves.push((seat, moving, from, to, *m));
            irreversible |= v.is_pawn(piece_kind(moving));
            departures.push(from);
            let placed = match m.promotion_kind() {
                Some(k) => piece(seat, k),
                None => moving,
            };
            arrivals.push((to, placed));
            match m.kind {
                MoveKind::Castle => {
                    departures.push(m.aux as usize);
                    arrivals.push((m.aux2 as usize, board[m.aux as usize]));
                }
                MoveKind::EnPassant => departures.push(m.aux as usize),
                _ => {}
            }
        }
        let mut result = Resolution::default();
        self.begin_cell_step();
        for &c in &departures {
            self.change_cell(c, EMPTY);
        }
        let mut targets: Vec<Cell> = arrivals.iter().map(|&(c, _)| c).collect();
        targets.sort_unstable();
        targets.dedup();
        let mut out = self.out();
        for cell in targets {
            let landing: Vec<Piece> = arrivals
                .iter()
                .filter(|&&(c, _)| c == cell)
                .map(|&(_, p)| p)
                .collect();
            let standing = self.piece_at(cell);
            if standing != EMPTY {
                result.captured.push((cell, standing));
            }
            if landing.len() == 1 {
                self.change_cell(cell, landing[0]);
            } else {
                result.collisions.push(cell);
                result.captured.extend(landing.iter().map(|&p| (cell, p)));
                self.change_cell(cell, EMPTY);
            }
        }
        for &(_, p) in &result.captured {
            irreversible = true;
            if v.royal_kind == Some(piece_kind(p)) {
                out.insert(piece_seat(p));
            }
        }
        for &(mover, moving, from, to, m) in &moves {
            if !self.castling().is_empty() {
                let rook = (m.kind == MoveKind::Castle).then_some(m.aux);
                self.update_castling(mover, moving, from, to, rook);
            }
        }
        let lead = self.turn().lead();
        self.end_cell_step(irreversible, lead, out);
        Ok(result)
    }
}
