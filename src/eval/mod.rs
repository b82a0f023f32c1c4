//! Mobility-based evaluation, generic over every variant.
//!
//! The piece values are not typed in per variant: they are measured when a
//! variant is set up, with seed 001's theory ("Schach hoch 3"): a piece is
//! worth what it can reach. [`density_mobility`] walks the same empty-board
//! move sets as [`crate::theory::mobility`] (`ndchess mobility`), but weights the
//! `i`-th cell of a sliding ray by `(1 - ρ)^(i-1)`, the chance that the cells
//! before it are empty on a board filled to density `ρ`. With `ρ = 0` it is
//! exactly the seed's average mobility (a test checks this for every
//! variant); the engine uses half the start position's density, the typical
//! fill of a game in progress, so that the long wrap-around rays of a torus
//! bishop do not count as if the board were empty.
//!
//! On top of the material, these terms (docs/engine.md lists the
//! weights and why):
//! - mobility: each piece is credited for every cell it attacks (not held by
//!   its own side) above the mobility its value assumed, and debited below;
//! - pawn progress: a pawn gains value as it nears its promotion cells,
//!   measured in pawn moves on the actual board shape;
//! - king safety: enemy attacks on the king's neighbourhood (the cells a king
//!   step reaches, in any dimension), offset by own defenders, scaled by the
//!   enemy's remaining piece material; in the endgame the same neighbourhood
//!   measures how boxed-in a king is, and the side ahead brings its king
//!   closer;
//! - centrality: each piece is worth the mobility of the cell it stands
//!   on (measured like the values, cell by cell) above or below its kind's
//!   average: piece-square values that no table types in;
//! - threats: a piece attacked by an enemy pawn loses a fraction of its
//!   value, one attacked and not defended half that;
//! - pawn structure: a doubled or isolated pawn (files as the pawns'
//!   pushes make them on any board) loses a fraction of its value;
//! - open lines: a piece sliding along a pawn line (the rook's file) with
//!   no own pawn on it earns a bonus, twice that with no pawn at all;
//! - tempo: a small bonus for the side to move;
//! - tables ([`tables`]): piece-square, passed-pawn, mobility-by-count and
//!   pair values per kind where the weights have them (chess's fitted
//!   weights do), each with an opening and an endgame value.
//!
//! Every term but the tempo and the tables has two phase scales (opening,
//! endgame; 1 and 1 by default): between them the term's scale follows
//! the share of the start's piece material on the board.
//!
//! Scores are centipawn-like integers from the point of view of the player to
//! move; with more than two players every enemy's score is subtracted
//! (paranoid view).

use std::sync::Arc;

use crate::board::geometry::{Cell, CellTable, Geometry, RayTable};
use crate::board::piece::{EMPTY, NO_CELL, is_piece_of, piece, piece_kind, piece_seat};
use crate::board::seating::{MAX_SEATS, Seat};
use crate::board::variant::Variant;
use crate::rules::attacks;
use crate::rules::movegen::{self, word::Word};
use crate::rules::position::Position;
use crate::theory::mobility;

mod open_lines;
mod pawn_structure;
mod set_wise;
pub mod tables;
pub mod tune;
pub mod weights;

use open_lines::OpenLines;
use pawn_structure::PawnFiles;
use set_wise::SetWiseAttacks;
use tables::{Entries, NoSink, PHASE_FULL, Sink, TableTerms, tapered};

pub use weights::EvalWeights;

/// Centipawns per expected move of a piece (knight, bishop, rook, queen, …):
/// 300 / 5.25 puts the classical knight (seed 001: 336 moves over 64 cells,
/// never blocked) at the traditional three pawns. This and
/// [`PAWN_CP_PER_MOVE`] are the only calibration, done once on the 8x8
/// board; every value of every variant is then measured.
pub const PIECE_CP_PER_MOVE: f64 = 300.0 / (336.0 / 64.0);
/// Centipawns per empty-board move of a pawn: 100 / 2.9167 puts the
/// classical pawn (seed 001: 140 moves over 48 cells) at 100.
pub const PAWN_CP_PER_MOVE: f64 = 100.0 / (140.0 / 48.0);
/// The board is taken to be this fraction as full as in the start position
/// when piece values are measured.
pub const DENSITY_FACTOR: f64 = 0.5;
/// Mobility credit per attacked cell above (debit below) expectation, as a
/// fraction of [`PIECE_CP_PER_MOVE`].
pub const MOBILITY_FRACTION: f64 = 0.1;
/// Fraction of the promotion gain a pawn earns on the cell before promotion
/// (the bonus grows with the square of its progress).
pub const PROGRESS_FRACTION: f64 = 0.25;
/// Fraction of the promotion gain a passed pawn earns on top of its
/// progress next to promotion (the same curve as the progress). Off by
/// default: at ¼ it lost a match against the engine without it
/// (docs/performance.md, "Strength, step by step"); the tuner and a
/// weights file can set it.
pub const PASSED_FRACTION: f64 = 0.0;
/// The most bitboard words the passed-pawn masks of a variant may take
/// (8 MB); beyond it the evaluation has no passed-pawn term.
pub const MAX_PASSED_WORDS: usize = 1 << 20;
/// Centipawns per unit of king danger (see `Evaluator::king_terms`).
pub const KING_DANGER_CP: i32 = 12;
/// Centipawns per free cell around a king in the endgame.
pub const KING_ESCAPE_CP: i32 = 10;
/// Centipawns per step of king distance saved by the side ahead.
pub const KING_PROXIMITY_CP: i32 = 8;
/// Bonus of the side to move.
pub const TEMPO_CP: i32 = 10;
/// Worth of a cell's own mobility above or below the kind's average, as
/// a fraction of [`PIECE_CP_PER_MOVE`] (see [`cell_mobility`]). Off by
/// default: at ¼ it was undecided in chess (+12.7 ± 22.6 Elo) and lost
/// heavily on the 3-D diamond, whose border cells have far fewer moves
/// than its middle (docs/performance.md); a weights file can set it.
pub const CENTRALITY_FRACTION: f64 = 0.0;
/// Fraction of its value a piece loses where an enemy pawn attacks it;
/// half of it where it is attacked and not defended (see
/// `Evaluator::seat_terms`).
pub const THREAT_FRACTION: f64 = 0.1;
/// Fraction of its value a doubled pawn loses (see `pawn_structure`).
pub const DOUBLED_FRACTION: f64 = 0.0;
/// Fraction of its value an isolated pawn loses (see `pawn_structure`).
pub const ISOLATED_FRACTION: f64 = 0.0;
/// Worth of a piece on a half-open pawn line, as a fraction of
/// [`PIECE_CP_PER_MOVE`], as much again on an open one (see
/// `open_lines`).
pub const OPEN_LINE_FRACTION: f64 = 0.0;
/// Centipawns per square of the king danger (normalised to a 9-cell
/// zone), on top of [`KING_DANGER_CP`] per unit.
pub const KING_DANGER_SQUARE_CP: f64 = 0.0;
/// Static evaluations are clamped to ±this, far below the game-theoretic
/// scores of [`crate::search`].
pub const EVAL_LIMIT: i32 = 100_000;

/// Which terms the evaluation uses (material is always on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalConfig {
    /// Dynamic mobility.
    pub mobility: bool,
    /// Pawn progress towards promotion.
    pub pawn_progress: bool,
    /// King safety and endgame king activity.
    pub king_safety: bool,
    /// Tempo bonus.
    pub tempo: bool,
}

impl EvalConfig {
    /// Every term.
    pub const FULL: EvalConfig = EvalConfig {
        mobility: true,
        pawn_progress: true,
        king_safety: true,
        tempo: true,
    };
    /// Material only (for matches that measure what the other terms bring).
    pub const MATERIAL: EvalConfig = EvalConfig {
        mobility: false,
        pawn_progress: false,
        king_safety: false,
        tempo: false,
    };
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig::FULL
    }
}

/// Average mobility of `kind` (player 0) on a board filled to density `rho`:
/// the `i`-th cell of a ray counts `(1 - rho)^(i-1)`; leaps, steps and pawn
/// moves count 1. A cell reached along several rays (wrap-around boards)
/// counts once, with its best weight. The cells a kind may stand on and the
/// average over them are those of [`mobility::kind_mobility`].
pub fn density_mobility(v: &Variant, kind: usize, rho: f64) -> f64 {
    let m = mobility::kind_mobility(v, Seat::FIRST, kind);
    let k = &v.kinds[kind];
    if k.pawn.is_some() || k.slides.is_empty() {
        // Nothing to block: the seed's count as it is.
        return m.total() as f64 / m.cells().max(1) as f64;
    }
    let per_cell = cell_mobility(v, kind, rho);
    let (sum, standing) = (0..per_cell.len())
        .filter(|&c| m.class_of[c] != usize::MAX)
        .fold((0.0, 0usize), |(sum, n), c| (sum + per_cell[c], n + 1));
    sum / standing.max(1) as f64
}

/// Mobility of a piece of `kind` from each cell on a board filled to
/// density `rho`, counted as [`density_mobility`] counts it (whose
/// average over the cells this is); empty for pawns, whose moves depend
/// on the seat (their progress is a term of its own).
pub fn cell_mobility(v: &Variant, kind: usize, rho: f64) -> Vec<f64> {
    let k = &v.kinds[kind];
    if k.pawn.is_some() {
        return Vec::new();
    }
    let g = &v.geometry;
    let cells = g.cell_count();
    let keep = 1.0 - rho.clamp(0.0, 1.0);
    let mut best = vec![0.0f64; cells];
    let mut touched: Vec<Cell> = Vec::new();
    (0..cells)
        .map(|c| {
            if let Some(table) = v.leap_table(kind) {
                for &t in table.get(c) {
                    let t = t as usize;
                    if best[t] == 0.0 {
                        touched.push(t);
                    }
                    best[t] = 1.0;
                }
            }
            for &d in &k.slides {
                let mut w = 1.0;
                for &t in g.ray(c, d) {
                    let t = t as usize;
                    if best[t] == 0.0 {
                        touched.push(t);
                    }
                    if w > best[t] {
                        best[t] = w;
                    }
                    w *= keep;
                }
            }
            let mut sum = 0.0;
            for t in touched.drain(..) {
                sum += best[t];
                best[t] = 0.0;
            }
            sum
        })
        .collect()
}

/// The attacks of a seat's pieces of one kind on a board of more than one
/// word: the cells [`attacks::for_each_attack`] visits for a piece that is
/// no pawn (its leaps, then its slides up to and including the first
/// occupied cell), each counted in the seat's row of attacks. Bound once
/// per seat and called once per kind, it asks one bit per visited cell
/// whether the cell counts for mobility (the cells' own pieces and the
/// enemy pawns' attacks marked before the walk, not decoded per visit),
/// tells where a slide stops from the same entry ([`OCCUPIED`]) instead
/// of reading the board, and leaves the mobility points to the caller,
/// after the kind's walk.
struct AttackWalk<'a> {
    /// The seat's attacks per cell (saturating where they could pass a
    /// byte, see [`AttackWalk::walk`]).
    attacks: &'a mut [u8],
    /// Per cell, the seats whose pawns attack it, the seats for which it
    /// is not free and whether a piece stands on it
    /// ([`EvalScratch::pawn_mask`]).
    pawn_mask: &'a [u32],
    /// The seat's bit among the seats for which a cell is not free.
    blocked: u32,
}

impl AttackWalk<'_> {
    /// Counts the attacks of the pieces on `cells`, of a kind with leap
    /// table `leaps` and slide rays `rays`; pushes onto `mobility` each
    /// piece's mobility: the cells visited that hold no own piece and
    /// that no enemy pawn attacks. `UNBOUNDED`: the counts may pass a
    /// byte's range and saturate; else they are known to fit
    /// ([`max_piece_visits`]) and are added plainly, the walk's most
    /// frequent store without its test.
    #[inline(always)]
    fn walk<const UNBOUNDED: bool>(
        &mut self,
        g: &Geometry,
        leaps: Option<&CellTable>,
        rays: &RayTable,
        cells: &[u16],
        mobility: &mut Vec<i32>,
    ) {
        let len = self.attacks.len();
        debug_assert_eq!(self.pawn_mask.len(), len);
        let blocked = self.blocked;
        let (att, pawn_mask) = (&mut *self.attacks, self.pawn_mask);
        g.assert_holds(rays);
        for &c in cells {
            let c = c as usize;
            let mut count = 0i32;
            // Every `t` comes from the variant's tables, whose cells are
            // below the cell count, the length of `att` and `pawn_mask`.
            // Returns the cell's entry of `pawn_mask`.
            let mut visit = |t: usize| {
                debug_assert!(t < len, "a cell outside the board");
                // SAFETY: `t < len` (above).
                unsafe {
                    let a = att.get_unchecked_mut(t);
                    *a = if UNBOUNDED {
                        a.saturating_add(1)
                    } else {
                        a.wrapping_add(1)
                    };
                    let mask = *pawn_mask.get_unchecked(t);
                    if mask & blocked == 0 {
                        count += 1;
                    }
                    mask
                }
            };
            if let Some(table) = leaps {
                for &t in table.get(c) {
                    visit(t as usize);
                }
            }
            for &r in rays.get(c) {
                // SAFETY: `r` is a ray of `rays`, which `g` holds (above).
                for &t in unsafe { g.ray_cells_unchecked(r) } {
                    if visit(t as usize) & OCCUPIED != 0 {
                        break;
                    }
                }
            }
            mobility.push(count);
        }
    }
}

