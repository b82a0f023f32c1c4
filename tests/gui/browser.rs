//! The page in a real Chromium: tests/python/gui_browser.py plays chess,
//! the 3-D and 4-D diamonds, the cube and synchronous chess by clicking,
//! finishes games by mate and resignation, imports and exports PGN and SVG.

use std::path::Path;
use std::process::Command;

use crate::server::{Server, log_dir, require, tool_runs};

fn chromium() -> Option<String> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(p.to_string_lossy().into_owned());
    }
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .find(|p| Path::new(p).exists())
        .map(|p| p.to_string())
}

#[test]
fn a_person_plays_every_board_family_in_chromium() {
    let browser = chromium();
    if !require(
        browser.is_some(),
        "Chromium (Debian package `chromium`)",
        "browser test",
    ) {
        return;
    }
    let playwright = tool_runs("python3", &["-c", "import playwright.sync_api, chess"]);
    if !require(
        playwright,
        "Playwright for Python and python-chess (`python3 -m pip install playwright chess`)",
        "browser test",
    ) {
        return;
    }
    let server = Server::start(&["--hash", "8"]);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("tests/python/gui_browser.py"))
        .arg(&server.url)
        .arg(env!("CARGO_BIN_EXE_ndchess"))
        .arg(log_dir("browser"))
        .env("CHROMIUM", browser.expect("checked above"))
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("gui_browser.py:\n{stdout}{stderr}");
    assert!(
        out.status.success(),
        "gui_browser.py failed:\n{stdout}\n{stderr}"
    );
    assert!(stdout.contains("all checks passed"));
}
