//! Schach hoch 3 (seed 001): the 4x4x4 cube with its short-range pieces,
//! pawns moving forward or up, and the stalemate that loses.

use crate::board::castling::CastlingStyle;
use crate::board::geometry::{Geometry, Naming, Shape};
use crate::board::piece::{PawnRule, PieceKind, knight_offsets, piece, slide_dirs, step_offsets};
use crate::board::registry::{Family, PgnName};
use crate::board::seating::{BySeat, Seat, Seating};
use crate::board::variant::{Rules, StalemateRule, VariantDef, VariantError};

use super::letter_kind;

/// The cube.
pub const CUBE: Family = Family {
    name: "cube",
    aliases: &["schach3"],
    summary: "Schach hoch 3, the 4x4x4 cube: short-range pieces, stalemate wins 3/4-1/4",
    params: &[],
    build: |_| cube(),
    xboard: None,
    pgn: PgnName::Spec,
    examples: &["cube"],
};

fn cube() -> Result<VariantDef, VariantError> {
    let g = Geometry::new(vec![4, 4, 4], vec![false; 3], Shape::Box, Naming::Cube)?;
    let mut kinds = Vec::new();
    let mut p = PieceKind::new("pawn", 'P');
    // Owner's frame: axis 0 = rank (forward), 1 = file, 2 = level (up).
    p.pawn = Some(PawnRule {
        pushes: vec![vec![1, 0, 0], vec![0, 0, 1]],
        captures: vec![vec![1, -1, 0], vec![1, 1, 0], vec![0, -1, 1], vec![0, 1, 1]],
        double_step: false,
    });
    kinds.push(p);
    let mut nk = PieceKind::new("knight", 'N');
    nk.leaps = knight_offsets(3);
    kinds.push(nk);
    let mut b = PieceKind::new("bishop", 'B');
    b.leaps = step_offsets(&g, 2, 2);
    kinds.push(b);
    let mut r = PieceKind::new("rook", 'R');
    r.slides = slide_dirs(&g, 1);
    kinds.push(r);
    let mut q = PieceKind::new("queen", 'Q');
    q.leaps = step_offsets(&g, 1, 2);
    kinds.push(q);
    let mut k = PieceKind::new("king", 'K');
    k.leaps = step_offsets(&g, 1, 1);
    k.royal = true;
    kinds.push(k);
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
        let k = letter_kind(&kinds, letter);
        start.push((c, piece(Seat::new(0), k)));
        // Black: the point reflection through the cube's centre.
        let x: Vec<i32> = g.coords(c).iter().map(|&v| 3 - v as i32).collect();
        start.push((g.cell_at(&x).expect("on board"), piece(Seat::new(1), k)));
    }
    let zone = |rank: i32, level: i32| {
        (0..4)
            .map(|f| g.cell_at(&[rank, f, level]).expect("on board"))
            .collect()
    };
    let promotion_zone = Some(BySeat::from_vec(vec![zone(3, 3), zone(0, 0)]));
    Ok(VariantDef {
        name: "cube".into(),
        spec: "cube".into(),
        seating: Seating::two_players(3, &[0, 2]),
        geometry: g,
        kinds,
        rules: Rules {
            castling: CastlingStyle::None,
            en_passant: false,
            fifty_move: false,
            stalemate: StalemateRule::StalematedLoses,
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
