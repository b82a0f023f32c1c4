//! The end of a game: when it ends by the rules, why, and the points each
//! seat scores.
//!
//! Results are points per seat ([`Outcome::points`], in quarter points so
//! that the cube's ¾–¼ stalemate win is exact); strings such as "1-0" are
//! written only by the protocol front-ends.

use std::fmt;

use crate::board::party::{Fate, Fates, GameEnd, PartyMode, PartyRules};
use crate::board::seating::{BySeat, Seat, SeatSet, Side, Turn};
use crate::board::variant::{StalemateRule, Variant};
use crate::rules::movegen::with_generator;
use crate::rules::position::Position;

/// A score in quarter points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Points(u8);

impl Points {
    /// Nothing.
    pub const ZERO: Points = Points(0);
    /// A quarter point (the stalemated side in the cube).
    pub const QUARTER: Points = Points(1);
    /// Half a point (a draw).
    pub const HALF: Points = Points(2);
    /// Three quarters (a stalemate win in the cube).
    pub const THREE_QUARTERS: Points = Points(3);
    /// A whole point.
    pub const ONE: Points = Points(4);

    /// The points as a number of quarters.
    pub fn quarters(self) -> u8 {
        self.0
    }

    /// The points as a number.
    pub fn value(self) -> f64 {
        self.0 as f64 / 4.0
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => write!(f, "0"),
            1 => write!(f, "1/4"),
            2 => write!(f, "1/2"),
            3 => write!(f, "3/4"),
            4 => write!(f, "1"),
            q => write!(f, "{q}/4"),
        }
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The seats of `losers` are mated.
    Checkmate {
        /// The mated seats.
        losers: SeatSet,
    },
    /// The seats of `losers` are stalemated in a variant where that loses
    /// (Schach hoch 3: ¾–¼).
    StalemateLoss {
        /// The stalemated seats.
        losers: SeatSet,
    },
    /// Every seat of each side was mated at once (simultaneous turns): a
    /// draw.
    SimultaneousMate,
    /// No legal move, not in check: a draw.
    Stalemate,
    /// The same position for the third time.
    Repetition,
    /// 100 plies without capture or pawn move.
    FiftyMoves,
    /// Only kings are left.
    DeadPosition,
    /// Every seat of the other sides is out (its king captured): the seats
    /// of `losers` lose.
    Elimination {
        /// The seats out of play.
        losers: SeatSet,
    },
    /// Every seat is out at once (kings captured together): a draw.
    MutualElimination,
    /// Decided outside the rules: a move limit, a score margin, an agreed
    /// draw, a resignation.
    Adjudicated,
    /// The seats of `losers` forfeit (a crash, an illegal move, time).
    Forfeit {
        /// The forfeiting side's seats.
        losers: SeatSet,
    },
}

/// The result of a finished game.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// Points per seat.
    pub points: BySeat<Points>,
    /// Why the game ended.
    pub reason: EndReason,
}

impl Outcome {
    /// A draw by `reason`: half a point each.
    pub fn draw(seats: usize, reason: EndReason) -> Outcome {
        Outcome {
            points: BySeat::from_fn(seats, |_| Points::HALF),
            reason,
        }
    }

    /// `losers` lose (with `loser_points` each) to every other seat (with
    /// `winner_points`), for `reason`. The seats on a loser's side lose
    /// with it.
    pub fn defeat(v: &Variant, losers: SeatSet, reason: EndReason) -> Outcome {
        let (win, lose) = match reason {
            EndReason::StalemateLoss { .. } => (Points::THREE_QUARTERS, Points::QUARTER),
            _ => (Points::ONE, Points::ZERO),
        };
        let losing_side: SeatSet = losers
            .iter()
            .flat_map(|s| v.seating.side_of(s).iter())
            .collect();
        Outcome {
            points: BySeat::from_fn(v.seat_count(), |s| {
                if losing_side.contains(s) { lose } else { win }
            }),
            reason,
        }
    }

    /// The same result with nothing for the seats of `out` (out of play
    /// before the game ended).
    pub fn with_out(mut self, out: SeatSet) -> Outcome {
        for s in out.iter() {
            if let Some(p) = self.points.get_mut(s) {
                *p = Points::ZERO;
            }
        }
        self
    }

    /// `loser` is mated; every other side wins.
    pub fn checkmate(v: &Variant, loser: Seat) -> Outcome {
        let losers = SeatSet::single(loser);
        Outcome::defeat(v, losers, EndReason::Checkmate { losers })
    }

