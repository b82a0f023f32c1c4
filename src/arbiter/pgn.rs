//! PGN: the arbiter's game records, written so that python-chess and the
//! chess GUIs read the chess and Chess960 games, and read back by the
//! arbiter for every board (`ndchess pgn check`, PGN openings).
//!
//! Chess and Chess960 moves are written in SAN. Every other board's moves
//! are written in the coordinates of docs/notation.md (`c2c4`, `b1c3b`),
//! which the reader takes on any board; their `FEN` tag holds the position
//! text of docs/notation.md and their `Variant` tag the variant spec.

use std::fmt;
use std::sync::Arc;

use crate::board::registry::{self, PgnName};
use crate::board::variant::Variant;
use crate::game::record::{ForfeitCause, Game, GameEnd, Step};
use crate::protocol::text::result_text;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::notation::san::{CheckMark, LetterSet, check_mark, parse_short, short_notation};
use crate::rules::position::Position;

use super::engine::{castles_short, read_move};

/// Why a PGN could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PgnError {
    /// A tag pair or token that is not PGN.
    Syntax(String),
    /// The variant tag names no variant this engine knows.
    Variant(String),
    /// The FEN tag is not a position of the variant.
    Position(String),
    /// A move that is not legal where it stands.
    Move {
        /// The move's place (1-based ply).
        ply: usize,
        /// The text.
        text: String,
    },
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgnError::Syntax(s) => write!(f, "not PGN: {s}"),
            PgnError::Variant(s) => write!(f, "unknown variant: {s}"),
            PgnError::Position(s) => write!(f, "bad FEN tag: {s}"),
            PgnError::Move { ply, text } => write!(f, "ply {ply}: illegal move {text:?}"),
        }
    }
}

impl std::error::Error for PgnError {}

/// How PGN knows the variant's family (by the registry's data, so a new
/// family decides this where it is defined).
fn pgn_name(v: &Variant) -> PgnName {
    registry::family(&v.name).map_or(PgnName::Spec, |f| f.pgn)
}

/// Whether the board's games are written in SAN (the boards python-chess
/// and every chess GUI read).
fn writes_san(v: &Variant) -> bool {
    pgn_name(v) != PgnName::Spec
}

/// The `Variant` tag of a variant (none for chess).
pub fn variant_tag(v: &Variant) -> Option<String> {
    match pgn_name(v) {
        PgnName::Standard => None,
        PgnName::Known(name) => Some(name.into()),
        PgnName::Spec => Some(v.spec.clone()),
    }
}

/// The variant a `Variant` tag names (absent: chess). Besides ndchess
/// specs it reads the names other programs write: "Standard", "normal",
/// "Chess960", "Fischer Random", …
pub fn variant_from_tag(tag: Option<&str>) -> Result<Arc<Variant>, PgnError> {
    let spec = match tag.map(str::trim) {
        None | Some("") => "chess".to_string(),
        Some(t) => match t.to_ascii_lowercase().as_str() {
            "standard" | "normal" => "chess".into(),
            "chess 960" | "fischerandom" | "fischerrandom" | "fischer random" => {
                "chess960:sp=518".into()
            }
            lower => registry::FAMILIES
                .iter()
                .find(|f| matches!(f.pgn, PgnName::Known(n) if n.eq_ignore_ascii_case(lower)))
                .map_or_else(|| t.to_string(), |f| f.examples[0].to_string()),
        },
    };
    registry::build(&spec).map_err(|e| PgnError::Variant(format!("{spec}: {e}")))
}

/// A move as the PGN of its board writes it.
pub fn move_text(pos: &Position, m: Move) -> String {
    let v = pos.variant();
    if !writes_san(v) {
        return pos.move_text(m, v.fischer_random_notation);
    }
    let mut s = if m.kind == MoveKind::Castle {
        let short = castles_short(pos, m);
        let mut c = if short { "O-O" } else { "O-O-O" }.to_string();
        match check_mark(pos, m) {
            Some(CheckMark::Mate) => c.push('#'),
            Some(_) => c.push('+'),
            None => {}
        }
        c
    } else {
        short_notation(pos, m, LetterSet::English)
    };
    // SAN has neither T6's "e.p." nor its "++" for a double check.
    s = s.replace(" e.p.", "").replace("e.p.", "");
    if s.ends_with("++") {
        s.pop();
    }
    s
}

/// Reads a PGN move token: SAN (with either castling form) on the SAN
/// boards, coordinates on every board.
pub fn read_move_text(pos: &Position, text: &str) -> Option<Move> {
    if let Ok(m) = read_move(pos, text) {
        return Some(m);
    }
    if writes_san(pos.variant()) {
        return parse_short(pos, text, LetterSet::English).ok();
    }
    None
}

