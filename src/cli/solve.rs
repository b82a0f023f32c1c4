//! `ndchess solve`: the puzzle solvers (docs/solve.md).

use std::time::Instant;

use clap::{Args, Subcommand};

use ndchess::solve::coverage::{self, Convention};
use ndchess::solve::magic_tour::find_magic;
use ndchess::solve::placement::{maximum_sets, n_queens, torus_queens};
use ndchess::solve::symmetry::{count_unique, symmetries};
use ndchess::solve::tour::{count_from, find};
use ndchess::solve::{Board, SolveError};

use super::CommandError;

/// The problems.
#[derive(Subcommand, Debug)]
pub enum Problem {
    /// Count the placements of n non-attacking queens on the n x n board
    /// (or torus): the fast bitmask solver.
    Queens {
        /// Board side, 1 to 32.
        #[arg(short)]
        n: usize,
        /// On the n x n torus (files, ranks and diagonals wrap).
        #[arg(long)]
        torus: bool,
    },
    /// The largest set of mutually non-attacking pieces of one kind on
    /// any board, and the number of such sets.
    Placement {
        #[command(flatten)]
        board: BoardArgs,
        /// The piece's letter (the board's own letters: K Q R B N P, W G …).
        #[arg(long, default_value = "Q")]
        piece: char,
        #[command(flatten)]
        show: ShowArgs,
        /// Also count the sets up to the board's symmetries.
        #[arg(long)]
        unique: bool,
        /// Give up after this many search nodes (says so).
        #[arg(long, default_value_t = 1_000_000_000)]
        budget: u64,
    },
    /// k-fold coverage (seed 002): pieces of one side, any number of each,
    /// so that every cell is attacked exactly k times.
    Coverage {
        #[command(flatten)]
        board: BoardArgs,
        /// Attacks per cell.
        #[arg(short, default_value_t = 1)]
        k: u32,
        /// Per-cell k: one number per cell in cell order (a1, b1, …),
        /// separated by commas; overrides -k.
        #[arg(long)]
        k_map: Option<String>,
        /// The pieces allowed (letters of the board).
        #[arg(long, default_value = "KQRBNP")]
        pieces: String,
        /// Only the vacant cells must be attacked k times (Friedman's other
        /// question); occupied cells may be attacked any number of times.
        #[arg(long)]
        vacant: bool,
        /// Count as the seed does (duplicate patterns dropped, pawns on the
        /// last rank only where a piece is needed).
        #[arg(long)]
        seed_rules: bool,
        /// Print the seed's table of coverage patterns per piece instead.
        #[arg(long)]
        patterns: bool,
        /// Also count the solutions up to the board's symmetries (the
        /// lattice maps that keep every piece's attacks).
        #[arg(long)]
        unique: bool,
        #[command(flatten)]
        show: ShowArgs,
        /// Show solutions with the fewest pieces (instead of the first
        /// found).
        #[arg(long)]
        minimal: bool,
        /// Give up after this many search nodes (says so).
        #[arg(long, default_value_t = 1_000_000_000)]
        budget: u64,
    },
    /// A forced mate in at most N moves for the side to move (--fen),
    /// proved against every defence, with the line of the longest defence.
    Mate {
        #[command(flatten)]
        variant: super::VariantArgs,
        /// Most moves of the side to move, the mating move included.
        #[arg(long)]
        moves: u32,
        /// Give up after this many positions (says so).
        #[arg(long, default_value_t = 100_000_000)]
        nodes: u64,
    },
    /// A knight's tour (open or closed) from a cell, or their number.
    Tour {
        #[command(flatten)]
        board: BoardArgs,
        /// The start cell (default: the board's first cell).
        #[arg(long)]
        from: Option<String>,
        /// A closed tour: the last cell a knight's move from the first.
        #[arg(long)]
        closed: bool,
        /// Count the directed tours from the start cell instead.
        #[arg(long)]
        count: bool,
        /// A magic tour (seed §20): the move numbers on every line along
        /// the `--axes` add up to the same sum.
        #[arg(long, conflicts_with = "count")]
        magic: bool,
        /// With --magic: the axes whose lines must be magic, 1-based and
        /// comma-separated (1 = ranks' direction … as in docs/solve.md);
        /// default every axis (on 2-D: a semi-magic tour).
        #[arg(long, requires = "magic")]
        axes: Option<String>,
        /// Give up after this many search nodes (says so).
        #[arg(long, default_value_t = 1_000_000_000)]
        budget: u64,
    },
}

