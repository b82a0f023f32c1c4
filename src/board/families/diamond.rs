//! Diamond chess in n dimensions (T8.1–T8.4) and the cylinder-diamond
//! (T8.7.1), with the seed's three start tables.

use crate::board::castling::CastlingStyle;
use crate::board::geometry::{Cell, Geometry, Naming, Shape};
use crate::board::piece::{
    BISHOP_LETTERS, Piece, PieceKind, knight_offsets, piece, reverse_theory_pawn, slide_dirs,
    step_offsets, theory_pawn,
};
use crate::board::registry::{Family, Param, ParamDefault, ParamKind, PgnName, Values};
use crate::board::seating::{Seat, Seating};
use crate::board::variant::{Rules, StalemateRule, VariantDef, VariantError};

use super::letter_kind;
use super::multiparty::PartySpec;

/// `n`: the dimension.
pub static DIMENSION: Param = Param {
    key: "n",
    doc: "number of axes",
    kind: ParamKind::Int {
        min: 3,
        max: 6,
        step: 1,
    },
    default: ParamDefault::Value("3"),
    option: "Dimension",
};

/// `l`: the edge length.
pub static EDGE: Param = Param {
    key: "l",
    doc: "cells per axis (even)",
    kind: ParamKind::Int {
        min: 8,
        max: 26,
        step: 2,
    },
    default: ParamDefault::Value("8"),
    option: "EdgeLength",
};

/// `setup`: the start table.
pub static SETUP: Param = Param {
    key: "setup",
    doc: "the seed's start table: 8.1 (n=3), 8.2 (n=4), 8.3 (any n)",
    kind: ParamKind::Choice(&["8.1", "8.2", "8.3"]),
    default: ParamDefault::Auto("8.1 for n=3, 8.2 for n=4, else 8.3"),
    option: "DiamondSetup",
};

/// The parameters of the diamonds that seat more than two players: the
/// board's, then the multi-party ones ([`super::multiparty`]).
const PARTY_DIAMOND_PARAMS: &[&str] = &[
    "n",
    "l",
    "setup",
    "players",
    "mode",
    "end",
    "dead",
    "order",
    "selfcapture",
    "cross",
];

/// Diamond chess.
pub const DIAMOND: Family = Family {
    name: "diamond",
    aliases: &[],
    summary: "the n-D diamond (T8.1-T8.4), for 2 to 2n players (T8.6)",
    params: PARTY_DIAMOND_PARAMS,
    build: |p| diamond(p, false),
    xboard: None,
    pgn: PgnName::Spec,
    examples: &[
        "diamond:n=3",
        "diamond:n=3,setup=8.3",
        "diamond:n=4",
        "diamond:n=4,setup=8.3",
        "diamond:n=5",
        "diamond:n=3,l=10",
        "diamond:n=3,l=10,players=6",
        "diamond:n=3,l=10,players=4,mode=coalition",
        "diamond:n=3,l=8,players=6,mode=independent",
        "diamond:n=4,l=10,players=8",
    ],
};

/// Cylinder-diamond chess.
pub const CYLINDER_DIAMOND: Family = Family {
    name: "cylinder-diamond",
    aliases: &[],
    summary: "the diamond with axes 2..n wrapping (T8.7.1), for 2 to 2n players",
    params: PARTY_DIAMOND_PARAMS,
    build: |p| diamond(p, true),
    xboard: None,
    pgn: PgnName::Spec,
    examples: &[
        "cylinder-diamond:n=3",
        "cylinder-diamond:n=3,l=10,players=4",
    ],
};

/// Torus-diamond chess.
pub const TORUS_DIAMOND: Family = Family {
    name: "torus-diamond",
    aliases: &[],
    summary: "the cylinder-diamond doubled along axis 1, every axis wraps (T8.7.2)",
    params: &["n", "l", "setup"],
    build: torus_diamond,
    xboard: None,
    pgn: PgnName::Spec,
    examples: &["torus-diamond:n=3"],
};

/// Double-diamond chess.
pub const DOUBLE_DIAMOND: Family = Family {
    name: "double-diamond",
    aliases: &[],
    summary: "two diamonds glued at their faces, not directed (T8.7.3), for 2 to 2n players (T8.7.4)",
    params: PARTY_DIAMOND_PARAMS,
    build: double_diamond,
    xboard: None,
    pgn: PgnName::Spec,
    examples: &[
        "double-diamond:n=3",
        "double-diamond:n=4",
        "double-diamond:n=3,l=10,players=6",
    ],
};

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

