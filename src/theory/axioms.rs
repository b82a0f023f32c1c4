//! The start-position axioms of T4.2 (seed 000 §4.2 "Die Stellungsmenge"),
//! checked on a variant's start position or any other placement.
//!
//! The seed derives its variants from these axioms, so a start table that
//! breaks one is either a transcription error in the engine or a known
//! departure of the variant from the theory (the cube of "Schach hoch 3" is
//! not derived from it). The checks are written from the axioms' wording, not
//! from the move generator, so that they are an independent cross-check:
//!
//! 1. *Existenzaxiom der Könige*: every player has exactly one king.
//! 2. *Gleichmächtigkeitsaxiom*: every player has as many pieces of each kind
//!    as every other.
//! 3. *Erstes Figurenebenenaxiom*: for every player g there is exactly one
//!    axis k(g) such that any two of g's pieces (non-pawns) are connected by
//!    unit steps along the other axes, i.e. the pieces lie on one face
//!    perpendicular to k(g).
//! 4. *Zweites Figurenebenenaxiom*: every cell reached from one of g's pieces
//!    by unit steps along axes other than k(g) holds one of g's pieces: the
//!    face is full.
//! 5. *Erstes Bauernebenenaxiom*: the neighbour of each of g's pieces along
//!    +k(g) and along −k(g), where it exists, holds a pawn of g moving in that
//!    direction (on the torus the cell "behind" the back rank holds the
//!    reverse pawn).
//! 6. *Zweites Bauernebenenaxiom*: the cell one step against a pawn's move
//!    direction, where it exists, holds a piece (non-pawn) of the pawn's
//!    owner. Pawns with several move directions (the cube's) are checked for
//!    each.
//! 7. *Bedrohungsfreiheitsaxiom*: no piece can capture an enemy piece from
//!    the start: sliders along their rays up to the first occupied cell,
//!    leapers onto their leap targets, pawns onto their capture targets.
//!
//! "Where it exists" follows the seed's formulas, whose premises need the
//! neighbour to be a cell of the board (`a ≺^k b`).

use std::fmt;

use crate::board::geometry::Cell;
use crate::board::piece::{EMPTY, Piece, piece_kind, piece_seat};
use crate::board::seating::Seat;
use crate::board::variant::Variant;
use crate::rules::attacks;

/// The axioms of T4.2 in the seed's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Axiom {
    /// Exactly one king per player.
    KingExistence,
    /// Equal armies.
    EqualArmies,
    /// The pieces lie on one face, perpendicular to exactly one axis k(g).
    FirstPiecePlane,
    /// That face is full of the player's pieces.
    SecondPiecePlane,
    /// A pawn moving along ±k(g) next to each piece.
    FirstPawnPlane,
    /// A piece behind each pawn.
    SecondPawnPlane,
    /// No piece attacks an enemy piece.
    NoThreat,
}

impl Axiom {
    /// Every axiom, in the seed's order.
    pub const ALL: [Axiom; 7] = [
        Axiom::KingExistence,
        Axiom::EqualArmies,
        Axiom::FirstPiecePlane,
        Axiom::SecondPiecePlane,
        Axiom::FirstPawnPlane,
        Axiom::SecondPawnPlane,
        Axiom::NoThreat,
    ];

    /// English name with the seed's German name.
    pub fn name(self) -> &'static str {
        match self {
            Axiom::KingExistence => "one king per player (Existenzaxiom der Koenige)",
            Axiom::EqualArmies => "equal armies (Gleichmaechtigkeitsaxiom)",
            Axiom::FirstPiecePlane => "pieces on one face (erstes Figurenebenenaxiom)",
            Axiom::SecondPiecePlane => "face full of pieces (zweites Figurenebenenaxiom)",
            Axiom::FirstPawnPlane => "pawn in front of each piece (erstes Bauernebenenaxiom)",
            Axiom::SecondPawnPlane => "piece behind each pawn (zweites Bauernebenenaxiom)",
            Axiom::NoThreat => "no piece attacks another (Bedrohungsfreiheitsaxiom)",
        }
    }
}

/// A piece as reported: its owner and its kind's upper-case letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Occupant {
    /// Owner (index into the variant's players).
    pub player: usize,
    /// Upper-case letter of the kind.
    pub letter: char,
}

