// The page of `ndchess serve` (docs/gui.md). Plain JavaScript, no build
// step and no network beyond the server that served it: the board is the
// server's SVG (one drawing for every board, shared with `ndchess svg`),
// the rules are the server's (the legal decisions come with every state).
"use strict";

const $ = (id) => document.getElementById(id);
let ws = null;
let state = null;
let selected = null;
let infos = new Map();
let previewing = false;
let clocksAt = 0;
let watching = false;
const watchGames = new Map();
let watchLatest = null;

// What the browser tests read: the last state, every error shown.
window.ndchess = {
  get state() { return state; },
  get watched() { return [...watchGames.values()].map((w) => w.game); },
  get standings() { return $("standings").textContent; },
  errors: [],
  notices: [],
  messages: 0,
  send: (msg) => send(msg),
};

function send(msg) {
  if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
  else showError("not connected to the server");
}

function showError(text) {
  window.ndchess.errors.push(text);
  $("error").textContent = text;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  ws = new WebSocket(scheme + location.host + "/ws");
  ws.onopen = () => { $("conn").textContent = "connected"; $("conn").className = "conn ok"; };
  ws.onclose = () => { $("conn").textContent = "disconnected (reload to reconnect)"; $("conn").className = "conn bad"; };
  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { showError("unreadable message from the server"); return; }
    window.ndchess.messages++;
    receive(m);
  };
}

function receive(m) {
  switch (m.type) {
    case "hello": {
      $("version").textContent = "v" + m.version;
      const list = $("variant-list");
      list.innerHTML = "";
      for (const spec of [...m.examples, ...m.families]) {
        const o = document.createElement("option");
        o.value = spec;
        list.appendChild(o);
      }
      break;
    }
    case "state":
      state = m;
      render();
      break;
    case "info":
      infos.set(m.multipv, m);
      renderInfo();
      break;
    case "error":
      showError(m.message);
      break;
    case "notice":
      window.ndchess.notices.push(m.message);
      $("error").textContent = m.message;
      break;
    case "watch": {
      const key = m.game.event + " #" + (m.game.index + 1);
      if (!watchGames.has(key)) {
        const o = document.createElement("option");
        o.value = key;
        o.textContent = key + ": " + m.game.players.join(" vs ");
        $("watch-game").appendChild(o);
      }
      watchGames.set(key, m);
      watchLatest = key;
      renderWatch();
      break;
    }
    case "standings":
      $("standings").textContent = `${m.event}: ${m.done} of ${m.total} games\n${m.text}`;
      break;
    case "pgn":
      download("game.pgn", m.pgn, "application/x-chess-pgn");
      break;
    case "svg":
      if (m.preview) {
        previewing = true;
        $("board").innerHTML = m.svg;
        $("preview-bar").hidden = false;
        $("fen-line").textContent = m.fen;
      } else {
        download("position.svg", m.svg, "image/svg+xml");
      }
      break;
  }
}

function download(name, text, type) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

function seatName(i) {
  return state && state.seats[i] ? state.seats[i].name : "seat " + i;
}

function render() {
  previewing = false;
  $("preview-bar").hidden = true;
  $("promo").hidden = true;
  selected = null;
  $("board").innerHTML = state.svg;
  $("fen-line").textContent = state.fen;
  $("error").textContent = "";
  if (document.activeElement !== $("variant")) $("variant").value = state.spec;
  let status;
  if (state.result) {
    status = `Game over: ${state.result} (${state.reason})`;
  } else if (state.asking !== null) {
    const who = seatName(state.asking);
    if (state.simultaneous) {
      const phase = state.phase === "exchange" ? "exchange phase: capture on a contested cell or pass" : "commit your move";
      status = `${who}: ${phase} (the other side decides without seeing it)`;
    } else {
      status = `${who} to move: your turn`;
    }
  } else if (state.thinking) {
    status = "The engine is thinking…";
  } else {
    status = state.deciding.length ? `${state.deciding.map(seatName).join(", ")} to decide` : "";
  }
  if (state.simultaneous && state.committed.length) {
    status += ` — committed: ${state.committed.map(seatName).join(", ")}`;
  }
  $("status").textContent = status;
  $("reveal").textContent = state.reveal ? "Turn revealed: " + state.reveal : "";
  clocksAt = performance.now();
  renderClocks();
  $("pass").hidden = !state.legal.some((l) => l.from === null);
  $("analyse").textContent = state.analysing ? "Analysing (click to end)" : "Analyse";
  const hist = $("history");
  hist.innerHTML = "";
  for (const step of state.history) {
    const li = document.createElement("li");
    // Move numbers as PGN writes them: "1." before the first seat's
    // step, "1…" before the others'.
    const mark = step.seats.includes(0) ? "." : "…";
    li.textContent = `${step.number}${mark} ${step.text}` + (step.note ? "  {" + step.note + "}" : "");
    hist.appendChild(li);
  }
  hist.scrollTop = hist.scrollHeight;
  if (!state.analysing && !state.thinking) {
    infos = new Map();
    renderInfo();
  }
}

function renderClocks() {
  const box = $("clocks");
  if (!state || !state.clocks_ms) { box.textContent = ""; return; }
  const passed = performance.now() - clocksAt;
  box.innerHTML = "";
  state.clocks_ms.forEach((ms, i) => {
    const running = state.clocks_running.includes(i);
    const span = document.createElement("span");
    span.className = running ? "running" : "";
    span.textContent = `${seatName(i)} ${clock(Math.max(0, running ? ms - passed : ms))}`;
    box.appendChild(span);
  });
}

