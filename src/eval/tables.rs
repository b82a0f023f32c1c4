//! The evaluation's tables and its phase.
//!
//! The measured terms of the evaluation ([`super`]) scale a handful of
//! quantities by one weight each; what they cannot say is that a knight
//! on the rim is worse than its mobility tells, that a king belongs in the
//! corner until the queens are gone, or that a passed pawn on the sixth
//! rank is worth more in the endgame than in the opening. Tables say it,
//! each entry a pair of centipawns (opening, endgame) per kind:
//!
//! - `placement`: per cell, a piece of the kind standing there
//!   (piece-square values);
//! - `passed`: per cell, a passed pawn of the kind standing there, on top
//!   of its placement;
//! - `mobility`: per number of cells the piece attacks (counted as the
//!   mobility term counts them), on top of that term;
//! - `pair`: a second piece of the kind (the bishop pair);
//! - `danger` (the royal kind): by the units of danger around the king
//!   (the king safety term's count, normalised to a zone of nine cells),
//!   so that the fit can make many attackers weigh more than the sum of
//!   few;
//! - `shelter` (the royal kind): by the number of own pawns on the cells
//!   one king step away;
//! - `supported`: per cell, a piece of the kind (a pawn too) that an own
//!   pawn defends there (outposts, pawn chains);
//! - `race`: a passed pawn of the kind, by the enemy king's distance to
//!   it less the own king's (from −[`RACE_RADIUS`] to +[`RACE_RADIUS`]);
//! - `free`: per cell, a passed pawn of the kind standing there whose
//!   single steps all go to empty cells no enemy piece attacks (it can
//!   advance unhindered), on top of its passed entry.
//!
//! Every table is written from the first seat's side; a seat's pieces
//! read it through the lattice map that carries the seat's army onto the
//! first seat's ([`seat_views`]), so one table serves both colours of
//! chess, every face of a multi-party diamond and any board whose armies
//! are images of each other. No table is built in for a variant unless
//! its built-in weights have one (chess's are fitted, docs/engine.md):
//! without tables the evaluation is the measured terms alone.
//!
//! The phase is the share of the start's piece material (not pawns, not
//! kings) still on the board, from 256 (every piece) to 0 (none): a
//! table entry is `(opening · phase + endgame · (256 − phase)) / 256`, and
//! the measured terms are scaled the same way by their phase scales
//! ([`super::weights::EvalWeights::phase_scales`]).

use crate::board::piece::{PieceKind, piece, piece_kind, piece_seat};
use crate::board::seating::Seat;
use crate::board::variant::Variant;

use super::weights::{EvalWeights, TERMS};

/// The phase of a position with every start piece on the board.
pub const PHASE_FULL: i32 = 256;