/// The most times the attacks of one piece ([`attacks::for_each_attack`])
/// visit one cell, over every seat, kind and cell, on the empty board: a
/// fuller board only cuts slides short, so no position visits a cell more
/// often. Only a pawn's attacks depend on its seat; the other kinds are
/// walked for the first seat alone.
fn max_piece_visits(v: &Variant) -> u32 {
    let cells = v.geometry.cell_count();
    let mut visits = vec![0u32; cells];
    let mut touched = Vec::new();
    let mut most = 0;
    for (kind, k) in v.kinds.iter().enumerate() {
        let seats = v
            .seating
            .seats()
            .take(if k.pawn.is_some() { usize::MAX } else { 1 });
        for seat in seats {
            for from in 0..cells {
                attacks::for_each_attack(
                    v,
                    piece(seat, kind),
                    from,
                    |_| EMPTY,
                    |t| {
                        if visits[t] == 0 {
                            touched.push(t);
                        }
                        visits[t] += 1;
                        most = most.max(visits[t]);
                    },
                );
                for t in touched.drain(..) {
                    visits[t] = 0;
                }
            }
        }
    }
    most
}

/// Makes `v` `n` zeros, in place where it has that length already (the
/// scratch buffers keep their length from one evaluation to the next;
/// filling them is cheaper than emptying and growing them again).
#[inline(always)]
fn zeroed<T: Copy + Default>(v: &mut Vec<T>, n: usize) {
    if v.len() == n {
        v.fill(T::default());
    } else {
        v.clear();
        v.resize(n, T::default());
    }
}

/// Calls `f` for every cell in both `a` and `b` (bitboard words), in
/// increasing order.
#[inline(always)]
fn for_each_of_both(a: &[u64], b: &[u64], mut f: impl FnMut(usize)) {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let mut w = x & y;
        while w != 0 {
            f(i * 64 + w.trailing_zeros() as usize);
            w &= w - 1;
        }
    }
}

/// Where the seats for which a cell is not free start in an
/// [`EvalScratch::pawn_mask`] entry (the seats whose pawns attack it take
/// the bits below).
const BLOCKED_SHIFT: usize = 16;
/// The bit of an [`EvalScratch::pawn_mask`] entry set where a piece
/// stands (above the seats' bits): where the attack walk's slides stop.
const OCCUPIED: u32 = 1 << 31;
const _: () = assert!(MAX_SEATS <= BLOCKED_SHIFT && BLOCKED_SHIFT + MAX_SEATS <= 31);

/// Per-variant evaluation tables, built once when a variant is set up.
#[derive(Debug)]
pub struct Evaluator {
    variant: Arc<Variant>,
    config: EvalConfig,
    /// Material value of each kind in centipawns (0 for the royal kind).
    values: Vec<i32>,
    /// Expected mobility of each kind at the typical density, in 1/16 moves.
    expected16: Vec<i32>,
    /// Centipawns per attacked cell, in 1/16.
    mobility_cp16: i32,
    /// Pawn progress bonus, `[player][kind][cell]` (empty for non-pawns).
    progress: Vec<Vec<Vec<i32>>>,
    /// Passed pawns: per `player * kinds + kind` (empty for non-pawns; no
    /// entry at all when the weight is 0 or the board is too large for
    /// the masks), per cell its
    /// bitboard words of the cells where an enemy pawn stops a pawn there
    /// (see [`Evaluator::passed_tables`]).
    passed_masks: Vec<Vec<u64>>,
    /// The bonus of a passed pawn, `[player][kind][cell]`.
    passed_bonus: Vec<Vec<Vec<i32>>>,
    /// Files of the pawns, per `player * kinds + kind` (`None` for
    /// non-pawns, and for every kind when both structure weights are 0 or
    /// the board is too large for the masks).
    pawn_files: Vec<Option<PawnFiles>>,
    /// Per kind: what a doubled pawn of it loses.
    doubled_cp: Vec<i32>,
    /// Per kind: what an isolated pawn of it loses.
    isolated_cp: Vec<i32>,
    /// The pieces' pawn lines (`None` when the weight is 0 or no piece
    /// slides along a pawn's line).
    open_lines: Option<OpenLines>,
    /// Worth of a half-open line (rounded weight); an open one counts it
    /// twice.
    open_line_cp: i32,
    /// Per kind, per cell: the piece's worth there above or below its
    /// value, from the cell's own mobility (empty for pawns, kings, and
    /// every kind when the weight is 0).
    centrality: Vec<Vec<i32>>,
    /// Piece material (non-pawn, non-royal) of each player at the start.
    start_piece_material: Vec<i32>,
    /// Whether the king steps diagonally (Chebyshev) or only along axes
    /// (Manhattan): the metric of king distance.
    king_diagonal_dims: usize,
    /// The largest king distance on this board.
    max_king_distance: i32,
    /// The weights the tables were built with.
    weights: EvalWeights,
    /// Centipawns per unit of king danger (rounded weight).
    king_danger_cp: i32,
    /// Centipawns per square unit of king danger, in 1/16.
    king_danger_square16: i64,
    /// Centipawns per free cell around an endgame king (rounded weight).
    king_escape_cp: i32,
    /// Centipawns per step of king distance (rounded weight).
    king_proximity_cp: i32,
    /// Bonus of the side to move (rounded weight).
    tempo_cp: i32,
    /// Threat penalty per centipawn of the threatened piece, in 1/1024.
    threat1024: i32,
    /// Set-wise attack counting, on boards of one word where it is exact
    /// (with the whole evaluation on words).
    one_word: Option<SetWiseAttacks<u64>>,
    /// Set-wise attack counting, on boards of two words where it is exact
    /// (the attacks only: the rest takes the generic path).
    two_word: Option<SetWiseAttacks<u128>>,
    /// On the boards that take the generic walk (more than two words, or
    /// a set-wise count that would differ): the most times the attacks of
    /// one piece visit one cell (on the empty board, where every slide is
    /// longest; more than once where two rays meet, as a rook's on a
    /// cylinder's rank; 0 elsewhere, unused). A seat whose pieces times
    /// this fit in a byte cannot overflow its per-cell count, which is
    /// then added without the saturation test ([`max_piece_visits`]).
    piece_visits: u32,
    /// On boards of one or two words: every per-cell term of a piece in
    /// one entry, `[(seat · kinds + kind) · bits + cell]`, `bits` the
    /// word's 64 or 128 cells (see [`PieceSquare`]).
    piece_square: Vec<PieceSquare>,
    /// Per `seat · kinds + kind`: whether any of its [`PieceSquare`]
    /// entries is not zero.
    piece_square_used: Vec<bool>,
    /// Per seat: the seats that may capture its pieces, as bits.
    enemies: [u16; MAX_SEATS],
    /// Per seat: the seats whose pieces it may capture, as bits (the
    /// seats `q` with this seat among `enemies[q]`), shifted into the
    /// high half of a [`EvalScratch::pawn_mask`] entry: the seats for
    /// which a cell this seat's pawn attacks is not free.
    prey_blocked: [u32; MAX_SEATS],
    /// Per kind: whether it leaps or slides (a pawn that does has its
    /// attacks walked by attacks::for_each_attack; the others' are its
    /// capture cells).
    kind_leaps_or_slides: Vec<bool>,
    /// The least positive kind value (100 if none): the material lead
    /// from which a king hunts the bare enemy king is twice this.
    least_value: i32,
    /// The tables of the weights that apply to this variant, if any.
    tables: Option<TableTerms>,
    /// The phase scales of the terms (in the order of
    /// [`weights::TERMS`], opening then endgame), in 1/65536.
    scales: [i64; 2 * weights::TERMS.len()],
    /// Whether any phase scale is not 1.
    scaled: bool,
}

/// Reusable buffers of the evaluation (one per search thread).
#[derive(Debug, Default)]
pub struct EvalScratch {
    /// `attacks[player * cells + cell]`: number of the player's pieces
    /// attacking the cell (saturating; on boards of more than one word
    /// the count cannot pass a byte in most positions and is then added
    /// without the test, [`Evaluator::piece_visits`]).
    attacks: Vec<u8>,
    /// Per cell: bit `p` set when a pawn of player `p` attacks it; bit
    /// [`BLOCKED_SHIFT`]` + p` set when the cell is not free for player
    /// `p`'s mobility (it holds one of `p`'s pieces, or a pawn of a seat
    /// that may capture `p`'s pieces attacks it), so that the attack walk
    /// asks one bit per visited cell (boards of more than one word); bit
    /// [`OCCUPIED`] set where any piece stands.
    pawn_mask: Vec<u32>,
    /// Per seat, the pawns of the seats that may capture it (bitboard
    /// words, seat after seat): what stops its passed pawns.
    enemy_pawns: Vec<u64>,
    /// The own pawns of one kind (bitboard words), for the structure.
    own_pawns: Vec<u64>,
    /// The passed pawns pass 1 found, as (seat, kind, cell) in the order
    /// it met them: the free-passer test asks only them.
    passed: Vec<(usize, usize, usize)>,
    /// Every seat's pawns (bitboard words, seat after seat), then the
    /// pawns of one seat's enemies: for the open lines.
    line_pawns: Vec<u64>,
    /// Boards of more than one word: the cells of each seat's pieces of
    /// each kind, in rising order, read off the bitboards once per
    /// evaluation ([`PieceLists`]) for the passes that each walked them.
    piece_cells: Vec<u16>,
    /// Where each (seat, kind)'s cells start in `piece_cells`
    /// (`seats * kinds + 1` offsets).
    piece_starts: Vec<u32>,
    /// The mobility of each piece of one kind ([`AttackWalk::walk`]).
    mobility: Vec<i32>,
}

/// The cells of every seat's pieces of every kind, in rising order, from
/// the scratch's lists: a board of many words (the 4-D diamond's 17) is
/// scanned once per evaluation instead of once per pass and term.
struct PieceLists<'a> {
    cells: &'a [u16],
    starts: &'a [u32],
    kinds: usize,
}

impl<'a> PieceLists<'a> {
    /// Fills the lists of `pos` into the scratch's buffers.
    fn fill(pos: &Position, cells: &mut Vec<u16>, starts: &mut Vec<u32>) {
        let v = pos.variant();
        cells.clear();
        starts.clear();
        for seat in v.seating.seats() {
            let own = pos.seat_bits(seat);
            for kind in 0..v.kinds.len() {
                starts.push(cells.len() as u32);
                for_each_of_both(own, pos.kind_bits(kind), |c| cells.push(c as u16));
            }
        }
        starts.push(cells.len() as u32);
    }

    /// Seat `p`'s pieces of `kind`.
    #[inline(always)]
    fn of(&self, p: usize, kind: usize) -> &'a [u16] {
        let i = p * self.kinds + kind;
        &self.cells[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

/// What a piece of one kind and seat gets for standing on one cell, every
/// per-cell term in one entry, so that the first pass of a board of one
/// or two words reads one entry per piece instead of a table per term: the
/// centrality (where the mobility term is on), the pawn progress (where
/// that term is on) and the placement table's opening and endgame values
/// (where the weights have one). The sums are those of the separate
/// tables; the tuner's feature sink, which must be told every table entry,
/// reads the separate tables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct PieceSquare {
    placed: i32,
    progress: i32,
    table: [i32; 2],
}

/// The per-seat sums the first pass of a board of one word fills.
struct WordSums<'a> {
    material: &'a mut [i32; MAX_SEATS],
    pieces: &'a mut [i32; MAX_SEATS],
    pawns: &'a mut [u32; MAX_SEATS],
    placed: &'a mut [i32; MAX_SEATS],
    progress: &'a mut [i32; MAX_SEATS],
    structure: &'a mut [i32; MAX_SEATS],
    tab: &'a mut [[i32; 2]; MAX_SEATS],
}

