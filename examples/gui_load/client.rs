//! WebSocket clients that play random legal moves against `ndchess serve`
//! (examples/gui_load: the load benchmark; tests/gui/load.rs: the load
//! test). One implementation, bounded by moves (the test) or by time (the
//! benchmark).

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::{Value, json};
use tokio_tungstenite::connect_async;
use tokio_tungstenite::tungstenite::Message;

/// What the clients do.
#[derive(Clone, Debug)]
pub struct LoadConfig {
    /// `ws://host:port/ws`.
    pub url: String,
    /// Clients at once.
    pub clients: usize,
    /// Of them, how many play against the engine (the others play both
    /// seats themselves, so only the server's rules and drawing work).
    pub engine_clients: usize,
    /// Engine time per move for those clients.
    pub movetime_ms: u64,
    /// Stop each client after this many of its own moves …
    pub moves_per_client: Option<usize>,
    /// … or after this long.
    pub duration: Option<Duration>,
    /// Seed of the random choices.
    pub seed: u64,
}

/// What the clients saw.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Moves the clients made.
    pub moves: u64,
    /// Games that ended (and were started again).
    pub games: u64,
    /// Errors the clients provoked on purpose (malformed messages) and got.
    pub provoked_errors: u64,
    /// Everything that went wrong: unexpected errors, lost connections.
    pub failures: Vec<String>,
    /// Time from a move sent to the state that answers it, per move.
    pub latencies: Vec<Duration>,
}

const SPECS: [&str; 4] = ["chess", "diamond:n=3", "cube", "synchronous"];

async fn next_json<S>(ws: &mut S) -> Result<Value, String>
where
    S: StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    loop {
        match ws.next().await {
            Some(Ok(Message::Text(t))) => {
                return serde_json::from_str(t.as_str()).map_err(|e| format!("bad JSON: {e}"));
            }
            Some(Ok(Message::Close(_))) | None => return Err("connection closed".into()),
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(format!("socket: {e}")),
        }
    }
}

/// Waits for the first state of a new game of `spec` that the client can
/// act on (a person's turn).
async fn wait_state<S>(ws: &mut S, spec: &str, report: &mut LoadReport) -> Result<Value, String>
where
    S: StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    loop {
        let m = next_json(ws).await?;
        match m["type"].as_str() {
            Some("state") => {
                let len = m["history"].as_array().map(|a| a.len()).unwrap_or(0);
                let ready = !m["asking"].is_null() || !m["result"].is_null();
                let fresh = len == 0 && m["spec"] == spec;
                if ready && fresh {
                    return Ok(m);
                }
            }
            Some("error") => provoked(&m, report).map_err(|t| format!("unexpected error: {t}"))?,
            _ => {}
        }
    }
}

/// Counts an error the client provoked (a malformed message); any other
/// error's text is returned.
fn provoked(m: &Value, report: &mut LoadReport) -> Result<(), String> {
    let text = m["message"].as_str().unwrap_or("");
    if text.starts_with("malformed message") {
        report.provoked_errors += 1;
        Ok(())
    } else {
        Err(text.to_string())
    }
}

async fn one_client(cfg: LoadConfig, index: usize, deadline: Option<Instant>) -> LoadReport {
    let mut report = LoadReport::default();
    if let Err(e) = play(&cfg, index, deadline, &mut report).await {
        report.failures.push(format!("client {index}: {e}"));
    }
    report
}

async fn play(
    cfg: &LoadConfig,
    index: usize,
    deadline: Option<Instant>,
    report: &mut LoadReport,
) -> Result<(), String> {
    let mut rng = StdRng::seed_from_u64(cfg.seed.wrapping_add(index as u64));
    let (mut ws, _) = connect_async(cfg.url.as_str())
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let engine = index < cfg.engine_clients;
    let spec = SPECS[index % SPECS.len()];
    let humans = if engine { json!([0]) } else { json!([0, 1]) };
    let new_game =
        json!({"type": "new", "variant": spec, "humans": humans, "movetime_ms": cfg.movetime_ms})
            .to_string();
    ws.send(Message::Text(new_game.clone().into()))
        .await
        .map_err(|e| e.to_string())?;
    let mut state = wait_state(&mut ws, spec, report).await?;
    let mut made = 0usize;
    loop {
        if cfg.moves_per_client.is_some_and(|n| made >= n)
            || deadline.is_some_and(|d| Instant::now() >= d)
        {
            break;
        }
        if !state["result"].is_null() {
            report.games += 1;
            ws.send(Message::Text(new_game.clone().into()))
                .await
                .map_err(|e| e.to_string())?;
            state = wait_state(&mut ws, spec, report).await?;
            continue;
        }
        if made % 25 == 7 {
            // Garbage now and then: the server answers with an error and
            // carries on.
            ws.send(Message::Text("{\"type\":".into()))
                .await
                .map_err(|e| e.to_string())?;
        }
        let legal = state["legal"].as_array().cloned().unwrap_or_default();
        if legal.is_empty() {
            return Err(format!("{spec}: a person's turn without decisions"));
        }
        let pick = &legal[rng.random_range(0..legal.len())];
        let text = pick["text"].as_str().unwrap_or("0000").to_string();
        let before = state["history"].as_array().map(|a| a.len()).unwrap_or(0);
        let sent = Instant::now();
        ws.send(Message::Text(
            json!({"type": "move", "text": text}).to_string().into(),
        ))
        .await
        .map_err(|e| e.to_string())?;
        // A synchronous game's exchange phase asks again without a new
        // step; any state asking the person again answers the move.
        state = loop {
            let m = next_json(&mut ws).await?;
            match m["type"].as_str() {
                Some("state") => {
                    let len = m["history"].as_array().map(|a| a.len()).unwrap_or(0);
                    let ready = !m["asking"].is_null() || !m["result"].is_null();
                    let moved = len > before
                        || m["phase"] == "exchange"
                        || m["committed"].as_array().is_some_and(|c| !c.is_empty());
                    if ready && moved {
                        break m;
                    }
                }
                Some("error") => {
                    provoked(&m, report).map_err(|t| format!("{spec}: move {text}: {t}"))?
                }
                _ => {}
            }
        };
        report.latencies.push(sent.elapsed());
        report.moves += 1;
        made += 1;
    }
    let _ = ws.close(None).await;
    Ok(())
}

/// Runs the clients at once and adds up what they saw.
pub async fn run(cfg: &LoadConfig) -> LoadReport {
    let deadline = cfg.duration.map(|d| Instant::now() + d);
    let tasks: Vec<_> = (0..cfg.clients)
        .map(|i| tokio::spawn(one_client(cfg.clone(), i, deadline)))
        .collect();
    let mut total = LoadReport::default();
    for t in tasks {
        match t.await {
            Ok(r) => {
                total.moves += r.moves;
                total.games += r.games;
                total.provoked_errors += r.provoked_errors;
                total.failures.extend(r.failures);
                total.latencies.extend(r.latencies);
            }
            Err(e) => total.failures.push(format!("client task: {e}")),
        }
    }
    total
}

/// The resident memory of a process and its peak, in KiB (Linux).
pub fn memory_kib(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}
