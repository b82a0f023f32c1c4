//! Variants as values: a board, a piece set described by movement atoms,
//! the seats and their relations, the start position and the rule
//! switches.
//!
//! A [`VariantDef`] says what a variant is; [`Variant::new`] checks it and
//! derives, once, every table the rules need (leap targets, pawn steps,
//! promotion zones, castling conditions, Zobrist keys). The families of
//! [`super::registry`] build their definitions from spec strings; anything
//! else (a test's toy variant, a variant file) can build one directly.
//! Nothing downstream knows which variant it plays.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::bitboard::Bitboard;
use super::castling::{Castling, CastlingStyle, MAX_CASTLING_RIGHTS, castling_candidates};
use super::geometry::{Cell, CellTable, Geometry, GeometryError, RayTable};
use super::piece::{EMPTY, MAX_KINDS, NO_CELL, Piece, PieceKind, piece, piece_kind, piece_seat};
use super::seating::{BySeat, Seat, SeatSet, Seating, SeatingError};
use super::zobrist::Zobrist;

/// What a stalemate means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StalemateRule {
    /// A draw (T5.2).
    Draw,
    /// The stalemated side loses, scored ¾–¼ (Schach hoch 3).
    StalematedLoses,
}

/// Rule switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Castling kind.
    pub castling: CastlingStyle,
    /// Whether en passant exists.
    pub en_passant: bool,
    /// Whether the 50-move rule applies.
    pub fifty_move: bool,
    /// Stalemate result.
    pub stalemate: StalemateRule,
    /// Whether FIDE's insufficient-material draws apply (king and one
    /// minor piece, or bishops all on one square colour, cannot mate):
    /// proved for the classical 8x8 board only, so every other board
    /// declares a dead position only when nothing but kings is left.
    pub insufficient_material: bool,
    /// Synchronous chess's rule (d): after a simultaneous turn, captures
    /// on the cells the enemy entered that one attacked before the turn
    /// (seed 004); off, a joint decision is resolved and the turn ends.
    pub exchange_phase: bool,
    /// The multi-party conventions (more than two players on the diamond,
    /// RULES §2.6); `None` for the games of two players.
    pub party: Option<super::party::PartyRules>,
}

/// Precomputed pawn steps for one (seat, pawn kind).
#[derive(Clone, Debug, Default)]
pub struct PawnTable {
    /// Per cell: pairs `(single, double)`; `double` is [`NO_CELL`] when no
    /// double step exists from that cell along that push.
    pub pushes: CellTable,
    /// Per cell: capture targets.
    pub captures: CellTable,
    /// Per cell: the cells from which such a pawn captures onto this cell.
    pub attackers: CellTable,
}

/// Errors from variant specs and definitions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantError {
    /// Unknown variant name; `known` lists the names there are.
    UnknownVariant {
        /// The name asked for.
        name: String,
        /// The names known.
        known: Vec<String>,
    },
    /// A key the variant does not have.
    UnknownKey {
        /// The variant.
        variant: String,
        /// The key.
        key: String,
    },
    /// A value that is not allowed.
    BadValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
        /// What the key takes.
        expected: String,
    },
    /// A malformed `key=value` item.
    Syntax(String),
    /// The board cannot be built.
    Geometry(GeometryError),
    /// The seats cannot be built.
    Seating(SeatingError),
    /// A definition that contradicts itself (a start cell off the board,
    /// too many kinds, two royal kinds, …).
    Definition(String),
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VariantError::UnknownVariant { name, known } => {
                write!(f, "unknown variant '{name}' (known: {})", known.join(", "))
            }
            VariantError::UnknownKey { variant, key } => {
                write!(f, "variant '{variant}' has no parameter '{key}'")
            }
            VariantError::BadValue {
                key,
                value,
                expected,
            } => write!(f, "bad value '{value}' for '{key}': expected {expected}"),
            VariantError::Syntax(s) => write!(f, "malformed parameter '{s}': expected key=value"),
            VariantError::Geometry(e) => write!(f, "board: {e}"),
            VariantError::Seating(e) => write!(f, "seats: {e}"),
            VariantError::Definition(s) => write!(f, "definition: {s}"),
        }
    }
}

