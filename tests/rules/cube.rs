//! Schach hoch 3, the 4x4x4 cube (seed 001, RULES §2.10): the seed's seven
//! elementary endgames replayed move by move, and the rules the issue lists
//! (promotion cells, pawns moving up, stalemate scored ¾–¼, repetition, no
//! 50-move rule, bare kings).
//!
//! Legality is judged twice: by the engine (the seed's move must read as one
//! of its legal moves) and by [`Mini`], a few lines of coordinate arithmetic
//! written from RULES §2.10 for positions without pawns, which must produce
//! the same move list in every position of every game and agree on the
//! final mate or stalemate.

use std::collections::BTreeSet;
use std::sync::Arc;

use ndchess::board::piece::{piece_kind, piece_seat};
use ndchess::board::seating::Seat;
use ndchess::board::variant::Variant;
use ndchess::protocol::text::result_text;
use ndchess::rules::moves::Move;
use ndchess::rules::notation;
use ndchess::rules::notation::san::{
    CheckMark, LetterSet, long_notation, parse_annotated, parse_short,
};
use ndchess::rules::outcome::{EndReason, Outcome};
use ndchess::rules::position::Position;

fn cube() -> Arc<Variant> {
    Variant::from_spec("cube").expect("invariant: 'cube' is a built-in variant")
}

/// Cube coordinates `[file, rank, level]`, 0-based, of a cell name like
/// `b1a` (levels a b g d = α β γ δ).
fn coords(name: &str) -> [i32; 3] {
    let c: Vec<char> = name.chars().collect();
    assert_eq!(c.len(), 3, "cell name {name}");
    let level = "abgd"
        .find(c[2])
        .unwrap_or_else(|| panic!("level of {name}"));
    [
        c[0] as i32 - 'a' as i32,
        c[1] as i32 - '1' as i32,
        level as i32,
    ]
}

fn name(x: [i32; 3]) -> String {
    format!(
        "{}{}{}",
        (b'a' + x[0] as u8) as char,
        x[1] + 1,
        ['a', 'b', 'g', 'd'][x[2] as usize]
    )
}

/// The English piece letter of a seed letter (German K D T L S B, and the
/// seed's Q for the queen).
fn english(letter: char) -> char {
    match letter {
        'K' => 'K',
        'D' | 'Q' => 'Q',
        'T' => 'R',
        'L' => 'B',
        'S' => 'N',
        'B' => 'P',
        other => panic!("unknown seed piece letter {other}"),
    }
}

/// Reads the seed's start positions, "Kw - c1a, Tw - a1a, Ks - b4d" (also
/// "Kw -c1a"), as (English letter, white?, cell).
fn seed_placement(text: &str) -> Vec<(char, bool, [i32; 3])> {
    text.split(',')
        .map(|item| {
            let (piece, cell) = item
                .split_once('-')
                .unwrap_or_else(|| panic!("'{item}': expected 'Kw - c1a'"));
            let piece: Vec<char> = piece.trim().chars().collect();
            assert_eq!(piece.len(), 2, "'{item}'");
            let white = match piece[1] {
                'w' => true,
                's' => false,
                c => panic!("'{item}': colour {c}"),
            };
            (english(piece[0]), white, coords(cell.trim()))
        })
        .collect()
}

