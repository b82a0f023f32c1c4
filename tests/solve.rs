//! The puzzle solvers against published counts (the OEIS sequence named
//! beside each expected value) and against independent verifiers that
//! recompute non-attack and tour validity from coordinates alone.

use ndchess::solve::placement::{maximum_sets, n_queens, torus_queens};
use ndchess::solve::tour::{count_from, find};
use ndchess::solve::{Board, SolveError};

/// Independent check: no two queens share a rank, file or diagonal of an
/// n x n board (wrapping when `torus`), from the cells' coordinates.
fn queens_independent(board: &Board, cells: &[usize], n: i32, torus: bool) -> bool {
    let g = &board.variant.geometry;
    let xy: Vec<(i32, i32)> = cells
        .iter()
        .map(|&c| (g.coord(c, 0), g.coord(c, 1)))
        .collect();
    for (i, a) in xy.iter().enumerate() {
        for b in &xy[i + 1..] {
            let (dr, df) = (a.0 - b.0, a.1 - b.1);
            let m = |x: i32| if torus { x.rem_euclid(n) } else { x };
            if dr == 0 || df == 0 || m(dr - df) == 0 || m(dr + df) == 0 {
                return false;
            }
        }
    }
    true
}

#[test]
fn n_queens_counts_are_oeis_a000170() {
    // A000170, n = 1..14.
    let a000170 = [
        1u64, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596,
    ];
    for (i, &want) in a000170.iter().enumerate() {
        assert_eq!(n_queens(i + 1).unwrap(), want, "n = {}", i + 1);
    }
    assert!(n_queens(0).is_err() && n_queens(33).is_err());
}

#[test]
fn torus_queens_counts_are_oeis_a051906() {
    // A051906, n = 1..13.
    let a051906 = [1u64, 0, 0, 0, 10, 0, 28, 0, 0, 0, 88, 0, 4524];
    for (i, &want) in a051906.iter().enumerate() {
        assert_eq!(torus_queens(i + 1).unwrap(), want, "n = {}", i + 1);
    }
}

#[test]
fn the_general_search_agrees_with_the_queens_solvers_and_the_verifier() {
    for n in 4..=8 {
        let b = Board::from_spec(&format!("board:{n}x{n}")).unwrap();
        let q = b.kind('Q').unwrap();
        let p = maximum_sets(&b, q, usize::MAX, 100_000_000).unwrap();
        assert_eq!(p.size, n);
        assert_eq!(p.count, n_queens(n).unwrap(), "n = {n}");
        assert_eq!(p.examples.len() as u64, p.count);
        for s in &p.examples {
            assert!(queens_independent(&b, s, n as i32, false), "{s:?}");
        }
    }
    // Rooks: n! placements of n rooks (A000142).
    let b = Board::from_spec("board:6x6").unwrap();
    let r = maximum_sets(&b, b.kind('R').unwrap(), 0, 100_000_000).unwrap();
    assert_eq!((r.size, r.count), (6, 720));
}

#[test]
fn queens_up_to_symmetry_are_oeis_a002562() {
    use ndchess::solve::symmetry::{count_unique, symmetries};
    // A002562, n = 4..8: 1, 2, 1, 6, 12.
    for (n, want) in [(4, 1), (5, 2), (6, 1), (7, 6), (8, 12)] {
        let b = Board::from_spec(&format!("board:{n}x{n}")).unwrap();
        let q = b.kind('Q').unwrap();
        let p = maximum_sets(&b, q, usize::MAX, 100_000_000).unwrap();
        let sols: Vec<Vec<(usize, usize)>> = p
            .examples
            .iter()
            .map(|s| s.iter().map(|&c| (c, q)).collect())
            .collect();
        let maps = symmetries(&b, &[q]).unwrap();
        assert_eq!(maps.len(), 8);
        assert_eq!(count_unique(&sols, &maps), want, "n = {n}");
    }
    // Pawns attack forwards: only the mirror of the files keeps them.
    let b = Board::from_spec("board:5x5").unwrap();
    let kinds: Vec<usize> = "QP".chars().map(|c| b.kind(c).unwrap()).collect();
    assert_eq!(symmetries(&b, &kinds).unwrap().len(), 2);
}

