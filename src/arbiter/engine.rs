//! External engines as players: a UCI or XBoard process that the arbiter
//! starts, tells the variant, feeds the game and times.
//!
//! The arbiter never trusts an engine: every line is read with a deadline,
//! every move is checked against the arbiter's own position, and a process
//! that crashes, hangs, or answers nonsense makes its seat forfeit. The
//! process is then killed and started afresh for the next game, so that a
//! tournament never stops because one engine misbehaves.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, unbounded};

use crate::board::registry;
use crate::board::seating::Seat;
use crate::board::variant::Variant;
use crate::game::clock::TimeControl;
use crate::game::driver::{Eval, Player, PlayerError, Request, Verdict};
use crate::game::record::{Game, Step};
use crate::rules::moves::{Decision, Move, MoveKind};
use crate::rules::position::Position;

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// Universal Chess Interface (with ndchess's variant extension when the
    /// engine offers it).
    Uci,
    /// XBoard / CECP protocol 2.
    Xboard,
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Protocol::Uci => "uci",
            Protocol::Xboard => "xboard",
        })
    }
}

/// How one engine is started and limited (cutechess-cli's `-engine`).
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSpec {
    /// Name in the PGN and tables.
    pub name: String,
    /// The program.
    pub cmd: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working directory.
    pub dir: Option<PathBuf>,
    /// Its protocol.
    pub proto: Protocol,
    /// Options set after the handshake (`option.Hash=64`).
    pub options: Vec<(String, String)>,
    /// The clocks.
    pub tc: Option<TimeControl>,
    /// Depth limit per move.
    pub depth: Option<u32>,
    /// Node limit per move.
    pub nodes: Option<u64>,
    /// Time a move may overstep the clock before it is lost on time.
    pub timemargin: Duration,
    /// How long the handshake (`uci`/`uciok`, `protover`/`done=1`) and a
    /// `isready`/`ping` may take.
    pub init_timeout: Duration,
    /// How long a move may take when no clock bounds it (depth or node
    /// limits): the engine is taken to hang after that.
    pub move_timeout: Duration,
    /// A file that receives the dialogue (`<` to the engine, `>` from it).
    pub debug_log: Option<PathBuf>,
}

impl EngineSpec {
    /// An engine running `cmd` with default limits.
    pub fn new(name: impl Into<String>, cmd: impl Into<String>, proto: Protocol) -> EngineSpec {
        EngineSpec {
            name: name.into(),
            cmd: cmd.into(),
            args: Vec::new(),
            dir: None,
            proto,
            options: Vec::new(),
            tc: None,
            depth: None,
            nodes: None,
            timemargin: Duration::from_millis(100),
            init_timeout: Duration::from_secs(10),
            move_timeout: Duration::from_secs(60),
            debug_log: None,
        }
    }
}

/// Why an engine could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The program could not be started.
    Spawn(String),
    /// The process ended.
    Exited,
    /// No answer within the time allowed for `what`.
    Timeout(&'static str),
    /// The engine cannot play the variant.
    Variant(String),
    /// The engine said something the protocol does not allow here.
    Protocol(String),
    /// The engine resigned.
    Resigned,
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Spawn(e) => write!(f, "cannot start: {e}"),
            EngineError::Exited => write!(f, "the engine process ended"),
            EngineError::Timeout(what) => write!(f, "no answer to {what} in time"),
            EngineError::Variant(e) => write!(f, "cannot play the variant: {e}"),
            EngineError::Protocol(e) => write!(f, "{e}"),
            EngineError::Resigned => write!(f, "resigns"),
        }
    }
}

impl std::error::Error for EngineError {}

impl From<EngineError> for PlayerError {
    fn from(e: EngineError) -> PlayerError {
        match e {
            EngineError::Exited => PlayerError::Crashed("the engine process ended".into()),
            EngineError::Spawn(s) => PlayerError::Crashed(format!("cannot start: {s}")),
            EngineError::Timeout(_) => PlayerError::Timeout,
            EngineError::Resigned => PlayerError::Resigned,
            other => PlayerError::Protocol(other.to_string()),
        }
    }
}

/// A running engine process: its input, and its output lines arriving on a
/// channel from a reader thread (so every read can have a deadline).
struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    log: Option<std::fs::File>,
}

