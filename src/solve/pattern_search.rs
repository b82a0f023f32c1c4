//! The exact-cover search with multiplicities behind `solve coverage`
//! (the method is described in [`super::coverage`]).
//!
//! Speed comes from three things:
//! - each pattern's attacked, must-be-empty and must-hold cells are bit
//!   sets of the board's width (one to 32 words), so whether a pattern
//!   still fits is a handful of word operations instead of loops over its
//!   cells;
//! - the cells still short of their k are a bit set too, so the next cell
//!   to cover is its lowest bit;
//! - the tree is split at its top into subtrees searched in parallel
//!   (rayon), whose results are merged in the order of the sequential
//!   search, so the solutions shown do not depend on the thread count.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rayon::prelude::*;

use super::SolveError;
use super::coverage::{Coverage, Pattern, Placement};

/// Nodes counted locally before they are added to the shared count (and
/// the budget is checked).
const NODE_BATCH: u64 = 4096;

/// The search stops splitting the tree once it has this many subtrees per
/// thread.
const SUBTREES_PER_THREAD: usize = 64;

/// A set of cells, `W` words wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Bits<const W: usize>([u64; W]);

impl<const W: usize> Bits<W> {
    const NONE: Self = Bits([0; W]);

    fn of(cells: &[usize]) -> Self {
        let mut b = Self::NONE;
        for &c in cells {
            b.insert(c);
        }
        b
    }

    #[inline]
    fn has(&self, c: usize) -> bool {
        self.0[c / 64] >> (c % 64) & 1 == 1
    }

    #[inline]
    fn insert(&mut self, c: usize) {
        self.0[c / 64] |= 1 << (c % 64);
    }

    #[inline]
    fn remove(&mut self, c: usize) {
        self.0[c / 64] &= !(1 << (c % 64));
    }

    #[inline]
    fn meets(&self, other: &Self) -> bool {
        self.0.iter().zip(&other.0).any(|(a, b)| a & b != 0)
    }

    #[inline]
    fn union(&self, other: &Self) -> Self {
        let mut out = *self;
        for (a, b) in out.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
        out
    }

    #[inline]
    fn lowest(&self) -> Option<usize> {
        self.0
            .iter()
            .position(|&w| w != 0)
            .map(|i| i * 64 + self.0[i].trailing_zeros() as usize)
    }
}

/// A pattern's cells as bit sets.
struct PatternBits<const W: usize> {
    attacks: Bits<W>,
    empty: Bits<W>,
    occupied: Bits<W>,
}

/// What the search is asked (shared by every subtree).
pub struct Problem<'a> {
    /// Every pattern.
    pub patterns: &'a [Pattern],
    /// Attacks wanted per cell.
    pub k: &'a [u32],
    /// Kinds of the pieces that attack nothing, per cell.
    pub idle: &'a [Vec<usize>],
    /// Strict convention: idle pieces may also stand on free cells.
    pub strict: bool,
    /// Only vacant cells need k attacks ([`vacant`] mode).
    pub vacant_only: bool,
    /// Solutions to keep as examples.
    pub limit: usize,
    /// Search nodes allowed.
    pub budget: u64,
    /// Keep every solution, refusing more than this many.
    pub collect_cap: Option<u64>,
    /// Told (nodes, solutions) about every two seconds of a long search.
    pub progress: Option<&'a (dyn Fn(u64, u64) + Sync)>,
}

/// Seconds between progress reports.
const PROGRESS_EVERY_MS: u64 = 2000;

/// Why a search stopped early.
enum Stop {
    Budget,
    Cap,
}

/// Shared by the threads: node count, solutions collected, stop signal.
struct Shared {
    started: std::time::Instant,
    /// Milliseconds after the start of the last progress report.
    reported_ms: AtomicU64,
    solutions: AtomicU64,
    nodes: AtomicU64,
    collected: AtomicU64,
    stop: AtomicBool,
    cap_exceeded: AtomicBool,
}

struct Context<'a, const W: usize> {
    problem: &'a Problem<'a>,
    bits: Vec<PatternBits<W>>,
    /// Patterns by their lowest attacked cell.
    by_low: Vec<Vec<usize>>,
    /// Vacant mode: the patterns on each cell, and the patterns attacking
    /// each cell from a later cell.
    by_cell: Vec<Vec<usize>>,
    attackers: Vec<Vec<usize>>,
    shared: Shared,
}

