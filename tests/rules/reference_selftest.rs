//! Self-tests of the reference move generator (`tests/reference/`), against
//! published numbers and the facts stated in RULES.md and the seeds, so that
//! an agreement between it and the fast engine means something.
//!
//! These tests use no code from `src/`.

use crate::reference;
use crate::reference_agreement::Rng;
use reference::{
    Kind, MAX_DIM, Move, Piece, Position, Special, Variant, chess960_back_rank, cube_cell,
};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Every variant spec the agreement tests cover.
const SPECS: &[&str] = &[
    "chess",
    "chess960:sp=0",
    "chess960:sp=518",
    "chess960:sp=959",
    "cylinder",
    "torus",
    "diamond:n=3,l=8",
    "diamond:n=4,l=8",
    "diamond:n=3,l=10",
    "diamond:n=3,l=8,setup=8.3",
    "diamond:n=4,l=8,setup=8.3",
    "diamond:n=5,l=8,setup=8.3",
    "diamond:n=3,l=10,setup=8.3",
    "cylinder-diamond:n=3,l=8",
    "cube",
];

fn variant(spec: &str) -> Arc<Variant> {
    Variant::from_spec(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// Reads the `;Dn` counts of an EPD line, (fen, [(depth, nodes)]).
fn epd_line(line: &str) -> (String, Vec<(u32, u64)>) {
    let mut parts = line.split(';');
    let fen = parts.next().expect("fen").trim().to_string();
    let counts = parts
        .filter_map(|p| {
            let p = p.trim();
            let (tag, value) = p.split_once(' ')?;
            let depth = tag.strip_prefix('D')?.parse().ok()?;
            Some((depth, value.trim().parse().ok()?))
        })
        .collect();
    (fen, counts)
}

fn epd_lines(file: &str) -> Vec<(String, Vec<(u32, u64)>)> {
    let path = format!("{}/perft/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(epd_line)
        .collect()
}

/// Published start-position perft of classical chess (chessprogramming wiki
/// "Perft Results", also `perft/standard.epd`).
#[test]
fn chess_start_perft_matches_published() {
    let pos = Position::start(&variant("chess"));
    for (depth, nodes) in [(1, 20), (2, 400), (3, 8902), (4, 197281)] {
        assert_eq!(pos.perft(depth), nodes, "depth {depth}");
    }
}

/// The published classical test positions (`perft/standard.epd`),
/// covering castling, en passant, promotion and pins, to depth 3.
#[test]
fn chess_published_positions() {
    let v = variant("chess");
    for (fen, counts) in epd_lines("standard.epd")
        .iter()
        .chain(&epd_lines("tricky.epd"))
    {
        let pos = Position::from_fen(&v, fen).unwrap();
        for &(depth, nodes) in counts.iter().filter(|(d, _)| *d <= 3) {
            assert_eq!(pos.perft(depth), nodes, "{fen} depth {depth}");
        }
    }
}

/// Published Chess960 positions with awkward castlings
/// (`perft/tricky-chess960.epd`), to depth 3.
#[test]
fn chess960_tricky_positions() {
    let v = variant("chess960:sp=518");
    for (fen, counts) in epd_lines("tricky-chess960.epd") {
        let pos = Position::from_fen(&v, &fen).unwrap();
        for &(depth, nodes) in counts.iter().filter(|(d, _)| *d <= 3) {
            assert_eq!(pos.perft(depth), nodes, "{fen} depth {depth}");
        }
    }
}

/// The Scharnagl numbering agrees with the published table of all 960
/// start positions (`perft/chess960-start.epd`, line k = position k),
/// and so do perft 1 and 2 from each (perft 3 from every 37th).
#[test]
fn chess960_numbering_and_perft_match_published() {
    let lines = epd_lines("chess960-start.epd");
    assert_eq!(lines.len(), 960);
    for (sp, (fen, counts)) in lines.iter().enumerate() {
        let letters: String = chess960_back_rank(sp)
            .iter()
            .map(|k| Kind::letter(*k, 0))
            .collect();
        let published = fen
            .split('/')
            .next_back()
            .unwrap()
            .split(' ')
            .next()
            .unwrap();
        assert_eq!(letters, published, "sp={sp}");
        let pos = Position::start(&variant(&format!("chess960:sp={sp}")));
        let max_depth = if sp % 37 == 0 { 3 } else { 2 };
        for &(depth, nodes) in counts.iter().filter(|(d, _)| *d <= max_depth) {
            assert_eq!(pos.perft(depth), nodes, "sp={sp} depth {depth}");
        }
    }
    // Seed 003's own examples: 518 is the classical array, 0 is BBQNNRKR,
    // "TLLKSSDT" (RBBKNNQR) is 740.
    let name = |sp| {
        chess960_back_rank(sp)
            .iter()
            .map(|k| k.letter(0))
            .collect::<String>()
    };
    assert_eq!(name(518), "RNBQKBNR");
    assert_eq!(name(0), "BBQNNRKR");
    assert_eq!(name(740), "RBBKNNQR");
}

/// Cell counts stated in RULES §2.5 and §2.4 (256, 1056, 3872; torus 112).
#[test]
fn board_sizes() {
    assert_eq!(variant("diamond:n=3,l=8").cells().len(), 256);
    assert_eq!(variant("diamond:n=4,l=8").cells().len(), 1056);
    assert_eq!(variant("diamond:n=5,l=8,setup=8.3").cells().len(), 3872);
    assert_eq!(variant("torus").cells().len(), 112);
    assert_eq!(variant("cube").cells().len(), 64);
}

/// Diamond setups: white's pieces fill the face x1 = 0, which has n·2^(n-1)
/// cells for any l (seed 000, 8.1), with a pawn in front of each; black
/// mirrors them. Table 8.2 has 32 pieces (RULES §2.5).
#[test]
fn diamond_setups_fill_the_face() {
    for spec in SPECS.iter().filter(|s| s.contains("diamond")) {
        let v = variant(spec);
        let n = v.dim();
        let l = v.lens[0];
        let face: Vec<usize> = v
            .cells()
            .into_iter()
            .filter(|&c| v.coords(c)[0] == 0)
            .collect();
        assert_eq!(face.len(), n << (n - 1), "{spec}");
        for &cell in &face {
            let piece = v
                .start
                .get(&cell)
                .unwrap_or_else(|| panic!("{spec}: face cell empty"));
            assert_eq!(piece.owner, 0);
            assert!(!matches!(piece.kind, Kind::Pawn(_)));
            let mut c = v.coords(cell);
            c[0] = 1;
            assert_eq!(
                v.start[&v.cell(&c).unwrap()],
                Piece {
                    owner: 0,
                    kind: Kind::Pawn(1)
                },
                "{spec}"
            );
            c[0] = l - 1;
            assert_eq!(
                v.start[&v.cell(&c).unwrap()],
                Piece {
                    owner: 1,
                    kind: piece.kind
                },
                "{spec}"
            );
            c[0] = l - 2;
            assert_eq!(
                v.start[&v.cell(&c).unwrap()],
                Piece {
                    owner: 1,
                    kind: Kind::Pawn(-1)
                },
                "{spec}"
            );
        }
        assert_eq!(v.start.len(), 4 * face.len(), "{spec}");
    }
    // Table 8.1 moved to l = 10 keeps the king at "Dd1" + (1, 1) on axes 2, 3.
    let v = variant("diamond:n=3,l=10");
    let king = v
        .start
        .iter()
        .find(|(_, p)| p.kind == Kind::King && p.owner == 0)
        .unwrap()
        .0;
    assert_eq!(v.coords_vec(*king), vec![0, 4, 4]);
}

/// Table 8.3 for n = 4 (RULES §2.5): king, queen, rooks where some x_i = c
/// for i >= 4, knights on x3 = c, and (n-1)·2^(n-1) bishops of dimensions 2..n.
#[test]
fn table_8_3_piece_counts() {
    for (n, rooks) in [(3usize, 0usize), (4, 2), (5, 6)] {
        let v = variant(&format!("diamond:n={n},l=8,setup=8.3"));
        let count = |kind| {
            v.start
                .values()
                .filter(|p| p.owner == 0 && p.kind == kind)
                .count()
        };
        assert_eq!(count(Kind::King), 1);
        assert_eq!(count(Kind::Queen), 1);
        assert_eq!(count(Kind::Rook), rooks, "n={n}");
        assert_eq!(count(Kind::Knight), 1 << (n - 2), "n={n}");
        for k in 2..=n {
            assert_eq!(count(Kind::Bishop(k)), 1 << (n - 1), "n={n}, L^{k}");
        }
    }
}

/// T4.2 "Bedrohungsfreiheitsaxiom": in every start position no piece
/// attacks an enemy piece (RULES §1, "Check every setup against the T4.2
/// axioms").
#[test]
fn start_positions_are_threat_free() {
    for spec in SPECS {
        let pos = Position::start(&variant(spec));
        for (&from, &piece) in &pos.board {
            for (&to, other) in &pos.board {
                if other.owner != piece.owner {
                    assert!(
                        !pos.attacks(from, piece, to),
                        "{spec}: {piece:?} on {from} attacks {to}"
                    );
                }
            }
        }
    }
}

/// The fast way the reference asks whether a cell is attacked where every
/// axis wraps (walking from the cell) agrees with the definition
/// (asking every piece whether it attacks the cell) on every cell, for
/// both sides, along random games on every board where it applies (not
/// the double diamond, not finite chess).
#[test]
fn attacked_from_the_target_agrees_with_asking_every_piece() {
    let specs = SPECS.iter().copied().chain([
        "torus-diamond:n=3,l=8",
        "torus-diamond:n=3,l=8,setup=8.3",
        "torus-diamond:n=4,l=8",
        "raumschach",
    ]);
    let mut rng = Rng(2026);
    let mut checked = 0;
    for spec in specs {
        let v = variant(spec);
        let cells = v.cells();
        for _game in 0..2 {
            let mut pos = Position::start(&v);
            for ply in 0..40 {
                if ply % 13 == 0 {
                    for &cell in &cells {
                        for by in 0..2 {
                            assert_eq!(
                                pos.attacked_from_target(cell, by),
                                pos.attacked_by_any_piece(cell, by),
                                "{spec}: cell {cell} by {by} after {ply} plies"
                            );
                            checked += 1;
                        }
                    }
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                pos.make(moves[rng.below(moves.len())]);
            }
        }
    }
    println!("{checked} questions asked both ways");
    assert!(checked > 50_000, "{checked}");
}

/// Seed 001's mobility numbers for the empty cube: totals over all 64 cells
/// king 288 (4.5 avg), queen 720 (11.25), rook 576 (9), knight 576 (9),
/// bishop 432 (6.75 over its 32 cells, both colours together), white pawn
/// 170 over its 44 cells (rank >= 2, not its promotion cells).
#[test]
fn cube_mobility_matches_seed() {
    let v = variant("cube");
    let total = |kind| -> usize {
        v.cells()
            .into_iter()
            .map(|c| v.empty_board_targets(c, Piece { owner: 0, kind }).len())
            .sum()
    };
    assert_eq!(total(Kind::King), 288);
    assert_eq!(total(Kind::Queen), 720);
    assert_eq!(total(Kind::Rook), 576);
    assert_eq!(total(Kind::Knight), 576);
    assert_eq!(total(Kind::Bishop(2)), 432);
    let pawn_cells: Vec<usize> = v
        .cells()
        .into_iter()
        .filter(|&c| v.coords(c)[0] >= 1 && !v.promotion_cells[0].contains(&c))
        .collect();
    assert_eq!(pawn_cells.len(), 44);
    let pawn: usize = pawn_cells
        .iter()
        .map(|&c| {
            v.empty_board_targets(
                c,
                Piece {
                    owner: 0,
                    kind: Kind::Pawn(1),
                },
            )
            .len()
        })
        .sum();
    assert_eq!(pawn, 170);
}

/// The cube start position (RULES §2.10) in the seed's square names.
#[test]
fn cube_start_position() {
    let v = variant("cube");
    let at = |name: &str| v.start[&v.cell(&cube_cell(name)).unwrap()];
    assert_eq!(
        at("c1a"),
        Piece {
            owner: 0,
            kind: Kind::King
        }
    );
    assert_eq!(
        at("b4d"),
        Piece {
            owner: 1,
            kind: Kind::King
        }
    );
    assert_eq!(
        at("c4d"),
        Piece {
            owner: 1,
            kind: Kind::Queen
        }
    );
    assert_eq!(
        at("d3d"),
        Piece {
            owner: 1,
            kind: Kind::Pawn(-1)
        }
    );
    assert_eq!(v.start.len(), 24);
    // Promotion: white only on rank 4 of level δ, black on rank 1 of level α.
    let promo: Vec<Vec<i32>> = v.promotion_cells[0]
        .iter()
        .map(|&c| v.coords_vec(c))
        .collect();
    assert_eq!(
        promo,
        vec![vec![3, 0, 3], vec![3, 1, 3], vec![3, 2, 3], vec![3, 3, 3]]
    );
    // No double steps in the cube.
    let pos = Position::start(&v);
    assert!(
        pos.legal_moves()
            .iter()
            .all(|m| !matches!(m.special, Special::DoubleStep { .. }))
    );
}

/// Torus (RULES §2.4): 32 pawns, pawns of both directions for each player,
/// and the four cylinder castlings become available once the back rank is
/// empty between king and rooks.
#[test]
fn torus_and_cylinder_castlings() {
    let v = variant("torus");
    let pawns = v
        .start
        .values()
        .filter(|p| matches!(p.kind, Kind::Pawn(_)))
        .count();
    assert_eq!(pawns, 32);
    let letters: BTreeSet<(usize, char)> = v
        .start
        .values()
        .map(|p| (p.owner, p.kind.letter(p.owner)))
        .collect();
    assert!(letters.contains(&(0, 'U')) && letters.contains(&(1, 'U')));

    for spec in ["cylinder", "torus"] {
        let v = variant(spec);
        let mut pos = Position::start(&v);
        // Clear white's back rank but king and a-rook: round the back
        // (a1-h1-g1-f1, Kg1) and the long castling are both possible.
        let cell = |rank, file| {
            let mut c = [0; MAX_DIM];
            c[0] = rank;
            c[1] = file;
            v.cell(&c).unwrap()
        };
        for file in [1, 2, 3, 5, 6, 7] {
            pos.board.remove(&cell(0, file));
        }
        let castles: BTreeSet<(Vec<i32>, Option<Vec<i32>>)> = pos
            .legal_moves()
            .iter()
            .filter(|m| matches!(m.special, Special::Castle { .. }))
            .map(|m| {
                let k = pos.key(m);
                (k.1, k.3)
            })
            .collect();
        let expected: BTreeSet<_> = [
            (vec![0, 6], Some(vec![0, 0])),
            (vec![0, 2], Some(vec![0, 0])),
        ]
        .into();
        assert_eq!(castles, expected, "{spec}");
        // With only the h-rook: classical short and round the back to c1.
        pos.board.remove(&cell(0, 0));
        pos.board.insert(
            cell(0, 7),
            Piece {
                owner: 0,
                kind: Kind::Rook,
            },
        );
        let mut targets: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| matches!(m.special, Special::Castle { .. }))
            .collect();
        targets.sort();
        let dests: Vec<Vec<i32>> = targets.iter().map(|m| pos.key(m).1).collect();
        assert_eq!(dests, vec![vec![0, 2], vec![0, 6]], "{spec}");
    }
}

/// Reference perft numbers of the variants, printed for the record with
/// their run time (they have no published source; the agreement tests
/// compare them with the fast engine). `REF_SPEC` picks one spec,
/// `REF_DEPTH` the depth (default 3).
#[test]
#[ignore]
fn print_reference_perft() {
    let only = std::env::var("REF_SPEC").ok();
    let depth = std::env::var("REF_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(3);
    for spec in SPECS
        .iter()
        .filter(|s| only.as_deref().is_none_or(|o| o == **s))
    {
        let pos = Position::start(&variant(spec));
        let start = std::time::Instant::now();
        let counts: Vec<u64> = (1..=depth).map(|d| pos.perft(d)).collect();
        println!("{spec}: {counts:?} ({:?})", start.elapsed());
    }
}