/// The engine position with `pieces` (English letters, upper case white),
/// written as a position text: slices = levels a b g d, ranks 4..1, files a..d
/// (docs/notation.md), built here by hand rather than by the engine.
fn position(pieces: &[(char, bool, [i32; 3])], white_to_move: bool, halfmove: u32) -> Position {
    let mut slices = Vec::new();
    for level in 0..4 {
        let mut ranks = Vec::new();
        for rank in (0..4).rev() {
            let mut row = String::new();
            let mut empty = 0;
            for file in 0..4 {
                match pieces.iter().find(|p| p.2 == [file, rank, level]) {
                    Some(&(letter, white, _)) => {
                        if empty > 0 {
                            row.push_str(&empty.to_string());
                            empty = 0;
                        }
                        row.push(if white {
                            letter
                        } else {
                            letter.to_ascii_lowercase()
                        });
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                row.push_str(&empty.to_string());
            }
            ranks.push(row);
        }
        slices.push(ranks.join("/"));
    }
    let text = format!(
        "{} {} - - {halfmove} 1",
        slices.join("|"),
        if white_to_move { "w" } else { "b" }
    );
    Position::from_text(&cube(), &text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Pieces written "Kw c1a, Ks b4d, Pw b3d" (English letters).
fn pieces(text: &str) -> Vec<(char, bool, [i32; 3])> {
    text.split(',')
        .map(|item| {
            let item: Vec<&str> = item.split_whitespace().collect();
            let c: Vec<char> = item[0].chars().collect();
            (c[0], c[1] == 'w', coords(item[1]))
        })
        .collect()
}

// ---------------------------------------------------------------------------
// An independent move generator for pawnless cube positions (RULES §2.10).

/// A pawnless position: (letter, white?, cell) and the side to move.
#[derive(Clone)]
struct Mini {
    pieces: Vec<(char, bool, [i32; 3])>,
    white_to_move: bool,
}

impl Mini {
    fn at(&self, x: [i32; 3]) -> Option<(char, bool)> {
        self.pieces.iter().find(|p| p.2 == x).map(|p| (p.0, p.1))
    }

    /// Whether a `letter` on `from` attacks `to` (moves and captures are the
    /// same for these pieces): king one step along one axis; queen one step
    /// along one axis or one face diagonal; bishop one face-diagonal step;
    /// knight (2,1,0) in any order and signs; rook along one axis over empty
    /// cells.
    fn attacks(&self, letter: char, from: [i32; 3], to: [i32; 3]) -> bool {
        let d: Vec<i32> = (0..3).map(|i| to[i] - from[i]).collect();
        let changed = d.iter().filter(|&&x| x != 0).count();
        let steps = d.iter().all(|&x| x.abs() <= 1);
        match letter {
            'K' => changed == 1 && steps,
            'Q' => (1..=2).contains(&changed) && steps,
            'B' => changed == 2 && steps,
            'N' => {
                let mut a: Vec<i32> = d.iter().map(|x| x.abs()).collect();
                a.sort_unstable();
                a == [0, 1, 2]
            }
            'R' => {
                if changed != 1 {
                    return false;
                }
                let len = d.iter().map(|x| x.abs()).sum::<i32>();
                (1..len).all(|k| {
                    let x = [0, 1, 2].map(|i| from[i] + d[i].signum() * k);
                    self.at(x).is_none()
                })
            }
            other => panic!("Mini handles no '{other}'"),
        }
    }

    fn attacked(&self, x: [i32; 3], by_white: bool) -> bool {
        self.pieces
            .iter()
            .any(|&(l, w, from)| w == by_white && from != x && self.attacks(l, from, x))
    }

    fn king(&self, white: bool) -> [i32; 3] {
        self.pieces
            .iter()
            .find(|p| p.0 == 'K' && p.1 == white)
            .expect("invariant: both kings are on the board")
            .2
    }

    fn in_check(&self) -> bool {
        self.attacked(self.king(self.white_to_move), !self.white_to_move)
    }

    fn play(&self, from: [i32; 3], to: [i32; 3]) -> Mini {
        let mut next = self.clone();
        next.pieces.retain(|p| p.2 != to);
        for p in &mut next.pieces {
            if p.2 == from {
                p.2 = to;
            }
        }
        next.white_to_move = !self.white_to_move;
        next
    }

    /// Legal moves as "from-to" cell names.
    fn moves(&self) -> BTreeSet<String> {
        let us = self.white_to_move;
        let mut out = BTreeSet::new();
        for &(letter, white, from) in &self.pieces {
            if white != us {
                continue;
            }
            for f in 0..4 {
                for r in 0..4 {
                    for l in 0..4 {
                        let to = [f, r, l];
                        if to == from
                            || self.at(to).is_some_and(|(_, w)| w == us)
                            || !self.attacks(letter, from, to)
                        {
                            continue;
                        }
                        let after = self.play(from, to);
                        if !after.attacked(after.king(us), !us) {
                            out.insert(format!("{}-{}", name(from), name(to)));
                        }
                    }
                }
            }
        }
        out
    }
}

/// The engine's legal moves as "from-to" cell names.
fn engine_moves(pos: &Position) -> BTreeSet<String> {
    let g = &pos.variant().geometry;
    pos.legal_moves()
        .iter()
        .map(|m| {
            format!(
                "{}-{}",
                g.cell_name(m.from as usize),
                g.cell_name(m.to as usize)
            )
        })
        .collect()
}

/// The pawnless engine position as a [`Mini`].
fn mini(pos: &Position) -> Mini {
    let v = pos.variant();
    let g = &v.geometry;
    let pieces = (0..g.cell_count())
        .filter(|&c| pos.piece_at(c) != 0)
        .map(|c| {
            let p = pos.piece_at(c);
            let x = coords(&g.cell_name(c));
            (v.kinds[piece_kind(p)].letter, piece_seat(p).index() == 0, x)
        })
        .collect();
    Mini {
        pieces,
        white_to_move: pos.to_move().index() == 0,
    }
}

// ---------------------------------------------------------------------------
// The seed's games.

/// How the seed says a line ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// "matt".
    Mate,
    /// "patt" (a ¾ win for the side that stalemates).
    Stalemate,
}

#[derive(Clone, Debug)]
enum Item {
    /// A move as the seed writes it ("Qb3b+", "Td4b!").
    Move(String),
    /// "matt" / "patt" after the last move.
    End(Ending),
    /// "(nicht 7. Qc3g? patt)": a refuted alternative to the move before it.
    Instead(Vec<Item>),
    /// "(der Käfig)": a comment.
    Comment,
}

/// Splits a game text of the seed into items.
fn items(text: &str) -> Vec<Item> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (before, group, after) = match rest.find('(') {
            Some(i) => {
                let j = rest[i..].find(')').expect("seed parentheses are closed") + i;
                (&rest[..i], Some(&rest[i + 1..j]), &rest[j + 1..])
            }
            None => (rest, None, ""),
        };
        for word in before.split_whitespace() {
            let word = word.trim_start_matches('.');
            let bare = word.trim_end_matches('.');
            if bare.is_empty() || bare.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            out.push(match bare {
                "matt" => Item::End(Ending::Mate),
                "patt" => Item::End(Ending::Stalemate),
                _ => Item::Move(word.to_string()),
            });
        }
        if let Some(group) = group {
            out.push(match group.trim().strip_prefix("nicht") {
                Some(line) => Item::Instead(items(line)),
                None => Item::Comment,
            });
        }
        rest = after;
    }
    out
}

/// One game of tests/data/cube_endgames.txt.
struct Game {
    key: String,
    title: String,
    start: String,
    moves: String,
}

fn games() -> Vec<Game> {
    let text = include_str!("../data/cube_endgames.txt");
    let mut out: Vec<Game> = Vec::new();
    for line in text.lines() {
        if let Some(key) = line.strip_prefix("== ") {
            out.push(Game {
                key: key
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string(),
                title: String::new(),
                start: String::new(),
                moves: String::new(),
            });
            continue;
        }
        let Some(game) = out.last_mut() else {
            continue;
        };
        if let Some(t) = line.strip_prefix("title: ") {
            game.title = t.to_string();
        } else if let Some(s) = line.strip_prefix("start: ") {
            game.start = s.to_string();
        } else if let Some(m) = line.strip_prefix("moves: ") {
            game.moves = m.to_string();
        }
    }
    out
}

/// What a replay found.
#[derive(Debug, Default)]
struct Replay {
    /// Moves played on the main line.
    plies: usize,
    /// Endings checked (main line and refuted alternatives).
    endings: Vec<(Ending, Outcome)>,
    /// The main line in the engine's long notation.
    long: Vec<String>,
}

/// Plays `items` from `pos`, checking every move against both generators,
/// every check mark the seed writes, every check it leaves unmarked, and
/// the stated endings.
fn replay(key: &str, pos: &mut Position, items: &[Item], out: &mut Replay, main: bool) {
    let mut last_move_mate = false;
    for (i, item) in items.iter().enumerate() {
        match item {
            Item::Move(text) => {
                let reference = mini(pos);
                assert_eq!(
                    engine_moves(pos),
                    reference.moves(),
                    "{key}: move lists differ before {text} in {}",
                    pos.to_text()
                );
                let parsed = parse_annotated(pos, text, LetterSet::German).unwrap_or_else(|e| {
                    panic!("{key}: seed move {text} in {}: {e}", pos.to_text())
                });
                let m = parsed.mv;
                let g = &pos.variant().geometry;
                let from = coords(&g.cell_name(m.from as usize));
                let to = coords(&g.cell_name(m.to as usize));
                let after = reference.play(from, to);
                let actual = ndchess::rules::notation::san::check_mark(pos, m);
                // The seed marks checks with "+", and writes a mating move
                // without a mark, followed by "matt".
                match parsed.check {
                    Some(CheckMark::Check) => assert_eq!(
                        actual,
                        Some(CheckMark::Check),
                        "{key}: {text} is marked check"
                    ),
                    None => assert!(
                        actual.is_none()
                            || (actual == Some(CheckMark::Mate)
                                && matches!(items.get(i + 1), Some(Item::End(Ending::Mate)))),
                        "{key}: {text} gives {actual:?} but the seed writes no mark"
                    ),
                    other => panic!("{key}: {text}: the seed writes no {other:?}"),
                }
                assert_eq!(after.in_check(), actual.is_some(), "{key}: {text}: check");
                if main {
                    out.plies += 1;
                    out.long.push(long_notation(pos, m));
                }
                last_move_mate = actual == Some(CheckMark::Mate);
                pos.make(m);
            }
            Item::End(ending) => {
                let result = pos
                    .outcome()
                    .unwrap_or_else(|| panic!("{key}: no end after the line, {}", pos.to_text()));
                let reference = mini(pos);
                assert!(reference.moves().is_empty(), "{key}: Mini finds moves");
                assert_eq!(reference.in_check(), *ending == Ending::Mate, "{key}");
                let v = pos.variant().clone();
                let expected = match ending {
                    Ending::Mate => Outcome::checkmate(&v, Seat::new(1)),
                    Ending::Stalemate => Outcome::stalemate_loss(&v, Seat::new(1)),
                };
                assert_eq!(result, expected, "{key}: {}", pos.to_text());
                assert_eq!(last_move_mate, *ending == Ending::Mate, "{key}");
                out.endings.push((*ending, result));
            }
            Item::Instead(line) => {
                // The alternative replaces the move just played.
                let mut alt = pos.clone();
                alt.unmake();
                replay(key, &mut alt, line, out, false);
            }
            Item::Comment => {}
        }
    }
}

#[test]
fn seed_endgames_replay_to_their_stated_ends() {
    let v = cube();
    let games = games();
    // The seed gives seven endgames (K+R, K+Q, K+2R, K+R+B, K+2B, K+R+N,
    // K+B+N against the bare king).
    let keys: Vec<&str> = games.iter().map(|g| g.key.as_str()).collect();
    assert_eq!(
        keys,
        ["K+R", "K+Q", "K+2R", "K+R+B", "K+2B", "K+R+N", "K+B+N"]
    );
    for game in &games {
        assert!(game.title.contains("gegen König"), "{}", game.key);
        let placement = seed_placement(&game.start);
        // "Der Einfachheit halber wird angenommen, daß die zum jeweiligen
        // Einsatz kommenden Steine das Endspiel auf ihren Eröffnungsfeldern
        // beginnen": every piece stands on its cell of the start array.
        let start = Position::start(&v);
        let g = &v.geometry;
        for &(letter, white, x) in &placement {
            let cell = g
                .parse_cell(&name(x))
                .expect("invariant: coords() only builds cube cells");
            let p = start.piece_at(cell);
            assert!(p != 0, "{}: {} is empty at the start", game.key, name(x));
            assert_eq!(v.kinds[piece_kind(p)].letter, letter, "{}", game.key);
            assert_eq!(piece_seat(p).index() == 0, white, "{}", game.key);
        }
        let mut pos = position(&placement, true, 0);
        let list = items(&game.moves);
        let mut out = Replay::default();
        replay(&game.key, &mut pos, &list, &mut out, true);
        // The seed's move numbers: the last white move carries the number
        // of full moves.
        let numbers: Vec<u32> = game
            .moves
            .split_whitespace()
            .filter_map(|w| w.strip_suffix('.').and_then(|n| n.parse().ok()))
            .collect();
        let last = *numbers.iter().max().expect("numbered moves");
        assert_eq!(
            out.plies as u32,
            2 * last - 1,
            "{}: {:?}",
            game.key,
            out.long
        );
        let main_end = out.endings.last().expect("every game states its end").0;
        let stated = if game.key == "K+R" {
            Ending::Stalemate
        } else {
            Ending::Mate
        };
        assert_eq!(main_end, stated, "{}", game.key);
    }
}

#[test]
fn seed_side_lines_hold() {
    // K+Q: "7. Qc4g+ (nicht 7. Qc3g? patt)" and "8. ...Kd2d (nicht 8. ...Kc3d?
    // 9. Qc3g matt)": both refuted alternatives end as the seed says.
    let game = games()
        .into_iter()
        .find(|g| g.key == "K+Q")
        .expect("the K+Q game is in the data");
    let mut pos = position(&seed_placement(&game.start), true, 0);
    let mut out = Replay::default();
    replay("K+Q", &mut pos, &items(&game.moves), &mut out, true);
    let endings: Vec<Ending> = out.endings.iter().map(|e| e.0).collect();
    assert_eq!(endings, [Ending::Stalemate, Ending::Mate, Ending::Mate]);
    assert_eq!(result_text(&out.endings[0].1), "3/4-1/4");
    assert_eq!(result_text(&out.endings[1].1), "1-0");
}

#[test]
fn seed_games_in_long_notation() {
    // The K+2B game in the engine's long notation; the seed's short moves
    // name a target only, so this pins down which piece each one moves.
    // "6. Lb1g" can only be the c1b bishop (b1b-b1g is no diagonal step),
    // "7. Lb2g" the b1b one; "9. Lb2d+" is b1g-b2d (b2g-b2d is straight),
    // so "10. Lb3d" is b2g-b3d.
    let game = games()
        .into_iter()
        .find(|g| g.key == "K+2B")
        .expect("the K+2B game is in the data");
    let mut pos = position(&seed_placement(&game.start), true, 0);
    let mut out = Replay::default();
    replay("K+2B", &mut pos, &items(&game.moves), &mut out, true);
    assert_eq!(out.long[10], "Bc1b-b1g");
    assert_eq!(out.long[12], "Bb1b-b2g");
    assert_eq!(out.long.last().map(String::as_str), Some("Bb2g-b3d#"));
}

#[test]
fn bishop_cage_of_the_two_bishops_game() {
    // Seed 001 after the K+2B game: "Beachten Sie bitte die Käfigwirkung des
    // schwarzfeldrigen Läufers auf b2g und dem weißen König auf b4g. Dem
    // schwarzen König bleiben nur die Felder a3d und a4d zum Pendeln."
    // After 8. Kb4g the black king on a4d may only go to a3d, and from a3d
    // (White passing) only back to a4d.
    let game = games()
        .into_iter()
        .find(|g| g.key == "K+2B")
        .expect("the K+2B game is in the data");
    let mut pos = position(&seed_placement(&game.start), true, 0);
    let moves: Vec<String> = items(&game.moves)
        .into_iter()
        .filter_map(|i| match i {
            Item::Move(m) => Some(m),
            _ => None,
        })
        .collect();
    for text in &moves[..15] {
        let m = parse_short(&pos, text, LetterSet::German).expect("seed move is legal");
        pos.make(m);
    }
    assert_eq!(moves[14], "Kb4g");
    assert_eq!(engine_moves(&pos), BTreeSet::from(["a4d-a3d".to_string()]));
    assert_eq!(mini(&pos).moves(), engine_moves(&pos));
    let m = parse_short(&pos, "Ka3d", LetterSet::German).expect("the pendulum move");
    pos.make(m);
    pos.make(Move::NULL);
    assert_eq!(engine_moves(&pos), BTreeSet::from(["a3d-a4d".to_string()]));
    assert_eq!(mini(&pos).moves(), engine_moves(&pos));
}

// ---------------------------------------------------------------------------
// Rules of RULES §2.10 that the issue lists.

/// The long notations of the legal moves of the piece on `cell`.
fn moves_from(pos: &Position, cell: &str) -> Vec<String> {
    let g = &pos.variant().geometry;
    let c = g.parse_cell(cell).expect("test cell names are cube cells");
    let mut v: Vec<String> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.from as usize == c)
        .map(|m| long_notation(pos, m))
        .collect();
    v.sort();
    v
}

