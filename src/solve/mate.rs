//! Forced mate in N (T16): a proof, not a guess. The side to move must
//! mate within N of its moves against every defence.
//!
//! An AND/OR search to fixed depth, iteratively deepened so the first
//! proof found is the shortest: at the attacker's turn one move must
//! force the mate, at the defender's turn every move must lose to it; a
//! defender without a move is mated (in check) or has escaped (stalemate
//! is no mate, whatever the variant scores it). Proved and refuted
//! (position, moves left) pairs are remembered, keyed by the position's
//! hash and a second independent hash of the board, so a transposition
//! never repeats work; since a mate in n is also a mate in any more
//! moves, the least proven and largest refuted depths per position are
//! enough. Checks are tried first, and the defender's replies that
//! escape a shallower search first. Nothing is pruned on a guess: every
//! "no mate" is refuted move by move.

use std::collections::HashMap;

use crate::board::seating::TurnOrder;
use crate::rules::moves::Move;
use crate::rules::position::Position;

use super::SolveError;

/// The outcome of a mate search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MateProof {
    /// The shortest forced mate in moves of the side to move, if one
    /// exists within the asked number.
    pub moves: Option<u32>,
    /// The mating line (best defence): attacker's and defender's moves
    /// alternating, ending with the mate.
    pub line: Vec<Move>,
    /// Positions visited.
    pub nodes: u64,
}

/// Known results per position: the fewest moves a mate was proven in,
/// the most moves it was refuted for.
#[derive(Clone, Copy, Debug)]
struct Known {
    proven: u32,
    refuted: u32,
}

struct Search {
    known: HashMap<(u64, u64), Known>,
    nodes: u64,
    budget: u64,
}

fn board_key(pos: &Position) -> u64 {
    // FNV-1a over the board: a second key beside the Zobrist hash.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &p in pos.board() {
        h ^= p as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^ pos.to_move().index() as u64
}

impl Search {
    fn key(pos: &Position) -> (u64, u64) {
        (pos.hash(), board_key(pos))
    }

    fn count(&mut self) -> Result<(), SolveError> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return Err(SolveError::OutOfReach(format!(
                "no answer within {} nodes (raise --nodes)",
                self.budget
            )));
        }
        if self.nodes.is_multiple_of(1 << 20) {
            super::progress::tick("mate", self.nodes);
        }
        Ok(())
    }

    /// Whether the side to move mates within `n` moves.
    fn attack(&mut self, pos: &mut Position, n: u32) -> Result<bool, SolveError> {
        if n == 0 {
            return Ok(false);
        }
        let key = Self::key(pos);
        if let Some(k) = self.known.get(&key) {
            if k.proven <= n {
                return Ok(true);
            }
            if k.refuted >= n {
                return Ok(false);
            }
        }
        self.count()?;
        let moves = ordered_attacks(pos);
        let mut found = false;
        for m in moves {
            pos.make(m);
            let r = self.defend(pos, n);
            pos.unmake();
            if r? {
                found = true;
                break;
            }
        }
        let e = self.known.entry(key).or_insert(Known {
            proven: u32::MAX,
            refuted: 0,
        });
        if found {
            e.proven = e.proven.min(n);
        } else {
            e.refuted = e.refuted.max(n);
        }
        Ok(found)
    }

    /// Whether the side that just moved mates within `n` of its moves
    /// (the one just made included), against every reply.
    fn defend(&mut self, pos: &mut Position, n: u32) -> Result<bool, SolveError> {
        self.count()?;
        let replies = pos.legal_moves();
        if replies.is_empty() {
            return Ok(pos.in_check());
        }
        if n <= 1 {
            return Ok(false);
        }
        for r in replies {
            pos.make(r);
            let ok = self.attack(pos, n - 1);
            pos.unmake();
            if !ok? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The fewest moves (≤ n) in which the side to move mates, if any.
    fn shortest(&mut self, pos: &mut Position, n: u32) -> Result<Option<u32>, SolveError> {
        for k in 1..=n {
            if self.attack(pos, k)? {
                return Ok(Some(k));
            }
        }
        Ok(None)
    }
}

/// The attacker's moves, checks first.
fn ordered_attacks(pos: &mut Position) -> Vec<Move> {
    let moves = pos.legal_moves();
    let mut keyed: Vec<(bool, Move)> = moves
        .into_iter()
        .map(|m| {
            pos.make(m);
            let check = pos.in_check();
            pos.unmake();
            (!check, m)
        })
        .collect();
    keyed.sort_by_key(|&(quiet, _)| quiet);
    keyed.into_iter().map(|(_, m)| m).collect()
}

/// Proves or refutes a forced mate in at most `max_moves` moves for the
/// side to move of `pos`, visiting at most `budget` positions. Two seats
/// taking turns only.
pub fn prove_mate(pos: &Position, max_moves: u32, budget: u64) -> Result<MateProof, SolveError> {
    let v = pos.variant();
    if v.seat_count() != 2 || v.seating.turn_order() != TurnOrder::Rotate {
        return Err(SolveError::Parameter(format!(
            "mate search needs two players taking turns; {} has other seating",
            v.spec
        )));
    }
    if max_moves == 0 || max_moves > 64 {
        return Err(SolveError::Parameter(format!(
            "--moves {max_moves}: from 1 to 64"
        )));
    }
    let mut s = Search {
        known: HashMap::new(),
        nodes: 0,
        budget,
    };
    let mut p = pos.clone();
    let Some(k) = s.shortest(&mut p, max_moves)? else {
        return Ok(MateProof {
            moves: None,
            line: Vec::new(),
            nodes: s.nodes,
        });
    };
    // The line: a mating move at each turn, the longest defence at the
    // other.
    let mut line = Vec::new();
    let mut left = k;
    loop {
        let mut chosen = None;
        for m in ordered_attacks(&mut p) {
            p.make(m);
            let ok = s.defend(&mut p, left);
            if ok? {
                chosen = Some(m);
                break;
            }
            p.unmake();
        }
        let Some(m) = chosen else {
            break;
        };
        line.push(m);
        let replies = p.legal_moves();
        if replies.is_empty() || left == 1 {
            break;
        }
        let mut worst: Option<(u32, Move)> = None;
        for r in replies {
            p.make(r);
            let d = s.shortest(&mut p, left - 1);
            p.unmake();
            let d = d?.unwrap_or(left - 1);
            if worst.is_none_or(|(w, _)| d > w) {
                worst = Some((d, r));
            }
        }
        let Some((d, r)) = worst else { break };
        line.push(r);
        p.make(r);
        left = d;
    }
    Ok(MateProof {
        moves: Some(k),
        line,
        nodes: s.nodes,
    })
}
