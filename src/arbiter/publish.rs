//! Live publication of a running match or tournament to `ndchess serve`
//! (`-publish http://127.0.0.1:8080/`), so that people watch the games in
//! the browser with clocks and the crosstable (docs/gui.md, "Watch").
//!
//! The arbiter is synchronous: one publisher thread owns the WebSocket
//! (tungstenite's blocking client) and sends what the game threads put in
//! its channel. Publishing never holds up or stops a match: a server that
//! cannot be reached or goes away is reported once on stderr and the
//! events are dropped from then on.

use std::thread::JoinHandle;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::board::seating::Seat;
use crate::game::clock::{Clock, TimeControl};
use crate::game::record::Game;

use super::config::ConfigError;

/// The state of one game, sent after every step and at its end.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct WatchGame {
    /// The game's number in the run (0-based).
    pub index: usize,
    /// The run's `Event`.
    pub event: String,
    /// The variant spec.
    pub variant: String,
    /// The players in seat order.
    pub players: Vec<String>,
    /// The current position text.
    pub fen: String,
    /// The steps in coordinates.
    pub moves: Vec<String>,
    /// Cells of the last step (from, to, …).
    pub last: Vec<usize>,
    /// Time left per seat in milliseconds (clock time controls), or the
    /// last think time per seat (a time per move or none).
    pub clocks_ms: Vec<u64>,
    /// Whether `clocks_ms` are clocks (true) or think times.
    pub clocks: bool,
    /// The result (`1-0`, …) once the game is over.
    pub result: Option<String>,
    /// Why it ended.
    pub reason: Option<String>,
}

/// What the arbiter publishes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WatchEvent {
    /// A game's state.
    Game(WatchGame),
    /// The standings after a finished game.
    Standings {
        event: String,
        /// The crosstable as the arbiter prints it.
        text: String,
        done: usize,
        total: usize,
    },
}

/// The WebSocket URL of a server given as `http://host:port/` (the URL
/// `ndchess serve` prints) or `ws://host:port/publish`.
pub fn publish_url(text: &str) -> Result<String, ConfigError> {
    let t = text.trim();
    let rest = if let Some(r) = t.strip_prefix("http://") {
        r
    } else if let Some(r) = t.strip_prefix("ws://") {
        r
    } else {
        return Err(ConfigError(format!(
            "-publish {t}: expected the URL ndchess serve prints (http://host:port/) or ws://host:port/publish"
        )));
    };
    let host = rest.split('/').next().unwrap_or("");
    if host.is_empty() {
        return Err(ConfigError(format!("-publish {t}: no host")));
    }
    Ok(format!("ws://{host}/publish"))
}

/// The game's state as published; `tc` the time control of its clocks.
pub fn watch_game(
    game: &Game,
    index: usize,
    event: &str,
    players: &[String],
    tc: Option<TimeControl>,
) -> WatchGame {
    let pos = game.position();
    let v = pos.variant();
    let seats = v.seat_count();
    let mut clock = match tc {
        Some(tc @ TimeControl::Clock { .. }) => Some(Clock::new(tc, seats)),
        _ => None,
    };
    let mut think = vec![0u64; seats];
    for ply in game.plies() {
        if let Some(a) = &ply.annotation {
            for s in ply.seats.iter() {
                if let Some(c) = clock.as_mut() {
                    // Replaying what the driver charged; whether a seat
                    // overstepped is the driver's business, so the time
                    // charged here never exceeds what is left.
                    let used = a.time.min(c.left()[s]);
                    c.charge(s, used, Duration::ZERO);
                }
                if let Some(t) = think.get_mut(s.index()) {
                    *t = a.time.as_millis() as u64;
                }
            }
        }
    }
    let (clocks_ms, clocks) = match &clock {
        Some(c) => (
            (0..seats)
                .map(|s| c.left()[Seat::new(s)].as_millis() as u64)
                .collect(),
            true,
        ),
        None => (think, false),
    };
    let last = game
        .plies()
        .last()
        .map(|p| p.step.cells())
        .unwrap_or_default();
    WatchGame {
        index,
        event: event.to_string(),
        variant: v.spec.clone(),
        players: players.to_vec(),
        fen: pos.to_text(),
        moves: game.plies().iter().map(|p| p.text.clone()).collect(),
        last,
        clocks_ms,
        clocks,
        result: game
            .end()
            .map(|e| crate::protocol::text::result_text(e.outcome())),
        reason: game.end().map(|e| e.reason(game)),
    }
}

/// The publisher thread and its channel.
pub struct Publisher {
    tx: Option<crossbeam_channel::Sender<WatchEvent>>,
    thread: Option<JoinHandle<()>>,
}

impl Publisher {
    /// Starts publishing to `url` (a `ws://…/publish` URL).
    pub fn start(url: &str) -> Publisher {
        let (tx, rx) = crossbeam_channel::unbounded::<WatchEvent>();
        let url = url.to_string();
        let thread = std::thread::spawn(move || {
            let mut socket = match tungstenite::connect(url.as_str()) {
                Ok((s, _)) => Some(s),
                Err(e) => {
                    eprintln!("publish: cannot reach {url} ({e}); the games go on unpublished");
                    None
                }
            };
            for ev in rx.iter() {
                let Some(s) = socket.as_mut() else { continue };
                let Ok(text) = serde_json::to_string(&ev) else {
                    continue;
                };
                if let Err(e) = s.send(tungstenite::Message::Text(text.into())) {
                    eprintln!("publish: {url} went away ({e}); the games go on unpublished");
                    socket = None;
                }
            }
            if let Some(mut s) = socket {
                let _ = s.close(None);
                // Let the close handshake finish (the server answers).
                let _ = s.flush();
            }
        });
        Publisher {
            tx: Some(tx),
            thread: Some(thread),
        }
    }

    /// Queues an event (never blocks).
    pub fn send(&self, ev: WatchEvent) {
        if let Some(tx) = &self.tx {
            let _ = tx.send(ev);
        }
    }

    /// Sends what is queued and closes the connection.
    pub fn finish(mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publish_urls_are_read_from_the_served_url() {
        assert_eq!(
            publish_url("http://127.0.0.1:8080/").expect("served URL"),
            "ws://127.0.0.1:8080/publish"
        );
        assert_eq!(
            publish_url("ws://localhost:9/publish").expect("ws URL"),
            "ws://localhost:9/publish"
        );
        for bad in ["", "ftp://x/", "http:///", "127.0.0.1:8080"] {
            assert!(publish_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_game_is_published_with_its_clocks() {
        let v = crate::board::registry::build("chess").expect("chess");
        let mut g = Game::new(crate::rules::position::Position::start(&v));
        g.play_text("e2e4").expect("legal");
        g.annotate_last(crate::game::record::Annotation {
            time: Duration::from_millis(1500),
            eval: None,
        });
        let tc = TimeControl::parse("10+1").expect("time control");
        let w = watch_game(&g, 3, "ev", &["a".into(), "b".into()], Some(tc));
        assert_eq!(w.moves, vec!["e2e4"]);
        assert!(w.clocks);
        // 10 s - 1.5 s + 1 s increment for White, 10 s for Black.
        assert_eq!(w.clocks_ms, vec![9500, 10_000]);
        let text = serde_json::to_string(&WatchEvent::Game(w.clone())).expect("JSON");
        let back: WatchEvent = serde_json::from_str(&text).expect("read back");
        assert_eq!(back, WatchEvent::Game(w));
    }
}