#[test]
fn a_search_beyond_its_budget_says_so() {
    let b = Board::from_spec("diamond:n=3").unwrap();
    let e = maximum_sets(&b, b.kind('N').unwrap(), 1, 1000).unwrap_err();
    assert!(matches!(e, SolveError::OutOfReach(_)), "{e}");
    assert!(e.to_string().contains("--budget"));
}

/// Independent check of a knight's path on a plain rectangle: every cell
/// once, every step a (1, 2) leap by coordinates.
fn knight_path_valid(board: &Board, path: &[usize], closed: bool) -> bool {
    let g = &board.variant.geometry;
    let mut seen = vec![false; board.cells()];
    for &c in path {
        if seen[c] {
            return false;
        }
        seen[c] = true;
    }
    let leap = |a: usize, b: usize| {
        let (dr, df) = (
            (g.coord(a, 0) - g.coord(b, 0)).abs(),
            (g.coord(a, 1) - g.coord(b, 1)).abs(),
        );
        (dr, df) == (1, 2) || (dr, df) == (2, 1)
    };
    seen.iter().all(|&s| s)
        && path.windows(2).all(|w| leap(w[0], w[1]))
        && (!closed || leap(path[path.len() - 1], path[0]))
}

#[test]
fn directed_open_tours_on_5x5_are_oeis_a165134() {
    let b = Board::from_spec("board:5x5").unwrap();
    let mut total = 0;
    let mut corner = 0;
    for c in 0..25 {
        let n = count_from(&b, c, 1_000_000_000).unwrap();
        total += n.open;
        if c == 0 {
            corner = n.open;
        }
        assert_eq!(
            n.closed, 0,
            "a 5x5 board has no closed tour (odd cell count)"
        );
    }
    // A165134(5) = 1728; its example table: 304 from each corner.
    assert_eq!(total, 1728);
    assert_eq!(corner, 304);
}

#[test]
fn closed_tours_on_6x6_are_oeis_a001230() {
    let b = Board::from_spec("board:6x6").unwrap();
    let n = count_from(&b, 0, 10_000_000_000).unwrap();
    // Every undirected closed tour passes a1 once and is met in both
    // directions: A001230(3) = 9862 undirected closed tours.
    assert_eq!(n.closed, 2 * 9862);
}

#[test]
fn tours_are_found_on_rectangles_and_checked() {
    for (spec, closed) in [
        ("board:8x8", true),
        ("board:5x5", false),
        ("board:6x6", true),
        ("board:10x10", true),
    ] {
        let b = Board::from_spec(spec).unwrap();
        let path = find(&b, 0, closed, 10_000_000).unwrap().expect(spec);
        assert!(knight_path_valid(&b, &path, closed), "{spec}");
    }
    // No tour at all on 4x4 (A165134(4) = 0): the search proves it.
    let b = Board::from_spec("board:4x4").unwrap();
    assert_eq!(find(&b, 0, false, 100_000_000).unwrap(), None);
}

#[test]
fn tours_on_the_engines_boards() {
    // Checked against the board's own knight graph (wrapping boards have
    // leaps that coordinates alone do not show).
    for (spec, closed) in [
        ("cube", true),
        ("cylinder", true),
        ("torus", true),
        ("diamond:n=3", false),
    ] {
        let b = Board::from_spec(spec).unwrap();
        let g = ndchess::solve::tour::knight_graph(&b).unwrap();
        let path = find(&b, 0, closed, 50_000_000)
            .unwrap()
            .unwrap_or_else(|| panic!("{spec}: no tour"));
        assert_eq!(path.len(), b.cells(), "{spec}");
        let mut sorted = path.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), b.cells(), "{spec}: every cell once");
        assert!(path.windows(2).all(|w| g[w[0]].contains(&w[1])), "{spec}");
        assert!(
            !closed || g[path[path.len() - 1]].contains(&path[0]),
            "{spec}"
        );
    }
}

