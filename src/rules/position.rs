//! Positions: pieces on cells, the player to move, castling and en-passant
//! rights, counters, Zobrist hash and the history that make/unmake and the
//! repetition rule need.
//!
//! A [`Position`] is valid by construction: it is built from a variant's
//! start position or from a position text that passed every check in
//! [`Position::from_text`], and changed only by [`Position::make`] with a
//! move the move generator produced.

use std::fmt;
use std::sync::Arc;

use arrayvec::ArrayVec;

use crate::board::bitboard::Cells;
use crate::board::geometry::Cell;
use crate::board::variant::{
    CastlingStyle, EMPTY, NO_CELL, Piece, StalemateRule, Variant, piece, piece_kind, piece_player,
};

/// What a move does besides moving a piece from one cell to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MoveKind {
    /// Ordinary move or capture (a promotion if `promotion` is set).
    Normal,
    /// A pawn's double step; `aux` is the cell it passes.
    DoubleStep,
    /// En-passant capture; `aux` is the captured pawn's cell.
    EnPassant,
    /// Castling: `from`/`to` are the king's cells, `aux` the rook's start
    /// and `aux2` the rook's destination.
    Castle,
    /// A null move (the turn passes; search only, never generated).
    Null,
}

/// A move. Cells are flattened indices (boards have at most 60,000 cells).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    /// Start cell (the king's for castling).
    pub from: u16,
    /// Destination cell (the king's for castling).
    pub to: u16,
    /// See [`MoveKind`].
    pub aux: u16,
    /// Rook destination of a castling.
    pub aux2: u16,
    /// Kind.
    pub kind: MoveKind,
    /// Promotion piece kind + 1, or 0.
    pub promotion: u8,
}

impl Move {
    /// A plain move.
    #[inline(always)]
    pub fn normal(from: Cell, to: Cell) -> Move {
        Move {
            from: from as u16,
            to: to as u16,
            aux: NO_CELL,
            aux2: NO_CELL,
            kind: MoveKind::Normal,
            promotion: 0,
        }
    }

    /// The null move: passes the turn ([`Position::make`] accepts it; the
    /// move generator never produces it).
    pub const NULL: Move = Move {
        from: 0,
        to: 0,
        aux: NO_CELL,
        aux2: NO_CELL,
        kind: MoveKind::Null,
        promotion: 0,
    };

    /// The promotion kind, if any.
    #[inline]
    pub fn promotion_kind(&self) -> Option<usize> {
        (self.promotion != 0).then(|| self.promotion as usize - 1)
    }
}

/// A move described by coordinates only, independent of cell numbering:
/// the neutral form used to compare move generators.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MoveKey {
    /// Coordinates of the start cell (the king's for castling).
    pub from: Vec<i32>,
    /// Coordinates of the destination (the king's for castling).
    pub to: Vec<i32>,
    /// Upper-case letter of the promotion piece.
    pub promotion: Option<char>,
    /// Start cell of the castling rook.
    pub castling_rook: Option<Vec<i32>>,
}

/// An en-passant opportunity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnPassant {
    /// The passed cell a pawn may capture onto.
    pub target: u16,
    /// The cell of the pawn that double-stepped.
    pub pawn: u16,
}

/// Castling rights: the cells of the rooks that may still castle.
pub type CastlingRights = ArrayVec<u16, 16>;

#[derive(Clone, Debug)]
struct Undo {
    mv: Move,
    moved: Piece,
    captured: Piece,
    castling: CastlingRights,
    ep: Option<EnPassant>,
    halfmove: u32,
    hash: u64,
}

/// Why a game ended with a winner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinReason {
    /// The loser is mated.
    Checkmate,
    /// The loser is stalemated in a variant where that loses (¾–¼).
    Stalemate,
}

/// Why a game ended drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// No legal move, not in check.
    Stalemate,
    /// The same position for the third time.
    Repetition,
    /// 100 plies without capture or pawn move.
    FiftyMoves,
    /// Only kings are left.
    DeadPosition,
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// `winner` (a player index) wins.
    Win {
        /// The winning player.
        winner: usize,
        /// How.
        reason: WinReason,
    },
    /// A draw.
    Draw(DrawReason),
}

