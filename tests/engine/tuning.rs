//! The evaluation tuner through its documented commands (docs/engine.md,
//! "Tuning"; issue 17): `ndchess tune data` plays a few short self-play
//! games, `ndchess tune fit` fits the weights to them. On a small data set
//! the fit must converge and end with a lower loss than it started with;
//! the same seed must give the same data; bad input gets an error.

use std::path::PathBuf;
use std::process::{Command, Output};

use ndchess::board::variant::Variant;
use ndchess::eval::tune::parse_samples;
use ndchess::eval::{EvalConfig, EvalWeights, Evaluator};
use ndchess::rules::position::Position;

fn ndchess(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ndchess"))
        .args(args)
        .output()
        .expect("the ndchess binary runs")
}

/// `tune data` of `games` self-play games at 400 nodes a move from
/// `seed`, written to `out`: the small data set every test here starts
/// from.
fn tune_data(variant: &str, games: &str, seed: &str, out: &str) -> Output {
    ndchess(&[
        "tune",
        "data",
        "--variant",
        variant,
        "--games",
        games,
        "--nodes",
        "400",
        "--seed",
        seed,
        "--out",
        out,
    ])
}

fn scratch_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ndchess-tune-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("a scratch directory");
    d
}

/// `(start loss, end loss, converged)` from `tune fit`'s summary line
/// `tune fit: K …, loss A -> B after N passes (converged|pass limit)`.
fn summary(stderr: &str) -> (f64, f64, bool) {
    let line = stderr
        .lines()
        .rfind(|l| l.starts_with("tune fit: K "))
        .unwrap_or_else(|| panic!("no summary in {stderr}"));
    let after = line.split("loss ").nth(1).expect("the losses");
    let mut words = after.split_whitespace();
    let start: f64 = words
        .next()
        .and_then(|w| w.parse().ok())
        .expect("start loss");
    assert_eq!(words.next(), Some("->"), "{line}");
    let end: f64 = words.next().and_then(|w| w.parse().ok()).expect("end loss");
    (start, end, line.ends_with("(converged)"))
}

/// Runs `tune fit` on chess data file `data` (and `extra` arguments),
/// checks that it succeeded, converged and lowered the loss; its stderr.
fn fit_converges(data: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "tune",
        "fit",
        "--variant",
        "chess",
        "--data",
        data,
        "--passes",
        "500",
    ];
    args.extend_from_slice(extra);
    let o = ndchess(&args);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{stderr}");
    let (start, end, converged) = summary(&stderr);
    assert!(converged, "{stderr}");
    assert!(end < start, "loss {start} -> {end}");
    stderr
}

