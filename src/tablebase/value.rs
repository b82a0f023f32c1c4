//! The value of a table position for the side to move: win, draw or loss,
//! how the game ends (mate, or the stalemate that loses where the variant
//! says so: the cube's ¾ point), and the distance in plies.

use std::cmp::Ordering;
use std::fmt;

/// How a won game ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum End {
    /// Checkmate: the full point.
    Mate,
    /// The loser is stalemated and loses (¾–¼ in Schach hoch 3).
    Stalemate,
}

/// A table value, from the point of view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move forces the end `end` in `plies` plies (odd).
    Win { end: End, plies: u16 },
    /// Neither side can force a result.
    Draw,
    /// The side to move suffers the end `end` after `plies` plies at the
    /// latest (even; 0: it is mated or stalemated now).
    Loss { end: End, plies: u16 },
}

/// Largest distance a table stores.
pub const MAX_PLIES: u16 = (1 << 13) - 1;

/// Stored code of a position that is not in the table (illegal, or not
/// the canonical one of its symmetry class).
pub const BROKEN: u16 = 0xFFFF;
/// Stored code while generating: not decided yet.
pub const UNKNOWN: u16 = 0xFFFE;

const WIN: u16 = 1 << 14;
const LOSS: u16 = 2 << 14;
const STALE: u16 = 1 << 13;

impl Value {
    /// The value one ply earlier, for the side that moved into a position
    /// of value `self`.
    pub fn before_move(self) -> Value {
        match self {
            Value::Win { end, plies } => Value::Loss {
                end,
                plies: plies + 1,
            },
            Value::Loss { end, plies } => Value::Win {
                end,
                plies: plies + 1,
            },
            Value::Draw => Value::Draw,
        }
    }

    /// A number that orders values by preference of the side to move:
    /// mate wins (the quicker the better), stalemate wins, draws, stalemate
    /// losses (the later the better), mate losses.
    pub fn rank(self) -> i32 {
        match self {
            Value::Win {
                end: End::Mate,
                plies,
            } => 40_000 - plies as i32,
            Value::Win {
                end: End::Stalemate,
                plies,
            } => 30_000 - plies as i32,
            Value::Draw => 20_000,
            Value::Loss {
                end: End::Stalemate,
                plies,
            } => 10_000 + plies as i32,
            Value::Loss {
                end: End::Mate,
                plies,
            } => plies as i32,
        }
    }

    /// The stored code.
    pub fn code(self) -> u16 {
        let (tag, end, plies) = match self {
            Value::Draw => return 0,
            Value::Win { end, plies } => (WIN, end, plies),
            Value::Loss { end, plies } => (LOSS, end, plies),
        };
        tag | if end == End::Stalemate { STALE } else { 0 } | plies.min(MAX_PLIES)
    }

    /// The value of a stored code; `None` for [`BROKEN`], [`UNKNOWN`] and
    /// codes no value has.
    pub fn from_code(code: u16) -> Option<Value> {
        let end = if code & STALE != 0 {
            End::Stalemate
        } else {
            End::Mate
        };
        let plies = code & MAX_PLIES;
        match code >> 14 {
            0 if code == 0 => Some(Value::Draw),
            1 => Some(Value::Win { end, plies }),
            2 => Some(Value::Loss { end, plies }),
            _ => None,
        }
    }

    /// Moves to the end: the winner's moves including the last one, or the
    /// loser's moves before it.
    pub fn moves(self) -> u16 {
        match self {
            Value::Win { plies, .. } => plies.div_ceil(2),
            Value::Loss { plies, .. } => plies / 2,
            Value::Draw => 0,
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.moves();
        match self {
            Value::Draw => write!(f, "draw"),
            Value::Win { end: End::Mate, .. } => write!(f, "win, mate in {n}"),
            Value::Win {
                end: End::Stalemate,
                ..
            } => write!(f, "win by stalemate in {n}"),
            Value::Loss { end: End::Mate, .. } if n == 0 => write!(f, "loss, mated"),
            Value::Loss { end: End::Mate, .. } => write!(f, "loss, mated in {n}"),
            Value::Loss {
                end: End::Stalemate,
                ..
            } if n == 0 => write!(f, "loss, stalemated"),
            Value::Loss {
                end: End::Stalemate,
                ..
            } => write!(f, "loss by stalemate in {n}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_order() {
        let all = [
            Value::Win {
                end: End::Mate,
                plies: 1,
            },
            Value::Win {
                end: End::Mate,
                plies: 31,
            },
            Value::Win {
                end: End::Stalemate,
                plies: 3,
            },
            Value::Draw,
            Value::Loss {
                end: End::Stalemate,
                plies: 8,
            },
            Value::Loss {
                end: End::Mate,
                plies: 20,
            },
            Value::Loss {
                end: End::Mate,
                plies: 0,
            },
        ];
        for w in all.windows(2) {
            assert!(w[0] > w[1], "{:?} before {:?}", w[0], w[1]);
        }
        for v in all {
            assert_eq!(Value::from_code(v.code()), Some(v));
            assert_ne!(v.code(), BROKEN);
            assert_ne!(v.code(), UNKNOWN);
        }
        assert_eq!(Value::from_code(BROKEN), None);
        assert_eq!(Value::from_code(UNKNOWN), None);
    }
}
