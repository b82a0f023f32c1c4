//! The generator's bitboard backend for boards of at most 128 cells: every
//! set of cells is one `Word`, a `u64` on boards of at most 64 cells
//! (chess, Chess960, the cylinder, the cube), a `u128` on boards of at
//! most 128 (the torus, Raumschach). One source serves both widths.
//!
//! Sliding attacks come from magic-multiplication tables (searched once
//! per board and direction set) where one fits, else from walking the
//! rays by segments: a ray is split into segments along which the
//! flattened index only grows or only shrinks (one segment on a board
//! without wrap, more where the ray goes round), so the first blocker of
//! a segment is its lowest or highest set bit (the torus's diagonals go
//! round the board for up to 55 cells: no magic table could index them;
//! a segment never leaves its 64-bit word, so walks work on words). The
//! rules — checking lines, pins, pawn pushes, en passant, castling — come
//! from `super::legal`; this backend only answers them with bit
//! operations, and moves unpinned pawns set-wise where every pawn step is,
//! cell by cell, one of a few index shifts (one on a board without wrap).
//! When the generator only counts, it takes the pieces kind by kind from
//! the kinds' bitboards (lists keep the cell order of the shared driver).
//! It finds checks and pins from the enemy sliders that see the king on
//! the empty board and line tables between cells (on boards whose rays go
//! round, every ray from one cell that meets another), instead of walking
//! the king's rays; castling is tested with cell sets.
//! Its agreement with the ray-walking backend is tested in
//! `tests/rules/fast_path.rs` and by perft.
//!
//! Variants whose tables would not fit — more than 128 cells, more than
//! eight leap tables or ray groups — take the ray-walking backend.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use arrayvec::ArrayVec;

use crate::board::geometry::{Cell, RayRef};
use crate::board::piece::{NO_CELL, piece_seat};
use crate::board::seating::Seat;
use crate::board::variant::Variant;
use crate::rules::exchange::{self, MAX_EXCHANGE_CELLS, MAX_TAKERS, ROYAL_EXCHANGE_VALUE};
use crate::rules::moves::{Move, MoveKind};
use crate::rules::position::Position;

use super::legal::{self, Backend, push_en_passant, push_pawn_move};
use super::magics::KNOWN_MAGICS;
use super::word::{Cells, Word, at};
use super::{GenType, MoveSink};

/// A flat table of `W::BITS * n` sets as `n` per-cell rows.
fn per_cell<W: Word>(flat: &[W]) -> Vec<W::Row> {
    flat.chunks_exact(W::BITS)
        .map(|chunk| {
            let mut row = W::empty_row();
            row.as_mut().copy_from_slice(chunk);
            row
        })
        .collect()
}