impl Process {
    fn start(spec: &EngineSpec) -> Result<Process, EngineError> {
        let mut cmd = Command::new(&spec.cmd);
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(d) = &spec.dir {
            cmd.current_dir(d);
        }
        let mut child = cmd
            .spawn()
            .map_err(|e| EngineError::Spawn(format!("{}: {e}", spec.cmd)))?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| EngineError::Spawn("no standard input".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| EngineError::Spawn("no standard output".into()))?;
        let (tx, rx) = unbounded();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        // Garbage bytes are kept as replacement characters:
                        // the line is still a line, and still not a move.
                        let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let log = spec.debug_log.as_ref().and_then(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .ok()
        });
        Ok(Process {
            child,
            stdin,
            lines: rx,
            log,
        })
    }

    fn send(&mut self, line: &str) -> Result<(), EngineError> {
        if let Some(l) = self.log.as_mut() {
            let _ = writeln!(l, "< {line}");
        }
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|_| EngineError::Exited)
    }

    /// The next line, waiting until `deadline`.
    fn recv(&mut self, deadline: Instant, what: &'static str) -> Result<String, EngineError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => {
                if let Some(l) = self.log.as_mut() {
                    let _ = writeln!(l, "> {line}");
                }
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Timeout(what)),
            Err(RecvTimeoutError::Disconnected) => Err(EngineError::Exited),
        }
    }

    /// CPU time the engine has used (user + system), from /proc on Linux:
    /// its process and every process below it. An engine started through
    /// an adapter (PolyGlot) or a script that does not `exec` thinks in a
    /// child; the child's CPU is the engine's.
    fn cpu_time(&self) -> Option<Duration> {
        let ticks = tree_ticks(self.child.id())?;
        // The kernel's USER_HZ is 100 on every Linux this runs on.
        Some(Duration::from_millis(ticks * 10))
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Deepest process tree [`tree_ticks`] walks: an adapter, a shell and
/// the engine are three levels; a cycle is impossible in a process tree,
/// but a bound keeps a race (a reused pid) from walking far.
const PROCESS_TREE_DEPTH: u32 = 8;

/// CPU ticks of process `pid` and of every process below it: its own user
/// and system time, its waited-for children's (counted by the kernel once
/// they end), and its living descendants'. None if `pid` cannot be read.
fn tree_ticks(pid: u32) -> Option<u64> {
    let (own, _) = stat_of(pid)?;
    let below: u64 = descendants(pid).iter().map(|&(_, ticks)| ticks).sum();
    Some(own + below)
}

/// The living processes below `pid`, up to [`PROCESS_TREE_DEPTH`] levels,
/// each with its CPU ticks, from one scan of /proc that reads every stat
/// once (the kernel's per-task `children` lists are not built into every
/// kernel).
fn descendants(pid: u32) -> Vec<(u32, u64)> {
    // (parent, process, ticks) of every process readable now.
    let mut processes: Vec<(u32, u32, u64)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for e in entries.flatten() {
            let Some(p) = e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            if let Some((ticks, ppid)) = stat_of(p) {
                processes.push((ppid, p, ticks));
            }
        }
    }
    let mut found = Vec::new();
    let mut level = vec![pid];
    for _ in 0..PROCESS_TREE_DEPTH {
        let below: Vec<(u32, u64)> = processes
            .iter()
            .filter(|(ppid, _, _)| level.contains(ppid))
            .map(|&(_, p, ticks)| (p, ticks))
            .collect();
        if below.is_empty() {
            break;
        }
        level = below.iter().map(|&(p, _)| p).collect();
        found.extend_from_slice(&below);
    }
    found
}

/// A process's CPU ticks (user, system, and its waited-for children's)
/// and its parent, from `/proc/<pid>/stat`.
fn stat_of(pid: u32) -> Option<(u64, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold
    // spaces: ppid is field 4, utime, stime, cutime, cstime fields 14-17
    // (1-based).
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ppid = fields.get(1)?.parse().ok()?;
    let mut ticks = 0u64;
    for i in 11..=14 {
        ticks += fields.get(i)?.parse::<u64>().ok()?;
    }
    Some((ticks, ppid))
}

/// What the handshake learnt of an engine.
#[derive(Clone, Debug, Default)]
struct Features {
    /// UCI: the option names the engine lists, with their combo values.
    options: Vec<(String, Vec<String>)>,
    /// XBoard: `feature` values.
    xboard: Vec<(String, String)>,
    /// The engine's own name (`id name`, `myname`).
    id_name: Option<String>,
}

impl Features {
    fn option(&self, name: &str) -> Option<&(String, Vec<String>)> {
        self.options
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
    }

