//! docs/xboard.md's transcript is real: every fenced block of type
//! `xboard` is replayed through the XBoard front-end in-process (lines
//! starting with `> ` are input, the others the output the documentation
//! shows) and the output must match. Search output is compared by shape:
//! a run of thinking lines (`ply score time nodes pv`) matches a run of
//! any length, and `move X` matches any `move` line; every other line
//! (features, errors, results, `setup`, `pong`) must be equal.

use crossbeam_channel::unbounded;
use ndchess::protocol::session::SessionConfig;
use ndchess::protocol::uci::Flow;
use ndchess::protocol::xboard::XBoard;

const CONFIG: SessionConfig = SessionConfig {
    max_hash_mb: 16_384,
    max_threads: 256,
};

fn is_thinking(line: &str) -> bool {
    let w: Vec<&str> = line.split_whitespace().collect();
    w.len() >= 4 && w[..4].iter().all(|t| t.parse::<i64>().is_ok())
}

/// The lines with every run of thinking lines replaced by one marker and
/// every move by `move *`.
fn shape(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for l in lines {
        let s = if is_thinking(l) {
            "<thinking>".to_string()
        } else if l.starts_with("move ") {
            "move *".to_string()
        } else {
            l.clone()
        };
        if s == "<thinking>" && out.last().is_some_and(|x| x == "<thinking>") {
            continue;
        }
        out.push(s);
    }
    out
}

/// The `xboard` blocks of the document: (input, expected output) pairs.
fn transcripts(doc: &str) -> Vec<Vec<(String, Vec<String>)>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<(String, Vec<String>)>> = None;
    for line in doc.lines() {
        match (&mut current, line) {
            (None, "```xboard") => current = Some(Vec::new()),
            (Some(_), "```") => blocks.push(current.take().expect("inside a block")),
            (Some(b), l) => match l.strip_prefix("> ") {
                Some(input) => b.push((input.to_string(), Vec::new())),
                None => b
                    .last_mut()
                    .expect("a block starts with an input line")
                    .1
                    .push(l.to_string()),
            },
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn the_transcript_replays() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/xboard.md"))
        .expect("docs/xboard.md is readable");
    let blocks = transcripts(&doc);
    assert!(!blocks.is_empty(), "no xboard transcript in docs/xboard.md");
    for block in blocks {
        let (tx, rx) = unbounded();
        let mut xb = XBoard::new(tx, CONFIG);
        for (input, expected) in block {
            let flow = xb.handle(&input);
            if flow == Flow::Quit {
                break;
            }
            xb.wait_idle();
            let got: Vec<String> = rx.try_iter().collect();
            assert_eq!(
                shape(&got),
                shape(&expected),
                "after '{input}': got {got:#?}"
            );
        }
    }
}
