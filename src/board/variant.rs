//! Variants as values: a board, a piece set described by movement atoms, the
//! players and their orientation, the start position and the rule switches.
//!
//! Everything the move generator needs is derived here once, when a variant
//! is built from its spec string (`name[:key=value,…]`, see
//! [`Variant::from_spec`]); nothing downstream knows which variant it plays.

use std::fmt;
use std::sync::Arc;

use crate::board::bitboard::Bitboard;
use crate::board::geometry::{Cell, CellTable, Geometry, GeometryError, Naming, Shape};

/// Largest number of players a variant may have.
pub const MAX_PLAYERS: usize = 15;
/// Largest number of piece kinds a variant may have.
pub const MAX_KINDS: usize = 16;

/// A piece on a cell: 0 is empty, otherwise `1 + player * 16 + kind`.
pub type Piece = u8;
/// The empty cell.
pub const EMPTY: Piece = 0;

/// Encodes a piece.
#[inline(always)]
pub const fn piece(player: usize, kind: usize) -> Piece {
    (1 + player * MAX_KINDS + kind) as Piece
}

/// Owner of a (non-empty) piece.
#[inline(always)]
pub const fn piece_player(p: Piece) -> usize {
    (p as usize - 1) / MAX_KINDS
}

/// Kind of a (non-empty) piece.
#[inline(always)]
pub const fn piece_kind(p: Piece) -> usize {
    (p as usize - 1) % MAX_KINDS
}

/// Pawn movement in the owner's frame: axis 0 is the owner's forward axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PawnRule {
    /// Non-capturing steps (each may be doubled from a start cell).
    pub pushes: Vec<Vec<i32>>,
    /// Capturing steps.
    pub captures: Vec<Vec<i32>>,
    /// Whether a pawn on its start cell may make two pushes at once.
    pub double_step: bool,
}

/// A piece kind, described by its movement atoms (RULES §1).
#[derive(Clone, Debug)]
pub struct PieceKind {
    /// English name.
    pub name: String,
    /// Upper-case letter used in position texts and promotions.
    pub letter: char,
    /// A royal piece may not be left attacked (the king).
    pub royal: bool,
    /// Directions (indices into the geometry's directions) it slides along.
    pub slides: Vec<usize>,
    /// Index of its leap table in [`Variant::leaps`], if it leaps or steps.
    pub leaps: Option<usize>,
    /// Its pawn rule, if it is a pawn.
    pub pawn: Option<PawnRule>,
}

/// How castling works in a variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CastlingStyle {
    /// No castling.
    None,
    /// FIDE Chess960 rules (classical chess included): the king ends on the
    /// c or g file, the rook on d or f.
    Chess960,
    /// T4.6: the rook moves along the file axis, either way round where the
    /// files wrap, to the cell next to the king; the king jumps over it.
    Theory,
}

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
}

/// A player: name, orientation and team.
#[derive(Clone, Debug)]
pub struct Player {
    /// Display name ("white", "black", …).
    pub name: String,
    /// The player's frame: canonical axis `i` maps to board axis
    /// `frame[i].0` with sign `frame[i].1`.
    pub frame: Vec<(usize, i32)>,
    /// Players of one team never attack each other.
    pub team: usize,
}

impl Player {
    /// Maps a vector from the player's frame to the board.
    pub fn orient(&self, v: &[i32]) -> Vec<i32> {
        let mut w = vec![0; v.len()];
        for (i, &(axis, sign)) in self.frame.iter().enumerate() {
            w[axis] = sign * v[i];
        }
        w
    }
}

/// Precomputed pawn steps for one (player, pawn kind).
#[derive(Clone, Debug, Default)]
pub struct PawnTable {
    /// Per cell: pairs `(single, double)`; `double` is `u16::MAX` when no
    /// double step exists from that cell along that push.
    pub pushes: CellTable,
    /// Per cell: capture targets.
    pub captures: CellTable,
    /// Per cell: the cells from which such a pawn captures onto this cell.
    pub attackers: CellTable,
}

/// A castling of one rook, its legality conditions precomputed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Castling {
    /// The king's destination.
    pub king_to: u16,
    /// The rook's destination.
    pub rook_to: u16,
    /// Cells that must be empty (the king and the castling rook excepted).
    pub must_be_empty: Vec<u16>,
    /// Cells the king crosses, which must not be attacked before the move.
    /// (The destination is tested on the board after the move.)
    pub crossed: Vec<u16>,
}

