//! Perft speed of ndchess against shakmaty 0.30, in one run on one machine,
//! so the ratio is meaningful where absolute times are not.
//!
//! `cargo run --release --example perft_bench` prints:
//! - perft(6) from the chess start: ndchess `movegen::perft` on one thread
//!   vs `shakmaty::perft`, times, nodes/s and the speed ratio (the bar is
//!   ndchess >= 1.0x shakmaty); the two alternate for five runs each, and
//!   the ratio is given from the medians and from the best runs (on a
//!   shared machine single runs of the same binary vary by a third);
//! - perft(4) of `diamond:n=3` and `diamond:n=4`, perft(5) of `cube`;
//! - the speed-up of `perft_divide(.., threads = 2)` over one thread for
//!   chess perft(6).
//!
//! Wall-clock times are printed with the process's CPU time beside them
//! (Linux `/proc/self/stat`): on a shared machine a wall time well above the
//! CPU time of a one-thread run means the run waited for a core, and the
//! ratios are also given from CPU times. Results go in docs/performance.md.
//! Progress goes to stderr.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ndchess::board::variant::Variant;
use ndchess::rules::movegen;
use ndchess::rules::position::Position;
use shakmaty::Chess;

/// CPU time (user + system) of this process so far, from the `utime` and
/// `stime` fields of `/proc/self/stat`, in clock ticks of 1/100 s (Linux's
/// fixed `USER_HZ`). `None` where there is no such file.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name start with field 3.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<u64>().ok();
    Some(Duration::from_millis((ticks(11)? + ticks(12)?) * 10))
}

/// One timed run: nodes, wall-clock time and process CPU time.
#[derive(Clone, Copy)]
struct Run {
    nodes: u64,
    wall: Duration,
    cpu: Option<Duration>,
}

impl Run {
    fn describe(&self) -> String {
        let cpu = match self.cpu {
            Some(c) => format!("cpu {:.3} s", c.as_secs_f64()),
            None => "cpu n/a".into(),
        };
        format!(
            "wall {:.3} s ({cpu})  {:.1} M nodes/s",
            self.wall.as_secs_f64(),
            self.nodes as f64 / self.wall.as_secs_f64().max(1e-9) / 1e6
        )
    }
}

/// Times `f`.
fn timed(label: &str, f: impl FnOnce() -> u64) -> Run {
    eprintln!("running {label} ...");
    let cpu0 = cpu_time();
    let t = Instant::now();
    let nodes = f();
    let wall = t.elapsed();
    let cpu = cpu0.zip(cpu_time()).map(|(a, b)| b.saturating_sub(a));
    let run = Run { nodes, wall, cpu };
    eprintln!("  {label}: {}", run.describe());
    run
}

/// Keeps the faster of two runs of the same count.
fn faster(best: Option<Run>, run: Run, label: &str) -> Option<Run> {
    if let Some(b) = best {
        assert_eq!(b.nodes, run.nodes, "{label}: runs disagree");
        if b.wall <= run.wall {
            return Some(b);
        }
    }
    Some(run)
}

/// The fastest of `runs` runs of `f`.
fn best_of(label: &str, runs: usize, mut f: impl FnMut() -> u64) -> Run {
    let mut best = None;
    for i in 0..runs {
        best = faster(
            best,
            timed(&format!("{label} (run {})", i + 1), &mut f),
            label,
        );
    }
    best.expect("runs >= 1")
}

/// `a / b` of two durations as text, or "n/a".
fn ratio(a: Option<Duration>, b: Option<Duration>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if !b.is_zero() => format!("{:.2}x", a.as_secs_f64() / b.as_secs_f64()),
        _ => "n/a".into(),
    }
}

fn variant(spec: &str) -> Arc<Variant> {
    Variant::from_spec(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn main() {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("perft_bench: {cores} hardware threads available");
    println!();

    // 1. ndchess vs shakmaty, chess start, perft(6), one thread each.
    let chess = variant("chess");
    let start = Position::start(&chess);
    let depth = 6;
    let sk_start = Chess::default();
    // The generator's tables are built on first use: once before timing,
    // as shakmaty's are static.
    movegen::perft(&mut start.clone(), 1);
    const RUNS: usize = 5;
    let (mut nd, mut sk) = (Vec::new(), Vec::new());
    // Alternate the two so that a burst of load on the shared machine hurts
    // both alike.
    for run in 1..=RUNS {
        nd.push(timed(
            &format!("ndchess chess perft({depth}) run {run}"),
            || movegen::perft(&mut start.clone(), depth),
        ));
        sk.push(timed(
            &format!("shakmaty chess perft({depth}) run {run}"),
            || shakmaty::perft(&sk_start, depth),
        ));
    }
    assert!(
        nd.iter().chain(&sk).all(|r| r.nodes == nd[0].nodes),
        "ndchess and shakmaty disagree on chess perft({depth})"
    );
    nd.sort_by_key(|r| r.wall);
    sk.sort_by_key(|r| r.wall);
    let (nd_best, sk_best, nd_median, sk_median) = (nd[0], sk[0], nd[RUNS / 2], sk[RUNS / 2]);
    println!(
        "## Perft: ndchess vs shakmaty (chess start, depth {depth}, 1 thread, {RUNS} alternating runs)"
    );
    println!("nodes:    {}", nd_best.nodes);
    println!("ndchess:  median {}", nd_median.describe());
    println!("          best   {}", nd_best.describe());
    println!("shakmaty: median {}", sk_median.describe());
    println!("          best   {}", sk_best.describe());
    println!(
        "ratio ndchess speed / shakmaty speed: {} by median wall time, {} by best wall time, {} by median cpu time",
        ratio(Some(sk_median.wall), Some(nd_median.wall)),
        ratio(Some(sk_best.wall), Some(nd_best.wall)),
        ratio(sk_median.cpu, nd_median.cpu)
    );
    println!();

    // 2. Other boards, one thread.
    println!("## Perft on other boards (1 thread)");
    for (spec, depth) in [("diamond:n=3", 4), ("diamond:n=4", 4), ("cube", 5)] {
        let v = variant(spec);
        let pos = Position::start(&v);
        let r = timed(&format!("ndchess {} perft({depth})", v.spec), || {
            movegen::perft(&mut pos.clone(), depth)
        });
        println!(
            "{:<26} perft({depth}) = {:>13}  {}",
            v.spec,
            r.nodes,
            r.describe()
        );
    }
    println!();

    // 3. Root-split threads, chess perft(6).
    let divide = |threads: usize| -> u64 {
        movegen::perft_divide(&start, depth, threads)
            .unwrap_or_else(|e| panic!("thread pool of {threads}: {e}"))
            .iter()
            .map(|x| x.1)
            .sum()
    };
    let one = best_of(
        &format!("perft_divide chess perft({depth}) 1 thread"),
        2,
        || divide(1),
    );
    let two = best_of(
        &format!("perft_divide chess perft({depth}) 2 threads"),
        2,
        || divide(2),
    );
    assert_eq!(one.nodes, two.nodes, "thread counts disagree");
    assert_eq!(one.nodes, nd[0].nodes, "perft_divide disagrees with perft");
    println!("## Threads (chess start, perft_divide depth {depth}, best of 2)");
    println!("1 thread:  {}", one.describe());
    println!("2 threads: {}", two.describe());
    println!("speed-up (wall): {}", ratio(Some(one.wall), Some(two.wall)));
}
