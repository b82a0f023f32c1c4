//! The fast path of the move generator for boards of at most 64 cells
//! (chess, Chess960, cylinder, the cube): every set of cells is one `u64`.
//!
//! Sliding attacks come from precomputed ray masks and the occupancy: a ray
//! is split into segments along which the flattened index only grows or only
//! shrinks (one segment on a board without wrap, more where the ray goes
//! round), so the first blocker of a segment is its lowest or highest set
//! bit. Everything else follows the generic generator in [`crate::rules::movegen`]
//! (checking lines intersected, pin lines per pinned piece, king moves tested
//! on the board without the king, en passant and castling tested on the
//! board after the move); the agreement of the two generators is tested in
//! `tests/fast_path.rs` and by perft.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::board::geometry::Cell;
use crate::board::variant::{NO_CELL, Variant, piece_kind};
use crate::rules::movegen::{
    MoveSink, Scratch, generate_castling, push_en_passant, push_pawn_move,
};
use crate::rules::position::{Move, MoveKind, Position};

/// A piece of a ray along which cell indices are monotonic.
#[derive(Clone, Copy, Debug)]
struct Segment {
    mask: u64,
    increasing: bool,
}

/// Bitboard tables of a board of at most 64 cells.
#[derive(Debug)]
pub struct Tables {
    directions: usize,
    /// Per (cell, direction): range into `segments`.
    spans: Vec<(u32, u8)>,
    segments: Vec<Segment>,
    /// Per leap table and cell (`table * 64 + cell`): the targets.
    leaps: Vec<u64>,
    /// Number of piece kinds.
    kinds: usize,
    /// Per player, kind and cell (`(player * kinds + kind) * 64 + cell`): a
    /// pawn's capture targets.
    pawn_captures: Vec<u64>,
    /// Same index: the cells from which such a pawn captures onto the cell.
    pawn_attackers: Vec<u64>,
    /// Distinct slider-kind masks with the directions that use them, for
    /// the attack test: (mask of kinds attacking from the far end, dirs).
    ray_groups: Vec<(u16, Vec<usize>)>,
    /// Per ray group: the magic table of its directions.
    ray_group_magics: Vec<Arc<MagicTable>>,
    /// Per kind: magic tables whose union are its slides (empty for
    /// non-sliders).
    kind_magics: Vec<Vec<Arc<MagicTable>>>,
    /// Per (cell, direction): the whole ray on the empty board.
    full_rays: Vec<u64>,
    /// Per player and kind (`player * kinds + kind`): set-wise pawn steps,
    /// where every step of the pawn is a constant index shift (boxes
    /// without wrap); `None` where the per-pawn path is used.
    pawn_lanes: Vec<Option<PawnLanes>>,
    promotion_zone: Vec<u64>,
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

/// Magic-multiplication lookup of the attacks of one set of slide
/// directions from every cell: `attacks[offset + ((occ & mask) * magic) >>
/// shift]`. The magics are searched at set-up (deterministically) and cached
/// per board and direction set, so chess and all 960 Chess960 variants share
/// one table.
#[derive(Debug)]
pub struct MagicTable {
    entries: Vec<MagicEntry>,
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
        let e = self.entries[cell];
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
        let mut rng = 0x2545_F491_4F6C_DD1Du64 ^ (dirs.len() as u64) << 32 ^ cells as u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut entries = Vec::with_capacity(cells);
        let mut attacks = Vec::new();
        let mut used: Vec<u32> = Vec::new();
        let mut epoch = 0u32;
        for cell in 0..cells {
            // Relevant cells: every ray's cells but its last (whose
            // occupancy cannot change the attacks along that ray).
            let mut mask = 0u64;
            for &d in dirs {
                let ray = g.ray(cell, d);
                if let Some((&last, rest)) = ray.split_last() {
                    mask |= rest.iter().fold(0u64, |m, &c| m | 1u64 << c);
                    let _ = last;
                }
            }
            let bits = mask.count_ones();
            let mut occs = Vec::with_capacity(1 << bits);
            let mut sub = 0u64;
            loop {
                occs.push(sub);
                sub = sub.wrapping_sub(mask) & mask;
                if sub == 0 {
                    break;
                }
            }
            let reference: Vec<u64> = occs
                .iter()
                .map(|&o| dirs.iter().fold(0, |a, &d| a | t.ray_attacks(cell, d, o)))
                .collect();
            let offset = attacks.len();
            // A perfect hash into exactly `bits` bits can be very hard to
            // find for unusual masks (wrapping ranks); after a bounded number
            // of candidates the table is allowed one more bit, and so on.
            let (magic, shift) = if bits == 0 {
                attacks.push(reference[0]);
                (0, 63)
            } else {
                let mut extra = 0;
                'search: loop {
                    let index_bits = bits + extra;
                    let size = 1usize << index_bits;
                    let shift = 64 - index_bits;
                    attacks.resize(offset + size, 0);
                    if used.len() < size {
                        used.resize(size, 0);
                    }
                    let tries = if extra == 0 { 1_000 } else { 100_000 };
                    for _ in 0..tries {
                        let candidate = next() & next() & next();
                        if (mask.wrapping_mul(candidate) >> 56).count_ones() < 6 && bits > 6 {
                            continue;
                        }
                        epoch += 1;
                        let ok = occs.iter().zip(&reference).all(|(&o, &a)| {
                            let i = (o.wrapping_mul(candidate) >> shift) as usize;
                            if used[i] != epoch {
                                used[i] = epoch;
                                attacks[offset + i] = a;
                                true
                            } else {
                                attacks[offset + i] == a
                            }
                        });
                        if ok {
                            break 'search (candidate, shift);
                        }
                    }
                    extra += 1;
                }
            };
            entries.push(MagicEntry {
                mask,
                magic,
                shift,
                offset: offset as u32,
            });
        }
        MagicTable { entries, attacks }
    }
}

