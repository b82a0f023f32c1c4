//! The generator's backend for every board: targets are found by walking
//! the precomputed rays and leap tables cell by cell, checking lines are
//! kept as cell lists, and a cell reached along two rays of a wrapping
//! board is emitted once (a stamp per cell and round).

use crate::board::bitboard::Cells;
use crate::board::geometry::{Cell, RayRef};
use crate::board::piece::{EMPTY, MAX_KINDS, Piece, piece_kind};
use crate::board::seating::Seat;
use crate::board::variant::Variant;
use crate::rules::attacks;
use crate::rules::moves::Move;
use crate::rules::position::{Position, TableBoard};

use super::legal::{Backend, PawnRules, push_en_passant};
use super::{GenType, MoveSink};

/// Per cell, as bitboard words, the cells from which each leap table's
/// leap and each pawn's capture reach it. With them the backend tests the
/// contact attacks on a cell (checks at set-up, the safety of each king
/// target) by a few word operations against the enemy's leapers and pawns
/// instead of reading every source cell: a knight of the 3-D diamond is
/// reached from 24 cells, one of the 4-D diamond from 48.
#[derive(Debug)]
pub struct SourceSets {
    words: usize,
    /// `[leap table][cell * words ..]`.
    leaps: Vec<Vec<u64>>,
    /// `[seat][kind][cell * words ..]`, empty for kinds without pawn moves.
    pawns: Vec<Vec<Vec<u64>>>,
}

impl SourceSets {
    /// The most memory the sets may take; bigger boards read the source
    /// lists (beyond about a thousand cells the sets no longer fit the
    /// cache).
    pub const BUDGET_BYTES: usize = 1 << 20;

    /// The sets of `v`, or `None` when they would exceed
    /// [`SourceSets::BUDGET_BYTES`].
    pub fn new(v: &Variant) -> Option<SourceSets> {
        let cells = v.geometry.cell_count();
        let words = crate::board::bitboard::words_for(cells);
        let pawn_tables = v.seat_count() * (0..v.kinds.len()).filter(|&k| v.is_pawn(k)).count();
        let bytes = (v.leaps.len() + pawn_tables) * cells * words * 8;
        if bytes > Self::BUDGET_BYTES {
            return None;
        }
        let sets = |table: &crate::board::geometry::CellTable| {
            let mut out = vec![0u64; cells * words];
            for cell in 0..cells {
                for &c in table.get(cell) {
                    crate::board::bitboard::set(
                        &mut out[cell * words..(cell + 1) * words],
                        c as usize,
                    );
                }
            }
            out
        };
        let leaps = (0..v.leaps.len())
            .map(|li| sets(v.leap_sources(li)))
            .collect();
        let pawns = v
            .seating
            .seats()
            .map(|q| {
                (0..v.kinds.len())
                    .map(|k| {
                        if v.is_pawn(k) {
                            sets(&v.pawn_tables[q][k].attackers)
                        } else {
                            Vec::new()
                        }
                    })
                    .collect()
            })
            .collect();
        Some(SourceSets {
            words,
            leaps,
            pawns,
        })
    }
}

/// A piece pinned to its king: it may only move within
/// `ray(king, dir)[..len]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pin {
    cell: u16,
    dir: u16,
    len: u16,
}

/// Reusable buffers of the move generator (one per thread).
#[derive(Debug, Default)]
pub struct Scratch {
    seen: Vec<u32>,
    stamp: u32,
    evasion: Vec<u16>,
    pins: Vec<Pin>,
    /// Per generation: the enemy's cells, then with the source sets the
    /// enemy leapers of each leap table and the enemy pawns of each
    /// checking pawn kind, as bitboard words (see [`SourceSets`]).
    contact: Vec<u64>,
    /// Per group of the attack rays (a set of kinds sliding toward the
    /// ray's origin), the cell signature of the enemy sliders of those
    /// kinds: a ray whose signature misses it holds none of them, so no
    /// check, pin or attack comes along it (all ones where not known).
    slider_signatures: [u64; 16],
}

impl Scratch {
    /// Buffers for a board of `cells` cells.
    pub fn new(cells: usize) -> Scratch {
        Scratch {
            seen: vec![0; cells],
            ..Scratch::default()
        }
    }

    fn fit(&mut self, cells: usize) {
        if self.seen.len() < cells {
            self.seen = vec![0; cells];
            self.stamp = 0;
        }
    }

    /// Starts a new de-duplication round.
    #[inline(always)]
    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        self.stamp
    }
}

