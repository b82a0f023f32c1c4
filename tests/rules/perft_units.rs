//! Perft split into work units, counted in shares and merged (issue 17):
//! the total is the undivided perft on every board, whatever the split
//! depth and the number of shares; bad files and incomplete merges are
//! refused.

use ndchess::board::registry;
use ndchess::rules::movegen;
use ndchess::rules::perft_units::{ShardResult, Units, count_shard, merge, split};
use ndchess::rules::position::Position;

fn whole(spec: &str, depth: u32) -> u64 {
    let v = registry::build(spec).unwrap();
    movegen::perft(&mut Position::start(&v), depth)
}

fn divided(spec: &str, depth: u32, at: u32, shares: usize) -> u64 {
    let v = registry::build(spec).unwrap();
    let units = split(&Position::start(&v), depth, at).unwrap();
    // Through the file format, as a cluster would see it.
    let units = Units::from_text(&units.to_text()).unwrap();
    let results: Vec<ShardResult> = (0..shares)
        .map(|i| {
            let r = count_shard(&units, i, shares, 1, None, |_, _| {}).unwrap();
            ShardResult::from_text(&r.to_text()).unwrap()
        })
        .collect();
    merge(&results).unwrap()
}

#[test]
fn split_and_merged_totals_are_the_undivided_perft() {
    for (spec, depth) in [
        ("chess", 4),
        ("chess960:sp=0", 4),
        ("cube", 3),
        ("diamond:n=3", 3),
        ("torus", 3),
        ("cylinder-diamond:n=3", 3),
    ] {
        let w = whole(spec, depth);
        for (at, shares) in [(0, 1), (1, 3), (2, 4), (depth, 2)] {
            assert_eq!(divided(spec, depth, at, shares), w, "{spec} split {at}");
        }
    }
}

#[test]
fn transpositions_become_one_unit_with_their_paths() {
    let v = registry::build("chess").unwrap();
    let units = split(&Position::start(&v), 4, 4).unwrap();
    let paths: u64 = units.units.iter().map(|u| u.paths).sum();
    // Every path to depth 4 is a leaf of perft(4); there are fewer
    // distinct positions than paths (1. Nf3 Nf6 2. Nc3 = 1. Nc3 Nf6 2. Nf3).
    assert_eq!(paths, whole("chess", 4));
    assert!(units.units.len() < paths as usize);
}

#[test]
fn bad_files_and_incomplete_merges_are_refused() {
    let v = registry::build("chess").unwrap();
    let units = split(&Position::start(&v), 3, 1).unwrap();
    let text = units.to_text();
    for (bad, needle) in [
        ("hello".to_string(), "not an ndchess perft units file"),
        (text.replace("variant chess", "variant nosuch"), "line 2"),
        (text.replace("units 20", "units 21"), "20 units"),
        (
            text.replacen("\n5 1 2 ", "\n6 1 2 ", 1),
            "unit 6 where unit 5",
        ),
        (
            text.replacen("\n5 1 2 ", "\n5 x 2 ", 1),
            "'x' is not a number",
        ),
        (text.replacen("\n5 1 2 ", "\n5 1 3 ", 1), "depth left 3"),
        (
            {
                let first = text.lines().find(|l| l.starts_with("0 1 2 ")).unwrap();
                text.replace(first, "0 1 2 8/8 w - - 0 1")
            },
            "line 7",
        ),
    ] {
        let e = Units::from_text(&bad);
        assert!(e.is_err(), "accepted: {needle}");
        assert!(e.unwrap_err().to_string().contains(needle), "{needle}");
    }
    let r: Vec<ShardResult> = (0..3)
        .map(|i| count_shard(&units, i, 3, 1, None, |_, _| {}).unwrap())
        .collect();
    assert!(
        merge(&r[..2])
            .unwrap_err()
            .to_string()
            .contains("not counted")
    );
    let twice = [r[0].clone(), r[0].clone(), r[1].clone(), r[2].clone()];
    assert!(merge(&twice).unwrap_err().to_string().contains("twice"));
    let other = split(&Position::start(&v), 3, 2).unwrap();
    let foreign = count_shard(&other, 0, 3, 1, None, |_, _| {}).unwrap();
    let mixed = [foreign, r[1].clone(), r[2].clone()];
    assert!(
        merge(&mixed)
            .unwrap_err()
            .to_string()
            .contains("other units")
    );
    assert!(count_shard(&units, 3, 3, 1, None, |_, _| {}).is_err());
    assert!(ShardResult::from_text("# ndchess perft shard 1\nunits-digest zz\n").is_err());
}

/// The last line of a command's output, which must succeed.
fn run(cmd: &mut std::process::Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        cmd,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or("")
        .to_string()
}