/// A subtree: the patterns chosen on the way to it, and where the last
/// one stood in its cell's list (later choices at that cell start after
/// it).
#[derive(Clone)]
struct Subtree {
    chosen: Vec<usize>,
    last: Option<(usize, usize)>,
}

struct State<'c, 'a, const W: usize> {
    ctx: &'c Context<'a, W>,
    cov: Vec<u32>,
    /// Cells attacked fewer than k times.
    open: Bits<W>,
    /// Cells attacked k times.
    full: Bits<W>,
    pieces: Bits<W>,
    kind_at: Vec<Option<usize>>,
    must_empty: Vec<u32>,
    empty_set: Bits<W>,
    must_hold: Vec<u32>,
    hold_set: Bits<W>,
    chosen: Vec<usize>,
    result: Coverage,
    local_nodes: u64,
    /// Solutions already added to the shared count.
    reported_solutions: u64,
}

/// Runs the search.
pub fn run(problem: &Problem, cells: usize) -> Result<Coverage, SolveError> {
    match cells.div_ceil(64) {
        0..=1 => run_width::<1>(problem, cells),
        2 => run_width::<2>(problem, cells),
        3..=4 => run_width::<4>(problem, cells),
        5..=8 => run_width::<8>(problem, cells),
        9..=16 => run_width::<16>(problem, cells),
        17..=32 => run_width::<32>(problem, cells),
        _ => Err(SolveError::OutOfReach(format!(
            "coverage is searched on boards of at most 2048 cells, not {cells}"
        ))),
    }
}

fn run_width<const W: usize>(problem: &Problem, cells: usize) -> Result<Coverage, SolveError> {
    let mut by_low: Vec<Vec<usize>> = vec![Vec::new(); cells];
    for (i, p) in problem.patterns.iter().enumerate() {
        if let Some(&low) = p.attacks.first() {
            by_low[low].push(i);
        }
    }
    let mut by_cell: Vec<Vec<usize>> = vec![Vec::new(); cells];
    let mut attackers: Vec<Vec<usize>> = vec![Vec::new(); cells];
    if problem.vacant_only {
        for (i, p) in problem.patterns.iter().enumerate() {
            by_cell[p.cell].push(i);
            for &a in p.attacks.iter().filter(|&&a| a < p.cell) {
                attackers[a].push(i);
            }
        }
    }
    let ctx = Context::<W> {
        problem,
        by_cell,
        attackers,
        bits: problem
            .patterns
            .iter()
            .map(|p| PatternBits {
                attacks: Bits::of(&p.attacks),
                empty: Bits::of(&p.empty),
                occupied: Bits::of(&p.occupied),
            })
            .collect(),
        by_low,
        shared: Shared {
            started: std::time::Instant::now(),
            reported_ms: AtomicU64::new(0),
            solutions: AtomicU64::new(0),
            nodes: AtomicU64::new(0),
            collected: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            cap_exceeded: AtomicBool::new(false),
        },
    };
    if problem.vacant_only {
        // One thread: the vacant search is not split (yet).
        let mut s = State::new(&ctx);
        let stopped = s.go_vacant(0, None).err();
        s.flush_nodes();
        return conclude(problem, &ctx, vec![stopped.map_or(Ok(s.result), Err)]);
    }
    // Split the top of the tree until there is enough to share.
    let want = SUBTREES_PER_THREAD * rayon::current_num_threads();
    let mut frontier = vec![Subtree {
        chosen: Vec::new(),
        last: None,
    }];
    let mut split_nodes = 0;
    for _ in 0..8 {
        if frontier.len() >= want || rayon::current_num_threads() == 1 {
            break;
        }
        let mut next = Vec::new();
        let mut grew = false;
        for t in &frontier {
            let mut s = State::new(&ctx);
            s.replay(t);
            split_nodes += 1;
            match s.children(t.last) {
                Some(children) => {
                    grew = true;
                    next.extend(children.into_iter().map(|(i, last)| {
                        let mut chosen = t.chosen.clone();
                        chosen.push(i);
                        Subtree {
                            chosen,
                            last: Some(last),
                        }
                    }));
                }
                // Covered already: the subtree is this leaf.
                None => next.push(t.clone()),
            }
        }
        frontier = next;
        if !grew {
            break;
        }
    }
    ctx.shared.nodes.fetch_add(split_nodes, Ordering::Relaxed);
    let results: Vec<Result<Coverage, Stop>> = frontier
        .par_iter()
        .map(|t| {
            let mut s = State::new(&ctx);
            s.replay(t);
            let stopped = s.go(t.last).err();
            s.flush_nodes();
            match stopped {
                Some(why) => Err(why),
                None => Ok(s.result),
            }
        })
        .collect();
    conclude(problem, &ctx, results)
}