#[test]
fn seed_claims_of_19_4_on_the_cylinder_and_the_torus() {
    // Seed 000 §19.4: "8 rooks on the cylinder and on the torus, but only 7
    // and 2 queens". Expected values: tests/python/placement_reference.py,
    // an independent brute force (run below when python3 is there).
    use ndchess::solve::symmetry::{count_unique, symmetries};
    let up_to_symmetry = |b: &Board, kind: usize, sets: &[Vec<usize>]| {
        let sols: Vec<Vec<(usize, usize)>> = sets
            .iter()
            .map(|s| s.iter().map(|&c| (c, kind)).collect())
            .collect();
        count_unique(&sols, &symmetries(b, &[kind]).unwrap())
    };
    let cyl = Board::from_spec("cylinder").unwrap();
    let cq = cyl.kind('Q').unwrap();
    let q = maximum_sets(&cyl, cq, usize::MAX, 100_000_000).unwrap();
    assert_eq!((q.size, q.count), (6, 3072), "6 queens, not the seed's 7");
    let cyl_unique = up_to_symmetry(&cyl, cq, &q.examples);
    let r = maximum_sets(&cyl, cyl.kind('R').unwrap(), 0, 100_000_000).unwrap();
    assert_eq!((r.size, r.count), (8, 40320), "8 rooks, 8! ways");
    let torus = Board::from_spec("torus").unwrap();
    let tq = torus.kind('Q').unwrap();
    let q = maximum_sets(&torus, tq, usize::MAX, 100_000_000).unwrap();
    assert_eq!((q.size, q.count), (2, 2520), "2 queens, as the seed says");
    let torus_unique = up_to_symmetry(&torus, tq, &q.examples);
    let out = std::process::Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/python/placement_reference.py"
        ))
        .output();
    match out {
        Ok(o) if o.status.success() => {
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(
                text.contains(&format!("cylinder Q 6 3072 {cyl_unique}"))
                    && text.contains(&format!("torus Q 2 2520 {torus_unique}")),
                "{text}: ndchess counts {cyl_unique} and {torus_unique} up to symmetry"
            );
        }
        _ if std::env::var_os("CI").is_some() => panic!("python3 is required when CI is set"),
        _ => eprintln!("\n!!!!! SKIPPED the independent brute force: no python3 !!!!!\n"),
    }
}

/// A rotation or reflection of a w x h rectangle: (file, rank, w, h) to
/// the image's (file, rank).
type RectMap = fn(i32, i32, i32, i32) -> (i32, i32);

/// A deliberately simple coverage counter for plain rectangles: every
/// assignment of {empty} ∪ `pieces` to every cell, attacks recomputed from
/// coordinates with the chess rules (RULES §3: pawns attack their two
/// forward diagonals on every rank), written without the engine.
fn brute_force_coverage(w: i32, h: i32, pieces: &str, k: u32) -> (u64, usize, usize) {
    brute_force_coverage_of(w, h, pieces, k, false)
}

