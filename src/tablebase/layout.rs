//! How a table's positions are numbered.
//!
//! A position is the cells of the material's pieces (in the material's
//! order) and the side to move. Its index is
//! `((r·N + c₁)·N + c₂ … )·2 + side`, where `N` is the number of cells,
//! `c₁, c₂, …` the cells of the pieces after the first king, and `r` the
//! number of the first king's cell among the representatives of the
//! board's symmetry classes of cells. The symmetries are the board's
//! lattice maps that keep every piece's moves (`solve::symmetry`), so a
//! position and its images have one value; the table stores the
//! canonical one of each class: the least index over the maps that take
//! the first king to its representative, identical pieces sorted. Every
//! other index of the table is marked broken.

use crate::board::geometry::Cell;
use crate::board::piece::{Piece, piece_kind};
use crate::board::variant::Variant;
use crate::solve::Board;
use crate::solve::symmetry::symmetries;

use super::TablebaseError;
use super::material::Material;

/// Most entries a table may have (two bytes each while stored, six while
/// generated).
pub const MAX_ENTRIES: u64 = 1 << 30;

/// The numbering of a table's positions.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Cells of the board.
    pub cells: usize,
    /// The pieces, in table order (the first is the first seat's king).
    pub pieces: Vec<Piece>,
    /// Representative cells of the first king.
    pub reps: Vec<u16>,
    /// The board's symmetries (cell images).
    pub maps: Vec<Vec<u16>>,
    /// Per cell: the maps taking it to its representative.
    to_rep: Vec<Vec<u16>>,
    /// Per cell: its number among the representatives, if it is one.
    rep_number: Vec<u32>,
    /// Runs `[start, end)` of identical pieces.
    runs: Vec<(usize, usize)>,
    /// Number of entries.
    pub size: u64,
    /// Per piece of the material: the cells it may stand on (pawns only
    /// on the cells a pawn of its seat can reach from the start position;
    /// other pieces anywhere).
    pub allowed: Vec<Vec<bool>>,
}

/// Cells of the pieces and the side to move (0 or 1).
pub type Placement = ([u16; super::material::MAX_PIECES], usize);

impl Layout {
    /// The layout of `material` on `v`'s board.
    pub fn new(v: &std::sync::Arc<Variant>, material: &Material) -> Result<Layout, TablebaseError> {
        let cells = v.geometry.cell_count();
        // Even with the largest symmetry class the table needs at least
        // 2 · cells^(pieces − 1) entries: refuse before any work.
        let least = (1..material.pieces.len()).fold(2u64, |n, _| n.saturating_mul(cells as u64));
        if least > MAX_ENTRIES {
            return Err(TablebaseError::TooLarge(format!(
                "{} on {} needs at least {least} entries (at most {MAX_ENTRIES}): out of reach",
                material.name(v),
                v.spec
            )));
        }
        let board = Board { variant: v.clone() };
        let mut kinds: Vec<usize> = material.pieces.iter().map(|&p| piece_kind(p)).collect();
        kinds.sort_unstable();
        kinds.dedup();
        // Boards with too many candidate maps to try are numbered without
        // symmetry (the identity alone): larger, still exact.
        let maps: Vec<Vec<u16>> = symmetries(&board, &kinds)
            .unwrap_or_else(|_| vec![(0..cells).collect()])
            .into_iter()
            .map(|m| m.into_iter().map(|c| c as u16).collect())
            .collect();
        let allowed: Vec<Vec<bool>> = material.pieces.iter().map(|&p| pawn_reach(v, p)).collect();
        // Only the maps that keep where each piece may stand (pawns keep
        // their start ranks, which a map of the board alone may not).
        let maps: Vec<Vec<u16>> = maps
            .into_iter()
            .filter(|m| {
                allowed
                    .iter()
                    .all(|a| (0..cells).all(|c| a[c] == a[m[c] as usize]))
            })
            .collect();
        let mut rep_of = vec![u16::MAX; cells];
        for c in 0..cells {
            rep_of[c] = maps.iter().map(|m| m[c]).min().unwrap_or(c as u16);
        }
        let mut reps: Vec<u16> = rep_of.clone();
        reps.sort_unstable();
        reps.dedup();
        let mut rep_number = vec![u32::MAX; cells];
        for (i, &r) in reps.iter().enumerate() {
            rep_number[r as usize] = i as u32;
        }
        let to_rep = (0..cells)
            .map(|c| {
                (0..maps.len() as u16)
                    .filter(|&g| maps[g as usize][c] == rep_of[c])
                    .collect()
            })
            .collect();
        let mut runs = Vec::new();
        let mut i = 0;
        while i < material.pieces.len() {
            let mut j = i + 1;
            while j < material.pieces.len() && material.pieces[j] == material.pieces[i] {
                j += 1;
            }
            runs.push((i, j));
            i = j;
        }
        let mut size = reps.len() as u64 * 2;
        for _ in 1..material.pieces.len() {
            size = size.saturating_mul(cells as u64);
        }
        if size > MAX_ENTRIES {
            return Err(TablebaseError::TooLarge(format!(
                "{} on {} has {size} entries (at most {MAX_ENTRIES}): out of reach",
                material.name(v),
                v.spec
            )));
        }
        Ok(Layout {
            allowed,
            cells,
            pieces: material.pieces.clone(),
            reps,
            maps,
            to_rep,
            rep_number,
            runs,
            size,
        })
    }

