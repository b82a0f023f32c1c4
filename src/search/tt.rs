//! The transposition table, shared lock-free by all search threads.
//!
//! An entry is three 64-bit atomic words: a check word, and two data words
//! (move, depth, bound, age; score and static evaluation). The check word
//! stores `hash ^ data1 ^ data2`; a reader accepts an entry only when the
//! three words it read XOR back to the hash it looks for. A write torn by a
//! concurrent writer (words of two different entries) fails that test with
//! overwhelming probability and is treated as a miss, so no lock is needed
//! and a torn entry is never trusted. A move read from the table is in any
//! case only used after it is found among the legal moves of the position.
//!
//! Entries are grouped in buckets of four; a new entry replaces the same
//! position's entry, else the bucket's least valuable one: the shallowest,
//! with entries of earlier searches (older age) counting as 8 plies
//! shallower per search.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use crate::rules::moves::{Move, MoveKind};

use super::large_pages::LargeWords;
use super::score::Bound;

const ENTRY_WORDS: usize = 3;
const BUCKET: usize = 4;
/// Bytes per entry.
pub const ENTRY_BYTES: usize = ENTRY_WORDS * 8;
const VALID: u64 = 1 << 63;

/// The part of a move the table keeps: enough to find it again among the
/// legal moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveCode {
    /// Start cell.
    pub from: u16,
    /// Destination cell.
    pub to: u16,
    /// Promotion field of [`Move`].
    pub promotion: u8,
    /// Whether the move is a castling.
    pub castle: bool,
}

impl MoveCode {
    /// The code of a move.
    pub fn of(m: Move) -> MoveCode {
        MoveCode {
            from: m.from,
            to: m.to,
            promotion: m.promotion,
            castle: m.kind == MoveKind::Castle,
        }
    }

    /// Whether `m` is the move this code stands for.
    #[inline]
    pub fn matches(&self, m: &Move) -> bool {
        m.from == self.from
            && m.to == self.to
            && m.promotion == self.promotion
            && (m.kind == MoveKind::Castle) == self.castle
    }
}

/// An entry as read from the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    /// Best or refutation move, if one was found.
    pub mv: Option<MoveCode>,
    /// Remaining depth of the search that stored it.
    pub depth: i32,
    /// What `score` says.
    pub bound: Bound,
    /// Score, relative to the node (see `score::to_tt`).
    pub score: i32,
    /// Static evaluation of the node (or `NO_EVAL`).
    pub eval: i32,
}

impl TtEntry {
    /// The stored score, seen from a node `ply` plies below the root, if
    /// its bound settles the window `alpha..beta` (an exact score, a lower
    /// bound at or above `beta`, an upper bound at or below `alpha`).
    #[inline]
    pub fn cutoff(&self, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
        let s = super::score::from_tt(self.score, ply);
        let settles = match self.bound {
            Bound::Exact => true,
            Bound::Lower => s >= beta,
            Bound::Upper => s <= alpha,
        };
        settles.then_some(s)
    }
}

/// Marker for "no static evaluation stored".
pub const NO_EVAL: i32 = i32::MIN;

/// Whether the words `k, d1, d2` of a slot hold an intact entry of
/// `hash`: valid, and the key word is `hash ^ d1 ^ d2`, so a slot torn
/// by a concurrent write (words from two different stores) never matches.
#[inline]
fn holds(k: u64, d1: u64, d2: u64, hash: u64) -> bool {
    d1 & VALID != 0 && k ^ d1 ^ d2 == hash
}

fn pack(mv: Option<MoveCode>, depth: i32, bound: Bound, age: u8) -> u64 {
    let mut w = VALID;
    if let Some(m) = mv {
        w |= m.from as u64
            | (m.to as u64) << 16
            | ((m.promotion & 31) as u64) << 32
            | (m.castle as u64) << 37
            | 1 << 38;
    }
    let b = match bound {
        Bound::Lower => 1u64,
        Bound::Upper => 2,
        Bound::Exact => 3,
    };
    w | b << 39 | ((depth.clamp(-2, 253) + 2) as u64) << 41 | (age as u64) << 49
}

fn unpack(d1: u64, d2: u64) -> TtEntry {
    let mv = (d1 >> 38 & 1 == 1).then_some(MoveCode {
        from: d1 as u16,
        to: (d1 >> 16) as u16,
        promotion: (d1 >> 32 & 31) as u8,
        castle: d1 >> 37 & 1 == 1,
    });
    let bound = match d1 >> 39 & 3 {
        1 => Bound::Lower,
        2 => Bound::Upper,
        _ => Bound::Exact,
    };
    TtEntry {
        mv,
        depth: (d1 >> 41 & 0xFF) as i32 - 2,
        bound,
        score: d2 as u32 as i32,
        eval: (d2 >> 32) as u32 as i32,
    }
}

