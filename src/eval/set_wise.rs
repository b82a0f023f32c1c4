//! The evaluation's attack counting on boards of one or two bitboard
//! words.
//!
//! Mobility and king safety need, per piece, the cells it attacks. The
//! generic count walks every ray cell by cell
//! ([`crate::rules::attacks::for_each_attack`]), about a third of the
//! search's time on chess and nearly half on the torus, whose diagonals go
//! round the board for 55 cells. On boards of at most 128 cells the move
//! generator's bitboard tables give a piece's attacks as one set (magic
//! lookups or segment walks for the slides), so mobility is a population
//! count and only the cells of the kings' neighbourhoods are counted one
//! by one. The sets are a [`Word`]: a `u64` on boards of one word (chess,
//! the cylinder, the cube), where the whole evaluation takes words, and a
//! `u128` on boards of two (the torus), where only this count does.
//!
//! The generic walk visits a cell once per ray reaching it (a rook on a
//! cylinder's rank meets the far cells from both sides, a bishop on the
//! torus meets some cells from four rays), a set holds it once: a kind
//! whose attacks overlap so is taken ray by ray, each ray a set
//! ([`SetWiseAttacks::new`] decides per kind by comparing the two counts
//! on the empty board for every piece on every cell). A test compares
//! whole evaluations of the two paths on random positions of every board
//! that takes this path.

use std::sync::Arc;

use crate::board::piece::{EMPTY, piece};
use crate::board::seating::{MAX_SEATS, Seat};
use crate::board::variant::Variant;
use crate::rules::attacks;
use crate::rules::movegen::fast64::Tables;
use crate::rules::movegen::word::Word;
use crate::rules::position::Position;

/// The bitboard tables of a board of at most `W::BITS` cells, with how
/// each kind's attacks are taken so that every visit of the generic count
/// is counted.
#[derive(Debug)]
pub(crate) struct SetWiseAttacks<W: Word> {
    tables: Arc<Tables<W>>,
    /// The kinds that move as pawns.
    pawn_kinds: Vec<usize>,
    /// The other kinds whose attacks are one set: (kind, its leap table,
    /// whether royal).
    piece_kinds: Vec<(usize, Option<usize>, bool)>,
    /// The kinds whose slides are taken ray by ray, the same way.
    ray_by_ray_kinds: Vec<(usize, Option<usize>, bool)>,
}

/// Visits per cell (saturating) of a set of attacks, for the comparison
/// with the generic count on the empty board (128: the widest word).
type Visits = [u8; 128];

fn add_visits<W: Word>(visits: &mut Visits, mut set: W) {
    while !set.is_empty() {
        let c = set.first();
        set = set.without_first();
        visits[c] = visits[c].saturating_add(1);
    }
}

/// A set of cells of a board of one or two words as a `u128` (the free
/// passed pawns' test reads either width so).
#[inline(always)]
pub(crate) fn widen<W: Word>(set: W) -> u128 {
    (0..W::BITS / 64).fold(0, |a, i| a | (set.word(i) as u128) << (64 * i))
}