/// One breach of an axiom. Cells are given by their ASCII names
/// (docs/notation.md), axes 0-based as in [`crate::board::geometry`] (axis 0 is the
/// seed's axis 1, the rank axis).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Violation {
    /// The player has `count` kings, not one.
    KingCount { player: usize, count: usize },
    /// The player has `count` pieces of kind `letter`, player 0 has
    /// `reference`.
    ArmySize {
        player: usize,
        letter: char,
        count: usize,
        reference: usize,
    },
    /// The axes along which the player's pieces are *not* needed to go from
    /// one to another; the first piece-plane axiom wants exactly one.
    PieceFace { player: usize, axes: Vec<usize> },
    /// `cell` is on the player's piece face (reached from a piece without a
    /// step along k(g)) but holds `found` instead of one of its pieces.
    FaceGap {
        player: usize,
        cell: String,
        found: Option<Occupant>,
    },
    /// The piece `piece` on `cell` has at `next` (one `step` away, `step` =
    /// ±k(g)) `found` instead of its own pawn moving along `step`.
    NoPawnInFront {
        player: usize,
        piece: char,
        cell: String,
        step: Vec<i32>,
        next: String,
        found: Option<Occupant>,
    },
    /// The pawn on `cell`, moving along `step`, has at `behind` (one step
    /// against `step`) `found` instead of one of its owner's pieces.
    NoPieceBehind {
        player: usize,
        cell: String,
        step: Vec<i32>,
        behind: String,
        found: Option<Occupant>,
    },
    /// `attacker` on `from` can capture `victim` on `to`.
    Threat {
        attacker: Occupant,
        from: String,
        victim: Occupant,
        to: String,
    },
}

impl Violation {
    /// The axiom this violation breaks.
    pub fn axiom(&self) -> Axiom {
        match self {
            Violation::KingCount { .. } => Axiom::KingExistence,
            Violation::ArmySize { .. } => Axiom::EqualArmies,
            Violation::PieceFace { .. } => Axiom::FirstPiecePlane,
            Violation::FaceGap { .. } => Axiom::SecondPiecePlane,
            Violation::NoPawnInFront { .. } => Axiom::FirstPawnPlane,
            Violation::NoPieceBehind { .. } => Axiom::SecondPawnPlane,
            Violation::Threat { .. } => Axiom::NoThreat,
        }
    }

    /// One line of text; `players` are the players' names.
    pub fn describe(&self, players: &[String]) -> String {
        let name = |p: usize| {
            players
                .get(p)
                .cloned()
                .unwrap_or_else(|| format!("player {p}"))
        };
        let occ = |o: &Option<Occupant>| match o {
            None => "is empty".to_string(),
            Some(o) => format!("holds {} {}", name(o.player), o.letter),
        };
        match self {
            Violation::KingCount { player, count } => {
                format!("{} has {count} kings", name(*player))
            }
            Violation::ArmySize {
                player,
                letter,
                count,
                reference,
            } => format!(
                "{} has {count} {letter}, {} has {reference}",
                name(*player),
                name(0)
            ),
            Violation::PieceFace { player, axes } => {
                let list: Vec<String> = axes.iter().map(|a| format!("x{}", a + 1)).collect();
                format!(
                    "{}'s pieces lie on a face perpendicular to {} axes ({}), not exactly one",
                    name(*player),
                    axes.len(),
                    list.join(", ")
                )
            }
            Violation::FaceGap {
                player,
                cell,
                found,
            } => format!(
                "{cell} is on {}'s piece face but {}",
                name(*player),
                occ(found)
            ),
            Violation::NoPawnInFront {
                player,
                piece,
                cell,
                step,
                next,
                found,
            } => format!(
                "{} {piece} on {cell}: the cell {next} ({}) {}, not a pawn of {} moving {}",
                name(*player),
                step_text(step),
                occ(found),
                name(*player),
                step_text(step)
            ),
            Violation::NoPieceBehind {
                player,
                cell,
                step,
                behind,
                found,
            } => format!(
                "{} pawn on {cell} moving {}: the cell behind it, {behind}, {}",
                name(*player),
                step_text(step),
                occ(found)
            ),
            Violation::Threat {
                attacker,
                from,
                victim,
                to,
            } => format!(
                "{} {} on {from} attacks {} {} on {to}",
                name(attacker.player),
                attacker.letter,
                name(victim.player),
                victim.letter
            ),
        }
    }
}