    fn xb(&self, key: &str) -> Option<&str> {
        self.xboard
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn xb_on(&self, key: &str) -> bool {
        self.xb(key) == Some("1")
    }
}

/// An external engine as a [`Player`]. It is started (or restarted) when a
/// game begins, and killed when it fails.
pub struct ExternalEngine {
    spec: EngineSpec,
    process: Option<Process>,
    features: Features,
    /// XBoard: plies of the current game the engine has been told.
    told: usize,
    /// Processes started so far (1 + restarts).
    starts: u32,
    /// CPU time of processes that ended.
    cpu_done: Duration,
    ping: u32,
}

impl fmt::Debug for ExternalEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ExternalEngine")
            .field("spec", &self.spec)
            .field("running", &self.process.is_some())
            .finish()
    }
}

impl Drop for ExternalEngine {
    fn drop(&mut self) {
        self.quit();
    }
}

impl ExternalEngine {
    /// An engine that will be started when the first game begins.
    pub fn new(spec: EngineSpec) -> ExternalEngine {
        ExternalEngine {
            spec,
            process: None,
            features: Features::default(),
            told: 0,
            starts: 0,
            cpu_done: Duration::ZERO,
            ping: 0,
        }
    }

    /// The spec it runs.
    pub fn spec(&self) -> &EngineSpec {
        &self.spec
    }

    /// How many times a process was started.
    pub fn starts(&self) -> u32 {
        self.starts
    }

    /// CPU time all its processes used so far.
    pub fn cpu_time(&self) -> Duration {
        self.cpu_done
            + self
                .process
                .as_ref()
                .and_then(Process::cpu_time)
                .unwrap_or_default()
    }

    /// Ends the process politely, then for sure.
    pub fn quit(&mut self) {
        if let Some(mut p) = self.process.take() {
            self.cpu_done += p.cpu_time().unwrap_or_default();
            let _ = p.send("quit");
            let deadline = Instant::now() + Duration::from_millis(300);
            while Instant::now() < deadline {
                if matches!(p.child.try_wait(), Ok(Some(_))) {
                    break;
                }
                thread::sleep(Duration::from_millis(10));
            }
            p.kill();
        }
    }

    /// Kills the process after a failure; the next game starts a new one.
    fn fail(&mut self, e: EngineError) -> PlayerError {
        if let Some(mut p) = self.process.take() {
            self.cpu_done += p.cpu_time().unwrap_or_default();
            p.kill();
        }
        e.into()
    }

    fn proc(&mut self) -> Result<&mut Process, EngineError> {
        self.process.as_mut().ok_or(EngineError::Exited)
    }

    /// Starts the process and runs the handshake, unless it runs already.
    fn ensure_started(&mut self) -> Result<(), EngineError> {
        if let Some(p) = self.process.as_mut()
            && matches!(p.child.try_wait(), Ok(None))
        {
            return Ok(());
        }
        self.process = None;
        self.process = Some(Process::start(&self.spec)?);
        self.starts += 1;
        self.features = Features::default();
        match self.spec.proto {
            Protocol::Uci => self.uci_handshake(),
            Protocol::Xboard => self.xboard_handshake(),
        }
    }

    fn uci_handshake(&mut self) -> Result<(), EngineError> {
        let deadline = Instant::now() + self.spec.init_timeout;
        self.proc()?.send("uci")?;
        loop {
            let line = self.proc()?.recv(deadline, "uci")?;
            let mut words = line.split_whitespace();
            match words.next() {
                Some("uciok") => break,
                Some("id") if words.next() == Some("name") => {
                    self.features.id_name = Some(words.collect::<Vec<_>>().join(" "));
                }
                Some("option") => {
                    if let Some(o) = parse_uci_option(&line) {
                        self.features.options.push(o);
                    }
                }
                _ => {}
            }
        }
        for (name, value) in self.spec.options.clone() {
            self.proc()?
                .send(&format!("setoption name {name} value {value}"))?;
        }
        self.isready("isready").map(|_| ())
    }

    /// `isready` … `readyok`; returns the lines the engine sent meanwhile.
    fn isready(&mut self, what: &'static str) -> Result<Vec<String>, EngineError> {
        let deadline = Instant::now() + self.spec.init_timeout;
        self.proc()?.send("isready")?;
        let mut seen = Vec::new();
        loop {
            let line = self.proc()?.recv(deadline, what)?;
            if line.trim() == "readyok" {
                return Ok(seen);
            }
            seen.push(line);
        }
    }

