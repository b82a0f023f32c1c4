//! Static exchange evaluation: the material a capture (or a move onto a
//! cell the enemy attacks) wins or loses when both sides go on taking on
//! that cell, each with its least valuable piece that may legally take and
//! each free to stop. The search orders captures and prunes moves by it.
//!
//! This is the definition, read off the board cell by cell through the
//! attack routine; the generator's bitboard backend answers the same
//! question set-wise ([`super::movegen::MoveGen::static_exchange`]), and
//! `tests/rules/fast_path.rs` checks that both agree on every move of
//! random games.

use std::ops::ControlFlow;

use arrayvec::ArrayVec;

use crate::board::geometry::Cell;
use crate::board::piece::{EMPTY, Piece, piece_kind, piece_seat};
use crate::board::seating::Seat;
use crate::rules::attacks;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::position::{Position, TableBoard};

/// A king's worth in an exchange: more than any material, so that a king
/// takes last and only where nothing can take it back.
pub const ROYAL_EXCHANGE_VALUE: i32 = 1 << 20;

/// The most cells an exchange empties (the moving piece's and the ones
/// of the pieces that took after it): the exchange stops there.
pub const MAX_EXCHANGE_CELLS: usize = 32;

/// The most attackers of one side an exchange step weighs.
pub const MAX_TAKERS: usize = 64;

/// Value of the piece `m` captures, by the material values `values` (one
/// per kind; 0 if `m` captures nothing).
#[inline]
pub fn captured_value(pos: &Position, values: &[i32], m: &Move) -> i32 {
    let cell = match m.kind {
        MoveKind::EnPassant => m.aux as usize,
        MoveKind::Castle | MoveKind::Null => return 0,
        _ => m.to as usize,
    };
    match pos.piece_at(cell) {
        EMPTY => 0,
        p => values[piece_kind(p)],
    }
}

/// The least [`static_exchange`] of `m` can end at: the victim less the
/// mover's worth in the exchange, as when the mover stops after the first
/// capture of its piece (each side is free to stop, so the mover never
/// ends below it). The search's exchange pruning asks the exchange only
/// where this floor lies below its threshold.
#[inline]
pub fn exchange_floor(pos: &Position, values: &[i32], m: &Move) -> i32 {
    captured_value(pos, values, m) - exchange_value(pos, values, pos.piece_at(m.from as usize))
}

/// A piece's worth in an exchange: its material value, or
/// [`ROYAL_EXCHANGE_VALUE`] for a royal piece.
#[inline]
pub fn exchange_value(pos: &Position, values: &[i32], p: Piece) -> i32 {
    let k = piece_kind(p);
    if pos.variant().kinds[k].royal {
        ROYAL_EXCHANGE_VALUE
    } else {
        values[k]
    }
}

/// The captures of an exchange so far: each one's gain (the first
/// capture's victim, then each taker's worth minus the gain before it)
/// and the worth of the piece on the target now.
pub struct Swaps {
    gain: ArrayVec<i32, MAX_EXCHANGE_CELLS>,
    on_target: i32,
}

impl Swaps {
    /// The exchange after the move `m` itself, by the values `values`.
    pub fn new(pos: &Position, values: &[i32], m: &Move) -> Swaps {
        let mut gain = ArrayVec::new();
        gain.push(captured_value(pos, values, m));
        Swaps {
            gain,
            on_target: exchange_value(pos, values, pos.piece_at(m.from as usize)),
        }
    }

    /// One more capture on the target, by a piece worth `taker` (at most
    /// [`MAX_EXCHANGE_CELLS`] captures in all, which the callers' cell
    /// budget guarantees).
    #[inline]
    pub fn take(&mut self, taker: i32) {
        let last = *self
            .gain
            .last()
            .expect("invariant: the first capture's gain is in");
        self.gain.push(self.on_target - last);
        self.on_target = taker;
    }

    /// Whether the exchange's gain is already known to lie below `t`
    /// (`Some(true)`) or at or above it (`Some(false)`), whatever captures
    /// are still to come; `None` while they could decide it.
    ///
    /// Why this is exact: were the exchange to stop now, the last capture's
    /// gain would stand; a side may always stop, and the next capture can
    /// win back at most the piece now on the target, so the last gain ends
    /// between itself less that piece and itself. [`Swaps::settle`]'s rule
    /// (each gain is the least of its own and the negated next) is
    /// monotone, so the two ends carried back to the first capture bound
    /// the gain [`Swaps::settle`] gives after any continuation.
    #[inline]
    pub fn settled_below(&self, t: i32) -> Option<bool> {
        let (&last, before) = self
            .gain
            .split_last()
            .expect("invariant: the first capture's gain is in");
        let (mut lo, mut hi) = (last - self.on_target.max(0), last);
        for &g in before.iter().rev() {
            (lo, hi) = (g.min(-hi), g.min(-lo));
        }
        if hi < t {
            Some(true)
        } else if lo >= t {
            Some(false)
        } else {
            None
        }
    }

