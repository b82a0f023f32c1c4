//! The real xboard GUI (Debian's xboard 4.9) plays ndchess, unattended
//! under Xvfb: `engines/xboard/ci-games.sh` runs six games — ndchess
//! against itself in `normal`, `fischerandom`, `cylinder` and the
//! engine-defined `torus`, and ndchess against Fairy-Max on the cylinder
//! with either colour, xboard refereeing — and this test reads what they
//! left behind: the PGN, xboard's debug log (every line between xboard
//! and the engines) and a screenshot of the final board.
//!
//! It checks what a GUI user would notice: each game ended with a result
//! by the rules or by an engine (mate, stalemate, repetition, agreement,
//! resignation), never by a time forfeit, an illegal or rejected move or
//! a crash; no engine ever answered `Illegal move`; ndchess never refused
//! a line xboard sent; every move an engine made reached its opponent
//! before the next move; the games are real games (at least
//! [`MIN_PLIES`] plies, as many plies in the PGN as moves the engines
//! sent); and the screenshot is a PNG of a drawn board.
//!
//! Nothing here depends on the wall clock: the games run under a time
//! control, but a slow machine only makes them weaker, and a flag fall
//! would show as a time forfeit in the result.
//!
//! Tools (Debian packages): xboard, fairymax, xvfb (xvfb-run) with xauth,
//! xdotool, imagemagick (import). When one is missing the test fails if the
//! environment variable `CI` is set and is skipped loudly otherwise.
//! The logs stay in `ci-logs/xboard/` for CI to keep as artifacts.

#[path = "protocol/uci_support/mod.rs"]
mod uci_support;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use uci_support::find_tool;

/// The games `ci-games.sh` plays, by output directory.
const GAMES: &[&str] = &[
    "normal",
    "fischerandom",
    "cylinder",
    "torus",
    "cylinder-fairymax-white",
    "cylinder-fairymax-black",
];

/// Programs the games need.
const TOOLS: &[&str] = &[
    "xboard", "fairymax", "xvfb-run", "xauth", "xdotool", "import",
];

/// The time control the games are played at (`ci-games.sh`'s
/// XBOARD_TC and XBOARD_INC), and the `level` line xboard must send for
/// it (`level MPS BASE INC`, MPS 0 for an incremental control).
const TC: &str = "0:15";
const INC: &str = "0.15";
const LEVEL: &str = "level 0 0:15 0.15";

/// Fewest plies a game must have. Neither engine resigns before three
/// searches in a row scored it ten pawns down, and no mate or rule draw
/// comes this early between engines that search several plies deep, so a
/// shorter game means something broke.
const MIN_PLIES: usize = 10;

/// Smallest screenshot accepted. The wood-textured 8x8 board alone came
/// to about 190 kB in the runs recorded in the report; an empty or
/// one-colour window of the same size compresses to well under 5 kB.
const MIN_PNG_BYTES: u64 = 20_000;

/// The first eight bytes of every PNG file (PNG specification, 5.2).
const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];

/// One protocol line of xboard's debug log.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    /// The first engine (0) or the second (1).
    engine: usize,
    /// Sent by the engine (true) or to it (false).
    from_engine: bool,
    /// The line's text, with xboard's mid-line log prefixes removed.
    text: String,
}

/// The engine tags as xboard writes them after `<`/`>`.
const TAGS: [&str; 2] = ["first : ", "second: "];

/// The protocol lines of an xboard debug log. Lines xboard logs for
/// itself (`GameEnds(…)`, `book hit`, …) are skipped. xboard writes a
/// move to an engine in two pieces and logs each, so such a line reads
/// `703 >second: usermove 703 >second: d2d4`; the inner prefix is cut.
fn protocol_lines(log: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    for raw in log.lines() {
        let Some((stamp, rest)) = raw.split_once(' ') else {
            continue;
        };
        if stamp.is_empty() || !stamp.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let from_engine = match rest.as_bytes().first() {
            Some(b'<') => true,
            Some(b'>') => false,
            _ => continue,
        };
        let rest = &rest[1..];
        let Some(engine) = TAGS.iter().position(|t| rest.starts_with(t)) else {
            continue;
        };
        let mut text = rest[TAGS[engine].len()..].to_string();
        let inner = format!(">{}", TAGS[engine]);
        while let Some(i) = text.find(&inner) {
            let head = text[..i]
                .trim_end_matches(' ')
                .trim_end_matches(|c: char| c.is_ascii_digit())
                .to_string();
            text = head + &text[i + inner.len()..];
        }
        lines.push(Line {
            engine,
            from_engine,
            text,
        });
    }
    lines
}