    fn xboard_handshake(&mut self) -> Result<(), EngineError> {
        let deadline = Instant::now() + self.spec.init_timeout;
        let p = self.proc()?;
        p.send("xboard")?;
        p.send("protover 2")?;
        loop {
            let line = self.proc()?.recv(deadline, "protover 2")?;
            let Some(rest) = line.trim().strip_prefix("feature ") else {
                continue;
            };
            let mut done = None;
            for (k, v) in parse_features(rest) {
                let reply = if KNOWN_FEATURES.contains(&k.as_str()) {
                    "accepted"
                } else {
                    "rejected"
                };
                self.proc()?.send(&format!("{reply} {k}"))?;
                if k == "done" {
                    done = Some(v == "1");
                } else if k == "myname" {
                    self.features.id_name = Some(v.clone());
                }
                self.features.xboard.push((k, v));
            }
            // `done=0`: the engine needs more time; keep reading.
            if done == Some(true) {
                break;
            }
        }
        for (name, value) in self.spec.options.clone() {
            self.proc()?.send(&format!("option {name}={value}"))?;
        }
        self.xboard_ping("ping")
    }

    fn xboard_ping(&mut self, what: &'static str) -> Result<(), EngineError> {
        if !self.features.xb_on("ping") {
            return Ok(());
        }
        self.ping += 1;
        let n = self.ping;
        let deadline = Instant::now() + self.spec.init_timeout;
        self.proc()?.send(&format!("ping {n}"))?;
        loop {
            let line = self.proc()?.recv(deadline, what)?;
            if line.split_whitespace().collect::<Vec<_>>() == ["pong", &n.to_string()] {
                return Ok(());
            }
        }
    }

    /// Tells a UCI engine the variant: `UCI_Chess960` for Chess960, the
    /// ndchess extension (`UCI_Variant` and the parameter options) for the
    /// other boards; checks the engine's announcement when it makes one.
    fn uci_variant(&mut self, v: &Variant) -> Result<(), EngineError> {
        let (family, values) = registry::parse(&v.spec)
            .map_err(|e| EngineError::Variant(format!("{}: {e}", v.spec)))?;
        let mut lines = Vec::new();
        let chess960 = v.fischer_random_notation;
        if self.features.option("UCI_Chess960").is_some() {
            lines.push(format!("setoption name UCI_Chess960 value {chess960}"));
        }
        let plain = match family.pgn {
            registry::PgnName::Standard => true,
            registry::PgnName::Known(_) => chess960 && family.params.len() <= 1,
            registry::PgnName::Spec => false,
        };
        match self.features.option("UCI_Variant") {
            Some((_, vars)) if vars.iter().any(|x| x.eq_ignore_ascii_case(family.name)) => {
                lines.push(format!("setoption name UCI_Variant value {}", family.name));
                for p in family.parameters() {
                    if let Some(value) = values.word(p.key)
                        && self.features.option(p.option).is_some()
                    {
                        // Flags are UCI check options: true/false.
                        let value = match (p.kind, value) {
                            (registry::ParamKind::Flag, "1") => "true",
                            (registry::ParamKind::Flag, _) => "false",
                            (_, v) => v,
                        };
                        lines.push(format!("setoption name {} value {value}", p.option));
                    }
                }
            }
            _ if plain => {}
            _ => {
                return Err(EngineError::Variant(format!(
                    "{} lists no UCI_Variant {}",
                    self.spec.name, family.name
                )));
            }
        }
        for l in &lines {
            self.proc()?.send(l)?;
        }
        let seen = self.isready("isready")?;
        // The ndchess extension announces the board it now plays; it must
        // be the one the arbiter means.
        if let Some(announced) = seen
            .iter()
            .rev()
            .find_map(|l| l.trim().strip_prefix("info string variant "))
        {
            let spec = announced.split_whitespace().next().unwrap_or("");
            let meant = registry::build(spec).map(|x| x.spec.clone());
            let same = meant.as_deref() == Ok(v.spec.as_str())
                || (chess960 && spec.starts_with("chess960"));
            if !same {
                return Err(EngineError::Variant(format!(
                    "the engine announced {spec}, the game is {}",
                    v.spec
                )));
            }
        }
        Ok(())
    }