/// The union of the sets `set(first + i)` for every bit `i` of `mask`
/// (`set`: a position's set by index).
#[inline(always)]
fn union_of<W: Word>(set: impl Fn(usize) -> W, first: usize, mut mask: u64) -> W {
    let mut out = W::ZERO;
    while mask != 0 {
        out |= set(first + mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
    out
}

/// The set of the cells `cs`.
fn set_of<W: Word>(cs: &[u16]) -> W {
    cs.iter().fold(W::ZERO, |m, &c| m | W::bit(c as usize))
}

/// A piece of a ray along which cell indices are monotonic, within one
/// 64-bit word of the set (so that a walk works on words even where sets
/// are wider).
#[derive(Clone, Copy, Debug)]
struct Segment {
    /// The segment's cells in word `word`.
    mask: u64,
    word: u8,
    increasing: bool,
}

/// The cells attacked along a ray made of `segments` given the occupancy
/// `occ` (up to and including the first occupied cell).
#[inline(always)]
fn walk_segments<W: Word>(segments: &[Segment], occ: W) -> W {
    let mut attacks = W::ZERO;
    for seg in segments {
        let word = seg.word as usize;
        let blockers = seg.mask & occ.word(word);
        if blockers == 0 {
            attacks |= W::from_word(seg.mask, word);
            continue;
        }
        return attacks | W::from_word(seg.mask & upto(seg.increasing, blockers), word);
    }
    attacks
}

/// One ray's segments: the first at hand (most rays end in it on a
/// crowded board), the others a range of a segment list.
#[derive(Clone, Copy, Debug)]
struct RayWalk {
    first: Segment,
    /// The other segments: `segments[rest..rest + more]`.
    rest: u32,
    more: u8,
}

impl RayWalk {
    /// The walk of the ray `ray` (its cells in order), its segments
    /// after the first appended to `segments`.
    fn new(ray: &[u16], segments: &mut Vec<Segment>) -> RayWalk {
        let mut all = Vec::new();
        segments_of(ray, &mut all);
        let rest = segments.len() as u32;
        let first = all.first().copied().unwrap_or(Segment {
            mask: 0,
            word: 0,
            increasing: true,
        });
        segments.extend(all.iter().skip(1));
        RayWalk {
            first,
            rest,
            more: all.len().saturating_sub(1) as u8,
        }
    }

    /// The cells attacked along the ray given the occupancy `occ` (up to
    /// and including the first occupied cell); `segments` is the list
    /// [`RayWalk::new`] appended to.
    #[inline(always)]
    fn attacks<W: Word>(&self, segments: &[Segment], occ: W) -> W {
        let first = self.first;
        let word = first.word as usize;
        let blockers = first.mask & occ.word(word);
        if blockers != 0 {
            return W::from_word(first.mask & upto(first.increasing, blockers), word);
        }
        let attacks = W::from_word(first.mask, word);
        if self.more == 0 {
            return attacks;
        }
        let (start, more) = (self.rest as usize, self.more as usize);
        attacks | walk_segments(&segments[start..start + more], occ)
    }
}

/// The cells of a segment up to its first blocker among `blockers`: the
/// lowest one's and those below it going up, the highest one's and those
/// above going down.
#[inline(always)]
fn upto(increasing: bool, blockers: u64) -> u64 {
    if increasing {
        blockers ^ blockers.wrapping_sub(1)
    } else {
        !0u64 << (63 - blockers.leading_zeros())
    }
}

/// The segments of the ray `ray` (its cells in order), split where the
/// index order turns and where the ray crosses into another word.
fn segments_of(ray: &[u16], out: &mut Vec<Segment>) {
    let word = |c: u16| (c / 64) as u8;
    let bit = |c: u16| 1u64 << (c % 64);
    let mut i = 0;
    while i < ray.len() {
        let mut mask = bit(ray[i]);
        let mut j = i + 1;
        let increasing = j < ray.len() && ray[j] > ray[i];
        while j < ray.len() && (ray[j] > ray[j - 1]) == increasing && word(ray[j]) == word(ray[i]) {
            mask |= bit(ray[j]);
            j += 1;
        }
        out.push(Segment {
            mask,
            word: word(ray[i]),
            increasing,
        });
        i = j;
    }
}

/// Bitboard tables of a board of at most `W::BITS` cells.
#[derive(Debug)]
pub(crate) struct Tables<W: Word> {
    directions: usize,
    /// Per (cell, direction): the ray's walk (its other segments in
    /// `segments`).
    rays: Vec<RayWalk>,
    segments: Vec<Segment>,
    /// Per leap table, per cell: the targets.
    leaps: Vec<W::Row>,
    /// Same index: the cells from which the leap reaches the cell.
    leap_sources: Vec<W::Row>,
    /// Per direction `d`: the ray group whose sliders attack a cell from
    /// the far end of its ray along `d` (`u8::MAX`: none).
    dir_group: Vec<u8>,
    /// Number of piece kinds.
    kinds: usize,
    /// Per player and kind (`player * kinds + kind`), per cell: a pawn's
    /// capture targets.
    pawn_captures: Vec<W::Row>,
    /// Same index: the cells from which such a pawn captures onto the cell.
    pawn_attackers: Vec<W::Row>,
    /// Distinct slider-kind masks with the directions that use them, for
    /// the attack test: (mask of kinds attacking from the far end, dirs).
    ray_groups: Vec<(u16, Vec<usize>)>,
    /// Whether some slide table walks its rays (else every one is a
    /// magic table, and the backend takes [`SlideTable::magic_attacks`]).
    walks: bool,
    /// Per ray group: the slide table of its directions.
    ray_group_magics: Vec<Arc<SlideTable<W>>>,
    /// Per kind: slide tables whose union are its slides (empty for
    /// non-sliders).
    kind_magics: Vec<Vec<Arc<SlideTable<W>>>>,
    /// The kinds of [`Role::Piece`], in increasing order, each with the
    /// shape of its moves (the counter's loop looks nothing else up).
    piece_shapes: Vec<(usize, PieceShape<W>)>,
    /// Per (cell, direction): the whole ray on the empty board.
    full_rays: Vec<W>,
    /// Per player and kind (`player * kinds + kind`): set-wise pawn steps,
    /// where every step of the pawn is a constant index shift (boxes
    /// without wrap); `None` where the per-pawn path is used.
    pawn_lanes: Vec<Option<PawnLanes<W>>>,
    promotion_zone: Vec<W>,
    /// Lines between cells, where two cells share at most one line.
    lines: Option<Lines<W>>,
    /// Lines between cells on boards whose rays go round (the torus),
    /// where two cells may share two rays.
    wrap_lines: Option<WrapLines<W>>,
    /// Per role (indexed by `Role as usize`): the kinds of that role, in
    /// increasing order.
    kinds_by_role: [Vec<u8>; 3],
    /// Per seat `us`: (the seats whose pieces `us` may capture, the seats
    /// whose attacks on `us`'s king are check), one bit per seat index.
    seat_relations: Vec<(u64, u64)>,
    /// Per (king cell, rook cell) (`king * W::BITS + rook`): the castlings
    /// of that rook with that king (empty without castling).
    castlings: Vec<Vec<CastlingMasks<W>>>,
}

/// One castling of the variant as cell sets.
#[derive(Clone, Copy, Debug)]
struct CastlingMasks<W: Word> {
    /// Cells that must be empty (the king and the castling rook excepted).
    empty: W,
    /// Cells the king crosses, which must not be attacked.
    crossed: W,
    king_to: u16,
    rook_to: u16,
}

/// How the counter takes the targets of a kind of [`Role::Piece`]: the
/// usual shapes with their tables at hand, any other by
/// [`Bits::targets`].
#[derive(Debug)]
enum PieceShape<W: Word> {
    /// Leaps of one table (its index), no slides.
    Leaper(usize),
    /// Slides of one table, no leaps.
    Slider(Arc<SlideTable<W>>),
    /// Slides of two tables (a queen's), no leaps.
    TwoSliders(Arc<SlideTable<W>>, Arc<SlideTable<W>>),
    /// Any other combination.
    General,
}

/// How the generator moves the pieces of a kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// A royal piece: each target tested for attacks.
    Royal,
    /// A pawn: pushes, double steps, captures, en passant, promotion.
    Pawn,
    /// Any other piece: leaps and slides, restricted by checks and pins.
    Piece,
}

/// Line tables of a board on which two cells lie on at most one common
/// ray (boards without wrap): a slider's check or pin is then found from
/// the slider and the king alone, without walking the king's rays.
#[derive(Debug)]
struct Lines<W: Word> {
    /// Per cell `a`, per cell `b`: the cells strictly between `a` and `b`
    /// on their common ray, with `b` added (empty if there is none).
    between: Vec<W::Row>,
    /// Same index: the whole ray from `a` through `b` to the board's edge.
    through: Vec<W::Row>,
    /// Per ray group, per cell: the cells on the rays of the group's
    /// directions from the cell, on the empty board.
    group_rays: Vec<W::Row>,
}

impl<W: Word> Lines<W> {
    /// The tables, or `None` if some two cells share more than one ray
    /// (or a ray meets itself).
    fn new(g: &crate::board::geometry::Geometry, groups: &[(u16, Vec<usize>)]) -> Option<Self> {
        let cells = g.cell_count();
        let nd = g.directions().len();
        let mut between = vec![W::empty_row(); W::BITS];
        let mut through = vec![W::empty_row(); W::BITS];
        for a in 0..cells {
            for d in 0..nd {
                let ray = g.ray(a, d);
                let full: W = set_of(ray);
                if full.count() as usize != ray.len() || full.has(a) {
                    return None;
                }
                let mut upto = W::ZERO;
                for &b in ray {
                    let b = b as usize;
                    upto |= W::bit(b);
                    if !through[a].as_ref()[b].is_empty() {
                        return None;
                    }
                    between[a].as_mut()[b] = upto;
                    through[a].as_mut()[b] = full;
                }
            }
        }
        Some(Lines {
            between,
            through,
            group_rays: group_rays::<W>(g, groups),
        })
    }
}

/// Per ray group, per cell: the cells on the rays of the group's
/// directions from the cell, on the empty board.
fn group_rays<W: Word>(
    g: &crate::board::geometry::Geometry,
    groups: &[(u16, Vec<usize>)],
) -> Vec<W::Row> {
    let cells = g.cell_count();
    let flat: Vec<W> = groups
        .iter()
        .flat_map(|(_, dirs)| {
            (0..W::BITS).map(move |c| {
                if c < cells {
                    dirs.iter()
                        .fold(W::ZERO, |m, &d| m | set_of::<W>(g.ray(c, d)))
                } else {
                    W::ZERO
                }
            })
        })
        .collect();
    per_cell(&flat)
}

/// Line tables of a board whose rays go round (the torus, the cylinder):
/// two cells may share more than one ray (the two ways round a rank), so
/// each pair keeps the rays from the first cell through the second, a
/// slider's check or pin then found from the slider and the king alone
/// as on [`Lines`]' boards.
#[derive(Debug)]
struct WrapLines<W: Word> {
    /// Per (cell `a`, cell `b`) (`a * W::BITS + b`): a range of `lines`.
    shared: Vec<(u32, u8)>,
    /// Each slide direction from `a` whose ray meets `b`, with the cells
    /// from `a` (excluded) to `b` (included) along it (on the torus up to
    /// four: the two ways round each diagonal through `b`).
    lines: Vec<(u8, W)>,
    /// Per ray group, per cell: the cells on the rays of the group's
    /// directions from the cell, on the empty board.
    group_rays: Vec<W::Row>,
}

impl<W: Word> WrapLines<W> {
    /// The tables for the slide directions of `groups` (`dir_group`:
    /// each direction's group).
    fn new(
        g: &crate::board::geometry::Geometry,
        groups: &[(u16, Vec<usize>)],
        dir_group: &[u8],
    ) -> Self {
        let cells = g.cell_count();
        let mut shared = vec![(0u32, 0u8); W::BITS * W::BITS];
        let mut lines = Vec::new();
        for a in 0..cells {
            let mut per_b: Vec<Vec<(u8, W)>> = vec![Vec::new(); cells];
            for (d, &gi) in dir_group.iter().enumerate() {
                if gi == u8::MAX {
                    continue;
                }
                let mut upto = W::ZERO;
                for &b in g.ray(a, d) {
                    upto |= W::bit(b as usize);
                    per_b[b as usize].push((d as u8, upto));
                }
            }
            for (b, found) in per_b.into_iter().enumerate() {
                shared[a * W::BITS + b] = (lines.len() as u32, found.len() as u8);
                lines.extend(found);
            }
        }
        WrapLines {
            shared,
            lines,
            group_rays: group_rays::<W>(g, groups),
        }
    }
}

impl<W: Word> WrapLines<W> {
    /// The rays from `a` that meet `b`, each with its cells up to `b`.
    #[inline(always)]
    fn between(&self, a: Cell, b: Cell) -> &[(u8, W)] {
        let (start, len) = self.shared[a * W::BITS + b];
        let (start, len) = (start as usize, len as usize);
        &self.lines[start..start + len]
    }

    /// Whether a slider of `attackers` (of ray group `gi`) attacks `cell`
    /// under the occupancy `occ`: along one of its group's rays from the
    /// cell, nothing between.
    #[inline(always)]
    fn sees(&self, t: &Tables<W>, gi: usize, cell: Cell, attackers: W, occ: W) -> bool {
        let mut snipers = at::<W>(&self.group_rays[gi], cell) & attackers;
        while !snipers.is_empty() {
            let s = snipers.first();
            snipers = snipers.without_first();
            for &(d, line) in self.between(cell, s) {
                if t.dir_group[d as usize] as usize == gi && (line & occ & !W::bit(s)).is_empty() {
                    return true;
                }
            }
        }
        false
    }
}

/// A pawn kind's steps as index shifts, for moving all pawns at once.
#[derive(Debug, Clone)]
struct PawnLanes<W: Word> {
    /// (shift, cells the push starts from, cells a double push starts from).
    pushes: Vec<(i32, W, W)>,
    /// (shift, cells the capture starts from).
    captures: Vec<(i32, W)>,
}

/// The most relevant cells a magic table indexes for one cell: 2^16
/// entries, so a table stays under 32 MB (64 cells). Chess needs 12 bits,
/// the cube 9; slides along wrapping directions can need 30 and more (a
/// billion entries, never finished), the torus's diagonals 54: such
/// directions are walked ray by ray instead ([`SlideTable::walk`]).
const MAX_MAGIC_BITS: u32 = 16;

/// The most memory one magic table may take: 16 MB (chess's rook table
/// takes 0.8 MB, the cylinder's 4 MB). Small boards whose rays all go
/// round in three dimensions (a 14x4x2 torus) would take hundreds of
/// megabytes and seconds of magic search; their rays are walked instead.
const MAX_MAGIC_BYTES: usize = 16 << 20;

/// The cells whose occupancy decides the slides from `cell` along `dirs`:
/// every ray's cells but its last (whose occupancy cannot change the
/// attacks along that ray).
fn relevant_cells<W: Word>(g: &crate::board::geometry::Geometry, cell: Cell, dirs: &[usize]) -> W {
    let mut mask = W::ZERO;
    for &d in dirs {
        if let Some((_, rest)) = g.ray(cell, d).split_last() {
            mask |= set_of::<W>(rest);
        }
    }
    mask
}

/// The attacks of one set of slide directions from every cell. Where the
/// relevant cells of every cell fit `MAX_MAGIC_BITS`, a magic-
/// multiplication lookup: `attacks[offset + ((occ & mask) * magic) >>
/// shift]`, the magics searched at set-up (deterministically) and cached
/// per board and direction set, so chess and all 960 Chess960 variants
/// share one table. Else each direction's ray is walked by its segments.
#[derive(Debug)]
pub struct SlideTable<W: Word> {
    /// The slide directions the table serves.
    dirs: Vec<usize>,
    /// Per cell (`W::BITS` entries, indexed `cell & (W::BITS - 1)`; cells
    /// past the board's last unused). A walking table has them too, all
    /// pointing at one empty set, so that [`SlideTable::magic_attacks`]
    /// is safe on any table.
    entries: Box<[MagicEntry<W>]>,
    attacks: Vec<W>,
    /// The rays by segments, where no magic table fits.
    walk: Option<Walk>,
}

/// A slide table's rays by segments.
#[derive(Debug)]
struct Walk {
    /// Per (cell, direction of the table) (`cell * dirs + k`): the ray's
    /// walk (its other segments in `segments`).
    rays: Vec<RayWalk>,
    segments: Vec<Segment>,
}

#[derive(Clone, Copy, Debug, Default)]
struct MagicEntry<W: Word> {
    mask: W,
    magic: W,
    shift: u32,
    offset: u32,
}

impl<W: Word> SlideTable<W> {
    /// The slides from `cell` under the occupancy `occ` (up to and
    /// including the first occupied cell of each ray).
    #[inline(always)]
    fn attacks(&self, cell: Cell, occ: W) -> W {
        match &self.walk {
            None => self.magic_attacks(cell, occ),
            Some(walk) => walk.attacks(cell, self.dirs.len(), occ),
        }
    }

    /// [`SlideTable::attacks`] of a magic table (the empty set for a
    /// walking one): for backends that know all their tables are magic.
    #[inline(always)]
    fn magic_attacks(&self, cell: Cell, occ: W) -> W {
        debug_assert_eq!(self.entries.len(), W::BITS);
        // SAFETY: every table has `W::BITS` entries (`build`, `walk`), and
        // the index is masked below that.
        let e = unsafe { *self.entries.get_unchecked(cell & (W::BITS - 1)) };
        let index = (occ & e.mask).magic_index(e.magic, e.shift);
        debug_assert!(e.offset as usize + index < self.attacks.len());
        // SAFETY: `build` sized the block at `offset` to `1 << (64 -
        // shift)` entries and `index` is a 64-bit product shifted right by
        // `shift`, so `offset + index` is inside `attacks` (a walking
        // table's entries have an empty mask: index 0 of its one set).
        unsafe { *self.attacks.get_unchecked(e.offset as usize + index) }
    }

    /// Whether the table walks its rays (no magic table fits).
    fn walks(&self) -> bool {
        self.walk.is_some()
    }

    /// The magic entries per cell (none for a walking table).
    #[cfg(test)]
    fn magic_entries(&self) -> &[MagicEntry<W>] {
        if self.walks() { &[] } else { &self.entries }
    }

    /// Builds the table for `dirs` from the segment tables: by magics if
    /// every cell's relevant cells fit, else by walking.
    fn build(t: &Tables<W>, g: &crate::board::geometry::Geometry, dirs: &[usize]) -> Self {
        let cells = g.cell_count();
        let masks: Vec<W> = (0..cells).map(|c| relevant_cells(g, c, dirs)).collect();
        let bytes: usize = masks
            .iter()
            .map(|m| (1usize << m.count().min(MAX_MAGIC_BITS + 1)) * std::mem::size_of::<W>())
            .sum();
        if masks.iter().any(|m| m.count() > MAX_MAGIC_BITS) || bytes > MAX_MAGIC_BYTES {
            return Self::walk(g, dirs);
        }
        let mut search = MagicSearch::new((dirs.len() as u64) << 32 ^ cells as u64);
        let mut entries = Vec::with_capacity(W::BITS);
        let mut attacks = Vec::new();
        for (cell, &mask) in masks.iter().enumerate() {
            let bits = mask.count();
            let occs = subsets(mask);
            let reference = slides_by_occupancy(t, cell, dirs, &occs);
            let offset = attacks.len();
            let (magic, shift) = if bits == 0 {
                attacks.push(reference[0]);
                (W::ZERO, 63)
            } else {
                // A magic found earlier for this mask (`KNOWN_MAGICS`, for
                // the usual boards) if it still fits; else a search, which
                // for exactly `bits` index bits can be very hard (wrapping
                // ranks), so after a bounded number of candidates the table
                // is allowed one more bit, and so on.
                let known = known_magic(mask).filter(|&m| {
                    search.fits(m, 64 - bits, &occs, &reference, &mut attacks, offset)
                });
                match known {
                    Some(m) => (m, 64 - bits),
                    None => {
                        let mut extra = 0;
                        loop {
                            let shift = 64 - (bits + extra);
                            let tries = if extra == 0 { 1_000 } else { 100_000 };
                            if let Some(m) = search.find(
                                mask,
                                shift,
                                tries,
                                &occs,
                                &reference,
                                &mut attacks,
                                offset,
                            ) {
                                break (m, shift);
                            }
                            extra += 1;
                        }
                    }
                }
            };
            entries.push(MagicEntry {
                mask,
                magic,
                shift,
                offset: offset as u32,
            });
        }
        entries.resize(W::BITS, MagicEntry::default());
        SlideTable {
            dirs: dirs.to_vec(),
            entries: entries.into_boxed_slice(),
            attacks,
            walk: None,
        }
    }

    /// The table for `dirs` that walks each direction's ray by segments.
    fn walk(g: &crate::board::geometry::Geometry, dirs: &[usize]) -> Self {
        let cells = g.cell_count();
        let mut rays = Vec::with_capacity(cells * dirs.len());
        let mut segments = Vec::new();
        for cell in 0..cells {
            for &d in dirs {
                rays.push(RayWalk::new(g.ray(cell, d), &mut segments));
            }
        }
        SlideTable {
            dirs: dirs.to_vec(),
            entries: vec![MagicEntry::default(); W::BITS].into_boxed_slice(),
            attacks: vec![W::ZERO],
            walk: Some(Walk { rays, segments }),
        }
    }
}

impl Walk {
    /// The slides from `cell` along the table's `dirs` directions under
    /// the occupancy `occ`.
    #[inline(always)]
    fn attacks<W: Word>(&self, cell: Cell, dirs: usize, occ: W) -> W {
        let mut attacks = W::ZERO;
        for ray in &self.rays[cell * dirs..cell * dirs + dirs] {
            attacks |= ray.attacks(&self.segments, occ);
        }
        attacks
    }
}

/// The slides from `cell` along `dirs` for each occupancy of `occs`, by
/// walking the rays (what a magic table must reproduce).
fn slides_by_occupancy<W: Word>(t: &Tables<W>, cell: Cell, dirs: &[usize], occs: &[W]) -> Vec<W> {
    occs.iter()
        .map(|&o| {
            dirs.iter()
                .fold(W::ZERO, |a, &d| a | t.ray_attacks(cell, d, o))
        })
        .collect()
}

/// The subsets of `mask`, the empty set first (carry-rippler order).
fn subsets<W: Word>(mask: W) -> Vec<W> {
    let mut occs = Vec::with_capacity(1 << mask.count());
    let mut sub = W::ZERO;
    loop {
        occs.push(sub);
        // The next subset: (sub - mask) & mask, as (sub | !mask) + 1.
        sub = (sub | !mask).plus_one() & mask;
        if sub.is_empty() {
            return occs;
        }
    }
}

/// The magic found earlier for the relevant cells `mask` (the usual
/// boards' tables, [`KNOWN_MAGICS`]: one-word boards only), to be tried
/// before a search.
fn known_magic<W: Word>(mask: W) -> Option<W> {
    if W::BITS != 64 {
        return None;
    }
    let mask = mask.low_word();
    KNOWN_MAGICS
        .binary_search_by_key(&mask, |&(m, _)| m)
        .ok()
        .map(|i| W::from_low_word(KNOWN_MAGICS[i].1))
}

/// The search for magic multipliers: a deterministic random stream and the
/// scratch that tells a slot written by the current candidate from a stale
/// one.
struct MagicSearch {
    rng: u64,
    used: Vec<u32>,
    epoch: u32,
}

impl MagicSearch {
    fn new(seed: u64) -> MagicSearch {
        MagicSearch {
            rng: 0x2545_F491_4F6C_DD1D ^ seed,
            used: Vec::new(),
            epoch: 0,
        }
    }

    /// A sparse random candidate (per 64 bits, the AND of three draws of
    /// xorshift64).
    fn candidate<W: Word>(&mut self) -> W {
        let mut draw = || {
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
            self.rng
        };
        W::candidate(&mut draw)
    }

    /// Whether `magic` with `shift` maps the occupancies `occs` onto
    /// `attacks[offset..]` (sized here to `1 << (64 - shift)`) so that no
    /// two with different attacks share a slot; the block holds the
    /// attacks if it does.
    fn fits<W: Word>(
        &mut self,
        magic: W,
        shift: u32,
        occs: &[W],
        reference: &[W],
        attacks: &mut Vec<W>,
        offset: usize,
    ) -> bool {
        let size = 1usize << (64 - shift);
        attacks.resize(offset + size, W::ZERO);
        if self.used.len() < size {
            self.used.resize(size, 0);
        }
        self.epoch += 1;
        let (used, epoch) = (&mut self.used, self.epoch);
        occs.iter().zip(reference).all(|(&o, &a)| {
            let i = o.magic_index(magic, shift);
            if used[i] != epoch {
                used[i] = epoch;
                attacks[offset + i] = a;
                true
            } else {
                attacks[offset + i] == a
            }
        })
    }

    /// Up to `tries` random candidates for the relevant cells `mask` with
    /// `shift`: the first that fits (its attacks left in the block).
    #[allow(clippy::too_many_arguments)]
    fn find<W: Word>(
        &mut self,
        mask: W,
        shift: u32,
        tries: u32,
        occs: &[W],
        reference: &[W],
        attacks: &mut Vec<W>,
        offset: usize,
    ) -> Option<W> {
        let wide = mask.count() > 6;
        for _ in 0..tries {
            let candidate: W = self.candidate();
            // The product's top byte indexes the table: a candidate that
            // leaves it sparse rarely separates the occupancies.
            if wide && mask.magic_index(candidate, 56).count_ones() < 6 {
                continue;
            }
            if self.fits(candidate, shift, occs, reference, attacks, offset) {
                return Some(candidate);
            }
        }
        None
    }
}

/// The most lanes (index shifts) a pawn's step may take to be moved
/// set-wise: one on a board without wrap, two to four where the step
/// goes round (the torus); more would cost what the pawns one by one do.
const MAX_LANES: usize = 4;

/// The set-wise steps of `seat`'s pawns of kind `kind`, if every step of
/// them is, cell by cell, one of a few index shifts ("lanes": the cells
/// grouped by the shift their step takes, which is one shift on a board
/// without wrap and a few where the step goes round), each step goes to
/// its own cell, and the rule's tables list exactly those steps; `None`
/// for other kinds and where it does not hold (the pawns then move one
/// by one).
fn pawn_lanes_of<W: Word>(v: &Variant, seat: Seat, kind: usize) -> Option<PawnLanes<W>> {
    let rule = v.kinds[kind].pawn.as_ref()?;
    let g = &v.geometry;
    let cells = g.cell_count();
    let player = v.seating.info(seat);
    // The cells grouped by the index shift of the step along `dir`.
    let lanes_of = |dir: &Vec<i32>| -> Option<Vec<(i32, W)>> {
        let d = player.orient(dir);
        let mut lanes: Vec<(i32, W)> = Vec::new();
        for c in 0..cells {
            if let Some(to) = g.step(c, &d) {
                let delta = to as i32 - c as i32;
                match lanes.iter_mut().find(|l| l.0 == delta) {
                    Some(lane) => lane.1 |= W::bit(c),
                    None => lanes.push((delta, W::bit(c))),
                }
            }
        }
        (lanes.len() <= MAX_LANES).then_some(lanes)
    };
    let table = &v.pawn_tables[seat][kind];
    let mut out = PawnLanes {
        pushes: Vec::new(),
        captures: Vec::new(),
    };
    // Per cell: the single pushes and the captures the lanes give.
    let mut pushes = vec![Vec::new(); cells];
    let mut captures = vec![Vec::new(); cells];
    for dir in &rule.pushes {
        for (delta, src) in lanes_of(dir)? {
            let mut double = W::ZERO;
            for c in Cells(src) {
                let to = (c as i32 + delta) as u16;
                pushes[c].push(to);
                for pair in table.pushes.get(c).chunks_exact(2) {
                    if pair[0] == to && pair[1] != NO_CELL {
                        // The double step must take the same shift again.
                        if pair[1] as i32 != c as i32 + 2 * delta {
                            return None;
                        }
                        double |= W::bit(c);
                    }
                }
            }
            out.pushes.push((delta, src, double));
        }
    }
    for dir in &rule.captures {
        for (delta, src) in lanes_of(dir)? {
            for c in Cells(src) {
                captures[c].push((c as i32 + delta) as u16);
            }
            out.captures.push((delta, src));
        }
    }
    // The lanes must give the rule's own steps, each target once.
    for c in 0..cells {
        let firsts: Vec<u16> = table.pushes.get(c).chunks_exact(2).map(|p| p[0]).collect();
        let same = |mut a: Vec<u16>, b: &[u16]| {
            let n = a.len();
            a.sort_unstable();
            a.dedup();
            let mut b = b.to_vec();
            b.sort_unstable();
            a.len() == n && a == b
        };
        let table_captures = if table.captures.get_checked(c).is_some() {
            table.captures.get(c)
        } else {
            &[]
        };
        if !same(std::mem::take(&mut pushes[c]), &firsts)
            || !same(std::mem::take(&mut captures[c]), table_captures)
        {
            return None;
        }
    }
    Some(out)
}

impl<W: Word> Tables<W> {
    /// The numbers of ray groups and of leap tables, by which
    /// [`MoveGen::generate_for`](super::MoveGen::generate_for) picks a
    /// backend specialised for them.
    pub(crate) fn shape(&self) -> (usize, usize) {
        (self.ray_groups.len(), self.leap_sources.len())
    }

    /// The cells leap table `li` reaches from `from`.
    #[inline(always)]
    pub fn leaps_from(&self, li: usize, from: Cell) -> W {
        at::<W>(&self.leaps[li], from)
    }

    /// Whether `cell` of `pos` is attacked by a piece whose attacks on
    /// `king_owner`'s king are check:
    /// [`crate::rules::attacks::attacked_by_checkers`] set-wise (pawns by
    /// their attacker tables, leapers by their reverse leaps, sliders by
    /// one magic lookup per ray group).
    #[inline]
    pub fn attacked_by_checkers(&self, pos: &Position, cell: Cell, king_owner: Seat) -> bool {
        let v = &**pos.variant();
        let sets = pos.set_words();
        let occ = W::load(sets, v.seat_count() + self.kinds);
        self.attacked_among(v, sets, cell, king_owner, !W::ZERO, occ)
    }

    /// [`Tables::attacked_by_checkers`] on a board changed from the
    /// position's sets `sets`: only the pieces on the cells of `present`
    /// count, and `occ` is the occupancy the sliders see.
    #[inline(always)]
    fn attacked_among(
        &self,
        v: &Variant,
        sets: &[u64],
        cell: Cell,
        king_owner: Seat,
        present: W,
        occ: W,
    ) -> bool {
        let seats = v.seat_count();
        let kind = |k: usize| W::load(sets, seats + k);
        let checking_seats = self.seat_relations[king_owner.index()].1;
        let set = |i: usize| W::load(sets, i);
        let checking = union_of(set, 0, checking_seats) & present;
        let of_kinds = |mask: u16| union_of(set, seats, mask as u64) & checking;
        for &(q, k, _) in &v.checking_pawns[king_owner] {
            let pawns = W::load(sets, q.index()) & kind(k) & present;
            if !(at::<W>(&self.pawn_attackers[q.index() * self.kinds + k], cell) & pawns).is_empty()
            {
                return true;
            }
        }
        for (li, &mask) in v.kinds_by_leap.iter().enumerate() {
            if mask != 0 && !(at::<W>(&self.leap_sources[li], cell) & of_kinds(mask)).is_empty() {
                return true;
            }
        }
        for (gi, &(mask, _)) in self.ray_groups.iter().enumerate() {
            let attackers = of_kinds(mask);
            if !attackers.is_empty()
                && !(self.slide(&self.ray_group_magics[gi], cell, occ) & attackers).is_empty()
            {
                return true;
            }
        }
        false
    }

    /// The cells of `side`'s pieces that attack `cell` in a game of two
    /// seats, on a board changed from the position's sets `sets` as in
    /// [`Tables::attacked_among`]: the pawns whose attacks check the other
    /// seat (as [`crate::rules::attacks::for_each_attacker`] takes them),
    /// then `side`'s leapers and sliders.
    #[inline(always)]
    fn attackers_among(
        &self,
        v: &Variant,
        sets: &[u64],
        cell: Cell,
        side: Seat,
        present: W,
        occ: W,
    ) -> W {
        let seats = v.seat_count();
        let set = |i: usize| W::load(sets, i);
        let mine = set(side.index()) & present;
        let of_kinds = |mask: u16| union_of(set, seats, mask as u64) & mine;
        let mut found = W::ZERO;
        for &(q, k, _) in &v.checking_pawns[Seat::new(1 - side.index())] {
            found |= at::<W>(&self.pawn_attackers[q.index() * self.kinds + k], cell)
                & set(q.index())
                & set(seats + k)
                & present;
        }
        for (li, &mask) in v.kinds_by_leap.iter().enumerate() {
            if mask != 0 {
                found |= at::<W>(&self.leap_sources[li], cell) & of_kinds(mask);
            }
        }
        for (gi, &(mask, _)) in self.ray_groups.iter().enumerate() {
            let attackers = of_kinds(mask);
            if !attackers.is_empty() {
                found |= self.slide(&self.ray_group_magics[gi], cell, occ) & attackers;
            }
        }
        found
    }

    /// [`exchange::static_exchange`] set-wise: the same exchange, with
    /// each step's attackers and each taker's pin found by bit operations
    /// on the position's sets instead of by walking the board (the search
    /// asks it for most captures it orders and for moves it may prune).
    pub fn static_exchange(&self, pos: &Position, values: &[i32], m: &Move) -> Option<i32> {
        match self.exchange(pos, values, m, None)? {
            Ok(swaps) => Some(swaps.settle()),
            Err(()) => exchange::static_exchange(pos, values, m),
        }
    }

    /// [`exchange::exchange_below`] set-wise: whether the exchange of `m`
    /// lies below `t`, stopped as soon as the captures so far decide it.
    pub fn exchange_below(&self, pos: &Position, values: &[i32], m: &Move, t: i32) -> Option<bool> {
        match self.exchange(pos, values, m, Some(t))? {
            Ok(swaps) => Some(swaps.below(t)),
            Err(()) => exchange::exchange_below(pos, values, m, t),
        }
    }

    /// The captures of the exchange of `m` (all, or with a threshold `t`
    /// up to the first that decides whether the gain lies below `t`);
    /// `Err` where a step has more takers than the definition's list is
    /// sure to hold (the caller then asks the definition itself).
    fn exchange(
        &self,
        pos: &Position,
        values: &[i32],
        m: &Move,
        t: Option<i32>,
    ) -> Option<Result<exchange::Swaps, ()>> {
        let v = &**pos.variant();
        if v.seat_count() != 2 {
            return None;
        }
        let sets = pos.set_words();
        let all = W::load(sets, v.seat_count() + self.kinds);
        let to = m.to as usize;
        let moving = pos.piece_at(m.from as usize);
        // Cells whose pieces have taken (empty from then on).
        let mut gone = W::bit(m.from as usize);
        if m.kind == MoveKind::EnPassant {
            gone |= W::bit(m.aux as usize);
        }
        let mut swaps = exchange::Swaps::new(pos, values, m);
        let mut side = Seat::new(1 - piece_seat(moving).index());
        while (gone.count() as usize) < MAX_EXCHANGE_CELLS {
            if t.is_some_and(|t| swaps.settled_below(t).is_some()) {
                break;
            }
            let other = Seat::new(1 - side.index());
            let present = !gone;
            let found = self.attackers_among(v, sets, to, side, present, all & present);
            if found.count() as usize > MAX_TAKERS / 2 {
                // Beyond what the definition's list is sure to hold
                // (its attack walk may name a piece twice): the
                // definition itself.
                return Some(Err(()));
            }
            // The side's pieces attacking the target, tried least valuable
            // first (ties: the lower cell), as the definition lists them:
            // each try picks the least of those not tried yet (a pinned
            // taker is rare, so the first pick is nearly always taken,
            // and a sort of all of them would be wasted).
            let king = pos.royal_cell(side);
            let worth = |cell: Cell| exchange::exchange_value(pos, values, pos.piece_at(cell));
            let mut untried = found;
            let taker = loop {
                if untried.is_empty() {
                    break None;
                }
                let mut c = untried.first();
                let mut x = worth(c);
                let mut rest = untried.without_first();
                while !rest.is_empty() {
                    // Cells rise, so a tie keeps the lower cell.
                    let cell = rest.first();
                    let w = worth(cell);
                    if w < x {
                        (x, c) = (w, cell);
                    }
                    rest = rest.without_first();
                }
                untried &= !W::bit(c);
                let Some(k) = king.filter(|_| x != ROYAL_EXCHANGE_VALUE) else {
                    break Some((x, c));
                };
                // The taker has left `c` for the target.
                let left = present & !W::bit(c);
                if !self.attacked_among(
                    v,
                    sets,
                    k,
                    side,
                    left & !W::bit(to),
                    all & left | W::bit(to),
                ) {
                    break Some((x, c));
                }
            };
            let Some((x, c)) = taker else {
                break;
            };
            swaps.take(x);
            gone |= W::bit(c);
            side = other;
        }
        Some(Ok(swaps))
    }

    /// The slides of table `m` from `cell` under `occ`.
    #[inline(always)]
    fn slide(&self, m: &SlideTable<W>, cell: Cell, occ: W) -> W {
        if self.walks {
            m.attacks(cell, occ)
        } else {
            m.magic_attacks(cell, occ)
        }
    }

    /// Whether some slide table walks its rays (the backend is then
    /// compiled for walking tables).
    pub(crate) fn walks(&self) -> bool {
        self.walks
    }

    /// The cells a pawn of `kind` and `seat` on `from` attacks.
    #[inline(always)]
    pub fn pawn_attacks(&self, seat: Seat, kind: usize, from: Cell) -> W {
        at::<W>(&self.pawn_captures[seat.index() * self.kinds + kind], from)
    }

    /// The cells a piece of `kind` on `from` leaps or slides to under
    /// the occupancy `occ` (up to and including the first occupied cell);
    /// `leap` is the kind's leap table.
    #[inline(always)]
    pub fn piece_attacks(&self, kind: usize, leap: Option<usize>, from: Cell, occ: W) -> W {
        let mut attacks = match leap {
            Some(li) => at::<W>(&self.leaps[li], from),
            None => W::ZERO,
        };
        for m in &self.kind_magics[kind] {
            attacks |= self.slide(m, from, occ);
        }
        attacks
    }

    /// Builds the tables, or `None` for boards of more than `W::BITS`
    /// cells and for the carrying number line of finite chess, whose rays
    /// cross the whole board: those take the ray-walking backend.
    pub fn new(v: &Variant) -> Option<Tables<W>> {
        let g = &v.geometry;
        let cells = g.cell_count();
        if cells > W::BITS || g.carries() {
            return None;
        }
        let nd = g.directions().len();
        let mut rays = Vec::with_capacity(cells * nd);
        let mut segments = Vec::new();
        for cell in 0..cells {
            for d in 0..nd {
                rays.push(RayWalk::new(g.ray(cell, d), &mut segments));
            }
        }
        let to_mask = |cs: &[u16]| set_of::<W>(cs);
        let leaps: Vec<W> = v
            .leaps
            .iter()
            .flat_map(|t| {
                (0..W::BITS).map(|c| {
                    if c < cells {
                        to_mask(t.get(c))
                    } else {
                        W::ZERO
                    }
                })
            })
            .collect();
        let leap_sources: Vec<W> = (0..v.leaps.len())
            .flat_map(|li| {
                (0..W::BITS).map(move |c| {
                    if c < cells {
                        to_mask(v.leap_sources(li).get(c))
                    } else {
                        W::ZERO
                    }
                })
            })
            .collect();
        let per_pawn = |f: &dyn Fn(&crate::board::variant::PawnTable, Cell) -> W| -> Vec<W> {
            v.pawn_tables
                .values()
                .iter()
                .flat_map(|per_kind| {
                    per_kind.iter().flat_map(|t| {
                        (0..W::BITS).map(|c| if c < cells { f(t, c) } else { W::ZERO })
                    })
                })
                .collect()
        };
        let pawn_captures = per_pawn(&|t, c| {
            if t.captures.get_checked(c).is_some() {
                to_mask(t.captures.get(c))
            } else {
                W::ZERO
            }
        });
        let pawn_attackers = per_pawn(&|t, c| {
            if t.attackers.get_checked(c).is_some() {
                to_mask(t.attackers.get(c))
            } else {
                W::ZERO
            }
        });
        let mut ray_groups: Vec<(u16, Vec<usize>)> = Vec::new();
        for &(d, mask) in &v.slider_rays {
            match ray_groups.iter_mut().find(|(m, _)| *m == mask) {
                Some(group) => group.1.push(d),
                None => ray_groups.push((mask, vec![d])),
            }
        }
        // The backend keeps per-generation arrays of eight leap tables and
        // eight ray groups, and a pin slot per line of the king (at most
        // one pinned piece per direction: 64 slots); variants with more
        // (four dimensions and up have 80 directions) take the generic
        // backend.
        if ray_groups.len() > 8 || v.leaps.len() > 8 || nd > 64 {
            return None;
        }
        let promotion_zone = v
            .promotion_zone
            .values()
            .iter()
            .map(|z| W::load(z.words(), 0))
            .collect();
        let mut dir_group = vec![u8::MAX; nd];
        let full_rays = (0..cells * nd)
            .map(|i| to_mask(g.ray(i / nd, i % nd)))
            .collect();
        let wraps = g.rays_may_meet();
        let mut pawn_lanes = Vec::new();
        for seat in v.seating.seats() {
            for ki in 0..v.kinds.len() {
                pawn_lanes.push(pawn_lanes_of(v, seat, ki));
            }
        }
        for (gi, (_, dirs)) in ray_groups.iter().enumerate() {
            for &d in dirs {
                dir_group[d] = gi as u8;
            }
        }
        let lines = if wraps {
            None
        } else {
            Lines::new(g, &ray_groups)
        };
        let wrap_lines = lines
            .is_none()
            .then(|| WrapLines::new(g, &ray_groups, &dir_group));
        let mut kinds_by_role: [Vec<u8>; 3] = Default::default();
        for (kind, k) in v.kinds.iter().enumerate() {
            let role = if k.royal {
                Role::Royal
            } else if k.pawn.is_some() {
                Role::Pawn
            } else {
                Role::Piece
            };
            kinds_by_role[role as usize].push(kind as u8);
        }
        let mut castlings = Vec::new();
        if v.has_castling() {
            castlings = (0..W::BITS * W::BITS)
                .map(|i| {
                    let (king, rook) = (i / W::BITS, i % W::BITS);
                    if king >= cells || rook >= cells {
                        return Vec::new();
                    }
                    v.castlings(king, rook)
                        .iter()
                        .map(|c| CastlingMasks {
                            empty: to_mask(&c.must_be_empty) & !(W::bit(king) | W::bit(rook)),
                            crossed: to_mask(&c.crossed),
                            king_to: c.king_to,
                            rook_to: c.rook_to,
                        })
                        .collect()
                })
                .collect();
        }
        let seat_relations = v
            .seating
            .seats()
            .map(|us| {
                v.seating.seats().fold((0, 0), |(cap, chk), q| {
                    let bit = 1u64 << q.index();
                    (
                        if v.seating.may_capture(us, q) {
                            cap | bit
                        } else {
                            cap
                        },
                        if v.seating.gives_check(q, us) {
                            chk | bit
                        } else {
                            chk
                        },
                    )
                })
            })
            .collect();
        let mut t = Tables {
            seat_relations,
            castlings,
            kinds_by_role,
            lines,
            wrap_lines,
            dir_group,
            leap_sources: per_cell(&leap_sources),
            pawn_lanes,
            directions: nd,
            rays,
            segments,
            leaps: per_cell(&leaps),
            kinds: v.kinds.len(),
            pawn_captures: per_cell(&pawn_captures),
            pawn_attackers: per_cell(&pawn_attackers),
            ray_groups,
            walks: false,
            ray_group_magics: Vec::new(),
            kind_magics: Vec::new(),
            piece_shapes: Vec::new(),
            full_rays,
            promotion_zone,
        };
        let key = format!("{:x}", g.fingerprint());
        let table_for = |dirs: &[usize]| -> Option<Arc<SlideTable<W>>> {
            let mut sorted = dirs.to_vec();
            sorted.sort_unstable();
            let k = format!("{}:{key}{sorted:?}", W::BITS);
            let cache = magic_cache();
            let cached = cache.lock().ok().and_then(|c| c.get(&k).cloned());
            if let Some(m) = cached.and_then(|m| m.downcast::<SlideTable<W>>().ok()) {
                return Some(m);
            }
            let m = Arc::new(SlideTable::build(&t, g, &sorted));
            if let Ok(mut c) = cache.lock() {
                c.insert(k, m.clone());
            }
            Some(m)
        };
        // Kinds slide along unions of "direction classes" (directions that
        // change the same number of coordinates): one table per class.
        let ray_group_magics: Vec<Arc<SlideTable<W>>> = t
            .ray_groups
            .iter()
            .map(|(_, dirs)| table_for(dirs))
            .collect::<Option<_>>()?;
        let kind_magics: Vec<Vec<Arc<SlideTable<W>>>> = v
            .kinds
            .iter()
            .map(|k| {
                let mut classes: Vec<Vec<usize>> = Vec::new();
                for &d in &k.slides {
                    let dim = g.direction_dims(d);
                    match classes.iter_mut().find(|c| g.direction_dims(c[0]) == dim) {
                        Some(c) => c.push(d),
                        None => classes.push(vec![d]),
                    }
                }
                classes.iter().map(|c| table_for(c)).collect()
            })
            .collect::<Option<_>>()?;
        t.piece_shapes = t.kinds_by_role[Role::Piece as usize]
            .iter()
            .map(|&kind| {
                let kind = kind as usize;
                let shape = match (v.kind_leap[kind], &kind_magics[kind][..]) {
                    (Some(li), []) => PieceShape::Leaper(li),
                    (None, [m]) => PieceShape::Slider(m.clone()),
                    (None, [m, n]) => PieceShape::TwoSliders(m.clone(), n.clone()),
                    _ => PieceShape::General,
                };
                (kind, shape)
            })
            .collect();
        t.walks = ray_group_magics
            .iter()
            .chain(kind_magics.iter().flatten())
            .any(|m| m.walks());
        t.ray_group_magics = ray_group_magics;
        t.kind_magics = kind_magics;
        Some(t)
    }

    /// Cells attacked from `cell` along direction `d` given occupancy `occ`
    /// (up to and including the first occupied cell).
    #[inline(always)]
    pub fn ray_attacks(&self, cell: Cell, d: usize, occ: W) -> W {
        self.rays[cell * self.directions + d].attacks(&self.segments, occ)
    }
}

/// Slide tables already built, per word width, board and direction set
/// (each a `SlideTable` of its width).
type SlideCache = Mutex<HashMap<String, Arc<dyn Any + Send + Sync>>>;

/// The slide tables already built.
fn magic_cache() -> &'static SlideCache {
    static CACHE: OnceLock<SlideCache> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The legal moves of `us` in `pos` of kinds `which` into `out` by the
/// rules' driver over a backend compiled for word `W`, `G` ray groups
/// and `L` leap tables (0: the tables' counts), magic tables only unless
/// `WALKS`: the shapes [`MoveGen::generate_for`](super::MoveGen::generate_for)
/// picks from the tables.
#[inline(always)]
pub(crate) fn generate<W: Word, const G: usize, const L: usize, const WALKS: bool>(
    t: &Tables<W>,
    pos: &Position,
    us: Seat,
    which: GenType,
    out: &mut impl MoveSink,
) {
    let mut b = Bits::<W, G, L, WALKS>::new(t, pos, us);
    legal::generate(pos, us, &mut b, which, out)
}

/// The bitboard backend for one generation. `G` and `L` are the variant's
/// numbers of ray groups and leap tables where the generator was
/// specialised for them (chess: 2 and 2), so that the loops over them
/// unroll; 0 and 0 take both from the tables.
struct Bits<'a, W: Word, const G: usize, const L: usize, const WALKS: bool> {
    t: &'a Tables<W>,
    pos: &'a Position,
    v: &'a Variant,
    us: Seat,
    occ: W,
    ours: W,
    /// Pieces `us` may capture.
    capturable: W,
    /// The position's sets (seats, then kinds, then all occupied), as
    /// words ([`Word::load`]).
    sets: &'a [u64],
    /// The number of seats (the kinds' sets follow theirs).
    seats: usize,
    /// Per ray group: sliders of it whose attacks on our king are check.
    ray_checkers: [W; 8],
    /// Per leap table: leapers of it whose attacks on our king are check.
    leap_checkers: [W; 8],
    check_mask: W,
    checks: u32,
    pinned: W,
    /// Per pinned piece (cell, the cells its pins leave it): one entry
    /// per piece, the lines of a piece pinned twice (possible where rays
    /// wrap) intersected. A pinned piece is the first on one of the king's
    /// rays, and `Tables::new` takes boards of at most 64 directions only.
    pins: ArrayVec<(u8, W), 64>,
    /// The last ray scanned from the king: (direction, attacks).
    last_ray: (usize, W),
    /// Our king's cell, once [`Backend::slider_lines`] has scanned it.
    king: Cell,
}