/// Per seat, per cell: the cell as the first seat sees it, that is the
/// image of the cell under a lattice map (a permutation of axes of equal
/// length and wrapping, each axis kept or reflected) that maps the board
/// onto itself and the seat's start army onto the first seat's, piece by
/// piece and kind by kind. The first seat's map is the identity. The
/// seats' frames give the first candidate (chess: the ranks reflected);
/// other candidates are tried where it fails. `None` where a seat has no
/// such map (an army that is no image of the first seat's), or where a
/// board of more than eight axes leaves only the frames' candidate and it
/// fails.
pub fn seat_views(v: &Variant) -> Option<Vec<Vec<u16>>> {
    let g = &v.geometry;
    let n = g.dims();
    let cells = g.cell_count();
    let lens = g.lens();
    let wraps = g.wraps();
    let first = &v.seating.info(Seat::FIRST).frame;
    // The translations of the wrapping axes (mixed radix), 1 without.
    let shifts: usize = (0..n).filter(|&a| wraps[a]).map(|a| lens[a]).product();
    let shift_of = |mut t: usize| -> Vec<i32> {
        (0..n)
            .map(|a| {
                if wraps[a] {
                    let s = (t % lens[a]) as i32;
                    t /= lens[a];
                    s
                } else {
                    0
                }
            })
            .collect()
    };
    let mut out = Vec::with_capacity(v.seat_count());
    for seat in v.seating.seats() {
        if seat == Seat::FIRST {
            out.push((0..cells as u16).collect());
            continue;
        }
        // A map: board axis `a` goes to axis `to[a]`, reflected where
        // `flip[a]`, then shifted by `shift[a]` (on a wrapping axis).
        let frame = &v.seating.info(seat).frame;
        let mut to = vec![0usize; n];
        let mut flip = vec![false; n];
        for (i, &(a, sign)) in frame.iter().enumerate() {
            let (b, sign0) = first[i];
            to[a] = b;
            flip[a] = sign != sign0;
        }
        let try_shifts = |to: &[usize], flip: &[bool]| {
            (0..shifts).find_map(|t| map_cells(v, seat, to, flip, &shift_of(t)))
        };
        let mut found = try_shifts(&to, &flip);
        if found.is_none() && n <= 8 && shifts <= 4096 {
            let mut perm: Vec<usize> = (0..n).collect();
            'search: loop {
                if (0..n).all(|a| lens[a] == lens[perm[a]] && wraps[a] == wraps[perm[a]]) {
                    for signs in 0..1u32 << n {
                        let flip: Vec<bool> = (0..n).map(|a| signs >> a & 1 == 1).collect();
                        if let Some(m) = try_shifts(&perm, &flip) {
                            found = Some(m);
                            break 'search;
                        }
                    }
                }
                if !next_permutation(&mut perm) {
                    break;
                }
            }
        }
        out.push(found?);
    }
    Some(out)
}

/// The cells' images under the map (board axis `a` to axis `to[a]`,
/// reflected where `flip[a]`, then shifted by `shift[a]` modulo the axis)
/// if it maps every cell onto a cell, no two onto one, and `seat`'s start
/// army onto the first seat's.
fn map_cells(
    v: &Variant,
    seat: Seat,
    to: &[usize],
    flip: &[bool],
    shift: &[i32],
) -> Option<Vec<u16>> {
    let g = &v.geometry;
    let n = g.dims();
    let lens = g.lens();
    let cells = g.cell_count();
    let army = |s: Seat| v.start.iter().filter(move |&&(_, p)| piece_seat(p) == s);
    if army(seat).count() != army(Seat::FIRST).count() {
        return None;
    }
    let mut x = vec![0i32; n];
    let mut image_of = |c: usize| {
        for a in 0..n {
            let y = g.coord(c, a);
            let len = lens[a] as i32;
            let y = if flip[a] { len - 1 - y } else { y };
            x[to[a]] = (y + shift[a]).rem_euclid(len);
        }
        g.cell_at(&x)
    };
    let mut start = vec![None; cells];
    for &(c, p) in &v.start {
        start[c] = Some(p);
    }
    // The armies first: most candidates fail there, at once.
    for &(c, p) in army(seat) {
        if start[image_of(c)?] != Some(piece(Seat::FIRST, piece_kind(p))) {
            return None;
        }
    }
    let mut image = Vec::with_capacity(cells);
    let mut taken = vec![false; cells];
    for c in 0..cells {
        let d = image_of(c)?;
        if std::mem::replace(&mut taken[d], true) {
            return None;
        }
        image.push(d as u16);
    }
    Some(image)
}

/// The next permutation in lexicographic order (false after the last).
fn next_permutation(p: &mut [usize]) -> bool {
    let Some(i) = (1..p.len()).rev().find(|&i| p[i - 1] < p[i]) else {
        return false;
    };
    let j = (i..p.len()).rev().find(|&j| p[j] > p[i - 1]).unwrap_or(i);
    p.swap(i - 1, j);
    p[i..].reverse();
    true
}

