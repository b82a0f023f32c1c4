//! The 2-D families: classical chess (T7.2), Chess960 (seed 003), the
//! cylinder (T7.3) and the torus (T7.4).

use crate::board::castling::CastlingStyle;
use crate::board::geometry::{Cell, Geometry, Naming, Shape};
use crate::board::piece::{
    Piece, PieceKind, knight_offsets, piece, piece_kind, reverse_theory_pawn, slide_dirs,
    step_offsets, theory_pawn,
};
use crate::board::registry::{Family, Param, ParamDefault, ParamKind, PgnName, Values};
use crate::board::seating::{Seat, Seating};
use crate::board::variant::{Rules, StalemateRule, VariantDef, VariantError};

use super::letter_kind;

/// `sp`: the Chess960 start number.
pub static START_NUMBER: Param = Param {
    key: "sp",
    doc: "Scharnagl start number (518 = the classical array)",
    kind: ParamKind::Int {
        min: 0,
        max: 959,
        step: 1,
    },
    default: ParamDefault::Random,
    option: "Chess960Number",
};

/// `wrapcastling`: the castlings round the back of a wrapping board.
pub static WRAP_CASTLING: Param = Param {
    key: "wrapcastling",
    doc: "1: four castlings, two of them round the back; 0: the classical two",
    kind: ParamKind::Flag,
    default: ParamDefault::Value("1"),
    option: "WrapCastling",
};

/// Classical chess.
pub const CHESS: Family = Family {
    name: "chess",
    aliases: &[],
    summary: "8x8, FIDE rules",
    params: &[],
    build: |_| chess_like("chess", 518, false),
    xboard: Some("normal"),
    pgn: PgnName::Standard,
    examples: &["chess"],
};

/// Chess960.
pub const CHESS960: Family = Family {
    name: "chess960",
    aliases: &["fischerandom", "frc"],
    summary: "8x8, Fischer random chess (FIDE Chess960 castling)",
    params: &["sp"],
    build: |p| {
        let sp = match p.int("sp") {
            Some(x) => x as u32,
            None => rand::random_range(0..960u32),
        };
        chess_like("chess960", sp, true)
    },
    xboard: Some("fischerandom"),
    pgn: PgnName::Known("Chess960"),
    examples: &["chess960:sp=518"],
};

/// Cylinder chess.
pub const CYLINDER: Family = Family {
    name: "cylinder",
    aliases: &[],
    summary: "8x8, the files wrap (h is next to a)",
    params: &["wrapcastling"],
    build: cylinder,
    xboard: Some("cylinder"),
    pgn: PgnName::Spec,
    examples: &["cylinder"],
};

/// Torus chess.
pub const TORUS: Family = Family {
    name: "torus",
    aliases: &[],
    summary: "14x8, ranks and files wrap, 32 pawns a side",
    params: &["wrapcastling"],
    build: torus,
    xboard: Some("torus"),
    pgn: PgnName::Spec,
    examples: &["torus"],
};

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

/// Chess-like piece kinds on a 2-D board: P, (U,) N, B, R, Q, K.
fn chess_kinds(g: &Geometry, reverse_pawns: bool) -> Vec<PieceKind> {
    let mut kinds = Vec::new();
    let mut p = PieceKind::new("pawn", 'P');
    p.pawn = Some(theory_pawn(2));
    kinds.push(p);
    if reverse_pawns {
        let mut u = PieceKind::new("reverse pawn", 'U');
        u.pawn = Some(reverse_theory_pawn(2));
        kinds.push(u);
    }
    let mut n = PieceKind::new("knight", 'N');
    n.leaps = knight_offsets(2);
    kinds.push(n);
    let mut b = PieceKind::new("bishop", 'B');
    b.slides = slide_dirs(g, 2);
    kinds.push(b);
    let mut r = PieceKind::new("rook", 'R');
    r.slides = slide_dirs(g, 1);
    r.castles = true;
    kinds.push(r);
    let mut q = PieceKind::new("queen", 'Q');
    q.slides = slide_dirs(g, 0);
    kinds.push(q);
    let mut k = PieceKind::new("king", 'K');
    k.leaps = step_offsets(g, 1, 2);
    k.royal = true;
    kinds.push(k);
    kinds
}

/// A back rank (white on rank `white_rank`, black mirrored).
fn back_ranks(
    g: &Geometry,
    kinds: &[PieceKind],
    rank: &[char; 8],
    white_rank: i32,
    black_rank: i32,
) -> Vec<(Cell, Piece)> {
    let mut start = Vec::new();
    for (file, &c) in rank.iter().enumerate() {
        let k = letter_kind(kinds, c);
        let w = g.cell_at(&[white_rank, file as i32]).expect("on board");
        let b = g.cell_at(&[black_rank, file as i32]).expect("on board");
        start.push((w, piece(Seat::new(0), k)));
        start.push((b, piece(Seat::new(1), k)));
    }
    start
}

fn pawn_rank(g: &Geometry, seat: usize, kind: usize, rank: i32) -> Vec<(Cell, Piece)> {
    (0..8)
        .map(|f| {
            (
                g.cell_at(&[rank, f]).expect("on board"),
                piece(Seat::new(seat), kind),
            )
        })
        .collect()
}

