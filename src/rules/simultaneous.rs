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
use crate::board::seating::{MAX_SEATS, Phase, Seat, SeatSet, Turn};
use crate::rules::attacks;
use crate::rules::movegen::with_generator;
use crate::rules::moves::{Decision, JointDecision, MoveKind};
use crate::rules::position::{Exchange, Position};
use arrayvec::ArrayVec;

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
    /// In the exchange phase: a move that is not a capture on one of the
    /// seat's contested cells by a piece that has not moved in the phase.
    NotAnExchange(Seat),
}

impl fmt::Display for JointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JointError::NotSimultaneous => write!(f, "the turn is not simultaneous"),
            JointError::Missing(s) => write!(f, "{s} has not decided"),
            JointError::NotDeciding(s) => write!(f, "{s} does not decide now"),
            JointError::Illegal(s) => write!(f, "the move of {s} is not legal"),
            JointError::MustMove(s) => write!(f, "{s} must move, not pass"),
            JointError::NotAnExchange(s) => write!(
                f,
                "{s} may only capture on a contested cell with a piece that has not moved in the exchange phase, or pass"
            ),
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
    /// moves. In the exchange phase a seat without a right may give a
    /// pass (a host asks every engine and passes on every answer).
    pub fn check_joint(&self, joint: &JointDecision) -> Result<(), JointError> {
        let Turn::All(movers) = self.turn() else {
            return Err(JointError::NotSimultaneous);
        };
        let exchange = self.phase() == Phase::Exchange;
        for (seat, d) in joint.0.iter() {
            match (movers.contains(seat), d) {
                (false, Some(Decision::Pass)) if exchange => {}
                (false, Some(_)) => return Err(JointError::NotDeciding(seat)),
                (true, None) => return Err(JointError::Missing(seat)),
                (true, Some(Decision::Pass)) if !exchange => {
                    return Err(JointError::MustMove(seat));
                }
                (true, Some(Decision::Move(m)))
                    if exchange && !self.exchange_moves(seat).contains(m) =>
                {
                    return Err(JointError::NotAnExchange(seat));
                }
                (true, Some(Decision::Move(_))) if exchange => {}
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

    /// The captures `seat` may play in the exchange phase: legal moves
    /// (its king safe with the enemy standing still) onto its contested
    /// cells by pieces that have not moved in the phase; empty in the
    /// main phase.
    pub fn exchange_moves(&self, seat: Seat) -> Vec<crate::rules::moves::Move> {
        if self.phase() != Phase::Exchange || self.exchange().cells_of(seat).next().is_none() {
            return Vec::new();
        }
        let mut moves = self.legal_moves_of(seat);
        moves.retain(|m| self.is_exchange_capture(seat, m.from as usize, m.to as usize, m.kind));
        moves
    }

    fn is_exchange_capture(&self, seat: Seat, from: Cell, to: Cell, kind: MoveKind) -> bool {
        let ex = self.exchange();
        matches!(kind, MoveKind::Normal)
            && ex.cells_of(seat).any(|c| c == to)
            && !ex.has_moved(from)
            && self.piece_at(to) != EMPTY
    }

    /// Whether `seat` has a legal capture onto `cell` by a piece that has
    /// not moved in the exchange phase (`moved`).
    fn can_capture_on(&self, seat: Seat, cell: Cell, moved: &Exchange) -> bool {
        let target = self.piece_at(cell);
        if target == EMPTY || !self.variant().seating.may_capture(seat, piece_seat(target)) {
            return false;
        }
        let mut list = Vec::new();
        with_generator(self.variant(), |g| {
            g.generate_for(
                self,
                seat,
                crate::rules::movegen::GenType::Captures,
                &mut list,
            )
        });
        list.iter().any(|m| {
            m.to as usize == cell && m.kind == MoveKind::Normal && !moved.has_moved(m.from as usize)
        })
    }

    /// Resolves and plays a joint decision (undone by
    /// [`Position::unmake`]); on error nothing changes.
    ///
    /// Where the variant has synchronous chess's exchange phase, the step
    /// ends by opening an exchange on every cell where a piece landed
    /// (and stays) that an enemy seat attacked before the step — in the
    /// main phase — or where a piece captured in the exchange phase,
    /// for each enemy seat that can capture there now.
    pub fn make_joint(&mut self, joint: &JointDecision) -> Result<Resolution, JointError> {
        self.check_joint(joint)?;
        Ok(self.make_joint_listed(joint))
    }

    /// [`Position::make_joint`] without the check, for a joint decision
    /// taken from [`Position::joint_decisions`] or [`Position::seat_options`]
    /// of this position (the search and perft, which would otherwise
    /// generate every seat's moves a second time per child).
    pub fn make_joint_listed(&mut self, joint: &JointDecision) -> Resolution {
        let v = self.variant().clone();
        let board: Vec<Piece> = self.board().to_vec();
        let main = self.phase() == Phase::Main;
        // Departures and arrivals of every moving piece (at most two per
        // seat: castling moves a rook too), kept on the stack.
        let mut departures: ArrayVec<Cell, { 2 * MAX_SEATS }> = ArrayVec::new();
        let mut arrivals: ArrayVec<(Cell, Piece), { 2 * MAX_SEATS }> = ArrayVec::new();
        let mut moves: ArrayVec<_, MAX_SEATS> = ArrayVec::new();
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
        let mut targets: ArrayVec<Cell, { 2 * MAX_SEATS }> =
            arrivals.iter().map(|&(c, _)| c).collect();
        targets.sort_unstable();
        let mut kept = 0;
        for i in 0..targets.len() {
            if i == 0 || targets[i] != targets[kept - 1] {
                targets[kept] = targets[i];
                kept += 1;
            }
        }
        targets.truncate(kept);
        let mut out = self.out();
        for &cell in &targets {
            let landing: ArrayVec<Piece, { 2 * MAX_SEATS }> = arrivals
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
        let mut next = Exchange::default();
        if v.rules.exchange_phase && out.is_empty() {
            if !main {
                next.moved = self.exchange().moved.clone();
            }
            // The cells where a piece landed and still stands.
            let landed: Vec<(Cell, Piece)> = arrivals
                .iter()
                .filter(|&&(c, p)| self.piece_at(c) == p)
                .copied()
                .collect();
            for &(cell, _) in &landed {
                if !main && !next.moved.contains(&(cell as u16)) {
                    next.moved.push(cell as u16);
                }
            }
            for &(cell, p) in &landed {
                let owner = piece_seat(p);
                for q in v.seating.all().iter() {
                    if q == owner || !v.seating.may_capture(q, owner) {
                        continue;
                    }
                    // Main phase: "bereits vor diesem Zuggang von
                    // mindestens einer Figur des anderen Spielers
                    // angegriffen oder gedeckt" — attacked in the position
                    // before the turn.
                    let right = !main
                        || attacks::for_each_attacker(
                            &v,
                            cell,
                            &attacks::pawns_of(&v, SeatSet::single(q)),
                            |a| piece_seat(a) == q,
                            |c| board[c],
                            |_| std::ops::ControlFlow::Break(()),
                        )
                        .is_break();
                    if right
                        && next.open.len() < next.open.capacity()
                        && self.can_capture_on(q, cell, &next)
                    {
                        next.open.push((cell as u16, q));
                    }
                }
            }
        }
        if next.open.is_empty() {
            // The phase is over: no piece counts as moved in the next one.
            next.moved.clear();
        }
        // One order for equal states (texts and comparisons).
        next.open.sort_unstable();
        next.moved.sort_unstable();
        self.end_joint_step(irreversible, out, next);
        result
    }
}

/// One seat's choices in a simultaneous turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatOptions {
    /// The seat.
    pub seat: Seat,
    /// Its decisions: the legal moves in the main phase; a pass and the
    /// exchange captures in the exchange phase (a seat without a right
    /// has only the pass).
    pub decisions: Vec<Decision>,
}

impl Position {
    /// The choices of every seat in play in the current simultaneous turn,
    /// in seat order; empty when the turn is not simultaneous or the game
    /// is over by elimination. In the main phase a seat without a legal
    /// move has no choice (mated or stalemated: the game is over).
    pub fn seat_options(&self) -> Vec<SeatOptions> {
        let Turn::All(movers) = self.turn() else {
            return Vec::new();
        };
        if self.elimination_over() {
            return Vec::new();
        }
        let live = self.variant().seating.all().difference(self.out());
        match self.phase() {
            Phase::Main => movers
                .iter()
                .map(|seat| SeatOptions {
                    seat,
                    decisions: self
                        .legal_moves_of(seat)
                        .into_iter()
                        .map(Decision::Move)
                        .collect(),
                })
                .collect(),
            Phase::Exchange => live
                .iter()
                .map(|seat| {
                    let mut decisions = vec![Decision::Pass];
                    if movers.contains(seat) {
                        decisions.extend(self.exchange_moves(seat).into_iter().map(Decision::Move));
                    }
                    SeatOptions { seat, decisions }
                })
                .collect(),
        }
    }

    /// Whether at most one side is left in play.
    fn elimination_over(&self) -> bool {
        let v = self.variant();
        let live = v.seating.all().difference(self.out());
        let mut sides = live.iter().map(|s| v.seating.info(s).side);
        match sides.next() {
            None => true,
            Some(first) => sides.all(|s| s == first),
        }
    }

    /// Every joint decision of the current simultaneous turn (the product
    /// of the seats' options); empty when the game is over.
    pub fn joint_decisions(&self) -> Vec<JointDecision> {
        let options = self.seat_options();
        if options.is_empty() || options.iter().any(|o| o.decisions.is_empty()) {
            return Vec::new();
        }
        let seats = self.variant().seat_count();
        let mut all = vec![JointDecision::new(seats)];
        for o in &options {
            let mut next = Vec::with_capacity(all.len() * o.decisions.len());
            for j in &all {
                for &d in &o.decisions {
                    let mut j2 = j.clone();
                    j2.set(o.seat, d);
                    next.push(j2);
                }
            }
            all = next;
        }
        all
    }

    /// The number of joint decisions of the current turn.
    pub fn joint_decision_count(&self) -> u64 {
        let options = self.seat_options();
        if options.is_empty() {
            return 0;
        }
        options.iter().map(|o| o.decisions.len() as u64).product()
    }

    /// A position of `v` after `turns` joint decisions drawn with `rng`
    /// from the start, in a main phase with the game on (the openings of
    /// comparison matches, test positions); a line that ends the game or
    /// stops in an exchange phase is drawn again, at most 1,000 times.
    pub fn after_random_joint_decisions<R: rand::Rng + ?Sized>(
        v: &std::sync::Arc<crate::board::variant::Variant>,
        turns: usize,
        rng: &mut R,
    ) -> Option<Position> {
        use rand::RngExt;
        for _ in 0..1000 {
            let mut pos = Position::start(v);
            for _ in 0..turns {
                let all = pos.joint_decisions();
                if all.is_empty() {
                    break;
                }
                let joint = &all[rng.random_range(0..all.len())];
                pos.make_joint_listed(joint);
            }
            if pos.outcome().is_none() && pos.phase() == Phase::Main {
                return Some(pos);
            }
        }
        None
    }
}

/// Leaves of the joint-decision tree of depth `depth`: one ply is one
/// joint decision (a main-phase tuple of moves, or an exchange-phase tuple
/// of captures and passes); the last ply is counted without playing it.
pub fn joint_perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return pos.joint_decision_count();
    }
    let mut nodes = 0;
    for j in pos.joint_decisions() {
        pos.make_joint_listed(&j);
        nodes += joint_perft(pos, depth - 1);
        pos.unmake();
    }
    nodes
}
