//! Game-theoretic scores: the search owns the order mate > stalemate win
//! (the cube's ¾ point) > any material.
//!
//! Internally a score is an `i32` from the point of view of the player to
//! move, in three bands:
//! - `|v| <= EVAL_LIMIT` (100,000): material and position, centipawn-like;
//! - `STALEMATE_WIN_BOUND < |v| <= STALEMATE_WIN` (200,000): the
//!   stalemated side loses (Schach hoch 3): `200,000 − 256·m − plies`, where
//!   `m` counts the winner's pieces missing from 15 when the stalemate
//!   falls. Among stalemate wins the search prefers the one that keeps the
//!   most material (and so the best chance of the full point by mate), then
//!   the quickest: it never gives away a piece for a quicker ¾ point;
//! - `MATE - MAX_PLY < |v| <= MATE` (300,000): checkmate, `300,000 − plies`.
//!
//! [`Score`] is the public form, counted in moves like UCI's `mate`.

use std::fmt;

use crate::eval::EVAL_LIMIT;

/// Deepest ply the search reaches (also bounds the score bands).
pub const MAX_PLY: usize = 128;
/// Larger than every score.
pub const INFINITE: i32 = 400_000;
/// Mate at the root (mate in 0 plies).
pub const MATE: i32 = 300_000;
/// Scores above this are mates.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Stalemate win at the root.
pub const STALEMATE_WIN: i32 = 200_000;
/// Width of one material step inside the stalemate-win band.
pub const STALEMATE_STEP: i32 = 256;
/// Pieces of the winner counted in the stalemate-win band.
pub const STALEMATE_PIECES: u32 = 15;
/// Scores above this (and below [`MATE_BOUND`]) are stalemate wins.
pub const STALEMATE_WIN_BOUND: i32 = STALEMATE_WIN - STALEMATE_STEP * (STALEMATE_PIECES as i32 + 1);
/// A draw.
pub const DRAW: i32 = 0;

const _: () = assert!(EVAL_LIMIT < STALEMATE_WIN_BOUND && STALEMATE_WIN < MATE_BOUND);

/// Score of being mated `ply` plies from the root.
#[inline]
pub fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// Score of being stalemated (and so losing) `ply` plies from the root,
/// the winner having `winner_pieces` pieces besides its king.
#[inline]
pub fn stalemated_in(ply: usize, winner_pieces: u32) -> i32 {
    let missing = STALEMATE_PIECES - winner_pieces.min(STALEMATE_PIECES);
    -STALEMATE_WIN + STALEMATE_STEP * missing as i32 + ply as i32
}

/// Whether `v` is a mate or stalemate-win score (a proven result).
#[inline]
pub fn is_decisive(v: i32) -> bool {
    v.abs() > STALEMATE_WIN_BOUND
}

/// Converts a score found `ply` plies from the root to one relative to the
/// node itself, for the transposition table.
#[inline]
pub fn to_tt(v: i32, ply: usize) -> i32 {
    if v > STALEMATE_WIN_BOUND {
        v + ply as i32
    } else if v < -STALEMATE_WIN_BOUND {
        v - ply as i32
    } else {
        v
    }
}

/// The inverse of [`to_tt`].
#[inline]
pub fn from_tt(v: i32, ply: usize) -> i32 {
    if v > STALEMATE_WIN_BOUND {
        v - ply as i32
    } else if v < -STALEMATE_WIN_BOUND {
        v + ply as i32
    } else {
        v
    }
}

/// A score for reporting, from the point of view of the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (the evaluation's unit: a pawn of classical chess is 100).
    Cp(i32),
    /// Mate in `n` moves: `n > 0` the player to move mates, `n < 0` it is
    /// mated after `-n` moves of its own; `0` it is mated now.
    Mate(i32),
    /// The opponent is stalemated in `n` moves, which wins (¾–¼) in the
    /// cube: `n > 0` the player to move wins that way, `n < 0` it is
    /// stalemated after `-n` of its moves; `0` it is stalemated now.
    StalemateWin(i32),
}

impl Score {
    /// The public form of an internal score.
    pub fn from_internal(v: i32) -> Score {
        if v > MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v < -MATE_BOUND {
            Score::Mate(-(MATE + v) / 2)
        } else if v > STALEMATE_WIN_BOUND {
            Score::StalemateWin(((STALEMATE_WIN - v) % STALEMATE_STEP + 1) / 2)
        } else if v < -STALEMATE_WIN_BOUND {
            Score::StalemateWin(-((STALEMATE_WIN + v) % STALEMATE_STEP) / 2)
        } else {
            Score::Cp(v)
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Score::Cp(v) => write!(f, "{:+.2}", v as f64 / 100.0),
            Score::Mate(n) if n > 0 => write!(f, "mate in {n}"),
            Score::Mate(n) => write!(f, "mated in {}", -n),
            Score::StalemateWin(n) if n > 0 => write!(f, "stalemate win in {n}"),
            Score::StalemateWin(n) => write!(f, "stalemated in {}", -n),
        }
    }
}

/// What a score says about the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true value is at least the score (a fail high).
    Lower,
    /// The true value is at most the score (a fail low).
    Upper,
    /// The true value.
    Exact,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_convert_to_moves() {
        // Mating with the first move: 1 ply.
        assert_eq!(Score::from_internal(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_internal(MATE - 3), Score::Mate(2));
        assert_eq!(Score::from_internal(mated_in(0)), Score::Mate(0));
        assert_eq!(Score::from_internal(mated_in(2)), Score::Mate(-1));
        assert_eq!(
            Score::from_internal(STALEMATE_WIN - 5),
            Score::StalemateWin(3)
        );
        assert_eq!(
            Score::from_internal(stalemated_in(4, 15)),
            Score::StalemateWin(-2)
        );
        assert_eq!(
            Score::from_internal(stalemated_in(4, 1)),
            Score::StalemateWin(-2)
        );
        // More material left for the winner is better for it.
        assert!(stalemated_in(9, 3) < stalemated_in(3, 2));
        assert!(-stalemated_in(9, 1) < MATE_BOUND && -stalemated_in(9, 0) > STALEMATE_WIN_BOUND);
        assert_eq!(Score::from_internal(123), Score::Cp(123));
    }

    #[test]
    fn tt_round_trip() {
        for v in [
            MATE - 7,
            -(MATE - 9),
            STALEMATE_WIN - 3,
            -(STALEMATE_WIN - 4),
            55,
            -70,
        ] {
            assert_eq!(from_tt(to_tt(v, 5), 5), v);
        }
        assert_eq!(to_tt(MATE - 7, 5), MATE - 2);
    }
}
