//! Pawn structure on any board: doubled and isolated pawns.
//!
//! The classical notions speak of files, which only the 8x8 board has. A
//! pawn's *file* here is what its pushes make of the board: every cell its
//! pushes reach from where it stands (its way ahead: a cone where pawns
//! have several forward directions, as in the cube) and every cell from
//! which pushes reach it. A pawn is *doubled* when another own pawn of its
//! kind stands on its way ahead (the rear pawn of the pair pays: it cannot
//! pass the front one). A pawn is *isolated* when no own pawn of its kind
//! stands on a neighbouring file: the files of the cells from which an own
//! pawn would attack a cell of its file, its own file left out. On the 8x8
//! board these are the classical doubled and isolated pawns (a test
//! compares every cell).

use crate::board::geometry::CellTable;
use crate::board::piece::NO_CELL;
use crate::board::variant::Variant;

/// The masks of one pawn kind of one seat: per cell its bitboard words.
#[derive(Clone, Debug, Default)]
pub(super) struct PawnFiles {
    /// Per cell: the cells its pushes reach (the cell itself left out).
    pub(super) ahead: Vec<u64>,
    /// Per cell: the cells of its neighbouring files.
    pub(super) neighbours: Vec<u64>,
}

impl PawnFiles {
    /// The masks of `kind`'s pawns of `seat` on `v`'s board, or `None` for
    /// a kind that is no pawn.
    pub(super) fn of(v: &Variant, seat: usize, kind: usize) -> Option<PawnFiles> {
        v.kinds[kind].pawn.as_ref()?;
        let cells = v.geometry.cell_count();
        let words = cells.div_ceil(64);
        let table = &v.pawn_tables[crate::board::seating::Seat::new(seat)][kind];
        // The way ahead of every cell (closure of the pushes).
        let mut ahead = vec![0u64; cells * words];
        let mut seen = vec![false; cells];
        let mut stack = Vec::new();
        for c in 0..cells {
            mark_way_ahead(&table.pushes, c, &mut seen, &mut stack);
            let mask = &mut ahead[c * words..(c + 1) * words];
            for x in (0..cells).filter(|&x| seen[x] && x != c) {
                mask[x / 64] |= 1 << (x % 64);
            }
        }
        // Files: the way ahead, the cells whose way ahead holds the cell,
        // and the cell.
        let mut files = ahead.clone();
        for x in 0..cells {
            files[x * words + x / 64] |= 1 << (x % 64);
            for_each_cell(&ahead[x * words..(x + 1) * words], |c| {
                files[c * words + x / 64] |= 1 << (x % 64);
            });
        }
        let mut neighbours = vec![0u64; cells * words];
        let mut union = vec![0u64; words];
        for c in 0..cells {
            union.iter_mut().for_each(|w| *w = 0);
            let file = &files[c * words..(c + 1) * words];
            for_each_cell(file, |x| {
                for &a in table.attackers.get(x) {
                    let a = a as usize;
                    for (u, f) in union.iter_mut().zip(&files[a * words..(a + 1) * words]) {
                        *u |= f;
                    }
                }
            });
            for (n, (u, f)) in neighbours[c * words..(c + 1) * words]
                .iter_mut()
                .zip(union.iter().zip(file))
            {
                *n = u & !f;
            }
        }
        Some(PawnFiles { ahead, neighbours })
    }

    /// Whether a pawn on `cell` is doubled, given the own pawns of its
    /// kind (`own`, bitboard words).
    #[inline]
    pub(super) fn doubled(&self, cell: usize, own: &[u64]) -> bool {
        let w = own.len();
        meets(&self.ahead[cell * w..(cell + 1) * w], own)
    }

    /// Whether a pawn on `cell` is isolated, given the own pawns of its
    /// kind (`own`, bitboard words).
    #[inline]
    pub(super) fn isolated(&self, cell: usize, own: &[u64]) -> bool {
        let w = own.len();
        !meets(&self.neighbours[cell * w..(cell + 1) * w], own)
    }
}

/// Marks in `seen` (cleared first) every cell the pushes `pushes` reach
/// from `cell` in one or more steps: a pawn's way ahead (`stack` is
/// scratch).
pub(super) fn mark_way_ahead(
    pushes: &CellTable,
    cell: usize,
    seen: &mut [bool],
    stack: &mut Vec<usize>,
) {
    seen.iter_mut().for_each(|x| *x = false);
    stack.clear();
    stack.push(cell);
    while let Some(x) = stack.pop() {
        for &t in pushes.get(x) {
            if t != NO_CELL && !seen[t as usize] {
                seen[t as usize] = true;
                stack.push(t as usize);
            }
        }
    }
}

/// Calls `f` with every cell of the set `words`.
pub(super) fn for_each_cell(words: &[u64], mut f: impl FnMut(usize)) {
    for (w, &word) in words.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            f(w * 64 + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
    }
}

/// Whether two sets of bitboard words share a cell.
#[inline]
pub(super) fn meets(a: &[u64], b: &[u64]) -> bool {
    a.iter().zip(b).any(|(x, y)| x & y != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On the 8x8 board: doubled is an own pawn further up the same file,
    /// isolated is no own pawn on an adjacent file, for every cell of the
    /// ranks pawns stand on (written per coordinates: coordinate 0 is the
    /// rank, 1 the file).
    #[test]
    fn the_8x8_board_has_the_classical_files() {
        let v = Variant::from_spec("chess").unwrap();
        let g = &v.geometry;
        let pawn = v.kind_by_letter('P').unwrap();
        for (seat, up) in [(0usize, 1i32), (1, -1)] {
            let f = PawnFiles::of(&v, seat, pawn).unwrap();
            for c in (0..64).filter(|&c| (1..7).contains(&g.coord(c, 0))) {
                let (rank, file) = (g.coord(c, 0), g.coord(c, 1));
                for x in (0..64).filter(|&x| (1..7).contains(&g.coord(x, 0))) {
                    let (xr, xf) = (g.coord(x, 0), g.coord(x, 1));
                    let own = [1u64 << x];
                    let ahead = xf == file && (xr - rank) * up > 0;
                    assert_eq!(f.doubled(c, &own), ahead, "seat {seat} {c} {x}");
                    let beside = (xf - file).abs() == 1;
                    assert_eq!(!f.isolated(c, &own), beside, "seat {seat} {c} {x}");
                }
            }
        }
        let knight = v.kind_by_letter('N').unwrap();
        assert!(PawnFiles::of(&v, 0, knight).is_none());
    }
}
