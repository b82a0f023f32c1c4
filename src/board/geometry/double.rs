//! The double diamond (seed 000, T8.7.3): the one board of the seed that is
//! not directed.
//!
//! The cells of a diamond with every coordinate strictly inside
//! (`0 < x_k < l-1` for all k) are doubled (`x0 = +1` and `x0 = -1`); the
//! cells on the faces (some `x_k` equal to `0` or `l-1`) exist once
//! (`x0 = 0`). The seed gives the board by linear subsets: the line along
//! axis k through a face cell runs up through one copy, across the far
//! face and back down through the other copy (a cycle of `2l-2` cells);
//! a line that meets no face cell stays in its copy, and the `-1` copy's
//! lines run the other way. Stepping between a face cell and a cell of the
//! `-1` copy is a direction change: every direction but the one stepped
//! along changes its meaning.
//!
//! In global coordinates this is two diamonds glued along their faces, a
//! line that reaches a face continuing on the other copy with its component
//! along the face's axis reversed and every other component kept (the
//! direction change is exactly what keeps those). That is how the tables
//! here are built: a walk carries its copy and its direction, reflects the
//! component that crosses a face and switches copy there. Rays are walked
//! step by step from every cell in each of its `3^n - 1` local directions;
//! on a face cell the two directions along the face's axis enter the two
//! copies. The reference generator in tests/reference/ builds the same
//! board from the seed's linear subsets and direction changes instead, and
//! perft must agree.
//!
//! Cells are stored as the torus-diamond stores its copies: a `-1` cell
//! with global coordinates `x` sits at rank `2l-2-x1` (ranks `l+1 …
//! 2l-2`), its other coordinates unchanged, so names read like the
//! torus-diamond's (`Dd14` is the copy behind `Dd2`).

use super::{Cell, Geometry, GeometryError, MAX_DIMS, Naming, Shape, Span, Stepping};

/// The state of a walk: where it stands, on which copy it is (the copy it
/// came from, on a face cell), and which axes' components a face has
/// reversed so far (bit `k`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct WalkState {
    cell: Cell,
    side: i8,
    flips: u32,
}

impl Geometry {
    /// The double diamond of dimension `n` and edge length `l` (T8.7.3).
    pub fn double_diamond(n: usize, l: usize, naming: Naming) -> Result<Geometry, GeometryError> {
        let base = Geometry::new(vec![l; n], vec![false; n], Shape::Diamond, naming)?;
        let li = l as i32;
        let mut cells = Vec::new();
        for c in 0..base.cell_count() {
            let x: Vec<i32> = base.coords(c).iter().map(|&v| v as i32).collect();
            let inside = x.iter().all(|&v| v > 0 && v < li - 1);
            if inside {
                let mut copy = x.clone();
                copy[0] = 2 * li - 2 - copy[0];
                cells.push(copy);
            }
            cells.push(x);
        }
        let mut lens = vec![l; n];
        lens[0] = 2 * l - 2;
        Geometry::listed(lens, vec![false; n], naming, &cells, Stepping::Fold(li))
    }

    /// Whether this is the double diamond.
    pub fn is_double_diamond(&self) -> bool {
        matches!(self.stepping, Stepping::Fold(_))
    }

    /// The cell whose coordinates are those of `cell` moved `shift` axes
    /// on (coordinate `i` becomes coordinate `(i + shift) mod n`), the
    /// cyclic permutation that seats the armies of multi-party games
    /// (T8.6, T8.7.4). On the double diamond the permutation acts on the
    /// diamond's coordinates and keeps the copy: which cells are doubled
    /// (`0 < x_k < l-1` for every k) does not depend on the order of the
    /// axes, so a cell of the `-1` copy goes to a cell of the `-1` copy,
    /// though the copies are stored along axis 1. `None` when the board
    /// has no such cell (it is not symmetric in its axes).
    pub fn rotate_axes(&self, cell: Cell, shift: usize) -> Option<Cell> {
        let n = self.lens.len();
        let mut x = [0i32; MAX_DIMS];
        let side = self.diamond_coords(cell, &mut x);
        let mut d = [0i32; MAX_DIMS];
        for i in 0..n {
            d[(i + shift) % n] = x[i];
        }
        match self.stepping {
            Stepping::Fold(l) => self.fold_encode(l, side, &d[..n]),
            _ => self.cell_at(&d[..n]),
        }
    }

