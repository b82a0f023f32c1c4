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
//! The two counts agree exactly only where a piece never reaches a cell
//! twice: the generic walk visits a cell once per ray reaching it (a rook
//! on a cylinder's rank meets the far cells from both sides), a word holds
//! it once. [`OneWordAttacks::new`] therefore compares the two on the empty
//! board for every piece on every cell and declines the board where any
//! cell is reached twice; rays on a fuller board are parts of the empty
//! board's, so they cannot overlap there either. A test compares whole
//! evaluations of the two paths on random positions of every such board.

use std::sync::Arc;

use crate::board::piece::{EMPTY, piece};
use crate::board::seating::{MAX_SEATS, Seat};
use crate::board::variant::Variant;
use crate::rules::attacks;
use crate::rules::movegen::fast64::Tables;
use crate::rules::position::Position;

/// The bitboard tables of a board on which every piece's attacks are a
/// set (no cell reached twice).
#[derive(Debug)]
pub(crate) struct OneWordAttacks {
    tables: Arc<Tables>,
    /// The kinds that move as pawns.
    pawn_kinds: Vec<usize>,
    /// The other kinds: (kind, its leap table, whether royal).
    piece_kinds: Vec<(usize, Option<usize>, bool)>,
}

impl OneWordAttacks {
    /// The tables of `v`, or `None` where the board takes more than one
    /// word or some piece reaches a cell along two lines (then the generic
    /// count is the exact one).
    pub(crate) fn new(v: &Variant) -> Option<OneWordAttacks> {
        let tables = Tables::new(v)?;
        let cells = v.geometry.cell_count();
        for seat in v.seating.seats() {
            for kind in 0..v.kinds.len() {
                let p = piece(seat, kind);
                for from in 0..cells {
                    let mut visited = 0u64;
                    let mut twice = false;
                    attacks::for_each_attack(
                        v,
                        p,
                        from,
                        |_| EMPTY,
                        |t| {
                            twice |= visited >> t & 1 != 0;
                            visited |= 1 << t;
                        },
                    );
                    if twice || visited != tables.attacks_of(v, seat, kind, from, 0) {
                        return None;
                    }
                }
            }
        }
        let (pawns, pieces): (Vec<usize>, Vec<usize>) =
            (0..v.kinds.len()).partition(|&k| v.kinds[k].pawn.is_some());
        Some(OneWordAttacks {
            tables: Arc::new(tables),
            pawn_kinds: pawns,
            piece_kinds: pieces
                .into_iter()
                .map(|k| (k, v.kind_leap[k], v.kinds[k].royal))
                .collect(),
        })
    }

    /// Counts the attacks of every piece of `pos`: into `attacks[seat *
    /// cells + cell]` (saturating, zeroed before) for the cells of
    /// `zones` only (the kings' neighbourhoods, all the king terms read),
    /// and returns per seat the sum over its pieces of `mobility(kind,
    /// count)`, where `count` is the number of attacked cells neither held
    /// by the seat nor attacked by an enemy pawn. Royal pieces and pawns
    /// are not counted for mobility (as in the generic count).
    #[inline]
    pub(crate) fn count(
        &self,
        pos: &Position,
        zones: u64,
        attacks: &mut [u8],
        mut mobility: impl FnMut(usize, i32) -> i32,
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
        let mut pawn_attacks = [0u64; MAX_SEATS];
        for seat in v.seating.seats() {
            let p = seat.index();
            for &kind in &self.pawn_kinds {
                let mut pawns = sets[p] & sets[seats + kind];
                while pawns != 0 {
                    let c = pawns.trailing_zeros() as usize;
                    pawns &= pawns - 1;
                    let a = t.pawn_attacks(seat, kind, c);
                    pawn_attacks[p] |= a;
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
                .fold(0u64, |m, q| m | pawn_attacks[q.index()]);
            let free = !sets[p] & !enemy_pawns;
            for &(kind, leap, royal) in &self.piece_kinds {
                let mut pieces = sets[p] & sets[seats + kind];
                while pieces != 0 {
                    let c = pieces.trailing_zeros() as usize;
                    pieces &= pieces - 1;
                    let a = t.piece_attacks(kind, leap, c, occ);
                    tally(p, a & zones);
                    if !royal {
                        out[p] += mobility(kind, (a & free).count_ones() as i32);
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

    /// On every example board where the set-wise count is taken, whole
    /// evaluations (every term) equal the ray walk's on the positions of
    /// random games; the boards where a piece reaches a cell twice (the
    /// cylinder's wrapping ranks) decline it.
    #[test]
    fn set_wise_counts_equal_the_ray_walk() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(23);
        let mut taken = Vec::new();
        for spec in registry::example_specs() {
            let v = Variant::from_spec(spec).unwrap();
            let fast = Evaluator::new(&v, EvalConfig::FULL);
            if fast.one_word.is_none() {
                continue;
            }
            taken.push(spec);
            let mut walk = Evaluator::new(&v, EvalConfig::FULL);
            walk.one_word = None;
            let mut movegen = MoveGen::new(&v);
            let mut moves = Vec::new();
            for _ in 0..12 {
                let mut pos = Position::start(&v);
                for _ in 0..120 {
                    assert_eq!(fast.breakdown(&pos), walk.breakdown(&pos), "{spec}");
                    movegen.generate(&pos, &mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    pos.make(moves[rng.random_range(0..moves.len())]);
                }
            }
        }
        for spec in ["chess", "cube"] {
            assert!(
                taken.iter().any(|s| s.starts_with(spec)),
                "{spec}: {taken:?}"
            );
        }
        assert!(
            !taken.iter().any(|s| s.starts_with("cylinder")),
            "{taken:?}"
        );
    }
}
