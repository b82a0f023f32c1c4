//! The arbiter's command line, in the style of cutechess-cli and fastchess
//! (`-engine cmd=… name=… proto=uci`, `-each tc=10+0.1`, `-rounds 20
//! -games 2 -repeat`, …), read into a [`Config`].
//!
//! An option is a word starting with `-`; its arguments are the words up
//! to the next option (a `key=value` word never starts an option, so
//! `score=-5` is an argument).

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::board::registry;
use crate::game::adjudication::{DrawRule, ResignRule};
use crate::game::clock::TimeControl;

use super::engine::{EngineSpec, Protocol};
use super::openings::{FileFormat, OpeningSource, Order};
use super::stats::Sprt;

/// How the engines meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every engine plays every other.
    RoundRobin,
    /// The first engine plays every other.
    Gauntlet,
}

/// A whole run.
#[derive(Clone, Debug)]
pub struct Config {
    /// The engines.
    pub engines: Vec<EngineSpec>,
    /// The variant spec.
    pub variant: String,
    /// Pairings.
    pub format: Format,
    /// Rounds (every encounter once per round).
    pub rounds: usize,
    /// Games per encounter per round.
    pub games: usize,
    /// Play each opening twice with the seats swapped.
    pub repeat: bool,
    /// Games at once.
    pub concurrency: usize,
    /// Openings.
    pub openings: OpeningSource,
    /// Their order.
    pub order: Order,
    /// First opening to use (0-based).
    pub opening_start: usize,
    /// PGN output.
    pub pgnout: Option<PathBuf>,
    /// JSON summary.
    pub jsonout: Option<PathBuf>,
    /// The journal of finished games (for `-recover` and `merge`).
    pub journal: Option<PathBuf>,
    /// Resume from the journal.
    pub recover: bool,
    /// Draw adjudication.
    pub draw: Option<DrawRule>,
    /// Resign adjudication.
    pub resign: Option<ResignRule>,
    /// Draw after this many full moves.
    pub maxmoves: Option<usize>,
    /// Endgame tables for adjudication (`-tb DIR`).
    pub tablebases: Option<PathBuf>,
    /// Sequential test (two engines).
    pub sprt: Option<Sprt>,
    /// Print the ratings every this many games.
    pub rating_interval: usize,
    /// Pause between games.
    pub wait: Duration,
    /// Seed of random openings and orders.
    pub seed: u64,
    /// Play only shard `i` of `n` (0-based `i`).
    pub shard: Option<(usize, usize)>,
    /// `Event` tag.
    pub event: String,
    /// `Site` tag.
    pub site: String,
    /// No per-game lines on stderr.
    pub quiet: bool,
    /// Publish the games live to `ndchess serve` at this WebSocket URL
    /// (`-publish http://127.0.0.1:8080/`; docs/gui.md, "Watch").
    pub publish: Option<String>,
}

/// A command line that cannot be run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

fn err<T>(s: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError(s.into()))
}

fn num<T: std::str::FromStr>(opt: &str, v: &str) -> Result<T, ConfigError> {
    v.parse()
        .map_err(|_| ConfigError(format!("{opt}: '{v}' is not a valid number")))
}

fn secs(opt: &str, v: &str) -> Result<Duration, ConfigError> {
    let x: f64 = num(opt, v)?;
    if !x.is_finite() || !(0.0..=1e6).contains(&x) {
        return err(format!("{opt}: '{v}' is out of range"));
    }
    Ok(Duration::from_secs_f64(x))
}

/// Splits the words into options and their arguments.
fn group(args: &[String]) -> Result<Vec<(String, Vec<String>)>, ConfigError> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for a in args {
        let starts_option = a.starts_with('-')
            && !a.contains('=')
            && a.len() > 1
            && !a[1..].starts_with(|c: char| c.is_ascii_digit());
        if starts_option {
            out.push((a.trim_start_matches('-').to_string(), Vec::new()));
        } else {
            match out.last_mut() {
                Some((_, v)) => v.push(a.clone()),
                None => return err(format!("'{a}': expected an option such as -engine")),
            }
        }
    }
    Ok(out)
}

fn key_values(opt: &str, words: &[String]) -> Result<Vec<(String, String)>, ConfigError> {
    words
        .iter()
        .map(|w| match w.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => err(format!("-{opt}: '{w}' is not key=value")),
        })
        .collect()
}