/// As [`brute_force_coverage`]; with `vacant` only the empty cells must be
/// attacked k times.
fn brute_force_coverage_of(
    w: i32,
    h: i32,
    pieces: &str,
    k: u32,
    vacant: bool,
) -> (u64, usize, usize) {
    let cells = (w * h) as usize;
    let choices: Vec<char> = std::iter::once('.').chain(pieces.chars()).collect();
    let mut digits = vec![0usize; cells];
    let (mut count, mut fewest) = (0u64, usize::MAX);
    // Solutions up to symmetry, canonicalised here from coordinates: the
    // eight maps of a square (four of an oblong board), only the mirror of
    // the files when pawns (which attack forwards) are allowed.
    let mut unique: std::collections::HashSet<Vec<(i32, i32, char)>> = Default::default();
    let maps: Vec<RectMap> = vec![
        |f, r, _, _| (f, r),
        |f, r, w, _| (w - 1 - f, r),
        |f, r, _, h| (f, h - 1 - r),
        |f, r, w, h| (w - 1 - f, h - 1 - r),
        |f, r, _, _| (r, f),
        |f, r, _, h| (h - 1 - r, f),
        |f, r, w, _| (r, w - 1 - f),
        |f, r, w, h| (h - 1 - r, w - 1 - f),
    ];
    let usable: Vec<usize> = (0..8)
        .filter(|&i| i < 4 || w == h)
        .filter(|&i| !pieces.contains('P') || i <= 1)
        .collect();
    let at = |d: &[usize], f: i32, r: i32| choices[d[(r * w + f) as usize]];
    loop {
        let mut hits = vec![0u32; cells];
        for r in 0..h {
            for f in 0..w {
                let p = at(&digits, f, r);
                let mut hit = |ff: i32, rr: i32| {
                    if (0..w).contains(&ff) && (0..h).contains(&rr) {
                        hits[(rr * w + ff) as usize] += 1;
                    }
                };
                let slide = |dirs: &[(i32, i32)], hit: &mut dyn FnMut(i32, i32)| {
                    for &(df, dr) in dirs {
                        let (mut ff, mut rr) = (f + df, r + dr);
                        while (0..w).contains(&ff) && (0..h).contains(&rr) {
                            hit(ff, rr);
                            if at(&digits, ff, rr) != '.' {
                                break;
                            }
                            ff += df;
                            rr += dr;
                        }
                    }
                };
                let rook = [(1, 0), (-1, 0), (0, 1), (0, -1)];
                let bishop = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
                match p {
                    'K' => {
                        for (df, dr) in rook.iter().chain(&bishop) {
                            hit(f + df, r + dr);
                        }
                    }
                    'N' => {
                        for (df, dr) in [
                            (1, 2),
                            (2, 1),
                            (-1, 2),
                            (-2, 1),
                            (1, -2),
                            (2, -1),
                            (-1, -2),
                            (-2, -1),
                        ] {
                            hit(f + df, r + dr);
                        }
                    }
                    'P' => {
                        hit(f - 1, r + 1);
                        hit(f + 1, r + 1);
                    }
                    'R' => slide(&rook, &mut hit),
                    'B' => slide(&bishop, &mut hit),
                    'Q' => {
                        slide(&rook, &mut hit);
                        slide(&bishop, &mut hit);
                    }
                    _ => {}
                }
            }
        }
        if hits
            .iter()
            .zip(&digits)
            .all(|(&x, &d)| x == k || (vacant && d != 0))
        {
            count += 1;
            fewest = fewest.min(digits.iter().filter(|&&d| d != 0).count());
            let pieces_at: Vec<(i32, i32, char)> = (0..h)
                .flat_map(|r| (0..w).map(move |f| (f, r)))
                .filter(|&(f, r)| at(&digits, f, r) != '.')
                .map(|(f, r)| (f, r, at(&digits, f, r)))
                .collect();
            let canonical = usable
                .iter()
                .map(|&i| {
                    let mut t: Vec<(i32, i32, char)> = pieces_at
                        .iter()
                        .map(|&(f, r, p)| {
                            let (f2, r2) = maps[i](f, r, w, h);
                            (f2, r2, p)
                        })
                        .collect();
                    t.sort_unstable();
                    t
                })
                .min()
                .unwrap();
            unique.insert(canonical);
        }
        // Next assignment.
        let mut i = 0;
        loop {
            if i == cells {
                return (count, fewest, unique.len());
            }
            digits[i] += 1;
            if digits[i] < choices.len() {
                break;
            }
            digits[i] = 0;
            i += 1;
        }
    }
}