/// The terms of one evaluation, per player, for `ndchess analyse`'s
/// breakdown and the tests.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Breakdown {
    /// Material per player.
    pub material: Vec<i32>,
    /// Mobility per player: dynamic, and the pieces' cells' own
    /// (centrality).
    pub mobility: Vec<i32>,
    /// Pawn progress per player.
    pub pawn_progress: Vec<i32>,
    /// King safety and activity per player.
    pub king: Vec<i32>,
    /// Threats per player: its pieces attacked by enemy pawns, and
    /// those attacked and not defended.
    pub threats: Vec<i32>,
    /// Pawn structure per player: doubled and isolated pawns.
    pub pawn_structure: Vec<i32>,
    /// Open lines per player: its pieces on half-open and open pawn
    /// lines.
    pub open_lines: Vec<i32>,
    /// Tables per player (placement, passed pawns, mobility by count,
    /// pairs), tapered by the phase.
    pub tables: Vec<i32>,
    /// The phase: 256 with every start piece on the board, 0 with none.
    pub phase: i32,
    /// The total from the point of view of the player to move (tempo
    /// included, every term scaled by its phase scales).
    pub total: i32,
}

impl Evaluator {
    /// Measures the variant's pieces and builds the tables, with the
    /// default weights.
    pub fn new(v: &Arc<Variant>, config: EvalConfig) -> Evaluator {
        Evaluator::with_weights(v, config, &EvalWeights::default())
    }

    /// Measures the variant's pieces and builds the tables with `w`.
    pub fn with_weights(v: &Arc<Variant>, config: EvalConfig, w: &EvalWeights) -> Evaluator {
        Self::build(v, config, w, TableTerms::of(v, w))
    }

    /// The evaluator of [`Evaluator::with_weights`] with every table
    /// present (entries 0 where `w` has none), so that
    /// [`Evaluator::features`] reports every entry a position uses: the
    /// tuner's evaluator. It evaluates as `with_weights` does.
    pub fn for_tuning(v: &Arc<Variant>, w: &EvalWeights) -> Evaluator {
        Self::build(v, EvalConfig::FULL, w, TableTerms::for_tuning(v, w))
    }

    fn build(
        v: &Arc<Variant>,
        config: EvalConfig,
        w: &EvalWeights,
        tables: Option<TableTerms>,
    ) -> Evaluator {
        let cells = v.geometry.cell_count();
        let rho = DENSITY_FACTOR * v.start.len() as f64 / cells as f64;
        let mut values = Vec::with_capacity(v.kinds.len());
        let mut expected16 = Vec::with_capacity(v.kinds.len());
        for (kind, k) in v.kinds.iter().enumerate() {
            let m = density_mobility(v, kind, rho);
            expected16.push((m * 16.0).round() as i32);
            let value = if k.royal {
                0.0
            } else if k.pawn.is_some() {
                m * w.pawn_cp_per_move
            } else {
                m * w.piece_cp_per_move
            };
            values.push(value.round() as i32);
        }
        let mobility_cp16 = (w.mobility_fraction * w.piece_cp_per_move * 16.0).round() as i32;
        let progress = Self::progress_tables(v, &values, w.progress_fraction);
        let passed_table = tables
            .as_ref()
            .is_some_and(|t| !t.passed.is_empty() || !t.race.is_empty());
        let (passed_bonus, passed_masks) = if w.passed_fraction > 0.0 || passed_table {
            (
                Self::progress_tables(v, &values, w.passed_fraction),
                Self::passed_tables(v),
            )
        } else {
            (
                vec![vec![Vec::new(); v.kinds.len()]; v.seat_count()],
                Vec::new(),
            )
        };
        let structure_on = w.doubled_fraction > 0.0 || w.isolated_fraction > 0.0;
        let pawn_kinds = v.kinds.iter().filter(|k| k.pawn.is_some()).count();
        let words = cells.div_ceil(64);
        let fits = v.seat_count() * pawn_kinds * cells * words * 2 <= MAX_PASSED_WORDS;
        let pawn_files = (0..v.seat_count() * v.kinds.len())
            .map(|i| {
                (structure_on && fits)
                    .then(|| PawnFiles::of(v, i / v.kinds.len(), i % v.kinds.len()))
                    .flatten()
            })
            .collect();
        let share = |f: f64| {
            values
                .iter()
                .map(|&x| (x as f64 * f).round() as i32)
                .collect()
        };
        let (doubled_cp, isolated_cp) = (share(w.doubled_fraction), share(w.isolated_fraction));
        let centrality = (0..v.kinds.len())
            .map(|kind| {
                if v.kinds[kind].royal || w.centrality_fraction == 0.0 {
                    return Vec::new();
                }
                let per_cell = cell_mobility(v, kind, rho);
                let mean = per_cell.iter().sum::<f64>() / per_cell.len().max(1) as f64;
                let cp = w.centrality_fraction * w.piece_cp_per_move;
                per_cell
                    .iter()
                    .map(|&m| ((m - mean) * cp).round() as i32)
                    .collect()
            })
            .collect();
        let mut start_piece_material = vec![0; v.seat_count()];
        for &(_, p) in &v.start {
            let k = piece_kind(p);
            if v.kinds[k].pawn.is_none() {
                start_piece_material[piece_seat(p).index()] += values[k];
            }
        }
        let king_diagonal_dims = v
            .royal_kind
            .and_then(|k| v.leap_table(k))
            .map(|table| {
                let g = &v.geometry;
                let c0 = (0..cells).max_by_key(|&c| table.get(c).len()).unwrap_or(0);
                table
                    .get(c0)
                    .iter()
                    .map(|&t| {
                        (0..g.dims())
                            .filter(|&a| g.coord(c0, a) != g.coord(t as usize, a))
                            .count()
                    })
                    .max()
                    .unwrap_or(1)
            })
            .unwrap_or(1)
            .max(1);
        let mut e = Evaluator {
            variant: v.clone(),
            config,
            values,
            expected16,
            mobility_cp16,
            progress,
            passed_masks,
            passed_bonus,
            pawn_files,
            doubled_cp,
            isolated_cp,
            open_lines: if w.open_line_fraction > 0.0 {
                OpenLines::of(v, MAX_PASSED_WORDS)
            } else {
                None
            },
            open_line_cp: (w.open_line_fraction * w.piece_cp_per_move).round() as i32,
            centrality,
            start_piece_material,
            king_diagonal_dims,
            max_king_distance: 1,
            weights: w.clone(),
            king_danger_cp: w.king_danger_cp.round() as i32,
            king_danger_square16: (w.king_danger_square_cp * 16.0).round() as i64,
            king_escape_cp: w.king_escape_cp.round() as i32,
            king_proximity_cp: w.king_proximity_cp.round() as i32,
            tempo_cp: w.tempo_cp.round() as i32,
            threat1024: (w.threat_fraction * 1024.0).round() as i32,
            one_word: movegen::one_word_tables(v).and_then(|t| SetWiseAttacks::new(v, t)),
            two_word: movegen::two_word_tables(v).and_then(|t| SetWiseAttacks::new(v, t)),
            piece_visits: 0,
            piece_square: Vec::new(),
            piece_square_used: Vec::new(),
            enemies: [0; MAX_SEATS],
            prey_blocked: [0; MAX_SEATS],
            least_value: 0,
            kind_leaps_or_slides: (0..v.kinds.len())
                .map(|k| {
                    v.leap_table(k).is_some()
                        || (0..cells).any(|c| !v.slide_rays[k].get(c).is_empty())
                })
                .collect(),
            tables,
            scales: w.phase_scales.map(|x| (x * 65536.0).round() as i64),
            scaled: w.phase_scales.iter().any(|&x| x != 1.0),
        };
        if e.one_word.is_none() && e.two_word.is_none() {
            e.piece_visits = max_piece_visits(v);
        }
        for seat in v.seating.seats() {
            e.enemies[seat.index()] = v
                .seating
                .seats()
                .filter(|&q| v.seating.may_capture(q, seat))
                .fold(0, |m, q| m | 1 << q.index());
        }
        for seat in v.seating.seats() {
            let p = seat.index();
            e.prey_blocked[p] = v
                .seating
                .seats()
                .filter(|q| e.enemies[q.index()] >> p & 1 != 0)
                .fold(0, |m, q| m | 1 << (BLOCKED_SHIFT + q.index()));
        }
        if e.one_word.is_some() || e.two_word.is_some() {
            // The word's cells per entry row, so that a cell taken from a
            // word indexes its row without a bounds check.
            let stride = if e.one_word.is_some() {
                <u64 as Word>::BITS
            } else {
                <u128 as Word>::BITS
            };
            e.piece_square = e.piece_square_table(stride);
            e.piece_square_used = e
                .piece_square
                .chunks(stride)
                .map(|entries| entries.iter().any(|e| *e != PieceSquare::default()))
                .collect();
        }
        e.least_value = e
            .values
            .iter()
            .copied()
            .filter(|&x| x > 0)
            .min()
            .unwrap_or(100);
        let lens = v.geometry.lens();
        let far: Vec<i32> = lens
            .iter()
            .zip(v.geometry.wraps())
            .map(|(&l, &w)| if w { l as i32 / 2 } else { l as i32 - 1 })
            .collect();
        e.max_king_distance = e.metric(&far).max(1);
        e
    }

    /// The variant.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// The configuration.
    pub fn config(&self) -> EvalConfig {
        self.config
    }

    /// The weights.
    pub fn weights(&self) -> &EvalWeights {
        &self.weights
    }

    /// The bonus of the side to move (centipawns).
    pub fn tempo(&self) -> i32 {
        self.tempo_cp
    }

    /// Material value of `kind` in centipawns (0 for the king).
    #[inline]
    pub fn value(&self, kind: usize) -> i32 {
        self.values[kind]
    }

    /// Material values of every kind.
    pub fn values(&self) -> &[i32] {
        &self.values
    }

    /// Pawn progress tables: per (player, pawn kind, cell), the bonus for
    /// the progress from its start cells to its promotion cells, measured
    /// in pawn moves (pushes first; captures where pushes never arrive).
    fn progress_tables(v: &Variant, values: &[i32], fraction: f64) -> Vec<Vec<Vec<i32>>> {
        let cells = v.geometry.cell_count();
        let best_promotion = v
            .promotion_kinds
            .iter()
            .map(|&k| values[k])
            .max()
            .unwrap_or(0);
        let mut out = vec![vec![Vec::new(); v.kinds.len()]; v.seat_count()];
        for (player, per_kind) in out.iter_mut().enumerate() {
            let player = Seat::new(player);
            for (kind, table) in per_kind.iter_mut().enumerate() {
                if v.kinds[kind].pawn.is_none() {
                    continue;
                }
                let dist = Self::promotion_distance(v, player, kind);
                let start_dist = v
                    .start
                    .iter()
                    .filter(|&&(_, p)| p == piece(player, kind))
                    .map(|&(c, _)| dist[c])
                    .filter(|&d| d != u32::MAX)
                    .max()
                    .unwrap_or(0);
                let gain = (best_promotion - values[kind]).max(0) as f64;
                *table = (0..cells)
                    .map(|c| {
                        let d = dist[c];
                        if start_dist == 0 || d == u32::MAX || d >= start_dist {
                            return 0;
                        }
                        let progress = (start_dist - d) as f64 / start_dist as f64;
                        (gain * fraction * progress * progress).round() as i32
                    })
                    .collect();
            }
        }
        out
    }

    /// The [`PieceSquare`] entries of a board of one or two words, a row
    /// of `stride` entries (the word's cells) per seat and kind.
    fn piece_square_table(&self, stride: usize) -> Vec<PieceSquare> {
        let v = &*self.variant;
        let (seats, kinds, cells) = (v.seat_count(), v.kinds.len(), v.geometry.cell_count());
        let mut out = vec![PieceSquare::default(); seats * kinds * stride];
        for p in 0..seats {
            for (kind, k) in v.kinds.iter().enumerate() {
                for c in 0..cells {
                    let e = &mut out[(p * kinds + kind) * stride + c];
                    if k.pawn.is_none() {
                        if self.config.mobility {
                            e.placed = self.centrality[kind].get(c).copied().unwrap_or(0);
                        }
                    } else if self.config.pawn_progress {
                        e.progress = self.progress[p][kind][c];
                    }
                    if let Some(t) = self.tables.as_ref().filter(|t| !t.placement.is_empty()) {
                        e.table = t.placement[(p * t.layout.kinds + kind) * cells + c];
                    }
                }
            }
        }
        out
    }

