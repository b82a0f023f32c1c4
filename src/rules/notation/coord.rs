//! Moves in ASCII coordinates, as UCI and XBoard carry them: the start
//! and destination cells in the names of docs/notation.md, then the
//! lower-case letter of a promotion (`e2e4`, `e7e8q`, `Dd2Dd4`, `b1ab2a`).
//! Castling is the king's move, or king-takes-rook (`e1h1`) in the
//! Chess960 convention.

use std::fmt;

use crate::rules::moves::{Move, MoveKind};
use crate::rules::position::Position;

/// Errors reading a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// Not a move in the board's notation.
    Syntax(String),
    /// Well-formed but not legal here.
    Illegal(String),
    /// A multi-party game: a move with a piece of a seat that does not
    /// move now (`owner` is out of the game when `out`).
    OtherSeat {
        /// The move as written.
        text: String,
        /// The seat whose piece it is.
        owner: String,
        /// Whether that seat is out of the game.
        out: bool,
        /// The seat to move.
        to_move: String,
    },
    /// A multi-party game: the step out (`0000`) by a seat that has a
    /// legal move.
    NotStuck {
        /// The seat to move.
        to_move: String,
    },
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(s) => write!(f, "cannot read move '{s}'"),
            MoveError::Illegal(s) => write!(f, "illegal move '{s}'"),
            MoveError::OtherSeat {
                text,
                owner,
                out,
                to_move,
            } => {
                if *out {
                    write!(
                        f,
                        "illegal move '{text}': a piece of {owner}, which is out of the game; {to_move} is to move"
                    )
                } else {
                    write!(
                        f,
                        "illegal move '{text}': a piece of {owner}, but {to_move} is to move"
                    )
                }
            }
            MoveError::NotStuck { to_move } => write!(
                f,
                "illegal move '0000': {to_move} has a legal move (a seat steps out only without one)"
            ),
        }
    }
}

impl std::error::Error for MoveError {}

/// The coordinate text of the step of a seat that leaves a multi-party
/// game without a legal move ([`MoveKind::Out`]): UCI's null move.
pub const OUT_TEXT: &str = "0000";

impl Position {
    /// Whether the variant writes castling king-takes-rook (Chess960).
    pub fn king_takes_rook(&self) -> bool {
        self.variant().fischer_random_notation
    }

    /// The move in ASCII coordinate notation (UCI on 2-D boards): cells
    /// from docs/notation.md, lower-case promotion letter; castling as the
    /// king's move, or king-takes-rook when `king_takes_rook` is set.
    pub fn move_text(&self, m: Move, king_takes_rook: bool) -> String {
        let v = self.variant();
        let g = &v.geometry;
        if m.kind == MoveKind::Out {
            return OUT_TEXT.into();
        }
        let to = if m.kind == MoveKind::Castle && king_takes_rook {
            m.aux
        } else {
            m.to
        };
        let mut s = g.cell_name(m.from as usize);
        s.push_str(&g.cell_name(to as usize));
        if let Some(k) = m.promotion_kind() {
            s.push(v.kinds[k].letter.to_ascii_lowercase());
        }
        s
    }

    /// Finds the legal move of the deciding seat(s) written as `text`
    /// (either castling form).
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        self.find_move(text, &self.legal_moves())
    }

    /// Finds the move written as `text` among `moves` (either castling
    /// form; a normal move wins over a castling written the same).
    pub fn find_move(&self, text: &str, moves: &[Move]) -> Result<Move, MoveError> {
        let v = self.variant();
        let g = &v.geometry;
        let text = text.trim();
        let party = v.rules.party.is_some();
        let to_move = || v.seating.name(self.to_move()).to_string();
        if text == OUT_TEXT || text.eq_ignore_ascii_case("out") {
            return moves
                .iter()
                .find(|m| m.kind == MoveKind::Out)
                .copied()
                .ok_or_else(|| {
                    if party && !moves.is_empty() {
                        MoveError::NotStuck { to_move: to_move() }
                    } else {
                        MoveError::Illegal(text.to_string())
                    }
                });
        }
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
                v.kind_by_letter(*c)
                    .ok_or_else(|| MoveError::Syntax(text.to_string()))?,
            ),
            _ => return Err(MoveError::Syntax(text.to_string())),
        };
        let matches = |m: &Move| {
            m.from as usize == from
                && m.promotion_kind() == promotion
                && (m.to as usize == to || (m.kind == MoveKind::Castle && m.aux as usize == to))
        };
        moves
            .iter()
            .find(|m| matches(m) && m.kind != MoveKind::Castle)
            .or_else(|| moves.iter().find(|m| matches(m)))
            .copied()
            .ok_or_else(|| match self.piece_seat_at(from) {
                Some(owner) if party && !self.movers().contains(owner) => MoveError::OtherSeat {
                    text: text.to_string(),
                    owner: v.seating.name(owner).to_string(),
                    out: self.out().contains(owner),
                    to_move: to_move(),
                },
                _ => MoveError::Illegal(text.to_string()),
            })
    }
}