    /// The number of pieces.
    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    /// Whether the layout has no pieces (never: kings are always there).
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// The cells and side of entry `idx`.
    pub fn decode(&self, mut idx: u64) -> Placement {
        let mut cells = [0u16; super::material::MAX_PIECES];
        let side = (idx % 2) as usize;
        idx /= 2;
        let n = self.cells as u64;
        for i in (1..self.len()).rev() {
            cells[i] = (idx % n) as u16;
            idx /= n;
        }
        cells[0] = self.reps[idx as usize];
        (cells, side)
    }

    /// The entry of a placement whose first king stands on a
    /// representative (`None` otherwise).
    fn encode_raw(&self, cells: &[u16], side: usize) -> Option<u64> {
        let r = self.rep_number[cells[0] as usize];
        if r == u32::MAX {
            return None;
        }
        let n = self.cells as u64;
        let mut idx = r as u64;
        for &c in &cells[1..self.len()] {
            idx = idx * n + c as u64;
        }
        Some(idx * 2 + side as u64)
    }

    /// The image of the placement `cells` under the map `m` into `out`,
    /// identical pieces sorted (they are unordered).
    #[inline]
    pub fn image(&self, m: &[u16], cells: &[u16], out: &mut [u16]) {
        for (o, &c) in out.iter_mut().zip(&cells[..self.len()]) {
            *o = m[c as usize];
        }
        for &(a, b) in &self.runs {
            if b - a > 1 {
                out[a..b].sort_unstable();
            }
        }
    }

    /// The canonical entry of any placement (its class's least image).
    pub fn canonical(&self, cells: &[u16], side: usize) -> u64 {
        self.canonical_marked(cells, side, cells[0]).0
    }

    /// The canonical entry of a placement with one marked cell (an
    /// en-passant target), and the marked cell's image under the same
    /// map: the least (entry, image) over the maps. The least entry is
    /// the placement's canonical entry whatever the mark.
    pub fn canonical_marked(&self, cells: &[u16], side: usize, mark: u16) -> (u64, u16) {
        let k = self.len();
        let mut best = (u64::MAX, u16::MAX);
        let mut image = [0u16; super::material::MAX_PIECES];
        for &g in &self.to_rep[cells[0] as usize] {
            let m = &self.maps[g as usize];
            self.image(m, cells, &mut image[..k]);
            // invariant: every map in `to_rep[c]` takes c to a representative.
            let idx = self.encode_raw(&image[..k], side).expect("representative");
            best = best.min((idx, m[mark as usize]));
        }
        best
    }

    /// Whether two pieces share a cell.
    pub fn overlaps(&self, cells: &[u16]) -> bool {
        let k = self.len();
        (0..k).any(|i| (i + 1..k).any(|j| cells[i] == cells[j]))
    }

    /// Cells as `Cell`s.
    pub fn piece_cells<'a>(&'a self, cells: &'a [u16]) -> impl Iterator<Item = (Cell, Piece)> + 'a {
        (0..self.len()).map(move |i| (cells[i] as Cell, self.pieces[i]))
    }
}

