//! Matches against external engines and between ndchess configurations,
//! every PGN read back by an independent referee: python-chess for chess
//! and Chess960, `ndchess pgn check` for every board (its final positions
//! must be the ones the arbiter recorded).

use super::{
    arbiter, arbiter_line, have, have_python_chess, journal, ndchess, pgn_check, python_replay,
    workdir,
};

const FSF: &str = "/usr/games/fairy-stockfish";
const SF: &str = "/usr/games/stockfish";
const FAIRYMAX: &str = "/usr/games/fairymax";

/// The journal's final positions equal `pgn check`'s, game by game, and
/// every game has moves beyond its opening.
fn finals_agree(dir: &std::path::Path, pgn: &str) -> Vec<serde_json::Value> {
    let games = journal(&dir.join(format!("{pgn}.journal")));
    let finals = pgn_check(dir, pgn);
    assert_eq!(games.len(), finals.len());
    // The PGN is in finishing order, as is the journal.
    for (g, f) in games.iter().zip(&finals) {
        assert_eq!(g["final_position"].as_str().unwrap(), f);
    }
    games
}

fn assert_no_forfeits(games: &[serde_json::Value]) {
    for g in games {
        assert_eq!(g["termination"], "normal", "{}", g["reason"]);
    }
}

#[test]
fn against_fairy_stockfish_in_chess_and_chess960_replayed_by_python_chess() {
    if !have(FSF, &["quit"], "Debian package fairy-stockfish") || !have_python_chess() {
        return;
    }
    for (variant, pgn) in [("chess", "chess.pgn"), ("chess960", "c960.pgn")] {
        let dir = workdir(&format!("fsf-{variant}"));
        arbiter_line(
            &dir,
            &format!(
                "match -engine cmd={} name=ndchess -engine cmd={FSF} name=fairy-stockfish \
                 option.Hash=16 -each proto=uci tc=1+0.05 -variant {variant} -rounds 1 -games 2 \
                 -repeat -openings format=random plies=4 -srand 7 -concurrency 2 -pgnout {pgn}",
                ndchess()
            ),
        );
        python_replay(&dir, pgn);
        let games = finals_agree(&dir, pgn);
        assert_eq!(games.len(), 2);
        assert_no_forfeits(&games);
    }
}

#[test]
fn against_stockfish_replayed_by_python_chess() {
    if !have(SF, &["quit"], "Debian package stockfish") || !have_python_chess() {
        return;
    }
    let dir = workdir("stockfish");
    arbiter_line(
        &dir,
        &format!(
            "match -engine cmd={} name=ndchess -engine cmd={SF} name=stockfish \
             option.UCI_LimitStrength=true option.UCI_Elo=1500 option.Hash=16 -each tc=1+0.05 \
             -rounds 1 -games 2 -repeat -openings format=random plies=6 -srand 3 \
             -concurrency 2 -pgnout sf.pgn",
            ndchess()
        ),
    );
    python_replay(&dir, "sf.pgn");
    let games = finals_agree(&dir, "sf.pgn");
    assert_no_forfeits(&games);
}

#[test]
fn against_fairy_max_over_xboard_on_the_cylinder_to_the_end() {
    let probe = format!("test -x {FAIRYMAX}");
    if !have("sh", &["-c", &probe], "Debian package fairymax") {
        return;
    }
    let dir = workdir("fairymax");
    arbiter_line(
        &dir,
        &format!(
            "match -engine cmd={} name=ndchess proto=uci -engine cmd={FAIRYMAX} name=fairymax \
             proto=xboard -each tc=2+0.05 -variant cylinder:wrapcastling=0 -rounds 1 -games 2 \
             -repeat -concurrency 2 -pgnout cyl.pgn",
            ndchess()
        ),
    );
    let games = finals_agree(&dir, "cyl.pgn");
    assert_eq!(games.len(), 2);
    // To the end: by the rules, never by a limit or a forfeit.
    assert_no_forfeits(&games);
    let text = std::fs::read_to_string(dir.join("cyl.pgn")).unwrap();
    assert!(text.contains("[Variant \"cylinder:wrapcastling=0\"]"));
}

#[test]
fn torus_between_two_ndchess_over_xboard() {
    let dir = workdir("torus");
    arbiter_line(
        &dir,
        &format!(
            "match -engine cmd={n} arg=xboard name=one -engine cmd={n} arg=xboard name=two \
             -each proto=xboard tc=2+0.05 -variant torus -rounds 1 -games 2 -repeat \
             -concurrency 2 -maxmoves 120 -pgnout torus.pgn",
            n = ndchess()
        ),
    );
    let games = finals_agree(&dir, "torus.pgn");
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_ne!(g["termination"], "rules infraction", "{}", g["reason"]);
        assert!(g["moves"].as_array().unwrap().len() > 10);
    }
}

#[test]
fn ndchess_configurations_on_the_n_dimensional_boards() {
    for (variant, strong, weak) in [
        ("cube", 3000, 600),
        ("diamond:n=3", 3000, 600),
        ("diamond:n=4", 1500, 300),
        ("cylinder-diamond:n=3", 3000, 600),
    ] {
        let dir = workdir(&format!("nd-{}", variant.replace([':', '='], "-")));
        arbiter_line(
            &dir,
            &format!(
                "match -engine cmd={n} name=strong nodes={strong} -engine cmd={n} name=weak \
                 nodes={weak} -each option.Hash=8 -variant {variant} -rounds 1 -games 2 -repeat \
                 -openings format=random plies=2 -maxmoves 80 -concurrency 2 -pgnout nd.pgn \
                 -json nd.json",
                n = ndchess()
            ),
        );
        let games = finals_agree(&dir, "nd.pgn");
        assert_eq!(games.len(), 2, "{variant}");
        for g in &games {
            assert_ne!(
                g["termination"], "rules infraction",
                "{variant}: {}",
                g["reason"]
            );
        }
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("nd.json")).unwrap()).unwrap();
        assert_eq!(summary["played"], 2);
        let text = std::fs::read_to_string(dir.join("nd.pgn")).unwrap();
        assert!(text.contains("[Variant \""), "{variant}");
        assert!(
            text.contains("[FEN \"") && text.contains("[SetUp \"1\"]"),
            "{variant}"
        );
    }
}

