//! ndchess against shakmaty 0.30, an independent move generator, on chess
//! and Chess960.
//!
//! Seeded random playouts (biased towards castling, en passant and the
//! double steps that allow it, so those rules are actually exercised) visit
//! tens of thousands of positions; in each the two legal move sets must be
//! equal as UCI texts, the check status must agree, and the position text
//! must equal shakmaty's FEN and read back to the same position. A second
//! test re-checks the published suite files in `perft/` with shakmaty.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use ndchess::board::piece::piece_kind;
use ndchess::board::variant::Variant;
use ndchess::rules::moves::MoveKind;
use ndchess::rules::position::Position;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move as SkMove, Position as _};

/// Positions compared per variant (the brief asks for at least 10,000).
const MIN_POSITIONS: usize = 50_000;
/// Plies per playout before a new game starts.
const MAX_PLIES: usize = 100;

/// Reads the FEN column of `perft/<name>` (sources in `perft/README.md`).
fn suite_fens(name: &str) -> Vec<(String, Vec<(u32, u64)>)> {
    let path = format!("{}/perft/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut fields = l.split(';');
            let fen = fields.next().unwrap_or_default().trim().to_string();
            let counts = fields
                .filter_map(|f| {
                    let (tag, value) = f.trim().split_once(' ')?;
                    Some((
                        tag.strip_prefix('D')?.parse().ok()?,
                        value.trim().parse().ok()?,
                    ))
                })
                .collect();
            (fen, counts)
        })
        .collect()
}