/// Merges the subtrees' results, or says why the search stopped.
fn conclude<const W: usize>(
    problem: &Problem,
    ctx: &Context<W>,
    results: Vec<Result<Coverage, Stop>>,
) -> Result<Coverage, SolveError> {
    let nodes = ctx.shared.nodes.load(Ordering::Relaxed);
    let mut total = Coverage {
        all: problem.collect_cap.map(|_| Vec::new()),
        ..Coverage::default()
    };
    let mut stop = None;
    for r in results {
        match r {
            Ok(c) => merge(&mut total, c, problem.limit),
            Err(why) => stop = stop.or(Some(why)),
        }
    }
    total.nodes = nodes;
    if ctx.shared.cap_exceeded.load(Ordering::Relaxed) {
        stop = Some(Stop::Cap);
    }
    match stop {
        None => Ok(total),
        Some(Stop::Cap) => Err(SolveError::OutOfReach(format!(
            "more than {} solutions are too many to compare up to symmetry",
            problem.collect_cap.unwrap_or(0)
        ))),
        Some(Stop::Budget) => Err(SolveError::OutOfReach(format!(
            "more than {} search nodes ({} solutions so far); raise --budget",
            problem.budget,
            ctx.shared
                .solutions
                .load(Ordering::Relaxed)
                .max(total.count)
        ))),
    }
}

/// Adds a later subtree's findings to `total` (solutions kept in order).
fn merge(total: &mut Coverage, part: Coverage, limit: usize) {
    total.count += part.count;
    match (total.min_pieces, part.min_pieces) {
        (_, None) => {}
        (Some(a), Some(b)) if a < b => {}
        (Some(a), Some(b)) if a == b => total.min_count += part.min_count,
        _ => {
            total.min_pieces = part.min_pieces;
            total.min_count = part.min_count;
            total.minimal.clear();
        }
    }
    let room = limit.saturating_sub(total.examples.len());
    total.examples.extend(part.examples.into_iter().take(room));
    if part.min_pieces.is_some() && part.min_pieces == total.min_pieces {
        let room = limit.saturating_sub(total.minimal.len());
        total.minimal.extend(part.minimal.into_iter().take(room));
    }
    if let (Some(all), Some(more)) = (total.all.as_mut(), part.all) {
        all.extend(more);
    }
}

impl<'c, 'a, const W: usize> State<'c, 'a, W> {
    fn new(ctx: &'c Context<'a, W>) -> Self {
        let n = ctx.problem.k.len();
        let mut open = Bits::NONE;
        let mut full = Bits::NONE;
        for (c, &k) in ctx.problem.k.iter().enumerate() {
            if k > 0 {
                open.insert(c);
            } else {
                full.insert(c);
            }
        }
        State {
            ctx,
            cov: vec![0; n],
            open,
            full,
            pieces: Bits::NONE,
            kind_at: vec![None; n],
            must_empty: vec![0; n],
            empty_set: Bits::NONE,
            must_hold: vec![0; n],
            hold_set: Bits::NONE,
            chosen: Vec::new(),
            result: Coverage {
                all: ctx.problem.collect_cap.map(|_| Vec::new()),
                ..Coverage::default()
            },
            local_nodes: 0,
            reported_solutions: 0,
        }
    }

    fn replay(&mut self, t: &Subtree) {
        for &i in &t.chosen {
            self.apply(i);
            self.chosen.push(i);
        }
    }

