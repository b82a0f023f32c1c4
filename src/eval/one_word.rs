//! The evaluation's attack counting on boards of one bitboard word.
//!
//! Mobility and king safety need, per piece, the cells it attacks. The
//! generic count walks every ray cell by cell
//! ([`crate::rules::attacks::for_each_attack`]), about a third of the
//! search's time on chess. On boards of at most 64 cells the move
//! generator's bitboard tables give a piece's attacks as one word (magic
//! lookups for the slides), so mobility is a population count and only the
//! cells of the kings' neighbourhoods are counted one by one.
//!
//! The generic walk visits a cell once per ray reaching it (a rook on a
//! cylinder's rank meets the far cells from both sides), a word holds it
//! once: a kind whose attacks overlap so is taken ray by ray, each ray a
//! word ([`OneWordAttacks::new`] decides per kind by comparing the two
//! counts on the empty board for every piece on every cell). A test
//! compares whole evaluations of the two paths on random positions of
//! every board that takes this path.

use std::sync::Arc;

use crate::board::piece::{EMPTY, piece};
use crate::board::seating::{MAX_SEATS, Seat};
use crate::board::variant::Variant;
use crate::rules::attacks;
use crate::rules::movegen::fast64::Tables;
use crate::rules::position::Position;

/// The bitboard tables of a board of one word, with how each kind's
/// attacks are taken so that every visit of the generic count is counted.
#[derive(Debug)]
pub(crate) struct OneWordAttacks {
    tables: Arc<Tables<u64>>,
    /// The kinds that move as pawns.
    pawn_kinds: Vec<usize>,
    /// The other kinds whose attacks are one set: (kind, its leap table,
    /// whether royal).
    piece_kinds: Vec<(usize, Option<usize>, bool)>,
    /// The kinds whose slides are taken ray by ray, the same way.
    ray_by_ray_kinds: Vec<(usize, Option<usize>, bool)>,
}

/// Visits per cell (saturating) of a set of attacks, for the comparison
/// with the generic count on the empty board.
type Visits = [u8; 64];

fn add_visits(visits: &mut Visits, mut set: u64) {
    while set != 0 {
        let c = set.trailing_zeros() as usize;
        set &= set - 1;
        visits[c] = visits[c].saturating_add(1);
    }
}

impl OneWordAttacks {
    /// The tables of `v`, or `None` where the board takes more than one
    /// word or the set-wise count would differ from the generic one.
    ///
    /// A kind's slides are one set (the union of its magic lookups) where
    /// the piece reaches no cell twice; else (a rook on a cylinder's rank
    /// meets the far cells from both sides) they are taken ray by ray,
    /// each ray a set, so a cell on two rays counts twice as in the
    /// generic walk. Both are checked on the empty board for every piece
    /// on every cell; rays on a fuller board are beginnings of the empty
    /// board's, so the counts agree there too.
    pub(crate) fn new(v: &Variant) -> Option<OneWordAttacks> {
        let tables = crate::rules::movegen::one_word_tables(v)?;
        let cells = v.geometry.cell_count();
        let walk = |seat: Seat, kind: usize, from: usize| {
            let mut visits: Visits = [0; 64];
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
            let mut visits: Visits = [0; 64];
            if v.kinds[kind].pawn.is_some() {
                add_visits(&mut visits, tables.pawn_attacks(seat, kind, from));
            }
            if by_ray {
                if let Some(li) = v.kind_leap[kind] {
                    add_visits(&mut visits, tables.leaps_from(li, from));
                }
                for &r in v.slide_rays[kind].get(from) {
                    add_visits(&mut visits, tables.ray_attacks(from, r.dir as usize, 0));
                }
            } else {
                add_visits(
                    &mut visits,
                    tables.piece_attacks(kind, v.kind_leap[kind], from, 0),
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
        Some(OneWordAttacks {
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
        zones: u64,
        attacks: &mut [u8],
        reach: &mut [(u64, u64); MAX_SEATS],
        mut mobility: impl FnMut(usize, usize, i32) -> i32,
    ) -> [i32; MAX_SEATS] {
        let v = &**pos.variant();
        let t = &*self.tables;
        let cells = v.geometry.cell_count();
        let seats = v.seat_count();
        let kinds = v.kinds.len();
        let sets = pos.one_word_sets(0, seats + kinds + 1);
        let occ = sets[seats + kinds];
        let mut tally = |seat: usize, mut hits: u64| {
            while hits != 0 {
                let c = hits.trailing_zeros() as usize;
                hits &= hits - 1;
                let a = &mut attacks[seat * cells + c];
                *a = a.saturating_add(1);
            }
        };
        // The pawns first: their attacks bound the others' mobility.
        for seat in v.seating.seats() {
            let p = seat.index();
            for &kind in &self.pawn_kinds {
                let mut pawns = sets[p] & sets[seats + kind];
                while pawns != 0 {
                    let c = pawns.trailing_zeros() as usize;
                    pawns &= pawns - 1;
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
            let enemy_pawns = v
                .seating
                .seats()
                .filter(|&q| v.seating.may_capture(q, seat))
                .fold(0u64, |m, q| m | reach[q.index()].0);
            let free = !sets[p] & !enemy_pawns;
            for &(kind, leap, royal) in &self.piece_kinds {
                let mut pieces = sets[p] & sets[seats + kind];
                while pieces != 0 {
                    let c = pieces.trailing_zeros() as usize;
                    pieces &= pieces - 1;
                    let a = t.piece_attacks(kind, leap, c, occ);
                    reach[p].1 |= a;
                    tally(p, a & zones);
                    if !royal {
                        out[p] += mobility(p, kind, (a & free).count_ones() as i32);
                    }
                }
            }
            for &(kind, leap, royal) in &self.ray_by_ray_kinds {
                let mut pieces = sets[p] & sets[seats + kind];
                while pieces != 0 {
                    let c = pieces.trailing_zeros() as usize;
                    pieces &= pieces - 1;
                    let mut count = 0;
                    let all = &mut reach[p].1;
                    let mut add = |a: u64| {
                        *all |= a;
                        tally(p, a & zones);
                        count += (a & free).count_ones() as i32;
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
    pub(crate) fn king_zone(&self, v: &Variant, pos: &Position, seat: Seat) -> u64 {
        let (Some(kind), Some(k)) = (v.royal_kind, pos.royal_cell(seat)) else {
            return 0;
        };
        match v.kind_leap[kind] {
            Some(li) => self.tables.leaps_from(li, k) | 1 << k,
            None => 0,
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

    /// On every example board where the set-wise count is taken (the
    /// cylinder's wrapping ranks ray by ray), whole evaluations (every
    /// term, the terms that are off by default switched on) equal the ray
    /// walk's on the positions of random games.
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
                if fast.one_word.is_none() {
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
                let mut walk = Evaluator::with_weights(&v, EvalConfig::FULL, &w);
                walk.one_word = None;
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
        for spec in ["chess", "cube", "cylinder"] {
            assert!(
                taken.iter().any(|s| s.starts_with(spec)),
                "{spec}: {taken:?}"
            );
        }
    }
}
