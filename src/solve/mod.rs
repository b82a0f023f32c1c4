//! Puzzle solvers on every board (seed 000 Part IV, seed 002): the boards
//! they run on, and the problems — non-attacking placements (T19) and
//! knight's tours (T20).
//!
//! A solver sees a board as cells and, per piece kind, the cells a piece
//! attacks from each cell on the empty board, asked of the one attack
//! routine (`rules::attacks`), so every board of the engine (and the plain
//! `board:WxH` rectangles) is a board for every solver.

pub mod coverage;
pub mod magic_tour;
pub mod mate;
mod pattern_search;
pub mod placement;
pub mod progress;
pub mod symmetry;
pub mod tour;

use std::fmt;
use std::sync::Arc;

use crate::board::families::chess::rectangle;
use crate::board::piece::{EMPTY, piece};
use crate::board::registry;
use crate::board::seating::Seat;
use crate::board::variant::Variant;
use crate::rules::attacks;
use crate::rules::notation::text::layout;

/// Why a problem cannot be solved as asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolveError {
    /// The board spec names no board.
    Board(String),
    /// The board has no piece with this letter.
    Piece(char),
    /// A parameter is out of range.
    Parameter(String),
    /// The problem is beyond what an exhaustive run can finish; the
    /// estimate says why.
    OutOfReach(String),
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::Board(s) => write!(f, "board: {s}"),
            SolveError::Piece(c) => write!(f, "the board has no piece '{c}'"),
            SolveError::Parameter(s) => write!(f, "{s}"),
            SolveError::OutOfReach(s) => write!(f, "out of reach: {s}"),
        }
    }
}

impl std::error::Error for SolveError {}

/// A board for the solvers: the variant (for its geometry, cell names and
/// pieces) and the empty-board attack lists.
#[derive(Clone, Debug)]
pub struct Board {
    /// The variant whose board this is.
    pub variant: Arc<Variant>,
}

/// The largest rectangle `board:WxH` takes (per side).
pub const MAX_SIDE: usize = 26;

impl Board {
    /// `board:WxH` (a plain rectangle, W and H from 1 to 26) or any
    /// variant spec of the engine.
    pub fn from_spec(spec: &str) -> Result<Board, SolveError> {
        let spec = spec.trim();
        let variant = if let Some(size) = spec.strip_prefix("board:") {
            let (w, h) = size
                .split_once(['x', 'X'])
                .and_then(|(w, h)| {
                    Some((
                        w.trim().parse::<usize>().ok()?,
                        h.trim().parse::<usize>().ok()?,
                    ))
                })
                .ok_or_else(|| {
                    SolveError::Board(format!("'{spec}': expected board:WxH, e.g. board:5x5"))
                })?;
            if !(1..=MAX_SIDE).contains(&w) || !(1..=MAX_SIDE).contains(&h) {
                return Err(SolveError::Board(format!(
                    "'{spec}': sides from 1 to {MAX_SIDE}"
                )));
            }
            let def = rectangle(w, h).map_err(|e| SolveError::Board(e.to_string()))?;
            Variant::new(def).map_err(|e| SolveError::Board(e.to_string()))?
        } else {
            registry::build(spec).map_err(|e| SolveError::Board(e.to_string()))?
        };
        Ok(Board { variant })
    }

    /// Cells of the board.
    pub fn cells(&self) -> usize {
        self.variant.geometry.cell_count()
    }

    /// The piece kind with `letter` (the first seat's piece of that kind).
    pub fn kind(&self, letter: char) -> Result<usize, SolveError> {
        self.variant
            .kind_by_letter(letter)
            .ok_or(SolveError::Piece(letter))
    }

    /// For every cell, the cells a piece of `kind` (of the first seat)
    /// attacks from it on the empty board, ascending, without repeats.
    pub fn empty_attacks(&self, kind: usize) -> Vec<Vec<usize>> {
        let v = &self.variant;
        let p = piece(Seat::new(0), kind);
        (0..self.cells())
            .map(|c| attacks::attack_set(v, p, c, |_| EMPTY))
            .collect()
    }

