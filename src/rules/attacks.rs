//! The attack routine: which cells a piece attacks, and which pieces
//! attack a cell. Every part of the engine that asks such a question —
//! the generic move generator, the legality of en passant and castling,
//! the evaluation, check marks in the notation, the seeds' mobility and
//! axioms, the solvers — asks it here.
//!
//! A piece attacks the cells it could capture on: a pawn its capture
//! steps, a leaper its leap targets, a slider the cells of each of its rays
//! up to and including the first occupied one (RULES §1). The board is
//! read through a closure `piece_at(cell)`, so callers can ask about a
//! board that differs from a position's in a few cells without copying
//! it; it is called only with cells of the variant's tables (leap, pawn
//! and ray cells), all below the cell count, so the search's callers may
//! read the board without bounds checks (`position::TableBoard`). The
//! 64-cell bitboard generator answers the same question its own way
//! (`movegen::fast64`), verified against this one by the tests.

use std::ops::ControlFlow;

use crate::board::geometry::Cell;
use crate::board::piece::{EMPTY, Piece, piece, piece_kind, piece_seat};
use crate::board::seating::{Seat, SeatSet};
use crate::board::variant::Variant;

/// Calls `visit(target)` for every cell the piece `p` on `from` attacks,
/// reading the board through `piece_at`. A cell reached along two rays
/// (possible where axes wrap) is visited once per ray; a slider's ray ends
/// at its first occupied cell, which is visited.
#[inline(always)]
pub fn for_each_attack(
    v: &Variant,
    p: Piece,
    from: Cell,
    piece_at: impl Fn(Cell) -> Piece,
    mut visit: impl FnMut(Cell),
) {
    let (seat, kind) = (piece_seat(p), piece_kind(p));
    let k = &v.kinds[kind];
    if k.pawn.is_some() {
        for &t in v.pawn_tables[seat][kind].captures.get(from) {
            visit(t as usize);
        }
    }
    if let Some(table) = v.leap_table(kind) {
        for &t in table.get(from) {
            visit(t as usize);
        }
    }
    let g = &v.geometry;
    let rays = &v.slide_rays[kind];
    g.assert_holds(rays);
    for &r in rays.get(from) {
        // SAFETY: `r` is a ray of `rays`, which `g` holds (above).
        for &t in unsafe { g.ray_cells_unchecked(r) } {
            visit(t as usize);
            if piece_at(t as usize) != EMPTY {
                break;
            }
        }
    }
}

/// The distinct cells the piece `p` on `from` attacks, in increasing
/// order.
pub fn attack_set(
    v: &Variant,
    p: Piece,
    from: Cell,
    piece_at: impl Fn(Cell) -> Piece,
) -> Vec<Cell> {
    let mut t = Vec::new();
    for_each_attack(v, p, from, piece_at, |c| t.push(c));
    t.sort_unstable();
    t.dedup();
    t
}

/// Calls `visit(cell)` for the cell of every piece that attacks `target`
/// and for which `is_attacker(piece)` holds, until `visit` breaks; `pawns`
/// lists the pawns (seat, kind, code) worth testing. Each attacking piece
/// is visited once per line it attacks along. Cheapest tests first: pawns
/// and leapers read a few fixed cells, sliders walk their rays.
#[inline(always)]
pub fn for_each_attacker(
    v: &Variant,
    target: Cell,
    pawns: &[(Seat, usize, Piece)],
    is_attacker: impl Fn(Piece) -> bool,
    piece_at: impl Fn(Cell) -> Piece,
    mut visit: impl FnMut(Cell) -> ControlFlow<()>,
) -> ControlFlow<()> {
    for &(q, k, pawn) in pawns {
        for &c in v.pawn_tables[q][k].attackers.get(target) {
            if piece_at(c as usize) == pawn {
                visit(c as usize)?;
            }
        }
    }
    for (li, &mask) in v.kinds_by_leap.iter().enumerate() {
        if mask == 0 {
            continue;
        }
        for &c in v.leap_sources(li).get(target) {
            let p = piece_at(c as usize);
            if p != EMPTY && mask >> piece_kind(p) & 1 != 0 && is_attacker(p) {
                visit(c as usize)?;
            }
        }
    }
    let g = &v.geometry;
    g.assert_holds(&v.attack_rays);
    for &r in v.attack_rays.get(target) {
        // SAFETY: `r` is a ray of the table `g` holds (above).
        for &c in unsafe { g.ray_cells_unchecked(r) } {
            let p = piece_at(c as usize);
            if p == EMPTY {
                continue;
            }
            if r.tag >> piece_kind(p) & 1 != 0 && is_attacker(p) {
                visit(c as usize)?;
            }
            break;
        }
    }
    ControlFlow::Continue(())
}

