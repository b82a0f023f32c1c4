//! A deliberately simple reference move generator for every ndchess variant.
//!
//! Written straight from `shared/spec/RULES.md` (and the German seeds it
//! digests) with plain coordinate arithmetic: no bitboards, no per-cell attack
//! tables, and no code from `src/`. The agreement tests compare this module
//! with the fast engine; a rule bug then has to be made twice, independently,
//! to go unnoticed. Simplicity and obviousness win over speed everywhere:
//!
//! - a cell is a flat index into the bounding box, and every step recomputes
//!   the coordinates, adds the offset (modulo the edge on wrapping axes) and
//!   checks the cell shape;
//! - pieces live in a sorted list of (cell, piece), so a position is cheap to
//!   clone and legality is tested the dumb way: play the move on a copy and ask
//!   every enemy piece whether it attacks the mover's king;
//! - moves are collected in a `BTreeSet`, so the same (from, to, promotion)
//!   reached along two rays of a wrapping board is one move (RULES §1).
//!
//! One exception to the plain arithmetic: the double diamond (RULES §2.9)
//! is not directed, so its moves are walks along the seed's linear subsets
//! with direction changes ([`Variant::line_next`], [`Variant::line_walk`]).
//! Those walks are computed once per cell and direction when the variant is
//! built (on the empty board, from the definition; still no code from
//! `src/`), because walking them again for every attack question made a
//! depth-3 perft take a quarter of an hour.
//!
//! The only derived data kept in a [`Variant`] are the coordinates of each
//! flat index (division is slow), the direction and leap vectors of each piece
//! kind, computed from their definitions in RULES §1 and §2.10, and the start
//! position with the cells it implies (pawn start cells, promotion cells,
//! castling rooks).
//!
//! Promotion offers the non-king non-pawn kinds present in the start position
//! (T4.8: "any own piece type", F_g). For the n = 3 Table 8.3 setup, which has
//! no rooks, that excludes the rook; the fast engine offers it (reported to
//! the lead as an open rules question).

// Every test binary that includes this module uses a different part of it.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

pub mod multiparty;
pub mod synchronous;

/// Highest dimension the reference supports; coordinates are fixed arrays so
/// that stepping never allocates. Unused trailing entries are always 0.
pub const MAX_DIM: usize = 8;

/// Cell coordinates: `c[0]` = axis 1 (rank), `c[1]` = axis 2 (file),
/// `c[2]` = axis 3 (level), … — the same convention as the fast engine's API.
pub type Coords = [i32; MAX_DIM];

/// Player index of white (moves first, pawns go towards higher ranks).
pub const WHITE: usize = 0;
/// Player index of black.
pub const BLACK: usize = 1;

/// The forward direction along axis 1 of a player's ordinary pawns.
pub fn forward(owner: usize) -> i32 {
    if owner == WHITE { 1 } else { -1 }
}

/// The kinds of pieces the variants use (RULES §1 table and §2.10).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    King,
    Queen,
    Rook,
    Knight,
    /// A k-D bishop, sliding along directions that change exactly `k`
    /// coordinates by ±1 (`Bishop(2)` is the ordinary bishop).
    Bishop(usize),
    /// A pawn moving along axis 1 in direction `+1` or `-1` (torus boards have
    /// both kinds for each player).
    Pawn(i32),
    /// Raumschach's unicorn: slides along 3-D diagonals (the 3-D bishop of
    /// the theory under its Raumschach name and letter).
    Unicorn,
}

impl Kind {
    /// The uppercase letter of the fast engine's API for this kind when owned
    /// by `owner`: a pawn running against its owner's forward direction is `U`.
    pub fn letter(self, owner: usize) -> char {
        match self {
            Kind::King => 'K',
            Kind::Queen => 'Q',
            Kind::Rook => 'R',
            Kind::Knight => 'N',
            Kind::Bishop(2) => 'B',
            Kind::Bishop(3) => 'W',
            Kind::Bishop(4) => 'G',
            Kind::Bishop(5) => 'X',
            Kind::Bishop(6) => 'Y',
            Kind::Bishop(k) => panic!("no letter for a {k}-D bishop"),
            Kind::Pawn(dir) if dir == forward(owner) => 'P',
            Kind::Pawn(_) => 'U',
            Kind::Unicorn => 'U',
        }
    }
}

/// A piece: its owner (0 = white, 1 = black) and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Piece {
    pub owner: usize,
    pub kind: Kind,
}

/// Which castling rule a variant uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Castling {
    /// No castling (diamond boards, the cube).
    None,
    /// FIDE Chess960 rules (classical chess is the special case 518): the
    /// king ends on the c- or g-file, the rook on the d- or f-file (RULES §2.2).
    Fide,
    /// T4.6 along the wrapping file axis (cylinder, torus; RULES §2.3): the
    /// rook slides in either direction to the cell next to the king, the king
    /// jumps over it. With rooks on a and h this gives four castlings.
    Wrap,
}

/// Pawn steps per (cell, axis, direction): the pushes as (one step, the
/// step beyond) and the capture cells. Two players' pawns move along axis
/// 1; the seats of a multi-party game along their own axes.
type PawnWalks =
    std::collections::HashMap<(usize, usize, i32), (Vec<(usize, Option<usize>)>, BTreeSet<usize>)>;

/// How a piece moves: a list of offsets, either leaps (one application) or
/// slide directions (repeated until blocked).
#[derive(Clone, Debug)]
struct Pattern {
    offsets: Vec<Coords>,
    slides: bool,
}

/// A board plus the rules and start position of one variant.
#[derive(Debug)]
pub struct Variant {
    /// The spec string this variant was built from.
    pub spec: String,
    /// Edge length of each axis (its number is the dimension n).
    pub lens: Vec<i32>,
    /// Whether each axis wraps around.
    pub wraps: Vec<bool>,
    /// Diamond cells (RULES §2.5) instead of the whole box.
    pub diamond: bool,
    /// The cube's own rules (RULES §2.10): short-range pieces, two-way pawns
    /// without double step or en passant, promotion zone of its own.
    pub cube: bool,
    /// Raumschach's rules (RULES §2.12, docs/variants.md): long-range
    /// pieces with the unicorn, pawns stepping forward or up without double
    /// step, promotion on the far rank of the far level.
    pub raumschach: bool,
    /// Torus-diamond (RULES §2.7, seed T8.7.2): axis 1 has period 2l-2 and
    /// a cell exists iff its axis-1 coordinate folded back into 0..l-1
    /// (x1 -> 2l-2-x1 above l-1) satisfies the diamond condition.
    pub torus_diamond: bool,
    /// Finite chess truncated at d digits (RULES §2.8, seed §12): the
    /// coordinates are the digits x1 … xd of the number 0.x1…xd in base
    /// b = the edge length, and a step adds to that number with carry.
    pub carry: bool,
    /// Double diamond (RULES §2.9, seed T8.7.3): the diamond's cells with
    /// every coordinate strictly inside exist twice (`x0 = ±1`), the face
    /// cells once (`x0 = 0`). A `-1` cell with coordinates `x` has the flat
    /// index of `(2l-2-x1, x2, …)` (the engine's naming, so keys compare);
    /// moves follow the seed's linear subsets and direction changes (see
    /// [`Variant::line_next`]), not coordinate offsets.
    pub double: bool,
    /// The double diamond's line neighbours, `[cell][axis][0 = predecessor,
    /// 1 = successor]`, computed once by [`Variant::line_neighbour`].
    lines: Vec<[[Option<usize>; 2]; MAX_DIM]>,
    /// The double diamond's walks on the empty board, computed once from
    /// the lines by [`Variant::empty_walk`]: `(cell, offset, slides)` ->
    /// the ray's cells in order (slides) or the ends (leaps). Walking them
    /// afresh for every attack question made perft too slow to test.
    walks: std::collections::HashMap<(usize, Coords, bool), Vec<usize>>,
    /// The double diamond's pawn steps, `(cell, direction)` -> (pushes,
    /// capture cells), computed once by [`Variant::pawn_pushes_double`]
    /// and [`Variant::pawn_captures_double`].
    pawn_walks: PawnWalks,
    /// Per (cell, pattern slot): every cell the walks reach on the empty
    /// board, so an attack question on the double diamond can be answered
    /// "no" without walking.
    reach: std::collections::HashMap<(usize, usize), BTreeSet<usize>>,
    pub castling: Castling,
    /// The start position, cell -> piece.
    pub start: BTreeMap<usize, Piece>,
    /// Cells on which each player's pawns promote.
    pub promotion_cells: [BTreeSet<usize>; 2],
    /// Kinds a pawn may promote to (all non-king non-pawn kinds of the start
    /// position).
    pub promotion_kinds: Vec<Kind>,
    /// Movement patterns by [`pattern_slot`] of the kind (pawns: their
    /// capture offsets).
    patterns: Vec<Pattern>,
    /// `cell_coords[i]` = coordinates of flat index i.
    cell_coords: Vec<Coords>,
    /// `on_board[i]` = [`Variant::in_shape`] of flat index i, filled in by
    /// [`Variant::finish`] once the board's shape is final (empty before:
    /// [`Variant::cell`] then asks `in_shape` itself). A deep perft asks
    /// for billions of cells, and the diamond's inequality was a seventh of
    /// the reference's time.
    on_board: Vec<bool>,
}

impl Variant {
    /// The dimension n.
    pub fn dim(&self) -> usize {
        self.lens.len()
    }

    /// Number of cells of the bounding box (the range of flat indices).
    pub fn box_size(&self) -> usize {
        self.lens.iter().map(|&l| l as usize).product()
    }

    /// Coordinates of a flat index (axis 1 varies fastest).
    pub fn coords(&self, cell: usize) -> Coords {
        self.cell_coords[cell]
    }

    /// Coordinates of every flat index of the box, computed by division
    /// (kept only because division is slow in the innermost loops).
    fn all_coords(lens: &[i32]) -> Vec<Coords> {
        let size: usize = lens.iter().map(|&l| l as usize).product();
        (0..size)
            .map(|cell| {
                let mut c = [0; MAX_DIM];
                let mut rest = cell;
                for (a, &len) in lens.iter().enumerate() {
                    c[a] = (rest % len as usize) as i32;
                    rest /= len as usize;
                }
                c
            })
            .collect()
    }

