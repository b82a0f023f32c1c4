//! Adjudication by the players' own evaluations, as tournament managers do
//! it (cutechess-cli's `-draw` and `-resign`): a game that both engines
//! call level for long enough is a draw; a seat whose engine sees itself
//! lost for long enough resigns.
//!
//! Only evaluations reported by the players count: a player that reports
//! none (a random mover, an engine without thinking output) is never
//! adjudicated on its score.

use crate::board::seating::{BySeat, Seat, SeatSet};
use crate::rules::outcome::{EndReason, Outcome};

use super::driver::Eval;
use super::record::Game;

/// Draw when every deciding seat's score stayed within `score` centipawns
/// of zero for `movecount` consecutive moves each, from move number
/// `movenumber` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRule {
    /// First full move number at which the rule may apply.
    pub movenumber: u32,
    /// Consecutive moves of every seat within the margin.
    pub movecount: u32,
    /// The margin in centipawns.
    pub score: i32,
}

/// A seat resigns when its score was at or below `-score` centipawns for
/// `movecount` consecutive moves of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignRule {
    /// Consecutive moves at or below the threshold.
    pub movecount: u32,
    /// The threshold in centipawns (positive).
    pub score: i32,
}

/// A score far beyond any material balance stands for a mate score.
const MATE_CP: i32 = 100_000;

impl Eval {
    /// The evaluation in centipawns, mate scores as ±100,000 (nearer
    /// mates larger).
    pub fn centipawns(&self) -> Option<i32> {
        match (self.mate, self.cp) {
            (Some(m), _) if m > 0 => Some(MATE_CP - m),
            (Some(m), _) => Some(-MATE_CP - m),
            (None, cp) => cp,
        }
    }
}

/// The running counts of one game's adjudication.
#[derive(Clone, Debug)]
pub struct Adjudicator {
    draw: Option<DrawRule>,
    resign: Option<ResignRule>,
    level: BySeat<u32>,
    losing: BySeat<u32>,
}

impl Adjudicator {
    /// Counts for a game of `seats` seats.
    pub fn new(seats: usize, draw: Option<DrawRule>, resign: Option<ResignRule>) -> Adjudicator {
        Adjudicator {
            draw,
            resign,
            level: BySeat::from_fn(seats, |_| 0),
            losing: BySeat::from_fn(seats, |_| 0),
        }
    }

    /// Takes `seat`'s evaluation of the step it just played in `game`;
    /// returns the adjudicated end when a rule applies.
    pub fn after_step(
        &mut self,
        game: &Game,
        seat: Seat,
        eval: Option<&Eval>,
    ) -> Option<(Outcome, String)> {
        let cp = eval.and_then(Eval::centipawns);
        let v = game.position().variant();
        if let Some(rule) = self.resign {
            match cp {
                Some(cp) if cp <= -rule.score => self.losing[seat] += 1,
                _ => self.losing[seat] = 0,
            }
            if rule.movecount > 0 && self.losing[seat] >= rule.movecount {
                let losers = v.seating.side_of(seat);
                let outcome = Outcome::defeat(v, SeatSet::single(seat), EndReason::Adjudicated);
                let names: Vec<&str> = losers.iter().map(|s| v.seating.name(s)).collect();
                return Some((
                    outcome,
                    format!(
                        "{} resigns: its engine scored {} cp or less for {} moves",
                        names.join(" and "),
                        -rule.score,
                        rule.movecount
                    ),
                ));
            }
        }
        if let Some(rule) = self.draw {
            match cp {
                Some(cp) if cp.abs() <= rule.score => self.level[seat] += 1,
                _ => self.level[seat] = 0,
            }
            let playing = v.seating.all().difference(game.position().out());
            if rule.movecount > 0
                && game.position().fullmove_number() > rule.movenumber
                && playing.iter().all(|s| self.level[s] >= rule.movecount)
            {
                return Some((
                    Outcome::draw(v.seat_count(), EndReason::Adjudicated),
                    format!(
                        "draw: every engine scored within {} cp for {} moves",
                        rule.score, rule.movecount
                    ),
                ));
            }
        }
        None
    }
}
