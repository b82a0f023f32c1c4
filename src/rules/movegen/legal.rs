//! The rules half of legal move generation, written once for every board:
//! what counts as a check or a pin, which moves a king in check has, how
//! pawns push, double-step, capture en passant and promote, and when a
//! castling is legal. The board-representation half — how sets of cells
//! are stored and how a piece's targets are found — is a [`Backend`]: the
//! ray-walking one for every board ([`super::generic`]) and the bitboard
//! one for boards of at most 128 cells ([`super::fast64`]).
//!
//! Moves are generated legal directly. Before the pieces are walked, the
//! king's rays are scanned once for checking lines and pins. A non-royal
//! move is then legal iff its destination lies on every checking line (or
//! there is none) and on every pin line of its piece. This is the
//! classical scheme, generalised to boards where lines wrap: on a cylinder
//! or torus a slider may give check along two rays at once and two rays
//! from the king may cross, so checking lines are intersected rather than
//! counted. King moves and the rare moves that change two cells' blockers
//! at once (en passant, castling) are checked by testing attacks on the
//! resulting board.

use crate::board::bitboard::Bitboard;
use crate::board::geometry::{Cell, RayRef};
use crate::board::piece::{EMPTY, NO_CELL, Piece, piece_kind, piece_seat};
use crate::board::seating::Seat;
use crate::board::variant::{PawnTable, Variant};
use crate::rules::attacks;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::position::{EnPassant, Position};

use super::{GenType, MoveSink};

/// The representation-specific half of the generator.
pub(crate) trait Backend {
    /// A set of destination cells a piece's moves are restricted to.
    type Mask: Copy;
    /// The cells of the pieces of the seat generated for.
    type Pieces: Iterator<Item = Cell>;
    /// The pawns [`Backend::setwise_pawns`] moved (the empty default:
    /// none).
    type Handled: Copy + Default;

    /// The cells of our pieces, in increasing order.
    fn own_pieces(&self) -> Self::Pieces;

    /// Whether `cell` is in `mask`.
    fn contains(&self, mask: Self::Mask, cell: Cell) -> bool;
    /// Whether `cell` is occupied.
    fn occupied(&self, cell: Cell) -> bool;

    /// Whether a slider that checks us could stand on the ray `r` from
    /// `king` at all (a quick test before [`Backend::ray_blockers`]);
    /// `signature` is the [`cell_signature`](crate::board::geometry::cell_signature)
    /// of the ray's cells.
    fn ray_may_check(&self, _king: Cell, _r: RayRef, _signature: u64) -> bool {
        true
    }
    /// Finds the checking lines and pins of sliders on the king on `king`
    /// all at once where the backend can (from line tables between
    /// cells); `false` leaves it to the ray-by-ray scan.
    fn slider_lines(&mut self, _king: Cell) -> bool {
        false
    }
    /// Emits the moves of all our pieces (what the cell-by-cell loop of
    /// [`generate`] does) kind by kind, where the backend keeps a set of
    /// cells per kind: only the king's if `only_king`, pawns of `handled`
    /// (moved set-wise) only their en-passant capture. `false`: not done,
    /// the caller takes the pieces cell by cell.
    fn pieces_by_kind(
        &mut self,
        _pos: &Position,
        _only_king: bool,
        _handled: Self::Handled,
        _which: GenType,
        _out: &mut impl MoveSink,
    ) -> bool {
        false
    }
    /// Pushes the legal castlings of `us`'s king on `king` (not in check):
    /// [`generate_castling`], which backends may answer faster.
    fn castlings<S: MoveSink>(&mut self, pos: &Position, us: Seat, king: Cell, out: &mut S) {
        generate_castling(pos, us, king, out);
    }
    /// The first occupied cell of the ray from `king` along `d`.
    fn ray_blockers(&mut self, king: Cell, d: usize) -> Option<Cell>;
    /// The occupied cell after `first` on the ray from `king` along `d`.
    fn ray_next_blocker(&mut self, king: Cell, d: usize, first: Cell) -> Option<Cell>;
    /// Records a checking line: the ray from `king` along `d` up to and
    /// including the checker on `checker`.
    fn add_check_line(&mut self, king: Cell, d: usize, checker: Cell);
    /// Records a check by a leaper or pawn on `checker`.
    fn add_check_cell(&mut self, checker: Cell);
    /// Records a pin of the piece on `pinned` by the slider on `pinner`
    /// along the ray from `king` along `d`.
    fn add_pin(&mut self, pinned: Cell, king: Cell, d: usize, pinner: Cell);
    /// Records the checks of leapers and pawns on the king on `king`. The
    /// rule: every such piece that attacks the king is a checker whose
    /// cell alone ends its check. Backends may find them faster.
    fn contact_checks(&mut self, pos: &Position, us: Seat, king: Cell) {
        contact_checks_by_lists(self, pos, us, king);
    }
    /// Number of checks recorded.
    fn checks(&self) -> u32;
    /// Whether the checking lines leave some cell on all of them.
    fn evasions_exist(&self) -> bool;
    /// The cells a move of the (non-royal) piece on `from` may go to:
    /// every checking line's and every pin line's cells.
    fn mask_for(&self, from: Cell) -> Self::Mask;