fn promotions(from: &str, sep: char, to: &str) -> Vec<String> {
    // "to any piece but a king": knight, bishop, rook, queen.
    let mut v: Vec<String> = ['N', 'B', 'R', 'Q']
        .iter()
        .map(|k| format!("{from}{sep}{to}={k}"))
        .collect();
    v.sort();
    v
}

#[test]
fn white_promotes_on_each_cell_of_rank_4_level_delta() {
    // RULES §2.10: a white pawn promotes on rank 4 of level δ, reached by a
    // step forward (from rank 3 of level δ) or up (from rank 4 of level γ),
    // or by a capture forward (file±1, rank+1) or up (file±1, level+1).
    // Kings far away on level α so that no check interferes.
    for file in ['a', 'b', 'c', 'd'] {
        let target = format!("{file}4d");
        // Forward push: the pawn on rank 3 of δ has no up step (δ is the
        // top level) and nothing to capture.
        let from = format!("{file}3d");
        let pos = position(&pieces(&format!("Kw a1a, Kb d1a, Pw {from}")), true, 0);
        assert_eq!(moves_from(&pos, &from), promotions(&from, '-', &target));
        // Up push: from rank 4 of γ (rank 5 does not exist).
        let from = format!("{file}4g");
        let pos = position(&pieces(&format!("Kw a1a, Kb d1a, Pw {from}")), true, 0);
        assert_eq!(moves_from(&pos, &from), promotions(&from, '-', &target));
        // Captures onto the cell, forward (from rank 3 of δ) and up (from
        // rank 4 of γ), from each neighbouring file. Both pawns would push
        // to the cell beside the target; a black knight there blocks the
        // push, so the four capture-promotions are the only moves.
        for df in [-1i32, 1] {
            let f = file as i32 + df;
            if !('a' as i32..='d' as i32).contains(&f) {
                continue;
            }
            let side = char::from_u32(f as u32).expect("a file letter");
            for (from, push) in [
                (format!("{side}3d"), format!("{side}4d")),
                (format!("{side}4g"), format!("{side}4d")),
            ] {
                let setup = format!("Kw a1a, Kb d1a, Pw {from}, Rb {target}, Nb {push}");
                let pos = position(&pieces(&setup), true, 0);
                assert_eq!(
                    moves_from(&pos, &from),
                    promotions(&from, 'x', &target),
                    "{setup}"
                );
            }
        }
    }
}