    /// Coordinates as a `Vec` of length n, as the fast engine's API uses them.
    pub fn coords_vec(&self, cell: usize) -> Vec<i32> {
        self.coords(cell)[..self.dim()].to_vec()
    }

    /// Whether coordinates inside the box belong to the board's cell shape.
    /// Diamond: `Σ_i (|x_i + (1-l)/2| - 1/2) <= l/2`, doubled to stay integral.
    fn in_shape(&self, c: &Coords) -> bool {
        if !self.diamond {
            return true;
        }
        // The diamond's edge: every axis has it, except axis 1 of the
        // torus-diamond, which is doubled.
        let l = self.lens[self.dim() - 1];
        let mut c = *c;
        if (self.torus_diamond || self.double) && c[0] > l - 1 {
            c[0] = 2 * l - 2 - c[0];
            // Only cells strictly inside on every axis are doubled.
            if self.double && (0..self.dim()).any(|a| c[a] == 0 || c[a] == l - 1) {
                return false;
            }
        }
        let doubled: i32 = (0..self.dim()).map(|a| (2 * c[a] + 1 - l).abs() - 1).sum();
        doubled <= l
    }

    /// The flat index of in-range coordinates on the board, if any.
    pub fn cell(&self, c: &Coords) -> Option<usize> {
        let mut index = 0usize;
        let mut stride = 1usize;
        for (a, &len) in self.lens.iter().enumerate() {
            if c[a] < 0 || c[a] >= len {
                return None;
            }
            index += c[a] as usize * stride;
            stride *= len as usize;
        }
        let on_board = match self.on_board.get(index) {
            Some(&known) => known,
            None => self.in_shape(c),
        };
        on_board.then_some(index)
    }

    /// The cell reached from `cell` by adding `delta`, wrapping on wrapping
    /// axes; `None` if that leaves the board (RULES §1: a step exists iff its
    /// end cell is on the board).
    pub fn offset(&self, cell: usize, delta: &Coords) -> Option<usize> {
        if self.carry {
            // The number plus the step, as integers in units of b^-d.
            let b = self.lens[0] as i64;
            let c = self.coords(cell);
            let (mut value, mut step) = (0i64, 0i64);
            for a in 0..self.dim() {
                value = value * b + c[a] as i64;
                step = step * b + delta[a] as i64;
            }
            let mut sum = value + step;
            if sum < 0 || sum >= b.pow(self.dim() as u32) {
                return None;
            }
            let mut digits = [0; MAX_DIM];
            for a in (0..self.dim()).rev() {
                digits[a] = (sum % b) as i32;
                sum /= b;
            }
            return self.cell(&digits);
        }
        let mut c = self.coords(cell);
        for a in 0..self.dim() {
            c[a] += delta[a];
            // Only a coordinate that left the axis needs the (slow) modulo.
            if self.wraps[a] && !(0..self.lens[a]).contains(&c[a]) {
                c[a] = c[a].rem_euclid(self.lens[a]);
            }
        }
        self.cell(&c)
    }

    /// All cells of the board, in index order.
    pub fn cells(&self) -> Vec<usize> {
        (0..self.box_size())
            .filter(|&i| self.in_shape(&self.coords(i)))
            .collect()
    }

    /// The movement pattern of a kind (for pawns: the capture offsets).
    fn pattern(&self, kind: Kind) -> &Pattern {
        &self.patterns[pattern_slot(kind)]
    }

    /// The cells `piece` on `from` could move to on an otherwise empty board
    /// (pawns: pushes and captures, ignoring that captures need a victim and
    /// excluding the double step). Used to check the seeds' mobility numbers.
    pub fn empty_board_targets(&self, from: usize, piece: Piece) -> BTreeSet<usize> {
        let mut pos = Position::empty(self);
        pos.board.insert(from, piece);
        let mut targets = BTreeSet::new();
        let pattern = self.pattern(piece.kind);
        if let Kind::Pawn(dir) = piece.kind {
            for push in self.pawn_pushes(dir) {
                targets.extend(self.offset(from, &push));
            }
            for d in &pattern.offsets {
                targets.extend(self.offset(from, d));
            }
        } else {
            for d in &pattern.offsets {
                pos.walk(from, d, pattern.slides, |to, _| {
                    targets.insert(to);
                });
            }
        }
        targets
    }

    /// Single-step pushes of a pawn of direction `dir` (RULES §1; the cube's
    /// pawns may also step up/down a level, RULES §2.10).
    fn pawn_pushes(&self, dir: i32) -> Vec<Coords> {
        let mut pushes = vec![unit(0, dir)];
        if self.cube || self.raumschach {
            pushes.push(unit(2, dir));
        }
        pushes
    }
}

/// The unit vector `sign · e_axis`.
fn unit(axis: usize, sign: i32) -> Coords {
    let mut d = [0; MAX_DIM];
    d[axis] = sign;
    d
}

/// Number of coordinates a direction changes.
fn changed(d: &Coords) -> usize {
    d.iter().filter(|&&x| x != 0).count()
}

/// All vectors of `{-1, 0, 1}^n` except zero that change a number of
/// coordinates accepted by `keep`.
fn directions(n: usize, keep: impl Fn(usize) -> bool) -> Vec<Coords> {
    let mut all = vec![[0; MAX_DIM]];
    for a in 0..n {
        all = all
            .into_iter()
            .flat_map(|d| {
                [-1, 0, 1].map(|s| {
                    let mut e = d;
                    e[a] = s;
                    e
                })
            })
            .collect();
    }
    all.into_iter()
        .filter(|d| changed(d) > 0 && keep(changed(d)))
        .collect()
}

/// Knight leaps: ±2 along one axis and ±1 along another (RULES §1).
fn knight_leaps(n: usize) -> Vec<Coords> {
    let mut leaps = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if a != b {
                for sa in [-2, 2] {
                    for sb in [-1, 1] {
                        let mut d = [0; MAX_DIM];
                        d[a] = sa;
                        d[b] = sb;
                        leaps.push(d);
                    }
                }
            }
        }
    }
    leaps
}

/// Capture offsets of a pawn of direction `dir`. Theory pawns capture on the
/// 2-D diagonals `dir·e1 ± e_l` for every other axis l (RULES §1); the cube's
/// pawns capture diagonally forward or up/down along the file (RULES §2.10).
fn pawn_captures(n: usize, cube: bool, dir: i32) -> Vec<Coords> {
    let mut caps = Vec::new();
    if cube {
        for main in [0, 2] {
            for side in [-1, 1] {
                let mut d = unit(main, dir);
                d[1] = side;
                caps.push(d);
            }
        }
    } else {
        for l in 1..n {
            for side in [-1, 1] {
                let mut d = unit(0, dir);
                d[l] = side;
                caps.push(d);
            }
        }
    }
    caps
}

/// Where a kind's pattern is kept in [`Variant::patterns`].
fn pattern_slot(kind: Kind) -> usize {
    match kind {
        Kind::King => 0,
        Kind::Queen => 1,
        Kind::Rook => 2,
        Kind::Knight => 3,
        Kind::Pawn(-1) => 4,
        Kind::Pawn(1) => 5,
        Kind::Pawn(dir) => panic!("no pawn direction {dir}"),
        Kind::Bishop(k) => 4 + k,
        Kind::Unicorn => 4 + 3,
    }
}

/// Movement patterns of every kind on an n-dimensional board, by
/// [`pattern_slot`].
fn patterns(n: usize, cube: bool) -> Vec<Pattern> {
    let leap = |offsets| Pattern {
        offsets,
        slides: false,
    };
    let slide = |offsets| Pattern {
        offsets,
        slides: true,
    };
    let mut p = BTreeMap::new();
    p.insert(Kind::Knight, leap(knight_leaps(n)));
    p.insert(Kind::Rook, slide(directions(n, |k| k == 1)));
    for dir in [-1, 1] {
        p.insert(Kind::Pawn(dir), leap(pawn_captures(n, cube, dir)));
    }
    if cube {
        // RULES §2.10: king one orthogonal step, queen one orthogonal or face
        // diagonal step, bishop one face-diagonal step.
        p.insert(Kind::King, leap(directions(n, |k| k == 1)));
        p.insert(Kind::Queen, leap(directions(n, |k| k <= 2)));
        p.insert(Kind::Bishop(2), leap(directions(n, |k| k == 2)));
    } else {
        p.insert(Kind::King, leap(directions(n, |_| true)));
        p.insert(Kind::Queen, slide(directions(n, |_| true)));
        for k in 2..=n {
            p.insert(Kind::Bishop(k), slide(directions(n, |m| m == k)));
        }
    }
    let mut by_slot = vec![leap(Vec::new()); 5 + n];
    for (kind, pattern) in p {
        by_slot[pattern_slot(kind)] = pattern;
    }
    by_slot
}

/// Parses `name[:key=value,...]` into the name and its parameters.
fn parse_spec(spec: &str) -> Result<(String, BTreeMap<String, String>), String> {
    let (name, params) = spec.split_once(':').unwrap_or((spec, ""));
    let mut map = BTreeMap::new();
    for item in params.split(',').filter(|s| !s.is_empty()) {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| format!("bad parameter {item:?}"))?;
        map.insert(k.trim().to_string(), v.trim().to_string());
    }
    Ok((name.trim().to_string(), map))
}

fn param<T: std::str::FromStr>(
    map: &BTreeMap<String, String>,
    key: &str,
    default: T,
) -> Result<T, String> {
    match map.get(key) {
        None => Ok(default),
        Some(v) => v.parse().map_err(|_| format!("bad value {v:?} for {key}")),
    }
}