    /// Passed-pawn masks, per `player * kinds + pawn kind`, per cell its
    /// bitboard words (cells × words; none at all when the masks of all
    /// pawn kinds would pass [`MAX_PASSED_WORDS`]).
    ///
    /// A pawn is passed when no enemy pawn can stop it on its way: the
    /// pawn's path is every cell its pushes reach from where it stands
    /// (in any dimension, every forward direction: a cone where pawns
    /// have several), and an enemy pawn stops it by standing on the path
    /// or by attacking a cell of the path or the pawn's own cell. The
    /// classical passed pawn (no enemy pawn ahead on its own or a
    /// neighbouring file) is the case of the 8x8 board. "Enemy" is every
    /// seat that may capture the pawn's seat, and the test takes the union
    /// of their pawns (with several enemies a cell that only another
    /// enemy's pawn would attack from counts for all of them: the masks
    /// stay one per pawn, not one per pair of seats).
    fn passed_tables(v: &Variant) -> Vec<Vec<u64>> {
        let cells = v.geometry.cell_count();
        let words = cells.div_ceil(64);
        let seats = v.seat_count();
        let kinds = v.kinds.len();
        let pawn_kinds = v.kinds.iter().filter(|k| k.pawn.is_some()).count();
        if pawn_kinds == 0 || seats * pawn_kinds * cells * words > MAX_PASSED_WORDS {
            return Vec::new();
        }
        let mut out = vec![Vec::new(); seats * kinds];
        for seat in v.seating.seats() {
            let enemies: Vec<Seat> = v
                .seating
                .seats()
                .filter(|&q| v.seating.may_capture(q, seat))
                .collect();
            for (kind, k) in v.kinds.iter().enumerate() {
                if k.pawn.is_none() {
                    continue;
                }
                let pushes = &v.pawn_tables[seat][kind].pushes;
                let mut masks = vec![0u64; cells * words];
                let mut path = vec![false; cells];
                let mut stack = Vec::new();
                for c in 0..cells {
                    pawn_structure::mark_way_ahead(pushes, c, &mut path, &mut stack);
                    path[c] = true;
                    let mask = &mut masks[c * words..(c + 1) * words];
                    let mut add = |x: usize| mask[x / 64] |= 1 << (x % 64);
                    for x in (0..cells).filter(|&x| path[x]) {
                        if x != c {
                            add(x);
                        }
                        for &q in &enemies {
                            for (qk, qkind) in v.kinds.iter().enumerate() {
                                if qkind.pawn.is_none() {
                                    continue;
                                }
                                for &a in v.pawn_tables[q][qk].attackers.get(x) {
                                    add(a as usize);
                                }
                            }
                        }
                    }
                }
                out[seat.index() * kinds + kind] = masks;
            }
        }
        out
    }

    /// Pawn moves from each cell to the nearest promotion cell (breadth
    /// first over reversed pawn moves), `u32::MAX` where none leads there.
    fn promotion_distance(v: &Variant, player: Seat, kind: usize) -> Vec<u32> {
        let cells = v.geometry.cell_count();
        let table = &v.pawn_tables[player][kind];
        let run = |with_captures: bool| {
            // Reverse adjacency: predecessor lists.
            let mut preds: Vec<Vec<Cell>> = vec![Vec::new(); cells];
            for c in 0..cells {
                for pair in table.pushes.get(c).chunks_exact(2) {
                    preds[pair[0] as usize].push(c);
                    if pair[1] != NO_CELL {
                        preds[pair[1] as usize].push(c);
                    }
                }
                if with_captures {
                    for &t in table.captures.get(c) {
                        preds[t as usize].push(c);
                    }
                }
            }
            let mut dist = vec![u32::MAX; cells];
            let mut queue: std::collections::VecDeque<Cell> =
                v.promotion_zone[player].iter().collect();
            for &c in &queue {
                dist[c] = 0;
            }
            while let Some(c) = queue.pop_front() {
                for &p in &preds[c] {
                    if dist[p] == u32::MAX {
                        dist[p] = dist[c] + 1;
                        queue.push_back(p);
                    }
                }
            }
            dist
        };
        let pushes = run(false);
        let any = run(true);
        pushes
            .iter()
            .zip(&any)
            .map(|(&a, &b)| if a == u32::MAX { b } else { a })
            .collect()
    }

    /// King distance for per-axis distances `d`: steps of a king that
    /// changes up to `king_diagonal_dims` coordinates at once.
    fn metric(&self, d: &[i32]) -> i32 {
        let max = d.iter().copied().max().unwrap_or(0);
        let sum: i32 = d.iter().sum();
        let m = self.king_diagonal_dims as i32;
        max.max((sum + m - 1) / m)
    }

    /// King distance between two cells (wrap-around aware).
    pub fn king_distance(&self, a: Cell, b: Cell) -> i32 {
        let g = &self.variant.geometry;
        let mut d = [0i32; 16];
        let n = g.dims().min(16);
        for (axis, slot) in d.iter_mut().enumerate().take(n) {
            let mut x = (g.coord(a, axis) - g.coord(b, axis)).abs();
            if g.wraps()[axis] {
                x = x.min(g.lens()[axis] as i32 - x);
            }
            *slot = x;
        }
        self.metric(&d[..n])
    }

    /// Evaluates `pos` from the point of view of the player to move.
    pub fn evaluate(&self, pos: &Position, s: &mut EvalScratch) -> i32 {
        self.run(pos, s, pos.to_move(), None, &mut NoSink)
    }

    /// Evaluates `pos` in the paranoid view of a search rooted at player
    /// `root`: the root's side (it and its team) against everyone else,
    /// from the point of view of the side to move. With two players this
    /// is [`Evaluator::evaluate`].
    pub fn evaluate_paranoid(&self, pos: &Position, s: &mut EvalScratch, root: Seat) -> i32 {
        self.run(pos, s, root, None, &mut NoSink)
    }

    /// Evaluates `pos` from `seat`'s point of view, whoever decides now
    /// (the simultaneous search scores every position for the first seat).
    pub fn evaluate_for(&self, pos: &Position, s: &mut EvalScratch, seat: Seat) -> i32 {
        let e = self.run(pos, s, seat, None, &mut NoSink);
        let v = &*self.variant;
        let mover = pos.to_move();
        if mover == seat || v.seating.same_side(mover, seat) {
            e
        } else {
            -e
        }
    }

    /// Evaluates and reports every term.
    pub fn breakdown(&self, pos: &Position) -> Breakdown {
        let mut b = Breakdown::default();
        let mut s = EvalScratch::default();
        b.total = self.run(pos, &mut s, pos.to_move(), Some(&mut b), &mut NoSink);
        b
    }

    /// The evaluation's linear features of `pos` (the tuner's view): the
    /// terms per seat before their phase scales and the phase (in the
    /// breakdown), and every table entry a seat's pieces use, as `(seat,
    /// index in the` [`tables::Layout`]`)` (entries of tables the weights
    /// lack are reported only by an evaluator made with
    /// [`Evaluator::for_tuning`]).
    pub fn features(
        &self,
        pos: &Position,
        s: &mut EvalScratch,
    ) -> (Breakdown, Vec<(usize, usize)>) {
        let mut b = Breakdown::default();
        let mut entries = Entries::default();
        b.total = self.run(pos, s, pos.to_move(), Some(&mut b), &mut entries);
        (b, entries.0)
    }

    /// The layout of the tuner's parameters, where this evaluator has
    /// tables.
    pub fn layout(&self) -> Option<&tables::Layout> {
        self.tables.as_ref().map(|t| &t.layout)
    }

    /// The value of every seat's own army (material, mobility, pawn
    /// progress, king safety; no tempo), indexed by seat: the multi-player
    /// searches weigh these against each other from each seat's view.
    pub fn seat_values(&self, pos: &Position, s: &mut EvalScratch) -> [i32; MAX_SEATS] {
        self.seat_terms(pos, s, None, &mut NoSink)
    }

