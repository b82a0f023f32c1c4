//! Synchronous chess (seed 004): the engine against the reference's
//! synchronous rules (`tests/reference/synchronous.rs`, written from the
//! seed), on chess and on other bases — every seat's choices, the phase,
//! the contested cells and the placement along random games biased
//! towards captures (so exchange phases, swaps and collisions come up),
//! and the joint-decision perft.
//!
//! Run with `cargo test --release --test rules synchronous_agreement`.

use std::collections::BTreeMap;

use crate::reference;
use crate::reference_agreement::Rng;
use ndchess::board::seating::{Phase, Seat};
use ndchess::board::variant::Variant as FastVariant;
use ndchess::rules::moves::{Decision, JointDecision, MoveKey};
use ndchess::rules::position::Position as FastPosition;
use ndchess::rules::simultaneous::joint_perft;
use reference::synchronous::{Decision as RefDecision, SyncPosition};
use reference::{Key, Position as RefPosition, Variant as RefVariant};

fn key_of(k: MoveKey) -> Key {
    (k.from, k.to, k.promotion, k.castling_rook)
}

/// Both implementations of one synchronous game.
struct SyncPair {
    fast: FastPosition,
    reference: SyncPosition,
    history: Vec<String>,
}

fn base_of(spec: &str) -> &str {
    spec.strip_prefix("synchronous:base=")
        .unwrap_or(if spec == "synchronous" { "chess" } else { spec })
}

impl SyncPair {
    fn start(spec: &str) -> SyncPair {
        let fv = FastVariant::from_spec(spec).unwrap_or_else(|e| panic!("{spec}: {e:?}"));
        let rv = RefVariant::from_spec(base_of(spec)).unwrap_or_else(|e| panic!("{spec}: {e}"));
        SyncPair {
            fast: FastPosition::start(&fv),
            reference: SyncPosition::new(RefPosition::start(&rv)),
            history: Vec::new(),
        }
    }

    fn describe(&self) -> String {
        format!(
            "after {} turns [{}]\nfast: {}",
            self.history.len(),
            self.history.join(" "),
            self.fast.to_text()
        )
    }