function renderInfo() {
  const box = $("info");
  box.innerHTML = "";
  for (const k of [...infos.keys()].sort((a, b) => a - b)) {
    const m = infos.get(k);
    const div = document.createElement("div");
    div.className = "line";
    const head = document.createElement("div");
    head.textContent = `${seatName(m.seat)}: ${m.score}  depth ${m.depth}/${m.seldepth}  ` +
      `${m.nodes} nodes  ${Math.round(m.nps / 1000)} kn/s`;
    div.appendChild(head);
    const pv = document.createElement("div");
    pv.className = "pv";
    m.pv.forEach((mv, i) => {
      const span = document.createElement("span");
      span.textContent = mv;
      span.title = "show the position after this move";
      span.onclick = () => send({ type: "preview", moves: m.pv.slice(0, i + 1) });
      pv.appendChild(span);
    });
    div.appendChild(pv);
    box.appendChild(div);
  }
}

function clock(ms) {
  const s = ms / 1000;
  const min = Math.floor(s / 60);
  return min + ":" + (s - 60 * min).toFixed(1).padStart(4, "0");
}

function renderWatch() {
  const key = $("watch-game").value || watchLatest;
  const w = key && watchGames.get(key);
  if (!w) return;
  const g = w.game;
  const sides = g.players.map((p, i) => `${p} ${g.clocks ? clock(g.clocks_ms[i] || 0) : "(" + (g.clocks_ms[i] || 0) + " ms)"}`);
  $("watch-info").textContent = `${key} — ${g.variant}: ${sides.join("  vs  ")}` +
    (g.result ? `  — ${g.result} (${g.reason})` : "");
  $("watch-board").innerHTML = w.svg;
  $("watch-moves").textContent = g.moves.join(" ");
}

function clearMarks() {
  for (const r of document.querySelectorAll("#board rect.sel, #board rect.target")) {
    r.classList.remove("sel", "target");
  }
}

function selectCell(cell) {
  clearMarks();
  selected = cell;
  const rect = document.getElementById("c" + cell);
  if (rect) rect.classList.add("sel");
  for (const l of state.legal) {
    if (l.from === cell) {
      const t = document.getElementById("c" + l.to);
      if (t) t.classList.add("target");
    }
  }
}

function clickCell(cell) {
  if (previewing) { send({ type: "state" }); return; }
  if (!state || state.asking === null) return;
  if (selected === null) {
    if (state.legal.some((l) => l.from === cell)) selectCell(cell);
    return;
  }
  if (cell === selected) { clearMarks(); selected = null; return; }
  const moves = state.legal.filter((l) => l.from === selected && l.to === cell);
  if (moves.length === 0) {
    if (state.legal.some((l) => l.from === cell)) selectCell(cell);
    else { clearMarks(); selected = null; }
    return;
  }
  if (moves.length === 1) {
    send({ type: "move", text: moves[0].text });
    return;
  }
  const promo = $("promo");
  promo.innerHTML = "Promote to: ";
  for (const m of moves) {
    const b = document.createElement("button");
    b.textContent = m.label || m.text;
    b.dataset.move = m.text;
    b.onclick = () => { promo.hidden = true; send({ type: "move", text: m.text }); };
    promo.appendChild(b);
  }
  promo.hidden = false;
}

function numberOrNull(id) {
  const v = $(id).value.trim();
  return v === "" ? null : Number(v);
}

function init() {
  $("board").addEventListener("click", (ev) => {
    const el = ev.target.closest("[data-cell]");
    if (el) clickCell(Number(el.dataset.cell));
  });
  $("new").onclick = () => {
    const humans = $("humans").value.split(",").map((s) => s.trim()).filter((s) => s !== "").map(Number);
    if (humans.some((h) => !Number.isInteger(h) || h < 0)) { showError("seats are numbers 0, 1, …"); return; }
    infos = new Map();
    send({
      type: "new",
      variant: $("variant").value.trim(),
      fen: $("fen").value.trim() || null,
      humans,
      movetime_ms: numberOrNull("movetime"),
      depth: numberOrNull("depth"),
      time_control: $("tc").value.trim() || null,
    });
  };
  $("watch").onclick = () => {
    watching = !watching;
    send({ type: "watch", on: watching });
    $("watch-area").hidden = !watching;
    $("watch").textContent = watching ? "Stop watching" : "Watch matches";
  };
  $("watch-game").onchange = () => renderWatch();
  $("undo").onclick = () => send({ type: "undo" });
  $("flip").onclick = () => send({ type: "flip" });
  $("zoom").onclick = () => {
    const actual = $("board").classList.toggle("actual");
    $("zoom").textContent = actual ? "Fit to window" : "Full size";
  };
  $("resign").onclick = () => send({ type: "resign" });
  $("draw").onclick = () => send({ type: "draw" });
  $("play").onclick = () => { send({ type: "move", text: $("move-text").value }); $("move-text").value = ""; };
  $("move-text").addEventListener("keydown", (ev) => { if (ev.key === "Enter") $("play").click(); });
  $("pass").onclick = () => send({ type: "move", text: "0000" });
  $("analyse").onclick = () => send({ type: "analyse", on: !(state && state.analysing), multipv: numberOrNull("multipv") });
  $("stop").onclick = () => send({ type: "stop" });
  $("back").onclick = () => send({ type: "state" });
  $("import-pgn").onclick = () => send({ type: "import_pgn", pgn: $("pgn-text").value });
  $("export-pgn").onclick = () => send({ type: "export_pgn" });
  $("export-svg").onclick = () => send({ type: "export_svg" });
  setInterval(renderClocks, 100);
  connect();
}

init();
