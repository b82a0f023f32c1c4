//! The seating and turn model, shown on toy variants built only from the
//! public API before any variant of the seeds needs it: a three-seat
//! free-for-all on a 6x6 board (rotation, capture and check relations,
//! a king captured outright, elimination, points per seat) and a
//! two-seat board with simultaneous turns (collision, swap, chase,
//! capture of a piece that stays, a king captured outright, simultaneous
//! mate). Every expected position below is worked out by hand from the
//! rules stated beside it.

use std::sync::Arc;

use ndchess::board::castling::CastlingStyle;
use ndchess::board::geometry::{Geometry, Naming, Shape};
use ndchess::board::piece::{PieceKind, knight_offsets, slide_dirs, step_offsets};
use ndchess::board::seating::{BySeat, Seat, SeatInfo, SeatSet, Seating, Side, Turn, TurnOrder};
use ndchess::board::variant::{Rules, StalemateRule, Variant, VariantDef};
use ndchess::rules::moves::{Decision, JointDecision, Move};
use ndchess::rules::outcome::{EndReason, Points};
use ndchess::rules::position::Position;
use ndchess::rules::simultaneous::JointError;

/// King, rook and knight on a square board of edge `l`.
fn toy(name: &str, l: usize, seats: Vec<&str>, order: Vec<usize>, turn: TurnOrder) -> Arc<Variant> {
    let geometry = Geometry::new(vec![l, l], vec![false; 2], Shape::Box, Naming::TwoD).unwrap();
    let mut king = PieceKind::new("king", 'K');
    king.royal = true;
    king.leaps = step_offsets(&geometry, 1, 2);
    let mut rook = PieceKind::new("rook", 'R');
    rook.slides = slide_dirs(&geometry, 1);
    let mut knight = PieceKind::new("knight", 'N');
    knight.leaps = knight_offsets(2);
    let infos: Vec<SeatInfo> = seats
        .iter()
        .enumerate()
        .map(|(i, n)| SeatInfo {
            name: n.to_string(),
            frame: vec![(0, 1), (1, 1)],
            side: Side(i as u8),
        })
        .collect();
    let n = infos.len();
    // Every seat against every other.
    let enemies = BySeat::from_fn(n, |a| {
        (0..n)
            .map(Seat::new)
            .filter(|&b| b != a)
            .collect::<SeatSet>()
    });
    let seating = Seating::new(
        BySeat::from_vec(infos),
        order.into_iter().map(Seat::new).collect(),
        enemies.clone(),
        enemies,
        turn,
    )
    .unwrap();
    Variant::new(VariantDef {
        name: name.into(),
        spec: name.into(),
        geometry,
        kinds: vec![king, rook, knight],
        seating,
        rules: Rules {
            castling: CastlingStyle::None,
            en_passant: false,
            fifty_move: true,
            insufficient_material: false,
            exchange_phase: false,
            party: None,
            stalemate: StalemateRule::Draw,
        },
        start: Vec::new(),
        start_castling: Vec::new(),
        chess960_number: None,
        fischer_random_notation: false,
        promotion_zone: None,
    })
    .unwrap()
}

fn play(pos: &mut Position, text: &str) -> Move {
    let m = pos
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{e} in {}", pos.to_text()));
    pos.make(m);
    m
}

const RED: Seat = Seat::new(0);
const GREEN: Seat = Seat::new(1);
const BLUE: Seat = Seat::new(2);

/// Three seats, every one against every other, moving red, blue, green.
fn free_for_all() -> Arc<Variant> {
    toy(
        "ffa3",
        6,
        vec!["red", "green", "blue"],
        vec![0, 2, 1],
        TurnOrder::Rotate,
    )
}