fn variant(spec: &str) -> Arc<Variant> {
    Variant::from_spec(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

/// shakmaty's position for `fen`. Some composed suite positions have a
/// check no legal move could have given (e.g. `tricky.epd`'s
/// `3R4/8/q4k2/2B5/1NK5/3b4/8/8 w`); shakmaty rejects those unless told to
/// accept them, and generates their moves normally.
fn shakmaty_position(fen: &str, mode: CastlingMode) -> Chess {
    Fen::from_ascii(fen.as_bytes())
        .unwrap_or_else(|e| panic!("shakmaty reads '{fen}': {e}"))
        .into_position(mode)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .unwrap_or_else(|e| panic!("shakmaty sets up '{fen}': {e}"))
}

/// What the playouts met (counted over the compared legal move sets).
#[derive(Debug, Default)]
struct Stats {
    games: usize,
    positions: usize,
    moves: usize,
    castles_king_side: usize,
    castles_queen_side: usize,
    /// Chess960 castlings in which the king does not move.
    castles_king_stays: usize,
    en_passant: usize,
    /// Castlings and en-passant captures the playouts made.
    castles_played: usize,
    en_passant_played: usize,
    promotions: usize,
    checks: usize,
    mates: usize,
    stalemates: usize,
}

/// One playout pair: ndchess and shakmaty kept in step.
struct Game {
    spec: String,
    mode: CastlingMode,
    pos: Position,
    sk: Chess,
    start_fen: String,
    played: Vec<String>,
}

impl Game {
    fn chess960(&self) -> bool {
        self.mode == CastlingMode::Chess960
    }

    /// Where a failure happened, with a command that reproduces it.
    fn context(&self) -> String {
        format!(
            "variant {}, start '{}', moves [{}], now '{}'\n  reproduce: ndchess perft --variant {} --fen \"{}\" --depth 1 --divide",
            self.spec,
            self.start_fen,
            self.played.join(" "),
            self.pos.to_text(),
            self.spec,
            self.pos.to_text()
        )
    }

    /// Compares the current positions; returns ndchess's legal moves with
    /// their texts and shakmaty's moves by text.
    fn compare(
        &self,
        stats: &mut Stats,
    ) -> (
        Vec<(ndchess::rules::moves::Move, String)>,
        BTreeMap<String, SkMove>,
    ) {
        let king_takes_rook = self.chess960();
        let ours: Vec<_> = self
            .pos
            .legal_moves()
            .into_iter()
            .map(|m| (m, self.pos.move_text(m, king_takes_rook)))
            .collect();
        let our_set: BTreeSet<&str> = ours.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            our_set.len(),
            ours.len(),
            "ndchess lists a move twice: {}",
            self.context()
        );
        let theirs: BTreeMap<String, SkMove> = self
            .sk
            .legal_moves()
            .iter()
            .map(|&m| (UciMove::from_move(m, self.mode).to_string(), m))
            .collect();
        let their_set: BTreeSet<&str> = theirs.keys().map(String::as_str).collect();
        if our_set != their_set {
            let extra: Vec<_> = our_set.difference(&their_set).collect();
            let missing: Vec<_> = their_set.difference(&our_set).collect();
            panic!(
                "legal moves differ: ndchess only {extra:?}, shakmaty only {missing:?}\n  {}",
                self.context()
            );
        }
        assert_eq!(
            self.pos.in_check(),
            self.sk.is_check(),
            "check status: {}",
            self.context()
        );

        stats.positions += 1;
        stats.moves += ours.len();
        stats.checks += usize::from(self.sk.is_check());
        stats.mates += usize::from(self.sk.is_checkmate());
        stats.stalemates += usize::from(self.sk.is_stalemate());
        for m in theirs.values() {
            match *m {
                SkMove::Castle { king, rook } => {
                    if rook > king {
                        stats.castles_king_side += 1;
                    } else {
                        stats.castles_queen_side += 1;
                    }
                }
                SkMove::EnPassant { .. } => stats.en_passant += 1,
                SkMove::Normal {
                    promotion: Some(_), ..
                } => stats.promotions += 1,
                _ => {}
            }
        }
        for (m, _) in &ours {
            if m.kind == MoveKind::Castle && m.from == m.to {
                stats.castles_king_stays += 1;
            }
        }
        (ours, theirs)
    }

    /// The position text against shakmaty's FEN and against itself.
    ///
    /// ndchess writes the en-passant cell when an enemy pawn attacks it, a
    /// pin notwithstanding: shakmaty's `EnPassantMode::PseudoLegal` (X-FEN).
    /// Chess960 castling letters differ in style (ndchess writes
    /// Shredder-FEN, shakmaty X-FEN), so there the text is compared after
    /// shakmaty has read it.
    fn compare_text(&self) {
        let text = self.pos.to_text();
        let their_fen = Fen::from_position(&self.sk, EnPassantMode::PseudoLegal).to_string();
        if self.chess960() {
            let ours: Vec<&str> = text.split(' ').collect();
            let theirs: Vec<&str> = their_fen.split(' ').collect();
            for i in [0, 1, 3, 4, 5] {
                assert_eq!(
                    ours.get(i),
                    theirs.get(i),
                    "FEN field {i}: {}",
                    self.context()
                );
            }
            let reread = shakmaty_position(&text, self.mode);
            assert_eq!(
                Fen::from_position(&reread, EnPassantMode::PseudoLegal).to_string(),
                their_fen,
                "ndchess's text read by shakmaty: {}",
                self.context()
            );
        } else {
            assert_eq!(text, their_fen, "FEN: {}", self.context());
        }
        let v = self.pos.variant();
        let back = Position::from_text(v, &text)
            .unwrap_or_else(|e| panic!("reading back '{text}': {e}: {}", self.context()));
        assert_eq!(back.to_text(), text, "text round trip: {}", self.context());
        assert_eq!(
            back.hash(),
            self.pos.hash(),
            "hash after reading back: {}",
            self.context()
        );
        let mut a: Vec<String> = back
            .legal_moves()
            .iter()
            .map(|&m| back.move_text(m, true))
            .collect();
        let mut b: Vec<String> = self
            .pos
            .legal_moves()
            .iter()
            .map(|&m| self.pos.move_text(m, true))
            .collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "legal moves after reading back: {}", self.context());
    }

    /// Picks the next move. Uniform random play rarely castles or takes en
    /// passant, so castling, en passant, double steps that allow an
    /// en-passant reply and moves that clear the back rank are preferred.
    fn choose(
        &mut self,
        ours: &[(ndchess::rules::moves::Move, String)],
        rng: &mut SmallRng,
    ) -> usize {
        let pick = |pool: &[usize], rng: &mut SmallRng| pool[rng.random_range(0..pool.len())];
        let of_kind = |k: MoveKind| -> Vec<usize> {
            (0..ours.len()).filter(|&i| ours[i].0.kind == k).collect()
        };
        let castles = of_kind(MoveKind::Castle);
        if !castles.is_empty() && rng.random_bool(0.25) {
            return pick(&castles, rng);
        }
        let eps = of_kind(MoveKind::EnPassant);
        if !eps.is_empty() && rng.random_bool(0.9) {
            return pick(&eps, rng);
        }
        let doubles = of_kind(MoveKind::DoubleStep);
        let enabling: Vec<usize> = doubles
            .iter()
            .copied()
            .filter(|&i| {
                self.pos.make(ours[i].0);
                let ep = self
                    .pos
                    .legal_moves()
                    .iter()
                    .any(|m| m.kind == MoveKind::EnPassant);
                self.pos.unmake();
                ep
            })
            .collect();
        if !enabling.is_empty() && rng.random_bool(0.8) {
            return pick(&enabling, rng);
        }
        // Minor pieces and queens leaving the back rank open castling paths.
        let v = self.pos.variant();
        let g = &v.geometry;
        let back_rank = if self.pos.to_move().index() == 0 {
            0
        } else {
            7
        };
        let clearing: Vec<usize> = (0..ours.len())
            .filter(|&i| {
                let m = ours[i].0;
                let from = m.from as usize;
                let letter = v.kinds[piece_kind(self.pos.piece_at(from))].letter;
                m.kind == MoveKind::Normal
                    && g.coord(from, 0) == back_rank
                    && g.coord(m.to as usize, 0) != back_rank
                    && !matches!(letter, 'K' | 'R')
            })
            .collect();
        if !clearing.is_empty() && rng.random_bool(0.4) {
            return pick(&clearing, rng);
        }
        if !doubles.is_empty() && rng.random_bool(0.2) {
            return pick(&doubles, rng);
        }
        rng.random_range(0..ours.len())
    }

    /// Plays to the end or [`MAX_PLIES`], comparing every position.
    fn play_out(&mut self, rng: &mut SmallRng, stats: &mut Stats, check_text: bool) {
        stats.games += 1;
        for _ in 0..MAX_PLIES {
            let (ours, theirs) = self.compare(stats);
            if check_text {
                self.compare_text();
            }
            if ours.is_empty() {
                break;
            }
            let i = self.choose(&ours, rng);
            let (m, text) = &ours[i];
            let sk_move = theirs[text];
            stats.castles_played += usize::from(m.kind == MoveKind::Castle);
            stats.en_passant_played += usize::from(m.kind == MoveKind::EnPassant);
            self.pos.make(*m);
            self.sk.play_unchecked(sk_move);
            self.played.push(text.clone());
        }
    }
}

