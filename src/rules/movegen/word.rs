//! The machine words the bitboard backend keeps its cell sets in: `u64`
//! for boards of at most 64 cells (chess, Chess960, the cylinder, the
//! cube), `u128` for boards of at most 128 (the torus, Raumschach). The
//! backend is written once over [`Word`]; each width is its own compiled
//! copy, so chess pays nothing for the wider boards.

use std::fmt::Debug;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not};

use crate::board::geometry::Cell;

/// A set of cells of a board of at most [`Word::BITS`] cells, bit `c` for
/// cell `c`.
pub trait Word:
    Copy
    + Eq
    + Default
    + Debug
    + Send
    + Sync
    + 'static
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + BitAndAssign
    + BitOrAssign
{
    /// The empty set.
    const ZERO: Self;
    /// The number of cells a word holds.
    const BITS: usize;
    /// One set per cell of the board (`[Self; BITS]`), indexed by cell.
    type Row: Copy + Debug + Send + Sync + AsRef<[Self]> + AsMut<[Self]>;

    /// A row of empty sets.
    fn empty_row() -> Self::Row;
    /// The set of the one cell `c`.
    fn bit(c: Cell) -> Self;
    /// Whether cell `c` is in the set.
    fn has(self, c: Cell) -> bool;
    /// Whether the set is empty.
    fn is_empty(self) -> bool;
    /// The lowest cell (the set must not be empty).
    fn first(self) -> Cell;
    /// The set without its lowest cell.
    fn without_first(self) -> Self;
    /// The lowest cell as a set.
    fn lowest(self) -> Self;
    /// The set's value plus one (wrapping).
    fn plus_one(self) -> Self;
    /// The cells below 64.
    fn low_word(self) -> u64;
    /// The cells `64 * i .. 64 * i + 64`, shifted down to bits `0..64`.
    fn word(self, i: usize) -> u64;
    /// The set of the cells `64 * i + b` for the bits `b` of `w`.
    fn from_word(w: u64, i: usize) -> Self;
    /// The set of the cells of `w` (all below 64).
    fn from_low_word(w: u64) -> Self;
    /// The number of cells.
    fn count(self) -> u32;
    /// Every cell moved by `delta` index steps (up if positive), cells
    /// pushed past either end dropped.
    fn shift(self, delta: i32) -> Self;
    /// Set `i` of a position's bitboard words (`words` holds the sets one
    /// after another, each in `BITS / 64` words).
    fn load(words: &[u64], i: usize) -> Self;
    /// [`Word::load`] without the bounds check.
    ///
    /// # Safety
    ///
    /// `words` must hold at least `(i + 1) * BITS / 64` words.
    unsafe fn load_unchecked(words: &[u64], i: usize) -> Self;
    /// A magic table's index of the occupancy `self` (already masked):
    /// the product with `magic`, shifted right by `shift`, as the
    /// one-word boards' classical magics do; a two-word set multiplies
    /// each half by its half of the magic and adds them.
    fn magic_index(self, magic: Self, shift: u32) -> usize;
    /// A sparse random magic candidate from `draw` (a stream of random
    /// words).
    fn candidate(draw: &mut dyn FnMut() -> u64) -> Self;
}

/// The [`Word`] methods both widths implement alike, as the integer
/// operations they are.
macro_rules! integer_set_ops {
    () => {
        #[inline(always)]
        fn bit(c: Cell) -> Self {
            1 << c
        }
        #[inline(always)]
        fn is_empty(self) -> bool {
            self == 0
        }
        #[inline(always)]
        fn first(self) -> Cell {
            self.trailing_zeros() as Cell
        }
        #[inline(always)]
        fn without_first(self) -> Self {
            self & self.wrapping_sub(1)
        }
        #[inline(always)]
        fn lowest(self) -> Self {
            self & self.wrapping_neg()
        }
        #[inline(always)]
        fn plus_one(self) -> Self {
            self.wrapping_add(1)
        }
        #[inline(always)]
        fn count(self) -> u32 {
            self.count_ones()
        }
        #[inline(always)]
        fn shift(self, delta: i32) -> Self {
            if delta >= 0 {
                self << delta
            } else {
                self >> -delta
            }
        }
    };
}

impl Word for u64 {
    const ZERO: Self = 0;
    const BITS: usize = 64;
    type Row = [u64; 64];

    #[inline(always)]
    fn empty_row() -> Self::Row {
        [0; 64]
    }
    integer_set_ops!();
    #[inline(always)]
    fn has(self, c: Cell) -> bool {
        self >> c & 1 != 0
    }
    #[inline(always)]
    fn low_word(self) -> u64 {
        self
    }
    #[inline(always)]
    fn from_low_word(w: u64) -> Self {
        w
    }
    #[inline(always)]
    fn word(self, i: usize) -> u64 {
        debug_assert_eq!(i, 0);
        self
    }
    #[inline(always)]
    fn from_word(w: u64, i: usize) -> Self {
        debug_assert_eq!(i, 0);
        w
    }
    #[inline(always)]
    fn load(words: &[u64], i: usize) -> Self {
        words[i]
    }
    #[inline(always)]
    unsafe fn load_unchecked(words: &[u64], i: usize) -> Self {
        debug_assert!(i < words.len());
        // SAFETY: the caller's promise.
        unsafe { *words.get_unchecked(i) }
    }
    #[inline(always)]
    fn magic_index(self, magic: Self, shift: u32) -> usize {
        (self.wrapping_mul(magic) >> shift) as usize
    }
    fn candidate(draw: &mut dyn FnMut() -> u64) -> Self {
        draw() & draw() & draw()
    }
}

