//! Sets of cells over the flattened cell index.
//!
//! A board of `c` cells needs `ceil(c / 64)` words: one for 8x8 and the cube,
//! two for the torus, four for the 3-D diamond, seventeen for the 4-D diamond,
//! and so on. [`Bitboard`] owns its words; the free functions work on word
//! slices so that [`crate::rules::position::Position`] can keep all of its sets in one
//! flat allocation and the hot paths never allocate.

/// Number of 64-bit words needed for `cells` cells.
pub fn words_for(cells: usize) -> usize {
    cells.div_ceil(64).max(1)
}

/// Whether `cell` is in the set given as words.
#[inline(always)]
pub fn test(words: &[u64], cell: usize) -> bool {
    words[cell >> 6] >> (cell & 63) & 1 != 0
}

/// Adds `cell` to the set given as words.
#[inline(always)]
pub fn set(words: &mut [u64], cell: usize) {
    words[cell >> 6] |= 1u64 << (cell & 63);
}

/// Removes `cell` from the set given as words.
#[inline(always)]
pub fn clear(words: &mut [u64], cell: usize) {
    words[cell >> 6] &= !(1u64 << (cell & 63));
}

/// Iterator over the set cells of a word slice, in increasing index order.
pub struct Cells<'a> {
    words: &'a [u64],
    index: usize,
    current: u64,
}

impl<'a> Cells<'a> {
    /// Iterates the cells of `words`.
    #[inline]
    pub fn new(words: &'a [u64]) -> Self {
        Cells {
            words,
            index: 0,
            current: words.first().copied().unwrap_or(0),
        }
    }
}

impl Iterator for Cells<'_> {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        loop {
            if self.current != 0 {
                let bit = self.current.trailing_zeros() as usize;
                self.current &= self.current - 1;
                return Some(self.index * 64 + bit);
            }
            self.index += 1;
            if self.index >= self.words.len() {
                return None;
            }
            self.current = self.words[self.index];
        }
    }
}

/// A set of cells of one board, owning its words.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Bitboard {
    words: Box<[u64]>,
}

impl Bitboard {
    /// The empty set on a board of `cells` cells.
    pub fn empty(cells: usize) -> Self {
        Bitboard {
            words: vec![0; words_for(cells)].into_boxed_slice(),
        }
    }

    /// The set holding exactly the given cells.
    pub fn from_cells(cells: usize, members: impl IntoIterator<Item = usize>) -> Self {
        let mut b = Bitboard::empty(cells);
        for c in members {
            b.insert(c);
        }
        b
    }

    /// The words of the set.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Whether `cell` is a member.
    #[inline]
    pub fn contains(&self, cell: usize) -> bool {
        test(&self.words, cell)
    }

    /// Adds `cell`.
    #[inline]
    pub fn insert(&mut self, cell: usize) {
        set(&mut self.words, cell)
    }

    /// Removes `cell`.
    #[inline]
    pub fn remove(&mut self, cell: usize) {
        clear(&mut self.words, cell)
    }

    /// Number of members.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The member with the lowest index.
    pub fn first(&self) -> Option<usize> {
        self.words
            .iter()
            .enumerate()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
    }

    /// The member with the highest index.
    pub fn last(&self) -> Option<usize> {
        self.words
            .iter()
            .enumerate()
            .rev()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| i * 64 + 63 - w.leading_zeros() as usize)
    }

    /// The members in increasing index order.
    pub fn iter(&self) -> Cells<'_> {
        Cells::new(&self.words)
    }

    /// In-place union.
    pub fn union_with(&mut self, other: &Bitboard) {
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a |= b;
        }
    }

    /// In-place intersection.
    pub fn intersect_with(&mut self, other: &Bitboard) {
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a &= b;
        }
    }

    /// In-place difference.
    pub fn subtract(&mut self, other: &Bitboard) {
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a &= !b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_counts_of_the_seed_boards() {
        // 8x8 and the cube, torus (112), 3-D diamond (256), 4-D diamond (1056),
        // 5-D diamond (3872), 6-D diamond (13056): ceil(cells / 64).
        assert_eq!(words_for(64), 1);
        assert_eq!(words_for(112), 2);
        assert_eq!(words_for(256), 4);
        assert_eq!(words_for(1056), 17);
        assert_eq!(words_for(3872), 61);
        assert_eq!(words_for(13056), 204);
    }

    #[test]
    fn set_operations_across_words() {
        let mut a = Bitboard::from_cells(200, [0, 63, 64, 130, 199]);
        assert_eq!(a.count(), 5);
        assert_eq!(a.first(), Some(0));
        assert_eq!(a.last(), Some(199));
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![0, 63, 64, 130, 199]);
        let b = Bitboard::from_cells(200, [63, 130, 150]);
        let mut i = a.clone();
        i.intersect_with(&b);
        assert_eq!(i.iter().collect::<Vec<_>>(), vec![63, 130]);
        a.subtract(&b);
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![0, 64, 199]);
        a.union_with(&b);
        assert_eq!(a.count(), 6);
        a.remove(0);
        assert!(!a.contains(0));
        assert!(Bitboard::empty(10).is_empty());
        assert_eq!(Bitboard::empty(10).first(), None);
    }
}
