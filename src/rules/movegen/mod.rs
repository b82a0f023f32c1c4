//! Legal move generation and perft.
//!
//! A [`MoveGen`] generates the legal moves of any seat in a position of
//! its variant: the rules are in `legal`, written once; the board
//! representation is a backend — [`generic`] walks rays on any board,
//! [`fast64`] keeps every set of cells in one `word::Word` (`u64` on
//! boards of at most 64 cells, `u128` on boards of at most 128) and is
//! tested against the generic one. Moves can be generated all at once, or
//! captures (with promotions) and quiet moves separately ([`GenType`]).
//!
//! The [`Position`] methods [`Position::legal_moves`] and
//! [`Position::outcome`](crate::rules::outcome) are conveniences on a
//! per-thread generator.

pub mod check_lines;
pub mod fast64;
pub mod generic;
mod legal;
mod magics;
pub(crate) mod word;

use std::cell::RefCell;
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use crate::board::geometry::Cell;
use crate::board::seating::{Seat, SeatSet, Turn};
use crate::board::variant::Variant;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::position::{Position, TableBoard};
use crate::rules::{attacks, exchange};

pub use generic::Scratch;
use word::Word;

/// Which moves to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GenType {
    /// Every legal move.
    All,
    /// Captures (en passant included) and promotions.
    Captures,
    /// The other moves: neither capturing nor promoting (castling and
    /// double steps included).
    Quiets,
}

impl GenType {
    /// Whether captures and promotions are generated.
    #[inline(always)]
    pub fn captures(self) -> bool {
        self != GenType::Quiets
    }

    /// Whether the other moves are generated.
    #[inline(always)]
    pub fn quiets(self) -> bool {
        self != GenType::Captures
    }
}

/// Where generated moves go: a list, or just a count (perft's bulk
/// counting at the last ply needs no list).
pub trait MoveSink {
    /// Whether the order of the moves matters: a list's order is the
    /// search's tie-break, a count has none (so the generator may take
    /// the pieces in whatever order is fastest).
    const ORDERED: bool = true;
    /// Adds one move.
    fn push(&mut self, m: Move);
    /// Adds the plain moves `from → t` for every cell `t` of `targets`.
    #[inline(always)]
    fn push_targets<W: Word>(&mut self, from: Cell, mut targets: W) {
        while !targets.is_empty() {
            let to = targets.first();
            targets = targets.without_first();
            self.push(Move::normal(from, to));
        }
    }

    /// Adds the moves `to - delta → to` for every cell `to` of `targets`;
    /// double steps carry the passed cell `to - delta / 2` in `aux`.
    #[inline(always)]
    fn push_shifted<W: Word>(&mut self, mut targets: W, delta: i32, double: bool) {
        while !targets.is_empty() {
            let to = targets.first() as i32;
            targets = targets.without_first();
            let m = Move::normal((to - delta) as usize, to as usize);
            self.push(if double {
                Move {
                    aux: (to - delta / 2) as u16,
                    kind: MoveKind::DoubleStep,
                    ..m
                }
            } else {
                m
            });
        }
    }

    /// Adds the moves `f` pushes, `f` being out of line (a rare path
    /// such as promotions): a counter hands `f` a counter of its own, so
    /// that its own count never has its address taken inside the
    /// generator's loops and stays in a register there (taken, every
    /// move of a count became a store and a reload).
    #[inline(always)]
    fn push_out_of_line(&mut self, f: impl FnOnce(&mut Self)) {
        f(self)
    }
}

impl MoveSink for Vec<Move> {
    #[inline(always)]
    fn push(&mut self, m: Move) {
        Vec::push(self, m);
    }
}

/// A [`MoveSink`] that only counts.
#[derive(Debug, Default)]
pub struct MoveCounter(pub usize);

impl MoveSink for MoveCounter {
    const ORDERED: bool = false;

    #[inline(always)]
    fn push(&mut self, _: Move) {
        self.0 += 1;
    }

    #[inline(always)]
    fn push_targets<W: Word>(&mut self, _: Cell, targets: W) {
        self.0 += targets.count() as usize;
    }

    #[inline(always)]
    fn push_shifted<W: Word>(&mut self, targets: W, _: i32, _: bool) {
        self.0 += targets.count() as usize;
    }

    #[inline(always)]
    fn push_out_of_line(&mut self, f: impl FnOnce(&mut Self)) {
        let mut own = MoveCounter(0);
        f(&mut own);
        self.0 += own.0;
    }
}