impl<'a, W: Word, const G: usize, const L: usize, const WALKS: bool> Bits<'a, W, G, L, WALKS> {
    /// The number of ray groups of `t` (`G`, or the tables' where `G` is
    /// 0).
    #[inline(always)]
    fn group_count(t: &Tables<W>) -> usize {
        if G > 0 { G } else { t.ray_groups.len() }
    }

    /// The number of leap tables of `t` (`L`, or the tables' where `L` is
    /// 0).
    #[inline(always)]
    fn leap_count(t: &Tables<W>) -> usize {
        if L > 0 { L } else { t.leap_sources.len() }
    }

    /// A backend for `us`'s moves in `pos` with the tables of its variant
    /// (which have `G` ray groups and `L` leap tables where these are not
    /// 0).
    #[inline(always)]
    fn new(t: &'a Tables<W>, pos: &'a Position, us: Seat) -> Self {
        debug_assert!(G == 0 || G == t.ray_groups.len());
        debug_assert!(L == 0 || L == t.leap_sources.len());
        debug_assert!(WALKS || !t.walks);
        let v = &**pos.variant();
        let seats = v.seat_count();
        // The sets: the seats', the kinds', all occupied. Every set index
        // the backend asks for is a seat's (below `seats`: the seats of
        // the tables' relations and of the variant's pawn rules), a kind's
        // (below `t.kinds`) or the occupied cells', so this one test makes
        // `Bits::set` safe.
        let sets = pos.set_words();
        assert!(
            t.seat_relations.len() == seats && sets.len() >= (seats + t.kinds + 1) * (W::BITS / 64),
            "the bitboard tables of another variant"
        );
        // SAFETY: the assertion above.
        let load = |i: usize| unsafe { W::load_unchecked(sets, i) };
        let occ = load(seats + t.kinds);
        let (captured_seats, checking_seats) = t.seat_relations[us.index()];
        let capturable = union_of(load, 0, captured_seats);
        let checking = union_of(load, 0, checking_seats);
        let of_kinds = |mask: u16| union_of(load, seats, mask as u64) & checking;
        let mut ray_checkers = [W::ZERO; 8];
        for (slot, (mask, _)) in ray_checkers
            .iter_mut()
            .zip(&t.ray_groups)
            .take(Self::group_count(t))
        {
            *slot = of_kinds(*mask);
        }
        let mut leap_checkers = [W::ZERO; 8];
        for (slot, &mask) in leap_checkers
            .iter_mut()
            .zip(&v.kinds_by_leap)
            .take(Self::leap_count(t))
        {
            *slot = of_kinds(mask);
        }
        Bits {
            t,
            pos,
            v,
            us,
            occ,
            ours: load(us.index()),
            capturable,
            sets,
            seats,
            ray_checkers,
            leap_checkers,
            check_mask: !W::ZERO,
            checks: 0,
            pinned: W::ZERO,
            pins: ArrayVec::new(),
            last_ray: (usize::MAX, W::ZERO),
            king: 0,
        }
    }