fn assert_coverage(name: &str, stats: &Stats, chess960: bool) {
    eprintln!("{name}: {stats:?}");
    assert!(
        stats.positions >= MIN_POSITIONS,
        "{name}: {} positions",
        stats.positions
    );
    assert!(
        stats.castles_king_side >= 300,
        "{name}: king-side castlings {stats:?}"
    );
    assert!(
        stats.castles_queen_side >= 300,
        "{name}: queen-side castlings {stats:?}"
    );
    assert!(stats.en_passant >= 300, "{name}: en passant {stats:?}");
    assert!(
        stats.castles_played >= 300,
        "{name}: castlings played {stats:?}"
    );
    assert!(
        stats.en_passant_played >= 300,
        "{name}: en-passant captures played {stats:?}"
    );
    assert!(stats.promotions >= 100, "{name}: promotions {stats:?}");
    assert!(stats.mates >= 10, "{name}: checkmates {stats:?}");
    if chess960 {
        assert!(
            stats.castles_king_stays >= 20,
            "{name}: castlings without king move {stats:?}"
        );
    }
}

/// Standard chess: playouts from the start position and, every fourth game,
/// from a position of `standard.epd` or `tricky.epd`.
#[test]
fn chess_random_playouts() {
    let v = variant("chess");
    let mut starts = vec![Position::start(&v).to_text()];
    starts.extend(suite_fens("standard.epd").into_iter().map(|e| e.0));
    starts.extend(suite_fens("tricky.epd").into_iter().map(|e| e.0));
    // Independent of ndchess: shakmaty's own start position must equal
    // ndchess's start text.
    assert_eq!(
        Fen::from_position(&Chess::default(), EnPassantMode::PseudoLegal).to_string(),
        starts[0],
        "start position"
    );
    let mut rng = SmallRng::seed_from_u64(0x5eed_c4e5);
    let mut stats = Stats::default();
    while stats.positions < MIN_POSITIONS {
        let fen = if stats.games % 4 == 3 {
            &starts[rng.random_range(1..starts.len())]
        } else {
            &starts[0]
        };
        let mut game = Game {
            spec: "chess".into(),
            mode: CastlingMode::Standard,
            pos: Position::from_text(&v, fen).unwrap_or_else(|e| panic!("'{fen}': {e}")),
            sk: shakmaty_position(fen, CastlingMode::Standard),
            start_fen: fen.clone(),
            played: Vec::new(),
        };
        game.play_out(&mut rng, &mut stats, true);
    }
    assert_coverage("chess", &stats, false);
}