    /// The coordinate along `axis` of a cell in the diamond's own
    /// coordinates: on the double diamond the copy's rank `2l-2-x1` read
    /// back as `x1`; elsewhere the stored coordinate.
    pub fn diamond_coord(&self, cell: Cell, axis: usize) -> i32 {
        let mut x = [0i32; MAX_DIMS];
        self.diamond_coords(cell, &mut x);
        x[axis]
    }

    /// A cell's coordinates in the diamond's own terms, in `x`, and its
    /// copy: on the double diamond [`Geometry::double_diamond_cell`]'s;
    /// elsewhere the stored coordinates and copy 0.
    fn diamond_coords(&self, cell: Cell, x: &mut [i32; MAX_DIMS]) -> i8 {
        match self.stepping {
            Stepping::Fold(l) => self.double_diamond_cell(l, cell, x),
            _ => {
                for (a, slot) in x.iter_mut().enumerate().take(self.lens.len()) {
                    *slot = self.coord(cell, a);
                }
                0
            }
        }
    }

    /// The copy of a cell of the double diamond of edge `l` (`-1`, `0` on a
    /// face, `+1`) and its global coordinates in `x`.
    fn double_diamond_cell(&self, l: i32, cell: Cell, x: &mut [i32]) -> i8 {
        let n = self.lens.len();
        for (a, slot) in x.iter_mut().enumerate().take(n) {
            *slot = self.coord(cell, a);
        }
        if x[0] > l - 1 {
            x[0] = 2 * l - 2 - x[0];
            -1
        } else if x[..n].iter().any(|&v| v == 0 || v == l - 1) {
            0
        } else {
            1
        }
    }

    /// The cell of copy `side` at global coordinates `x` (face cells exist
    /// once, whatever the side).
    fn fold_encode(&self, l: i32, side: i8, x: &[i32]) -> Option<Cell> {
        if x.iter().any(|&v| v < 0 || v > l - 1) {
            return None;
        }
        let face = x.iter().any(|&v| v == 0 || v == l - 1);
        if face || side > 0 {
            self.cell_at(x)
        } else {
            let mut t = [0i32; MAX_DIMS];
            t[..x.len()].copy_from_slice(x);
            t[0] = 2 * l - 2 - t[0];
            self.cell_at(&t[..x.len()])
        }
    }

    /// One unit step along `axis` (sign `sign`, already corrected for the
    /// walk's reversals): a step beyond a face comes back on the other copy
    /// and reverses that axis.
    fn fold_unit(&self, l: i32, s: WalkState, axis: usize, sign: i32) -> Option<WalkState> {
        let n = self.lens.len();
        let mut x = [0i32; MAX_DIMS];
        let own = self.double_diamond_cell(l, s.cell, &mut x);
        let side = if own != 0 { own } else { s.side };
        let v = x[axis] + sign;
        let (v, side, flips) = if v < 0 || v > l - 1 {
            (x[axis] - sign, -side, s.flips ^ (1 << axis))
        } else {
            (v, side, s.flips)
        };
        x[axis] = v;
        let cell = self.fold_encode(l, side, &x[..n])?;
        Some(WalkState { cell, side, flips })
    }

