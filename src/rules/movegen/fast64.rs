//! The generator's bitboard backend for boards of at most 64 cells (chess,
//! Chess960, cylinder, the cube): every set of cells is one `u64`.
//!
//! Sliding attacks come from magic-multiplication tables (searched once
//! per board and direction set) over precomputed ray masks: a ray is split
//! into segments along which the flattened index only grows or only
//! shrinks (one segment on a board without wrap, more where the ray goes
//! round), so the first blocker of a segment is its lowest or highest set
//! bit. The rules — checking lines, pins, pawn pushes, en passant,
//! castling — come from [`super::legal`]; this backend only answers them
//! with bit operations, and moves unpinned pawns set-wise where every pawn
//! step is a constant index shift. When the generator only counts, it
//! takes the pieces kind by kind from the kinds' bitboards (lists keep the
//! cell order of the shared driver); on boards where two cells share at
//! most one ray (no wrap) it finds checks and pins from the enemy sliders
//! that see the king on the empty board and line tables between cells,
//! instead of walking the king's rays; castling is tested with cell sets.
//! Its agreement with the ray-walking backend is tested in
//! `tests/rules/fast_path.rs` and by perft.
//!
//! Variants whose tables would not fit — more than eight leap tables or
//! ray groups, or a magic table of more than 2^16 entries per cell (many
//! wrapping directions on a small board) — take the ray-walking backend.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use arrayvec::ArrayVec;

use crate::board::geometry::{Cell, RayRef};
use crate::board::piece::NO_CELL;
use crate::board::seating::Seat;
use crate::board::variant::Variant;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::position::Position;

use super::legal::{self, Backend, push_en_passant, push_pawn_move};
use super::magics::KNOWN_MAGICS;
use super::{GenType, MoveSink};

/// One set of cells per cell of the board (indexed `cell & 63`, so the
/// lookups need no bounds check).
type PerCell = [u64; 64];

/// A flat table of `64 * n` sets as `n` per-cell tables.
fn per_cell(flat: &[u64]) -> Vec<PerCell> {
    flat.chunks_exact(64)
        .map(|chunk| {
            let mut table = [0u64; 64];
            table.copy_from_slice(chunk);
            table
        })
        .collect()
}

/// The union of `sets[i]` for every bit `i` of `mask`.
#[inline(always)]
fn union_of(sets: &[u64], mut mask: u64) -> u64 {
    let mut out = 0;
    while mask != 0 {
        out |= sets[mask.trailing_zeros() as usize];
        mask &= mask - 1;
    }
    out
}

/// A piece of a ray along which cell indices are monotonic.
#[derive(Clone, Copy, Debug)]
struct Segment {
    mask: u64,
    increasing: bool,
}

/// Bitboard tables of a board of at most 64 cells.
#[derive(Debug)]
pub(crate) struct Tables {
    directions: usize,
    /// Per (cell, direction): range into `segments`.
    spans: Vec<(u32, u8)>,
    segments: Vec<Segment>,
    /// Per leap table, per cell: the targets.
    leaps: Vec<PerCell>,
    /// Same index: the cells from which the leap reaches the cell.
    leap_sources: Vec<PerCell>,
    /// Per direction `d`: the ray group whose sliders attack a cell from
    /// the far end of its ray along `d` (`u8::MAX`: none).
    dir_group: Vec<u8>,
    /// Number of piece kinds.
    kinds: usize,
    /// Per player, kind and cell (`(player * kinds + kind) * 64 + cell`): a
    /// pawn's capture targets.
    pawn_captures: Vec<PerCell>,
    /// Same index: the cells from which such a pawn captures onto the cell.
    pawn_attackers: Vec<PerCell>,
    /// Distinct slider-kind masks with the directions that use them, for
    /// the attack test: (mask of kinds attacking from the far end, dirs).
    ray_groups: Vec<(u16, Vec<usize>)>,
    /// Per ray group: the magic table of its directions.
    ray_group_magics: Vec<Arc<MagicTable>>,
    /// Per kind: magic tables whose union are its slides (empty for
    /// non-sliders).
    kind_magics: Vec<Vec<Arc<MagicTable>>>,
    /// The kinds of [`Role::Piece`], in increasing order, each with the
    /// shape of its moves (the counter's loop looks nothing else up).
    piece_shapes: Vec<(usize, PieceShape)>,
    /// Per (cell, direction): the whole ray on the empty board.
    full_rays: Vec<u64>,
    /// Per player and kind (`player * kinds + kind`): set-wise pawn steps,
    /// where every step of the pawn is a constant index shift (boxes
    /// without wrap); `None` where the per-pawn path is used.
    pawn_lanes: Vec<Option<PawnLanes>>,
    promotion_zone: Vec<u64>,
    /// Lines between cells, where two cells share at most one line.
    lines: Option<Lines>,
    /// Per role (indexed by `Role as usize`): the kinds of that role, in
    /// increasing order.
    kinds_by_role: [Vec<u8>; 3],
    /// Per seat `us`: (the seats whose pieces `us` may capture, the seats
    /// whose attacks on `us`'s king are check), one bit per seat index.
    seat_relations: Vec<(u64, u64)>,
    /// Per (king cell, rook cell) (`king * 64 + rook`): the castlings of
    /// that rook with that king (empty without castling).
    castlings: Vec<Vec<CastlingMasks>>,
}

/// One castling of the variant as cell sets.
#[derive(Clone, Copy, Debug)]
struct CastlingMasks {
    /// Cells that must be empty (the king and the castling rook excepted).
    empty: u64,
    /// Cells the king crosses, which must not be attacked.
    crossed: u64,
    king_to: u16,
    rook_to: u16,
}