impl std::error::Error for VariantError {}

impl From<GeometryError> for VariantError {
    fn from(e: GeometryError) -> Self {
        VariantError::Geometry(e)
    }
}

impl From<SeatingError> for VariantError {
    fn from(e: SeatingError) -> Self {
        VariantError::Seating(e)
    }
}

/// What a variant is, before any table is derived.
#[derive(Clone, Debug)]
pub struct VariantDef {
    /// Variant name (`chess`, `diamond`, …).
    pub name: String,
    /// Canonical spec string with every parameter.
    pub spec: String,
    /// The board.
    pub geometry: Geometry,
    /// Piece kinds, indexed by kind.
    pub kinds: Vec<PieceKind>,
    /// The seats.
    pub seating: Seating,
    /// Rule switches.
    pub rules: Rules,
    /// The start position's pieces.
    pub start: Vec<(Cell, Piece)>,
    /// Rooks that may castle in the start position.
    pub start_castling: Vec<Cell>,
    /// Chess960 start number, where the variant has one.
    pub chess960_number: Option<u32>,
    /// Whether castling is written in the Chess960 conventions
    /// (king-takes-rook moves, Shredder-FEN rights).
    pub fischer_random_notation: bool,
    /// Explicit promotion cells per seat; `None` derives them by T4.8 (the
    /// cells that held an enemy piece other than a pawn at the start).
    pub promotion_zone: Option<BySeat<Vec<Cell>>>,
}

/// A variant, with every table derived from it.
pub struct Variant {
    /// Variant name (`chess`, `diamond`, …).
    pub name: String,
    /// Canonical spec string with every parameter.
    pub spec: String,
    /// The board.
    pub geometry: Geometry,
    /// Piece kinds, indexed by kind.
    pub kinds: Vec<PieceKind>,
    /// The seats, their relations and the turn order.
    pub seating: Seating,
    /// Rule switches.
    pub rules: Rules,
    /// The start position's pieces.
    pub start: Vec<(Cell, Piece)>,
    /// Rooks that may castle in the start position.
    pub start_castling: Vec<Cell>,
    /// Chess960 start number, where the variant has one.
    pub chess960_number: Option<u32>,
    /// Whether castling is written in the Chess960 conventions.
    pub fischer_random_notation: bool,
    /// A number no other variant built by this process has: the key of
    /// tables that other layers derive from the variant.
    pub uid: u64,
    /// Leap tables (targets per cell), one per distinct leap set.
    pub leaps: Vec<CellTable>,
    /// Per kind: the index of its leap table in [`Variant::leaps`].
    pub kind_leap: Vec<Option<usize>>,
    /// Per leap table: the cells from which its leap reaches each cell,
    /// where that differs from the table itself (a leap set not closed
    /// under reversal); see [`Variant::leap_sources`].
    reverse_leaps: Vec<Option<CellTable>>,
    /// Pawn tables, `[seat][kind]` (empty tables for non-pawns).
    pub pawn_tables: BySeat<Vec<PawnTable>>,
    /// Per seat: cells on which its pawns promote.
    pub promotion_zone: BySeat<Bitboard>,
    /// Kinds a pawn may promote to.
    pub promotion_kinds: Vec<usize>,
    /// Per leap table: bit mask of the kinds using it.
    pub kinds_by_leap: Vec<u16>,
    /// Bit mask of pawn kinds.
    pub pawn_kinds: u16,
    /// Index of the royal kind, if any.
    pub royal_kind: Option<usize>,
    /// Zobrist keys.
    pub zobrist: Zobrist,
    /// Castlings per (king cell, rook cell), indexed `king * cells + rook`
    /// (empty when the variant has no castling).
    castling_table: Vec<Vec<Castling>>,
    /// Per seat: whether it may capture each piece code.
    capturable: Vec<[bool; 256]>,
    /// Whether a captured king's army leaves the board with it
    /// (multi-party games with `dead=remove`). Kings are then left out of
    /// [`Variant::capturable`]: whether capturing one is legal depends on
    /// the armies that leave, so the move generator finds those captures
    /// by playing them (`movegen::legal`).
    pub kings_leave_with_army: bool,
    /// Per seat: whether each piece code's attacks on its king are check.
    checking: Vec<[bool; 256]>,
    /// Per seat: the pawns whose attacks on its king are check, as (owner,
    /// kind, piece code).
    pub checking_pawns: BySeat<Vec<(Seat, usize, Piece)>>,
    /// Per slider direction `d`: the kinds that attack a cell from the far
    /// end of the ray along `d` (those sliding along the opposite direction).
    pub slider_rays: Vec<(usize, u16)>,
    /// Per cell, the non-empty rays of [`Variant::slider_rays`] (tag: the
    /// kinds attacking from the far end): the attack test's and the king
    /// scan's rays.
    pub attack_rays: RayTable,
    /// Per kind, per cell: its non-empty slide rays.
    pub slide_rays: Vec<RayTable>,
}

