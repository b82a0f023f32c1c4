//! A zeroed array of atomic words on large pages where the system gives
//! them: the transposition table's memory.
//!
//! Why: the table is read at a random place at every node, and with
//! 4 KiB pages nearly every read also misses the TLB (16 MB are 4,096
//! pages); under a hypervisor the page walk itself walks two page tables.
//! On Linux the memory is aligned to 2 MiB and marked
//! `MADV_HUGEPAGE` before it is first touched, so that the kernel backs it
//! with 2 MiB pages where transparent huge pages are enabled for such
//! requests (the default `madvise` mode); Stockfish does the same for its
//! table. Elsewhere, or when the kernel says no, it is ordinary memory.
//! The contents and every answer are the same either way.

use std::alloc::{Layout, alloc, dealloc, handle_alloc_error};
use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;

/// The size of a large page, and the alignment asked for arrays at least
/// that large.
const LARGE_PAGE: usize = 2 << 20;

/// A fixed-length array of `AtomicU64`, all zero when made.
pub(crate) struct LargeWords {
    ptr: NonNull<AtomicU64>,
    len: usize,
    layout: Layout,
}

// SAFETY: the array owns its memory, and `AtomicU64` is `Send` and `Sync`
// (every access goes through the atomics).
unsafe impl Send for LargeWords {}
// SAFETY: as above.
unsafe impl Sync for LargeWords {}

impl LargeWords {
    /// `len` words (at least one), zeroed.
    pub(crate) fn zeroed(len: usize) -> LargeWords {
        let len = len.max(1);
        let bytes = len
            .checked_mul(std::mem::size_of::<AtomicU64>())
            .expect("invariant: a table's size in bytes fits a usize");
        let align = if bytes >= LARGE_PAGE {
            LARGE_PAGE
        } else {
            std::mem::align_of::<AtomicU64>()
        };
        let layout = Layout::from_size_align(bytes, align)
            .expect("invariant: the alignment is a power of two and the size fits");
        // SAFETY: `layout` has a non-zero size (len >= 1).
        let raw = unsafe { alloc(layout) } as *mut AtomicU64;
        let Some(ptr) = NonNull::new(raw) else {
            handle_alloc_error(layout)
        };
        #[cfg(target_os = "linux")]
        if align == LARGE_PAGE {
            // SAFETY: the range is the allocation just made; the advice
            // changes how the kernel backs it, not its contents. A refusal
            // (kernel without transparent huge pages) leaves 4 KiB pages.
            unsafe {
                libc::madvise(
                    ptr.as_ptr() as *mut libc::c_void,
                    bytes,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
        // SAFETY: `ptr` is valid for `len` words (the layout's size) and
        // properly aligned; writing zero bytes makes each an
        // `AtomicU64::new(0)`. This first touch happens after the advice.
        unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, len) };
        LargeWords { ptr, len, layout }
    }
}

impl Deref for LargeWords {
    type Target = [AtomicU64];

    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: `ptr` points to `len` initialised words owned by `self`,
        // alive as long as the borrow of `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for LargeWords {
    fn drop(&mut self) {
        // SAFETY: `ptr` was allocated with exactly `layout` and is freed once.
        unsafe { dealloc(self.ptr.as_ptr() as *mut u8, self.layout) };
    }
}

impl std::fmt::Debug for LargeWords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LargeWords({} words)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn large_and_small_arrays_start_at_zero_and_keep_what_is_stored() {
        for len in [1, 7, LARGE_PAGE / 8, 3 * LARGE_PAGE / 8 + 5] {
            let words = LargeWords::zeroed(len);
            assert_eq!(words.len(), len);
            assert!(words.iter().all(|w| w.load(Ordering::Relaxed) == 0));
            words[0].store(7, Ordering::Relaxed);
            words[len - 1].store(42, Ordering::Relaxed);
            assert_eq!(words[len - 1].load(Ordering::Relaxed), 42);
            if len > 1 {
                assert_eq!(words[0].load(Ordering::Relaxed), 7);
            }
            if len * 8 >= LARGE_PAGE {
                assert_eq!(words.as_ptr() as usize % LARGE_PAGE, 0, "{len}");
            }
        }
    }
}