#[test]
fn pawns_reaching_rank_4_elsewhere_do_not_promote() {
    // Only rank 4 of level δ promotes white: b3g-b4g is a plain move, and so
    // is the step up b4b-b4g.
    let pos = position(&pieces("Kw a1a, Kb d1a, Pw b3g"), true, 0);
    assert_eq!(moves_from(&pos, "b3g"), ["b3g-b3d", "b3g-b4g"]);
    let pos = position(&pieces("Kw a1a, Kb d1a, Pw b4b"), true, 0);
    assert_eq!(moves_from(&pos, "b4b"), ["b4b-b4g"]);
}

#[test]
fn black_promotes_on_rank_1_of_level_alpha() {
    // Black mirrors: rank−1 or level−1, promotion on rank 1 of level α.
    let pos = position(&pieces("Kw a4d, Kb d4d, Pb c2a"), false, 0);
    assert_eq!(moves_from(&pos, "c2a"), promotions("c2a", '-', "c1a"));
    let pos = position(&pieces("Kw a4d, Kb d4d, Pb c1b"), false, 0);
    assert_eq!(moves_from(&pos, "c1b"), promotions("c1b", '-', "c1a"));
    // Capture down onto b1a from c1b, the down step blocked.
    let pos = position(&pieces("Kw a4d, Kb d4d, Pb c1b, Rw b1a, Nw c1a"), false, 0);
    assert_eq!(moves_from(&pos, "c1b"), promotions("c1b", 'x', "b1a"));
    // A black promotion is written and read like a white one.
    let m = parse_short(&pos, "cxb1a=D", LetterSet::German).expect("legal promotion");
    assert_eq!(long_notation(&pos, m), "c1bxb1a=Q");
}

