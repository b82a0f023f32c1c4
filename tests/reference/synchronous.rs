//! Synchronous chess (seed 004, RULES §2.11) for the reference generator,
//! written from the seed's rules (a)–(d) on top of the reference's
//! two-player positions: each side's moves are the reference's legal moves
//! with that side to move and no en passant, and a joint decision is
//! resolved cell by cell from the seed's sentences. Nothing here comes
//! from `src/`.
//!
//! State beyond the board: the exchange phase's open cells (cell, side who
//! may capture there next) and the cells of pieces that moved in the phase.

use std::collections::BTreeSet;

use super::{Kind, Move, Position, Special, WHITE};

/// A decision of one side: a move, or a pass (exchange phase only).
pub type Decision = Option<Move>;

/// A synchronous-chess position.
#[derive(Clone, Debug)]
pub struct SyncPosition {
    /// Board and castling rights (its `to_move` and `ep` are ignored).
    pub pos: Position,
    /// Open exchanges: (cell, side who may capture there next).
    pub open: Vec<(usize, usize)>,
    /// Cells where a piece that moved in the exchange phase stands.
    pub moved: Vec<usize>,
    /// Sides whose king was captured.
    pub kings_lost: Vec<usize>,
}

impl SyncPosition {
    /// The base position, main phase.
    pub fn new(mut pos: Position) -> SyncPosition {
        pos.ep = None;
        SyncPosition {
            pos,
            open: Vec::new(),
            moved: Vec::new(),
            kings_lost: Vec::new(),
        }
    }

    fn as_side(&self, side: usize) -> Position {
        let mut p = self.pos.clone();
        p.to_move = side;
        p.ep = None;
        p
    }

    /// "... kann es als Folge der synchronen Züge dennoch dazu kommen, das
    /// ein König ... direkt geschlagen wird": the game ends there.
    pub fn over(&self) -> bool {
        !self.kings_lost.is_empty()
    }

    /// Whether the exchange phase is on.
    pub fn in_exchange(&self) -> bool {
        !self.open.is_empty()
    }

    /// The choices of `side`: in the main phase its legal moves with the
    /// enemy standing still; in the exchange phase a pass and its legal
    /// captures onto cells where it holds the right, by pieces that have
    /// not moved in the phase.
    pub fn options(&self, side: usize) -> Vec<Decision> {
        let p = self.as_side(side);
        if !self.in_exchange() {
            return p.legal_moves().into_iter().map(Some).collect();
        }
        let mut out: Vec<Decision> = vec![None];
        let cells: Vec<usize> = self
            .open
            .iter()
            .filter(|&&(_, s)| s == side)
            .map(|&(c, _)| c)
            .collect();
        if cells.is_empty() {
            return out;
        }
        for m in p.legal_moves() {
            let ordinary = matches!(m.special, Special::None);
            if ordinary
                && cells.contains(&m.to)
                && !self.moved.contains(&m.from)
                && p.board.get(&m.to).is_some()
            {
                out.push(Some(m));
            }
        }
        out
    }

    /// Every joint decision (white's, black's); empty when the game is
    /// over (a king captured, or a side without a move in the main phase).
    pub fn joint_decisions(&self) -> Vec<(Decision, Decision)> {
        if self.over() {
            return Vec::new();
        }
        let w = self.options(WHITE);
        let b = self.options(1 - WHITE);
        let mut out = Vec::new();
        for &x in &w {
            for &y in &b {
                out.push((x, y));
            }
        }
        out
    }

    /// Whether `side` has a legal capture onto `cell` by a piece that has
    /// not moved in the exchange phase.
    fn can_capture(&self, side: usize, cell: usize, moved: &[usize]) -> bool {
        let p = self.as_side(side);
        match p.board.get(&cell) {
            Some(piece) if piece.owner != side => {}
            _ => return false,
        }
        p.legal_moves()
            .into_iter()
            .any(|m| matches!(m.special, Special::None) && m.to == cell && !moved.contains(&m.from))
    }

    /// Plays a joint decision, following the seed's rules (a)–(d).
    pub fn play(&mut self, white: Decision, black: Decision) {
        let before = self.pos.clone();
        let main = !self.in_exchange();
        // Every moving piece: (side, from, to, piece placed).
        let mut leaving = Vec::new();
        let mut landing = Vec::new();
        let mut rights_lost = Vec::new();
        for (side, d) in [(WHITE, white), (1 - WHITE, black)] {
            let Some(m) = d else { continue };
            let piece = before.board[&m.from];
            leaving.push(m.from);
            let placed = super::Piece {
                owner: side,
                kind: m.promotion.unwrap_or(piece.kind),
            };
            landing.push((m.to, placed));
            rights_lost.push((side, m.from, m.to, piece.kind == Kind::King));
            if let Special::Castle { rook_from, rook_to } = m.special {
                leaving.push(rook_from);
                landing.push((rook_to, before.board[&rook_from]));
                rights_lost.push((side, rook_from, rook_to, false));
            }
        }
        for c in &leaving {
            self.pos.board.remove(c);
        }
        let targets: BTreeSet<usize> = landing.iter().map(|&(c, _)| c).collect();
        for &cell in &targets {
            let here: Vec<super::Piece> = landing
                .iter()
                .filter(|&&(c, _)| c == cell)
                .map(|&(_, p)| p)
                .collect();
            // (a) a piece standing there that did not move is captured.
            if let Some(victim) = self.pos.board.remove(&cell)
                && victim.kind == Kind::King
            {
                self.kings_lost.push(victim.owner);
            }
            if here.len() == 1 {
                // (a) / (b): the mover takes the cell.
                self.pos.board.insert(cell, here[0]);
            } else {
                // (c) "so sind diese Figuren beide geschlagen".
                for p in here {
                    if p.kind == Kind::King {
                        self.kings_lost.push(p.owner);
                    }
                }
            }
        }
        for (side, from, to, king) in rights_lost {
            self.pos
                .castling_rights
                .retain(|&(owner, cell)| cell != from && cell != to && !(king && owner == side));
        }
        // (d) the exchange phase.
        let survivors: Vec<(usize, super::Piece)> = landing
            .iter()
            .filter(|&&(c, p)| self.pos.board.get(&c) == Some(&p))
            .copied()
            .collect();
        let mut moved = if main { Vec::new() } else { self.moved.clone() };
        if !main {
            for &(c, _) in &survivors {
                if !moved.contains(&c) {
                    moved.push(c);
                }
            }
        }
        let mut open = Vec::new();
        if self.kings_lost.is_empty() {
            for &(cell, p) in &survivors {
                let enemy = 1 - p.owner;
                // Main phase: "bereits vor diesem Zuggang von mindestens
                // einer Figur des anderen Spielers angegriffen oder
                // gedeckt"; in the phase, any capture may be answered.
                let right = !main || before.attacked(cell, enemy);
                if right && self.can_capture(enemy, cell, &moved) {
                    open.push((cell, enemy));
                }
            }
        }
        self.open = open;
        self.moved = if self.open.is_empty() {
            Vec::new()
        } else {
            moved
        };
    }

    /// Leaves of the joint-decision tree of the given depth.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let all = self.joint_decisions();
        let all: Vec<_> = if self.in_exchange() {
            all
        } else {
            // Main phase: a side without a move ends the game.
            if self.options(WHITE).is_empty() || self.options(1 - WHITE).is_empty() {
                return 0;
            }
            all
        };
        if depth == 1 {
            return all.len() as u64;
        }
        all.into_iter()
            .map(|(w, b)| {
                let mut next = self.clone();
                next.play(w, b);
                next.perft(depth - 1)
            })
            .sum()
    }
}