impl<W: Word> SetWiseAttacks<W> {
    /// The set-wise count of `v` from its generator's `tables`, or `None`
    /// where the set-wise count would differ from the generic one.
    ///
    /// A kind's slides are one set (the union of its lookups) where the
    /// piece reaches no cell twice; else (a rook on a cylinder's rank
    /// meets the far cells from both sides) they are taken ray by ray,
    /// each ray a set, so a cell on two rays counts twice as in the
    /// generic walk. Both are checked on the empty board for every piece
    /// on every cell; rays on a fuller board are beginnings of the empty
    /// board's, so the counts agree there too.
    pub(crate) fn new(v: &Variant, tables: Arc<Tables<W>>) -> Option<SetWiseAttacks<W>> {
        let cells = v.geometry.cell_count();
        if cells > W::BITS {
            return None;
        }
        let walk = |seat: Seat, kind: usize, from: usize| {
            let mut visits: Visits = [0; 128];
            attacks::for_each_attack(
                v,
                piece(seat, kind),
                from,
                |_| EMPTY,
                |t| {
                    visits[t] = visits[t].saturating_add(1);
                },
            );
            visits
        };
        let components = |seat: Seat, kind: usize, from: usize, by_ray: bool| {
            let mut visits: Visits = [0; 128];
            if v.kinds[kind].pawn.is_some() {
                add_visits(&mut visits, tables.pawn_attacks(seat, kind, from));
            }
            if by_ray {
                if let Some(li) = v.kind_leap[kind] {
                    add_visits(&mut visits, tables.leaps_from(li, from));
                }
                for &r in v.slide_rays[kind].get(from) {
                    add_visits(
                        &mut visits,
                        tables.ray_attacks(from, r.dir as usize, W::ZERO),
                    );
                }
            } else {
                add_visits(
                    &mut visits,
                    tables.piece_attacks(kind, v.kind_leap[kind], from, W::ZERO),
                );
            }
            visits
        };
        let mut by_ray = vec![false; v.kinds.len()];
        for (kind, by_ray) in by_ray.iter_mut().enumerate() {
            for seat in v.seating.seats() {
                for from in 0..cells {
                    let visits = walk(seat, kind, from);
                    if components(seat, kind, from, false) != visits {
                        *by_ray = true;
                        if v.kinds[kind].pawn.is_some()
                            || components(seat, kind, from, true) != visits
                        {
                            return None;
                        }
                    }
                }
            }
        }
        let (pawns, pieces): (Vec<usize>, Vec<usize>) =
            (0..v.kinds.len()).partition(|&k| v.kinds[k].pawn.is_some());
        let (ray_by_ray, whole): (Vec<usize>, Vec<usize>) =
            pieces.into_iter().partition(|&k| by_ray[k]);
        let described = |kinds: Vec<usize>| {
            kinds
                .into_iter()
                .map(|k| (k, v.kind_leap[k], v.kinds[k].royal))
                .collect()
        };
        Some(SetWiseAttacks {
            tables,
            pawn_kinds: pawns,
            piece_kinds: described(whole),
            ray_by_ray_kinds: described(ray_by_ray),
        })
    }

    /// Counts the attacks of every piece of `pos`: into `attacks[seat *
    /// cells + cell]` (saturating, zeroed before) for the cells of
    /// `zones` only (the kings' neighbourhoods, all the king terms read),
    /// and returns per seat the sum over its pieces of `mobility(seat,
    /// kind, count)`, where `count` is the number of attacked cells neither held
    /// by the seat nor attacked by an enemy pawn. Royal pieces and pawns
    /// are not counted for mobility (as in the generic count). `reach`
    /// (zeroed before) receives per seat the cells its pawns attack (`.0`)
    /// and the cells any of its pieces attacks (`.1`).
    #[inline]
    pub(crate) fn count(
        &self,
        pos: &Position,
        zones: W,
        attacks: &mut [u8],
        reach: &mut [(W, W); MAX_SEATS],
        mut mobility: impl FnMut(usize, usize, i32) -> i32,
    ) -> [i32; MAX_SEATS] {
        let v = &**pos.variant();
        let t = &*self.tables;
        let cells = v.geometry.cell_count();
        let seats = v.seat_count();
        let kinds = v.kinds.len();
        let words = pos.set_words();
        let set = |i: usize| W::load(words, i);
        let occ = set(seats + kinds);
        let mut tally = |seat: usize, mut hits: W| {
            while !hits.is_empty() {
                let c = hits.first();
                hits = hits.without_first();
                let a = &mut attacks[seat * cells + c];
                *a = a.saturating_add(1);
            }
        };
        // The pawns first: their attacks bound the others' mobility.
        for seat in v.seating.seats() {
            let p = seat.index();
            for &kind in &self.pawn_kinds {
                let mut pawns = set(p) & set(seats + kind);
                while !pawns.is_empty() {
                    let c = pawns.first();
                    pawns = pawns.without_first();
                    let a = t.pawn_attacks(seat, kind, c);
                    reach[p].0 |= a;
                    reach[p].1 |= a;
                    tally(p, a & zones);
                }
            }
        }
        let mut out = [0i32; MAX_SEATS];
        for seat in v.seating.seats() {
            let p = seat.index();
            let own = set(p);
            let enemy_pawns = v
                .seating
                .seats()
                .filter(|&q| v.seating.may_capture(q, seat))
                .fold(W::ZERO, |m, q| m | reach[q.index()].0);
            let free = !own & !enemy_pawns;
            for &(kind, leap, royal) in &self.piece_kinds {
                let mut pieces = own & set(seats + kind);
                while !pieces.is_empty() {
                    let c = pieces.first();
                    pieces = pieces.without_first();
                    let a = t.piece_attacks(kind, leap, c, occ);
                    reach[p].1 |= a;
                    tally(p, a & zones);
                    if !royal {
                        out[p] += mobility(p, kind, (a & free).count() as i32);
                    }
                }
            }
            for &(kind, leap, royal) in &self.ray_by_ray_kinds {
                let mut pieces = own & set(seats + kind);
                while !pieces.is_empty() {
                    let c = pieces.first();
                    pieces = pieces.without_first();
                    let mut count = 0;
                    let all = &mut reach[p].1;
                    let mut add = |a: W| {
                        *all |= a;
                        tally(p, a & zones);
                        count += (a & free).count() as i32;
                    };
                    if let Some(li) = leap {
                        add(t.leaps_from(li, c));
                    }
                    for &r in v.slide_rays[kind].get(c) {
                        add(t.ray_attacks(c, r.dir as usize, occ));
                    }
                    if !royal {
                        out[p] += mobility(p, kind, count);
                    }
                }
            }
        }
        out
    }

