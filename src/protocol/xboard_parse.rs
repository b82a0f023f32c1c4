//! Reading XBoard (CECP v2) command lines into [`Command`] values.
//!
//! Parsing is separate from execution so that a malformed line is refused
//! before anything changes: every error here becomes one
//! `Error (…): <line>` answer and leaves the engine as it was.

use std::fmt;
use std::time::Duration;

use super::uci::quote;

/// A time control set by `level MPS BASE INC`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// Moves per session (0: the whole game).
    pub moves: u32,
    /// Time per session.
    pub base: Duration,
    /// Increment per move.
    pub inc: Duration,
}

/// Which root moves `exclude` / `include` name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveSet {
    /// `all`.
    All,
    /// One move, as written.
    One(String),
}

/// An XBoard command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `xboard`.
    Xboard,
    /// `protover N`.
    Protover(u32),
    /// `accepted FEATURE`.
    Accepted(String),
    /// `rejected FEATURE`.
    Rejected(String),
    /// `new`.
    New,
    /// `variant NAME`.
    Variant(String),
    /// `quit`.
    Quit,
    /// `random` (GNU Chess's randomness toggle; accepted, no effect).
    Random,
    /// `force`.
    Force,
    /// `go`.
    Go,
    /// `playother`.
    PlayOther,
    /// `white` (protocol 1).
    White,
    /// `black` (protocol 1).
    Black,
    /// `level MPS BASE INC`.
    Level(Level),
    /// `st SECONDS`.
    St(Duration),
    /// `sd DEPTH`.
    Sd(u32),
    /// `nps NODES_PER_SECOND`.
    Nps(u64),
    /// `time CENTISECONDS` (the engine's clock; negative read as 0).
    Time(Duration),
    /// `otim CENTISECONDS` (the opponent's clock).
    Otim(Duration),
    /// `usermove MOVE`, or a bare move line.
    UserMove(String),
    /// `?`: move now.
    MoveNow,
    /// `ping N`.
    Ping(i64),
    /// `draw`: the opponent offers a draw.
    Draw,
    /// `result RESULT {COMMENT}`.
    Result(String),
    /// `setboard FEN`.
    SetBoard(String),
    /// `edit` (not used with `setboard=1`; refused).
    Edit,
    /// `hint`.
    Hint,
    /// `bk`.
    Book,
    /// `undo`.
    Undo,
    /// `remove`.
    Remove,
    /// `hard`: ponder on.
    Hard,
    /// `easy`: ponder off.
    Easy,
    /// `post`.
    Post,
    /// `nopost`.
    NoPost,
    /// `analyze`.
    Analyze,
    /// `exit`: leave analysis.
    Exit,
    /// `.`: analysis status.
    Status,
    /// `name`, `rating`, `ics`, `computer`, `egtpath`: information the
    /// engine has no use for.
    Info,
    /// `pause`.
    Pause,
    /// `resume`.
    Resume,
    /// `memory MB`.
    Memory(u64),
    /// `cores N`.
    Cores(u64),
    /// `option NAME[=VALUE]`.
    SetOption {
        /// The option name.
        name: String,
        /// The value, if any.
        value: Option<String>,
    },
    /// `exclude MOVE|all`.
    Exclude(MoveSet),
    /// `include MOVE|all`.
    Include(MoveSet),
}

/// Why a line is not a command; `kind` is the CECP error type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// The parenthesised error type of `Error (TYPE): COMMAND`.
    pub kind: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)
    }
}

impl std::error::Error for ParseError {}

fn err(kind: impl Into<String>) -> ParseError {
    ParseError { kind: kind.into() }
}

/// Whether `word` looks like a move in coordinate notation (a bare move
/// line, as protocol 1 sends it): a letter and digits twice, optionally a
/// promotion letter, or castling written with letter O or digit 0.
pub fn looks_like_move(word: &str) -> bool {
    if matches!(word, "O-O" | "O-O-O" | "0-0" | "0-0-0" | "@@@@") {
        return true;
    }
    let b = word.as_bytes();
    let mut i = 0;
    for _ in 0..2 {
        if i >= b.len() || !b[i].is_ascii_lowercase() {
            return false;
        }
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start || i - start > 2 {
            return false;
        }
    }
    b.len() == i || (b.len() == i + 1 && b[i].is_ascii_alphabetic())
}

fn one_arg<'a>(cmd: &str, rest: &[&'a str]) -> Result<&'a str, ParseError> {
    match rest {
        [a] => Ok(a),
        [] => Err(err(format!("{cmd} needs an argument"))),
        _ => Err(err("too many parameters")),
    }
}

fn no_args(rest: &[&str], c: Command) -> Result<Option<Command>, ParseError> {
    if rest.is_empty() {
        Ok(Some(c))
    } else {
        Err(err("too many parameters"))
    }
}

fn integer<T: std::str::FromStr>(cmd: &str, text: &str) -> Result<T, ParseError> {
    text.parse::<T>().map_err(|_| {
        err(format!(
            "{cmd} needs a number in range, got '{}'",
            quote(text)
        ))
    })
}

