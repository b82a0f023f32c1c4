//! Positions: pieces on cells, the turn (who decides, in which phase, who
//! is out), castling and en-passant rights, counters, Zobrist hash and the
//! history that make/unmake and the repetition rule need.
//!
//! A [`Position`] is valid by construction: it is built from a variant's
//! start position or from parts that the position-text reader checked
//! (`crate::rules::notation`), and changed only by [`Position::make`] with
//! a move the move generator produced, or by a joint decision that
//! `crate::rules::simultaneous` resolved.

use std::fmt;
use std::sync::Arc;

use arrayvec::ArrayVec;

use crate::board::bitboard::Cells;
use crate::board::castling::{CastlingStyle, MAX_CASTLING_RIGHTS};
use crate::board::geometry::Cell;
use crate::board::party::{DeadPieces, Fate, Fates};
use crate::board::piece::{EMPTY, NO_CELL, Piece, piece, piece_kind, piece_seat};
use crate::board::seating::{MAX_SEATS, Phase, Seat, SeatSet, Turn};
use crate::board::variant::Variant;

use super::attacks;
use super::moves::{Move, MoveKey, MoveKind};

/// An en-passant opportunity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnPassant {
    /// The passed cell a pawn may capture onto.
    pub target: u16,
    /// The cell of the pawn that double-stepped.
    pub pawn: u16,
}

/// Castling rights: the cells of the rooks that may still castle (at
/// most [`CastlingRights::CAPACITY`], in the order granted). A plain
/// `Copy` value, so that the undo record of every move copies it without
/// a loop, with a one-word summary of its cells (bit `cell % 64`) that
/// lets [`Position::make`] pass over the many moves touching none of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CastlingRights {
    len: u8,
    cells: [u16; CastlingRights::CAPACITY],
    summary: u64,
}

impl CastlingRights {
    /// The most rights a position holds.
    pub const CAPACITY: usize = MAX_CASTLING_RIGHTS;

    /// The bit of `cell` in the summary.
    #[inline(always)]
    fn bit(cell: usize) -> u64 {
        1u64 << (cell & 63)
    }

    /// Adds the right of the rook on `cell`; `false` (and no change) when
    /// all [`CastlingRights::CAPACITY`] are taken.
    pub fn push(&mut self, cell: u16) -> bool {
        let Some(slot) = self.cells.get_mut(self.len as usize) else {
            return false;
        };
        *slot = cell;
        self.len += 1;
        self.summary |= Self::bit(cell as usize);
        true
    }

    /// Removes the `i`-th right, keeping the order of the others.
    fn remove(&mut self, i: usize) {
        let len = self.len as usize;
        self.cells.copy_within(i + 1..len, i);
        self.len -= 1;
        self.summary = self.iter().fold(0, |m, &c| m | Self::bit(c as usize));
    }

    /// Whether a move between `from` and `to` may touch a right's cell
    /// (never a wrong "no"; a "yes" is checked right by right).
    #[inline(always)]
    fn may_touch(&self, from: usize, to: usize) -> bool {
        self.summary & (Self::bit(from) | Self::bit(to)) != 0
    }
}

impl std::ops::Deref for CastlingRights {
    type Target = [u16];

    #[inline(always)]
    fn deref(&self) -> &[u16] {
        &self.cells[..self.len as usize]
    }
}

/// Who decides, in which phase, and who is out of play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TurnState {
    /// The seat(s) deciding now.
    pub turn: Turn,
    /// The phase of the turn.
    pub phase: Phase,
    /// Seats out of play (a captured king, a seat with no move).
    pub out: SeatSet,
    /// How the seats of `out` left (multi-party games score by it; kept
    /// out of the hash: it never changes what can happen next).
    pub fates: Fates,
}

impl TurnState {
    /// The main phase of `turn`, the seats of `fates` out of play.
    pub fn new(turn: Turn, fates: Fates) -> TurnState {
        TurnState {
            turn,
            phase: Phase::Main,
            out: fates.seats(),
            fates,
        }
    }
}

/// Synchronous chess's exchange phase (seed 004, rule d): which cells are
/// still contested, who may capture on each next, and which pieces have
/// already moved in the phase (each moves at most once). Empty in the
/// main phase.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Exchange {
    /// Open exchanges: a cell and the seat that may capture there next.
    pub open: ArrayVec<(u16, Seat), 8>,
    /// Cells on which a piece that moved in this phase stands.
    pub moved: ArrayVec<u16, 8>,
}

impl Exchange {
    /// Whether no exchange is open.
    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    /// The seats that may capture now.
    pub fn deciders(&self) -> SeatSet {
        self.open.iter().map(|&(_, s)| s).collect()
    }

    /// The cells on which `seat` may capture now.
    pub fn cells_of(&self, seat: Seat) -> impl Iterator<Item = Cell> + '_ {
        self.open
            .iter()
            .filter(move |&&(_, s)| s == seat)
            .map(|&(c, _)| c as Cell)
    }

    /// Whether the piece on `cell` moved in this phase.
    pub fn has_moved(&self, cell: Cell) -> bool {
        self.moved.contains(&(cell as u16))
    }

    /// The hash key of the state (0 when empty), mixed from its entries
    /// so that equal states hash equally whatever their order.
    pub fn key(&self) -> u64 {
        fn mix(mut x: u64) -> u64 {
            x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            x ^ (x >> 31)
        }
        let open = self.open.iter().fold(0, |h, &(c, s)| {
            h ^ mix(0x5eed_0001 ^ ((c as u64) << 8) ^ s.index() as u64)
        });
        self.moved
            .iter()
            .fold(open, |h, &c| h ^ mix(0x5eed_0002_0000 ^ c as u64))
    }
}

/// What undoes one step of the game.
#[derive(Clone, Debug)]
struct Undo {
    mv: Move,
    moved: Piece,
    captured: Piece,
    castling: CastlingRights,
    ep: Option<EnPassant>,
    halfmove: u32,
    fullmove: u32,
    hash: u64,
    turn: TurnState,
    /// Entries of `Position::changed` to restore (a joint decision's cells,
    /// most recent last); 0 for a single move, undone by its own kind.
    changed: u32,
    /// Whether the step was a joint decision (its exchange state is on
    /// `Position::exchanges`).
    joint: bool,
    /// Entries of `Position::changed` that hold the pieces of seats that
    /// went out in this move and left the board (multi-party games),
    /// restored before the move itself is undone.
    removed: u32,
}

/// What [`Position::unmake_counted`] needs to take back a move of
/// [`Position::make_counted`]: [`Undo`] without what only other seatings,
/// joint decisions and the repetition history need.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CountedUndo {
    moved: Piece,
    captured: Piece,
    /// The rights before the move where there were any (a move never
    /// adds one, so none before means none after).
    castling: Option<CastlingRights>,
    ep: Option<EnPassant>,
    halfmove: u32,
    fullmove: u32,
    hash: u64,
    turn: Turn,
}

