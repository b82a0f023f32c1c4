//! Match statistics as the tournament managers print them: score, Elo
//! difference with its 95 % interval, likelihood of superiority (LOS) and
//! draw ratio from win/draw/loss counts (the formulas of cutechess-cli's
//! `elo.cpp`), the same from pentanomial counts of game pairs (as fastchess
//! reports them), and the sequential probability ratio test (the GSPRT
//! approximation of the log-likelihood ratio by M. Van den Bergh, in the
//! logistic-Elo form of fishtest's `stat_util.py` and fastchess).
//!
//! Degenerate samples (no games, or one side scoring everything) give
//! `None` instead of NaN or infinities, so a table can print "n/a".

use serde::{Deserialize, Serialize};

/// The 97.5 % quantile of the standard normal distribution: a 95 %
/// two-sided interval is ± this many standard errors.
pub const Z_975: f64 = 1.959_963_984_540_054;

/// The error function, to about 1e-14: its Maclaurin series below 3, the
/// continued fraction of erfc above.
pub fn erf(x: f64) -> f64 {
    if x < 0.0 {
        return -erf(-x);
    }
    if x < 3.0 {
        let mut term = x;
        let mut sum = x;
        let x2 = x * x;
        let mut n = 0.0;
        loop {
            n += 1.0;
            term *= -x2 / n;
            let add = term / (2.0 * n + 1.0);
            sum += add;
            if add.abs() <= 1e-17 * sum.abs() || n > 200.0 {
                break;
            }
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    } else {
        // erfc(x) = exp(-x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …))))
        let mut k = x;
        for i in (1..=80).rev() {
            k = x + (i as f64 / 2.0) / k;
        }
        1.0 - (-x * x).exp() / std::f64::consts::PI.sqrt() / k
    }
}

/// The expected score of a player `elo` points stronger (logistic model).
pub fn elo_to_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference that gives the expected score `score` (0 < score < 1).
pub fn score_to_elo(score: f64) -> Option<f64> {
    (score > 0.0 && score < 1.0).then(|| -400.0 * (1.0 / score - 1.0).log10())
}

/// The Elo difference and its 95 % half-width for a mean score `mu` with
/// standard error `se`: the interval of the score mapped through
/// [`score_to_elo`] (cutechess-cli's `errorMargin`).
fn elo_interval(mu: f64, se: f64) -> Option<f64> {
    let lo = score_to_elo(mu - Z_975 * se)?;
    let hi = score_to_elo(mu + Z_975 * se)?;
    Some((hi - lo) / 2.0)
}

/// Wins, draws and losses of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wdl {
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
}

impl std::ops::AddAssign for Wdl {
    fn add_assign(&mut self, o: Wdl) {
        self.wins += o.wins;
        self.draws += o.draws;
        self.losses += o.losses;
    }
}

impl Wdl {
    /// Games played.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Mean score per game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| (self.wins as f64 + self.draws as f64 / 2.0) / n as f64)
    }

    /// Draws per game.
    pub fn draw_ratio(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.draws as f64 / n as f64)
    }

    /// The standard error of the mean score (per-game variance / games).
    fn std_error(&self) -> Option<f64> {
        let n = self.games() as f64;
        let mu = self.score()?;
        let var = (self.wins as f64 * (1.0 - mu).powi(2)
            + self.draws as f64 * (0.5 - mu).powi(2)
            + self.losses as f64 * mu.powi(2))
            / n;
        Some((var / n).sqrt())
    }

    /// The Elo difference.
    pub fn elo(&self) -> Option<f64> {
        score_to_elo(self.score()?)
    }

    /// Half the width of the Elo difference's 95 % interval.
    pub fn elo_error_95(&self) -> Option<f64> {
        elo_interval(self.score()?, self.std_error()?)
    }

    /// Likelihood of superiority: 0.5·(1 + erf((W − L)/√(2(W + L)))).
    pub fn los(&self) -> Option<f64> {
        let decisive = (self.wins + self.losses) as f64;
        (decisive > 0.0).then(|| {
            0.5 * (1.0 + erf((self.wins as f64 - self.losses as f64) / (2.0 * decisive).sqrt()))
        })
    }
}

/// Pentanomial counts: game pairs (one opening, seats swapped) by the
/// side's points in the pair: 0, ½, 1, 1½, 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Penta {
    /// Pairs with 0 points (two losses).
    pub ll: u64,
    /// Pairs with ½ point (a loss and a draw).
    pub ld: u64,
    /// Pairs with 1 point (two draws, or a win and a loss).
    pub dd_wl: u64,
    /// Pairs with 1½ points (a win and a draw).
    pub wd: u64,
    /// Pairs with 2 points (two wins).
    pub ww: u64,
}

impl Penta {
    /// Counts of pairs with 0, ½, 1, 1½ and 2 points.
    pub fn counts(&self) -> [u64; 5] {
        [self.ll, self.ld, self.dd_wl, self.wd, self.ww]
    }

    /// Counts in the order of [`Penta::counts`].
    pub fn from_counts(c: [u64; 5]) -> Penta {
        Penta {
            ll: c[0],
            ld: c[1],
            dd_wl: c[2],
            wd: c[3],
            ww: c[4],
        }
    }