impl fmt::Debug for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Variant").field("spec", &self.spec).finish()
    }
}

fn definition(message: impl Into<String>) -> VariantError {
    VariantError::Definition(message.into())
}

impl Variant {
    /// Builds a variant from a spec `name[:key=value,…]` (the families of
    /// [`super::registry`]).
    pub fn from_spec(spec: &str) -> Result<Arc<Variant>, VariantError> {
        super::registry::build(spec)
    }

    /// Checks a definition and derives every table from it.
    pub fn new(def: VariantDef) -> Result<Arc<Variant>, VariantError> {
        Self::check(&def)?;
        Ok(Arc::new(Self::derive(def)))
    }

    /// The definition's consistency: everything [`Variant::derive`] and the
    /// rules rely on.
    fn check(def: &VariantDef) -> Result<(), VariantError> {
        let g = &def.geometry;
        let cells = g.cell_count();
        let n = g.dims();
        let seats = def.seating.len();
        if def.kinds.is_empty() || def.kinds.len() > MAX_KINDS {
            return Err(definition(format!(
                "{} piece kinds: a variant has 1 to {MAX_KINDS}",
                def.kinds.len()
            )));
        }
        if def.kinds.iter().filter(|k| k.royal).count() > 1 {
            return Err(definition("more than one royal kind"));
        }
        for (i, k) in def.kinds.iter().enumerate() {
            if !k.letter.is_ascii_uppercase() {
                return Err(definition(format!(
                    "kind '{}' needs an upper-case ASCII letter",
                    k.name
                )));
            }
            if def.kinds[..i].iter().any(|o| o.letter == k.letter) {
                return Err(definition(format!("two kinds use the letter {}", k.letter)));
            }
            if k.slides.iter().any(|&d| d >= g.directions().len()) {
                return Err(definition(format!("kind {}: no such direction", k.letter)));
            }
            let bad_vector = |v: &Vec<i32>| v.len() != n || v.iter().all(|&x| x == 0);
            if k.leaps.iter().any(bad_vector) {
                return Err(definition(format!(
                    "kind {}: a leap needs {n} coordinates, not all 0",
                    k.letter
                )));
            }
            if let Some(p) = &k.pawn
                && (p.pushes.iter().chain(&p.captures).any(bad_vector))
            {
                return Err(definition(format!(
                    "kind {}: a pawn step needs {n} coordinates, not all 0",
                    k.letter
                )));
            }
        }
        for s in def.seating.seats() {
            let frame = &def.seating.info(s).frame;
            let mut axes: Vec<usize> = frame.iter().map(|&(a, _)| a).collect();
            axes.sort_unstable();
            if axes != (0..n).collect::<Vec<_>>() || frame.iter().any(|&(_, sg)| sg.abs() != 1) {
                return Err(definition(format!(
                    "seat {}: its frame must map every axis once, with sign ±1",
                    def.seating.name(s)
                )));
            }
        }
        let mut seen = vec![false; cells];
        for &(c, p) in &def.start {
            if c >= cells {
                return Err(definition(format!("start cell {c} is off the board")));
            }
            if std::mem::replace(&mut seen[c], true) {
                return Err(definition(format!(
                    "two start pieces on {}",
                    g.cell_name(c)
                )));
            }
            if p == EMPTY || piece_seat_index(p) >= seats || piece_kind(p) >= def.kinds.len() {
                return Err(definition(format!(
                    "the start piece on {} has no seat or kind",
                    g.cell_name(c)
                )));
            }
        }
        if def.start_castling.len() > MAX_CASTLING_RIGHTS {
            return Err(definition(format!(
                "more than {MAX_CASTLING_RIGHTS} castling rights at the start"
            )));
        }
        for &c in &def.start_castling {
            let ok = def
                .start
                .iter()
                .any(|&(sc, p)| sc == c && def.kinds[piece_kind(p)].castles);
            if !ok {
                return Err(definition(format!(
                    "castling right on {}, which holds no castling piece",
                    g.cell_name(c.min(cells.saturating_sub(1)))
                )));
            }
        }
        if let Some(zone) = &def.promotion_zone
            && (zone.len() != seats || zone.values().iter().flatten().any(|&c| c >= cells))
        {
            return Err(definition(
                "promotion cells: one list per seat, cells on the board",
            ));
        }
        Ok(())
    }

