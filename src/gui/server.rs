//! The HTTP and WebSocket server of `ndchess serve` (axum on tokio).
//!
//! Routes: `/` the page, `/app.js` and `/style.css` its assets (compiled
//! into the binary: the page works without a network), `/svg?variant=…&fen=…`
//! a diagram, `/ws` the page's WebSocket, `/publish` the WebSocket on
//! which arbiters (`ndchess match -publish URL`) publish their games for
//! the pages that watch. Each WebSocket carries one
//! [`Session`]; engine searches run on tokio's blocking threads and report
//! back through a channel, so a thinking engine never stalls the socket
//! (stop, resign and new game are handled at once). Limits keep a misbehaving
//! client from hurting the server: message size, number of connections,
//! and every parameter the session range-checks.

use std::collections::{BTreeMap, HashMap};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use tokio::sync::{Semaphore, broadcast, mpsc};

use crate::arbiter::publish::WatchEvent;
use crate::board::registry;
use crate::board::variant::Variant;
use crate::rules::position::Position;
use crate::search::{Engine, EngineOptions, SearchResult};

use super::messages::{ClientMsg, ServerMsg};
use super::session::{Reply, Session};
use super::svg::{self, Marks};

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const STYLE_CSS: &str = include_str!("assets/style.css");

/// Largest message the page may send (a PGN of a long game fits).
pub const MAX_MESSAGE_BYTES: usize = 1 << 20;

/// Settings of `ndchess serve`.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Address to listen on (localhost unless told otherwise).
    pub host: IpAddr,
    /// Port (0: any free port; the URL printed says which).
    pub port: u16,
    /// Open the page in the default browser.
    pub open: bool,
    /// Most WebSocket connections at once; more are refused.
    pub max_connections: usize,
    /// The engine of every session.
    pub engine: EngineOptions,
}

/// Errors of the server.
#[derive(Debug)]
pub enum ServeError {
    /// The runtime could not start or the address could not be bound.
    Io(std::io::Error),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ServeError {}

#[derive(Clone)]
struct AppState {
    engine: EngineOptions,
    connections: Arc<Semaphore>,
    watch: Arc<WatchHub>,
}

/// Finished published games kept for pages that start watching later.
const KEPT_FINISHED_GAMES: usize = 16;
/// Variants of published games whose tables are kept built.
const KEPT_VARIANTS: usize = 16;

#[derive(Default)]
struct WatchSnapshot {
    /// The latest message of every game, by (event, index), with whether
    /// it has ended and when it was last updated (a counter).
    games: BTreeMap<(String, usize), (Arc<String>, bool, u64)>,
    standings: Option<Arc<String>>,
    variants: HashMap<String, Arc<Variant>>,
    updates: u64,
}

/// What arbiters publish (`-publish`), kept and passed on to the pages
/// that watch.
struct WatchHub {
    snapshot: std::sync::Mutex<WatchSnapshot>,
    tx: broadcast::Sender<Arc<String>>,
}

impl WatchHub {
    fn new() -> WatchHub {
        WatchHub {
            snapshot: std::sync::Mutex::new(WatchSnapshot::default()),
            tx: broadcast::channel(1024).0,
        }
    }

    /// The messages a page that starts watching gets first.
    fn snapshot(&self) -> Vec<Arc<String>> {
        let snap = self.snapshot.lock().unwrap_or_else(|e| e.into_inner());
        let mut games: Vec<&(Arc<String>, bool, u64)> = snap.games.values().collect();
        games.sort_by_key(|g| g.2);
        let mut out: Vec<Arc<String>> = games.into_iter().map(|g| g.0.clone()).collect();
        out.extend(snap.standings.clone());
        out
    }

