//! The engine thread: owns the [`Engine`] and runs searches, perft counts
//! and engine reconfiguration one after another, so that the protocol
//! thread never blocks on the engine and can answer `isready`, `stop` and
//! `ponderhit` while a search runs.
//!
//! Work is sent over a crossbeam channel and executed in order. Searches
//! are steered through a [`SearchControl`] shared with the protocol thread
//! (stop, ponder hit). Progress and results go back through a reporter
//! closure the front-end supplies, so the host knows nothing of UCI or
//! XBoard formatting and both front-ends can drive it.
//!
//! A search that panics (a bug) is caught: the reporter is told the search
//! failed, the engine is rebuilt with the same options, and the thread goes
//! on serving the protocol.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, bounded, unbounded};

use crate::rules::movegen;
use crate::rules::moves::Move;
use crate::rules::position::Position;
use crate::search::{Engine, EngineOptions, Limits, SearchControl, SearchInfo, SearchResult};

/// What a running search tells its front-end.
#[derive(Debug)]
pub enum SearchEvent<'a> {
    /// A progress report (finished line or current root move).
    Info(&'a SearchInfo),
    /// The search ended. A search that failed (an internal error) ends too,
    /// with [`SearchResult::failure`] set and the first legal move as its
    /// best move, so that every front-end keeps the game going the same
    /// way.
    Done(SearchResult),
}

/// What a perft count produces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PerftOutcome {
    /// Every root move (a joint decision in a simultaneous turn) in the
    /// protocol's notation with its leaf count (generation order).
    Done(Vec<(String, u64)>),
    /// Stopped before every root move was counted.
    Stopped,
    /// The count failed (an internal error, reported as text).
    Failed(String),
}

/// Receives the events of one search, on the engine thread.
pub type SearchReporter = Box<dyn FnMut(SearchEvent<'_>) + Send>;
/// Receives the outcome of one perft count, on the engine thread.
pub type PerftReporter = Box<dyn FnOnce(PerftOutcome) + Send>;

enum Job {
    Search {
        pos: Box<Position>,
        limits: Box<Limits>,
        control: Arc<SearchControl>,
        report: SearchReporter,
    },
    Perft {
        pos: Box<Position>,
        depth: u32,
        threads: usize,
        /// Castling written king-takes-rook in the counts' move texts.
        king_takes_rook: bool,
        control: Arc<SearchControl>,
        report: PerftReporter,
    },
    Configure(Box<dyn FnOnce(&mut Engine) + Send>),
    Call(Box<dyn FnOnce() + Send>),
}

/// The engine thread and the protocol side's handle on it.
pub struct EngineHost {
    jobs: Option<Sender<Job>>,
    /// Searches and perft counts sent and not yet reported as finished.
    busy: Arc<AtomicUsize>,
    /// Control of the latest search or count.
    control: Arc<SearchControl>,
    done: Receiver<()>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for EngineHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineHost")
            .field("busy", &self.busy.load(Ordering::SeqCst))
            .finish()
    }
}

impl EngineHost {
    /// Starts the engine thread with an engine of `options`.
    pub fn new(options: EngineOptions) -> EngineHost {
        let (tx, rx) = unbounded::<Job>();
        let (done_tx, done_rx) = bounded::<()>(1);
        let busy = Arc::new(AtomicUsize::new(0));
        let busy2 = busy.clone();
        let thread = std::thread::Builder::new()
            .name("ndchess-engine".into())
            .spawn(move || {
                engine_thread(options, rx, busy2);
                let _ = done_tx.send(());
            })
            .ok();
        let control = Arc::new(SearchControl::new());
        control.stop();
        EngineHost {
            jobs: thread.is_some().then_some(tx),
            busy,
            control,
            done: done_rx,
            thread,
        }
    }

    /// Whether a search or perft count is queued or running.
    pub fn busy(&self) -> bool {
        self.busy.load(Ordering::SeqCst) > 0
    }

    /// Whether the latest search or count was told to stop (or has none).
    pub fn stop_requested(&self) -> bool {
        self.control.stopped()
    }

    fn send(&self, job: Job) -> bool {
        match &self.jobs {
            Some(tx) => tx.send(job).is_ok(),
            None => false,
        }
    }

