//! Multi-party diamond chess (RULES §2.6): the engine against the
//! reference of `tests/reference/multiparty.rs` (written from the rules,
//! nothing shared but the board) — perft from the start positions of the
//! issue's specs, and every position of random games (placement, seat to
//! move, seats out and their fates, legal moves), biased towards captures
//! and king moves so that kings fall, seats go out and armies leave.
//!
//! Run with `cargo test --release --test rules multiparty_agreement`.

use std::collections::BTreeMap;

use crate::reference::multiparty::{Fate as RefFate, OUT, PMove, PPos, Party};
use crate::reference::{Key, Kind};
use crate::reference_agreement::Rng;
use ndchess::board::party::Fate;
use ndchess::board::seating::Seat;
use ndchess::board::variant::Variant as FastVariant;
use ndchess::rules::movegen;
use ndchess::rules::moves::{Move, MoveKind};
use ndchess::rules::position::Position as FastPosition;

/// Both implementations of one game.
struct Pair {
    fast: FastPosition,
    reference: PPos,
    history: Vec<String>,
}

fn fast_key(pos: &FastPosition, m: Move) -> Key {
    if m.kind == MoveKind::Out {
        return (Vec::new(), Vec::new(), None, None);
    }
    let k = pos.move_key(m);
    (k.from, k.to, k.promotion, k.castling_rook)
}