    /// Derives every table from a definition.
    fn derive(def: VariantDef) -> Variant {
        static NEXT_UID: AtomicU64 = AtomicU64::new(1);
        let g = &def.geometry;
        let cells = g.cell_count();
        let seating = &def.seating;
        let seats = seating.len();
        // One leap table per distinct leap set, in order of first use.
        let mut leap_sets: Vec<&Vec<Vec<i32>>> = Vec::new();
        let kind_leap: Vec<Option<usize>> = def
            .kinds
            .iter()
            .map(|k| {
                if k.leaps.is_empty() {
                    return None;
                }
                Some(match leap_sets.iter().position(|s| **s == k.leaps) {
                    Some(i) => i,
                    None => {
                        leap_sets.push(&k.leaps);
                        leap_sets.len() - 1
                    }
                })
            })
            .collect();
        let leaps: Vec<CellTable> = leap_sets.iter().map(|o| g.leap_table(o)).collect();
        let reverse_leaps = leaps
            .iter()
            .map(|table| {
                // Read from the table, not the offsets: on boards whose
                // steps are walks (the double diamond) or carry, a set of
                // offsets closed under reversal says nothing by itself.
                // (`leap_table` keeps each cell's targets sorted.)
                let symmetric = (0..cells).all(|from| {
                    table
                        .get(from)
                        .iter()
                        .all(|&to| table.get(to as usize).binary_search(&(from as u16)).is_ok())
                });
                (!symmetric).then(|| {
                    let mut sources = vec![Vec::new(); cells];
                    for from in 0..cells {
                        for &to in table.get(from) {
                            sources[to as usize].push(from);
                        }
                    }
                    CellTable::from_lists(sources)
                })
            })
            .collect();
        let promotion_zone: BySeat<Bitboard> = match &def.promotion_zone {
            Some(z) => z.map(|_, cs| Bitboard::from_cells(cells, cs.iter().copied())),
            None => BySeat::from_fn(seats, |s| {
                Bitboard::from_cells(
                    cells,
                    def.start
                        .iter()
                        .filter(|(_, pc)| {
                            !seating.same_side(piece_seat(*pc), s)
                                && def.kinds[piece_kind(*pc)].pawn.is_none()
                        })
                        .map(|(c, _)| *c),
                )
            }),
        };
        let pawn_tables = BySeat::from_fn(seats, |seat| {
            let info = seating.info(seat);
            def.kinds
                .iter()
                .enumerate()
                .map(|(ki, k)| {
                    let Some(rule) = &k.pawn else {
                        return PawnTable::default();
                    };
                    let start_cells: Vec<Cell> = def
                        .start
                        .iter()
                        .filter(|(_, pc)| *pc == piece(seat, ki))
                        .map(|(c, _)| *c)
                        .collect();
                    let pushes: Vec<Vec<i32>> =
                        rule.pushes.iter().map(|v| info.orient(v)).collect();
                    let captures: Vec<Vec<i32>> =
                        rule.captures.iter().map(|v| info.orient(v)).collect();
                    // `steps`, not `step`: on the double diamond a face
                    // cell's step inwards has one end in each copy.
                    // A pawn never turns at a face of its push axes (on the
                    // double diamond that would take it back).
                    let keep = pushes
                        .iter()
                        .flat_map(|v| v.iter().enumerate())
                        .filter(|&(_, &x)| x != 0)
                        .fold(0u32, |m, (axis, _)| m | 1 << axis);
                    let push_lists = (0..cells).map(|c| {
                        let mut list = Vec::new();
                        for v in &pushes {
                            for one in g.steps_keeping(c, v, keep) {
                                let two = if rule.double_step && start_cells.contains(&c) {
                                    g.steps_keeping(one, v, keep).into_iter().find(|&t| t != c)
                                } else {
                                    None
                                };
                                list.push(one);
                                list.push(two.unwrap_or(NO_CELL as usize));
                            }
                        }
                        list
                    });
                    let capture_lists: Vec<Vec<Cell>> = (0..cells)
                        .map(|c| {
                            let mut t: Vec<Cell> = captures
                                .iter()
                                .flat_map(|v| g.steps_keeping(c, v, keep))
                                .filter(|&t| t != c)
                                .collect();
                            t.sort_unstable();
                            t.dedup();
                            t
                        })
                        .collect();
                    let mut attackers = vec![Vec::new(); cells];
                    for (from, list) in capture_lists.iter().enumerate() {
                        for &to in list {
                            attackers[to].push(from);
                        }
                    }
                    PawnTable {
                        pushes: CellTable::from_lists(push_lists),
                        captures: CellTable::from_lists(capture_lists),
                        attackers: CellTable::from_lists(attackers),
                    }
                })
                .collect()
        });
        // Per direction: the kinds sliding along it.
        let mut sliders_by_direction = vec![0u16; g.directions().len()];
        for (ki, k) in def.kinds.iter().enumerate() {
            for &d in &k.slides {
                sliders_by_direction[d] |= 1 << ki;
            }
        }
        let mut kinds_by_leap = vec![0u16; leaps.len()];
        for (ki, l) in kind_leap.iter().enumerate() {
            if let Some(l) = l {
                kinds_by_leap[*l] |= 1 << ki;
            }
        }
        let pawn_kinds = def
            .kinds
            .iter()
            .enumerate()
            .filter(|(_, k)| k.pawn.is_some())
            .fold(0u16, |m, (i, _)| m | 1 << i);
        let promotion_kinds = def
            .kinds
            .iter()
            .enumerate()
            .filter(|(_, k)| !k.royal && k.pawn.is_none())
            .map(|(i, _)| i)
            .collect();
        let royal_kind = def.kinds.iter().position(|k| k.royal);
        let zobrist = Zobrist::new(cells, seats);
        let checking_pawns = BySeat::from_fn(seats, |us| {
            let mut list = Vec::new();
            for q in seating.checkers_of(us).iter() {
                for (k, kd) in def.kinds.iter().enumerate() {
                    if kd.pawn.is_some() {
                        list.push((q, k, piece(q, k)));
                    }
                }
            }
            list
        });
        let slider_rays: Vec<(usize, u16)> = (0..g.directions().len())
            .filter_map(|d| {
                let mask = sliders_by_direction[g.opposite(d)];
                (mask != 0).then_some((d, mask))
            })
            .collect();
        let attack_rays = g.ray_table(&slider_rays, true);
        let slide_rays = def
            .kinds
            .iter()
            .map(|k| {
                let dirs: Vec<(usize, u16)> = k.slides.iter().map(|&d| (d, 0)).collect();
                g.ray_table(&dirs, false)
            })
            .collect();
        let castling_table = if def.rules.castling == CastlingStyle::None || g.dims() != 2 {
            Vec::new()
        } else {
            (0..cells * cells)
                .map(|i| castling_candidates(g, def.rules.castling, i / cells, i % cells))
                .collect()
        };
        let code_table = |related: &dyn Fn(Seat) -> SeatSet| -> Vec<[bool; 256]> {
            seating
                .seats()
                .map(|us| {
                    let set = related(us);
                    let mut h = [false; 256];
                    for (code, slot) in h.iter_mut().enumerate().skip(1) {
                        let owner = piece_seat_index(code as Piece);
                        *slot = owner < seats && set.contains(Seat::new(owner));
                    }
                    h
                })
                .collect()
        };
        let mut capturable = code_table(&|us| seating.capturable_by(us));
        let kings_leave_with_army = def
            .rules
            .party
            .is_some_and(|p| p.dead == super::party::DeadPieces::Remove);
        if kings_leave_with_army && let Some(royal) = royal_kind {
            for table in capturable.iter_mut() {
                for seat in seating.seats() {
                    table[piece(seat, royal) as usize] = false;
                }
            }
        }
        let checking = code_table(&|us| seating.checkers_of(us));
        Variant {
            uid: NEXT_UID.fetch_add(1, Ordering::Relaxed),
            leaps,
            reverse_leaps,
            kind_leap,
            pawn_tables,
            promotion_zone,
            promotion_kinds,
            kinds_by_leap,
            pawn_kinds,
            royal_kind,
            zobrist,
            castling_table,
            capturable,
            kings_leave_with_army,
            checking,
            checking_pawns,
            slider_rays,
            attack_rays,
            slide_rays,
            name: def.name,
            spec: def.spec,
            kinds: def.kinds,
            seating: def.seating,
            rules: def.rules,
            start: def.start,
            start_castling: def.start_castling,
            chess960_number: def.chess960_number,
            fischer_random_notation: def.fischer_random_notation,
            geometry: def.geometry,
        }
    }