/// How the counter takes the targets of a kind of [`Role::Piece`]: the
/// usual shapes with their tables at hand, any other by
/// [`Bits::targets`].
#[derive(Debug)]
enum PieceShape {
    /// Leaps of one table (its index), no slides.
    Leaper(usize),
    /// Slides of one magic table, no leaps.
    Slider(Arc<MagicTable>),
    /// Slides of two magic tables (a queen's), no leaps.
    TwoSliders(Arc<MagicTable>, Arc<MagicTable>),
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
struct Lines {
    /// Per (cell, cell) (`a * 64 + b`): the cells strictly between `a` and
    /// `b` on their common ray, with `b` added (empty if there is none).
    between: Box<[PerCell; 64]>,
    /// Same index: the whole ray from `a` through `b` to the board's edge.
    through: Box<[PerCell; 64]>,
    /// Per ray group and cell (`group * 64 + cell`): the cells on the
    /// rays of the group's directions from the cell, on the empty board.
    group_rays: Vec<PerCell>,
}

impl Lines {
    /// The tables, or `None` if some two cells share more than one ray
    /// (or a ray meets itself).
    fn new(g: &crate::board::geometry::Geometry, groups: &[(u16, Vec<usize>)]) -> Option<Lines> {
        let cells = g.cell_count();
        let nd = g.directions().len();
        let mut between: Box<[PerCell; 64]> =
            vec![[0u64; 64]; 64].into_boxed_slice().try_into().ok()?;
        let mut through: Box<[PerCell; 64]> =
            vec![[0u64; 64]; 64].into_boxed_slice().try_into().ok()?;
        for a in 0..cells {
            for d in 0..nd {
                let ray = g.ray(a, d);
                let full = ray.iter().fold(0u64, |m, &c| m | 1 << c);
                if full.count_ones() as usize != ray.len() || full >> a & 1 != 0 {
                    return None;
                }
                let mut upto = 0u64;
                for &b in ray {
                    let b = b as usize;
                    upto |= 1 << b;
                    if through[a][b] != 0 {
                        return None;
                    }
                    between[a][b] = upto;
                    through[a][b] = full;
                }
            }
        }
        let group_rays: Vec<u64> = groups
            .iter()
            .flat_map(|(_, dirs)| {
                (0..64).map(move |c| {
                    if c < cells {
                        dirs.iter()
                            .flat_map(|&d| g.ray(c, d))
                            .fold(0u64, |m, &x| m | 1 << x)
                    } else {
                        0
                    }
                })
            })
            .collect();
        Some(Lines {
            between,
            through,
            group_rays: per_cell(&group_rays),
        })
    }
}

/// A pawn kind's steps as index shifts, for moving all pawns at once.
#[derive(Debug, Clone, Default)]
struct PawnLanes {
    /// (shift, cells the push starts from, cells a double push starts from).
    pushes: Vec<(i32, u64, u64)>,
    /// (shift, cells the capture starts from).
    captures: Vec<(i32, u64)>,
}

#[inline(always)]
fn shift(x: u64, delta: i32) -> u64 {
    if delta >= 0 { x << delta } else { x >> -delta }
}

/// The most relevant cells a magic table indexes for one cell: 2^16
/// entries, so a table stays under 32 MB (64 cells). Chess needs 12 bits,
/// the cube 9; slides along many wrapping directions of a small board can
/// need 30 and more (a billion entries, never finished): such variants
/// take the ray-walking backend.
const MAX_MAGIC_BITS: u32 = 16;

/// The cells whose occupancy decides the slides from `cell` along `dirs`:
/// every ray's cells but its last (whose occupancy cannot change the
/// attacks along that ray).
fn relevant_cells(g: &crate::board::geometry::Geometry, cell: Cell, dirs: &[usize]) -> u64 {
    let mut mask = 0u64;
    for &d in dirs {
        if let Some((_, rest)) = g.ray(cell, d).split_last() {
            mask |= rest.iter().fold(0u64, |m, &c| m | 1u64 << c);
        }
    }
    mask
}

/// Magic-multiplication lookup of the attacks of one set of slide
/// directions from every cell: `attacks[offset + ((occ & mask) * magic) >>
/// shift]`. The magics are searched at set-up (deterministically) and cached
/// per board and direction set, so chess and all 960 Chess960 variants share
/// one table.
#[derive(Debug)]
pub struct MagicTable {
    /// The slide directions the table serves (read by the test that
    /// prints the known magics).
    #[cfg_attr(not(test), allow(dead_code))]
    dirs: Vec<usize>,
    /// Per cell (indexed `cell & 63`; cells past the board's last unused).
    entries: Box<[MagicEntry; 64]>,
    attacks: Vec<u64>,
}

#[derive(Clone, Copy, Debug, Default)]
struct MagicEntry {
    mask: u64,
    magic: u64,
    shift: u32,
    offset: u32,
}

impl MagicTable {
    #[inline(always)]
    fn attacks(&self, cell: Cell, occ: u64) -> u64 {
        let e = self.entries[cell & 63];
        let index = ((occ & e.mask).wrapping_mul(e.magic) >> e.shift) as usize;
        debug_assert!(e.offset as usize + index < self.attacks.len());
        // SAFETY: `build` sized the block at `offset` to `1 << (64 -
        // shift)` entries and `index` is a product shifted right by `shift`,
        // so `offset + index` is inside `attacks`.
        unsafe { *self.attacks.get_unchecked(e.offset as usize + index) }
    }