    /// The total from the point of view of the seat to move, the seats on
    /// `root`'s side counting for it and the others against it.
    fn run<S: Sink>(
        &self,
        pos: &Position,
        s: &mut EvalScratch,
        root: Seat,
        out: Option<&mut Breakdown>,
        sink: &mut S,
    ) -> i32 {
        let v = &*self.variant;
        let terms = self.seat_terms(pos, s, out, sink);
        let side = |p: Seat| p == root || v.seating.same_side(p, root);
        let mover = side(pos.to_move());
        let mut total = 0i32;
        for seat in v.seating.seats() {
            if side(seat) == mover {
                total += terms[seat.index()];
            } else {
                total -= terms[seat.index()];
            }
        }
        // A tempo belongs to a seat that moves alone.
        if self.config.tempo && !pos.turn().is_simultaneous() {
            total += self.tempo_cp;
        }
        total.clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// The terms of every seat into per-seat arrays (and `out`, when
    /// asked), summed per seat.
    fn seat_terms<S: Sink>(
        &self,
        pos: &Position,
        s: &mut EvalScratch,
        out: Option<&mut Breakdown>,
        sink: &mut S,
    ) -> [i32; MAX_SEATS] {
        let v = &*self.variant;
        let cells = v.geometry.cell_count();
        let seats = v.seat_count();
        let board = pos.board();
        let cfg = self.config;
        let need_attacks = cfg.mobility || cfg.king_safety;
        if need_attacks {
            zeroed(&mut s.attacks, seats * cells);
        }
        // Per seat: material, mobility, progress, piece material.
        let mut material = [0i32; MAX_SEATS];
        let mut mob = [0i32; MAX_SEATS];
        let mut progress = [0i32; MAX_SEATS];
        let mut pieces = [0i32; MAX_SEATS];
        let mut pawns = [0u32; MAX_SEATS];
        // Per seat: the pieces' worth from the cells they stand on.
        let mut placed = [0i32; MAX_SEATS];
        // Per seat: the value of its threatened pieces (negative, twice
        // for an enemy pawn's attack, once for an undefended piece's;
        // scaled below).
        let mut threats = [0i32; MAX_SEATS];
        // Per seat: its doubled and isolated pawns' cost.
        let mut structure = [0i32; MAX_SEATS];
        // Per seat: the sums of its table entries (opening, endgame).
        let mut tab = [[0i32; 2]; MAX_SEATS];
        let tables = self.tables.as_ref();
        // Pass 1: material, pawns and the cells each seat's pawns attack
        // (`pawn_mask[cell]`: bit per seat).
        let set_wise = need_attacks && (self.one_word.is_some() || self.two_word.is_some());
        let generic_attacks = need_attacks && !set_wise;
        if generic_attacks {
            zeroed(&mut s.pawn_mask, cells);
        }
        // Whether no seat's count of attacks on a cell can pass a byte:
        // its pieces times the most visits of one piece.
        let counts_fit = generic_attacks
            && v.seating.seats().all(|q| {
                let n: u32 = pos.seat_bits(q).iter().map(|w| w.count_ones()).sum();
                n.saturating_mul(self.piece_visits) <= u8::MAX as u32
            });
        // Passed pawns: each seat's enemies' pawns.
        let words = pos.seat_bits(Seat::FIRST).len();
        let passed_on = cfg.pawn_progress && !self.passed_masks.is_empty();
        s.passed.clear();
        // The first pass of a board of one word (below) takes the enemies'
        // pawns from the words itself.
        let word_pass = (self.one_word.is_some() || self.two_word.is_some()) && !S::ON;
        if passed_on && !word_pass {
            zeroed(&mut s.enemy_pawns, seats * words);
            for q in v.seating.seats() {
                let qb = pos.seat_bits(q);
                for (kind, _) in v.kinds.iter().enumerate().filter(|(_, k)| k.pawn.is_some()) {
                    let kb = pos.kind_bits(kind);
                    for p in v.seating.seats().filter(|&p| v.seating.may_capture(q, p)) {
                        let e = &mut s.enemy_pawns[p.index() * words..(p.index() + 1) * words];
                        for (w, x) in e.iter_mut().enumerate() {
                            *x |= qb[w] & kb[w];
                        }
                    }
                }
            }
        }
        // Whether seat `p`'s pawn of `kind` on `c` is passed.
        let passed = |p: usize, kind: usize, c: usize, enemy: &[u64]| {
            let m = &self.passed_masks[p * v.kinds.len() + kind];
            !m.is_empty()
                && m[c * words..(c + 1) * words]
                    .iter()
                    .zip(&enemy[p * words..(p + 1) * words])
                    .all(|(a, b)| a & b == 0)
        };
        // Kind by kind from the bitboards, each kind's tables looked up
        // once (the sums do not depend on the order).
        if word_pass {
            let mut sums = WordSums {
                material: &mut material,
                pieces: &mut pieces,
                pawns: &mut pawns,
                placed: &mut placed,
                progress: &mut progress,
                structure: &mut structure,
                tab: &mut tab,
            };
            if self.one_word.is_some() {
                self.first_pass_word::<u64>(pos, s, &mut sums, passed_on);
            } else {
                self.first_pass_word::<u128>(pos, s, &mut sums, passed_on);
            }
        } else if self.one_word.is_some() {
            let kinds = v.kinds.len();
            let sets = pos.one_word_sets(0, seats + kinds + 1);
            for seat in v.seating.seats() {
                let p = seat.index();
                for (kind, k) in v.kinds.iter().enumerate() {
                    let mut of_kind = sets[p] & sets[seats + kind];
                    if of_kind == 0 {
                        continue;
                    }
                    let n = of_kind.count_ones();
                    material[p] += self.values[kind] * n as i32;
                    if let Some(t) = tables {
                        Self::place(t, p, kind, n, of_kind, &mut tab[p], sink);
                    }
                    if k.pawn.is_none() {
                        if !k.royal {
                            pieces[p] += self.values[kind] * n as i32;
                        }
                        let table = &self.centrality[kind];
                        if cfg.mobility && !table.is_empty() {
                            while of_kind != 0 {
                                placed[p] += table[of_kind.trailing_zeros() as usize];
                                of_kind &= of_kind - 1;
                            }
                        }
                        continue;
                    }
                    pawns[p] += n;
                    if let Some(f) = self.pawn_files[p * kinds + kind]
                        .as_ref()
                        .filter(|_| cfg.pawn_progress)
                    {
                        structure[p] += self.structure_of_word(f, kind, of_kind);
                    }
                    if cfg.pawn_progress {
                        let table = &self.progress[p][kind];
                        let bonus = &self.passed_bonus[p][kind];
                        while of_kind != 0 {
                            let c = of_kind.trailing_zeros() as usize;
                            progress[p] += table[c];
                            if passed_on && passed(p, kind, c, &s.enemy_pawns) {
                                s.passed.push((p, kind, c));
                                progress[p] += bonus[c];
                                if let Some(t) = tables {
                                    self.passed_entry(t, pos, p, kind, c, &mut tab[p], sink);
                                }
                            }
                            of_kind &= of_kind - 1;
                        }
                    }
                }
            }
        }
        // The general first pass, from the pieces' lists (which pass 2
        // on the generic path reads too; on boards of two words it is
        // set-wise whenever this pass is not taken).
        let list_pass = !word_pass && self.one_word.is_none();
        if list_pass {
            PieceLists::fill(pos, &mut s.piece_cells, &mut s.piece_starts);
        }
        let lists = PieceLists {
            cells: &s.piece_cells,
            starts: &s.piece_starts,
            kinds: v.kinds.len(),
        };
        for seat in v.seating.seats().filter(|_| list_pass) {
            let p = seat.index();
            let own = pos.seat_bits(seat);
            for (kind, k) in v.kinds.iter().enumerate() {
                let of_kind = pos.kind_bits(kind);
                let list = lists.of(p, kind);
                if let Some(t) = tables {
                    let n = list.len();
                    if t.any_pair && n >= 2 {
                        Self::pair_entry(t, p, kind, &mut tab[p], sink);
                    }
                    if !t.placement.is_empty() {
                        list.iter().map(|&c| c as usize).for_each(|c| {
                            Self::cell_entry(
                                t,
                                &t.placement,
                                t.layout.placement,
                                p,
                                kind,
                                c,
                                &mut tab[p],
                                sink,
                            );
                        });
                    }
                }
                if k.pawn.is_none() {
                    let n = list.len() as i32;
                    material[p] += self.values[kind] * n;
                    if !k.royal {
                        pieces[p] += self.values[kind] * n;
                    }
                    let table = &self.centrality[kind];
                    if cfg.mobility && !table.is_empty() {
                        list.iter().for_each(|&c| placed[p] += table[c as usize]);
                    }
                    continue;
                }
                let mut n = 0;
                let table = &self.progress[p][kind];
                let pawn = piece(seat, kind);
                let simple = !self.kind_leaps_or_slides[kind];
                let captures = &v.pawn_tables[seat][kind].captures;
                let bonus = &self.passed_bonus[p][kind];
                let att = &mut s.attacks[..];
                let pawn_mask = &mut s.pawn_mask;
                let prey_blocked = self.prey_blocked[p];
                let enemy = &s.enemy_pawns;
                let passed_pawns = &mut s.passed;
                let tab_p = &mut tab[p];
                list.iter().map(|&c| c as usize).for_each(|c| {
                    n += 1;
                    if cfg.pawn_progress {
                        progress[p] += table[c];
                        if passed_on && passed(p, kind, c, enemy) {
                            passed_pawns.push((p, kind, c));
                            progress[p] += bonus[c];
                            if let Some(t) = tables {
                                self.passed_entry(t, pos, p, kind, c, tab_p, sink);
                            }
                        }
                    }
                    if !generic_attacks {
                        return;
                    }
                    let att = &mut att[p * cells..(p + 1) * cells];
                    let pawn_mask = &mut pawn_mask[..cells];
                    // Every `t` visited comes from the variant's tables,
                    // whose cells are below the cell count, the length of
                    // `att` and `pawn_mask`.
                    let mut visit = |t: usize| {
                        debug_assert!(t < cells, "a cell outside the board");
                        // SAFETY: `t < cells` (above).
                        unsafe {
                            let a = att.get_unchecked_mut(t);
                            *a = a.saturating_add(1);
                            *pawn_mask.get_unchecked_mut(t) |= 1 << p | prey_blocked;
                        }
                    };
                    if simple {
                        for &t in captures.get(c) {
                            visit(t as usize);
                        }
                    } else {
                        attacks::for_each_attack(v, pawn, c, |x| board[x], visit);
                    }
                });
                material[p] += self.values[kind] * n as i32;
                pawns[p] += n;
                if let Some(f) = self.pawn_files[p * v.kinds.len() + kind]
                    .as_ref()
                    .filter(|_| cfg.pawn_progress)
                {
                    s.own_pawns.clear();
                    s.own_pawns
                        .extend(own.iter().zip(of_kind).map(|(a, b)| a & b));
                    structure[p] += self.structure_of(f, kind, &s.own_pawns);
                }
            }
        }
        // Pass 2: the pieces' attacks; mobility counts the cells neither
        // held by the own seat nor attacked by a pawn that may capture
        // there.
        // Per seat (boards of one or two words): the cells any of its
        // pieces attacks.
        let mut reach = [0u128; MAX_SEATS];
        if let Some(sw) = self.one_word.as_ref().filter(|_| need_attacks) {
            self.set_wise_pass(
                sw,
                pos,
                s,
                &mut reach,
                &mut mob,
                &mut threats,
                &mut tab,
                sink,
            );
        } else if let Some(sw) = self.two_word.as_ref().filter(|_| need_attacks) {
            self.set_wise_pass(
                sw,
                pos,
                s,
                &mut reach,
                &mut mob,
                &mut threats,
                &mut tab,
                sink,
            );
        } else if need_attacks {
            let g = &v.geometry;
            // Each seat's own pieces block its mobility too (the enemy
            // pawns' attacks were marked in pass 1), and every piece stops
            // the slides (the board holds nothing but pieces).
            for seat in v.seating.seats() {
                let p = seat.index();
                let own = 1 << (BLOCKED_SHIFT + p) | OCCUPIED;
                for kind in 0..v.kinds.len() {
                    for &c in lists.of(p, kind) {
                        s.pawn_mask[c as usize] |= own;
                    }
                }
            }
            for seat in v.seating.seats() {
                let p = seat.index();
                let mut walk = AttackWalk {
                    attacks: &mut s.attacks[p * cells..(p + 1) * cells],
                    pawn_mask: &s.pawn_mask[..cells],
                    blocked: 1 << (BLOCKED_SHIFT + p),
                };
                for (kind, k) in v.kinds.iter().enumerate() {
                    if k.pawn.is_some() {
                        continue;
                    }
                    let leaps = v.leap_table(kind);
                    let rays = &v.slide_rays[kind];
                    let counted_for_mobility = cfg.mobility && !k.royal;
                    s.mobility.clear();
                    if counts_fit {
                        walk.walk::<false>(g, leaps, rays, lists.of(p, kind), &mut s.mobility);
                    } else {
                        walk.walk::<true>(g, leaps, rays, lists.of(p, kind), &mut s.mobility);
                    }
                    if !counted_for_mobility {
                        continue;
                    }
                    for &count in &s.mobility {
                        mob[p] += (count * 16 - self.expected16[kind]) * self.mobility_cp16 / 256;
                        if let Some(t) = tables {
                            Self::mobility_entry(t, p, kind, count, &mut tab[p], sink);
                        }
                    }
                }
            }
            if let Some(t) = tables.filter(|t| !t.supported.is_empty()) {
                for seat in v.seating.seats() {
                    let p = seat.index();
                    for (kind, k) in v.kinds.iter().enumerate() {
                        if k.royal {
                            continue;
                        }
                        lists.of(p, kind).iter().map(|&c| c as usize).for_each(|c| {
                            if s.pawn_mask[c] >> p & 1 != 0 {
                                let (table, first) = (&t.supported, t.layout.supported);
                                Self::cell_entry(t, table, first, p, kind, c, &mut tab[p], sink);
                            }
                        });
                    }
                }
            }
            // Threats, once every seat's attacks are counted.
            if cfg.mobility && self.threat1024 > 0 {
                for seat in v.seating.seats() {
                    let p = seat.index();
                    let enemies = self.enemies[p];
                    for (kind, k) in v.kinds.iter().enumerate() {
                        if k.royal {
                            continue;
                        }
                        let pawn = k.pawn.is_some();
                        lists.of(p, kind).iter().map(|&c| c as usize).for_each(|c| {
                            let weight = if !pawn && s.pawn_mask[c] & enemies as u32 != 0 {
                                2
                            } else if s.attacks[p * cells + c] == 0
                                && (0..seats)
                                    .any(|q| enemies >> q & 1 != 0 && s.attacks[q * cells + c] > 0)
                            {
                                1
                            } else {
                                0
                            };
                            threats[p] -= self.values[kind] * weight;
                        });
                    }
                }
            }
        }
        // Free passed pawns (among those pass 1 found): every single step
        // to an empty cell no enemy attacks (the attacks of pass 2: every
        // cell's on the generic path, the reach sets on one word).
        if let Some(t) = tables.filter(|t| !t.free.is_empty() && need_attacks) {
            for &(p, kind, c) in &s.passed {
                let seat = Seat::new(p);
                let attacked = |to: usize| {
                    v.seating.seats().any(|q| {
                        v.seating.may_capture(q, seat)
                            && if set_wise {
                                reach[q.index()] >> to & 1 != 0
                            } else {
                                s.attacks[q.index() * cells + to] > 0
                            }
                    })
                };
                let steps = v.pawn_tables[seat][kind].pushes.get(c);
                if !steps.is_empty()
                    && steps.chunks_exact(2).all(|pair| {
                        let to = pair[0] as usize;
                        board[to] == EMPTY && !attacked(to)
                    })
                {
                    Self::cell_entry(t, &t.free, t.layout.free, p, kind, c, &mut tab[p], sink);
                }
            }
        }
        for t in threats.iter_mut().take(seats) {
            *t = *t * self.threat1024 / 2048;
        }
        let mut lines = [0i32; MAX_SEATS];
        if let Some(ol) = self.open_lines.as_ref().filter(|_| cfg.mobility) {
            if self.one_word.is_some() {
                self.open_line_terms_word(pos, ol, &mut lines);
            } else {
                self.open_line_terms(pos, ol, s, &mut lines);
            }
        }
        let mut king = [0i32; MAX_SEATS];
        if cfg.king_safety {
            self.king_terms(
                pos,
                s,
                &material[..seats],
                &pieces[..seats],
                &pawns[..seats],
                &mut king,
                &mut tab,
                sink,
            );
        }
        let phase = self.phase(&pieces[..seats]);
        let mut terms = [0i32; MAX_SEATS];
        let mut tabled = [0i32; MAX_SEATS];
        for (p, t) in terms.iter_mut().enumerate().take(seats) {
            let raw = [
                material[p],
                placed[p] + mob[p],
                progress[p],
                king[p],
                threats[p],
                structure[p],
                lines[p],
            ];
            *t = if self.scaled {
                let (opening, endgame) = (phase as i64, (PHASE_FULL - phase) as i64);
                let sum: i64 = raw
                    .iter()
                    .enumerate()
                    .map(|(j, &x)| {
                        x as i64 * (self.scales[2 * j] * opening + self.scales[2 * j + 1] * endgame)
                    })
                    .sum();
                (sum / (65536 * PHASE_FULL as i64)) as i32
            } else {
                raw.iter().sum()
            };
            tabled[p] = tapered(tab[p], phase);
            *t += tabled[p];
        }
        if let Some(b) = out {
            b.material = material[..seats].to_vec();
            b.mobility = (0..seats).map(|p| mob[p] + placed[p]).collect();
            b.pawn_progress = progress[..seats].to_vec();
            b.king = king[..seats].to_vec();
            b.threats = threats[..seats].to_vec();
            b.pawn_structure = structure[..seats].to_vec();
            b.open_lines = lines[..seats].to_vec();
            b.tables = tabled[..seats].to_vec();
            b.phase = phase;
        }
        terms
    }

    /// The phase of a position whose seats hold `pieces` of piece
    /// material: the share of the start's, from [`PHASE_FULL`] down to 0.
    fn phase(&self, pieces: &[i32]) -> i32 {
        let start: i64 = self.start_piece_material.iter().map(|&m| m as i64).sum();
        if start <= 0 {
            return PHASE_FULL;
        }
        let now: i64 = pieces.iter().map(|&m| m as i64).sum();
        (now.min(start) * PHASE_FULL as i64 / start) as i32
    }

    /// Seat `p`'s `n` pieces of `kind` on the cells of `set` (one word):
    /// their placement entries and the kind's pair value.
    #[inline(always)]
    fn place<S: Sink>(
        t: &TableTerms,
        p: usize,
        kind: usize,
        n: u32,
        mut set: u64,
        tab: &mut [i32; 2],
        sink: &mut S,
    ) {
        if t.any_pair && n >= 2 {
            Self::pair_entry(t, p, kind, tab, sink);
        }
        if !t.placement.is_empty() {
            while set != 0 {
                let c = set.trailing_zeros() as usize;
                Self::cell_entry(t, &t.placement, t.layout.placement, p, kind, c, tab, sink);
                set &= set - 1;
            }
        }
    }

    /// Adds a table entry `e` to `tab`.
    #[inline(always)]
    fn add(tab: &mut [i32; 2], e: [i32; 2]) {
        tab[0] += e[0];
        tab[1] += e[1];
    }

    /// Seat `p`'s piece of `kind` on cell `c` in one of the families
    /// indexed by cell (placement, passed, free, supported): `table` the
    /// family's entries per seat, `first` its first entry in the layout.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn cell_entry<S: Sink>(
        t: &TableTerms,
        table: &[[i32; 2]],
        first: usize,
        p: usize,
        kind: usize,
        c: usize,
        tab: &mut [i32; 2],
        sink: &mut S,
    ) {
        let cells = t.layout.cells;
        Self::add(tab, table[(p * t.layout.kinds + kind) * cells + c]);
        if S::ON {
            sink.entry(p, first + (kind * cells + t.views[p][c] as usize) * 2);
        }
    }

