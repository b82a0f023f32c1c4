//! The flags a protocol thread uses to steer a running search.

use std::sync::atomic::{AtomicBool, Ordering};

/// Shared between the protocol thread and the search: `stop` ends the
/// search as soon as possible (within a node's work; the search returns
/// its best move so far); while `ponder` is set no time limit applies, and
/// clearing it (UCI's `ponderhit`) starts the clock.
#[derive(Debug, Default)]
pub struct SearchControl {
    stop: AtomicBool,
    ponder: AtomicBool,
}

impl SearchControl {
    /// Fresh flags: not stopped, not pondering.
    pub fn new() -> SearchControl {
        SearchControl::default()
    }

    /// Flags for a ponder search.
    pub fn pondering() -> SearchControl {
        let c = SearchControl::default();
        c.ponder.store(true, Ordering::SeqCst);
        c
    }

    /// Requests the search to stop.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Whether a stop was requested.
    #[inline]
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Sets or clears pondering; clearing it is a ponder hit.
    pub fn set_ponder(&self, on: bool) {
        self.ponder.store(on, Ordering::SeqCst);
    }

    /// The ponder move was played: the search goes on as a normal one.
    pub fn ponderhit(&self) {
        self.set_ponder(false);
    }

    /// Whether the search is pondering.
    #[inline]
    pub fn pondering_now(&self) -> bool {
        self.ponder.load(Ordering::Relaxed)
    }

    /// Clears both flags for the next search.
    pub fn reset(&self) {
        self.stop.store(false, Ordering::SeqCst);
        self.ponder.store(false, Ordering::SeqCst);
    }
}
