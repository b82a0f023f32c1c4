//! What the protocol fuzz tests (tests/protocol/uci_fuzz.rs, tests/protocol/xboard_fuzz.rs)
//! share: random choices, mutations of valid lines, garbage bytes read as
//! the input thread reads them, and the regression corpora.

use std::fs;
use std::path::Path;

use ndchess::protocol::{InputLine, LineReader, MAX_LINE_BYTES};
use rand::RngExt;
use rand::rngs::SmallRng;

/// Lines a fuzz run feeds by default: the protocol issues ask for at least
/// 100,000.
pub const DEFAULT_LINES: usize = 100_000;

/// The seed and the number of lines of a run: `NDCHESS_FUZZ_SEED` and
/// `NDCHESS_FUZZ_LINES` from the environment, else `default_seed` (fixed,
/// so that CI runs are reproducible) and [`DEFAULT_LINES`].
pub fn seed_and_lines(default_seed: u64) -> (u64, usize) {
    let env = |name: &str| std::env::var(name).ok().and_then(|s| s.parse::<u64>().ok());
    (
        env("NDCHESS_FUZZ_SEED").unwrap_or(default_seed),
        env("NDCHESS_FUZZ_LINES").map_or(DEFAULT_LINES, |n| n as usize),
    )
}

/// Longest answer to a refused line: the front-ends quote at most 60
/// characters of the input and cap their messages at 400; the longest
/// real answer (XBoard's to `variant`, listing the variants) has about
/// 200.
pub const MAX_REFUSAL_CHARS: usize = 1000;

/// Checks what both protocols promise of every output line: no control
/// character (it could end the line early or upset a terminal), and an
/// answer to a refused line (`refusal`) of at most [`MAX_REFUSAL_CHARS`].
pub fn assert_printable(line: &str, refusal: bool, context: &str) {
    assert!(
        !line.chars().any(char::is_control),
        "control character in output {line:?} after {context:?}"
    );
    assert!(
        !refusal || line.chars().count() <= MAX_REFUSAL_CHARS,
        "overlong answer ({} characters) to {context:?}",
        line.chars().count()
    );
}

/// A random element of `xs` (not empty).
pub fn pick<'a, T>(rng: &mut SmallRng, xs: &'a [T]) -> &'a T {
    &xs[rng.random_range(0..xs.len())]
}

/// A character that often breaks parsers: control characters, separators,
/// digits, non-ASCII letters and spaces, or plain ASCII.
pub fn random_char(rng: &mut SmallRng) -> char {
    match rng.random_range(0..6) {
        0 => char::from(rng.random_range(0u8..32)),
        1 => pick(
            rng,
            &[
                '|', '/', '(', ')', ' ', '-', '=', '0', '9', '{', '}', 'ε', '\u{fffd}', '\u{7f}',
                '\u{3000}', '\u{a0}',
            ],
        )
        .to_owned(),
        2 => char::from_u32(rng.random_range(0x80..0x3000)).unwrap_or('?'),
        _ => char::from(rng.random_range(32u8..127)),
    }
}

/// Character and bit flips, insertions, truncation, swapped words,
/// extreme numbers, upper case, duplicated slices.
pub fn mutate(rng: &mut SmallRng, line: &str) -> String {
    let mut chars: Vec<char> = line.chars().collect();
    for _ in 0..rng.random_range(1..4) {
        match rng.random_range(0..10) {
            8 if !chars.is_empty() => {
                // A flipped bit, decoded as the input thread decodes.
                let mut bytes = chars.iter().collect::<String>().into_bytes();
                let i = rng.random_range(0..bytes.len());
                bytes[i] ^= 1 << rng.random_range(0..8);
                if bytes[i] == b'\n' {
                    bytes[i] = b' ';
                }
                chars = String::from_utf8_lossy(&bytes).chars().collect();
            }
            0 if !chars.is_empty() => {
                let i = rng.random_range(0..chars.len());
                chars.remove(i);
            }
            1 => {
                let i = rng.random_range(0..=chars.len());
                chars.insert(i, random_char(rng));
            }
            2 if !chars.is_empty() => {
                let i = rng.random_range(0..chars.len());
                chars[i] = random_char(rng);
            }
            3 if !chars.is_empty() => {
                let i = rng.random_range(0..chars.len());
                chars.truncate(i);
            }
            4 => {
                let s: String = chars.iter().collect();
                let mut w: Vec<&str> = s.split(' ').collect();
                if w.len() > 1 {
                    let a = rng.random_range(0..w.len());
                    let b = rng.random_range(0..w.len());
                    w.swap(a, b);
                }
                chars = w.join(" ").chars().collect();
            }
            5 => {
                let s: String = chars.iter().collect();
                let w: Vec<String> = s
                    .split(' ')
                    .map(|x| {
                        if x.parse::<f64>().is_ok() && rng.random_bool(0.6) {
                            pick(
                                rng,
                                &[
                                    "-1",
                                    "0",
                                    "0.0",
                                    "1e308",
                                    "4294967296",
                                    "99999999999999999999",
                                    "-9223372036854775808",
                                    "18446744073709551616",
                                    "NaN",
                                ],
                            )
                            .to_string()
                        } else {
                            x.to_string()
                        }
                    })
                    .collect();
                chars = w.join(" ").chars().collect();
            }
            6 => {
                let s: String = chars.iter().collect();
                chars = s.to_uppercase().chars().collect();
            }
            7 if !chars.is_empty() => {
                let a = rng.random_range(0..chars.len());
                let b = rng.random_range(a..=chars.len());
                let piece: Vec<char> = chars[a..b].to_vec();
                for _ in 0..rng.random_range(1..5) {
                    chars.splice(b..b, piece.iter().copied());
                }
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

/// Random bytes read as the input thread reads them.
pub fn garbage(rng: &mut SmallRng) -> String {
    let n = rng.random_range(0..80);
    let bytes: Vec<u8> = (0..n)
        .map(|_| rng.random_range(0u8..=255))
        .filter(|&b| b != b'\n')
        .collect();
    let mut r = LineReader::new(&bytes[..], MAX_LINE_BYTES);
    match r.next_line().expect("reading memory cannot fail") {
        Some(InputLine::Text(t)) => t,
        _ => String::new(),
    }
}

/// The lines of every file of the corpus directory `tests/data/<name>`,
/// file by file in name order, read as the input thread reads them.
pub fn corpus(name: &str) -> Vec<Vec<InputLine>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus directory {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "empty corpus in {}", dir.display());
    files
        .iter()
        .map(|f| {
            let bytes = fs::read(f).expect("corpus file readable");
            let mut r = LineReader::new(&bytes[..], MAX_LINE_BYTES);
            let mut lines = Vec::new();
            while let Some(l) = r.next_line().expect("reading memory cannot fail") {
                lines.push(l);
            }
            lines
        })
        .collect()
}