impl Variant {
    /// Builds a variant from the spec strings the fast engine accepts:
    /// `chess`, `chess960:sp=N`, `cylinder`, `torus`, `diamond:n=N,l=L[,setup=8.1|8.2|8.3]`,
    /// `cylinder-diamond:…` (same parameters) and `cube`.
    pub fn from_spec(spec: &str) -> Result<Arc<Variant>, String> {
        let (name, params) = parse_spec(spec)?;
        let mut v = match name.as_str() {
            "chess" => Self::two_d(8, false, false, CLASSICAL, Castling::Fide),
            "chess960" => {
                let sp: usize = param(&params, "sp", 518)?;
                if sp >= 960 {
                    return Err(format!("sp={sp} out of 0..959"));
                }
                Self::two_d(8, false, false, chess960_back_rank(sp), Castling::Fide)
            }
            "cylinder" => Self::two_d(8, false, true, CLASSICAL, Castling::Wrap),
            "torus" => Self::two_d(14, true, true, CLASSICAL, Castling::Wrap),
            "diamond" | "cylinder-diamond" | "torus-diamond" | "double-diamond" => {
                let n: usize = param(&params, "n", 3)?;
                let l: i32 = param(&params, "l", 8)?;
                let default_setup = match n {
                    3 => "8.1",
                    4 => "8.2",
                    _ => "8.3",
                };
                let setup: String = param(&params, "setup", default_setup.to_string())?;
                if name == "torus-diamond" {
                    Self::torus_diamond(n, l, &setup)?
                } else if name == "double-diamond" {
                    Self::double_diamond(n, l, &setup)?
                } else {
                    Self::diamond(n, l, name == "cylinder-diamond", &setup)?
                }
            }
            "cube" => Self::cube(),
            "raumschach" => Self::raumschach(),
            "finite" => {
                let b: i32 = param(&params, "b", 8)?;
                let d: usize = param(&params, "d", 2)?;
                Self::finite(b, d)
            }
            _ => return Err(format!("unknown variant {name:?}")),
        };
        v.spec = spec.to_string();
        v.finish();
        Ok(Arc::new(v))
    }

    /// An empty board; the start position is filled in by the caller.
    fn board(
        lens: Vec<i32>,
        wraps: Vec<bool>,
        diamond: bool,
        cube: bool,
        castling: Castling,
    ) -> Variant {
        assert!(lens.len() <= MAX_DIM, "dimension above MAX_DIM");
        let n = lens.len();
        Variant {
            spec: String::new(),
            wraps,
            diamond,
            cube,
            raumschach: false,
            torus_diamond: false,
            carry: false,
            double: false,
            lines: Vec::new(),
            walks: Default::default(),
            pawn_walks: Default::default(),
            reach: Default::default(),
            castling,
            start: BTreeMap::new(),
            promotion_cells: [BTreeSet::new(), BTreeSet::new()],
            promotion_kinds: Vec::new(),
            patterns: patterns(n, cube),
            cell_coords: Self::all_coords(&lens),
            on_board: Vec::new(),
            lens,
        }
    }

    /// Puts a piece into the start position; panics if the cell is off the
    /// board or taken twice (either would be a setup transcription error).
    fn place(&mut self, c: Coords, owner: usize, kind: Kind) {
        let cell = self
            .cell(&c)
            .unwrap_or_else(|| panic!("start cell {c:?} is off the board"));
        let old = self.start.insert(cell, Piece { owner, kind });
        assert!(old.is_none(), "start cell {c:?} used twice");
    }

    /// Derives what follows from the start position: promotion cells (cells
    /// that held an enemy non-pawn piece, T4.8; the cube: rank 4 of level δ
    /// for white, rank 1 of level α for black) and promotion kinds.
    fn finish(&mut self) {
        self.on_board = (0..self.box_size())
            .map(|i| self.in_shape(&self.coords(i)))
            .collect();
        for (&cell, piece) in &self.start {
            let c = self.coords(cell);
            let enemy = 1 - piece.owner;
            let promotes = if self.cube || self.raumschach {
                let top = self.lens[0] - 1;
                let (rank, level) = if enemy == WHITE { (top, top) } else { (0, 0) };
                c[0] == rank && c[2] == level
            } else {
                !matches!(piece.kind, Kind::Pawn(_))
            };
            if promotes {
                self.promotion_cells[enemy].insert(cell);
            }
        }
        let mut kinds: BTreeSet<Kind> = self
            .start
            .values()
            .map(|p| p.kind)
            .filter(|k| !matches!(k, Kind::King | Kind::Pawn(_)))
            .collect();
        // T4.8 promotes to the player's piece set F_g. The n-D diamond's set
        // holds the rook even where a setup places none (Table 8.3 for
        // n = 3); docs/variants.md records this decision.
        if self.lens.len() >= 3 && !self.cube {
            kinds.insert(Kind::Rook);
        }
        // Finite chess keeps the seed's whole piece set (K D T S L^k b)
        // whatever a truncation places at the start: a pawn may become a
        // rook or knight even where d = 2 has none.
        if self.carry {
            kinds.insert(Kind::Rook);
            kinds.insert(Kind::Knight);
            kinds.insert(Kind::Queen);
            for k in 2..=self.dim() {
                kinds.insert(Kind::Bishop(k));
            }
        }
        self.promotion_kinds = kinds.into_iter().collect();
    }

    /// 8-file boards: classical chess, Chess960, cylinder (files wrap) and
    /// torus (14 ranks, both axes wrap, extra pawn rows on ranks 14 and 9;
    /// RULES §2.4).
    fn two_d(
        ranks: i32,
        wrap_ranks: bool,
        wrap_files: bool,
        back: [Kind; 8],
        castling: Castling,
    ) -> Variant {
        let mut v = Self::board(
            vec![ranks, 8],
            vec![wrap_ranks, wrap_files],
            false,
            false,
            castling,
        );
        for (file, &kind) in back.iter().enumerate() {
            let f = file as i32;
            v.place(coords2(0, f), WHITE, kind);
            v.place(coords2(1, f), WHITE, Kind::Pawn(1));
            v.place(coords2(6, f), BLACK, Kind::Pawn(-1));
            v.place(coords2(7, f), BLACK, kind);
            if ranks == 14 {
                v.place(coords2(13, f), WHITE, Kind::Pawn(-1));
                v.place(coords2(8, f), BLACK, Kind::Pawn(1));
            }
        }
        v
    }

    /// The 4x4x4 cube of seed 001 as set out in RULES §2.10; coordinates are
    /// `[rank, file, level]` with level α = 0 … δ = 3.
    fn cube() -> Variant {
        let mut v = Self::board(vec![4, 4, 4], vec![false; 3], false, true, Castling::None);
        use Kind::*;
        let white = [
            ("a1a", Rook),
            ("b1a", Queen),
            ("c1a", King),
            ("d1a", Rook),
            ("a1b", Knight),
            ("b1b", Bishop(2)),
            ("c1b", Bishop(2)),
            ("d1b", Knight),
            ("a2a", Pawn(1)),
            ("b2a", Pawn(1)),
            ("c2a", Pawn(1)),
            ("d2a", Pawn(1)),
        ];
        let black = [
            ("a4d", Rook),
            ("b4d", King),
            ("c4d", Queen),
            ("d4d", Rook),
            ("a4g", Knight),
            ("b4g", Bishop(2)),
            ("c4g", Bishop(2)),
            ("d4g", Knight),
            ("a3d", Pawn(-1)),
            ("b3d", Pawn(-1)),
            ("c3d", Pawn(-1)),
            ("d3d", Pawn(-1)),
        ];
        for (owner, list) in [(WHITE, white), (BLACK, black)] {
            for (name, kind) in list {
                v.place(cube_cell(name), owner, kind);
            }
        }
        v
    }

    /// Raumschach (RULES §2.12, rules as docs/variants.md gives them from
    /// Dickins and Pritchard): 5x5x5, coordinates `[rank, file, level]`
    /// with level A = 0 … E = 4. White: level A rank 1 R N K N R, level B
    /// rank 1 B U Q B U, pawns on rank 2 of both levels; Black written out
    /// square by square from the published diagram (level E rank 5 R N K N
    /// R, level D rank 5 U B Q U B, pawns on rank 4 of both).
    fn raumschach() -> Variant {
        let mut v = Self::board(vec![5, 5, 5], vec![false; 3], false, false, Castling::None);
        v.raumschach = true;
        // Pawns step forward or up (pushes above) and capture one step
        // diagonally forward or up: forward or up plus a file step, or
        // forward and up together.
        for dir in [-1, 1] {
            let mut caps = Vec::new();
            for main in [0, 2] {
                for side in [-1, 1] {
                    let mut d = unit(main, dir);
                    d[1] = side;
                    caps.push(d);
                }
            }
            let mut both = unit(0, dir);
            both[2] = dir;
            caps.push(both);
            v.patterns[pattern_slot(Kind::Pawn(dir))] = Pattern {
                offsets: caps,
                slides: false,
            };
        }
        use Kind::*;
        let rows: [(i32, i32, usize, [Kind; 5]); 4] = [
            (0, 0, WHITE, [Rook, Knight, King, Knight, Rook]),
            (0, 1, WHITE, [Bishop(2), Unicorn, Queen, Bishop(2), Unicorn]),
            (4, 4, BLACK, [Rook, Knight, King, Knight, Rook]),
            (4, 3, BLACK, [Unicorn, Bishop(2), Queen, Unicorn, Bishop(2)]),
        ];
        for (rank, level, owner, kinds) in rows {
            for (file, kind) in kinds.into_iter().enumerate() {
                let mut c = [0; MAX_DIM];
                c[0] = rank;
                c[1] = file as i32;
                c[2] = level;
                v.place(c, owner, kind);
                let mut pawn = c;
                pawn[0] = if owner == WHITE { 1 } else { 3 };
                v.place(pawn, owner, Pawn(forward(owner)));
            }
        }
        v
    }

