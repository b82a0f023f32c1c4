//! Boards as data: dimension, edge lengths, wrapping axes, cell shape, the
//! flattened cell index, cell names, and the ray and leap tables that every
//! move generator query is answered from.
//!
//! Coordinates follow RULES.md §1: `coords[0]` is axis 1 (the rank axis, along
//! which two-player pawns move), `coords[1]` axis 2 (files), `coords[2]` axis 3
//! (levels), and so on. The flattened index enumerates the board's cells in box
//! order with the file axis fastest, then the rank axis, then axes 3, 4, …,
//! skipping cells outside the shape; on 8x8 this is the usual `a1 = 0,
//! b1 = 1, …, h8 = 63`.

use std::fmt;

mod double;

/// Largest dimension a board may have.
pub const MAX_DIMS: usize = 8;
/// Largest number of cells a board may have (cells are `u16` in moves).
pub const MAX_CELLS: usize = 60_000;
/// Largest bounding box (product of the edge lengths) a board may have.
const MAX_BOX: usize = 4_000_000;

/// A cell's flattened index.
pub type Cell = usize;

/// The shape cut out of the box `{0..l1-1} x … x {0..ln-1}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Every cell of the box.
    Box,
    /// The diamond condition of T8.1:
    /// `Σ_i (|x_i + (1-l)/2| - 1/2) <= l/2` (all edges equal to `l`).
    Diamond,
    /// The cells of an explicit list (a variants file's `cells`), inside the
    /// box.
    Listed,
}

/// How cells are spelled in ASCII (docs/notation.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// 2-D: file letter, rank number (`a1`, `h8`, `a14`).
    TwoD,
    /// n-D (n >= 3): one letter per axis from axis n down to axis 2, then the
    /// rank number: `Dd1` in 3-D (level, file, rank), `eEd1` in 4-D. Letters of
    /// even axes are written lower case, of odd axes upper case; input is
    /// case-insensitive and accepts Greek letters α… for axis 4 (the seed's
    /// spelling).
    Layered,
    /// The cube of "Schach hoch 3": file `a-d`, rank `1-4`, level `a b g d`
    /// (α β γ δ), e.g. `b1a`.
    Cube,
}

/// Errors building a geometry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GeometryError {
    /// Dimension outside `1..=MAX_DIMS`.
    Dimension(usize),
    /// An axis shorter than 2 cells or longer than the naming can spell.
    EdgeLength { axis: usize, length: usize },
    /// More cells than moves can address.
    TooManyCells(usize),
    /// A diamond needs equal, even edges.
    DiamondEdges,
    /// A listed cell is not inside the box (or has the wrong dimension).
    CellOutside(Vec<i32>),
    /// A board without cells.
    NoCells,
}

impl fmt::Display for GeometryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GeometryError::Dimension(n) => {
                write!(f, "dimension {n} is out of range 1..={MAX_DIMS}")
            }
            GeometryError::EdgeLength { axis, length } => {
                write!(
                    f,
                    "edge length {length} of axis {} is out of range",
                    axis + 1
                )
            }
            GeometryError::TooManyCells(c) => {
                write!(f, "{c} cells exceed the limit of {MAX_CELLS}")
            }
            GeometryError::DiamondEdges => write!(f, "a diamond needs equal, even edge lengths"),
            GeometryError::CellOutside(x) => {
                write!(f, "cell {x:?} is not inside the box of the edge lengths")
            }
            GeometryError::NoCells => write!(f, "the board has no cells"),
        }
    }
}

impl std::error::Error for GeometryError {}

/// Range of a cell's entries in a flat table.
#[derive(Clone, Copy, Debug, Default)]
struct Span {
    start: u32,
    len: u32,
}

/// A per-cell list of target cells, stored flat (leaper targets, pawn steps).
#[derive(Clone, Debug, Default)]
pub struct CellTable {
    spans: Vec<Span>,
    cells: Vec<u16>,
}

impl CellTable {
    /// Builds the table from one target list per cell.
    pub fn from_lists(lists: impl IntoIterator<Item = Vec<Cell>>) -> Self {
        let mut t = CellTable::default();
        let fits = |n: usize| u32::try_from(n).expect("invariant: a cell table's size fits a u32");
        for list in lists {
            // The row's end too: `get` adds start and length in a u32.
            fits(t.cells.len() + list.len());
            t.spans.push(Span {
                start: fits(t.cells.len()),
                len: fits(list.len()),
            });
            t.cells.extend(list.into_iter().map(|c| c as u16));
        }
        t
    }