/// The `myname` each engine announced (`feature … myname="…"`).
fn engine_names(lines: &[Line]) -> [Option<String>; 2] {
    let mut names = [None, None];
    for l in lines.iter().filter(|l| l.from_engine) {
        if let Some(i) = l.text.find("myname=\"") {
            let rest = &l.text[i + "myname=\"".len()..];
            if let Some(end) = rest.find('"') {
                names[l.engine] = Some(rest[..end].to_string());
            }
        }
    }
    names
}

/// The lines up to xboard's first `result`. A move an engine sends while
/// xboard ends the game (a draw agreed as the engine moves: the move
/// crosses `result` in the pipes) is ignored by xboard ("Ignoring extra
/// move") and belongs to no game, so the relay checks stop there.
fn until_result(lines: &[Line]) -> &[Line] {
    let end = lines
        .iter()
        .position(|l| !l.from_engine && l.text.starts_with("result"))
        .unwrap_or(lines.len());
    &lines[..end]
}

/// The moves the engines sent, in order, as (engine, move).
fn engine_moves(lines: &[Line]) -> Vec<(usize, String)> {
    lines
        .iter()
        .filter(|l| l.from_engine)
        .filter_map(|l| {
            let m = l.text.strip_prefix("move ")?;
            Some((l.engine, m.trim().to_string()))
        })
        .collect()
}

/// Every engine move must reach the other engine (as `usermove M`, or as
/// a bare `M` to an engine without the usermove feature, like Fairy-Max)
/// before any engine sends its next move. Returns the problems found.
fn unrelayed_moves(lines: &[Line]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for l in lines {
        if l.from_engine {
            if let Some(m) = l.text.strip_prefix("move ") {
                if let Some((e, p)) = pending.take() {
                    problems.push(format!(
                        "engine {} played {p}, but engine {} was not told before the next move",
                        e + 1,
                        2 - e
                    ));
                }
                pending = Some((l.engine, m.trim().to_string()));
            }
        } else if let Some((e, p)) = &pending {
            let t = l.text.trim();
            if l.engine != *e && (t == p || t.strip_prefix("usermove ") == Some(p.as_str())) {
                pending = None;
            }
        }
    }
    if let Some((e, p)) = pending {
        problems.push(format!(
            "engine {}'s last move {p} never reached engine {}",
            e + 1,
            2 - e
        ));
    }
    problems
}

/// The value of a PGN tag.
fn pgn_tag<'a>(pgn: &'a str, tag: &str) -> Option<&'a str> {
    let head = format!("[{tag} \"");
    pgn.lines()
        .find_map(|l| l.strip_prefix(head.as_str()))
        .and_then(|r| r.strip_suffix("\"]"))
}

/// The movetext (everything after the tag section).
fn movetext(pgn: &str) -> String {
    pgn.lines()
        .filter(|l| !l.starts_with('['))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The movetext split into comments (`{…}`) and the tokens between them.
fn split_comments(text: &str) -> (Vec<String>, Vec<String>) {
    let mut comments = Vec::new();
    let mut tokens = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        tokens.extend(rest[..open].split_whitespace().map(str::to_string));
        let close = rest[open..].find('}').map_or(rest.len(), |c| open + c);
        comments.push(rest[open + 1..close.min(rest.len())].to_string());
        rest = &rest[(close + 1).min(rest.len())..];
    }
    tokens.extend(rest.split_whitespace().map(str::to_string));
    (comments, tokens)
}

