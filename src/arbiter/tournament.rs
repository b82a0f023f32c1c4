//! Running a match or tournament: the schedule (deterministic, so that a
//! shard plays exactly its part of the whole run), the games on worker
//! threads, the journal that makes a run resumable and mergeable, the live
//! progress, the statistics and the JSON summary.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::board::registry;
use crate::board::seating::{BySeat, Seat};
use crate::board::variant::Variant;
use crate::game::driver::{DriverOptions, Player};
use crate::game::record::{Game, GameEnd};
use crate::protocol::text::result_text;

use super::config::{Config, Format};
use super::engine::ExternalEngine;
use super::openings::{self, Opening, OpeningSource};
use super::pgn::{self, PgnHeader};
use super::publish::{Publisher, WatchEvent, watch_game};
use super::stats::{Penta, Sprt, SprtStatus, Wdl};

/// Why a run could not go on.
#[derive(Debug)]
pub enum RunError {
    /// The configuration cannot be run (variant, openings).
    Setup(String),
    /// A file could not be read or written.
    Io(String),
    /// The journal belongs to another run, or is damaged.
    Journal(String),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Setup(s) => write!(f, "{s}"),
            RunError::Io(s) => write!(f, "{s}"),
            RunError::Journal(s) => write!(f, "journal: {s}"),
        }
    }
}

impl std::error::Error for RunError {}

fn io(path: &Path, e: std::io::Error) -> RunError {
    RunError::Io(format!("{}: {e}", path.display()))
}

/// One game of the schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// Its number in the whole run (0-based).
    pub index: usize,
    /// Its round (0-based).
    pub round: usize,
    /// The pair of games that share its opening (with `-repeat`).
    pub pair: usize,
    /// The opening's number.
    pub opening: usize,
    /// The engine of each seat.
    pub seats: Vec<usize>,
}

/// The encounters of a format: pairs of engine indices.
fn encounters(format: Format, n: usize) -> Vec<(usize, usize)> {
    match format {
        Format::Gauntlet => (1..n).map(|i| (0, i)).collect(),
        Format::RoundRobin => (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect(),
    }
}

/// The whole run's games in order. Each encounter's `k`-th game swaps the
/// seats of the `(k-1)`-th; with `repeat`, games `2j` and `2j+1` of an
/// encounter share an opening (a pair), otherwise every game has its own.
pub fn schedule(c: &Config) -> Vec<Job> {
    let mut jobs = Vec::new();
    let mut next_opening = 0usize;
    let mut pair_of: BTreeMap<(usize, usize), (usize, usize)> = BTreeMap::new();
    let enc = encounters(c.format, c.engines.len());
    for round in 0..c.rounds {
        for (e, &(a, b)) in enc.iter().enumerate() {
            for g in 0..c.games {
                let k = round * c.games + g;
                let slot = if c.repeat { k / 2 } else { k };
                let (pair, opening) = *pair_of.entry((e, slot)).or_insert_with(|| {
                    let id = next_opening;
                    next_opening += 1;
                    (id, id)
                });
                let seats = if k.is_multiple_of(2) {
                    vec![a, b]
                } else {
                    vec![b, a]
                };
                jobs.push(Job {
                    index: jobs.len(),
                    round,
                    pair,
                    opening,
                    seats,
                });
            }
        }
    }
    jobs
}

/// Whether a game belongs to shard `i` of `n`: whole pairs go to one
/// shard, so that pentanomial counts survive the split.
pub fn in_shard(job: &Job, shard: Option<(usize, usize)>) -> bool {
    shard.is_none_or(|(i, n)| job.pair % n == i)
}

/// What the journal keeps of a finished game (one JSON line).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// Its number in the whole run.
    pub index: usize,
    /// Its round.
    pub round: usize,
    /// Its opening pair.
    pub pair: usize,
    /// Its opening.
    pub opening: usize,
    /// The engine (index) of each seat.
    pub engines: Vec<usize>,
    /// Points of each seat.
    pub points: Vec<f64>,
    /// The result as PGN writes it.
    pub result: String,
    /// The PGN `Termination`.
    pub termination: String,
    /// Why it ended, in words.
    pub reason: String,
    /// The moves in coordinates.
    pub moves: Vec<String>,
    /// The final position's text.
    pub final_position: String,
    /// The game's PGN.
    pub pgn: String,
    /// Wall time of the game (ms).
    pub wall_ms: f64,
    /// Wall time the engines took for their moves, per seat (ms).
    pub think_ms: Vec<f64>,
    /// CPU time the engines' processes used during the game, per seat (ms).
    pub cpu_ms: Vec<f64>,
}

/// What identifies a run in its journal.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    /// `Event`.
    pub event: String,
    /// Variant spec.
    pub variant: String,
    /// Engine names, in command-line order.
    pub engines: Vec<String>,
    /// Games of the whole run.
    pub games: usize,
    /// The SPRT, if any.
    pub sprt: Option<Sprt>,
    /// The shard this journal holds, if any.
    pub shard: Option<(usize, usize)>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum JournalLine {
    Header(RunHeader),
    Game(Box<GameRecord>),
}