    /// The torus-diamond (RULES §2.7): the diamond's start on ranks 1, 2
    /// and l-1, l, and, as in torus chess (RULES §2.4), a second pawn per
    /// piece: white's on rank 2l-2 (next to rank 1 across the wrap), moving
    /// down, black's on rank l+1, moving up. Every axis wraps.
    fn torus_diamond(n: usize, l: i32, setup: &str) -> Result<Variant, String> {
        let mut v = Self::diamond(n, l, false, setup)?;
        v.torus_diamond = true;
        v.lens[0] = 2 * l - 2;
        v.wraps = vec![true; n];
        v.cell_coords = Self::all_coords(&v.lens);
        // The doubled pawn of each pawn runs the other way.
        v.double_the_pawns(l, |p| Kind::Pawn(-forward(p.owner)));
        Ok(v)
    }

    /// Re-places the diamond's start (built on the l-rank box) on the box
    /// whose axis 1 now has 2l-2 ranks, and puts a copy of every pawn on
    /// the mirror of its rank (`x1 -> 2l-2-x1`), of the kind `copy` gives.
    fn double_the_pawns(&mut self, l: i32, copy: impl Fn(Piece) -> Kind) {
        let old = std::mem::take(&mut self.start);
        let old_coords = Self::all_coords(&{
            let mut lens = self.lens.clone();
            lens[0] = l;
            lens
        });
        for (cell, piece) in old {
            let c = old_coords[cell];
            self.place(c, piece.owner, piece.kind);
            if matches!(piece.kind, Kind::Pawn(_)) {
                let mut d = c;
                d[0] = 2 * l - 2 - c[0];
                self.place(d, piece.owner, copy(piece));
            }
        }
    }

    /// The double diamond (RULES §2.9, seed T8.7.3): the diamond's start,
    /// its face cells not doubled (the seed's footnote 4), and the pawns by
    /// the first pawn-plane axiom: in front of every piece along axis 1 in
    /// both copies (white's on `x1 = 1`, black's on `x1 = l-2`, each with
    /// `x0 = ±1`).
    fn double_diamond(n: usize, l: i32, setup: &str) -> Result<Variant, String> {
        let mut v = Self::diamond(n, l, false, setup)?;
        v.double = true;
        v.lens[0] = 2 * l - 2;
        v.cell_coords = Self::all_coords(&v.lens);
        v.lines = (0..v.box_size())
            .map(|cell| {
                let mut t = [[None; 2]; MAX_DIM];
                if v.in_shape(&v.coords(cell)) {
                    for (k, slot) in t.iter_mut().enumerate().take(n) {
                        *slot = [v.line_neighbour(cell, k, -1), v.line_neighbour(cell, k, 1)];
                    }
                }
                t
            })
            .collect();
        let mut walks = std::collections::HashMap::new();
        let mut reach = std::collections::HashMap::new();
        for cell in v.cells() {
            for (slot, pattern) in v.patterns.iter().enumerate() {
                let mut all = BTreeSet::new();
                for d in &pattern.offsets {
                    let cells = walks
                        .entry((cell, *d, pattern.slides))
                        .or_insert_with(|| v.empty_walk(cell, d, pattern.slides));
                    all.extend(cells.iter().copied());
                }
                reach.insert((cell, slot), all);
            }
        }
        v.reach = reach;
        v.walks = walks;
        let mut pawn_walks = PawnWalks::new();
        for cell in v.cells() {
            for axis in 0..n {
                for dir in [-1, 1] {
                    let steps = (
                        v.pawn_pushes_double(cell, axis, dir),
                        v.pawn_captures_double(cell, axis, dir),
                    );
                    pawn_walks.insert((cell, axis, dir), steps);
                }
            }
        }
        v.pawn_walks = pawn_walks;
        // One pawn kind moves towards the enemy face in both copies.
        v.double_the_pawns(l, |p| p.kind);
        Ok(v)
    }

    /// The diamond's edge length of the double diamond.
    fn edge(&self) -> i32 {
        self.lens[self.dim() - 1]
    }

    /// `x0` and the coordinates `x` of a double-diamond cell.
    pub fn split(&self, cell: usize) -> (i32, Coords) {
        let l = self.edge();
        let mut x = self.coords(cell);
        if x[0] > l - 1 {
            x[0] = 2 * l - 2 - x[0];
            return (-1, x);
        }
        let face = (0..self.dim()).any(|a| x[a] == 0 || x[a] == l - 1);
        (if face { 0 } else { 1 }, x)
    }

    /// The double-diamond cell `(x0, x)`, if it exists.
    fn join(&self, x0: i32, x: &Coords) -> Option<usize> {
        let l = self.edge();
        if (0..self.dim()).any(|a| x[a] < 0 || x[a] > l - 1) {
            return None;
        }
        let face = (0..self.dim()).any(|a| x[a] == 0 || x[a] == l - 1);
        if face != (x0 == 0) {
            return None;
        }
        let mut c = *x;
        if x0 == -1 {
            c[0] = 2 * l - 2 - x[0];
        }
        self.cell(&c)
    }

    /// The neighbour of `cell` along axis k in the seed's line L(x, k):
    /// its successor (`e = 1`) or predecessor (`e = -1`). T8.7.3: if some
    /// cell with `y0 = 0` agrees with x off axis k, L is every cell that
    /// agrees with x off axis k; it is ordered by `a_k = b_k + 1` if all
    /// its cells have `x0 = 0`, else cyclically by `a0 != 0 ∧ a_k = b_k +
    /// a0` or `b0 != 0 ∧ a_k = b_k + b0`. Otherwise L also keeps x0, ordered
    /// by `a_k = b_k + a0`. Read literally the cyclic rule would also make
    /// a cell of one copy follow the next cell of the other copy, which no
    /// linear order allows; the two are never neighbours here (a cyclic
    /// line goes up one copy, across the far face and down the other).
    pub fn line_next(&self, cell: usize, k: usize, e: i32) -> Option<usize> {
        self.lines[cell][k][usize::from(e > 0)]
    }

    /// [`Variant::line_next`] computed from the definition (kept in
    /// `lines` once per cell, axis and sign).
    fn line_neighbour(&self, cell: usize, k: usize, e: i32) -> Option<usize> {
        let l = self.edge();
        let (x0, x) = self.split(cell);
        let along = |v: i32, y0: i32| {
            let mut y = x;
            y[k] = v;
            self.join(y0, &y).map(|c| (y0, v, c))
        };
        let shared = (0..l).any(|v| along(v, 0).is_some());
        let members: Vec<(i32, i32, usize)> = if shared {
            (0..l)
                .flat_map(|v| [-1, 0, 1].map(|y0| along(v, y0)))
                .flatten()
                .collect()
        } else {
            (0..l).filter_map(|v| along(v, x0)).collect()
        };
        let cyclic = shared && members.iter().any(|m| m.0 != 0);
        // Whether a follows b in L.
        let follows = |a: (i32, i32), b: (i32, i32)| {
            if !shared {
                a.1 == b.1 + a.0
            } else if !cyclic {
                a.1 == b.1 + 1
            } else {
                a.0 * b.0 != -1
                    && ((a.0 != 0 && a.1 == b.1 + a.0) || (b.0 != 0 && a.1 == b.1 + b.0))
            }
        };
        let me = (x0, x[k]);
        let found: Vec<usize> = members
            .iter()
            .filter(|m| {
                let other = (m.0, m.1);
                if e > 0 {
                    follows(other, me)
                } else {
                    follows(me, other)
                }
            })
            .map(|m| m.2)
            .collect();
        assert!(found.len() <= 1, "line L(x, {k}) is not linear at {x:?}");
        found.first().copied()
    }

    /// The signs along the line L(x, k) (`axis` = k-1) in which a pawn
    /// of direction `dir` on `from` moves on the double diamond: towards
    /// the enemy face, i.e. to the neighbour whose x_k is one further in
    /// `dir`. Inside the `-1` copy, whose lines run the other way, that is
    /// backwards (its pawns are the torus-diamond's doubled pawns); on a
    /// face cell of axis k both neighbours qualify, one in each copy. The
    /// seed's lines are defined alike for every axis, so this holds for the
    /// pawns of every seat of a multi-party game (T8.7.4).
    fn pawn_signs(&self, from: usize, axis: usize, dir: i32) -> Vec<i32> {
        let v = self;
        let (x0, x) = v.split(from);
        let xk = x[axis];
        // The lines' orders: through a copy cell `a_k = b_k + x0` (both
        // the copy's own lines and the cyclic ones), through a face cell
        // off the faces of axis k `a_k = b_k + 1`; these hold where the
        // next cell does not exist, too (a pawn then still captures).
        if x0 != 0 {
            return vec![dir * x0];
        }
        if xk != 0 && xk != v.edge() - 1 {
            return vec![dir];
        }
        [-1, 1]
            .into_iter()
            .filter(|&e| {
                v.line_next(from, axis, e)
                    .is_some_and(|c| v.split(c).1[axis] == xk + dir)
            })
            .collect()
    }

    /// A pawn's pushes along `axis` on the double diamond as (one step, the
    /// step beyond it for the double step).
    fn pawn_pushes_double(
        &self,
        from: usize,
        axis: usize,
        dir: i32,
    ) -> Vec<(usize, Option<usize>)> {
        let v = self;
        self.pawn_signs(from, axis, dir)
            .into_iter()
            .filter_map(|e| v.line_next(from, axis, e))
            .map(|one| {
                let two = self
                    .pawn_signs(one, axis, dir)
                    .into_iter()
                    .filter_map(|e| v.line_next(one, axis, e))
                    .find(|&t| t != from);
                (one, two)
            })
            .collect()
    }

    /// A pawn's capture cells on the double diamond: one step along `axis`
    /// towards the enemy face (as [`Variant::pawn_pushes_double`]) and one
    /// along another axis, either sign, as a walk of the lines.
    fn pawn_captures_double(&self, from: usize, axis: usize, dir: i32) -> BTreeSet<usize> {
        let v = self;
        let mut out = BTreeSet::new();
        for local in self.pawn_signs(from, axis, dir) {
            for m in (0..v.dim()).filter(|&m| m != axis) {
                for side in [-1, 1] {
                    let mut d = unit(axis, local);
                    d[m] = side;
                    out.extend(v.line_walk(from, [1; MAX_DIM], &d).iter().map(|e| e.0));
                }
            }
        }
        out.remove(&from);
        out
    }

