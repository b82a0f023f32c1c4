//! Tactics: the search finds forced mates with the right mate score.
//!
//! - Chess: published mate-in-2 and mate-in-3 problems
//!   (`tests/data/tactics_chess.epd`, source named in the file).
//! - The cube and the 3-D diamond: positions of `tests/data/tactics_variants.txt`
//!   (cube ones taken from seed 001's annotated endgames, diamond ones
//!   constructed for this test). Their mate distance is not typed in: each
//!   is computed here by exhaustive search with the independent reference
//!   move generator (`tests/reference/`): a mate in N exists (some move
//!   after which every defence allows a mate in N−1), and no mate in N−1.

use crate::reference;
use std::sync::Arc;

use ndchess::board::variant::Variant;
use ndchess::rules::position::Position;
use ndchess::search::{Engine, EngineOptions, Limits, Score, SearchControl};

fn data(file: &str) -> String {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Searches for a mate of at most `n` moves (`go mate n`, with a depth
/// bound well past 2n−1); returns the score, the depth of the last
/// finished iteration and the principal variation.
fn engine_mate(pos: &Position, n: u32) -> (Score, u32, Vec<ndchess::rules::moves::Move>) {
    let mut engine = Engine::new(EngineOptions {
        threads: 1,
        hash_mb: 16,
        ..EngineOptions::default()
    });
    let limits = Limits {
        depth: Some(2 * n + 12),
        mate: Some(n),
        ..Limits::default()
    };
    let r = engine.search(pos, &limits, &SearchControl::new(), &mut |_| {});
    (r.score, r.depth, r.pv)
}

/// Plays a principal variation and checks that it ends in checkmate.
fn pv_mates(pos: &Position, pv: &[ndchess::rules::moves::Move]) -> bool {
    let mut p = pos.clone();
    for &m in pv {
        if !p.legal_moves().contains(&m) {
            return false;
        }
        p.make(m);
    }
    p.legal_moves().is_empty() && p.in_check()
}

/// The published chess problems: (FEN, position, N of "mate in N").
fn published_mates() -> Vec<(String, Position, u32)> {
    let v = Variant::from_spec("chess").unwrap();
    let mut problems = Vec::new();
    for line in data("tactics_chess.epd").lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (fen, rest) = line.split_once(" bm #").expect("bm #N field");
        let n: u32 = rest.split(';').next().unwrap().trim().parse().unwrap();
        let pos = Position::from_text(&v, fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        problems.push((fen.to_string(), pos, n));
    }
    assert!(
        problems.len() >= 20,
        "only {} problems read",
        problems.len()
    );
    problems
}

#[test]
fn chess_published_mates() {
    for (fen, pos, n) in published_mates() {
        let (score, _, pv) = engine_mate(&pos, n);
        assert_eq!(score, Score::Mate(n as i32), "{fen}");
        assert_eq!(pv.len(), 2 * n as usize - 1, "{fen}: pv {pv:?}");
        assert!(pv_mates(&pos, &pv), "{fen}: pv does not mate");
    }
}

/// `go mate N` is a proof either way: where the published shortest mate
/// is N moves, asking for N−1 ends after depth 2(N−1)−1 without a mate
/// score of N−1 or fewer moves (the search is exhaustive there, so that is
/// a proof of "none"; check extensions may show a longer mate).
#[test]
fn chess_mate_search_ends_without_a_shorter_mate() {
    for (fen, pos, n) in published_mates() {
        let (score, depth, _) = engine_mate(&pos, n - 1);
        assert!(
            !matches!(score, Score::Mate(k) if k > 0 && k < n as i32),
            "{fen}: {score:?} asked for a mate in {}",
            n - 1
        );
        assert_eq!(depth, 2 * (n - 1) - 1, "{fen}: search did not stop");
    }
}

/// The reference position of a fast-engine position (same coordinates).
fn to_reference(pos: &Position, spec: &str) -> reference::Position {
    let rv = reference::Variant::from_spec(spec).unwrap();
    let mut board = reference::Board::default();
    for (coords, owner, letter) in pos.placement() {
        let mut c = [0i32; reference::MAX_DIM];
        c[..coords.len()].copy_from_slice(&coords);
        let kind = match letter {
            'K' => reference::Kind::King,
            'Q' => reference::Kind::Queen,
            'R' => reference::Kind::Rook,
            'N' => reference::Kind::Knight,
            'B' => reference::Kind::Bishop(2),
            'W' => reference::Kind::Bishop(3),
            'G' => reference::Kind::Bishop(4),
            'P' => reference::Kind::Pawn(reference::forward(owner)),
            'U' => reference::Kind::Pawn(-reference::forward(owner)),
            other => panic!("no reference kind for {other}"),
        };
        let cell = rv.cell(&c).expect("cell on the reference board");
        board.insert(cell, reference::Piece { owner, kind });
    }
    reference::Position {
        variant: Arc::clone(&rv),
        board,
        to_move: pos.to_move().index(),
        ep: None,
        castling_rights: Vec::new(),
    }
}

/// Whether the side to move can force mate within `n` moves (reference
/// generator, exhaustive).
fn ref_mates_within(pos: &reference::Position, n: u32) -> bool {
    // Checking moves first: they are usually the keys, and the search
    // stops at the first move that forces mate.
    let mut moves: Vec<(bool, reference::Move)> = pos
        .legal_moves()
        .into_iter()
        .map(|m| {
            let mut next = pos.clone();
            next.make(m);
            (!next.in_check(next.to_move), m)
        })
        .collect();
    moves.sort();
    for &(_, m) in &moves {
        let mut next = pos.clone();
        next.make(m);
        let replies = next.legal_moves();
        if replies.is_empty() {
            if next.in_check(next.to_move) {
                return true;
            }
            continue;
        }
        if n == 1 {
            continue;
        }
        let forced = replies.iter().all(|&r| {
            let mut after = next.clone();
            after.make(r);
            ref_mates_within(&after, n - 1)
        });
        if forced {
            return true;
        }
    }
    false
}

#[test]
fn cube_and_diamond_mates() {
    let mut checked = 0;
    for line in data("tactics_variants.txt").lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // `spec | position text | N`; position texts of 3-D boards contain
        // '|' themselves (between slices): the text is everything between
        // the first and the last field.
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let spec = fields[0];
        let n: u32 = fields[fields.len() - 1].parse().expect("mate length");
        let body = fields[1..fields.len() - 1].join("|");
        let v = Variant::from_spec(spec).unwrap();
        let pos = Position::from_text(&v, &body).unwrap_or_else(|e| panic!("{body}: {e}"));
        // The reference decides the mate distance.
        let r = to_reference(&pos, spec);
        assert!(
            ref_mates_within(&r, n),
            "{spec} {body}: reference finds no mate in {n}"
        );
        assert!(
            n == 1 || !ref_mates_within(&r, n - 1),
            "{spec} {body}: reference finds a mate in {}",
            n - 1
        );
        let (score, _, pv) = engine_mate(&pos, n);
        assert_eq!(score, Score::Mate(n as i32), "{spec} {body}");
        assert!(
            pv_mates(&pos, &pv),
            "{spec} {body}: pv {pv:?} does not mate"
        );
        checked += 1;
    }
    assert!(checked >= 6, "only {checked} positions read");
}