#[test]
fn a_blocked_or_edge_pawn_still_moves_up() {
    // Forward blocked by a piece: only the step up remains.
    // (White king on d1a: a knight on b3a would check a1a.)
    let pos = position(&pieces("Kw d1a, Kb d4d, Pw b2a, Nb b3a"), true, 0);
    assert_eq!(moves_from(&pos, "b2a"), ["b2a-b2b"]);
    // Rank 4 below level δ: no forward step exists, the step up does.
    let pos = position(&pieces("Kw a1a, Kb d1a, Pw c4a"), true, 0);
    assert_eq!(moves_from(&pos, "c4a"), ["c4a-c4b"]);
    // No double step from the start cells (RULES §2.10).
    let pos = Position::start(&cube());
    assert_eq!(moves_from(&pos, "b2a"), ["b2a-b2b", "b2a-b3a"]);
}

#[test]
fn stalemate_scores_three_quarters_for_the_stalemating_side() {
    // The K+R game's final position (seed: "11. Ta4g patt"): black to move,
    // not in check, no legal move.
    let pos = position(&pieces("Kw c3d, Rw a4g, Kb b4d"), false, 0);
    assert!(pos.legal_moves().is_empty() && !pos.in_check());
    let r = pos.outcome().expect("stalemate ends the game");
    assert_eq!(r, Outcome::stalemate_loss(pos.variant(), Seat::new(1)));
    assert_eq!(result_text(&r), "3/4-1/4");
    // The colour-reversed position: white is stalemated, black wins ¾.
    let pos = position(&pieces("Kb b2a, Rb d1b, Kw c1a"), true, 0);
    assert!(pos.legal_moves().is_empty() && !pos.in_check());
    let r = pos.outcome().expect("stalemate ends the game");
    assert_eq!(r, Outcome::stalemate_loss(pos.variant(), Seat::new(0)));
    assert_eq!(result_text(&r), "1/4-3/4");
    // Mate is the full point: the K+2R game's end (seed: "14. Ta4d matt").
    let pos = position(&pieces("Kw c2d, Rw a4d, Rw b4g, Kb c4d"), false, 0);
    let r = pos.outcome().expect("mate ends the game");
    assert_eq!(r, Outcome::checkmate(pos.variant(), Seat::new(1)));
    assert_eq!(result_text(&r), "1-0");
    assert_ne!(result_text(&r), "3/4-1/4");
}