    /// Starts a search of `pos` (pondering if `ponder`). Returns `false`
    /// when the engine thread is gone (nothing will be reported).
    pub fn search(
        &mut self,
        pos: Position,
        limits: Limits,
        ponder: bool,
        report: SearchReporter,
    ) -> bool {
        let control = Arc::new(if ponder {
            SearchControl::pondering()
        } else {
            SearchControl::new()
        });
        self.control = control.clone();
        self.busy.fetch_add(1, Ordering::SeqCst);
        let ok = self.send(Job::Search {
            pos: Box::new(pos),
            limits: Box::new(limits),
            control,
            report,
        });
        if !ok {
            self.busy.fetch_sub(1, Ordering::SeqCst);
        }
        ok
    }

    /// Starts a perft count split by root move over `threads` threads; a
    /// stop ends it between root moves.
    pub fn perft(
        &mut self,
        pos: Position,
        depth: u32,
        threads: usize,
        king_takes_rook: bool,
        report: PerftReporter,
    ) -> bool {
        let control = Arc::new(SearchControl::new());
        self.control = control.clone();
        self.busy.fetch_add(1, Ordering::SeqCst);
        let ok = self.send(Job::Perft {
            pos: Box::new(pos),
            depth,
            threads: threads.max(1),
            king_takes_rook,
            control,
            report,
        });
        if !ok {
            self.busy.fetch_sub(1, Ordering::SeqCst);
        }
        ok
    }

    /// Stops the latest search or count (no effect when none runs).
    pub fn stop(&self) {
        self.control.stop();
    }

    /// The ponder move was played: the running ponder search goes on as a
    /// normal one under its time limits.
    pub fn ponderhit(&self) {
        self.control.ponderhit();
    }

    /// Changes the engine after the work queued before (a search running
    /// now keeps its settings).
    pub fn configure(&self, f: impl FnOnce(&mut Engine) + Send + 'static) -> bool {
        self.send(Job::Configure(Box::new(f)))
    }

    /// Runs `f` on the engine thread once the work queued before is done
    /// (UCI's `isready` when no search runs: ready means the table resize
    /// of a `setoption name Hash` is done).
    pub fn after_queued(&self, f: impl FnOnce() + Send + 'static) -> bool {
        self.send(Job::Call(Box::new(f)))
    }

    /// Blocks until every job sent so far is done. A search without a
    /// limit only ends with [`EngineHost::stop`], so stop it first.
    pub fn wait_idle(&self) {
        let (tx, rx) = bounded::<()>(1);
        if self.after_queued(move || {
            let _ = tx.send(());
        }) {
            let _ = rx.recv();
        }
    }

    /// Stops any search and ends the engine thread, waiting at most
    /// `grace` for it (a deep perft count only stops between root moves).
    /// Returns whether the thread ended in time.
    pub fn shutdown(&mut self, grace: Duration) -> bool {
        self.control.stop();
        if self.jobs.take().is_none() {
            // Shut down before: do not wait a second time.
            return self.thread.as_ref().is_none_or(|t| t.is_finished());
        }
        let deadline = Instant::now() + grace;
        let ended = match self.done.recv_deadline(deadline) {
            Ok(()) => true,
            // The sender is dropped without a message only if the thread
            // never started or has ended.
            Err(_) => self.thread.as_ref().is_none_or(|t| t.is_finished()),
        };
        if ended && let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        ended
    }
}