#[test]
fn openings_from_pgn_and_position_files_of_any_board() {
    let dir = workdir("openings");
    // Two node-limited ndchess on the cube, with these openings and output.
    let cube_match = |openings: &str, maxmoves: u32, pgn: &str| {
        let line = format!(
            "match -engine cmd={n} name=a -engine cmd={n} name=b -each nodes=300 -variant cube \
             -rounds 1 -games 2 -repeat -openings {openings} -maxmoves {maxmoves} -pgnout {pgn}",
            n = ndchess()
        );
        arbiter(&dir, &line.split_whitespace().collect::<Vec<_>>());
    };
    // A PGN of cube games (the arbiter's own) as the opening book, cut
    // after 5 plies.
    cube_match("format=random plies=6", 20, "book.pgn");
    cube_match("file=book.pgn format=pgn plies=5", 20, "from-pgn.pgn");
    let book = journal(&dir.join("book.pgn.journal"));
    let games = journal(&dir.join("from-pgn.pgn.journal"));
    let first5 = |g: &serde_json::Value| g["moves"].as_array().unwrap()[..5].to_vec();
    assert_eq!(
        first5(&games[0]),
        first5(&book[0]),
        "the book's first game, 5 plies"
    );
    assert_eq!(
        first5(&games[1]),
        first5(&book[0]),
        "the same opening, seats swapped"
    );
    // A position-text file (any board; `#` lines are comments).
    let start = "4/4/PPPP/RQKR|4/4/4/NBBN|nbbn/4/4/4|rkqr/pppp/4/4 w - - 0 1";
    std::fs::write(dir.join("cube.epd"), format!("# cube starts\n{start}\n")).unwrap();
    cube_match("file=cube.epd format=text", 10, "t.pgn");
    assert_eq!(pgn_check(&dir, "t.pgn").len(), 2);
    let text = std::fs::read_to_string(dir.join("t.pgn")).unwrap();
    assert!(text.contains(&format!("[FEN \"{start}\"]")), "{text}");
    // A file that is not an opening of the variant is refused, and no game
    // is played.
    std::fs::write(
        dir.join("bad.epd"),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n",
    )
    .unwrap();
    let engine = format!("cmd={}", ndchess());
    let out = std::process::Command::new(ndchess())
        .args([
            "match",
            "-engine",
            &engine,
            "-engine",
            &engine,
            "-each",
            "nodes=10",
            "-variant",
            "cube",
            "-openings",
            "file=bad.epd",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("opening 1"));
}

#[test]
fn an_sprt_stops_the_match_once_it_decides() {
    let dir = workdir("sprt");
    let out = arbiter_line(
        &dir,
        &format!(
            "match -engine cmd={n} name=strong nodes=4000 -engine cmd={n} name=weak depth=1 \
             -rounds 50 -games 2 -repeat -openings format=random plies=4 -maxmoves 100 \
             -sprt elo0=0 elo1=300 alpha=0.1 beta=0.1 -json s.json -quiet",
            n = ndchess()
        ),
    );
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("s.json")).unwrap()).unwrap();
    assert_eq!(s["sprt"]["status"], "H1 accepted", "{s}");
    let played = s["played"].as_u64().unwrap();
    assert!(played < 100, "stopped early: {played} games");
    assert!(s["sprt"]["llr"].as_f64().unwrap() >= s["sprt"]["upper"].as_f64().unwrap());
    assert!(String::from_utf8_lossy(&out.stdout).contains("SPRT: llr"));
}

#[test]
fn endgame_tables_adjudicate_games_they_hold() {
    // `-tb DIR`: a game that reaches a position of the tables ends with the
    // tables' result. In the cube, K+R against K is a stalemate win (¾–¼)
    // and K+Q against K a mate; the tables are built first.
    let dir = workdir("tb");
    let built = std::process::Command::new(ndchess())
        .args([
            "tablebase",
            "generate",
            "--variant",
            "cube",
            "--dir",
            "tb",
            "-m",
            "KRvK",
            "-m",
            "KQvK",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    std::fs::write(
        dir.join("ends.epd"),
        "4/4/4/KR2|4/4/4/4|4/4/4/4|2k1/4/4/4 w - - 0 1\n4/4/4/KQ2|4/4/4/4|4/4/4/4|2k1/4/4/4 w - - 0 1\n",
    )
    .unwrap();
    arbiter_line(
        &dir,
        &format!(
            "match -engine cmd={n} name=a -engine cmd={n} name=b -each nodes=200 -variant cube \
             -rounds 1 -games 2 -openings file=ends.epd format=text order=sequential -tb tb \
             -pgnout tb.pgn",
            n = ndchess()
        ),
    );
    let games = journal(&dir.join("tb.pgn.journal"));
    assert_eq!(games.len(), 2);
    let reasons: Vec<String> = games
        .iter()
        .map(|g| g["reason"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("tablebase") && r.contains("stalemate")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("tablebase") && r.contains("mates")),
        "{reasons:?}"
    );
    for g in &games {
        // One move was played from the opening, then the tables decided.
        assert_eq!(g["moves"].as_array().unwrap().len(), 1, "{g}");
    }
    assert_eq!(pgn_check(&dir, "tb.pgn").len(), 2);
}
