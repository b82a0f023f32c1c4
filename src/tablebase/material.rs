//! Material signatures: which pieces a table holds, as `KQvK` (the first
//! seat's letters, `v`, the second seat's), and the signatures a capture
//! or a promotion leads to.

use crate::board::piece::{Piece, piece, piece_kind, piece_seat};
use crate::board::seating::Seat;
use crate::board::variant::Variant;

use super::TablebaseError;

/// Most pieces a table may hold (kings included).
pub const MAX_PIECES: usize = 6;

/// A material signature: the pieces of each seat, kings first, then by
/// kind index from the highest down (KQRBNP in chess, so the names read
/// as usual: KBNvK), identical pieces next to each other.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Material {
    /// The pieces in table order: the first seat's, then the second's.
    pub pieces: Vec<Piece>,
}

impl Material {
    /// Reads `KQvK` (letters of the variant's kinds, either case; each side
    /// needs exactly one royal piece).
    pub fn parse(v: &Variant, text: &str) -> Result<Material, TablebaseError> {
        let bad = |why: String| TablebaseError::Material(format!("'{text}': {why}"));
        let royal = v
            .royal_kind
            .ok_or_else(|| bad("the variant has no royal piece".into()))?;
        let (a, b) = text
            .trim()
            .split_once(['v', 'V'])
            .ok_or_else(|| bad("expected the two sides split by 'v', as in KQvK".into()))?;
        let mut pieces = Vec::new();
        for (i, side) in [a, b].into_iter().enumerate() {
            let seat = Seat::new(i);
            let mut kinds = Vec::new();
            for c in side.trim().chars() {
                let k = v.kind_by_letter(c).ok_or_else(|| {
                    bad(format!(
                        "'{c}' is no piece of {} (pieces: {})",
                        v.spec,
                        v.kinds.iter().map(|k| k.letter).collect::<String>()
                    ))
                })?;
                kinds.push(k);
            }
            let kings = kinds.iter().filter(|&&k| k == royal).count();
            if kings != 1 {
                return Err(bad(format!(
                    "each side needs exactly one {}, side {} has {kings}",
                    v.kinds[royal].letter,
                    i + 1
                )));
            }
            kinds.sort_by_key(|&k| (k != royal, std::cmp::Reverse(k)));
            pieces.extend(kinds.into_iter().map(|k| piece(seat, k)));
        }
        if pieces.len() > MAX_PIECES {
            return Err(bad(format!("at most {MAX_PIECES} pieces")));
        }
        Ok(Material { pieces })
    }

    /// The signature of a list of pieces (any order).
    pub fn of_pieces(v: &Variant, pieces: impl IntoIterator<Item = Piece>) -> Material {
        let royal = v.royal_kind;
        let mut pieces: Vec<Piece> = pieces.into_iter().collect();
        pieces.sort_by_key(|&p| {
            (
                piece_seat(p),
                Some(piece_kind(p)) != royal,
                std::cmp::Reverse(piece_kind(p)),
            )
        });
        Material { pieces }
    }

    /// The name, as `KRBvK`.
    pub fn name(&self, v: &Variant) -> String {
        let side = |s: usize| -> String {
            self.pieces
                .iter()
                .filter(|&&p| piece_seat(p).index() == s)
                .map(|&p| v.kinds[piece_kind(p)].letter)
                .collect()
        };
        format!("{}v{}", side(0), side(1))
    }

    /// Whether a pawn is among the pieces.
    pub fn has_pawns(&self, v: &Variant) -> bool {
        self.pieces.iter().any(|&p| v.is_pawn(piece_kind(p)))
    }

    /// Whether only the two kings are left (a dead position: a draw).
    pub fn only_kings(&self) -> bool {
        self.pieces.len() == 2
    }

    /// The same material with the seats swapped.
    pub fn swapped(&self, v: &Variant) -> Material {
        Material::of_pieces(
            v,
            self.pieces
                .iter()
                .map(|&p| piece(Seat::new(1 - piece_seat(p).index()), piece_kind(p))),
        )
    }