/// Most seconds `st` and an increment may give: 10^9, because with `nps`
/// a client such as python-chess writes a node limit as `nps 1` and
/// `st NODES`.
const MAX_SECONDS: f64 = 1e9;

/// Seconds written as a decimal number (`12`, `0.5`), at most
/// [`MAX_SECONDS`].
fn seconds(cmd: &str, text: &str) -> Result<Duration, ParseError> {
    let s: f64 = text
        .parse()
        .map_err(|_| err(format!("{cmd} needs seconds, got '{}'", quote(text))))?;
    if !s.is_finite() || !(0.0..=MAX_SECONDS).contains(&s) {
        return Err(err(format!(
            "{cmd} needs seconds from 0 to 1000000000, got '{}'",
            quote(text)
        )));
    }
    Ok(Duration::from_secs_f64(s))
}

/// A `level` base: minutes, or `minutes:seconds`; characters after the
/// number are ignored, as the protocol asks (`25+5` reads as 25 minutes).
fn level_base(text: &str) -> Result<Duration, ParseError> {
    let bad = || {
        err(format!(
            "level needs a base like 5 or 0:30, got '{}'",
            quote(text)
        ))
    };
    let (min_text, sec_text) = match text.split_once(':') {
        Some((m, s)) => (m, Some(s)),
        None => (text, None),
    };
    let leading = |t: &str| -> String {
        t.chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect()
    };
    let min_str = leading(min_text);
    if min_str.is_empty() {
        return Err(bad());
    }
    let minutes: f64 = min_str.parse().map_err(|_| bad())?;
    let secs = match sec_text {
        Some(s) => {
            let s = leading(s);
            if s.is_empty() {
                return Err(bad());
            }
            s.parse::<f64>().map_err(|_| bad())?
        }
        None => 0.0,
    };
    let total = minutes * 60.0 + secs;
    if !total.is_finite() || total > 7.0 * 86_400.0 {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(total))
}

/// A clock in centiseconds; negative values (after a flag fall) read as 0.
fn centiseconds(cmd: &str, text: &str) -> Result<Duration, ParseError> {
    let cs: i64 = integer(cmd, text)?;
    Ok(Duration::from_millis(cs.clamp(0, 1 << 40) as u64 * 10))
}

