//! The bitboard fast path (`movegen64`, boards of at most 64 cells) must
//! produce exactly the moves of the generic generator, which is itself checked
//! against the reference generator and published perft tables.

use ndchess::board::variant::Variant;
use ndchess::rules::movegen::{Scratch, count_moves, generate, generate_generic};
use ndchess::rules::position::{Move, Position};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

fn sorted(mut v: Vec<Move>) -> Vec<Move> {
    v.sort();
    v
}

/// Random playouts comparing both generators (and the counting sink) at
/// every ply.
fn compare_playouts(spec: &str, games: usize, plies: usize, seed: u64) -> usize {
    let v = Variant::from_spec(spec).unwrap();
    assert!(v.board64.is_some(), "{spec} should use the fast path");
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut s = Scratch::new(v.geometry.cell_count());
    let (mut fast, mut generic, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
    let mut compared = 0;
    for _ in 0..games {
        let mut pos = Position::start(&v);
        for _ in 0..plies {
            generate(&pos, &mut s, &mut fast);
            generate_generic(&pos, &mut s, &mut generic);
            assert_eq!(
                sorted(fast.clone()),
                sorted(generic.clone()),
                "{spec}: {}",
                pos.to_text()
            );
            assert_eq!(count_moves(&pos, &mut s, &mut scratch), fast.len());
            compared += 1;
            if fast.is_empty() {
                break;
            }
            let m = fast[rng.random_range(0..fast.len())];
            pos.make(m);
        }
    }
    compared
}

#[test]
fn chess_fast_path_agrees_with_generic() {
    assert!(compare_playouts("chess", 300, 150, 1) > 10_000);
}

#[test]
fn chess960_fast_path_agrees_with_generic() {
    for sp in [0, 1, 100, 518, 777, 959] {
        compare_playouts(&format!("chess960:sp={sp}"), 50, 150, sp as u64);
    }
}

#[test]
fn cylinder_fast_path_agrees_with_generic() {
    compare_playouts("cylinder", 200, 150, 7);
    compare_playouts("cylinder:wrapcastling=0", 50, 150, 8);
}

#[test]
fn cube_fast_path_agrees_with_generic() {
    compare_playouts("cube", 300, 150, 9);
}

#[test]
fn tricky_positions_agree() {
    // Positions from perft/tricky.epd (chessprogramming wiki): pins, checks,
    // en passant along the king's rank, promotions.
    let v = Variant::from_spec("chess").unwrap();
    let mut s = Scratch::new(64);
    for fen in [
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",
        "1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    ] {
        let pos = Position::from_text(&v, fen).unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        generate(&pos, &mut s, &mut a);
        generate_generic(&pos, &mut s, &mut b);
        assert_eq!(sorted(a), sorted(b), "{fen}");
    }
}