fn entry_depth(d1: u64) -> i32 {
    (d1 >> 41 & 0xFF) as i32 - 2
}

fn entry_age(d1: u64) -> u8 {
    (d1 >> 49) as u8
}

/// The shared table.
pub struct TranspositionTable {
    words: LargeWords,
    buckets: usize,
    age: AtomicU8,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TranspositionTable({} entries)", self.entries())
    }
}

impl TranspositionTable {
    /// A table of about `mb` mebibytes (at least one bucket, so `0` gives
    /// the smallest table).
    pub fn new(mb: usize) -> TranspositionTable {
        let entries = mb.saturating_mul(1 << 20) / ENTRY_BYTES;
        Self::with_buckets((entries / BUCKET).max(1))
    }

    /// A table of exactly `buckets` buckets of four entries.
    pub fn with_buckets(buckets: usize) -> TranspositionTable {
        let buckets = buckets.max(1);
        let words = LargeWords::zeroed(buckets * BUCKET * ENTRY_WORDS);
        TranspositionTable {
            words,
            buckets,
            age: AtomicU8::new(0),
        }
    }

    /// Number of entries.
    pub fn entries(&self) -> usize {
        self.buckets * BUCKET
    }

    /// Size in bytes.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// Empties the table (new game).
    pub fn clear(&self) {
        for w in self.words.iter() {
            w.store(0, Ordering::Relaxed);
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: entries stored before become one search older.
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, hash: u64) -> usize {
        ((hash as u128 * self.buckets as u128) >> 64) as usize * BUCKET * ENTRY_WORDS
    }

    /// The words of the bucket starting at word `b`: one bounds check
    /// for the bucket, none for the entries read in it.
    #[inline]
    fn bucket_words(&self, b: usize) -> &[AtomicU64; BUCKET * ENTRY_WORDS] {
        let words: &[AtomicU64] = &self.words[b..b + BUCKET * ENTRY_WORDS];
        // The slice has the array's length (the line above).
        words.try_into().expect("a bucket's words")
    }

    /// The words of entry `e` of a bucket.
    #[inline]
    fn read(bucket: &[AtomicU64; BUCKET * ENTRY_WORDS], e: usize) -> (u64, u64, u64) {
        let i = e * ENTRY_WORDS;
        (
            bucket[i].load(Ordering::Relaxed),
            bucket[i + 1].load(Ordering::Relaxed),
            bucket[i + 2].load(Ordering::Relaxed),
        )
    }

    /// Hint to the processor that `hash`'s bucket is needed soon: the
    /// search calls it right after making a move, so the bucket's cache
    /// line (the table is far larger than the caches) arrives while the
    /// child's first steps run, not when it probes.
    #[inline(always)]
    pub fn prefetch(&self, hash: u64) {
        let i = self.bucket(hash);
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            // SAFETY: SSE is part of the x86_64 baseline, and a prefetch
            // is a hint that neither faults nor changes memory (`i` and
            // `last` are a bucket's first and last words, inside the
            // table anyway). A bucket (96 bytes) spans two cache lines:
            // both are fetched.
            let last = i + BUCKET * ENTRY_WORDS - 1;
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(self.words[i].as_ptr() as *const i8);
                _mm_prefetch::<_MM_HINT_T0>(self.words[last].as_ptr() as *const i8);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// The entry of `hash`, if stored and intact.
    #[inline]
    pub fn probe(&self, hash: u64) -> Option<TtEntry> {
        let bucket = self.bucket_words(self.bucket(hash));
        for e in 0..BUCKET {
            let (k, d1, d2) = Self::read(bucket, e);
            if holds(k, d1, d2, hash) {
                return Some(unpack(d1, d2));
            }
        }
        None
    }

    /// Stores a result. A stored move of the same position is kept when
    /// the new result has none.
    pub fn store(
        &self,
        hash: u64,
        mv: Option<MoveCode>,
        depth: i32,
        bound: Bound,
        score: i32,
        eval: i32,
    ) {
        let age = self.age.load(Ordering::Relaxed);
        let bucket = self.bucket_words(self.bucket(hash));
        // The entry to replace, by its place in the bucket.
        let mut victim = 0;
        let mut victim_worth = i32::MAX;
        for e in 0..BUCKET {
            let (k, d1, d2) = Self::read(bucket, e);
            if d1 & VALID == 0 {
                if victim_worth > i32::MIN {
                    victim = e;
                    victim_worth = i32::MIN;
                }
                continue;
            }
            if holds(k, d1, d2, hash) {
                let old = unpack(d1, d2);
                // Keep a deeper result of this search unless the new one
                // is exact.
                if bound != Bound::Exact && old.depth > depth + 2 && entry_age(d1) == age {
                    return;
                }
                let mv = mv.or(old.mv);
                Self::write(bucket, e, hash, mv, depth, bound, score, eval, age);
                return;
            }
            let stale = age.wrapping_sub(entry_age(d1)) as i32;
            let worth = entry_depth(d1) - 8 * stale;
            if worth < victim_worth {
                victim = e;
                victim_worth = worth;
            }
        }
        Self::write(bucket, victim, hash, mv, depth, bound, score, eval, age);
    }

    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn write(
        bucket: &[AtomicU64; BUCKET * ENTRY_WORDS],
        e: usize,
        hash: u64,
        mv: Option<MoveCode>,
        depth: i32,
        bound: Bound,
        score: i32,
        eval: i32,
        age: u8,
    ) {
        let d1 = pack(mv, depth, bound, age);
        let d2 = score as u32 as u64 | (eval as u32 as u64) << 32;
        let entry = &bucket[e * ENTRY_WORDS..(e + 1) * ENTRY_WORDS];
        entry[0].store(hash ^ d1 ^ d2, Ordering::Relaxed);
        entry[1].store(d1, Ordering::Relaxed);
        entry[2].store(d2, Ordering::Relaxed);
    }

    /// Permille of the (first up to 1000) entries written by the current
    /// search: UCI's `hashfull`.
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed);
        let n = self.entries().min(1000);
        let used = (0..n)
            .filter(|&e| {
                let d1 = self.words[e * ENTRY_WORDS + 1].load(Ordering::Relaxed);
                d1 & VALID != 0 && entry_age(d1) == age
            })
            .count();
        (used * 1000 / n) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(from: u16, to: u16) -> MoveCode {
        MoveCode {
            from,
            to,
            promotion: 3,
            castle: true,
        }
    }

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        tt.store(
            0xDEAD_BEEF,
            Some(code(59_999, 12)),
            17,
            Bound::Lower,
            -299_990,
            42,
        );
        let e = tt.probe(0xDEAD_BEEF).expect("stored");
        assert_eq!(e.mv, Some(code(59_999, 12)));
        assert_eq!(e.depth, 17);
        assert_eq!(e.bound, Bound::Lower);
        assert_eq!(e.score, -299_990);
        assert_eq!(e.eval, 42);
        assert_eq!(tt.probe(0xDEAD_BEEE), None);
        tt.store(7, None, -1, Bound::Upper, 5, NO_EVAL);
        let e = tt.probe(7).unwrap();
        assert_eq!((e.mv, e.depth, e.eval), (None, -1, NO_EVAL));
    }