#[test]
fn three_seats_rotate_and_every_seat_is_an_enemy() {
    let v = free_for_all();
    // Rank 6: blue king f6. Rank 5: red rook c5. Rank 4: green king a4.
    // Rank 2: red king a2. Rank 1: blue rook a1, red rook d1.
    let start = "5(2K)/2(0R)3/(1K)5/6/(0K)5/(2R)2(0R)2 0 - - 0 1";
    let mut pos = Position::from_text(&v, start).unwrap();
    assert_eq!(pos.turn(), Turn::One(RED));
    assert_eq!(pos.to_text(), start);
    // Red is in check from the blue rook (a1 attacks a2): every red move
    // must end it. The king may not step onto b1 (blue's rook), nor onto
    // a3 or b3 (the green king's cells: every other seat's attacks are
    // check); the king or the rook d1 may take the checker.
    let mut red: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|&m| pos.move_text(m, false))
        .collect();
    red.sort();
    assert_eq!(red, ["a2a1", "a2b2", "d1a1"]);
    // Moving the king off the file exposes the green king to the blue
    // rook: legal, since green's safety is green's business.
    play(&mut pos, "a2b2");
    assert_eq!(pos.turn(), Turn::One(BLUE), "red, then blue, then green");
    assert_eq!(pos.fullmove_number(), 1);
    // Blue takes the green king outright (a1xa4): green is out of play.
    let capture = pos.parse_move("a1a4").unwrap();
    let blue: Vec<Move> = pos.legal_moves();
    assert!(blue.contains(&capture));
    pos.make(capture);
    assert_eq!(pos.out(), SeatSet::single(GREEN));
    assert!(pos.royal_cell(GREEN).is_none());
    // Green's turn is skipped: red again, a new round.
    assert_eq!(pos.turn(), Turn::One(RED));
    assert_eq!(pos.fullmove_number(), 2);
    assert!(pos.outcome().is_none(), "red and blue still play");
    // Red mates blue: Rd1-d6 checks along rank 6, the red rook on c5
    // holds e5 and f5, and the blue rook on a4 reaches neither e6 nor d6.
    play(&mut pos, "d1d6");
    assert_eq!(pos.turn(), Turn::One(BLUE));
    assert!(pos.in_check() && pos.legal_moves().is_empty());
    let result = pos.outcome().expect("blue is mated");
    assert_eq!(
        result.reason,
        EndReason::Checkmate {
            losers: SeatSet::single(BLUE)
        }
    );
    // Points per seat: red wins; green, out before the end, scores
    // nothing; blue is mated.
    assert_eq!(
        result.points.values(),
        &[Points::ONE, Points::ZERO, Points::ZERO]
    );
    assert_eq!(result.winner(), Some(RED));
    // Every step unmakes to the same position and hash.
    let end_hash = pos.hash();
    for _ in 0..3 {
        pos.unmake();
    }
    assert_eq!(pos.to_text(), start);
    assert_eq!(pos.out(), SeatSet::EMPTY);
    assert_eq!(pos.hash(), Position::from_text(&v, start).unwrap().hash());
    assert_ne!(pos.hash(), end_hash);
}

/// Two seats deciding at once.
fn synchronous_toy() -> Arc<Variant> {
    toy(
        "sync",
        5,
        vec!["white", "black"],
        vec![0, 1],
        TurnOrder::Simultaneous,
    )
}

const WHITE: Seat = Seat::new(0);
const BLACK: Seat = Seat::new(1);

fn joint(pos: &Position, white: &str, black: &str) -> JointDecision {
    let mut j = JointDecision::new(2);
    let m = |seat: Seat, text: &str| {
        pos.find_move(text, &pos.legal_moves_of(seat))
            .unwrap_or_else(|e| panic!("{e} for {seat} in {}", pos.to_text()))
    };
    j.set(WHITE, Decision::Move(m(WHITE, white)));
    j.set(BLACK, Decision::Move(m(BLACK, black)));
    j
}