/// The standard `Termination` tag value for an end.
pub fn termination(end: &GameEnd) -> &'static str {
    match end {
        // A player's own resignation ends the game normally (as in PGN
        // from human play); the reason stays in the final comment.
        GameEnd::Rules(_) | GameEnd::Resigned { .. } => "normal",
        GameEnd::Adjudicated { .. } => "adjudication",
        GameEnd::Forfeit { cause, .. } => match cause {
            ForfeitCause::NoStart => "abandoned",
            ForfeitCause::Time => "time forfeit",
            ForfeitCause::Infraction => "rules infraction",
        },
    }
}

/// What a PGN record says about the game beyond its moves.
#[derive(Clone, Debug, Default)]
pub struct PgnHeader {
    /// `Event`.
    pub event: String,
    /// `Site`.
    pub site: String,
    /// `Date` (`YYYY.MM.DD`).
    pub date: String,
    /// `Round`.
    pub round: String,
    /// The players in seat order.
    pub players: Vec<String>,
    /// `TimeControl` (`-` when none).
    pub time_control: String,
    /// Extra tags written after the standard ones.
    pub extra: Vec<(String, String)>,
}

fn quote(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes a game as PGN: the Seven Tag Roster, `Variant`, `FEN`/`SetUp`,
/// `TimeControl`, `Termination`, `PlyCount`, the moves with the engines'
/// scores and think times as comments, and the end's reason.
pub fn write_game(game: &Game, header: &PgnHeader) -> String {
    let v = game.start().variant().clone();
    let result = game
        .end()
        .map(|e| result_text(e.outcome()))
        .unwrap_or_else(|| "*".into());
    let mut out = String::new();
    let mut tag = |k: &str, val: &str| out.push_str(&format!("[{k} \"{}\"]\n", quote(val)));
    tag("Event", &header.event);
    tag("Site", &header.site);
    tag("Date", &header.date);
    tag("Round", &header.round);
    let seat_tags = ["White", "Black"];
    for (i, name) in header.players.iter().enumerate() {
        let key = match seat_tags.get(i) {
            Some(k) => k.to_string(),
            None => {
                let s = crate::board::seating::Seat::new(i);
                let n = v.seating.name(s);
                let mut c = n.chars();
                c.next()
                    .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                    .unwrap_or_default()
            }
        };
        tag(&key, name);
    }
    tag("Result", &result);
    if let Some(t) = variant_tag(&v) {
        tag("Variant", &t);
    }
    let standard = Position::start(&v);
    // Every board but chess names its start, so that a reader needs no
    // table of start positions.
    if game.start().to_text() != standard.to_text() || pgn_name(&v) != PgnName::Standard {
        tag("FEN", &game.start().to_text());
        tag("SetUp", "1");
    }
    tag("TimeControl", &header.time_control);
    if let Some(end) = game.end() {
        tag("Termination", termination(end));
    }
    tag("PlyCount", &game.plies().len().to_string());
    for (k, val) in &header.extra {
        tag(k, val);
    }
    out.push('\n');
    let mut body = Vec::new();
    let mut pos = game.start().clone();
    let first_seat = pos.to_move();
    for (i, ply) in game.plies().iter().enumerate() {
        let Step::Move(m) = ply.step else {
            // Simultaneous steps: every seat's move in coordinates.
            body.push(format!("{}. {{{}}}", ply.number, ply.text));
            continue;
        };
        let mover = pos.to_move();
        if mover == first_seat || i == 0 {
            if mover == first_seat {
                body.push(format!("{}.", ply.number));
            } else {
                body.push(format!("{}...", ply.number));
            }
        }
        body.push(move_text(&pos, m));
        if let Some(a) = &ply.annotation {
            let score = match a.eval {
                Some(e) => match (e.mate, e.cp) {
                    (Some(n), _) if n > 0 => format!("+M{n}"),
                    (Some(n), _) => format!("-M{}", -n),
                    (None, Some(cp)) => format!("{:+.2}", cp as f64 / 100.0),
                    _ => String::new(),
                },
                None => String::new(),
            };
            let depth = a
                .eval
                .and_then(|e| e.depth)
                .map(|d| format!("/{d}"))
                .unwrap_or_default();
            let time = format!("{:.3}s", a.time.as_secs_f64());
            body.push(if score.is_empty() {
                format!("{{{time}}}")
            } else {
                format!("{{{score}{depth} {time}}}")
            });
        }
        pos.make(m);
    }
    if let Some(end) = game.end() {
        body.push(format!("{{{}}}", end.reason(game).replace('}', ")")));
    }
    body.push(result);
    // Lines of at most 80 characters.
    let mut line = String::new();
    for tok in body {
        if !line.is_empty() && line.len() + 1 + tok.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&tok);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

/// A game read from PGN.
#[derive(Clone, Debug)]
pub struct PgnGame {
    /// The tags in the order read.
    pub tags: Vec<(String, String)>,
    /// The start position (from `Variant` and `FEN`).
    pub start: Position,
    /// The moves, checked legal.
    pub moves: Vec<Move>,
    /// The comment after the last move (the arbiter writes why the game
    /// ended there).
    pub final_comment: Option<String>,
}

impl PgnGame {
    /// A tag's value.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The game replayed.
    pub fn replay(&self) -> Game {
        let mut g = Game::new(self.start.clone());
        for m in &self.moves {
            // Invariant: `read_games` checked every move legal in turn.
            if g.play(*m, None).is_err() {
                break;
            }
        }
        g
    }
}

/// Splits PGN text into games' (tags, movetext) pieces.
fn split_games(text: &str) -> Vec<(Vec<(String, String)>, String)> {
    let mut games = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    let mut moves = String::new();
    let mut in_moves = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('%') {
            continue;
        }
        if t.starts_with('[') && t.ends_with(']') {
            if in_moves {
                games.push((std::mem::take(&mut tags), std::mem::take(&mut moves)));
                in_moves = false;
            }
            let inner = &t[1..t.len() - 1];
            if let Some((k, rest)) = inner.split_once(char::is_whitespace) {
                let v = rest.trim();
                let v = v.strip_prefix('"').unwrap_or(v);
                let v = v.strip_suffix('"').unwrap_or(v);
                tags.push((k.to_string(), v.replace("\\\"", "\"").replace("\\\\", "\\")));
            }
        } else if !t.is_empty() {
            in_moves = true;
            moves.push_str(t);
            moves.push('\n');
        }
    }
    if in_moves || !tags.is_empty() {
        games.push((tags, moves));
    }
    games
}

/// The move tokens of a movetext: comments, variations, NAGs, move
/// numbers and the result left out.
fn move_tokens(text: &str) -> Result<Vec<String>, PgnError> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut chars = text.chars().peekable();
    let mut tok = String::new();
    let flush = |tok: &mut String, out: &mut Vec<String>| {
        let t = std::mem::take(tok);
        let t = t.trim_start_matches(|c: char| c.is_ascii_digit());
        let t = t.trim_start_matches('.');
        if t.is_empty()
            || t.starts_with('$')
            || matches!(t, "*" | "1-0" | "0-1" | "1/2-1/2" | "e.p." | "ep")
            || t.contains("/4-")
            || t.chars()
                .all(|c| c.is_ascii_digit() || c == '-' || c == '/')
        {
            return;
        }
        out.push(t.trim_end_matches(['!', '?']).to_string());
    };
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                flush(&mut tok, &mut out);
                for d in chars.by_ref() {
                    if d == '}' {
                        break;
                    }
                }
            }
            ';' => {
                flush(&mut tok, &mut out);
                for d in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
            }
            '(' => {
                flush(&mut tok, &mut out);
                depth += 1;
            }
            ')' => {
                if depth == 0 {
                    return Err(PgnError::Syntax("unbalanced ')'".into()));
                }
                tok.clear();
                depth -= 1;
            }
            c if c.is_whitespace() => {
                if depth == 0 {
                    flush(&mut tok, &mut out);
                } else {
                    tok.clear();
                }
            }
            c => {
                if depth == 0 {
                    tok.push(c);
                }
            }
        }
    }
    flush(&mut tok, &mut out);
    Ok(out)
}

