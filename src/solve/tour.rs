//! Knight's tours (T20): a path of knight moves through every cell once,
//! closed when the last cell is a knight's move from the first.
//!
//! Finding one: Warnsdorff's rule (go to the cell with the fewest onward
//! moves) with the tie broken by the smaller sum of the candidates' onward
//! degrees, then by cell order, inside a depth-first search that backtracks
//! when the rule runs into a dead end, under a node budget. Counting: a
//! plain depth-first search over all paths, pruned when an unvisited cell
//! can no longer be entered and left (it must then be the last cell, and a
//! path has one last cell).

use super::{Board, SolveError};

/// The knight graph of a board: for every cell the cells a knight (the
/// board's `N`) reaches from it on the empty board.
pub fn knight_graph(board: &Board) -> Result<Vec<Vec<usize>>, SolveError> {
    let n = board.kind('N')?;
    Ok(board.empty_attacks(n))
}

/// A set of cells as words.
#[derive(Clone)]
pub(super) struct Visited(Vec<u64>);

impl Visited {
    pub(super) fn new(n: usize) -> Visited {
        Visited(vec![0; n.div_ceil(64)])
    }
    pub(super) fn has(&self, c: usize) -> bool {
        self.0[c / 64] >> (c % 64) & 1 != 0
    }
    pub(super) fn set(&mut self, c: usize) {
        self.0[c / 64] |= 1 << (c % 64);
    }
    pub(super) fn unset(&mut self, c: usize) {
        self.0[c / 64] &= !(1 << (c % 64));
    }
}

pub(super) fn free_degree(g: &[Vec<usize>], seen: &Visited, c: usize) -> usize {
    g[c].iter().filter(|&&d| !seen.has(d)).count()
}

/// Finds a tour from `start` (closed if `closed`), or says there is none
/// within `budget` search nodes.
pub fn find(
    board: &Board,
    start: usize,
    closed: bool,
    budget: u64,
) -> Result<Option<Vec<usize>>, SolveError> {
    let g = knight_graph(board)?;
    let n = g.len();
    if start >= n {
        return Err(SolveError::Parameter(
            "the start cell is not on the board".into(),
        ));
    }
    let mut seen = Visited::new(n);
    let mut path = vec![start];
    seen.set(start);
    let mut nodes = 0u64;
    // Returns Some(found) or None when the budget ran out.
    fn go(
        g: &[Vec<usize>],
        seen: &mut Visited,
        path: &mut Vec<usize>,
        closed: bool,
        nodes: &mut u64,
        budget: u64,
    ) -> Option<bool> {
        *nodes += 1;
        super::progress::tick("tour", *nodes);
        if *nodes > budget {
            return None;
        }
        let n = g.len();
        let here = *path.last().expect("invariant: the path holds the start");
        if path.len() == n {
            return Some(!closed || g[here].contains(&path[0]));
        }
        if dead_end(g, seen, here, closed.then_some(path[0])) {
            return Some(false);
        }
        let mut next: Vec<(usize, usize, usize)> = g[here]
            .iter()
            .filter(|&&d| !seen.has(d))
            .map(|&d| {
                let deg = free_degree(g, seen, d);
                let sum: usize = g[d]
                    .iter()
                    .filter(|&&e| !seen.has(e) && e != d)
                    .map(|&e| free_degree(g, seen, e))
                    .sum();
                (deg, sum, d)
            })
            .collect();
        next.sort_unstable();
        for (_, _, d) in next {
            seen.set(d);
            path.push(d);
            match go(g, seen, path, closed, nodes, budget) {
                Some(true) => return Some(true),
                None => return None,
                Some(false) => {}
            }
            path.pop();
            seen.unset(d);
        }
        Some(false)
    }
    match go(&g, &mut seen, &mut path, closed, &mut nodes, budget) {
        Some(true) => Ok(Some(path)),
        Some(false) => Ok(None),
        None => Err(SolveError::OutOfReach(format!(
            "no {} tour from {} within {budget} search nodes",
            if closed { "closed" } else { "open" },
            board.name(start)
        ))),
    }
}

/// Whether the path ending at `here` can no longer become a tour: an
/// unvisited cell with no way in, or two with one way only (each would
/// have to be the last cell). For a closed tour (`start` given) the start
/// counts as a way out of the last cell, and must keep an unvisited
/// neighbour to return from.
pub(super) fn dead_end(
    g: &[Vec<usize>],
    seen: &Visited,
    here: usize,
    start: Option<usize>,
) -> bool {
    if let Some(s) = start
        && s != here
        && free_degree(g, seen, s) == 0
    {
        return true;
    }
    let mut ends = 0;
    for c in 0..g.len() {
        if seen.has(c) {
            continue;
        }
        let ways = free_degree(g, seen, c)
            + usize::from(g[c].contains(&here))
            + usize::from(start.is_some_and(|s| s != here && g[c].contains(&s)));
        if ways == 0 {
            return true;
        }
        if ways == 1 {
            ends += 1;
            if ends > 1 {
                return true;
            }
        }
    }
    false
}

/// Tour counts from one start cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TourCount {
    /// Directed open tours (closed ones included) starting there.
    pub open: u64,
    /// Of those, the closed ones.
    pub closed: u64,
    /// Search nodes.
    pub nodes: u64,
}

/// Counts the directed tours starting at `start`, stopping with
/// [`SolveError::OutOfReach`] after `budget` nodes.
pub fn count_from(board: &Board, start: usize, budget: u64) -> Result<TourCount, SolveError> {
    let g = knight_graph(board)?;
    let n = g.len();
    let mut seen = Visited::new(n);
    seen.set(start);
    let mut count = TourCount::default();
    fn go(
        g: &[Vec<usize>],
        seen: &mut Visited,
        start: usize,
        here: usize,
        len: usize,
        count: &mut TourCount,
        budget: u64,
    ) -> bool {
        count.nodes += 1;
        super::progress::tick("tour count", count.nodes);
        if count.nodes > budget {
            return false;
        }
        let n = g.len();
        if len == n {
            count.open += 1;
            if g[here].contains(&start) {
                count.closed += 1;
            }
            return true;
        }
        if dead_end(g, seen, here, None) {
            return true;
        }
        for &d in &g[here] {
            if !seen.has(d) {
                seen.set(d);
                let ok = go(g, seen, start, d, len + 1, count, budget);
                seen.unset(d);
                if !ok {
                    return false;
                }
            }
        }
        true
    }
    if !go(&g, &mut seen, start, start, 1, &mut count, budget) {
        return Err(SolveError::OutOfReach(format!(
            "more than {budget} search nodes counting the tours from {}",
            board.name(start)
        )));
    }
    Ok(count)
}
