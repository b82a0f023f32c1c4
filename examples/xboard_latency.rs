//! Measures how fast an XBoard engine answers over pipes — ndchess beside
//! a reference engine in the same run (a benchmark, not a test: the
//! figures go to docs/performance.md).
//!
//! ```text
//! cargo build --release
//! cargo run --release --example xboard_latency -- [--rounds 30] [--reference /usr/games/fairymax]
//! ```
//!
//! ndchess is the binary beside the example's directory
//! (`target/release/ndchess`), hence the build first.
//!
//! Per engine and round: `ping` → `pong` while idle; `ping` → `pong`
//! while pondering (the engine must answer at once); `?` → `move` while
//! thinking on its move under `st 30`; and the time from `usermove` to the
//! engine's `move` under `st 1` (how closely it keeps a one-second limit).
//! The reference (Fairy-Max by default, Debian package fairymax) gets the
//! same commands; a figure it does not support is shown as `-`. No `post`
//! is sent: Fairy-Max 5.0b crashes now and then while printing thinking
//! output; an engine that dies is started again and the crash counted.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<(Instant, String)>,
}

impl Engine {
    fn start(program: &str) -> Engine {
        let mut child = Command::new(program)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send((Instant::now(), line)).is_err() {
                    return;
                }
            }
        });
        let mut e = Engine {
            child,
            stdin,
            lines: rx,
        };
        e.send("xboard");
        e.send("protover 2");
        e.wait_for(|l| l.contains("done=1"), Duration::from_secs(5));
        e
    }

    /// Sends a line; the time it was sent. A dead engine (Fairy-Max 5.0b
    /// crashes now and then) is reported by `alive`.
    fn send(&mut self, line: &str) -> Instant {
        let t = Instant::now();
        let _ = writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush());
        t
    }

    fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The arrival time of the first line satisfying `pred`, or `None`
    /// after `limit`.
    fn wait_for(&mut self, pred: impl Fn(&str) -> bool, limit: Duration) -> Option<Instant> {
        let end = Instant::now() + limit;
        loop {
            let left = end.checked_duration_since(Instant::now())?;
            match self.lines.recv_timeout(left) {
                Ok((t, l)) if pred(&l) => return Some(t),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
    }

    /// Sends `ping n` and waits at most `limit` for its `pong`; the time
    /// from the write to the answer.
    fn ping(&mut self, n: u32, limit: Duration) -> Option<Duration> {
        let t = self.send(&format!("ping {n}"));
        let want = format!("pong {n}");
        self.wait_for(|l| l == want, limit).map(|a| a - t)
    }

    /// Waits until the engine has done everything sent so far.
    fn sync(&mut self, n: u32) {
        self.ping(n, Duration::from_secs(60));
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        std::thread::sleep(Duration::from_millis(50));
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Default)]
struct Samples {
    idle_pong: Vec<f64>,
    ponder_pong: Vec<f64>,
    move_now: Vec<f64>,
    st_1: Vec<f64>,
    crashes: usize,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn measure(program: &str, rounds: usize) -> Samples {
    let mut e = Engine::start(program);
    let mut s = Samples::default();
    let mut n = 0u32;
    for round in 0..rounds {
        if !e.alive() {
            s.crashes += 1;
            e = Engine::start(program);
        }
        e.send("new");
        e.send("easy");
        n += 1;
        e.sync(n);
        // Idle ping.
        n += 1;
        s.idle_pong
            .extend(e.ping(n, Duration::from_secs(5)).map(ms));
        // `?` while thinking under st 30.
        e.send("st 30");
        e.send("force");
        e.send("usermove e2e4");
        e.send("go");
        std::thread::sleep(Duration::from_millis(100 + 7 * (round as u64 % 10)));
        let t = e.send("?");
        if let Some(a) = e.wait_for(|l| l.starts_with("move "), Duration::from_secs(35)) {
            s.move_now.push(ms(a - t));
        }
        // Ping while pondering: the engine (white) moved; ponder on.
        e.send("force");
        e.send("new");
        e.send("hard");
        e.send("st 1");
        n += 1;
        e.sync(n);
        e.send("go");
        e.wait_for(|l| l.starts_with("move "), Duration::from_secs(5));
        std::thread::sleep(Duration::from_millis(100));
        n += 1;
        s.ponder_pong
            .extend(e.ping(n, Duration::from_secs(5)).map(ms));
        // usermove → move under st 1 (pondering off).
        e.send("easy");
        e.send("force");
        e.send("new");
        n += 1;
        e.sync(n);
        e.send("playother");
        let t = e.send("usermove d2d4");
        if let Some(a) = e.wait_for(|l| l.starts_with("move "), Duration::from_secs(5)) {
            s.st_1.push(ms(a - t));
        }
        e.send("force");
    }
    s
}

fn summary(v: &[f64]) -> String {
    if v.is_empty() {
        return "-".into();
    }
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    format!(
        "{:.2} / {:.2} / {:.2} ms",
        v[0],
        v[v.len() / 2],
        v[v.len() - 1]
    )
}

/// The command line (see the module documentation).
#[derive(clap::Parser)]
struct Args {
    /// Measurements of each kind per engine.
    #[arg(long, default_value_t = 30, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    rounds: usize,
    /// The reference engine's program.
    #[arg(long, default_value = "/usr/games/fairymax")]
    reference: String,
}

fn main() {
    let Args { rounds, reference } = clap::Parser::parse();
    // The example runs from target/release/examples/; the binary is one
    // directory up.
    let exe = std::env::current_exe().expect("the example knows its own path");
    let ours_path = exe
        .parent()
        .and_then(|d| d.parent())
        .map(|d| d.join("ndchess"))
        .expect("the example lives in target/<profile>/examples/");
    let ours = ours_path.to_string_lossy().into_owned();
    let ours = ours.as_str();
    println!("{rounds} rounds; min / median / max");
    println!(
        "| engine | ping→pong idle | ping→pong pondering | `?`→move | usermove→move, st 1 | crashes |"
    );
    println!("|---|---|---|---|---|---|");
    for (name, program) in [("ndchess", ours), ("reference", reference.as_str())] {
        eprintln!("measuring {name} ({program})");
        let s = measure(program, rounds);
        println!(
            "| {name} | {} | {} | {} | {} | {} |",
            summary(&s.idle_pong),
            summary(&s.ponder_pong),
            summary(&s.move_now),
            summary(&s.st_1),
            s.crashes
        );
    }
}