impl Pair {
    fn start(spec: &str) -> Pair {
        let fv = FastVariant::from_spec(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let party = Party::from_spec(spec).unwrap_or_else(|e| panic!("{spec}: {e}"));
        Pair {
            fast: FastPosition::start(&fv),
            reference: PPos::start(&party),
            history: Vec::new(),
        }
    }

    fn describe(&self) -> String {
        format!(
            "after {} moves [{}]\nfast: {}",
            self.history.len(),
            self.history.join(" "),
            self.fast.to_text()
        )
    }

    /// Compares the two positions; returns the legal moves by key.
    fn compare(&self) -> BTreeMap<Key, (Move, PMove)> {
        let f = &self.fast;
        let r = &self.reference;
        let mut placement = f.placement();
        placement.sort();
        assert_eq!(placement, r.placement(), "{}", self.describe());
        let fast_movers: Vec<usize> = f.movers().iter().map(|s| s.index()).collect();
        let mut ref_movers = r.movers();
        ref_movers.sort();
        assert_eq!(
            fast_movers,
            ref_movers,
            "seats to move\n{}",
            self.describe()
        );
        let fates = f.turn_state().fates;
        for s in 0..r.party.players {
            let fast_fate = fates.of(Seat::new(s)).map(|f| match f {
                Fate::Lost => RefFate::Lost,
                Fate::Drawn => RefFate::Drawn,
                Fate::Won => RefFate::Won,
            });
            assert_eq!(
                fast_fate,
                r.fates[s],
                "fate of seat {s}\n{}",
                self.describe()
            );
            assert_eq!(
                f.out().contains(Seat::new(s)),
                r.fates[s].is_some(),
                "seat {s} out\n{}",
                self.describe()
            );
        }
        let fast: BTreeMap<Key, Move> = f
            .legal_moves()
            .into_iter()
            .map(|m| (fast_key(f, m), m))
            .collect();
        let reference: BTreeMap<Key, PMove> =
            r.legal().into_iter().map(|m| (r.key(&m), m)).collect();
        let only_fast: Vec<&Key> = fast.keys().filter(|k| !reference.contains_key(k)).collect();
        let only_ref: Vec<&Key> = reference.keys().filter(|k| !fast.contains_key(k)).collect();
        assert!(
            only_fast.is_empty() && only_ref.is_empty(),
            "moves differ: only the engine {only_fast:?}, only the reference {only_ref:?}\n{}",
            self.describe()
        );
        // No move: the game is over. Over by the seats out: no move (a
        // rule draw, such as kings alone, may leave moves on the board).
        assert!(
            !fast.is_empty() || f.outcome().is_some(),
            "no move but no result\n{}",
            self.describe()
        );
        assert!(
            !f.party_decided() || fast.is_empty(),
            "decided but moves\n{}",
            self.describe()
        );
        fast.into_iter()
            .map(|(k, m)| {
                let p = reference[&k];
                (k, (m, p))
            })
            .collect()
    }

    /// Perft of both from the current position.
    fn assert_perft_agrees(&self, depth: u32) {
        let mut f = self.fast.clone();
        assert_eq!(
            movegen::perft(&mut f, depth),
            self.reference.perft(depth),
            "perft {depth}\n{}",
            self.describe()
        );
    }

    fn play(&mut self, key: &Key, m: Move, p: PMove) {
        self.history.push(if key.0.is_empty() {
            "out".into()
        } else {
            format!("{:?}-{:?}", key.0, key.1)
        });
        self.fast.make(m);
        self.reference.make(p);
    }
}

/// Perft of the engine and the reference agree from the start of `spec`.
fn perft_agrees(spec: &str, depth: u32) {
    let pair = Pair::start(spec);
    let mut fast = pair.fast.clone();
    let engine = movegen::perft(&mut fast, depth);
    let reference = pair.reference.perft(depth);
    println!("{spec} perft({depth}) = {engine}");
    assert_eq!(engine, reference, "{spec} perft({depth})");
}

#[test]
fn perft_of_the_six_and_four_player_starts_agrees_to_depth_4() {
    perft_agrees("diamond:n=3,l=10,players=6", 4);
    perft_agrees("diamond:n=3,l=10,players=4", 4);
}

#[test]
fn perft_of_the_eight_player_4d_start_agrees_to_depth_3() {
    perft_agrees("diamond:n=4,l=10,players=8", 3);
}

#[test]
fn perft_of_coalition_and_independent_starts_agrees() {
    perft_agrees(
        "diamond:n=3,l=10,players=6,mode=coalition,order=fixed,selfcapture=weak",
        4,
    );
    perft_agrees("diamond:n=3,l=10,players=4,mode=coalition,order=free", 3);
    perft_agrees("diamond:n=3,l=8,players=6,mode=independent,cross=0", 4);
    perft_agrees("diamond:n=3,l=10,players=6,mode=independent,cross=1", 3);
    perft_agrees("cylinder-diamond:n=3,l=10,players=4", 3);
}

/// T8.7.4: the multi-party double diamond, the armies permuted as on the
/// diamond, each pawn keeping its copy.
#[test]
fn perft_of_the_double_diamond_starts_agrees() {
    perft_agrees("double-diamond:n=3,l=10", 3);
    perft_agrees("double-diamond:n=3,l=10,players=6", 3);
    perft_agrees("double-diamond:n=3,l=10,players=4,mode=coalition", 3);
    perft_agrees("double-diamond:n=3,l=8,players=6,mode=independent", 3);
}

/// Random games: every position compared; three moves in four are
/// captures, king moves, promotions or the out step when there are any,
/// so that kings are taken. Returns how often each event came up (seats
/// without moves, promotions: the sparse positions below).
fn playouts(spec: &str, games: usize, plies: usize, seed: u64) -> BTreeMap<&'static str, usize> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut seen = BTreeMap::new();
    for _ in 0..games {
        let mut pair = Pair::start(spec);
        for ply in 0..plies {
            let moves = pair.compare();
            if moves.is_empty() {
                *seen.entry("game over").or_default() += 1;
                break;
            }
            if ply % 8 == 7 {
                // Perft 2 from a position of the game as well.
                pair.assert_perft_agrees(2);
                *seen.entry("perft 2 positions").or_default() += 1;
            }
            let list: Vec<(&Key, &(Move, PMove))> = moves.iter().collect();
            let sharp: Vec<&(&Key, &(Move, PMove))> = list
                .iter()
                .filter(|(k, (_, p))| {
                    k.0.is_empty()
                        || p.ep_victim.is_some()
                        || p.promotion.is_some()
                        || pair.reference.board[p.to].is_some()
                        || pair.reference.board[p.from].map(|m| m.kind) == Some(Kind::King)
                })
                .collect();
            let (key, (m, p)) = if !sharp.is_empty() && rng.below(4) != 0 {
                *sharp[rng.below(sharp.len())]
            } else {
                list[rng.below(list.len())]
            };
            if key.0.is_empty() {
                *seen.entry("out step").or_default() += 1;
            } else if p.ep_victim.is_some() {
                *seen.entry("en passant").or_default() += 1;
            } else if p.promotion.is_some() {
                *seen.entry("promotion").or_default() += 1;
            } else if pair.reference.board[p.to].map(|m| m.kind) == Some(Kind::King) {
                *seen.entry("king captured").or_default() += 1;
            }
            let (key, m, p) = (key.clone(), *m, *p);
            pair.play(&key, m, p);
        }
        // The engine takes every move back to the start.
        let start = FastPosition::start(pair.fast.variant());
        while pair.fast.ply_count() > 0 {
            pair.fast.unmake();
        }
        assert_eq!(pair.fast.to_text(), start.to_text(), "{spec}: unmake");
        assert_eq!(pair.fast.hash(), start.hash(), "{spec}: hash after unmake");
        assert_eq!(pair.fast.placement(), start.placement());
    }
    println!("{spec}: {seen:?}");
    seen
}

