//! Counting solutions up to the board's symmetries.
//!
//! The group used is the set of the rectangle's eight (square) or four
//! (oblong) rotations and reflections that keep the attack relation of
//! every piece kind of the problem: a map `s` is kept when, for every kind
//! and cells `a`, `b`, the piece on `a` attacks `b` on the empty board
//! exactly when the piece on `s(a)` attacks `s(b)`. So with pawns (which
//! attack forwards) only the mirror of the files survives; with the other
//! chess pieces, all eight maps of a square. The maps are checked on the
//! board itself rather than assumed, so a board or piece set that breaks a
//! symmetry loses it.

use std::collections::HashSet;

use super::{Board, SolveError};

/// A symmetry: the image of every cell.
pub type CellMap = Vec<usize>;

/// A rotation or reflection of an h x w rectangle: (rank, file, h, w) to
/// the image's (rank, file).
type RectMap = fn(i32, i32, i32, i32) -> (i32, i32);

/// The symmetries of a plain 2-D box board that keep the attack relation
/// of `kinds` (the identity first).
pub fn symmetries(board: &Board, kinds: &[usize]) -> Result<Vec<CellMap>, SolveError> {
    let g = &board.variant.geometry;
    if g.dims() != 2 || g.wraps().iter().any(|&w| w) || g.cell_count() != g.lens()[0] * g.lens()[1]
    {
        return Err(SolveError::Parameter(format!(
            "counts up to symmetry are made for plain rectangles, not {}",
            board.variant.spec
        )));
    }
    let (h, w) = (g.lens()[0] as i32, g.lens()[1] as i32);
    let maps: [RectMap; 8] = [
        |r, f, _, _| (r, f),
        |r, f, _, w| (r, w - 1 - f),
        |r, f, h, _| (h - 1 - r, f),
        |r, f, h, w| (h - 1 - r, w - 1 - f),
        |r, f, _, _| (f, r),
        |r, f, h, _| (h - 1 - f, r),
        |r, f, _, w| (f, w - 1 - r),
        |r, f, h, w| (h - 1 - f, w - 1 - r),
    ];
    let attacks: Vec<Vec<Vec<usize>>> = kinds.iter().map(|&k| board.empty_attacks(k)).collect();
    let mut out = Vec::new();
    for m in maps {
        let image: Option<CellMap> = (0..g.cell_count())
            .map(|c| {
                let (r, f) = m(g.coord(c, 0), g.coord(c, 1), h, w);
                g.cell_at(&[r, f])
            })
            .collect();
        let Some(image) = image else { continue };
        let keeps = attacks.iter().all(|att| {
            (0..g.cell_count()).all(|a| {
                let mut mapped: Vec<usize> = att[a].iter().map(|&b| image[b]).collect();
                mapped.sort_unstable();
                mapped == att[image[a]]
            })
        });
        if keeps && !out.contains(&image) {
            out.push(image);
        }
    }
    Ok(out)
}

/// How many of `solutions` (pieces as (cell, kind)) are distinct up to
/// the maps.
pub fn count_unique(solutions: &[Vec<(usize, usize)>], maps: &[CellMap]) -> usize {
    let mut seen: HashSet<Vec<(usize, usize)>> = HashSet::new();
    for s in solutions {
        let canonical = maps
            .iter()
            .map(|m| {
                let mut t: Vec<(usize, usize)> = s.iter().map(|&(c, k)| (m[c], k)).collect();
                t.sort_unstable();
                t
            })
            .min()
            .unwrap_or_else(|| s.clone());
        seen.insert(canonical);
    }
    seen.len()
}