#[test]
fn coverage_counts_agree_with_a_brute_force() {
    use ndchess::solve::coverage::{Convention, attack_counts, solve};
    for (w, h, pieces, k) in [
        (2, 2, "KQRBNP", 1),
        (2, 2, "KQRBNP", 2),
        (3, 2, "KQRBNP", 1),
        (3, 3, "KQRBNP", 1),
        (4, 2, "KQRBNP", 2),
        (4, 4, "RB", 1),
        (4, 4, "KN", 2),
    ] {
        let b = Board::from_spec(&format!("board:{w}x{h}")).unwrap();
        let kinds: Vec<usize> = pieces.chars().map(|c| b.kind(c).unwrap()).collect();
        let ks = vec![k; b.cells()];
        let c = solve(&b, &kinds, &ks, Convention::Strict, 50, 1_000_000_000).unwrap();
        let (count, fewest, unique) = brute_force_coverage(w, h, pieces, k);
        assert_eq!(c.count, count, "{w}x{h} {pieces} k={k}");
        let all = ndchess::solve::coverage::solve_all(
            &b,
            &kinds,
            &ks,
            Convention::Strict,
            0,
            1_000_000_000,
            10_000_000,
        )
        .unwrap()
        .all
        .unwrap();
        assert_eq!(all.len() as u64, count);
        let maps = ndchess::solve::symmetry::symmetries(&b, &kinds).unwrap();
        assert_eq!(
            ndchess::solve::symmetry::count_unique(&all, &maps),
            unique,
            "{w}x{h} {pieces} k={k} up to symmetry"
        );
        if count > 0 {
            assert_eq!(c.min_pieces, Some(fewest), "{w}x{h} {pieces} k={k}");
        }
        // Every printed solution, checked on the finished board.
        for s in &c.examples {
            assert_eq!(attack_counts(&b, s), ks, "{w}x{h} {pieces} k={k}: {s:?}");
        }
        // The minimal solutions: as many as the solutions with the fewest
        // pieces among all of them (up to the limit), each valid.
        let fewest_in_all = all.iter().filter(|s| Some(s.len()) == c.min_pieces).count();
        assert_eq!(c.min_count, fewest_in_all as u64, "{w}x{h} {pieces} k={k}");
        assert_eq!(c.minimal.len(), fewest_in_all.min(50));
        for s in &c.minimal {
            assert_eq!(Some(s.len()), c.min_pieces);
            assert_eq!(attack_counts(&b, s), ks, "{w}x{h} {pieces} k={k}: {s:?}");
        }
    }
}

#[test]
fn vacant_cell_coverage_agrees_with_a_brute_force() {
    use ndchess::solve::coverage::{Cells, Convention, Request, attack_counts, solve_request};
    // A full board is always a solution here, so the boards stay small.
    for (w, h, pieces, k) in [
        (2, 2, "KQRBNP", 1),
        (2, 2, "KQRBNP", 2),
        (3, 2, "KQRBNP", 1),
        (3, 2, "KQRBNP", 2),
        (3, 3, "QN", 1),
        (3, 3, "RBP", 2),
        (4, 3, "RB", 1),
        (4, 3, "QN", 2),
    ] {
        let b = Board::from_spec(&format!("board:{w}x{h}")).unwrap();
        let kinds: Vec<usize> = pieces.chars().map(|c| b.kind(c).unwrap()).collect();
        let ks = vec![k; b.cells()];
        let c = solve_request(
            &b,
            &Request {
                kinds: &kinds,
                k: &ks,
                convention: Convention::Strict,
                cells: Cells::Vacant,
                limit: 50,
                budget: 1_000_000_000,
                collect_cap: Some(10_000_000),
                progress: None,
            },
        )
        .unwrap();
        let (count, fewest, unique) = brute_force_coverage_of(w, h, pieces, k, true);
        assert_eq!(c.count, count, "{w}x{h} {pieces} k={k} vacant");
        if count > 0 {
            assert_eq!(c.min_pieces, Some(fewest), "{w}x{h} {pieces} k={k}");
        }
        let all = c.all.clone().unwrap();
        assert_eq!(all.len() as u64, count);
        let maps = ndchess::solve::symmetry::symmetries(&b, &kinds).unwrap();
        assert_eq!(
            ndchess::solve::symmetry::count_unique(&all, &maps),
            unique,
            "{w}x{h} {pieces} k={k} vacant, up to symmetry"
        );
        // Each shown solution: the vacant cells attacked k times.
        for s in c.examples.iter().chain(&c.minimal) {
            let counts = attack_counts(&b, s);
            for (cell, &n) in counts.iter().enumerate() {
                let occupied = s.iter().any(|&(c, _)| c == cell);
                assert!(occupied || n == k, "{w}x{h} {pieces} k={k}: {s:?}");
            }
        }
    }
}

