//! Misbehaving engines (tests/arbiter/engines/faulty_engine.py relays a
//! real ndchess and misbehaves in one way): each loses its games with the
//! right reason, is restarted for the next, and the tournament completes
//! with every game in the PGN and the journal. Then a run killed in the
//! middle resumes with `-recover` without replaying finished games.

use std::time::{Duration, Instant};

use super::{arbiter, have, journal, ndchess, pgn_check, root, workdir};

/// (mode, expected words in the loser's reason, expected Termination)
const FAULTS: &[(&str, &str, &str)] = &[
    ("illegal", "illegal move \"a1a1\"", "rules infraction"),
    ("crash", "crashed", "rules infraction"),
    ("hang", "no answer in time", "time forfeit"),
    (
        "nouci",
        "cannot start: no answer to uci in time",
        "abandoned",
    ),
    (
        "noready",
        "cannot start: no answer to isready in time",
        "abandoned",
    ),
    ("garbage", "illegal move \"@@@@\"", "rules infraction"),
    // The answer comes 200 ms after the clock ran out: "loses on time"
    // when it arrives within the arbiter's grace (0.5 s past the margin),
    // "no answer in time" when a loaded machine delays it beyond.
    ("slow", " time", "time forfeit"),
];

#[test]
fn misbehaving_engines_lose_with_the_reason_and_the_tournament_completes() {
    if !have("python3", &["-c", "import subprocess"], "python3") {
        return;
    }
    let dir = workdir("faults");
    let script = root().join("tests/arbiter/engines/faulty_engine.py");
    let mut args: Vec<String> = vec![
        "tournament".into(),
        "-tournament".into(),
        "gauntlet".into(),
        "-engine".into(),
        format!("cmd={}", ndchess()),
        "name=ndchess".into(),
    ];
    for (mode, _, _) in FAULTS {
        args.extend([
            "-engine".into(),
            "cmd=python3".into(),
            format!("arg={}", script.display()),
            format!("arg={mode}"),
            "arg=4".into(),
            format!("arg={}", ndchess()),
            format!("name={mode}"),
        ]);
    }
    args.extend(
        [
            "-each",
            "tc=1+0.1",
            "timeout=3",
            "option.Hash=8",
            "-rounds",
            "1",
            "-games",
            "2",
            "-repeat",
            "-concurrency",
            "2",
            "-pgnout",
            "faults.pgn",
            "-json",
            "faults.json",
        ]
        .map(String::from),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arbiter(&dir, &args);
    let games = journal(&dir.join("faults.pgn.journal"));
    assert_eq!(games.len(), 2 * FAULTS.len(), "every game was played");
    for (i, (mode, reason, termination)) in FAULTS.iter().enumerate() {
        let engine = i + 1;
        let theirs: Vec<_> = games
            .iter()
            .filter(|g| g["engines"].as_array().unwrap().iter().any(|e| e == engine))
            .collect();
        assert_eq!(theirs.len(), 2, "{mode}");
        for g in theirs {
            let seat = g["engines"]
                .as_array()
                .unwrap()
                .iter()
                .position(|e| e == engine)
                .unwrap();
            assert_eq!(g["points"][seat], 0.0, "{mode} loses: {g}");
            let text = g["reason"].as_str().unwrap();
            assert!(text.contains(reason), "{mode}: {text}");
            assert_eq!(g["termination"], *termination, "{mode}: {text}");
            // The fault struck after the opening moves: the engine was
            // (re)started and played its first moves in both games.
            if !matches!(*mode, "nouci" | "noready") {
                assert!(g["moves"].as_array().unwrap().len() >= 4, "{mode}: {g}");
            }
        }
    }
    // Nothing is lost from the PGN: every game is there and replays.
    assert_eq!(pgn_check(&dir, "faults.pgn").len(), 2 * FAULTS.len());
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("faults.json")).unwrap()).unwrap();
    assert_eq!(summary["played"], 2 * FAULTS.len());
    assert_eq!(summary["standings"][0]["name"], "ndchess");
    assert_eq!(summary["standings"][0]["points"], 2.0 * FAULTS.len() as f64);
}

#[test]
fn a_killed_run_resumes_with_recover_without_replaying_finished_games() {
    let dir = workdir("recover");
    let engine = format!("cmd={}", ndchess());
    let args = [
        "match",
        "-engine",
        &engine,
        "name=a",
        "nodes=400",
        "-engine",
        &engine,
        "name=b",
        "nodes=200",
        "-rounds",
        "4",
        "-games",
        "2",
        "-repeat",
        "-openings",
        "format=random",
        "plies=4",
        "-maxmoves",
        "60",
        "-pgnout",
        "r.pgn",
        "-json",
        "r.json",
    ];
    let mut child = std::process::Command::new(ndchess())
        .args(args)
        .current_dir(&dir)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let j = dir.join("r.pgn.journal");
    let start = Instant::now();
    while journal_len(&j) < 3 && start.elapsed() < Duration::from_secs(300) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = journal(&j);
    assert!(
        before.len() >= 3 && before.len() < 8,
        "{} games before the kill",
        before.len()
    );
    // Without -recover the arbiter refuses to overwrite the journal.
    let refused = std::process::Command::new(ndchess())
        .args(args)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("-recover"));
    let mut resumed: Vec<&str> = args.to_vec();
    resumed.push("-recover");
    let out = arbiter(&dir, &resumed);
    assert!(String::from_utf8_lossy(&out.stderr).contains("Resuming"));
    let after = journal(&j);
    assert_eq!(after.len(), 8);
    // The finished games were kept, not replayed.
    for g in &before {
        assert!(after.contains(g), "game {} changed", g["index"]);
    }
    let mut indices: Vec<u64> = after.iter().map(|g| g["index"].as_u64().unwrap()).collect();
    indices.sort();
    assert_eq!(indices, (0..8).collect::<Vec<_>>());
    assert_eq!(
        pgn_check(&dir, "r.pgn").len(),
        8,
        "the PGN holds every game once"
    );
}

fn journal_len(path: &std::path::Path) -> usize {
    if !path.exists() {
        return 0;
    }
    journal(path).len()
}