#[test]
fn threefold_repetition_draws() {
    let mut pos = position(&pieces("Kw a1a, Rw d1a, Kb d4d"), true, 0);
    let shuffle = ["Ka1b", "Kd4g", "Ka1a", "Kd4d"];
    let mut results = Vec::new();
    for round in 0..2 {
        for t in shuffle {
            let m = parse_short(&pos, t, LetterSet::German).expect("legal shuffle move");
            pos.make(m);
            results.push((round, t, pos.repetitions(), pos.outcome()));
        }
    }
    // The start position recurs after each round: twice is no draw, the
    // third time is.
    let after_round = |r: usize| results[r * 4 + 3].clone();
    assert_eq!(after_round(0).2, 2);
    assert_eq!(after_round(0).3, None);
    assert_eq!(after_round(1).2, 3);
    assert_eq!(
        after_round(1).3,
        Some(Outcome::draw(2, EndReason::Repetition))
    );
    assert!(results[..7].iter().all(|r| r.3.is_none()));
}

#[test]
fn no_fifty_move_rule_in_the_cube() {
    // Seed 001 knows draws by agreement and repetition only: a halfmove
    // clock of 100 and more ends nothing in the cube.
    let mut pos = position(&pieces("Kw a1a, Rw d1a, Kb d4d"), true, 150);
    assert_eq!(pos.halfmove_clock(), 150);
    assert_eq!(pos.outcome(), None);
    let m = parse_short(&pos, "Td2a", LetterSet::German).expect("legal rook move");
    pos.make(m);
    assert_eq!(pos.halfmove_clock(), 151);
    assert_eq!(pos.outcome(), None);
    // The same clock in classical chess is a draw (control).
    let chess = Variant::from_spec("chess").expect("built-in");
    let pos = Position::from_text(&chess, "k7/8/8/8/8/8/8/K6R w - - 100 80").expect("valid");
    assert_eq!(pos.outcome(), Some(Outcome::draw(2, EndReason::FiftyMoves)));
}