/// Reads a journal: its header and its games. A damaged last line (the
/// arbiter killed while writing it) is dropped; damage elsewhere is an
/// error.
pub fn read_journal(path: &Path) -> Result<(RunHeader, Vec<GameRecord>), RunError> {
    let f = File::open(path).map_err(|e| io(path, e))?;
    let lines: Vec<String> = BufReader::new(f)
        .lines()
        .collect::<Result<_, _>>()
        .map_err(|e| io(path, e))?;
    let mut header = None;
    let mut games = Vec::new();
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<JournalLine>(line) {
            Ok(JournalLine::Header(h)) if header.is_none() => header = Some(h),
            Ok(JournalLine::Header(_)) => {
                return Err(RunError::Journal(format!(
                    "{}: two headers",
                    path.display()
                )));
            }
            Ok(JournalLine::Game(g)) => games.push(*g),
            Err(_) if i == last => {
                eprintln!(
                    "warning: {}: the last line is incomplete and is dropped",
                    path.display()
                );
            }
            Err(e) => {
                return Err(RunError::Journal(format!(
                    "{} line {}: {e}",
                    path.display(),
                    i + 1
                )));
            }
        }
    }
    let header =
        header.ok_or_else(|| RunError::Journal(format!("{}: no header", path.display())))?;
    Ok((header, games))
}

/// W/D/L of one game for the engine in `seat`, points above half a point
/// counting as a win (the cube's ¾ point too).
fn wdl_of(points: f64) -> Wdl {
    let mut w = Wdl::default();
    if points > 0.5 {
        w.wins = 1;
    } else if points < 0.5 {
        w.losses = 1;
    } else {
        w.draws = 1;
    }
    w
}

/// One engine's line in the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    /// Name.
    pub name: String,
    /// Games played.
    pub games: u64,
    /// Points.
    pub points: f64,
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Losses by forfeit (crash, time, illegal move, no answer).
    pub forfeits: u64,
    /// CPU seconds used.
    pub cpu_s: f64,
    /// Seconds spent thinking on its moves, as the arbiter's clock
    /// measured them. With `cpu_s` it tells whether the engine had the
    /// CPU its clock was charged for.
    #[serde(default)]
    pub think_s: f64,
}

/// Below this share of a core while thinking (CPU seconds per second of
/// think time), the table warns that the machine was overloaded. A
/// single-threaded engine that has its core uses 0.95-1.0 of it; the rest
/// is its reading and writing of the protocol.
pub const CPU_SHARE_WARNING: f64 = 0.85;

/// Think time below which an engine's CPU share is not judged: the
/// first moves of a run are too short to measure it.
const CPU_SHARE_MIN_THINK_S: f64 = 5.0;

/// Two engines' results against each other, from the first's side.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EncounterStats {
    /// The first engine.
    pub first: String,
    /// The second engine.
    pub second: String,
    /// Games.
    pub games: u64,
    /// The first's wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// The first's losses.
    pub losses: u64,
    /// The first's points.
    pub points: f64,
    /// Score fraction.
    pub score: f64,
    /// Elo difference (none when one side scored everything).
    pub elo: Option<f64>,
    /// Its 95 % interval's half-width.
    pub elo_error: Option<f64>,
    /// Likelihood of superiority.
    pub los: Option<f64>,
    /// Draws per game.
    pub draw_ratio: f64,
    /// Pentanomial counts of finished pairs (0, ½, 1, 1½, 2 points).
    pub penta: [u64; 5],
    /// Elo from the pairs.
    pub penta_elo: Option<f64>,
    /// Its 95 % interval's half-width.
    pub penta_elo_error: Option<f64>,
}

/// The SPRT's state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtReport {
    /// The test.
    pub test: Sprt,
    /// The log-likelihood ratio.
    pub llr: f64,
    /// Its bounds.
    pub lower: f64,
    /// Its bounds.
    pub upper: f64,
    /// `H0 accepted`, `H1 accepted` or `continue`.
    pub status: String,
}

/// Timing of the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// Moves played by engines.
    pub moves: u64,
    /// Sum of the games' wall times (s).
    pub game_wall_s: f64,
    /// Sum of the engines' think times (s).
    pub think_s: f64,
    /// Sum of the engines' CPU times (s).
    pub cpu_s: f64,
    /// Wall time per move not spent in an engine's turn (ms).
    pub arbiter_ms_per_move: f64,
}

/// The JSON summary of a run (or of merged shards).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The run.
    pub header: RunHeader,
    /// Games finished.
    pub played: usize,
    /// Standings, best first.
    pub standings: Vec<Standing>,
    /// Every encounter.
    pub encounters: Vec<EncounterStats>,
    /// The SPRT, if one runs.
    pub sprt: Option<SprtReport>,
    /// Game results by index (`1-0`, …), for comparing runs.
    pub results: BTreeMap<usize, String>,
    /// Timing.
    pub timing: Timing,
}