    /// The slides of table `m` from `cell` under `occ` (by its magics
    /// alone where no table of the variant walks).
    #[inline(always)]
    fn slide(m: &SlideTable<W>, cell: Cell, occ: W) -> W {
        if WALKS {
            m.attacks(cell, occ)
        } else {
            m.magic_attacks(cell, occ)
        }
    }

    /// [`Backend::slider_lines`] on a board whose rays go round: each
    /// enemy slider that sees the king's cell on the empty board, along
    /// each ray of its group from the king that meets it, checks (nothing
    /// between) or pins (one piece of ours between).
    #[inline(always)]
    fn slider_wrap_lines(&mut self, wrap: &WrapLines<W>, king: Cell) {
        let t = self.t;
        for gi in 0..Self::group_count(t) {
            let mut snipers = at::<W>(&wrap.group_rays[gi], king) & self.ray_checkers[gi];
            while !snipers.is_empty() {
                let s = snipers.first();
                snipers = snipers.without_first();
                for &(d, line) in wrap.between(king, s) {
                    if t.dir_group[d as usize] as usize != gi {
                        continue;
                    }
                    let blockers = line & self.occ & !W::bit(s);
                    if blockers.is_empty() {
                        self.check_mask &= line;
                        self.checks += 1;
                    } else if blockers.without_first().is_empty()
                        && !(blockers & self.ours).is_empty()
                    {
                        self.pin(blockers.first(), line);
                    }
                }
            }
        }
    }