    /// [`Position::walk`] on the empty double diamond: a leap reaches every
    /// end of its walks; a slide repeats its step with the meanings the
    /// walk carries, and stops at the edge or before a cell it has crossed
    /// already (its start included).
    fn empty_walk(&self, from: usize, d: &Coords, slides: bool) -> Vec<usize> {
        let ones = [1; MAX_DIM];
        if !slides {
            let ends: BTreeSet<usize> = self.line_walk(from, ones, d).iter().map(|e| e.0).collect();
            return ends.into_iter().filter(|&to| to != from).collect();
        }
        let mut state = (from, ones);
        let mut crossed = vec![from];
        loop {
            let ends = self.line_walk(state.0, state.1, d);
            let Some(&next) = ends.iter().next() else {
                break;
            };
            assert_eq!(
                ends.len(),
                1,
                "a slide's step orders disagree at {:?}",
                self.split(state.0)
            );
            if crossed.contains(&next.0) {
                break;
            }
            crossed.push(next.0);
            state = next;
        }
        crossed.remove(0);
        crossed
    }

    /// The double diamond's walks: from the state (cell, meaning of each
    /// axis), the steps of `d` one unit step at a time in every order whose
    /// cells all exist (RULES §1, T1.2). A unit step along axis k by sign e
    /// goes to the neighbour in L(x, k) in direction `e` times the axis's
    /// meaning; between a face cell and a `-1` cell there is a direction
    /// change (T8.7.3: `x0 + y0 = -1`), which reverses the meaning of every
    /// axis but k (T3.3).
    fn line_walk(&self, cell: usize, meaning: Coords, d: &Coords) -> BTreeSet<(usize, Coords)> {
        let mut ends = BTreeSet::new();
        let mut stack = vec![(cell, meaning, *d)];
        while let Some((at, m, left)) = stack.pop() {
            if (0..self.dim()).all(|a| left[a] == 0) {
                ends.insert((at, m));
                continue;
            }
            for k in (0..self.dim()).filter(|&k| left[k] != 0) {
                let e = left[k].signum();
                let Some(next) = self.line_next(at, k, e * m[k]) else {
                    continue;
                };
                let mut m2 = m;
                if self.split(at).0 + self.split(next).0 == -1 {
                    for (a, slot) in m2.iter_mut().enumerate().take(self.dim()) {
                        if a != k {
                            *slot = -*slot;
                        }
                    }
                }
                let mut rest = left;
                rest[k] -= e;
                stack.push((next, m2, rest));
            }
        }
        ends
    }

    /// Finite chess truncated at d digits (seed 000 §12, Table 12.1): for
    /// white, x = 0 the king, x = b^-2 the queen, x1 = x2 = 0 with a later
    /// digit non-zero a rook, x1 = 0, x2 = 1 with a later digit non-zero a
    /// knight, x1 = 0, x2 > 1 a k-D bishop with k the length of the digit
    /// string (position of its last non-zero digit), x1 = 1 a pawn. Black:
    /// x1 -> b-1-x1 (king at (b-1)/b, queen at (b-1)/b + b^-2, pawns at
    /// x1 = b-2); the seed's "x2 > 2" for black's bishops is read as
    /// "x2 > 1", white's condition, as the equal-armies axiom requires.
    fn finite(b: i32, d: usize) -> Variant {
        let mut v = Self::board(vec![b; d], vec![false; d], false, false, Castling::None);
        v.carry = true;
        for cell in 0..v.box_size() {
            let x = v.coords(cell);
            let len = (0..d).rev().find(|&i| x[i] != 0).map_or(0, |i| i + 1);
            let kind = if x[0] == 1 {
                Some(Kind::Pawn(1))
            } else if x[0] != 0 {
                None
            } else if len == 0 {
                Some(Kind::King)
            } else if x[1] == 1 && len == 2 {
                Some(Kind::Queen)
            } else if x[1] == 0 && len > 2 {
                Some(Kind::Rook)
            } else if x[1] == 1 && len > 2 {
                Some(Kind::Knight)
            } else if x[1] >= 2 {
                Some(Kind::Bishop(len))
            } else {
                None
            };
            let Some(kind) = kind else {
                continue;
            };
            v.place(x, WHITE, kind);
            let mut y = x;
            y[0] = b - 1 - x[0];
            let black = match kind {
                Kind::Pawn(_) => Kind::Pawn(-1),
                k => k,
            };
            v.place(y, BLACK, black);
        }
        v
    }

    /// Diamond boards (RULES §2.5, §2.7): Table 8.1 (n = 3), Table 8.2
    /// (n = 4) or the general Table 8.3; the tables are written for l = 8 and
    /// shifted by (l-8)/2 on every axis but the first for larger boards.
    fn diamond(n: usize, l: i32, cylinder: bool, setup: &str) -> Result<Variant, String> {
        if n < 3 || l < 8 || l % 2 != 0 {
            return Err(format!(
                "diamond needs n >= 3 and even l >= 8, got n={n}, l={l}"
            ));
        }
        let wraps = (0..n).map(|a| cylinder && a > 0).collect();
        let mut v = Self::board(vec![l; n], wraps, true, false, Castling::None);
        // The face x1 = 0 (white's pieces) as (other coordinates, kind).
        let face: Vec<(Coords, Kind)> = match (setup, n) {
            ("8.1", 3) => table_face(TABLE_8_1, l),
            ("8.2", 4) => table_face(TABLE_8_2, l),
            ("8.3", _) => table_8_3_face(n, l),
            _ => return Err(format!("setup {setup} is not defined for n={n}")),
        };
        for (c, kind) in face {
            for (owner, piece_rank, pawn_rank, dir) in [(WHITE, 0, 1, 1), (BLACK, l - 1, l - 2, -1)]
            {
                let mut at = c;
                at[0] = piece_rank;
                v.place(at, owner, kind);
                at[0] = pawn_rank;
                v.place(at, owner, Kind::Pawn(dir));
            }
        }
        Ok(v)
    }
}

/// Coordinates of a 2-D cell.
fn coords2(rank: i32, file: i32) -> Coords {
    let mut c = [0; MAX_DIM];
    c[0] = rank;
    c[1] = file;
    c
}

/// The cube's square names: file letter, rank digit, level letter a,b,g,d
/// (α, β, γ, δ), e.g. "b1a" (RULES §2.10).
pub fn cube_cell(name: &str) -> Coords {
    let b = name.as_bytes();
    let level = match b[2] {
        b'a' => 0,
        b'b' => 1,
        b'g' => 2,
        b'd' => 3,
        _ => panic!("bad cube level in {name}"),
    };
    let mut c = [0; MAX_DIM];
    c[0] = (b[1] - b'1') as i32;
    c[1] = (b[0] - b'a') as i32;
    c[2] = level;
    c
}

/// The classical back rank a..h.
const CLASSICAL: [Kind; 8] = [
    Kind::Rook,
    Kind::Knight,
    Kind::Bishop(2),
    Kind::Queen,
    Kind::King,
    Kind::Bishop(2),
    Kind::Knight,
    Kind::Rook,
];

/// White's back rank of Chess960 start position `sp` by the standard
/// Scharnagl numbering, the scheme of seed 003's two tables: `sp mod 4`
/// places the light-squared bishop on b, d, f or h; the next factor 4 the
/// dark-squared bishop on a, c, e or g; the next factor 6 the queen on the
/// free squares; the remaining 0..9 the knight pair (1-2, 1-3, 1-4, 1-5,
/// 2-3, 2-4, 2-5, 3-4, 3-5, 4-5 of the five free squares); rook, king, rook
/// fill the last three. 518 is the classical array, 0 is BBQNNRKR.
pub fn chess960_back_rank(sp: usize) -> [Kind; 8] {
    let mut rank: [Option<Kind>; 8] = [None; 8];
    let mut n = sp;
    rank[2 * (n % 4) + 1] = Some(Kind::Bishop(2));
    n /= 4;
    rank[2 * (n % 4)] = Some(Kind::Bishop(2));
    n /= 4;
    let queen = n % 6;
    n /= 6;
    let free = |rank: &[Option<Kind>; 8]| -> Vec<usize> {
        (0..8).filter(|&f| rank[f].is_none()).collect()
    };
    rank[free(&rank)[queen]] = Some(Kind::Queen);
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (k1, k2) = KNIGHTS[n];
    let slots = free(&rank);
    rank[slots[k1]] = Some(Kind::Knight);
    rank[slots[k2]] = Some(Kind::Knight);
    for (slot, kind) in free(&rank)
        .into_iter()
        .zip([Kind::Rook, Kind::King, Kind::Rook])
    {
        rank[slot] = Some(kind);
    }
    rank.map(|k| k.expect("every file filled"))
}

/// Table 8.1 (seed 000, 3-D diamond, white's face), in the seed's names:
/// level letter (axis 3), file letter (axis 2), rank 1.
const TABLE_8_1: &[(&str, Kind)] = &[
    ("Cd1", Kind::Rook),
    ("Fe1", Kind::Rook),
    ("Ec1", Kind::Knight),
    ("Df1", Kind::Knight),
    ("Ed1", Kind::Bishop(2)),
    ("Ee1", Kind::Bishop(2)),
    ("Dc1", Kind::Bishop(3)),
    ("Ce1", Kind::Bishop(3)),
    ("Ef1", Kind::Bishop(3)),
    ("Fd1", Kind::Bishop(3)),
    ("De1", Kind::Queen),
    ("Dd1", Kind::King),
];