    /// The targets of `cell`, or `None` when the table has no row for it
    /// (tables of kinds that do not use them are empty).
    pub fn get_checked(&self, cell: Cell) -> Option<&[u16]> {
        let s = self.spans.get(cell)?;
        self.cells.get(s.start as usize..(s.start + s.len) as usize)
    }

    /// The targets of `cell`.
    #[inline(always)]
    pub fn get(&self, cell: Cell) -> &[u16] {
        let s = self.spans[cell];
        let range = s.start as usize..(s.start + s.len) as usize;
        debug_assert!(range.end <= self.cells.len());
        // SAFETY: every span lies within `cells`: `from_lists`, the only
        // constructor besides the empty default, makes them so, and the
        // fields are private.
        unsafe { self.cells.get_unchecked(range) }
    }
}

/// One non-empty ray of a [`RayTable`]: where its cells lie in the
/// geometry's ray storage ([`Geometry::ray_cells`]), its direction, and a
/// tag of the table's choosing (a bit mask of piece kinds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RayRef {
    start: u32,
    len: u16,
    /// The ray's direction index.
    pub dir: u16,
    /// The table's tag (for attack tables: the kinds that attack along
    /// the ray from its far end).
    pub tag: u16,
    /// The index of the tag among the table's distinct tags (in order of
    /// first appearance).
    pub group: u16,
}

/// The signature of a set of cells: bit `cell % 64` for each. Two sets
/// with disjoint signatures are disjoint, so one AND tells that no piece
/// of a set stands on a ray without walking it.
#[inline(always)]
pub fn cell_signature(cells: impl IntoIterator<Item = Cell>) -> u64 {
    cells.into_iter().fold(0, |s, c| s | 1 << (c & 63))
}

/// Per cell, the non-empty rays along a chosen set of directions. The
/// hot loops of the generic generator and the attack test walk these
/// instead of every direction: on a diamond or another board with many
/// edge cells, about half of all (cell, direction) rays are empty, and
/// each skipped ray saves a lookup and a branch.
#[derive(Clone, Debug, Default)]
pub struct RayTable {
    spans: Vec<Span>,
    rays: Vec<RayRef>,
    /// Per ray, the [`cell_signature`] of its cells (when asked for).
    signatures: Vec<u64>,
    /// The distinct tags, by group index.
    groups: Vec<u16>,
    /// Where the last of its rays' cells ends in the ray storage of the
    /// geometry that built it ([`Geometry::holds`]).
    end: u32,
}

impl RayTable {
    /// The non-empty rays of `cell`, in the order of the directions given
    /// at construction.
    #[inline(always)]
    pub fn get(&self, cell: Cell) -> &[RayRef] {
        let s = self.spans[cell];
        let range = s.start as usize..(s.start + s.len) as usize;
        debug_assert!(range.end <= self.rays.len());
        // SAFETY: every span lies within `rays`: `Geometry::ray_table`,
        // the only constructor besides the empty default, makes them so,
        // and the fields are private.
        unsafe { self.rays.get_unchecked(range) }
    }

    /// The non-empty rays of `cell` beside their cells' signatures (a
    /// table built with signatures).
    #[inline(always)]
    pub fn get_with_signatures(&self, cell: Cell) -> (&[RayRef], &[u64]) {
        let s = self.spans[cell];
        let range = s.start as usize..(s.start + s.len) as usize;
        (&self.rays[range.clone()], &self.signatures[range])
    }

    /// The distinct tags of the table, by [`RayRef::group`].
    pub fn groups(&self) -> &[u16] {
        &self.groups
    }
}

/// How a step moves from cell to cell (the board's topology beyond its
/// cell set and wrapping axes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Stepping {
    /// Add the offset to the coordinates (wrapping where an axis wraps).
    Plain,
    /// Finite chess (T12): the coordinates are the digits of one number
    /// `0.x1 x2 … xd` in base `lens[0]`, and a step adds to that number,
    /// with carry (see [`Geometry::digits`]).
    Carry,
    /// The double diamond (T8.7.3) of this edge length: steps, leaps and
    /// rays follow its line structure (see `double.rs`), not coordinates.
    Fold(i32),
}