/// The bitboard backend's tables of a variant, in the word its board
/// fits.
#[derive(Clone, Debug)]
enum FastTables {
    /// Boards of at most 64 cells.
    One(Arc<fast64::Tables<u64>>),
    /// Boards of 65 to 128 cells.
    Two(Arc<fast64::Tables<u128>>),
}

impl FastTables {
    /// The tables of `v`, if its board takes the bitboard backend.
    fn new(v: &Variant) -> Option<FastTables> {
        if v.geometry.cell_count() <= 64 {
            fast64::Tables::new(v).map(|t| FastTables::One(Arc::new(t)))
        } else {
            fast64::Tables::new(v).map(|t| FastTables::Two(Arc::new(t)))
        }
    }
}

/// Everything a generator derives from its variant, once per variant: the
/// search's threads, the thread-local generator of the front-ends and the
/// evaluation's set-wise attack count all hold the same tables (building
/// them takes 20–60 ms on the example boards, the magic search most).
#[derive(Debug)]
struct DerivedTables {
    fast: Option<FastTables>,
    sources: Option<Arc<generic::SourceSets>>,
    /// The futility pre-test's lines, built on its first question: only
    /// the search asks it, and perft, notation and the front-ends never
    /// pay for the table (4 ms on the 5-D diamond).
    check_lines: OnceLock<Option<check_lines::CheckLines>>,
}

/// The tables of the variants some generator still holds, by the
/// variant's [`Variant::uid`] (no two variants share one). Weak, so that a
/// variant nobody plays any more leaves nothing behind.
static DERIVED: std::sync::Mutex<Vec<(u64, std::sync::Weak<DerivedTables>)>> =
    std::sync::Mutex::new(Vec::new());

/// The tables of `v`: the ones already built for it, or new ones.
fn derived_tables(v: &Variant) -> Arc<DerivedTables> {
    // A thread that panicked while holding the list left it usable.
    let mut known = DERIVED.lock().unwrap_or_else(|p| p.into_inner());
    known.retain(|(_, w)| w.strong_count() > 0);
    if let Some(t) = known
        .iter()
        .find(|(uid, _)| *uid == v.uid)
        .and_then(|(_, w)| w.upgrade())
    {
        return t;
    }
    let t = Arc::new(DerivedTables {
        fast: FastTables::new(v),
        sources: generic::SourceSets::new(v).map(Arc::new),
        check_lines: OnceLock::new(),
    });
    known.push((v.uid, Arc::downgrade(&t)));
    t
}

/// The one-word bitboard tables of `v` (boards of at most 64 cells the
/// backend takes), shared with its generators.
pub(crate) fn one_word_tables(v: &Variant) -> Option<Arc<fast64::Tables<u64>>> {
    match &derived_tables(v).fast {
        Some(FastTables::One(t)) => Some(t.clone()),
        _ => None,
    }
}

/// The two-word bitboard tables of `v` (boards of 65 to 128 cells the
/// backend takes), shared with its generators.
pub(crate) fn two_word_tables(v: &Variant) -> Option<Arc<fast64::Tables<u128>>> {
    match &derived_tables(v).fast {
        Some(FastTables::Two(t)) => Some(t.clone()),
        _ => None,
    }
}

/// A move generator for the positions of one variant: the variant's
/// bitboard tables (boards of at most 128 cells) and the generic backend's
/// buffers. One per thread; cheap to build (the tables are shared: one
/// set per variant, `derived_tables`).
#[derive(Debug)]
pub struct MoveGen {
    uid: u64,
    fast: Option<FastTables>,
    /// The generic backend's source sets (when they fit its budget).
    sources: Option<Arc<generic::SourceSets>>,
    scratch: Scratch,
    /// The variant's shared tables (the fields above are clones of their
    /// handles, one indirection less in the hot paths); holding them keeps
    /// the variant's entry of [`DERIVED`] alive.
    derived: Arc<DerivedTables>,
}

impl MoveGen {
    /// A generator for the positions of `v`.
    pub fn new(v: &Variant) -> MoveGen {
        let derived = derived_tables(v);
        MoveGen {
            uid: v.uid,
            fast: derived.fast.clone(),
            sources: derived.sources.clone(),
            scratch: Scratch::new(v.geometry.cell_count()),
            derived,
        }
    }

    /// A generator for the positions of `v` that uses the generic backend
    /// without its source sets, as on boards beyond their budget (tests
    /// compare the two).
    #[cfg(test)]
    fn without_source_sets(v: &Variant) -> MoveGen {
        MoveGen {
            sources: None,
            ..MoveGen::new(v)
        }
    }

