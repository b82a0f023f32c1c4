//! `movegen::perft` against the published perft suites in `perft/` (sources
//! in `perft/README.md`), and the `ndchess perft` command line against
//! shakmaty's per-move counts.
//!
//! Every expected number here is read from a suite file or computed by
//! shakmaty 0.30, an independent move generator. The default tests stop at
//! depth 4; the `#[ignore]`d ones go deeper (`cargo test --release --test
//! perft_suites -- --ignored`).

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ndchess::board::variant::Variant;
use ndchess::rules::movegen;
use ndchess::rules::position::Position;
use rayon::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position as _};

/// One line of a suite file.
#[derive(Clone, Debug)]
struct Entry {
    /// Line number in the file (1-based), for messages.
    line: usize,
    fen: String,
    /// `(depth, nodes)` from the `;Dk n` fields.
    counts: Vec<(u32, u64)>,
    /// The `;SP k` field of the Chess960 start positions.
    sp: Option<u32>,
}

/// Reads `perft/<name>`: `FEN ;D1 n ;D2 n …`, `#` comment lines skipped.
fn read_suite(name: &str) -> Vec<Entry> {
    let path = format!("{}/perft/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut entries = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split(';');
        let fen = fields.next().unwrap_or_default().trim().to_string();
        let mut counts = Vec::new();
        let mut sp = None;
        for field in fields {
            let (tag, value) = field
                .trim()
                .split_once(' ')
                .unwrap_or_else(|| panic!("{name}:{}: malformed field '{field}'", i + 1));
            let value = value.trim();
            if tag == "SP" {
                sp = Some(
                    value
                        .parse()
                        .unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1)),
                );
            } else if let Some(depth) = tag.strip_prefix('D') {
                let depth = depth
                    .parse()
                    .unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1));
                let nodes = value
                    .parse()
                    .unwrap_or_else(|e| panic!("{name}:{}: {e}", i + 1));
                counts.push((depth, nodes));
            } else {
                panic!("{name}:{}: unknown field '{tag}'", i + 1);
            }
        }
        assert!(!counts.is_empty(), "{name}:{}: no ;Dk counts", i + 1);
        entries.push(Entry {
            line: i + 1,
            fen,
            counts,
            sp,
        });
    }
    entries
}