/// Errors reading a position text; each names the field at fault.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// A required field is missing.
    MissingField(&'static str),
    /// Extra text after the last field.
    TrailingText(String),
    /// The piece placement field is malformed.
    Board(String),
    /// The side-to-move field is malformed.
    Side(String),
    /// The castling field is malformed or names a rook that cannot castle.
    Castling(String),
    /// The en-passant field is malformed or impossible.
    EnPassant(String),
    /// A move counter is malformed.
    Counter(String),
    /// The position breaks a rule (kings, check, pawns on promotion cells).
    Illegal(String),
    /// The exchange-phase field is malformed or impossible.
    Exchange(String),
    /// The multi-party field of the seats out is malformed.
    Out(String),
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::MissingField(s) => write!(f, "missing field: {s}"),
            PositionError::Exchange(s) => write!(f, "exchange phase: {s}"),
            PositionError::Out(s) => write!(f, "seats out of play: {s}"),
            PositionError::TrailingText(s) => {
                write!(f, "unexpected text after the position: '{s}'")
            }
            PositionError::Board(s) => write!(f, "piece placement: {s}"),
            PositionError::Side(s) => write!(f, "side to move: {s}"),
            PositionError::Castling(s) => write!(f, "castling rights: {s}"),
            PositionError::EnPassant(s) => write!(f, "en passant: {s}"),
            PositionError::Counter(s) => write!(f, "move counters: {s}"),
            PositionError::Illegal(s) => write!(f, "illegal position: {s}"),
        }
    }
}

impl std::error::Error for PositionError {}

/// Entries of [`Position`]'s royal cells: a power of two (the index is
/// masked) above every seat index.
const ROYAL_ENTRIES: usize = 16;
const _: () = assert!(ROYAL_ENTRIES.is_power_of_two() && MAX_SEATS <= ROYAL_ENTRIES);

/// A position of a variant.
#[derive(Clone)]
pub struct Position {
    variant: Arc<Variant>,
    board: Vec<Piece>,
    /// Bitboards: one per seat, then one per kind, then all occupied.
    ///
    /// Invariant (make and unmake index it unchecked, its hottest
    /// stores): `words` words for each seat, each kind and the occupancy,
    /// the length fixed at construction; the seats and kinds indexed are
    /// those of pieces of the variant (every piece on the board or put on
    /// it is one) and the words those of cells of the board (`cell >> 6 <
    /// words`). Debug builds check every index.
    bits: Vec<u64>,
    words: usize,
    /// Each seat's royal cell ([`NO_CELL`] for none, and for every entry
    /// past the variant's seats): one entry per possible seat, so that
    /// [`Position::royal_cell`] reads it without a bounds check.
    royal: [u16; ROYAL_ENTRIES],
    state: TurnState,
    castling: CastlingRights,
    ep: Option<EnPassant>,
    halfmove: u32,
    fullmove: u32,
    hash: u64,
    stack: Vec<Undo>,
    /// Cells changed by joint decisions, with their earlier pieces.
    changed: Vec<(u16, Piece)>,
    /// The exchange phase in progress (synchronous chess).
    exchange: Exchange,
    /// The exchange states before each joint decision on `stack`.
    exchanges: Vec<Exchange>,
    /// Hashes of the positions before each step of `stack`.
    history: Vec<u64>,
}

/// A position's board read without bounds checks, for the hot loops
/// whose cells all come from the variant's tables (rays, leaps, pawn
/// steps: the generator, the attack routine's callers, the evaluation's
/// attack counting), which hold only cells below the geometry's cell
/// count, the length of every board of the variant ([`Position::board`]).
/// Debug builds check each read.
#[derive(Clone, Copy)]
pub(crate) struct TableBoard<'a>(&'a [Piece]);

impl<'a> TableBoard<'a> {
    #[inline(always)]
    pub(crate) fn of(pos: &'a Position) -> TableBoard<'a> {
        let board = pos.board();
        debug_assert_eq!(board.len(), pos.variant().geometry.cell_count());
        TableBoard(board)
    }

    /// The piece on `cell` (a cell of the variant's tables).
    #[inline(always)]
    pub(crate) fn at(self, cell: Cell) -> Piece {
        debug_assert!(cell < self.0.len(), "a cell outside the board");
        // SAFETY: `cell` comes from the variant's tables, whose cells are
        // all below the cell count, the board's length (see above).
        unsafe { *self.0.get_unchecked(cell) }
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let g = &self.variant.geometry;
        let pieces: Vec<String> = (0..g.cell_count())
            .filter(|&c| self.board[c] != EMPTY)
            .map(|c| {
                let p = self.board[c];
                format!(
                    "{}{}{}",
                    piece_seat(p).index(),
                    self.variant.kinds[piece_kind(p)].letter,
                    g.cell_name(c)
                )
            })
            .collect();
        write!(
            f,
            "Position({} {:?} {})",
            self.variant.spec,
            self.state.turn,
            pieces.join(" ")
        )
    }
}

impl Position {
    fn empty(v: &Arc<Variant>) -> Position {
        let cells = v.geometry.cell_count();
        let words = v.geometry.words();
        let sets = v.seat_count() + v.kinds.len() + 1;
        let turn = v.seating.first_turn(SeatSet::EMPTY);
        Position {
            variant: v.clone(),
            board: vec![EMPTY; cells],
            bits: vec![0; sets * words],
            words,
            royal: [NO_CELL; ROYAL_ENTRIES],
            state: TurnState {
                turn,
                phase: Phase::Main,
                out: SeatSet::EMPTY,
                fates: Fates::default(),
            },
            castling: CastlingRights::default(),
            ep: None,
            halfmove: 0,
            fullmove: 1,
            hash: v.zobrist.turn(turn),
            stack: Vec::new(),
            changed: Vec::new(),
            exchange: Exchange::default(),
            exchanges: Vec::new(),
            history: Vec::new(),
        }
    }

    /// The variant's start position.
    pub fn start(v: &Arc<Variant>) -> Position {
        let mut pos = Position::empty(v);
        for &(cell, p) in &v.start {
            pos.put(cell, p);
        }
        for &rook in &v.start_castling {
            let granted = pos.castling.push(rook as u16);
            debug_assert!(
                granted,
                "invariant: a variant's start rights come from a position it could read"
            );
            pos.hash ^= v.zobrist.castle[rook];
        }
        pos
    }

    /// The variant.
    #[inline(always)]
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// The piece on `cell` ([`EMPTY`] if none).
    #[inline(always)]
    pub fn piece_at(&self, cell: Cell) -> Piece {
        self.board[cell]
    }

    /// The owner of the piece on `cell`, if any.
    #[inline]
    pub fn piece_seat_at(&self, cell: Cell) -> Option<Seat> {
        match self.board.get(cell) {
            Some(&p) if p != EMPTY => Some(piece_seat(p)),
            _ => None,
        }
    }