    /// Whether positions are generated by the bitboard backend (boards of
    /// at most 128 cells).
    pub fn uses_fast_path(&self) -> bool {
        self.fast.is_some()
    }

    /// Whether `cell` of `pos` is attacked by a piece whose attacks on
    /// `king_owner`'s king are check: set-wise on the bitboard backend's
    /// boards, else [`attacks::attacked_by_checkers`] (the search asks it
    /// at every node; the answers are the same, tested in
    /// `tests/rules/fast_path.rs`).
    #[inline]
    pub fn attacked_by_checkers(&self, pos: &Position, cell: Cell, king_owner: Seat) -> bool {
        match &self.fast {
            Some(FastTables::One(t)) => t.attacked_by_checkers(pos, cell, king_owner),
            Some(FastTables::Two(t)) => t.attacked_by_checkers(pos, cell, king_owner),
            None => {
                let board = TableBoard::of(pos);
                attacks::attacked_by_checkers(pos.variant(), cell, king_owner, |c| board.at(c))
            }
        }
    }

    /// The static exchange of the move `m` by the material values
    /// `values` ([`exchange::static_exchange`]: `None` with other than two
    /// seats): set-wise on the bitboard backend's boards, else the
    /// definition itself (the answers are the same, tested in
    /// `tests/rules/fast_path.rs`).
    #[inline]
    pub fn static_exchange(&self, pos: &Position, values: &[i32], m: &Move) -> Option<i32> {
        match &self.fast {
            Some(FastTables::One(t)) => t.static_exchange(pos, values, m),
            Some(FastTables::Two(t)) => t.static_exchange(pos, values, m),
            None => exchange::static_exchange(pos, values, m),
        }
    }

    /// Whether the static exchange of `m` lies below `t`
    /// ([`exchange::exchange_below`]: the exchange stopped as soon as its
    /// captures decide it; `None` with other than two seats).
    #[inline]
    pub fn exchange_below(&self, pos: &Position, values: &[i32], m: &Move, t: i32) -> Option<bool> {
        match &self.fast {
            Some(FastTables::One(tables)) => tables.exchange_below(pos, values, m, t),
            Some(FastTables::Two(tables)) => tables.exchange_below(pos, values, m, t),
            None => exchange::exchange_below(pos, values, m, t),
        }
    }

    /// Whether the seat to move in `pos` is in check
    /// ([`Position::in_check`], by [`MoveGen::attacked_by_checkers`]).
    #[inline]
    pub fn in_check(&self, pos: &Position) -> bool {
        let us = pos.to_move();
        pos.royal_cell(us)
            .is_some_and(|k| self.attacked_by_checkers(pos, k, us))
    }

    /// Whether the move `m` (a step or a capture) of the seat to move
    /// certainly gives no check, known before it is made
    /// ([`check_lines::CheckLines`]);
    /// `false` means "maybe" (make it and ask [`MoveGen::in_check`]),
    /// always so where the pre-test does not apply.
    #[inline]
    pub fn gives_no_check(&self, pos: &Position, m: &Move) -> bool {
        self.derived
            .check_lines
            .get_or_init(|| check_lines::CheckLines::new(pos.variant()))
            .as_ref()
            .is_some_and(|t| t.gives_no_check(pos, m))
    }

    /// Whether the generator was built for `v`.
    #[inline(always)]
    pub fn fits(&self, v: &Variant) -> bool {
        self.uid == v.uid
    }

    /// The legal moves of `us` of kinds `which` into `out` (appended).
    #[inline]
    pub fn generate_for(
        &mut self,
        pos: &Position,
        us: Seat,
        which: GenType,
        out: &mut impl MoveSink,
    ) {
        debug_assert!(self.fits(pos.variant()), "a generator of another variant");
        match &self.fast {
            // Chess's shape (two ray groups, two leap tables: also Chess960,
            // the cylinder and the torus) and the cube's (one, four) with
            // loops unrolled; every other with the tables' counts.
            Some(FastTables::One(t)) => match (t.shape(), t.walks()) {
                ((2, 2), false) => fast64::generate::<u64, 2, 2, false>(t, pos, us, which, out),
                ((1, 4), false) => fast64::generate::<u64, 1, 4, false>(t, pos, us, which, out),
                (_, false) => fast64::generate::<u64, 0, 0, false>(t, pos, us, which, out),
                (_, true) => fast64::generate::<u64, 0, 0, true>(t, pos, us, which, out),
            },
            // The torus has chess's shape and walks its diagonals;
            // Raumschach and the rest take the tables' counts.
            Some(FastTables::Two(t)) => match (t.shape(), t.walks()) {
                ((2, 2), true) => fast64::generate::<u128, 2, 2, true>(t, pos, us, which, out),
                (_, false) => fast64::generate::<u128, 0, 0, false>(t, pos, us, which, out),
                (_, true) => fast64::generate::<u128, 0, 0, true>(t, pos, us, which, out),
            },
            None => self.generate_generic_for(pos, us, which, out),
        }
    }