/// Computes the summary of finished games.
pub fn summarise(header: &RunHeader, games: &[GameRecord]) -> Summary {
    let n = header.engines.len();
    let mut standings: Vec<Standing> = header
        .engines
        .iter()
        .map(|name| Standing {
            name: name.clone(),
            games: 0,
            points: 0.0,
            wins: 0,
            draws: 0,
            losses: 0,
            forfeits: 0,
            cpu_s: 0.0,
            think_s: 0.0,
        })
        .collect();
    // Per encounter: W/D/L, the first engine's points, its points by pair.
    type PairPoints = BTreeMap<usize, Vec<f64>>;
    let mut enc: BTreeMap<(usize, usize), (Wdl, f64, PairPoints)> = BTreeMap::new();
    let mut timing = Timing {
        moves: 0,
        game_wall_s: 0.0,
        think_s: 0.0,
        cpu_s: 0.0,
        arbiter_ms_per_move: 0.0,
    };
    let mut results = BTreeMap::new();
    for g in games {
        results.insert(g.index, g.result.clone());
        for (seat, &e) in g.engines.iter().enumerate() {
            let Some(s) = standings.get_mut(e) else {
                continue;
            };
            let p = g.points.get(seat).copied().unwrap_or(0.0);
            let w = wdl_of(p);
            s.games += 1;
            s.points += p;
            s.wins += w.wins;
            s.draws += w.draws;
            s.losses += w.losses;
            s.cpu_s += g.cpu_ms.get(seat).copied().unwrap_or(0.0) / 1000.0;
            s.think_s += g.think_ms.get(seat).copied().unwrap_or(0.0) / 1000.0;
        }
        if matches!(
            g.termination.as_str(),
            "time forfeit" | "rules infraction" | "abandoned"
        ) {
            for (seat, &e) in g.engines.iter().enumerate() {
                if g.points.get(seat).copied().unwrap_or(0.0) == 0.0
                    && let Some(s) = standings.get_mut(e)
                {
                    s.forfeits += 1;
                }
            }
        }
        if g.engines.len() == 2 && g.engines[0] < n && g.engines[1] < n {
            let (a, b) = (
                g.engines[0].min(g.engines[1]),
                g.engines[0].max(g.engines[1]),
            );
            let seat_a = if g.engines[0] == a { 0 } else { 1 };
            let p = g.points.get(seat_a).copied().unwrap_or(0.0);
            let entry = enc.entry((a, b)).or_default();
            entry.0 += wdl_of(p);
            entry.1 += p;
            entry.2.entry(g.pair).or_default().push(p);
        }
        timing.moves += g.moves.len() as u64;
        timing.game_wall_s += g.wall_ms / 1000.0;
        timing.think_s += g.think_ms.iter().sum::<f64>() / 1000.0;
        timing.cpu_s += g.cpu_ms.iter().sum::<f64>() / 1000.0;
    }
    if timing.moves > 0 {
        timing.arbiter_ms_per_move =
            (timing.game_wall_s - timing.think_s).max(0.0) * 1000.0 / timing.moves as f64;
    }
    standings.sort_by(|x, y| y.points.total_cmp(&x.points));
    let mut encounters = Vec::new();
    let mut sprt = None;
    for ((a, b), (wdl, points, pairs)) in &enc {
        let mut penta = Penta::default();
        for ps in pairs.values().filter(|p| p.len() == 2) {
            penta.add_pair((ps[0] + ps[1]).clamp(0.0, 2.0));
        }
        encounters.push(EncounterStats {
            first: header.engines[*a].clone(),
            second: header.engines[*b].clone(),
            games: wdl.games(),
            wins: wdl.wins,
            draws: wdl.draws,
            losses: wdl.losses,
            points: *points,
            score: wdl.score().unwrap_or(0.5),
            elo: wdl.elo(),
            elo_error: wdl.elo_error_95(),
            los: wdl.los(),
            draw_ratio: wdl.draw_ratio().unwrap_or(0.0),
            penta: penta.counts(),
            penta_elo: penta.elo(),
            penta_elo_error: penta.elo_error_95(),
        });
        if let Some(test) = header.sprt
            && (*a, *b) == (0, 1)
        {
            let llr = if penta.pairs() > 0 {
                test.llr_pentanomial(&penta)
            } else {
                test.llr_trinomial(wdl)
            };
            let (lower, upper) = test.bounds();
            sprt = Some(SprtReport {
                test,
                llr,
                lower,
                upper,
                status: match test.status(llr) {
                    SprtStatus::AcceptH0 => "H0 accepted",
                    SprtStatus::AcceptH1 => "H1 accepted",
                    SprtStatus::Continue => "continue",
                }
                .into(),
            });
        }
    }
    Summary {
        header: header.clone(),
        played: games.len(),
        standings,
        encounters,
        sprt,
        results,
        timing,
    }
}