    /// Records that the piece on `pinned` must stay on `line` (the cells
    /// of a pin's ray from the king to the pinner): a piece pinned along
    /// two lines (possible where rays go round) keeps to both.
    #[inline(always)]
    fn pin(&mut self, pinned: Cell, line: W) {
        if self.pinned.has(pinned) {
            for pin in &mut self.pins {
                if pin.0 as usize == pinned {
                    pin.1 &= line;
                }
            }
        } else {
            // At most one entry per pinned piece, one per line of the
            // king: far fewer than the 64 kept.
            self.pins.push((pinned as u8, line));
        }
        self.pinned |= W::bit(pinned);
    }

    /// Set `i` of the position (seats, then kinds, then all occupied).
    #[inline(always)]
    fn set(&self, i: usize) -> W {
        debug_assert!(i <= self.seats + self.t.kinds);
        // SAFETY: `Bits::new` asserted that the position has every set of
        // its seats and of the tables' kinds, and the backend asks for no
        // other (see there).
        unsafe { W::load_unchecked(self.sets, i) }
    }

    /// The cells of pieces of `kind` (all seats).
    #[inline(always)]
    fn kind_set(&self, kind: usize) -> W {
        self.set(self.seats + kind)
    }

    /// The destinations `which` allows: empty cells for quiet moves, cells
    /// of pieces we may capture for captures.
    #[inline(always)]
    fn gen_mask(&self, which: GenType) -> W {
        (if which.quiets() { !self.occ } else { W::ZERO })
            | (if which.captures() {
                self.capturable
            } else {
                W::ZERO
            })
    }

