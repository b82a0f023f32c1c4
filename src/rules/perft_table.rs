//! Perft with a transposition table (`ndchess perft --hash MB`): the count
//! below a position depends only on the position and the depth left, so
//! positions reached again by other move orders are counted once.
//!
//! The table is shared by all threads without locks: each slot holds the
//! key XOR the count beside the count (Hyatt and Mann's lockless hashing),
//! so a slot torn by two threads writing at once reads as a miss, never
//! as a wrong count. The key is the position's 64-bit Zobrist hash (turn,
//! castling and en-passant rights included) mixed with the depth; a false
//! hit needs two different positions with one 64-bit key at one depth,
//! about one in 10⁹ over 10¹⁰ probes. Slots are replaced when the new
//! count is larger (deeper subtrees are worth more). The last ply is
//! counted in bulk and not stored.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::rules::movegen::{MoveGen, with_generator};
use crate::rules::moves::Move;
use crate::rules::position::Position;

/// A perft transposition table.
pub struct PerftTable {
    slots: Vec<[AtomicU64; 2]>,
    mask: usize,
}

/// Largest table, MiB.
pub const MAX_HASH_MB: usize = 1 << 20;

impl PerftTable {
    /// A table of about `mb` MiB (a power of two of 16-byte slots; at
    /// least one slot).
    pub fn new(mb: usize) -> PerftTable {
        let bytes = mb.clamp(1, MAX_HASH_MB) << 20;
        let slots = (bytes / 16).next_power_of_two() / 2;
        let slots = slots.max(1);
        PerftTable {
            slots: (0..slots)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
            mask: slots - 1,
        }
    }

    #[inline]
    fn key(hash: u64, depth: u32) -> u64 {
        hash ^ (depth as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    /// The stored count of `hash` at `depth`, if any.
    #[inline]
    pub fn probe(&self, hash: u64, depth: u32) -> Option<u64> {
        let key = Self::key(hash, depth);
        let slot = &self.slots[key as usize & self.mask];
        let (k, n) = (
            slot[0].load(Ordering::Relaxed),
            slot[1].load(Ordering::Relaxed),
        );
        (n != 0 && k ^ n == key).then_some(n)
    }

    /// Stores a count.
    #[inline]
    pub fn store(&self, hash: u64, depth: u32, nodes: u64) {
        let key = Self::key(hash, depth);
        let slot = &self.slots[key as usize & self.mask];
        if nodes >= slot[1].load(Ordering::Relaxed) {
            slot[0].store(key ^ nodes, Ordering::Relaxed);
            slot[1].store(nodes, Ordering::Relaxed);
        }
    }
}

fn inner(
    pos: &mut Position,
    depth: u32,
    g: &mut MoveGen,
    lists: &mut [Vec<Move>],
    table: &PerftTable,
) -> u64 {
    let (list, rest) = lists
        .split_first_mut()
        .expect("invariant: one move list per remaining ply");
    if depth == 1 {
        return g.count(pos, list) as u64;
    }
    let hash = pos.hash();
    if let Some(n) = table.probe(hash, depth) {
        return n;
    }
    g.generate(pos, list);
    let mut nodes = 0;
    for &m in list.iter() {
        pos.make(m);
        nodes += inner(pos, depth - 1, g, rest, table);
        pos.unmake();
    }
    table.store(hash, depth, nodes);
    nodes
}

/// Perft of `pos` to `depth` with the shared `table`.
pub fn perft_hashed(pos: &mut Position, depth: u32, table: &PerftTable) -> u64 {
    if depth == 0 {
        return 1;
    }
    let v = pos.variant().clone();
    let mut lists = vec![Vec::new(); depth as usize];
    with_generator(&v, |g| inner(pos, depth, g, &mut lists, table))
}