fn fmt_opt(x: Option<f64>, prec: usize) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.prec$}"),
        Some(v) if v > 0.0 => "inf".into(),
        Some(_) => "-inf".into(),
        None => "n/a".into(),
    }
}

/// The results table printed at the end (and every rating interval).
pub fn table(s: &Summary) -> String {
    let mut out = String::new();
    for e in &s.encounters {
        out.push_str(&format!(
            "Score of {} vs {}: {} - {} - {}  [{:.3}] {}\n",
            e.first, e.second, e.wins, e.losses, e.draws, e.score, e.games
        ));
        out.push_str(&format!(
            "Elo difference: {} +/- {}, LOS: {} %, DrawRatio: {:.1} %\n",
            fmt_opt(e.elo, 1),
            fmt_opt(e.elo_error, 1),
            fmt_opt(e.los.map(|l| l * 100.0), 1),
            e.draw_ratio * 100.0
        ));
        if e.penta.iter().sum::<u64>() > 0 {
            out.push_str(&format!(
                "Ptnml(0-2): [{}, {}, {}, {}, {}], pair Elo: {} +/- {}\n",
                e.penta[0],
                e.penta[1],
                e.penta[2],
                e.penta[3],
                e.penta[4],
                fmt_opt(e.penta_elo, 1),
                fmt_opt(e.penta_elo_error, 1)
            ));
        }
    }
    if let Some(t) = &s.sprt {
        out.push_str(&format!(
            "SPRT: llr {:.3} ({:.1} %), lbound {:.2}, ubound {:.2} - {}\n",
            t.llr,
            t.llr / t.upper * 100.0,
            t.lower,
            t.upper,
            t.status
        ));
    }
    if s.header.engines.len() > 2 {
        out.push_str("Rank Name                           Points  Games     W     D     L\n");
        for (i, st) in s.standings.iter().enumerate() {
            out.push_str(&format!(
                "{:>4} {:<30} {:>6.1} {:>6} {:>5} {:>5} {:>5}\n",
                i + 1,
                st.name,
                st.points,
                st.games,
                st.wins,
                st.draws,
                st.losses
            ));
        }
    }
    out.push_str(&cpu_share_lines(&s.standings));
    out
}

/// Each engine's CPU seconds per second of thinking, and a warning when
/// one had clearly less than a core. A clock charges an engine wall time:
/// if other load (or `-concurrency` above the cores) takes its CPU, it
/// plays at a shorter time control than the one named, and not every
/// engine loses alike to that (one that stops at a depth loses nothing
/// once it reaches it, one that uses its time loses depth on every move).
/// A result taken under such load measures another time control.
fn cpu_share_lines(standings: &[Standing]) -> String {
    let judged: Vec<(&str, f64)> = standings
        .iter()
        .filter(|st| st.think_s >= CPU_SHARE_MIN_THINK_S)
        .map(|st| (st.name.as_str(), st.cpu_s / st.think_s))
        .collect();
    if judged.is_empty() {
        return String::new();
    }
    let shares: Vec<String> = judged
        .iter()
        .map(|(name, share)| format!("{name} {share:.2}"))
        .collect();
    let mut out = format!(
        "CPU while thinking (CPU s per s of think time): {}\n",
        shares.join(", ")
    );
    let starved: Vec<&str> = judged
        .iter()
        .filter(|(_, share)| *share < CPU_SHARE_WARNING)
        .map(|(name, _)| *name)
        .collect();
    if !starved.is_empty() {
        out.push_str(&format!(
            "Warning: {} had less than {:.0} % of a core while thinking: the machine is \
             overloaded (other load, or -concurrency above its cores), so timed games are \
             played at less than their time control\n",
            starved.join(", "),
            CPU_SHARE_WARNING * 100.0
        ));
    }
    out
}

/// Today's date as PGN writes it (UTC).
fn pgn_date() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

