//! Endgame tables (docs/tablebases.md): published figures of the classical
//! tables, shakmaty's legality of every position counted, the seeds'
//! claims, agreement with an independent mate prover, the search playing
//! the shortest mates, and damaged files refused.

use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use ndchess::board::variant::Variant;
use ndchess::rules::notation::san::{LetterSet, parse_annotated};
use ndchess::rules::position::Position;
use ndchess::search::{Engine, EngineOptions, Limits, SearchControl};
use ndchess::solve::mate::prove_mate;
use ndchess::tablebase::generate::position_of;
use ndchess::tablebase::stats::{class_size, longest, plies_of, stats};
use ndchess::tablebase::verify::verify;
use ndchess::tablebase::{End, Material, Table, TablebaseError, Tablebases, Value};

fn variant(spec: &str) -> Arc<Variant> {
    Variant::from_spec(spec).unwrap()
}

fn quiet(_: &str) {}

fn table(tb: &Tablebases, m: &str) -> Arc<Table> {
    let mat = Material::parse(tb.variant(), m).unwrap();
    tb.ensure(&mat, &quiet).unwrap()
}

fn win_moves(v: Value) -> Option<u16> {
    plies_of(true, End::Mate)(v).map(|plies| plies.div_ceil(2))
}

fn example(t: &Table, v: &Arc<Variant>, idx: u64) -> String {
    let (cells, side) = t.layout.decode(idx);
    position_of(v, &t.layout, &cells[..t.layout.len()], side)
        .unwrap()
        .to_text()
}

#[test]
fn classical_tables_agree_with_published_figures() {
    let v = variant("chess");
    let tb = Tablebases::new(&v, None).unwrap();
    let mate = plies_of(true, End::Mate);
    let mated = plies_of(false, End::Mate);
    // Longest mates, in moves, and how many positions (up to symmetry)
    // have them. KQK, KRK, KPK: "guido" (2006) on Kirill Kryukov's
    // tablebase forum, "Longest Mate in kqk",
    // kirill-kryukov.com/chess/discussion-board/viewtopic.php?t=920: KQK
    // wtm 10 moves, one position (Ka1 Qb2 kf5), btm 10, eight positions;
    // KRK wtm 16, 121 positions (Ka1 Rb2 kc3 among them), btm 16, 390.
    // KBNK wtm 33 in 138 positions: Peter Karrer's statistics posted in the
    // same thread ("kbnk wtm: max win 33 (138)"). KBBK 19 and KQKR 35:
    // the standard maxDTM figures of the 4-man tables (ICGA endgame
    // statistics, Thompson/Nalimov; 35 also macechess.blogspot.com, 2010).
    let published: [(&str, u16, Option<u64>, Option<&str>); 5] = [
        ("KQvK", 10, Some(1), Some("8/8/8/5k2/8/8/1Q6/K7 w - - 0 1")),
        ("KRvK", 16, Some(121), None),
        ("KBNvK", 33, Some(138), None),
        ("KBBvK", 19, None, None),
        ("KQvKR", 35, None, None),
    ];
    for (m, moves, classes, fen) in published {
        let t = table(&tb, m);
        let (plies, idx, n) = longest(&t, 0, &mate).unwrap();
        assert_eq!(plies.div_ceil(2), moves, "{m}: longest mate");
        if let Some(c) = classes {
            assert_eq!(n, c, "{m}: positions of the longest mate");
        }
        if let Some(f) = fen {
            assert_eq!(example(&t, &v, idx), f, "{m}");
        }
    }
    let kqk = table(&tb, "KQvK");
    let krk = table(&tb, "KRvK");
    assert_eq!(
        longest(&kqk, 1, &mated).map(|x| (x.0 / 2, x.2)),
        Some((10, 8))
    );
    assert_eq!(
        longest(&krk, 1, &mated).map(|x| (x.0 / 2, x.2)),
        Some((16, 390))
    );
    // KPK (same post): wtm 28 moves in 3 positions (Ka2 Pg2 kb5, Kb2 Pg2
    // kb5, Ka3 Pg2 kb5), btm 28 in 2 (Ka3 Pg2 ka5, Ka3 Pg2 ka6); the table
    // counts classes under the file mirror, the only symmetry with pawns.
    let kpk = table(&tb, "KPvK");
    let (plies, idx, n) = longest(&kpk, 0, &mate).unwrap();
    assert_eq!((plies.div_ceil(2), n), (28, 3));
    assert_eq!(example(&kpk, &v, idx), "8/8/8/1k6/8/8/K5P1/8 w - - 0 1");
    assert_eq!(
        longest(&kpk, 1, &mated).map(|x| (x.0 / 2, x.2)),
        Some((28, 2))
    );
    // "There are a total of 23,048 drawn positions in the KQK endgame"
    // (black to move: stalemates and the queen en prise), as quoted at
    // denverpaster.blogg.se/2022/april/number-of-mutual-zugzwang-positions-
    // endgame-tablebase.html; every position counted, not classes.
    let s = stats(&kqk);
    assert_eq!(s[1].positions.unwrap().draws, 23_048);
    assert_eq!(s[0].positions.unwrap().draws, 0);
}

