//! The bitboard backend (`movegen::fast64`, boards of at most 128 cells) must
//! produce exactly the moves of the generic backend, which is itself checked
//! against the reference generator and published perft tables; and on
//! every board the captures and the quiet moves generated apart must make
//! up the whole list. The backend's set-wise static exchange must agree
//! with the definition's (`rules::exchange`) on every move.

use ndchess::board::variant::Variant;
use ndchess::rules::exchange;
use ndchess::rules::movegen::{self, GenType, MoveGen};
use ndchess::rules::moves::{Move, MoveKind};
use ndchess::rules::notation::variant_file;
use ndchess::rules::position::Position;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::sync::Arc;

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

/// Calls `at(generator, position, its moves)` at every position of
/// `games` random games of up to `plies` plies from the start of `v`
/// (seeded by `seed`; a game ends early where no move is left).
fn along_random_games(
    v: &Arc<Variant>,
    games: usize,
    plies: usize,
    seed: u64,
    mut at: impl FnMut(&mut MoveGen, &Position, &[Move]),
) {
    let mut g = MoveGen::new(v);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut moves = Vec::new();
    for _ in 0..games {
        let mut pos = Position::start(v);
        for _ in 0..plies {
            g.generate(&pos, &mut moves);
            at(&mut g, &pos, &moves);
            if moves.is_empty() {
                break;
            }
            pos.make(moves[rng.random_range(0..moves.len())]);
        }
    }
}

/// Random playouts comparing both backends (and the counting sink, and the
/// split generation) at every ply.
fn compare_playouts(spec: &str, games: usize, plies: usize, seed: u64) -> usize {
    let v = Variant::from_spec(spec).unwrap();
    let g = MoveGen::new(&v);
    assert!(g.uses_fast_path(), "{spec} should use the fast path");
    compare_variant_playouts(&v, spec, games, plies, seed)
}