impl Word for u128 {
    const ZERO: Self = 0;
    const BITS: usize = 128;
    type Row = [u128; 128];

    #[inline(always)]
    fn empty_row() -> Self::Row {
        [0; 128]
    }
    integer_set_ops!();
    // The cell's word picked by a select and the bit by a 64-bit shift:
    // a shift of the whole `u128` by a variable amount costs several
    // instructions and a test of the amount.
    #[inline(always)]
    fn has(self, c: Cell) -> bool {
        let w = if c < 64 {
            self as u64
        } else {
            (self >> 64) as u64
        };
        w >> (c & 63) & 1 != 0
    }
    #[inline(always)]
    fn low_word(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from_low_word(w: u64) -> Self {
        w as Self
    }
    #[inline(always)]
    fn word(self, i: usize) -> u64 {
        debug_assert!(i < 2);
        if i == 0 {
            self as u64
        } else {
            (self >> 64) as u64
        }
    }
    #[inline(always)]
    fn from_word(w: u64, i: usize) -> Self {
        debug_assert!(i < 2);
        // All ones for the high word, none for the low: two masks instead
        // of a variable shift of the whole `u128`.
        let high = 0u64.wrapping_sub(i as u64);
        (w & !high) as u128 | ((w & high) as u128) << 64
    }
    #[inline(always)]
    fn load(words: &[u64], i: usize) -> Self {
        // One bounds check for both words.
        let pair = &words[2 * i..2 * i + 2];
        pair[0] as u128 | (pair[1] as u128) << 64
    }
    #[inline(always)]
    unsafe fn load_unchecked(words: &[u64], i: usize) -> Self {
        debug_assert!(2 * i + 1 < words.len());
        // SAFETY: the caller's promise.
        unsafe {
            *words.get_unchecked(2 * i) as u128 | (*words.get_unchecked(2 * i + 1) as u128) << 64
        }
    }
    #[inline(always)]
    fn magic_index(self, magic: Self, shift: u32) -> usize {
        let low = (self as u64).wrapping_mul(magic as u64);
        let high = ((self >> 64) as u64).wrapping_mul((magic >> 64) as u64);
        (low.wrapping_add(high) >> shift) as usize
    }
    fn candidate(draw: &mut dyn FnMut() -> u64) -> Self {
        let low = draw() & draw() & draw();
        let high = draw() & draw() & draw();
        low as u128 | (high as u128) << 64
    }
}

/// The set of row `row` of a per-cell table at `cell` (`cell & (BITS -
/// 1)`: no bounds check, and cells of the board are below `BITS`).
#[inline(always)]
pub(crate) fn at<W: Word>(row: &W::Row, cell: Cell) -> W {
    row.as_ref()[cell & (W::BITS - 1)]
}

/// The cells of a set, in increasing order.
pub(crate) struct Cells<W: Word>(pub(crate) W);

impl<W: Word> Iterator for Cells<W> {
    type Item = Cell;

    #[inline(always)]
    fn next(&mut self) -> Option<Cell> {
        (!self.0.is_empty()).then(|| {
            let c = self.0.first();
            self.0 = self.0.without_first();
            c
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two widths answer alike for sets both can hold, and `u128`
    /// keeps the cells above 63.
    #[test]
    fn both_widths_agree_on_small_sets_and_u128_keeps_high_cells() {
        let cells = [0usize, 5, 17, 63];
        let a = cells.iter().fold(0u64, |s, &c| s | u64::bit(c));
        let b = cells.iter().fold(0u128, |s, &c| s | u128::bit(c));
        assert_eq!(a.count(), b.count());
        assert_eq!(a.first(), b.first());
        assert_eq!(Cells(a).collect::<Vec<_>>(), Cells(b).collect::<Vec<_>>());
        assert_eq!(a.shift(-5) as u128, b.shift(-5));
        let high = u128::bit(100) | u128::bit(64);
        assert_eq!(Cells(high).collect::<Vec<_>>(), vec![64, 100]);
        assert_eq!(high.word(1), 1 | 1 << 36);
        assert_eq!(u128::from_word(1 << 36, 1), u128::bit(100));
        assert_eq!(high.shift(3).first(), 67);
        // Two-word loads: set 1 of two sets of two words each.
        let words = [1u64, 0, 1 << 3, 1 << 40];
        assert_eq!(u128::load(&words, 1), u128::bit(3) | u128::bit(104));
        assert_eq!(u64::load(&words, 2), 1 << 3);
    }
}