    /// Moves the pawns of `us` that need no per-piece test (not pinned,
    /// on boards where every pawn step is a fixed index shift) all at
    /// once; returns them as a predicate's set, or nothing.
    fn setwise_pawns(&mut self, _gen: GenType, _out: &mut impl MoveSink) -> Self::Handled {
        Self::Handled::default()
    }
    /// Whether the pawn on `from` was moved set-wise.
    fn moved_setwise(&self, _handled: Self::Handled, _from: Cell) -> bool {
        false
    }
    /// Emits the captures (with promotions) of the pawn of `kind` on
    /// `from` onto cells of `mask` — unless they were moved `setwise` —
    /// and its en-passant capture (through [`push_en_passant`]).
    fn pawn_captures(
        &mut self,
        from: Cell,
        kind: usize,
        mask: Self::Mask,
        setwise: bool,
        out: &mut impl MoveSink,
    );
    /// Emits the moves of the king of `kind` on `from`: every target not
    /// held by a piece it may not capture and not attacked once the king
    /// has left `from`.
    fn king_moves(&mut self, from: Cell, kind: usize, which: GenType, out: &mut impl MoveSink);
    /// Emits the moves of the (non-royal, non-pawn) piece of `kind` on
    /// `from` onto cells of `mask`: its leaps and its slides up to the
    /// first occupied cell, captures only of pieces it may capture, each
    /// destination once.
    fn piece_moves(
        &mut self,
        from: Cell,
        kind: usize,
        mask: Self::Mask,
        which: GenType,
        out: &mut impl MoveSink,
    );
}

/// [`Backend::contact_checks`] by the rule's own walk over the cells
/// from which each leaper and pawn could reach the king.
pub(crate) fn contact_checks_by_lists<B: Backend + ?Sized>(
    b: &mut B,
    pos: &Position,
    us: Seat,
    king: Cell,
) {
    let v = &**pos.variant();
    let board = pos.board();
    let checks = v.checks_row(us);
    let mut found: arrayvec::ArrayVec<Cell, 64> = arrayvec::ArrayVec::new();
    for (li, &mask) in v.kinds_by_leap.iter().enumerate() {
        if mask == 0 {
            continue;
        }
        for &c in v.leap_sources(li).get(king) {
            let p = board[c as usize];
            if p != EMPTY && mask >> piece_kind(p) & 1 != 0 && checks[p as usize] {
                let _ = found.try_push(c as usize);
            }
        }
    }
    for &(q, k, pawn) in &v.checking_pawns[us] {
        for &c in v.pawn_tables[q][k].attackers.get(king) {
            if board[c as usize] == pawn {
                let _ = found.try_push(c as usize);
            }
        }
    }
    // By reference: iterating the array by value would copy all of it.
    for &c in found.iter() {
        b.add_check_cell(c);
    }
}

