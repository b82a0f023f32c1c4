//! Perft beyond one machine: the tree is cut at a split depth into work
//! units, shares of the units are counted anywhere (GNU parallel, a Slurm
//! job array), and the shares are merged with a check that every unit was
//! counted exactly once.
//!
//! A unit is a position at the split depth with the number of move paths
//! that reach it (transpositions are merged, so a unit is counted once for
//! all its paths) and the depth left. Files are plain text, one record per
//! line, documented in docs/performance.md:
//!
//! ```text
//! # ndchess perft units 1
//! variant <spec>
//! root <position text>
//! depth <total depth>
//! split <split depth>
//! units <count>
//! <id> <paths> <depth left> <position text>
//! …
//! ```
//!
//! A shard's result names the units file by a digest of its records, so
//! shares of different unit files cannot be merged by mistake:
//!
//! ```text
//! # ndchess perft shard 1
//! units-digest <16 hex digits>
//! units <count>
//! shard <i>/<n>
//! <id> <nodes>
//! …
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use rayon::prelude::*;

use crate::board::registry;
use crate::board::variant::Variant;
use crate::rules::movegen;
use crate::rules::position::Position;

/// Why a units file, a shard or a merge was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnitsError {
    /// A line that is not what the format says (line number, why).
    Syntax(usize, String),
    /// The variant or a position does not load.
    Position(usize, String),
    /// `--shard i/n` out of range.
    Shard(String),
    /// The shares do not add up to the units exactly once.
    Merge(String),
}

impl fmt::Display for UnitsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnitsError::Syntax(line, s) => write!(f, "line {line}: {s}"),
            UnitsError::Position(line, s) => write!(f, "line {line}: {s}"),
            UnitsError::Shard(s) => write!(f, "shard: {s}"),
            UnitsError::Merge(s) => write!(f, "merge: {s}"),
        }
    }
}

impl std::error::Error for UnitsError {}

/// One unit of work.
#[derive(Clone, Debug)]
pub struct Unit {
    /// Its number in the file (0, 1, …).
    pub id: usize,
    /// The move paths from the root that reach it.
    pub paths: u64,
    /// Plies left to count below it.
    pub depth_left: u32,
    /// The position.
    pub position: Position,
}

/// A units file.
#[derive(Clone, Debug)]
pub struct Units {
    /// The variant.
    pub variant: Arc<Variant>,
    /// The root position.
    pub root: Position,
    /// The whole depth.
    pub depth: u32,
    /// Where the tree was cut.
    pub split: u32,
    /// The units.
    pub units: Vec<Unit>,
}

/// Cuts the tree of `root` at `split` plies (`split <= depth`); the units
/// come in the order their positions were first reached.
pub fn split(root: &Position, depth: u32, split: u32) -> Result<Units, UnitsError> {
    if split > depth {
        return Err(UnitsError::Shard(format!(
            "the split depth {split} is deeper than the depth {depth}"
        )));
    }
    let mut order: Vec<(String, Position)> = Vec::new();
    let mut paths: HashMap<String, (usize, u64)> = HashMap::new();
    fn walk(
        pos: &mut Position,
        left: u32,
        order: &mut Vec<(String, Position)>,
        paths: &mut HashMap<String, (usize, u64)>,
    ) {
        if left == 0 {
            let text = pos.to_text();
            let next = order.len();
            let entry = paths.entry(text.clone()).or_insert((next, 0));
            if entry.0 == next {
                order.push((text, pos.clone()));
            }
            entry.1 += 1;
            return;
        }
        for m in pos.legal_moves() {
            pos.make(m);
            walk(pos, left - 1, order, paths);
            pos.unmake();
        }
    }
    walk(&mut root.clone(), split, &mut order, &mut paths);
    let units = order
        .into_iter()
        .enumerate()
        .map(|(id, (text, position))| Unit {
            id,
            paths: paths[&text].1,
            depth_left: depth - split,
            position,
        })
        .collect();
    Ok(Units {
        variant: root.variant().clone(),
        root: root.clone(),
        depth,
        split,
        units,
    })
}