/// How many solutions a problem prints (each as a list, a diagram and the
/// board field of a position text).
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Print at most this many solutions.
    #[arg(long, default_value_t = 3)]
    limit: usize,
    /// Print every solution.
    #[arg(long, conflicts_with_all = ["limit", "count"])]
    all: bool,
    /// Count only: print no solution.
    #[arg(long, conflicts_with = "limit")]
    count: bool,
}

impl ShowArgs {
    /// The number of solutions to print.
    fn shown(&self) -> usize {
        if self.count {
            0
        } else if self.all {
            usize::MAX
        } else {
            self.limit
        }
    }
}

/// Prints solutions (pieces as (cell, kind)) under `key`: each as its
/// pieces, a diagram and the board field of a position text.
fn show_solutions(out: &mut Report, board: &Board, key: &str, solutions: &[Vec<(usize, usize)>]) {
    let mut list = Vec::new();
    for (i, sol) in solutions.iter().enumerate() {
        let pieces: Vec<String> = sol
            .iter()
            .map(|&(cell, kind)| {
                format!("{}{}", board.variant.kinds[kind].letter, board.name(cell))
            })
            .collect();
        let text = board.placement_text(sol);
        out.line(format!(
            "#{} ({} pieces): {}",
            i + 1,
            sol.len(),
            pieces.join(" ")
        ));
        for row in board.placement_diagram(sol).lines() {
            out.line(format!("    {row}"));
        }
        out.line(format!("    {text}"));
        list.push(serde_json::json!({"pieces": pieces, "text": text}));
    }
    out.set(key, serde_json::Value::Array(list));
}

/// The board of a problem.
#[derive(Args, Debug)]
pub struct BoardArgs {
    /// `board:WxH` (a plain rectangle) or any variant spec.
    #[arg(long, short, default_value = "board:8x8")]
    pub variant: String,
}

fn err(e: SolveError) -> CommandError {
    CommandError::Other(e.to_string())
}

/// What a problem prints: text lines, or (with `--json`) one object.
struct Report {
    lines: Vec<String>,
    fields: serde_json::Map<String, serde_json::Value>,
}

impl Report {
    fn line(&mut self, s: String) {
        self.lines.push(s);
    }
    fn set(&mut self, key: &str, value: serde_json::Value) {
        self.fields.insert(key.to_string(), value);
    }
}

/// Reports how many of `solutions` differ up to the board's symmetries
/// that keep the attacks of `kinds`.
fn report_unique(
    out: &mut Report,
    board: &Board,
    kinds: &[usize],
    solutions: &[Vec<(usize, usize)>],
) -> Result<(), CommandError> {
    let maps = symmetries(board, kinds).map_err(err)?;
    let unique = count_unique(solutions, &maps);
    out.line(format!(
        "  {unique} up to the {} symmetries that keep the attacks",
        maps.len()
    ));
    out.set("unique", serde_json::json!(unique));
    out.set("symmetries", serde_json::json!(maps.len()));
    Ok(())
}

