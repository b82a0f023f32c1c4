//! Non-attacking placements (T19): the largest set of pieces of one kind
//! of which none attacks another, and how many such sets there are.
//!
//! Two pieces that share a line attack each other whatever stands between
//! them (the nearest two on the line do), so "no piece attacks another" is
//! decided on the empty board: the placements are the independent sets of
//! the graph "a attacks b or b attacks a".
//!
//! Three solvers:
//! - [`n_queens`]: queens on the n x n board, the bitmask search of
//!   M. Richards / J. Somers (one queen per row; columns and both diagonals
//!   as bit masks), halved by the board's mirror symmetry and split over
//!   threads by the first two rows.
//! - [`torus_queens`]: the same on the n x n torus, where the diagonals
//!   wrap: the diagonal masks are rotated instead of shifted.
//! - [`maximum_sets`]: any piece on any board. A branch and bound search
//!   over the cells (take the cell or leave it), bounded by a partition of
//!   the cells into cliques of the attack graph (a placement holds at most
//!   one piece of each clique), with a node budget so that a search beyond
//!   reach says so instead of running for days.

use rayon::prelude::*;

use super::{Board, SolveError};

/// Counts the placements of `n` non-attacking queens on the n x n board
/// (`n` from 1 to 32).
pub fn n_queens(n: usize) -> Result<u64, SolveError> {
    if !(1..=32).contains(&n) {
        return Err(SolveError::Parameter(format!(
            "n-queens: n from 1 to 32, not {n}"
        )));
    }
    fn search(all: u64, cols: u64, left: u64, right: u64) -> u64 {
        if cols == all {
            return 1;
        }
        let mut free = all & !(cols | left | right);
        let mut count = 0;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            count += search(
                all,
                cols | bit,
                ((left | bit) << 1) & all,
                (right | bit) >> 1,
            );
        }
        count
    }
    let all = (1u64 << n) - 1;
    // First row: the left half counts twice (its mirror image is a distinct
    // placement with the first queen in the right half); the middle column
    // of an odd board once. The second row splits the work over threads.
    let first: Vec<(usize, u64)> = (0..n.div_ceil(2))
        .map(|c| (c, if n % 2 == 1 && c == n / 2 { 1 } else { 2 }))
        .collect();
    let jobs: Vec<(u64, u64)> = first
        .iter()
        .flat_map(|&(c, w)| (0..n.max(1)).map(move |d| ((c as u64) << 32 | d as u64, w)))
        .collect();
    let total = jobs
        .par_iter()
        .map(|&(job, w)| {
            let (c, d) = ((job >> 32) as usize, (job & 0xffff_ffff) as usize);
            let bit = 1u64 << c;
            if n == 1 {
                return w;
            }
            let (cols, left, right) = (bit, (bit << 1) & all, bit >> 1);
            let second = 1u64 << d;
            if (cols | left | right) & second != 0 {
                return 0;
            }
            w * search(
                all,
                cols | second,
                ((left | second) << 1) & all,
                (right | second) >> 1,
            )
        })
        .sum::<u64>();
    Ok(if n == 1 { 1 } else { total })
}

/// Counts the placements of `n` non-attacking queens on the n x n torus,
/// where files, ranks and diagonals wrap (`n` from 1 to 32).
pub fn torus_queens(n: usize) -> Result<u64, SolveError> {
    if !(1..=32).contains(&n) {
        return Err(SolveError::Parameter(format!(
            "torus queens: n from 1 to 32, not {n}"
        )));
    }
    /// The n x n torus: rows searched in order; `diag` marks, as seen
    /// from the current row's columns, the diagonals (c - r mod n) taken,
    /// `anti` the anti-diagonals (c + r mod n).
    struct Torus {
        n: usize,
        all: u64,
    }
    impl Torus {
        fn rotl(&self, x: u64) -> u64 {
            ((x << 1) | (x >> (self.n - 1))) & self.all
        }
        fn rotr(&self, x: u64) -> u64 {
            ((x >> 1) | (x << (self.n - 1))) & self.all
        }
        fn search(&self, row: usize, cols: u64, diag: u64, anti: u64) -> u64 {
            if row == self.n {
                return 1;
            }
            let mut free = self.all & !(cols | diag | anti);
            let mut count = 0;
            while free != 0 {
                let bit = free & free.wrapping_neg();
                free ^= bit;
                count += self.search(
                    row + 1,
                    cols | bit,
                    self.rotl(diag | bit),
                    self.rotr(anti | bit),
                );
            }
            count
        }
    }
    let t = Torus {
        n,
        all: (1u64 << n) - 1,
    };
    if n == 1 {
        return Ok(1);
    }
    // Every solution has one queen in row 0; the torus looks the same from
    // every column, so count with that queen in column 0 and multiply by n.
    let first = 1u64;
    Ok(n as u64 * t.search(1, first, t.rotl(first), t.rotr(first)))
}