impl GameResult {
    /// The score in PGN-like form for two players: `1-0`, `0-1`, `1/2-1/2`,
    /// and `3/4-1/4` / `1/4-3/4` for a stalemate win.
    pub fn score(&self) -> &'static str {
        match self {
            GameResult::Win {
                winner: 0,
                reason: WinReason::Checkmate,
            } => "1-0",
            GameResult::Win {
                reason: WinReason::Checkmate,
                ..
            } => "0-1",
            GameResult::Win {
                winner: 0,
                reason: WinReason::Stalemate,
            } => "3/4-1/4",
            GameResult::Win {
                reason: WinReason::Stalemate,
                ..
            } => "1/4-3/4",
            GameResult::Draw(_) => "1/2-1/2",
        }
    }

    /// A short English description.
    pub fn description(&self, v: &Variant) -> String {
        match self {
            GameResult::Win { winner, reason } => {
                let w = &v.players[*winner].name;
                match reason {
                    WinReason::Checkmate => format!("{w} mates"),
                    WinReason::Stalemate => format!("{w} wins by stalemate"),
                }
            }
            GameResult::Draw(DrawReason::Stalemate) => "stalemate".into(),
            GameResult::Draw(DrawReason::Repetition) => "threefold repetition".into(),
            GameResult::Draw(DrawReason::FiftyMoves) => "fifty-move rule".into(),
            GameResult::Draw(DrawReason::DeadPosition) => "insufficient material".into(),
        }
    }
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
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionError::MissingField(s) => write!(f, "missing field: {s}"),
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

/// A position of a variant.
#[derive(Clone)]
pub struct Position {
    variant: Arc<Variant>,
    board: Vec<Piece>,
    /// Bitboards: one per player, then one per kind, then all occupied.
    bits: Vec<u64>,
    words: usize,
    royal: ArrayVec<u16, 16>,
    to_move: usize,
    castling: CastlingRights,
    ep: Option<EnPassant>,
    halfmove: u32,
    fullmove: u32,
    hash: u64,
    stack: Vec<Undo>,
    /// Hashes of the positions before each move of `stack`.
    history: Vec<u64>,
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({} {})", self.variant.spec, self.to_text())
    }
}