    #[inline]
    fn fits(&self, i: usize) -> bool {
        let p = &self.ctx.problem.patterns[i];
        let b = &self.ctx.bits[i];
        !self.pieces.has(p.cell)
            && !self.empty_set.has(p.cell)
            && !b.attacks.meets(&self.full)
            && !b.empty.meets(&self.pieces.union(&self.hold_set))
            && !b.occupied.meets(&self.empty_set)
    }

    fn apply(&mut self, i: usize) {
        let p = &self.ctx.problem.patterns[i];
        let k = self.ctx.problem.k;
        for &c in &p.attacks {
            self.cov[c] += 1;
            if self.cov[c] == k[c] {
                self.open.remove(c);
                self.full.insert(c);
            }
        }
        for &c in &p.empty {
            self.must_empty[c] += 1;
            self.empty_set.insert(c);
        }
        for &c in &p.occupied {
            self.must_hold[c] += 1;
            self.hold_set.insert(c);
        }
        self.kind_at[p.cell] = Some(p.kind);
        self.pieces.insert(p.cell);
    }

    fn undo(&mut self, i: usize) {
        let p = &self.ctx.problem.patterns[i];
        let k = self.ctx.problem.k;
        for &c in &p.attacks {
            if self.cov[c] == k[c] {
                self.full.remove(c);
                self.open.insert(c);
            }
            self.cov[c] -= 1;
        }
        for &c in &p.empty {
            self.must_empty[c] -= 1;
            if self.must_empty[c] == 0 {
                self.empty_set.remove(c);
            }
        }
        for &c in &p.occupied {
            self.must_hold[c] -= 1;
            if self.must_hold[c] == 0 {
                self.hold_set.remove(c);
            }
        }
        self.kind_at[p.cell] = None;
        self.pieces.remove(p.cell);
    }

    /// The patterns that may come next, with their place in their cell's
    /// list; `None` when every cell is covered.
    fn children(&self, last: Option<(usize, usize)>) -> Option<Vec<(usize, (usize, usize))>> {
        let t = self.open.lowest()?;
        let start = match last {
            Some((cell, pos)) if cell == t => pos + 1,
            _ => 0,
        };
        let list = &self.ctx.by_low[t];
        Some(
            (start..list.len())
                .filter(|&pos| self.fits(list[pos]))
                .map(|pos| (list[pos], (t, pos)))
                .collect(),
        )
    }

    fn flush_nodes(&mut self) {
        let shared = &self.ctx.shared;
        let nodes = shared.nodes.fetch_add(self.local_nodes, Ordering::Relaxed) + self.local_nodes;
        self.result.nodes += self.local_nodes;
        self.local_nodes = 0;
        let new = self.result.count - self.reported_solutions;
        self.reported_solutions = self.result.count;
        let solutions = shared.solutions.fetch_add(new, Ordering::Relaxed) + new;
        if let Some(progress) = self.ctx.problem.progress {
            let now = shared.started.elapsed().as_millis() as u64;
            let last = shared.reported_ms.load(Ordering::Relaxed);
            if now >= last + PROGRESS_EVERY_MS
                && shared
                    .reported_ms
                    .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            {
                progress(nodes, solutions);
            }
        }
    }

    fn go(&mut self, last: Option<(usize, usize)>) -> Result<(), Stop> {
        self.count_node()?;
        let Some(t) = self.open.lowest() else {
            return self.finish();
        };
        let start = match last {
            Some((cell, pos)) if cell == t => pos + 1,
            _ => 0,
        };
        let ctx = self.ctx;
        for (pos, &i) in ctx.by_low[t].iter().enumerate().skip(start) {
            if !self.fits(i) {
                continue;
            }
            self.apply(i);
            self.chosen.push(i);
            let r = self.go(Some((t, pos)));
            self.chosen.pop();
            self.undo(i);
            r?;
        }
        Ok(())
    }

    /// Counts a node; stops when the budget is spent or another thread
    /// stopped.
    #[inline]
    fn count_node(&mut self) -> Result<(), Stop> {
        self.local_nodes += 1;
        if self.local_nodes == NODE_BATCH {
            self.flush_nodes();
            let shared = &self.ctx.shared;
            if shared.stop.load(Ordering::Relaxed) {
                return Err(Stop::Budget);
            }
            if shared.nodes.load(Ordering::Relaxed) > self.ctx.problem.budget {
                shared.stop.store(true, Ordering::Relaxed);
                return Err(Stop::Budget);
            }
        }
        Ok(())
    }