/// The moves of the movetext: tokens that are not move numbers (`12.`,
/// `12...`), NAGs (`$1`) or the result.
fn pgn_plies(text: &str) -> Vec<String> {
    let (_, tokens) = split_comments(text);
    tokens
        .into_iter()
        .filter(|t| !t.starts_with('$'))
        .filter(|t| !matches!(t.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*"))
        .map(|t| {
            // "12.e4" style (no space after the number) keeps the move.
            let digits = t.bytes().take_while(u8::is_ascii_digit).count();
            let after = t[digits..].trim_start_matches('.');
            if digits > 0 && after.len() < t.len() - digits {
                after.to_string()
            } else {
                t
            }
        })
        .filter(|t| !t.is_empty())
        .collect()
}

/// Words in xboard's end-of-game comment that name an end by the rules or
/// by an engine: mate and stalemate (xboard's adjudication or an engine's
/// claim), repetition, fifty moves, insufficient material, an agreed
/// draw, a resignation.
const GOOD_ENDS: &[&str] = &[
    "mates",
    "checkmate",
    "stalemate",
    "repetition",
    "fifty",
    "50-move",
    "insufficient",
    "draw agreed",
    "resigns",
];

/// Words of the ends this test exists to catch: a flag fall ("wins on
/// time"), a forfeit for an invalid move, a move an engine rejected, an
/// engine that crashed or exited, a game xboard aborted or cut short.
const BAD_ENDS: &[&str] = &[
    "time",
    "forfeit",
    "illegal",
    "invalid",
    "rejected",
    "crash",
    "exit",
    "abort",
    "disconnect",
    "long game",
];

/// Width and height from a PNG's IHDR chunk, which the specification
/// (5.6, 11.2.2) puts right after the signature: length (4 bytes), type
/// `IHDR`, width and height as big-endian u32.
fn png_size(bytes: &[u8]) -> Result<(u32, u32), String> {
    if bytes.len() < 24 || bytes[..8] != PNG_SIGNATURE {
        return Err("no PNG signature".into());
    }
    if &bytes[12..16] != b"IHDR" {
        return Err("first chunk is not IHDR".into());
    }
    let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    Ok((be(16), be(20)))
}

/// Everything wrong with one game's files.
fn check_game(dir: &Path, name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    macro_rules! fail {
        ($($arg:tt)*) => {
            problems.push(format!("{name}: {}", format!($($arg)*)))
        };
    }

    let pgn = match fs::read_to_string(dir.join("game.pgn")) {
        Ok(p) => p,
        Err(e) => {
            fail!("no game.pgn: {e}");
            return problems;
        }
    };
    match pgn_tag(&pgn, "Result") {
        Some("1-0" | "0-1" | "1/2-1/2") => {}
        other => fail!("result tag {other:?}"),
    }
    let text = movetext(&pgn);
    let (comments, _) = split_comments(&text);
    let end = comments
        .last()
        .map(|c| c.to_lowercase())
        .unwrap_or_default();
    if !GOOD_ENDS.iter().any(|w| end.contains(w)) || BAD_ENDS.iter().any(|w| end.contains(w)) {
        fail!("the game ended with {end:?}");
    }
    let plies = pgn_plies(&text);
    if plies.len() < MIN_PLIES {
        fail!("only {} plies: {plies:?}", plies.len());
    }

    let log = match fs::read(dir.join("xboard.debug")) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            fail!("no xboard.debug: {e}");
            return problems;
        }
    };
    let lines = protocol_lines(&log);
    let names = engine_names(&lines);
    let is_ndchess = |e: usize| {
        names[e]
            .as_deref()
            .is_some_and(|n| n.starts_with("ndchess"))
    };
    if !(0..2).any(is_ndchess) {
        fail!("no ndchess among the engines {names:?}");
    }
    for l in &lines {
        let who = names[l.engine].as_deref().unwrap_or("?");
        if l.from_engine && l.text.starts_with("Illegal move") {
            fail!("{who} answered {:?}", l.text);
        }
        if l.from_engine
            && is_ndchess(l.engine)
            && (l.text.starts_with("Error") || l.text.starts_with("tellusererror"))
        {
            fail!("ndchess refused a line from xboard: {:?}", l.text);
        }
        if !l.from_engine && is_ndchess(l.engine) && l.text.starts_with("rejected") {
            fail!("xboard {:?} of ndchess", l.text);
        }
    }
    for e in (0..2).filter(|&e| is_ndchess(e)) {
        if !lines
            .iter()
            .any(|l| l.engine == e && !l.from_engine && l.text == LEVEL)
        {
            fail!("engine {} never got {LEVEL:?}", e + 1);
        }
    }
    let played = until_result(&lines);
    for p in unrelayed_moves(played) {
        fail!("{p}");
    }
    let moves = engine_moves(played);
    if moves.len() != plies.len() {
        fail!(
            "the engines sent {} moves but the PGN has {} plies",
            moves.len(),
            plies.len()
        );
    }

    let png = dir.join("final.png");
    match fs::read(&png) {
        Ok(bytes) => {
            if (bytes.len() as u64) < MIN_PNG_BYTES {
                fail!("final.png has only {} bytes", bytes.len());
            }
            match png_size(&bytes) {
                // Eight files of at least 32 pixels, the smallest square
                // size xboard draws pieces at with its built-in images.
                Ok((w, h)) if w >= 256 && h >= 256 => {}
                Ok((w, h)) => fail!("final.png is only {w}x{h}"),
                Err(e) => fail!("final.png: {e}"),
            }
        }
        Err(e) => fail!("no final.png: {e}"),
    }
    problems
}