    fn xboard_new_game(&mut self, game: &Game) -> Result<(), EngineError> {
        let v = game.start().variant().clone();
        let family = registry::parse(&v.spec)
            .map_err(|e| EngineError::Variant(e.to_string()))?
            .0;
        let xb_name = family
            .xboard
            .ok_or_else(|| EngineError::Variant(format!("{} has no XBoard name", family.name)))?;
        if xb_name != "normal" {
            let listed = self
                .features
                .xb("variants")
                .is_some_and(|l| l.split(',').any(|x| x.trim() == xb_name));
            if !listed {
                return Err(EngineError::Variant(format!(
                    "{} does not list the variant {xb_name}",
                    self.spec.name
                )));
            }
        }
        let p = self.proc()?;
        p.send("new")?;
        p.send("force")?;
        if xb_name != "normal" {
            p.send(&format!("variant {xb_name}"))?;
            p.send("force")?;
        }
        // Variant parameters the engine offers as options (WrapCastling).
        let values = registry::parse(&v.spec)
            .map_err(|e| EngineError::Variant(e.to_string()))?
            .1;
        let offered: Vec<String> = self
            .features
            .xboard
            .iter()
            .filter(|(k, _)| k == "option")
            .filter_map(|(_, o)| o.split_whitespace().next().map(str::to_string))
            .collect();
        for prm in family.parameters() {
            if let Some(value) = values.word(prm.key)
                && offered.iter().any(|o| o == prm.option)
            {
                self.proc()?
                    .send(&format!("option {}={value}", prm.option))?;
            }
        }
        let start = game.start().clone();
        let standard = Position::start(&v);
        if start.to_text() != standard.to_text() || v.fischer_random_notation {
            if !self.features.xb_on("setboard") {
                return Err(EngineError::Variant("the engine has no setboard".into()));
            }
            self.proc()?
                .send(&format!("setboard {}", start.to_text()))?;
        }
        let limits = self.xboard_limits();
        let p = self.proc()?;
        for l in limits {
            p.send(&l)?;
        }
        p.send("post")?;
        p.send("easy")?;
        self.told = 0;
        self.xboard_ping("ping")
    }

    fn xboard_limits(&self) -> Vec<String> {
        let mut out = Vec::new();
        match self.spec.tc {
            Some(TimeControl::Clock { moves, base, inc }) => {
                let secs = base.as_secs();
                let base_text = if secs % 60 == 0 && base.subsec_millis() == 0 {
                    format!("{}", secs / 60)
                } else {
                    format!("{}:{:02}", secs / 60, secs % 60)
                };
                out.push(format!("level {moves} {base_text} {}", inc.as_secs_f64()));
            }
            Some(TimeControl::PerMove(d)) => {
                out.push(format!("st {}", d.as_secs().max(1)));
            }
            None => {}
        }
        if let Some(d) = self.spec.depth {
            out.push(format!("sd {d}"));
        }
        if self.spec.tc.is_none() && self.spec.nodes.is_none() {
            // No clock: give a generous fixed time so the engine answers.
            out.push(format!("st {}", self.spec.move_timeout.as_secs().max(1)));
        }
        out
    }

    /// How long to wait for a move.
    fn move_deadline(&self, request: &Request<'_>) -> Instant {
        let grace = Duration::from_millis(500);
        let wait = match request.clock {
            Some(c) => c.left()[request.seat] + self.spec.timemargin + grace,
            None => self.spec.move_timeout,
        };
        Instant::now() + wait
    }