/// Reads every game of a PGN text, checking each move's legality.
pub fn read_games(text: &str) -> Vec<Result<PgnGame, PgnError>> {
    split_games(text)
        .into_iter()
        .map(|(tags, movetext)| {
            let tag = |k: &str| tags.iter().find(|(t, _)| t == k).map(|(_, v)| v.as_str());
            let v = variant_from_tag(tag("Variant"))?;
            let start = match tag("FEN") {
                Some(f) => Position::from_text(&v, f)
                    .map_err(|e| PgnError::Position(format!("{f}: {e}")))?,
                None => Position::start(&v),
            };
            let mut pos = start.clone();
            let mut moves = Vec::new();
            for (i, t) in move_tokens(&movetext)?.into_iter().enumerate() {
                let m = read_move_text(&pos, &t).ok_or(PgnError::Move {
                    ply: i + 1,
                    text: t.clone(),
                })?;
                pos.make(m);
                moves.push(m);
            }
            let final_comment = movetext
                .rfind('{')
                .and_then(|i| movetext[i + 1..].split_once('}'))
                .map(|(c, rest)| (c.trim().to_string(), rest))
                .filter(|(_, rest)| move_tokens(rest).is_ok_and(|t| t.is_empty()))
                .map(|(c, _)| c);
            Ok(PgnGame {
                tags: tags.clone(),
                start,
                moves,
                final_comment,
            })
        })
        .collect()
}

