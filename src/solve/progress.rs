//! Progress of long searches: the placement, tour and magic-tour searches
//! tell a process-wide sink their node count about every two seconds (the
//! way a logger is process-wide), so the command line can show it on
//! stderr without every search threading a callback through. Without a
//! sink nothing is reported.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Receives (search name, nodes so far, seconds since the sink was set).
pub type Sink = Box<dyn Fn(&str, u64, f64) + Send + Sync>;

struct Reporter {
    sink: Sink,
    started: Instant,
    /// Milliseconds after `started` of the last report.
    last_ms: AtomicU64,
}

static REPORTER: OnceLock<Reporter> = OnceLock::new();

/// Milliseconds between reports.
const EVERY_MS: u64 = 2000;

/// Sets the sink (once per process; later calls are ignored).
pub fn set_sink(sink: Sink) {
    let _ = REPORTER.set(Reporter {
        sink,
        started: Instant::now(),
        last_ms: AtomicU64::new(0),
    });
}

/// Called by a search every 2^20 nodes or so: reports when two seconds
/// have passed since the last report.
#[inline]
pub fn tick(search: &str, nodes: u64) {
    if nodes & 0xF_FFFF != 0 {
        return;
    }
    if let Some(r) = REPORTER.get() {
        let now = r.started.elapsed().as_millis() as u64;
        let last = r.last_ms.load(Ordering::Relaxed);
        if now >= last + EVERY_MS
            && r.last_ms
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            (r.sink)(search, nodes, now as f64 / 1000.0);
        }
    }
}