    /// Whether the variant has castling at all.
    #[inline]
    pub fn has_castling(&self) -> bool {
        !self.castling_table.is_empty()
    }

    /// The castlings of the rook on `rook` with the king on `king`.
    #[inline]
    pub fn castlings(&self, king: Cell, rook: Cell) -> &[Castling] {
        let cells = self.geometry.cell_count();
        self.castling_table
            .get(king * cells + rook)
            .map_or(&[], |v| v.as_slice())
    }

    /// Whether `us` may capture piece `p` ([`EMPTY`] is never capturable).
    #[inline(always)]
    pub fn capturable(&self, us: Seat, p: Piece) -> bool {
        self.capturable[us.index()][p as usize]
    }

    /// [`Variant::capturable`] for `us`, by piece code (one lookup for a
    /// whole generation).
    #[inline(always)]
    pub fn capturable_row(&self, us: Seat) -> &[bool; 256] {
        &self.capturable[us.index()]
    }

    /// Whether piece `p`'s attacks on `king_owner`'s king are check
    /// ([`EMPTY`] never checks).
    #[inline(always)]
    pub fn checks(&self, king_owner: Seat, p: Piece) -> bool {
        self.checking[king_owner.index()][p as usize]
    }

    /// [`Variant::checks`] for `king_owner`, by piece code (one lookup for
    /// a whole test).
    #[inline(always)]
    pub fn checks_row(&self, king_owner: Seat) -> &[bool; 256] {
        &self.checking[king_owner.index()]
    }