/// The board with each cell's number (a tour's move numbers), 2-D boards
/// as a grid with the last rank on top, other boards as "cell number"
/// pairs.
fn numbered_diagram(board: &Board, number: &[usize]) -> String {
    let g = &board.variant.geometry;
    if g.dims() != 2 {
        return (0..board.cells())
            .map(|c| format!("{}={}", board.name(c), number[c]))
            .collect::<Vec<_>>()
            .join(" ");
    }
    let (ranks, files) = (g.lens()[0] as i32, g.lens()[1] as i32);
    let mut rows = Vec::new();
    for r in (0..ranks).rev() {
        let row: Vec<String> = (0..files)
            .map(|f| match g.cell_at(&[r, f]) {
                Some(c) => format!("{:>4}", number[c]),
                None => "    ".into(),
            })
            .collect();
        rows.push(row.concat());
    }
    rows.join("\n")
}

/// Runs a problem on `threads` threads (0: one per core); `json` prints
/// one JSON object instead of text.
pub fn solve(problem: &Problem, json: bool, threads: usize) -> Result<(), CommandError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| CommandError::Other(format!("--threads {threads}: {e}")))?;
    pool.install(|| solve_on_pool(problem, json))
}

fn solve_on_pool(problem: &Problem, json: bool) -> Result<(), CommandError> {
    ndchess::solve::progress::set_sink(Box::new(|search, nodes, secs| {
        eprintln!("{search}: {nodes} nodes, {secs:.0} s");
    }));
    use serde_json::json;
    let t = Instant::now();
    let mut out = Report {
        lines: Vec::new(),
        fields: serde_json::Map::new(),
    };
    match problem {
        Problem::Mate {
            variant,
            moves,
            nodes,
        } => {
            let (_, pos) = variant.load()?;
            let proof = ndchess::solve::mate::prove_mate(&pos, *moves, *nodes).map_err(err)?;
            let mut p = pos.clone();
            let mut line = Vec::new();
            for m in &proof.line {
                line.push(ndchess::rules::notation::san::long_notation(&p, *m));
                p.make(*m);
            }
            match proof.moves {
                Some(k) => out.line(format!("mate in {k}: {}", line.join(" "))),
                None => out.line(format!(
                    "no mate in {moves}: every line of {moves} moves has a defence"
                )),
            }
            out.line(format!("{} positions", proof.nodes));
            out.set("problem", json!("mate"));
            out.set("mate_in", json!(proof.moves));
            out.set("line", json!(line));
            out.set("nodes", json!(proof.nodes));
        }
        Problem::Queens { n, torus } => {
            let count = if *torus {
                torus_queens(*n)
            } else {
                n_queens(*n)
            }
            .map_err(err)?;
            let board = if *torus { "torus" } else { "board" };
            out.line(format!(
                "{n} queens on the {n}x{n} {board}: {count} placements"
            ));
            out.set("problem", json!("queens"));
            out.set("n", json!(n));
            out.set("torus", json!(torus));
            out.set("count", json!(count));
        }
        Problem::Placement {
            board,
            piece,
            show,
            unique,
            budget,
        } => {
            let limit = show.shown();
            let b = Board::from_spec(&board.variant).map_err(err)?;
            let kind = b.kind(*piece).map_err(err)?;
            let keep = if *unique { usize::MAX } else { limit };
            let p = maximum_sets(&b, kind, keep, *budget).map_err(err)?;
            out.line(format!(
                "{}: at most {} non-attacking {piece}; {} such placements ({} nodes)",
                b.variant.spec, p.size, p.count, p.nodes
            ));
            out.set("problem", json!("placement"));
            out.set("variant", json!(b.variant.spec));
            out.set("piece", json!(piece.to_string()));
            out.set("size", json!(p.size));
            out.set("count", json!(p.count));
            out.set("nodes", json!(p.nodes));
            if *unique {
                let sols: Vec<Vec<(usize, usize)>> = p
                    .examples
                    .iter()
                    .map(|s| s.iter().map(|&c| (c, kind)).collect())
                    .collect();
                report_unique(&mut out, &b, &[kind], &sols)?;
            }
            let sets: Vec<Vec<(usize, usize)>> = p
                .examples
                .iter()
                .take(limit)
                .map(|s| s.iter().map(|&c| (c, kind)).collect())
                .collect();
            show_solutions(&mut out, &b, "sets", &sets);
        }
        Problem::Coverage {
            board,
            k,
            k_map,
            pieces,
            vacant,
            seed_rules,
            patterns,
            unique,
            show,
            minimal,
            budget,
        } => {
            let limit = show.shown();
            let b = Board::from_spec(&board.variant).map_err(err)?;
            let kinds = pieces
                .chars()
                .map(|c| b.kind(c))
                .collect::<Result<Vec<_>, _>>()
                .map_err(err)?;
            let convention = if *seed_rules {
                Convention::Seed
            } else {
                Convention::Strict
            };
            out.set("problem", json!("coverage"));
            out.set("variant", json!(b.variant.spec));
            out.set("pieces", json!(pieces));
            out.set(
                "convention",
                json!(if *seed_rules { "seed" } else { "strict" }),
            );
            out.set("vacant", json!(vacant));
            if *patterns {
                let mut table = serde_json::Map::new();
                for (kind, n) in coverage::pattern_counts(&b, &kinds, convention) {
                    let letter = b.variant.kinds[kind].letter;
                    out.line(format!("{letter} {n}"));
                    table.insert(letter.to_string(), json!(n));
                }
                out.set("patterns", serde_json::Value::Object(table));
            } else {
                let ks: Vec<u32> = match k_map {
                    Some(m) => m
                        .split(',')
                        .map(|x| {
                            x.trim().parse::<u32>().map_err(|_| {
                                CommandError::Other(format!("--k-map: '{x}' is not a number ≥ 0"))
                            })
                        })
                        .collect::<Result<_, _>>()?,
                    None => vec![*k; b.cells()],
                };
                // Counting up to symmetry needs every solution: one search
                // that keeps them (refusing more than it can compare).
                let cells = if *vacant {
                    coverage::Cells::Vacant
                } else {
                    coverage::Cells::All
                };
                let progress = |nodes: u64, solutions: u64| {
                    eprintln!(
                        "coverage: {nodes} nodes, {solutions} solutions so far, {:.0} s",
                        t.elapsed().as_secs_f64()
                    );
                };
                let c = coverage::solve_request(
                    &b,
                    &coverage::Request {
                        kinds: &kinds,
                        k: &ks,
                        convention,
                        cells,
                        limit,
                        budget: *budget,
                        collect_cap: unique.then_some(5_000_000),
                        progress: Some(&progress),
                    },
                )
                .map_err(err)?;
                out.line(format!(
                    "{}: {} solutions; fewest pieces {} ({} solutions); {} nodes",
                    b.variant.spec,
                    c.count,
                    c.min_pieces
                        .map(|m| m.to_string())
                        .unwrap_or_else(|| "-".into()),
                    c.min_count,
                    c.nodes
                ));
                out.set("k", json!(ks));
                out.set("count", json!(c.count));
                out.set("min_pieces", json!(c.min_pieces));
                out.set("min_count", json!(c.min_count));
                out.set("nodes", json!(c.nodes));
                if let Some(sols) = &c.all {
                    report_unique(&mut out, &b, &kinds, sols)?;
                }
                if *minimal {
                    show_solutions(&mut out, &b, "minimal", &c.minimal);
                } else {
                    show_solutions(&mut out, &b, "solutions", &c.examples);
                }
            }
        }
        Problem::Tour {
            board,
            from,
            closed,
            count,
            magic,
            axes,
            budget,
        } => {
            let b = Board::from_spec(&board.variant).map_err(err)?;
            let start = match from {
                Some(name) => b.variant.geometry.parse_cell(name).ok_or_else(|| {
                    CommandError::Other(format!("'{name}' is not a cell of {}", b.variant.spec))
                })?,
                None => 0,
            };
            out.set("problem", json!("tour"));
            out.set("variant", json!(b.variant.spec));
            out.set("from", json!(b.name(start)));
            if *magic {
                let dims = b.variant.geometry.dims();
                let axes: Vec<usize> = match axes {
                    None => (0..dims).collect(),
                    Some(list) => list
                        .split(',')
                        .map(|x| match x.trim().parse::<usize>() {
                            Ok(a) if (1..=dims).contains(&a) => Ok(a - 1),
                            _ => Err(CommandError::Other(format!(
                                "--axes: '{x}' is not an axis of {} (1 to {dims})",
                                b.variant.spec
                            ))),
                        })
                        .collect::<Result<_, _>>()?,
                };
                let kind = if *closed { "closed" } else { "open" };
                let axis_names: Vec<String> = axes.iter().map(|a| (a + 1).to_string()).collect();
                out.set("closed", json!(closed));
                out.set(
                    "magic_axes",
                    json!(axes.iter().map(|a| a + 1).collect::<Vec<_>>()),
                );
                match find_magic(&b, start, *closed, &axes, *budget).map_err(err)? {
                    Some(t) => {
                        out.line(format!(
                            "{}: magic {kind} tour from {} (lines along axes {} sum to {}; {} nodes)",
                            b.variant.spec,
                            b.name(start),
                            axis_names.join(","),
                            t.sums
                                .iter()
                                .map(u64::to_string)
                                .collect::<Vec<_>>()
                                .join(","),
                            t.nodes
                        ));
                        let mut number = vec![0usize; b.cells()];
                        for (i, &c) in t.path.iter().enumerate() {
                            number[c] = i + 1;
                        }
                        out.line(numbered_diagram(&b, &number));
                        let names: Vec<String> = t.path.iter().map(|&c| b.name(c)).collect();
                        out.line(names.join(" "));
                        out.set("found", json!(true));
                        out.set("tour", json!(names));
                        out.set("sums", json!(t.sums));
                        out.set("nodes", json!(t.nodes));
                    }
                    None => {
                        out.line(format!(
                            "{}: no magic {kind} tour from {} (the search was complete)",
                            b.variant.spec,
                            b.name(start)
                        ));
                        out.set("found", json!(false));
                    }
                }
            } else if *count {
                let c = count_from(&b, start, *budget).map_err(err)?;
                out.line(format!(
                    "{}: {} directed tours from {}, {} of them closed ({} nodes)",
                    b.variant.spec,
                    c.open,
                    b.name(start),
                    c.closed,
                    c.nodes
                ));
                out.set("open", json!(c.open));
                out.set("closed", json!(c.closed));
                out.set("nodes", json!(c.nodes));
            } else {
                let kind = if *closed { "closed" } else { "open" };
                out.set("closed", json!(closed));
                match find(&b, start, *closed, *budget).map_err(err)? {
                    Some(path) => {
                        let names: Vec<String> = path.iter().map(|&c| b.name(c)).collect();
                        out.line(format!(
                            "{}: {kind} tour from {}: {}",
                            b.variant.spec,
                            b.name(start),
                            names.join(" ")
                        ));
                        out.set("tour", json!(names));
                    }
                    None => {
                        out.line(format!(
                            "{}: no {kind} tour from {}",
                            b.variant.spec,
                            b.name(start)
                        ));
                        out.set("tour", serde_json::Value::Null);
                    }
                }
            }
        }
    }
    let secs = t.elapsed().as_secs_f64();
    if json {
        out.set("seconds", json!(secs));
        let text = serde_json::to_string_pretty(&serde_json::Value::Object(out.fields))
            .map_err(|e| CommandError::Other(e.to_string()))?;
        println!("{text}");
    } else {
        for l in &out.lines {
            println!("{l}");
        }
    }
    eprintln!("time {secs:.3} s");
    Ok(())
}