/// Applies one engine setting.
fn engine_key(spec: &mut EngineSpec, k: &str, v: &str) -> Result<(), ConfigError> {
    match k {
        "cmd" => {
            // `cmd="prog arg"`: the program and its arguments.
            let mut words = v.split_whitespace();
            spec.cmd = words.next().unwrap_or("").to_string();
            spec.args.extend(words.map(str::to_string));
        }
        "name" => spec.name = v.to_string(),
        "dir" => spec.dir = Some(PathBuf::from(v)),
        "arg" => spec.args.push(v.to_string()),
        "proto" => {
            spec.proto = match v {
                "uci" => Protocol::Uci,
                "xboard" | "cecp" => Protocol::Xboard,
                _ => return err(format!("proto={v}: expected uci or xboard")),
            }
        }
        "tc" => {
            spec.tc = Some(match v {
                "inf" | "infinite" => return err("tc=inf: give a clock, st=, depth= or nodes="),
                _ => TimeControl::parse(v).map_err(ConfigError)?,
            })
        }
        "st" => spec.tc = Some(TimeControl::PerMove(secs("st", v)?)),
        "depth" => spec.depth = Some(num("depth", v)?),
        "nodes" => spec.nodes = Some(num("nodes", v)?),
        "timemargin" => spec.timemargin = Duration::from_millis(num("timemargin", v)?),
        "timeout" => spec.init_timeout = secs("timeout", v)?,
        "movetimeout" => spec.move_timeout = secs("movetimeout", v)?,
        "debug" => spec.debug_log = Some(PathBuf::from(v)),
        "restart" => {}
        _ if k.starts_with("option.") => {
            let name = &k["option.".len()..];
            if name.is_empty() {
                return err("option.: no option name");
            }
            spec.options.retain(|(n, _)| n != name);
            spec.options.push((name.to_string(), v.to_string()));
        }
        _ => return err(format!("unknown engine setting '{k}'")),
    }
    Ok(())
}

/// cutechess-cli's variant names beside the engine's own specs.
fn variant_spec(v: &str) -> Result<String, ConfigError> {
    let spec = match v {
        "standard" => "chess",
        "fischerandom" | "frc" => "chess960",
        other => other,
    };
    registry::build(spec).map_err(|e| ConfigError(format!("-variant {v}: {e}")))?;
    Ok(spec.to_string())
}

