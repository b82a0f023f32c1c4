//! Load benchmark of `ndchess serve` (docs/performance.md): starts the
//! server, connects 50 WebSocket clients that play random legal moves for
//! 30 s (five of them against the engine at 10 ms a move), and prints the
//! moves answered, latencies and the server's memory. Not a test.
//!
//! `cargo run --release --example gui_load -- [--clients 50] [--seconds 30]`

mod client;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The command line (see the module documentation).
#[derive(clap::Parser)]
struct Args {
    /// WebSocket clients (a tenth of them play the engine).
    #[arg(long, default_value_t = 50, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    clients: usize,
    /// Length of the run.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    seconds: u64,
}

fn main() {
    let Args { clients, seconds } = clap::Parser::parse();
    let exe = std::env::current_exe().expect("path of this example");
    // target/release/examples/gui_load -> target/release/ndchess
    let ndchess = exe
        .parent()
        .and_then(|p| p.parent())
        .map(|p| p.join("ndchess"))
        .expect("target directory");
    let mut server = Command::new(&ndchess)
        .args([
            "serve",
            "--port",
            "0",
            "--hash",
            "1",
            "--max-connections",
            "200",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot start {}: {e} (cargo build --release first)",
                ndchess.display()
            )
        });
    let mut line = String::new();
    BufReader::new(server.stdout.take().expect("piped"))
        .read_line(&mut line)
        .expect("URL line");
    let http = line
        .trim()
        .trim_start_matches("ndchess serve: ")
        .to_string();
    let url = http.replacen("http://", "ws://", 1) + "ws";
    let pid = server.id();
    let idle = client::memory_kib(pid);
    let cfg = client::LoadConfig {
        url,
        clients,
        engine_clients: clients / 10,
        movetime_ms: 10,
        moves_per_client: None,
        duration: Some(Duration::from_secs(seconds)),
        seed: 1,
    };
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let start = Instant::now();
    let report = runtime.block_on(client::run(&cfg));
    let wall = start.elapsed();
    let mem = client::memory_kib(pid);
    let alive = matches!(server.try_wait(), Ok(None));
    let _ = server.kill();
    let mut lat = report.latencies.clone();
    lat.sort();
    let pct = |p: f64| -> f64 {
        lat.get(((lat.len() as f64 - 1.0) * p) as usize)
            .map(|d| d.as_secs_f64() * 1000.0)
            .unwrap_or(0.0)
    };
    println!(
        "clients {clients} ({} against the engine at 10 ms), {:.1} s",
        cfg.engine_clients,
        wall.as_secs_f64()
    );
    println!(
        "moves answered {} ({:.0}/s), games finished {}, provoked errors answered {}",
        report.moves,
        report.moves as f64 / wall.as_secs_f64(),
        report.games,
        report.provoked_errors
    );
    println!(
        "latency ms: median {:.2}, 99th percentile {:.2}, max {:.2}",
        pct(0.5),
        pct(0.99),
        pct(1.0)
    );
    if let (Some((idle_rss, _)), Some((rss, peak))) = (idle, mem) {
        println!("server memory KiB: idle {idle_rss}, after {rss}, peak {peak}");
    }
    println!("server alive: {alive}; failures: {}", report.failures.len());
    for f in report.failures.iter().take(10) {
        println!("  {f}");
    }
}