    /// The cells the piece of `kind` on `from` leaps or slides to (up to
    /// and including the first occupied cell).
    #[inline(always)]
    fn targets(&self, from: Cell, kind: usize) -> W {
        let t = self.t;
        let mut targets = W::ZERO;
        if let Some(li) = self.v.kind_leap[kind] {
            targets |= at::<W>(&t.leaps[li], from);
        }
        for m in &t.kind_magics[kind] {
            targets |= Self::slide(m, from, self.occ);
        }
        targets
    }

    /// Counts or lists the moves of the (non-royal, non-pawn) `pieces` of
    /// one kind whose targets `targets` gives: onto cells of `allowed`,
    /// restricted by checks and pins.
    #[inline(always)]
    fn piece_targets(
        &self,
        mut pieces: W,
        allowed: W,
        out: &mut impl MoveSink,
        targets: impl Fn(Cell) -> W,
    ) {
        while !pieces.is_empty() {
            let from = pieces.first();
            pieces = pieces.without_first();
            out.push_targets(from, targets(from) & allowed & self.mask_for(from));
        }
    }

    /// The legal castlings of the king on `king` with our rook on `rook`
    /// (which holds a right): the cells between empty, the cells the king
    /// crosses unattacked, the king safe on the board after the move.
    #[inline(always)]
    fn castlings_with(&self, king: Cell, rook: Cell, out: &mut impl MoveSink) {
        for c in &self.t.castlings[king * W::BITS + rook] {
            if (c.empty & self.occ).is_empty() {
                self.castle_if_safe(king, rook, c, out);
            }
        }
    }

    /// The castling `c` of the king on `king` with `rook`, whose cells
    /// between are empty, if the king crosses no attacked cell and is safe
    /// after it (out of line: most castlings are blocked, and inlined the
    /// attack test's set-up would be paid by every generation).
    #[inline(never)]
    fn castle_if_safe(
        &self,
        king: Cell,
        rook: Cell,
        c: &CastlingMasks<W>,
        out: &mut impl MoveSink,
    ) {
        let mut crossed = c.crossed;
        let mut safe = true;
        while !crossed.is_empty() && safe {
            safe = !self.attacked(crossed.first(), self.occ);
            crossed = crossed.without_first();
        }
        let (king_to, rook_to) = (c.king_to as usize, c.rook_to as usize);
        let after = self.occ & !(W::bit(king) | W::bit(rook)) | W::bit(king_to) | W::bit(rook_to);
        if safe && !self.attacked(king_to, after) {
            out.push(Move {
                from: king as u16,
                to: c.king_to,
                aux: rook as u16,
                aux2: c.rook_to,
                kind: MoveKind::Castle,
                promotion: 0,
            });
        }
    }