/// The most cells a piece of `kind` attacks from any cell of the empty
/// board (its leaps and every cell of its rays): the length of its
/// mobility table, less one.
pub fn max_attacks(v: &Variant, kind: usize) -> usize {
    let cells = v.geometry.cell_count();
    (0..cells)
        .map(|c| {
            let leaps = v.leap_table(kind).map_or(0, |t| t.get(c).len());
            let rays: usize = v.slide_rays[kind]
                .get(c)
                .iter()
                .map(|&r| v.geometry.ray_cells(r).len())
                .sum();
            leaps + rays
        })
        .max()
        .unwrap_or(0)
}

/// The length of a royal kind's danger table: danger units beyond it
/// take its last entry.
pub const DANGER_LEN: usize = 64;

/// King distance differences beyond this count as this in the race
/// table (which has `2 · RACE_RADIUS + 1` entries).
pub const RACE_RADIUS: i32 = 7;

/// The length of a race table.
pub const RACE_LEN: usize = 2 * RACE_RADIUS as usize + 1;

/// A family of tables indexed by cell: its name, its first entry in the
/// [`Layout`], and whether a kind has the table.
type CellFamily = (&'static str, usize, fn(&PieceKind) -> bool);

/// Where each parameter of the evaluation's linear part sits in one flat
/// list (the tuner's view of `TableTerms` and the phase scales): per
/// pair, the opening's entry first and the endgame's next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Cells of the board.
    pub cells: usize,
    /// Kinds of the variant.
    pub kinds: usize,
    /// First entry of the placement tables: `(kind · cells + cell) · 2`.
    pub placement: usize,
    /// First entry of the passed-pawn tables, laid out as placement.
    pub passed: usize,
    /// First entry of each kind's mobility table (by attacked cells).
    pub mobility: Vec<usize>,
    /// Length of each kind's mobility table (pairs).
    pub mobility_len: Vec<usize>,
    /// First entry of the pair values: `kind · 2`.
    pub pair: usize,
    /// First entry of the danger table (royal kind), [`DANGER_LEN`] pairs.
    pub danger: usize,
    /// First entry of the shelter table (royal kind), by own pawns.
    pub shelter: usize,
    /// Length of the shelter table (pairs): the king's steps, plus one.
    pub shelter_len: usize,
    /// First entry of the supported tables, laid out as placement.
    pub supported: usize,
    /// First entry of the race tables: `(kind · RACE_LEN + i) · 2`.
    pub race: usize,
    /// First entry of the free-passer tables, laid out as placement.
    pub free: usize,
    /// Entries in all.
    pub len: usize,
}

/// The index of the tempo in the tuner's list (after the phase scales).
pub const TEMPO_INDEX: usize = 2 * TERMS.len();

impl Layout {
    /// The layout of `v`'s parameters.
    pub fn of(v: &Variant) -> Layout {
        let cells = v.geometry.cell_count();
        let kinds = v.kinds.len();
        let placement = TEMPO_INDEX + 1;
        let passed = placement + kinds * cells * 2;
        let mut at = passed + kinds * cells * 2;
        let mut mobility = Vec::with_capacity(kinds);
        let mut mobility_len = Vec::with_capacity(kinds);
        for kind in 0..kinds {
            let len = max_attacks(v, kind) + 1;
            mobility.push(at);
            mobility_len.push(len);
            at += len * 2;
        }
        let pair = at;
        let danger = pair + kinds * 2;
        let shelter = danger + DANGER_LEN * 2;
        let shelter_len = v
            .royal_kind
            .and_then(|k| v.leap_table(k))
            .map_or(0, |t| (0..cells).map(|c| t.get(c).len()).max().unwrap_or(0))
            + 1;
        let supported = shelter + shelter_len * 2;
        let race = supported + kinds * cells * 2;
        let free = race + kinds * RACE_LEN * 2;
        Layout {
            cells,
            kinds,
            placement,
            passed,
            mobility,
            mobility_len,
            pair,
            danger,
            shelter,
            shelter_len,
            supported,
            race,
            free,
            len: free + kinds * cells * 2,
        }
    }