    /// The reference's choices of `side` as keys (`None`: a pass).
    fn ref_options(&self, side: usize) -> Vec<(Option<Key>, RefDecision)> {
        let mut v: Vec<(Option<Key>, RefDecision)> = self
            .reference
            .options(side)
            .into_iter()
            .map(|d| (d.map(|m| self.reference.pos.key(&m)), d))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    fn fast_options(&self, side: usize) -> Vec<Option<Key>> {
        let seat = Seat::new(side);
        let mut v: Vec<Option<Key>> = match self.fast.phase() {
            Phase::Main => self
                .fast
                .legal_moves_of(seat)
                .into_iter()
                .map(|m| Some(key_of(self.fast.move_key(m))))
                .collect(),
            Phase::Exchange => std::iter::once(None)
                .chain(
                    self.fast
                        .exchange_moves(seat)
                        .into_iter()
                        .map(|m| Some(key_of(self.fast.move_key(m)))),
                )
                .collect(),
        };
        v.sort();
        v
    }

    /// Compares placement, phase, contested cells and both sides'
    /// choices; returns the reference's choices per side.
    fn compare(&self) -> [Vec<(Option<Key>, RefDecision)>; 2] {
        let mut fp = self.fast.placement();
        fp.sort();
        assert_eq!(
            fp,
            self.reference.pos.placement(),
            "placement\n{}",
            self.describe()
        );
        assert_eq!(
            self.fast.phase() == Phase::Exchange,
            self.reference.in_exchange(),
            "phase\n{}",
            self.describe()
        );
        let g = &self.fast.variant().geometry;
        let mut fast_open: Vec<(Vec<i32>, usize)> = self
            .fast
            .exchange()
            .open
            .iter()
            .map(|&(c, s)| {
                (
                    g.coords(c as usize).iter().map(|&x| x as i32).collect(),
                    s.index(),
                )
            })
            .collect();
        fast_open.sort();
        let mut ref_open: Vec<(Vec<i32>, usize)> = self
            .reference
            .open
            .iter()
            .map(|&(c, s)| (self.reference.pos.variant.coords_vec(c), s))
            .collect();
        ref_open.sort();
        assert_eq!(fast_open, ref_open, "contested cells\n{}", self.describe());
        let over = self.reference.over();
        assert_eq!(
            !self.fast.out().is_empty(),
            over,
            "king captured\n{}",
            self.describe()
        );
        let sides = [0, 1].map(|s| self.ref_options(s));
        if !over {
            for (s, opts) in sides.iter().enumerate() {
                let keys: Vec<Option<Key>> = opts.iter().map(|(k, _)| k.clone()).collect();
                assert_eq!(
                    self.fast_options(s),
                    keys,
                    "choices of side {s}\n{}",
                    self.describe()
                );
            }
        }
        sides
    }

    fn fast_decision(&self, side: usize, key: &Option<Key>) -> Decision {
        let seat = Seat::new(side);
        match key {
            None => Decision::Pass,
            Some(k) => {
                let moves = match self.fast.phase() {
                    Phase::Main => self.fast.legal_moves_of(seat),
                    Phase::Exchange => self.fast.exchange_moves(seat),
                };
                let m = moves
                    .into_iter()
                    .find(|&m| key_of(self.fast.move_key(m)) == *k)
                    .expect("compared above");
                Decision::Move(m)
            }
        }
    }

    fn play(&mut self, w: &(Option<Key>, RefDecision), b: &(Option<Key>, RefDecision)) {
        let mut j = JointDecision::new(2);
        let exchange = self.fast.phase() == Phase::Exchange;
        for (side, (key, _)) in [w, b].into_iter().enumerate() {
            let seat = Seat::new(side);
            let deciding = self.fast.turn().movers().contains(seat);
            if deciding || (exchange && key.is_none()) {
                j.set(seat, self.fast_decision(side, key));
            }
        }
        let text = ndchess::rules::notation::joint::joint_text(&self.fast, &j);
        self.fast
            .make_joint(&j)
            .unwrap_or_else(|e| panic!("{text}: {e}\n{}", self.describe()));
        self.reference.play(w.1, b.1);
        self.history.push(text);
    }
}

/// Random synchronous games: at each turn both implementations must agree;
/// captures are chosen half of the time (exchanges, collisions and swaps
/// then come up); at the end every turn is unmade back to the start.
fn sync_playouts(
    spec: &str,
    games: usize,
    max_turns: usize,
    seed: u64,
) -> BTreeMap<&'static str, usize> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut seen = BTreeMap::<&'static str, usize>::new();
    for _ in 0..games {
        let mut pair = SyncPair::start(spec);
        let start = pair.fast.to_text();
        let start_hash = pair.fast.hash();
        for _ in 0..max_turns {
            let [w, b] = pair.compare();
            *seen.entry("positions").or_default() += 1;
            if pair.reference.over() {
                *seen.entry("king captured").or_default() += 1;
                break;
            }
            if w.is_empty() || b.is_empty() {
                *seen.entry("a side without a move").or_default() += 1;
                break;
            }
            if pair.reference.in_exchange() {
                *seen.entry("exchange phase").or_default() += 1;
                if pair.reference.open.len() > 1 {
                    *seen.entry("two contested cells").or_default() += 1;
                }
            }
            let pick = |rng: &mut Rng, opts: &[(Option<Key>, RefDecision)], pos: &SyncPosition| {
                let captures: Vec<&(Option<Key>, RefDecision)> = opts
                    .iter()
                    .filter(|(_, d)| d.is_some_and(|m| pos.pos.board.get(&m.to).is_some()))
                    .collect();
                if !captures.is_empty() && rng.below(2) == 0 {
                    captures[rng.below(captures.len())].clone()
                } else {
                    opts[rng.below(opts.len())].clone()
                }
            };
            let wd = pick(&mut rng, &w, &pair.reference);
            let bd = pick(&mut rng, &b, &pair.reference);
            if let (Some(wm), Some(bm)) = (wd.1, bd.1) {
                if wm.to == bm.to {
                    *seen.entry("collision").or_default() += 1;
                }
                if wm.to == bm.from && bm.to == wm.from {
                    *seen.entry("swap").or_default() += 1;
                }
            }
            pair.play(&wd, &bd);
        }
        for _ in 0..pair.history.len() {
            pair.fast.unmake();
        }
        assert_eq!(pair.fast.to_text(), start, "unmade back to the start");
        assert_eq!(pair.fast.hash(), start_hash);
    }
    println!("{spec}: {seen:?}");
    seen
}