    /// Seat `p`'s passed pawn of `kind` on cell `c`: its passed entry,
    /// and its race entry where both it and an enemy have a king.
    #[allow(clippy::too_many_arguments)]
    fn passed_entry<S: Sink>(
        &self,
        t: &TableTerms,
        pos: &Position,
        p: usize,
        kind: usize,
        c: usize,
        tab: &mut [i32; 2],
        sink: &mut S,
    ) {
        if !t.passed.is_empty() {
            Self::cell_entry(t, &t.passed, t.layout.passed, p, kind, c, tab, sink);
        }
        if t.race.is_empty() {
            return;
        }
        let v = &*self.variant;
        let seat = Seat::new(p);
        let Some(own) = pos.royal_cell(seat) else {
            return;
        };
        let enemy = v
            .seating
            .seats()
            .filter(|&q| v.seating.may_capture(q, seat))
            .filter_map(|q| pos.royal_cell(q))
            .map(|k| self.king_distance(k, c))
            .min();
        if let Some(enemy) = enemy {
            let d = enemy - self.king_distance(own, c);
            let index = t.layout.race_index(kind, d);
            Self::add(tab, t.race[(index - t.layout.race) / 2]);
            if S::ON {
                sink.entry(p, index);
            }
        }
    }

    /// Seat `p`'s piece of `kind` attacking `count` cells: its mobility
    /// entry (none for a kind without a mobility table).
    #[inline(always)]
    fn mobility_entry<S: Sink>(
        t: &TableTerms,
        p: usize,
        kind: usize,
        count: i32,
        tab: &mut [i32; 2],
        sink: &mut S,
    ) {
        let table = &t.mobility[kind];
        if table.is_empty() {
            return;
        }
        let n = (count.max(0) as usize).min(table.len() - 1);
        Self::add(tab, table[n]);
        if S::ON {
            sink.entry(p, t.layout.mobility_index(kind, n));
        }
    }

    /// Seat `p`'s second piece of `kind`: the kind's pair entry.
    #[inline(always)]
    fn pair_entry<S: Sink>(
        t: &TableTerms,
        p: usize,
        kind: usize,
        tab: &mut [i32; 2],
        sink: &mut S,
    ) {
        Self::add(tab, t.pair[kind]);
        if S::ON {
            sink.entry(p, t.layout.pair_index(kind));
        }
    }

    /// Pass 2 of [`Evaluator::seat_terms`] on a board of one or two words
    /// (`sw`, [`SetWiseAttacks`]): the attack counts of the kings'
    /// neighbourhoods into `s.attacks`, mobility into `mob`, the threats
    /// and the supported pieces' table entries; into `wide` (zeroed
    /// before) per seat the cells any of its pieces attacks as a `u128`
    /// set, all the free passed pawns ask later (written in place:
    /// returned, the array was copied each call).
    #[allow(clippy::too_many_arguments)]
    fn set_wise_pass<W: Word, S: Sink>(
        &self,
        sw: &SetWiseAttacks<W>,
        pos: &Position,
        s: &mut EvalScratch,
        wide: &mut [u128; MAX_SEATS],
        mob: &mut [i32; MAX_SEATS],
        threats: &mut [i32; MAX_SEATS],
        tab: &mut [[i32; 2]; MAX_SEATS],
        sink: &mut S,
    ) {
        let v = &*self.variant;
        let cfg = self.config;
        let tables = self.tables.as_ref();
        let seats = v.seat_count();
        let mut reach = [(W::ZERO, W::ZERO); MAX_SEATS];
        let zones = if cfg.king_safety {
            v.seating
                .seats()
                .fold(W::ZERO, |z, seat| z | sw.king_zone(v, pos, seat))
        } else {
            W::ZERO
        };
        let mobility_tables = tables.filter(|_| cfg.mobility);
        let counted = sw.count(pos, zones, &mut s.attacks, &mut reach, |p, kind, count| {
            if let Some(t) = mobility_tables {
                Self::mobility_entry(t, p, kind, count, &mut tab[p], sink);
            }
            (count * 16 - self.expected16[kind]) * self.mobility_cp16 / 256
        });
        if cfg.mobility {
            *mob = counted;
            if self.threat1024 > 0 {
                self.set_wise_threats(pos, &reach, threats);
            }
        }
        if let Some(t) = tables.filter(|t| !t.supported.is_empty()) {
            let words = pos.set_words();
            for seat in v.seating.seats() {
                let p = seat.index();
                for (kind, k) in v.kinds.iter().enumerate() {
                    if k.royal {
                        continue;
                    }
                    let mut set = W::load(words, p) & W::load(words, seats + kind) & reach[p].0;
                    while !set.is_empty() {
                        let c = set.first();
                        set = set.without_first();
                        let (table, first) = (&t.supported, t.layout.supported);
                        Self::cell_entry(t, table, first, p, kind, c, &mut tab[p], sink);
                    }
                }
            }
        }
        for (w, r) in wide.iter_mut().zip(&reach).take(seats) {
            *w = set_wise::widen(r.1);
        }
    }

    /// The threats on a board of one or two words, from each seat's pawn
    /// attacks and all its attacks (`reach`, as [`SetWiseAttacks::count`]
    /// gives them): the value of every piece an enemy pawn attacks (not
    /// pawns) twice, of every other attacked and undefended piece once
    /// (the generic path's rule, from the attack counts, in `seat_terms`).
    fn set_wise_threats<W: Word>(
        &self,
        pos: &Position,
        reach: &[(W, W); MAX_SEATS],
        threats: &mut [i32; MAX_SEATS],
    ) {
        let v = &*self.variant;
        let seats = v.seat_count();
        let words = pos.set_words();
        for seat in v.seating.seats() {
            let p = seat.index();
            let (mut by_pawns, mut by_any) = (W::ZERO, W::ZERO);
            for q in v
                .seating
                .seats()
                .filter(|&q| v.seating.may_capture(q, seat))
            {
                by_pawns |= reach[q.index()].0;
                by_any |= reach[q.index()].1;
            }
            let hanging = by_any & !reach[p].1;
            let own_cells = W::load(words, p);
            for (kind, k) in v.kinds.iter().enumerate() {
                if k.royal {
                    continue;
                }
                let own = own_cells & W::load(words, seats + kind);
                let pawn_hit = if k.pawn.is_none() {
                    own & by_pawns
                } else {
                    W::ZERO
                };
                let loose = own & hanging & !pawn_hit;
                threats[p] -= self.values[kind] * (2 * pawn_hit.count() + loose.count()) as i32;
            }
        }
    }

    /// Every seat's pieces on half-open (no own pawn) and open (no pawn)
    /// pawn lines into `out`.
    fn open_line_terms(
        &self,
        pos: &Position,
        ol: &OpenLines,
        s: &mut EvalScratch,
        out: &mut [i32; MAX_SEATS],
    ) {
        let v = &*self.variant;
        let seats = v.seat_count();
        let words = pos.seat_bits(Seat::FIRST).len();
        let pawns = &mut s.line_pawns;
        zeroed(pawns, (seats + 1) * words);
        for seat in v.seating.seats() {
            let own = pos.seat_bits(seat);
            for (kind, _) in v.kinds.iter().enumerate().filter(|(_, k)| k.pawn.is_some()) {
                let of_kind = pos.kind_bits(kind);
                let p = seat.index();
                for (w, x) in pawns[p * words..(p + 1) * words].iter_mut().enumerate() {
                    *x |= own[w] & of_kind[w];
                }
            }
        }
        for seat in v.seating.seats() {
            let p = seat.index();
            let (by_seat, enemy) = pawns.split_at_mut(seats * words);
            enemy.iter_mut().for_each(|x| *x = 0);
            for q in v
                .seating
                .seats()
                .filter(|&q| v.seating.may_capture(q, seat))
            {
                let theirs = &by_seat[q.index() * words..(q.index() + 1) * words];
                for (x, y) in enemy.iter_mut().zip(theirs) {
                    *x |= y;
                }
            }
            let own_pawns = &by_seat[p * words..(p + 1) * words];
            let own = pos.seat_bits(seat);
            for kind in (0..v.kinds.len()).filter(|&k| ol.has(k)) {
                for_each_of_both(own, pos.kind_bits(kind), |c| {
                    let Some(line) = ol.line(kind, c) else {
                        return;
                    };
                    if !pawn_structure::meets(line, own_pawns) {
                        out[p] += self.open_line_cp;
                        if !pawn_structure::meets(line, enemy) {
                            out[p] += self.open_line_cp;
                        }
                    }
                });
            }
        }
    }

    /// The first pass on a board of one or two words (`W`), for an
    /// evaluation that reports no table entries: per seat its material,
    /// piece material, pawns, pawn structure and per-cell terms
    /// ([`PieceSquare`]), and its passed pawns (into `s.passed` and the
    /// progress and tables, as the general pass does).
    fn first_pass_word<W: Word>(
        &self,
        pos: &Position,
        s: &mut EvalScratch,
        sums: &mut WordSums<'_>,
        passed_on: bool,
    ) {
        let v = &*self.variant;
        let (seats, kinds) = (v.seat_count(), v.kinds.len());
        let words = pos.set_words();
        let set = |i: usize| W::load(words, i);
        let tables = self.tables.as_ref();
        let mut pawn_sets = [W::ZERO; MAX_SEATS];
        for (p, pawns) in pawn_sets.iter_mut().enumerate().take(seats) {
            for kind in (0..kinds).filter(|&k| v.is_pawn(k)) {
                *pawns |= set(p) & set(seats + kind);
            }
        }
        for p in 0..seats {
            let mut enemy_pawns = W::ZERO;
            for (q, &pawns) in pawn_sets.iter().enumerate().take(seats) {
                if self.enemies[p] >> q & 1 != 0 {
                    enemy_pawns |= pawns;
                }
            }
            let own = set(p);
            for (kind, k) in v.kinds.iter().enumerate() {
                let of_kind = own & set(seats + kind);
                if of_kind.is_empty() {
                    continue;
                }
                let n = of_kind.count();
                let worth = self.values[kind] * n as i32;
                sums.material[p] += worth;
                if let Some(t) = tables
                    && t.any_pair
                    && n >= 2
                {
                    Self::add(&mut sums.tab[p], t.pair[kind]);
                }
                let pawn = k.pawn.is_some();
                if pawn {
                    sums.pawns[p] += n;
                    if let Some(f) = self.pawn_files[p * kinds + kind]
                        .as_ref()
                        .filter(|_| self.config.pawn_progress)
                    {
                        sums.structure[p] += if W::BITS == 64 {
                            self.structure_of_word(f, kind, of_kind.low_word())
                        } else {
                            let own = [of_kind.word(0), of_kind.word(1)];
                            self.structure_of(f, kind, &own[..W::BITS / 64])
                        };
                    }
                } else if !k.royal {
                    sums.pieces[p] += worth;
                }
                let slot = p * kinds + kind;
                let passed_masks = &self.passed_masks;
                let check_passed = pawn
                    && passed_on
                    && self.config.pawn_progress
                    && !passed_masks[slot].is_empty();
                // A kind without per-cell terms (no table, no
                // centrality, no progress) and no passed pawns to find
                // has nothing to add cell by cell.
                if !self.piece_square_used[slot] && !check_passed {
                    continue;
                }
                let squares = &self.piece_square[slot * W::BITS..(slot + 1) * W::BITS];
                let mut rest = of_kind;
                while !rest.is_empty() {
                    let c = rest.first();
                    rest = rest.without_first();
                    let e = squares[c];
                    sums.placed[p] += e.placed;
                    sums.progress[p] += e.progress;
                    Self::add(&mut sums.tab[p], e.table);
                    if check_passed && (W::load(&passed_masks[slot], c) & enemy_pawns).is_empty() {
                        s.passed.push((p, kind, c));
                        sums.progress[p] += self.passed_bonus[p][kind][c];
                        if let Some(t) = tables {
                            self.passed_entry(t, pos, p, kind, c, &mut sums.tab[p], &mut NoSink);
                        }
                    }
                }
            }
        }
    }

