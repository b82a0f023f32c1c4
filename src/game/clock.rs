//! Clocks: time controls as tournament managers write them, and the
//! clocks of the seats of one game.

use std::fmt;
use std::time::Duration;

use crate::board::seating::BySeat;

/// A time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// `moves` moves in `base`, then `base` again for the next `moves`
    /// (`moves` = 0: the whole game), `inc` added after every move
    /// (Fischer).
    Clock {
        /// Moves per period (0: sudden death).
        moves: u32,
        /// Time per period.
        base: Duration,
        /// Increment per move.
        inc: Duration,
    },
    /// A fixed time for every move.
    PerMove(Duration),
}

impl TimeControl {
    /// Reads `40/60+0.6`, `60+0.6`, `60`, `0:40+0.2` (minutes:seconds) or
    /// `st=1.5`-style fixed times (`1.5` after `st=` is the caller's).
    pub fn parse(text: &str) -> Result<TimeControl, String> {
        let bad = || format!("'{text}' is not a time control (e.g. 40/60+0.6, 10+0.1, 0:30)");
        let secs = |s: &str| -> Result<Duration, String> {
            let s = s.trim();
            let v = match s.split_once(':') {
                Some((m, sec)) => {
                    let m: f64 = m.parse().map_err(|_| bad())?;
                    let sec: f64 = sec.parse().map_err(|_| bad())?;
                    m * 60.0 + sec
                }
                None => s.parse::<f64>().map_err(|_| bad())?,
            };
            if !v.is_finite() || !(0.0..=1e7).contains(&v) {
                return Err(bad());
            }
            Ok(Duration::from_secs_f64(v))
        };
        let (moves, rest) = match text.split_once('/') {
            Some((m, r)) => (m.trim().parse::<u32>().map_err(|_| bad())?, r),
            None => (0, text),
        };
        let (base, inc) = match rest.split_once('+') {
            Some((b, i)) => (secs(b)?, secs(i)?),
            None => (secs(rest)?, Duration::ZERO),
        };
        if base.is_zero() && inc.is_zero() {
            return Err(bad());
        }
        Ok(TimeControl::Clock { moves, base, inc })
    }
}

impl fmt::Display for TimeControl {
    /// The PGN `TimeControl` form: `40/60+0.6` shortened as PGN writes it
    /// (`moves/seconds`, `seconds+increment`), or `st` seconds per move.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = |d: Duration| {
            let v = d.as_secs_f64();
            if v.fract() == 0.0 {
                format!("{}", v as u64)
            } else {
                format!("{v}")
            }
        };
        match *self {
            TimeControl::Clock { moves, base, inc } => {
                if moves > 0 {
                    write!(f, "{moves}/")?;
                }
                write!(f, "{}", s(base))?;
                if !inc.is_zero() {
                    write!(f, "+{}", s(inc))?;
                }
                Ok(())
            }
            TimeControl::PerMove(d) => write!(f, "{}/move", s(d)),
        }
    }
}

/// The clocks of a game: time left per seat, counted down by the driver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    control: TimeControl,
    left: BySeat<Duration>,
    moves: BySeat<u32>,
}

impl Clock {
    /// Full clocks for `seats` seats.
    pub fn new(control: TimeControl, seats: usize) -> Clock {
        let base = match control {
            TimeControl::Clock { base, .. } => base,
            TimeControl::PerMove(d) => d,
        };
        Clock {
            control,
            left: BySeat::from_fn(seats, |_| base),
            moves: BySeat::from_fn(seats, |_| 0),
        }
    }

    /// The time control.
    pub fn control(&self) -> TimeControl {
        self.control
    }

    /// Time left on each seat's clock.
    pub fn left(&self) -> &BySeat<Duration> {
        &self.left
    }

    /// Moves to go until the next time control for `seat` (`None`:
    /// sudden death or a time per move).
    pub fn moves_to_go(&self, seat: crate::board::seating::Seat) -> Option<u32> {
        match self.control {
            TimeControl::Clock { moves, .. } if moves > 0 => Some(moves - self.moves[seat] % moves),
            _ => None,
        }
    }

    /// Charges `used` to `seat`'s clock; `false` when its time ran out
    /// (more than `margin` beyond the time it had). The increment and a
    /// new period's time are added after the move.
    pub fn charge(
        &mut self,
        seat: crate::board::seating::Seat,
        used: Duration,
        margin: Duration,
    ) -> bool {
        let left = self.left[seat];
        if used > left + margin {
            self.left[seat] = Duration::ZERO;
            return false;
        }
        match self.control {
            TimeControl::Clock { moves, base, inc } => {
                self.left[seat] = left.saturating_sub(used) + inc;
                self.moves[seat] += 1;
                if moves > 0 && self.moves[seat].is_multiple_of(moves) {
                    self.left[seat] += base;
                }
            }
            TimeControl::PerMove(d) => self.left[seat] = d,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::seating::Seat;

    #[test]
    fn time_controls_read_and_print_as_pgn() {
        let tc = TimeControl::parse("40/60+0.6").unwrap();
        assert_eq!(
            tc,
            TimeControl::Clock {
                moves: 40,
                base: Duration::from_secs(60),
                inc: Duration::from_millis(600)
            }
        );
        assert_eq!(tc.to_string(), "40/60+0.6");
        assert_eq!(TimeControl::parse("0:30").unwrap().to_string(), "30");
        assert_eq!(TimeControl::parse("10+0.1").unwrap().to_string(), "10+0.1");
        for bad in ["", "x", "40/", "1/0", "-5", "10+x", "nan"] {
            assert!(TimeControl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn clocks_count_down_and_add_increments_and_periods() {
        let tc = TimeControl::parse("2/10+1").unwrap();
        let mut c = Clock::new(tc, 2);
        let w = Seat::new(0);
        assert!(c.charge(w, Duration::from_secs(3), Duration::ZERO));
        assert_eq!(c.left()[w], Duration::from_secs(8));
        assert_eq!(c.moves_to_go(w), Some(1));
        assert!(c.charge(w, Duration::from_secs(3), Duration::ZERO));
        // Second move: 8 - 3 + 1, and a new period of 10.
        assert_eq!(c.left()[w], Duration::from_secs(16));
        assert!(!c.charge(w, Duration::from_secs(17), Duration::ZERO));
        assert_eq!(c.left()[w], Duration::ZERO);
    }
}