    fn uci_decide(&mut self, request: &Request<'_>) -> Result<Verdict, EngineError> {
        let game = request.game;
        let chess960 = game.start().variant().fischer_random_notation;
        let mut line = format!("position fen {}", game.start().to_text());
        let texts = move_texts(game, chess960)?;
        if !texts.is_empty() {
            line.push_str(" moves ");
            line.push_str(&texts.join(" "));
        }
        let mut go = String::from("go");
        if let Some(c) = request.clock {
            match c.control() {
                TimeControl::PerMove(d) => go.push_str(&format!(" movetime {}", d.as_millis())),
                TimeControl::Clock { inc, .. } => {
                    for (s, name) in [(0usize, 'w'), (1usize, 'b')] {
                        if let Some(t) = c.left().values().get(s) {
                            go.push_str(&format!(
                                " {name}time {} {name}inc {}",
                                t.as_millis(),
                                inc.as_millis()
                            ));
                        }
                    }
                    if let Some(m) = c.moves_to_go(request.seat) {
                        go.push_str(&format!(" movestogo {m}"));
                    }
                }
            }
        }
        if let Some(d) = self.spec.depth {
            go.push_str(&format!(" depth {d}"));
        }
        if let Some(n) = self.spec.nodes {
            go.push_str(&format!(" nodes {n}"));
        }
        if go == "go" {
            go.push_str(&format!(
                " movetime {}",
                self.spec.move_timeout.as_millis() / 2
            ));
        }
        let deadline = self.move_deadline(request);
        let p = self.proc()?;
        p.send(&line)?;
        p.send(&go)?;
        let mut eval = Eval::default();
        loop {
            let line = self.proc()?.recv(deadline, "go")?;
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => read_uci_info(&line, &mut eval),
                Some("bestmove") => {
                    let text = words.next().unwrap_or("");
                    let m = read_move(game.position(), text)?;
                    return Ok(verdict(m, eval));
                }
                _ => {}
            }
        }
    }

    fn xboard_decide(&mut self, request: &Request<'_>) -> Result<Verdict, EngineError> {
        let game = request.game;
        let chess960 = game.start().variant().fischer_random_notation;
        let usermove = self.features.xb_on("usermove");
        let mut lines = Vec::new();
        let mut pos = game.start().clone();
        for (i, ply) in game.plies().iter().enumerate() {
            let Step::Move(m) = ply.step else {
                return Err(EngineError::Variant(
                    "XBoard has no simultaneous turns".into(),
                ));
            };
            if i >= self.told {
                let text = xboard_move_text(&pos, m, chess960);
                lines.push(if usermove {
                    format!("usermove {text}")
                } else {
                    text
                });
            }
            pos.make(m);
        }
        if let Some(c) = request.clock {
            let own = c.left()[request.seat];
            let other = c
                .left()
                .iter()
                .find(|(s, _)| *s != request.seat)
                .map(|(_, t)| *t)
                .unwrap_or(own);
            lines.push(format!("time {}", own.as_millis() / 10));
            lines.push(format!("otim {}", other.as_millis() / 10));
        }
        lines.push("go".into());
        let deadline = self.move_deadline(request);
        let p = self.proc()?;
        for l in &lines {
            p.send(l)?;
        }
        let mut eval = Eval::default();
        loop {
            let line = self.proc()?.recv(deadline, "go")?;
            let t = line.trim();
            let mut words = t.split_whitespace();
            match words.next() {
                Some("move") => {
                    let text = words.next().unwrap_or("");
                    let m = read_move(game.position(), text)?;
                    // Back to force mode: the engine must not answer the
                    // opponent's move by itself.
                    self.proc()?.send("force")?;
                    self.told = game.plies().len() + 1;
                    return Ok(verdict(m, eval));
                }
                Some("resign") => {
                    self.proc()?.send("force")?;
                    return Err(EngineError::Resigned);
                }
                Some(w) if w.starts_with("Illegal") || w == "Error" => {
                    return Err(EngineError::Protocol(format!(
                        "the engine refused the game's moves: {t}"
                    )));
                }
                Some(w) if w.parse::<i64>().is_ok() => read_xboard_post(t, &mut eval),
                _ => {}
            }
        }
    }
}

/// Features the arbiter understands (the others are rejected, as
/// protocol 2 asks).
const KNOWN_FEATURES: &[&str] = &[
    "ping",
    "setboard",
    "playother",
    "san",
    "usermove",
    "time",
    "draw",
    "sigint",
    "sigterm",
    "reuse",
    "analyze",
    "myname",
    "variants",
    "colors",
    "ics",
    "name",
    "pause",
    "nps",
    "debug",
    "memory",
    "smp",
    "exclude",
    "setscore",
    "highlight",
    "option",
    "egt",
    "done",
];

fn verdict(m: Move, eval: Eval) -> Verdict {
    let note = match (eval.mate, eval.cp) {
        (Some(n), _) => Some(format!("mate {n}")),
        (None, Some(cp)) => Some(format!("{:+.2}", cp as f64 / 100.0)),
        _ => None,
    };
    let note = note.map(|n| match eval.depth {
        Some(d) => format!("{n}/{d}"),
        None => n,
    });
    Verdict {
        decision: Decision::Move(m),
        note,
        eval: (eval != Eval::default()).then_some(eval),
    }
}

/// The moves of the game in the protocols' coordinates.
fn move_texts(game: &Game, king_takes_rook: bool) -> Result<Vec<String>, EngineError> {
    let mut pos = game.start().clone();
    let mut out = Vec::with_capacity(game.plies().len());
    for ply in game.plies() {
        let Step::Move(m) = ply.step else {
            return Err(EngineError::Variant("UCI has no simultaneous turns".into()));
        };
        out.push(pos.move_text(m, king_takes_rook));
        pos.make(m);
    }
    Ok(out)
}

/// A move as XBoard writes it: castling in Fischer random as `O-O` /
/// `O-O-O`, otherwise coordinates with the king's move for castling.
fn xboard_move_text(pos: &Position, m: Move, chess960: bool) -> String {
    if chess960 && m.kind == MoveKind::Castle {
        return if castles_short(pos, m) {
            "O-O"
        } else {
            "O-O-O"
        }
        .into();
    }
    pos.move_text(m, false)
}

/// Whether a castling is on the side of the higher files (`O-O` in
/// chess): the rook stands beyond the king along the axis they share a
/// line on.
pub fn castles_short(pos: &Position, m: Move) -> bool {
    let g = &pos.variant().geometry;
    let (rook, king) = (g.coords(m.aux as usize), g.coords(m.from as usize));
    rook.iter()
        .zip(king)
        .find(|(r, k)| r != k)
        .is_some_and(|(r, k)| r > k)
}