/// The restriction of one piece's destinations.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RayMask {
    /// Restricted to the cells on every checking line.
    check: bool,
    /// Restricted to the pin lines of the piece on this cell.
    pinned: Option<u16>,
}

/// The ray-walking backend for one generation.
pub(crate) struct Rays<'a> {
    pos: &'a Position,
    v: &'a Variant,
    board: TableBoard<'a>,
    /// Which piece codes we may capture (the variant's row for `us`).
    capturable: &'a [bool; 256],
    us: Seat,
    s: &'a mut Scratch,
    checks: u32,
    wraps: bool,
    /// The source sets, when the variant has them and `us` has a king
    /// (then `Scratch::contact` holds this position's enemy sets).
    sources: Option<&'a SourceSets>,
    /// Which piece codes attack our king ([`Variant::checks_row`]).
    checkers: &'a [bool; 256],
    /// The ray scanned last from the king: its direction and the indices
    /// of its first and second blockers (so no ray is walked twice).
    scan: (usize, usize, usize),
    /// `us`'s pawn rules.
    pawns: PawnRules<'a>,
    /// The position's en-passant target and the cell of the pawn it
    /// passed (`NO_EP` when there is none): a pair with a sentinel, one
    /// comparison per empty capture target (an `Option<EnPassant>` here
    /// cost 2 % more instructions on the 3-D diamond).
    en_passant: (usize, usize),
}

/// [`Rays::en_passant`] when there is no en-passant capture.
const NO_EP: (usize, usize) = (usize::MAX, usize::MAX);