/// `+x1`, `-x3` for unit steps; the vector otherwise.
fn step_text(step: &[i32]) -> String {
    let nonzero: Vec<(usize, i32)> = step
        .iter()
        .enumerate()
        .filter(|&(_, &s)| s != 0)
        .map(|(a, &s)| (a, s))
        .collect();
    match nonzero.as_slice() {
        [(a, 1)] => format!("+x{}", a + 1),
        [(a, -1)] => format!("-x{}", a + 1),
        _ => format!("{step:?}"),
    }
}

/// The result of checking a placement against T4.2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxiomReport {
    /// The players' names, for display.
    pub players: Vec<String>,
    /// Per player: its axis k(g) (0-based) where the first piece-plane
    /// axiom determines one.
    pub face_axis: Vec<Option<usize>>,
    /// Every violation, grouped by axiom in the seed's order, cells in
    /// index order within each group.
    pub violations: Vec<Violation>,
}

impl AxiomReport {
    /// Whether every axiom holds.
    pub fn passes(&self) -> bool {
        self.violations.is_empty()
    }

    /// The violations of one axiom.
    pub fn of(&self, axiom: Axiom) -> impl Iterator<Item = &Violation> {
        self.violations.iter().filter(move |v| v.axiom() == axiom)
    }
}

impl fmt::Display for AxiomReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "T4.2 start-position axioms (seed 000, section 4.2):")?;
        for axiom in Axiom::ALL {
            let list: Vec<&Violation> = self.of(axiom).collect();
            if list.is_empty() {
                write!(f, "  ok    {}", axiom.name())?;
                if axiom == Axiom::FirstPiecePlane {
                    let axes: Vec<String> = self
                        .face_axis
                        .iter()
                        .enumerate()
                        .map(|(p, a)| {
                            let name = &self.players[p];
                            match a {
                                Some(a) => format!("{name} x{}", a + 1),
                                None => format!("{name} -"),
                            }
                        })
                        .collect();
                    write!(f, "; k(g): {}", axes.join(", "))?;
                }
                writeln!(f)?;
            } else {
                writeln!(f, "  FAIL  {}: {} violation(s)", axiom.name(), list.len())?;
                for v in list {
                    writeln!(f, "        {}", v.describe(&self.players))?;
                }
            }
        }
        if self.passes() {
            writeln!(f, "result: all axioms hold")
        } else {
            writeln!(f, "result: {} violation(s)", self.violations.len())
        }
    }
}

/// Checks the variant's start position.
pub fn check_start(v: &Variant) -> AxiomReport {
    check_placement(v, &v.start)
}

/// Checks any placement of pieces on the variant's board. The pieces must be
/// codes of this variant (as [`crate::rules::position::Position`] holds them); a
/// cell outside the board is ignored and of several pieces on one cell the
/// last one counts.
pub fn check_placement(v: &Variant, pieces: &[(Cell, Piece)]) -> AxiomReport {
    let g = &v.geometry;
    let mut board = vec![EMPTY; g.cell_count()];
    for &(c, p) in pieces {
        if c < board.len() {
            board[c] = p;
        }
    }
    let checker = Checker { v, board: &board };
    let mut violations = Vec::new();
    checker.kings(&mut violations);
    checker.armies(&mut violations);
    let face_axis = checker.faces(&mut violations);
    checker.face_gaps(&face_axis, &mut violations);
    checker.pawns_in_front(&face_axis, &mut violations);
    checker.pieces_behind(&mut violations);
    checker.threats(&mut violations);
    AxiomReport {
        players: v
            .seating
            .seats()
            .map(|s| v.seating.name(s).to_string())
            .collect(),
        face_axis: face_axis
            .iter()
            .map(|f| match f {
                Face::Unique(a) => Some(*a),
                Face::Ambiguous(_) => None,
            })
            .collect(),
        violations,
    }
}

/// What the first piece-plane axiom found for one player.
enum Face {
    /// Exactly one axis k(g).
    Unique(usize),
    /// None or several; the pawn-plane checks then use the player's forward
    /// axis (held here).
    Ambiguous(usize),
}

impl Face {
    fn axis(&self) -> usize {
        match self {
            Face::Unique(a) | Face::Ambiguous(a) => *a,
        }
    }
}

struct Checker<'a> {
    v: &'a Variant,
    board: &'a [Piece],
}