/// Piece kinds of n-D diamond chess: P, N, R, L²…Lⁿ, Q, K.
pub(crate) fn diamond_kinds(g: &Geometry, n: usize) -> Vec<PieceKind> {
    let mut kinds = Vec::new();
    let mut p = PieceKind::new("pawn", 'P');
    p.pawn = Some(theory_pawn(n));
    kinds.push(p);
    let mut nk = PieceKind::new("knight", 'N');
    nk.leaps = knight_offsets(n);
    kinds.push(nk);
    let mut r = PieceKind::new("rook", 'R');
    r.slides = slide_dirs(g, 1);
    kinds.push(r);
    for k in 2..=n {
        let name = if k == 2 {
            "bishop".to_string()
        } else {
            format!("{k}-D bishop")
        };
        let mut b = PieceKind::new(&name, BISHOP_LETTERS[k - 2]);
        b.slides = slide_dirs(g, k);
        kinds.push(b);
    }
    let mut q = PieceKind::new("queen", 'Q');
    q.slides = slide_dirs(g, 0);
    kinds.push(q);
    let mut k = PieceKind::new("king", 'K');
    k.leaps = step_offsets(g, 1, n);
    k.royal = true;
    kinds.push(k);
    kinds
}

/// The start table the parameters select.
fn setup_of(p: &Values, n: usize) -> Result<DiamondSetup, VariantError> {
    Ok(match p.word("setup") {
        None => match n {
            3 => DiamondSetup::T81,
            4 => DiamondSetup::T82,
            _ => DiamondSetup::T83,
        },
        Some("8.1") if n == 3 => DiamondSetup::T81,
        Some("8.2") if n == 4 => DiamondSetup::T82,
        Some("8.3") => DiamondSetup::T83,
        Some(_) => return Err(p.refuse("setup", "8.3, or 8.1 for n=3, or 8.2 for n=4")),
    })
}

fn setup_name(setup: DiamondSetup) -> &'static str {
    match setup {
        DiamondSetup::T81 => "8.1",
        DiamondSetup::T82 => "8.2",
        DiamondSetup::T83 => "8.3",
    }
}

/// The definition of a two-player board under the diamonds' rules (no
/// castling, en passant, the 50-move rule, stalemate a draw, promotion by
/// T4.8): the diamond families and finite chess differ only in board,
/// kinds and start.
pub(crate) fn diamond_rules_def(
    name: &str,
    spec: String,
    geometry: Geometry,
    kinds: Vec<PieceKind>,
    start: Vec<(Cell, Piece)>,
) -> VariantDef {
    let n = geometry.dims();
    VariantDef {
        name: name.into(),
        spec,
        geometry,
        kinds,
        seating: Seating::two_players(n, &[0]),
        rules: Rules {
            castling: CastlingStyle::None,
            en_passant: true,
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
    }
}

fn diamond(p: &Values, cylinder: bool) -> Result<VariantDef, VariantError> {
    let n = p.int("n").unwrap_or(3) as usize;
    let l = p.int("l").unwrap_or(8) as usize;
    let setup = setup_of(p, n)?;
    let party = PartySpec::of(p, n, l)?;
    // T8.7.1: the cylinder makes the faces without armies neighbours; with
    // more players those are the faces of the axes after the players'
    // (axes 1..P/2 carry armies).
    let first_free_axis = party.map_or(1, |q| q.players / 2);
    let wraps: Vec<bool> = (0..n).map(|a| cylinder && a >= first_free_axis).collect();
    let g = Geometry::new(vec![l; n], wraps, Shape::Diamond, Naming::Layered)?;
    let kinds = diamond_kinds(&g, n);
    let white = white_pieces(&g, &kinds, n, l, setup);
    let (w, b) = (Seat::new(0), Seat::new(1));
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
            (x, piece(w, *k)),
            (&xb, piece(b, *k)),
            (&pw, piece(w, pawn)),
            (&pb, piece(b, pawn)),
        ] {
            let cell = g
                .cell_at(coords)
                .expect("invariant: setup tables place pieces on the diamond");
            start.push((cell, pc));
        }
    }
    let name = p.family();
    let spec = format!("{name}:n={n},l={l},setup={}", setup_name(setup));
    let two = diamond_rules_def(name, spec, g, kinds, start);
    match party {
        None => Ok(two),
        Some(party) => party.definition(two, name),
    }
}