    /// The whole board, indexed by cell.
    #[inline(always)]
    pub fn board(&self) -> &[Piece] {
        &self.board
    }

    /// The first word of set `i` (seats, then kinds, then all occupied):
    /// the whole set on boards of at most 64 cells.
    #[inline(always)]
    pub fn set_word(&self, i: usize) -> u64 {
        self.bits[i * self.words]
    }

    /// Sets `first..first + n` (seats, then kinds, then all occupied) on a
    /// board of one word (at most 64 cells): one word per set.
    #[inline(always)]
    pub fn one_word_sets(&self, first: usize, n: usize) -> &[u64] {
        debug_assert_eq!(self.words, 1, "a board of more than one word");
        &self.bits[first..first + n]
    }

    /// Every set (seats, then kinds, then all occupied) as bitboard
    /// words, each set in `Position::words` words one after another.
    #[inline(always)]
    pub fn set_words(&self) -> &[u64] {
        &self.bits
    }

    /// Cells occupied by `seat`, as bitboard words.
    #[inline(always)]
    pub fn seat_bits(&self, seat: Seat) -> &[u64] {
        let i = seat.index();
        &self.bits[i * self.words..(i + 1) * self.words]
    }

    /// Cells occupied by pieces of `kind` (any seat), as bitboard words.
    #[inline(always)]
    pub fn kind_bits(&self, kind: usize) -> &[u64] {
        let i = self.variant.seat_count() + kind;
        &self.bits[i * self.words..(i + 1) * self.words]
    }

    /// All occupied cells, as bitboard words.
    #[inline(always)]
    pub fn occupied_bits(&self) -> &[u64] {
        let i = self.variant.seat_count() + self.variant.kinds.len();
        &self.bits[i * self.words..(i + 1) * self.words]
    }

    /// Cells of `seat`'s pieces.
    pub fn seat_cells(&self, seat: Seat) -> Cells<'_> {
        Cells::new(self.seat_bits(seat))
    }

    /// The royal piece's cell of `seat`, if it has one.
    #[inline(always)]
    pub fn royal_cell(&self, seat: Seat) -> Option<Cell> {
        // A seat's index is below MAX_SEATS, hence below the array's
        // length, by `Seat`'s construction; the mask lets the compiler
        // see it.
        match self.royal[seat.index() & (ROYAL_ENTRIES - 1)] {
            NO_CELL => None,
            c => Some(c as usize),
        }
    }

    /// Who decides now.
    #[inline(always)]
    pub fn turn(&self) -> Turn {
        self.state.turn
    }

    /// The whole turn state (turn, phase, seats out).
    #[inline(always)]
    pub fn turn_state(&self) -> TurnState {
        self.state
    }

    /// The seat to move in a sequential turn (the lowest of the deciding
    /// seats in other turns: ask [`Position::turn`] there).
    #[inline(always)]
    pub fn to_move(&self) -> Seat {
        self.state.turn.lead()
    }

    /// The seats deciding now.
    #[inline(always)]
    pub fn movers(&self) -> SeatSet {
        self.state.turn.movers()
    }

    /// The phase of the turn.
    #[inline(always)]
    pub fn phase(&self) -> Phase {
        self.state.phase
    }

    /// The seats out of play.
    #[inline(always)]
    pub fn out(&self) -> SeatSet {
        self.state.out
    }

    /// Castling rights (cells of rooks that may castle).
    pub fn castling(&self) -> &[u16] {
        &self.castling
    }

    /// The rights' cells as one word, bit `cell % 64` per right: exactly
    /// the cells of the rights on boards of at most 64 cells.
    #[inline(always)]
    pub fn castling_word(&self) -> u64 {
        self.castling.summary
    }

    /// The en-passant opportunity, if any.
    pub fn en_passant(&self) -> Option<EnPassant> {
        self.ep
    }