/// The castling pieces of the start on the given cells.
fn castling_rooks(start: &[(Cell, Piece)], kinds: &[PieceKind], rank_cells: &[Cell]) -> Vec<Cell> {
    start
        .iter()
        .filter(|(c, p)| kinds[piece_kind(*p)].castles && rank_cells.contains(c))
        .map(|(c, _)| *c)
        .collect()
}

fn chess_rules(castling: CastlingStyle, insufficient_material: bool) -> Rules {
    Rules {
        castling,
        en_passant: true,
        fifty_move: true,
        stalemate: StalemateRule::Draw,
        insufficient_material,
        exchange_phase: false,
        party: None,
    }
}

/// The 8x8 board with back rank `sp`; `fischer_random` writes castling in
/// the Chess960 conventions.
fn chess_like(name: &str, sp: u32, fischer_random: bool) -> Result<VariantDef, VariantError> {
    let g = Geometry::new(vec![8, 8], vec![false, false], Shape::Box, Naming::TwoD)?;
    let kinds = chess_kinds(&g, false);
    let rank = chess960_back_rank(sp);
    let mut start = back_ranks(&g, &kinds, &rank, 0, 7);
    start.extend(pawn_rank(&g, 0, 0, 1));
    start.extend(pawn_rank(&g, 1, 0, 6));
    let back: Vec<Cell> = (0..8).chain(56..64).collect();
    let start_castling = castling_rooks(&start, &kinds, &back);
    Ok(VariantDef {
        name: name.into(),
        spec: if fischer_random {
            format!("chess960:sp={sp}")
        } else {
            name.into()
        },
        geometry: g,
        kinds,
        seating: Seating::two_players(2, &[0]),
        rules: chess_rules(CastlingStyle::Chess960, true),
        start,
        start_castling,
        chess960_number: Some(sp),
        fischer_random_notation: fischer_random,
        promotion_zone: None,
    })
}

fn wrap_castling(p: &Values) -> bool {
    p.flag("wrapcastling").unwrap_or(true)
}

fn cylinder(p: &Values) -> Result<VariantDef, VariantError> {
    let wrap = wrap_castling(p);
    let mut def = chess_like("cylinder", 518, false)?;
    def.geometry = Geometry::new(vec![8, 8], vec![false, true], Shape::Box, Naming::TwoD)?;
    def.kinds = chess_kinds(&def.geometry, false);
    // Mating material on a board without corners is not the 8x8 board's.
    def.rules.insufficient_material = false;
    def.rules.castling = if wrap {
        CastlingStyle::Theory
    } else {
        CastlingStyle::Chess960
    };
    def.spec = if wrap {
        "cylinder".into()
    } else {
        "cylinder:wrapcastling=0".into()
    };
    def.chess960_number = None;
    Ok(def)
}

fn torus(p: &Values) -> Result<VariantDef, VariantError> {
    let wrap = wrap_castling(p);
    let g = Geometry::new(vec![14, 8], vec![true, true], Shape::Box, Naming::TwoD)?;
    let kinds = chess_kinds(&g, true);
    let rank = chess960_back_rank(518);
    let mut start = back_ranks(&g, &kinds, &rank, 0, 7);
    let (pawn, reverse) = (0, 1);
    start.extend(pawn_rank(&g, 0, pawn, 1));
    start.extend(pawn_rank(&g, 0, reverse, 13));
    start.extend(pawn_rank(&g, 1, pawn, 6));
    start.extend(pawn_rank(&g, 1, reverse, 8));
    let back: Vec<Cell> = (0..8).chain(56..64).collect();
    let start_castling = castling_rooks(&start, &kinds, &back);
    Ok(VariantDef {
        name: "torus".into(),
        spec: if wrap {
            "torus".into()
        } else {
            "torus:wrapcastling=0".into()
        },
        geometry: g,
        kinds,
        seating: Seating::two_players(2, &[0]),
        rules: chess_rules(
            if wrap {
                CastlingStyle::Theory
            } else {
                CastlingStyle::Chess960
            },
            false,
        ),
        start,
        start_castling,
        chess960_number: None,
        fischer_random_notation: false,
        promotion_zone: None,
    })
}

/// A `w` x `h` rectangle with the chess pieces and no army: the boards of
/// the puzzle solvers (`ndchess solve --variant board:5x5`), which place
/// pieces of their own. Not a playable variant, so not in the registry.
pub fn rectangle(w: usize, h: usize) -> Result<VariantDef, VariantError> {
    let g = Geometry::new(vec![h, w], vec![false, false], Shape::Box, Naming::TwoD)?;
    let kinds = chess_kinds(&g, false);
    Ok(VariantDef {
        name: "board".into(),
        spec: format!("board:{w}x{h}"),
        geometry: g,
        kinds,
        seating: Seating::two_players(2, &[0]),
        rules: chess_rules(CastlingStyle::Chess960, false),
        start: Vec::new(),
        start_castling: Vec::new(),
        chess960_number: None,
        fischer_random_notation: false,
        promotion_zone: None,
    })
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
}