fn hms(d: Duration) -> String {
    let s = d.as_secs();
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The endgame tables of `variant` in `dir`, shared by every game of the
/// run (tables are read once); `None` where tables do not apply.
fn tablebases_for(
    variant: &Arc<Variant>,
    dir: &std::path::Path,
) -> Option<Arc<crate::tablebase::Tablebases>> {
    type Cache =
        std::collections::HashMap<(String, PathBuf), Option<Arc<crate::tablebase::Tablebases>>>;
    static CACHE: std::sync::OnceLock<std::sync::Mutex<Cache>> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    // Invariant: the lock is held only for this lookup, never across a panic.
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    cache
        .entry((variant.spec.clone(), dir.to_path_buf()))
        .or_insert_with(|| {
            crate::tablebase::Tablebases::new(variant, Some(dir))
                .ok()
                .map(Arc::new)
        })
        .clone()
}

/// Plays one game of the schedule with the worker's engines.
fn play_job(
    job: &Job,
    c: &Config,
    variant: &Arc<Variant>,
    opening: &Opening,
    engines: &mut [Option<ExternalEngine>],
    date: &str,
    publisher: Option<&Publisher>,
) -> GameRecord {
    let started = Instant::now();
    let mut game = opening
        .game(variant)
        .unwrap_or_else(|_| Game::new(crate::rules::position::Position::start(variant)));
    let opening_plies = game.plies().len();
    let mut taken: Vec<ExternalEngine> = job
        .seats
        .iter()
        .map(|&e| {
            engines[e]
                .take()
                .unwrap_or_else(|| ExternalEngine::new(c.engines[e].clone()))
        })
        .collect();
    let cpu_before: Vec<Duration> = taken.iter().map(ExternalEngine::cpu_time).collect();
    let seats: BySeat<usize> = BySeat::from_fn(job.seats.len(), |s: Seat| s.index());
    let tc = c.engines[job.seats[0]].tc;
    let margin = job
        .seats
        .iter()
        .map(|&e| c.engines[e].timemargin)
        .max()
        .unwrap_or_default();
    let options = DriverOptions {
        time_control: tc,
        time_margin: margin,
        max_plies: c.maxmoves.map(|m| m * job.seats.len()),
        draw_rule: c.draw,
        resign_rule: c.resign,
        tablebases: c
            .tablebases
            .as_deref()
            .and_then(|dir| tablebases_for(variant, dir)),
    };
    let names: Vec<String> = job
        .seats
        .iter()
        .map(|&e| c.engines[e].name.clone())
        .collect();
    let mut publish = |g: &Game| {
        if let Some(p) = publisher {
            p.send(WatchEvent::Game(watch_game(
                g, job.index, &c.event, &names, tc,
            )));
        }
    };
    publish(&game);
    let end = {
        let mut players: Vec<&mut dyn Player> =
            taken.iter_mut().map(|e| e as &mut dyn Player).collect();
        crate::game::driver::run(&mut game, &mut players, &seats, &options, &mut publish)
    };
    // The end may come without a step (a forfeit, an adjudication).
    publish(&game);
    let cpu_ms: Vec<f64> = taken
        .iter()
        .zip(&cpu_before)
        .map(|(e, b)| e.cpu_time().saturating_sub(*b).as_secs_f64() * 1000.0)
        .collect();
    for (e, eng) in job.seats.iter().zip(taken) {
        engines[*e] = Some(eng);
    }
    let mut think_ms = vec![0.0; job.seats.len()];
    let mut pos = game.start().clone();
    let mut moves = Vec::new();
    for ply in game.plies() {
        if let crate::game::record::Step::Move(m) = ply.step {
            if let Some(a) = &ply.annotation {
                let seat = pos.to_move().index();
                if let Some(t) = think_ms.get_mut(seat) {
                    *t += a.time.as_secs_f64() * 1000.0;
                }
            }
            moves.push(pos.move_text(m, pos.king_takes_rook()));
            pos.make(m);
        }
    }
    let header = PgnHeader {
        event: c.event.clone(),
        site: c.site.clone(),
        date: date.to_string(),
        round: (job.index + 1).to_string(),
        players: job
            .seats
            .iter()
            .map(|&e| c.engines[e].name.clone())
            .collect(),
        time_control: tc.map(|t| t.to_string()).unwrap_or_else(|| "-".into()),
        extra: vec![(
            "Opening".into(),
            format!("{} ({} plies)", job.opening + 1, opening_plies),
        )],
    };
    let pgn_text = pgn::write_game(&game, &header);
    let end_ref: &GameEnd = &end;
    GameRecord {
        index: job.index,
        round: job.round,
        pair: job.pair,
        opening: job.opening,
        engines: job.seats.clone(),
        points: end_ref
            .outcome()
            .points
            .values()
            .iter()
            .map(|p| p.value())
            .collect(),
        result: result_text(end_ref.outcome()),
        termination: pgn::termination(end_ref).into(),
        reason: end_ref.reason(&game),
        moves,
        final_position: game.position().to_text(),
        pgn: pgn_text,
        wall_ms: started.elapsed().as_secs_f64() * 1000.0,
        think_ms,
        cpu_ms,
    }
}

/// The opening of opening number `i`.
fn opening_for(i: usize, c: &Config, variant: &Arc<Variant>, file_openings: &[Opening]) -> Opening {
    match &c.openings {
        OpeningSource::Random { plies } => openings::random_opening(
            variant,
            *plies,
            c.seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        ),
        _ => file_openings[(c.opening_start + i) % file_openings.len()].clone(),
    }
}

struct Output {
    journal: Option<File>,
    pgn: Option<File>,
}

impl Output {
    fn write(&mut self, c: &Config, r: &GameRecord) -> Result<(), RunError> {
        // The PGN first: a game in the journal is always in the PGN, and a
        // resumed run rewrites the PGN from the journal.
        if let (Some(f), Some(p)) = (self.pgn.as_mut(), c.pgnout.as_ref()) {
            f.write_all(r.pgn.as_bytes())
                .and_then(|_| f.flush())
                .map_err(|e| io(p, e))?;
        }
        if let (Some(f), Some(p)) = (self.journal.as_mut(), c.journal.as_ref()) {
            let line = serde_json::to_string(&JournalLine::Game(Box::new(r.clone())))
                .map_err(|e| RunError::Journal(e.to_string()))?;
            writeln!(f, "{line}")
                .and_then(|_| f.sync_data())
                .map_err(|e| io(p, e))?;
        }
        Ok(())
    }
}

/// Runs the configured match or tournament; returns its summary.
pub fn run(c: &Config) -> Result<Summary, RunError> {
    let variant = registry::build(&c.variant).map_err(|e| RunError::Setup(e.to_string()))?;
    let file_openings = match &c.openings {
        OpeningSource::Random { .. } => Vec::new(),
        src => {
            let o = openings::load(src, &variant).map_err(|e| RunError::Setup(e.to_string()))?;
            openings::ordered(o, c.order, c.seed)
        }
    };
    let all = schedule(c);
    let header = RunHeader {
        event: c.event.clone(),
        variant: variant.spec.clone(),
        engines: c.engines.iter().map(|e| e.name.clone()).collect(),
        games: all.len(),
        sprt: c.sprt,
        shard: c.shard,
    };
    let mut done: Vec<GameRecord> = Vec::new();
    if let Some(j) = &c.journal
        && j.exists()
        && std::fs::metadata(j).map(|m| m.len() > 0).unwrap_or(false)
    {
        if !c.recover {
            return Err(RunError::Journal(format!(
                "{} exists: resume with -recover, or remove it",
                j.display()
            )));
        }
        let (h, games) = read_journal(j)?;
        if h != header {
            return Err(RunError::Journal(format!(
                "{} belongs to another run ({} with {:?}, {} games)",
                j.display(),
                h.variant,
                h.engines,
                h.games
            )));
        }
        done = games;
    }
    let finished: BTreeSet<usize> = done.iter().map(|g| g.index).collect();
    let jobs: Vec<Job> = all
        .iter()
        .filter(|j| in_shard(j, c.shard) && !finished.contains(&j.index))
        .cloned()
        .collect();
    let total = jobs.len() + done.len();
    // Open the outputs: the journal is rewritten with what it held (a
    // damaged last line goes), the PGN is rebuilt from it.
    let mut out = Output {
        journal: None,
        pgn: None,
    };
    if let Some(p) = &c.journal {
        let mut f = File::create(p).map_err(|e| io(p, e))?;
        let mut text = serde_json::to_string(&JournalLine::Header(header.clone()))
            .map_err(|e| RunError::Journal(e.to_string()))?;
        text.push('\n');
        for g in &done {
            text.push_str(
                &serde_json::to_string(&JournalLine::Game(Box::new(g.clone())))
                    .map_err(|e| RunError::Journal(e.to_string()))?,
            );
            text.push('\n');
        }
        f.write_all(text.as_bytes()).map_err(|e| io(p, e))?;
        out.journal = Some(f);
    }
    if let Some(p) = &c.pgnout {
        let mut f = File::create(p).map_err(|e| io(p, e))?;
        for g in &done {
            f.write_all(g.pgn.as_bytes()).map_err(|e| io(p, e))?;
        }
        out.pgn = Some(
            OpenOptions::new()
                .append(true)
                .open(p)
                .map_err(|e| io(p, e))?,
        );
    }
    if !done.is_empty() {
        eprintln!(
            "Resuming: {} of {} games already finished",
            done.len(),
            total
        );
    }
    let date = pgn_date();
    let publisher = c.publish.as_deref().map(Publisher::start);
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let (job_tx, job_rx) = crossbeam_channel::unbounded::<Job>();
    let (res_tx, res_rx) = crossbeam_channel::unbounded::<GameRecord>();
    for j in &jobs {
        // Invariant: the receiver lives until the scope below ends.
        let _ = job_tx.send(j.clone());
    }
    drop(job_tx);
    let workers = c.concurrency.min(jobs.len()).max(1);
    let scheduled = all.len();
    let mut result: Result<(), RunError> = Ok(());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let job_rx = job_rx.clone();
            let res_tx = res_tx.clone();
            let (variant, file_openings, stop, date, publisher) =
                (&variant, &file_openings, &stop, &date, &publisher);
            scope.spawn(move || {
                let mut engines: Vec<Option<ExternalEngine>> =
                    (0..c.engines.len()).map(|_| None).collect();
                while let Ok(job) = job_rx.recv() {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    if !c.quiet {
                        let names: Vec<&str> = job
                            .seats
                            .iter()
                            .map(|&e| c.engines[e].name.as_str())
                            .collect();
                        eprintln!(
                            "Started game {} of {} ({})",
                            job.index + 1,
                            scheduled,
                            names.join(" vs ")
                        );
                    }
                    let opening = opening_for(job.opening, c, variant, file_openings);
                    let r = play_job(
                        &job,
                        c,
                        variant,
                        &opening,
                        &mut engines,
                        date,
                        publisher.as_ref(),
                    );
                    if res_tx.send(r).is_err() {
                        break;
                    }
                    if !c.wait.is_zero() {
                        std::thread::sleep(c.wait);
                    }
                }
                for e in engines.iter_mut().flatten() {
                    e.quit();
                }
            });
        }
        drop(res_tx);
        let mut played_now = 0usize;
        for r in res_rx.iter() {
            if let Err(e) = out.write(c, &r) {
                result = Err(e);
                stop.store(true, Ordering::Relaxed);
            }
            played_now += 1;
            let names: Vec<&str> = r
                .engines
                .iter()
                .map(|&e| c.engines[e].name.as_str())
                .collect();
            done.push(r);
            let s = summarise(&header, &done);
            let last = done
                .last()
                .map(|g| (g.index, g.result.clone(), g.reason.clone()));
            if let Some((index, res, reason)) = last
                && !c.quiet
            {
                eprintln!(
                    "Finished game {} ({}): {res} {{{reason}}}",
                    index + 1,
                    names.join(" vs ")
                );
            }
            if let Some(p) = &publisher {
                p.send(WatchEvent::Standings {
                    event: c.event.clone(),
                    text: table(&s),
                    done: done.len(),
                    total,
                });
            }
            let elapsed = started.elapsed();
            let left = total - done.len();
            let eta = elapsed.mul_f64(left as f64 / played_now as f64);
            let score = s
                .encounters
                .first()
                .map(|e| {
                    format!(
                        "{} - {} - {} [{:.3}], Elo {} +/- {}",
                        e.wins,
                        e.losses,
                        e.draws,
                        e.score,
                        fmt_opt(e.elo, 1),
                        fmt_opt(e.elo_error, 1)
                    )
                })
                .unwrap_or_default();
            eprintln!(
                "[{}/{}] {score}; elapsed {}, ETA {}",
                done.len(),
                total,
                hms(elapsed),
                hms(eta)
            );
            if c.rating_interval > 0
                && done.len().is_multiple_of(c.rating_interval)
                && done.len() < total
            {
                eprint!("{}", table(&s));
            }
            if let Some(t) = &s.sprt
                && t.status != "continue"
                && !stop.load(Ordering::Relaxed)
            {
                eprintln!(
                    "SPRT: {} (llr {:.3}); no new games are started",
                    t.status, t.llr
                );
                stop.store(true, Ordering::Relaxed);
            }
        }
    });
    if let Some(p) = publisher {
        p.finish();
    }
    result?;
    done.sort_by_key(|g| g.index);
    let summary = summarise(&header, &done);
    if let Some(p) = &c.jsonout {
        write_summary(p, &summary)?;
    }
    Ok(summary)
}