/// Generates the legal moves of `us` in `pos` of kinds `which`; `b` is a
/// backend set up for the same position and seat.
#[inline(always)]
pub(crate) fn generate<B: Backend, S: MoveSink>(
    pos: &Position,
    us: Seat,
    b: &mut B,
    which: GenType,
    out: &mut S,
) {
    let v = &**pos.variant();
    let king = pos.royal_cell(us);
    if let Some(k) = king {
        scan_king(pos, us, b, k);
    }
    let checks = b.checks();
    let only_king = checks > 0 && !b.evasions_exist();
    let handled = if only_king {
        B::Handled::default()
    } else {
        b.setwise_pawns(which, out)
    };
    // A list's order is the search's tie-break: cell by cell on every
    // backend. A count may take the pieces kind by kind where the backend
    // can.
    if S::ORDERED || !b.pieces_by_kind(pos, only_king, handled, which, out) {
        let pawns = PawnRules::of(v, us);
        for from in b.own_pieces() {
            let kind = piece_kind(pos.piece_at(from));
            let kd = &v.kinds[kind];
            if kd.royal {
                b.king_moves(from, kind, which, out);
                continue;
            }
            if only_king {
                continue;
            }
            let mask = b.mask_for(from);
            if kd.pawn.is_some() {
                let setwise = b.moved_setwise(handled, from);
                // A pawn moved set-wise has only en passant left to try.
                if !setwise || pos.en_passant().is_some() {
                    pawn_moves_with(b, pawns, from, kind, mask, setwise, which, out);
                }
                continue;
            }
            b.piece_moves(from, kind, mask, which, out);
        }
    }
    special_moves(pos, us, b, king, checks, which, out);
}

/// The moves generated after the pieces' own: castling (not out of
/// check) and, where a captured king's army leaves with it, the captures
/// of kings.
#[inline(always)]
fn special_moves<B: Backend>(
    pos: &Position,
    us: Seat,
    b: &mut B,
    king: Option<Cell>,
    checks: u32,
    which: GenType,
    out: &mut impl MoveSink,
) {
    if checks == 0
        && which.quiets()
        && let Some(k) = king
        && !pos.castling().is_empty()
    {
        b.castlings(pos, us, k, out);
    }
    if pos.variant().kings_leave_with_army && which.captures() {
        king_captures(pos, us, out);
    }
}

/// The captures of enemy kings by `us` where a captured king's army
/// leaves the board with it (multi-party games with `dead=remove`; the
/// variant makes kings not capturable for the ordinary generation,
/// [`Variant::kings_leave_with_army`]): such a capture is legal iff
/// `us`'s king is safe once the armies have left, which the pin and
/// check lines cannot tell, so each is played on a copy and tested.
#[cold]
fn king_captures(pos: &Position, us: Seat, out: &mut impl MoveSink) {
    let v = &**pos.variant();
    let board = pos.board();
    for q in v.seating.capturable_by(us).iter() {
        let Some(k) = pos.royal_cell(q) else {
            continue;
        };
        for from in attacks::attackers(v, k, crate::board::seating::SeatSet::single(us), |c| {
            board[c]
        }) {
            let mut found = Vec::new();
            let m = Move::normal(from, k);
            if v.is_pawn(piece_kind(board[from])) {
                push_pawn_move(v, us, m, true, GenType::Captures, &mut found);
            } else {
                found.push(m);
            }
            for m in found {
                let mut after = pos.clone();
                after.make(m);
                if !after.seat_in_check(us) {
                    out.push(m);
                }
            }
        }
    }
}

