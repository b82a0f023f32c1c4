//! Legal move generation, attack detection and perft.
//!
//! Moves are generated legal directly: before the pieces are walked, the
//! king's rays are scanned once for checking lines and pins. A non-royal move
//! is then legal iff its destination lies on every checking line (or there is
//! none) and on every pin line of its piece. This is the classical scheme,
//! generalised to boards where lines wrap: on a cylinder or torus a slider
//! may give check along two rays at once and two rays from the king may
//! cross, so checking lines are intersected rather than counted. King moves
//! and the rare moves that change two cells' blockers at once (en passant,
//! castling) are checked by testing attacks on the resulting board.

pub mod fast64;

use std::cell::RefCell;

use rayon::prelude::*;

use crate::board::geometry::Cell;
use crate::board::variant::{EMPTY, NO_CELL, Piece, Variant, piece_kind, piece_player};
use crate::rules::position::{Move, MoveKind, Position};

/// A piece pinned to its king: it may only move within `ray(king, dir)[..len]`.
#[derive(Clone, Copy, Debug)]
struct Pin {
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

/// Where generated moves go: a list, or just a count (perft's bulk
/// counting at the last ply needs no list).
pub trait MoveSink {
    /// Adds one move.
    fn push(&mut self, m: Move);
    /// Adds the plain moves `from → t` for every cell `t` of `targets`.
    #[inline(always)]
    fn push_targets(&mut self, from: Cell, mut targets: u64) {
        while targets != 0 {
            let to = targets.trailing_zeros() as usize;
            targets &= targets - 1;
            self.push(Move::normal(from, to));
        }
    }

    /// Adds the moves `to - delta → to` for every cell `to` of `targets`;
    /// double steps carry the passed cell `to - delta / 2` in `aux`.
    #[inline(always)]
    fn push_shifted(&mut self, mut targets: u64, delta: i32, double: bool) {
        while targets != 0 {
            let to = targets.trailing_zeros() as i32;
            targets &= targets - 1;
            let m = Move::normal((to - delta) as usize, to as usize);
            self.push(if double {
                Move {
                    aux: (to - delta / 2) as u16,
                    kind: MoveKind::DoubleStep,
                    ..m
                }
            } else {
                m
            });
        }
    }
}

impl MoveSink for Vec<Move> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        Vec::push(self, m);
    }
}

/// A [`MoveSink`] that only counts.
#[derive(Debug, Default)]
pub struct MoveCounter(pub usize);