    /// [`Evaluator::open_line_terms`] on a board of one word: the same
    /// terms from the seats' and kinds' words, without the scratch sets.
    fn open_line_terms_word(&self, pos: &Position, ol: &OpenLines, out: &mut [i32; MAX_SEATS]) {
        let v = &*self.variant;
        let (seats, kinds) = (v.seat_count(), v.kinds.len());
        let sets = pos.one_word_sets(0, seats + kinds + 1);
        let mut pawns = [0u64; MAX_SEATS];
        for seat in v.seating.seats() {
            let p = seat.index();
            for (kind, _) in v.kinds.iter().enumerate().filter(|(_, k)| k.pawn.is_some()) {
                pawns[p] |= sets[p] & sets[seats + kind];
            }
        }
        for seat in v.seating.seats() {
            let p = seat.index();
            let enemy = v
                .seating
                .seats()
                .filter(|&q| v.seating.may_capture(q, seat))
                .fold(0u64, |m, q| m | pawns[q.index()]);
            for kind in (0..kinds).filter(|&k| ol.has(k)) {
                let mut pieces = sets[p] & sets[seats + kind];
                while pieces != 0 {
                    let c = pieces.trailing_zeros() as usize;
                    pieces &= pieces - 1;
                    let line = ol.line_word(kind, c);
                    if line & pawns[p] == 0 {
                        out[p] += self.open_line_cp;
                        if line & enemy == 0 {
                            out[p] += self.open_line_cp;
                        }
                    }
                }
            }
        }
    }

    /// [`Evaluator::structure_of`] on a board of one word, the pawns
    /// being `own`.
    fn structure_of_word(&self, f: &PawnFiles, kind: usize, own: u64) -> i32 {
        let mut total = 0;
        let mut rest = own;
        while rest != 0 {
            let c = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if f.ahead[c] & own != 0 {
                total -= self.doubled_cp[kind];
            }
            if f.neighbours[c] & own == 0 {
                total -= self.isolated_cp[kind];
            }
        }
        total
    }

    /// What the doubled and isolated pawns of `kind` cost (negative), its
    /// pawns of one seat being `own` (bitboard words) with files `f`.
    fn structure_of(&self, f: &PawnFiles, kind: usize, own: &[u64]) -> i32 {
        let mut total = 0;
        pawn_structure::for_each_cell(own, |c| {
            if f.doubled(c, own) {
                total -= self.doubled_cp[kind];
            }
            if f.isolated(c, own) {
                total -= self.isolated_cp[kind];
            }
        });
        total
    }