/// A board: its cells, their names and the tables derived once from them.
#[derive(Clone)]
pub struct Geometry {
    lens: Vec<usize>,
    wraps: Vec<bool>,
    stepping: Stepping,
    shape: Shape,
    naming: Naming,
    /// `coords[cell * n + axis]`.
    coords: Vec<i16>,
    /// Box index → cell index, or `u32::MAX` outside the shape.
    box_to_cell: Vec<u32>,
    strides: Vec<usize>,
    /// All unit-step directions: vectors in {-1,0,1}^n other than 0.
    directions: Vec<Vec<i32>>,
    /// Number of changed coordinates per direction.
    direction_dims: Vec<u8>,
    /// Index of the opposite direction.
    direction_opposite: Vec<u16>,
    /// Rays: `ray_spans[cell * directions + dir]`.
    ray_spans: Vec<Span>,
    ray_cells: Vec<u16>,
}

impl Geometry {
    /// Builds a board. `lens[i]` and `wraps[i]` describe axis `i + 1`.
    pub fn new(
        lens: Vec<usize>,
        wraps: Vec<bool>,
        shape: Shape,
        naming: Naming,
    ) -> Result<Geometry, GeometryError> {
        Self::build(lens, wraps, shape, naming, None, Stepping::Plain)
    }

    /// Builds a board whose cells are those of `cells` (coordinates inside
    /// the box `lens`; repeats are one cell), in the usual cell order.
    pub fn with_cells(
        lens: Vec<usize>,
        wraps: Vec<bool>,
        naming: Naming,
        cells: &[Vec<i32>],
    ) -> Result<Geometry, GeometryError> {
        Self::listed(lens, wraps, naming, cells, Stepping::Plain)
    }

    /// [`Geometry::with_cells`] with the given way of stepping.
    fn listed(
        lens: Vec<usize>,
        wraps: Vec<bool>,
        naming: Naming,
        cells: &[Vec<i32>],
        stepping: Stepping,
    ) -> Result<Geometry, GeometryError> {
        let n = lens.len();
        if n == 0 || n > MAX_DIMS || wraps.len() != n {
            return Err(GeometryError::Dimension(n));
        }
        let box_size = lens
            .iter()
            .try_fold(1usize, |a, &l| a.checked_mul(l.max(1)));
        let box_size = match box_size {
            Some(b) if b <= MAX_BOX => b,
            _ => return Err(GeometryError::TooManyCells(usize::MAX)),
        };
        let mut keep = vec![false; box_size];
        for x in cells {
            let inside = x.len() == n
                && x.iter()
                    .zip(&lens)
                    .all(|(&v, &l)| v >= 0 && (v as usize) < l);
            if !inside {
                return Err(GeometryError::CellOutside(x.clone()));
            }
            // Box index with the file axis fastest, as `build` numbers it.
            let mut b = 0usize;
            let mut stride = 1usize;
            for &axis in &Self::axis_order(n) {
                b += x[axis] as usize * stride;
                stride *= lens[axis];
            }
            keep[b] = true;
        }
        Self::build(lens, wraps, Shape::Listed, naming, Some(&keep), stepping)
    }

    /// The board of finite chess truncated at `d` digits (seed 000 §12):
    /// the `b^d` numbers `0.x1 x2 … xd` in base `b`, digit `x_k` on axis
    /// `k`. The step along direction `k` adds `b^-k` to the number, with
    /// carry into the digit before; a step exists iff the sum stays below
    /// 1 and at or above 0. The cells are numbered by their value (the
    /// file axis, digit 2, fastest is the value order for d = 2; for
    /// every d the flattened index is a fixed permutation of it).
    pub fn digits(b: usize, d: usize, naming: Naming) -> Result<Geometry, GeometryError> {
        Self::build(
            vec![b; d],
            vec![false; d],
            Shape::Box,
            naming,
            None,
            Stepping::Carry,
        )
    }

    /// Whether two rays from one cell may reach the same cell, or a ray
    /// come back across another (wrapping axes, or the carry of finite
    /// chess): the move generator then deduplicates targets and the fast
    /// backend keeps to its general path.
    pub fn rays_may_meet(&self) -> bool {
        self.stepping != Stepping::Plain || self.wraps.iter().any(|&w| w)
    }

    /// Whether steps carry between digits (finite chess).
    pub fn carries(&self) -> bool {
        self.stepping == Stepping::Carry
    }