    /// Takes one published event; an error says why it was refused.
    fn publish(&self, text: &str) -> Result<(), String> {
        let ev: WatchEvent =
            serde_json::from_str(text).map_err(|e| format!("malformed event: {e}"))?;
        let mut snap = self.snapshot.lock().unwrap_or_else(|e| e.into_inner());
        snap.updates += 1;
        let stamp = snap.updates;
        let msg = match ev {
            WatchEvent::Game(game) => {
                let v = match snap.variants.get(&game.variant) {
                    Some(v) => v.clone(),
                    None => {
                        let v = registry::build(&game.variant)
                            .map_err(|e| format!("variant {}: {e}", game.variant))?;
                        if snap.variants.len() >= KEPT_VARIANTS {
                            snap.variants.clear();
                        }
                        snap.variants.insert(game.variant.clone(), v.clone());
                        v
                    }
                };
                let pos = Position::from_text(&v, &game.fen)
                    .map_err(|e| format!("position {}: {e}", game.fen))?;
                let marks = Marks {
                    flip: false,
                    last: game
                        .last
                        .iter()
                        .copied()
                        .filter(|&c| c < v.geometry.cell_count())
                        .collect(),
                    check: svg::check_cells(&pos),
                };
                let key = (game.event.clone(), game.index);
                let over = game.result.is_some();
                let msg = ServerMsg::Watch {
                    svg: svg::position_svg(&pos, &marks),
                    game: Box::new(game),
                };
                let text = Arc::new(serde_json::to_string(&msg).map_err(|e| e.to_string())?);
                snap.games.insert(key, (text.clone(), over, stamp));
                // Forget the oldest finished games beyond the few kept.
                let mut finished: Vec<((String, usize), u64)> = snap
                    .games
                    .iter()
                    .filter(|(_, g)| g.1)
                    .map(|(k, g)| (k.clone(), g.2))
                    .collect();
                if finished.len() > KEPT_FINISHED_GAMES {
                    finished.sort_by_key(|f| f.1);
                    for (k, _) in finished.iter().take(finished.len() - KEPT_FINISHED_GAMES) {
                        snap.games.remove(k);
                    }
                }
                text
            }
            WatchEvent::Standings {
                event,
                text,
                done,
                total,
            } => {
                let msg = ServerMsg::Standings {
                    event,
                    text,
                    done,
                    total,
                };
                let text = Arc::new(serde_json::to_string(&msg).map_err(|e| e.to_string())?);
                snap.standings = Some(text.clone());
                text
            }
        };
        // No page watching is fine.
        let _ = self.tx.send(msg);
        Ok(())
    }
}

/// Runs the server until interrupted (Ctrl-C). Prints the URL on stdout
/// once it listens.
pub fn serve(options: &ServeOptions) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Io)?;
    runtime.block_on(run(options.clone()))
}

async fn run(options: ServeOptions) -> Result<(), ServeError> {
    let state = AppState {
        engine: options.engine,
        connections: Arc::new(Semaphore::new(options.max_connections)),
        watch: Arc::new(WatchHub::new()),
    };
    let app = Router::new()
        .route("/", get(|| async { Html(INDEX_HTML) }))
        .route(
            "/app.js",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
                    APP_JS,
                )
            }),
        )
        .route(
            "/style.css",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/css; charset=utf-8")],
                    STYLE_CSS,
                )
            }),
        )
        .route("/svg", get(svg_route))
        .route("/ws", get(ws_route))
        .route("/publish", get(publish_route))
        .with_state(state);
    let listener = tokio::net::TcpListener::bind(SocketAddr::new(options.host, options.port))
        .await
        .map_err(ServeError::Io)?;
    let addr = listener.local_addr().map_err(ServeError::Io)?;
    let url = format!("http://{addr}/");
    println!("ndchess serve: {url}");
    eprintln!("ndchess serve: listening on {addr}; Ctrl-C stops the server");
    if options.open
        && let Err(e) = open::that_detached(&url)
    {
        eprintln!("ndchess serve: could not open a browser ({e}); open {url} yourself");
    }
    axum::serve(listener, app)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(ServeError::Io)
}

/// `GET /svg?variant=…&fen=…&flip=1`: a diagram, or 400 with the reason.
async fn svg_route(Query(q): Query<HashMap<String, String>>) -> Response {
    let spec = q.get("variant").map(String::as_str).unwrap_or("chess");
    let v = match registry::build(spec) {
        Ok(v) => v,
        Err(e) => return (StatusCode::BAD_REQUEST, format!("variant: {e}\n")).into_response(),
    };
    let pos = match q.get("fen").filter(|f| !f.trim().is_empty()) {
        Some(text) => match Position::from_text(&v, text) {
            Ok(p) => p,
            Err(e) => return (StatusCode::BAD_REQUEST, format!("position: {e}\n")).into_response(),
        },
        None => Position::start(&v),
    };
    let marks = Marks {
        flip: q.get("flip").is_some_and(|f| f == "1" || f == "true"),
        last: Vec::new(),
        check: svg::check_cells(&pos),
    };
    (
        [(header::CONTENT_TYPE, "image/svg+xml; charset=utf-8")],
        svg::position_svg(&pos, &marks),
    )
        .into_response()
}

async fn ws_route(ws: WebSocketUpgrade, State(state): State<AppState>) -> Response {
    ws.max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| connection(socket, state))
}

async fn publish_route(ws: WebSocketUpgrade, State(state): State<AppState>) -> Response {
    ws.max_message_size(MAX_MESSAGE_BYTES)
        .max_frame_size(MAX_MESSAGE_BYTES)
        .on_upgrade(move |socket| publisher(socket, state))
}

/// An arbiter's connection: every text message is an event; refused ones
/// are answered with an error and the connection goes on.
async fn publisher(mut ws: WebSocket, state: AppState) {
    while let Some(Ok(msg)) = ws.recv().await {
        let reply = match msg {
            Message::Text(text) => state.watch.publish(text.as_str()).err(),
            Message::Binary(_) => Some("binary messages are not understood: send JSON text".into()),
            Message::Close(_) => break,
            _ => None,
        };
        if let Some(message) = reply
            && !send(&mut ws, &ServerMsg::Error { message }).await
        {
            break;
        }
    }
}