    /// The cell's name.
    pub fn name(&self, cell: usize) -> String {
        self.variant.geometry.cell_name(cell)
    }

    /// A placement of the first seat's pieces, (cell, kind), as the board
    /// field of a position text (docs/notation.md: slices separated by
    /// `|`, ranks from the highest by `/`, runs of empty cells as counts).
    pub fn placement_text(&self, placement: &[(usize, usize)]) -> String {
        let at = self.letters(placement);
        layout(&self.variant.geometry)
            .iter()
            .map(|slice| {
                slice
                    .iter()
                    .map(|rank| {
                        let mut out = String::new();
                        let mut empty = 0;
                        for &c in rank {
                            match at[c] {
                                None => empty += 1,
                                Some(l) => {
                                    if empty > 0 {
                                        out.push_str(&empty.to_string());
                                        empty = 0;
                                    }
                                    out.push(l);
                                }
                            }
                        }
                        if empty > 0 {
                            out.push_str(&empty.to_string());
                        }
                        out
                    })
                    .collect::<Vec<_>>()
                    .join("/")
            })
            .collect::<Vec<_>>()
            .join("|")
    }

    /// A placement as a diagram: each 2-D slice with its highest rank on
    /// top, the slices of a higher-dimensional board side by side, `.` for
    /// an empty cell and a blank where the board's shape has no cell.
    pub fn placement_diagram(&self, placement: &[(usize, usize)]) -> String {
        let g = &self.variant.geometry;
        let at = self.letters(placement);
        let (ranks, files) = (
            g.lens()[0] as i32,
            g.lens().get(1).copied().unwrap_or(1) as i32,
        );
        // One slice per combination of the coordinates beyond the second.
        let high: Vec<usize> = g.lens().iter().skip(2).copied().collect();
        let slices: usize = high.iter().product();
        let mut lines = vec![String::new(); ranks as usize];
        for s in 0..slices {
            let mut x = vec![0i32; g.dims()];
            let mut rest = s;
            for (i, &l) in high.iter().enumerate() {
                x[2 + i] = (rest % l) as i32;
                rest /= l;
            }
            for (row, line) in lines.iter_mut().enumerate() {
                if s > 0 {
                    line.push_str("   ");
                }
                x[0] = ranks - 1 - row as i32;
                for f in 0..files {
                    if g.dims() > 1 {
                        x[1] = f;
                    }
                    line.push(match g.cell_at(&x) {
                        None => ' ',
                        Some(c) => at[c].unwrap_or('.'),
                    });
                }
            }
        }
        lines
            .iter()
            .map(|l| l.trim_end())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The letter on every cell, if any.
    fn letters(&self, placement: &[(usize, usize)]) -> Vec<Option<char>> {
        let mut at = vec![None; self.cells()];
        for &(c, kind) in placement {
            at[c] = Some(self.variant.kinds[kind].letter);
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rectangles_and_variants_are_boards() {
        let b = Board::from_spec("board:5x3").unwrap();
        assert_eq!(b.cells(), 15);
        let n = b.kind('N').unwrap();
        // A knight in the corner a1 of a 5x3 board: b3 and c2.
        let a1 = b.variant.geometry.parse_cell("a1").unwrap();
        let names: Vec<String> = b.empty_attacks(n)[a1].iter().map(|&c| b.name(c)).collect();
        assert_eq!(names.len(), 2);
        assert!(names.contains(&"b3".to_string()) && names.contains(&"c2".to_string()));
        assert_eq!(Board::from_spec("cube").unwrap().cells(), 64);
        for bad in ["board:0x3", "board:5", "board:27x2", "nonsense"] {
            assert!(Board::from_spec(bad).is_err(), "{bad}");
        }
        assert_eq!(b.kind('Z'), Err(SolveError::Piece('Z')));
    }
}