#[test]
fn the_tuner_converges_and_lowers_the_loss_on_a_small_data_set() {
    let dir = scratch_dir("fit");
    let data = dir.join("data.txt");
    let data_s = data.to_str().expect("a UTF-8 path");
    let make = |out: &str| tune_data("chess", "12", "7", out);
    let o = make(data_s);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&data).expect("the data file");
    let v = Variant::from_spec("chess").expect("chess");
    let samples = parse_samples(&v, &text).expect("the data file reads back");
    assert!(samples.len() > 300, "{} positions", samples.len());
    // Labels are game results, and not all the same.
    let wins = samples.iter().filter(|s| s.points == 1.0).count();
    assert!(
        wins > 0 && wins < samples.len(),
        "{wins} of {}",
        samples.len()
    );
    // The same seed, the same data.
    let again = dir.join("again.txt");
    assert!(make(again.to_str().expect("a UTF-8 path")).status.success());
    assert_eq!(std::fs::read_to_string(&again).expect("again"), text);

    let weights = dir.join("weights.txt");
    let stderr = fit_converges(data_s, &["--out", weights.to_str().expect("a UTF-8 path")]);
    // Progress: one line per pass, the loss never rising.
    let losses: Vec<f64> = stderr
        .lines()
        .filter(|l| l.starts_with("tune fit: pass "))
        .filter_map(|l| {
            l.split("loss ")
                .nth(1)?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .collect();
    assert!(!losses.is_empty(), "{stderr}");
    assert!(losses.windows(2).all(|w| w[1] <= w[0]), "{losses:?}");
    // The output is a weights file, and not the defaults.
    let tuned = EvalWeights::parse(&std::fs::read_to_string(&weights).expect("weights"))
        .expect("the output reads as a weights file");
    assert_ne!(tuned, EvalWeights::default());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether `program args` runs and succeeds. A missing tool fails the test
/// under `CI` and skips it loudly otherwise.
fn tool_available(what: &str, program: &str, args: &[&str]) -> bool {
    let ok = Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        let msg = format!("{what} is not available ({program})");
        if std::env::var_os("CI").is_some() {
            panic!("{msg} (required when CI is set)");
        }
        eprintln!("\n!!!!! SKIPPED: {msg} !!!!!\n");
    }
    ok
}

#[test]
fn a_stronger_engines_labels_feed_the_fit() {
    // engines/label_positions.py puts Stockfish's expected points in place
    // of the games' results; the fit reads them as it reads results.
    let stockfish = "/usr/games/stockfish";
    if !tool_available("Python 3", "python3", &["--version"])
        // Stockfish quits at the end of its (empty) input.
        || !tool_available("Stockfish (Debian package stockfish)", stockfish, &[])
    {
        return;
    }
    let dir = scratch_dir("labels");
    let games = dir.join("games.txt");
    let o = tune_data("chess", "4", "9", games.to_str().expect("a UTF-8 path"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("engines/label_positions.py");
    let o = Command::new("python3")
        .arg(&script)
        .args(["--engine", stockfish, "--depth", "4"])
        .arg(&games)
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let labelled_text = String::from_utf8(o.stdout).expect("UTF-8 output");
    let v = Variant::from_spec("chess").expect("chess");
    let results = parse_samples(&v, &std::fs::read_to_string(&games).expect("games"))
        .expect("the games read back");
    let labelled = parse_samples(&v, &labelled_text).expect("the labels read back");
    // The same positions, in the same order, each with points in 0..=1
    // and most of them neither a win nor a loss nor an even score.
    assert_eq!(labelled.len(), results.len());
    for (a, b) in labelled.iter().zip(&results) {
        assert_eq!(a.pos.to_text(), b.pos.to_text());
        assert!((0.0..=1.0).contains(&a.points), "{}", a.points);
    }
    let fractional = labelled
        .iter()
        .filter(|s| ![0.0, 0.5, 1.0].contains(&s.points))
        .count();
    assert!(
        2 * fractional > labelled.len(),
        "{fractional} of {}",
        labelled.len()
    );
    let data = dir.join("labelled.txt");
    std::fs::write(&data, &labelled_text).expect("write");
    fit_converges(data.to_str().expect("a UTF-8 path"), &[]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_linear_fit_lowers_the_loss_and_writes_tables() {
    // `tune fit --linear` (docs/engine.md, "Tables"): the phase scales,
    // the tempo and the tables by gradient descent. On a small data set
    // of game results it must lower the loss on the positions it fits,
    // report a held-out loss, and write a weights file with tables that
    // reads back and evaluates.
    let dir = scratch_dir("linear");
    let data = dir.join("data.txt");
    let o = tune_data("chess", "12", "8", data.to_str().expect("a UTF-8 path"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let weights = dir.join("weights.txt");
    let o = ndchess(&[
        "tune",
        "fit",
        "--linear",
        "--variant",
        "chess",
        "--iterations",
        "200",
        "--data",
        data.to_str().expect("a UTF-8 path"),
        "--out",
        weights.to_str().expect("a UTF-8 path"),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{stderr}");
    // One progress line per 50 iterations, then the summary.
    let rounds = stderr
        .lines()
        .filter(|l| l.starts_with("tune fit: iteration "))
        .count();
    assert_eq!(rounds, 4, "{stderr}");
    let line = stderr
        .lines()
        .rfind(|l| l.starts_with("tune fit: K "))
        .unwrap_or_else(|| panic!("no summary in {stderr}"));
    let numbers: Vec<f64> = line
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|w| w.parse().ok())
        .collect();
    // K, start loss, end loss, iterations, held-out start and end, ...
    let (start, end) = (numbers[1], numbers[2]);
    assert!(end < start, "{line}");
    assert_eq!(numbers[3], 200.0, "{line}");
    let tuned = EvalWeights::parse(&std::fs::read_to_string(&weights).expect("weights"))
        .expect("the output reads as a weights file");
    assert!(
        tuned
            .table("placement.N.opening")
            .is_some_and(|t| t.len() == 64)
    );
    assert!(
        tuned
            .table("mobility.Q.endgame")
            .is_some_and(|t| t.len() == 28)
    );
    // It evaluates: the start is worth the fitted tempo to the side to
    // move, and the tables count in other positions.
    let v = Variant::from_spec("chess").expect("chess");
    let e = Evaluator::with_weights(&v, EvalConfig::FULL, &tuned);
    let start = e.breakdown(&Position::start(&v));
    assert_eq!(start.total, tuned.tempo_cp.round() as i32);
    let samples = parse_samples(&v, &std::fs::read_to_string(&data).expect("data"))
        .expect("the data reads back");
    assert!(
        samples
            .iter()
            .any(|s| e.breakdown(&s.pos).tables.iter().any(|&t| t != 0))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_engines_own_search_labels_positions_of_any_board() {
    // `tune label` (docs/engine.md, "Tables and phase scales"): where no
    // stronger engine knows a variant, each position's score from
    // ndchess's own search at a node budget, as expected points. The
    // same positions in the same order (every second one with --every
    // 2), points from 0 to 1 and not all the same; the fit reads them.
    let dir = scratch_dir("self-label");
    let games = dir.join("games.txt");
    let o = tune_data("cube", "4", "5", games.to_str().expect("a UTF-8 path"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let labelled = dir.join("labelled.txt");
    let o = ndchess(&[
        "tune",
        "label",
        "--variant",
        "cube",
        "--nodes",
        "2000",
        "--every",
        "2",
        "--data",
        games.to_str().expect("a UTF-8 path"),
        "--out",
        labelled.to_str().expect("a UTF-8 path"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v = Variant::from_spec("cube").expect("cube");
    let results = parse_samples(&v, &std::fs::read_to_string(&games).expect("games"))
        .expect("the games read back");
    let labels = parse_samples(&v, &std::fs::read_to_string(&labelled).expect("labels"))
        .expect("the labels read back");
    assert_eq!(labels.len(), results.len().div_ceil(2));
    for (a, b) in labels.iter().zip(results.iter().step_by(2)) {
        assert_eq!(a.pos.to_text(), b.pos.to_text());
        assert!((0.0..=1.0).contains(&a.points), "{}", a.points);
    }
    let first = labels[0].points;
    assert!(
        labels.iter().any(|s| s.points != first),
        "all labels {first}"
    );
    let o = ndchess(&[
        "tune",
        "fit",
        "--linear",
        "--variant",
        "cube",
        "--iterations",
        "50",
        "--data",
        labelled.to_str().expect("a UTF-8 path"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_tuner_input_gets_an_error() {
    let dir = scratch_dir("bad");
    let bad = dir.join("bad.txt");
    std::fs::write(
        &bad,
        "# data\n1 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n2 x\n",
    )
    .expect("write");
    let good = dir.join("good.txt");
    std::fs::write(
        &good,
        "1 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n",
    )
    .expect("write");
    let missing = dir.join("missing.txt");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["tune", "fit", "--data", bad.to_str().expect("path")],
            "data line 3",
        ),
        (
            vec!["tune", "fit", "--data", missing.to_str().expect("path")],
            "missing.txt",
        ),
        (
            vec![
                "tune",
                "fit",
                "--data",
                good.to_str().expect("path"),
                "--start",
                good.to_str().expect("path"),
            ],
            "name = value",
        ),
        (
            vec![
                "tune",
                "data",
                "--variant",
                "diamond:n=3,l=10,players=6",
                "--games",
                "1",
            ],
            "two-seat",
        ),
        (vec!["tune", "data", "--games", "0"], "games"),
        (
            vec!["tune", "label", "--data", missing.to_str().expect("path")],
            "missing.txt",
        ),
        (
            vec![
                "tune",
                "label",
                "--nodes",
                "0",
                "--data",
                good.to_str().expect("path"),
            ],
            "nodes",
        ),
        (
            vec![
                "tune",
                "fit",
                "--linear",
                "--rate",
                "0",
                "--data",
                good.to_str().expect("path"),
            ],
            "--rate",
        ),
        (
            vec![
                "tune",
                "fit",
                "--linear",
                "--ridge=-1",
                "--data",
                good.to_str().expect("path"),
            ],
            "--ridge",
        ),
    ];
    for (args, needle) in cases {
        let o = ndchess(&args);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