impl<'a> Rays<'a> {
    /// A backend for `us`'s moves in `pos`.
    #[inline(always)]
    pub(crate) fn new(
        pos: &'a Position,
        us: Seat,
        s: &'a mut Scratch,
        sources: Option<&'a SourceSets>,
    ) -> Rays<'a> {
        let v = &**pos.variant();
        s.fit(v.geometry.cell_count());
        s.pins.clear();
        s.evasion.clear();
        let has_king = pos.royal_cell(us).is_some();
        let sources = sources.filter(|_| has_king);
        if has_king {
            Self::enemy_sets(pos, us, sources.is_some(), s);
        } else {
            s.slider_signatures = [u64::MAX; 16];
        }
        Rays {
            sources,
            checkers: v.checks_row(us),
            pos,
            v,
            board: TableBoard::of(pos),
            capturable: v.capturable_row(us),
            us,
            s,
            checks: 0,
            wraps: v.geometry.rays_may_meet(),
            scan: (usize::MAX, 0, 0),
            pawns: PawnRules::of(v, us),
            en_passant: pos
                .en_passant()
                .map_or(NO_EP, |ep| (ep.target as usize, ep.pawn as usize)),
        }
    }

    /// Fills `contact` with the cells of the enemy (the seats whose
    /// pieces check `us`), then, with the source sets, the enemy leapers
    /// of each leap table and the enemy pawns of each of `us`'s checking
    /// pawn kinds, `words` words each; and the cell signatures of the
    /// enemy sliders by attack ray group (see [`Scratch::slider_signatures`]).
    fn enemy_sets(pos: &Position, us: Seat, with_sources: bool, s: &mut Scratch) {
        // The usual word counts get loops of a length known when compiled.
        match pos.seat_bits(us).len() {
            2 => Self::enemy_sets_in::<2>(pos, us, with_sources, s),
            4 => Self::enemy_sets_in::<4>(pos, us, with_sources, s),
            _ => Self::enemy_sets_in::<0>(pos, us, with_sources, s),
        }
    }

    /// [`Rays::enemy_sets`] for boards of `W` words (0: any count).
    #[inline(always)]
    fn enemy_sets_in<const W: usize>(
        pos: &Position,
        us: Seat,
        with_sources: bool,
        s: &mut Scratch,
    ) {
        let v = &**pos.variant();
        let words = if W == 0 { pos.seat_bits(us).len() } else { W };
        fn bits(set: &[u64], words: usize) -> &[u64] {
            &set[..words]
        }
        let sets = if with_sources {
            1 + v.kinds_by_leap.len() + v.checking_pawns[us].len()
        } else {
            1
        };
        let contact = &mut s.contact;
        if contact.len() != sets * words {
            contact.resize(sets * words, 0);
        }
        let (enemy, rest) = contact.split_at_mut(words);
        let enemy = &mut enemy[..words];
        enemy.fill(0);
        for q in v.seating.checkers_of(us).iter() {
            for (e, &b) in enemy.iter_mut().zip(bits(pos.seat_bits(q), words)) {
                *e |= b;
            }
        }
        if with_sources {
            let mut sets = rest.chunks_exact_mut(words);
            for &kinds in &v.kinds_by_leap {
                let set = &mut sets.next().expect("invariant: sized above")[..words];
                set.fill(0);
                let mut m = kinds;
                while m != 0 {
                    let k = m.trailing_zeros() as usize;
                    m &= m - 1;
                    for (x, &b) in set.iter_mut().zip(bits(pos.kind_bits(k), words)) {
                        *x |= b;
                    }
                }
                for (x, &e) in set.iter_mut().zip(enemy.iter()) {
                    *x &= e;
                }
            }
            for (&(q, k, _), set) in v.checking_pawns[us].iter().zip(sets) {
                let (kind, seat) = (bits(pos.kind_bits(k), words), bits(pos.seat_bits(q), words));
                for ((x, &a), &b) in set[..words].iter_mut().zip(kind).zip(seat) {
                    *x = a & b;
                }
            }
        }
        // The enemy sliders' signatures, by kind, then by group: bit
        // `cell % 64` of a cell is its bit in its word, so a set's
        // signature is the OR of its words.
        let groups = v.attack_rays.groups();
        let mut by_kind = [0u64; MAX_KINDS];
        let mut kinds = groups.iter().fold(0u16, |m, &g| m | g);
        while kinds != 0 {
            let k = kinds.trailing_zeros() as usize;
            kinds &= kinds - 1;
            by_kind[k] = bits(pos.kind_bits(k), words)
                .iter()
                .zip(enemy.iter())
                .fold(0, |sig, (&b, &e)| sig | b & e);
        }
        let out = &mut s.slider_signatures;
        out.fill(u64::MAX);
        for (slot, &g) in out.iter_mut().zip(groups) {
            let mut sig = 0;
            let mut kinds = g;
            while kinds != 0 {
                sig |= by_kind[kinds.trailing_zeros() as usize];
                kinds &= kinds - 1;
            }
            *slot = sig;
        }
    }

    /// Whether an enemy slider of the kinds of ray `r` may stand on it.
    #[inline(always)]
    fn slider_may_stand_on(&self, r: RayRef, signature: u64) -> bool {
        signature
            & self
                .s
                .slider_signatures
                .get(r.group as usize)
                .copied()
                .unwrap_or(u64::MAX)
            != 0
    }

    /// Calls `found(cell)` for every enemy leaper or pawn that attacks
    /// `target` (each piece once per leap table or pawn kind), until it
    /// returns `true`; returns whether it did. Needs the source sets.
    #[inline(always)]
    fn contact_attackers(
        &self,
        src: &SourceSets,
        target: Cell,
        found: impl FnMut(Cell) -> bool,
    ) -> bool {
        // The usual word counts get loops of a length known when compiled.
        match src.words {
            2 => self.contact_attackers_in::<2>(src, target, found),
            4 => self.contact_attackers_in::<4>(src, target, found),
            _ => self.contact_attackers_in::<0>(src, target, found),
        }
    }

    /// [`Rays::contact_attackers`] for boards of `W` words (0: any count).
    #[inline(always)]
    fn contact_attackers_in<const W: usize>(
        &self,
        src: &SourceSets,
        target: Cell,
        mut found: impl FnMut(Cell) -> bool,
    ) -> bool {
        let words = if W == 0 { src.words } else { W };
        let row = target * words..(target + 1) * words;
        // The first set is the whole enemy's.
        let mut sets = self.s.contact.chunks_exact(words).skip(1);
        let mut scan = |sources: &[u64], enemy: &[u64]| {
            for (w, (&a, &b)) in sources[..words].iter().zip(&enemy[..words]).enumerate() {
                let mut x = a & b;
                while x != 0 {
                    let c = w * 64 + x.trailing_zeros() as usize;
                    x &= x - 1;
                    if found(c) {
                        return true;
                    }
                }
            }
            false
        };
        for table in &src.leaps {
            let enemy = sets.next().expect("invariant: one set per leap table");
            if scan(&table[row.clone()], enemy) {
                return true;
            }
        }
        for &(q, k, _) in &self.v.checking_pawns[self.us] {
            let enemy = sets.next().expect("invariant: one set per checking pawn");
            if scan(&src.pawns[q.index()][k][row.clone()], enemy) {
                return true;
            }
        }
        false
    }

    /// Whether `target` is attacked by a piece that checks us, with our
    /// king gone from `from` (the question of a king move's safety).
    #[inline(always)]
    fn king_target_attacked(&self, target: Cell, from: Cell) -> bool {
        let v = self.v;
        let board = self.board;
        let free = |c: Cell| if c == from { EMPTY } else { board.at(c) };
        let Some(src) = self.sources else {
            return attacks::attacked_by_checkers(v, target, self.us, free);
        };
        if self.contact_attackers(src, target, |_| true) {
            return true;
        }
        let g = &v.geometry;
        g.assert_holds(&v.attack_rays);
        let (rays, signatures) = v.attack_rays.get_with_signatures(target);
        for (&r, &signature) in rays.iter().zip(signatures) {
            if !self.slider_may_stand_on(r, signature) {
                continue;
            }
            // SAFETY: `r` is a ray of the table `g` holds (above).
            for &c in unsafe { g.ray_cells_unchecked(r) } {
                let p = free(c as usize);
                if p == EMPTY {
                    continue;
                }
                if r.tag >> piece_kind(p) & 1 != 0 && self.checkers[p as usize] {
                    return true;
                }
                break;
            }
        }
        false
    }

    /// Whether a piece standing on a target may be captured (or the
    /// target is empty).
    #[inline(always)]
    fn is_target(&self, p: Piece, which: GenType) -> bool {
        if p == EMPTY {
            which.quiets()
        } else {
            which.captures() && self.capturable[p as usize]
        }
    }

    fn add_line(&mut self, cells: &[u16]) {
        if self.checks == 0 {
            self.s.evasion.extend_from_slice(cells);
        } else {
            self.s.evasion.retain(|c| cells.contains(c));
        }
        self.checks += 1;
    }
}