/// The castlings of the rook on `rook` with the king on `king`, under
/// `style`, on a 2-D board (none elsewhere).
fn castling_candidates(
    g: &Geometry,
    style: CastlingStyle,
    king: Cell,
    rook: Cell,
) -> Vec<Castling> {
    let mut out = Vec::new();
    if g.dims() != 2 || king == rook || g.coord(rook, 0) != g.coord(king, 0) {
        return out;
    }
    let rank = g.coord(king, 0);
    let width = g.lens()[1] as i32;
    let at = |file: i32| g.cell_at(&[rank, file]).map(|c| c as u16);
    match style {
        CastlingStyle::None => {}
        CastlingStyle::Chess960 => {
            // FIDE Chess960: king to the c or g file, rook to d or f.
            let kf = g.coord(king, 1);
            let rf = g.coord(rook, 1);
            let (ktf, rtf) = if rf < kf {
                (2, 3)
            } else {
                (width - 2, width - 3)
            };
            let span = |a: i32, b: i32| a.min(b)..=a.max(b);
            let mut must_be_empty: Vec<u16> =
                span(kf, ktf).chain(span(rf, rtf)).filter_map(at).collect();
            must_be_empty.sort_unstable();
            must_be_empty.dedup();
            let crossed = span(kf, ktf)
                .filter(|&f| f != kf && f != ktf)
                .filter_map(at)
                .collect();
            if let (Some(king_to), Some(rook_to)) = (at(ktf), at(rtf)) {
                out.push(Castling {
                    king_to,
                    rook_to,
                    must_be_empty,
                    crossed,
                });
            }
        }
        CastlingStyle::Theory => {
            // T4.6: the rook moves along the file axis (either way round
            // where files wrap) to the cell `b` next to the king, then the
            // king jumps over it.
            for dir in [1, -1] {
                let step = [0, dir];
                let back = [0, -dir];
                let Some(b) = g.step(king, &back) else {
                    continue;
                };
                if b == rook {
                    continue;
                }
                let mut path = Vec::new();
                let mut c = rook;
                let mut reached = false;
                for _ in 0..width {
                    match g.step(c, &step) {
                        Some(next) if next != king => {
                            path.push(next as u16);
                            c = next;
                            if next == b {
                                reached = true;
                                break;
                            }
                        }
                        _ => break,
                    }
                }
                let Some(king_to) = g.step(b, &back) else {
                    continue;
                };
                if !reached || king_to == king {
                    continue;
                }
                let mut must_be_empty = path;
                must_be_empty.push(king_to as u16);
                out.push(Castling {
                    king_to: king_to as u16,
                    rook_to: b as u16,
                    must_be_empty,
                    crossed: vec![b as u16],
                });
            }
        }
    }
    out
}

/// Marker for "no cell" in `u16` tables.
pub const NO_CELL: u16 = u16::MAX;

/// Errors from variant specs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantError {
    /// Unknown variant name.
    UnknownVariant(String),
    /// A key the variant does not have.
    UnknownKey { variant: String, key: String },
    /// A value that is not allowed.
    BadValue {
        key: String,
        value: String,
        expected: String,
    },
    /// A malformed `key=value` item.
    Syntax(String),
    /// The board cannot be built.
    Geometry(GeometryError),
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VariantError::UnknownVariant(n) => write!(
                f,
                "unknown variant '{n}' (known: {})",
                VARIANT_NAMES.join(", ")
            ),
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
        }
    }
}

impl std::error::Error for VariantError {}

impl From<GeometryError> for VariantError {
    fn from(e: GeometryError) -> Self {
        VariantError::Geometry(e)
    }
}

/// Names accepted by [`Variant::from_spec`].
pub const VARIANT_NAMES: &[&str] = &[
    "chess",
    "chess960",
    "cylinder",
    "torus",
    "diamond",
    "cylinder-diamond",
    "cube",
];

/// Zobrist keys of a variant.
#[derive(Clone, Debug)]
pub struct Zobrist {
    pieces: Vec<u64>,
    codes: usize,
    /// Per player to move.
    pub side: Vec<u64>,
    /// Per cell: a castling right of the rook on it.
    pub castle: Vec<u64>,
    /// Per cell: the en-passant target.
    pub ep: Vec<u64>,
}

impl Zobrist {
    fn new(cells: usize, players: usize) -> Zobrist {
        // SplitMix64: deterministic keys, so hashes (and `bench` signatures)
        // are the same on every run and machine.
        let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ (cells as u64) << 8 ^ players as u64;
        let mut next = move || {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let codes = players * MAX_KINDS;
        Zobrist {
            pieces: (0..cells * codes).map(|_| next()).collect(),
            codes,
            side: (0..players).map(|_| next()).collect(),
            castle: (0..cells).map(|_| next()).collect(),
            ep: (0..cells).map(|_| next()).collect(),
        }
    }

    /// Key of piece `p` on `cell`.
    #[inline(always)]
    pub fn piece(&self, cell: Cell, p: Piece) -> u64 {
        self.pieces[cell * self.codes + p as usize - 1]
    }
}

/// Which diamond start position table to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiamondSetup {
    /// Table 8.1 (3-D).
    T81,
    /// Table 8.2 (4-D).
    T82,
    /// Table 8.3 (any n >= 3).
    T83,
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
    /// Players in move order.
    pub players: Vec<Player>,
    /// Rule switches.
    pub rules: Rules,
    /// The start position's pieces.
    pub start: Vec<(Cell, Piece)>,
    /// Rooks that may castle in the start position.
    pub start_castling: Vec<Cell>,
    /// Chess960 start number, where the variant has one.
    pub chess960_number: Option<u32>,
    /// Leap tables (targets per cell) referenced by [`PieceKind::leaps`].
    pub leaps: Vec<CellTable>,
    /// Pawn tables, `[player][kind]` (empty tables for non-pawns).
    pub pawn_tables: Vec<Vec<PawnTable>>,
    /// Per player: cells on which its pawns promote.
    pub promotion_zone: Vec<Bitboard>,
    /// Kinds a pawn may promote to.
    pub promotion_kinds: Vec<usize>,
    /// Per direction: bit mask of the kinds sliding along it.
    pub sliders_by_direction: Vec<u16>,
    /// Directions along which some kind slides.
    pub slider_directions: Vec<usize>,
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
    /// Per player: whether each piece code belongs to an enemy.
    hostile: Vec<[bool; 256]>,
    /// Per player: the enemies' pawns as (player, kind, piece code).
    pub enemy_pawns: Vec<Vec<(usize, usize, Piece)>>,
    /// Per slider direction `d`: the kinds that attack a cell from the far
    /// end of the ray along `d` (those sliding along the opposite direction).
    pub slider_rays: Vec<(usize, u16)>,
    /// Bitboard tables of the fast move generator (boards of <= 64 cells).
    pub board64: Option<Box<crate::rules::movegen::fast64::Tables>>,
}

