//! Synchronous chess self-play (issue 10, acceptance 3): 1,000 games of
//! the engine against itself (the simultaneous search at depth 1, its
//! mixed strategies sampled with a per-game seed) from random openings,
//! every game short (at most 40 steps, then adjudicated). After every step
//! the position's invariants are checked; after every game its record is
//! replayed through the UCI front-end (`position startpos moves <joint
//! decisions>`) and must reach the same position. Games run in parallel
//! on every core, so this test has a binary of its own: the protocol
//! tests' timing is not disturbed.

use std::sync::Arc;

use crossbeam_channel::unbounded;
use ndchess::board::piece::{EMPTY, piece_kind, piece_seat};
use ndchess::board::seating::{BySeat, Seat};
use ndchess::board::variant::Variant;
use ndchess::game::{DriverOptions, EnginePlayer, Game, Step, run};
use ndchess::protocol::session::SessionConfig;
use ndchess::protocol::uci::Uci;
use ndchess::rules::position::Position;
use ndchess::search::{EngineOptions, Limits};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

const GAMES: usize = 1000;
const MAX_STEPS: usize = 40;
const OPENING_TURNS: usize = 3;

/// Pieces per seat, and pawns per seat (for the material invariant).
fn census(pos: &Position) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let v = pos.variant();
    let n = v.seat_count();
    let (mut pieces, mut pawns, mut kings) = (vec![0; n], vec![0; n], vec![0; n]);
    for &p in pos.board() {
        if p == EMPTY {
            continue;
        }
        let s = piece_seat(p).index();
        pieces[s] += 1;
        if v.is_pawn(piece_kind(p)) {
            pawns[s] += 1;
        }
        if v.royal_kind == Some(piece_kind(p)) {
            kings[s] += 1;
        }
    }
    (pieces, pawns, kings)
}

/// The invariants of one position, and against the position before.
fn check(pos: &Position, before: Option<&(Vec<u32>, Vec<u32>, Vec<u32>)>, context: &str) {
    let (pieces, pawns, kings) = census(pos);
    // One piece per cell: the board and the bitboards agree.
    let occupied: u32 = pos.occupied_bits().iter().map(|w| w.count_ones()).sum();
    assert_eq!(occupied, pieces.iter().sum::<u32>(), "{context}");
    for s in 0..pieces.len() {
        let seat = Seat::new(s);
        let bits: u32 = pos.seat_bits(seat).iter().map(|w| w.count_ones()).sum();
        assert_eq!(bits, pieces[s], "{context}");
        assert!(kings[s] <= 1, "{context}: two kings");
        assert_eq!(
            kings[s] == 0,
            pos.out().contains(seat),
            "{context}: king count"
        );
    }
    if let Some((p0, w0, _)) = before {
        for s in 0..pieces.len() {
            // Material only goes down; a promotion turns a pawn into a
            // piece (the count of pieces other than pawns may grow by as
            // many pawns as went).
            assert!(pieces[s] <= p0[s], "{context}: material grew");
            let officers = pieces[s] - pawns[s];
            let officers0 = p0[s] - w0[s];
            assert!(
                officers <= officers0 + (w0[s] - pawns[s].min(w0[s])),
                "{context}: pieces appeared"
            );
        }
    }
}

fn one_game(v: &Arc<Variant>, i: usize) -> (usize, usize) {
    let mut rng = SmallRng::seed_from_u64(0x5ca1e + i as u64);
    let mut game = Game::new(Position::start(v));
    for _ in 0..OPENING_TURNS {
        let all = game.position().joint_decisions();
        if all.is_empty() || game.is_over() {
            break;
        }
        let j = all[rng.random_range(0..all.len())].clone();
        game.play_joint(&j, None).expect("a listed joint decision");
    }
    let limits = Limits {
        depth: Some(1),
        ..Limits::default()
    };
    let options = EngineOptions {
        hash_mb: 1,
        ..EngineOptions::default()
    };
    let mut engine = EnginePlayer::new("ndchess", options, limits).with_seed(i as u64);
    let mut last = census(game.position());
    let mut exchanges = 0;
    if !game.is_over() {
        let opts = DriverOptions {
            max_plies: Some(MAX_STEPS),
            ..DriverOptions::default()
        };
        run(
            &mut game,
            &mut [&mut engine],
            &BySeat::from_fn(v.seat_count(), |_| 0),
            &opts,
            &mut |g: &Game| {
                let pos = g.position();
                let context = format!("game {i} step {}: {}", g.plies().len(), pos.to_text());
                check(pos, Some(&last), &context);
                exchanges += usize::from(pos.phase() == ndchess::board::seating::Phase::Exchange);
                last = census(pos);
            },
        );
    }
    // Replay through the protocol.
    let texts: Vec<String> = game
        .plies()
        .iter()
        .map(|p| {
            assert!(
                matches!(p.step, Step::Joint(_)),
                "game {i}: every step is joint"
            );
            p.text.clone()
        })
        .collect();
    let (tx, _rx) = unbounded();
    let mut uci = Uci::new(tx, SessionConfig::default());
    uci.handle("setoption name UCI_Variant value synchronous");
    uci.handle(&format!("position startpos moves {}", texts.join(" ")));
    let replayed = uci
        .session()
        .position()
        .unwrap_or_else(|| panic!("game {i}: the record does not replay: {}", texts.join(" ")));
    assert_eq!(
        replayed.to_text(),
        game.position().to_text(),
        "game {i}: {}",
        texts.join(" ")
    );
    uci.shutdown(std::time::Duration::from_secs(5));
    (game.plies().len(), exchanges)
}

#[test]
fn a_thousand_self_play_games_replay_through_the_protocol() {
    let v = Variant::from_spec("synchronous").expect("built-in");
    let results: Vec<(usize, usize)> = (0..GAMES)
        .into_par_iter()
        .map(|i| one_game(&v, i))
        .collect();
    let steps: usize = results.iter().map(|r| r.0).sum();
    let exchanges: usize = results.iter().map(|r| r.1).sum();
    println!("{GAMES} games, {steps} steps, {exchanges} positions in an exchange phase");
    assert_eq!(results.len(), GAMES);
    assert!(
        exchanges > GAMES / 10,
        "exchange phases came up: {exchanges}"
    );
}
