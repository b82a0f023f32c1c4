//! Magic knight's tours (seed 000 §20): number the cells 1, 2, …, N in the
//! order the knight visits them; the tour is magic along an axis when the
//! numbers on every line parallel to that axis add up to the same sum.
//! The seed asks for one such decomposition of the board into parallel
//! lines of equal size; asking for every axis of a 2-D board gives the
//! classical semi-magic tours (ranks and files), of which the 8x8 board
//! has a small, known number (Beverley 1848 found the first).
//!
//! The lines of an axis must all hold the same number `m` of cells, so
//! that the sum is `m (N + 1) / 2`, which must be whole.
//!
//! The search is the tour search of [`super::tour`] (Warnsdorff's order,
//! dead-end pruning) with one more cut: after the knight has placed
//! number `t`, every line of an asked axis with `e` cells still empty and
//! `r` still missing from its sum must be fillable by `e` distinct numbers
//! from `t + 1 … N`, so `r` lies between the sum of the `e` smallest and
//! the sum of the `e` largest of them (and is 0 when `e` is 0).

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::tour::{Visited, dead_end, free_degree, knight_graph};
use super::{Board, SolveError};

/// Search nodes of the first run; each restart allows half as many again.
const RESTART_NODES: u64 = 100_000;

/// The lines of the asked axes: for each axis, each cell's line and the
/// line's wanted sum.
struct Lines {
    /// `of[a][cell]`: the line of `cell` along axis `a`.
    of: Vec<Vec<usize>>,
    /// The wanted sum of a line of axis `a`.
    sum: Vec<u64>,
    /// Lines per axis.
    count: Vec<usize>,
}

/// Builds the lines of `axes` (0-based) on the board, or says why the
/// board has no magic structure along one of them.
fn lines(board: &Board, axes: &[usize]) -> Result<Lines, SolveError> {
    let g = &board.variant.geometry;
    let n = g.cell_count();
    let mut out = Lines {
        of: Vec::new(),
        sum: Vec::new(),
        count: Vec::new(),
    };
    for &a in axes {
        if a >= g.dims() {
            return Err(SolveError::Parameter(format!(
                "axis {} is not an axis of {} (1 to {})",
                a + 1,
                board.variant.spec,
                g.dims()
            )));
        }
        // A line is the set of cells that agree on every other coordinate.
        let mut keys: Vec<Vec<i16>> = Vec::new();
        let mut of = Vec::with_capacity(n);
        for c in 0..n {
            let mut key = g.coords(c).to_vec();
            key[a] = 0;
            let id = match keys.iter().position(|k| *k == key) {
                Some(i) => i,
                None => {
                    keys.push(key);
                    keys.len() - 1
                }
            };
            of.push(id);
        }
        let mut sizes = vec![0u64; keys.len()];
        for &id in &of {
            sizes[id] += 1;
        }
        let m = sizes[0];
        if sizes.iter().any(|&s| s != m) {
            return Err(SolveError::Parameter(format!(
                "the lines along axis {} of {} differ in length: no magic structure",
                a + 1,
                board.variant.spec
            )));
        }
        if !(m * (n as u64 + 1)).is_multiple_of(2) {
            return Err(SolveError::Parameter(format!(
                "lines of {m} cells cannot share the sum {m}·{}/2 along axis {}",
                n + 1,
                a + 1
            )));
        }
        out.sum.push(m * (n as u64 + 1) / 2);
        out.count.push(keys.len());
        out.of.push(of);
    }
    Ok(out)
}

/// The sums still missing and cells still empty on every line.
struct LineState {
    missing: Vec<Vec<u64>>,
    empty: Vec<Vec<u64>>,
}

impl LineState {
    fn new(lines: &Lines, cells: usize) -> LineState {
        let per_line = |a: usize| (cells / lines.count[a]) as u64;
        LineState {
            missing: (0..lines.sum.len())
                .map(|a| vec![lines.sum[a]; lines.count[a]])
                .collect(),
            empty: (0..lines.sum.len())
                .map(|a| vec![per_line(a); lines.count[a]])
                .collect(),
        }
    }

    fn place(&mut self, lines: &Lines, cell: usize, number: u64) {
        for a in 0..lines.of.len() {
            let l = lines.of[a][cell];
            self.missing[a][l] -= number;
            self.empty[a][l] -= 1;
        }
    }

    fn unplace(&mut self, lines: &Lines, cell: usize, number: u64) {
        for a in 0..lines.of.len() {
            let l = lines.of[a][cell];
            self.missing[a][l] += number;
            self.empty[a][l] += 1;
        }
    }

    /// Whether `number` fits on `cell` (its lines do not overshoot) when
    /// the numbers after it are `number + 1 … n`.
    fn admits(&self, lines: &Lines, cell: usize, number: u64, n: u64) -> bool {
        (0..lines.of.len()).all(|a| {
            let l = lines.of[a][cell];
            let (r, e) = (self.missing[a][l], self.empty[a][l]);
            r >= number && fillable(r - number, e - 1, number, n)
        })
    }