    /// Plies since the last capture or pawn move.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove
    }

    /// Full move number.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove
    }

    /// Zobrist hash.
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash the position would have after the plain move or double
    /// step `m` of a two-seat game taking turns, as far as the pieces, the
    /// en-passant target it clears and the turn go: castling rights and a
    /// new en-passant target are left out, and any other move or seating
    /// gives the present hash. A guess, not a key: the search asks for the
    /// child's table bucket with it before the move is made, so that the
    /// bucket is on its way while the move is weighed and made (a wrong
    /// guess costs one useless fetch, never a wrong answer).
    #[inline(always)]
    pub fn hash_hint(&self, m: &Move) -> u64 {
        let (from, to) = (m.from as usize, m.to as usize);
        let Turn::One(now) = self.state.turn else {
            return self.hash;
        };
        if !matches!(m.kind, MoveKind::Normal | MoveKind::DoubleStep)
            || !self.variant.seating.is_alternating_pair()
            || !self.state.out.is_empty()
            || self.state.phase != Phase::Main
        {
            return self.hash;
        }
        let z = &self.variant.zobrist;
        let moving = self.board[from];
        let landing = match m.promotion_kind() {
            Some(k) => piece(now, k),
            None => moving,
        };
        let mut h = self.hash
            ^ z.piece(from, moving)
            ^ z.piece(to, landing)
            ^ z.to_move(now)
            ^ z.to_move(Seat::new(1 - now.index()));
        let victim = self.board[to];
        if victim != EMPTY {
            h ^= z.piece(to, victim);
        }
        if let Some(ep) = self.ep {
            h ^= z.ep[ep.target as usize];
        }
        h
    }

    /// Number of steps (moves and joint decisions) made since the position
    /// was set up.
    pub fn ply_count(&self) -> usize {
        self.stack.len()
    }

    #[inline(always)]
    pub(crate) fn put(&mut self, cell: Cell, p: Piece) {
        self.put_hashed::<true>(cell, p);
    }

    /// [`Position::put`], updating the hash only if `HASH` (a take-back
    /// restores the hash it saved).
    #[inline(always)]
    fn put_hashed<const HASH: bool>(&mut self, cell: Cell, p: Piece) {
        let v = &*self.variant;
        let w = self.words;
        let (seat, kind) = (piece_seat(p).index(), piece_kind(p));
        let (word, bit) = (cell >> 6, 1u64 << (cell & 63));
        let kind_base = (v.seat_count() + kind) * w;
        let occ_base = (v.seat_count() + v.kinds.len()) * w;
        self.board[cell] = p;
        for i in [seat * w + word, kind_base + word, occ_base + word] {
            debug_assert!(i < self.bits.len());
            // SAFETY: the invariant of `Position::bits`.
            unsafe { *self.bits.get_unchecked_mut(i) |= bit };
        }
        if HASH {
            self.hash ^= v.zobrist.piece(cell, p);
        }
        if v.royal_kind == Some(kind) {
            self.royal[seat] = cell as u16;
        }
    }

    /// Moves the piece on `from` to the empty cell `to`: what
    /// [`Position::remove`] and [`Position::put`] do, in one pass over the
    /// sets (the most common change of every move and take-back).
    #[inline(always)]
    fn relocate<const HASH: bool>(&mut self, from: Cell, to: Cell) {
        let v = &*self.variant;
        let p = self.board[from];
        let w = self.words;
        let (seat, kind) = (piece_seat(p).index(), piece_kind(p));
        let bases = [
            seat * w,
            (v.seat_count() + kind) * w,
            (v.seat_count() + v.kinds.len()) * w,
        ];
        let (from_word, from_bit) = (from >> 6, 1u64 << (from & 63));
        let (to_word, to_bit) = (to >> 6, 1u64 << (to & 63));
        self.board[from] = EMPTY;
        self.board[to] = p;
        for base in bases {
            debug_assert!(base + from_word.max(to_word) < self.bits.len());
            // SAFETY: the invariant of `Position::bits`.
            unsafe {
                *self.bits.get_unchecked_mut(base + from_word) ^= from_bit;
                *self.bits.get_unchecked_mut(base + to_word) ^= to_bit;
            }
        }
        if HASH {
            self.hash ^= v.zobrist.piece(from, p) ^ v.zobrist.piece(to, p);
        }
        if v.royal_kind == Some(kind) {
            self.royal[seat] = to as u16;
        }
    }

    #[inline(always)]
    pub(crate) fn remove(&mut self, cell: Cell) -> Piece {
        self.remove_hashed::<true>(cell)
    }

    /// [`Position::remove`], updating the hash only if `HASH`.
    #[inline(always)]
    fn remove_hashed<const HASH: bool>(&mut self, cell: Cell) -> Piece {
        let v = &*self.variant;
        let p = self.board[cell];
        let w = self.words;
        let (seat, kind) = (piece_seat(p).index(), piece_kind(p));
        let (word, bit) = (cell >> 6, !(1u64 << (cell & 63)));
        let kind_base = (v.seat_count() + kind) * w;
        let occ_base = (v.seat_count() + v.kinds.len()) * w;
        self.board[cell] = EMPTY;
        for i in [seat * w + word, kind_base + word, occ_base + word] {
            debug_assert!(i < self.bits.len());
            // SAFETY: the invariant of `Position::bits`.
            unsafe { *self.bits.get_unchecked_mut(i) &= bit };
        }
        if HASH {
            self.hash ^= v.zobrist.piece(cell, p);
        }
        if v.royal_kind == Some(kind) && self.royal[seat] == cell as u16 {
            self.royal[seat] = NO_CELL;
        }
        p
    }

    /// The record that undoes the next step, taken before it changes
    /// anything.
    fn undo_record(&self, mv: Move, moved: Piece) -> Undo {
        Undo {
            mv,
            moved,
            captured: EMPTY,
            castling: self.castling,
            ep: self.ep,
            halfmove: self.halfmove,
            fullmove: self.fullmove,
            hash: self.hash,
            turn: self.state,
            changed: 0,
            joint: false,
            removed: 0,
        }
    }

    /// Plays a move produced by the move generator for this position. The
    /// mover is the owner of the piece on the start cell (the seat to move
    /// for the null move).
    pub fn make(&mut self, m: Move) {
        self.make_step::<true>(m);
    }

    /// [`Position::make`] without keeping the hash up to date: for
    /// counting (perft), where nothing reads the hash before the
    /// [`Position::unmake`] that restores the saved one. The rare changes
    /// (castling rights lost, seats out, other seatings' turns) still hash;
    /// the take-back restores the hash either way.
    #[inline]
    pub(crate) fn make_unhashed(&mut self, m: Move) {
        self.make_step::<false>(m);
    }

    /// Plays `m`, updating the hash on the common paths only if `HASH`.
    #[inline(always)]
    fn make_step<const HASH: bool>(&mut self, m: Move) {
        let moving = self.board[m.from as usize];
        let mover = if matches!(m.kind, MoveKind::Null | MoveKind::Out) {
            self.state.turn.lead()
        } else {
            piece_seat(moving)
        };
        let mut undo = self.undo_record(m, moving);
        self.history.push(self.hash);
        if let Some(ep) = self.ep.take()
            && HASH
        {
            self.hash ^= self.variant.zobrist.ep[ep.target as usize];
        }
        undo.captured = self.move_pieces::<HASH>(m, mover);
        // A pawn's move or a capture (en passant is both).
        let irreversible = matches!(m.kind, MoveKind::Null | MoveKind::Out)
            || self.variant.is_pawn(piece_kind(moving))
            || undo.captured != EMPTY;
        if !self.castling.is_empty() && !matches!(m.kind, MoveKind::Null | MoveKind::Out) {
            self.update_castling_by(mover, moving, m);
        }
        self.halfmove = if irreversible { 0 } else { self.halfmove + 1 };
        let mut out = self.state.out;
        if undo.captured != EMPTY && self.variant.royal_kind == Some(piece_kind(undo.captured)) {
            // A king captured outright (possible only where the seats'
            // relations let a third seat's move expose it): its seat is out.
            out = self.seat_out(piece_seat(undo.captured), Fate::Lost, &mut undo);
        }
        if m.kind == MoveKind::Out {
            // A seat without a legal move leaves the game: mated if its
            // king is attacked, else stalemated.
            out = self.seat_out(mover, self.fate_without_moves(mover), &mut undo);
        }
        self.pass_turn::<HASH>(mover, out);
        self.open_en_passant::<HASH>(m, mover);
        self.stack.push(undo);
    }

    /// After a double step `m` of `mover` (and the turn passed on): the
    /// en-passant opportunity, where a seat moving next could take it,
    /// hashed only if `HASH`.
    #[inline(always)]
    fn open_en_passant<const HASH: bool>(&mut self, m: Move, mover: Seat) {
        if m.kind == MoveKind::DoubleStep && self.ep_capturable(mover, m.aux as usize) {
            self.ep = Some(EnPassant {
                target: m.aux,
                pawn: m.to,
            });
            if HASH {
                self.hash ^= self.variant.zobrist.ep[m.aux as usize];
            }
        }
    }

    /// Moves the pieces of `m` (by `mover`), updating the hash only if
    /// `HASH`; returns the piece captured ([`EMPTY`] if none).
    #[inline(always)]
    fn move_pieces<const HASH: bool>(&mut self, m: Move, mover: Seat) -> Piece {
        let (from, to) = (m.from as usize, m.to as usize);
        match m.kind {
            MoveKind::Null | MoveKind::Out => EMPTY,
            MoveKind::Castle => {
                let rook = self.remove_hashed::<HASH>(m.aux as usize);
                let king = self.remove_hashed::<HASH>(from);
                self.put_hashed::<HASH>(to, king);
                self.put_hashed::<HASH>(m.aux2 as usize, rook);
                EMPTY
            }
            MoveKind::EnPassant => {
                let captured = self.remove_hashed::<HASH>(m.aux as usize);
                self.relocate::<HASH>(from, to);
                captured
            }
            MoveKind::Normal | MoveKind::DoubleStep => {
                let captured = if self.board[to] != EMPTY {
                    self.remove_hashed::<HASH>(to)
                } else {
                    EMPTY
                };
                match m.promotion_kind() {
                    Some(k) => {
                        self.remove_hashed::<HASH>(from);
                        self.put_hashed::<HASH>(to, piece(mover, k));
                    }
                    None => self.relocate::<HASH>(from, to),
                }
                captured
            }
        }
    }

    /// Takes back the pieces of `m`, which moved `moved` and captured
    /// `captured` (the hash is left alone: its caller restores the saved
    /// one).
    #[inline(always)]
    fn unmove_pieces(&mut self, m: Move, moved: Piece, captured: Piece) {
        let (from, to) = (m.from as usize, m.to as usize);
        match m.kind {
            MoveKind::Null | MoveKind::Out => {}
            MoveKind::Castle => {
                let rook = self.remove_hashed::<false>(m.aux2 as usize);
                let king = self.remove_hashed::<false>(to);
                self.put_hashed::<false>(from, king);
                self.put_hashed::<false>(m.aux as usize, rook);
            }
            MoveKind::EnPassant => {
                self.relocate::<false>(to, from);
                self.put_hashed::<false>(m.aux as usize, captured);
            }
            MoveKind::Normal | MoveKind::DoubleStep => {
                if m.promotion == 0 {
                    self.relocate::<false>(to, from);
                } else {
                    self.remove_hashed::<false>(to);
                    self.put_hashed::<false>(from, moved);
                }
                if captured != EMPTY {
                    self.put_hashed::<false>(to, captured);
                }
            }
        }
    }

    /// Whether [`Position::make_counted`] may play the moves of this
    /// position: two seats alternating in the main phase with none out
    /// (chess and every two-player board), where a move changes nothing
    /// but the pieces, the castling rights, en passant, the clocks and
    /// the seat to move.
    pub(crate) fn counted_moves_apply(&self) -> bool {
        let v = &*self.variant;
        v.seating.is_alternating_pair()
            && v.rules.party.is_none()
            && self.state.phase == Phase::Main
            && self.state.out.is_empty()
            && matches!(self.state.turn, Turn::One(_))
    }

    /// Plays a generated move of a position where
    /// [`Position::counted_moves_apply`], for counting (perft): the record
    /// that takes it back is returned instead of kept on the position's
    /// stacks, and the hash is not kept up to date (the take-back restores
    /// it), so a count's make and take-back touch no more than the move
    /// changes. Legal moves of two alternating seats never capture a king,
    /// so no seat goes out.
    #[inline(always)]
    pub(crate) fn make_counted(&mut self, m: Move) -> CountedUndo {
        debug_assert!(self.counted_moves_apply());
        debug_assert!(!matches!(m.kind, MoveKind::Null | MoveKind::Out));
        let moving = self.board[m.from as usize];
        let mover = piece_seat(moving);
        let undo = CountedUndo {
            moved: moving,
            captured: EMPTY,
            castling: (!self.castling.is_empty()).then_some(self.castling),
            ep: self.ep.take(),
            halfmove: self.halfmove,
            fullmove: self.fullmove,
            hash: self.hash,
            turn: self.state.turn,
        };
        let captured = self.move_pieces::<false>(m, mover);
        debug_assert!(
            captured == EMPTY || self.variant.royal_kind != Some(piece_kind(captured)),
            "a legal move of two alternating seats captured a king"
        );
        if undo.castling.is_some() {
            self.update_castling_by(mover, moving, m);
        }
        // A pawn's move or a capture (en passant is both).
        let irreversible = self.variant.is_pawn(piece_kind(moving)) || captured != EMPTY;
        self.halfmove = if irreversible { 0 } else { self.halfmove + 1 };
        self.pass_pair_turn::<false>(mover);
        self.open_en_passant::<false>(m, mover);
        CountedUndo { captured, ..undo }
    }

    /// Takes back `m`, played by [`Position::make_counted`] which returned
    /// `undo`.
    #[inline(always)]
    pub(crate) fn unmake_counted(&mut self, m: Move, undo: CountedUndo) {
        self.unmove_pieces(m, undo.moved, undo.captured);
        if let Some(rights) = undo.castling {
            self.castling = rights;
        }
        self.ep = undo.ep;
        self.halfmove = undo.halfmove;
        self.fullmove = undo.fullmove;
        self.hash = undo.hash;
        self.state.turn = undo.turn;
    }

    /// Puts `seat` out of the game with `fate` (and, in independent
    /// multi-party games, its opponent with it), removing their armies
    /// where the variant says so (recorded in `undo`); returns the seats
    /// out. The fates are set on the position's state at once, the set of
    /// seats out by the caller's [`Position::pass_turn`].
    #[cold]
    fn seat_out(&mut self, seat: Seat, fate: Fate, undo: &mut Undo) -> SeatSet {
        let v = self.variant.clone();
        let Some(party) = v.rules.party else {
            let mut out = self.state.out;
            out.insert(seat);
            self.state.fates.set(seat, fate);
            return out;
        };
        let fates = party.go_out(self.state.fates, seat, fate, v.seat_count());
        let out = fates.seats();
        if party.dead == DeadPieces::Remove {
            for gone in out.difference(self.state.out).iter() {
                let cells: Vec<Cell> = self.seat_cells(gone).collect();
                for c in cells {
                    let p = self.remove(c);
                    self.changed.push((c as u16, p));
                    undo.removed += 1;
                }
            }
        }
        self.state.fates = fates;
        out
    }

    /// Removes the castling rights a move of `moving` (owned by `mover`)
    /// from `from` to `to` ends; `castled_rook` is the rook of a castling.
    #[inline(always)]
    pub(crate) fn update_castling(
        &mut self,
        mover: Seat,
        moving: Piece,
        from: Cell,
        to: Cell,
        castled_rook: Option<u16>,
    ) {
        let royal_moved = self.variant.royal_kind == Some(piece_kind(moving));
        if royal_moved || castled_rook.is_some() || self.castling.may_touch(from, to) {
            self.remove_castling(mover, royal_moved, from, to, castled_rook);
        }
    }

    /// [`Position::update_castling`] for the move `m` of `moving` (owned
    /// by `mover`).
    #[inline(always)]
    fn update_castling_by(&mut self, mover: Seat, moving: Piece, m: Move) {
        let castled_rook = (m.kind == MoveKind::Castle).then_some(m.aux);
        self.update_castling(mover, moving, m.from as usize, m.to as usize, castled_rook);
    }

    /// The rights [`Position::update_castling`] found may be touched:
    /// removes those the move ends, one by one.
    #[inline(never)]
    fn remove_castling(
        &mut self,
        mover: Seat,
        royal_moved: bool,
        from: Cell,
        to: Cell,
        castled_rook: Option<u16>,
    ) {
        let mut i = 0;
        while i < self.castling.len() {
            let c = self.castling[i] as usize;
            let lost = c == from
                || c == to
                || castled_rook == Some(c as u16)
                || (royal_moved && {
                    let occupant = self.board[c];
                    occupant != EMPTY && piece_seat(occupant) == mover
                });
            if lost {
                self.hash ^= self.variant.zobrist.castle[c];
                self.castling.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Hands the turn on after `mover` decided (`out`: the seats out after
    /// the step), updating the hash and the move number.
    /// Two alternating seats' turn is hashed only if `HASH` (see
    /// [`Position::make_unhashed`]).
    #[inline(always)]
    fn pass_turn<const HASH: bool>(&mut self, mover: Seat, out: SeatSet) {
        let v = &*self.variant;
        if v.seating.is_alternating_pair()
            && out.is_empty()
            && self.state.phase == Phase::Main
            && let Turn::One(now) = self.state.turn
        {
            self.pass_pair_turn::<HASH>(now);
            return;
        }
        self.pass_turn_general(mover, out);
    }

    /// Two seats alternating (chess), `now` having moved: the other seat
    /// moves next, and a new move number starts with the first seat; the
    /// turn is hashed only if `HASH`.
    #[inline(always)]
    fn pass_pair_turn<const HASH: bool>(&mut self, now: Seat) {
        let next = Seat::new(1 - now.index());
        if HASH {
            let z = &self.variant.zobrist;
            self.hash ^= z.to_move(now) ^ z.to_move(next);
        }
        if next == Seat::FIRST {
            self.fullmove += 1;
        }
        self.state.turn = Turn::One(next);
    }

    /// [`Position::pass_turn`] for any seating.
    fn pass_turn_general(&mut self, mover: Seat, out: SeatSet) {
        let v = &*self.variant;
        let next = v.seating.next_turn(self.state.turn, mover, out);
        self.hash ^= v.zobrist.turn(self.state.turn) ^ v.zobrist.turn(next);
        if out != self.state.out {
            self.hash ^= v.zobrist.out(self.state.out) ^ v.zobrist.out(out);
        }
        if self.state.phase != Phase::Main {
            self.hash ^= v.zobrist.phase(self.state.phase);
        }
        // A new round starts when the turn comes back to an earlier seat
        // of the seat order (every turn of a simultaneous game).
        let order = v.seating.order();
        let rank = |s: Seat| order.iter().position(|&o| o == s).unwrap_or(0);
        if rank(next.lead()) <= rank(mover) || next.is_simultaneous() {
            self.fullmove += 1;
        }
        self.state = TurnState {
            turn: next,
            phase: Phase::Main,
            out,
            fates: self.state.fates,
        };
    }

    /// Starts a step that changes cells one by one (a joint decision):
    /// every change goes through [`Position::change_cell`] and the step
    /// ends with [`Position::end_cell_step`].
    pub(crate) fn begin_cell_step(&mut self) {
        let mut undo = self.undo_record(Move::NULL, EMPTY);
        undo.joint = true;
        self.exchanges.push(self.exchange.clone());
        self.history.push(self.hash);
        if let Some(ep) = self.ep.take() {
            self.hash ^= self.variant.zobrist.ep[ep.target as usize];
        }
        self.stack.push(undo);
    }

    /// Sets `cell` to `p` within a cell step, remembering what was there.
    pub(crate) fn change_cell(&mut self, cell: Cell, p: Piece) {
        let old = self.board[cell];
        if old == p {
            return;
        }
        self.changed.push((cell as u16, old));
        if let Some(u) = self.stack.last_mut() {
            u.changed += 1;
        }
        if old != EMPTY {
            self.remove(cell);
        }
        if p != EMPTY {
            self.put(cell, p);
        }
    }

    /// Ends a joint decision's cell step: the halfmove clock (reset by
    /// `irreversible`; an exchange step without a capture leaves it), the
    /// seats out, and the next turn — the exchange phase on the cells of
    /// `exchange` when one is open, else the next simultaneous turn of
    /// every seat in play.
    pub(crate) fn end_joint_step(&mut self, irreversible: bool, out: SeatSet, exchange: Exchange) {
        let v = &*self.variant;
        let was_main = self.state.phase == Phase::Main;
        self.halfmove = if irreversible {
            0
        } else if was_main {
            self.halfmove + 1
        } else {
            self.halfmove
        };
        let live = v.seating.all().difference(out);
        let (turn, phase) = if exchange.is_empty() {
            (Turn::All(live), Phase::Main)
        } else {
            (
                Turn::All(exchange.deciders().intersection(live)),
                Phase::Exchange,
            )
        };
        self.hash ^= v.zobrist.turn(self.state.turn) ^ v.zobrist.turn(turn);
        self.hash ^= v.zobrist.phase(self.state.phase) ^ v.zobrist.phase(phase);
        if out != self.state.out {
            self.hash ^= v.zobrist.out(self.state.out) ^ v.zobrist.out(out);
        }
        self.hash ^= self.exchange.key() ^ exchange.key();
        if phase == Phase::Main {
            self.fullmove += 1;
        }
        self.state = TurnState {
            turn,
            phase,
            out,
            fates: self.state.fates,
        };
        self.exchange = exchange;
    }

    /// Puts a position read from a text into the exchange phase `ex`
    /// (checked: a variant with the phase, a simultaneous main turn, every
    /// contested cell holding a piece its seat may capture, every moved
    /// cell occupied).
    pub(crate) fn enter_exchange(&mut self, ex: Exchange) -> Result<(), PositionError> {
        let v = self.variant.clone();
        let bad = |s: &str| Err(PositionError::Exchange(s.into()));
        if !v.rules.exchange_phase || !self.state.turn.is_simultaneous() {
            return bad("this variant has no exchange phase");
        }
        if ex.is_empty() {
            return bad("no contested cell");
        }
        for &(c, s) in &ex.open {
            let p = self.board[c as usize];
            if s.index() >= v.seat_count() || p == EMPTY || !v.seating.may_capture(s, piece_seat(p))
            {
                return bad("a contested cell must hold a piece its seat may capture");
            }
        }
        if ex.moved.iter().any(|&c| self.board[c as usize] == EMPTY) {
            return bad("a cell of a moved piece is empty");
        }
        let live = v.seating.all().difference(self.state.out);
        let turn = Turn::All(ex.deciders().intersection(live));
        self.hash ^= v.zobrist.turn(self.state.turn) ^ v.zobrist.turn(turn);
        self.hash ^= v.zobrist.phase(self.state.phase) ^ v.zobrist.phase(Phase::Exchange);
        self.hash ^= self.exchange.key() ^ ex.key();
        self.state.turn = turn;
        self.state.phase = Phase::Exchange;
        self.exchange = ex;
        Ok(())
    }

    /// The exchange phase in progress (empty in the main phase).
    pub fn exchange(&self) -> &Exchange {
        &self.exchange
    }

    /// Takes back the last step.
    pub fn unmake(&mut self) {
        // The pieces go back without touching the hash: the saved one is
        // restored at the end. The record is read in place (not popped as
        // a copy): the fields the pieces need first, the rest straight
        // into the position.
        let Some(undo) = self.stack.last() else {
            return;
        };
        let (m, moved, captured) = (undo.mv, undo.moved, undo.captured);
        let (removed, joint, changed) = (undo.removed, undo.joint, undo.changed);
        self.history.pop();
        for _ in 0..removed {
            let (cell, p) = self
                .changed
                .pop()
                .expect("invariant: a move records every piece it removed");
            self.put_hashed::<false>(cell as usize, p);
        }
        if joint {
            self.exchange = self
                .exchanges
                .pop()
                .expect("invariant: every joint step pushed its exchange state");
        }
        if changed > 0 {
            for _ in 0..changed {
                let (cell, old) = self
                    .changed
                    .pop()
                    .expect("invariant: a step records as many changes as it counts");
                let cell = cell as usize;
                if self.board[cell] != EMPTY {
                    self.remove_hashed::<false>(cell);
                }
                if old != EMPTY {
                    self.put_hashed::<false>(cell, old);
                }
            }
        } else {
            self.unmove_pieces(m, moved, captured);
        }
        // The record read above is still the last (nothing pops it).
        let last = self.stack.len() - 1;
        let undo = &self.stack[last];
        self.castling = undo.castling;
        self.ep = undo.ep;
        self.halfmove = undo.halfmove;
        self.fullmove = undo.fullmove;
        self.state = undo.turn;
        self.hash = undo.hash;
        self.stack.truncate(last);
    }

    /// Whether a seat of the next turn that may capture `mover`'s pieces
    /// has a pawn that could capture onto `target` (en passant is only
    /// recorded when it could be used, so that equal positions hash
    /// equally; RULES: only the seat that moves next may take it).
    fn ep_capturable(&self, mover: Seat, target: Cell) -> bool {
        let v = &self.variant;
        for q in self.state.turn.movers().iter() {
            if !v.seating.may_capture(q, mover) {
                continue;
            }
            let mut pawn_kinds = v.pawn_kinds;
            while pawn_kinds != 0 {
                let k = pawn_kinds.trailing_zeros() as usize;
                pawn_kinds &= pawn_kinds - 1;
                let p = piece(q, k);
                if v.pawn_tables[q][k]
                    .attackers
                    .get(target)
                    .iter()
                    .any(|&c| self.board[c as usize] == p)
                {
                    return true;
                }
            }
        }
        false
    }

    /// Whether the current position occurred `times` times in all (the
    /// current one included) since the last irreversible move.
    pub fn repetitions(&self) -> usize {
        let span = (self.halfmove as usize).min(self.history.len());
        1 + self.history[self.history.len() - span..]
            .iter()
            .filter(|&&h| h == self.hash)
            .count()
    }

    /// Whether `seat`'s royal piece is attacked by a seat whose attacks on
    /// it are check.
    pub fn seat_in_check(&self, seat: Seat) -> bool {
        match self.royal_cell(seat) {
            Some(k) => {
                let board = &self.board;
                attacks::attacked_by_checkers(&self.variant, k, seat, |c| board[c])
            }
            None => false,
        }
    }

    /// Whether the seat to move is in check.
    pub fn in_check(&self) -> bool {
        self.seat_in_check(self.to_move())
    }

    /// Whether only royal pieces are left.
    pub fn only_kings(&self) -> bool {
        match self.variant.royal_kind {
            Some(k) => {
                let occ: u32 = self.occupied_bits().iter().map(|w| w.count_ones()).sum();
                let kings: u32 = self.kind_bits(k).iter().map(|w| w.count_ones()).sum();
                occ == kings
            }
            None => false,
        }
    }

    /// Whether no sequence of legal moves can end in mate: only royal
    /// pieces left, or, where the variant's rules say FIDE's
    /// insufficient material applies (the 8x8 board), nothing but the
    /// kings and either one knight or any bishops all on one square
    /// colour — the draws python-chess, shakmaty and the chess GUIs
    /// declare.
    pub fn dead_position(&self) -> bool {
        let v = &*self.variant;
        // A pawn on the board can still promote and mate, whatever else
        // stands there: the common case (the search asks after every
        // capture and pawn move), answered before any count.
        let mut pawn_kinds = v.pawn_kinds;
        while pawn_kinds != 0 {
            let k = pawn_kinds.trailing_zeros() as usize;
            pawn_kinds &= pawn_kinds - 1;
            if Some(k) != v.royal_kind && self.kind_bits(k).iter().any(|&w| w != 0) {
                return false;
            }
        }
        if self.only_kings() {
            return true;
        }
        if !v.rules.insufficient_material || v.seat_count() != 2 {
            return false;
        }
        let count = |bits: &[u64]| -> u32 { bits.iter().map(|w| w.count_ones()).sum() };
        let (mut knights, mut bishops) = (0u32, 0u32);
        let mut bishop_colours = [false; 2];
        for (k, kind) in v.kinds.iter().enumerate() {
            let bits = self.kind_bits(k);
            let n = count(bits);
            if n == 0 || Some(k) == v.royal_kind {
                continue;
            }
            match kind.letter {
                'N' => knights += n,
                'B' => {
                    bishops += n;
                    for (i, &w) in bits.iter().enumerate() {
                        let mut w = w;
                        while w != 0 {
                            let cell = i * 64 + w.trailing_zeros() as usize;
                            w &= w - 1;
                            let sum: i32 = v.geometry.coords(cell).iter().map(|&x| x as i32).sum();
                            bishop_colours[(sum & 1) as usize] = true;
                        }
                    }
                }
                // Pawns, rooks, queens can still mate (python-chess: a
                // side with a queen is never short of material).
                _ => return false,
            }
        }
        if knights == 0 {
            // Kings and bishops: dead when every bishop stands on one colour.
            return !(bishop_colours[0] && bishop_colours[1]);
        }
        // A single knight and the kings, nothing else.
        knights == 1 && bishops == 0
    }

    /// The neutral description of a move.
    pub fn move_key(&self, m: Move) -> MoveKey {
        let g = &self.variant.geometry;
        let c = |cell: u16| g.coords(cell as usize).iter().map(|&x| x as i32).collect();
        MoveKey {
            from: c(m.from),
            to: c(m.to),
            promotion: m.promotion_kind().map(|k| self.variant.kinds[k].letter),
            castling_rook: (m.kind == MoveKind::Castle).then(|| c(m.aux)),
        }
    }

    /// The pieces on the board as (coordinates, seat index, upper-case
    /// letter): the neutral description used to compare implementations.
    pub fn placement(&self) -> Vec<(Vec<i32>, usize, char)> {
        let g = &self.variant.geometry;
        (0..g.cell_count())
            .filter(|&c| self.board[c] != EMPTY)
            .map(|c| {
                let p = self.board[c];
                (
                    g.coords(c).iter().map(|&x| x as i32).collect(),
                    piece_seat(p).index(),
                    self.variant.kinds[piece_kind(p)].letter,
                )
            })
            .collect()
    }

    /// Sets up a position from parts already checked by the notation
    /// reader; runs the legality checks that need the whole position.
    pub(crate) fn from_parts(
        v: &Arc<Variant>,
        pieces: &[(Cell, Piece)],
        state: TurnState,
        castling: &[Cell],
        ep_target: Option<Cell>,
        halfmove: u32,
        fullmove: u32,
    ) -> Result<Position, PositionError> {
        let (turn, fates) = (state.turn, state.fates);
        let mut pos = Position::empty(v);
        let first = pos.state.turn;
        pos.hash ^= v.zobrist.turn(first) ^ v.zobrist.turn(turn);
        pos.state.turn = turn;
        let out = fates.seats();
        if !out.is_empty() {
            pos.hash ^= v.zobrist.out(SeatSet::EMPTY) ^ v.zobrist.out(out);
            pos.state.out = out;
            pos.state.fates = fates;
        }
        for &(c, p) in pieces {
            pos.put(c, p);
        }
        if let Some(k) = v.royal_kind {
            for seat in v.seating.seats() {
                let kings = Cells::new(pos.seat_bits(seat))
                    .filter(|&c| piece_kind(pos.board[c]) == k)
                    .count();
                // A seat out of play may have lost its king (or its army).
                if kings > 1 || (kings == 0 && !out.contains(seat)) {
                    return Err(PositionError::Illegal(format!(
                        "{} has {kings} kings, needs exactly one",
                        v.seating.name(seat)
                    )));
                }
            }
        }
        for (c, p) in pieces {
            let seat = piece_seat(*p);
            if v.is_pawn(piece_kind(*p)) && v.promotion_zone[seat].contains(*c) {
                return Err(PositionError::Illegal(format!(
                    "a pawn of {} stands on its promotion cell {}",
                    v.seating.name(seat),
                    v.geometry.cell_name(*c)
                )));
            }
        }
        for &rook in castling {
            let p = pos.board[rook];
            let ok = p != EMPTY
                && v.kinds[piece_kind(p)].castles
                && v.rules.castling != CastlingStyle::None
                && pos
                    .royal_cell(piece_seat(p))
                    .is_some_and(|k| v.geometry.coord(k, 0) == v.geometry.coord(rook, 0));
            if !ok {
                return Err(PositionError::Castling(format!(
                    "no rook that can castle on {}",
                    v.geometry.cell_name(rook)
                )));
            }
            if !pos.castling.contains(&(rook as u16)) {
                if !pos.castling.push(rook as u16) {
                    return Err(PositionError::Castling(format!(
                        "more than {} rights",
                        CastlingRights::CAPACITY
                    )));
                }
                pos.hash ^= v.zobrist.castle[rook];
            }
        }
        let last = pos.last_mover();
        if let Some(target) = ep_target {
            let ep = last
                .and_then(|l| pos.find_ep_pawn(l, target))
                .ok_or_else(|| {
                    PositionError::EnPassant(format!(
                        "no pawn just passed {}",
                        v.geometry.cell_name(target)
                    ))
                })?;
            let mover = piece_seat(pos.board[ep.pawn as usize]);
            if pos.ep_capturable(mover, target) {
                pos.ep = Some(ep);
                pos.hash ^= v.zobrist.ep[target];
            }
        }
        pos.halfmove = halfmove;
        pos.fullmove = fullmove.max(1);
        // The seat that moved last may not have left its king attacked.
        if let Some(last) = last
            && pos.seat_in_check(last)
        {
            return Err(PositionError::Illegal(format!(
                "{} is in check but it is not its turn",
                v.seating.name(last)
            )));
        }
        Ok(pos)
    }

    /// A position of `v` with `pieces`, `to_move` leading the turn and
    /// the seats of `fates` out of play, checked as a position text is
    /// (one king per seat in play, the last mover not in check, no pawn on
    /// its promotion cells); no castling rights or en-passant cell. For
    /// tools that set up positions (problem composers, tests).
    pub fn from_pieces(
        v: &Arc<Variant>,
        pieces: &[(Cell, Piece)],
        to_move: Seat,
        fates: Fates,
    ) -> Result<Position, PositionError> {
        if to_move.index() >= v.seat_count() || fates.seats().contains(to_move) {
            return Err(PositionError::Side(format!(
                "{to_move} cannot be to move in this variant"
            )));
        }
        let mut cells: Vec<Cell> = pieces.iter().map(|&(c, _)| c).collect();
        cells.sort_unstable();
        cells.dedup();
        if cells.len() != pieces.len()
            || cells.last().is_some_and(|&c| c >= v.geometry.cell_count())
            || pieces.iter().any(|&(_, p)| {
                p == EMPTY
                    || piece_seat(p).index() >= v.seat_count()
                    || piece_kind(p) >= v.kinds.len()
            })
        {
            return Err(PositionError::Board(
                "pieces on cells of the board, one per cell, of the variant's seats and kinds"
                    .into(),
            ));
        }
        let state = TurnState::new(v.seating.turn_led_by(to_move, fates.seats()), fates);
        Position::from_parts(v, pieces, state, &[], None, 0, 1)
    }

    /// The seat that moved last in a sequential game (the one before the
    /// seat to move in the seat order); `None` in simultaneous turns.
    fn last_mover(&self) -> Option<Seat> {
        let Turn::One(now) = self.state.turn else {
            return None;
        };
        let order = self.variant.seating.order();
        let at = order.iter().position(|&s| s == now)?;
        let n = order.len();
        (1..n)
            .map(|k| order[(at + n - k) % n])
            .find(|&s| !self.state.out.contains(s))
    }

    /// The pawn of `last` that double-stepped across `target`, if the
    /// position shows one (the pawn beyond the target, its start empty).
    fn find_ep_pawn(&self, last: Seat, target: Cell) -> Option<EnPassant> {
        let v = &self.variant;
        let g = &v.geometry;
        if !v.rules.en_passant || self.board[target] != EMPTY {
            return None;
        }
        for k in 0..v.kinds.len() {
            let Some(rule) = &v.kinds[k].pawn else {
                continue;
            };
            if !rule.double_step {
                continue;
            }
            for push in &rule.pushes {
                let d = v.seating.info(last).orient(push);
                let back: Vec<i32> = d.iter().map(|x| -x).collect();
                let (Some(pawn), Some(origin)) = (g.step(target, &d), g.step(target, &back)) else {
                    continue;
                };
                if self.board[pawn] == piece(last, k) && self.board[origin] == EMPTY {
                    return Some(EnPassant {
                        target: target as u16,
                        pawn: pawn as u16,
                    });
                }
            }
        }
        None
    }

    /// The previous positions' hashes (oldest first), for repetition checks
    /// by the search.
    pub fn hash_history(&self) -> &[u64] {
        &self.history
    }
}