/// Parses one line. `Ok(None)` for an empty line.
pub fn parse(line: &str) -> Result<Option<Command>, ParseError> {
    let trimmed = line.trim();
    let mut words = trimmed.split_whitespace();
    let Some(first) = words.next() else {
        return Ok(None);
    };
    let rest: Vec<&str> = words.collect();
    let tail = trimmed[first.len()..].trim();
    let c = match first {
        "xboard" => return no_args(&rest, Command::Xboard),
        "protover" => Command::Protover(integer("protover", one_arg("protover", &rest)?)?),
        "accepted" => Command::Accepted(one_arg("accepted", &rest)?.to_string()),
        "rejected" => Command::Rejected(one_arg("rejected", &rest)?.to_string()),
        "new" => return no_args(&rest, Command::New),
        "variant" => Command::Variant(one_arg("variant", &rest)?.to_string()),
        "quit" => return no_args(&rest, Command::Quit),
        "random" => return no_args(&rest, Command::Random),
        "force" => return no_args(&rest, Command::Force),
        "go" => return no_args(&rest, Command::Go),
        "playother" => return no_args(&rest, Command::PlayOther),
        "white" => return no_args(&rest, Command::White),
        "black" => return no_args(&rest, Command::Black),
        "level" => match rest.as_slice() {
            [mps, base, inc] => Command::Level(Level {
                moves: integer("level", mps)?,
                base: level_base(base)?,
                inc: seconds("level", inc)?,
            }),
            _ => return Err(err("level needs MPS BASE INC")),
        },
        "st" => {
            let t = seconds("st", one_arg("st", &rest)?)?;
            if t.is_zero() {
                return Err(err("st needs a positive number of seconds"));
            }
            Command::St(t)
        }
        "sd" => {
            let d: u32 = integer("sd", one_arg("sd", &rest)?)?;
            if d == 0 || d > 1000 {
                return Err(err("sd needs a depth from 1 to 1000"));
            }
            Command::Sd(d)
        }
        "nps" => Command::Nps(integer("nps", one_arg("nps", &rest)?)?),
        "time" => Command::Time(centiseconds("time", one_arg("time", &rest)?)?),
        "otim" => Command::Otim(centiseconds("otim", one_arg("otim", &rest)?)?),
        "usermove" => Command::UserMove(one_arg("usermove", &rest)?.to_string()),
        "?" => return no_args(&rest, Command::MoveNow),
        "ping" => Command::Ping(integer("ping", one_arg("ping", &rest)?)?),
        "draw" => return no_args(&rest, Command::Draw),
        "result" => {
            let Some(code) = rest.first() else {
                return Err(err("result needs a result code"));
            };
            if !matches!(*code, "1-0" | "0-1" | "1/2-1/2" | "*") {
                return Err(err(format!(
                    "result code must be 1-0, 0-1, 1/2-1/2 or *, got '{}'",
                    quote(code)
                )));
            }
            Command::Result(tail.to_string())
        }
        "setboard" => {
            if tail.is_empty() {
                return Err(err("setboard needs a position"));
            }
            Command::SetBoard(tail.to_string())
        }
        "edit" => return no_args(&rest, Command::Edit),
        "hint" => return no_args(&rest, Command::Hint),
        "bk" => return no_args(&rest, Command::Book),
        "undo" => return no_args(&rest, Command::Undo),
        "remove" => return no_args(&rest, Command::Remove),
        "hard" => return no_args(&rest, Command::Hard),
        "easy" => return no_args(&rest, Command::Easy),
        "post" => return no_args(&rest, Command::Post),
        "nopost" => return no_args(&rest, Command::NoPost),
        "analyze" => return no_args(&rest, Command::Analyze),
        "exit" => return no_args(&rest, Command::Exit),
        "." => return no_args(&rest, Command::Status),
        "name" | "rating" | "ics" | "computer" | "egtpath" => Command::Info,
        "pause" => return no_args(&rest, Command::Pause),
        "resume" => return no_args(&rest, Command::Resume),
        "memory" => Command::Memory(integer("memory", one_arg("memory", &rest)?)?),
        "cores" => Command::Cores(integer("cores", one_arg("cores", &rest)?)?),
        "option" => {
            if tail.is_empty() {
                return Err(err("option needs NAME[=VALUE]"));
            }
            match tail.split_once('=') {
                Some((n, v)) => Command::SetOption {
                    name: n.trim().to_string(),
                    value: Some(v.trim().to_string()),
                },
                None => Command::SetOption {
                    name: tail.to_string(),
                    value: None,
                },
            }
        }
        "exclude" | "include" => {
            let a = one_arg(first, &rest)?;
            let set = if a == "all" {
                MoveSet::All
            } else {
                MoveSet::One(a.to_string())
            };
            if first == "exclude" {
                Command::Exclude(set)
            } else {
                Command::Include(set)
            }
        }
        m if rest.is_empty() && looks_like_move(m) => Command::UserMove(m.to_string()),
        _ => return Err(err("unknown command")),
    };
    Ok(Some(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_time_controls() {
        assert_eq!(
            parse("level 40 5 0"),
            Ok(Some(Command::Level(Level {
                moves: 40,
                base: Duration::from_secs(300),
                inc: Duration::ZERO
            })))
        );
        assert_eq!(
            parse("level 0 0:30 0.5"),
            Ok(Some(Command::Level(Level {
                moves: 0,
                base: Duration::from_secs(30),
                inc: Duration::from_millis(500)
            })))
        );
        // Characters after the base are ignored, as the protocol asks.
        assert_eq!(
            parse("level 40 25+5 0"),
            Ok(Some(Command::Level(Level {
                moves: 40,
                base: Duration::from_secs(1500),
                inc: Duration::ZERO
            })))
        );
        assert_eq!(parse("time -30"), Ok(Some(Command::Time(Duration::ZERO))));
        assert_eq!(
            parse("otim 1234"),
            Ok(Some(Command::Otim(Duration::from_millis(12_340))))
        );
        assert_eq!(parse("st 2"), Ok(Some(Command::St(Duration::from_secs(2)))));
    }

    #[test]
    fn parses_moves_and_text_commands() {
        assert_eq!(
            parse("usermove e7e8q"),
            Ok(Some(Command::UserMove("e7e8q".into())))
        );
        assert_eq!(parse("e2e4"), Ok(Some(Command::UserMove("e2e4".into()))));
        assert_eq!(
            parse("a12b13"),
            Ok(Some(Command::UserMove("a12b13".into())))
        );
        assert_eq!(parse("O-O-O"), Ok(Some(Command::UserMove("O-O-O".into()))));
        assert_eq!(
            parse("result 1-0 {White mates}"),
            Ok(Some(Command::Result("1-0 {White mates}".into())))
        );
        assert_eq!(
            parse("option Resign Threshold=700"),
            Ok(Some(Command::SetOption {
                name: "Resign Threshold".into(),
                value: Some("700".into())
            }))
        );
        assert_eq!(
            parse("option Clear Hash"),
            Ok(Some(Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            }))
        );
        assert_eq!(parse("ping -3"), Ok(Some(Command::Ping(-3))));
        assert_eq!(parse("   "), Ok(None));
    }

    #[test]
    fn refuses_malformed_lines() {
        for bad in [
            "level 40 5",
            "level x 5 0",
            "level 40 :30 0",
            "st 0",
            "st -1",
            "st nan",
            "sd 0",
            "time soon",
            "ping",
            "ping x",
            "result 2-0",
            "setboard",
            "protover",
            "memory -1",
            "new game",
            "usermove",
            "e2e4 e7e5",
            "e2",
            "frobnicate",
            "option",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