    /// The vacant-cells search: settles the cells in order. Cell `t` is
    /// either occupied (one of the patterns on `t`) or left vacant, and
    /// then it gets exactly its missing attacks from patterns on later
    /// cells, chosen in list order (`last`: the place of the previous one)
    /// — earlier cells are settled, so no piece can come from them. Every
    /// solution is reached once: by whether each cell holds a piece, and
    /// which.
    fn go_vacant(&mut self, mut t: usize, last: Option<usize>) -> Result<(), Stop> {
        self.count_node()?;
        let n = self.cov.len();
        while t < n && self.pieces.has(t) {
            t += 1;
        }
        if t == n {
            return self.finish_vacant();
        }
        let k = self.ctx.problem.k[t];
        let ctx = self.ctx;
        if last.is_none() {
            // Occupy t: a pattern on it (an idle piece only strictly or
            // where a piece is demanded).
            if !self.empty_set.has(t) {
                let idle_ok = self.ctx.problem.strict || self.hold_set.has(t);
                for &i in &ctx.by_cell[t] {
                    let p = &ctx.problem.patterns[i];
                    if (!p.attacks.is_empty() || idle_ok) && self.fits_vacant(i) {
                        self.apply(i);
                        self.chosen.push(i);
                        let r = self.go_vacant(t + 1, None);
                        self.chosen.pop();
                        self.undo(i);
                        r?;
                    }
                }
            }
            // Leave t vacant: it must stay empty from now on.
            if self.hold_set.has(t) || self.cov[t] > k {
                return Ok(());
            }
            self.must_empty[t] += 1;
            self.empty_set.insert(t);
            let r = self.vacant_cell(t, 0);
            self.must_empty[t] -= 1;
            if self.must_empty[t] == 0 {
                self.empty_set.remove(t);
            }
            return r;
        }
        self.vacant_cell(t, last.map_or(0, |l| l + 1))
    }

    /// Cell `t` is vacant: settled if it has its k attacks, else one more
    /// attacker from its list, from place `start` on.
    fn vacant_cell(&mut self, t: usize, start: usize) -> Result<(), Stop> {
        if self.cov[t] == self.ctx.problem.k[t] {
            return self.go_vacant(t + 1, None);
        }
        let ctx = self.ctx;
        for (pos, &i) in ctx.attackers[t].iter().enumerate().skip(start) {
            if self.fits_vacant(i) {
                self.apply(i);
                self.chosen.push(i);
                let r = self.go_vacant(t, Some(pos));
                self.chosen.pop();
                self.undo(i);
                r?;
            }
        }
        Ok(())
    }

    /// Whether pattern `i` fits in the vacant mode: its cell free, no cell
    /// that must stay empty attacked beyond its k, its demands consistent.
    #[inline]
    fn fits_vacant(&self, i: usize) -> bool {
        let p = &self.ctx.problem.patterns[i];
        let b = &self.ctx.bits[i];
        let mut settled_full = self.full;
        for (w, e) in settled_full.0.iter_mut().zip(&self.empty_set.0) {
            *w &= e;
        }
        !self.pieces.has(p.cell)
            && !self.empty_set.has(p.cell)
            && !b.attacks.meets(&settled_full)
            && !b.empty.meets(&self.pieces.union(&self.hold_set))
            && !b.occupied.meets(&self.empty_set)
    }

    /// Every cell is settled: one solution.
    fn finish_vacant(&mut self) -> Result<(), Stop> {
        let problem = self.ctx.problem;
        let mut sol: Placement = self
            .chosen
            .iter()
            .map(|&i| (problem.patterns[i].cell, problem.patterns[i].kind))
            .collect();
        sol.sort_unstable();
        let pieces = sol.len();
        self.result.count += 1;
        let keep_minimal = match self.result.min_pieces {
            Some(m) if m < pieces => false,
            Some(m) if m == pieces => {
                self.result.min_count += 1;
                self.result.minimal.len() < problem.limit
            }
            _ => {
                self.result.min_pieces = Some(pieces);
                self.result.min_count = 1;
                self.result.minimal.clear();
                problem.limit > 0
            }
        };
        if keep_minimal {
            self.result.minimal.push(sol.clone());
        }
        if self.result.examples.len() < problem.limit {
            self.result.examples.push(sol.clone());
        }
        if let Some(cap) = problem.collect_cap {
            let shared = &self.ctx.shared;
            if shared.collected.fetch_add(1, Ordering::Relaxed) + 1 > cap {
                shared.cap_exceeded.store(true, Ordering::Relaxed);
                shared.stop.store(true, Ordering::Relaxed);
                return Err(Stop::Cap);
            }
            self.result.all.get_or_insert_with(Vec::new).push(sol);
        }
        Ok(())
    }