    /// The orientation tables are built and stored in: for pawnless
    /// material the side with more pieces (equal in number: the higher
    /// kinds, as KQvKR) is the first seat — the other orientation is the same table
    /// with the colours swapped. With pawns the colours are kept (pawns
    /// have a direction).
    pub fn normalized(&self, v: &Variant) -> Material {
        if self.has_pawns(v) {
            return self.clone();
        }
        let key = |m: &Material, s: usize| -> (usize, Vec<usize>) {
            let kinds: Vec<usize> = m
                .pieces
                .iter()
                .filter(|&&p| piece_seat(p).index() == s)
                .map(|&p| piece_kind(p))
                .collect();
            (kinds.len(), kinds)
        };
        if key(self, 1) > key(self, 0) {
            self.swapped(v)
        } else {
            self.clone()
        }
    }

    /// The signatures one capture or promotion leads to (normalized, each
    /// once, bare kings left out).
    pub fn successors(&self, v: &Variant) -> Vec<Material> {
        let mut out: Vec<Material> = Vec::new();
        let mut add = |m: Material| {
            let m = m.normalized(v);
            if !m.only_kings() && !out.contains(&m) {
                out.push(m);
            }
        };
        for i in 0..self.pieces.len() {
            let p = self.pieces[i];
            if Some(piece_kind(p)) == v.royal_kind {
                continue;
            }
            // Captured.
            let rest = self
                .pieces
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &q)| q);
            add(Material::of_pieces(v, rest));
            // Promoted (possibly capturing one enemy piece at once).
            if v.is_pawn(piece_kind(p)) {
                for &k in &v.promotion_kinds {
                    let promoted = piece(piece_seat(p), k);
                    let base: Vec<Piece> = self
                        .pieces
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != i)
                        .map(|(_, &q)| q)
                        .chain([promoted])
                        .collect();
                    add(Material::of_pieces(v, base.iter().copied()));
                    for (j, &q) in base.iter().enumerate() {
                        if piece_seat(q) != piece_seat(p) && Some(piece_kind(q)) != v.royal_kind {
                            let rest = base
                                .iter()
                                .enumerate()
                                .filter(|&(x, _)| x != j)
                                .map(|(_, &r)| r);
                            add(Material::of_pieces(v, rest));
                        }
                    }
                }
            }
        }
        out
    }
}

/// Every material of `v` with `2 + others` pieces or fewer (kings plus up
/// to `others` more, on either side), normalized, each once, smallest
/// first: what `tablebase generate --pieces N` builds.
pub fn all_up_to(v: &Variant, pieces: usize) -> Vec<Material> {
    let Some(royal) = v.royal_kind else {
        return Vec::new();
    };
    let kinds: Vec<usize> = (0..v.kinds.len()).filter(|&k| k != royal).collect();
    let mut out: Vec<Material> = Vec::new();
    // Multisets of (seat, kind) of size 1..=pieces-2.
    let atoms: Vec<(usize, usize)> = [0usize, 1]
        .iter()
        .flat_map(|&s| kinds.iter().map(move |&k| (s, k)))
        .collect();
    fn extend(
        atoms: &[(usize, usize)],
        from: usize,
        left: usize,
        cur: &mut Vec<(usize, usize)>,
        found: &mut Vec<Vec<(usize, usize)>>,
    ) {
        if !cur.is_empty() {
            found.push(cur.clone());
        }
        if left == 0 {
            return;
        }
        for i in from..atoms.len() {
            cur.push(atoms[i]);
            extend(atoms, i, left - 1, cur, found);
            cur.pop();
        }
    }
    let mut found = Vec::new();
    extend(
        &atoms,
        0,
        pieces.saturating_sub(2),
        &mut Vec::new(),
        &mut found,
    );
    for set in found {
        let m = Material::of_pieces(
            v,
            [piece(Seat::new(0), royal), piece(Seat::new(1), royal)]
                .into_iter()
                .chain(set.iter().map(|&(s, k)| piece(Seat::new(s), k))),
        )
        .normalized(v);
        if !out.contains(&m) {
            out.push(m);
        }
    }
    out.sort_by_key(|m| m.pieces.len());
    out
}
