//! What a table holds: how many positions are won, drawn and lost for
//! each side to move, and the longest wins.

use rayon::prelude::*;

use super::Table;
use super::material::MAX_PIECES;
use super::value::{End, Value};

/// Largest symmetry group for which positions are also counted one by
/// one (each class weighted by its number of distinct images).
pub const MAX_GROUP_FOR_RAW: usize = 64;

/// Counts of one side to move.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SideStats {
    /// Won by mate, lost by mate, won by stalemate, lost by stalemate,
    /// drawn: classes up to symmetry.
    pub classes: Counts,
    /// The same, every position counted (`None` where the group is too
    /// large to expand).
    pub positions: Option<Counts>,
    /// The longest win by mate: plies, an entry of it, how many classes.
    pub longest_mate: Option<(u16, u64, u64)>,
    /// The longest win by stalemate: plies, an entry, how many classes.
    pub longest_stalemate: Option<(u16, u64, u64)>,
    /// The longest loss by mate: plies, an entry, how many classes.
    pub longest_mated: Option<(u16, u64, u64)>,
}

/// Numbers of positions by outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Won by mate.
    pub mate_wins: u64,
    /// Won by the stalemate that loses.
    pub stalemate_wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost by stalemate.
    pub stalemate_losses: u64,
    /// Lost by mate.
    pub mate_losses: u64,
}

impl Counts {
    fn add(&mut self, v: Value, n: u64) {
        match v {
            Value::Win { end: End::Mate, .. } => self.mate_wins += n,
            Value::Win {
                end: End::Stalemate,
                ..
            } => self.stalemate_wins += n,
            Value::Draw => self.draws += n,
            Value::Loss {
                end: End::Stalemate,
                ..
            } => self.stalemate_losses += n,
            Value::Loss { end: End::Mate, .. } => self.mate_losses += n,
        }
    }

    fn merge(mut self, o: Counts) -> Counts {
        self.mate_wins += o.mate_wins;
        self.stalemate_wins += o.stalemate_wins;
        self.draws += o.draws;
        self.stalemate_losses += o.stalemate_losses;
        self.mate_losses += o.mate_losses;
        self
    }

    /// All legal positions counted.
    pub fn total(&self) -> u64 {
        self.mate_wins + self.stalemate_wins + self.draws + self.stalemate_losses + self.mate_losses
    }
}

/// Number of distinct positions in the class of `cells` (the side to
/// move is the same for all of them).
pub fn class_size(table: &Table, cells: &[u16]) -> u64 {
    let l = &table.layout;
    let k = l.len();
    let mut images: Vec<[u16; MAX_PIECES]> = l
        .maps
        .iter()
        .map(|m| {
            let mut img = [0u16; MAX_PIECES];
            l.image(m, cells, &mut img[..k]);
            img
        })
        .collect();
    images.sort_unstable();
    images.dedup();
    images.len() as u64
}

/// The longest result of one kind for `side` to move: its distance in
/// plies, the first entry with it and the number of such entries.
pub fn longest(
    table: &Table,
    side: usize,
    pick: impl Fn(Value) -> Option<u16> + Sync,
) -> Option<(u16, u64, u64)> {
    let of = |i: usize| -> Option<u16> {
        if i % 2 != side {
            return None;
        }
        Value::from_code(table.codes[i]).and_then(&pick)
    };
    let max = (0..table.codes.len())
        .into_par_iter()
        .filter_map(of)
        .max()?;
    let first = (0..table.codes.len())
        .into_par_iter()
        .find_first(|&i| of(i) == Some(max))? as u64;
    let count = (0..table.codes.len())
        .into_par_iter()
        .filter(|&i| of(i) == Some(max))
        .count() as u64;
    Some((max, first, count))
}

/// The distance of a value when it is a win (`win`) or a loss by `end`.
pub fn plies_of(win: bool, end: End) -> impl Fn(Value) -> Option<u16> + Sync {
    move |v| match v {
        Value::Win { end: e, plies } if win && e == end => Some(plies),
        Value::Loss { end: e, plies } if !win && e == end => Some(plies),
        _ => None,
    }
}

/// The counts of both sides to move over the legal entries that `keep`
/// accepts (given the cells and the side): classes, and every position
/// where the group is small enough to expand.
fn counts_where(
    table: &Table,
    keep: impl Fn(&[u16], usize) -> bool + Sync,
) -> [(Counts, Option<Counts>); 2] {
    let expand = table.layout.maps.len() <= MAX_GROUP_FOR_RAW;
    let sums: Vec<[Counts; 4]> = table
        .codes
        .par_chunks(1 << 14)
        .enumerate()
        .map(|(chunk, codes)| {
            let mut s = [Counts::default(); 4];
            for (j, &code) in codes.iter().enumerate() {
                let Some(val) = Value::from_code(code) else {
                    continue;
                };
                let idx = (chunk << 14) as u64 + j as u64;
                let (cells, side) = table.layout.decode(idx);
                if !keep(&cells, side) {
                    continue;
                }
                s[side].add(val, 1);
                if expand {
                    s[2 + side].add(val, class_size(table, &cells));
                }
            }
            s
        })
        .collect();
    let mut out: [(Counts, Option<Counts>); 2] = Default::default();
    for s in sums {
        for (side, o) in out.iter_mut().enumerate() {
            o.0 = o.0.merge(s[side]);
            if expand {
                o.1 = Some(o.1.unwrap_or_default().merge(s[2 + side]));
            }
        }
    }
    out
}

/// The statistics of both sides to move.
pub fn stats(table: &Table) -> [SideStats; 2] {
    let counts = counts_where(table, |_, _| true);
    let mut out = [SideStats::default(), SideStats::default()];
    for (side, (o, (classes, positions))) in out.iter_mut().zip(counts).enumerate() {
        o.classes = classes;
        o.positions = positions;
        o.longest_mate = longest(table, side, plies_of(true, End::Mate));
        o.longest_stalemate = longest(table, side, plies_of(true, End::Stalemate));
        o.longest_mated = longest(table, side, plies_of(false, End::Mate));
    }
    out
}

/// Whether no piece attacks an enemy piece: the positions seed 000 §16
/// poses its mate problems from ("the pieces shall not threaten each
/// other at the start, so that after the first move the same pieces are
/// still there").
pub fn is_quiet(pos: &crate::rules::position::Position) -> bool {
    use crate::board::piece::{EMPTY, piece_seat};
    let v = pos.variant();
    let board = pos.board();
    for (from, &p) in board.iter().enumerate() {
        if p == EMPTY {
            continue;
        }
        let mut hit = false;
        crate::rules::attacks::for_each_attack(
            v,
            p,
            from,
            |c| board[c],
            |t| {
                let q = board[t];
                if q != EMPTY && piece_seat(q) != piece_seat(p) {
                    hit = true;
                }
            },
        );
        if hit {
            return false;
        }
    }
    true
}

/// The counts of both sides to move over the quiet positions only
/// ([`is_quiet`]): classes, and every position where the group is small
/// enough to expand.
pub fn quiet_stats(
    table: &Table,
    v: &std::sync::Arc<crate::board::variant::Variant>,
) -> [(Counts, Option<Counts>); 2] {
    let k = table.layout.len();
    counts_where(table, |cells, side| {
        super::generate::position_of(v, &table.layout, &cells[..k], side)
            .is_some_and(|pos| is_quiet(&pos))
    })
}