impl Config {
    /// Reads the words after `ndchess match` (`tournament = false`) or
    /// `ndchess tournament`.
    pub fn parse(args: &[String], tournament: bool) -> Result<Config, ConfigError> {
        let mut engines: Vec<Vec<(String, String)>> = Vec::new();
        let mut each: Vec<(String, String)> = Vec::new();
        let mut c = Config {
            engines: Vec::new(),
            variant: "chess".into(),
            format: if tournament {
                Format::RoundRobin
            } else {
                Format::Gauntlet
            },
            rounds: 1,
            games: 1,
            repeat: false,
            concurrency: 1,
            openings: OpeningSource::Start,
            order: Order::Sequential,
            opening_start: 0,
            pgnout: None,
            jsonout: None,
            journal: None,
            recover: false,
            draw: None,
            resign: None,
            maxmoves: None,
            tablebases: None,
            sprt: None,
            rating_interval: 10,
            wait: Duration::ZERO,
            seed: 0,
            shard: None,
            event: "ndchess match".into(),
            site: "?".into(),
            quiet: false,
            publish: None,
        };
        for (opt, words) in group(args)? {
            let one = || -> Result<&str, ConfigError> {
                match words.as_slice() {
                    [w] => Ok(w.as_str()),
                    _ => err(format!("-{opt} takes one value")),
                }
            };
            match opt.as_str() {
                "engine" => engines.push(key_values(&opt, &words)?),
                "each" => each.extend(key_values(&opt, &words)?),
                "variant" => c.variant = variant_spec(one()?)?,
                "tournament" => {
                    c.format = match one()? {
                        "round-robin" | "roundrobin" => Format::RoundRobin,
                        "gauntlet" => Format::Gauntlet,
                        other => {
                            return err(format!(
                                "-tournament {other}: expected round-robin or gauntlet"
                            ));
                        }
                    }
                }
                "rounds" => c.rounds = num(&opt, one()?)?,
                "games" => c.games = num(&opt, one()?)?,
                "repeat" => {
                    c.repeat = true;
                    if let [n] = words.as_slice()
                        && num::<usize>(&opt, n)? != 2
                    {
                        return err("-repeat: only 2 (each opening with the seats swapped)");
                    }
                }
                "concurrency" => c.concurrency = num(&opt, one()?)?,
                "openings" => {
                    let kv = key_values(&opt, &words)?;
                    let get = |k: &str| kv.iter().find(|(x, _)| x == k).map(|(_, v)| v.as_str());
                    for (k, _) in &kv {
                        if !["file", "format", "order", "plies", "start", "policy"]
                            .contains(&k.as_str())
                        {
                            return err(format!("-openings: unknown key '{k}'"));
                        }
                    }
                    let plies = get("plies").map(|p| num::<usize>("plies", p)).transpose()?;
                    c.order = match get("order") {
                        None | Some("sequential") => Order::Sequential,
                        Some("random") => Order::Random,
                        Some(o) => {
                            return err(format!(
                                "-openings order={o}: expected sequential or random"
                            ));
                        }
                    };
                    if let Some(s) = get("start") {
                        c.opening_start = num::<usize>("start", s)?.saturating_sub(1);
                    }
                    c.openings = match (get("file"), get("format")) {
                        (None, Some("random")) => OpeningSource::Random {
                            plies: plies.unwrap_or(8),
                        },
                        (None, _) => {
                            return err("-openings: give file=… (or format=random plies=N)");
                        }
                        (Some(f), fmt) => OpeningSource::File {
                            path: PathBuf::from(f),
                            format: match fmt {
                                None | Some("epd") | Some("fen") | Some("text") => FileFormat::Epd,
                                Some("pgn") => FileFormat::Pgn,
                                Some(o) => {
                                    return err(format!(
                                        "-openings format={o}: expected epd, pgn or text"
                                    ));
                                }
                            },
                            plies,
                        },
                    };
                }
                "pgnout" => {
                    c.pgnout = Some(PathBuf::from(
                        words
                            .first()
                            .ok_or_else(|| ConfigError("-pgnout needs a file".into()))?,
                    ))
                }
                "json" | "jsonout" => c.jsonout = Some(PathBuf::from(one()?)),
                "journal" => c.journal = Some(PathBuf::from(one()?)),
                "publish" => c.publish = Some(crate::arbiter::publish::publish_url(one()?)?),
                "recover" => c.recover = true,
                "draw" => {
                    let kv = key_values(&opt, &words)?;
                    let mut r = DrawRule {
                        movenumber: 0,
                        movecount: 0,
                        score: 0,
                    };
                    for (k, v) in kv {
                        match k.as_str() {
                            "movenumber" => r.movenumber = num(&k, &v)?,
                            "movecount" => r.movecount = num(&k, &v)?,
                            "score" => r.score = num(&k, &v)?,
                            _ => return err(format!("-draw: unknown key '{k}'")),
                        }
                    }
                    if r.movecount == 0 {
                        return err("-draw: movecount must be at least 1");
                    }
                    c.draw = Some(r);
                }
                "resign" => {
                    let kv = key_values(&opt, &words)?;
                    let mut r = ResignRule {
                        movecount: 0,
                        score: 0,
                    };
                    for (k, v) in kv {
                        match k.as_str() {
                            "movecount" => r.movecount = num(&k, &v)?,
                            "score" => r.score = num(&k, &v)?,
                            "twosided" => {}
                            _ => return err(format!("-resign: unknown key '{k}'")),
                        }
                    }
                    if r.movecount == 0 || r.score <= 0 {
                        return err("-resign: movecount ≥ 1 and score > 0 needed");
                    }
                    c.resign = Some(r);
                }
                "maxmoves" => c.maxmoves = Some(num(&opt, one()?)?),
                "tb" => c.tablebases = Some(PathBuf::from(one()?)),
                "sprt" => {
                    let kv = key_values(&opt, &words)?;
                    let mut s = Sprt {
                        elo0: 0.0,
                        elo1: 5.0,
                        alpha: 0.05,
                        beta: 0.05,
                    };
                    for (k, v) in kv {
                        match k.as_str() {
                            "elo0" => s.elo0 = num(&k, &v)?,
                            "elo1" => s.elo1 = num(&k, &v)?,
                            "alpha" => s.alpha = num(&k, &v)?,
                            "beta" => s.beta = num(&k, &v)?,
                            "model" => {}
                            _ => return err(format!("-sprt: unknown key '{k}'")),
                        }
                    }
                    let p = |x: f64| x > 0.0 && x < 0.5;
                    if !(p(s.alpha) && p(s.beta)) || s.elo1 <= s.elo0 {
                        return err("-sprt: need 0 < alpha, beta < 0.5 and elo0 < elo1");
                    }
                    c.sprt = Some(s);
                }
                "ratinginterval" => c.rating_interval = num(&opt, one()?)?,
                "wait" => c.wait = Duration::from_millis(num(&opt, one()?)?),
                "srand" | "seed" => c.seed = num(&opt, one()?)?,
                "shard" => {
                    let v = one()?;
                    let (i, n) = v
                        .split_once('/')
                        .ok_or_else(|| ConfigError(format!("-shard {v}: expected i/N")))?;
                    let (i, n): (usize, usize) = (num(&opt, i)?, num(&opt, n)?);
                    if n == 0 || i >= n {
                        return err(format!("-shard {v}: need 0 <= i < N"));
                    }
                    c.shard = Some((i, n));
                }
                "event" => c.event = words.join(" "),
                "site" => c.site = words.join(" "),
                "quiet" => c.quiet = true,
                "recover-engines" => {}
                other => return err(format!("unknown option -{other}")),
            }
        }
        if engines.len() < 2 {
            return err("give at least two -engine options");
        }
        if !tournament && engines.len() != 2 {
            return err("`match` takes exactly two engines (use `tournament` for more)");
        }
        for (i, kv) in engines.iter().enumerate() {
            let mut spec = EngineSpec::new(format!("engine{}", i + 1), "", Protocol::Uci);
            for (k, v) in each.iter().chain(kv.iter()) {
                engine_key(&mut spec, k, v)?;
            }
            if spec.cmd.is_empty() {
                return err(format!("engine {}: no cmd=", i + 1));
            }
            if spec.name == format!("engine{}", i + 1) {
                spec.name = std::path::Path::new(&spec.cmd)
                    .file_name()
                    .map(|s| s.to_string_lossy().to_string())
                    .unwrap_or_else(|| spec.cmd.clone());
            }
            c.engines.push(spec);
        }
        // Two engines of one name would mix in the tables: number them.
        for i in 0..c.engines.len() {
            let dup = c.engines[..i].iter().any(|e| e.name == c.engines[i].name);
            if dup {
                c.engines[i].name = format!("{} ({})", c.engines[i].name, i + 1);
            }
        }
        let tc = c.engines[0].tc;
        if c.engines.iter().any(|e| e.tc != tc) {
            return err("every engine must have the same time control (give it with -each)");
        }
        if c.engines
            .iter()
            .any(|e| e.tc.is_none() && e.depth.is_none() && e.nodes.is_none())
        {
            return err("every engine needs a limit: tc=, st=, depth= or nodes=");
        }
        if c.rounds == 0 || c.games == 0 || c.concurrency == 0 {
            return err("-rounds, -games and -concurrency must be at least 1");
        }
        if c.concurrency > 256 || c.rounds.saturating_mul(c.games) > 10_000_000 {
            return err("-concurrency at most 256, at most 10,000,000 games");
        }
        if c.repeat && c.games % 2 == 1 && c.games > 1 {
            return err("-repeat with -games: give an even number of games");
        }
        if c.sprt.is_some() && c.engines.len() != 2 {
            return err("-sprt needs exactly two engines");
        }
        if c.journal.is_none() {
            c.journal = c
                .pgnout
                .as_ref()
                .or(c.jsonout.as_ref())
                .map(|p| PathBuf::from(format!("{}.journal", p.display())));
        }
        if c.recover && c.journal.is_none() {
            return err("-recover needs a journal (-journal, -pgnout or -json)");
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn a_cutechess_command_line_reads() {
        let c = Config::parse(
            &words(
                "-engine cmd=ndchess name=a option.Hash=16 -engine cmd=/usr/games/stockfish \
                 -each proto=uci tc=40/60+0.6 -variant fischerandom -rounds 20 -games 2 -repeat \
                 -concurrency 2 -draw movenumber=40 movecount=8 score=10 -resign movecount=3 score=600 \
                 -sprt elo0=0 elo1=5 alpha=0.05 beta=0.05 -pgnout out.pgn -shard 1/4",
            ),
            false,
        )
        .unwrap();
        assert_eq!(c.engines.len(), 2);
        assert_eq!(c.engines[0].name, "a");
        assert_eq!(c.engines[1].name, "stockfish");
        assert_eq!(
            c.engines[0].options,
            [("Hash".to_string(), "16".to_string())]
        );
        assert_eq!(c.variant, "chess960");
        assert!(c.repeat && c.games == 2 && c.rounds == 20);
        assert_eq!(c.shard, Some((1, 4)));
        assert_eq!(
            c.journal.as_deref(),
            Some(std::path::Path::new("out.pgn.journal"))
        );
        assert_eq!(c.resign.unwrap().score, 600);
    }

    #[test]
    fn bad_command_lines_say_what_is_wrong() {
        for (line, needle) in [
            ("-engine cmd=a -engine cmd=b", "limit"),
            ("-engine cmd=a tc=1+0", "two"),
            ("-engine cmd=a -engine cmd=b -each tc=x", "time control"),
            (
                "-engine cmd=a -engine cmd=b -each st=1 -variant nope",
                "nope",
            ),
            (
                "-engine cmd=a -engine cmd=b -each st=1 -bogus",
                "unknown option",
            ),
            ("-engine cmd=a -engine cmd=b -each st=1 -shard 4/4", "shard"),
            (
                "-engine cmd=a -engine cmd=b -each st=1 proto=telnet",
                "proto",
            ),
            (
                "-engine cmd=a -engine cmd=b -each st=1 -sprt elo0=5 elo1=0",
                "sprt",
            ),
            ("stray", "expected an option"),
        ] {
            let e = Config::parse(&words(line), false).unwrap_err();
            assert!(e.0.contains(needle), "{line}: {e}");
        }
    }
}
