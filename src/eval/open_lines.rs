//! Open lines on any board: a slider on a line no own pawn blocks.
//!
//! The classical rook on an open file is a piece whose slides run along
//! the line the pawns move on, with no pawn on it: nothing of its own
//! side will ever stand in its way there, and the enemy's pawns give it
//! targets or nothing to stop it. Here a piece's *pawn lines* are its
//! slides, on the empty board, in the directions a pawn of any seat
//! pushes or is pushed back along (the first cell of the ray is a push
//! of the piece's cell or the cell a push comes from); on the 8x8 board
//! these are the rook's and the queen's file (a test checks every cell),
//! in the cube the rook's ranks and levels. A line without own pawns is
//! *half-open*, without any pawn *open*.

use crate::board::variant::Variant;

/// The pawn lines of every kind: per kind, per cell, the bitboard words
/// of the cells its slides along pawn pushes reach on the empty board.
#[derive(Clone, Debug, Default)]
pub(super) struct OpenLines {
    /// Per kind: per cell its words (empty for kinds without such slides,
    /// pawns and royal kinds).
    lines: Vec<Vec<u64>>,
    /// Words per cell.
    words: usize,
}

impl OpenLines {
    /// The pawn lines of `v`'s pieces, or `None` when no piece slides
    /// along a pawn's line (or the masks would pass `max_words`).
    pub(super) fn of(v: &Variant, max_words: usize) -> Option<OpenLines> {
        let g = &v.geometry;
        let cells = g.cell_count();
        let words = cells.div_ceil(64);
        if cells * words * v.kinds.len() > max_words {
            return None;
        }
        // Whether a pawn of some seat pushes from `a` to `b` (one step).
        let pushes = |a: usize, b: usize| {
            v.seating.seats().any(|s| {
                v.kinds.iter().enumerate().any(|(k, kind)| {
                    kind.pawn.is_some()
                        && v.pawn_tables[s][k]
                            .pushes
                            .get(a)
                            .chunks_exact(2)
                            .any(|pair| pair[0] as usize == b)
                })
            })
        };
        let mut any = false;
        let lines = v
            .kinds
            .iter()
            .enumerate()
            .map(|(kind, k)| {
                if k.pawn.is_some() || k.royal {
                    return Vec::new();
                }
                let mut masks = vec![0u64; cells * words];
                let mut found = false;
                for c in 0..cells {
                    for &r in v.slide_rays[kind].get(c) {
                        let ray = g.ray_cells(r);
                        let Some(&first) = ray.first() else {
                            continue;
                        };
                        if !pushes(c, first as usize) && !pushes(first as usize, c) {
                            continue;
                        }
                        found = true;
                        for &x in ray {
                            masks[c * words + x as usize / 64] |= 1 << (x % 64);
                        }
                    }
                }
                any |= found;
                if found { masks } else { Vec::new() }
            })
            .collect();
        any.then_some(OpenLines { lines, words })
    }

    /// The pawn lines of a piece of `kind` on `cell`, if its kind has any.
    #[inline]
    pub(super) fn line(&self, kind: usize, cell: usize) -> Option<&[u64]> {
        let m = &self.lines[kind];
        (!m.is_empty()).then(|| &m[cell * self.words..(cell + 1) * self.words])
    }

    /// [`OpenLines::line`] on a board of one word: the line's word (0 for
    /// a kind without lines).
    #[inline(always)]
    pub(super) fn line_word(&self, kind: usize, cell: usize) -> u64 {
        debug_assert_eq!(self.words, 1, "a board of more than one word");
        self.lines[kind].get(cell).copied().unwrap_or(0)
    }

    /// Whether `kind` slides along pawn lines.
    #[inline]
    pub(super) fn has(&self, kind: usize) -> bool {
        !self.lines[kind].is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On the 8x8 board the rook's and the queen's pawn lines are their
    /// file (up and down from the cell), the other pieces have none.
    #[test]
    fn the_8x8_board_s_pawn_lines_are_the_files() {
        let v = Variant::from_spec("chess").unwrap();
        let g = &v.geometry;
        let o = OpenLines::of(&v, 1 << 20).unwrap();
        for letter in ['R', 'Q'] {
            let kind = v.kind_by_letter(letter).unwrap();
            assert!(o.has(kind));
            for c in 0..64 {
                let line = o.line(kind, c).unwrap()[0];
                for x in 0..64 {
                    let file = g.coord(x, 1) == g.coord(c, 1) && x != c;
                    assert_eq!(line >> x & 1 == 1, file, "{letter} {c} {x}");
                }
            }
        }
        for letter in ['N', 'B', 'K', 'P'] {
            let kind = v.kind_by_letter(letter).unwrap();
            assert!(!o.has(kind), "{letter}");
        }
    }
}