    /// Whether every line can still reach its sum with the numbers after
    /// `last`: each line alone, and the lines of an axis together (the
    /// lines that need the most cannot all have the largest numbers: for
    /// the j neediest lines, what they miss together is at most the sum
    /// of the largest numbers left for all their empty cells, and the j
    /// least needy at least the sum of the smallest).
    fn feasible(&self, last: u64, n: u64, scratch: &mut Vec<(u64, u64)>) -> bool {
        for (m, e) in self.missing.iter().zip(&self.empty) {
            if !m.iter().zip(e).all(|(&r, &e)| fillable(r, e, last, n)) {
                return false;
            }
            // Lines by the average number they still need, neediest first
            // (compared as r1/e1 > r2/e2 without division).
            scratch.clear();
            scratch.extend(m.iter().zip(e).filter(|x| *x.1 > 0).map(|(&r, &e)| (r, e)));
            scratch.sort_unstable_by(|a, b| (b.0 * a.1).cmp(&(a.0 * b.1)));
            let (mut r_sum, mut e_sum) = (0, 0);
            for &(r, e) in scratch.iter() {
                r_sum += r;
                e_sum += e;
                if r_sum > e_sum * n - e_sum * (e_sum - 1) / 2 {
                    return false;
                }
            }
            let (mut r_sum, mut e_sum) = (0, 0);
            for &(r, e) in scratch.iter().rev() {
                r_sum += r;
                e_sum += e;
                if r_sum < e_sum * (last + 1) + e_sum * (e_sum - 1) / 2 {
                    return false;
                }
            }
        }
        true
    }
}

/// Whether `e` distinct numbers from `last + 1 … n` can add up to `r`.
#[inline]
fn fillable(r: u64, e: u64, last: u64, n: u64) -> bool {
    if e == 0 {
        return r == 0;
    }
    if last + e > n {
        return false;
    }
    let least = e * (last + 1) + e * (e - 1) / 2;
    let most = e * n - e * (e - 1) / 2;
    (least..=most).contains(&r)
}

/// What a magic tour search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MagicTour {
    /// The cells in the knight's order (the first is number 1).
    pub path: Vec<usize>,
    /// The sum of every line of each asked axis.
    pub sums: Vec<u64>,
    /// Search nodes.
    pub nodes: u64,
}

/// Finds a tour from `start` (closed if `closed`) that is magic along
/// every axis in `axes` (0-based), or says there is none within `budget`
/// search nodes. `Ok(None)`: the search was complete and found none.
pub fn find_magic(
    board: &Board,
    start: usize,
    closed: bool,
    axes: &[usize],
    budget: u64,
) -> Result<Option<MagicTour>, SolveError> {
    let g = knight_graph(board)?;
    let n = g.len();
    if start >= n {
        return Err(SolveError::Parameter(
            "the start cell is not on the board".into(),
        ));
    }
    let lines = lines(board, axes)?;
    struct Search<'a> {
        g: &'a [Vec<usize>],
        lines: &'a Lines,
        state: LineState,
        seen: Visited,
        path: Vec<usize>,
        closed: bool,
        nodes: u64,
        budget: u64,
        scratch: Vec<(u64, u64)>,
        /// Breaks Warnsdorff's ties at random (the restarts), or by cell.
        rng: Option<StdRng>,
    }
    impl Search<'_> {
        /// Some(found), or None when the budget ran out.
        fn go(&mut self) -> Option<bool> {
            self.nodes += 1;
            super::progress::tick("magic tour", self.nodes);
            if self.nodes > self.budget {
                return None;
            }
            let n = self.g.len();
            let here = *self
                .path
                .last()
                .expect("invariant: the path holds the start");
            if self.path.len() == n {
                return Some(!self.closed || self.g[here].contains(&self.path[0]));
            }
            let last = self.path.len() as u64;
            if !self.state.feasible(last, n as u64, &mut self.scratch)
                || dead_end(
                    self.g,
                    &self.seen,
                    here,
                    self.closed.then_some(self.path[0]),
                )
            {
                return Some(false);
            }
            let number = last + 1;
            let mut next: Vec<(usize, u32, usize)> = Vec::new();
            for &d in &self.g[here] {
                if !self.seen.has(d) && self.state.admits(self.lines, d, number, n as u64) {
                    let tie = self.rng.as_mut().map_or(0, |r| r.random::<u32>());
                    next.push((free_degree(self.g, &self.seen, d), tie, d));
                }
            }
            next.sort_unstable();
            for (_, _, d) in next {
                self.seen.set(d);
                self.path.push(d);
                self.state.place(self.lines, d, number);
                let r = self.go();
                self.state.unplace(self.lines, d, number);
                match r {
                    Some(true) => return Some(true),
                    None => return None,
                    Some(false) => {}
                }
                self.path.pop();
                self.seen.unset(d);
            }
            Some(false)
        }
    }
    // Searches of this kind have heavy tails: a few early choices decide
    // whether the rest is quick. So the search restarts with Warnsdorff's
    // ties broken at random and a growing node allowance (the first run
    // in cell order); any run that ends without running out proves that
    // there is none.
    let mut used = 0u64;
    let mut allowance = RESTART_NODES;
    for run in 0u64.. {
        let this_run = if run == 0 {
            allowance
        } else {
            allowance.min(budget - used)
        };
        let mut s = Search {
            g: &g,
            lines: &lines,
            state: LineState::new(&lines, n),
            seen: Visited::new(n),
            path: vec![start],
            closed,
            nodes: 0,
            budget: this_run.min(budget),
            scratch: Vec::new(),
            rng: (run > 0).then(|| StdRng::seed_from_u64(run)),
        };
        if !s.state.admits(&lines, start, 1, n as u64) {
            return Ok(None);
        }
        s.state.place(&lines, start, 1);
        s.seen.set(start);
        let outcome = s.go();
        used += s.nodes.min(s.budget);
        match outcome {
            Some(true) => {
                return Ok(Some(MagicTour {
                    path: s.path,
                    sums: lines.sum.clone(),
                    nodes: used,
                }));
            }
            Some(false) => return Ok(None),
            None if used >= budget => break,
            None => allowance = allowance + allowance / 2,
        }
    }
    Err(SolveError::OutOfReach(format!(
        "no magic {} tour from {} within {budget} search nodes",
        if closed { "closed" } else { "open" },
        board.name(start)
    )))
}
