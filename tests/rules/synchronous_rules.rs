//! Synchronous chess (seed 004, "Synchron Schach"): one test per rule of
//! the seed, each quoting the sentence it checks. Every position is built
//! by hand, the joint decision resolved, and the resulting position text
//! (docs/notation.md; an exchange phase is written `exchange:<seat>@<cell>`,
//! the pieces that moved in it `;moved:<cells>`) and phase checked exactly.
//! The expected texts are worked out from the seed's sentences beside
//! them, not taken from the engine.

use std::sync::Arc;

use ndchess::board::seating::{Phase, Seat, SeatSet};
use ndchess::board::variant::Variant;
use ndchess::rules::moves::MoveKind;
use ndchess::rules::notation::joint::{joint_text, parse_joint};
use ndchess::rules::outcome::EndReason;
use ndchess::rules::position::Position;
use ndchess::rules::simultaneous::JointError;

const WHITE: Seat = Seat::new(0);
const BLACK: Seat = Seat::new(1);

fn synchronous() -> Arc<Variant> {
    Variant::from_spec("synchronous").expect("built-in")
}

fn at(fen: &str) -> Position {
    Position::from_text(&synchronous(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Plays `joint` (`white|black`, `0000` a pass) and returns the resolution.
fn play(pos: &mut Position, joint: &str) -> ndchess::rules::simultaneous::Resolution {
    let j = parse_joint(pos, joint).unwrap_or_else(|e| panic!("{joint} in {}: {e}", pos.to_text()));
    assert_eq!(joint_text(pos, &j), joint, "the text reads back");
    pos.make_joint(&j)
        .unwrap_or_else(|e| panic!("{joint} in {}: {e}", pos.to_text()))
}

fn moves_of(pos: &Position, seat: Seat) -> Vec<String> {
    let mut v: Vec<String> = pos
        .legal_moves_of(seat)
        .into_iter()
        .map(|m| pos.move_text(m, false))
        .collect();
    v.sort();
    v
}

/// (a) "eine Figur auf ein Feld zieht, das von einer Figur der
/// entgegengesetzten Farbe, die sich während dieses Zugs nicht bewegt,
/// besetzt ist ..., so wird letztere Figur geschlagen".
#[test]
fn a_a_piece_that_stays_is_captured() {
    let mut pos = at("4k3/8/8/n7/8/8/8/R3K3 w - - 0 1");
    let r = play(&mut pos, "a1a5|e8d8");
    assert_eq!(r.captured.len(), 1);
    assert_eq!(pos.to_text(), "3k4/8/8/R7/8/8/8/4K3 w - - 0 2");
    assert_eq!(pos.phase(), Phase::Main);
}

/// (b) "... so verbleiben die beiden bewegten Figuren in der neuen
/// Position ... ein wechselseitiger Austausch der Positionen von zwei
/// Figuren ... möglich": a swap, and a chase onto a vacated cell.
#[test]
fn b_pieces_that_swap_or_chase_both_stay() {
    let mut pos = at("r3k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    let r = play(&mut pos, "a1a8|a8a1");
    assert!(r.captured.is_empty() && r.collisions.is_empty());
    assert_eq!(pos.to_text(), "R3k3/8/8/8/8/8/8/r3K3 w - - 1 2");
    let mut pos = at("4k3/8/8/8/n7/8/8/R3K3 w - - 0 1");
    let r = play(&mut pos, "a1a4|a4b6");
    assert!(r.captured.is_empty());
    assert_eq!(pos.to_text(), "4k3/8/1n6/8/R7/8/8/4K3 w - - 1 2");
}

/// (c) "zwei sich bewegende Figuren der entgegengesetzten Farben
/// gleichzeitig auf das gleiche Feld ziehen, so sind diese Figuren beide
/// geschlagen".
#[test]
fn c_a_collision_removes_both() {
    let mut pos = at("4k3/7p/8/3n4/8/8/7P/1N2K3 w - - 0 1");
    let r = play(&mut pos, "b1c3|d5c3");
    assert_eq!(r.collisions.len(), 1);
    assert_eq!(r.captured.len(), 2);
    assert_eq!(pos.to_text(), "4k3/7p/8/8/8/8/7P/4K3 w - - 0 2");
}

/// (d) "eine der bewegten Figuren auf ein Feld gezogen wird, das bereits
/// vor diesem Zuggang von mindestens einer Figur des anderen Spielers
/// angegriffen oder gedeckt war, so darf der letztere ... einen
/// zusätzlichen Gang zur Einnahme dieser Figur ausführen ... Die
/// Zwischenphase bezüglich dieses Feldes ist beendet, sobald einer der
/// beiden Spieler es für unzweckmässig hält, den Anderen auf diesem Feld zu
/// schlagen, oder sobald einer der beiden Spieler dies nicht kann."
#[test]
fn d_an_exchange_on_one_cell_runs_until_declined_or_impossible() {
    // The knight lands on e4, which the d3 pawn attacked before the turn.
    let start = "6k1/8/5n2/5p2/8/3P4/8/6K1 w - - 0 1";
    let mut pos = at(start);
    play(&mut pos, "g1h1|f6e4");
    assert_eq!(pos.phase(), Phase::Exchange);
    assert_eq!(pos.turn().movers(), SeatSet::single(WHITE));
    // The turn is not over: the move number stays.
    assert_eq!(
        pos.to_text(),
        "6k1/8/8/5p2/4n3/3P4/8/7K w - - 1 1 exchange:w@e4"
    );
    // Only captures on e4, or a pass.
    let exchange: Vec<String> = pos
        .exchange_moves(WHITE)
        .iter()
        .map(|&m| pos.move_text(m, false))
        .collect();
    assert_eq!(exchange, vec!["d3e4".to_string()]);
    let mut declined = pos.clone();
    play(&mut pos, "d3e4|0000");
    // Black may answer on e4 with the f5 pawn; the white pawn has moved.
    assert_eq!(
        pos.to_text(),
        "6k1/8/8/5p2/4P3/8/8/7K b - - 0 1 exchange:b@e4;moved:e4"
    );
    play(&mut pos, "0000|f5e4");
    // White has nothing left attacking e4: the phase ends, the turn too.
    assert_eq!(pos.phase(), Phase::Main);
    assert_eq!(pos.to_text(), "6k1/8/8/8/4p3/8/8/7K w - - 0 2");
    // Declining ends the phase at once.
    play(&mut declined, "0000|0000");
    assert_eq!(declined.to_text(), "6k1/8/8/5p2/4n3/3P4/8/7K w - - 1 2");
    // Every step unmakes exactly.
    for _ in 0..3 {
        pos.unmake();
    }
    assert_eq!(pos.to_text(), start);
}

/// (d) "Haben beide Partner ... das Anrecht auf einen solchen zusätzlichen
/// Zug erhalten, dann werden diese möglichen Züge von beiden Partnern
/// unabhängig voneinander, also synchron, getätigt ... so lange auf
/// beiden Feldern synchron, bis sie auf einem der zwei Felder beendet ist.
/// Dann wird sie auf dem anderen Feld zu Ende gespielt." and "Figuren
/// dürfen sich innerhalb einer Zwischenphase der Schlagabtäusche
/// grundsätzlich nur einmal Bewegen".
#[test]
fn d_two_cells_exchange_synchronously_and_each_piece_moves_once() {
    // White Nc3-d5 onto a cell e6 and f6 attacked; black Nf6-e4 onto a
    // cell d3, c3 and the h1 bishop attacked.
    let mut pos = at("6k1/8/4pn2/5p2/2P5/2NP4/8/6KB w - - 0 1");
    play(&mut pos, "c3d5|f6e4");
    assert_eq!(pos.turn().movers(), SeatSet::first(2));
    assert_eq!(
        pos.to_text(),
        "6k1/8/4p3/3N1p2/2P1n3/3P4/8/6KB w - - 1 1 exchange:b@d5,w@e4"
    );
    // Both take at once: d3xe4 and e6xd5.
    play(&mut pos, "d3e4|e6d5");
    assert_eq!(
        pos.to_text(),
        "6k1/8/8/3p1p2/2P1P3/8/8/6KB w - - 0 1 exchange:b@e4,w@d5;moved:d5,e4"
    );
    // The e4 pawn has moved in the phase: only c4 may take on d5.
    let white: Vec<String> = pos
        .exchange_moves(WHITE)
        .iter()
        .map(|&m| pos.move_text(m, false))
        .collect();
    assert_eq!(white, vec!["c4d5".to_string()]);
    let black: Vec<String> = pos
        .exchange_moves(BLACK)
        .iter()
        .map(|&m| pos.move_text(m, false))
        .collect();
    assert_eq!(black, vec!["f5e4".to_string()], "the d5 pawn has moved");
    // Again both at once; d5 is then over (no black piece left to take),
    // e4 goes on: the bishop takes alone.
    play(&mut pos, "c4d5|f5e4");
    assert_eq!(
        pos.to_text(),
        "6k1/8/8/3P4/4p3/8/8/6KB w - - 0 1 exchange:w@e4;moved:d5,e4"
    );
    play(&mut pos, "h1e4|0000");
    assert_eq!(pos.phase(), Phase::Main);
    assert_eq!(pos.to_text(), "6k1/8/8/3P4/4B3/8/8/6K1 w - - 0 2");
}

/// "Grundsätzlich darf der König nie auf ein Feld, das von einer Figur des
/// anderen Spielers angegriffen ist, gezogen werden und nie darf ein Zug
/// ausgeführt werden, in dessen Folge der König bei unveränderter Stellung
/// des anderen Spielers in Schach geraten würde."
#[test]
fn king_safety_assumes_the_enemy_stands_still() {
    let pos = at("3rk3/4r3/8/8/8/8/4B3/4K3 w - - 0 1");
    let white = moves_of(&pos, WHITE);
    // d-file attacked: no Kd1/Kd2; the e2 bishop is pinned by e7.
    assert_eq!(white, vec!["e1f1", "e1f2"]);
}

/// "Grundsätzlich muss ein Spieler, wenn sein König zu Beginn des
/// Zugganges bedroht ist, einen Zug wählen, der diese Bedrohung im
/// herkömmlichen Schach bei unveränderter Stellung des anderen Spielers
/// ausräumen würde."
#[test]
fn a_king_in_check_must_answer_it() {
    let pos = at("4r1k1/8/8/8/8/8/PR6/4K3 w - - 0 1");
    let white = moves_of(&pos, WHITE);
    // King steps off the file, or the rook blocks on e2; a2-a3 is not.
    assert_eq!(white, vec!["b2e2", "e1d1", "e1d2", "e1f1", "e1f2"]);
}

/// "Es kann dazu kommen, das ein König nicht nur Schachmatt gesetzt,
/// sondern direkt geschlagen wird": the block on e2 does not stop the rook
/// that moves at the same time; white's king is captured, white loses.
#[test]
fn a_king_captured_outright_loses() {
    let mut pos = at("4r1k1/8/8/8/8/8/PR6/4K3 w - - 0 1");
    let r = play(&mut pos, "b2e2|e8e1");
    assert_eq!(r.captured.len(), 1);
    assert_eq!(pos.out(), SeatSet::single(WHITE));
    let o = pos.outcome().expect("the game is over");
    assert_eq!(o.winner(), Some(BLACK));
    assert!(matches!(o.reason, EndReason::Elimination { .. }));
    assert_eq!(pos.phase(), Phase::Main, "no exchange after a king is gone");
    assert!(pos.joint_decisions().is_empty());
}

/// "Gibt es keinen solchen Zug, so ist der Spieler ... Schachmatt" and
/// "Es kann zu einer synchronen, gleichzeitigen Schachmattstellung kommen,
/// das Spiel ist dann Remis beendet."
#[test]
fn simultaneous_mate_is_a_draw_and_a_single_mate_wins() {
    let pos = at("rr5k/8/8/8/8/8/8/K5RR w - - 0 1");
    let o = pos.outcome().expect("both mated");
    assert_eq!(o.reason, EndReason::SimultaneousMate);
    assert!(o.is_draw());
    // Black alone mated (white's king has a1-a2 free).
    let pos = at("1r5k/8/8/8/8/8/8/K5RR w - - 0 1");
    let o = pos.outcome().expect("black mated");
    assert_eq!(o.winner(), Some(WHITE));
}

/// "Es kann zu einem Remis durch Pattstellung eines Spielers kommen."
#[test]
fn stalemate_is_a_draw() {
    let pos = at("7k/8/8/8/8/8/2q5/K7 w - - 0 1");
    let o = pos.outcome().expect("white stalemated");
    assert_eq!(o.reason, EndReason::Stalemate);
    assert!(o.is_draw());
}

/// "Die Rochade eines bedrohten Königs oder mit Bewegung des Königs über
/// ein bedrohtes Feld hinweg ist nicht gestattet. Während die Rochade somit
/// grundsätzlich möglich ist ..."
#[test]
fn castling_is_refused_through_an_attacked_cell() {
    let castles = |fen: &str| {
        let pos = at(fen);
        pos.legal_moves_of(WHITE)
            .iter()
            .filter(|m| m.kind == MoveKind::Castle)
            .count()
    };
    // f1 attacked by the f8 rook: no castling.
    assert_eq!(castles("4kr2/8/8/8/8/8/8/4K2R w K - 0 1"), 0);
    // The rook on a8 attacks nothing the king crosses: castling allowed.
    assert_eq!(castles("r3k3/8/8/8/8/8/8/4K2R w K - 0 1"), 1);
    // Castling in synchronous chess: king and rook both land.
    let mut pos = at("r3k3/8/8/8/8/8/8/4K2R w K - 0 1");
    play(&mut pos, "e1g1|a8a7");
    assert_eq!(pos.to_text(), "4k3/r7/8/8/8/8/8/5RK1 w - - 1 2");
}

/// "... entfällt die 'En passant' Sonderregel des konventionellen Schach
/// vollständig."
#[test]
fn there_is_no_en_passant() {
    let mut pos = at("4k3/3p4/8/4P3/8/8/8/4K3 w - - 0 1");
    play(&mut pos, "e1f1|d7d5");
    assert_eq!(pos.to_text(), "4k3/8/8/3pP3/8/8/8/5K2 w - - 0 2");
    assert!(!moves_of(&pos, WHITE).contains(&"e5d6".to_string()));
}

/// "Vom herkömmlichen Schach werden auch die weiteren Remisregelungen
/// (Zugwiederholung, Beschränkungen, theoretische Aussichtslosigkeit für
/// beide Parteien) übernommen": 50 moves of each side (50 turns), threefold
/// repetition, and dead positions.
#[test]
fn draw_rules_of_chess_apply() {
    let mut pos = at("4k3/8/8/8/8/8/8/R3K3 w - - 49 30");
    assert!(pos.outcome().is_none());
    play(&mut pos, "a1a2|e8d8");
    assert_eq!(pos.outcome().map(|o| o.reason), Some(EndReason::FiftyMoves));
    let mut pos = at("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    for _ in 0..2 {
        play(&mut pos, "a1a2|e8d8");
        play(&mut pos, "a2a1|d8e8");
    }
    assert_eq!(pos.outcome().map(|o| o.reason), Some(EndReason::Repetition));
    let pos = at("4k3/8/8/8/8/8/8/2B1K3 w - - 0 1");
    assert_eq!(
        pos.outcome().map(|o| o.reason),
        Some(EndReason::DeadPosition)
    );
}

/// Refusals: a decision for the wrong phase, a pass in the main phase, a
/// move of the wrong seat, a malformed text — each an error, the position
/// unchanged.
#[test]
fn bad_joint_decisions_are_refused_and_change_nothing() {
    let mut pos = at("6k1/8/5n2/5p2/8/3P4/8/6K1 w - - 0 1");
    let before = (pos.to_text(), pos.hash());
    // Read, then resolved: either step may refuse.
    let refused = |pos: &mut Position, text: &str| match parse_joint(pos, text) {
        Err(_) => true,
        Ok(j) => pos.make_joint(&j).is_err(),
    };
    for bad in [
        "g1h1|0000",
        "g1h1",
        "g1h1|f6e4|e1e2",
        "e2e4|f6e4",
        "g1h1|g1h2",
        "x|y",
    ] {
        assert!(refused(&mut pos, bad), "{bad}");
        assert_eq!((pos.to_text(), pos.hash()), before);
    }
    play(&mut pos, "g1h1|f6e4");
    let before = (pos.to_text(), pos.hash());
    // In the exchange phase: only a capture on e4 (or a pass) for white,
    // only a pass for black.
    for bad in ["h1g1|0000", "d3d4|0000", "0000|f5f4", "d3e4|e4d2"] {
        assert!(refused(&mut pos, bad), "{bad}");
        assert_eq!((pos.to_text(), pos.hash()), before);
    }
    let mut j = ndchess::rules::moves::JointDecision::new(2);
    let quiet = pos
        .legal_moves_of(WHITE)
        .into_iter()
        .find(|m| m.to as usize != pos.variant().geometry.parse_cell("e4").unwrap())
        .expect("a king move");
    j.set(WHITE, ndchess::rules::moves::Decision::Move(quiet));
    assert_eq!(pos.make_joint(&j), Err(JointError::NotAnExchange(WHITE)));
    assert_eq!((pos.to_text(), pos.hash()), before);
}

/// The position text of an exchange phase reads back to the same position
/// and hash as the one reached by play.
#[test]
fn exchange_positions_read_back() {
    let mut pos = at("6k1/8/4pn2/5p2/2P5/2NP4/8/6KB w - - 0 1");
    play(&mut pos, "c3d5|f6e4");
    play(&mut pos, "d3e4|e6d5");
    let again = at(&pos.to_text());
    assert_eq!(again.to_text(), pos.to_text());
    assert_eq!(again.hash(), pos.hash());
    assert_eq!(again.exchange(), pos.exchange());
    for bad in [
        "6k1/8/8/3p1p2/2P1P3/8/8/6KB w - - 0 1 exchange:",
        "6k1/8/8/3p1p2/2P1P3/8/8/6KB w - - 0 1 exchange:w@z9",
        "6k1/8/8/3p1p2/2P1P3/8/8/6KB w - - 0 1 exchange:w@a1",
        "6k1/8/8/3p1p2/2P1P3/8/8/6KB w - - 0 1 exchange:w@d5,w@d5",
        "6k1/8/8/3p1p2/2P1P3/8/8/6KB w - - 0 1 exchange:w@d5;moved:a1",
    ] {
        assert!(Position::from_text(&synchronous(), bad).is_err(), "{bad}");
    }
    let chess = Variant::from_spec("chess").unwrap();
    assert!(
        Position::from_text(
            &chess,
            "6k1/8/8/3p1p2/2P1P3/8/8/6KB w - - 0 1 exchange:w@d5"
        )
        .is_err(),
        "chess has no exchange phase"
    );
}