/// What the search threads report to a connection.
enum Event {
    Info(ServerMsg),
    Done {
        id: u64,
        engine: Box<Engine>,
        result: Box<SearchResult>,
    },
}

async fn send(ws: &mut WebSocket, msg: &ServerMsg) -> bool {
    match serde_json::to_string(msg) {
        Ok(text) => ws.send(Message::Text(text.into())).await.is_ok(),
        // Serialising plain data cannot fail; drop the message if it does.
        Err(_) => true,
    }
}

/// Sends messages already written as JSON (the watch hub's); `false`
/// when the socket is gone.
async fn send_texts(ws: &mut WebSocket, texts: Vec<Arc<String>>) -> bool {
    for t in texts {
        if ws.send(Message::Text(t.as_str().into())).await.is_err() {
            return false;
        }
    }
    true
}

/// Sends a reply's messages and starts its search; `false` when the
/// socket is gone.
async fn dispatch(
    ws: &mut WebSocket,
    session: &mut Session,
    reply: Reply,
    events: &mpsc::UnboundedSender<Event>,
) -> bool {
    for m in &reply.messages {
        if !send(ws, m).await {
            return false;
        }
    }
    if let Some(job) = reply.search {
        // Invariant: the session asks for a search only while its engine
        // is at home.
        let Some(mut engine) = session.take_engine() else {
            return true;
        };
        let events = events.clone();
        tokio::task::spawn_blocking(move || {
            let result = engine.search(&job.pos, &job.limits, &job.control, &mut |info| {
                if let Some(m) = Session::info_message(&job, info) {
                    let _ = events.send(Event::Info(m));
                }
            });
            let _ = events.send(Event::Done {
                id: job.id,
                engine: Box::new(engine),
                result: Box::new(result),
            });
        });
    }
    true
}

async fn connection(mut ws: WebSocket, state: AppState) {
    let Ok(_permit) = state.connections.clone().try_acquire_owned() else {
        let _ = send(
            &mut ws,
            &ServerMsg::Error {
                message: "too many connections: the server is busy, try again later".into(),
            },
        )
        .await;
        let _ = ws.send(Message::Close(None)).await;
        return;
    };
    let mut session = Session::new(state.engine);
    let (events, mut inbox) = mpsc::unbounded_channel::<Event>();
    if !send(&mut ws, &Session::hello()).await {
        return;
    }
    let first = session.handle(ClientMsg::State);
    if !dispatch(&mut ws, &mut session, first, &events).await {
        return;
    }
    let mut watching: Option<broadcast::Receiver<Arc<String>>> = None;
    loop {
        tokio::select! {
            published = async {
                match watching.as_mut() {
                    Some(rx) => rx.recv().await,
                    None => std::future::pending().await,
                }
            } => {
                let texts = match published {
                    Ok(text) => vec![text],
                    // A slow page missed updates: it gets the whole picture.
                    Err(broadcast::error::RecvError::Lagged(_)) => state.watch.snapshot(),
                    Err(broadcast::error::RecvError::Closed) => {
                        watching = None;
                        continue;
                    }
                };
                if !send_texts(&mut ws, texts).await {
                    return;
                }
            }
            // A person's flag falls even when nothing else happens.
            _ = async {
                match session.deadline() {
                    Some(d) => tokio::time::sleep_until(d.into()).await,
                    None => std::future::pending().await,
                }
            } => {
                let reply = session.tick();
                if !dispatch(&mut ws, &mut session, reply, &events).await {
                    break;
                }
            }
            incoming = ws.recv() => {
                let reply = match incoming {
                    Some(Ok(Message::Text(text))) => session.handle_text(text.as_str()),
                    Some(Ok(Message::Binary(_))) => Reply {
                        messages: vec![ServerMsg::Error {
                            message: "binary messages are not understood: send JSON text".into(),
                        }],
                        ..Reply::default()
                    },
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                };
                match reply.watch {
                    Some(true) => {
                        watching = Some(state.watch.tx.subscribe());
                        if !send_texts(&mut ws, state.watch.snapshot()).await {
                            return;
                        }
                    }
                    Some(false) => watching = None,
                    None => {}
                }
                if !dispatch(&mut ws, &mut session, reply, &events).await {
                    break;
                }
            }
            event = inbox.recv() => {
                let reply = match event {
                    Some(Event::Info(m)) => Reply { messages: vec![m], ..Reply::default() },
                    Some(Event::Done { id, engine, result }) => session.search_done(id, *engine, *result),
                    // Invariant: `events` lives in this function, so the
                    // channel never closes while we wait on it.
                    None => break,
                };
                if !dispatch(&mut ws, &mut session, reply, &events).await {
                    break;
                }
            }
        }
    }
    // The search thread ends on its own once stopped.
    session.stop_search();
}
