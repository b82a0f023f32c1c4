//! Empty-board mobility, the measure of piece strength of seed 001 ("Schach
//! hoch 3"): for each piece kind, the number of moves it has from every cell
//! it can stand on, summed (the "Schlagkraft") and averaged.
//!
//! Conventions of the seed, kept here so its figures are reproduced exactly:
//! - Colour-bound pieces (bishops) are counted per colour class: a class is a
//!   connected component of the kind's move graph on the empty board.
//! - A pawn's moves are the union of its push, double-step and capture
//!   targets ("neglecting that they capture and move differently"); it stands
//!   on the cells its player's pawns can reach from their start cells, its
//!   promotion cells excluded.
//! - The army total counts every non-pawn piece with the total of its class,
//!   and the pawns of one player and kind once with their kind's total (the
//!   seed's pawns share the cells between them).

use crate::board::geometry::Cell;
use crate::board::piece::{EMPTY, NO_CELL, piece, piece_kind, piece_seat};
use crate::board::seating::Seat;
use crate::board::variant::Variant;
use crate::rules::attacks;

/// Mobility of one class of cells of one piece kind.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassMobility {
    /// Number of cells in the class.
    pub cells: usize,
    /// Sum of the moves from every cell of the class.
    pub total: usize,
    /// A cell of the class (its lowest index), to identify it.
    pub representative: Cell,
}

impl ClassMobility {
    /// Average number of moves per cell.
    pub fn average(&self) -> f64 {
        self.total as f64 / self.cells as f64
    }
}

/// Mobility of a piece kind (for the first seat; the others are symmetric).
#[derive(Clone, Debug, PartialEq)]
pub struct KindMobility {
    /// Kind index.
    pub kind: usize,
    /// One entry per class (one for most kinds, two for the 2-D bishop, …).
    pub classes: Vec<ClassMobility>,
    /// Per cell: number of moves (0 where it cannot stand).
    pub moves: Vec<usize>,
    /// Per cell: its class index, or `usize::MAX` where it cannot stand.
    pub class_of: Vec<usize>,
}

impl KindMobility {
    /// Total over all classes.
    pub fn total(&self) -> usize {
        self.classes.iter().map(|c| c.total).sum()
    }

    /// Cells over all classes.
    pub fn cells(&self) -> usize {
        self.classes.iter().map(|c| c.cells).sum()
    }
}

/// The targets of `kind` of `seat` from `cell` on the empty board: the
/// cells it attacks, and a pawn's pushes and double steps too.
pub fn empty_board_targets(v: &Variant, seat: Seat, kind: usize, cell: Cell) -> Vec<Cell> {
    let mut t = attacks::attack_set(v, piece(seat, kind), cell, |_| EMPTY);
    if v.kinds[kind].pawn.is_some() {
        let pushes = v.pawn_tables[seat][kind].pushes.get(cell);
        t.extend(
            pushes
                .iter()
                .filter(|&&c| c != NO_CELL)
                .map(|&c| c as usize),
        );
        t.sort_unstable();
        t.dedup();
    }
    t
}

/// Cells a pawn of (`player`, `kind`) can stand on: reachable from its start
/// cells, promotion cells excluded.
fn pawn_cells(v: &Variant, player: Seat, kind: usize) -> Vec<bool> {
    let cells = v.geometry.cell_count();
    let mut seen = vec![false; cells];
    let mut stack: Vec<Cell> = v
        .start
        .iter()
        .filter(|(_, p)| *p == piece(player, kind))
        .map(|(c, _)| *c)
        .collect();
    for &c in &stack {
        seen[c] = true;
    }
    while let Some(c) = stack.pop() {
        if v.promotion_zone[player].contains(c) {
            continue;
        }
        for t in empty_board_targets(v, player, kind, c) {
            if !seen[t] {
                seen[t] = true;
                stack.push(t);
            }
        }
    }
    for (c, s) in seen.iter_mut().enumerate() {
        if v.promotion_zone[player].contains(c) {
            *s = false;
        }
    }
    seen
}

