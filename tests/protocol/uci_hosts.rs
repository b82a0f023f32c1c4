//! The host configurations in engines/ against the real binary: the
//! cutechess-cli and fastchess command lines set only options the engine
//! has, with values it accepts (and run for real when the tool is
//! installed); the Chess960 opening file lists every start; the PolyGlot
//! configuration serves an XBoard dialogue when `polyglot` is installed.
//! (The python-chess snippet is run by tests/python_chess.rs.)

use crate::uci_support;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use ndchess::board::variant::Variant;
use ndchess::rules::position::Position;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position as _};
use uci_support::{EngineProcess, binary, find_tool};

const SCRIPTS: &[&str] = &[
    "cutechess-chess.sh",
    "cutechess-fischerandom.sh",
    "fastchess-chess.sh",
    "fastchess-fischerandom.sh",
];

fn engines_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("engines")
}

fn read(name: &str) -> String {
    let p = engines_dir().join(name);
    fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The `option.NAME=VALUE` settings of a command line (a name with
/// spaces is quoted as a whole word, `"option.Move Overhead=30"`).
fn script_options(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("option.") {
        rest = &rest[i + "option.".len()..];
        let end = rest.find(['"', '\n', '\\']).unwrap_or(rest.len());
        let item = &rest[..end];
        let (name, value) = item
            .split_once('=')
            .unwrap_or_else(|| panic!("option without value: {item}"));
        // An unquoted option ends at the first space.
        let value = value.split_whitespace().next().unwrap_or("").to_string();
        let name = if name.contains(' ') && !text.contains(&format!("\"option.{name}=")) {
            panic!("an option name with spaces must be quoted: {item}")
        } else {
            name.to_string()
        };
        out.push((name, value));
    }
    out
}

fn skip(what: &str, why: &str) {
    eprintln!("\n!!!!! SKIPPED {what}: {why} !!!!!\n");
}

#[test]
fn tournament_scripts_set_only_options_the_engine_accepts() {
    for script in SCRIPTS {
        let text = read(script);
        assert!(text.contains("proto=uci"), "{script}: proto=uci");
        let options = script_options(&text);
        assert!(options.len() >= 3, "{script}: {options:?}");
        let variant = text
            .split_whitespace()
            .skip_while(|w| *w != "-variant")
            .nth(1);
        let mut e = EngineProcess::start(&[]);
        e.send("uci");
        let lines: Vec<String> = e.expect("uciok").into_iter().map(|x| x.1).collect();
        for (name, value) in &options {
            assert!(
                lines
                    .iter()
                    .any(|l| l.starts_with(&format!("option name {name} type "))),
                "{script}: the engine has no option '{name}'"
            );
            e.send(&format!("setoption name {name} value {value}"));
        }
        match variant {
            None | Some("standard") => {}
            Some("fischerandom") => {
                // What both tools send for fischerandom.
                e.send("setoption name UCI_Chess960 value true");
            }
            Some(v) => panic!("{script}: variant {v} is neither standard nor fischerandom"),
        }
        let out = e.sync();
        assert!(
            !out.iter().any(|l| l.contains("error")),
            "{script}: {out:?}"
        );
        if let Some(i) = text.find("-openings file=\"$HERE/") {
            let rest = &text[i + "-openings file=\"$HERE/".len()..];
            let file = &rest[..rest.find('"').expect("quoted file name")];
            assert!(
                engines_dir().join(file).is_file(),
                "{script}: {file} missing"
            );
        }
        assert!(e.quit().success());
    }
}

#[test]
fn chess960_epd_lists_every_start_in_scharnagl_order() {
    let text = read("chess960.epd");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 960);
    // Published values of the Scharnagl numbering (Reinhard Scharnagl's
    // scheme, as tabulated for Chess960): 0 = BBQNNRKR, 518 = the classical
    // array, 959 = RKRNNQBB.
    assert!(lines[0].starts_with("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w "));
    assert!(lines[518].starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w "));
    assert!(lines[959].starts_with("rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w "));
    for (i, l) in lines.iter().enumerate() {
        let v = Variant::from_spec(&format!("chess960:sp={i}")).expect("valid number");
        let want: Vec<String> = Position::start(&v)
            .to_text()
            .split(' ')
            .take(4)
            .map(str::to_string)
            .collect();
        assert_eq!(*l, want.join(" "), "line {}", i + 1);
        // An independent reader accepts it as a Chess960 position with the
        // same moves (castling is legal at once in some arrays, e.g. f1g1
        // in number 3, BQNNRKRB).
        let fen = format!("{l} 0 1");
        let pos: Chess = Fen::from_ascii(fen.as_bytes())
            .unwrap_or_else(|e| panic!("shakmaty reads line {}: {e}", i + 1))
            .into_position(CastlingMode::Chess960)
            .unwrap_or_else(|e| panic!("shakmaty sets up line {}: {e}", i + 1));
        assert_eq!(
            pos.legal_moves().len(),
            Position::start(&v).legal_moves().len(),
            "line {}",
            i + 1
        );
    }
}

#[test]
fn tournament_scripts_run_when_the_tools_are_installed() {
    for (tool, scripts, extra) in [
        (
            "cutechess-cli",
            &SCRIPTS[..2],
            &["-each", "tc=2+0.05", "-games", "2"][..],
        ),
        ("fastchess", &SCRIPTS[2..], &["-each", "tc=2+0.05"][..]),
    ] {
        let Some(path) = find_tool(tool) else {
            skip(
                tool,
                "not installed (the command lines are still checked above)",
            );
            continue;
        };
        for script in scripts {
            let dir = std::env::temp_dir().join(format!("ndchess-{tool}-{}", std::process::id()));
            fs::create_dir_all(&dir).expect("temp dir");
            let out = Command::new("sh")
                .arg(engines_dir().join(script))
                .args(extra)
                .env("NDCHESS", binary())
                .env(
                    "PATH",
                    format!(
                        "{}:{}",
                        path.parent().expect("a directory").display(),
                        std::env::var("PATH").unwrap_or_default()
                    ),
                )
                .current_dir(&dir)
                .output()
                .unwrap_or_else(|e| panic!("{script}: {e}"));
            let stdout = String::from_utf8_lossy(&out.stdout);
            eprintln!("{script}:\n{stdout}");
            assert!(out.status.success(), "{script}: {}", out.status);
            assert!(
                !stdout.to_lowercase().contains("illegal") && !stdout.contains("disconnect"),
                "{script}: {stdout}"
            );
            let _ = fs::remove_dir_all(&dir);
        }
    }
}

/// Reads lines until one starts with `prefix`; returns it.
fn until(p: &mut EngineProcess, prefix: &str) -> String {
    p.read_until(prefix, |l| l.starts_with(prefix))
        .pop()
        .expect("read_until returns the match")
        .1
}

fn play(pos: &mut Chess, text: &str) {
    let m = UciMove::from_ascii(text.as_bytes())
        .unwrap_or_else(|e| panic!("'{text}': {e}"))
        .to_move(pos)
        .unwrap_or_else(|e| panic!("'{text}' illegal: {e}"));
    pos.play_unchecked(m);
}

#[test]
fn polyglot_ini_serves_an_xboard_dialogue() {
    let Some(polyglot) = find_tool("polyglot") else {
        skip(
            "polyglot.ini",
            "polyglot is not installed (Debian package `polyglot`)",
        );
        return;
    };
    let bin_dir = Path::new(binary())
        .parent()
        .expect("binary has a directory");
    let mut c = Command::new(polyglot);
    c.arg("polyglot.ini").current_dir(engines_dir()).env(
        "PATH",
        format!(
            "{}:{}",
            bin_dir.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    );
    let mut p = EngineProcess::spawn(c);
    p.send("xboard");
    p.send("protover 2");
    let lines: Vec<String> = p
        .read_until("feature done=1", |l| l.contains("done=1"))
        .into_iter()
        .map(|x| x.1)
        .collect();
    assert!(
        lines.iter().any(|l| l.contains("myname=\"ndchess\"")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("variants=") && l.contains("fischerandom")),
        "{lines:?}"
    );
    p.send("new");
    p.send("st 1");
    p.send("go");
    let mut pos = Chess::default();
    let m1 = until(&mut p, "move ");
    play(&mut pos, m1.trim_start_matches("move ").trim());
    let reply = UciMove::from_move(pos.legal_moves()[0], CastlingMode::Standard).to_string();
    play(&mut pos, &reply);
    p.send(&format!("usermove {reply}"));
    let m2 = until(&mut p, "move ");
    play(&mut pos, m2.trim_start_matches("move ").trim());
    eprintln!("polyglot: {m1}, usermove {reply}, {m2}");
    assert!(p.quit().success());
}