/// [`compare_playouts`] for a variant value (`spec` names it in messages).
fn compare_variant_playouts(
    v: &Arc<Variant>,
    spec: &str,
    games: usize,
    plies: usize,
    seed: u64,
) -> usize {
    let mut scratch = Vec::new();
    let mut compared = 0;
    // The exchange by two sets of values: one per kind, all different
    // (the least valuable attacker decides), and one for all (the lower
    // cell decides between equals).
    let exchange_values = [
        (0..v.kinds.len())
            .map(|k| 100 + 70 * k as i32)
            .collect::<Vec<_>>(),
        vec![300; v.kinds.len()],
    ];
    along_random_games(v, games, plies, seed, |g, pos, fast| {
        assert_eq!(
            sorted(fast.to_vec()),
            sorted(generic(g, pos)),
            "{spec}: {}",
            pos.to_text()
        );
        assert_eq!(
            sorted(split(g, pos)),
            sorted(fast.to_vec()),
            "{}",
            pos.to_text()
        );
        assert_eq!(g.count(pos, &mut scratch), fast.len());
        for values in &exchange_values {
            for m in fast {
                let see = exchange::static_exchange(pos, values, m);
                assert_eq!(
                    g.static_exchange(pos, values, m),
                    see,
                    "{spec}: the exchange of {m:?} in {}",
                    pos.to_text()
                );
                // The exchange stopped once its captures decide a
                // threshold answers as the whole exchange does, on both
                // paths (thresholds: around zero, the pruning margins,
                // each side of the value itself).
                let thresholds = see.map_or(vec![0], |g| vec![0, 1, -1, -100, -300, g, g + 1]);
                for t in thresholds {
                    let below = see.map(|g| g < t);
                    assert_eq!(
                        exchange::exchange_below(pos, values, m, t),
                        below,
                        "{spec}: the exchange of {m:?} against {t} in {}",
                        pos.to_text()
                    );
                    assert_eq!(
                        g.exchange_below(pos, values, m, t),
                        below,
                        "{spec}: the set-wise exchange of {m:?} against {t} in {}",
                        pos.to_text()
                    );
                }
                // The search skips the exchange where its floor could not
                // fall below the pruning threshold.
                if let Some(see) = see {
                    assert!(
                        see >= exchange::exchange_floor(pos, values, m),
                        "{spec}: the exchange of {m:?} below its floor in {}",
                        pos.to_text()
                    );
                }
            }
        }
        compared += 1;
    });
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

/// The torus (112 cells, two-word bitboards): rays and pawn steps that go
/// round, diagonals walked by segments, pins found from line tables that
/// keep up to four rays between two cells.
#[test]
fn torus_fast_path_agrees_with_generic() {
    assert!(compare_playouts("torus", 120, 150, 13) > 5_000);
    compare_playouts("torus:wrapcastling=0", 30, 150, 14);
}

/// Raumschach (125 cells, two-word bitboards, magic tables of `u128`).
#[test]
fn raumschach_fast_path_agrees_with_generic() {
    assert!(compare_playouts("raumschach", 120, 150, 15) > 5_000);
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
    // Boards of more than 64 cells along random games: the torus on
    // two-word bitboards, the diamonds by the generic backend.
    for spec in [
        "torus",
        "diamond:n=3",
        "cylinder-diamond:n=3",
        "diamond:n=4",
    ] {
        let v = Variant::from_spec(spec).unwrap();
        along_random_games(&v, 10, 80, 5, |g, pos, all| {
            assert_eq!(sorted(split(g, pos)), sorted(all.to_vec()), "{spec}");
        });
    }
}

/// A variant from the text of a variants file (docs/variants-file.md).
fn from_file(text: &str) -> Arc<Variant> {
    let def = variant_file::parse(text)
        .unwrap_or_else(|e| panic!("{e}"))
        .remove(0)
        .def;
    Variant::new(def).expect("a loaded definition builds")
}

/// A 3-D board of 64 cells whose third axis (two cells) wraps: 26 king
/// directions, two of which can lead to the same cells (a step up and a
/// step down the third axis meet), so the backend finds pins ray by ray
/// (no line tables) and a piece can be pinned along two lines at once.
const WRAP_8X4X2: &str = r#"
[[variant]]
name = "wrap-8x4x2"
board = { lens = [8, 4, 2], wrap = [false, false, true] }
start = "rnbq/pppp/4/4/4/4/PPPP/RNBQ|kbnr/pppp/4/4/4/4/PPPP/KBNR w - - 0 1"
[[variant.piece]]
name = "pawn"
letter = "P"
pawn = { pushes = [[1, 0, 0]], captures = [[1, 1, 0], [1, -1, 0], [1, 0, 1], [1, 0, -1]] }
[[variant.piece]]
name = "knight"
letter = "N"
leaps = [[2, 1]]
[[variant.piece]]
name = "rook"
letter = "R"
slides = [1]
[[variant.piece]]
name = "bishop"
letter = "B"
slides = [2, 3]
[[variant.piece]]
name = "queen"
letter = "Q"
slides = [0]
[[variant.piece]]
name = "king"
letter = "K"
leaps = [[1], [1, 1], [1, 1, 1]]
royal = true
"#;

#[test]
fn wrapping_3d_fast_path_agrees_with_generic() {
    let v = from_file(WRAP_8X4X2);
    assert!(MoveGen::new(&v).uses_fast_path());
    assert!(compare_variant_playouts(&v, "wrap-8x4x2", 100, 120, 21) > 2_000);
}

#[test]
fn file_variants_of_at_most_128_cells_fast_path_agrees_with_generic() {
    let shipped = variant_file::parse(include_str!("../../engines/variants.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    // torus3d: 14x4x2 cells, every axis wraps (two-word bitboards).
    for name in ["cylinder6", "holes", "torus3d"] {
        let fv = shipped.iter().find(|f| f.name == name).expect(name);
        let v = Variant::new(fv.def.clone()).expect("a loaded definition builds");
        assert!(MoveGen::new(&v).uses_fast_path(), "{name}");
        compare_variant_playouts(&v, name, 100, 150, 5);
    }
}

/// Nine leapers of different leaps and a king (ten leap tables): more than
/// the bitboard backend keeps per generation, so the generic backend
/// serves the board (this panicked in the bitboard backend before).
#[test]
fn a_board_of_many_leapers_takes_the_generic_backend() {
    let v = from_file(
        r#"
[[variant]]
name = "leapers"
board = { lens = [8, 8] }
start = "abcdkefg/hipppppp/8/8/8/8/HIPPPPPP/ABCDKEFG w - - 0 1"
[[variant.piece]]
name = "pawn"
letter = "P"
pawn = { pushes = [[1, 0]], captures = [[1, 1], [1, -1]] }
[[variant.piece]]
name = "wazir"
letter = "A"
leaps = [[1]]
[[variant.piece]]
name = "ferz"
letter = "B"
leaps = [[1, 1]]
[[variant.piece]]
name = "dabbaba"
letter = "C"
leaps = [[2]]
[[variant.piece]]
name = "knight"
letter = "D"
leaps = [[2, 1]]
[[variant.piece]]
name = "alfil"
letter = "E"
leaps = [[2, 2]]
[[variant.piece]]
name = "threeleaper"
letter = "F"
leaps = [[3]]
[[variant.piece]]
name = "camel"
letter = "G"
leaps = [[3, 1]]
[[variant.piece]]
name = "zebra"
letter = "H"
leaps = [[3, 2]]
[[variant.piece]]
name = "tripper"
letter = "I"
leaps = [[3, 3]]
[[variant.piece]]
name = "king"
letter = "K"
leaps = [[1], [1, 1]]
royal = true
"#,
    );
    let mut g = MoveGen::new(&v);
    assert!(!g.uses_fast_path());
    let mut rng = SmallRng::seed_from_u64(3);
    let (mut all, mut scratch) = (Vec::new(), Vec::new());
    let mut compared = 0;
    for _ in 0..20 {
        let mut pos = Position::start(&v);
        for _ in 0..100 {
            g.generate(&pos, &mut all);
            compared += 1;
            assert_eq!(sorted(split(&mut g, &pos)), sorted(all.clone()));
            assert_eq!(g.count(&pos, &mut scratch), all.len());
            if all.is_empty() {
                break;
            }
            pos.make(all[rng.random_range(0..all.len())]);
        }
    }
    assert!(compared > 500, "{compared} positions compared");
}

/// Slides along many wrapping directions of a small board would need
/// magic tables of billions of entries (their search never ended, and
/// such boards once took the generic backend): the bitboard backend walks
/// those rays by segments instead, and its moves come at once and agree
/// with the generic backend's.
#[test]
fn a_board_too_wrapped_for_magic_tables_walks_its_rays() {
    let v = from_file(&WRAP_8X4X2.replace("[false, false, true]", "[false, true, true]"));
    let mut g = MoveGen::new(&v);
    assert!(g.uses_fast_path());
    let mut pos = Position::start(&v);
    let mut all = Vec::new();
    g.generate(&pos, &mut all);
    assert_eq!(sorted(split(&mut g, &pos)), sorted(all.clone()));
    assert!(movegen::perft(&mut pos, 2) > all.len() as u64);
    assert!(compare_variant_playouts(&v, "wrap-8x4x2 (two axes)", 60, 100, 22) > 1_000);
}

/// The futility pre-test (`MoveGen::gives_no_check`) answers "no check"
/// only for moves that, made, leave the opponent's king unattacked (by the
/// attack test the search asks otherwise): along random games on every
/// kind of board, every legal move it clears (captures among them) is
/// made and tested. Each
/// board must also show moves that it clears and quiet moves that give
/// check, so neither side of the answer goes untested.
#[test]
fn moves_cleared_before_they_are_made_give_no_check() {
    for spec in [
        "chess",
        "chess960:sp=0",
        "cylinder",
        "torus",
        "cube",
        "raumschach",
        "diamond:n=3",
        "cylinder-diamond:n=3",
        "torus-diamond:n=3",
        "diamond:n=4",
    ] {
        let v = Variant::from_spec(spec).unwrap();
        let (mut cleared, mut captures_cleared, mut quiet_checks) = (0usize, 0usize, 0usize);
        along_random_games(&v, 8, 100, 17, |g, pos, all| {
            for m in all {
                let capture = pos.piece_at(m.to as usize) != 0;
                let quiet = !capture && m.promotion == 0;
                let no_check = g.gives_no_check(pos, m);
                let mut after = pos.clone();
                after.make(*m);
                let check = g.in_check(&after);
                if no_check {
                    assert!(!check, "{spec}: {m:?} cleared but gives check in {pos:?}");
                    cleared += 1;
                    captures_cleared += usize::from(capture);
                } else if quiet && check {
                    quiet_checks += 1;
                }
            }
        });
        assert!(cleared > 1000, "{spec}: only {cleared} moves cleared");
        assert!(
            captures_cleared > 10,
            "{spec}: only {captures_cleared} captures cleared"
        );
        assert!(quiet_checks > 0, "{spec}: no quiet check seen");
    }
    // Where turns are not a plain alternation the pre-test never answers.
    let v = Variant::from_spec("synchronous").unwrap();
    let mut g = MoveGen::new(&v);
    let pos = Position::start(&v);
    let mut all = Vec::new();
    g.generate(&pos, &mut all);
    assert!(!all.is_empty());
    assert!(all.iter().all(|m| !g.gives_no_check(&pos, m)));
}

/// The search fetches a child's table bucket by
/// [`Position::hash_hint`] before the move is made: the hint is the hash
/// after a plain move or double step of two seats taking turns whenever
/// the move changes no castling right and opens no en-passant capture
/// (the two things it leaves out), and the present hash for every other
/// move and seating. A wrong hint would only cost a useless fetch, but a
/// hint that is seldom right would make the fetch useless.
#[test]
fn the_hash_hint_is_the_hash_after_the_move_where_it_claims_to_be() {
    for spec in ["chess", "chess960:sp=0", "torus", "cube", "diamond:n=3"] {
        let v = Variant::from_spec(spec).unwrap();
        let (mut exact, mut all_moves) = (0usize, 0usize);
        along_random_games(&v, 8, 120, 29, |_, pos, all| {
            for m in all {
                all_moves += 1;
                let hint = pos.hash_hint(m);
                let mut after = pos.clone();
                after.make(*m);
                if !matches!(m.kind, MoveKind::Normal | MoveKind::DoubleStep) {
                    assert_eq!(hint, pos.hash(), "{spec}: {m:?}");
                    continue;
                }
                if after.castling() == pos.castling() && after.en_passant().is_none() {
                    assert_eq!(hint, after.hash(), "{spec}: {m:?} in {pos:?}");
                    exact += 1;
                }
            }
        });
        assert!(
            exact * 10 > all_moves * 9,
            "{spec}: the hint is exact for only {exact} of {all_moves} moves"
        );
    }
    let v = Variant::from_spec("synchronous").unwrap();
    let pos = Position::start(&v);
    let mut all = Vec::new();
    MoveGen::new(&v).generate(&pos, &mut all);
    assert!(!all.is_empty());
    assert!(all.iter().all(|m| pos.hash_hint(m) == pos.hash()));
}
