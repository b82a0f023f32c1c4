//! The binding rules of multi-party diamond chess (RULES §2.6 and the
//! multi-party issue), one test each, on positions set up by hand on the
//! 3-D diamond of edge 10. Every expected position and score is worked out
//! from the rule quoted beside the test.
//!
//! Cells are written as the engine names them (docs/notation.md): level
//! letter (axis 3), file letter (axis 2), rank (axis 1), so `Ee1` is
//! (x1, x2, x3) = (0, 4, 4). Seats: w1 w2 w3 s1 s2 s3 are 0…5 with six
//! players, w1 w2 s1 s2 are 0…3 with four.

use std::collections::BTreeSet;
use std::sync::Arc;

use ndchess::board::party::{Fate, Fates};
use ndchess::board::piece::piece;
use ndchess::board::seating::Seat;
use ndchess::board::variant::Variant;
use ndchess::rules::outcome::Points;
use ndchess::rules::position::Position;

fn variant(spec: &str) -> Arc<Variant> {
    Variant::from_spec(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn seat(v: &Variant, name: &str) -> Seat {
    v.seating
        .seats()
        .find(|&s| v.seating.name(s) == name)
        .unwrap_or_else(|| panic!("no seat {name}"))
}

/// A position from `(seat, letter, cell)` triples with `to_move` to move.
fn setup(v: &Arc<Variant>, pieces: &[(&str, char, &str)], to_move: &str) -> Position {
    setup_out(v, pieces, to_move, Fates::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// [`setup`] with seats out of play.
fn setup_out(
    v: &Arc<Variant>,
    pieces: &[(&str, char, &str)],
    to_move: &str,
    fates: Fates,
) -> Result<Position, ndchess::rules::position::PositionError> {
    let list: Vec<_> = pieces
        .iter()
        .map(|&(s, letter, c)| {
            let cell = v
                .geometry
                .parse_cell(c)
                .unwrap_or_else(|| panic!("no cell {c}"));
            let kind = v.kind_by_letter(letter).expect("a letter of the variant");
            (cell, piece(seat(v, s), kind))
        })
        .collect();
    Position::from_pieces(v, &list, seat(v, to_move), fates)
}

fn moves(pos: &Position) -> BTreeSet<String> {
    pos.legal_moves()
        .into_iter()
        .map(|m| pos.move_text(m, false))
        .collect()
}

fn play(pos: &mut Position, text: &str) {
    let m = pos
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{e} in {}", pos.to_text()));
    pos.make(m);
}

/// The six kings, far from each other: each on the centre of its face.
const SIX_KINGS: [(&str, char, &str); 6] = [
    ("w1", 'K', "Ee1"),
    ("s1", 'K', "Ee10"),
    ("w2", 'K', "Ea5"),
    ("s2", 'K', "Ej5"),
    ("w3", 'K', "Ae5"),
    ("s3", 'K', "Je5"),
];

/// w1's rook on Ee7 attacks s1's king on Ee10 along axis 1; s1 also has a
/// knight on Ff5, w2 one on Eb6.
fn king_hunt(spec: &str) -> Position {
    let v = variant(spec);
    let mut pieces = SIX_KINGS.to_vec();
    if v.seat_count() == 4 {
        pieces.retain(|(s, _, _)| !s.ends_with('3'));
    }
    pieces.push(("w1", 'R', "Ee7"));
    pieces.push(("s1", 'N', "Ff5"));
    // More than kings stay on the board when w1 and s1 leave.
    pieces.push(("w2", 'N', "Eb6"));
    setup(&v, &pieces, "w1")
}

#[test]
fn capturing_a_king_puts_its_owner_out_and_its_army_leaves() {
    // "Capturing a king is a legal move and puts its owner out of the
    // game"; dead=remove: "an out player's pieces leave the board".
    let mut pos = king_hunt("diamond:n=3,l=10,players=6,dead=remove");
    let before = pos.to_text();
    assert!(moves(&pos).contains("Ee7Ee10"));
    play(&mut pos, "Ee7Ee10");
    let v = pos.variant().clone();
    let s1 = seat(&v, "s1");
    assert_eq!(pos.out().iter().collect::<Vec<_>>(), vec![s1]);
    assert_eq!(pos.turn_state().fates.of(s1), Some(Fate::Lost));
    assert!(pos.seat_cells(s1).next().is_none(), "s1's knight left");
    // Move order w1, w2, …: w2 is next.
    assert_eq!(pos.to_move(), seat(&v, "w2"));
    assert!(pos.outcome().is_none(), "five players go on (end=last)");
    assert!(pos.to_text().contains(" out:s1-"), "{}", pos.to_text());
    // The text reads back to the same position; unmake restores all.
    let again = Position::from_text(&v, &pos.to_text()).unwrap();
    assert_eq!(again.to_text(), pos.to_text());
    assert_eq!(again.hash(), pos.hash());
    pos.unmake();
    assert_eq!(pos.to_text(), before);
}

#[test]
fn with_dead_stay_the_army_of_an_out_player_stays() {
    // dead=stay: "an out player's pieces stay"; they still block and may
    // be captured (docs/variants.md).
    let mut pos = king_hunt("diamond:n=3,l=10,players=6,dead=stay");
    play(&mut pos, "Ee7Ee10");
    let v = pos.variant().clone();
    let s1 = seat(&v, "s1");
    assert!(pos.out().contains(s1));
    let knight = v.geometry.parse_cell("Ff5").unwrap();
    assert_eq!(pos.piece_seat_at(knight), Some(s1));
    assert_eq!(pos.to_move(), seat(&v, "w2"));
    // The seat out never moves again: after w2, w3 comes s2, not s1.
    play(&mut pos, "Ea5Eb5");
    play(&mut pos, "Ae5Be5");
    assert_eq!(pos.to_move(), seat(&v, "s2"));
    // A move of the out seat's knight is refused, saying why.
    let refused = pos
        .parse_move("Ff5Ff6")
        .expect_err("a piece of a seat out never moves")
        .to_string();
    assert!(
        refused.contains("a piece of s1, which is out of the game; s2 is to move"),
        "{refused}"
    );
}

#[test]
fn the_first_mate_ends_a_free_for_all_with_end_first() {
    // ffa, end=first: "the game ends when one of the players is mated,
    // all the others get one point each" (seed §8.6).
    let mut pos = king_hunt("diamond:n=3,l=10,players=6,end=first");
    play(&mut pos, "Ee7Ee10");
    let o = pos.outcome().expect("the game is over");
    let v = pos.variant().clone();
    for s in v.seating.seats() {
        let expected = if s == seat(&v, "s1") {
            Points::ZERO
        } else {
            Points::ONE
        };
        assert_eq!(o.points[s], expected, "{}", v.seating.name(s));
    }
    assert!(pos.legal_moves().is_empty());
}

#[test]
fn independent_games_end_together_or_one_by_one() {
    // Independent games, end=first: "all games end (the winner gets one
    // point, the loser 0 and everyone else half a point)".
    let mut pos = king_hunt("diamond:n=3,l=10,players=4,mode=independent,cross=1,end=first");
    play(&mut pos, "Ee7Ee10");
    let v = pos.variant().clone();
    let o = pos.outcome().expect("one game ended, so all end");
    assert_eq!(o.points[seat(&v, "w1")], Points::ONE);
    assert_eq!(o.points[seat(&v, "s1")], Points::ZERO);
    assert_eq!(o.points[seat(&v, "w2")], Points::HALF);
    assert_eq!(o.points[seat(&v, "s2")], Points::HALF);
    // end=last: "the other games are played on without the two players";
    // both leave, and with dead=remove both armies leave the board.
    let mut pos = king_hunt("diamond:n=3,l=10,players=4,mode=independent,cross=1,end=last");
    play(&mut pos, "Ee7Ee10");
    let (w1, s1) = (seat(&v, "w1"), seat(&v, "s1"));
    assert!(pos.outcome().is_none());
    assert!(pos.out().contains(w1) && pos.out().contains(s1));
    assert_eq!(pos.turn_state().fates.of(w1), Some(Fate::Won));
    assert_eq!(pos.turn_state().fates.of(s1), Some(Fate::Lost));
    assert!(pos.seat_cells(w1).next().is_none() && pos.seat_cells(s1).next().is_none());
    assert_eq!(pos.to_move(), seat(&v, "w2"));
}

#[test]
fn a_coalition_loses_with_its_first_member_at_end_first() {
    // Coalitions: "the game can end when one king ... of a coalition is
    // mated": every member of that coalition 0, the other coalition 1.
    let mut pos = king_hunt("diamond:n=3,l=10,players=4,mode=coalition,end=first");
    play(&mut pos, "Ee7Ee10");
    let v = pos.variant().clone();
    let o = pos.outcome().expect("over");
    for (name, points) in [
        ("w1", Points::ONE),
        ("w2", Points::ONE),
        ("s1", Points::ZERO),
        ("s2", Points::ZERO),
    ] {
        assert_eq!(o.points[seat(&v, name)], points, "{name}");
    }
}

#[test]
fn en_passant_belongs_to_the_next_seat_only() {
    // "Only the player who moves next may capture the double-stepped
    // pawn, and only on that turn." w1's pawn Ee2 double-steps to Ee4
    // passing Ee3; w2 (next) has a pawn on Dd3 that captures onto Ee3
    // (its captures are +axis 2 and one step along another axis); s1's
    // pawn on Ef4 could capture onto Ee3 too (-axis 1, -axis 2), but s1
    // moves after w2 and w3.
    let v = variant("diamond:n=3,l=10,players=6");
    let mut pieces = SIX_KINGS.to_vec();
    pieces.extend([("w1", 'P', "Ee2"), ("w2", 'P', "Dd3"), ("s1", 'P', "Ef4")]);
    let mut pos = setup(&v, &pieces, "w1");
    play(&mut pos, "Ee2Ee4");
    assert_eq!(
        pos.en_passant()
            .map(|e| v.geometry.cell_name(e.target as usize)),
        Some("Ee3".to_string())
    );
    assert!(pos.to_text().contains(" Ee3 "), "{}", pos.to_text());
    assert!(moves(&pos).contains("Dd3Ee3"), "w2 may capture en passant");
    play(&mut pos, "Ea5Eb5");
    assert!(pos.en_passant().is_none());
    play(&mut pos, "Ae5Be5");
    assert_eq!(pos.to_move(), seat(&v, "s1"));
    let s1_moves = moves(&pos);
    assert!(
        !s1_moves.contains("Ef4Ee3"),
        "s1 is not the next seat: {s1_moves:?}"
    );
    // Had w2 taken, the pawn on Ee4 would be gone.
    let mut pos2 = setup(&v, &pieces, "w1");
    play(&mut pos2, "Ee2Ee4");
    play(&mut pos2, "Dd3Ee3");
    let ee4 = v.geometry.parse_cell("Ee4").unwrap();
    assert_eq!(pos2.piece_seat_at(ee4), None);
}

/// Four players: w1's rook on Ee5 sees w2's knight on Ge5 (along axis 3),
/// s1's knight on Ec5 (along axis 2) and s2's knight on Ce5 (axis 3,
/// downwards); w2's rook on Ge1 looks at w1's king on Ee1 along axis 3.
fn four(spec: &str) -> Position {
    let v = variant(spec);
    setup(
        &v,
        &[
            ("w1", 'K', "Ee1"),
            ("s1", 'K', "Ff10"),
            ("w2", 'K', "Ea5"),
            ("s2", 'K', "Fj6"),
            ("w1", 'R', "Ee5"),
            ("w2", 'N', "Ge5"),
            ("s1", 'N', "Ec5"),
            ("s2", 'N', "Ce5"),
            ("w2", 'R', "Ge1"),
        ],
        "w1",
    )
}

#[test]
fn coalitions_strong_and_weak_self_capture() {
    // "The strong self-capture axiom forbids every player to capture the
    // pieces of its coalition partners; the weak one only one's own."
    // A partner's attack on one's king is no check in either.
    let strong = four("diamond:n=3,l=10,players=4,mode=coalition,selfcapture=strong");
    let weak = four("diamond:n=3,l=10,players=4,mode=coalition,selfcapture=weak");
    for pos in [&strong, &weak] {
        assert!(!pos.in_check(), "w2's rook is a partner's: no check");
        let m = moves(pos);
        assert!(m.contains("Ee5Ec5") && m.contains("Ee5Ce5"), "enemies");
    }
    assert!(!moves(&strong).contains("Ee5Ge5"));
    assert!(moves(&weak).contains("Ee5Ge5"));
}

#[test]
fn independent_games_with_and_without_cross_captures() {
    // Independent games wk-sk: "it is a convention whether a player may
    // capture pieces of another game". Without cross captures w1 takes
    // only s1's pieces and only s1 gives w1 check; with them, everyone's.
    let closed = four("diamond:n=3,l=10,players=4,mode=independent,cross=0");
    let m = moves(&closed);
    assert!(!closed.in_check());
    assert!(m.contains("Ee5Ec5"));
    assert!(!m.contains("Ee5Ge5") && !m.contains("Ee5Ce5"));
    let open = four("diamond:n=3,l=10,players=4,mode=independent,cross=1");
    assert!(open.in_check(), "w2's rook on Ge1 now gives check");
    // In check, w1 must answer it: the rook may not leave Ee5 for Ec5.
    let m = moves(&open);
    assert!(!m.contains("Ee5Ec5"));
    assert!(
        m.iter()
            .all(|t| t.starts_with("Ee1") || t.ends_with("Fe1") || t.ends_with("Ge1"))
    );
}

#[test]
fn bad_specs_and_texts_are_refused_and_say_why() {
    for (spec, why) in [
        ("diamond:n=3,l=10,players=5", "even"),
        ("diamond:n=3,l=10,players=8", "2n = 6"),
        ("diamond:n=3,l=8,players=6", "l = 8"),
        ("diamond:n=3,l=8,players=4,mode=coalition", "l = 8"),
        (
            "diamond:n=3,l=8,players=4,mode=independent,cross=1",
            "l = 8",
        ),
        (
            "diamond:n=3,l=10,players=6,mode=teams",
            "ffa, coalition, independent",
        ),
        ("diamond:n=3,l=10,players=6,end=never", "first, last"),
        ("diamond:n=3,l=10,players=6,dead=ghost", "remove, stay"),
        ("double-diamond:n=3,l=8,players=6", "l = 8"),
        ("double-diamond:n=3,l=10,players=8", "2n = 6"),
        // Decision (docs/variants.md): the torus-diamond seats two.
        ("torus-diamond:n=3,l=10,players=4", "no parameter 'players'"),
    ] {
        let e = Variant::from_spec(spec).expect_err(spec).to_string();
        assert!(e.contains(why), "{spec}: {e}");
    }
    assert!(Variant::from_spec("diamond:n=3,l=8,players=6,mode=independent").is_ok());
    // Position texts: a seat out cannot be to move; unknown seats and
    // fates are refused; a seat in play needs its king.
    let pos = king_hunt("diamond:n=3,l=10,players=6");
    let v = pos.variant().clone();
    let text = pos.to_text();
    let fields: Vec<&str> = text.split(' ').collect();
    let with = |side: &str, extra: &str| {
        format!(
            "{} {side} {} {} {} {} {extra}",
            fields[0], fields[2], fields[3], fields[4], fields[5]
        )
    };
    for bad in [
        with("w1", "out:w1="),
        with("w1", "out:x9-"),
        with("w1", "out:s1?"),
        with("w1", "out:s1-,s1="),
        with("q7", ""),
    ] {
        assert!(Position::from_text(&v, bad.trim()).is_err(), "{bad}");
    }
    // A seat listed out may have lost its king; one in play may not.
    let mut pieces: Vec<_> = SIX_KINGS.iter().filter(|p| p.0 != "s1").copied().collect();
    pieces.push(("w1", 'R', "Ee7"));
    let mut out = Fates::default();
    out.set(seat(&v, "s1"), Fate::Lost);
    let read = setup_out(&v, &pieces, "w1", out).expect("s1 is out");
    assert!(read.to_text().ends_with(" out:s1-"), "{}", read.to_text());
    let again = Position::from_text(&v, &read.to_text()).unwrap();
    assert_eq!(again.to_text(), read.to_text());
    assert!(setup_out(&v, &pieces, "w1", Fates::default()).is_err());
    assert!(
        setup_out(&v, &pieces, "s1", out).is_err(),
        "s1 is out: not to move"
    );
    // A move of another seat's piece is no move of the seat to move.
    assert!(pos.parse_move("Ff5Fe3").is_err());
    assert!(pos.parse_move("0000").is_err(), "w1 has moves: no out step");
}

#[test]
fn a_seat_without_a_move_goes_out_mated_or_stalemated() {
    // "A player with no legal move on its turn is out: mated if its king
    // is attacked, otherwise stalemated." Independent games without cross
    // captures: w1's lone king on the corner Ee1 has 16 neighbours, all
    // held by w2's pawns, which w1 may not capture and whose attacks are
    // no check for w1. So w1 has no move and is not in check: stalemated.
    // Its game with s1 is drawn; both leave; w2 and s2 play on.
    let v = variant("diamond:n=3,l=10,players=4,mode=independent,cross=0");
    let mut pieces = vec![
        ("w1", 'K', "Ee1"),
        ("s1", 'K', "Ee10"),
        ("w2", 'K', "Ea5"),
        ("s2", 'K', "Ej5"),
    ];
    for c in [
        "Ef1", "Fe1", "Ff1", "Ed1", "De1", "Fd1", "Df1", "Dd2", "De2", "Df2", "Ed2", "Ee2", "Ef2",
        "Fd2", "Fe2", "Ff2",
    ] {
        pieces.push(("w2", 'P', c));
    }
    let mut pos = setup(&v, &pieces, "w1");
    assert!(!pos.in_check());
    assert_eq!(moves(&pos), BTreeSet::from(["0000".to_string()]));
    assert!(pos.outcome().is_none(), "the game goes on without w1");
    play(&mut pos, "0000");
    let (w1, s1) = (seat(&v, "w1"), seat(&v, "s1"));
    assert_eq!(pos.turn_state().fates.of(w1), Some(Fate::Drawn));
    assert_eq!(pos.turn_state().fates.of(s1), Some(Fate::Drawn));
    assert_eq!(pos.to_move(), seat(&v, "w2"));
    assert!(pos.outcome().is_none());
    // Mated instead: take the w2 pawn off Ee2 and put s1's rook on Ee5.
    // The rook attacks the king along axis 1 (Ee4, Ee3, Ee2 empty), the
    // king's only free neighbour Ee2 is on the rook's line, so w1 has no
    // move and is in check: mated. It loses its game; s1 wins it.
    let mut mated = pieces.clone();
    mated.retain(|p| p.2 != "Ee2");
    mated.push(("s1", 'R', "Ee5"));
    let mut pos = setup(&v, &mated, "w1");
    assert!(pos.in_check());
    assert_eq!(moves(&pos), BTreeSet::from(["0000".to_string()]));
    play(&mut pos, "0000");
    assert_eq!(pos.turn_state().fates.of(w1), Some(Fate::Lost));
    assert_eq!(pos.turn_state().fates.of(s1), Some(Fate::Won));
    // With end=first the mate ends every game: w1 0, s1 1, the rest ½;
    // no out step is offered, the game is over.
    let v = variant("diamond:n=3,l=10,players=4,mode=independent,cross=0,end=first");
    let pos = setup(&v, &mated, "w1");
    assert!(pos.legal_moves().is_empty());
    let o = pos.outcome().expect("over");
    assert_eq!(o.points[seat(&v, "w1")], Points::ZERO);
    assert_eq!(o.points[seat(&v, "s1")], Points::ONE);
    assert_eq!(o.points[seat(&v, "w2")], Points::HALF);
}

/// T8.7.4: "the same board as the double diamond; the start by the
/// permutation of the coordinates". The permutation keeps a cell's copy
/// (which cells are doubled does not depend on the order of the axes), so
/// w2's pawns stand on file b (x2 = 1) in both copies, and each moves
/// along axis 2 towards the shared face x2 = l-1, where it promotes. The
/// `-1` copy's cells are named at rank 2l-2-x1 (docs/notation.md), so
/// (x1, x2, x3) = (3, 7, 4) of the `-1` copy is `Eh16`, of the `+1` copy
/// `Eh4`; the face cell (3, 9, 4) is `Ej4` in both.
#[test]
fn double_diamond_pawns_keep_their_copy_and_promote_on_the_shared_face() {
    let v = variant("double-diamond:n=3,l=10,players=6");
    let start = Position::start(&v);
    let w2_pawns: Vec<String> = start
        .placement()
        .into_iter()
        .filter(|(_, s, letter)| *s == seat(&v, "w2").index() && *letter == 'P')
        .map(|(x, _, _)| v.geometry.cell_name(v.geometry.cell_at(&x).unwrap()))
        .collect();
    // Table 8.1 has 12 pieces; a pawn in front of each in each copy.
    assert_eq!(w2_pawns.len(), 24, "{w2_pawns:?}");
    for name in ["Eb5", "Eb15", "Db5", "Db15"] {
        assert!(w2_pawns.contains(&name.to_string()), "{name}: {w2_pawns:?}");
    }
    let mut pieces = SIX_KINGS.to_vec();
    pieces.extend([
        ("w2", 'P', "Eh16"),
        ("w2", 'P', "Eb16"),
        ("w2", 'P', "Fi16"),
        ("w2", 'P', "Fi4"),
    ]);
    let pos = setup(&v, &pieces, "w2");
    let all = moves(&pos);
    let of = |from: &str| -> BTreeSet<String> {
        all.iter()
            .filter(|m| m.starts_with(from))
            .cloned()
            .collect()
    };
    // The -1 copy: one step along +x2 stays in the copy.
    assert_eq!(of("Eh16"), ["Eh16Ei16".to_string()].into());
    // From its start cell (x2 = 1 of the -1 copy) the double step.
    assert_eq!(
        of("Eb16"),
        ["Eb16Ec16".to_string(), "Eb16Ed16".to_string()].into()
    );
    // Both copies reach the shared face x2 = l-1 and promote there: the
    // pawns on (3, 8, 5) of the -1 copy (Fi16) and of the +1 copy (Fi4)
    // both onto the face cell (3, 9, 5) = Fj4.
    let promotions = |from: &str, to: &str| -> BTreeSet<String> {
        "bnqrw".chars().map(|k| format!("{from}{to}{k}")).collect()
    };
    assert_eq!(of("Fi16"), promotions("Fi16", "Fj4"));
    assert_eq!(of("Fi4"), promotions("Fi4", "Fj4"));
}