    /// A key that differs between boards with different cells or
    /// neighbourhoods (edge lengths, wraps, shape, carry and the cell list
    /// itself), for caches of tables derived from the board alone.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.lens.hash(&mut h);
        self.wraps.hash(&mut h);
        self.stepping.hash(&mut h);
        self.coords.hash(&mut h);
        h.finish()
    }

    /// The order in which axes vary in the flattened index: the file axis
    /// (index 1) fastest, then the rank (0), then 2, 3, …
    fn axis_order(n: usize) -> Vec<usize> {
        if n == 1 {
            vec![0]
        } else {
            let mut o = vec![1, 0];
            o.extend(2..n);
            o
        }
    }

    fn build(
        lens: Vec<usize>,
        wraps: Vec<bool>,
        shape: Shape,
        naming: Naming,
        keep: Option<&[bool]>,
        stepping: Stepping,
    ) -> Result<Geometry, GeometryError> {
        let n = lens.len();
        if n == 0 || n > MAX_DIMS || wraps.len() != n {
            return Err(GeometryError::Dimension(n));
        }
        for (axis, &l) in lens.iter().enumerate() {
            let spellable = match naming {
                Naming::Cube => l == 4,
                Naming::TwoD | Naming::Layered => axis == 0 || l <= 26,
            };
            if !(2..=99).contains(&l) || !spellable {
                return Err(GeometryError::EdgeLength { axis, length: l });
            }
        }
        if shape == Shape::Diamond
            && (lens.iter().any(|&l| l != lens[0]) || !lens[0].is_multiple_of(2))
        {
            return Err(GeometryError::DiamondEdges);
        }
        let box_size: usize = lens.iter().product();
        if box_size > MAX_BOX {
            return Err(GeometryError::TooManyCells(box_size));
        }
        // Strides: file axis (index 1) fastest, then rank (0), then 2, 3, ...
        let order = Self::axis_order(n);
        let mut strides = vec![0; n];
        let mut s = 1;
        for &axis in &order {
            strides[axis] = s;
            s *= lens[axis];
        }
        let mut box_to_cell = vec![u32::MAX; box_size];
        let mut coords = Vec::new();
        let mut cell_count = 0usize;
        let mut x = vec![0i32; n];
        for (b, slot) in box_to_cell.iter_mut().enumerate() {
            let mut rem = b;
            for &axis in &order {
                x[axis] = (rem % lens[axis]) as i32;
                rem /= lens[axis];
            }
            if Self::in_shape(shape, &lens, &x) && keep.is_none_or(|k| k[b]) {
                *slot = cell_count as u32;
                coords.extend(x.iter().map(|&v| v as i16));
                cell_count += 1;
            }
        }
        if cell_count == 0 {
            return Err(GeometryError::NoCells);
        }
        if cell_count > MAX_CELLS {
            return Err(GeometryError::TooManyCells(cell_count));
        }
        let mut directions = Vec::new();
        let total = 3usize.pow(n as u32);
        for code in 0..total {
            let mut c = code;
            let mut v = vec![0i32; n];
            for item in v.iter_mut() {
                *item = (c % 3) as i32 - 1;
                c /= 3;
            }
            if v.iter().any(|&d| d != 0) {
                directions.push(v);
            }
        }
        let direction_dims = directions
            .iter()
            .map(|v| v.iter().filter(|&&d| d != 0).count() as u8)
            .collect();
        let direction_opposite = directions
            .iter()
            .map(|v| {
                let neg: Vec<i32> = v.iter().map(|d| -d).collect();
                directions.iter().position(|w| *w == neg).unwrap_or(0) as u16
            })
            .collect();
        let mut g = Geometry {
            lens,
            wraps,
            stepping,
            shape,
            naming,
            coords,
            box_to_cell,
            strides,
            directions,
            direction_dims,
            direction_opposite,
            ray_spans: Vec::new(),
            ray_cells: Vec::new(),
        };
        g.build_rays();
        Ok(g)
    }

    fn in_shape(shape: Shape, lens: &[usize], x: &[i32]) -> bool {
        match shape {
            Shape::Box | Shape::Listed => true,
            Shape::Diamond => {
                // Doubled to stay in integers: Σ (|2x + 1 - l| - 1) <= l.
                let l = lens[0] as i32;
                let sum: i32 = x.iter().map(|&xi| (2 * xi + 1 - l).abs() - 1).sum();
                sum <= l
            }
        }
    }

    fn build_rays(&mut self) {
        if let Stepping::Fold(l) = self.stepping {
            self.build_fold_rays(l);
            return;
        }
        let nd = self.directions.len();
        let cells = self.cell_count();
        let mut spans = Vec::with_capacity(cells * nd);
        let mut ray_cells = Vec::new();
        for cell in 0..cells {
            for d in 0..nd {
                let start = ray_cells.len() as u32;
                let mut cur = cell;
                while let Some(next) = self.step(cur, &self.directions[d]) {
                    if next == cell {
                        break;
                    }
                    ray_cells.push(next as u16);
                    cur = next;
                }
                spans.push(Span {
                    start,
                    len: ray_cells.len() as u32 - start,
                });
            }
        }
        self.ray_spans = spans;
        self.ray_cells = ray_cells;
    }

    /// Dimension n.
    pub fn dims(&self) -> usize {
        self.lens.len()
    }

    /// Edge length of each axis.
    pub fn lens(&self) -> &[usize] {
        &self.lens
    }

    /// Wrap flag of each axis.
    pub fn wraps(&self) -> &[bool] {
        &self.wraps
    }

    /// The cell shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The naming scheme.
    pub fn naming(&self) -> Naming {
        self.naming
    }

    /// Number of cells.
    pub fn cell_count(&self) -> usize {
        self.coords.len() / self.lens.len()
    }

    /// Words a bitboard of this board needs.
    pub fn words(&self) -> usize {
        crate::board::bitboard::words_for(self.cell_count())
    }

    /// Coordinates of a cell.
    #[inline]
    pub fn coords(&self, cell: Cell) -> &[i16] {
        let n = self.lens.len();
        &self.coords[cell * n..cell * n + n]
    }

    /// Coordinate of `cell` along `axis` (0-based).
    #[inline]
    pub fn coord(&self, cell: Cell, axis: usize) -> i32 {
        self.coords[cell * self.lens.len() + axis] as i32
    }

    /// The cell at `x`, if on the board.
    pub fn cell_at(&self, x: &[i32]) -> Option<Cell> {
        if x.len() != self.lens.len() {
            return None;
        }
        let mut b = 0;
        for (axis, &v) in x.iter().enumerate() {
            if v < 0 || v as usize >= self.lens[axis] {
                return None;
            }
            b += v as usize * self.strides[axis];
        }
        match self.box_to_cell[b] {
            u32::MAX => None,
            c => Some(c as usize),
        }
    }

    /// The cell reached from `cell` by adding `offset` (wrapping where the
    /// axis wraps), if on the board.
    /// On the double diamond a face cell may reach two cells (one per
    /// copy) where this returns the first; [`Geometry::steps`] gives all.
    pub fn step(&self, cell: Cell, offset: &[i32]) -> Option<Cell> {
        match self.stepping {
            Stepping::Fold(l) => return self.fold_steps(l, cell, offset, 0).first().copied(),
            Stepping::Carry => return self.carry_step(cell, offset),
            Stepping::Plain => {}
        }
        let mut b = 0;
        for (axis, &o) in offset.iter().enumerate().take(self.lens.len()) {
            let l = self.lens[axis] as i32;
            let mut v = self.coord(cell, axis) + o;
            if self.wraps[axis] {
                v = v.rem_euclid(l);
            } else if v < 0 || v >= l {
                return None;
            }
            b += v as usize * self.strides[axis];
        }
        match self.box_to_cell[b] {
            u32::MAX => None,
            c => Some(c as usize),
        }
    }

    /// A step of finite chess: the number plus `Σ offset_k b^-k`.
    fn carry_step(&self, cell: Cell, offset: &[i32]) -> Option<Cell> {
        let b = self.lens[0] as i64;
        let n = self.lens.len();
        // Value in units of b^-d: digit k (0-based axis) weighs b^(d-1-k).
        let mut value = 0i64;
        let mut delta = 0i64;
        for axis in 0..n {
            value = value * b + self.coord(cell, axis) as i64;
            delta = delta * b + offset.get(axis).copied().unwrap_or(0) as i64;
        }
        let total = b.pow(n as u32);
        let v = value + delta;
        if !(0..total).contains(&v) {
            return None;
        }
        let mut rest = v;
        let mut bx = 0;
        for axis in (0..n).rev() {
            bx += (rest % b) as usize * self.strides[axis];
            rest /= b;
        }
        match self.box_to_cell[bx] {
            u32::MAX => None,
            c => Some(c as usize),
        }
    }

    /// Every cell reached from `cell` by `offset`: the one of
    /// [`Geometry::step`], or on the double diamond every end of the walks
    /// that realise the offset (a face cell's steps inwards enter both
    /// copies).
    pub fn steps(&self, cell: Cell, offset: &[i32]) -> Vec<Cell> {
        self.steps_keeping(cell, offset, 0)
    }

    /// [`Geometry::steps`] whose walks may not turn at a face of the axes
    /// in `keep` (bit k for axis k+1): a pawn does not cross the face of
    /// its own axis (its promotion face) back into the board.
    pub fn steps_keeping(&self, cell: Cell, offset: &[i32], keep: u32) -> Vec<Cell> {
        match self.stepping {
            Stepping::Fold(l) => self.fold_steps(l, cell, offset, keep),
            _ => self.step(cell, offset).into_iter().collect(),
        }
    }

    /// All unit-step directions (vectors in {-1,0,1}^n, zero excluded).
    pub fn directions(&self) -> &[Vec<i32>] {
        &self.directions
    }

    /// Number of coordinates direction `d` changes (1 = orthogonal, 2 = face
    /// diagonal, …).
    pub fn direction_dims(&self, d: usize) -> usize {
        self.direction_dims[d] as usize
    }

    /// The direction opposite to `d`.
    #[inline]
    pub fn opposite(&self, d: usize) -> usize {
        self.direction_opposite[d] as usize
    }

    /// Index of the direction vector `v`.
    pub fn direction_index(&self, v: &[i32]) -> Option<usize> {
        self.directions.iter().position(|w| w == v)
    }

    /// Per cell, the non-empty rays along the directions of `dirs` (in
    /// that order), each with the tag given beside its direction, and the
    /// rays' cell signatures if `signatures`.
    pub fn ray_table(&self, dirs: &[(usize, u16)], signatures: bool) -> RayTable {
        let mut t = RayTable::default();
        for &(_, tag) in dirs {
            if !t.groups.contains(&tag) {
                t.groups.push(tag);
            }
        }
        let fits = |n: usize| u32::try_from(n).expect("invariant: a ray table's size fits a u32");
        for cell in 0..self.cell_count() {
            let start = fits(t.rays.len());
            for &(d, tag) in dirs {
                let s = self.ray_spans[cell * self.directions.len() + d];
                if s.len > 0 {
                    let r = RayRef {
                        start: s.start,
                        len: u16::try_from(s.len)
                            .expect("invariant: a ray is shorter than MAX_CELLS"),
                        dir: d as u16,
                        tag,
                        group: t.groups.iter().position(|&g| g == tag).unwrap_or(0) as u16,
                    };
                    if signatures {
                        t.signatures
                            .push(cell_signature(self.ray_cells(r).iter().map(|&c| c as Cell)));
                    }
                    let end = r.start.checked_add(r.len as u32);
                    t.end = t.end.max(end.expect("invariant: a ray ends within a u32"));
                    t.rays.push(r);
                }
            }
            t.spans.push(Span {
                start,
                len: fits(t.rays.len()) - start,
            });
        }
        t
    }

    /// The cells of a ray of a [`RayTable`] of this geometry, nearest
    /// first.
    #[inline(always)]
    pub fn ray_cells(&self, r: RayRef) -> &[u16] {
        &self.ray_cells[r.start as usize..r.start as usize + r.len as usize]
    }

    /// Whether every ray of `table` lies in this geometry's ray storage
    /// (true of the tables it built): the one check, per walk, that lets
    /// the walk read each ray by [`Geometry::ray_cells_unchecked`].
    #[inline(always)]
    pub fn holds(&self, table: &RayTable) -> bool {
        table.end as usize <= self.ray_cells.len()
    }

    /// Asserts [`Geometry::holds`] for `table`: the one check, before a
    /// walk of `table`'s rays by [`Geometry::ray_cells_unchecked`], that
    /// the variant's ray tables are this geometry's.
    #[inline(always)]
    #[track_caller]
    pub fn assert_holds(&self, table: &RayTable) {
        assert!(
            self.holds(table),
            "invariant: the variant's ray tables are its geometry's"
        );
    }

    /// [`Geometry::ray_cells`] without the bounds check, for the hot ray
    /// walks: on a 4-D diamond most slides stop after a cell or two, so
    /// the check per ray weighs nearly as much as the visits.
    ///
    /// # Safety
    /// `r` must be a ray of a [`RayTable`] `t` with `self.holds(t)` (its
    /// cells then lie in this geometry's ray storage).
    #[inline(always)]
    pub unsafe fn ray_cells_unchecked(&self, r: RayRef) -> &[u16] {
        let range = r.start as usize..r.start as usize + r.len as usize;
        debug_assert!(
            range.end <= self.ray_cells.len(),
            "a ray of another geometry"
        );
        // SAFETY: the caller's promise (above).
        unsafe { self.ray_cells.get_unchecked(range) }
    }

    /// The ray from `cell` along direction `d`, nearest cell first; it ends at
    /// the board's edge or just before it would return to `cell`.
    #[inline(always)]
    pub fn ray(&self, cell: Cell, d: usize) -> &[u16] {
        let s = self.ray_spans[cell * self.directions.len() + d];
        &self.ray_cells[s.start as usize..(s.start + s.len) as usize]
    }

    /// A per-cell table of the distinct cells reached by the given offsets
    /// (leapers and one-step movers). The origin itself is never a target.
    pub fn leap_table(&self, offsets: &[Vec<i32>]) -> CellTable {
        CellTable::from_lists((0..self.cell_count()).map(|cell| {
            let mut t: Vec<Cell> = offsets
                .iter()
                .flat_map(|o| self.steps(cell, o))
                .filter(|&c| c != cell)
                .collect();
            t.sort_unstable();
            t.dedup();
            t
        }))
    }

    /// The letter naming value `v` on `axis` (0-based) in the layered naming.
    fn layered_letter(axis: usize, v: i32) -> char {
        let base = if (axis + 1).is_multiple_of(2) {
            b'a'
        } else {
            b'A'
        };
        (base + v as u8) as char
    }

    /// The ASCII name of a cell (docs/notation.md).
    pub fn cell_name(&self, cell: Cell) -> String {
        let x = self.coords(cell);
        match self.naming {
            Naming::TwoD => {
                let file = if x.len() > 1 {
                    (b'a' + x[1] as u8) as char
                } else {
                    'a'
                };
                format!("{}{}", file, x[0] + 1)
            }
            Naming::Layered => {
                let mut s = String::new();
                for axis in (1..x.len()).rev() {
                    s.push(Self::layered_letter(axis, x[axis] as i32));
                }
                s.push_str(&(x[0] + 1).to_string());
                s
            }
            Naming::Cube => {
                const LEVELS: [char; 4] = ['a', 'b', 'g', 'd'];
                format!(
                    "{}{}{}",
                    (b'a' + x[1] as u8) as char,
                    x[0] + 1,
                    LEVELS[x[2] as usize]
                )
            }
        }
    }

    /// Parses a cell name at the start of `s`; returns the cell and the number
    /// of bytes consumed.
    pub fn parse_cell_prefix(&self, s: &str) -> Option<(Cell, usize)> {
        let n = self.lens.len();
        let mut x = vec![0i32; n];
        let mut chars = s.char_indices().peekable();
        let letter_value = |c: char| -> Option<i32> {
            if c.is_ascii_lowercase() {
                Some(c as i32 - 'a' as i32)
            } else if c.is_ascii_uppercase() {
                Some(c as i32 - 'A' as i32)
            } else {
                None
            }
        };
        let rank_digits = |chars: &mut std::iter::Peekable<std::str::CharIndices>| {
            let mut v: i32 = 0;
            let mut count = 0;
            while let Some(&(_, c)) = chars.peek() {
                if let Some(d) = c.to_digit(10) {
                    if count >= 3 {
                        return None;
                    }
                    v = v * 10 + d as i32;
                    count += 1;
                    chars.next();
                } else {
                    break;
                }
            }
            if count == 0 || v == 0 {
                None
            } else {
                Some(v - 1)
            }
        };
        match self.naming {
            Naming::TwoD => {
                let (_, c) = chars.next()?;
                if !c.is_ascii_lowercase() {
                    return None;
                }
                if n > 1 {
                    x[1] = letter_value(c)?;
                }
                x[0] = rank_digits(&mut chars)?;
            }
            Naming::Layered => {
                for axis in (1..n).rev() {
                    let (_, c) = chars.next()?;
                    x[axis] = match c {
                        'α'..='ω' if axis == 3 => c as i32 - 'α' as i32,
                        _ => letter_value(c)?,
                    };
                }
                x[0] = rank_digits(&mut chars)?;
            }
            Naming::Cube => {
                let (_, f) = chars.next()?;
                x[1] = letter_value(f)?;
                if !f.is_ascii_lowercase() {
                    return None;
                }
                let (_, r) = chars.next()?;
                x[0] = r.to_digit(10)? as i32 - 1;
                let (_, lv) = chars.next()?;
                x[2] = match lv {
                    'a' | 'α' => 0,
                    'b' | 'β' => 1,
                    'g' | 'γ' => 2,
                    'd' | 'δ' => 3,
                    _ => return None,
                };
            }
        }
        let consumed = chars.peek().map(|&(i, _)| i).unwrap_or(s.len());
        Some((self.cell_at(&x)?, consumed))
    }

    /// Parses a whole cell name.
    pub fn parse_cell(&self, s: &str) -> Option<Cell> {
        match self.parse_cell_prefix(s) {
            Some((c, used)) if used == s.len() => Some(c),
            _ => None,
        }
    }
}

