//! Time management: how long to think, from the clock, the increment and
//! the moves to go, with a safety margin for the time a move needs to reach
//! the opponent (`move_overhead`).
//!
//! Two limits come out: the *optimum*, after which no new iteration is
//! started (scaled up while the best move is unstable), and the *maximum*,
//! at which the search is stopped mid-iteration. The maximum never exceeds
//! the time left minus the overhead, so the engine never loses on time as
//! long as its stop checks run often (every node checks the stop flag,
//! every 16 nodes the clock).

use std::time::{Duration, Instant};

use crate::board::seating::Seat;

use super::limits::Limits;

/// Moves to plan for when the clock gives no `movestogo`.
const DEFAULT_MOVES_TO_GO: u32 = 30;

/// The time limits of one search.
#[derive(Clone, Copy, Debug)]
pub struct TimeManager {
    start: Instant,
    optimum: Option<Duration>,
    maximum: Option<Duration>,
}

impl TimeManager {
    /// Limits for `player` (the seat to move) under `limits`; times count
    /// from `start`.
    pub fn new(limits: &Limits, player: Seat, start: Instant) -> TimeManager {
        let player = player.index();
        let overhead = limits.move_overhead;
        let mut optimum: Option<Duration> = None;
        let mut maximum: Option<Duration> = None;
        if let Some(mt) = limits.movetime {
            let t = mt.saturating_sub(overhead).max(Duration::from_millis(1));
            optimum = Some(t);
            maximum = Some(t);
        }
        if let Some(Some(left)) = limits.time.get(player).copied() {
            let inc = limits
                .inc
                .get(player)
                .copied()
                .flatten()
                .unwrap_or_default();
            let avail = left.saturating_sub(overhead);
            let mtg = limits
                .movestogo
                .map(|m| m.clamp(1, 100))
                .unwrap_or(DEFAULT_MOVES_TO_GO);
            let (opt, max) = if mtg == 1 {
                (avail / 2, avail * 9 / 10)
            } else {
                let opt = avail / mtg + inc * 3 / 4;
                // Never more than a quarter of the clock beyond the
                // increment: with the clock down to a few increments (a
                // long game at a fast control) a move still leaves room for
                // the GUI's latency, which xboard charges to the engine.
                let max = (opt * 4).min(avail * 3 / 4).min(avail / 4 + inc);
                (opt.min(max), max)
            };
            let opt = opt.max(Duration::from_millis(1));
            let max = max.max(Duration::from_millis(1));
            optimum = Some(optimum.map_or(opt, |o| o.min(opt)));
            maximum = Some(maximum.map_or(max, |m| m.min(max)));
        }
        TimeManager {
            start,
            optimum,
            maximum,
        }
    }

    /// Whether any time limit applies.
    pub fn limited(&self) -> bool {
        self.maximum.is_some()
    }

    /// Restarts the clock (ponder hit: the time is ours from now).
    pub fn restart(&mut self, now: Instant) {
        self.start = now;
    }

    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The hard limit, reached: stop now.
    pub fn out_of_time(&self) -> bool {
        self.maximum.is_some_and(|m| self.start.elapsed() >= m)
    }

    /// Whether to start another iteration, with the optimum scaled by
    /// `factor` (above 1 while the best move changes).
    pub fn may_continue(&self, factor: f64) -> bool {
        match self.optimum {
            None => true,
            Some(o) => {
                let budget = o.mul_f64(factor.clamp(0.3, 3.0));
                let max = self.maximum.unwrap_or(budget);
                // An iteration usually costs more than the previous ones
                // together: stop early rather than be cut at the maximum.
                self.start.elapsed() < budget.min(max).mul_f64(0.6)
            }
        }
    }

    /// The optimum time, if limited.
    pub fn optimum(&self) -> Option<Duration> {
        self.optimum
    }

    /// The maximum time, if limited.
    pub fn maximum(&self) -> Option<Duration> {
        self.maximum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(ms: u64, inc: u64, mtg: Option<u32>) -> Limits {
        Limits {
            time: vec![
                Some(Duration::from_millis(ms)),
                Some(Duration::from_millis(ms)),
            ],
            inc: vec![
                Some(Duration::from_millis(inc)),
                Some(Duration::from_millis(inc)),
            ],
            movestogo: mtg,
            ..Limits::default()
        }
    }

    #[test]
    fn never_beyond_the_clock() {
        for (ms, inc, mtg) in [
            (60_000, 0, None),
            (100, 5_000, None),
            (30, 0, Some(1)),
            (5, 0, None),
            (1_000, 100, Some(40)),
        ] {
            let l = clock(ms, inc, mtg);
            let tm = TimeManager::new(&l, Seat::new(0), Instant::now());
            let left = Duration::from_millis(ms);
            let max = tm.maximum().unwrap();
            assert!(
                max <= left
                    .saturating_sub(l.move_overhead)
                    .max(Duration::from_millis(1))
            );
            assert!(tm.optimum().unwrap() <= max);
        }
    }

    #[test]
    fn low_clock_spends_about_the_increment() {
        for (ms, inc) in [(370, 150), (250, 150), (1_000, 100), (60_000, 1_000)] {
            let l = clock(ms, inc, None);
            let tm = TimeManager::new(&l, Seat::new(0), Instant::now());
            let avail = Duration::from_millis(ms).saturating_sub(l.move_overhead);
            let max = tm.maximum().unwrap();
            assert!(
                max <= avail / 4 + Duration::from_millis(inc),
                "{ms}+{inc}: {max:?}"
            );
            assert!(tm.optimum().unwrap() <= max);
        }
    }

    #[test]
    fn movetime_and_clock_combine() {
        let mut l = clock(60_000, 0, None);
        l.movetime = Some(Duration::from_millis(500));
        let tm = TimeManager::new(&l, Seat::new(1), Instant::now());
        assert_eq!(
            tm.maximum(),
            Some(Duration::from_millis(500) - l.move_overhead)
        );
        let none = TimeManager::new(&Limits::default(), Seat::new(0), Instant::now());
        assert!(!none.limited());
    }
}
