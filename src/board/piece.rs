//! Pieces: the one-byte code of a piece on a cell, and piece kinds
//! described by their movement atoms (RULES §1): leaps, slides along
//! direction classes, pawn steps in the owner's frame.

use super::geometry::Geometry;
use super::seating::{MAX_SEATS, Seat};

/// Largest number of piece kinds a variant may have.
pub const MAX_KINDS: usize = 16;

/// A piece on a cell: 0 is empty, otherwise `1 + seat * 16 + kind`.
pub type Piece = u8;
/// The empty cell.
pub const EMPTY: Piece = 0;

const _: () = assert!(MAX_SEATS * MAX_KINDS <= 255);

/// Encodes a piece.
#[inline(always)]
pub const fn piece(seat: Seat, kind: usize) -> Piece {
    (1 + seat.index() * MAX_KINDS + kind) as Piece
}

/// Owner of a (non-empty) piece.
#[inline(always)]
pub const fn piece_seat(p: Piece) -> Seat {
    // A piece code is `1 + seat * MAX_KINDS + kind` with the seat below
    // MAX_SEATS ([`piece`] asks `Seat`'s range of its seat), so the
    // decoded seat is in range.
    Seat::new_in_range((p as usize - 1) / MAX_KINDS)
}

/// Whether `p` is a piece of `seat` (never for [`EMPTY`]): one
/// subtraction and one comparison, for the evaluation's attack walks,
/// which ask it for every cell they visit and would otherwise decode the
/// seat (a division and the seat's range check) first.
#[inline(always)]
pub const fn is_piece_of(p: Piece, seat: Seat) -> bool {
    (p as usize).wrapping_sub(1 + seat.index() * MAX_KINDS) < MAX_KINDS
}

/// Kind of a (non-empty) piece.
#[inline(always)]
pub const fn piece_kind(p: Piece) -> usize {
    (p as usize - 1) % MAX_KINDS
}

/// Marker for "no cell" in `u16` tables.
pub const NO_CELL: u16 = u16::MAX;

/// Pawn movement in the owner's frame: axis 0 is the owner's forward axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PawnRule {
    /// Non-capturing steps (each may be doubled from a start cell).
    pub pushes: Vec<Vec<i32>>,
    /// Capturing steps.
    pub captures: Vec<Vec<i32>>,
    /// Whether a pawn on its start cell may make two pushes at once.
    pub double_step: bool,
}

/// A piece kind, described by its movement atoms (RULES §1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceKind {
    /// English name.
    pub name: String,
    /// Upper-case letter used in position texts and promotions.
    pub letter: char,
    /// A royal piece may not be left attacked (the king).
    pub royal: bool,
    /// Whether this kind castles with the king (the rook).
    pub castles: bool,
    /// Directions (indices into the geometry's directions) it slides along.
    pub slides: Vec<usize>,
    /// The leaps and single steps it makes, as offsets on the board.
    pub leaps: Vec<Vec<i32>>,
    /// Its pawn rule, if it is a pawn.
    pub pawn: Option<PawnRule>,
}

impl PieceKind {
    /// A kind that does not move yet: add its atoms.
    pub fn new(name: &str, letter: char) -> PieceKind {
        PieceKind {
            name: name.into(),
            letter,
            royal: false,
            castles: false,
            slides: Vec::new(),
            leaps: Vec::new(),
            pawn: None,
        }
    }
}

/// Offsets of the knight: ±2 along one axis, ±1 along another.
pub fn knight_offsets(n: usize) -> Vec<Vec<i32>> {
    let mut v = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if a == b {
                continue;
            }
            for sa in [-2, 2] {
                for sb in [-1, 1] {
                    let mut o = vec![0; n];
                    o[a] = sa;
                    o[b] = sb;
                    v.push(o);
                }
            }
        }
    }
    v
}

/// Unit-step offsets changing between `lo` and `hi` coordinates.
pub fn step_offsets(g: &Geometry, lo: usize, hi: usize) -> Vec<Vec<i32>> {
    (0..g.directions().len())
        .filter(|&d| (lo..=hi).contains(&g.direction_dims(d)))
        .map(|d| g.directions()[d].clone())
        .collect()
}

/// Directions changing exactly `k` coordinates (k = 0: all).
pub fn slide_dirs(g: &Geometry, k: usize) -> Vec<usize> {
    (0..g.directions().len())
        .filter(|&d| k == 0 || g.direction_dims(d) == k)
        .collect()
}

/// The pawn of torus chess that runs the other way (`U`): the theory pawn
/// with axis 0 reversed, in its owner's frame.
pub fn reverse_theory_pawn(n: usize) -> PawnRule {
    let mut rule = theory_pawn(n);
    for v in rule.pushes.iter_mut().chain(rule.captures.iter_mut()) {
        v[0] = -v[0];
    }
    rule
}

/// The classical pawn of T4.1 in its owner's frame: one push along axis 0,
/// captures `axis0 ± one other axis`, a double step from the start cell.
pub fn theory_pawn(n: usize) -> PawnRule {
    let mut push = vec![0; n];
    push[0] = 1;
    let mut captures = Vec::new();
    for axis in 1..n {
        for s in [-1, 1] {
            let mut c = vec![0; n];
            c[0] = 1;
            c[axis] = s;
            captures.push(c);
        }
    }
    PawnRule {
        pushes: vec![push],
        captures,
        double_step: true,
    }
}

/// Letters of the k-D bishops L² … L⁷.
pub const BISHOP_LETTERS: [char; 6] = ['B', 'W', 'G', 'X', 'Y', 'Z'];

#[cfg(test)]
mod tests {
    use super::*;

    /// `is_piece_of` answers as decoding the seat does, for every piece
    /// and for the empty cell.
    #[test]
    fn is_piece_of_agrees_with_the_decoded_seat() {
        for s in 0..MAX_SEATS {
            let seat = Seat::new(s);
            assert!(!is_piece_of(EMPTY, seat));
            for owner in 0..MAX_SEATS {
                for kind in 0..MAX_KINDS {
                    let p = piece(Seat::new(owner), kind);
                    assert_eq!(
                        is_piece_of(p, seat),
                        piece_seat(p) == seat,
                        "{owner} {kind} {s}"
                    );
                }
            }
        }
    }
}