/// shakmaty's verdict on a position text: legal, or (with `impossible`)
/// legal but with a check no move could have given.
fn shakmaty_legal(fen: &str) -> (bool, bool) {
    let f = Fen::from_ascii(fen.as_bytes()).unwrap();
    match f.into_position::<Chess>(CastlingMode::Standard) {
        Ok(_) => (true, false),
        Err(e) => (e.ignore_impossible_check().is_ok(), true),
    }
}

fn fen_of(pieces: &[(char, usize)], white: bool) -> String {
    let mut rows = Vec::new();
    for rank in (0..8).rev() {
        let mut row = String::new();
        let mut empty = 0;
        for file in 0..8 {
            match pieces.iter().find(|p| p.1 == rank * 8 + file) {
                Some(&(c, _)) => {
                    if empty > 0 {
                        row.push_str(&empty.to_string());
                        empty = 0;
                    }
                    row.push(c);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            row.push_str(&empty.to_string());
        }
        rows.push(row);
    }
    format!(
        "{} {} - - 0 1",
        rows.join("/"),
        if white { "w" } else { "b" }
    )
}

#[test]
fn every_position_counted_is_legal_for_shakmaty() {
    // Every placement of the three-piece tables, both sides to move, is
    // judged by shakmaty (from its own FEN, written here, not by the
    // engine) and by the table; they must agree, and the legal ones must
    // add up to the table's count of all positions.
    let v = variant("chess");
    let tb = Tablebases::new(&v, None).unwrap();
    for (m, letters) in [
        ("KQvK", ['K', 'Q', 'k']),
        ("KRvK", ['K', 'R', 'k']),
        ("KPvK", ['K', 'P', 'k']),
    ] {
        let t = table(&tb, m);
        let s = stats(&t);
        let mut legal = 0u64;
        for a in 0..64 {
            for b in 0..64 {
                for c in 0..64 {
                    if a == b || b == c || a == c {
                        continue;
                    }
                    for white in [true, false] {
                        let fen =
                            fen_of(&[(letters[0], a), (letters[1], b), (letters[2], c)], white);
                        let (ok, _) = shakmaty_legal(&fen);
                        let side = usize::from(!white);
                        let cells = [a as u16, b as u16, c as u16];
                        let ours = t.value(&cells, side).is_some();
                        assert_eq!(ours, ok, "{m}: {fen}");
                        legal += u64::from(ok);
                    }
                }
            }
        }
        let counted = s[0].positions.unwrap().total() + s[1].positions.unwrap().total();
        assert_eq!(legal, counted, "{m}");
    }
    // The four-piece table: every class the table holds is legal for
    // shakmaty, and every class it refuses is illegal, weighted by its
    // number of positions; the total agrees with the table's count.
    let t = table(&tb, "KBNvK");
    let s = stats(&t);
    let letters = ['K', 'B', 'N', 'k'];
    let (mut legal, mut impossible) = (0u64, 0u64);
    for idx in 0..t.codes.len() as u64 {
        let (cells, side) = t.layout.decode(idx);
        let k = t.layout.len();
        if t.layout.canonical(&cells[..k], side) != idx || t.layout.overlaps(&cells[..k]) {
            continue;
        }
        let pieces: Vec<(char, usize)> = (0..k).map(|i| (letters[i], cells[i] as usize)).collect();
        let fen = fen_of(&pieces, side == 0);
        let (ok, odd) = shakmaty_legal(&fen);
        assert_eq!(t.value(&cells[..k], side).is_some(), ok, "KBNvK: {fen}");
        if ok {
            legal += class_size(&t, &cells);
            impossible += u64::from(odd);
        }
    }
    let counted = s[0].positions.unwrap().total() + s[1].positions.unwrap().total();
    assert_eq!(legal, counted);
    eprintln!("KBNvK: {legal} legal positions, {impossible} classes with a check no move gives");
}

/// The moves of a seed game's main line (variations in parentheses,
/// move numbers and the final "matt"/"patt" left out).
fn seed_moves(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut clean = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => clean.push(c),
            _ => {}
        }
    }
    for w in clean.split_whitespace() {
        let bare = w.trim_start_matches('.').trim_end_matches('.');
        if bare.is_empty()
            || bare.chars().all(|c| c.is_ascii_digit())
            || bare == "matt"
            || bare == "patt"
        {
            continue;
        }
        out.push(w.trim_end_matches('.').to_string());
    }
    out
}

