//! docs/protocol.md's transcripts are real: every fenced block of type
//! `uci` is replayed through the binary (lines starting with `> ` are
//! input, the others the output the documentation shows) and the output
//! must match. Search output is compared by shape, not by value, so that a
//! change of the evaluation does not make the documentation wrong: a run
//! of `info depth …` lines matches a run of any length, a `bestmove` line
//! matches any `bestmove` (but `bestmove (none)` only itself); every other
//! line (options, announcements, perft counts, errors) must be equal.
//!
//! `cargo test --release --test protocol uci_docs -- --ignored --nocapture`
//! prints fresh transcripts of the same inputs for pasting into the
//! documentation.

use crate::uci_support;
use std::time::Duration;

use uci_support::EngineProcess;

/// One input line and the output it produced.
type Exchange = (String, Vec<String>);

/// Sends `input` and collects the output of each line: a bounded `go`
/// until its `bestmove` (or error), `go perft` until its total, `go
/// infinite`/`go ponder` its first report (and up to two more), `quit`
/// everything to the end, any other command until a hidden `isready` is
/// answered.
fn replay(input: &[String]) -> Vec<Exchange> {
    let mut e = EngineProcess::start(&[]);
    let mut out = Vec::new();
    for line in input {
        e.send(line);
        let words: Vec<&str> = line.split_whitespace().collect();
        let lines: Vec<String> = match words.as_slice() {
            ["quit"] => {
                let mut v = Vec::new();
                while let Some((_, l)) = e.next_line() {
                    v.push(l);
                }
                out.push((line.clone(), v));
                return out;
            }
            // A running search reports whenever it finishes a depth, so
            // its `info` lines may come before `readyok` at any time: the
            // transcript shows `readyok` alone.
            ["isready"] => e
                .expect("readyok")
                .into_iter()
                .map(|x| x.1)
                .filter(|l| !l.starts_with("info depth"))
                .collect(),
            ["go", "perft", ..] => e
                .read_until("perft total", |l| {
                    l.starts_with("Nodes searched") || l.starts_with("info string error")
                })
                .into_iter()
                .map(|x| x.1)
                .collect(),
            ["go", rest @ ..] if rest.contains(&"infinite") || rest.contains(&"ponder") => {
                // The first report, and what else came within 100 ms; the
                // example keeps at most three lines.
                let mut v: Vec<String> = e
                    .read_until("a first report", |l| l.starts_with("info"))
                    .into_iter()
                    .map(|x| x.1)
                    .collect();
                std::thread::sleep(Duration::from_millis(100));
                v.extend(e.pending().into_iter().map(|x| x.1));
                v.truncate(3);
                v
            }
            ["go", ..] => e
                .read_until("bestmove", |l| {
                    l.starts_with("bestmove") || l.starts_with("info string error")
                })
                .into_iter()
                .map(|x| x.1)
                .collect(),
            ["stop"] | ["ponderhit"] => {
                let mut v: Vec<String> = e
                    .read_until("bestmove", |l| l.starts_with("bestmove"))
                    .into_iter()
                    .map(|x| x.1)
                    .filter(|l| !l.starts_with("info depth"))
                    .collect();
                v.insert(0, "info depth …".to_string());
                v
            }
            _ => e.sync(),
        };
        out.push((line.clone(), lines));
    }
    e.close();
    out
}

/// A line's shape for the comparison.
fn shape(l: &str) -> String {
    if l.starts_with("info depth") {
        "info depth …".to_string()
    } else if l == "bestmove (none)" {
        l.to_string()
    } else if l.starts_with("bestmove ") {
        "bestmove …".to_string()
    } else if let Some(rest) = l.strip_prefix("info string strategy ") {
        // The seat, not the probabilities (they follow the evaluation).
        format!(
            "info string strategy {} …",
            rest.split_whitespace().next().unwrap_or("")
        )
    } else if l.starts_with("id name ndchess") {
        "id name ndchess".to_string()
    } else {
        l.to_string()
    }
}

fn shapes(lines: &[String]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for l in lines {
        let s = shape(l);
        if s == "info depth …" && v.last().is_some_and(|x| *x == s) {
            continue;
        }
        v.push(s);
    }
    v
}

