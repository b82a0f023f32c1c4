//! The generator's backend for every board: targets are found by walking
//! the precomputed rays and leap tables cell by cell, checking lines are
//! kept as cell lists, and a cell reached along two rays of a wrapping
//! board is emitted once (a stamp per cell and round).

use crate::board::bitboard::Cells;
use crate::board::geometry::Cell;
use crate::board::piece::{EMPTY, Piece};
use crate::board::seating::Seat;
use crate::board::variant::Variant;
use crate::rules::attacks;
use crate::rules::moves::Move;
use crate::rules::position::Position;

use super::legal::{Backend, push_en_passant, push_pawn_move};
use super::{GenType, MoveSink};

/// A piece pinned to its king: it may only move within
/// `ray(king, dir)[..len]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pin {
    cell: u16,
    dir: u16,
    len: u16,
}

/// Reusable buffers of the move generator (one per thread).
#[derive(Debug, Default)]
pub struct Scratch {
    seen: Vec<u32>,
    stamp: u32,
    evasion: Vec<u16>,
    pins: Vec<Pin>,
}

impl Scratch {
    /// Buffers for a board of `cells` cells.
    pub fn new(cells: usize) -> Scratch {
        Scratch {
            seen: vec![0; cells],
            ..Scratch::default()
        }
    }

    fn fit(&mut self, cells: usize) {
        if self.seen.len() < cells {
            self.seen = vec![0; cells];
            self.stamp = 0;
        }
    }

    /// Starts a new de-duplication round.
    #[inline(always)]
    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.stamp
    }
}

/// The restriction of one piece's destinations.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RayMask {
    /// Restricted to the cells on every checking line.
    check: bool,
    /// Restricted to the pin lines of the piece on this cell.
    pinned: Option<u16>,
}

/// The ray-walking backend for one generation.
pub(crate) struct Rays<'a> {
    pos: &'a Position,
    v: &'a Variant,
    board: &'a [Piece],
    us: Seat,
    s: &'a mut Scratch,
    checks: u32,
    wraps: bool,
    /// The ray scanned last from the king: its direction and the indices
    /// of its first and second blockers (so no ray is walked twice).
    scan: (usize, usize, usize),
}

impl<'a> Rays<'a> {
    /// A backend for `us`'s moves in `pos`.
    #[inline(always)]
    pub(crate) fn new(pos: &'a Position, us: Seat, s: &'a mut Scratch) -> Rays<'a> {
        let v = &**pos.variant();
        s.fit(v.geometry.cell_count());
        s.pins.clear();
        s.evasion.clear();
        Rays {
            pos,
            v,
            board: pos.board(),
            us,
            s,
            checks: 0,
            wraps: v.geometry.rays_may_meet(),
            scan: (usize::MAX, 0, 0),
        }
    }

    /// Whether a piece standing on a target may be captured (or the
    /// target is empty).
    #[inline(always)]
    fn is_target(&self, p: Piece, which: GenType) -> bool {
        if p == EMPTY {
            which.quiets()
        } else {
            which.captures() && self.v.capturable(self.us, p)
        }
    }

    fn add_line(&mut self, cells: &[u16]) {
        if self.checks == 0 {
            self.s.evasion.extend_from_slice(cells);
        } else {
            self.s.evasion.retain(|c| cells.contains(c));
        }
        self.checks += 1;
    }
}

impl<'a> Backend for Rays<'a> {
    type Mask = RayMask;
    type Pieces = Cells<'a>;