/// What `pgn check` found for one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckReport {
    /// Moves replayed.
    pub plies: usize,
    /// The final position's text.
    pub final_position: String,
    /// The result the rules give the final position, if it ends the game.
    pub rules_result: Option<String>,
    /// Disagreements between the record and the rules.
    pub problems: Vec<String>,
}

/// Replays a game and checks its `Result` and `Termination` against the
/// rules: a game that ended "normal"ly must end by the rules with that
/// result; any other game must not have ended by the rules before its last
/// move (every move was checked legal when read).
pub fn check_game(g: &PgnGame) -> CheckReport {
    let game = g.replay();
    let mut problems = Vec::new();
    if game.plies().len() != g.moves.len() {
        problems.push(format!(
            "the game ended by the rules after {} of its {} moves",
            game.plies().len(),
            g.moves.len()
        ));
    }
    let rules_result = game.end().map(|e| result_text(e.outcome()));
    let claimed = g.tag("Result").unwrap_or("*");
    match g.tag("Termination") {
        Some("normal") | None => match &rules_result {
            Some(r) if r == claimed => {}
            Some(r) => problems.push(format!("Result {claimed} but the rules give {r}")),
            None if claimed == "*" => {}
            // A resignation: the comment names who resigned, and the
            // result must be that side's loss.
            None if g
                .final_comment
                .as_deref()
                .is_some_and(|c| c.ends_with(" resigns")) => {}
            None => problems.push(format!(
                "Result {claimed}, but the final position does not end the game"
            )),
        },
        Some(_) => {
            if let Some(r) = &rules_result {
                problems.push(format!(
                    "the rules end the game ({r}) though its Termination is not normal"
                ));
            }
        }
    }
    if let Some(n) = g.tag("PlyCount").and_then(|n| n.parse::<usize>().ok())
        && n != g.moves.len()
    {
        problems.push(format!("PlyCount {n} but {} moves", g.moves.len()));
    }
    CheckReport {
        plies: game.plies().len(),
        final_position: game.position().to_text(),
        rules_result,
        problems,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_skip_comments_variations_numbers_and_results() {
        let t =
            move_tokens("1. e4 {+0.2/3 0.1s} e5 (1... c5 2. Nf3) 2. Nf3! $1 Nc6 ; x\n3... a6 1-0")
                .unwrap();
        assert_eq!(t, ["e4", "e5", "Nf3", "Nc6", "a6"]);
        assert!(move_tokens("1. e4 )").is_err());
    }

    #[test]
    fn en_passant_and_castling_are_plain_san() {
        let v = registry::build("chess").unwrap();
        let g = Game::from_moves(
            Position::start(&v),
            &[
                "e2e4", "a7a6", "e4e5", "d7d5", "e5d6", "a6a5", "g1f3", "a5a4", "f1e2", "a4a3",
                "e1g1",
            ],
        )
        .unwrap();
        let text = write_game(&g, &PgnHeader::default());
        assert!(text.contains("3. exd6 a5"), "{text}");
        assert!(text.contains("6. O-O"), "{text}");
        let back = read_games(&text);
        assert_eq!(back[0].as_ref().unwrap().moves.len(), 11);
    }

    #[test]
    fn a_chess_game_round_trips_through_san() {
        let v = registry::build("chess").unwrap();
        let g = Game::from_moves(Position::start(&v), &["f2f3", "e7e5", "g2g4", "d8h4"]).unwrap();
        let text = write_game(
            &g,
            &PgnHeader {
                event: "t".into(),
                players: vec!["a".into(), "b".into()],
                time_control: "-".into(),
                ..PgnHeader::default()
            },
        );
        assert!(text.contains("1. f3 e5 2. g4 Qh4#"), "{text}");
        assert!(text.contains("[Result \"0-1\"]"));
        let back = read_games(&text);
        let back = back[0].as_ref().unwrap();
        assert_eq!(back.moves.len(), 4);
        let r = check_game(back);
        assert!(r.problems.is_empty(), "{:?}", r.problems);
        assert_eq!(r.rules_result.as_deref(), Some("0-1"));
    }
}