    /// Number of seats.
    #[inline(always)]
    pub fn seat_count(&self) -> usize {
        self.seating.len()
    }

    /// The leap table of `kind`, if it leaps.
    #[inline(always)]
    pub fn leap_table(&self, kind: usize) -> Option<&CellTable> {
        self.kind_leap[kind].map(|l| &self.leaps[l])
    }

    /// Per cell, the cells from which the leap of table `li` reaches it.
    #[inline(always)]
    pub fn leap_sources(&self, li: usize) -> &CellTable {
        self.reverse_leaps[li].as_ref().unwrap_or(&self.leaps[li])
    }

    /// The kind with upper-case letter `letter`.
    pub fn kind_by_letter(&self, letter: char) -> Option<usize> {
        let up = letter.to_ascii_uppercase();
        self.kinds.iter().position(|k| k.letter == up)
    }

    /// Whether `kind` is a pawn.
    #[inline(always)]
    pub fn is_pawn(&self, kind: usize) -> bool {
        self.pawn_kinds >> kind & 1 != 0
    }

    /// The letter of a piece as written in position texts of two-seat
    /// variants: upper case for the first seat, lower case for the second
    /// (more seats use the bracketed form of docs/notation.md).
    pub fn piece_letter(&self, p: Piece) -> char {
        let c = self.kinds[piece_kind(p)].letter;
        if piece_seat(p) == Seat::new(1) {
            c.to_ascii_lowercase()
        } else {
            c
        }
    }
}