impl Checker<'_> {
    fn occupant(&self, c: Cell) -> Option<Occupant> {
        match self.board[c] {
            EMPTY => None,
            p => Some(Occupant {
                player: piece_seat(p).index(),
                letter: self.v.kinds[piece_kind(p)].letter,
            }),
        }
    }

    fn name(&self, c: Cell) -> String {
        self.v.geometry.cell_name(c)
    }

    /// Whether `p` is a piece in the narrow sense (not a pawn) of `player`.
    fn is_piece_of(&self, p: Piece, player: Seat) -> bool {
        p != EMPTY && piece_seat(p) == player && self.v.kinds[piece_kind(p)].pawn.is_none()
    }

    /// Cells of `player`'s pieces (non-pawns), ascending.
    fn pieces_of(&self, player: Seat) -> Vec<Cell> {
        (0..self.board.len())
            .filter(|&c| self.is_piece_of(self.board[c], player))
            .collect()
    }

    /// The unit vector along `axis` with `sign`.
    fn unit(&self, axis: usize, sign: i32) -> Vec<i32> {
        let mut v = vec![0; self.v.geometry.dims()];
        v[axis] = sign;
        v
    }

    /// Cells reachable from `from` by unit steps along every axis except
    /// `skip` (both signs, wrapping where the board wraps).
    fn component(&self, from: &[Cell], skip: usize) -> Vec<bool> {
        let g = &self.v.geometry;
        let steps: Vec<Vec<i32>> = (0..g.dims())
            .filter(|&a| a != skip)
            .flat_map(|a| [self.unit(a, 1), self.unit(a, -1)])
            .collect();
        let mut seen = vec![false; g.cell_count()];
        let mut stack: Vec<Cell> = from.to_vec();
        for &c in from {
            seen[c] = true;
        }
        while let Some(c) = stack.pop() {
            for s in &steps {
                for t in g.steps(c, s) {
                    if !seen[t] {
                        seen[t] = true;
                        stack.push(t);
                    }
                }
            }
        }
        seen
    }

    fn kings(&self, out: &mut Vec<Violation>) {
        for seat in self.v.seating.seats() {
            let count = self
                .board
                .iter()
                .filter(|&&p| {
                    p != EMPTY && piece_seat(p) == seat && self.v.kinds[piece_kind(p)].royal
                })
                .count();
            if count != 1 {
                out.push(Violation::KingCount {
                    player: seat.index(),
                    count,
                });
            }
        }
    }

    fn armies(&self, out: &mut Vec<Violation>) {
        let count = |player: Seat, kind: usize| {
            self.board
                .iter()
                .filter(|&&p| p != EMPTY && piece_seat(p) == player && piece_kind(p) == kind)
                .count()
        };
        for seat in self.v.seating.seats().skip(1) {
            for (kind, k) in self.v.kinds.iter().enumerate() {
                let (n, reference) = (count(seat, kind), count(Seat::FIRST, kind));
                if n != reference {
                    out.push(Violation::ArmySize {
                        player: seat.index(),
                        letter: k.letter,
                        count: n,
                        reference,
                    });
                }
            }
        }
    }

    /// The first piece-plane axiom: the axes k for which all of a player's
    /// pieces are connected without steps along k.
    fn faces(&self, out: &mut Vec<Violation>) -> Vec<Face> {
        let n = self.v.geometry.dims();
        let mut faces = Vec::new();
        for seat in self.v.seating.seats() {
            let pl = self.v.seating.info(seat);
            let pieces = self.pieces_of(seat);
            let axes: Vec<usize> = (0..n)
                .filter(|&k| match pieces.first() {
                    None => true,
                    Some(&first) => {
                        let reach = self.component(&[first], k);
                        pieces.iter().all(|&c| reach[c])
                    }
                })
                .collect();
            if let [k] = axes.as_slice() {
                faces.push(Face::Unique(*k));
            } else {
                let mut e0 = vec![0; n];
                e0[0] = 1;
                let forward = pl.orient(&e0).iter().position(|&x| x != 0).unwrap_or(0);
                out.push(Violation::PieceFace {
                    player: seat.index(),
                    axes,
                });
                faces.push(Face::Ambiguous(forward));
            }
        }
        faces
    }

    /// The second piece-plane axiom: the face of each player is full.
    fn face_gaps(&self, faces: &[Face], out: &mut Vec<Violation>) {
        for (player, face) in faces.iter().enumerate() {
            let seat = Seat::new(player);
            let pieces = self.pieces_of(seat);
            if pieces.is_empty() {
                continue;
            }
            let reach = self.component(&pieces, face.axis());
            for (c, &on_face) in reach.iter().enumerate() {
                if on_face && !self.is_piece_of(self.board[c], seat) {
                    out.push(Violation::FaceGap {
                        player,
                        cell: self.name(c),
                        found: self.occupant(c),
                    });
                }
            }
        }
    }

    /// Board vectors of the pushes of `player`'s pawn kind `kind`.
    fn pushes(&self, player: Seat, kind: usize) -> Vec<Vec<i32>> {
        match &self.v.kinds[kind].pawn {
            None => Vec::new(),
            Some(rule) => rule
                .pushes
                .iter()
                .map(|s| self.v.seating.info(player).orient(s))
                .collect(),
        }
    }

    /// The first pawn-plane axiom.
    fn pawns_in_front(&self, faces: &[Face], out: &mut Vec<Violation>) {
        let g = &self.v.geometry;
        for c in 0..self.board.len() {
            let p = self.board[c];
            if p == EMPTY || self.v.kinds[piece_kind(p)].pawn.is_some() {
                continue;
            }
            let player = piece_seat(p);
            let k = faces[player.index()].axis();
            // The double diamond is not directed: a face cell's neighbours
            // along its axis are one cell in each copy, and a pawn there
            // moves away from the piece when its push does not lead back.
            let neighbours: Vec<(Vec<i32>, Cell)> = [1, -1]
                .into_iter()
                .flat_map(|sign| {
                    let step = self.unit(k, sign);
                    g.steps(c, &step)
                        .into_iter()
                        .map(move |t| (step.clone(), t))
                })
                .fold(Vec::new(), |mut acc, (step, t)| {
                    if !acc.iter().any(|(_, u)| *u == t) {
                        acc.push((step, t));
                    }
                    acc
                });
            for (step, next) in neighbours {
                let q = self.board[next];
                let pushes = if q == EMPTY {
                    Vec::new()
                } else {
                    self.pushes(player, piece_kind(q))
                };
                let away = if g.is_double_diamond() {
                    pushes.iter().any(|p| !g.steps(next, p).contains(&c))
                } else {
                    pushes.contains(&step)
                };
                let ok = q != EMPTY && piece_seat(q) == player && away;
                if !ok {
                    out.push(Violation::NoPawnInFront {
                        player: player.index(),
                        piece: self.v.kinds[piece_kind(p)].letter,
                        cell: self.name(c),
                        step,
                        next: self.name(next),
                        found: self.occupant(next),
                    });
                }
            }
        }
    }

    /// The second pawn-plane axiom.
    fn pieces_behind(&self, out: &mut Vec<Violation>) {
        let g = &self.v.geometry;
        for c in 0..self.board.len() {
            let p = self.board[c];
            if p == EMPTY || self.v.kinds[piece_kind(p)].pawn.is_none() {
                continue;
            }
            let player = piece_seat(p);
            for step in self.pushes(player, piece_kind(p)) {
                let back: Vec<i32> = step.iter().map(|s| -s).collect();
                let Some(behind) = g.step(c, &back) else {
                    continue;
                };
                if !self.is_piece_of(self.board[behind], player) {
                    out.push(Violation::NoPieceBehind {
                        player: player.index(),
                        cell: self.name(c),
                        step,
                        behind: self.name(behind),
                        found: self.occupant(behind),
                    });
                }
            }
        }
    }

    /// The threat-freedom axiom.
    fn threats(&self, out: &mut Vec<Violation>) {
        for c in 0..self.board.len() {
            let p = self.board[c];
            if p == EMPTY {
                continue;
            }
            for t in attacks::attack_set(self.v, p, c, |x| self.board[x]) {
                let q = self.board[t];
                if q != EMPTY && self.v.seating.may_capture(piece_seat(p), piece_seat(q)) {
                    out.push(Violation::Threat {
                        attacker: self
                            .occupant(c)
                            .expect("invariant: c holds p, which is not EMPTY"),
                        from: self.name(c),
                        victim: self
                            .occupant(t)
                            .expect("invariant: t holds q, which is not EMPTY"),
                        to: self.name(t),
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::piece::piece;

    fn cell(v: &Variant, name: &str) -> Cell {
        v.geometry
            .parse_cell(name)
            .expect("test cell names are valid")
    }

    #[test]
    fn classical_start_passes() {
        let v = Variant::from_spec("chess").unwrap();
        let r = check_start(&v);
        assert!(r.passes(), "{r}");
        // k(g) is the rank axis for both players.
        assert_eq!(r.face_axis, vec![Some(0), Some(0)]);
    }

    #[test]
    fn each_axiom_catches_its_breach() {
        let v = Variant::from_spec("chess").unwrap();
        let k = |c: char| v.kind_by_letter(c).unwrap();
        // The classical start with e2 moved to e4, the black a-pawn gone,
        // the black queen removed and a second white king on e3.
        let mut pieces: Vec<(Cell, Piece)> = v
            .start
            .iter()
            .copied()
            .filter(|&(c, _)| !["e2", "a7", "d8"].contains(&v.geometry.cell_name(c).as_str()))
            .collect();
        pieces.push((cell(&v, "e4"), piece(Seat::FIRST, k('P'))));
        pieces.push((cell(&v, "e3"), piece(Seat::FIRST, k('K'))));
        let r = check_placement(&v, &pieces);
        let white = |letter| Occupant { player: 0, letter };
        let black = |letter| Occupant { player: 1, letter };
        // Derived by hand from the placement above:
        // - two white kings; black lacks a pawn and the queen and has one
        //   king fewer than white (kinds in the order P N B R Q K);
        // - white's pieces stand on ranks 1 and 3: no axis joins them;
        //   black's still lie on rank 8 (k = x1);
        // - white's face (taken along its forward axis x1) is ranks 1 and 3:
        //   a3..h3 except e3 are empty; black's rank 8 misses d8;
        // - e1 has no pawn on e2; the king on e3 has e4 (+x1) but not e2
        //   (-x1); the a8 rook has no pawn on a7;
        // - the black pawn on d7 has nothing on d8 behind it;
        // - the a8 rook sees down the open a-file to the pawn on a2.
        let expected = vec![
            Violation::KingCount {
                player: 0,
                count: 2,
            },
            Violation::ArmySize {
                player: 1,
                letter: 'P',
                count: 7,
                reference: 8,
            },
            Violation::ArmySize {
                player: 1,
                letter: 'Q',
                count: 0,
                reference: 1,
            },
            Violation::ArmySize {
                player: 1,
                letter: 'K',
                count: 1,
                reference: 2,
            },
            Violation::PieceFace {
                player: 0,
                axes: vec![],
            },
            Violation::FaceGap {
                player: 0,
                cell: "a3".into(),
                found: None,
            },
            Violation::FaceGap {
                player: 0,
                cell: "b3".into(),
                found: None,
            },
            Violation::FaceGap {
                player: 0,
                cell: "c3".into(),
                found: None,
            },
            Violation::FaceGap {
                player: 0,
                cell: "d3".into(),
                found: None,
            },
            Violation::FaceGap {
                player: 0,
                cell: "f3".into(),
                found: None,
            },
            Violation::FaceGap {
                player: 0,
                cell: "g3".into(),
                found: None,
            },
            Violation::FaceGap {
                player: 0,
                cell: "h3".into(),
                found: None,
            },
            Violation::FaceGap {
                player: 1,
                cell: "d8".into(),
                found: None,
            },
            Violation::NoPawnInFront {
                player: 0,
                piece: 'K',
                cell: "e1".into(),
                step: vec![1, 0],
                next: "e2".into(),
                found: None,
            },
            Violation::NoPawnInFront {
                player: 0,
                piece: 'K',
                cell: "e3".into(),
                step: vec![-1, 0],
                next: "e2".into(),
                found: None,
            },
            Violation::NoPawnInFront {
                player: 1,
                piece: 'R',
                cell: "a8".into(),
                step: vec![-1, 0],
                next: "a7".into(),
                found: None,
            },
            Violation::NoPieceBehind {
                player: 1,
                cell: "d7".into(),
                step: vec![-1, 0],
                behind: "d8".into(),
                found: None,
            },
            Violation::Threat {
                attacker: black('R'),
                from: "a8".into(),
                victim: white('P'),
                to: "a2".into(),
            },
        ];
        assert_eq!(r.violations, expected, "{r}");
    }
}