    /// The legal moves of `us` of kinds `which` into `out` (appended), by the
    /// generic backend on any board (the fast backend is tested against
    /// it).
    #[inline]
    pub fn generate_generic_for(
        &mut self,
        pos: &Position,
        us: Seat,
        which: GenType,
        out: &mut impl MoveSink,
    ) {
        let mut b = generic::Rays::new(pos, us, &mut self.scratch, self.sources.as_deref());
        legal::generate(pos, us, &mut b, which, out);
    }

    /// The legal moves of the seats deciding in `pos` into `out` (cleared
    /// first): the seat to move's, or in a turn where any of several seats
    /// may move, all of theirs.
    #[inline]
    pub fn generate(&mut self, pos: &Position, out: &mut Vec<Move>) {
        out.clear();
        out.reserve(64);
        match pos.turn() {
            crate::board::seating::Turn::One(s) => self.generate_for(pos, s, GenType::All, out),
            t => {
                for s in t.movers().iter() {
                    self.generate_for(pos, s, GenType::All, out);
                }
            }
        }
        if pos.variant().rules.party.is_some() {
            Self::party_moves(pos, out);
        }
    }

    /// The multi-party rules' changes to a move list: none when the game
    /// is decided by the seats out, the one step
    /// [`MoveKind::Out`](crate::rules::moves::MoveKind::Out) for a seat
    /// without a move that leaves a game going on without it.
    #[cold]
    fn party_moves(pos: &Position, out: &mut Vec<Move>) {
        if pos.party_decided() {
            out.clear();
        } else if out.is_empty() && pos.leaves_and_game_goes_on() {
            out.push(Move::OUT);
        }
    }

    /// The moves of kinds `which` of the seats deciding in `pos` into `out`
    /// (cleared first).
    #[inline]
    pub fn generate_kind(&mut self, pos: &Position, which: GenType, out: &mut Vec<Move>) {
        out.clear();
        for s in pos.movers().iter() {
            self.generate_for(pos, s, which, out);
        }
    }

    /// Number of legal moves of the seats deciding in `pos` (bulk counting:
    /// no list is built, but in multi-party games, whose rules change the
    /// list (a seat without a move leaves); `list` is scratch space for
    /// those).
    #[inline]
    pub fn count(&mut self, pos: &Position, list: &mut Vec<Move>) -> usize {
        if pos.variant().rules.party.is_some() {
            self.generate(pos, list);
            return list.len();
        }
        let mut counter = MoveCounter::default();
        if let Turn::One(s) = pos.turn() {
            // One seat moves (every sequential game): no loop over seats.
            self.generate_for(pos, s, GenType::All, &mut counter);
            return counter.0;
        }
        for s in pos.movers().iter() {
            self.generate_for(pos, s, GenType::All, &mut counter);
        }
        counter.0
    }

    /// Whether any seat of `seats` has a legal move.
    pub fn any_move(&mut self, pos: &Position, seats: SeatSet) -> bool {
        let mut counter = MoveCounter::default();
        for s in seats.iter() {
            self.generate_for(pos, s, GenType::All, &mut counter);
            if counter.0 > 0 {
                return true;
            }
        }
        false
    }
}

thread_local! {
    static GENERATOR: RefCell<Option<MoveGen>> = const { RefCell::new(None) };
}

/// Runs `f` with this thread's generator for `v` (built on first use and
/// whenever the variant changes).
pub fn with_generator<R>(v: &Variant, f: impl FnOnce(&mut MoveGen) -> R) -> R {
    GENERATOR.with(|g| {
        let mut g = g.borrow_mut();
        if !g.as_ref().is_some_and(|m| m.fits(v)) {
            *g = Some(MoveGen::new(v));
        }
        f(g.as_mut().expect("invariant: set just above"))
    })
}