impl<'a> Backend for Rays<'a> {
    type Mask = RayMask;
    type Pieces = Cells<'a>;
    type Handled = ();

    #[inline(always)]
    fn own_pieces(&self) -> Cells<'a> {
        self.pos.seat_cells(self.us)
    }

    #[inline(always)]
    fn contains(&self, mask: RayMask, to: Cell) -> bool {
        if !mask.check && mask.pinned.is_none() {
            return true;
        }
        if mask.check && !self.s.evasion.contains(&(to as u16)) {
            return false;
        }
        if let Some(cell) = mask.pinned {
            let king = self
                .pos
                .royal_cell(self.us)
                .expect("invariant: pins exist only when there is a king");
            for pin in self.s.pins.iter().filter(|p| p.cell == cell) {
                let line = &self.v.geometry.ray(king, pin.dir as usize)[..pin.len as usize];
                if !line.contains(&(to as u16)) {
                    return false;
                }
            }
        }
        true
    }

    #[inline(always)]
    fn occupied(&self, cell: Cell) -> bool {
        self.board.at(cell) != EMPTY
    }

    #[inline(always)]
    fn ray_may_check(&self, _king: Cell, r: RayRef, signature: u64) -> bool {
        self.slider_may_stand_on(r, signature)
    }

    #[inline(always)]
    fn ray_blockers(&mut self, king: Cell, d: usize) -> Option<Cell> {
        let ray = self.v.geometry.ray(king, d);
        let i = ray
            .iter()
            .position(|&c| self.board.at(c as usize) != EMPTY)?;
        self.scan = (d, i, 0);
        Some(ray[i] as usize)
    }

    #[inline(always)]
    fn ray_next_blocker(&mut self, king: Cell, d: usize, _first: Cell) -> Option<Cell> {
        let ray = self.v.geometry.ray(king, d);
        let from = self.scan.1 + 1;
        let i = from
            + ray[from..]
                .iter()
                .position(|&c| self.board.at(c as usize) != EMPTY)?;
        self.scan.2 = i;
        Some(ray[i] as usize)
    }

    fn add_check_line(&mut self, king: Cell, d: usize, _checker: Cell) {
        let ray = self.v.geometry.ray(king, d);
        self.add_line(&ray[..=self.scan.1]);
    }

    fn add_check_cell(&mut self, checker: Cell) {
        self.add_line(&[checker as u16]);
    }

    fn add_pin(&mut self, pinned: Cell, _king: Cell, d: usize, _pinner: Cell) {
        self.s.pins.push(Pin {
            cell: pinned as u16,
            dir: d as u16,
            len: (self.scan.2 + 1) as u16,
        });
    }

    fn contact_checks(&mut self, pos: &Position, us: Seat, king: Cell) {
        let Some(src) = self.sources else {
            super::legal::contact_checks_by_lists(self, pos, us, king);
            return;
        };
        let mut found: arrayvec::ArrayVec<Cell, 64> = arrayvec::ArrayVec::new();
        self.contact_attackers(src, king, |c| {
            let _ = found.try_push(c);
            false
        });
        for &c in found.iter() {
            self.add_check_cell(c);
        }
    }

    #[inline(always)]
    fn checks(&self) -> u32 {
        self.checks
    }

    #[inline(always)]
    fn evasions_exist(&self) -> bool {
        !self.s.evasion.is_empty()
    }

    #[inline(always)]
    fn mask_for(&self, from: Cell) -> RayMask {
        RayMask {
            check: self.checks > 0,
            pinned: (!self.s.pins.is_empty()
                && self.s.pins.iter().any(|p| p.cell as usize == from))
            .then_some(from as u16),
        }
    }

    #[inline(always)]
    fn pawn_captures(
        &mut self,
        from: Cell,
        kind: usize,
        mask: RayMask,
        _setwise: bool,
        out: &mut impl MoveSink,
    ) {
        let board = self.board;
        let filtered = mask.check || mask.pinned.is_some();
        for &c in self.pawns.table(kind).captures.get(from) {
            let c = c as usize;
            let q = board.at(c);
            if q != EMPTY {
                if self.capturable[q as usize] && (!filtered || self.contains(mask, c)) {
                    self.pawns
                        .push(Move::normal(from, c), true, GenType::Captures, out);
                }
            } else if c == self.en_passant.0
                && self.capturable[board.at(self.en_passant.1) as usize]
            {
                let ep = self
                    .pos
                    .en_passant()
                    .expect("invariant: en_passant is set from it");
                let king = self.pos.royal_cell(self.us);
                push_en_passant(self.pos, self.us, king, from, ep, out);
            }
        }
    }

    fn king_moves(&mut self, from: Cell, kind: usize, which: GenType, out: &mut impl MoveSink) {
        let v = self.v;
        let g = &v.geometry;
        let board = self.board;
        let stamp = self.s.next_stamp();
        if let Some(table) = v.leap_table(kind) {
            for &c in table.get(from) {
                let c = c as usize;
                if self.is_target(board.at(c), which)
                    && self.s.seen[c] != stamp
                    && !self.king_target_attacked(c, from)
                {
                    self.s.seen[c] = stamp;
                    out.push(Move::normal(from, c));
                }
            }
        }
        let slides = &v.slide_rays[kind];
        g.assert_holds(slides);
        for &r in slides.get(from) {
            // SAFETY: `r` is a ray of `slides`, which `g` holds (above).
            for &c in unsafe { g.ray_cells_unchecked(r) } {
                let c = c as usize;
                let q = board.at(c);
                if self.is_target(q, which)
                    && self.s.seen[c] != stamp
                    && !self.king_target_attacked(c, from)
                {
                    self.s.seen[c] = stamp;
                    out.push(Move::normal(from, c));
                }
                if q != EMPTY {
                    break;
                }
            }
        }
    }

    fn piece_moves(
        &mut self,
        from: Cell,
        kind: usize,
        mask: RayMask,
        which: GenType,
        out: &mut impl MoveSink,
    ) {
        let v = self.v;
        let g = &v.geometry;
        let board = self.board;
        let kd = &v.kinds[kind];
        let filtered = mask.check || mask.pinned.is_some();
        let leaps = v.leap_table(kind);
        // A cell is reached twice only along two rays that meet (boards
        // whose lines wrap) or by a leap and a slide; a leap table lists
        // each target once.
        let dedupe = !kd.slides.is_empty() && (self.wraps || leaps.is_some());
        let stamp = if dedupe { self.s.next_stamp() } else { 0 };
        if let Some(table) = leaps {
            for &c in table.get(from) {
                let c = c as usize;
                if self.is_target(board.at(c), which) && (!filtered || self.contains(mask, c)) {
                    if dedupe {
                        if self.s.seen[c] == stamp {
                            continue;
                        }
                        self.s.seen[c] = stamp;
                    }
                    out.push(Move::normal(from, c));
                }
            }
        }
        let slides = &v.slide_rays[kind];
        g.assert_holds(slides);
        for &r in slides.get(from) {
            // SAFETY: `r` is a ray of `slides`, which `g` holds (above).
            for &c in unsafe { g.ray_cells_unchecked(r) } {
                let c = c as usize;
                let q = board.at(c);
                if q != EMPTY && !self.capturable[q as usize] {
                    break;
                }
                if (if q == EMPTY {
                    which.quiets()
                } else {
                    which.captures()
                }) && (!filtered || self.contains(mask, c))
                {
                    if dedupe {
                        if self.s.seen[c] != stamp {
                            self.s.seen[c] = stamp;
                            out.push(Move::normal(from, c));
                        }
                    } else {
                        out.push(Move::normal(from, c));
                    }
                }
                if q != EMPTY {
                    break;
                }
            }
        }
    }
}