    /// The families indexed by cell, laid out as placement (an entry at
    /// `first + (kind · cells + cell) · 2`): each family's name, its
    /// first entry, and which kinds have the table (a weights file holds
    /// none for the others).
    fn cell_families(&self) -> [CellFamily; 4] {
        [
            ("placement", self.placement, |_| true),
            ("passed", self.passed, |k| k.pawn.is_some()),
            ("free", self.free, |k| k.pawn.is_some()),
            ("supported", self.supported, |k| !k.royal),
        ]
    }

    /// The placement entry of `kind` on `cell` (the first seat's view).
    #[inline(always)]
    pub fn placement_index(&self, kind: usize, cell: usize) -> usize {
        self.placement + (kind * self.cells + cell) * 2
    }

    /// The passed-pawn entry of `kind` on `cell` (the first seat's view).
    #[inline(always)]
    pub fn passed_index(&self, kind: usize, cell: usize) -> usize {
        self.passed + (kind * self.cells + cell) * 2
    }

    /// The free-passer entry of `kind` on `cell` (the first seat's view).
    #[inline(always)]
    pub fn free_index(&self, kind: usize, cell: usize) -> usize {
        self.free + (kind * self.cells + cell) * 2
    }

    /// The mobility entry of `kind` attacking `count` cells (counts
    /// beyond the table take its last entry).
    #[inline(always)]
    pub fn mobility_index(&self, kind: usize, count: usize) -> usize {
        self.mobility[kind] + count.min(self.mobility_len[kind] - 1) * 2
    }

    /// The pair entry of `kind`.
    #[inline(always)]
    pub fn pair_index(&self, kind: usize) -> usize {
        self.pair + kind * 2
    }

    /// The danger entry of `units` (beyond the table: its last).
    #[inline(always)]
    pub fn danger_index(&self, units: usize) -> usize {
        self.danger + units.min(DANGER_LEN - 1) * 2
    }

    /// The supported entry of `kind` on `cell` (the first seat's view).
    #[inline(always)]
    pub fn supported_index(&self, kind: usize, cell: usize) -> usize {
        self.supported + (kind * self.cells + cell) * 2
    }

    /// The race entry of `kind`'s passed pawn whose enemy king is
    /// `difference` steps farther from it than its own.
    #[inline(always)]
    pub fn race_index(&self, kind: usize, difference: i32) -> usize {
        let i = (difference.clamp(-RACE_RADIUS, RACE_RADIUS) + RACE_RADIUS) as usize;
        self.race + (kind * RACE_LEN + i) * 2
    }

    /// The shelter entry of `pawns` own pawns around the king.
    #[inline(always)]
    pub fn shelter_index(&self, pawns: usize) -> usize {
        self.shelter + pawns.min(self.shelter_len - 1) * 2
    }

    /// The parameters of `w` for `v` in this layout: the phase scales,
    /// the tempo and every table entry (0 where `w` has no table; a
    /// table longer than the board's is cut, a mobility table shorter
    /// than the kind's attacks repeats its last entry).
    pub fn params_of(&self, v: &Variant, w: &EvalWeights) -> Vec<f64> {
        let mut x = vec![0.0; self.len];
        x[..TEMPO_INDEX].copy_from_slice(&w.phase_scales);
        x[TEMPO_INDEX] = w.tempo_cp;
        if w.board
            .as_ref()
            .is_some_and(|b| *b != super::weights::board_label(&v.geometry))
        {
            return x;
        }
        for (kind, k) in v.kinds.iter().enumerate() {
            for (phase, name) in ["opening", "endgame"].iter().enumerate() {
                let table = |family: &str| w.table(&format!("{family}.{}.{name}", k.letter));
                for (family, first, _) in self.cell_families() {
                    if let Some(t) = table(family).filter(|t| t.len() == self.cells) {
                        for (c, &e) in t.iter().enumerate() {
                            x[first + (kind * self.cells + c) * 2 + phase] = e;
                        }
                    }
                }
                if let Some(t) = table("mobility") {
                    for count in 0..self.mobility_len[kind] {
                        x[self.mobility[kind] + count * 2 + phase] = t[count.min(t.len() - 1)];
                    }
                }
                if let Some(t) = table("pair") {
                    x[self.pair_index(kind) + phase] = t[0];
                }
                if let Some(t) = table("race") {
                    for i in 0..RACE_LEN {
                        x[self.race + (kind * RACE_LEN + i) * 2 + phase] = t[i.min(t.len() - 1)];
                    }
                }
                if !k.royal {
                    continue;
                }
                if let Some(t) = table("danger") {
                    for u in 0..DANGER_LEN {
                        x[self.danger + u * 2 + phase] = t[u.min(t.len() - 1)];
                    }
                }
                if let Some(t) = table("shelter") {
                    for n in 0..self.shelter_len {
                        x[self.shelter + n * 2 + phase] = t[n.min(t.len() - 1)];
                    }
                }
            }
        }
        x
    }