/// The `uci` blocks of docs/protocol.md as (title line before the block,
/// exchanges).
fn doc_blocks() -> Vec<(String, Vec<Exchange>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/protocol.md");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut blocks = Vec::new();
    let mut current: Option<Vec<Exchange>> = None;
    let mut title = String::new();
    let mut last_text = String::new();
    for line in text.lines() {
        match &mut current {
            None if line.trim() == "```uci" => {
                title = last_text.clone();
                current = Some(Vec::new());
            }
            None => {
                if !line.trim().is_empty() {
                    last_text = line.to_string();
                }
            }
            Some(_) if line.trim() == "```" => {
                blocks.push((title.clone(), current.take().expect("in a block")));
            }
            Some(ex) => match line.strip_prefix("> ") {
                Some(input) => ex.push((input.to_string(), Vec::new())),
                None => match ex.last_mut() {
                    Some(last) => last.1.push(line.to_string()),
                    None => panic!("output before any input in a uci block: {line}"),
                },
            },
        }
    }
    assert!(current.is_none(), "unterminated uci block");
    blocks
}

#[test]
fn protocol_doc_transcripts_are_reproduced_by_the_binary() {
    let blocks = doc_blocks();
    assert!(
        blocks.len() >= 4,
        "transcripts for chess, Chess960, the cube and the 4-D diamond"
    );
    for (title, want) in &blocks {
        let input: Vec<String> = want.iter().map(|x| x.0.clone()).collect();
        let got = replay(&input);
        assert_eq!(got.len(), want.len(), "{title}");
        for ((cmd, w), (_, g)) in want.iter().zip(&got) {
            assert_eq!(
                shapes(g),
                shapes(w),
                "block after '{title}', output of '> {cmd}':\n got {g:#?}\nwant {w:#?}"
            );
        }
    }
}

/// The inputs of the documentation's transcripts, by block.
fn transcript_inputs() -> Vec<(&'static str, Vec<&'static str>)> {
    vec![
        (
            "chess",
            vec![
                "uci",
                "isready",
                "setoption name Hash value 64",
                "setoption name UCI_ShowWDL value true",
                "ucinewgame",
                "isready",
                "position startpos moves e2e4 e7e5 g1f3",
                "go wtime 3000 btime 3000 winc 100 binc 100",
                "go depth 6 searchmoves b8c6 g8f6",
                "position startpos",
                "go infinite",
                "isready",
                "stop",
                "go perft 2",
                "position fen 7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
                "go depth 5",
                "quit",
            ],
        ),
        (
            "Chess960",
            vec![
                "setoption name UCI_Chess960 value true",
                "ucinewgame",
                "position fen bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w GEge - 0 1",
                "go perft 1",
                "position fen bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w GEge - 0 1 moves f1g1 e7e5",
                "go depth 5",
                "setoption name Chess960Number value 518",
                "setoption name UCI_Variant value chess960",
                "position startpos moves e1h1",
                "go depth 1",
                "position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6 e1h1",
                "go depth 4",
                "quit",
            ],
        ),
        (
            "cube",
            vec![
                "setoption name UCI_Variant value cube",
                "position startpos moves b2ab3a c3dc3g",
                "go depth 5",
                "go perft 2",
                "position fen 4/4/4/K3|4/4/4/4|1P2/4/4/4|3k/4/4/4 w - - 0 1",
                "go depth 4",
                "quit",
            ],
        ),
        (
            "4-D diamond",
            vec![
                "setoption name UCI_Variant value diamond",
                "setoption name Dimension value 4",
                "position startpos moves eEd2eEd4 eEd7eEd5",
                "go depth 3",
                "go nodes 20000",
                "position startpos moves εEd2εEd4",
                "setoption name EdgeLength value 9",
                "position startpos moves eEd2eEd5",
                "quit",
            ],
        ),
    ]
}

#[test]
#[ignore = "prints transcripts for docs/protocol.md"]
fn print_transcripts() {
    for (name, input) in transcript_inputs() {
        let input: Vec<String> = input.iter().map(|s| s.to_string()).collect();
        println!("{name}:\n\n```uci");
        for (cmd, lines) in replay(&input) {
            println!("> {cmd}");
            for l in lines {
                println!("{l}");
            }
        }
        println!("```\n");
    }
}