impl fmt::Debug for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Variant").field("spec", &self.spec).finish()
    }
}

/// Parsed `key=value` parameters.
struct Params {
    variant: String,
    items: Vec<(String, String)>,
}

impl Params {
    fn take(&mut self, key: &str) -> Option<String> {
        let i = self.items.iter().position(|(k, _)| k == key)?;
        Some(self.items.remove(i).1)
    }

    fn take_int(&mut self, key: &str, lo: i64, hi: i64) -> Result<Option<i64>, VariantError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => match v.parse::<i64>() {
                Ok(x) if (lo..=hi).contains(&x) => Ok(Some(x)),
                _ => Err(VariantError::BadValue {
                    key: key.into(),
                    value: v,
                    expected: format!("an integer in {lo}..={hi}"),
                }),
            },
        }
    }

    fn finish(self) -> Result<(), VariantError> {
        match self.items.into_iter().next() {
            None => Ok(()),
            Some((key, _)) => Err(VariantError::UnknownKey {
                variant: self.variant,
                key,
            }),
        }
    }
}

/// Blueprint of a variant before its tables are derived.
struct Blueprint {
    name: String,
    spec: String,
    geometry: Geometry,
    kinds: Vec<PieceKind>,
    players: Vec<Player>,
    rules: Rules,
    start: Vec<(Cell, Piece)>,
    start_castling: Vec<Cell>,
    chess960_number: Option<u32>,
    leap_offsets: Vec<Vec<Vec<i32>>>,
    /// Explicit promotion zones; `None` derives them by T4.8.
    promotion_zone: Option<Vec<Vec<Cell>>>,
}

/// Offsets of the knight: ±2 along one axis, ±1 along another.
fn knight_offsets(n: usize) -> Vec<Vec<i32>> {
    let mut v = Vec::new();
    for a in 0..n {
        for b in 0..n {
            if a == b {
                continue;
            }
            for sa in [-2, 2] {
                for sb in [-1, 1] {
                    let mut o = vec![0; n];
                    o[a] = sa;
                    o[b] = sb;
                    v.push(o);
                }
            }
        }
    }
    v
}

/// Unit-step offsets changing between `lo` and `hi` coordinates.
fn step_offsets(g: &Geometry, lo: usize, hi: usize) -> Vec<Vec<i32>> {
    (0..g.directions().len())
        .filter(|&d| (lo..=hi).contains(&g.direction_dims(d)))
        .map(|d| g.directions()[d].clone())
        .collect()
}

/// Directions changing exactly `k` coordinates (k = 0: all).
fn slide_dirs(g: &Geometry, k: usize) -> Vec<usize> {
    (0..g.directions().len())
        .filter(|&d| k == 0 || g.direction_dims(d) == k)
        .collect()
}

/// The classical pawn of T4.1 in its owner's frame: one push along axis 0,
/// captures `axis0 ± one other axis`.
fn theory_pawn(n: usize) -> PawnRule {
    let mut push = vec![0; n];
    push[0] = 1;
    let mut captures = Vec::new();
    for axis in 1..n {
        for s in [-1, 1] {
            let mut c = vec![0; n];
            c[0] = 1;
            c[axis] = s;
            captures.push(c);
        }
    }
    PawnRule {
        pushes: vec![push],
        captures,
        double_step: true,
    }
}

/// Letters of the k-D bishops L² … L⁷.
const BISHOP_LETTERS: [char; 6] = ['B', 'W', 'G', 'X', 'Y', 'Z'];

fn kind(name: &str, letter: char) -> PieceKind {
    PieceKind {
        name: name.into(),
        letter,
        royal: false,
        slides: Vec::new(),
        leaps: None,
        pawn: None,
    }
}

/// Two players facing each other along axis 1 (black mirrored on `mirror`).
fn two_players(n: usize, mirror: &[usize]) -> Vec<Player> {
    let white = Player {
        name: "white".into(),
        frame: (0..n).map(|a| (a, 1)).collect(),
        team: 0,
    };
    let black = Player {
        name: "black".into(),
        frame: (0..n)
            .map(|a| (a, if mirror.contains(&a) { -1 } else { 1 }))
            .collect(),
        team: 1,
    };
    vec![white, black]
}

/// The Chess960 back rank of start number `n` (Scharnagl numbering; 518 is
/// the classical array).
pub fn chess960_back_rank(number: u32) -> [char; 8] {
    let mut rank = [' '; 8];
    let mut n = number as usize;
    rank[(n % 4) * 2 + 1] = 'B';
    n /= 4;
    rank[(n % 4) * 2] = 'B';
    n /= 4;
    let place = |rank: &mut [char; 8], mut index: usize, piece: char| {
        for cell in rank.iter_mut() {
            if *cell == ' ' {
                if index == 0 {
                    *cell = piece;
                    return;
                }
                index -= 1;
            }
        }
    };
    place(&mut rank, n % 6, 'Q');
    n /= 6;
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[n];
    // Place the later knight first so the earlier index still counts the
    // same empty cells.
    place(&mut rank, b, 'N');
    place(&mut rank, a, 'N');
    for piece in ['R', 'K', 'R'] {
        place(&mut rank, 0, piece);
    }
    rank
}

