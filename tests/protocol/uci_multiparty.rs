//! UCI for multi-party diamond chess (issue 11) through the real binary:
//! the variant announcement names the players, the convention and the
//! seats; `go` answers for the seat to move (`info string seat …`) with a
//! legal move of that seat; a whole 6-player 3-D game is played through
//! `position startpos moves …` with every seat's moves in order, checked
//! move by move against the library's rules, to the end of the game; bad
//! input (an unknown search, an odd player count, l=8 in a free-for-all, a
//! move by the wrong seat, a step out while the seat has moves) gets one
//! error line each and changes nothing. The game's transcript is written
//! to target/uci_multiparty_transcript.txt (docs/protocol.md shows one).

use crate::uci_support::{EngineProcess, field};

use ndchess::board::variant::Variant;
use ndchess::rules::position::Position;

const SPEC: &str = "diamond:n=3,l=10,players=6,end=first";

fn setup(e: &mut EngineProcess) -> Vec<String> {
    e.send("uci");
    e.expect("uciok");
    let mut lines = Vec::new();
    for (name, value) in [
        ("UCI_Variant", "diamond"),
        ("EdgeLength", "10"),
        ("Players", "6"),
        ("PartyEnd", "first"),
    ] {
        e.send(&format!("setoption name {name} value {value}"));
        lines.extend(e.sync());
    }
    lines
}

/// The `go` answer: the seat line and the best move.
fn go(e: &mut EngineProcess, nodes: u64) -> (String, String) {
    e.send(&format!("go nodes {nodes}"));
    let lines: Vec<String> = e
        .read_until("bestmove", |l| l.starts_with("bestmove"))
        .into_iter()
        .map(|x| x.1)
        .collect();
    let seat = lines
        .iter()
        .find(|l| l.starts_with("info string seat "))
        .cloned()
        .unwrap_or_else(|| panic!("no seat line: {lines:?}"));
    let best = field(lines.last().expect("bestmove"), "bestmove")
        .expect("a move")
        .to_string();
    (seat, best)
}

#[test]
fn a_whole_six_player_game_through_uci() {
    let v = Variant::from_spec(SPEC).unwrap();
    let mut e = EngineProcess::start(&["uci"]);
    let announced = setup(&mut e);
    let last = announced
        .iter()
        .rev()
        .find(|l| l.starts_with("info string variant "))
        .unwrap_or_else(|| panic!("no announcement: {announced:?}"));
    let seats: Vec<&str> = v
        .seating
        .order()
        .iter()
        .map(|&s| v.seating.name(s))
        .collect();
    assert!(last.contains(" players 6 "), "{last}");
    assert!(last.contains(" mode ffa end first dead remove "), "{last}");
    assert!(
        last.contains(&format!(" seats {} ", seats.join(","))),
        "{last}"
    );

    let mut pos = Position::start(&v);
    let mut moves: Vec<String> = Vec::new();
    let mut transcript = Vec::new();
    while pos.outcome().is_none() && moves.len() < 3000 {
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        let (seat_line, best) = go(&mut e, 1_500);
        let seat = v.seating.name(pos.to_move());
        assert!(
            seat_line.starts_with(&format!("info string seat {seat} ")),
            "ply {}: {seat_line}, {seat} to move",
            moves.len()
        );
        let m = pos
            .parse_move(&best)
            .unwrap_or_else(|err| panic!("ply {}: {best} illegal: {err:?}", moves.len()));
        transcript.push(format!("{seat} {best}"));
        pos.make(m);
        moves.push(best);
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target");
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(
        dir.join("uci_multiparty_transcript.txt"),
        format!("{}\n", e.transcript().join("\n")),
    );
    let outcome = pos
        .outcome()
        .unwrap_or_else(|| panic!("no end after {} plies: {}", moves.len(), pos.to_text()));
    println!(
        "{} plies, {:?}: {}",
        moves.len(),
        outcome.reason,
        transcript.join(", ")
    );
    if pos.legal_moves().is_empty() {
        // Over by a king capture or a seat without a move: nothing to
        // search.
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        e.send("go nodes 100");
        let lines = e.read_until("bestmove", |l| l.starts_with("bestmove"));
        assert_eq!(
            lines.last().expect("a line").1,
            "bestmove (none)",
            "{lines:?}"
        );
    }
    assert!(e.quit().success());
}

#[test]
fn bad_multi_party_input_is_refused_and_changes_nothing() {
    let v = Variant::from_spec(SPEC).unwrap();
    let start = Position::start(&v);
    let mut e = EngineProcess::start(&["uci"]);
    setup(&mut e);
    e.send("position startpos");
    // A move of the second seat, not one of the first seat's.
    let w1 = start.legal_moves();
    let second = v.seating.order()[1];
    let theirs = start
        .legal_moves_of(second)
        .into_iter()
        .map(|m| start.move_text(m, false))
        .find(|t| !w1.iter().any(|m| start.move_text(*m, false) == *t))
        .expect("the second seat has a move the first has not");
    let second_name = v.seating.name(second);
    let first_name = v.seating.name(v.seating.order()[0]);
    for (bad, says) in [
        (
            "setoption name MultiSearch value minimax".to_string(),
            "paranoid, brs, maxn".to_string(),
        ),
        (
            "setoption name Players value 5".to_string(),
            "even".to_string(),
        ),
        (
            "setoption name Players value 14".to_string(),
            "Players".to_string(),
        ),
        (
            "setoption name EdgeLength value 8".to_string(),
            "10 or more".to_string(),
        ),
        (
            format!("position startpos moves {theirs}"),
            format!("a piece of {second_name}, but {first_name} is to move"),
        ),
        (
            "position startpos moves 0000".to_string(),
            format!("{first_name} has a legal move"),
        ),
    ] {
        e.send(&bad);
        let out = e.sync();
        assert_eq!(out.len(), 1, "{bad}: {out:?}");
        assert!(out[0].starts_with("info string error: "), "{bad}: {out:?}");
        assert!(out[0].contains(&says), "{bad}: {out:?} should say {says}");
    }
    // Still the 6-player start, first seat to move, default search.
    let (seat, best) = go(&mut e, 500);
    let first = v.seating.name(v.seating.order()[0]);
    assert_eq!(seat, format!("info string seat {first} search paranoid"));
    assert!(start.parse_move(&best).is_ok(), "{best}");
    for algorithm in ["brs", "maxn"] {
        e.send(&format!("setoption name MultiSearch value {algorithm}"));
        assert!(e.sync().is_empty());
        let (seat, best) = go(&mut e, 500);
        assert_eq!(seat, format!("info string seat {first} search {algorithm}"));
        assert!(start.parse_move(&best).is_ok(), "{best}");
    }
    assert!(e.quit().success());
}
