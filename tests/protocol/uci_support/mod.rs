//! Shared helpers of the UCI integration tests: the `ndchess` binary as a
//! child process spoken to over pipes, with every output line timestamped
//! on arrival by a reader thread.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, unbounded};

/// How long a test waits for an expected line before it gives up and
/// prints the transcript. A guard against hanging forever, not a
/// performance limit: every wait in these tests is for something that
/// takes milliseconds to a few seconds.
pub const HANG_GUARD: Duration = Duration::from_secs(180);

/// The binary under test.
pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_ndchess")
}

/// A running `ndchess`.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<(Instant, String)>,
    /// Everything sent (`> `) and received, in order of events.
    pub transcript: Vec<String>,
}

impl EngineProcess {
    /// Starts `ndchess` with `args` (none: protocol auto-detection).
    pub fn start(args: &[&str]) -> EngineProcess {
        let mut c = Command::new(binary());
        c.args(args);
        EngineProcess::spawn(c)
    }

    /// Starts any command with piped stdin and stdout.
    pub fn spawn(mut command: Command) -> EngineProcess {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
        let stdout = child.stdout.take().expect("stdout was piped");
        let stdin = child.stdin.take();
        let (tx, rx) = unbounded();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match r.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        let now = Instant::now();
                        let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                        if tx.send((now, line)).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        EngineProcess {
            child,
            stdin,
            rx,
            transcript: Vec::new(),
        }
    }

    /// Sends one line; returns the time it was written.
    pub fn send(&mut self, line: &str) -> Instant {
        self.transcript.push(format!("> {line}"));
        self.send_bytes(format!("{line}\n").as_bytes())
    }

    /// Sends raw bytes (no line end added); returns the time just before
    /// the write, so that a latency measured from it includes the write.
    pub fn send_bytes(&mut self, bytes: &[u8]) -> Instant {
        let sent = Instant::now();
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin
            .write_all(bytes)
            .and_then(|_| stdin.flush())
            .unwrap_or_else(|e| panic!("engine stdin closed: {e}\n{}", self.dump()));
        sent
    }

    /// Every line sent (`> `) and received so far, in order.
    pub fn transcript(&self) -> &[String] {
        &self.transcript
    }

    /// The last lines of the transcript, for a failure message.
    pub fn dump(&self) -> String {
        let n = self.transcript.len();
        let tail = &self.transcript[n.saturating_sub(60)..];
        format!(
            "transcript (last {} lines):\n{}",
            tail.len(),
            tail.join("\n")
        )
    }

    /// The next output line, or `None` if the engine closed its output.
    pub fn next_line(&mut self) -> Option<(Instant, String)> {
        match self.rx.recv_timeout(HANG_GUARD) {
            Ok((t, l)) => {
                self.transcript.push(l.clone());
                Some((t, l))
            }
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => {
                panic!("no output for {HANG_GUARD:?}\n{}", self.dump())
            }
        }
    }

    /// Output lines that arrived so far, without waiting.
    pub fn pending(&mut self) -> Vec<(Instant, String)> {
        let got: Vec<_> = self.rx.try_iter().collect();
        for (_, l) in &got {
            self.transcript.push(l.clone());
        }
        got
    }

    /// Reads lines until one satisfies `pred`; returns all lines read (the
    /// matching one last).
    pub fn read_until(
        &mut self,
        what: &str,
        pred: impl Fn(&str) -> bool,
    ) -> Vec<(Instant, String)> {
        let mut lines = Vec::new();
        let started = Instant::now();
        loop {
            if started.elapsed() > HANG_GUARD {
                panic!("no {what} for {HANG_GUARD:?}\n{}", self.dump());
            }
            match self.next_line() {
                Some((t, l)) => {
                    let done = pred(&l);
                    lines.push((t, l));
                    if done {
                        return lines;
                    }
                }
                None => panic!("output ended while waiting for {what}\n{}", self.dump()),
            }
        }
    }

    /// Reads until the line equal to `exact`.
    pub fn expect(&mut self, exact: &str) -> Vec<(Instant, String)> {
        self.read_until(exact, |l| l == exact)
    }

    /// Sends `isready` and waits for `readyok`; returns the lines before.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines: Vec<String> = self.expect("readyok").into_iter().map(|x| x.1).collect();
        lines.pop();
        lines
    }

    /// Sends `quit`, closes stdin and waits for the process to exit.
    pub fn quit(mut self) -> ExitStatus {
        self.send("quit");
        self.stdin = None;
        while self.next_line().is_some() {}
        self.child.wait().expect("the child can be waited for")
    }

    /// Closes stdin (end of input) and waits for the exit.
    pub fn close(mut self) -> ExitStatus {
        self.stdin = None;
        while self.next_line().is_some() {}
        self.child.wait().expect("the child can be waited for")
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// The value after `key` in a whitespace-separated line.
pub fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut w = line.split_whitespace();
    while let Some(x) = w.next() {
        if x == key {
            return w.next();
        }
    }
    None
}

/// The moves after `pv` in an `info` line.
pub fn pv(line: &str) -> Vec<&str> {
    let mut w = line.split_whitespace();
    for x in w.by_ref() {
        if x == "pv" {
            break;
        }
    }
    w.collect()
}

/// Runs `ndchess <args>` to its end and returns its stdout.
pub fn run_cli(args: &[&str]) -> String {
    let out = Command::new(binary())
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", binary()));
    assert!(
        out.status.success(),
        "ndchess {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The path of an external program: on the PATH, or in /usr/games (where
/// Debian puts xboard, Fairy-Max and PolyGlot, often not on the PATH).
pub fn find_tool(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/games")])
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}
