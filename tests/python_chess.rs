//! The binary driven by python-chess, a widely used independent client of
//! both protocols: `chess.engine.SimpleEngine.popen_uci` (UCI issue,
//! acceptance 1) and `popen_xboard` (XBoard issue, acceptance 1). The
//! scripts live in tests/python/ and engines/; each one exits non-zero on
//! any problem, including anything python-chess logs as a warning or error
//! (the XBoard scripts name the two messages they expect and why).
//!
//! python-chess is the PyPI package `chess` (`.ci/run` installs it). When
//! it is missing the tests fail if the environment variable `CI` is set
//! and are skipped with a loud message otherwise.

use std::path::Path;
use std::process::Command;

fn python_chess_available() -> bool {
    Command::new("python3")
        .args(["-c", "import chess.engine"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Runs `python3 <script> <binary> [args]`; false if skipped.
fn run_script(script: &str, args: &[&str]) -> bool {
    if !python_chess_available() {
        let msg = "python3 with python-chess (PyPI package `chess`) is not available; \
                   install it with `python3 -m pip install chess`";
        if std::env::var_os("CI").is_some() {
            panic!("{msg} (required when CI is set)");
        }
        eprintln!("\n!!!!! SKIPPED {script}: {msg} !!!!!\n");
        return false;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join(script))
        .arg(env!("CARGO_BIN_EXE_ndchess"))
        .args(args)
        .current_dir(root)
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3 {script}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("{script}:\n{stdout}{stderr}");
    assert!(
        out.status.success(),
        "{script} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    true
}

#[test]
fn python_chess_self_play_chess_and_chess960() {
    // Chess960 start 0 (BBQNNRKR): king next to its rook, where only the
    // king-takes-rook castling notation is unambiguous.
    run_script("tests/python/uci_games.py", &["0"]);
}

#[test]
fn python_chess_analysis_and_configuration() {
    run_script("tests/python/uci_analyse.py", &[]);
}

#[test]
fn python_chess_example_snippet_runs() {
    run_script("engines/python_chess_example.py", &[]);
}

#[test]
fn python_chess_xboard_self_play_normal_and_fischerandom() {
    run_script("tests/python/xboard_games.py", &["0"]);
}

#[test]
fn python_chess_xboard_analysis_and_configuration() {
    run_script("tests/python/xboard_analyse.py", &[]);
}