    /// `w` with the phase scales, the tempo and the tables of `x` (this
    /// layout's parameters for `v`), the tables marked as `v`'s board's:
    /// a table whose entries are all 0 is left out, and the tables that
    /// make no sense (a pawn's mobility, a king's pair) are not written.
    pub fn write_params(&self, v: &Variant, x: &[f64], w: &mut EvalWeights) {
        w.board = Some(super::weights::board_label(&v.geometry));
        for (i, s) in w.phase_scales.iter_mut().enumerate() {
            *s = EvalWeights::round(x[i].clamp(0.0, 10.0));
        }
        w.tempo_cp = EvalWeights::round(x[TEMPO_INDEX].clamp(0.0, 1000.0));
        // `+ 0.0` writes a rounded −0 as 0.
        let cp = |e: f64| e.round().clamp(-10_000.0, 10_000.0) + 0.0;
        for (kind, k) in v.kinds.iter().enumerate() {
            for (phase, name) in ["opening", "endgame"].iter().enumerate() {
                let mut put = |family: &str, values: Vec<f64>| {
                    let keep = values.iter().any(|&e| e != 0.0);
                    let key = format!("{family}.{}.{name}", k.letter);
                    w.set_table(&key, if keep { values } else { Vec::new() });
                };
                for (family, first, has) in self.cell_families() {
                    let values = if has(k) {
                        (0..self.cells)
                            .map(|c| cp(x[first + (kind * self.cells + c) * 2 + phase]))
                            .collect()
                    } else {
                        Vec::new()
                    };
                    put(family, values);
                }
                let mobility = if k.pawn.is_none() && !k.royal {
                    (0..self.mobility_len[kind])
                        .map(|n| cp(x[self.mobility[kind] + n * 2 + phase]))
                        .collect()
                } else {
                    Vec::new()
                };
                put("mobility", mobility);
                let pair = if k.royal {
                    Vec::new()
                } else {
                    vec![cp(x[self.pair_index(kind) + phase])]
                };
                put("pair", pair);
                let (danger, shelter) = if Some(kind) == v.royal_kind {
                    (
                        (0..DANGER_LEN)
                            .map(|u| cp(x[self.danger + u * 2 + phase]))
                            .collect(),
                        (0..self.shelter_len)
                            .map(|n| cp(x[self.shelter + n * 2 + phase]))
                            .collect(),
                    )
                } else {
                    (Vec::new(), Vec::new())
                };
                put("danger", danger);
                put("shelter", shelter);
                let race = if k.pawn.is_some() {
                    (0..RACE_LEN)
                        .map(|i| cp(x[self.race + (kind * RACE_LEN + i) * 2 + phase]))
                        .collect()
                } else {
                    Vec::new()
                };
                put("race", race);
            }
        }
    }
}