/// The torus board has 14 ranks where the others have 8, at the same 8
/// files: with the same square size (about width / 8) its window must be
/// about six squares taller than the 8x8 one. Five leaves room for the
/// border; a torus drawn 8x8 would be no taller at all.
fn check_torus_shape(root: &Path) -> Vec<String> {
    let size = |g: &str| {
        fs::read(root.join(g).join("final.png"))
            .ok()
            .and_then(|b| png_size(&b).ok())
    };
    match (size("normal"), size("torus")) {
        (Some((w, h8)), Some((_, h14))) if h14 >= h8 + 5 * w / 8 => Vec::new(),
        (Some(n), Some(t)) => vec![format!(
            "the torus window {t:?} is not drawn 14 ranks tall next to the 8x8 {n:?}"
        )],
        _ => Vec::new(), // missing files are reported per game
    }
}

#[test]
fn xboard_gui_games() {
    let missing: Vec<&str> = TOOLS
        .iter()
        .copied()
        .filter(|t| find_tool(t).is_none())
        .collect();
    if !missing.is_empty() {
        let msg = format!(
            "{} not installed (Debian packages: xboard fairymax xvfb xauth xdotool imagemagick)",
            missing.join(", ")
        );
        if std::env::var_os("CI").is_some() {
            panic!("{msg} (required when CI is set)");
        }
        eprintln!("\n!!!!! SKIPPED xboard GUI games: {msg} !!!!!\n");
        return;
    }
    let tool = |t: &str| find_tool(t).expect("invariant: checked above that every tool is found");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = repo.join("ci-logs").join("xboard");
    eprintln!("xboard GUI games: logs in {}", out.display());
    // The script's stderr (one line per game started and finished) goes
    // straight to the terminal as progress; its stdout (the PGNs) is
    // captured and printed with the test's output.
    let run = Command::new("bash")
        .arg(repo.join("engines/xboard/ci-games.sh"))
        .arg(&out)
        .env("NDCHESS", env!("CARGO_BIN_EXE_ndchess"))
        .env("XBOARD", tool("xboard"))
        .env("FAIRYMAX", tool("fairymax"))
        .env("JOBS", "2")
        .env("XBOARD_TC", TC)
        .env("XBOARD_INC", INC)
        .env("GAME_TIMEOUT", "240")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("cannot run engines/xboard/ci-games.sh: {e}"));
    println!("{}", String::from_utf8_lossy(&run.stdout));

    let mut problems = Vec::new();
    if !run.status.success() {
        problems.push(format!("ci-games.sh exited with {}", run.status));
    }
    for g in GAMES {
        problems.extend(check_game(&out.join(g), g));
    }
    problems.extend(check_torus_shape(&out));
    assert!(
        problems.is_empty(),
        "xboard GUI games (logs in {}):\n{}",
        out.display(),
        problems.join("\n")
    );
}