    /// Whether the exchange's gain lies below `t`: [`Swaps::settled_below`]
    /// where the captures so far decide it, else the settled gain.
    #[inline]
    pub fn below(self, t: i32) -> bool {
        match self.settled_below(t) {
            Some(below) => below,
            None => self.settle() < t,
        }
    }

    /// The exchange's gain: each side stops where going on would lose
    /// more.
    pub fn settle(mut self) -> i32 {
        let gain = &mut self.gain;
        while gain.len() > 1 {
            let g = gain.pop().expect("invariant: more than one gain");
            let before = gain.last_mut().expect("invariant: one gain left");
            *before = -(-*before).max(g);
        }
        gain[0]
    }
}

/// Static exchange evaluation of the move `m` between two seats, by the
/// material values `values`: the material the mover gains when both sides
/// go on capturing on the target cell with their least valuable attacker
/// (ties: the lower cell first) that may legally take, each free to stop
/// (a piece behind another along a ray joins when the one in front has
/// taken; a piece pinned to its king does not take). `None` with other
/// than two seats.
pub fn static_exchange(pos: &Position, values: &[i32], m: &Move) -> Option<i32> {
    exchange(pos, values, m, None).map(Swaps::settle)
}

/// Whether [`static_exchange`] of `m` lies below `t` (`None` with other
/// than two seats): the same exchange, stopped as soon as the captures so
/// far decide the answer ([`Swaps::settled_below`]), which spares the
/// search of the next takers (always the last step's, which finds none).
/// The search's prunings and orderings ask only this.
pub fn exchange_below(pos: &Position, values: &[i32], m: &Move, t: i32) -> Option<bool> {
    exchange(pos, values, m, Some(t)).map(|s| s.below(t))
}

/// The captures of the exchange of `m`, all of them, or (with a
/// threshold `t`) up to the first that decides whether the gain lies below
/// `t`.
fn exchange(pos: &Position, values: &[i32], m: &Move, t: Option<i32>) -> Option<Swaps> {
    let v = pos.variant();
    if v.seat_count() != 2 {
        return None;
    }
    let to = m.to as usize;
    let from = m.from as usize;
    let moving = pos.piece_at(from);
    // Cells whose pieces have taken (empty from then on).
    let mut gone: ArrayVec<Cell, MAX_EXCHANGE_CELLS> = ArrayVec::new();
    gone.push(from);
    if m.kind == MoveKind::EnPassant {
        gone.push(m.aux as usize);
    }
    let mut swaps = Swaps::new(pos, values, m);
    let mut side = Seat::new(1 - piece_seat(moving).index());
    while !gone.is_full() {
        if t.is_some_and(|t| swaps.settled_below(t).is_some()) {
            break;
        }
        // The side's pieces attacking the target, least valuable first.
        let mut takers: ArrayVec<(i32, Cell), MAX_TAKERS> = ArrayVec::new();
        let other = Seat::new(1 - side.index());
        // The attack routine reads only cells of the variant's tables.
        let cells = TableBoard::of(pos);
        let board = |c: Cell| {
            if gone.contains(&c) {
                EMPTY
            } else {
                cells.at(c)
            }
        };
        let _ = attacks::for_each_attacker(
            v,
            to,
            &v.checking_pawns[other],
            |p| piece_seat(p) == side,
            board,
            |c| {
                let x = exchange_value(pos, values, pos.piece_at(c));
                if takers.try_push((x, c)).is_err() {
                    return ControlFlow::Break(());
                }
                ControlFlow::Continue(())
            },
        );
        takers.sort_unstable();
        // The first that may take: no piece but the king itself may leave
        // its king attacked (a king's own taking is weighed by the swap
        // below: it is the last, as nothing must take it back).
        let king = pos.royal_cell(side);
        let Some(&(x, c)) = takers.iter().find(|&&(x, c)| {
            let Some(k) = king.filter(|_| x != ROYAL_EXCHANGE_VALUE) else {
                return true;
            };
            let taker = pos.piece_at(c);
            !attacks::attacked_by_checkers(v, k, side, |y| {
                if y == c {
                    EMPTY
                } else if y == to {
                    taker
                } else {
                    board(y)
                }
            })
        }) else {
            break;
        };
        swaps.take(x);
        gone.push(c);
        side = other;
    }
    Some(swaps)
}