#[test]
fn random_games_agree_under_every_convention() {
    let mut total: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, spec) in [
        "diamond:n=3,l=10,players=6",
        "diamond:n=3,l=10,players=6,end=first,dead=stay",
        "diamond:n=3,l=10,players=4,mode=coalition,selfcapture=weak",
        "diamond:n=3,l=10,players=6,mode=coalition,order=free,end=first",
        "diamond:n=3,l=8,players=6,mode=independent",
        "diamond:n=3,l=10,players=4,mode=independent,cross=1,end=first,dead=stay",
        "cylinder-diamond:n=3,l=10,players=4",
        "double-diamond:n=3,l=10,players=6",
        "double-diamond:n=3,l=10,players=4,mode=independent,cross=1,end=first",
    ]
    .iter()
    .enumerate()
    {
        for (k, n) in playouts(spec, 3, 160, 11 + i as u64) {
            *total.entry(k).or_default() += n;
        }
    }
    println!("all: {total:?}");
    // The games must have reached the rules under test.
    for event in ["king captured", "perft 2 positions"] {
        assert!(
            total.get(event).copied().unwrap_or(0) > 0,
            "no {event}: {total:?}"
        );
    }
    assert!(total["perft 2 positions"] >= 10);
}

#[test]
fn the_out_step_is_one_ply_and_only_without_another_move() {
    // The out step's key is distinct from every move's: a seat with moves
    // never has it (checked in every compared position above); here the
    // constant itself.
    assert_eq!(Move::OUT.kind, MoveKind::Out);
    assert_ne!(OUT.from, 0);
}

