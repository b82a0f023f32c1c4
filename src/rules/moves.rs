//! Moves and decisions.
//!
//! A [`Move`] is one seat's move: its mover is the owner of the piece on
//! its start cell. A [`Decision`] is what a seat answers when asked to
//! decide — a move, or a pass where the rules allow one (synchronous
//! chess's exchange phase) — and a [`JointDecision`] collects the
//! decisions of the seats of a simultaneous turn.

use crate::board::geometry::Cell;
use crate::board::piece::NO_CELL;
use crate::board::seating::{BySeat, Seat};

/// What a move does besides moving a piece from one cell to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MoveKind {
    /// Ordinary move or capture (a promotion if `promotion` is set).
    Normal,
    /// A pawn's double step; `aux` is the cell it passes.
    DoubleStep,
    /// En-passant capture; `aux` is the captured pawn's cell.
    EnPassant,
    /// Castling: `from`/`to` are the king's cells, `aux` the rook's start
    /// and `aux2` the rook's destination.
    Castle,
    /// A null move (the turn passes; search only, never generated).
    Null,
    /// The step of a seat without a legal move in a multi-party game that
    /// goes on without it: the seat leaves the game (mated or
    /// stalemated). Generated as the only move of such a seat.
    Out,
}

/// A move. Cells are flattened indices (boards have at most 60,000 cells).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// Start cell (the king's for castling).
    pub from: u16,
    /// Destination cell (the king's for castling).
    pub to: u16,
    /// See [`MoveKind`].
    pub aux: u16,
    /// Rook destination of a castling.
    pub aux2: u16,
    /// Kind.
    pub kind: MoveKind,
    /// Promotion piece kind + 1, or 0.
    pub promotion: u8,
}

impl Move {
    /// A plain move.
    #[inline(always)]
    pub fn normal(from: Cell, to: Cell) -> Move {
        Move {
            from: from as u16,
            to: to as u16,
            aux: NO_CELL,
            aux2: NO_CELL,
            kind: MoveKind::Normal,
            promotion: 0,
        }
    }

    /// The null move: passes the turn ([`crate::rules::position::Position::make`]
    /// accepts it; the move generator never produces it).
    pub const NULL: Move = Move {
        from: 0,
        to: 0,
        aux: NO_CELL,
        aux2: NO_CELL,
        kind: MoveKind::Null,
        promotion: 0,
    };

    /// The step of a seat that has no legal move and leaves a multi-party
    /// game (see [`MoveKind::Out`]).
    pub const OUT: Move = Move {
        from: 0,
        to: 0,
        aux: NO_CELL,
        aux2: NO_CELL,
        kind: MoveKind::Out,
        promotion: 0,
    };

    /// The promotion kind, if any.
    #[inline]
    pub fn promotion_kind(&self) -> Option<usize> {
        (self.promotion != 0).then(|| self.promotion as usize - 1)
    }
}

/// A move described by coordinates only, independent of cell numbering:
/// the neutral form used to compare move generators.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MoveKey {
    /// Coordinates of the start cell (the king's for castling).
    pub from: Vec<i32>,
    /// Coordinates of the destination (the king's for castling).
    pub to: Vec<i32>,
    /// Upper-case letter of the promotion piece.
    pub promotion: Option<char>,
    /// Start cell of the castling rook.
    pub castling_rook: Option<Vec<i32>>,
}

/// What a seat decides when it is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Decision {
    /// A move.
    Move(Move),
    /// No move (where the rules allow it).
    Pass,
}

/// The decisions of the seats of a simultaneous turn, one per deciding
/// seat (`None` for seats that are not asked).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JointDecision(pub BySeat<Option<Decision>>);

impl JointDecision {
    /// No decision yet, for a variant of `seats` seats.
    pub fn new(seats: usize) -> JointDecision {
        JointDecision(BySeat::from_fn(seats, |_| None))
    }

    /// Records `seat`'s decision.
    pub fn set(&mut self, seat: Seat, d: Decision) {
        self.0[seat] = Some(d);
    }

    /// `seat`'s decision.
    pub fn get(&self, seat: Seat) -> Option<Decision> {
        self.0.get(seat).copied().flatten()
    }

    /// The seats that decided.
    pub fn deciders(&self) -> impl Iterator<Item = Seat> + '_ {
        self.0.iter().filter(|(_, d)| d.is_some()).map(|(s, _)| s)
    }
}