    #[inline(always)]
    fn own_pieces(&self) -> Cells<'a> {
        self.pos.seat_cells(self.us)
    }

    #[inline(always)]
    fn contains(&self, mask: RayMask, to: Cell) -> bool {
        if mask.check && !self.s.evasion.contains(&(to as u16)) {
            return false;
        }
        if let Some(cell) = mask.pinned {
            let king = self
                .pos
                .royal_cell(self.us)
                .expect("invariant: pins exist only when there is a king");
            for pin in self.s.pins.iter().filter(|p| p.cell == cell) {
                let line = &self.v.geometry.ray(king, pin.dir as usize)[..pin.len as usize];
                if !line.contains(&(to as u16)) {
                    return false;
                }
            }
        }
        true
    }

    #[inline(always)]
    fn occupied(&self, cell: Cell) -> bool {
        self.board[cell] != EMPTY
    }

    #[inline(always)]
    fn ray_blockers(&mut self, king: Cell, d: usize) -> Option<Cell> {
        let ray = self.v.geometry.ray(king, d);
        let i = ray.iter().position(|&c| self.board[c as usize] != EMPTY)?;
        self.scan = (d, i, 0);
        Some(ray[i] as usize)
    }

    #[inline(always)]
    fn ray_next_blocker(&mut self, king: Cell, d: usize, _first: Cell) -> Option<Cell> {
        let ray = self.v.geometry.ray(king, d);
        let from = self.scan.1 + 1;
        let i = from
            + ray[from..]
                .iter()
                .position(|&c| self.board[c as usize] != EMPTY)?;
        self.scan.2 = i;
        Some(ray[i] as usize)
    }

    fn add_check_line(&mut self, king: Cell, d: usize, _checker: Cell) {
        let ray = self.v.geometry.ray(king, d);
        self.add_line(&ray[..=self.scan.1]);
    }

    fn add_check_cell(&mut self, checker: Cell) {
        self.add_line(&[checker as u16]);
    }

    fn add_pin(&mut self, pinned: Cell, _king: Cell, d: usize, _pinner: Cell) {
        self.s.pins.push(Pin {
            cell: pinned as u16,
            dir: d as u16,
            len: (self.scan.2 + 1) as u16,
        });
    }

    #[inline(always)]
    fn checks(&self) -> u32 {
        self.checks
    }

    #[inline(always)]
    fn evasions_exist(&self) -> bool {
        !self.s.evasion.is_empty()
    }

    #[inline(always)]
    fn mask_for(&self, from: Cell) -> RayMask {
        RayMask {
            check: self.checks > 0,
            pinned: (!self.s.pins.is_empty()
                && self.s.pins.iter().any(|p| p.cell as usize == from))
            .then_some(from as u16),
        }
    }

    fn pawn_captures(
        &mut self,
        from: Cell,
        kind: usize,
        mask: RayMask,
        _setwise: bool,
        out: &mut impl MoveSink,
    ) {
        let v = self.v;
        let us = self.us;
        for &c in v.pawn_tables[us][kind].captures.get(from) {
            let c = c as usize;
            let q = self.board[c];
            if q != EMPTY {
                if v.capturable(us, q) && self.contains(mask, c) {
                    push_pawn_move(v, us, Move::normal(from, c), true, GenType::Captures, out);
                }
            } else if let Some(ep) = self.pos.en_passant()
                && ep.target as usize == c
                && v.capturable(us, self.board[ep.pawn as usize])
            {
                let king = self.pos.royal_cell(us);
                push_en_passant(self.pos, us, king, from, ep, out);
            }
        }
    }

    fn king_moves(&mut self, from: Cell, kind: usize, which: GenType, out: &mut impl MoveSink) {
        let v = self.v;
        let g = &v.geometry;
        let board = self.board;
        let us = self.us;
        let stamp = self.s.next_stamp();
        let free = |c: Cell| if c == from { EMPTY } else { board[c] };
        if let Some(table) = v.leap_table(kind) {
            for &c in table.get(from) {
                let c = c as usize;
                if self.is_target(board[c], which)
                    && self.s.seen[c] != stamp
                    && !attacks::attacked_by_checkers(v, c, us, free)
                {
                    self.s.seen[c] = stamp;
                    out.push(Move::normal(from, c));
                }
            }
        }
        for &d in &v.kinds[kind].slides {
            for &c in g.ray(from, d) {
                let c = c as usize;
                let q = board[c];
                if self.is_target(q, which)
                    && self.s.seen[c] != stamp
                    && !attacks::attacked_by_checkers(v, c, us, free)
                {
                    self.s.seen[c] = stamp;
                    out.push(Move::normal(from, c));
                }
                if q != EMPTY {
                    break;
                }
            }
        }
    }

    fn piece_moves(
        &mut self,
        from: Cell,
        kind: usize,
        mask: RayMask,
        which: GenType,
        out: &mut impl MoveSink,
    ) {
        let v = self.v;
        let g = &v.geometry;
        let board = self.board;
        let kd = &v.kinds[kind];
        let filtered = mask.check || mask.pinned.is_some();
        let leaps = v.leap_table(kind);
        let dedupe = self.wraps || (leaps.is_some() && !kd.slides.is_empty());
        let stamp = if dedupe { self.s.next_stamp() } else { 0 };
        if let Some(table) = leaps {
            for &c in table.get(from) {
                let c = c as usize;
                if self.is_target(board[c], which) && (!filtered || self.contains(mask, c)) {
                    if dedupe {
                        if self.s.seen[c] == stamp {
                            continue;
                        }
                        self.s.seen[c] = stamp;
                    }
                    out.push(Move::normal(from, c));
                }
            }
        }
        for &d in &kd.slides {
            for &c in g.ray(from, d) {
                let c = c as usize;
                let q = board[c];
                if q != EMPTY && !v.capturable(self.us, q) {
                    break;
                }
                if (if q == EMPTY {
                    which.quiets()
                } else {
                    which.captures()
                }) && (!filtered || self.contains(mask, c))
                {
                    if dedupe {
                        if self.s.seen[c] != stamp {
                            self.s.seen[c] = stamp;
                            out.push(Move::normal(from, c));
                        }
                    } else {
                        out.push(Move::normal(from, c));
                    }
                }
                if q != EMPTY {
                    break;
                }
            }
        }
    }
}
