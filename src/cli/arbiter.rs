//! `ndchess match`, `ndchess tournament` (and `tournament merge`) and
//! `ndchess pgn check`: the arbiter's front-end (docs/arbiter.md).

use std::path::PathBuf;

use clap::Args;

use ndchess::arbiter::config::Config;
use ndchess::arbiter::pgn;
use ndchess::arbiter::tournament;

use super::CommandError;

/// Arguments in the style of cutechess-cli, passed through as words.
#[derive(Args, Debug)]
pub struct ArbiterArgs {
    /// cutechess-cli-style options: `-engine cmd=… name=… proto=uci|xboard
    /// option.X=Y tc=… st=… depth=… nodes=…`, `-each …`, `-variant …`,
    /// `-rounds`, `-games`, `-repeat`, `-concurrency`, `-openings …`,
    /// `-pgnout`, `-json`, `-draw …`, `-resign …`, `-maxmoves`, `-sprt …`,
    /// `-ratinginterval`, `-recover`, `-wait`, `-srand`, `-shard i/N`,
    /// `-event`, `-publish URL` (games live in `ndchess serve`; docs/arbiter.md).
    #[arg(allow_hyphen_values = true, trailing_var_arg = true, num_args = 0..)]
    pub words: Vec<String>,
}

/// Runs `match` (two engines) or `tournament`.
pub fn run(args: &ArbiterArgs, tournament_mode: bool) -> Result<(), CommandError> {
    if tournament_mode && args.words.first().map(String::as_str) == Some("merge") {
        return merge(&args.words[1..]);
    }
    let config =
        Config::parse(&args.words, tournament_mode).map_err(|e| CommandError::Other(e.0))?;
    let summary = tournament::run(&config).map_err(|e| CommandError::Other(e.to_string()))?;
    print!("{}", tournament::table(&summary));
    println!("Finished {} games", summary.played);
    Ok(())
}

/// `tournament merge [-pgnout F] [-json F] JOURNAL…`.
fn merge(words: &[String]) -> Result<(), CommandError> {
    let mut pgnout = None;
    let mut jsonout = None;
    let mut journals = Vec::new();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        match w.as_str() {
            "-pgnout" => pgnout = it.next().map(PathBuf::from),
            "-json" | "-jsonout" => jsonout = it.next().map(PathBuf::from),
            s if s.starts_with('-') => {
                return Err(CommandError::Other(format!(
                    "merge: unknown option {s} (expected -pgnout, -json, journals)"
                )));
            }
            s => journals.push(PathBuf::from(s)),
        }
    }
    if journals.is_empty() {
        return Err(CommandError::Other(
            "merge: give the shards' journal files".into(),
        ));
    }
    let s = tournament::merge(&journals, pgnout.as_deref(), jsonout.as_deref())
        .map_err(|e| CommandError::Other(e.to_string()))?;
    print!("{}", tournament::table(&s));
    println!("Merged {} games of {}", s.played, s.header.games);
    Ok(())
}

/// `pgn check FILE…`: replays every game with the engine's rules.
pub fn pgn_check(files: &[PathBuf]) -> Result<(), CommandError> {
    let mut bad = 0usize;
    let mut total = 0usize;
    for f in files {
        let text = std::fs::read_to_string(f)
            .map_err(|e| CommandError::Other(format!("{}: {e}", f.display())))?;
        for (i, g) in pgn::read_games(&text).into_iter().enumerate() {
            total += 1;
            match g {
                Err(e) => {
                    bad += 1;
                    println!("{} game {}: error: {e}", f.display(), i + 1);
                }
                Ok(g) => {
                    let r = pgn::check_game(&g);
                    let status = if r.problems.is_empty() {
                        "ok".to_string()
                    } else {
                        bad += 1;
                        format!("error: {}", r.problems.join("; "))
                    };
                    println!(
                        "{} game {}: {status}; {} plies; {}; final {}",
                        f.display(),
                        i + 1,
                        r.plies,
                        g.tag("Result").unwrap_or("*"),
                        r.final_position
                    );
                }
            }
        }
    }
    if bad > 0 {
        return Err(CommandError::Other(format!(
            "{bad} of {total} games do not check"
        )));
    }
    eprintln!("{total} games checked");
    Ok(())
}