impl Position {
    fn empty(v: &Arc<Variant>) -> Position {
        let cells = v.geometry.cell_count();
        let words = v.geometry.words();
        let sets = v.players.len() + v.kinds.len() + 1;
        Position {
            variant: v.clone(),
            board: vec![EMPTY; cells],
            bits: vec![0; sets * words],
            words,
            royal: (0..v.players.len()).map(|_| NO_CELL).collect(),
            to_move: 0,
            castling: CastlingRights::new(),
            ep: None,
            halfmove: 0,
            fullmove: 1,
            hash: v.zobrist.side[0],
            stack: Vec::new(),
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
            pos.castling.push(rook as u16);
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

    /// The whole board, indexed by cell.
    #[inline(always)]
    pub fn board(&self) -> &[Piece] {
        &self.board
    }

    /// The first word of set `i` (players, then kinds, then all occupied):
    /// the whole set on boards of at most 64 cells.
    #[inline(always)]
    pub fn set_word(&self, i: usize) -> u64 {
        self.bits[i * self.words]
    }

    /// Cells occupied by `player`, as bitboard words.
    #[inline(always)]
    pub fn player_bits(&self, player: usize) -> &[u64] {
        &self.bits[player * self.words..(player + 1) * self.words]
    }

    /// Cells occupied by pieces of `kind` (any player), as bitboard words.
    #[inline(always)]
    pub fn kind_bits(&self, kind: usize) -> &[u64] {
        let i = self.variant.players.len() + kind;
        &self.bits[i * self.words..(i + 1) * self.words]
    }

    /// All occupied cells, as bitboard words.
    #[inline(always)]
    pub fn occupied_bits(&self) -> &[u64] {
        let i = self.variant.players.len() + self.variant.kinds.len();
        &self.bits[i * self.words..(i + 1) * self.words]
    }

    /// Cells of `player`'s pieces.
    pub fn player_cells(&self, player: usize) -> Cells<'_> {
        Cells::new(self.player_bits(player))
    }

    /// The royal piece's cell of `player`, if it has one.
    #[inline(always)]
    pub fn royal_cell(&self, player: usize) -> Option<Cell> {
        match self.royal[player] {
            NO_CELL => None,
            c => Some(c as usize),
        }
    }

    /// The player to move.
    #[inline(always)]
    pub fn to_move(&self) -> usize {
        self.to_move
    }

    /// Castling rights (cells of rooks that may castle).
    pub fn castling(&self) -> &[u16] {
        &self.castling
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

    /// Number of moves made since the position was set up.
    pub fn ply_count(&self) -> usize {
        self.stack.len()
    }

    /// The moves made since the position was set up.
    pub fn moves_made(&self) -> impl Iterator<Item = Move> + '_ {
        self.stack.iter().map(|u| u.mv)
    }

    /// The player after `p` in move order.
    #[inline(always)]
    pub fn next_player(&self, p: usize) -> usize {
        (p + 1) % self.variant.players.len()
    }

    #[inline(always)]
    fn put(&mut self, cell: Cell, p: Piece) {
        let v = &*self.variant;
        let w = self.words;
        let (player, kind) = (piece_player(p), piece_kind(p));
        let (word, bit) = (cell >> 6, 1u64 << (cell & 63));
        let kind_base = (v.players.len() + kind) * w;
        let occ_base = (v.players.len() + v.kinds.len()) * w;
        self.board[cell] = p;
        self.bits[player * w + word] |= bit;
        self.bits[kind_base + word] |= bit;
        self.bits[occ_base + word] |= bit;
        self.hash ^= v.zobrist.piece(cell, p);
        if v.royal_kind == Some(kind) {
            self.royal[player] = cell as u16;
        }
    }

    #[inline(always)]
    fn remove(&mut self, cell: Cell) -> Piece {
        let v = &*self.variant;
        let p = self.board[cell];
        let w = self.words;
        let (player, kind) = (piece_player(p), piece_kind(p));
        let (word, bit) = (cell >> 6, !(1u64 << (cell & 63)));
        let kind_base = (v.players.len() + kind) * w;
        let occ_base = (v.players.len() + v.kinds.len()) * w;
        self.board[cell] = EMPTY;
        self.bits[player * w + word] &= bit;
        self.bits[kind_base + word] &= bit;
        self.bits[occ_base + word] &= bit;
        self.hash ^= v.zobrist.piece(cell, p);
        if v.royal_kind == Some(kind) && self.royal[player] == cell as u16 {
            self.royal[player] = NO_CELL;
        }
        p
    }

    /// Plays a move produced by the move generator for this position.
    pub fn make(&mut self, m: Move) {
        let us = self.to_move;
        let from = m.from as usize;
        let to = m.to as usize;
        let moving = self.board[from];
        let mut undo = Undo {
            mv: m,
            moved: moving,
            captured: EMPTY,
            castling: self.castling.clone(),
            ep: self.ep,
            halfmove: self.halfmove,
            hash: self.hash,
        };
        self.history.push(self.hash);
        if let Some(ep) = self.ep.take() {
            self.hash ^= self.variant.zobrist.ep[ep.target as usize];
        }
        let mut irreversible = m.kind == MoveKind::Null || self.variant.is_pawn(piece_kind(moving));
        match m.kind {
            MoveKind::Null => {}
            MoveKind::Castle => {
                let rook = self.remove(m.aux as usize);
                let king = self.remove(from);
                self.put(to, king);
                self.put(m.aux2 as usize, rook);
            }
            MoveKind::EnPassant => {
                undo.captured = self.remove(m.aux as usize);
                self.remove(from);
                self.put(to, moving);
            }
            MoveKind::Normal | MoveKind::DoubleStep => {
                if self.board[to] != EMPTY {
                    undo.captured = self.remove(to);
                    irreversible = true;
                }
                self.remove(from);
                let placed = match m.promotion_kind() {
                    Some(k) => piece(us, k),
                    None => moving,
                };
                self.put(to, placed);
                if m.kind == MoveKind::DoubleStep && self.ep_capturable(us, m.aux as usize) {
                    self.ep = Some(EnPassant {
                        target: m.aux,
                        pawn: m.to,
                    });
                    self.hash ^= self.variant.zobrist.ep[m.aux as usize];
                }
            }
        }
        if !self.castling.is_empty() && m.kind != MoveKind::Null {
            let royal_moved = self.variant.royal_kind == Some(piece_kind(moving));
            let mut i = 0;
            while i < self.castling.len() {
                let c = self.castling[i] as usize;
                let occupant = self.board[c];
                let lost = c == from
                    || c == to
                    || (royal_moved && occupant != EMPTY && piece_player(occupant) == us)
                    || (m.kind == MoveKind::Castle && c == m.aux as usize);
                if lost {
                    self.hash ^= self.variant.zobrist.castle[c];
                    self.castling.remove(i);
                } else {
                    i += 1;
                }
            }
        }
        self.halfmove = if irreversible { 0 } else { self.halfmove + 1 };
        self.hash ^= self.variant.zobrist.side[us];
        self.to_move = self.next_player(us);
        self.hash ^= self.variant.zobrist.side[self.to_move];
        if self.to_move == 0 {
            self.fullmove += 1;
        }
        self.stack.push(undo);
    }

    /// Takes back the last move.
    pub fn unmake(&mut self) {
        let Some(undo) = self.stack.pop() else {
            return;
        };
        self.history.pop();
        let m = undo.mv;
        if self.to_move == 0 {
            self.fullmove -= 1;
        }
        let us = (self.to_move + self.variant.players.len() - 1) % self.variant.players.len();
        self.to_move = us;
        let from = m.from as usize;
        let to = m.to as usize;
        match m.kind {
            MoveKind::Null => {}
            MoveKind::Castle => {
                let rook = self.remove(m.aux2 as usize);
                let king = self.remove(to);
                self.put(from, king);
                self.put(m.aux as usize, rook);
            }
            MoveKind::EnPassant => {
                let pawn = self.remove(to);
                self.put(from, pawn);
                self.put(m.aux as usize, undo.captured);
            }
            MoveKind::Normal | MoveKind::DoubleStep => {
                self.remove(to);
                self.put(from, undo.moved);
                if undo.captured != EMPTY {
                    self.put(to, undo.captured);
                }
            }
        }
        self.castling = undo.castling;
        self.ep = undo.ep;
        self.halfmove = undo.halfmove;
        self.hash = undo.hash;
    }

    /// Whether some enemy of `mover` has a pawn that could capture onto
    /// `target` (en passant is only recorded when it could be used, so that
    /// equal positions hash equally).
    fn ep_capturable(&self, mover: usize, target: Cell) -> bool {
        let v = &self.variant;
        for q in 0..v.players.len() {
            if !v.enemies(mover, q) {
                continue;
            }
            for k in 0..v.kinds.len() {
                if !v.is_pawn(k) {
                    continue;
                }
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

    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        crate::rules::movegen::in_check(self)
    }

    /// Legal moves of the side to move.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::new();
        crate::rules::movegen::legal_moves(self, &mut out);
        out
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

    /// The game result if the game is over (mate, stalemate, repetition,
    /// fifty moves, dead position).
    pub fn outcome(&self) -> Option<GameResult> {
        let v = &self.variant;
        let has_move = !self.legal_moves().is_empty();
        if !has_move {
            let loser = self.to_move;
            let winner = (0..v.players.len())
                .find(|&p| v.enemies(p, loser))
                .unwrap_or(loser);
            if self.in_check() {
                return Some(GameResult::Win {
                    winner,
                    reason: WinReason::Checkmate,
                });
            }
            return Some(match v.rules.stalemate {
                StalemateRule::Draw => GameResult::Draw(DrawReason::Stalemate),
                StalemateRule::StalematedLoses => GameResult::Win {
                    winner,
                    reason: WinReason::Stalemate,
                },
            });
        }
        if self.only_kings() {
            return Some(GameResult::Draw(DrawReason::DeadPosition));
        }
        if v.rules.fifty_move && self.halfmove >= 100 {
            return Some(GameResult::Draw(DrawReason::FiftyMoves));
        }
        if self.repetitions() >= 3 {
            return Some(GameResult::Draw(DrawReason::Repetition));
        }
        None
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

    /// The pieces on the board as (coordinates, player, upper-case letter).
    pub fn placement(&self) -> Vec<(Vec<i32>, usize, char)> {
        let g = &self.variant.geometry;
        (0..g.cell_count())
            .filter(|&c| self.board[c] != EMPTY)
            .map(|c| {
                let p = self.board[c];
                (
                    g.coords(c).iter().map(|&x| x as i32).collect(),
                    piece_player(p),
                    self.variant.kinds[piece_kind(p)].letter,
                )
            })
            .collect()
    }

    /// Whether castling moves are written king-takes-rook (Chess960).
    pub fn king_takes_rook(&self) -> bool {
        self.variant.name == "chess960"
    }

    /// The move in ASCII coordinate notation (UCI on 2-D boards): cells
    /// from docs/notation.md, lower-case promotion letter; castling as the
    /// king's move, or king-takes-rook when `king_takes_rook` is set.
    pub fn move_text(&self, m: Move, king_takes_rook: bool) -> String {
        let g = &self.variant.geometry;
        let to = if m.kind == MoveKind::Castle && king_takes_rook {
            m.aux
        } else {
            m.to
        };
        let mut s = g.cell_name(m.from as usize);
        s.push_str(&g.cell_name(to as usize));
        if let Some(k) = m.promotion_kind() {
            s.push(self.variant.kinds[k].letter.to_ascii_lowercase());
        }
        s
    }

    /// Finds the legal move written as `text` (either castling form).
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let g = &self.variant.geometry;
        let text = text.trim();
        let (from, used) = g
            .parse_cell_prefix(text)
            .ok_or_else(|| MoveError::Syntax(text.to_string()))?;
        let rest = &text[used..];
        let (to, used2) = g
            .parse_cell_prefix(rest)
            .ok_or_else(|| MoveError::Syntax(text.to_string()))?;
        let promo_text = &rest[used2..];
        let promotion = match promo_text.chars().collect::<Vec<_>>().as_slice() {
            [] => None,
            [c] => Some(
                self.variant
                    .kind_by_letter(*c)
                    .ok_or_else(|| MoveError::Syntax(text.to_string()))?,
            ),
            _ => return Err(MoveError::Syntax(text.to_string())),
        };
        let moves = self.legal_moves();
        let matches = |m: &Move| {
            m.from as usize == from
                && m.promotion_kind() == promotion
                && (m.to as usize == to || (m.kind == MoveKind::Castle && m.aux as usize == to))
        };
        // A normal move takes precedence over a castling written the same.
        moves
            .iter()
            .find(|m| matches(m) && m.kind != MoveKind::Castle)
            .or_else(|| moves.iter().find(|m| matches(m)))
            .copied()
            .ok_or_else(|| MoveError::Illegal(text.to_string()))
    }

    /// The position text (FEN on 2-D boards; docs/notation.md).
    pub fn to_text(&self) -> String {
        crate::rules::notation::position_to_text(self)
    }

    /// Reads a position text for variant `v`.
    pub fn from_text(v: &Arc<Variant>, text: &str) -> Result<Position, PositionError> {
        crate::rules::notation::position_from_text(v, text)
    }

    /// Sets up a position from parts already checked by the notation
    /// reader; runs the legality checks that need the whole position.
    pub(crate) fn from_parts(
        v: &Arc<Variant>,
        pieces: &[(Cell, Piece)],
        to_move: usize,
        castling: &[Cell],
        ep_target: Option<Cell>,
        halfmove: u32,
        fullmove: u32,
    ) -> Result<Position, PositionError> {
        let mut pos = Position::empty(v);
        pos.hash ^= v.zobrist.side[0];
        pos.to_move = to_move;
        pos.hash ^= v.zobrist.side[to_move];
        for &(c, p) in pieces {
            pos.put(c, p);
        }
        if let Some(k) = v.royal_kind {
            for (pl, player) in v.players.iter().enumerate() {
                let kings = Cells::new(pos.player_bits(pl))
                    .filter(|&c| piece_kind(pos.board[c]) == k)
                    .count();
                if kings != 1 {
                    return Err(PositionError::Illegal(format!(
                        "{} has {kings} kings, needs exactly one",
                        player.name
                    )));
                }
            }
        }
        for (c, p) in pieces {
            let pl = piece_player(*p);
            if v.is_pawn(piece_kind(*p)) && v.promotion_zone[pl].contains(*c) {
                return Err(PositionError::Illegal(format!(
                    "a pawn of {} stands on its promotion cell {}",
                    v.players[pl].name,
                    v.geometry.cell_name(*c)
                )));
            }
        }
        for &rook in castling {
            let p = pos.board[rook];
            let ok = p != EMPTY
                && v.kinds[piece_kind(p)].letter == 'R'
                && v.rules.castling != CastlingStyle::None
                && pos
                    .royal_cell(piece_player(p))
                    .is_some_and(|k| v.geometry.coord(k, 0) == v.geometry.coord(rook, 0));
            if !ok {
                return Err(PositionError::Castling(format!(
                    "no rook that can castle on {}",
                    v.geometry.cell_name(rook)
                )));
            }
            if !pos.castling.contains(&(rook as u16)) {
                pos.castling.push(rook as u16);
                pos.hash ^= v.zobrist.castle[rook];
            }
        }
        if let Some(target) = ep_target {
            let ep = pos.find_ep_pawn(target).ok_or_else(|| {
                PositionError::EnPassant(format!(
                    "no pawn just passed {}",
                    v.geometry.cell_name(target)
                ))
            })?;
            let mover = piece_player(pos.board[ep.pawn as usize]);
            if pos.ep_capturable(mover, target) {
                pos.ep = Some(ep);
                pos.hash ^= v.zobrist.ep[target];
            }
        }
        pos.halfmove = halfmove;
        pos.fullmove = fullmove.max(1);
        // The player who moved last may not have left its king attacked.
        let players = v.players.len();
        let last = (to_move + players - 1) % players;
        if last != to_move && crate::rules::movegen::player_in_check(&pos, last) {
            return Err(PositionError::Illegal(format!(
                "{} is in check but it is not its turn",
                v.players[last].name
            )));
        }
        Ok(pos)
    }

    /// The pawn that double-stepped across `target`, if the position shows
    /// one (the previous player's pawn beyond the target, empty start cell).
    fn find_ep_pawn(&self, target: Cell) -> Option<EnPassant> {
        let v = &self.variant;
        let g = &v.geometry;
        if !v.rules.en_passant || self.board[target] != EMPTY {
            return None;
        }
        let players = v.players.len();
        let last = (self.to_move + players - 1) % players;
        for k in 0..v.kinds.len() {
            let Some(rule) = &v.kinds[k].pawn else {
                continue;
            };
            if !rule.double_step {
                continue;
            }
            for push in &rule.pushes {
                let d = v.players[last].orient(push);
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

    /// The previous position's hashes (oldest first), for repetition checks
    /// by the search.
    pub fn hash_history(&self) -> &[u64] {
        &self.history
    }
}

/// Errors reading a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// Not a move in the board's notation.
    Syntax(String),
    /// Well-formed but not legal here.
    Illegal(String),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(s) => write!(f, "cannot read move '{s}'"),
            MoveError::Illegal(s) => write!(f, "illegal move '{s}'"),
        }
    }
}

impl std::error::Error for MoveError {}