    /// Every cell is covered: fill demanded cells with idle pieces (and,
    /// strictly, free cells optionally) and count.
    fn finish(&mut self) -> Result<(), Stop> {
        let problem = self.ctx.problem;
        let idle = problem.idle;
        let mut ways: u64 = 1;
        let mut demanded = Vec::new();
        for (c, kinds) in idle.iter().enumerate() {
            if self.kind_at[c].is_some() {
                continue;
            }
            let z = kinds.len() as u64;
            if self.must_hold[c] > 0 {
                if z == 0 {
                    return Ok(());
                }
                ways *= z;
                demanded.push(c);
            } else if problem.strict && self.must_empty[c] == 0 {
                ways *= 1 + z;
            }
        }
        let pieces = self.chosen.len() + demanded.len();
        // Placements with no optional idle piece: the demanded cells'
        // choices only.
        let fewest: u64 = demanded.iter().map(|&c| idle[c].len() as u64).product();
        let fewest_placement = || -> Placement {
            let mut sol: Placement = self
                .chosen
                .iter()
                .map(|&i| (problem.patterns[i].cell, problem.patterns[i].kind))
                .collect();
            sol.extend(demanded.iter().map(|&c| (c, idle[c][0])));
            sol.sort_unstable();
            sol
        };
        let keep_minimal = match self.result.min_pieces {
            Some(m) if m < pieces => false,
            Some(m) if m == pieces => {
                self.result.min_count += fewest;
                self.result.minimal.len() < problem.limit
            }
            _ => {
                self.result.min_pieces = Some(pieces);
                self.result.min_count = fewest;
                self.result.minimal.clear();
                problem.limit > 0
            }
        };
        if keep_minimal {
            let sol = fewest_placement();
            self.result.minimal.push(sol);
        }
        self.result.count += ways;
        if let Some(cap) = problem.collect_cap {
            let shared = &self.ctx.shared;
            if shared.collected.fetch_add(ways, Ordering::Relaxed) + ways > cap {
                shared.cap_exceeded.store(true, Ordering::Relaxed);
                shared.stop.store(true, Ordering::Relaxed);
                return Err(Stop::Cap);
            }
            let base: Placement = self
                .chosen
                .iter()
                .map(|&i| (problem.patterns[i].cell, problem.patterns[i].kind))
                .collect();
            // Every choice of idle pieces: demanded cells take one of
            // theirs, free cells (strictly) none or one.
            let mut slots: Vec<Vec<Option<(usize, usize)>>> = Vec::new();
            for (c, kinds) in idle.iter().enumerate() {
                if self.kind_at[c].is_some() {
                    continue;
                }
                if self.must_hold[c] > 0 {
                    slots.push(kinds.iter().map(|&k| Some((c, k))).collect());
                } else if problem.strict && self.must_empty[c] == 0 && !kinds.is_empty() {
                    let mut v = vec![None];
                    v.extend(kinds.iter().map(|&k| Some((c, k))));
                    slots.push(v);
                }
            }
            let mut pick = vec![0usize; slots.len()];
            let all = self.result.all.get_or_insert_with(Vec::new);
            loop {
                let mut sol = base.clone();
                sol.extend(slots.iter().zip(&pick).filter_map(|(slot, &i)| slot[i]));
                sol.sort_unstable();
                all.push(sol);
                if !super::coverage::next_combination(&mut pick, |j| slots[j].len()) {
                    break;
                }
            }
        }
        if self.result.examples.len() < problem.limit {
            let sol = fewest_placement();
            self.result.examples.push(sol);
        }
        Ok(())
    }
}
