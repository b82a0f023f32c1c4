//! "Can this move give check?" answered before the move is made.
//!
//! The search prunes a quiet move near the leaves (futility) unless it
//! gives check, and learned that by making the move, asking the attack
//! test on the opponent's king and unmaking it. On the large boards that
//! test walks every attack line of the king (80 in the 4-D diamond), and
//! most of the moves asked are far from the king. A quiet move of a game
//! of two alternating seats can give check only two ways, both visible
//! before it is made:
//! - the piece attacks the king from its new cell: by a slide, only from a
//!   cell on one of the king's attack lines; by a leap or a pawn's capture,
//!   only from a cell of the leap's or the capture's sources;
//! - it uncovers a slider: only by leaving a cell on one of the king's
//!   attack lines.
//!
//! A capture changes the board where a step does (its cell held a piece
//! before and holds one after), so the same answer holds for it, unless
//! it takes the king. (The opponent is not in check before the move: the
//! last mover never is, which every position checks when it is set up.)
//! Per cell, the cells of all its attack lines are one bitboard
//! ([`CheckLines`]), so the question is a few word reads; when it says
//! "maybe", the search makes the move and asks the attack test as
//! before. It answers "no check" only where the attack test would, so the
//! search's tree is unchanged (`tests/rules/fast_path.rs` checks the
//! answers against the made move on every board).

use crate::board::bitboard::{set, test, words_for};
use crate::board::piece::piece_kind;
use crate::board::variant::Variant;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::position::Position;

/// Per cell, the cells of every attack line from it (the rays along
/// which a slider attacks the cell), as bitboard words.
#[derive(Debug)]
pub struct CheckLines {
    words: usize,
    /// `[cell * words ..]`.
    lines: Vec<u64>,
    /// Per kind: whether it slides anywhere.
    slides: Vec<bool>,
}

impl CheckLines {
    /// The most memory the lines may take (the 5-D diamond's 3,872 cells
    /// take 1.9 MB; each question reads a few words of them).
    pub const BUDGET_BYTES: usize = 4 << 20;

    /// The lines of `v`, or `None` where the pre-test does not apply (other
    /// than two alternating seats, an exchange phase, multi-party rules)
    /// or the table would exceed [`CheckLines::BUDGET_BYTES`].
    pub fn new(v: &Variant) -> Option<CheckLines> {
        if !v.seating.is_alternating_pair()
            || v.rules.exchange_phase
            || v.rules.party.is_some()
            || v.kings_leave_with_army
        {
            return None;
        }
        let cells = v.geometry.cell_count();
        let words = words_for(cells);
        if cells * words * 8 > Self::BUDGET_BYTES {
            return None;
        }
        let mut lines = vec![0u64; cells * words];
        for cell in 0..cells {
            let row = &mut lines[cell * words..(cell + 1) * words];
            for &r in v.attack_rays.get(cell) {
                for &c in v.geometry.ray_cells(r) {
                    set(row, c as usize);
                }
            }
        }
        let slides = (0..v.kinds.len())
            .map(|k| (0..cells).any(|c| !v.slide_rays[k].get(c).is_empty()))
            .collect();
        Some(CheckLines {
            words,
            lines,
            slides,
        })
    }

    /// Whether the move `m` (a plain step, double step or capture) of the
    /// seat to move in `pos` certainly leaves the other seat's king
    /// unattacked: `false` means "maybe" (make the move and ask).
    /// Promotions, castling and every special move answer "maybe".
    #[inline]
    pub fn gives_no_check(&self, pos: &Position, m: &Move) -> bool {
        if !matches!(m.kind, MoveKind::Normal | MoveKind::DoubleStep) || m.promotion != 0 {
            return false;
        }
        let (from, to) = (m.from as usize, m.to as usize);
        let v = &**pos.variant();
        let us = pos.to_move();
        // Whose king the attack test asks about once the move is made.
        let them = v.seating.next_turn(pos.turn(), us, pos.out()).lead();
        let Some(king) = pos.royal_cell(them) else {
            // No king: nothing to check (the attack test says the same).
            return true;
        };
        // A capture changes the board only where a step does (`from`
        // empties, `to` holds the mover), unless it takes the king.
        if to == king {
            return false;
        }
        let line = &self.lines[king * self.words..(king + 1) * self.words];
        if test(line, from) {
            return false;
        }
        let kind = piece_kind(pos.piece_at(from));
        if self.slides[kind] && test(line, to) {
            return false;
        }
        if let Some(li) = v.kind_leap[kind]
            && v.leap_sources(li).get(king).contains(&(to as u16))
        {
            return false;
        }
        if v.is_pawn(kind)
            && v.pawn_tables[us][kind]
                .attackers
                .get(king)
                .contains(&(to as u16))
        {
            return false;
        }
        true
    }
}