/// Random sparse positions: every seat's king on a random cell, and a few
/// queens, rooks, knights and pawns of random seats, most of them near the
/// king of the seat to move, so that seats are mated, stalemated and
/// promote. Each position valid for the engine is compared with the
/// reference, with perft 2 and a short random game from it.
#[test]
fn sparse_positions_agree_and_seats_go_out_mated_or_stalemated() {
    use ndchess::board::party::Fates;
    use ndchess::board::piece::piece;
    let specs = [
        "diamond:n=3,l=10,players=6",
        "diamond:n=3,l=10,players=4,end=first",
        "diamond:n=3,l=10,players=6,dead=stay",
        "diamond:n=3,l=10,players=4,mode=coalition",
        "diamond:n=3,l=10,players=6,mode=coalition,order=free",
        "diamond:n=3,l=10,players=6,mode=independent,cross=1",
        "double-diamond:n=3,l=10,players=6",
        "double-diamond:n=3,l=10,players=4,mode=coalition,dead=stay",
    ];
    let mut rng = Rng(0x5eed_2026);
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut compared = 0;
    for trial in 0..1600 {
        let spec = specs[trial % specs.len()];
        let fv = FastVariant::from_spec(spec).unwrap();
        let party = Party::from_spec(spec).unwrap();
        let g = &fv.geometry;
        let cells = g.cell_count();
        let seats = fv.seat_count();
        let to_move = Seat::new(rng.below(seats));
        let lone_king = trial % 2 == 1;
        // The corners of the faces: the cells with the fewest neighbours,
        // where a lone king is most easily stalemated.
        // The diamond's edge (the double diamond's axis 1 holds both
        // copies' ranks).
        let l = g.lens()[g.dims() - 1] as i16;
        let corners: Vec<usize> = (0..cells)
            .filter(|&c| {
                let x = g.coords(c);
                x.iter().filter(|&&v| v == 0 || v == l - 1).count() == 1
                    && x.iter()
                        .all(|&v| v == 0 || v == l - 1 || v == l / 2 - 1 || v == l / 2)
            })
            .collect();
        let mut used = BTreeMap::new();
        for s in 0..seats {
            let king = fv.royal_kind.unwrap();
            let mut c = if lone_king && s == to_move.index() {
                corners[rng.below(corners.len())]
            } else {
                rng.below(cells)
            };
            while used.contains_key(&c) {
                c = rng.below(cells);
            }
            used.insert(c, piece(Seat::new(s), king));
        }
        let target = used
            .iter()
            .find(|(_, p)| ndchess::board::piece::piece_seat(**p) == to_move)
            .map(|(c, _)| *c)
            .unwrap();
        // Every other trial the seat to move has its king alone, on a
        // corner (so that it can be stalemated).
        let extra = 2 + rng.below(if lone_king { 7 } else { 5 });
        for _ in 0..extra {
            let letter = ['Q', 'R', 'N', 'P', 'Q'][rng.below(5)];
            let kind = fv.kind_by_letter(letter).unwrap();
            let mut owner = Seat::new(rng.below(seats));
            if lone_king && owner == to_move {
                owner = Seat::new((owner.index() + 1 + rng.below(seats - 1)) % seats);
            }
            // Near the target king: within two steps on every axis.
            let near: Vec<i32> = g
                .coords(target)
                .iter()
                .map(|&x| x as i32 + rng.below(5) as i32 - 2)
                .collect();
            let c = if lone_king || rng.below(3) == 0 {
                Some(rng.below(cells))
            } else {
                g.cell_at(&near)
            };
            if let Some(c) = c {
                used.entry(c).or_insert(piece(owner, kind));
            }
        }
        let pieces: Vec<_> = used.into_iter().collect();
        let Ok(fast) = FastPosition::from_pieces(&fv, &pieces, to_move, Fates::default()) else {
            continue;
        };
        let mut placement = fast.placement();
        placement.sort();
        let reference =
            PPos::from_placement(&party, &placement, to_move.index(), vec![None; seats]);
        let mut pair = Pair {
            fast,
            reference,
            history: Vec::new(),
        };
        compared += 1;
        for ply in 0..6 {
            let moves = pair.compare();
            if ply == 0 {
                pair.assert_perft_agrees(2);
            }
            if moves.is_empty() {
                *seen.entry("game over").or_default() += 1;
                break;
            }
            if let Some((key, (m, p))) = moves.iter().find(|(k, _)| k.0.is_empty()) {
                let mated = pair.reference.in_check(pair.reference.to_move);
                *seen
                    .entry(if mated { "out mated" } else { "out stalemated" })
                    .or_default() += 1;
                let (key, m, p) = (key.clone(), *m, *p);
                let mover = pair.fast.to_move();
                pair.play(&key, m, p);
                let fate = pair.fast.turn_state().fates.of(mover);
                assert_eq!(
                    fate,
                    Some(if mated {
                        ndchess::board::party::Fate::Lost
                    } else {
                        ndchess::board::party::Fate::Drawn
                    })
                );
                continue;
            }
            let list: Vec<_> = moves.iter().collect();
            let (key, (m, p)) = list[rng.below(list.len())];
            if p.promotion.is_some() {
                *seen.entry("promotion").or_default() += 1;
            }
            if pair.reference.board[p.to].map(|m| m.kind) == Some(Kind::King) {
                *seen.entry("king captured").or_default() += 1;
            }
            let (key, m, p) = (key.clone(), *m, *p);
            pair.play(&key, m, p);
        }
    }
    println!("{compared} positions: {seen:?}");
    assert!(compared >= 500, "{compared}");
    // Stalemates of a lone king need many pieces around it and do not come
    // up here: multiparty_rules has one built by hand.
    for event in ["out mated", "promotion", "king captured", "game over"] {
        assert!(
            seen.get(event).copied().unwrap_or(0) > 0,
            "no {event}: {seen:?}"
        );
    }
}