#[test]
fn synchronous_playouts_chess() {
    let seen = sync_playouts("synchronous", 150, 80, 1);
    for what in [
        "exchange phase",
        "two contested cells",
        "collision",
        "king captured",
    ] {
        assert!(seen.contains_key(what), "no {what} met: {seen:?}");
    }
}

#[test]
fn synchronous_playouts_other_bases() {
    for spec in [
        "synchronous:base=chess960:sp=0",
        "synchronous:base=cylinder",
        "synchronous:base=cube",
        "synchronous:base=diamond:n=3,l=8",
    ] {
        let seen = sync_playouts(spec, 12, 60, 2);
        assert!(seen.contains_key("exchange phase"), "{spec}: {seen:?}");
    }
}

/// Positions reached by random synchronous games (main phase and
/// exchange phase), for the perft comparisons.
fn random_positions(spec: &str, count: usize, seed: u64) -> Vec<SyncPair> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::new();
    while out.len() < count {
        let mut pair = SyncPair::start(spec);
        let turns = 8 + rng.below(24);
        for _ in 0..turns {
            let [w, b] = pair.compare();
            if pair.reference.over() || w.is_empty() || b.is_empty() {
                break;
            }
            let wd = w[rng.below(w.len())].clone();
            let bd = b[rng.below(b.len())].clone();
            pair.play(&wd, &bd);
        }
        if !pair.reference.over() {
            out.push(pair);
        }
    }
    out
}

#[test]
fn synchronous_perft_from_the_start() {
    let pair = SyncPair::start("synchronous");
    // RULES §2.11: "From the classical start: 400 at depth 1".
    for depth in 1..=3 {
        let mut fast = pair.fast.clone();
        let n = joint_perft(&mut fast, depth);
        assert_eq!(n, pair.reference.perft(depth), "depth {depth}");
        if depth == 1 {
            assert_eq!(n, 400);
        }
    }
}

#[test]
fn synchronous_perft_middlegames() {
    // Ten positions at depth 2 in full; at depth 3 the subtrees below
    // twenty random joint decisions of each (the whole depth-3 tree of a
    // middlegame is millions of reference positions).
    let mut rng = Rng(77);
    let mut exchanges = 0;
    for mut pair in random_positions("synchronous", 10, 5) {
        exchanges += usize::from(pair.reference.in_exchange());
        let text = pair.fast.to_text();
        let n = joint_perft(&mut pair.fast, 2);
        assert_eq!(n, pair.reference.perft(2), "{text}");
        let [w, b] = pair.compare();
        for _ in 0..20 {
            let wd = w[rng.below(w.len())].clone();
            let bd = b[rng.below(b.len())].clone();
            let mut child = SyncPair {
                fast: pair.fast.clone(),
                reference: pair.reference.clone(),
                history: Vec::new(),
            };
            child.play(&wd, &bd);
            let n = joint_perft(&mut child.fast, 2);
            assert_eq!(
                n,
                child.reference.perft(2),
                "{text} then {}",
                child.history[0]
            );
        }
    }
    println!("{exchanges} of the positions in an exchange phase");
}

#[test]
fn synchronous_perft_other_bases() {
    for spec in ["synchronous:base=cube", "synchronous:base=diamond:n=3,l=8"] {
        let pair = SyncPair::start(spec);
        for depth in 1..=2 {
            let mut fast = pair.fast.clone();
            assert_eq!(
                joint_perft(&mut fast, depth),
                pair.reference.perft(depth),
                "{spec} depth {depth}"
            );
        }
    }
}