/// The tables of one variant, as the evaluation reads them: every entry
/// an (opening, endgame) pair of centipawns, placement and passed pawns
/// already per seat (each seat's cells through its view).
#[derive(Debug)]
pub(crate) struct TableTerms {
    /// The tuner's layout (the indices a feature sink records).
    pub(crate) layout: Layout,
    /// Per seat, per cell: the first seat's view of the cell.
    pub(crate) views: Vec<Vec<u16>>,
    /// `[(seat · kinds + kind) · cells + cell]`; empty when no kind has a
    /// placement table.
    pub(crate) placement: Vec<[i32; 2]>,
    /// Laid out as `placement`; empty when no kind has a passed table.
    pub(crate) passed: Vec<[i32; 2]>,
    /// Laid out as `placement`; empty when no kind has a free table.
    pub(crate) free: Vec<[i32; 2]>,
    /// Per kind, by attacked cells; empty for a kind without a table.
    pub(crate) mobility: Vec<Vec<[i32; 2]>>,
    /// Per kind (0 for a kind without a table).
    pub(crate) pair: Vec<[i32; 2]>,
    /// Whether any kind has a pair value.
    pub(crate) any_pair: bool,
    /// The royal kind's danger table ([`DANGER_LEN`]; empty without one).
    pub(crate) danger: Vec<[i32; 2]>,
    /// The royal kind's shelter table (empty without one).
    pub(crate) shelter: Vec<[i32; 2]>,
    /// Laid out as `placement`; empty when no kind has a supported table.
    pub(crate) supported: Vec<[i32; 2]>,
    /// Per kind, [`RACE_LEN`] entries; empty when no kind has a race
    /// table.
    pub(crate) race: Vec<[i32; 2]>,
}

impl TableTerms {
    /// The tables of `w` for `v`, or `None` when it has none that
    /// applies (none at all, or only placement or passed tables and the
    /// seats have no views).
    pub(crate) fn of(v: &Variant, w: &EvalWeights) -> Option<TableTerms> {
        Self::build(v, w, false)
    }

    /// Like [`TableTerms::of`], but also where `w` has no table (every
    /// entry 0): the tuner records every feature through it.
    pub(crate) fn for_tuning(v: &Variant, w: &EvalWeights) -> Option<TableTerms> {
        Self::build(v, w, true)
    }

