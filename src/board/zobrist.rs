//! Zobrist keys: the hash of a position is the XOR of one key per piece on
//! a cell, per castling right, per en-passant target, and the keys of the
//! turn state (who decides, in which phase, who is out).

use super::geometry::Cell;
use super::piece::{MAX_KINDS, Piece};
use super::seating::{Phase, Seat, SeatSet, Turn};

/// Zobrist keys of a variant.
#[derive(Clone, Debug)]
pub struct Zobrist {
    pieces: Vec<u64>,
    codes: usize,
    /// Per seat: the seat is (one of) the seat(s) to move.
    side: Vec<u64>,
    /// Per cell: a castling right of the rook on it.
    pub castle: Vec<u64>,
    /// Per cell: the en-passant target.
    pub ep: Vec<u64>,
    /// Per seat: the seat is out of play.
    out: Vec<u64>,
    /// The turn is simultaneous.
    simultaneous: u64,
    /// The turn is in its exchange phase.
    exchange: u64,
}

impl Zobrist {
    /// Keys for a board of `cells` cells and `seats` seats.
    pub fn new(cells: usize, seats: usize) -> Zobrist {
        // SplitMix64: deterministic keys, so hashes (and `bench` signatures)
        // are the same on every run and machine. Keys added later are drawn
        // after the older ones, so that existing hashes stay as they were.
        let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ (cells as u64) << 8 ^ seats as u64;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let codes = seats * MAX_KINDS;
        Zobrist {
            pieces: (0..cells * codes).map(|_| next()).collect(),
            codes,
            side: (0..seats).map(|_| next()).collect(),
            castle: (0..cells).map(|_| next()).collect(),
            ep: (0..cells).map(|_| next()).collect(),
            out: (0..seats).map(|_| next()).collect(),
            simultaneous: next(),
            exchange: next(),
        }
    }

    /// Key of piece `p` on `cell`.
    #[inline(always)]
    pub fn piece(&self, cell: Cell, p: Piece) -> u64 {
        self.pieces[cell * self.codes + p as usize - 1]
    }

    /// Key of `seat` being the seat to move.
    #[inline(always)]
    pub fn to_move(&self, seat: Seat) -> u64 {
        self.side[seat.index()]
    }

    /// Key of a turn: its movers, and whether they decide together.
    #[inline]
    pub fn turn(&self, turn: Turn) -> u64 {
        match turn {
            Turn::One(s) => self.side[s.index()],
            Turn::AnyOf(set) => self.seats(&self.side, set),
            Turn::All(set) => self.seats(&self.side, set) ^ self.simultaneous,
        }
    }

    /// Key of the seats that are out.
    #[inline]
    pub fn out(&self, set: SeatSet) -> u64 {
        self.seats(&self.out, set)
    }

    /// Key of a phase.
    #[inline]
    pub fn phase(&self, phase: Phase) -> u64 {
        match phase {
            Phase::Main => 0,
            Phase::Exchange => self.exchange,
        }
    }

    fn seats(&self, keys: &[u64], set: SeatSet) -> u64 {
        set.iter().fold(0, |h, s| h ^ keys[s.index()])
    }
}
