//! The one game loop: ask the deciding seats' players, play what they
//! decide, keep the clocks, and end the game by the rules, by a move limit
//! or by a player's forfeit.

use std::fmt;
use std::time::{Duration, Instant};

use crate::board::seating::{BySeat, Seat, Turn};
use crate::rules::moves::{Decision, JointDecision};

use super::adjudication::{Adjudicator, DrawRule, ResignRule};
use super::clock::{Clock, TimeControl};
use super::record::{Annotation, ForfeitCause, Game, GameEnd, GameError};

/// What a player is asked.
#[derive(Debug)]
pub struct Request<'a> {
    /// The game so far (its position is the one to decide in).
    pub game: &'a Game,
    /// The seat to decide for.
    pub seat: Seat,
    /// The clocks, when the game has a time control.
    pub clock: Option<&'a Clock>,
}

/// An engine's evaluation of the position after its decision, from its
/// own point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Eval {
    /// Centipawns.
    pub cp: Option<i32>,
    /// Mate in this many moves (negative: being mated).
    pub mate: Option<i32>,
    /// Search depth reached.
    pub depth: Option<u32>,
}

/// What a player answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The decision.
    pub decision: Decision,
    /// A comment for the record (an engine's score and depth).
    pub note: Option<String>,
    /// The player's evaluation, if it gives one (adjudication, PGN).
    pub eval: Option<Eval>,
}

/// Why a player could not answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerError {
    /// The player is gone (a process that died).
    Crashed(String),
    /// The player did not answer in time.
    Timeout,
    /// The player answered something that is not a decision here.
    Protocol(String),
    /// The player resigned (a loss, but by the player's own choice).
    Resigned,
}

impl fmt::Display for PlayerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerError::Crashed(s) => write!(f, "crashed: {s}"),
            PlayerError::Timeout => write!(f, "no answer in time"),
            PlayerError::Protocol(s) => write!(f, "{s}"),
            PlayerError::Resigned => write!(f, "resigns"),
        }
    }
}

impl std::error::Error for PlayerError {}