    /// The cells of `seat`'s king neighbourhood (its cell and one king
    /// step around), if it has a king that steps.
    #[inline]
    pub(crate) fn king_zone(&self, v: &Variant, pos: &Position, seat: Seat) -> W {
        let (Some(kind), Some(k)) = (v.royal_kind, pos.royal_cell(seat)) else {
            return W::ZERO;
        };
        match v.kind_leap[kind] {
            Some(li) => self.tables.leaps_from(li, k) | W::bit(k),
            None => W::ZERO,
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};

    use crate::board::registry;
    use crate::board::variant::Variant;
    use crate::eval::{EvalConfig, Evaluator};
    use crate::rules::movegen::MoveGen;
    use crate::rules::position::Position;

    /// On every example board where the set-wise count is taken (one
    /// word: chess, the cylinder with its wrapping ranks ray by ray, the
    /// cube; two words: the torus, its slides ray by ray, Raumschach), whole
    /// evaluations (every term, the terms that are off by default switched
    /// on) equal the ray walk's on the positions of random games.
    #[test]
    fn set_wise_counts_equal_the_ray_walk() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(23);
        let w = crate::eval::EvalWeights {
            passed_fraction: 0.25,
            centrality_fraction: 0.25,
            doubled_fraction: 0.1,
            isolated_fraction: 0.1,
            open_line_fraction: 0.25,
            ..Default::default()
        };
        let mut taken = Vec::new();
        let mut with_tables = Vec::new();
        for spec in registry::example_specs() {
            let v = Variant::from_spec(spec).unwrap();
            // The weights above, and the variant's own (chess's have
            // tables: placement, pairs, passed pawns and the rest).
            for w in [w.clone(), crate::eval::EvalWeights::for_variant(&v)] {
                let fast = Evaluator::with_weights(&v, EvalConfig::FULL, &w);
                if fast.one_word.is_none() && fast.two_word.is_none() {
                    continue;
                }
                taken.push(spec);
                if fast.tables.is_some() {
                    with_tables.push(spec);
                }
                if spec.starts_with("cylinder") {
                    let ow = fast.one_word.as_ref().expect("taken");
                    assert!(
                        !ow.ray_by_ray_kinds.is_empty(),
                        "{spec}: no kind ray by ray"
                    );
                }
                if spec.starts_with("torus") {
                    let tw = fast.two_word.as_ref().expect("taken on two words");
                    assert!(
                        !tw.ray_by_ray_kinds.is_empty(),
                        "{spec}: no kind ray by ray"
                    );
                }
                let mut walk = Evaluator::with_weights(&v, EvalConfig::FULL, &w);
                walk.one_word = None;
                walk.two_word = None;
                let mut scratch = crate::eval::EvalScratch::default();
                let mut movegen = MoveGen::new(&v);
                let mut moves = Vec::new();
                for _ in 0..12 {
                    let mut pos = Position::start(&v);
                    for _ in 0..120 {
                        let b = fast.breakdown(&pos);
                        assert_eq!(b, walk.breakdown(&pos), "{spec}");
                        // The tuner's features take the general first
                        // pass (every table entry reported).
                        assert_eq!(fast.features(&pos, &mut scratch).0, b, "{spec}");
                        movegen.generate(&pos, &mut moves);
                        if moves.is_empty() {
                            break;
                        }
                        pos.make(moves[rng.random_range(0..moves.len())]);
                    }
                }
            }
        }
        assert!(with_tables.contains(&"chess"), "{with_tables:?}");
        for spec in ["chess", "cube", "cylinder", "torus", "raumschach"] {
            assert!(
                taken.iter().any(|s| s.starts_with(spec)),
                "{spec}: {taken:?}"
            );
        }
    }
}
