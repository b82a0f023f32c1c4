//! Starting `ndchess serve` on a free port for a test.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A running server, killed when dropped.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT/`.
    pub url: String,
}

impl Server {
    /// Starts `ndchess serve --port 0` with `extra` arguments and waits
    /// for the URL it prints.
    pub fn start(extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ndchess"))
            .args(["serve", "--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("ndchess serve starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("ndchess serve prints its URL");
        let url = line
            .trim()
            .strip_prefix("ndchess serve: ")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .to_string();
        Server { child, url }
    }

    /// The server's process id (for its memory).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether the server still runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Where the tests leave screenshots and rendered diagrams.
pub fn log_dir(sub: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("ci-logs/gui")
        .join(sub);
    std::fs::create_dir_all(&dir).expect("ci-logs/gui can be created");
    dir
}

/// Whether a command runs (`--version`).
pub fn tool_runs(cmd: &str, args: &[&str]) -> bool {
    Command::new(cmd)
        .args(args)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Fails under CI, skips loudly otherwise; `false` means skipped.
pub fn require(available: bool, what: &str, test: &str) -> bool {
    if available {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!("{what} is not available (required when CI is set)");
    }
    eprintln!("\n!!!!! SKIPPED {test}: {what} is not available !!!!!\n");
    false
}