/// Scans the king's lines for checks and pins, then its contact checks.
#[inline(always)]
fn scan_king<B: Backend>(pos: &Position, us: Seat, b: &mut B, king: Cell) {
    let v = &**pos.variant();
    let checks = v.checks_row(us);
    let checker = |p: Piece, kinds: u16| checks[p as usize] && kinds >> piece_kind(p) & 1 != 0;
    if b.slider_lines(king) {
        b.contact_checks(pos, us, king);
        return;
    }
    // The king's non-empty rays along which some kind could attack it.
    let (rays, signatures) = v.attack_rays.get_with_signatures(king);
    for (&r, &signature) in rays.iter().zip(signatures) {
        let d = r.dir as usize;
        if !b.ray_may_check(king, r, signature) {
            continue;
        }
        let Some(first) = b.ray_blockers(king, d) else {
            continue;
        };
        let p = pos.piece_at(first);
        if checker(p, r.tag) {
            b.add_check_line(king, d, first);
        } else if piece_seat(p) == us
            && let Some(second) = b.ray_next_blocker(king, d, first)
            && checker(pos.piece_at(second), r.tag)
        {
            b.add_pin(first, king, d, second);
        }
    }
    b.contact_checks(pos, us, king);
}

/// The pushes, double steps, captures and en-passant captures of the pawn
/// of `kind` on `from`, onto cells of `mask` (only en passant for a pawn
/// the backend moved `setwise`): [`pawn_moves_with`] with `us`'s rules.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn pawn_moves<B: Backend>(
    pos: &Position,
    us: Seat,
    b: &mut B,
    from: Cell,
    kind: usize,
    mask: B::Mask,
    setwise: bool,
    which: GenType,
    out: &mut impl MoveSink,
) {
    let pawns = PawnRules::of(pos.variant(), us);
    pawn_moves_with(b, pawns, from, kind, mask, setwise, which, out);
}

/// [`pawn_moves`] with the rules of the seat moving at hand (the
/// generation looks them up once, not per pawn).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn pawn_moves_with<B: Backend>(
    b: &mut B,
    pawns: PawnRules,
    from: Cell,
    kind: usize,
    mask: B::Mask,
    setwise: bool,
    which: GenType,
    out: &mut impl MoveSink,
) {
    let table = pawns.table(kind);
    let pushes = if setwise {
        &[][..]
    } else {
        table.pushes.get(from)
    };
    for pair in pushes.chunks_exact(2) {
        let one = pair[0] as usize;
        if b.occupied(one) {
            continue;
        }
        if b.contains(mask, one) {
            pawns.push(Move::normal(from, one), false, which, out);
        }
        let two = pair[1];
        if two != NO_CELL
            && which.quiets()
            && !b.occupied(two as usize)
            && b.contains(mask, two as usize)
        {
            out.push(Move {
                aux: one as u16,
                kind: MoveKind::DoubleStep,
                ..Move::normal(from, two as usize)
            });
        }
    }
    if which.captures() {
        b.pawn_captures(from, kind, mask, setwise, out);
    }
}

/// Pushes the en-passant capture `from → ep.target` if it leaves the king
/// safe. It changes three cells at once (the pawn's start and end, the
/// captured pawn's cell), so it is tested on the board after the move.
pub(crate) fn push_en_passant(
    pos: &Position,
    us: Seat,
    king: Option<Cell>,
    from: Cell,
    ep: EnPassant,
    out: &mut impl MoveSink,
) {
    let v = &**pos.variant();
    let board = pos.board();
    let (target, pawn_cell) = (ep.target as usize, ep.pawn as usize);
    let pawn = board[from];
    let legal = match king {
        None => true,
        Some(k) => !attacks::attacked_by_checkers(v, k, us, |x| {
            if x == from || x == pawn_cell {
                EMPTY
            } else if x == target {
                pawn
            } else {
                board[x]
            }
        }),
    };
    if legal {
        out.push(Move {
            aux: ep.pawn,
            kind: MoveKind::EnPassant,
            ..Move::normal(from, target)
        });
    }
}

