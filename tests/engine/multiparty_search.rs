//! The multi-party searches (issue 11): paranoid, best-reply search and
//! max-n play a legal move under every convention, on one and two
//! threads, from the start and from positions reached by random play; one
//! thread is deterministic; a king capture that decides the game is taken
//! and scored as a won result from the seat's own view; a seat whose
//! only move is the step out plays it.

use ndchess::board::piece::{EMPTY, piece_kind, piece_seat};
use ndchess::board::variant::Variant;
use ndchess::eval::EvalConfig;
use ndchess::rules::movegen::legal_prefix;
use ndchess::rules::moves::{Move, MoveKind};
use ndchess::rules::position::Position;
use ndchess::search::multi::MultiAlgorithm;
use ndchess::search::{Engine, EngineOptions, Limits, Score, SearchControl, SearchResult};

const SPECS: &[&str] = &[
    "diamond:n=3,l=10,players=6",
    "diamond:n=3,l=10,players=4,end=first,dead=stay",
    "diamond:n=3,l=10,players=6,mode=coalition",
    "diamond:n=3,l=10,players=4,mode=coalition,order=free,selfcapture=weak",
    "diamond:n=3,l=8,players=6,mode=independent",
    "diamond:n=3,l=10,players=4,mode=independent,cross=1",
    "cylinder-diamond:n=3,l=10,players=4",
];

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

fn engine(threads: usize, algorithm: MultiAlgorithm) -> Engine {
    let mut e = Engine::new(EngineOptions {
        threads,
        hash_mb: 4,
        eval: EvalConfig::FULL,
        ..EngineOptions::default()
    });
    e.set_multi_algorithm(algorithm);
    e
}

fn search(e: &mut Engine, pos: &Position, limits: &Limits) -> SearchResult {
    e.search(pos, limits, &SearchControl::new(), &mut |_| {})
}

/// The position after up to `plies` random legal moves (fewer when the
/// game ends).
fn random_position(v: &std::sync::Arc<Variant>, plies: usize, rng: &mut Rng) -> Position {
    let mut pos = Position::start(v);
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.make(moves[rng.below(moves.len())]);
    }
    pos
}

/// Whether `m` captures a king of another seat in `pos`.
fn captures_king(pos: &Position, m: &Move) -> bool {
    let v = pos.variant();
    let p = pos.piece_at(m.to as usize);
    m.kind != MoveKind::Out
        && m.kind != MoveKind::Castle
        && p != EMPTY
        && Some(piece_kind(p)) == v.royal_kind
        && piece_seat(p) != pos.to_move()
}

#[test]
fn every_search_plays_a_legal_move_under_every_convention() {
    let mut rng = Rng(0x6d75_6c74_6921);
    for spec in SPECS {
        let v = Variant::from_spec(spec).unwrap();
        let positions = [Position::start(&v), random_position(&v, 40, &mut rng)];
        for pos in &positions {
            let legal = pos.legal_moves();
            for algorithm in MultiAlgorithm::ALL {
                for (threads, limits) in [
                    (1, Limits::nodes(1_500)),
                    (2, Limits::nodes(3_000)),
                    (1, Limits::depth(1)),
                ] {
                    let mut e = engine(threads, algorithm);
                    let r = search(&mut e, pos, &limits);
                    let what = format!("{spec} {algorithm} {threads} threads {limits:?}");
                    if legal.is_empty() {
                        assert_eq!(r.best, None, "{what}");
                        assert!(r.outcome.is_some(), "{what}");
                        continue;
                    }
                    let best = r.best.unwrap_or_else(|| panic!("{what}: no move"));
                    assert!(legal.contains(&best), "{what}: {best:?} is not legal");
                    assert_eq!(r.pv.first(), Some(&best), "{what}");
                    assert_eq!(legal_prefix(pos, &r.pv), r.pv, "{what}: pv not legal");
                    if limits.depth.is_some() {
                        assert!(r.depth >= 1, "{what}: no iteration finished");
                    }
                }
            }
        }
    }
}

#[test]
fn one_thread_is_deterministic() {
    let v = Variant::from_spec("diamond:n=3,l=10,players=6").unwrap();
    let pos = random_position(&v, 30, &mut Rng(77));
    for algorithm in MultiAlgorithm::ALL {
        let a = search(&mut engine(1, algorithm), &pos, &Limits::nodes(4_000));
        let b = search(&mut engine(1, algorithm), &pos, &Limits::nodes(4_000));
        assert_eq!(
            (a.best, a.score, a.depth, a.nodes),
            (b.best, b.score, b.depth, b.nodes),
            "{algorithm}"
        );
    }
}

#[test]
fn a_deciding_king_capture_is_taken_and_scored_as_won() {
    // With end=first a king capture ends the game: the captured seat
    // scores 0, every other seat 1 (the seed's free-for-all scores).
    let v = Variant::from_spec("diamond:n=3,l=10,players=6,end=first").unwrap();
    let mut rng = Rng(2026);
    let mut found = Vec::new();
    'games: for _ in 0..400 {
        let mut pos = Position::start(&v);
        for _ in 0..120 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                continue 'games;
            }
            if moves.iter().any(|m| captures_king(&pos, m)) {
                found.push(pos.clone());
                if found.len() == 4 {
                    break 'games;
                }
                continue 'games;
            }
            pos.make(moves[rng.below(moves.len())]);
        }
    }
    assert!(!found.is_empty(), "random games reached no king capture");
    for pos in &found {
        for algorithm in MultiAlgorithm::ALL {
            for limits in [Limits::depth(1), Limits::depth(3)] {
                let r = search(&mut engine(1, algorithm), pos, &limits);
                let best = r.best.expect("a move");
                assert!(
                    captures_king(pos, &best),
                    "{algorithm} {limits:?} in {}: {best:?} leaves the king",
                    pos.to_text()
                );
                assert!(
                    matches!(r.score, Score::Mate(n) if n > 0),
                    "{algorithm}: {:?}",
                    r.score
                );
            }
        }
    }
}

#[test]
fn a_seat_without_a_move_steps_out() {
    // The step out is the only move of a stuck seat when the game goes
    // on; every search returns it.
    let v = Variant::from_spec("diamond:n=3,l=10,players=6").unwrap();
    let mut rng = Rng(99);
    let mut stuck = None;
    'games: for _ in 0..600 {
        let mut pos = Position::start(&v);
        for _ in 0..300 {
            let moves = pos.legal_moves();
            if moves == [Move::OUT] {
                stuck = Some(pos);
                break 'games;
            }
            if moves.is_empty() {
                continue 'games;
            }
            pos.make(moves[rng.below(moves.len())]);
        }
    }
    let Some(pos) = stuck else {
        // Random play rarely mates; the rules tests build such positions
        // by hand (tests/rules/multiparty_rules.rs).
        println!("no stuck seat reached by random play");
        return;
    };
    for algorithm in MultiAlgorithm::ALL {
        let r = search(&mut engine(1, algorithm), &pos, &Limits::depth(2));
        assert_eq!(r.best, Some(Move::OUT), "{algorithm}");
    }
}

#[test]
fn algorithm_names_round_trip() {
    for a in MultiAlgorithm::ALL {
        assert_eq!(MultiAlgorithm::parse(a.name()), Some(a));
        assert_eq!(MultiAlgorithm::parse(&a.name().to_uppercase()), Some(a));
    }
    assert_eq!(MultiAlgorithm::parse("minimax"), None);
    assert_eq!(MultiAlgorithm::parse(""), None);
}