/// The cells piece `p` can stand on in a game: for a pawn, its start
/// cells and every cell its pushes and captures lead to from them, except
/// its promotion cells (so no white pawn on the first rank of chess); for
/// other pieces every cell.
pub fn pawn_reach(v: &Variant, p: Piece) -> Vec<bool> {
    let cells = v.geometry.cell_count();
    let kind = piece_kind(p);
    if !v.is_pawn(kind) {
        return vec![true; cells];
    }
    let seat = crate::board::piece::piece_seat(p);
    let t = &v.pawn_tables[seat][kind];
    let mut seen = vec![false; cells];
    let mut todo: Vec<usize> = v
        .start
        .iter()
        .filter(|&&(_, q)| q == p)
        .map(|&(c, _)| c)
        .collect();
    if todo.is_empty() {
        // No such pawn at the start: allow every cell off the promotion
        // zone.
        return (0..cells)
            .map(|c| !v.promotion_zone[seat].contains(c))
            .collect();
    }
    for &c in &todo {
        seen[c] = true;
    }
    while let Some(c) = todo.pop() {
        for &n in t.pushes.get(c).iter().chain(t.captures.get(c)) {
            let n = n as usize;
            if n < cells && !seen[n] && !v.promotion_zone[seat].contains(n) {
                seen[n] = true;
                todo.push(n);
            }
        }
    }
    seen
}

/// A reverse move: the start cell and the cells that must be empty on the
/// way.
pub type Source = (u16, Vec<u16>);

/// Where a piece could have come from: per kind and target cell, the
/// start cells with the cells that must be empty between (the reverse of
/// the piece's leaps and rays, so it holds on every board, wrapping or
/// not).
#[derive(Clone, Debug)]
pub struct Retro {
    /// Per kind (indexed by kind), per target cell: (start, between).
    sources: Vec<Vec<Vec<Source>>>,
    /// Pawns: per seat, per kind, per target cell, the pushes that end
    /// there (single steps, and double steps with the cell passed).
    pawn_sources: Vec<Vec<Vec<Vec<Source>>>>,
}

impl Retro {
    /// The reverse moves of the non-pawn kinds of `v`.
    pub fn new(v: &Variant) -> Retro {
        let g = &v.geometry;
        let cells = g.cell_count();
        let sources = (0..v.kinds.len())
            .map(|k| {
                let mut per: Vec<Vec<Source>> = vec![Vec::new(); cells];
                if v.is_pawn(k) {
                    return per;
                }
                for f in 0..cells {
                    if let Some(t) = v.leap_table(k) {
                        for &to in t.get(f) {
                            per[to as usize].push((f as u16, Vec::new()));
                        }
                    }
                    for &d in &v.kinds[k].slides {
                        let ray = g.ray(f, d);
                        for (j, &to) in ray.iter().enumerate() {
                            per[to as usize].push((f as u16, ray[..j].to_vec()));
                        }
                    }
                }
                per
            })
            .collect();
        let pawn_sources = v
            .seating
            .seats()
            .map(|seat| {
                (0..v.kinds.len())
                    .map(|k| {
                        let mut per: Vec<Vec<Source>> = vec![Vec::new(); cells];
                        if !v.is_pawn(k) {
                            return per;
                        }
                        let table = &v.pawn_tables[seat][k].pushes;
                        for f in 0..cells {
                            for pair in table.get(f).chunks_exact(2) {
                                let (one, two) = (pair[0], pair[1]);
                                per[one as usize].push((f as u16, Vec::new()));
                                if two != crate::board::piece::NO_CELL {
                                    per[two as usize].push((f as u16, vec![one]));
                                }
                            }
                        }
                        per
                    })
                    .collect()
            })
            .collect();
        Retro {
            sources,
            pawn_sources,
        }
    }

    /// The reverse moves of a piece of `seat` and `kind` onto `to`
    /// (captures and promotions are not among them: they change the
    /// material).
    #[inline]
    pub fn sources(&self, seat: usize, kind: usize, to: usize) -> &[Source] {
        let pawn = &self.pawn_sources[seat][kind][to];
        if pawn.is_empty() {
            &self.sources[kind][to]
        } else {
            pawn
        }
    }
}