impl Variant {
    /// Builds a variant from a spec `name[:key=value,…]`.
    ///
    /// | name | keys |
    /// |---|---|
    /// | `chess` | — |
    /// | `chess960` | `sp` = 0..959 (random if absent) |
    /// | `cylinder`, `torus` | `wrapcastling` = 0/1 (default 1) |
    /// | `diamond`, `cylinder-diamond` | `n` = 3..6, `l` = even 8..26, `setup` = 8.1 / 8.2 / 8.3 |
    /// | `cube` | — |
    pub fn from_spec(spec: &str) -> Result<Arc<Variant>, VariantError> {
        let spec = spec.trim();
        let (name, rest) = match spec.split_once(':') {
            Some((n, r)) => (n.trim().to_ascii_lowercase(), r),
            None => (spec.to_ascii_lowercase(), ""),
        };
        let mut items = Vec::new();
        for item in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match item.split_once('=') {
                Some((k, v)) if !k.trim().is_empty() && !v.trim().is_empty() => {
                    items.push((k.trim().to_ascii_lowercase(), v.trim().to_string()))
                }
                _ => return Err(VariantError::Syntax(item.into())),
            }
        }
        let mut p = Params {
            variant: name.clone(),
            items,
        };
        let bp = match name.as_str() {
            "chess" => {
                p.finish()?;
                Self::chess_like("chess", 518, false)?
            }
            "chess960" | "fischerandom" | "frc" => {
                let sp = match p.take_int("sp", 0, 959)? {
                    Some(x) => x as u32,
                    None => rand::random_range(0..960u32),
                };
                p.finish()?;
                Self::chess_like("chess960", sp, false)?
            }
            "cylinder" => {
                let wrap = p.take_int("wrapcastling", 0, 1)?.unwrap_or(1) == 1;
                p.finish()?;
                Self::cylinder(wrap)?
            }
            "torus" => {
                let wrap = p.take_int("wrapcastling", 0, 1)?.unwrap_or(1) == 1;
                p.finish()?;
                Self::torus(wrap)?
            }
            "diamond" | "cylinder-diamond" => {
                let n = p.take_int("n", 3, 6)?.unwrap_or(3) as usize;
                let l = p.take_int("l", 8, 26)?.unwrap_or(8) as usize;
                if !l.is_multiple_of(2) {
                    return Err(VariantError::BadValue {
                        key: "l".into(),
                        value: l.to_string(),
                        expected: "an even edge length".into(),
                    });
                }
                let setup = match p.take("setup").as_deref() {
                    None => match n {
                        3 => DiamondSetup::T81,
                        4 => DiamondSetup::T82,
                        _ => DiamondSetup::T83,
                    },
                    Some("8.1") if n == 3 => DiamondSetup::T81,
                    Some("8.2") if n == 4 => DiamondSetup::T82,
                    Some("8.3") => DiamondSetup::T83,
                    Some(v) => {
                        return Err(VariantError::BadValue {
                            key: "setup".into(),
                            value: v.into(),
                            expected: "8.3, or 8.1 for n=3, or 8.2 for n=4".into(),
                        });
                    }
                };
                p.finish()?;
                Self::diamond(n, l, setup, name == "cylinder-diamond")?
            }
            "cube" | "schach3" => {
                p.finish()?;
                Self::cube()?
            }
            _ => return Err(VariantError::UnknownVariant(name)),
        };
        let mut v = Self::derive(bp);
        v.board64 = crate::rules::movegen::fast64::Tables::new(&v).map(Box::new);
        Ok(Arc::new(v))
    }

    /// Chess-like piece kinds on a 2-D board: P, N, B, R, Q, K (+ U).
    fn chess_kinds(g: &Geometry, reverse_pawns: bool) -> (Vec<PieceKind>, Vec<Vec<Vec<i32>>>) {
        let mut kinds = Vec::new();
        let mut p = kind("pawn", 'P');
        p.pawn = Some(theory_pawn(2));
        kinds.push(p);
        if reverse_pawns {
            let mut u = kind("reverse pawn", 'U');
            let mut rule = theory_pawn(2);
            for v in rule.pushes.iter_mut().chain(rule.captures.iter_mut()) {
                v[0] = -v[0];
            }
            u.pawn = Some(rule);
            kinds.push(u);
        }
        let mut n = kind("knight", 'N');
        n.leaps = Some(0);
        kinds.push(n);
        let mut b = kind("bishop", 'B');
        b.slides = slide_dirs(g, 2);
        kinds.push(b);
        let mut r = kind("rook", 'R');
        r.slides = slide_dirs(g, 1);
        kinds.push(r);
        let mut q = kind("queen", 'Q');
        q.slides = slide_dirs(g, 0);
        kinds.push(q);
        let mut k = kind("king", 'K');
        k.leaps = Some(1);
        k.royal = true;
        kinds.push(k);
        (kinds, vec![knight_offsets(2), step_offsets(g, 1, 2)])
    }

    fn letter_kind(kinds: &[PieceKind], letter: char) -> usize {
        kinds
            .iter()
            .position(|k| k.letter == letter)
            .expect("invariant: the setup only names letters of its own piece set")
    }

    /// Places a back rank (white on rank `white_rank`, black mirrored).
    fn back_ranks(
        g: &Geometry,
        kinds: &[PieceKind],
        rank: &[char; 8],
        white_rank: i32,
        black_rank: i32,
    ) -> Vec<(Cell, Piece)> {
        let mut start = Vec::new();
        for (file, &c) in rank.iter().enumerate() {
            let k = Self::letter_kind(kinds, c);
            let w = g.cell_at(&[white_rank, file as i32]).expect("on board");
            let b = g.cell_at(&[black_rank, file as i32]).expect("on board");
            start.push((w, piece(0, k)));
            start.push((b, piece(1, k)));
        }
        start
    }

    fn pawn_rank(g: &Geometry, player: usize, kind: usize, rank: i32) -> Vec<(Cell, Piece)> {
        (0..8)
            .map(|f| {
                (
                    g.cell_at(&[rank, f]).expect("on board"),
                    piece(player, kind),
                )
            })
            .collect()
    }

    fn rooks_of(start: &[(Cell, Piece)], kinds: &[PieceKind], rank_cells: &[Cell]) -> Vec<Cell> {
        let rook = Self::letter_kind(kinds, 'R');
        start
            .iter()
            .filter(|(c, p)| piece_kind(*p) == rook && rank_cells.contains(c))
            .map(|(c, _)| *c)
            .collect()
    }

    fn chess_like(name: &str, sp: u32, _unused: bool) -> Result<Blueprint, VariantError> {
        let g = Geometry::new(vec![8, 8], vec![false, false], Shape::Box, Naming::TwoD)?;
        let (kinds, leap_offsets) = Self::chess_kinds(&g, false);
        let rank = chess960_back_rank(sp);
        let mut start = Self::back_ranks(&g, &kinds, &rank, 0, 7);
        start.extend(Self::pawn_rank(&g, 0, 0, 1));
        start.extend(Self::pawn_rank(&g, 1, 0, 6));
        let back: Vec<Cell> = (0..8).chain(56..64).collect();
        let start_castling = Self::rooks_of(&start, &kinds, &back);
        let spec = if name == "chess" {
            "chess".to_string()
        } else {
            format!("chess960:sp={sp}")
        };
        Ok(Blueprint {
            name: name.into(),
            spec,
            geometry: g,
            kinds,
            players: two_players(2, &[0]),
            rules: Rules {
                castling: CastlingStyle::Chess960,
                en_passant: true,
                fifty_move: true,
                stalemate: StalemateRule::Draw,
            },
            start,
            start_castling,
            chess960_number: Some(sp),
            leap_offsets,
            promotion_zone: None,
        })
    }

    fn cylinder(wrap_castling: bool) -> Result<Blueprint, VariantError> {
        let mut bp = Self::chess_like("cylinder", 518, false)?;
        bp.geometry = Geometry::new(vec![8, 8], vec![false, true], Shape::Box, Naming::TwoD)?;
        let (kinds, leaps) = Self::chess_kinds(&bp.geometry, false);
        bp.kinds = kinds;
        bp.leap_offsets = leaps;
        bp.rules.castling = if wrap_castling {
            CastlingStyle::Theory
        } else {
            CastlingStyle::Chess960
        };
        bp.spec = if wrap_castling {
            "cylinder".into()
        } else {
            "cylinder:wrapcastling=0".into()
        };
        bp.chess960_number = None;
        Ok(bp)
    }

    fn torus(wrap_castling: bool) -> Result<Blueprint, VariantError> {
        let g = Geometry::new(vec![14, 8], vec![true, true], Shape::Box, Naming::TwoD)?;
        let (kinds, leap_offsets) = Self::chess_kinds(&g, true);
        let rank = chess960_back_rank(518);
        let mut start = Self::back_ranks(&g, &kinds, &rank, 0, 7);
        let (p, u) = (0, 1);
        start.extend(Self::pawn_rank(&g, 0, p, 1));
        start.extend(Self::pawn_rank(&g, 0, u, 13));
        start.extend(Self::pawn_rank(&g, 1, p, 6));
        start.extend(Self::pawn_rank(&g, 1, u, 8));
        let back: Vec<Cell> = (0..8).chain(56..64).collect();
        let start_castling = Self::rooks_of(&start, &kinds, &back);
        Ok(Blueprint {
            name: "torus".into(),
            spec: if wrap_castling {
                "torus".into()
            } else {
                "torus:wrapcastling=0".into()
            },
            geometry: g,
            kinds,
            players: two_players(2, &[0]),
            rules: Rules {
                castling: if wrap_castling {
                    CastlingStyle::Theory
                } else {
                    CastlingStyle::Chess960
                },
                en_passant: true,
                fifty_move: true,
                stalemate: StalemateRule::Draw,
            },
            start,
            start_castling,
            chess960_number: None,
            leap_offsets,
            promotion_zone: None,
        })
    }

    /// Piece kinds of n-D diamond chess: P, N, R, L²…Lⁿ, Q, K.
    fn diamond_kinds(g: &Geometry, n: usize) -> (Vec<PieceKind>, Vec<Vec<Vec<i32>>>) {
        let mut kinds = Vec::new();
        let mut p = kind("pawn", 'P');
        p.pawn = Some(theory_pawn(n));
        kinds.push(p);
        let mut nk = kind("knight", 'N');
        nk.leaps = Some(0);
        kinds.push(nk);
        let mut r = kind("rook", 'R');
        r.slides = slide_dirs(g, 1);
        kinds.push(r);
        for k in 2..=n {
            let name = if k == 2 {
                "bishop".to_string()
            } else {
                format!("{k}-D bishop")
            };
            let mut b = kind(&name, BISHOP_LETTERS[k - 2]);
            b.slides = slide_dirs(g, k);
            kinds.push(b);
        }
        let mut q = kind("queen", 'Q');
        q.slides = slide_dirs(g, 0);
        kinds.push(q);
        let mut k = kind("king", 'K');
        k.leaps = Some(1);
        k.royal = true;
        kinds.push(k);
        (kinds, vec![knight_offsets(n), step_offsets(g, 1, n)])
    }

    fn diamond(
        n: usize,
        l: usize,
        setup: DiamondSetup,
        cylinder: bool,
    ) -> Result<Blueprint, VariantError> {
        let wraps: Vec<bool> = (0..n).map(|a| cylinder && a > 0).collect();
        let g = Geometry::new(vec![l; n], wraps, Shape::Diamond, Naming::Layered)?;
        let (kinds, leap_offsets) = Self::diamond_kinds(&g, n);
        let white = Self::diamond_white_pieces(&g, &kinds, n, l, setup);
        let mut start = Vec::new();
        let pawn = 0;
        for (x, k) in &white {
            let mut xb = x.clone();
            xb[0] = l as i32 - 1;
            let mut pw = x.clone();
            pw[0] = 1;
            let mut pb = x.clone();
            pb[0] = l as i32 - 2;
            for (coords, pc) in [
                (x, piece(0, *k)),
                (&xb, piece(1, *k)),
                (&pw, piece(0, pawn)),
                (&pb, piece(1, pawn)),
            ] {
                let cell = g
                    .cell_at(coords)
                    .expect("invariant: setup tables place pieces on the diamond");
                start.push((cell, pc));
            }
        }
        let setup_name = match setup {
            DiamondSetup::T81 => "8.1",
            DiamondSetup::T82 => "8.2",
            DiamondSetup::T83 => "8.3",
        };
        let name = if cylinder {
            "cylinder-diamond"
        } else {
            "diamond"
        };
        Ok(Blueprint {
            name: name.into(),
            spec: format!("{name}:n={n},l={l},setup={setup_name}"),
            geometry: g,
            kinds,
            players: two_players(n, &[0]),
            rules: Rules {
                castling: CastlingStyle::None,
                en_passant: true,
                fifty_move: true,
                stalemate: StalemateRule::Draw,
            },
            start,
            start_castling: Vec::new(),
            chess960_number: None,
            leap_offsets,
            promotion_zone: None,
        })
    }

    /// White's non-pawn pieces of a diamond setup as (coords, kind).
    fn diamond_white_pieces(
        g: &Geometry,
        kinds: &[PieceKind],
        n: usize,
        l: usize,
        setup: DiamondSetup,
    ) -> Vec<(Vec<i32>, usize)> {
        let shift = (l as i32 - 8) / 2;
        let by_letter = |c: char| Self::letter_kind(kinds, c);
        let mut out = Vec::new();
        match setup {
            DiamondSetup::T81 | DiamondSetup::T82 => {
                let table: &[(&str, char)] = if setup == DiamondSetup::T81 {
                    &[
                        ("Cd1 Fe1", 'R'),
                        ("Ec1 Df1", 'N'),
                        ("Ed1 Ee1", 'B'),
                        ("Dc1 Ce1 Ef1 Fd1", 'W'),
                        ("De1", 'Q'),
                        ("Dd1", 'K'),
                    ]
                } else {
                    &[
                        ("γDd1 δCe1 δEf1 εEc1 εFe1 ζEe1", 'R'),
                        ("γEe1 δEc1 δFe1 εCd1 εDf1 ζDd1", 'N'),
                        ("γDe1 δDc1 δFd1 εCe1 εEf1 ζEd1", 'B'),
                        ("δDd1 δDe1 εDd1 εDe1", 'W'),
                        ("γEd1 δCd1 δDf1 δEe1 εDc1 εEe1 εFd1 ζDe1", 'G'),
                        ("δEd1", 'Q'),
                        ("εEd1", 'K'),
                    ]
                };
                // The tables are written for l = 8 in the seed's spelling;
                // parse them on an l = 8 board, then shift to the centre.
                let g8 = Geometry::new(vec![8; n], vec![false; n], Shape::Diamond, Naming::Layered)
                    .expect("invariant: the l=8 diamond of dimension 3 or 4 is valid");
                for (cells, letter) in table {
                    for name in cells.split_whitespace() {
                        let c = g8
                            .parse_cell(name)
                            .expect("invariant: seed tables name cells of the l=8 diamond");
                        let mut x: Vec<i32> = g8.coords(c).iter().map(|&v| v as i32).collect();
                        for v in x.iter_mut().skip(1) {
                            *v += shift;
                        }
                        out.push((x, by_letter(*letter)));
                    }
                }
            }
            DiamondSetup::T83 => {
                let c = l as i32 / 2;
                for cell in 0..g.cell_count() {
                    if g.coord(cell, 0) != 0 {
                        continue;
                    }
                    let x: Vec<i32> = g.coords(cell).iter().map(|&v| v as i32).collect();
                    let core = |i: usize| x[i] == c - 1 || x[i] == c;
                    let others_core = |skip: usize| (1..n).filter(|&i| i != skip).all(core);
                    let k = if (1..n).all(|i| x[i] == c - 1) {
                        Some('K')
                    } else if x[1] == c && (2..n).all(|i| x[i] == c - 1) {
                        Some('Q')
                    } else if x[2] == c - 1 && others_core(2) && (3..n).any(|i| x[i] == c) {
                        Some('R')
                    } else if x[2] == c && others_core(2) {
                        Some('N')
                    } else if (1..n).all(|i| (c - 2..=c + 1).contains(&x[i])) {
                        let outer: Vec<usize> =
                            (1..n).filter(|&i| x[i] == c - 2 || x[i] == c + 1).collect();
                        if outer.len() == 1 {
                            Some(BISHOP_LETTERS[outer[0] - 1])
                        } else {
                            None
                        }
                    } else {
                        None
                    };
                    if let Some(letter) = k {
                        out.push((x, by_letter(letter)));
                    }
                }
            }
        }
        out
    }

    fn cube() -> Result<Blueprint, VariantError> {
        let g = Geometry::new(vec![4, 4, 4], vec![false; 3], Shape::Box, Naming::Cube)?;
        let mut kinds = Vec::new();
        let mut p = kind("pawn", 'P');
        // Owner's frame: axis 0 = rank (forward), 1 = file, 2 = level (up).
        p.pawn = Some(PawnRule {
            pushes: vec![vec![1, 0, 0], vec![0, 0, 1]],
            captures: vec![vec![1, -1, 0], vec![1, 1, 0], vec![0, -1, 1], vec![0, 1, 1]],
            double_step: false,
        });
        kinds.push(p);
        let mut nk = kind("knight", 'N');
        nk.leaps = Some(0);
        kinds.push(nk);
        let mut b = kind("bishop", 'B');
        b.leaps = Some(1);
        kinds.push(b);
        let mut r = kind("rook", 'R');
        r.slides = slide_dirs(&g, 1);
        kinds.push(r);
        let mut q = kind("queen", 'Q');
        q.leaps = Some(2);
        kinds.push(q);
        let mut k = kind("king", 'K');
        k.leaps = Some(3);
        k.royal = true;
        kinds.push(k);
        let leap_offsets = vec![
            knight_offsets(3),
            step_offsets(&g, 2, 2),
            step_offsets(&g, 1, 2),
            step_offsets(&g, 1, 1),
        ];
        let mut start = Vec::new();
        let white = [
            ("a1a", 'R'),
            ("b1a", 'Q'),
            ("c1a", 'K'),
            ("d1a", 'R'),
            ("a1b", 'N'),
            ("b1b", 'B'),
            ("c1b", 'B'),
            ("d1b", 'N'),
            ("a2a", 'P'),
            ("b2a", 'P'),
            ("c2a", 'P'),
            ("d2a", 'P'),
        ];
        for (name, letter) in white {
            let c = g.parse_cell(name).expect("invariant: cube cell names");
            let k = Self::letter_kind(&kinds, letter);
            start.push((c, piece(0, k)));
            // Black: the point reflection through the cube's centre.
            let x: Vec<i32> = g.coords(c).iter().map(|&v| 3 - v as i32).collect();
            start.push((g.cell_at(&x).expect("on board"), piece(1, k)));
        }
        let zone = |rank: i32, level: i32| -> Vec<Cell> {
            (0..4)
                .map(|f| g.cell_at(&[rank, f, level]).expect("on board"))
                .collect()
        };
        let promotion_zone = Some(vec![zone(3, 3), zone(0, 0)]);
        Ok(Blueprint {
            name: "cube".into(),
            spec: "cube".into(),
            players: two_players(3, &[0, 2]),
            geometry: g,
            kinds,
            rules: Rules {
                castling: CastlingStyle::None,
                en_passant: false,
                fifty_move: false,
                stalemate: StalemateRule::StalematedLoses,
            },
            start,
            start_castling: Vec::new(),
            chess960_number: None,
            leap_offsets,
            promotion_zone,
        })
    }

    /// Derives every table from a blueprint.
    fn derive(bp: Blueprint) -> Variant {
        let g = &bp.geometry;
        let cells = g.cell_count();
        let leaps: Vec<CellTable> = bp.leap_offsets.iter().map(|o| g.leap_table(o)).collect();
        let promotion_zone: Vec<Bitboard> = match &bp.promotion_zone {
            Some(z) => z
                .iter()
                .map(|cs| Bitboard::from_cells(cells, cs.iter().copied()))
                .collect(),
            None => (0..bp.players.len())
                .map(|p| {
                    Bitboard::from_cells(
                        cells,
                        bp.start
                            .iter()
                            .filter(|(_, pc)| {
                                bp.players[piece_player(*pc)].team != bp.players[p].team
                                    && bp.kinds[piece_kind(*pc)].pawn.is_none()
                            })
                            .map(|(c, _)| *c),
                    )
                })
                .collect(),
        };
        let mut pawn_tables = Vec::new();
        for (pi, player) in bp.players.iter().enumerate() {
            let mut per_kind = Vec::new();
            for (ki, k) in bp.kinds.iter().enumerate() {
                let Some(rule) = &k.pawn else {
                    per_kind.push(PawnTable::default());
                    continue;
                };
                let start_cells: Vec<Cell> = bp
                    .start
                    .iter()
                    .filter(|(_, pc)| *pc == piece(pi, ki))
                    .map(|(c, _)| *c)
                    .collect();
                let pushes: Vec<Vec<i32>> = rule.pushes.iter().map(|v| player.orient(v)).collect();
                let captures: Vec<Vec<i32>> =
                    rule.captures.iter().map(|v| player.orient(v)).collect();
                let push_lists = (0..cells).map(|c| {
                    let mut list = Vec::new();
                    for v in &pushes {
                        if let Some(one) = g.step(c, v) {
                            let two = if rule.double_step && start_cells.contains(&c) {
                                g.step(one, v).filter(|&t| t != c)
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
                            .filter_map(|v| g.step(c, v))
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
                per_kind.push(PawnTable {
                    pushes: CellTable::from_lists(push_lists),
                    captures: CellTable::from_lists(capture_lists),
                    attackers: CellTable::from_lists(attackers),
                });
            }
            pawn_tables.push(per_kind);
        }
        let mut sliders_by_direction = vec![0u16; g.directions().len()];
        for (ki, k) in bp.kinds.iter().enumerate() {
            for &d in &k.slides {
                sliders_by_direction[d] |= 1 << ki;
            }
        }
        let slider_directions = (0..g.directions().len())
            .filter(|&d| sliders_by_direction[d] != 0)
            .collect();
        let mut kinds_by_leap = vec![0u16; leaps.len()];
        for (ki, k) in bp.kinds.iter().enumerate() {
            if let Some(l) = k.leaps {
                kinds_by_leap[l] |= 1 << ki;
            }
        }
        let pawn_kinds = bp
            .kinds
            .iter()
            .enumerate()
            .filter(|(_, k)| k.pawn.is_some())
            .fold(0u16, |m, (i, _)| m | 1 << i);
        let promotion_kinds = bp
            .kinds
            .iter()
            .enumerate()
            .filter(|(_, k)| !k.royal && k.pawn.is_none())
            .map(|(i, _)| i)
            .collect();
        let royal_kind = bp.kinds.iter().position(|k| k.royal);
        let zobrist = Zobrist::new(cells, bp.players.len());
        let enemy_pawns = (0..bp.players.len())
            .map(|us| {
                let mut list = Vec::new();
                for (q, player) in bp.players.iter().enumerate() {
                    if player.team == bp.players[us].team {
                        continue;
                    }
                    for (k, kd) in bp.kinds.iter().enumerate() {
                        if kd.pawn.is_some() {
                            list.push((q, k, piece(q, k)));
                        }
                    }
                }
                list
            })
            .collect();
        let slider_rays = (0..g.directions().len())
            .filter_map(|d| {
                let mask = sliders_by_direction[g.opposite(d)];
                (mask != 0).then_some((d, mask))
            })
            .collect();
        let castling_table = if bp.rules.castling == CastlingStyle::None || g.dims() != 2 {
            Vec::new()
        } else {
            (0..cells * cells)
                .map(|i| castling_candidates(g, bp.rules.castling, i / cells, i % cells))
                .collect()
        };
        let hostile = (0..bp.players.len())
            .map(|us| {
                let mut h = [false; 256];
                for (code, slot) in h.iter_mut().enumerate().skip(1) {
                    let owner = piece_player(code as Piece);
                    *slot =
                        owner < bp.players.len() && bp.players[owner].team != bp.players[us].team;
                }
                h
            })
            .collect();
        Variant {
            name: bp.name,
            spec: bp.spec,
            kinds: bp.kinds,
            players: bp.players,
            rules: bp.rules,
            start: bp.start,
            start_castling: bp.start_castling,
            chess960_number: bp.chess960_number,
            leaps,
            pawn_tables,
            promotion_zone,
            promotion_kinds,
            sliders_by_direction,
            slider_directions,
            kinds_by_leap,
            pawn_kinds,
            royal_kind,
            zobrist,
            castling_table,
            hostile,
            enemy_pawns,
            slider_rays,
            board64: None,
            geometry: bp.geometry,
        }
    }

    /// The castlings of the rook on `rook` with the king on `king`.
    #[inline]
    pub fn castlings(&self, king: Cell, rook: Cell) -> &[Castling] {
        let cells = self.geometry.cell_count();
        self.castling_table
            .get(king * cells + rook)
            .map_or(&[], |v| v.as_slice())
    }

    /// Whether piece code `p` (possibly [`EMPTY`]) belongs to an enemy of
    /// `us`.
    #[inline(always)]
    pub fn is_hostile(&self, us: usize, p: Piece) -> bool {
        self.hostile[us][p as usize]
    }

    /// Number of players.
    pub fn player_count(&self) -> usize {
        self.players.len()
    }

    /// Whether players `a` and `b` are enemies.
    #[inline(always)]
    pub fn enemies(&self, a: usize, b: usize) -> bool {
        self.players[a].team != self.players[b].team
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

    /// The letter of a piece as written in position texts: upper case for
    /// player 0, lower case for player 1 (other players use the bracketed
    /// form of docs/notation.md).
    pub fn piece_letter(&self, p: Piece) -> char {
        let c = self.kinds[piece_kind(p)].letter;
        if piece_player(p) == 1 {
            c.to_ascii_lowercase()
        } else {
            c
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scharnagl_numbering_matches_seed_examples() {
        // Seed 003 and RULES §2.2: 518 is the classical array, 0 is BBQNNRKR.
        assert_eq!(
            chess960_back_rank(518).iter().collect::<String>(),
            "RNBQKBNR"
        );
        assert_eq!(chess960_back_rank(0).iter().collect::<String>(), "BBQNNRKR");
    }

    #[test]
    fn specs_parse_and_reject() {
        assert_eq!(Variant::from_spec("chess").unwrap().spec, "chess");
        assert_eq!(
            Variant::from_spec("chess960:sp=518").unwrap().spec,
            "chess960:sp=518"
        );
        assert_eq!(
            Variant::from_spec("diamond").unwrap().spec,
            "diamond:n=3,l=8,setup=8.1"
        );
        assert_eq!(
            Variant::from_spec("diamond:n=4").unwrap().spec,
            "diamond:n=4,l=8,setup=8.2"
        );
        assert_eq!(
            Variant::from_spec("diamond:n=5").unwrap().spec,
            "diamond:n=5,l=8,setup=8.3"
        );
        for bad in [
            "shogi",
            "chess:x=1",
            "chess960:sp=960",
            "diamond:n=2",
            "diamond:l=9",
            "diamond:n=3,setup=8.2",
            "diamond:n",
            "torus:wrapcastling=2",
        ] {
            assert!(Variant::from_spec(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn armies_have_the_sizes_of_the_seed() {
        // RULES §2.4: torus has 32 pawns; §2.5: 4-D has 32 pieces and 32 pawns
        // per side; Table 8.1: 12 pieces and 12 pawns per side.
        let count = |spec: &str| Variant::from_spec(spec).unwrap().start.len();
        assert_eq!(count("chess"), 32);
        assert_eq!(count("torus"), 48);
        assert_eq!(count("diamond:n=3"), 48);
        assert_eq!(count("diamond:n=4"), 128);
        assert_eq!(count("diamond:n=3,setup=8.3"), 48);
        assert_eq!(count("cube"), 24);
    }
}