/// The log and PGN readers on text copied from real xboard 4.9.1 runs, so
/// that a reader bug cannot make the game checks pass vacuously.
/// A move that crossed the end of the game, copied from a real xboard
/// 4.9.1 log (a CI run of 2026-11-26: Fairy-Max offered a draw with its
/// move, ndchess accepted and, having one legal reply, moved at once).
#[test]
fn a_move_crossing_the_game_end_is_no_relay_fault() {
    let log = "\
42127 <second: offer draw
42127 <second: move f3f2
42127 >first : draw
42127 >first : usermove 42127 >first : f3f2
42128 <first : offer draw
GameEnds(28, Draw agreed, 4)
42129 >first : result 1/2-1/2 {Draw agreed}
42129 >second: result 1/2-1/2 {Draw agreed}
42129 >first : force
42137 <first : move g1h1
Ignoring extra move from first
";
    let lines = protocol_lines(log);
    assert_eq!(
        unrelayed_moves(&lines).len(),
        1,
        "the whole log has the stray move"
    );
    let played = until_result(&lines);
    assert!(unrelayed_moves(played).is_empty());
    assert_eq!(engine_moves(played), vec![(1, "f3f2".to_string())]);
}

#[test]
fn readers_on_recorded_xboard_text() {
    let log = "\
164 <first : move d2d4
165 >second: time 1000
168 >second: usermove 703 >second: d2d4
181 <second: move d7d5
185 >first : usermove 953 >first : d7d5
190 <first : move a2a3
GameEnds(26, Black resigns, 6)
191 >second: a2a3
";
    let lines = protocol_lines(log);
    assert_eq!(lines.len(), 7, "{lines:?}");
    assert_eq!(lines[2].text, "usermove d2d4");
    assert_eq!(lines[4].text, "usermove d7d5");
    assert_eq!(lines[4].engine, 0);
    assert!(!lines[4].from_engine);
    assert!(unrelayed_moves(&lines).is_empty());
    assert_eq!(engine_moves(&lines).len(), 3);
    // A move the other engine never got is reported, whether a move
    // follows or the log ends.
    let dropped = protocol_lines("1 <first : move e2e4\n2 <second: move e7e5\n");
    assert_eq!(unrelayed_moves(&dropped).len(), 2);

    // From the Fischer random run: the start diagram is a comment, move
    // numbers and results are no plies.
    let pgn = "[Result \"1-0\"]\n[SetUp \"1\"]\n\n{--------------\nr k q n b b r n\n\
               white to play\n--------------}\n1. d4 {+0.23/11} d5 {-0.13/11 0.3} 2. O-O\n\
               {+0.19/11 0.4} O-O-O 3. Bc1xc9 {-0.06/9 0.3}\n{Black resigns} 1-0\n";
    assert_eq!(pgn_tag(pgn, "Result"), Some("1-0"));
    assert_eq!(
        pgn_plies(&movetext(pgn)),
        ["d4", "d5", "O-O", "O-O-O", "Bc1xc9"]
    );
    let (comments, _) = split_comments(&movetext(pgn));
    assert_eq!(comments.last().map(String::as_str), Some("Black resigns"));

    // A PNG header: signature, IHDR length 13, "IHDR", width, height.
    let mut png = PNG_SIGNATURE.to_vec();
    png.extend([0, 0, 0, 13]);
    png.extend(b"IHDR");
    png.extend(421u32.to_be_bytes());
    png.extend(790u32.to_be_bytes());
    assert_eq!(png_size(&png), Ok((421, 790)));
    assert!(png_size(b"GIF89a..................").is_err());
}