    /// The moves of the pawns of `kind` on `pieces` one by one: those not
    /// moved set-wise (pinned, or on boards whose pawn steps are not index
    /// shifts), and en passant (out of line: with set-wise pawns this is
    /// rare, and inlined its set-up would be paid by every generation).
    #[inline(never)]
    fn pawns_one_by_one(
        &mut self,
        pos: &Position,
        kind: usize,
        mut pieces: W,
        handled: W,
        which: GenType,
        out: &mut impl MoveSink,
    ) {
        while !pieces.is_empty() {
            let from = pieces.first();
            pieces = pieces.without_first();
            let mask = self.mask_for(from);
            let setwise = handled.has(from);
            legal::pawn_moves(pos, self.us, self, from, kind, mask, setwise, which, out);
        }
    }

    /// The cells the pins of the piece on `from` leave it, on boards
    /// without line tables (kept out of line: it is rare, and inlined its
    /// set-up would cost every generation registers).
    #[cold]
    #[inline(never)]
    fn pin_lines(&self, from: Cell) -> W {
        self.pins
            .iter()
            .filter(|pin| pin.0 as usize == from)
            .fold(!W::ZERO, |allowed, pin| allowed & pin.1)
    }

    /// Attacks from `king` along `d` given the occupancy (remembered for
    /// the check or pin that may follow).
    #[inline(always)]
    fn ray(&mut self, king: Cell, d: usize) -> W {
        if self.last_ray.0 != d {
            self.last_ray = (d, self.t.ray_attacks(king, d, self.occ));
        }
        self.last_ray.1
    }

    /// Whether `cell` is attacked by pieces whose attacks on our king are
    /// check, given occupancy `occ` (the king already removed from it).
    #[inline(always)]
    fn attacked(&self, cell: Cell, occ: W) -> bool {
        let (t, v) = (self.t, self.v);
        for &(q, k, _) in &v.checking_pawns[self.us] {
            let pawns = self.set(q.index()) & self.kind_set(k);
            if !(at::<W>(&t.pawn_attackers[q.index() * t.kinds + k], cell) & pawns).is_empty() {
                return true;
            }
        }
        for li in 0..Self::leap_count(self.t) {
            if !(at::<W>(&t.leap_sources[li], cell) & self.leap_checkers[li]).is_empty() {
                return true;
            }
        }
        for gi in 0..Self::group_count(self.t) {
            let attackers = self.ray_checkers[gi] & occ;
            if attackers.is_empty() {
                continue;
            }
            // Where rays are walked and go round, from the few sliders
            // that see the cell on the empty board.
            if let (true, Some(wrap)) = (WALKS, &t.wrap_lines) {
                if wrap.sees(t, gi, cell, attackers, occ) {
                    return true;
                }
            } else if !(Self::slide(&t.ray_group_magics[gi], cell, occ) & attackers).is_empty() {
                return true;
            }
        }
        false
    }
}