/// Pushes a pawn move (a `capture` or a push), expanded into one move per
/// promotion kind when the destination is a promotion cell of `us`
/// ([`PawnRules::push`]).
#[inline(always)]
pub(crate) fn push_pawn_move(
    v: &Variant,
    us: Seat,
    m: Move,
    capture: bool,
    which: GenType,
    out: &mut impl MoveSink,
) {
    push_promoting(
        &v.promotion_zone[us],
        &v.promotion_kinds,
        m,
        capture,
        which,
        out,
    );
}

/// [`PawnRules::push`] with the promotion cells `zone` and the kinds
/// `kinds` a pawn promotes to.
#[inline(always)]
fn push_promoting(
    zone: &Bitboard,
    kinds: &[usize],
    m: Move,
    capture: bool,
    which: GenType,
    out: &mut impl MoveSink,
) {
    if zone.contains(m.to as usize) {
        if which.captures() {
            for &k in kinds {
                out.push(Move {
                    promotion: k as u8 + 1,
                    ..m
                });
            }
        }
    } else if if capture {
        which.captures()
    } else {
        which.quiets()
    } {
        out.push(m);
    }
}

/// The variant's pawn rules for one seat, looked up once per generation
/// rather than per pawn: its pawn tables by kind, its promotion cells,
/// the kinds a pawn promotes to.
#[derive(Clone, Copy)]
pub(crate) struct PawnRules<'a> {
    tables: &'a [PawnTable],
    zone: &'a Bitboard,
    kinds: &'a [usize],
}

impl<'a> PawnRules<'a> {
    /// `us`'s pawn rules in `v`.
    #[inline(always)]
    pub(crate) fn of(v: &'a Variant, us: Seat) -> PawnRules<'a> {
        PawnRules {
            tables: &v.pawn_tables[us],
            zone: &v.promotion_zone[us],
            kinds: &v.promotion_kinds,
        }
    }

    /// The steps of the pawns of `kind`.
    #[inline(always)]
    pub(crate) fn table(&self, kind: usize) -> &'a PawnTable {
        &self.tables[kind]
    }

    /// Pushes a pawn move (a `capture` or a push), expanded into one move
    /// per promotion kind when the destination is a promotion cell.
    /// [`GenType`] puts promotions and captures among the captures, the
    /// other pushes among the quiet moves.
    #[inline(always)]
    pub(crate) fn push(&self, m: Move, capture: bool, which: GenType, out: &mut impl MoveSink) {
        push_promoting(self.zone, self.kinds, m, capture, which, out);
    }
}

/// Pushes the legal castlings of `us` with the king on `king` (not in
/// check): the cells between must be empty, the cells the king crosses
/// unattacked, and the king safe on the board after the castling.
pub(crate) fn generate_castling(pos: &Position, us: Seat, king: Cell, out: &mut impl MoveSink) {
    let v = &**pos.variant();
    let board = pos.board();
    for &r in pos.castling() {
        let rook = r as usize;
        let rp = board[rook];
        if rp == EMPTY || piece_seat(rp) != us {
            continue;
        }
        let kp = board[king];
        for cand in v.castlings(king, rook) {
            let clear = cand.must_be_empty.iter().all(|&c| {
                let c = c as usize;
                c == king || c == rook || board[c] == EMPTY
            });
            if !clear {
                continue;
            }
            if cand
                .crossed
                .iter()
                .any(|&c| attacks::attacked_by_checkers(v, c as usize, us, |x| board[x]))
            {
                continue;
            }
            let (king_to, rook_to) = (cand.king_to as usize, cand.rook_to as usize);
            let safe = !attacks::attacked_by_checkers(v, king_to, us, |x| {
                if x == king_to {
                    kp
                } else if x == rook_to {
                    rp
                } else if x == king || x == rook {
                    EMPTY
                } else {
                    board[x]
                }
            });
            if safe {
                out.push(Move {
                    from: king as u16,
                    to: cand.king_to,
                    aux: rook as u16,
                    aux2: cand.rook_to,
                    kind: MoveKind::Castle,
                    promotion: 0,
                });
            }
        }
    }
}