    /// `loser` is stalemated in a variant where that loses.
    pub fn stalemate_loss(v: &Variant, loser: Seat) -> Outcome {
        let losers = SeatSet::single(loser);
        Outcome::defeat(v, losers, EndReason::StalemateLoss { losers })
    }

    /// Whether every seat scored the same.
    pub fn is_draw(&self) -> bool {
        self.points.values().windows(2).all(|w| w[0] == w[1])
    }

    /// The seats with the most points, unless every seat scored the same.
    pub fn winners(&self) -> SeatSet {
        if self.is_draw() {
            return SeatSet::EMPTY;
        }
        let best = self
            .points
            .values()
            .iter()
            .copied()
            .max()
            .unwrap_or_default();
        self.points
            .iter()
            .filter(|(_, p)| **p == best)
            .map(|(s, _)| s)
            .collect()
    }

    /// The single winner, if there is exactly one.
    pub fn winner(&self) -> Option<Seat> {
        let w = self.winners();
        (w.len() == 1).then(|| w.lowest()).flatten()
    }

    /// A short English description ("white mates", "stalemate", …).
    pub fn description(&self, v: &Variant) -> String {
        let names = |set: SeatSet| -> String {
            set.iter()
                .map(|s| v.seating.name(s).to_string())
                .collect::<Vec<_>>()
                .join(" and ")
        };
        match self.reason {
            EndReason::Checkmate { .. } => format!("{} mates", names(self.winners())),
            EndReason::StalemateLoss { .. } => {
                format!("{} wins by stalemate", names(self.winners()))
            }
            EndReason::SimultaneousMate => "simultaneous mate".into(),
            EndReason::Stalemate => "stalemate".into(),
            EndReason::Repetition => "threefold repetition".into(),
            EndReason::FiftyMoves => "fifty-move rule".into(),
            EndReason::DeadPosition => "insufficient material".into(),
            EndReason::Elimination { losers } => {
                format!("{} out of play", names(losers))
            }
            EndReason::MutualElimination => "every king captured".into(),
            EndReason::Adjudicated => "adjudication".into(),
            EndReason::Forfeit { losers } => format!("{} forfeits", names(losers)),
        }
    }
}

impl Position {
    /// The result if the game is over by the rules: a deciding seat (all
    /// of them in a sequential turn's coalition, each of them in a
    /// simultaneous turn) without a legal move is mated or stalemated; then
    /// dead position, fifty moves, repetition.
    pub fn outcome(&self) -> Option<Outcome> {
        let v = &**self.variant();
        if let Some(party) = v.rules.party {
            return self.party_outcome(party);
        }
        if let Some(o) = self.elimination() {
            return Some(o);
        }
        if self.phase() == crate::board::seating::Phase::Exchange {
            // Every seat may pass in the exchange phase: the game goes on
            // to the next main turn.
            return None;
        }
        let turn = self.turn();
        let stuck: SeatSet = with_generator(v, |g| match turn {
            Turn::One(_) | Turn::AnyOf(_) => {
                if g.any_move(self, turn.movers()) {
                    SeatSet::EMPTY
                } else {
                    turn.movers()
                }
            }
            Turn::All(set) => set
                .iter()
                .filter(|&s| !g.any_move(self, SeatSet::single(s)))
                .collect(),
        });
        if !stuck.is_empty() {
            return Some(self.no_move_outcome(stuck));
        }
        self.rule_draw()
    }

    /// [`Position::outcome`] under multi-party rules: over by the fates of
    /// the seats out; else a seat to move without a legal move goes out
    /// and the game ends if that decides it (otherwise its only move is
    /// [`crate::rules::moves::MoveKind::Out`]); else the rule draws.
    fn party_outcome(&self, party: PartyRules) -> Option<Outcome> {
        let v = &**self.variant();
        if let Some(o) = party_result(v, party, self.turn_state().fates) {
            return Some(o);
        }
        let movers = self.movers();
        if with_generator(v, |g| !g.any_move(self, movers)) {
            return self.result_if_movers_leave(party);
        }
        self.rule_draw()
    }