/// Table 8.2 (seed 000, 4-D diamond, white's face): Greek letter α..ζ for
/// axis 4, then as in Table 8.1.
const TABLE_8_2: &[(&str, Kind)] = &[
    ("γDd1", Kind::Rook),
    ("δCe1", Kind::Rook),
    ("δEf1", Kind::Rook),
    ("εEc1", Kind::Rook),
    ("εFe1", Kind::Rook),
    ("ζEe1", Kind::Rook),
    ("γEe1", Kind::Knight),
    ("δEc1", Kind::Knight),
    ("δFe1", Kind::Knight),
    ("εCd1", Kind::Knight),
    ("εDf1", Kind::Knight),
    ("ζDd1", Kind::Knight),
    ("γDe1", Kind::Bishop(2)),
    ("δDc1", Kind::Bishop(2)),
    ("δFd1", Kind::Bishop(2)),
    ("εCe1", Kind::Bishop(2)),
    ("εEf1", Kind::Bishop(2)),
    ("ζEd1", Kind::Bishop(2)),
    ("δDd1", Kind::Bishop(3)),
    ("δDe1", Kind::Bishop(3)),
    ("εDd1", Kind::Bishop(3)),
    ("εDe1", Kind::Bishop(3)),
    ("γEd1", Kind::Bishop(4)),
    ("δCd1", Kind::Bishop(4)),
    ("δDf1", Kind::Bishop(4)),
    ("δEe1", Kind::Bishop(4)),
    ("εDc1", Kind::Bishop(4)),
    ("εEe1", Kind::Bishop(4)),
    ("εFd1", Kind::Bishop(4)),
    ("ζDe1", Kind::Bishop(4)),
    ("δEd1", Kind::Queen),
    ("εEd1", Kind::King),
];

/// Coordinates of a diamond cell name ("Dd1", "γDd1"), shifted by `shift` on
/// every axis but the first.
pub fn diamond_cell(name: &str, shift: i32) -> Coords {
    let mut chars: Vec<char> = name.chars().collect();
    let mut c = [0; MAX_DIM];
    if let Some(greek) = "αβγδεζηθ".chars().position(|g| g == chars[0]) {
        c[3] = greek as i32 + shift;
        chars.remove(0);
    }
    c[2] = (chars[0] as u8 - b'A') as i32 + shift;
    c[1] = (chars[1] as u8 - b'a') as i32 + shift;
    let rank: String = chars[2..].iter().collect();
    c[0] = rank.parse::<i32>().expect("rank number") - 1;
    c
}

/// White's face from a table written for l = 8.
fn table_face(table: &[(&str, Kind)], l: i32) -> Vec<(Coords, Kind)> {
    table
        .iter()
        .map(|&(name, kind)| (diamond_cell(name, (l - 8) / 2), kind))
        .collect()
}

/// White's face by Table 8.3 (RULES §2.5), with c = l/2, axis numbers
/// 1-based as in the table (x_i is `x[i-1]`). Every cell of the face gets
/// exactly one piece; anything else is a transcription error and panics.
fn table_8_3_face(n: usize, l: i32) -> Vec<(Coords, Kind)> {
    let c = l / 2;
    let x = |v: &Coords, i: usize| v[i - 1];
    let in_pair = |v: i32| v == c - 1 || v == c;
    let mut face = Vec::new();
    // All (x2..xn) in {c-2..c+1}^(n-1); the face cells are among them.
    let mut candidates = vec![[0; MAX_DIM]];
    for a in 1..n {
        candidates = candidates
            .into_iter()
            .flat_map(|v| {
                (c - 2..=c + 1).map(move |value| {
                    let mut w = v;
                    w[a] = value;
                    w
                })
            })
            .collect();
    }
    for v in candidates {
        let doubled: i32 = (0..n).map(|a| (2 * v[a] + 1 - l).abs() - 1).sum();
        if doubled > l {
            continue; // not on the board
        }
        let others_except = |skip: usize| (2..=n).filter(move |&i| i != skip);
        let mut kinds = Vec::new();
        if (2..=n).all(|i| x(&v, i) == c - 1) {
            kinds.push(Kind::King);
        }
        if x(&v, 2) == c && (3..=n).all(|i| x(&v, i) == c - 1) {
            kinds.push(Kind::Queen);
        }
        if x(&v, 3) == c - 1
            && others_except(3).all(|i| in_pair(x(&v, i)))
            && (4..=n).any(|i| x(&v, i) == c)
        {
            kinds.push(Kind::Rook);
        }
        if x(&v, 3) == c && others_except(3).all(|i| in_pair(x(&v, i))) {
            kinds.push(Kind::Knight);
        }
        let outer: Vec<usize> = (1..=n)
            .filter(|&i| x(&v, i) == c - 2 || x(&v, i) == c + 1)
            .collect();
        if outer.len() == 1 {
            kinds.push(Kind::Bishop(outer[0]));
        }
        assert_eq!(
            kinds.len(),
            1,
            "Table 8.3 gives {kinds:?} for face cell {v:?}"
        );
        face.push((v, kinds[0]));
    }
    face
}

/// The pieces on the board: a map from cell to piece kept as a sorted
/// `Vec`, because legality testing clones positions all the time and one
/// flat copy is much cheaper than cloning a tree.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Board(Vec<(usize, Piece)>);

impl Board {
    fn find(&self, cell: &usize) -> Result<usize, usize> {
        self.0.binary_search_by_key(cell, |&(c, _)| c)
    }

    pub fn get(&self, cell: &usize) -> Option<&Piece> {
        self.find(cell).ok().map(|i| &self.0[i].1)
    }

    pub fn contains_key(&self, cell: &usize) -> bool {
        self.find(cell).is_ok()
    }

    pub fn insert(&mut self, cell: usize, piece: Piece) -> Option<Piece> {
        match self.find(&cell) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, piece)),
            Err(i) => {
                self.0.insert(i, (cell, piece));
                None
            }
        }
    }

    pub fn remove(&mut self, cell: &usize) -> Option<Piece> {
        self.find(cell).ok().map(|i| self.0.remove(i).1)
    }

    /// (cell, piece) pairs in cell order.
    pub fn iter(&self) -> impl Iterator<Item = (&usize, &Piece)> {
        self.0.iter().map(|(c, p)| (c, p))
    }

    pub fn values(&self) -> impl Iterator<Item = &Piece> {
        self.0.iter().map(|(_, p)| p)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::ops::Index<&usize> for Board {
    type Output = Piece;
    fn index(&self, cell: &usize) -> &Piece {
        self.get(cell).expect("a piece on the cell")
    }
}

impl<'a> IntoIterator for &'a Board {
    type Item = (&'a usize, &'a Piece);
    type IntoIter = Box<dyn Iterator<Item = (&'a usize, &'a Piece)> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

/// The state left by a pawn's double step: the passed cell and the pawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnPassant {
    pub passed: usize,
    pub pawn: usize,
}

/// What a move does besides moving one piece from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Special {
    None,
    /// A pawn's double step over `passed`.
    DoubleStep {
        passed: usize,
    },
    /// An en passant capture of the pawn on `victim`.
    EnPassant {
        victim: usize,
    },
    /// Castling with the rook from `rook_from` to `rook_to`.
    Castle {
        rook_from: usize,
        rook_to: usize,
    },
}

/// A move of the reference generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Move {
    pub from: usize,
    pub to: usize,
    pub promotion: Option<Kind>,
    pub special: Special,
}

/// A move in the fast engine's `MoveKey` terms: from, to, promotion letter,
/// castling rook's start cell.
pub type Key = (Vec<i32>, Vec<i32>, Option<char>, Option<Vec<i32>>);

/// A position: pieces, player to move, en passant state, castling rights.
#[derive(Clone, Debug)]
pub struct Position {
    pub variant: Arc<Variant>,
    pub board: Board,
    pub to_move: usize,
    pub ep: Option<EnPassant>,
    /// (owner, rook cell) of every castling still allowed by the "neither
    /// has moved" rule; dropped when the king moves or anything moves from or
    /// to the rook's cell.
    pub castling_rights: Vec<(usize, usize)>,
}

impl Position {
    /// The start position of a variant, white to move.
    pub fn start(variant: &Arc<Variant>) -> Position {
        let castling_rights = if variant.castling == Castling::None {
            Vec::new()
        } else {
            variant
                .start
                .iter()
                .filter(|(_, p)| p.kind == Kind::Rook)
                .map(|(&cell, p)| (p.owner, cell))
                .collect()
        };
        Position {
            variant: Arc::clone(variant),
            board: Board(variant.start.iter().map(|(&c, &p)| (c, p)).collect()),
            to_move: WHITE,
            ep: None,
            castling_rights,
        }
    }

    /// An empty board of the given variant (for mobility counts).
    fn empty(variant: &Variant) -> Position {
        let v = Variant::board(
            variant.lens.clone(),
            variant.wraps.clone(),
            variant.diamond,
            variant.cube,
            variant.castling,
        );
        Position {
            variant: Arc::new(v),
            board: Board::default(),
            to_move: WHITE,
            ep: None,
            castling_rights: Vec::new(),
        }
    }

