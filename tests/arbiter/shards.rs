//! Sharding: the same 40-game run played whole and as 4 shards under GNU
//! parallel (the command line docs/arbiter.md gives) merges to the same
//! result: the same openings, seats and, with node-limited engines, the
//! same games.

use std::collections::BTreeMap;

use super::{arbiter, have, journal, ndchess, workdir};

fn games_by_index(path: &std::path::Path) -> BTreeMap<u64, (String, Vec<String>, Vec<u64>)> {
    journal(path)
        .into_iter()
        .map(|g| {
            let moves = g["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap().to_string())
                .collect();
            let seats = g["engines"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e.as_u64().unwrap())
                .collect();
            (
                g["index"].as_u64().unwrap(),
                (g["result"].as_str().unwrap().to_string(), moves, seats),
            )
        })
        .collect()
}

/// Runs a command that must succeed.
fn succeed(cmd: &mut std::process::Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn four_shards_under_gnu_parallel_merge_to_the_whole_run() {
    if !have("parallel", &["--version"], "Debian package parallel") {
        return;
    }
    let dir = workdir("shards");
    let engine = format!("cmd={}", ndchess());
    let common = format!(
        "-engine {engine} name=a nodes=300 -engine {engine} name=b nodes=150 -each option.Hash=8 \
         -rounds 20 -games 2 -repeat -openings format=random plies=6 -srand 11 -maxmoves 50 -quiet"
    );
    let whole: Vec<String> =
        format!("tournament {common} -concurrency 2 -json whole.json -journal whole.journal")
            .split_whitespace()
            .map(String::from)
            .collect();
    let whole: Vec<&str> = whole.iter().map(String::as_str).collect();
    arbiter(&dir, &whole);
    // The shards, as docs/arbiter.md runs them.
    let cmd = format!(
        "parallel -j 2 {} tournament {common} -shard {{}}/4 -journal shard{{}}.journal ::: 0 1 2 3",
        ndchess()
    );
    succeed(
        std::process::Command::new("sh")
            .args(["-c", &cmd])
            .current_dir(&dir),
    );
    arbiter(
        &dir,
        &[
            "tournament",
            "merge",
            "-json",
            "merged.json",
            "-pgnout",
            "merged.pgn",
            "shard0.journal",
            "shard1.journal",
            "shard2.journal",
            "shard3.journal",
        ],
    );
    let whole_games = games_by_index(&dir.join("whole.journal"));
    assert_eq!(whole_games.len(), 40);
    let mut shard_games = BTreeMap::new();
    for i in 0..4 {
        let g = games_by_index(&dir.join(format!("shard{i}.journal")));
        assert!(
            !g.is_empty() && g.len() < 40,
            "shard {i}: {} games",
            g.len()
        );
        shard_games.extend(g);
    }
    assert_eq!(
        shard_games, whole_games,
        "the same games, seats and results"
    );
    let read = |f: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(f)).unwrap()).unwrap()
    };
    let (w, m) = (read("whole.json"), read("merged.json"));
    for key in ["played", "standings", "results"] {
        if key == "standings" {
            // CPU seconds differ between runs; the rest must not.
            let strip = |v: &serde_json::Value| -> Vec<(String, f64, u64)> {
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|s| {
                        (
                            s["name"].as_str().unwrap().to_string(),
                            s["points"].as_f64().unwrap(),
                            s["wins"].as_u64().unwrap(),
                        )
                    })
                    .collect()
            };
            assert_eq!(strip(&w[key]), strip(&m[key]));
        } else {
            assert_eq!(w[key], m[key], "{key}");
        }
    }
    for k in [
        "wins",
        "draws",
        "losses",
        "penta",
        "elo",
        "elo_error",
        "los",
    ] {
        assert_eq!(w["encounters"][0][k], m["encounters"][0][k], "{k}");
    }
    // The Slurm job-array scripts (engines/slurm/), run task by task with
    // the variables Slurm sets, give the same games too.
    let slurm = dir.join("slurm");
    std::fs::create_dir_all(&slurm).unwrap();
    let scripts = super::root().join("engines/slurm");
    for i in 0..4 {
        succeed(
            std::process::Command::new("bash")
                .arg(scripts.join("tournament.sbatch"))
                .env("NDCHESS", ndchess())
                .env("ARGS", &common)
                .env("SLURM_ARRAY_TASK_ID", i.to_string())
                .env("SLURM_ARRAY_TASK_COUNT", "4")
                .env("SLURM_CPUS_PER_TASK", "2")
                .current_dir(&slurm),
        );
    }
    succeed(
        std::process::Command::new("bash")
            .arg(scripts.join("merge.sbatch"))
            .env("NDCHESS", ndchess())
            .current_dir(&slurm),
    );
    assert_eq!(read("slurm/merged.json")["results"], w["results"]);
    let mut slurm_games = BTreeMap::new();
    for i in 0..4 {
        slurm_games.extend(games_by_index(&slurm.join(format!("shard{i}.journal"))));
    }
    assert_eq!(slurm_games, whole_games);
    // A shard given twice is refused.
    let dup = std::process::Command::new(ndchess())
        .args(["tournament", "merge", "shard0.journal", "shard0.journal"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(!dup.status.success());
}