    /// The ends of the walks that make the steps of `offset` one unit step
    /// at a time, in every order that stays on the board (RULES §1: the
    /// union over orderings). Different orders end in the same state; the
    /// list has more than one entry only if they did not.
    /// Axes in `keep` (bit k) may not turn at a face: the walk ends there.
    fn fold_walk(&self, l: i32, start: WalkState, offset: &[i32], keep: u32) -> Vec<WalkState> {
        let n = self.lens.len();
        // (steps left per axis, state)
        let mut todo: Vec<([u8; MAX_DIMS], WalkState)> = Vec::new();
        let mut left = [0u8; MAX_DIMS];
        for (a, slot) in left.iter_mut().enumerate().take(n) {
            *slot = offset.get(a).map_or(0, |o| o.unsigned_abs() as u8);
        }
        todo.push((left, start));
        let mut seen = todo.clone();
        let mut ends = Vec::new();
        while let Some((left, s)) = todo.pop() {
            if left.iter().all(|&k| k == 0) {
                if !ends.contains(&s) {
                    ends.push(s);
                }
                continue;
            }
            for axis in 0..n {
                if left[axis] == 0 {
                    continue;
                }
                let reversed = if s.flips >> axis & 1 != 0 { -1 } else { 1 };
                let sign = offset[axis].signum() * reversed;
                let Some(next) = self.fold_unit(l, s, axis, sign) else {
                    continue;
                };
                if (next.flips ^ s.flips) & keep != 0 {
                    continue;
                }
                let mut rest = left;
                rest[axis] -= 1;
                if !seen.contains(&(rest, next)) {
                    seen.push((rest, next));
                    todo.push((rest, next));
                }
            }
        }
        ends
    }

    /// The sides a walk may start on from `cell`: its own copy, or both on
    /// a face cell.
    fn fold_sides(&self, l: i32, cell: Cell) -> &'static [i8] {
        let mut x = [0i32; MAX_DIMS];
        match self.double_diamond_cell(l, cell, &mut x) {
            1 => &[1],
            -1 => &[-1],
            _ => &[1, -1],
        }
    }

    /// Every cell the offset reaches from `cell` on the double diamond.
    pub(super) fn fold_steps(&self, l: i32, cell: Cell, offset: &[i32], keep: u32) -> Vec<Cell> {
        let mut out: Vec<Cell> = Vec::new();
        for &side in self.fold_sides(l, cell) {
            let start = WalkState {
                cell,
                side,
                flips: 0,
            };
            out.extend(
                self.fold_walk(l, start, offset, keep)
                    .iter()
                    .map(|s| s.cell),
            );
        }
        out.retain(|&c| c != cell);
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Rays of the double diamond: from every cell in each local direction,
    /// the cells of the walk that repeats the direction's step, the
    /// direction carried across faces. A ray ends at the board's edge, or
    /// before a cell it has already passed (its start included): a slider
    /// crosses no cell twice in one move.
    pub(super) fn build_fold_rays(&mut self, l: i32) {
        let n = self.lens.len();
        let nd = self.directions.len();
        let cells = self.cell_count();
        let mut spans = Vec::with_capacity(cells * nd);
        let mut ray_cells: Vec<u16> = Vec::new();
        let mut x = [0i32; MAX_DIMS];
        for cell in 0..cells {
            let own = self.double_diamond_cell(l, cell, &mut x);
            let face = (0..n).find(|&a| x[a] == 0 || x[a] == l - 1);
            for d in 0..nd {
                let mut u = [0i32; MAX_DIMS];
                u[..n].copy_from_slice(&self.directions[d]);
                // A face cell's two directions along the face's axis go
                // into the two copies, both inwards.
                let side = match face {
                    Some(k) if own == 0 && u[k] != 0 => {
                        let side = u[k].signum() as i8;
                        u[k] = if x[k] == 0 { 1 } else { -1 };
                        side
                    }
                    _ if own == 0 => 1,
                    _ => own,
                };
                let start = ray_cells.len();
                let mut s = WalkState {
                    cell,
                    side,
                    flips: 0,
                };
                loop {
                    let mut step = [0i32; MAX_DIMS];
                    for a in 0..n {
                        let reversed = if s.flips >> a & 1 != 0 { -1 } else { 1 };
                        step[a] = u[a] * reversed;
                    }
                    let here = WalkState { flips: 0, ..s };
                    let Some(&next) = self.fold_walk(l, here, &step[..n], 0).first() else {
                        break;
                    };
                    if next.cell == cell || ray_cells[start..].contains(&(next.cell as u16)) {
                        break;
                    }
                    ray_cells.push(next.cell as u16);
                    s = WalkState {
                        flips: s.flips ^ next.flips,
                        ..next
                    };
                }
                spans.push(Span {
                    start: start as u32,
                    len: (ray_cells.len() - start) as u32,
                });
            }
        }
        self.ray_spans = spans;
        self.ray_cells = ray_cells;
    }
}