/// Magic tables already built, per board and direction set.
fn magic_cache() -> &'static Mutex<HashMap<String, Arc<MagicTable>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<MagicTable>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

impl Tables {
    /// Builds the tables, or `None` for boards of more than 64 cells.
    pub fn new(v: &Variant) -> Option<Tables> {
        let g = &v.geometry;
        let cells = g.cell_count();
        if cells > 64 {
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
        let leaps = v
            .leaps
            .iter()
            .flat_map(|t| (0..64).map(|c| if c < cells { to_mask(t.get(c)) } else { 0 }))
            .collect();
        let per_pawn = |f: &dyn Fn(&crate::board::variant::PawnTable, Cell) -> u64| -> Vec<u64> {
            v.pawn_tables
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
        let promotion_zone = v.promotion_zone.iter().map(|z| z.words()[0]).collect();
        let full_rays = (0..cells * nd)
            .map(|i| to_mask(g.ray(i / nd, i % nd)))
            .collect();
        let wraps = g.wraps().iter().any(|&w| w);
        let mut pawn_lanes = Vec::new();
        for (pi, player) in v.players.iter().enumerate() {
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
                    let table = &v.pawn_tables[pi][ki];
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
        let mut t = Tables {
            pawn_lanes,
            directions: nd,
            spans,
            segments,
            leaps,
            kinds: v.kinds.len(),
            pawn_captures,
            pawn_attackers,
            ray_groups,
            ray_group_magics: Vec::new(),
            kind_magics: Vec::new(),
            full_rays,
            promotion_zone,
        };
        let key = format!("{:?}{:?}{:?}", g.lens(), g.wraps(), g.shape());
        let table_for = |dirs: &[usize]| -> Arc<MagicTable> {
            let mut sorted = dirs.to_vec();
            sorted.sort_unstable();
            let k = format!("{key}{sorted:?}");
            let cache = magic_cache();
            if let Some(m) = cache.lock().ok().and_then(|c| c.get(&k).cloned()) {
                return m;
            }
            let m = Arc::new(MagicTable::build(&t, g, &sorted));
            if let Ok(mut c) = cache.lock() {
                c.insert(k, m.clone());
            }
            m
        };
        // Kinds slide along unions of "direction classes" (directions that
        // change the same number of coordinates): one table per class.
        let ray_group_magics: Vec<Arc<MagicTable>> = t
            .ray_groups
            .iter()
            .map(|(_, dirs)| table_for(dirs))
            .collect();
        let kind_magics = v
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
            .collect();
        t.ray_group_magics = ray_group_magics;
        t.kind_magics = kind_magics;
        Some(t)
    }

    /// Cells attacked from `cell` along direction `d` given occupancy `occ`
    /// (up to and including the first occupied cell).
    #[inline(always)]
    fn ray_attacks(&self, cell: Cell, d: usize, occ: u64) -> u64 {
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

/// The bitboards of one position, loaded once per node.
struct Sets {
    /// Per kind: cells of that kind (all players).
    kinds: [u64; 16],
    /// Per ray group: enemy pieces attacking along it.
    ray_attackers: [u64; 8],
    /// Per leap table: enemy pieces using it.
    leap_attackers: [u64; 8],
}

/// Whether `cell` is attacked by the enemies of `us` given occupancy `occ`
/// (the mover's king already removed by the caller).
#[inline(always)]
fn attacked(
    t: &Tables,
    v: &Variant,
    pos: &Position,
    us: usize,
    cell: Cell,
    sets: &Sets,
    occ: u64,
) -> bool {
    for &(q, k, _) in &v.enemy_pawns[us] {
        let pawns = pos.set_word(q) & sets.kinds[k];
        if t.pawn_attackers[(q * t.kinds + k) * 64 + cell] & pawns != 0 {
            return true;
        }
    }
    for (li, &attackers) in sets.leap_attackers[..t.leaps.len() / 64].iter().enumerate() {
        if t.leaps[li * 64 + cell] & attackers != 0 {
            return true;
        }
    }
    for (gi, magic) in t.ray_group_magics.iter().enumerate() {
        let attackers = sets.ray_attackers[gi] & occ;
        if attackers != 0 && magic.attacks(cell, occ) & attackers != 0 {
            return true;
        }
    }
    false
}

/// Generates the legal moves of the side to move (fast path) into `out`
/// (appended).
pub fn generate(t: &Tables, pos: &Position, _s: &mut Scratch, out: &mut impl MoveSink) {
    let v = &**pos.variant();
    let us = pos.to_move();
    let occ = pos.set_word(v.players.len() + t.kinds);
    let ours = pos.set_word(us);
    let mut theirs = 0;
    for q in 0..v.players.len() {
        if v.enemies(us, q) {
            theirs |= pos.set_word(q);
        }
    }
    let mut sets = Sets {
        kinds: [0; 16],
        ray_attackers: [0; 8],
        leap_attackers: [0; 8],
    };
    for (k, slot) in sets.kinds.iter_mut().enumerate().take(t.kinds) {
        *slot = pos.set_word(v.players.len() + k);
    }
    let of_kinds = |mask: u16, kinds: &[u64; 16]| -> u64 {
        let mut m = mask;
        let mut out = 0;
        while m != 0 {
            out |= kinds[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        out & theirs
    };
    for (gi, (mask, _)) in t.ray_groups.iter().enumerate().take(8) {
        sets.ray_attackers[gi] = of_kinds(*mask, &sets.kinds);
    }
    for (li, slot) in sets
        .leap_attackers
        .iter_mut()
        .enumerate()
        .take(t.leaps.len() / 64)
    {
        *slot = of_kinds(v.kinds_by_leap[li], &sets.kinds);
    }
    let king = pos.royal_cell(us);

    // Checking lines and pins.
    let mut check_mask = !0u64;
    let mut checks = 0;
    let mut pinned = 0u64;
    let mut pins: [(u8, u64); 16] = [(0, 0); 16];
    let mut pin_count = 0;
    if let Some(k) = king {
        for (gi, (_, dirs)) in t.ray_groups.iter().enumerate() {
            let sliders = sets.ray_attackers[gi];
            if sliders == 0 {
                continue;
            }
            if t.ray_group_magics[gi].attacks(k, 0) & sliders == 0 {
                continue;
            }
            for &d in dirs {
                if t.full_rays[k * t.directions + d] & sliders == 0 {
                    continue;
                }
                let att = t.ray_attacks(k, d, occ);
                if att & sliders != 0 {
                    check_mask &= att;
                    checks += 1;
                    continue;
                }
                let blocker = att & ours;
                if blocker != 0 {
                    let beyond = t.ray_attacks(k, d, occ ^ blocker);
                    if beyond & sliders != 0 {
                        pinned |= blocker;
                        if pin_count < pins.len() {
                            pins[pin_count] = (blocker.trailing_zeros() as u8, beyond);
                            pin_count += 1;
                        }
                    }
                }
            }
        }
        for (li, &attackers) in sets.leap_attackers[..t.leaps.len() / 64].iter().enumerate() {
            let mut hits = t.leaps[li * 64 + k] & attackers;
            while hits != 0 {
                let c = hits & hits.wrapping_neg();
                hits &= hits - 1;
                check_mask &= c;
                checks += 1;
            }
        }
        for &(q, kk, _) in &v.enemy_pawns[us] {
            let pawns = pos.set_word(q) & sets.kinds[kk];
            let mut hits = t.pawn_attackers[(q * t.kinds + kk) * 64 + k] & pawns;
            while hits != 0 {
                let c = hits & hits.wrapping_neg();
                hits &= hits - 1;
                check_mask &= c;
                checks += 1;
            }
        }
    }
    let only_king = checks > 0 && check_mask == 0;

    // Pawns that are not pinned move all at once where their steps are
    // constant index shifts; the rest go through the per-piece loop.
    let mut setwise_pawns = 0u64;
    if !only_king {
        for kind in 0..t.kinds {
            let Some(lanes) = &t.pawn_lanes[us * t.kinds + kind] else {
                continue;
            };
            let pawns = ours & sets.kinds[kind] & !pinned;
            if pawns == 0 {
                continue;
            }
            setwise_pawns |= pawns;
            let zone = t.promotion_zone[us];
            #[inline(always)]
            fn emit(
                v: &Variant,
                us: usize,
                zone: u64,
                targets: u64,
                delta: i32,
                out: &mut impl MoveSink,
            ) {
                let promoting = targets & zone;
                out.push_shifted(targets & !promoting, delta, false);
                let mut p = promoting;
                while p != 0 {
                    let to = p.trailing_zeros() as i32;
                    p &= p - 1;
                    push_pawn_move(v, us, Move::normal((to - delta) as usize, to as usize), out);
                }
            }
            for &(delta, src, double) in &lanes.pushes {
                let single = shift(pawns & src, delta) & !occ;
                emit(v, us, zone, single & check_mask, delta, out);
                if double != 0 {
                    let two =
                        shift(single & shift(pawns & double, delta), delta) & !occ & check_mask;
                    out.push_shifted(two, 2 * delta, true);
                }
            }
            for &(delta, src) in &lanes.captures {
                emit(
                    v,
                    us,
                    zone,
                    shift(pawns & src, delta) & theirs & check_mask,
                    delta,
                    out,
                );
            }
        }
    }

    let mut own = ours;
    while own != 0 {
        let from = own.trailing_zeros() as usize;
        own &= own - 1;
        let p = pos.piece_at(from);
        let kind = piece_kind(p);
        let kd = &v.kinds[kind];
        if kd.royal {
            let occ_without = occ & !(1u64 << from);
            let mut targets = 0u64;
            if let Some(li) = kd.leaps {
                targets |= t.leaps[li * 64 + from];
            }
            for m in &t.kind_magics[kind] {
                targets |= m.attacks(from, occ);
            }
            targets &= !ours;
            while targets != 0 {
                let to = targets.trailing_zeros() as usize;
                targets &= targets - 1;
                if !attacked(t, v, pos, us, to, &sets, occ_without) {
                    out.push(Move::normal(from, to));
                }
            }
            continue;
        }
        if only_king {
            continue;
        }
        let mut allowed = check_mask;
        if pinned >> from & 1 != 0 {
            for pin in &pins[..pin_count] {
                if pin.0 as usize == from {
                    allowed &= pin.1;
                }
            }
        }
        if kd.pawn.is_some() {
            let table = &v.pawn_tables[us][kind];
            let caps = t.pawn_captures[(us * t.kinds + kind) * 64 + from];
            let setwise = setwise_pawns >> from & 1 != 0;
            for pair in table.pushes.get(from).chunks_exact(2) {
                if setwise {
                    break;
                }
                let one = pair[0] as usize;
                if occ >> one & 1 != 0 {
                    continue;
                }
                if allowed >> one & 1 != 0 {
                    push_pawn_move(v, us, Move::normal(from, one), out);
                }
                let two = pair[1];
                if two != NO_CELL && occ >> two & 1 == 0 && allowed >> two & 1 != 0 {
                    out.push(Move {
                        aux: one as u16,
                        kind: MoveKind::DoubleStep,
                        ..Move::normal(from, two as usize)
                    });
                }
            }
            let targets = if setwise { 0 } else { caps & theirs & allowed };
            let mut promoting = targets & t.promotion_zone[us];
            out.push_targets(from, targets & !promoting);
            while promoting != 0 {
                let to = promoting.trailing_zeros() as usize;
                promoting &= promoting - 1;
                push_pawn_move(v, us, Move::normal(from, to), out);
            }
            if let Some(ep) = pos.en_passant() {
                let target = ep.target as usize;
                let pawn_cell = ep.pawn as usize;
                if caps >> target & 1 != 0 && theirs >> pawn_cell & 1 != 0 {
                    push_en_passant(pos, king, from, ep, out);
                }
            }
            continue;
        }
        let mut targets = 0u64;
        if let Some(li) = kd.leaps {
            targets |= t.leaps[li * 64 + from];
        }
        for m in &t.kind_magics[kind] {
            targets |= m.attacks(from, occ);
        }
        out.push_targets(from, targets & !ours & allowed);
    }

    if checks == 0
        && let Some(k) = king
        && !pos.castling().is_empty()
    {
        generate_castling(pos, k, out);
    }
}
