//! The examples of docs/notation.md are real: every checked block (see the
//! last section of that page) is read, played or compared here, and the
//! start positions are compared with what the `ndchess` binary prints.

use std::collections::HashMap;
use std::sync::Arc;

use ndchess::board::variant::Variant;
use ndchess::rules::position::Position;

/// A checked example block: its keyword, variant spec, body lines and the
/// line number of its header in the file (for messages).
struct Block {
    keyword: String,
    spec: String,
    body: Vec<String>,
    line: usize,
}

const KEYWORDS: [&str; 6] = ["start", "position", "accepts", "rejects", "moves", "cells"];

fn blocks() -> Vec<Block> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/notation.md");
    let text = std::fs::read_to_string(path).expect("docs/notation.md exists");
    let mut out = Vec::new();
    let mut current: Option<(usize, Vec<String>)> = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            match current.take() {
                None => current = Some((i + 1, Vec::new())),
                Some((start, lines)) => {
                    let Some(header) = lines.first() else {
                        continue;
                    };
                    let Some((keyword, spec)) = header.split_once(' ') else {
                        continue;
                    };
                    if KEYWORDS.contains(&keyword) {
                        out.push(Block {
                            keyword: keyword.to_string(),
                            spec: spec.trim().to_string(),
                            body: lines[1..].to_vec(),
                            line: start + 1,
                        });
                    }
                }
            }
        } else if let Some((_, lines)) = current.as_mut() {
            lines.push(line.to_string());
        }
    }
    assert!(
        current.is_none(),
        "docs/notation.md has an unclosed code fence"
    );
    out
}

struct Variants(HashMap<String, Arc<Variant>>);

impl Variants {
    fn get(&mut self, spec: &str) -> Arc<Variant> {
        self.0
            .entry(spec.to_string())
            .or_insert_with(|| {
                Variant::from_spec(spec).unwrap_or_else(|e| panic!("spec '{spec}': {e}"))
            })
            .clone()
    }
}

/// The `position:` line of `ndchess show --variant <spec>`.
fn binary_start_text(spec: &str) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ndchess"))
        .args(["show", "--variant", spec])
        .output()
        .expect("the ndchess binary runs");
    assert!(out.status.success(), "ndchess show --variant {spec} failed");
    let stdout = String::from_utf8(out.stdout).expect("utf-8 output");
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("position: "))
        .unwrap_or_else(|| panic!("no position line for {spec}:\n{stdout}"))
        .to_string()
}

fn check_start(v: &Arc<Variant>, b: &Block) {
    let [text] = b.body.as_slice() else {
        panic!("line {}: a start block has one text line", b.line)
    };
    assert_eq!(
        *text,
        binary_start_text(&b.spec),
        "line {}: start of {}",
        b.line,
        b.spec
    );
    assert_eq!(*text, Position::start(v).to_text(), "line {}", b.line);
    round_trip(v, text, b.line);
}

fn round_trip(v: &Arc<Variant>, text: &str, line: usize) {
    let pos = Position::from_text(v, text)
        .unwrap_or_else(|e| panic!("line {line}: '{text}' does not read: {e}"));
    assert_eq!(pos.to_text(), text, "line {line}: round trip");
}

fn check_accepts(v: &Arc<Variant>, b: &Block) {
    let [input, expected] = b.body.as_slice() else {
        panic!("line {}: an accepts block has two lines", b.line)
    };
    let expected = expected
        .strip_prefix("= ")
        .unwrap_or_else(|| panic!("line {}: second line starts with '= '", b.line));
    let pos = Position::from_text(v, input)
        .unwrap_or_else(|e| panic!("line {}: '{input}' does not read: {e}", b.line));
    assert_eq!(pos.to_text(), expected, "line {}", b.line);
    round_trip(v, expected, b.line);
}

fn check_moves(v: &Arc<Variant>, b: &Block) {
    let mut lines = b.body.iter().peekable();
    let mut pos = match lines.peek().and_then(|l| l.strip_prefix("from ")) {
        Some(text) => {
            lines.next();
            Position::from_text(v, text)
                .unwrap_or_else(|e| panic!("line {}: from '{text}': {e}", b.line))
        }
        None => Position::start(v),
    };
    let king_takes_rook = pos.king_takes_rook();
    let mut played = 0;
    for line in lines {
        if let Some(text) = line.strip_prefix("= ") {
            assert_eq!(pos.to_text(), text, "line {}: after {played} moves", b.line);
            round_trip(v, text, b.line);
            continue;
        }
        let (input, written) = match line.split_once(" -> ") {
            Some((i, w)) => (i.trim(), w.trim()),
            None => (line.trim(), line.trim()),
        };
        let m = pos
            .parse_move(input)
            .unwrap_or_else(|e| panic!("line {}: move '{input}': {e}", b.line));
        assert_eq!(
            pos.move_text(m, king_takes_rook),
            written,
            "line {}",
            b.line
        );
        pos.make(m);
        played += 1;
    }
    assert!(played > 0, "line {}: a moves block plays a move", b.line);
}

fn check_cells(v: &Arc<Variant>, b: &Block) {
    let g = &v.geometry;
    for line in &b.body {
        let (name, rest) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("line {}: '{line}'", b.line));
        if rest == "none" {
            assert_eq!(
                g.parse_cell(name),
                None,
                "line {}: {name} is no cell",
                b.line
            );
            continue;
        }
        let (coords, canonical) = match rest.split_once(" -> ") {
            Some((c, w)) => (c, w),
            None => (rest, name),
        };
        let expected: Vec<i32> = coords
            .trim_matches(|c| c == '(' || c == ')')
            .split(',')
            .map(|x| x.trim().parse().expect("coordinates are integers"))
            .collect();
        let cell = g
            .parse_cell(name)
            .unwrap_or_else(|| panic!("line {}: {name} does not read", b.line));
        let got: Vec<i32> = g.coords(cell).iter().map(|&x| x as i32).collect();
        assert_eq!(got, expected, "line {}: {name}", b.line);
        assert_eq!(g.cell_name(cell), canonical, "line {}: {name}", b.line);
    }
}

#[test]
fn notation_examples_hold() {
    let mut variants = Variants(HashMap::new());
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut start_names: Vec<String> = Vec::new();
    for b in blocks() {
        let v = variants.get(&b.spec);
        *counts.entry(b.keyword.clone()).or_default() += 1;
        match b.keyword.as_str() {
            "start" => {
                check_start(&v, &b);
                start_names.push(v.name.clone());
            }
            "position" => {
                for text in &b.body {
                    round_trip(&v, text, b.line);
                }
            }
            "accepts" => check_accepts(&v, &b),
            "rejects" => {
                for text in &b.body {
                    assert!(
                        Position::from_text(&v, text).is_err(),
                        "line {}: '{text}' must be refused",
                        b.line
                    );
                }
            }
            "moves" => check_moves(&v, &b),
            "cells" => check_cells(&v, &b),
            other => unreachable!("filtered by KEYWORDS: {other}"),
        }
    }
    // The page documents every kind of example, and a start position of
    // every variant family.
    for k in KEYWORDS {
        assert!(
            counts.get(k).copied().unwrap_or(0) > 0,
            "no '{k}' block found"
        );
    }
    for name in ndchess::board::registry::family_names() {
        assert!(
            start_names.iter().any(|n| n == name),
            "docs/notation.md has no start position of {name}"
        );
    }
}