/// Reads an engine's move (coordinates in either castling form, or
/// `O-O` / `O-O-O`) as a legal move of the position.
pub fn read_move(pos: &Position, text: &str) -> Result<Move, EngineError> {
    let illegal = || EngineError::Protocol(format!("illegal move {text:?}"));
    let castle = match text.trim_end_matches(['+', '#']) {
        "O-O" | "0-0" => Some(true),
        "O-O-O" | "0-0-0" => Some(false),
        _ => None,
    };
    if let Some(short) = castle {
        return pos
            .legal_moves()
            .into_iter()
            .find(|m| m.kind == MoveKind::Castle && castles_short(pos, *m) == short)
            .ok_or_else(illegal);
    }
    pos.parse_move(text).map_err(|_| illegal())
}

/// `option name <name> type combo default x var a var b …` → the name and
/// the combo values.
fn parse_uci_option(line: &str) -> Option<(String, Vec<String>)> {
    let rest = line.trim().strip_prefix("option name ")?;
    let (name, rest) = match rest.find(" type ") {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let vars = rest
        .split(" var ")
        .skip(1)
        .map(|v| v.trim().to_string())
        .collect();
    Some((name.trim().to_string(), vars))
}

/// `key=value key="quoted value" …` of an XBoard `feature` line.
fn parse_features(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while let Some(eq) = rest.find('=') {
        let key = rest[..eq].trim().to_string();
        let after = &rest[eq + 1..];
        let (value, next) = if let Some(q) = after.strip_prefix('"') {
            match q.find('"') {
                Some(end) => (q[..end].to_string(), &q[end + 1..]),
                None => (q.to_string(), ""),
            }
        } else {
            match after.find(char::is_whitespace) {
                Some(end) => (after[..end].to_string(), &after[end..]),
                None => (after.to_string(), ""),
            }
        };
        out.push((key, value));
        rest = next.trim_start();
    }
    out
}

fn read_uci_info(line: &str, eval: &mut Eval) {
    let words: Vec<&str> = line.split_whitespace().collect();
    // Bounds from aspiration windows are not the engine's verdict.
    if words
        .iter()
        .any(|w| *w == "lowerbound" || *w == "upperbound")
    {
        return;
    }
    let mut i = 1;
    let mut next = Eval::default();
    let mut has_score = false;
    while i < words.len() {
        match words[i] {
            "depth" => next.depth = words.get(i + 1).and_then(|w| w.parse().ok()),
            "score" => {
                match words.get(i + 1) {
                    Some(&"cp") => next.cp = words.get(i + 2).and_then(|w| w.parse().ok()),
                    Some(&"mate") => next.mate = words.get(i + 2).and_then(|w| w.parse().ok()),
                    _ => {}
                }
                has_score = next.cp.is_some() || next.mate.is_some();
                i += 2;
            }
            "pv" | "string" => break,
            _ => {}
        }
        i += 1;
    }
    if has_score {
        *eval = next;
    }
}

/// XBoard thinking output: `ply score time nodes pv…`, score in
/// centipawns, mates as ±100000+n (the convention Fairy-Max and most
/// engines use).
fn read_xboard_post(line: &str, eval: &mut Eval) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (Some(d), Some(s)) = (
        words.first().and_then(|w| w.parse::<u32>().ok()),
        words.get(1).and_then(|w| w.parse::<i32>().ok()),
    ) else {
        return;
    };
    *eval = if s.abs() >= 99_000 {
        let plies = 100_000 - s.abs();
        let moves = (plies + 1) / 2;
        Eval {
            cp: None,
            mate: Some(if s > 0 { moves.max(1) } else { -moves.max(1) }),
            depth: Some(d),
        }
    } else {
        Eval {
            cp: Some(s),
            mate: None,
            depth: Some(d),
        }
    };
}

impl Player for ExternalEngine {
    fn name(&self) -> String {
        self.spec.name.clone()
    }

    fn new_game(&mut self, game: &Game) -> Result<(), PlayerError> {
        let v: Arc<Variant> = game.start().variant().clone();
        let r = self.ensure_started().and_then(|_| match self.spec.proto {
            Protocol::Uci => self.uci_variant(&v).and_then(|_| {
                self.proc()?.send("ucinewgame")?;
                self.isready("isready").map(|_| ())
            }),
            Protocol::Xboard => self.xboard_new_game(game),
        });
        // A failed start says what the engine did not answer.
        r.map_err(|e| match self.fail(e.clone()) {
            PlayerError::Timeout => PlayerError::Protocol(e.to_string()),
            other => other,
        })
    }

