//! The `ndchess` binary on the cube: `mobility` prints seed 001's figures
//! and `show` draws the four levels side by side.

use std::process::Command;

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ndchess"))
        .args(args)
        .output()
        .expect("the ndchess binary runs");
    assert!(
        out.status.success(),
        "ndchess {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("ndchess prints UTF-8")
}

/// One printed mobility row: (cells, total, average).
type Row = (usize, usize, f64);

/// The rows of `ndchess mobility` for the piece named `name` ("king", …),
/// and the army total.
fn mobility(variant: &str) -> (Vec<(String, Row)>, usize) {
    let text = run(&["mobility", "--variant", variant]);
    let mut rows = Vec::new();
    let mut army = None;
    for line in text.lines() {
        if let Some(total) = line.strip_prefix("army total:") {
            army = Some(total.trim().parse().expect("army total is a number"));
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        // "king (K)   64   288   4.5000" (bishops add "(class i of 2)").
        if words.len() >= 5 && words[1].starts_with('(') && words[1].ends_with(')') {
            let (Ok(cells), Ok(total), Ok(avg)) =
                (words[2].parse(), words[3].parse(), words[4].parse())
            else {
                continue;
            };
            rows.push((words[0].to_string(), (cells, total, avg)));
        }
    }
    (rows, army.expect("mobility prints the army total"))
}

fn rows_of(rows: &[(String, Row)], name: &str) -> Vec<Row> {
    rows.iter().filter(|r| r.0 == name).map(|r| r.1).collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 5e-4
}

#[test]
fn mobility_figures_of_seed_001() {
    let (cube, cube_army) = mobility("cube");
    let (chess, chess_army) = mobility("chess");
    // Seed 001, "Die Theorie des Schachspiels im CUBUS":
    // (8*3 + 24*4 + 24*5 + 8*6) / 64 = 4,5 (king);
    // (8*6 + 24*9 + 24*13 + 8*18) / 64 = 11,25 (queen);
    // rook 9 from every cell; (8*6 + 24*8 + 24*10 + 8*12) / 64 = 9 (knight);
    // (4*3 + 12*5 + 12*8 + 4*12) / 32 = 6,75 (bishop, per colour);
    // (10*2 + 10*3 + 12*4 + 12*6) / 44 = 3,864 (pawns).
    let expect_cube: [(&str, &[Row]); 6] = [
        ("king", &[(64, 288, 4.5)]),
        ("queen", &[(64, 720, 11.25)]),
        ("rook", &[(64, 576, 9.0)]),
        ("knight", &[(64, 576, 9.0)]),
        ("bishop", &[(32, 216, 6.75), (32, 216, 6.75)]),
        ("pawn", &[(44, 170, 3.8636)]),
    ];
    for (name, want) in expect_cube {
        let got = rows_of(&cube, name);
        assert_eq!(got.len(), want.len(), "cube {name}: {got:?}");
        for (g, w) in got.iter().zip(want) {
            assert_eq!((g.0, g.1), (w.0, w.1), "cube {name}");
            assert!(close(g.2, w.2), "cube {name}: average {}", g.2);
        }
    }
    // The board: (4*3 + 24*5 + 36*8) / 64 = 6,5625 (king), 22,75 (queen),
    // 14 (rook), 5,25 (knight), 8,75 (bishop per colour), pawns
    // (10*2 + 32*3 + 6*4) / 48 = 2,917.
    let expect_chess: [(&str, &[Row]); 6] = [
        ("king", &[(64, 420, 6.5625)]),
        ("queen", &[(64, 1456, 22.75)]),
        ("rook", &[(64, 896, 14.0)]),
        ("knight", &[(64, 336, 5.25)]),
        ("bishop", &[(32, 280, 8.75), (32, 280, 8.75)]),
        ("pawn", &[(48, 140, 2.9167)]),
    ];
    for (name, want) in expect_chess {
        let got = rows_of(&chess, name);
        assert_eq!(got.len(), want.len(), "chess {name}: {got:?}");
        for (g, w) in got.iter().zip(want) {
            assert_eq!((g.0, g.1), (w.0, w.1), "chess {name}");
            assert!(close(g.2, w.2), "chess {name}: average {}", g.2);
        }
    }
    // "(8B) 340 + (2K) 576 + (2D) 1440 + (4T) 2304 + (4L) 864 + (4S) 2304 =
    // 7828": the printed army total is that sum of the printed rows.
    let total = |rows: &[(String, Row)], name: &str| rows_of(rows, name)[0].1;
    let sum = 2 * total(&cube, "pawn")
        + 2 * total(&cube, "king")
        + 2 * total(&cube, "queen")
        + 4 * total(&cube, "rook")
        + 4 * total(&cube, "bishop")
        + 4 * total(&cube, "knight");
    assert_eq!(sum, 7828);
    assert_eq!(cube_army, 7828);
    // "(16B) 280 + (2K) 840 + (2D) 2912 + (4T) 3584 + (4L) 1120 + (4S) 1344
    // = 10080".
    assert_eq!(chess_army, 10080);
    // "7828 / 10080 = 0,777 = 7 / 9".
    let ratio = cube_army as f64 / chess_army as f64;
    assert_eq!(format!("{ratio:.3}"), "0.777");
    assert!((ratio - 7.0 / 9.0).abs() < 0.002, "{ratio}");
}

#[test]
fn show_draws_the_four_levels_of_the_start() {
    let text = run(&["show", "--variant", "cube"]);
    // RULES §2.10: White Ra1a Qb1a Kc1a Rd1a; Na1b Bb1b Bc1b Nd1b; pawns
    // a2a–d2a; Black the point reflection (Ra4d Kb4d Qc4d Rd4d; Na4g Bb4g
    // Bc4g Nd4g; pawns a3d–d3d). Levels left to right α β γ δ, files a–d.
    let mut expected = [[['.'; 4]; 4]; 4]; // [rank][level][file]
    for (cells, row) in [
        ("a1a b1a c1a d1a", "RQKR"),
        ("a1b b1b c1b d1b", "NBBN"),
        ("a2a b2a c2a d2a", "PPPP"),
    ] {
        for (cell, piece) in cells.split_whitespace().zip(row.chars()) {
            let c: Vec<char> = cell.chars().collect();
            let file = c[0] as usize - 'a' as usize;
            let rank = c[1] as usize - '1' as usize;
            let level = "abgd".find(c[2]).expect("a cube level");
            expected[rank][level][file] = piece;
            expected[3 - rank][3 - level][3 - file] = piece.to_ascii_lowercase();
        }
    }
    let header = text
        .lines()
        .find(|l| l.contains("level"))
        .expect("a level header");
    let labels: Vec<&str> = header.split("level").skip(1).map(str::trim).collect();
    assert_eq!(labels, ["a", "b", "g", "d"], "{header}");
    let mut seen = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(Ok(rank)) = words.first().map(|w| w.parse::<usize>()) else {
            continue;
        };
        assert_eq!(words.len(), 17, "{line}");
        for level in 0..4 {
            let drawn: String = words[1 + 4 * level..5 + 4 * level].concat();
            let want: String = expected[rank - 1][level].iter().collect();
            assert_eq!(drawn, want, "rank {rank}, level {level}: {line}");
        }
        seen.push(rank);
    }
    assert_eq!(seen, [4, 3, 2, 1], "ranks top down");
    let files = text
        .lines()
        .find(|l| l.trim_start().starts_with("a b c d"))
        .expect("a file footer");
    assert_eq!(
        files.split_whitespace().collect::<String>(),
        "abcd".repeat(4)
    );
    assert!(text.contains("white to move"));
}