    fn build(v: &Variant, w: &EvalWeights, always: bool) -> Option<TableTerms> {
        let has = |family: &str| w.tables.keys().any(|k| k.starts_with(family));
        let elsewhere = w
            .board
            .as_ref()
            .is_some_and(|b| *b != super::weights::board_label(&v.geometry));
        if !always && (w.tables.is_empty() || elsewhere) {
            return None;
        }
        let layout = Layout::of(v);
        let x = layout.params_of(v, w);
        let views = seat_views(v);
        let (cells, kinds) = (layout.cells, layout.kinds);
        let pair_of = |i: usize| [x[i].round() as i32, x[i + 1].round() as i32];
        let per_seat = |index: &dyn Fn(usize, usize) -> usize, views: &Vec<Vec<u16>>| {
            let mut t = vec![[0i32; 2]; views.len() * kinds * cells];
            for (seat, view) in views.iter().enumerate() {
                for kind in 0..kinds {
                    for c in 0..cells {
                        t[(seat * kinds + kind) * cells + c] =
                            pair_of(index(kind, view[c] as usize));
                    }
                }
            }
            t
        };
        let (placement, passed, supported, free) = match &views {
            Some(views) => {
                let of = |family: &str, index: &dyn Fn(usize, usize) -> usize| {
                    if always || has(family) {
                        per_seat(index, views)
                    } else {
                        Vec::new()
                    }
                };
                (
                    of("placement.", &|k, c| layout.placement_index(k, c)),
                    of("passed.", &|k, c| layout.passed_index(k, c)),
                    of("supported.", &|k, c| layout.supported_index(k, c)),
                    of("free.", &|k, c| layout.free_index(k, c)),
                )
            }
            None => (Vec::new(), Vec::new(), Vec::new(), Vec::new()),
        };
        let race = if always || has("race.") {
            (0..kinds)
                .flat_map(|k| {
                    (0..RACE_LEN as i32)
                        .map(move |i| (k, i))
                        .collect::<Vec<_>>()
                })
                .map(|(k, i)| pair_of(layout.race_index(k, i - RACE_RADIUS)))
                .collect()
        } else {
            Vec::new()
        };
        let mobility: Vec<Vec<[i32; 2]>> = (0..kinds)
            .map(|kind| {
                let named = w
                    .table(&format!("mobility.{}.opening", v.kinds[kind].letter))
                    .is_some()
                    || w.table(&format!("mobility.{}.endgame", v.kinds[kind].letter))
                        .is_some();
                if always || named {
                    (0..layout.mobility_len[kind])
                        .map(|n| pair_of(layout.mobility[kind] + n * 2))
                        .collect()
                } else {
                    Vec::new()
                }
            })
            .collect();
        let pair: Vec<[i32; 2]> = (0..kinds).map(|k| pair_of(layout.pair_index(k))).collect();
        let any_pair = always || pair.iter().any(|p| *p != [0, 0]);
        let royal = v.royal_kind.filter(|&k| v.leap_table(k).is_some());
        let named = |family: &str| {
            royal.is_some_and(|k| {
                let letter = v.kinds[k].letter;
                w.table(&format!("{family}.{letter}.opening")).is_some()
                    || w.table(&format!("{family}.{letter}.endgame")).is_some()
            })
        };
        let danger = if royal.is_some() && (always || named("danger")) {
            (0..DANGER_LEN)
                .map(|u| pair_of(layout.danger_index(u)))
                .collect()
        } else {
            Vec::new()
        };
        let shelter = if royal.is_some() && (always || named("shelter")) {
            (0..layout.shelter_len)
                .map(|n| pair_of(layout.shelter_index(n)))
                .collect()
        } else {
            Vec::new()
        };
        if !always
            && placement.is_empty()
            && passed.is_empty()
            && mobility.iter().all(Vec::is_empty)
            && !any_pair
            && danger.is_empty()
            && shelter.is_empty()
            && supported.is_empty()
            && race.is_empty()
            && free.is_empty()
        {
            return None;
        }
        Some(TableTerms {
            layout,
            views: views.unwrap_or_default(),
            placement,
            passed,
            free,
            mobility,
            pair,
            any_pair,
            danger,
            shelter,
            supported,
            race,
        })
    }
}

/// Where the evaluation reports the table entries and features it uses
/// (the tuner's features); the evaluation itself passes [`NoSink`], for
/// which every report compiles to nothing.
pub(crate) trait Sink {
    /// Whether reports are wanted.
    const ON: bool;
    /// `seat` uses the pair of entries at `index` (opening; endgame at
    /// `index + 1`) of the [`Layout`].
    fn entry(&mut self, seat: usize, index: usize);
}

/// The evaluation's sink: no reports.
pub(crate) struct NoSink;

impl Sink for NoSink {
    const ON: bool = false;
    #[inline(always)]
    fn entry(&mut self, _: usize, _: usize) {}
}

/// A sink that keeps every report.
#[derive(Default)]
pub(crate) struct Entries(pub(crate) Vec<(usize, usize)>);

impl Sink for Entries {
    const ON: bool = true;
    fn entry(&mut self, seat: usize, index: usize) {
        self.0.push((seat, index));
    }
}