    fn decide(&mut self, request: &Request<'_>) -> Result<Verdict, PlayerError> {
        if request.game.position().turn().is_simultaneous() {
            return Err(PlayerError::Protocol(
                "UCI and XBoard have no simultaneous turns".into(),
            ));
        }
        let r = match self.spec.proto {
            Protocol::Uci => self.uci_decide(request),
            Protocol::Xboard => self.xboard_decide(request),
        };
        match r {
            // A resignation is no failure: the engine stays.
            Err(EngineError::Resigned) => Err(PlayerError::Resigned),
            r => r.map_err(|e| self.fail(e)),
        }
    }

    fn game_over(&mut self, game: &Game) {
        if self.spec.proto == Protocol::Xboard
            && let Some(p) = self.process.as_mut()
        {
            let result = match game.end() {
                Some(end) => crate::protocol::text::result_text(end.outcome()),
                None => "*".into(),
            };
            let _ = p.send(&format!("result {result} {{game over}}"));
            let _ = p.send("force");
        }
    }
}

/// The seat that a request is for, named as the variant names it.
pub fn seat_name(v: &Variant, seat: Seat) -> String {
    v.seating.name(seat).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An engine behind a shell that does not `exec` it thinks in a
    /// grandchild of the arbiter: its CPU must be counted as the engine's.
    #[test]
    #[cfg(target_os = "linux")]
    fn cpu_time_counts_the_processes_below_the_engine() {
        // The shell starts a bounded busy loop in the background and waits.
        let mut shell = Command::new("sh")
            .arg("-c")
            .arg("sh -c 'i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); done' & wait")
            .spawn()
            .expect("sh runs");
        let pid = shell.id();
        // Bounded wait (not a timing assertion): until the loop has used
        // 0.1 s of CPU, or 60 s of waiting on a starved machine.
        let mut seen = (0, 0);
        for _ in 0..600 {
            let own = stat_of(pid).map_or(0, |(t, _)| t);
            let tree = tree_ticks(pid).unwrap_or(0);
            seen = (own, tree);
            if tree >= own + 10 {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let below = descendants(pid);
        for (p, _) in &below {
            let _ = Command::new("kill").arg(p.to_string()).status();
        }
        let _ = shell.kill();
        let _ = shell.wait();
        assert!(!below.is_empty(), "the busy loop runs below the shell");
        assert!(
            seen.1 >= seen.0 + 10,
            "the tree's ticks {} include the loop's, above the shell's own {}",
            seen.1,
            seen.0
        );
    }

    #[test]
    fn uci_options_and_combo_values_are_read() {
        let (n, v) =
            parse_uci_option("option name UCI_Variant type combo default chess var chess var cube")
                .unwrap();
        assert_eq!(n, "UCI_Variant");
        assert_eq!(v, ["chess", "cube"]);
        let (n, v) =
            parse_uci_option("option name Move Overhead type spin default 10 min 0 max 5000")
                .unwrap();
        assert_eq!(n, "Move Overhead");
        assert!(v.is_empty());
    }

    #[test]
    fn xboard_features_with_quotes_are_read() {
        let f =
            parse_features(r#"ping=1 myname="Fairy-Max 5.0b" variants="normal,cylinder" done=1"#);
        assert_eq!(
            f,
            [
                ("ping".into(), "1".into()),
                ("myname".into(), "Fairy-Max 5.0b".into()),
                ("variants".into(), "normal,cylinder".into()),
                ("done".into(), "1".into())
            ]
        );
    }

    #[test]
    fn scores_from_both_protocols() {
        let mut e = Eval::default();
        read_uci_info(
            "info depth 12 seldepth 20 score cp -35 nodes 100 pv e2e4",
            &mut e,
        );
        assert_eq!((e.cp, e.mate, e.depth), (Some(-35), None, Some(12)));
        read_uci_info("info depth 13 score cp 50 lowerbound", &mut e);
        assert_eq!(e.cp, Some(-35), "a bound is not a verdict");
        read_uci_info("info depth 14 score mate -3 pv e2e4", &mut e);
        assert_eq!((e.cp, e.mate), (None, Some(-3)));
        read_xboard_post("9 -120 55 12345 e7e5 g1f3", &mut e);
        assert_eq!((e.cp, e.depth), (Some(-120), Some(9)));
        read_xboard_post("9 99995 55 12345 e7e5", &mut e);
        assert_eq!(e.mate, Some(3));
    }
}