#[test]
fn bare_kings_are_dead_and_nothing_else_is() {
    let pos = position(&pieces("Kw a1a, Kb d4d"), true, 0);
    assert_eq!(
        pos.outcome(),
        Some(Outcome::draw(2, EndReason::DeadPosition))
    );
    // Capturing the last piece leaves bare kings: dead at once.
    let mut pos = position(&pieces("Kw a1a, Kb d4d, Nw d3d"), false, 0);
    let m: Move = parse_short(&pos, "Kxd3d", LetterSet::German).expect("the knight is loose");
    pos.make(m);
    assert_eq!(
        pos.outcome(),
        Some(Outcome::draw(2, EndReason::DeadPosition))
    );
    // RULES §2.10: K+B and K+N against K still force the stalemate win,
    // so those positions are not dead.
    for extra in ["Bw b1b", "Nw a1b", "Pw b2a"] {
        let pos = position(&pieces(&format!("Kw c1a, {extra}, Kb b4d")), true, 0);
        assert_eq!(pos.outcome(), None, "{extra}");
    }
}

#[test]
fn start_position_matches_rules() {
    // RULES §2.10: White Ra1a Qb1a Kc1a Rd1a, Na1b Bb1b Bc1b Nd1b, pawns
    // a2a–d2a; Black the point reflection.
    let white = "Rw a1a, Qw b1a, Kw c1a, Rw d1a, Nw a1b, Bw b1b, Bw c1b, Nw d1b, \
                 Pw a2a, Pw b2a, Pw c2a, Pw d2a";
    let mut all = pieces(white);
    let black: Vec<_> = all
        .iter()
        .map(|&(l, _, x)| (l, false, [3 - x[0], 3 - x[1], 3 - x[2]]))
        .collect();
    all.extend(black);
    let built = position(&all, true, 0);
    let start = Position::start(&cube());
    assert_eq!(start.to_text(), built.to_text());
    assert_eq!(
        notation::diagram(&start),
        notation::diagram(&built),
        "diagram of the start"
    );
}