/// Torus-diamond chess (T8.7.2): the cylinder-diamond's cells with
/// `0 < x1 < l-1` doubled as `x1 -> 2l-2-x1`, axis 1 wrapping with period
/// `2l-2`, every other axis wrapping (`x_k = 0` next to `x_k = l-1`). The
/// start is the diamond's, with the pawns doubled as in torus chess: each
/// side's reverse pawns (`U`) stand on the copy of its pawn rank, behind
/// its pieces across the wrap, and move the other way.
///
/// Two players only (no `players` parameter): only axis 1 is doubled (and
/// its doubled pawns stand behind the pieces across the wrap), so the
/// permutation of the coordinates that seats more players (T8.6) does not
/// map this board onto itself; the seed's multi-party boards are the
/// diamond and the double diamond (T8.7.4).
fn torus_diamond(p: &Values) -> Result<VariantDef, VariantError> {
    let n = p.int("n").unwrap_or(3) as usize;
    let l = p.int("l").unwrap_or(8) as usize;
    let setup = setup_of(p, n)?;
    let period = 2 * l - 2;
    // The diamond of the seed, for the cell condition and the setup tables.
    let base = Geometry::new(vec![l; n], vec![false; n], Shape::Diamond, Naming::Layered)?;
    let mut lens = vec![l; n];
    lens[0] = period;
    let mut cells = Vec::new();
    for c in 0..base.cell_count() {
        let x: Vec<i32> = base.coords(c).iter().map(|&v| v as i32).collect();
        cells.push(x.clone());
        if x[0] > 0 && x[0] < l as i32 - 1 {
            let mut copy = x;
            copy[0] = period as i32 - copy[0];
            cells.push(copy);
        }
    }
    let g = Geometry::with_cells(lens, vec![true; n], Naming::Layered, &cells)?;
    let mut kinds = diamond_kinds(&g, n);
    let mut u = PieceKind::new("reverse pawn", 'U');
    u.pawn = Some(reverse_theory_pawn(n));
    kinds.insert(1, u);
    let white = white_pieces(&base, &kinds, n, l, setup);
    let (pawn, reverse) = (0, 1);
    let start = doubled_start(&g, &white, l, pawn, reverse);
    let spec = format!("torus-diamond:n={n},l={l},setup={}", setup_name(setup));
    Ok(diamond_rules_def("torus-diamond", spec, g, kinds, start))
}

/// Double-diamond chess (T8.7.3): the diamond's cells strictly inside on
/// every axis doubled, the face cells shared (see
/// [`Geometry::double_diamond`]). The pieces stand on the faces `x1 = 0`
/// and `x1 = l-1` as in the diamond (those cells are not doubled); the
/// pawns follow from the first pawn-plane axiom, one in front of each
/// piece in each copy. A pawn moves towards the enemy face in either copy
/// (in the seed's lines of the `-1` copy, which run the other way, that is
/// backwards: the doubled pawns of the torus-diamond), so one pawn kind
/// serves both.
///
/// Multi-party double diamond (T8.7.4): "the same board, the start by the
/// permutation of the coordinates as in T8.6": the armies of the seats
/// come from this start by [`PartySpec::start`], each pawn keeping its
/// copy ([`Geometry::rotate_axes`]).
fn double_diamond(p: &Values) -> Result<VariantDef, VariantError> {
    let n = p.int("n").unwrap_or(3) as usize;
    let l = p.int("l").unwrap_or(8) as usize;
    let setup = setup_of(p, n)?;
    let party = PartySpec::of(p, n, l)?;
    let base = Geometry::new(vec![l; n], vec![false; n], Shape::Diamond, Naming::Layered)?;
    let g = Geometry::double_diamond(n, l, Naming::Layered)?;
    let kinds = diamond_kinds(&g, n);
    let white = white_pieces(&base, &kinds, n, l, setup);
    let pawn = 0;
    let start = doubled_start(&g, &white, l, pawn, pawn);
    let spec = format!("double-diamond:n={n},l={l},setup={}", setup_name(setup));
    let two = diamond_rules_def("double-diamond", spec, g, kinds, start);
    match party {
        None => Ok(two),
        Some(party) => party.definition(two, "double-diamond"),
    }
}

/// The start of a diamond whose cells off the piece faces are doubled at
/// rank `2l-2-x1` (torus- and double diamond): the diamond's pieces on
/// ranks 1 and l, a pawn of kind `pawn` in front of each on ranks 2 and
/// l-1, and its double of kind `copy` on the mirror of that rank.
fn doubled_start(
    g: &Geometry,
    white: &[(Vec<i32>, usize)],
    l: usize,
    pawn: usize,
    copy: usize,
) -> Vec<(Cell, Piece)> {
    let (w, b) = (Seat::new(0), Seat::new(1));
    let last = l as i32 - 1;
    let mirror = |rank: i32| 2 * last - rank;
    let mut start = Vec::new();
    for (x, k) in white {
        let at = |rank: i32| {
            let mut y = x.clone();
            y[0] = rank;
            g.cell_at(&y)
                .expect("invariant: setup cells and their copies are on the board")
        };
        start.push((at(0), piece(w, *k)));
        start.push((at(1), piece(w, pawn)));
        start.push((at(mirror(1)), piece(w, copy)));
        start.push((at(last), piece(b, *k)));
        start.push((at(last - 1), piece(b, pawn)));
        start.push((at(mirror(last - 1)), piece(b, copy)));
    }
    start
}

/// White's non-pawn pieces of a diamond setup as (coords, kind).
fn white_pieces(
    g: &Geometry,
    kinds: &[PieceKind],
    n: usize,
    l: usize,
    setup: DiamondSetup,
) -> Vec<(Vec<i32>, usize)> {
    let shift = (l as i32 - 8) / 2;
    let by_letter = |c: char| letter_kind(kinds, c);
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
