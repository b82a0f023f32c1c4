//! Measures how fast the search honours a stop request and how closely it
//! keeps its time limits, on every board size (a benchmark, not a test:
//! wall-clock figures go to docs/performance.md).
//!
//! ```text
//! cargo run --release --example search_latency [-- --rounds 20]
//! ```
//!
//! Stop: an infinite search (1 and 2 threads) is stopped by another thread
//! after a random delay; the time from `stop()` to the search's return is
//! recorded. Time: searches with `movetime` and with a small clock; the
//! time used is compared with the limit (movetime, or the time left).

use std::sync::Arc;
use std::time::{Duration, Instant};

use ndchess::board::variant::Variant;
use ndchess::rules::position::Position;
use ndchess::search::{Engine, EngineOptions, Limits, SearchControl};
use rand::{RngExt, SeedableRng};

const SPECS: &[&str] = &[
    "chess",
    "torus",
    "cube",
    "diamond:n=3",
    "diamond:n=4",
    "diamond:n=5",
];

/// The command line (see the module documentation).
#[derive(clap::Parser)]
struct Args {
    /// Stops and timed searches per variant and thread count.
    #[arg(long, default_value_t = 10, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    rounds: usize,
}

fn main() {
    let rounds = <Args as clap::Parser>::parse().rounds;
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    println!(
        "| Variant | Threads | Stops | Stop latency mean | max | movetime 50 ms: max used | clock 300 ms + 0: max used / limit |"
    );
    println!("|---|---|---|---|---|---|---|");
    for spec in SPECS {
        let v = Variant::from_spec(spec).expect("known spec");
        let pos = Position::start(&v);
        for threads in [1, 2] {
            let mut engine = Engine::new(EngineOptions {
                threads,
                ..EngineOptions::default()
            });
            let mut latencies = Vec::new();
            for _ in 0..rounds {
                let control = Arc::new(SearchControl::new());
                let delay = Duration::from_millis(rng.random_range(20..200));
                let c = Arc::clone(&control);
                let stopper = std::thread::spawn(move || {
                    std::thread::sleep(delay);
                    let t = Instant::now();
                    c.stop();
                    t
                });
                let limits = Limits {
                    infinite: true,
                    ..Limits::default()
                };
                engine.search(&pos, &limits, &control, &mut |_| {});
                let returned = Instant::now();
                let stopped_at = stopper.join().expect("stopper thread");
                latencies.push(returned.saturating_duration_since(stopped_at));
            }
            let mut movetime_max = Duration::ZERO;
            for _ in 0..rounds.min(5) {
                let t = Instant::now();
                engine.search(
                    &pos,
                    &Limits::movetime(Duration::from_millis(50)),
                    &SearchControl::new(),
                    &mut |_| {},
                );
                movetime_max = movetime_max.max(t.elapsed());
            }
            let mut clock_max = Duration::ZERO;
            for _ in 0..rounds.min(5) {
                let limits = Limits {
                    time: vec![
                        Some(Duration::from_millis(300)),
                        Some(Duration::from_millis(300)),
                    ],
                    movestogo: Some(1),
                    ..Limits::default()
                };
                let t = Instant::now();
                engine.search(&pos, &limits, &SearchControl::new(), &mut |_| {});
                clock_max = clock_max.max(t.elapsed());
            }
            let mean = latencies.iter().sum::<Duration>() / latencies.len().max(1) as u32;
            let max = latencies.iter().max().copied().unwrap_or_default();
            println!(
                "| {spec} | {threads} | {} | {:.2} ms | {:.2} ms | {:.1} ms | {:.1} ms / 300 ms |",
                latencies.len(),
                mean.as_secs_f64() * 1e3,
                max.as_secs_f64() * 1e3,
                movetime_max.as_secs_f64() * 1e3,
                clock_max.as_secs_f64() * 1e3
            );
            eprintln!("{spec} threads {threads} done");
        }
    }
}
