//! The arbiter: matches against external engines (Fairy-Stockfish,
//! Stockfish, Fairy-Max) with every PGN replayed by python-chess or by
//! `ndchess pgn check`, matches on the n-D boards, misbehaving engines,
//! recovery after a kill, sharding under GNU parallel, and the statistics
//! against an independent computation.
//!
//! Tests that need an external program skip loudly without it, and fail
//! when `CI` is set (`.ci/run` installs them all).

mod faults;
mod matches;
mod shards;
mod stats;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary under test.
pub fn ndchess() -> &'static str {
    env!("CARGO_BIN_EXE_ndchess")
}

/// The repository root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh directory for one test's files.
pub fn workdir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("arbiter")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Whether `program` runs (`--version`-style probe `args`); without it the
/// test is skipped loudly, or fails under CI.
pub fn have(program: &str, args: &[&str], what: &str) -> bool {
    let ok = Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        let msg = format!("{program} is not available ({what})");
        if std::env::var_os("CI").is_some() {
            panic!("{msg}: required when CI is set");
        }
        eprintln!("\n!!!!! SKIPPED: {msg} !!!!!\n");
    }
    ok
}

/// Whether python3 with python-chess is there.
pub fn have_python_chess() -> bool {
    have(
        "python3",
        &["-c", "import chess.pgn"],
        "python3 -m pip install chess",
    )
}

/// Runs the arbiter in `dir` with `args`; panics with its output when it
/// fails.
pub fn arbiter(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(ndchess())
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    if !out.status.success() {
        panic!(
            "ndchess {args:?} failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    out
}

/// Runs the arbiter with the words of `line` (no word holds a blank).
pub fn arbiter_line(dir: &Path, line: &str) -> Output {
    arbiter(dir, &line.split_whitespace().collect::<Vec<_>>())
}

/// `ndchess pgn check FILE`: every game replays by the rules; returns the
/// final positions.
pub fn pgn_check(dir: &Path, file: &str) -> Vec<String> {
    let out = arbiter(dir, &["pgn", "check", file]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            assert!(l.contains(": ok;"), "{l}");
            l.split("; final ").nth(1).unwrap_or("").to_string()
        })
        .collect()
}

/// python-chess replays a PGN: every move legal, every result right.
pub fn python_replay(dir: &Path, file: &str) {
    let out = Command::new("python3")
        .arg(root().join("tests/python/replay_pgn.py"))
        .arg(dir.join(file))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!("{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "python-chess disagrees with {file}:\n{text}"
    );
}

/// The journal's game records.
pub fn journal(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("game").cloned())
        .collect()
}