/// Writes a summary as pretty JSON.
pub fn write_summary(path: &Path, s: &Summary) -> Result<(), RunError> {
    let text = serde_json::to_string_pretty(s).map_err(|e| RunError::Journal(e.to_string()))?;
    std::fs::write(path, text + "\n").map_err(|e| io(path, e))
}

/// Merges shard journals into one result: checks that they belong to one
/// run and that every game of it was played exactly once, writes the games'
/// PGN in schedule order and the summary.
pub fn merge(
    journals: &[PathBuf],
    pgnout: Option<&Path>,
    jsonout: Option<&Path>,
) -> Result<Summary, RunError> {
    let mut header: Option<RunHeader> = None;
    let mut games: BTreeMap<usize, GameRecord> = BTreeMap::new();
    for j in journals {
        let (h, gs) = read_journal(j)?;
        let whole = RunHeader {
            shard: None,
            ..h.clone()
        };
        match &header {
            None => header = Some(whole),
            Some(x) if *x != whole => {
                return Err(RunError::Journal(format!(
                    "{} belongs to another run than {}",
                    j.display(),
                    journals[0].display()
                )));
            }
            Some(_) => {}
        }
        for g in gs {
            if games.contains_key(&g.index) {
                return Err(RunError::Journal(format!(
                    "game {} is in more than one journal ({})",
                    g.index + 1,
                    j.display()
                )));
            }
            games.insert(g.index, g);
        }
    }
    let header = header.ok_or_else(|| RunError::Journal("no journal given".into()))?;
    let missing: Vec<usize> = (0..header.games)
        .filter(|i| !games.contains_key(i))
        .collect();
    if !missing.is_empty() && header.sprt.is_none() {
        eprintln!(
            "warning: {} of {} games are missing (first: game {})",
            missing.len(),
            header.games,
            missing[0] + 1
        );
    }
    let list: Vec<GameRecord> = games.into_values().collect();
    if let Some(p) = pgnout {
        let text: String = list.iter().map(|g| g.pgn.as_str()).collect();
        std::fs::write(p, text).map_err(|e| io(p, e))?;
    }
    let summary = summarise(&header, &list);
    if let Some(p) = jsonout {
        write_summary(p, &summary)?;
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(line: &str) -> Config {
        let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        Config::parse(&words, true).unwrap()
    }

    #[test]
    fn schedules_pair_openings_and_swap_seats() {
        let c = config("-engine cmd=a -engine cmd=b -each depth=1 -rounds 3 -games 2 -repeat");
        let s = schedule(&c);
        assert_eq!(s.len(), 6);
        for p in s.chunks(2) {
            assert_eq!(p[0].opening, p[1].opening);
            assert_eq!(p[0].pair, p[1].pair);
            assert_eq!(p[0].seats, [p[1].seats[1], p[1].seats[0]]);
        }
        let c = config("-engine cmd=a -engine cmd=b -engine cmd=c -each depth=1 -rounds 2");
        let s = schedule(&c);
        assert_eq!(s.len(), 6, "three encounters twice");
        let g =
            config("-engine cmd=a -engine cmd=b -engine cmd=c -each depth=1 -tournament gauntlet");
        assert!(schedule(&g).iter().all(|j| j.seats.contains(&0)));
    }

    #[test]
    fn shards_partition_the_schedule_by_pairs() {
        let c = config("-engine cmd=a -engine cmd=b -each depth=1 -rounds 20 -games 2 -repeat");
        let s = schedule(&c);
        let mut seen = vec![0; s.len()];
        for i in 0..4 {
            for j in s.iter().filter(|j| in_shard(j, Some((i, 4)))) {
                seen[j.index] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 1));
    }

    /// The header of a two-game run of engines a and b in chess.
    fn two_engine_header() -> RunHeader {
        RunHeader {
            event: "e".into(),
            variant: "chess".into(),
            engines: vec!["a".into(), "b".into()],
            games: 2,
            sprt: None,
            shard: None,
        }
    }

    #[test]
    fn a_damaged_journal_is_refused_unless_only_its_last_line_is_cut() {
        let dir = std::env::temp_dir().join(format!("ndchess-journal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let header = two_engine_header();
        let head = serde_json::to_string(&JournalLine::Header(header.clone())).unwrap();
        let cut = dir.join("cut.journal");
        std::fs::write(&cut, format!("{head}\n{{\"game\":{{\"index\":0,")).unwrap();
        let (h, games) = read_journal(&cut).unwrap();
        assert_eq!((h, games.len()), (header, 0));
        let bad = dir.join("bad.journal");
        std::fs::write(&bad, format!("{head}\ngarbage\n{head}\n")).unwrap();
        assert!(matches!(read_journal(&bad), Err(RunError::Journal(_))));
        let none = dir.join("none.journal");
        std::fs::write(&none, "").unwrap();
        assert!(read_journal(&none).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Two games between a and b; `b_cpu_ms` is b's CPU per game while
    /// both think 10 s a game.
    fn timed_games(b_cpu_ms: f64) -> Vec<GameRecord> {
        (0..2)
            .map(|i| GameRecord {
                index: i,
                round: 0,
                pair: 0,
                opening: 0,
                engines: if i == 0 { vec![0, 1] } else { vec![1, 0] },
                points: vec![0.5, 0.5],
                result: "1/2-1/2".into(),
                termination: "normal".into(),
                reason: "draw by repetition".into(),
                moves: Vec::new(),
                final_position: String::new(),
                pgn: String::new(),
                wall_ms: 20_000.0,
                think_ms: vec![10_000.0, 10_000.0],
                cpu_ms: if i == 0 {
                    vec![9_800.0, b_cpu_ms]
                } else {
                    vec![b_cpu_ms, 9_800.0]
                },
            })
            .collect()
    }

    #[test]
    fn the_table_warns_when_an_engine_had_less_than_its_core() {
        let header = two_engine_header();
        // b had 4.8 s of CPU in 10 s of thinking per game: 0.48 of a core.
        let s = summarise(&header, &timed_games(4_800.0));
        let b = s.standings.iter().find(|st| st.name == "b").unwrap();
        assert_eq!((b.think_s, b.cpu_s), (20.0, 9.6));
        let text = table(&s);
        assert!(text.contains("CPU while thinking (CPU s per s of think time): "));
        assert!(text.contains("a 0.98") && text.contains("b 0.48"), "{text}");
        assert!(
            text.contains("Warning: b had less than 85 % of a core"),
            "{text}"
        );
        assert!(!text.contains("Warning: a"), "{text}");
        // Both with their cores: the shares, no warning.
        let text = table(&summarise(&header, &timed_games(9_900.0)));
        assert!(
            text.contains("b 0.99") && !text.contains("Warning"),
            "{text}"
        );
        // Too little thinking to judge: no line at all.
        let mut short = timed_games(100.0);
        for g in &mut short {
            g.think_ms = vec![1_000.0, 1_000.0];
        }
        assert!(!table(&summarise(&header, &short)).contains("CPU"));
    }

    #[test]
    fn pgn_dates_are_civil_dates() {
        let d = pgn_date();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"));
    }
}
