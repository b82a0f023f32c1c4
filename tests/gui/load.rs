//! Many pages at once: 50 WebSocket clients play random legal moves
//! (chess, the 3-D diamond, the cube, synchronous chess; five against the
//! engine) with malformed messages in between; none may see an unexpected
//! error, and the server must live on with bounded memory. The same
//! clients, run for 30 s, are the load benchmark (examples/gui_load).
//! Also: the connection limit, an oversized message, binary frames.

#[path = "../../examples/gui_load/client.rs"]
mod client;

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::connect_async;
use tokio_tungstenite::tungstenite::Message;

use crate::server::Server;

fn ws_url(server: &Server) -> String {
    server.url.replacen("http://", "ws://", 1) + "ws"
}

#[test]
fn fifty_clients_play_random_moves_without_an_error() {
    let mut server = Server::start(&["--hash", "1", "--max-connections", "100"]);
    let cfg = client::LoadConfig {
        url: ws_url(&server),
        clients: 50,
        engine_clients: 5,
        movetime_ms: 10,
        moves_per_client: Some(40),
        duration: None,
        seed: 7,
    };
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    let report = runtime.block_on(client::run(&cfg));
    assert!(report.failures.is_empty(), "{:#?}", report.failures);
    assert_eq!(report.moves, 50 * 40);
    assert!(
        report.provoked_errors >= 50,
        "every client's garbage got an error"
    );
    assert!(server.alive(), "the server lives on");
    let (rss, peak) = client::memory_kib(server.pid()).expect("/proc status of the server");
    eprintln!("server memory after 2,000 moves of 50 clients: {rss} KiB (peak {peak} KiB)");
    // 50 sessions with 1 MiB tables and their positions: far below 1 GiB
    // unless something leaks per message.
    assert!(peak < 1 << 20, "server peak memory {peak} KiB");
}

#[test]
fn the_connection_limit_oversized_and_binary_messages_are_answered() {
    let mut server = Server::start(&["--hash", "1", "--max-connections", "2"]);
    let url = ws_url(&server);
    let runtime = tokio::runtime::Runtime::new().expect("tokio runtime");
    runtime.block_on(async {
        let first_text = |m: Option<Result<Message, _>>| -> String {
            match m {
                Some(Ok(Message::Text(t))) => t.to_string(),
                other => panic!("expected a text message, got {other:?}"),
            }
        };
        let (mut a, _) = connect_async(url.as_str()).await.expect("first connection");
        let (mut b, _) = connect_async(url.as_str())
            .await
            .expect("second connection");
        assert!(first_text(a.next().await).contains("\"hello\""));
        assert!(first_text(b.next().await).contains("\"hello\""));
        let (mut c, _) = connect_async(url.as_str())
            .await
            .expect("third connection upgrades");
        let refusal = first_text(c.next().await);
        assert!(refusal.contains("too many connections"), "{refusal}");

        // A binary frame gets an error; the session goes on.
        let _ = a.next().await; // the first state
        a.send(Message::Binary(vec![1, 2, 3].into()))
            .await
            .expect("send");
        let reply = first_text(a.next().await);
        assert!(reply.contains("binary messages"), "{reply}");
        a.send(Message::Text("{\"type\":\"state\"}".into()))
            .await
            .expect("send");
        assert!(first_text(a.next().await).contains("\"state\""));

        // A message over the limit closes that socket only.
        let huge = format!(
            "{{\"type\":\"import_pgn\",\"pgn\":\"{}\"}}",
            "x".repeat(2 << 20)
        );
        let _ = b.send(Message::Text(huge.into())).await;
        let mut closed = false;
        for _ in 0..10 {
            match b.next().await {
                Some(Ok(Message::Text(_))) => continue,
                _ => {
                    closed = true;
                    break;
                }
            }
        }
        assert!(closed, "the oversized message ends that connection");
        a.send(Message::Text("{\"type\":\"state\"}".into()))
            .await
            .expect("send");
        assert!(
            first_text(a.next().await).contains("\"state\""),
            "the other one lives on"
        );
    });
    assert!(server.alive());
}