/// Mobility of `kind` for `player`.
pub fn kind_mobility(v: &Variant, player: Seat, kind: usize) -> KindMobility {
    let cells = v.geometry.cell_count();
    let is_pawn = v.kinds[kind].pawn.is_some();
    let stand = if is_pawn {
        pawn_cells(v, player, kind)
    } else {
        vec![true; cells]
    };
    let mut moves = vec![0; cells];
    let mut adjacency: Vec<Vec<Cell>> = vec![Vec::new(); cells];
    for c in 0..cells {
        if !stand[c] {
            continue;
        }
        let t = empty_board_targets(v, player, kind, c);
        moves[c] = t.len();
        adjacency[c] = t;
    }
    let mut class_of = vec![usize::MAX; cells];
    let mut classes = Vec::new();
    if is_pawn {
        let members: Vec<Cell> = (0..cells).filter(|&c| stand[c]).collect();
        for &c in &members {
            class_of[c] = 0;
        }
        if !members.is_empty() {
            classes.push(ClassMobility {
                cells: members.len(),
                total: members.iter().map(|&c| moves[c]).sum(),
                representative: members[0],
            });
        }
    } else {
        // Undirected components: moves of non-pawns are symmetric.
        for start in 0..cells {
            if class_of[start] != usize::MAX {
                continue;
            }
            let id = classes.len();
            let mut stack = vec![start];
            class_of[start] = id;
            let mut count = 0;
            let mut total = 0;
            while let Some(c) = stack.pop() {
                count += 1;
                total += moves[c];
                for &t in &adjacency[c] {
                    if class_of[t] == usize::MAX {
                        class_of[t] = id;
                        stack.push(t);
                    }
                }
            }
            classes.push(ClassMobility {
                cells: count,
                total,
                representative: start,
            });
        }
    }
    KindMobility {
        kind,
        classes,
        moves,
        class_of,
    }
}

/// Mobility of every kind (first seat) and the army total of the start
/// position.
pub struct MobilityReport {
    /// One entry per kind.
    pub kinds: Vec<KindMobility>,
    /// The start army's total mobility (seed 001's "Gesamtbeweglichkeit").
    pub army_total: usize,
}

/// Computes the report for a variant.
pub fn report(v: &Variant) -> MobilityReport {
    let kinds: Vec<KindMobility> = (0..v.kinds.len())
        .map(|k| kind_mobility(v, Seat::FIRST, k))
        .collect();
    let mut army_total = 0;
    let mut pawn_groups: Vec<(Seat, usize)> = Vec::new();
    for &(cell, p) in &v.start {
        let (player, kind) = (piece_seat(p), piece_kind(p));
        if v.kinds[kind].pawn.is_some() {
            if !pawn_groups.contains(&(player, kind)) {
                pawn_groups.push((player, kind));
                army_total += kind_mobility(v, player, kind).total();
            }
        } else {
            let m = &kinds[kind];
            army_total += m.classes[m.class_of[cell]].total;
        }
    }
    MobilityReport { kinds, army_total }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per kind letter: (cells, total) of each class.
    type Classes = Vec<(char, Vec<(usize, usize)>)>;

    fn totals(spec: &str) -> (Classes, usize) {
        let v = Variant::from_spec(spec).unwrap();
        let r = report(&v);
        (
            r.kinds
                .iter()
                .map(|k| {
                    (
                        v.kinds[k.kind].letter,
                        k.classes.iter().map(|c| (c.cells, c.total)).collect(),
                    )
                })
                .collect(),
            r.army_total,
        )
    }

    #[test]
    fn chess_figures_of_seed_001() {
        // Seed 001: king 420 (6.5625), queen 1456 (22.75), rook 896 (14),
        // knight 336 (5.25), bishop 280 per colour class (8.75), pawns 140
        // over 48 cells per side, army 10080.
        let (k, army) = totals("chess");
        let get = |c: char| k.iter().find(|x| x.0 == c).unwrap().1.clone();
        assert_eq!(get('K'), vec![(64, 420)]);
        assert_eq!(get('Q'), vec![(64, 1456)]);
        assert_eq!(get('R'), vec![(64, 896)]);
        assert_eq!(get('N'), vec![(64, 336)]);
        assert_eq!(get('B'), vec![(32, 280), (32, 280)]);
        assert_eq!(get('P'), vec![(48, 140)]);
        assert_eq!(army, 10080);
    }

    #[test]
    fn cube_figures_of_seed_001() {
        // Seed 001: king 288 (4.5), queen 720 (11.25), rook 576 (9), knight
        // 576 (9), bishop 216 per class (6.75 over 32), pawn 170 over 44
        // cells, army 7828 (= 7/9 of 10080).
        let (k, army) = totals("cube");
        let get = |c: char| k.iter().find(|x| x.0 == c).unwrap().1.clone();
        assert_eq!(get('K'), vec![(64, 288)]);
        assert_eq!(get('Q'), vec![(64, 720)]);
        assert_eq!(get('R'), vec![(64, 576)]);
        assert_eq!(get('N'), vec![(64, 576)]);
        assert_eq!(get('B'), vec![(32, 216), (32, 216)]);
        assert_eq!(get('P'), vec![(44, 170)]);
        assert_eq!(army, 7828);
    }
}