    /// The result, if any, once every seat deciding now has left as a seat
    /// without a legal move does (one seat, or a coalition whose members
    /// all have no move).
    fn result_if_movers_leave(&self, party: PartyRules) -> Option<Outcome> {
        let v = &**self.variant();
        let fates = self.movers().iter().fold(self.turn_state().fates, |f, s| {
            party.go_out(f, s, self.fate_without_moves(s), v.seat_count())
        });
        party_result(v, party, fates)
    }

    /// The fate of a seat that has no legal move: mated if its king is
    /// attacked, else stalemated.
    pub fn fate_without_moves(&self, seat: Seat) -> Fate {
        if self.seat_in_check(seat) {
            Fate::Lost
        } else {
            Fate::Drawn
        }
    }

    /// A draw decided outside the rules (a move limit, an agreement):
    /// half a point for every seat in play; in a multi-party game the
    /// seats out keep what their fates gave them.
    pub fn draw_outcome(&self, reason: EndReason) -> Outcome {
        let v = &**self.variant();
        match v.rules.party {
            Some(party) => party_draw(v, party, self.turn_state().fates, reason),
            None => Outcome::draw(v.seat_count(), reason),
        }
    }

    /// Whether the game is over by the multi-party rules alone (the fates
    /// of the seats out), without a look at the moves.
    pub fn party_decided(&self) -> bool {
        let v = &**self.variant();
        v.rules
            .party
            .is_some_and(|party| party_result(v, party, self.turn_state().fates).is_some())
    }

    /// Whether the seat to move, which has no legal move, leaves a
    /// multi-party game that goes on without it (its move is then
    /// [`crate::rules::moves::MoveKind::Out`]; a coalition whose members
    /// all have no move always ends the game).
    pub fn leaves_and_game_goes_on(&self) -> bool {
        self.variant()
            .rules
            .party
            .is_some_and(|party| self.result_if_movers_leave(party).is_none())
    }

    /// The draws that need no look at the moves: dead position, the
    /// 50-move rule, threefold repetition (the last steps of
    /// [`Position::outcome`], for searches that know the moves already).
    pub fn rule_draw(&self) -> Option<Outcome> {
        let v = &**self.variant();
        let reason = if self.dead_position() {
            EndReason::DeadPosition
        } else if v.rules.fifty_move && self.halfmove_clock() >= self.fifty_move_plies() {
            EndReason::FiftyMoves
        } else if self.repetitions() >= 3 {
            EndReason::Repetition
        } else {
            return None;
        };
        Some(match v.rules.party {
            Some(party) => party_draw(v, party, self.turn_state().fates, reason),
            None => Outcome::draw(v.seat_count(), reason),
        })
    }

    /// The halfmove clock at which the 50-move rule draws: 100 plies where
    /// seats take turns, 50 where every seat moves in each turn (a
    /// simultaneous turn is one move of each side).
    pub fn fifty_move_plies(&self) -> u32 {
        if self.turn().is_simultaneous() {
            50
        } else {
            100
        }
    }

    /// The result when at most one side has a seat in play: that side wins
    /// (or nobody, when every seat went out at once).
    fn elimination(&self) -> Option<Outcome> {
        let out = self.out();
        if out.is_empty() {
            return None;
        }
        let v = &**self.variant();
        let live = v.seating.all().difference(out);
        let live_sides: std::collections::BTreeSet<_> =
            live.iter().map(|s| v.seating.info(s).side).collect();
        match live_sides.len() {
            0 => Some(Outcome::draw(v.seat_count(), EndReason::MutualElimination)),
            1 => Some(Outcome {
                points: BySeat::from_fn(v.seat_count(), |s| {
                    let survivor = live.lowest().unwrap_or(s);
                    if v.seating.same_side(s, survivor) {
                        Points::ONE
                    } else {
                        Points::ZERO
                    }
                }),
                reason: EndReason::Elimination { losers: out },
            }),
            _ => None,
        }
    }