impl fmt::Debug for Geometry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Geometry")
            .field("lens", &self.lens)
            .field("wraps", &self.wraps)
            .field("shape", &self.shape)
            .field("cells", &self.cell_count())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diamond(n: usize, l: usize) -> Geometry {
        Geometry::new(vec![l; n], vec![false; n], Shape::Diamond, Naming::Layered).unwrap()
    }

    #[test]
    fn diamond_cell_counts_match_rules() {
        // RULES.md §2.5: n=3, l=8: 256 cells; n=4: 1056; n=5: 3872.
        assert_eq!(diamond(3, 8).cell_count(), 256);
        assert_eq!(diamond(4, 8).cell_count(), 1056);
        assert_eq!(diamond(5, 8).cell_count(), 3872);
    }

    #[test]
    fn diamond_face_has_n_times_two_to_n_minus_one_cells() {
        // T8.1: the faces x1 = 0 hold n * 2^(n-1) cells, independent of l.
        for (n, l) in [(3, 8), (3, 10), (4, 8), (4, 10), (5, 8)] {
            let g = diamond(n, l);
            let face = (0..g.cell_count()).filter(|&c| g.coord(c, 0) == 0).count();
            assert_eq!(face, n << (n - 1), "n={n} l={l}");
        }
    }

    #[test]
    fn names_round_trip_on_every_board() {
        let boards = [
            Geometry::new(vec![8, 8], vec![false, false], Shape::Box, Naming::TwoD).unwrap(),
            Geometry::new(vec![14, 8], vec![true, true], Shape::Box, Naming::TwoD).unwrap(),
            Geometry::new(vec![4, 4, 4], vec![false; 3], Shape::Box, Naming::Cube).unwrap(),
            diamond(3, 8),
            diamond(4, 8),
            diamond(5, 10),
        ];
        for g in &boards {
            for c in 0..g.cell_count() {
                let name = g.cell_name(c);
                assert_eq!(g.parse_cell(&name), Some(c), "{name}");
            }
        }
    }

    #[test]
    fn seed_spellings() {
        let g = diamond(3, 8);
        // "Dd1" is x3=3, x2=3, x1=0 (RULES §2.5).
        let c = g.parse_cell("Dd1").unwrap();
        assert_eq!(g.coords(c), &[0, 3, 3]);
        let g4 = diamond(4, 8);
        // "εEd1": axis-4 value ε = 4, E = 4, d = 3, rank 1.
        let c = g4.parse_cell("εEd1").unwrap();
        assert_eq!(g4.coords(c), &[0, 3, 4, 4]);
        assert_eq!(g4.cell_name(c), "eEd1");
        let cube = Geometry::new(vec![4, 4, 4], vec![false; 3], Shape::Box, Naming::Cube).unwrap();
        let c = cube.parse_cell("b1g").unwrap();
        assert_eq!(cube.coords(c), &[0, 1, 2]);
        assert_eq!(g.parse_cell("Aa1"), None, "corner outside the diamond");
        assert_eq!(g.parse_cell("Dd0"), None);
        assert_eq!(g.parse_cell("Dd"), None);
    }

    #[test]
    fn rays_wrap_and_stop_before_origin() {
        let g = Geometry::new(vec![8, 8], vec![false, true], Shape::Box, Naming::TwoD).unwrap();
        let a1 = g.parse_cell("a1").unwrap();
        let east = g.direction_index(&[0, 1]).unwrap();
        let ray: Vec<String> = g
            .ray(a1, east)
            .iter()
            .map(|&c| g.cell_name(c as usize))
            .collect();
        assert_eq!(ray, ["b1", "c1", "d1", "e1", "f1", "g1", "h1"]);
        let west = g.direction_index(&[0, -1]).unwrap();
        assert_eq!(g.cell_name(g.ray(a1, west)[0] as usize), "h1");
        let ne = g.direction_index(&[1, 1]).unwrap();
        let diag: Vec<String> = g
            .ray(a1, ne)
            .iter()
            .map(|&c| g.cell_name(c as usize))
            .collect();
        assert_eq!(diag, ["b2", "c3", "d4", "e5", "f6", "g7", "h8"]);
        let g2 = g.parse_cell("g2").unwrap();
        let diag: Vec<String> = g
            .ray(g2, ne)
            .iter()
            .map(|&c| g.cell_name(c as usize))
            .collect();
        assert_eq!(diag, ["h3", "a4", "b5", "c6", "d7", "e8"]);
    }
}