    /// A classical-board position from FEN (X-FEN or Shredder-FEN castling
    /// field), so the reference can be checked against published perft.
    pub fn from_fen(variant: &Arc<Variant>, fen: &str) -> Result<Position, String> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() < 4 || variant.lens != [8, 8] {
            return Err(format!("bad FEN or board for FEN: {fen}"));
        }
        let mut board = Board::default();
        for (i, row) in fields[0].split('/').enumerate() {
            let rank = 7 - i as i32;
            let mut file = 0;
            for ch in row.chars() {
                if let Some(skip) = ch.to_digit(10) {
                    file += skip as i32;
                    continue;
                }
                let owner = if ch.is_ascii_uppercase() {
                    WHITE
                } else {
                    BLACK
                };
                let kind = match ch.to_ascii_lowercase() {
                    'k' => Kind::King,
                    'q' => Kind::Queen,
                    'r' => Kind::Rook,
                    'b' => Kind::Bishop(2),
                    'n' => Kind::Knight,
                    'p' => Kind::Pawn(forward(owner)),
                    _ => return Err(format!("bad piece {ch}")),
                };
                let cell = variant
                    .cell(&coords2(rank, file))
                    .ok_or("FEN square off board")?;
                board.insert(cell, Piece { owner, kind });
                file += 1;
            }
        }
        let to_move = if fields[1] == "w" { WHITE } else { BLACK };
        let mut castling_rights = Vec::new();
        for ch in fields[2].chars().filter(|&c| c != '-') {
            let owner = if ch.is_ascii_uppercase() {
                WHITE
            } else {
                BLACK
            };
            let rank = if owner == WHITE { 0 } else { 7 };
            let at = |file: i32| variant.cell(&coords2(rank, file)).expect("on board");
            let is = |file: i32, kind: Kind| board.get(&at(file)) == Some(&Piece { owner, kind });
            let king = (0..8)
                .find(|&f| is(f, Kind::King))
                .ok_or("castling without king on back rank")?;
            let file = match ch.to_ascii_lowercase() {
                'k' => (king + 1..8).rev().find(|&f| is(f, Kind::Rook)),
                'q' => (0..king).find(|&f| is(f, Kind::Rook)),
                f @ 'a'..='h' => Some(f as i32 - 'a' as i32),
                _ => None,
            }
            .ok_or_else(|| format!("bad castling letter {ch}"))?;
            castling_rights.push((owner, at(file)));
        }
        let ep = match fields[3] {
            "-" => None,
            sq => {
                let b = sq.as_bytes();
                let file = (b[0] - b'a') as i32;
                let rank = (b[1] - b'1') as i32;
                // The pawn stands one step beyond the passed cell, seen from
                // the side that double-stepped (the one not to move).
                let pawn_rank = rank - forward(to_move);
                Some(EnPassant {
                    passed: variant.cell(&coords2(rank, file)).ok_or("bad ep square")?,
                    pawn: variant
                        .cell(&coords2(pawn_rank, file))
                        .ok_or("bad ep square")?,
                })
            }
        };
        Ok(Position {
            variant: Arc::clone(variant),
            board,
            to_move,
            ep,
            castling_rights,
        })
    }

    /// The pieces as (coords, owner, letter), sorted: the fast engine's
    /// `placement()` format.
    pub fn placement(&self) -> Vec<(Vec<i32>, usize, char)> {
        let mut list: Vec<_> = self
            .board
            .iter()
            .map(|(&cell, p)| {
                (
                    self.variant.coords_vec(cell),
                    p.owner,
                    p.kind.letter(p.owner),
                )
            })
            .collect();
        list.sort();
        list
    }

    /// A move in the fast engine's `MoveKey` terms.
    pub fn key(&self, m: &Move) -> Key {
        let v = &self.variant;
        let owner = self.board[&m.from].owner;
        let rook = match m.special {
            Special::Castle { rook_from, .. } => Some(v.coords_vec(rook_from)),
            _ => None,
        };
        (
            v.coords_vec(m.from),
            v.coords_vec(m.to),
            m.promotion.map(|k| k.letter(owner)),
            rook,
        )
    }

    /// Walks from `from` along `d` (once for leaps, repeatedly for slides)
    /// and calls `visit(cell, occupant)` for every cell reached, stopping
    /// after the first occupied cell, at the edge, or before coming back to
    /// `from` on a wrapping board (T4.3 "Bewegungsaxiom").
    fn walk(
        &self,
        from: usize,
        d: &Coords,
        slides: bool,
        mut visit: impl FnMut(usize, Option<Piece>),
    ) {
        if self.variant.double {
            return self.line_walk_moves(from, d, slides, visit);
        }
        let mut at = from;
        while let Some(next) = self.variant.offset(at, d) {
            if next == from {
                return;
            }
            let occupant = self.board.get(&next).copied();
            visit(next, occupant);
            if occupant.is_some() || !slides {
                return;
            }
            at = next;
        }
    }

    /// [`Position::walk`] on the double diamond: a leap visits every end of
    /// its walks; a slide repeats its step with the meanings the walk
    /// carries, and stops at the edge, after an occupied cell, or before a
    /// cell it has crossed already (its start included).
    fn line_walk_moves(
        &self,
        from: usize,
        d: &Coords,
        slides: bool,
        mut visit: impl FnMut(usize, Option<Piece>),
    ) {
        let cells = &self.variant.walks[&(from, *d, slides)];
        for &to in cells {
            let occupant = self.board.get(&to).copied();
            visit(to, occupant);
            if occupant.is_some() && slides {
                return;
            }
        }
    }

    /// The cells `piece` on `from` moves to when it stands alone on the
    /// board of `variant` (pawns: pushes without the double step, and every
    /// capture cell as if an enemy stood there).
    pub fn lone_targets(variant: &Arc<Variant>, from: usize, piece: Piece) -> BTreeSet<usize> {
        let mut pos = Position {
            variant: Arc::clone(variant),
            board: Board::default(),
            to_move: piece.owner,
            ep: None,
            castling_rights: Vec::new(),
        };
        pos.board.insert(from, piece);
        let mut out = BTreeSet::new();
        if let Kind::Pawn(dir) = piece.kind {
            if variant.double {
                let (pushes, captures) = &variant.pawn_walks[&(from, 0, dir)];
                out.extend(pushes.iter().map(|p| p.0));
                out.extend(captures.iter().copied());
            } else {
                for push in variant.pawn_pushes(dir) {
                    out.extend(variant.offset(from, &push));
                }
                for d in &variant.pattern(piece.kind).offsets {
                    out.extend(variant.offset(from, d));
                }
            }
            return out;
        }
        let mut moves = BTreeSet::new();
        pos.piece_moves(from, piece, &mut moves);
        out.extend(moves.iter().map(|m| m.to));
        out
    }

    /// Whether `piece` standing on `from` attacks `target` (pawns: only their
    /// capture offsets; castling and pushes never attack).
    pub fn attacks(&self, from: usize, piece: Piece, target: usize) -> bool {
        let v = &self.variant;
        let pattern = v.pattern(piece.kind);
        if v.double
            && let Kind::Pawn(dir) = piece.kind
        {
            return v.pawn_walks[&(from, 0, dir)].1.contains(&target);
        }
        if v.double && !v.reach[&(from, pattern_slot(piece.kind))].contains(&target) {
            return false;
        }
        if v.carry || v.double {
            // Finite chess: a step carries into the digit before, so no
            // digit moves monotonically; the double diamond's lines turn at
            // its faces; walk every direction.
            return pattern.offsets.iter().any(|d| {
                let mut hit = false;
                self.walk(from, d, pattern.slides, |cell, _| hit |= cell == target);
                hit
            });
        }
        let (fc, tc) = (v.coords(from), v.coords(target));
        // Cheap necessary conditions first, to spare walking most pieces'
        // directions. Along a non-wrapping axis a coordinate changes by the
        // same amount in every step, so a slide moves all its non-wrapping
        // changing coordinates equally far, and no leap is longer than 2.
        let mut common_distance = None;
        for a in (0..v.dim()).filter(|&a| !v.wraps[a]) {
            let distance = (tc[a] - fc[a]).abs();
            if distance == 0 {
                continue;
            }
            if !pattern.slides && distance > 2 {
                return false;
            }
            if pattern.slides && *common_distance.get_or_insert(distance) != distance {
                return false;
            }
        }
        // A cheap necessary condition first: along a non-wrapping axis the
        // coordinate moves monotonically with each step of a direction, so
        // the direction's sign must match the difference (and for a leap the
        // offset must equal it exactly).
        // On a wrapping axis a slide that changes the coordinate at all can
        // come round to any value, so only "no change" rules anything out.
        let could_reach = |d: &Coords| {
            (0..v.dim()).all(|a| {
                let delta = tc[a] - fc[a];
                match (v.wraps[a], pattern.slides) {
                    (false, true) => delta.signum() == d[a],
                    (false, false) => delta == d[a],
                    (true, true) => delta == 0 || d[a] != 0,
                    (true, false) => true,
                }
            })
        };
        pattern.offsets.iter().filter(|d| could_reach(d)).any(|d| {
            let mut hit = false;
            self.walk(from, d, pattern.slides, |cell, _| hit |= cell == target);
            hit
        })
    }

    /// Whether any piece of `by` attacks `target`: some piece of `by` for
    /// which [`Position::attacks`] holds ([`Position::attacked_by_any_piece`]).
    /// This question is most of the reference's work (every move's king
    /// safety). Where every axis wraps (torus, torus-diamond) it is asked
    /// from the target ([`Position::attacked_from_target`]): there the
    /// per-piece pre-checks of [`Position::attacks`] rule little out (the
    /// torus-diamond's reference perft took half the time). Where an axis
    /// does not wrap they rule out most pieces at once, which is faster
    /// than walking from the target (the cylinder-diamond's took twice).
    pub fn attacked(&self, target: usize, by: usize) -> bool {
        let v = &self.variant;
        if v.wraps.iter().all(|&w| w) && !v.carry && !v.double {
            self.attacked_from_target(target, by)
        } else {
            self.attacked_by_any_piece(target, by)
        }
    }

    /// Whether any piece of `by` attacks `target`, asked of every piece of
    /// `by` ([`Position::attacks`]): the definition.
    pub fn attacked_by_any_piece(&self, target: usize, by: usize) -> bool {
        self.board
            .iter()
            .any(|(&cell, &p)| p.owner == by && self.attacks(cell, p, target))
    }

    /// Whether any piece of `by` attacks `target`, asked by walking from
    /// the target. A piece on `from` reaches `target` by the step `d` iff
    /// walking from `target` by the opposite step `-d` meets that piece
    /// first: the walk passes the same cells the other way round (adding
    /// `-d` undoes adding `d`, wrapped or not, and a cell is on the board
    /// or not whichever way it is reached), and neither walk comes back to
    /// its start before the other's end. So one walk per kind of `by` and
    /// step replaces one per piece and step. Not for the double diamond,
    /// whose walks turn at its faces, nor finite chess, whose steps carry:
    /// neither is undone by the opposite step. `reference_selftest` checks
    /// that it agrees with [`Position::attacked_by_any_piece`] on every cell
    /// of positions of every other board.
    pub fn attacked_from_target(&self, target: usize, by: usize) -> bool {
        let v = &self.variant;
        // The kinds `by` has, each once (the order does not matter).
        let mut kinds: Vec<Kind> = Vec::with_capacity(8);
        for p in self.board.values().filter(|p| p.owner == by) {
            if !kinds.contains(&p.kind) {
                kinds.push(p.kind);
            }
        }
        kinds.into_iter().any(|kind| {
            let pattern = v.pattern(kind);
            let attacker = Some(Piece { owner: by, kind });
            pattern.offsets.iter().any(|d| {
                let mut back = [0; MAX_DIM];
                for (b, x) in back.iter_mut().zip(d) {
                    *b = -x;
                }
                let mut found = false;
                self.walk(target, &back, pattern.slides, |_, occupant| {
                    found |= occupant == attacker;
                });
                found
            })
        })
    }

    /// The cell of `owner`'s king.
    pub fn king(&self, owner: usize) -> Option<usize> {
        self.board
            .iter()
            .find(|(_, p)| p.owner == owner && p.kind == Kind::King)
            .map(|(&cell, _)| cell)
    }

    /// Whether `owner`'s king is attacked.
    pub fn in_check(&self, owner: usize) -> bool {
        self.king(owner)
            .is_some_and(|k| self.attacked(k, 1 - owner))
    }

    /// Adds a move to `to`, one per promotion kind if `to` is a promotion
    /// cell of the mover.
    fn add_pawn_move(&self, from: usize, to: usize, special: Special, out: &mut BTreeSet<Move>) {
        let owner = self.board[&from].owner;
        if self.variant.promotion_cells[owner].contains(&to) {
            for &kind in &self.variant.promotion_kinds {
                out.insert(Move {
                    from,
                    to,
                    promotion: Some(kind),
                    special,
                });
            }
        } else {
            out.insert(Move {
                from,
                to,
                promotion: None,
                special,
            });
        }
    }

    /// Pseudo-legal moves of the piece on `from` (castling excluded).
    fn piece_moves(&self, from: usize, piece: Piece, out: &mut BTreeSet<Move>) {
        let v = &self.variant;
        let pattern = v.pattern(piece.kind);
        let Kind::Pawn(dir) = piece.kind else {
            for d in &pattern.offsets {
                self.walk(from, d, pattern.slides, |to, occupant| {
                    if occupant.is_none_or(|o| o.owner != piece.owner) {
                        out.insert(Move {
                            from,
                            to,
                            promotion: None,
                            special: Special::None,
                        });
                    }
                });
            }
            return;
        };
        if v.double {
            let (pushes, captures) = &v.pawn_walks[&(from, 0, dir)];
            for &(one, two) in pushes {
                if self.board.contains_key(&one) {
                    continue;
                }
                self.add_pawn_move(from, one, Special::None, out);
                if v.start.get(&from) == Some(&piece)
                    && let Some(two) = two.filter(|c| !self.board.contains_key(c))
                {
                    self.add_pawn_move(from, two, Special::DoubleStep { passed: one }, out);
                }
            }
            for &to in captures {
                match self.board.get(&to) {
                    Some(victim) if victim.owner != piece.owner => {
                        self.add_pawn_move(from, to, Special::None, out)
                    }
                    Some(_) => {}
                    None => {
                        if let Some(ep) = self.ep.filter(|ep| ep.passed == to) {
                            self.add_pawn_move(
                                from,
                                to,
                                Special::EnPassant { victim: ep.pawn },
                                out,
                            );
                        }
                    }
                }
            }
            return;
        }
        for push in v.pawn_pushes(dir) {
            let Some(one) = v
                .offset(from, &push)
                .filter(|c| !self.board.contains_key(c))
            else {
                continue;
            };
            self.add_pawn_move(from, one, Special::None, out);
            // Double step: only theory pawns, only from their start cell.
            let on_start_cell = v.start.get(&from) == Some(&piece);
            if !v.cube
                && !v.raumschach
                && on_start_cell
                && let Some(two) = v.offset(one, &push).filter(|c| !self.board.contains_key(c))
            {
                self.add_pawn_move(from, two, Special::DoubleStep { passed: one }, out);
            }
        }
        for d in &pattern.offsets {
            let Some(to) = v.offset(from, d) else {
                continue;
            };
            match self.board.get(&to) {
                Some(victim) if victim.owner != piece.owner => {
                    self.add_pawn_move(from, to, Special::None, out)
                }
                Some(_) => {}
                None => {
                    if let Some(ep) = self.ep.filter(|ep| ep.passed == to) {
                        self.add_pawn_move(from, to, Special::EnPassant { victim: ep.pawn }, out);
                    }
                }
            }
        }
    }

    /// Castling moves of the player to move that pass the castling
    /// conditions; whether the king ends in check is left to the general
    /// legality test.
    fn castling_moves(&self, out: &mut BTreeSet<Move>) {
        let me = self.to_move;
        let Some(king) = self.king(me) else { return };
        let rights: Vec<usize> = self
            .castling_rights
            .iter()
            .filter(|&&(owner, _)| owner == me)
            .map(|&(_, cell)| cell)
            .collect();
        if rights.is_empty() || self.in_check(me) {
            return;
        }
        let v = &self.variant;
        let safe = |cells: &[usize]| cells.iter().all(|&c| !self.attacked(c, 1 - me));
        for rook in rights {
            if self.board.get(&rook)
                != Some(&Piece {
                    owner: me,
                    kind: Kind::Rook,
                })
            {
                continue;
            }
            match v.castling {
                Castling::None => {}
                Castling::Fide => {
                    // Chess960 (FIDE): king to c/g, rook to d/f; every cell
                    // between either piece and its destination (inclusive)
                    // empty but for the two; the king's cells not attacked.
                    let (kc, rc) = (v.coords(king), v.coords(rook));
                    let (king_file, rook_file) = if rc[1] < kc[1] { (2, 3) } else { (6, 5) };
                    let at = |file: i32| v.cell(&coords2(kc[0], file)).expect("back rank cell");
                    let span = |a: i32, b: i32| (a.min(b)..=a.max(b)).map(at).collect::<Vec<_>>();
                    let clear = span(kc[1], king_file)
                        .into_iter()
                        .chain(span(rc[1], rook_file))
                        .all(|c| c == king || c == rook || !self.board.contains_key(&c));
                    let king_path: Vec<usize> = span(kc[1], king_file)
                        .into_iter()
                        .filter(|&c| c != king)
                        .collect();
                    if clear && safe(&king_path) {
                        out.insert(Move {
                            from: king,
                            to: at(king_file),
                            promotion: None,
                            special: Special::Castle {
                                rook_from: rook,
                                rook_to: at(rook_file),
                            },
                        });
                    }
                }
                Castling::Wrap => {
                    // T4.6 along the file axis, both ways round: the rook
                    // slides over empty cells to b, the cell next to the
                    // king; the king jumps over it to the cell beyond.
                    for side in [-1, 1] {
                        let step = unit(1, side);
                        let back = unit(1, -side);
                        let mut b = rook;
                        let mut reached = false;
                        while let Some(next) = v.offset(b, &step) {
                            if next == king {
                                reached = true;
                                break;
                            }
                            if next == rook || self.board.contains_key(&next) {
                                break;
                            }
                            b = next;
                        }
                        if !reached || b == rook {
                            continue;
                        }
                        let Some(dest) = v.offset(b, &back) else {
                            continue;
                        };
                        let landing_free = dest == rook || !self.board.contains_key(&dest);
                        if landing_free && safe(&[b, dest]) {
                            out.insert(Move {
                                from: king,
                                to: dest,
                                promotion: None,
                                special: Special::Castle {
                                    rook_from: rook,
                                    rook_to: b,
                                },
                            });
                        }
                    }
                }
            }
        }
    }

    /// Plays a move (assumed generated for this position).
    pub fn make(&mut self, m: Move) {
        let piece = self
            .board
            .remove(&m.from)
            .expect("a piece on the from cell");
        match m.special {
            Special::Castle { rook_from, rook_to } => {
                let rook = self.board.remove(&rook_from).expect("castling rook");
                self.board.insert(m.to, piece);
                self.board.insert(rook_to, rook);
            }
            Special::EnPassant { victim } => {
                self.board.remove(&victim);
                self.board.insert(m.to, piece);
            }
            Special::None | Special::DoubleStep { .. } => {
                let kind = m.promotion.unwrap_or(piece.kind);
                self.board.insert(
                    m.to,
                    Piece {
                        owner: piece.owner,
                        kind,
                    },
                );
            }
        }
        self.ep = match m.special {
            Special::DoubleStep { passed } => Some(EnPassant { passed, pawn: m.to }),
            _ => None,
        };
        let king_moved = piece.kind == Kind::King;
        self.castling_rights.retain(|&(owner, cell)| {
            cell != m.from && cell != m.to && !(king_moved && owner == piece.owner)
        });
        self.to_move = 1 - self.to_move;
    }

    /// All pseudo-legal moves, castling included.
    pub fn pseudo_moves(&self) -> BTreeSet<Move> {
        let mut out = BTreeSet::new();
        for (&cell, &piece) in &self.board {
            if piece.owner == self.to_move {
                self.piece_moves(cell, piece, &mut out);
            }
        }
        self.castling_moves(&mut out);
        out
    }

    /// Legal moves: pseudo-legal moves after which the mover's king is not
    /// attacked (T4.3 "Schachaxiom"), tested on a copy.
    pub fn legal_moves(&self) -> Vec<Move> {
        self.pseudo_moves()
            .into_iter()
            .filter(|&m| {
                let mut after = self.clone();
                after.make(m);
                !after.in_check(self.to_move)
            })
            .collect()
    }

    /// Legal moves as sorted keys.
    pub fn legal_keys(&self) -> Vec<Key> {
        let mut keys: Vec<Key> = self.legal_moves().iter().map(|m| self.key(m)).collect();
        keys.sort();
        keys
    }

    /// Number of leaf nodes of the legal move tree of the given depth.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.legal_moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|m| {
                let mut next = self.clone();
                next.make(m);
                next.perft(depth - 1)
            })
            .sum()
    }
}