impl<W: Word, const G: usize, const L: usize, const WALKS: bool> Backend
    for Bits<'_, W, G, L, WALKS>
{
    type Mask = W;
    type Pieces = Cells<W>;
    type Handled = W;

    #[inline(always)]
    fn own_pieces(&self) -> Cells<W> {
        Cells(self.ours)
    }

    #[inline(always)]
    fn contains(&self, mask: W, cell: Cell) -> bool {
        mask.has(cell)
    }

    #[inline(always)]
    fn occupied(&self, cell: Cell) -> bool {
        self.occ.has(cell)
    }

    #[inline(always)]
    fn ray_may_check(&self, king: Cell, r: RayRef, _signature: u64) -> bool {
        let d = r.dir as usize;
        let gi = self.t.dir_group[d];
        gi != u8::MAX
            && !(self.t.full_rays[king * self.t.directions + d] & self.ray_checkers[gi as usize])
                .is_empty()
    }

    /// The rules of [`legal::generate_castling`] with cell sets: our rook
    /// on a cell with a right, the cells between empty, the cells the king
    /// crosses unattacked, and the king safe on the board after the move.
    #[inline(always)]
    fn castlings<S: MoveSink>(&mut self, _pos: &Position, _us: Seat, king: Cell, out: &mut S) {
        // Our rooks with a right; a list takes them in the order the
        // rights were granted, as the generic rules do. The rights' word
        // is exact on one-word boards only.
        if S::ORDERED || W::BITS > 64 {
            for &rook in self.pos.castling() {
                if self.ours.has(rook as usize) {
                    self.castlings_with(king, rook as usize, out);
                }
            }
        } else {
            let mut rooks = W::from_low_word(self.pos.castling_word()) & self.ours;
            while !rooks.is_empty() {
                let rook = rooks.first();
                rooks = rooks.without_first();
                self.castlings_with(king, rook, out);
            }
        }
    }

    #[inline(always)]
    fn pieces_by_kind(
        &mut self,
        pos: &Position,
        only_king: bool,
        handled: W,
        which: GenType,
        out: &mut impl MoveSink,
    ) -> bool {
        let t = self.t;
        for &kind in &t.kinds_by_role[Role::Royal as usize] {
            let mut pieces = self.ours & self.kind_set(kind as usize);
            while !pieces.is_empty() {
                let from = pieces.first();
                pieces = pieces.without_first();
                self.king_moves(from, kind as usize, which, out);
            }
        }
        if only_king {
            return true;
        }
        for &kind in &t.kinds_by_role[Role::Pawn as usize] {
            let kind = kind as usize;
            let mut pieces = self.ours & self.kind_set(kind);
            if pos.en_passant().is_none() {
                // A pawn moved set-wise has only en passant left.
                pieces &= !handled;
            }
            if !pieces.is_empty() {
                self.pawns_one_by_one(pos, kind, pieces, handled, which, out);
            }
        }
        let allowed = self.gen_mask(which);
        let occ = self.occ;
        for (kind, shape) in &t.piece_shapes {
            let pieces = self.ours & self.kind_set(*kind);
            if pieces.is_empty() {
                continue;
            }
            // The kind's tables looked up once for all its pieces; the
            // usual shapes without the general lookup.
            match shape {
                PieceShape::Leaper(li) => {
                    let l = &t.leaps[*li];
                    self.piece_targets(pieces, allowed, out, |from| at(l, from))
                }
                PieceShape::Slider(m) => {
                    self.piece_targets(pieces, allowed, out, |from| Self::slide(m, from, occ))
                }
                PieceShape::TwoSliders(m, n) => self.piece_targets(pieces, allowed, out, |from| {
                    Self::slide(m, from, occ) | Self::slide(n, from, occ)
                }),
                PieceShape::General => {
                    let this = &*self;
                    this.piece_targets(pieces, allowed, out, |from| this.targets(from, *kind))
                }
            }
        }
        true
    }

    #[inline(always)]
    fn slider_lines(&mut self, king: Cell) -> bool {
        let Some(lines) = &self.t.lines else {
            return match &self.t.wrap_lines {
                Some(wrap) => {
                    self.slider_wrap_lines(wrap, king);
                    true
                }
                None => false,
            };
        };
        self.king = king;
        for gi in 0..Self::group_count(self.t) {
            let mut snipers = at::<W>(&lines.group_rays[gi], king) & self.ray_checkers[gi];
            while !snipers.is_empty() {
                let s = snipers.first();
                snipers = snipers.without_first();
                let line = at::<W>(&lines.between[king], s);
                let blockers = line & self.occ & !W::bit(s);
                if blockers.is_empty() {
                    self.check_mask &= line;
                    self.checks += 1;
                } else if blockers.without_first().is_empty() && !(blockers & self.ours).is_empty()
                {
                    self.pinned |= blockers;
                }
            }
        }
        true
    }

    #[inline(always)]
    fn ray_blockers(&mut self, king: Cell, d: usize) -> Option<Cell> {
        let blocker = self.ray(king, d) & self.occ;
        (!blocker.is_empty()).then(|| blocker.first())
    }

    #[inline(always)]
    fn ray_next_blocker(&mut self, king: Cell, d: usize, first: Cell) -> Option<Cell> {
        let line = self.t.ray_attacks(king, d, self.occ ^ W::bit(first));
        self.last_ray = (d, line);
        let beyond = line & self.occ & !W::bit(first);
        (!beyond.is_empty()).then(|| beyond.first())
    }

    #[inline(always)]
    fn add_check_line(&mut self, king: Cell, d: usize, _checker: Cell) {
        let att = self.ray(king, d);
        self.check_mask &= att;
        self.checks += 1;
    }

    #[inline(always)]
    fn add_check_cell(&mut self, checker: Cell) {
        self.check_mask &= W::bit(checker);
        self.checks += 1;
    }

    #[inline(always)]
    fn add_pin(&mut self, pinned: Cell, king: Cell, d: usize, _pinner: Cell) {
        // `ray_next_blocker` left the line through the pinned piece.
        let line = self.ray(king, d);
        self.pin(pinned, line);
    }

    #[inline(always)]
    fn contact_checks(&mut self, _pos: &Position, _us: Seat, king: Cell) {
        let t = self.t;
        for li in 0..Self::leap_count(self.t) {
            let mut hits = at::<W>(&t.leap_sources[li], king) & self.leap_checkers[li];
            while !hits.is_empty() {
                let c = hits.lowest();
                hits = hits.without_first();
                self.check_mask &= c;
                self.checks += 1;
            }
        }
        for &(q, k, _) in &self.v.checking_pawns[self.us] {
            let pawns = self.set(q.index()) & self.kind_set(k);
            let mut hits = at::<W>(&t.pawn_attackers[q.index() * t.kinds + k], king) & pawns;
            while !hits.is_empty() {
                let c = hits.lowest();
                hits = hits.without_first();
                self.check_mask &= c;
                self.checks += 1;
            }
        }
    }

    #[inline(always)]
    fn checks(&self) -> u32 {
        self.checks
    }

    #[inline(always)]
    fn evasions_exist(&self) -> bool {
        !self.check_mask.is_empty()
    }

    #[inline(always)]
    fn mask_for(&self, from: Cell) -> W {
        let allowed = self.check_mask;
        if !self.pinned.has(from) {
            return allowed;
        }
        match &self.t.lines {
            // A pinned piece stays on the king's line through it.
            Some(lines) => allowed & at::<W>(&lines.through[self.king], from),
            None => allowed & self.pin_lines(from),
        }
    }

    #[inline(always)]
    fn setwise_pawns(&mut self, which: GenType, out: &mut impl MoveSink) -> W {
        let (t, v, us) = (self.t, self.v, self.us);
        let mut handled = W::ZERO;
        let mut pawn_kinds = v.pawn_kinds;
        while pawn_kinds != 0 {
            let kind = pawn_kinds.trailing_zeros() as usize;
            pawn_kinds &= pawn_kinds - 1;
            let Some(lanes) = &t.pawn_lanes[us.index() * t.kinds + kind] else {
                continue;
            };
            let pawns = self.ours & self.kind_set(kind) & !self.pinned;
            if pawns.is_empty() {
                continue;
            }
            handled |= pawns;
            let zone = t.promotion_zone[us.index()];
            let check_mask = self.check_mask;
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            fn emit<W: Word>(
                v: &Variant,
                us: Seat,
                zone: W,
                targets: W,
                delta: i32,
                capture: bool,
                which: GenType,
                out: &mut impl MoveSink,
            ) {
                let promoting = targets & zone;
                if if capture {
                    which.captures()
                } else {
                    which.quiets()
                } {
                    out.push_shifted(targets & !promoting, delta, false);
                }
                if !promoting.is_empty() {
                    out.push_out_of_line(|out| {
                        promotions(v, us, promoting, delta, capture, which, out)
                    });
                }
            }
            /// The promotions onto `promoting` (out of line: rare).
            #[cold]
            #[inline(never)]
            fn promotions<W: Word>(
                v: &Variant,
                us: Seat,
                mut promoting: W,
                delta: i32,
                capture: bool,
                which: GenType,
                out: &mut impl MoveSink,
            ) {
                while !promoting.is_empty() {
                    let to = promoting.first() as i32;
                    promoting = promoting.without_first();
                    let m = Move::normal((to - delta) as usize, to as usize);
                    push_pawn_move(v, us, m, capture, which, out);
                }
            }
            for &(delta, src, double) in &lanes.pushes {
                let movers = pawns & src;
                if movers.is_empty() {
                    continue;
                }
                let single = movers.shift(delta) & !self.occ;
                emit(v, us, zone, single & check_mask, delta, false, which, out);
                if !double.is_empty() && which.quiets() {
                    let two = (single & (pawns & double).shift(delta)).shift(delta)
                        & !self.occ
                        & check_mask;
                    out.push_shifted(two, 2 * delta, true);
                }
            }
            if which.captures() {
                for &(delta, src) in &lanes.captures {
                    let movers = pawns & src;
                    if movers.is_empty() {
                        continue;
                    }
                    let targets = movers.shift(delta) & self.capturable & check_mask;
                    emit(v, us, zone, targets, delta, true, which, out);
                }
            }
        }
        handled
    }

    #[inline(always)]
    fn moved_setwise(&self, handled: W, from: Cell) -> bool {
        handled.has(from)
    }

    #[inline(always)]
    fn pawn_captures(
        &mut self,
        from: Cell,
        kind: usize,
        mask: W,
        setwise: bool,
        out: &mut impl MoveSink,
    ) {
        let (t, v, us) = (self.t, self.v, self.us);
        let caps = at::<W>(&t.pawn_captures[us.index() * t.kinds + kind], from);
        let targets = if setwise {
            W::ZERO
        } else {
            caps & self.capturable & mask
        };
        let mut promoting = targets & t.promotion_zone[us.index()];
        out.push_targets(from, targets & !promoting);
        while !promoting.is_empty() {
            let to = promoting.first();
            promoting = promoting.without_first();
            push_pawn_move(v, us, Move::normal(from, to), true, GenType::Captures, out);
        }
        if let Some(ep) = self.pos.en_passant() {
            let target = ep.target as usize;
            let pawn_cell = ep.pawn as usize;
            if caps.has(target) && self.capturable.has(pawn_cell) {
                let king = self.pos.royal_cell(us);
                push_en_passant(self.pos, us, king, from, ep, out);
            }
        }
    }

    #[inline(always)]
    fn king_moves(&mut self, from: Cell, kind: usize, which: GenType, out: &mut impl MoveSink) {
        let occ_without = self.occ & !W::bit(from);
        let mut targets = self.targets(from, kind) & self.gen_mask(which);
        while !targets.is_empty() {
            let to = targets.first();
            targets = targets.without_first();
            if !self.attacked(to, occ_without) {
                out.push(Move::normal(from, to));
            }
        }
    }

    #[inline(always)]
    fn piece_moves(
        &mut self,
        from: Cell,
        kind: usize,
        mask: W,
        which: GenType,
        out: &mut impl MoveSink,
    ) {
        out.push_targets(from, self.targets(from, kind) & self.gen_mask(which) & mask);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Prints `KNOWN_MAGICS` (src/rules/movegen/magics.rs): for every magic
    /// table of the usual boards of at most 64 cells, every cell's magic
    /// indexing exactly its relevant cells' bits, searched with a budget
    /// large enough for all of them.
    #[test]
    #[ignore = "a search of a minute or more; prints the table of magics.rs"]
    fn print_known_magics() {
        let mut found: BTreeMap<u64, u64> = BTreeMap::new();
        for spec in ["chess", "cube", "cylinder"] {
            let v = crate::board::registry::build(spec).expect("a registered variant");
            let t = Tables::<u64>::new(&v).expect("a board of at most 64 cells");
            let g = &v.geometry;
            let tables = t
                .ray_group_magics
                .iter()
                .chain(t.kind_magics.iter().flatten());
            for table in tables {
                for cell in 0..g.cell_count() {
                    let mask = table.magic_entries()[cell].mask;
                    let bits = mask.count_ones();
                    if bits == 0 {
                        continue;
                    }
                    let occs = subsets(mask);
                    let reference = slides_by_occupancy(&t, cell, &table.dirs, &occs);
                    let mut search = MagicSearch::new(mask);
                    let mut block = Vec::new();
                    let shift = 64 - bits;
                    if let Some(&m) = found.get(&mask) {
                        if !search.fits(m, shift, &occs, &reference, &mut block, 0) {
                            eprintln!("{spec}: cell {cell} shares a mask, not its magic");
                        }
                        continue;
                    }
                    match search.find(mask, shift, 50_000_000, &occs, &reference, &mut block, 0) {
                        Some(m) => {
                            found.insert(mask, m);
                        }
                        None => eprintln!("{spec}: no magic for cell {cell} ({bits} bits)"),
                    }
                }
            }
            eprintln!("{spec}: {} masks so far", found.len());
        }
        println!("pub(super) const KNOWN_MAGICS: &[(u64, u64)] = &[");
        for (mask, magic) in &found {
            println!("    (0x{mask:016x}, 0x{magic:016x}),");
        }
        println!("];");
    }

    /// Every known magic that the usual boards use is kept: chess's
    /// tables take no index bit beyond their relevant cells.
    #[test]
    fn chess_tables_take_the_known_magics() {
        let v = crate::board::registry::build("chess").expect("a registered variant");
        let t = Tables::<u64>::new(&v).expect("a board of 64 cells");
        for table in &t.ray_group_magics {
            assert!(!table.walks());
            for (cell, e) in table.magic_entries().iter().enumerate() {
                let mask = e.mask;
                if mask == 0 {
                    continue;
                }
                assert_eq!(known_magic(mask), Some(e.magic), "cell {cell}");
                assert_eq!(e.shift, 64 - mask.count_ones(), "cell {cell}");
            }
        }
    }

    /// Every pawn of the usual boards is moved set-wise: the lanes hold
    /// on chess, the cube and Raumschach (one shift per step) and on the
    /// cylinder and the torus, whose steps go round (a few shifts).
    #[test]
    fn the_usual_boards_move_their_pawns_set_wise() {
        fn lanes<W: Word>(spec: &str) -> Vec<bool> {
            let v = crate::board::registry::build(spec).expect("a registered variant");
            let t = Tables::<W>::new(&v).expect("a board of the backend");
            let mut found = Vec::new();
            for seat in v.seating.seats() {
                for (k, kd) in v.kinds.iter().enumerate() {
                    if kd.pawn.is_some() {
                        found.push(t.pawn_lanes[seat.index() * t.kinds + k].is_some());
                    }
                }
            }
            found
        }
        for spec in ["chess", "cube", "cylinder"] {
            let found = lanes::<u64>(spec);
            assert!(
                !found.is_empty() && found.iter().all(|&f| f),
                "{spec}: {found:?}"
            );
        }
        for spec in ["torus", "raumschach"] {
            let found = lanes::<u128>(spec);
            assert!(
                !found.is_empty() && found.iter().all(|&f| f),
                "{spec}: {found:?}"
            );
        }
    }

    /// The usual boards keep their magic tables (the backend compiled for
    /// magic tables alone serves them); the torus walks its slides, and so
    /// does a small 3-D board whose every axis wraps, whose tables would
    /// take hundreds of megabytes.
    #[test]
    fn the_usual_boards_take_magic_tables_and_wrapping_ones_walk() {
        for spec in ["chess", "cube", "cylinder", "chess960:sp=0"] {
            let v = crate::board::registry::build(spec).expect("a registered variant");
            assert!(!Tables::<u64>::new(&v).expect(spec).walks(), "{spec}");
        }
        let v = crate::board::registry::build("raumschach").expect("a registered variant");
        assert!(!Tables::<u128>::new(&v).expect("raumschach").walks());
        let v = crate::board::registry::build("torus").expect("a registered variant");
        assert!(Tables::<u128>::new(&v).expect("torus").walks());
        let files = crate::rules::notation::variant_file::parse(include_str!(
            "../../../engines/variants.toml"
        ))
        .expect("the shipped variants file parses");
        let def = files
            .into_iter()
            .find(|f| f.name == "torus3d")
            .expect("torus3d is shipped")
            .def;
        let v = Variant::new(def).expect("torus3d builds");
        let t = Tables::<u128>::new(&v).expect("112 cells");
        assert!(t.walks());
        for m in t
            .ray_group_magics
            .iter()
            .chain(t.kind_magics.iter().flatten())
        {
            assert!(m.attacks.len() * std::mem::size_of::<u128>() <= MAX_MAGIC_BYTES);
        }
    }
}