    /// Builds the table for `dirs` from the segment tables.
    fn build(t: &Tables, g: &crate::board::geometry::Geometry, dirs: &[usize]) -> MagicTable {
        let cells = g.cell_count();
        let mut search = MagicSearch::new((dirs.len() as u64) << 32 ^ cells as u64);
        let mut entries = Vec::with_capacity(cells);
        let mut attacks = Vec::new();
        for cell in 0..cells {
            let mask = relevant_cells(g, cell, dirs);
            let bits = mask.count_ones();
            let occs = subsets(mask);
            let reference = slides_by_occupancy(t, cell, dirs, &occs);
            let offset = attacks.len();
            let (magic, shift) = if bits == 0 {
                attacks.push(reference[0]);
                (0, 63)
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
        let mut per_cell = Box::new([MagicEntry::default(); 64]);
        per_cell[..entries.len()].copy_from_slice(&entries);
        MagicTable {
            dirs: dirs.to_vec(),
            entries: per_cell,
            attacks,
        }
    }
}

/// The slides from `cell` along `dirs` for each occupancy of `occs`, by
/// walking the rays (what a magic table must reproduce).
fn slides_by_occupancy(t: &Tables, cell: Cell, dirs: &[usize], occs: &[u64]) -> Vec<u64> {
    occs.iter()
        .map(|&o| dirs.iter().fold(0, |a, &d| a | t.ray_attacks(cell, d, o)))
        .collect()
}

/// The subsets of `mask`, the empty set first (carry-rippler order).
fn subsets(mask: u64) -> Vec<u64> {
    let mut occs = Vec::with_capacity(1 << mask.count_ones());
    let mut sub = 0u64;
    loop {
        occs.push(sub);
        sub = sub.wrapping_sub(mask) & mask;
        if sub == 0 {
            return occs;
        }
    }
}

/// The magic found earlier for the relevant cells `mask` (the usual
/// boards' tables, [`KNOWN_MAGICS`]), to be tried before a search.
fn known_magic(mask: u64) -> Option<u64> {
    KNOWN_MAGICS
        .binary_search_by_key(&mask, |&(m, _)| m)
        .ok()
        .map(|i| KNOWN_MAGICS[i].1)
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

    /// A sparse random candidate (the AND of three draws of xorshift64).
    fn candidate(&mut self) -> u64 {
        let mut draw = || {
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
            self.rng
        };
        draw() & draw() & draw()
    }

    /// Whether `magic` with `shift` maps the occupancies `occs` onto
    /// `attacks[offset..]` (sized here to `1 << (64 - shift)`) so that no
    /// two with different attacks share a slot; the block holds the
    /// attacks if it does.
    fn fits(
        &mut self,
        magic: u64,
        shift: u32,
        occs: &[u64],
        reference: &[u64],
        attacks: &mut Vec<u64>,
        offset: usize,
    ) -> bool {
        let size = 1usize << (64 - shift);
        attacks.resize(offset + size, 0);
        if self.used.len() < size {
            self.used.resize(size, 0);
        }
        self.epoch += 1;
        let (used, epoch) = (&mut self.used, self.epoch);
        occs.iter().zip(reference).all(|(&o, &a)| {
            let i = (o.wrapping_mul(magic) >> shift) as usize;
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
    fn find(
        &mut self,
        mask: u64,
        shift: u32,
        tries: u32,
        occs: &[u64],
        reference: &[u64],
        attacks: &mut Vec<u64>,
        offset: usize,
    ) -> Option<u64> {
        let wide = mask.count_ones() > 6;
        for _ in 0..tries {
            let candidate = self.candidate();
            // The product's top byte indexes the table: a candidate that
            // leaves it sparse rarely separates the occupancies.
            if wide && (mask.wrapping_mul(candidate) >> 56).count_ones() < 6 {
                continue;
            }
            if self.fits(candidate, shift, occs, reference, attacks, offset) {
                return Some(candidate);
            }
        }
        None
    }
}

impl Tables {
    /// The numbers of ray groups and of leap tables, by which
    /// [`MoveGen::generate_for`](super::MoveGen::generate_for) picks a
    /// backend specialised for them.
    pub(crate) fn shape(&self) -> (usize, usize) {
        (self.ray_groups.len(), self.leap_sources.len())
    }

    /// The cells leap table `li` reaches from `from`.
    #[inline(always)]
    pub fn leaps_from(&self, li: usize, from: Cell) -> u64 {
        self.leaps[li][from & 63]
    }

    /// Whether `cell` of `pos` is attacked by a piece whose attacks on
    /// `king_owner`'s king are check:
    /// [`crate::rules::attacks::attacked_by_checkers`] set-wise (pawns by
    /// their attacker tables, leapers by their reverse leaps, sliders by
    /// one magic lookup per ray group).
    #[inline]
    pub fn attacked_by_checkers(&self, pos: &Position, cell: Cell, king_owner: Seat) -> bool {
        let v = &**pos.variant();
        let seats = v.seat_count();
        let sets = pos.one_word_sets(0, seats + self.kinds + 1);
        let (kinds, occ) = (&sets[seats..seats + self.kinds], sets[seats + self.kinds]);
        let checking_seats = self.seat_relations[king_owner.index()].1;
        let checking = union_of(sets, checking_seats);
        let of_kinds = |mask: u16| union_of(kinds, mask as u64) & checking;
        for &(q, k, _) in &v.checking_pawns[king_owner] {
            let pawns = sets[q.index()] & kinds[k];
            if self.pawn_attackers[q.index() * self.kinds + k][cell & 63] & pawns != 0 {
                return true;
            }
        }
        for (li, &mask) in v.kinds_by_leap.iter().enumerate() {
            if mask != 0 && self.leap_sources[li][cell & 63] & of_kinds(mask) != 0 {
                return true;
            }
        }
        for (gi, &(mask, _)) in self.ray_groups.iter().enumerate() {
            let attackers = of_kinds(mask);
            if attackers != 0 && self.ray_group_magics[gi].attacks(cell, occ) & attackers != 0 {
                return true;
            }
        }
        false
    }

    /// The cells a pawn of `kind` and `seat` on `from` attacks.
    #[inline(always)]
    pub fn pawn_attacks(&self, seat: Seat, kind: usize, from: Cell) -> u64 {
        self.pawn_captures[seat.index() * self.kinds + kind][from & 63]
    }

    /// The cells a piece of `kind` on `from` leaps or slides to under
    /// the occupancy `occ` (up to and including the first occupied cell);
    /// `leap` is the kind's leap table.
    #[inline(always)]
    pub fn piece_attacks(&self, kind: usize, leap: Option<usize>, from: Cell, occ: u64) -> u64 {
        let mut attacks = match leap {
            Some(li) => self.leaps[li][from & 63],
            None => 0,
        };
        for m in &self.kind_magics[kind] {
            attacks |= m.attacks(from, occ);
        }
        attacks
    }

    /// Builds the tables, or `None` for boards of more than 64 cells and
    /// for the carrying number line of finite chess, whose rays cross the
    /// whole board (a slider's relevant occupancy would exceed what a
    /// magic table can index): those take the ray-walking backend.
    pub fn new(v: &Variant) -> Option<Tables> {
        let g = &v.geometry;
        let cells = g.cell_count();
        if cells > 64 || g.carries() {
            return None;
        }
        let nd = g.directions().len();
        let mut spans = Vec::with_capacity(cells * nd);
        let mut segments = Vec::new();
        for cell in 0..cells {
            for d in 0..nd {
                let start = segments.len() as u32;
                let ray = g.ray(cell, d);
                let mut i = 0;
                while i < ray.len() {
                    let mut mask = 1u64 << ray[i];
                    let mut j = i + 1;
                    let increasing = j < ray.len() && ray[j] > ray[i];
                    while j < ray.len() && (ray[j] > ray[j - 1]) == increasing {
                        mask |= 1u64 << ray[j];
                        j += 1;
                    }
                    segments.push(Segment { mask, increasing });
                    i = j;
                }
                spans.push((start, (segments.len() as u32 - start) as u8));
            }
        }
        let to_mask = |cs: &[u16]| cs.iter().fold(0u64, |m, &c| m | 1u64 << c);
        let leaps: Vec<u64> = v
            .leaps
            .iter()
            .flat_map(|t| (0..64).map(|c| if c < cells { to_mask(t.get(c)) } else { 0 }))
            .collect();
        let leap_sources: Vec<u64> = (0..v.leaps.len())
            .flat_map(|li| {
                (0..64).map(move |c| {
                    if c < cells {
                        to_mask(v.leap_sources(li).get(c))
                    } else {
                        0
                    }
                })
            })
            .collect();
        let per_pawn = |f: &dyn Fn(&crate::board::variant::PawnTable, Cell) -> u64| -> Vec<u64> {
            v.pawn_tables
                .values()
                .iter()
                .flat_map(|per_kind| {
                    per_kind
                        .iter()
                        .flat_map(|t| (0..64).map(|c| if c < cells { f(t, c) } else { 0 }))
                })
                .collect()
        };
        let pawn_captures = per_pawn(&|t, c| {
            if t.captures.get_checked(c).is_some() {
                to_mask(t.captures.get(c))
            } else {
                0
            }
        });
        let pawn_attackers = per_pawn(&|t, c| {
            if t.attackers.get_checked(c).is_some() {
                to_mask(t.attackers.get(c))
            } else {
                0
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
        // eight ray groups; variants with more take the generic backend.
        if ray_groups.len() > 8 || v.leaps.len() > 8 {
            return None;
        }
        let promotion_zone = v
            .promotion_zone
            .values()
            .iter()
            .map(|z| z.words()[0])
            .collect();
        let mut dir_group = vec![u8::MAX; nd];
        let full_rays = (0..cells * nd)
            .map(|i| to_mask(g.ray(i / nd, i % nd)))
            .collect();
        let wraps = g.rays_may_meet();
        let mut pawn_lanes = Vec::new();
        for seat in v.seating.seats() {
            let player = v.seating.info(seat);
            for (ki, kd) in v.kinds.iter().enumerate() {
                let lanes = kd.pawn.as_ref().filter(|_| !wraps).and_then(|rule| {
                    // The index shift of a step, if the same for every cell.
                    let lane = |dir: &Vec<i32>| -> Option<(i32, u64)> {
                        let d = player.orient(dir);
                        let mut delta = None;
                        let mut src = 0u64;
                        for c in 0..cells {
                            if let Some(to) = g.step(c, &d) {
                                let dd = to as i32 - c as i32;
                                if *delta.get_or_insert(dd) != dd {
                                    return None;
                                }
                                src |= 1 << c;
                            }
                        }
                        Some((delta.unwrap_or(0), src))
                    };
                    let table = &v.pawn_tables[seat][ki];
                    let mut lanes = PawnLanes::default();
                    for dir in &rule.pushes {
                        let (delta, src) = lane(dir)?;
                        let mut double = 0u64;
                        for c in 0..cells {
                            for pair in table.pushes.get(c).chunks_exact(2) {
                                if pair[1] != NO_CELL && pair[0] as i32 == c as i32 + delta {
                                    double |= 1 << c;
                                }
                            }
                        }
                        lanes.pushes.push((delta, src, double));
                    }
                    for dir in &rule.captures {
                        lanes.captures.push(lane(dir)?);
                    }
                    Some(lanes)
                });
                pawn_lanes.push(lanes);
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
            let to_mask = |cs: &[u16]| cs.iter().fold(0u64, |m, &c| m | 1u64 << c);
            castlings = (0..64 * 64)
                .map(|i| {
                    let (king, rook) = (i / 64, i % 64);
                    if king >= cells || rook >= cells {
                        return Vec::new();
                    }
                    v.castlings(king, rook)
                        .iter()
                        .map(|c| CastlingMasks {
                            empty: to_mask(&c.must_be_empty) & !(1 << king | 1 << rook),
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
            dir_group,
            leap_sources: per_cell(&leap_sources),
            pawn_lanes,
            directions: nd,
            spans,
            segments,
            leaps: per_cell(&leaps),
            kinds: v.kinds.len(),
            pawn_captures: per_cell(&pawn_captures),
            pawn_attackers: per_cell(&pawn_attackers),
            ray_groups,
            ray_group_magics: Vec::new(),
            kind_magics: Vec::new(),
            piece_shapes: Vec::new(),
            full_rays,
            promotion_zone,
        };
        let key = format!("{:x}", g.fingerprint());
        let table_for = |dirs: &[usize]| -> Option<Arc<MagicTable>> {
            let mut sorted = dirs.to_vec();
            sorted.sort_unstable();
            let k = format!("{key}{sorted:?}");
            let cache = magic_cache();
            if let Some(m) = cache.lock().ok().and_then(|c| c.get(&k).cloned()) {
                return Some(m);
            }
            if (0..cells).any(|c| relevant_cells(g, c, &sorted).count_ones() > MAX_MAGIC_BITS) {
                return None;
            }
            let m = Arc::new(MagicTable::build(&t, g, &sorted));
            if let Ok(mut c) = cache.lock() {
                c.insert(k, m.clone());
            }
            Some(m)
        };
        // Kinds slide along unions of "direction classes" (directions that
        // change the same number of coordinates): one table per class.
        let ray_group_magics: Vec<Arc<MagicTable>> = t
            .ray_groups
            .iter()
            .map(|(_, dirs)| table_for(dirs))
            .collect::<Option<_>>()?;
        let kind_magics: Vec<Vec<Arc<MagicTable>>> = v
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
        t.ray_group_magics = ray_group_magics;
        t.kind_magics = kind_magics;
        Some(t)
    }

    /// Cells attacked from `cell` along direction `d` given occupancy `occ`
    /// (up to and including the first occupied cell).
    #[inline(always)]
    pub fn ray_attacks(&self, cell: Cell, d: usize, occ: u64) -> u64 {
        let (start, len) = self.spans[cell * self.directions + d];
        let mut attacks = 0;
        for seg in &self.segments[start as usize..start as usize + len as usize] {
            let blockers = seg.mask & occ;
            if blockers == 0 {
                attacks |= seg.mask;
                continue;
            }
            let upto = if seg.increasing {
                let first = 1u64 << blockers.trailing_zeros();
                first | (first - 1)
            } else {
                let first = 1u64 << (63 - blockers.leading_zeros());
                !(first - 1)
            };
            return attacks | (seg.mask & upto);
        }
        attacks
    }
}

/// Magic tables already built, per board and direction set.
fn magic_cache() -> &'static Mutex<HashMap<String, Arc<MagicTable>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<MagicTable>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The bitboard backend for one generation. `G` and `L` are the variant's
/// numbers of ray groups and leap tables where the generator was
/// specialised for them (chess: 2 and 2), so that the loops over them
/// unroll; 0 and 0 take both from the tables.
pub(crate) struct Bits<'a, const G: usize, const L: usize> {
    t: &'a Tables,
    pos: &'a Position,
    v: &'a Variant,
    us: Seat,
    occ: u64,
    ours: u64,
    /// Pieces `us` may capture.
    capturable: u64,
    /// Per kind: cells of that kind (all seats).
    kinds: &'a [u64],
    /// Per ray group: sliders of it whose attacks on our king are check.
    ray_checkers: [u64; 8],
    /// Per leap table: leapers of it whose attacks on our king are check.
    leap_checkers: [u64; 8],
    check_mask: u64,
    checks: u32,
    pinned: u64,
    /// Per pinned piece (cell, the cells its pins leave it): one entry
    /// per piece, the lines of a piece pinned twice (possible where rays
    /// wrap) intersected, so at most one entry per cell of the board.
    pins: ArrayVec<(u8, u64), 64>,
    /// The last ray scanned from the king: (direction, attacks).
    last_ray: (usize, u64),
    /// Our king's cell, once [`Backend::slider_lines`] has scanned it.
    king: Cell,
}

impl<'a, const G: usize, const L: usize> Bits<'a, G, L> {
    /// The number of ray groups of `t` (`G`, or the tables' where `G` is
    /// 0).
    #[inline(always)]
    fn group_count(t: &Tables) -> usize {
        if G > 0 { G } else { t.ray_groups.len() }
    }

    /// The number of leap tables of `t` (`L`, or the tables' where `L` is
    /// 0).
    #[inline(always)]
    fn leap_count(t: &Tables) -> usize {
        if L > 0 { L } else { t.leap_sources.len() }
    }

    /// A backend for `us`'s moves in `pos` with the tables of its variant
    /// (which have `G` ray groups and `L` leap tables where these are not
    /// 0).
    #[inline(always)]
    pub(crate) fn new(t: &'a Tables, pos: &'a Position, us: Seat) -> Self {
        debug_assert!(G == 0 || G == t.ray_groups.len());
        debug_assert!(L == 0 || L == t.leap_sources.len());
        let v = &**pos.variant();
        let seats = v.seat_count();
        // One word per set: the seats', the kinds', all occupied.
        let sets = pos.one_word_sets(0, seats + t.kinds + 1);
        let occ = sets[seats + t.kinds];
        let (captured_seats, checking_seats) = t.seat_relations[us.index()];
        let capturable = union_of(sets, captured_seats);
        let checking = union_of(sets, checking_seats);
        let kinds = &sets[seats..seats + t.kinds];
        let of_kinds = |mask: u16| union_of(kinds, mask as u64) & checking;
        let mut ray_checkers = [0u64; 8];
        for (slot, (mask, _)) in ray_checkers
            .iter_mut()
            .zip(&t.ray_groups)
            .take(Self::group_count(t))
        {
            *slot = of_kinds(*mask);
        }
        let mut leap_checkers = [0u64; 8];
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
            ours: sets[us.index()],
            capturable,
            kinds,
            ray_checkers,
            leap_checkers,
            check_mask: !0,
            checks: 0,
            pinned: 0,
            pins: ArrayVec::new(),
            last_ray: (usize::MAX, 0),
            king: 0,
        }
    }

    /// The destinations `which` allows: empty cells for quiet moves, cells
    /// of pieces we may capture for captures.
    #[inline(always)]
    fn gen_mask(&self, which: GenType) -> u64 {
        (if which.quiets() { !self.occ } else { 0 })
            | (if which.captures() { self.capturable } else { 0 })
    }

    /// The cells the piece of `kind` on `from` leaps or slides to (up to
    /// and including the first occupied cell).
    #[inline(always)]
    fn targets(&self, from: Cell, kind: usize) -> u64 {
        let t = self.t;
        let mut targets = 0u64;
        if let Some(li) = self.v.kind_leap[kind] {
            targets |= t.leaps[li][from & 63];
        }
        for m in &t.kind_magics[kind] {
            targets |= m.attacks(from, self.occ);
        }
        targets
    }

    /// Counts or lists the moves of the (non-royal, non-pawn) `pieces` of
    /// one kind whose targets `targets` gives: onto cells of `allowed`,
    /// restricted by checks and pins.
    #[inline(always)]
    fn piece_targets(
        &self,
        mut pieces: u64,
        allowed: u64,
        out: &mut impl MoveSink,
        targets: impl Fn(Cell) -> u64,
    ) {
        while pieces != 0 {
            let from = pieces.trailing_zeros() as usize;
            pieces &= pieces - 1;
            out.push_targets(from, targets(from) & allowed & self.mask_for(from));
        }
    }

    /// The legal castlings of the king on `king` with our rook on `rook`
    /// (which holds a right): the cells between empty, the cells the king
    /// crosses unattacked, the king safe on the board after the move.
    #[inline(always)]
    fn castlings_with(&self, king: Cell, rook: Cell, out: &mut impl MoveSink) {
        for c in &self.t.castlings[king * 64 + rook] {
            if c.empty & self.occ == 0 {
                self.castle_if_safe(king, rook, c, out);
            }
        }
    }

    /// The castling `c` of the king on `king` with `rook`, whose cells
    /// between are empty, if the king crosses no attacked cell and is safe
    /// after it (out of line: most castlings are blocked, and inlined the
    /// attack test's set-up would be paid by every generation).
    #[inline(never)]
    fn castle_if_safe(&self, king: Cell, rook: Cell, c: &CastlingMasks, out: &mut impl MoveSink) {
        let mut crossed = c.crossed;
        let mut safe = true;
        while crossed != 0 && safe {
            safe = !self.attacked(crossed.trailing_zeros() as usize, self.occ);
            crossed &= crossed - 1;
        }
        let (king_to, rook_to) = (c.king_to as usize, c.rook_to as usize);
        let after = self.occ & !(1 << king | 1 << rook) | 1 << king_to | 1 << rook_to;
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
        mut pieces: u64,
        handled: u64,
        which: GenType,
        out: &mut impl MoveSink,
    ) {
        while pieces != 0 {
            let from = pieces.trailing_zeros() as usize;
            pieces &= pieces - 1;
            let mask = self.mask_for(from);
            let setwise = handled >> from & 1 != 0;
            legal::pawn_moves(pos, self.us, self, from, kind, mask, setwise, which, out);
        }
    }

    /// The cells the pins of the piece on `from` leave it, on boards
    /// without line tables (kept out of line: it is rare, and inlined its
    /// set-up would cost every generation registers).
    #[cold]
    #[inline(never)]
    fn pin_lines(&self, from: Cell) -> u64 {
        self.pins
            .iter()
            .filter(|pin| pin.0 as usize == from)
            .fold(!0, |allowed, pin| allowed & pin.1)
    }

    /// Attacks from `king` along `d` given the occupancy (remembered for
    /// the check or pin that may follow).
    #[inline(always)]
    fn ray(&mut self, king: Cell, d: usize) -> u64 {
        if self.last_ray.0 != d {
            self.last_ray = (d, self.t.ray_attacks(king, d, self.occ));
        }
        self.last_ray.1
    }

    /// Whether `cell` is attacked by pieces whose attacks on our king are
    /// check, given occupancy `occ` (the king already removed from it).
    #[inline(always)]
    fn attacked(&self, cell: Cell, occ: u64) -> bool {
        let (t, v) = (self.t, self.v);
        for &(q, k, _) in &v.checking_pawns[self.us] {
            let pawns = self.pos.set_word(q.index()) & self.kinds[k];
            if t.pawn_attackers[q.index() * t.kinds + k][cell & 63] & pawns != 0 {
                return true;
            }
        }
        for li in 0..Self::leap_count(self.t) {
            if t.leap_sources[li][cell & 63] & self.leap_checkers[li] != 0 {
                return true;
            }
        }
        for gi in 0..Self::group_count(self.t) {
            let attackers = self.ray_checkers[gi] & occ;
            if attackers != 0 && t.ray_group_magics[gi].attacks(cell, occ) & attackers != 0 {
                return true;
            }
        }
        false
    }
}

/// The cells of a one-word set, in increasing order.
pub(crate) struct BitCells(u64);

impl Iterator for BitCells {
    type Item = Cell;

    #[inline(always)]
    fn next(&mut self) -> Option<Cell> {
        (self.0 != 0).then(|| {
            let c = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            c
        })
    }
}

impl<const G: usize, const L: usize> Backend for Bits<'_, G, L> {
    type Mask = u64;
    type Pieces = BitCells;

    #[inline(always)]
    fn own_pieces(&self) -> BitCells {
        BitCells(self.ours)
    }

    #[inline(always)]
    fn contains(&self, mask: u64, cell: Cell) -> bool {
        mask >> cell & 1 != 0
    }

    #[inline(always)]
    fn occupied(&self, cell: Cell) -> bool {
        self.occ >> cell & 1 != 0
    }

    #[inline(always)]
    fn ray_may_check(&self, king: Cell, r: RayRef, _signature: u64) -> bool {
        let d = r.dir as usize;
        let gi = self.t.dir_group[d];
        gi != u8::MAX
            && self.t.full_rays[king * self.t.directions + d] & self.ray_checkers[gi as usize] != 0
    }

    /// The rules of [`legal::generate_castling`] with cell sets: our rook
    /// on a cell with a right, the cells between empty, the cells the king
    /// crosses unattacked, and the king safe on the board after the move.
    #[inline(always)]
    fn castlings<S: MoveSink>(&mut self, _pos: &Position, _us: Seat, king: Cell, out: &mut S) {
        // Our rooks with a right (the word is exact on these boards); a
        // list takes them in the order the rights were granted, as the
        // generic rules do.
        let ours = self.pos.castling_word() & self.ours;
        if S::ORDERED {
            for &rook in self.pos.castling() {
                if ours >> rook & 1 != 0 {
                    self.castlings_with(king, rook as usize, out);
                }
            }
        } else {
            let mut rooks = ours;
            while rooks != 0 {
                let rook = rooks.trailing_zeros() as usize;
                rooks &= rooks - 1;
                self.castlings_with(king, rook, out);
            }
        }
    }

    #[inline(always)]
    fn pieces_by_kind(
        &mut self,
        pos: &Position,
        only_king: bool,
        handled: u64,
        which: GenType,
        out: &mut impl MoveSink,
    ) -> bool {
        let t = self.t;
        for &kind in &t.kinds_by_role[Role::Royal as usize] {
            let mut pieces = self.ours & self.kinds[kind as usize];
            while pieces != 0 {
                let from = pieces.trailing_zeros() as usize;
                pieces &= pieces - 1;
                self.king_moves(from, kind as usize, which, out);
            }
        }
        if only_king {
            return true;
        }
        for &kind in &t.kinds_by_role[Role::Pawn as usize] {
            let kind = kind as usize;
            let mut pieces = self.ours & self.kinds[kind];
            if pos.en_passant().is_none() {
                // A pawn moved set-wise has only en passant left.
                pieces &= !handled;
            }
            if pieces != 0 {
                self.pawns_one_by_one(pos, kind, pieces, handled, which, out);
            }
        }
        let allowed = self.gen_mask(which);
        let occ = self.occ;
        for (kind, shape) in &t.piece_shapes {
            let pieces = self.ours & self.kinds[*kind];
            if pieces == 0 {
                continue;
            }
            // The kind's tables looked up once for all its pieces; the
            // usual shapes without the general lookup.
            match shape {
                PieceShape::Leaper(li) => {
                    let l = &t.leaps[*li];
                    self.piece_targets(pieces, allowed, out, |from| l[from & 63])
                }
                PieceShape::Slider(m) => {
                    self.piece_targets(pieces, allowed, out, |from| m.attacks(from, occ))
                }
                PieceShape::TwoSliders(m, n) => self.piece_targets(pieces, allowed, out, |from| {
                    m.attacks(from, occ) | n.attacks(from, occ)
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
            return false;
        };
        self.king = king;
        for gi in 0..Self::group_count(self.t) {
            let mut snipers = lines.group_rays[gi][king & 63] & self.ray_checkers[gi];
            while snipers != 0 {
                let s = snipers.trailing_zeros() as usize;
                snipers &= snipers - 1;
                let line = lines.between[king & 63][s & 63];
                let blockers = line & self.occ & !(1 << s);
                if blockers == 0 {
                    self.check_mask &= line;
                    self.checks += 1;
                } else if blockers & (blockers - 1) == 0 && blockers & self.ours != 0 {
                    self.pinned |= blockers;
                }
            }
        }
        true
    }

    #[inline(always)]
    fn ray_blockers(&mut self, king: Cell, d: usize) -> Option<Cell> {
        let blocker = self.ray(king, d) & self.occ;
        (blocker != 0).then(|| blocker.trailing_zeros() as usize)
    }

    #[inline(always)]
    fn ray_next_blocker(&mut self, king: Cell, d: usize, first: Cell) -> Option<Cell> {
        let line = self.t.ray_attacks(king, d, self.occ ^ 1 << first);
        self.last_ray = (d, line);
        let beyond = line & self.occ & !(1 << first);
        (beyond != 0).then(|| beyond.trailing_zeros() as usize)
    }

    #[inline(always)]
    fn add_check_line(&mut self, king: Cell, d: usize, _checker: Cell) {
        let att = self.ray(king, d);
        self.check_mask &= att;
        self.checks += 1;
    }

    #[inline(always)]
    fn add_check_cell(&mut self, checker: Cell) {
        self.check_mask &= 1 << checker;
        self.checks += 1;
    }

    #[inline(always)]
    fn add_pin(&mut self, pinned: Cell, king: Cell, d: usize, _pinner: Cell) {
        // `ray_next_blocker` left the line through the pinned piece.
        let line = self.ray(king, d);
        if self.pinned >> pinned & 1 != 0 {
            for pin in &mut self.pins {
                if pin.0 as usize == pinned {
                    pin.1 &= line;
                }
            }
        } else {
            // At most one entry per cell of a board of at most 64 cells.
            self.pins.push((pinned as u8, line));
        }
        self.pinned |= 1 << pinned;
    }

    #[inline(always)]
    fn contact_checks(&mut self, _pos: &Position, _us: Seat, king: Cell) {
        let t = self.t;
        for li in 0..Self::leap_count(self.t) {
            let mut hits = t.leap_sources[li][king & 63] & self.leap_checkers[li];
            while hits != 0 {
                let c = hits & hits.wrapping_neg();
                hits &= hits - 1;
                self.check_mask &= c;
                self.checks += 1;
            }
        }
        for &(q, k, _) in &self.v.checking_pawns[self.us] {
            let pawns = self.pos.set_word(q.index()) & self.kinds[k];
            let mut hits = t.pawn_attackers[q.index() * t.kinds + k][king & 63] & pawns;
            while hits != 0 {
                let c = hits & hits.wrapping_neg();
                hits &= hits - 1;
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
        self.check_mask != 0
    }

    #[inline(always)]
    fn mask_for(&self, from: Cell) -> u64 {
        let allowed = self.check_mask;
        if self.pinned >> from & 1 == 0 {
            return allowed;
        }
        match &self.t.lines {
            // A pinned piece stays on the king's line through it.
            Some(lines) => allowed & lines.through[self.king & 63][from & 63],
            None => allowed & self.pin_lines(from),
        }
    }

    #[inline(always)]
    fn setwise_pawns(&mut self, which: GenType, out: &mut impl MoveSink) -> u64 {
        let (t, v, us) = (self.t, self.v, self.us);
        let mut handled = 0u64;
        let mut pawn_kinds = v.pawn_kinds;
        while pawn_kinds != 0 {
            let kind = pawn_kinds.trailing_zeros() as usize;
            pawn_kinds &= pawn_kinds - 1;
            let Some(lanes) = &t.pawn_lanes[us.index() * t.kinds + kind] else {
                continue;
            };
            let pawns = self.ours & self.kinds[kind] & !self.pinned;
            if pawns == 0 {
                continue;
            }
            handled |= pawns;
            let zone = t.promotion_zone[us.index()];
            let check_mask = self.check_mask;
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            fn emit(
                v: &Variant,
                us: Seat,
                zone: u64,
                targets: u64,
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
                if promoting != 0 {
                    promotions(v, us, promoting, delta, capture, which, out);
                }
            }
            /// The promotions onto `promoting` (out of line: rare).
            #[cold]
            #[inline(never)]
            fn promotions(
                v: &Variant,
                us: Seat,
                mut promoting: u64,
                delta: i32,
                capture: bool,
                which: GenType,
                out: &mut impl MoveSink,
            ) {
                while promoting != 0 {
                    let to = promoting.trailing_zeros() as i32;
                    promoting &= promoting - 1;
                    let m = Move::normal((to - delta) as usize, to as usize);
                    push_pawn_move(v, us, m, capture, which, out);
                }
            }
            for &(delta, src, double) in &lanes.pushes {
                let single = shift(pawns & src, delta) & !self.occ;
                emit(v, us, zone, single & check_mask, delta, false, which, out);
                if double != 0 && which.quiets() {
                    let two = shift(single & shift(pawns & double, delta), delta)
                        & !self.occ
                        & check_mask;
                    out.push_shifted(two, 2 * delta, true);
                }
            }
            if which.captures() {
                for &(delta, src) in &lanes.captures {
                    let targets = shift(pawns & src, delta) & self.capturable & check_mask;
                    emit(v, us, zone, targets, delta, true, which, out);
                }
            }
        }
        handled
    }

    #[inline(always)]
    fn moved_setwise(&self, handled: u64, from: Cell) -> bool {
        handled >> from & 1 != 0
    }

    #[inline(always)]
    fn pawn_captures(
        &mut self,
        from: Cell,
        kind: usize,
        mask: u64,
        setwise: bool,
        out: &mut impl MoveSink,
    ) {
        let (t, v, us) = (self.t, self.v, self.us);
        let caps = t.pawn_captures[us.index() * t.kinds + kind][from & 63];
        let targets = if setwise {
            0
        } else {
            caps & self.capturable & mask
        };
        let mut promoting = targets & t.promotion_zone[us.index()];
        out.push_targets(from, targets & !promoting);
        while promoting != 0 {
            let to = promoting.trailing_zeros() as usize;
            promoting &= promoting - 1;
            push_pawn_move(v, us, Move::normal(from, to), true, GenType::Captures, out);
        }
        if let Some(ep) = self.pos.en_passant() {
            let target = ep.target as usize;
            let pawn_cell = ep.pawn as usize;
            if caps >> target & 1 != 0 && self.capturable >> pawn_cell & 1 != 0 {
                let king = self.pos.royal_cell(us);
                push_en_passant(self.pos, us, king, from, ep, out);
            }
        }
    }

    #[inline(always)]
    fn king_moves(&mut self, from: Cell, kind: usize, which: GenType, out: &mut impl MoveSink) {
        let occ_without = self.occ & !(1u64 << from);
        let mut targets = self.targets(from, kind) & self.gen_mask(which);
        while targets != 0 {
            let to = targets.trailing_zeros() as usize;
            targets &= targets - 1;
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
        mask: u64,
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
            let t = Tables::new(&v).expect("a board of at most 64 cells");
            let g = &v.geometry;
            let tables = t
                .ray_group_magics
                .iter()
                .chain(t.kind_magics.iter().flatten());
            for table in tables {
                for cell in 0..g.cell_count() {
                    let mask = table.entries[cell].mask;
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
        let t = Tables::new(&v).expect("a board of 64 cells");
        for table in &t.ray_group_magics {
            for (cell, e) in table.entries.iter().enumerate() {
                let mask = e.mask;
                if mask == 0 {
                    continue;
                }
                assert_eq!(known_magic(mask), Some(e.magic), "cell {cell}");
                assert_eq!(e.shift, 64 - mask.count_ones(), "cell {cell}");
            }
        }
    }
}