#[test]
fn the_seeds_5x5_coverage_patterns() {
    use ndchess::solve::coverage::{Convention, pattern_counts};
    let b = Board::from_spec("board:5x5").unwrap();
    let kinds: Vec<usize> = "KNPBRQ".chars().map(|c| b.kind(c).unwrap()).collect();
    let count = |c| -> Vec<usize> {
        pattern_counts(&b, &kinds, c)
            .into_iter()
            .map(|x| x.1)
            .collect()
    };
    // Seed 002: "K, N and P 25 patterns each, B 95, R 324, Q 1331" after
    // its removal of duplicates; the raw counts add the 25 enclosed
    // queens and the 5 bishops on the first rank that attack what a pawn
    // would.
    assert_eq!(count(Convention::Seed), [25, 25, 25, 95, 324, 1331]);
    assert_eq!(count(Convention::Strict), [25, 25, 25, 100, 324, 1356]);
}

#[test]
fn bad_input_gets_a_clear_message() {
    let run = |args: &[&str]| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_ndchess"))
            .arg("solve")
            .args(args)
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    for (args, needle) in [
        (
            &["coverage", "--variant", "board:4x4", "--pieces", "KZ"][..],
            "no piece 'Z'",
        ),
        (
            &["coverage", "--variant", "board:4x4", "-k", "-1"][..],
            "-1",
        ),
        (
            &["coverage", "--variant", "board:4x4", "--k-map", "1,x"][..],
            "'x'",
        ),
        (
            &["coverage", "--variant", "board:4x4", "--k-map", "1,1"][..],
            "2 coverage values for 16 cells",
        ),
        (
            &["coverage", "--variant", "diamond:n=3"][..],
            "out of reach",
        ),
        (
            &["coverage", "--variant", "board:99x2"][..],
            "sides from 1 to 26",
        ),
        (&["queens", "-n", "40"][..], "n from 1 to 32"),
        (
            &["tour", "--variant", "board:8x8", "--from", "z9"][..],
            "not a cell",
        ),
        (
            &["tour", "--variant", "board:8x8", "--magic", "--axes", "3"][..],
            "not an axis",
        ),
        (
            &["tour", "--variant", "board:3x4", "--magic", "--axes", "2"][..],
            "cannot share the sum",
        ),
        (
            &["tour", "--variant", "board:8x8", "--axes", "1"][..],
            "--magic",
        ),
        (
            &["--threads", "x", "queens", "-n", "4"][..],
            "invalid value",
        ),
        (
            &[
                "placement",
                "--variant",
                "diamond:n=3",
                "--piece",
                "Q",
                "--budget",
                "1000",
            ][..],
            "out of reach",
        ),
    ] {
        let (ok, err) = run(args);
        assert!(!ok, "{args:?} should fail");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn json_output_for_scripts() {
    let run = |args: &[&str]| -> serde_json::Value {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_ndchess"))
            .arg("solve")
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let v = run(&[
        "--json",
        "placement",
        "--variant",
        "board:6x6",
        "--piece",
        "R",
        "--limit",
        "2",
    ]);
    assert_eq!(
        (v["size"].as_u64(), v["count"].as_u64()),
        (Some(6), Some(720))
    );
    assert_eq!(v["sets"].as_array().unwrap().len(), 2);
    // A165134's table: 304 directed tours from a corner of 5x5.
    let v = run(&[
        "tour",
        "--json",
        "--count",
        "--variant",
        "board:5x5",
        "--from",
        "a1",
    ]);
    assert_eq!(v["open"].as_u64(), Some(304));
    let v = run(&[
        "coverage",
        "--json",
        "--variant",
        "board:5x5",
        "--patterns",
        "--seed-rules",
    ]);
    assert_eq!(v["patterns"]["Q"].as_u64(), Some(1331));
}

#[test]
fn symmetry_groups_of_every_board() {
    use ndchess::solve::symmetry::symmetries;
    // The orders, counted by hand from each board's shape and wrapping:
    // a square's dihedral group has 8 maps, an oblong's 4; forward pawns
    // keep only the maps that fix the forward axes; a wrapping axis of
    // length L adds its L rotations; the n-cube (and the n-D diamond, which
    // has the same maps) has 2^n n! maps.
    for (spec, pieces, order) in [
        ("board:8x8", "Q", 8),
        ("board:8x8", "QP", 2), // the mirror of the files
        ("board:5x4", "Q", 4),
        ("cylinder", "Q", 8 * 2 * 2),   // file rotations, two mirrors
        ("cylinder", "QP", 8 * 2),      // no mirror of the ranks
        ("torus", "Q", 14 * 8 * 2 * 2), // 14x8: no transposition
        ("torus", "QP", 14 * 8 * 2),
        ("cube", "Q", 8 * 6),
        ("cube", "N", 8 * 6),
        // Pawns go forward or up: swap those two axes, mirror the files.
        ("cube", "QP", 2 * 2),
        ("diamond:n=3", "Q", 8 * 6),
        // Pawns along axis 1: the other two axes permuted and mirrored.
        ("diamond:n=3", "QP", 2 * 4),
        ("diamond:n=4", "Q", 16 * 24),
        // Axes 2 and 3 wrap but admit no rotation (the diamond would
        // move); axis 1 does not wrap, so it is not exchanged with them.
        ("cylinder-diamond:n=3", "Q", 2 * 8),
    ] {
        let b = Board::from_spec(spec).unwrap();
        let kinds: Vec<usize> = pieces.chars().map(|c| b.kind(c).unwrap()).collect();
        let maps = symmetries(&b, &kinds).unwrap();
        assert_eq!(maps.len(), order, "{spec} {pieces}");
        // A group: closed under composition.
        let set: std::collections::HashSet<&Vec<usize>> = maps.iter().collect();
        for a in maps.iter().take(8) {
            for b in &maps {
                let ab: Vec<usize> = b.iter().map(|&c| a[c]).collect();
                assert!(set.contains(&ab), "{spec} {pieces}: not closed");
            }
        }
    }
}

#[test]
fn coverage_results_do_not_depend_on_the_thread_count() {
    use ndchess::solve::coverage::{Convention, solve_all};
    let b = Board::from_spec("board:4x4").unwrap();
    let kinds: Vec<usize> = "KQRBNP".chars().map(|c| b.kind(c).unwrap()).collect();
    let k = vec![2; b.cells()];
    let on = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| solve_all(&b, &kinds, &k, Convention::Strict, 20, u64::MAX, u64::MAX))
            .unwrap()
    };
    let (one, three) = (on(1), on(3));
    assert!(one.count > 0);
    assert_eq!(
        (
            one.count,
            one.min_pieces,
            one.min_count,
            &one.examples,
            &one.all
        ),
        (
            three.count,
            three.min_pieces,
            three.min_count,
            &three.examples,
            &three.all
        )
    );
}

/// Independent check of a magic tour on a plain rectangle: numbers the
/// cells in the path's order and adds them up rank by rank (`files` false)
/// or file by file, by coordinates; the sum every line must reach is
/// (line length)·(cells + 1)/2.
fn lines_magic(board: &Board, path: &[usize], along_rank_axis: bool) -> bool {
    let g = &board.variant.geometry;
    let (ranks, files) = (g.lens()[0], g.lens()[1]);
    // Lines along the rank axis are files (the rank changes along them).
    let (lines, len) = if along_rank_axis {
        (files, ranks)
    } else {
        (ranks, files)
    };
    let mut sums = vec![0usize; lines];
    for (i, &c) in path.iter().enumerate() {
        let line = if along_rank_axis {
            g.coord(c, 1)
        } else {
            g.coord(c, 0)
        };
        sums[line as usize] += i + 1;
    }
    let want = len * (path.len() + 1) / 2;
    sums.iter().all(|&s| s == want)
}

#[test]
fn magic_tours_are_found_and_checked() {
    use ndchess::solve::magic_tour::find_magic;
    // The seed's structure (one decomposition into parallel lines) on
    // 8x8 along each axis, and on 6x6 and 6x5.
    for (spec, axis) in [
        ("board:8x8", 1),
        ("board:8x8", 0),
        ("board:6x6", 0),
        ("board:6x6", 1),
        ("board:5x6", 0),
    ] {
        let b = Board::from_spec(spec).unwrap();
        let t = find_magic(&b, 0, false, &[axis], 1_000_000_000)
            .unwrap()
            .unwrap_or_else(|| panic!("{spec} axis {axis}: none"));
        assert!(knight_path_valid(&b, &t.path, false), "{spec}");
        assert!(lines_magic(&b, &t.path, axis == 0), "{spec} axis {axis}");
    }
}

#[test]
fn no_magic_tour_from_a_corner_of_5x5_agrees_with_enumeration() {
    use ndchess::solve::magic_tour::find_magic;
    // Every directed open tour from a1 on 5x5 (304, as the A165134 test
    // above counts with the solver), enumerated by a plain search written
    // here, checked line by line: none is magic along either axis,
    // and the magic search, complete on 5x5, says the same.
    let b = Board::from_spec("board:5x5").unwrap();
    let g = &b.variant.geometry;
    let cells = b.cells();
    let leap = |a: usize, c: usize| {
        let (dr, df) = (
            (g.coord(a, 0) - g.coord(c, 0)).abs(),
            (g.coord(a, 1) - g.coord(c, 1)).abs(),
        );
        (dr, df) == (1, 2) || (dr, df) == (2, 1)
    };
    fn all_tours(
        path: &mut Vec<usize>,
        seen: &mut Vec<bool>,
        leap: &dyn Fn(usize, usize) -> bool,
        out: &mut Vec<Vec<usize>>,
    ) {
        if path.len() == seen.len() {
            out.push(path.clone());
            return;
        }
        let here = *path.last().unwrap();
        for c in 0..seen.len() {
            if !seen[c] && leap(here, c) {
                seen[c] = true;
                path.push(c);
                all_tours(path, seen, leap, out);
                path.pop();
                seen[c] = false;
            }
        }
    }
    let mut tours = Vec::new();
    let mut seen = vec![false; cells];
    seen[0] = true;
    all_tours(&mut vec![0], &mut seen, &leap, &mut tours);
    assert_eq!(tours.len(), 304);
    for axis in [0, 1] {
        let magic = tours
            .iter()
            .filter(|t| lines_magic(&b, t, axis == 0))
            .count();
        let found = find_magic(&b, 0, false, &[axis], 1_000_000_000).unwrap();
        assert_eq!(found.is_some(), magic > 0, "axis {axis}");
    }
}

#[test]
fn magic_tours_refuse_boards_without_the_structure() {
    use ndchess::solve::magic_tour::find_magic;
    // Lines of 3 cells on a 12-cell board would need the sum 3·13/2.
    let b = Board::from_spec("board:3x4").unwrap();
    let e = find_magic(&b, 0, false, &[1], 1000).unwrap_err();
    assert!(e.to_string().contains("cannot share the sum"), "{e}");
    // A diamond's lines differ in length.
    let d = Board::from_spec("diamond:n=3").unwrap();
    let e = find_magic(&d, 0, false, &[0], 1000).unwrap_err();
    assert!(e.to_string().contains("differ in length"), "{e}");
    // No axis 3 on a 2-D board; a budget that runs out says so.
    assert!(find_magic(&b, 0, false, &[2], 1000).is_err());
    let e = find_magic(
        &Board::from_spec("board:8x8").unwrap(),
        0,
        false,
        &[0, 1],
        1000,
    )
    .unwrap_err();
    assert!(matches!(e, SolveError::OutOfReach(_)), "{e}");
}

#[test]
fn no_6x6_tour_is_magic_in_ranks_and_files() {
    use ndchess::solve::magic_tour::find_magic;
    // G. P. Jelliss (2003): no magic knight's tour (ranks and files) exists
    // on a (4m+2) x (4n+2) board. The search is complete from each of the
    // six start cells that represent every cell of 6x6 up to its eight
    // symmetries (which keep the condition on ranks and files together).
    let b = Board::from_spec("board:6x6").unwrap();
    for start in ["a1", "b1", "c1", "b2", "c2", "c3"] {
        let s = b.variant.geometry.parse_cell(start).unwrap();
        assert_eq!(
            find_magic(&b, s, false, &[0, 1], 10_000_000_000).unwrap(),
            None,
            "{start}"
        );
    }
}