    #[test]
    fn torn_entries_are_rejected() {
        let tt = TranspositionTable::with_buckets(1);
        tt.store(1111, Some(code(1, 2)), 5, Bound::Exact, 10, 0);
        // Simulate a torn write: the data word of another entry lands in
        // this one's slot.
        let i = (0..BUCKET)
            .map(|e| e * ENTRY_WORDS)
            .find(|&i| tt.words[i + 1].load(Ordering::Relaxed) != 0)
            .unwrap();
        let other = pack(Some(code(3, 4)), 9, Bound::Lower, 0);
        tt.words[i + 1].store(other, Ordering::Relaxed);
        assert_eq!(tt.probe(1111), None);
    }

    #[test]
    fn replacement_prefers_shallow_and_old() {
        let tt = TranspositionTable::with_buckets(1);
        for h in 1..=4u64 {
            tt.store(h, None, h as i32 * 10, Bound::Exact, 0, 0);
        }
        // The bucket is full: the shallowest (hash 1, depth 10) goes.
        tt.store(5, None, 3, Bound::Exact, 0, 0);
        assert!(tt.probe(1).is_none());
        assert!(tt.probe(2).is_some() && tt.probe(5).is_some());
        // After several searches old deep entries give way.
        for _ in 0..6 {
            tt.new_search();
        }
        tt.store(6, None, 1, Bound::Exact, 0, 0);
        assert!(tt.probe(6).is_some());
        assert_eq!(tt.hashfull(), 250);
    }

    #[test]
    fn tiny_tables_work() {
        let tt = TranspositionTable::new(0);
        assert_eq!(tt.entries(), 4);
        tt.store(99, None, 1, Bound::Exact, 1, 1);
        assert!(tt.probe(99).is_some());
        tt.clear();
        assert!(tt.probe(99).is_none());
    }
}