/// Whether `cell` is attacked by a piece whose attacks on `king_owner`'s
/// king are check (the question of king safety), reading the board
/// through `piece_at`.
#[inline(always)]
pub fn attacked_by_checkers(
    v: &Variant,
    cell: Cell,
    king_owner: Seat,
    piece_at: impl Fn(Cell) -> Piece,
) -> bool {
    let checks = v.checks_row(king_owner);
    for_each_attacker(
        v,
        cell,
        &v.checking_pawns[king_owner],
        |p| checks[p as usize],
        piece_at,
        |_| ControlFlow::Break(()),
    )
    .is_break()
}

/// The pawns of the seats in `seats`, as [`for_each_attacker`] takes them.
pub fn pawns_of(v: &Variant, seats: SeatSet) -> Vec<(Seat, usize, Piece)> {
    let mut list = Vec::new();
    for q in seats.iter() {
        for k in 0..v.kinds.len() {
            if v.is_pawn(k) {
                list.push((q, k, piece(q, k)));
            }
        }
    }
    list
}

/// The cells of the pieces of `seats` that attack `target`, each piece
/// once, in no particular order.
pub fn attackers(
    v: &Variant,
    target: Cell,
    seats: SeatSet,
    piece_at: impl Fn(Cell) -> Piece,
) -> Vec<Cell> {
    let mut found = Vec::new();
    let pawns = pawns_of(v, seats);
    let _ = for_each_attacker(
        v,
        target,
        &pawns,
        |p| seats.contains(piece_seat(p)),
        piece_at,
        |c| {
            if !found.contains(&c) {
                found.push(c);
            }
            ControlFlow::Continue(())
        },
    );
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::seating::Seat;

    /// Forward and reverse answers agree on every cell of random boards of
    /// every variant: `c` is attacked by the piece on `a` iff `a` is among
    /// the attackers of `c`.
    #[test]
    fn forward_and_reverse_agree() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for spec in crate::board::registry::example_specs() {
            let v = Variant::from_spec(spec).unwrap();
            let cells = v.geometry.cell_count();
            if cells > 300 {
                continue;
            }
            for _ in 0..4 {
                let mut board = vec![EMPTY; cells];
                for cell in board.iter_mut() {
                    if rng.random_range(0..4) == 0 {
                        let seat = Seat::new(rng.random_range(0..v.seat_count()));
                        *cell = piece(seat, rng.random_range(0..v.kinds.len()));
                    }
                }
                let all = v.seating.all();
                for target in 0..cells {
                    let mut expected: Vec<Cell> = (0..cells)
                        .filter(|&a| board[a] != EMPTY)
                        .filter(|&a| attack_set(&v, board[a], a, |c| board[c]).contains(&target))
                        .collect();
                    let mut got = attackers(&v, target, all, |c| board[c]);
                    expected.sort_unstable();
                    got.sort_unstable();
                    assert_eq!(
                        got,
                        expected,
                        "{spec} target {}",
                        v.geometry.cell_name(target)
                    );
                }
            }
        }
    }
}