impl Position {
    /// Legal moves of the seats deciding now.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        with_generator(self.variant(), |g| g.generate(self, &mut out));
        out
    }

    /// Legal moves of `seat` (whether or not it decides now: in a
    /// simultaneous turn every seat's moves are its moves with the others
    /// standing still).
    pub fn legal_moves_of(&self, seat: Seat) -> Vec<Move> {
        let mut out = Vec::new();
        with_generator(self.variant(), |g| {
            g.generate_for(self, seat, GenType::All, &mut out)
        });
        out
    }
}

/// The longest beginning of `line` whose moves are legal one after the
/// other from `pos` (a line taken from a hash table can end in a move of
/// another position).
pub fn legal_prefix(pos: &Position, line: &[Move]) -> Vec<Move> {
    let mut p = pos.clone();
    let mut out = Vec::with_capacity(line.len());
    let mut list = Vec::new();
    with_generator(pos.variant(), |g| {
        for &m in line {
            g.generate(&p, &mut list);
            if !list.contains(&m) {
                break;
            }
            out.push(m);
            p.make(m);
        }
    });
    out
}

fn perft_inner(pos: &mut Position, depth: u32, g: &mut MoveGen, lists: &mut [Vec<Move>]) -> u64 {
    let (list, rest) = lists
        .split_first_mut()
        .expect("invariant: one move list per remaining ply");
    if depth == 1 {
        return g.count(pos, list) as u64;
    }
    g.generate(pos, list);
    let mut nodes = 0;
    if pos.counted_moves_apply() {
        // Two seats alternating: the lean make and take-back (the turn
        // stays with two seats in the main phase below too).
        for &m in list.iter() {
            let undo = pos.make_counted(m);
            nodes += perft_inner(pos, depth - 1, g, rest);
            pos.unmake_counted(m, undo);
        }
        return nodes;
    }
    for &m in list.iter() {
        // Nothing below reads the hash before the take-back restores it.
        pos.make_unhashed(m);
        nodes += perft_inner(pos, depth - 1, g, rest);
        pos.unmake();
    }
    nodes
}

/// Number of leaf nodes of the legal move tree of depth `depth` (bulk
/// counting at the last ply).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    // The thread's generator: the root moves of a divided perft share
    // one per thread instead of building the tables once per move.
    let v = pos.variant().clone();
    let mut lists = vec![Vec::new(); depth as usize];
    with_generator(&v, |g| perft_inner(pos, depth, g, &mut lists))
}

/// Perft split by root move, the root moves searched in parallel by rayon
/// on `threads` threads (0 = rayon's default).
pub fn perft_divide(
    pos: &Position,
    depth: u32,
    threads: usize,
) -> Result<Vec<(Move, u64)>, rayon::ThreadPoolBuildError> {
    perft_divide_with_progress(pos, depth, threads, |_, _| {})
}

/// [`perft_divide`], calling `done(move, count)` as each root move finishes
/// (from the worker threads), so long runs can report progress.
pub fn perft_divide_with_progress(
    pos: &Position,
    depth: u32,
    threads: usize,
    done: impl Fn(Move, u64) + Sync,
) -> Result<Vec<(Move, u64)>, rayon::ThreadPoolBuildError> {
    perft_divide_with(pos, depth, threads, None, done)
}