    /// The result when the seats of `stuck` have no legal move: those in
    /// check are mated, the others stalemated (a draw, or a loss where
    /// the variant says so). In a simultaneous turn where every side has a
    /// mated seat, the mates cancel out: a draw.
    pub fn no_move_outcome(&self, stuck: SeatSet) -> Outcome {
        let v = &**self.variant();
        let mated: SeatSet = stuck.iter().filter(|&s| self.seat_in_check(s)).collect();
        if !mated.is_empty() {
            let sides_mated = mated
                .iter()
                .map(|s| v.seating.info(s).side)
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            let sides_playing = v
                .seating
                .seats()
                .filter(|&s| !self.out().contains(s))
                .map(|s| v.seating.info(s).side)
                .collect::<std::collections::BTreeSet<_>>()
                .len();
            if sides_mated >= sides_playing && sides_playing > 1 {
                return Outcome::draw(v.seat_count(), EndReason::SimultaneousMate);
            }
            let result = Outcome::defeat(v, mated, EndReason::Checkmate { losers: mated });
            return result.with_out(self.out());
        }
        match v.rules.stalemate {
            StalemateRule::Draw => Outcome::draw(v.seat_count(), EndReason::Stalemate),
            StalemateRule::StalematedLoses => {
                Outcome::defeat(v, stuck, EndReason::StalemateLoss { losers: stuck })
                    .with_out(self.out())
            }
        }
    }
}

/// The points of a seat out of a multi-party game by its fate.
fn fate_points(fate: Fate) -> Points {
    match fate {
        Fate::Lost => Points::ZERO,
        Fate::Drawn => Points::HALF,
        Fate::Won => Points::ONE,
    }
}

/// The points of `seat` in a multi-party game that ends now: by its fate
/// if it is out, else `in_play`.
fn points_of(fates: Fates, seat: Seat, in_play: Points) -> Points {
    fates.of(seat).map_or(in_play, fate_points)
}

/// The result of a multi-party game whose seats out (the seats with a
/// fate) left with `fates`, if that decides the game (docs/variants.md, "Multi-party
/// diamond chess", has the scores with examples):
/// - free-for-all: over at the first loss (`end=first`) or when at most
///   one player is left; a player out scores by its fate (mated 0,
///   stalemated ½), every player still in scores 1;
/// - coalitions: over when a member lost (`end=first`) or a coalition has
///   no member left; the coalition of the loss (or the one with no member
///   left, if one of them lost) scores 0 for every member, the other 1; a
///   coalition that only ran out of stalemated members draws;
/// - independent games: over when one game ended (`end=first`: its winner
///   1, loser 0, everyone else ½) or all of them (each by its game).
pub fn party_result(v: &Variant, party: PartyRules, fates: Fates) -> Option<Outcome> {
    let seats = v.seat_count();
    let out = fates.seats();
    let live = v.seating.all().difference(out);
    match party.mode {
        PartyMode::FreeForAll => {
            let over = (party.end == GameEnd::First && !fates.lost.is_empty()) || live.len() <= 1;
            over.then(|| Outcome {
                points: BySeat::from_fn(seats, |s| points_of(fates, s, Points::ONE)),
                reason: EndReason::Elimination { losers: out },
            })
        }
        PartyMode::Coalition => {
            let side = |s: Seat| v.seating.info(s).side;
            let empty_side = [Side(0), Side(1)]
                .into_iter()
                .find(|&d| live.iter().all(|s| side(s) != d));
            let losing = if party.end == GameEnd::First && !fates.lost.is_empty() {
                fates.lost.lowest().map(side)
            } else if let Some(d) = empty_side {
                if fates.lost.iter().any(|s| side(s) == d) {
                    Some(d)
                } else {
                    return Some(Outcome::draw(seats, EndReason::Stalemate));
                }
            } else {
                None
            };
            losing.map(|d| Outcome {
                points: BySeat::from_fn(seats, |s| {
                    if side(s) == d {
                        Points::ZERO
                    } else {
                        Points::ONE
                    }
                }),
                reason: EndReason::Elimination {
                    losers: v.seating.seats().filter(|&s| side(s) == d).collect(),
                },
            })
        }
        PartyMode::Independent => {
            let over = match party.end {
                GameEnd::First => !out.is_empty(),
                GameEnd::Last => live.is_empty(),
            };
            over.then(|| Outcome {
                points: BySeat::from_fn(seats, |s| points_of(fates, s, Points::HALF)),
                reason: EndReason::Elimination { losers: fates.lost },
            })
        }
    }
}

/// A draw by rule (`reason`) in a multi-party game: the players still in
/// score ½, those out by their fates; coalitions draw as a whole.
fn party_draw(v: &Variant, party: PartyRules, fates: Fates, reason: EndReason) -> Outcome {
    if party.mode == PartyMode::Coalition {
        return Outcome::draw(v.seat_count(), reason);
    }
    Outcome {
        points: BySeat::from_fn(v.seat_count(), |s| points_of(fates, s, Points::HALF)),
        reason,
    }
}