#[test]
fn simultaneous_turns_collide_swap_and_chase() {
    let v = synchronous_toy();
    // Rank 5: black rook a5, black knight d5, black king e5.
    // Rank 1: white rook a1, white knight b1, white king e1.
    let start = "r2nk/5/5/5/RN2K w - - 0 1";
    let mut pos = Position::from_text(&v, start).unwrap();
    assert_eq!(pos.turn(), Turn::All(SeatSet::first(2)));
    // Collision (seed 004, c): "two pieces moving onto the same cell are
    // both removed" — Nb1-c3 and Nd5-c3.
    let j = joint(&pos, "b1c3", "d5c3");
    let r = pos.make_joint(&j).unwrap();
    assert_eq!(r.collisions, vec![v.geometry.parse_cell("c3").unwrap()]);
    assert_eq!(r.captured.len(), 2);
    assert_eq!(pos.to_text(), "r3k/5/5/5/R3K w - - 0 2");
    assert_eq!(pos.turn(), Turn::All(SeatSet::first(2)));
    // Swap (b): Ra1-a5 and Ra5-a1, each moving onto the cell the other
    // leaves: both stay, nothing is captured.
    let j = joint(&pos, "a1a5", "a5a1");
    let r = pos.make_joint(&j).unwrap();
    assert!(r.captured.is_empty() && r.collisions.is_empty());
    assert_eq!(pos.to_text(), "R3k/5/5/5/r3K w - - 1 3");
    // Both kings are in check now (each rook sees the other king along
    // its rank), and each side must answer. White takes the checking rook
    // on a1; black answers by stepping to e4, so its rook stays on a1 and
    // is captured (a).
    assert!(pos.seat_in_check(WHITE) && pos.seat_in_check(BLACK));
    let j = joint(&pos, "a5a1", "e5e4");
    let r = pos.make_joint(&j).unwrap();
    assert_eq!(r.captured.len(), 1);
    assert_eq!(pos.to_text(), "5/4k/5/5/R3K w - - 0 4");
    // Every turn unmakes exactly.
    for _ in 0..3 {
        pos.unmake();
    }
    assert_eq!(pos.to_text(), start);
    assert_eq!(pos.hash(), Position::from_text(&v, start).unwrap().hash());
}

#[test]
fn a_piece_that_stays_is_captured_and_a_vacated_cell_is_landed_on() {
    let v = synchronous_toy();
    // White Ra1xa4 takes the black knight, which stays (a); black's rook
    // e4 goes to b4 meanwhile. Then white Ra4xb4 while black's Rb4-b2
    // leaves b4: white's rook lands on the vacated cell (b, a chase),
    // capturing nothing.
    let start = "4k/n3r/5/5/RN1K1 w - - 0 1";
    let mut pos = Position::from_text(&v, start).unwrap();
    let j = joint(&pos, "a1a4", "e4b4");
    let r = pos.make_joint(&j).unwrap();
    assert_eq!(r.captured.len(), 1, "(a): the knight did not move");
    assert_eq!(pos.to_text(), "4k/Rr3/5/5/1N1K1 w - - 0 2");
    let j = joint(&pos, "a4b4", "b4b2");
    let r = pos.make_joint(&j).unwrap();
    assert!(r.captured.is_empty(), "(b): the rook had left b4");
    assert_eq!(pos.to_text(), "4k/1R3/5/1r3/1N1K1 w - - 1 3");
}

#[test]
fn simultaneous_mate_is_a_draw_and_bad_decisions_are_refused() {
    let v = synchronous_toy();
    // White king a1 in check from the rook a5, the rook b5 holding the
    // b-file; black king e5 in check from the rook e1, the rook d1
    // holding the d-file. Neither can answer: both are mated at once.
    let start = "rr2k/5/5/5/K2RR w - - 0 1";
    let pos = Position::from_text(&v, start).unwrap();
    assert!(pos.legal_moves_of(WHITE).is_empty() && pos.legal_moves_of(BLACK).is_empty());
    let result = pos.outcome().expect("both mated");
    assert_eq!(result.reason, EndReason::SimultaneousMate);
    assert!(result.is_draw());
    // A playable position for the refusals.
    let mut pos = Position::from_text(&v, "r3k/5/5/5/R3K w - - 0 1").unwrap();
    let before = (pos.to_text(), pos.hash());
    let mut j = JointDecision::new(2);
    let wm = pos.find_move("a1a2", &pos.legal_moves_of(WHITE)).unwrap();
    j.set(WHITE, Decision::Move(wm));
    assert_eq!(pos.make_joint(&j), Err(JointError::Missing(BLACK)));
    j.set(BLACK, Decision::Pass);
    assert_eq!(pos.make_joint(&j), Err(JointError::MustMove(BLACK)));
    j.set(BLACK, Decision::Move(wm));
    assert_eq!(pos.make_joint(&j), Err(JointError::Illegal(BLACK)));
    assert_eq!(
        (pos.to_text(), pos.hash()),
        before,
        "refusals change nothing"
    );
    // A sequential position refuses joint decisions altogether.
    let ffa = free_for_all();
    let mut seq = Position::from_text(&ffa, "5(2K)/6/(1K)5/6/(0K)5/6 0 - - 0 1").unwrap();
    assert_eq!(
        seq.make_joint(&JointDecision::new(3)),
        Err(JointError::NotSimultaneous)
    );
}