impl MoveSink for MoveCounter {
    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }

    #[inline(always)]
    fn push_targets(&mut self, _: Cell, targets: u64) {
        self.0 += targets.count_ones() as usize;
    }

    #[inline(always)]
    fn push_shifted(&mut self, targets: u64, _: i32, _: bool) {
        self.0 += targets.count_ones() as usize;
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Legal moves of the side to move into `out` (cleared first).
pub fn legal_moves(pos: &Position, out: &mut Vec<Move>) {
    SCRATCH.with(|s| generate(pos, &mut s.borrow_mut(), out));
}

/// Whether `cell` is attacked by an enemy of `us`, reading the board through
/// `piece_at` (so callers can test hypothetical boards without copying).
#[inline(always)]
pub(crate) fn attacked_with(
    v: &Variant,
    cell: Cell,
    us: usize,
    piece_at: impl Fn(Cell) -> Piece,
) -> bool {
    // Cheapest tests first: pawns and leapers read a few fixed cells.
    for &(q, k, pawn) in &v.enemy_pawns[us] {
        for &c in v.pawn_tables[q][k].attackers.get(cell) {
            if piece_at(c as usize) == pawn {
                return true;
            }
        }
    }
    for (li, table) in v.leaps.iter().enumerate() {
        let mask = v.kinds_by_leap[li];
        if mask == 0 {
            continue;
        }
        for &c in table.get(cell) {
            let p = piece_at(c as usize);
            if p != EMPTY && mask >> piece_kind(p) & 1 != 0 && v.is_hostile(us, p) {
                return true;
            }
        }
    }
    let g = &v.geometry;
    for &(d, mask) in &v.slider_rays {
        for &c in g.ray(cell, d) {
            let p = piece_at(c as usize);
            if p == EMPTY {
                continue;
            }
            if mask >> piece_kind(p) & 1 != 0 && v.is_hostile(us, p) {
                return true;
            }
            break;
        }
    }
    false
}

/// Whether `cell` is attacked by an enemy of `us` in `pos`.
pub fn attacked(pos: &Position, cell: Cell, us: usize) -> bool {
    let board = pos.board();
    attacked_with(pos.variant(), cell, us, |c| board[c])
}

/// Whether `player`'s royal piece is attacked.
pub fn player_in_check(pos: &Position, player: usize) -> bool {
    match pos.royal_cell(player) {
        Some(k) => attacked(pos, k, player),
        None => false,
    }
}

/// Whether the side to move is in check.
pub fn in_check(pos: &Position) -> bool {
    player_in_check(pos, pos.to_move())
}

/// Scans the king's surroundings: fills `s.evasion` with the cells on every
/// checking line and `s.pins` with the pinned pieces; returns the number of
/// checking lines.
fn analyse_king(pos: &Position, king: Cell, us: usize, s: &mut Scratch) -> usize {
    let v = &**pos.variant();
    let g = &v.geometry;
    let board = pos.board();
    let mut lines = 0;
    let mut add_line = |cells: &[u16], evasion: &mut Vec<u16>| {
        if lines == 0 {
            evasion.extend_from_slice(cells);
        } else {
            evasion.retain(|c| cells.contains(c));
        }
        lines += 1;
    };
    for &d in &v.slider_directions {
        let ray = g.ray(king, d);
        let mut own: Option<usize> = None;
        for (i, &c) in ray.iter().enumerate() {
            let p = board[c as usize];
            if p == EMPTY {
                continue;
            }
            if !v.is_hostile(us, p) {
                if piece_player(p) == us && own.is_none() {
                    own = Some(i);
                    continue;
                }
                break;
            }
            if v.sliders_by_direction[g.opposite(d)] >> piece_kind(p) & 1 != 0 {
                match own {
                    Some(j) => s.pins.push(Pin {
                        cell: ray[j],
                        dir: d as u16,
                        len: (i + 1) as u16,
                    }),
                    None => add_line(&ray[..=i], &mut s.evasion),
                }
            }
            break;
        }
    }
    for (li, table) in v.leaps.iter().enumerate() {
        let mask = v.kinds_by_leap[li];
        if mask == 0 {
            continue;
        }
        for &c in table.get(king) {
            let p = board[c as usize];
            if p != EMPTY && mask >> piece_kind(p) & 1 != 0 && v.is_hostile(us, p) {
                add_line(&[c], &mut s.evasion);
            }
        }
    }
    for &(q, k, pawn) in &v.enemy_pawns[us] {
        for &c in v.pawn_tables[q][k].attackers.get(king) {
            if board[c as usize] == pawn {
                add_line(&[c], &mut s.evasion);
            }
        }
    }
    lines
}

/// Pushes the en-passant capture `from → ep.target` if it leaves the king
/// safe. It changes three cells at once (the pawn's start and end, the
/// captured pawn's cell), so it is tested on the board after the move.
pub(crate) fn push_en_passant(
    pos: &Position,
    king: Option<Cell>,
    from: Cell,
    ep: crate::rules::position::EnPassant,
    out: &mut impl MoveSink,
) {
    let v = &**pos.variant();
    let board = pos.board();
    let (target, pawn_cell) = (ep.target as usize, ep.pawn as usize);
    let pawn = board[from];
    let legal = match king {
        None => true,
        Some(k) => !attacked_with(v, k, pos.to_move(), |x| {
            if x == from || x == pawn_cell {
                EMPTY
            } else if x == target {
                pawn
            } else {
                board[x]
            }
        }),
    };
    if legal {
        out.push(Move {
            aux: ep.pawn,
            kind: MoveKind::EnPassant,
            ..Move::normal(from, target)
        });
    }
}

/// Pushes a pawn move, expanded into one move per promotion kind when the
/// destination is a promotion cell of `us`.
#[inline(always)]
pub(crate) fn push_pawn_move(v: &Variant, us: usize, m: Move, out: &mut impl MoveSink) {
    if v.promotion_zone[us].contains(m.to as usize) {
        for &k in &v.promotion_kinds {
            out.push(Move {
                promotion: k as u8 + 1,
                ..m
            });
        }
    } else {
        out.push(m);
    }
}

/// Generates the legal moves of the side to move into `out`, by the
/// bitboard fast path on boards of at most 64 cells, by the generic
/// generator elsewhere.
#[inline]
pub fn generate(pos: &Position, s: &mut Scratch, out: &mut Vec<Move>) {
    match &pos.variant().board64 {
        Some(t) => {
            out.clear();
            out.reserve(64);
            crate::rules::movegen::fast64::generate(t, pos, s, out)
        }
        None => generate_generic(pos, s, out),
    }
}

/// Number of legal moves (bulk counting: no list is built on boards of at
/// most 64 cells; `list` is scratch space for the generic generator).
#[inline]
pub fn count_moves(pos: &Position, s: &mut Scratch, list: &mut Vec<Move>) -> usize {
    match &pos.variant().board64 {
        Some(t) => {
            let mut counter = MoveCounter::default();
            crate::rules::movegen::fast64::generate(t, pos, s, &mut counter);
            counter.0
        }
        None => {
            generate_generic(pos, s, list);
            list.len()
        }
    }
}

/// Generates the legal moves of the side to move into `out` with the
/// generic generator (any board); the fast path is tested against it.
pub fn generate_generic(pos: &Position, s: &mut Scratch, out: &mut Vec<Move>) {
    out.clear();
    out.reserve(64);
    let v = &**pos.variant();
    let g = &v.geometry;
    s.fit(g.cell_count());
    s.pins.clear();
    s.evasion.clear();
    let board = pos.board();
    let us = pos.to_move();
    let king = pos.royal_cell(us);
    let checks = match king {
        Some(k) => analyse_king(pos, k, us, s),
        None => 0,
    };
    let only_king = checks > 0 && s.evasion.is_empty();
    let wraps = g.wraps().iter().any(|&w| w);
    let is_target = |p: Piece| p == EMPTY || v.is_hostile(us, p);

    for from in pos.player_cells(us) {
        let p = board[from];
        let kind = piece_kind(p);
        let kd = &v.kinds[kind];
        if kd.royal {
            let stamp = s.next_stamp();
            let free = |c: Cell| if c == from { EMPTY } else { board[c] };
            let try_king = |to: Cell, out: &mut Vec<Move>, seen: &mut Vec<u32>| {
                if seen[to] != stamp && !attacked_with(v, to, us, free) {
                    seen[to] = stamp;
                    out.push(Move::normal(from, to));
                }
            };
            if let Some(li) = kd.leaps {
                for &c in v.leaps[li].get(from) {
                    if is_target(board[c as usize]) {
                        try_king(c as usize, out, &mut s.seen);
                    }
                }
            }
            for &d in &kd.slides {
                for &c in g.ray(from, d) {
                    let q = board[c as usize];
                    if is_target(q) {
                        try_king(c as usize, out, &mut s.seen);
                    }
                    if q != EMPTY {
                        break;
                    }
                }
            }
            continue;
        }
        if only_king {
            continue;
        }
        let pinned = !s.pins.is_empty() && s.pins.iter().any(|p| p.cell as usize == from);
        let filtered = checks > 0 || pinned;
        let dedupe = wraps || (kd.leaps.is_some() && !kd.slides.is_empty());
        let stamp = if dedupe { s.next_stamp() } else { 0 };
        let allowed = |to: Cell, s: &Scratch| -> bool {
            if checks > 0 && !s.evasion.contains(&(to as u16)) {
                return false;
            }
            if pinned {
                let king = king.expect("invariant: pins exist only when there is a king");
                for pin in s.pins.iter().filter(|p| p.cell as usize == from) {
                    let line = &g.ray(king, pin.dir as usize)[..pin.len as usize];
                    if !line.contains(&(to as u16)) {
                        return false;
                    }
                }
            }
            true
        };

        if let Some(rule) = &kd.pawn {
            let table = &v.pawn_tables[us][kind];
            let pushes = table.pushes.get(from);
            for pair in pushes.chunks_exact(2) {
                let one = pair[0] as usize;
                if board[one] != EMPTY {
                    continue;
                }
                if !filtered || allowed(one, s) {
                    push_pawn_move(v, us, Move::normal(from, one), out);
                }
                let two = pair[1];
                if two != NO_CELL
                    && board[two as usize] == EMPTY
                    && (!filtered || allowed(two as usize, s))
                {
                    out.push(Move {
                        aux: one as u16,
                        kind: MoveKind::DoubleStep,
                        ..Move::normal(from, two as usize)
                    });
                }
            }
            for &c in table.captures.get(from) {
                let c = c as usize;
                let q = board[c];
                if q != EMPTY {
                    if v.is_hostile(us, q) && (!filtered || allowed(c, s)) {
                        push_pawn_move(v, us, Move::normal(from, c), out);
                    }
                } else if let Some(ep) = pos.en_passant()
                    && ep.target as usize == c
                    && v.is_hostile(us, board[ep.pawn as usize])
                {
                    push_en_passant(pos, king, from, ep, out);
                }
            }
            let _ = rule;
            continue;
        }

        if let Some(li) = kd.leaps {
            for &c in v.leaps[li].get(from) {
                let c = c as usize;
                if is_target(board[c]) && (!filtered || allowed(c, s)) {
                    if dedupe {
                        if s.seen[c] == stamp {
                            continue;
                        }
                        s.seen[c] = stamp;
                    }
                    out.push(Move::normal(from, c));
                }
            }
        }
        for &d in &kd.slides {
            for &c in g.ray(from, d) {
                let c = c as usize;
                let q = board[c];
                if q != EMPTY && !v.is_hostile(us, q) {
                    break;
                }
                if !filtered || allowed(c, s) {
                    if dedupe {
                        if s.seen[c] != stamp {
                            s.seen[c] = stamp;
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

    if checks == 0
        && let Some(k) = king
        && !pos.castling().is_empty()
    {
        generate_castling(pos, k, out);
    }
}

pub(crate) fn generate_castling(pos: &Position, king: Cell, out: &mut impl MoveSink) {
    let v = &**pos.variant();
    let board = pos.board();
    let us = pos.to_move();
    for &r in pos.castling() {
        let rook = r as usize;
        let rp = board[rook];
        if rp == EMPTY || piece_player(rp) != us {
            continue;
        }
        let kp = board[king];
        for cand in v.castlings(king, rook) {
            let clear = cand.must_be_empty.iter().all(|&c| {
                let c = c as usize;
                c == king || c == rook || board[c] == EMPTY
            });
            if !clear {
                continue;
            }
            if cand.crossed.iter().any(|&c| attacked(pos, c as usize, us)) {
                continue;
            }
            let (king_to, rook_to) = (cand.king_to as usize, cand.rook_to as usize);
            let safe = !attacked_with(v, king_to, us, |x| {
                if x == king_to {
                    kp
                } else if x == rook_to {
                    rp
                } else if x == king || x == rook {
                    EMPTY
                } else {
                    board[x]
                }
            });
            if safe {
                out.push(Move {
                    from: king as u16,
                    to: cand.king_to,
                    aux: rook as u16,
                    aux2: cand.rook_to,
                    kind: MoveKind::Castle,
                    promotion: 0,
                });
            }
        }
    }
}

fn perft_inner(pos: &mut Position, depth: u32, s: &mut Scratch, lists: &mut [Vec<Move>]) -> u64 {
    let (list, rest) = lists
        .split_first_mut()
        .expect("invariant: one move list per remaining ply");
    if depth == 1 {
        return count_moves(pos, s, list) as u64;
    }
    generate(pos, s, list);
    let mut nodes = 0;
    for &m in list.iter() {
        pos.make(m);
        nodes += perft_inner(pos, depth - 1, s, rest);
        pos.unmake();
    }
    nodes
}

/// Number of leaf nodes of the legal move tree of depth `depth` (bulk
/// counting at the last ply).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut s = Scratch::new(pos.variant().geometry.cell_count());
    let mut lists = vec![Vec::new(); depth as usize];
    perft_inner(pos, depth, &mut s, &mut lists)
}

/// Perft split by root move, the root moves searched in parallel by rayon
/// on `threads` threads (0 = rayon's default).
pub fn perft_divide(
    pos: &Position,
    depth: u32,
    threads: usize,
) -> Result<Vec<(Move, u64)>, rayon::ThreadPoolBuildError> {
    perft_divide_with_progress(pos, depth, threads, |_, _| {})
}

/// [`perft_divide`], calling `done(move, count)` as each root move finishes
/// (from the worker threads), so long runs can report progress.
pub fn perft_divide_with_progress(
    pos: &Position,
    depth: u32,
    threads: usize,
    done: impl Fn(Move, u64) + Sync,
) -> Result<Vec<(Move, u64)>, rayon::ThreadPoolBuildError> {
    let moves = pos.legal_moves();
    if depth <= 1 {
        return Ok(moves.into_iter().map(|m| (m, 1)).collect());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    Ok(pool.install(|| {
        moves
            .par_iter()
            .map(|&m| {
                let mut p = pos.clone();
                p.make(m);
                let n = perft(&mut p, depth - 1);
                done(m, n);
                (m, n)
            })
            .collect()
    }))
}
