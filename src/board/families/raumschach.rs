//! Raumschach (Ferdinand Maack, 1907): the 5x5x5 game, the oldest 3-D
//! chess with surviving rules, as published by Dickins ("A Guide to Fairy
//! Chess") and Pritchard ("The Encyclopedia of Chess Variants"); the
//! decisions where sources differ are in docs/variants.md.
//!
//! Cells are named as Raumschach players write them: level `A`…`E`
//! (bottom to top), file `a`…`e`, rank `1`…`5`, e.g. `Cc3`.

use crate::board::castling::CastlingStyle;
use crate::board::geometry::{Geometry, Naming, Shape};
use crate::board::piece::{PawnRule, PieceKind, knight_offsets, piece, slide_dirs, step_offsets};
use crate::board::registry::{Family, PgnName};
use crate::board::seating::{BySeat, Seat, Seating};
use crate::board::variant::{Rules, StalemateRule, VariantDef, VariantError};

use super::letter_kind;

/// Raumschach.
pub const RAUMSCHACH: Family = Family {
    name: "raumschach",
    aliases: &["raum", "spacechess"],
    summary: "Raumschach (Maack 1907): 5x5x5, unicorns, pawns forward or up, no castling",
    params: &[],
    build: |_| raumschach(),
    xboard: None,
    pgn: PgnName::Spec,
    examples: &["raumschach"],
};

/// Edge length of the Raumschach cube.
const EDGE: usize = 5;

fn raumschach() -> Result<VariantDef, VariantError> {
    let g = Geometry::new(vec![EDGE; 3], vec![false; 3], Shape::Box, Naming::Layered)?;
    let mut kinds = Vec::new();
    let mut p = PieceKind::new("pawn", 'P');
    // Owner's frame: axis 0 = rank (forward), 1 = file, 2 = level (up for
    // White). A pawn steps forward or up; it captures one step diagonally
    // forward or diagonally up: forward or up together with a sideways
    // step along the file, or forward and up at once.
    p.pawn = Some(PawnRule {
        pushes: vec![vec![1, 0, 0], vec![0, 0, 1]],
        captures: vec![
            vec![1, -1, 0],
            vec![1, 1, 0],
            vec![0, -1, 1],
            vec![0, 1, 1],
            vec![1, 0, 1],
        ],
        double_step: false,
    });
    kinds.push(p);
    let mut nk = PieceKind::new("knight", 'N');
    nk.leaps = knight_offsets(3);
    kinds.push(nk);
    let mut b = PieceKind::new("bishop", 'B');
    b.slides = slide_dirs(&g, 2);
    kinds.push(b);
    let mut u = PieceKind::new("unicorn", 'U');
    u.slides = slide_dirs(&g, 3);
    kinds.push(u);
    let mut r = PieceKind::new("rook", 'R');
    r.slides = slide_dirs(&g, 1);
    kinds.push(r);
    let mut q = PieceKind::new("queen", 'Q');
    q.slides = slide_dirs(&g, 0);
    kinds.push(q);
    let mut k = PieceKind::new("king", 'K');
    k.leaps = step_offsets(&g, 1, 3);
    k.royal = true;
    kinds.push(k);
    // White on levels A and B; Black is the point reflection through the
    // centre (so each side has its bishops to the left of its unicorns,
    // as Dickins gives it).
    let white = [
        ("Aa1", 'R'),
        ("Ab1", 'N'),
        ("Ac1", 'K'),
        ("Ad1", 'N'),
        ("Ae1", 'R'),
        ("Ba1", 'B'),
        ("Bb1", 'U'),
        ("Bc1", 'Q'),
        ("Bd1", 'B'),
        ("Be1", 'U'),
    ];
    let mut start = Vec::new();
    let edge = EDGE as i32 - 1;
    let mut place = |c: usize, letter: char| {
        let kind = letter_kind(&kinds, letter);
        start.push((c, piece(Seat::new(0), kind)));
        let x: Vec<i32> = g.coords(c).iter().map(|&v| edge - v as i32).collect();
        let mirror = g
            .cell_at(&x)
            .expect("invariant: the reflection of a cell is a cell");
        start.push((mirror, piece(Seat::new(1), kind)));
    };
    for (name, letter) in white {
        place(
            g.parse_cell(name)
                .expect("invariant: Raumschach cell names"),
            letter,
        );
    }
    for level in 0..2 {
        for file in 0..EDGE as i32 {
            place(g.cell_at(&[1, file, level]).expect("on board"), 'P');
        }
    }
    // Promotion on the far rank of the far level: White on rank 5 of level
    // E, Black on rank 1 of level A.
    let zone = |rank: i32, level: i32| {
        (0..EDGE as i32)
            .map(|f| g.cell_at(&[rank, f, level]).expect("on board"))
            .collect()
    };
    let promotion_zone = Some(BySeat::from_vec(vec![zone(edge, edge), zone(0, 0)]));
    Ok(VariantDef {
        name: "raumschach".into(),
        spec: "raumschach".into(),
        seating: Seating::two_players(3, &[0, 2]),
        geometry: g,
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
        promotion_zone,
    })
}