/// A player: anything that decides for a seat.
pub trait Player {
    /// The player's name for records.
    fn name(&self) -> String;
    /// A game starts.
    fn new_game(&mut self, _game: &Game) -> Result<(), PlayerError> {
        Ok(())
    }
    /// Decides for `request.seat` in the game's current position, without
    /// seeing the decisions of the other seats of a simultaneous turn.
    fn decide(&mut self, request: &Request<'_>) -> Result<Verdict, PlayerError>;
    /// The game is over.
    fn game_over(&mut self, _game: &Game) {}
}

/// How [`run`] runs a game.
#[derive(Clone, Debug, Default)]
pub struct DriverOptions {
    /// The clocks' time control (none: the players' own limits).
    pub time_control: Option<TimeControl>,
    /// Time a player may overstep its clock before it loses on time.
    pub time_margin: Duration,
    /// Steps after which the game is adjudicated a draw.
    pub max_plies: Option<usize>,
    /// Draw adjudication by the engines' scores.
    pub draw_rule: Option<DrawRule>,
    /// Resignation by an engine's score.
    pub resign_rule: Option<ResignRule>,
    /// Endgame tables: a game that reaches a position they hold ends with
    /// the tables' result (cutechess-cli's `-tb`).
    pub tablebases: Option<std::sync::Arc<crate::tablebase::Tablebases>>,
}

/// The tables' verdict on `game`'s position, if they hold it: the result
/// with perfect play, and the reason as a sentence.
pub fn tablebase_verdict(
    tb: &crate::tablebase::Tablebases,
    game: &Game,
) -> Option<(crate::rules::outcome::Outcome, String)> {
    use crate::rules::outcome::{EndReason, Outcome};
    use crate::tablebase::{End, Value};
    let pos = game.position();
    let v = pos.variant();
    let value = tb.probe(pos).ok()??;
    let stm = pos.to_move();
    // Tables hold two-seat games only (`tablebase::check_variant`).
    let other = v.seating.capturable_by(stm).lowest().unwrap_or(stm);
    let name = |s| v.seating.name(s).to_string();
    let (winner, loser, end, moves) = match value {
        Value::Draw => {
            return Some((
                Outcome::draw(v.seat_count(), EndReason::Adjudicated),
                "tablebase: draw".into(),
            ));
        }
        Value::Win { end, .. } => (stm, other, end, value.moves()),
        Value::Loss { end, .. } => (other, stm, end, value.moves()),
    };
    let losers = crate::board::seating::SeatSet::single(loser);
    Some(match end {
        End::Mate => (
            Outcome::defeat(v, losers, EndReason::Adjudicated),
            format!("tablebase: {} mates in {moves}", name(winner)),
        ),
        End::Stalemate => (
            Outcome::defeat(v, losers, EndReason::StalemateLoss { losers }),
            format!("tablebase: {} wins by stalemate in {moves}", name(winner)),
        ),
    })
}

/// Plays `game` to its end: `players[seats[s]]` decides for seat `s` (one
/// player may hold several seats; a turn in which any seat of a side may
/// move is decided by its lowest seat's player). `observe` sees the game
/// after every step. A player that fails, runs out of time or decides
/// something illegal forfeits.
pub fn run(
    game: &mut Game,
    players: &mut [&mut dyn Player],
    seats: &BySeat<usize>,
    options: &DriverOptions,
    observe: &mut dyn FnMut(&Game),
) -> GameEnd {
    let v = game.position().variant().clone();
    let mut clock = options
        .time_control
        .map(|tc| Clock::new(tc, v.seat_count()));
    let mut adjudicator = Adjudicator::new(v.seat_count(), options.draw_rule, options.resign_rule);
    for (i, p) in players.iter_mut().enumerate() {
        if let Err(e) = p.new_game(game)
            && let Some(s) = seats.iter().find(|(_, pi)| **pi == i).map(|(s, _)| s)
        {
            game.forfeit(s, ForfeitCause::NoStart, format!("cannot start: {e}"));
        }
    }
    while !game.is_over() {
        if options.max_plies.is_some_and(|m| game.plies().len() >= m) {
            let draw = game
                .position()
                .draw_outcome(crate::rules::outcome::EndReason::Adjudicated);
            game.adjudicate(draw, "move limit reached");
            break;
        }
        let turn = game.position().turn();
        let deciders: Vec<Seat> = match turn {
            Turn::One(s) => vec![s],
            Turn::AnyOf(set) => set.lowest().into_iter().collect(),
            Turn::All(set) => set.iter().collect(),
        };
        let mut verdicts = Vec::with_capacity(deciders.len());
        for &seat in &deciders {
            let Some(player) = players.get_mut(seats[seat]) else {
                game.forfeit(seat, ForfeitCause::NoStart, "no player for the seat");
                break;
            };
            let started = Instant::now();
            let answer = player.decide(&Request {
                game,
                seat,
                clock: clock.as_ref(),
            });
            let used = started.elapsed();
            match answer {
                Err(PlayerError::Resigned) => {
                    game.resign(seat);
                    break;
                }
                Err(e) => {
                    let cause = match e {
                        PlayerError::Timeout => ForfeitCause::Time,
                        _ => ForfeitCause::Infraction,
                    };
                    game.forfeit(seat, cause, e.to_string());
                    break;
                }
                Ok(verdict) => {
                    if let Some(c) = clock.as_mut()
                        && !c.charge(seat, used, options.time_margin)
                    {
                        game.forfeit(seat, ForfeitCause::Time, "loses on time");
                        break;
                    }
                    verdicts.push((seat, verdict, used));
                }
            }
        }
        if game.is_over() {
            break;
        }
        let result = match turn {
            Turn::All(_) => {
                let mut joint = JointDecision::new(v.seat_count());
                for (seat, verdict, _) in &verdicts {
                    joint.set(*seat, verdict.decision);
                }
                let notes: Vec<String> = verdicts
                    .iter()
                    .filter_map(|(s, verdict, _)| {
                        verdict
                            .note
                            .as_ref()
                            .map(|n| format!("{}: {n}", v.seating.name(*s)))
                    })
                    .collect();
                let note = (!notes.is_empty()).then(|| notes.join("; "));
                game.play_joint(&joint, note).map(|_| ()).map_err(|e| {
                    let seat = match &e {
                        GameError::Joint(
                            crate::rules::simultaneous::JointError::Illegal(s)
                            | crate::rules::simultaneous::JointError::MustMove(s)
                            | crate::rules::simultaneous::JointError::Missing(s),
                        ) => *s,
                        _ => deciders[0],
                    };
                    (seat, e)
                })
            }
            _ => {
                let (seat, verdict, used) = verdicts[0].clone();
                match verdict.decision {
                    Decision::Move(m) => game
                        .play(m, verdict.note)
                        .map(|_| {
                            game.annotate_last(Annotation {
                                time: used,
                                eval: verdict.eval,
                            })
                        })
                        .map_err(|e| (seat, e)),
                    Decision::Pass => Err((seat, GameError::WrongTurn)),
                }
            }
        };
        if let Err((seat, e)) = result {
            game.forfeit(
                seat,
                ForfeitCause::Infraction,
                format!("illegal decision: {e}"),
            );
            break;
        }
        if !game.is_over() {
            for (seat, verdict, _) in &verdicts {
                if let Some((outcome, reason)) =
                    adjudicator.after_step(game, *seat, verdict.eval.as_ref())
                {
                    game.adjudicate(outcome, reason);
                    break;
                }
            }
        }
        if !game.is_over()
            && let Some(tb) = &options.tablebases
            && let Some((outcome, reason)) = tablebase_verdict(tb, game)
        {
            game.adjudicate(outcome, reason);
        }
        observe(game);
    }
    for p in players.iter_mut() {
        p.game_over(game);
    }
    game.end()
        .cloned()
        .expect("invariant: the loop ends only when the game is over")
}