/// Seed 001's cells ("c1a": file, rank, level a b g d) to the engine's
/// position text, built here from the seed's start line.
fn seed_start(text: &str) -> String {
    let mut board = [[[' '; 4]; 4]; 4];
    for item in text.split(',') {
        let (piece, cell) = item.split_once('-').unwrap();
        let piece: Vec<char> = piece.trim().chars().collect();
        let letter = match piece[0] {
            'K' => 'K',
            'D' | 'Q' => 'Q',
            'T' => 'R',
            'L' => 'B',
            'S' => 'N',
            c => panic!("seed letter {c}"),
        };
        let letter = if piece[1] == 'w' {
            letter
        } else {
            letter.to_ascii_lowercase()
        };
        let c: Vec<char> = cell.trim().chars().collect();
        let file = c[0] as usize - 'a' as usize;
        let rank = c[1] as usize - '1' as usize;
        let level = "abgd".find(c[2]).unwrap();
        board[level][rank][file] = letter;
    }
    let slices: Vec<String> = (0..4)
        .map(|level| {
            (0..4)
                .rev()
                .map(|rank| {
                    let mut row = String::new();
                    let mut empty = 0;
                    for &p in &board[level][rank] {
                        if p == ' ' {
                            empty += 1;
                        } else {
                            if empty > 0 {
                                row.push_str(&empty.to_string());
                                empty = 0;
                            }
                            row.push(p);
                        }
                    }
                    if empty > 0 {
                        row.push_str(&empty.to_string());
                    }
                    row
                })
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    format!("{} w - - 0 1", slices.join("|"))
}

/// The material of a seed game's key ("K+2R" is KRRvK).
fn seed_material(key: &str) -> String {
    let mut m = String::from("K");
    for part in key.trim_start_matches("K+").split('+') {
        match part {
            "2R" => m.push_str("RR"),
            "2B" => m.push_str("BB"),
            p => m.push_str(p),
        }
    }
    m.push_str("vK");
    m
}

struct SeedGame {
    key: String,
    start: String,
    moves: Vec<String>,
}

fn seed_games() -> Vec<SeedGame> {
    let text = include_str!("data/cube_endgames.txt");
    let mut out: Vec<SeedGame> = Vec::new();
    for line in text.lines() {
        if let Some(k) = line.strip_prefix("== ") {
            out.push(SeedGame {
                key: k.split_whitespace().next().unwrap().to_string(),
                start: String::new(),
                moves: Vec::new(),
            });
        } else if let Some(s) = line.strip_prefix("start: ") {
            out.last_mut().unwrap().start = seed_start(s);
        } else if let Some(m) = line.strip_prefix("moves: ") {
            out.last_mut().unwrap().moves = seed_moves(m);
        }
    }
    out
}

#[test]
fn seed_001_endgames_checked_move_by_move() {
    // Seed 001 plays seven endgames in the cube; the tables give each
    // position's exact value. Every move is checked: the stronger side's
    // moves keep the win (the value may not drop to a draw or to a
    // stalemate win when mate was there), and the line ends as the seed
    // says. How many moves were optimal is printed (docs/tablebases.md).
    let v = variant("cube");
    let tb = Tablebases::new(&v, None).unwrap();
    let games = seed_games();
    assert_eq!(games.len(), 7);
    for g in &games {
        let mut pos = Position::from_text(&v, &g.start).unwrap();
        let t = table(&tb, &seed_material(&g.key));
        let start = tb.probe(&pos).unwrap().unwrap();
        let want_end = if g.key == "K+R" {
            End::Stalemate
        } else {
            End::Mate
        };
        assert!(
            matches!(start, Value::Win { end, .. } if end == want_end),
            "{}: start {start}",
            g.key
        );
        let (mut optimal, mut white_moves, mut lost_moves) = (0, 0, 0i32);
        let (mut longest_defence, mut black_moves) = (0, 0);
        for text in &g.moves {
            let before = tb.probe(&pos).unwrap().unwrap();
            let ranked = tb.rank_moves(&pos).unwrap().unwrap();
            let best = ranked[0].1;
            let m = parse_annotated(&pos, text, LetterSet::German)
                .unwrap_or_else(|e| panic!("{}: {text}: {e}", g.key))
                .mv;
            let got = ranked.iter().find(|(r, _)| *r == m).unwrap().1;
            assert_eq!(before, best);
            if pos.to_move().index() == 0 {
                white_moves += 1;
                assert!(
                    matches!(got, Value::Win { end, .. } if end == want_end),
                    "{}: {text} gives away the win: {got}",
                    g.key
                );
                if got == best {
                    optimal += 1;
                }
                lost_moves += got.moves() as i32 - best.moves() as i32;
            } else {
                black_moves += 1;
                if got == best {
                    longest_defence += 1;
                }
            }
            pos.make(m);
        }
        let end = tb.probe(&pos).unwrap().unwrap();
        assert_eq!(
            end,
            Value::Loss {
                end: want_end,
                plies: 0
            },
            "{}",
            g.key
        );
        eprintln!(
            "{}: table {} from the start; white {optimal}/{white_moves} moves optimal \
             ({lost_moves} moves lost in all), black {longest_defence}/{black_moves} longest defences",
            g.key, start
        );
        assert!(t.codes.len() as u64 == t.layout.size);
    }
}

#[test]
fn seed_claims_on_the_cube_are_decided() {
    // Seed 001: K+R vs K cannot force mate. RULES.md: stalemate is forced
    // from every position, mate only where it is mate in one; K+B and K+N
    // against the king force the stalemate win too.
    let v = variant("cube");
    let tb = Tablebases::new(&v, None).unwrap();
    let krk = table(&tb, "KRvK");
    let only_mates: Vec<u16> = krk
        .codes
        .iter()
        .step_by(2)
        .filter_map(|&c| Value::from_code(c).and_then(win_moves))
        .collect();
    assert!(!only_mates.is_empty());
    assert!(only_mates.iter().all(|&m| m == 1), "K+R mates only in one");
    for m in ["KRvK", "KBvK", "KNvK"] {
        let t = table(&tb, m);
        for (i, &c) in t.codes.iter().enumerate().step_by(2) {
            let Some(val) = Value::from_code(c) else {
                continue;
            };
            assert!(
                matches!(val, Value::Win { .. }),
                "{m}: entry {i} with White to move is {val}"
            );
        }
    }
}

#[test]
fn tables_verify_forwards_on_every_board() {
    // The generator works from un-moves; the check works from moves only.
    for (spec, materials) in [
        ("chess", &["KQvK", "KRvK", "KBNvK", "KPvK"][..]),
        (
            "cube",
            &["KRvK", "KQvK", "KBvK", "KNvK", "KRBvK", "KBNvK", "KPvK"][..],
        ),
        ("cylinder", &["KQvK", "KRBvK", "KPvK"][..]),
        ("torus", &["KQvK", "KRvK", "KRBvK", "KPvK", "KUvK"][..]),
        ("diamond:n=3", &["KQvK", "KRvK"][..]),
    ] {
        let v = variant(spec);
        let tb = Tablebases::new(&v, None).unwrap();
        for m in materials {
            let t = table(&tb, m);
            let n = verify(&tb, &t).unwrap();
            assert!(n > 0, "{spec} {m}");
        }
    }
}

#[test]
fn a_mate_prover_agrees_with_the_tables_on_random_positions() {
    // Independent of the tables: an exhaustive mate-in-N search. For
    // random won positions (up to 6 moves to mate, to bound the search)
    // it finds the table's distance and no shorter one; for random
    // drawn or stalemate-won positions no mate within 3 moves.
    let mut rng = StdRng::seed_from_u64(2026);
    for (spec, materials) in [
        ("chess", &["KQvK", "KRvK", "KBNvK"][..]),
        (
            "cube",
            &["KQvK", "KRvK", "KRRvK", "KRBvK", "KBBvK", "KRNvK", "KBNvK"][..],
        ),
        ("cylinder", &["KQvK"][..]),
        ("torus", &["KRBvK"][..]),
        ("diamond:n=3", &["KQvK"][..]),
    ] {
        let v = variant(spec);
        let tb = Tablebases::new(&v, None).unwrap();
        for m in materials {
            let t = table(&tb, m);
            let (mut wins, mut others, mut tries) = (0, 0, 0);
            while (wins < 6 || others < 3) && tries < 200_000 {
                tries += 1;
                let idx = rng.random_range(0..t.codes.len() as u64);
                let Some(val) = Value::from_code(t.codes[idx as usize]) else {
                    continue;
                };
                let (cells, side) = t.layout.decode(idx);
                let pos = position_of(&v, &t.layout, &cells[..t.layout.len()], side).unwrap();
                match win_moves(val) {
                    Some(n) if n <= 6 && wins < 6 => {
                        let proof = prove_mate(&pos, n as u32, 50_000_000).unwrap();
                        assert_eq!(proof.moves, Some(n as u32), "{spec} {m}: {}", pos.to_text());
                        wins += 1;
                    }
                    None if others < 3 && !matches!(val, Value::Loss { .. }) => {
                        let proof = prove_mate(&pos, 3, 50_000_000).unwrap();
                        assert_eq!(proof.moves, None, "{spec} {m}: {} is {val}", pos.to_text());
                        others += 1;
                    }
                    _ => {}
                }
            }
            assert!(
                wins > 0 || matches!(*m, "KRvK"),
                "{spec} {m}: no won position drawn"
            );
        }
    }
}

/// Plays from `pos` with the engine for the stronger side and the table's
/// longest defence for the other; the number of the engine's moves until
/// mate (None if no mate within `limit` moves).
fn play_out(
    pos: &Position,
    tb: &Tablebases,
    engine: &mut Engine,
    limits: &Limits,
    limit: u32,
) -> Option<u32> {
    let mut pos = pos.clone();
    let attacker = pos.to_move();
    let mut moves = 0;
    while moves <= limit {
        if pos.legal_moves().is_empty() {
            return (pos.in_check() && pos.to_move() != attacker).then_some(moves);
        }
        let m = if pos.to_move() == attacker {
            moves += 1;
            let control = SearchControl::new();
            engine
                .search(&pos, limits, &control, &mut |_| {})
                .best
                .unwrap()
        } else {
            tb.rank_moves(&pos).unwrap().unwrap()[0].0
        };
        pos.make(m);
    }
    None
}

#[test]
fn the_search_plays_the_shortest_mate_with_tables_and_a_near_one_without() {
    let dir = std::env::temp_dir().join(format!("ndchess-tb-search-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cube = variant("cube");
    let tb = Tablebases::new(&cube, Some(&dir)).unwrap();
    let limits = Limits {
        nodes: Some(20_000),
        ..Limits::default()
    };
    for g in seed_games().iter().filter(|g| g.key != "K+R") {
        let pos = Position::from_text(&cube, &g.start).unwrap();
        let mat = Material::parse(&cube, &seed_material(&g.key)).unwrap();
        tb.ensure(&mat, &quiet).unwrap();
        let dtm = win_moves(tb.probe(&pos).unwrap().unwrap()).unwrap() as u32;
        let mut with = Engine::new(EngineOptions::default());
        with.set_tablebase_path(Some(dir.clone()));
        assert_eq!(
            play_out(&pos, &tb, &mut with, &limits, dtm + 10),
            Some(dtm),
            "{}",
            g.key
        );
        let mut without = Engine::new(EngineOptions::default());
        let n = play_out(
            &pos,
            &tb,
            &mut without,
            &Limits {
                nodes: Some(200_000),
                ..Limits::default()
            },
            dtm + 10,
        );
        assert!(
            n.is_some_and(|n| n <= dtm + 10),
            "{}: {n:?} against {dtm}",
            g.key
        );
    }
    // §16's materials on their boards, from their longest mates.
    for (spec, m) in [
        ("chess", "KRvK"),
        ("chess", "KBBvK"),
        ("cylinder", "KQvK"),
        ("cylinder", "KRBvK"),
        ("cylinder", "KRRvK"),
    ] {
        let v = variant(spec);
        let tb = Tablebases::new(&v, Some(&dir)).unwrap();
        let t = table(&tb, m);
        let (plies, idx, _) = longest(&t, 0, plies_of(true, End::Mate)).unwrap();
        let dtm = plies.div_ceil(2) as u32;
        let (cells, side) = t.layout.decode(idx);
        let pos = position_of(&v, &t.layout, &cells[..t.layout.len()], side).unwrap();
        let mut with = Engine::new(EngineOptions::default());
        with.set_tablebase_path(Some(dir.clone()));
        assert_eq!(
            play_out(&pos, &tb, &mut with, &limits, dtm + 10),
            Some(dtm),
            "{spec} {m}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_or_foreign_files_are_refused_and_the_engine_plays_on() {
    let dir = std::env::temp_dir().join(format!("ndchess-tb-files-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let v = variant("chess");
    let tb = Tablebases::new(&v, Some(&dir)).unwrap();
    table(&tb, "KRvK");
    let path = ndchess::tablebase::file::path(&dir, &v, &Material::parse(&v, "KRvK").unwrap());
    let good = std::fs::read(&path).unwrap();
    let fen = "8/8/8/8/8/2k5/1R6/K7 w - - 0 1";
    let fresh = || Tablebases::new(&v, Some(&dir)).unwrap();
    let pos = Position::from_text(&v, fen).unwrap();
    assert_eq!(win_moves(fresh().probe(&pos).unwrap().unwrap()), Some(16));
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 0x40;
    cases.push(("flipped bit", flipped));
    cases.push(("truncated", good[..good.len() - 100].to_vec()));
    cases.push(("empty", Vec::new()));
    cases.push(("garbage", b"not a table at all".to_vec()));
    let mut other = good.clone();
    other[4] = 9; // another format version
    cases.push(("version", other));
    for (what, bytes) in cases {
        std::fs::write(&path, &bytes).unwrap();
        let t = fresh();
        let got = t.probe(&pos);
        assert!(
            matches!(
                got,
                Err(TablebaseError::Corrupt(_) | TablebaseError::Mismatch(_))
            ),
            "{what}: {got:?}"
        );
        // Asked again, the set answers "no table" (it remembers the refusal).
        assert_eq!(t.probe(&pos), Ok(None), "{what}");
        // The engine plays on without it.
        let mut e = Engine::new(EngineOptions::default());
        e.set_tablebase_path(Some(dir.clone()));
        let r = e.search(&pos, &Limits::depth(3), &SearchControl::new(), &mut |_| {});
        assert!(r.best.is_some(), "{what}");
    }
    // A file of another board under this board's name.
    let cyl = variant("cylinder");
    let cdir = dir.join("other");
    let ctb = Tablebases::new(&cyl, Some(&cdir)).unwrap();
    table(&ctb, "KRvK");
    let cpath =
        ndchess::tablebase::file::path(&cdir, &cyl, &Material::parse(&cyl, "KRvK").unwrap());
    std::fs::copy(&cpath, &path).unwrap();
    assert!(matches!(
        fresh().probe(&pos),
        Err(TablebaseError::Mismatch(_))
    ));
    std::fs::write(&path, &good).unwrap();
    assert_eq!(win_moves(fresh().probe(&pos).unwrap().unwrap()), Some(16));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_requests_get_clear_errors() {
    let v = variant("chess");
    for (m, want) in [
        ("KXvK", "no piece"),
        ("KQK", "split by 'v'"),
        ("QvK", "exactly one"),
        ("KKvK", "exactly one"),
        ("KQQQQQvK", "at most"),
    ] {
        let e = Material::parse(&v, m).unwrap_err();
        assert!(e.to_string().contains(want), "{m}: {e}");
    }
    // Too large a table says so instead of running out of memory.
    let d4 = variant("diamond:n=4");
    let tb = Tablebases::new(&d4, None).unwrap();
    let e = tb
        .ensure(&Material::parse(&d4, "KQRvK").unwrap(), &quiet)
        .unwrap_err();
    assert!(matches!(e, TablebaseError::TooLarge(_)), "{e}");
    assert!(e.to_string().contains("out of reach"), "{e}");
}

#[test]
fn seed_000_section_16_claims_are_decided() {
    // §16: each material forces mate on its board from the positions in
    // which no piece attacks another (its footnote).
    use ndchess::tablebase::stats::{is_quiet, quiet_stats};
    for (spec, m) in [
        ("chess", "KRvK"),
        ("cylinder", "KRBvK"),
        ("cylinder", "KRRvK"),
        ("cylinder", "KQvK"),
    ] {
        let v = variant(spec);
        let tb = Tablebases::new(&v, None).unwrap();
        let t = table(&tb, m);
        let (classes, _) = quiet_stats(&t, &v)[0];
        assert!(classes.total() > 0, "{spec} {m}");
        assert_eq!(
            classes.mate_wins,
            classes.total(),
            "{spec} {m}: every quiet position won"
        );
    }
    // 16.2 on 8x8: won exactly when the bishops stand on two colours.
    let v = variant("chess");
    let tb = Tablebases::new(&v, None).unwrap();
    let t = table(&tb, "KBBvK");
    let colour = |c: u16| (c % 8 + c / 8) % 2;
    let mut checked = 0;
    for idx in (0..t.codes.len() as u64).step_by(2) {
        let Some(val) = Value::from_code(t.codes[idx as usize]) else {
            continue;
        };
        let (cells, side) = t.layout.decode(idx);
        let pos = position_of(&v, &t.layout, &cells[..4], side).unwrap();
        if !is_quiet(&pos) {
            continue;
        }
        let two_colours = colour(cells[1]) != colour(cells[2]);
        assert_eq!(
            matches!(val, Value::Win { .. }),
            two_colours,
            "{}",
            pos.to_text()
        );
        checked += 1;
    }
    assert!(checked > 500_000);
    // 16.2 on the torus ("trivial"): White never forces mate.
    let v = variant("torus");
    let tb = Tablebases::new(&v, None).unwrap();
    let t = table(&tb, "KBBvK");
    assert!(
        t.codes
            .iter()
            .step_by(2)
            .all(|&c| !matches!(Value::from_code(c), Some(Value::Win { .. }))),
        "torus KBBvK: a win for White"
    );
}

#[test]
fn en_passant_positions_are_solved_exactly() {
    // With pawns on both sides a double step can give an en-passant right;
    // those positions are nodes of the generated game (not entries), and
    // the forward check values them through their moves, en-passant
    // captures included.
    let v = variant("chess");
    let tb = Tablebases::new(&v, None).unwrap();
    let t = table(&tb, "KPvKP");
    let s = stats(&t);
    let classes = s[0].classes.total() + s[1].classes.total();
    assert!(classes > 0);
    assert_eq!(verify(&tb, &t).unwrap(), classes);
    // After e2-e4 next to the d4 pawn, Black may take en passant.
    let pos = Position::from_text(&v, "8/8/8/8/3pP3/8/8/K6k b - e3 0 1").unwrap();
    assert!(pos.en_passant().is_some());
    let with_ep = tb.probe(&pos).unwrap().unwrap();
    let ranked = tb.rank_moves(&pos).unwrap().unwrap();
    assert_eq!(with_ep, ranked[0].1);
}

#[test]
fn every_material_up_to_four_pieces_is_listed_once() {
    // `tablebase generate --pieces 4`: the three- and four-piece tables.
    // Counted here independently: 5 other kinds (Q R B N P) in chess;
    // pawnless sets fold the colours together, sets with pawns do not.
    let v = variant("chess");
    let all = ndchess::tablebase::material::all_up_to(&v, 4);
    let names: Vec<String> = all.iter().map(|m| m.name(&v)).collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    // One extra piece: 4 pawnless (KQvK …) + KPvK + KvKP = 6.
    // Two extra pieces on one side: multisets of 2 from 5 kinds = 15 per
    // side; pawnless ones (10) fold the sides together, the 5 with a pawn
    // do not: 10 + 5 + 5 = 20. One each: 5 x 5 = 25 ordered pairs; the 16
    // pawnless ones fold to 4 + 6 = 10, the 9 with a pawn stay: 19.
    assert_eq!(names.len(), 6 + 20 + 19, "{names:?}");
    for m in ["KQvK", "KvKP", "KPvKP", "KQvKR", "KBNvK", "KvKPP", "KRvKP"] {
        assert!(names.iter().any(|n| n == m), "{m} missing from {names:?}");
    }
}