    /// King safety and activity of every player into `out`.
    ///
    /// For the king of player `p` the zone is its cell and the cells one
    /// king step away. Danger counts, per zone cell, twice the enemy
    /// attackers minus the own defenders (at least 0), normalised to a
    /// zone of 8 cells and scaled by the enemies' remaining piece material
    /// against their start material: attacks on a king matter while the
    /// enemy has pieces to mate with. As that material goes, the king's
    /// free neighbours (neither attacked nor own-occupied) count instead,
    /// and a side well ahead in material with no enemy pawn left is
    /// credited for bringing its king near the enemy's.
    #[allow(clippy::too_many_arguments)]
    fn king_terms<S: Sink>(
        &self,
        pos: &Position,
        s: &EvalScratch,
        material: &[i32],
        pieces: &[i32],
        pawns: &[u32],
        out: &mut [i32],
        tab: &mut [[i32; 2]; MAX_SEATS],
        sink: &mut S,
    ) {
        let v = &*self.variant;
        let cells = v.geometry.cell_count();
        let board = pos.board();
        let Some(table) = v.royal_kind.and_then(|k| v.leap_table(k)) else {
            return;
        };
        for seat in v.seating.seats() {
            let p = seat.index();
            let Some(k) = pos.royal_cell(seat) else {
                continue;
            };
            let zone = table.get(k);
            let (mut enemy_pieces, mut enemy_start) = (0i64, 0i64);
            let mut danger = 0i32;
            let mut free = 0i32;
            let checkers = v.seating.checkers_of(seat);
            for q in checkers.iter().map(Seat::index) {
                enemy_pieces += pieces[q] as i64;
                enemy_start += self.start_piece_material[q].max(1) as i64;
            }
            let own = &s.attacks[p * cells..(p + 1) * cells];
            // The zone's cells and the king's own: the danger, the free
            // cells and the own pawns sheltering the king, in one walk.
            let mut sheltering = 0usize;
            let shelter_on = self.tables.as_ref().is_some_and(|t| !t.shelter.is_empty());
            // Two players: one checking seat, whose row is read directly.
            let only_checker = {
                let mut it = checkers.iter();
                it.next().filter(|_| it.next().is_none())
            };
            let attackers_at = |c: usize| -> i32 {
                match only_checker {
                    Some(q) => s.attacks[q.index() * cells + c] as i32,
                    None => checkers
                        .iter()
                        .map(|q| s.attacks[q.index() * cells + c] as i32)
                        .sum(),
                }
            };
            for &c in zone {
                let c = c as usize;
                let attackers = attackers_at(c);
                danger += (2 * attackers - own[c] as i32).max(0);
                if c == k {
                    continue;
                }
                let occupant = board[c];
                let own_piece = is_piece_of(occupant, seat);
                if attackers == 0 && !own_piece {
                    free += 1;
                }
                if shelter_on && own_piece && v.is_pawn(piece_kind(occupant)) {
                    sheltering += 1;
                }
            }
            danger += (2 * attackers_at(k) - own[k] as i32).max(0);
            let zone_len = zone.len().max(1) as i64 + 1;
            if let Some(t) = self.tables.as_ref() {
                if !t.danger.is_empty() {
                    let units = (danger as i64 * 9 / zone_len) as usize;
                    let u = units.min(t.danger.len() - 1);
                    Self::add(&mut tab[p], t.danger[u]);
                    if S::ON {
                        sink.entry(p, t.layout.danger_index(u));
                    }
                }
                if shelter_on {
                    let n = sheltering.min(t.shelter.len() - 1);
                    Self::add(&mut tab[p], t.shelter[n]);
                    if S::ON {
                        sink.entry(p, t.layout.shelter_index(n));
                    }
                }
            }
            let phase = (enemy_pieces.min(enemy_start) * 256 / enemy_start.max(1)) as i32;
            let mut safety = -(danger as i64 * self.king_danger_cp as i64 * 9 * phase as i64
                / (zone_len * 256)) as i32;
            if self.king_danger_square16 > 0 {
                let d9 = danger as i64 * 9 / zone_len;
                safety -= (d9 * d9 * self.king_danger_square16 * phase as i64 / (16 * 256)) as i32;
            }
            let activity = (free as i64 * self.king_escape_cp as i64 * 8 * (256 - phase) as i64
                / ((zone_len - 1).max(1) * 256)) as i32;
            out[p] += safety + activity;
            // The side ahead (by at least a minor piece's worth) against
            // a pawnless enemy brings its king closer.
            for q in v.seating.capturable_by(seat).iter() {
                let ahead = material[p] - material[q.index()];
                if pawns[q.index()] == 0
                    && ahead >= self.least_value * 2
                    && let Some(kq) = pos.royal_cell(q)
                {
                    let dist = self.king_distance(k, kq);
                    out[p] += (self.max_king_distance - dist) * self.king_proximity_cp;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::variant::Variant;

    const SPECS: &[&str] = &[
        "chess",
        "chess960:sp=0",
        "cylinder",
        "torus",
        "diamond:n=3",
        "diamond:n=4",
        "cylinder-diamond:n=3",
        "cube",
    ];

    #[test]
    fn density_zero_is_the_seed_mobility() {
        // ρ = 0 must reproduce `ndchess mobility` (src/mobility.rs) exactly:
        // the values rest on that computation, not on a table.
        for spec in SPECS {
            let v = Variant::from_spec(spec).unwrap();
            let r = mobility::report(&v);
            for k in &r.kinds {
                let seed = k.total() as f64 / k.cells() as f64;
                let ours = density_mobility(&v, k.kind, 0.0);
                assert!(
                    (seed - ours).abs() < 1e-9,
                    "{spec} kind {}: {seed} vs {ours}",
                    k.kind
                );
            }
        }
    }

    #[test]
    fn most_visits_of_one_piece_on_a_cell() {
        // On a flat board the rays from a cell leave it in different
        // directions and the leaps are distinct cells, so one piece
        // reaches a cell once. On the cylinder (8 files wrapping) a rook
        // on a rank walks 7 cells each way and meets the other 7 cells of
        // its rank from both sides, and a bishop's two rising diagonals
        // meet 4 ranks up (files f - 4 and f + 4 are one file); a cell
        // lies on one rank and its diagonal cells on others, so no piece
        // meets a cell three times.
        for (spec, most) in [
            ("chess", 1),
            ("diamond:n=3", 1),
            ("diamond:n=4", 1),
            ("cube", 1),
            ("cylinder", 2),
        ] {
            let v = Variant::from_spec(spec).unwrap();
            assert_eq!(max_piece_visits(&v), most, "{spec}");
        }
    }

    #[test]
    fn start_positions_are_balanced() {
        // Every start position is symmetric between the two players, so the
        // only asymmetric term is the tempo of the side to move.
        for spec in SPECS {
            let v = Variant::from_spec(spec).unwrap();
            let e = Evaluator::new(&v, EvalConfig::FULL);
            let pos = Position::start(&v);
            let b = e.breakdown(&pos);
            assert_eq!(b.total, TEMPO_CP, "{spec}: {b:?}");
            assert_eq!(b.material[0], b.material[1], "{spec}");
        }
    }

    #[test]
    fn start_positions_are_balanced_with_tables_and_phase_scales() {
        // Tables are read through each seat's view, so with every table
        // filled with arbitrary entries and the phase scales off 1 each
        // start position still evaluates to the tempo alone.
        use rand::{RngExt, SeedableRng};
        for spec in SPECS {
            let v = Variant::from_spec(spec).unwrap();
            let layout = tables::Layout::of(&v);
            let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
            let mut x: Vec<f64> = (0..layout.len)
                .map(|_| rng.random_range(-90.0..90.0f64).round())
                .collect();
            for s in x.iter_mut().take(tables::TEMPO_INDEX) {
                *s = rng.random_range(0.5..1.5f64);
            }
            x[tables::TEMPO_INDEX] = TEMPO_CP as f64;
            let mut w = EvalWeights::default();
            layout.write_params(&v, &x, &mut w);
            let e = Evaluator::with_weights(&v, EvalConfig::FULL, &w);
            assert!(e.tables.is_some(), "{spec}");
            let b = e.breakdown(&Position::start(&v));
            assert_eq!(b.total, TEMPO_CP, "{spec}: {b:?}");
            assert_eq!(b.phase, tables::PHASE_FULL, "{spec}");
            assert!(b.tables.iter().any(|&t| t != 0), "{spec}: the tables count");
        }
    }

    #[test]
    fn chess_values_order() {
        // Queen > rook > minor pieces > pawn, all measured, none typed.
        let v = Variant::from_spec("chess").unwrap();
        let e = Evaluator::new(&v, EvalConfig::FULL);
        let val = |c: char| e.value(v.kind_by_letter(c).unwrap());
        assert_eq!(val('P'), 100);
        assert!(val('Q') > val('R'));
        assert!(val('R') > val('B'));
        assert!(val('B') > val('P') * 2 && val('N') > val('P') * 2);
        assert_eq!(val('K'), 0);
    }

    #[test]
    fn cell_mobility_averages_to_the_kind_mobility() {
        // The centrality term's per-cell mobility is the kind's measured
        // mobility cell by cell: its average over the board is the kind's
        // `density_mobility` on every board (for leapers that is the
        // seed's count, `ndchess mobility`; for sliders the average over
        // the cells it may stand on, which are all), and a knight has
        // most moves in the middle (2, 3 and 8 moves counted by hand).
        for spec in SPECS {
            let v = Variant::from_spec(spec).unwrap();
            let rho = 0.25;
            for (kind, k) in v.kinds.iter().enumerate() {
                let per_cell = cell_mobility(&v, kind, rho);
                if k.pawn.is_some() {
                    assert!(per_cell.is_empty());
                    continue;
                }
                let mean = per_cell.iter().sum::<f64>() / per_cell.len() as f64;
                let whole = density_mobility(&v, kind, rho);
                assert!(
                    (mean - whole).abs() < 1e-9,
                    "{spec} {}: {mean} {whole}",
                    k.letter
                );
            }
        }
        let v = Variant::from_spec("chess").unwrap();
        let knight = cell_mobility(&v, v.kind_by_letter('N').unwrap(), 0.25);
        let cell = |name: &str| v.geometry.parse_cell(name).unwrap();
        assert_eq!(knight[cell("a1")], 2.0);
        assert_eq!(knight[cell("b1")], 3.0);
        assert_eq!(knight[cell("d4")], 8.0);
        let w = EvalWeights {
            centrality_fraction: 0.25,
            ..EvalWeights::default()
        };
        let e = Evaluator::with_weights(&v, EvalConfig::FULL, &w);
        let n = v.kind_by_letter('N').unwrap();
        assert!(e.centrality[n][cell("d4")] > 0 && e.centrality[n][cell("a1")] < 0);
        assert!(e.centrality[v.royal_kind.unwrap()].is_empty());
        // Off (the default), no tables.
        let off = Evaluator::new(&v, EvalConfig::FULL);
        assert!(off.centrality.iter().all(Vec::is_empty));
    }

    #[test]
    fn threatened_pieces_cost_a_fraction_of_their_value() {
        // White's knight on d4: attacked by a pawn (e5) costs the threat
        // fraction of its value; attacked by a rook and undefended, half
        // of it; defended by a pawn against the rook, nothing. Black's
        // pieces stand where nothing of White's reaches them.
        let v = Variant::from_spec("chess").unwrap();
        let e = Evaluator::new(&v, EvalConfig::FULL);
        let n = e.value(v.kind_by_letter('N').unwrap());
        let f1024 = (e.weights().threat_fraction * 1024.0).round() as i32;
        let threats = |fen: &str| {
            let pos = Position::from_text(&v, fen).unwrap();
            e.breakdown(&pos).threats
        };
        assert_eq!(
            threats("k7/8/8/4p3/3N4/8/8/K7 w - - 0 1")[0],
            -(2 * n * f1024 / 2048)
        );
        assert_eq!(
            threats("k2r4/8/8/8/3N4/8/8/K7 w - - 0 1")[0],
            -(n * f1024 / 2048)
        );
        assert_eq!(threats("k2r4/8/8/8/3N4/2P5/8/K7 w - - 0 1")[0], 0);
    }

    #[test]
    fn pawn_progress_grows_towards_promotion() {
        let v = Variant::from_spec("chess").unwrap();
        let e = Evaluator::new(&v, EvalConfig::FULL);
        let g = &v.geometry;
        let pawn = v.kind_by_letter('P').unwrap();
        let at = |rank: i32| e.progress[0][pawn][g.cell_at(&[rank, 4]).unwrap()];
        // Progress counts pawn moves: with the double step, the third rank
        // is no nearer the goal than the second.
        assert_eq!(at(1), 0);
        assert_eq!(at(2), 0);
        for r in 3..7 {
            assert!(at(r) > at(r - 1), "rank {r}");
        }
        // Black's pawns advance downwards.
        let black = |rank: i32| e.progress[1][pawn][g.cell_at(&[rank, 4]).unwrap()];
        assert!(black(1) > black(5));
    }

    #[test]
    fn passed_pawns_of_the_8x8_board_are_the_classical_ones() {
        // The classical definition, written per coordinates: a white pawn
        // on (rank, file) is stopped by a black pawn ahead of it on its
        // own file or a neighbouring one; a black pawn, mirrored.
        let v = Variant::from_spec("chess").unwrap();
        let w = EvalWeights {
            passed_fraction: 0.25,
            ..EvalWeights::default()
        };
        let e = Evaluator::with_weights(&v, EvalConfig::FULL, &w);
        let g = &v.geometry;
        let pawn = v.kind_by_letter('P').unwrap();
        let kinds = v.kinds.len();
        for (seat, ahead) in [(0usize, 1i32), (1, -1)] {
            let masks = &e.passed_masks[seat * kinds + pawn];
            for rank in 1..7 {
                for file in 0..8 {
                    let c = g.cell_at(&[rank, file]).unwrap();
                    for x in 0..64 {
                        let (r, f) = (g.coord(x, 0), g.coord(x, 1));
                        let classical = (r - rank) * ahead > 0 && (f - file).abs() <= 1;
                        assert_eq!(masks[c] >> x & 1 == 1, classical, "seat {seat} {c} {x}");
                    }
                }
            }
        }
        // The bonus comes on top of the progress only for passed pawns.
        let eval = |fen: &str| {
            let pos = Position::from_text(&v, fen).unwrap();
            e.breakdown(&pos).pawn_progress[0]
        };
        let progress = e.progress[0][pawn][g.cell_at(&[4, 4]).unwrap()];
        let bonus = e.passed_bonus[0][pawn][g.cell_at(&[4, 4]).unwrap()];
        assert!(bonus > 0);
        assert_eq!(eval("4k3/8/8/4P3/8/8/8/4K3 w - - 0 1"), progress + bonus);
        assert_eq!(eval("4k3/3p4/8/4P3/8/8/8/4K3 w - - 0 1"), progress);
        assert_eq!(eval("4k3/8/8/4P3/3p4/8/8/4K3 w - - 0 1"), progress + bonus);
        // Off by default: no masks.
        let plain = Evaluator::new(&v, EvalConfig::FULL);
        assert!(plain.passed_masks.is_empty());
    }

    #[test]
    fn doubled_and_isolated_pawns_cost_a_fraction_of_their_value() {
        let v = Variant::from_spec("chess").unwrap();
        let w = EvalWeights {
            doubled_fraction: 0.1,
            isolated_fraction: 0.2,
            ..EvalWeights::default()
        };
        let e = Evaluator::with_weights(&v, EvalConfig::FULL, &w);
        let pawn = e.value(v.kind_by_letter('P').unwrap());
        let structure = |fen: &str| {
            let pos = Position::from_text(&v, fen).unwrap();
            e.breakdown(&pos).pawn_structure
        };
        // White: e2 and e4 doubled (e2 pays), both isolated; b2 c2
        // neighbours. Black: h7 isolated.
        let (doubled, isolated) = (
            (pawn as f64 * 0.1).round() as i32,
            (pawn as f64 * 0.2).round() as i32,
        );
        assert_eq!(
            structure("4k3/7p/8/8/4P3/8/1PP1P3/4K3 w - - 0 1"),
            vec![-doubled - 2 * isolated, -isolated]
        );
        // Off by default: no masks, no cost.
        let plain = Evaluator::new(&v, EvalConfig::FULL);
        assert!(plain.pawn_files.iter().all(Option::is_none));
        let pos = Position::from_text(&v, "4k3/7p/8/8/4P3/8/1PP1P3/4K3 w - - 0 1").unwrap();
        assert_eq!(plain.breakdown(&pos).pawn_structure, vec![0, 0]);
    }

    #[test]
    fn pieces_on_open_and_half_open_lines_earn_a_bonus() {
        let v = Variant::from_spec("chess").unwrap();
        let w = EvalWeights {
            open_line_fraction: 0.25,
            ..EvalWeights::default()
        };
        let e = Evaluator::with_weights(&v, EvalConfig::FULL, &w);
        let unit = (0.25 * w.piece_cp_per_move).round() as i32;
        let lines = |fen: &str| {
            let pos = Position::from_text(&v, fen).unwrap();
            e.breakdown(&pos).open_lines
        };
        // White: the rook on the open a-file (2), the queen on the d-file
        // half-open (a black pawn on d6: 1), the rook on e1 behind its own
        // pawn (0). Black: the rook on h8 on the h-file half-open (a white
        // pawn on h3: 1).
        assert_eq!(
            lines("4k2r/8/3p4/8/8/7P/4P3/R2QR1K1 w - - 0 1"),
            vec![3 * unit, unit]
        );
        let plain = Evaluator::new(&v, EvalConfig::FULL);
        assert!(plain.open_lines.is_none());
    }

    #[test]
    fn king_distance_metrics() {
        let chess = Variant::from_spec("chess").unwrap();
        let e = Evaluator::new(&chess, EvalConfig::FULL);
        let g = &chess.geometry;
        let a1 = g.cell_at(&[0, 0]).unwrap();
        let h8 = g.cell_at(&[7, 7]).unwrap();
        let c2 = g.cell_at(&[1, 2]).unwrap();
        assert_eq!(e.king_distance(a1, h8), 7);
        assert_eq!(e.king_distance(a1, c2), 2);
        // The cube's king steps along one axis only: Manhattan distance.
        let cube = Variant::from_spec("cube").unwrap();
        let e = Evaluator::new(&cube, EvalConfig::FULL);
        let g = &cube.geometry;
        let a = g.cell_at(&[0, 0, 0]).unwrap();
        let b = g.cell_at(&[3, 3, 3]).unwrap();
        assert_eq!(e.king_distance(a, b), 9);
    }
}

#[cfg(test)]
mod free_passer_tests {
    use std::sync::Arc;

    use super::*;
    use crate::rules::notation::text::position_from_text;

    /// Whether the first seat's pawn on `cell` uses its free entry in
    /// `fen`, on the one-word path (`walk` false) or the generic walk.
    fn free_entry_used(fen: &str, cell: &str, walk: bool) -> bool {
        seat_free_entry_used(fen, 0, cell, walk)
    }

    /// Whether seat `seat` uses the free entry of the first seat's view
    /// cell `view_cell` in `fen`.
    fn seat_free_entry_used(fen: &str, seat: usize, view_cell: &str, walk: bool) -> bool {
        let v = Arc::new(Variant::from_spec("chess").unwrap());
        let mut e = Evaluator::for_tuning(&v, &EvalWeights::for_variant(&v));
        if walk {
            e.one_word = None;
        }
        let pos = position_from_text(&v, fen).unwrap();
        let c = v.geometry.parse_cell(view_cell).unwrap();
        let pawn = v.kinds.iter().position(|k| k.pawn.is_some()).unwrap();
        let t = e.layout().expect("the tuning evaluator has every table");
        let index = t.free_index(pawn, c);
        let (_, entries) = e.features(&pos, &mut EvalScratch::default());
        entries.contains(&(seat, index))
    }

    #[test]
    fn a_passed_pawn_is_free_only_with_its_step_empty_and_unattacked() {
        for walk in [false, true] {
            // e5 passed, e6 empty, nothing black attacks e6: free.
            assert!(free_entry_used(
                "4k3/8/8/4P3/8/8/8/4K3 w - - 0 1",
                "e5",
                walk
            ));
            // A black knight on e6 blocks it.
            assert!(!free_entry_used(
                "4k3/8/4n3/4P3/8/8/8/4K3 w - - 0 1",
                "e5",
                walk
            ));
            // A black knight on g7 attacks e6.
            assert!(!free_entry_used(
                "4k3/6n1/8/4P3/8/8/8/4K3 w - - 0 1",
                "e5",
                walk
            ));
            // The black king on d7 attacks e6.
            assert!(!free_entry_used(
                "8/3k4/8/4P3/8/8/8/4K3 w - - 0 1",
                "e5",
                walk
            ));
            // A white piece on e6 blocks its own pawn too.
            assert!(!free_entry_used(
                "4k3/8/4N3/4P3/8/8/8/4K3 w - - 0 1",
                "e5",
                walk
            ));
            // Not passed (a black pawn on d7 guards e6's file neighbour):
            // no free entry whatever its step.
            assert!(!free_entry_used(
                "4k3/3p4/8/4P3/8/8/8/4K3 w - - 0 1",
                "e5",
                walk
            ));
            // Black's passed pawn on d4 reads the entry of its image d5
            // (the ranks reflected): free with d3 empty, not with a white
            // knight on b2 attacking d3.
            let black = "4k3/8/8/8/3p4/8/8/4K3 b - - 0 1";
            assert!(seat_free_entry_used(black, 1, "d5", walk));
            let attacked = "4k3/8/8/8/3p4/8/1N6/4K3 b - - 0 1";
            assert!(!seat_free_entry_used(attacked, 1, "d5", walk));
        }
    }
}