impl Drop for EngineHost {
    fn drop(&mut self) {
        // Tests and front-ends that end without `quit` must not leave a
        // search running; a long perft is left to the process exit.
        self.shutdown(Duration::from_secs(5));
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

fn engine_thread(options: EngineOptions, rx: Receiver<Job>, busy: Arc<AtomicUsize>) {
    let mut engine = Engine::new(options);
    while let Ok(job) = rx.recv() {
        match job {
            Job::Search {
                pos,
                limits,
                control,
                mut report,
            } => {
                let r = catch_unwind(AssertUnwindSafe(|| {
                    engine.search(&pos, &limits, &control, &mut |info| {
                        report(SearchEvent::Info(info))
                    })
                }));
                // Not busy any more before the result is out: a GUI may
                // send the next `go` the moment it reads `bestmove`.
                busy.fetch_sub(1, Ordering::SeqCst);
                match r {
                    Ok(result) => report(SearchEvent::Done(result)),
                    Err(p) => {
                        engine = Engine::new(engine.options());
                        let failure = format!("search failed: {}", panic_text(p.as_ref()));
                        report(SearchEvent::Done(SearchResult::fallback(&pos, failure)));
                    }
                }
            }
            Job::Perft {
                pos,
                depth,
                threads,
                king_takes_rook,
                control,
                report,
            } => {
                let r = catch_unwind(AssertUnwindSafe(|| {
                    if pos.turn().is_simultaneous() {
                        return joint_perft_divide(&pos, depth, &control);
                    }
                    let ktr = king_takes_rook;
                    perft_divide(&pos, depth, threads, &control).map(|parts| {
                        parts
                            .into_iter()
                            .map(|(m, n)| (pos.move_text(m, ktr), n))
                            .collect()
                    })
                }));
                busy.fetch_sub(1, Ordering::SeqCst);
                report(match r {
                    Ok(Some(v)) => PerftOutcome::Done(v),
                    Ok(None) => PerftOutcome::Stopped,
                    Err(p) => {
                        PerftOutcome::Failed(format!("perft failed: {}", panic_text(p.as_ref())))
                    }
                });
            }
            Job::Configure(f) => {
                if catch_unwind(AssertUnwindSafe(|| f(&mut engine))).is_err() {
                    engine = Engine::new(EngineOptions::default());
                }
            }
            Job::Call(f) => {
                let _ = catch_unwind(AssertUnwindSafe(f));
            }
        }
    }
}

/// The joint-decision perft of a simultaneous turn split by root joint
/// decision (one thread; a stop ends it between root decisions).
fn joint_perft_divide(
    pos: &Position,
    depth: u32,
    control: &SearchControl,
) -> Option<Vec<(String, u64)>> {
    let mut out = Vec::new();
    for j in pos.joint_decisions() {
        if control.stopped() {
            return None;
        }
        let mut p = pos.clone();
        p.make_joint(&j)
            .expect("invariant: joint_decisions lists decisions check_joint accepts");
        let n = crate::rules::simultaneous::joint_perft(&mut p, depth.saturating_sub(1));
        out.push((crate::rules::notation::joint::joint_text(pos, &j), n));
    }
    Some(out)
}

/// Perft split by root move: `threads` threads take root moves in turn and
/// check `control` before each; `None` if stopped before the end.
fn perft_divide(
    pos: &Position,
    depth: u32,
    threads: usize,
    control: &SearchControl,
) -> Option<Vec<(Move, u64)>> {
    let moves = pos.legal_moves();
    if depth <= 1 {
        return Some(moves.into_iter().map(|m| (m, 1)).collect());
    }
    let next = AtomicUsize::new(0);
    let counts: Vec<std::sync::atomic::AtomicU64> = moves
        .iter()
        .map(|_| std::sync::atomic::AtomicU64::new(u64::MAX))
        .collect();
    std::thread::scope(|s| {
        for _ in 0..threads.min(moves.len()).max(1) {
            s.spawn(|| {
                loop {
                    if control.stopped() {
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(&m) = moves.get(i) else { return };
                    let mut p = pos.clone();
                    p.make(m);
                    let n = movegen::perft(&mut p, depth - 1);
                    counts[i].store(n, Ordering::SeqCst);
                }
            });
        }
    });
    let mut out = Vec::with_capacity(moves.len());
    for (m, c) in moves.iter().zip(&counts) {
        let n = c.load(Ordering::SeqCst);
        if n == u64::MAX {
            return None;
        }
        out.push((*m, n));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::variant::Variant;

    #[test]
    fn perft_divide_matches_movegen() {
        let v = Variant::from_spec("chess").expect("chess is a known variant");
        let pos = Position::start(&v);
        let control = SearchControl::new();
        let parts = perft_divide(&pos, 3, 2, &control).expect("not stopped");
        let total: u64 = parts.iter().map(|p| p.1).sum();
        let mut p = pos.clone();
        assert_eq!(total, movegen::perft(&mut p, 3));
        control.stop();
        assert_eq!(perft_divide(&pos, 3, 2, &control), None);
    }

    #[test]
    fn host_searches_and_reports() {
        let mut host = EngineHost::new(EngineOptions::default());
        let v = Variant::from_spec("chess").expect("chess is a known variant");
        let (tx, rx) = unbounded::<Option<Move>>();
        assert!(host.search(
            Position::start(&v),
            Limits::depth(2),
            false,
            Box::new(move |e| {
                if let SearchEvent::Done(r) = e {
                    let _ = tx.send(r.best);
                }
            }),
        ));
        host.wait_idle();
        assert!(!host.busy());
        let best = rx.recv().expect("one result").expect("the start has moves");
        assert!(Position::start(&v).legal_moves().contains(&best));
        assert!(host.shutdown(Duration::from_secs(5)));
    }
}