/// `(opening · phase + endgame · (256 − phase)) / 256` for a pair of
/// summed entries.
#[inline(always)]
pub(crate) fn tapered(pair: [i32; 2], phase: i32) -> i32 {
    ((pair[0] as i64 * phase as i64 + pair[1] as i64 * (PHASE_FULL - phase) as i64)
        / PHASE_FULL as i64) as i32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seat_sees_its_army_as_the_first_seats() {
        // Chess: Black's view reflects the ranks (e8 is seen as e1, d8
        // as d1); the cube, the 3-D diamond, a Chess960 start and the
        // four-player diamond likewise have a view per seat that carries
        // its army onto the first seat's.
        let chess = Variant::from_spec("chess").unwrap();
        let views = seat_views(&chess).unwrap();
        let cell = |n: &str| chess.geometry.parse_cell(n).unwrap();
        assert_eq!(views[1][cell("e8")] as usize, cell("e1"));
        assert_eq!(views[1][cell("d8")] as usize, cell("d1"));
        assert_eq!(views[1][cell("a2")] as usize, cell("a7"));
        assert_eq!(views[0][cell("a2")] as usize, cell("a2"));
        for spec in [
            "chess960:sp=0",
            "cube",
            "diamond:n=3",
            "torus",
            "cylinder",
            "diamond:n=3,l=10,players=4",
        ] {
            let v = Variant::from_spec(spec).unwrap();
            let views = seat_views(&v).unwrap_or_else(|| panic!("{spec}: no views"));
            assert_eq!(views.len(), v.seat_count(), "{spec}");
            for view in &views {
                let mut seen = view.clone();
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen.len(), v.geometry.cell_count(), "{spec}");
            }
        }
    }

    #[test]
    fn tables_are_used_on_their_board_only() {
        // Chess's built-in tables name their board, so a weights file of
        // chess loaded for the cube (64 cells too) brings its scalar
        // weights there but not its tables; the labels of a few boards.
        let chess = Variant::from_spec("chess").unwrap();
        let cube = Variant::from_spec("cube").unwrap();
        let w = EvalWeights::for_variant(&chess);
        assert_eq!(w.board.as_deref(), Some("box 8x8"));
        assert!(TableTerms::of(&chess, &w).is_some());
        assert!(TableTerms::of(&Variant::from_spec("chess960:sp=0").unwrap(), &w).is_some());
        assert!(TableTerms::of(&cube, &w).is_none());
        let layout = Layout::of(&cube);
        assert!(
            layout.params_of(&cube, &w)[TEMPO_INDEX + 1..]
                .iter()
                .all(|&x| x == 0.0)
        );
        let label = |spec: &str| {
            super::super::weights::board_label(&Variant::from_spec(spec).unwrap().geometry)
        };
        assert_eq!(label("cube"), "box 4x4x4");
        assert_eq!(label("cylinder"), "box 8x8 wrap 1");
        assert_eq!(label("diamond:n=3"), "diamond 8x8x8");
        // Without a board the tables go wherever their lengths fit.
        let mut anywhere = w.clone();
        anywhere.board = None;
        assert!(TableTerms::of(&cube, &anywhere).is_some());
    }

    #[test]
    fn a_tables_text_reads_back_into_the_same_parameters() {
        let v = Variant::from_spec("chess").unwrap();
        let layout = Layout::of(&v);
        // The queen attacks at most 27 cells, the knight 8.
        let q = v.kind_by_letter('Q').unwrap();
        let n = v.kind_by_letter('N').unwrap();
        assert_eq!(layout.mobility_len[q], 28);
        assert_eq!(layout.mobility_len[n], 9);
        let mut x = vec![0.0; layout.len];
        x[..TEMPO_INDEX].iter_mut().for_each(|s| *s = 1.0);
        x[TEMPO_INDEX] = 20.0;
        x[layout.placement_index(n, 27)] = 12.0;
        x[layout.placement_index(n, 0) + 1] = -30.0;
        x[layout.mobility_index(q, 5)] = 7.0;
        x[layout.pair_index(v.kind_by_letter('B').unwrap()) + 1] = 55.0;
        let pawn = v.kind_by_letter('P').unwrap();
        x[layout.passed_index(pawn, 40) + 1] = 80.0;
        let mut w = EvalWeights::default();
        layout.write_params(&v, &x, &mut w);
        let read = EvalWeights::parse(&w.to_string()).unwrap();
        assert_eq!(read, w);
        assert_eq!(layout.params_of(&v, &read), x);
    }
}