#[test]
fn the_cluster_recipes_give_the_undivided_count() {
    let ndchess = env!("CARGO_BIN_EXE_ndchess");
    let dir = std::env::temp_dir().join(format!("ndchess-perft-units-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let whole = run(std::process::Command::new(ndchess).args(["perft", "-v", "cube", "-d", "4"]));
    assert!(whole.starts_with("Nodes searched: "), "{whole}");
    run(std::process::Command::new(ndchess)
        .args([
            "perft",
            "-v",
            "cube",
            "-d",
            "4",
            "--split",
            "2",
            "--out",
            "units.txt",
        ])
        .current_dir(&dir));
    // GNU parallel, as docs/performance.md gives it.
    let have_parallel = std::process::Command::new("parallel")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if have_parallel {
        run(std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "parallel -j 2 {ndchess} perft --units units.txt --shard {{}}/4 --out p{{}}.txt ::: 0 1 2 3"
            ))
            .current_dir(&dir));
        let merged = run(std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("{ndchess} perft merge p*.txt"))
            .current_dir(&dir));
        assert_eq!(merged, whole);
    } else if std::env::var_os("CI").is_some() {
        panic!("GNU parallel is required when CI is set (Debian package parallel)");
    } else {
        eprintln!("\n!!!!! SKIPPED the GNU parallel recipe: no parallel !!!!!\n");
    }
    // The Slurm job-array scripts, task by task with Slurm's variables.
    let scripts = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("engines/slurm");
    for i in 0..3 {
        run(std::process::Command::new("bash")
            .arg(scripts.join("perft.sbatch"))
            .env("NDCHESS", ndchess)
            .env("SLURM_ARRAY_TASK_ID", i.to_string())
            .env("SLURM_ARRAY_TASK_COUNT", "3")
            .current_dir(&dir));
    }
    let merged = run(std::process::Command::new("bash")
        .arg(scripts.join("perft-merge.sbatch"))
        .env("NDCHESS", ndchess)
        .current_dir(&dir));
    assert_eq!(merged, whole);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn deep_counts_file_agrees_at_the_depths_a_test_can_run() {
    // perft/deep.epd: its shallow depths are recomputed here (the deep ones
    // are a benchmark: docs/performance.md), and every depth it shares with
    // variants.epd (the reference generator's counts) is equal.
    let read = |name: &str| -> Vec<(String, Vec<(u32, u64)>)> {
        let path = format!("{}/perft/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let mut parts = l.split(" ;");
                let spec = parts.next().unwrap().trim().to_string();
                let counts = parts
                    .map(|p| {
                        let (d, n) = p.trim().split_once(' ').unwrap();
                        (d[1..].parse().unwrap(), n.parse().unwrap())
                    })
                    .collect();
                (spec, counts)
            })
            .collect()
    };
    let reference = read("variants.epd");
    let deep = read("deep.epd");
    assert_eq!(deep.len(), 3);
    for (spec, counts) in &deep {
        let v = registry::build(spec).unwrap();
        let canonical = &v.spec;
        let shared = reference
            .iter()
            .find(|(s, _)| registry::build(s).unwrap().spec == *canonical)
            .unwrap_or_else(|| panic!("{spec} is not in variants.epd"));
        for (d, n) in &shared.1 {
            assert!(counts.contains(&(*d, *n)), "{spec} D{d}");
        }
        for &(d, n) in counts.iter().filter(|(_, n)| *n <= 5_000_000) {
            assert_eq!(
                movegen::perft(&mut Position::start(&v), d),
                n,
                "{spec} D{d}"
            );
        }
    }
}

#[test]
fn hashed_perft_gives_the_plain_counts() {
    // The transposition table (perft --hash) may only save work, never
    // change a count: the same counts on six boards, with a table small
    // enough to be overwritten all the time and with a large one, on one
    // thread and split over root moves on two, and in shards.
    use ndchess::rules::perft_table::{PerftTable, perft_hashed};
    for (spec, depth) in [
        ("chess", 5),
        ("chess960:sp=0", 4),
        ("cylinder", 4),
        ("torus", 4),
        ("cube", 5),
        ("diamond:n=3", 4),
    ] {
        let v = registry::build(spec).unwrap();
        let mut pos = Position::start(&v);
        let plain = movegen::perft(&mut pos, depth);
        for mb in [1, 64] {
            let t = PerftTable::new(mb);
            assert_eq!(perft_hashed(&mut pos, depth, &t), plain, "{spec} {mb} MiB");
            // Again with the table filled.
            assert_eq!(
                perft_hashed(&mut pos, depth, &t),
                plain,
                "{spec} {mb} MiB, warm"
            );
            let split: u64 = movegen::perft_divide_with(&pos, depth, 2, Some(&t), |_, _| {})
                .unwrap()
                .iter()
                .map(|x| x.1)
                .sum();
            assert_eq!(split, plain, "{spec} {mb} MiB, two threads");
        }
        let units = split(&pos, depth, 2).unwrap();
        let t = PerftTable::new(4);
        let results: Vec<ShardResult> = (0..2)
            .map(|i| count_shard(&units, i, 2, 1, Some(&t), |_, _| {}).unwrap())
            .collect();
        assert_eq!(merge(&results).unwrap(), plain, "{spec} shards");
    }
}