/// Chess960: playouts from random start positions (shakmaty set up from the
/// published `chess960-start.epd` line, ndchess from `chess960:sp=k`) and,
/// every fifth game, from a position of `tricky-chess960.epd`.
#[test]
fn chess960_random_playouts() {
    let starts = suite_fens("chess960-start.epd");
    assert_eq!(starts.len(), 960, "one line per start position");
    let tricky = suite_fens("tricky-chess960.epd");
    let mut rng = SmallRng::seed_from_u64(0x960_960);
    let mut stats = Stats::default();
    while stats.positions < MIN_POSITIONS {
        let game = if stats.games % 5 == 4 {
            let fen = &tricky[rng.random_range(0..tricky.len())].0;
            let spec = "chess960:sp=518".to_string();
            let v = variant(&spec);
            Game {
                pos: Position::from_text(&v, fen).unwrap_or_else(|e| panic!("'{fen}': {e}")),
                spec,
                mode: CastlingMode::Chess960,
                sk: shakmaty_position(fen, CastlingMode::Chess960),
                start_fen: fen.clone(),
                played: Vec::new(),
            }
        } else {
            let sp = rng.random_range(0..960usize);
            let spec = format!("chess960:sp={sp}");
            let v = variant(&spec);
            Game {
                pos: Position::start(&v),
                spec,
                mode: CastlingMode::Chess960,
                sk: shakmaty_position(&starts[sp].0, CastlingMode::Chess960),
                start_fen: starts[sp].0.clone(),
                played: Vec::new(),
            }
        };
        let mut game = game;
        game.play_out(&mut rng, &mut stats, true);
    }
    assert_coverage("chess960", &stats, true);
}

/// The suite files' counts up to depth 3 reproduced by shakmaty, so that
/// `tests/rules/perft_suites.rs` checks ndchess against correct numbers.
#[test]
fn suite_files_agree_with_shakmaty() {
    let mut checked = 0;
    for (file, mode, max_depth) in [
        ("standard.epd", CastlingMode::Standard, 3),
        ("tricky.epd", CastlingMode::Standard, 3),
        ("tricky-chess960.epd", CastlingMode::Chess960, 3),
        ("chess960-start.epd", CastlingMode::Chess960, 3),
    ] {
        for (fen, counts) in suite_fens(file) {
            let pos = shakmaty_position(&fen, mode);
            for &(depth, expected) in counts.iter().filter(|c| c.0 <= max_depth) {
                assert_eq!(
                    shakmaty::perft(&pos, depth),
                    expected,
                    "{file} '{fen}' depth {depth}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 960 * 3, "{checked} counts checked");
}

/// Dead positions by material (FIDE 5.2.2 / 9.6.2 as the chess GUIs apply
/// it) agree with shakmaty's `is_insufficient_material` on random sparse
/// positions: both kings and up to four of N, B, R, Q, P on random cells,
/// either side to move; shakmaty's validation skips impossible ones.
#[test]
fn insufficient_material_agrees_with_shakmaty() {
    let chess = variant("chess");
    let cylinder = variant("cylinder");
    let mut rng = SmallRng::seed_from_u64(0x1f1de);
    let (mut compared, mut dead) = (0usize, 0usize);
    while compared < 20_000 {
        let mut board = ['.'; 64];
        let mut place = |rng: &mut SmallRng, c: char| loop {
            let sq = rng.random_range(0..64usize);
            let rank = sq / 8;
            if board[sq] == '.' && !(c.eq_ignore_ascii_case(&'p') && (rank == 0 || rank == 7)) {
                board[sq] = c;
                break;
            }
        };
        place(&mut rng, 'K');
        place(&mut rng, 'k');
        // Mostly minor pieces, so the dead cases are common.
        for _ in 0..rng.random_range(0..5) {
            let c = ['N', 'B', 'B', 'N', 'B', 'R', 'Q', 'P'][rng.random_range(0..8usize)];
            let c = if rng.random_bool(0.5) {
                c
            } else {
                c.to_ascii_lowercase()
            };
            place(&mut rng, c);
        }
        let rows: Vec<String> = (0..8)
            .rev()
            .map(|rank| {
                let mut row = String::new();
                let mut empty = 0;
                for file in 0..8 {
                    match board[rank * 8 + file] {
                        '.' => empty += 1,
                        c => {
                            if empty > 0 {
                                row.push_str(&empty.to_string());
                                empty = 0;
                            }
                            row.push(c);
                        }
                    }
                }
                if empty > 0 {
                    row.push_str(&empty.to_string());
                }
                row
            })
            .collect();
        let side = if rng.random_bool(0.5) { "w" } else { "b" };
        let fen = format!("{} {side} - - 0 1", rows.join("/"));
        let Ok(parsed) = fen.parse::<Fen>() else {
            continue;
        };
        let Ok(sk) = parsed.into_position::<Chess>(CastlingMode::Standard) else {
            continue;
        };
        let Ok(pos) = Position::from_text(&chess, &fen) else {
            continue;
        };
        assert_eq!(pos.dead_position(), sk.is_insufficient_material(), "{fen}");
        // The cylinder keeps only bare kings as dead (no proof there).
        if let Ok(cyl) = Position::from_text(&cylinder, &fen) {
            assert_eq!(cyl.dead_position(), cyl.only_kings(), "cylinder {fen}");
        }
        compared += 1;
        dead += usize::from(pos.dead_position());
    }
    assert!(dead > 1_000, "only {dead} dead positions met");
}