impl Units {
    /// The file's text.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "# ndchess perft units 1\nvariant {}\nroot {}\ndepth {}\nsplit {}\nunits {}\n",
            self.variant.spec,
            self.root.to_text(),
            self.depth,
            self.split,
            self.units.len()
        );
        for u in &self.units {
            s.push_str(&format!(
                "{} {} {} {}\n",
                u.id,
                u.paths,
                u.depth_left,
                u.position.to_text()
            ));
        }
        s
    }

    /// Reads a units file, refusing anything malformed.
    pub fn from_text(text: &str) -> Result<Units, UnitsError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        let mut next = |what: &str| -> Result<(usize, &str), UnitsError> {
            lines
                .next()
                .ok_or_else(|| UnitsError::Syntax(0, format!("missing {what}")))
        };
        let (n, magic) = next("header")?;
        if magic.trim() != "# ndchess perft units 1" {
            return Err(UnitsError::Syntax(
                n,
                "not an ndchess perft units file (version 1)".into(),
            ));
        }
        let mut field = |key: &str| -> Result<(usize, String), UnitsError> {
            let (n, line) = next(key)?;
            line.strip_prefix(key)
                .and_then(|rest| rest.strip_prefix(' '))
                .map(|v| (n, v.trim().to_string()))
                .ok_or_else(|| UnitsError::Syntax(n, format!("expected '{key} …'")))
        };
        let (n, spec) = field("variant")?;
        let variant = registry::build(&spec).map_err(|e| UnitsError::Position(n, e.to_string()))?;
        let (n, root) = field("root")?;
        let root = Position::from_text(&variant, &root)
            .map_err(|e| UnitsError::Position(n, e.to_string()))?;
        let number = |(n, v): (usize, String), what: &str| -> Result<u64, UnitsError> {
            v.parse::<u64>()
                .map_err(|_| UnitsError::Syntax(n, format!("{what} '{v}' is not a number")))
        };
        let depth = number(field("depth")?, "depth")? as u32;
        let split = number(field("split")?, "split")? as u32;
        let count = number(field("units")?, "units")? as usize;
        if split > depth {
            return Err(UnitsError::Syntax(0, "split deeper than depth".into()));
        }
        let mut units = Vec::with_capacity(count.min(1 << 24));
        for (n, line) in lines {
            if line.trim().is_empty() {
                continue;
            }
            let mut parts = line.splitn(4, ' ');
            let mut num = |what: &str| -> Result<u64, UnitsError> {
                let v = parts.next().unwrap_or("");
                v.parse::<u64>()
                    .map_err(|_| UnitsError::Syntax(n, format!("{what} '{v}' is not a number")))
            };
            let id = num("unit id")? as usize;
            let paths = num("path count")?;
            let depth_left = num("depth left")? as u32;
            let text = parts
                .next()
                .ok_or_else(|| UnitsError::Syntax(n, "missing the position".into()))?;
            if id != units.len() {
                return Err(UnitsError::Syntax(
                    n,
                    format!("unit {id} where unit {} was expected", units.len()),
                ));
            }
            if depth_left != depth - split {
                return Err(UnitsError::Syntax(
                    n,
                    format!("depth left {depth_left}, the header says {}", depth - split),
                ));
            }
            let position = Position::from_text(&variant, text)
                .map_err(|e| UnitsError::Position(n, e.to_string()))?;
            units.push(Unit {
                id,
                paths,
                depth_left,
                position,
            });
        }
        if units.len() != count {
            return Err(UnitsError::Syntax(
                0,
                format!("{} units, the header says {count}", units.len()),
            ));
        }
        Ok(Units {
            variant,
            root,
            depth,
            split,
            units,
        })
    }

    /// A digest of the units (FNV-1a over their records), naming the file
    /// in shard results.
    pub fn digest(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in self.to_text().bytes() {
            h ^= byte as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h
    }

    /// The units of shard `i` of `n`: every unit whose id is `i` modulo `n`.
    pub fn shard(&self, i: usize, n: usize) -> Result<Vec<&Unit>, UnitsError> {
        if n == 0 || i >= n {
            return Err(UnitsError::Shard(format!(
                "{i}/{n}: expected i/n with 0 <= i < n"
            )));
        }
        Ok(self.units.iter().filter(|u| u.id % n == i).collect())
    }
}

/// What a shard counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardResult {
    /// The digest of the units file.
    pub digest: u64,
    /// Units in the file.
    pub units: usize,
    /// This shard: `i` of `n`.
    pub shard: (usize, usize),
    /// (unit id, nodes below it times its paths).
    pub counts: Vec<(usize, u64)>,
}