/// [`perft_divide_with_progress`], with a transposition table shared by
/// the threads when one is given.
pub fn perft_divide_with(
    pos: &Position,
    depth: u32,
    threads: usize,
    table: Option<&crate::rules::perft_table::PerftTable>,
    done: impl Fn(Move, u64) + Sync,
) -> Result<Vec<(Move, u64)>, rayon::ThreadPoolBuildError> {
    let moves = pos.legal_moves();
    if depth <= 1 {
        return Ok(moves.into_iter().map(|m| (m, 1)).collect());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    Ok(pool.install(|| {
        moves
            .par_iter()
            .map(|&m| {
                let mut p = pos.clone();
                p.make(m);
                let n = match table {
                    Some(t) => crate::rules::perft_table::perft_hashed(&mut p, depth - 1, t),
                    None => perft(&mut p, depth - 1),
                };
                done(m, n);
                (m, n)
            })
            .collect()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry;

    /// The search's attack test (set-wise on the bitboard backend's
    /// boards) against
    /// the rule's walk, attacks::attacked_by_checkers: every cell, every
    /// seat's king safety, on the positions of fixed random games of every
    /// example board (boards beyond 300 cells skipped for time).
    #[test]
    fn the_search_attack_test_agrees_with_the_rule() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for spec in registry::example_specs() {
            let v = registry::build(spec).expect("a registered variant");
            let cells = v.geometry.cell_count();
            if cells > 300 || v.rules.party.is_some() && cells > 200 {
                continue;
            }
            let mut movegen = MoveGen::new(&v);
            let mut moves = Vec::new();
            for _ in 0..4 {
                let mut pos = Position::start(&v);
                for _ in 0..60 {
                    for seat in v.seating.seats() {
                        for cell in 0..cells {
                            let rule =
                                attacks::attacked_by_checkers(&v, cell, seat, |c| pos.piece_at(c));
                            assert_eq!(
                                movegen.attacked_by_checkers(&pos, cell, seat),
                                rule,
                                "{spec}: {} against seat {}",
                                v.geometry.cell_name(cell),
                                seat.index()
                            );
                        }
                    }
                    assert_eq!(movegen.in_check(&pos), pos.in_check(), "{spec}");
                    movegen.generate(&pos, &mut moves);
                    if moves.is_empty() {
                        break;
                    }
                    pos.make(moves[rng.random_range(0..moves.len())]);
                }
            }
        }
    }

    /// The generic backend's contact tests by source sets (checks at
    /// set-up, the safety of king targets) against the rule's walk over
    /// the source lists: the same moves, in the same order, for every
    /// seat of every position of fixed random games, on boards with and
    /// without wrapping lines, with several enemies and on a board of the
    /// fast path. (The slider signatures, used by both, are checked by
    /// the agreement with the reference generator, tests/rules.)
    #[test]
    fn source_sets_and_source_lists_give_the_same_moves() {
        for spec in [
            "diamond:n=3",
            "diamond:n=3,setup=8.3",
            "torus",
            "cylinder-diamond",
            "torus-diamond",
            "double-diamond",
            "diamond:n=3,l=10,players=6",
            "raumschach",
            "chess",
        ] {
            let v = registry::build(spec).expect("a registered variant");
            let mut with_sets = MoveGen::new(&v);
            assert!(with_sets.sources.is_some(), "{spec}: sets within budget");
            let mut with_lists = MoveGen::without_source_sets(&v);
            let mut pos = Position::start(&v);
            // A fixed linear congruential stream picks the moves played.
            let mut seed = 0x2545_F491_4F6C_DD1Du64;
            for ply in 0..120 {
                for s in v.seating.seats() {
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    with_sets.generate_generic_for(&pos, s, GenType::All, &mut a);
                    with_lists.generate_generic_for(&pos, s, GenType::All, &mut b);
                    assert_eq!(a, b, "{spec} ply {ply} seat {s:?}: {}", pos.to_text());
                }
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                pos.make(moves[(seed >> 33) as usize % moves.len()]);
            }
        }
    }

    /// Perft's unhashed make leaves nothing behind: after
    /// `make_unhashed` and `unmake` every move of random games on boards
    /// of each backend finds the position (text and hash) as it was; and
    /// perft's lean make of two alternating seats (`make_counted`) makes
    /// the position `make` makes (its text: pieces, rights, en passant,
    /// clocks, turn) and its take-back restores text and hash.
    #[test]
    fn unhashed_make_and_unmake_restore_the_position() {
        for spec in [
            "chess",
            "chess960:sp=518",
            "cube",
            "cylinder",
            "torus",
            "diamond:n=3",
        ] {
            let v = registry::build(spec).expect("a registered variant");
            let mut pos = Position::start(&v);
            // A fixed linear congruential stream picks the moves played.
            let mut seed = 0x9E37_79B9_7F4A_7C15u64;
            for _ in 0..60 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let (text, hash) = (pos.to_text(), pos.hash());
                for &m in &moves {
                    pos.make_unhashed(m);
                    pos.unmake();
                    assert_eq!(
                        (pos.to_text(), pos.hash()),
                        (text.clone(), hash),
                        "{spec} {m:?}"
                    );
                    assert!(pos.counted_moves_apply(), "{spec}: two seats alternate");
                    pos.make(m);
                    let after = pos.to_text();
                    pos.unmake();
                    let undo = pos.make_counted(m);
                    assert_eq!(pos.to_text(), after, "{spec} {m:?}: make_counted");
                    pos.unmake_counted(m, undo);
                    assert_eq!(
                        (pos.to_text(), pos.hash()),
                        (text.clone(), hash),
                        "{spec} {m:?}: unmake_counted"
                    );
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                pos.make(moves[(seed >> 33) as usize % moves.len()]);
            }
        }
    }
}