    /// Adds a pair scoring `points` (0 to 2; rounded to the nearest half).
    pub fn add_pair(&mut self, points: f64) {
        match (points * 2.0).round() as i64 {
            i64::MIN..=0 => self.ll += 1,
            1 => self.ld += 1,
            2 => self.dd_wl += 1,
            3 => self.wd += 1,
            _ => self.ww += 1,
        }
    }

    /// Counts from the pairs' points.
    pub fn from_pair_scores(points: impl IntoIterator<Item = f64>) -> Penta {
        let mut p = Penta::default();
        for x in points {
            p.add_pair(x);
        }
        p
    }

    /// Pairs counted.
    pub fn pairs(&self) -> u64 {
        self.counts().iter().sum()
    }

    /// Mean score per game (pair points / 2) and the pairs' variance of it.
    fn moments(&self) -> Option<(f64, f64)> {
        let n = self.pairs() as f64;
        if n == 0.0 {
            return None;
        }
        let c = self.counts();
        let mu = (0..5).map(|i| c[i] as f64 * i as f64 / 4.0).sum::<f64>() / n;
        let var = (0..5)
            .map(|i| c[i] as f64 * (i as f64 / 4.0 - mu).powi(2))
            .sum::<f64>()
            / n;
        Some((mu, var))
    }

    /// Mean score per game.
    pub fn score(&self) -> Option<f64> {
        self.moments().map(|m| m.0)
    }

    /// The Elo difference.
    pub fn elo(&self) -> Option<f64> {
        score_to_elo(self.score()?)
    }

    /// Half the width of the Elo difference's 95 % interval, from the
    /// variance between pairs (smaller than the trinomial one when the
    /// openings are unbalanced).
    pub fn elo_error_95(&self) -> Option<f64> {
        let (mu, var) = self.moments()?;
        elo_interval(mu, (var / self.pairs() as f64).sqrt())
    }
}

/// A sequential probability ratio test of H0: Elo = `elo0` against H1:
/// Elo = `elo1` (logistic Elo), with error rates `alpha` and `beta`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// Elo under H0.
    pub elo0: f64,
    /// Elo under H1.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
}

/// Where a test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtStatus {
    /// The LLR fell below the lower bound.
    AcceptH0,
    /// The LLR rose above the upper bound.
    AcceptH1,
    /// Neither: play on.
    Continue,
}

/// A count of zero is replaced by this (fishtest's regularisation), so
/// that a young sample has a variance.
const REGULARISE: f64 = 1e-3;

/// The GSPRT log-likelihood ratio for `counts[i]` outcomes of score
/// `scores[i]` (per game or per pair, 0 to 1):
/// `N (s1 − s0)(2μ − s0 − s1) / (2σ²)`.
///
/// A sample of one kind of outcome only (the first game lost, five pairs
/// won) has no variance of its own, and the regularised one is tiny: one
/// lost game gave an LLR of −5.9 and decided a whole test. Such a sample
/// keeps its mean but takes the variance it would have with one more
/// result at the far end of the scale (one win added to losses): the
/// least spread a sample of its size can show. One game then weighs
/// little, while a long run of one result (twenty straight losses against
/// a 10-Elo test, four won pairs against a 300-Elo one) still decides.
fn gsprt_llr(test: &Sprt, counts: &[u64], scores: &[f64]) -> f64 {
    let n_raw: u64 = counts.iter().sum();
    if n_raw == 0 {
        return 0.0;
    }
    let s0 = elo_to_score(test.elo0);
    let s1 = elo_to_score(test.elo1);
    if counts.iter().filter(|&&x| x > 0).count() == 1 {
        let n = n_raw as f64;
        let mu = counts
            .iter()
            .zip(scores)
            .find(|(k, _)| **k > 0)
            .map_or(0.5, |(_, s)| *s);
        let far = scores.iter().map(|s| (s - mu).abs()).fold(0.0, f64::max);
        let var = n * far * far / ((n + 1.0) * (n + 1.0));
        return n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var);
    }
    let c: Vec<f64> = counts.iter().map(|&x| (x as f64).max(REGULARISE)).collect();
    let n: f64 = c.iter().sum();
    let mu = c.iter().zip(scores).map(|(k, s)| k * s).sum::<f64>() / n;
    let var = c
        .iter()
        .zip(scores)
        .map(|(k, s)| k * (s - mu).powi(2))
        .sum::<f64>()
        / n;
    if var <= 0.0 {
        return 0.0;
    }
    n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * var)
}

impl Sprt {
    /// The LLR bounds: ln(β/(1−α)) and ln((1−β)/α).
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The LLR from game results.
    pub fn llr_trinomial(&self, w: &Wdl) -> f64 {
        gsprt_llr(self, &[w.losses, w.draws, w.wins], &[0.0, 0.5, 1.0])
    }

    /// The LLR from pair results.
    pub fn llr_pentanomial(&self, p: &Penta) -> f64 {
        gsprt_llr(self, &p.counts(), &[0.0, 0.25, 0.5, 0.75, 1.0])
    }

    /// The decision an LLR gives.
    pub fn status(&self, llr: f64) -> SprtStatus {
        let (lo, hi) = self.bounds();
        if llr >= hi {
            SprtStatus::AcceptH1
        } else if llr <= lo {
            SprtStatus::AcceptH0
        } else {
            SprtStatus::Continue
        }
    }
}