/// The owner's index of a piece code, without building a [`Seat`] (a code
/// read from outside may name a seat the variant does not have).
#[inline(always)]
fn piece_seat_index(p: Piece) -> usize {
    (p as usize - 1) / MAX_KINDS
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::geometry::{Naming, Shape};
    use crate::board::piece::{slide_dirs, step_offsets};

    fn toy(kinds: Vec<PieceKind>, start: Vec<(Cell, Piece)>) -> Result<Arc<Variant>, VariantError> {
        let geometry = Geometry::new(vec![4, 4], vec![false; 2], Shape::Box, Naming::TwoD)?;
        Variant::new(VariantDef {
            name: "toy".into(),
            spec: "toy".into(),
            seating: Seating::two_players(2, &[0]),
            geometry,
            kinds,
            rules: Rules {
                castling: CastlingStyle::None,
                en_passant: false,
                fifty_move: true,
                stalemate: StalemateRule::Draw,
                insufficient_material: false,
                exchange_phase: false,
                party: None,
            },
            start,
            start_castling: Vec::new(),
            chess960_number: None,
            fischer_random_notation: false,
            promotion_zone: None,
        })
    }

    #[test]
    fn definitions_are_checked() {
        let g = Geometry::new(vec![4, 4], vec![false; 2], Shape::Box, Naming::TwoD).unwrap();
        let mut king = PieceKind::new("king", 'K');
        king.royal = true;
        king.leaps = step_offsets(&g, 1, 2);
        let mut rook = PieceKind::new("rook", 'R');
        rook.slides = slide_dirs(&g, 1);
        let (w, b) = (Seat::new(0), Seat::new(1));
        let start = vec![(0, piece(w, 0)), (15, piece(b, 0)), (3, piece(w, 1))];
        let v = toy(vec![king.clone(), rook.clone()], start.clone()).unwrap();
        assert_eq!(v.seat_count(), 2);
        assert!(v.capturable(w, piece(b, 1)) && !v.capturable(w, piece(w, 1)));
        assert!(v.checks(w, piece(b, 1)) && !v.checks(b, piece(b, 1)));
        assert!(v.leap_table(0).is_some() && v.leap_table(1).is_none());
        let two_kings = vec![king.clone(), king.clone()];
        assert!(toy(two_kings, start.clone()).is_err());
        let mut off = start.clone();
        off.push((16, piece(w, 1)));
        assert!(matches!(
            toy(vec![king.clone(), rook.clone()], off),
            Err(VariantError::Definition(_))
        ));
        let mut twice = start.clone();
        twice.push((3, piece(b, 1)));
        assert!(toy(vec![king.clone(), rook.clone()], twice).is_err());
        let mut bad = rook.clone();
        bad.leaps = vec![vec![1]];
        assert!(toy(vec![king, bad], start).is_err());
    }
}