fn variant(spec: &str) -> Arc<Variant> {
    Variant::from_spec(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn load(v: &Arc<Variant>, file: &str, e: &Entry) -> Position {
    Position::from_text(v, &e.fen)
        .unwrap_or_else(|err| panic!("{file}:{}: '{}': {err}", e.line, e.fen))
}

/// Checks every count of depth `min_depth..=max_depth` (and at most
/// `max_nodes` nodes) of `entries`, positions in parallel; returns the
/// mismatches and the number of nodes counted.
fn check_suite(
    spec: &str,
    file: &str,
    entries: &[Entry],
    min_depth: u32,
    max_depth: u32,
    max_nodes: u64,
    progress: bool,
) -> (Vec<String>, u64) {
    let v = variant(spec);
    let done = AtomicUsize::new(0);
    let results: Vec<(Vec<String>, u64)> = entries
        .par_iter()
        .map(|e| {
            let mut pos = load(&v, file, e);
            let mut failures = Vec::new();
            let mut nodes = 0;
            for &(depth, expected) in &e.counts {
                if depth < min_depth || depth > max_depth || expected > max_nodes {
                    continue;
                }
                let got = movegen::perft(&mut pos, depth);
                nodes += got;
                if got != expected {
                    failures.push(format!(
                        "{file}:{} depth {depth}: ndchess {got}, published {expected}; \
                         ndchess perft --variant {spec} --fen \"{}\" --depth {depth} --divide",
                        e.line, e.fen
                    ));
                }
            }
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if progress {
                eprintln!("{file}: {n}/{} positions done", entries.len());
            }
            (failures, nodes)
        })
        .collect();
    let nodes = results.iter().map(|r| r.1).sum();
    (results.into_iter().flat_map(|r| r.0).collect(), nodes)
}

fn assert_no_failures(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn assert_suite(spec: &str, file: &str, max_depth: u32) {
    let entries = read_suite(file);
    let (failures, nodes) = check_suite(spec, file, &entries, 1, max_depth, u64::MAX, false);
    assert_no_failures(&failures);
    assert!(nodes > 0, "{file}: no counts up to depth {max_depth}");
}

#[test]
fn standard_suite_to_depth_4() {
    assert_suite("chess", "standard.epd", 4);
}

#[test]
fn tricky_suite_to_depth_4() {
    assert_suite("chess", "tricky.epd", 4);
}

/// The Chess960 rules do not depend on the start position, so any `sp`
/// serves for positions read from text.
#[test]
fn tricky_chess960_suite_to_depth_4() {
    assert_suite("chess960:sp=518", "tricky-chess960.epd", 4);
}

/// Line k of the file is start position k: same placement, side, castling
/// rooks and counters as `Variant::from_spec("chess960:sp=k")`'s start. The
/// file writes Shredder-FEN letters; both texts are compared after being read
/// by ndchess, so the letter style does not matter, and the placements are
/// also compared as raw text.
#[test]
fn chess960_start_positions_match_variants() {
    let entries = read_suite("chess960-start.epd");
    assert_eq!(entries.len(), 960, "one line per start position");
    for (k, e) in entries.iter().enumerate() {
        assert_eq!(e.sp, Some(k as u32), "line {}: ;SP field", e.line);
        let v = variant(&format!("chess960:sp={k}"));
        let start = Position::start(&v);
        let from_file = load(&v, "chess960-start.epd", e);
        let start_text = start.to_text();
        assert_eq!(
            start_text.split(' ').next(),
            e.fen.split(' ').next(),
            "sp={k}: placement"
        );
        assert_eq!(start_text, from_file.to_text(), "sp={k}: position text");
        let mut a = start.castling().to_vec();
        let mut b = from_file.castling().to_vec();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b, "sp={k}: castling rooks");
        assert_eq!(a.len(), 4, "sp={k}: four castling rights");
        assert_eq!(start.hash(), from_file.hash(), "sp={k}: hash");
    }
}

/// All 960 start positions to depth 4 (about 2 * 10^8 nodes; a few seconds
/// in release on 2 cores). Debug builds stop at depth 3 to keep `cargo test`
/// usable; CI runs the release build.
#[test]
fn chess960_start_positions_to_depth_4() {
    let entries = read_suite("chess960-start.epd");
    let max_depth = if cfg!(debug_assertions) { 3 } else { 4 };
    // Each position under its own variant, so the start-position castling
    // setup of `sp=k` is the one exercised.
    let failures: Vec<String> = entries
        .par_iter()
        .enumerate()
        .map(|(k, e)| {
            let v = variant(&format!("chess960:sp={k}"));
            let mut pos = Position::start(&v);
            let mut out = Vec::new();
            for &(depth, expected) in e.counts.iter().filter(|c| c.0 <= max_depth) {
                let got = movegen::perft(&mut pos, depth);
                if got != expected {
                    out.push(format!(
                        "sp={k} depth {depth}: ndchess {got}, published {expected}; \
                         ndchess perft --variant chess960:sp={k} --depth {depth} --divide"
                    ));
                }
            }
            out
        })
        .flatten()
        .collect();
    assert_no_failures(&failures);
}

/// Node limit of the deep tests: `NDCHESS_PERFT_MAX_NODES` or 10^9 (every
/// published count except the start position's depth 7).
fn deep_node_limit() -> u64 {
    std::env::var("NDCHESS_PERFT_MAX_NODES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000_000)
}

/// Every published count deeper than 4 of the three small suites, up to
/// [`deep_node_limit`] nodes per count (about 8 * 10^8 nodes in all).
#[test]
#[ignore = "deep perft: ~5 s in release on 2 cores; --nocapture shows progress"]
fn deep_small_suites() {
    let limit = deep_node_limit();
    let mut failures = Vec::new();
    let mut nodes = 0;
    for (spec, file) in [
        ("chess", "standard.epd"),
        ("chess", "tricky.epd"),
        ("chess960:sp=518", "tricky-chess960.epd"),
    ] {
        let entries = read_suite(file);
        let (f, n) = check_suite(spec, file, &entries, 5, u32::MAX, limit, true);
        failures.extend(f);
        nodes += n;
    }
    eprintln!("deep_small_suites: {nodes} nodes");
    assert!(nodes > 0, "no deep counts under the node limit {limit}");
    assert_no_failures(&failures);
}

/// All 960 start positions at depth `NDCHESS_PERFT960_DEPTH` (default 5,
/// about 4.8 * 10^9 nodes; 6 is about 1.2 * 10^11).
#[test]
#[ignore = "deep perft: ~1 min in release on 2 cores at depth 5; --nocapture shows progress"]
fn deep_chess960_start_positions() {
    let depth: u32 = std::env::var("NDCHESS_PERFT960_DEPTH")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let entries = read_suite("chess960-start.epd");
    let done = AtomicUsize::new(0);
    let failures: Vec<String> = entries
        .par_iter()
        .enumerate()
        .filter_map(|(k, e)| {
            let expected = e.counts.iter().find(|c| c.0 == depth)?.1;
            let v = variant(&format!("chess960:sp={k}"));
            let got = movegen::perft(&mut Position::start(&v), depth);
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if n.is_multiple_of(48) {
                eprintln!("chess960 depth {depth}: {n}/960 start positions done");
            }
            (got != expected).then(|| {
                format!(
                    "sp={k} depth {depth}: ndchess {got}, published {expected}; \
                     ndchess perft --variant chess960:sp={k} --depth {depth} --divide"
                )
            })
        })
        .collect();
    assert_eq!(
        done.into_inner(),
        960,
        "depth {depth} is published for every start position"
    );
    assert_no_failures(&failures);
}

/// Runs `ndchess perft` and returns its standard output.
fn run_perft(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ndchess"))
        .arg("perft")
        .args(args)
        .output()
        .expect("the ndchess binary cargo built for this test runs");
    assert!(
        out.status.success(),
        "ndchess perft {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("ndchess prints UTF-8")
}

/// Splits `--divide` output into the `<move>: <count>` lines and the final
/// `Nodes searched: N`, checking the format on the way.
fn parse_divide(stdout: &str) -> (BTreeMap<String, u64>, u64) {
    let lines: Vec<&str> = stdout.lines().collect();
    let (last, moves) = lines.split_last().expect("perft prints at least the total");
    let total = last
        .strip_prefix("Nodes searched: ")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("last line '{last}' is not 'Nodes searched: N'"));
    let mut map = BTreeMap::new();
    for line in moves {
        let (m, n) = line
            .split_once(": ")
            .unwrap_or_else(|| panic!("line '{line}' is not '<move>: <count>'"));
        let n: u64 = n.parse().unwrap_or_else(|e| panic!("line '{line}': {e}"));
        assert!(
            map.insert(m.to_string(), n).is_none(),
            "move {m} listed twice"
        );
    }
    (map, total)
}

/// shakmaty's perft split by root move, keyed by UCI text (king-takes-rook
/// castling in Chess960 mode).
fn shakmaty_divide(fen: &str, mode: CastlingMode, depth: u32) -> BTreeMap<String, u64> {
    let pos: Chess = Fen::from_ascii(fen.as_bytes())
        .unwrap_or_else(|e| panic!("shakmaty reads '{fen}': {e}"))
        .into_position(mode)
        .unwrap_or_else(|e| panic!("shakmaty sets up '{fen}': {e}"));
    pos.legal_moves()
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (
                UciMove::from_move(m, mode).to_string(),
                shakmaty::perft(&child, depth - 1),
            )
        })
        .collect()
}

/// `ndchess perft --divide` prints one `<move>: <count>` line per root move,
/// each count equal to shakmaty's, then `Nodes searched: N`; `--threads 2`
/// prints the same, with and without `--divide`.
#[test]
fn perft_divide_command() {
    // Kiwipete (standard.epd line 3; castling both sides, en passant,
    // promotions nearby) and tricky-chess960.epd line 2 (king-takes-rook
    // castling text).
    let cases = [
        (
            "chess",
            read_suite("standard.epd")[1].clone(),
            CastlingMode::Standard,
        ),
        (
            "chess960:sp=518",
            read_suite("tricky-chess960.epd")[0].clone(),
            CastlingMode::Chess960,
        ),
    ];
    let depth = 3;
    for (spec, e, mode) in cases {
        let depth_text = depth.to_string();
        let args = ["--variant", spec, "--fen", &e.fen, "--depth", &depth_text];
        let divide_args: Vec<&str> = args.iter().copied().chain(["--divide"]).collect();
        let one_thread = run_perft(&divide_args);
        let (moves, total) = parse_divide(&one_thread);

        let expected = shakmaty_divide(&e.fen, mode, depth);
        assert_eq!(
            moves, expected,
            "{spec} '{}': per-move counts vs shakmaty",
            e.fen
        );
        let published = e
            .counts
            .iter()
            .find(|c| c.0 == depth)
            .expect("depth 3 is published")
            .1;
        assert_eq!(total, published, "{spec} '{}': total vs published", e.fen);
        assert_eq!(
            moves.values().sum::<u64>(),
            total,
            "lines add up to the total"
        );

        let two_threads: Vec<&str> = divide_args
            .iter()
            .copied()
            .chain(["--threads", "2"])
            .collect();
        assert_eq!(
            run_perft(&two_threads),
            one_thread,
            "--divide --threads 2 output"
        );
        let plain: Vec<&str> = args.iter().copied().chain(["--threads", "2"]).collect();
        assert_eq!(
            run_perft(&plain),
            format!("Nodes searched: {total}\n"),
            "--threads 2 without --divide"
        );
        assert_eq!(
            run_perft(&args),
            format!("Nodes searched: {total}\n"),
            "one thread"
        );
    }
}
