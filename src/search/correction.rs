//! Correction history: what the search learns about the static
//! evaluation's error, per pawn structure.
//!
//! The evaluation misjudges some structures the same way wherever they
//! occur (a blocked centre, a passer it does not see as free, a king
//! shelter it under-rates). After a node's search, the difference between
//! the value the search proved and the node's raw static evaluation is a
//! measurement of that error; averaged per (side to move, pawn
//! structure), it is added to the static evaluation of later nodes with
//! the same structure, so that the prunings that trust the static value
//! (reverse futility, null move, futility, stand pat, "improving") trust a
//! better one. The idea is Stockfish's and Berserk's "pawn correction
//! history"; the pawn structure is hashed from the pawn bitboards on the
//! fly, so the position keeps no second key and the move generator's
//! make/unmake stays as it was.

use crate::rules::position::Position;

/// Log2 of the slots per seat.
const BITS: u32 = 14;
/// Fixed-point scale of a slot (a slot holds centipawns × GRAIN).
const GRAIN: i32 = 256;
/// The largest correction, in centipawns.
const MAX_CORRECTION: i32 = 64;
/// Denominator of an update's weight (a weight is depth + 1, at most 17).
const WEIGHT_SCALE: i32 = 256;

/// The correction table of one search thread, for a two-seat variant.
#[derive(Debug)]
pub struct CorrectionHistory {
    /// `slots[seat << BITS | pawn hash]`, centipawns × [`GRAIN`].
    slots: Vec<i16>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory {
            slots: vec![0; 2 << BITS],
        }
    }
}

impl CorrectionHistory {
    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = 0);
    }

    /// The slot of the side to move's pawn structure in `pos` (both
    /// sides' pawns, kept apart; a board without pawns has one slot per
    /// side, which then learns the evaluation's overall bias).
    #[inline]
    pub fn slot(pos: &Position) -> usize {
        let v = pos.variant();
        let first = pos.seat_bits(crate::board::seating::Seat::FIRST);
        let mut h: u64 = 0x243F_6A88_85A3_08D3;
        let mut kinds = v.pawn_kinds;
        while kinds != 0 {
            let k = kinds.trailing_zeros() as usize;
            kinds &= kinds - 1;
            for (&w, &f) in pos.kind_bits(k).iter().zip(first) {
                h = (h ^ (w & f)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                h = (h ^ (w & !f)).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
            }
        }
        let seat = pos.to_move().index() & 1;
        (seat << BITS) | (h >> (64 - BITS)) as usize
    }

    /// The correction for slot `slot`, in centipawns.
    #[inline]
    pub fn get(&self, slot: usize) -> i32 {
        i32::from(self.slots[slot]) / GRAIN
    }

    /// Moves slot `slot` towards `error` (the searched value minus the raw
    /// static value, centipawns), the more the deeper the search was.
    pub fn update(&mut self, slot: usize, error: i32, depth: i32) {
        let target = error.clamp(-MAX_CORRECTION, MAX_CORRECTION) * GRAIN;
        let w = (depth + 1).clamp(1, 17);
        let s = i32::from(self.slots[slot]);
        let n = (s * (WEIGHT_SCALE - w) + target * w) / WEIGHT_SCALE;
        // Within ±MAX_CORRECTION × GRAIN = ±16,384: fits i16.
        self.slots[slot] = n.clamp(-MAX_CORRECTION * GRAIN, MAX_CORRECTION * GRAIN) as i16;
    }
}

#[cfg(test)]
mod tests {
    use super::CorrectionHistory;
    use crate::board::variant::Variant;
    use crate::rules::notation::text::position_from_text;
    use crate::rules::position::Position;

    /// The position after `moves` (coordinate notation) from chess's start.
    fn after(moves: &[&str]) -> Position {
        let v = Variant::from_spec("chess").unwrap();
        let mut p = Position::start(&v);
        for m in moves {
            let mv = p.parse_move(m).unwrap();
            p.make(mv);
        }
        p
    }

    #[test]
    fn the_slot_is_the_pawn_structure_and_the_side_to_move() {
        let slot = |m: &[&str]| CorrectionHistory::slot(&after(m));
        // Knight moves leave the pawns alone: the same slot...
        assert_eq!(slot(&["g1f3", "g8f6"]), slot(&["b1c3", "b8c6"]));
        assert_eq!(slot(&[]), slot(&["g1f3", "g8f6"]));
        // ...a pawn move does not, and neither does the other side to move.
        assert_ne!(slot(&["e2e4", "g8f6"]), slot(&["g1f3", "g8f6"]));
        assert_ne!(slot(&["g1f3"]), slot(&[]));
    }

    #[test]
    fn the_slot_tells_whose_pawn_stands_on_a_cell() {
        let v = Variant::from_spec("chess").unwrap();
        let slot = |fen: &str| {
            CorrectionHistory::slot(&position_from_text(&v, fen).expect("a legal position"))
        };
        // The same two cells hold pawns; only their owners are swapped.
        assert_ne!(
            slot("4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1"),
            slot("4k3/8/8/3P4/4p3/8/8/4K3 w - - 0 1")
        );
    }

    #[test]
    fn a_slot_converges_to_a_steady_error_and_stays_bounded() {
        let mut c = CorrectionHistory::default();
        for _ in 0..500 {
            c.update(3, 40, 10);
        }
        // A weighted average of a constant: the constant (less the
        // fixed-point rounding, which truncates towards zero).
        assert!((38..=40).contains(&c.get(3)), "{}", c.get(3));
        for _ in 0..500 {
            c.update(3, -10_000, 16);
        }
        // Driven to the bound, less the same rounding.
        assert!((-64..=-62).contains(&c.get(3)), "{}", c.get(3));
        assert_eq!(c.get(4), 0);
        c.clear();
        assert_eq!(c.get(3), 0);
    }
}