/// Counts shard `i` of `n` on `threads` threads (0: one per core),
/// telling `done(finished, total)` as units finish.
pub fn count_shard(
    units: &Units,
    i: usize,
    n: usize,
    threads: usize,
    table: Option<&crate::rules::perft_table::PerftTable>,
    done: impl Fn(usize, usize) + Sync,
) -> Result<ShardResult, UnitsError> {
    let mine = units.shard(i, n)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| UnitsError::Shard(e.to_string()))?;
    let finished = std::sync::atomic::AtomicUsize::new(0);
    let counts = pool.install(|| {
        mine.par_iter()
            .map(|u| {
                let mut p = u.position.clone();
                let below = match table {
                    Some(t) => crate::rules::perft_table::perft_hashed(&mut p, u.depth_left, t),
                    None => movegen::perft(&mut p, u.depth_left),
                };
                let nodes = below * u.paths;
                let k = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                done(k, mine.len());
                (u.id, nodes)
            })
            .collect()
    });
    Ok(ShardResult {
        digest: units.digest(),
        units: units.units.len(),
        shard: (i, n),
        counts,
    })
}

impl ShardResult {
    /// The result's text.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "# ndchess perft shard 1\nunits-digest {:016x}\nunits {}\nshard {}/{}\n",
            self.digest, self.units, self.shard.0, self.shard.1
        );
        for (id, nodes) in &self.counts {
            s.push_str(&format!("{id} {nodes}\n"));
        }
        s
    }

    /// Reads a shard result.
    pub fn from_text(text: &str) -> Result<ShardResult, UnitsError> {
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
        let mut next = |what: &str| {
            lines
                .next()
                .ok_or_else(|| UnitsError::Syntax(0, format!("missing {what}")))
        };
        let (n, magic) = next("header")?;
        if magic.trim() != "# ndchess perft shard 1" {
            return Err(UnitsError::Syntax(
                n,
                "not an ndchess perft shard result (version 1)".into(),
            ));
        }
        let (n, line) = next("units-digest")?;
        let digest = line
            .strip_prefix("units-digest ")
            .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
            .ok_or_else(|| UnitsError::Syntax(n, "expected 'units-digest <hex>'".into()))?;
        let (n, line) = next("units")?;
        let units = line
            .strip_prefix("units ")
            .and_then(|v| v.trim().parse::<usize>().ok())
            .ok_or_else(|| UnitsError::Syntax(n, "expected 'units <count>'".into()))?;
        let (n, line) = next("shard")?;
        let shard = line
            .strip_prefix("shard ")
            .and_then(|v| parse_shard(v.trim()).ok())
            .ok_or_else(|| UnitsError::Syntax(n, "expected 'shard <i>/<n>'".into()))?;
        let mut counts = Vec::new();
        for (n, line) in lines {
            if line.trim().is_empty() {
                continue;
            }
            let pair = line
                .split_once(' ')
                .and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.trim().parse::<u64>().ok()?)))
                .ok_or_else(|| UnitsError::Syntax(n, format!("expected '<id> <nodes>': {line}")))?;
            counts.push(pair);
        }
        Ok(ShardResult {
            digest,
            units,
            shard,
            counts,
        })
    }
}

/// Parses `i/n`.
pub fn parse_shard(s: &str) -> Result<(usize, usize), UnitsError> {
    let (i, n) = s
        .split_once('/')
        .and_then(|(i, n)| Some((i.trim().parse().ok()?, n.trim().parse().ok()?)))
        .ok_or_else(|| UnitsError::Shard(format!("'{s}': expected i/n, e.g. 0/4")))?;
    if n == 0 || i >= n {
        return Err(UnitsError::Shard(format!(
            "'{s}': expected i/n with 0 <= i < n"
        )));
    }
    Ok((i, n))
}

/// Adds the shares: refuses results of different unit files, and units
/// counted twice or not at all.
pub fn merge(results: &[ShardResult]) -> Result<u64, UnitsError> {
    let first = results
        .first()
        .ok_or_else(|| UnitsError::Merge("no shard results".into()))?;
    if let Some(r) = results
        .iter()
        .find(|r| r.digest != first.digest || r.units != first.units)
    {
        return Err(UnitsError::Merge(format!(
            "shard {}/{} counted other units (digest {:016x}, not {:016x})",
            r.shard.0, r.shard.1, r.digest, first.digest
        )));
    }
    let mut seen = vec![false; first.units];
    let mut total: u64 = 0;
    for r in results {
        for &(id, nodes) in &r.counts {
            if id >= first.units {
                return Err(UnitsError::Merge(format!("unit {id} is not in the file")));
            }
            if seen[id] {
                return Err(UnitsError::Merge(format!("unit {id} was counted twice")));
            }
            seen[id] = true;
            total += nodes;
        }
    }
    let missing: Vec<usize> = (0..first.units).filter(|&i| !seen[i]).collect();
    if !missing.is_empty() {
        return Err(UnitsError::Merge(format!(
            "{} units were not counted (the first: {})",
            missing.len(),
            missing[0]
        )));
    }
    Ok(total)
}
