//! Two-player zero-sum matrix games, solved exactly: the node of the
//! simultaneous search ([`super::simultaneous`]).
//!
//! A pure saddle point (the largest row minimum equals the smallest column
//! maximum) is recognised directly — most nodes of a chess-like game have
//! one. Otherwise each player's optimal mixed strategy is the solution of
//! a linear programme (von Neumann's minimax theorem), solved by
//! `microlp`'s simplex:
//!
//! - rows: maximise v subject to Σᵢ xᵢ aᵢⱼ ≥ v for every column j,
//!   Σᵢ xᵢ = 1, x ≥ 0;
//! - columns: minimise w subject to Σⱼ aᵢⱼ yⱼ ≤ w for every row i,
//!   Σⱼ yⱼ = 1, y ≥ 0.
//!
//! The entries are the row player's gains.

use microlp::{ComparisonOp, OptimizationDirection, Problem};

/// An equilibrium of a matrix game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSolution {
    /// The value of the game to the row player.
    pub value: f64,
    /// The row player's optimal strategy (probabilities).
    pub row: Vec<f64>,
    /// The column player's optimal strategy.
    pub col: Vec<f64>,
}

/// Solves the game with gains `a` (rows × columns, every row as long as
/// the first; at least one of each).
pub fn solve(a: &[Vec<f64>]) -> GameSolution {
    let (rows, cols) = (a.len(), a.first().map_or(0, Vec::len));
    if rows == 0 || cols == 0 {
        return GameSolution {
            value: 0.0,
            row: vec![1.0; rows.min(1)],
            col: vec![1.0; cols.min(1)],
        };
    }
    // The row whose worst case is best, and the column whose worst case
    // (for the column player) is best.
    let row_min = |i: usize| a[i].iter().copied().fold(f64::INFINITY, f64::min);
    let col_max = |j: usize| (0..rows).map(|i| a[i][j]).fold(f64::NEG_INFINITY, f64::max);
    let maximin = (0..rows)
        .max_by(|&p, &q| row_min(p).total_cmp(&row_min(q)))
        .unwrap_or(0);
    let minimax = (0..cols)
        .min_by(|&p, &q| col_max(p).total_cmp(&col_max(q)))
        .unwrap_or(0);
    let pure = |i: usize, j: usize, value: f64| {
        let mut row = vec![0.0; rows];
        let mut col = vec![0.0; cols];
        row[i] = 1.0;
        col[j] = 1.0;
        GameSolution { value, row, col }
    };
    let (lower, upper) = (row_min(maximin), col_max(minimax));
    if lower >= upper {
        return pure(maximin, minimax, lower);
    }
    match (strategy(a, true), strategy(a, false)) {
        (Some((v, row)), Some((_, col))) => GameSolution { value: v, row, col },
        // The simplex failing on a small dense game would be a solver bug;
        // the pure maximin choices still bound the value.
        _ => pure(maximin, minimax, (lower + upper) / 2.0),
    }
}

/// One player's optimal strategy and the game value by linear
/// programming (`rows`: the row player's).
fn strategy(a: &[Vec<f64>], rows: bool) -> Option<(f64, Vec<f64>)> {
    let (m, n) = (a.len(), a[0].len());
    let (own, other) = if rows { (m, n) } else { (n, m) };
    let entry = |mine: usize, theirs: usize| {
        if rows {
            a[mine][theirs]
        } else {
            a[theirs][mine]
        }
    };
    let direction = if rows {
        OptimizationDirection::Maximize
    } else {
        OptimizationDirection::Minimize
    };
    let mut p = Problem::new(direction);
    let v = p.add_var(1.0, (f64::NEG_INFINITY, f64::INFINITY));
    let x: Vec<_> = (0..own).map(|_| p.add_var(0.0, (0.0, 1.0))).collect();
    for t in 0..other {
        let mut terms: Vec<(microlp::Variable, f64)> = x
            .iter()
            .enumerate()
            .map(|(i, &xi)| (xi, entry(i, t)))
            .collect();
        terms.push((v, -1.0));
        // Rows: the gain against every column is at least v; columns: the
        // loss against every row is at most w.
        let op = if rows {
            ComparisonOp::Ge
        } else {
            ComparisonOp::Le
        };
        p.add_constraint(terms.as_slice(), op, 0.0);
    }
    let ones: Vec<(microlp::Variable, f64)> = x.iter().map(|&xi| (xi, 1.0)).collect();
    p.add_constraint(ones.as_slice(), ComparisonOp::Eq, 1.0);
    let solution = p.solve().ok()?.into_solution().ok()?;
    let mut probs: Vec<f64> = x
        .iter()
        .map(|&xi| solution.var_value(xi).max(0.0))
        .collect();
    let total: f64 = probs.iter().sum();
    if total <= 0.0 {
        return None;
    }
    for q in &mut probs {
        *q /= total;
    }
    Some((solution.var_value(v), probs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn rock_paper_scissors_is_uniform_with_value_zero() {
        let a = vec![
            vec![0.0, -1.0, 1.0],
            vec![1.0, 0.0, -1.0],
            vec![-1.0, 1.0, 0.0],
        ];
        let s = solve(&a);
        assert!(close(s.value, 0.0));
        for p in s.row.iter().chain(&s.col) {
            assert!(close(*p, 1.0 / 3.0), "{s:?}");
        }
    }

    #[test]
    fn two_by_two_games_match_the_closed_form() {
        // A 2x2 game without a saddle point: x = (d - c) / (a - b - c + d),
        // value = (ad - bc) / (a - b - c + d) (the textbook formula,
        // independent of the LP).
        let (p, q, r, s) = (3.0, -1.0, -2.0, 4.0);
        let g = solve(&[vec![p, q], vec![r, s]]);
        let den = p - q - r + s;
        assert!(close(g.value, (p * s - q * r) / den), "{g:?}");
        assert!(close(g.row[0], (s - r) / den), "{g:?}");
        assert!(close(g.col[0], (s - q) / den), "{g:?}");
    }

    #[test]
    fn saddle_points_are_pure() {
        let g = solve(&[vec![1.0, 5.0], vec![2.0, 3.0], vec![0.0, 9.0]]);
        assert_eq!(g.row, vec![0.0, 1.0, 0.0]);
        assert_eq!(g.col, vec![1.0, 0.0]);
        assert!(close(g.value, 2.0));
        let one = solve(&[vec![7.0]]);
        assert!(close(one.value, 7.0));
    }
}
