//! The bitboard backend (`movegen::fast64`, boards of at most 64 cells) must
//! produce exactly the moves of the generic backend, which is itself checked
//! against the reference generator and published perft tables; and on
//! every board the captures and the quiet moves generated apart must make
//! up the whole list.

use ndchess::board::variant::Variant;
use ndchess::rules::movegen::{GenType, MoveGen};
use ndchess::rules::moves::Move;
use ndchess::rules::position::Position;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

fn sorted(mut v: Vec<Move>) -> Vec<Move> {
    v.sort();
    v
}

/// The moves of the seat to move by the generic backend.
fn generic(g: &mut MoveGen, pos: &Position) -> Vec<Move> {
    let mut out = Vec::new();
    g.generate_generic_for(pos, pos.to_move(), GenType::All, &mut out);
    out
}

/// The captures and the quiet moves, generated apart, joined.
fn split(g: &mut MoveGen, pos: &Position) -> Vec<Move> {
    let (mut captures, mut quiets) = (Vec::new(), Vec::new());
    g.generate_kind(pos, GenType::Captures, &mut captures);
    g.generate_kind(pos, GenType::Quiets, &mut quiets);
    assert!(
        quiets.iter().all(|m| !captures.contains(m)),
        "a move generated twice in {}",
        pos.to_text()
    );
    captures.extend(quiets);
    captures
}

/// Random playouts comparing both backends (and the counting sink, and the
/// split generation) at every ply.
fn compare_playouts(spec: &str, games: usize, plies: usize, seed: u64) -> usize {
    let v = Variant::from_spec(spec).unwrap();
    let mut g = MoveGen::new(&v);
    assert!(g.uses_fast_path(), "{spec} should use the fast path");
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mut fast, mut scratch) = (Vec::new(), Vec::new());
    let mut compared = 0;
    for _ in 0..games {
        let mut pos = Position::start(&v);
        for _ in 0..plies {
            g.generate(&pos, &mut fast);
            assert_eq!(
                sorted(fast.clone()),
                sorted(generic(&mut g, &pos)),
                "{spec}: {}",
                pos.to_text()
            );
            assert_eq!(
                sorted(split(&mut g, &pos)),
                sorted(fast.clone()),
                "{}",
                pos.to_text()
            );
            assert_eq!(g.count(&pos, &mut scratch), fast.len());
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
    let mut g = MoveGen::new(&v);
    for fen in [
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",
        "1b1k4/8/8/1rPpK3/8/8/8/8 w - d6 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    ] {
        let pos = Position::from_text(&v, fen).unwrap();
        let mut a = Vec::new();
        g.generate(&pos, &mut a);
        assert_eq!(sorted(a.clone()), sorted(generic(&mut g, &pos)), "{fen}");
        assert_eq!(sorted(a), sorted(split(&mut g, &pos)), "{fen}");
    }
}

#[test]
fn captures_and_quiet_moves_make_up_the_list_on_every_board() {
    // The generic backend's boards (more than 64 cells) along random games.
    for spec in [
        "torus",
        "diamond:n=3",
        "cylinder-diamond:n=3",
        "diamond:n=4",
    ] {
        let v = Variant::from_spec(spec).unwrap();
        let mut g = MoveGen::new(&v);
        let mut rng = SmallRng::seed_from_u64(5);
        let mut all = Vec::new();
        for _ in 0..10 {
            let mut pos = Position::start(&v);
            for _ in 0..80 {
                g.generate(&pos, &mut all);
                assert_eq!(sorted(split(&mut g, &pos)), sorted(all.clone()), "{spec}");
                if all.is_empty() {
                    break;
                }
                pos.make(all[rng.random_range(0..all.len())]);
            }
        }
    }
}