/// The result of a maximum placement search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placements {
    /// The largest number of mutually non-attacking pieces.
    pub size: usize,
    /// How many placements of that size there are.
    pub count: u64,
    /// The first `limit` of them (cells ascending).
    pub examples: Vec<Vec<usize>>,
    /// Search nodes visited.
    pub nodes: u64,
}

/// The conflict graph as bit rows: `conflict[a]` holds `b` when a attacks
/// b or b attacks a.
fn conflicts(board: &Board, kind: usize) -> Vec<Vec<u64>> {
    let n = board.cells();
    let words = n.div_ceil(64);
    let mut m = vec![vec![0u64; words]; n];
    for (a, targets) in board.empty_attacks(kind).into_iter().enumerate() {
        for b in targets {
            if a != b {
                m[a][b / 64] |= 1 << (b % 64);
                m[b][a / 64] |= 1 << (a % 64);
            }
        }
    }
    m
}

fn has(set: &[u64], c: usize) -> bool {
    set[c / 64] >> (c % 64) & 1 != 0
}

/// The largest sets of mutually non-attacking pieces of `kind` on `board`
/// and their number; up to `limit` of them are returned. The search stops
/// with [`SolveError::OutOfReach`] after `budget` nodes.
pub fn maximum_sets(
    board: &Board,
    kind: usize,
    limit: usize,
    budget: u64,
) -> Result<Placements, SolveError> {
    let n = board.cells();
    let conflict = conflicts(board, kind);
    // Greedy clique partition: each cell joins the first clique all of
    // whose members it conflicts with.
    let mut cliques: Vec<Vec<usize>> = Vec::new();
    let mut clique_of = vec![0usize; n];
    for c in 0..n {
        match cliques
            .iter()
            .position(|q| q.iter().all(|&m| has(&conflict[c], m)))
        {
            Some(i) => {
                cliques[i].push(c);
                clique_of[c] = i;
            }
            None => {
                clique_of[c] = cliques.len();
                cliques.push(vec![c]);
            }
        }
    }
    struct Search<'a> {
        n: usize,
        conflict: &'a [Vec<u64>],
        clique_of: &'a [usize],
        cliques: usize,
        best: usize,
        count: u64,
        examples: Vec<Vec<usize>>,
        limit: usize,
        nodes: u64,
        budget: u64,
        chosen: Vec<usize>,
    }
    impl Search<'_> {
        /// Cliques that still hold a free cell at or after `from`.
        fn bound(&self, from: usize, blocked: &[u64]) -> usize {
            let mut seen = vec![false; self.cliques];
            let mut k = 0;
            for c in from..self.n {
                if !has(blocked, c) && !seen[self.clique_of[c]] {
                    seen[self.clique_of[c]] = true;
                    k += 1;
                }
            }
            k
        }

        fn go(&mut self, from: usize, blocked: &mut Vec<u64>) -> bool {
            self.nodes += 1;
            super::progress::tick("placement", self.nodes);
            if self.nodes > self.budget {
                return false;
            }
            let size = self.chosen.len();
            if size + self.bound(from, blocked) < self.best {
                return true;
            }
            let Some(c) = (from..self.n).find(|&c| !has(blocked, c)) else {
                if size > self.best {
                    self.best = size;
                    self.count = 0;
                    self.examples.clear();
                }
                if size == self.best {
                    self.count += 1;
                    if self.examples.len() < self.limit {
                        self.examples.push(self.chosen.clone());
                    }
                }
                return true;
            };
            // Take c.
            let saved = blocked.clone();
            for (w, x) in blocked.iter_mut().zip(&self.conflict[c]) {
                *w |= x;
            }
            blocked[c / 64] |= 1 << (c % 64);
            self.chosen.push(c);
            let ok = self.go(c + 1, blocked);
            self.chosen.pop();
            *blocked = saved;
            if !ok {
                return false;
            }
            // Leave c.
            blocked[c / 64] |= 1 << (c % 64);
            let ok = self.go(c + 1, blocked);
            blocked[c / 64] &= !(1 << (c % 64));
            ok
        }
    }
    let mut s = Search {
        n,
        conflict: &conflict,
        clique_of: &clique_of,
        cliques: cliques.len(),
        best: 0,
        count: 0,
        examples: Vec::new(),
        limit,
        nodes: 0,
        budget,
        chosen: Vec::new(),
    };
    let mut blocked = vec![0u64; n.div_ceil(64)];
    if !s.go(0, &mut blocked) {
        return Err(SolveError::OutOfReach(format!(
            "more than {budget} search nodes for {} cells (largest set found so far: {}); \
             raise --budget to go on",
            n, s.best
        )));
    }
    Ok(Placements {
        size: s.best,
        count: s.count,
        examples: s.examples,
        nodes: s.nodes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_queens_by_every_solver() {
        assert_eq!(n_queens(8).unwrap(), 92);
        let b = Board::from_spec("board:8x8").unwrap();
        let q = b.kind('Q').unwrap();
        let p = maximum_sets(&b, q, 3, 10_000_000).unwrap();
        assert_eq!((p.size, p.count), (8, 92));
        assert_eq!(p.examples.len(), 3);
    }
}
